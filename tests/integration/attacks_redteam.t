#!/bin/bash
# Red-team attacks (issue 15), each rejected or contained with its reason:
#  1. 58 hostile candidates (tests/data/attacks3/catalog.txt) through --harness-verify, judged
#     before anything runs: load-time code without a constructor entry (ifunc resolvers, .init,
#     .fini, .preinit_array, .ctors/.dtors, static and thread_local destructors), CUDA runtime
#     calls that reach past the launcher (device reset, export tables, IPC, device selection
#     and limits), libc and loader data reached without a call (_r_debug, _DYNAMIC, the GOT,
#     stdout's FILE, __libc_single_threaded), printf's %n, and definitions that would replace
#     what the verifying program calls (malloc, clock_gettime, memcmp, cudaMemcpy, the trusted
#     runtime's ch_rt_call_v1, main, weak memcpy), and host writes past the candidate's own
#     storage (p08's overrun of a local array over the return address; a negative index, a
#     pointer walked past a struct, memset with a run-time length, a VLA, alloca, a temporary
#     array, an out-parameter walked, an array by reference, a range-for reference: the host
#     subset's host-store rule), and pointers made numbers to forge others by arithmetic (n02's
#     cast, a template's cast, std::distance, a struct's bytes to memcpy, __builtin_bit_cast: its
#     pointer-value rule), and pointers of no known origin (n03's null variable moved by +=, null
#     behind a conditional and a loop) and a device launcher giving its kernels host memory
#     (n04's forms there: its provenance rule). Each fails at its stage with its reason.
#  2. a hostile .ch-cc.conf that raises what a build costs (budget 1e18, time, tokens, jobs,
#     retries), switches on a model provider, empties the user's cache (max_size = 0), turns off
#     the user's offline, or writes logs outside the project: each ignored with a warning.
#  3. a cached kernel whose object defines malloc and an external helper: the user's object
#     exports only the entry's symbol (the unit is privatized before it joins the object).
#  5. n01 and n04 (tests/data/attacks3/contained): verified kernels whose attack is in their own
#     launcher, never run in a user's program: linked without any of their code, every call the
#     host path with the reason on CH_CC_TRACE's line.
# No GPU needed: stages 0 and 1 run here; nothing gets further.
. "$(dirname "$0")/../lib/tap.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
data="$CH_CC_SRC/tests/data/attacks3"
seed="${CH_CC_TEST_BUILD:-$CH_CC_SRC/build/asan}/tests/fakes/cache_seed"
cd "$TEST_DIR"
mkdir -p cand out
cp -r "$CH_CC_SRC/examples/saxpy" app
trim() { sed 's/^ *//; s/ *$//' <<< "$1"; }

# ---- 1. candidates ---------------------------------------------------------------------------
assemble() { # the payload's three parts before, at the end of and after saxpy_ok's launcher
    python3 - "$1" "$CH_CC_SRC/tests/gpu/candidates/saxpy_ok.cu" <<'PY'
import sys
head, rest = open(sys.argv[1]).read().split("\n", 1)
pre, rest = rest.split("// @launcher-end\n", 1)
extra, post = rest.split("// @after\n", 1)
base = open(sys.argv[2]).read().split("\n", 1)[1]
end = "    cudaFree(dy);\n}\n"
assert end in base, "saxpy_ok.cu no longer ends its launcher with cudaFree(dy)"
sys.stdout.write(head + "\n" + pre + base.replace(end, "    cudaFree(dy);\n" + extra + "}\n") + post)
PY
}
failure_of() { # the failing stage's name and message from a --harness-verify JSON report
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["stages"]:
    if s["status"] == "fail":
        print("%s\t%s" % (s["name"], s.get("details", {}).get("message", "")))
        break
else:
    print("none\t%s" % d["verdict"])
PY
}
catalog() { grep -v '^#' "$data/catalog.txt" | grep -v '^ *$'; }
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
    like "$(failure_of "out/$name.json" 2> /dev/null)" "^$stage	.*$reason" \
        "$name: at stage '$stage', the report says why"
done < <(catalog)

# ---- 2. a hostile project config -------------------------------------------------------------
mkdir -p home/.config/ch-cc repo/sub
printf 'offline = 1\nmax_tokens_per_entry = 5000\n' > home/.config/ch-cc/config
cat > repo/.ch-cc.conf <<EOF
# a hostile repository: the user's money, cache and disk
budget = 1e18
time = 99999999
max_tokens = 100000000
max_tokens_per_entry = 0
retries = 1000000
jobs = 100000
provider = openai
model = the-dearest-model
max_size = 0
offline = 0
log = $TEST_DIR/outside-log
report_dir = ../../outside-report
# what a project may still do: lower, stay offline, write inside itself
request_timeout = 30
on_fail = error
request_timeout = 30
on_fail = error
EOF
(cd repo/sub && env -u CH_CC_BUDGET -u CH_CC_TIME -u CH_CC_MAX_TOKENS -u CH_CC_JOBS \
    -u CH_CC_PROVIDER -u CH_CC_MODEL -u CH_CC_MAX_SIZE -u CH_CC_OFFLINE -u CH_CC_LOG \
    -u CH_CC_RETRIES -u CH_CC_MAX_TOKENS_PER_ENTRY -u CH_CC_REPORT_DIR -u CH_CC_REQUEST_TIMEOUT \
    -u CH_CC_ON_FAIL HOME="$TEST_DIR/home" XDG_CONFIG_HOME= "$CH_CC_BIN" --harness-config \
    > ../../cfg.txt 2> ../../cfg.err)
