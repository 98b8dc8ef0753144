#!/usr/bin/env python3
"""bench/suite.py - the decision-quality suite behind `make bench`.

Replays every trace of bench/traces.py at cold starts of 120 and 300 s
through `build/staffer simulate`: staffer at its default metadata, staffer
fed the true future arrival rate (a reference), the oracle, and the
autoscaling setups practitioners run, each at one fixed setting across all
traces (the headline) and swept over its threshold (the hindsight
frontier).  The headline runs again with per-replica queues and
least-loaded routing, and a sensitivity section changes the warm start,
the speed of the traffic and the cold start staffer is told.  Writes
bench/results/decision-quality.md with PNG plots; raw runs go to bench/out/
(not committed).

Stdlib only.  Deterministic: fixed seeds, so a rerun gives the same file
except for the timings.
"""
import concurrent.futures
import json
import math
import os
import subprocess
import sys
import time

import traces as T

ROOT = T.ROOT
STAFFER = os.path.join(ROOT, "build", "staffer")
OUT = os.path.join(ROOT, "bench", "out")
RES = os.path.join(ROOT, "bench", "results")
JOBS = int(os.environ.get("JOBS", "2"))

SLOTS = T.SLOTS
COLDS = (120, 300)
SLA = 2.0              # seconds of wait
SEED = 1
GOAL = 0.99            # the attainment target on real traffic
RATIO = 0.85           # replica-hours against the practitioner KEDA setting

# One fixed setting per family, the same on every trace: what the docs of
# each tool suggest or practitioners write (docs/benchmark.md says why).
RUN = int(0.75 * SLOTS)
PRACTICE = [
    ("keda-running", "keda-running:threshold=%d" % RUN),
    ("keda-queue", "keda-queue:threshold=5"),
    ("keda-combined", "keda-combined:queue=5,running=%d" % RUN),
    ("keda-sum", "keda-sum:threshold=%d" % SLOTS),
    ("hpa-util", "hpa-util:target=0.7"),
    ("static", "static"),
]
KEDA = PRACTICE[0][1]   # "the practitioner KEDA setting" of the targets
REFS = ["staffer", "staffer:forecast=perfect", "oracle"]
SWEEP = (
    ["keda-queue:threshold=%s" % t for t in ("2", "10", "20")] +
    ["keda-running:threshold=%s" % t for t in ("8", "10", "14", "16")] +
    ["keda-combined:queue=5,running=%s" % t for t in ("10", "14")] +
    ["keda-sum:threshold=%s" % t for t in ("12", "20", "24")] +
    ["hpa-util:target=%s" % t for t in ("0.5", "0.8", "0.9")])
STATIC_K = (1.1, 1.25, 1.5, 2.0)  # static fleets, x mean load
FAMILIES = ("keda-queue", "keda-running", "keda-combined", "keda-sum",
            "hpa-util", "static")


def family(p):
    return p.split(":")[0]


def headline():
    return REFS + [p for _, p in PRACTICE]


def sweep():
    mean = T.TARGET_SLOTS / SLOTS
    return SWEEP + ["static:replicas=%d" % math.ceil(k * mean)
                    for k in STATIC_K]


def common_args(cold, routing="shared", initial="first-minute"):
    return ["--slots", str(SLOTS), "--cold-start", str(cold),
            "--sla", str(SLA), "--seed", str(SEED), "--routing", routing,
            "--initial-replicas", initial]


REUSE = False   # --reuse: read bench/out/ instead of simulating (report work)


def simulate(tr, cold, pols, tag, **kw):
    cmd = [STAFFER, "simulate"] + tr["args"] + common_args(cold, **kw)
    cmd.append("--json")
    for p in pols:
        cmd += ["--policy", p]
    path = os.path.join(OUT, "%s_c%d_%s.jsonl" % (tr["name"], cold, tag))
    t0 = time.time()
    if REUSE and os.path.exists(path):
        with open(path) as fp:
            text = fp.read()
    else:
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("%s cold %d %s: %s" % (
                tr["name"], cold, tag, r.stderr.strip()))
        text = r.stdout
        with open(path, "w") as fp:
            fp.write(text)
    dt = time.time() - t0
    rows = [json.loads(x) for x in text.splitlines() if x.strip()]
    return dict(trace=tr["name"], cold=cold, tag=tag, seconds=dt,
                rows={x["policy"]: x for x in rows}, order=pols)


