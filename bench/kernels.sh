#!/bin/sh
# The examples' kernels on the GPU: for each, the program's own timing of the harness call
# against its host loop, the verified kernel's whole-call time and fraction of the memory floor
# (from the entry's report.json), and build times: the cold build of the annotated file
# (evolution included), a warm rebuild from the cache, and a plain compile. GPU only.
set -u
src=${CH_CC_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
if ! (command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU); then
    echo "skipped: no GPU"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ch-cc-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export CH_CC_CACHE_DIR="$tmp/cache" CH_CC_QUIET=1
for ex in saxpy:saxpy.c:saxpy jacobi:jacobi.c:jacobi spec-def:blend.c:blend; do
    IFS=: read -r dir file prog <<EOT
$ex
EOT
    cp -r "$src/examples/$dir" "$tmp/$dir"
    cd "$tmp/$dir"
    make -s CC="$CH_CC_BIN" main.o >/dev/null 2>&1
    t0=$(date +%s.%N)
    "$CH_CC_BIN" -O2 -c "$file" -o "${file%.c}.o" 2>/dev/null
    t1=$(date +%s.%N)
    make -s CC="$CH_CC_BIN" >/dev/null 2>&1
    set -- $(python3 "$src/bench/timeit.py" 11 -- cc -O2 -w -c "$file" -o plain.o \
        -- "$CH_CC_BIN" -O2 -c "$file" -o warm.o)
    plain=$1 warm=$3
    key=$("$CH_CC_BIN" --harness-list "$file" | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['key'])")
    python3 - "$CH_CC_CACHE_DIR/$(echo "$key" | cut -c1-2)/$(echo "$key" | cut -c3-)/report.json" \
        "$dir" "$t0" "$t1" "$plain" "$warm" <<'PY'
import json, sys
rep, name, t0, t1, plain, warm = sys.argv[1:]
ev = json.load(open(rep))["evolution"]
best = [c for c in ev["candidates"] if c["id"] == ev["best"]]
b = best[0] if best else {}
f = b.get("fraction")
print(f"kernel  {name:9s} {b.get('design') or 'no kernel'}")
print(f"        whole call {b.get('launcher_ms') or 0:9.3f} ms at the tune size, "
      f"{(f or 0) * 100:5.1f}% of the memory floor, {len(ev['candidates'])} candidates; "
      f"host path {b.get('host_ms') or 0:.3f} ms, smallest call {b.get('small_ms') or 0:.3f} ms")
print(f"build   {name:9s} cold {float(t1) - float(t0):7.1f} s   warm {float(warm):7.1f} ms   "
      f"plain {float(plain):7.1f} ms   warm/plain {float(warm) / float(plain):5.2f}")
PY
    printf '        run (dispatch by size): '
    "./$prog" 2>&1 | head -1
    printf '        run (CH_CC_FORCE_GPU=1):  '
    CH_CC_FORCE_GPU=1 "./$prog" 2>&1 | head -1
done
