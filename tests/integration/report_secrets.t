#!/bin/bash
# Keys and secrets never reach a report, a page or the cache (issue 18): a build that really
# uses an API key (from OPENAI_API_KEY, then from the user's config), a signing key and a remote
# token, with report_dir set; then every file the build, --harness-report and --harness-explain
# leave behind (cache entries, manifests, the remote's archives, pages, objects, printed text) is
# searched for each secret, in text, hex and raw bytes. Also: --harness-explain by the function's
# name after a plain build.
. "$(dirname "$0")/../lib/tap.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
if have_gpu; then skip_all "a GPU is present: the entry would verify (the scan is the same)"; fi
cd "$TEST_DIR"
export HOME="$TEST_DIR/home" XDG_CONFIG_HOME="$TEST_DIR/home/.config"
mkdir -p "$XDG_CONFIG_HOME/ch-cc" share
env_key="sk-h3-env-SECRET-c0ffee1234"
config_key="sk-h3-config-SECRET-7f3a9c5678"
token="tok-h3-remote-SECRET-51d2"
"$CH_CC_BIN" --harness-keygen="$TEST_DIR/keys" > keygen.out
ok $? "a signing key pair is made"
sign_key="$TEST_DIR/keys/ch-cc-sign.key"
config() { # the user's own config: the signing key, the remote and its token (+ lines given)
    {
        echo "sign_key = $sign_key"
        echo "trusted_keys = $TEST_DIR/keys/ch-cc-sign.pub"
        echo "remote = file://$TEST_DIR/share"
        echo "remote_token = $token"
        printf '%s\n' "$@"
    } > "$XDG_CONFIG_HOME/ch-cc/config"
}
cp "$CH_CC_SRC"/tests/integration/data/specdecl/{axpy.c,main.c,script.py} .
python3 script.py script.json "$CH_CC_SRC/tests/gpu/llm/saxpy_right.cu"
export CH_CC_PROVIDER=openai CH_CC_MODEL=fake CH_CC_REPORT_DIR="$TEST_DIR/pages"
unset CH_CC_API_KEY ANTHROPIC_API_KEY
build() { # NAME: one build against a fresh fake model, its requests in NAME.jsonl
    python3 "$CH_CC_SRC/tests/fakes/fake_llm.py" --script script.json --record "$1.jsonl" \
        --port 0 --port-file "$1.port" > /dev/null 2>&1 &
    local pid=$!
    for _ in $(seq 300); do [ -s "$1.port" ] && break; sleep 0.1; done
    CH_CC_API_BASE="http://127.0.0.1:$(cat "$1.port")/v1" "$CH_CC_BIN" -O2 -c axpy.c -o "$1.o" 2> "$1.err"
    local status=$?
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return $status
}
auth_of() { python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).readline())['headers'].get('authorization', ''))" "$1"; }

# ---- the key from the environment, then from the config --------------------------------------
config
OPENAI_API_KEY="$env_key" build env
ok $? "a build asking the model with OPENAI_API_KEY succeeds"
is "$(auth_of env.jsonl)" "Bearer $env_key" "the model was asked with the environment's key"
ls share/* > /dev/null 2>&1; ok $? "the signed entry went to the remote"
cp -r share share-env
# nothing cached, here or on the remote: the second build asks the model again
"$CH_CC_BIN" --harness-clean > /dev/null
rm -rf share/*
config "api_key = $config_key"
OPENAI_API_KEY="$env_key" build conf
ok $? "a build with api_key in the user's config succeeds"
is "$(auth_of conf.jsonl)" "Bearer $config_key" "the model was asked with the config's key"
[ -s pages/axpy.c.html ]; ok $? "the build wrote its report page (report_dir)"

# ---- explain by name after a plain build; the report page -----------------------------------
"$CH_CC_BIN" --harness-explain axpy > explain.out 2> explain.err
ok $? "--harness-explain axpy (the function's name) after the build"
like "$(head -2 explain.out | tr '\n' ' ')" "^key +[0-9a-f]{32} name +axpy" "it explains that entry"
"$CH_CC_BIN" --harness-report="$TEST_DIR/report" axpy.c > report.out 2>&1
ok $? "--harness-report writes the page"
"$CH_CC_BIN" --harness-config > config.out 2>&1
"$CH_CC_BIN" --harness-stats > stats.out 2>&1

# ---- no secret anywhere ---------------------------------------------------------------------
# scan.py KEY_FILE SECRET... -- ROOT...: "FOUND WHAT in FILE" for every secret in any file under
# the roots, then "scanned N"
cat > scan.py <<'PY'
import binascii, os, sys
args = sys.argv[1:]
cut = args.index("--")
key_file, texts, roots = args[0], args[1:cut], args[cut + 1:]
seed_hex = open(key_file).read().strip()[:64]  # the secret half of the Ed25519 key
needles = {t: t.encode() for t in texts}
needles["signing key (hex)"] = seed_hex.encode()
needles["signing key (HEX)"] = seed_hex.upper().encode()
needles["signing key (bytes)"] = binascii.unhexlify(seed_hex)
files = 0
for root in roots:
    paths = [root] if os.path.isfile(root) else [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs]
    for p in paths:
        data = open(p, "rb").read()
        files += 1
        for name, needle in needles.items():
            if needle in data:
                print("FOUND", name, "in", p)
print("scanned", files)
PY
secrets=("$sign_key" "$env_key" "$config_key" "$token")
# the scan finds what is there: the user's config and key file hold the secrets
printf '%s\n' "$env_key" > env.txt
python3 scan.py "${secrets[@]}" -- "$XDG_CONFIG_HOME" keys env.txt > control.out
is "$(grep -c '^FOUND' control.out)" 4 "the scan finds each secret where it is kept (config, key, token, env)"
python3 scan.py "${secrets[@]}" -- "$CH_CC_CACHE_DIR" share share-env pages report env.o conf.o \
    explain.out explain.err report.out config.out stats.out env.err conf.err > scan.out
ok $? "the scan of what the builds left ran"
[ "$(tail -1 scan.out | cut -d' ' -f2)" -ge 10 ]
ok $? "cache entries, manifests, archives, pages, objects and outputs ($(tail -1 scan.out))"
grep -q '^FOUND' scan.out; is $? 1 "no key, token or signing key in any of them"
grep '^FOUND' scan.out | sed 's/^/# /'
done_testing
