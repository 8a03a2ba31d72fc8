#!/bin/bash
# Library variants on a machine with a GPU: a GEMM entry whose tol() admits TF32 gets cuBLAS
# candidates (FP32 and TF32) from the builtin agent; each is verified like any other candidate,
# one of them is in the evolution's table as correct with its precision, the report names the
# winner's precision, the program links (libcublas --as-needed when the winner calls it) and its
# GPU path prints what the gcc build prints within the entry's tolerance.
. "$(dirname "$0")/../lib/tap.sh"
require_gpu
# the exact variant first, then cuBLAS FP32 and TF32, then the tiles
export CH_CC_BUDGET=${CH_CC_TEST_BUDGET:-4}
export CH_CC_CACHE_DIR="$TEST_DIR/cache"
cd "$TEST_DIR"
cat > gemm.c <<'C'
#include <stdio.h>
#include <stdlib.h>

#pragma harness tune(ni = 1024, nj = 1024, nk = 1024) tol(1e-2)
void gemm(int ni, int nj, int nk, float alpha, const float *A, const float *B, float beta,
          float *C)
{
    for (int i = 0; i < ni; i++) {
        for (int j = 0; j < nj; j++)
            C[i * nj + j] *= beta;
        for (int k = 0; k < nk; k++)
            for (int j = 0; j < nj; j++)
                C[i * nj + j] += alpha * A[i * nk + k] * B[k * nj + j];
    }
}

int main(void)
{
    int ni = 300, nj = 200, nk = 250;
    float *A = malloc(sizeof(float) * ni * nk), *B = malloc(sizeof(float) * nk * nj);
    float *C = malloc(sizeof(float) * ni * nj);
    for (int i = 0; i < ni * nk; i++)
        A[i] = (float)((i * 7) % 13) / 13.0f;
    for (int i = 0; i < nk * nj; i++)
        B[i] = (float)((i * 5) % 11) / 11.0f;
    for (int i = 0; i < ni * nj; i++)
        C[i] = (float)(i % 3);
    gemm(ni, nj, nk, 1.5f, A, B, 0.5f, C);
    for (int i = 0; i < ni * nj; i += 97)
        printf("%.6e\n", C[i]);
    return 0;
}
C
gcc -O2 -Wno-unknown-pragmas gemm.c -o gemm.gcc && ./gemm.gcc > gcc.out
"$CH_CC_BIN" -O2 gemm.c -o gemm.ch > ch.out 2> ch.err
ok $? "gemm: builds with ch-cc" || diag "$(cat ch.err)"
grep -q 'verified kernel linked' ch.err
ok $? "gemm: a verified kernel is linked" || diag "$(cat ch.err)"
rep=$("$CH_CC_BIN" --harness-list -O2 gemm.c 2>/dev/null |
      python3 "$CH_CC_SRC/bench/report.py" path "$CH_CC_CACHE_DIR")
[ -f "$rep" ]; ok $? "gemm: the entry's report is in the cache ($rep)"
python3 - "$rep" > table.txt <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ev = r.get("evolution", r)
best = ev.get("best")
lib = 0
for c in ev.get("candidates", []):
    mark = "*" if c.get("id") == best else " "
    print("%s %-45s %-7s %-8s %-8s kernel_ms=%s" % (mark, c.get("design"), c.get("library") or "-",
          c.get("precision"), c.get("verdict"), c.get("kernel_ms")))
    if c.get("library") == "cublas" and c.get("verdict") == "correct" and \
            c.get("precision") in ("fp32", "tf32"):
        lib += 1
sys.exit(0 if lib else 1)
PY
ok $? "gemm: a cuBLAS candidate is verified correct, with its precision in the table"
diag "candidates (* the winner):" "$(cat table.txt)"
best=$(python3 "$CH_CC_SRC/bench/report.py" best "$rep")
echo "$best" | cut -f2 | grep -Eq '^(native|fp32|tf32)$'
ok $? "gemm: the report names the winner's precision ($best)"
if echo "$best" | grep -q cuBLAS; then
    ldd gemm.ch | grep -q libcublas
    ok $? "gemm: the program links libcublas (the winner calls it)"
else
    pass "gemm: the winner calls no library (nothing more to link)"
fi
CH_CC_FORCE_GPU=1 ./gemm.ch > gpu.out
python3 - gcc.out gpu.out <<'PY'
import sys
a = [float(x) for x in open(sys.argv[1]).read().split()]
b = [float(x) for x in open(sys.argv[2]).read().split()]
bad = [(i, x, y) for i, (x, y) in enumerate(zip(a, b)) if abs(x - y) > 1e-2 * max(abs(x), 1.0)]
print("# %d of %d values differ; first: %s" % (len(bad), len(a), bad[:3]))
sys.exit(1 if bad or len(a) != len(b) or not a else 0)
PY
ok $? "gemm: the GPU path prints what the gcc build prints within tol(1e-2)"
done_testing
