#pragma harness "y[i] = a*x[i] + y[i] for every i below n" extent(x: n, y: n) tune(n = 1 << 20)
void axpy(int n, float a, const float *x, float *y);
