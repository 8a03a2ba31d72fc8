#!/bin/bash
# A candidate may define the launcher under the entry's own name (`extern "C" void saxpy(...)`,
# as users write kernels) instead of saxpy_launcher: --harness-verify judges it, a model's
# candidate written so goes through the build, and a verified one is emitted and linked.
. "$(dirname "$0")/../lib/tap.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
cp -r "$CH_CC_SRC/examples/saxpy" "$TEST_DIR/saxpy"
cd "$TEST_DIR/saxpy"
sed 's/saxpy_launcher/saxpy/' "$CH_CC_SRC/tests/gpu/candidates/saxpy_ok.cu" > named.cu
# the kernels alone on device buffers: all a user's program runs of a candidate (issue 15)
cat >> named.cu <<'CU'
extern "C" int saxpy_device_launcher(int n, float alpha, const float *xs, float *ys)
{
    if (n > 0)
        saxpy_kernel<<<(n + 255) / 256, 256>>>(n, alpha, xs, ys);
    return (int)cudaGetLastError();
}
CU
grep -q 'extern "C" void saxpy(int n' named.cu
ok $? "the candidate defines saxpy itself"

# ---- --harness-verify: stages 0 and 1 here; the rest wait for a GPU -------------------------
"$CH_CC_BIN" --harness-verify=named.cu saxpy.c > verify.out 2> verify.err
s=$?
like "$(cat verify.out)" "stage 0 static +pass" "stage 0 accepts the launcher under the entry's name"
like "$(cat verify.out)" "stage 1 compile +pass" "stage 1 compiles it with the scaffold"
if have_gpu; then
    is "$s" 0 "on a GPU it passes every stage"
else
    is "$s" 3 "without a GPU the verdict is pending (exit 3), not a failure"
    like "$(head -1 verify.out)" "^verdict: pending" "the report says pending"
    like "$(cat verify.out)" "stage 2 smoke +pending +\(needs a GPU" "and why stage 2 did not run"
    "$CH_CC_BIN" --harness-verify=named.cu --harness-report=json saxpy.c > verify.json
    is "$(python3 -c 'import json; d=json.load(open("verify.json")); print(d["verdict"], [s["status"] for s in d["stages"]][:3])')" \
        "pending ['pass', 'pass', 'not-run']" "the JSON report says the same"
fi
sed 's/float a, const float \*x/double a, const float *x/' named.cu > wrong.cu
"$CH_CC_BIN" --harness-verify=wrong.cu saxpy.c > wrong.out 2>&1
is "$?" 1 "a wrong signature under the entry's name fails"
like "$(cat wrong.out)" "stage 0 static +FAIL" "at stage 0"
like "$(cat wrong.out)" "parameter 2 \(a\) has type 'double', the entry needs 'float'" \
    "with the signature check's message"

if have_gpu; then
    skip "a model's candidate under the entry's name builds" "a GPU is present: covered by tests/gpu"
    done_testing
fi

# ---- a model writes it so: the build takes it (pending without a GPU) ------------------------
python3 - named.cu script.json <<'EOF'
import json, sys
kernel = open(sys.argv[1]).read()
json.dump({"default": {"reply": "Design: one thread per element\n```cuda\n%s```\n" % kernel}},
          open(sys.argv[2], "w"))
EOF
python3 "$CH_CC_SRC/tests/fakes/fake_llm.py" --script script.json --record requests.jsonl \
    --port 0 --port-file port > /dev/null 2>&1 &
llm_pid=$!
for _ in $(seq 50); do [ -s port ] && break; sleep 0.1; done
CH_CC_PROVIDER=openai CH_CC_MODEL=fake CH_CC_API_KEY=test-key CH_CC_BUDGET=1 \
    CH_CC_API_BASE="http://127.0.0.1:$(cat port)/v1" \
    "$CH_CC_BIN" -O2 -c saxpy.c -o saxpy.o 2> model.err
ok $? "the build with the model's candidate succeeds"
kill "$llm_pid" 2>/dev/null
wait "$llm_pid" 2>/dev/null
is "$(wc -l < requests.jsonl)" 1 "the model was asked once"
like "$(cat model.err)" "saxpy: host path linked: nothing can be verified here .*1 candidate wait in the cache" \
    "its candidate passed stages 0 and 1 and waits for a GPU"
key=$("$CH_CC_BIN" --harness-list -O2 saxpy.c | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['key'])")
grep -q 'extern "C" void saxpy(int n' "$CH_CC_CACHE_DIR/${key:0:2}/${key:2}/candidates/0.cu"
ok $? "the cache keeps the candidate as the model wrote it"

# ---- verified (as a GPU build would record it): emitted and linked --------------------------
"$CH_CC_BIN" --harness-checklist saxpy.c | python3 -c "import json,sys; print(json.dumps(json.load(sys.stdin)[0]))" > checklist.json
export CH_CC_CACHE_DIR="$TEST_DIR/.cache-verified"
"$CH_CC_TEST_BUILD/tests/fakes/cache_seed" "$key" kernel.cu=named.cu checklist.json=checklist.json \
    meta:status=verified meta:name=saxpy meta:kind=c-def meta:agent=openai "meta:design=by hand"
ok $? "a verified entry defining saxpy itself is seeded"
rm -f saxpy.o
make -s CC="$CH_CC_BIN" > v.out 2> v.err
ok $? "the build with it succeeds"
is "$("$CH_CC_BIN" --harness-stats=json | python3 -c "import json,sys; d=json.load(sys.stdin); print(d['hits'], d['kernel_compiles'])")" \
    "1 1" "a hit, and the generated unit was compiled"
is "$(grep -c warning v.err)" 0 "no fallback warning: the kernel is linked"
is "$(nm saxpy.o | awk '$3 == "saxpy" {print $2}')" T "saxpy is the dispatcher, global"
is "$(nm saxpy.o | awk '$3 == "saxpy__ch_launcher" {print $2}')" t \
    "the candidate's saxpy became the unit's private launcher"
./saxpy > run.out 2>&1
ok $? "the program runs correctly (host path: no device here)"
done_testing
