#!/bin/bash
# Long fuzzing: every built libFuzzer target (build/fuzz/fuzz_*, from `make fuzz-build`) runs at
# once, one process each, for SECONDS from its seeds (tests/fuzz/seeds/<target>/).
#   tests/fuzz/run-long.sh SECONDS [OUTDIR]
# OUTDIR (default build/fuzz/long) receives
#   summary.txt          one line per target: target, execs, crashes, new corpus size, status
#   crash/<target>/      every crashing, leaking, hanging or out-of-memory input
#   log/<target>.log     libFuzzer's output
# and the corpus each target grew, under corpus/<target>/ (FUZZ_CORPUS=DIR puts it elsewhere, so
# that a second run, e.g. on a machine that caps one command's time, continues from the first).
# Exit 0 when no target found anything, 1 when one did (fix the parser, then add the input to
# tests/fuzz/regress/<target>/), 2 on bad usage or when no target is built. FUZZ_BUILD names the
# directory of the binaries; FUZZ_FLAGS replaces the libFuzzer options below.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-}
case "$seconds" in
'' | *[!0-9]*)
    echo "usage: $0 SECONDS [OUTDIR]" >&2
    exit 2
    ;;
esac
out=${2:-$top/build/fuzz/long}
bin_dir=${FUZZ_BUILD:-$top/build/fuzz}
corpus_root=${FUZZ_CORPUS:-$out/corpus}
flags=${FUZZ_FLAGS:--max_len=4096 -timeout=10 -rss_limit_mb=2048}

targets=()
for b in "$bin_dir"/fuzz_*; do
    [ -x "$b" ] && [ -f "$b" ] && targets+=("$(basename "$b")")
done
if [ ${#targets[@]} -eq 0 ]; then
    echo "run-long: no fuzz target in $bin_dir (make fuzz-build)" >&2
    exit 2
fi
mkdir -p "$out/log" "$out/crash" "$corpus_root" || exit 2

pids=()
for b in "${targets[@]}"; do
    t=${b#fuzz_}
    mkdir -p "$out/crash/$t" "$corpus_root/$t"
    seeds=()
    [ -d "$top/tests/fuzz/seeds/$t" ] && seeds+=("$top/tests/fuzz/seeds/$t")
    # the outer timeout only guards against a fuzzer that ignores max_total_time
    # shellcheck disable=SC2086
    timeout -k 10 $((seconds + 120)) "$bin_dir/$b" -max_total_time="$seconds" $flags \
        -print_final_stats=1 -artifact_prefix="$out/crash/$t/" \
        "$corpus_root/$t" "${seeds[@]}" >"$out/log/$t.log" 2>&1 &
    pids+=($!)
done

found=0
: >"$out/summary.txt"
printf '%-10s %12s %8s %11s  %s\n' target execs crashes new_corpus status | tee -a "$out/summary.txt"
for i in "${!targets[@]}"; do
    wait "${pids[$i]}"
    rc=$?
    t=${targets[$i]#fuzz_}
    log="$out/log/$t.log"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    crashes=$(find "$out/crash/$t" -type f ! -name 'slow-unit-*' | wc -l)
    corpus=$(find "$corpus_root/$t" -type f | wc -l)
    status=ok
    if [ "$crashes" -gt 0 ]; then
        status="found ($(find "$out/crash/$t" -type f ! -name 'slow-unit-*' -printf '%f ' |
            sed 's/ $//'))"
    elif [ $rc -ne 0 ]; then
        status="exit $rc (see log/$t.log)"
    fi
    [ "$status" = ok ] || found=1
    printf '%-10s %12s %8s %11s  %s\n' "$t" "${execs:-?}" "$crashes" "$corpus" "$status" |
        tee -a "$out/summary.txt"
done
exit $found
