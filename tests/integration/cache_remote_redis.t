#!/bin/bash
# The redis:// remote against a real redis-server on a free loopback port (its data in the test
# directory): a team of two cache directories sharing it (the second build is a hit through the
# remote with no agent, no GPU run and no generation), a list of remotes with a bad URL in it, an
# entry over remote_max_size, a server that never answers, one that answers with more than asked
# (cut off before hiredis holds it), a server killed between builds and
# one killed in the middle of a build: each a working build, one warning and the counter of its
# kind (remote_too_large, remote_timeouts, remote_unreachable). Objects are keys of their own:
# adding one to an entry SETs that object and the entry's record only (redis MONITOR shows it);
# an object swapped in from another entry or listed by an unsigned record is refused while the
# entry is served (remote_rejected). Entries go through
# tests/fakes/cache_torture and real ch-cc builds; counters through ch-cc --harness-stats.
. "$(dirname "$0")/../lib/tap.sh"
T="${CH_CC_TEST_BUILD:-$CH_CC_SRC/build/asan}/tests/fakes/cache_torture"
[ -x "$T" ] || skip_all "cache_torture not built"
command -v redis-server >/dev/null || skip_all "redis-server not installed"
unset CH_CC_REMOTE CH_CC_REMOTE_ONLY_READ CH_CC_REMOTE_TOKEN CH_CC_MAX_SIZE CH_CC_SIGN_KEY \
    CH_CC_TRUSTED_KEYS CH_CC_REMOTE_MAX_SIZE CH_CC_OFFLINE CH_CC_ON_FAIL
"$CH_CC_BIN" --harness-keygen="$TEST_DIR/team" >/dev/null
export CH_CC_SIGN_KEY="$TEST_DIR/team/ch-cc-sign.key"
export CH_CC_TRUSTED_KEYS="$TEST_DIR/team/ch-cc-sign.pub"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
RD="$TEST_DIR/redis"
mkdir -p "$RD"
wait_port() { # wait_port PORT: 0 once something listens on it
    for _ in $(seq 200); do
        python3 -c "import socket; socket.create_connection(('127.0.0.1',$1),0.2)" 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}
REDIS_PID=
start_redis() {
    redis-server --port "$PORT" --bind 127.0.0.1 --dir "$RD" --save '' --appendonly no \
        --daemonize no --logfile "$RD/log" &
    REDIS_PID=$!
    wait_port "$PORT"
}
stop_redis() {
    [ -n "$REDIS_PID" ] || return 0
    kill -9 "$REDIS_PID" 2>/dev/null
    wait "$REDIS_PID" 2>/dev/null
    REDIS_PID=
}
SLOW_PID=
trap 'stop_redis; [ -n "$SLOW_PID" ] && kill $SLOW_PID 2>/dev/null; [ -n "${HUGE_PID:-}" ] && kill $HUGE_PID 2>/dev/null; [ -n "${MON_PID:-}" ] && kill $MON_PID 2>/dev/null; _tap_cleanup' EXIT
start_redis
ok $? "redis-server serves on 127.0.0.1:$PORT"
# what the server holds, asked over its own protocol (no redis-cli needed)
redis_has() {
    python3 - "$PORT" "ch-cc:$1" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 2)
k = sys.argv[2].encode()
s.sendall(b"*2\r\n$6\r\nEXISTS\r\n$%d\r\n%s\r\n" % (len(k), k))
print(s.recv(64).decode().strip().lstrip(":"))
PY
}

# one command over the protocol; prints an integer, a bulk string's bytes, or an array's items
# one a line
rcmd() {
    python3 - "$PORT" "$@" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 5)
args = [a.encode() for a in sys.argv[2:]]
s.sendall(b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args))
f = s.makefile("rb")
def reply():
    line = f.readline().rstrip(b"\r\n")
    t, rest = line[:1], line[1:]
    if t == b"$":
        n = int(rest)
        if n < 0:
            return [b""]
        data = f.read(n + 2)[:n]
        return [data]
    if t == b"*":
        return [x for _ in range(int(rest)) for x in reply()]
    return [rest]
sys.stdout.buffer.write(b"\n".join(reply()) + b"\n")
PY
}
# rset KEY FILE: sets KEY to FILE's bytes
rset() {
    python3 - "$PORT" "$1" "$2" <<'PY'
import socket, sys
k, v = sys.argv[2].encode(), open(sys.argv[3], "rb").read()
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 5)
s.sendall(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(k), k, len(v), v))
s.recv(16)
PY
}
# every command the server runs while it is watched, one a line (redis MONITOR), into a file
MON_PID=
monitor_start() {
    python3 - "$PORT" "$1" <<'PY' &
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 5)
s.sendall(b"*1\r\n$7\r\nMONITOR\r\n")
out = open(sys.argv[2], "wb", buffering=0)
f = s.makefile("rb")
for line in f:
    out.write(line)
