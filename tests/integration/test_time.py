#!/usr/bin/python3
"""Integration tests for decisions over time (docs/math.md, docs/deploy.md):
stale and missing data, the W fallback, clamping, smoothing in time, two
staffer pods with currentReplicasQuery, restarts with and without a state
file, the forecast at the cold-start horizon on a ramp, StreamIsActive and
schedule windows.  The real build/staffer against a real Prometheus (1 s
scrapes) and python3-grpcio, like test_serve.py.

    /usr/bin/python3 tests/integration/test_time.py [--bin build/staffer]
        [--smoke] [--only SUBSTRING]... [--label PREFIX]

The forecast ramp (50 s) runs in the background while the other tests run:
`forecast: start` starts it, `forecast: check` (after the tests that do not
disturb the exporter or Prometheus) waits for it and judges it.  The tests
that take the exporter target or Prometheus down come after that.
Prints `ok N - name` / `not ok N - name` per test and `N passed, N failed`.
"""

import datetime
import json
import os
import random
import re
import signal
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as h  # noqa: E402
from harness import grpc, note, expect_code  # noqa: E402

OK = grpc.StatusCode.OK
INVALID = grpc.StatusCode.INVALID_ARGUMENT
UNAVAIL = grpc.StatusCode.UNAVAILABLE

test = h.Registry()

HOLD = 4.0  # staleHoldSeconds used by the stale-data tests


_uniq = [0]


def uniq(tag):
    """A fresh metric/ScaledObject name: tests never share series or state."""
    _uniq[0] += 1
    # letters and digits only: a Prometheus metric name and a Kubernetes
    # name (DNS-1123) at once
    return "u%d%s%04d" % (_uniq[0], tag.replace("_", "").lower(),
                            random.randrange(10000))


def key(name, metric="staffer", ns="default"):
    """The ScaledObject key staffer's log lines carry."""
    return "%s/%s/%s" % (ns, name, metric)


def log_lines(srv, *words):
    return [l for l in srv.log().splitlines() if all(w in l for w in words)]


def wait_log(srv, what, *words, timeout=3):
    return h.wait_until(lambda: log_lines(srv, *words), timeout, 0.05,
                        "a log line with %s" % what)


def decision_field(line, field):
    m = re.search(r"\b%s=([-0-9.e+a-z]+)" % re.escape(field), line)
    return float(m.group(1)) if m else None


def start_server(c, args=(), port=None):
    s = h.Staffer(c.bin, config=c.cfg, env=c.env, wrapper=c.wrapper, port=port,
                  args=["--log-level", "info", "--grace-seconds", "3"] + list(args))
    return s.start(c.ready_timeout)


def stop_server(s, sig=signal.SIGTERM):
    rc, dt = s.stop(8, sig)
    if sig == signal.SIGTERM:
        assert rc == 0, "staffer exited %r after SIGTERM\n%s" % (rc, s.log_tail())
    reps = s.sanitizer_reports()
    assert not reps, "\n".join(reps[:20])
    return rc


def watch_hold(c, cases, hold, timeout):
    """Poll each case (GetMetrics and IsActive) every 0.25 s until every one
    answers UNAVAILABLE on both.  While a case answers OK its target must be
    the held one and its activity the held one (never lower, never 0).
    cases: dicts with meta, name, target, active, t_good (last good call),
    rpcs ("both" or "active").  Fills t_unavail and the details."""
    end = time.monotonic() + timeout
    while True:
        pending = 0
        for cs in cases:
            for rpc in (("metrics", "active") if cs.get("rpcs", "both") == "both"
                        else ("active",)):
                if ("t_unavail_" + rpc) in cs:
                    continue
                if rpc == "metrics":
                    got, d, r = h.status(c.cl.target, cs["meta"], name=cs["name"])
                    want = cs["target"]
                else:
                    got, d, r = h.status(c.cl.active, cs["meta"], name=cs["name"])
                    want = cs["active"]
                now = time.monotonic()
                if got == OK:
                    assert r == want, ("%s %s answered %r while the data is unknown "
                                       "(held value %r, %.1fs after the last good read)"
                                       % (cs["what"], rpc, r, want, now - cs["t_good"]))
                    cs.setdefault("held_" + rpc, 0)
                    cs["held_" + rpc] += 1
                    cs["t_held_" + rpc] = now
                    pending += 1
                elif got == UNAVAIL:
                    cs["t_unavail_" + rpc] = now
                    cs["msg_" + rpc] = d
                else:
                    raise AssertionError("%s %s: %s %r" % (cs["what"], rpc, got, d))
        if not pending:
            return
        if time.monotonic() > end:
            raise AssertionError("still answering after %.0fs: %r" % (timeout, cases))
        time.sleep(0.25)


def check_hold(cs, hold, rpcs=("metrics", "active")):
    """The hold lasted hold seconds from the last good read (with slack for
    the poll interval), and answered the held value throughout."""
    for rpc in rpcs:
        t = cs["t_unavail_" + rpc] - cs["t_good"]
        assert cs.get("held_" + rpc, 0) >= 1, \
            "%s %s: UNAVAILABLE at once (%.2fs after the last good read), no hold: %s" % (
                cs["what"], rpc, t, cs["msg_" + rpc])
        assert hold - 0.3 <= t <= hold + 1.2, "%s %s: UNAVAILABLE %.2fs after the last good " \
            "read (staleHoldSeconds %g)" % (cs["what"], rpc, t, hold)
        assert "staleHoldSeconds" in cs["msg_" + rpc], cs["msg_" + rpc]


# ----------------------------------------------------------------------------
# 7a. the forecast ramp runs in the background (judged by t_forecast_check)

