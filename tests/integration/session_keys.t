#!/bin/bash
# One session per command (src/pipeline/): --harness-list, --harness-verify, --harness-explain and
# the build open it from the same command line, so they report and store one key per file and
# flags, whatever the spelling of the target (-arch=compute_NN, one or several -gencode forms),
# the -O level or the -D options. And every outcome is a counter: a refusal and a pending entry
# move theirs (--harness-stats).
. "$(dirname "$0")/../lib/tap.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
export CH_CC_BUDGET=1
stat() { "$CH_CC_BIN" --harness-stats=json | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
cd "$TEST_DIR"

# an entry the builtin agent refuses: the build records its refusal (no nvcc, no GPU needed)
# under the key it computes, so the stored entry shows which key the build used
cat > prefix.c <<'EOF'
#ifndef SCALE
#define SCALE 1
#endif
#pragma harness extent(x: n, s: n)
void prefix(int n, const float *x, float *s)
{
    int i = 0;
    s[0] = SCALE * x[0];
    while (++i < n)
        s[i] = s[i - 1] + x[i];
}
EOF
# a candidate the static checks reject: --harness-verify reports without running nvcc
printf '__global__ void prefix_kernel(int n) { asm("trap;"); }\n' > bad.cu

flag_sets=(
    "-arch=compute_80"
    "-gencode arch=compute_80,code=sm_80"
    "-gencode=arch=compute_86,code=[sm_86,compute_86]"
    "-arch=compute_80 -code=sm_80,sm_90"
    "-O0 -arch=sm_80"
    "-O3 -arch=sm_80"
    "-DSCALE=2 -arch=sm_80"
    "-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"
)
keys=()
for flags in "${flag_sets[@]}"; do
    # shellcheck disable=SC2086
    list_key=$("$CH_CC_BIN" --harness-list $flags prefix.c | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['key'])")
    like "$list_key" '^[0-9a-f]{32}$' "$flags: --harness-list reports a key"
    # shellcheck disable=SC2086
    verify_key=$("$CH_CC_BIN" --harness-verify=bad.cu --harness-report=json $flags prefix.c 2> verify.err |
        python3 -c "import json,sys; print(json.load(sys.stdin).get('key', ''))")
    is "$verify_key" "$list_key" "$flags: --harness-verify reports the key --harness-list reports"
    # shellcheck disable=SC2086
    "$CH_CC_BIN" $flags -c prefix.c -o prefix.o 2> build.err
    ok $? "$flags: the build succeeds (host path)"
    [ -d "$CH_CC_CACHE_DIR/${list_key:0:2}/${list_key:2}" ]
    ok $? "$flags: the build stored the entry under the listed key"
    # shellcheck disable=SC2086
    explain_key=$("$CH_CC_BIN" --harness-explain prefix $flags prefix.c | awk '$1 == "key" {print $2; exit}')
    is "$explain_key" "$list_key" "$flags: --harness-explain NAME FILE finds the listed key"
    keys+=("$list_key")
done
# sm_80 spelled four ways (-O is the oracle's, not the kernel's): one key; other targets, others
is "${keys[1]} ${keys[4]} ${keys[5]}" "${keys[0]} ${keys[0]} ${keys[0]}" \
    "-arch=compute_80, -gencode code=sm_80 and -arch=sm_80 at -O0 and -O3 share one key"
[ "${keys[2]}" != "${keys[0]}" ] && [ "${keys[3]}" != "${keys[0]}" ] && [ "${keys[3]}" != "${keys[2]}" ]
ok $? "sm_86 and sm_80+sm_90 have keys of their own"
is "${keys[7]}" "${keys[3]}" "two -gencode options for sm_80 and sm_90 key as -arch=compute_80 -code=sm_80,sm_90"

# ---- the counters a refusal moves ----------------------------------------------------------
refused=$(stat refused_translator)
[ "$refused" -ge 1 ]; ok $? "each new refusal moved refused_translator ($refused)"
is "$(stat fallback_refused)" "$(stat host_fallbacks)" "every host path so far is a refusal"
before=$(stat refused_translator)
requests=$(stat agent_requests)
"$CH_CC_BIN" -arch=compute_80 -c prefix.c -o prefix.o 2> again.err
is "$(stat refused_translator)" "$((before + 1))" "a refusal served from the cache is counted again"
is "$(stat agent_requests)" "$requests" "without asking the agent again"

# ---- the counters a pending entry moves (no GPU here) ---------------------------------------
if have_gpu; then
    skip "a pending entry" "a GPU is present: entries verify (tests/gpu/)"
else
    cp "$CH_CC_SRC/examples/saxpy/saxpy.c" "$CH_CC_SRC/examples/saxpy/saxpy.h" .
    "$CH_CC_BIN" -arch=sm_80 -c saxpy.c -o saxpy.o 2> saxpy.err
    ok $? "an entry made without a GPU builds its host path"
    is "$(stat pending_entries) $(stat fallback_pending)" "1 1" "it is counted as pending"
    is "$(stat pending_verified)" 0 "and not verified"
fi
done_testing
