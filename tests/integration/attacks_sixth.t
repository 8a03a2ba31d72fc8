#!/bin/bash
# The sixth red team's catalog (tests/data/attacks6/, RESULTS.md there says what each does):
# candidates that are right while verified and wrong later or elsewhere (kept state, clocks,
# launch counters, device and driver queries, data and scalar triggers, leaks), model-written
# references and checklists that reach the user's binary, a repository config that loosens the
# user's settings, and local faults. What the product refuses or contains is asserted with its
# reason, so a regression fails; what gets through is a TODO test that passes once the product
# refuses it. No GPU needed: a candidate that passes stages 0 and 1 is "pending" (exit 3),
# which means it would run on a GPU and, if its outputs compare equal, be linked.
. "$(dirname "$0")/../lib/tap.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
A="$CH_CC_SRC/tests/data/attacks6"
REL="${CH_CC_REL_BIN:-$CH_CC_BIN}" # --harness-verify is much faster in the release build
unset CH_CC_REMOTE CH_CC_OFFLINE CH_CC_ON_FAIL CH_CC_PROVIDER CH_CC_MODEL CH_CC_API_KEY \
    CH_CC_API_BASE CH_CC_QUIET CH_CC_BUDGET
cd "$TEST_DIR" || exit 1
cp "$CH_CC_SRC/examples/saxpy/saxpy.c" "$CH_CC_SRC/examples/saxpy/saxpy.h" .

todo() { # todo STATUS NAME: a TAP TODO test (an attack that gets through today)
    _tap_n=$((_tap_n + 1))
    if [ "$1" -eq 0 ]; then
        echo "ok $_tap_n - $2 # TODO attacks6"
    else
        echo "not ok $_tap_n - $2 # TODO attacks6"
    fi
}

# ---- candidates: --harness-verify of each against examples/saxpy, two at a time --------------
verify_one() { # verify_one FILE: v.FILE/{out,err,rc}
    local d="$TEST_DIR/v.$1"
    mkdir -p "$d" && cp "$TEST_DIR/saxpy.c" "$TEST_DIR/saxpy.h" "$d/"
    (cd "$d" && CH_CC_CACHE_DIR="$d/cache" "$REL" --harness-verify="$A/$1" saxpy.c > out 2> err
        echo $? > rc)
}
export -f verify_one
export A REL TEST_DIR
refused_cands="01_constant_symbol_counter.cu 02_kept_device_buffer_counter.cu
03_leak_memgetinfo_counter.cu 14_host_heap_counter.cu 09_driver_version_trigger.cu
11_device_count_abort.cu"
# refused once compiled: the device-code check on the PTX (src/verify/ptx_check.c), the object
# check on the host side
compiled_cands="04_device_chrono_now.cu 05_ptx_split_globaltimer.cu
06_ptx_gridid_launch_counter.cu 07_constant_counter_d2d.cu 08_ptx_get_sreg_globaltimer.cu
10_sm_count_trigger.cu 12_trap_poisons_context.cu 23_variable_template_counter.cu"
through_cands="13_uniform_input_trigger.cu 21_round_scalar_trigger.cu 22_size_threshold_named.cu
28_device_memory_leak.cu"
printf '%s\n' $refused_cands $compiled_cands $through_cands |
    xargs -P2 -I{} bash -c 'verify_one {}'

refused() { # refused FILE REASON [STAGE]: STAGE (stage 0) refuses FILE, the message says why
    local d="v.$1" st="${3:-stage 0 static}"
    is "$(cat "$d/rc")" 1 "$1: refused (exit 1)"
    like "$(cat "$d/out")" "$st +FAIL" "$1: at ${st% *}"
    like "$(grep '^message:' "$d/out")" "$2" "$1: the message says why"
}
refused 01_constant_symbol_counter.cu "takes the address of its own storage \('c'\)"
refused 02_kept_device_buffer_counter.cu "the pointer 'tally', which is not device memory"
refused 03_leak_memgetinfo_counter.cu "kept state: 'cudaMemGetInfo'"
refused 14_host_heap_counter.cu "host code writes through a pointer"
refused 09_driver_version_trigger.cu "with a value that depends on .*kept state: 'cudaDriverGetVersion'"
refused 11_device_count_abort.cu "calls 'abort'.*(kept state: 'cudaGetDeviceCount'|allow-list)|kept state: 'cudaGetDeviceCount'"

