#!/bin/bash
# A first build of an annotated file (scan, reference, candidate compiles by nvcc) killed with
# SIGINT, SIGTERM or SIGHUP at several points leaves nothing in its TMPDIR (nvcc's tmpxft_*
# files included) and no output, dies of that signal, and the next build succeeds. A build
# killed with SIGKILL cannot clean up: the next run removes what it left.
. "$(dirname "$0")/../lib/tap.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
command -v perl >/dev/null || skip_all "perl not installed"
cp "$CH_CC_SRC/examples/saxpy/saxpy.c" "$CH_CC_SRC/examples/saxpy/saxpy.h" "$TEST_DIR/"
cd "$TEST_DIR"
mkdir tmp
export TMPDIR="$TEST_DIR/tmp" CH_CC_BUDGET=1
# a background job of a script ignores SIGINT; perl restores the default before the exec
start() { perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' "$CH_CC_BIN" -O2 -c saxpy.c -o s.o 2>/dev/null & }
left() { ls -A tmp | tr '\n' ' '; }
declare -A code=([INT]=130 [TERM]=143 [HUP]=129)
for sig in INT TERM HUP; do
    for t in 0.5 2 4; do
        "$CH_CC_BIN" --harness-clean >/dev/null
        rm -f s.o
        start
        pid=$!
        sleep "$t"
        kill -"$sig" "$pid" 2>/dev/null
        # it must die of the signal soon: one that does not is reported with what it was
        # doing, then killed, instead of the test waiting for it forever
        for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
        if kill -0 "$pid" 2>/dev/null; then
            diag "SIG$sig after ${t}s: still running 60 s later:" "$(ps -o pid,stat,wchan:20,args --ppid "$pid" -p "$pid" 2>&1)"
            kill -KILL "$pid"
        fi
        wait "$pid"
        s=$?
        # finished before the signal (a fast machine): then it must have succeeded
        if [ "$s" = 0 ]; then pass "SIG$sig after ${t}s: the build had finished"; continue; fi
        is "$s:$(left)" "${code[$sig]}:" "SIG$sig after ${t}s: dies of the signal, TMPDIR empty"
        [ ! -e s.o ]; ok $? "SIG$sig after ${t}s: no output"
    done
done
"$CH_CC_BIN" -O2 -c saxpy.c -o s.o 2>/dev/null; ok $? "the next build succeeds"
[ -s s.o ]; ok $? "and writes its object"
is "$(left)" "" "and leaves TMPDIR empty"

"$CH_CC_BIN" --harness-clean >/dev/null
"$CH_CC_BIN" -O2 -c saxpy.c -o k.o 2>/dev/null &
pid=$!
sleep 2
kill -KILL "$pid"
wait "$pid" 2>/dev/null
like "$(left)" "ch-cc-[a-z]+-$pid-" "SIGKILL leaves its directories (named with its pid)"
# its orphaned children (an nvcc, a sanitizer run) may still work in its directories, and a
# directory removed under a live writer comes back: wait (up to 60 s on a loaded machine) until
# no process has its working directory there
for _ in $(seq 1 120); do
    busy=$(for p in /proc/[0-9]*; do readlink "$p/cwd" 2>/dev/null; done |
        grep -c "/ch-cc-[a-z]*-$pid-")
    [ "$busy" = 0 ] && break
    sleep 0.5
done
sleep 1 # a child that was between two steps
"$CH_CC_BIN" -O2 -c saxpy.c -o s2.o 2>/dev/null; ok $? "the next build succeeds"
# an orphan still setting up its sandbox (not yet in the directory, so not seen above) can make
# a directory again after that build's sweep: a later build sweeps it (a clean-clone run under
# load saw ch-cc-cand-PID-* again after the first)
for _ in 1 2 3; do
    [ -z "$(left)" ] && break
    sleep 5
    "$CH_CC_BIN" -O2 -c saxpy.c -o s2.o 2>/dev/null
done
is "$(left)" "" "and has removed what the killed run left"
dead=$(sh -c 'echo $$')
# made NAME: a directory as ch_make_temp_dir makes it (the marker holds its own name)
made() { mkdir "tmp/$1" && echo "$1" > "tmp/$1/.ch-cc-made"; }
made "ch-cc-cand-$dead-kept01"
made "ch-cc-cand-$dead-gone01"
made "ch-cc-cand-$$-live01"
mkdir "tmp/ch-cc-cand-$dead-nomark"
touch "tmp/ch-cc-cand-$dead-kept01/.ch-cc-kept"
"$CH_CC_BIN" -O2 -c saxpy.c -o s3.o 2>/dev/null
[ -d "tmp/ch-cc-cand-$$-live01" ]; ok $? "a directory of a live process is left alone"
[ -d "tmp/ch-cc-cand-$dead-kept01" ]; ok $? "a directory kept on purpose (--harness-keep) is left alone"
[ ! -e "tmp/ch-cc-cand-$dead-gone01" ]; ok $? "a dead process's directory is removed"
[ -d "tmp/ch-cc-cand-$dead-nomark" ]; ok $? "one without the marker ch-cc writes is left alone"
done_testing
