#!/bin/sh
# PolyBench/C 4.2.1 through ch-cc on the GPU, as shipped (static kernels, one pragma line each,
# annotated in a temporary copy), against gcc -O3 on one core. Per kernel: whether a verified
# kernel was linked, the program's own timing of the kernel call (POLYBENCH_TIME, seconds) for
# the gcc -O3 build, for the ch-cc build as its dispatcher runs it and with CH_CC_FORCE_GPU=1,
# the whole-call speedups over gcc (x_gpu, x_disp, with the path the dispatcher took), the
# winning candidate's kernel and whole-call times and design from its report, and whether the
# array dump equals gcc's; last, the geometric mean of both speedups over the kernels with a
# linked kernel. The timed call is the program's only call, so it includes the device set-up;
# the same two runs with CH_CC_DEVICE_INIT=load (set-up before main) give the call alone
# (x_gpu_l, x_disp_l), and the dispatcher's size against its threshold is shown as S>=N.
# GPU only; opt in with CH_CC_BENCHES=polybench (LARGE_DATASET verifies at full size: minutes
# per kernel).
#
# CH_CC_PB_DATASET (default LARGE_DATASET), CH_CC_PB_KERNELS (names, default all), CH_CC_BUDGET
# (default 2). Parallel streams: CH_CC_PB_STREAM=I/N takes every N-th of the chosen kernels
# starting with the I-th (I = 1..N) and pins its gcc runs to core I-1 (CH_CC_BENCH_CPU sets
# the core); CH_CC_PB_TSV=FILE appends each row there (tab-separated, one header), and
# `python3 bench/report.py pb-table FILE...` prints the streams' rows as one table with the
# geometric mean over all of them. CH_CC_PB_KEEP=DIR keeps each kernel's build stderr and traced
# runs there (NAME.err, NAME.ch.err, ...), to see why a kernel took the host path.
set -u
src=${CH_CC_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
suite=${CH_CC_POLYBENCH:-$src/../shared/suites/polybench-4.2.1}
# the GPU machine gets the suite carried beside the tests (tests/gpu/make-carry.sh)
[ -d "$suite/utilities" ] || [ -n "${CH_CC_POLYBENCH:-}" ] || suite=$src/tests/gpu/carry/polybench
stream=${CH_CC_PB_STREAM:-1/1}
case "$stream" in
    *[!0-9/]* | /* | */ | 0/* | */0 | */*/*) stream_i=0 stream_n=0 ;;
    */*) stream_i=${stream%/*} stream_n=${stream#*/} ;;
    *) stream_i=0 stream_n=0 ;;
esac
if [ "$stream_i" -lt 1 ] || [ "$stream_i" -gt "$stream_n" ]; then
    echo "CH_CC_PB_STREAM=$stream: write I/N with 1 <= I <= N, e.g. 2/4"
    exit 1
fi
# CH_CC_PB_DRY=1: only the names of this stream's kernels (no GPU needed)
if [ "${CH_CC_PB_DRY:-0}" != 1 ] &&
    ! (command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU); then
    echo "skipped: no GPU"
    exit 0
fi
[ -d "$suite/utilities" ] || { echo "skipped: PolyBench not found at $suite"; exit 0; }
report="python3 $src/bench/report.py"
CH_CC_BIN=${CH_CC_BIN:-$src/build/bin/ch-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ch-cc-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export CH_CC_CACHE_DIR="${CH_CC_CACHE_DIR:-$tmp/cache}" CH_CC_BUDGET="${CH_CC_BUDGET:-2}"
unset CH_CC_FORCE_GPU CH_CC_FORCE_HOST CH_CC_TRACE
dataset=${CH_CC_PB_DATASET:-LARGE_DATASET}
one_core=
command -v taskset >/dev/null 2>&1 && one_core="taskset -c ${CH_CC_BENCH_CPU:-$((stream_i - 1))}"
CH_CC_SRC=$src
. "$src/tests/lib/polybench.sh"
polybench_suite=$suite
kernels=$(polybench_copy "$tmp/pb")
cd "$tmp/pb" || exit 1
util="$tmp/pb/utilities"
rows="$tmp/rows.tsv"

# this stream's kernels: those CH_CC_PB_KERNELS names (all when unset), every N-th from the I-th
mine=$(n=0
    for s in $kernels; do
        name=$(basename "$s" .c)
        if [ -n "${CH_CC_PB_KERNELS:-}" ] && ! printf ' %s ' "$CH_CC_PB_KERNELS" | grep -q " $name "; then
            continue
        fi
        n=$((n + 1))
        [ $(((n - 1) % stream_n + 1)) = "$stream_i" ] && echo "$s"
    done)
if [ "${CH_CC_PB_DRY:-0}" = 1 ]; then
    for s in $mine; do basename "$s" .c; done
    exit 0
fi

# speedup A B: A/B when both are positive numbers, else -
speedup() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "-" }'
}

# same_dump GCC_DUMP CH_DUMP: equal, last-digit (PolyBench prints %0.2lf) or DIFFERENT
same_dump() {
    python3 - "$1" "$2" <<'PY'
import re, sys
a, b = (open(f).read() for f in sys.argv[1:])
if a == b:
    print("equal")
else:
    num = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")
    x, y = num.findall(a), num.findall(b)
    close = len(x) == len(y) and all(abs(float(p) - float(q)) <= 0.0100001 + 1e-6 * abs(float(p))
                                     for p, q in zip(x, y))
    print("last-digit" if close else "DIFFERENT")
PY
}

