#!/bin/bash
# Cache faults fall back, never fail: locks/ or tmp/ replaced by a plain file, a plain file at an
# entry's path, a builder that holds an entry's lock and never lets go, a garbage stats file, a
# read-only cache and an ftp:// remote each end with exit 0, an object that links and computes
# right, and one warning; --harness-on-fail=error turns the fallback into an error.
. "$(dirname "$0")/../lib/tap.sh"
cd "$TEST_DIR"
unset CH_CC_REMOTE CH_CC_LOCK_TIMEOUT CH_CC_OFFLINE CH_CC_ON_FAIL
cat >scale.c <<'SRC'
#pragma harness
void scale(int n, float *x)
{
    for (int i = 0; i < n; i++)
        x[i] = 2.0f * x[i];
}
SRC
cat >main.c <<'SRC'
#include <stdio.h>
void scale(int n, float *x);
int main(void)
{
    float x[3] = {1, 2, 3};
    scale(3, x);
    printf("%g %g %g\n", x[0], x[1], x[2]);
    return 0;
}
SRC
cc -c main.c -o main.o || exit 1
stat_of() { # stat_of CACHE_DIR COUNTER
    CH_CC_CACHE_DIR="$1" "$CH_CC_BIN" --harness-stats=json 2>/dev/null |
        sed -n "s/^[[:space:]]*\"$2\":[[:space:]]*\\([0-9]*\\).*/\\1/p"
}
# build NAME CACHE_DIR [env...]: compile scale.c into NAME.o, link and run it; sets RC, ERR, RUN
build() {
    local name=$1 dir=$2; shift 2
    rm -f "$name.o" "$name.bin"
    env CH_CC_CACHE_DIR="$dir" "$@" "$CH_CC_BIN" -O2 -c scale.c -o "$name.o" 2>"$name.err"
    RC=$?
    ERR=$(cat "$name.err")
    env CH_CC_CACHE_DIR="$dir" "$@" "$CH_CC_BIN" main.o "$name.o" -o "$name.bin" 2>/dev/null && RUN=$("./$name.bin") || RUN="(no program)"
}
expect_fallback() { # expect_fallback NAME WHAT PATTERN
    is "$RC" 0 "$2: the build succeeds"
    is "$RUN" "2 4 6" "$2: the object links and computes right"
    is "$(grep -c 'warning' "$1.err")" 1 "$2: one warning"
    like "$ERR" "$3" "$2: the warning says what is wrong"
}

# a healthy cache with the entry, copied for each fault
build seed "$TEST_DIR/seed"
is "$RC" 0 "the first build makes the entry"
is "$RUN" "2 4 6" "and a program that computes right"
entry=$(find "$TEST_DIR/seed" -mindepth 2 -maxdepth 2 -path '*/[0-9a-f][0-9a-f]/*' | head -1)
key="$(basename "$(dirname "$entry")")$(basename "$entry")"
like "$key" "^[0-9a-f]{32}$" "the entry's key is known"
fresh() { rm -rf "$TEST_DIR/$1"; cp -a "$TEST_DIR/seed" "$TEST_DIR/$1"; echo "$TEST_DIR/$1"; }

# --- locks/ and tmp/ replaced by a plain file ---------------------------------------------------
d=$(fresh locks); rm -rf "$d/locks"; echo junk >"$d/locks"
build locks "$d"
is "$RC" 0 "locks/ a plain file: the build succeeds"
is "$RUN" "2 4 6" "locks/ a plain file: the object computes right"
is "$(grep -c 'warning' locks.err)" 1 "locks/ a plain file: one warning"
like "$ERR" "locks unusable" "locks/ a plain file: the warning says so"
! grep -q 'host path' locks.err
ok $? "locks/ a plain file: the hit is still served"
# tmp/ is needed only to make an entry: a miss falls back to the host path
d=$(fresh tmp); rm -rf "$d/tmp" "$d/${key:0:2}/${key:2}"; echo junk >"$d/tmp"
build tmp "$d"
expect_fallback tmp "tmp/ a plain file" "kernel cache fault.*tmp"

