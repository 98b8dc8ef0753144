#!/usr/bin/python3
"""Range answers kept and extended (src/series.h) against full fetches, on
a real Prometheus whose data changes under them.

build/tests/rangecheck (tests/integration/rangecheck.c) asks Prometheus
for each query's range through staffer's fetch module, which keeps the
points it has and fetches only those not settled, and compares every
answer with full fetches of the same grid made just before and just
after it.  Meanwhile this script drives the exporter (Prometheus scrapes
it every second):

  test_rc_a        a counter, reset to 0 every 17 s
  test_rc_b        a counter whose series is gone 4 s of every 23 (a gap
                   and a staleness marker each time)
  test_rc_pod      a gauge whose pod label changes every 29 s (a query
                   without sum() then holds two series over the range)
  test_rc_n, _d    a quotient that is finite, NaN (0/0) or +Inf (x/0)

Two checks run side by side, each over RANGECHECK_SECONDS (default 120,
four ranges and more): a 30 s range at 1 s steps (every refresh extends
the grid), and a 35 s range at 7 s steps (a refresh within a step whose
points are all settled needs no request).  Every answer must equal a
full fetch's: error, times and values.  A third check derives the 7 s
range from the 1 s one (src/fetch.h), on Prometheus and through a proxy
whose points depend on the step (never derived from).  Two more drive
build/tests/derivecheck (tests/integration/derivecheck.c) against
scripted_prom.py: a step-dependent backend whose whole-grid refetch fails
once, and replies that turn off the grid and all NaN.

    /usr/bin/python3 tests/integration/test_range.py [--only SUBSTRING]...
        [--label PREFIX]

rangecheck is itself built with ASan and UBSan; --bin is not used.

Prints `ok N - name` / `not ok N - name` per test and `N passed, N failed`.
"""

import json
import os
import random
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as h  # noqa: E402
from harness import note  # noqa: E402

test = h.Registry()

CHECK = os.path.join(h.ROOT, "build", "tests", "rangecheck")
DERIVE = os.path.join(h.ROOT, "build", "tests", "derivecheck")
SECONDS = float(os.environ.get("RANGECHECK_SECONDS", "120"))
SETTLE = 3          # s: scrapes every 1 s land within milliseconds

# rangecheck's RANGECHECK_ALONE: asked at the range under test only
ALONE = "sum(rate(test_rc_b[5s]))"

QUERIES = [
    "sum(rate(test_rc_a[5s]))",
    "test_rc_a",
    "rate(test_rc_b[5s])",
    "test_rc_pod",
    "test_rc_n / test_rc_d",
    "sum(test_rc_none)",
]


class Driver(threading.Thread):
    """Changes the exporter's series every 0.25 s (see the docstring)."""

    def __init__(self, m):
        super().__init__(daemon=True)
        self.m = m
        self.stop = threading.Event()
        self.counts = {"resets": 0, "gaps": 0, "relabels": 0}
        self.error = None

    def run(self):
        rnd = random.Random(7)
        a = b = 0.0
        pod = 0
        b_gone = False
        t0 = time.monotonic()
        last = {"a": 0, "b": 0, "pod": 0}
        try:
            self.m.set_raw('test_rc_pod{pod="p0"}', 0)
            while not self.stop.is_set():
                t = time.monotonic() - t0
                a += rnd.uniform(0, 2)
                b += rnd.uniform(0, 3)
                if int(t / 17) != last["a"]:
                    last["a"] = int(t / 17)
                    a = 0.0
                    self.counts["resets"] += 1
                gone = t % 23 >= 19
                if gone and not b_gone:
                    self.m.delete("test_rc_b")
                    self.counts["gaps"] += 1
                b_gone = gone
                if int(t / 29) != last["pod"]:
                    last["pod"] = int(t / 29)
                    self.m.delete('test_rc_pod{pod="p%d"}' % pod)
                    pod += 1
                    self.counts["relabels"] += 1
                self.m.set_raw('test_rc_pod{pod="p%d"}' % pod, pod)
                upd = {"test_rc_a": "%.3f" % a,
                       "test_rc_n": rnd.choice(["0", "0", "%.2f" % a]),
                       "test_rc_d": "0" if int(t / 3) % 2 else "2"}
                if not b_gone:
                    upd["test_rc_b"] = "%.3f" % b
                self.m.set(**upd)
                self.stop.wait(0.25)
        except Exception as e:  # reported by the test
            self.error = e


