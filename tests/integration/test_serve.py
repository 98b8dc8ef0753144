#!/usr/bin/python3
"""Integration tests for `staffer serve`: the real binary, a real Prometheus
(Debian's) scraping tests/integration/exporter.py, and python3-grpcio as the
client.

    /usr/bin/python3 tests/integration/test_serve.py [--bin build/staffer]
        [--smoke] [--only SUBSTRING]... [--label PREFIX]

--smoke runs the subset marked smoke=True (used for build/staffer-asan).
Prints `ok N - name` / `not ok N - name` per test and `N passed, N failed`.
"""

import json
import math
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as h  # noqa: E402
from harness import grpc, pb, hpb, note, expect_code  # noqa: E402

OK = grpc.StatusCode.OK
INVALID = grpc.StatusCode.INVALID_ARGUMENT
UNAVAIL = grpc.StatusCode.UNAVAILABLE
UNIMPL = grpc.StatusCode.UNIMPLEMENTED

test = h.Registry()


_uniq = [0]


def uniq(tag):
    """A fresh metric/ScaledObject name, so tests never share series or
    smoothing state."""
    _uniq[0] += 1
    # letters and digits only: a Prometheus metric name and a Kubernetes
    # name (DNS-1123) at once
    return "t%d%s%04d" % (_uniq[0], tag.replace("_", "").lower(),
                            random.randrange(10000))


# ----------------------------------------------------------------------------
# reference model (docs/math.md), for expected values


def erlang_c(c, a):
    b = 1.0
    for k in range(1, c + 1):
        b = a * b / (k + a * b)
    return c * b / (c - a * (1 - b))


def expected(lam, W, Q=0.0, S=0.0, n=1, beta=1.5, staffing="sqrt", D=15.0,
             shed_threshold=0.0, boost=1.0, max_replicas=None, tau=None, eps=None):
    L = lam * W
    if staffing == "sqrt":
        head = beta * math.sqrt(L)
    elif staffing == "none":
        head = 0.0
    elif staffing == "erlangc":
        c = int(math.floor(L)) + 1
        while erlang_c(c, L) * math.exp(-(c - L) * tau / W) > eps:
            c += 1
        head = c - L
    else:
        raise ValueError(staffing)
    drain = Q * W / D
    bst = boost * S * W if S > shed_threshold else 0.0
    total = L + head + drain + bst
    r = math.ceil(total / n - 1e-9)
    if lam > 0 or Q > 0 or S > 0:
        r = max(r, 1)
    else:
        r = 0
    if max_replicas is not None:
        r = min(r, max_replicas)
    return r


# ----------------------------------------------------------------------------
# basics


@test("health Check answers SERVING", smoke=True)
def t_health(c):
    assert c.cl.health() == hpb.HealthCheckResponse.SERVING


@test("GetMetricSpec default: one spec 'staffer', targetSize 1, targetSizeFloat 1.0", smoke=True)
def t_spec_default(c):
    r = c.cl.spec({"arrivalRateQuery": "x", "serviceTime": "10", "scalerAddress": "staffer:9090"})
    assert len(r.metricSpecs) == 1, r
    s = r.metricSpecs[0]
    assert (s.metricName, s.targetSize, s.targetSizeFloat) == ("staffer", 1, 1.0), s


@test("GetMetricSpec custom metricName")
def t_spec_custom(c):
    r = c.cl.spec({"arrivalRateQuery": "x", "serviceTime": "10", "metricName": "llama-70b"})
    assert len(r.metricSpecs) == 1, r
    s = r.metricSpecs[0]
    assert (s.metricName, s.targetSize, s.targetSizeFloat) == ("llama-70b", 1, 1.0), s


@test("StreamMetricSpec and unknown methods are UNIMPLEMENTED", smoke=True)
def t_unimplemented(c):
    expect_code(UNIMPL, c.cl.stream_spec, {"arrivalRateQuery": "x", "serviceTime": "1"})
    expect_code(UNIMPL, c.cl.raw, "/externalscaler.ExternalScaler/Nope", b"")
    expect_code(UNIMPL, c.cl.raw, "/foo.Bar/Baz", b"\x0a\x01x")
    expect_code(UNIMPL, c.cl.raw, "/grpc.health.v1.Health/Nope", b"")
    assert c.cl.health() == hpb.HealthCheckResponse.SERVING


# ----------------------------------------------------------------------------
# GetMetrics: the model on live data


@test("GetMetrics seed example: lambda=2, W=10 -> 27 (and logs a decision line)", smoke=True)
def t_seed(c):
    p = uniq("seed")
    meta = c.m.signals(p, lam=2, w=10)
    meta["scalerAddress"] = "staffer.keda.svc:9090"
    name = uniq("so")
    assert c.cl.target(meta, name=name) == 27
    assert expected(2, 10) == 27

    def logged():
        return [l for l in c.srv.log().splitlines()
                if "decision" in l and name in l]
    lines = h.wait_until(logged, 3, what="a decision log line naming %s" % name)
    line = lines[-1]
    for k in ("target=27", "busy=", "headroom=", "drain=", "boost="):
        assert k in line, "decision line lacks %r: %s" % (k, line)


@test("GetMetrics with serviceTime metadata instead of a query -> 27")
def t_service_time_meta(c):
    p = uniq("stm")
    meta = c.m.signals(p, lam=2)
    meta["serviceTime"] = "10"
    assert c.cl.target(meta, name=uniq("so")) == 27


@test("serviceTime is used while serviceTimeQuery has no data -> 27")
def t_service_time_fallback(c):
    p = uniq("stf")
    meta = c.m.signals(p, lam=2)
    meta["serviceTimeQuery"] = p + "_absent_service_time"
    meta["serviceTime"] = "10"
    assert c.cl.target(meta, name=uniq("so")) == 27


@test("slotsPerReplica=4 -> ceil(26.71/4) = 7; maxReplicas=5 caps at 5; beta=2 -> 29")
def t_slots_cap(c):
    p = uniq("slots")
    meta = c.m.signals(p, lam=2, w=10)
    assert c.cl.target(dict(meta, slotsPerReplica="4"), name=uniq("so")) == 7 == expected(2, 10, n=4)
    assert c.cl.target(dict(meta, maxReplicas="5"), name=uniq("so")) == 5
    assert c.cl.target(dict(meta, beta="2"), name=uniq("so")) == 29 == expected(2, 10, beta=2)


@test("<key>FromEnv (as KEDA sends a value resolved from the workload's env) reads as "
      "<key>; both spellings -> INVALID_ARGUMENT")
def t_from_env(c):
    p = uniq("fromenv")
    meta = c.m.signals(p, lam=2, w=10)
    assert c.cl.target(dict(meta, slotsPerReplicaFromEnv="4"), name=uniq("so")) == 7
    d = expect_code(INVALID, c.cl.metrics_raw,
                    dict(meta, beta="2", betaFromEnv="3"), name=uniq("so"))
    assert "'beta' and 'betaFromEnv' are both given" in d, d
    d = expect_code(INVALID, c.cl.metrics_raw, dict(meta, betaFromEnv="x"), name=uniq("so"))
    assert "betaFromEnv" in d and "'x'" in d, d


@test("drain: Q=100, lambda=0.5, W=10 -> ceil(5+3.354+66.67) = 76", smoke=True)
def t_drain(c):
    p = uniq("drain")
    meta = c.m.signals(p, lam=0.5, w=10, q=100)
    assert expected(0.5, 10, Q=100) == 76
    assert c.cl.target(meta, name=uniq("so")) == 76
    # drainSeconds=100: 100*10/100 = 10 extra slots -> ceil(18.35) = 19
    assert c.cl.target(dict(meta, drainSeconds="100"), name=uniq("so")) == \
        expected(0.5, 10, Q=100, D=100) == 19


@test("boost on shedding: S=2 > shedThreshold adds S*W slots (47); below threshold none (27)")
def t_boost(c):
    p = uniq("boost")
    meta = c.m.signals(p, lam=2, w=10, s=2)
    assert c.cl.target(meta, name=uniq("so")) == expected(2, 10, S=2) == 47
    assert c.cl.target(dict(meta, shedThreshold="5"), name=uniq("so")) == 27
    assert c.cl.target(dict(meta, boostFactor="0.5"), name=uniq("so")) == \
        expected(2, 10, S=2, boost=0.5) == 37


@test("staffing none keeps exact products exact: lambda=0.1, W=30 -> 3 (not 4)")
def t_exact(c):
    p = uniq("exact")
    meta = c.m.signals(p, lam=0.1, w=30)
    assert c.cl.target(dict(meta, staffing="none"), name=uniq("so")) == 3
    assert c.cl.target(dict(meta, workload="batch"), name=uniq("so")) == 3


@test("staffing erlangc matches the reference Erlang-C computation")
def t_erlangc(c):
    p = uniq("erl")
    meta = c.m.signals(p, lam=2, w=10)
    meta.update(staffing="erlangc", targetWaitSeconds="2", waitProbability="0.05")
    want = expected(2, 10, staffing="erlangc", tau=2, eps=0.05)
    got = c.cl.target(meta, name=uniq("so"))
    note("erlangc lambda=2 W=10 tau=2 eps=0.05: staffer %d, reference %d" % (got, want))
    assert got == want, (got, want)


@test("zero traffic -> target 0 (int and float) and IsActive false", smoke=True)
def t_zero(c):
    p = uniq("zero")
    meta = c.m.signals(p, lam=0, w=10, q=0, s=0)
    r = c.cl.metrics_raw(meta, name=uniq("so"))
    assert len(r.metricValues) == 1, r
    mv = r.metricValues[0]
    assert mv.metricValue == 0 and mv.metricValueFloat == 0.0, mv
    assert c.cl.active(meta, name=uniq("so")) is False


@test("negative signal is clamped to 0, not an error")
def t_negative(c):
    p = uniq("neg")
    meta = c.m.signals(p, lam=-1, w=10)
    assert c.cl.target(meta, name=uniq("so")) == 0
    assert c.cl.active(meta, name=uniq("so")) is False


@test("IsActive: traffic -> true; Q>0 only -> true; S>0 only -> true; lambda<=activationArrivalRate -> false",
      smoke=True)
