#!/bin/bash
# The shared remote store against a real nginx (WebDAV PUT, plain GET/HEAD) on a loopback port:
# a second, empty cache hits every entry written through the first; 500s, garbage and corrupted
# archives, a slow server and a server stopped mid-build are one warning and never a failure or a
# corrupt local entry; read-only mode never PUTs; the bearer token reaches the server and no
# message. Trust: only entries signed by a key in trusted_keys are read; unsigned, re-signed,
# swapped-after-signing and re-labelled entries (forged by tests/fakes/remote_forge) are misses
# with one warning. Objects are items beside their entry: an object swapped on the server or
# listed by an unsigned record is refused (remote_rejected) while the entry is served; in real
# builds (nvcc, no GPU) a second flag set adds one object and PUTs only it and the entry's
# record (access log: requests and bytes), a second cache links it with no agent, no GPU run and
# no kernel compile, and a swapped object is compiled again, never linked. Put/lookup go through
# tests/fakes/cache_torture, counters through ch-cc.
. "$(dirname "$0")/../lib/tap.sh"
T="${CH_CC_TEST_BUILD:-$CH_CC_SRC/build/asan}/tests/fakes/cache_torture"
F="$(dirname "$T")/remote_forge"
[ -x "$T" ] || skip_all "cache_torture not built"
[ -x "$F" ] || skip_all "remote_forge not built"
command -v nginx >/dev/null || skip_all "nginx not installed"
unset CH_CC_REMOTE CH_CC_REMOTE_ONLY_READ CH_CC_REMOTE_TOKEN CH_CC_MAX_SIZE CH_CC_SIGN_KEY \
    CH_CC_TRUSTED_KEYS CH_CC_REMOTE_MAX_SIZE
# the team's writer key (trusted) and an attacker's (not)
"$CH_CC_BIN" --harness-keygen="$TEST_DIR/team" >"$TEST_DIR/keygen.out"
ok $? "ch-cc --harness-keygen makes a key pair"
"$CH_CC_BIN" --harness-keygen="$TEST_DIR/attacker" >/dev/null
is "$(stat -c %a "$TEST_DIR/team/ch-cc-sign.key")" 600 "the secret key is readable by its owner only"
"$CH_CC_BIN" --harness-keygen="$TEST_DIR/team" >/dev/null 2>&1
is "$?" 1 "keygen refuses to overwrite a key pair"
export CH_CC_SIGN_KEY="$TEST_DIR/team/ch-cc-sign.key"
export CH_CC_TRUSTED_KEYS="$TEST_DIR/team/ch-cc-sign.pub"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
NG="$TEST_DIR/nginx"
mkdir -p "$NG/logs" "$NG/www/cache" "$NG/tmp"
# as root, nginx's workers would drop to nobody, who cannot enter the private test directory
USER_LINE=; [ "$(id -u)" = 0 ] && USER_LINE="user root;"
cat >"$NG/nginx.conf" <<CONF
$USER_LINE
worker_processes 1;
error_log $NG/logs/error.log;
pid $NG/nginx.pid;
events { worker_connections 64; }
http {
    log_format auth '\$request_method \$uri \$http_authorization \$content_length';
    access_log $NG/logs/access.log auth;
    client_body_temp_path $NG/tmp/body;
    proxy_temp_path $NG/tmp/proxy;
    fastcgi_temp_path $NG/tmp/fastcgi;
    uwsgi_temp_path $NG/tmp/uwsgi;
    scgi_temp_path $NG/tmp/scgi;
    server {
        listen 127.0.0.1:$PORT;
        root $NG/www;
        client_max_body_size 1g;
        location /cache/ {
            dav_methods PUT DELETE MKCOL;
            create_full_put_path on;
            dav_access user:rw group:r all:r;
        }
        location /err/ { return 500; }
        location /garbage/ { return 200 "<html>this is not an archive</html>"; }
    }
}
CONF
start_nginx() {
    nginx -p "$NG" -c "$NG/nginx.conf" -g 'daemon off;' 2>>"$NG/logs/stderr" &
    NGINX_PID=$!
    for _ in $(seq 100); do
        curl -s -o /dev/null "http://127.0.0.1:$PORT/" && return 0
        sleep 0.05
    done
    return 1
}
stop_nginx() {
    [ -n "${NGINX_PID:-}" ] || return 0
    kill "$NGINX_PID" 2>/dev/null
    wait "$NGINX_PID" 2>/dev/null
    NGINX_PID=
}
SLOW_PID=
trap 'stop_nginx; [ -n "$SLOW_PID" ] && kill $SLOW_PID 2>/dev/null; _tap_cleanup' EXIT
start_nginx
ok $? "nginx serves on 127.0.0.1:$PORT"

