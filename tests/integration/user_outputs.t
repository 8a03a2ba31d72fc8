#!/bin/bash
# User files as gcc treats them: an output that is an input is refused and the input is left
# alone; -o at a symlink writes through it (the link stays); -o at a FIFO or device writes into
# it and never replaces it; a regular output is replaced whole; concurrent builds of one output
# use temp names of their own and leave none behind.
. "$(dirname "$0")/../lib/tap.sh"
cd "$TEST_DIR"
cat > k.c <<'EOF'
#pragma harness
void twice(int n, float *x)
{
    for (int i = 0; i < n; i++)
        x[i] = 2.0f * x[i];
}
EOF
is_object() { file -L "$1" | grep -q 'ELF 64-bit LSB relocatable'; }

cp k.c same.c
"$CH_CC_BIN" -c same.c -o same.c 2> same.err; s=$?
is "$s" 1 "-c same.c -o same.c: exit 1"
like "$(cat same.err)" "input file 'same.c' is the same as output file" "gcc's message"
cmp -s k.c same.c; ok $? "the source is untouched"
ln -s same.c alias.c
"$CH_CC_BIN" -c same.c -o alias.c 2> /dev/null; s=$?
is "$s" 1 "an output that is the input through a symlink is refused too"
cmp -s k.c same.c; ok $? "and the source is untouched"
"$CH_CC_BIN" same.c -o same.c 2> /dev/null; s=$?
is "$s" 1 "compile and link into the source: refused"
cmp -s k.c same.c; ok $? "the source is untouched"

# the first build makes the cache entry; the ones below are hits
"$CH_CC_BIN" -c k.c -o plain.o 2> /dev/null; ok $? "a plain build"
is_object plain.o; ok $? "makes an object"
ino=$(stat -c %i plain.o)
umask 027
"$CH_CC_BIN" -c k.c -o plain.o 2> /dev/null
is_object plain.o; ok $? "a rebuild replaces the object"
[ "$(stat -c %i plain.o)" != "$ino" ]; ok $? "by a rename (a new inode: never half-written in place)"
is "$(stat -c %a plain.o)" 640 "with the umask's mode"
umask 022

mkdir real
echo old > real/target.o
ln -s real/target.o link.o
"$CH_CC_BIN" -c k.c -o link.o 2> /dev/null; ok $? "-o at a symlink builds"
[ -L link.o ]; ok $? "the symlink is still a symlink"
is "$(readlink link.o)" real/target.o "pointing where it did"
is_object real/target.o; ok $? "its target holds the object"
ln -s real/new.o dangling.o
"$CH_CC_BIN" -c k.c -o dangling.o 2> /dev/null; ok $? "-o at a dangling symlink builds"
[ -L dangling.o ] && is_object real/new.o; ok $? "the link stays and its target is created"
ln -s loop1.o loop2.o && ln -s loop2.o loop1.o
"$CH_CC_BIN" -c k.c -o loop1.o 2> loop.err; s=$?
is "$s" 1 "-o at a symlink loop: exit 1"
like "$(cat loop.err)" "cannot write 'loop1.o'" "with a message naming the output"

mkfifo pipe.o
timeout 120 cat pipe.o > from-pipe.o &
reader=$!
mkdir tmp
TMPDIR="$TEST_DIR/tmp" "$CH_CC_BIN" -c k.c -o pipe.o 2> /dev/null; ok $? "-o at a FIFO builds"
wait "$reader"
[ -p pipe.o ]; ok $? "the FIFO is still a FIFO (never replaced by a regular file)"
is_object from-pipe.o; ok $? "the object was written into it"
is "$(ls tmp | wc -l)" 0 "no temp file left for it"

for i in 1 2 3 4 5 6 7 8; do "$CH_CC_BIN" -c k.c -o shared.o 2> "par$i.err" & done
failed=0
for j in $(jobs -p); do wait "$j" || failed=$((failed + 1)); done
is "$failed" 0 "8 concurrent builds of one output all succeed"
is_object shared.o; ok $? "the output is a whole object"
is "$(ls | grep -c 'ch-cc')" 0 "no temp file is left next to the outputs"
done_testing