# refused once compiled, at stage 1
refused_compiled() { refused "$1" "$2" "stage 1 compile"; }
refused_compiled 04_device_chrono_now.cu "line 9: .*'saxpy_k' reads %globaltimer, .*the time"
refused_compiled 05_ptx_split_globaltimer.cu "reads %globaltimer, "
refused_compiled 06_ptx_gridid_launch_counter.cu "reads %gridid, .*a launch counter"
refused_compiled 07_constant_counter_d2d.cu "host code calls 'cudaMemcpyToSymbol', which writes"
refused_compiled 08_ptx_get_sreg_globaltimer.cu "reads %globaltimer, "
refused_compiled 10_sm_count_trigger.cu "reads %nsmid, .*how many SMs"
refused_compiled 12_trap_poisons_context.cu "reads %gridid, "
refused_compiled 23_variable_template_counter.cu \
    "writes, or hands on the address of, the __device__ variable '_Z5tallyIiE'"

# what only a GPU can tell: the structured correctness sets (an array of one value, a round
# scalar), a size at the named constant the candidate compares n with, and the timing loop's
# leak check. Without a GPU they stop "pending" after stages 0-1 (exit 3).
gpu_refused() { # gpu_refused FILE STAGE REASON
    if have_gpu; then
        refused "$1" "$3" "$2"
    else
        is "$(cat "v.$1/rc")" 3 "$1: pending without a GPU (stages 0-1 pass)"
        skip "$1: refused at ${2% *}" "needs a GPU"
    fi
}
gpu_refused 13_uniform_input_trigger.cu "stage 3 correctness" \
    "wrong on structured inputs \(every input buffer filled with one value"
gpu_refused 21_round_scalar_trigger.cu "stage 3 correctness" \
    "wrong on structured inputs \(every input buffer filled with one value.*floating scalars round"
gpu_refused 22_size_threshold_named.cu "stage 3 correctness" "at n=100000001"
gpu_refused 28_device_memory_leak.cu "stage 5 performance" "the calls leak device memory: [0-9.]+ MiB"

# ---- model-written references and checklists (the fake model server) --------------------------
cp -r "$CH_CC_SRC/tests/integration/data/specdecl" spec
start_model() { # start_model CHECKLIST_JSON_OR_- REF.c: the fake model's script, server started
    python3 - "$CH_CC_SRC/tests/integration/data/specdecl/script.py" "$1" "$2" \
        "$A/00_axpy_kernel.cu" script.json <<'PY'
import json, sys
ns = {}
exec(open(sys.argv[1]).read().split("reference = (")[0].replace("import sys", ""), ns)
ck = json.dumps(ns["checklist"]) if sys.argv[2] == "-" else open(sys.argv[2]).read()
kernel = "Design: hand\n```cuda\n%s```\n" % open(sys.argv[4]).read()
steps = [{"reply": "```json\n%s\n```" % ck}, {"reply": "```c\n%s```\n" % open(sys.argv[3]).read()},
         {"reply": kernel}]
json.dump({"steps": steps, "default": {"reply": kernel}}, open(sys.argv[5], "w"))
PY
    rm -f port requests.jsonl
    python3 "$CH_CC_SRC/tests/fakes/fake_llm.py" --script script.json --record requests.jsonl \
        --port 0 --port-file port > /dev/null 2>&1 &
    llm_pid=$!
    for _ in $(seq 300); do [ -s port ] && break; sleep 0.1; done
}
llm_pid=
trap '[ -n "$llm_pid" ] && kill $llm_pid 2>/dev/null; _tap_cleanup' EXIT
spec_build() { # spec_build NAME CHECKLIST_OR_- REF.c: axpy.c built with the fake model in s.NAME
    mkdir -p "s.$1" && cp spec/axpy.c "$A/00_probe_main.c" "s.$1/"
    (cd "s.$1" && start_model "$2" "$3" &&
        CH_CC_CACHE_DIR="$PWD/cache" CH_CC_PROVIDER=openai CH_CC_MODEL=fake CH_CC_API_KEY=k \
            CH_CC_BUDGET=1 CH_CC_API_BASE="http://127.0.0.1:$(cat port)/v1" \
            "$REL" -O2 -c axpy.c -o axpy.o 2> build.err
        echo $? > rc
        kill "$llm_pid" 2>/dev/null
        wait "$llm_pid" 2>/dev/null
        if [ -f axpy.o ]; then
            "$REL" 00_probe_main.c axpy.o -o probe 2> link.err && ./probe > probe.out
        fi
        touch probe.out)
}
reference_refused() { # reference_refused NAME: the reference was sent back with a refusal
    grep -q 'the reference is refused' "s.$1/requests.jsonl"
}
# two at a time (each build is mostly waits on nvcc and the fake server)
spec_build 15 - "$A/15_ref_uniform_trigger.c" &
spec_build 16 - "$A/16_ref_heap_counter.c"
wait
spec_build 17 - "$A/17_ref_writes_input.c" &
spec_build 30 - "$A/30_ref_const_cast.c"
wait
spec_build 18 "$A/18_checklist_huge_tolerance.json" "$A/00_axpy_reference.c" &
spec_build 19 "$A/19_checklist_zero_range.json" "$A/00_axpy_reference.c"
wait

