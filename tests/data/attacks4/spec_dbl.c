/* the spec-only entry the reference attacks are written for (a model writes its checklist and reference) */
#pragma harness "y[i] = 2*x[i] for every i below n" extent(x: n, y: n)
void dbl(int n, const float *x, float *y);
