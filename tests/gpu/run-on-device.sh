#!/bin/bash
# Runs the GPU tests and benchmarks on the GPU machine with what tests/gpu/make-carry.sh
# prepared; logs go to $OUT (or ./gpu-logs). Usage: bash tests/gpu/run-on-device.sh
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
c="$top/tests/gpu/carry"
out="${OUT:-$top/gpu-logs}"
mkdir -p "$out"
lib16=$(ls /usr/lib/x86_64-linux-gnu/libclang-16.so.1 /usr/lib/llvm-16/lib/libclang-16.so.1 2>/dev/null | head -1)
[ -n "$lib16" ] && ln -sf "$lib16" "$c/lib/libclang-14.so.13"
ln -sf /usr/lib/x86_64-linux-gnu/libxxhash.so.0 "$c/lib/libxxhash.so"
export LD_LIBRARY_PATH="$c/lib:${LD_LIBRARY_PATH:-}" LIBRARY_PATH="$c/lib:${LIBRARY_PATH:-}"
export C_INCLUDE_PATH="$c/include" CPATH="$c/include" PATH="$PATH:/usr/local/cuda/bin"
export CH_CC_SRC="$top" CH_CC_TEST_BUILD="$top/build" CH_CC_BIN="$top/build/bin/ch-cc"
export CH_CC_REQUIRE_GPU=1 CH_CC_CACHE_DIR="$out/cache" CH_CC_ARCH=sm_90
nvidia-smi -L | tee "$out/gpu.txt"
status=0
for t in "$top"/tests/gpu/*.t; do
    bash "$t" 2>&1 | tee "$out/$(basename "$t").log" || status=1
done
sh "$top/bench/run.sh" 2>&1 | tee "$out/bench.log"
exit $status
