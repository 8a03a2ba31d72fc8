#!/bin/bash
# Cache under concurrency and crashes (tests/fakes/cache_torture drives the cache API):
# 16 processes of random get/put/update/evict keep every entry whole and the counters exact;
# racing generators of one missing key generate it once; SIGKILLed writers leave no visible
# partial entry and no lock or temp directory that blocks the next writer.
. "$(dirname "$0")/../lib/tap.sh"
T="${CH_CC_TEST_BUILD:-$CH_CC_SRC/build/asan}/tests/fakes/cache_torture"
[ -x "$T" ] || skip_all "cache_torture not built"

out=$("$T" torture "$TEST_DIR/torture" 16 250 4 2>&1)
ok $? "16 processes x 250 random operations: entries valid, counters equal the operations done"
diag "$out"
like "$out" "generations +counted ([1-9][0-9]*) done \\1" "generations were counted exactly"
like "$out" "evictions +counted ([0-9]+) done \\1" "evictions were counted exactly"

out=$("$T" once "$TEST_DIR/once" 12 2>&1)
ok $? "12 processes racing on one missing key: exactly one generates"
like "$out" "generated 1 waited 11 hit 0 generations 1|generated 1 waited [0-9]+ hit [0-9]+ generations 1" \
    "the others waited for it and read it"

out=$("$T" crash "$TEST_DIR/crash" 40 2>&1)
ok $? "writers SIGKILLed at random points: no partial entry, stale lock recovered"
diag "$out"
like "$out" "leftover_temps 0" "dead writers' temp directories are removed by the next writer"

# the cache written by the torture run passes the real binary's stats and clean
stats=$(CH_CC_CACHE_DIR="$TEST_DIR/once" "$CH_CC_BIN" --harness-stats=json)
ok $? "ch-cc --harness-stats=json on the raced cache exits 0"
like "$stats" '"generations":[[:space:]]*1,' "stats show the single generation"
CH_CC_CACHE_DIR="$TEST_DIR/once" "$CH_CC_BIN" --harness-clean >/dev/null
ok $? "ch-cc --harness-clean exits 0"
like "$(CH_CC_CACHE_DIR="$TEST_DIR/once" "$CH_CC_BIN" --harness-stats=json)" '"entries":[[:space:]]*0,' \
    "no entries after clean"
done_testing
