#!/usr/bin/env python3
"""A local OpenAI-compatible server for tests, and the command it serves.

    serve.py SCRIPT.json LOG.jsonl -- COMMAND ARGS...

Starts a server on 127.0.0.1 (a free port) that answers
POST /v1/chat/completions from SCRIPT's "responses", one per request in
order (the last one repeats), runs COMMAND with "{port}" in its arguments
replaced by the port, writes every request (path, Authorization header,
body) to LOG as JSON lines, and exits with COMMAND's exit code.

A response is {"content": TEXT} or {"content_file": PATH} (a normal
completion), {"status": CODE} (an error status with a short body), or
{"fault": F} with F one of: "malformed" (200, not JSON), "empty-choices"
(200, "choices": []), "truncated" (a Content-Length longer than the body),
"slow" (answers after 5 s). Any response may add "delay_ms": N (answers
after N ms). Each logged request says how many requests were in flight when
it arrived, itself included ("in_flight").
"""
import http.server
import json
import os
import subprocess
import sys
import threading
import time


def main():
    if len(sys.argv) < 5 or sys.argv[3] != "--":
        sys.exit(__doc__)
    script = json.load(open(sys.argv[1]))["responses"]
    base = os.path.dirname(os.path.abspath(sys.argv[1]))
    log = open(sys.argv[2], "w")
    served = [0]
    in_flight = [0]
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def leave(self):
            # Out of flight before the answer goes: the client may send its
            # next request as soon as it has read this one.
            if getattr(self, "counted", False):
                self.counted = False
                with lock:
                    in_flight[0] -= 1

        def send(self, status, body, length=None):
            self.leave()
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data) if length is None else length))
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()

        def do_POST(self):
            with lock:
                in_flight[0] += 1
            self.counted = True
            try:
                self.answer()
            finally:
                self.leave()

        def answer(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
            with lock:
                index = min(served[0], len(script) - 1)
                served[0] += 1
                log.write(json.dumps({"path": self.path,
                                      "authorization": self.headers.get("Authorization"),
                                      "in_flight": in_flight[0],
                                      "body": json.loads(body)}) + "\n")
                log.flush()
            response = script[index]
            time.sleep(response.get("delay_ms", 0) / 1000.0)
            if self.path != "/v1/chat/completions":
                return self.send(404, '{"error": "not found"}')
            fault = response.get("fault")
            if fault == "slow":
                time.sleep(5)
            if fault == "malformed":
                return self.send(200, '{"choices": [{"message": ')
            if fault == "empty-choices":
                return self.send(200, '{"choices": []}')
            if fault == "truncated":
                self.send(200, '{"choices": [', length=4096)
                self.close_connection = True
                return
            if "status" in response:
                return self.send(response["status"], '{"error": {"message": "scripted"}}')
            content = response.get("content")
            if "content_file" in response:
                content = open(os.path.join(base, response["content_file"])).read()
            self.send(200, json.dumps({"id": "t", "object": "chat.completion",
                                       "choices": [{"index": 0, "finish_reason": "stop",
                                                    "message": {"role": "assistant",
                                                                "content": content}}]}))

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = str(server.server_address[1])
    command = [arg.replace("{port}", port) for arg in sys.argv[4:]]
    code = subprocess.call(command)
    server.shutdown()
    return code


if __name__ == "__main__":
    sys.exit(main())
