#!/bin/bash
# The dispatcher's choice on the H200 (issue 14): a saxpy of 2^26 elements built with ch-cc has
# a device launcher, so verification times the whole call through the trusted runtime (report:
# call_path "runtime") at three sizes; called at the tune size it takes the GPU path (the
# runtime makes it faster than the host), at a tiny size the host path when the host measured
# faster there; CH_CC_TRACE says each call's size, thresholds and choice. A process's first call
# weighs the device's set-up too (issue 14): with CH_CC_DEVICE_INIT=load the warm threshold
# decides, without it the cold one; a call that finds the entry's buffers to allocate weighs
# their first use; every traced choice must follow the thresholds it prints, and a program that
# goes on calling reaches the GPU path (the rent rule).
. "$(dirname "$0")/../lib/tap.sh"
require_gpu
export CH_CC_BUDGET=${CH_CC_TEST_BUDGET:-3}
cd "$TEST_DIR"
cat > saxpy.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>

#pragma harness tune(n = 1 << 26)
void saxpy(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1 << 26, calls = argc > 2 ? atoi(argv[2]) : 1;
    float *x = malloc(sizeof *x * (size_t)n), *y = malloc(sizeof *y * (size_t)n);
    for (int i = 0; i < n; i++) {
        x[i] = (float)(i % 1000);
        y[i] = 1.0f;
    }
    for (int k = 0; k < calls; k++)
        saxpy(n, 2.0f, x, y);
    for (int i = 0; i < n; i++)
        if (y[i] != (float)calls * 2.0f * (float)(i % 1000) + 1.0f) {
            printf("wrong at %d\n", i);
            return 1;
        }
    printf("right\n");
    return 0;
}
EOF
"$CH_CC_BIN" -O2 saxpy.c -o saxpy 2> build.err
ok $? "ch-cc builds the saxpy program"
like "$(cat build.err)" "verified kernel linked" "a verified kernel is linked"
nm saxpy | grep -q ' T ch_rt_call_v1$'; ok $? "the program links the trusted runtime"

key=$("$CH_CC_BIN" --harness-list saxpy.c | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['key'])")
report="$CH_CC_CACHE_DIR/${key:0:2}/${key:2}/report.json"
python3 - "$report" > curve.txt <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
ev = r["evolution"]
best = [c for c in ev["candidates"] if c["id"] == ev["best"]][0]
first = r.get("dispatch", {}).get("first_calls", {})
print(best.get("call_path"), best.get("launcher_ms"), best.get("host_ms"),
      best.get("device_setup_ms", -1), first.get("gpu_min_size_cold", -1))
EOF
read -r path call host setup cold < curve.txt
is "$path" "runtime" "verification timed the whole call through the runtime"
diag "tune size: whole call $call ms, host $host ms; device set-up $setup ms, cold threshold $cold"
# issue 14: the first call's costs are measured in a fresh process and give a cold threshold
python3 -c "import sys; sys.exit(0 if float('$setup') > 0 else 1)"
ok $? "verification measured the device's set-up ($setup ms)"
python3 -c "import sys; sys.exit(0 if float('$cold') >= 0 else 1)"
ok $? "the report has the cold threshold ($cold)"

# every traced choice follows the thresholds it prints: the GPU path exactly where the size
# reaches the threshold of the state the call found, or where the rent rule bought the set-up
cat > choices.py <<'EOF'
import re, sys
pat = re.compile(r"ch-cc: saxpy: size ([0-9.e+]+), GPU from ([0-9.e+]+) warm / ([0-9.e+]+) "
                 r"cold \((device set up|buffers to allocate|device not set up)\): (gpu|host)(.*)")
n = bad = 0
for line in open(sys.argv[1]):
    m = pat.match(line.strip())
    if not m:
        continue
    n += 1
    size, warm, cold = (float(m.group(i)) for i in (1, 2, 3))
    limit = warm if m.group(4) == "device set up" else cold
    want = "gpu" if size >= limit or "spent the set-up" in m.group(6) else "host"
    if m.group(5) != want:
        bad += 1
        print("choice against its thresholds:", line.strip())
print("%d traced, %d inconsistent" % (n, bad))
sys.exit(0 if n and not bad else 1)
EOF

# with the device set up before main, one call: the choice its state's threshold gives
CH_CC_DEVICE_INIT=load CH_CC_TRACE=1 ./saxpy $((1 << 26)) > big.out 2> big.err
is "$(cat big.out)" "right" "2^26 elements: correct"
python3 choices.py big.err > big.chk
ok $? "device set up before main: the choice follows the thresholds ($(cat big.chk); $(head -c 300 big.err))"

# a program that goes on calling reaches the GPU path and stays there (warm buffers)
CH_CC_DEVICE_INIT=load CH_CC_TRACE=1 ./saxpy $((1 << 26)) 40 > many.out 2> many.err
is "$(cat many.out)" "right" "2^26 elements, 40 calls: correct"
python3 choices.py many.err > many.chk
ok $? "40 calls: every choice follows the thresholds ($(cat many.chk))"
like "$(grep 'ch-cc: saxpy:' many.err | tail -1)" "\(device set up\): gpu" \
    "40 calls: the last one takes the GPU path warm (first: $(grep -m1 'ch-cc: saxpy:' many.err))"

# a fresh process's one call: the GPU path only where the set-up is paid back (size measure 2n)
CH_CC_TRACE=1 ./saxpy $((1 << 26)) > cold.out 2> cold.err
is "$(cat cold.out)" "right" "2^26 elements, first call: correct"
want=host
python3 -c "import sys; sys.exit(0 if 2 * 2**26 >= float('$cold') else 1)" && want=gpu
like "$(cat cold.err)" "GPU from [0-9.e+]+ warm / [0-9.e+]+ cold \(device not set up\): $want" \
    "2^26 elements, the process's first call: $want (trace: $(head -c 300 cold.err))"

CH_CC_TRACE=1 ./saxpy 64 > small.out 2> small.err
is "$(cat small.out)" "right" "64 elements: correct"
like "$(cat small.err)" "ch-cc: saxpy: size [0-9.e+]+, GPU from [0-9.e+]+ warm / [0-9.e+]+ cold \(device not set up\): host" \
    "64 elements: the host path (trace: $(head -c 300 small.err))"
done_testing
