#!/bin/bash
# A block per row (translator variants 12 and 11, src/translate/rowregs.c and rowwise.c) through
# the real binary on a machine without a GPU: the builtin agent proposes them for row-wise bodies
# (softmax, the benchmark's own, layer norm, RMS norm, row sums and means, a row min, an integer
# row sum), the row in registers right after the first candidate and the row read from memory
# next, and neither for bodies of other shapes; every candidate it proposes for them compiles
# with nvcc without a warning (as polybench.t compiles its candidates). The kernels' exact text is
# tests/unit/test_translate_rowwise.c's business.
. "$(dirname "$0")/../lib/tap.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
bin="${CH_CC_REL_BIN:-$CH_CC_BIN}"
cd "$TEST_DIR"

cat > layernorm.c <<'C'
#include <math.h>
#pragma harness extent(x: m * n, g: n, b: n, y: m * n) tol(1e-4)
void layernorm(int m, int n, const float *x, const float *g, const float *b, float *y)
{
    for (int r = 0; r < m; r++) {
        float mean = 0;
        for (int j = 0; j < n; j++)
            mean += x[r * n + j];
        mean = mean / n;
        float var = 0;
        for (int j = 0; j < n; j++)
            var += (x[r * n + j] - mean) * (x[r * n + j] - mean);
        float inv = 1.0f / sqrtf(var / n + 1e-5f);
        for (int j = 0; j < n; j++)
            y[r * n + j] = (x[r * n + j] - mean) * inv * g[j] + b[j];
    }
}
C
cat > rmsnorm.c <<'C'
#include <math.h>
#pragma harness extent(x: m * n, y: m * n) tol(1e-9)
void rmsnorm(int m, int n, const double *x, double *y)
{
    for (int i = 0; i < m; i++) {
        double ss = 0;
        for (int j = 0; j < n; j++)
            ss += x[i * n + j] * x[i * n + j];
        double k = 1.0 / sqrt(ss / n + 1e-6);
        for (int j = 0; j < n; j++)
            y[i * n + j] = x[i * n + j] * k;
    }
}
C
cat > rowmean.c <<'C'
#pragma harness extent(a: m * n, out: m) tol(1e-5)
void rowmean(int m, int n, const float *a, float *out)
{
    for (int i = 0; i < m; i++) {
        float s = 0;
        for (int j = 0; j < n; j++)
            s += a[i * n + j];
        out[i] = s / n;
    }
}
C
cat > rowmin.c <<'C'
#include <math.h>
#pragma harness extent(a: m * n, out: m)
void rowmin(int m, int n, const float *a, float *out)
{
    for (int i = 0; i < m; i++) {
        float v = a[i * n];
        for (int j = 1; j < n; j++)
            v = fminf(v, a[i * n + j]);
        out[i] = v;
    }
}
C
cat > introw.c <<'C'
#pragma harness extent(a: m * n, out: m)
void introw(int m, int n, const int *a, int *out)
{
    for (int i = 0; i < m; i++) {
        int v = 0;
        for (int j = 0; j < n; j++)
            v += a[i * n + j];
        out[i] = v;
    }
}
C
# the same row sum without tol(): reordering a float sum would change its rounding
cat > exactsum.c <<'C'
#pragma harness extent(a: m * n, out: m)
void exactsum(int m, int n, const float *a, float *out)
{
    for (int i = 0; i < m; i++) {
        float s = 0;
        for (int j = 0; j < n; j++)
            s += a[i * n + j];
        out[i] = s;
    }
}
C
cat > scale.c <<'C'
#pragma harness extent(a: m * n, b: m * n)
void scale(int m, int n, const float *a, float *b)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            b[i * n + j] = 2.0f * a[i * n + j];
}
C
cp "$CH_CC_SRC/bench/micro/softmax.c" "$CH_CC_SRC/bench/micro/micro.h" .

for name in softmax layernorm rmsnorm rowmean rowmin introw exactsum scale; do
    CH_CC_BUDGET=12 "$bin" --harness-propose="cand/$name" "$name.c" > "$name.list" 2> "$name.err"
    ok $? "$name: the builtin agent proposes candidates" || diag "$(cat "$name.err")"
    case $name in
    exactsum | scale)
        ! grep -q 'translator v1[12]' "$name.list"
        ok $? "$name: no block-per-row candidate (not a row-wise nest it may take)"
        ;;
    *)
        second=$(sed -n 2p "$name.list" | cut -f2)
        like "$second" '^translator v12: original loop order, rows in registers$' \
            "$name: the second candidate is a block per row with the row in registers"
        third=$(sed -n 3p "$name.list" | cut -f2)
        like "$third" '^translator v11: original loop order, a block per row$' \
            "$name: the third candidate is a block per row reading memory"
        ;;
    esac
done
ls cand/*/*.cu > cands.txt
xargs -P "$(nproc)" -I{} sh -c 'nvcc -arch=sm_90 -Werror all-warnings -c "{}" -o "{}.o" \
    > "{}.log" 2>&1 || echo "{}"' < cands.txt > nvcc-failed.txt
is "$(cat nvcc-failed.txt)" "" "every candidate ($(wc -l < cands.txt)) compiles with nvcc without a warning" ||
    diag "$(head -1 nvcc-failed.txt | xargs -I{} cat {}.log | head -20)"
done_testing
