#!/bin/bash
# What a user reads after a build (issue 18), on a machine without a GPU: report.json of a
# pending and a refused entry, --harness-explain by name, key prefix, key and an ambiguous
# prefix, and the --harness-report page (one section per entry, SVG plots, the kernel
# highlighted) rendered by headless Chromium, with a hostile spec that must stay text.
. "$(dirname "$0")/../lib/tap.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
if have_gpu; then skip_all "a GPU is present: the entries would verify, not wait"; fi
export CH_CC_BUDGET=1 # one candidate per generation keeps the nvcc time down
export CH_CC_API_KEY=sk-h5-must-never-appear
seed="$CH_CC_TEST_BUILD/tests/fakes/cache_seed"
key_of() { "$CH_CC_BIN" --harness-list "$1" | python3 -c "import json,sys; print([e['key'] for e in json.load(sys.stdin) if e['name'] == '$2'][0])"; }
cd "$TEST_DIR"
cat > kernels.c <<'SRC'
#include <stddef.h>

#pragma harness "scale </script><script>document.title='pwned'</script><img src=x onerror=\"document.title='pwned'\">"
void scale(int n, float a, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * y[i];
}

#pragma harness
void weird(int n, float *y)
{
    for (int i = 1; i < n; i++)
        y[i] = y[i - 1] * 0.5f + mystery(i);
}

#pragma harness
void offset(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = x[i] + 1.0f;
}
SRC

# ---- the build writes report.json for a pending and a refused entry, and the page ----------
# offset is seeded first as verified (as a GPU build records it): the build takes it from the
# cache and emits it; its report.json carries the winner's times and a dispatch curve
okey=$(key_of kernels.c offset)
cat > offset.cu <<'CU'
#include <cuda_runtime.h>
// one thread per element: y[i] = x[i] + 1 </pre><b>bold</b>
__global__ void offset_kernel(int n, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i] + 1.0f;
}
extern "C" void offset_launcher(int n, const float *x, float *y)
{
    offset_kernel<<<(n + 255) / 256, 256>>>(n, x, y);
}
CU
python3 - "$okey" > offset-report.json <<'PY'
import json, sys
print(json.dumps({"report_format": 2, "status": "verified", "name": "offset", "kind": "c-def",
  "key": sys.argv[1], "agent": "builtin",
  "evolution": {"stop_reason": "plateau", "best": 1, "candidates": [
     {"id": 0, "round": 0, "verdict": "failed", "stage": "correctness", "rank_ms": None},
     {"id": 1, "round": 0, "verdict": "correct", "stage": "performance", "rank_ms": 0.5,
      "stages": [{"name": "static", "status": "pass", "seconds": 0.01},
                 {"name": "compile", "status": "pass", "seconds": 2.5}]},
     {"id": 2, "round": 1, "verdict": "correct", "stage": "performance", "rank_ms": 0.7}]},
  "curve": [{"round": 1, "best_ms": 0.5, "fraction_of_floor": 0.6},
            {"round": 2, "best_ms": 0.5, "fraction_of_floor": 0.6}],
  "winner": {"candidate": 1, "variant": "grid-stride",
             "timing": {"launcher_ms": 0.5, "host_ms": 2.0, "kernel_ms": 0.05,
                        "floor_ms": 0.03, "fraction_of_floor": 0.6, "kernel_resident": True}},
  "dispatch": {"gpu_min_size": 30000, "size": "n",
               "first_calls": {"gpu_min_size_buffers": 200000, "gpu_min_size_cold": 50000000,
                               "device_setup_ms": 180.5, "first_use_ms_per_size": 1e-06},
               "curve": [{"size": 1000, "host_ms": 0.01, "call_ms": 0.2},
                         {"size": 100000, "host_ms": 0.5, "call_ms": 0.3},
                         {"size": 10000000, "host_ms": 40, "call_ms": 9}]}}))
PY
"$seed" "$okey" kernel.cu=offset.cu report.json=offset-report.json meta:status=verified \
    meta:name=offset meta:kind=c-def meta:agent=builtin "meta:design=grid-stride"
ok $? "a verified entry for offset is seeded"

CH_CC_REPORT_DIR="$TEST_DIR/auto" "$CH_CC_BIN" -c kernels.c -o kernels.o > build.out 2> build.err
ok $? "the build without a GPU succeeds (host paths)"
[ -s auto/kernels.c.html ]; ok $? "report_dir: the build wrote its page"

