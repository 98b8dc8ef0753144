#!/usr/bin/python3
"""The service benchmark: `make bench-service`.

staffer serve under the load KEDA and the HPA put on it, against a real
Prometheus (scraping tests/integration/exporter.py) with python3-grpcio as
the client.  Every figure is a ratio against a baseline measured in the
same run, on the same machine:

1. backend queries per ScaledObject per KEDA cycle (the HPA's two
   GetMetrics and KEDA's IsActive within seconds), with the default cache
   (cacheTTLSeconds 5) against no cache (0): from staffer's own
   staffer_backend_requests_total;
2. GetMetrics latency and throughput at a fixed concurrency, against the
   gRPC health check on the same server and channel (the stack's floor);
3. GetMetrics latency of ScaledObjects on a healthy backend while other
   ScaledObjects wait on a backend that never answers, against the same
   calls without them (one slow backend must not delay the others);
4. memory per open StreamIsActive stream: staffer's RSS with S streams
   open against its RSS before.

    /usr/bin/python3 bench/service.py [--objects N] [--streams S]
        [--concurrency C] [--out bench/results/service.md]

Writes the Markdown report (and prints it).  Takes about a minute.
"""

import argparse
import os
import sys
import threading
import time

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
import harness as h  # noqa: E402
from harness import grpc, pb, hpb  # noqa: E402


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def scrape(url):
    out = {}
    for line in h.http_get(url, timeout=5).decode().splitlines():
        if line and not line.startswith("#"):
            k, v = line.rsplit(" ", 1)
            out[k] = float(v)
    return out


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


class Server:
    """One staffer serve with /metrics, on the shared Prometheus."""

    def __init__(self, binary, m, ttl, name):
        self.mport = h.free_port()
        cfg = h.write_config(os.path.join(m.dir, "bench-%s.json" % name), [
            {"name": "prom", "url": m.prom_url, "timeoutSeconds": 2},
            {"name": "slow", "url": m.slow_url, "timeoutSeconds": 2},
        ], ttl=ttl)
        self.srv = h.Staffer(binary, config=cfg, args=[
            "--log-level", "warn", "--metrics-listen", "127.0.0.1:%d" % self.mport])
        self.srv.start(20)
        self.cl = h.Client(self.srv.addr)
        self.url = "http://127.0.0.1:%d/metrics" % self.mport

    def metrics(self):
        return scrape(self.url)

    def stop(self):
        self.cl.close()
        self.srv.stop(10)


def meta(i, backend="prom"):
    return {"arrivalRateQuery": "bench_rate_%d" % i, "serviceTime": "10",
            "backend": backend}


def run_concurrent(calls, concurrency):
    """calls: list of zero-argument functions returning a future.  Runs them
    with at most `concurrency` in flight; returns (latencies, seconds)."""
    lat = [None] * len(calls)
    sem = threading.Semaphore(concurrency)
    done = threading.Event()
    left = [len(calls)]
    lock = threading.Lock()
    t0 = time.monotonic()

    def finish(i, start):
        def cb(fut):
            lat[i] = time.monotonic() - start
            fut.exception()   # errors are counted by the caller's check
            sem.release()
            with lock:
                left[0] -= 1
                if left[0] == 0:
                    done.set()
        return cb

    for i, make in enumerate(calls):
        sem.acquire()
        start = time.monotonic()
        make().add_done_callback(finish(i, start))
    done.wait(300)
    return lat, time.monotonic() - t0


def futures(cl, kind, metas, name_prefix):
    ref = h.ref
    out = []
    for i, md in enumerate(metas):
        r = ref(md, name="%s-%d" % (name_prefix, i), ns="bench")
        if kind == "metrics":
            req = pb.GetMetricsRequest(scaledObjectRef=r, metricName="staffer")
            out.append(lambda req=req: cl._metrics.future(req, timeout=10))
        elif kind == "active":
            out.append(lambda r=r: cl._active.future(r, timeout=10))
        else:
            out.append(lambda: cl._health.future(hpb.HealthCheckRequest(), timeout=10))
    return out


def cycle_queries(binary, m, n, ttl, name):
    """Backend requests per ScaledObject per KEDA cycle (GetMetrics,
    GetMetrics, IsActive), measured over 3 cycles after a warm-up."""
    s = Server(binary, m, ttl, name)
    try:
        metas = [meta(i) for i in range(n)]
        calls = []
        for _ in range(2):
            calls += futures(s.cl, "metrics", metas, "cyc")
        calls += futures(s.cl, "active", metas, "cyc")
        run_concurrent(calls, 16)                    # warm-up
        time.sleep(max(ttl, 0) + 0.5)                # the cache expires
        before = s.metrics()["staffer_backend_requests_total"]
        cycles = 3
        for _ in range(cycles):
            for kind in ("metrics", "metrics", "active"):
                run_concurrent(futures(s.cl, kind, metas, "cyc"), 16)
            time.sleep(max(ttl, 0) + 0.5)
        after = s.metrics()
        per = (after["staffer_backend_requests_total"] - before) / (n * cycles)
        errors = sum(v for k, v in after.items()
                     if k.startswith("staffer_rpc_requests_total") and 'code="OK"' not in k)
        return per, errors
    finally:
        s.stop()


def latency(binary, m, n, conc):
    s = Server(binary, m, 5, "lat")
    try:
        metas = [meta(i) for i in range(n)]
        run_concurrent(futures(s.cl, "metrics", metas, "lat"), conc)   # warm-up
        lat_m, secs_m = run_concurrent(futures(s.cl, "metrics", metas * 3, "lat"), conc)
        lat_h, secs_h = run_concurrent(futures(s.cl, "health", metas * 3, "lat"), conc)
        return {"metrics": (lat_m, secs_m), "health": (lat_h, secs_h)}
    finally:
        s.stop()