URL="http://127.0.0.1:$PORT/cache/"
K1=0000000000000000000000000000a001 K2=0000000000000000000000000000a002
K3=0000000000000000000000000000a003 K4=0000000000000000000000000000a004
stat_of() { # stat_of CACHE_DIR COUNTER
    CH_CC_CACHE_DIR="$1" "$CH_CC_BIN" --harness-stats=json |
        sed -n "s/^[[:space:]]*\"$2\":[[:space:]]*\\([0-9]*\\).*/\\1/p"
}
warnings_in() { grep -c '^warning:' "$1"; }
remote_file() { echo "$NG/www/cache/${1:0:2}/${1:2}.char"; }

# --- round trip: A writes back, an empty B reads every entry through -------------------------
export CH_CC_REMOTE="$URL" CH_CC_REMOTE_TOKEN=sekrit-token-42
for k in $K1 $K2 $K3; do
    CH_CC_CACHE_DIR="$TEST_DIR/A" "$T" put $k >/dev/null 2>"$TEST_DIR/err.A"
done
is "$(warnings_in "$TEST_DIR/err.A")" 0 "write-back to a healthy server warns nothing"
n=0; for k in $K1 $K2 $K3; do [ -f "$(remote_file $k)" ] && n=$((n + 1)); done
is "$n" 3 "every generated entry was PUT to the server"
like "$(cat "$NG/logs/access.log")" "PUT /cache/00/00000000000000000000000000a001.char Bearer sekrit-token-42" \
    "the bearer token reaches the server"
hits=0
for k in $K1 $K2 $K3; do
    out=$(CH_CC_CACHE_DIR="$TEST_DIR/B" "$T" get $k kernel.cu 2>"$TEST_DIR/err.B")
    like "$out" "key=$k" "empty cache B hits $k through the remote" && hits=$((hits + 1))
done
is "$(stat_of "$TEST_DIR/B" remote_hits)" 3 "B counted 3 remote hits"
is "$(stat_of "$TEST_DIR/B" entries)" 3 "B now holds the 3 entries locally"
CH_CC_CACHE_DIR="$TEST_DIR/B" "$T" get $K1 >/dev/null 2>&1
is "$(stat_of "$TEST_DIR/B" remote_hits)" 3 "a second lookup in B is a local hit"
is "$(stat_of "$TEST_DIR/B" hits)" 4 "B counted 4 hits"
explain=$(CH_CC_CACHE_DIR="$TEST_DIR/B" "$CH_CC_BIN" --harness-explain=$K1)
ok $? "ch-cc --harness-explain of a read-through entry exits 0"
like "$explain" "kernel.cu +[0-9]+" "explain lists the entry's files with sizes"
like "$explain" "agent +builtin" "explain shows the recorded agent"
like "$explain" "verification +passed stages 0-5" "explain shows the verification summary"

