#!/bin/bash
# A Meson C project with CC=ch-cc: Meson's compiler detection (--version, -dM -E -, sanity
# compiles) sees gcc, and the release build's object is the one CC=cc builds.
. "$(dirname "$0")/../lib/tap.sh"
command -v meson >/dev/null || skip_all "meson not installed (make deps installs it)"
command -v ninja >/dev/null || skip_all "ninja not installed (make deps installs it)"
cd "$TEST_DIR"
mkdir proj
printf "project('hello', 'c')\nexecutable('hello', 'hello.c')\n" > proj/meson.build
printf '#include <stdio.h>\nint main(void) { puts("hello from meson"); return 0; }\n' > proj/hello.c

build() { # build CC DIR: meson setup + ninja, release (no -g: no build directory in the object)
    CC="$1" meson setup --buildtype=release "$2" proj >"$2.setup.log" 2>&1 &&
        ninja -C "$2" >"$2.build.log" 2>&1
}
build cc ref; ok $? "CC=cc: meson setup and ninja"
build "$CH_CC_BIN" ch; ok $? "CC=ch-cc: meson setup and ninja"
like "$(grep 'C compiler for the host machine' ch.setup.log)" "ch-cc \(gcc " "Meson identifies ch-cc as gcc"
is "$(ch/hello)" "hello from meson" "the program runs"
files_same ref/hello.p/hello.c.o ch/hello.p/hello.c.o "the object is byte-identical to CC=cc's"
done_testing
