#!/usr/bin/env python3
"""bench/suite.py - the decision-quality suite behind `make bench`.

Runs build/staffer simulate on every trace of ../shared/traces (and the
synthetic shapes) at cold starts of 60, 120 and 300 s with every policy:
staffer at its default metadata and over a metadata grid, each baseline
swept over its threshold, and the oracle.  Then it works out each
baseline's frontier (SLA attainment against replica-hours), checks where
staffer sits on it, and writes bench/results/decision-quality.md plus PNG
plots (frontiers, and timeseries at a 120 s cold start).

Stdlib only.  Deterministic: fixed seeds, so a rerun gives the same file
(except the timings).
"""
import bisect
import concurrent.futures
import csv
import json
import math
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STAFFER = os.path.join(ROOT, "build", "staffer")
TRACES = os.environ.get("TRACES",
                        os.path.join(os.path.dirname(ROOT), "shared",
                                     "traces"))
OUT = os.path.join(ROOT, "bench", "out")
RES = os.path.join(ROOT, "bench", "results")
JOBS = int(os.environ.get("JOBS", "2"))

SLOTS = 16             # slots per replica (batch 16 in the perf model)
COLDS = (60, 120, 300)
SLA = 2.0              # seconds of wait
TARGET_SLOTS = 200.0   # mean offered load each trace is scaled to
SERVEGEN_COMPRESS = 4  # a 10-minute window lasts 2.5 minutes
SERVEGEN_SPAN = 86400  # the first day of each model
SEED = 1
SLA_GOAL = 0.99        # "best metadata": cheapest config reaching this

# llama2-70b / h100 / tp4 from the Splitwise profile, as src/perf.c has it
# (used here only to pick scale factors).
PROMPT = [(128, 48.8891), (256, 54.3110), (512, 61.0427), (1024, 106.3140),
          (2048, 200.9289), (4096, 466.3972), (8192, 943.2766)]
TOKEN_MS_16 = 32.8364


def prefill_s(tokens):
    xs = [p[0] for p in PROMPT]
    if tokens <= xs[0]:
        return PROMPT[0][1] / 1000
    i = bisect.bisect_left(xs, tokens)
    if i >= len(xs):
        i = len(xs) - 1
    (x0, y0), (x1, y1) = PROMPT[i - 1], PROMPT[i]
    return (y0 + (y1 - y0) * (tokens - x0) / (x1 - x0)) / 1000


def service_s(tin, tout):
    return prefill_s(tin) + tout * TOKEN_MS_16 / 1000


# ---- the suite ---------------------------------------------------------

def csv_trace(name, rel, what):
    path = os.path.join(TRACES, rel)
    rows = list(csv.reader(open(path)))[1:]
    span = float(rows[-1][0])
    work = sum(service_s(float(r[1]), float(r[2])) for r in rows)
    load = work / span
    k = max(1, round(TARGET_SLOTS / load))
    return dict(name=name, kind="csv", what=what,
                args=["--trace", path, "--overlay", str(k)],
                scale="%d shifted copies (overlay %d, copy i shifted by "
                      "i x span / %d), %.0f-s span; %.1f busy slots per "
                      "copy" % (k, k, k, span, load))


def servegen_trace(model):
    base = os.path.join(TRACES, "servegen", model)
    rates = [r for r in csv.reader(open(base + "_rate_10min.csv"))][1:]
    day = [float(r[1]) for r in rates if float(r[0]) < SERVEGEN_SPAN]
    toks = [r for r in csv.reader(open(base + "_tokens_6h.csv"))][1:]
    toks = [r for r in toks if float(r[0]) < SERVEGEN_SPAN]
    tin = sum(float(r[1]) for r in toks) / len(toks)
    tout = sum(float(r[2]) for r in toks) / len(toks)
    w = service_s(tin, tout)
    mean_rate = sum(day) / len(day)
    scale = TARGET_SLOTS / (w * mean_rate)
    return dict(name="servegen-" + model, kind="rates",
                what="ServeGen %s, first day of 10-minute rates" % model,
                args=["--rates", base + "_rate_10min.csv",
                      "--rate-span", str(SERVEGEN_SPAN),
                      "--rate-compress", str(SERVEGEN_COMPRESS),
                      "--rate-scale", "%.6g" % scale,
                      "--input-mean", "%.0f" % tin,
                      "--output-mean", "%.0f" % tout],
                scale="Poisson, rate linear between window midpoints, "
                      "time compressed x%d (a day in %.0f h), rate x%.4g "
                      "(mean %.1f req/s), tokens lognormal means %.0f in / "
                      "%.0f out" % (SERVEGEN_COMPRESS,
                                    SERVEGEN_SPAN / SERVEGEN_COMPRESS /
                                    3600, scale, mean_rate * scale, tin,
                                    tout))


