#!/bin/bash
# Annotated programs built with make CC=ch-cc on a machine without a GPU: what the cache
# records and what the objects link. Scenarios in the spirit of ccache's test suites: each
# names a behaviour and asserts the counters (--harness-stats) and files it must change.
. "$(dirname "$0")/../lib/tap.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
if have_gpu; then skip_all "a GPU is present: tests/gpu/harness_gpu.t covers builds with one"; fi
export CH_CC_BUDGET=1 # one candidate per generation keeps the nvcc time down
seed="$CH_CC_TEST_BUILD/tests/fakes/cache_seed"
stat() { "$CH_CC_BIN" --harness-stats=json | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
key_of() { "$CH_CC_BIN" --harness-list "$1" | python3 -c "import json,sys; print(json.load(sys.stdin)[$2]['key'])"; }

# ---- a build without a GPU: host path linked, candidates pending ---------------------------
cp -r "$CH_CC_SRC/examples/saxpy" "$TEST_DIR/saxpy"
cd "$TEST_DIR/saxpy"
make -s CC="$CH_CC_BIN" > build.out 2> build.err
ok $? "first build without a GPU succeeds"
like "$(cat build.err)" "saxpy.c:[0-9]+:[0-9]+: warning: saxpy: host path linked: nothing can be verified here .*1 candidate wait in the cache" \
    "one located warning names the entry, the host path and why"
is "$(grep -c warning build.err)" 1 "exactly one warning line"
./saxpy > run.out 2>&1
ok $? "the program runs correctly on its host path"
is "$(stat misses) $(stat generations) $(stat gpu_runs) $(stat host_fallbacks)" "1 1 0 1" \
    "one miss, one generation, no GPU run, one host fallback"
is "$(stat agent_requests)" 1 "the agent was asked once (budget 1)"
compiles=$(stat kernel_compiles)
[ "$compiles" -ge 1 ]; ok $? "the candidate was compiled by nvcc (stage 1 runs without a GPU)"
key=$(key_of saxpy.c 0)
"$CH_CC_BIN" --harness-explain "$key" > explain.out
like "$(cat explain.out)" "status: *pending|status=pending|pending" "the entry is recorded as pending"
ls "$CH_CC_CACHE_DIR/${key:0:2}/${key:2}/candidates/0.cu" >/dev/null 2>&1
ok $? "the pending candidate is in the cache entry"
is "$(grep -c 'cannot\|error' saxpy.d 2>/dev/null)" 0 "depfile written"
grep -q "saxpy.o:.*saxpy.c" saxpy.d; ok $? "depfile names the user's object and source"

# ---- rebuild after touch: a hit that runs no agent and no kernel compile --------------------
sleep 1; touch saxpy.c
make -s CC="$CH_CC_BIN" > build2.out 2> build2.err
ok $? "rebuild after touch succeeds"
# served by direct mode (the manifest: no libclang, no entry lookup) or by the entry: a hit
is "$(( $(stat hits) + $(stat direct_hits) )) $(stat generations) $(stat agent_requests) $(stat kernel_compiles)" \
   "1 1 1 $compiles" "rebuild after touch is a hit: no generation, no agent, no kernel compile"
is "$(cat build2.err)" "" "the rebuild repeats no host-path note (the first build gave it)"
# the note is silenced by --harness-quiet, CH_CC_QUIET=1 and -w, and comes back for a new entry
# (in a cache of their own: the counters below count this section's builds out)
qcc() { CH_CC_CACHE_DIR="$TEST_DIR/qcache" "$CH_CC_BIN" "$@"; }
qcc --harness-clean >/dev/null
qcc --harness-quiet -O2 -c saxpy.c -o q1.o 2> q1.err; ok $? "--harness-quiet build succeeds"
is "$(cat q1.err)" "" "--harness-quiet: no host-path note, no progress"
qcc --harness-clean >/dev/null
CH_CC_QUIET=1 qcc -O2 -c saxpy.c -o q2.o 2> q2.err
is "$(cat q2.err)" "" "CH_CC_QUIET=1: no host-path note"
qcc --harness-clean >/dev/null
qcc -w -O2 -c saxpy.c -o q3.o 2> q3.err
is "$(cat q3.err)" "" "-w: no host-path note"
qcc --harness-clean >/dev/null
qcc -O2 -c saxpy.c -o q4.o 2> q4.err
like "$(cat q4.err)" "warning: saxpy: host path linked" "after --harness-clean the entry is made again and noted"
qcc -O2 -c saxpy.c -o q5.o 2> q5.err
is "$(cat q5.err)" "" "a second object of the same entry: no second note"
sed 's/y\[i\] = a \* x\[i\] + y\[i\];/y[i] = a * x[i] - y[i];/' saxpy.c > changed.c
qcc -O2 -c changed.c -o q6.o 2> q6.err
like "$(cat q6.err)" "warning: saxpy: host path linked" "a changed function is another entry: noted once more"

# ---- a changed body regenerates ------------------------------------------------------------
sed -i 's/y\[i\] = a \* x\[i\] + y\[i\];/y[i] = a * x[i] + 2.0f * y[i];/' saxpy.c
make -s CC="$CH_CC_BIN" saxpy.o > build3.out 2> build3.err
ok $? "build after a change of the body succeeds"
is "$(stat generations) $(stat misses)" "2 2" "a changed body is a miss and regenerates"
[ "$(key_of saxpy.c 0)" != "$key" ]; ok $? "the changed body has another key"

# ---- policies -------------------------------------------------------------------------------
rm -f saxpy.o
"$CH_CC_BIN" --harness-on-fail=error -O2 -c saxpy.c -o saxpy.o > pol.out 2> pol.err
is "$?" 1 "--harness-on-fail=error: no verified kernel fails the compile"
like "$(cat pol.err)" "saxpy.c:[0-9]+:[0-9]+: error: saxpy: no verified kernel \(--harness-on-fail=error\)" \
    "the error is located and says why"
[ ! -e saxpy.o ]; ok $? "no object is left behind"
"$CH_CC_BIN" --harness-on-fail=fallback -O2 -c saxpy.c -o saxpy.o 2> pol2.err
ok $? "--harness-on-fail=fallback builds the host path"
[ -s saxpy.o ]; ok $? "the fallback object exists"

# ---- offline and provider none never ask an agent -----------------------------------------
printf '#pragma harness\nvoid scale(int n, double *v)\n{\n    for (int i = 0; i < n; i++)\n        v[i] *= 3.0;\n}\n' > scale.c
before=$(stat agent_requests)
CH_CC_OFFLINE=1 "$CH_CC_BIN" -c scale.c -o scale.o 2> off.err
ok $? "CH_CC_OFFLINE=1: a miss still builds"
like "$(cat off.err)" "not in the kernel cache and CH_CC_OFFLINE" "offline says why the host path"
"$CH_CC_BIN" --harness-provider=none -c scale.c -o scale.o 2> none.err
ok $? "--harness-provider=none builds the host path"
like "$(cat none.err)" "no agent configured" "provider none says so"
is "$(stat agent_requests)" "$before" "neither asked an agent"

# ---- what the builtin agent cannot translate is refused once, with its reason --------------
cat > prefix.c <<'EOF'
#pragma harness extent(x: n, s: n)
void prefix(int n, const float *x, float *s)
{
    int i = 0;
    s[0] = x[0];
    while (++i < n)
        s[i] = s[i - 1] + x[i];
}
EOF
"$CH_CC_BIN" -c prefix.c -o prefix.o 2> pre.err
ok $? "an entry the agent refuses still builds (host path)"
like "$(cat pre.err)" "prefix.c:([2-9]|[1-9][0-9]+):[0-9]+: warning: prefix: host path linked: [a-z]" \
    "the warning is reported at the code the agent refused, not at the pragma"
before=$(stat agent_requests)
"$CH_CC_BIN" -c prefix.c -o prefix.o 2> pre2.err
is "$(stat agent_requests)" "$before" "the refusal is cached: the rebuild asks no agent"
is "$(cat pre2.err)" "" "and does not repeat its note"

# ---- a static function gets its entry like any other -----------------------------------------
printf '#pragma harness
static void twice(int n, float *v)
{
    for (int i = 0; i < n; i++)
        v[i] *= 2.0f;
}
void run(float *v);
void run(float *v) { twice(4, v); }
' > static.c
before=$(stat agent_requests)
"$CH_CC_BIN" -Wall -Werror -c static.c -o static.o 2> static.err
ok $? "an annotated static function builds"
like "$(cat static.err)" "static.c:1:1: warning: twice: host path linked: nothing can be verified here" \
    "a static function is an entry like any other: its candidates wait for a GPU"
is "$(( $(stat agent_requests) - before ))" 1 "the agent is asked for it"
is "$(nm static.o | awk '$3 == "run" {print $2}')" T "its caller is in the object"

# ---- parallel builds of files sharing an entry generate once --------------------------------
mkdir -p par && cd par
for k in 1 2 3 4; do
    printf '#pragma harness\nvoid twice(int n, float *v)\n{\n    for (int i = 0; i < n; i++)\n        v[i] = 2.0f * v[i];\n}\nint user_%d(void) { return %d; }\n' "$k" "$k" > "f$k.c"
done
gen_before=$(stat generations)
printf 'all: f1.o f2.o f3.o f4.o\n%%.o: %%.c\n\t$(CC) -c $< -o $@\n' > Makefile
make -s -j4 CC="$CH_CC_BIN" 2> par.err
ok $? "make -j4 of four files sharing an entry succeeds"
is "$(( $(stat generations) - gen_before ))" 1 "the shared entry is generated once"
is "$(ls f?.o | wc -l)" 4 "every object is built"
cd ..

# ---- a verified entry (from a machine with a GPU) is emitted, merged and linked -------------
cp -r "$CH_CC_SRC/examples/saxpy" "$TEST_DIR/shared"
cd "$TEST_DIR/shared"
export CH_CC_CACHE_DIR="$TEST_DIR/.cache-shared"
"$CH_CC_BIN" --harness-propose=cands --harness-budget=1 saxpy.c > /dev/null
vkey=$(key_of saxpy.c 0)
"$CH_CC_BIN" --harness-checklist saxpy.c | python3 -c "import json,sys; print(json.dumps(json.load(sys.stdin)[0]))" > checklist.json
"$seed" "$vkey" kernel.cu=cands/saxpy.0.cu checklist.json=checklist.json meta:status=verified \
    meta:name=saxpy meta:kind=c-def meta:agent=builtin "meta:design=seeded by the test"
ok $? "a verified entry is seeded into the cache (as a teammate's GPU build would share it)"
compiles=$(stat kernel_compiles)
make -s CC="$CH_CC_BIN" > v.out 2> v.err
ok $? "the build with a verified entry succeeds"
is "$(grep -c 'warning' v.err)" 0 "no fallback warning: the kernel is linked"
is "$(( $(stat kernel_compiles) - compiles ))" 1 "the generated unit was compiled once"
objdump -h saxpy.o | grep -q nv_fatbin; ok $? "saxpy.o carries the kernel's device code"
is "$(nm saxpy.o | awk '$3 == "saxpy" {print $2}')" T "saxpy is the dispatcher, global"
is "$(nm saxpy.o | awk '$3 == "saxpy__host" {print $2}')" t "the user's body is local as saxpy__host"
is "$(nm saxpy.o | awk '$3 == "saxpy_reference" {print $2}')" T \
   "the user's own saxpy_reference keeps its name and stays global"
CH_CC_TRACE=1 ./saxpy > run.out 2> trace.err
ok $? "the program linked by ch-cc runs correctly without a device"
like "$(sort -u trace.err)" "ch-cc: saxpy: host \(no CUDA device\)" \
    "CH_CC_TRACE shows the host dispatch"
CH_CC_TRACE=1 CH_CC_FORCE_HOST=1 ./saxpy > run.out 2> trace.err
like "$(sort -u trace.err)" "ch-cc: saxpy: host \(CH_CC_FORCE_HOST\)" \
    "CH_CC_TRACE names CH_CC_FORCE_HOST when it chose the host path"
# below the size where verification measured the GPU faster, a call costs what the host path
# costs: the dispatcher does not even load the CUDA driver (cudart loads libcuda.so.1 on its
# first call, which the dynamic linker's debug output shows)
mkdir -p "$TEST_DIR/small" && cp saxpy.c saxpy.h main.c "$TEST_DIR/small/" && (
    cd "$TEST_DIR/small" && export CH_CC_CACHE_DIR="$TEST_DIR/.cache-small"
    "$seed" "$vkey" kernel.cu="$TEST_DIR/shared/cands/saxpy.0.cu" \
        checklist.json="$TEST_DIR/shared/checklist.json" meta:status=verified meta:name=saxpy \
        meta:kind=c-def meta:agent=builtin meta:gpu_min_size=1000000000000 \
        "meta:design=seeded by the test"
    "$CH_CC_BIN" -O2 main.c saxpy.c -o saxpy-small -lm 2> build.err || cat build.err >&2
    LD_DEBUG=libs CH_CC_TRACE=1 ./saxpy-small > run.out 2> small.err
    echo "below $(grep -c 'libcuda' small.err) $(grep -c 'saxpy: host (below the size' small.err)"
    LD_DEBUG=libs CH_CC_FORCE_GPU=1 ./saxpy-small > run.out 2> forced.err
    echo "forced $(grep -c 'libcuda' forced.err)"
) > small.txt
like "$(cat small.txt)" "below 0 [1-9]" \
    "below the GPU's size the host path runs without loading the CUDA driver"
like "$(cat small.txt)" "forced [1-9]" "a call forced to the GPU does load it (the check can fail)"
# a process's first calls (issue 14): above the warm threshold (1) but below the cold one, while
# the device is not set up in the process, the host path runs; asking the runtime whether the
# device is set up loads no driver either (the set-up's cost is never paid back by two calls)
mkdir -p "$TEST_DIR/cold" && cp saxpy.c saxpy.h main.c "$TEST_DIR/cold/" && (
    cd "$TEST_DIR/cold" && export CH_CC_CACHE_DIR="$TEST_DIR/.cache-cold"
    "$seed" "$vkey" kernel.cu="$TEST_DIR/shared/cands/saxpy.0.cu" \
        checklist.json="$TEST_DIR/shared/checklist.json" meta:status=verified meta:name=saxpy \
        meta:kind=c-def meta:agent=builtin meta:gpu_min_size=1 meta:gpu_min_size_buffers=1 \
        meta:gpu_min_size_cold=1000000000000 meta:cold_setup_ms=1000000 \
        meta:cold_first_use_ms_per=0 "meta:design=seeded by the test"
    "$CH_CC_BIN" -O2 main.c saxpy.c -o saxpy-cold -lm 2> build.err || cat build.err >&2
    LD_DEBUG=libs CH_CC_TRACE=1 ./saxpy-cold > run.out 2> cold.err
    echo "cold $(grep -c 'libcuda' cold.err) $(grep -c 'warm / 1e+12 cold (device not set up): host' cold.err)"
    nm saxpy-cold | grep -c ' T ch_rt_cold_v1$'
) > cold.txt
like "$(cat cold.txt)" "cold 0 [1-9]" \
    "above the warm threshold, below the cold one, a first call takes the host path without loading the CUDA driver"
is "$(sed -n 2p cold.txt)" 1 "the program links the runtime's cold query (the real runtime was asked)"
cc -O2 main.o saxpy.o -o saxpy-cc -lm $("$CH_CC_BIN" --harness-link-flags)
ok $? "the objects link with plain cc and --harness-link-flags"
./saxpy-cc > /dev/null 2>&1; ok $? "and that program runs correctly"
"$CH_CC_BIN" -O2 main.c saxpy.c -o saxpy-one -lm 2> one.err
ok $? "compile and link in one command"
./saxpy-one > /dev/null 2>&1; ok $? "the one-command program runs correctly"
hits=$(( $(stat hits) + $(stat direct_hits) )); compiles=$(stat kernel_compiles)
sleep 1; touch saxpy.c
make -s CC="$CH_CC_BIN" 2> v2.err
is "$(( $(stat hits) + $(stat direct_hits) - hits )) $(( $(stat kernel_compiles) - compiles ))" "1 0" \
   "rebuild after touch takes the kernel object from the cache: a hit, no nvcc"
CH_CC_FORCE_HOST=1 CH_CC_TRACE=1 ./saxpy > /dev/null 2> force.err
like "$(sort -u force.err)" "saxpy: host" "CH_CC_FORCE_HOST=1 forces the host path"
# ---- a verified static function: its callers in the file reach the dispatcher ---------------
# Two files with the same static function (one entry key) and a third calling both: the bridges
# the host copy adds must stay private to each object, or the link fails on duplicates.
cd "$TEST_DIR/shared"
for f in a b; do
    printf '#pragma harness
static void twice(int n, float *v)
{
    for (int i = 0; i < n; i++)
        v[i] *= 2.0f;
}
void run_%s(float *v);
void run_%s(float *v) { twice(4, v); }
' "$f" "$f" > "st_$f.c"
done
printf '#include <stdio.h>
void run_a(float *v);
void run_b(float *v);
int main(void)
{
    float v[4] = {1, 2, 3, 4};
    run_a(v);
    run_b(v);
    printf("%%g %%g %%g %%g\\n", v[0], v[1], v[2], v[3]);
    return 0;
}
' > st_main.c
"$CH_CC_BIN" --harness-propose=stcands --harness-budget=1 st_a.c > /dev/null
skey=$(key_of st_a.c 0)
is "$(key_of st_b.c 0)" "$skey" "both static copies are one entry"
"$CH_CC_BIN" --harness-checklist st_a.c | python3 -c "import json,sys; print(json.dumps(json.load(sys.stdin)[0]))" > stchecklist.json
"$seed" "$skey" kernel.cu=stcands/twice.0.cu checklist.json=stchecklist.json meta:status=verified \
    meta:name=twice meta:kind=c-def meta:agent=builtin "meta:design=seeded by the test"
"$CH_CC_BIN" -Wall -Wextra -Wmissing-prototypes -Werror -O2 -c st_a.c -o st_a.o 2> st.err &&
    "$CH_CC_BIN" -Wall -Wextra -Wmissing-prototypes -Werror -O2 -c st_b.c -o st_b.o 2>> st.err
ok $? "static entries with a verified kernel build warning-free under -Wmissing-prototypes -Werror"
is "$(grep -c warning st.err)" 0 "no fallback warning: the kernel is linked for the static function"
objdump -h st_a.o | grep -q nv_fatbin; ok $? "the object carries the kernel's device code"
is "$(nm st_a.o | awk '$3 ~ /^twice/ {print $2}' | sort -u | tr -d '\n')" t \
   "twice, its host path and its bridges are all local to the object"
"$CH_CC_BIN" -O2 st_main.c st_a.o st_b.o -o st_prog 2> stlink.err
ok $? "two objects with the same static kernel function link into one program"
is "$(CH_CC_TRACE=1 ./st_prog 2> st_trace.err)" "4 8 12 16" "the program computes through the dispatcher"
is "$(grep -c 'ch-cc: twice: host' st_trace.err)" 2 "both calls went through the static function's dispatcher"

# ---- a static function in a .cu file: the oracle is CUDA C++, built by nvcc -----------------
printf '#include <cstdio>
typedef float real;
#pragma harness
static void add(int n, const real *a, const real *b, real *c)
{
    for (int i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}
__global__ void unrelated(float *x) { x[threadIdx.x] = 0; }
int main()
{
    float a[8], b[8], c[8];
    for (int i = 0; i < 8; i++) { a[i] = i; b[i] = 2 * i; }
    add(8, a, b, c);
    std::printf("%%g\\n", c[7]);
    return 0;
}
' > st_cu.cu
"$CH_CC_BIN" -O2 st_cu.cu -o st_cu 2> st_cu.err
ok $? "a .cu file with an annotated static function builds"
like "$(cat st_cu.err)" "st_cu.cu:3:1: warning: add: host path linked: nothing can be verified here" \
    "its reference program builds (nvcc, C++ linkage) and its candidates wait for a GPU"
is "$(./st_cu)" 21 "the program runs on the host path"
"$CH_CC_BIN" --harness-propose=cucands --harness-budget=1 st_cu.cu > /dev/null
ckey=$(key_of st_cu.cu 0)
"$CH_CC_BIN" --harness-checklist st_cu.cu | python3 -c "import json,sys; print(json.dumps(json.load(sys.stdin)[0]))" > cuchecklist.json
"$seed" "$ckey" kernel.cu=cucands/add.0.cu checklist.json=cuchecklist.json meta:status=verified \
    meta:name=add meta:kind=c-def meta:agent=builtin "meta:design=seeded by the test"
"$CH_CC_BIN" -O2 st_cu.cu -o st_cu2 2> st_cu2.err
ok $? "with a verified kernel the .cu program builds and links"
is "$(grep -c warning st_cu2.err)" 0 "no fallback warning"
is "$(CH_CC_TRACE=1 ./st_cu2 2> cu_trace.err)" 21 "the program computes through the dispatcher"
like "$(cat cu_trace.err)" "ch-cc: add: host" "the static function of a C++ file reached its dispatcher"

# ---- a spec-only entry with a model (the fake server): the test author's reference is the ----
# ---- host path until a kernel verifies ------------------------------------------------------
cp -r "$CH_CC_SRC/tests/integration/data/specdecl" "$TEST_DIR/spec"
cd "$TEST_DIR/spec"
export CH_CC_CACHE_DIR="$TEST_DIR/.cache-spec"
python3 script.py script.json "$CH_CC_SRC/tests/gpu/llm/saxpy_right.cu"
python3 "$CH_CC_SRC/tests/fakes/fake_llm.py" --script script.json --record requests.jsonl \
    --port 0 --port-file port > /dev/null 2>&1 &
llm_pid=$!
for _ in $(seq 300); do [ -s port ] && break; sleep 0.1; done # 30 s: a loaded CI machine
export CH_CC_PROVIDER=openai CH_CC_MODEL=fake CH_CC_API_KEY=test-key \
       CH_CC_API_BASE="http://127.0.0.1:$(cat port)/v1"
"$CH_CC_BIN" -O2 -c axpy.c -o axpy.o 2> axpy.err
ok $? "a spec-only entry builds with a model agent"
like "$(cat axpy.err)" "axpy.c:1:1: warning: axpy: host path linked: nothing can be verified here" \
    "without a GPU its kernel is pending"
is "$(wc -l < requests.jsonl)" 3 "three requests: checklist, test author, kernel author"
python3 -c "
import json, sys
reqs = [json.dumps(json.loads(l)['body']) for l in open('requests.jsonl')]
sys.exit('REF_MARKER' in reqs[2])"
ok $? "the kernel author never saw the test author's reference"
is "$(nm axpy.o | awk '$3 == "axpy" {print $2}')" T "the object defines axpy (the reference is the host path)"
nm axpy.o | grep -q " t axpy__ch_reference$"; ok $? "the reference itself is local"
cc -O2 main.c axpy.o -o prog && ./prog > run.out
ok $? "the program links and runs"
is "$(cat run.out)" "3 5 7 9 11" "with the reference's results"
CH_CC_TRACE=1 ./prog > traced.out 2> trace.err
like "$(cat trace.err)" "^ch-cc: axpy: host \(size 10, no kernel linked, pending: nothing can be verified here" \
    "CH_CC_TRACE=1 traces the reference's calls too, with their size (x and y: 5 + 5)"
is "$(wc -l < trace.err) $(cat traced.out)" "1 3 5 7 9 11" "one line for the one call, the same results"
"$CH_CC_BIN" -O2 -c axpy.c -o axpy.o 2> axpy2.err
is "$(wc -l < requests.jsonl)" 3 "the rebuild asks the model nothing"
cc -O2 main.c axpy.o -o prog && is "$(./prog)" "3 5 7 9 11" "and links the cached reference"
kill "$llm_pid" 2>/dev/null; wait "$llm_pid" 2>/dev/null
unset CH_CC_PROVIDER CH_CC_MODEL CH_CC_API_KEY CH_CC_API_BASE
done_testing
