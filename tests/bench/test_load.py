#!/usr/bin/python3
"""Smoke test of the service benchmark's instrument (bench/load/,
bench/service.py), so that `make bench-service` cannot rot between runs.

Runs the sanitizer build of the load client (build/staffer-load-asan) and
its fake backend against a real build/staffer, each scenario for a fraction
of a second, and checks that the counts add up: every call answered, the
backend asked exactly what the cache should let through, streams opened
and closed one for one, KEDA's bursts as many as the schedule says.  Then
a soak of the sanitizer build of staffer (build/staffer-asan): unary
calls, stream churn and SIGHUP reloads at once for SOAK_S seconds.  Last,
bench/service.py's report is made from the results, so the arithmetic
and the table code run too.  The prometheus scenario runs small against a
real Prometheus (about 40 s of it); scrape and bigreq (issue 23's
attacks) run small too.  About five and a half minutes on two cores, most of it the Prometheus
scenarios.

    /usr/bin/python3 tests/bench/test_load.py
Prints one line per check and `N passed, N failed`; exits 1 on failure.
"""

import os
import sys
import tempfile
import shutil
import traceback
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.dont_write_bytecode = True
import service as sv  # noqa: E402

LOAD = os.environ.get("STAFFER_LOAD_BIN",
                      os.path.join(ROOT, "build", "staffer-load-asan"))
passed = 0
failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print("ok - %s" % name)
    else:
        failed += 1
        print("FAIL - %s %s" % (name, detail))
    sys.stdout.flush()


def get(url):
    with urllib.request.urlopen(url, timeout=5) as r:
        return r.read().decode()


def stats(b):
    return dict((l.split()[0], float(l.split()[1]))
                for l in get(b.url + "/-/stats").splitlines())


def of(res, kind):
    return [d for k, d in res if k == kind]


def t_backend(b):
    get(b.url + "/-/reset")
    for _ in range(3):
        body = get(b.url + "/api/v1/query?query=smoke_a")
    check("backend: instant answer", '"resultType":"vector"' in body and '"2"' in body, body)
    body = get(b.url + "/api/v1/query_range?query=smoke_a&start=100&end=160&step=15")
    check("backend: range answer has 5 points", body.count("[1") == 5, body)
    s = stats(b)
    check("backend: counts per distinct query",
          s["requests"] == 4 and s["used"] == 2 and s["max"] == 3, s)


def t_unary(b, R):
    s = sv.Server("unary", b, ttl=300)
    try:
        get(b.url + "/-/reset")
        res = sv.run_load("unary", s, b, [
            "--methods", "health,metrics,active,spec", "--inflight", "1,8",
            "--reps", 1, "--seconds", 0.3, "--objects", 20])
        st = stats(b)
    finally:
        s.stop()
    warm = of(res, "warm")
    check("unary: warm-up answered", warm and warm[0]["ok"] == 40 and
          warm[0]["errors"] == 0, warm)
    wins = of(res, "unary")
    check("unary: 8 windows", len(wins) == 8, len(wins))
    check("unary: every window has calls and no error",
          all(d["rpcs"] > 10 and d["errors"] == 0 for d in wins), wins)
    check("unary: p50 <= p99 <= max",
          all(0 < d["p50_ms"] <= d["p99_ms"] <= d["max_ms"] for d in wins), wins)
    check("unary: client and server CPU read",
          all(d["client_cpu"] > 0 for d in wins) and
          sum(d["server_cpu"] for d in wins) > 0, wins)
    # 20 objects: an instant query and two ranges of the same PromQL each
    # (the forecast's and the surge headroom's: two keys of this backend,
    # which counts a range by its step too), once each (cacheTTL 300)
    check("unary: the backend was asked each query once",
          st["requests"] == 60 and st["used"] == 60 and st["max"] == 1, st)
    R["latency"] = (wins, warm)


