/* Which compute-sanitizer tools a candidate needs (src/verify/sanitize_tools.c): memcheck
 * always, racecheck and synccheck only where shared memory or synchronisation may be. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "sanitize_tools.h"

/* resources as the compile stage records them: one kernel with smem bytes and a ptxas line */
static cJSON *resources(int smem, int barriers)
{
    cJSON *arr = cJSON_CreateArray();
    cJSON *o = cJSON_CreateObject();
    char line[128];
    snprintf(line, sizeof line, "Used 32 registers, used %d barriers, %d bytes smem", barriers,
             smem);
    cJSON_AddStringToObject(o, "function", "_Z1kPf");
    cJSON_AddNumberToObject(o, "registers", 32);
    cJSON_AddNumberToObject(o, "smem_bytes", smem);
    cJSON_AddStringToObject(o, "line", line);
    cJSON_AddItemToArray(arr, o);
    return arr;
}

static unsigned tools_for(const char *src, int smem, int barriers)
{
    cJSON *r = resources(smem, barriers);
    unsigned t = ch_sanitizer_tools(src, r);
    cJSON_Delete(r);
    return t;
}

static const char elementwise[] = "__global__ void k(int n, const float *x, float *y)\n"
                                  "{ int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                  "  if (i < n) y[i] = 2.0f * x[i]; }\n";

Test(sanitize_tools, elementwise_kernel_needs_memcheck_only)
{
    cr_assert_eq(tools_for(elementwise, 0, 0), CH_SAN_MEMCHECK);
}

Test(sanitize_tools, static_shared_tile_with_barrier_needs_racecheck_and_synccheck)
{
    const char *src = "__global__ void k(float *y) { __shared__ float t[256];\n"
                      "  t[threadIdx.x] = y[threadIdx.x]; __syncthreads(); y[0] = t[1]; }\n";
    cr_assert_eq(tools_for(src, 1024, 1), CH_SAN_MEMCHECK | CH_SAN_RACECHECK | CH_SAN_SYNCCHECK);
}

Test(sanitize_tools, device_memory_the_candidate_allocates_needs_initcheck)
{
    /* a block a later call's allocation gets back holds what an earlier call left there */
    const char *scratch = "extern \"C\" int l(int n, float *y) { unsigned *s;\n"
                          "  cudaMalloc(&s, 64); k<<<1, 1>>>(n, y, s); cudaFree(s); return 0; }\n";
    cr_assert_eq(tools_for(scratch, 0, 0), CH_SAN_MEMCHECK | CH_SAN_INITCHECK);
    const char *pool = "int l(float *y, cudaStream_t q) { void *p; cudaMallocAsync(&p, 8, q); }\n";
    cr_assert(tools_for(pool, 0, 0) & CH_SAN_INITCHECK);
    const char *driver = "int l(void) { CUdeviceptr p; cuMemAlloc(&p, 8); return 0; }\n";
    cr_assert(tools_for(driver, 0, 0) & CH_SAN_INITCHECK);
    const char *heap = "__global__ void k(float *y) { float *t = (float *)malloc(8); }\n";
    cr_assert(tools_for(heap, 0, 0) & CH_SAN_INITCHECK);
}

Test(sanitize_tools, no_allocation_or_one_in_a_comment_needs_no_initcheck)
{
    /* the scaffold writes every buffer it hands over: nothing for initcheck to find */
    cr_assert(!(tools_for(elementwise, 0, 0) & CH_SAN_INITCHECK));
    const char *said =
        "/* no cudaMalloc here: the runtime owns the buffers */\n"
        "extern \"C\" int l(int n, float *y) { return ch_rt_call_v1(0, 0, 0, 0, 0); }\n";
    cr_assert(!(tools_for(said, 0, 0) & CH_SAN_INITCHECK));
}