# ---- analysis ------------------------------------------------------------

def label(r):
    p = r["policy"]
    if r.get("never_scales_up") and family(p) != "static":
        return p + " (static)"
    return p


def behind(s, base):
    """Baseline configurations that reach staffer's attainment with fewer
    replica-hours: the target's own words."""
    return [b for b in base if b["sla_attainment"] >= s["sla_attainment"]
            and b["replica_hours"] < s["replica_hours"]]


def ratio_ok(s, k):
    return (s["replica_hours"] <= RATIO * k["replica_hours"] and
            s["sla_attainment"] >= k["sla_attainment"])


def analyse(main, ll):
    rows = main["rows"]
    s = rows["staffer"]
    base = [r for p, r in rows.items() if family(p) in FAMILIES]
    b = behind(s, base)
    return dict(trace=main["trace"], cold=main["cold"], s=s,
                perfect=rows["staffer:forecast=perfect"],
                oracle=rows["oracle"], base=base,
                practice=[rows[p] for _, p in PRACTICE],
                keda=rows[KEDA], behind=b, ratio=ratio_ok(s, rows[KEDA]),
                ll=ll["rows"], ll_ratio=ratio_ok(ll["rows"]["staffer"],
                                                 ll["rows"][KEDA]),
                ll_behind=behind(ll["rows"]["staffer"],
                                 [r for p, r in ll["rows"].items()
                                  if family(p) in FAMILIES]),
                seconds=main["seconds"] + ll["seconds"])


# ---- plots ---------------------------------------------------------------

def gnuplot(script):
    r = subprocess.run(["gnuplot"], input=script, text=True,
                       capture_output=True)
    if r.returncode != 0:
        raise RuntimeError("gnuplot: " + r.stderr)


def q(s):
    return "'" + s.replace("'", "''") + "'"


COLORS = {"keda-queue": "#1f77b4", "keda-running": "#ff7f0e",
          "keda-combined": "#2ca02c", "keda-sum": "#9467bd",
          "hpa-util": "#8c564b", "static": "#7f7f7f"}


