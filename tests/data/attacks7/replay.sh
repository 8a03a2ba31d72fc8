#!/bin/bash
# Replays attacks7 (no GPU needed): candidates through --harness-verify against examples/saxpy
# (exit 3 = pending: passed stages 0-1), references/checklists through spec_build.sh, and the
# shell attacks. Usage: replay.sh [CH_CC] [WORKDIR]; two processes at a time at most.
A7=$(cd "$(dirname "$0")" && pwd); H=$(cd "$A7/../../.." && pwd)
CC=${1:-/work/main/build/bin/ch-cc}; W=${2:-$(mktemp -d)}; export CH_CC_REL=$CC SB_DIR=$W
one() { d=$W/v.$(basename "$1" .cu); mkdir -p "$d"; cp "$H/examples/saxpy/saxpy.c" "$H/examples/saxpy/saxpy.h" "$d/"
    (cd "$d" && ulimit -v 6000000 && CH_CC_CACHE_DIR=$d/cache timeout 300 "$CC" --harness-verify="$1" saxpy.c > out 2> err
     echo "$(basename "$1") rc=$? $(grep '^message:' out | cut -c1-160)"); }
export -f one; export W CC H
ls "$A7"/[0-9]*.cu | xargs -P2 -I{} bash -c 'one {}'
for r in 14_ref_adjacent_buffers 15_ref_size_threshold 16_ref_out_of_range_value 30_ref_ftz_trigger 31_ref_quadratic_hang; do
    n=${r%%_*}; "$A7/spec_build.sh" "$n" - "$A7/$r.c" "$A7/${n}_probe_main.c"; done
for c in 17_checklist_two_value_ranges 18_checklist_half_extent 27_checklist_duplicate_keys; do
    "$A7/spec_build.sh" "${c%%_*}" "$A7/$c.json" "$H/tests/data/attacks6/00_axpy_reference.c"; done
for s in 11 12 13 19; do "$A7/${s}_"*.sh "$CC" "$H/examples/saxpy" "$W/a$s"; done
"$A7/26_revoked_key_still_served.sh" "$CC" "$A7/spec_build.sh" "$W/a26"
