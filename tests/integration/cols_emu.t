#!/bin/bash
# Four rows and 16 bytes of columns a thread (translator variant 15, src/translate/cols.c)
# compute what the C body computes, checked on a machine without a GPU: the kernel's text, as
# printed, runs on the CPU under tests/lib/cuda_block_emu.h (its threads one after the other:
# the kernel has no barrier), on the grid its launcher asks for. The benchmark's 5-point stencil
# (floats, float4) and a wider one on doubles (offsets -2 .. +2 along the row, double2), at
# sizes whose row pitch keeps every row 16-byte aligned (the vector path: the stores counted)
# and sizes where it does not (the same kernel falls back to one value at a time): equal to the
# C body to the last bit (the same operations in the same order, products not fused).
. "$(dirname "$0")/../lib/emu.sh"
cp "$CH_CC_SRC/bench/micro/stencil.c" "$CH_CC_SRC/bench/micro/micro.h" .
cat > wide.c <<'C'
#pragma harness extent(a: m * n, b: m * n) tune(m = 1024, n = 1024)
void wide(int m, int n, const double *a, double *b)
{
    for (int i = 1; i < m - 1; i++)
        for (int j = 2; j < n - 2; j++)
            b[i * n + j] = 0.25 * (a[i * n + j - 2] + a[(i - 1) * n + j] + a[(i + 1) * n + j]) -
                           0.5 * a[i * n + j + 2] + a[i * n + j + 1] * a[i * n + j - 1];
}
C

cat > driver.cpp <<'CPP'
#include "cuda_block_emu.h"
#include <cstdio>
#include <cstdlib>
#include <vector>
#undef __launch_bounds__
#define __launch_bounds__(...)
CUDA_BLOCK_EMU_GLOBALS
struct alignas(16) float4 {
    float x, y, z, w;
};
struct alignas(16) double2 {
    double x, y;
};
static long emu_vector_stores;
static float4 make_float4(float x, float y, float z, float w)
{
    emu_vector_stores++;
    return {x, y, z, w};
}
static double2 make_double2(double x, double y)
{
    emu_vector_stores++;
    return {x, y};
}
static float __fmul_rn(float a, float b) { return a * b; }
static double __dmul_rn(double a, double b) { return a * b; }
#include "kernel.inc"
int main(int argc, char **argv)
{
    int m = atoi(argv[1]), n = atoi(argv[2]);
    std::vector<ELEM> a((size_t)m * n), b((size_t)m * n), want;
    for (size_t i = 0; i < a.size(); i++) {
        a[i] = (ELEM)((i * 2654435761u) % 1000) / (ELEM)100 - (ELEM)5;
        b[i] = (ELEM)-7;
    }
    want = b;
    for (int i = 1; i < m - 1; i++)
        for (int j = LO; j < n - LO; j++)
            want[i * n + j] = REFERENCE;
    blockDim.x = 32;
    blockDim.y = 4;
    long long ex = n - 2 * LO, ey = m - 2; // the launcher's ch_e1, ch_e0
    gridDim.x = (unsigned)((ex + 32 * VEC - 1) / (32 * VEC));
    gridDim.y = (unsigned)((ey + 16 - 1) / 16);
    for (unsigned by = 0; by < gridDim.y; by++)
        for (unsigned bx = 0; bx < gridDim.x; bx++)
            for (unsigned ty = 0; ty < 4; ty++)
                for (unsigned tx = 0; tx < 32; tx++) {
                    blockIdx.x = bx;
                    blockIdx.y = by;
                    threadIdx.x = tx;
                    threadIdx.y = ty;
                    KERNEL(m, n, a.data(), b.data());
                }
    long bad = 0;
    for (size_t i = 0; i < b.size(); i++)
        bad += b[i] != want[i];
    printf("%ld %ld\n", bad, emu_vector_stores);
    return 0;
}
CPP
stencil_ref='(float)(0.2f * (a[i * n + j] + a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1]))'
wide_ref='0.25 * (a[i * n + j - 2] + a[(i - 1) * n + j] + a[(i + 1) * n + j]) - 0.5 * a[i * n + j + 2] + a[i * n + j + 1] * a[i * n + j - 1]'
for name in stencil wide; do
    CH_CC_BUDGET=3 "$bin" --harness-propose="cand-$name" "$name.c" > list 2> err
    f=$(emu_variant cand-$name 15)
    ok $([ -n "$f" ]; echo $?) "$name: variant 15 is proposed" || { diag "$(cat err)"; continue; }
    grep -q "ch_grid(${name}_blocks(ch_e1, $([ $name = stencil ] && echo 128 || echo 64), " "$f"
    ok $? "$name: the grid's x covers 32 threads of 16 bytes of columns each"
    emu_kernels "$f" > kernel.inc
    if [ $name = stencil ]; then
        defs=(-DELEM=float -DVEC=4 -DLO=1 -DKERNEL=stencil_k0 "-DREFERENCE=$stencil_ref")
    else
        defs=(-DELEM=double -DVEC=2 -DLO=2 -DKERNEL=wide_k0 "-DREFERENCE=$wide_ref")
    fi
    g++ -std=c++20 -O1 -ffp-contract=off -fsanitize=address -I"$CH_CC_SRC/tests/lib" "${defs[@]}" driver.cpp \
        -o "run-$name" 2> "build-$name.log"
    ok $? "$name: its kernel builds on the CPU stand-in" || { diag "$(head -20 "build-$name.log")"; continue; }
    # aligned rows (n a multiple of 4): the vector path; odd pitches: value by value; tiny grids
    for size in "37 64 aligned" "20 200 aligned" "17 203 unaligned" "9 61 unaligned" "3 5 small" \
        "70 12 aligned"; do
        set -- $size
        read -r bad stores < <(./"run-$name" "$1" "$2")
        is "${bad:-none}" 0 "$name: m=$1 n=$2 equals the C body to the last bit ($stores vector stores)"
        if [ "$3" = aligned ]; then
            [ "${stores:-0}" -gt 0 ]
            ok $? "$name: m=$1 n=$2 takes the vector path ($stores 16-byte stores)"
        elif [ "$3" = unaligned ] && [ $name = wide ]; then
            # doubles: an odd pitch aligns every other row only
            [ "${stores:-0}" -lt $(( $1 * $2 / 2 / 2 )) ]
            ok $? "$name: m=$1 n=$2: misaligned rows fall back ($stores 16-byte stores)"
        fi
    done
done
done_testing
