#!/bin/bash
# A candidate's parse is bounded (attacks7 row 29, a compile bomb of doubling #defines). The
# bomb's shape is refused at stage 0 before any parse, at the #define whose expansion passes a
# million tokens (src/verify/source_guard.c); a bomb that hides from that estimate (a function
# macro nested in its own arguments) is refused once the parse, in a child process, passes its
# memory or time limit (ch/static_child.h), located at the candidate's 1:1, while ch-cc's own
# memory stays small and the nvcc compile beside it stops with it. An honest candidate still
# passes stage 0 under the same limits.
. "$(dirname "$0")/../lib/tap.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
REL="${CH_CC_REL_BIN:-$CH_CC_BIN}" # --harness-verify is much faster in the release build
unset CH_CC_REMOTE CH_CC_OFFLINE CH_CC_ON_FAIL CH_CC_PROVIDER CH_CC_MODEL CH_CC_API_KEY \
    CH_CC_API_BASE CH_CC_QUIET CH_CC_BUDGET
cd "$TEST_DIR" || exit 1
cp "$CH_CC_SRC/examples/saxpy/saxpy.c" "$CH_CC_SRC/examples/saxpy/saxpy.h" .
# small limits, so the bomb is over them in seconds; an honest candidate needs about 300 MiB
export CH_CC_PARSE_LIMIT_MB=512 CH_CC_PARSE_LIMIT_SECONDS=60

A="$CH_CC_SRC/tests/data/attacks7/29_macro_expansion_bomb.cu"
# the attack with its 2^28 tokens made by NESTING calls of `#define D(x) x x` instead
nested_bomb() {
    local e='+1'
    for _ in $(seq 1 "$1"); do e="D($e)"; done
    grep '^#include' "$A"
    echo '#define D(x) x x'
    sed -n '/^__global__/,$p' "$A" | sed "s/B28/$e/"
}
nested_bomb 22 > nested22.cu

# Without the bounds these parses ran in ch-cc itself: 10 GB in three minutes, still growing.
# A ulimit keeps such a regression from taking the machine's memory (not for a sanitized
# binary, whose shadow memory no such limit allows).
as_limit=4000000
grep -qa __asan_init "$REL" && as_limit=unlimited

# verify_peak CANDIDATE DIR: --harness-verify in DIR (out, rc), and the peak resident size of
# ch-cc's own process (its VmHWM, sampled until it ends) in DIR/hwm, in kB; killed after two
# minutes
verify_peak() {
    mkdir -p "$2" && cp saxpy.c saxpy.h "$2/"
    (
        cd "$2" || exit 1
        ulimit -v "$as_limit" 2> /dev/null
        CH_CC_CACHE_DIR="$PWD/cache" "$REL" --harness-verify="$1" saxpy.c > out 2>&1 &
        pid=$!
        hwm=0
        SECONDS=0
        while kill -0 "$pid" 2> /dev/null; do
            v=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2> /dev/null)
            [ -n "$v" ] && hwm=$v
            sleep 0.05
            # far more than a bounded run needs (its children die with it)
            [ "$SECONDS" -ge 120 ] && kill -KILL "$pid"
        done
        wait "$pid"
        echo $? > rc
        echo "$hwm" > hwm
    )
}

# the attack itself: refused by its text, in no time, where the expansion passes the bound
verify_peak "$A" doubling
is "$(cat doubling/rc)" 1 "the doubling bomb is refused (exit 1)"
like "$(cat doubling/out)" "stage 0 static +FAIL +0\.0" "at stage 0, before any parse"
like "$(grep '^message:' doubling/out)" \
    "the macro 'B19' expands to 1048576 tokens or more: refused .*\(line 27, column 9\)" \
    "the message names the macro and its line"

start=$(date +%s)
verify_peak "$TEST_DIR/nested22.cu" nested
took=$(($(date +%s) - start))
is "$(cat nested/rc)" 1 "the nested bomb is refused (exit 1)"
like "$(cat nested/out)" "stage 0 static +FAIL" "at stage 0"
like "$(grep '^message:' nested/out)" \
    "the candidate's source needs more than 512 MiB to parse.*: refused .*\(line 1, column 1\)" \
    "the message says which limit, located at the candidate's 1:1"
hwm=$(cat nested/hwm)
ok $((hwm > 0 && hwm < 400000 ? 0 : 1)) "ch-cc's own peak memory stays small (${hwm} kB)"
# the parse stops at its limit in seconds; nvcc beside it stops with it
ok $((took < 60 ? 0 : 1)) "refused in ${took} s, not after the whole compile"

# an honest candidate passes stage 0 under the same limits (and stage 1; no GPU: pending)
verify_peak "$CH_CC_SRC/tests/gpu/candidates/saxpy_dev_ok.cu" honest
like "$(cat honest/out)" "stage 0 static +pass" "an honest candidate passes stage 0"
like "$(cat honest/rc)" "^(0|3)$" "and is verified or pending (exit 0 or 3)"

# a parse past its time limit (with memory to spare) is refused with the time
CH_CC_PARSE_LIMIT_SECONDS=1 CH_CC_PARSE_LIMIT_MB=8192 verify_peak "$TEST_DIR/nested22.cu" slow
like "$(grep '^message:' slow/out)" \
    "the candidate's source needs more than 1 s to parse: refused .*\(line 1, column 1\)" \
    "a parse past its time limit is refused with the time"

done_testing
