#!/bin/bash
# Issue 15 checked again by someone who did not write its tests: a fresh catalog of attacks
# (tests/data/attacks4/, one payload a file, RESULTS.md says what each does and what happened),
# each run the way a user or an attacker reaches ch-cc: hostile candidates through
# --harness-verify, hostile references and checklists through a scripted model
# (tests/fakes/fake_llm.py), poisoned remotes (file://, a hostile http server, a hostile Redis
# server), hostile repository configs, user-file faults and parser limits. Every attack that is
# rejected or contained is asserted with its reason (tests/data/attacks4/pending/README tells
# what each rule refuses, and what is still open).
. "$(dirname "$0")/../lib/tap.sh"
A="$CH_CC_SRC/tests/data/attacks4"
FAKES="${CH_CC_TEST_BUILD:-$CH_CC_SRC/build/asan}/tests/fakes"
unset CH_CC_REMOTE CH_CC_REMOTE_ONLY_READ CH_CC_REMOTE_TOKEN CH_CC_SIGN_KEY CH_CC_TRUSTED_KEYS \
    CH_CC_REMOTE_MAX_SIZE CH_CC_REMOTE_TIMEOUT CH_CC_OFFLINE CH_CC_ON_FAIL CH_CC_PROVIDER \
    CH_CC_MODEL CH_CC_API_BASE CH_CC_API_KEY OPENAI_API_KEY ANTHROPIC_API_KEY CH_CC_BUDGET
cd "$TEST_DIR" || exit 1
# libc_offsets FILE: the payload with every "0xHEX /* fn */" offset (fn's address minus abort's)
# recomputed for this machine's C library, so the payload means the same here as where it was
# written; on stdout.
libc_offsets() {
    python3 - "$1" <<'EOF'
import re, subprocess, sys
libc = subprocess.run(["sh", "-c", "ldd /bin/true | awk '/libc.so/ {print $3}'"],
                      capture_output=True, text=True).stdout.strip() or "/lib/x86_64-linux-gnu/libc.so.6"
syms = {}
for line in subprocess.run(["nm", "-D", libc], capture_output=True, text=True).stdout.splitlines():
    p = line.split()
    if len(p) == 3:
        syms.setdefault(p[2].split("@")[0], int(p[0], 16))
src = open(sys.argv[1]).read()
print(re.sub(r"0x[0-9A-Fa-f]+ /\* (\w+) \*/",
             lambda m: "%#x /* %s */" % (syms[m.group(1)] - syms["abort"], m.group(1)), src), end="")
EOF
}

