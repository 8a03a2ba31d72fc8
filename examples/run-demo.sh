#!/bin/sh
# make demo: builds every example with CC=ch-cc and runs it. With a GPU the annotated functions
# run as verified kernels (CH_CC_TRACE shows the path of each call); without one the programs
# run their host path and ch-cc says why.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    echo "demo: a CUDA device is present: kernels are generated, verified and linked"
else
    echo "demo: no CUDA device on this machine: each program runs its host path (nothing unverified is ever linked)"
fi
for ex in saxpy jacobi spec-def; do
    echo "== examples/$ex"
    work=$(mktemp -d)
    cp -r "$here/$ex/." "$work/"
    (cd "$work" && make -s CC="$CH_CC_BIN" && for p in saxpy jacobi blend; do
        [ -x "$p" ] && CH_CC_TRACE=1 "./$p" 2>&1 | sort | uniq -c | sed 's/^ *1 //'
    done)
    rm -rf "$work"
done
