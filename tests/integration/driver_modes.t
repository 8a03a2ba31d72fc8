#!/bin/bash
# Launcher mode, response files, stdin input, the recursion guard, ch-cc's own errors, the
# argument model (incl. NVCC_*_FLAGS) and the configuration chain.
. "$(dirname "$0")/../lib/tap.sh"
cd "$TEST_DIR"
printf 'int twice(int x) { return 2 * x; }\n' > t.c
cc -O2 -c t.c -o ref.o

"$CH_CC_BIN" gcc -O2 -c t.c -o l.o; ok $? "launcher mode: ch-cc gcc ... runs"
files_same "$(command -v gcc >/dev/null && echo ref.o)" l.o "launcher mode: same object as the named compiler"
"$CH_CC_BIN" "$CH_CC_BIN" -O2 -c t.c -o self.o; ok $? "ch-cc ch-cc ... (CMake launcher + CUDACXX=ch-cc) runs"
files_same ref.o self.o "ch-cc as its own launcher compiles as cc"

printf -- '-O2 "-DNAME=\\"a b\\"" -c\n' > opts.rsp
"$CH_CC_BIN" @opts.rsp t.c -o r.o; ok $? "@response file"
files_same ref.o r.o "@response file: same object"
printf -- '-c -O2\n' > nv.rsp
"$CH_CC_BIN" --harness-args --options-file nv.rsp t.c -o r2.o > args.json
is "$(python3 -c 'import json;d=json.load(open("args.json"));print(d["compile_only"], d["opt"], d["output"])')" "True 2 r2.o" "--options-file expanded into the argument model"
"$CH_CC_BIN" @missing.rsp t.c -o x.o 2> missing.err; s=$?
is "$s" 1 "unreadable response file: exit 1"
like "$(cat missing.err)" "^ch-cc: error: cannot read response file: cannot open 'missing.rsp'" "unreadable response file: one ch-cc error line"

printf 'int from_stdin(void) { return 42; }\n' | cc -x c -c - -o stdin-ref.o
printf 'int from_stdin(void) { return 42; }\n' | "$CH_CC_BIN" -x c -c - -o stdin.o; ok $? "- as input (stdin)"
files_same stdin-ref.o stdin.o "stdin: same object"

# Recursion guard: a cc symlink to ch-cc first on PATH is skipped; naming ch-cc as the real
# compiler is refused with a clear message; a wrapper loop is stopped.
mkdir -p fakebin && ln -sf "$CH_CC_BIN" fakebin/cc
PATH="$TEST_DIR/fakebin:$PATH" "$CH_CC_BIN" -O2 -c t.c -o g.o; ok $? "cc -> ch-cc symlink on PATH: the real cc is found"
files_same ref.o g.o "cc -> ch-cc symlink: same object"
PATH="$TEST_DIR/fakebin:$PATH" cc -O2 -c t.c -o g2.o; ok $? "invoked through the cc symlink itself"
files_same ref.o g2.o "through the cc symlink: same object"
CH_CC_HOST_CC="$CH_CC_BIN" "$CH_CC_BIN" -c t.c -o s.o 2> self.err; s=$?
is "$s" 1 "CH_CC_HOST_CC=ch-cc: exit 1"
like "$(cat self.err)" "^ch-cc: error: the real cc .* is ch-cc itself; set CH_CC_HOST_CC" "CH_CC_HOST_CC=ch-cc: clear message"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$CH_CC_BIN" > fakebin/loopcc; chmod +x fakebin/loopcc
CH_CC_HOST_CC="$TEST_DIR/fakebin/loopcc" timeout 20 "$CH_CC_BIN" -c t.c -o s.o 2> loop.err; s=$?
is "$s" 1 "a wrapper that calls ch-cc back: stopped with exit 1"
like "$(cat loop.err)" "ch-cc: error: ch-cc is calling itself" "wrapper loop: clear message"

