#!/usr/bin/python3
"""docs/cookbook.md, tried: every block that starts with `# cookbook: NAME`
is run against a real Prometheus scraping tests/integration/exporter.py,
which serves that engine's metrics under their real names and labels:
two pods of the model the block selects, plus pods of another model (or
service) that the block must leave out.  Each query must return one
series with the value the pods were given (within 5 %: rate() over a
stepped counter), and `staffer explain` on the whole block must read the
same lambda, W and Q.

    /usr/bin/python3 tests/integration/test_cookbook.py [--bin build/staffer]
        [--smoke] [--only NAME]... [--label PREFIX]

Counters run from the start of the suite; rate(...[1m]) is exact only
once a minute of samples exists, so the suite waits for that once (about
70 s in all).  Prints `ok N - name` per block and `N passed, N failed`.
"""

import json
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as h  # noqa: E402
from harness import note  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
COOKBOOK = os.path.join(ROOT, "docs", "cookbook.md")
SPAN = 3000          # seconds a counter keeps rising
TOLERANCE = 0.05

test = h.Registry()


def blocks():
    """{name: {key: value}} from the ```yaml blocks starting `# cookbook:`."""
    out = {}
    text = open(COOKBOOK).read()
    for body in re.findall(r"```yaml\n(.*?)```", text, re.S):
        lines = body.splitlines()
        m = re.match(r"^# cookbook: (\S+)$", lines[0]) if lines else None
        if not m:
            continue
        meta = {}
        for line in lines[1:]:
            kv = re.match(r'^(\w+): (.*?)\s*$', line)
            assert kv, "%s: cannot read line %r" % (m.group(1), line)
            v = kv.group(2)
            if v.startswith('"') and v.endswith('"'):
                v = v[1:-1]
            meta[kv.group(1)] = v
        out[m.group(1)] = meta
    return out