# --- trust: poisoned entries are misses with one warning ---------------------------------------
printf '// key=%s v=1\n__attribute__((constructor)) static void p(void) { system("touch /tmp/pwned"); }\n' $K1 >"$TEST_DIR/evil.cu"
printf 'OBJ key=%s v=1 EVIL\n' $K1 >"$TEST_DIR/evil.o"
OBJ=objects/0123456789abcdef0123456789abcdef.o
cp "$(remote_file $K1)" "$TEST_DIR/good.char"
forged=0000000000000000000000000000b00
poison() { # poison NAME KEY_OUT MODE REASON [SWAPS...]: forge, serve as KEY_OUT, read from a fresh cache
    local name=$1 kout=$2 mode=$3 reason=$4; shift 4
    mkdir -p "$(dirname "$(remote_file $kout)")"
    "$F" "$TEST_DIR/good.char" "$(remote_file $kout)" $K1 $kout "$mode" "$@"
    out=$(CH_CC_CACHE_DIR="$TEST_DIR/P.$name" "$T" get $kout kernel.cu 2>"$TEST_DIR/err.P.$name")
    is "$?" 1 "$name: a miss"
    ! grep -qE "system|EVIL" <<<"$out"
    ok $? "$name: no attacker byte reached the caller"
    is "$(warnings_in "$TEST_DIR/err.P.$name")" 1 "$name: one warning"
    like "$(cat "$TEST_DIR/err.P.$name")" "refused: .*$reason" "$name: the warning says why"
    is "$(stat_of "$TEST_DIR/P.$name" entries)" 0 "$name: nothing stored locally"
    is "$(stat_of "$TEST_DIR/P.$name" remote_rejected)" 1 "$name: counted in remote_rejected"
}
"$F" "$TEST_DIR/good.char" "$TEST_DIR/same.char" $K1 $K1 keep
cmp -s "$TEST_DIR/good.char" "$TEST_DIR/same.char"
ok $? "the forger rebuilds an untouched archive byte for byte"
poison unsigned ${forged}1 strip "entry is not signed" kernel.cu="$TEST_DIR/evil.cu"
poison swapped-source ${forged}2 keep "entry signature does not match" kernel.cu="$TEST_DIR/evil.cu"
poison untrusted ${forged}4 "$TEST_DIR/attacker/ch-cc-sign.key" "a key not in trusted_keys" kernel.cu="$TEST_DIR/evil.cu"
poison relabelled ${forged}5 keep "entry signature does not match"
out=$(CH_CC_TRUSTED_KEYS="$(cat "$TEST_DIR/attacker/ch-cc-sign.pub"), $(cat "$TEST_DIR/team/ch-cc-sign.pub")" \
    CH_CC_CACHE_DIR="$TEST_DIR/P.list" "$T" get ${forged}4 kernel.cu 2>/dev/null)
