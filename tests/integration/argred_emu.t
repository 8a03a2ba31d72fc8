#!/bin/bash
# Arg-reductions (src/translate/argred.c, argred_cuda.c) compute exactly what the C body
# computes, checked on a machine without a GPU: the candidate's two kernels (the grid's threads
# and blocks keep (value, index) pairs, one block combines the blocks' pairs), as printed, run
# on the CPU under tests/lib/cuda_block_emu.h (a std::thread per CUDA thread, barriers for
# __syncthreads and the shuffles), on blocks of 32, 64 and 256 threads, as many blocks as the
# launcher asks for or fewer (the loop is grid-stride), odd sizes. The everyday argmax (`>`: the
# first maximum), `>=` (the last), float `<` and `<=` with an affine index and a constant or
# x[0] start, on inputs full of ties, all equal, with -0.0 next to 0.0 and with NaNs (x[0] a NaN
# too): the index must equal the C body's, ties included.
. "$(dirname "$0")/../lib/emu.sh"
cp "$CH_CC_SRC/tests/data/everyday/argmax.c" .
cat > imaxl.c <<'C'
#pragma harness extent(x : n, r : 1)
void imaxl(int n, const int *x, int *r)
{
    int m = x[0], at = 0;
    for (int i = 1; i < n; i++)
        if (x[i] >= m) {
            m = x[i];
            at = i;
        }
    *r = at;
}
C
cat > fmin.c <<'C'
#pragma harness extent(x : n, r : 1)
void fmin1(int n, const float *x, int *r)
{
    float m = 1.0e30f;
    int at = -1;
    for (int i = 0; i < n; i++)
        if (x[i] < m) {
            m = x[i];
            at = 2 * i + 1;
        }
    *r = at;
}
C
cat > fminl.c <<'C'
#pragma harness extent(x : n, r : 1)
void fminl1(int n, const float *x, int *r)
{
    float m = x[0];
    int at = 7;
    for (int i = 1; i < n; i++)
        if (m >= x[i]) {
            at = 3 * i - 2;
            m = x[i];
        }
    *r = at;
}
C

cat > driver.cpp <<'CPP'
#include "cuda_block_emu.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
CUDA_BLOCK_EMU_GLOBALS
#include "ref.inc"
#include "kernel.inc"
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
// blocks of `threads` CUDA threads, one block after the other
template <typename F> static void grid(unsigned blocks, unsigned threads, F f)
{
    blockDim.x = threads;
    gridDim.x = blocks;
    for (unsigned b = 0; b < blocks; b++) {
        std::barrier<> block(threads);
        emu_block_barrier = &block;
        for (unsigned w = 0; w < threads / 32; w++)
            emu_warp_barrier[w] = new std::barrier<>(32);
        std::vector<std::thread> ts;
        for (unsigned t = 0; t < threads; t++)
            ts.emplace_back([&, t, b] {
                threadIdx.x = t;
                blockIdx.x = b;
                f();
            });
        for (auto &t : ts)
            t.join();
        for (unsigned w = 0; w < threads / 32; w++)
            delete emu_warp_barrier[w];
    }
}
int main(int argc, char **argv)
{
    int n = atoi(argv[1]), threads = atoi(argv[2]), cap = atoi(argv[3]), pattern = atoi(argv[4]);
    std::vector<ELEM> x(n > 0 ? n : 1);
    for (int i = 0; i < n; i++) {
        unsigned h = (unsigned)i * 2654435761u >> 7;
        if (pattern == 0) // a few values: many ties, far apart and next to each other
            x[i] = (ELEM)(h % 4);
        else if (pattern == 1) // all equal
            x[i] = (ELEM)3;
        else { // -0.0 and 0.0 (equal, of other bits), NaN, and x[0] a NaN in pattern 3
            const ELEM v[4] = {(ELEM)-0.0, (ELEM)0.0, (ELEM)1, (ELEM)NAN};
            x[i] = v[h % 4];
            if (pattern == 3 && i == 0)
                x[i] = (ELEM)NAN;
        }
    }
    int want = -99, got = -99;
    NAME(n, x.data(), &want);
    long long b = ((long long)n + threads - 1) / threads;
    unsigned nb = (unsigned)(b < 1 ? 1 : b < cap ? b : cap);
    std::vector<ELEM> bv(nb);
    std::vector<long long> bi(nb);
    std::vector<int> bh(nb);
    grid(nb, threads, [&] { CAT(NAME, _k0)(n, x.data(), &got, bv.data(), bi.data(), bh.data()); });
    grid(1, threads, [&] { CAT(NAME, _k1)(n, x.data(), &got, bv.data(), bi.data(), bh.data(), nb); });
    printf("%d %d\n", got, want);
    return got != want;
}
CPP

for src in argmax.c imaxl.c fmin.c fminl.c; do
    name=$(awk '/^void /{ sub(/\(.*/, "", $2); print $2; exit }' "$src")
    CH_CC_BUDGET=2 "$bin" --harness-propose="cand-$name" "$src" > "list-$name" 2> "err-$name"
    f=$(emu_variant "cand-$name" 0)
    ok $([ -n "$f" ]; echo $?) "$name: translator variant 0 is proposed" || { diag "$(cat "err-$name")"; continue; }
    grep -q "an arg-m.* on threads" "$f"
    ok $? "$name: its plan is an arg-reduction on threads" || continue
    # the reference: the C function itself; the kernels: the helpers and both kernels as printed
    awk '/^void /, /^}/' "$src" > ref.inc
    awk '/^\/\* Whether the pair/ { p = 1 } /^\/\* The device launcher/ { p = 0 } p' "$f" > kernel.inc
    elem=$(awk '/_better\(/ { sub(/.*_better\(/, ""); sub(/ v,.*/, ""); print; exit }' kernel.inc)
    g++ -std=c++20 -O1 -pthread -DNAME="$name" -DELEM="$elem" -I"$CH_CC_SRC/tests/lib" driver.cpp \
        -o "run-$name" 2> "build-$name.log"
    ok $? "$name: its kernels build on the CPU stand-in ($elem)" || { diag "$(head -20 "build-$name.log")"; continue; }
    patterns="0 1"
    [ "$elem" = float ] && patterns="0 1 2 3"
    for p in $patterns; do
        bad=""
        # n, threads, most blocks: odd sizes, one element, none; grids that cover the loop or
        # stride over it
        for size in "1000 256 1024" "1 32 1024" "0 32 1024" "2 64 1024" "257 32 1024" \
            "4099 64 3" "777 256 2" "65 32 1"; do
            set -- $size
            r=$(./"run-$name" "$@" "$p") || bad="$bad [n=$1 threads=$2 blocks<=$3: got, want $r]"
        done
        ok $([ -z "$bad" ]; echo $?) "$name: input pattern $p, 8 sizes and grids, the C body's index" ||
            diag "$bad"
    done
done
done_testing
