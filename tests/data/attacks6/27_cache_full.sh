# The cache on a full file system (a 64 KiB tmpfs, filled): the build links the host path
# with warnings and exits 0. Needs root for mount; prints "skip" otherwise. $1 is ch-cc.
mkdir -p full
mount -t tmpfs -o size=64k tmpfs full 2>/dev/null || { echo "skip"; exit 0; }
mkdir -p full/cache
dd if=/dev/zero of=full/fill bs=1k count=200 2>/dev/null
CH_CC_CACHE_DIR=$PWD/full/cache CH_CC_PROVIDER=builtin "$1" -c saxpy.c -o t.o 2> full.err
echo "full=$?"
umount full