RAMP_FLAT = 25.0   # seconds at 1 req/s before the ramp: the forecast needs half
                   # of forecastWindowSeconds (60 s) of history
RAMP_SECS = 40.0   # 1 -> 9 req/s, +0.2 req/s every second
W_RAMP = 10.0


def forecast_meta(lam_query, **kw):
    m = {"arrivalRateQuery": lam_query, "serviceTime": str(int(W_RAMP)),
         "staffing": "none"}
    m.update(kw)
    return m


@test("forecast: start a 40 s ramp (+0.2 req/s per s, after 25 s flat) in the background",
      timeout=20)
def t_forecast_start(c):
    p = uniq("ramp")
    lam = p + "_arrival_rate"
    c.m.update(**{lam: 1})
    fc = {"lam": lam, "samples": [], "errors": [], "done": threading.Event()}
    fc["meta_none"] = forecast_meta(lam, coldStartSeconds="0", peakedness="off")
    fc["meta_fc"] = forecast_meta(lam, coldStartSeconds="30", forecastWindowSeconds="60",
                                  forecastAlpha="0.8", forecastBeta="0.5",
                                  forecastMethod="holt")
    fc["meta_def"] = forecast_meta(lam, coldStartSeconds="30", forecastWindowSeconds="60")
    fc["names"] = (uniq("nofc"), uniq("fc"), uniq("fcdef"))
    cl = h.Client(c.srv.addr)
    # one call each now: all three answer 10 on the flat part
    vals = [cl.target(m, name=n) for m, n in zip(
        (fc["meta_none"], fc["meta_fc"], fc["meta_def"]), fc["names"])]
    assert vals == [10, 10, 10], vals

    def run():
        try:
            t_ramp = None
            t_flat_end = time.time() + RAMP_FLAT
            while True:
                now = time.time()
                if t_ramp is None and now >= t_flat_end:
                    t_ramp = c.m.ramp(lam, 1, 1 + 0.2 * RAMP_SECS, RAMP_SECS)
                    fc["t_ramp"] = t_ramp
                if t_ramp is not None and now > t_ramp + RAMP_SECS + 1:
                    break
                try:
                    row = [now]
                    for m, n in zip((fc["meta_none"], fc["meta_fc"], fc["meta_def"]),
                                    fc["names"]):
                        row.append(cl.target(m, name=n))
                    fc["samples"].append(tuple(row))
                except Exception as e:  # noqa
                    fc["errors"].append("%.1f: %r" % (now - (t_ramp or now), e))
                time.sleep(max(0.0, 0.5 - (time.time() - now)))
        except Exception as e:  # noqa
            fc["errors"].append(repr(e))
        finally:
            cl.close()
            fc["done"].set()
    threading.Thread(target=run, daemon=True).start()
    c.fc = fc


# ----------------------------------------------------------------------------
# 1. stale and missing data


@test("stale: series disappears / NaN from 0/0 -> last target and activity held for "
      "staleHoldSeconds, then UNAVAILABLE; answers resume with data", smoke=True, timeout=40)
def t_stale(c):
    p = uniq("gone")
    meta = c.m.signals(p, lam=2, w=10)
    meta["staleHoldSeconds"] = "%g" % HOLD
    num, den = p + "_num", p + "_den"
    c.m.update(**{num: 20, den: 10})
    meta_nan = dict(meta, arrivalRateQuery="%s / %s" % (num, den))
    gone = {"what": "series gone", "meta": meta, "name": uniq("so"), "target": 27,
            "active": True}
    nan = {"what": "NaN", "meta": meta_nan, "name": uniq("so"), "target": 27,
           "active": True}
    for cs in (gone, nan):
        assert c.cl.target(cs["meta"], name=cs["name"]) == 27
        assert c.cl.active(cs["meta"], name=cs["name"]) is True
        cs["t_good"] = time.monotonic()
    t_change = time.monotonic()
    c.m.delete(p + "_arrival_rate")
    c.m.set(**{num: 0, den: 0})
    c.m.wait_absent(p + "_arrival_rate")
    c.m.wait_value(meta_nan["arrivalRateQuery"], float("nan"))
    note("signals unknown in Prometheus %.2fs after the change" % (time.monotonic() - t_change))
    watch_hold(c, [gone, nan], HOLD, HOLD + 6)
    for cs in (gone, nan):
        note("%s: held %d+%d answers (target %d, active), UNAVAILABLE %.2fs after the last "
             "good read: %s" % (cs["what"], cs["held_metrics"], cs["held_active"],
                                cs["target"], cs["t_unavail_metrics"] - cs["t_good"],
                                cs["msg_metrics"]))
        check_hold(cs, HOLD)
    assert "no series" in gone["msg_metrics"], gone["msg_metrics"]
    assert "NaN" in nan["msg_metrics"], nan["msg_metrics"]
    for cs in (gone, nan):
        lines = log_lines(c.srv, key(cs["name"]), "holding the last target 27")
        assert lines, "no 'holding the last target' line for %s" % cs["name"]
    note("log: %s" % lines[-1].strip())
    # data back: answers resume, from the new data
    c.m.update(**{p + "_arrival_rate": 2, num: 40, den: 10})
    assert c.cl.target(meta, name=gone["name"]) == 27
    assert c.cl.active(meta, name=gone["name"]) is True
    assert c.cl.target(meta_nan, name=nan["name"]) == 50  # lambda 4: 40 + 1.5*sqrt(40)
    # a 0/0 query with no good answer before: UNAVAILABLE at once, never 0
    d = expect_code(UNAVAIL, c.cl.metrics_raw,
                    {"arrivalRateQuery": "test_zero / test_zero", "serviceTime": "10"},
                    name=uniq("so"))
    assert "NaN" in d, d


