#!/bin/sh
# make bench: every benchmark that exists for this machine, one section each (CH_CC_BENCHES
# names a subset; CH_CC_DISPATCH_DIR the files the dispatch check builds).
set -u
here=$(dirname "$0")
status=0
for b in ${CH_CC_BENCHES:-driver warm scan cache verify kernels copies speed cold dispatch}; do
    [ -f "$here/$b.sh" ] || continue
    echo "== $b"
    # dispatch: the dispatcher against the host path on a directory of annotated files
    # (CH_CC_DISPATCH_DIR; the everyday programs by default)
    args=
    [ "$b" = dispatch ] && args=${CH_CC_DISPATCH_DIR:-$here/../tests/data/everyday}
    sh "$here/$b.sh" $args || { echo "bench $b failed" >&2; status=1; }
done
exit $status