skey=$(key_of kernels.c scale)
wkey=$(key_of kernels.c weird)
report_field() { # KEY PYTHON-EXPRESSION over r
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" \
        "$CH_CC_CACHE_DIR/${1:0:2}/${1:2}/report.json"
}
is "$(report_field "$skey" "r['status'], r['kind'], r['name'], r['key'] == '$skey'")" \
    "pending spec-def scale True" "pending entry: status, kind, name and key"
like "$(report_field "$skey" "r['spec']")" "</script><script>" "the spec is recorded as written"
like "$(report_field "$skey" "r['hashed']")" "signature [0-9]+:void scale\(int n, float a, float \*y\)" \
    "what the key hashed, field by field"
is "$(report_field "$skey" "len(r['evolution']['candidates'][0]['stages']), r['curve'][0]['pending']")" \
    "6 1" "each candidate has its six stages; the curve counts the pending one"
is "$(report_field "$skey" "r['checklist']['name'], r['provenance']['reference_by'], r['agent']")" \
    "scale the user builtin" "checklist, provenance and agent"
is "$(report_field "$wkey" "r['status'], r['reason']['line'], r['reason']['col']")" \
    "unsupported 14 34" "refused entry: the reason is located at the call"
like "$(report_field "$wkey" "r['summary']")" "^Refused: .*mystery" "and summarized in a sentence"
! grep -rq "sk-h5-must-never-appear" "$CH_CC_CACHE_DIR" auto
ok $? "no secret in any report or page"

# ---- explain: by name, with the file, by key, by prefix, ambiguous prefix ------------------
"$CH_CC_BIN" --harness-explain weird > by-name.out 2>&1
ok $? "explain by function name (from the cache)"
like "$(cat by-name.out)" "reason +kernels.c:14:34: weird calls 'mystery'" "it says why and where"
"$CH_CC_BIN" --harness-explain scale kernels.c > by-file.out 2>&1
ok $? "explain by name in a file"
like "$(cat by-file.out)" "key +$skey" "the file's entry is the one explained"
like "$(cat by-file.out)" "outcome +Pending: 1 candidate" "the outcome in one sentence"
is "$("$CH_CC_BIN" --harness-explain "${skey:0:8}" | head -1)" "key           $skey" "explain by key prefix"
is "$("$CH_CC_BIN" --harness-explain="$skey" | head -1)" "key           $skey" "explain by full key"
# a second entry whose key shares the prefix makes it ambiguous
twin="${skey:0:8}$(printf '%024d' 7)"
"$seed" "$twin" meta:status=failed meta:name=twin >/dev/null
"$CH_CC_BIN" --harness-explain "${skey:0:8}" > ambiguous.out 2>&1
is $? 1 "an ambiguous prefix is an error"
like "$(cat ambiguous.out)" "ambiguous: 2 cache entries match" "it says so"
grep -q "  $skey" ambiguous.out && grep -q "  $twin" ambiguous.out
ok $? "and lists the candidates"
"$CH_CC_BIN" --harness-explain offset > offset.out 2>&1
like "$(cat offset.out)" "first calls: from 200000 while its device buffers are to be allocated, from 50000000 while the device is not set up \(set-up 180.5 ms\)" \
    "explain shows the thresholds of a process's first calls"
# an entry stored by an older ch-cc: its report.json has only status, evolution and the
# verification line (no name, kind, key or report_format); the cache meta names it
oldkey=0ddba11cafe0ddba11cafe0ddba11caf
cat > old-report.json <<'JSON'
{"status": "verified", "summary": "verified: 3.2x faster than the host path",
 "evolution": {"candidates": [{"id": 0, "round": 0, "verdict": "correct", "rank_ms": 0.4}]}}
JSON
"$seed" "$oldkey" report.json=old-report.json meta:status=verified meta:name=oldie \
    meta:kind=c-def meta:agent=builtin >/dev/null
"$CH_CC_BIN" --harness-explain oldie > old.out 2>&1
ok $? "explain by name of an entry whose report is from an older format"
like "$(cat old.out)" "key +$oldkey" "the name finds its key"
like "$(cat old.out)" "kind +c-def" "fields the old report lacks come from the cache meta"
like "$(cat old.out)" "outcome +A verified GPU kernel \(1 candidate tried\)\." \
    "the outcome sentence from what the old report holds"
