"""Text Generation Inference's metrics, emulated for one pod of a
simulated fleet (fleet.py).

Source: huggingface/text-generation-inference at tag v3.3.7:
router/src/server.rs (the request counters and histograms, their
descriptions, and the PrometheusBuilder's buckets: 35 geometric duration
buckets from 0.00015 s by x1.5 for every name ending in "duration",
percentages of max_input_tokens / max_total_tokens for the length
histograms, 1..1024 for the batch size), router/src/infer/mod.rs (the
failure counter, err="overloaded" when max_concurrent_requests is full),
backends/v3/src/queue.rs and backend.rs (the queue and batch gauges), as
metrics-exporter-prometheus 0.15 writes them: counters without _total,
and no series before its first use (the `metrics` macros register a
series when first called).  No labels: TGI serves one model per server,
so a model's pods are found by their target labels (namespace,
service).  The values are the simulation's:

  tgi_request_count               requests received, validated or not,
                                  admitted or refused (at arrival)
  tgi_request_failure{err}        refused: "overloaded" at the
                                  concurrency cap
  tgi_request_success             finished requests
  tgi_request_duration            finish - arrival
  tgi_request_queue_duration      batch entry - queue entry
  tgi_request_inference_duration  finish - batch entry: the busy time W
  tgi_queue_size                  requests waiting for a batch
"""

from expo import Registry
from fleet import Hooks

MAX_INPUT_TOKENS = 4095
MAX_TOTAL_TOKENS = 4096


def duration_buckets():
    out, v = [], 0.0001
    for _ in range(35):
        v *= 1.5          # as server.rs computes them, in f64
        out.append(v)
    return out


def percent_buckets(total):
    return [(total / 100.0) * (x + 1) for x in range(100)]


class Engine(Hooks):
    def __init__(self, pod, max_batch_total_tokens=100000):
        self.pod = pod
        r = self.reg = Registry()
        d = duration_buckets()
        self.count = r.add("tgi_request_count", "counter",
                           "Total number of requests")
        self.success = r.add("tgi_request_success", "counter",
                             "Number of successful requests")
        # never described in server.rs: no HELP line
        self.failure = r.add("tgi_request_failure", "counter", None,
                             ("err",))
        self.duration = r.add("tgi_request_duration", "histogram",
                              "Total time spent processing the request",
                              buckets=d)
        self.validation = r.add("tgi_request_validation_duration",
                                "histogram", "Time spent validating the "
                                "request", buckets=d)
        self.queue_d = r.add("tgi_request_queue_duration", "histogram",
                             "Time spent in the queue per request",
                             buckets=d)
        self.inference = r.add("tgi_request_inference_duration", "histogram",
                               "Request inference duration", buckets=d)
        self.tpt = r.add("tgi_request_mean_time_per_token_duration",
                         "histogram", "Mean time per token per request",
                         buckets=d)
        self.generated = r.add("tgi_request_generated_tokens", "histogram",
                               "Generated tokens per request",
                               buckets=percent_buckets(MAX_TOTAL_TOKENS))
        self.input_len = r.add("tgi_request_input_length", "histogram",
                               "Input token length per request",
                               buckets=percent_buckets(MAX_INPUT_TOKENS))
        self.max_new = r.add("tgi_request_max_new_tokens", "histogram",
                             "Maximum new tokens per request",
                             buckets=percent_buckets(MAX_TOTAL_TOKENS))
        self.queue_size = r.add("tgi_queue_size", "gauge",
                                "Current queue size")
        self.batch_size = r.add("tgi_batch_current_size", "gauge",
                                "Current batch size")
        self.batch_max = r.add("tgi_batch_max_total_tokens", "gauge",
                               "Maximum amount of tokens in total.")
        self.batch_count = r.add("tgi_batch_inference_count", "counter",
                                 "Inference calls per method (prefill or "
                                 "decode)", ("method",))
        self.skipped = r.add("tgi_request_skipped_tokens", "summary",
                             "Speculated tokens per request",
                             quantiles=(0, 0.5, 0.9, 0.95, 0.99, 0.999, 1))
        # set at start-up (backends/v3/src/lib.rs); the rest at first use
        self.batch_max.set(value=max_batch_total_tokens)
        self.queued = False

    def arrival(self, req, t):
        self.count.inc()
        self.input_len.observe(value=req.prompt_tokens)
        self.max_new.observe(value=max(req.output_tokens, 16))
        # the queue gauge exists once a request was appended to it
        self.queued = True

    def reject(self, req, t, reason):
        self.failure.inc("overloaded")

    def start(self, req, t):
        self.batch_count.inc("prefill")

    def finish(self, req, t):
        self.success.inc()
        self.duration.observe(value=t - req.arrival)
        self.validation.observe(value=0.002)
        self.queue_d.observe(value=req.queue)
        self.inference.observe(value=req.busy)
        self.tpt.observe(value=req.busy / max(1, req.output_tokens))
        self.generated.observe(value=req.output_tokens)
        self.skipped.observe(value=0)
        self.batch_count.inc("decode", by=req.output_tokens - 1)

    def abort(self, req, t):
        self.failure.inc("incomplete")

    def render(self, extra=()):
        pod = self.pod
        if self.queued:
            self.queue_size.set(value=len(pod.waiting))
            self.batch_size.set(value=len(pod.running))
        return self.reg.render(extra)
