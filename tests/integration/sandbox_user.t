#!/bin/bash
# The verification sandbox as an ordinary user: test_sandbox's attacks (reading the hidden
# expected outputs directly and through /proc/PID/root, seeing or signalling processes outside
# the run's PID namespace, writing $HOME or the cache, 127.0.0.1, fork/exec, ptrace) run again
# as nobody, where the namespaces come from a user namespace instead of root's privileges. Each
# must be contained, or come with the failed step reported (never silently). As a user, make
# check's own run of test_sandbox already is this run.
. "$(dirname "$0")/../lib/tap.sh"
unit="${CH_CC_TEST_BUILD:-$CH_CC_SRC/build/asan}/tests/unit/test_sandbox"
[ -x "$unit" ] || skip_all "test_sandbox not built (make asan)"
[ "$(id -u)" = 0 ] || skip_all "not root: test_sandbox itself runs as this user"
command -v setpriv >/dev/null || skip_all "setpriv (util-linux) not installed"
# nobody must reach the binary, the sources (the hostile program is compiled from them) and a
# temporary directory of its own
for p in "$unit" "$CH_CC_SRC/tests/unit/data/sandbox_hostile.c"; do
    setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$p" ||
        skip_all "nobody cannot read $p (a private checkout)"
done
tmp=$(mktemp -d /tmp/ch-cc-sandbox-user.XXXXXX)
chown 65534:65534 "$tmp"
trap 'rm -rf "$tmp"; _tap_cleanup' EXIT
out=$(cd "$tmp" && setpriv --reuid=65534 --regid=65534 --clear-groups \
    env HOME="$tmp" TMPDIR="$tmp" CH_CC_SRC="$CH_CC_SRC" ASAN_OPTIONS="${ASAN_OPTIONS:-}" \
    "$unit" --verbose 2>&1)
rc=$?
is "$rc" 0 "test_sandbox passes as nobody" || diag "$(printf '%s\n' "$out" | grep -A3 'FAIL\|Assertion' | head -30)"
like "$out" "PASS\\] sandbox::proc_lists_only_its_own_processes" "as nobody: /proc shows only the run's processes"
like "$out" "PASS\\] sandbox::cannot_signal_the_parent" "as nobody: the parent cannot be signalled"
like "$out" "PASS\\] sandbox::cannot_read_them_through_the_parents_root" \
    "as nobody: the expected outputs stay closed through /proc/PID/root"
like "$out" "PASS\\] sandbox::exit_code_and_signal_pass_through" "as nobody: exit codes and signals pass through"
like "$out" "PASS\\] sandbox::gpu_run_reaches_no_outside_unix_socket" \
    "as nobody: a GPU run reaches no unix socket in a temporary directory, /tmp or /dev/shm"
like "$out" "PASS\\] sandbox::cpu_run_has_no_sockets" "as nobody: a run without the GPU has no socket"
like "$out" "PASS\\] sandbox::compiler_cannot_write_home" "as nobody: a sandboxed compile cannot write \$HOME"
done_testing
