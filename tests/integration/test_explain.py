#!/usr/bin/python3
"""Integration tests for `staffer explain`: the real binary against a real
Prometheus scraping tests/integration/exporter.py, checked against what a
real `staffer serve` answers to python3-grpcio's GetMetrics and IsActive
with the same metadata.

    /usr/bin/python3 tests/integration/test_explain.py [--bin build/staffer]
        [--smoke] [--only SUBSTRING]... [--label PREFIX]

--smoke runs the subset marked smoke=True (used for build/staffer-asan).
Prints `ok N - name` / `not ok N - name` per test and `N passed, N failed`.
"""

import json
import os
import random
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as h  # noqa: E402
from harness import grpc, note  # noqa: E402

INVALID = grpc.StatusCode.INVALID_ARGUMENT
UNAVAIL = grpc.StatusCode.UNAVAILABLE

test = h.Registry()

# calc's JSON keys (report.h), which explain's --json carries too
CALC_KEYS = ("staffing", "arrival_rate", "service_time", "queue_depth", "shed_rate",
             "arrival_forecast", "arrival_used", "forecast_used", "busy_slots",
             "headroom_slots", "drain_slots", "boost_slots", "total_slots",
             "slots_per_replica", "exact_replicas", "replicas", "capped", "active")


_uniq = [0]


def uniq(tag):
    _uniq[0] += 1
    # letters and digits only: a Prometheus metric name and a Kubernetes
    # name (DNS-1123) at once
    return "e%d%s%04d" % (_uniq[0], tag.replace("_", "").lower(),
                            random.randrange(10000))


class Run:
    def __init__(self, rc, out, err):
        self.rc, self.out, self.err = rc, out, err

    def __repr__(self):
        return "exit %s\n  stdout: %s\n  stderr: %s" % (self.rc, self.out, self.err)

    def json(self):
        try:
            return json.loads(self.out)
        except ValueError as e:
            raise AssertionError("--json output is not JSON (%s): %r" % (e, self))


def explain(c, *args, meta=None, backend="config", stdin=None, timeout=30):
    """Run `staffer explain` with c's config (or no backend flag when
    backend is None) and meta as key=value arguments."""
    cmd = [c.bin, "explain"]
    if backend == "config":
        cmd += ["--config", c.cfg]
    cmd += list(args)
    cmd += ["%s=%s" % (k, v) for k, v in (meta or {}).items()]
    p = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout, env=c.env)
    r = Run(p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))
    bad = [l for l in r.err.splitlines()
           if "Sanitizer" in l or "runtime error:" in l]
    assert not bad, "sanitizer report from explain:\n%s" % r.err
    return r


def same_as_server(c, meta, *extra):
    """explain --json and the server agree on the target and IsActive for
    meta; returns explain's JSON."""
    name = uniq("so")
    want = c.cl.target(meta, name=name)
    want_active = c.cl.active(meta, name=uniq("so"))
    r = explain(c, "--json", *extra, meta=meta)
    assert r.rc == 0, r
    j = r.json()
    assert j["target"] == want, "explain target %s, server %s\n%r" % (j["target"], want, r)
    assert j["is_active"] == want_active, (want_active, r)
    return j


def write(c, name, text):
    path = os.path.join(c.m.dir, name)
    with open(path, "w") as f:
        f.write(text)
    return path


SO = """apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata:
  name: {name}
  namespace: {ns}
spec:
  scaleTargetRef:
    name: {name}
  triggers:
    - type: cpu
      metadata:
        value: "50"
    - type: external
      metadata:
        scalerAddress: staffer.keda.svc:9090
        arrivalRateQuery: {lam}
        serviceTime: "{w}"
        beta: "{beta}"
"""


# ----------------------------------------------------------------------------
# the numbers: explain answers what the server answers


@test("seed lambda=2, W=10: explain --json = server GetMetrics (27) and IsActive", smoke=True)
def t_seed(c):
    meta = c.m.signals(uniq("seed"), lam=2, w=10)
    j = same_as_server(c, meta)
    assert j["target"] == 27 and j["replicas"] == 27 and j["raw_replicas"] == 27, j
    for k in CALC_KEYS + ("backend", "queries", "target", "raw_replicas", "smoothing",
                          "is_active"):
        assert k in j, "key %r missing: %s" % (k, j)
    assert abs(j["busy_slots"] - 20) < 1e-9 and abs(j["headroom_slots"] - 6.7082) < 1e-4, j
    assert j["backend"] == {"name": "prom", "url": c.m.prom_url}, j["backend"]
    assert j["smoothing"] == "none", j
    qs = {q["key"]: q for q in j["queries"]}
    assert qs["arrivalRateQuery"]["query"] == meta["arrivalRateQuery"], qs
    assert qs["arrivalRateQuery"]["value"] == 2 and qs["serviceTimeQuery"]["value"] == 10, qs
    assert j["is_active"] is True