def t_streams(b, R):
    out = {}
    s = sv.Server("streams-50", b, ttl=300)
    try:
        out[50] = res = sv.run_load("streams", s, b, [
            "--streams", 50, "--reps", 2, "--seconds", 0.3,
            "--idle-seconds", 0.5, "--objects", 10, "--queries", 5])
    finally:
        s.stop()
    o = of(res, "streams_open")
    check("streams: 50 opened in each of 2 repetitions, each with its "
          "first message", len(o) == 2 and all(
              d["opened"] == 50 and d["first"] == 50 and d["failed"] == 0
              for d in o), o)
    a = of(res, "streams_alive")
    check("streams: all alive until closed, one message each",
          len(a) == 2 and all(d["open"] == 50 and d["ended_early"] == 0 and
                              d["msgs"] == 50 and d["bad"] == 0 for d in a), a)
    c = of(res, "streams_closed")
    check("streams: all 50 ended when cancelled, each time",
          len(c) == 2 and all(d["ended"] == 50 for d in c), c)
    i = of(res, "idle")
    order = [(int(d["rep"]), int(d["streams"])) for d in i]
    check("streams: each repetition without and with them, order "
          "alternating", order == [(1, 0), (1, 50), (2, 50), (2, 0)], order)
    check("streams: idle windows measured", all(
        d["seconds"] >= 0.4 and d["rss_kib"] > 0 for d in i), i)
    u = of(res, "unary")
    check("streams: GetMetrics in every phase", len(u) == 4 and all(
        d["rpcs"] > 10 and d["errors"] == 0 for d in u), u)
    R["streams"] = out


def t_memory(b, R):
    s = sv.Server("memory", b, ttl=5)
    try:
        res = sv.run_load("memory", s, b, ["--steps", "10,20", "--streams", 10,
                                          "--inflight", 4])
    finally:
        s.stop()
    rss = [(d["objects"], d["streams"], d["kib"]) for d in of(res, "rss")]
    check("memory: RSS at 0, 10, 20 objects and 10 streams",
          [(o, st) for o, st, _ in rss] == [(0, 0), (10, 0), (20, 0), (20, 10)] and
          all(k > 1000 for _, _, k in rss), rss)
    ob = of(res, "objects")[0]
    check("memory: every object answered", ob["ok"] == 40 and ob["errors"] == 0, ob)
    R["memory"] = [res]


def t_keda(b, R):
    s = sv.Server("keda", b, ttl=sv.KEDA_TTL_DEFAULT / 20)
    try:
        res = sv.run_load("keda", s, b, [
            "--objects", 40, "--compress", 20, "--warmup", 15, "--windows", 1,
            "--window", 30, "--expect", 27])
        # the fake backend's 2 req/s at serviceTime 10 is 27 replicas: a
        # wrong expectation counts every GetMetrics answer as wrong
        bad = sv.run_load("keda", s, b, [
            "--objects", 40, "--compress", 20, "--warmup", 0, "--windows", 1,
            "--window", 10, "--expect", "26,27"])
    finally:
        s.stop()
    w = of(res, "keda")[0]
    check("keda: every answer as expected", w["wrong"] == 0, w)
    wb = of(bad, "keda")[0]
    check("keda: answers not as expected are counted (half the objects)",
          0 < wb["wrong"] < wb["bursts"] and
          abs(wb["wrong"] - wb["bursts"] / 2) <= wb["bursts"] / 4, wb)
    # per object in 30 s: two HPA reads and one poll
    check("keda: bursts as scheduled (120 +- 10%)", 108 <= w["bursts"] <= 132, w)
    check("keda: three calls a burst, no error",
          w["calls"] == 3 * w["bursts"] and w["errors"] == 0, w)
    check("keda: first-call latencies", 0 < w["first_p50_ms"] <= w["first_p99_ms"]
          <= w["first_max_ms"], w)
    check("keda: backend queries counted per distinct query",
          0 < w["backend_used"] <= 80 and 0 < w["per_query_cycle"] <= 3, w)
    t = of(res, "keda_total")[0]
    check("keda: every burst finished", t["finished"] == t["bursts"] and
          t["start_failed"] == 0, t)
    R["keda"] = res