def frontier_plot(name, results):
    """SLA attainment against replica-hours, a panel per cold start: each
    baseline family a line through its settings (its practitioner setting
    a filled dot), staffer, the perfect-forecast reference, the oracle and
    the work's lower bound."""
    png = os.path.join(RES, "frontier-%s.png" % name)
    dat = os.path.join(OUT, "frontier-%s.dat" % name)
    blocks = []
    for res in results:
        for f in FAMILIES:
            pts = sorted([b for b in res["base"] if family(b["policy"]) == f],
                         key=lambda b: b["replica_hours"])
            blocks.append(["%.4f %.4f" % (b["replica_hours"],
                                          100 * b["sla_attainment"])
                           for b in pts])
        for key in ("s", "perfect", "oracle", "keda"):
            blocks.append(["%.4f %.4f" % (res[key]["replica_hours"],
                                          100 * res[key]["sla_attainment"])])
        lb = res["s"]["lower_bound_hours"]
        blocks.append(["%.4f 0" % lb, "%.4f 101" % lb])
    with open(dat, "w") as fp:
        fp.write("\n\n\n".join("\n".join(b) for b in blocks) + "\n")
    per = len(FAMILIES) + 5
    s = ["set terminal pngcairo size 1400,540 font ',11'",
         "set termoption noenhanced", "set output " + q(png),
         "set multiplot layout 1,%d title %s" % (
             len(results), q("%s: requests started within %g s against "
                             "replica-hours" % (name, SLA))),
         "set grid", "set key bottom right font ',9' opaque",
         "set xlabel 'replica-hours'", "set ylabel 'within SLA %'"]
    for i, res in enumerate(results):
        pts = res["base"] + [res["s"], res["perfect"], res["oracle"]]
        x0 = 0.9 * res["s"]["lower_bound_hours"]
        x1 = 1.15 * max(res["s"]["replica_hours"],
                        res["keda"]["replica_hours"],
                        res["oracle"]["replica_hours"],
                        res["perfect"]["replica_hours"])
        lo = min(100 * r["sla_attainment"] for r in pts
                 if x0 <= r["replica_hours"] <= x1)
        s.append("set title 'cold start %d s'" % res["cold"])
        s.append("set xrange [%g:%g]" % (x0, x1))
        s.append("set yrange [%g:100.5]" % max(0, math.floor(lo - 2)))
        blk = i * per
        parts = []
        for j, f in enumerate(FAMILIES):
            parts.append("%s index %d with linespoints lw 1.5 pt 7 ps 0.6 "
                         "lc rgb %s title %s" % (q(dat), blk + j,
                                                 q(COLORS[f]), q(f)))
        k = blk + len(FAMILIES)
        parts.append("%s index %d with points pt 5 ps 2 lc rgb 'black' "
                     "title 'staffer (defaults)'" % (q(dat), k))
        parts.append("%s index %d with points pt 4 ps 1.8 lw 2 lc rgb "
                     "'#0060c0' title 'staffer, perfect forecast'" %
                     (q(dat), k + 1))
        parts.append("%s index %d with points pt 3 ps 2 lw 2 lc rgb "
                     "'#c00000' title 'oracle'" % (q(dat), k + 2))
        parts.append("%s index %d with points pt 7 ps 1.6 lc rgb %s "
                     "title %s" % (q(dat), k + 3, q(COLORS["keda-running"]),
                                   q(KEDA + " (practice)")))
        parts.append("%s index %d with lines dt 2 lw 1.5 lc rgb 'black' "
                     "title 'work / slots'" % (q(dat), k + 4))
        s.append("plot " + ", ".join(parts))
    s.append("unset multiplot")
    gnuplot("\n".join(s) + "\n")
    return os.path.basename(png)


def timeseries_plot(tr, cold):
    """Replicas, demand, queue and shed over time for staffer, the
    practitioner KEDA setting, hpa-util and the oracle."""
    png = os.path.join(RES, "timeseries-%s-c%d.png" % (tr["name"], cold))
    cmd = [STAFFER, "simulate"] + tr["args"] + common_args(cold)
    cmd += ["--plot", png, "--ts-step", "15"]
    for p in ("staffer", KEDA, "hpa-util:target=0.7", "oracle"):
        cmd += ["--policy", p]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("timeseries %s: %s" % (tr["name"], r.stderr))
    return os.path.basename(png)


# ---- report ----------------------------------------------------------------

def pct(x):
    return "%.2f" % (100 * x)


def pct_pair(x, y):
    """x and y in % with enough digits that x < y shows (99.997 is below
    100, though both print as 100.00)."""
    for d in (2, 3, 4, 5):
        a, b = "%.*f" % (d, 100 * x), "%.*f" % (d, 100 * y)
        if a != b:
            return a, b
    return a, b


def sh(r):
    return "%s / %.1f" % (pct(r["sla_attainment"]), r["replica_hours"])


def frontier_cell(b):
    if not b:
        return "yes"
    w = min(b, key=lambda x: x["replica_hours"])
    return "**no**: `%s` %s%% @ %.1f h" % (label(w), pct(w["sla_attainment"]),
                                          w["replica_hours"])


def ratio_cell(s, k, ok):
    r = s["replica_hours"] / k["replica_hours"]
    if ok:
        return "yes (%.2f)" % r
    if s["sla_attainment"] < k["sla_attainment"]:
        return "**no** (%.2f, SLA %s < %s)" % ((r,) + pct_pair(
            s["sla_attainment"], k["sla_attainment"]))
    return "**no** (%.2f)" % r


