#!/bin/bash
# The redis:// remote against a real redis-server on a free loopback port (its data in the test
# directory): a team of two cache directories sharing it (the second build is a hit through the
# remote with no agent, no GPU run and no generation), a list of remotes with a bad URL in it, an
# entry over remote_max_size, a server that never answers, a server killed between builds and
# one killed in the middle of a build: each a working build, one warning and the counter of its
# kind (remote_too_large, remote_timeouts, remote_unreachable). Entries go through
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
trap 'stop_redis; [ -n "$SLOW_PID" ] && kill $SLOW_PID 2>/dev/null; _tap_cleanup' EXIT
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