like "$out" "^hit" "a key given inline in trusted_keys is trusted (the attacker's, here)"
# no trusted keys: no read at all, one warning saying how to configure them
before=$(grep -c "GET " "$NG/logs/access.log")
CH_CC_TRUSTED_KEYS= CH_CC_CACHE_DIR="$TEST_DIR/P.none" "$T" script get:$K1 get:$K2 >"$TEST_DIR/out.none" 2>"$TEST_DIR/err.none"
ok $? "no trusted_keys: the build goes on"
is "$(grep -c '^miss' "$TEST_DIR/out.none")" 2 "no trusted_keys: remote reads are misses"
is "$(grep -c "GET " "$NG/logs/access.log")" "$before" "no trusted_keys: no GET is sent"
is "$(warnings_in "$TEST_DIR/err.none")" 1 "no trusted_keys: one warning"
like "$(cat "$TEST_DIR/err.none")" "no trusted_keys configured.*CH_CC_TRUSTED_KEYS" "the warning says how to configure keys"
# no sign key: nothing uploaded, said once
CH_CC_SIGN_KEY= CH_CC_CACHE_DIR="$TEST_DIR/P.nokey" "$T" script put:${forged}6 put:${forged}7 >/dev/null 2>"$TEST_DIR/err.nokey"
ok $? "no sign_key: the build goes on"
[ ! -e "$(remote_file ${forged}6)" ] && [ ! -e "$(remote_file ${forged}7)" ]
ok $? "no sign_key: nothing is PUT"
is "$(warnings_in "$TEST_DIR/err.nokey")" 1 "no sign_key: one warning"
like "$(cat "$TEST_DIR/err.nokey")" "no sign_key configured" "the warning names the setting"
# a repository's .ch-cc.conf cannot make its own key trusted
mkdir -p "$TEST_DIR/repo"
echo "trusted_keys = $(cat "$TEST_DIR/attacker/ch-cc-sign.pub")" >"$TEST_DIR/repo/.ch-cc.conf"
echo "sign_key = /etc/passwd" >>"$TEST_DIR/repo/.ch-cc.conf"
cfg=$(cd "$TEST_DIR/repo" && CH_CC_TRUSTED_KEYS= CH_CC_SIGN_KEY= "$CH_CC_BIN" --harness-config 2>&1)
! grep -q "$(cat "$TEST_DIR/attacker/ch-cc-sign.pub")" <<<"$cfg"
ok $? "a repository's trusted_keys is not taken"
like "$cfg" "warning:.*\.ch-cc\.conf.*trusted_keys" "and a warning names the file and the setting"
# a response over remote_max_size is aborted: a miss with one warning
out=$(CH_CC_REMOTE_MAX_SIZE=1K CH_CC_CACHE_DIR="$TEST_DIR/P.big" "$T" get $K2 2>"$TEST_DIR/err.big")
is "$?" 1 "an entry over remote_max_size is a miss"
like "$(cat "$TEST_DIR/err.big")" "larger than remote_max_size" "the warning names the limit"
is "$(stat_of "$TEST_DIR/P.big" remote_too_large)" 1 "counted in remote_too_large"
# an unknown scheme is a config warning; the local cache still works
CH_CC_REMOTE=ftp://127.0.0.1/cache/ CH_CC_CACHE_DIR="$TEST_DIR/P.ftp" "$T" script put:$K1 get:$K1 >"$TEST_DIR/out.ftp" 2>"$TEST_DIR/err.ftp"
ok $? "an ftp:// remote does not fail the build"
is "$(sed -n 2p "$TEST_DIR/out.ftp")" "hit" "the local cache still serves hits"
like "$(cat "$TEST_DIR/err.ftp")" "not an http://, https://, redis:// or file:// URL" "the warning says what is wrong with the remote"

# --- objects are items of their own; a swapped or unsigned one is refused ---------------------
# (the entry's archive holds no object: a swap in it is the swapped-source case above)
objects_of() { find "$NG/www/cache/${1:0:2}" -name "${1:2}.o.*.char" | LC_ALL=C sort; }
record_of() { find "$NG/www/cache/${1:0:2}" -name "${1:2}.objects.*.char"; }
is "$(objects_of $K1 | wc -l) $(record_of $K1 | wc -l)" "1 1" "an entry's object and its record are items beside it"
cp "$TEST_DIR/evil.o" "$(objects_of $K2)"
out=$(CH_CC_CACHE_DIR="$TEST_DIR/P.obj" "$T" get $K2 $OBJ 2>"$TEST_DIR/err.P.obj")
like "$out" "^hit" "swapped object: the entry is still a hit"
! grep -q EVIL <<<"$out"
ok $? "swapped object: no attacker byte reached the caller"
like "$(cat "$TEST_DIR/err.P.obj")" "objects of entry $K2 refused: .*not the one its signed record names" \
    "swapped object: the warning says why"
is "$(warnings_in "$TEST_DIR/err.P.obj") $(stat_of "$TEST_DIR/P.obj" remote_rejected)" "1 1" \
    "swapped object: one warning, counted in remote_rejected"
sed -i '/^sig /d' "$(record_of $K3)"
out=$(CH_CC_CACHE_DIR="$TEST_DIR/P.rec" "$T" get $K3 $OBJ 2>"$TEST_DIR/err.P.rec")
like "$out" "^hit" "unsigned object record: the entry is still a hit"
! grep -q "OBJ key=" <<<"$out"
ok $? "unsigned object record: its object is not taken"
like "$(cat "$TEST_DIR/err.P.rec")" "object record is not signed" "unsigned object record: the warning says why"
is "$(stat_of "$TEST_DIR/P.rec" remote_rejected)" 1 "unsigned object record: counted in remote_rejected"

