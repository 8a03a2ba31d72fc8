#!/bin/bash
# The seventh red team's model-written references that reach the user's binary
# (tests/data/attacks7/, RESULTS.md there says what each does), replayed as spec_build.sh does
# them: axpy.c built with the fake model answering the checklist and the reference, then a probe
# linked against axpy.o. Each reference agrees with ch-cc's reading of the spec on every input
# set in the default run; it is refused where it runs otherwise: buffers carved from one
# allocation (#14), subnormals flushed to zero as in a -ffast-math program (#30), or timed
# against the reading at the tune size (#31). The refusal and its reason are asserted, and so
# is the honest reference's build (attacks6/00), which none of these checks may refuse.
. "$(dirname "$0")/../lib/tap.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
A7="$CH_CC_SRC/tests/data/attacks7"
A6="$CH_CC_SRC/tests/data/attacks6"
REL="${CH_CC_REL_BIN:-$CH_CC_BIN}"
unset CH_CC_REMOTE CH_CC_OFFLINE CH_CC_ON_FAIL CH_CC_PROVIDER CH_CC_MODEL CH_CC_API_KEY \
    CH_CC_API_BASE CH_CC_QUIET CH_CC_BUDGET
cd "$TEST_DIR" || exit 1
cp -r "$CH_CC_SRC/tests/integration/data/specdecl" spec

start_model() { # start_model REF.c: the fake model's script (default checklist), server started
    python3 - "$CH_CC_SRC/tests/integration/data/specdecl/script.py" "$1" \
        "$A6/00_axpy_kernel.cu" script.json <<'PY'
import json, sys
ns = {}
exec(open(sys.argv[1]).read().split("reference = (")[0].replace("import sys", ""), ns)
kernel = "Design: hand\n```cuda\n%s```\n" % open(sys.argv[3]).read()
steps = [{"reply": "```json\n%s\n```" % json.dumps(ns["checklist"])},
         {"reply": "```c\n%s```\n" % open(sys.argv[2]).read()}, {"reply": kernel}]
json.dump({"steps": steps, "default": {"reply": kernel}}, open(sys.argv[4], "w"))
PY
    rm -f port requests.jsonl
    python3 "$CH_CC_SRC/tests/fakes/fake_llm.py" --script script.json --record requests.jsonl \
        --port 0 --port-file port > /dev/null 2>&1 &
    echo $! > llm.pid
    for _ in $(seq 300); do [ -s port ] && break; sleep 0.1; done
}
trap 'for p in s.*/llm.pid; do [ -f "$p" ] && kill "$(cat "$p")" 2>/dev/null; done; _tap_cleanup' EXIT
spec_build() { # spec_build NAME REF.c PROBE.c: axpy.c built in s.NAME, PROBE.c linked and run
    mkdir -p "s.$1" && cp spec/axpy.c "s.$1/" && cp "$3" "s.$1/probe_main.c"
    (cd "s.$1" && start_model "$2" &&
        CH_CC_CACHE_DIR="$PWD/cache" CH_CC_PROVIDER=openai CH_CC_MODEL=fake CH_CC_API_KEY=k \
            CH_CC_BUDGET=1 CH_CC_API_BASE="http://127.0.0.1:$(cat port)/v1" \
            "$REL" -O2 -c axpy.c -o axpy.o 2> build.err
        echo $? > rc
        kill "$(cat llm.pid)" 2>/dev/null
        wait "$(cat llm.pid)" 2>/dev/null
        rm -f llm.pid
        if [ -f axpy.o ]; then
            "$REL" probe_main.c axpy.o -o probe 2> link.err && timeout 20 ./probe > probe.out
        fi
        touch probe.out)
}
# two at a time (each build is mostly waits on nvcc and the fake server)
spec_build 14 "$A7/14_ref_adjacent_buffers.c" "$A7/14_probe_main.c" &
spec_build 30 "$A7/30_ref_ftz_trigger.c" "$A7/30_probe_main.c"
wait
spec_build 31 "$A7/31_ref_quadratic_hang.c" "$A7/31_probe_main.c" &
spec_build 00 "$A6/00_axpy_reference.c" "$A6/00_probe_main.c"
wait