# compared with ch-cc's own reading of the spec on random and structured inputs
like "$(cat s.15/build.err)" \
    "reference for axpy is refused: it disagrees with ch-cc's own reading of the spec \(formula: .*\) on inputs where every buffer holds one value at n=[0-9]+: y\[[0-9]+\] is" \
    "15: a reference wrong only on a uniform input is refused, and why"
[ ! -f s.15/axpy.o ] || grep -q 'uniform: y0=4 ' s.15/probe.out
ok $? "15: it is not linked as the host path (or is right)"
# built again under MemorySanitizer, the reference's read of a word nothing wrote is found
# (where clang cannot build with it, ch-cc says the check did not run)
if grep -q "not checked for reads of unwritten memory" s.16/build.err; then
    skip "16: a reference counting calls in the allocator is refused" "no MemorySanitizer here"
else
    like "$(cat s.16/build.err)" "reference for axpy is refused: it reads memory that nothing wrote" \
        "16: a reference counting calls in the allocator is refused"
    like "$(cat s.16/build.err)" \
        "MemorySanitizer: a value never written decides what it computes in axpy_reference at ref_impl.c:[0-9]+" \
        "16: the refusal says what it read and where"
    [ ! -f s.16/axpy.o ] || grep -q 'late: y3=3.5 ' s.16/probe.out
    ok $? "16: it is not linked as the host path (or stays right)"
fi
like "$(cat s.17/build.err)" "writes its input buffer 'x'" \
    "17: a reference writing its input through y[(x - y) + i] is refused, and why"
[ ! -f s.17/axpy.o ] || grep -q 'input: x3=3.5 ' s.17/probe.out
ok $? "17: it is not linked as the host path (or x survives)"
reference_refused 30
ok $? "30: a reference that casts const away is refused"
like "$(grep -o 'the reference casts away const[^"]*' s.30/requests.jsonl | head -1)" \
    "casts away const" "30: the feedback says why"
[ ! -f s.30/axpy.o ]
ok $? "30: nothing of it is linked"
grep -q 'a tolerance of 1e+300 is above 0.01' s.18/requests.jsonl
ok $? "18: a checklist with rtol = atol = 1e300 is refused, and why"
like "$(grep -o 'the checklist is invalid[^"]*' s.19/requests.jsonl | head -1)" \
    "params\[2\].range: \[0, 0\] holds one value" \
    "19: a checklist whose inputs are all zero (range [0, 0]) is refused, and why"

