#!/bin/bash
# Direct mode: a warm rebuild of an annotated file is served by the thin binary from its
# manifest (no ch-cc-full, no libclang, no compiler); an edited header, a -D, another host
# compiler miss; the dep file comes back on a hit; a read-only cache still serves; a header
# that would now shadow one read (earlier -I, the includer's directory, #include_next,
# __has_include) is a miss; make -j8 of many annotated files gives the cold build's objects
# with consistent counters.
. "$(dirname "$0")/../lib/tap.sh"
cd "$TEST_DIR"
command -v strace >/dev/null || skip_all "strace is needed to see what a hit runs"
counter() { "$CH_CC_BIN" --harness-stats | awk -v k="$1" '$1 == k { print $2 }'; }
mkdir -p inc
printf '#define SCALE 3\n' > inc/scale.h
cat > k.c <<'C'
#include <scale.h>
#pragma harness "y[i] = SCALE * x[i]" extent(x: n, y: n) tune(n = 1 << 20)
void scale(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = SCALE * x[i];
}
C
flags="-O2 -Iinc -MD"
sleep 1 # a file modified in the second the compile starts is never recorded (ccache's rule)
"$CH_CC_BIN" $flags -c k.c -o k.o 2>/dev/null
is "$?" 0 "cold build"
cp k.o cold.o && cp k.d cold.d
is "$(counter direct_misses)" 1 "the cold build counts a direct miss"

touch k.c inc/scale.h
rm -f k.o k.d
# LeakSanitizer cannot run under ptrace: leaks are checked by the untraced hits below
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    strace -f -e trace=execve,openat -o trace.txt "$CH_CC_BIN" $flags -c k.c -o k.o 2> hit.err
is "$?" 0 "warm rebuild after touch"
is "$(counter direct_hits)" 1 "it is a direct hit"
grep -q 'ch-cc-full' trace.txt; is "$?" 1 "the full binary is not run"
grep -q 'libclang' trace.txt; is "$?" 1 "libclang is not opened"
is "$(grep -c 'execve(' trace.txt)" 1 "no compiler is started"
cmp -s k.o cold.o; ok $? "the object is the cold build's"
cmp -s k.d cold.d; ok $? "the dep file is written on a hit, as the cold build wrote it"
is "$(cat hit.err)" "" "a hit prints nothing"

rm -f k.d
"$CH_CC_BIN" -O2 -Iinc -c k.c -o k.o 2>/dev/null
is "$(counter direct_misses)" 2 "without -MD the command is another one: a miss"
[ ! -e k.d ]; ok $? "and no dep file appears"

"$CH_CC_BIN" -O2 -Iinc -c k.c -o /dev/null 2>/dev/null
is "$?" 0 "-o /dev/null builds (and records nothing to serve)"
"$CH_CC_BIN" -O2 -Iinc -c k.c -o /dev/null 2>/dev/null
is "$?" 0 "and builds again"

sleep 1
printf '#define SCALE 4\n' > inc/scale.h
sleep 1
"$CH_CC_BIN" $flags -c k.c -o k.o 2>/dev/null
is "$(counter direct_misses)" 5 "an edited header is a miss"
cmp -s k.o cold.o; is "$?" 1 "and the object follows the header"
"$CH_CC_BIN" $flags -c k.c -o k.o 2>/dev/null
is "$(counter direct_hits)" 2 "the next rebuild hits the new manifest"

"$CH_CC_BIN" $flags -DEXTRA=1 -c k.c -o k.o 2>/dev/null
is "$(counter direct_misses)" 6 "a -D on the command line is a miss"

cat > mycc <<SH
#!/bin/sh
exec $(command -v cc) "\$@"
SH
chmod +x mycc
CH_CC_HOST_CC=$PWD/mycc "$CH_CC_BIN" $flags -c k.c -o k.o 2>/dev/null
is "$(counter direct_misses)" 7 "another host compiler is a miss"
hits=$(counter direct_hits)
"$CH_CC_BIN" $flags -c k.c -o k.o 2>/dev/null
is "$(counter direct_hits)" $((hits + 1)) "the first toolchain's manifest still hits"

# a read-only cache: another user reads a cache it cannot write (root writes anything)
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
    # the same command in the same directory (the key holds both); only the cache is not
    # writable to that user
    chmod -R a+rX "$TEST_DIR" && chmod 777 "$TEST_DIR" && cp k.o before.o
    setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent \
        ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
        strace -f -e trace=execve -o ro.trace "$CH_CC_BIN" $flags -c k.c -o k.o 2> ro.err
    is "$?" 0 "a read-only cache serves the rebuild"
    grep -q 'ch-cc-full' ro.trace; is "$?" 1 "from the manifest, by the thin binary"
    cmp -s before.o k.o; ok $? "with the same object"
    [ "$(stat -c %u k.o)" = 65534 ]; ok $? "written by that user"
else
    for t in 1 2 3 4; do skip "read-only cache" "needs root and setpriv to act as another user"; done
fi

