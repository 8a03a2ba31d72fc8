#!/bin/bash
# Permutations (issue 11): a gather through a permutation (y[i] = x[perm[i]]) and a scatter
# through one (y[perm[i]] = x[i]). Inference sees the gather's index range, and that a scatter's
# indices must be distinct (repeated ones make the writes race: the reference keeps the last,
# a kernel any); when a helper hides the index, range() or perm() says it. Without a GPU each
# case reaches "pending" (the reference ran on the synthesized inputs); on one, it verifies.
. "$(dirname "$0")/../lib/tap.sh"
cd "$TEST_DIR" || exit 1

# entry NAME BODY-LINE CLAUSES: the C file (a static helper `at` for the hidden variants)
entry() {
    cat <<C
static int at(const int *p, int i) { return p[i]; }

#pragma harness extent(perm: n, x: n, y: n) $3
void $1(int n, const int *perm, const double *x, double *y)
{
    for (int i = 0; i < n; i++)
        $2;
}
C
}

# candidate NAME BODY-LINE: a kernel with one thread per i doing BODY-LINE
candidate() {
    cat <<CU
#include <cuda_runtime.h>
__global__ void k(int n, const int *perm, const double *x, double *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        $2;
}
extern "C" void $1_launcher(int n, const int *perm, const double *x, double *y)
{
    size_t z = n > 0 ? n : 1;
    int *dp;
    double *dx, *dy;
    cudaMalloc(&dp, z * sizeof(int));
    cudaMalloc(&dx, z * sizeof(double));
    cudaMalloc(&dy, z * sizeof(double));
    cudaMemcpy(dp, perm, n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dx, x, n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, n * sizeof(double), cudaMemcpyHostToDevice);
    if (n > 0)
        k<<<(n + 127) / 128, 128>>>(n, dp, dx, dy);
    cudaMemcpy(y, dy, n * sizeof(double), cudaMemcpyDeviceToHost);
    cudaFree(dp);
    cudaFree(dx);
    cudaFree(dy);
}
CU
}

# perm_fields FILE: "index_hi perm" of parameter perm in FILE's checklist
perm_fields() {
    "$CH_CC_BIN" --harness-checklist "$1" | python3 -c '
import json, sys
p = {q["name"]: q for q in json.load(sys.stdin)[0]["params"]}["perm"]
print(p["index_hi"], p.get("perm", False))'
}

# verifies NAME BODY-LINE: --harness-verify of the candidate on NAME.c, exit 0 on a GPU, else 3
verifies() {
    candidate "$1" "$2" > "$1.cu"
    "$CH_CC_BIN" --harness-verify="$1.cu" "$1.c" > "$1.out" 2> "$1.err"; s=$?
    if have_gpu; then is "$s" 0 "$3: the candidate verifies"
    else is "$s" 3 "$3: the reference runs, the candidate waits for a GPU (pending)"; fi
    grep -q "inputs need a clause" "$1.err" "$1.out"; is $? 1 "$3: no clause is asked for"
}

# --- a gather: inference sees perm's values subscript x
entry gather "y[i] = x[perm[i]]" "" > gather.c
is "$(perm_fields gather.c)" "n False" "a gather's indices are inferred in [0, n) (not distinct)"
verifies gather "y[i] = x[perm[i]]" "gather"

# --- a gather through a helper: inference cannot see it, range() says it
entry gather_h "y[i] = x[at(perm, i)]" "" > gather_h.c
candidate gather_h "y[i] = x[perm[i]]" > gather_h.cu
"$CH_CC_BIN" --harness-verify=gather_h.cu gather_h.c > /dev/null 2> gh.err; s=$?
is "$s" 2 "a gather through a helper without a clause stops at the reference"
like "$(cat gh.err)" "gather_h.c:7: the inputs need a clause.*perm\(perm: N\)" \
    "and names the failing line and the clauses, perm() among them"
entry gather_h "y[i] = x[at(perm, i)]" "range(perm: 0, n)" > gather_h.c
is "$(perm_fields gather_h.c)" "n False" "range(perm: 0, n) gives the gather's indices"
verifies gather_h "y[i] = x[perm[i]]" "gather through a helper, range()"

# --- a scatter: inference sees a plain store through perm, so its values are distinct
entry scatter "y[perm[i]] = x[i]" "" > scatter.c
is "$(perm_fields scatter.c)" "n True" "a scatter's indices are inferred distinct in [0, n)"
verifies scatter "y[perm[i]] = x[i]" "scatter"

