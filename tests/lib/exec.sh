#!/bin/bash
# prove --exec helper: TAP scripts (*.t) run under bash, unit binaries print Criterion's TAP.
# The TAP stream is also kept in $CH_CC_TEST_LOGS for the closing count.
#
# The stream goes to that file first and is printed when the test ends, never through a pipe:
# a process the test started and lost (a build killed on purpose leaves its children) would
# hold a pipe's end open and keep prove waiting after the test itself was done. A watchdog
# (CH_CC_TEST_LIMIT seconds, default 1800; the slowest test takes about 900 s on two cores)
# ends a test that hangs: its process group is killed, the processes still running are listed
# in the log, and the test fails with that, instead of CI running out of time with no word of
# which test held it.
t=$1
name=$(echo "$t" | tr '/' '_')
log="${CH_CC_TEST_LOGS:-/tmp}/$name.tap"
limit="${CH_CC_TEST_LIMIT:-1800}"
# job control: the test and the watchdog each run in a process group of their own
set -m
case "$t" in
*.t) bash "$t" > "$log" &
    ;;
*) "$t" --tap=- --jobs=1 2> "$log.stderr" > "$log" &
    ;;
esac
pid=$!
(
    sleep "$limit" || exit 0
    # the processes younger than the test (what it started, lost ones included), lines cut short
    ps -eo pid,ppid,pgid,stat,etimes,args --forest 2>&1 |
        awk -v age="$limit" 'NR == 1 || $5 <= age + 5' | cut -c1-240 > "$log.hung"
    kill -KILL -- "-$pid"
) > /dev/null 2>&1 &
dog=$!
wait "$pid"
status=$?
set +m # no job notice for the watchdog's end
kill -- "-$dog" 2> /dev/null
wait "$dog" 2> /dev/null
if [ -f "$log.hung" ]; then
    {
        echo "not ok - watchdog: $t still ran after $limit s and was killed (CH_CC_TEST_LIMIT)"
        echo "# processes when it was killed:"
        sed 's/^/#   /' "$log.hung" | head -200
    } >> "$log"
    status=1
fi
cat "$log"
exit "$status"
