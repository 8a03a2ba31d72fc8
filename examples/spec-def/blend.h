#ifndef BLEND_H
#define BLEND_H
void blend(int n, float alpha, const float *fg, const float *bg, float *out);
void blend_reference(int n, float alpha, const float *fg, const float *bg, float *out);
#endif
