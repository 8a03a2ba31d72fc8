#!/bin/bash
# Revoking a team key does not reach what it already signed: a reader trusts the team key (in
# a trusted_keys FILE), fetches a spec-only entry from a file:// remote (its model-written
# reference is the host path linked into the program), then removes the key from the file
# (the key leaked, or the entry is known bad). The next identical build is a direct-mode hit
# (the manifest keys trusted_keys' path, not the file's content) and a build with other flags
# is a local-cache hit on the copy fetched earlier: the revoked signer's reference is linked
# both times, no warning.
# A safe product must key direct mode on the trusted keys themselves and record who signed a
# local copy of a remote entry, refusing it (a miss, one warning) once that key is not trusted.
# Usage: 26_revoked_key_still_served.sh CH_CC SPEC_BUILD_SH WORKDIR
#   SPEC_BUILD_SH NAME CHECKLIST REF PROBE builds tests/integration/data/specdecl/axpy.c with
#   the fake model (as attacks_sixth.t's spec_build does) under the environment given.
CC=${1:-/work/main/build/bin/ch-cc}; SB=${2:-$(dirname "$0")/spec_build.sh}; W=${3:-$(mktemp -d)}
A7=$(cd "$(dirname "$0")" && pwd); H=$(cd "$A7/../../.." && pwd)
mkdir -p "$W/share" "$W/reader" && cd "$W" || exit 1
"$CC" --harness-keygen="$W/team" > /dev/null 2>&1; "$CC" --harness-keygen="$W/other" > /dev/null 2>&1
# the team's writer: builds axpy with the model, signs and uploads the entry
CH_CC_REMOTE=file://$W/share CH_CC_SIGN_KEY=$W/team/ch-cc-sign.key \
    CH_CC_TRUSTED_KEYS=$(cat team/ch-cc-sign.pub) \
    "$SB" w - "$A7/14_ref_adjacent_buffers.c" "$A7/14_probe_main.c" > /dev/null 2>&1
cp "$H/tests/integration/data/specdecl/axpy.c" "$A7/14_probe_main.c" reader/
cat team/ch-cc-sign.pub > trusted.txt
cd reader
export CH_CC_CACHE_DIR=$PWD/cache CH_CC_REMOTE=file://$W/share CH_CC_TRUSTED_KEYS=$W/trusted.txt
export CH_CC_PROVIDER=none
sleep 1.2
"$CC" -O2 -c axpy.c -o axpy.o 2>/dev/null              # remote hit, signed by the team key
printf '# team key revoked\n' > ../trusted.txt; cat ../other/ch-cc-sign.pub >> ../trusted.txt
rm -f axpy.o
"$CC" -O2 -c axpy.c -o axpy.o; echo "same command after revocation: rc=$?"
"$CC" 14_probe_main.c axpy.o -o p && ./p                  # safe: no such object or y3=7
rm -f axpy.o
"$CC" -O1 -c axpy.c -o axpy.o; echo "other flags after revocation: rc=$?"
"$CC" 14_probe_main.c axpy.o -o p && ./p
"$CC" --harness-stats | grep -E '^hits|remote_hits|remote_rejected|direct_hits'