# ==== 1. hostile candidates: stage 0 (text, host subset) and stage 1 (object check) ===========
if command -v nvcc >/dev/null; then
    cp -r "$CH_CC_SRC/examples/saxpy" "$TEST_DIR/sx"
    verify() { # verify FRAGMENT: the whole candidate (assemble_candidate.py, libc offsets of
        # this machine) judged by --harness-verify; its exit status, its report in $TEST_DIR/v.out
        python3 "$A/assemble_candidate.py" "$1" > "$TEST_DIR/whole.cu"
        libc_offsets "$TEST_DIR/whole.cu" > "$TEST_DIR/cand.cu"
        (cd "$TEST_DIR/sx" && "$CH_CC_BIN" --harness-verify="$TEST_DIR/cand.cu" saxpy.c > "$TEST_DIR/v.out" 2>&1)
    }
    rejected() { # rejected FILE REGEX: stage 0 or 1 fails with that reason
        verify "$A/$1"
        local s=$?
        is "$s" 1 "$1: refused (exit 1)"
        like "$(grep '^message:' "$TEST_DIR/v.out")" "$2" "$1: with the reason"
    }
    rejected cand_ifunc_resolver.cu "host code calls 'ch_helper', which is not on the host allow-list"
    rejected cand_linemarker_system_header.cu "calls getenv: no file, process, network or environment access"
    rejected cand_pragma_system_header.cu "host code calls 'exit', which is not on the host allow-list"
    rejected cand_has_include_branch.cu "includes <__clang_cuda_runtime_wrapper.h>, which is not an allowed header"
    rejected cand_section_text_startup_ctor.cu "inline assembly or an asm label in host code is not allowed"
    rejected cand_std_atexit_member.cu "uses a function as a value"
    rejected cand_thrust_host_policy.cu "object check: host code calls 'sched_yield'"
    rejected cand_trigraph_ucn_name.cu "cannot be read as C\\+\\+ .*universal character name"
    rejected cand_weak_memcpy_override.cu "object check: host code defines 'memcmp' with external linkage"
    rejected cand_cublas_no_declare.cu "host code calls 'cublasCreate_v2', which is not on the host allow-list"
    rejected cand_std_system.cu "calls system: no file, process, network or environment access"
    rejected cand_rdtsc_host_timing.cu "includes <x86intrin.h>, which is not an allowed header"
    rejected cand_peer_access_process_state.cu "host code calls 'cudaDeviceGetDefaultMemPool', which is not on the host allow-list"
    # once open (pending/README): the source guard and the object check's allow-list refuse them
    rejected cand_nvcc_only_libc_offset.cu "#ifdef on '__NVCC__' is not allowed: its value depends on the compiler"
    rejected cand_cuda_logs_dump.cu "host code calls 'cudaLogsDumpToFile', which is not on the host allow-list"
    rejected cand_process_state.cu "host code calls 'cudaDeviceSetCacheConfig', which is not on the host allow-list"
    rejected cand_globaltimer_timebomb.cu "inline assembly reads the globaltimer register: a candidate's result may not depend on when it runs"
    # state kept across calls (the host subset's static-state rule): a counter is refused, on the
    # host and on the device
    rejected cand_call_counter_trojan.cu "host code keeps the number 'ch_calls' across calls, and its value is used in arithmetic"
    rejected cand_device_counter_trojan.cu "declares the device variable 'ch_launches' of static storage, which kernels can change"
    # a counter in a kept pointer moved through a local (host_provenance.c: a kept pointer holds
    # a buffer's start, never a pointer moved by arithmetic)
    rejected cand_pointer_counter_trojan.cu "host code stores the pointer 'ch_next', moved by arithmetic, in 'ch_cur', which keeps it across calls"
    # a counter by comparisons alone (an implicit flow): in the code a user's program runs (the
    # device launcher) the state-flow rule refuses it; in a candidate that copies the caller's
    # data itself it passes stages 0-1 but is never linked, so it never runs outside verification
    (cd "$TEST_DIR/sx" && "$CH_CC_BIN" --harness-verify="$A/cand_implicit_counter_device.cu" saxpy.c > "$TEST_DIR/v.out" 2>&1)
    is "$?" 1 "cand_implicit_counter_device.cu: refused (exit 1)"
    like "$(grep '^message:' "$TEST_DIR/v.out")" "host code returns without an error on a path that what it keeps across calls decides.*kept state: 'ch_calls'" \
        "cand_implicit_counter_device.cu: with the reason"
    verify "$A/cand_implicit_counter_trojan.cu"
    s=$?
    [ "$s" = 1 ] || [ "$s" = 3 ]
    ok $? "cand_implicit_counter_trojan.cu: stages 0-1 judged (exit $s)"
    like "$(grep '^linked:' "$TEST_DIR/v.out")" "never .*no saxpy_device_launcher" \
        "cand_implicit_counter_trojan.cu: contained, never linked into a user's program"
    verify "$A/cand_host_overwrite_d2h.cu"
    s=$?
    if have_gpu; then
        is "$s" 1 "cand_host_overwrite_d2h.cu: a copy past the user's buffer fails a GPU stage"
    else
        is "$s" 3 "cand_host_overwrite_d2h.cu: passes stages 0-1, the copy past y is a GPU stage's to catch (pending)"
    fi
else
    skip "hostile candidates" "nvcc not installed"
fi

