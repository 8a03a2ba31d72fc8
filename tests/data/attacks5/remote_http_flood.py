#!/usr/bin/env python3
"""attacks5 remote_http_flood: a hostile http:// remote. Every GET is answered 200 with a chunked
body (no Content-Length, so curl cannot refuse it up front) of SIZE_MB megabytes of an archive-
like prefix then garbage, gzip-labelled; HEAD/PUT succeed. ch-cc must stop at remote_max_size
and keep building. usage: remote_http_flood.py PORT_FILE SIZE_MB"""
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_GET(self):
        self.send_response(200)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Content-Encoding", "gzip")
        self.end_headers()
        chunk = b"ch-cc-index 1\n" + b"A" * (1 << 20)
        try:
            for _ in range(int(sys.argv[2])):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.write(b"0\r\n\r\n")
        except OSError:
            pass
        self.close_connection = True

    def do_HEAD(self):
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_PUT(self):
        n = int(self.headers.get("Content-Length", 0))
        self.rfile.read(n)
        self.send_response(201)
        self.send_header("Content-Length", "0")
        self.end_headers()


s = ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.serve_forever()
