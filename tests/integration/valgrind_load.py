#!/usr/bin/python3
"""Drive `staffer serve` under valgrind with a few hundred RPCs of every kind
(good, bad metadata, unavailable data, slow backend, malformed bytes,
streams opened and cancelled, streams still open at SIGTERM), then SIGTERM
it and judge valgrind's report.  Called by valgrind.sh; prints one summary
line and exits non-zero on errors or definitely-lost bytes.
"""

import argparse
import os
import re
import signal
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as h  # noqa: E402
from harness import grpc  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=h.find_binary("staffer"))
    ap.add_argument("--rounds", type=int, default=20)
    a = ap.parse_args()
    for k in list(os.environ):
        if k.startswith("STAFFER_") and k != "STAFFER_TEST_KEEP":
            del os.environ[k]
    if not os.access(a.bin, os.X_OK):
        print("valgrind: %s is not an executable (run make first): FAIL" % a.bin)
        return 1

    m = h.Metrics().start()
    cfg = h.write_config(os.path.join(m.dir, "staffer.json"), [
        {"name": "prom", "url": m.prom_url, "timeoutSeconds": 2},
        {"name": "slow", "url": m.slow_url, "timeoutSeconds": 1},
        {"name": "dead", "url": "http://127.0.0.1:%d" % h.free_port(), "timeoutSeconds": 1},
    ], ttl=1)
    vlog = os.path.join(m.dir, "valgrind.log")
    wrapper = ["valgrind", "--leak-check=full", "--errors-for-leak-kinds=definite",
               "--error-exitcode=99", "--num-callers=30", "--log-file=" + vlog]
    srv = h.Staffer(a.bin, config=cfg, wrapper=wrapper,
                    args=["--grace-seconds", "20", "--log-level", "warn"])
    meta = m.signals("vg", lam=2, w=10, q=50, s=1)
    calls = [0]
    problems = []

    def check(cond, what):
        calls[0] += 1
        if not cond and len(problems) < 10:
            problems.append(what)

    try:
        srv.start(ready_timeout=90)
        cl = h.Client(srv.addr)
        bad_metas = [dict(meta, betta="1"), dict(meta, beta="abc"), {"serviceTime": "1"},
                     dict(meta, backend="nosuch"), dict(meta, staffing="erlangc"),
                     dict(meta, arrivalRateQuery="x" * 5000)]
        unavail_metas = [{"arrivalRateQuery": "vg_absent", "serviceTime": "10"},
                         {"arrivalRateQuery": "test_two_series", "serviceTime": "10"},
                         {"arrivalRateQuery": "test_zero/test_zero", "serviceTime": "10"},
                         {"arrivalRateQuery": "rate(", "serviceTime": "10"},
                         dict(meta, backend="dead")]
        t0 = time.monotonic()
        for r in range(a.rounds):
            name = "vg-%d" % (r % 5)
            check(cl.target(meta, name=name, timeout=20) > 0, "GetMetrics")
            check(cl.target(dict(meta, staffing="erlangc", targetWaitSeconds="2",
                                 waitProbability="0.1"), name=name + "e", timeout=20) > 0,
                  "GetMetrics erlangc")
            check(cl.active(meta, name=name, timeout=20) is True, "IsActive")
            check(cl.spec(meta, timeout=20).metricSpecs[0].targetSize == 1, "GetMetricSpec")
            check(cl.health(timeout=20) == 1, "health")
            for bm in bad_metas:
                got = h.status(cl.metrics_raw, bm, name=name, timeout=20)[0]
                check(got == grpc.StatusCode.INVALID_ARGUMENT, "bad meta %s" % got)
            got = h.status(cl.active, bad_metas[0], name=name, timeout=20)[0]
            check(got == grpc.StatusCode.INVALID_ARGUMENT, "IsActive bad meta")
            for um in unavail_metas:
                got = h.status(cl.metrics_raw, um, name=name + "u", timeout=20)[0]
                check(got != grpc.StatusCode.OK, "unavailable %s" % got)
            check(h.status(cl.stream_spec, meta, timeout=20)[0] == grpc.StatusCode.UNIMPLEMENTED,
                  "StreamMetricSpec")
            check(h.status(cl.raw, "/foo.Bar/Baz", b"x", timeout=20)[0]
                  == grpc.StatusCode.UNIMPLEMENTED, "unknown method")
            got = h.status(cl.raw, h.SVC + "GetMetrics", b"\xff\xff\xff", timeout=20)[0]
            check(got != grpc.StatusCode.OK, "malformed")
            # a stream: read the first message, then cancel it
            st = cl.stream(dict(meta, pushIntervalSeconds="1"), name=name)
            first = None
            try:
                first = st.next(timeout=20)
            except h.queue.Empty:
                pass
            check(first is not None and first[1] is True, "stream first message")
            st.cancel()
            if r % 5 == 0:  # a slow-backend call, abandoned by the client early
                got = h.status(cl.metrics_raw, {"arrivalRateQuery": "vg_slow_%d" % r,
                                                "serviceTime": "1", "backend": "slow"},
                               name=name, timeout=0.3)[0]
                check(got != grpc.StatusCode.OK, "slow %s" % got)
        # calls still in flight at SIGTERM: streams and a slow query
        streams = [cl.stream(dict(meta, pushIntervalSeconds="1"), name="vg-open-%d" % i)
                   for i in range(3)]
        for st in streams:
            try:
                st.next(timeout=20)
            except h.queue.Empty:
                pass
        th = threading.Thread(target=lambda: h.status(
            cl.metrics_raw, {"arrivalRateQuery": "vg_slow_end", "serviceTime": "1",
                             "backend": "slow"}, name="vgs", timeout=30))
        th.start()
        time.sleep(0.3)
        dt_load = time.monotonic() - t0
        rc, dt = srv.stop(timeout=90)
        for st in streams:
            st.wait_end(5)
            check(st.code == grpc.StatusCode.OK, "stream end status %s" % st.code)
        th.join(10)
        cl.close()
    except Exception as e:
        problems.append("harness: %s" % e)
        rc, dt_load = None, 0
    finally:
        if srv.alive():
            srv.stop(5, signal.SIGKILL)
        m.stop()

    text = ""
    try:
        with open(vlog) as f:
            text = f.read()
    except OSError:
        pass
    errs = re.findall(r"ERROR SUMMARY: ([\d,]+) errors", text)
    lost = re.findall(r"definitely lost: ([\d,]+) bytes", text)
    n_err = int(errs[-1].replace(",", "")) if errs else -1
    n_lost = int(lost[-1].replace(",", "")) if lost else 0
    ok = rc == 0 and n_err == 0 and n_lost == 0 and not problems
    if not ok:
        sys.stdout.write("# staffer exit status %s; valgrind log %s\n" % (rc, vlog))
        for p in problems:
            sys.stdout.write("#   %s\n" % p)
        if n_err != 0:
            # the first error records, enough to act on
            blocks = [b for b in text.split("==\n") if "at 0x" in b or "by 0x" in b]
            for line in "\n".join(blocks[:3]).splitlines()[:80]:
                sys.stdout.write("#   %s\n" % line)
        os.environ["STAFFER_TEST_KEEP"] = "1"  # keep the log for inspection
    print("valgrind: %d RPCs in %.0fs, staffer exit %s, %s errors, definitely lost %d bytes: %s"
          % (calls[0], dt_load, rc, n_err if n_err >= 0 else "?", n_lost, "ok" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
