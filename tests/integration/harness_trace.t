#!/bin/bash
# CH_CC_TRACE=1 on a machine without a GPU (issue 18: "works there and here"): entries that got
# no kernel (pending, refused, failed; C and C++, a static function) are still called through a
# function of ours, which prints one line per call in the GPU dispatcher's format and runs the
# host path; nothing without the variable, stdout unchanged, no CUDA runtime linked, and the
# trace unit passes the object check like every unit. Direct mode: a build served by the thin
# binary writes the report page too (report_dir), as the cold build wrote it.
. "$(dirname "$0")/../lib/tap.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
if have_gpu; then skip_all "a GPU is present: the entries would verify (tests/gpu cover traces there)"; fi
export CH_CC_BUDGET=1 # one candidate per generation keeps the nvcc time down
seed="$CH_CC_TEST_BUILD/tests/fakes/cache_seed"
counter() { "$CH_CC_BIN" --harness-stats | awk -v k="$1" '$1 == k { print $2 }'; }
key_of() { "$CH_CC_BIN" --harness-list "$1" | python3 -c "import json,sys; print([e['key'] for e in json.load(sys.stdin) if e['name'] == '$2'][0])"; }
cd "$TEST_DIR"

# scale: generated now, pending (no GPU); weird: refused (calls a function defined elsewhere);
# twice: static, seeded as failed verification; scalecc (C++): seeded as pending
cat > k.c <<'SRC'
#include <stddef.h>
float mystery(int i);

#pragma harness
void scale(int n, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = 2.0f * y[i];
}

#pragma harness
void weird(int n, float *y)
{
    for (int i = 1; i < n; i++)
        y[i] = y[i - 1] * 0.5f + mystery(i);
}

#pragma harness
static void twice(int n, float *v)
{
    for (int i = 0; i < n; i++)
        v[i] *= 2.0f;
}
void run(float *v);
void run(float *v) { twice(4, v); }
SRC
cat > kc.cpp <<'SRC'
#pragma harness
void scalecc(int n, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = 3.0f * y[i];
}
SRC
cat > main.cpp <<'SRC'
#include <cstdio>
extern "C" {
void scale(int n, float *y);
void weird(int n, float *y);
void run(float *v);
float mystery(int i);
float mystery(int i) { return (float)i; }
}
void scalecc(int n, float *y);
int main()
{
    float y[4] = {1, 2, 3, 4};
    for (int k = 0; k < 3; k++)
        scale(4 - k, y);
    weird(4, y);
    weird(3, y);
    run(y);
    scalecc(4, y);
    std::printf("%g %g %g %g\n", y[0], y[1], y[2], y[3]);
    return 0;
}
SRC
# a refusal made now tells the revision of ch-cc that records verdicts (an older revision's
# failure would be retried, not served)
cat > r.c <<'SRC'
float other(int i);
#pragma harness
void refused(int n, float *y)
{
    for (int i = 1; i < n; i++)
        y[i] = y[i - 1] + other(i);
}
SRC
"$CH_CC_BIN" -c r.c -o r.o 2> r.err
ok $? "a file with a refused entry builds"
rkey=$(key_of r.c refused)
version=$(sed -n 's/^meta version=//p' "$CH_CC_CACHE_DIR/${rkey:0:2}/${rkey:2}/index")
"$seed" "$(key_of k.c twice)" meta:status=failed meta:name=twice meta:kind=c-def meta:agent=builtin \
    "meta:version=$version" >/dev/null
ok $? "twice is seeded as an entry whose candidates failed verification"
"$seed" "$(key_of kc.cpp scalecc)" meta:status=pending meta:name=scalecc meta:kind=c-def >/dev/null
ok $? "scalecc is seeded as pending"

