#!/bin/bash
# Kept state on the chip is contained (issue 15, attacks7 #01 and #21): a candidate that counts
# its launches in memory it reads before writing (a word of __shared__ memory left on the SM,
# a slot of a local array left in local memory) passes verification, which calls it a few
# times, and would stop computing after 64 launches in a user's program. The unit scrubs shared
# memory before every call (src/emit/scrub.c) and the hardening gives every local an
# initialiser (src/verify/harden.c), so 20000 calls of the linked program stay right. The same
# for a count kept in a block the allocator hands back (attacks8 #18, the stream-ordered pool;
# the catalog's saxpy_stale_block.cu, cudaMalloc): the hardening zeroes every allocation the
# candidate names, so the count starts at 0 on every call.
. "$(dirname "$0")/../lib/tap.sh"
require_gpu
export CH_CC_BUDGET=1
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

# a program calling saxpy on one block's worth of data, many times, checking every call
cat > "$TEST_DIR/many.c" <<'C'
#include <stdio.h>
void saxpy(int n, float a, const float *x, float *y);
int main(void)
{
    static float x[200], y[200];
    for (int call = 0; call < 20000; call++) {
        for (int i = 0; i < 200; i++) {
            x[i] = (float)i;
            y[i] = 1.0f;
        }
        saxpy(200, 2.0f, x, y);
        for (int i = 0; i < 200; i++)
            if (y[i] != 2.0f * (float)i + 1.0f) {
                printf("wrong at call %d, element %d: %g\n", call, i, y[i]);
                return 1;
            }
    }
    puts("right");
    return 0;
}
C
for cu in "$CH_CC_SRC/tests/data/attacks7/01_shared_memory_carryover_counter.cu" \
    "$CH_CC_SRC/tests/data/attacks7/21_uninitialised_local_memory.cu" \
    "$CH_CC_SRC/tests/data/attacks8/18_mallocasync_pool_leftover.cu" \
    "$CH_CC_SRC/tests/gpu/candidates/saxpy_stale_block.cu"; do
    a=$(basename "$cu" .cu)
    export CH_CC_CACHE_DIR="$TEST_DIR/.cache-$a"
    mkdir -p "$TEST_DIR/$a" && cd "$TEST_DIR/$a" || exit 1
    cp "$CH_CC_SRC/examples/saxpy/saxpy.c" "$CH_CC_SRC/examples/saxpy/saxpy.h" "$TEST_DIR/many.c" .
    start_llm "$a" "$cu"
    "$CH_CC_BIN" -O2 -c saxpy.c -o saxpy.o 2> build.err
    ok $? "$a: the build succeeds"
    stop_llm
    if grep -q "verified kernel linked ($a" build.err; then
        "$CH_CC_BIN" many.c saxpy.o -o many 2>> build.err
        CH_CC_FORCE_GPU=1 CH_CC_TRACE=1 timeout 300 ./many > run.out 2> trace.err
        ok $? "$a: 20000 calls of the linked candidate stay right ($(head -1 run.out))"
        like "$(sort -u trace.err | head -3)" "saxpy: gpu" "$a: the calls took the GPU path"
    else
        # refused at verification is a safe outcome too: then the host path is linked
        like "$(cat build.err)" "host path linked|refused" "$a: refused ($(grep -m1 -o 'static: .*' build.err | cut -c1-120))"
    fi
done
done_testing