# --- a histogram-like compound store keeps repeated indices (not a permutation)
cat > hist.c <<'C'
#pragma harness extent(b: n, h: m)
void hist(int n, int m, const int *b, int *h)
{
    for (int i = 0; i < n; i++)
        h[b[i]] += 1;
}
C
"$CH_CC_BIN" --harness-checklist hist.c | python3 -c '
import json, sys
p = {q["name"]: q for q in json.load(sys.stdin)[0]["params"]}["b"]
assert p["index_hi"] == "m" and not p.get("perm"), p'
ok $? "a compound store's indices are in range, not distinct (a histogram)"

# --- a scatter through a helper: perm() says the values are a permutation
entry scatter_h "y[at(perm, i)] = x[i]" "perm(perm: n)" > scatter_h.c
is "$(perm_fields scatter_h.c)" "n True" "perm(perm: n) makes perm a permutation of 0..n-1"
"$CH_CC_BIN" --harness-list scatter_h.c | python3 -c '
import json, sys
e = json.load(sys.stdin)[0]
p = {q["name"]: q for q in e["params"]}["perm"]
assert e["clauses"]["perm"] == {"perm": "n"} and p["perm"] is True, e'
ok $? "--harness-list shows the perm() clause and the parameter it makes a permutation"
verifies scatter_h "y[perm[i]] = x[i]" "scatter through a helper, perm()"
"$CH_CC_BIN" -O2 -c scatter_h.c -o scatter_h.o 2> sh.err; s=$?
is "$s" 0 "the build with perm() succeeds"
grep -q "reference program\|inputs need a clause" sh.err; is $? 1 "its reference runs on the permutation"

# --- the synthesized values are a permutation: the reference program's inputs, checked by
# the user's own C through sample(): it aborts unless every value of 0..n-1 appears once
cat > check.c <<'C'
#include <stdlib.h>
static int at(const int *p, int i) { return p[i]; }

void check_perm(int n, int *perm, double *x, double *y)
{
    (void)x;
    (void)y;
    char *seen = calloc(n > 0 ? n : 1, 1);
    for (int i = 0; i < n; i++) {
        if (perm[i] < 0 || perm[i] >= n || seen[perm[i]])
            abort();
        seen[perm[i]] = 1;
    }
    free(seen);
}

#pragma harness extent(perm: n, x: n, y: n) perm(perm: n) sample(check_perm)
void scatter_c(int n, const int *perm, const double *x, double *y)
{
    for (int i = 0; i < n; i++)
        y[at(perm, i)] = x[i];
}
C
candidate scatter_c "y[perm[i]] = x[i]" > scatter_c.cu
"$CH_CC_BIN" --harness-verify=scatter_c.cu check.c > c.out 2> c.err; s=$?
if have_gpu; then is "$s" 0 "every synthesized perm is a permutation (checked in the reference)"
else is "$s" 3 "every synthesized perm is a permutation (checked in the reference)"; fi

# --- bad perm() clauses are located compile errors
entry bad "y[at(perm, i)] = x[i]" "perm(perm: k)" > bad.c
"$CH_CC_BIN" -c bad.c -o bad.o 2> bad.err; s=$?
is "$s" 1 "a perm() bound naming no parameter fails the compile"
like "$(head -1 bad.err)" "^bad.c:3:50: error: bad bound 'k' in perm\(perm: ...\)" "located at the item"
entry bad "y[at(perm, i)] = x[i]" "perm(x: n)" > bad.c
"$CH_CC_BIN" -c bad.c -o bad.o 2> bad.err
like "$(head -1 bad.err)" "^bad.c:3:50: error: perm\(x: ...\): 'x' holds double values" \
    "perm() of a floating array is refused"
entry bad "y[at(perm, i)] = x[i]" "perm(perm: n) range(perm: 0, n)" > bad.c
"$CH_CC_BIN" -c bad.c -o bad.o 2> bad.err
like "$(head -1 bad.err)" "error: the values of 'perm' are described twice" "perm() and range() of one array"
entry bad "y[at(perm, i)] = x[i]" "perm(perm n)" > bad.c
"$CH_CC_BIN" -c bad.c -o bad.o 2> bad.err
like "$(head -1 bad.err)" "^bad.c:3:[0-9]+: error: expected ':' after the parameter name in perm\(\); write perm\(p: n\)" \
    "a malformed perm() says how to write it"
entry bad "y[at(perm, i)] = x[i]" "perm(perm: 2)" > bad.c
"$CH_CC_BIN" --harness-verify=scatter_h.cu bad.c > /dev/null 2> bad.err; s=$?
isnt_zero=$([ "$s" -ne 0 ] && echo 1)
is "$isnt_zero" 1 "more elements than distinct values cannot be synthesized"
like "$(cat bad.err)" "perm holds [0-9]+ elements, but its values are distinct in \[0, [0-9]+\)" \
    "and the error says why"
done_testing