def t_meta(b):
    """staffer-load --meta: more than one, "{i}" in a value for the
    object's index, a key the client sends anyway replaced or left out,
    bad input refused with its reason (exit 2, before any call)."""
    import subprocess
    for args, word in (
            (["--meta", "novalue"], "wants KEY=VALUE"),
            (["--meta", "=x"], "wants KEY=VALUE"),
            (["--meta", "a=1", "--meta", "a=2"], "given twice"),
            (["--meta", "a=" + "x" * 600], "could outgrow"),
            (["--meta", "a=" + "{i}" * 30], "could outgrow"),
            (sum((["--meta", "k%d=1" % k] for k in range(9)), []), "at most 8")):
        r = subprocess.run([LOAD, "unary", "--addr", "127.0.0.1:1"] + args,
                           capture_output=True, text=True, timeout=60)
        check("meta: %s refused (%s)" % (args[1][:12], word),
              r.returncode == 2 and word in r.stderr,
              (r.returncode, r.stderr[-300:]))
    s = sv.Server("meta", b, ttl=300)
    base = ["--methods", "health", "--inflight", 1, "--reps", 1,
            "--seconds", 0.2]
    try:
        # 20 objects, each with two more queries of its own: 20 x (the
        # arrival rate's instant query and two ranges, the queue's, the
        # shed rate's), each asked once (cacheTTL 300).  Without "{i}"
        # the 20 would share them (62); with one --meta only, 80.
        get(b.url + "/-/reset")
        res = sv.run_load("unary", s, b, base + [
            "--objects", 20, "--ns", "meta-i",
            "--meta", "queueDepthQuery=meta_queue_{i}",
            "--meta", "shedRateQuery=meta_shed_{i}"])
        st = stats(b)
        w = of(res, "warm")[0]
        check("meta: two --meta with {i}: answered", w["ok"] == 40 and
              w["errors"] == 0, w)
        check("meta: two --meta with {i}: each object's own queries",
              st["requests"] == 100 and st["used"] == 100 and st["max"] == 1,
              st)
        # arrivalRateQuery replaced: 20 objects of one query (3 requests)
        get(b.url + "/-/reset")
        res = sv.run_load("unary", s, b, base + [
            "--objects", 20, "--ns", "meta-shared",
            "--meta", "arrivalRateQuery=meta_shared"])
        st = stats(b)
        check("meta: a key sent anyway takes --meta's value",
              of(res, "warm")[0]["errors"] == 0 and st["requests"] == 3 and
              st["used"] == 3, (st, of(res, "warm")))
        # serviceTime left out: no W, so no GetMetrics can be answered
        res = sv.run_load("unary", s, b, base + [
            "--objects", 5, "--ns", "meta-drop", "--meta", "serviceTime="])
        w = of(res, "warm")[0]
        check("meta: an empty value leaves the key out (GetMetrics fails)",
              w["errors"] >= 5, w)
    finally:
        s.stop()