# ==== 2. hostile references and checklists, written by a scripted model ======================
cp "$A/spec_dbl.c" spec.c
"$CH_CC_BIN" --harness-checklist spec.c |
    python3 -c "import json,sys; print(json.dumps(json.load(sys.stdin)[0]))" > checklist.json
# model REF [CHECKLIST]: a build of spec.c whose model answers with CHECKLIST and REF (as the
# reference; no kernel); stderr in $TEST_DIR/m.err, exit status returned, max RSS in m.rss
model() {
    python3 - "$1" "${2:-checklist.json}" script.json <<'EOF'
import json, sys
reply = "```json\n%s\n```\n\n```c\n%s```\n" % (open(sys.argv[2]).read(), open(sys.argv[1]).read())
json.dump({"default": {"reply": reply}}, open(sys.argv[3], "w"))
EOF
    rm -f llm.port llm.jsonl
    python3 "$CH_CC_SRC/tests/fakes/fake_llm.py" --script script.json --record llm.jsonl \
        --port 0 --port-file llm.port > /dev/null 2>&1 &
    local llm=$!
    for _ in $(seq 100); do [ -s llm.port ] && break; sleep 0.1; done
    CH_CC_CACHE_DIR="$TEST_DIR/mcache.$RANDOM" CH_CC_PROVIDER=openai CH_CC_MODEL=fake \
        CH_CC_API_KEY=sk-SECRET-A4 CH_CC_BUDGET=1 CH_CC_RETRIES=0 \
        CH_CC_API_BASE="http://127.0.0.1:$(cat llm.port)/v1" \
        /usr/bin/time -f "%M" -o m.time "$CH_CC_BIN" -O2 -c spec.c -o m.o 2> m.err
    local s=$?
    # time(1) adds "Command exited with non-zero status N" before the figure on a failed build
    tail -1 m.time > m.rss
    kill $llm 2>/dev/null
    wait $llm 2>/dev/null
    return $s
}
printf 'void dbl_reference(int n, const float *x, float *y)\n{\n    for (int i = 0; i < n; i++)\n        y[i] = 2.0f * x[i];\n}\n' > ref_ok.c

