#!/bin/bash
# A C project built with `make CC=ch-cc` is the project built with `make CC=cc`: the same object
# bytes, depfiles, program output, and for a failing compile the same status and diagnostics.
. "$(dirname "$0")/../lib/tap.sh"
data="$CH_CC_SRC/tests/integration/data/cproj"
cp -r "$data" "$TEST_DIR/plain"
cp -r "$data" "$TEST_DIR/harness"
# Both trees must have the same path length-free content: build in the same directory name.
(cd "$TEST_DIR/plain" && make -s CC=cc >/dev/null 2>&1)
ok $? "plain build with cc"
mv "$TEST_DIR/plain" "$TEST_DIR/p"; mv "$TEST_DIR/harness" "$TEST_DIR/plain"
(cd "$TEST_DIR/plain" && make -s CC="$CH_CC_BIN" >/dev/null 2>&1)
ok $? "build with CC=ch-cc"
for o in main.o stats.o text.o; do
    files_same "$TEST_DIR/p/$o" "$TEST_DIR/plain/$o" "$o is byte-identical"
done
for d in main.d stats.d text.d; do
    files_same "$TEST_DIR/p/$d" "$TEST_DIR/plain/$d" "$d depfile is identical"
done
is "$("$TEST_DIR/plain/prog")" "$("$TEST_DIR/p/prog")" "the program prints the same"
files_same "$TEST_DIR/p/prog" "$TEST_DIR/plain/prog" "the linked program is byte-identical"

# A failing compile: same exit status, same stdout and stderr.
cd "$TEST_DIR"
printf 'int main(void) { return undefined_name; }\n' > bad.c
cc -Wall -c bad.c -o bad.o >cc.out 2>cc.err; cc_status=$?
"$CH_CC_BIN" -Wall -c bad.c -o bad.o >ch.out 2>ch.err; ch_status=$?
is "$ch_status" "$cc_status" "failing compile: same exit status ($cc_status)"
files_same cc.err ch.err "failing compile: same diagnostics on stderr"
files_same cc.out ch.out "failing compile: same stdout"
[ ! -e bad.o ]; ok $? "failing compile leaves no object"

# -E, -M and -v are the real compiler's.
cd "$TEST_DIR/plain"
cc -E main.c > "$TEST_DIR/cc.i"; "$CH_CC_BIN" -E main.c > "$TEST_DIR/ch.i"
files_same "$TEST_DIR/cc.i" "$TEST_DIR/ch.i" "-E output identical"
cc -M main.c > "$TEST_DIR/cc.M"; "$CH_CC_BIN" -M main.c > "$TEST_DIR/ch.M"
files_same "$TEST_DIR/cc.M" "$TEST_DIR/ch.M" "-M output identical"
cc -MM -MT custom main.c > "$TEST_DIR/cc.MM"; "$CH_CC_BIN" -MM -MT custom main.c > "$TEST_DIR/ch.MM"
files_same "$TEST_DIR/cc.MM" "$TEST_DIR/ch.MM" "-MM -MT output identical"
cc -v -c main.c -o /dev/null 2>&1 | grep -v -e '^COLLECT_GCC=' -e '/tmp/cc' > "$TEST_DIR/cc.v"
"$CH_CC_BIN" -v -c main.c -o /dev/null 2>&1 | grep -v -e '^COLLECT_GCC=' -e '/tmp/cc' > "$TEST_DIR/ch.v"
files_same "$TEST_DIR/cc.v" "$TEST_DIR/ch.v" "-v output identical (temp names aside)"
done_testing