def t_prom_pools(R):
    """The prom-pools scenario, small: 40 unified objects, 40 prefill
    pools with a TTFT target, each with a token query of its own
    (staffer-load --meta with {i}), and the same pools with a fixed
    peakedness, in two passes of opposite order, on a real Prometheus
    with token history, each kind's query log counted once; every answer as
    `staffer calc` says, the token range asked for every pool object with
    z auto, never with z fixed, and never a token query for a unified
    one; z fixed costs fewer requests and samples than z auto."""
    P = {"pool_objects": 40, "pool_windows": 1, "prom_idle": 1,
         "prom_warmup": 5, "prom_window": 10, "prom_count": 30}
    X = sv.sc_prom_pools(None, P)
    order = ["unified", "prefill", "prefill-fixed"]
    check("prom-pools: three kinds ran twice, the second pass reversed",
          [(c["kind"], c["pass"]) for c in X["configs"]] ==
          [(k, 1) for k in order] + [(k, 2) for k in reversed(order)] and
          len(X["idle"]) == 7,
          [(c.get("kind"), c.get("pass")) for c in X["configs"]])
    counted = [c["kind"] for c in X["configs"] if c["log_s"]]
    check("prom-pools: the query log counted in the 1st, 3rd and 5th runs, "
          "each kind once",
          counted == [c["kind"] for c in X["configs"][::2]] and
          sorted(counted) == sorted(order), counted)
    check("prom-pools: a prefill pool's answers differ from the unified "
          "ones' (the expectation is the pool's)",
          X["expect"]["prefill"] != X["expect"]["unified"], X["expect"])
    check("prom-pools: z fixed at 1 answers as z measured on steady series "
          "(calc says so)",
          X["expect"]["prefill-fixed"] == X["expect"]["prefill"], X["expect"])
    for c in X["configs"]:
        w = c["windows"][0]
        check("prom-pools: %s: bursts answered, no call failed" % c["kind"],
              w["bursts"] > 20 and all(d["errors"] == 0 for d in
                                       c["windows"] + c["count_window"]),
              c["windows"] + c["count_window"])
    st = sv.pool_stats(X)
    u, p, z = st["unified"], st["prefill"], st["prefill-fixed"]
    check("prom-pools: unified answers all the model's", u["off"] == 0, u)
    # a prefill pool's W reads two counters at two instants, unheld: a
    # late scrape moves some answers (the report says so); objects that
    # were not pools would miss every one (9 to 30 against 4 to 8)
    for name, x in (("prefill", p), ("prefill-fixed", z)):
        check("prom-pools: %s answers the pool model's, but on late scrapes"
              % name, x["answers"] > 40 and x["off"] < x["answers"], x)
    check("prom-pools: unified objects never ask for tokens",
          u["req_tokens_range"] == 0 and u["req_tokens_instant"] == 0, u)
    # in 30 s, two tails of each object's token range (240 an object an
    # hour, one a refresh)
    by = dict((c["kind"], c) for c in X["configs"] if c["log_s"])
    toks = [x for x in by["prefill"]["log"]
            if "bench_prompt_tokens_total" in x[1]]
    objs = set(x[1] for x in toks if x[0].endswith("query_range"))
    check("prom-pools: the token range asked for each pool object",
          len(objs) == 40 and all(x[3] > 0 for x in toks), (len(objs), toks[:3]))
    # z fixed: no token range, the token rate's instant query for each
    # object instead (one a refresh, about 210 an hour), the arrivals'
    # range as with z auto (the forecast's)
    toks = [x for x in by["prefill-fixed"]["log"]
            if "bench_prompt_tokens_total" in x[1]]
    objs = set(x[1] for x in toks)
    check("prom-pools: z fixed asks no token range, the token rate for "
          "each pool object",
          z["req_tokens_range"] == 0 and len(objs) == 40 and
          all(x[3] > 0 for x in toks) and z["req_tokens_instant"] > 100,
          (z, toks[:3]))
    check("prom-pools: z fixed keeps the arrivals' range",
          z["req_arrival_range"] > 0.8 * p["req_arrival_range"], (z, p))
    check("prom-pools: z fixed asks fewer requests and samples than z auto",
          z["req"] < p["req"] and z["smp"] < 0.8 * p["smp"] and
          z["smp_tokens_range"] == 0, (z["req"], p["req"], z["smp"], p["smp"]))
    check("prom-pools: CPU per object per refresh read, the mean of two "
          "runs' medians",
          all(x["per"] >= 0 and len(x["runs"]) == 2 and
              abs(x["per"] - (x["runs"][0]["per"] + x["runs"][1]["per"]) / 2)
              < 1e-12 for x in (u, p, z)), st)
    R["prom-pools"] = X