sleep 1 # a file modified in the second the compile starts is never recorded (direct mode)
CH_CC_REPORT_DIR="$TEST_DIR/rep" "$CH_CC_BIN" -O2 -Wall -Wextra -Werror -c k.c -o k.o 2> k.err
ok $? "the file builds without a GPU (host paths)"
is "$(grep -c 'warning: .*host path linked' k.err)" 3 "one warning per entry"
"$CH_CC_BIN" -O2 -Wall -Werror -fPIC -c kc.cpp -o kc.o 2> kc.err
ok $? "the C++ file builds, position-independent"
"$CH_CC_BIN" -O2 main.cpp k.o kc.o -o prog 2> link.err
ok $? "the program links with ch-cc"
# the same sources through the plain compilers (which ignore the pragmas): the expected output
cc -O2 -c k.c -o plain-k.o 2>/dev/null && c++ -O2 -c kc.cpp -o plain-kc.o 2>/dev/null &&
    c++ -O2 main.cpp plain-k.o plain-kc.o -o plain-prog && ./plain-prog > expected.out
ok $? "the plain build runs"
nm prog | grep -qi cuda; is $? 1 "no kernel: nothing of CUDA is linked"
is "$(nm k.o | awk '$3 == "scale" || $3 == "weird" || $3 == "run" {print $2}' | tr -d '\n')" TTT \
    "the entries and the caller keep their global names"
is "$(nm k.o | awk '$3 ~ /__host$|__ch_/ {print $2}' | sort -u | tr -d '\n')" t \
    "the host paths and bridges are local"
nm kc.o | grep -q ' T _Z7scalecciPf$'; ok $? "the C++ entry keeps its C++ linkage"
nm kc.o | grep -q ' T _Z13scalecc__host'; is $? 1 "and its host path is local"

# ---- the program's runs ------------------------------------------------------------------
./prog > plain.out 2> plain.err
ok $? "the program runs"
files_same plain.out expected.out "it computes what the plain build computes"
is "$(cat plain.err)" "" "without CH_CC_TRACE nothing is printed"
# the speed without the variable: the function the program calls is a load of the cached
# flag, a compare and jumps (a tail jump to the host path): no call, no frame, no getenv
if command -v objdump >/dev/null && [ "$(uname -m)" = x86_64 ]; then
    objdump -d --no-show-raw-insn k.o | awk '/^[0-9a-f]+ <scale>:$/ { on = 1; next } on && /^$/ { exit }
        on { print }' > scale.s
    is "$(grep -cE '\s(call|push|sub)' scale.s)|$(grep -c getenv scale.s)" "0|0" \
        "scale's entry point makes no call and keeps no frame"
    is "$(grep -cE '\sj[a-z]+ ' scale.s)" 2 "one branch on the flag, one jump to the host path"
    insns=$(grep -vc nop scale.s) # the alignment padding aside
    [ "$insns" -le 5 ]; ok $? "at most five instructions ($insns)"
else
    skip "scale's entry point makes no call and keeps no frame" "objdump on x86_64 needed"
    skip "one branch on the flag, one jump to the host path" "objdump on x86_64 needed"
    skip "at most five instructions" "objdump on x86_64 needed"
fi
CH_CC_TRACE=0 ./prog > zero.out 2> zero.err
is "$(cat zero.err)" "" "CH_CC_TRACE=0 prints nothing either"
CH_CC_TRACE=1 ./prog > traced.out 2> traced.err
ok $? "the traced program runs"
files_same plain.out traced.out "stdout is the same with CH_CC_TRACE=1"
is "$(wc -l < traced.err)" 7 "one line per call: 3 scale, 2 weird, 1 twice, 1 scalecc"
count() { grep -c "^ch-cc: $1: host (size [0-9]*, no kernel linked, $2: .*)\$" traced.err; }
is "$(count scale pending) $(count weird refused) $(count twice failed) $(count scalecc pending)" \
    "3 2 1 1" "each line names the entry, the host path and the class of the reason"
# the size is the GPU dispatcher's measure (the elements of every buffer), per call
sizes() { sed -n "s/^ch-cc: $1: host (size \([0-9]*\), .*/\1/p" traced.err | tr '\n' ' '; }
is "$(sizes scale)" "4 3 2 " "scale's lines give each call's size (n = 4, 3, 2)"
is "$(sizes weird)|$(sizes twice)|$(sizes scalecc)" "4 3 |4 |4 " \
    "so do weird's, the static twice's (called by run) and the C++ scalecc's"
like "$(grep -m1 '^ch-cc: scale:' traced.err)" "pending: nothing can be verified here \(.*\).*for a build with a GPU\)$" \
    "pending: the line says why (no GPU at build time)"