def setup(c, args):
    if not os.access(CHECK, os.X_OK):
        raise RuntimeError("%s is not built (make build/tests/rangecheck)"
                           % CHECK)
    c.m = h.Metrics().start()
    c.on_fail = lambda: "Prometheus and exporter logs in " + c.m.dir


def teardown(c, failed):
    if getattr(c, "m", None):
        c.m.stop()
        if failed:
            note("logs kept in %s" % c.m.dir)


def parse(out):
    """The last 'rangecheck: k v k v ...' line as a dict of ints."""
    for line in reversed(out.splitlines()):
        if line.startswith("rangecheck: rounds "):
            w = line.split()[1:]
            return {w[i]: int(w[i + 1]) for i in range(0, len(w) - 1, 2)}
    return None


@test("kept and extended range answers equal full fetches over counter "
      "resets, gaps, NaN points and a replaced series (1 s and 7 s steps)",
      timeout=int(SECONDS) + 90)
def t_range_identity(c):
    d = Driver(c.m)
    d.start()
    time.sleep(3)       # the series exist before the first round
    runs = {}
    try:
        for name, rng, step in (("1s", 30, 1), ("7s", 35, 7)):
            runs[name] = subprocess.Popen(
                [CHECK, c.m.prom_url, str(SECONDS), str(rng), str(step),
                 str(SETTLE)] + QUERIES, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE)
            h._procs.append(runs[name])
        res = {}
        for name, p in runs.items():
            out, err = p.communicate(timeout=SECONDS + 60)
            res[name] = (p.returncode, parse(out.decode()), err.decode())
    finally:
        d.stop.set()
        d.join(5)
    assert d.error is None, "the exporter driver failed: %r" % d.error
    note("exporter: %(resets)d counter resets, %(gaps)d gaps, "
         "%(relabels)d series replaced" % d.counts)
    for name, (rc, r, err) in res.items():
        note("%s steps: %s" % (name, r))
        assert r is not None and rc == 0, \
            "%s steps: exit %d\n%s" % (name, rc, err[-3000:])
        assert r["differed"] == 0, r
        # most rounds compared (a round whose grid moved is not)
        assert r["compared"] >= 0.5 * r["rounds"] * len(QUERIES), r
        assert r["rounds"] >= SECONDS / 2, r
    r1, r7 = res["1s"][1], res["7s"][1]
    # the grid moves every second: tails, and a full fetch where the kept
    # points cannot tell (the replaced series) or an error came before
    assert r1["tail"] > 2 * r1["full"], r1
    # within a 7 s step a settled grid needs no request
    assert r7["renewed"] > 0, r7
    assert d.counts["resets"] >= 2 and d.counts["gaps"] >= 2 and \
        d.counts["relabels"] >= 2, d.counts


@test("ranges derived from a finer range of the same query (7 s from "
      "1 s) and instant answers from its newest point equal full fetches; "
      "a backend whose points depend on the step is found out and never "
      "derived from; one that aligns ranges to their step gets phase-0 "
      "grids", timeout=int(SECONDS) + 200)
