#!/bin/bash
# Direct mode and files named by options the dependency list may leave out: `-imacros vals.h`
# (the preprocessor reads vals.h for its macros only; with -MD gcc does list it, but ch-cc's
# own key is built from the arguments and the files it records). After vals.h changes, a safe
# build must miss. Also checks `-include`. (A probe of the manifest's file list, not a trick.)
# A safe product must miss when any file an option names changes.
# Usage: 41_direct_mode_imacros_stale.sh CH_CC SAXPY_DIR WORKDIR
CC=${1:-/work/main/build/bin/ch-cc}; SRC=${2:-/work/main/examples/saxpy}; W=${3:-$(mktemp -d)}
mkdir -p "$W" && cd "$W" || exit 1
cp "$SRC/saxpy.c" "$SRC/saxpy.h" .
printf 'int get_val(void) { return VAL; }\n' >> saxpy.c
printf '#include <stdio.h>\nint get_val(void);\nint main(void) { printf("val=%%d\\n", get_val()); return 0; }\n' > main.c
export CH_CC_CACHE_DIR=$W/cache
echo '#define VAL 1' > vals.h
"$CC" -O2 -imacros vals.h -c saxpy.c -o saxpy.o 2>/dev/null
echo '#define VAL 2' > vals.h; sleep 1.5
"$CC" -O2 -imacros vals.h -c saxpy.c -o saxpy.o 2>/dev/null
cc main.c saxpy.o -o prog && ./prog                      # safe: val=2
"$CC" --harness-stats | grep direct_