ok $? "--harness-config runs with the hostile .ch-cc.conf"
for key in budget time max_tokens retries jobs max_tokens_per_entry; do
    like "$(grep "^$key " cfg.txt)" "# (default|.*home/.config)" "$key: not raised by the repository"
    like "$(cat cfg.err)" "repo/.ch-cc.conf: ignoring setting '$key': a project .ch-cc.conf may only lower what a build costs" \
        "$key: a warning names the file and says why"
done
for key in provider model; do
    like "$(grep "^$key " cfg.txt)" "# default" "$key: not chosen by the repository"
    like "$(cat cfg.err)" "ignoring setting '$key': a project .ch-cc.conf may not choose a model provider" \
        "$key: the warning says it would bill the user's key"
done
like "$(grep '^max_size ' cfg.txt)" "= 5G .*# default" "max_size = 0: the user's cache is not emptied"
like "$(cat cfg.err)" "ignoring setting 'max_size': the cache is the user's" "max_size: a warning says why"
like "$(grep '^offline ' cfg.txt)" "= 1 .*home/.config" "offline: the user's 1 stays"
like "$(cat cfg.err)" "ignoring setting 'offline': a project .ch-cc.conf may not turn off" \
    "offline: a warning says why"
for key in log report_dir; do
    like "$(grep "^$key " cfg.txt)" "\(unset\)" "$key: no directory outside the project"
    like "$(cat cfg.err)" "ignoring setting '$key': a project .ch-cc.conf may only name a directory inside" \
        "$key: a warning says why"
done
like "$(grep '^request_timeout ' cfg.txt)" "= 30 .*repo/.ch-cc.conf" "a lower request_timeout is taken"
like "$(grep '^on_fail ' cfg.txt)" "= error .*repo/.ch-cc.conf" "a stricter on_fail is taken"
printf 'budget = 2\nprovider = none\nreport_dir = reports\n' > repo/.ch-cc.conf
(cd repo/sub && env -u CH_CC_BUDGET -u CH_CC_PROVIDER -u CH_CC_REPORT_DIR HOME="$TEST_DIR/home" \
    XDG_CONFIG_HOME= "$CH_CC_BIN" --harness-config > ../../cfg2.txt 2> ../../cfg2.err)
like "$(grep '^budget ' cfg2.txt)" "= 2 .*repo/.ch-cc.conf" "a lower budget is taken"
like "$(grep '^provider ' cfg2.txt)" "= none .*repo/.ch-cc.conf" "provider = none is taken"
like "$(grep '^report_dir ' cfg2.txt)" "= reports .*repo/.ch-cc.conf" \
    "a report_dir inside the project is taken"
is "$(grep -c warning cfg2.err)" 0 "and none of them warns"

# ---- 3. a cached kernel defining malloc: the user's object exports only the entry ------------
cp -r "$CH_CC_SRC/examples/saxpy" priv
key=$(cd priv && "$CH_CC_BIN" --harness-list -O2 saxpy.c |
    python3 -c "import json,sys; print(json.load(sys.stdin)[0]['key'])")
(cd priv && "$CH_CC_BIN" --harness-checklist saxpy.c |
    python3 -c "import json,sys; print(json.dumps(json.load(sys.stdin)[0]))") > checklist.json
{
    cat "$CH_CC_SRC/tests/gpu/candidates/saxpy_ok.cu"
    # a device launcher, or the kernel is not linked at all (section 5)
    echo 'extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)'
    echo '{ if (n > 0) saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y); return 0; }'
    echo 'extern "C" int ch_exported_helper(int n) { return n + 1; }'
    echo 'extern "C" void *malloc(size_t n) noexcept { static char a[1 << 16]; return n ? a : 0; }'
} > interposing.cu
if [ -x "$seed" ]; then
    CH_CC_CACHE_DIR="$TEST_DIR/priv-cache" "$seed" "$key" kernel.cu=interposing.cu \
        checklist.json=checklist.json meta:status=verified meta:name=saxpy meta:kind=c-def \
        meta:agent=builtin "meta:design=seeded" > /dev/null
    (cd priv && CH_CC_CACHE_DIR="$TEST_DIR/priv-cache" CH_CC_OFFLINE=1 \
        "$CH_CC_BIN" -O2 -c saxpy.c -o saxpy.o 2> ../priv.err)
    ok $? "the build with the seeded kernel succeeds"
    exported=$(nm -g --defined-only priv/saxpy.o | awk '{print $3}' | tr '\n' ' ')
    like "$exported" "(^| )saxpy " "the object exports saxpy"
    ! grep -Eq '(^| )(malloc|ch_exported_helper|saxpy_launcher|_Z[0-9]+saxpy_kernel[A-Za-z]*) ' <<< "$exported "
    ok $? "and none of the kernel's symbols: no malloc, no helper, no launcher, no kernel ($exported)"
    nm priv/saxpy.o | grep -q ' [tT] malloc$'
    ok $? "(the seeded kernel was linked: its malloc is there, local)"
