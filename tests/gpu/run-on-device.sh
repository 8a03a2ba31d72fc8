#!/bin/bash
# Runs the GPU tests and benchmarks on the GPU machine with what tests/gpu/make-carry.sh
# prepared (build here, carry build/ and tests/gpu/carry/); logs go to $OUT (or ./gpu-logs).
# Usage: bash tests/gpu/run-on-device.sh [TEST.t ...] [bench]
# (default: every tests/gpu/*.t, then the benchmarks; CH_CC_BENCHES picks benchmarks,
# CH_CC_TEST_TIMEOUT bounds each test's seconds)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
c="$top/tests/gpu/carry"
out="${OUT:-$top/gpu-logs}"
mkdir -p "$out"
# libclang's C API is stable: the machine's libclang-16 serves under the libclang-14 soname.
# libclang finds its builtin headers (stddef.h ...) at <its dir>/clang/<version>, so that
# directory is linked beside the soname too.
# Links are made once: several runs of this script may share the carry at the same time, and
# replacing a link would leave a moment without it for another run's ch-cc.
link() { [ -e "$2" ] || ln -sfn "$1" "$2"; }
lib16=$(ls /usr/lib/llvm-16/lib/libclang-16.so.1 /usr/lib/x86_64-linux-gnu/libclang-16.so.1 2>/dev/null | head -1)
[ -n "$lib16" ] && link "$lib16" "$c/lib/libclang-14.so.13" && link "$lib16" "$c/lib/libclang.so"
[ -d /usr/lib/llvm-16/lib/clang ] && link /usr/lib/llvm-16/lib/clang "$c/lib/clang"
link /usr/lib/x86_64-linux-gnu/libxxhash.so.0 "$c/lib/libxxhash.so"
# the MemorySanitizer check of model-written references runs 'clang'; the machine has clang-16
command -v clang >/dev/null || { command -v clang-16 >/dev/null && link "$(command -v clang-16)" "$c/bin/clang"; }
export LD_LIBRARY_PATH="$c/lib:${LD_LIBRARY_PATH:-}" LIBRARY_PATH="$c/lib:${LIBRARY_PATH:-}"
export C_INCLUDE_PATH="$c/include" CPATH="$c/include" PATH="$PATH:/usr/local/cuda/bin:$c/bin"
export CH_CC_SRC="$top" CH_CC_TEST_BUILD="$top/build" CH_CC_BIN="$top/build/bin/ch-cc"
export CH_CC_REL_BIN="$top/build/bin/ch-cc"
export CH_CC_REQUIRE_GPU=1 CH_CC_ARCH=sm_90
nvidia-smi -L | tee "$out/gpu.txt"
tests=()
bench=0
for a in "$@"; do
    if [ "$a" = bench ]; then bench=1; else tests+=("$a"); fi
done
[ $# -eq 0 ] && tests=("$top"/tests/gpu/*.t) && bench=1
status=0
for t in "${tests[@]}"; do
    echo "== $t"
    timeout "${CH_CC_TEST_TIMEOUT:-900}" bash "$t" > "$out/$(basename "$t").log" 2>&1 || status=1
    grep -E '^(not ok|ok|1\.\.)' "$out/$(basename "$t").log" | grep -c '^ok' | sed 's/^/passed: /'
    grep -E '^not ok' "$out/$(basename "$t").log" | head -20
done
if [ $bench = 1 ]; then
    CH_CC_CACHE_DIR="${TMPDIR:-/tmp}/ch-cc-bench-cache" sh "$top/bench/run.sh" > "$out/bench.log" 2>&1
    tail -40 "$out/bench.log"
fi
exit $status
