/* attacks5 cand02_implicit_counter: a kept number set only to constants under comparisons (implicit flow): counts calls, wrong after 40 */
// ---- before: extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
static int seen;

// ---- after: {
    for (int i = 0; i < 64; i++)
        if (seen == i) {
            seen = i + 1;
            break;
        }
    float k = a;
    if (seen > 40)
        k = 0.0f;
// ---- instead of: saxpy_k<<<(n + 255) / 256, 256>>>(n, a, x, y);
        saxpy_k<<<(n + 255) / 256, 256>>>(n, k, x, y);
