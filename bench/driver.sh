#!/bin/sh
# Pass-through overhead: `ch-cc -c` against the real compiler on files without annotations.
# Median of 15 interleaved runs each; the ratio's target is <= 1.02.
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
cp "$CH_CC_SRC/tests/integration/data/cproj/stats.c" "$CH_CC_SRC/tests/integration/data/cproj/stats.h" .
cp "$CH_CC_SRC/tests/integration/data/cuproj/vec.cu" .
export CH_CC_CACHE_DIR="$dir/cache"
ratio() { python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print(f'{a/b:.3f}')" "$1" "$2"; }
set -- $(python3 "$CH_CC_SRC/bench/timeit.py" 15 -- cc -O2 -c stats.c -o a.o -- "$CH_CC_BIN" -O2 -c stats.c -o b.o)
printf 'driver  .c  plain %8.2f ms   ch-cc %8.2f ms   ratio %s\n' "$1" "$3" "$(ratio "$3" "$1")"
if command -v nvcc >/dev/null 2>&1; then
    set -- $(python3 "$CH_CC_SRC/bench/timeit.py" 11 -- nvcc -O2 -c vec.cu -o a.o -- "$CH_CC_BIN" -O2 -c vec.cu -o b.o)
    printf 'driver  .cu plain %8.2f ms   ch-cc %8.2f ms   ratio %s\n' "$1" "$3" "$(ratio "$3" "$1")"
fi
