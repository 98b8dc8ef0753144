#!/usr/bin/python3
"""The staffer demo's KEDA + HPA stand-in.

Every POLL seconds it does what KEDA and the HPA do for one ScaledObject with
a `type: external` trigger: GetMetricSpec, GetMetrics and IsActive over gRPC,
then the HPA's AverageValue rule (target 1, 10 % tolerance, min/max), and
resizes the simulated fleet through the gateway's /scale.  It prints one table
row per poll, with staffer's own breakdown of the decision read from staffer's
log, and a summary at the end.
"""

import argparse
import csv
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import grpc

NAME = "demo-model"
NAMESPACE = "demo"
MIN_REPLICAS = 1
MAX_REPLICAS = 50
# The example ScaledObjects set behavior.scaleUp/scaleDown.tolerance "0"
# (Kubernetes >= 1.35): with the default 0.1 the HPA cannot move by one
# replica at 10 or more, which would hide staffer's steps.
TOLERANCE = float(os.environ.get("DEMO_TOLERANCE", "0"))


COOKBOOK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "docs", "cookbook.md")


def cookbook_block(name):
    """The `# cookbook: NAME` block of docs/cookbook.md, as key: value."""
    text = open(COOKBOOK).read()
    for body in re.findall(r"```yaml\n(.*?)```", text, re.S):
        lines = body.splitlines()
        if lines and lines[0] == "# cookbook: %s" % name:
            out = {}
            for line in lines[1:]:
                k, _, v = line.partition(": ")
                out[k] = v.strip().strip('"')
            return out
    raise SystemExit("demo: no `# cookbook: %s` block in %s" % (name,
                                                               COOKBOOK))


def from_cookbook(q):
    """A cookbook query for the demo: its model is demo-model, and its rate
    windows are compressed to the demo's minutes as the rest of its
    metadata is (1 s scrapes: [1m] -> [15s], [5m] -> [1m]; a delta() over
    [1m] divided by its 60 s is then divided by 15)."""
    return q.replace('model_name="llama-70b"', 'model_name="%s"' % NAME) \
            .replace("[1m]", "[15s]").replace("[5m]", "[1m]") \
            .replace(") / 60", ") / 15")


def metadata(a):
    # lambda, W and Q: docs/cookbook.md's vLLM block, as a user copies it
    book = cookbook_block("vllm")
    m = {
        "scalerAddress": "staffer.keda.svc:9090",
        "arrivalRateQuery": from_cookbook(book["arrivalRateQuery"]),
        "serviceTimeQuery": from_cookbook(book["serviceTimeQuery"]),
        "serviceTime": "7",
        "queueDepthQuery": from_cookbook(book["queueDepthQuery"]),
        # S: vLLM does not shed; the gateway counts the requests whose
        # clients gave up waiting (docs/cookbook.md, "Shed requests")
        "shedRateQuery": ("sum(rate(gateway_shed_total[15s])) or "
                          "(0 * max(up{job=\"staffer-test\"} == 1))"),
        "slotsPerReplica": str(a.slots),
        # The cold start, read from the pods' start times as
        # kube-state-metrics exports them: the forecast looks this far
        # ahead (plus the metrics lag) and scale-down holds about as long.
        "coldStartQuery": ("quantile(0.5, kube_pod_status_ready_time"
                           "{namespace=\"demo\"} - kube_pod_created"
                           "{namespace=\"demo\"})"),
        # ... and the number you measured once, for while the query has
        # no data; it also sizes the range query (docs/metadata.md).
        "coldStartSeconds": "%g" % a.cold_start,
    }
    m.update(compressed(a))
    return m


def compressed(a):
    """Tuning keys whose defaults are in KEDA's time (15 s scrapes, a 15 s
    HPA sync, hours of traffic), compressed to the demo's minutes.  Also
    what the simulator comparison is given."""
    return {
        # The scrape (1 s here) and the HPA sync (the poll): the metrics
        # lag the forecast looks past and the hold waits for.
        "metricsLagSeconds": "%g" % (1 + a.poll),
        # The forecast's history: 10 minutes by default, 1 here (it starts
        # once it has half of it).
        "forecastWindowSeconds": "60",
    }


