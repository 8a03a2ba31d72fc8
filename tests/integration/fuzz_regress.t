#!/bin/bash
# Fuzz regressions: every input that once crashed, hung, leaked or tripped UBSan in a parser
# (tests/fuzz/regress/<target>/), and every seed, is fed to that parser's fuzz target linked with
# the reproducer main (build/fuzz/repro_<target>, ASan+UBSan, no libFuzzer). A fixed bug that
# comes back is a sanitizer report, a non-zero exit or a run past the time limit here.
. "$(dirname "$0")/../lib/tap.sh"
: "${CH_CC_FUZZ_BUILD:=$CH_CC_SRC/build/fuzz}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:exitcode=99}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
for src in "$CH_CC_SRC"/tests/fuzz/fuzz_*.c; do
    t=$(basename "$src" .c)
    t=${t#fuzz_}
    bin="$CH_CC_FUZZ_BUILD/repro_$t"
    if [ ! -x "$bin" ]; then
        fail "$t: reproducer $bin is built (make fuzz-regress)"
        continue
    fi
    inputs=()
    for dir in regress seeds; do
        for f in "$CH_CC_SRC/tests/fuzz/$dir/$t"/*; do
            [ -f "$f" ] && inputs+=("$f")
        done
    done
    is "$([ ${#inputs[@]} -gt 0 ] && echo some)" some "$t: has seed or regression inputs"
    for f in "${inputs[@]}"; do
        name="$t: $(basename "$(dirname "$f")")/$(basename "$f")"
        # one input at a time so a report names it; a fixed input takes well under a second of CPU
        # (a hang that comes back, such as the extent product blow-up, takes more than 5)
        out=$(cd "$TEST_DIR" && ulimit -t 5 && timeout 60 "$bin" "$f" 2>&1)
        rc=$?
        if [ $rc -eq 0 ] && ! printf '%s' "$out" | grep -q 'ERROR: \|runtime error'; then
            pass "$name"
        else
            fail "$name"
            diag "exit $rc" "$(printf '%s\n' "$out" | head -30)"
        fi
    done
done
done_testing
