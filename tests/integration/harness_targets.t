#!/bin/bash
# Target architectures: --harness-list and the build key an entry by the same architectures for
# the same command line (nvcc's meaning of -arch, -code and -gencode; order does not matter), so
# the key --harness-list prints is the cache entry the build creates. Each build runs in a fresh
# CH_CC_CACHE_DIR and must create exactly the entry listed: a pending one for a body the builtin
# agent translates (its candidate compiled by nvcc for the target), a refusal for one it cannot
# translate (no nvcc run: the cheap way through the remaining command lines).
. "$(dirname "$0")/../lib/tap.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
export CH_CC_BUDGET=1 # one candidate per generation keeps the nvcc time down
cd "$TEST_DIR"
printf '#pragma harness\nvoid twice(int n, float *v)\n{\n    for (int i = 0; i < n; i++)\n        v[i] = 2.0f * v[i];\n}\n' > twice.c
cat > prefix.c <<'EOF'
#pragma harness
void prefix(int n, const float *x, float *s)
{
    s[0] = x[0];
    for (int i = 1; i < n; i++)
        s[i] = s[i - 1] + x[i];
}
EOF
listed_key() { "$CH_CC_BIN" --harness-list "$@" | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['key'])"; }
declare -A key=()
builds=0

# agree FILE NAME OPTIONS...: the key --harness-list prints is the entry the build creates
agree() {
    local file=$1 name=$2
    shift 2
    builds=$((builds + 1))
    export CH_CC_CACHE_DIR="$TEST_DIR/cache-$builds"
    local listed built
    listed=$(listed_key "$@" "$file")
    "$CH_CC_BIN" "$@" -c "$file" -o out.o 2> build.err
    ok $? "$name: the build succeeds"
    built=$(cd "$CH_CC_CACHE_DIR" 2>/dev/null && ls -d [0-9a-f][0-9a-f]/* 2>/dev/null | tr -d / | tr '\n' ' ')
    is "$built" "$listed " "$name: list and build agree on the key"
    key[$name]=$listed
}

agree twice.c "-arch=compute_80" -arch=compute_80
if ! have_gpu; then
    like "$(cat build.err)" "1 candidate wait in the cache" "the entry is pending: its candidate compiled"
fi
agree twice.c "gencode 80->86" -gencode arch=compute_80,code=sm_86
agree prefix.c "-arch=sm_80" -arch=sm_80
agree prefix.c "-arch=compute_80 (refused body)" -arch=compute_80
agree prefix.c "-arch compute_80" -arch compute_80
agree prefix.c "gencode 80->86 (refused body)" -gencode arch=compute_80,code=sm_86
agree prefix.c "-arch=compute_80 -code=sm_86" -arch=compute_80 -code=sm_86
agree prefix.c "gencode 80 then 90" -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90
agree prefix.c "gencode 90 then 80" -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=sm_80
agree prefix.c "gencode code list" "-gencode=arch=compute_80,code=[sm_90,compute_80]"
agree prefix.c "no architecture option" -O2
CH_CC_ARCH=compute_86 agree prefix.c "CH_CC_ARCH=compute_86" -O2

is "${key[-arch=compute_80 (refused body)]}" "${key[-arch=sm_80]}" \
    "-arch=compute_80 targets sm_80: the same key as -arch=sm_80"
is "${key[-arch compute_80]}" "${key[-arch=sm_80]}" "the separate-argument form is the same"
is "${key[gencode 90 then 80]}" "${key[gencode 80 then 90]}" \
    "the order of -gencode options does not change the key"
is "${key[gencode code list]}" "${key[gencode 80 then 90]}" \
    "code=[sm_90,compute_80] targets sm_80 and sm_90, as two -gencode do"
is "${key[-arch=compute_80 -code=sm_86]}" "${key[gencode 80->86 (refused body)]}" \
    "-arch=compute_80 -code=sm_86 targets sm_86 only, as -gencode arch=compute_80,code=sm_86"
[ "${key[gencode 80->86 (refused body)]}" != "${key[-arch=sm_80]}" ]
ok $? "code=sm_86 is another target than sm_80"
is "$("$CH_CC_BIN" --harness-args -gencode arch=compute_80,code=sm_86 -arch=compute_75 -code=compute_75 twice.c |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["archs"])')" "['sm_75', 'sm_86']" \
    "--harness-args shows the targets, sorted by number"
done_testing