@test("text output: each query with its value, calc's breakdown, scale-down, target, IsActive",
      smoke=True)
def t_text(c):
    meta = c.m.signals(uniq("text"), lam=2, w=10, q=0, s=0)
    r = explain(c, meta=meta)
    assert r.rc == 0, r
    lines = r.out.splitlines()
    assert lines[0] == "backend    'prom' %s" % c.m.prom_url, r
    for key in ("arrivalRateQuery", "serviceTimeQuery", "queueDepthQuery", "shedRateQuery"):
        i = [n for n, l in enumerate(lines) if l.startswith("query      %s = " % key)]
        assert i, "no query line for %s:\n%s" % (key, r.out)
        assert lines[i[0] + 1].strip() == meta[key], (key, lines[i[0] + 1])
    # the terms are calc's: the same lines for the same numbers (a flat
    # series: no forecast above lambda, the hold at lambda, z = 1)
    calc = subprocess.run([c.bin, "calc", "arrivalRate=2", "serviceTime=10", "queueDepth=0",
                           "shedRate=0"], stdout=subprocess.PIPE, check=True,
                          env=c.env).stdout.decode()
    terms = ("signals", "busy", "headroom", "drain", "boost", "total", "replicas",
             "answer", "active")
    for l in calc.splitlines():
        if l.split(" ")[0] in terms:
            assert l in lines, "calc's line %r not in explain's output:\n%s" % (l, r.out)
    assert any(l.startswith("series     ") for l in lines), r.out
    assert any(l.startswith("peakedness z = 1") for l in lines), r.out
    assert any(l.startswith("memory     none: this is a fresh process") for l in lines), r.out
    assert "target     27 replicas (GetMetrics)" in lines, r.out
    assert lines[-1] == "IsActive   yes", r.out


@test("queue, shedding, erlangc, slotsPerReplica, maxReplicas: explain = server")
def t_many(c):
    p = uniq("many")
    base = c.m.signals(p, lam=3, w=4, q=80, s=1)
    for extra in ({}, {"staffing": "erlangc", "targetWaitSeconds": "1",
                       "waitProbability": "0.05"},
                  {"slotsPerReplica": "4", "beta": "2"}, {"maxReplicas": "5"},
                  {"staffing": "none", "drainSeconds": "60", "boostFactor": "2"}):
        meta = dict(base, **extra)
        j = same_as_server(c, meta)
        note("%s -> %s" % (extra, j["target"]))
    assert j["capped"] is False and j["target"] > 5


@test("zero traffic: target 0, IsActive false, like the server")
def t_zero(c):
    meta = c.m.signals(uniq("zero"), lam=0, w=10)
    j = same_as_server(c, meta)
    assert j["target"] == 0 and j["is_active"] is False, j


@test("currentReplicasQuery: the smoothed answer from the replicas read (= the server)")
def t_current(c):
    p = uniq("cur")
    meta = c.m.signals(p, lam=2, w=10)    # raw 27
    c.m.update(**{p + "_replicas": 30})
    meta["currentReplicasQuery"] = p + "_replicas"
    meta["scaleDownPeriodSeconds"] = "1"
    j = same_as_server(c, meta)
    assert j["smoothing"] == "observed" and j["current_replicas"] == 30, j
    # the step limit (scaleDownPeriodSeconds given): 30 - scaleDownStep 1
    assert j["raw_replicas"] == 27 and j["target"] == 29, j
    assert j["scale_down"] == "step", j
    r = explain(c, meta=meta)
    assert "current    30 replicas (currentReplicasQuery)" in r.out, r
    # without the step: the hold, and this metric's series is younger
    # than the 180 s hold, so nothing is released yet
    del meta["scaleDownPeriodSeconds"]
    j = same_as_server(c, meta)
    assert j["target"] == 30 and j["scale_down"] == "hold-no-series", j
    # a hold the series spans: the margin, a lower answer keeps half a
    # replica above the exact 26.71: ceil(27.21) = 28
    meta["scaleDownHoldSeconds"] = "1"
    j = same_as_server(c, meta)
    assert j["target"] == 28 and j["scale_down"] == "margin", j