like "$(grep -m1 '^ch-cc: weird:' traced.err)" "refused: .*mystery" "refused: the agent's reason"
like "$(grep -m1 '^ch-cc: twice:' traced.err)" "failed: the cache records that no kernel verified" \
    "failed verification: the recorded verdict"
# bench/polybench.sh reads the path as the word after the entry's name
is "$(sed -n 's/^ch-cc: [^:]*: //p' traced.err | sed 's/ (.*//' | sort -u)" "host" \
    "the line format is the GPU dispatcher's (PATH (WHY))"

# ---- the trace unit is checked like every unit ---------------------------------------------
# A host compiler that slips a call to system() into the trace unit: the object check refuses
# it and nothing is linked.
mkdir -p evil && cat > evil/cc <<'SH'
#!/bin/sh
for a; do
    case "$a" in
    *ch_trace.c) printf '#include <stdlib.h>\nint ch_evil(void) { return system("true"); }\n' >> "$a" ;;
    esac
done
exec cc "$@"
SH
chmod +x evil/cc
rm -f r.o
CH_CC_HOST_CC="$TEST_DIR/evil/cc" "$CH_CC_BIN" -c r.c -o r.o 2> evil.err
is $? 1 "a trace unit calling system() fails the build"
like "$(cat evil.err)" "trace unit's object is refused: .*system" "the object check says why"
[ -e r.o ]; is $? 1 "and no object is written"

# ---- direct mode: the thin binary writes the report page too -------------------------------
[ -s rep/k.c.html ]; ok $? "the cold build wrote its page (report_dir)"
cp rep/k.c.html cold.html
rm -rf rep k.o
hits=$(counter direct_hits)
sleep 1
touch k.c
if command -v strace >/dev/null; then
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 CH_CC_REPORT_DIR="$TEST_DIR/rep" \
        strace -f -e trace=execve -o exec.txt "$CH_CC_BIN" -O2 -Wall -Wextra -Werror -c k.c -o k.o 2> hit.err
    ok $? "the rebuild after touch succeeds"
    grep -q 'ch-cc-full' exec.txt; is $? 1 "it is served by the thin binary (no ch-cc-full)"
else
    CH_CC_REPORT_DIR="$TEST_DIR/rep" "$CH_CC_BIN" -O2 -Wall -Wextra -Werror -c k.c -o k.o 2> hit.err
    ok $? "the rebuild after touch succeeds"
    skip "it is served by the thin binary (no ch-cc-full)" "strace not installed"
fi
is "$(( $(counter direct_hits) - hits ))" 1 "a direct hit"
files_same rep/k.c.html cold.html "the served build wrote the cold build's page"
"$CH_CC_BIN" main.cpp k.o kc.o -o prog2 && CH_CC_TRACE=1 ./prog2 > /dev/null 2> served.err
is "$(wc -l < served.err)" 7 "the served object traces its calls too"
rm -rf rep
touch k.c
"$CH_CC_BIN" -O2 -Wall -Wextra -Werror -c k.c -o k.o
is "$(( $(counter direct_hits) - hits ))" 2 "without report_dir: a hit as well"
[ -e rep ]; is $? 1 "which writes no page"
touch k.c
CH_CC_REPORT_DIR="$TEST_DIR/elsewhere" "$CH_CC_BIN" -O2 -Wall -Wextra -Werror -c k.c -o k.o
is "$(( $(counter direct_hits) - hits ))" 3 "another report_dir is a hit (it only places the page)"
files_same elsewhere/k.c.html cold.html "the page is written there"
# a manifest recorded without a page cannot serve a build that asks for one
rm -rf "$CH_CC_CACHE_DIR/direct"
sleep 1
touch k.c
"$CH_CC_BIN" -O2 -Wall -Wextra -Werror -c k.c -o k.o
misses=$(counter direct_misses)
touch k.c
CH_CC_REPORT_DIR="$TEST_DIR/late" "$CH_CC_BIN" -O2 -Wall -Wextra -Werror -c k.c -o k.o
is "$(( $(counter direct_misses) - misses ))" 1 "a manifest without a page: the full binary builds"
[ -s late/k.c.html ]; ok $? "and writes the page"
done_testing
