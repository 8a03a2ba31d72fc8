#!/bin/bash
# The file:// remote: a directory shared by a team (as over NFS). Two cache directories sharing
# it (the second build is a hit through the share with no agent, no GPU run and no generation);
# items appear whole (written to a temp file in the share and renamed; a writer killed mid-write
# leaves no item a reader can take); many writers of one entry at once leave one valid item; a
# share that goes away between builds or in the middle of one is one warning, a working build and
# remote_unreachable counted; a directory of the share or the share itself swapped for a link
# (by another user who can write it) is never read or written through: one warning, a miss, the
# local build works. Objects are items beside their entry: adding one to an entry writes
# that object and the entry's record (file mtimes show nothing else is written); an object
# swapped in from another entry or listed by an unsigned record is refused, the entry served.
# A key removed from trusted_keys takes back what it signed: local copies and direct-mode hits
# of its entries are refused (attacks7 #26).
# Entries go through tests/fakes/cache_torture and real ch-cc builds.
. "$(dirname "$0")/../lib/tap.sh"
T="${CH_CC_TEST_BUILD:-$CH_CC_SRC/build/asan}/tests/fakes/cache_torture"
[ -x "$T" ] || skip_all "cache_torture not built"
unset CH_CC_REMOTE CH_CC_REMOTE_ONLY_READ CH_CC_REMOTE_TOKEN CH_CC_MAX_SIZE CH_CC_SIGN_KEY \
    CH_CC_TRUSTED_KEYS CH_CC_REMOTE_MAX_SIZE CH_CC_OFFLINE CH_CC_ON_FAIL
"$CH_CC_BIN" --harness-keygen="$TEST_DIR/team" >/dev/null
export CH_CC_SIGN_KEY="$TEST_DIR/team/ch-cc-sign.key"
export CH_CC_TRUSTED_KEYS="$TEST_DIR/team/ch-cc-sign.pub"
SHARE="$TEST_DIR/share"
mkdir -p "$SHARE"
export CH_CC_REMOTE="file://$SHARE"
K1=0000000000000000000000000000d001 K2=0000000000000000000000000000d002
K3=0000000000000000000000000000d003 K4=0000000000000000000000000000d004
stat_of() { # stat_of CACHE_DIR COUNTER
    CH_CC_CACHE_DIR="$1" "$CH_CC_BIN" --harness-stats=json 2>/dev/null |
        sed -n "s/^[[:space:]]*\"$2\":[[:space:]]*\\([0-9]*\\).*/\\1/p"
}
warnings_in() { grep -c '^warning:' "$1"; }
item() { echo "$SHARE/${1:0:2}/${1:2}.char"; }

# --- write-back and read-through --------------------------------------------------------------
CH_CC_CACHE_DIR="$TEST_DIR/A" "$T" script put:$K1 put:$K2 >/dev/null 2>"$TEST_DIR/err.A"
is "$(warnings_in "$TEST_DIR/err.A")" 0 "write-back to the share warns nothing"
[ -f "$(item $K1)" ] && [ -f "$(item $K2)" ]
ok $? "both entries are items in the share"
is "$(find "$SHARE" -name '*.tmp.*' | wc -l)" 0 "no temp file is left in the share"
out=$(CH_CC_CACHE_DIR="$TEST_DIR/B" "$T" script get:$K1 get:$K2 get:$K3 2>"$TEST_DIR/err.B")
is "$(echo $out)" "hit hit miss" "an empty cache B hits both through the share"
is "$(stat_of "$TEST_DIR/B" remote_hits) $(stat_of "$TEST_DIR/B" remote_misses)" "2 1" \
    "B counted 2 remote hits and 1 remote miss"

# --- objects are items of their own: adding one writes only it and the entry's record ---------
K6=0000000000000000000000000000d006 K7=0000000000000000000000000000d007 K8=0000000000000000000000000000d008
CH_CC_CACHE_DIR="$TEST_DIR/A" "$T" script put:$K6 put:$K7 put:$K8 >/dev/null 2>>"$TEST_DIR/err.A"
objects_of() { find "$SHARE/${1:0:2}" -name "${1:2}.o.*.char" | LC_ALL=C sort; }
record_of() { find "$SHARE/${1:0:2}" -name "${1:2}.objects.*.char"; }
is "$(objects_of $K6 | wc -l) $(record_of $K6 | wc -l)" "1 1" "an entry's object and its record are items beside it"
! grep -q "OBJ key=" "$(item $K6)"
ok $? "the entry's archive carries no object bytes"
first_object=$(objects_of $K6)
touch "$TEST_DIR/before-add"
sleep 0.05
CH_CC_CACHE_DIR="$TEST_DIR/A" "$T" script add:$K6 >/dev/null 2>"$TEST_DIR/err.add"
is "$(warnings_in "$TEST_DIR/err.add")" 0 "adding an object warns nothing"
written=$(find "$SHARE" -type f -newer "$TEST_DIR/before-add" | sort)
new_object=$(objects_of $K6 | grep -v -F -x "$first_object")
is "$(echo "$written" | wc -l)" 2 "adding an object wrote two items to the share"
is "$(echo "$written" | grep -c -F -x -e "$(record_of $K6)" -e "$new_object")" 2 \
    "they are the new object and the entry's record: not the entry, not the first object"
