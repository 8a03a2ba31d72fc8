/* ch-cc copy-bandwidth calibration: DRAM (device-to-device copy, read + write bytes) and
 * pinned host<->device copies; median of 5 after a warm-up. */
#include <stdio.h>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

#define CK(call)                                                                       \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "calibrate: %s: %s\n", #call, cudaGetErrorString(e_));     \
            return 3;                                                                  \
        }                                                                              \
    } while (0)

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(void)
{
    const size_t bytes = 512ull << 20;
    void *a, *b, *h;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMallocHost(&h, bytes));
    CK(cudaMemset(a, 1, bytes));
    CK(cudaMemset(b, 2, bytes));
    cudaEvent_t t0, t1;
    CK(cudaEventCreate(&t0));
    CK(cudaEventCreate(&t1));
    std::vector<double> d2d, h2d, d2h;
    for (int r = 0; r < 6; r++) {
        float ms;
        CK(cudaEventRecord(t0));
        CK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
        CK(cudaEventRecord(t1));
        CK(cudaEventSynchronize(t1));
        CK(cudaEventElapsedTime(&ms, t0, t1));
        if (r) d2d.push_back(2.0 * bytes / (ms * 1e6));
        CK(cudaEventRecord(t0));
        CK(cudaMemcpy(a, h, bytes, cudaMemcpyHostToDevice));
        CK(cudaEventRecord(t1));
        CK(cudaEventSynchronize(t1));
        CK(cudaEventElapsedTime(&ms, t0, t1));
        if (r) h2d.push_back(bytes / (ms * 1e6));
        CK(cudaEventRecord(t0));
        CK(cudaMemcpy(h, b, bytes, cudaMemcpyDeviceToHost));
        CK(cudaEventRecord(t1));
        CK(cudaEventSynchronize(t1));
        CK(cudaEventElapsedTime(&ms, t0, t1));
        if (r) d2h.push_back(bytes / (ms * 1e6));
    }
    int dev = 0, l2 = 0, sms = 0, khz = 0, major = 0, minor = 0;
    cudaDeviceProp p;
    CK(cudaGetDevice(&dev));
    CK(cudaGetDeviceProperties(&p, dev));
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
    CK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    CK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    for (char *c = p.name; *c; c++)
        if (*c == ' ') *c = '_';
    printf("ch-calib: name=%s l2=%d d2d_gbs=%.3f h2d_gbs=%.3f d2h_gbs=%.3f sms=%d "
           "clock_khz=%d cc=%d\n", p.name, l2, median(d2d), median(h2d), median(d2h), sms,
           khz, major * 10 + minor);
    return 0;
}