def metadata_with_extras(a):
    m = metadata(a)
    for item in (a.meta or "").split():
        k, sep, v = item.partition("=")
        if not sep or not k:
            raise SystemExit("demo: DEMO_META wants key=value pairs, got "
                             "%r" % item)
        m[k] = v
    return m


# ---- staffer's log -------------------------------------------------------
# Decision lines look like "... info  decision ... lambda=4.2 W=7.1 ...".
# The parser takes any key=value pairs and knows a few spellings per field.
ALIASES = {
    "lam": ("lambda", "lam", "arrival", "arrival_rate", "arrivalRate", "l"),
    "fcst": ("forecast", "fcst", "arrival_forecast"),
    "W": ("W", "w", "service", "service_time", "serviceTime", "svc"),
    "Q": ("Q", "q", "queue", "queue_depth", "queueDepth"),
    "S": ("S", "s", "shed", "shed_rate", "shedRate"),
    "busy": ("busy", "L", "busy_slots", "little"),
    "headroom": ("headroom", "head", "headroom_slots"),
    "drain": ("drain", "drain_slots", "backlog"),
    "boost": ("boost", "boost_slots"),
    "total": ("total", "total_slots", "slots"),
    "raw": ("raw", "raw_replicas"),
    "target": ("target", "replicas", "answer"),
}
KV = re.compile(r'([A-Za-z_][\w.\-]*)=("(?:[^"\\]|\\.)*"|\S+)')
NUM = re.compile(r'^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?')


def num(v):
    if v is None:
        return None
    v = v.strip('"')
    if v.lower() in ("nan", "inf", "+inf", "-inf"):
        return None
    m = NUM.match(v)
    return float(m.group(0)) if m else None


def parse_decision(line):
    kv = {}
    for k, v in KV.findall(line):
        kv.setdefault(k, v)
    out = {}
    for field, names in ALIASES.items():
        for n in names:
            if n in kv:
                out[field] = num(kv[n])
                break
    return out


class LogTail:
    """Reads staffer's log incrementally; remembers the newest decision line
    for our ScaledObject and the newest warning/error."""

    def __init__(self, path):
        self.path = path
        self.pos = 0
        self.buf = ""

    def read(self):
        decision = None
        problem = None
        try:
            with open(self.path, "r", errors="replace") as f:
                f.seek(self.pos)
                data = f.read()
                self.pos = f.tell()
        except OSError:
            return None, None
        self.buf += data
        lines = self.buf.split("\n")
        self.buf = lines.pop()
        for ln in lines:
            if re.search(r"\bdecision\b", ln) and (
                    NAME in ln or not re.search(r"\b(so|name|ref)=", ln)):
                decision = ln
            elif re.search(r"\b(warn|warning|error|WARN|ERROR)\b", ln):
                problem = ln
        return decision, problem


# ---- gRPC ----------------------------------------------------------------
class Staffer:
    def __init__(self, addr, pb, timeout):
        self.pb = pb
        self.timeout = timeout
        self.ch = grpc.insecure_channel(addr)
        base = "/externalscaler.ExternalScaler/"
        self.spec = self.ch.unary_unary(
            base + "GetMetricSpec",
            request_serializer=pb.ScaledObjectRef.SerializeToString,
            response_deserializer=pb.GetMetricSpecResponse.FromString)
        self.metrics = self.ch.unary_unary(
            base + "GetMetrics",
            request_serializer=pb.GetMetricsRequest.SerializeToString,
            response_deserializer=pb.GetMetricsResponse.FromString)
        self.active = self.ch.unary_unary(
            base + "IsActive",
            request_serializer=pb.ScaledObjectRef.SerializeToString,
            response_deserializer=pb.IsActiveResponse.FromString)

    def wait_ready(self, seconds):
        try:
            grpc.channel_ready_future(self.ch).result(timeout=seconds)
            return True
        except grpc.FutureTimeoutError:
            return False

    def poll(self, ref):
        """KEDA's GetMetricSpec, then GetMetricsAndActivity.  Returns
        (value, active, error-text)."""
        spec = self.spec(ref, timeout=self.timeout)
        if not spec.metricSpecs:
            return None, None, "got empty metric spec"
        ms = spec.metricSpecs[0]
        target = ms.targetSizeFloat if ms.targetSizeFloat > 0 \
            else float(ms.targetSize)
        req = self.pb.GetMetricsRequest(scaledObjectRef=ref,
                                        metricName=ms.metricName)
        resp = self.metrics(req, timeout=self.timeout)
        act = self.active(ref, timeout=self.timeout)  # error discards both
        if not resp.metricValues:
            return None, act.result, "no metrics returned"
        # every item becomes one external metric; the HPA sums them
        total = 0
        for mv in resp.metricValues:
            v = mv.metricValueFloat if mv.metricValueFloat > 0 \
                else float(mv.metricValue)
            if not math.isfinite(v) or v < 0:
                v = 0.0                      # KEDA >= 2.20.2 clamps
            total += round(v * 1000)         # "%.3f" -> MilliValue
        return (total, round(target * 1000)), act.result, None