CH_CC_NVCC=/nonexistent/nvcc "$CH_CC_BIN" -c x.cu -o x.o 2> nonvcc.err; s=$?
is "$s" 1 "missing nvcc: exit 1"
is "$(cat nonvcc.err)" "ch-cc: error: cannot find the real nvcc '/nonexistent/nvcc' (set CH_CC_NVCC)" "missing nvcc: one error line"
"$CH_CC_BIN" --harness-nonsense=1 -c t.c 2> bad.err; s=$?
is "$s" 1 "unknown --harness- option: exit 1"
like "$(cat bad.err)" "^ch-cc: error: unknown option '--harness-nonsense=1'" "unknown --harness- option: message"
[ ! -e t.o ]; ok $? "a refused command writes no output"

# The argument model.
NVCC_PREPEND_FLAGS="-arch=sm_80" NVCC_APPEND_FLAGS="-gencode arch=compute_90,code=sm_90" \
    "$CH_CC_BIN" --harness-args -c k.cu -ok.o -Ifoo -isystem bar -DA=1 -UB -include pre.h -std=c++17 \
    -Xcompiler -fPIC,-Wall -MD -MF k.d -MT tgt -x c other.c -x none last.c > model.json
python3 - model.json > model.txt <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(i["path"] + ":" + i["lang"] for i in d["inputs"]))
print(d["output"], d["includes"], d["isystem"], d["defines"], d["undefs"], d["pre_includes"], d["std"])
print(d["xcompiler"], d["dep_md"], d["dep_file"], d["dep_targets"], d["archs"], d["compiler"].endswith("nvcc"))
PY
is "$(sed -n 1p model.txt)" "k.cu:cu other.c:c last.c:c" "inputs with languages, -x changes mid-list"
is "$(sed -n 2p model.txt)" "k.o ['foo'] ['bar'] ['A=1'] ['B'] ['pre.h'] c++17" "output (-ox form), -I -isystem -D -U -include -std"
is "$(sed -n 3p model.txt)" "['-fPIC', '-Wall'] True k.d ['tgt'] ['sm_80', 'sm_90'] True" "-Xcompiler split, depfile options, archs incl. NVCC_*_FLAGS"

# Configuration chain: default < user config < .ch-cc.conf < environment < command line.
mkdir -p home/.config/ch-cc proj/sub
printf 'budget = 5\nprovider = openai\nmodel = user-model\n' > home/.config/ch-cc/config
printf '# project settings\nbudget = 3\nmodel = "user-model"\n' > proj/.ch-cc.conf
(cd proj/sub && HOME="$TEST_DIR/home" XDG_CONFIG_HOME= CH_CC_MODEL=env-model "$CH_CC_BIN" --harness-config --harness-budget=9) > cfg.txt
like "$(grep '^budget ' cfg.txt)" "= 9 .*command line" "command line wins"
like "$(grep '^model ' cfg.txt)" "= env-model .*environment \(CH_CC_MODEL\)" "environment over conf files"
like "$(grep '^provider ' cfg.txt)" "= openai .*home/.config/ch-cc/config" "user config over default"
(cd proj/sub && HOME="$TEST_DIR/home" XDG_CONFIG_HOME= "$CH_CC_BIN" --harness-config) > cfg2.txt
like "$(grep '^budget ' cfg2.txt)" "= 3 .*proj/.ch-cc.conf" ".ch-cc.conf found upward, over user config (a lower budget)"
like "$(grep '^on_fail ' cfg2.txt)" "= fallback .*default" "defaults shown with their source"
CH_CC_API_KEY=sk-secret-123 "$CH_CC_BIN" --harness-config > cfg3.txt
grep -q sk-secret-123 cfg3.txt; is $? 1 "secrets are redacted"
like "$(grep '^api_key ' cfg3.txt)" "<redacted>" "api_key shown as <redacted>"
printf 'nonsense_key = 1\n' > proj/.ch-cc.conf
(cd proj && "$CH_CC_BIN" --harness-config 2> conf.err); s=$?
is "$s" 1 "unknown key in .ch-cc.conf: exit 1"
like "$(cat proj/conf.err)" "\.ch-cc\.conf:1:1: error: unknown setting 'nonsense_key'" "unknown key: located error"
done_testing
