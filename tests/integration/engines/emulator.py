#!/usr/bin/python3
"""Inference engines for the tests: simulated fleets (fleet.py) whose
pods export vLLM's, SGLang's, TGI's or Triton's real metric families,
each pod on a port of its own, as Prometheus scrapes them in a cluster.

    emulator.py --config FILE --targets FILE --control-port-file FILE

--config is JSON: {"models": [MODEL, ...]}, a MODEL being
    {"name": "vllm-llama-70b", "engine": "vllm"|"sglang"|"tgi"|"triton",
     "args": {...},          the engine's own (model_name, model, ...)
     "pods": 2, "slots": 16, "rate": 3.0,
     "busy": [6, 7, 8, 9, 10],   busy seconds, in a cycle
     "queue_cap": null, "concurrency_cap": null,
     "labels": {"namespace": "llm", "service": "vllm-llama-70b"}}
--targets gets Prometheus file_sd targets: one per pod, labelled with
the model's labels plus pod and job (= service), as the Prometheus
Operator labels a pod's series.

Control (HTTP on 127.0.0.1, the port written to --control-port-file):
  /truth?model=M&window=S[&w_window=S][&end=UNIX]
                                        what happened: fleet.truth()
  /rate?model=M&rate=R                  arrivals per second from now
  /limits?model=M&slots=N&queue_cap=N&concurrency_cap=N   ("none": off)
  /restart?model=M&pod=P[&down=S]       drain, down S s, back at 0
  /down?model=M[&pod=P]&seconds=S       /metrics answers 503 (all pods
                                        of M without pod)
  /refuse?model=M                       each ready pod refuses one request
  /freeze, /thaw                        stop and restart every clock
  /metrics?model=M&pod=P                what the pod exports now
  /healthz
"""

import argparse
import json
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fleet as fl  # noqa: E402
import sglang  # noqa: E402
import tgi  # noqa: E402
import triton  # noqa: E402
import vllm  # noqa: E402

ENGINES = {"vllm": vllm.Engine, "sglang": sglang.Engine, "tgi": tgi.Engine,
           "triton": triton.Engine}


class Quiet(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, code, body, ctype="text/plain; version=0.0.4"):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def pod_server(model, index):
    """An HTTP server answering /metrics for pod `index` of model."""

    class Handler(Quiet):
        def do_GET(self):
            if urllib.parse.urlsplit(self.path).path != "/metrics":
                return self.send(404, "not found\n")
            f = model["fleet"]
            with f.lock:
                f.sync()
                pod = next((p for p in f.pods if p.index == index), None)
                if pod is None or not pod.reachable(f.now):
                    return self.send(503, "down\n")
                body = pod.engine.render()
                box = pod.since_scrape
                seen = box.copy()
            # Counted as seen only once the page is out: a scrape that
            # timed out (the write fails) left them unseen.  box is the
            # counter of the render even if the pod restarted since (it
            # is then in fleet.unseen, which this corrects).
            try:
                self.send(200, body)
            except OSError:
                return
            with f.lock:
                for k, v in seen.items():
                    box[k] -= v
                    if box[k] <= 0:
                        del box[k]

    ThreadingHTTPServer.daemon_threads = True
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def make_model(cfg, clock):
    kind = cfg["engine"]
    args = cfg.get("args", {})

    def factory(pod):
        return ENGINES[kind](pod, **args)
    busy = cfg.get("busy", [8.0])
    m = dict(cfg)
    m["fleet"] = fl.Fleet(
        cfg["name"], factory, cfg.get("slots", 8),
        fl.cycle_service(busy, prefill_share=cfg.get("prefill_share", 0.1)),
        lambda t, r=float(cfg.get("rate", 0)): r, pods=cfg.get("pods", 1),
        queue_cap=cfg.get("queue_cap"),
        concurrency_cap=cfg.get("concurrency_cap"), clock=clock)
    m["servers"] = [pod_server(m, i) for i in range(cfg.get("pods", 1))]
    return m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    ap.add_argument("--targets", required=True)
    ap.add_argument("--control-port-file", required=True)
    a = ap.parse_args()
    cfg = json.load(open(a.config))
    clock = time.monotonic
    models = {}
    for mc in cfg["models"]:
        models[mc["name"]] = make_model(mc, clock)

    targets = []
    for m in models.values():
        for i, srv in enumerate(m["servers"]):
            labels = dict(m.get("labels", {}))
            labels["pod"] = "%s-%d" % (m["name"], i)
            labels.setdefault("job", labels.get("service", m["name"]))
            targets.append({"targets": ["127.0.0.1:%d" % srv.server_address[1]],
                            "labels": labels})
    tmp = a.targets + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(targets, fh, indent=1)
    os.replace(tmp, a.targets)

    def fleet_of(q):
        name = q.get("model")
        if name not in models:
            raise KeyError("no model %r" % name)
        return models[name]["fleet"]

    def number(v):
        return None if v == "none" else float(v)

    class Control(Quiet):
        def do_GET(self):
            u = urllib.parse.urlsplit(self.path)
            q = dict(urllib.parse.parse_qsl(u.query))
            try:
                if u.path == "/healthz":
                    return self.send(200, "ok\n")
                if u.path == "/truth":
                    t = fleet_of(q).truth(float(q.get("window", 60)),
                                          float(q["w_window"]) if "w_window"
                                          in q else None,
                                          float(q["end"]) if "end" in q
                                          else None)
                    return self.send(200, json.dumps(t), "application/json")
                if u.path == "/rate":
                    fleet_of(q).set_rate(float(q["rate"]))
                elif u.path == "/limits":
                    kw = {k: number(v) for k, v in q.items() if k != "model"}
                    if "slots" in kw:
                        kw["slots"] = int(kw["slots"])
                    fleet_of(q).set_limits(**kw)
                elif u.path == "/restart":
                    fleet_of(q).restart(q["pod"], float(q.get("down", 2)))
                elif u.path == "/down":
                    f = fleet_of(q)
                    names = [q["pod"]] if "pod" in q else \
                        [p.name for p in f.pods]
                    for n in names:
                        f.down(n, float(q["seconds"]))
                elif u.path == "/refuse":
                    fleet_of(q).refuse_one()
                elif u.path in ("/freeze", "/thaw"):
                    for m in models.values():
                        getattr(m["fleet"], u.path[1:])()
                elif u.path == "/metrics":
                    f = fleet_of(q)
                    with f.lock:
                        f.sync()
                        return self.send(200, f.pod(q["pod"]).engine.render())
                else:
                    return self.send(404, "not found\n")
            except (KeyError, ValueError, TypeError) as e:
                return self.send(400, "%s\n" % e)
            return self.send(200, "ok\n")

    ThreadingHTTPServer.daemon_threads = True
    ctl = ThreadingHTTPServer(("127.0.0.1", 0), Control)
    tmp = a.control_port_file + ".tmp"
    with open(tmp, "w") as fh:
        fh.write("%d\n" % ctl.server_address[1])
    os.replace(tmp, a.control_port_file)

    def ticker():
        # keep every fleet close to now even when nobody asks
        while True:
            time.sleep(0.2)
            for m in models.values():
                m["fleet"].sync()
    threading.Thread(target=ticker, daemon=True).start()
    try:
        ctl.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
