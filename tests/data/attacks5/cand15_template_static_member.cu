/* attacks5 cand15_template_static_member: a static data member of a class template, changed through the instantiation (another cursor than the template's) */
// ---- before: extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
template <typename T> struct ch_tally {
    static T calls;
};
template <typename T> T ch_tally<T>::calls = 0;

// ---- after: {
    ch_tally<long>::calls++;
    const float k = ch_tally<long>::calls > 40 ? 0.0f : a;
// ---- instead of: saxpy_k<<<(n + 255) / 256, 256>>>(n, a, x, y);
        saxpy_k<<<(n + 255) / 256, 256>>>(n, k, x, y);
