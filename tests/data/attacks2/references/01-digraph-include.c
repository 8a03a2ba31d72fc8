/* attack: the test author's reference includes a file through a digraph */
/* %: is the attack, and a formatter would split it */
// clang-format off
%:include <@SECRET@>
void axpy_reference(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
// clang-format on
