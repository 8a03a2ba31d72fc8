#!/bin/sh
# Warm rebuild of an annotated file (examples/saxpy/saxpy.c, with -O2 -MD):
# `ch-cc -c` served by direct mode against the plain `cc -c` of the same file. Medians of 21
# interleaved runs each, after one cold build that fills the cache; peak memory (max of 5
# runs of /usr/bin/time's %M: the process and the children it waited for). Target: ratio
# <= 1.2. Without a GPU the entry takes its host path, and the cache still holds it.
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
cp "$CH_CC_SRC/examples/saxpy/saxpy.c" "$CH_CC_SRC/examples/saxpy/saxpy.h" .
export CH_CC_CACHE_DIR="$dir/cache"
flags="-O2 -MD" # not -Wall: plain cc would warn on the pragma
sleep 1 # files modified in the second a compile starts are not recorded (direct.c)
"$CH_CC_BIN" $flags -c saxpy.c -o warm.o 2>/dev/null
ratio() { python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print(f'{a/b:.3f}')" "$1" "$2"; }
set -- $(python3 "$CH_CC_SRC/bench/timeit.py" 21 -- cc $flags -c saxpy.c -o plain.o \
    -- "$CH_CC_BIN" $flags -c saxpy.c -o warm.o)
hits=$("$CH_CC_BIN" --harness-stats | awk '$1 == "direct_hits" { print $2 }')
peak() {
    m=0
    for _ in 1 2 3 4 5; do
        k=$(/usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1)
        [ "$k" -gt "$m" ] && m=$k
    done
    echo "$m"
}
if [ -x /usr/bin/time ]; then
    mem_plain=$(peak cc $flags -c saxpy.c -o plain.o)
    mem_warm=$(peak "$CH_CC_BIN" $flags -c saxpy.c -o warm.o)
    mem="peak   plain $((mem_plain / 1024)) MiB   ch-cc $((mem_warm / 1024)) MiB"
else
    mem="peak memory: /usr/bin/time not installed"
fi
printf 'warm    .c  plain %8.2f ms   ch-cc %8.2f ms   ratio %s (target <= 1.2; %s direct hits)\n' \
    "$1" "$3" "$(ratio "$3" "$1")" "$hits"
printf 'warm    %s\n' "$mem"
