#!/bin/bash
# Held-out attacks (issue 15, written by someone who did not write the other attack tests): each
# is rejected or contained, and the report or the error says why.
#  1. 53 hostile candidates (tests/data/attacks2/catalog.txt) through --harness-verify: every
#     spelling of an #include of another file (digraph, trigraph, splice, #import, #include_next,
#     __has_include, GCC dependency), host asm (.include/.incbin, asm labels, asm hidden by
#     splices, digit separators, raw strings, host-device code, #define __device__), a
#     constructor named as nvcc's registration, libc reached through UCNs, token pasting,
#     using-declarations, weak symbols, weakref, function pointers, hand-written prototypes, and
#     the host-subset cases (the ELF walk from an atexit handler's return address to system(), a
#     function pointer in a struct, a lambda made a callback, a pointer forged from uintptr_t, a
#     signal handler behind a typedef, a cudaLaunchHostFunc callback, a virtual call). Each
#     fails at its stage with its reason in report.json, and no byte of the file it aimed at is
#     in the report or on stderr.
#  2. the same include through a model's reply: the model never sees the file.
#  3. 8 hostile test-author references (references.txt) for a spec-only entry, the ELF walk from a
#     qsort comparator among them: refused, nothing linked, no payload ran.
#  3b. a reference that walks libc to socket()/connect() (references/07-elf-walk-unix-socket.c):
#     listeners in a temporary directory, /tmp, /dev/shm and /run see no connection.
#  4. hostile project configs: a repository's own "verified" cache (cache_dir), a .ch-cc.conf
#     that is /dev/zero or a FIFO, quoted and tabbed user-only keys.
#  5. user files: -o or -MF naming the source through a hard link or another path, -o a
#     directory.
# No GPU needed: stages 0 and 1 run here; nothing gets further.
. "$(dirname "$0")/../lib/tap.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
data="$CH_CC_SRC/tests/data/attacks2"
seed="${CH_CC_TEST_BUILD:-$CH_CC_SRC/build/asan}/tests/fakes/cache_seed"
cd "$TEST_DIR"
printf 'sk_live_h4SECRET123 = 1;\nOPENAI_API_KEY=sk-h4-SECRET-456\n' > secret.txt
secret="$TEST_DIR/secret.txt"
mkdir -p cand out
cp -r "$CH_CC_SRC/examples/saxpy" app
trim() { sed 's/^ *//; s/ *$//' <<< "$1"; }

# ---- 1. candidates ---------------------------------------------------------------------------
# a candidate: saxpy_ok.cu with the attack's lines before it, at the end of its launcher and
# after it (payloads/NAME.txt: its comment line, then the three parts between @ markers)
assemble() {
    python3 - "$1" "$CH_CC_SRC/tests/gpu/candidates/saxpy_ok.cu" "$secret" <<'EOF'
import sys
head, rest = open(sys.argv[1]).read().split("\n", 1)
pre, rest = rest.split("// @launcher-end\n", 1)
extra, post = rest.split("// @after\n", 1)
base = open(sys.argv[2]).read().split("\n", 1)[1]
end = "    cudaFree(dy);\n}\n"
assert end in base, "saxpy_ok.cu no longer ends its launcher with cudaFree(dy)"
text = head + "\n" + pre + base.replace(end, "    cudaFree(dy);\n" + extra + "}\n") + post
sys.stdout.write(text.replace("@SECRET@", sys.argv[3]))
EOF
}
# the failing stage's name and message from a --harness-verify JSON report
failure_of() {
    python3 - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["stages"]:
    if s["status"] == "fail":
        print("%s\t%s" % (s["name"], s.get("details", {}).get("message", "")))
        break
else:
    print("none\t%s" % d["verdict"])
EOF
}
catalog() { grep -v '^#' "$data/catalog.txt" | grep -v '^ *$'; }
# every candidate is verified first, four at a time (most of a verification is waiting for
# nvcc), then judged in the catalog's order
verify_one() {
    (cd app && "$CH_CC_BIN" --harness-verify="../cand/$1.cu" --harness-report=json saxpy.c \
        > "../out/$1.json" 2> "../out/$1.err")
    echo $? > "out/$1.rc"
}
n=0
while IFS='|' read -r name stage reason; do
    name=$(trim "$name")
    assemble "$data/payloads/$name.txt" > "cand/$name.cu"
    verify_one "$name" &
    n=$((n + 1))
    [ $((n % 4)) = 0 ] && wait
