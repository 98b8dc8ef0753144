"""SGLang's metrics (--enable-metrics), emulated for one pod of a
simulated fleet (fleet.py).

Source: sgl-project/sglang at commit 00ae9c1590d2,
python/sglang/srt/metrics/collector.py: SchedulerMetricsCollector (the
scheduler's gauges and sglang:queue_time_seconds) and
TokenizerMetricsCollector (the request counters and latency histograms).
Labels as the managers set them there: the scheduler's model_name,
engine_type, tp_rank, pp_rank, moe_ep_rank; the tokenizer's model_name
and engine_type.  Families, types, HELP texts and default buckets are
that file's; the values are the simulation's:

  sglang:num_queue_reqs            requests in the waiting queue
  sglang:num_running_reqs          requests running
  sglang:queue_time_seconds        forward entry - wait queue entry,
                                   observed when a request starts
  sglang:e2e_request_latency_seconds  finish - arrival, at finish
  sglang:num_requests_total        finished requests
  sglang:time_to_first_token_seconds, sglang:inter_token_latency_seconds
                                   (its sum the decode time, one count a
                                   token, as observe_inter_token_latency()
                                   adds them)

SGLang has no histogram of the busy time alone: W is the e2e latency
minus the queue time (docs/cookbook.md).  Its labelled series appear at
their first use (prometheus_client children made in .labels()): a pod
that has served nothing exports none of them, so an idle model needs a
fallback that reads 0 while the pod is up.
"""

from expo import Registry
from fleet import Hooks

QUEUE_BUCKETS = [
    0.0, 0.1, 0.2, 0.5, 1, 2, 3, 4, 5, 10, 15, 20, 30, 40, 50, 60, 70, 80,
    90, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1200, 1400, 1600,
    1800, 2000, 2500, 3000]
TTFT_BUCKETS = [
    0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200,
    400]
E2E_BUCKETS = [
    0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200,
    400, 600, 1200, 1800, 2400]
ITL_BUCKETS = [
    0.002, 0.004, 0.006, 0.008, 0.010, 0.015, 0.020, 0.025, 0.030, 0.035,
    0.040, 0.060, 0.080, 0.100, 0.200, 0.400, 0.600, 0.800, 1.000, 2.000,
    4.000, 6.000, 8.000]
RETRACTION_BUCKETS = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 75, 100]


class Engine(Hooks):
    def __init__(self, pod, model_name="llama-70b", max_total_tokens=200000):
        self.pod = pod
        self.max_total = max_total_tokens
        r = self.reg = Registry()
        sl = ("model_name", "engine_type", "tp_rank", "pp_rank",
              "moe_ep_rank")
        tl = ("model_name", "engine_type")
        self.sv = (model_name, "unified", "0", "0", "0")
        self.tv = (model_name, "unified")
        g = lambda name, h: r.add(name, "gauge", h, sl)  # noqa: E731
        self.g_running = g("sglang:num_running_reqs",
                           "The number of running requests.")
        self.g_used = g("sglang:num_used_tokens", "The number of used "
                        "tokens.")
        self.g_usage = g("sglang:token_usage", "The token usage.")
        self.g_gen = g("sglang:gen_throughput",
                       "The generation throughput (token/s).")
        self.g_queue = g("sglang:num_queue_reqs",
                         "The number of requests in the waiting queue.")
        self.g_grammar = g("sglang:num_grammar_queue_reqs",
                           "The number of requests in the grammar waiting "
                           "queue.")
        self.g_hit = g("sglang:cache_hit_rate", "The prefix cache hit rate.")
        self.g_max = g("sglang:max_total_num_tokens",
                       "Maximum total number of tokens in the KV cache "
                       "pool.")
        self.g_util = g("sglang:utilization", "The utilization.")
        self.h_queue = r.add("sglang:queue_time_seconds", "histogram",
                             "Histogram of queueing time in seconds.", sl,
                             buckets=QUEUE_BUCKETS)
        self.c_prompt = r.add("sglang:prompt_tokens_total", "counter",
                              "Number of prefill tokens processed.", tl)
        self.c_gen = r.add("sglang:generation_tokens_total", "counter",
                           "Number of generation tokens processed.", tl)
        self.c_requests = r.add("sglang:num_requests_total", "counter",
                                "Number of requests processed.", tl)
        self.c_aborted = r.add("sglang:num_aborted_requests_total",
                               "counter", "Number of requests aborted.", tl)
        self.h_ttft = r.add("sglang:time_to_first_token_seconds",
                            "histogram", "Histogram of time to first token "
                            "in seconds.", tl, buckets=TTFT_BUCKETS)
        self.h_itl = r.add("sglang:inter_token_latency_seconds", "histogram",
                           "Histogram of inter-token latency in seconds.",
                           tl, buckets=ITL_BUCKETS)
        self.h_e2e = r.add("sglang:e2e_request_latency_seconds", "histogram",
                           "Histogram of End-to-end request latency in "
                           "seconds", tl, buckets=E2E_BUCKETS)
        self.h_retract = r.add("sglang:num_retractions", "histogram",
                               "Histogram of retraction counts per request.",
                               tl, buckets=RETRACTION_BUCKETS)
        self.served = False    # the scheduler logs its stats once busy

    def start(self, req, t):
        self.served = True
        self.h_queue.observe(*self.sv, value=req.queue)

    def first_token(self, req, t):
        self.h_ttft.observe(*self.tv, value=t - req.arrival)

    def finish(self, req, t):
        tv = self.tv
        self.c_prompt.inc(*tv, by=req.prompt_tokens)
        self.c_gen.inc(*tv, by=req.output_tokens)
        self.c_requests.inc(*tv)
        self.h_e2e.observe(*tv, value=t - req.arrival)
        if req.output_tokens > 1:
            self.h_itl.observe(*tv, value=req.decode /
                               (req.output_tokens - 1),
                               n=req.output_tokens - 1)
        self.h_retract.observe(*tv, value=0)

    def abort(self, req, t):
        self.c_aborted.inc(*self.tv)

    def render(self, extra=()):
        pod = self.pod
        if self.served:
            sv = self.sv
            used = sum(r.prompt_tokens + r.output_tokens for r in pod.running)
            self.g_running.set(*sv, value=len(pod.running))
            self.g_queue.set(*sv, value=len(pod.waiting))
            self.g_used.set(*sv, value=used)
            self.g_usage.set(*sv, value=min(1.0, used / self.max_total))
            self.g_gen.set(*sv, value=50.0 * len(pod.running))
            self.g_grammar.set(*sv, value=0)
            self.g_hit.set(*sv, value=0)
            self.g_max.set(*sv, value=self.max_total)
            self.g_util.set(*sv, value=min(1.0, used / self.max_total))
        return self.reg.render(extra)
