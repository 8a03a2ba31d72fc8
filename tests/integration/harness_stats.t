#!/bin/bash
# Every failure kind is a counter (issue 17, ccache's statistics): a model whose candidate fails
# the static checks, one whose candidate does not compile, and a model that cannot be reached each
# move their own counters in --harness-stats, with the host path linked and the build green. The
# other kinds are moved elsewhere: refusals and pending entries (session_keys.t), cache faults
# (cache_faults.t), remote faults by kind (cache_remote*.t), an object refused (cache_trusted_bad_
# object.t), an offline miss (test_session), GPU stages 2-5 (tests/gpu/).
. "$(dirname "$0")/../lib/tap.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
if have_gpu; then skip_all "a GPU is present: candidates would run their later stages"; fi
cp "$CH_CC_SRC/examples/saxpy/saxpy.c" "$CH_CC_SRC/examples/saxpy/saxpy.h" "$TEST_DIR"/
cd "$TEST_DIR"
ok_cu="$CH_CC_SRC/tests/gpu/candidates/saxpy_ok.cu"
# stage 0 refuses a launcher whose signature is not the entry's; stage 1 (nvcc) an undeclared name
sed 's/launcher(int n, float a/launcher(int n, double a/' "$ok_cu" > static_bad.cu
sed 's/if (i < n)/int z = not_declared_anywhere;\n    if (i < n)/' "$ok_cu" > compile_bad.cu
grep -q 'launcher(int n, double a' static_bad.cu && grep -q not_declared_anywhere compile_bad.cu
ok $? "two broken candidates are made from a correct one"

stats_of() { # stats_of CACHE NAME...: the counters' values, space separated
    CH_CC_CACHE_DIR="$1" "$CH_CC_BIN" --harness-stats=json | python3 -c \
        "import json,sys; d=json.load(sys.stdin); print(' '.join(str(d[n]) for n in sys.argv[1:]))" \
        "${@:2}"
}
llm_pid=
start_llm() { # start_llm SCRIPT.json: a fake model server; its port in ./port
    rm -f port requests.jsonl
    python3 "$CH_CC_SRC/tests/fakes/fake_llm.py" --script "$1" --record requests.jsonl \
        --port 0 --port-file port > /dev/null 2>&1 &
    llm_pid=$!
    for _ in $(seq 50); do [ -s port ] && break; sleep 0.1; done
}
stop_llm() { kill "$llm_pid" 2>/dev/null; wait "$llm_pid" 2>/dev/null; }
build_with_model() { # build_with_model CACHE: saxpy.c built with the fake model as the agent
    CH_CC_CACHE_DIR="$1" CH_CC_PROVIDER=openai CH_CC_MODEL=fake CH_CC_API_KEY=test-key \
        CH_CC_BUDGET=1 CH_CC_API_BASE="http://127.0.0.1:$(cat port)/v1" \
        "$CH_CC_BIN" -O2 -c saxpy.c -o saxpy.o 2> "$1.err"
}
reply_with() { # reply_with FILE.cu SCRIPT.json: every request is answered with the candidate
    python3 - "$1" "$2" <<'PY'
import json, sys
kernel = open(sys.argv[1]).read()
json.dump({"default": {"reply": "Design: one thread per element\n```cuda\n%s```\n" % kernel}},
          open(sys.argv[2], "w"))
PY
}

# ---- a candidate the static checks refuse ---------------------------------------------------
reply_with static_bad.cu static.json
start_llm static.json
build_with_model "$TEST_DIR/c-static"
ok $? "a build whose only candidate fails stage 0 succeeds (host path)"
stop_llm
like "$(cat "$TEST_DIR/c-static.err")" "saxpy: host path linked: no candidate passed verification" \
    "the note says why"
is "$(stats_of "$TEST_DIR/c-static" stage_static_failed stage_compile_failed fallback_failed host_fallbacks)" \
    "1 0 1 1" "stage_static_failed and fallback_failed move, nothing else"

# the failed entry's report.json, as the build wrote it (issue 18's golden fields for a failure)
key=$(CH_CC_CACHE_DIR="$TEST_DIR/c-static" "$CH_CC_BIN" --harness-list -O2 saxpy.c |
    python3 -c "import json,sys; print(json.load(sys.stdin)[0]['key'])")
report="$TEST_DIR/c-static/${key:0:2}/${key:2}/report.json"
is "$(python3 - "$report" "$key" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["evolution"]["candidates"][0]
print(r["status"], r["name"], r["kind"], r["key"] == sys.argv[2], r["agent"], r["model"],
      c["verdict"], c["stage"], len(r["evolution"]["candidates"]))
PY
)" "failed saxpy c-def True openai fake failed static 1" \
    "failed entry: status, name, kind, key, agent, model, and its candidate's verdict and stage"
like "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['summary'])" "$report")" \
    "^Failed: no candidate passed" "and a summary saying so"
like "$(CH_CC_CACHE_DIR="$TEST_DIR/c-static" "$CH_CC_BIN" --harness-explain saxpy)" \
    "outcome +Failed: no candidate passed" "--harness-explain saxpy reads it by name"
! grep -rq "test-key" "$TEST_DIR/c-static"
ok $? "the API key is in no file of the cache"

# ---- a candidate nvcc refuses ---------------------------------------------------------------
reply_with compile_bad.cu compile.json
start_llm compile.json
build_with_model "$TEST_DIR/c-compile"
ok $? "a build whose only candidate fails stage 1 succeeds (host path)"
stop_llm
is "$(stats_of "$TEST_DIR/c-compile" stage_static_failed stage_compile_failed fallback_failed host_fallbacks)" \
    "0 1 1 1" "stage_compile_failed and fallback_failed move"

# ---- a model that answers 500: the agent fails, nothing is recorded ---------------------------
echo '{"default": {"status": 500, "body": {"error": {"message": "down"}}}}' > down.json
start_llm down.json
build_with_model "$TEST_DIR/c-agent"
ok $? "a build whose agent fails succeeds (host path)"
stop_llm
is "$(stats_of "$TEST_DIR/c-agent" fallback_agent fallback_failed refused_translator host_fallbacks)" \
    "1 0 0 1" "fallback_agent moves, not a refusal nor a failure"
is "$(stats_of "$TEST_DIR/c-agent" generations)" 0 "and no entry was recorded (the next build asks again)"
done_testing