def t_active(c):
    p = uniq("act")
    meta = c.m.signals(p, lam=2, w=10)
    assert c.cl.active(meta, name=uniq("so")) is True
    p = uniq("actq")
    meta = c.m.signals(p, lam=0, w=10, q=3)
    assert c.cl.active(meta, name=uniq("so")) is True
    assert c.cl.target(meta, name=uniq("so")) == 2  # 3 * 10 / 15 slots of drain
    p = uniq("acts")
    meta = c.m.signals(p, lam=0, w=10, q=0, s=1)
    assert c.cl.active(meta, name=uniq("so")) is True
    p = uniq("acta")
    meta = c.m.signals(p, lam=0.5, w=10)
    assert c.cl.active(dict(meta, activationArrivalRate="1"), name=uniq("so")) is False
    assert c.cl.active(dict(meta, activationArrivalRate="0.4"), name=uniq("so")) is True


# ----------------------------------------------------------------------------
# INVALID_ARGUMENT


def base_meta():
    return {"arrivalRateQuery": "test_zero", "serviceTime": "10"}


@test("INVALID_ARGUMENT: unknown key 'betta' names it and suggests 'beta' (all RPCs)", smoke=True)
def t_inv_unknown(c):
    meta = dict(base_meta(), betta="2")
    for fn in (c.cl.metrics_raw, c.cl.active, c.cl.spec):
        d = expect_code(INVALID, fn, meta, name=uniq("so"))
        assert "betta" in d and "'beta'" in d.replace('"', "'"), "details: %r" % d
    s = c.cl.stream(meta, name=uniq("so"), timeout=5)
    assert s.wait_end(5), "stream with bad metadata did not end"
    assert s.code == INVALID and "betta" in (s.details or ""), (s.code, s.details)


@test("INVALID_ARGUMENT: bad numbers and enums name key and value")
def t_inv_values(c):
    cases = [("beta", "abc"), ("beta", "-1"), ("beta", "nan"), ("beta", "inf"),
             ("slotsPerReplica", "0"), ("slotsPerReplica", "2.5"),
             ("pushIntervalSeconds", "0.5"), ("staffing", "magic"),
             ("drainSeconds", "0"), ("maxReplicas", "-3"), ("serviceTime", "1e999"),
             ("scaleDownStep", "0x10")]
    bad = []
    for k, v in cases:
        got, d, _ = h.status(c.cl.metrics_raw, dict(base_meta(), **{k: v}), name=uniq("so"))
        if got != INVALID or k not in d or v not in d:
            bad.append("%s=%r -> %s %r" % (k, v, got.name, d))
    assert not bad, "\n".join(bad)


@test("INVALID_ARGUMENT: missing required keys are named")
def t_inv_missing(c):
    d = expect_code(INVALID, c.cl.metrics_raw, {"serviceTime": "10"}, name=uniq("so"))
    assert "arrivalRateQuery" in d, d
    d = expect_code(INVALID, c.cl.metrics_raw, {"arrivalRateQuery": "test_zero"}, name=uniq("so"))
    assert "serviceTime" in d, d
    d = expect_code(INVALID, c.cl.metrics_raw,
                    dict(base_meta(), staffing="erlangc"), name=uniq("so"))
    assert "targetWaitSeconds" in d or "waitProbability" in d, d
    d = expect_code(INVALID, c.cl.active, {}, name=uniq("so"))
    assert "arrivalRateQuery" in d, d


@test("INVALID_ARGUMENT: unknown backend name; over-long query")
def t_inv_backend(c):
    d = expect_code(INVALID, c.cl.metrics_raw, dict(base_meta(), backend="nosuch"), name=uniq("so"))
    assert "nosuch" in d, d
    d = expect_code(INVALID, c.cl.active, dict(base_meta(), backend="nosuch"), name=uniq("so"))
    assert "nosuch" in d, d
    long_q = "sum(" + "x" * 5000 + ")"
    d = expect_code(INVALID, c.cl.metrics_raw, dict(base_meta(), arrivalRateQuery=long_q),
                    name=uniq("so"))
    assert "arrivalRateQuery" in d, d


@test("a NUL byte in a metadata value, key or name -> INVALID_ARGUMENT, not a cut string",
      smoke=True)
def t_inv_nul(c):
    # protobuf-c hands strings over as C strings: "1.5\0junk" would read as
    # "1.5".  Every RPC refuses the message instead.
    want = "NUL byte in a string"
    for meta, name in ((dict(base_meta(), beta="1.5\0junk"), uniq("so")),
                       (dict(base_meta(), **{"beta\0x": "1.5"}), uniq("so")),
                       (base_meta(), uniq("so") + "\0x")):
        for fn in (c.cl.metrics_raw, c.cl.active, c.cl.spec):
            d = expect_code(INVALID, fn, meta, name=name)
            assert want in d, (fn, d)
    s = c.cl.stream(dict(base_meta(), beta="2\0"), name=uniq("so"), timeout=5)
    assert s.wait_end(5), "stream with a NUL in its metadata did not end"
    assert s.code == INVALID and want in (s.details or ""), (s.code, s.details)
    # the same values without the NUL are fine
    d = c.cl.spec(dict(base_meta(), beta="1.5"), name=uniq("so"))
    assert d.metricSpecs, d


def scrape(url):
    """/metrics as {'name{labels}': value}, checked by promtool first."""
    body = h.http_get(url).decode()
    r = subprocess.run(["promtool", "check", "metrics"], input=body, text=True,
                       capture_output=True, timeout=20)
    assert r.returncode == 0, "promtool check metrics: %s%s" % (r.stdout, r.stderr)
    out = {}
    for line in body.splitlines():
        if line and not line.startswith("#"):
            k, v = line.rsplit(" ", 1)
            out[k] = float(v)
    return out


class _Raw:
    """Bytes that a grpc serializer sends as they are."""

    def __init__(self, b):
        self.b = b

    def SerializeToString(self):
        return self.b


def pairs_ref(pairs, name, ns="default"):
    """A ScaledObjectRef whose map entries go on the wire as the (key,
    value) pairs given, in their order, repeats included (protobuf's C++
    runtime picks its own order; messages concatenate)."""
    b = pb.ScaledObjectRef(name=name, namespace=ns).SerializeToString()
    for k, v in pairs:
        b += pb.ScaledObjectRef(scalerMetadata={k: v}).SerializeToString()
    return _Raw(b)


def ordered_ref(meta, name, order, ns="default"):
    """meta's entries on the wire in the order of the keys in `order`."""
    return pairs_ref([(k, meta[k]) for k in order], name, ns)


@test("INVALID_ARGUMENT: a metadata map with a key twice (a hand-made request) names it")
def t_inv_duplicate_key(c):
    pairs = list(base_meta().items()) + [("beta", "2"), ("beta", "3")]
    for fn in (c.cl._active, c.cl._spec):
        try:
            fn(pairs_ref(pairs, uniq("so")), timeout=5)
            raise AssertionError("a map with 'beta' twice was accepted")
        except grpc.RpcError as e:
            assert e.code() == INVALID, e.code()
            assert "'beta' more than once" in (e.details() or ""), e.details()
    # once each, in any order, it is fine
    assert c.cl._active(pairs_ref(list(reversed(pairs[:-1])), uniq("so")),
                        timeout=5) is not None


@test("--metrics-listen: /metrics counts each RPC by method and code, promtool-clean",
      smoke=True)
def t_metrics_endpoint(c):
    port = h.free_port()
    srv = h.Staffer(c.bin, config=c.cfg, env=c.env,
                    args=["--log-level", "info", "--metrics-listen", "127.0.0.1:%d" % port])
    t_wall = time.time()
    srv.start(c.ready_timeout)
    url = "http://127.0.0.1:%d" % port
    try:
        with h.Client(srv.addr) as cl:
            before = scrape(url + "/metrics")
            key = 'staffer_rpc_requests_total{method="GetMetrics",code="OK"}'
            assert before[key] == 0, before[key]
            # the error series are there at 0 before the first error, so
            # increase() sees the first one
            for m in ("GetMetrics", "IsActive", "StreamIsActive", "GetMetricSpec",
                      "StreamMetricSpec"):
                for code in ("INVALID_ARGUMENT", "UNAVAILABLE", "PERMISSION_DENIED",
                             "DEADLINE_EXCEEDED", "INTERNAL"):
                    k = 'staffer_rpc_requests_total{method="%s",code="%s"}' % (m, code)
                    assert before.get(k) == 0, "%s = %r before any error" % (k, before.get(k))
            meta = c.m.signals(uniq("met"), lam=2, w=10)
            names = [uniq("so") for _ in range(3)]
            for n in names:
                assert cl.target(meta, name=n) == 27
            # KEDA's Go client sends a map in random order: the same map
            # in two other orders is found parsed all the same
            for order in (sorted(meta), sorted(meta, reverse=True)):
                assert cl._active(ordered_ref(meta, names[0], order), timeout=5).result
            expect_code(INVALID, cl.metrics_raw, dict(base_meta(), betta="1"),
                        name=uniq("so"))
            expect_code(UNAVAIL, cl.metrics_raw, dict(base_meta(), backend="nopath"),
                        name=uniq("so"))
            expect_code(UNAVAIL, cl.metrics_raw, dict(base_meta(), backend="dead"),
                        name=uniq("so"))
            assert cl.health() == hpb.HealthCheckResponse.SERVING
            st = cl.stream(meta, name=uniq("so"), timeout=30)
            first = st.next(5)
            assert first is not None and first[1] is True, first
            open_now = scrape(url + "/metrics")
            st.cancel()
            after = h.wait_until(
                lambda: (lambda m: m if m.get("staffer_streams_open") == 0 else None)(
                    scrape(url + "/metrics")), 5, 0.1, "the stream counted closed")
        want = {
            key: 3,
            'staffer_rpc_requests_total{method="GetMetrics",code="INVALID_ARGUMENT"}': 1,
            'staffer_rpc_requests_total{method="Check",code="OK"}': 1,
            'staffer_rpc_requests_total{method="StreamIsActive",code="CANCELLED"}': 1,
            'staffer_rpc_duration_seconds_count{method="GetMetrics"}': 6,
            'staffer_rpc_requests_total{method="GetMetrics",code="UNAVAILABLE"}': 2,
            'staffer_stream_pushes_total{active="true"}': 1,
            # parsed: meta, betta, nopath, dead; found: the two other
            # targets, the two other orders and the stream
            'staffer_metadata_cache_total{result="miss"}': 4,
            'staffer_metadata_cache_total{result="hit"}': 5,
        }
        for k, v in want.items():   # the harness's readiness checks came before
            got = after.get(k, 0) - before.get(k, 0)
            assert got == v, "%s grew by %r, want %r" % (k, got, v)
        assert open_now["staffer_streams_open"] == 1, open_now["staffer_streams_open"]
        # the last answer per ScaledObject, with what it was made of:
        # lambda 2, W 10 -> busy 20, headroom 1.5*sqrt(20) = 6.708, 27
        for n in names:
            lab = '{scaledobject_namespace="default",scaledobject="%s",metric="staffer"' % n
            for fam, v in (("staffer_target_replicas", 27), ("staffer_target_raw_replicas", 27),
                           ("staffer_target_held", 0), ("staffer_target_capped", 0),
                           ("staffer_signal_arrival_rate", 2),
                           ("staffer_signal_arrival_forecast", 0),
                           ("staffer_signal_arrival_surge", 0),
                           ("staffer_signal_service_time_seconds", 10),
                           ("staffer_signal_queue_depth", 0), ("staffer_signal_shed_rate", 0)):
                g = fam + lab + "}"
                assert after.get(g) == v, "%s = %r, want %r" % (g, after.get(g), v)
            for term, v in (("busy", 20), ("headroom", 6.708), ("drain", 0), ("boost", 0)):
                g = 'staffer_term_slots%s,term="%s"}' % (lab, term)
                assert abs(after.get(g, -1) - v) < 1e-3, "%s = %r" % (g, after.get(g))
        assert not [k for k in after if 'namespace="default"' in k and
                    "scaledobject_namespace" not in k], "a bare namespace label"
        assert after["staffer_backend_requests_total"] >= 1, after
        # each backend's requests by result, and their latency
        for b, r in (("prom", "ok"), ("nopath", "http_error"), ("dead", "unreachable")):
            k = 'staffer_backend_responses_total{backend="%s",result="%s"}' % (b, r)
            assert after.get(k, 0) - before.get(k, 0) >= 1, (k, after.get(k))
            k = 'staffer_backend_request_duration_seconds_count{backend="%s",result="%s"}' % (b, r)
            assert after.get(k, 0) >= 1, (k, after.get(k))
        assert after['staffer_backend_request_duration_seconds_bucket{backend="prom",'
                     'result="ok",le="+Inf"}'] == \
            after['staffer_backend_request_duration_seconds_count{backend="prom",result="ok"}']
        # the build and the process
        info = [k for k in after if k.startswith("staffer_build_info{")]
        assert len(info) == 1 and after[info[0]] == 1 and 'version="' in info[0], info
        v = subprocess.run([c.bin, "version"], capture_output=True,
                           text=True).stdout.split()[1]
        assert 'version="%s"' % v in info[0], (v, info)
        assert abs(after["process_start_time_seconds"] - t_wall) < 30, \
            (after["process_start_time_seconds"], t_wall)
        assert after["process_resident_memory_bytes"] > 1e6
        assert after["process_open_fds"] >= 5 and after["process_max_fds"] >= after["process_open_fds"]
        assert after["process_cpu_seconds_total"] >= before["process_cpu_seconds_total"] >= 0
        assert after['staffer_rpc_duration_seconds_bucket{method="GetMetrics",le="+Inf"}'] \
            == after['staffer_rpc_duration_seconds_count{method="GetMetrics"}'] == 6
        assert h.http_get(url + "/healthz") == b"ok\n"
        try:
            h.http_get(url + "/nope")
            raise AssertionError("/nope answered 200")
        except urllib.error.HTTPError as e:
            assert e.code == 404, e.code
    finally:
        srv.stop(5)