is "$(cat "$new_object")" "OBJ2 key=$K6" "the new object's item holds its bytes"
out=$(CH_CC_CACHE_DIR="$TEST_DIR/O" "$T" get $K6 objects/fedcba9876543210fedcba9876543210.o 2>"$TEST_DIR/err.O")
like "$out" "^hit" "an empty cache hits the entry through the share"
like "$out" "OBJ2 key=$K6" "and gets the added object with it"
is "$(stat_of "$TEST_DIR/O" remote_rejected) $(warnings_in "$TEST_DIR/err.O")" "0 0" "nothing refused, nothing said"

# --- a swapped or unsigned object is refused: the entry is served, the object compiled again ---
cp "$(objects_of $K8)" "$(objects_of $K7)" # K8's object (signed by the team) under K7's name
out=$(CH_CC_CACHE_DIR="$TEST_DIR/X" "$T" get $K7 objects/0123456789abcdef0123456789abcdef.o 2>"$TEST_DIR/err.X")
like "$out" "^hit" "swapped object: the entry is still a hit"
! grep -q "key=$K8" <<<"$out"
ok $? "swapped object: the other entry's object never reaches the caller"
like "$(cat "$TEST_DIR/err.X")" "objects of entry $K7 refused: .*not the one its signed record names" \
    "swapped object: the warning says why"
is "$(warnings_in "$TEST_DIR/err.X") $(stat_of "$TEST_DIR/X" remote_rejected)" "1 1" \
    "swapped object: one warning, counted in remote_rejected"
sed -i '/^sig /d' "$(record_of $K8)"
out=$(CH_CC_CACHE_DIR="$TEST_DIR/U" "$T" get $K8 objects/0123456789abcdef0123456789abcdef.o 2>"$TEST_DIR/err.U")
like "$out" "^hit" "unsigned record: the entry is still a hit"
! grep -q "OBJ key=" <<<"$out"
ok $? "unsigned record: its object is not taken"
like "$(cat "$TEST_DIR/err.U")" "object record is not signed" "unsigned record: the warning says why"
is "$(stat_of "$TEST_DIR/U" remote_rejected)" 1 "unsigned record: counted in remote_rejected"

# --- a team: the second build of a file is a hit with no agent and no GPU ---------------------
if command -v nvcc >/dev/null; then
    cd "$TEST_DIR"
    printf '#pragma harness\nvoid twice(int n, float *x)\n{\n    for (int i = 0; i < n; i++)\n        x[i] = 2.0f * x[i];\n}\n' >twice.c
    CH_CC_BUDGET=1 CH_CC_CACHE_DIR="$TEST_DIR/alice" "$CH_CC_BIN" -O2 -c twice.c -o alice.o 2>alice.err
    ok $? "alice's build succeeds"
    is "$(stat_of "$TEST_DIR/alice" generations)" 1 "alice generated the entry"
    CH_CC_CACHE_DIR="$TEST_DIR/bob" "$CH_CC_BIN" -O2 -c twice.c -o bob.o 2>bob.err
    ok $? "bob's build succeeds"
    is "$(stat_of "$TEST_DIR/bob" remote_hits) $(stat_of "$TEST_DIR/bob" hits)" "1 1" \
        "bob's build is a hit through the share"
    is "$(stat_of "$TEST_DIR/bob" agent_requests) $(stat_of "$TEST_DIR/bob" gpu_runs) $(stat_of "$TEST_DIR/bob" generations)" \
        "0 0 0" "bob's build asked no agent, ran no GPU, generated nothing"
    cd - >/dev/null
else
    skip "team build" "nvcc not installed"
fi