done < <(catalog)
wait
while IFS='|' read -r name stage reason; do
    name=$(trim "$name")
    stage=$(trim "$stage")
    reason=$(trim "$reason")
    is "$(cat "out/$name.rc")" 1 "$name: refused (exit 1)"
    got=$(failure_of "out/$name.json" 2> /dev/null)
    like "$got" "^$stage	.*$reason" "$name: at stage '$stage', the report says why"
    ! grep -q 'h4SECRET' "out/$name.json" "out/$name.err"
    ok $? "$name: nothing of the file it aimed at reached the report or stderr"
done < <(catalog)

# ---- 2. the include through a model's reply: the model never sees the file --------------------
python3 - "cand/01-digraph-include.cu" script.json <<'EOF'
import json, sys
kernel = open(sys.argv[1]).read()
json.dump({"default": {"reply": "Design: one thread per element\n```cuda\n%s```\n" % kernel}},
          open(sys.argv[2], "w"))
EOF
python3 "$CH_CC_SRC/tests/fakes/fake_llm.py" --script script.json --record requests.jsonl \
    --port 0 --port-file port > /dev/null 2>&1 &
llm_pid=$!
for _ in $(seq 300); do [ -s port ] && break; sleep 0.1; done
(cd app && CH_CC_PROVIDER=openai CH_CC_MODEL=fake CH_CC_API_KEY=test-key CH_CC_BUDGET=2 \
    CH_CC_API_BASE="http://127.0.0.1:$(cat ../port)/v1" "$CH_CC_BIN" -O2 -c saxpy.c -o saxpy.o \
    2> ../model.err)
ok $? "a model whose kernels include a secret file: the build still succeeds (host path)"
kill "$llm_pid" 2> /dev/null
wait "$llm_pid" 2> /dev/null
[ "$(wc -l < requests.jsonl)" -ge 2 ]
ok $? "the model was asked for another candidate"
like "$(cat model.err)" "best: static: includes <[^>]*secret.txt>, which is not an allowed header" \
    "the warning gives the static check's refusal"
! grep -q 'h4SECRET' requests.jsonl model.err "$CH_CC_CACHE_DIR" -r
ok $? "no byte of the file reached the model, stderr or the cache"
! objdump -h app/saxpy.o | grep -q nv_fatbin
ok $? "nothing of the candidate is linked"

# ---- 3. hostile test-author references ----------------------------------------------------------
# reference_attack NAME [SOURCE [SOCKET]]: the spec-only axpy, the fake test author sends NAME.c
# (or SOURCE, with @SOCKET@ replaced by SOCKET)
reference_attack() {
    local name=$1 w="$TEST_DIR/ref-$1" src=${2:-$data/references/$1.c}
    cp -r "$CH_CC_SRC/tests/integration/data/specdecl" "$w"
    sed "s|@SECRET@|$secret|g; s|@MARKER@|$w/PWNED|g; s|@SOCKET@|${3:-}|g" "$src" > "$w/ref.c"
    (cd "$w" && python3 - script.json "$CH_CC_SRC/tests/gpu/candidates/saxpy_ok.cu" ref.c <<'EOF'
import json, sys
exec(compile(open("script.py").read().split("reference = (")[0], "script.py", "exec"))
reference = "```c\n%s```\n" % open(sys.argv[3]).read()
kernel = open(sys.argv[2]).read().replace("saxpy", "axpy")
steps = [{"reply": "```json\n%s\n```" % json.dumps(checklist)}, {"reply": reference},
         {"reply": reference}, {"reply": "Design: hand\n```cuda\n%s```\n" % kernel}]
json.dump({"steps": steps, "default": {"reply": reference}}, open(sys.argv[1], "w"))
EOF
    )
    python3 "$CH_CC_SRC/tests/fakes/fake_llm.py" --script "$w/script.json" \
        --record "$w/requests.jsonl" --port 0 --port-file "$w/port" > /dev/null 2>&1 &
    local pid=$!
    for _ in $(seq 300); do [ -s "$w/port" ] && break; sleep 0.1; done
    (cd "$w" && CH_CC_CACHE_DIR="$w/.cache" CH_CC_PROVIDER=openai CH_CC_MODEL=fake \
        CH_CC_API_KEY=test-key CH_CC_BUDGET=1 CH_CC_API_BASE="http://127.0.0.1:$(cat port)/v1" \
        "$CH_CC_BIN" -O2 -c axpy.c -o axpy.o 2> err.txt)
    local s=$?
    kill "$pid" 2> /dev/null
    wait "$pid" 2> /dev/null
    return $s
}
while IFS='|' read -r name reason; do
    name=$(trim "$name")
    [ -z "$name" ] || [ "${name:0:1}" = "#" ] && continue
    reason=$(trim "$reason")
    reference_attack "$name"
    is "$?" 1 "reference $name: the spec-only entry has nothing it may link (exit 1)"
    like "$(cat "ref-$name/err.txt")" "$reason" "reference $name: the error says why"
    [ ! -e "ref-$name/axpy.o" ] && [ ! -e "ref-$name/PWNED" ]
    ok $? "reference $name: no object written, no payload ran"
    ! grep -q 'h4SECRET' "ref-$name/err.txt" "ref-$name/requests.jsonl"
    ok $? "reference $name: nothing of the file it aimed at reached stderr or the model"
