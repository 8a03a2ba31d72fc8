#!/bin/bash
# Spec-only entries without a model (issue 19): the README's saxpy and everyday operations named
# in words build with CC=ch-cc and compute what the words say on the host path (the reference
# the builtin spec reader writes); the reference is in the cache entry and --harness-explain
# shows it; a spec the builtin cannot read is a located error that says what to do.
. "$(dirname "$0")/../lib/tap.sh"
cd "$TEST_DIR" || exit 1
unset CH_CC_PROVIDER CH_CC_MODEL  # no model: the builtin agent
cat > prog.c <<'C'
#include <stdio.h>
#pragma harness "y[i] = a*x[i] + y[i] for every i below n" extent(x: n, y: n) tune(n = 1 << 26)
void saxpy(int n, float a, const float *x, float *y);

#pragma harness "row-wise softmax" extent(x: rows*cols, y: rows*cols)
void softmax(int rows, int cols, const float *x, float *y);

#pragma harness "C[i][j] = sum_k A[i][k]*B[k][j], row-major" extent(A: m*p, B: p*n, C: m*n)
void matmul(int m, int n, int p, const double *A, const double *B, double *C);

#pragma harness "exclusive prefix sum" extent(x: n, y: n)
void scan(int n, const int *x, int *y);

int main(void)
{
    float x[5] = {1, 2, 3, 4, 5}, y[5] = {1, 1, 1, 1, 1};
    saxpy(5, 3.0f, x, y);
    for (int i = 0; i < 5; i++)
        printf("%g ", y[i]);
    float s[4] = {0, 0, 0, 0.69314718f}, t[4];
    softmax(2, 2, s, t);
    for (int i = 0; i < 4; i++)
        printf("%.3f ", t[i]);
    double A[6] = {1, 2, 3, 4, 5, 6}, B[6] = {1, 0, 0, 1, 1, 1}, C[4];
    matmul(2, 2, 3, A, B, C);
    for (int i = 0; i < 4; i++)
        printf("%g ", C[i]);
    int v[4] = {3, 1, 4, 1}, w[4];
    scan(4, v, w);
    for (int i = 0; i < 4; i++)
        printf("%d ", w[i]);
    printf("\n");
    return 0;
}
C
"$CH_CC_BIN" -std=c11 -O2 prog.c -o prog -lm 2> build.err
ok $? "the spec-only entries build offline with ch-cc" || diag "$(cat build.err)"
is "$(./prog)" "4 7 10 13 16 0.500 0.500 0.333 0.667 4 5 10 11 0 3 4 8 " \
    "they compute what their words say on the host path"
if have_gpu; then
    skip "saxpy is on the host path here" "a GPU verifies its kernel (make check-gpu)"
else
    like "$(cat build.err)" "prog.c:2:1: warning: saxpy: host path linked: nothing can be verified here.*candidates? wait" \
        "saxpy is on the host path here, its kernels from the reference wait for a GPU"
fi

ref=$(grep -rl "saxpy_reference" "$CH_CC_CACHE_DIR" --include=reference.c | head -1)
ok $([ -n "$ref" ]; echo $?) "the reference the builtin wrote is in the cache entry"
key=$(basename "$(dirname "$(dirname "$ref")")")$(basename "$(dirname "$ref")")
explain=$("$CH_CC_BIN" --harness-explain="$key" 2>&1)
like "$explain" "Reading: formula: y\[i\] = a\*x\[i\] \+ y\[i\]" "--harness-explain shows the reading"
like "$explain" "for \(long i = 0; i < n; i\+\+\)" "--harness-explain shows the reference's loop"

cat > bad.c <<'C'
#pragma harness "do the usual thing to x" extent(x: n, y: n)
void mystery(int n, const float *x, float *y);
int main(void) { return 0; }
C
"$CH_CC_BIN" -std=c11 bad.c -o bad 2> bad.err
ok $([ $? -ne 0 ]; echo $?) "a spec the builtin cannot read fails the build"
like "$(cat bad.err)" "^bad.c:1:1: error: mystery" "the error is located at the pragma"
like "$(cat bad.err)" "add a formula .* or configure an LLM provider" "it says what to do"
ok $([ ! -e bad ]; echo $?) "no program is left behind"
done_testing
