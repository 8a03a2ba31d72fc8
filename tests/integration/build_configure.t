#!/bin/bash
# ch-cc as CC for a configure script: every probe a build system sends without a CUDA input
# answers exactly as the host C compiler (stdout, stderr, exit status), ch-nvcc's answer as nvcc,
# and zlib configures, builds and passes `make test` with CC=ch-cc (shared and static), its
# objects, libraries and programs byte-identical to a CC=gcc configure and build.
. "$(dirname "$0")/../lib/tap.sh"
zlib_tgz="${CH_CC_SUITES:-$CH_CC_SRC/../shared/suites}/zlib.tar.gz"
CH_NVCC_BIN="$(dirname "$CH_CC_BIN")/ch-nvcc"
# ch-cc execs the host compiler by the path it resolves, and gcc prints its argv[0]: compare
# against the same path
host_cc=$(command -v cc)
cd "$TEST_DIR"

# probe NAME ARGS...: ch-cc and the host compiler, same stdout, stderr and status; stdin is
# the file $probe_in (each reads it from the start); gcc's temporary names (/tmp/ccXXXXXX) aside
probe_in=/dev/null
probe() {
    local name=$1
    shift
    "$CH_CC_BIN" "$@" <"$probe_in" >p.ch.out 2>p.ch.err; local s1=$?
    "$host_cc" "$@" <"$probe_in" >p.cc.out 2>p.cc.err; local s2=$?
    sed -i -E 's#/tmp/cc[A-Za-z0-9]{6}#/tmp/ccTEMP#g' p.ch.out p.ch.err p.cc.out p.cc.err
    if [ "$s1" = "$s2" ] && cmp -s p.cc.out p.ch.out && cmp -s p.cc.err p.ch.err; then
        pass "probe $name: as the host compiler (status $s2)"
    else
        fail "probe $name: as the host compiler"
        diag "status $s1 vs $s2" "$(diff p.cc.out p.ch.out | head -5)" "$(diff p.cc.err p.ch.err | head -5)"
    fi
}
for p in -v -dumpversion -dumpmachine -dumpfullversion -print-prog-name=ld -print-prog-name=cc1 \
    -print-search-dirs -print-multiarch -print-libgcc-file-name -print-file-name=libc.so \
    -V -qversion -version -Wl,--version; do
    probe "$p" "$p"
done
printf 'int main(void) { return 0; }\n' > conftest.c
probe "-dM -E - (stdin)" -dM -E -
probe_in=conftest.c
probe "-E - (stdin, no -x)" -E -
probe "-x c -c - (stdin)" -x c -c - -o stdin.o
probe_in=/dev/null
probe "-E conftest.c" -E conftest.c
probe "-v -c conftest.c" -v -c conftest.c -o conftest.o
probe "-shared -fPIC" -shared -fPIC conftest.c -o libconftest.so
probe "link-only" conftest.o -o conftest
probe "a missing input" -c missing.c
probe "no input" -O2

"$CH_CC_BIN" --version >v.ch.out 2>v.ch.err; s=$?
"$host_cc" --version >v.cc.out
is "$s" 0 "--version: exit 0"
files_same v.cc.out v.ch.out "--version: stdout is the host compiler's (what configure parses)"
like "$(head -1 v.ch.out)" "^(gcc|cc) \(" "--version: the first line still names gcc"
like "$(cat v.ch.err)" "^ch-cc [0-9]+\.[0-9]+\.[0-9]+ \(nvcc: .*, cc: $host_cc, " "--version: ch-cc's line on stderr"
"$CH_CC_BIN" --help >h.ch.out; "$host_cc" --help >h.cc.out
like "$(head -1 h.ch.out)" "^ch-cc [0-9.]+: nvcc for CUDA inputs" "--help: ch-cc's part first"
is "$(sed '1,/^The real compiler.s help/d' h.ch.out | tail -n +2)" "$(cat h.cc.out)" "--help: then the host compiler's help"
like "$("$CH_CC_BIN" --harness-version | head -1)" "^ch-cc [0-9]+\.[0-9]+\.[0-9]+ \(revision " "--harness-version"
"$CH_CC_BIN" --harness-help > hh.out; s=$?
is "$s" 0 "--harness-help: exit 0"
grep -q -- '--harness-version' hh.out && grep -q 'ch-nvcc' hh.out; ok $? "--harness-help names --harness-version and ch-nvcc"

if command -v nvcc >/dev/null; then
    "$CH_NVCC_BIN" --version >nv.ch.out 2>/dev/null; nvcc --version >nv.out
    files_same nv.out nv.ch.out "ch-nvcc --version: nvcc's stdout"
    for p in -V -v; do
        "$CH_NVCC_BIN" $p >nv.ch.out 2>&1; s1=$?; nvcc $p >nv.out 2>&1; s2=$?
        is "$s1:$(cat nv.ch.out)" "$s2:$(cat nv.out)" "ch-nvcc $p: as nvcc"
    done
else
    skip "ch-nvcc probes" "nvcc not installed"
fi

# zlib: the same tree configured and built twice in the same directory name, once with gcc and
# once with ch-cc; every object, library and program compared.
[ -f "$zlib_tgz" ] || { diag "no $zlib_tgz"; done_testing; }
zlib_build() { # zlib_build CC CONFIGURE-ARGS... : in ./z, status of configure && make && make test
    local cc=$1
    shift
    rm -rf z && mkdir z && tar xzf "$zlib_tgz" -C z &&
        (cd z && CC="$cc" ./configure "$@" >cfg.out 2>&1 && make -j4 >build.log 2>&1 &&
            make test >test.log 2>&1)
}
for kind in shared static; do
    args=""
    [ "$kind" = static ] && args=--static
    zlib_build gcc $args; ok $? "zlib $kind: CC=gcc configure, make, make test"
    rm -rf z.gcc && mv z z.gcc
    zlib_build "$CH_CC_BIN" $args; ok $? "zlib $kind: CC=ch-cc configure, make, make test"
    grep -q 'zlib.*test OK' z/test.log; ok $? "zlib $kind: its tests pass"
    if grep -q 'nvcc' z/configure.log; then fail "zlib $kind: no probe reached nvcc"; else pass "zlib $kind: no probe reached nvcc"; fi
    if [ "$kind" = shared ]; then
        grep -q 'Building shared library libz.so' z/configure.log; ok $? "zlib shared: configure builds the shared library"
    fi
    n=0 bad=""
    for f in $(cd z.gcc && ls | grep -E '\.(o|lo|a)$|^libz\.so|^(example|minigzip)(64|sh)?$'); do
        n=$((n + 1))
        cmp -s "z.gcc/$f" "z/$f" || bad="$bad $f"
    done
    is "$bad" "" "zlib $kind: $n objects, libraries and programs byte-identical to gcc's"
    [ "$kind" = shared ] && { [ "$n" -ge 38 ]; ok $? "zlib shared: every object compared ($n)"; }
done
done_testing