like "$(cat old.out)" "verification +verified: 3.2x faster" "and its verification line"
"$CH_CC_BIN" --harness-explain nosuchfunction > none.out 2>&1
is $? 1 "an unknown name is an error"
like "$(cat none.out)" "no cache entry has the key, key prefix or function name 'nosuchfunction'" \
    "that says what was looked for"

# ---- the page ------------------------------------------------------------------------------
"$CH_CC_BIN" --harness-report="$TEST_DIR/page" kernels.c > report.out 2>&1
ok $? "--harness-report writes the page"
like "$(cat report.out)" "page/kernels.c.html \(3 entries\)" "and says where"
page="$TEST_DIR/page/kernels.c.html"
if ! command -v chromium >/dev/null; then
    skip "the page rendered by Chromium" "chromium not installed (make deps)"
else
    chrome() { timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$TEST_DIR/chrome" \
        --enable-logging=stderr --v=0 "$@" 2> "$TEST_DIR/chrome.err"; }
    chrome --dump-dom "file://$page" > dom.html
    ok $? "Chromium loads the page"
    python3 - dom.html > dom.txt <<'PY'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.tags = {}; s.classes = {}; s.title = ""; s.in_title = False
    def handle_starttag(s, tag, attrs):
        s.tags[tag] = s.tags.get(tag, 0) + 1
        s.in_title = tag == "title" and s.tags.get("svg", 0) == 0
        for k, v in attrs:
            if k == "class":
                for c in v.split(): s.classes[c] = s.classes.get(c, 0) + 1
    def handle_data(s, d):
        if s.in_title and not s.title: s.title = d
p = P(); p.feed(open(sys.argv[1]).read())
print("sections", p.tags.get("section", 0))
print("svg", p.tags.get("svg", 0))
print("script", p.tags.get("script", 0), "img", p.tags.get("img", 0), "b", p.tags.get("b", 0))
for c in ["plot-evolution", "plot-dispatch", "fill", "stages", "tok-cuda", "tok-com", "outcome", "pragma",
          "kernel-note", "threshold", "warm", "buffers", "cold"]:
    print(c, p.classes.get(c, 0))
print("title", p.title)
PY
    is "$(grep ^sections dom.txt)" "sections 3" "one section per entry"
    is "$(grep ^svg dom.txt)" "svg 3" "SVG plots: evolution of the pending and the verified entry, dispatch of the verified one"
    is "$(grep -E '^plot-(evolution|dispatch)' dom.txt | tr '\n' ' ')" "plot-evolution 2 plot-dispatch 1 " \
        "plots of the right kind"
    is "$(grep -E '^(fill|stages|outcome|pragma) ' dom.txt | tr '\n' ' ')" "fill 1 stages 2 outcome 3 pragma 3 " \
        "floor bar, stage timelines, outcome sentences and source lines"
    is "$(grep -E '^(threshold|warm|buffers|cold) ' dom.txt | tr '\n' ' ')" \
        "threshold 3 warm 2 buffers 2 cold 2 " \
        "the dispatch plot draws and labels the warm, buffers and cold thresholds"
    grep -q "from size 200000 while its device buffers are to be allocated, from size 50000000 while the device is not set up (its set-up: 180.5 ms)" dom.html
    ok $? "and says where the GPU path starts for a process's first calls"
    [ "$(grep -E '^tok-cuda' dom.txt | cut -d' ' -f2)" -ge 4 ]
    ok $? "the kernels are highlighted"
    is "$(grep -E '^kernel-note' dom.txt)" "kernel-note 1" \
        "the pending entry shows its candidate, marked as not verified"
    is "$(grep ^script dom.txt)" "script 0 img 0 b 0" "nothing from an entry became an element"
    is "$(grep ^title dom.txt)" "title ch-cc report: kernels.c" "no script ran (the title is ours)"
    grep -q "&lt;/script&gt;&lt;script&gt;document.title" dom.html
    ok $? "the hostile spec is shown as text"
    ! grep -q "CONSOLE" "$TEST_DIR/chrome.err"
    ok $? "no console messages (no script, no failed load)"
    chrome --screenshot="$TEST_DIR/page.png" --window-size=1200,3000 "file://$page" >/dev/null
    [ -s "$TEST_DIR/page.png" ] && head -c 8 "$TEST_DIR/page.png" | grep -q PNG
    ok $? "the page renders to a PNG"
fi
done_testing
