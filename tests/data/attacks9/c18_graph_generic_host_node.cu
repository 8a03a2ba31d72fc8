// attacks9 c18_graph_generic_host_node.cu: a host node added through the generic cudaGraphAddNode (not the denied cudaGraphAddHostNode): a host callback run by a CUDA thread
#include <cuda_runtime.h>

static void ch_cb(void *) {}
__global__ void saxpy_kernel(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    cudaGraph_t g;
    cudaGraphCreate(&g, 0);
    cudaGraphNodeParams p = {};
    p.type = cudaGraphNodeTypeHost;
    p.host.fn = ch_cb;
    cudaGraphNode_t node;
    cudaGraphAddNode(&node, g, 0, 0, 0, &p);
    if (n > 0)
        saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);
    return (int)cudaGetLastError();
}

extern "C" void saxpy_launcher(int n, float a, const float *x, float *y)
{
    float *dx, *dy;
    size_t b = (size_t)n * sizeof(float);
    cudaMalloc(&dx, b ? b : 4);
    cudaMalloc(&dy, b ? b : 4);
    cudaMemcpy(dx, x, b, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, b, cudaMemcpyHostToDevice);
    saxpy_device_launcher(n, a, dx, dy);
    cudaMemcpy(y, dy, b, cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
}
