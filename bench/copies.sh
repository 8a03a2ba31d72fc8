#!/bin/sh
# The trusted runtime's copies (issue 14): effective GB/s of host-pointer buffers moved in and
# out through libch_runtime.a for 1, 16, 64, 256 and 1024 MiB, next to pageable and pinned
# cudaMemcpy measured in the same process; then the map call (saxpy 2^24 and 2^26, copies in,
# kernels and copies out overlapping chunk by chunk) against the host loop. The program is the
# runtime's GPU test program (tests/gpu/runtime_gpu.cu) in its timing modes. GPU only.
set -u
src=${CH_CC_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
if ! (command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU); then
    echo "skipped: no GPU"
    exit 0
fi
lib=${CH_CC_RUNTIME_LIB:-$src/build/lib/libch_runtime.a}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ch-cc-copies.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export PATH="$PATH:/usr/local/cuda/bin"
unset CH_CC_RT_FAULT CH_CC_TRACE
nvcc -O2 -arch="${CH_CC_ARCH:-native}" -I"$src/include" -I"$src/src/runtime" \
    "$src/tests/gpu/runtime_gpu.cu" "$lib" -lpthread -o "$tmp/copies" > "$tmp/nvcc.log" 2>&1 ||
    { echo "the copy benchmark did not build:"; head -20 "$tmp/nvcc.log"; exit 1; }
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
"$tmp/copies" bandwidth || exit 1
"$tmp/copies" map || exit 1