@test("--metrics-listen: a bad address exits 2 (usage), a port in use 1, both named")
def t_metrics_bad_addr(c):
    for addr, want in (("nine", "allowed: :PORT"), ("127.0.0.1:0", "port 1 to 65535"),
                       ("localhost:9", "IPV4:PORT")):
        srv = h.Staffer(c.bin, config=c.cfg, env=c.env, args=["--metrics-listen", addr])
        r = subprocess.run(srv.cmd, env=srv.env, capture_output=True, text=True, timeout=20)
        assert r.returncode == 2 and want in r.stderr and "--metrics-listen" in r.stderr, \
            (addr, r.returncode, r.stderr)
    env = dict(c.env, STAFFER_METRICS_LISTEN="nine")   # the variable, too
    srv = h.Staffer(c.bin, config=c.cfg, env=env)
    r = subprocess.run(srv.cmd, env=srv.env, capture_output=True, text=True, timeout=20)
    assert r.returncode == 2 and "'nine'" in r.stderr, (r.returncode, r.stderr)
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    try:
        srv = h.Staffer(c.bin, config=c.cfg, env=c.env,
                        args=["--metrics-listen", "127.0.0.1:%d" % busy.getsockname()[1]])
        r = subprocess.run(srv.cmd, env=srv.env, capture_output=True, text=True, timeout=20)
        assert r.returncode == 1 and "cannot listen" in r.stderr, (r.returncode, r.stderr)
    finally:
        busy.close()


@test("malformed request bytes -> an error status, server keeps serving", smoke=True)
def t_malformed(c):
    for method in ("GetMetrics", "IsActive", "GetMetricSpec"):
        for payload in (b"\xff\xff\xff\xff", b"\x0a\x05ab", b"\x1a\xff\xff\xff\xff\x0f"):
            got, d, _ = h.status(c.cl.raw, h.SVC + method, payload)
            assert got not in (OK, grpc.StatusCode.UNKNOWN), (method, payload, got, d)
    got, d, _ = h.status(c.cl.raw, h.SVC + "StreamIsActive", b"\xff\xff", stream=True)
    assert got != OK, (got, d)
    assert c.cl.health() == hpb.HealthCheckResponse.SERVING


def fuzz_mutate(rnd, data, tokens):
    """A few byte-level changes to a serialized message: flips, inserts,
    deletes, truncation, repeated ranges, huge varints and length prefixes,
    tokens (metadata keys and values) spliced in."""
    b = bytearray(data)
    for _ in range(1 if rnd.random() < 0.5 else rnd.randint(2, 8)):
        pos = rnd.randint(0, len(b))
        op = rnd.randrange(8)
        if op == 0 and b:
            b[rnd.randrange(len(b))] ^= 1 << rnd.randrange(8)
        elif op == 1:
            b[pos:pos] = bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 8)))
        elif op == 2:
            del b[pos:pos + rnd.randint(1, 16)]
        elif op == 3:
            del b[pos:]
        elif op == 4 and b:
            start = rnd.randrange(len(b))
            chunk = b[start:start + rnd.randint(1, 32)]
            b[start:start] = chunk * rnd.randint(1, 200)
        elif op == 5:
            b[pos:pos] = rnd.choice((b"\xff\xff\xff\xff\x0f", b"\x80" * 11,
                                     b"\x1a\xff\xff\x03", b"\x0a\x00", b"\x00",
                                     b"\x1a\x00", b"\x0a\x7f", b"\xc3\x28"))
        else:
            b[pos:pos] = rnd.choice(tokens)
    return bytes(b[:65536])


@test("fuzz: mutated request bytes for every method -> a clean status, never a crash",
      smoke=True, timeout=180)
def t_fuzz_requests(c):
    # Deterministic: FUZZ_SEED as in tests/unit/test_fuzz.c, and
    # GRPC_FUZZ_ITERS requests per method (default 400).
    seed = int(os.environ.get("FUZZ_SEED", "0x5eed"), 0)
    iters = int(os.environ.get("GRPC_FUZZ_ITERS", "400"))
    rnd = random.Random(seed)
    meta = {"arrivalRateQuery": "vector(1)", "serviceTime": "10", "beta": "1.5",
            "schedule": "Mon-Fri 08:00-19:00 beta=2", "timezone": "Europe/Berlin",
            "scalerAddress": "staffer:9090"}
    # fixed names (no uniq()) and map keys in order: the same seed sends
    # the same bytes
    r = h.ref(meta, name="fz-ref", ns="fuzz").SerializeToString(deterministic=True)
    req = pb.GetMetricsRequest(scaledObjectRef=h.ref(meta, name="fz-req", ns="fuzz"),
                               metricName="staffer").SerializeToString(deterministic=True)
    hc = hpb.HealthCheckRequest(service="externalscaler.ExternalScaler").SerializeToString()
    tokens = [k.encode() for k in meta] + [
        b"staffing", b"erlangc", b"NaN", b"1e400", b"-1", b"\x00", b"\xff",
        b"../../etc/passwd", b"backend", b"metricName", b"Mon-Sun 00:00-24:00"]
    methods = [
        (h.SVC + "IsActive", r, False, (OK, INVALID, UNAVAIL)),
        (h.SVC + "GetMetricSpec", r, False, (OK, INVALID)),
        (h.SVC + "GetMetrics", req, False, (OK, INVALID, UNAVAIL)),
        # a stream whose backend answers an error stays open, silent
        # (design: errors are logged, the next check comes later)
        (h.SVC + "StreamIsActive", r, True,
         (OK, INVALID, UNAVAIL, grpc.StatusCode.DEADLINE_EXCEEDED)),
        (h.SVC + "StreamMetricSpec", r, True, (UNIMPL,)),
        ("/grpc.health.v1.Health/Check", hc, False,
         (OK, INVALID, grpc.StatusCode.NOT_FOUND)),
    ]
    counts = {}
    for method, base, stream, allowed in methods:
        for i in range(iters):
            payload = fuzz_mutate(rnd, base, tokens)
            what = "%s iteration %d (FUZZ_SEED=%#x) payload %r" % (method, i, seed, payload[:200])
            if stream:
                call = c.cl.ch.unary_stream(method, request_serializer=None,
                                            response_deserializer=None)(payload, timeout=1)
                try:
                    next(call)          # the first answer comes at once
                    got, d = OK, ""
                except StopIteration:
                    got, d = OK, ""
                except grpc.RpcError as e:
                    got, d = e.code(), e.details() or ""
                call.cancel()
            else:
                got, d, _ = h.status(c.cl.raw, method, payload)
            assert got in allowed, "%s: %s %r" % (what, got, d)
            assert all(32 <= ord(ch) < 127 for ch in d), "%s: details %r" % (what, d)
            counts[got.name] = counts.get(got.name, 0) + 1
    note("fuzzed requests: %s" % ", ".join("%s %d" % kv for kv in sorted(counts.items())))
    assert c.cl.health() == hpb.HealthCheckResponse.SERVING
    assert c.srv.alive(), "staffer exited"


# ----------------------------------------------------------------------------
# UNAVAILABLE: missing data is not zero