def headline_table(a, results, key):
    a("| trace | set | cold s | staffer | perfect forecast | oracle | "
      "work bound h | " + " | ".join(f for f, _ in PRACTICE) +
      " | on every frontier | h <= 0.85 x KEDA |")
    a("|---|---|---:|---:|---:|---:|---:|" + "---:|" * len(PRACTICE) +
      "---|---|")
    for r in results:
        rows = r["ll"] if key == "ll" else None
        s = rows["staffer"] if rows else r["s"]
        per = rows["staffer:forecast=perfect"] if rows else r["perfect"]
        o = rows["oracle"] if rows else r["oracle"]
        prac = [rows[p] for _, p in PRACTICE] if rows else r["practice"]
        k = rows[KEDA] if rows else r["keda"]
        cells = []
        for x in prac:
            c = sh(x)
            if x.get("never_scales_up") and family(x["policy"]) != "static":
                c += " (static)"
            cells.append(c)
        a("| %s | %s | %d | **%s** | %s | %s | %.1f | %s | %s | %s |" % (
            r["trace"], T.subset(r["trace"]), r["cold"], sh(s), sh(per),
            sh(o), s["lower_bound_hours"], " | ".join(cells),
            frontier_cell(r["ll_behind"] if rows else r["behind"]),
            ratio_cell(s, k, r["ll_ratio"] if rows else r["ratio"])))
    a("")


def targets(a, results):
    real = [r for r in results if r["trace"].startswith(("azure-conv",
                                                         "mooncake",
                                                         "servegen"))]
    low = [r for r in real if r["s"]["sla_attainment"] < GOAL]
    fr = [r for r in results if r["behind"]]
    ra = [r for r in results if not r["ratio"]]
    a("| target | met | where not |")
    a("|---|---|---|")
    a("| >= %g%% within the SLA on Azure conv, Mooncake and ServeGen | "
      "%d of %d | %s |" % (100 * GOAL, len(real) - len(low), len(real),
                           "; ".join("%s at %d s: %s%%" %
                                     (r["trace"], r["cold"],
                                      pct(r["s"]["sla_attainment"]))
                                     for r in low) or "none"))
    a("| on or beyond every baseline frontier | %d of %d | %s |" % (
        len(results) - len(fr), len(results),
        "; ".join("%s at %d s" % (r["trace"], r["cold"]) for r in fr)
        or "none"))
    a("| replica-hours <= %g x `%s` with at least its attainment | %d of "
      "%d | %s |" % (RATIO, KEDA, len(results) - len(ra), len(results),
                     "; ".join("%s at %d s" % (r["trace"], r["cold"])
                               for r in ra) or "none"))
    a("")


def sensitivity_table(a, sens):
    a("| case | trace | cold s | staffer | `%s` | oracle | h <= 0.85 x "
      "KEDA |" % KEDA)
    a("|---|---|---:|---:|---:|---:|---|")
    for what, r in sens:
        rows = r["rows"]
        s, k = rows["staffer"], rows[KEDA]
        a("| %s | %s | %d | %s | %s | %s | %s |" % (
            what, r["trace"], r["cold"], sh(s), sh(k),
            sh(rows["oracle"]) if "oracle" in rows else "-",
            ratio_cell(s, k, ratio_ok(s, k))))
    a("")


def detail(a, r):
    a("### %s, cold start %d s" % (r["trace"], r["cold"]))
    a("")
    a("| policy | SLA% | shed% | p50 s | p99 s | h | scale events |")
    a("|---|---:|---:|---:|---:|---:|---:|")
    rows = [r["s"], r["perfect"], r["oracle"]] + sorted(
        r["base"], key=lambda x: (family(x["policy"]), x["replica_hours"]))
    for x in rows:
        a("| `%s` | %s | %s | %.2f | %.2f | %.1f | %d |" % (
            label(x), pct(x["sla_attainment"]), pct(x["shed_fraction"]),
            x["wait_p50"] or 0, x["wait_p99"] or 0, x["replica_hours"],
            x["scale_events"]))
    a("")


