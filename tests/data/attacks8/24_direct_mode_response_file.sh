#!/bin/bash
# Direct mode serves a stale object: the options come from a response file (`@build.rsp`, as
# CMake/Ninja write for long command lines, and as gcc and nvcc read). The key hashes the
# argument "@build.rsp", not what the file holds; after the build system rewrites it with
# -DVAL=2, the same command is a direct hit with VAL=1. (ccache expands @files before hashing.)
# A safe product must expand response files before keying (or hash their content).
# Usage: 24_direct_mode_response_file.sh CH_CC SAXPY_DIR WORKDIR
CC=${1:-/work/main/build/bin/ch-cc}; SRC=${2:-/work/main/examples/saxpy}; W=${3:-$(mktemp -d)}
mkdir -p "$W" && cd "$W" || exit 1
cp "$SRC/saxpy.c" "$SRC/saxpy.h" .
printf 'int get_val(void) { return VAL; }\n' >> saxpy.c
printf '#include <stdio.h>\nint get_val(void);\nint main(void) { printf("val=%%d\\n", get_val()); return 0; }\n' > main.c
export CH_CC_CACHE_DIR=$W/cache
echo '-DVAL=1' > build.rsp
"$CC" -O2 @build.rsp -c saxpy.c -o saxpy.o 2>err1; echo "cold rc=$?"
echo '-DVAL=2' > build.rsp; sleep 1.5
"$CC" -O2 @build.rsp -c saxpy.c -o saxpy.o 2>err2; echo "warm rc=$?"
cc main.c saxpy.o -o prog && ./prog                      # safe: val=2
"$CC" --harness-stats | grep direct_
