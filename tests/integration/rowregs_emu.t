#!/bin/bash
# The row in registers (translator variant 12, src/translate/rowregs.c) computes what the C
# body computes, checked on a machine without a GPU: the benchmark's softmax goes through the
# builtin agent, and its variant-12 kernel's text (the device helpers and the kernel, as
# printed) runs on the CPU under tests/lib/cuda_block_emu.h (a std::thread per CUDA thread,
# barriers for __syncthreads and the warps' shuffles). Rows that fit 16 x blockDim.x take the
# registers' path, longer ones the block-per-row path of the same kernel; both must match the
# C body within the entry's tol() (the sums are added in another order), on blocks of 32, 64
# and 256 threads. The variant-11 kernel runs the same way, as the reference the lead measured.
. "$(dirname "$0")/../lib/emu.sh"
cp "$CH_CC_SRC/bench/micro/softmax.c" "$CH_CC_SRC/bench/micro/micro.h" .
CH_CC_BUDGET=3 "$bin" --harness-propose=cand softmax.c > list 2> err
ok $? "the builtin agent proposes candidates for the softmax" || diag "$(cat err)"

cat > driver.cpp <<'CPP'
#include "cuda_block_emu.h"
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
CUDA_BLOCK_EMU_GLOBALS
#include "kernel.inc"
static void softmax_host(int m, int n, const float *x, float *y)
{
    for (int r = 0; r < m; r++) {
        float mx = x[r * n];
        for (int j = 1; j < n; j++)
            mx = fmaxf(mx, x[r * n + j]);
        float s = 0;
        for (int j = 0; j < n; j++) {
            y[r * n + j] = expf(x[r * n + j] - mx);
            s += y[r * n + j];
        }
        for (int j = 0; j < n; j++)
            y[r * n + j] /= s;
    }
}
int main(int argc, char **argv)
{
    int m = atoi(argv[1]), n = atoi(argv[2]), threads = atoi(argv[3]), blocks = 2;
    std::vector<float> x((size_t)m * n), y((size_t)m * n, -7.0f), want((size_t)m * n);
    for (size_t i = 0; i < x.size(); i++)
        x[i] = (float)((i * 2654435761u) % 1000) / 100.0f - 5.0f;
    softmax_host(m, n, x.data(), want.data());
    blockDim.x = threads;
    gridDim.x = blocks;
    for (int b = 0; b < blocks; b++) {
        std::barrier<> block(threads);
        emu_block_barrier = &block;
        for (int w = 0; w < threads / 32; w++)
            emu_warp_barrier[w] = new std::barrier<>(32);
        std::vector<std::thread> ts;
        for (int t = 0; t < threads; t++)
            ts.emplace_back([&, t, b] {
                threadIdx.x = t;
                blockIdx.x = b;
                softmax_k0(m, n, x.data(), y.data());
            });
        for (auto &t : ts)
            t.join();
        for (int w = 0; w < threads / 32; w++)
            delete emu_warp_barrier[w];
    }
    double worst = 0;
    for (size_t i = 0; i < y.size(); i++) {
        double d = fabs((double)y[i] - want[i]) / fabs((double)want[i]);
        worst = d > worst ? d : worst;
    }
    printf("%g\n", worst);
    return 0;
}
CPP
for v in 12 11; do
    f=$(emu_variant cand $v)
    ok $([ -n "$f" ]; echo $?) "variant $v is proposed for the softmax" || continue
    # the device helpers (variant 12's) and the kernel, as printed
    awk '/^template <typename T>/ { p = 1 } p && /^\/\* Kernel 0 runs/ { p = 0 } p' "$f" > kernel.inc
    emu_kernels "$f" >> kernel.inc
    g++ -std=c++20 -O1 -pthread -I"$CH_CC_SRC/tests/lib" driver.cpp -o "run$v" 2> "build$v.log"
    ok $? "variant $v: its kernel builds on the CPU stand-in" || { diag "$(head -20 "build$v.log")"; continue; }
    # rows up to 16 x 256 = 4096 fit the registers on 256 threads; 4097 and 9000 do not
    for size in "5 1000 256" "3 4096 256" "4 4097 256" "2 9000 256" "3 1 256" "5 700 64" \
        "3 513 32" "2 600 32"; do
        set -- $size
        worst=$(./"run$v" "$@")
        emu_within "$worst" 1e-5
        ok $? "variant $v: m=$1 n=$2 on $3 threads matches the C body (worst relative error $worst)"
    done
done
done_testing
