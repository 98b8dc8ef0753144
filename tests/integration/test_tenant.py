#!/usr/bin/python3
"""Multi-tenant safety against a real Prometheus with a real gRPC client.

    /usr/bin/python3 tests/integration/test_tenant.py [--bin B] [--smoke]
        [--only NAME] [--label L]

One exporter and Prometheus, a proxy in front of it (proxy.py: slow
queries, shifted sample times, the headers staffer sends) and one shared
`staffer serve` whose config has namespace allowlists, small state quotas
and connection limits; tests that signal, reload or restart a server start
their own.  What each test shows is in its title and in
tests/integration/README.md.
"""

import concurrent.futures as cf
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness as h  # noqa: E402
from harness import grpc, note, expect_code  # noqa: E402

OK = grpc.StatusCode.OK
INVALID = grpc.StatusCode.INVALID_ARGUMENT
UNAVAIL = grpc.StatusCode.UNAVAILABLE
DENIED = grpc.StatusCode.PERMISSION_DENIED
HERE = os.path.dirname(os.path.abspath(__file__))

test = h.Registry()
_uniq = [0]


def uniq(tag):
    _uniq[0] += 1
    return "n%d-%s" % (_uniq[0], tag)


def gauge(tag):
    _uniq[0] += 1
    return "tn%d_%s" % (_uniq[0], tag)


proxy_stats = h.proxy_stats


def base_backends(c):
    return [
        {"name": "prom", "url": c.m.prom_url, "timeoutSeconds": 2},
        # the slow proxy: 3 s per request, counted from when it is sent
        {"name": "slowprom", "url": c.proxy_url, "timeoutSeconds": 3},
        {"name": "tenant-a-mimir", "url": c.proxy_url, "timeoutSeconds": 2,
         "namespaces": ["tenant-a", "ml-*"],
         "headers": {"X-Scope-OrgID": "tenant-a"},
         "auth": {"type": "bearer", "tokenFile": c.token}},
        {"name": "crlf", "url": c.proxy_url, "timeoutSeconds": 2,
         "auth": {"type": "bearer", "tokenFile": c.bad_token}},
    ]


def write_cfg(c, path, backends, **top):
    cfg = {"defaultBackend": "prom", "cacheTTLSeconds": 0,
           "maxStates": 2000, "maxStatesPerNamespace": 300,
           "backends": backends}
    cfg.update(top)
    with open(path, "w") as f:
        json.dump(cfg, f, indent=1)
    return path


def metrics_27(c, tag):
    """Gauges for lambda 2, W 10 (27 replicas at beta 1.5); the metadata."""
    p = gauge(tag)
    return c.m.signals(p, lam=2, w=10), p


# ----------------------------------------------------------------------------
# 1. state poisoning


@test("poisoning: other metadata under a victim's name gets its own state; the victim "
      "stays at 27 (GetMetrics), its held activity stays false (IsActive)", smoke=True)
def t_poison(c):
    meta, p = metrics_27(c, "victim")
    ns, name = "team-b", uniq("chat")
    assert c.cl.target(meta, name=name, ns=ns) == 27
    evil = {"arrivalRateQuery": "vector(5000)", "serviceTime": "10", "staffing": "none"}
    assert c.cl.target(evil, name=name, ns=ns) == 50000
    for _ in range(3):
        got = c.cl.target(meta, name=name, ns=ns)
        assert got == 27, "the victim's answer is %d after another caller's" % got
    # IsActive: a model at zero (lambda 0, Q 0) is inactive; someone else's
    # true under its name must not become the activity held for it
    q = gauge("idle")
    c.m.update(**{q: 0})
    idle = {"arrivalRateQuery": q, "serviceTime": "10", "staleHoldSeconds": "60"}
    zname = uniq("zero")
    assert c.cl.active(idle, name=zname, ns=ns) is False
    assert c.cl.active({"arrivalRateQuery": "vector(5)", "serviceTime": "10"},
                       name=zname, ns=ns) is True
    c.m.delete(q)
    c.m.wait_absent(q)
    assert c.cl.active(idle, name=zname, ns=ns) is False, \
        "the held activity of a model at zero is someone else's true"


