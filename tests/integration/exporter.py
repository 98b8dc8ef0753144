#!/usr/bin/python3
"""A tiny Prometheus exporter whose gauges the tests set over HTTP.

    exporter.py --port PORT [--slow-port PORT]

Endpoints (all answer 200 "ok\\n" unless noted):
  GET /metrics                  Prometheus text format, one gauge line per series
  GET /set?name=value&...       set series (create if new); value may be NaN,
                                +Inf, -Inf; a name may carry labels:
                                /set?test_x%7Bshard%3D%22a%22%7D=1
  GET /delete?name=NAME&...     remove a series, or every series of a metric
                                name (the series then vanishes from Prometheus
                                at the next scrape: a staleness marker)
  GET /reset                    back to the default series (ends ramps and
                                a /down)
  GET /ramp?name=N&from=A&to=B&seconds=T[&every=E]
                                series N goes from A to B over T seconds in
                                equal steps every E seconds (default 1),
                                computed at each scrape, then stays at B;
                                answers the start time (Unix seconds).  A
                                /set or /delete of N ends the ramp
  GET /down?seconds=T           /metrics answers 503 for T seconds (default:
                                until /up): the target is down, Prometheus
                                marks every series stale
  GET /up                       /metrics answers again
  GET /dump                     the current series as JSON

Default series (always there after /reset):
  test_zero 0                       (test_zero/test_zero is NaN in PromQL)
  test_nan NaN
  test_two_series{shard="a"} 1, test_two_series{shard="b"} 2

With --slow-port, a second listener accepts TCP connections and never
answers (a hung backend); GET /slowcount on the main port gives the number
of HTTP request heads it has read, per request line, as JSON.
"""

import argparse
import json
import math
import re
import socket
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULTS = {
    "test_zero": "0",
    "test_nan": "NaN",
    'test_two_series{shard="a"}': "1",
    'test_two_series{shard="b"}': "2",
}

NAME_RE = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^{}]*\})?$')

_lock = threading.Lock()
_series = dict(DEFAULTS)
_slow_requests = {}  # request line -> count
_slow_socks = []
_ramps = {}         # name -> (t0, from, to, seconds, every)
_down_until = [0.0]  # /metrics answers 503 while time.time() < this


def _norm_value(v):
    s = v.strip()
    low = s.lower()
    if low == "nan":
        return "NaN"
    if low in ("inf", "+inf"):
        return "+Inf"
    if low == "-inf":
        return "-Inf"
    float(s)  # raises ValueError
    return s


def _ramp_value(t0, a, b, seconds, every, now):
    if seconds <= 0:
        return b
    steps = max(1, int(math.ceil(seconds / every)))
    k = min(steps, max(0, int(math.floor((now - t0) / every))))
    return a + (b - a) * k / steps


def _render():
    now = time.time()
    with _lock:
        for name, r in _ramps.items():
            _series[name] = "%.10g" % _ramp_value(*r, now=now)
        items = sorted(_series.items())
    out, typed = [], set()
    for key, val in items:
        name = key.split("{", 1)[0]
        if name not in typed:
            typed.add(name)
            out.append("# TYPE %s gauge" % name)
        out.append("%s %s" % (key, val))
    return ("\n".join(out) + "\n").encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet
        pass

    def _send(self, code, body, ctype="text/plain; version=0.0.4"):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        u = urllib.parse.urlsplit(self.path)
        params = urllib.parse.parse_qsl(u.query, keep_blank_values=True)
        if u.path == "/metrics":
            with _lock:
                down = time.time() < _down_until[0]
            if down:
                return self._send(503, b"down\n")
            return self._send(200, _render())
        if u.path == "/ramp":
            try:
                p = dict(params)
                name = p["name"]
                if not NAME_RE.match(name):
                    raise ValueError("bad series name %r" % name)
                r = (time.time(), float(p["from"]), float(p["to"]),
                     float(p["seconds"]), float(p.get("every", "1")))
                if not all(math.isfinite(x) for x in r) or r[4] <= 0:
                    raise ValueError("bad ramp %r" % (r,))
            except (KeyError, ValueError) as e:
                return self._send(400, ("%s\n" % e).encode())
            with _lock:
                _ramps[name] = r
                _series[name] = "%.10g" % r[1]
            return self._send(200, ("%.6f\n" % r[0]).encode())
        if u.path == "/down":
            try:
                secs = float(dict(params).get("seconds", "1e9"))
            except ValueError as e:
                return self._send(400, ("%s\n" % e).encode())
            with _lock:
                _down_until[0] = time.time() + secs
            return self._send(200, b"ok\n")
        if u.path == "/up":
            with _lock:
                _down_until[0] = 0.0
            return self._send(200, b"ok\n")
        if u.path == "/set":
            try:
                upd = {}
                for k, v in params:
                    if not NAME_RE.match(k):
                        raise ValueError("bad series name %r" % k)
                    upd[k] = _norm_value(v)
            except ValueError as e:
                return self._send(400, ("%s\n" % e).encode())
            with _lock:
                _series.update(upd)
                for k in upd:
                    _ramps.pop(k, None)
            return self._send(200, b"ok\n")
        if u.path == "/delete":
            names = [v for k, v in params if k == "name"] + \
                    [k for k, v in params if k != "name" and v == ""]
            with _lock:
                for n in names:
                    for key in list(_ramps):
                        if key == n or key.split("{", 1)[0] == n:
                            del _ramps[key]
                    for key in list(_series):
                        if key == n or key.split("{", 1)[0] == n:
                            del _series[key]
            return self._send(200, b"ok\n")
        if u.path == "/reset":
            with _lock:
                _series.clear()
                _series.update(DEFAULTS)
                _ramps.clear()
                _down_until[0] = 0.0
            return self._send(200, b"ok\n")
        if u.path == "/dump":
            with _lock:
                body = json.dumps(_series).encode()
            return self._send(200, body, "application/json")
        if u.path == "/slowcount":
            with _lock:
                body = json.dumps(_slow_requests).encode()
            return self._send(200, body, "application/json")
        if u.path == "/healthz":
            return self._send(200, b"ok\n")
        return self._send(404, b"not found\n")

    do_POST = do_GET


def _slow_conn(conn):
    """Read request heads and count them; never answer."""
    buf = b""
    try:
        while True:
            data = conn.recv(65536)
            if not data:
                break
            buf += data
            while b"\r\n\r\n" in buf:
                head, buf = buf.split(b"\r\n\r\n", 1)
                line = head.split(b"\r\n", 1)[0].decode("latin-1")
                with _lock:
                    _slow_requests[line] = _slow_requests.get(line, 0) + 1
    except OSError:
        pass
    finally:
        try:
            conn.close()
        except OSError:
            pass


def _slow_server(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(512)
    while True:
        conn, _ = s.accept()
        _slow_socks.append(conn)
        threading.Thread(target=_slow_conn, args=(conn,), daemon=True).start()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--slow-port", type=int, default=0)
    a = ap.parse_args()
    if a.slow_port:
        threading.Thread(target=_slow_server, args=(a.slow_port,),
                         daemon=True).start()
    ThreadingHTTPServer.daemon_threads = True
    ThreadingHTTPServer.allow_reuse_address = True
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
