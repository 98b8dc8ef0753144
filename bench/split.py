#!/usr/bin/env python3
"""bench/split.py - disaggregated fleets: staffer's prefill and decode
pools against a throughput planner and KEDA per pool (docs/pools.md).

Replays the repository's token-bearing traces (Azure LLM 2023 code and
conversation, Mooncake; bench/traces.py) as split fleets through
`build/staffer simulate --split`, at cold starts of 120 and 300 s (each
replica's cold start lognormal around the nominal, CV traces.COLD_CV), and
writes bench/results/split.md.  Every policy of a case starts from the same
warm fleet (what the first minute needed at its peak) on the same requests
and the same pods, and keeps each pool within the same bounds (1 to 100
replicas: KEDA's default maxReplicaCount, applied to the planners too).

  staffer     pool prefill and pool decode at their defaults, told the
              engine's numbers a user knows (bench/split.py's ENGINE);
              and, reported apart and never as staffer's result, its
              prefill pool without the square-root headroom, with the
              SLO feedback on its TTFT misses, and the defaults with
              their instant answers 8.5 s old (ABLATION)
  planner     NVIDIA Dynamo's SLA planner's throughput rule (its
              planner_core.py at ai-dynamo/dynamo b6f3161: no headroom,
              the prefill correction factor only lowers, the ITL
              correction factor divides the ITL target) every 180 s (its
              default adjustment interval), with the `constant`
              predictor; and with a margin (scale 1.1 to 3) as a
              practitioner might add: the sweep that finds its cost at
              staffer's attainment
  llm-d       llm-d's workload variant autoscaler's saturation analyzer
              (V1 at llm-d/llm-d-workload-variant-autoscaler b08b1c7:
              each pod's peak of the last minute, every 30 s, one
              replica at a time; src/sim/splitpol.c)
  keda        a KEDA trigger per pool at the settings practitioners
              write (prefill: waiting requests 5 a replica; decode:
              running at 0.75 x its slots, or KV use 0.8), and swept over
              them (prefill waiting 2 to 20 or waiting + running 2 to 8;
              decode running 32 or 48, KV 0.6 or 0.8), each under KEDA's
              default HPA and under staffer's behaviour (tolerance 0, no
              scale-down window)
  static      the warm fleet, never scaled

Each case is scaled by overlaying shifted copies of its trace (as
bench/traces.py does for the unified suite) until the larger pool needs
TARGET_REPLICAS replicas on average: one rule for every trace, which keeps
the data's own burstiness within each copy.

Held out (SEASONAL): three ServeGen days in real time, their arrivals
drawn as clients' renewals from the 10-minute rates, scaled by the same
rule.  They are not the issue's cases and no default was chosen on them:
they check the defaults on a daily cycle, with a smaller set of baselines
(seasonal_policies()) since a day is up to 16 M requests.

Stdlib only.  Deterministic (fixed seeds).  About seven minutes on 2
cores, nearly all of it the days.

    python3 bench/split.py [--quick]     (--quick: 120 s only)
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

import traces as T

ROOT = T.ROOT
STAFFER = os.path.join(ROOT, "build", "staffer")
OUT = os.path.join(ROOT, "bench", "out")
RES = os.path.join(ROOT, "bench", "results")
JOBS = int(os.environ.get("JOBS", "2"))

COLDS = (120, 300)
PLOT_COLD = 120          # the cold start the cases' plots show
NEED_STEP = 15           # s: the plots' demand, a point per scrape
GOAL = 0.99              # the issue's target, for both TTFT and ITL
SAME = 0.0005            # "the same attainment": within 0.05 points
TARGET_REPLICAS = 10.0   # the larger pool's mean need per case
GPUS = 4                 # llama2-70b at tensor parallel 4: a replica

# The engine (llama2-70b, H100, TP4, the Splitwise profile as perf.c has
# it) and the deployment: what `simulate --split` defaults to.
BUDGET = 8192            # tokens in one prefill batch
SLOTS = 64               # sequences one decode replica runs
KV_TOKENS = 400000       # KV-cache tokens of one decode replica
ITL = 0.04               # the inter-token latency target, s
# token_time by batch (ms): traces.py's up to 16, and 32, 64
TOKEN_MS = dict(T.TOKEN_MS)
TOKEN_MS.update({32: 36.9180, 64: 51.9867})

# The traces, with the TTFT target their users would state: the Azure
# prompts are short (at most 14k tokens, p99 7.4k); Mooncake's are long
# (mean 15k, up to 191k: the p99 prompt alone takes 8 s to prefill, and
# 0.4 % of them take more than 10 s however large the fleet).
CASES = [
    ("azure-code", "azure-llm-2023/code.csv",
     "Azure LLM 2023 code (real arrivals)", 2.0),
    ("azure-conv", "azure-llm-2023/conv.csv",
     "Azure LLM 2023 conversation (real arrivals)", 2.0),
    ("mooncake", "mooncake-synthetic/synthetic.csv",
     "Mooncake FAST'25 (Poisson arrivals, long real prompts)", 10.0),
]


def itl_at(b):
    xs = sorted(TOKEN_MS)
    if b <= xs[0]:
        return TOKEN_MS[xs[0]] / 1000
    i = min(bisect.bisect_left(xs, b), len(xs) - 1)
    x0, x1 = xs[i - 1], xs[i]
    y0, y1 = TOKEN_MS[x0], TOKEN_MS[x1]
    return (y0 + (y1 - y0) * (b - x0) / (x1 - x0)) / 1000


def batch_within(itl):
    b = 1
    while b < SLOTS and itl_at(b + 1) <= itl:
        b += 1
    return b


def case(name, rel, what, ttft):
    """The overlay that gives the larger pool TARGET_REPLICAS replicas of
    mean need, the case's description and its demand over time."""
    path = os.path.join(T.TRACES, rel)
    with open(path) as fp:
        rows = list(csv.reader(fp))[1:]
    span = float(rows[-1][0])
    lam = len(rows) / span
    tin = sum(float(r[1]) for r in rows) / len(rows)
    tout = sum(max(1.0, float(r[2])) for r in rows) / len(rows)
    cap = BUDGET / T.prefill_s(BUDGET)
    prefill = lam * tin / cap
    b = batch_within(ITL)
    seqs = lam * tout * itl_at(b)
    decode = max(seqs / b, seqs * (tin + tout / 2) / KV_TOKENS)
    k = max(1, round(TARGET_REPLICAS / max(prefill, decode)))
    # as the simulator overlays them (split.c): copy i shifted by
    # i * span / k, wrapped
    arr = sorted(((float(r[0]) + i * span / k) % span, float(r[1]))
                 for i in range(k) for r in rows)
    # the replicas each pool's work needs, NEED_STEP s at a time: input
    # tokens over a prefill replica's throughput, and sequences decoding at
    # b* over b* (or the KV cache they hold, when that binds)
    nb = int(span // NEED_STEP) + 1
    tok_in, tok_out = [0.0] * nb, [0.0] * nb
    for i in range(k):
        for r in rows:
            j = int(((float(r[0]) + i * span / k) % span) // NEED_STEP)
            tok_in[j] += float(r[1])
            tok_out[j] += max(1.0, float(r[2]))
    need, wc = [], work_cap(tin)
    for j in range(nb):
        sq = tok_out[j] / NEED_STEP * itl_at(b)
        need.append(((j + 0.5) * NEED_STEP, tok_in[j] / NEED_STEP / wc,
                     max(sq / b, sq * (tin + tout / 2) / KV_TOKENS)))
    ids = ", ".join("%.1f / %.1f at %d s" % (dispersion(arr, span, w, tin) +
                                             (w,)) for w in DISPERSION_S)
    return dict(name=name, path=path, what=what, ttft=ttft, overlay=k,
                args=["--trace", path, "--overlay", str(k)],
                need=need, told=told(tin), held_out=False,
                scale="%d shifted copies (copy i by i x span / %d) of a "
                      "%.0f-s trace: %.1f req/s, %.0f input and %.0f output "
                      "tokens a request; mean need %.1f prefill (%s) and "
                      "%.1f decode replicas; index of dispersion of "
                      "arrivals / of input tokens (in mean prompts) %s" % (
                          k, k, span, lam * k, tin, tout,
                          lam * k * tin / wc, need_how(prefill * k),
                          decode * k, ids))


def work_cap(tin):
    """A prefill replica's tokens/s for the work the plots and the mean
    need show: full batches of the mean prompt, the fastest the
    simulator's replicas run them (traces.prefill_batch_tps()), so the
    work is the fewest replicas it can take.  Not the scaling rule's, the
    batch budget's one prompt (BUDGET / prefill_s(BUDGET), what staffer
    is told), which stays so that the cases do not move: that one put the
    work 14-17 % high on the Azure prompts and 16-19 % on ServeGen's."""
    return T.prefill_batch_tps(tin, BUDGET)


def need_how(at_budget):
    return "in full batches of the mean prompt; %.1f at one prompt of " \
        "the batch budget's throughput, what staffer is told" % at_budget


# The windows the index of dispersion is shown at: the TTFT target's scale,
# the scrape interval, staffer's rate window.
DISPERSION_S = (1, 15, 60)


def dispersion(arr, span, w, tin):
    """Index of dispersion (variance / mean) of the arrivals counted over
    windows of w seconds, and of their input tokens in units of the mean
    prompt: 1 and 1 + cv^2 of the prompts for Poisson arrivals; more for
    bursts (docs/pools.md)."""
    nb = int(span // w)
    c, tok = [0] * nb, [0.0] * nb
    for t, x in arr:
        b = int(t // w)
        if b < nb:
            c[b] += 1
            tok[b] += x / tin
    mc, mt = sum(c) / nb, sum(tok) / nb
    vc = sum((x - mc) ** 2 for x in c) / nb
    vt = sum((x - mt) ** 2 for x in tok) / nb
    return vc / mc, vt / mt


# The held-out check: ServeGen days in real time, each a daily cycle of
# clients' renewals (bench/traces.py's ServeGen cases, their arrivals as
# `staffer simulate --rates --arrivals clients` draws them, tokens
# lognormal around the day's means).  Not the issue's cases and never
# used to choose a default: traffic the defaults were not chosen on.  The
# language model's day is the first of the week the unified suite holds
# out (days 8 to 14); the multimodal and reasoning models have one day.
SEASONAL = [
    ("servegen-mm-image-day1", "multimodal_mm-image", 0,
     "ServeGen multimodal mm-image, day 1 in real time"),
    ("servegen-deepseek-r1-day1", "reason_deepseek-r1", 0,
     "ServeGen reason deepseek-r1 (long outputs), day 1 in real time"),
    ("servegen-language-mid-day8", "language_m-mid", T.WEEK_S,
     "ServeGen language m-mid, day 8 in real time"),
]
SEASONAL_TTFT = 2.0      # short prompts, as the Azure cases


def seasonal_case(name, model, start, what):
    """A ServeGen day scaled (--rate-scale) so that its larger pool needs
    TARGET_REPLICAS replicas on average, the rule case() applies."""
    rates = T.servegen_rates(model)
    win = [(t, v) for t, v in rates if start <= t < start + T.DAY_S]
    tin, tout = T.servegen_tokens(model, start, T.DAY_S)
    mean_rate = sum(v for _, v in win) / len(win)
    cap = BUDGET / T.prefill_s(BUDGET)
    b = batch_within(ITL)
    per_req_p = tin / cap
    per_req_d = max(tout * itl_at(b) / b,
                    tout * itl_at(b) * (tin + tout / 2) / KV_TOKENS)
    lam = TARGET_REPLICAS / max(per_req_p, per_req_d)
    k = lam / mean_rate
    path = os.path.join(T.TRACES, "servegen", model + "_rate_10min.csv")
    per_req_w = tin / work_cap(tin)
    need = [(t - start + 300, v * k * per_req_w, v * k * per_req_d)
            for t, v in win]
    return dict(name=name, path=path, what=what, ttft=SEASONAL_TTFT,
                overlay=1, held_out=True,
                args=["--rates", path, "--arrivals", "clients",
                      "--rate-compress", "1", "--rate-start", "%d" % start,
                      "--rate-span", "%d" % T.DAY_S,
                      "--rate-scale", "%.6g" % k,
                      "--input-mean", "%.0f" % tin,
                      "--output-mean", "%.0f" % tout],
                need=need, need_step=600, told=told(tin),
                scale="clients' renewals (each 10-minute window's CV, the "
                      "largest client at its share), rate x%.4g: %.1f req/s "
                      "on average (%.1f M requests), tokens lognormal around "
                      "%.0f input and %.0f output; mean need %.1f prefill "
                      "(%s) and %.1f decode replicas; the 10-minute rate "
                      "from %.0f %% to %.0f %% of its mean" % (
                          k, lam, lam * T.DAY_S / 1e6, tin, tout,
                          lam * per_req_w, need_how(lam * per_req_p),
                          lam * per_req_d,
                          100 * min(v for _, v in win) / mean_rate,
                          100 * max(v for _, v in win) / mean_rate))


# The margins a practitioner might put on the planner's answer.
PLANNER_SCALES = (1.1, 1.25, 1.5, 2, 3)

KEDA_PREFILL = [("queue", q) for q in (2, 5, 10, 20)] + \
    [("sum", q) for q in (2, 4, 8)]
KEDA_DECODE = [("running", SLOTS * 0.5), ("running", SLOTS * 0.75),
               ("kv", 0.6), ("kv", 0.8)]
KEDA_BEHAVIOR = ("default", "staffer")


def keda(p, pt, d, dt, b):
    return ("keda:prefill=%s,prefillThreshold=%g,decode=%s,"
            "decodeThreshold=%g,behavior=%s" % (p, pt, d, dt, b))


# What staffer's prefill headroom is made of: the prefill pool without its
# square-root headroom (staffing none), so that only the TTFT target's
# Erlang C sizes it, with the peakedness it reads capped at the default 3
# and higher; and the SLO feedback on the TTFT's misses (slaMissQuery on
# the prefill trigger, as an engine's TTFT histogram gives them), with
# the square root and instead of it.  Not staffer's defaults: shown to say
# why they are what they are (docs/pools.md), never counted as staffer's
# result.
BEFORE_RULES = "staffer:prefillZ=read,prefillErlang=whole,prefillPrior=hold"
# The TTFT floor's Erlang C on the arrivals' z alone, as before it took
# the prompt tokens' (docs/math.md): shown from an empty Prometheus and
# in steady operation, where the rule matters.
TOKEN_Z_OFF = "staffer:prefillTokenZ=arrivals"
ABLATION = [
    ("staffer:prefill.staffing=none",
     "the TTFT target's Erlang C alone (z at most 3, the default)"),
    ("staffer:prefill.staffing=none,prefill.peakednessMax=8",
     "the same, z at most 8"),
    ("staffer:prefill.staffing=none,prefill.peakednessMax=32",
     "the same, z at most 32"),
    # the default's square root of z - 1 at the ceiling other pools have
    ("staffer:prefill.peakednessMax=2", "the defaults, z at most 2"),
    ("staffer:prefill.slaMissQuery=ttft",
     "the defaults and the TTFT's misses as slaMissQuery"),
    ("staffer:prefill.slaMissQuery=ttft,prefill.staffing=none",
     "the TTFT's misses instead of the square root"),
    # the prefill pool's two rules against noise and its rule on the
    # prior's answers, each switched off (keys of the simulator's staffer
    # policy, never metadata), and all three: the defaults before them
    ("staffer:prefillZ=read", "the defaults, z as read (not its low end)"),
    ("staffer:prefillErlang=whole", "the defaults, Erlang C's whole c"),
    ("staffer:prefillPrior=hold", "the defaults, the prior's answers held"),
    (TOKEN_Z_OFF, "the defaults, the TTFT's Erlang C on the arrivals' z "
     "alone (not the prompt tokens')"),
    (BEFORE_RULES, "the defaults, all three off"),
    # not a part of the default: the simulator's kindness measured, the
    # server's cached instant answers (sim/policy.h, docs/benchmark.md)
    ("staffer:age=8.5", "the defaults, answers 8.5 s old"),
]


# staffer told the prefill capacity the planner reads: the profile's
# throughput at the case's mean prompt, one prompt alone (its
# prefillTokensPerSecond is otherwise that of one prompt of the batch
# budget, BUDGET tokens: 8,684 tokens/s).  Shown beside the defaults: the
# verdict's sensitivity to what the user tells staffer.
TOLD = "told the planner's capacity (the profile at the mean prompt)"


def told(tin):
    return "staffer:prefill.prefillTokensPerSecond=%d" % int(
        tin / T.prefill_s(tin))


def policies():
    sweep = [keda(p, pt, d, dt, b) for p, pt in KEDA_PREFILL
             for d, dt in KEDA_DECODE for b in KEDA_BEHAVIOR]
    return (["staffer"] + [a for a, _ in ABLATION] + ["planner"] +
            ["planner:scale=%g" % x for x in PLANNER_SCALES] +
            ["llm-d"] + sweep + ["static"])


def seasonal_policies():
    """A day is 0.5 to 16 M requests: the planner's sweep, llm-d, KEDA at
    the practitioners' settings and at the sweep's best on the traces
    above (waiting + running 2 a replica, running 32), and the warm fleet,
    not the whole KEDA sweep; and staffer without its prefill pool's rules
    against noise and on the prior, to check them on days they were not
    chosen on."""
    return (["staffer", BEFORE_RULES, "planner"] +
            ["planner:scale=%g" % x for x in PLANNER_SCALES] +
            ["llm-d"] +
            [keda("queue", 5, "running", SLOTS * 0.75, b)
             for b in KEDA_BEHAVIOR] +
            [keda("queue", 5, "kv", 0.8, b) for b in KEDA_BEHAVIOR] +
            [keda("sum", 2, "running", SLOTS * 0.5, "default"), "static",
             BOUND])


# The settings practitioners write, each KEDA one under KEDA's default HPA
# and under staffer's behaviour (the better of the two is reported).
PRACTICE = {
    "planner": ["planner"],
    "keda (queue 5, running 48)":
        [keda("queue", 5, "running", 48, b) for b in KEDA_BEHAVIOR],
    "keda (queue 5, KV 0.8)":
        [keda("queue", 5, "kv", 0.8, b) for b in KEDA_BEHAVIOR],
    "llm-d": ["llm-d"],
    "static": ["static"],
}


def better(rows, names):
    """Of these runs, the one with the higher attainment (the lower of its
    TTFT and ITL attainments), the cheaper at a tie."""
    rs = [rows[n] for n in names]
    return max(rs, key=lambda r: (min(r["ttft_attainment"],
                                      r["itl_attainment"]), -hours(r)))


def sim_cmd(c, cold, seed=1):
    return [STAFFER, "simulate", "--split"] + c["args"] + [
            "--cold-start", str(cold), "--cold-seed", str(seed),
            "--cold-start-cv", str(T.COLD_CV), "--ttft", str(c["ttft"]),
            "--itl", str(ITL), "--prefill-budget", str(BUDGET),
            "--decode-slots", str(SLOTS), "--kv-tokens", str(KV_TOKENS),
            "--json"]


def run(c, cold, seed=1, verdict_only=False, repeat=1, extra=()):
    """Every policy of case c at cold start cold on draw seed of the cold
    starts; verdict_only: staffer's defaults and the baselines only, and
    the policies in extra; repeat: the replay that many times over, the
    last copy counted."""
    cmd = sim_cmd(c, cold, seed)
    if repeat > 1:
        cmd += ["--repeat", str(repeat)]
    pols = seasonal_policies() if c["held_out"] else \
        policies() + [c["told"], BOUND]
    if verdict_only:
        pols = [p for p in pols if not p.startswith("staffer:") or
                p == BOUND] + list(extra)
    for p in pols:
        cmd += ["--policy", p]
    t0 = time.time()
    out = subprocess.run(cmd, check=True, capture_output=True,
                         text=True).stdout
    rows = [json.loads(l) for l in out.splitlines() if l.strip()]
    return dict(case=c, cold=cold, seed=seed,
                rows={r["policy"]: r for r in rows},
                seconds=time.time() - t0)


# Every policy starts from the same warm fleet, what the first minute
# needed.  On bursty traffic at a long cold start the minutes before the
# first new replica arrives decide much of the attainment, whatever the
# policy: so each case is also run from a warmer start, WARM x each pool's
# first-minute replicas, for staffer and the planner's sweep.  Never the
# verdict; it shows how much of it the start decides.
WARM = 1.25

# What the start allows: every pool asks for its maxReplicaCount (the
# simulator's default, 100, every policy's) at KEDA's first poll, the
# first call any KEDA-driven policy gets (after the first full rate
# window).  Each of its pods is created no later than the same pod of
# any such policy, with the same cold-start draw, so at every instant it
# has at least as many replicas ready: what it misses, mostly in the
# minutes before any new replica can arrive, no KEDA-driven policy
# (staffer included) can be expected to catch.  A bound, not a baseline:
# never in a verdict.  The planner's first call (180 s) comes later, but
# llm-d's (30 s) earlier, so it bounds neither exactly.
BOUND = "staffer:minReplicaCount=100"

# Every run above starts with an empty Prometheus, as a new deployment
# does: staffer's prefill pool assumes bursty traffic until its series
# measures z, and its hold has nothing to release on.  In steady operation
# every policy has history: each case is also replayed twice over
# (--repeat 2), the second copy counted, staffer's defaults and every
# baseline, draw 1.  The same verdict; which of the two a reader meets
# depends on whether the model is new.
STEADY = 2

# Each pod's cold start is a lognormal draw (--cold-seed), the same for
# every policy of a run.  The verdict is one draw; the issue's cases are
# also run on DRAWS - 1 more, every policy on each, to show whether a
# verdict holds across draws or rests on one (a margin of 0.3 % can).
DRAWS = 8


def warm_run(res):
    c, cold = res["case"], res["cold"]
    s = res["rows"]["staffer"]
    init = "%d,%d" % (math.ceil(WARM * s["initial_prefill"]),
                      math.ceil(WARM * s["initial_decode"]))
    cmd = sim_cmd(c, cold) + ["--initial-replicas", init]
    for p in ["staffer"] + ["planner:scale=%g" % x
                            for x in (1,) + PLANNER_SCALES]:
        cmd += ["--policy", p]
    out = subprocess.run(cmd, check=True, capture_output=True,
                         text=True).stdout
    rows = [json.loads(l) for l in out.splitlines() if l.strip()]
    return dict(init=init, rows={r["policy"]: r for r in rows})


# When the late first tokens come: staffer's and the start's bound's, per
# minute of the replay for the first LATE_MINUTES (then the rest), from
# the simulator's --timeseries (late first tokens and shed prompts per
# 15 s, counted when the first token comes or the prompt is shed), draw 1.
LATE_MINUTES = 10


def late_run(res):
    """staffer's and the bound's late first tokens in res's case, per
    minute (LATE_MINUTES of them, then the rest)."""
    c, cold = res["case"], res["cold"]
    os.makedirs(OUT, exist_ok=True)
    csvp = os.path.join(OUT, "split-late-%s-c%d.csv" % (c["name"], cold))
    cmd = sim_cmd(c, cold) + ["--timeseries", csvp, "--policy", "staffer",
                              "--policy", BOUND]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    late = {p: [0] * (LATE_MINUTES + 1) for p in ("staffer", BOUND)}
    with open(csvp) as fp:
        for r in csv.DictReader(fp):
            m = min(int(float(r["t"]) // 60), LATE_MINUTES)
            late[r["policy"]][m] += int(r["ttft_missed"])
    return late


def hours(r):
    return GPUS * r["replica_hours"]


def pct(x):
    return "%.2f" % (100 * x)


def cell(r):
    """TTFT% / ITL% / GPU-h of run r."""
    return "%s / %s / %.1f" % (pct(r["ttft_attainment"]),
                               pct(r["itl_attainment"]), hours(r))


def at_same(rows, fam, s):
    """The cheapest run of family fam at staffer's attainment or better
    (both TTFT and ITL, within SAME), or None."""
    best = None
    for name, r in rows.items():
        if name.split(":")[0] != fam:
            continue
        if r["ttft_attainment"] + SAME < s["ttft_attainment"] or \
                r["itl_attainment"] + SAME < s["itl_attainment"]:
            continue
        if best is None or hours(r) < hours(best):
            best = r
    return best


def at_goal(rows):
    """The cheapest baseline run (any family but staffer) with >= GOAL of
    both TTFT and ITL, or None."""
    best = None
    for name, r in rows.items():
        if name.split(":")[0] == "staffer":
            continue
        if r["ttft_attainment"] < GOAL or r["itl_attainment"] < GOAL:
            continue
        if best is None or hours(r) < hours(best):
            best = r
    return best


# ---- plots ---------------------------------------------------------------

PLOT_COLORS = ("#000000", "#ff7f0e", "#1f77b4")


def plotted(rows):
    """The policies a case's plot shows: staffer, the planner as
    practitioners run it, and the cheapest baseline at >= 99 % of both
    (else the planner at staffer's attainment), each once."""
    pols = ["staffer", "planner"]
    x = at_goal(rows) or at_same(rows, "planner", rows["staffer"])
    if x and x["policy"] not in pols:
        pols.append(x["policy"])
    return pols


def timeseries_plot(res):
    """Each pool's replicas ready over time and the first tokens late, for
    plotted()'s policies, re-run with --timeseries (a policy's run does not
    depend on the others'), under the replicas the work needs."""
    c, cold = res["case"], res["cold"]
    pols = plotted(res["rows"])
    base = "split-%s-c%d" % (c["name"], cold)
    os.makedirs(OUT, exist_ok=True)
    csvp = os.path.join(OUT, base + ".csv")
    day = c["held_out"]
    cmd = sim_cmd(c, cold) + ["--timeseries", csvp]
    if day:
        cmd += ["--ts-step", "300"]
    for p in pols:
        cmd += ["--policy", p]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    rows = {p: [] for p in pols}
    with open(csvp) as fp:
        for r in csv.DictReader(fp):
            rows[r["policy"]].append(r)
    dat = os.path.join(OUT, base + ".dat")
    unit = 3600 if day else 60
    with open(dat, "w") as fp:
        for p in pols:
            for r in rows[p]:
                fp.write("%.3f %s %s %s\n" % (
                    float(r["t"]) / unit, r["prefill_ready"],
                    r["decode_ready"], r["ttft_missed"]))
            fp.write("\n\n")
        for t, pn, dn in c["need"]:
            fp.write("%.3f %.3f %.3f\n" % (t / unit, pn, dn))
    work = "the work, in replicas (%s; prefill in full batches)" % (
        "10-minute mean" if day else "%d s" % NEED_STEP)
    late = "late first tokens / %s" % ("5 min" if day else "15 s")
    png = os.path.join(RES, base + ".png")
    q = T.gp_quote
    need = len(pols)

    def lines(col):
        return ", ".join(
            "%s index %d using 1:%d with steps lw 1.6 lc rgb %s title %s" % (
                q(dat), i, col, q(PLOT_COLORS[i]),
                q("%s: %.1f GPU-h" % (p, hours(res["rows"][p]))))
            for i, p in enumerate(pols))

    T.gnuplot("\n".join([
        "set terminal pngcairo size 1400,900 font ',11'",
        "set termoption noenhanced", "set output " + q(png),
        "set multiplot layout 3,1 title %s" % q(
            "%s, cold start %d s: each pool's replicas ready, and the "
            "first tokens later than %g s" % (c["name"], cold, c["ttft"])),
        "set grid", "set key outside right top font ',9'",
        "set offsets 0, 0, graph 0.05, 0",
        "set lmargin 10", "set yrange [0:*]",
        "set ylabel 'prefill replicas'",
        "plot %s index %d using 1:2 with lines lw 1 lc rgb '#a0a0a0' "
        "title %s, %s" % (q(dat), need, q(work), lines(2)),
        "set ylabel 'decode replicas'",
        "plot %s index %d using 1:3 with lines lw 1 lc rgb '#a0a0a0' "
        "title %s, %s" % (q(dat), need, q(work), lines(3)),
        "set ylabel %s" % q(late),
        "set xlabel %s" % q("hours" if day else "minutes"),
        "plot " + lines(4),
        "unset multiplot"]) + "\n")
    return os.path.basename(png)


def verdict(rows):
    """The issue's target on one run of a case: goal (staffer at >= GOAL
    of both), sp and sk (the planner's and KEDA's cheapest runs at
    staffer's attainment, or None), sg (the cheapest baseline run at
    >= GOAL of both, or None), cheaper (staffer below all three), met
    (goal and cheaper), letter (goal and below sp and sk)."""
    s = rows["staffer"]
    sp = at_same(rows, "planner", s)
    sk = at_same(rows, "keda", s)
    sg = at_goal(rows)
    goal = s["ttft_attainment"] >= GOAL and s["itl_attainment"] >= GOAL
    below = [x is None or hours(s) < hours(x) for x in (sp, sk, sg)]
    return dict(goal=goal, sp=sp, sk=sk, sg=sg, cheaper=all(below),
                met=goal and all(below), letter=goal and all(below[:2]))


def named(r):
    """A run's GPU-h and its policy, "-" for none."""
    return "%.1f (`%s`)" % (hours(r), r["policy"]) if r else "-"


def summary(w, results):
    """The summary table of these results and the verdicts under it;
    returns (cases met, met by the letter)."""
    w("| case | cold start | staffer TTFT% | ITL% | GPU-h | planner "
      "(practice) TTFT% / ITL% / GPU-h | planner at staffer's attainment "
      "GPU-h | KEDA (practice: queue 5, running 48) TTFT% / ITL% / GPU-h "
      "| KEDA at staffer's attainment GPU-h | cheapest baseline at >= 99 % "
      "TTFT and ITL GPU-h | target met |")
    w("|---|---:|---:|---:|---:|---|---:|---|---:|---:|---|")
    verdicts = []
    for res in results:
        rows = res["rows"]
        s = rows["staffer"]
        pl = rows["planner"]
        kd = better(rows, PRACTICE["keda (queue 5, running 48)"])
        v = verdict(rows)
        met, goal, sp, sk, sg = v["met"], v["goal"], v["sp"], v["sk"], \
            v["sg"]
        verdicts.append((res, met, goal, v["cheaper"], sp, sk, sg))
        w("| %s | %d s | %s | %s | %.1f | %s / %s / %.1f | %s | %s / %s / "
          "%.1f | %s | %s | %s |" % (
              res["case"]["name"], res["cold"], pct(s["ttft_attainment"]),
              pct(s["itl_attainment"]), hours(s),
              pct(pl["ttft_attainment"]), pct(pl["itl_attainment"]),
              hours(pl), named(sp), pct(kd["ttft_attainment"]),
              pct(kd["itl_attainment"]), hours(kd), named(sk), named(sg),
              "yes" if met else "no: " + (
                  "attainment below 99 %" if not goal else
                  "a baseline is cheaper at that attainment")))
    w("")
    met = sum(1 for v in verdicts if v[1])
    w("The target (>= 99 %% of requests within the TTFT target and >= 99 %% "
      "of tokens within the ITL target, at fewer GPU-hours than the "
      "planner and KEDA at the same attainment, and than any baseline run "
      "that reaches 99 %% of both) is met in %d of %d cases."
      % (met, len(verdicts)))
    letter = sum(1 for v in verdicts if verdict(v[0]["rows"])["letter"])
    w("By the issue's letter alone (cheaper than the planner and KEDA at "
      "staffer's attainment, whatever else reaches 99 %%) it is met in %d "
      "of %d." % (letter, len(verdicts)))
    miss = [v for v in verdicts if not v[1]]
    for res, _, goal, cheaper, sp, sk, sg in miss:
        s = res["rows"]["staffer"]
        why = []
        if not goal:
            why.append("staffer reaches %s %% TTFT and %s %% ITL" % (
                pct(s["ttft_attainment"]), pct(s["itl_attainment"])))
            b = res["rows"].get(BOUND)
            if b:
                why.append("no KEDA-driven policy can be expected to "
                           "reach more than %s %% and %s %% (the start's "
                           "bound: every pool at 100 replicas from the "
                           "first poll)" % (
                               pct(b["ttft_attainment"]),
                               pct(b["itl_attainment"])))
        if not cheaper:
            for fam, x in (("planner", sp), ("KEDA", sk),
                           ("a baseline at >= 99 % / 99 %", sg)):
                if x and hours(x) <= hours(s):
                    why.append("%s `%s` reaches it with %.1f GPU-h, staffer "
                               "%.1f" % (fam, x["policy"], hours(x),
                                         hours(s)))
        w("- %s at %d s: %s." % (res["case"]["name"], res["cold"],
                                  "; ".join(why)))
    w("")
    return met, letter


def spread(xs, fmt="%.1f"):
    lo, hi = min(xs), max(xs)
    return fmt % lo if fmt % lo == fmt % hi else \
        (fmt + " to " + fmt) % (lo, hi)


def draws_section(w, issue):
    """The issue's cases over DRAWS draws of the cold starts: how often
    the verdict holds, and the spread of staffer's and its rivals'
    numbers."""
    w("## The cold starts' draws\n")
    w("Each pod's cold start is a lognormal draw around the nominal, the "
      "same draws for every policy of a run; the verdict above is draw 1 "
      "(`--cold-seed 1`).  The issue's cases again on draws 1 to %d, every "
      "policy on each: how often the target is met, strictly and by the "
      "letter, and the spread of staffer's numbers and of the cheapest "
      "planner or KEDA run at its attainment (\"rival\"; \"-\" in a draw "
      "where none reaches it).  \"staffer cheaper\" counts the draws "
      "where staffer costs less than that rival, or has none.  \"The "
      "start's bound\" is the TTFT%% of every pool at 100 replicas from "
      "KEDA's first poll: at every instant at least the replicas of any "
      "KEDA-driven policy, so more than any of them can be expected to "
      "reach from this start (docs/pools.md).\n" % DRAWS)
    w("| case | cold start | draws at >= 99 % / 99 % | met | met by the "
      "letter | staffer TTFT% | the start's bound TTFT% | staffer GPU-h | "
      "rival GPU-h | staffer cheaper | cheapest baseline at >= 99 % / 99 % "
      "GPU-h |")
    w("|---|---:|---:|---:|---:|---|---|---|---|---:|---|")
    for res in issue:
        runs = res["draws"]
        vs = [verdict(r) for r in runs]
        st = [r["staffer"] for r in runs]
        riv = [min([hours(x) for x in (v["sp"], v["sk"]) if x] or
                   [float("inf")]) for v in vs]
        have = [x for x in riv if x != float("inf")]
        gs = [hours(v["sg"]) for v in vs if v["sg"]]
        w("| %s | %d s | %d of %d | %d | %d | %s | %s | %s | %s%s | %d | "
          "%s |" % (
            res["case"]["name"], res["cold"],
            sum(v["goal"] for v in vs), len(vs),
            sum(v["met"] for v in vs), sum(v["letter"] for v in vs),
            spread([100 * r["ttft_attainment"] for r in st], "%.2f"),
            spread([100 * r[BOUND]["ttft_attainment"] for r in runs],
                   "%.2f"),
            spread([hours(r) for r in st]),
            spread(have) if have else "-",
            "" if len(have) == len(vs) else " (%d of %d)" % (len(have),
                                                             len(vs)),
            sum(hours(r) < x for r, x in zip(st, riv)),
            "%s (%d of %d)" % (spread(gs), len(gs), len(vs)) if gs else "-"))
    w("")


def late_section(w, issue):
    w("## When the late first tokens come\n")
    w("staffer's late first tokens (and shed prompts) by minute of the "
      "replay, and the start's bound's (every pool at 100 replicas from "
      "KEDA's first poll, after the first full rate window), draw 1: "
      "what falls before any replica asked for can be ready is the "
      "start's, not a steady state.  The count is taken when the first "
      "token comes or the prompt is shed.\n")
    heads = ["%d-%d" % (m, m + 1) for m in range(LATE_MINUTES)] + \
        [">= %d" % LATE_MINUTES]
    w("| case | cold start | policy | late | %s |" % " | ".join(
        "min %s" % h for h in heads))
    w("|---|---:|---|---:|%s" % ("---:|" * len(heads)))
    for res in issue:
        for p in ("staffer", BOUND):
            v = res["late"][p]
            w("| %s | %d s | `%s` | %d | %s |" % (
                res["case"]["name"], res["cold"], p, sum(v),
                " | ".join(str(x) for x in v)))
    w("")


def one_setting(w, issue, steady=False):
    """Each setting held fixed over every issue case and cold start: in how
    many it reaches GOAL of both, its lowest attainments and its GPU-h
    summed.  staffer, the planner at each margin, llm-d, the warm fleet,
    and of KEDA's sweep the setting at GOAL in the most runs (at a tie,
    the higher lowest attainment, then the cheaper)."""
    def row(name):
        rs = [res["rows"][name] for res in issue]
        at = sum(1 for r in rs if r["ttft_attainment"] >= GOAL and
                 r["itl_attainment"] >= GOAL)
        return (name, at, min(r["ttft_attainment"] for r in rs),
                min(r["itl_attainment"] for r in rs),
                sum(hours(r) for r in rs))
    names = list(issue[0]["rows"])
    fixed = ["staffer", "planner"] + \
        ["planner:scale=%g" % x for x in PLANNER_SCALES] + ["llm-d", "static"]
    kd = [row(n) for n in names if n.split(":")[0] == "keda"]
    colds = sorted({res["cold"] for res in issue})
    best = max(kd, key=lambda t: (t[1], min(t[2], t[3]), -t[4])) \
        if kd else None
    if steady:
        w("The same for one setting held over every case, in steady "
          "operation.\n")
    else:
        w("## One setting for every case\n")
        w("A setting held fixed over all %d runs of the issue's cases "
          "(%s, draw 1, from an empty Prometheus), as a "
          "platform team runs one setting for a fleet of models: in how "
          "many it reaches %d %% of both, its lowest TTFT%% and ITL%% over "
          "them, and its GPU-h summed.  Of KEDA's sweep, the setting at "
          "%d %% in the most runs (at a tie, the one whose lowest "
          "attainment is highest, then the cheapest).  Steady "
          "operation has the same table below.\n" % (
              len(issue), "both cold starts" if len(colds) > 1 else
              "a cold start of %d s" % colds[0], 100 * GOAL, 100 * GOAL))
    w("| setting | runs at >= 99 %% / 99 %% (of %d) | lowest TTFT%% | "
      "lowest ITL%% | GPU-h, all runs |" % len(issue))
    w("|---|---:|---:|---:|---:|")
    for t in [row(n) for n in fixed] + ([best] if best else []):
        w("| `%s` | %d | %s | %s | %.1f |" % (t[0], t[1], pct(t[2]),
                                              pct(t[3]), t[4]))
    w("")


def report(results, elapsed):
    L = []
    w = L.append
    w("# Disaggregated fleets: prefill and decode pools\n")
    w("Generated by `bench/split.py` (`make bench-split`, %.0f s on this "
      "machine); docs/pools.md explains the world, the policies and the "
      "numbers.  GPU-hours are replica-hours x %d (llama2-70b at tensor "
      "parallel %d, the Splitwise profile).  TTFT%% is the share of "
      "requests whose first token came within the case's TTFT target "
      "(shed requests miss); ITL%% the share of tokens after each "
      "sequence's first that came within %g s of the one before.  "
      "\"At staffer's attainment\" is a family's cheapest setting of its "
      "sweep that reaches staffer's TTFT%% and ITL%% (within %.2f points); "
      "\"-\" when none does.\n" % (elapsed, GPUS, GPUS, ITL, 100 * SAME))
    issue = [r for r in results if not r["case"]["held_out"]]
    held = [r for r in results if r["case"]["held_out"]]
    w("## Summary\n")
    summary(w, issue)
    if issue:
        one_setting(w, issue)
    if issue and "draws" in issue[0]:
        draws_section(w, issue)
    if issue and "steady" in issue[0]:
        w("## Steady operation\n")
        w("The runs above start with an empty Prometheus, as a new "
          "deployment does: until its series measures z, staffer's "
          "prefill pool assumes the ceiling, and its hold has no "
          "evidence to release on.  Here each case is replayed twice "
          "over (`--repeat %d`) and only the second copy counted (its "
          "requests, the replica-hours over it): every policy has the "
          "first copy's history, as in a deployment that has been "
          "running.  Staffer's defaults and every baseline, draw 1; the "
          "same verdict.\n" % STEADY)
        summary(w, [r["steady"] for r in issue])
        one_setting(w, [r["steady"] for r in issue], steady=True)
        w("What the prompt tokens' z buys here: staffer's defaults, and "
          "the same with the TTFT target's Erlang C on the arrivals' z "
          "alone (`%s`, the simulator's ablation; docs/math.md).  TTFT%% "
          "/ ITL%% / GPU-h.\n" % TOKEN_Z_OFF.split(":", 1)[1])
        w("| case | cold start | staffer (defaults) | arrivals' z alone |")
        w("|---|---:|---|---|")
        for r in issue:
            rows = r["steady"]["rows"]
            w("| %s | %d s | %s | %s |" % (
                r["case"]["name"], r["cold"],
                cell(rows["staffer"]), cell(rows[TOKEN_Z_OFF])))
        w("")
    if held:
        w("## Held out: seasonal days\n")
        w("The same verdict on traffic no default was chosen on: a day of "
          "three ServeGen models in real time, with its daily cycle and its "
          "clients' bursts (docs/pools.md).  Not the issue's cases; run "
          "with a smaller set of baselines (the planner's sweep, llm-d, "
          "KEDA at the practitioners' settings and at the sweep's best "
          "setting above, the warm fleet).\n")
        summary(w, held)
    w("## Each family's best run\n")
    w("The run of each family with the highest attainment (the lower of "
      "its TTFT% and ITL%), whatever it costs: how close each comes to "
      "the target.\n")
    w("| case | cold start | staffer | planner | llm-d | KEDA |")
    w("|---|---:|---|---|---|---|")
    for res in results:
        rows = res["rows"]
        cells = []
        for fam in ("staffer", "planner", "llm-d", "keda"):
            names = ["staffer"] if fam == "staffer" else \
                [n for n in rows if n.split(":")[0] == fam]
            b = better(rows, names)
            cells.append(cell(b) + ("" if fam in ("staffer", "llm-d") else
                " (`%s`)" % b["policy"].split(":", 1)[-1]))
        w("| %s | %d s | %s |" % (res["case"]["name"], res["cold"],
                                 " | ".join(cells)))
    w("")
    w("## What the prefill headroom buys\n")
    w("staffer's prefill pool without its square-root headroom "
      "(`prefill.staffing=none`): only the TTFT target's Erlang C sizes "
      "it, on the peakedness z it measures (at the low end of its "
      "standard error, as the defaults take it), capped at the default "
      "`peakednessMax` 3 and above it.  Then the SLO feedback on the "
      "prefill trigger, its `slaMissQuery` reading the share of first "
      "tokens later than the TTFT target and of prompts shed (what an "
      "engine's TTFT histogram gives), with the defaults and instead of "
      "the square root.  Then the prefill pool's two rules against "
      "noise and its rule on the prior's answers switched off, each and "
      "all three (the simulator's "
      "`prefillZ=read`: z as read, not at the low end of its standard "
      "error; `prefillErlang=whole`: the TTFT floor's Erlang C c whole, "
      "not continuous; `prefillPrior=hold`: the answers given before z "
      "was first measured held, though it measured below the prior; "
      "docs/math.md), and the TTFT target's Erlang C on the arrivals' z "
      "alone (`prefillTokenZ=arrivals`, not the prompt tokens' when "
      "higher).  Last, the defaults with their "
      "instant answers "
      "other than the arrival rate 8.5 s old, as the server's answer "
      "cache serves them on average (the other columns read them fresh); "
      "and the defaults told the prefill capacity the planner reads, its "
      "profile's throughput at the case's mean prompt (the policy "
      "`staffer:prefill.prefillTokensPerSecond=N` in each case's table "
      "below), instead of that of one prompt of the batch budget.  "
      "These are not staffer's defaults "
      "and are never counted as its result; they show what each part of "
      "the default costs and buys.  Each cell: TTFT% / ITL% / GPU-h.\n")
    w("| case | cold start | staffer (defaults) | %s | %s | cheapest "
      "baseline at >= 99 %% / 99 %% |" % (
          " | ".join(d for _, d in ABLATION), TOLD))
    w("|---|---:|---|%s---|---|" % ("---|" * len(ABLATION)))
    for res in issue:
        rows = res["rows"]
        cells = [cell(r)
                 for r in [rows["staffer"]] + [rows[a] for a, _ in ABLATION] +
                 [rows[res["case"]["told"]]]]
        cells.append(named(at_goal(rows)))
        w("| %s | %d s | %s |" % (res["case"]["name"], res["cold"],
                                 " | ".join(cells)))
    w("")
    w("## The warm start\n")
    w("Every run above starts from the same warm fleet, each pool's "
      "replicas for what the first minute needed.  The same cases from "
      "%g x that start (the replicas prefill,decode in the second "
      "column), for staffer and the planner's sweep: how much of the "
      "attainment the first minutes decide, before a replica asked for "
      "can arrive.  Not the verdict.  Each cell: TTFT%% / ITL%% / GPU-h.\n"
      % WARM)
    fams = ["staffer"] + ["planner:scale=%g" % x
                          for x in (1,) + PLANNER_SCALES]
    w("| case | cold start | start | %s |" % " | ".join(
        "`%s`" % f for f in fams))
    w("|---|---:|---|%s" % ("---|" * len(fams)))
    for res in issue:
        wr = res["warm"]
        w("| %s | %d s | %s | %s |" % (
            res["case"]["name"], res["cold"], wr["init"], " | ".join(
                cell(wr["rows"][f]) for f in fams)))
    w("")
    if issue and "late" in issue[0]:
        late_section(w, issue)
    for res in results:
        c = res["case"]
        rows = res["rows"]
        w("## %s, cold start %d s\n" % (c["name"], res["cold"]))
        w("%s; %s.  TTFT target %g s, ITL target %g s.  %.1f s to run.\n"
          % (c["what"], c["scale"], c["ttft"], ITL, res["seconds"]))
        if res.get("plot"):
            w("![%s at %d s over time](%s)\n" % (c["name"], res["cold"],
                                                  res["plot"]))
        w("| policy | TTFT% | ITL% | TTFT p99 s | GPU-h | prefill GPU-h | "
          "decode GPU-h | prefill max | decode max | shed |")
        w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name, r in rows.items():
            w("| `%s` | %s | %s | %.2f | %.1f | %.1f | %.1f | %d | %d | %d |"
              % (name, pct(r["ttft_attainment"]), pct(r["itl_attainment"]),
                 r["ttft_p99"], hours(r), GPUS * r["prefill_replica_hours"],
                 GPUS * r["decode_replica_hours"], r["prefill_peak"],
                 r["decode_peak"], r["shed"]))
        w("")
    return "\n".join(L)


def main():
    if not os.access(STAFFER, os.X_OK):
        sys.exit("bench/split.py: build/staffer missing; run make")
    colds = COLDS[:1] if "--quick" in sys.argv[1:] else COLDS
    cases = [case(*c) for c in CASES] + [seasonal_case(*c)
                                         for c in SEASONAL]
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(JOBS) as ex:
        jobs = [(c, cold) for c in cases for cold in colds]
        # the days first: they take most of the time
        futs = {j: ex.submit(run, *jobs[j]) for j in sorted(
            range(len(jobs)), key=lambda j: not jobs[j][0]["held_out"])}
        results = [futs[j].result() for j in range(len(jobs))]
        issue = [r for r in results if not r["case"]["held_out"]]
        for r, wr in zip(issue, ex.map(warm_run, issue)):
            r["warm"] = wr
        for r, lt in zip(issue, ex.map(late_run, issue)):
            r["late"] = lt
        more = [(r, ex.submit(run, r["case"], r["cold"], seed, True))
                for r in issue for seed in range(2, DRAWS + 1)]
        steady = [(r, ex.submit(run, r["case"], r["cold"], 1, True,
                                STEADY, [TOKEN_Z_OFF])) for r in issue]
        for r in issue:
            r["draws"] = [r["rows"]] + [f.result()["rows"]
                                        for x, f in more if x is r]
        for r, f in steady:
            r["steady"] = f.result()
        shown = [r for r in results if r["cold"] == PLOT_COLD]
        for r, png in zip(shown, ex.map(timeseries_plot, shown)):
            r["plot"] = png
    elapsed = time.time() - t0
    T.write_result("split.md", report(results, elapsed) + "\n",
                   "bench/split.py", " (%.0f s)" % elapsed)


if __name__ == "__main__":
    main()