@test("stale: IsActive alone (no GetMetrics before, as at zero replicas or with a push "
      "trigger) holds the last activity for staleHoldSeconds", timeout=30)
def t_stale_isactive_only(c):
    p = uniq("actonly")
    meta = c.m.signals(p, lam=0.5, w=10)
    meta["staleHoldSeconds"] = "%g" % HOLD
    act = {"what": "IsActive only", "meta": meta, "name": uniq("so"), "target": None,
           "active": True, "rpcs": "active"}
    assert c.cl.active(meta, name=act["name"]) is True
    act["t_good"] = time.monotonic()
    c.m.delete(p + "_arrival_rate")
    c.m.wait_absent(p + "_arrival_rate")
    watch_hold(c, [act], HOLD, HOLD + 6)
    note("IsActive only: %d held answers, UNAVAILABLE %.2fs after the last good read: %s"
         % (act.get("held_active", 0), act["t_unavail_active"] - act["t_good"],
            act["msg_active"]))
    check_hold(act, HOLD, rpcs=("active",))


@test("a query returning two series -> INVALID_ARGUMENT mentioning sum(), not held",
      smoke=True)
def t_two_series(c):
    meta = {"arrivalRateQuery": "test_two_series", "serviceTime": "10"}
    for fn in (c.cl.metrics_raw, c.cl.active):
        d = expect_code(INVALID, fn, meta, name=uniq("so"))
        assert "sum()" in d and "arrivalRateQuery" in d, d
    note("two series: %s" % d)
    # a trigger with a good target whose query starts matching two series is
    # a configuration error at once, not an outage to hold through
    p = uniq("multi")
    lam = p + "_arrival_rate"
    c.m.update(**{lam + '{shard="a"}': 2})
    meta = {"arrivalRateQuery": lam, "serviceTime": "10", "staleHoldSeconds": "60"}
    name = uniq("so")
    assert c.cl.target(meta, name=name) == 27
    c.m.set(**{lam + '{shard="b"}': 1})
    h.wait_until(lambda: len(c.m.query(lam)) == 2, 10, 0.1, "two series in Prometheus")
    d = expect_code(INVALID, c.cl.metrics_raw, meta, name=name)
    assert "sum()" in d, d


# ----------------------------------------------------------------------------
# 2. W fallback


@test("W fallback: last good W (over serviceTime), else serviceTime, else UNAVAILABLE",
      smoke=True, timeout=40)
def t_w_fallback(c):
    p = uniq("wfb")
    meta = c.m.signals(p, lam=2, w=10)
    meta.update(serviceTime="2.5", staleHoldSeconds="1")
    name = uniq("so")
    assert c.cl.target(meta, name=name) == 27          # W = 10 from the query
    t_good = time.monotonic()
    c.m.delete(p + "_service_time")
    c.m.wait_absent(p + "_service_time")
    assert c.cl.target(meta, name=name) == 27          # last good W, not serviceTime 2.5
    time.sleep(max(0.0, t_good + 1.5 - time.monotonic()))  # past staleHoldSeconds 1
    assert c.cl.target(meta, name=name) == 27, "the last good W expired with the hold"
    assert not log_lines(c.srv, key(name), "holding"), \
        "a missing W with a known W is not stale data: %s" % log_lines(c.srv, key(name), "holding")
    c.m.update(**{p + "_arrival_rate": 4})
    assert c.cl.target(meta, name=name) == 50, "not computed with the last W (10)"
    # no earlier W: serviceTime 2.5 -> L = 10, 10 + 1.5*sqrt(10) = 14.7 -> 15
    assert c.cl.target(meta, name=uniq("so")) == 15
    # neither: UNAVAILABLE, naming serviceTimeQuery (no hold without a good target)
    bare = {k: v for k, v in meta.items() if k != "serviceTime"}
    d = expect_code(UNAVAIL, c.cl.metrics_raw, bare, name=uniq("so"))
    assert "serviceTimeQuery" in d, d
    note("no W at all: %s" % d)
    # no demand: an unknown W does not matter
    c.m.update(**{p + "_arrival_rate": 0})
    assert c.cl.target(bare, name=uniq("so")) == 0


# ----------------------------------------------------------------------------
# 3. negative values


@test("negative values are clamped to 0 and logged", smoke=True)
def t_clamp(c):
    p = uniq("neg")
    meta = c.m.signals(p, lam=-1, w=10, q=-5)
    name = uniq("so")
    assert c.cl.target(meta, name=name) == 0
    assert c.cl.active(meta, name=name) is False
    lines = wait_log(c.srv, "'clamped to 0' for arrivalRateQuery", key(name),
                     "arrivalRateQuery", "clamped to 0")
    wait_log(c.srv, "'clamped to 0' for queueDepthQuery", key(name), "queueDepthQuery",
             "clamped to 0")
    note("log: %s" % lines[-1].strip())
    # a negative queue next to real traffic changes nothing
    p = uniq("negq")
    meta = c.m.signals(p, lam=2, w=10, q=-3)
    assert c.cl.target(meta, name=uniq("so")) == 27


# ----------------------------------------------------------------------------
# 4. smoothing in time


@test("smoothing in time: step 2 per 2 s period with a call every 0.2 s -> 3 drops in 7.5 s",
      timeout=30)
