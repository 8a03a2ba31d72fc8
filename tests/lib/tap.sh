# TAP helpers for end-to-end scenarios (sourced by tests/*/*.t, which run under bash).
# Each scenario runs the real ch-cc ($CH_CC_BIN, the sanitizer build under make check) in a
# fresh temporary directory, which is removed at exit unless CH_CC_TEST_KEEP=1.
set -u
: "${CH_CC_SRC:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${CH_CC_BIN:=$CH_CC_SRC/build/asan/bin/ch-cc}"
export PATH="$PATH:/usr/local/cuda/bin"
_tap_n=0
_tap_failed=0
TEST_DIR=$(mktemp -d "${TMPDIR:-/tmp}/ch-cc-test.XXXXXX")
export CH_CC_CACHE_DIR="$TEST_DIR/.cache"
_tap_cleanup() { [ "${CH_CC_TEST_KEEP:-0}" = 1 ] || rm -rf "$TEST_DIR"; }
trap _tap_cleanup EXIT

plan() { echo "1..$1"; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }
ok() { # ok CONDITION_STATUS NAME
    _tap_n=$((_tap_n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $_tap_n - $2"; else echo "not ok $_tap_n - $2"; _tap_failed=1; fi
}
pass() { ok 0 "$1"; }
fail() { ok 1 "$1"; }
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1 # SKIP $2"; }
# is ACTUAL EXPECTED NAME
is() {
    if [ "$1" = "$2" ]; then ok 0 "$3"; else ok 1 "$3"; diag "got:      $1" "expected: $2"; fi
}
# like TEXT REGEX NAME
like() {
    if printf '%s' "$1" | grep -Eq -- "$2"; then ok 0 "$3"; else ok 1 "$3"; diag "text: $1" "does not match: $2"; fi
}
# files_same A B NAME
files_same() {
    if cmp -s "$1" "$2"; then ok 0 "$3"; else ok 1 "$3"; diag "$1 and $2 differ"; fi
}
have_gpu() { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; }
# A GPU scenario on a machine without one: skipped under make check, a failure under
# make check-gpu (CH_CC_REQUIRE_GPU=1).
require_gpu() {
    if ! have_gpu; then
        if [ "${CH_CC_REQUIRE_GPU:-0}" = 1 ]; then echo "1..1"; echo "not ok 1 - no GPU present"; exit 1; fi
        skip_all "no CUDA device on this machine"
    fi
}
done_testing() { echo "1..$_tap_n"; exit $_tap_failed; }
