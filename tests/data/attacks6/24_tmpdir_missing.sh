# TMPDIR names a directory that does not exist (or a file): gcc falls back to /tmp and
# compiles; ch-cc fails the build of an annotated file. Run in a copy of examples/saxpy;
# $1 is ch-cc. Prints the exit status of each case.
: > not-a-dir
TMPDIR=/nonexistent/ch-cc-attack "$1" -c saxpy.c -o t1.o 2> t1.err; echo "missing=$?"
TMPDIR=$PWD/not-a-dir "$1" -c saxpy.c -o t2.o 2> t2.err; echo "file=$?"
TMPDIR=/nonexistent/ch-cc-attack gcc -c saxpy.c -o g.o 2> /dev/null; echo "gcc=$?"
