#!/usr/bin/python3
"""A simulated inference gateway in front of vLLM pods, for the staffer demo.

Real time, simulated fleet (tests/integration/engines/fleet.py, the
fleet the integration tests emulate engines on).  Requests arrive as a
Poisson process whose rate follows a script (idle, ramp up, burst,
plateau, fall, low) scaled to the demo's length.  The gateway sends each
one to the ready vLLM pod with the fewest requests, and each pod runs at
most SLOTS at once (vLLM's --max-num-seqs) and queues the rest, as vLLM
does; a request holds its slot for a lognormal busy time (prefill, then
decode).  A request that waits longer than the queue timeout is given up
by its client: the gateway counts it as shed, vLLM as finished with
reason abort.

The fleet is resized with /scale?replicas=N (GET or POST), as a
Deployment would be: new pods become ready after a cold start; on
scale-down, pods still starting go first, then the least busy ready
ones, which take no new work and go away once their requests finish.

Endpoints:
  /metrics   Prometheus text format: each pod's vLLM metrics
             (tests/integration/engines/vllm.py: vLLM's own families,
             names and labels) with a `pod` label, as a Prometheus
             Operator scrape labels them; the gateway's own counters
             (gateway_requests_total: admitted, gateway_shed_total); the
             pods' start times as kube-state-metrics exports them
  /scale     ?replicas=N sets the desired count; answers the state as JSON
  /stats     the state and running totals as JSON (for the demo driver)
  /start     with --hold: start the traffic script's clock

The arrival times and each request's service time come from their own
random streams seeded with --seed, so the offered load is identical from
run to run; what the fleet makes of it depends on when the scaler
resizes it.
"""

import argparse
import json
import math
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

sys.dont_write_bytecode = True
ENGINES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "tests", "integration", "engines")
sys.path.insert(0, ENGINES)
import expo  # noqa: E402
import fleet as fl  # noqa: E402
import vllm  # noqa: E402

MODEL = "demo-model"


# The traffic script: (end as a fraction of the demo, name, rate at the
# start, rate at the end), rates as fractions of the burst peak; linear in
# between.
SCRIPT = [
    (0.15, "idle", 0.05, 0.05),
    (0.55, "ramp", 0.05, 0.75),
    (0.62, "burst", 1.00, 1.00),
    (0.72, "plateau", 0.75, 0.75),
    (0.80, "fall", 0.75, 0.10),
    (1.00, "low", 0.10, 0.10),
]


def _segment(f):
    start = 0.0
    for seg in SCRIPT:
        if f < seg[0]:
            return start, seg
        start = seg[0]
    return SCRIPT[-2][0], SCRIPT[-1]


def rate_profile(f, peak):
    """Offered arrival rate [req/s] at fraction f in [0, 1] of the demo."""
    start, (end, _, lo, hi) = _segment(f)
    return peak * (lo + (hi - lo) * min(1.0, (f - start) / (end - start)))


def phase_name(f):
    return _segment(f)[1][1]


