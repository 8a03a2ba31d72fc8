#!/bin/bash
# The trusted runtime (libch_runtime.a) on a GPU: exact round trips from 1 B to 1 GiB at odd
# sizes and misaligned pointers, pinned and registered memory, threads calling two entries at
# once, a failure injected at each step leaving the caller's data intact for the host path, a
# sticky error turning the GPU path off with one line, fork children; then the bandwidth next
# to cudaMemcpy; map calls (saxpy) exact, timed and failing mid-map with the inputs intact;
# then a program built with make CC=ch-cc whose dispatcher goes through the runtime, and falls
# back to the host path when a step fails.
. "$(dirname "$0")/../lib/tap.sh"
require_gpu
b="${CH_CC_TEST_BUILD:-$CH_CC_SRC/build/asan}"
lib="$b/lib/libch_runtime.a"
prog="$TEST_DIR/runtime_gpu"
nvcc -O2 -arch="${CH_CC_ARCH:-sm_90}" -I"$CH_CC_SRC/include" -I"$CH_CC_SRC/src/runtime" \
    "$CH_CC_SRC/tests/gpu/runtime_gpu.cu" "$lib" -lpthread -o "$prog" 2> "$TEST_DIR/nvcc.err"
built=$?
ok $built "the test program links against $lib"
[ $built -eq 0 ] || { diag "$(cat "$TEST_DIR/nvcc.err")"; done_testing; }

# run NAME ARGS...: one scenario in its own process; its stderr shown when it fails
run() {
    local name=$1
    shift
    "$prog" "$@" > "$TEST_DIR/$name.out" 2> "$TEST_DIR/$name.err"
    local rc=$?
    [ $rc -eq 0 ] || diag "$(tail -n 20 "$TEST_DIR/$name.err")"
    return $rc
}

run roundtrip roundtrip "${CH_CC_RT_MAX_MIB:-1024}"
ok $? "round trips are exact from 1 B to 1 GiB, around every chunk boundary, misaligned"
diag "$(cat "$TEST_DIR/roundtrip.out")"
run pinned pinned
ok $? "pinned and registered user memory is copied directly and exactly"
run threads threads
ok $? "four threads calling two entries at once get their own results"
diag "$(cat "$TEST_DIR/threads.out")"
for op in h2d d2h launch sync; do
    CH_CC_RT_FAULT=$op run "fault-$op" fault fail
    ok $? "a failure at $op: the call reports it, the inputs are intact, the host path is right, the next call runs"
    grep -q "the GPU path is off" "$TEST_DIR/fault-$op.err"
    is $? 1 "a failure at $op is not sticky"
done
CH_CC_RT_FAULT=pinned run fault-pinned fault ok
ok $? "no pinned memory: plain copies, still right"
CH_CC_RT_FAULT=alloc run fault-alloc fault ok
ok $? "a failed device allocation is retried after freeing idle buffers"
run launcherr launcherr
ok $? "a launcher's error leaves the data intact, and the next call runs"
run pending pending
ok $? "an error of the program's pending before a call: the host path, no launch, the error left for the program"
run sticky sticky
ok $? "an illegal address: the data intact, the host path right, later calls on the host path"
is "$(grep -c "the GPU path is off for the rest of this process" "$TEST_DIR/sticky.err")" 1 \
    "one line says the GPU path is off"
run fork fork
ok $? "a child forked after the device was used takes the host path; the parent goes on"
run forkfirst forkfirst
ok $? "a child forked before any CUDA use uses the device itself"

run bandwidth bandwidth
ok $? "bandwidth measured"
diag "$(cat "$TEST_DIR/bandwidth.out")"

# map calls (issue 14): saxpy through ch_rt_call_map_v1, its copies in, kernels and copies out
# overlapping chunk by chunk, next to ch_rt_call_v1 and the host loop in the same run
CH_CC_TRACE=1 run map map
ok $? "map calls (saxpy 2^24 and 2^26, x in, y inout) are exact and cut into chunks"
diag "$(cat "$TEST_DIR/map.out")"
like "$(grep 'saxpy_map: runtime:' "$TEST_DIR/map.err" | tail -n 1)" \
    "runtime: in .*, out .* overlapped with the kernels in [0-9]+ chunks of [0-9]+ elements" \
    "the trace says the map call's copies and kernels overlapped"
diag "$(grep 'runtime:' "$TEST_DIR/map.err" | tail -n 2)"
# 16 chunks of 2^20 elements; by chunk 8 chunks 0-3 of y were written back and are restored
for f in h2d:17 launch:9 d2h:9 sync:12; do
    CH_CC_RT_FAULT=$f run "mapfault-${f%%:*}" mapfault
    ok $? "a failure at $f mid-map: the call reports it, x and y are intact, the host path is right, the next call runs"
done

if [ "${CH_CC_RT_SWEEP:-0}" = 1 ]; then
    run sweep sweep
    ok $? "tuning sweep"
    diag "$(cat "$TEST_DIR/sweep.out")"
    run mapsweep map sweep
    ok $? "map tuning sweep"
    diag "$(cat "$TEST_DIR/mapsweep.out")"
fi

# ---- a program built with ch-cc: the dispatcher goes through the runtime -------------------
cp -r "$CH_CC_SRC/examples/saxpy" "$TEST_DIR/saxpy"
cd "$TEST_DIR/saxpy"
make -s CC="$CH_CC_BIN" > build.out 2> build.err
built=$?
ok $built "examples/saxpy builds with make CC=ch-cc"
[ $built -eq 0 ] || diag "$(tail -n 20 build.err)"
nm saxpy 2> /dev/null | grep -q " T ch_rt_call_v1$"
ok $? "the program links the runtime"
CH_CC_FORCE_GPU=1 CH_CC_TRACE=1 ./saxpy > run.out 2> trace.err
ok $? "on the GPU path through the runtime the results are right"
like "$(cat trace.err)" "ch-cc: saxpy: runtime: in .* out .*" "the runtime moved the data"
like "$(cat trace.err)" "ch-cc: saxpy: gpu" "the dispatcher took the GPU path"
diag "$(cat run.out)" "$(grep runtime: trace.err | tail -n 1)"
for op in h2d launch d2h; do
    CH_CC_RT_FAULT=$op CH_CC_FORCE_GPU=1 CH_CC_TRACE=1 ./saxpy > "fault-$op.out" 2> "fault-$op.err"
    ok $? "a failure at $op: the program's results are still right"
    like "$(cat "fault-$op.err")" "ch-cc: saxpy: gpu failed \(an injected failure \(CH_CC_RT_FAULT\)\), host path" \
        "a failure at $op: the dispatcher took the host path"
done
done_testing
