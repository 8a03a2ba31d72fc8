/* The microbenchmarks of bench/speed.sh: each is an ordinary annotated C function in its own
 * file, built once with gcc -O3 (the one-core baseline) and once with ch-cc (the harness). */
#ifndef MICRO_H
#define MICRO_H

void copy(int n, const float *a, float *b);
void saxpy(int n, float a, const float *x, float *y);
void dot(int n, const float *x, const float *y, double *r);
void softmax(int m, int n, const float *x, float *y);
void transpose(int m, int n, const float *a, float *b);
void stencil(int m, int n, const float *a, float *b);
void sgemm(int ni, int nj, int nk, float alpha, const float *A, const float *B, float beta,
           float *C);
void dgemm(int ni, int nj, int nk, double alpha, const double *A, const double *B, double beta,
           double *C);

#endif
