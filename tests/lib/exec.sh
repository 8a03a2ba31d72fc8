#!/bin/bash
# prove --exec helper: TAP scripts (*.t) run under bash, unit binaries print Criterion's TAP.
# The TAP stream is also kept in $CH_CC_TEST_LOGS for the closing count.
set -o pipefail
t=$1
name=$(echo "$t" | tr '/' '_')
log="${CH_CC_TEST_LOGS:-/tmp}/$name.tap"
case "$t" in
*.t) bash "$t" | tee "$log" ;;
*) "$t" --tap=- --jobs=1 2>"$log.stderr" | tee "$log" ;;
esac
