"""bench/traces.py - the traffic `make bench` and bench/tune.py replay.

Three kinds of case, each labelled in the reports:
  real       per-request traces with their real arrival times (Azure),
             overlaid to a mean of TARGET_SLOTS busy slots;
  cv-replay  ServeGen's 10-minute rates replayed as the windows' clients,
             each a Gamma renewal process with the window's inter-arrival
             CV, the largest at its share (`--arrivals clients`): whole
             weeks of the three language models in real time, and the
             whole day the other two models have;
  synthetic  shapes (and Mooncake's trace, whose arrivals are Poisson).
Every case runs with cold starts that vary from replica to replica
(lognormal, CV COLD_CV, median the nominal cold start).

Stdlib only; shared by suite.py and tune.py so that the defaults are chosen
on exactly the traffic the report shows.

The subsets (docs/benchmark.md, "How the defaults were chosen"):
  TRAIN    the cases the default metadata was chosen on (bench/tune.py):
           Azure conversation, the step and on/off shapes, and the FIRST
           week (days 1-7) of ServeGen m-large, m-mid and m-small;
  HOLDOUT  every other case, never looked at while choosing: among them
           the SECOND week (days 8-14) of the same three models, which
           the headline reports.
"""
import bisect
import csv
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRACES = os.environ.get("TRACES", os.path.join(ROOT, "bench", "traces"))

SLOTS = 16             # slots per replica (batch 16 in the perf model)
TARGET_SLOTS = 200.0   # mean offered load each trace is scaled to
SLICE_S = 14400        # ServeGen: four hours, replayed in real time
DAY_S = 86400
WEEK_S = 7 * DAY_S
COLD_CV = 0.3          # replicas' cold starts: lognormal, this CV
# A week of ServeGen is sized to WEEK_REPLICAS replicas of mean work, with
# the most slots per replica (of WEEK_SLOTS) that keeps the week within
# WEEK_REQ_MAX requests: the simulator's budget (a week of m-small's
# half-second requests at 16 slots a replica would be 60 million).
WEEK_REPLICAS = 5.0
WEEK_SLOTS = (16, 8, 4, 2)
WEEK_REQ_MAX = 15e6

TRAIN = ("azure-conv", "synthetic-step", "synthetic-onoff",
         "servegen-language_m-large-week1", "servegen-language_m-mid-week1",
         "servegen-language_m-small-week1")

# llama2-70b / h100 / tp4 from the Splitwise profile, as src/sim/perf.c has it
# (used here only to pick scale factors).
PROMPT = [(128, 48.8891), (256, 54.3110), (512, 61.0427), (1024, 106.3140),
          (2048, 200.9289), (4096, 466.3972), (8192, 943.2766)]
TOKEN_MS_16 = 32.8364


def write_result(name, text, who, note=""):
    """Write bench/results/NAME and say so on stdout as WHO."""
    res = os.path.join(ROOT, "bench", "results")
    os.makedirs(res, exist_ok=True)
    path = os.path.join(res, name)
    with open(path, "w") as fp:
        fp.write(text)
    print("%s: wrote %s%s" % (who, os.path.relpath(path, ROOT), note))


def gnuplot(script):
    """Run gnuplot on script; RuntimeError with its stderr if it fails."""
    r = subprocess.run(["gnuplot"], input=script, text=True,
                       capture_output=True)
    if r.returncode != 0:
        raise RuntimeError("gnuplot: " + r.stderr)


def gp_quote(s):
    """s as a gnuplot string literal."""
    return "'" + s.replace("'", "''") + "'"


def prefill_s(tokens):
    xs = [p[0] for p in PROMPT]
    if tokens <= xs[0]:
        return PROMPT[0][1] / 1000
    i = bisect.bisect_left(xs, tokens)
    if i >= len(xs):
        i = len(xs) - 1
    (x0, y0), (x1, y1) = PROMPT[i - 1], PROMPT[i]
    return (y0 + (y1 - y0) * (tokens - x0) / (x1 - x0)) / 1000


def prefill_attn_ms():
    """The quadratic coefficient (ms per token squared) of the
    least-squares fit a + b t + c t^2 to PROMPT, at least 0: the
    attention a prompt's tokens pay to each other, as src/sim/perf.c fits
    it to split a batch's time between its prompts."""
    m = [[0.0] * 4 for _ in range(3)]
    for t, y in PROMPT:
        x = (1.0, t, t * t)
        for j in range(3):
            for k in range(3):
                m[j][k] += x[j] * x[k]
            m[j][3] += x[j] * y
    for i in range(3):
        p = max(range(i, 3), key=lambda r: abs(m[r][i]))
        m[i], m[p] = m[p], m[i]
        for r in range(3):
            if r != i:
                f = m[r][i] / m[i][i]
                for c in range(i, 4):
                    m[r][c] -= f * m[i][c]
    return max(0.0, m[2][3] / m[2][2])


