#!/bin/bash
# Regenerates the seeds of the sign fuzz target (tests/fuzz/seeds/sign/) from real entries: the
# cache store writes and signs an entry (tests/fakes/cache_torture put, sign_key = the fuzz
# writer's key from fuzz_sign.c) to a local store (tests/lib/remote_store.py), and each seed is
# that archive behind the target's mode byte: as signed (objects vouched), with a file swapped
# after signing and stripped of its signature (remote_forge), and a trusted_keys list.
#   tests/fuzz/sign-seeds.sh [FAKES_DIR]     (default build/asan/tests/fakes: make asan)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
fakes=${1:-$top/build/asan/tests/fakes}
out=$top/tests/fuzz/seeds/sign
work=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
key=0123456789abcdef0123456789abcdef
sed -n 's/^ *"\([0-9a-f]\{64\}\)".*/\1/p' "$top/tests/fuzz/fuzz_sign.c" | tr -d '\n' >"$work/writer.key"
[ "$(wc -c <"$work/writer.key")" = 128 ] || { echo "sign-seeds: no key in fuzz_sign.c" >&2; exit 1; }
export ASAN_OPTIONS=detect_leaks=0

mkdir -p "$work/www"
python3 "$top/tests/lib/remote_store.py" "$work/www" >"$work/port" &
server=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")

CH_CC_CACHE_DIR="$work/cache" CH_CC_REMOTE="http://127.0.0.1:$port/" \
    CH_CC_SIGN_KEY="$work/writer.key" CH_CC_TRUSTED_KEYS= "$fakes/cache_torture" put $key >/dev/null
archive="$work/www/${key:0:2}/${key:2}.char"
[ -s "$archive" ] || { echo "sign-seeds: the store PUT nothing" >&2; exit 1; }
printf '// swapped after signing\n' >"$work/evil.cu"
"$fakes/remote_forge" "$archive" "$work/swapped" $key $key keep kernel.cu="$work/evil.cu"
"$fakes/remote_forge" "$archive" "$work/unsigned" $key $key strip

mkdir -p "$out"
seed() { { printf "$1"; cat "$2"; } >"$out/$3"; }
seed '\000' "$archive" signed-entry
seed '\004' "$archive" signed-entry-resign-objects
seed '\001' "$work/swapped" swapped-entry
seed '\000' "$work/unsigned" unsigned-entry
printf '\002# team writers\n%s, %s\n' "$(head -c 64 "$work/writer.key")" \
    "$(tail -c 64 "$work/writer.key")" >"$out/trusted-keys"
ls -l "$out"