# the sandbox: the reference reaches libc through abort's address and probes during its run
mkdir -p /tmp/ch-cc-a4-sbx && chmod 1777 /tmp/ch-cc-a4-sbx && rm -f /tmp/ch-cc-a4-sbx/*
python3 - > listener.log 2>&1 <<'EOF' &
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 47719)); s.listen(5); s.settimeout(90)
try:
    c, _ = s.accept(); c.settimeout(5); print("CONNECTED", c.recv(100000))
except Exception as e:
    print("none", e)
EOF
listener=$!
libc_offsets "$A/ref_sandbox_probe.c" > ref_sandbox_probe.c
model ref_sandbox_probe.c
# its probes hide from the checks under #ifndef __clang__: refused before it ever runs now (the
# sandbox's own containment of such a program is test_sandbox's)
like "$(cat m.err)" "the reference is refused: #ifndef on '__clang__' is not allowed" \
    "ref_sandbox_probe.c: the code the checks would not see is refused before it runs"
[ ! -e /tmp/ch-cc-a4-sbx/escaped ] && [ ! -e /tmp/ch-cc-a4-sbx/forked ]
ok $? "ref_sandbox_probe.c: nothing written outside the sandbox's private /tmp"
kill $listener 2>/dev/null
wait $listener 2>/dev/null
! grep -q CONNECTED listener.log
ok $? "ref_sandbox_probe.c: no connection to 127.0.0.1 from the reference run"
rm -rf /tmp/ch-cc-a4-sbx

model "$A/ref_infinite_loop.c"
like "$(cat m.err)" "reference program .* ran past its time limit" "ref_infinite_loop.c: stopped by the time limit, named"
model "$A/ref_oob_write.c"
like "$(cat m.err)" "reference program .* crashed with SIGSEGV" "ref_oob_write.c: the write past y hits the guard page, reported"
model "$A/ref_huge_alloc.c"
ok $? "ref_huge_alloc.c: the build succeeds"
[ "$(cat m.rss)" -lt 4000000 ]; ok $? "ref_huge_alloc.c: 64 GiB asked, the address-space limit held (max RSS $(cat m.rss) KiB)"
model "$A/ref_computed_include.c"
like "$(cat m.err)" "a computed header name is not allowed" "ref_computed_include.c: refused with the reason"
model "$A/ref_hidden_constructor.c"
like "$(cat m.err)" "the reference is refused: #ifndef on '__clang__' is not allowed" \
    "ref_hidden_constructor.c: the constructor hidden from libclang is refused (the source guard)"
model "$A/ref_hidden_environ.c"
like "$(cat m.err)" "the reference is refused: #ifndef on '__clang__' is not allowed" \
    "ref_hidden_environ.c: environ hidden from libclang is refused (the source guard)"
model "$A/ref_digraph_asm.c"
like "$(cat m.err)" "token pasting \\(##\\) is not allowed" "ref_digraph_asm.c: %:%: pasting refused"
libc_offsets "$A/ref_hidden_libc_offset.c" > ref_hidden_libc_offset.c
model ref_hidden_libc_offset.c
like "$(cat m.err)" "the reference is refused: #ifndef on '__clang__' is not allowed" \
    "ref_hidden_libc_offset.c: the libc call hidden from libclang is refused (the source guard)"

cp ref_ok.c ref_cl.c
model ref_cl.c "$A/checklist_huge_sizes.json"
like "$(cat m.err)" "the test data would take more than 8 GiB" "checklist_huge_sizes.json: refused with the limit named"
[ "$(cat m.rss)" -lt 2000000 ]; ok $? "checklist_huge_sizes.json: refused before the buffers exist (max RSS $(cat m.rss) KiB)"
model ref_cl.c "$A/checklist_extent_overflow.json"
like "$(cat m.err)" "integer overflow in 'n\\*n\\*n\\*n'" "checklist_extent_overflow.json: the overflow is named"
model ref_cl.c "$A/checklist_negative_size.json"
like "$(cat m.err)" "the checklist is invalid: params\\[2\\].rtol: expected a number" "checklist_negative_size.json: refused, located"
model ref_cl.c "$A/checklist_deep_nesting.json"
like "$(cat m.err)" "json block is not valid JSON" "checklist_deep_nesting.json: 200000 nested arrays refused, no crash"

# a model server whose gzip reply inflates to 1 GiB
printf '#pragma harness\nvoid twice(int n, float *x)\n{\n    for (int i = 0; i < n; i++)\n        x[i] = 2.0f * x[i];\n}\n' > bomb.c
rm -f bomb.port
python3 "$A/llm_gzip_bomb.py" bomb.port $((1 << 30)) > /dev/null 2>&1 &
bomb=$!
for _ in $(seq 300); do [ -s bomb.port ] && break; sleep 0.1; done
CH_CC_CACHE_DIR="$TEST_DIR/bcache" CH_CC_PROVIDER=openai CH_CC_MODEL=fake CH_CC_API_KEY=k \
    CH_CC_RETRIES=0 CH_CC_BUDGET=1 CH_CC_API_BASE="http://127.0.0.1:$(cat bomb.port)/v1" \
    /usr/bin/time -f "%M" -o bomb.rss "$CH_CC_BIN" -c bomb.c -o bomb.o 2> bomb.err
kill $bomb 2>/dev/null
like "$(cat bomb.err)" "is larger than 64 MiB .*not read" "llm_gzip_bomb.py: the reply is cut off at 64 MiB, said so"
[ "$(cat bomb.rss)" -lt 900000 ]; ok $? "llm_gzip_bomb.py: 1 GiB never in memory (max RSS $(cat bomb.rss) KiB)"

# ==== 3. poisoned remotes ==================================================================
T="$FAKES/cache_torture"
if [ -x "$T" ]; then
    "$CH_CC_BIN" --harness-keygen="$TEST_DIR/team" > /dev/null
    export CH_CC_TRUSTED_KEYS="$TEST_DIR/team/ch-cc-sign.pub"
    mkdir -p share
    K1=0000000000000000000000000000a401
    item="$TEST_DIR/share/${K1:0:2}/${K1:2}.char"
    CH_CC_SIGN_KEY="$TEST_DIR/team/ch-cc-sign.key" CH_CC_REMOTE="file://$TEST_DIR/share" \
        CH_CC_CACHE_DIR="$TEST_DIR/W" "$T" script put:$K1 > /dev/null 2>&1
    cp "$item" orig.char
    printf '__attribute__((constructor)) static void a4_evil(void) {}\n' > payload.cu
    for m in dup meta deep huge extra; do
        python3 "$A/remote_archive_forge.py" orig.char "$item" $m payload.cu
        f=kernel.cu
        [ $m = extra ] && f=objects/0123456789abcdef0123456789abcdef.o
        out=$(CH_CC_REMOTE="file://$TEST_DIR/share" CH_CC_CACHE_DIR="$TEST_DIR/F-$m" "$T" get $K1 $f 2> f.err)
        ! { grep -qa a4_evil <<<"$out" || grep -rqa a4_evil "$TEST_DIR/F-$m"; }
        ok $? "remote_archive_forge.py $m: the payload reaches neither the caller nor the local cache"
        case $m in
        dup | meta | deep)
            like "$out $(cat f.err)" "^miss .*refused: entry signature does not match its key and files" \
                "remote_archive_forge.py $m: a miss, refused by the signature" ;;
        huge) like "$out $(cat f.err)" "^miss .*file 'big.bin' is truncated" "remote_archive_forge.py huge: a miss, the archive named damaged" ;;
        extra) like "$(echo $out)" "^hit OBJ key=$K1" "remote_archive_forge.py extra: the object inside the archive is ignored, the signed record's object served" ;;
        esac
    done
    cp orig.char "$item"

    for m in slow endless redirect huge_header; do
        rm -f http.port catch.log
        python3 "$A/remote_hostile_http.py" $m http.port "$TEST_DIR/catch.log" > /dev/null 2>&1 &
        srv=$!
        for _ in $(seq 100); do [ -s http.port ] && break; sleep 0.1; done
        start=$(date +%s)
        out=$(CH_CC_REMOTE="http://127.0.0.1:$(cat http.port)/c/" CH_CC_REMOTE_TOKEN=tok-SECRET-A4 \
            CH_CC_REMOTE_TIMEOUT=3 CH_CC_REMOTE_MAX_SIZE=8M CH_CC_CACHE_DIR="$TEST_DIR/H-$m" \
            timeout 60 "$T" get $K1 2> h.err)
        took=$(($(date +%s) - start))
        kill $srv 2>/dev/null
        like "$out $(cat h.err)" "^miss warning: remote cache read failed" "remote_hostile_http.py $m: a miss with one warning"
        [ "$took" -le 10 ]; ok $? "remote_hostile_http.py $m: over in ${took} s (remote_timeout 3)"
        case $m in
        slow) like "$(cat h.err)" "Timeout was reached" "remote_hostile_http.py slow: the whole GET bounded by remote_timeout" ;;
        endless) like "$(cat h.err)" "larger than remote_max_size" "remote_hostile_http.py endless: cut at remote_max_size" ;;
        redirect)
            like "$(cat h.err)" "HTTP status 302" "remote_hostile_http.py redirect: not followed"
            ! grep -q SECRET catch.log 2>/dev/null
            ok $? "remote_hostile_http.py redirect: the token never reaches the other host" ;;
        esac
    done

    for m in biglen negative deep trickle; do
        rm -f redis.port
        python3 "$A/remote_hostile_redis.py" $m redis.port > /dev/null 2>&1 &
        srv=$!
        for _ in $(seq 100); do [ -s redis.port ] && break; sleep 0.1; done
        start=$(date +%s)
        out=$(CH_CC_REMOTE="redis://127.0.0.1:$(cat redis.port)/0" CH_CC_REMOTE_TIMEOUT=3 \
            CH_CC_CACHE_DIR="$TEST_DIR/R-$m" timeout 60 "$T" get $K1 2> r.err)
        took=$(($(date +%s) - start))
        kill $srv 2>/dev/null
        like "$out $(cat r.err)" "^miss warning: remote cache read failed" "remote_hostile_redis.py $m: a miss with one warning"
        [ "$took" -le 8 ]; ok $? "remote_hostile_redis.py $m: over in ${took} s (remote_timeout 3 for the whole request)"
    done
    like "$(cat r.err)" "no answer within remote_timeout" "remote_hostile_redis.py trickle: a byte every 2 s does not hold the build"

    # a FIFO at an entry's path in a file:// share: never opened for reading, never waited on
    rm -f "$item"
    mkfifo "$item"
    out=$(CH_CC_REMOTE="file://$TEST_DIR/share" CH_CC_CACHE_DIR="$TEST_DIR/FIFO" timeout 20 "$T" get $K1 2> fifo.err)
    is "$?" 1 "a FIFO as a share's item: a miss, no hang"
    rm -f "$item"
    unset CH_CC_TRUSTED_KEYS
else
    skip "poisoned remotes" "cache_torture not built"
fi

# ==== 4. hostile repository configs ========================================================
mkdir -p home/.config/ch-cc repo
printf 'time = 60\nlock_timeout = 5\nrequest_timeout = 30\nremote_timeout = 5\njobs = 1\nremote_max_size = 1M\nretries = 1\nmax_tokens_per_entry = 1000\n' \
    > home/.config/ch-cc/config
conf() { # conf LINE...: the repository's .ch-cc.conf; --harness-config's output in c.out/c.err
    printf '%s\n' "$@" > repo/.ch-cc.conf
    (cd repo && HOME="$TEST_DIR/home" XDG_CONFIG_HOME= "$CH_CC_BIN" --harness-config > ../c.out 2> ../c.err)
}
for line in "API_BASE = http://evil.invalid/v1" " api_base=http://evil.invalid/v1" \
    "api-base = http://evil.invalid/v1" "$(printf 'api_base\t=\thttp://evil.invalid/v1')" \
    "$(printf 'api_base\r= http://evil.invalid/v1')" "Runner = touch $TEST_DIR/PWNED"; do
    conf "$line"
    like "$(cat c.err)" "repo/.ch-cc.conf: ignoring setting '(api_base|runner)'" "config spelling '$line': ignored with a warning"
    ! grep -q "evil.invalid\|PWNED" c.out
    ok $? "config spelling '$line': not in effect"
done
for kv in "time = 0" "time = inf" "lock_timeout = -1" "lock_timeout = nan" "request_timeout = 0" \
    "remote_timeout = inf" "jobs = 0" "jobs = -4" "remote_max_size = 0" "retries = nan" \
    "budget = -1" "max_tokens_per_entry = -5" "max_tokens_per_entry = 0"; do
    conf "$kv"
    k=${kv%% *}
    like "$(cat c.err)" "ignoring setting '$k': a project .ch-cc.conf may only lower" "project '$kv': refused, it would raise a limit"
    like "$(grep "^$k " c.out)" "# (default|.*home/.config)" "project '$kv': the user's value stays"
done
conf "time = 30" "lock_timeout = 0" "retries = 0" "budget = 2"
for k in time lock_timeout retries budget; do
    like "$(grep "^$k " c.out)" "repo/.ch-cc.conf" "project lowers $k: still taken"
done

# ==== 5. user files ========================================================================
printf '#pragma harness\nvoid scale(int n, float *x)\n{\n    for (int i = 0; i < n; i++)\n        x[i] = 2.0f * x[i];\n}\n' > a.c
cp a.c a.orig
export CH_CC_CACHE_DIR="$TEST_DIR/ucache"
ln a.c hard.c
"$CH_CC_BIN" -c a.c -o hard.c 2> u.err
like "$?:$(tr '\n' ' ' < u.err)" "^1:.*input file 'a.c' is the same as output file" "-o a hard link of the input: refused"
"$CH_CC_BIN" -c a.c -o a.o -MD -MF a.c 2> u.err
like "$?:$(tr '\n' ' ' < u.err)" "^1:.*same as the dependency file \\(-MF\\)" "-MF the input: refused (gcc would overwrite it)"
mkdir -p d
"$CH_CC_BIN" -c a.c -o d/../a.c 2> u.err
like "$?:$(tr '\n' ' ' < u.err)" "^1:.*same as output file" "-o d/../a.c: refused"
files_same a.c a.orig "the source is intact after the three"
"$CH_CC_BIN" -c a.c -o /dev/full 2> u.err
like "$?:$(tr '\n' ' ' < u.err)" "^1:.*cannot write '/dev/full': No space left on device" "-o /dev/full: the write error is reported"
ln -s loop1 loop2
ln -s loop2 loop1
"$CH_CC_BIN" -c a.c -o loop1 2> u.err
like "$?:$(tr '\n' ' ' < u.err)" "^1:.*cannot write 'loop1': Too many levels of symbolic links" "-o a symlink loop: refused, named"
if [ "$(id -u)" = 0 ] && mkdir -p tiny && mount -t tmpfs -o size=64k tmpfs tiny 2> /dev/null; then
    dd if=/dev/zero of=tiny/fill bs=4k count=100 2> /dev/null
    CH_CC_CACHE_DIR="$TEST_DIR/tiny/cache" "$CH_CC_BIN" -c a.c -o full.o 2> u.err
    ok $? "a cache on a full disk: the build succeeds"
    like "$(cat u.err)" "No space left on device" "a cache on a full disk: the fault is said"
    [ -s full.o ]; ok $? "a cache on a full disk: the object is written"
    "$CH_CC_BIN" -c a.c -o tiny/out.o 2> u.err
    is "$?" 1 "-o on a full disk: the build fails (as gcc's would)"
    is "$(ls tiny | grep -c 'out.o')" 0 "-o on a full disk: no partial output or temp left"
    umount tiny
else
    skip "full-disk cases" "not root or no tmpfs"
fi
# kill -9 of the whole build while its model is thinking: the next build works and sweeps
mkdir -p ktmp
printf '{"default": {"reply": "no kernel", "delay": 30}}' > kscript.json
rm -f k.port
python3 "$CH_CC_SRC/tests/fakes/fake_llm.py" --script kscript.json --record k.jsonl --port 0 \
    --port-file k.port > /dev/null 2>&1 &
kllm=$!
for _ in $(seq 100); do [ -s k.port ] && break; sleep 0.1; done
TMPDIR="$TEST_DIR/ktmp" CH_CC_CACHE_DIR="$TEST_DIR/kcache" CH_CC_PROVIDER=openai CH_CC_MODEL=fake \
    CH_CC_API_KEY=k CH_CC_BUDGET=1 CH_CC_API_BASE="http://127.0.0.1:$(cat k.port)/v1" \
    setsid "$CH_CC_BIN" -c a.c -o k.o 2> /dev/null &
kb=$!
for _ in $(seq 100); do [ -s k.jsonl ] && break; sleep 0.1; done
kill -9 -- -$kb 2> /dev/null
wait $kb 2> /dev/null
kill $kllm 2> /dev/null
[ ! -e k.o ]; ok $? "kill -9 mid-build: no partial object"
TMPDIR="$TEST_DIR/ktmp" CH_CC_CACHE_DIR="$TEST_DIR/kcache" "$CH_CC_BIN" --harness-provider=builtin -c a.c -o k.o 2> /dev/null
ok $? "kill -9 mid-build: the next build succeeds"
is "$(ls ktmp | grep -c '^ch-cc-')" 0 "kill -9 mid-build: the next build removed what the killed one left"
files_same a.c a.orig "the source is intact at the end"
done_testing