def hpa_average_value(usage_milli, target_milli, current):
    """k8s GetExternalPerPodMetricReplicas + clamp to [min, max].
    Returns (replicas, held_by_tolerance)."""
    if target_milli <= 0:
        return current, False
    ratio = usage_milli / (target_milli * current)
    if (1 - TOLERANCE) <= ratio <= (1 + TOLERANCE):
        n, held = current, True
    else:
        n, held = math.ceil(usage_milli / target_milli), False
    return max(MIN_REPLICAS, min(MAX_REPLICAS, n)), held


# ---- gateway -------------------------------------------------------------
def http_json(url, data=None, timeout=3):
    req = urllib.request.Request(url, data=data,
                                 method="POST" if data is not None else "GET")
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.load(r)


# ---- output --------------------------------------------------------------
COLS = [  # (title, unit, width)
    ("time", "s", 5), ("offer", "req/s", 6),
    ("lam", "req/s", 6), ("fcst", "req/s", 6), ("W", "s", 5),
    ("Q", "req", 5), ("S", "req/s", 5),
    ("busy", "slots", 6), ("head", "slots", 5), ("drain", "slots", 6),
    ("boost", "slots", 6),
    ("raw", "repl", 5), ("target", "repl", 7), ("act", "", 4),
    ("replicas", "want", 9), ("ready", "", 6), ("cold", "", 5),
]
COLS = [(t, u, max(w, len(t) + 1, len(u) + 1)) for t, u, w in COLS]
GROUPS = [(0, 2), (2, 6), (6, 10), (10, 13), (13, 16)]


def fmt_row(cells):
    parts = []
    for gi, (lo, hi) in enumerate(GROUPS):
        parts.append("".join(str(cells[i]).rjust(COLS[i][2])
                             for i in range(lo, hi)))
    return " |".join(parts)


def f(v, digits):
    if v is None:
        return "-"
    if digits == 0:
        return "%d" % round(v)
    return "%.*f" % (digits, v)