@test("UNAVAILABLE: arrival-rate series missing (GetMetrics and IsActive)", smoke=True)
def t_unavail_missing(c):
    p = uniq("miss")
    meta = {"arrivalRateQuery": p + "_arrival_rate", "serviceTime": "10"}
    d = expect_code(UNAVAIL, c.cl.metrics_raw, meta, name=uniq("so"))
    note("missing series: %s" % d)
    expect_code(UNAVAIL, c.cl.active, meta, name=uniq("so"))
    # a missing queue-depth series is unknown too, not 0
    p = uniq("missq")
    meta = c.m.signals(p, lam=1, w=10)
    meta["queueDepthQuery"] = p + "_absent_queue"
    expect_code(UNAVAIL, c.cl.metrics_raw, meta, name=uniq("so"))


@test("UNAVAILABLE: NaN (0/0 and a NaN gauge) and +Inf")
def t_unavail_nan(c):
    for q in ("test_zero/test_zero", "test_nan"):
        d = expect_code(UNAVAIL, c.cl.metrics_raw,
                        {"arrivalRateQuery": q, "serviceTime": "10"}, name=uniq("so"))
        note("%s: %s" % (q, d))
    p = uniq("inf")
    c.m.set(**{p: "+Inf"})
    c.m.wait_value(p, float("inf"))
    expect_code(UNAVAIL, c.cl.metrics_raw, {"arrivalRateQuery": p, "serviceTime": "10"},
                name=uniq("so"))


@test("a query with two series is an error (details say sum()), never a value", smoke=True)
def t_unavail_two(c):
    # An outage (UNAVAILABLE) or a configuration error (INVALID_ARGUMENT,
    # docs/config.md): either is accepted.  What matters: an error, never a value.
    got, d, r = h.status(c.cl.metrics_raw, {"arrivalRateQuery": "test_two_series",
                                            "serviceTime": "10"}, name=uniq("so"))
    note("two series -> %s" % got.name)
    assert got in (UNAVAIL, INVALID), (got, d, r)
    assert "sum" in d, "details should suggest sum(): %r" % d
    # wrapped in sum() it works: lambda=3, W=1 -> 3 + 1.5*sqrt(3) = 5.6 -> 6
    assert c.cl.target({"arrivalRateQuery": "sum(test_two_series)", "serviceTime": "1"},
                       name=uniq("so")) == expected(3, 1) == 6


@test("failing PromQL (syntax error) -> error status, never a value")
def t_unavail_bad_promql(c):
    got, d, r = h.status(c.cl.metrics_raw, {"arrivalRateQuery": "rate(", "serviceTime": "10"},
                         name=uniq("so"))
    note("syntax error -> %s: %s" % (got.name, d))
    assert got in (UNAVAIL, INVALID), (got, d, r)


@test("UNAVAILABLE: backend refusing connections, answered quickly", smoke=True)
def t_unavail_dead(c):
    t0 = time.monotonic()
    expect_code(UNAVAIL, c.cl.metrics_raw, dict(base_meta(), backend="dead"), name=uniq("so"))
    dt = time.monotonic() - t0
    assert dt < 3, "took %.2fs" % dt


@test("UNAVAILABLE: a 404 names the URL path and hints at the base path", smoke=True)
def t_unavail_404(c):
    got, d, _ = h.status(c.cl.metrics_raw, dict(base_meta(), backend="nopath"), name=uniq("so"))
    assert got == UNAVAIL, (got, d)
    for want in ("HTTP status 404 for path '/nope/api/v1/query'", "base path",
                 "backend 'nopath'"):
        assert want in (d or ""), "%r not in %r" % (want, d)


@test("stale data: last good target held (not 0) for staleHoldSeconds, then UNAVAILABLE")
def t_stale_hold(c):
    p = uniq("stale")
    meta = c.m.signals(p, lam=2, w=10)
    meta["staleHoldSeconds"] = "4"
    name = uniq("so")
    assert c.cl.target(meta, name=name) == 27
    t_good = time.monotonic()
    c.m.delete(p + "_arrival_rate")
    c.m.wait_absent(p + "_arrival_rate")
    got, d, r = h.status(c.cl.target, meta, name=name)
    elapsed = time.monotonic() - t_good
    if elapsed < 3.5:
        assert got == OK and r == 27, "within the hold (%.1fs): %s %r %r" % (elapsed, got, d, r)

    def unavailable():
        g, dd, rr = h.status(c.cl.target, meta, name=name)
        assert g in (OK, UNAVAIL), (g, dd)
        assert g != OK or rr == 27, "held target changed to %r" % rr
        return g == UNAVAIL
    h.wait_until(unavailable, 8, 0.25, "UNAVAILABLE after the hold")
    note("UNAVAILABLE %.1fs after the last good read (hold 4 s)" % (time.monotonic() - t_good))
    # data back -> answers again
    c.m.update(**{p + "_arrival_rate": 2})
    assert c.cl.target(meta, name=name) == 27


# ----------------------------------------------------------------------------
# coldStartQuery: the cold start measured in place of coldStartSeconds


def rising_rate(slope=0.01, age=700):
    """PromQL of an arrival rate rising by `slope` req/s every second, at
    slope * age req/s now; time() makes it a series with a full history,
    so the range query behind the forecast has all its points at once.
    Returns (query, t0) with rate(t) = slope * (t - t0)."""
    t0 = int(time.time()) - age
    return "vector(%g * (time() - %d))" % (slope, t0), t0


def cold_forecast_target(c, meta, t0, horizon, slope=0.01, w=10.0):
    """GetMetrics for meta (staffing none, a rising_rate, W = w) under a
    fresh name, and the answers Holt's forecast `horizon` s ahead allows:
    on a straight line it is exact, lambda-hat = rate(end) + slope *
    horizon with `end` the range query's end (the time of the call, a
    little slack for the clocks), target = ceil(w * lambda-hat)."""
    name = uniq("so")
    tb = time.time()
    got = c.cl.target(meta, name=name)
    ta = time.time()
    lo = math.ceil(w * slope * (tb - 0.5 - t0 + horizon) - 1e-6)
    hi = math.ceil(w * slope * (ta + 0.5 - t0 + horizon) + 1e-6)
    return got, set(range(lo, hi + 1))


@test("coldStartQuery 300 replaces coldStartSeconds 120: the forecast looks 360 s ahead on a "
      "rising rate (as coldStartSeconds 300 does), more than the 180 s of 120", smoke=True)
def t_cold_query_forecast(c):
    lam, t0 = rising_rate()
    # rateWindowSeconds 60 / 2 + metricsLagSeconds 30: horizon = cold + 60
    meta = {"arrivalRateQuery": lam, "serviceTime": "10", "staffing": "none",
            "coldStartSeconds": "120", "peakedness": "off"}
    got, want = cold_forecast_target(c, dict(meta, coldStartQuery="vector(300)"), t0, 360)
    note("rate 0.01*(t - t0), W 10: coldStartQuery 300 -> %d (allowed %s)" % (got, sorted(want)))
    assert got in want, "coldStartQuery 300: %d, want one of %s" % (got, sorted(want))
    # the same as coldStartSeconds 300 given, and not the 120 s answer
    got300, want300 = cold_forecast_target(c, dict(meta, coldStartSeconds="300"), t0, 360)
    assert got300 in want300, (got300, sorted(want300))
    got120, want120 = cold_forecast_target(c, meta, t0, 180)
    assert got120 in want120, (got120, sorted(want120))
    assert got - got120 >= 17, "coldStartQuery 300: %d, coldStartSeconds 120: %d" % (got, got120)


@test("coldStartQuery with no data (empty, NaN) or outside 0 < s <= 3600 (7200, 0, -5): "
      "coldStartSeconds is the horizon")
def t_cold_query_fallback(c):
    lam, t0 = rising_rate()
    meta = {"arrivalRateQuery": lam, "serviceTime": "10", "staffing": "none",
            "coldStartSeconds": "120", "peakedness": "off"}
    absent = uniq("absent_cold_start")
    for q in (absent, "vector(0) / 0", "vector(7200)", "vector(0)", "vector(-5)"):
        got, want = cold_forecast_target(c, dict(meta, coldStartQuery=q), t0, 180)
        assert got in want, "coldStartQuery %r: %d, want one of %s (coldStartSeconds 120)" % (
            q, got, sorted(want))
    # 3600, the edge, is a cold start: 3660 s ahead
    got, want = cold_forecast_target(c, dict(meta, coldStartQuery="vector(3600)"), t0, 3660)
    assert got in want, "coldStartQuery 3600: %d, want one of %s" % (got, sorted(want))
    # coldStartSeconds 90 is what the fallback gives, not the default 120
    got, want = cold_forecast_target(c, dict(meta, coldStartSeconds="90",
                                             coldStartQuery="vector(0) / 0"), t0, 150)
    assert got in want, "coldStartSeconds 90, NaN: %d, want one of %s" % (got, sorted(want))


def dropped_rate(ago=270):
    """PromQL of an arrival rate of 10 req/s until `ago` s ago, 1 req/s
    since: a hold of 180 s has forgotten the 10, one of 360 s has not."""
    return "vector(1 + 9 * (time() < bool %d))" % (int(time.time()) - ago)


@test("coldStartQuery 300 makes the scale-down hold 360 s: 10 req/s 270 s ago is held (100), "
      "while with no data or 7200 the 180 s hold has let it go (10)")
def t_cold_query_hold(c):
    # (the surge headroom off: a rate computed from time() has hours of
    # history at once, and the drop is a rise it covers)
    meta = {"arrivalRateQuery": dropped_rate(), "serviceTime": "10", "staffing": "none",
            "coldStartSeconds": "120", "surgeQuantile": "0"}
    assert c.cl.target(dict(meta, coldStartQuery="vector(300)"), name=uniq("so")) == 100
    assert c.cl.target(dict(meta, coldStartSeconds="300"), name=uniq("so")) == 100
    assert c.cl.target(meta, name=uniq("so")) == 10
    for q in ("vector(7200)", "vector(0) / 0", uniq("absent_cold")):
        got = c.cl.target(dict(meta, coldStartQuery=q), name=uniq("so"))
        assert got == 10, "coldStartQuery %r: %d, want 10 (the 180 s hold)" % (q, got)


@test("coldStartQuery refused by the backend (bad_data) or with two series -> INVALID_ARGUMENT "
      "naming coldStartQuery, even after a good answer; with coldStartSeconds 0 too",
      smoke=True)
