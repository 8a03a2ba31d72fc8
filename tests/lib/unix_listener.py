#!/usr/bin/env python3
"""Listening AF_UNIX sockets that a sandboxed program must not reach (attacks_heldout.t).

usage: unix_listener.py LOG PATH...

Binds a socket at each PATH it can (0777: only the sandbox may refuse a connection, never the
file's mode), checks each with a connection of its own, and writes to LOG "listening PATH" for
each, then "ready"; from then on "connected PATH DATA" for every connection, until killed."""
import os
import select
import socket
import sys


def listen(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    os.chmod(path, 0o777)
    s.listen(8)
    control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    control.connect(path)
    s.accept()[0].close()
    control.close()
    return s


def main():
    log = open(sys.argv[1], "a", buffering=1)
    listeners = {}
    for path in sys.argv[2:]:
        try:
            listeners[listen(path)] = path
            log.write("listening %s\n" % path)
        except OSError as e:  # /run as a user
            log.write("skipped %s: %s\n" % (path, e))
    log.write("ready\n")
    while listeners:
        for s in select.select(list(listeners), [], [])[0]:
            conn = s.accept()[0]
            conn.settimeout(1)
            try:
                data = conn.recv(64)
            except OSError:
                data = b""
            log.write("connected %s %r\n" % (listeners[s], data))
            conn.close()


if __name__ == "__main__":
    main()