# ---- a repository's .ch-cc.conf loosens the user's on_fail = error ---------------------------
mkdir -p home/.config/ch-cc repo
printf 'on_fail = error\nprovider = none\n' > home/.config/ch-cc/config
cp saxpy.c saxpy.h repo/
(cd repo && HOME="$TEST_DIR/home" XDG_CONFIG_HOME= "$REL" -c saxpy.c -o a.o 2> ../c1.err)
is "$?" 1 "20 (control): the user's on_fail = error fails a build with no kernel"
cp "$A/20_project_conf_loosens.conf" repo/.ch-cc.conf
(cd repo && HOME="$TEST_DIR/home" XDG_CONFIG_HOME= "$REL" -c saxpy.c -o b.o 2> ../c2.err)
s=$?
is "$s" 1 "20: a project .ch-cc.conf may not turn on_fail = error into a fallback"
like "$(cat c2.err)" "repo/.ch-cc.conf: ignoring setting 'on_fail'.*" \
    "20: it says so, naming the file"
like "$(cat c2.err)" "repo/.ch-cc.conf: ignoring setting 'quiet'" "20: nor may it set quiet"

# ---- user files and local faults -----------------------------------------------------------
fault() { # fault NAME SCRIPT: runs SCRIPT in a fresh copy of saxpy (f.NAME/), output in .out
    mkdir -p "f.$1" && cp saxpy.c saxpy.h "f.$1/"
    (cd "f.$1" && CH_CC_CACHE_DIR="$PWD/cache" bash "$A/$2" "$REL" > ../"f.$1.out" 2>&1)
}
fault 24 24_tmpdir_missing.sh
is "$(grep '^gcc=' f.24.out)" "gcc=0" "24 (control): gcc compiles with TMPDIR missing"
is "$(grep -E '^(missing|file)=' f.24.out | tr '\n' ' ')" "missing=0 file=0 " \
    "24: a TMPDIR that is missing or a file does not fail the build (gcc's fallback)"

mkdir -p f.25 && cp saxpy.c saxpy.h f.25/
(cd f.25 && CH_CC_CACHE_DIR="$PWD/cache" CH_CC_PROVIDER=builtin CH_CC_BUDGET=1 \
    "$REL" -c saxpy.c -o seed.o 2> seed.err &&
    CH_CC_CACHE_DIR="$PWD/cache" bash "$A/25_fifo_in_cache.sh" "$REL" > ../f.25.out 2>&1)
is "$(grep -E '^(index|stats)=' f.25.out | tr '\n' ' ')" "index=0 stats=0 " \
    "25: a FIFO at an entry's index or at the cache's stats file does not hang the build"
like "$(cat f.25/f.index.err)" "damaged" "25: the entry with a FIFO for its index is damage, rebuilt"
is "$(grep -c 'statistics file .* was damaged' f.25/f.stats.err)" 1 \
    "25: a FIFO for the stats file: one warning, the counters rebuilt"

fault 26 26_output_alias.sh
is "$(grep -E '^(symlink|hardlink|intact)=' f.26.out | tr '\n' ' ')" \
    "symlink=1 hardlink=1 intact=0 " "26: -o through a symlink or hard link to the input is refused"
like "$(cat f.26/s.err f.26/h.err)" "is the same as output file" "26: and says why"

fault 27 27_cache_full.sh
if grep -q '^skip' f.27.out; then
    skip "27: a full cache file system falls back" "cannot mount a tmpfs here"
else
    is "$(grep '^full=' f.27.out)" "full=0" "27: a full cache file system: the build exits 0"
    # with a GPU the kernel verifies in the temporary directory and is linked, not stored
    like "$(cat f.27/full.err)" "host path linked|verified kernel linked" \
        "27: with the host path or the verified kernel linked"
fi

fault 29 29_cache_dir_file.sh
is "$(grep -E '^(file|null)=' f.29.out | tr '\n' ' ')" "file=0 null=0 " \
    "29: a cache directory that is a file or /dev/null: the build exits 0"
like "$(cat f.29/file.err)" "kernel cache is unavailable" "29: and says the cache is unavailable"

done_testing
