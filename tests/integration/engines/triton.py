"""Triton Inference Server's metrics, emulated for one pod (one server,
one model) of a simulated fleet (fleet.py).

Source: triton-inference-server/core at commit 73aad7c3348d (June 2026),
src/metrics.cc (families, HELP texts), src/metric_model_reporter.cc (the
labels: model, version, and a failure reason REJECTED, CANCELED, BACKEND,
OTHER; every series made at 0 when the model loads) and src/infer_stats.cc
(what each duration counts).  Per-model counters are cumulative
microseconds, not histograms (Triton's histograms and summaries are off
by default).  A model on GPU instances reports per gpu_uuid as well; this
emulates one reporter without a device (a KIND_CPU model, or a query
that sums over gpu_uuid anyway).  The values are the simulation's:

  nv_inference_request_success      finished requests
  nv_inference_request_failure      refused: REJECTED when the queue is
                                    full (max_queue_size)
  nv_inference_request_duration_us  finish - arrival, summed, in us
  nv_inference_queue_duration_us    start - arrival, summed, in us
  nv_inference_compute_*_duration_us  the busy time, split into input,
                                    infer and output
  nv_inference_pending_request_count  requests waiting for an instance
"""

from expo import Registry
from fleet import Hooks

REASONS = ("REJECTED", "CANCELED", "BACKEND", "OTHER")


class Engine(Hooks):
    def __init__(self, pod, model="whisper", version="1"):
        self.pod = pod
        r = self.reg = Registry()
        ln = ("model", "version")
        self.lv = (model, version)
        c = lambda n, h: r.add(n, "counter", h, ln)  # noqa: E731
        self.success = c("nv_inference_request_success",
                         "Number of successful inference requests, all "
                         "batch sizes")
        self.failure = r.add("nv_inference_request_failure", "counter",
                             "Number of failed inference requests, all "
                             "batch sizes", ln + ("reason",))
        self.count = c("nv_inference_count", "Number of inferences "
                       "performed (does not include cached requests)")
        self.exec_count = c("nv_inference_exec_count", "Number of model "
                            "executions performed (does not include cached "
                            "requests)")
        self.request_us = c("nv_inference_request_duration_us",
                            "Cumulative inference request duration in "
                            "microseconds (includes cached requests)")
        self.queue_us = c("nv_inference_queue_duration_us",
                          "Cumulative inference queuing duration in "
                          "microseconds (includes cached requests)")
        self.input_us = c("nv_inference_compute_input_duration_us",
                          "Cumulative compute input duration in "
                          "microseconds (does not include cached requests)")
        self.infer_us = c("nv_inference_compute_infer_duration_us",
                          "Cumulative compute inference duration in "
                          "microseconds (does not include cached requests)")
        self.output_us = c("nv_inference_compute_output_duration_us",
                           "Cumulative inference compute output duration "
                           "in microseconds (does not include cached "
                           "requests)")
        self.pending = r.add("nv_inference_pending_request_count", "gauge",
                             "Instantaneous number of pending requests "
                             "awaiting execution per-model.", ln)
        self.load = r.add("nv_model_load_duration_secs", "gauge",
                          "Model load time in seconds", ln)
        # at model load every per-model series is there, at 0
        for f in (self.success, self.count, self.exec_count,
                  self.request_us, self.queue_us, self.input_us,
                  self.infer_us, self.output_us, self.pending):
            f.touch(*self.lv)
        for reason in REASONS:
            self.failure.touch(*self.lv, reason)
        self.load.set(*self.lv, value=12.5)

    def reject(self, req, t, reason):
        self.failure.inc(*self.lv, "REJECTED")

    def finish(self, req, t):
        lv = self.lv
        us = 1e6
        self.success.inc(*lv)
        self.count.inc(*lv)
        self.exec_count.inc(*lv)
        self.request_us.inc(*lv, by=round((t - req.arrival) * us))
        self.queue_us.inc(*lv, by=round(req.queue * us))
        # compute input, infer, output: the busy time, all of it
        self.input_us.inc(*lv, by=round(req.prefill * us))
        self.infer_us.inc(*lv, by=round(req.decode * 0.98 * us))
        self.output_us.inc(*lv, by=round(req.decode * 0.02 * us))

    def abort(self, req, t):
        self.failure.inc(*self.lv, "CANCELED")

    def render(self, extra=()):
        self.pending.set(*self.lv, value=len(self.pod.waiting))
        return self.reg.render(extra)