def synth_trace(shape):
    w = service_s(1000, 250)
    rate = TARGET_SLOTS / w
    return dict(name="synthetic-" + shape, kind="shape",
                what="synthetic %s" % shape,
                args=["--shape", shape, "--rate", "%.4g" % rate,
                      "--duration", "3600"],
                scale="mean %.1f req/s for 3600 s, tokens lognormal means "
                      "1000 in / 250 out" % rate)


def suite():
    t = [csv_trace("azure-code", "azure-llm-2023/code.csv",
                   "Azure LLM 2023 code (real arrivals)"),
         csv_trace("azure-conv", "azure-llm-2023/conv.csv",
                   "Azure LLM 2023 conversation (real arrivals)"),
         csv_trace("mooncake", "mooncake-synthetic/synthetic.csv",
                   "Mooncake FAST'25 synthetic (Poisson, long prompts)")]
    for m in ("language_m-large", "language_m-mid", "language_m-small",
              "multimodal_mm-image", "reason_deepseek-r1"):
        t.append(servegen_trace(m))
    for s in ("poisson", "step", "surge", "diurnal", "onoff"):
        t.append(synth_trace(s))
    return t


SCALE_DOWN = (("1", "60"), ("1", "300"), ("4", "60"))


def staffer_grid(cold):
    g = []
    for beta in ("1", "1.5", "2.5"):
        for step, sdp in SCALE_DOWN:
            for drain in ("30", "300"):
                for fc in (False, True):
                    s = "staffer:beta=%s,scaleDownStep=%s," \
                        "scaleDownPeriodSeconds=%s,drainSeconds=%s" % (
                            beta, step, sdp, drain)
                    if fc:
                        s += ",coldStartSeconds=%d" % cold
                    g.append(s)
    return g


BASELINES = (
    ["keda-queue:threshold=%s" % t for t in ("1", "2", "5", "10", "20")] +
    ["keda-running:threshold=%s" % t for t in ("8", "10", "12", "14",
                                               "16")] +
    ["keda-combined:queue=5,running=%s" % t for t in ("10", "12", "14",
                                                      "16")] +
    ["hpa-util:target=%s" % t for t in ("0.5", "0.6", "0.7", "0.8",
                                        "0.9")])

FAMILIES = ("keda-queue", "keda-running", "keda-combined", "hpa-util")


def family(p):
    return p.split(":")[0]


def common_args(cold):
    return ["--slots", str(SLOTS), "--cold-start", str(cold),
            "--sla", str(SLA), "--seed", str(SEED)]


def run_one(tr, cold):
    pols = ["staffer"] + staffer_grid(cold) + BASELINES + ["oracle"]
    cmd = [STAFFER, "simulate"] + tr["args"] + common_args(cold) + ["--json"]
    for p in pols:
        cmd += ["--policy", p]
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.time() - t0
    if r.returncode != 0:
        raise RuntimeError("%s cold %d: %s" % (tr["name"], cold, r.stderr))
    rows = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
    path = os.path.join(OUT, "%s_c%d.jsonl" % (tr["name"], cold))
    with open(path, "w") as f:
        f.write(r.stdout)
    return dict(trace=tr["name"], cold=cold, rows=rows, seconds=dt,
                npolicies=len(pols))


# ---- analysis ------------------------------------------------------------

def pareto(rows):
    """Points no other point beats: fewer or equal hours and more SLA."""
    pts = sorted(rows, key=lambda r: (r["replica_hours"],
                                      -r["sla_attainment"]))
    out, best = [], -1.0
    for r in pts:
        if r["sla_attainment"] > best:
            out.append(r)
            best = r["sla_attainment"]
    return out


