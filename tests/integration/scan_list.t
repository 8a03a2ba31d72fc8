#!/bin/bash
# --harness-list on a .c and a .cu file with entries of every kind: the JSON is checked field by
# field, and every bad annotation gives its one-line located error with exit status 1.
. "$(dirname "$0")/../lib/tap.sh"
cd "$TEST_DIR" || exit 1

cat > ops.c <<'C'
#include <stddef.h>
typedef double real;
#pragma harness "y = a*x + y" extent(x: n, y: n) tune(n = 1<<20)
void saxpy(int n, float a, const float *x, float *y);

#pragma harness "2-D copy" tol(1e-6)
void copy2(int m, int n, const real *a, real *restrict b)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            b[i * n + j] = a[i * n + j];
}

#pragma harness
void lower(int n, double L[n][n], const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        y[i] = 0;
        for (int j = 0; j <= i; j++)
            y[i] += L[i][j] * x[j];
    }
}

#pragma harness
void gather(int n, int m, const int *idx, const float *src, float *dst)
{
    for (int i = 0; i < m; i++)
        dst[i] = src[i];
    for (int i = 0; i < n; i++)
        dst[i] = src[idx[i]];
}
C

out=$("$CH_CC_BIN" --harness-list ops.c 2>err.txt)
ok $? "--harness-list on a .c file exits 0"
check() { # check JSON PYTHON-EXPR NAME
    printf '%s' "$1" | python3 -c "import json,sys; d=json.load(sys.stdin); sys.exit(0 if ($2) else 1)"
    ok $? "$3"
}
check "$out" 'len(d) == 4 and [e["name"] for e in d] == ["saxpy", "copy2", "lower", "gather"]' "four entries in source order"
check "$out" '[e["kind"] for e in d] == ["spec-decl", "spec-def", "c-def", "c-def"]' "kinds"
check "$out" '[(e["line"], e["column"]) for e in d] == [(3, 1), (6, 1), (14, 1), (24, 1)]' "pragma locations"
check "$out" 'd[0]["spec"] == "y = a*x + y" and d[2]["spec"] is None' "spec or null"
check "$out" 'd[0]["clauses"] == {"extent": {"x": "n", "y": "n"}, "tune": {"n": "1<<20"}}' "clauses object"
check "$out" '[(p["name"], p["type"], p["role"], p["elem"], p.get("direction"), p.get("extent")) for p in d[1]["params"]] == [("m","int","scalar","int",None,None),("n","int","scalar","int",None,None),("a","const double *","pointer","double","in","m*n"),("b","double *restrict","pointer","double","out","m*n")]' "typedef resolved, restrict kept, flat 2-D extents"
check "$out" 'd[2]["params"][1]["role"] == "array" and d[2]["params"][1]["dims"] == ["n", "n"] and d[2]["params"][1]["extent"] == "n*n" and d[2]["params"][3]["direction"] == "out"' "C99 array parameter and written-first output"
check "$out" 'd[3]["params"][2].get("index") is True and d[3]["params"][2]["index_hi"] == "m" and d[3]["params"][3]["extent"] == "m"' "index array with its range"
check "$out" 'd[1]["clauses"]["tol"] == 1e-6' "tol clause"

cat > k.cu <<'C'
#include <cuda_runtime.h>
#include <harness.h>
__global__ void kern(float *x) { x[threadIdx.x] *= 2; }
#pragma harness "scale by s" extent(x: n) inout(x)
void scale(int n, float s, float *x);
HARNESS("", "tune(n = 4096)")
void add(int n, const float *a, const float *b, float *c)
{
    for (int i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}
C
out=$("$CH_CC_BIN" --harness-list -I"$CH_CC_SRC/include" k.cu 2>err.txt)
ok $? "--harness-list on a .cu file including cuda_runtime.h exits 0"
check "$out" '[(e["name"], e["kind"], e["line"]) for e in d] == [("scale", "spec-decl", 4), ("add", "c-def", 6)]' ".cu entries, pragma and attribute form"
check "$out" 'd[0]["params"][2]["direction"] == "inout" and [p.get("extent") for p in d[1]["params"]] == [None, "n", "n", "n"] and d[1]["clauses"] == {"tune": {"n": "4096"}}' ".cu directions, extents and clauses"

# bad annotations: SOURCE-LINES EXPECTED-MESSAGE
bad() {
    printf '%b' "$1" > bad.c
    msg=$("$CH_CC_BIN" --harness-list bad.c 2>&1 >/dev/null)
    rc=$?
    is "$rc" 1 "exit 1: $3"
    is "$msg" "$2" "message: $3"
}
bad '#pragma harness "s" frob(1)\nvoid f(int n, float *x);\n' \
    "bad.c:1:21: error: unknown harness clause 'frob'; expected extent, in, out, inout, tune, tol, device, budget, range, offsets, perm or sample" "unknown clause"
bad '#pragma harness "s" extent(x n)\nvoid f(int n, float *x);\n' \
    "bad.c:1:30: error: expected ':' after the parameter name in extent(); write extent(p: n)" "malformed clause"
bad '#pragma harness "s" out(q)\nvoid f(int n, float *x);\n' \
    "bad.c:1:25: error: 'q' in out() names no pointer or array parameter of 'f'; use one of: x" "clause naming no parameter"
bad 'int g;\n#pragma harness "s"\nint t[3];\n' \
    "bad.c:2:1: error: #pragma harness is not followed by a function; put it directly before the function's declaration or definition" "not followed by a function"
bad '#pragma harness "s"\nvoid f(int n, void *x);\n' \
    "bad.c:2:21: error: unsupported type 'void *' of harness parameter 'x'; use a scalar (int, long, size_t, float, double, ...), a pointer to one, or a C99 array such as double A[n][m]" "unsupported parameter type"
bad '#pragma harness\nvoid f(int n, float *x)\n{\n    while (n-- > 0)\n        *x++ = 0;\n}\n' \
    "bad.c:5:10: error: cannot infer the extent of 'x' in 'f': nothing bounds this use of it (a sentinel loop or a moving pointer); add extent(x: <number of elements>) to the #pragma harness at 1:1" "extent not inferable: located at the moving pointer"
bad '#pragma harness\nvoid f(int n, float *x);\n' \
    "bad.c:1:1: error: bare #pragma harness on the declaration of 'f': there is no body to translate; add a spec (#pragma harness \"what it computes\") or a definition" "spec-decl without a spec"
bad '#pragma harness "a"\n  #pragma harness "b"\nvoid f(int n, float *x);\n' \
    "bad.c:2:3: error: second harness annotation on 'f'; merge the clauses into one #pragma harness" "two pragmas on one function"
bad '#pragma harness "s"\ndouble f(int n, float *x);\n' \
    "bad.c:1:1: error: harness function 'f' returns 'double'; it must return void (write results through an out pointer)" "non-void return"

done_testing