def t_cold_query_invalid(c):
    p = uniq("coldinv")
    meta = c.m.signals(p, lam=2, w=10)
    name = uniq("so")
    assert c.cl.target(dict(meta, coldStartQuery="vector(300)"), name=name) == 27
    d = expect_code(INVALID, c.cl.metrics_raw, dict(meta, coldStartQuery="rate("), name=name)
    assert d.startswith("coldStartQuery: backend error (bad_data): ") and \
        d.endswith("(backend 'prom')"), d
    d = expect_code(INVALID, c.cl.metrics_raw, dict(meta, coldStartQuery="test_two_series"),
                    name=uniq("so"))
    assert d.startswith("coldStartQuery: query returned 2 series") and "sum()" in d, d
    # the activity does not read the cold start: IsActive still answers
    assert c.cl.active(dict(meta, coldStartQuery="rate("), name=uniq("so")) is True
    # a cold start measured for a forecast and hold that are off
    for fn in (c.cl.metrics_raw, c.cl.active, c.cl.spec):
        d = expect_code(INVALID, fn, dict(meta, coldStartQuery="vector(300)",
                                          coldStartSeconds="0"), name=uniq("so"))
        assert "metadata 'coldStartQuery' has no effect while 'coldStartSeconds' is 0" in d, d


@test("coldStartQuery failing at the backend (an execution error): the last target is held "
      "for staleHoldSeconds, then UNAVAILABLE naming coldStartQuery; answers resume")
def t_cold_query_unavailable(c):
    p = uniq("coldun")
    meta = c.m.signals(p, lam=2, w=10)
    cold, dup = p + "_cold_start", p + "_dup"
    c.m.update(**{cold: 300, dup: 0})
    # one series of dup: 300; two: many-to-many matching, an execution error
    meta.update(coldStartQuery="%s + on() (%s * 0)" % (cold, dup), staleHoldSeconds="4")
    name = uniq("so")
    assert c.cl.target(meta, name=name) == 27
    t_good = time.monotonic()
    c.m.set_raw(dup + '{shard="b"}', 0)
    c.m.wait_value("count(%s)" % dup, 2)
    d = expect_code(UNAVAIL, c.cl.metrics_raw, meta, name=uniq("so"))
    assert d.startswith("coldStartQuery: backend error (execution): ") and \
        "(backend 'prom')" in d, d
    got, d, r = h.status(c.cl.target, meta, name=name)
    if time.monotonic() - t_good < 3.5:
        assert got == OK and r == 27, "within the hold: %s %r %r" % (got, d, r)
        h.wait_until(lambda: [l for l in c.srv.log().splitlines()
                              if name in l and "holding the last target 27" in l and
                              "coldStartQuery" in l], 3, what="the hold logged for %s" % name)

    def unavailable():
        g, dd, rr = h.status(c.cl.target, meta, name=name)
        assert g in (OK, UNAVAIL), (g, dd)
        assert g != OK or rr == 27, "held target changed to %r" % rr
        return dd if g == UNAVAIL else None
    d = h.wait_until(unavailable, 8, 0.25, "UNAVAILABLE after the hold")
    assert d.startswith("coldStartQuery: "), d
    c.m.delete(dup + '{shard="b"}')
    c.m.wait_value("count(%s)" % dup, 1)
    assert c.cl.target(meta, name=name) == 27


@test("--metrics-listen: staffer_signal_cold_start_seconds is the cold start in force, only for "
      "triggers with coldStartQuery; the decision line says cold=")
def t_cold_query_metrics(c):
    port = h.free_port()
    srv = h.Staffer(c.bin, config=c.cfg, env=c.env,
                    args=["--log-level", "info", "--metrics-listen", "127.0.0.1:%d" % port])
    srv.start(c.ready_timeout)
    url = "http://127.0.0.1:%d/metrics" % port
    try:
        meta = c.m.signals(uniq("coldmet"), lam=2, w=10)
        cases = {   # name: (extra metadata, gauge or None, cold= in the decision line)
            uniq("so"): ({"coldStartQuery": "vector(300)"}, 300, "300"),
            uniq("so"): ({"coldStartQuery": "vector(7200)"}, 120, "120"),
            uniq("so"): ({"coldStartQuery": "vector(0) / 0", "coldStartSeconds": "90"},
                         90, "90"),
            uniq("so"): ({"coldStartQuery": uniq("absent_cold")}, 120, "120"),
            uniq("so"): ({"coldStartQuery": "vector(2000.5)"}, 2000.5, ("2000", "2000.5")),
            uniq("so"): ({}, None, None),
            uniq("so"): ({"coldStartSeconds": "300"}, None, None),
        }
        with h.Client(srv.addr) as cl:
            for n, (extra, _, _) in cases.items():
                assert cl.target(dict(meta, **extra), name=n) == 27, (n, extra)
        body = h.http_get(url).decode()
        assert "# TYPE staffer_signal_cold_start_seconds gauge" in body, body[:2000]
        got = scrape(url)
        fam = "staffer_signal_cold_start_seconds"
        for n, (extra, want, _) in cases.items():
            g = '%s{scaledobject_namespace="default",scaledobject="%s",metric="staffer"}' % (fam, n)
            assert got.get(g) == want, "%s = %r, want %r (%s)" % (g, got.get(g), want, extra)
            # the other families are there for every one
            assert got.get(g.replace(fam, "staffer_target_replicas")) == 27, (n, extra)
        lines = h.wait_until(lambda: (lambda ls: ls if all(
            any("decision ref=" in l and n in l for l in ls) for n in cases) else None)(
                srv.log().splitlines()), 3, what="a decision line for each trigger")
        for n, (extra, _, cold) in cases.items():
            dec = [l for l in lines if "decision ref=" in l and n in l]
            assert len(dec) == 1, (n, dec)
            if cold is None:
                assert " cold=" not in dec[0], dec[0]
            else:   # printed as the line's other numbers are (%.4g)
                assert any(dec[0].endswith(" cold=" + x) for x in
                           (cold if isinstance(cold, tuple) else (cold,))), (extra, dec[0])
    finally:
        rc, _ = srv.stop(c.grace + 5)
    assert rc == 0, "exit %r\n%s" % (rc, srv.log_tail())
    assert not srv.sanitizer_reports(), srv.sanitizer_reports()


@test("--log-format json: every line parses; lines about a ScaledObject carry its fields, "
      "decision terms as numbers, errors their method and code", timeout=60)
def t_json_logs(c):
    srv = h.Staffer(c.bin, config=c.cfg, env=c.env,
                    args=["--log-level", "debug", "--log-format", "json"])
    srv.start(c.ready_timeout)
    ns = "jsonns"
    try:
        meta = c.m.signals(uniq("json"), lam=2, w=10)
        ok, inv, down = uniq("so"), uniq("so"), uniq("so")
        with h.Client(srv.addr) as cl:
            assert cl.target(meta, name=ok, ns=ns) == 27
            assert cl.active(meta, name=ok, ns=ns)
            expect_code(INVALID, cl.metrics_raw, dict(base_meta(), betta="1"), name=inv, ns=ns)
            expect_code(UNAVAIL, cl.metrics_raw, dict(base_meta(), backend="dead"),
                        name=down, ns=ns)

        def parsed():
            out = []
            for l in srv.log().splitlines():
                try:
                    out.append(json.loads(l))
                except ValueError:
                    raise AssertionError("not a JSON line: %r" % l)
            return out if any(o.get("code") == "UNAVAILABLE" for o in out) else None
        lines = h.wait_until(parsed, 3, what="the UNAVAILABLE line")
        for o in lines:
            assert isinstance(o.get("time"), str) and o.get("level") in \
                ("debug", "info", "warn", "error") and isinstance(o.get("msg"), str), o
            if o.get("scaledObject") in (ok, inv, down):
                assert o.get("namespace") == ns, o
        dec = [o for o in lines if o["msg"].startswith("decision ") and o.get("scaledObject") == ok]
        assert dec, "no decision line for %s:\n%s" % (ok, srv.log_tail())
        d = dec[0]
        assert d["trigger"] == "staffer" and d["backend"] == "prom" and \
            d["ref"] == "%s/%s/staffer" % (ns, ok), d
        assert d.get("method") == "GetMetrics", d
        for term, v in (("lambda", 2), ("W", 10), ("Q", 0), ("S", 0), ("busy", 20),
                        ("headroom", 6.708), ("drain", 0), ("boost", 0), ("raw", 27),
                        ("target", 27), ("active", 1)):
            assert isinstance(d.get(term), (int, float)) and abs(d[term] - v) < 1e-3, (term, d)
        for term in ("raw", "target", "active"):
            assert isinstance(d[term], int), (term, d)
        assert d["down"] in ("free", "hold", "hold-no-series", "step", "margin") and \
            d["state"] in ("memory", "observed"), d
        # the text line's terms, each a field of the JSON line
        for kv in d["msg"].split()[1:]:
            k = kv.split("=", 1)[0]
            assert k in d, "%s of the message is not a field: %s" % (k, d)
        refused = [o for o in lines if o.get("scaledObject") == inv and o.get("code")]
        assert refused and refused[0]["code"] == "INVALID_ARGUMENT" and \
            refused[0]["method"] == "GetMetrics" and "betta" in refused[0]["msg"], refused
        failed = [o for o in lines if o.get("scaledObject") == down and o.get("code")]
        assert failed and failed[-1]["code"] == "UNAVAILABLE" and \
            failed[-1]["method"] == "GetMetrics" and failed[-1]["backend"] == "dead", failed
        q = [o for o in lines if o.get("backend") == "dead" and "query" in o]
        assert q and q[0]["query"] == "test_zero", q
        note("%d JSON lines; a decision line: %s" % (len(lines), json.dumps(d)[:300]))
    finally:
        rc, _ = srv.stop(c.grace + 5)
    assert rc == 0, "exit %r\n%s" % (rc, srv.log_tail())
    assert not srv.sanitizer_reports(), srv.sanitizer_reports()


# ----------------------------------------------------------------------------
# smoothing


