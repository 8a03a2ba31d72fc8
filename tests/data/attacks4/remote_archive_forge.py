#!/usr/bin/env python3
# poisoned remote: rewrites a signed entry archive keeping its signature: dup (a second 'file' line for kernel.cu with other bytes), extra (an objects/<32 hex>.o file added inside the archive), meta (a meta status=verified line added), huge (a file line announcing 2^62 bytes), deep (a file name of 4000 nested directories); the index checksum is recomputed (XXH3 through libxxhash), so only the signature can tell
import sys

def xxh3_64(data):
    import ctypes, ctypes.util
    lib = ctypes.CDLL(ctypes.util.find_library("xxhash") or "libxxhash.so.0")
    lib.XXH3_64bits.restype = ctypes.c_uint64
    lib.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    return "%016x" % lib.XXH3_64bits(data, len(data))

def split(arch):
    pos = 0
    lines = []
    while True:
        nl = arch.index(b"\n", pos)
        line = arch[pos:nl]
        lines.append(line)
        pos = nl + 1
        if line.startswith(b"end "):
            return lines[:-1], arch[pos:]

def join(lines, body):
    head = b"".join(l + b"\n" for l in lines)
    return head + b"end " + xxh3_64(head).encode() + b"\n" + body

def main():
    src, dst, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    payload = open(sys.argv[4], "rb").read() if len(sys.argv) > 4 else b"// payload\n"
    lines, body = split(open(src, "rb").read())
    if mode == "dup":
        lines.append(b"file %d %s kernel.cu" % (len(payload), xxh3_64(payload).encode()))
        body += payload
    elif mode == "extra":
        lines.append(b"file %d %s objects/0123456789abcdef0123456789abcdef.o" % (len(payload), xxh3_64(payload).encode()))
        body += payload
    elif mode == "meta":
        lines.insert(3, b"meta status=verified")
    elif mode == "huge":
        lines.append(b"file 4611686018427387904 0000000000000000 big.bin")
    elif mode == "deep":
        name = b"/".join([b"d"] * 4000) + b"/f"
        lines.append(b"file %d %s %s" % (len(payload), xxh3_64(payload).encode(), name))
        body += payload
    open(dst, "wb").write(join(lines, body))

main()