# What each engine's pods export.  Per series: its name with {pod} in the
# labels, "counter" (rising at the given per-pod rates) or "gauge" (the
# given per-pod values).  The block must read: lambda = the arrival
# counter's total rate, W = the duration counter's total rate over the
# request counter's, Q = the sum of the queue gauges.
LLAMA = 'model_name="llama-70b",pod="{pod}"'
OTHER = 'model_name="mistral-7b",pod="{pod}"'
ENGINES = {
    "vllm": {
        "series": [
            ("vllm:e2e_request_latency_seconds_count{%s}" % LLAMA, "counter", (1.2, 0.8)),
            ("vllm:e2e_request_latency_seconds_sum{%s}" % LLAMA, "counter", (12, 8)),
            ("vllm:num_requests_waiting{%s}" % LLAMA, "gauge", (2, 4)),
            ("vllm:e2e_request_latency_seconds_count{%s}" % OTHER, "counter", (50, 50)),
            ("vllm:e2e_request_latency_seconds_sum{%s}" % OTHER, "counter", (5, 5)),
            ("vllm:num_requests_waiting{%s}" % OTHER, "gauge", (90, 90)),
        ],
        "expect": {"arrivalRateQuery": 2, "serviceTimeQuery": 10, "queueDepthQuery": 6},
    },
    "sglang": {
        "series": [
            ("sglang:e2e_request_latency_seconds_count{%s}" % LLAMA, "counter", (1.5, 1.5)),
            ("sglang:e2e_request_latency_seconds_sum{%s}" % LLAMA, "counter", (12, 12)),
            ("sglang:num_queue_reqs{%s}" % LLAMA, "gauge", (0, 5)),
            ("sglang:e2e_request_latency_seconds_count{%s}" % OTHER, "counter", (40, 40)),
            ("sglang:num_queue_reqs{%s}" % OTHER, "gauge", (70, 70)),
        ],
        "expect": {"arrivalRateQuery": 3, "serviceTimeQuery": 8, "queueDepthQuery": 5},
    },
    "tgi": {
        "series": [
            ('tgi_request_count{namespace="llm",service="tgi-llama-70b",pod="{pod}"}', "counter",
             (0.5, 0.5)),
            ('tgi_request_duration_count{namespace="llm",service="tgi-llama-70b",pod="{pod}"}',
             "counter", (0.5, 0.5)),
            ('tgi_request_duration_sum{namespace="llm",service="tgi-llama-70b",pod="{pod}"}',
             "counter", (3, 3)),
            ('tgi_queue_size{namespace="llm",service="tgi-llama-70b",pod="{pod}"}', "gauge", (1, 1)),
            ('tgi_request_count{namespace="llm",service="tgi-mistral-7b",pod="{pod}"}', "counter",
             (30, 30)),
            ('tgi_queue_size{namespace="llm",service="tgi-mistral-7b",pod="{pod}"}', "gauge",
             (40, 40)),
        ],
        "expect": {"arrivalRateQuery": 1, "serviceTimeQuery": 6, "queueDepthQuery": 2},
    },
    "triton": {
        "series": [
            ('nv_inference_request_success{model="whisper",version="1",pod="{pod}"}', "counter",
             (2, 2)),
            ('nv_inference_request_duration_us{model="whisper",version="1",pod="{pod}"}',
             "counter", (3e6, 3e6)),
            ('nv_inference_pending_request_count{model="whisper",version="1",pod="{pod}"}',
             "gauge", (3, 0)),
            ('nv_inference_request_success{model="resnet",version="1",pod="{pod}"}', "counter",
             (100, 100)),
            ('nv_inference_pending_request_count{model="resnet",version="1",pod="{pod}"}',
             "gauge", (50, 50)),
        ],
        "expect": {"arrivalRateQuery": 4, "serviceTimeQuery": 1.5, "queueDepthQuery": 3},
    },
    "llm-d": {
        # two EPP replicas: requests split between them, pool gauges twice
        "series": [
            ('inference_objective_request_total{model_name="llama-70b",'
             'target_model_name="llama-70b",pod="{pod}"}', "counter", (1.5, 0.5)),
            ('inference_objective_request_duration_seconds_count{model_name="llama-70b",'
             'target_model_name="llama-70b",pod="{pod}"}', "counter", (1.5, 0.5)),
            ('inference_objective_request_duration_seconds_sum{model_name="llama-70b",'
             'target_model_name="llama-70b",pod="{pod}"}', "counter", (15, 5)),
            ('inference_pool_average_queue_size{name="llama-70b",pod="{pod}"}', "gauge", (1.5, 1.5)),
            ('inference_pool_ready_pods{name="llama-70b",pod="{pod}"}', "gauge", (4, 4)),
            ('inference_objective_request_total{model_name="mistral-7b",'
             'target_model_name="mistral-7b",pod="{pod}"}', "counter", (20, 20)),
            ('inference_pool_average_queue_size{name="mistral-7b",pod="{pod}"}', "gauge", (9, 9)),
            ('inference_pool_ready_pods{name="mistral-7b",pod="{pod}"}', "gauge", (9, 9)),
        ],
        "expect": {"arrivalRateQuery": 2, "serviceTimeQuery": 10, "queueDepthQuery": 6},
    },
    "no-counters": {
        "series": [
            ("vllm:num_requests_running{%s}" % LLAMA.replace("{pod}", "nc-{pod}"), "gauge", (12, 8)),
            ("vllm:num_requests_waiting{%s}" % LLAMA.replace("{pod}", "nc-{pod}"), "gauge", (0, 0)),
            ("vllm:num_requests_running{%s}" % OTHER.replace("{pod}", "nc-{pod}"), "gauge", (99, 99)),
        ],
        # shares vllm's series: lambda = (12 + 8) / 10, Q = vllm's 6 + 0
        "expect": {"arrivalRateQuery": 2, "queueDepthQuery": 6},
    },
    "vllm-tokens": {
        "series": [
            ("vllm:generation_tokens_total{%s}" % LLAMA, "counter", (250, 150)),
            ("vllm:time_per_output_token_seconds_count{%s}" % LLAMA, "counter", (250, 150)),
            ("vllm:time_per_output_token_seconds_sum{%s}" % LLAMA, "counter", (12.5, 7.5)),
            ("vllm:generation_tokens_total{%s}" % OTHER, "counter", (5000, 5000)),
        ],
        # 400 tokens/s at 0.05 s per token: 20 sequences decoding, as vllm's
        "expect": {"arrivalRateQuery": 400, "serviceTimeQuery": 0.05},
    },
    "vllm-prefill": {
        "series": [
            ('vllm:request_prefill_time_seconds_count{model_name="deepseek-r1",'
             'pod="deepseek-r1-prefill-{pod}"}', "counter", (1, 1)),
            ('vllm:request_prefill_time_seconds_sum{model_name="deepseek-r1",'
             'pod="deepseek-r1-prefill-{pod}"}', "counter", (0.8, 0.8)),
            ('vllm:num_requests_waiting{model_name="deepseek-r1",pod="deepseek-r1-prefill-{pod}"}',
             "gauge", (1, 2)),
        ],
        "expect": {"arrivalRateQuery": 2, "serviceTimeQuery": 0.8, "queueDepthQuery": 3},
    },
    "vllm-decode": {
        "series": [
            ('vllm:request_decode_time_seconds_count{model_name="deepseek-r1",'
             'pod="deepseek-r1-decode-{pod}"}', "counter", (1, 1)),
            ('vllm:request_decode_time_seconds_sum{model_name="deepseek-r1",'
             'pod="deepseek-r1-decode-{pod}"}', "counter", (9, 9)),
            ('vllm:num_requests_waiting{model_name="deepseek-r1",pod="deepseek-r1-decode-{pod}"}',
             "gauge", (0, 1)),
        ],
        "expect": {"arrivalRateQuery": 2, "serviceTimeQuery": 9, "queueDepthQuery": 1},
    },
}
# blocks whose queries also see another block's series (same model, same
# engine): their expectations already count them
PODS = ("a", "b")