def prefill_batch_tps(tin, budget):
    """Tokens/s of a prefill replica running full batches (budget tokens)
    of prompts of tin tokens, as src/sim/perf.c's perf_prefill_batch_s()
    times a batch: the profile at the batch's tokens less the attention
    between its prompts, never below its longest prompt alone; a prompt
    over the budget runs alone."""
    if tin >= budget:
        return tin / prefill_s(tin)
    s = prefill_s(budget) - prefill_attn_ms() / 1000 * (budget * budget -
                                                        budget * tin)
    return budget / max(s, prefill_s(tin))


# token_time at batch 1-16 for the same model (ms), for the weeks' smaller
# replicas.
TOKEN_MS = {1: 29.4062, 2: 29.9921, 4: 29.9841, 8: 31.4136, 16: TOKEN_MS_16}


def service_s(tin, tout, slots=SLOTS):
    return prefill_s(tin) + tout * TOKEN_MS[slots] / 1000


def csv_trace(name, rel, what, label="real"):
    path = os.path.join(TRACES, rel)
    with open(path) as fp:
        rows = list(csv.reader(fp))[1:]
    span = float(rows[-1][0])
    work = sum(service_s(float(r[1]), float(r[2])) for r in rows)
    load = work / span
    k = max(1, round(TARGET_SLOTS / load))
    return dict(name=name, kind="csv", label=label, slots=SLOTS, what=what,
                args=["--trace", path, "--overlay", str(k)],
                scale="%d shifted copies (overlay %d, copy i shifted by "
                      "i x span / %d), %.0f-s span; %.1f busy slots per "
                      "copy" % (k, k, k, span, load))


def servegen_rates(model):
    """(window_start_s, rate) of a model, collection gaps carried over
    from the window before, as `staffer simulate --rates` reads them."""
    out, prev = [], 0.0
    path = os.path.join(TRACES, "servegen", model + "_rate_10min.csv")
    with open(path) as fp:
        for r in list(csv.reader(fp))[1:]:
            t, v, c = float(r[0]), float(r[1]), float(r[2])
            if v == 0 and c == 0:
                v = prev
            prev = v
            out.append((t, v))
    return out