# --- a writer killed mid-write leaves nothing a reader takes ----------------------------------
mkdir -p "$(dirname "$(item $K3)")"
head -c 100 "$(item $K1)" >"$(dirname "$(item $K3)")/.${K3:2}.tmp.99999.abcdef"
CH_CC_CACHE_DIR="$TEST_DIR/P" "$T" get $K3 >/dev/null 2>"$TEST_DIR/err.P"
is "$?" 1 "a half-written item is a miss"
is "$(warnings_in "$TEST_DIR/err.P")" 0 "and not a damaged entry: the reader never opened it"

# --- many writers of one entry at once: one whole item ------------------------------------------
for i in 1 2 3 4 5 6; do
    CH_CC_CACHE_DIR="$TEST_DIR/W$i" "$T" put $K4 >/dev/null 2>"$TEST_DIR/err.W$i" &
done
wait
n=0; for i in 1 2 3 4 5 6; do n=$((n + $(warnings_in "$TEST_DIR/err.W$i"))); done
is "$n" 0 "six writers of one entry warn nothing"
CH_CC_CACHE_DIR="$TEST_DIR/R" "$T" get $K4 >/dev/null 2>"$TEST_DIR/err.R"
is "$?" 0 "the item they left is whole and signed: a hit"

# --- the share goes away between builds: writes count it -------------------------------------
mv "$SHARE" "$SHARE.away"
CH_CC_CACHE_DIR="$TEST_DIR/G" "$T" script get:$K1 put:$K1 get:$K1 >"$TEST_DIR/out.G" 2>"$TEST_DIR/err.G"
ok $? "a build with the share unmounted succeeds"
is "$(echo $(cat "$TEST_DIR/out.G"))" "miss generated hit" "it generates locally and hits its own entry"
is "$(warnings_in "$TEST_DIR/err.G")" 1 "one warning"
like "$(cat "$TEST_DIR/err.G")" "shared cache directory .* is missing" "the warning says the share is missing"
is "$(stat_of "$TEST_DIR/G" remote_unreachable)" 1 "counted in remote_unreachable"
mv "$SHARE.away" "$SHARE"

# --- the share goes away in the middle of a build ----------------------------------------------
K5=0000000000000000000000000000d005
CH_CC_CACHE_DIR="$TEST_DIR/H" "$T" script get:$K1 touch:"$TEST_DIR/ready" wait:"$TEST_DIR/go" \
    get:$K5 put:$K5 get:$K2 >"$TEST_DIR/out.H" 2>"$TEST_DIR/err.H" &
BUILD=$!
for _ in $(seq 300); do [ -e "$TEST_DIR/ready" ] && break; sleep 0.02; done
mv "$SHARE" "$SHARE.away"
touch "$TEST_DIR/go"
wait $BUILD
ok $? "a build whose share went away mid-build succeeds"
is "$(echo $(cat "$TEST_DIR/out.H"))" "hit miss generated miss" "hit before, local generation after"
is "$(warnings_in "$TEST_DIR/err.H")" 1 "one warning"
is "$(stat_of "$TEST_DIR/H" remote_unreachable)" 1 "counted in remote_unreachable"
is "$(stat_of "$TEST_DIR/H" entries)" 2 "the read-through and the generated entry are local"
mv "$SHARE.away" "$SHARE"

# --- another user swaps a directory of the share for a link ------------------------------------
K9=ef00000000000000000000000000d009 K10=ef00000000000000000000000000d00a
CH_CC_CACHE_DIR="$TEST_DIR/A" "$T" script put:$K9 >/dev/null 2>>"$TEST_DIR/err.A"
mv "$SHARE/ef" "$TEST_DIR/victim"
ln -s "$TEST_DIR/victim" "$SHARE/ef"
moved=$(ls -A "$TEST_DIR/victim" | wc -l)
CH_CC_CACHE_DIR="$TEST_DIR/L" "$T" script get:$K9 put:$K10 >"$TEST_DIR/out.L" 2>"$TEST_DIR/err.L"
ok $? "a build whose share holds a directory link succeeds"
is "$(echo $(cat "$TEST_DIR/out.L"))" "miss generated" "the entry behind the link is a miss, generated locally"
like "$(cat "$TEST_DIR/err.L")" "is not a directory of the share" "the warning says the directory is a link"
is "$(ls -A "$TEST_DIR/victim" | wc -l)" "$moved" "nothing is written through the link (only the items moved there)"