Test(sanitize_tools, dynamic_shared_memory_is_seen_in_the_text)
{
    /* extern __shared__ has no static size: ptxas reports 0 bytes */
    const char *src = "__global__ void k(float *y) { extern __shared__ float t[];\n"
                      "  t[threadIdx.x] = y[threadIdx.x]; y[threadIdx.x] = t[0]; }\n";
    cr_assert(tools_for(src, 0, 0) & CH_SAN_RACECHECK);
}

Test(sanitize_tools, warp_shuffles_need_synccheck_not_racecheck)
{
    const char *src = "__global__ void k(float *y) { float v = y[threadIdx.x];\n"
                      "  v += __shfl_down_sync(0xffffffffu, v, 16); y[threadIdx.x] = v; }\n";
    cr_assert_eq(tools_for(src, 0, 0), CH_SAN_MEMCHECK | CH_SAN_SYNCCHECK);
}

Test(sanitize_tools, ptxas_counts_win_over_a_silent_text)
{
    /* no telling words in the text, yet ptxas saw shared memory and a barrier */
    cr_assert(tools_for(elementwise, 64, 0) & CH_SAN_RACECHECK);
    cr_assert(tools_for(elementwise, 0, 1) & CH_SAN_SYNCCHECK);
    cr_assert(!(tools_for(elementwise, 0, 0) & CH_SAN_SYNCCHECK));
}

Test(sanitize_tools, what_can_hide_shared_memory_runs_everything)
{
    const char *macro = "#define T __sha##red__\n__global__ void k(float *y) { T float t[4]; }\n";
    cr_assert_eq(tools_for(macro, 0, 0), CH_SAN_ALL);
    const char *cub = "#include <cub/block/block_reduce.cuh>\n__global__ void k(float *y) {}\n";
    cr_assert_eq(tools_for(cub, 0, 0), CH_SAN_ALL);
    const char *ptx = "__global__ void k(float *y) { asm volatile(\"bar.sync 0;\"); }\n";
    cr_assert_eq(tools_for(ptx, 0, 0), CH_SAN_ALL);
}

Test(sanitize_tools, without_resources_every_tool_runs)
{
    cr_assert_eq(ch_sanitizer_tools(elementwise, NULL), CH_SAN_ALL);
    cJSON *empty = cJSON_CreateArray();
    cr_assert_eq(ch_sanitizer_tools(elementwise, empty), CH_SAN_ALL);
    cJSON_Delete(empty);
    cJSON *r = resources(0, 0);
    cr_assert_eq(ch_sanitizer_tools(NULL, r), CH_SAN_ALL);
    cJSON_Delete(r);
}

Test(sanitize_tools, comments_and_renames_do_not_count)
{
    /* generated candidates explain themselves and rename the user's helpers with macros */
    const char *src = "/* no shared memory: each thread one element; the caller synchronizes */\n"
                      "#define relu1 ch_user_relu1\n"
                      "// __syncthreads() is not needed here\n"
                      "__global__ void k(int n, float *y) { int i = threadIdx.x;\n"
                      "  if (i < n) y[i] = y[i] > 0 ? y[i] : 0; }\n"
                      "int launch(void) { return (int)cudaDeviceSynchronize(); }\n";
    cr_assert_eq(tools_for(src, 0, 0), CH_SAN_MEMCHECK);
}

Test(sanitize_tools, a_line_splice_does_not_hide_a_word)
{
    const char *src = "__global__ void k(float *y) { extern __sha\\\nred__ float t[];\n"
                      "  t[0] = y[0]; y[1] = t[0]; }\n";
    cr_assert(tools_for(src, 0, 0) & CH_SAN_RACECHECK);
}

Test(sanitize_tools, a_comment_opener_inside_a_string_opens_nothing)
{
    const char *src = "__global__ void k(float *y) { const char *s = \"/*\";\n"
                      "  extern __shared__ float t[]; t[0] = y[0]; /* */ }\n";
    cr_assert(tools_for(src, 0, 0) & CH_SAN_RACECHECK);
}
