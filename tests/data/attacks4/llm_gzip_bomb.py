#!/usr/bin/env python3
# model server: answers every chat request with 1 GiB of spaces gzip-compressed (about 1 MiB on the wire, sent with a gzip Content-Encoding header), so a client that accepts gzip and keeps the whole reply in memory holds 1 GiB
import gzip, io, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

def bomb(total=1 << 30):
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9) as g:
        chunk = b" " * (1 << 20)
        for _ in range(total >> 20):
            g.write(chunk)
    return buf.getvalue()

BODY = bomb(int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 30)

class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        try:
            self.wfile.write(BODY)
        except OSError:
            pass

srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write("%d\n" % srv.server_address[1])
srv.serve_forever()