def t_smoothing_time(c):
    p = uniq("smt")
    meta = c.m.signals(p, lam=2, w=10)
    # v1's step (no hold: coldStartSeconds 0)
    meta.update(staffing="none", scaleDownPeriodSeconds="2", scaleDownStep="2",
                coldStartSeconds="0")
    name = uniq("so")
    t0 = time.monotonic()
    assert c.cl.target(meta, name=name) == 20
    c.m.update(**{p + "_arrival_rate": 0.5})      # raw 5
    samples = []
    while time.monotonic() - t0 < 7.5:   # drops at >= 2, 4, 6 s; a 4th needs 8 s
        samples.append((time.monotonic() - t0, c.cl.target(meta, name=name)))
        time.sleep(0.2)
    drops = [(t, a, b) for (_, a), (t, b) in zip([(0, 20)] + samples, samples) if b != a]
    note("%d calls in %.1fs; drops at %s" % (len(samples), samples[-1][0],
                                            ", ".join("%.2fs %d->%d" % d for d in drops)))
    for t, a, b in drops:
        assert a - b == 2, "dropped %d->%d (step 2)" % (a, b)
    times = [0.0] + [t for t, _, _ in drops]
    for x, y in zip(times, times[1:]):
        assert y - x >= 2.0 - 0.05, "drops %.2fs apart (period 2 s): %r" % (y - x, drops)
    assert len(drops) == 3, "expected 3 drops (20 -> 14) in 7.5 s of calls: %r" % drops
    assert samples[-1][1] == 14


# ----------------------------------------------------------------------------
# 9. schedule windows


