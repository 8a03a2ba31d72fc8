#!/bin/bash
# The fp64 tensor-core tiles with tiles in flight (translator variant 14, tile_mma_pipe.c)
# compute what the C body computes, checked on a machine without a GPU: the kernel's text, as
# printed, runs on the CPU under tests/lib/cuda_block_emu.h (a std::thread per CUDA thread), with
# the device helpers of templates/mma_pipe.cu replaced by stand-ins that do what the PTX ISA
# says: ch_dmma is the m8n8k4 multiply-add of a warp (lane l gives A[l / 4][l % 4] and
# B[l % 4][l / 4], and gets C[l / 4][2 (l % 4) + 0, 1]); a cp.async copies `bytes` and
# zero-fills the rest (checking the alignment and the shared-memory bounds the hardware needs)
# only when its thread waits for its group, so a stage read too early shows. Sizes that are no
# multiple of any tile (odd leading dimensions: 8-byte copies; even ones: 16-byte copies; more
# tiles of c2 than stages), the operands in both layouts (A[i][k] with k fastest and A[k][i]),
# all within 1e-12 of the C body (the sums are added in another order).
. "$(dirname "$0")/../lib/emu.sh"
cp "$CH_CC_SRC/bench/micro/dgemm.c" "$CH_CC_SRC/bench/micro/micro.h" .
# the same sum with both operands the other way round (A[k][i], B[j][k]): the tiles keep c2
# fastest for B and the mapped dimension fastest for A
cat > tgemm.c <<'C'
#pragma harness tune(ni = 1024, nj = 1024, nk = 1024) tol(1e-10)
void tgemm(int ni, int nj, int nk, double alpha, const double *A, const double *B, double *C)
{
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < nj; j++)
            for (int k = 0; k < nk; k++)
                C[i * nj + j] += alpha * A[k * ni + i] * B[j * nk + k];
}
C

