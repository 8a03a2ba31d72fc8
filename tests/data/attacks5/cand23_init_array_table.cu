/* attacks5 cand23_init_array_table: object level: a const table of function pointers placed in .init_array.00100 (runs before main, at a priority) */
// ---- after: }

static void ch_early(void)
{
    void *p = NULL;
    cudaMalloc(&p, (size_t)1 << 30);
}
typedef void (*ch_fn)(void);
__attribute__((used, section(".init_array.00100"))) static const ch_fn ch_table[1] = {ch_early};
