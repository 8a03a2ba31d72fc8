/* A macro bomb the expansion counter may not see: one function-like macro that doubles its
 * argument, D(x) -> x x, applied 28 times in one nested call D(D(D(...D(1+)...))): 2^28 tokens,
 * no object-like chain to count (36 and attacks7 #29 used a chain of #defines). Inside an
 * unevaluated sizeof. A safe product must bound the expansion whatever macro shape makes it.
 */
#define D(x) x x
void axpy_reference(int n, float a, const float *x, float *y)
{
    if (sizeof(int[sizeof(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(1+)))))))))))))))))))))))))))) 1)]) == 0)
        return;
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