@test("scale-down smoothing: one step per scaleDownPeriodSeconds, scale-up at once")
def t_smoothing(c):
    p = uniq("smooth")
    meta = c.m.signals(p, lam=1, w=10)
    meta.update(staffing="none", scaleDownPeriodSeconds="2", scaleDownStep="1")
    name = uniq("so")
    assert c.cl.target(meta, name=name) == 10
    c.m.update(**{p + "_arrival_rate": 0.5})  # raw target 5
    samples = []
    t0 = time.monotonic()
    while time.monotonic() - t0 < 6.5:
        samples.append((time.monotonic() - t0, c.cl.target(meta, name=name)))
        time.sleep(0.2)
    vals = [v for _, v in samples]
    note("smoothing samples (s, target): %s" %
         " ".join("%.1f:%d" % s for i, s in enumerate(samples)
                  if i == 0 or samples[i - 1][1] != s[1]))
    assert vals[0] >= 9, "dropped at once: %r" % vals[:5]
    assert all(5 <= v <= 10 for v in vals), vals
    downs = []
    for (ta, a), (tb, b) in zip(samples, samples[1:]):
        assert b <= a, "went up without more traffic: %d -> %d" % (a, b)
        assert a - b <= 1, "dropped %d at once (step 1)" % (a - b)
        if b < a:
            downs.append(tb)
    for x, y in zip(downs, downs[1:]):
        assert y - x >= 1.6, "two steps %.2fs apart (period 2 s)" % (y - x)
    assert vals[-1] <= 8, "did not step down over 6.5 s: %r" % vals
    # a different ScaledObject with the same metadata has its own state
    assert c.cl.target(meta, name=uniq("so")) == 5
    assert c.cl.target(meta, name=name, ns="other-ns") == 5
    # scale-up at once
    c.m.update(**{p + "_arrival_rate": 2})
    assert c.cl.target(meta, name=name) == 20


# ----------------------------------------------------------------------------
# StreamIsActive


@test("StreamIsActive: current state at once, true pushed on inactive->active only", smoke=True,
      timeout=45)
def t_stream(c):
    p = uniq("stream")
    meta = c.m.signals(p, lam=0, w=10)
    meta["pushIntervalSeconds"] = "1"
    lam = p + "_arrival_rate"
    s = c.cl.stream(meta, name=uniq("so"))
    try:
        first = s.next(timeout=3)
        assert first is not None, "stream ended: %s %s" % (s.code, s.details)
        note("first message after %.3fs: %s" % (first[0] - s.t_open, first[1]))
        assert first[1] is False and first[0] - s.t_open < 2.0, first
        t_set = time.monotonic()
        c.m.set(**{lam: 1})
        m = s.next(timeout=6)
        assert m is not None, "stream ended: %s %s" % (s.code, s.details)
        assert m[1] is True, m
        note("activation pushed %.2fs after traffic appeared at the exporter "
             "(scrape 1 s + pushInterval 1 s)" % (m[0] - t_set))
        assert m[0] - t_set < 4.5, "push took %.2fs" % (m[0] - t_set)
        try:  # no repeated true while it stays active
            extra = s.next(timeout=2.5)
            raise AssertionError("unexpected message while still active: %r" % (extra,))
        except h.queue.Empty:
            pass
        c.m.update(**{lam: 0})
        try:  # false is not pushed
            extra = s.next(timeout=2.5)
            raise AssertionError("unexpected message on active->inactive: %r" % (extra,))
        except h.queue.Empty:
            pass
        t_set = time.monotonic()
        c.m.set(**{lam: 3})
        m = s.next(timeout=6)
        assert m is not None and m[1] is True, m
        note("second activation pushed after %.2fs" % (m[0] - t_set))
    finally:
        s.cancel()
    assert c.cl.health() == hpb.HealthCheckResponse.SERVING


@test("StreamIsActive opened while active sends true first")
def t_stream_active_first(c):
    p = uniq("streama")
    meta = c.m.signals(p, lam=0, w=10, q=5)
    meta["pushIntervalSeconds"] = "1"
    s = c.cl.stream(meta, name=uniq("so"))
    try:
        m = s.next(timeout=3)
        assert m is not None and m[1] is True, (m, s.code, s.details)
        try:
            extra = s.next(timeout=2.2)
            raise AssertionError("repeated message while active: %r" % (extra,))
        except h.queue.Empty:
            pass
    finally:
        s.cancel()


@test("StreamIsActive: two ScaledObjects with equal metadata keep their own state (hold)",
      timeout=40)
def t_stream_own_state(c):
    # Equal metadata, two names: the streams must not share one evaluation
    # under the first name, or the second object's hold state never learns
    # it was active and its IsActive fails at once when data goes missing.
    p = uniq("streamo")
    meta = c.m.signals(p, lam=2, w=10)
    meta.update(pushIntervalSeconds="1", staleHoldSeconds="6")
    a, b = uniq("so"), uniq("so")
    sa = c.cl.stream(meta, name=a)
    try:
        m = sa.next(timeout=3)
        assert m is not None and m[1] is True, (m, sa.code, sa.details)
        sb = c.cl.stream(meta, name=b)
        try:
            m = sb.next(timeout=3)
            assert m is not None and m[1] is True, (m, sb.code, sb.details)
            time.sleep(1.5)          # a push interval: b evaluated again
            c.m.delete(p + "_arrival_rate")
            c.m.wait_absent(p + "_arrival_rate")
            t_gone = time.monotonic()
            got, d, r = h.status(c.cl.active, meta, name=b)
            if time.monotonic() - t_gone < 3:
                assert got == OK and r is True, \
                    "b's hold lost (its stream ran under a's name?): %s %r %r" % (got, d, r)
        finally:
            sb.cancel()
    finally:
        sa.cancel()


# ----------------------------------------------------------------------------
# concurrency


@test("a hung backend does not delay GetMetrics on another backend", smoke=True, timeout=40)
def t_slow_isolation(c):
    p = uniq("fast")
    fast = c.m.signals(p, lam=2, w=10)
    results = []

    def slow_call(i):
        meta = {"arrivalRateQuery": "slow_q_%s_%d" % (p, i), "serviceTime": "10",
                "backend": "slow"}
        t0 = time.monotonic()
        got, d, _ = h.status(c.cl.metrics_raw, meta, name=uniq("so"), timeout=10)
        results.append((got, time.monotonic() - t0, d))
    ths = [threading.Thread(target=slow_call, args=(i,)) for i in range(4)]
    for t in ths:
        t.start()
    time.sleep(0.3)
    lat = []
    for i in range(3):
        t0 = time.monotonic()
        assert c.cl.target(fast, name=uniq("so")) == 27
        lat.append(time.monotonic() - t0)
        t0 = time.monotonic()
        assert c.cl.active(fast, name=uniq("so")) is True
        lat.append(time.monotonic() - t0)
    for t in ths:
        t.join(15)
    note("fast-backend RPC latency while 4 calls hang on the slow backend: max %.3fs" % max(lat))
    note("slow-backend calls: %s" % ", ".join("%s in %.2fs" % (g.name, dt) for g, dt, _ in results))
    assert max(lat) < 0.5, "fast calls took %r" % lat
    assert len(results) == 4
    for got, dt, d in results:
        assert got == UNAVAIL, (got, d)
        assert dt < 4.5, "slow call took %.2fs with timeoutSeconds 2" % dt


@test("identical in-flight queries are coalesced (one backend request)")
def t_coalesce(c):
    q = uniq("coal")
    # coldStartSeconds 0 and peakedness off: the instant query only
    meta = {"arrivalRateQuery": q, "serviceTime": "10", "backend": "slow",
            "coldStartSeconds": "0", "peakedness": "off"}
    res = []
    ths = [threading.Thread(target=lambda: res.append(
        h.status(c.cl.metrics_raw, meta, name=uniq("so"), timeout=10)[0])) for _ in range(8)]
    for t in ths:
        t.start()
    for t in ths:
        t.join(15)
    n = sum(v for k, v in c.m.slow_count().items() if q in k)
    note("8 concurrent identical GetMetrics -> %d backend request(s); statuses %s"
         % (n, sorted(set(r.name for r in res))))
    assert all(r == UNAVAIL for r in res), res
    assert n == 1, "backend saw %d requests" % n


@test("parallel load: 240 mixed RPCs from 16 threads all answer correctly", smoke=True,
      timeout=60)
def t_load(c):
    p = uniq("load")
    meta = c.m.signals(p, lam=2, w=10)
    errors = []
    clients = [h.Client(c.srv.addr) for _ in range(4)]

    def worker(i):
        cl = clients[i % len(clients)]
        for j in range(15):
            try:
                k = (i + j) % 5
                if k == 0:
                    assert cl.target(meta, name="load-%d" % (j % 7)) == 27
                elif k == 1:
                    assert cl.active(meta, name="load-%d" % i) is True
                elif k == 2:
                    assert cl.spec(meta).metricSpecs[0].targetSizeFloat == 1.0
                elif k == 3:
                    expect_code(INVALID, cl.metrics_raw, dict(meta, beta="x"), name="load")
                else:
                    assert cl.health() == hpb.HealthCheckResponse.SERVING
            except Exception as e:
                errors.append("%d/%d: %r" % (i, j, e))
    t0 = time.monotonic()
    ths = [threading.Thread(target=worker, args=(i,)) for i in range(16)]
    for t in ths:
        t.start()
    for t in ths:
        t.join(50)
    dt = time.monotonic() - t0
    for cl in clients:
        cl.close()
    note("240 RPCs in %.2fs (%.0f/s)" % (dt, 240 / dt))
    assert not errors, "%d errors, first: %s" % (len(errors), errors[:3])


# ----------------------------------------------------------------------------
# Prometheus down (stops and restarts the shared Prometheus)


@test("Prometheus down: GetMetricSpec and health still OK, GetMetrics UNAVAILABLE; recovers",
      timeout=60)
def t_prom_down(c):
    p = uniq("down")
    meta = c.m.signals(p, lam=2, w=10)
    name = uniq("so")
    assert c.cl.target(meta, name=name) == 27
    c.m.stop_prometheus()
    try:
        r = c.cl.spec(meta)
        assert r.metricSpecs[0].metricName == "staffer"
        assert c.cl.health() == hpb.HealthCheckResponse.SERVING
        t0 = time.monotonic()
        d = expect_code(UNAVAIL, c.cl.metrics_raw, meta, name=uniq("so"))
        dt = time.monotonic() - t0
        note("Prometheus down: UNAVAILABLE in %.2fs: %s" % (dt, d))
        assert dt < 3, "took %.2fs" % dt
        expect_code(UNAVAIL, c.cl.active, meta, name=uniq("so"))
        # the ScaledObject with a good target holds it (never 0)
        got, d, r = h.status(c.cl.target, meta, name=name)
        assert got == UNAVAIL or r == 27, (got, d, r)
    finally:
        c.m.start_prometheus()
    c.m.wait_value(p + "_arrival_rate", 2)
    h.wait_until(lambda: c.cl.target(meta, name=uniq("so")) == 27, 10, 0.2,
                 "GetMetrics to recover after Prometheus restart")