def hhmm(minutes):
    minutes %= 24 * 60
    return "%02d:%02d" % (minutes // 60, minutes % 60)


@test("schedule: a window covering now (beta=3) changes the answer; malformed -> "
      "INVALID_ARGUMENT naming the window", smoke=True)
def t_schedule(c):
    p = uniq("sched")
    meta = c.m.signals(p, lam=2, w=10)
    now = datetime.datetime.now(datetime.timezone.utc)
    if now.second >= 55:  # do not straddle a minute boundary of the window
        time.sleep(61 - now.second)
        now = datetime.datetime.now(datetime.timezone.utc)
    m = now.hour * 60 + now.minute
    covering = "%s-%s beta=3" % (hhmm(m - 1), hhmm(m + 59))
    elsewhere = "%s-%s beta=3" % (hhmm(m + 120), hhmm(m + 180))
    name_in, name_out = uniq("so"), uniq("so")
    base = c.cl.target(meta, name=uniq("so"))
    got_in = c.cl.target(dict(meta, schedule=covering), name=name_in)
    got_out = c.cl.target(dict(meta, schedule=elsewhere), name=name_out)
    note("UTC %s: no schedule %d; '%s' -> %d; '%s' -> %d"
         % (now.strftime("%H:%M:%S"), base, covering, got_in, elsewhere, got_out))
    assert base == 27 and got_out == 27, (base, got_out)
    assert got_in == 34, "beta=3: 20 + 3*sqrt(20) = 33.4 -> 34, got %d" % got_in
    line = wait_log(c.srv, "the decision for " + name_in, "decision", key(name_in))[-1]
    assert "window=" in line, line
    # the same window in another zone: Asia/Kolkata is UTC+05:30 all year
    mk = m + 330
    kol = "%s-%s beta=3" % (hhmm(mk - 1), hhmm(mk + 59))
    assert c.cl.target(dict(meta, schedule=kol, timezone="Asia/Kolkata"),
                       name=uniq("so")) == 34
    assert c.cl.target(dict(meta, schedule=covering, timezone="Asia/Kolkata"),
                       name=uniq("so")) == 27
    # malformed windows name the window
    for sched, words in (("Mon-Fry 08:00-19:00 beta=2", ["Mon-Fry 08:00-19:00 beta=2", "Fry"]),
                         ("8:00-19:00 beta=2", ["8:00-19:00 beta=2", "time range"]),
                         ("08:00-19:00 betta=2", ["08:00-19:00 betta=2", "'beta'"]),
                         ("08:00-19:00 beta=2; 18:00-07:00 beta=1", ["overlap"])):
        for fn in (c.cl.metrics_raw, c.cl.active, c.cl.spec):
            d = expect_code(INVALID, fn, dict(meta, schedule=sched), name=uniq("so"))
            assert "schedule" in d and all(w in d for w in words), (sched, d)
    note("malformed: %s" % d)


# ----------------------------------------------------------------------------
# 5. two pods with currentReplicasQuery


@test("two pods with currentReplicasQuery agree across a scale-down, step only after the "
      "count is stable for the period; scale-up at once on both", timeout=60)
def t_two_pods(c):
    period = 3.0
    p = uniq("pods")
    lam = p + "_arrival_rate"
    cur = "test_current_replicas"
    c.m.update(**{lam: 1, cur: 10})
    meta = {"arrivalRateQuery": lam, "serviceTime": "10", "staffing": "none",
            "currentReplicasQuery": cur, "scaleDownPeriodSeconds": "%g" % period,
            "scaleDownStep": "1", "coldStartSeconds": "0"}   # v1's step, no hold
    name = "chat"
    a = start_server(c)
    b = start_server(c)
    ca, cb = h.Client(a.addr), h.Client(b.addr)
    try:
        assert (ca.target(meta, name=name), cb.target(meta, name=name)) == (10, 10)
        time.sleep(period)                 # the count has been 10 for a period
        c.m.update(**{lam: 0.2})           # raw 2
        seq = []                           # (t, pod, answer), in the order asked
        pairs = []                         # (t, answer a, answer b)
        sets = [(time.monotonic(), 10)]    # (t, current set at the exporter)
        current = 10
        t0 = time.monotonic()
        while current > 7 and time.monotonic() - t0 < 30:
            ta = time.monotonic()
            va = ca.target(meta, name=name)
            seq.append((ta, "a", va))
            time.sleep(0.1)
            tb = time.monotonic()
            vb = cb.target(meta, name=name)
            seq.append((tb, "b", vb))
            pairs.append((ta, va, vb))
            if va == vb < current:         # the HPA follows the answer
                current = va
                c.m.set(**{cur: current})
                sets.append((time.monotonic(), current))
            time.sleep(0.1)
        vals = [v for _, _, v in seq]
        steps = []
        for (t1, p1, v1), (t2, p2, v2) in zip(seq, seq[1:]):
            assert v2 <= v1, "answers went back up %d -> %d (pods %s, %s)" % (v1, v2, p1, p2)
            assert v1 - v2 <= 1, "dropped %d at once (step 1)" % (v1 - v2)
            if v2 < v1:
                steps.append((t2, v2))
        note("answers (s after the drop in traffic: value): %s" %
             " ".join("%.1f:%d" % (t - t0, v) for t, v in steps))
        note("current set by the 'HPA': %s" %
             " ".join("%.1f:%d" % (t - t0, v) for t, v in sets[1:]))
        # pods differ only at the instant of a step (one straddling pair per step)
        diff = [(t - t0, x, y) for t, x, y in pairs if x != y]
        note("%d pairs, %d differed (at a step: a=%s)" % (
            len(pairs), len(diff), ", ".join("%.1f:%d/%d" % d for d in diff) or "-"))
        for t, x, y in diff:
            assert x == y + 1, "pods disagree at %.1fs: a %d, b %d" % (t, x, y)
        assert len(diff) <= len(steps), diff
        assert vals[0] == 9, "first answer after the drop: %d (current 10 stable)" % vals[0]
        assert current == 7, "did not reach 7 in 30 s: %r" % vals[-10:]
        # each new count holds the answer for a period before the next step
        # (the first answer, 9, came at once: the count 10 had been stable)
        assert len(steps) == len(sets) - 2, (steps, sets)
        for (ts, k), (tn, kn) in zip(sets[1:], steps):
            held = tn - ts
            note("count %d set -> answer %d after %.2fs" % (k, kn, held))
            assert kn == k - 1
            assert period - 0.1 <= held <= period + 2.6, \
                "answer %d came %.2fs after the count became %d (period %gs)" % (
                    kn, held, k, period)
        # scale-up is immediate on both
        c.m.update(**{lam: 2})
        assert (ca.target(meta, name=name), cb.target(meta, name=name)) == (20, 20)
        la = log_lines(a, key(name), "decision", "state=observed")
        assert la, "no 'state=observed' decision line"
    finally:
        ca.close()
        cb.close()
        stop_server(a)
        stop_server(b)


# ----------------------------------------------------------------------------
# 6. restarts


@test("hold: after lambda falls, two pods and a freshly started third one (no state "
      "file, no currentReplicasQuery) keep the answer for scaleDownHoldSeconds, then "
      "all drop to the new one at once", timeout=60)
def t_hold_pods(c):
    hold = 12.0
    p = uniq("hold")
    lam = p + "_arrival_rate"
    c.m.update(**{lam: 2})
    meta = {"arrivalRateQuery": lam, "serviceTime": "10", "staffing": "none",
            "peakedness": "off", "scaleDownHoldSeconds": "%g" % hold,
            "forecastWindowSeconds": "60"}
    name = "chat"
    a = start_server(c)
    b = start_server(c)
    ca, cb = h.Client(a.addr), h.Client(b.addr)
    fresh = None
    try:
        assert (ca.target(meta, name=name), cb.target(meta, name=name)) == (20, 20)
        time.sleep(hold + 2)                 # 2 req/s for a whole hold
        c.m.update(**{lam: 0.15})            # raw 2 (exact 1.5)
        t_drop = time.monotonic()
        # a process that never saw this ScaledObject holds too: the hold is
        # in the series, not in memory
        fresh = start_server(c)
        with h.Client(fresh.addr) as cf:
            assert cf.target(meta, name=name) == 20, "a fresh pod did not hold"
        rows = []
        while time.monotonic() - t_drop < hold + 15:
            va, vb = ca.target(meta, name=name), cb.target(meta, name=name)
            rows.append((time.monotonic() - t_drop, va, vb))
            if va == vb == 2:
                break
            time.sleep(0.25)
        note("answers after lambda fell (s: a/b): %s" % " ".join(
            "%.1f:%d/%d" % r for r in rows[::4] + rows[-1:]))
        held = [t for t, va, vb in rows if va == 20 and vb == 20]
        first = [t for t, va, vb in rows if va < 20 or vb < 20]
        assert first, "never dropped in %gs: %r" % (hold + 15, rows[-3:])
        # nothing before the hold has passed (less a step of the series and
        # the scrape), everything within the hold plus the cache and a step
        assert first[0] >= hold - 6, "dropped %.1fs after lambda fell (hold %gs)" % (
            first[0], hold)
        assert rows[-1][1:] == (2, 2), "not at the new answer: %r" % (rows[-1],)
        assert rows[-1][0] <= hold + 15
        # the drop is all at once (no step limit by default) and the pods
        # agree but at the instant it happens
        assert all(v in (20, 2) for _, va, vb in rows for v in (va, vb)), rows
        assert len([r for r in rows if r[1] != r[2]]) <= 1, rows
        assert held, rows
        with h.Client(fresh.addr) as cf:
            assert cf.target(meta, name=name) == 2, "the fresh pod disagrees"
    finally:
        ca.close()
        cb.close()
        stop_server(a)
        stop_server(b)
        if fresh:
            stop_server(fresh)


@test("the state file is written by its own thread: the last answers reach it with no "
      "call after them", timeout=40)
def t_state_saver(c):
    # Saves used to ride on evaluations: the last changes before a quiet
    # spell stayed unsaved until the next call, and a crash then lost them.
    p = uniq("svr")
    lam = p + "_arrival_rate"
    c.m.update(**{lam: 1})
    meta = {"arrivalRateQuery": lam, "serviceTime": "10", "staffing": "none"}
    sf = os.path.join(h.tmpdir(), "saver.json")
    s = start_server(c, ["--state-file", sf])
    try:
        names = [uniq("so") for _ in range(5)]
        with h.Client(s.addr) as cl:
            for n in names:                  # all within the same second
                assert cl.target(meta, name=n) == 10

        def saved():
            try:
                text = open(sf).read()
            except OSError:
                return False
            return all(":default/%s/" % n in text for n in names)
        t0 = time.monotonic()
        h.wait_until(saved, 4, 0.1, "all five states in the file with no call after them")
        note("saved %.2fs after the last call" % (time.monotonic() - t0))
        # what a crash (SIGKILL) leaves is a whole file, not half of one
        stop_server(s, signal.SIGKILL)
        s = None
        d = json.load(open(sf))
        assert d["version"] == 2 and len(d["states"]) >= 5, d
    finally:
        if s:
            stop_server(s)


@test("restart with --state-file continues the staircase; without it a fresh process "
      "answers the raw target", timeout=60)
def t_restart(c):
    period = 3.0
    p = uniq("rst")
    lam = p + "_arrival_rate"
    c.m.update(**{lam: 1})
    meta = {"arrivalRateQuery": lam, "serviceTime": "10", "staffing": "none",
            "scaleDownPeriodSeconds": "%g" % period, "scaleDownStep": "1",
            "coldStartSeconds": "0"}                     # v1's step, no hold
    name = uniq("so")
    sf = os.path.join(h.tmpdir(), "state.json")
    s = start_server(c, ["--state-file", sf])
    port = s.port
    with h.Client(s.addr) as cl:
        assert cl.target(meta, name=name) == 10
        c.m.update(**{lam: 0.2})                 # raw 2
        t_drop = None
        while True:
            v = cl.target(meta, name=name)
            if v < 10:
                t_drop = time.monotonic()
                break
            time.sleep(0.1)
        assert v == 9, v
        time.sleep(1.3)                          # a save (every 1 s) has happened
        pre = cl.target(meta, name=name)
    assert pre == 9
    stop_server(s)
    # keyed by namespace, name and the metadata's fingerprint (scaler.c)
    assert os.path.exists(sf) and ":default/%s/" % name in open(sf).read(), \
        "state file lacks %s" % name

    s = start_server(c, ["--state-file", sf], port=port)
    with h.Client(s.addr) as cl:
        first = cl.target(meta, name=name)
        t_first = time.monotonic()
        note("state file: %d before SIGTERM, first answer after restart %d (%.1fs after the "
             "last step; raw 2)" % (pre, first, t_first - t_drop))
        assert pre - 1 <= first <= pre, "first answer %d after restart (before %d)" % (first, pre)
        # the next step keeps the period counted from the step before the restart
        while True:
            v = cl.target(meta, name=name)
            if v < first:
                break
            time.sleep(0.1)
        t_next = time.monotonic()
        note("next step %d -> %d %.2fs after the previous one (period %gs)"
             % (first, v, t_next - t_drop, period))
        assert v == first - 1
        assert period - 0.1 <= t_next - t_drop <= period + 1.0, t_next - t_drop
        time.sleep(1.3)
        pre2 = cl.target(meta, name=name)
    # a crash (SIGKILL) loses at most the last second of state
    stop_server(s, signal.SIGKILL)
    s = start_server(c, ["--state-file", sf], port=port)
    with h.Client(s.addr) as cl:
        first2 = cl.target(meta, name=name)
    note("after SIGKILL: %d before, %d after" % (pre2, first2))
    assert pre2 - 1 <= first2 <= pre2, (pre2, first2)
    stop_server(s)

    # without a state file (and without currentReplicasQuery) smoothing has no
    # memory: a fresh process answers the raw target at once (docs/deploy.md)
    s = start_server(c, port=port)
    with h.Client(s.addr) as cl:
        fresh = cl.target(meta, name=name)
    stop_server(s)
    note("INFO without a state file: answer %d before the restart, first answer after it "
         "%d (the raw target 2): a restart without state may drop more than a step"
         % (first2, fresh))
    assert fresh == 2, "a fresh process answered %d, not the raw target 2" % fresh


@test("restart with --state-file keeps the answer hold: an answer a backlog raised "
      "stays held across the restart; a process without the file holds only the "
      "arrival rate's series", timeout=90)
def t_restart_hold(c):
    hold = 14.0
    p = uniq("rhold")
    meta = c.m.signals(p, lam=2, q=0)
    meta.update(serviceTime="10", staffing="none", peakedness="off",
                surgeQuantile="0", scaleDownHoldSeconds="%g" % hold,
                forecastWindowSeconds="60")
    qd = p + "_queue_depth"
    name = uniq("so")
    sf = os.path.join(h.tmpdir(), "state.json")
    s = start_server(c, ["--state-file", sf])
    port = s.port
    with h.Client(s.addr) as cl:
        base = cl.target(meta, name=name)
        assert base == 20, base
        # the answer hold stands on its own once it has seen a whole hold
        t0 = time.monotonic()
        while time.monotonic() - t0 < hold + 1:
            assert cl.target(meta, name=name) == base
            time.sleep(0.5)
        c.m.update(**{qd: 300})                 # a backlog: the drain term
        h.wait_until(lambda: cl.target(meta, name=name) > base, 10, 0.2,
                     "the backlog raising the answer")
        high = cl.target(meta, name=name)
        c.m.update(**{qd: 0})
        time.sleep(2.5)                          # the cache and a save
        assert cl.target(meta, name=name) == high, "not held before the restart"
    stop_server(s)
    d = json.load(open(sf))
    st = [x for x in d["states"] if ":default/%s/" % name in x["key"]]
    assert st and "hold" in st[0], st
    s = start_server(c, ["--state-file", sf], port=port)
    try:
        with h.Client(s.addr) as cl:
            after = cl.target(meta, name=name)
    finally:
        stop_server(s)
    # the same state without the hold's spans (as written before they were
    # kept): the arrival rate's series alone holds, and the answer falls
    for x in d["states"]:
        x.pop("hold", None)
    json.dump(d, open(sf, "w"))
    s = start_server(c, ["--state-file", sf], port=port)
    try:
        with h.Client(s.addr) as cl:
            spanless = cl.target(meta, name=name)
    finally:
        stop_server(s)
    note("backlog answer %d (base %d); after a restart: %d with the hold's spans, %d "
         "without" % (high, base, after, spanless))
    assert after == high, "the restart lost the hold: %d, was %d" % (after, high)
    assert spanless < high, "the case shows nothing: %d without the spans" % spanless


# ----------------------------------------------------------------------------
# 8. StreamIsActive


@test("StreamIsActive: false at once, true pushed after traffic appears, no repeat, "
      "a new true after idle; SIGTERM ends it with OK", timeout=60)
def t_stream(c):
    p = uniq("push")
    meta = c.m.signals(p, lam=0, q=0)
    meta.update(serviceTime="10", pushIntervalSeconds="1")
    qd = p + "_queue_depth"
    s = start_server(c)
    cl = h.Client(s.addr)
    try:
        st = cl.stream(meta, name=uniq("so"))
        first = st.next(timeout=3)
        assert first is not None, "stream ended: %s %s" % (st.code, st.details)
        note("first message %s after %.3fs" % (first[1], first[0] - st.t_open))
        assert first[1] is False and first[0] - st.t_open < 1.0, first
        lat = []
        for round_ in (1, 2):
            t_set = time.monotonic()
            c.m.set(**{qd: 3})
            m = st.next(timeout=8)
            assert m is not None, "stream ended: %s %s" % (st.code, st.details)
            assert m[1] is True, m
            lat.append(m[0] - t_set)
            note("round %d: true pushed %.2fs after the queue became 3 at the exporter "
                 "(pushInterval 1 s + scrape 1 s)" % (round_, lat[-1]))
            assert lat[-1] < 1 + 1 + 2, "push took %.2fs" % lat[-1]
            try:   # no second true while it stays active (3 intervals)
                extra = st.next(timeout=3.2)
                raise AssertionError("message while still active: %r" % (extra,))
            except h.queue.Empty:
                pass
            if round_ == 1:
                c.m.update(**{qd: 0})
                try:   # false is not pushed; the stream sees idle
                    extra = st.next(timeout=2.2)
                    raise AssertionError("message on active -> idle: %r" % (extra,))
                except h.queue.Empty:
                    pass
        t_term = time.monotonic()
        s.kill_with(signal.SIGTERM)
        assert st.wait_end(6), "stream still open 6 s after SIGTERM"
        note("SIGTERM: stream ended after %.2fs with %s" % (
            st.t_end - t_term, getattr(st.code, "name", st.code)))
        assert st.code == OK, (st.code, st.details)
        assert len(st.msgs) == 3, st.msgs
    finally:
        cl.close()
        stop_server(s)


# ----------------------------------------------------------------------------
# 7b. the forecast, judged


def at(samples, t, col):
    """The value of column col at the last sample taken at or before t."""
    best = None
    for row in samples:
        if row[0] <= t:
            best = row[col]
        else:
            break
    return best


@test("forecast: with coldStartSeconds 30 the answer at t is >= the no-forecast answer at "
      "t+18 s during the ramp; the log shows forecast > lambda", timeout=90)
def t_forecast_check(c):
    fc = getattr(c, "fc", None)
    assert fc, "the ramp was not started"
    assert fc["done"].wait(80), "ramp still running"
    assert not fc["errors"], "errors while sampling: %s" % fc["errors"][:5]
    t_ramp = fc["t_ramp"]
    S = fc["samples"]
    rows = []
    for t in range(0, int(RAMP_SECS) + 1, 2):
        rows.append("%d:%s/%s/%s" % (t, at(S, t_ramp + t, 1), at(S, t_ramp + t, 2),
                                     at(S, t_ramp + t, 3)))
    note("ramp second: no forecast / Holt (alpha .8 beta .5) / defaults (auto)")
    for i in range(0, len(rows), 7):
        note("  " + " ".join(rows[i:i + 7]))
    # the forecast only ever raises lambda: never below the answer without it
    for row in S:
        assert row[2] >= row[1] and row[3] >= row[1], row
    # ahead of the ramp: at t (12..20 s into the ramp) at least the no-forecast
    # answer at t+18 s (20 s less 2 s for scrape and step jitter)
    bad, ahead = [], []
    for row in S:
        t = row[0] - t_ramp
        if 12 <= t <= 20:
            later = at(S, row[0] + 18, 1)
            ahead.append(row[2] - later)
            if row[2] < later:
                bad.append("t=%.1f: forecast %d < no-forecast %d at t+18" % (t, row[2], later))
    note("t 12..20 s: forecast answer minus the no-forecast answer 18 s later: min %d, max %d"
         % (min(ahead), max(ahead)))
    assert not bad, "\n".join(bad)
    # defaults (forecastMethod auto: Holt once its backtest earns it, alpha 0.3,
    # beta 0.15): how long before they are ahead, for the record
    first_def = None
    for row in S:
        t = row[0] - t_ramp
        if 0 <= t <= RAMP_SECS - 18 and row[3] >= at(S, row[0] + 18, 1):
            first_def = t
            break
    note("defaults (auto, alpha .3 beta .15): ahead by 18 s from %s into the ramp" %
         ("%.1fs" % first_def if first_def is not None else "never (within %ds)"
          % (RAMP_SECS - 18)))
    # the decision line shows the forecast above lambda
    lines = log_lines(c.srv, "decision", key(fc["names"][1]))
    up = [l for l in lines if (decision_field(l, "forecast") or 0) >
          (decision_field(l, "lambda") or 0) > 1.5]
    assert up, "no decision line with forecast > lambda: %s" % lines[-3:]
    note("log: %s" % up[len(up) // 2].strip())


# ----------------------------------------------------------------------------
# 1b. outages: the exporter target down, Prometheus down


@test("stale: exporter target down (series marked stale) -> held, then UNAVAILABLE; "
      "resumes when it is back", timeout=40)
def t_target_down(c):
    p = uniq("tdown")
    meta = c.m.signals(p, lam=2, w=10)
    meta["staleHoldSeconds"] = "%g" % HOLD
    cs = {"what": "target down", "meta": meta, "name": uniq("so"), "target": 27,
          "active": True}
    assert c.cl.target(meta, name=cs["name"]) == 27
    assert c.cl.active(meta, name=cs["name"]) is True
    cs["t_good"] = time.monotonic()
    c.m.target_down()
    try:
        c.m.wait_absent(p + "_arrival_rate")
        watch_hold(c, [cs], HOLD, HOLD + 6)
        note("target down: held %d+%d answers, UNAVAILABLE %.2fs after the last good read: "
             "%s" % (cs["held_metrics"], cs["held_active"],
                     cs["t_unavail_metrics"] - cs["t_good"], cs["msg_metrics"]))
        check_hold(cs, HOLD)
    finally:
        c.m.target_up()
    c.m.wait_value(p + "_arrival_rate", 2)
    assert c.cl.target(meta, name=cs["name"]) == 27


@test("Prometheus stopped: target 27 held (never lower, never 0) until staleHoldSeconds, "
      "then UNAVAILABLE; resumes after restart", timeout=60)
def t_prom_stopped(c):
    p = uniq("pdown")
    meta = c.m.signals(p, lam=2, w=10)
    meta.update(staleHoldSeconds="%g" % HOLD)
    # a target above raw: smoothing holds 27 while raw is lower; an outage
    # must not let it fall either
    meta_sm = dict(meta, scaleDownPeriodSeconds="600")
    cs = {"what": "Prometheus down", "meta": meta, "name": uniq("so"), "target": 27,
          "active": True}
    sm = {"what": "Prometheus down (smoothed)", "meta": meta_sm, "name": uniq("so"),
          "target": 27, "active": True}
    assert c.cl.target(meta_sm, name=sm["name"]) == 27
    c.m.update(**{p + "_arrival_rate": 1})     # raw 1*10 + 1.5*sqrt(10) -> 15
    assert c.cl.target(meta_sm, name=sm["name"]) == 27   # smoothing holds 27
    sm["active"] = c.cl.active(meta_sm, name=sm["name"])
    sm["t_good"] = time.monotonic()
    c.m.update(**{p + "_arrival_rate": 2})
    assert c.cl.target(meta, name=cs["name"]) == 27
    assert c.cl.active(meta, name=cs["name"]) is True
    cs["t_good"] = time.monotonic()
    c.m.stop_prometheus()
    try:
        watch_hold(c, [cs, sm], HOLD, HOLD + 6)
        for x in (cs, sm):
            note("%s: held %d+%d answers at %d, UNAVAILABLE %.2fs after the last good read: "
                 "%s" % (x["what"], x["held_metrics"], x["held_active"], x["target"],
                         x["t_unavail_metrics"] - x["t_good"], x["msg_metrics"]))
            check_hold(x, HOLD)
    finally:
        c.m.start_prometheus()
    c.m.wait_value(p + "_arrival_rate", 2)
    h.wait_until(lambda: c.cl.target(meta, name=cs["name"]) == 27, 10, 0.2,
                 "GetMetrics to answer again after Prometheus restarted")
    assert c.cl.target(meta_sm, name=sm["name"]) == 27


@test("shared server: SIGTERM -> exit 0, no sanitizer reports", smoke=True, timeout=40)
def t_final_shutdown(c):
    rc, dt = c.srv.stop(10)
    note("shared server exited %s after %.2fs" % (rc, dt))
    assert rc == 0, "exit %r\n%s" % (rc, c.srv.log_tail())
    reps = c.srv.sanitizer_reports()
    assert not reps, "\n".join(reps[:20])


# ----------------------------------------------------------------------------


def main():
    def select(chosen, every):
        if any(t.fn is t_forecast_check for t in chosen) and \
                not any(t.fn is t_forecast_start for t in chosen):
            chosen.insert(0, [t for t in every if t.fn is t_forecast_start][0])
        if not any(t.fn is t_final_shutdown for t in chosen):
            chosen += [t for t in every if t.fn is t_final_shutdown]
        return chosen

    def setup(c, a):
        c.wrapper = ()
        c.env = {}
        c.ready_timeout = a.ready_timeout
        h.shared_start(c, lambda m: [{"name": "prom", "url": m.prom_url,
                                      "timeoutSeconds": 2}],
                       ["--grace-seconds", "5"], c.env, c.ready_timeout)

    return h.suite_main(test, setup, h.shared_stop, select,
                        [(("--ready-timeout",), {"type": float, "default": 20})])


if __name__ == "__main__":
    sys.exit(main())