def analyse(res):
    rows = res["rows"]
    by = {r["policy"]: r for r in rows}
    d = by["staffer"]
    grid = [r for r in rows if r["policy"].startswith("staffer")]
    ok = [r for r in grid if r["sla_attainment"] >= SLA_GOAL]
    best = (min(ok, key=lambda r: r["replica_hours"]) if ok else
            max(grid, key=lambda r: (r["sla_attainment"],
                                     -r["replica_hours"])))
    base = [r for r in rows if family(r["policy"]) in FAMILIES]

    def beaten(s):
        return [b for b in base if b["replica_hours"] <= s["replica_hours"]
                and b["sla_attainment"] > s["sla_attainment"]]

    def best_at_or_below(s):
        c = [b for b in base if b["replica_hours"] <= s["replica_hours"]]
        return max(c, key=lambda b: b["sla_attainment"]) if c else None

    def cheapest_matching(s):
        c = [b for b in base if b["sla_attainment"] >= s["sla_attainment"]]
        return min(c, key=lambda b: b["replica_hours"]) if c else None

    grid_ok = [g for g in grid if not beaten(g)]
    res.update(default=d, best=best, oracle=by["oracle"], base=base,
               grid_ok=grid_ok,
               grid=grid, beaten_default=beaten(d), beaten_best=beaten(best),
               below=best_at_or_below(d), matching=cheapest_matching(d),
               fronts={f: pareto([b for b in base
                                  if family(b["policy"]) == f])
                       for f in FAMILIES})
    return res


# ---- plots ---------------------------------------------------------------

def gnuplot(script):
    r = subprocess.run(["gnuplot"], input=script, text=True,
                       capture_output=True)
    if r.returncode != 0:
        raise RuntimeError("gnuplot: " + r.stderr)


def q(s):
    return "'" + s.replace("'", "''") + "'"


def frontier_plot(name, results):
    """One PNG per trace: SLA attainment vs replica-hours, a panel per
    cold start, each baseline family as a line through its thresholds."""
    png = os.path.join(RES, "frontier-%s.png" % name)
    dat = os.path.join(OUT, "frontier-%s.dat" % name)
    lines = []
    for i, res in enumerate(results):
        for f in FAMILIES:
            pts = sorted([b for b in res["base"]
                          if family(b["policy"]) == f],
                         key=lambda b: b["replica_hours"])
            lines.append("# %d %s" % (i, f))
            for b in pts:
                lines.append("%.4f %.4f" % (b["replica_hours"],
                                            100 * b["sla_attainment"]))
            lines.append("\n")
        for key in ("grid",):
            lines.append("# %d grid" % i)
            for b in res[key]:
                lines.append("%.4f %.4f" % (b["replica_hours"],
                                            100 * b["sla_attainment"]))
            lines.append("\n")
        for key in ("default", "best", "oracle"):
            lines.append("# %d %s" % (i, key))
            lines.append("%.4f %.4f" % (res[key]["replica_hours"],
                                        100 * res[key]["sla_attainment"]))
            lines.append("\n")
    with open(dat, "w") as fp:
        fp.write("\n".join(lines) + "\n")
    nblk = len(FAMILIES) + 4
    s = ["set terminal pngcairo size 1500,520 font ',10'",
         "set termoption noenhanced", "set output " + q(png),
         "set multiplot layout 1,%d title %s" % (len(results),
                                                  q("%s: SLA attainment "
                                                    "(wait <= %gs) vs "
                                                    "replica-hours" %
                                                    (name, SLA))),
         "set grid", "set key bottom right font ',8'",
         "set xlabel 'replica-hours'", "set ylabel 'SLA attainment %'"]
    for i, res in enumerate(results):
        # The region that matters: around the oracle's cost; farther
        # points are clipped (the tables have them).
        x0 = 0.6 * res["oracle"]["replica_hours"]
        x1 = max(1.8 * res["oracle"]["replica_hours"],
                 1.1 * res["default"]["replica_hours"],
                 1.1 * res["best"]["replica_hours"])
        lo = min([100 * r["sla_attainment"] for r in
                  res["base"] + res["grid"] + [res["oracle"]]
                  if x0 <= r["replica_hours"] <= x1])
        s.append("set title 'cold start %d s'" % res["cold"])
        s.append("set xrange [%g:%g]" % (x0, x1))
        s.append("set yrange [%g:100.5]" % max(0, math.floor(lo - 2)))
        blk = i * nblk
        parts = []
        for j, f in enumerate(FAMILIES):
            parts.append("%s index %d with linespoints lw 1.5 pt 7 ps 0.7 "
                         "title %s" % (q(dat), blk + j, q(f)))
        parts.append("%s index %d with points pt 6 ps 0.6 lc rgb '#aaaaaa'"
                     " title 'staffer grid'" % (q(dat), blk + len(FAMILIES)))
        parts.append("%s index %d with points pt 5 ps 1.8 lc rgb 'black' "
                     "title 'staffer default'" % (q(dat),
                                                  blk + len(FAMILIES) + 1))
        parts.append("%s index %d with points pt 9 ps 1.8 lc rgb '#0060c0' "
                     "title 'staffer best'" % (q(dat),
                                               blk + len(FAMILIES) + 2))
        parts.append("%s index %d with points pt 3 ps 2 lw 2 lc rgb "
                     "'#c00000' title 'oracle'" % (q(dat),
                                                   blk + len(FAMILIES) + 3))
        s.append("plot " + ", ".join(parts))
    s.append("unset multiplot")
    gnuplot("\n".join(s) + "\n")
    return os.path.basename(png)


