# A remote cache store for tests (tests/integration/cache_poisoned_build.t, tests/fuzz/sign-seeds.sh):
# PUT, GET and HEAD on files under ROOT, as a WebDAV server answers the cache's remote client.
# Prints the loopback port it listens on.
#   python3 tests/lib/remote_store.py ROOT
import http.server, os, sys
root = sys.argv[1]
class Store(http.server.BaseHTTPRequestHandler):
    def path_of(self):
        return os.path.join(root, self.path.lstrip("/").replace("..", "_"))
    def do_PUT(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        p = self.path_of()
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(body)
        self.send_response(201)
        self.end_headers()
    def answer(self, with_body):
        try:
            data = open(self.path_of(), "rb").read()
        except OSError:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if with_body:
            self.wfile.write(data)
    def do_GET(self):
        self.answer(True)
    def do_HEAD(self):
        self.answer(False)
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Store)
print(s.server_address[1], flush=True)
s.serve_forever()
