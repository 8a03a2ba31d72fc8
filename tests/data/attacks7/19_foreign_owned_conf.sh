#!/bin/bash
# A .ch-cc.conf owned by ANOTHER user in a world-writable parent directory (a shared /tmp, a
# scratch area) is honoured for every project below it: the upward search takes the first
# .ch-cc.conf it meets, whoever owns it (git refuses such a directory since CVE-2022-24765:
# safe.directory). Here `on_fail = error` (allowed: "only stricter") makes every build of the
# victim fail; `provider = none` / `offline = on` would silently take its kernels away.
# A safe product must ignore (with a warning) a .ch-cc.conf not owned by the user or root, or
# one in a directory others may write.
# Usage (as root, to chown the planted file): 19_foreign_owned_conf.sh CH_CC SAXPY_DIR WORKDIR
CC=${1:-/work/main/build/bin/ch-cc}; SRC=${2:-/work/main/examples/saxpy}; W=${3:-$(mktemp -d)}
mkdir -p "$W/shared" && chmod 1777 "$W/shared" && cd "$W/shared" || exit 1
printf 'on_fail = error\n' > .ch-cc.conf
chown nobody .ch-cc.conf 2>/dev/null || echo "skip: cannot chown (not root)"
mkdir -p proj && cp "$SRC/saxpy.c" "$SRC/saxpy.h" proj/ && cd proj
CH_CC_CACHE_DIR=$W/cache "$CC" --harness-config 2>&1 | grep on_fail
CH_CC_CACHE_DIR=$W/cache "$CC" -O2 -c saxpy.c -o saxpy.o; echo "rc=$?"   # safe: 0 (conf ignored)
