#!/usr/bin/python3
"""A simulated inference gateway for the staffer demo.

Real time, simulated fleet.  Requests arrive as a Poisson process whose rate
follows a script (idle, ramp up, burst, plateau, fall, low) scaled to the
demo's length.  They wait in one FIFO queue in front of a fleet of replicas
with SLOTS concurrent slots each; a request starts as soon as a slot on a
ready replica is free and holds it for a lognormal service time.  A request
that waits longer than the queue timeout, or finds the queue full, is shed.

The fleet is resized with /scale?replicas=N (GET or POST), as a Deployment
would be: new replicas become ready after a cold start; on scale-down,
replicas still starting are removed first, then the least busy ready ones,
which take no new work and go away once their in-flight requests finish.

Endpoints:
  /metrics   Prometheus text format (gateway_* metrics)
  /scale     ?replicas=N sets the desired count; answers the state as JSON
  /stats     the state and running totals as JSON (for the demo driver)
  /start     with --hold: start the traffic script's clock

The simulation is event-driven in continuous time and advanced to the wall
clock on every tick (50 ms) and before every HTTP answer.  The arrival times
and each request's service time come from their own random streams seeded
with --seed, so the offered load is identical from run to run; what the
fleet makes of it depends on when the scaler resizes it.
"""

import argparse
import heapq
import json
import math
import os
import random
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse


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


class Replica:
    __slots__ = ("id", "state", "created", "ready_at", "busy")

    def __init__(self, rid, state, created, ready_at):
        self.id = rid
        self.state = state  # "starting", "ready", "draining"
        self.created = created
        self.ready_at = ready_at
        self.busy = 0


