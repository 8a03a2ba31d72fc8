#!/bin/bash
# The verification catalog on a real GPU: every candidate in tests/gpu/candidates/ is classified
# at its expected stage with its expected message; correct ones pass with timings.
. "$(dirname "$0")/../lib/tap.sh"
require_gpu
b="${CH_CC_TEST_BUILD:-$CH_CC_SRC/build/asan}"
cc -std=c11 -D_GNU_SOURCE -I"$CH_CC_SRC/include" -I"$CH_CC_SRC/tests/unit" \
    "$CH_CC_SRC/tests/gpu/verify_catalog.c" -Wl,--start-group "$b/lib/libchcache.a" "$b/lib/libharness.a" \
    -Wl,--end-group -L/usr/lib/llvm-14/lib -Wl,-rpath,/usr/lib/llvm-14/lib -lclang -lcjson -lxxhash -lsodium -lseccomp -lpthread -lm -ldl \
    $(case "$b" in */asan) echo -fsanitize=address,undefined ;; esac) \
    -o "$TEST_DIR/verify_catalog" || { plan 1; fail "catalog driver builds"; exit 1; }
# CH_CC_CATALOG=a.cu,b.cu runs only those (a quick re-check on a GPU machine)
ASAN_OPTIONS=detect_leaks=0 "$TEST_DIR/verify_catalog" "$CH_CC_SRC/tests/gpu/candidates" ${CH_CC_CATALOG:+"$CH_CC_CATALOG"}
