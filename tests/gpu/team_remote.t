#!/bin/bash
# A team sharing one remote with a verified entry (issue 17's done-when): cache directories A and
# B, one signed remote (a file:// share, and redis:// on a real redis-server started here). Build
# 1 on A verifies examples/saxpy on the GPU and writes the remote; build 2 on B, with no model
# configured and the GPU hidden (CUDA_VISIBLE_DEVICES=), is a remote hit: the verified kernel is
# linked (its object carries the device code and calls the trusted runtime; --harness-explain on
# B says verified), no agent request, no GPU run, no generation, no nvcc run.
#
# Without a GPU the test skips. CH_CC_TEAM_PENDING=1 runs it anyway on a machine without one to
# check its logic: A then stores a pending entry, and B, a hit as well, links the host path; the
# assertions on the verified kernel are replaced by the pending ones (never a GPU pass).
. "$(dirname "$0")/../lib/tap.sh"
mode=verified
if ! have_gpu; then
    if [ "${CH_CC_TEAM_PENDING:-0}" = 1 ] && [ "${CH_CC_REQUIRE_GPU:-0}" != 1 ]; then
        mode=pending
    else
        require_gpu
    fi
fi
command -v nvcc >/dev/null || skip_all "nvcc not installed"
diag "mode: $mode"
unset CH_CC_REMOTE CH_CC_REMOTE_ONLY_READ CH_CC_REMOTE_TOKEN CH_CC_MAX_SIZE CH_CC_SIGN_KEY \
    CH_CC_TRUSTED_KEYS CH_CC_REMOTE_MAX_SIZE CH_CC_OFFLINE CH_CC_ON_FAIL CH_CC_PROVIDER \
    CH_CC_MODEL CH_CC_API_KEY CH_CC_API_BASE
export CH_CC_BUDGET=${CH_CC_TEST_BUDGET:-2}
# the team's signing key: A signs what it writes, both trust it (unsigned entries are refused)
"$CH_CC_BIN" --harness-keygen="$TEST_DIR/team" >/dev/null
export CH_CC_SIGN_KEY="$TEST_DIR/team/ch-cc-sign.key"
export CH_CC_TRUSTED_KEYS="$TEST_DIR/team/ch-cc-sign.pub"
stats_of() { # stats_of CACHE NAME...: the counters' values, space separated
    CH_CC_CACHE_DIR="$1" "$CH_CC_BIN" --harness-stats=json | python3 -c \
        "import json,sys; d=json.load(sys.stdin); print(' '.join(str(d[n]) for n in sys.argv[1:]))" \
        "${@:2}"
}

REDIS_PID=
trap '[ -n "$REDIS_PID" ] && kill -9 "$REDIS_PID" 2>/dev/null && wait "$REDIS_PID" 2>/dev/null; _tap_cleanup' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
start_redis() { # start_redis: a redis-server on a free loopback port; its URL in $REDIS_URL
    local port
    port=$(free_port)
    mkdir -p "$TEST_DIR/redis"
    redis-server --port "$port" --bind 127.0.0.1 --dir "$TEST_DIR/redis" --save '' \
        --appendonly no --daemonize no --logfile "$TEST_DIR/redis/log" &
    REDIS_PID=$!
    REDIS_URL="redis://127.0.0.1:$port/0"
    for _ in $(seq 200); do
        python3 -c "import socket; socket.create_connection(('127.0.0.1',$port),0.2)" 2>/dev/null &&
            return 0
        sleep 0.05
    done
    return 1
}

# team NAME URL: build 1 on A (GPU visible), build 2 on B (no GPU, no model), both through URL
team() {
    local name=$1 url=$2 dir="$TEST_DIR/team-$1"
    cp -r "$CH_CC_SRC/examples/saxpy" "$dir"
    cd "$dir" || return
    local A="$dir/cache-A" B="$dir/cache-B"
    CH_CC_REMOTE="$url" CH_CC_CACHE_DIR="$A" "$CH_CC_BIN" -O2 -c saxpy.c -o a.o 2> a.err
    ok $? "$name: build 1 on A succeeds"
    if [ $mode = verified ]; then
        like "$(cat a.err)" "saxpy: verified kernel linked" "$name: build 1 verifies saxpy on the GPU"
        got=$(stats_of "$A" gpu_runs)
        [ "${got:-0}" -ge 1 ]; ok $? "$name: A's gpu_runs moved ($got)"
    else
        like "$(cat a.err)" "saxpy: host path linked: nothing can be verified here" \
            "$name: build 1 stores a pending entry (no GPU: logic check only)"
    fi
    is "$(stats_of "$A" generations remote_errors)" "1 0" "$name: A generated the entry and wrote the remote without error"

    CUDA_VISIBLE_DEVICES= CH_CC_REMOTE="$url" CH_CC_CACHE_DIR="$B" \
        "$CH_CC_BIN" -O2 -c saxpy.c -o b.o 2> b.err
    ok $? "$name: build 2 on B (no model, GPU hidden) succeeds"
    is "$(stats_of "$B" hits remote_hits misses remote_rejected)" "1 1 0 0" \
        "$name: B's build is a hit through the remote (hits +1, remote_hits +1, misses 0, remote_rejected 0)"
    is "$(stats_of "$B" agent_requests gpu_runs generations pending_verified)" "0 0 0 0" \
        "$name: B asked no agent, ran no GPU stage, generated nothing, verified nothing"
    is "$(grep -c 'remote cache' b.err)" 0 "$name: B says nothing about the remote"
    local status
    status=$(CH_CC_CACHE_DIR="$B" "$CH_CC_BIN" --harness-explain saxpy saxpy.c | awk '$1 == "status" {print $2}')
    if [ $mode = verified ]; then
        is "$(stats_of "$B" host_fallbacks kernel_compiles)" "0 0" \
            "$name: B linked a kernel (host_fallbacks 0) from the remote's object (kernel_compiles 0)"
        objdump -h b.o | grep -q '\.nvFatBinSegment'
        ok $? "$name: B's object carries the kernel's device code"
        # a weak reference: the dispatcher takes the host path when the runtime is not linked
        nm b.o | grep -Eq ' [wU] ch_rt_call_v1$'
        ok $? "$name: B's object calls the trusted runtime (the verified kernel's dispatcher)"
        is "$status" verified "$name: --harness-explain on B: the entry is verified"
    else
        is "$(stats_of "$B" host_fallbacks fallback_pending)" "1 1" \
            "$name: B links the host path of the pending entry (fallback_pending +1)"
        is "$status" pending "$name: --harness-explain on B: the entry is pending"
    fi
    cd "$TEST_DIR" || return
}

mkdir -p "$TEST_DIR/share" # a team's share exists before anyone builds (an NFS mount)
team file "file://$TEST_DIR/share"
if command -v redis-server >/dev/null; then
    start_redis
    ok $? "redis-server serves"
    team redis "$REDIS_URL"
else
    skip "redis team" "redis-server not installed"
fi
done_testing