@test("coldStartSeconds: the range query is shown, the target = the server's")
def t_forecast(c):
    meta = c.m.signals(uniq("fc"), lam=2, w=10)
    meta["coldStartSeconds"] = "60"
    meta["forecastWindowSeconds"] = "60"
    j = same_as_server(c, meta)
    fq = [q for q in j["queries"] if "(range)" in q["key"]]
    # the hold (60 + 60 / 2 + 30 = 120 s) is longer than the window
    assert len(fq) == 1 and fq[0]["range_seconds"] == 120, j["queries"]
    assert j["hold_seconds"] == 120, j
    r = explain(c, meta=meta)
    assert r.rc == 0 and "forecast   " in r.out and "hold       120 s" in r.out, r
    # nothing reads the series: no range query
    meta.update(coldStartSeconds="0", peakedness="off")
    del meta["forecastWindowSeconds"]
    j = same_as_server(c, meta)
    assert not [q for q in j["queries"] if "(range)" in q["key"]], j["queries"]


@test("slaMissQuery: the SLO correction from its range, the target = the server's")
def t_feedback(c):
    p = uniq("fb")
    meta = c.m.signals(p, lam=2, w=10)
    c.m.update(**{p + "_miss": 0.5})            # far above the allowance
    meta.update(coldStartSeconds="0", peakedness="off",
                slaMissQuery=p + "_miss", feedbackWindowSeconds="600")
    j = same_as_server(c, meta)
    mq = [q for q in j["queries"] if q["key"] == "slaMissQuery (range)"]
    assert len(mq) == 1 and mq[0]["range_seconds"] == 600, j["queries"]
    # a young series: few points of e = 2 in a 600 s window, c above 1
    assert j["miss_points"] >= 1 and j["correction"] > 1, j
    assert j["target"] > 27, j
    r = explain(c, meta=meta)
    assert r.rc == 0 and "feedback   SLO correction x" in r.out, r
    # no series at all (no requests, or a metric not there yet): c = 1
    meta["slaMissQuery"] = p + "_missing"
    j = same_as_server(c, meta)
    assert j["correction"] == 1 and j["target"] == 27, j
    # PromQL the backend refuses: INVALID_ARGUMENT, exit 2, as the server
    meta["slaMissQuery"] = "sum(rate(" + p + "_miss[5m]"
    r = explain(c, meta=meta)
    assert r.rc == 2 and "slaMissQuery (range)" in r.err, r


@test("coldStartQuery 300: explain says it measured the cold start, --json has "
      "cold_start_seconds 300, the forecast 360 s ahead and the hold 360 s", smoke=True)
def t_cold_query(c):
    # a rate rising 0.01 req/s every second, with a full history (time()):
    # Holt on a straight line is exact, lambda-hat = level + 0.01 * horizon
    lam = "vector(0.01 * (time() - %d))" % (int(time.time()) - 700)
    # Holt itself (not auto's backtest) and no surge headroom: the horizon is
    # what is measured here
    meta = {"arrivalRateQuery": lam, "serviceTime": "10", "staffing": "none",
            "coldStartSeconds": "120", "coldStartQuery": "vector(300)",
            "forecastMethod": "holt", "surgeQuantile": "0"}
    r = explain(c, "--json", meta=meta)
    assert r.rc == 0, r
    j = r.json()
    qs = {q["key"]: q for q in j["queries"]}
    assert qs["coldStartQuery"] == {"key": "coldStartQuery", "query": "vector(300)",
                                    "range_seconds": 0, "step_seconds": 0, "value": 300}, qs
    # rateWindowSeconds 60 / 2 + metricsLagSeconds 30 = 60 s of lag
    assert j["cold_start_seconds"] == 300 and j["cold_start_measured"] is True, j
    assert j["forecast_horizon_seconds"] == 360 and j["hold_seconds"] == 360, j
    assert j["forecast_step_seconds"] == 15 and j["forecast_steps"] == 24, j
    assert abs(j["arrival_forecast"] - j["forecast_level"] - 3.6) < 1e-6, j
    assert j["forecast_used"] is True, j
    assert abs(j["busy_slots"] - 10 * j["arrival_forecast"]) < 1e-6, j
    r = explain(c, meta=meta)
    assert r.rc == 0, r
    lines = r.out.splitlines()
    assert "query      coldStartQuery = 300" in lines, r.out
    assert "cold start 300 s, measured by coldStartQuery (coldStartSeconds 120 while it has " \
        "no data)" in lines, r.out
    fc = [l for l in lines if l.startswith("forecast   lambda-hat = ")]
    assert len(fc) == 1 and " in 360 s (Holt level " in fc[0], r.out
    assert any(l.startswith("hold       360 s") for l in lines), r.out
    assert "the hold is cut" not in r.out, r.out
    # without coldStartQuery: 120 s, no cold start line, no JSON keys
    del meta["coldStartQuery"]
    j = explain(c, "--json", meta=meta).json()
    assert "cold_start_seconds" not in j and "cold_start_measured" not in j, j
    assert j["forecast_horizon_seconds"] == 180 and j["hold_seconds"] == 180, j
    assert abs(j["arrival_forecast"] - j["forecast_level"] - 1.8) < 1e-6, j
    r = explain(c, meta=meta)
    assert r.rc == 0 and "cold start" not in r.out and " in 180 s (Holt level " in r.out, r


