#!/bin/bash
# What of the benchmark (bench/speed.sh, bench/polybench.sh, bench/micro) can be checked without
# a GPU: the micro sources build with gcc -O3 -Wall -Wextra -Werror and through ch-cc (its host
# path), and both builds give the same outputs at odd sizes; the driver's sizes are the
# pragmas' tune() sizes; the builtin translator maps every micro onto threads; the scripts parse
# and skip cleanly without a GPU; with a stand-in nvidia-smi, speed.sh runs through and prints
# its table; report.py reads the winner's times under their old and new names, flags a wrong
# result, and merges PolyBench streams into one geometric mean; the PolyBench streams split
# the kernels without overlap. `make bench` itself runs on the GPU machine only.
. "$(dirname "$0")/../lib/tap.sh"
bin="${CH_CC_REL_BIN:-$CH_CC_BIN}"
micro="$CH_CC_SRC/bench/micro"
report="python3 $CH_CC_SRC/bench/report.py"
all="copy saxpy dot softmax transpose stencil sgemm dgemm"
cd "$TEST_DIR" || exit 1
cp "$micro"/*.c "$micro"/*.h .

for s in "$CH_CC_SRC"/bench/*.sh; do
    sh -n "$s"
    ok $? "$(basename "$s") parses"
done
python3 -c 'import sys; [compile(open(f).read(), f, "exec") for f in sys.argv[1:]]' \
    "$CH_CC_SRC/bench/report.py" "$CH_CC_SRC/bench/timeit.py" "$CH_CC_SRC/bench/dispatch_main.py"
ok $? "report.py, timeit.py and dispatch_main.py compile"
sh "$CH_CC_SRC/bench/dispatch.sh" > /dev/null 2>&1
is $? 2 "dispatch.sh without a directory: its usage"

gcc -O3 -std=c11 -Wall -Wextra -Werror -Wno-unknown-pragmas main.c $(for m in $all; do echo "$m.c"; done) \
    -lm -o micro.gcc 2> gcc.log
ok $? "the micros and the driver build with gcc -O3 -Wall -Wextra -Werror" || diag "$(head -20 gcc.log)"

# ch-cc with no agent: the host path only, so that this stays fast; the scan, the clauses
# and the dispatcher's object are what a GPU build starts from
built=0
for m in $all; do
    CH_CC_PROVIDER=none "$bin" -O3 -std=c11 -c "$m.c" -o "$m.o" 2>> ch.log || built=1
done
"$bin" -O3 -std=c11 -c main.c -o main.o && "$bin" -O3 main.o $(for m in $all; do echo "$m.o"; done) \
    -lm -o micro.ch 2>> ch.log || built=1
ok $built "the micros build with ch-cc" || diag "$(head -20 ch.log)"

./micro.gcc -small all > gcc.out
./micro.ch -small all > ch.out
is "$(awk '{print $1}' gcc.out | tr '\n' ' ')" "$all " "the driver runs every micro"
is "$(awk '{print $1, $7, $8}' ch.out)" "$(awk '{print $1, $7, $8}' gcc.out)" \
    "the ch-cc build gives the gcc build's results at odd sizes"
awk '$7 == "" || $8 + 0 <= 0 { bad = 1 } END { exit bad }' gcc.out
ok $? "every micro's output is non-trivial (a positive magnitude sum)"

# driver sizes == tune() clauses, through the scanner
for m in $all; do "$bin" --harness-list -O3 -std=c11 "$m.c"; done 2>/dev/null | python3 -c '
import json, sys
dec = json.JSONDecoder()
text, pos = sys.stdin.read(), 0
while pos < len(text):
    if text[pos].isspace():
        pos += 1
        continue
    entries, pos = dec.raw_decode(text, pos)
    for e in entries:
        tune = e["clauses"]["tune"]
        print(e["name"] + "".join(" %s=%d" % (k, eval(v)) for k, v in tune.items()))
' > tune.txt
is "$(cat tune.txt)" "$(./micro.gcc -sizes)" "the driver's sizes are the pragmas' tune() sizes"

# every micro becomes kernels on threads, not a one-thread kernel alone
for m in $all; do
    "$bin" --harness-plan "$m.c" > "$m.plan" 2>&1
    grep -Eq 'parallel dimensions? on threads|a sum on threads' "$m.plan"
    ok $? "$m: the translator maps it onto threads" || diag "$(tail -5 "$m.plan")"
done

if command -v nvcc > /dev/null; then
    nvcc -O3 -std=c++17 -arch=sm_90 -c "$micro/baselines.cu" -o baselines.o > nvcc.log 2>&1
    ok $? "baselines.cu compiles with nvcc" || diag "$(head -20 nvcc.log)"
else
    skip "baselines.cu compiles with nvcc" "nvcc not found"
fi

if have_gpu; then
    skip "the benchmarks skip without a GPU" "a GPU is present"
    skip "speed.sh runs through with a stand-in nvidia-smi" "a GPU is present"
else
    is "$(sh "$CH_CC_SRC/bench/speed.sh"; sh "$CH_CC_SRC/bench/polybench.sh")" \
        "skipped: no GPU
skipped: no GPU" "the benchmarks skip without a GPU"
    # a stand-in nvidia-smi: the script's whole path, on the host path at the small sizes
    mkdir fakebin
    printf '#!/bin/sh\necho "GPU 0: stand-in"\n' > fakebin/nvidia-smi
    chmod +x fakebin/nvidia-smi
    PATH="$TEST_DIR/fakebin:$PATH" CH_CC_BIN="$bin" CH_CC_PROVIDER=none CH_CC_MICRO_SMALL=1 \
        CH_CC_ARCH=sm_90 MICRO_SECONDS=0.1 CH_CC_MICROS="copy transpose sgemm" \
        CH_CC_SPEED_TSV="$TEST_DIR/speed.tsv" sh "$CH_CC_SRC/bench/speed.sh" > speed.out 2>&1
    is "$(sed -n 's/^\([a-z]*\) .* host  *ok .*/\1/p' speed.out | tr '\n' ' ')" \
        "copy transpose sgemm " "speed.sh prints a checked row per micro" || diag "$(cat speed.out)"
    is "$(cut -f1,2,13,17 speed.tsv | tr '\t\n' ', ')" \
        "micro,linked,dispatched_path,check copy,host,host,ok transpose,host,host,ok sgemm,host,host,ok " \
        "speed.sh writes the machine-readable rows"
    # dispatch.sh on a program with its own main (as real files have): its timing program
    # gets a row at every size set of the entry, on the host path both ways here
    mkdir held && cp "$CH_CC_SRC/tests/data/everyday/relu.c" held/
    PATH="$TEST_DIR/fakebin:$PATH" CH_CC_BIN="$bin" CH_CC_PROVIDER=none CH_CC_DISPATCH_RUNS=1 \
        CH_CC_DISPATCH_CALLS=1 sh "$CH_CC_SRC/bench/dispatch.sh" held > dispatch.out 2>&1
    rows=$(grep -c '^relu/relu  *[0-9]' dispatch.out)
    is "$([ "$rows" -ge 3 ] && echo rows) $(grep -c 'did not build\|failed' dispatch.out)" "rows 0" \
        "dispatch.sh times a file that has its own main" || diag "$(cat dispatch.out)"