def report(trs, results, sens, plots, wall, nsim):
    L = []
    a = L.append
    a("# Decision quality: staffer against the autoscalers people run")
    a("")
    a("Generated by `make bench` (bench/suite.py) from `build/staffer "
      "simulate`; every number below comes from that run.  Method, the "
      "choice of the defaults and the reading: docs/benchmark.md.")
    a("")
    a("## Setup")
    a("")
    a("- Fleet: %d slots per replica (llama2-70b on H100-80GB, tensor "
      "parallel 4, batch %d: service = prefill(input) + output x %.1f ms, "
      "Splitwise profile); requests shed after 60 s of waiting; a new "
      "replica serves after the cold start (120 or 300 s) and costs from "
      "its creation; scale-down drains.  Gateway: one shared queue in "
      "the headline, per-replica queues with least-loaded routing in the "
      "second table." % (SLOTS, SLOTS, T.TOKEN_MS_16))
    a("- Warm start, the same for every policy: the fleet the first "
      "minute needed at its peak (`--initial-replicas first-minute`); "
      "controllers act from t = 60 s.")
    a("- SLA: a request counts when it starts within %g s of arriving "
      "(shed requests count as misses).  Replica-hours over the trace's "
      "span; the work bound is busy slot-hours / %d, which no policy can "
      "beat." % (SLA, SLOTS))
    a("- Metrics: scrape every 15 s, `rate()` over 60 s (W over 300 s); "
      "KEDA polls every 30 s; HPA sync 15 s, tolerance 0.1.  Baselines "
      "run with KEDA's default HPA behaviour; staffer with the behaviour "
      "it recommends (tolerance 0, no scale-down stabilization).")
    a("- staffer: default metadata only (the simulator supplies the four "
      "signals); `staffer:forecast=perfect` is the same model fed the "
      "true arrival rate ahead (a reference, not a policy); `oracle` "
      "knows every request and starts replicas exactly one cold start "
      "early (zero wait, not fewest hours).")
    a("- Practitioner settings, one per family on every trace: " +
      ", ".join("`%s`" % p for _, p in PRACTICE) + " (a fixed fleet of "
      "the warm start's size).  The frontier sweeps add " +
      ", ".join("`%s`" % p for p in sweep()) + ".  A `(static)` mark: "
      "the setting can never scale up (keda-running with a threshold at "
      "or above slots / (1 + tolerance)).")
    a("- Traces (every one scaled to a mean of about %.0f busy slots, "
      "%.1f replicas of work); `set` says whether the defaults were "
      "chosen on it (train, bench/tune.py) or not (holdout):" %
      (T.TARGET_SLOTS, T.TARGET_SLOTS / SLOTS))
    for t in trs:
        a("  - `%s` (%s): %s; %s." % (t["name"], T.subset(t["name"]),
                                      t["what"], t["scale"]))
    a("- Seed %d; %d simulations, %.0f s of wall time on %d jobs." %
      (SEED, nsim, wall, JOBS))
    a("")
    a("## Targets")
    a("")
    targets(a, results)
    a("## Headline: one shared queue")
    a("")
    a("Each cell: requests started within the SLA in %%, and "
      "replica-hours.  \"On every frontier\": no configuration of any "
      "family at any setting (the sweep included) reaches staffer's "
      "attainment with fewer replica-hours; otherwise the cheapest one "
      "that does.  The last column compares staffer with `%s`." % KEDA)
    a("")
    headline_table(a, results, "main")
    a("## Headline: per-replica queues, least-loaded routing")
    a("")
    a("The same policies (the sweep is not rerun here: the frontier "
      "column compares against the practitioner settings only).")
    a("")
    headline_table(a, results, "ll")
    a("## Sensitivity")
    a("")
    a("- *auto warm start*: every policy starts with enough replicas for "
      "the first cold start (peeks at the future).")
    a("- *4x faster*: a whole ServeGen day compressed into six hours, so "
      "the rate moves four times faster than real against the same cold "
      "start.")
    a("- *cold start told*: at a 300 s cold start, staffer with "
      "`coldStartSeconds: \"300\"` instead of the default 120.")
    a("- *cold start measured*: staffer with `coldStartQuery` (the "
      "simulator answers it with the true cold start, as "
      "kube-state-metrics' ready time less creation time would) and "
      "`coldStartSeconds` at its default.")
    a("")
    sensitivity_table(a, sens)
    a("## Frontiers")
    a("")
    a("Each family is a line through its settings; the filled orange dot "
      "is the practitioner KEDA setting; black square staffer at its "
      "defaults; blue square staffer with a perfect forecast; red star "
      "the oracle; the dashed line the work bound.")
    a("")
    for t in trs:
        a("![%s](%s)" % (t["name"], plots["frontier"][t["name"]]))
        a("")
    a("## Over time (cold start 120 s)")
    a("")
    for t in trs:
        a("![%s](%s)" % (t["name"], plots["ts"][t["name"]]))
        a("")
    a("## Detail")
    a("")
    a("Every configuration of every run with the shared queue; p99 wait "
      "is of started requests.")
    a("")
    for r in results:
        detail(a, r)
    a("## Timings")
    a("")
    a("| trace | cold s | wall s |")
    a("|---|---:|---:|")
    for r in results:
        a("| %s | %d | %.2f |" % (r["trace"], r["cold"], r["seconds"]))
    a("")
    return "\n".join(L)