# files the preprocessor never reads but the build does (attacks7 #11, #12): a changed one
# is not served stale
mkdir -p unlisted && cd unlisted
printf '#include <stdio.h>\nint get_val(void);\nextern const char blob[];\n' > main.c
printf 'int main(void) { printf("%%d %%s\\n", get_val(), blob); return 0; }\n' >> main.c
{ cat ../k.c; echo 'int get_val(void) { return VAL; }'; } > v.c
printf '*cpp:\n+ -DVAL=1\n\n' > my.specs
{ sed 's/void scale(/void scale2(/' ../k.c; echo '__asm__(".section .rodata\n.globl blob\nblob:\n.incbin \"blob.bin\"\n.byte 0\n.text\n");'; } > b.c
printf 'old' > blob.bin
sleep 1
for round in 1 2; do
    "$CH_CC_BIN" -O2 -I../inc -specs=my.specs -c v.c -o v.o 2>/dev/null &&
        "$CH_CC_BIN" -O2 -I../inc -c b.c -o b.o 2>/dev/null && cc main.c v.o b.o -o prog
    ok $? "a file built with -specs= and one with .incbin, round $round"
    [ "$round" = 1 ] && printf '*cpp:\n+ -DVAL=2\n\n' > my.specs && printf 'new' > blob.bin && sleep 1
done
is "$(./prog)" "2 new" "a changed specs file and a changed .incbin file are built again, not served"
cd ..

# a header that would now be found before the one read (attacks7 #13): with -Iinc1 -Imid
# -Iinc2, each value's header is read from inc2 (or, quoted, through -I from a header in sub/);
# then a new file appears earlier in each search: inc1/val.h for <val.h>, sub/q.h beside the
# header that includes "q.h", mid/nx.h where inc1/nx.h's #include_next now stops, and
# inc2/hv.h that __has_include(<hv.h>) now sees. Each build after one appears is built again
mkdir -p shadow/inc1 shadow/mid shadow/inc2 shadow/sub && cd shadow
printf '#define VAL 1\n' > inc2/val.h
printf '#include "q.h"\n' > sub/wrap.h
printf '#define Q 1\n' > inc2/q.h
printf '#include_next <nx.h>\n' > inc1/nx.h
printf '#define NX 1\n' > inc2/nx.h
{ cat ../k.c; printf '#include <val.h>\n#include "sub/wrap.h"\n#include <nx.h>\n'
  printf '#if __has_include(<hv.h>)\n#define HV 2\n#else\n#define HV 1\n#endif\n'
  echo 'int get_val(void) { return VAL * 1000 + Q * 100 + NX * 10 + HV; }'; } > v.c
printf '#include <stdio.h>\nint get_val(void);\nint main(void) { printf("%%d\\n", get_val()); return 0; }\n' > main.c
sflags="-O2 -Iinc1 -Imid -Iinc2 -I../inc"
sleep 1
"$CH_CC_BIN" $sflags -c v.c -o v.o 2>/dev/null && cc main.c v.o -o prog
is "$(./prog)" 1111 "shadowing: the cold build reads every header from inc2"
hits=$(counter direct_hits)
"$CH_CC_BIN" $sflags -c v.c -o v.o 2>/dev/null
is "$(counter direct_hits)" $((hits + 1)) "shadowing: nothing new in the search path: a direct hit"
want=1111
for new in 'inc1/val.h:VAL' 'sub/q.h:Q' 'mid/nx.h:NX' 'inc2/hv.h:'; do
    file=${new%%:*} macro=${new#*:}
    sleep 1
    if [ -n "$macro" ]; then printf '#define %s 2\n' "$macro" > "$file"; else : > "$file"; fi
    case $macro in VAL) want=$((want + 1000)) ;; Q) want=$((want + 100)) ;;
        NX) want=$((want + 10)) ;; *) want=$((want + 1)) ;; esac
    sleep 1
    hits=$(counter direct_hits) misses=$(counter direct_misses)
    "$CH_CC_BIN" $sflags -c v.c -o v.o 2>/dev/null && cc main.c v.o -o prog
    is "$(counter direct_hits) $(counter direct_misses)" "$hits $((misses + 1))" \
        "shadowing: a new $file is a direct miss"
    is "$(./prog)" "$want" "shadowing: and the object is built with what the search finds now"
done
hits=$(counter direct_hits)
"$CH_CC_BIN" $sflags -c v.c -o v.o 2>/dev/null
is "$(counter direct_hits)" $((hits + 1)) "shadowing: the rebuild after the last one hits"
cd ..

# make -j8 over many annotated files: cold, then warm after touching every file
mkdir -p many && cd many
for i in 1 2 3 4 5 6 7 8; do
    { cat ../k.c; printf 'int id_%s(void) { return %s; }\n' "$i" "$i"; } > f$i.c
done
printf 'OBJS = f1.o f2.o f3.o f4.o f5.o f6.o f7.o f8.o\nall: $(OBJS)\n%%.o: %%.c\n\t$(CC) -O2 -I../inc -c $< -o $@\n' > Makefile
sleep 1
hits=$(counter direct_hits) misses=$(counter direct_misses)
make -s -j8 CC="$CH_CC_BIN" 2>/dev/null
is "$?" 0 "make -j8, cold"
is "$(counter direct_misses)" $((misses + 8)) "eight direct misses"
mkdir cold && cp f*.o cold/
rm -f f*.o && touch f*.c
make -s -j8 CC="$CH_CC_BIN" 2>/dev/null
is "$?" 0 "make -j8, warm"
is "$(counter direct_hits)" $((hits + 8)) "eight direct hits"
same=0
for i in 1 2 3 4 5 6 7 8; do cmp -s f$i.o cold/f$i.o && same=$((same + 1)); done
is "$same" 8 "every object is the cold build's"
done_testing
