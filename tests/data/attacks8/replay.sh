#!/bin/bash
# Support (not an attack): replays every attack of this directory against the release binary,
# one at a time (small machine), and prints the verdict lines RESULTS.md quotes.
# Usage: replay.sh [CH_CC] [WORKDIR]
H=$(cd "$(dirname "$0")" && pwd); CC=${1:-/work/main/build/bin/ch-cc}; W=${2:-$(mktemp -d)}
SAXPY=$H/../../../examples/saxpy
ulimit -v 6000000
for f in "$H"/[0-9]*.cu; do
    d=$W/v.$(basename "$f" .cu); mkdir -p "$d"; cp "$SAXPY"/saxpy.[ch] "$d"
    (cd "$d" && CH_CC_CACHE_DIR=$d/cache timeout 300 "$CC" --harness-verify="$f" saxpy.c > out 2> err
     echo "$(basename "$f") rc=$? $(grep ^message: out | cut -c1-300)")
done
for f in "$H"/[0-9]*_ref_*.c; do
    t=$(basename "$f" | cut -d_ -f1); p=$H/${t}_probe_main.c; [ -f "$p" ] || p=$H/27_probe_main.c
    SB_DIR=$W/sb CH_CC_REL=$CC timeout 300 bash "$H/spec_build.sh" "a$t" - "$f" "$p" 2>&1 | grep -v '^/' | cut -c1-300
done
for f in "$H"/[0-9]*.sh; do
    echo "== $(basename "$f")"; timeout 300 bash "$f" "$CC" "$SAXPY" "$W/s.$(basename "$f" .sh)" 2>&1 | tail -4
done