def t_prometheus(R):
    """The prometheus scenario, small: a real Prometheus on backfilled
    history, KEDA's cycle for 40 objects with every answer checked, the
    query log counted, the per-query CPU and bytes."""
    P = {"prom_objects": 40, "prom_idle": 1, "prom_warmup": 5,
         "prom_window": 10, "prom_count": 15, "prom_configs": ("now",),
         "prom_windows": {"now": 1}, "prom_q_n": 20, "prom_q_reps": 1}
    X = sv.sc_prometheus(None, P)
    c = X["configs"][0]
    w = c["windows"][0]
    check("prometheus: bursts answered, none wrong",
          w["bursts"] > 20 and w["errors"] == 0 and w["wrong"] == 0 and
          all(d["wrong"] == 0 and d["errors"] == 0 for d in c["count_window"]),
          c)
    check("prometheus: its CPU read", w["backend_cpu"] >= 0, w)
    inst = [x for x in c["log"] if x[0].endswith("/query")]
    rng = [x for x in c["log"] if x[0].endswith("query_range")]
    # one range tail per object per 15 s; the arrival rate's instant
    # query mostly answered from that range's newest point (its first
    # answer, and one whose range came back late, are asked)
    check("prometheus: the query log counted range requests with "
          "samples, and any instant ones", len(rng) >= 30 and
          all(x[3] > 0 for x in rng + inst),
          (len(inst), len(rng), c["log"][:3]))
    check("prometheus: range tails of a few points (warm)",
          sv.med(x[2] for x in rng) <= 5, rng[:5])
    q = {r["shape"]: r for r in X["per_query"]}
    check("prometheus: gzip makes the large range smaller",
          q["range, 1201 points"]["gzip_bytes"] <
          q["range, 1201 points"]["plain_bytes"] / 4, q)
    R["prometheus"] = X


def t_isolation(R):
    b = sv.Backend(slow_ms=200)
    try:
        s = sv.Server("isolation", b, ttl=5, timeout=3)
        try:
            res = sv.run_load("isolation", s, b, [
                "--noisy", 2, "--rate", 50, "--seconds", 0.5, "--reps", 1])
        finally:
            s.stop()
    finally:
        b.stop()
    a = [d for d in of(res, "isolation") if d["phase"] == "alone"][0]
    n = [d for d in of(res, "isolation") if d["phase"] == "noisy"][0]
    check("isolation: quiet calls paced (25 +- 3)", 22 <= a["quiet_calls"] <= 28, a)
    check("isolation: quiet calls answered alone", a["quiet_errors"] == 0, a)
    check("isolation: noisy calls answered (slow)", n["noisy_ok"] >= 2, n)
    R["isolation"] = of(res, "isolation")


def t_scrape(b, R):
    """The scrape scenario, small: 100 long-named objects, one
    repetition of a window without scrapers and one with 4."""
    X = sv.sc_scrape(b, {"scrape_objects": 100, "scrape_reps": 1,
                         "scrape_seconds": 0.3, "scrape_nices": (0,)})
    p = X["passes"][0]
    check("scrape: the 100 long-named objects answered once",
          p["warm"].get("ok") == 100 and p["warm"].get("errors") == 0, p["warm"])
    check("scrape: a window without scrapers, then one with 4",
          [(d["mode"], d["scrapers"]) for d in p["windows"]] ==
          [("off", 0), ("on", 4)], p["windows"])
    check("scrape: GetMetrics in both windows, none failed",
          all(d["rpcs"] > 10 and d["errors"] == 0 and "machine_cpu" in d
              for d in p["windows"]), p["windows"])
    check("scrape: pages fetched, none failed, staffer up",
          p["ratio"].get("pages", 0) > 0 and p["ratio"].get("failed") == 0 and
          p["alive"], p["ratio"])
    st = sv.scrape_stats(p)
    check("scrape: the ratio of the p99s read",
          st["ratio"] > 0 and len(st["per_rep"]) == 1 and
          abs(st["ratio"] - st["per_rep"][0]) < 1e-9, st)
    check("scrape: its windows in the busy check",
          len(sv.window_noise("scrape", X)) == 2, sv.window_noise("scrape", X))
    R["scrape"] = X