# --- a team's real builds: a second flag set adds one object, sent alone; bob links it --------
# (-fPIC makes another object of the same entry: the architectures are part of the entry key)
S="$(dirname "$T")/cache_seed"
if command -v nvcc >/dev/null && [ -x "$S" ]; then
    cp -r "$CH_CC_SRC/examples/saxpy" "$TEST_DIR/app"
    cd "$TEST_DIR/app"
    export CH_CC_BUDGET=1
    CH_CC_CACHE_DIR="$TEST_DIR/prep" "$CH_CC_BIN" --harness-propose=cands --harness-budget=1 saxpy.c >/dev/null
    key=$(CH_CC_CACHE_DIR="$TEST_DIR/prep" "$CH_CC_BIN" --harness-list saxpy.c |
        python3 -c "import json,sys; print(json.load(sys.stdin)[0]['key'])")
    CH_CC_CACHE_DIR="$TEST_DIR/prep" "$CH_CC_BIN" --harness-checklist saxpy.c |
        python3 -c "import json,sys; print(json.dumps(json.load(sys.stdin)[0]))" >checklist.json
    # a teammate's GPU machine verified the entry (cache_seed stands for it); it goes up signed
    CH_CC_CACHE_DIR="$TEST_DIR/alice" "$S" "$key" kernel.cu=cands/saxpy.0.cu checklist.json=checklist.json \
        meta:status=verified meta:name=saxpy meta:kind=c-def meta:agent=builtin >/dev/null
    ok $? "a verified entry of saxpy in alice's cache and on the server"
    CH_CC_CACHE_DIR="$TEST_DIR/alice" "$CH_CC_BIN" -O2 -c saxpy.c -o alice.o 2>alice.err
    ok $? "alice builds saxpy.o (its object is compiled and sent)"
    is "$(objects_of $key | wc -l)" 1 "the server holds that object"
    n0=$(wc -l <"$NG/logs/access.log")
    CH_CC_CACHE_DIR="$TEST_DIR/alice" "$CH_CC_BIN" -O2 -fPIC -c saxpy.c -o alice-pic.o 2>alice-pic.err
    ok $? "alice builds a position-independent saxpy.o (a second object of the entry)"
    tail -n +$((n0 + 1)) "$NG/logs/access.log" | grep '^PUT ' >puts.pic
    is "$(wc -l <puts.pic) $(grep -cE "\.o\.[0-9a-f]{32}\.char " puts.pic) $(grep -cE "\.objects\.[0-9a-f]{32}\.char " puts.pic)" \
        "2 1 1" "the second object PUTs that object and the entry's record, nothing else"
    pic_item="$NG/www$(grep -E "\.o\.[0-9a-f]{32}\.char " puts.pic | cut -d' ' -f2)"
    sent=$(awk '{n += $NF} END {print n}' puts.pic)
    entry_size=$(stat -c %s "$(remote_file $key)")
    is "$(grep -E '\.o\.' puts.pic | awk '{print $NF}')" "$(stat -c %s "$pic_item")" \
        "the object's PUT carries its own bytes only"
    [ "$sent" -lt $(( $(stat -c %s "$pic_item") + entry_size )) ]
    ok $? "what the addition sent ($sent bytes) is less than the object and the entry's archive"
    CH_CC_CACHE_DIR="$TEST_DIR/bob" "$CH_CC_BIN" -O2 -fPIC -c saxpy.c -o bob.o 2>bob.err
    ok $? "bob's build with an empty cache succeeds"
    is "$(stat_of "$TEST_DIR/bob" remote_hits) $(stat_of "$TEST_DIR/bob" hits)" "1 1" "bob's build is a hit through the server"
    is "$(stat_of "$TEST_DIR/bob" agent_requests) $(stat_of "$TEST_DIR/bob" gpu_runs) $(stat_of "$TEST_DIR/bob" kernel_compiles)" \
        "0 0 0" "bob asked no agent, ran no GPU and compiled no kernel: alice's object came with it"
    objdump -h bob.o | grep -q nv_fatbin
    ok $? "bob's saxpy.o links the kernel"
    # the other object (signed by the team, for the same entry) put under the PIC object's name
    cp "$(objects_of $key | grep -v -F -x "$pic_item")" "$pic_item"
    CH_CC_CACHE_DIR="$TEST_DIR/carol" "$CH_CC_BIN" -O2 -fPIC -c saxpy.c -o carol.o 2>carol.err
    ok $? "swapped object: carol's build succeeds"
    is "$(stat_of "$TEST_DIR/carol" remote_rejected) $(stat_of "$TEST_DIR/carol" kernel_compiles)" "1 1" \
        "swapped object: refused (remote_rejected) and compiled again"
    is "$(grep -c 'refused' carol.err)" 1 "swapped object: said once"
    # carol holds alice's first object too (fetched with the entry, same bytes as the swap): the
    # one to compare is the object the warning names, the one carol compiled for these flags
    refused_obj=$(grep -oE "objects/[0-9a-f]{32}\.o" carol.err | head -1)
    [ -n "$refused_obj" ] && [ -f "$(find "$TEST_DIR/carol" -path "*/$refused_obj")" ] &&
        ! cmp -s "$pic_item" "$(find "$TEST_DIR/carol" -path "*/$refused_obj")"
    ok $? "swapped object: what carol keeps and links is not the swapped item"
    objdump -h carol.o | grep -q nv_fatbin
    ok $? "swapped object: carol's saxpy.o links the kernel compiled locally"
    cd - >/dev/null
    unset CH_CC_BUDGET