PY
    MON_PID=$!
    for _ in $(seq 100); do [ -s "$1" ] && break; sleep 0.05; done # +OK once it watches
}
monitor_stop() { sleep 0.2; kill "$MON_PID" 2>/dev/null; wait "$MON_PID" 2>/dev/null; MON_PID=; }

URL="redis://127.0.0.1:$PORT/0"
K1=0000000000000000000000000000c001 K2=0000000000000000000000000000c002
K3=0000000000000000000000000000c003 K4=0000000000000000000000000000c004
stat_of() { # stat_of CACHE_DIR COUNTER
    CH_CC_CACHE_DIR="$1" "$CH_CC_BIN" --harness-stats=json 2>/dev/null |
        sed -n "s/^[[:space:]]*\"$2\":[[:space:]]*\\([0-9]*\\).*/\\1/p"
}
warnings_in() { grep -c '^warning:' "$1"; }

# --- write-back and read-through --------------------------------------------------------------
export CH_CC_REMOTE="$URL"
CH_CC_CACHE_DIR="$TEST_DIR/A" "$T" script put:$K1 put:$K2 >/dev/null 2>"$TEST_DIR/err.A"
is "$(warnings_in "$TEST_DIR/err.A")" 0 "write-back to a healthy redis warns nothing"
is "$(redis_has $K1)$(redis_has $K2)" 11 "both entries are in redis"
out=$(CH_CC_CACHE_DIR="$TEST_DIR/B" "$T" script get:$K1 get:$K2 get:$K3 2>"$TEST_DIR/err.B")
is "$(echo $out)" "hit hit miss" "an empty cache B hits both through redis, misses the third"
is "$(stat_of "$TEST_DIR/B" remote_hits) $(stat_of "$TEST_DIR/B" remote_misses)" "2 1" \
    "B counted 2 remote hits and 1 remote miss"
is "$(stat_of "$TEST_DIR/B" entries)" 2 "B keeps the two entries locally"

# --- objects are keys of their own: adding one sends only it and the entry's record ------------
K6=0000000000000000000000000000c006 K7=0000000000000000000000000000c007 K8=0000000000000000000000000000c008
CH_CC_CACHE_DIR="$TEST_DIR/A" "$T" script put:$K6 put:$K7 put:$K8 >/dev/null 2>"$TEST_DIR/err.A"
is "$(rcmd KEYS "ch-cc:$K6*" | LC_ALL=C sort | sed 's/[.]\(o\|objects\)[.][0-9a-f]\{32\}$/.\1.H/')" \
    "$(printf 'ch-cc:%s\nch-cc:%s.o.H\nch-cc:%s.objects.H' $K6 $K6 $K6)" \
    "an entry is three keys: the archive, its object, its object record"
entry_len=$(rcmd STRLEN ch-cc:$K6)
monitor_start "$TEST_DIR/monitor"
CH_CC_CACHE_DIR="$TEST_DIR/A" "$T" script add:$K6 >/dev/null 2>"$TEST_DIR/err.add"
monitor_stop
is "$(warnings_in "$TEST_DIR/err.add")" 0 "adding an object warns nothing"
sets=$(grep -o '"SET" "ch-cc:[^"]*"' "$TEST_DIR/monitor" | sed 's/"SET" "ch-cc:\([^"]*\)"/\1/' | sed 's/[.]\(o\|objects\)[.][0-9a-f]\{32\}$/.\1.H/')
is "$(echo $sets)" "$K6.o.H $K6.objects.H" "adding an object SETs the new object and the record, nothing else"
bytes=$(grep '"SET"' "$TEST_DIR/monitor" | wc -c)
[ "$bytes" -lt "$entry_len" ]
ok $? "what the addition sent ($bytes bytes of commands) is less than the entry's archive ($entry_len)"
is "$(rcmd KEYS "ch-cc:$K6.o.*" | wc -l)" 2 "redis holds both objects of the entry"
out=$(CH_CC_CACHE_DIR="$TEST_DIR/O" "$T" get $K6 objects/fedcba9876543210fedcba9876543210.o 2>"$TEST_DIR/err.O")
like "$out" "OBJ2 key=$K6" "an empty cache gets the entry with the added object"
is "$(stat_of "$TEST_DIR/O" remote_rejected) $(warnings_in "$TEST_DIR/err.O")" "0 0" "nothing refused, nothing said"