def timeseries_plot(tr, res):
    """Replicas, demand, queue and shed over time at this cold start for
    staffer (default and best), the cheapest baseline of each family that
    matches staffer's SLA (or its best), and the oracle."""
    pols = ["staffer"]
    if res["best"]["policy"] != "staffer":
        pols.append(res["best"]["policy"])
    for f in FAMILIES:
        fam = [b for b in res["base"] if family(b["policy"]) == f]
        m = [b for b in fam
             if b["sla_attainment"] >= res["default"]["sla_attainment"]]
        pick = (min(m, key=lambda b: b["replica_hours"]) if m else
                max(fam, key=lambda b: b["sla_attainment"]))
        pols.append(pick["policy"])
    pols.append("oracle")
    png = os.path.join(RES, "timeseries-%s-c%d.png" % (tr["name"],
                                                       res["cold"]))
    cmd = [STAFFER, "simulate"] + tr["args"] + common_args(res["cold"])
    cmd += ["--plot", png, "--ts-step", "15"]
    for p in pols:
        cmd += ["--policy", p]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("timeseries %s: %s" % (tr["name"], r.stderr))
    return os.path.basename(png)


# ---- report ----------------------------------------------------------------

def pct(x):
    return "%.2f" % (100 * x)


def hrs(x):
    return "%.1f" % x


def cell(r):
    if r is None:
        return "none"
    return "`%s` %s%% @ %s h" % (r["policy"], pct(r["sla_attainment"]),
                                 hrs(r["replica_hours"]))


def verdict(res):
    if not res["beaten_default"]:
        return "on/beyond frontier"
    b = max(res["beaten_default"], key=lambda x: x["sla_attainment"])
    return "**behind**: `%s` %s%% @ %s h" % (
        b["policy"], pct(b["sla_attainment"]), hrs(b["replica_hours"]))