def main():
    global REUSE
    REUSE = "--reuse" in sys.argv[1:]
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(RES, exist_ok=True)
    t0 = time.time()
    trs = T.suite()
    jobs = []
    for t in trs:
        for c in COLDS:
            jobs.append((t, c, headline() + sweep(), "main", {}))
            jobs.append((t, c, headline(), "ll",
                         {"routing": "least-loaded"}))
            jobs.append((t, c, ["staffer", KEDA], "auto",
                         {"initial": "auto"}))
        jobs.append((t, 300, ["staffer:coldStartSeconds=300", KEDA],
                     "told", {}))
        for c in COLDS:
            jobs.append((t, c, ["staffer:cold=measured", KEDA],
                         "measured", {}))
    for t in T.faster():
        for c in COLDS:
            jobs.append((t, c, headline(), "x4", {}))
    # Longest first, so the two workers finish together.
    jobs.sort(key=lambda j: -len(j[2]) * (4 if j[0]["kind"] == "rates"
                                           else 1))
    print("bench: %d simulations, %d at a time" % (len(jobs), JOBS))
    runs = {}
    with concurrent.futures.ThreadPoolExecutor(JOBS) as ex:
        futs = {ex.submit(simulate, t, c, p, tag, **kw):
                (t["name"], c, tag) for t, c, p, tag, kw in jobs}
        for f in concurrent.futures.as_completed(futs):
            r = f.result()
            runs[futs[f]] = r
            print("bench: %-40s cold %3d %-5s %6.2f s" %
                  (r["trace"], r["cold"], r["tag"], r["seconds"]),
                  flush=True)
    results = [analyse(runs[(t["name"], c, "main")],
                       runs[(t["name"], c, "ll")]) for t in trs
               for c in COLDS]
    sens = []
    for t in trs:
        for c in COLDS:
            sens.append(("auto warm start", runs[(t["name"], c, "auto")]))
    for t in trs:
        sens.append(("cold start told", runs[(t["name"], 300, "told")]))
    for t in trs:
        for c in COLDS:
            sens.append(("cold start measured",
                         runs[(t["name"], c, "measured")]))
    for t in T.faster():
        for c in COLDS:
            sens.append(("4x faster", runs[(t["name"], c, "x4")]))
    for what, r in sens:
        for told in ("staffer:coldStartSeconds=300", "staffer:cold=measured"):
            if told in r["rows"]:
                r["rows"]["staffer"] = r["rows"][told]
    plots = {"frontier": {}, "ts": {}}
    with concurrent.futures.ThreadPoolExecutor(JOBS) as ex:
        fr = {t["name"]: ex.submit(frontier_plot, t["name"],
                                   [r for r in results
                                    if r["trace"] == t["name"]])
              for t in trs}
        ts = {t["name"]: ex.submit(timeseries_plot, t, 120) for t in trs}
        for k in fr:
            plots["frontier"][k] = fr[k].result()
            plots["ts"][k] = ts[k].result()
    wall = time.time() - t0
    md = report(trs, results, sens, plots, wall, len(jobs))
    T.write_result("decision-quality.md", md, "bench", " (%.0f s)" % wall)


if __name__ == "__main__":
    try:
        main()
    except (RuntimeError, OSError) as e:
        print("bench: %s" % e, file=sys.stderr)
        sys.exit(1)
