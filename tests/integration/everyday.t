#!/bin/bash
# Everyday kernels as people write them in plain C (tests/data/everyday: flattened matrices
# through pointers, reductions, a scan, a histogram, an argmax, softmax, CSR, a transpose, a
# symmetric fill, a stencil, k-means assignment), one annotated function and a main each. The
# translator's model and plans for all of them equal tests/golden/everyday-plans.txt, where a
# reader checks what each class became: the split subscripts, the loops found parallel, the
# reductions, the if-converted argmax, the kernels of both schedule strategies. Every kernel the
# builtin agent proposes builds its candidates, and they compile with nvcc without a warning; the
# programs built with ch-cc print what the gcc builds print (the GPU run: tests/gpu/everyday_gpu.t).
. "$(dirname "$0")/../lib/tap.sh"
command -v nvcc > /dev/null || skip_all "nvcc not found"
bin="${CH_CC_REL_BIN:-$CH_CC_BIN}"
data="$CH_CC_SRC/tests/data/everyday"
cp -r "$data" "$TEST_DIR/ed"
cd "$TEST_DIR/ed"

for src in *.c; do
    name=$(basename "$src" .c)
    "$bin" --harness-plan "$src" >> plans.txt 2>&1
    CH_CC_BUDGET=4 "$bin" --harness-propose="$TEST_DIR/cand/$name" "$src" > "$name.prop" 2>&1
    ok $? "$name: the builtin agent proposes candidates"
    gcc -O2 -Wno-unknown-pragmas "$src" -lm -o "$name.gcc" && ./"$name.gcc" > "$name.gcc.out"
    CH_CC_BUDGET=1 "$bin" -O2 "$src" -lm -o "$name.ch" > "$name.out" 2> "$name.err"
    ok $? "$name: builds with ch-cc"
    ./"$name.ch" > "$name.ch.out"
    files_same "$name.gcc.out" "$name.ch.out" "$name: prints what the gcc build prints"
done

cmp -s "$CH_CC_SRC/tests/golden/everyday-plans.txt" plans.txt
ok $? "the translator's plans of the everyday kernels equal the golden ones" ||
    diag "$(diff "$CH_CC_SRC/tests/golden/everyday-plans.txt" plans.txt | head -40)"
# every kernel gets candidates, never two of the same code (variants that print the same kernels
# for a body are proposed once: a copy costs a whole verification), and the budget of four is
# used where the translator has four different variants
dups=$(python3 "$CH_CC_SRC/tests/lib/same_code.py" "$TEST_DIR/cand")
is "$dups" "" "no kernel gets two candidates of the same code"
for d in "$TEST_DIR"/cand/*; do
    [ "$(ls "$d"/*.cu 2> /dev/null | wc -l)" -ge 1 ] || echo "$(basename "$d")"
done > none.txt
is "$(cat none.txt)" "" "every kernel gets a candidate"
four=0
for d in "$TEST_DIR"/cand/*; do
    [ "$(ls "$d"/*.cu | wc -l)" -eq 4 ] && four=$((four + 1))
done
[ "$four" -ge 4 ]
ok $? "kernels with four different variants get four candidates ($four kernels)"
ls "$TEST_DIR"/cand/*/*.[02].cu > cands.txt
xargs -P "$(nproc)" -I{} sh -c 'nvcc -arch=sm_90 -Werror all-warnings -c "{}" -o "{}.o" \
    > "{}.log" 2>&1 || echo "{}"' < cands.txt > nvcc-failed.txt
is "$(cat nvcc-failed.txt)" "" "the first and third candidates compile with nvcc without a warning" ||
    diag "$(head -1 nvcc-failed.txt | xargs -I{} cat {}.log | head -20)"
done_testing