fi

# report.py on a made-up winner: the device time under its new name wins over the old one
cat > report.json <<'EOF'
{"evolution": {"best": 3, "candidates": [
 {"id": 1, "design": "translator v0", "kernel_ms": 9.0, "launcher_ms": 90.0},
 {"id": 3, "design": "translator v2: tiles", "kernel_ms": 5.0, "device_ms": 2.0,
  "launcher_ms": 50.0, "call_ms": 40.0, "precision": "fp32"}]}}
EOF
is "$($report best report.json)" "translator v2: tiles	fp32	2	40" \
    "report.py reads device_ms and call_ms before kernel_ms and launcher_ms"
sed 's/"device_ms": 2.0,//; s/"call_ms": 40.0,//' report.json > old.json
is "$($report best old.json | cut -f3,4)" "5	50" "report.py reads kernel_ms and launcher_ms"
is "$($report best missing.json)" "-	-	-	-" "a missing report reads as unknown"
is "$(echo '[{"name": "f", "key": "abcdef"}]' | $report path /c f)" "/c/ab/cdef/report.json" \
    "report.py finds an entry's report in the cache"

printf 'copy_floor_gbs 4000\nsgemm_tflops 50\nsgemm_tf32_tflops 400\ndgemm_tflops 40\n' > base.txt
# 2^26 floats copied (512 MiB of traffic) in 2 ms device time: 268 GB/s, 6.7% of 4000
cat > copy.record <<EOF
name copy
linked kernel
report $TEST_DIR/report.json
gcc copy 90 80 3 536870912 0 100 200
dispatched copy 50 40 3 536870912 0 100 200
dispatched_path gpu
gpu copy 50 40 3 536870912 0 100 200
gpu_path gpu
EOF
row=$($report speed-row base.txt copy.record)
like "$row" '^copy +2\.000 +268 GB/s +6\.7% floor +40\.000 +80\.000 +2\.00 2\.00 gpu +ok +translator v2: tiles \[fp32\]$' \
    "speed-row: kernel time, GB/s, fraction of the floor, call, gcc, speedups"
