#!/bin/bash
# A poisoned remote cache against a real build (issue 15's first attack, end to end): an attacker
# who can PUT to the team's remote store uploads, under the key of the victim's saxpy, an entry
# marked verified whose kernel.cu holds a constructor that writes a marker file when the linked
# program starts. Unsigned, or signed by a key the victim does not trust, the victim's
# `make CC=ch-cc` still exits 0, links nothing of the entry (its saxpy.o carries no device code
# and the program never writes the marker), counts remote_rejected and says why once. The
# control proves the path: the same upload of a clean kernel under a key the victim trusts is
# linked. No GPU needed: the entry is judged before anything runs. The remote is a small
# WebDAV-like server (tests/lib/remote_store.py) on a loopback port.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/signed_remote.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
seed="$CH_CC_TEST_BUILD/tests/fakes/cache_seed"
forge="$CH_CC_TEST_BUILD/tests/fakes/remote_forge"
[ -x "$seed" ] && [ -x "$forge" ] || skip_all "cache_seed/remote_forge not built (make asan)"
unset CH_CC_REMOTE CH_CC_REMOTE_ONLY_READ CH_CC_REMOTE_TOKEN CH_CC_SIGN_KEY CH_CC_TRUSTED_KEYS
export CH_CC_BUDGET=1

# ---- the remote store ------------------------------------------------------------------------
remote_store_start
"$CH_CC_BIN" --harness-keygen="$TEST_DIR/team" >/dev/null &&
    "$CH_CC_BIN" --harness-keygen="$TEST_DIR/attacker" >/dev/null
ok $? "the team's and the attacker's key pairs"

# ---- what the attacker uploads ---------------------------------------------------------------
saxpy_app
ok $? "a real candidate kernel and the entry key of saxpy"
marker="$TEST_DIR/PWNED"
payload_kernel evil.cu "$marker"
upload() { # upload KERNEL SIGN_KEY: the attacker's cache commits a verified entry, PUT signed
    rm -f "$remote_file"
    CH_CC_CACHE_DIR="$TEST_DIR/up.$RANDOM" CH_CC_SIGN_KEY="$2" "$seed" "$key" kernel.cu="$1" \
        checklist.json=checklist.json meta:status=verified meta:name=saxpy meta:kind=c-def \
        meta:agent=builtin "meta:design=uploaded by the attacker" >/dev/null
}
victim() { # victim NAME: a clean build of the app with an empty cache of its own
    rm -f saxpy.o saxpy main.o "$marker"
    CH_CC_CACHE_DIR="$TEST_DIR/V.$1" make -s CC="$CH_CC_BIN" >"v.$1.out" 2>"v.$1.err"
}

# ---- control: a clean kernel under a key the victim trusts is linked --------------------------
upload cands/saxpy.0.cu "$TEST_DIR/attacker/ch-cc-sign.key"
[ -s "$remote_file" ]; ok $? "the store took the signed upload"
CH_CC_TRUSTED_KEYS="$TEST_DIR/attacker/ch-cc-sign.pub" victim control
ok $? "control: the build with a trusted remote entry succeeds"
is "$(stat_in "$TEST_DIR/V.control" remote_hits)" 1 "control: the entry came from the remote"
objdump -h saxpy.o | grep -q nv_fatbin
ok $? "control: saxpy.o links the remote kernel (device code in it)"

# ---- the attacks -------------------------------------------------------------------------------
attack() { # attack NAME REASON: the upload in the store is the poisoned one
    local name=$1 reason=$2
    CH_CC_TRUSTED_KEYS="$TEST_DIR/team/ch-cc-sign.pub" victim "$name"
    ok $? "$name: the victim's build exits 0"
    is "$(stat_in "$TEST_DIR/V.$name" remote_rejected)" 1 "$name: counted in remote_rejected"
    is "$(stat_in "$TEST_DIR/V.$name" remote_hits)" 0 "$name: no remote hit"
    like "$(cat "v.$name.err")" "refused: .*$reason" "$name: the warning says why"
    is "$(grep -c "remote cache entry" "v.$name.err")" 1 "$name: said once"
    ! objdump -h saxpy.o | grep -q nv_fatbin
    ok $? "$name: saxpy.o links no kernel of the entry"
    ./saxpy >"run.$name.out" 2>&1
    ok $? "$name: the program runs correctly on its host path"
    [ ! -e "$marker" ]
    ok $? "$name: the payload never ran"
}
upload evil.cu "$TEST_DIR/attacker/ch-cc-sign.key"
attack untrusted "a key not in trusted_keys"
upload evil.cu "$TEST_DIR/attacker/ch-cc-sign.key"
"$forge" "$remote_file" "$remote_file.new" "$key" "$key" strip && mv "$remote_file.new" "$remote_file"
attack unsigned "entry is not signed"
upload cands/saxpy.0.cu "$TEST_DIR/team/ch-cc-sign.key"
"$forge" "$remote_file" "$remote_file.new" "$key" "$key" keep kernel.cu=evil.cu &&
    mv "$remote_file.new" "$remote_file"
attack swapped "entry signature does not match"
done_testing
