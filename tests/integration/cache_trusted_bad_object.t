#!/bin/bash
# A remote entry signed by a key the victim trusts, whose kernel then fails at the object step
# (issue 15: a trusted writer's mistake, or a trusted key that leaked, costs the kernel, never
# the build). The signature lets the entry in, but the object is judged again as compiled: a
# kernel.cu whose constructor writes a marker file is refused by the object check, and one that
# nvcc cannot compile has no object at all. Either way the victim's `make CC=ch-cc` exits 0 and
# links the host path of saxpy: one warning names the entry and the reason, fallback_object and
# host_fallbacks move, the entry's report.json records the fallback, and the payload never
# runs. No GPU needed. The remote is tests/lib/remote_store.py on a loopback port.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/signed_remote.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
seed="$CH_CC_TEST_BUILD/tests/fakes/cache_seed"
[ -x "$seed" ] || skip_all "cache_seed not built (make asan)"
unset CH_CC_REMOTE CH_CC_REMOTE_ONLY_READ CH_CC_REMOTE_TOKEN CH_CC_SIGN_KEY CH_CC_TRUSTED_KEYS
export CH_CC_BUDGET=1

# ---- the remote store and the team's key ------------------------------------------------------
remote_store_start
"$CH_CC_BIN" --harness-keygen="$TEST_DIR/team" >/dev/null
ok $? "the team's key pair"
export CH_CC_TRUSTED_KEYS="$TEST_DIR/team/ch-cc-sign.pub"

# ---- the entries a trusted writer uploads ----------------------------------------------------
saxpy_app
ok $? "a real candidate kernel and the entry key of saxpy"
marker="$TEST_DIR/PWNED"
payload_kernel payload.cu "$marker"
{
    cat cands/saxpy.0.cu
    printf 'this line is not CUDA;\n'
} >broken.cu
upload() { # upload KERNEL: a verified entry committed and PUT signed by the team's key
    rm -f "$remote_file"
    CH_CC_CACHE_DIR="$TEST_DIR/up.$RANDOM" CH_CC_SIGN_KEY="$TEST_DIR/team/ch-cc-sign.key" \
        "$seed" "$key" kernel.cu="$1" checklist.json=checklist.json meta:status=verified \
        meta:name=saxpy meta:kind=c-def meta:agent=builtin "meta:design=a trusted upload" >/dev/null
    [ -s "$remote_file" ]
}

# ---- each bad kernel: the build falls back ---------------------------------------------------
fallback() { # fallback NAME KERNEL REASON
    local name=$1 reason=$3 cache="$TEST_DIR/V.$1"
    upload "$2"
    ok $? "$name: the store holds the trusted upload"
    rm -f saxpy.o saxpy main.o "$marker"
    CH_CC_CACHE_DIR="$cache" make -s CC="$CH_CC_BIN" >"v.$name.out" 2>"v.$name.err"
    ok $? "$name: the victim's build exits 0"
    is "$(stat_in "$cache" remote_hits)" 1 "$name: the trusted entry came from the remote"
    is "$(stat_in "$cache" remote_rejected)" 0 "$name: the signature was accepted"
    is "$(stat_in "$cache" fallback_object)" 1 "$name: counted in fallback_object"
    is "$(stat_in "$cache" host_fallbacks)" 1 "$name: counted in host_fallbacks"
    like "$(cat "v.$name.err")" "saxpy.c:[0-9]+:[0-9]+: warning: saxpy: host path linked: .*$reason" \
        "$name: the warning names the entry and the reason"
    is "$(grep -c "host path linked" "v.$name.err")" 1 "$name: said once"
    ! objdump -h saxpy.o | grep -q nv_fatbin
    ok $? "$name: saxpy.o links no kernel of the entry"
    ./saxpy >"run.$name.out" 2>&1
    ok $? "$name: the program runs correctly on its host path"
    [ ! -e "$marker" ]
    ok $? "$name: the payload never ran"
    python3 - "$cache/${key:0:2}/${key:2}/report.json" "$reason" <<'PY'
import json, re, sys
fell = json.load(open(sys.argv[1]))["host_fallback"]
sys.exit(0 if fell["class"] == "object" and re.search(sys.argv[2], fell["reason"]) else 1)
PY
    ok $? "$name: report.json records the fallback and its reason"
    like "$(CH_CC_CACHE_DIR="$cache" "$CH_CC_BIN" --harness-explain "$key")" \
        "linked +host path linked \(object\): .*$reason" "$name: --harness-explain shows it"
}
fallback payload payload.cu "the kernel's object is refused"
fallback broken broken.cu "nvcc failed"

# a warm rebuild (another command line: not served by direct mode) links the host path again,
# without repeating the note
CH_CC_CACHE_DIR="$TEST_DIR/V.broken" "$CH_CC_BIN" -O2 -c saxpy.c -o warm.o 2>warm.err
ok $? "a warm rebuild succeeds"
! objdump -h warm.o | grep -q nv_fatbin
ok $? "a warm rebuild links the host path again"
is "$(grep -c "host path linked" warm.err)" 0 "a warm rebuild does not repeat the note"
is "$(stat_in "$TEST_DIR/V.broken" fallback_object)" 2 "a warm rebuild counts its fallback"

# --harness-on-fail=error still makes a lost kernel an error
rm -f saxpy.o
CH_CC_CACHE_DIR="$TEST_DIR/V.strict" "$CH_CC_BIN" --harness-on-fail=error -O2 -c saxpy.c -o saxpy.o \
    2>strict.err
[ $? -ne 0 ] && [ ! -e saxpy.o ]
ok $? "--harness-on-fail=error: the compile fails and writes no object"
like "$(cat strict.err)" "saxpy: .*nvcc failed" "--harness-on-fail=error: the error says why"
done_testing
