#!/bin/bash
# A cloned repository's own .ch-cc.conf (owned by the user who cloned it, so attacks7 #19's
# owner check passes) sets `arch = sm_52`: not refused as "runs a command / decides trust",
# not a cost ("only lower"), so it is honoured. Every candidate then fails stage 1 ("nvcc
# fatal: Unsupported gpu architecture") and with on_fail = fallback the user's kernels are
# silently replaced by the host path (one warning line per entry). An older-but-valid arch
# (sm_70 on an H100) would instead make every kernel run on PTX JIT / slower code.
# A safe product must not let a project file choose the target architecture (or only from the
# machine's own list), or must refuse it like the other settings that change what is linked.
# Usage: 34_project_conf_arch_takes_kernels.sh CH_CC SAXPY_DIR WORKDIR
CC=${1:-/work/main/build/bin/ch-cc}; SRC=${2:-/work/main/examples/saxpy}; W=${3:-$(mktemp -d)}
mkdir -p "$W" && cd "$W" || exit 1
git init -q . 2>/dev/null; cp "$SRC/saxpy.c" "$SRC/saxpy.h" .
printf 'arch = sm_52\n' > .ch-cc.conf
CH_CC_CACHE_DIR=$W/cache "$CC" -c saxpy.c -o saxpy.o 2>&1 | grep -o 'warning:.*' | cut -c1-200
# safe: the setting is ignored with a warning; observed: candidates fail to compile, host path linked
