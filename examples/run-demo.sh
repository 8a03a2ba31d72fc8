#!/bin/sh
# make demo: builds every example with CC=ch-cc and runs it, showing only what is real.
# With a GPU the annotated functions become verified kernels: each program prints its measured
# whole-call speedup, shown only when the trace says the timed call ran the kernel (the
# dispatcher keeps the host path where that was measured faster). Without one the programs run
# their host path: the demo checks their results, prints no speedup (both runs would be the
# same host loop), and says what became of each kernel (pending: its candidates wait in the
# cache for a build on a GPU machine). Either way CH_CC_TRACE=1 shows where each call went, at
# what size and why, and each example's report page is written under $CH_CC_DEMO_REPORT
# (default build/demo-report): open it in a browser.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
report_root=${CH_CC_DEMO_REPORT:-$here/../build/demo-report}
mkdir -p "$report_root"
report_root=$(cd "$report_root" && pwd)
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    gpu=1
    echo "demo: a CUDA device is present: kernels are generated, verified and linked"
else
    gpu=0
    echo "demo: no CUDA device on this machine: the kernels stay pending and each program runs its host path"
    echo "      (nothing unverified is ever linked; no speedup is shown: there is nothing to compare)"
fi
status=0
for ex in saxpy:saxpy:saxpy.c:saxpy jacobi:jacobi:jacobi.c:jacobi2d spec-def:blend:blend.c:blend; do
    dir=${ex%%:*}
    rest=${ex#*:}
    prog=${rest%%:*}
    rest=${rest#*:}
    src=${rest%%:*}
    fn=${rest#*:}
    echo "== examples/$dir"
    work=$(mktemp -d)
    cp -r "$here/$dir/." "$work/"
    if ! (cd "$work" && make -s CC="$CH_CC_BIN"); then
        echo "demo: examples/$dir did not build" >&2
        status=1
        rm -rf "$work"
        continue
    fi
    # CH_CC_TRACE=1: one stderr line per call of an annotated function, with the path it took
    # and why (the kernel's dispatcher, or the host path when no kernel is linked)
    # (--no-timing without a GPU: both runs would be the host loop, their ratio noise)
    if [ "$gpu" = 1 ]; then
        # the programs time their second call: the device is set up before main, as for any
        # program that times its calls (a cold call may stay on the host path, see README)
        (cd "$work" && CH_CC_DEVICE_INIT=load CH_CC_TRACE=1 "./$prog" > run.out 2> trace.err) ||
            status=1
        # a speedup is shown only when the timed (last) call ran the kernel: the path is the
        # word after the entry's name in the last trace line ("gpu", or "host (WHY)")
        path=$(sed -n 's/^ch-cc: [^:]*: //p' "$work/trace.err" | tail -1 | sed 's/ (.*//')
        if [ "$path" = gpu ]; then
            sed 's/^/   /' "$work/run.out"
        else
            sed 's/, harness .*/ (the timed call took the host path: no speedup to report)/
                 s/^/   /' "$work/run.out"
        fi
    else
        (cd "$work" && CH_CC_TRACE=1 "./$prog" --no-timing > run.out 2> trace.err) || status=1
        sed 's/^/   /' "$work/run.out"
    fi
    sort "$work/trace.err" | uniq -c | sed 's/^ */   calls: /'
    # what the build made of the kernel, in one sentence (--harness-explain has the rest)
    (cd "$work" && "$CH_CC_BIN" --harness-explain "$fn" "$src" | sed -n 's/^outcome *//p' |
        sed "s/^/   $fn: /")
    (cd "$work" && "$CH_CC_BIN" --harness-report="$report_root/$dir" "$src" | sed 's/^/   /')
    rm -rf "$work"
done
exit $status