@test("poisoning: the state file keeps the victim's state, not the caller's, through a "
      "restart", timeout=60)
def t_poison_restart(c):
    meta, p = metrics_27(c, "restart")
    d = h.tmpdir("staffer-state-")
    state = os.path.join(d, "state.json")
    meta = dict(meta, scaleDownPeriodSeconds="600")
    s = h.Staffer(c.bin, config=c.cfg, args=["--state-file", state]).start()
    cl = h.Client(s.addr)
    try:
        assert cl.target(meta, name="model", ns="team-b") == 27
        evil = {"arrivalRateQuery": "vector(5000)", "serviceTime": "10", "staffing": "none"}
        assert cl.target(evil, name="model", ns="team-b") == 50000
        time.sleep(1.2)      # a save at most once a second
    finally:
        cl.close()
        s.stop(10)
    s2 = h.Staffer(c.bin, config=c.cfg, args=["--state-file", state]).start()
    cl = h.Client(s2.addr)
    try:
        assert cl.target(meta, name="model", ns="team-b") == 27
    finally:
        cl.close()
        s2.stop(10)


# ----------------------------------------------------------------------------
# 2. backends by namespace


@test("namespaces: a backend listed for tenant-a and ml-* is PERMISSION_DENIED to "
      "tenant-b, which never gets its token or X-Scope-OrgID", smoke=True)
def t_namespaces(c):
    meta, p = metrics_27(c, "mimir")
    meta = dict(meta, backend="tenant-a-mimir")
    before = proxy_stats(c)["headers"].get("x-scope-orgid", {}).get("tenant-a", 0)
    for fn in (c.cl.metrics_raw, c.cl.active, c.cl.spec):
        d = expect_code(DENIED, fn, meta, name=uniq("so"), ns="tenant-b")
        assert "tenant-b" in d and "tenant-a-mimir" in d, d
    after = proxy_stats(c)["headers"].get("x-scope-orgid", {}).get("tenant-a", 0)
    assert after == before, "tenant-b's calls reached the backend with tenant-a's headers"
    s = c.cl.stream(meta, name=uniq("so"), ns="tenant-b", timeout=5)
    s.wait_end(5)
    assert s.code == DENIED, (s.code, s.details)
    # the namespaces in the list, and a pattern
    assert c.cl.target(meta, name=uniq("so"), ns="tenant-a") == 27
    assert c.cl.target(meta, name=uniq("so"), ns="ml-serving") == 27
    st = proxy_stats(c)["headers"]
    assert st.get("x-scope-orgid", {}).get("tenant-a", 0) > after
    assert st.get("authorization", {}).get("Bearer tenant-a-token", 0) > 0
    note("PERMISSION_DENIED details: %s" % d)


# ----------------------------------------------------------------------------
# 3. the state table


@test("state table: 1500 objects from one namespace (quota 300 of 2000) evict only "
      "their own; another namespace's old and new triggers keep their hold", timeout=120)
def t_state_quota(c):
    meta_old, p_old = metrics_27(c, "calmold")
    meta_new, p_new = metrics_27(c, "calmnew")
    for m in (meta_old, meta_new):
        m["staleHoldSeconds"] = "120"
    assert c.cl.target(meta_old, name="old", ns="calm") == 27
    flood = {"arrivalRateQuery": "vector(1)", "serviceTime": "10"}
    t0 = time.monotonic()
    with cf.ThreadPoolExecutor(16) as ex:
        futs = [ex.submit(c.cl.active, flood, name="f%d" % i, ns="flood")
                for i in range(1500)]
        bad = [f.exception() for f in futs if f.exception()]
    assert not bad, bad[:3]
    note("1500 IsActive from namespace 'flood' in %.1fs" % (time.monotonic() - t0))
    assert c.cl.target(meta_new, name="new", ns="calm") == 27
    # both lose their data: each holds 27, never UNAVAILABLE
    c.m.delete(p_old + "_arrival_rate", p_new + "_arrival_rate")
    c.m.wait_absent(p_old + "_arrival_rate")
    c.m.wait_absent(p_new + "_arrival_rate")
    assert c.cl.target(meta_old, name="old", ns="calm") == 27
    assert c.cl.target(meta_new, name="new", ns="calm") == 27
    h.wait_until(lambda: "evicted to make room" in c.srv.log(), 3,
                 what="an eviction line in the log")
    assert "too many ScaledObjects" not in c.srv.log()


