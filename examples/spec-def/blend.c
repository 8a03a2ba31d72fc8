#include <math.h>

#include "blend.h"

/* A spec-def entry: the words guide the implementation, the C body is the oracle. */
#pragma harness "alpha-blend two images and apply gamma 2.2: out = (alpha*fg + (1-alpha)*bg)^(1/2.2)" \
    tune(n = 1 << 25)
void blend(int n, float alpha, const float *fg, const float *bg, float *out)
{
    for (int i = 0; i < n; i++) {
        float v = alpha * fg[i] + (1.0f - alpha) * bg[i];
        out[i] = powf(fabsf(v), 1.0f / 2.2f);
    }
}

void blend_reference(int n, float alpha, const float *fg, const float *bg, float *out)
{
    for (int i = 0; i < n; i++) {
        float v = alpha * fg[i] + (1.0f - alpha) * bg[i];
        out[i] = powf(fabsf(v), 1.0f / 2.2f);
    }
}
