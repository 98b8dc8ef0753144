#!/usr/bin/python3
"""Integration tests for `staffer tune`: the real binary against a real
Prometheus holding three days of history.

The history is written as OpenMetrics samples (a request counter with a
day-shaped rate and a service-time sum/count pair, every 15 s, one series
per case), turned into TSDB blocks with `promtool tsdb create-blocks-from
openmetrics`, and served by Debian's Prometheus started on them.  The
cases: clean history, history with gaps, a counter that resets, a history
too sparse, one too short, a service-time query without data.

    /usr/bin/python3 tests/integration/test_tune.py [--bin build/staffer]
        [--smoke] [--only SUBSTRING]... [--label PREFIX]

Prints `ok N - name` / `not ok N - name` per test and `N passed, N failed`.
"""

import json
import math
import os
import random
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as h  # noqa: E402
from harness import note  # noqa: E402

test = h.Registry()

DAY = 86400
DAYS = 3
RES = 15                 # seconds between samples
MEAN = 2.0               # req/s, averaged over a day
W = 8.0                  # seconds of service
SLOTS = 4


def rate_at(t):
    """The true arrival rate at t (seconds from the start): one day-shaped
    cycle per day, from 0.4 x MEAN at night to 1.6 x MEAN by day."""
    return MEAN * (1 - 0.6 * math.cos(2 * math.pi * t / DAY))


def gaps_case(t):
    """Missing samples of case "gaps": a 3-hour hole around the first
    day's peak, and a 10-minute hole every 4 hours."""
    return (DAY * 0.4 <= t < DAY * 0.4 + 3 * 3600) or (t % (4 * 3600) < 600 and t > 3600)


