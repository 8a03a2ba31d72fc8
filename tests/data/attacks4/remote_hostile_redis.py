#!/usr/bin/env python3
# poisoned redis remote: answers every command with MODE: biglen (a bulk string announcing 2^62 bytes, then a few), negative (a bulk length of -99), deep (an array of 10^7 nested arrays), slow (one byte of a valid reply a second), trickle (answers STRLEN with 1000000 and GETRANGE with a bulk string of that length, one byte every 2 s: each read is within a per-read timeout, the whole never ends); usage: remote_hostile_redis.py MODE PORTFILE
import socket, sys, threading, time

mode, portfile = sys.argv[1], sys.argv[2]

def serve(c):
    try:
        while True:
            d = c.recv(65536)
            if not d:
                return
            if mode == "biglen":
                c.sendall(b"$4611686018427387904\r\nabc")
            elif mode == "negative":
                c.sendall(b"$-99\r\n")
            elif mode == "deep":
                c.sendall(b"*1\r\n" * 10000000)
            elif mode == "trickle":
                if b"STRLEN" in d.upper():
                    c.sendall(b":1000000\r\n")
                    continue
                c.sendall(b"$1000000\r\n")
                while True:
                    c.sendall(b"x")
                    time.sleep(2)
            elif mode == "slow":
                for b in b"$5\r\nhello\r\n":
                    c.sendall(bytes([b]))
                    time.sleep(1)
    except OSError:
        pass
    finally:
        c.close()

s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(16)
open(portfile, "w").write("%d\n" % s.getsockname()[1])
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
