#!/bin/sh
# Cold builds (issue 11): how long a first build with the builtin agent takes when every entry
# must be generated and verified. Single programs, each alone with a fresh cache (an elementwise
# kernel, a stencil, a GEMM, a row-wise softmax), then sixteen annotated programs of
# tests/data/everyday built by make -j16 with CC=ch-cc and one fresh cache, against the same
# project built with plain gcc and with plain nvcc, and the verification's seconds per stage.
# The ratio divides the -j16 time by the slowest single measured here: the singles are a subset
# of the sixteen, so the true slowest single is at least as long and the real ratio at most the
# one printed. GPU only (without one nothing is verified).
#
# CH_CC_COLD_SINGLES (the single programs), CH_CC_COLD_LIMIT (seconds the -j16 build may take,
# default none), CH_CC_COLD_KEEP (a directory: the -j16 build's stderr, each compile's start and
# end, and every entry's report.json, the singles' too, are copied there, to see where the time
# went).
set -u
src=${CH_CC_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
if ! (command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU); then
    echo "skipped: no GPU"
    exit 0
fi
bin=${CH_CC_BIN:-$src/build/bin/ch-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ch-cc-cold.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset CH_CC_FORCE_GPU CH_CC_FORCE_HOST CH_CC_TRACE CH_CC_PROVIDER CH_CC_MODEL
now() { date +%s.%N; }
secs() { python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$2"; }
cp -r "$src/tests/data/everyday" "$tmp/ed"
files=$(cd "$tmp/ed" && ls *.c | head -16)
singles=${CH_CC_COLD_SINGLES:-"jacobi.c relu.c matmul.c softmax.c"}
slowest=0
echo "single entries, each alone with a fresh cache:"
for f in $singles; do
    d=$tmp/single-${f%.c}
    mkdir -p "$d"
    t0=$(now)
    CH_CC_CACHE_DIR=$d/cache "$bin" -O2 "$tmp/ed/$f" -lm -o "$d/prog" 2> "$d/err"
    rc=$?
    t1=$(now)
    s=$(secs "$t0" "$t1")
    outcome=$(grep -q 'verified kernel linked' "$d/err" && echo verified || echo "host path")
    printf '  %-16s %6s s  (%s, exit %d)\n' "$f" "$s" "$outcome" "$rc"
    if [ -n "${CH_CC_COLD_KEEP:-}" ]; then
        mkdir -p "$CH_CC_COLD_KEEP"
        (cd "$d/cache" 2>/dev/null && find . -name report.json |
            tar czf "$CH_CC_COLD_KEEP/single-${f%.c}.tgz" -T -)
    fi
    slowest=$(python3 -c "print(max(float('$slowest'), float('$s')))")
done
cat > "$tmp/ed/Makefile" <<MK
PROGS = $(echo "$files" | sed 's/\.c//g' | tr '\n' ' ')
all: \$(PROGS)
%: %.c
	\$(CC) -O2 \$< -lm -o \$@
MK
cp -r "$tmp/ed" "$tmp/plain"
cp -r "$tmp/ed" "$tmp/plain-nvcc"
t0=$(now)
make -s -C "$tmp/plain" -j16 CC=gcc CFLAGS= > /dev/null 2>&1
t1=$(now)
plain=$(secs "$t0" "$t1")
# the same project with plain nvcc as the compiler (what CC=nvcc costs without ch-cc)
t0=$(now)
make -s -C "$tmp/plain-nvcc" -j16 CC=nvcc CFLAGS= > /dev/null 2>&1
nvcc_rc=$?
t1=$(now)
plain_nvcc=$(secs "$t0" "$t1")
# each compile's start and end (seconds since the build began), through a wrapper around ch-cc
cat > "$tmp/cc" <<SH
#!/bin/sh
s=\$(date +%s.%N); "$bin" "\$@"; rc=\$?
echo "\$s \$(date +%s.%N) \$rc \$*" >> "$tmp/compiles.log"; exit \$rc
SH
chmod +x "$tmp/cc"
limit=${CH_CC_COLD_LIMIT:-0}
t0=$(now)
CH_CC_TIMELINE=$tmp/j16.timeline CH_CC_CACHE_DIR=$tmp/jcache timeout "$limit" \
    make -s -C "$tmp/ed" -j16 CC="$tmp/cc" > "$tmp/j16.out" 2> "$tmp/j16.err"
rc=$?
t1=$(now)
if [ -n "${CH_CC_COLD_KEEP:-}" ]; then
    mkdir -p "$CH_CC_COLD_KEEP"
    cp "$tmp/j16.err" "$CH_CC_COLD_KEEP/"
    cp "$tmp/j16.timeline" "$CH_CC_COLD_KEEP/" 2>/dev/null
    awk -v t0="$t0" '{ printf "%7.1f %7.1f %d %s\n", $1 - t0, $2 - t0, $3, $NF }' \
        "$tmp/compiles.log" > "$CH_CC_COLD_KEEP/compiles.txt" 2>/dev/null
    (cd "$tmp/jcache" 2>/dev/null && find . -name report.json | tar czf "$CH_CC_COLD_KEEP/reports.tgz" -T -)
fi
j16=$(secs "$t0" "$t1")
nver=$(grep -c 'verified kernel linked' "$tmp/j16.err")
nhost=$(grep -c 'host path linked' "$tmp/j16.err")
echo "16 programs, make -j16, one fresh cache: $j16 s (exit $rc; $nver verified, $nhost host path)"
echo "  the same with plain gcc: $plain s; with plain nvcc: $plain_nvcc s (exit $nvcc_rc)"
# CH_CC_TIMELINE's lines: start, seconds, pid, entry, candidate, stage (0-5), status, waits
echo "  verification per stage in the -j16 build (seconds summed over candidates, runs):"
awk 'BEGIN { split("static compile smoke correctness sanitizer performance", name, " ") }
     { sum[$6] += $2; runs[$6]++ }
     END { for (i = 0; i <= 5; i++) if (runs[i]) printf "    %-12s %8.1f s %5d\n", name[i + 1], sum[i], runs[i] }' \
    "$tmp/j16.timeline" 2>/dev/null
python3 -c "print('  -j16 / slowest single measured: %.2fx (done when: at most 3x)' % (float('$j16') / max(float('$slowest'), 1e-9)))"
t0=$(now)
touch "$tmp/ed"/*.c
CH_CC_CACHE_DIR=$tmp/jcache make -s -C "$tmp/ed" -j16 CC="$bin" -B > /dev/null 2>&1
t1=$(now)
echo "  the rebuild from the cache (make -B -j16): $(secs "$t0" "$t1") s"