def t_bigreq(b, R):
    """The bigreq scenario, small: 32 requests of ~1 MiB over 4
    connections for 0.5 s, staffer in a 256 MiB memory cgroup where one
    can be made, another caller through the relay from 127.0.0.2."""
    X = sv.sc_bigreq(b, {"big_reps": 1, "big_seconds": 0.5,
                         "big_inflight": 32, "big_channels": 4})
    r = X["runs"][0]
    st = sv.bigreq_stats(r)
    check("bigreq: the request budget a quarter of 256 MiB (%s)" % (
        "cgroup" if r["cgroup"] else "--memory-limit"),
        r["budget"] == 64 << 20, r)
    check("bigreq: every call answered with an expected status, staffer up",
          st["started"] > 0 and st["started"] == st["answered"] and r["alive"],
          (st, r.get("big")))
    check("bigreq: peak RSS read, under the limit",
          st["peak"] and 0 < st["peak"] < sv.BIG_LIMIT, st)
    check("bigreq: the other caller answered meanwhile",
          r["victim_calls"] >= 15 and st["ok_share"] >= 0.9 and
          not r["victim_error"], r)
    if r["cgroup"]:
        check("bigreq: the cgroup's peak read, and the cgroup removed",
              (r["cg"]["peak"] or 0) > 0 and not sv._cgroups, (r["cg"], sv._cgroups))
    R["bigreq"] = X


SOAK_S = 20   # seconds of mixed load on the sanitizer build


def t_soak(b):
    """The sanitizer build of staffer under everything at once: unary
    calls at 32 in flight over 2,000 objects whose answers expire every
    second (hits, misses and evictions interleaved), StreamIsActive
    streams opened and closed over and over, and a SIGHUP reload every
    0.3 s (configs alternating, every fifth one invalid) while calls are
    in flight.  Nothing may fail, nothing may be reported by ASan or
    UBSan, and the process must end cleanly."""
    import json
    import signal
    import threading
    asan = os.environ.get("STAFFER_ASAN_BIN",
                          os.path.join(ROOT, "build", "staffer-asan"))
    if not os.access(asan, os.X_OK):
        check("soak: %s built" % asan, False)
        return
    saved = sv.STAFFER
    sv.STAFFER = asan
    try:
        s = sv.Server("soak", b, ttl=1, timeout=3)
    finally:
        sv.STAFFER = saved
    cfgs = []
    for i, ttl in enumerate((1, 2)):
        cfgs.append(json.dumps({"defaultBackend": "prom", "cacheTTLSeconds": ttl,
                                "backends": [{"name": "prom", "url": b.url,
                                              "timeoutSeconds": 3 + i}]}))
    bad = '{"backends": [{"name": "prom", "url": "ftp://x"}]}'
    stop = threading.Event()
    hups = [0]

    def reloader():
        i = 0
        while not stop.wait(0.3):
            with open(s.cfg, "w") as f:
                f.write(bad if i % 5 == 4 else cfgs[i % 2])
            s.proc.send_signal(signal.SIGHUP)
            hups[0] += 1
            i += 1

    out = {}

    def run(name, args):
        try:
            out[name] = sv.run_load(name, s, b, args)
        except Exception as e:  # checked below
            out[name] = e

    th = [threading.Thread(target=reloader),
          threading.Thread(target=run, args=("unary", [
              "--methods", "metrics", "--inflight", 32, "--objects", 2000,
              "--reps", 1, "--seconds", SOAK_S, "--warm", 0])),
          threading.Thread(target=run, args=("streams", [
              "--streams", 200, "--reps", 4, "--seconds", 1,
              "--idle-seconds", 0.5, "--objects", 50, "--queries", 20]))]
    try:
        for t in th:
            t.start()
        for t in th[1:]:
            t.join(SOAK_S + 120)
    finally:
        stop.set()
        th[0].join(5)
        alive = s.proc.poll() is None
        s.stop()
    rc = s.proc.returncode
    log = "\n".join(s.log_lines())
    check("soak: staffer (ASan) alive through %d reloads under load" % hups[0],
          alive and hups[0] >= 10, s.log_tail())
    check("soak: ended cleanly on SIGTERM", rc == 0, "exit %s" % rc)
    for word in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
        check("soak: no '%s' report" % word, word not in log,
              "\n".join(l for l in log.splitlines() if word in l)[:2000])
    check("soak: the invalid configs were refused, the server kept going",
          "keeping the config in use" in log, s.log_tail())
    u = out.get("unary")
    ok = not isinstance(u, Exception) and u is not None
    w = [d for k, d in u if k == "unary"] if ok else []
    check("soak: unary calls all answered", ok and len(w) == 1 and
          w[0]["rpcs"] > 1000 and w[0]["errors"] == 0, u if not w else w[0])
    st = out.get("streams")
    ok = not isinstance(st, Exception) and st is not None
    o = [d for k, d in st if k == "streams_open"] if ok else []
    c = [d for k, d in st if k == "streams_closed"] if ok else []
    check("soak: streams opened and closed 4 times, each with its first "
          "message", len(o) == 4 and len(c) == 4 and all(
              d["first"] == 200 and d["failed"] == 0 for d in o) and all(
              d["ended"] == 200 for d in c), st)


