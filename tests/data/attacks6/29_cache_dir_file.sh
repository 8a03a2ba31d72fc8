# The cache directory is a regular file, or /dev/null: the build links the host path with one
# warning and exits 0. $1 is ch-cc.
echo garbage > cfile
CH_CC_CACHE_DIR=$PWD/cfile CH_CC_PROVIDER=none "$1" -c saxpy.c -o t1.o 2> file.err; echo "file=$?"
CH_CC_CACHE_DIR=/dev/null CH_CC_PROVIDER=none "$1" -c saxpy.c -o t2.o 2> null.err; echo "null=$?"
