#!/bin/sh
# make bench: every benchmark that exists for this machine, one section each.
set -u
here=$(dirname "$0")
status=0
for b in driver scan cache verify kernels; do
    [ -f "$here/$b.sh" ] || continue
    echo "== $b"
    sh "$here/$b.sh" || { echo "bench $b failed" >&2; status=1; }
done
exit $status
