#!/bin/bash
# The GPU stages' failure counters (issue 17: every failure kind is a counter of --harness-stats;
# stages 0-1 are moved on CPU by tests/integration/harness_stats.t). A scripted model (the fake
# server) answers every kernel request with one broken candidate, so the build's evolution runs
# it on the GPU and it stops at the stage that catches it:
#   a kernel that crashes (wild store)   stage 2, smoke        stage_smoke_failed
#   a kernel whose formula is wrong      stage 2, smoke        stage_smoke_failed
#   an unwritten tail past small sizes   stage 3, correctness  stage_correct_failed
#   an out-of-bounds access (i <= n)     stage 4, sanitizer    stage_sanitize_failed
#   a fault at the tune size alone       stage 5, performance  stage_perf_failed
#   skipped work on repeated calls       stage 0, static       stage_static_failed
#     (what a candidate keeps across calls decides whether it launches: the state-flow rule
#     refuses it before any GPU run; the memory floor stays behind it, tests/gpu/verify_catalog)
# Each build succeeds with its host path (fallback_failed); each assertion names the counter and
# its expected change: that stage's counter by the number of candidates that stopped there (at
# least one), every other stage's by 0.
. "$(dirname "$0")/../lib/tap.sh"
require_gpu
unset CH_CC_REMOTE CH_CC_OFFLINE CH_CC_ON_FAIL
cand="$CH_CC_SRC/tests/gpu/candidates"
cd "$TEST_DIR"
cp "$CH_CC_SRC/examples/saxpy/saxpy.c" "$CH_CC_SRC/examples/saxpy/saxpy.h" .
# a device entry (the caller's buffers are on the device) for the skipped-work candidate, at a
# tune size where the memory floor is far above what skipping the kernel takes
cat > saxpy_dev.c <<'EOF'
#pragma harness device tune(n = 1 << 24)
void saxpy(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
EOF
# (a store far outside every buffer: `trap` itself is refused by the device-code check at
# stage 1, which catches it before any run)
sed 's/if (i < n)/if (i == 0)\n        y[(long long)1 << 40] = 0.0f;\n    if (i < n)/' "$cand/saxpy_ok.cu" > crash.cu
grep -q '1 << 40' crash.cu
ok $? "a crashing candidate is made from the correct one (a wild store in the kernel)"
# one that fails only at large sizes: the kernel traps once n passes 2^23, above every smoke,
# correctness and sanitizer size of saxpy_dev.c and below its tune size (2^24), so only the
# performance stage, the one that runs the tune size, sees it
sed '0,/^{$/s//{\n    if (n > (1 << 23))\n        y[(long long)1 << 40] = 0.0f;/' "$cand/saxpy_dev_ok.cu" > bigfault.cu
grep -q '1 << 40' bigfault.cu
ok $? "a candidate failing at the tune size alone is made from the correct one"

STAGES="stage_static_failed stage_compile_failed stage_smoke_failed stage_correct_failed stage_sanitize_failed stage_perf_failed"
stats_of() { # stats_of CACHE NAME...: the counters' values, space separated
    CH_CC_CACHE_DIR="$1" "$CH_CC_BIN" --harness-stats=json | python3 -c \
        "import json,sys; d=json.load(sys.stdin); print(' '.join(str(d[n]) for n in sys.argv[1:]))" \
        "${@:2}"
}
llm_pid=
stop_llm() { [ -n "$llm_pid" ] && kill "$llm_pid" 2>/dev/null; wait "$llm_pid" 2>/dev/null; llm_pid=; }
trap 'stop_llm; _tap_cleanup' EXIT
start_llm() { # start_llm FILE.cu: every request is answered with that candidate
    python3 - "$1" script.json <<'PY'
import json, sys
kernel = open(sys.argv[1]).read()
json.dump({"default": {"reply": "Design: one thread per element\n```cuda\n%s```\n" % kernel}},
          open(sys.argv[2], "w"))
PY
    rm -f port requests.jsonl
    python3 "$CH_CC_SRC/tests/fakes/fake_llm.py" --script script.json --record requests.jsonl \
        --port 0 --port-file port > /dev/null 2>&1 &
    llm_pid=$!
    for _ in $(seq 300); do [ -s port ] && break; sleep 0.1; done
}
# failed_at REPORT STAGE_NAME: how many of the entry's candidates failed at that stage
failed_at() {
    python3 - "$1" "$2" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["evolution"]
print(sum(1 for c in ev["candidates"] if c["verdict"] != "correct" and c["stage"] == sys.argv[2]))
PY
}

# case SOURCE CANDIDATE STAGE_NAME COUNTER WHAT [GPU_RUNS]: GPU_RUNS 0 for a candidate refused
# before any GPU run
stage_case() {
    local src=$1 cu=$2 stage=$3 counter=$4 what=$5 gpu=${6:-1}
    local cache="$TEST_DIR/c-$4-$(basename "$2" .cu)"
    start_llm "$cu"
    CH_CC_CACHE_DIR="$cache" CH_CC_PROVIDER=openai CH_CC_MODEL=fake CH_CC_API_KEY=test-key \
        CH_CC_BUDGET=1 CH_CC_API_BASE="http://127.0.0.1:$(cat port)/v1" \
        "$CH_CC_BIN" -O2 -c "$src" -o "$cache.o" 2> "$cache.err"
    ok $? "$what: the build succeeds (host path)"
    stop_llm
    like "$(cat "$cache.err")" "saxpy: host path linked: no candidate passed verification" \
        "$what: the note says no candidate passed"
    local key report n want got
    key=$(CH_CC_CACHE_DIR="$cache" "$CH_CC_BIN" --harness-list -O2 "$src" |
        python3 -c "import json,sys; print(json.load(sys.stdin)[0]['key'])")
    report="$cache/${key:0:2}/${key:2}/report.json"
    n=$(failed_at "$report" "$stage")
    [ "${n:-0}" -ge 1 ]
    ok $? "$what: its candidates stopped at the $stage stage ($n)" ||
        diag "$(python3 -c "import json,sys; print([(c['stage'], c['verdict'], c.get('message', '')[:200]) for c in json.load(open(sys.argv[1]))['evolution']['candidates']])" "$report" 2>&1)"
    want=""
    for c in $STAGES; do
        if [ "$c" = "$counter" ]; then want="$want ${n:-0}"; else want="$want 0"; fi
    done
    got=$(stats_of "$cache" $STAGES)
    is "$got" "${want# }" "$what: $counter moves by $n, every other stage counter by 0 ($STAGES)"
    is "$(stats_of "$cache" fallback_failed host_fallbacks refused_reference)" "1 1 0" \
        "$what: fallback_failed and host_fallbacks move by 1, refused_reference by 0"
    got=$(stats_of "$cache" gpu_runs)
    if [ "$gpu" = 0 ]; then
        is "$got" 0 "$what: no GPU run"
    else
        [ "${got:-0}" -ge 1 ]
        ok $? "$what: gpu_runs moved ($got)"
    fi
}

stage_case saxpy.c crash.cu smoke stage_smoke_failed "a crashing kernel"
stage_case saxpy.c "$cand/saxpy_wrong.cu" smoke stage_smoke_failed "a wrong formula"
stage_case saxpy.c "$cand/saxpy_tail.cu" correctness stage_correct_failed "an unwritten tail"
stage_case saxpy.c "$cand/saxpy_oob.cu" sanitizer stage_sanitize_failed "an out-of-bounds access"
stage_case saxpy_dev.c bigfault.cu performance stage_perf_failed \
    "a fault at the tune size"
stage_case saxpy_dev.c "$cand/saxpy_dev_skip.cu" static stage_static_failed "skipped work" 0
done_testing