@test("coldStartQuery with no data or out of range: explain says coldStartSeconds is used "
      "and why, --json cold_start_measured false")
def t_cold_query_fallback(c):
    lam = "vector(0.01 * (time() - %d))" % (int(time.time()) - 700)
    meta = {"arrivalRateQuery": lam, "serviceTime": "10", "staffing": "none",
            "coldStartSeconds": "90", "forecastMethod": "holt", "surgeQuantile": "0"}
    absent = uniq("absent_cold_start")
    no_data = "cold start 90 s (coldStartSeconds): coldStartQuery has no data (no pods, NaN or " \
              "Inf, or old data)"
    for q, line in ((absent, no_data), ("vector(0) / 0", no_data),
                    ("vector(7200)", "cold start 90 s (coldStartSeconds): coldStartQuery "
                     "answered 7200, outside 0 < s <= 3600"),
                    ("vector(0)", "cold start 90 s (coldStartSeconds): coldStartQuery "
                     "answered 0, outside 0 < s <= 3600"),
                    ("vector(-5)", "cold start 90 s (coldStartSeconds): coldStartQuery "
                     "answered -5, outside 0 < s <= 3600")):
        m = dict(meta, coldStartQuery=q)
        r = explain(c, meta=m)
        assert r.rc == 0, (q, r)
        assert line in r.out.splitlines(), "%r: no line %r in\n%s" % (q, line, r.out)
        assert " in 150 s (Holt level " in r.out and "hold       150 s" in r.out, (q, r.out)
        j = explain(c, "--json", meta=m).json()
        assert j["cold_start_seconds"] == 90 and j["cold_start_measured"] is False, (q, j)
        assert j["forecast_horizon_seconds"] == 150 and j["hold_seconds"] == 150, (q, j)
        assert abs(j["arrival_forecast"] - j["forecast_level"] - 1.5) < 1e-6, (q, j)
    # 2000 s: measured, but the series (sized from coldStartSeconds: the
    # 600 s forecast window) covers only 600 s of the 2060 s hold
    r = explain(c, meta=dict(meta, coldStartQuery="vector(2000)"))
    assert r.rc == 0, r
    assert "cold start 2000 s, measured by coldStartQuery (coldStartSeconds 90 while it has " \
        "no data)" in r.out.splitlines(), r.out
    assert "           the hold is cut to 600 s, the range of the series (sized from " \
        "coldStartSeconds): raise coldStartSeconds or forecastWindowSeconds to cover " \
        "2060 s" in r.out.splitlines(), r.out
    j = explain(c, "--json", meta=dict(meta, coldStartQuery="vector(2000)")).json()
    assert j["cold_start_seconds"] == 2000 and j["cold_start_measured"] is True, j
    assert j["forecast_horizon_seconds"] == 2060 and j["hold_seconds"] == 600, j


@test("coldStartQuery: the hold it sets gives explain's target = the server's (100 held, "
      "10 without); bad PromQL -> exit 2 with the server's INVALID_ARGUMENT")
