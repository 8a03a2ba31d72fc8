// A CPU stand-in for the few CUDA device features a generated block-per-row kernel uses, so
// that a scenario test can run the kernel's text on a machine without a GPU: each CUDA thread
// of a block is a std::thread, __syncthreads a barrier of the block, a warp shuffle a barrier
// of the warp around a buffer of its 32 lanes, __shared__ a static (one block runs at a time).
// The driver defines the globals (CUDA_BLOCK_EMU_GLOBALS) and runs the blocks in turn. Only
// for checking what the kernels compute, never their speed.
#ifndef CH_CUDA_BLOCK_EMU_H
#define CH_CUDA_BLOCK_EMU_H
#include <barrier>
#include <math.h>

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};
extern thread_local dim3 threadIdx, blockIdx;
extern dim3 blockDim, gridDim;
extern std::barrier<> *emu_block_barrier;
extern std::barrier<> *emu_warp_barrier[32];
extern double emu_lanes[32][32];

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(x)
#define __restrict__ __restrict
#define __shared__ static
#define CUDA_BLOCK_EMU_GLOBALS                                                                     \
    thread_local dim3 threadIdx, blockIdx;                                                         \
    dim3 blockDim, gridDim;                                                                        \
    std::barrier<> *emu_block_barrier;                                                             \
    std::barrier<> *emu_warp_barrier[32];                                                          \
    double emu_lanes[32][32];

inline void __syncthreads()
{
    emu_block_barrier->arrive_and_wait();
}

// Lane `from` of this thread's warp's value v (v itself when `from` is past the warp).
template <typename T> T emu_lane_value(T v, int from)
{
    unsigned w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    emu_lanes[w][lane] = (double)v;
    emu_warp_barrier[w]->arrive_and_wait();
    T r = from >= 0 && from < 32 ? (T)emu_lanes[w][from] : v;
    emu_warp_barrier[w]->arrive_and_wait();
    return r;
}
template <typename T> T __shfl_down_sync(unsigned, T v, int o)
{
    return emu_lane_value(v, (int)(threadIdx.x & 31) + o);
}
template <typename T> T __shfl_sync(unsigned, T v, int src)
{
    return emu_lane_value(v, src);
}
#endif
