#!/bin/bash
# Garbage in, located error out: the real ch-cc (the sanitizer build under make check) is fed C
# files with harness pragmas mangled in every way a careless or hostile user might
# (tests/fuzz/garbage.py: truncation, random bytes, NUL bytes, non-UTF-8, extents nested 50k deep
# or multiplied out past any real size, huge literals, unterminated strings, comments and
# pragmas), generated from a fixed seed so a failure reproduces. Each compile must end by exit,
# never by a signal or a sanitizer report, and a failed compile must say where:
# `file:line:col: error:`.
. "$(dirname "$0")/../lib/tap.sh"
cd "$TEST_DIR"
seed=${CH_CC_GARBAGE_SEED:-20261204}
count=${CH_CC_GARBAGE_COUNT:-52}
python3 "$CH_CC_SRC/tests/fuzz/garbage.py" "$seed" "$count" garbage
diag "garbage files from seed $seed"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:exitcode=99}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# no model, no remote: the scan and the host path are what is under test
export CH_CC_PROVIDER=none CH_CC_OFFLINE=1
for f in garbage/*.c; do
    name=$(basename "$f")
    rm -f out.o
    timeout 120 "$CH_CC_BIN" -c "$f" -o out.o 2> err.txt; s=$?
    if [ "$s" -ge 124 ] || [ "$s" -eq 99 ] || grep -q 'Sanitizer\|runtime error' err.txt; then
        fail "$name: ends by exit 0 or 1 (got $s)"
        diag "$(head -20 err.txt)"
        continue
    fi
    ok $([ "$s" -le 1 ] && echo 0 || echo 1) "$name: ends by exit 0 or 1 (got $s)"
    if [ "$s" -ne 0 ]; then
        grep -Eq "^(garbage/)?$name:[0-9]+:[0-9]+: (fatal )?error: " err.txt
        ok $? "$name: the failure is a located error"
        grep -q . err.txt || diag "no stderr"
        [ ! -e out.o ]; ok $? "$name: no output after a failure"
    fi
done
done_testing