class Fleet:
    def __init__(self, a):
        self.a = a
        self.lock = threading.Lock()
        # Unix time of the script's t = 0, for the pods' start times
        self.wall0 = time.time()
        # with --hold, the script's clock starts at POST /start
        self.t0 = None if a.hold else time.monotonic()
        self.now = 0.0
        self.rng_arr = random.Random(a.seed * 1000003 + 1)
        self.rng_svc = random.Random(a.seed * 1000003 + 2)
        # lognormal with mean service_mean and shape sigma
        self.sigma = a.service_sigma
        self.mu = math.log(a.service_mean) - self.sigma ** 2 / 2
        self.lam_max = max(rate_profile(f / 1000.0, a.peak)
                           for f in range(1001))
        self.next_arrival = self._draw_arrival(0.0)
        self.queue = []        # [arrival_time, service_time], FIFO
        self.qhead = 0         # index of the head in self.queue
        self.done = []         # heap (finish_time, seq, replica)
        self.seq = 0
        self.replicas = []
        self.next_id = 0
        self.desired = a.replicas
        for _ in range(a.replicas):       # the initial fleet is warm
            self._add_replica(ready=True)
        # counters
        self.offered = 0
        self.admitted = 0
        self.shed_timeout = 0
        self.shed_full = 0
        self.completed = 0
        self.service_sum = 0.0
        self.started = 0
        self.wait_sum = 0.0
        self.waits = []        # wait of every started request
        self.max_queue = 0
        self.replica_seconds = 0.0
        self.scale_calls = 0
        self.scale_changes = 0

    # ---- helpers --------------------------------------------------------
    def _draw_arrival(self, t):
        """Next arrival after t of the scripted non-homogeneous Poisson
        process (thinning)."""
        T = self.a.seconds
        while True:
            t += self.rng_arr.expovariate(self.lam_max)
            lam = rate_profile(min(t / T, 1.0), self.a.peak)
            if self.rng_arr.random() * self.lam_max <= lam:
                return t

    def _add_replica(self, ready):
        # a warm replica was created one cold start before it was ready
        r = Replica(self.next_id, "ready" if ready else "starting",
                    self.now - (self.a.cold_start if ready else 0),
                    self.now if ready else self.now + self.a.cold_start)
        self.next_id += 1
        self.replicas.append(r)

    def qlen(self):
        return len(self.queue) - self.qhead

    def _pop_queue(self):
        item = self.queue[self.qhead]
        self.qhead += 1
        if self.qhead > 1024 and self.qhead * 2 > len(self.queue):
            del self.queue[:self.qhead]
            self.qhead = 0
        return item

    def _dispatch(self):
        n = self.a.slots
        while self.qlen() > 0:
            best = None
            for r in self.replicas:
                if r.state == "ready" and r.busy < n and (
                        best is None or r.busy < best.busy):
                    best = r
            if best is None:
                return
            arr, svc = self._pop_queue()
            best.busy += 1
            w = self.now - arr
            self.started += 1
            self.wait_sum += w
            self.waits.append(w)
            self.seq += 1
            heapq.heappush(self.done, (self.now + svc, self.seq, best, svc))

    def _advance_clock(self, t):
        """Move time to t with no event in between (accumulate costs)."""
        if t > self.now:
            self.replica_seconds += len(self.replicas) * (t - self.now)
            self.now = t

    # ---- the event loop ---------------------------------------------------
    def advance(self, until):
        a = self.a
        while True:
            cand = [(self.next_arrival, 0)]
            if self.done:
                cand.append((self.done[0][0], 1))
            if self.qlen() > 0:
                cand.append((self.queue[self.qhead][0] + a.queue_timeout, 2))
            starting = [r.ready_at for r in self.replicas
                        if r.state == "starting"]
            if starting:
                cand.append((min(starting), 3))
            t, kind = min(cand)
            if t > until:
                break
            self._advance_clock(t)
            if kind == 0:
                self.offered += 1
                svc = self.rng_svc.lognormvariate(self.mu, self.sigma)
                if self.qlen() >= a.queue_cap:
                    self.shed_full += 1
                else:
                    self.admitted += 1
                    self.queue.append((t, svc))
                    self._dispatch()
                    self.max_queue = max(self.max_queue, self.qlen())
                self.next_arrival = self._draw_arrival(t)
            elif kind == 1:
                _, _, r, svc = heapq.heappop(self.done)
                r.busy -= 1
                self.completed += 1
                self.service_sum += svc
                if r.state == "draining" and r.busy == 0:
                    self.replicas.remove(r)
                self._dispatch()
            elif kind == 2:
                # the head waited too long; shed every expired request
                while (self.qlen() > 0 and
                       self.queue[self.qhead][0] + a.queue_timeout <= t):
                    self._pop_queue()
                    self.shed_timeout += 1
            else:
                for r in self.replicas:
                    if r.state == "starting" and r.ready_at <= t:
                        r.state = "ready"
                self._dispatch()
        self._advance_clock(until)

    def sync(self):
        if self.t0 is not None:
            self.advance(time.monotonic() - self.t0)

    def start(self):
        if self.t0 is None:
            self.t0 = time.monotonic()

    def scale(self, n):
        self.sync()
        self.scale_calls += 1
        n = max(0, int(n))
        live = [r for r in self.replicas if r.state != "draining"]
        if n != self.desired:
            self.scale_changes += 1
        self.desired = n
        if n > len(live):
            for _ in range(n - len(live)):
                self._add_replica(ready=False)
        elif n < len(live):
            k = len(live) - n
            # not-ready pods go first (newest first), then the least busy
            victims = sorted(live, key=lambda r: (
                r.state != "starting", -r.ready_at if r.state == "starting"
                else 0, r.busy, -r.id))[:k]
            for r in victims:
                if r.state == "starting" or r.busy == 0:
                    self.replicas.remove(r)
                else:
                    r.state = "draining"
        self._dispatch()

    # ---- views ------------------------------------------------------------
    def counts(self):
        c = {"starting": 0, "ready": 0, "draining": 0}
        for r in self.replicas:
            c[r.state] += 1
        return c

    def in_flight(self):
        return sum(r.busy for r in self.replicas)

    def metrics(self):
        self.sync()
        c = self.counts()
        rows = [
            ("gateway_requests_total", "counter",
             "Requests admitted into the queue.", self.admitted),
            ("gateway_shed_total", "counter",
             "Requests shed (queue timeout or queue full).",
             self.shed_timeout + self.shed_full),
            ("gateway_queue_depth", "gauge",
             "Requests waiting for a slot.", self.qlen()),
            ("gateway_in_flight", "gauge",
             "Requests being served.", self.in_flight()),
            ("gateway_service_seconds_sum", "counter",
             "Total service time of completed requests.", self.service_sum),
            ("gateway_service_seconds_count", "counter",
             "Completed requests.", self.completed),
            ("gateway_replicas_ready", "gauge",
             "Replicas ready and taking work.", c["ready"]),
            ("gateway_replicas_desired", "gauge",
             "Replica count last asked for.", self.desired),
            ("gateway_replicas_starting", "gauge",
             "Replicas in their cold start.", c["starting"]),
            ("gateway_replicas_draining", "gauge",
             "Replicas finishing their work before going away.",
             c["draining"]),
            ("gateway_replica_seconds_total", "counter",
             "Replica-seconds paid for (starting, ready or draining).",
             self.replica_seconds),
        ]
        out = []
        for name, typ, help_, v in rows:
            out.append("# HELP %s %s\n# TYPE %s %s\n%s %s\n" % (
                name, help_, name, typ, name, repr(float(v))
                if isinstance(v, float) else v))
        # Each pod's start, as kube-state-metrics exports it (Unix
        # seconds): staffer's coldStartQuery reads the cold start from it.
        out.append("# HELP kube_pod_created Unix creation time of the "
                   "pod.\n# TYPE kube_pod_created gauge\n")
        for r in self.replicas:
            out.append('kube_pod_created{namespace="demo",pod="chat-%d"} '
                       '%.3f\n' % (r.id, self.wall0 + r.created))
        out.append("# HELP kube_pod_status_ready_time Unix time the pod "
                   "became Ready.\n# TYPE kube_pod_status_ready_time "
                   "gauge\n")
        for r in self.replicas:
            if r.state != "starting":
                out.append('kube_pod_status_ready_time{namespace="demo",'
                           'pod="chat-%d"} %.3f\n' % (
                               r.id, self.wall0 + r.ready_at))
        return "".join(out)

    def stats(self):
        self.sync()
        c = self.counts()
        f = min(self.now / self.a.seconds, 1.0)
        w = sorted(self.waits)

        def pct(p):
            if not w:
                return None
            return w[min(len(w) - 1, int(p * len(w)))]
        sla = self.a.wait_sla
        return {
            "t": self.now,
            "phase": phase_name(f),
            "offered_rate": rate_profile(f, self.a.peak),
            "queue": self.qlen(),
            "in_flight": self.in_flight(),
            "ready": c["ready"],
            "starting": c["starting"],
            "draining": c["draining"],
            "desired": self.desired,
            "offered": self.offered,
            "admitted": self.admitted,
            "started": self.started,
            "completed": self.completed,
            "shed": self.shed_timeout + self.shed_full,
            "shed_timeout": self.shed_timeout,
            "shed_full": self.shed_full,
            "max_queue": self.max_queue,
            "replica_seconds": self.replica_seconds,
            "service_seconds": self.service_sum,
            "wait_p50": pct(0.50),
            "wait_p95": pct(0.95),
            "wait_p99": pct(0.99),
            "wait_sla": sla,
            "within_sla": sum(1 for x in w if x <= sla),
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
    p.add_argument("--queue-cap", type=int, default=300)
    p.add_argument("--replicas", type=int, default=1)
    p.add_argument("--hold", action="store_true",
                   help="keep the clock at 0 (no traffic) until /start")
    p.add_argument("--wait-sla", type=float, default=5.0,
                   help="wait counted as good in the stats [s]")
    a = p.parse_args()

    fleet = Fleet(a)

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
                fleet.sync()
    threading.Thread(target=ticker, daemon=True).start()
    try:
        srv.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
