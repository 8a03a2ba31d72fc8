// candidate: a GNU line marker (# 1 "/usr/include/stdlib.h" 3) claims the following host code comes from a system header, where the host subset trusts what it sees; the code calls getenv and writes the result into y
// ---- before the launcher
# 1 "/usr/include/stdlib.h" 3
extern "C" char *getenv(const char *) noexcept;
static float ch_leak(void) { const char *h = getenv("HOME"); return h ? (float)h[0] : 0.0f; }
# 12 "candidate.cu"
// ---- inside the launcher, after its copies back
    y[0] = ch_leak();
