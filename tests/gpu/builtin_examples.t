#!/bin/bash
# The builtin agent's translations of the examples, judged by the real verifier on the GPU:
# every variant it proposes for an example's entry must pass stages 0-4 with timings.
. "$(dirname "$0")/../lib/tap.sh"
require_gpu
for ex in saxpy/saxpy.c jacobi/jacobi.c spec-def/blend.c; do
    src="$CH_CC_SRC/examples/$ex"
    name=$(basename "$ex" .c)
    out="$TEST_DIR/$name"
    "$CH_CC_BIN" --harness-propose="$out" --harness-budget="${CH_CC_TEST_VARIANTS:-2}" "$src" > "$out.list" 2> "$out.err"
    ok $? "$ex: the builtin agent proposes candidates"
    n=0
    while IFS=$'\t' read -r cand design; do
        n=$((n + 1))
        "$CH_CC_BIN" --harness-verify="$cand" "$src" > "$cand.report" 2>&1
        ok $? "$ex: $design passes verification"
        grep -E 'stage|message' "$cand.report" | sed 's/^/# /'
    done < "$out.list"
    [ "$n" -ge 2 ]
    ok $? "$ex: at least two variants ($n)"
done
done_testing