sed 's/^gpu copy 50 40 3 536870912 0 100 200/gpu copy 50 40 3 536870912 0 101 200/' copy.record > bad.record
like "$($report speed-row base.txt bad.record)" ' DIFF ' "speed-row flags a result that differs from gcc's"
$report speed-row base.txt bad.record > /dev/null
is $? 1 "and exits 1 for it, so that make bench fails"
sed 's/^gpu_path gpu/gpu_path host/' copy.record > host.record
like "$($report speed-row base.txt host.record)" '% floor +- +80\.000 +- ' \
    "a forced call that did not reach the GPU has no call time"
printf 'name dgemm\nlinked kernel\nreport %s\ngcc dgemm 1 1 0 1 137438953472 1 1\n' \
    "$TEST_DIR/report.json" > dgemm.record
like "$($report speed-row base.txt dgemm.record)" '68\.72 TF/s +171\.8% cuBLAS ' \
    "speed-row: a GEMM's TFLOP/s against cuBLAS of its type"

printf 'a\tkernel\t8\t1\t0.5\t16.00\t8.00\tgpu\t1\t2\tequal\tv\t0.1\t80.00\t0.2\t40.00\tgpu\t9>=4\n' > s1.tsv
printf 'b\tkernel\t9\t1\t0.25\t36.00\t9.00\tgpu\t1\t2\tequal\tv\t0.1\t20.00\t0.1\t10.00\tgpu\t-\nc\thost\t1\t1\t-\t-\t1.00\thost\t-\t-\tequal\t-\n' > s2.tsv
like "$($report pb-table s1.tsv s2.tsv | tail -1)" \
    'device set up before main: x_gpu_l 40\.00 \(2 timed\), x_disp_l 20\.00 \(2 timed\)' \
    "pb-table: the geometric means of the calls with the device set up before main"
like "$($report pb-table s1.tsv s2.tsv | grep '^a ')" ' 9>=4 ' \
    "pb-table shows the dispatcher's size against its threshold"
like "$($report pb-table s1.tsv s2.tsv | grep 'over the')" \
    'over the 2 kernels with a linked kernel: x_gpu 24\.00 \(2 timed\), x_disp 8\.49 \(2 timed\); x_disp over all 3 kernels 4\.16' \
    "pb-table merges streams into one geometric mean"

if [ -d "${CH_CC_POLYBENCH:-$CH_CC_SRC/../shared/suites/polybench-4.2.1}/utilities" ] ||
    [ -d "$CH_CC_SRC/tests/gpu/carry/polybench/utilities" ]; then
    a=$(CH_CC_PB_DRY=1 CH_CC_PB_STREAM=1/3 sh "$CH_CC_SRC/bench/polybench.sh")
    b=$(CH_CC_PB_DRY=1 CH_CC_PB_STREAM=2/3 sh "$CH_CC_SRC/bench/polybench.sh")
    c=$(CH_CC_PB_DRY=1 CH_CC_PB_STREAM=3/3 sh "$CH_CC_SRC/bench/polybench.sh")
    whole=$(CH_CC_PB_DRY=1 sh "$CH_CC_SRC/bench/polybench.sh")
    is "$(printf '%s\n%s\n%s\n' "$a" "$b" "$c" | sort)" "$(echo "$whole" | sort)" \
        "three PolyBench streams take every kernel once"
    is "$(echo "$whole" | wc -l)" 30 "all 30 PolyBench kernels by default"
    is "$(CH_CC_PB_DRY=1 CH_CC_PB_KERNELS='gemm atax' sh "$CH_CC_SRC/bench/polybench.sh" | tr '\n' ' ')" \
        "gemm atax " "CH_CC_PB_KERNELS picks kernels (in the suite's order)"
    like "$(CH_CC_PB_STREAM=3/2 sh "$CH_CC_SRC/bench/polybench.sh")" 'write I/N' \
        "a stream outside 1..N is refused"
else
    skip "PolyBench streams" "PolyBench not found"
fi
done_testing
