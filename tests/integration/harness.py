"""Integration-test harness for staffer: processes, a gRPC client, a runner.

Runs under Debian's /usr/bin/python3 (python3-grpcio, python3-protobuf).
Message classes come from build/py (`make py`).  Every process started here
is registered and killed at exit, on SIGINT/SIGTERM and on test failure.
"""

import argparse
import atexit
import json
import math
import os
import queue
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "build", "py"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from freeport import free_port  # noqa: E402  (a port outside the ephemeral range)

try:
    import grpc
    import externalscaler_pb2 as pb
    import health_pb2 as hpb
except ImportError as e:  # pragma: no cover - setup problem, say it plainly
    sys.stderr.write("harness: %s (run with /usr/bin/python3 after `make py`)\n" % e)
    sys.exit(2)

PY = "/usr/bin/python3"
PROM_SH = os.path.join(ROOT, "scripts", "prometheus.sh")
SVC = "/externalscaler.ExternalScaler/"

# --------------------------------------------------------------------------
# process bookkeeping


_procs = []        # Popen objects still possibly alive
_prom_dirs = []    # Prometheus dirs to stop
_tmpdirs = []
_cleaned = False


def _cleanup():
    global _cleaned
    if _cleaned:
        return
    _cleaned = True
    for d in list(_prom_dirs):
        try:
            subprocess.run(["sh", PROM_SH, "stop", d], timeout=15,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except Exception:
            pass
    for p in list(_procs):
        if p.poll() is None:
            try:
                p.kill()
                p.wait(timeout=5)
            except Exception:
                pass
    if not os.environ.get("STAFFER_TEST_KEEP"):
        for d in _tmpdirs:
            shutil.rmtree(d, ignore_errors=True)


def _on_signal(signum, frame):
    _cleanup()
    os._exit(128 + signum)


atexit.register(_cleanup)
signal.signal(signal.SIGTERM, _on_signal)
signal.signal(signal.SIGINT, _on_signal)


def tmpdir(prefix="staffer-it-"):
    d = tempfile.mkdtemp(prefix=prefix)
    _tmpdirs.append(d)
    return d


def wait_until(fn, timeout, interval=0.05, what="condition"):
    """Poll fn() until it returns a truthy value; return it or raise."""
    end = time.monotonic() + timeout
    last_exc = None
    while True:
        try:
            v = fn()
            if v:
                return v
        except Exception as e:  # keep polling, report the last error
            last_exc = e
        if time.monotonic() >= end:
            msg = "timed out after %.1fs waiting for %s" % (timeout, what)
            if last_exc is not None:
                msg += " (last error: %s)" % last_exc
            raise AssertionError(msg)
        time.sleep(interval)


def http_get(url, timeout=2.0):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read()


def tcp_open(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


# --------------------------------------------------------------------------
# exporter + Prometheus


class Metrics:
    """The exporter (with a never-answering 'slow' listener) and a Prometheus
    scraping it every second."""

    def __init__(self, base=None, targets=()):
        """targets: more host:port for Prometheus to scrape (e.g. a
        staffer's --metrics-listen), besides the exporter."""
        self.targets = list(targets)
        self.dir = base or tmpdir()
        self.exp_port = free_port()
        self.slow_port = free_port()
        self.prom_port = free_port()
        self.prom_dir = os.path.join(self.dir, "prom")
        self.exp = None
        self.prom_up = False

    @property
    def prom_url(self):
        return "http://127.0.0.1:%d" % self.prom_port

    @property
    def slow_url(self):
        return "http://127.0.0.1:%d" % self.slow_port

    def start(self):
        log = open(os.path.join(self.dir, "exporter.log"), "wb")
        self.exp = subprocess.Popen(
            [PY, os.path.join(HERE, "exporter.py"), "--port", str(self.exp_port),
             "--slow-port", str(self.slow_port)],
            stdout=log, stderr=subprocess.STDOUT)
        _procs.append(self.exp)
        wait_until(lambda: http_get(self._exp("/healthz")) == b"ok\n", 10,
                   what="exporter on :%d" % self.exp_port)
        wait_until(lambda: tcp_open(self.slow_port), 10, what="slow listener")
        self.start_prometheus()
        return self

    def start_prometheus(self):
        if self.prom_dir not in _prom_dirs:
            _prom_dirs.append(self.prom_dir)
        r = subprocess.run(["sh", PROM_SH, "start", self.prom_dir, str(self.prom_port),
                            "127.0.0.1:%d" % self.exp_port] + self.targets,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
        if r.returncode != 0:
            raise RuntimeError("prometheus did not start:\n" + r.stdout.decode(errors="replace"))
        self.prom_up = True
        # the first scrape has happened once a default series is visible
        self.wait_value("test_zero", 0.0, timeout=20)

    def stop_prometheus(self):
        subprocess.run(["sh", PROM_SH, "stop", self.prom_dir], timeout=30,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.prom_up = False

    def stop(self):
        if self.prom_up:
            self.stop_prometheus()
        if self.exp and self.exp.poll() is None:
            self.exp.terminate()
            try:
                self.exp.wait(5)
            except subprocess.TimeoutExpired:
                self.exp.kill()

    def _exp(self, path):
        return "http://127.0.0.1:%d%s" % (self.exp_port, path)

    # -- exporter control
    def set(self, **series):
        """set(name=value, ...) on the exporter (no wait)."""
        q = urllib.parse.urlencode({k: str(v) for k, v in series.items()})
        assert http_get(self._exp("/set?" + q)) == b"ok\n"

    def set_raw(self, name, value):
        q = urllib.parse.urlencode({name: str(value)})
        assert http_get(self._exp("/set?" + q)) == b"ok\n"

    def delete(self, *names):
        q = urllib.parse.urlencode([("name", n) for n in names])
        assert http_get(self._exp("/delete?" + q)) == b"ok\n"

    def ramp(self, name, frm, to, seconds, every=1):
        """Make gauge `name` go from frm to to over `seconds`, a step every
        `every` seconds, computed by the exporter at each scrape; returns
        the exporter's start time (Unix seconds).  set()/delete() end it."""
        q = urllib.parse.urlencode({"name": name, "from": frm, "to": to,
                                    "seconds": seconds, "every": every})
        return float(http_get(self._exp("/ramp?" + q)))

    def target_down(self, seconds=None):
        """Make the exporter's /metrics answer 503 (for `seconds`, or until
        target_up()): Prometheus' scrapes fail and it marks every series
        from the exporter stale."""
        q = "" if seconds is None else "?seconds=%g" % seconds
        assert http_get(self._exp("/down" + q)) == b"ok\n"

    def target_up(self):
        assert http_get(self._exp("/up")) == b"ok\n"

    def slow_count(self):
        return json.loads(http_get(self._exp("/slowcount")))

    # -- Prometheus
    def query(self, promql, timeout=2.0):
        """Instant query; returns the list of (labels, float value)."""
        url = "%s/api/v1/query?%s" % (self.prom_url, urllib.parse.urlencode({"query": promql}))
        body = json.loads(http_get(url, timeout))
        if body.get("status") != "success":
            raise RuntimeError("prometheus: %s" % body)
        data = body["data"]
        if data["resultType"] == "scalar":
            return [({}, float(data["result"][1]))]
        return [(r["metric"], float(r["value"][1])) for r in data["result"]]

    def wait_value(self, promql, value, timeout=10):
        """Wait until promql returns exactly one series equal to value."""
        def ok():
            r = self.query(promql)
            if len(r) != 1:
                return False
            v = r[0][1]
            if isinstance(value, float) and math.isnan(value):
                return math.isnan(v)
            return v == float(value)
        wait_until(ok, timeout, 0.1, "prometheus: %s == %r" % (promql, value))

    def wait_absent(self, promql, timeout=10):
        wait_until(lambda: self.query(promql) == [], timeout, 0.1,
                   "prometheus: %s has no series" % promql)

    def signals(self, prefix, lam=None, w=None, q=None, s=None, wait=True):
        """Set per-test gauges <prefix>_arrival_rate, _service_time,
        _queue_depth, _shed_rate; wait until Prometheus has them; return the
        metadata with the matching queries."""
        names = {"arrivalRateQuery": (prefix + "_arrival_rate", lam),
                 "serviceTimeQuery": (prefix + "_service_time", w),
                 "queueDepthQuery": (prefix + "_queue_depth", q),
                 "shedRateQuery": (prefix + "_shed_rate", s)}
        upd = {n: v for n, v in names.values() if v is not None}
        if upd:
            self.set(**upd)
        if wait:
            for n, v in upd.items():
                self.wait_value(n, float(v))
        return {k: n for k, (n, v) in names.items() if v is not None}

    def update(self, **kv):
        """Change gauges (by exporter name) and wait until Prometheus sees them."""
        self.set(**kv)
        for n, v in kv.items():
            self.wait_value(n, float(v))


# --------------------------------------------------------------------------
# staffer


def find_binary(name="staffer"):
    return os.path.join(ROOT, "build", name)


class Staffer:
    """One `staffer serve` process; stderr goes to a file."""

    def __init__(self, binary, prom_url=None, config=None, args=(), env=None,
                 wrapper=(), port=None, use_flags=True, dirpath=None):
        self.binary = binary
        self.port = port or free_port()
        self.addr = "127.0.0.1:%d" % self.port
        self.dir = dirpath or tmpdir("staffer-srv-")
        self.log_path = os.path.join(self.dir, "staffer-%d.log" % self.port)
        self.cmd = list(wrapper) + [binary, "serve"]
        if use_flags:
            self.cmd += ["--listen", self.addr]
            if prom_url:
                self.cmd += ["--prometheus", prom_url]
            if config:
                self.cmd += ["--config", config]
        self.cmd += list(args)
        self.env = dict(os.environ)
        self.env.update(env or {})
        self.proc = None
        self.rc = None

    def spawn(self):
        """Start the process without waiting for it (a TLS server, whose
        readiness the plaintext health check cannot see)."""
        self.logf = open(self.log_path, "wb")
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL,
                                     stdout=self.logf, stderr=subprocess.STDOUT,
                                     env=self.env)
        _procs.append(self.proc)
        self.t_start = time.monotonic()
        return self

    def start(self, ready_timeout=20):
        self.spawn()

        def ready():
            if self.proc.poll() is not None:
                raise AssertionError("staffer exited with %s:\n%s"
                                     % (self.proc.returncode, self.log_tail()))
            with Client(self.addr) as c:
                return c.health(timeout=0.5) == hpb.HealthCheckResponse.SERVING
        try:
            wait_until(ready, ready_timeout, 0.1, "staffer health on %s" % self.addr)
        except AssertionError as e:
            if self.proc.poll() is not None:
                raise AssertionError("staffer exited with %s:\n%s"
                                     % (self.proc.returncode, self.log_tail()))
            raise AssertionError("%s\n%s" % (e, self.log_tail()))
        self.startup_s = time.monotonic() - self.t_start
        return self

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill_with(self, sig):
        self.proc.send_signal(sig)

    def stop(self, timeout=10, sig=signal.SIGTERM):
        """Send sig and wait; returns (exit code, seconds).  Kills on timeout
        and then returns (None, timeout)."""
        if self.proc is None:
            return None, 0
        if self.proc.poll() is not None:
            self.rc = self.proc.returncode
            return self.rc, 0.0
        t0 = time.monotonic()
        self.proc.send_signal(sig)
        try:
            self.rc = self.proc.wait(timeout)
            return self.rc, time.monotonic() - t0
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
            return None, timeout

    def log(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def log_tail(self, n=25):
        lines = self.log().splitlines()
        return "\n".join("    | " + l for l in lines[-n:])

    def sanitizer_reports(self):
        """Lines from ASan/UBSan/LSan in the log."""
        bad = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
               "runtime error:", "SUMMARY: AddressSanitizer",
               "SUMMARY: UndefinedBehaviorSanitizer")
        return [l for l in self.log().splitlines() if any(b in l for b in bad)]


def write_config(path, backends, default="prom", ttl=0):
    cfg = {"defaultBackend": default, "cacheTTLSeconds": ttl, "backends": backends}
    with open(path, "w") as f:
        json.dump(cfg, f, indent=1)
    return path


# --------------------------------------------------------------------------
# gRPC client (python3-grpcio, generic calls: not our code)


class RPCError(AssertionError):
    pass


def ref(meta, name="so", ns="default"):
    r = pb.ScaledObjectRef(name=name, namespace=ns)
    for k, v in (meta or {}).items():
        r.scalerMetadata[k] = str(v)
    return r


class Stream:
    """A StreamIsActive call read by a background thread into a queue."""

    def __init__(self, call):
        self.call = call
        self.q = queue.Queue()
        self.msgs = []
        self.done = threading.Event()
        self.code = None
        self.details = None
        self.t_open = time.monotonic()
        self.t_end = None
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        try:
            for m in self.call:
                item = (time.monotonic(), m.result)
                self.msgs.append(item)
                self.q.put(item)
            self.code = grpc.StatusCode.OK
        except grpc.RpcError as e:
            self.code, self.details = e.code(), e.details()
        except Exception as e:  # pragma: no cover
            self.code, self.details = "exception", repr(e)
        self.t_end = time.monotonic()
        self.done.set()
        self.q.put(None)

    def next(self, timeout):
        """(time, result) of the next message, or None when the stream ended;
        raises queue.Empty on timeout."""
        return self.q.get(timeout=timeout)

    def cancel(self):
        self.call.cancel()
        self.done.wait(5)

    def wait_end(self, timeout):
        return self.done.wait(timeout)


class Client:
    def __init__(self, addr):
        self.addr = addr
        self.ch = grpc.insecure_channel(addr)
        ser = lambda m: m.SerializeToString()
        self._spec = self.ch.unary_unary(SVC + "GetMetricSpec", request_serializer=ser,
                                         response_deserializer=pb.GetMetricSpecResponse.FromString)
        self._metrics = self.ch.unary_unary(SVC + "GetMetrics", request_serializer=ser,
                                            response_deserializer=pb.GetMetricsResponse.FromString)
        self._active = self.ch.unary_unary(SVC + "IsActive", request_serializer=ser,
                                           response_deserializer=pb.IsActiveResponse.FromString)
        self._stream = self.ch.unary_stream(SVC + "StreamIsActive", request_serializer=ser,
                                            response_deserializer=pb.IsActiveResponse.FromString)
        self._sspec = self.ch.unary_stream(SVC + "StreamMetricSpec", request_serializer=ser,
                                           response_deserializer=pb.GetMetricSpecResponse.FromString)
        self._health = self.ch.unary_unary("/grpc.health.v1.Health/Check", request_serializer=ser,
                                           response_deserializer=hpb.HealthCheckResponse.FromString)

    def close(self):
        self.ch.close()

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()

    def health(self, service="", timeout=3):
        return self._health(hpb.HealthCheckRequest(service=service), timeout=timeout).status

    def spec(self, meta, name="so", ns="default", timeout=5):
        return self._spec(ref(meta, name, ns), timeout=timeout)

    def metrics_raw(self, meta, name="so", ns="default", metric_name=None, timeout=5):
        mn = metric_name if metric_name is not None else (meta or {}).get("metricName", "staffer")
        return self._metrics(pb.GetMetricsRequest(scaledObjectRef=ref(meta, name, ns),
                                                  metricName=mn), timeout=timeout)

    def target(self, meta, name="so", ns="default", timeout=5):
        """GetMetrics and check its shape; return the replica target (int)."""
        r = self.metrics_raw(meta, name, ns, timeout=timeout)
        if len(r.metricValues) != 1:
            raise RPCError("GetMetrics returned %d metric values: %s" % (len(r.metricValues), r))
        mv = r.metricValues[0]
        if float(mv.metricValue) != mv.metricValueFloat:
            raise RPCError("metricValue %d != metricValueFloat %r" % (mv.metricValue, mv.metricValueFloat))
        if mv.metricValue < 0:
            raise RPCError("negative target %d" % mv.metricValue)
        return mv.metricValue

    def active(self, meta, name="so", ns="default", timeout=5):
        return self._active(ref(meta, name, ns), timeout=timeout).result

    def stream(self, meta, name="so", ns="default", timeout=None):
        return Stream(self._stream(ref(meta, name, ns), timeout=timeout))

    def stream_spec(self, meta, name="so", ns="default", timeout=5):
        return self._sspec(ref(meta, name, ns), timeout=timeout)

    def raw(self, method, payload, timeout=5, stream=False):
        """Send raw bytes to any method; returns the raw response(s)."""
        if stream:
            c = self.ch.unary_stream(method, request_serializer=None, response_deserializer=None)
            return list(c(payload, timeout=timeout))
        c = self.ch.unary_unary(method, request_serializer=None, response_deserializer=None)
        return c(payload, timeout=timeout)


def status(fn, *a, **kw):
    """Run an RPC; return (StatusCode, details, result)."""
    try:
        r = fn(*a, **kw)
        if hasattr(r, "__next__"):
            r = list(r)
        return grpc.StatusCode.OK, "", r
    except grpc.RpcError as e:
        return e.code(), e.details() or "", None


def expect_code(code, fn, *a, **kw):
    got, details, res = status(fn, *a, **kw)
    if got != code:
        raise AssertionError("expected %s, got %s (details %r, result %r)"
                             % (code.name, getattr(got, "name", got), details, res))
    return details


# --------------------------------------------------------------------------
# runner


class Test:
    def __init__(self, fn, name, smoke, timeout):
        self.fn, self.name, self.smoke, self.timeout = fn, name, smoke, timeout


class Registry:
    def __init__(self):
        self.tests = []

    def __call__(self, name=None, smoke=False, timeout=30):
        def deco(fn):
            self.tests.append(Test(fn, name or fn.__name__, smoke, timeout))
            return fn
        return deco


def note(msg):
    """A diagnostic line in the TAP-ish output."""
    sys.stdout.write("# %s\n" % msg)
    sys.stdout.flush()


def run_tests(tests, ctx, label=""):
    """Run tests in order, each in a thread with its own timeout.  Prints
    `ok N - name` / `not ok N - name`, then `N passed, N failed`.
    Returns the number of failures."""
    passed = failed = 0
    for i, t in enumerate(tests, 1):
        box = {}

        def body():
            try:
                t.fn(ctx)
                box["ok"] = True
            except BaseException as e:  # noqa
                box["ok"] = False
                if isinstance(e, AssertionError) and str(e):
                    box["why"] = str(e)
                else:
                    box["why"] = traceback.format_exc()
        t0 = time.monotonic()
        th = threading.Thread(target=body, daemon=True)
        th.start()
        th.join(t.timeout)
        dt = time.monotonic() - t0
        name = (label + t.name) if label else t.name
        if th.is_alive():
            box = {"ok": False, "why": "timed out after %ds" % t.timeout}
        if box.get("ok"):
            passed += 1
            print("ok %d - %s (%.1fs)" % (i, name, dt))
        else:
            failed += 1
            print("not ok %d - %s (%.1fs)" % (i, name, dt))
            for line in box.get("why", "?").rstrip().splitlines():
                print("#   " + line)
            extra = getattr(ctx, "on_fail", None)
            if extra:
                try:
                    for line in extra().rstrip().splitlines():
                        print("#   " + line)
                except Exception:
                    pass
        sys.stdout.flush()
    print("%d passed, %d failed" % (passed, failed))
    sys.stdout.flush()
    return failed


# --------------------------------------------------------------------------
# a suite's main()


class Ctx:
    """What one suite's tests share; its setup fills it in."""


def suite_main(registry, setup, teardown, select=None, extra_args=()):
    """The main() of every test_*.py.  Options --bin, --smoke, --only,
    --label and extra_args ((flags, kwargs) pairs for argparse); the tests
    chosen (smoke=True ones with --smoke; with --only, select(chosen,
    all) may add the ones a selection needs); no STAFFER_* setting of the
    caller's leaks in.  setup(c, args) starts what the tests share (an
    exception is one failed "setup" test); teardown(c, failed) stops it
    and, when failed, says where the logs were kept (STAFFER_TEST_KEEP is
    then set, so they are).  Prints what run_tests() prints; returns the
    exit status."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=find_binary("staffer"))
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--label", default="")
    for flags, kw in extra_args:
        ap.add_argument(*flags, **kw)
    a = ap.parse_args()

    tests = [t for t in registry.tests if not a.smoke or t.smoke]
    if a.only:
        tests = [t for t in tests if any(o in t.name or o == t.fn.__name__ for o in a.only)]
        if select:
            tests = select(tests, registry.tests)
    for k in list(os.environ):  # the caller's settings must not leak in
        if k.startswith("STAFFER_") and k != "STAFFER_TEST_KEEP":
            del os.environ[k]
    c = Ctx()
    c.bin = os.path.abspath(a.bin)
    random.seed(os.getpid())
    label = a.label
    if not os.access(c.bin, os.X_OK):
        print("not ok 1 - %ssetup: %s is not an executable (run make first)" % (label, c.bin))
        print("0 passed, 1 failed")
        return 1
    note("binary %s" % c.bin)
    try:
        setup(c, a)
    except Exception as e:
        print("not ok 1 - %ssetup" % label)
        for line in str(e).splitlines():
            print("#   " + line)
        print("0 passed, 1 failed")
        return 1
    failed = None
    t0 = time.monotonic()
    try:
        failed = run_tests(tests, c, label)
    finally:
        note("suite took %.1fs" % (time.monotonic() - t0))
        if failed != 0:
            os.environ["STAFFER_TEST_KEEP"] = "1"  # keep logs and data for a look
        teardown(c, failed != 0)
    return 1 if failed else 0


def start_proxy(c):
    """proxy.py in front of c.m's Prometheus: c.proxy, c.proxy_port,
    c.proxy_url (its log in c.m.dir)."""
    c.proxy_port = free_port()
    c.proxy_url = "http://127.0.0.1:%d" % c.proxy_port
    log = open(os.path.join(c.m.dir, "proxy.log"), "wb")
    c.proxy = subprocess.Popen([PY, os.path.join(HERE, "proxy.py"), "--port",
                                str(c.proxy_port), "--upstream", c.m.prom_url],
                               stdout=log, stderr=subprocess.STDOUT)
    _procs.append(c.proxy)
    wait_until(lambda: tcp_open(c.proxy_port), 10, what="the proxy")


def proxy_stats(c):
    """What the proxy saw (proxy.py's /_stats)."""
    return json.loads(http_get(c.proxy_url + "/_stats"))


def shared_start(c, backends, args=(), env=None, ready_timeout=20):
    """The exporter, Prometheus and one `staffer serve` most tests share:
    c.m (Metrics), c.cfg, c.srv (Staffer) and c.cl (Client).  backends(m)
    lists the config's backends, given the running Metrics."""
    c.m = Metrics().start()
    c.cfg = write_config(os.path.join(c.m.dir, "staffer.json"), backends(c.m), ttl=0)
    c.srv = Staffer(c.bin, config=c.cfg, env=env, args=["--log-level", "info"] + list(args))
    c.srv.start(ready_timeout)
    note("staffer ready in %.2fs on %s (log %s)" % (c.srv.startup_s, c.srv.addr,
                                                    c.srv.log_path))
    c.cl = Client(c.srv.addr)
    c.on_fail = lambda: "shared staffer log, last lines:\n" + c.srv.log_tail(6)


def shared_stop(c, failed):
    """Undo shared_start() (whatever part of it ran)."""
    if getattr(c, "cl", None):
        c.cl.close()
    if getattr(c, "srv", None) and c.srv.alive():
        c.srv.stop(5)
    if getattr(c, "m", None):
        c.m.stop()
        if failed:
            note("logs kept: staffer %s, exporter and Prometheus in %s"
                 % (c.srv.log_path if getattr(c, "srv", None) else "-", c.m.dir))


def backends_all(m):
    """prom, a backend that never answers (slow), one nobody listens on and
    one with a base path where Prometheus has no API (nopath: 404)."""
    return [
        {"name": "prom", "url": m.prom_url, "timeoutSeconds": 2},
        {"name": "nopath", "url": m.prom_url + "/nope", "timeoutSeconds": 2},
        {"name": "slow", "url": m.slow_url, "timeoutSeconds": 2},
        {"name": "dead", "url": "http://127.0.0.1:%d" % free_port(), "timeoutSeconds": 1},
    ]