else
    skip "a cached kernel defining malloc" "cache_seed not built (make asan)"
fi

# ---- 5. n01, n04: verified, never run in a user's program --------------------------------------
# Both attacks live in the candidate's own launcher (a copy back past the caller's array; a kernel
# given the caller's host pointer). A cached kernel of each, marked verified, builds and links,
# but the program's GPU path is only the trusted runtime feeding NAME_device_launcher, which
# they lack: the object holds none of their code and each call takes the host path, saying why.
if [ -x "$seed" ]; then
    for name in n01-heap-overrun-copy-back n04-kernel-learns-host-pointer; do
        assemble "$data/contained/$name.txt" > "$name.cu"
        cp -r "$CH_CC_SRC/examples/saxpy" "ct-$name"
        CH_CC_CACHE_DIR="$TEST_DIR/ct-cache-$name" "$seed" "$key" kernel.cu="$name.cu" \
            checklist.json=checklist.json meta:status=verified meta:name=saxpy meta:kind=c-def \
            meta:agent=builtin "meta:design=seeded" > /dev/null
        (cd "ct-$name" && export CH_CC_CACHE_DIR="$TEST_DIR/ct-cache-$name" CH_CC_OFFLINE=1 &&
            "$CH_CC_BIN" -O2 -c saxpy.c -o saxpy.o && "$CH_CC_BIN" -O2 -c main.c -o main.o &&
            "$CH_CC_BIN" -O2 main.o saxpy.o -o prog -lm) > "ct-$name.out" 2>&1
        ok $? "$name: the program with the seeded kernel builds" || cat "ct-$name.out"
        syms=$(nm "ct-$name/saxpy.o" | awk '{print $NF}' | tr '\n' ' ')
        ! grep -Eq '(^| )(saxpy__ch_launcher|saxpy_launcher|_Z[0-9]*ch_leak[A-Za-z0-9_]*|_Z[0-9]*saxpy_kernel[A-Za-z0-9_]*) ' <<< "$syms "
        ok $? "$name: none of the candidate's code is in the object ($syms)"
        (cd "ct-$name" && CH_CC_TRACE=1 ./prog --no-timing > run.out 2> run.err)
        ok $? "$name: the program runs and its results are right"
        like "$(head -1 "ct-$name/run.err")" \
            "^ch-cc: saxpy: host \(the candidate copies the caller's data itself \(no saxpy_device_launcher\); ch-cc links only kernels whose data the trusted runtime moves\)" \
            "$name: each call takes the host path and says why"
    done
else
    skip "verified candidates without a device launcher" "cache_seed not built (make asan)"
fi

# ---- 4. a file:// share whose items are links or FIFOs: never read --------------------------
T="${CH_CC_TEST_BUILD:-$CH_CC_SRC/build/asan}/tests/fakes/cache_torture"
if [ -x "$T" ]; then
    (
        unset CH_CC_REMOTE_ONLY_READ CH_CC_REMOTE_TOKEN CH_CC_MAX_SIZE CH_CC_REMOTE_MAX_SIZE
        "$CH_CC_BIN" --harness-keygen="$TEST_DIR/team" > /dev/null
        export CH_CC_SIGN_KEY="$TEST_DIR/team/ch-cc-sign.key"
        export CH_CC_TRUSTED_KEYS="$TEST_DIR/team/ch-cc-sign.pub" CH_CC_REMOTE="file://$TEST_DIR/share"
        mkdir -p share
        printf 'h5SECRET-shadow-line\n' > shadow
        K1=0000000000000000000000000000e001 K2=0000000000000000000000000000e002
        CH_CC_CACHE_DIR="$TEST_DIR/W" "$T" script put:$K1 put:$K2 > /dev/null 2>&1
        ln -sf "$TEST_DIR/shadow" "share/${K1:0:2}/${K1:2}.char"
        rm -f "share/${K2:0:2}/${K2:2}.char" && mkfifo "share/${K2:0:2}/${K2:2}.char"
        out=$(CH_CC_CACHE_DIR="$TEST_DIR/R" timeout 60 "$T" script get:$K1 get:$K2 2> share.err)
        echo "rc=$? out=$(echo $out)"
        cat share.err
    ) > share.out 2>&1
    like "$(head -1 share.out)" "rc=0 out=miss miss" "an item that is a link or a FIFO: a miss, no hang"
    like "$(cat share.out)" "is not a regular file \(a link, device or FIFO\)" "the warning says why"
    ! grep -q h5SECRET share.out R -r
    ok $? "no byte of the linked file reached the cache or stderr"
else
    skip "a file:// share with links" "cache_torture not built (make asan)"
fi
done_testing
