#!/bin/bash
# PolyBench/C 4.2.1 as shipped (static kernels, macro-declared arrays), built with CC=ch-cc on a
# machine with a GPU: every kernel the builtin agent translates is verified and linked behind
# its static wrapper, and the program's array dump on the GPU path (CH_CC_FORCE_GPU=1) equals
# the gcc build's. Kernels the agent refuses keep their host path with a located reason; their
# dumps must match too. CH_CC_PB_KERNELS (names, space-separated) limits the run.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/polybench.sh"
require_gpu
[ -d "$polybench_suite/utilities" ] ||
    skip_all "PolyBench not found at $polybench_suite (set CH_CC_POLYBENCH)"
export CH_CC_BUDGET=${CH_CC_TEST_BUDGET:-1}
dataset=${CH_CC_PB_DATASET:-SMALL_DATASET}

kernels=$(polybench_copy "$TEST_DIR/pb")
cd "$TEST_DIR/pb"
util="$TEST_DIR/pb/utilities"
verified=0 host=0 table=""
for src in $kernels; do
    dir=$(dirname "$src")
    name=$(basename "$src" .c)
    if [ -n "${CH_CC_PB_KERNELS:-}" ] && ! printf ' %s ' "$CH_CC_PB_KERNELS" | grep -q " $name "; then
        continue
    fi
    flags=(-O2 -I"$util" -I"$dir" -D"$dataset" -DPOLYBENCH_DUMP_ARRAYS)
    gcc "${flags[@]}" "$util/polybench.c" "$src" -lm -o "$name.gcc" && ./"$name.gcc" 2> "$name.gcc.dump"
    start=$(date +%s)
    "$CH_CC_BIN" "${flags[@]}" "$util/polybench.c" "$src" -lm -o "$name.ch" > "$name.out" 2> "$name.err"
    ok $? "$name: builds with ch-cc"
    secs=$(( $(date +%s) - start ))
    if grep -q 'verified kernel linked' "$name.err"; then
        verified=$((verified + 1))
        CH_CC_FORCE_GPU=1 CH_CC_TRACE=1 ./"$name.ch" 2> "$name.gpu.dump.raw"
        grep -v '^ch-cc: ' "$name.gpu.dump.raw" > "$name.gpu.dump"
        grep -q "ch-cc: kernel_[a-z0-9_]*: gpu" "$name.gpu.dump.raw"
        ok $? "$name: CH_CC_FORCE_GPU=1 runs the kernel through the static function's dispatcher"
        if cmp -s "$name.gcc.dump" "$name.gpu.dump"; then
            pass "$name: the GPU path's array dump equals gcc's"
        else
            # floating results may differ in the last digits (fused multiply-add, other order of
            # a sum): the dump must agree within the checklist's kind of tolerance
            python3 - "$name.gcc.dump" "$name.gpu.dump" <<'EOF'
import re, sys
num = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")
a = num.findall(open(sys.argv[1]).read())
b = num.findall(open(sys.argv[2]).read())
# PolyBench prints two decimals: one unit in the last place, plus a relative 1e-6
bad = [(i, x, y) for i, (x, y) in enumerate(zip(a, b))
       if abs(float(x) - float(y)) > 0.0100001 + 1e-6 * abs(float(x))]
if bad or len(a) != len(b):
    print("# %d of %d values differ; first: %s" % (len(bad), len(a), bad[:3]))
sys.exit(1 if bad or len(a) != len(b) or not a else 0)
EOF
            ok $? "$name: the GPU path's array dump equals gcc's to the last printed digit"
        fi
        table="$table$name verified (${secs} s)
"
    else
        host=$((host + 1))
        ./"$name.ch" 2> "$name.ch.dump"
        files_same "$name.gcc.dump" "$name.ch.dump" "$name: the host path's dump equals gcc's"
        table="$table$name host: $(grep -m1 'warning' "$name.err" | sed 's/.*host path linked: //' | cut -c1-150)
"
    fi
done
diag "PolyBench on the GPU ($dataset): $verified verified, $host host path" "$table"
[ "$verified" -gt 0 ]; ok $? "at least one PolyBench kernel was verified and linked"

# ---- the file's own helpers and macros become device code ----------------------------------
mkdir -p "$TEST_DIR/helpers" && cd "$TEST_DIR/helpers"
cat > h.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
typedef double real;
#define CLAMP(x) ((x) < 0 ? 0 : (x))
static inline real sq(real v) { return v * v; }
static real soft(real a, real b) { real t = sq(a) - b; return t > 1 ? 1 : t; }
#pragma harness tune(n = 1 << 20)
static void shape(int n, const double *a, double *b)
{
    int i;
    for (i = n - 1; i >= 0; i--)
        b[i] = CLAMP(soft(a[i], 0.25)) + sq(a[n - 1 - i]);
}
int main(void)
{
    int n = 1 << 20;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    for (int i = 0; i < n; i++)
        a[i] = (i % 97) / 48.0 - 1.0;
    shape(n, a, b);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += b[i] * (i % 7);
    printf("%.6f\n", s);
    return 0;
}
EOF
"$CH_CC_BIN" -O2 h.c -o h 2> h.err
ok $? "a kernel calling the file's static helpers and macros builds"
like "$(cat h.err)" "shape: verified kernel linked" "its kernel (helpers as __device__ functions) is verified"
gcc -O2 h.c -o h.gcc && ./h.gcc > want.out
CH_CC_FORCE_GPU=1 CH_CC_TRACE=1 ./h > got.out 2> trace.err
python3 -c "import sys; a, b = float(open('got.out').read()), float(open('want.out').read()); sys.exit(abs(a - b) > 1e-9 * abs(b))"
ok $? "the GPU path computes what the C does ($(cat got.out) against $(cat want.out))"
like "$(cat trace.err)" "ch-cc: shape: gpu" "through the kernel"

# ---- a static function of a CUDA C++ file: nvcc builds its oracle, C++ callers reach it -----
cat > k.cu <<'EOF'
#include <cstdio>
#pragma harness tune(n = 1 << 22)
static void axpb(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + 1.0f;
}
int main()
{
    const int n = 1 << 22;
    static float x[1 << 22], y[1 << 22];
    for (int i = 0; i < n; i++)
        x[i] = (float)(i % 1000);
    axpb(n, 0.5f, x, y);
    std::printf("%g %g\n", y[0], y[n - 1]);
    return 0;
}
EOF
"$CH_CC_BIN" -O2 k.cu -o k 2> k.err
ok $? "a .cu file with an annotated static function builds"
like "$(cat k.err)" "axpb: verified kernel linked" "its kernel is verified against the nvcc-built oracle"
is "$(CH_CC_FORCE_GPU=1 CH_CC_TRACE=1 ./k 2> k.trace)" "1 152.5" "the GPU path computes what the C++ does"
like "$(cat k.trace)" "ch-cc: axpb: gpu" "through the kernel"
done_testing
