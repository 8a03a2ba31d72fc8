#!/bin/sh
# Verification cost per candidate (wall time of each stage), the calibrated copy bandwidth, and
# a naive vs a tuned elementwise kernel's fraction of the memory floor. GPU only.
set -u
src=${CH_CC_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
if ! (command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU); then
    echo "skipped: no GPU"
    exit 0
fi
b=$src/build
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ch-cc-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export CH_CC_CACHE_DIR=${CH_CC_CACHE_DIR:-$tmp/cache}
cc -std=c11 -O2 -D_GNU_SOURCE -I"$src/include" -I"$src/tests/unit" "$src/tests/gpu/verify_catalog.c" \
    -Wl,--start-group "$b/lib/libchcache.a" "$b/lib/libharness.a" -Wl,--end-group \
    -lcjson -lxxhash -lm -ldl -o "$tmp/verify_catalog" || exit 1
"$tmp/verify_catalog" "$src/tests/gpu/candidates" \
    saxpy_ok.cu,saxpy_dev_naive.cu,saxpy_dev_ok.cu,jacobi_ok.cu,gather_ok.cu,saxpy_wrong.cu |
    sed -n 's/^ok [0-9]* - /candidate /p; s/^# /  /p'
echo "calibration (cached copy bandwidth, GB/s):"
cat "$CH_CC_CACHE_DIR"/verify/calib-*.txt 2>/dev/null | sed 's/^/  /'
