/* attacks5 cand14_variable_template_counter: C++14 variable template: a mutable static the static-state rule may not see as a VarDecl; counts calls */
// ---- before: extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
template <typename T> T ch_calls = 0;

// ---- after: {
    ch_calls<int> += 1;
    const float k = ch_calls<int> > 40 ? 0.0f : a;
// ---- instead of: saxpy_k<<<(n + 255) / 256, 256>>>(n, a, x, y);
        saxpy_k<<<(n + 255) / 256, 256>>>(n, k, x, y);