@test("state table, defaults: 105000 objects from one client (the issue's flood); a new "
      "trigger of another namespace still holds its target when its data goes", timeout=240)
def t_state_flood_default(c):
    d = h.tmpdir("staffer-flood-")
    # the shipped defaults (maxStates 100000, 10000 a namespace); a cache
    # TTL, so the flood's one query is not 105000 backend requests
    cfg = write_cfg(c, os.path.join(d, "c.json"), base_backends(c), cacheTTLSeconds=5)
    cfg_doc = json.load(open(cfg))
    del cfg_doc["maxStates"], cfg_doc["maxStatesPerNamespace"]
    json.dump(cfg_doc, open(cfg, "w"))
    meta, p = metrics_27(c, "flood")
    meta["staleHoldSeconds"] = "300"
    s = h.Staffer(c.bin, config=cfg).start()
    cl = h.Client(s.addr)
    try:
        flood = {"arrivalRateQuery": "vector(1)", "serviceTime": "10"}
        t0 = time.monotonic()
        with cf.ThreadPoolExecutor(32) as ex:
            futs = [ex.submit(cl.active, flood, name="f%d" % i, ns="flood")
                    for i in range(105000)]
            bad = sum(1 for f in cf.as_completed(futs) if f.exception())
        note("105000 IsActive from one namespace in %.1fs" % (time.monotonic() - t0))
        assert bad == 0, bad
        assert cl.target(meta, name="real", ns="calm") == 27
        c.m.delete(p + "_arrival_rate")
        c.m.wait_absent(p + "_arrival_rate")
        time.sleep(5.5)                  # past the cache TTL
        code, det, r = h.status(cl.metrics_raw, meta, name="real", ns="calm")
        assert code == OK and r.metricValues[0].metricValue == 27, \
            "a new trigger after the flood: %s %s" % (code, det)
        assert "too many ScaledObjects" not in s.log()
    finally:
        cl.close()
        s.stop(10)


# ----------------------------------------------------------------------------
# 4. fairness on one backend


def slow_query(i, ms):
    return "vector(3) + 0*absent(slow_ms_%d_q%d)" % (ms, i)


@test("fairness: 40 slow (1.9 s) queries from one namespace; another namespace's "
      "GetMetrics on the same backend: p99 < 100 ms, never UNAVAILABLE", smoke=True,
      timeout=90)
