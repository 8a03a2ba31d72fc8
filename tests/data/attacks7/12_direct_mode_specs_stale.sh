#!/bin/bash
# Direct mode serves a stale object: `-specs=my.specs` makes gcc read a file that adds
# `-DVAL=N` to every preprocessing; the argument is hashed, the file's content is not (and -M
# does not list it). After the specs file changes, the same command is a direct hit with the
# old VAL. (ccache hashes the content of -specs=, -fprofile-use=, plugin and sanitizer-list files.)
# A safe product must hash every file an argument names, or not record such commands.
# Usage: 12_direct_mode_specs_stale.sh CH_CC SAXPY_DIR WORKDIR
CC=${1:-/work/main/build/bin/ch-cc}; SRC=${2:-/work/main/examples/saxpy}; W=${3:-$(mktemp -d)}
mkdir -p "$W" && cd "$W" || exit 1
cp "$SRC/saxpy.c" "$SRC/saxpy.h" .
echo 'int get_val(void) { return VAL; }' >> saxpy.c
printf '#include <stdio.h>\nint get_val(void);\nint main(void) { printf("val=%%d\\n", get_val()); return 0; }\n' > main.c
export CH_CC_CACHE_DIR=$W/cache
printf '*cpp:\n+ -DVAL=1\n\n' > my.specs; sleep 1.5
"$CC" -O2 -specs=my.specs -c saxpy.c -o saxpy.o 2>/dev/null
printf '*cpp:\n+ -DVAL=2\n\n' > my.specs; sleep 1.5
"$CC" -O2 -specs=my.specs -c saxpy.c -o saxpy.o 2>/dev/null
cc main.c saxpy.o -o prog && ./prog                      # safe: val=2; observed: val=1
"$CC" --harness-stats | grep direct_
