#!/bin/sh
# make bench: every benchmark that exists for this machine, one section each (CH_CC_BENCHES
# names a subset).
set -u
here=$(dirname "$0")
status=0
for b in ${CH_CC_BENCHES:-driver warm scan cache verify kernels speed cold}; do
    [ -f "$here/$b.sh" ] || continue
    echo "== $b"
    sh "$here/$b.sh" || { echo "bench $b failed" >&2; status=1; }
done
exit $status
