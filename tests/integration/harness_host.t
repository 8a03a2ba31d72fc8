#!/bin/bash
# Annotated files build as host code, warning-free under -Wall -Wextra -Werror
# -Wunknown-pragmas, with diagnostics, __FILE__ and depfiles naming the user's file; a bad
# pragma is a located compile error that leaves no output behind.
. "$(dirname "$0")/../lib/tap.sh"
cd "$TEST_DIR"
mkdir -p src inc
printf '#define SCALE 3\n' > inc/scale.h
cat > src/k.c <<'C'
#include "local.h"
#include <scale.h>
#pragma harness "y[i] = SCALE * x[i]" \
    extent(x: n, y: n) tune(n = 1 << 20)
void scale(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = SCALE * x[i];
}
const char *where(void) { return __FILE__; }
int line_of_this(void) { return __LINE__; }
C
printf '#define LOCAL 1\n' > src/local.h
flags="-O2 -Wall -Wextra -Werror -Wunknown-pragmas -Iinc"
"$CH_CC_BIN" $flags -MD -c src/k.c -o k.o 2> build.err; s=$?
is "$s" 0 "annotated file compiles with -Wall -Wextra -Werror -Wunknown-pragmas"
[ -s k.o ]; ok $? "object written"
nm k.o | grep -q ' T scale$'; ok $? "the annotated function is in the object (host path)"
grep -q "^k.o: src/k.c" k.d; ok $? "depfile names the object and the user's source"
grep -q "/tmp/ch-cc-" k.d; is $? 1 "depfile does not mention the temporary copy"
grep -q "src/local.h" k.d; ok $? "quoted include found next to the user's file"
if have_gpu; then
    skip "one warning line says what was linked" "a GPU is present: the kernel may be linked"
else
    like "$(cat build.err)" "^src/k.c:3:1: warning: scale: host path linked: nothing can be verified here" \
        "one warning line says what was linked"
    is "$(wc -l < build.err)" 1 "and nothing else is printed"
fi
cat > main.c <<'C'
#include <stdio.h>
void scale(int n, const float *x, float *y);
const char *where(void);
int line_of_this(void);
int main(void) { float x[2] = {1, 2}, y[2]; scale(2, x, y); printf("%g %g %s %d\n", y[0], y[1], where(), line_of_this()); return 0; }
C
cc -c main.c -o main.o && "$CH_CC_BIN" main.o k.o -o prog
is "$(./prog)" "3 6 src/k.c 11" "program runs the body; __FILE__ and __LINE__ are the user's"

printf '#pragma harness "s" extent(x: n)\nvoid f(int n, float *x) { int unused; for (int i = 0; i < n; i++) x[i] = 0; }\n' > w.c
"$CH_CC_BIN" -Wall -Werror -c w.c -o w.o 2> w.err; s=$?
is "$s" 1 "a real warning in the annotated file still fails -Werror"
like "$(cat w.err)" "^w.c:2:[0-9]+: error: unused variable" "and its diagnostic points at the user's line"

for bad in 'unknown(x)|unknown clause' 'extent(x n)|' 'tol(abc)|' '"unterminated|'; do
    clause=${bad%%|*}
    printf 'int keep;\n#pragma harness %s\nvoid g(int n, float *x) { x[0] = n; }\n' "$clause" > bad.c
    rm -f bad.o
    "$CH_CC_BIN" -c bad.c -o bad.o 2> bad.err; s=$?
    is "$s" 1 "bad pragma '$clause': exit 1"
    like "$(head -1 bad.err)" "^bad.c:2:[0-9]+: error: " "bad pragma '$clause': located error"
    is "$(wc -l < bad.err | tr -d ' ')" 1 "bad pragma '$clause': one line"
    [ ! -e bad.o ]; ok $? "bad pragma '$clause': no output file"
done
# Errors only the libclang scan can see fail the compile too, at the pragma.
printf 'int x;\n#pragma harness "orphan"\nint y;\n' > orphan.c
"$CH_CC_BIN" -c orphan.c -o orphan.o 2> orphan.err; s=$?
is "$s" 1 "pragma followed by no function: exit 1"
like "$(head -1 orphan.err)" "^orphan.c:2:[0-9]+: error: " "pragma followed by no function: located error"
[ ! -e orphan.o ]; ok $? "pragma followed by no function: no output file"

# --harness-checklist gives a validated checklist per entry, and --harness-list a 32-hex key.
"$CH_CC_BIN" --harness-checklist -Iinc src/k.c > ck.json; s=$?
is "$s" 0 "--harness-checklist exits 0"
is "$(python3 -c 'import json;c=json.load(open("ck.json"))[0];print(c["name"], [p["extent"] for p in c["params"]], c["sizes"]["tune"])' 2>&1)" \
   "scale [None, 'n', 'n'] {'n': 1048576}" "checklist: extents from the clause and the tune size"
key=$("$CH_CC_BIN" --harness-list -Iinc src/k.c | python3 -c 'import json,sys;print(json.load(sys.stdin)[0]["key"])')
like "$key" "^[0-9a-f]{32}$" "--harness-list shows the cache key"
key90=$("$CH_CC_BIN" --harness-list -Iinc -arch=sm_80 src/k.c | python3 -c 'import json,sys;print(json.load(sys.stdin)[0]["key"])')
[ "$key" != "$key90" ]; ok $? "the key changes with the target architecture"
done_testing
