#!/bin/sh
# Is the dispatcher ever slower than the host path it replaced (issue 14)? Builds every annotated
# .c of DIR with ch-cc, and for each entry (external functions) times a generated program
# (bench/dispatch_main.py: valid inputs from the entry's checklist) at every size set of the
# checklist, from the smallest smoke set to tune, once with CH_CC_FORCE_HOST=1 and once as the
# dispatcher chooses, each in fresh processes: the first call (the process's cold call) and the
# best of the following warm ones. Prints one row per entry and size (the two ratios, dispatcher
# over host) and the worst ratio over all of them; exit 1 when it is above 1.05. GPU only.
#
# usage: bench/dispatch.sh DIR   (CH_CC_DISPATCH_CALLS: calls per process, default 5;
# CH_CC_DISPATCH_RUNS: processes per size and path, the least time of each kind kept, default 3;
# CH_CC_DISPATCH_NOISE_MS: differences below it count as none, default 0.02 ms: the clock and
# the process's own jitter at the smallest sizes; CH_CC_DISPATCH_CACHE: a cache directory to
# keep and reuse; default a fresh one)
set -u
src=${CH_CC_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
if [ $# -ne 1 ] || [ ! -d "$1" ]; then
    echo "usage: $0 DIR (a directory of annotated .c files)" >&2
    exit 2
fi
if ! (command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU); then
    echo "skipped: no GPU"
    exit 0
fi
dir=$(cd "$1" && pwd)
bin=${CH_CC_BIN:-$src/build/bin/ch-cc}
calls=${CH_CC_DISPATCH_CALLS:-5}
noise=${CH_CC_DISPATCH_NOISE_MS:-0.02}
runs=${CH_CC_DISPATCH_RUNS:-3}
export PATH="$PATH:/usr/local/cuda/bin"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ch-cc-dispatch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export CH_CC_CACHE_DIR="${CH_CC_DISPATCH_CACHE:-$tmp/cache}"
unset CH_CC_FORCE_GPU CH_CC_FORCE_HOST CH_CC_TRACE CH_CC_DEVICE_INIT

# ratio A B: A / B, 1 when they differ by less than the noise (B at least a microsecond)
ratio() {
    awk -v a="$1" -v b="$2" -v z="$noise" 'BEGIN { if (a - b < z && b - a < z) { print "1.000"; exit }
        if (b < 0.001) b = 0.001; printf "%.3f", a / b }'
}

# best_of DISPATCH PROG SIZES: "first best" of PROG run in RUNS fresh processes, each number
# the least seen (one process's first call is at the mercy of the machine's jitter); DISPATCH 0
# forces the host path
best_of() {
    i=0
    while [ $i -lt "$runs" ]; do
        # shellcheck disable=SC2086 # the sizes are one argument each
        if [ "$1" = 0 ]; then CH_CC_FORCE_HOST=1 "$2" $3 "$calls"; else "$2" $3 "$calls"; fi ||
            return 1
        i=$((i + 1))
    done | awk 'NR == 1 || $1 < f { f = $1 } NR == 1 || $2 < b { b = $2 }
        END { if (NR) printf "%.6f %.6f\n", f, b; else exit 1 }'
}

worst=0
worst_at=-
printf '%-28s %-24s %10s %10s %8s %10s %10s %8s\n' entry sizes host_1st disp_1st ratio \
    host_warm disp_warm ratio
for f in "$dir"/*.c; do
    grep -q 'harness' "$f" || continue
    base=$(basename "$f" .c)
    obj="$tmp/$base.o"
    # the file's own main, if it has one, gives way to the timing program's
    if ! "$bin" -O2 -Dmain=ch_dispatch_user_main -c "$f" -o "$obj" 2> "$tmp/$base.build.log"; then
        echo "$base: ch-cc did not build it: $(head -1 "$tmp/$base.build.log")"
        continue
    fi
    "$bin" --harness-checklist "$f" > "$tmp/$base.json" 2> /dev/null || continue
    for entry in $(python3 -c 'import json, sys
for c in json.load(open(sys.argv[1])):
    if not c["signature"].startswith("static"):
        print(c["name"])' "$tmp/$base.json"); do
        prog="$tmp/$base.$entry"
        if ! { python3 "$src/bench/dispatch_main.py" "$tmp/$base.json" "$entry" > "$prog.main.c" &&
            cc -O2 -std=c11 -w -c "$prog.main.c" -o "$prog.main.o" &&
            "$bin" -O2 "$prog.main.o" "$obj" -lm -o "$prog" 2>> "$tmp/$base.build.log"; }; then
            echo "$base/$entry: the timing program did not build"
            continue
        fi
        python3 "$src/bench/dispatch_main.py" "$tmp/$base.json" "$entry" --sizes |
            tail -n +2 > "$prog.sizes"
        while read -r sizes; do
            h=$(best_of 0 "$prog" "$sizes") || h=
            d=$(best_of 1 "$prog" "$sizes") || d=
            if [ -z "$h" ] || [ -z "$d" ]; then
                echo "$base/$entry at $sizes: the program failed"
                continue
            fi
            # shellcheck disable=SC2086 # four numbers: host first, best; dispatcher's
            set -- $h $d
            r1=$(ratio "$3" "$1")
            r2=$(ratio "$4" "$2")
            printf '%-28s %-24s %10.3f %10.3f %8s %10.3f %10.3f %8s\n' "$base/$entry" \
                "$(echo "$sizes" | tr ' ' ,)" "$1" "$3" "$r1" "$2" "$4" "$r2"
            for r in $r1 $r2; do
                if awk -v a="$r" -v b="$worst" 'BEGIN { exit !(a > b) }'; then
                    worst=$r
                    worst_at="$base/$entry at $(echo "$sizes" | tr ' ' ,)"
                fi
            done
        done < "$prog.sizes"
    done
done
echo "worst ratio (dispatcher / host path): $worst ($worst_at)"
awk -v w="$worst" 'BEGIN { exit !(w <= 1.05) }'
