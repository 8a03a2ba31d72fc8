#!/bin/bash
# Spec-only entries on a machine with a GPU (issue 19): each program of tests/data/specs declares
# one function by words alone and checks it against the plain C loop written beside it. With no
# model configured, each spec either builds into a reference that computes what the words say
# (the host path prints OK) and a kernel verified against it (the GPU path prints OK), or is
# refused at the pragma with a message that says what to write. At least half must get a kernel.
. "$(dirname "$0")/../lib/tap.sh"
require_gpu
unset CH_CC_PROVIDER CH_CC_MODEL
export CH_CC_BUDGET=${CH_CC_TEST_BUDGET:-1}
cp -r "$CH_CC_SRC/tests/data/specs" "$TEST_DIR/specs"
cd "$TEST_DIR/specs" || exit 1
total=0 verified=0 refused=0 table=""
for src in *.c; do
    name=$(basename "$src" .c)
    if [ -n "${CH_CC_SPEC_KERNELS:-}" ] && ! printf ' %s ' "$CH_CC_SPEC_KERNELS" | grep -q " $name "; then
        continue
    fi
    total=$((total + 1))
    start=$(date +%s)
    "$CH_CC_BIN" -O2 "$src" -lm -o "$name" 2> "$name.err"
    rc=$?
    secs=$(($(date +%s) - start))
    if [ $rc -ne 0 ]; then
        refused=$((refused + 1))
        like "$(head -1 "$name.err")" "^$src:[0-9]+:[0-9]+: error: .*(write|configure an LLM provider)" \
            "$name: refused at its pragma with what to write"
        table="$table$name refused: $(head -1 "$name.err" | cut -c1-160)
"
        continue
    fi
    is "$(./"$name")" "OK" "$name: the reference computes what the words say"
    if grep -q 'verified kernel linked' "$name.err"; then
        verified=$((verified + 1))
        is "$(CH_CC_FORCE_GPU=1 ./"$name")" "OK" "$name: the verified kernel computes it too"
        table="$table$name verified (${secs} s)
"
    else
        table="$table$name host path: $(grep -m1 warning "$name.err" | cut -c1-300)
"
        diag "$name: host path: $(grep -m1 warning "$name.err" | cut -c1-300)"
    fi
done
diag "specs on the GPU: $total, $verified verified, $refused refused" "$table"
[ $((2 * verified)) -ge "$total" ]
ok $? "at least half of the specs get a verified kernel ($verified of $total)"
done_testing
