#!/bin/sh
# The microbenchmarks of bench/micro (copy, saxpy, dot, softmax, transpose, 5-point stencil,
# SGEMM and DGEMM 4096^3, each an annotated C function) built with ch-cc, against the device's
# own yardsticks measured in the same run (bench/micro/baselines.cu: the cudaMemcpy copy floor,
# cuBLAS SGEMM/DGEMM) and against the same C built with gcc -O3 on one core. One table: per
# micro the winning candidate's kernel time (from its report.json), the bytes or flops the
# driver counts over that time, its fraction of the copy floor (memory-bound) or of cuBLAS
# (GEMM), the whole call (host buffers in and out, CH_CC_FORCE_GPU=1) and the call as the
# dispatcher chooses, both timed by the driver, the gcc -O3 time and the speedups. GPU only.
#
# CH_CC_MICROS (names, default all), CH_CC_BUDGET (agent requests per entry, ch-cc's default
# otherwise), CH_CC_SPEED_CACHE (a cache directory to keep and reuse; default a fresh one),
# CH_CC_SPEED_TSV (append the machine-readable rows there), MICRO_SECONDS (the driver's timing
# budget per micro and build, default 2), CH_CC_MICRO_SMALL=1 (the driver's odd small sizes,
# for trying the script out; the kernels still evolve at the tune() sizes).
set -u
src=${CH_CC_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
if ! (command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU); then
    echo "skipped: no GPU"
    exit 0
fi
bin=${CH_CC_BIN:-$src/build/bin/ch-cc}
report="python3 $src/bench/report.py"
all="copy saxpy dot softmax transpose stencil sgemm dgemm"
micros=${CH_CC_MICROS:-$all}
export PATH="$PATH:/usr/local/cuda/bin"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ch-cc-speed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export CH_CC_CACHE_DIR="${CH_CC_SPEED_CACHE:-$tmp/cache}"
unset CH_CC_FORCE_GPU CH_CC_FORCE_HOST CH_CC_TRACE
cp "$src"/bench/micro/*.c "$src"/bench/micro/*.h "$src/bench/micro/baselines.cu" "$tmp/"
cd "$tmp" || exit 1
small=
[ "${CH_CC_MICRO_SMALL:-0}" = 1 ] && small=-small
one_core=
command -v taskset >/dev/null 2>&1 && one_core="taskset -c 0"

# the yardsticks first, while nothing else runs
nvcc -O3 -std=c++17 -arch="${CH_CC_ARCH:-native}" baselines.cu -lcublas -o baselines \
    > baselines.log 2>&1 || { echo "baselines.cu did not build:"; head -20 baselines.log; exit 1; }
./baselines > baselines.txt 2> baselines.log || { echo "baselines failed:"; cat baselines.log; exit 1; }
grep -q '^copy_floor_gbs' baselines.txt || echo "baselines: $(cat baselines.txt)"
grep -q '^copy_floor_gbs' baselines.txt && awk '
    { v[$1] = $2; if ($1 == "device") { $1 = ""; dev = substr($0, 2) } }
    END { printf "%s: copy floor %s GB/s (D2D, read+write); cuBLAS SGEMM %s TFLOP/s (TF32 %s), " \
                 "DGEMM %s; H2D %s/%s GB/s, D2H %s/%s GB/s (pinned/pageable)\n",
                 dev, v["copy_floor_gbs"], v["sgemm_tflops"], v["sgemm_tf32_tflops"],
                 v["dgemm_tflops"], v["h2d_pinned_gbs"], v["h2d_pageable_gbs"],
                 v["d2h_pinned_gbs"], v["d2h_pageable_gbs"] }' baselines.txt

# the gcc -O3 build of every micro: the one-core baseline, and the objects that stand in for
# the micros this run does not build with ch-cc
for m in $all; do
    gcc -O3 -std=c11 -w -c "$m.c" -o "$m.gcc.o" || exit 1
done
gcc -O3 -std=c11 -w -c main.c -o main.o || exit 1
gcc -O3 main.o $(for m in $all; do echo "$m.gcc.o"; done) -lm -o micro.gcc || exit 1

# last_path TRACE: the path the last traced call took (gpu, host, or gpu failed)
last_path() {
    sed -n 's/^ch-cc: [^:]*: //p' "$1" | tail -1 | sed 's/ (.*//; s/ /-/g'
}

$report speed-header
status=0 # 1 when a result differs from gcc's
for m in $micros; do
    case " $all " in *" $m "*) ;; *) echo "$m: not a micro (they are: $all)"; continue ;; esac
    t0=$(date +%s)
    "$bin" -O3 -std=c11 -c "$m.c" -o "$m.ch.o" 2> "$m.build.log"
    built=$?
    t1=$(date +%s)
    objs=$(for o in $all; do if [ "$o" = "$m" ] && [ $built = 0 ]; then echo "$m.ch.o"; else echo "$o.gcc.o"; fi; done)
    "$bin" -O3 main.o $objs -lm -o "micro.$m" 2>> "$m.build.log" || built=1
    rep=$("$bin" --harness-list -O3 -std=c11 "$m.c" 2>/dev/null | $report path "$CH_CC_CACHE_DIR")
    linked=host
    # the build says so on a cold cache; on a warm one the report has a winner
    if [ $built = 0 ] && { grep -q 'verified kernel linked' "$m.build.log" ||
        [ "$($report best "$rep")" != "$(printf -- '-\t-\t-\t-')" ]; }; then
        linked=kernel
    fi
    {
        echo "name $m"
        echo "linked $linked"
        echo "build_s $((t1 - t0))"
        echo "report $rep"
        echo "gcc $($one_core ./micro.gcc $small "$m" 2>/dev/null)"
        if [ $built = 0 ]; then
            echo "dispatched $(CH_CC_TRACE=1 ./"micro.$m" $small "$m" 2> "$m.disp.trace")"
            echo "dispatched_path $(last_path "$m.disp.trace")"
            echo "gpu $(CH_CC_TRACE=1 CH_CC_FORCE_GPU=1 timeout 900 ./"micro.$m" $small "$m" 2> "$m.gpu.trace")"
            echo "gpu_path $(last_path "$m.gpu.trace")"
        fi
    } > "$m.record"
    $report speed-row baselines.txt "$m.record" || status=1
    # why there is no kernel, under its row
    if [ $linked = host ]; then
        grep -m3 -E 'error|warning' "$m.build.log" | sed 's/^/    /'
    fi
done
exit $status