# run_ch NAME TAG [ENV...]: the ch-cc build traced (CH_CC_TRACE's "ch-cc: kernel_NAME: gpu"
# lines share stderr with the dump): its time in NAME.TAG.t, dump in NAME.TAG.dump, and the
# path the last call took on stdout
run_ch() {
    name=$1 tag=$2
    shift 2
    env CH_CC_TRACE=1 "$@" timeout 900 ./"$name.ch" > "$name.$tag.t" 2> "$name.$tag.err"
    grep -v '^ch-cc: ' "$name.$tag.err" > "$name.$tag.dump"
    p=$(sed -n 's/^ch-cc: [^:]*: //p' "$name.$tag.err" | tail -1 | sed 's/ (.*//; s/ /-/g')
    echo "${p:-host}"
}

$report pb-header
for s in $mine; do
    name=$(basename "$s" .c)
    dir=$(dirname "$s")
    flags="-O3 -I$util -I$dir -D$dataset -DPOLYBENCH_TIME -DPOLYBENCH_DUMP_ARRAYS"
    gcc $flags "$util/polybench.c" "$s" -lm -o "$name.gcc" &&
        $one_core ./"$name.gcc" > "$name.gcc.t" 2> "$name.gcc.dump"
    "$CH_CC_BIN" $flags "$util/polybench.c" "$s" -lm -o "$name.ch" > /dev/null 2> "$name.err"
    rep=$("$CH_CC_BIN" --harness-list $flags "$s" 2>/dev/null | $report path "$CH_CC_CACHE_DIR")
    best=$($report best "$rep")
    # the build says so on a cold cache; on a warm one the report has a winner
    linked=host
    if grep -q 'verified kernel linked' "$name.err" || [ "$best" != "$(printf -- '-\t-\t-\t-')" ]; then
        linked=kernel
    fi
    path=$(run_ch "$name" ch)
    dump=$(same_dump "$name.gcc.dump" "$name.ch.dump")
    gcc_t=$(cat "$name.gcc.t" 2>/dev/null) disp_t=$(cat "$name.ch.t" 2>/dev/null) gpu_t=
    gpu_load_t= disp_load_t= path_load=-
    if [ $linked = kernel ]; then
        # the forced run's time counts only where the kernel ran; its dump is checked too
        if [ "$(run_ch "$name" gpu CH_CC_FORCE_GPU=1)" = gpu ]; then
            gpu_t=$(cat "$name.gpu.t")
            [ "$(same_dump "$name.gcc.dump" "$name.gpu.dump")" = DIFFERENT ] && dump=DIFFERENT
        fi
        # the same two with the device set up before main (CH_CC_DEVICE_INIT=load): the
        # program's timer then holds the call alone, copies included, not the process's
        # one-time driver and context set-up
        if [ "$(run_ch "$name" gpuload CH_CC_FORCE_GPU=1 CH_CC_DEVICE_INIT=load)" = gpu ]; then
            gpu_load_t=$(cat "$name.gpuload.t")
            [ "$(same_dump "$name.gcc.dump" "$name.gpuload.dump")" = DIFFERENT ] && dump=DIFFERENT
        fi
        path_load=$(run_ch "$name" chload CH_CC_DEVICE_INIT=load)
        disp_load_t=$(cat "$name.chload.t" 2>/dev/null)
    fi
    # the dispatcher's size and threshold as its trace gave them ("size S, GPU from N"; with
    # first-call costs "size S, GPU from N warm / C cold (STATE)": S>=N/cold:C(STATE))
    at=$(sed -nE -e 's/^ch-cc: [^:]*: size ([0-9.e+]+), GPU from ([0-9.e+]+) warm \/ ([0-9.e+]+) cold \(([^)]*)\).*/\1>=\2\/cold:\3(\4)/p' \
        -e 's/^ch-cc: [^:]*: size ([0-9]+), GPU from ([0-9]+) .*/\1>=\2/p' "$name.ch.err" | tail -1 | tr ' ' '-')
    # the columns of report.py's PB_COLS (`report.py pb-cols`)
    row=$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s' "$name" "$linked" \
        "${gcc_t:--}" "${disp_t:--}" "${gpu_t:--}" "$(speedup "$gcc_t" "$gpu_t")" \
        "$(speedup "$gcc_t" "$disp_t")" "$path" "$(echo "$best" | cut -f3)" \
        "$(echo "$best" | cut -f4)" "$dump" "$(echo "$best" | cut -f1)")
    row=$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s' "$row" "${gpu_load_t:--}" \
        "$(speedup "$gcc_t" "$gpu_load_t")" "${disp_load_t:--}" "$(speedup "$gcc_t" "$disp_load_t")" \
        "$path_load" "${at:--}")
    printf '%s\n' "$row" >> "$rows"
    if [ -n "${CH_CC_PB_KEEP:-}" ]; then
        mkdir -p "$CH_CC_PB_KEEP"
        cp "$name".*err "$CH_CC_PB_KEEP/" 2>/dev/null
    fi
    if [ -n "${CH_CC_PB_TSV:-}" ]; then
        [ -s "$CH_CC_PB_TSV" ] || $report pb-cols > "$CH_CC_PB_TSV"
        printf '%s\n' "$row" >> "$CH_CC_PB_TSV"
    fi
    printf '%s\n' "$row" | $report pb-row
done
[ -s "$rows" ] && $report pb-summary "$rows"
exit 0