else
    skip "team builds with objects" "nvcc or cache_seed missing"
fi

# --- read-only: lookups read through, generations never PUT ----------------------------------
CH_CC_REMOTE_ONLY_READ=1 CH_CC_CACHE_DIR="$TEST_DIR/C" "$T" put $K4 >/dev/null 2>&1
ok $? "a read-only build generates locally"
[ ! -e "$(remote_file $K4)" ]
ok $? "read-only mode wrote nothing to the server"
is "$(grep -c "PUT /cache/00/00000000000000000000000000a004" "$NG/logs/access.log")" 0 "no PUT request was sent"
CH_CC_REMOTE_ONLY_READ=1 CH_CC_CACHE_DIR="$TEST_DIR/C" "$T" get $K2 >/dev/null 2>&1
ok $? "a read-only build still reads through"

# --- 500s -----------------------------------------------------------------------------------
export CH_CC_REMOTE="http://127.0.0.1:$PORT/err/"
out=$(CH_CC_CACHE_DIR="$TEST_DIR/D" "$T" script get:$K1 put:$K1 get:$K2 get:$K1 2>"$TEST_DIR/err.D")
ok $? "a build against a server answering 500 succeeds"
is "$(warnings_in "$TEST_DIR/err.D")" 1 "500s are one warning per build"
like "$(cat "$TEST_DIR/err.D")" "HTTP status 500" "the warning says what the server answered"
[ "$(grep -c sekrit "$TEST_DIR/err.D")" = 0 ]
ok $? "the token appears in no warning"
is "$(stat_of "$TEST_DIR/D" remote_errors)" 1 "one remote error counted; the remote is left alone after it"
is "$(stat_of "$TEST_DIR/D" remote_bad_reply)" 1 "a 500 counts as a bad reply"
is "$(stat_of "$TEST_DIR/D" entries)" 1 "the locally generated entry is there"

