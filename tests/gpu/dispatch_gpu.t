#!/bin/bash
# The dispatcher's choice on the H200 (issue 14): a saxpy of 2^26 elements built with ch-cc has
# a device launcher, so verification times the whole call through the trusted runtime (report:
# call_path "runtime") at three sizes; called at the tune size it takes the GPU path (the
# runtime makes it faster than the host), at a tiny size the host path when the host measured
# faster there; CH_CC_TRACE says each call's size, thresholds and choice. A process's first call
# weighs the device's set-up too (issue 14): with CH_CC_DEVICE_INIT=load the warm threshold
# decides, without it the cold one.
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
    int n = argc > 1 ? atoi(argv[1]) : 1 << 26;
    float *x = malloc(sizeof *x * (size_t)n), *y = malloc(sizeof *y * (size_t)n);
    for (int i = 0; i < n; i++) {
        x[i] = (float)(i % 1000);
        y[i] = 1.0f;
    }
    saxpy(n, 2.0f, x, y);
    for (int i = 0; i < n; i++)
        if (y[i] != 2.0f * (float)(i % 1000) + 1.0f) {
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

# with the device set up before main, the warm threshold decides: the GPU path at 2^26
CH_CC_DEVICE_INIT=load CH_CC_TRACE=1 ./saxpy $((1 << 26)) > big.out 2> big.err
is "$(cat big.out)" "right" "2^26 elements: correct"
like "$(cat big.err)" "ch-cc: saxpy: size [0-9.e+]+, GPU from [0-9.e+]+ warm / [0-9.e+]+ cold \(device set up\): gpu" \
    "2^26 elements, device set up before main: the GPU path (trace: $(head -c 300 big.err))"

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
