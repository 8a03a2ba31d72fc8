# -o names the input through a symlink or a hard link: refused as gcc refuses it, the source
# intact. $1 is ch-cc; run in a copy of examples/saxpy.
cp saxpy.c saxpy.c.orig
ln -sf saxpy.c alias.c
ln -f saxpy.c hard.c
CH_CC_PROVIDER=none "$1" -c saxpy.c -o alias.c 2> s.err; echo "symlink=$?"
CH_CC_PROVIDER=none "$1" -c saxpy.c -o hard.c 2> h.err; echo "hardlink=$?"
cmp -s saxpy.c saxpy.c.orig; echo "intact=$?"