def t_fairness(c):
    tag = uniq("f")
    noisy = [{"arrivalRateQuery": slow_query(i, 1900) + " + 0*absent(%s)" % tag.replace("-", "_"),
              "serviceTime": "10", "backend": "slowprom"} for i in range(40)]
    lat, codes = [], {}
    with cf.ThreadPoolExecutor(48) as ex:
        futs = [ex.submit(h.status, c.cl.metrics_raw, m, name="noisy%d" % i, ns="noisy",
                          timeout=30) for i, m in enumerate(noisy)]
        h.wait_until(lambda: proxy_stats(c)["concurrent"] >= 8, 5, 0.01,
                     "the slow queries in flight")
        end = time.monotonic() + 6      # ~250 calls: p99 is not the max
        i = 0
        while time.monotonic() < end:
            i += 1
            # a fresh query each time (cacheTTLSeconds 0 anyway): every call
            # is a backend request on the same host
            m = {"arrivalRateQuery": "vector(2) + 0*absent(quiet_%s_%d)"
                 % (tag.replace("-", "_"), i), "serviceTime": "10",
                 "backend": "slowprom"}
            t0 = time.monotonic()
            code, d, _ = h.status(c.cl.metrics_raw, m, name="quiet", ns="quiet", timeout=10)
            lat.append(time.monotonic() - t0)
            codes[code.name] = codes.get(code.name, 0) + 1
            time.sleep(0.02)
        noisy_codes = {}
        for f in futs:
            code = f.result()[0]
            noisy_codes[code.name] = noisy_codes.get(code.name, 0) + 1
    lat.sort()
    p50 = lat[len(lat) // 2]
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    note("quiet namespace: %d calls while 40 slow ones were queued: p50 %.1f ms, p99 %.1f ms, "
         "max %.1f ms, codes %s; the slow namespace's: %s; proxy max in flight %d"
         % (len(lat), p50 * 1e3, p99 * 1e3, lat[-1] * 1e3, codes, noisy_codes,
            proxy_stats(c)["max_concurrent"]))
    assert codes == {"OK": len(lat)}, codes
    assert p99 < 0.100, "p99 %.1f ms" % (p99 * 1e3)
    # the slow namespace waits for its own connections, but its requests
    # are timed from when they are sent: none times out
    assert noisy_codes == {"OK": 40}, noisy_codes


@test("fairness: 20 distinct 1.5 s queries with a 3 s timeout all answer (waiting for a "
      "connection does not count against timeoutSeconds)", timeout=60)
def t_deadline_from_send(c):
    tag = uniq("d").replace("-", "_")
    metas = [{"arrivalRateQuery": slow_query(i, 1500) + " + 0*absent(%s)" % tag,
              "serviceTime": "10", "backend": "slowprom"} for i in range(20)]
    with cf.ThreadPoolExecutor(20) as ex:
        res = list(ex.map(lambda im: h.status(c.cl.metrics_raw, im[1], name="d%d" % im[0],
                                              ns="batch", timeout=30), enumerate(metas)))
    codes = {}
    for code, d, _ in res:
        codes[code.name] = codes.get(code.name, 0) + 1
    note("20 slow queries from one namespace: %s" % codes)
    assert codes == {"OK": 20}, [d for code, d, _ in res if code != OK][:3]


# ----------------------------------------------------------------------------
# 5. the smaller ones


@test("SIGHUP: the process lives, streams stay open, a new config is taken, a bad one is "
      "refused with the reason and the old one kept", smoke=True, timeout=60)
def t_sighup(c):
    meta, p = metrics_27(c, "hup")
    d = h.tmpdir("staffer-hup-")
    cfg = write_cfg(c, os.path.join(d, "c.json"), base_backends(c))
    s = h.Staffer(c.bin, config=cfg, args=["--log-level", "info"]).start()
    cl = h.Client(s.addr)
    try:
        st = cl.stream(dict(meta, pushIntervalSeconds="1"), name="hup", ns="team-b")
        assert st.next(timeout=5) is not None
        expect_code(INVALID, cl.metrics_raw, dict(meta, backend="extra"), name="x")
        write_cfg(c, cfg, base_backends(c) + [{"name": "extra", "url": c.m.prom_url}])
        s.kill_with(signal.SIGHUP)
        h.wait_until(lambda: "reloaded: 5 backends" in s.log(), 5, what="the reload line")
        assert cl.target(dict(meta, backend="extra"), name="x") == 27
        with open(cfg, "w") as f:
            f.write('{"backends": [{"name": "broken", "url": "ftp://x"}]}')
        s.kill_with(signal.SIGHUP)
        h.wait_until(lambda: "keeping the config in use" in s.log(), 5,
                     what="the refusal line")
        line = [l for l in s.log().splitlines() if "keeping the config" in l][-1]
        assert "url" in line and "http://" in line, line
        assert cl.target(dict(meta, backend="extra"), name="x") == 27
        for _ in range(3):
            s.kill_with(signal.SIGHUP)
        time.sleep(0.5)
        assert s.alive(), "SIGHUP killed staffer"
        assert not st.done.is_set(), "the stream ended: %s %s" % (st.code, st.details)
    finally:
        cl.close()
        rc, _ = s.stop(10)
    assert rc == 0, rc


def make_ca_certs(d, tag):
    """A CA and a server certificate for staffer.keda.svc, named by tag."""
    def ossl(*args):
        subprocess.run(["openssl"] + list(args), cwd=d, check=True, capture_output=True,
                       timeout=30)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    ossl("req", "-x509", *ec, "-keyout", tag + "-ca.key", "-out", tag + "-ca.crt", "-days", "1",
         "-subj", "/CN=ca-" + tag)
    ossl("req", *ec, "-keyout", tag + ".key", "-out", tag + ".csr", "-subj",
         "/CN=staffer.keda.svc")
    with open(os.path.join(d, tag + ".ext"), "w") as f:
        f.write("subjectAltName=DNS:staffer.keda.svc\n")
    ossl("x509", "-req", "-in", tag + ".csr", "-CA", tag + "-ca.crt", "-CAkey", tag + "-ca.key",
         "-CAcreateserial", "-out", tag + ".crt", "-days", "1", "-extfile", tag + ".ext")
    return {k: os.path.join(d, tag + k) for k in ("-ca.crt", ".crt", ".key")}


@test("TLS: new certificate files are served to new connections without a restart "
      "(rotation); files whose key does not match are refused, the old ones kept",
      timeout=90)
def t_tls_reload(c):
    d = h.tmpdir("staffer-tlsrl-")
    a = make_ca_certs(d, "a")
    b = make_ca_certs(d, "b")
    crt, key = os.path.join(d, "tls.crt"), os.path.join(d, "tls.key")

    def install(src, rename=True):
        for s_, dst in ((src[".crt"], crt), (src[".key"], key)):
            with open(s_, "rb") as f:
                data = f.read()
            with open(dst + ".new", "wb") as f:
                f.write(data)
            os.replace(dst + ".new", dst)
    install(a)
    s = h.Staffer(c.bin, config=c.cfg, args=["--tls-cert", crt, "--tls-key", key]).spawn()

    def health(ca):
        r = subprocess.run([c.bin, "health", "--timeout", "2", "--tls-ca", ca,
                            "--server-name", "staffer.keda.svc", s.addr],
                           capture_output=True, text=True, timeout=20)
        return r.returncode == 0 and r.stdout == "SERVING\n"
    try:
        h.wait_until(lambda: health(a["-ca.crt"]), 15, 0.2, "TLS with certificate a")
        assert not health(b["-ca.crt"])
        install(b)
        h.wait_until(lambda: health(b["-ca.crt"]), 10, 0.3,
                     "certificate b served after the files changed")
        assert not health(a["-ca.crt"])
        # a key from another pair: refused, b stays
        with open(a[".key"], "rb") as f:
            data = f.read()
        with open(key + ".new", "wb") as f:
            f.write(data)
        os.replace(key + ".new", key)
        s.kill_with(signal.SIGHUP)
        h.wait_until(lambda: "does not belong" in s.log(), 5, what="the refusal")
        assert health(b["-ca.crt"])
        assert s.alive()
    finally:
        s.stop(10)


@test("a --state-file that is a FIFO: a warning, and start-up does not block", smoke=True,
      timeout=30)
def t_state_fifo(c):
    d = h.tmpdir("staffer-fifo-")
    fifo = os.path.join(d, "state")
    os.mkfifo(fifo)
    s = h.Staffer(c.bin, config=c.cfg, args=["--state-file", fifo]).start(ready_timeout=10)
    try:
        assert "not a regular file" in s.log(), s.log_tail()
        meta, p = metrics_27(c, "fifo")
        cl = h.Client(s.addr)
        assert cl.target(meta, name="fifo") == 27
        cl.close()
    finally:
        rc, _ = s.stop(10)
    assert rc == 0


@test("a bearer token file with CR/LF: refused with a clear error, no header injected",
      smoke=True)
def t_token_crlf(c):
    meta, p = metrics_27(c, "crlf")
    d = expect_code(UNAVAIL, c.cl.metrics_raw, dict(meta, backend="crlf"), name=uniq("so"))
    assert "control character" in d, d
    hdrs = proxy_stats(c)["headers"]
    assert "x-evil" not in hdrs, hdrs.get("x-evil")


@test("names with control characters are INVALID_ARGUMENT, and no log line is forged",
      smoke=True)
def t_log_injection(c):
    meta, p = metrics_27(c, "inj")
    forged = "x\n2026-01-01T00:00:00.000Z error  forged line\x1b[2J"
    for ns, name in ((forged, "so"), ("default", forged), ("a/b", "c")):
        d = expect_code(INVALID, c.cl.metrics_raw, meta, name=name, ns=ns)
        assert "Kubernetes name" in d, d
    # metadata that ends up in a warning: escaped on one line
    expect_code(INVALID, c.cl.metrics_raw, dict(meta, beta="1\n2026 error forged\x1b[2J"),
                name=uniq("so"))
    log = c.srv.log()
    assert "\x1b" not in log
    assert not any(l.startswith("2026-01-01T00:00:00.000Z error") or
                   l.startswith("2026 error forged") for l in log.splitlines())


@test("samples a year in the past or future are missing data, not current", smoke=True)
def t_sample_time(c):
    meta, p = metrics_27(c, "skew")
    base = "sum(%s)" % meta["arrivalRateQuery"]   # no labels: + absent() matches
    for skew, word in (("skew_s_31536000", "ahead of"), ("skew_s_m31536000", "behind")):
        m = dict(meta, backend="slowprom",
                 arrivalRateQuery="%s + 0*absent(%s_%s)" % (base, skew, p))
        d = expect_code(UNAVAIL, c.cl.metrics_raw, m, name=uniq("so"))
        assert word in d and "staleHoldSeconds" in d, d
        expect_code(UNAVAIL, c.cl.active, m, name=uniq("so"))
    # a few seconds off is fine
    m = dict(meta, backend="slowprom", arrivalRateQuery="%s + 0*absent(skew_s_3_%s)" % (base, p))
    assert c.cl.target(m, name=uniq("so")) == 27


# ----------------------------------------------------------------------------
# 6. shutdown while backend queries are in flight


@test("SIGTERM while backend queries are in flight: calls whose queries answer within "
      "the grace finish OK, the rest are cancelled at its end, streams end OK, exit 0, "
      "no sanitizer report", smoke=True, timeout=60)
def t_shutdown_inflight(c):
    d = h.tmpdir("staffer-drain-")
    backends = [{"name": "prom", "url": c.m.prom_url, "timeoutSeconds": 2},
                {"name": "slowprom", "url": c.proxy_url, "timeoutSeconds": 8,
                 "maxConnections": 64, "maxConnectionsPerNamespace": 64}]
    cfg = write_cfg(c, os.path.join(d, "staffer.json"), backends)
    grace = 2
    s = h.Staffer(c.bin, config=cfg, args=["--grace-seconds", str(grace)]).start()
    cl = h.Client(s.addr)
    tag = uniq("drain").replace("-", "_")

    def meta(i, ms):
        return {"arrivalRateQuery": slow_query(i, ms) + " + 0*absent(%s)" % tag,
                "serviceTime": "10", "backend": "slowprom", "pushIntervalSeconds": "1"}
    try:
        # streams whose group evaluations (fetch callbacks) keep coming
        streams = [cl.stream(meta(100 + i, 300), name="drain-s%d" % i, ns="drain")
                   for i in range(3)]
        for st in streams:
            m = st.next(timeout=10)
            assert m is not None, (st.code, st.details)
        with cf.ThreadPoolExecutor(40) as ex:
            quick = [ex.submit(h.status, cl.metrics_raw, meta(i, 700), name="q%d" % i,
                               ns="drain-%d" % (i % 4), timeout=20) for i in range(24)]
            slow = [ex.submit(h.status, cl.metrics_raw, meta(50 + i, 6000), name="s%d" % i,
                              ns="drain-slow", timeout=20) for i in range(8)]
            h.wait_until(lambda: proxy_stats(c)["concurrent"] >= 30, 10, 0.01,
                         "the queries in flight")
            t0 = time.monotonic()
            s.kill_with(signal.SIGTERM)
            try:
                rc = s.proc.wait(grace + 5)
            except subprocess.TimeoutExpired:
                rc = None
            dt = time.monotonic() - t0
            qcodes = [f.result()[0] for f in quick]
            scodes = [f.result()[0] for f in slow]
        for st in streams:
            assert st.wait_end(5), "a stream still open after exit"
        note("SIGTERM with %d calls open: exit %s after %.2fs (grace %ds); quick "
             "calls %s; slow calls %s; streams %s"
             % (len(quick) + len(slow) + len(streams), rc, dt, grace,
                sorted(set(x.name for x in qcodes)), sorted(set(x.name for x in scodes)),
                [st.code.name for st in streams]))
        assert rc == 0, "exit status %r\n%s" % (rc, s.log_tail())
        assert dt <= grace + 1.5, "exit took %.2fs with grace %ds" % (dt, grace)
        assert all(x == OK for x in qcodes), qcodes
        assert not any(x == OK for x in scodes), scodes
        assert all(st.code == OK for st in streams), [(st.code, st.details) for st in streams]
        assert "bye" in s.log(), s.log_tail()
        assert not s.sanitizer_reports(), "\n".join(s.sanitizer_reports()[:20])
    finally:
        cl.close()
        if s.alive():
            s.stop(2, signal.SIGKILL)


@test("the shared server ends cleanly on SIGTERM, without a sanitizer report", smoke=True)
def t_final_shutdown(c):
    c.cl.close()
    c.cl = None
    rc, dt = c.srv.stop(15)
    assert rc == 0, "exit %r\n%s" % (rc, c.srv.log_tail())
    reps = c.srv.sanitizer_reports()
    assert not reps, "\n".join(reps[:20])


# ----------------------------------------------------------------------------


def main():
    def setup(c, a):
        c.m = h.Metrics().start()
        d = c.m.dir
        h.start_proxy(c)
        c.token = os.path.join(d, "token")
        with open(c.token, "w") as f:
            f.write("tenant-a-token\n")
        c.bad_token = os.path.join(d, "bad-token")
        with open(c.bad_token, "w") as f:
            f.write("abc\r\nX-Evil: 1\n")
        c.cfg = write_cfg(c, os.path.join(d, "staffer.json"), base_backends(c))
        c.srv = h.Staffer(c.bin, config=c.cfg, args=["--log-level", "info"]).start()
        note("staffer ready on %s (log %s)" % (c.srv.addr, c.srv.log_path))
        c.cl = h.Client(c.srv.addr)
        c.on_fail = lambda: "shared staffer log, last lines:\n" + c.srv.log_tail(8)

    def teardown(c, failed):
        if getattr(c, "proxy", None) and c.proxy.poll() is None:
            c.proxy.terminate()
        h.shared_stop(c, failed)

    def select(chosen, every):
        if t_final_shutdown not in [t.fn for t in chosen]:
            chosen += [t for t in every if t.fn is t_final_shutdown]
        return chosen

    return h.suite_main(test, setup, teardown, select)


if __name__ == "__main__":
    sys.exit(main())
