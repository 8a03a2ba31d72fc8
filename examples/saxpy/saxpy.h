#ifndef SAXPY_H
#define SAXPY_H
void saxpy(int n, float a, const float *x, float *y);
void saxpy_reference(int n, float a, const float *x, float *y);
#endif
