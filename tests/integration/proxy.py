#!/usr/bin/python3
"""A slow, rewriting HTTP proxy in front of a real Prometheus (tenancy tests).

    proxy.py --port PORT --upstream http://127.0.0.1:PROMPORT

Every GET is forwarded to the upstream with its path and query.  Markers in
the PromQL (`query=`) change what happens; they are metric names, so the
query stays valid PromQL (e.g. `vector(3) + 0*absent(slow_ms_1900_q7)`):
  slow_ms_N   hold the request N milliseconds before forwarding it
  skew_s_N    move every sample time of the answer by N seconds
              (skew_s_mN: by -N)
  step_dep    add a range query's step (seconds) to every value of its
              answer: a backend whose points depend on the step
  align_step  move a range query's start and end down to multiples of
              its step, as Thanos' query frontend does by default
GET /_stats answers JSON: requests forwarded, the most in flight at once,
the number in flight now, and per header name seen (lower case) the
values seen with their counts.
"""

import argparse
import http.client
import json
import math
import re
import socket
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SLOW = re.compile(r"slow_ms_(\d+)")
SKEW = re.compile(r"skew_s_(m?)(\d+)")
STEP_DEP = "step_dep"
ALIGN = "align_step"

_lock = threading.Lock()
_stats = {"requests": 0, "max_concurrent": 0, "concurrent": 0, "headers": {}}


def shift(obj, by):
    """Move the time of every [time, "value"] pair in a query answer."""
    data = obj.get("data", {})
    res = data.get("result")
    if data.get("resultType") == "scalar" and isinstance(res, list):
        res[0] += by
    elif isinstance(res, list):
        for s in res:
            if "value" in s:
                s["value"][0] += by
            for p in s.get("values", []):
                p[0] += by


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    upstream = None

    def log_message(self, *a):
        pass

    def setup(self):
        super().setup()
        # headers and body are two writes: without this, Nagle and the
        # client's delayed ACK add 40 ms to every answer
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def reply(self, code, body, ctype="application/json"):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/_stats":
            with _lock:
                body = json.dumps(_stats).encode()
            return self.reply(200, body)
        q = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        promql = " ".join(q.get("query", []))
        with _lock:
            _stats["requests"] += 1
            _stats["concurrent"] += 1
            _stats["max_concurrent"] = max(_stats["max_concurrent"], _stats["concurrent"])
            for k, v in self.headers.items():
                seen = _stats["headers"].setdefault(k.lower(), {})
                seen[v] = seen.get(v, 0) + 1
        try:
            m = SLOW.search(promql)
            if m:
                time.sleep(int(m.group(1)) / 1000.0)
            u = urllib.parse.urlsplit(self.upstream)
            conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
            path = self.path
            if ALIGN in promql and "step" in q and "start" in q:
                step = float(q["step"][0])
                for k in ("start", "end"):
                    t = float(q[k][0])
                    q[k] = ["%.3f" % (math.floor(t / step + 1e-9) * step)]
                path = urllib.parse.urlsplit(self.path).path + "?" + \
                    urllib.parse.urlencode(q, doseq=True)
            conn.request("GET", u.path.rstrip("/") + path)
            r = conn.getresponse()
            body = r.read()
            conn.close()
            m = SKEW.search(promql)
            if m and r.status == 200:
                obj = json.loads(body)
                shift(obj, (-1 if m.group(1) else 1) * int(m.group(2)))
                body = json.dumps(obj).encode()
            if STEP_DEP in promql and "step" in q and r.status == 200:
                obj = json.loads(body)
                step = float(q["step"][0])
                for s in obj.get("data", {}).get("result", []):
                    for p in s.get("values", []):
                        v = float(p[1])
                        if math.isfinite(v):
                            p[1] = repr(v + step)
                body = json.dumps(obj).encode()
            self.reply(r.status, body)
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            with _lock:
                _stats["concurrent"] -= 1


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256   # 40 at once must not wait in the backlog


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--upstream", required=True)
    a = ap.parse_args()
    Handler.upstream = a.upstream
    srv = Server(("127.0.0.1", a.port), Handler)
    sys.stdout.write("proxy on :%d -> %s\n" % (a.port, a.upstream))
    sys.stdout.flush()
    srv.serve_forever()


if __name__ == "__main__":
    main()