# --- ... or the share itself, in the middle of a build -----------------------------------------
mkdir "$TEST_DIR/victim2"
rm -f "$TEST_DIR/ready" "$TEST_DIR/go"
CH_CC_CACHE_DIR="$TEST_DIR/S" "$T" script get:$K1 touch:"$TEST_DIR/ready" wait:"$TEST_DIR/go" \
    get:$K5 put:$K5 get:$K2 >"$TEST_DIR/out.S" 2>"$TEST_DIR/err.S" &
BUILD=$!
for _ in $(seq 300); do [ -e "$TEST_DIR/ready" ] && break; sleep 0.02; done
mv "$SHARE" "$SHARE.real"
ln -s "$TEST_DIR/victim2" "$SHARE"
touch "$TEST_DIR/go"
wait $BUILD
ok $? "a build whose share became a link mid-build succeeds"
is "$(echo $(cat "$TEST_DIR/out.S"))" "hit miss generated miss" "hit before, local generation after"
is "$(warnings_in "$TEST_DIR/err.S")" 1 "one warning"
like "$(cat "$TEST_DIR/err.S")" "shared cache directory .* is now a link" "the warning says the share is a link"
is "$(find "$TEST_DIR/victim2" | wc -l)" 1 "nothing is written where the link points"
rm "$SHARE" && mv "$SHARE.real" "$SHARE"

# --- a revoked key takes back what it signed (attacks7 #26) -----------------------------------
# a reader trusts the team key through a FILE of keys and reads a real entry through the share
# (with direct mode recording the build); the key is then removed from the file. The local copy
# of what it signed is refused (a miss, one warning naming the key, remote_rejected), with
# other flags and with the same command (the direct-mode key covers the file's keys, not its
# name). The reader has no agent: what is not served is the host path.
"$CH_CC_BIN" --harness-keygen="$TEST_DIR/other" >/dev/null
TEAM=$(cat "$TEST_DIR/team/ch-cc-sign.pub")
mkdir -p "$TEST_DIR/rv" && cd "$TEST_DIR/rv" || exit 1
cat > k.c <<'C'
#pragma harness "y[i] = 3 * x[i]" extent(x: n, y: n) tune(n = 1 << 20)
void scale(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = 3 * x[i];
}
C
echo "$TEAM" > "$TEST_DIR/trusted.txt"
sleep 1
# the team's writer (the release binary: a generation under ASan is slow)
CH_CC_CACHE_DIR="$TEST_DIR/RW" "${CH_CC_REL_BIN:-$CH_CC_BIN}" -O2 -c k.c -o w.o 2>/dev/null
ok $? "the writer builds and signs the entry"
reader() { # reader FLAGS...: builds k.c with the reader's settings, stderr to err.rv
    CH_CC_CACHE_DIR="$TEST_DIR/RR" CH_CC_TRUSTED_KEYS="$TEST_DIR/trusted.txt" CH_CC_SIGN_KEY= \
        CH_CC_REMOTE_ONLY_READ=1 CH_CC_PROVIDER=none "$CH_CC_BIN" "$@" -c k.c -o k.o 2>err.rv
}
rv_stats() { echo "$(stat_of "$TEST_DIR/RR" hits) $(stat_of "$TEST_DIR/RR" direct_hits) $(stat_of "$TEST_DIR/RR" remote_rejected)"; }
reader -O2
is "$(stat_of "$TEST_DIR/RR" remote_hits) $(rv_stats)" "1 1 0 0" "revocation: the reader takes the signed entry through the share"
reader -O2
is "$(rv_stats)" "1 1 0" "revocation: the same command again is a direct hit"
printf '# team key revoked\n%s\n' "$(cat "$TEST_DIR/other/ch-cc-sign.pub")" > "$TEST_DIR/trusted.txt"
reader -O1
ok $? "revocation: a build with other flags works"
is "$(rv_stats)" "1 1 1" "revocation: the local copy is not a hit; refused, counted in remote_rejected"
is "$(grep -c 'refused' err.rv)" 1 "revocation: one warning"
like "$(cat err.rv)" "signed by key $TEAM, which trusted_keys no longer lists" "revocation: it names the key"
reader -O2
ok $? "revocation: the first command again works"
is "$(rv_stats)" "1 1 2" "revocation: not a direct hit; the share's copy is refused too"
like "$(cat err.rv)" "signed by $(echo "$TEAM" | cut -c1-16)" "revocation: its warning names the key"
echo "$TEAM" > "$TEST_DIR/trusted.txt"
reader -O2
is "$(rv_stats)" "1 2 2" "revocation: trusted again, the manifest recorded under that trust serves"
done_testing