def script_text(peak):
    """The gateway's traffic script in words: idle 0.4 -> ramp -> ..."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gateway import SCRIPT
    out, last = [], None
    for _, name, lo, hi in SCRIPT:
        if lo == hi:
            out.append("%s %.1f" % (name, lo * peak))
        else:
            out.append(name)
        last = hi
    return " -> ".join(out) if last is not None else "?"


def header(a):
    peak = a.peak
    w = [
        "staffer demo: a simulated GPU inference fleet, scaled by staffer "
        "through the KEDA external-scaler protocol",
        "  fleet   %d slots per replica, lognormal service time (mean %g s), "
        "cold start %g s per new replica," % (a.slots, a.service_mean,
                                              a.cold_start),
        "          vLLM pods: each queues what its slots cannot take, the "
        "gateway sends a request to the pod with the fewest;",
        "          a request is shed after waiting %g s; starts with 1 warm "
        "replica" % a.queue_timeout,
        "  load    Poisson arrivals over %g s (seed %d): %s req/s" % (
            a.seconds, a.seed, script_text(peak)),
        "  loop    every %g s (KEDA/HPA: 15 s, compressed): GetMetricSpec + "
        "GetMetrics + IsActive for %s/%s," % (a.poll, NAMESPACE, NAME),
        "          then the HPA's AverageValue rule (target 1, tolerance %g,"
        " min %d, max %d, no extra stabilization)" % (TOLERANCE, MIN_REPLICAS,
                                                      MAX_REPLICAS),
        "  staffer reads Prometheus (1 s scrapes): rate windows 15 s/1 m; "
        "default metadata, the cold start measured (coldStartQuery; "
        "coldStartSeconds %g while it has no data)," % a.cold_start,
        "          and, compressed to minutes: metricsLagSeconds %s "
        "(default 30: a 15 s scrape + a 15 s HPA sync), "
        "forecastWindowSeconds %s (600)" % (
            compressed(a)["metricsLagSeconds"],
            compressed(a)["forecastWindowSeconds"]),
        "          answer cache %g s (cacheTTLSeconds; the default, 20 s, "
        "is for KEDA's 15 s cycle)" % a.cache_ttl,
    ] + ([
        "  extra   metadata: %s" % a.meta] if a.meta else []) + [
        "",
        "  time   seconds into the traffic script; offer = the script's "
        "arrival rate (the truth)",
        "  lam W Q S   what staffer saw: arrival rate, mean service time, "
        "queue depth, shed rate",
        "  fcst    Holt forecast of the arrival rate one cold start (+ lag) "
        "ahead; busy uses the largest",
        "          of lam, fcst and the highest lam over the scale-down hold",
        "  busy head drain boost   staffer's terms in slots: busy = rate*W "
        "(Little's law), head = beta*sqrt(z*busy),",
        "          drain = Q*W/drainSeconds, boost = S*W while shedding",
        "  raw     the model's replicas, ceil((busy+head+drain+boost)/n); "
        "target = staffer's answer",
        "          to GetMetrics (capacity is released only after the hold); "
        "act = IsActive",
        "  replicas what the HPA set (a->b when it changed); ready = taking "
        "work, cold = in cold start",
        "  ('-' = not in staffer's log; an error row keeps the replicas, "
        "as the HPA does)",
        "",
    ]
    return "\n".join(w)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--staffer", required=True, help="host:port")
    p.add_argument("--gateway", required=True, help="http://host:port")
    p.add_argument("--log", required=True, help="staffer's log file")
    p.add_argument("--staffer-pid", type=int,
                   help="stop when this process is gone")
    p.add_argument("--pydir", required=True, help="dir of *_pb2.py")
    p.add_argument("--seconds", type=float, default=300)
    p.add_argument("--poll", type=float, default=5)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--slots", type=int, default=4)
    p.add_argument("--peak", type=float, default=8.0)
    p.add_argument("--service-mean", type=float, default=7.0)
    p.add_argument("--service-sigma", type=float, default=0.5)
    p.add_argument("--staffer-bin", help="build/staffer, for the "
                   "simulator comparison in the summary")
    p.add_argument("--cold-start", type=float, default=20.0)
    p.add_argument("--queue-timeout", type=float, default=15.0)
    p.add_argument("--cache-ttl", type=float, default=20,
                   help="staffer's cacheTTLSeconds (for the header)")
    p.add_argument("--timeout", type=float, default=3.0,
                   help="deadline of each RPC (the HPA path has ~3 s)")
    p.add_argument("--meta", help="extra trigger metadata, "
                   "'key=value key=value' (overrides)")
    p.add_argument("--csv", help="write one row per poll here")
    p.add_argument("--out", help="dir for the plot (and a copy of the csv)")
    a = p.parse_args()

    sys.path.insert(0, a.pydir)
    import externalscaler_pb2 as pb

    ref = pb.ScaledObjectRef(name=NAME, namespace=NAMESPACE)
    for k, v in metadata_with_extras(a).items():
        ref.scalerMetadata[k] = v

    st = Staffer(a.staffer, pb, a.timeout)
    if not st.wait_ready(20):
        print("demo: staffer did not accept gRPC connections on %s within "
              "20 s" % a.staffer, file=sys.stderr)
        return 1
    tail = LogTail(a.log)
    print(header(a))
    titles = [c[0] for c in COLS]
    units = [c[1] for c in COLS]
    print(fmt_row(titles) + " | note")
    print(fmt_row(units) + " |")
    print("-" * (len(fmt_row(units)) + 8), flush=True)

    rows = []
    events = []
    errors = 0
    held_count = 0
    last = None
    csvf = open(a.csv, "w", newline="") if a.csv else None
    cw = None
    if csvf:
        cw = csv.writer(csvf)
        cw.writerow(["t", "offered_rate", "needed_replicas", "lambda", "W",
                     "Q", "S", "busy", "headroom", "drain", "boost", "total",
                     "raw", "target", "active", "replicas", "ready",
                     "starting", "draining", "queue", "in_flight",
                     "shed_total", "error"])
    g = a.gateway.rstrip("/")
    interrupted = False
    gone = False
    try:
        s0 = http_json(g + "/stats")
        # poll at script times that are multiples of the poll period
        offset = time.monotonic() - s0["t"]
        k = max(1, math.ceil(s0["t"] / a.poll + 1e-9))
        while True:
            due = offset + k * a.poll
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            k += 1
            try:
                s = http_json(g + "/stats")
            except (OSError, ValueError) as e:
                print("demo: gateway stopped answering: %s" % e,
                      file=sys.stderr)
                return 1
            last = s
            current = s["desired"]
            note = ""
            value = active = None
            try:
                res, active, err = st.poll(ref)
            except grpc.RpcError as e:
                res, err = None, "%s: %s" % (e.code().name, e.details())
            decision, _ = tail.read()
            d = parse_decision(decision) if decision else {}
            new = current
            if err:
                errors += 1
                note = err if len(err) <= 100 else err[:97] + "..."
            else:
                usage, tmilli = res
                value = usage / 1000.0
                new, held = hpa_average_value(usage, tmilli, current)
                if held and round(value) != current:
                    held_count += 1
                    note = "HPA holds: %g is within 10%% of %d" % (
                        value, current)
                if new != current:
                    try:
                        http_json(g + "/scale", data=("replicas=%d" % new)
                                  .encode())
                    except (OSError, ValueError) as e:
                        note = "scale failed: %s" % e
                        new = current
                if new != current:
                    events.append((s["t"], current, new))
            tgt = value if value is not None else None
            repl = ("%d->%d" % (current, new)) if new != current \
                else "%d" % current
            cells = [
                f(s["t"], 0), f(s["offered_rate"], 2),
                f(d.get("lam"), 2), f(d.get("fcst"), 2), f(d.get("W"), 1),
                f(d.get("Q"), 0),
                f(d.get("S"), 2),
                f(d.get("busy"), 1), f(d.get("headroom"), 1),
                f(d.get("drain"), 1), f(d.get("boost"), 1),
                f(d.get("raw"), 0), ("%g" % tgt) if tgt is not None else "ERR",
                "-" if active is None else ("yes" if active else "no"),
                repl, s["ready"], s["starting"],
            ]
            print(fmt_row(cells) + " | " + note, flush=True)
            if a.staffer_pid and not alive(a.staffer_pid):
                print("demo: staffer (pid %d) is gone; stopping"
                      % a.staffer_pid, flush=True)
                gone = True
            needed = s["offered_rate"] * a.service_mean / a.slots
            row = [round(s["t"], 2), s["offered_rate"], round(needed, 3),
                   d.get("lam"), d.get("W"), d.get("Q"), d.get("S"),
                   d.get("busy"), d.get("headroom"), d.get("drain"),
                   d.get("boost"), d.get("total"), d.get("raw"), tgt,
                   "" if active is None else int(active), new, s["ready"],
                   s["starting"], s["draining"], s["queue"], s["in_flight"],
                   s["shed"], err or ""]
            rows.append(row)
            if cw:
                cw.writerow(["" if v is None else v for v in row])
                csvf.flush()
            if gone or s["t"] >= a.seconds - 1e-6:
                break
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # one is enough
        interrupted = True
        print("\n(interrupted)")
    finally:
        if csvf:
            csvf.close()

    try:
        fin = http_json(g + "/stats")
    except (OSError, ValueError):
        fin = last
    if fin:
        summary(a, fin, events, errors, held_count, rows)
        if not interrupted and not gone:
            for line in compare(a, fin["wait_sla"]) or []:
                print(line)
    plot_path = None
    if a.csv and a.out and rows:
        plot_path = plot(a, len(rows))
    if plot_path:
        print("  plot      %s" % plot_path)
    elif a.out and rows and not shutil.which("gnuplot"):
        print("  plot      (install gnuplot-nox for a PNG)")
    if gone:
        return 1
    return 130 if interrupted else 0


def alive(pid):
    """True while pid runs (a zombie, reaped later by run.sh, counts as
    gone)."""
    try:
        with open("/proc/%d/stat" % pid) as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def summary(a, s, events, errors, held, rows):
    served = s["completed"]
    shed = s["shed"]
    arrived = s["offered"]
    pct = (100.0 * shed / arrived) if arrived else 0.0
    ups = sum(1 for _, x, y in events if y > x)
    downs = len(events) - ups
    reps = [r[15] for r in rows] or [s["desired"]]
    rs = s["replica_seconds"]
    floor_rs = s["service_seconds"] / s["slots"]
    decided = s["started"] + shed
    print()
    print("summary after %.0f s" % s["t"])
    if decided:
        print("  SLA       %.1f%% of requests started within %g s (shed "
              "ones count as misses)"
              % (100.0 * s["within_sla"] / decided, s["wait_sla"]))
    print("  requests  %d arrived, %d served, %d shed (%.1f%%: %d timed out "
          "in the queue, %d found it full), %d still in flight, %d queued"
          % (arrived, served, shed, pct, s["shed_timeout"], s["shed_full"],
             s["in_flight"], s["queue"]))
    if s["wait_p50"] is not None:
        print("  waiting   p50 %.1f s, p95 %.1f s, p99 %.1f s; max queue %d"
              % (s["wait_p50"], s["wait_p95"], s["wait_p99"],
                 s["max_queue"]))
    print("  capacity  %.1f replica-minutes paid, %.0f%% of it used by the "
          "work served (%.1f replica-minutes at 100%% use)"
          % (rs / 60, 100.0 * floor_rs / rs if rs else 0, floor_rs / 60))
    print("  scaling   %d scale events (%d up, %d down), replicas %d..%d; "
          "%d poll(s) with a staffer error; %d held by the HPA tolerance"
          % (len(events), ups, downs, min(reps), max(reps), errors, held))


def compare(a, sla):
    """The same traffic script through `staffer simulate` (routed as the
    gateway routes, to the pod with the fewest requests): staffer with
    the demo's metadata next to a threshold trigger at the setting the
    benchmark's headline uses (keda-running at 0.75 x slots), with the
    same poll, cold start and warm start.  Returns printable lines, or
    None when the simulator is not available."""
    if not a.staffer_bin or not a.csv:
        return None
    rates = os.path.join(os.path.dirname(a.csv), "script-rates.csv")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gateway import rate_profile
    with open(rates, "w") as fh:
        fh.write("window_start_s,total_rate_rps,active_clients\n")
        for i in range(int(math.ceil(a.seconds))):
            fh.write("%d,%.6f,1\n" % (i, rate_profile(
                min(1.0, (i + 0.5) / a.seconds), a.peak)))
    cv = math.sqrt(math.exp(a.service_sigma ** 2) - 1)
    tuning = dict(compressed(a))
    tuning["coldStartSeconds"] = "%g" % a.cold_start
    tuning["cold"] = "measured"   # coldStartQuery: the true cold start
    for item in (a.meta or "").split():
        k, _, v = item.partition("=")
        if not k.endswith("Query"):
            tuning[k] = v
    thr = 0.75 * a.slots
    keda = "keda-running:threshold=%g,pollingInterval=%g" % (thr, a.poll)
    cmd = [a.staffer_bin, "simulate", "--rates", rates,
           "--rate-compress", "1", "--seed", str(a.seed),
           "--slots", str(a.slots), "--cold-start", "%g" % a.cold_start,
           "--routing", "least-loaded",     # the gateway's: fewest requests
           "--queue-timeout", "%g" % a.queue_timeout, "--sla", "%g" % sla,
           "--service", "lognormal", "--service-mean", "%g" % a.service_mean,
           "--service-cv", "%.4f" % cv, "--scrape-interval", "1",
           "--rate-window", "15", "--service-window", "60",
           "--hpa-sync", "%g" % a.poll, "--hpa-tolerance", "%g" % TOLERANCE,
           "--initial-replicas", "1", "--max-replicas", str(MAX_REPLICAS),
           "--json", "--policy",
           "staffer:" + ",".join("%s=%s" % kv for kv in tuning.items()),
           "--policy", keda]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return ["  compare   staffer simulate failed: %s" % e]
    if r.returncode != 0:
        return ["  compare   staffer simulate failed: %s"
                % r.stderr.strip()[:300]]
    res = [json.loads(ln) for ln in r.stdout.splitlines()
           if ln.startswith("{")]
    if len(res) != 2:
        return ["  compare   staffer simulate gave %d results" % len(res)]
    st, kd = res
    out = ["  compare   the same script in `staffer simulate` (Poisson "
           "arrivals, routed to the pod with the fewest requests, same "
           "cold start, poll and warm start):"]
    for name, x in (("staffer", st), ("keda-running, threshold %g "
                                      "(0.75 x slots)" % thr, kd)):
        out.append("            %-36s %5.1f%% within %g s, %6.1f "
                   "replica-minutes" % (name, 100 * x["sla_attainment"],
                                        sla, 60 * x["replica_hours"]))
    if st["replica_hours"] > 0:
        d = 100 * (kd["sla_attainment"] - st["sla_attainment"])
        out.append("            the threshold trigger: %.2fx staffer's "
                   "replica-minutes, %.1f points %s within the SLA"
                   % (kd["replica_hours"] / st["replica_hours"], abs(d),
                      "more" if d > 0 else "fewer"))
    return out


PLOT = r"""
set terminal {term} size 1100,600 font ",10"
set output '{png}'
set datafile separator ','
set key below horizontal
set title 'staffer demo: replicas follow demand (seed {seed}, cold start {cold:g} s, poll {poll:g} s)'
set xlabel 'time [s]'
set ylabel 'replicas'
set y2label 'queue depth [requests]'
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set offsets 0, 0, 1, 0
set grid
plot '{csv}' skip 1 using 1:20 axes x1y2 with filledcurves x1 lc rgb '#f4c7c3' title 'queue (requests, right axis)', \
     '' skip 1 using 1:3 with lines dt 2 lw 2 lc rgb '#555555' title 'demand: offered rate x W / n (replicas of pure work)', \
     '' skip 1 using 1:14 with points pt 7 ps 0.8 lc rgb '#1a73e8' title 'staffer target', \
     '' skip 1 using 1:16 with steps lw 2 lc rgb '#1a73e8' title 'replicas (HPA)', \
     '' skip 1 using 1:17 with steps lw 2 lc rgb '#188038' title 'ready replicas'
"""


def plot(a, nrows):
    gp = shutil.which("gnuplot")
    if not gp:
        return None
    os.makedirs(a.out, exist_ok=True)
    csv_out = os.path.join(a.out, "demo.csv")
    if os.path.abspath(csv_out) != os.path.abspath(a.csv):
        shutil.copyfile(a.csv, csv_out)
    png = os.path.join(a.out, "demo.png")
    r = subprocess.run([gp, "-e", "set terminal"], capture_output=True,
                       text=True)
    terms = r.stdout + r.stderr
    term = "pngcairo" if "pngcairo" in terms else "png"
    script = PLOT.format(term=term, png=png.replace("'", ""),
                         csv=csv_out.replace("'", ""), seed=a.seed,
                         cold=a.cold_start, poll=a.poll)
    r = subprocess.run([gp], input=script,
                       capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(png):
        print("demo: gnuplot failed: %s" % r.stderr.strip()[:300],
              file=sys.stderr)
        return None
    return png


if __name__ == "__main__":
    # started as a background job, SIGINT comes in ignored: take it back
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