def t_cold_query_server(c):
    # 10 req/s until 270 s ago, 1 since: only a 360 s hold still sees the 10
    lam = "vector(1 + 9 * (time() < bool %d))" % (int(time.time()) - 270)
    meta = {"arrivalRateQuery": lam, "serviceTime": "10", "staffing": "none",
            "coldStartSeconds": "120", "surgeQuantile": "0"}
    j = same_as_server(c, dict(meta, coldStartQuery="vector(300)"))
    assert j["target"] == 100 and j["held_used"] is True and j["arrival_held"] == 10, j
    j = same_as_server(c, dict(meta, coldStartQuery="vector(7200)"))
    assert j["target"] == 10 and j["hold_seconds"] == 180 and j["arrival_held"] == 1, j
    for q in ("rate(", "test_two_series"):
        m = dict(meta, coldStartQuery=q)
        details = h.expect_code(INVALID, c.cl.metrics_raw, m, name=uniq("so"))
        assert details.startswith("coldStartQuery: "), details
        r = explain(c, meta=m)
        assert r.rc == 2 and r.err == "staffer explain: %s\n" % details, (details, r)
        assert "query      coldStartQuery: error: " in r.out, r
        r = explain(c, "--json", meta=m)
        assert r.rc == 2 and r.json()["error"] == details, (details, r)


# ----------------------------------------------------------------------------
# --file


@test("--file: a ScaledObject YAML; --name picks one; key=value overrides", smoke=True)
def t_file(c):
    pa, pb = uniq("fa"), uniq("fb")
    ma = c.m.signals(pa, lam=2, w=10)
    mb = c.m.signals(pb, lam=1, w=5)
    text = (SO.format(name="llama", ns="inference", lam=ma["arrivalRateQuery"], w=10, beta=1.5)
            + "---\n" +
            SO.format(name="mistral", ns="inference", lam=mb["arrivalRateQuery"], w=5, beta=1.5))
    path = write(c, uniq("so") + ".yaml", text)
    r = explain(c, "--file", path, "--name", "inference/llama", "--json")
    assert r.rc == 0, r
    j = r.json()
    want = c.cl.target({"arrivalRateQuery": ma["arrivalRateQuery"], "serviceTime": "10",
                        "beta": "1.5", "scalerAddress": "staffer.keda.svc:9090"},
                       name=uniq("so"))
    assert j["target"] == want == 27, (j, want)
    assert j["scaledobject"] == "inference/llama trigger 1", j
    # NAME alone, and a key=value over the file's beta
    r = explain(c, "--file", path, "--name", "mistral", "--json", meta={"beta": "3"})
    assert r.rc == 0, r
    want = c.cl.target({"arrivalRateQuery": mb["arrivalRateQuery"], "serviceTime": "5",
                        "beta": "3"}, name=uniq("so"))
    assert r.json()["target"] == want, (r, want)    # 5 + 3 sqrt 5 = 11.7 -> 12
    assert want == 12
    # from stdin, text
    r = explain(c, "--file", "-", "--name", "inference/llama", stdin=text.encode())
    assert r.rc == 0 and r.out.startswith("trigger    inference/llama trigger 1\n"), r


@test("--file: several triggers and no --name -> exit 2 listing the candidates")
def t_file_ambiguous(c):
    text = (SO.format(name="a", ns="n1", lam="x", w=1, beta=1) + "---\n" +
            SO.format(name="b", ns="n2", lam="y", w=1, beta=1))
    path = write(c, uniq("amb") + ".yaml", text)
    r = explain(c, "--file", path)
    assert r.rc == 2 and "2 staffer triggers match" in r.err, r
    assert "n1/a trigger 1" in r.err and "n2/b trigger 1" in r.err, r
    r = explain(c, "--file", path, "--name", "n3/zz")
    assert r.rc == 2 and "no staffer trigger matches --name n3/zz" in r.err, r
    assert "n1/a trigger 1" in r.err, r
    r = explain(c, "--file", path, "--name", "n1/a", "--trigger", "0")
    assert r.rc == 2 and "no staffer trigger matches" in r.err, r
    assert r.out == "", r


@test("--file: metadata kubectl would refuse, invalid YAML, a missing file -> exit 2")
def t_file_bad(c):
    text = SO.format(name="a", ns="n", lam="x", w=1, beta=1).replace('beta: "1"', "beta: 1")
    path = write(c, uniq("num") + ".yaml", text)
    r = explain(c, "--file", path)
    assert r.rc == 2 and "metadata 'beta': 1 must be a quoted string" in r.err, r
    assert ":18: " in r.err, r   # the line, as lint says it
    path = write(c, uniq("inv") + ".yaml", "a: [\n")
    r = explain(c, "--file", path)
    assert r.rc == 2 and "invalid YAML" in r.err, r
    r = explain(c, "--file", os.path.join(c.m.dir, "nope.yaml"))
    assert r.rc == 2 and "cannot open" in r.err, r


# ----------------------------------------------------------------------------
# errors: the server's words, and never a silent zero


