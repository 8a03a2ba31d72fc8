# The shared part of the CPU emulation scenarios (tests/integration/*_emu.t): a translator
# variant's kernel, as printed, compiled as C++20 against tests/lib/cuda_block_emu.h and run on
# the CPU. Sourced first by each such script: TAP (tap.sh), a skip where g++ cannot build the
# stand-in (it needs C++20's <barrier>), $bin (the release ch-cc when built: proposing is
# slow under the sanitizers), the working directory $TEST_DIR, and the helpers below.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
command -v g++ >/dev/null || skip_all "g++ not installed"
echo '#include <barrier>' | g++ -std=c++20 -x c++ -fsyntax-only - 2>/dev/null ||
    skip_all "g++ has no C++20 <barrier>"
bin="${CH_CC_REL_BIN:-$CH_CC_BIN}"
cd "$TEST_DIR" || exit 1

# emu_variant DIR V: the first candidate of --harness-propose=DIR made by translator variant V
# (its first line names it), or nothing
emu_variant() { grep -l "^/\* ch-cc translator variant $2:" "$1"/*.cu 2>/dev/null | head -1; }
# emu_kernels FILE: the __global__ functions of a candidate, as printed
emu_kernels() { awk '/^__global__/, /^}/' "$1"; }
# emu_within WORST TOL: 0 when the worst relative error printed by a run is a number <= TOL
emu_within() { awk -v w="$1" -v t="$2" 'BEGIN { exit !(w != "" && w + 0 <= t + 0) }'; }