cat > driver.cpp <<'CPP'
#include "cuda_block_emu.h"
#include <cassert>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>
#undef __launch_bounds__
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
CUDA_BLOCK_EMU_GLOBALS
static std::mutex emu_atomic;
static void atomicMin(long long *p, long long v)
{
    std::lock_guard<std::mutex> g(emu_atomic);
    *p = v < *p ? v : *p;
}
static void atomicMax(long long *p, long long v)
{
    std::lock_guard<std::mutex> g(emu_atomic);
    *p = v > *p ? v : *p;
}
alignas(16) static double emu_smem[SMEM_BYTES / 8];
static long emu_copies16, emu_copies8;
static int emu_tid() { return (int)(threadIdx.y * blockDim.x + threadIdx.x); }
// cp.async: `bytes` of src, zeros for the rest of the `size` bytes at dst (shared memory)
static void emu_copy(void *dst, const void *src, int bytes, int size)
{
    uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
    assert(d % size == 0 && "cp.async: destination aligned to its size");
    assert(bytes == 0 || s % size == 0);
    assert(d >= (uintptr_t)emu_smem && d + size <= (uintptr_t)emu_smem + SMEM_BYTES);
    memset(dst, 0, size);
    if (bytes)
        memcpy(dst, src, bytes);
    std::lock_guard<std::mutex> g(emu_atomic);
    (size == 16 ? emu_copies16 : emu_copies8)++;
}
// a thread's copies land only when it waits for their group (as late as the hardware may), so a
// stage read before its wait, or overwritten while another warp still reads it, shows
struct emu_copy_op {
    void *dst;
    const void *src;
    int bytes, size;
};
static thread_local std::vector<std::vector<emu_copy_op>> emu_groups(1);
static void ch_cp_async16(void *dst, const void *src, int bytes)
{
    emu_groups.back().push_back({dst, src, bytes, 16});
}
static void ch_cp_async8(void *dst, const void *src, int bytes)
{
    emu_groups.back().push_back({dst, src, bytes, 8});
}
static void ch_cp_async_commit() { emu_groups.emplace_back(); }
template <int N> static void ch_cp_async_wait()
{
    while (emu_groups.size() - 1 > (size_t)N) { // the open group is not committed
        for (const emu_copy_op &c : emu_groups.front())
            emu_copy(c.dst, c.src, c.bytes, c.size);
        emu_groups.erase(emu_groups.begin());
    }
}
static double emu_a[32][32], emu_b[32][32];
// the m8n8k4 multiply-add of the warp: every lane's a and b, then each lane's two sums
static void ch_dmma(double &c0, double &c1, double a, double b)
{
    int w = emu_tid() / 32, l = emu_tid() % 32, g = l / 4, t = l % 4;
    emu_a[w][l] = a;
    emu_b[w][l] = b;
    emu_warp_barrier[w]->arrive_and_wait();
    for (int k = 0; k < 4; k++) {
        c0 += emu_a[w][g * 4 + k] * emu_b[w][(2 * t) * 4 + k];
        c1 += emu_a[w][g * 4 + k] * emu_b[w][(2 * t + 1) * 4 + k];
    }
    emu_warp_barrier[w]->arrive_and_wait();
}
#include "kernel.inc"
int main(int argc, char **argv)
{
    int ni = atoi(argv[1]), nj = atoi(argv[2]), nk = atoi(argv[3]);
    double alpha = 1.5, beta = 0.75;
    std::vector<double> A((size_t)ni * nk), B((size_t)nk * nj), C((size_t)ni * nj), want;
    for (size_t i = 0; i < A.size(); i++)
        A[i] = (double)((i * 2654435761u) % 1000) / 100.0 - 5.0;
    for (size_t i = 0; i < B.size(); i++)
        B[i] = (double)((i * 40503u + 7) % 1000) / 250.0 - 2.0;
    for (size_t i = 0; i < C.size(); i++)
        C[i] = (double)(i % 17) - 8.0;
    want = C;
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < nj; j++) {
#ifdef TRANSPOSED
            for (int k = 0; k < nk; k++)
                want[i * nj + j] += alpha * A[k * ni + i] * B[j * nk + k];
#else
            want[i * nj + j] *= beta;
            for (int k = 0; k < nk; k++)
                want[i * nj + j] += alpha * A[i * nk + k] * B[k * nj + j];
#endif
        }
    blockDim.x = blockDim.y = 16;
    gridDim.x = (nj + 127) / 128;
    gridDim.y = (ni + 127) / 128;
    int threads = 256;
    for (unsigned by = 0; by < gridDim.y; by++)
        for (unsigned bx = 0; bx < gridDim.x; bx++) {
            std::fill(emu_smem, emu_smem + SMEM_BYTES / 8, NAN); // stale stages show
            std::barrier<> block(threads);
            emu_block_barrier = &block;
            for (int w = 0; w < threads / 32; w++)
                emu_warp_barrier[w] = new std::barrier<>(32);
            std::vector<std::thread> ts;
            for (int t = 0; t < threads; t++)
                ts.emplace_back([&, t] {
                    threadIdx.x = t % 16;
                    threadIdx.y = t / 16;
                    blockIdx.x = bx;
                    blockIdx.y = by;
#ifdef TRANSPOSED
                    tgemm_k0(ni, nj, nk, alpha, A.data(), B.data(), C.data(), 0, 0, ni, nj);
#else
                    dgemm_k0(ni, nj, nk, alpha, A.data(), B.data(), beta, C.data(), 0, 0, ni, nj);
#endif
                });
            for (auto &t : ts)
                t.join();
            for (int w = 0; w < threads / 32; w++)
                delete emu_warp_barrier[w];
        }
    double worst = 0;
    for (size_t i = 0; i < C.size(); i++) {
        double d = fabs(C[i] - want[i]) / (fabs(want[i]) + 1.0);
        worst = d > worst || std::isnan(d) ? (std::isnan(d) ? INFINITY : d) : worst;
    }
    printf("%g %ld %ld\n", worst, emu_copies16, emu_copies8);
    return 0;
}
CPP
for name in dgemm tgemm; do
    CH_CC_BUDGET=4 "$bin" --harness-propose="cand-$name" "$name.c" > list 2> err
    f=$(emu_variant cand-$name 14)
    ok $([ -n "$f" ]; echo $?) "$name: variant 14 is proposed" || { diag "$(cat err)"; continue; }
    # the kernel as printed, its dynamic shared memory a static of the size it is launched with
    smem=$(grep -o "${name}_k0<<<ch_grid, ch_block, [0-9]*>>>" "$f" | grep -o '[0-9]*>>>' | tr -d '>')
    ok $([ -n "$smem" ]; echo $?) "$name: launched with ${smem:-no} bytes of dynamic shared memory"
    emu_kernels "$f" |
        sed 's/extern __shared__ __align__(16) double ch_smem\[\];/double *const ch_smem = emu_smem;/' \
            > kernel.inc
    grep -q 'ch_smem = emu_smem' kernel.inc
    ok $? "$name: the kernel's shared stages are found"
    def=""
    [ "$name" = tgemm ] && def=-DTRANSPOSED
    g++ -std=c++20 -O1 -pthread -DSMEM_BYTES="${smem:-8}" $def -I"$CH_CC_SRC/tests/lib" \
        driver.cpp -o "run-$name" 2> "build-$name.log"
    ok $? "$name: its kernel builds on the CPU stand-in" || { diag "$(head -20 "build-$name.log")"; continue; }
    # odd sizes (8-byte copies where a row starts off 16 bytes), even ones (16-byte copies),
    # fewer and more tiles of c2 than stages, blocks past the edges in both mapped dimensions
    for size in "130 150 37" "64 72 40" "29 131 200" "1 1 1" "160 8 3"; do
        set -- $size
        read -r worst c16 c8 < <(./"run-$name" "$@" 2> "run-$name.err")
        emu_within "$worst" 1e-12
        ok $? "$name: ni=$1 nj=$2 nk=$3 matches the C body (worst relative error ${worst:-none}; $c16 16-byte and $c8 8-byte copies)" ||
            diag "$(head -5 "run-$name.err")"
        if [ "$size" = "64 72 40" ]; then
            [ "${c8:-1}" = 0 ] && [ "${c16:-0}" -gt 0 ]
            ok $? "$name: even leading dimensions copy 16 bytes at a time ($c16 16-byte, $c8 8-byte)"
        fi
        if [ "$size" = "130 150 37" ] && [ "$name" = dgemm ]; then
            [ "${c8:-0}" -gt 0 ] && [ "${c16:-0}" -gt 0 ]
            ok $? "$name: an odd leading dimension mixes 16-byte and 8-byte copies"
        fi
    done
done
done_testing
