#!/bin/bash
# The ninth red team's catalog (tests/data/attacks9, RESULTS.md there): model-written candidates
# that would run host code, keep state across calls or tell verification from the user's
# program; hostile test authors' references; a repository's .ch-cc.conf; a shared file://
# remote; user files and disk faults. An attack that is refused or contained has a plain
# assertion that fails if the defence breaks; one that gets through has a TODO assertion of the
# defence it lacks (so the suite stays green and the gap is recorded).
# Without a GPU candidates stop at "pending" after stages 0-1; the attacks that need a GPU run
# to be judged say so in RESULTS.md. Needs nvcc; the disk-full cases need root (tmpfs).
. "$(dirname "$0")/../lib/tap.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
unset CH_CC_REMOTE CH_CC_OFFLINE CH_CC_ON_FAIL CH_CC_PROVIDER CH_CC_MODEL CH_CC_API_KEY \
    CH_CC_API_BASE CH_CC_TRUSTED_KEYS CH_CC_SIGN_KEY CH_CC_REMOTE_ONLY_READ CH_CC_MAX_SIZE \
    CH_CC_KEEP CH_CC_BUDGET CH_CC_QUIET
A="$CH_CC_SRC/tests/data/attacks9"
SEED="$CH_CC_TEST_BUILD/tests/fakes/cache_seed"

