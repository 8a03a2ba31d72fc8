#!/bin/bash
# make CC=ch-cc on a machine with a GPU: the examples get verified kernels that run with
# correct results, the evolution keeps the fastest correct candidate, rebuilds come from the
# cache, pending candidates made without a GPU are verified without asking the agent again,
# and scripted model agents (the fake model server) cannot make a wrong kernel win.
. "$(dirname "$0")/../lib/tap.sh"
require_gpu
export CH_CC_BUDGET=${CH_CC_TEST_BUDGET:-3}
stat() { "$CH_CC_BIN" --harness-stats=json | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
key_of() { "$CH_CC_BIN" --harness-list "$1" | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['key'])"; }
entry_dir() { k=$(key_of "$1"); echo "$CH_CC_CACHE_DIR/${k:0:2}/${k:2}"; }
# prints "best_ms min_correct_ms" from an entry's report.json, in the time ranking compares
# (rank_ms: the kernels alone when timed on device-resident data, else the whole call) among
# candidates timed the same way as the best
best_vs_min() {
    python3 - "$1/report.json" <<'EOF'
import json, sys
ev = json.load(open(sys.argv[1]))["evolution"]
best = [c for c in ev["candidates"] if c["id"] == ev["best"]]
res = best[0].get("kernel_resident") if best else None
ok = [c for c in ev["candidates"] if c["verdict"] == "correct" and c["rank_ms"] is not None
      and c.get("kernel_resident") == res]
print("%s %s" % (best[0]["rank_ms"] if best else "none", min(c["rank_ms"] for c in ok) if ok else "none"))
EOF
}

# ---- the examples, end to end ------------------------------------------------------------------
for ex in saxpy:saxpy.c:saxpy jacobi:jacobi.c:jacobi spec-def:blend.c:blend; do
    IFS=: read -r dir file prog <<< "$ex"
    cp -r "$CH_CC_SRC/examples/$dir" "$TEST_DIR/$dir"
    cd "$TEST_DIR/$dir"
    runs=$(stat gpu_runs)
    make -s CC="$CH_CC_BIN" > build.out 2> build.err
    ok $? "$dir: make CC=ch-cc builds"
    like "$(cat build.err)" "verified kernel linked" "$dir: a verified kernel is linked"
    grep -q "warning" build.err; is $? 1 "$dir: no fallback warning"
    [ "$(stat gpu_runs)" -gt "$runs" ]; ok $? "$dir: candidates ran on the GPU"
    CH_CC_FORCE_GPU=1 CH_CC_TRACE=1 "./$prog" > run.out 2> trace.err
    ok $? "$dir: the program checks its results on the GPU path: correct"
    like "$(sort -u trace.err)" "ch-cc: [a-z0-9_]+: gpu" "$dir: CH_CC_FORCE_GPU: the calls took the GPU path"
    diag "kernel path: $(cat run.out)"
    CH_CC_TRACE=1 "./$prog" > run2.out 2> trace2.err
    ok $? "$dir: with the dispatch by size the program is correct too"
    like "$(sort -u trace2.err)" "ch-cc: [a-z0-9_]+: (gpu|host \((below the size where the GPU wins(, first-call costs included)?|the host path measured faster)\))" \
        "$dir: each call went where the measured costs say"
    diag "dispatched: $(cat run2.out) [$(sort -u trace2.err | tr '\n' ' ')]"
    python3 - "$(entry_dir "$file")/report.json" <<'EOF2'
import json, sys
ev = json.load(open(sys.argv[1]))["evolution"]
best = [c for c in ev["candidates"] if c["id"] == ev["best"]][0]
assert best["host_ms"] and best["host_ms"] > 0 and best["small_ms"] and best["small_ms"] > 0, best
EOF2
    ok $? "$dir: verification measured the host path and a small call for the dispatcher"
    read -r best min <<< "$(best_vs_min "$(entry_dir "$file")")"
    is "$best" "$min" "$dir: the evolution kept the fastest correct candidate ($best ms)"
    # a hit of either kind: the full path's cache hit, or direct mode's (the manifest of the
    # command, which a touch does not invalidate when the content is the same)
    all_hits() { echo $(( $(stat hits) + $(stat direct_hits) )); }
    hits=$(all_hits); runs=$(stat gpu_runs); reqs=$(stat agent_requests); nv=$(stat kernel_compiles)
    sleep 1; touch "$file"
    make -s CC="$CH_CC_BIN" > build2.out 2> build2.err
    is "$(( $(all_hits) - hits )) $(( $(stat gpu_runs) - runs )) $(( $(stat agent_requests) - reqs )) $(( $(stat kernel_compiles) - nv ))" \
       "1 0 0 0" "$dir: rebuild after touch is a cache hit: no GPU run, no agent, no nvcc"
    "./$prog" > /dev/null 2>&1; ok $? "$dir: the rebuilt program is correct"
done

# ---- pending candidates: made without a GPU, verified by the first build with one ---------------
export CH_CC_CACHE_DIR="$TEST_DIR/.cache-pending"
cp -r "$CH_CC_SRC/examples/saxpy" "$TEST_DIR/pending"
cd "$TEST_DIR/pending"
CUDA_VISIBLE_DEVICES= make -s CC="$CH_CC_BIN" saxpy.o 2> nogpu.err
ok $? "without a visible device the build succeeds"
like "$(cat nogpu.err)" "host path linked: nothing can be verified here" "and links the host path"
reqs=$(stat agent_requests)
[ "$reqs" -ge 1 ]; ok $? "the agent proposed candidates ($reqs)"
rm -f saxpy.o
make -s CC="$CH_CC_BIN" 2> gpu.err
like "$(cat gpu.err)" "verified kernel linked" "the build with a GPU verifies the pending candidates"
is "$(stat agent_requests)" "$reqs" "without asking the agent again"
CH_CC_FORCE_GPU=1 CH_CC_TRACE=1 ./saxpy > /dev/null 2> trace.err
ok $? "the program is correct"
like "$(sort -u trace.err)" "saxpy: gpu" "on the GPU path"

# ---- scripted model agents ---------------------------------------------------------------------
llm="$CH_CC_SRC/tests/gpu/llm"
start_llm() { # start_llm NAME FILE.cu... : a fake server replaying those kernels, in order
    python3 "$llm/script.py" "$TEST_DIR/$1.json" "${@:2}"
    python3 "$CH_CC_SRC/tests/fakes/fake_llm.py" --script "$TEST_DIR/$1.json" \
        --record "$TEST_DIR/$1.jsonl" --port 0 --port-file "$TEST_DIR/$1.port" > /dev/null 2>&1 &
    llm_pid=$!
    for _ in $(seq 300); do [ -s "$TEST_DIR/$1.port" ] && break; sleep 0.1; done
    export CH_CC_PROVIDER=openai CH_CC_MODEL=fake CH_CC_API_KEY=test-key \
           CH_CC_API_BASE="http://127.0.0.1:$(cat "$TEST_DIR/$1.port")/v1"
}
stop_llm() { kill "$llm_pid" 2>/dev/null; wait "$llm_pid" 2>/dev/null; }
trap 'stop_llm; _tap_cleanup' EXIT

# first two kernels wrong (formula, unwritten tail), the repair right
export CH_CC_CACHE_DIR="$TEST_DIR/.cache-llm1"
cp -r "$CH_CC_SRC/examples/saxpy" "$TEST_DIR/llm1"
cd "$TEST_DIR/llm1"
start_llm s1 "$llm/saxpy_wrong.cu" "$llm/saxpy_notail.cu" "$llm/saxpy_right.cu"
make -s CC="$CH_CC_BIN" 2> build.err
ok $? "scripted agent (wrong, wrong, right): the build succeeds"
stop_llm
like "$(cat build.err)" "verified kernel linked \(saxpy_right.cu" "the right kernel is linked"
cmp -s "$(entry_dir saxpy.c)/kernel.cu" "$llm/saxpy_right.cu"
ok $? "the cached kernel is the right one, byte for byte"
is "$(wc -l < "$TEST_DIR/s1.jsonl")" 3 "three kernel requests"
python3 - "$TEST_DIR/s1.jsonl" <<'EOF'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
third = json.dumps(reqs[2]["body"])
assert "differ" in third or "tail" in third or "expected" in third, "no correctness feedback"
for r in reqs:
    body = json.dumps(r["body"])
    assert "saxpy_reference" not in body and "seed" not in body.lower(), "isolation broken"
EOF
ok $? "the repair request carried correctness feedback and no reference, data or seed"
./saxpy > /dev/null 2>&1; ok $? "the program is correct"

# a correct parent, then a faster child that skips work: the correct one stays
export CH_CC_CACHE_DIR="$TEST_DIR/.cache-llm2"
cp -r "$CH_CC_SRC/examples/saxpy" "$TEST_DIR/llm2"
cd "$TEST_DIR/llm2"
start_llm s2 "$llm/saxpy_right.cu" "$llm/saxpy_wrong.cu" "$llm/saxpy_fast_wrong.cu"
make -s CC="$CH_CC_BIN" 2> build.err
ok $? "scripted agent (right, wrong, faster-but-wrong child): the build succeeds"
stop_llm
like "$(cat build.err)" "verified kernel linked \(saxpy_right.cu" "the correct parent is kept"
python3 - "$(entry_dir saxpy.c)/report.json" <<'EOF'
import json, sys
ev = json.load(open(sys.argv[1]))["evolution"]
c = {x["id"]: x for x in ev["candidates"]}
assert ev["best"] == 0, ev["best"]
assert c[2]["parent"] == 0 and c[2]["verdict"] == "failed", c[2]
EOF
ok $? "report.json: the child of the correct parent failed and best is the parent"
./saxpy > /dev/null 2>&1; ok $? "the program is correct"
done_testing
