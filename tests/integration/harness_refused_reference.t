#!/bin/bash
# A reference the checks refuse moves refused_reference (issue 17: every failure kind is a
# counter of --harness-stats), whoever wrote it:
# - a model's: the test author of a spec-only entry (the fake model server, scripted) writes,
#   twice, a reference that includes a header the source guard refuses; nothing is recorded (a
#   model may write a better one next time), no kernel is asked for, and the entry, which has
#   no host path without a reference, fails the build;
# - the user's body as the reference program: it calls a function the file does not define, so
#   the reference cannot link; the refusal is recorded and located at the call, and served again
#   from the cache without asking the agent.
# Runs on CPU only: the reference is judged before any candidate reaches a GPU.
. "$(dirname "$0")/../lib/tap.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
unset CH_CC_REMOTE CH_CC_OFFLINE CH_CC_ON_FAIL CH_CC_PROVIDER CH_CC_MODEL CH_CC_API_KEY \
    CH_CC_API_BASE
cd "$TEST_DIR"

stats_of() { # stats_of CACHE NAME...: the counters' values, space separated
    CH_CC_CACHE_DIR="$1" "$CH_CC_BIN" --harness-stats=json | python3 -c \
        "import json,sys; d=json.load(sys.stdin); print(' '.join(str(d[n]) for n in sys.argv[1:]))" \
        "${@:2}"
}

# ---- a model's reference that the source guard refuses ---------------------------------------
cp -r "$CH_CC_SRC/tests/integration/data/specdecl" spec
cd spec
cat > ref_refused.c <<'EOF'
#include <unistd.h>
void axpy_reference(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i] + (float)(getpid() & 0);
}
EOF
# the scripted replies of two builds: specdecl's checklist, then this reference twice (the test
# author's first answer and its second chance)
python3 - script.py ref_refused.c refused.json <<'PY'
import json, sys
src = open(sys.argv[1]).read()
ns = {}
exec(src.split("reference = (")[0].replace("import sys", ""), ns)  # the checklist only
ref = open(sys.argv[2]).read()
build = [{"reply": "```json\n%s\n```" % json.dumps(ns["checklist"])}] + \
    [{"reply": "```c\n%s```\n" % ref}] * 2
json.dump({"steps": build * 2}, open(sys.argv[3], "w"))
PY
ok $? "the fake model's script: a checklist, then a reference including <unistd.h>"
python3 "$CH_CC_SRC/tests/fakes/fake_llm.py" --script refused.json --record requests.jsonl \
    --port 0 --port-file port > /dev/null 2>&1 &
llm_pid=$!
trap 'kill $llm_pid 2>/dev/null; _tap_cleanup' EXIT
for _ in $(seq 300); do [ -s port ] && break; sleep 0.1; done
model() {
    CH_CC_CACHE_DIR="$TEST_DIR/c-model" CH_CC_PROVIDER=openai CH_CC_MODEL=fake \
        CH_CC_API_KEY=test-key CH_CC_BUDGET=1 CH_CC_API_BASE="http://127.0.0.1:$(cat port)/v1" \
        "$CH_CC_BIN" "$@"
}
model -O2 -c axpy.c -o axpy.o 2> axpy.err
is "$?" 1 "a spec-only entry whose reference is refused has no host path: the build fails"
like "$(cat axpy.err)" "axpy.*test_author for 'axpy'.*the reference is refused: includes <unistd.h>" \
    "the error says the model's reference was refused, and why"
is "$(stats_of "$TEST_DIR/c-model" refused_reference refused_translator)" "1 0" \
    "refused_reference moves by 1, refused_translator by 0"
is "$(stats_of "$TEST_DIR/c-model" host_fallbacks fallback_agent fallback_refused)" "1 1 0" \
    "host_fallbacks and fallback_agent move by 1 (not recorded), fallback_refused by 0"
is "$(stats_of "$TEST_DIR/c-model" generations gpu_runs kernel_compiles)" "0 0 0" \
    "nothing generated, no GPU run, no nvcc run"
is "$(wc -l < requests.jsonl)" 3 \
    "three requests: the checklist and the test author twice (no kernel asked for)"
[ ! -e axpy.o ]
ok $? "the refused reference is linked nowhere (no object written)"
model -O2 -c axpy.c -o axpy.o 2> axpy2.err
is "$(stats_of "$TEST_DIR/c-model" refused_reference generations) $(wc -l < requests.jsonl)" \
    "2 0 6" "not recorded: the next build asks again, refused_reference moves again (2)"
kill "$llm_pid" 2>/dev/null
wait "$llm_pid" 2>/dev/null
cd "$TEST_DIR"

# ---- the user's body as the reference: it calls a function this file does not define --------
cat > helper.c <<'EOF'
float scale_of(int i);
#pragma harness extent(x: n)
void scaled(int n, float *x)
{
    for (int i = 0; i < n; i++)
        x[i] = x[i] * scale_of(i);
}
EOF
export CH_CC_CACHE_DIR="$TEST_DIR/c-body" CH_CC_BUDGET=1
"$CH_CC_BIN" -O2 -c helper.c -o helper.o 2> helper.err
ok $? "a build whose reference cannot link succeeds (host path)"
like "$(cat helper.err)" "helper.c:6:[0-9]+: warning: scaled: host path linked: scaled calls 'scale_of', which this file does not define" \
    "the refusal is located at the call"
is "$(stats_of "$TEST_DIR/c-body" refused_reference refused_translator fallback_refused host_fallbacks)" \
    "1 0 1 1" "refused_reference and fallback_refused move by 1, refused_translator by 0"
is "$(stats_of "$TEST_DIR/c-body" generations gpu_runs)" "1 0" "the refusal is recorded, no GPU run"
requests=$(stats_of "$TEST_DIR/c-body" agent_requests)
# another -o: not direct mode's manifest of the first command, the full path's cache lookup
"$CH_CC_BIN" -O2 -c helper.c -o helper2.o 2> helper2.err
ok $? "the rebuild succeeds"
is "$(stats_of "$TEST_DIR/c-body" refused_reference hits agent_requests)" "2 1 $requests" \
    "served from the cache: refused_reference moves again (2), a hit, no new agent request"
done_testing