# --- a plain file at the entry's path ---------------------------------------------------------------
d=$(fresh entryfile); rm -rf "$d/${key:0:2}/${key:2}"; echo junk >"$d/${key:0:2}/${key:2}"
# (offline: the rebuild ends at the host path, with its own note, instead of a long generation)
build entryfile "$d" CH_CC_OFFLINE=1
is "$RC" 0 "a file at the entry's path: the build succeeds"
is "$RUN" "2 4 6" "a file at the entry's path: the object computes right"
is "$(grep -c 'damaged' entryfile.err)" 1 "a file at the entry's path: one warning about it"
like "$ERR" "not a directory" "the warning says what is wrong"
is "$(stat_of "$d" damaged)" 1 "the damaged entry is counted"
echo junk >"$d/${key:0:2}/${key:2}"
CH_CC_CACHE_DIR="$d" "$CH_CC_BIN" --harness-clean >/dev/null 2>&1
ok $? "--harness-clean exits 0"
[ ! -e "$d/${key:0:2}/${key:2}" ]
ok $? "--harness-clean removed the plain file at the entry's path"

# --- a suspended builder holds the entry's lock ---------------------------------------------------
d=$(fresh held); rm -rf "$d/${key:0:2}/${key:2}"
flock -x "$d/locks/$key" sleep 60 &
HOLDER=$!
sleep 0.3
start=$(date +%s)
build held "$d" CH_CC_LOCK_TIMEOUT=2
el=$(( $(date +%s) - start ))
kill $HOLDER 2>/dev/null; wait $HOLDER 2>/dev/null
expect_fallback held "a lock held by a stopped build" "timed out|lock_timeout"
[ "$el" -le 20 ]
ok $? "the wait is bounded by lock_timeout (took ${el}s)"
is "$(stat_of "$d" host_fallbacks)" 2 "the fallback is counted"
is "$(stat_of "$d" fallback_cache_fault)" 1 "as a cache fault (fallback_cache_fault; the seed's build made no fault)"
is "$(grep -m1 '^lock_timeout' <("$CH_CC_BIN" --harness-config) | grep -c ' 30 ')" 1 "lock_timeout defaults to 30 s"

# --- --harness-on-fail=error makes the fallback an error -------------------------------------------
d=$(fresh onfail); rm -rf "$d/locks"; echo junk >"$d/locks"
build onfail "$d" CH_CC_ON_FAIL=error
is "$RC" 1 "--harness-on-fail=error: a cache fault is an error"

# --- a garbage stats file is rebuilt with a warning ------------------------------------------------
d=$(fresh stats); printf 'garbage\n\001\002 hits x\n' >>"$d/stats"
build stats "$d"
is "$RC" 0 "garbage stats: the build succeeds (a hit)"
is "$(grep -c 'warning' stats.err)" 1 "garbage stats: one warning"
like "$ERR" "statistics file .* damaged" "the warning says the stats were damaged"
is "$(stat_of "$d" hits)" 1 "the counters kept what could be read and counted the hit"
! grep -q garbage "$d/stats"
ok $? "the stats file was rewritten"

# --- a read-only cache still serves hits -----------------------------------------------------------
d=$(fresh ro)
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
    unshare -m bash -c "mount --bind '$d' '$d' && mount -o remount,ro,bind '$d' &&
        CH_CC_CACHE_DIR='$d' '$CH_CC_BIN' -O2 -c scale.c -o ro.o" 2>ro.err
    RC=$?
elif [ "$(id -u)" != 0 ]; then
    chmod -R a-w "$d"
    CH_CC_CACHE_DIR="$d" "$CH_CC_BIN" -O2 -c scale.c -o ro.o 2>ro.err
    RC=$?
    chmod -R u+w "$d"
else
    RC=skip
fi
if [ "$RC" = skip ]; then
    skip "read-only cache" "no way to make the cache read-only here"
else
    is "$RC" 0 "read-only cache: the build succeeds"
    "$CH_CC_BIN" main.o ro.o -o ro.bin 2>/dev/null && is "$(./ro.bin)" "2 4 6" "read-only cache: the object computes right"
    ! grep -q 'host path' ro.err
    ok $? "read-only cache: the hit is served (no host-path fallback)"
fi

# --- an ftp:// remote leaves the local cache working ------------------------------------------------
d=$(fresh ftp)
build ftp "$d" CH_CC_REMOTE=ftp://127.0.0.1/cache/
is "$RC" 0 "an ftp:// remote: the build succeeds"
is "$RUN" "2 4 6" "an ftp:// remote: the object computes right"
like "$ERR" "not an http://, https://, redis:// or file:// URL" "an ftp:// remote: the warning names the problem"
is "$(stat_of "$d" hits)" 1 "an ftp:// remote: the local cache served the hit"
done_testing
