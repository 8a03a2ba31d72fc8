#!/bin/sh
# Scan cost: median of 10 runs of `ch-cc --harness-list` on an annotated .c and .cu (the libclang
# parse the harness path adds) next to a plain compile of the same file. Targets (issue 3):
# <= 100 ms for .c, <= 300 ms for .cu including cuda_runtime.h.
set -eu
: "${CH_CC_SRC:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${CH_CC_BIN:=$CH_CC_SRC/build/bin/ch-cc}"
export PATH="$PATH:/usr/local/cuda/bin"
dir=$(mktemp -d "${TMPDIR:-/tmp}/ch-cc-bench-scan.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
cat > ops.c <<'C'
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#pragma harness
void axpy(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
#pragma harness "matrix product"
void mm(int m, int n, int k, const double *A, const double *B, double *C)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int l = 0; l < k; l++)
                s += A[i * k + l] * B[l * n + j];
            C[i * n + j] = sqrt(s * s);
        }
}
C
cat > vec.cu <<'C'
#include <cuda_runtime.h>
__global__ void twice(float *x) { x[threadIdx.x] *= 2; }
#pragma harness
void axpy(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
C
set -- $(python3 "$CH_CC_SRC/bench/timeit.py" 10 -- "$CH_CC_BIN" --harness-list ops.c -- cc -O2 -c ops.c -o a.o)
echo "scan .c:  --harness-list median ${1} ms (min $2); plain cc -c median $3 ms (target <= 100 ms)"
if command -v nvcc >/dev/null 2>&1; then
    set -- $(python3 "$CH_CC_SRC/bench/timeit.py" 10 -- "$CH_CC_BIN" --harness-list vec.cu -- nvcc -O2 -c vec.cu -o b.o)
    echo "scan .cu: --harness-list median ${1} ms (min $2); plain nvcc -c median $3 ms (target <= 300 ms)"
else
    set -- $(python3 "$CH_CC_SRC/bench/timeit.py" 10 -- "$CH_CC_BIN" --harness-list vec.cu)
    echo "scan .cu: --harness-list median ${1} ms (min $2); nvcc not installed"
fi