@test("bad metadata -> exit 2 with the server's INVALID_ARGUMENT message", smoke=True)
def t_invalid(c):
    meta = c.m.signals(uniq("inv"), lam=2, w=10)
    for bad in ({"beta": "abc"}, {"betta": "2"}, {"backend": "nosuch"},
                {"staffing": "erlangc"}):
        m = dict(meta, **bad)
        details = h.expect_code(INVALID, c.cl.metrics_raw, m, name=uniq("so"))
        r = explain(c, meta=m)
        assert r.rc == 2, r
        assert r.err == "staffer explain: %s\n" % details, (details, r)
        assert r.out == "", r


@test("a query returning two series -> exit 2, as the server's INVALID_ARGUMENT")
def t_two_series(c):
    m = {"arrivalRateQuery": "test_two_series", "serviceTime": "10"}
    details = h.expect_code(INVALID, c.cl.metrics_raw, m, name=uniq("so"))
    r = explain(c, meta=m)
    assert r.rc == 2 and r.err == "staffer explain: %s\n" % details, (details, r)
    assert "query      arrivalRateQuery: error:" in r.out, r


@test("Prometheus down (a dead backend) -> exit 1 naming the query", smoke=True)
def t_dead(c):
    meta = c.m.signals(uniq("dead"), lam=2, w=10)
    meta["backend"] = "dead"
    details = h.expect_code(UNAVAIL, c.cl.metrics_raw, meta, name=uniq("so"))
    r = explain(c, meta=meta)
    assert r.rc == 1, r
    # curl's message says how long the connect took ("after 0 ms"), which
    # may differ by a millisecond between the server and explain
    ms = lambda t: re.sub(r"after \d+ ms", "after N ms", t)
    assert ms(r.err) == ms("staffer explain: %s\n" % details), (details, r)
    assert "arrivalRateQuery" in r.err and "backend 'dead'" in r.err, r
    r = explain(c, "--json", meta=meta)
    j = r.json()
    assert r.rc == 1 and j["status"] == "unavailable" and "arrivalRateQuery" in j["error"], r
    assert "target" not in j and "replicas" not in j, j
    # --prometheus to a port nobody listens on: the same
    r = explain(c, "--prometheus", "http://127.0.0.1:%d" % h.free_port(),
                meta={"arrivalRateQuery": "x", "serviceTime": "1"}, backend=None)
    assert r.rc == 1 and "arrivalRateQuery" in r.err, r


@test("no data: a missing series, a missing W with demand -> exit 1 naming the query")
def t_no_data(c):
    p = uniq("nodata")
    r = explain(c, meta={"arrivalRateQuery": p + "_absent", "serviceTime": "10"})
    assert r.rc == 1 and "arrivalRateQuery" in r.err, r
    meta = c.m.signals(p, lam=2)
    meta["serviceTimeQuery"] = p + "_absent_w"
    details = h.expect_code(UNAVAIL, c.cl.metrics_raw, meta, name=uniq("so"))
    r = explain(c, meta=meta)
    assert r.rc == 1 and r.err == "staffer explain: %s\n" % details, (details, r)
    assert "serviceTimeQuery" in r.err, r


@test("a hung backend: --timeout gives up, exit 1, in time", smoke=True)
def t_timeout(c):
    t0 = time.monotonic()
    r = explain(c, "--timeout", "1", meta={"arrivalRateQuery": "x", "serviceTime": "1",
                                           "backend": "slow"})
    dt = time.monotonic() - t0
    assert r.rc == 1 and "no answer within 1 s (--timeout)" in r.err and "backend 'slow'" in r.err, r
    assert dt < 4, "took %.1fs" % dt


@test("usage: no backend, both backends, bad options -> exit 2")
def t_usage(c):
    meta = {"arrivalRateQuery": "x", "serviceTime": "1"}
    r = explain(c, meta=meta, backend=None)
    assert r.rc == 2 and "no backend" in r.err, r
    r = explain(c, "--prometheus", c.m.prom_url, meta=meta)
    assert r.rc == 2 and "not both" in r.err, r
    r = explain(c, "--timeout", "0", meta=meta)
    assert r.rc == 2 and "--timeout" in r.err, r
    r = explain(c, "--name", "a/b", meta=meta)
    assert r.rc == 2 and "--file" in r.err, r


# ----------------------------------------------------------------------------


def main():
    def setup(c, a):
        c.env = dict(os.environ)
        h.shared_start(c, h.backends_all)

    return h.suite_main(test, setup, h.shared_stop)


if __name__ == "__main__":
    sys.exit(main())