def isolation(binary, m, n, conc):
    """GetMetrics that go to Prometheus (no cache), without and with half as
    many ScaledObjects waiting on a backend that never answers."""
    s = Server(binary, m, 0, "iso")
    try:
        metas = [meta(i) for i in range(n)]
        slow = [meta(i, "slow") for i in range(n // 2)]
        run_concurrent(futures(s.cl, "metrics", metas, "iso"), conc)   # warm-up
        base, _ = run_concurrent(futures(s.cl, "metrics", metas, "iso"), conc)
        pending = [f() for f in futures(s.cl, "metrics", slow, "slowso")]
        time.sleep(0.2)
        with_slow, _ = run_concurrent(futures(s.cl, "metrics", metas, "iso"), conc)
        in_flight = sum(1 for p in pending if not p.done())
        for p in pending:
            try:
                p.result(timeout=15)
            except grpc.RpcError:
                pass
        return {"iso_base": base, "iso_slow": with_slow, "slow_in_flight": in_flight}
    finally:
        s.stop()


def stream_memory(binary, m, n_streams):
    s = Server(binary, m, 5, "streams")
    try:
        warm = [s.cl._stream(h.ref(meta(i), name="warm-%d" % i, ns="bench"), timeout=600)
                for i in range(50)]
        time.sleep(1.0)
        for c in warm:
            c.cancel()
        time.sleep(1.0)
        before = rss_kib(s.srv.proc.pid)
        calls = [s.cl._stream(h.ref(meta(i % 1000), name="st-%d" % i, ns="bench"),
                              timeout=600) for i in range(n_streams)]
        h.wait_until(lambda: s.metrics().get("staffer_streams_open") == n_streams, 30, 0.2,
                     "%d streams open" % n_streams)
        time.sleep(1.0)
        after = rss_kib(s.srv.proc.pid)
        for c in calls:
            c.cancel()
        h.wait_until(lambda: s.metrics().get("staffer_streams_open") == 0, 30, 0.2,
                     "streams closed")
        return before, after
    finally:
        s.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "staffer"))
    ap.add_argument("--objects", type=int, default=500)
    ap.add_argument("--streams", type=int, default=1000)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "service.md"))
    a = ap.parse_args()
    n = a.objects
    t0 = time.monotonic()
    m = h.Metrics().start()
    try:
        m.set(**{"bench_rate_%d" % i: 2 for i in range(max(n, 1000))})
        m.wait_value("bench_rate_%d" % (max(n, 1000) - 1), 2.0, timeout=20)
        q_cache, err_c = cycle_queries(a.bin, m, n, 5, "cache")
        q_none, err_n = cycle_queries(a.bin, m, n, 0, "nocache")
        L = latency(a.bin, m, n, a.concurrency)
        L.update(isolation(a.bin, m, n, a.concurrency))
        rss0, rss1 = stream_memory(a.bin, m, a.streams)
    finally:
        m.stop()

    lm, sm = L["metrics"]
    lh, sh = L["health"]
    rows = []
    rows.append("| backend queries per ScaledObject per KEDA cycle (2 GetMetrics + IsActive) "
                "| %.2f (cacheTTLSeconds 5) | %.2f (cacheTTLSeconds 0) | %.2fx fewer |"
                % (q_cache, q_none, q_none / q_cache if q_cache else float("inf")))
    rows.append("| GetMetrics p50 / p99 latency (answers from the cache), concurrency %d "
                "| %.2f / %.2f ms "
                "| health check: %.2f / %.2f ms | %.2fx / %.2fx |"
                % (a.concurrency, 1e3 * pct(lm, .5), 1e3 * pct(lm, .99),
                   1e3 * pct(lh, .5), 1e3 * pct(lh, .99),
                   pct(lm, .5) / pct(lh, .5), pct(lm, .99) / pct(lh, .99)))
    rows.append("| GetMetrics throughput (from the cache) | %.0f calls/s "
                "| health check: %.0f calls/s | %.2fx |"
                % (len(lm) / sm, len(lh) / sh, (len(lm) / sm) / (len(lh) / sh)))
    rows.append("| GetMetrics p99, each a Prometheus query (cacheTTLSeconds 0), while %d "
                "calls wait on a backend that never answers (2 s timeout) "
                "| %.2f ms | without them: %.2f ms | %.2fx |"
                % (L["slow_in_flight"], 1e3 * pct(L["iso_slow"], .99),
                   1e3 * pct(L["iso_base"], .99),
                   pct(L["iso_slow"], .99) / pct(L["iso_base"], .99)))
    rows.append("| RSS with %d StreamIsActive streams open | %.1f MiB | before: %.1f MiB "
                "| %.1f KiB per stream |"
                % (a.streams, rss1 / 1024, rss0 / 1024, (rss1 - rss0) / a.streams))
    report = """# Service benchmark

Generated by `make bench-service` (bench/service.py) on this machine; every
number comes from that run.  `staffer serve` against a real Prometheus
(scraping tests/integration/exporter.py every second) on loopback, driven
by python3-grpcio; %d ScaledObjects, each with its own arrivalRateQuery.
Each row compares staffer with a baseline measured in the same run.
Non-OK answers during the cycle runs: %d (cache) and %d (no cache).
The client (Python) limits the absolute throughput; the ratios are the
result.  Wall time %.0f s.

| what | staffer | baseline | ratio |
|---|---:|---:|---:|
%s
""" % (n, err_c, err_n, time.monotonic() - t0, "\n".join(rows))
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        f.write(report)
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
