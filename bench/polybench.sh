#!/bin/sh
# PolyBench/C 4.2.1 through ch-cc on the GPU, as shipped (static kernels, one pragma line each,
# annotated in a temporary copy): per kernel, whether a verified kernel was linked, the
# program's own timing of the kernel call (POLYBENCH_TIME) for the gcc build, the ch-cc build as
# its dispatcher runs it and with CH_CC_FORCE_GPU=1, the winning candidate's whole-call and
# kernel times from its report, and whether the array dump equals gcc's. GPU only; opt in with
# CH_CC_BENCHES=polybench (LARGE_DATASET verifies at full size: minutes per kernel).
# CH_CC_PB_DATASET (default LARGE_DATASET), CH_CC_PB_KERNELS (names) and CH_CC_BUDGET choose.
set -u
src=${CH_CC_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
suite=${CH_CC_POLYBENCH:-$src/../shared/suites/polybench-4.2.1}
if ! (command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU); then
    echo "skipped: no GPU"
    exit 0
fi
[ -d "$suite/utilities" ] || { echo "skipped: PolyBench not found at $suite"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ch-cc-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export CH_CC_CACHE_DIR="${CH_CC_CACHE_DIR:-$tmp/cache}" CH_CC_BUDGET="${CH_CC_BUDGET:-2}"
dataset=${CH_CC_PB_DATASET:-LARGE_DATASET}
CH_CC_SRC=$src
. "$src/tests/lib/polybench.sh"
polybench_suite=$suite
kernels=$(polybench_copy "$tmp/pb")
cd "$tmp/pb"
util="$tmp/pb/utilities"
printf '%-15s %-8s %10s %10s %10s %12s %12s %s\n' kernel linked host_s call_s gpu_s \
    launcher_ms kernel_ms dump
for s in $kernels; do
    name=$(basename "$s" .c)
    if [ -n "${CH_CC_PB_KERNELS:-}" ] && ! printf ' %s ' "$CH_CC_PB_KERNELS" | grep -q " $name "; then
        continue
    fi
    dir=$(dirname "$s")
    flags="-O2 -I$util -I$dir -D$dataset -DPOLYBENCH_TIME -DPOLYBENCH_DUMP_ARRAYS"
    gcc $flags "$util/polybench.c" "$s" -lm -o "$name.gcc" && ./"$name.gcc" > "$name.gcc.t" 2> "$name.gcc.dump"
    "$CH_CC_BIN" $flags "$util/polybench.c" "$s" -lm -o "$name.ch" > /dev/null 2> "$name.err"
    linked=host
    grep -q 'verified kernel linked' "$name.err" && linked=kernel
    ./"$name.ch" > "$name.ch.t" 2> "$name.ch.dump"
    gpu=-
    if [ $linked = kernel ]; then
        CH_CC_FORCE_GPU=1 timeout 300 ./"$name.ch" > "$name.gpu.t" 2> /dev/null && gpu=$(cat "$name.gpu.t")
    fi
    key=$("$CH_CC_BIN" --harness-list $flags "$s" |
        python3 -c "import json,sys; print(json.load(sys.stdin)[0]['key'])")
    rep="$CH_CC_CACHE_DIR/$(echo "$key" | cut -c1-2)/$(echo "$key" | cut -c3-)/report.json"
    times=$(python3 - "$rep" <<'PY'
import json, sys
try:
    ev = json.load(open(sys.argv[1]))["evolution"]
    b = [c for c in ev["candidates"] if c["id"] == ev["best"]][0]
    print("%.3f %.3f" % (b.get("launcher_ms") or -1, b.get("kernel_ms") or -1))
except Exception:
    print("- -")
PY
)
    dump=$(python3 - "$name.gcc.dump" "$name.ch.dump" <<'PY'
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
)
    printf '%-15s %-8s %10s %10s %10s %12s %12s %s\n' "$name" "$linked" "$(cat "$name.gcc.t")" \
        "$(cat "$name.ch.t")" "$gpu" $times "$dump"
done
