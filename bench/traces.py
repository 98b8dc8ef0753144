"""bench/traces.py - the traffic `make bench` and bench/tune.py replay.

Every trace is scaled to the same mean offered load (TARGET_SLOTS busy
slots, 12.5 replicas of 16 slots), so that one fleet size and one set of
thresholds fit all of them.  Stdlib only; shared by suite.py and tune.py so
that the defaults are chosen on exactly the traffic the report shows.

The subsets (docs/benchmark.md, "How the defaults were chosen"):
  TRAIN    the traces the default metadata was chosen on (bench/tune.py);
  HOLDOUT  every other trace, never looked at while choosing, among them
           ServeGen days that no part of the suite used before.
"""
import bisect
import csv
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRACES = os.environ.get("TRACES", os.path.join(ROOT, "bench", "traces"))

SLOTS = 16             # slots per replica (batch 16 in the perf model)
TARGET_SLOTS = 200.0   # mean offered load each trace is scaled to
SLICE_S = 14400        # ServeGen: four hours, replayed in real time
DAY_S = 86400

TRAIN = ("azure-conv", "servegen-language_m-large", "synthetic-step",
         "synthetic-onoff")

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


def csv_trace(name, rel, what):
    path = os.path.join(TRACES, rel)
    with open(path) as fp:
        rows = list(csv.reader(fp))[1:]
    span = float(rows[-1][0])
    work = sum(service_s(float(r[1]), float(r[2])) for r in rows)
    load = work / span
    k = max(1, round(TARGET_SLOTS / load))
    return dict(name=name, kind="csv", what=what,
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


def servegen_trace(model, day=0, compress=1.0):
    """A ServeGen model's rates, replayed as a Poisson process whose rate
    runs linearly between the 10-minute windows' midpoints, scaled to
    TARGET_SLOTS.  compress 1: a four-hour slice in real time (the rule
    above); compress > 1: the whole day, time compressed (a sensitivity
    row: traffic that moves that many times faster)."""
    base = os.path.join(TRACES, "servegen", model)
    rates = servegen_rates(model)
    if compress == 1.0:
        start, span = servegen_slice(rates, day), SLICE_S
    else:
        start, span = day * DAY_S, DAY_S
    win = [v for t, v in rates if start <= t < start + span]
    with open(base + "_tokens_6h.csv") as fp:
        toks = [r for r in list(csv.reader(fp))[1:]]
    mid = start + span / 2
    tok = [r for r in toks if float(r[0]) <= mid < float(r[0]) + 21600]
    tok = tok or toks
    tin = sum(float(r[1]) for r in tok) / len(tok)
    tout = sum(float(r[2]) for r in tok) / len(tok)
    w = service_s(tin, tout)
    mean_rate = sum(win) / len(win)
    scale = TARGET_SLOTS / (w * mean_rate)
    name = "servegen-" + model + ("-day%d" % (day + 1) if day else "")
    if compress != 1.0:
        name += "-x%g" % compress
    what = ("ServeGen %s, day %d, %s" %
            (model, day + 1,
             "hours %g-%g in real time" % ((start - day * DAY_S) / 3600,
                                           (start - day * DAY_S + span)
                                           / 3600)
             if compress == 1.0 else "whole day, time compressed x%g" %
             compress))
    return dict(name=name, kind="rates", what=what,
                args=["--rates", base + "_rate_10min.csv",
                      "--rate-start", "%d" % start,
                      "--rate-span", "%d" % span,
                      "--rate-compress", "%g" % compress,
                      "--rate-scale", "%.6g" % scale,
                      "--input-mean", "%.0f" % tin,
                      "--output-mean", "%.0f" % tout],
                scale="Poisson, rate linear between window midpoints, rate "
                      "x%.4g (mean %.1f req/s), tokens lognormal means %.0f "
                      "in / %.0f out" % (scale, mean_rate * scale, tin,
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


SERVEGEN = ("language_m-large", "language_m-mid", "language_m-small",
            "multimodal_mm-image", "reason_deepseek-r1")
SERVEGEN_DAYS = ("language_m-large", "language_m-mid", "language_m-small")


def suite():
    """The traces of the report, training ones first."""
    t = [csv_trace("azure-conv", "azure-llm-2023/conv.csv",
                   "Azure LLM 2023 conversation (real arrivals)"),
         csv_trace("azure-code", "azure-llm-2023/code.csv",
                   "Azure LLM 2023 code (real arrivals)"),
         csv_trace("mooncake", "mooncake-synthetic/synthetic.csv",
                   "Mooncake FAST'25 synthetic (Poisson, long prompts)")]
    t += [servegen_trace(m) for m in SERVEGEN]
    t += [servegen_trace(m, day=7) for m in SERVEGEN_DAYS]
    t += [synth_trace(s) for s in ("poisson", "step", "surge", "diurnal",
                                   "onoff")]
    return t


def faster():
    """ServeGen days compressed x4 (a day in six hours), for the
    sensitivity table."""
    return [servegen_trace(m, compress=4.0) for m in SERVEGEN]


def subset(name):
    return "train" if name in TRAIN else "holdout"