def report(traces, results, plots, wall):
    L = []
    a = L.append
    a("# Decision quality: staffer against KEDA/HPA baselines")
    a("")
    a("Generated by `make bench` (bench/suite.py) from `build/staffer "
      "simulate`; every number below comes from that run.  Method and "
      "discussion: docs/benchmark.md.")
    a("")
    a("## Setup")
    a("")
    a("- Fleet: %d slots per replica (llama2-70b on H100-80GB, tensor "
      "parallel 4, batch %d: service = prefill(input) + output x %.1f ms, "
      "from the Splitwise profile), FIFO gateway queue, requests shed after "
      "60 s in the queue, cold start 60 / 120 / 300 s, graceful drain on "
      "scale-down, warm start sized for the first cold start." %
      (SLOTS, SLOTS, TOKEN_MS_16))
    a("- SLA: a request counts when it starts within %g s of arriving "
      "(shed requests count as misses).  Replica-hours over the trace's "
      "span; lower bound = busy slot-hours / %d." % (SLA, SLOTS))
    a("- Metrics: Prometheus scrape every 15 s, `rate()` over 60 s "
      "(extrapolated as Prometheus does); KEDA polls every 30 s; HPA sync "
      "15 s, tolerance 0.1, default behavior for the baselines (300 s "
      "scale-down stabilization, scale-up max(2x, 4)).")
    a("- staffer: default metadata (`beta` 1.5, `drainSeconds` 300, "
      "`scaleDownStep` 1 per 60 s, no forecast) with its recommended HPA "
      "behavior (tolerance 0 both ways, scale-down stabilization 0).  "
      "\"Best\" = the cheapest of a %d-point grid (`beta` 1/1.5/2.5 x "
      "scale-down `scaleDownStep`/`scaleDownPeriodSeconds` 1/60, 1/300, "
      "4/60 x `drainSeconds` 30/300 x forecast off/on with "
      "`coldStartSeconds` = the cold start) reaching %g%% "
      "SLA attainment, else the grid's highest attainment." %
      (len(staffer_grid(60)), 100 * SLA_GOAL))
    a("- Baselines (default KEDA HPA): `keda-queue` threshold 1/2/5/10/20 "
      "queued requests per replica; `keda-running` 8/10/12/14/16 running "
      "per replica; `keda-combined` queue 5 with running 10/12/14/16; "
      "`hpa-util` busy-slot fraction 0.5..0.9.  `oracle`: clairvoyant, "
      "zero wait by construction.")
    a("- Every trace is scaled to a mean offered load of about %.0f busy "
      "slots (%.1f replicas of work):" % (TARGET_SLOTS,
                                          TARGET_SLOTS / SLOTS))
    for t in traces:
        a("  - `%s`: %s; %s." % (t["name"], t["what"], t["scale"]))
    a("- Same seed (%d) everywhere; %d simulations of %d policies each, "
      "%.0f s of wall time on %d parallel jobs." %
      (SEED, len(results), results[0]["npolicies"], wall, JOBS))
    a("")
    a("## Headline: staffer at default metadata")
    a("")
    a("\"Best baseline at <= hours\": the highest SLA attainment of any "
      "baseline configuration using no more replica-hours than staffer.  "
      "\"Cheapest baseline >= SLA\": the fewest replica-hours of any "
      "baseline configuration reaching staffer's attainment.  The target "
      "is met when no baseline configuration beats staffer at equal or "
      "lower cost (\"on/beyond frontier\").")
    a("")
    a("| trace | cold s | staffer SLA% | staffer h | oracle SLA% / h | "
      "staffer h / oracle h | best baseline at <= hours | cheapest "
      "baseline >= SLA | verdict |")
    a("|---|---:|---:|---:|---|---:|---|---|---|")
    nok = 0
    for r in results:
        d, o = r["default"], r["oracle"]
        ok = not r["beaten_default"]
        nok += ok
        a("| %s | %d | %s | %s | %s / %s | %.2f | %s | %s | %s |" % (
            r["trace"], r["cold"], pct(d["sla_attainment"]),
            hrs(d["replica_hours"]), pct(o["sla_attainment"]),
            hrs(o["replica_hours"]),
            d["replica_hours"] / o["replica_hours"], cell(r["below"]),
            cell(r["matching"]), verdict(r)))
    a("")
    a("staffer at default metadata is on or beyond every baseline "
      "frontier in **%d of %d** trace x cold-start cases." %
      (nok, len(results)))
    a("")
    a("## staffer at its best metadata")
    a("")
    a("\"Grid on frontier\": how many of the grid's configurations no "
      "baseline beats at equal or lower cost, and the highest attainment "
      "among them (with its replica-hours).")
    a("")
    a("| trace | cold s | best metadata | SLA% | h | verdict | grid on "
      "frontier |")
    a("|---|---:|---|---:|---:|---|---|")
    nbest = 0
    for r in results:
        b = r["best"]
        ok = not r["beaten_best"]
        nbest += ok
        top = (max(r["grid_ok"], key=lambda g: (g["sla_attainment"],
                                                 -g["replica_hours"]))
               if r["grid_ok"] else None)
        a("| %s | %d | `%s` | %s | %s | %s | %d of %d%s |" % (
            r["trace"], r["cold"], b["policy"].replace("staffer:", ""),
            pct(b["sla_attainment"]),
            hrs(b["replica_hours"]), "on/beyond frontier" if ok else
            "**behind** (%d configs beat it)" % len(r["beaten_best"]),
            len(r["grid_ok"]), len(r["grid"]),
            ", best %s%% @ %s h" % (pct(top["sla_attainment"]),
                                   hrs(top["replica_hours"]))
            if top else ""))
    a("")
    a("At its best metadata staffer is on or beyond every frontier in "
      "**%d of %d** cases." % (nbest, len(results)))
    a("")
    a("## Frontiers")
    a("")
    a("Each panel: SLA attainment against replica-hours; every baseline "
      "family is a line through its thresholds; black square = staffer "
      "default, blue triangle = staffer best, grey circles = the staffer "
      "grid, red star = oracle.  The x axis spans 0.6 to 1.8 times the "
      "oracle's replica-hours; configurations outside it (e.g. a flapping "
      "`keda-queue`) are in the tables below.")
    a("")
    for t in traces:
        a("![%s](%s)" % (t["name"], plots["frontier"][t["name"]]))
        a("")
    a("## Over time (cold start 120 s)")
    a("")
    a("Replicas (with the ideal demand), queue depth and shed requests for "
      "staffer, its best metadata, the cheapest configuration of each "
      "baseline family that matches staffer's attainment (or the family's "
      "best), and the oracle.")
    a("")
    for t in traces:
        a("![%s](%s)" % (t["name"], plots["ts"][t["name"]]))
        a("")
    a("## Detail: each baseline's frontier")
    a("")
    a("Pareto-optimal configurations of each family (no other "
      "configuration of the family has as few hours and more attainment); "
      "p99 wait is of started requests.")
    a("")
    for r in results:
        a("### %s, cold start %d s" % (r["trace"], r["cold"]))
        a("")
        a("| policy | SLA% | shed% | p50 s | p95 s | p99 s | h | LB h | "
          "scale events |")
        a("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        rows = [r["default"]]
        if r["best"]["policy"] != "staffer":
            rows.append(r["best"])
        for f in FAMILIES:
            rows += r["fronts"][f]
        rows.append(r["oracle"])
        for x in rows:
            a("| `%s` | %s | %s | %.2f | %.2f | %.2f | %s | %s | %d |" % (
                x["policy"], pct(x["sla_attainment"]),
                pct(x["shed_fraction"]), x["wait_p50"] or 0,
                x["wait_p95"] or 0, x["wait_p99"] or 0,
                hrs(x["replica_hours"]), hrs(x["lower_bound_hours"]),
                x["scale_events"]))
        a("")
    a("## Timings")
    a("")
    a("| trace | cold s | policies | wall s |")
    a("|---|---:|---:|---:|")
    for r in results:
        a("| %s | %d | %d | %.2f |" % (r["trace"], r["cold"],
                                        r["npolicies"], r["seconds"]))
    a("")
    return "\n".join(L)


def main():
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(RES, exist_ok=True)
    t0 = time.time()
    traces = suite()
    jobs = [(t, c) for t in traces for c in COLDS]
    print("bench: %d simulations of %d policies, %d at a time" %
          (len(jobs), 2 + len(staffer_grid(60)) + len(BASELINES), JOBS))
    results = {}
    with concurrent.futures.ThreadPoolExecutor(JOBS) as ex:
        futs = {ex.submit(run_one, t, c): (t["name"], c) for t, c in jobs}
        for f in concurrent.futures.as_completed(futs):
            r = f.result()
            results[futs[f]] = analyse(r)
            print("bench: %-32s cold %3d s  %6.2f s" %
                  (r["trace"], r["cold"], r["seconds"]), flush=True)
    ordered = [results[(t["name"], c)] for t, c in jobs]
    plots = {"frontier": {}, "ts": {}}
    with concurrent.futures.ThreadPoolExecutor(JOBS) as ex:
        fr = {t["name"]: ex.submit(frontier_plot, t["name"],
                                   [results[(t["name"], c)]
                                    for c in COLDS]) for t in traces}
        ts = {t["name"]: ex.submit(timeseries_plot, t,
                                   results[(t["name"], 120)])
              for t in traces}
        for k in fr:
            plots["frontier"][k] = fr[k].result()
            plots["ts"][k] = ts[k].result()
    wall = time.time() - t0
    md = report(traces, ordered, plots, wall)
    path = os.path.join(RES, "decision-quality.md")
    with open(path, "w") as fp:
        fp.write(md)
    print("bench: wrote %s (%.0f s)" % (os.path.relpath(path, ROOT), wall))


if __name__ == "__main__":
    try:
        main()
    except (RuntimeError, OSError) as e:
        print("bench: %s" % e, file=sys.stderr)
        sys.exit(1)