def start_series(c):
    for eng in ENGINES.values():
        for tmpl, kind, per_pod in eng["series"]:
            for pod, v in zip(PODS, per_pod):
                name = tmpl.replace("{pod}", pod)
                if kind == "counter":
                    c.m.ramp(name, 0, v * SPAN, SPAN)
                else:
                    c.m.set_raw(name, v)
    c.t0 = time.time()


def close(got, want):
    return abs(got - want) <= TOLERANCE * max(abs(want), 1e-9)


def engine_test(name):
    def t(c):
        meta = c.blocks[name]
        want = ENGINES[name]["expect"]
        for k in meta:
            if k.endswith("Query"):
                assert k in want, "%s: no expectation for %s (add one to ENGINES)" % (name, k)
        # a minute of samples for rate(...[1m]) (counters started at setup)
        wait = 65 - (time.time() - c.t0)
        if wait > 0:
            time.sleep(wait)
        for k, v in want.items():
            assert k in meta, "%s: the block has no %s" % (name, k)
            r = h.wait_until(lambda: c.m.query(meta[k]), 10, 0.5, "%s %s" % (name, k))
            assert len(r) == 1, "%s %s: %d series, not one: %s" % (name, k, len(r), r)
            assert close(r[0][1], v), "%s %s = %g, want %g\n  %s" % (name, k, r[0][1], v,
                                                                      meta[k])
            note("%s %s = %.4g (want %g)" % (name, k, r[0][1], v))
        # the server's own path: staffer explain on the whole block
        cmd = [c.bin, "explain", "--config", c.cfg, "--json"] + \
            ["%s=%s" % (k, v) for k, v in meta.items()]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        assert p.returncode == 0, "%s: staffer explain exit %d: %s" % (name, p.returncode,
                                                                      p.stderr)
        j = json.loads(p.stdout)
        for k, field in (("arrivalRateQuery", "arrival_rate"),
                         ("serviceTimeQuery", "service_time"),
                         ("queueDepthQuery", "queue_depth")):
            if k in want:
                assert close(j[field], want[k]), "%s: explain %s = %g, want %g" % (
                    name, field, j[field], want[k])
        if "serviceTimeQuery" not in meta and "serviceTime" in meta:
            assert j["service_time"] == float(meta["serviceTime"]), j["service_time"]
        note("%s: explain says %d replicas (lambda %.3g, W %.3g, Q %.3g)" % (
            name, j["replicas"], j["arrival_rate"], j["service_time"], j["queue_depth"]))
    return t


@test("every `# cookbook:` block of docs/cookbook.md has an engine setup here", smoke=True)
def t_blocks(c):
    assert set(c.blocks) == set(ENGINES), \
        "blocks %s, engines %s" % (sorted(c.blocks), sorted(ENGINES))


for _name in ENGINES:
    test("cookbook: %s" % _name, timeout=120)(engine_test(_name))


def setup(c, a):
    c.blocks = blocks()
    c.env = dict(os.environ)
    c.m = h.Metrics().start()
    c.cfg = h.write_config(os.path.join(c.m.dir, "staffer.json"),
                           [{"name": "prom", "url": c.m.prom_url, "timeoutSeconds": 5}], ttl=0)
    start_series(c)


def teardown(c, failed):
    if getattr(c, "m", None):
        c.m.stop()
        if failed:
            note("logs kept: exporter and Prometheus in %s" % c.m.dir)


if __name__ == "__main__":
    sys.exit(h.suite_main(test, setup, teardown))
