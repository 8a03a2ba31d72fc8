#!/bin/bash
# Inputs with structure (issue 11): a CSR SpMV whose column index comes out of a helper, so
# inference cannot see that it subscripts x. Random inputs crash the user's own C; the build and
# --harness-verify say "the inputs need a clause" with the line of the failing access, on any
# machine (the reference runs on the CPU before any candidate). With range() or sample() the
# reference stage passes and the candidate goes on (pending without a GPU). A segmented sum
# needs no clause: inference finds its offsets.
. "$(dirname "$0")/../lib/tap.sh"
cd "$TEST_DIR" || exit 1

spmv() { # spmv CLAUSES: the file with the given extra clauses
    cat <<C
static int pick(const int *c, int k) { return c[k]; }

#pragma harness extent(rp: m + 1, col: nnz, val: nnz, x: n, y: m) $1
void spmv(int m, int n, int nnz, const int *rp, const int *col, const double *val,
          const double *x, double *y)
{
    for (int i = 0; i < m; i++) {
        double s = 0;
        for (int k = rp[i]; k < rp[i + 1]; k++)
            s += val[k] * x[pick(col, k)];
        y[i] = s;
    }
}

/* a valid CSR matrix for any sizes: rows share the nonzeros, columns from the random values */
void fill_csr(int m, int n, int nnz, int *rp, int *col, double *val, double *x, double *y)
{
    (void)val;
    (void)x;
    (void)y;
    for (int i = 0; i <= m; i++)
        rp[i] = (int)((long)nnz * i / (m > 0 ? m : 1));
    for (int k = 0; k < nnz; k++)
        col[k] = (col[k] % n + n) % n;
}
C
}

cat > cand.cu <<'CU'
#include <cuda_runtime.h>
// one thread per row
__global__ void spmv_rows(int m, const int *rp, const int *col, const double *val,
                          const double *x, double *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) {
        double s = 0;
        for (int k = rp[i]; k < rp[i + 1]; k++)
            s += val[k] * x[col[k]];
        y[i] = s;
    }
}
extern "C" void spmv_launcher(int m, int n, int nnz, const int *rp, const int *col,
                              const double *val, const double *x, double *y)
{
    int *drp, *dcol;
    double *dval, *dx, *dy;
    size_t z = nnz > 0 ? nnz : 1;
    cudaMalloc(&drp, (m + 1) * sizeof(int));
    cudaMalloc(&dcol, z * sizeof(int));
    cudaMalloc(&dval, z * sizeof(double));
    cudaMalloc(&dx, (n > 0 ? n : 1) * sizeof(double));
    cudaMalloc(&dy, (m > 0 ? m : 1) * sizeof(double));
    cudaMemcpy(drp, rp, (m + 1) * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dcol, col, nnz * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dval, val, nnz * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(dx, x, n * sizeof(double), cudaMemcpyHostToDevice);
    if (m > 0)
        spmv_rows<<<(m + 127) / 128, 128>>>(m, drp, dcol, dval, dx, dy);
    cudaMemcpy(y, dy, m * sizeof(double), cudaMemcpyDeviceToHost);
    cudaFree(drp);
    cudaFree(dcol);
    cudaFree(dval);
    cudaFree(dx);
    cudaFree(dy);
}
CU

# --- no clause: the build links the host path and says which clause is missing, where
spmv "" > spmv.c
"$CH_CC_BIN" -O2 -c spmv.c -o spmv.o 2> build.err; s=$?
is "$s" 0 "without a clause the file still builds (host path)"
err=$(cat build.err)
like "$err" "^spmv.c:3:1: warning: spmv: host path linked: the reference program \(the C body of 'spmv'\) crashed with SIGSEGV" \
    "the warning is at the pragma and says the user's C crashed on synthesized inputs"
like "$err" "in spmv at [^ ]*spmv.c:10: the inputs need a clause" "it names the failing access's line"
like "$err" "range\(col: LO, HI\).*offsets\(col: LAST\).*sample\(FN\)" "and the clauses that would fix it"
nm spmv.o | grep -q ' T spmv$'; ok $? "the object holds the host path"

"$CH_CC_BIN" --harness-verify=cand.cu spmv.c > verify.out 2> verify.err; s=$?
is "$s" 2 "--harness-verify stops before the candidate"
like "$(cat verify.err)" "^ch-cc: error: the reference program .* crashed .*spmv.c:10: the inputs need a clause" \
    "and prints the same diagnosis"

# --- range(): the reference stage passes; the candidate is judged (pending without a GPU)
spmv "range(col: 0, n)" > spmv.c
"$CH_CC_BIN" --harness-list=json spmv.c > list.json
python3 - list.json <<'PY'; ok $? "the list shows col's range from the clause and rp's inferred offsets"
import json, sys
p = {q["name"]: q for q in json.load(open(sys.argv[1]))[0]["params"]}
assert p["col"]["index_hi"] == "n" and p["col"]["values_from_clause"], p["col"]
assert p["rp"]["offsets_hi"] == "nnz" and "values_from_clause" not in p["rp"], p["rp"]
PY
"$CH_CC_BIN" --harness-verify=cand.cu spmv.c > verify.out 2> verify.err; s=$?
if have_gpu; then is "$s" 0 "with range(col: 0, n) the candidate verifies"
else is "$s" 3 "with range(col: 0, n) the candidate passes stages 0-1 and waits for a GPU"; fi
grep -q "inputs need a clause" verify.err verify.out; is $? 1 "and no clause is asked for"

# --- sample(): the user's function makes the matrix
spmv "sample(fill_csr)" > spmv.c
"$CH_CC_BIN" --harness-verify=cand.cu spmv.c > verify.out 2> verify.err; s=$?
if have_gpu; then is "$s" 0 "with sample(fill_csr) the candidate verifies"
else is "$s" 3 "with sample(fill_csr) the reference stage passes (pending without a GPU)"; fi
grep -q "inputs need a clause" verify.err verify.out; is $? 1 "and no clause is asked for"

# --- a bad clause is a compile error at its place
spmv "range(col: 0, k)" > bad.c
"$CH_CC_BIN" -c bad.c -o bad.o 2> bad.err; s=$?
is "$s" 1 "a bound naming no parameter fails the compile"
like "$(head -1 bad.err)" "^bad.c:3:73: error: bad bound 'k' in range\(col: ...\)" "located at the clause"
spmv "sample(fill)" > bad.c
"$CH_CC_BIN" -c bad.c -o bad.o 2> bad.err
like "$(head -1 bad.err)" "^bad.c:3:74: error: sample\(fill\): this file defines no function 'fill'" \
    "sample() must name a function of the file"

# --- a segmented sum needs no clause: its segment starts are inferred offsets
cat > segsum.c <<'C'
#pragma harness extent(v: n)
void segsum(int nseg, int n, const int *seg, const double *v, double *out)
{
    for (int s = 0; s < nseg; s++) {
        double t = 0;
        for (int j = seg[s]; j < seg[s + 1]; j++)
            t += v[j];
        out[s] = t;
    }
}
C
"$CH_CC_BIN" -O2 -c segsum.c -o segsum.o 2> seg.err; s=$?
is "$s" 0 "the segmented sum builds"
grep -q "inputs need a clause\|reference program" seg.err; is $? 1 "its reference runs on the synthesized segments"
if have_gpu; then
    grep -q "segsum: verified kernel linked" seg.err
    is $? 0 "the segmented sum's kernel verifies on the inferred offsets"
else
    grep -q "segsum: host path linked: nothing can be verified here" seg.err
    is $? 0 "the segmented sum's candidate waits for a GPU"
fi
done_testing