class Gateway:
    """The fleet (vLLM pods) behind the gateway, and the gateway's counts."""

    def __init__(self, a):
        self.a = a
        self.wall0 = time.time()     # Unix time of the fleet's t = 0
        self.t_start = None          # fleet time of the script's t = 0
        self.desired = a.replicas
        self.scale_calls = 0
        self.scale_changes = 0
        self.max_queue = 0

        def rate(t):
            if self.t_start is None:
                return 0.0
            return rate_profile(min(1.0, max(0.0, (t - self.t_start) /
                                             a.seconds)), a.peak)
        self.fleet = fl.Fleet(
            MODEL, lambda pod: vllm.Engine(pod, model_name=MODEL),
            a.slots, fl.lognormal_service(a.service_mean, a.service_sigma),
            rate, pods=a.replicas, poisson=True, seed=a.seed,
            cold_start=a.cold_start, queue_timeout=a.queue_timeout,
            rate_max=a.peak * 1.01)
        self.lock = self.fleet.lock
        if not a.hold:
            self.start()

    def start(self):
        with self.lock:
            self.fleet.sync()
            if self.t_start is None:
                self.t_start = self.fleet.now
                # the first arrival is drawn at the script's rate now
                self.fleet.next_arrival = self.fleet._draw_arrival(
                    self.fleet.now)

    def script_time(self):
        return 0.0 if self.t_start is None else self.fleet.now - self.t_start

    def scale(self, n):
        with self.lock:
            self.scale_calls += 1
            n = max(0, int(n))
            if n != self.desired:
                self.scale_changes += 1
            self.desired = n
            self.fleet.scale(n)

    def metrics(self):
        f = self.fleet
        f.sync()
        self.max_queue = max(self.max_queue, f.queue())
        parts = []
        for p in f.pods:
            if p.state in ("starting", "gone"):
                continue             # not up yet: no scrape target
            p.engine.refresh()
            parts.append((p.engine.reg, (("pod", p.name),)))
        out = [expo.render_merged(parts)]
        tot = f.totals
        rows = [
            ("gateway_requests_total", "counter",
             "Requests admitted to the vLLM pods.", tot["admitted"]),
            ("gateway_shed_total", "counter",
             "Requests given up after waiting longer than the queue "
             "timeout, or with no pod to take them.", tot["shed"]),
        ]
        for name, typ, help_, v in rows:
            out.append("# HELP %s %s\n# TYPE %s %s\n%s %d\n" % (
                name, help_, name, typ, name, v))
        # Each pod's start, as kube-state-metrics exports it (Unix
        # seconds): staffer's coldStartQuery reads the cold start from it.
        out.append("# HELP kube_pod_created Unix creation time of the "
                   "pod.\n# TYPE kube_pod_created gauge\n")
        for p in f.pods:
            out.append('kube_pod_created{namespace="demo",pod="%s"} '
                       '%.3f\n' % (p.name, self.wall0 + p.created))
        out.append("# HELP kube_pod_status_ready_time Unix time the pod "
                   "became Ready.\n# TYPE kube_pod_status_ready_time "
                   "gauge\n")
        for p in f.pods:
            if p.state != "starting":
                out.append('kube_pod_status_ready_time{namespace="demo",'
                           'pod="%s"} %.3f\n' % (p.name,
                                                   self.wall0 + p.ready_at))
        return "".join(out)

    def stats(self):
        f = self.fleet
        f.sync()
        self.max_queue = max(self.max_queue, f.queue())
        t = self.script_time()
        frac = min(t / self.a.seconds, 1.0)
        c = {"starting": 0, "ready": 0, "draining": 0}
        for p in f.pods:
            if p.state in c:
                c[p.state] += 1
        lo = f.now - t
        waits = sorted(w for (ts, w) in f.starts if ts >= lo)
        tot = f.totals

        def pct(q):
            if not waits:
                return None
            return waits[min(len(waits) - 1, int(q * len(waits)))]
        sla = self.a.wait_sla
        return {
            "t": t,
            "phase": phase_name(frac),
            "offered_rate": rate_profile(frac, self.a.peak),
            "queue": f.queue(),
            "in_flight": f.running(),
            "ready": c["ready"],
            "starting": c["starting"],
            "draining": c["draining"],
            "desired": self.desired,
            "offered": tot["arrived"],
            "admitted": tot["admitted"],
            "started": tot["started"],
            "completed": tot["completed"],
            "shed": tot["shed"],
            "shed_timeout": tot["shed_" + fl.SHED_TIMEOUT],
            "shed_full": tot["shed_" + fl.SHED_OVERLOADED],
            "max_queue": self.max_queue,
            "replica_seconds": f.replica_seconds,
            "service_seconds": tot["busy_s"],
            "wait_p50": pct(0.50),
            "wait_p95": pct(0.95),
            "wait_p99": pct(0.99),
            "wait_sla": sla,
            "within_sla": sum(1 for x in waits if x <= sla),
            "slots": self.a.slots,
            "scale_calls": self.scale_calls,
            "scale_changes": self.scale_changes,
        }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--listen", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="0 = any free port")
    p.add_argument("--port-file", help="write the bound port here")
    p.add_argument("--seconds", type=float, default=300)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--peak", type=float, default=8.0,
                   help="burst arrival rate [req/s]")
    p.add_argument("--slots", type=int, default=4)
    p.add_argument("--service-mean", type=float, default=7.0)
    p.add_argument("--service-sigma", type=float, default=0.5)
    p.add_argument("--cold-start", type=float, default=20.0)
    p.add_argument("--queue-timeout", type=float, default=15.0)
    p.add_argument("--replicas", type=int, default=1)
    p.add_argument("--hold", action="store_true",
                   help="keep the clock at 0 (no traffic) until /start")
    p.add_argument("--wait-sla", type=float, default=5.0,
                   help="wait counted as good in the stats [s]")
    a = p.parse_args()

    fleet = Gateway(a)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def _send(self, code, body, ctype):
            data = body.encode()
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _handle(self):
            u = urlparse(self.path)
            q = parse_qs(u.query)
            if self.command == "POST":
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n).decode(errors="replace") if n else ""
                for k, v in parse_qs(body).items():
                    q.setdefault(k, v)
            if u.path == "/metrics":
                with fleet.lock:
                    txt = fleet.metrics()
                self._send(200, txt, "text/plain; version=0.0.4")
            elif u.path == "/stats":
                with fleet.lock:
                    st = fleet.stats()
                self._send(200, json.dumps(st) + "\n", "application/json")
            elif u.path == "/scale":
                if "replicas" in q:
                    try:
                        n = int(q["replicas"][0])
                        if n < 0 or n > 10000:
                            raise ValueError
                    except ValueError:
                        self._send(400, "replicas: a whole number 0..10000\n",
                                   "text/plain")
                        return
                    with fleet.lock:
                        fleet.scale(n)
                with fleet.lock:
                    st = fleet.stats()
                self._send(200, json.dumps(st) + "\n", "application/json")
            elif u.path == "/start":
                with fleet.lock:
                    fleet.start()
                    st = fleet.stats()
                self._send(200, json.dumps(st) + "\n", "application/json")
            elif u.path == "/healthz":
                self._send(200, "ok\n", "text/plain")
            else:
                self._send(404, "not found\n", "text/plain")

        do_GET = _handle
        do_POST = _handle

    srv = ThreadingHTTPServer((a.listen, a.port), Handler)
    srv.daemon_threads = True
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write("%d\n" % srv.server_address[1])
        os.replace(a.port_file + ".tmp", a.port_file)

    def ticker():
        while True:
            time.sleep(0.05)
            with fleet.lock:
                fleet.fleet.sync()
    threading.Thread(target=ticker, daemon=True).start()
    try:
        srv.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
