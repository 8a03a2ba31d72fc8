#!/bin/bash
# PolyBench/C 4.2.1 as shipped, built with CC=ch-cc on a machine without a GPU: the suite the
# C-to-GPU field measures on is our public regression suite for the front end. Every kernel is
# copied to a temporary directory and annotated there (one `#pragma harness` line before each
# kernel_NAME function, static as shipped); the suite itself is never modified.
#
# For each kernel: the parameters written through PolyBench's macros come out of the scan as
# arrays with their declared sizes; ch-cc builds the program; PolyBench's own array dump equals
# the gcc build's; and the entry is either pending (the translator's candidate compiled with
# nvcc and waits for a GPU) or refused with a reason located in the kernel's code, never "the
# reference does not build". The translator's analysis of every kernel (statements, what each
# loop carries, the kernels of both schedule strategies) equals the golden
# tests/golden/polybench-plans.txt, which a reader can check against the suite's sources.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/polybench.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
if have_gpu; then skip_all "a GPU is present: tests/gpu/polybench_gpu.t verifies the kernels"; fi
[ -d "$polybench_suite/utilities" ] ||
    skip_all "PolyBench not found at $polybench_suite (set CH_CC_POLYBENCH)"
export CH_CC_BUDGET=1 # one candidate per entry keeps the nvcc time down
# the release binary: the sanitizer build of the same code runs under every other test, and
# thirty programs under ASan would cost CI minutes for no extra coverage of this scenario
bin="${CH_CC_REL_BIN:-$CH_CC_BIN}"

kernels=$(polybench_copy "$TEST_DIR/pb")
cd "$TEST_DIR/pb"
util="$TEST_DIR/pb/utilities"

pending=0 refused=0 table=""
for src in $kernels; do
    dir=$(dirname "$src")
    name=$(basename "$src" .c)
    pragma_line=$(grep -n '^#pragma harness' "$src" | cut -d: -f1)
    flags=(-O2 -I"$util" -I"$dir" -DMINI_DATASET -DPOLYBENCH_DUMP_ARRAYS)

    "$bin" --harness-plan "${flags[@]}" "$src" >> plans.txt 2>&1
    CH_CC_BUDGET=4 "$bin" --harness-propose="$TEST_DIR/cand/$name" "${flags[@]}" "$src" > /dev/null 2>&1

    # the scan: every PolyBench array parameter is an array with its declared sizes
    "$bin" --harness-list "${flags[@]}" "$src" > "$name.list" 2> "$name.list.err"
    python3 - "$name.list" > "$name.dims" <<'EOF'
import json, sys
entries = json.load(open(sys.argv[1]))
bad = [p["name"] for e in entries for p in e["params"]
       if p["role"] != "scalar" and (not p.get("dims") or "" in p["dims"])]
print("ok" if len(entries) == 1 and not bad else "bad: %d entries, unsized %s" % (len(entries), bad))
EOF
    is "$(cat "$name.dims")" ok "$name: the scan sees each macro-declared parameter as a sized array"

    gcc "${flags[@]}" "$util/polybench.c" "$src" -lm -o "$name.gcc" && ./"$name.gcc" 2> "$name.gcc.dump"
    "$bin" "${flags[@]}" "$util/polybench.c" "$src" -lm -o "$name.ch" > "$name.out" 2> "$name.err"
    ok $? "$name: builds with ch-cc"
    ./"$name.ch" 2> "$name.ch.dump"
    files_same "$name.gcc.dump" "$name.ch.dump" "$name: the array dump equals gcc's"

    warning=$(grep 'warning: kernel_' "$name.err" | head -1)
    if printf '%s' "$warning" | grep -q 'candidates\? wait in the cache'; then
        pending=$((pending + 1))
        table="$table$name pending
"
        pass "$name: pending (its candidates wait for a GPU)"
    else
        refused=$((refused + 1))
        reason=$(printf '%s' "$warning" | sed 's/: warning: kernel_[a-z0-9_]*: host path linked//')
        table="$table$name refused: $reason
"
        # a refusal is reported at a place in the kernel's code, after the pragma, not at the
        # pragma itself
        at=$(printf '%s' "$warning" | grep -Eo "^[^ ]*$name\.c:[0-9]+:[0-9]+: warning" | cut -d: -f2)
        [ -n "$at" ] && [ "$at" -gt "$pragma_line" ]
        ok $? "$name: refused with a reason located in the kernel's code"
        diag "$reason"
    fi
    grep -q 'the reference does not build' "$name.err"
    is $? 1 "$name: the reference program builds"
done
diag "PolyBench: $pending pending, $refused refused of $((pending + refused)) kernels" "$table"
[ $((pending + refused)) -ge 30 ]; ok $? "every kernel of the suite was tried"
[ "$pending" -ge 28 ]; ok $? "the translator takes at least 28 of the 30 kernels ($pending)"
# the translator proposes its variants for every kernel, never two that print the same code (a
# copy would cost a whole verification), and the second (the build above compiled the first)
# compiles with nvcc without a warning too
dups=$(python3 "$CH_CC_SRC/tests/lib/same_code.py" "$TEST_DIR/cand")
is "$dups" "" "no kernel gets two candidates of the same code"
[ "$(ls -d "$TEST_DIR"/cand/* | wc -l)" -eq 30 ] && [ "$(ls "$TEST_DIR"/cand/*/*.cu | wc -l)" -ge 60 ]
ok $? "the translator proposed candidates for the 30 kernels, more than one for most"
ls "$TEST_DIR"/cand/*/*.1.cu > cands.txt
xargs -P "$(nproc)" -I{} sh -c 'nvcc -arch=sm_90 -Werror all-warnings -c "{}" -o "{}.o" \
    > "{}.log" 2>&1 || echo "{}"' < cands.txt > nvcc-failed.txt
is "$(cat nvcc-failed.txt)" "" "the original-order candidates compile with nvcc without a warning" ||
    diag "$(head -1 nvcc-failed.txt | xargs -I{} cat {}.log | head -20)"

cmp -s "$CH_CC_SRC/tests/golden/polybench-plans.txt" plans.txt
ok $? "the translator's plans of the 30 kernels equal the golden ones" ||
    diag "$(diff "$CH_CC_SRC/tests/golden/polybench-plans.txt" plans.txt | head -40)"

# the C99 prototypes (variable-length array parameters) come out of the scan with their
# expressions: `double A[ni][nj]`
"$bin" --harness-list -I"$util" -Ilinear-algebra/blas/gemm -DMINI_DATASET -DPOLYBENCH_USE_C99_PROTO \
    linear-algebra/blas/gemm/gemm.c > c99.list
like "$(cat c99.list)" '"signature":.*double C\[ni\]\[nj\], double A\[ni\]\[nk\], double B\[nk\]\[nj\]' \
    "POLYBENCH_USE_C99_PROTO: parameters are C99 arrays of the size parameters"
like "$(cat c99.list)" '"extent":[[:space:]]*"ni\*nj"' "and their extents are products of them"
done_testing
