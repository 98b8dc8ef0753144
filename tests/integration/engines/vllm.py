"""vLLM's metrics, emulated for one pod of a simulated fleet (fleet.py).

Source: vllm-project/vllm at commit 005a810bc40f, vllm/v1/metrics/loggers.py
(PrometheusStatLogger, the V1 engine; its `engine` label came with
vllm-project/vllm#21257, July 2025) and vllm/v1/metrics/stats.py for what
each interval measures.  Families, types, label names, HELP texts and
histogram buckets are that file's; the values are the simulation's:

  e2e_request_latency   finish - arrival (queue wait included)
  request_queue_time    scheduled - queued (WAITING)
  request_inference_time last token - scheduled (RUNNING: prefill +
                        decode), the busy time W a request holds a slot
  request_prefill_time  first token - scheduled
  request_decode_time   last token - first token
  time_to_first_token   first token - arrival
  time_per_output_token one observation per generated token after the
                        first, their sum the decode time
  request_success       finished requests by finished_reason (stop,
                        length, abort), counted when they finish

Every series exists from the start (prometheus_client children made in
the logger's __init__), so an idle vLLM reads 0 without any fallback.
Counters are exposed with the _total suffix prometheus_client adds.
Labels: model_name (the served model name) and engine ("0").
"""

from expo import Registry
from fleet import Hooks

