# A FIFO where the cache keeps an entry's index, or its stats file: the build opens it without
# O_NONBLOCK and waits forever (a file:// remote refuses the same thing). Run in a copy of
# examples/saxpy after one builtin build filled $CH_CC_CACHE_DIR; $1 is ch-cc. Prints the exit
# status of each case (124: still waiting after 8 s).
key=$(cd "$CH_CC_CACHE_DIR" && ls -d [0-9a-f][0-9a-f]/* | head -1)
for what in index stats; do
    rm -rf "$CH_CC_CACHE_DIR.$what" && cp -r "$CH_CC_CACHE_DIR" "$CH_CC_CACHE_DIR.$what"
    case $what in
    index) f="$CH_CC_CACHE_DIR.$what/$key/index" ;;
    stats) f="$CH_CC_CACHE_DIR.$what/stats" ;;
    esac
    rm -f "$f" && mkfifo "$f"
    CH_CC_CACHE_DIR="$CH_CC_CACHE_DIR.$what" CH_CC_PROVIDER=none timeout 8 "$1" -c saxpy.c \
        -o "f.$what.o" 2> "f.$what.err"
    echo "$what=$?"
done