# --- a swapped or unsigned object is refused: the entry is served, the object compiled again ---
obj7=$(rcmd KEYS "ch-cc:$K7.o.*") obj8=$(rcmd KEYS "ch-cc:$K8.o.*")
rcmd GET "$obj8" | head -c -1 >"$TEST_DIR/obj8" # rcmd ends every reply with a newline
rset "$obj7" "$TEST_DIR/obj8" # K8's object (signed by the team) under K7's key
out=$(CH_CC_CACHE_DIR="$TEST_DIR/X" "$T" get $K7 objects/0123456789abcdef0123456789abcdef.o 2>"$TEST_DIR/err.X")
like "$out" "^hit" "swapped object: the entry is still a hit"
! grep -q "key=$K8" <<<"$out"
ok $? "swapped object: the other entry's object never reaches the caller"
like "$(cat "$TEST_DIR/err.X")" "objects of entry $K7 refused: .*not the one its signed record names" \
    "swapped object: the warning says why"
is "$(stat_of "$TEST_DIR/X" remote_rejected)" 1 "swapped object: counted in remote_rejected"
rec8=$(rcmd KEYS "ch-cc:$K8.objects.*")
rcmd GET "$rec8" | head -c -1 | grep -v '^sig ' >"$TEST_DIR/rec8"
rset "$rec8" "$TEST_DIR/rec8" # the record without its signature
out=$(CH_CC_CACHE_DIR="$TEST_DIR/U" "$T" get $K8 objects/0123456789abcdef0123456789abcdef.o 2>"$TEST_DIR/err.U")
like "$out" "^hit" "unsigned record: the entry is still a hit"
! grep -q "OBJ key=" <<<"$out"
ok $? "unsigned record: its object is not taken"
like "$(cat "$TEST_DIR/err.U")" "object record is not signed" "unsigned record: the warning says why"
is "$(stat_of "$TEST_DIR/U" remote_rejected)" 1 "unsigned record: counted in remote_rejected"

# --- a team: two cache directories, one redis; the second build asks no agent ----------------
if command -v nvcc >/dev/null; then
    cd "$TEST_DIR"
    printf '#pragma harness\nvoid twice(int n, float *x)\n{\n    for (int i = 0; i < n; i++)\n        x[i] = 2.0f * x[i];\n}\n' >twice.c
    CH_CC_BUDGET=1 CH_CC_CACHE_DIR="$TEST_DIR/alice" "$CH_CC_BIN" -O2 -c twice.c -o alice.o 2>alice.err
    ok $? "alice's build succeeds"
    is "$(stat_of "$TEST_DIR/alice" generations)" 1 "alice generated the entry"
    CH_CC_CACHE_DIR="$TEST_DIR/bob" "$CH_CC_BIN" -O2 -c twice.c -o bob.o 2>bob.err
    ok $? "bob's build succeeds"
    is "$(stat_of "$TEST_DIR/bob" remote_hits) $(stat_of "$TEST_DIR/bob" hits)" "1 1" \
        "bob's build is a hit through redis"
    is "$(stat_of "$TEST_DIR/bob" agent_requests) $(stat_of "$TEST_DIR/bob" gpu_runs) $(stat_of "$TEST_DIR/bob" generations)" \
        "0 0 0" "bob's build asked no agent, ran no GPU, generated nothing"
    is "$(grep -c 'remote cache' bob.err)" 0 "bob's build says nothing about the remote"
    cd - >/dev/null
else
    skip "team build" "nvcc not installed"
fi

# --- a list of remotes: a bad URL is one warning, redis still serves --------------------------
out=$(CH_CC_REMOTE="ftp://127.0.0.1/x, $URL" CH_CC_CACHE_DIR="$TEST_DIR/L" "$T" get $K1 2>"$TEST_DIR/err.L")
is "$?" 0 "with 'ftp://..., redis://...' the entry is a hit"
is "$(warnings_in "$TEST_DIR/err.L")" 1 "the bad URL is one warning"

# --- over remote_max_size: aborted before the body moves ------------------------------------
CH_CC_REMOTE_MAX_SIZE=100 CH_CC_CACHE_DIR="$TEST_DIR/M" "$T" get $K1 >/dev/null 2>"$TEST_DIR/err.M"
is "$?" 1 "an entry over remote_max_size is a miss"
like "$(cat "$TEST_DIR/err.M")" "larger than remote_max_size" "the warning names the limit"
is "$(stat_of "$TEST_DIR/M" remote_too_large) $(stat_of "$TEST_DIR/M" remote_errors)" "1 1" \
    "counted in remote_too_large (and remote_errors)"

# --- a server that never answers: one timeout ---------------------------------------------------
SLOW=$(free_port)
python3 -c "import socket,time; s=socket.socket(); s.bind(('127.0.0.1',$SLOW)); s.listen(8); time.sleep(60)" &
SLOW_PID=$!
wait_port "$SLOW"
start=$(date +%s)
CH_CC_REMOTE="redis://127.0.0.1:$SLOW" CH_CC_REMOTE_TIMEOUT=1 CH_CC_CACHE_DIR="$TEST_DIR/S" \
    "$T" script get:$K1 get:$K2 put:$K4 >/dev/null 2>"$TEST_DIR/err.S"