REQUEST_LATENCY_BUCKETS = [
    0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0,
    50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
TTFT_BUCKETS = [
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0,
    2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
TPOT_BUCKETS = [
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0,
    2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0]
PREFILL_TOKEN_BUCKETS = [
    0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]
ITERATION_BUCKETS = [
    1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]
FINISH_REASONS = ("stop", "length", "abort")


def buckets_1_2_5(max_value):
    """build_1_2_5_buckets(): 1, 2, 5, 10, 20, ... up to max_value."""
    out, exp = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** exp
            if v > max_value:
                return out
            out.append(v)
        exp += 1


class Engine(Hooks):
    """One vLLM server (one engine core) of model model_name."""

    def __init__(self, pod, model_name="llama-70b", max_model_len=8192,
                 num_gpu_blocks=8000, block_size=16):
        self.pod = pod
        self.model = model_name
        self.max_model_len = max_model_len
        self.blocks = num_gpu_blocks
        self.block_size = block_size
        r = self.reg = Registry()
        ln = ("model_name", "engine")
        self.running = r.add("vllm:num_requests_running", "gauge",
                             "Number of requests in model execution "
                             "batches.", ln)
        self.waiting = r.add("vllm:num_requests_waiting", "gauge",
                             "Number of requests waiting to be processed.",
                             ln)
        self.gpu_cache = r.add("vllm:gpu_cache_usage_perc", "gauge",
                               "GPU KV-cache usage. 1 means 100 percent "
                               "usage.DEPRECATED: Use "
                               "vllm:kv_cache_usage_perc instead.", ln)
        self.gpu_pq = r.add("vllm:gpu_prefix_cache_queries", "counter",
                            "GPU prefix cache queries, in terms of number "
                            "of queriedtokens. DEPRECATED: Use "
                            "vllm:prefix_cache_queries instead.", ln,
                            exposed="vllm:gpu_prefix_cache_queries_total")
        self.gpu_ph = r.add("vllm:gpu_prefix_cache_hits", "counter",
                            "GPU prefix cache hits, in terms of number of "
                            "cached tokens. DEPRECATED: Use "
                            "vllm:prefix_cache_hits instead.", ln,
                            exposed="vllm:gpu_prefix_cache_hits_total")
        self.kv_cache = r.add("vllm:kv_cache_usage_perc", "gauge",
                              "KV-cache usage. 1 means 100 percent usage.",
                              ln)
        self.pq = r.add("vllm:prefix_cache_queries", "counter",
                        "Prefix cache queries, in terms of number of "
                        "queried tokens.", ln,
                        exposed="vllm:prefix_cache_queries_total")
        self.ph = r.add("vllm:prefix_cache_hits", "counter",
                        "Prefix cache hits, in terms of number of cached "
                        "tokens.", ln, exposed="vllm:prefix_cache_hits_total")
        self.preempt = r.add("vllm:num_preemptions", "counter",
                             "Cumulative number of preemption from the "
                             "engine.", ln,
                             exposed="vllm:num_preemptions_total")
        self.prompt_tokens = r.add("vllm:prompt_tokens", "counter",
                                   "Number of prefill tokens processed.", ln,
                                   exposed="vllm:prompt_tokens_total")
        self.gen_tokens = r.add("vllm:generation_tokens", "counter",
                                "Number of generation tokens processed.",
                                ln, exposed="vllm:generation_tokens_total")
        self.success = r.add("vllm:request_success", "counter",
                             "Count of successfully processed requests.",
                             ln + ("finished_reason",),
                             exposed="vllm:request_success_total")
        b125 = buckets_1_2_5(max_model_len)
        self.h_prompt = r.add("vllm:request_prompt_tokens", "histogram",
                              "Number of prefill tokens processed.", ln,
                              buckets=b125)
        self.h_gen = r.add("vllm:request_generation_tokens", "histogram",
                           "Number of generation tokens processed.", ln,
                           buckets=b125)
        self.h_iter = r.add("vllm:iteration_tokens_total", "histogram",
                            "Histogram of number of tokens per engine_step.",
                            ln, buckets=ITERATION_BUCKETS)
        self.h_maxgen = r.add("vllm:request_max_num_generation_tokens",
                              "histogram", "Histogram of maximum number of "
                              "requested generation tokens.", ln,
                              buckets=b125)
        self.h_n = r.add("vllm:request_params_n", "histogram",
                         "Histogram of the n request parameter.", ln,
                         buckets=[1, 2, 5, 10, 20])
        self.h_maxtok = r.add("vllm:request_params_max_tokens", "histogram",
                              "Histogram of the max_tokens request "
                              "parameter.", ln, buckets=b125)
        self.h_ttft = r.add("vllm:time_to_first_token_seconds", "histogram",
                            "Histogram of time to first token in seconds.",
                            ln, buckets=TTFT_BUCKETS)
        self.h_tpot = r.add("vllm:time_per_output_token_seconds",
                            "histogram", "Histogram of time per output "
                            "token in seconds.", ln, buckets=TPOT_BUCKETS)
        self.h_prefill_tok = r.add(
            "vllm:time_per_prefill_token_request_seconds", "histogram",
            "Time spent per token during prefill  phase in seconds", ln,
            buckets=PREFILL_TOKEN_BUCKETS)
        self.h_e2e = r.add("vllm:e2e_request_latency_seconds", "histogram",
                           "Histogram of e2e request latency in seconds.", ln,
                           buckets=REQUEST_LATENCY_BUCKETS)
        self.h_queue = r.add("vllm:request_queue_time_seconds", "histogram",
                             "Histogram of time spent in WAITING phase for "
                             "request.", ln, buckets=REQUEST_LATENCY_BUCKETS)
        self.h_inference = r.add("vllm:request_inference_time_seconds",
                                 "histogram", "Histogram of time spent in "
                                 "RUNNING phase for request.", ln,
                                 buckets=REQUEST_LATENCY_BUCKETS)
        self.h_prefill = r.add("vllm:request_prefill_time_seconds",
                               "histogram", "Histogram of time spent in "
                               "PREFILL phase for request.", ln,
                               buckets=REQUEST_LATENCY_BUCKETS)
        self.h_decode = r.add("vllm:request_decode_time_seconds",
                              "histogram", "Histogram of time spent in "
                              "DECODE phase for request.", ln,
                              buckets=REQUEST_LATENCY_BUCKETS)
        self.info = r.add("vllm:cache_config_info", "gauge",
                          "Information of the LLMEngine CacheConfig",
                          ("block_size", "cache_dtype", "engine",
                           "gpu_memory_utilization", "num_gpu_blocks"))
        self.lv = (model_name, "0")
        # every series from the start, as make_per_engine() makes them
        for f in r.families:
            if f is self.success:
                for reason in FINISH_REASONS:
                    f.touch(*self.lv, reason)
            elif f is self.info:
                f.set(str(block_size), "auto", "0", "0.9",
                      str(num_gpu_blocks), value=1)
            else:
                f.touch(*self.lv)

    # ---- the fleet's events --------------------------------------------------

    def first_token(self, req, t):
        lv = self.lv
        self.h_ttft.observe(*lv, value=t - req.arrival)
        self.prompt_tokens.inc(*lv, by=req.prompt_tokens)
        self.h_iter.observe(*lv, value=req.prompt_tokens)
        self.pq.inc(*lv, by=req.prompt_tokens)
        self.gpu_pq.inc(*lv, by=req.prompt_tokens)

    def finish(self, req, t):
        lv = self.lv
        gen = req.output_tokens
        self.success.inc(*lv, "length" if req.id % 5 == 0 else "stop")
        self.gen_tokens.inc(*lv, by=gen)
        if gen > 1:
            # one inter-token interval per token after the first
            self.h_tpot.observe(*lv, value=req.decode / (gen - 1),
                                n=gen - 1)
        self.h_e2e.observe(*lv, value=t - req.arrival)
        self.h_queue.observe(*lv, value=req.queue)
        self.h_inference.observe(*lv, value=req.busy)
        self.h_prefill.observe(*lv, value=req.prefill)
        self.h_decode.observe(*lv, value=req.decode)
        if req.prompt_tokens > 0:
            self.h_prefill_tok.observe(*lv,
                                       value=req.prefill / req.prompt_tokens)
        self.h_prompt.observe(*lv, value=req.prompt_tokens)
        self.h_gen.observe(*lv, value=gen)
        self.h_n.observe(*lv, value=1)
        self.h_maxtok.observe(*lv, value=max(gen, 16))
        self.h_maxgen.observe(*lv, value=max(gen, 16))

    def abort(self, req, t):
        """A waiting request its client gave up on: finished, abort."""
        self.success.inc(*self.lv, "abort")
        self.h_e2e.observe(*self.lv, value=t - req.arrival)

    def render(self, extra=()):
        self.refresh()
        return self.reg.render(extra)

    def refresh(self):
        """Set the gauges from the pod's state (vLLM sets them each
        engine step)."""
        pod = self.pod
        lv = self.lv
        self.running.set(*lv, value=len(pod.running))
        self.waiting.set(*lv, value=len(pod.waiting))
        used = sum((r.prompt_tokens + r.output_tokens) // self.block_size + 1
                   for r in pod.running)
        self.kv_cache.set(*lv, value=min(1.0, used / float(self.blocks)))
        self.gpu_cache.set(*lv, value=min(1.0, used / float(self.blocks)))