# ----------------------------------------------------------------------------
# separate processes: env config, bad config, port in use, SIGTERM


@test("env-only configuration (STAFFER_LISTEN/PROMETHEUS/LOG_LEVEL/CONFIG)", timeout=60)
def t_env(c):
    p = uniq("env")
    meta = c.m.signals(p, lam=2, w=10)
    port = h.free_port()
    s = h.Staffer(c.bin, use_flags=False, env=dict(c.env, STAFFER_LISTEN="127.0.0.1:%d" % port,
                  STAFFER_PROMETHEUS=c.m.prom_url, STAFFER_LOG_LEVEL="warn"), port=port)
    s.start(c.ready_timeout)
    try:
        with h.Client(s.addr) as cl:
            assert cl.target(meta, name="env-so") == 27
        time.sleep(0.3)
        assert "decision" not in s.log(), "info line at log level warn:\n" + s.log_tail()
    finally:
        rc, dt = s.stop(c.grace + 5)
    assert rc == 0, "exit %r\n%s" % (rc, s.log_tail())
    assert not s.sanitizer_reports(), s.sanitizer_reports()
    port = h.free_port()
    s = h.Staffer(c.bin, use_flags=False, env=dict(c.env, STAFFER_LISTEN="127.0.0.1:%d" % port,
                  STAFFER_CONFIG=c.cfg, STAFFER_LOG_LEVEL="debug"), port=port)
    s.start(c.ready_timeout)
    try:
        with h.Client(s.addr) as cl:
            assert cl.target(meta, name="env-so2") == 27
            expect_code(INVALID, cl.metrics_raw, dict(meta, backend="nosuch"), name="x")
            expect_code(UNAVAIL, cl.metrics_raw, dict(meta, backend="dead"), name="y")
        h.wait_until(lambda: "decision" in s.log(), 3, what="decision line at debug")
    finally:
        rc, dt = s.stop(c.grace + 5)
    assert rc == 0, "exit %r\n%s" % (rc, s.log_tail())


@test("cacheTTLSeconds: a backend answer is reused, refreshed ahead at 0.75 TTL while in use "
      "(its timeout leaves no later time)", timeout=60)
def t_cache_ttl(c):
    p = uniq("ttl")
    meta = c.m.signals(p, lam=2, w=10)
    ttl = 3
    cfg = h.write_config(os.path.join(c.m.dir, "ttl.json"),
                         [{"name": "prom", "url": c.m.prom_url, "timeoutSeconds": 2}], ttl=ttl)
    s = h.Staffer(c.bin, config=cfg, env=c.env, wrapper=c.wrapper).start(c.ready_timeout)
    try:
        with h.Client(s.addr) as cl:
            assert cl.target(meta, name="ttl") == 27
            t0 = time.monotonic()
            c.m.update(**{p + "_arrival_rate": 4})  # -> 40 + 1.5*sqrt(40) = 49.5 -> 50
            got = cl.target(meta, name="ttl2")
            # an answer in use is refreshed in the background once it is
            # 0.75 of the TTL old (docs/config.md, "The answer cache")
            ahead = 0.75 * ttl
            if time.monotonic() - t0 < ahead - 0.5:
                assert got == 27, "cached answer not used %.1fs into a %ds TTL: %d" % (
                    time.monotonic() - t0, ttl, got)
            h.wait_until(lambda: cl.target(meta, name="ttl3") == 50, ttl + 4, 0.2,
                         "the new value after the refresh")
            dt = time.monotonic() - t0
            note("new value served %.2fs after the first read (TTL %ds)" % (dt, ttl))
            assert dt >= ahead - 0.6, "refreshed after %.2fs with a %ds TTL" % (dt, ttl)
    finally:
        rc, _ = s.stop(c.grace + 5)
    assert rc == 0, "exit %r\n%s" % (rc, s.log_tail())


@test("cacheTTLSeconds: an answer in use is refreshed as late as its timeout allows, "
      "before the TTL ends", timeout=60)
def t_cache_refresh_late(c):
    p = uniq("late")
    meta = c.m.signals(p, lam=2, w=10)
    ttl, timeout = 12, 0.5
    # the TTL less the timeout and 1 s for the lane: 10.5 s, later than
    # 0.75 x 12 = 9 s (src/fetch.c, refresh_age())
    late = ttl - timeout - 1
    cfg = h.write_config(os.path.join(c.m.dir, "late.json"),
                         [{"name": "prom", "url": c.m.prom_url,
                           "timeoutSeconds": timeout}], ttl=ttl)
    s = h.Staffer(c.bin, config=cfg, env=c.env, wrapper=c.wrapper).start(c.ready_timeout)
    try:
        with h.Client(s.addr) as cl:
            t0 = time.monotonic()
            assert cl.target(meta, name="late") == 27
            c.m.update(**{p + "_arrival_rate": 4})  # -> 50
            seen = []
            while time.monotonic() - t0 < ttl + 3:
                t = time.monotonic()
                got = cl.target(meta, name="late")
                seen.append((time.monotonic() - t0, time.monotonic() - t, got))
                if got == 50:
                    break
                time.sleep(0.25)
            dt, call_s, got = seen[-1]
            note("new value served %.2fs after the first read (TTL %ds, timeout %gs: "
                 "refresh due at %.1fs); the slowest call %.0f ms" % (
                     dt, ttl, timeout, late, 1e3 * max(x[1] for x in seen)))
            assert got == 50, "no new value %.1fs after the first read" % dt
            assert dt >= late - 0.6, "refreshed after %.2fs, before %.1fs" % (dt, late)
            assert dt <= ttl + 0.5, "new value only %.2fs after the first read" % dt
            # and the cached answer was never served past its TTL
            old = [x for x in seen if x[2] == 27]
            assert all(x[0] < ttl for x in old), "an answer older than the TTL: %r" % old[-3:]
    finally:
        rc, _ = s.stop(c.grace + 5)
    assert rc == 0, "exit %r\n%s" % (rc, s.log_tail())


@test("cacheTTLSeconds: the surge headroom's range is extended from the forecast's finer "
      "range of the same query, with no request of its own, and the arrival rate read from "
      "its newest point; the answers stay", timeout=180)
def t_surge_derived(c):
    p = uniq("drv")
    # the forecast's range at 5 s (200 s / 40), the surge headroom's at
    # 15 s (a lead time of 20 + 30 s, a quarter of it, at least 15 s)
    meta = dict(c.m.signals(p, lam=2, w=10), forecastWindowSeconds="200",
                coldStartSeconds="20", metricsLagSeconds="0")
    # not flat, so that the ranges' comparisons compare something
    # (src/fetch.h): within 0.01 of 2
    meta["arrivalRateQuery"] += " + 0.0001 * (time() % 100)"
    port = h.free_port()
    cfg = h.write_config(os.path.join(c.m.dir, "derive.json"),
                         [{"name": "prom", "url": c.m.prom_url, "timeoutSeconds": 0.5,
                           "rangeSettleSeconds": 2}], ttl=3)
    s = h.Staffer(c.bin, config=cfg, env=c.env, wrapper=c.wrapper,
                  args=["--metrics-listen", "127.0.0.1:%d" % port]).start(c.ready_timeout)
    url = "http://127.0.0.1:%d/metrics" % port
    key = 'staffer_backend_range_answers_total{how="%s"}'
    try:
        with h.Client(s.addr) as cl:
            answers = set()
            t0 = time.monotonic()
            m = scrape(url)
            # derived once both ranges hold 3 settled points with a value
            # at the same times: 45 s of the surge range's grid and more
            while time.monotonic() - t0 < 150 and m[key % "derived"] < 3:
                answers.add(cl.target(meta, name="drv"))
                time.sleep(1)
                m = scrape(url)
            note("after %.0f s: whole %d, tail %d, renewed %d, derived %d" % (
                time.monotonic() - t0, m[key % "whole"], m[key % "tail"],
                m[key % "renewed"], m[key % "derived"]))
            assert m[key % "derived"] >= 3, m
            assert m["staffer_backend_ranges_not_derived_total"] == 0, m
            # the same answer all along: 20.1 + 1.5 sqrt(20.1) = 26.8 -> 27
            assert answers == {27}, answers
            # a derived range is one request less: from here on the range
            # requests are the forecast's, about one per refresh, and the
            # surge range's own every FETCH_DERIVE_RECHECK derivations
            r0 = m[key % "whole"] + m[key % "tail"]
            d0 = m[key % "derived"]
            ikey = "staffer_backend_instant_answers_from_range_total"
            i0 = m[ikey]
            for _ in range(20):
                assert cl.target(meta, name="drv") == 27
                time.sleep(1)
            m = scrape(url)
            ranges = m[key % "whole"] + m[key % "tail"] - r0
            derived = m[key % "derived"] - d0
            instants = m[ikey] - i0
            note("over 20 s: %d range requests, %d ranges derived, %d instant answers "
                 "from the forecast's range" % (ranges, derived, instants))
            assert derived >= 1 and ranges <= 8, (ranges, derived)
            # the surge range is derived once per refresh (every 7.5 s
            # here), not over and over when the forecast's range is due
            # at the same grid instant
            assert derived <= 5, (ranges, derived)
            # once the ranges agreed, the arrival rate's instant query is
            # read from the forecast range's newest point when that is
            # fresh (src/fetch.h)
            assert instants >= 1, m
    finally:
        rc, _ = s.stop(c.grace + 5)
    assert rc == 0, "exit %r\n%s" % (rc, s.log_tail())


def run_serve(c, args, env=None, timeout=15):
    cmd = list(c.wrapper) + [c.bin, "serve"] + args
    t0 = time.monotonic()
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, env=dict(os.environ, **(env or c.env)))
    except subprocess.TimeoutExpired:
        raise AssertionError("%s still running after %ds" % (" ".join(cmd), timeout))
    return r.returncode, r.stdout.decode(errors="replace"), time.monotonic() - t0


