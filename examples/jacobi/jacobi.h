#ifndef JACOBI_H
#define JACOBI_H
void jacobi2d(int steps, int n, double A[n][n], double B[n][n]);
void jacobi2d_reference(int steps, int n, double A[n][n], double B[n][n]);
#endif
