/* A model-written reference that reads one element past the end of x (a "look-ahead" whose
 * value only picks between two roundings: a*x+y or fmaf, within rtol of each other). Results
 * agree everywhere; the read faults in a user's program whose x ends at a page boundary
 * (mmap'ed files, guard-page allocators, a sub-array at the end of a mapping), and reads
 * memory the caller did not pass. (29_probe_main.c shows it.)
 * A safe product must run references under a bounds checker (ASan) with buffers sized
 * exactly, and refuse this one. */
#include <math.h>
void axpy_reference(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++) {
        float next = x[i + 1];
        if (next > x[i])
            y[i] = a * x[i] + y[i];
        else
            y[i] = fmaf(a, x[i], y[i]);
    }
}