ok $? "a build against a redis that never answers succeeds"
[ $(( $(date +%s) - start )) -le 6 ]
ok $? "one timeout, not one per request"
is "$(warnings_in "$TEST_DIR/err.S")" 1 "a silent server is one warning"
is "$(stat_of "$TEST_DIR/S" remote_timeouts)" 1 "counted in remote_timeouts"
is "$(stat_of "$TEST_DIR/S" entries)" 1 "the generated entry is local"
kill $SLOW_PID 2>/dev/null; wait $SLOW_PID 2>/dev/null; SLOW_PID=

# --- a server that answers with more than asked: cut off before it is in memory ---------------
# a hostile remote: STRLEN says 1000 bytes, then every GETRANGE (1 MiB asked) is answered with a
# bulk of 400 MB; hiredis buffers a reply whole, so without the bound the get would hold it all
HUGE=$(free_port)
python3 - "$HUGE" <<'PY' &
import socket, sys
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", int(sys.argv[1])))
srv.listen(8)
zeros = b"\0" * (1 << 20)
while True:
    conn, _ = srv.accept()
    data = b""
    try:
        while True:
            got = conn.recv(65536)
            if not got:
                break
            data += got
            for word, answer in ((b"STRLEN", b":1000\r\n"), (b"EXISTS", b":1\r\n"),
                                 (b"GETRANGE", None)):
                while word in data:
                    data = data.split(word, 1)[1]
                    if answer:
                        conn.sendall(answer)
                        continue
                    conn.sendall(b"$400000000\r\n")
                    for _ in range(400000000 >> 20):
                        conn.sendall(zeros)
    except OSError:
        pass
    conn.close()
PY
HUGE_PID=$!
wait_port "$HUGE"
CH_CC_REMOTE="redis://127.0.0.1:$HUGE" CH_CC_CACHE_DIR="$TEST_DIR/HUGE" \
    /usr/bin/time -f '%M' -o "$TEST_DIR/rss.HUGE" "$T" get $K1 >/dev/null 2>"$TEST_DIR/err.HUGE"
is "$?" 1 "an entry whose GETRANGE is answered with 400 MB is a miss"
like "$(cat "$TEST_DIR/err.HUGE")" "a reply larger than [0-9]+ bytes \(more than was asked\): not read" \
    "the warning says the reply was larger than asked"
is "$(stat_of "$TEST_DIR/HUGE" remote_too_large)" 1 "counted in remote_too_large"
rss=$(tail -1 "$TEST_DIR/rss.HUGE")
[ "$rss" -lt 200000 ]
ok $? "the reply is never held: peak memory ${rss} KiB, under 200 MB"
kill $HUGE_PID 2>/dev/null; wait $HUGE_PID 2>/dev/null; HUGE_PID=

# --- redis killed in the middle of a build ----------------------------------------------------
K5=0000000000000000000000000000c005
CH_CC_CACHE_DIR="$TEST_DIR/H" "$T" script get:$K1 touch:"$TEST_DIR/ready" wait:"$TEST_DIR/go" \
    get:$K5 put:$K5 get:$K4 >"$TEST_DIR/out.H" 2>"$TEST_DIR/err.H" &
BUILD=$!
for _ in $(seq 300); do [ -e "$TEST_DIR/ready" ] && break; sleep 0.02; done
stop_redis
touch "$TEST_DIR/go"
wait $BUILD
ok $? "a build whose redis died mid-build succeeds"
is "$(head -1 "$TEST_DIR/out.H")" "hit" "before the kill redis served a hit"
is "$(warnings_in "$TEST_DIR/err.H")" 1 "the kill is one warning"
is "$(stat_of "$TEST_DIR/H" remote_unreachable)" 1 "counted in remote_unreachable"
is "$(stat_of "$TEST_DIR/H" entries)" 2 "the read-through and the generated entry are local"

# --- redis dead between builds: the next build works and counts it -----------------------------
CH_CC_CACHE_DIR="$TEST_DIR/D" "$T" script get:$K1 put:$K1 get:$K1 >"$TEST_DIR/out.D" 2>"$TEST_DIR/err.D"
ok $? "a build with redis down succeeds"
is "$(echo $(cat "$TEST_DIR/out.D"))" "miss generated hit" "it generates locally and hits its own entry"
is "$(warnings_in "$TEST_DIR/err.D")" 1 "one warning"
is "$(stat_of "$TEST_DIR/D" remote_unreachable) $(stat_of "$TEST_DIR/D" remote_errors)" "1 1" \
    "counted once in remote_unreachable (the remote is left alone after it)"
done_testing
