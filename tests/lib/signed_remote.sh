# Helpers of the scenarios where a remote store holds a signed entry for examples/saxpy (sourced
# after tap.sh by tests/integration/cache_*.t): the store, the entry's key and checklist, a
# kernel with a payload, the counters of a cache directory.

# stat_in CACHE_DIR COUNTER: the counter of --harness-stats for that cache directory.
stat_in() {
    CH_CC_CACHE_DIR="$1" "$CH_CC_BIN" --harness-stats=json |
        python3 -c "import json,sys; print(json.load(sys.stdin)['$2'])"
}

# remote_store_start: tests/lib/remote_store.py over $TEST_DIR/www on a loopback port, stopped
# at exit; CH_CC_REMOTE names it.
remote_store_start() {
    mkdir -p "$TEST_DIR/www"
    python3 "$CH_CC_SRC/tests/lib/remote_store.py" "$TEST_DIR/www" >"$TEST_DIR/port" &
    STORE_PID=$!
    trap 'kill $STORE_PID 2>/dev/null; _tap_cleanup' EXIT
    for _ in $(seq 100); do [ -s "$TEST_DIR/port" ] && break; sleep 0.05; done
    export CH_CC_REMOTE="http://127.0.0.1:$(cat "$TEST_DIR/port")/"
}

# saxpy_app: examples/saxpy copied to $TEST_DIR/app (the current directory after), a real
# candidate of saxpy in cands/saxpy.0.cu, its entry key in $key, its checklist in
# checklist.json, and $remote_file: where the store keeps the entry. Status 0 when all exist.
saxpy_app() {
    cp -r "$CH_CC_SRC/examples/saxpy" "$TEST_DIR/app"
    cd "$TEST_DIR/app" || return 1
    CH_CC_CACHE_DIR="$TEST_DIR/prep" "$CH_CC_BIN" --harness-propose=cands --harness-budget=1 \
        saxpy.c >/dev/null
    key=$(CH_CC_CACHE_DIR="$TEST_DIR/prep" "$CH_CC_BIN" --harness-list saxpy.c |
        python3 -c "import json,sys; print(json.load(sys.stdin)[0]['key'])")
    CH_CC_CACHE_DIR="$TEST_DIR/prep" "$CH_CC_BIN" --harness-checklist saxpy.c |
        python3 -c "import json,sys; print(json.dumps(json.load(sys.stdin)[0]))" >checklist.json
    remote_file="$TEST_DIR/www/${key:0:2}/${key:2}.char"
    [ -s cands/saxpy.0.cu ] && [ ${#key} = 32 ]
}

# payload_kernel OUT MARKER: the real candidate plus a constructor that creates MARKER when the
# linked program starts.
payload_kernel() {
    {
        cat cands/saxpy.0.cu
        printf '#include <stdio.h>\n__attribute__((constructor)) static void ch_payload(void)\n'
        printf '{\n    FILE *f = fopen("%s", "w");\n    if (f)\n        fclose(f);\n}\n' "$2"
    } >"$1"
}
