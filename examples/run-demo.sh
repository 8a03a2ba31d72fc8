#!/bin/sh
# make demo: builds every example with CC=ch-cc and runs it. With a GPU the annotated functions
# become verified kernels (CH_CC_TRACE=1 shows where each call went and why); without one the
# programs run their host path and ch-cc's warning says why. Each program checks its results
# against its plain C loop and prints the speedup of whatever path ran.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    echo "demo: a CUDA device is present: kernels are generated, verified and linked"
else
    echo "demo: no CUDA device on this machine: each program runs its host path (nothing unverified is ever linked)"
fi
status=0
for ex in saxpy:saxpy jacobi:jacobi spec-def:blend; do
    dir=${ex%%:*}
    prog=${ex#*:}
    echo "== examples/$dir"
    work=$(mktemp -d)
    cp -r "$here/$dir/." "$work/"
    if (cd "$work" && make -s CC="$CH_CC_BIN" && CH_CC_TRACE=1 "./$prog" 2> trace.err &&
        sort trace.err | uniq -c | sed 's/^ */   calls: /'); then
        :
    else
        echo "demo: examples/$dir failed" >&2
        status=1
    fi
    rm -rf "$work"
done
exit $status
