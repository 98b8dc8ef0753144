#!/usr/bin/python3
"""A Prometheus query_range endpoint with a script, for derivecheck.c.

    scripted_prom.py PORT A|B S_MS

Every point is v(t) = (t // 1000) % 1000 at t = start + k * step, but:
  A  from S_MS (Unix ms) on, the points of a 2-s step read v + 1000 (a
     backend whose points depend on the step), and the second request for
     a whole 2-s grid (11 points) is answered 503 once;
  B  from S_MS on, every reply is off the grid (start - 1 ms) and "NaN"
     at every point (a cache in front that moves starts, over an idle
     0/0 ratio).
Stdlib only.
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

PORT, SCEN, S = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
lock = threading.Lock()
whole2 = [0]


def v(t):
    return (t // 1000) % 1000


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        q = parse_qs(urlparse(self.path).query)
        start = round(float(q["start"][0]) * 1000)
        end = round(float(q["end"][0]) * 1000)
        step = round(float(q["step"][0]) * 1000)
        now = int(time.time() * 1000)
        status, vals = 200, []
        if SCEN == "A":
            if step == 2000 and (end - start) // step + 1 == 11:
                with lock:
                    whole2[0] += 1
                    if whole2[0] == 2:
                        status = 503
            t = start
            while t <= end:
                vals.append([t / 1000, str(v(t) + (1000 if step == 2000 and t >= S else 0))])
                t += step
        else:
            off = -1 if now >= S else 0
            t = start + off
            while t <= end:
                vals.append([t / 1000, "NaN" if off else str(v(t))])
                t += step
        if status != 200:
            body = b'{"status":"error","errorType":"unavailable","error":"scripted"}'
        else:
            body = json.dumps({"status": "success", "data": {
                "resultType": "matrix", "result": [{"metric": {}, "values": vals}]}}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
