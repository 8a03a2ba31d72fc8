#!/bin/bash
# Direct mode serves a stale object: the user's file pulls data in with the assembler's
# `.incbin "blob.bin"` (a file the preprocessor never reads, so `-M` does not list it and the
# manifest does not hash it). After blob.bin changes, the next identical command is a direct hit
# and the old bytes are linked. ccache refuses to record a file whose source holds ".incbin".
# A safe product must miss (or not record) when a file it cannot hash takes part in the build.
# Usage: 11_direct_mode_incbin_stale.sh CH_CC SAXPY_DIR WORKDIR
CC=${1:-/work/main/build/bin/ch-cc}; SRC=${2:-/work/main/examples/saxpy}; W=${3:-$(mktemp -d)}
mkdir -p "$W" && cd "$W" || exit 1
cp "$SRC/saxpy.c" "$SRC/saxpy.h" .
cat >> saxpy.c <<'C'

extern const char blob[];
__asm__(".section .rodata\n.globl blob\nblob:\n.incbin \"blob.bin\"\n.byte 0\n.text\n");
C
printf '#include <stdio.h>\nextern const char blob[];\nint main(void) { puts(blob); return 0; }\n' > main.c
export CH_CC_CACHE_DIR=$W/cache
printf 'old' > blob.bin; sleep 1.5
"$CC" -O2 -c saxpy.c -o saxpy.o 2>/dev/null           # cold: records the manifest
printf 'new' > blob.bin; sleep 1.5
"$CC" -O2 -c saxpy.c -o saxpy.o 2>/dev/null           # should rebuild
cc main.c saxpy.o -o prog && ./prog                      # safe: "new"; observed: "old"
"$CC" --harness-stats | grep direct_