def t_report(R):
    P = {"reps": 1, "stream_reps": 2, "inflight_list": [1, 8],
         "streams": [0, 50],
         "objects": [10, 20], "mem_streams": [10], "compress": 20,
         "keda_objects": 40, "keda_warmup": 15, "keda_window": 30,
         "noisy": 2, "rate": 50, "caveats": ["smoke"]}
    meta = {"when": "now", "rev": "test", "machine": "here", "load0": "0",
            "load1": "0", "mode": "smoke", "wall": 1}
    text = sv.report(R, P, meta)
    check("report: targets table", "## Targets (issue 12)" in text and
          text.count("**met**") + text.count("**missed**") >= 6, text[:400])
    check("report: raw tables", text.count("### ") >= 6, text[-400:])
    check("report: issue 26's targets", "## Targets (issue 26" in text and
          "Prometheus' CPU at 40 objects" in text and
          "answers unchanged" in text, text[:2000])
    if "prom-pools" in R:
        check("report: prom-pools' ratio and tables",
              "a prefill pool with a TTFT target (z auto" in text and
              "the same prefill pool with `peakedness: \"1\"` (z fixed" in
              text and "what the prompt tokens' range costs" in text and
              "| prefill, z fixed |" in text and
              "### Prefill pools against a real Prometheus" in text,
              text[-3000:])
    if "scrape" in R and "bigreq" in R:
        check("report: issue 23's targets and tables",
              "## Targets (issue 23: hardening)" in text and
              "GetMetrics p99 from the cache with 4 scrapers of a 100-object "
              "page" in text and "32 GetMetrics of ~1 MiB at once over 4 "
              "connections" in text and
              "### GetMetrics beside scrapers of a large page" in text and
              "### Requests of ~1 MiB at once" in text, text[:3000])


def asan_env():
    """LeakSanitizer on where it can run (tests/integration/run.sh does the
    same): some containers forbid the ptrace it needs."""
    if os.environ.get("ASAN_OPTIONS"):
        return
    import subprocess
    r = subprocess.run([LOAD, "--help"], capture_output=True, text=True,
                       env=dict(os.environ, ASAN_OPTIONS="detect_leaks=1"))
    leaks = "LeakSanitizer has encountered a fatal error" not in r.stderr
    os.environ["ASAN_OPTIONS"] = "detect_leaks=%d:abort_on_error=0" % leaks
    os.environ.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    print("# ASAN_OPTIONS=%s" % os.environ["ASAN_OPTIONS"])


def main():
    if not os.access(LOAD, os.X_OK) or not os.access(sv.STAFFER, os.X_OK):
        print("test_load: build %s and %s first" % (LOAD, sv.STAFFER))
        print("0 passed, 1 failed")
        return 1
    asan_env()
    sv.LOAD = LOAD
    sv._tmp = tempfile.mkdtemp(prefix="staffer-load-test-")
    R = {}
    b = sv.Backend()
    try:
        for t in (lambda: t_backend(b), lambda: t_unary(b, R),
                  lambda: t_streams(b, R), lambda: t_memory(b, R),
                  lambda: t_keda(b, R), lambda: t_meta(b),
                  lambda: t_isolation(R),
                  lambda: t_scrape(b, R), lambda: t_bigreq(b, R),
                  lambda: t_prometheus(R), lambda: t_prom_pools(R),
                  lambda: t_soak(b),
                  lambda: t_report(R)):
            try:
                t()
            except Exception:
                check("no exception", False, traceback.format_exc())
    finally:
        b.stop()
        sv._cleanup()
        shutil.rmtree(sv._tmp, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