# todo COND NAME: an assertion of a defence ch-cc does not have yet (TAP TODO: never a failure)
todo() {
    _tap_n=$((_tap_n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $_tap_n - $2 # TODO attacks9 gap"; else echo "not ok $_tap_n - $2 # TODO attacks9 gap"; fi
}
mounted=""
cleanup9() {
    [ -n "${llm_pid:-}" ] && kill "$llm_pid" 2> /dev/null
    [ -n "$mounted" ] && umount "$mounted" 2> /dev/null
    _tap_cleanup
}
trap cleanup9 EXIT

cp -r "$CH_CC_SRC/examples/saxpy" "$TEST_DIR/app"
cd "$TEST_DIR/app" || exit 1
mkdir -p "$TEST_DIR/v"

# ---- candidates: --harness-verify, two at a time ---------------------------------------------
verify_one() { # verify_one NAME: the verdict of tests/data/attacks9/NAME.cu in v/NAME.out
    CH_CC_CACHE_DIR="$TEST_DIR/vc-$1" "$CH_CC_BIN" --harness-verify="$A/$1.cu" saxpy.c \
        > "$TEST_DIR/v/$1.out" 2>&1
    echo $? > "$TEST_DIR/v/$1.rc"
}
cands=$(cd "$A" && ls c[0-9]*.cu | sed 's/\.cu$//')
set -- $cands
while [ $# -gt 0 ]; do
    verify_one "$1" &
    p1=$!
    p2=""
    if [ $# -gt 1 ]; then
        verify_one "$2" &
        p2=$!
        shift
    fi
    shift
    wait $p1 ${p2:+$p2}
done
out() { cat "$TEST_DIR/v/$1.out"; }
rc() { cat "$TEST_DIR/v/$1.rc"; }
# refused NAME STAGE REGEX WHAT: exit 1, the stage failed, with the message
refused() {
    if [ "$(rc "$1")" = 1 ] && out "$1" | grep -Eq "stage $2 .* +FAIL" && out "$1" | grep -Eq -- "$3"; then
        ok 0 "$1: $4"
    else
        ok 1 "$1: $4"
        diag "$(out "$1" | head -12)"
    fi
}
# judged NAME: refused at stage 0 or 1 (what a gap's TODO expects)
judged() { [ "$(rc "$1")" = 1 ] && out "$1" | grep -Eq "stage [01] [a-z]+ +FAIL"; }

refused c01_inline_var_init 1 "object check: host code runs at program start \(\.init_array" \
    "an inline variable's dynamic initialiser is a constructor (object check)"
refused c02_template_static_member 1 "object check: host code runs at program start \(\.init_array" \
    "a template static member's initialiser is a constructor (object check)"
refused c03_redefine_extname 1 "object check: host code calls 'system'" \
    "pragma redefine_extname free system: the object calls system, refused"
refused c04_pragma_op_extname 1 "object check: host code calls 'system'" \
    "_Pragma(redefine_extname) from a macro: the object calls system, refused"
[ ! -e ch9-c03-ran ] && [ ! -e ch9-c04-ran ]
ok $? "c03/c04: the renamed system() never ran"
refused c05_thread_local_counter 0 "keeps the number 'ch_calls' across calls" \
    "a thread_local counter is kept state"
refused c06_static_local_object 0 "keeps 'c' across calls and is neither a buffer" \
    "a function-local static object is kept state"
refused c07_mallocarray_residue 0 "'cudaMallocArray' allocates a CUDA array, which cannot be made to start zeroed" \
    "cudaMallocArray residue: a CUDA array (no zeroing wrapper) is refused by the hardening"
refused c08_date_timebomb 0 "__DATE__ is not allowed: it is the compiler's date" \
    "c08: a __DATE__ time bomb is refused at stage 0 (recompiled later, it would change)"
like "$(out c09_file_name_detect)" "verdict: (pending|pass)" \
    "c09: __FILE__ passes stages 0-1 (contained below: the linked unit reads it as verified)"
refused c10_weak_clock_gettime 0 "reads a clock \(clock_gettime\)" \
    "a weak clock_gettime definition is refused"
like "$(out c11_aligned_new_replacement)" "verdict: (pending|pass)" \
    "c11: an aligned operator new replacement passes stages 0-1 (contained below: made local)"
refused c12_init_array_slot 0 "uses a function as a value" \
    "an .init_array slot written as a data word takes a function's address: refused"
todo "$(judged c13_guard_bytes_counter; echo $?)" \
    "c13: a kernel that reads and writes y[n] (the runtime's kept guard bytes) is refused"
refused c14_stream_get_device 0 "gives 'cudaStreamGetDevice' a place to write its answer that is not a local" \
    "c14: cudaStreamGetDevice deciding a kernel argument is refused like cudaGetDevice"
refused c15_pitch_probe 0 "launches 'saxpy_kernel' with a value that depends on .*kept state: 'cudaMallocPitch'" \
    "c15: a cudaMallocPitch pitch (a property of the device) deciding a result is refused"
refused c16_driver_proc_address 0 "calls 'cuGetProcAddress" "cuGetProcAddress is not allowed"
refused c17_launch_host_function 0 "uses a function as a value" \
    "cudaLaunchKernel given a host function (std::abort) is refused"
refused c18_graph_generic_host_node 0 "calls 'cudaGraphCreate', which is not on the host allow-list" \
    "a host node through the generic graph API is refused (graphs are not allowed)"
refused c19_setjmp_longjmp 0 "calls '_setjmp'" "setjmp/longjmp are refused"
refused c20_ucn_identifier 0 "cannot be read as C\+\+ \(character 'y' cannot be specified by a universal character name" \
    "an identifier spelled with a UCN of a basic character does not parse: refused"
refused c21_managed_counter 0 "declares the device variable 'ch_calls' of static storage" \
    "a __managed__ counter is refused"
refused c22_cpu_supports 0 "calls '__builtin_cpu_supports'" \
    "__builtin_cpu_supports (host CPU detection) is refused"
like "$(out c23_ifdef_emit_macro)" "verdict: (pending|pass)" \
    "c23: ifdef CH_RUNTIME_H passes stages 0-1 (contained below: no macro precedes it there)"
like "$(out c24_line_number_detect)" "verdict: (pending|pass)" \
    "c24: __LINE__ passes stages 0-1 (contained below: the linked unit keeps its lines)"

# ---- c09 and c11 emitted: a GPU build's verified entry, seeded, then linked ------------------
seed_verified() { # seed_verified CAND CACHE: the candidate recorded as verified for saxpy
    local key
    key=$(CH_CC_CACHE_DIR="$2" "$CH_CC_BIN" --harness-list -O2 saxpy.c |
        python3 -c "import json,sys; print(json.load(sys.stdin)[0]['key'])")
    CH_CC_CACHE_DIR="$2" "$CH_CC_BIN" --harness-checklist saxpy.c |
        python3 -c "import json,sys; print(json.dumps(json.load(sys.stdin)[0]))" > checklist.json
    # (a test fake: its own leaks are not this test's subject)
    ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" CH_CC_CACHE_DIR="$2" \
        "$SEED" "$key" kernel.cu="$A/$1.cu" checklist.json=checklist.json \
        meta:status=verified meta:name=saxpy meta:kind=c-def meta:agent=openai \
        "meta:design=by hand"
}
has_float() { # has_float OBJ VALUE: the object holds VALUE's float32 bytes
    python3 -c "import struct,sys; sys.exit(0 if struct.pack('<f', float(sys.argv[2])) in open(sys.argv[1],'rb').read() else 1)" "$1" "$2"
}
# emitted CAND VALUE: the seeded entry links (an ok), and whether the user's object holds the
# float VALUE that the candidate adds only when it knows it is not being verified
emitted() {
    seed_verified "$1" "$TEST_DIR/e-$1" &&
        CH_CC_CACHE_DIR="$TEST_DIR/e-$1" "$CH_CC_BIN" -O2 -c saxpy.c -o "e-$1.o" 2> "e-$1.err"
    ok $? "${1%%_*}: the seeded verified entry links"
    ! has_float "e-$1.o" "$2"
    ok $? "${1%%_*}: the linked kernel is the one verified (no $2 added in the user's object)"
}
if [ -x "$SEED" ]; then
    emitted c09_file_name_detect 1234.5
    emitted c23_ifdef_emit_macro 2345.5
    emitted c24_line_number_detect 3456.5
    seed_verified c11_aligned_new_replacement "$TEST_DIR/e11" &&
        CH_CC_CACHE_DIR="$TEST_DIR/e11" "$CH_CC_BIN" -O2 -c saxpy.c -o e11.o 2> e11.err
    ok $? "c11: the seeded verified entry links"
    is "$(nm e11.o | awk '$3 == "_ZnwmSt11align_val_t" {print $2}')" t \
        "c11: the replacement operator new is local in the user's object (privatized)"
else
    skip "c09/c11/c23/c24 emitted" "cache_seed not built (make asan)"
fi

# ---- hostile test authors' references (the fake model server) -------------------------------
cp -r "$CH_CC_SRC/tests/integration/data/specdecl" "$TEST_DIR/spec"
cd "$TEST_DIR/spec" || exit 1
ref_build() { # ref_build NAME: axpy.c built with NAME as the test author's reference; prog-NAME
    python3 - script.py "$A/$1.c" "$A/base.cu" "$1.json" << 'PY'
import json, sys
ns = {}
exec(open(sys.argv[1]).read().split("reference = (")[0].replace("import sys", ""), ns)
ref = open(sys.argv[2]).read()
kernel = open(sys.argv[3]).read().replace("saxpy", "axpy")
steps = [{"reply": "```json\n%s\n```" % json.dumps(ns["checklist"])},
         {"reply": "```c\n%s```\n" % ref}, {"reply": "Design: hand\n```cuda\n%s```\n" % kernel}]
json.dump({"steps": steps}, open(sys.argv[4], "w"))
PY
    rm -f port
    python3 "$CH_CC_SRC/tests/fakes/fake_llm.py" --script "$1.json" --record "$1.jsonl" \
        --port 0 --port-file port > /dev/null 2>&1 &
    llm_pid=$!
    for _ in $(seq 300); do [ -s port ] && break; sleep 0.1; done
    CH_CC_CACHE_DIR="$TEST_DIR/rc-$1" CH_CC_PROVIDER=openai CH_CC_MODEL=fake CH_CC_API_KEY=k \
        CH_CC_BUDGET=1 CH_CC_RETRIES=0 CH_CC_API_BASE="http://127.0.0.1:$(cat port)/v1" \
        "$CH_CC_BIN" -O2 -c axpy.c -o "axpy-$1.o" 2> "$1.err"
    local s=$?
    kill "$llm_pid" 2> /dev/null
    wait "$llm_pid" 2> /dev/null
    llm_pid=""
    [ $s = 0 ] && cc -O2 main.c "axpy-$1.o" -o "prog-$1"
}
ref_build r01_ref_detects_hostpath_macro
[ $? != 0 ] && [ ! -e prog-r01_ref_detects_hostpath_macro ]
ok $? "r01: no program is linked with a reference that tests a name it does not define"
grep -q "#ifdef on 'axpy_reference' is not allowed" r01_ref_detects_hostpath_macro.jsonl
ok $? "r01: the reference is refused where it tests the name, and the model is told (the name may be a macro where it is linked)"
ref_build r02_ref_detects_file_name
ok $? "r02: the build with the reference succeeds"
is "$(./prog-r02_ref_detects_file_name)" "3 5 7 9 11" \
    "r02: the user's host path computes what was verified (it compares __FILE__ with ref_impl.c)"
ref_build r04_ref_line_number
ok $? "r04: the build with the reference succeeds"
is "$(./prog-r04_ref_line_number)" "3 5 7 9 11" \
    "r04: the user's host path computes what was verified (it compares __LINE__ with 6)"
ref_build r03_ref_optimisation_probe
ok $? "r03: the build with the reference succeeds"
is "$(./prog-r03_ref_optimisation_probe)" "3 5 7 9 11" \
    "r03: __builtin_constant_p cannot tell: the host path is compiled at -O2 as verified"
# r05: where a kernel is linked, the test author's reference is compiled alone as C, as it was
# verified (a kernel's unit used to paste it into the .cu, read as C++: sizeof('a') is 1 there)
sed 's/saxpy/axpy/g' "$A/base.cu" > k-axpy.cu
r05() { CH_CC_CACHE_DIR="$TEST_DIR/r05" "$CH_CC_BIN" "$@"; }
key=$(r05 --harness-list -O2 axpy.c | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['key'])")
r05 --harness-checklist axpy.c |
    python3 -c "import json,sys; print(json.dumps(json.load(sys.stdin)[0]))" > r05.json
ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" CH_CC_CACHE_DIR="$TEST_DIR/r05" \
    "$SEED" "$key" kernel.cu=k-axpy.cu reference.c="$A/r05_ref_char_constant.c" \
    checklist.json=r05.json meta:status=verified meta:name=axpy meta:kind=spec-decl \
    meta:agent=openai "meta:design=by hand" &&
    r05 -O2 -c axpy.c -o axpy-r05.o 2> r05.err && r05 -O2 main.c axpy-r05.o -o prog-r05 2>> r05.err
ok $? "r05: a seeded verified kernel with its test author's reference links"
is "$(CH_CC_FORCE_HOST=1 ./prog-r05)" "3 5 7 9 11" \
    "r05: the host path beside a kernel computes what was verified (compiled as C)"
cd "$TEST_DIR/app" || exit 1

# ---- a model's design line and candidate text in the report page and --harness-explain -------
python3 - "$A/x01_report_markup.cu" x.json << 'PY'
import json, sys
k = open(sys.argv[1]).read()
design = ("Design: one thread per element \x1b]52;c;Y2g5\x07\x1b]0;ch9\x07\x1b[2J "
          "<script>document.title='ch9'</script><b onmouseover=alert(2)>x</b>")
json.dump({"default": {"reply": "%s\n```cuda\n%s```\n" % (design, k)}}, open(sys.argv[2], "w"))
PY
rm -f port
python3 "$CH_CC_SRC/tests/fakes/fake_llm.py" --script x.json --record x.jsonl --port 0 \
    --port-file port > /dev/null 2>&1 &
llm_pid=$!
for _ in $(seq 300); do [ -s port ] && break; sleep 0.1; done
export CH_CC_CACHE_DIR="$TEST_DIR/xc"
CH_CC_PROVIDER=openai CH_CC_MODEL=fake CH_CC_API_KEY=k CH_CC_BUDGET=1 CH_CC_RETRIES=0 \
    CH_CC_API_BASE="http://127.0.0.1:$(cat port)/v1" "$CH_CC_BIN" -O2 -c saxpy.c -o x.o 2> x.err
ok $? "x01/x02: the build with the model's marked-up candidate succeeds (pending)"
kill "$llm_pid" 2> /dev/null
wait "$llm_pid" 2> /dev/null
llm_pid=""
"$CH_CC_BIN" --harness-report=rep -O2 saxpy.c > /dev/null 2>&1
[ -s rep/saxpy.c.html ] && ! grep -Eq "<script|<img|<b onmouseover" rep/saxpy.c.html
ok $? "x01: the report page shows the model's markup as text (escaped)"
"$CH_CC_BIN" --harness-explain saxpy > explain.out 2>&1
grep -q "one thread per element" explain.out
ok $? "x02: --harness-explain prints the model's design line"
! grep -q $'[\x01-\x08\x0b-\x1f\x7f]' explain.out x.err && grep -q 'element \\x1b\]52;c;Y2g5\\x07' explain.out
ok $? "x02: with no terminal control sequences (OSC 52 clipboard write, title, clear screen), shown escaped"
export CH_CC_CACHE_DIR="$TEST_DIR/.cache"

# ---- a repository's pragma: budget(100000) -------------------------------------------------------
mkdir -p "$TEST_DIR/s01"
cp "$A/s01_budget_clause.c" "$TEST_DIR/s01/scale.c"
python3 - "$A/s01_reply.cu" "$TEST_DIR/s01/s.json" << 'PY'
import json, sys
json.dump({"default": {"reply": "Design: x\n```cuda\n%s```\n" % open(sys.argv[1]).read()}},
          open(sys.argv[2], "w"))
PY
rm -f port
python3 "$CH_CC_SRC/tests/fakes/fake_llm.py" --script "$TEST_DIR/s01/s.json" \
    --record "$TEST_DIR/s01/r.jsonl" --port 0 --port-file port > /dev/null 2>&1 &
llm_pid=$!
for _ in $(seq 300); do [ -s port ] && break; sleep 0.1; done
# the user's own budget is 3 rounds; the wall-time limit (10 s here) ends what the clause starts
(cd "$TEST_DIR/s01" && CH_CC_CACHE_DIR="$TEST_DIR/s01/c" CH_CC_PROVIDER=openai CH_CC_MODEL=fake \
    CH_CC_API_KEY=k CH_CC_BUDGET=3 CH_CC_TIME=10 CH_CC_API_BASE="http://127.0.0.1:$(cat "$TEST_DIR/app/port")/v1" \
    timeout 120 "$CH_CC_BIN" -c scale.c -o scale.o) 2> s01.err
ok $? "s01: the build ends with the host path"
kill "$llm_pid" 2> /dev/null
wait "$llm_pid" 2> /dev/null
llm_pid=""
n=$(wc -l < "$TEST_DIR/s01/r.jsonl")
diag "s01: $n model requests for one entry (the user's budget: 3)"
[ "$n" -le 3 ]
ok $? "s01: a repository's budget(100000) clause does not raise the user's budget (3 requests at most)"
is "$(grep -c "scale\.c:6:24: budget(100000) is above the budget in effect, 3 rounds .*capped at 3" s01.err)" 1 \
    "s01: with one warning naming the clause"

# ---- a repository's .ch-cc.conf ---------------------------------------------------------------
mkdir -p "$TEST_DIR/repo" "$TEST_DIR/keep-tmp"
cat > "$TEST_DIR/repo/scale.c" << 'EOF'
#pragma harness
void scale(int n, float *x)
{
    for (int i = 0; i < n; i++)
        x[i] = 2.0f * x[i];
}
EOF
CH_CC_CACHE_DIR="$TEST_DIR/shared" "$CH_CC_BIN" -O2 -c saxpy.c -o user.o 2> /dev/null
skey=$(CH_CC_CACHE_DIR="$TEST_DIR/shared" "$CH_CC_BIN" --harness-list -O2 saxpy.c |
    python3 -c "import json,sys; print(json.load(sys.stdin)[0]['key'])")
[ -d "$TEST_DIR/shared/${skey:0:2}/${skey:2}" ]
ok $? "cfg01: the user's build left its entry in the user's cache"
printf 'max_size = 1K\n' > "$TEST_DIR/repo/.ch-cc.conf"
(cd "$TEST_DIR/repo" && CH_CC_CACHE_DIR="$TEST_DIR/shared" "$CH_CC_BIN" -O2 -c scale.c -o scale.o) \
    2> cfg01.err
like "$(cat cfg01.err)" "\.ch-cc\.conf: ignoring setting 'max_size'" \
    "cfg01: a repository's max_size = 1K is ignored with a warning naming the file"
[ -d "$TEST_DIR/shared/${skey:0:2}/${skey:2}" ]
ok $? "cfg01: the user's cache entry survives the repository's build"
printf 'keep = 1\n' > "$TEST_DIR/repo/.ch-cc.conf"
(cd "$TEST_DIR/repo" && TMPDIR="$TEST_DIR/keep-tmp" CH_CC_CACHE_DIR="$TEST_DIR/keepc" \
    "$CH_CC_BIN" -O2 -c scale.c -o scale.o) 2> cfg02.err
left=$(find "$TEST_DIR/keep-tmp" -maxdepth 1 -name 'ch-cc-*' | wc -l)
diag "cfg02: $left verification directories kept in TMPDIR"
[ "$left" = 0 ] && grep -q "\.ch-cc\.conf: ignoring setting 'keep'" cfg02.err
ok $? "cfg02: a repository's keep = 1 is ignored (it leaves every verification directory for good)"

# ---- user files ------------------------------------------------------------------------------
mkdir -p "$TEST_DIR/sweep-tmp/ch-cc-bench-20261207-run1"
echo precious > "$TEST_DIR/sweep-tmp/ch-cc-bench-20261207-run1/results.csv"
echo notes > "$TEST_DIR/sweep-tmp/ch-cc-notes-4000000-draft"
TMPDIR="$TEST_DIR/sweep-tmp" CH_CC_CACHE_DIR="$TEST_DIR/sweepc" "$CH_CC_BIN" -O2 -c saxpy.c \
    -o sweep.o 2> /dev/null
ok $? "f01: a build with those in TMPDIR succeeds"
[ -f "$TEST_DIR/sweep-tmp/ch-cc-bench-20261207-run1/results.csv" ] &&
    [ -f "$TEST_DIR/sweep-tmp/ch-cc-notes-4000000-draft" ]
ok $? "f01: the user's own ch-cc-NAME-NUMBER-WORD files in TMPDIR are not swept"
cp saxpy.c saxpy.c.orig
CH_CC_CACHE_DIR="$TEST_DIR/mfc" "$CH_CC_BIN" -c saxpy.c -o mf.o -MD -MF saxpy.c 2> f02.err
s=$?
[ $s != 0 ] && grep -q "is the same as the dependency file" f02.err
ok $? "f02: -MF naming the input is refused"
files_same saxpy.c saxpy.c.orig "f02: the source is intact"

# a FIFO planted in a shared file:// remote (a team-writable directory) at the entry's path
key=$(CH_CC_CACHE_DIR="$TEST_DIR/fifo0" "$CH_CC_BIN" --harness-list saxpy.c |
    python3 -c "import json,sys; print(json.load(sys.stdin)[0]['key'])")
mkdir -p "$TEST_DIR/store/${key:0:2}"
mkfifo "$TEST_DIR/store/${key:0:2}/${key:2}.char"
"$CH_CC_BIN" --harness-keygen="$TEST_DIR/team" > /dev/null
CH_CC_TRUSTED_KEYS="$TEST_DIR/team/ch-cc-sign.pub" CH_CC_REMOTE="file://$TEST_DIR/store" \
    CH_CC_REMOTE_ONLY_READ=1 CH_CC_CACHE_DIR="$TEST_DIR/fifoc" timeout 120 "$CH_CC_BIN" -O2 \
    -c saxpy.c -o fifo.o 2> f03.err
ok $? "f03: a FIFO at the remote entry's path does not hang or fail the build"
like "$(cat f03.err)" "not a regular file \(a link, device or FIFO\)" "f03: with one warning"

if [ "$(id -u)" = 0 ] && mkdir -p "$TEST_DIR/full" &&
    mount -t tmpfs -o size=512k tmpfs "$TEST_DIR/full" 2> /dev/null; then
    mounted="$TEST_DIR/full"
    mkdir -p "$TEST_DIR/full/cache" "$TEST_DIR/full/tmp" "$TEST_DIR/ftmp"
    echo "OLD OBJECT" > "$TEST_DIR/full/out.o"
    dd if=/dev/zero of="$TEST_DIR/full/filler" bs=4k count=200 2> /dev/null
    TMPDIR="$TEST_DIR/ftmp" CH_CC_CACHE_DIR="$TEST_DIR/full/cache" "$CH_CC_BIN" -O2 -c saxpy.c \
        -o full4.o 2> f04.err
    ok $? "f04: a cache on a full disk: the build succeeds"
    like "$(cat f04.err)" "not stored in the cache: .*No space left on device" "f04: with a warning"
    TMPDIR="$TEST_DIR/full/tmp" CH_CC_CACHE_DIR="$TEST_DIR/f05c" "$CH_CC_BIN" -O2 -c saxpy.c \
        -o "$TEST_DIR/full/out.o" 2> f05.err
    s=$?
    is "$s $(cat "$TEST_DIR/full/out.o")" "1 OLD OBJECT" \
        "f05: TMPDIR and -o on a full disk: an error (as gcc's), the old output intact"
    umount "$TEST_DIR/full" && mounted=""
else
    skip "f04/f05 disk full" "needs root to mount a tmpfs"
fi
done_testing