done < "$data/references.txt"

# ---- 3b. a reference that reaches socket() and connect() without naming them --------------------
# references/07-elf-walk-unix-socket.c walks from a qsort comparator's return address through libc's
# symbol table to socket, connect and write, and connects to a listening AF_UNIX socket outside:
# in a temporary directory, in /tmp, in /dev/shm and (as root) in /run. The reference program
# runs without the GPU, so its sandbox gives it no socket at all; no listener may see a
# connection (each one took a control connection from outside first). The host subset refuses
# this reference before it runs; test_sandbox runs such a program in the sandbox itself.
python3 "$CH_CC_SRC/tests/lib/unix_listener.py" "$TEST_DIR/listen.log" "$TEST_DIR/hole.sock" \
    "/tmp/ch-cc-hole-$$.sock" "/dev/shm/ch-cc-hole-$$.sock" "/run/ch-cc-hole-$$.sock" \
    > /dev/null 2>&1 &
listen_pid=$!
for _ in $(seq 300); do grep -q '^ready' listen.log 2> /dev/null && break; sleep 0.1; done
socks=$(sed -n 's/^listening //p' listen.log)
[ "$(wc -l <<< "$socks")" -ge 3 ]
ok $? "listeners in a temporary directory, /tmp and /dev/shm take a connection from outside"
# the control: the same reference run outside the sandbox reaches a listener
sed "s|@SOCKET@|$(head -1 <<< "$socks")|" "$data/references/07-elf-walk-unix-socket.c" > control.c
printf '%s\n' 'void axpy_reference(int n, float a, const float *x, float *y);' \
    'int main(void) { float x = 1, y = 1; axpy_reference(1, 2, &x, &y); return y != 3; }' \
    > control_main.c
cc -O1 -o control control.c control_main.c && ./control
for _ in $(seq 50); do grep -q '^connected' listen.log && break; sleep 0.1; done
grep -q '^connected .*escaped the sandbox' listen.log
ok $? "control: outside the sandbox, the reference reaches the listener"
before=$(grep -c '^connected' listen.log)
k=0
for sock in $socks; do
    k=$((k + 1))
    reference_attack "hole-socket-$k" "$data/references/07-elf-walk-unix-socket.c" "$sock"
    s=$?
    # the build either refuses the reference or runs it (probe, sample data) in the sandbox
    # and ends as usual
    if [ "$s" = 0 ]; then pass "the socket reference ($sock): the build ran it and finished"
    else like "$(cat "ref-hole-socket-$k/err.txt")" "reference is refused" \
        "the socket reference ($sock): refused with a reason"; fi
done
kill "$listen_pid" 2> /dev/null
wait "$listen_pid" 2> /dev/null
is "$(grep -c '^connected' listen.log)" "$before" "no listener saw a connection from the reference" ||
    diag "$(grep '^connected' listen.log)"
rm -f $socks

# ---- 4. hostile project configs ------------------------------------------------------------------
# a repository that ships its own cache, with a "verified" saxpy computing y = 0
cp -r "$CH_CC_SRC/examples/saxpy" repo
mkdir -p home
user_env() { env -u CH_CC_CACHE_DIR HOME="$TEST_DIR/home" XDG_CONFIG_HOME= XDG_CACHE_HOME= \
    CH_CC_OFFLINE=1 "$@"; }
key=$(cd repo && "$CH_CC_BIN" --harness-list -O2 saxpy.c |
    python3 -c "import json,sys; print(json.load(sys.stdin)[0]['key'])")
(cd repo && "$CH_CC_BIN" --harness-checklist saxpy.c |
    python3 -c "import json,sys; print(json.dumps(json.load(sys.stdin)[0]))") > checklist.json
sed 's/a \* x\[i\] + y\[i\]/0.0f/' "$CH_CC_SRC/tests/gpu/candidates/saxpy_ok.cu" > wrong.cu
if [ -x "$seed" ]; then
    CH_CC_CACHE_DIR="$TEST_DIR/repo/.kc" "$seed" "$key" kernel.cu=wrong.cu \
        checklist.json=checklist.json meta:status=verified meta:name=saxpy meta:kind=c-def \
        meta:agent=builtin "meta:design=shipped by the repository" > /dev/null
    echo 'cache_dir = .kc' > repo/.ch-cc.conf
    (cd repo && user_env make -s CC="$CH_CC_BIN" > ../repo.out 2> ../repo.err)
    ok $? "a repository naming its own cache: the build succeeds"
    like "$(cat repo.err)" "\.ch-cc\.conf: ignoring setting 'cache_dir'" "one warning names the file and cache_dir"
    ! objdump -h repo/saxpy.o | grep -q nv_fatbin
    ok $? "the repository's unverified kernel is not linked"
    [ -d home/.cache/ch-cc ] || [ -d "$TEST_DIR/home/.cache" ]
    ok $? "the user's own cache was used"
