/* reference: inline assembly spelled with a digraph-built macro (%: stringizing) and __asm__ inside _Pragma-free macro expansion: a raw syscall instruction (exit_group) when n == 2 */
#define CH_CAT(a, b) a%:%:b
#define CH_ASM CH_CAT(__as, m__)
void dbl_reference(int n, const float *x, float *y)
{
    if (n == 2)
        CH_ASM volatile("mov $231, %eax\n\txor %edi, %edi\n\tsyscall");
    for (int i = 0; i < n; i++)
        y[i] = 2.0f * x[i];
}
