#!/usr/bin/env python3
# poisoned http remote: every GET answered per MODE: slow (200, Content-Length 1 MiB, one byte a second), endless (200, chunked, zeros without end), redirect (302 to a second listener on PORT2 that records the Authorization header it receives), huge_header (200 with a 1 MiB header line); usage: remote_hostile_http.py MODE PORTFILE [LOGFILE]
import socket, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

mode, portfile = sys.argv[1], sys.argv[2]
log = sys.argv[3] if len(sys.argv) > 3 else None

class Catch(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        with open(log, "a") as f:
            f.write("GOT %s auth=%s\n" % (self.path, self.headers.get("Authorization")))
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()
    do_HEAD = do_GET

catcher = ThreadingHTTPServer(("127.0.0.1", 0), Catch)
threading.Thread(target=catcher.serve_forever, daemon=True).start()

class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def do_GET(self):
        try:
            if mode == "slow":
                self.send_response(200)
                self.send_header("Content-Length", str(1 << 20))
                self.end_headers()
                for _ in range(1 << 20):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(1)
            elif mode == "endless":
                self.send_response(200)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                chunk = b"\0" * (1 << 20)
                while True:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            elif mode == "redirect":
                self.send_response(302)
                self.send_header("Location", "http://127.0.0.1:%d%s" % (catcher.server_address[1], self.path))
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif mode == "huge_header":
                self.send_response(200)
                self.send_header("X-Junk", "a" * (1 << 20))
                self.send_header("Content-Length", "0")
                self.end_headers()
        except OSError:
            pass
    do_HEAD = do_GET
    def do_PUT(self):
        self.send_response(201)
        self.send_header("Content-Length", "0")
        self.end_headers()

srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
srv.daemon_threads = True
open(portfile, "w").write("%d\n" % srv.server_address[1])
srv.serve_forever()