def t_range_derived(c):
    d = Driver(c.m)
    d.start()
    time.sleep(3)
    port = h.free_port()
    proxy = subprocess.Popen([h.PY, os.path.join(h.HERE, "proxy.py"),
                              "--port", str(port), "--upstream",
                              c.m.prom_url], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    h._procs.append(proxy)
    try:
        h.wait_until(lambda: h.tcp_open(port), 10, what="proxy")
        env = dict(os.environ, RANGECHECK_FINE="60:1")
        runs = {
            # ALONE: a query asked at 7 s only, never compared, as a
            # prefill pool's inputTokenRateQuery
            "prometheus": subprocess.Popen(
                [CHECK, c.m.prom_url, str(SECONDS), "35", "7", str(SETTLE)] +
                QUERIES, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=dict(env, RANGECHECK_ALONE=ALONE)),
            # through the proxy, the points of each range move by its step
            "step-dependent": subprocess.Popen(
                [CHECK, "http://127.0.0.1:%d" % port, "30", "35", "7",
                 str(SETTLE), "sum(rate(test_rc_a[5s])) + "
                 "0 * absent(step_dep)"], stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=dict(env, RANGECHECK_ALONE=ALONE)),
        }
        res = {}
        for name, p in runs.items():
            h._procs.append(p)
            out, err = p.communicate(timeout=SECONDS + 90)
            res[name] = (p.returncode, parse(out.decode()), err.decode())
        # through the proxy, every range starts at a multiple of its step:
        # the grids drop the query's phase.  Run once the series has a
        # history: a reply without a point cannot show where its points
        # fall (until then the answer is the grid a step earlier)
        p = subprocess.Popen(
            [CHECK, "http://127.0.0.1:%d" % port, "30", "35", "7",
             str(SETTLE), "sum(rate(test_rc_a[5s])) + "
             "0 * absent(align_step)"], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=dict(env, RANGECHECK_PHASE0="1"))
        h._procs.append(p)
        out, err = p.communicate(timeout=120)
        res["aligning"] = (p.returncode, parse(out.decode()), err.decode())
    finally:
        d.stop.set()
        d.join(5)
        proxy.terminate()
        proxy.wait(5)
    assert d.error is None, "the exporter driver failed: %r" % d.error
    for name, (rc, r, err) in res.items():
        note("%s: %s" % (name, r))
        for line in err.splitlines():
            if line.endswith("(raced)"):
                note(line)
        assert r is not None and rc == 0, \
            "%s: exit %d\n%s" % (name, rc, err[-3000:])
        assert r["differed"] == 0, r
    r, s = res["prometheus"][1], res["step-dependent"][1]
    a = res["aligning"][1]
    assert r["compared"] >= 0.5 * r["rounds"] * len(QUERIES), r
    # most rounds' answers came from the finer range, none was refused
    assert r["derived"] >= 0.5 * r["rounds"], r
    assert r["off"] == 0, r
    # instant answers from the finer range's newest point (once the
    # ranges agreed, when that point is newer than the instant's own),
    # each equal to Prometheus' instant query at its time
    assert r["instants"] == r["rounds"] * (len(QUERIES) + 1), r
    assert r["from_range"] >= 0.2 * r["rounds"], r
    # the query asked at one step only takes its instants from its
    # range's newest point too, on the other queries' evidence: at most
    # one a 7-s point (the others' come from their 1-s ranges as well),
    # and a range refetched at a 0.1-s TTL is new for about half of them
    assert r["alone_from_range"] >= SECONDS / 7 / 4, r
    # a few were asked while a scrape of their time was still in flight
    # (rangecheck.c): not comparable, and few
    for x in (r, s, res["aligning"][1]):
        assert x["raced"] <= 0.1 * x["instants"], x
    # the step-dependent backend: found out, nothing derived from it,
    # no instant taken from its ranges.  from_range is fetch.c's own count
    # of instants taken from a range, the alone query's included;
    # alone_from_range counts by time (an instant on its range's grid),
    # which an instant query Prometheus evaluated at a grid instant also
    # matches (1 of 78 in one run on a loaded machine), so it bounds the
    # other case from below and is not asserted here
    assert s["off"] >= 1 and s["derived"] == 0, s
    assert s["from_range"] == 0, s
    assert s["rounds"] >= 10, s
    # the aligning one: after the first round's whole fetches, on phase
    # 0, extended, derived and read as before
    assert a["rounds"] >= 10 and a["compared"] >= 0.5 * a["rounds"], a
    assert a["derived"] >= 0.25 * a["rounds"] and a["off"] == 0, a
    assert a["from_range"] >= 1, a


def derivecheck(scen, seconds):
    """derivecheck against scripted_prom.py in scenario scen, the script's
    time S 3 s after the start: its result line as a dict of ints."""
    port = h.free_port()
    s_ms = int(time.time() * 1000) + 3000
    prom = subprocess.Popen([h.PY, os.path.join(h.HERE, "scripted_prom.py"),
                             str(port), scen, str(s_ms)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    h._procs.append(prom)
    try:
        h.wait_until(lambda: h.tcp_open(port), 10, what="scripted_prom.py")
        r = subprocess.run([DERIVE, "http://127.0.0.1:%d" % port, scen,
                            str(s_ms), str(seconds)], capture_output=True,
                           text=True, timeout=seconds + 60)
    finally:
        prom.terminate()
        prom.wait(5)
    assert r.returncode == 0, "derivecheck %s: exit %d\n%s" % (
        scen, r.returncode, r.stderr[-3000:])
    line = [l for l in r.stdout.splitlines() if l.startswith("result ")]
    assert line, r.stdout + r.stderr
    res = dict((k, int(v)) for k, v in (w.split("=") for w in line[-1].split()[1:]))
    note("scenario %s: %s" % (scen, res))
    return res


@test("a derived range whose backend turns out step-dependent while the "
      "whole-grid refetch fails once: the next request asks for the whole "
      "grid again, and no later answer holds a derived point (before: 66 "
      "of 140 did)", timeout=120)
def t_derived_refetch_fails(c):
    res = derivecheck("A", 35)
    # the ranges are compared once both have settled points: about 16 s in
    assert res["off"] == 1, res       # found out, so the check checked
    assert res["answers"] >= 80 and res["wrong"] == 0, res


@test("a fine range whose replies turn off the grid and all NaN: the coarse "
      "range is not derived from its old points once its TTL is over "
      "(before: 11 of 56 answers held them)", timeout=90)
def t_derived_nan_offgrid(c):
    res = derivecheck("B", 14)
    assert res["answers"] >= 30 and res["wrong"] == 0, res


def proxy_gzip(c):
    """Requests through the proxy that asked for a compressed reply."""
    st = json.loads(h.http_get(c.proxy_url + "/_stats"))
    return sum(n for v, n in st["headers"].get("accept-encoding", {}).items()
               if "gzip" in v)


def check(c, env, rng, step, seconds=4):
    """rangecheck through the proxy: (its counts, gzip requests seen)."""
    g0 = proxy_gzip(c)
    r = subprocess.run([CHECK, c.proxy_url, str(seconds), str(rng), str(step),
                        str(SETTLE), "sum(rate(test_rc_a[5s]))"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, **env), timeout=seconds + 60)
    res = parse(r.stdout.decode())
    assert r.returncode == 0 and res, r.stderr.decode()[-2000:]
    return res, proxy_gzip(c) - g0


@test("compression: auto asks for gzip only for a reply over 16 KiB (a "
      "whole grid of 1200 points, not its tails); always and never",
      timeout=120)
def t_compression(c):
    port = h.free_port()
    p = subprocess.Popen([h.PY, os.path.join(h.HERE, "proxy.py"), "--port",
                          str(port), "--upstream", c.m.prom_url],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    h._procs.append(p)
    c.proxy_url = "http://127.0.0.1:%d" % port
    try:
        h.wait_until(lambda: h.tcp_open(port), 10, what="proxy")
        c.m.set(test_rc_a=1)
        # 31 points (about 1 KB): never compressed
        r, gz = check(c, {}, 30, 1)
        assert r["requests"] > 5 and gz == 0, (r, gz)
        # 1200 points (about 38 KB whole): the full fetch is, the tails
        # (a few points) are not
        r, gz = check(c, {}, 1199, 1)
        assert r["tail"] > 5 and gz == r["full"] >= 1, (r, gz)
        r, gz = check(c, {"RANGECHECK_COMPRESSION": "always"}, 30, 1)
        assert gz == r["requests"] > 5, (r, gz)
        r, gz = check(c, {"RANGECHECK_COMPRESSION": "never"}, 1199, 1)
        assert gz == 0 and r["full"] >= 1, (r, gz)
    finally:
        p.terminate()
        p.wait(5)


def main():
    return h.suite_main(test, setup, teardown)


if __name__ == "__main__":
    sys.exit(main())