def servegen_slice(rates, day):
    """The four hours of the day (starting on an hour) in which the rate
    moves most: the largest total variation of the 10-minute rates,
    relative to their mean.  A rule, the same for every model and day, that
    picks the hardest part of a day rather than a quiet one."""
    best = None
    for h in range(0, 24 - SLICE_S // 3600 + 1):
        a = day * DAY_S + h * 3600
        w = [v for t, v in rates if a <= t < a + SLICE_S]
        if len(w) < SLICE_S // 600 - 1:
            continue
        mean = sum(w) / len(w)
        if mean <= 0:
            continue
        tv = sum(abs(w[i] - w[i - 1]) for i in range(1, len(w))) / mean
        if best is None or tv > best[0]:
            best = (tv, a)
    return best[1]


def servegen_tokens(model, start, span):
    """The mean input and output tokens of the 6-hour rows that overlap
    [start, start + span) (all rows when none does)."""
    with open(os.path.join(TRACES, "servegen", model + "_tokens_6h.csv")) \
            as fp:
        toks = [r for r in list(csv.reader(fp))[1:]]
    tok = [r for r in toks if float(r[0]) < start + span and
           float(r[0]) + 21600 > start] or toks
    return (sum(float(r[1]) for r in tok) / len(tok),
            sum(float(r[2]) for r in tok) / len(tok))


def servegen_case(model, start, span, name, what, slots, busy):
    """A ServeGen model's rates over [start, start + span) in real time,
    replayed as its clients (--arrivals clients), scaled to `busy` busy
    slots on replicas of `slots` slots."""
    base = os.path.join(TRACES, "servegen", model)
    rates = servegen_rates(model)
    win = [v for t, v in rates if start <= t < start + span]
    tin, tout = servegen_tokens(model, start, span)
    w = service_s(tin, tout, slots)
    mean_rate = sum(win) / len(win)
    scale = busy / (w * mean_rate)
    return dict(name=name, kind="rates", label="cv-replay", slots=slots,
                what=what,
                args=["--rates", base + "_rate_10min.csv",
                      "--arrivals", "clients",
                      "--rate-start", "%d" % start,
                      "--rate-span", "%d" % span,
                      "--rate-compress", "1",
                      "--rate-scale", "%.6g" % scale,
                      "--input-mean", "%.0f" % tin,
                      "--output-mean", "%.0f" % tout],
                requests=mean_rate * scale * span,
                scale="clients' renewals (window CV, largest client at its "
                      "share), rate x%.4g (mean %.1f req/s, %.1f M "
                      "requests), %d slots a replica, tokens lognormal "
                      "means %.0f in / %.0f out" %
                      (scale, mean_rate * scale,
                       mean_rate * scale * span / 1e6, slots, tin, tout))


def servegen_week(model, week):
    """Days 7 week + 1 to 7 week + 7 of a language model in real time:
    WEEK_REPLICAS replicas of mean work, on the most slots a replica that
    keeps the week within WEEK_REQ_MAX requests."""
    start = week * WEEK_S
    tin, tout = servegen_tokens(model, start, WEEK_S)
    for slots in WEEK_SLOTS:
        busy = WEEK_REPLICAS * slots
        if busy / service_s(tin, tout, slots) * WEEK_S <= WEEK_REQ_MAX:
            break
    return servegen_case(model, start, WEEK_S,
                         "servegen-%s-week%d" % (model, week + 1),
                         "ServeGen %s, days %d-%d in real time" %
                         (model, 7 * week + 1, 7 * week + 7), slots,
                         WEEK_REPLICAS * slots)


def servegen_4h(model, day=0):
    """Four hours of a day in real time (the hours the rate moves most:
    servegen_slice()), at TARGET_SLOTS busy slots: the SLO feedback's
    cases (bench/feedback.py)."""
    start = servegen_slice(servegen_rates(model), day)
    return servegen_case(model, start, SLICE_S,
                         "servegen-%s%s" % (model, "-day%d" % (day + 1)
                                            if day else ""),
                         "ServeGen %s, day %d, hours %g-%g in real time" %
                         (model, day + 1, (start - day * DAY_S) / 3600,
                          (start - day * DAY_S + SLICE_S) / 3600),
                         SLOTS, TARGET_SLOTS)


def servegen_day(model):
    """The one day the multimodal and reasoning models have, in real
    time, at TARGET_SLOTS busy slots."""
    return servegen_case(model, 0, DAY_S, "servegen-%s-day1" % model,
                         "ServeGen %s, day 1 (all of it) in real time" %
                         model, SLOTS, TARGET_SLOTS)


def synth_trace(shape):
    w = service_s(1000, 250)
    rate = TARGET_SLOTS / w
    return dict(name="synthetic-" + shape, kind="shape", label="synthetic",
                slots=SLOTS, what="synthetic %s" % shape,
                args=["--shape", shape, "--rate", "%.4g" % rate,
                      "--duration", "3600"],
                scale="mean %.1f req/s for 3600 s, tokens lognormal means "
                      "1000 in / 250 out" % rate)


SERVEGEN_WEEKS = ("language_m-large", "language_m-mid", "language_m-small")
SERVEGEN_DAYS = ("multimodal_mm-image", "reason_deepseek-r1")


def suite():
    """The cases of the report: the held-out weeks and every other case
    (training cases marked so)."""
    t = [csv_trace("azure-conv", "azure-llm-2023/conv.csv",
                   "Azure LLM 2023 conversation (real arrivals)"),
         csv_trace("azure-code", "azure-llm-2023/code.csv",
                   "Azure LLM 2023 code (real arrivals)"),
         csv_trace("mooncake", "mooncake-synthetic/synthetic.csv",
                   "Mooncake FAST'25 synthetic (Poisson arrivals, real "
                   "long prompts)", label="synthetic")]
    t += [servegen_week(m, 1) for m in SERVEGEN_WEEKS]
    t += [servegen_day(m) for m in SERVEGEN_DAYS]
    t += [synth_trace(s) for s in ("poisson", "step", "surge", "diurnal",
                                   "onoff")]
    return t


def train():
    """The cases the defaults are chosen on (bench/tune.py)."""
    t = [c for c in suite() if c["name"] in TRAIN]
    return t + [servegen_week(m, 0) for m in SERVEGEN_WEEKS]


def subset(name):
    return "train" if name in TRAIN else "holdout"