@test("bad configuration exits non-zero with a message naming the problem", timeout=60)
def t_bad_config(c):
    d = h.tmpdir()
    listen = ["--listen", "127.0.0.1:%d" % h.free_port()]
    bad_json = os.path.join(d, "bad.json")
    with open(bad_json, "w") as f:
        f.write('{"backends": [ {"name": "prom", ')
    ttl = h.write_config(os.path.join(d, "ttl.json"),
                         [{"name": "prom", "url": c.m.prom_url}], ttl=999)
    nodef = h.write_config(os.path.join(d, "nodef.json"),
                           [{"name": "prom", "url": c.m.prom_url}], default="nope")
    cases = [(["--config", os.path.join(d, "missing.json")], "missing.json"),
             (["--config", bad_json], "bad.json"),
             (["--config", ttl], "cacheTTLSeconds"),
             (["--config", nodef], "nope"),
             (["--log-level", "loud", "--prometheus", c.m.prom_url], "loud"),
             (["--grace-seconds", "abc", "--prometheus", c.m.prom_url], "grace"),
             # an empty state file was taken, and never written
             (["--state-file", "", "--prometheus", c.m.prom_url], "--state-file"),
             ([], "")]  # neither --config nor --prometheus
    bad = []
    for args, word in cases:
        rc, out, dt = run_serve(c, listen + args, env={k: v for k, v in c.env.items()
                                                        if not k.startswith("STAFFER_")})
        if rc in (0, None) or word not in out or not out.strip():
            bad.append("%s -> rc %s, output %r" % (args, rc, out[-300:]))
    assert not bad, "\n".join(bad)


@test("staffer health: SERVING exits 0; unknown service, no server, bad usage do not",
      smoke=True, timeout=40)
def t_health_command(c):
    def run(*args):
        return subprocess.run([c.bin, "health"] + list(args), capture_output=True,
                              text=True, timeout=20, env=c.env)
    r = run(c.srv.addr)
    assert r.returncode == 0 and r.stdout == "SERVING\n", (r.returncode, r.stdout, r.stderr)
    r = run("--service", "externalscaler.ExternalScaler", c.srv.addr)
    assert r.returncode == 0 and r.stdout == "SERVING\n", (r.returncode, r.stdout, r.stderr)
    r = run("--service", "nope", c.srv.addr)
    assert r.returncode == 1 and "unknown service" in r.stderr, (r.returncode, r.stderr)
    r = run("--timeout", "1", "127.0.0.1:%d" % h.free_port())
    assert r.returncode == 1 and "unavailable" in r.stderr, (r.returncode, r.stderr)
    t0 = time.monotonic()
    r = run("--timeout", "1", c.m.slow_url.split("//", 1)[1])   # accepts, never answers
    assert r.returncode == 1 and time.monotonic() - t0 < 5, (r.returncode, r.stderr)
    for args, want in ((), "no address"), (("--timeout", "0", c.srv.addr), "0.1 to 300"), \
            (("--tls-cert", "/x", c.srv.addr), "need --tls-ca"), (("a", "b"), "one address"):
        r = run(*args)
        assert r.returncode == 2 and want in r.stderr, (args, r.returncode, r.stderr)


def make_certs(d):
    """A CA, a server certificate for staffer.keda.svc and a client
    certificate, with openssl(1); returns their paths."""
    def ossl(*args):
        subprocess.run(["openssl"] + list(args), cwd=d, check=True, capture_output=True,
                       timeout=30)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    ossl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "1",
         "-subj", "/CN=staffer-test-ca")
    for name, cn, ext in (("srv", "staffer.keda.svc", "subjectAltName=DNS:staffer.keda.svc"),
                          ("cli", "keda-operator", "extendedKeyUsage=clientAuth")):
        ossl("req", *ec, "-keyout", name + ".key", "-out", name + ".csr", "-subj", "/CN=" + cn)
        with open(os.path.join(d, name + ".ext"), "w") as f:
            f.write(ext + "\n")
        ossl("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key",
             "-CAcreateserial", "-out", name + ".crt", "-days", "1", "-extfile", name + ".ext")
    return {k: os.path.join(d, k) for k in ("ca.crt", "srv.crt", "srv.key", "cli.crt", "cli.key")}


@test("staffer health over TLS and mTLS, as the chart's helm test runs it", timeout=60)
def t_health_tls(c):
    crt = make_certs(h.tmpdir("staffer-certs-"))

    def health(addr, *args):
        return subprocess.run([c.bin, "health", "--timeout", "2"] + list(args) + [addr],
                              capture_output=True, text=True, timeout=20, env=c.env)
    tls = ["--tls-ca", crt["ca.crt"], "--server-name", "staffer.keda.svc"]
    mtls = tls + ["--tls-cert", crt["cli.crt"], "--tls-key", crt["cli.key"]]
    for server_args, ok_args, refused in (
            (["--tls-cert", crt["srv.crt"], "--tls-key", crt["srv.key"]], tls,
             [[], ["--tls-ca", crt["ca.crt"], "--server-name", "other.example"]]),
            (["--tls-cert", crt["srv.crt"], "--tls-key", crt["srv.key"],
              "--tls-client-ca", crt["ca.crt"]], mtls, [[], tls])):
        srv = h.Staffer(c.bin, config=c.cfg, env=c.env, args=server_args)
        srv.logf = open(srv.log_path, "wb")
        srv.proc = subprocess.Popen(srv.cmd, stdin=subprocess.DEVNULL, stdout=srv.logf,
                                    stderr=subprocess.STDOUT, env=srv.env)
        h._procs.append(srv.proc)
        try:
            r = h.wait_until(lambda: (lambda r: r if r.returncode == 0 else None)(
                health(srv.addr, *ok_args)), 15, 0.2, "SERVING over TLS on %s" % srv.addr)
            assert r.stdout == "SERVING\n", r.stdout
            for args in refused:   # plaintext, a wrong name, no client certificate
                r = health(srv.addr, *args)
                assert r.returncode == 1 and r.stdout == "", (server_args, args, r.stderr)
        finally:
            srv.stop(5)


@test("a second server on a taken port exits non-zero", timeout=30)
def t_port_taken(c):
    s = h.Staffer(c.bin, config=c.cfg, env=c.env, wrapper=c.wrapper, port=c.srv.port)
    s.logf = open(s.log_path, "wb")
    s.proc = h.subprocess.Popen(s.cmd, stdin=subprocess.DEVNULL, stdout=s.logf,
                                stderr=subprocess.STDOUT, env=s.env)
    h._procs.append(s.proc)
    try:
        rc = s.proc.wait(5)
    except subprocess.TimeoutExpired:
        rc = None
        s.stop(5)
    assert rc is not None, ("a second staffer on %s kept running (SO_REUSEPORT?): "
                            "KEDA's connections would be split between two processes\n%s"
                            % (c.srv.addr, s.log_tail(8)))
    assert rc != 0, "second staffer exited 0:\n%s" % s.log_tail(8)
    # one clear sentence, and no raw gRPC core line before it
    lines = [l for l in s.log().splitlines() if " error " in l or " warn " in l]
    assert lines and "cannot listen on" in lines[0] and "address in use" in lines[0], lines
    assert not any("grpc" in l.lower() for l in lines), lines
    assert c.cl.health() == hpb.HealthCheckResponse.SERVING


@test("SIGTERM with open streams and a call in flight: streams end OK, exit 0 within grace",
      smoke=True, timeout=60)
def t_sigterm(c):
    p = uniq("term")
    meta = c.m.signals(p, lam=1, w=10)
    meta["pushIntervalSeconds"] = "1"
    grace = 3
    s = h.Staffer(c.bin, config=c.cfg, env=c.env, wrapper=c.wrapper,
                  args=["--grace-seconds", str(grace)]).start(c.ready_timeout)
    cl = h.Client(s.addr)
    try:
        streams = [cl.stream(meta, name="term-%d" % i) for i in range(3)]
        for st in streams:
            m = st.next(timeout=5)
            assert m is not None and m[1] is True, (m, st.code, st.details)
        slow = {}

        def slow_call():
            slow["r"] = h.status(cl.metrics_raw, {"arrivalRateQuery": uniq("term_slow"),
                                                  "serviceTime": "1", "backend": "slow"},
                                 name="slowterm", timeout=10)
        th = threading.Thread(target=slow_call)
        th.start()
        time.sleep(0.3)
        t0 = time.monotonic()
        s.kill_with(signal.SIGTERM)
        for st in streams:
            assert st.wait_end(grace + 2), "stream still open %.1fs after SIGTERM" % (
                time.monotonic() - t0)
        ends = [st.t_end - t0 for st in streams]
        codes = [st.code for st in streams]
        try:
            rc = s.proc.wait(grace + 3)
        except subprocess.TimeoutExpired:
            rc = None
        dt = time.monotonic() - t0
        th.join(10)
        note("SIGTERM: streams ended after %s s with %s; exit %s after %.2fs (grace %ds); "
             "in-flight slow call: %s" % (",".join("%.2f" % e for e in ends),
                                          ",".join(getattr(x, "name", str(x)) for x in codes),
                                          rc, dt, grace, slow.get("r", ("?",))[0]))
        assert all(x == OK for x in codes), [(st.code, st.details) for st in streams]
        assert rc == 0, "exit status %r\n%s" % (rc, s.log_tail())
        assert dt <= grace + 1.0, "exit took %.2fs with grace %ds" % (dt, grace)
        assert slow.get("r", (None,))[0] != OK, slow
        assert not s.sanitizer_reports(), "\n".join(s.sanitizer_reports())
    finally:
        cl.close()
        if s.alive():
            s.stop(2, signal.SIGKILL)


@test("shared server: SIGTERM -> exit 0, no sanitizer reports", smoke=True, timeout=40)
def t_final_shutdown(c):
    rc, dt = c.srv.stop(c.grace + 5)
    note("shared server exited %s after %.2fs" % (rc, dt))
    assert rc == 0, "exit %r\n%s" % (rc, c.srv.log_tail())
    assert dt <= c.grace + 1, "took %.2fs" % dt
    reps = c.srv.sanitizer_reports()
    assert not reps, "\n".join(reps[:20])


# ----------------------------------------------------------------------------


def main():
    def select(chosen, every):
        # the final shutdown check always runs last
        if t_final_shutdown not in [t.fn for t in chosen]:
            chosen += [t for t in every if t.fn is t_final_shutdown]
        return chosen

    def setup(c, a):
        c.wrapper = ()
        c.env = {}
        c.grace = 5
        c.ready_timeout = a.ready_timeout
        h.shared_start(c, h.backends_all, ["--grace-seconds", str(c.grace)], c.env,
                       c.ready_timeout)

    return h.suite_main(test, setup, h.shared_stop, select,
                        [(("--ready-timeout",), {"type": float, "default": 20})])


if __name__ == "__main__":
    sys.exit(main())