refusal="reference for axpy is refused: it disagrees with ch-cc's own reading of the spec \(formula: .*\)"
like "$(cat s.14/build.err)" \
    "$refusal on random inputs in buffers carved from one allocation, adjacent in parameter order at n=[0-9]+: y\[[0-9]+\] is .*; a reference's result may not depend on where its buffers lie" \
    "14: a reference that stops when y starts where x ends is refused, and why"
[ ! -f s.14/axpy.o ] || grep -q 'carved: y3=7 ' s.14/probe.out
ok $? "14: it is not linked as the host path (or is right)"

like "$(cat s.30/build.err)" \
    "$refusal on random inputs with subnormals flushed to zero \(FTZ/DAZ, as in a program linked with -ffast-math\) at n=[0-9]+: y\[[0-9]+\] is .*; a reference may not depend on the floating-point environment" \
    "30: a reference that computes nothing under FTZ/DAZ is refused, and why"
[ ! -f s.30/axpy.o ] || grep -q 'fast-math program: y3=7 ' s.30/probe.out
ok $? "30: it is not linked as the host path (or is right)"

# its 0 * x[j] is NaN where x[j] is Inf: since attacks8 #28 (NaN/Inf inputs) it is refused
# there, before it is timed, and rightly (the formula gives Inf); the cost check itself is
# test_reference.c's
like "$(cat s.31/build.err)" \
    "reference for axpy is refused: it (is far slower than ch-cc's own reading of the spec \(formula: .*\) at n=[0-9]+: (a call takes [0-9.e+]+ ms|it did not finish in [0-9.e+]+ s) where the reading's call takes [0-9.e+-]+ ms|disagrees with ch-cc's own reading of the spec \(formula: .*\) on random inputs holding NaN and Inf at random positions at n=[0-9]+: y\[[0-9]+\] is -?nan where the reading gives -?inf)" \
    "31: a quadratic reference is refused, saying what was measured"
[ ! -f s.31/axpy.o ] || grep -q 'large: y\[n-1\]=3 ' s.31/probe.out
ok $? "31: it is not linked as the host path (or is fast)"

is "$(cat s.00/rc)" 0 "00 (control): the honest reference builds"
like "$(cat s.00/build.err)" "host path linked|verified kernel linked" \
    "00 (control): it is linked, not refused"
is "$(grep -c 'is refused' s.00/build.err)" 0 "00 (control): no check refuses it"
like "$(cat s.00/probe.out)" "late: y3=3.5 \(want 3.5\)" "00 (control): and it computes the spec"

# ---- candidates keeping state on the chip (#01, #21): hardened, and what cannot be is refused ----
cand() { # cand NAME FILE.cu: --harness-verify against examples/saxpy; rc and message in v.NAME
    mkdir -p "v.$1" && cp "$CH_CC_SRC/examples/saxpy/saxpy.c" "$CH_CC_SRC/examples/saxpy/saxpy.h" "v.$1/"
    (cd "v.$1" && CH_CC_CACHE_DIR="$PWD/cache" "$CH_CC_BIN" --harness-verify="$2" saxpy.c > out 2> err
     echo $? > rc)
}
cand 21 "$A7/21_uninitialised_local_memory.cu"
# where no GPU runs stages 2-5, passing stages 0-1 (3) is all there is; with one, verification
# may pass it (0): hardened, it computes the spec at every call (tests/gpu/kept_state_gpu.t)
like "$(cat v.21/rc)" "^(0|3)$" "21: the local-memory counter compiles once hardened ($(grep -m1 '^message:' v.21/out))"
sed -e 's/^    volatile unsigned slot\[32\];/#define SLOTS(name) volatile unsigned name[32]\n    SLOTS(slot);/' \
    "$A7/21_uninitialised_local_memory.cu" > hidden21.cu
grep -q 'SLOTS(slot);' hidden21.cu; ok $? "21 variant: the array declared by a macro"
cand h21 "$PWD/hidden21.cu"
is "$(cat v.h21/rc)" 1 "21 variant: refused"
like "$(cat v.h21/out)" "static: line [0-9]+:[0-9]+: the local 'slot' is declared by a macro without an initialiser" \
    "21 variant: at stage 0, where the declaration is, saying why"

done_testing
