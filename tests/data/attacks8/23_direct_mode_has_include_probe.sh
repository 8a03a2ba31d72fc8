#!/bin/bash
# Direct mode serves a stale object: saxpy.c probes an optional header with __has_include and
# includes it only when present (a common feature test: `#if __has_include("local_tuning.h")`).
# At the cold build the file is absent, so -M lists nothing for it and the manifest records no
# path to re-check; after the user creates it, the same command is a direct hit with the old
# code. (attacks7 #13 recorded missing #include search paths; a __has_include probe is not an
# #include: ccache handles it only by hashing the preprocessed output.)
# A safe product must record every path the preprocessor probed (__has_include too) or miss.
# Usage: 23_direct_mode_has_include_probe.sh CH_CC SAXPY_DIR WORKDIR
CC=${1:-/work/main/build/bin/ch-cc}; SRC=${2:-/work/main/examples/saxpy}; W=${3:-$(mktemp -d)}
mkdir -p "$W" && cd "$W" || exit 1
cp "$SRC/saxpy.c" "$SRC/saxpy.h" .
printf '#if __has_include("local_tuning.h")\n#include "local_tuning.h"\n#else\n#define VAL 1\n#endif\nint get_val(void) { return VAL; }\n' >> saxpy.c
printf '#include <stdio.h>\nint get_val(void);\nint main(void) { printf("val=%%d\\n", get_val()); return 0; }\n' > main.c
export CH_CC_CACHE_DIR=$W/cache
"$CC" -O2 -c saxpy.c -o saxpy.o 2>/dev/null
echo '#define VAL 2' > local_tuning.h; sleep 1.5
"$CC" -O2 -c saxpy.c -o saxpy.o 2>/dev/null
cc main.c saxpy.o -o prog && ./prog                      # safe: val=2
"$CC" --harness-stats | grep direct_