else
    skip "a repository naming its own cache" "cache_seed not built (make asan)"
fi
# a .ch-cc.conf that never ends, or never answers
for kind in zero fifo; do
    rm -rf "conf-$kind"
    cp -r "$CH_CC_SRC/examples/saxpy" "conf-$kind"
    if [ "$kind" = zero ]; then ln -s /dev/zero "conf-$kind/.ch-cc.conf"; else mkfifo "conf-$kind/.ch-cc.conf"; fi
    (cd "conf-$kind" && user_env timeout 120 "$CH_CC_BIN" -c saxpy.c -o saxpy.o 2> ../conf-$kind.err)
    is "$?" 0 ".ch-cc.conf that is a $kind: the build finishes and succeeds"
    like "$(cat conf-$kind.err)" "\.ch-cc\.conf: ignored: not a regular file" "and says the file was skipped"
done
# a .ch-cc.conf another user put in a directory above the project (attacks7 #19): not read
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    mkdir -p shared/proj && chmod 1777 shared
    cp "$CH_CC_SRC/examples/saxpy/saxpy.c" "$CH_CC_SRC/examples/saxpy/saxpy.h" shared/proj/
    printf 'on_fail = error\n' > shared/.ch-cc.conf && chown nobody shared/.ch-cc.conf
    (cd shared/proj && user_env "$CH_CC_BIN" --harness-config > ../../foreign.out 2> ../../foreign.err)
    like "$(cat foreign.err)" "shared/\.ch-cc\.conf: ignored: owned by user [0-9]+, not by you" \
        "a .ch-cc.conf owned by another user above the project: ignored, and says why"
    ! grep -q '^on_fail *= *error' foreign.out
    ok $? "its on_fail = error is not in effect"
    chown "$(id -u)" shared/.ch-cc.conf
    (cd shared/proj && user_env "$CH_CC_BIN" --harness-config > ../../own.out 2> /dev/null)
    grep -q '^on_fail *= *error' own.out
    ok $? "control: the same file owned by the user is read"
else
    skip "a .ch-cc.conf owned by another user is ignored" "needs root to own a file as nobody"
    skip "its on_fail = error is not in effect" "needs root"
    skip "control: the same file owned by the user is read" "needs root"
fi
# user-only keys quoted or tabbed are the same keys
mkdir -p tabbed
printf 'api_base\t=\t"http://127.0.0.1:9/v1"\n  runner = "$(touch %s/PWNED)"\n' "$TEST_DIR" > tabbed/.ch-cc.conf
(cd tabbed && user_env "$CH_CC_BIN" --harness-config > ../tabbed.out 2> ../tabbed.err)
is "$(grep -c "ignoring setting '\(api_base\|runner\)'" tabbed.err)" 2 "a tabbed or quoted api_base and runner: both ignored with a warning"
! grep -q '127.0.0.1:9' tabbed.out && [ ! -e PWNED ]
ok $? "neither is in effect, nothing ran"

# ---- 5. user files -----------------------------------------------------------------------------
cd "$TEST_DIR/app"
cp saxpy.c saxpy.orig
ln -f saxpy.c hard.c
export CH_CC_OFFLINE=1
for out in hard.c ./saxpy.c ../app/saxpy.c; do
    "$CH_CC_BIN" -c saxpy.c -o "$out" 2> o.err
    is "$?" 1 "-o $out (the source): refused"
    cmp -s saxpy.c saxpy.orig
    ok $? "-o $out: the source is intact"
done
for mf in saxpy.c hard.c; do
    "$CH_CC_BIN" -c saxpy.c -o x.o -MD -MF "$mf" 2> mf.err
    is "$?" 1 "-MF $mf (the source): refused, where gcc would write over it"
    like "$(cat mf.err)" "is the same as the dependency file" "with a message saying so"
    cmp -s saxpy.c saxpy.orig
    ok $? "-MF $mf: the source is intact"
done
mkdir -p outdir
"$CH_CC_BIN" -c saxpy.c -o outdir 2> dir.err
is "$?" 1 "-o a directory: an error"
[ -d outdir ] && [ -z "$(ls -A outdir)" ]
ok $? "the directory is still an empty directory"
unset CH_CC_OFFLINE
done_testing
