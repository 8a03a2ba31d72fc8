#!/bin/bash
# .cu files go through nvcc unchanged: nvcc objects embed temp names, so compare what matters
# instead of bytes: symbols, section names, depfiles and the program's behaviour.
. "$(dirname "$0")/../lib/tap.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
data="$CH_CC_SRC/tests/integration/data/cuproj"
cp -r "$data" "$TEST_DIR/a"; cp -r "$data" "$TEST_DIR/b"
(cd "$TEST_DIR/a" && make -s CC=cc NVCC=nvcc >/dev/null 2>&1)
ok $? "build with cc + nvcc"
mv "$TEST_DIR/a" "$TEST_DIR/ref"; mv "$TEST_DIR/b" "$TEST_DIR/a"
(cd "$TEST_DIR/a" && make -s CC="$CH_CC_BIN" NVCC="$CH_CC_BIN" >/dev/null 2>&1)
ok $? "build with CC=ch-cc NVCC=ch-cc"
for o in vec.o main.o; do
    is "$(nm "$TEST_DIR/a/$o" | awk '{print $NF}' | grep -v tmpxft | sort | tr '\n' ' ')" \
       "$(nm "$TEST_DIR/ref/$o" | awk '{print $NF}' | grep -v tmpxft | sort | tr '\n' ' ')" "$o: same symbols"
    is "$(objdump -h "$TEST_DIR/a/$o" | awk '/^ *[0-9]+ /{print $2}' | tr '\n' ' ')" \
       "$(objdump -h "$TEST_DIR/ref/$o" | awk '/^ *[0-9]+ /{print $2}' | tr '\n' ' ')" "$o: same sections"
done
files_same "$TEST_DIR/ref/main.o" "$TEST_DIR/a/main.o" "main.c object byte-identical"
files_same "$TEST_DIR/ref/vec.d" "$TEST_DIR/a/vec.d" "nvcc -MD depfile identical"
is "$("$TEST_DIR/a/prog" 2>&1)" "$("$TEST_DIR/ref/prog" 2>&1)" "the programs behave the same"

# Linking device-code objects with ch-cc as the link driver adds the CUDA runtime, as nvcc does.
cd "$TEST_DIR/a"
"$CH_CC_BIN" main.o vec.o -o linked-by-ch 2>link.err
ok $? "ch-cc links nvcc objects (static CUDA runtime added)"
is "$(./linked-by-ch 2>&1)" "$("$TEST_DIR/ref/prog" 2>&1)" "ch-cc-linked program behaves the same"

# nvcc reached through a wrapper script outside the toolkit (as /usr/local/bin/nvcc on some
# machines): the runtime's directory comes from the toolkit, not from the wrapper's place.
mkdir -p wrap/bin
printf '#!/bin/sh\nexec "%s" "$@"\n' "$(readlink -f "$(command -v nvcc)")" > wrap/bin/nvcc
chmod +x wrap/bin/nvcc
CH_CC_NVCC="$PWD/wrap/bin/nvcc" "$CH_CC_BIN" main.o vec.o -o linked-by-wrapper 2>wrap.err
ok $? "ch-cc links with nvcc behind a wrapper script"
is "$(./linked-by-wrapper 2>&1)" "$("$TEST_DIR/ref/prog" 2>&1)" "wrapper-linked program behaves the same"

# Objects that call the trusted runtime the way emitted harness units do (weak references to
# ch_rt_call_v1): every link path must pull libch_runtime.a in, or the dispatcher silently falls
# back to the candidates' own launchers. Plain nvcc leaves the reference weak and unresolved.
cat > rtunit.cu <<'EOF'
#define CH_RT_DECL __attribute__((weak))
#include "ch/runtime.h"
__global__ void rt_touch(float *p) { p[0] = 1.0f; }
extern "C" int rt_linked(void) { return ch_rt_call_v1 != 0; }
EOF
printf '#include <stdio.h>\nint rt_linked(void);\nint main(void) { printf("%%d\\n", rt_linked()); return 0; }\n' > rtmain.c
nvcc -arch=sm_90 -I"$CH_CC_SRC/include" -c rtunit.cu -o rtunit.o && cc -c rtmain.c -o rtmain.o
ok $? "an object calling the runtime (weakly) builds"
nvcc -arch=sm_90 rtmain.o rtunit.o -o rt-plain
nm rt-plain | grep -q ' w ch_rt_call_v1$'; ok $? "plain nvcc: ch_rt_call_v1 stays weak-undefined"
"$CH_CC_BIN" rtmain.o rtunit.o -o rt-c 2>rtc.err
ok $? "ch-cc links an object calling the runtime"
nm rt-c | grep -q ' T ch_rt_call_v1$'; ok $? "ch-cc link: ch_rt_call_v1 defined (libch_runtime.a linked)"
is "$(./rt-c 2>&1)" "1" "ch-cc-linked program sees the runtime"
"$(dirname "$CH_CC_BIN")/ch-nvcc" -arch=sm_90 rtmain.o rtunit.o -o rt-nvcc 2>rtnvcc.err
ok $? "ch-nvcc links an object calling the runtime"
nm rt-nvcc | grep -q ' T ch_rt_call_v1$'; ok $? "ch-nvcc link: ch_rt_call_v1 defined (libch_runtime.a linked)"
is "$(./rt-nvcc 2>&1)" "1" "ch-nvcc-linked program sees the runtime"

# A failing .cu compile: same status and diagnostics as nvcc.
printf '__global__ void k() { undefined_thing(); }\n' > bad.cu
nvcc -c bad.cu -o bad.o >nv.out 2>nv.err; nv_status=$?
"$CH_CC_BIN" -c bad.cu -o bad.o >ch.out 2>ch.err; ch_status=$?
is "$ch_status" "$nv_status" "failing .cu compile: same exit status"
is "$(sed 's/tmpxft[_0-9a-f]*//g' ch.err)" "$(sed 's/tmpxft[_0-9a-f]*//g' nv.err)" "failing .cu compile: same diagnostics"

# --dryrun and -E behave as nvcc's.
is "$("$CH_CC_BIN" --dryrun -c vec.cu -o x.o 2>&1 | sed 's/tmpxft[_0-9a-f]*//g')" \
   "$(nvcc --dryrun -c vec.cu -o x.o 2>&1 | sed 's/tmpxft[_0-9a-f]*//g')" "--dryrun output is nvcc's"
"$CH_CC_BIN" -E vec.cu > ch.ii 2>/dev/null; nvcc -E vec.cu > nv.ii 2>/dev/null
files_same nv.ii ch.ii "-E output is nvcc's"

# -x cu makes a .c file CUDA (nvcc compiles it, device code included).
printf '__global__ void kk(float *p) { p[threadIdx.x] = 1.0f; }\n' > dev.c
"$CH_CC_BIN" -x cu -arch=sm_90 -c dev.c -o dev.o
ok $? "-x cu on a .c file compiles"
objdump -h dev.o | grep -q nv_fatbin; ok $? "-x cu object carries device code"
done_testing
