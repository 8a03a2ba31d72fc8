/* A parse/compile bomb in a model-written reference (host C): 2^30 tokens from 30 nested
 * #defines, used in an unevaluated sizeof inside the reference (attacks7 #29 put one in a
 * candidate). The reference's static checks (libclang) and gcc both expand it.
 * A safe product must bound the reference's parse and compile as it bounds a candidate's,
 * and fail with a located error in seconds. */
#define B0 1+
#define B1 B0 B0
#define B2 B1 B1
#define B3 B2 B2
#define B4 B3 B3
#define B5 B4 B4
#define B6 B5 B5
#define B7 B6 B6
#define B8 B7 B7
#define B9 B8 B8
#define B10 B9 B9
#define B11 B10 B10
#define B12 B11 B11
#define B13 B12 B12
#define B14 B13 B13
#define B15 B14 B14
#define B16 B15 B15
#define B17 B16 B16
#define B18 B17 B17
#define B19 B18 B18
#define B20 B19 B19
#define B21 B20 B20
#define B22 B21 B21
#define B23 B22 B22
#define B24 B23 B23
#define B25 B24 B24
#define B26 B25 B25
#define B27 B26 B26
#define B28 B27 B27
#define B29 B28 B28
#define B30 B29 B29
void axpy_reference(int n, float a, const float *x, float *y)
{
    if (sizeof(int[sizeof(B30 1)]) == 0)
        return;
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