def sparse_case(t):
    """Case "sparse": the held-out day is mostly missing."""
    return t >= (DAYS - 1) * DAY and (t // 3600) % 2 == 0 or \
        (t >= (DAYS - 1) * DAY and (t // 600) % 3 == 0)


def write_history(path, t0):
    """OpenMetrics for every case, t0 the Unix time of the first sample."""
    rnd = random.Random(7)
    n = DAYS * DAY // RES
    cases = {
        "good": (lambda t: False, None, 0),
        "gaps": (gaps_case, None, 0),
        "reset": (lambda t: False, 6 * 3600, 0),
        "sparse": (sparse_case, None, 0),
        "short": (lambda t: False, None, DAYS * DAY - 4 * 3600),
    }
    lines = ["# TYPE tune_req counter"]
    svc_sum, svc_cnt = ["# TYPE tune_svc_sum gauge"], ["# TYPE tune_svc_count gauge"]
    # The fleet's cold start as coldStartQuery reads it: 300 s, 260 s a
    # fifth of the time, and for four hours of every six a restarted
    # pod's 7200 s (beyond what the server takes): the median of the
    # usable points is 300, of all of them 7200.
    cold = ["# TYPE tune_cold_seconds gauge"]
    for i in range(n + 1):
        t = i * RES
        v = 7200 if t % (6 * 3600) < 4 * 3600 else 260 if i % 5 == 0 else 300
        cold.append("tune_cold_seconds %g %d" % (v, t0 + t))
    for case, (missing, reset_every, start) in cases.items():
        c = s = k = 0.0
        for i in range(n + 1):
            t = i * RES
            mu = rate_at(t) * RES
            got = max(0.0, round(rnd.gauss(mu, math.sqrt(mu))))
            c += got
            s += got * W
            k += got
            if reset_every and t % reset_every == 0 and t > 0:
                c = 0.0    # the process restarted: the counter starts over
            if t < start or missing(t):
                continue
            ts = t0 + t
            lines.append('tune_req_total{case="%s"} %g %d' % (case, c, ts))
            svc_sum.append('tune_svc_sum{case="%s"} %g %d' % (case, s, ts))
            svc_cnt.append('tune_svc_count{case="%s"} %g %d' % (case, k, ts))
    # the exporter's `up` as Prometheus records it: 0 while case "gaps"
    # has no samples (its scrape failed), 1 otherwise
    up = ["# TYPE up gauge"]
    for i in range(n + 1):
        t = i * RES
        up.append('up{job="tune"} %d %d' % (0 if gaps_case(t) else 1,
                                            t0 + t))
    with open(path, "w") as f:
        f.write("\n".join(lines + svc_sum + svc_cnt + cold + up))
        f.write("\n# EOF\n")


def setup(c, a):
    c.dir = h.tmpdir("staffer-tune-")
    # the last sample ten minutes ago, on a whole minute
    c.end = (int(time.time()) // 60) * 60 - 600
    c.start = c.end - DAYS * DAY
    om = os.path.join(c.dir, "history.om")
    write_history(om, c.start)
    data = os.path.join(c.dir, "data")
    os.makedirs(data)
    t0 = time.monotonic()
    r = subprocess.run(["promtool", "tsdb", "create-blocks-from", "openmetrics", "-q",
                        om, data], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=300)
    if r.returncode != 0:
        raise RuntimeError("promtool: " + r.stdout.decode(errors="replace"))
    note("TSDB blocks of %d days in %.1fs" % (DAYS, time.monotonic() - t0))
    c.port = h.free_port()
    h._prom_dirs.append(c.dir)
    # Nothing to scrape: one dead target (port 1 refuses at once).
    r = subprocess.run(["sh", h.PROM_SH, "start", c.dir, str(c.port), "127.0.0.1:1"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    if r.returncode != 0:
        raise RuntimeError("prometheus did not start:\n" + r.stdout.decode(errors="replace"))
    c.prom = "http://127.0.0.1:%d" % c.port
    c.so = os.path.join(c.dir, "so.yaml")
    with open(c.so, "w") as f:
        f.write(SCALEDOBJECT)


def teardown(c, failed):
    if getattr(c, "dir", None):
        subprocess.run(["sh", h.PROM_SH, "stop", c.dir], timeout=30,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if failed:
            note("Prometheus and its data kept in %s" % c.dir)


# A wasteful trigger: far more headroom and a far longer hold than this
# smooth traffic needs, so that there is something to win.
SCALEDOBJECT = """\
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata:
  name: chat
  namespace: inference
spec:
  scaleTargetRef:
    name: chat
  minReplicaCount: 1
  maxReplicaCount: 60
  triggers:
    - type: external
      metadata:
        scalerAddress: staffer.keda:9090
        arrivalRateQuery: sum(rate(tune_req_total{case="good"}[1m]))
        serviceTimeQuery: >-
          sum(rate(tune_svc_sum{case="good"}[5m]))
          / sum(rate(tune_svc_count{case="good"}[5m]))
        slotsPerReplica: "4"
        beta: "3"
        scaleDownHoldSeconds: "1200"
"""


class Run:
    def __init__(self, rc, out, err):
        self.rc, self.out, self.err = rc, out, err

    def __repr__(self):
        return "exit %s\n  stdout: %s\n  stderr: %s" % (self.rc, self.out, self.err[-3000:])

    def json(self):
        try:
            return json.loads(self.out)
        except ValueError as e:
            raise AssertionError("--json output is not JSON (%s): %r" % (e, self))


def tune(c, *args, case=None, range_="3d", timeout=240):
    """`staffer tune` against the test Prometheus on the ScaledObject, the
    range ending at the data's end; case switches its queries to that
    case's series."""
    cmd = [c.bin, "tune", "--prometheus", c.prom, "--file", c.so, "--range", range_,
           "--end", "@%d" % c.end]
    if case:
        cmd += ['arrivalRateQuery=sum(rate(tune_req_total{case="%s"}[1m]))' % case,
                'serviceTimeQuery=sum(rate(tune_svc_sum{case="%s"}[5m])) / '
                'sum(rate(tune_svc_count{case="%s"}[5m]))' % (case, case)]
    cmd += list(args)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    r = Run(p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))
    bad = [l for l in r.err.splitlines() if "Sanitizer" in l or "runtime error:" in l]
    assert not bad, "sanitizer report from tune:\n%s" % r.err
    return r


def read_range(c, j, step):
    """The history is the whole range at step, with the true mean rate and
    W (not zero-filled, not reset-broken)."""
    hist = j["history"]
    assert abs(hist["end"] - c.end) < 1, hist
    # the first points have no full rate() window yet, nor their
    # neighbours (they read low and are trimmed)
    assert 0 <= hist["start"] - (c.end - DAYS * DAY) <= 300, hist
    assert hist["training_seconds"] == hist["end"] - hist["start"] - DAY, hist
    assert hist["held_out_seconds"] == DAY, hist
    assert abs(hist["rate_mean"] / MEAN - 1) < 0.03, hist
    assert abs(hist["service_time_mean"] / W - 1) < 0.03, hist


def meets_target(j):
    """The recommendation (a change, or the current metadata) reaches the
    target on the held-out day."""
    who = "search_pick" if j["recommendation"] == "change" else "current"
    ho = j[who]["held_out"]
    assert ho["sla_attainment"] >= j["target"], (who, j)


@test("tune reads three days in two range queries and recommends a cheaper "
      "config that meets the target on the held-out day", smoke=True, timeout=300)
def t_good(c):
    r = tune(c, "--json", "--step", "15")
    assert r.rc == 0, r
    j = r.json()
    assert "range query 1 of 2" in r.err and "range query 2 of 2" in r.err, r
    read_range(c, j, 15)
    hist = j["history"]
    assert hist["points"] + hist["missing"] == \
        (hist["end"] - hist["start"]) // 15 + 1, hist
    assert hist["missing"] == 0, hist
    assert j["scaledobject"] == "inference/chat trigger 0", j
    assert j["recommendation"] == "change", j
    assert "beta" in j["changes"], j
    meets_target(j)
    cur, pick = j["current"], j["search_pick"]
    assert pick["held_out"]["replica_hours"] < cur["held_out"]["replica_hours"], j
    assert j["simulations"] >= 10, j
    c.good = j


@test("same seed, same answer; the text names the keys to paste", timeout=300)
def t_same_seed(c):
    r = tune(c, "--json", "--step", "15")
    assert r.rc == 0, r
    assert r.json() == c.good, "a second run differs"
    r = tune(c, "--step", "15", "--quiet")
    assert r.rc == 0 and r.err == "", r
    assert "recommendation change" in r.out, r
    for k, v in c.good["changes"].items():
        assert '        %s: "%s"' % (k, v) in r.out.splitlines(), (k, v, r)


@test("gaps stay gaps: interpolated, counted, never read as zero traffic; "
      "--plot draws both fleets", timeout=300)
def t_gaps(c):
    png = os.path.join(c.dir, "gaps.png")
    r = tune(c, "--plot", png, case="gaps", range_="3d")
    assert r.rc == 0, r
    assert "missing in" in r.out and "gaps" in r.out, r
    assert os.path.getsize(png) > 5000, "no plot"
    r = tune(c, "--json", case="gaps", range_="3d")
    j = r.json()
    hist = j["history"]
    # 3 h at 30 s is 360 points, plus a 10-minute hole every 4 hours
    assert hist["missing"] > 360 and hist["gaps"] >= 10, hist
    read_range(c, j, 30)
    meets_target(j)


@test("zeros made up by a fallback are gaps: a bare `or vector(0)`, or a "
      "guard without == 1, tunes as the query without it", timeout=300)
def t_fallback_zeros(c):
    base = 'sum(rate(tune_req_total{case="gaps"}[1m]))'
    svc = ('serviceTimeQuery=sum(rate(tune_svc_sum{case="gaps"}[5m])) / '
           'sum(rate(tune_svc_count{case="gaps"}[5m]))')
    plain = tune(c, "--json", "--quiet", "arrivalRateQuery=" + base, svc)
    assert plain.rc == 0, plain
    p = plain.json()
    assert p["history"]["fallback_zeros"] == 0, p["history"]
    for fallback in (" or vector(0)", " or on() vector(0)",
                     ' or (0 * max(up{job="tune"}))'):
        r = tune(c, "--json", "--quiet", "arrivalRateQuery=" + base + fallback,
                 svc)
        assert r.rc == 0, r
        j = r.json()
        hist = j["history"]
        # the 3-hour hole and the 10-minute ones: the same gaps as the
        # query without its fallback, the same traffic, the same answer
        assert hist["fallback_zeros"] > 360, hist
        assert hist["fallback_zero_stretches"] >= 10, hist
        if "up" in fallback:
            # the guard reads 0 with up 1 before the series has its first
            # rate() window (a true 0 by its rule): the history starts a
            # few points earlier; the held-out day is the same
            assert abs(hist["missing"] - p["history"]["missing"]) < 40, \
                (hist, p["history"])
            # (its arrivals are drawn from another first point: the
            # replay differs by its noise, not by three hours of zeros)
            a_, b_ = (j["current"]["held_out"]["replica_hours"],
                      p["current"]["held_out"]["replica_hours"])
            assert abs(a_ / b_ - 1) < 0.02, (j["current"], p["current"])
        else:
            assert hist["missing"] == p["history"]["missing"], \
                (hist, p["history"])
            assert hist["rate_mean"] == p["history"]["rate_mean"], (hist, p)
            for who in ("current", "search_pick"):
                if who in p:
                    assert j[who] == p[who], (fallback, who, j[who], p[who])
        note("'%s': %d points read 0 only through it, %d stretches: gaps; "
             "held-out hours %.1f (%.1f without it)" % (
                 fallback.strip(), hist["fallback_zeros"],
                 hist["fallback_zero_stretches"],
                 j["current"]["held_out"]["replica_hours"],
                 p["current"]["held_out"]["replica_hours"]))
    # guarded with == 1: no zero made up (the holes are no data already)
    r = tune(c, "--json", "--quiet", "arrivalRateQuery=" + base +
             ' or (0 * max(up{job="tune"} == 1))', svc)
    assert r.rc == 0, r
    assert r.json()["history"]["fallback_zeros"] == 0, r.json()["history"]
    # text: the report says it
    r = tune(c, "--quiet", "arrivalRateQuery=" + base + " or vector(0)", svc)
    assert "read 0 only through the query's fallback 'or vector(0)'" in r.out, r


@test("a counter that resets: rate() absorbs it; a delta() query's negative "
      "points are read as missing", timeout=300)
def t_reset(c):
    r = tune(c, "--json", case="reset")
    assert r.rc == 0, r
    j = r.json()
    read_range(c, j, 30)
    assert j["history"]["negative"] == 0, j
    meets_target(j)
    q = 'arrivalRateQuery=sum(delta(tune_req_total{case="reset"}[1m])) / 60'
    r = tune(c, "--json", q)
    assert r.rc == 0, r
    j = r.json()
    assert j["history"]["negative"] >= DAYS * 4 - 2, j["history"]


@test("a history too sparse on the held-out day: no recommendation, exit 1",
      timeout=120)
def t_sparse(c):
    r = tune(c, case="sparse")
    assert r.rc == 1, r
    assert "too sparse" in r.err and "held-out" in r.err and r.out == "", r


@test("a history too short: no recommendation, exit 1", timeout=120)
def t_short(c):
    r = tune(c, case="short")
    assert r.rc == 1, r
    assert "too short" in r.err and "4.0 h" in r.err and r.out == "", r


@test("W missing: serviceTime stands in; without it, exit 1 naming the query",
      timeout=300)
def t_missing_w(c):
    nq = 'serviceTimeQuery=sum(rate(tune_nothing_sum[5m]))'
    r = tune(c, "--json", nq, "serviceTime=8")
    assert r.rc == 0, r
    j = r.json()
    assert j["history"]["service_time_source"].startswith("serviceTime ("), j
    assert j["history"]["service_time_mean"] == 8, j
    meets_target(j)
    r = tune(c, nq)
    assert r.rc == 1, r
    assert "serviceTimeQuery has no data" in r.err and "serviceTime=" in r.err, r


@test("W that stopped before the arrival rate's first point is no W: serviceTime "
      "stands in; without it, exit 1 (before: NaN service times, tune spun "
      "forever)", timeout=300)
def t_w_before_rate(c):
    cut = c.start + DAY       # the rate from here on, W only before it
    rate = ('arrivalRateQuery=sum(rate(tune_req_total{case="good"}[1m])) '
            'and on() (vector(time()) > %d)' % cut)
    w = ('serviceTimeQuery=sum(rate(tune_svc_sum{case="good"}[5m])) / '
         'sum(rate(tune_svc_count{case="good"}[5m])) and on() '
         '(vector(time()) < %d)' % (cut - 900))
    r = tune(c, "--json", "--quiet", rate, w, "serviceTime=8", timeout=120)
    assert r.rc == 0, r
    j = r.json()
    assert j["history"]["service_time_source"].startswith("serviceTime ("), j
    r = tune(c, "--quiet", rate, w, timeout=120)
    assert r.rc == 1, r
    assert "serviceTimeQuery has no data" in r.err, r


@test("coldStartQuery: the replay's cold start is its median over the range "
      "(usable points only); no data keeps the default; --cold-start wins",
      timeout=300)
def t_cold_start(c):
    r = tune(c, "--json", "--quiet", "coldStartQuery=max(tune_cold_seconds)",
             range_="8h")
    assert r.rc == 0, r
    j = r.json()
    assert j["history"]["cold_start"] == 300, j
    assert j["history"]["cold_start_source"] == "coldStartQuery", j
    # the restarted pods' 7200 s (4 h of every 6) are left out
    hist = j["history"]
    assert 0.2 * hist["points"] < hist["cold_start_points"] < 0.6 * hist["points"], hist
    r = tune(c, "--quiet", "coldStartQuery=max(tune_cold_seconds)",
             "--cold-start", "200", range_="8h")
    assert r.rc == 0, r
    assert "cold start 200 s," in r.out, r
    r = tune(c, "--quiet", "coldStartQuery=max(tune_nothing_seconds)",
             range_="8h")
    assert r.rc == 0, r
    assert ("cold start 120 s (the default: coldStartQuery has no data "
            "over the range)") in r.out, r
    r = tune(c, "coldStartQuery=max(tune_cold_seconds", range_="8h")
    assert r.rc == 2 and "coldStartQuery" in r.err, r


@test("a query the backend refuses is the trigger's mistake: exit 2", timeout=60)
def t_bad_query(c):
    r = tune(c, "arrivalRateQuery=sum(rate(tune_req_total[1m])")
    assert r.rc == 2, r
    assert "arrivalRateQuery" in r.err and "range" in r.err, r
    r = tune(c, "arrivalRateQuery=rate(tune_req_total[1m])")
    assert r.rc == 2, r


def main():
    return h.suite_main(test, setup, teardown)


if __name__ == "__main__":
    sys.exit(main())
