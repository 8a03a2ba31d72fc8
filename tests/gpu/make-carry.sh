#!/bin/sh
# Prepares tests/gpu/carry/ for the GPU machine (CUDA 13, gcc 13, libclang-16, no cJSON, no
# xxHash header, no apt): the headers and shared libraries it lacks, and libclang-14 sonames
# pointing at its libclang-16 (libclang's C API is stable across versions). Build here, carry
# build/lib (it holds libch_runtime.a, the runtime that programs built there link), build/bin,
# build/libexec and tests/gpu/carry, then run tests/gpu/run-on-device.sh.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build="$top/${BUILD:-build}"
if [ ! -f "$build/lib/libch_runtime.a" ]; then
    echo "carry: $build/lib/libch_runtime.a is missing (make build first)" >&2
    exit 1
fi
c="$top/tests/gpu/carry"
rm -rf "$c"
mkdir -p "$c/include" "$c/lib"
cp -r /usr/include/cjson "$c/include/"
cp /usr/include/xxhash.h "$c/include/"
cp -L /usr/lib/x86_64-linux-gnu/libcjson.so.1 "$c/lib/libcjson.so.1"
ln -s libcjson.so.1 "$c/lib/libcjson.so"
# libsodium (signed cache entries) and libseccomp (the verification sandbox): ch-cc links them,
# and the catalog driver links libseccomp; the machine may lack the development symlinks
for l in libsodium.so.23 libseccomp.so.2 libhiredis.so.0.14; do
    cp -L "/usr/lib/x86_64-linux-gnu/$l" "$c/lib/$l"
    ln -s "$l" "$c/lib/${l%%.so.*}.so"
done
# make, for the example builds, in case the machine has none (built here, runs on glibc >= 2.36)
mkdir -p "$c/bin"
cp "$(command -v make)" "$c/bin/make"
# redis-server, for the team test's redis:// remote, with the two libraries Ubuntu lacks by default
if command -v redis-server >/dev/null; then
    cp "$(command -v redis-server)" "$c/bin/redis-server"
    for l in liblzf.so.1 libjemalloc.so.2; do
        cp -L "/usr/lib/x86_64-linux-gnu/$l" "$c/lib/$l"
    done
fi
echo "carry: $(du -sh "$c" | cut -f1) in $c; the runtime: $build/lib/libch_runtime.a"
