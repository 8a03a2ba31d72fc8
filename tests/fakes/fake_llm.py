#!/usr/bin/env python3
"""A fake model server for the agent tests: speaks the OpenAI chat-completions and the Anthropic
messages protocols on a loopback port, replays a scripted sequence of replies and records every
request, so that tests can assert what ch-cc sent without any network.

Usage: fake_llm.py --script S.json --record R.jsonl [--port 0] [--port-file F]
With port 0 the chosen port is printed ("PORT 12345") and written to --port-file.

Script: {"steps": [step, ...], "default": step}. Each request takes the next step (then
"default", else a 500). A step may hold:
  "reply": "text"       a success body in the protocol of the request path, with usage
  "usage": [in, out]    token counts for "reply" (default [10, 20])
  "finish": "length"    finish/stop reason (default stop / end_turn)
  "status": 200         HTTP status (default 200)
  "headers": {...}      extra response headers (Retry-After, ...)
  "body": obj|"text"    the body as given (JSON-encoded when not a string)
  "raw": "bytes"        written to the socket as is (no HTTP framing), then closed
  "delay": seconds      wait before answering
  "truncate": N         announce the full Content-Length but send only N body bytes, close
  "close": true         close the connection without any response
Recording: one JSON line per request {"n", "path", "headers", "body"} written before replying.
"""
import argparse
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class State:
    def __init__(self, script, record):
        self.steps = list(script.get("steps", []))
        self.default = script.get("default")
        self.record = record
        self.lock = threading.Lock()
        self.n = 0

    def next(self, entry):
        with self.lock:
            self.n += 1
            entry["n"] = self.n
            with open(self.record, "a") as f:
                f.write(json.dumps(entry) + "\n")
            if self.steps:
                return self.steps.pop(0)
            if self.default is not None:
                return self.default
            return {"status": 500, "body": {"error": {"message": "fake_llm: script exhausted"}}}


def success_body(path, step):
    text = step["reply"]
    usage = step.get("usage", [10, 20])
    if path.endswith("/messages"):
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "stop_reason": step.get("finish", "end_turn"),
            "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
        }
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": step.get("finish", "stop"),
            }
        ],
        "usage": {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": usage[0] + usage[1],
        },
    }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length).decode("utf-8", "replace")
        try:
            body = json.loads(raw)
        except ValueError:
            body = raw
        entry = {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                 "body": body}
        step = self.server.state.next(entry)
        if step.get("delay"):
            time.sleep(step["delay"])
        if step.get("close"):
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if "raw" in step:
            self.wfile.write(step["raw"].encode())
            self.wfile.flush()
            self.close_connection = True
            return
        if "reply" in step:
            payload = json.dumps(success_body(self.path, step)).encode()
        elif "body" in step:
            b = step["body"]
            payload = (b if isinstance(b, str) else json.dumps(b)).encode()
        else:
            payload = b""
        self.send_response(step.get("status", 200))
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for k, v in step.get("headers", {}).items():
            self.send_header(k, str(v))
        if "truncate" in step:
            self.send_header("Connection", "close")
        self.end_headers()
        if "truncate" in step:
            self.wfile.write(payload[: step["truncate"]])
            self.wfile.flush()
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        self.wfile.write(payload)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--script", required=True)
    ap.add_argument("--record", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    a = ap.parse_args()
    with open(a.script) as f:
        script = json.load(f)
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    srv.state = State(script, a.record)
    port = srv.server_address[1]
    if a.port_file:
        tmp = a.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % port)
        import os

        os.rename(tmp, a.port_file)
    print("PORT %d" % port, flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