# --- garbage and corrupted archives ---------------------------------------------------------
export CH_CC_REMOTE="http://127.0.0.1:$PORT/garbage/"
CH_CC_CACHE_DIR="$TEST_DIR/E" "$T" get $K1 >/dev/null 2>"$TEST_DIR/err.E"
is "$?" 1 "a garbage body is a miss, not a failure"
is "$(warnings_in "$TEST_DIR/err.E")" 1 "garbage is one warning"
is "$(stat_of "$TEST_DIR/E" remote_bad_reply)" 1 "garbage counts as a bad reply"
is "$(stat_of "$TEST_DIR/E" entries)" 0 "nothing from the garbage reached the local store"
export CH_CC_REMOTE="$URL"
f=$(remote_file $K2)
size=$(stat -c %s "$f")
printf 'Z' | dd of="$f" bs=1 seek=$((size - 10)) conv=notrunc 2>/dev/null
CH_CC_CACHE_DIR="$TEST_DIR/F" "$T" get $K2 >/dev/null 2>"$TEST_DIR/err.F"
is "$?" 1 "a bit-flipped archive is a miss"
like "$(cat "$TEST_DIR/err.F")" "checksum|damaged|corrupt" "the warning says the archive failed its check"
is "$(stat_of "$TEST_DIR/F" entries)" 0 "no corrupt local entry was made"
truncate -s $((size / 2)) "$(remote_file $K3)"
CH_CC_CACHE_DIR="$TEST_DIR/F2" "$T" get $K3 >/dev/null 2>"$TEST_DIR/err.F2"
is "$?" 1 "a truncated archive is a miss"
is "$(stat_of "$TEST_DIR/F2" entries)" 0 "no partial local entry from a truncated body"

# --- a slow server: the timeout bounds the wait ---------------------------------------------
SLOW=$(free_port)
python3 -c "import socket,time; s=socket.socket(); s.bind(('127.0.0.1',$SLOW)); s.listen(8); time.sleep(60)" &
SLOW_PID=$!
for _ in $(seq 200); do # until it listens: a refused connection would be another failure kind
    python3 -c "import socket; socket.create_connection(('127.0.0.1',$SLOW),0.2)" 2>/dev/null && break
    sleep 0.05
done
start=$(date +%s)
CH_CC_REMOTE="http://127.0.0.1:$SLOW/cache/" CH_CC_REMOTE_TIMEOUT=1 CH_CC_CACHE_DIR="$TEST_DIR/G" \
    "$T" script get:$K1 get:$K2 put:$K4 >/dev/null 2>"$TEST_DIR/err.G"
ok $? "a build against a server that never answers succeeds"
el=$(( $(date +%s) - start ))
[ "$el" -le 6 ]
ok $? "one timeout, not one per request (took ${el}s)"
is "$(warnings_in "$TEST_DIR/err.G")" 1 "a slow server is one warning"
is "$(stat_of "$TEST_DIR/G" remote_timeouts)" 1 "counted in remote_timeouts"
kill $SLOW_PID 2>/dev/null; wait $SLOW_PID 2>/dev/null; SLOW_PID=

# --- server stopped in the middle of a build ------------------------------------------------
K5=0000000000000000000000000000a005
CH_CC_CACHE_DIR="$TEST_DIR/H" "$T" script get:$K1 touch:"$TEST_DIR/ready" wait:"$TEST_DIR/go" \
    get:$K5 put:$K5 get:$K4 >"$TEST_DIR/out.H" 2>"$TEST_DIR/err.H" &
BUILD=$!
for _ in $(seq 300); do [ -e "$TEST_DIR/ready" ] && break; sleep 0.02; done
stop_nginx
touch "$TEST_DIR/go"
wait $BUILD
ok $? "a build whose server went away mid-build succeeds"
is "$(head -1 "$TEST_DIR/out.H")" "hit" "before the stop the remote served a hit"
is "$(warnings_in "$TEST_DIR/err.H")" 1 "the stop is one warning"
is "$(stat_of "$TEST_DIR/H" remote_unreachable)" 1 "counted in remote_unreachable"
is "$(stat_of "$TEST_DIR/H" entries)" 2 "both the read-through and the generated entry are local"
CH_CC_CACHE_DIR="$TEST_DIR/H" "$CH_CC_BIN" --harness-clean >/dev/null
ok $? "ch-cc --harness-clean exits 0"
is "$(stat_of "$TEST_DIR/H" entries)" 0 "clean removed every entry"
CH_CC_CACHE_DIR="$TEST_DIR/H" "$CH_CC_BIN" --harness-explain=$K5 >/dev/null 2>&1
is "$?" 1 "explain of a removed entry exits 1"
done_testing
