"""A simulated inference fleet in real time: the truth the engine
emulators export metrics about (tests/integration/engines/README.md).

One Fleet is one model served by pods (replicas).  Each pod runs at most
`slots` requests at once (vLLM's --max-num-seqs, TGI's batch, Triton's
instances x batch) and keeps its own FIFO queue of the rest, as every
engine does; a router sends each arriving request to the ready pod with
the fewest requests (running + waiting), the join-shortest-queue most
gateways approximate.  A request holds its slot for its busy time, a
prefill and then a decode; its queue wait is not busy time.  Optional
limits shed requests: a pod's queue cap (Triton's max_queue_size), a cap
on running + waiting (TGI's max_concurrent_requests), a queue timeout
(a gateway giving up, which vLLM counts as an abort).

Pods have a life: a new pod is ready after a cold start (scale()); a
restart() drains the pod (it takes no new work and finishes what it
has), then its process is down for a while (its /metrics does not
answer) and comes back with every counter at 0, as a container restart
does; down() makes a pod unreachable without touching its work.

Time is the wall clock since start, minus any freeze(): while frozen
nothing happens (no arrival, no progress), so every gauge holds still
and can be compared exactly.  The simulation is event-driven and
advanced to "now" before every read (sync()).

Everything a test compares with is recorded here, independent of any
metric family: arrivals, admissions, sheds, starts and completions with
their queue wait and busy time (truth()).  The engines' exporters only
translate these events into their own metric families (vllm.py,
sglang.py, tgi.py, triton.py), through the observer calls of an Engine:
arrival, reject, start, first_token, finish, abort, and render().
"""

import bisect
import collections
import heapq
import math
import random
import threading
import time

SHED_QUEUE_FULL = "queue_full"        # the pod's queue cap
SHED_OVERLOADED = "overloaded"        # running + waiting cap
SHED_TIMEOUT = "timeout"              # waited longer than the timeout

HISTORY_S = 900.0                     # how long events are kept for truth()


class Request:
    __slots__ = ("id", "arrival", "start", "first_token", "finish",
                 "prefill", "decode", "prompt_tokens", "output_tokens",
                 "pod")

    def __init__(self, rid, arrival, prefill, decode, prompt_tokens,
                 output_tokens):
        self.id = rid
        self.arrival = arrival
        self.start = None
        self.first_token = None
        self.finish = None
        self.prefill = prefill
        self.decode = decode
        self.prompt_tokens = prompt_tokens
        self.output_tokens = output_tokens
        self.pod = None

    @property
    def busy(self):
        return self.prefill + self.decode

    @property
    def queue(self):
        return self.start - self.arrival

    @property
    def e2e(self):
        return self.finish - self.arrival


class Pod:
    """One replica.  state: starting, ready, draining (no new work; goes
    away, or restarts, once empty), restarting (process down), gone."""

    def __init__(self, fleet, index, now, ready_at):
        self.fleet = fleet
        self.index = index
        self.name = "%s-%d" % (fleet.name, index)
        self.created = now
        self.ready_at = ready_at
        self.state = "starting" if ready_at > now else "ready"
        self.running = []
        self.waiting = collections.deque()
        self.unreachable_until = 0.0   # /metrics answers 503 until then
        self.restart_down_s = 0.0      # set by restart(): down this long
        self.after_drain = None        # "restart" or "remove"
        self.generation = 0            # restarts so far
        # what this pod counted since its last /metrics answer: lost to
        # any scraper if its process goes down before the next one
        self.since_scrape = collections.Counter()
        self.engine = fleet.engine_factory(self)

    def load(self):
        return len(self.running) + len(self.waiting)

    def reachable(self, now):
        return self.state not in ("restarting", "gone") and \
            now >= self.unreachable_until


class Hooks:
    """What a pod's engine is told, under the fleet's lock, at time t:
    ready (the pod serves, fresh or after a restart), arrival (req is
    routed to it), reject (req refused: queue full or too many requests),
    start (req takes a slot), first_token, finish, abort (its client gave
    up waiting).  An engine exports what its real counterpart would;
    these defaults do nothing, for the events it does not count."""

    def ready(self, t):
        pass

    def arrival(self, req, t):
        pass

    def reject(self, req, t, reason):
        pass

    def start(self, req, t):
        pass

    def first_token(self, req, t):
        pass

    def finish(self, req, t):
        pass

    def abort(self, req, t):
        pass


class Fleet:
    """One model on a fleet of pods, simulated in real time.

    service(rng) -> (prefill_s, decode_s, prompt_tokens, output_tokens)
    draws one request's work; arrivals are Poisson at rate(t) when
    poisson, else evenly spaced at rate(t) (so that a rate over a window
    is exact to one request)."""

    def __init__(self, name, engine_factory, slots, service, rate,
                 pods=1, poisson=False, seed=1, cold_start=0.0,
                 queue_cap=None, concurrency_cap=None, queue_timeout=None,
                 clock=time.monotonic, rate_max=None):
        self.name = name
        self.engine_factory = engine_factory
        self.slots = slots
        self.service = service
        self.rate = rate                  # callable t -> req/s
        self.rate_max = rate_max          # bound of rate(t), for thinning
        self.poisson = poisson
        self.cold_start = cold_start
        self.queue_cap = queue_cap
        self.concurrency_cap = concurrency_cap
        self.queue_timeout = queue_timeout
        self.clock = clock
        self.lock = threading.RLock()
        self.rng_arr = random.Random(seed * 7919 + 1)
        self.rng_svc = random.Random(seed * 7919 + 2)
        self.t0 = clock()
        self.frozen_at = None
        self.frozen_total = 0.0
        self.now = 0.0
        self.seq = 0
        self.events = []                  # heap (t, seq, kind, payload)
        self.pods = []
        self.next_index = 0
        self.look = False
        for _ in range(pods):
            self._add_pod(ready=True)
        self.next_arrival = self._draw_arrival(0.0)
        # the record: (t, ...) tuples, oldest first
        self.arrivals = collections.deque()      # t
        self.admitted = collections.deque()      # t
        self.sheds = collections.deque()         # (t, reason)
        self.starts = collections.deque()        # (t, queue wait)
        self.done = collections.deque()          # (t, busy, queue, e2e,
        #                                          tokens, decode, prompt)
        self.firsts = collections.deque()        # (t, prompt tokens)
        self.busy_steps = collections.deque()    # (t, running from t on)
        # (t, Counter): what a restarted pod counted after its last
        # scrape, which no rate() can see (pod.since_scrape)
        self.unseen = collections.deque()
        self.totals = collections.Counter()
        self.replica_seconds = 0.0
        self.rid = 0

    # ---- time --------------------------------------------------------------
    def sim_time(self):
        """Seconds since start, not counting frozen time."""
        real = self.clock()
        if self.frozen_at is not None:
            real = self.frozen_at
        return real - self.t0 - self.frozen_total

    def freeze(self):
        with self.lock:
            self.sync()
            if self.frozen_at is None:
                self.frozen_at = self.clock()

    def thaw(self):
        with self.lock:
            if self.frozen_at is not None:
                self.frozen_total += self.clock() - self.frozen_at
                self.frozen_at = None

    def sync(self):
        with self.lock:
            self.advance(self.sim_time())

    # ---- events ------------------------------------------------------------
    def _push(self, t, kind, payload=None):
        self.seq += 1
        heapq.heappush(self.events, (t, self.seq, kind, payload))

    def _draw_arrival(self, t):
        """The next arrival after t, or a look a second later (then
        self.look is set: nothing arrives, the next draw starts there).
        Poisson arrivals are thinned from rate_max (or from 4 x the rate
        now + 1); evenly spaced ones come at the rate now."""
        self.look = False
        start = t
        if self.poisson:
            lam_max = self.rate_max or max(self.rate(t), 1e-9) * 4 + 1
            while True:
                t += self.rng_arr.expovariate(lam_max)
                if t > start + 1.0 and self.rate(t) == 0:
                    self.look = True
                    return start + 1.0
                lam = self.rate(t)
                if lam > lam_max:   # the script rose: take it as it is
                    return t
                if self.rng_arr.random() * lam_max <= lam:
                    return t
        lam = self.rate(t)
        if lam > 0:
            return t + 1.0 / lam
        self.look = True
        return t + 1.0

    def _add_pod(self, ready):
        ready_at = self.now if ready else self.now + self.cold_start
        pod = Pod(self, self.next_index, self.now - (self.cold_start if ready
                                                      else 0), ready_at)
        self.next_index += 1
        pod.sheds = 0
        self.pods.append(pod)
        if pod.state == "starting":
            self._push(ready_at, "ready", pod)
        return pod

    def _route(self, t):
        best = None
        for p in self.pods:
            if p.state == "ready" and p.reachable(t) and (
                    best is None or p.load() < best.load()):
                best = p
        return best

    def _admit(self, t):
        self.rid += 1
        prefill, decode, ptok, otok = self.service(self.rng_svc)
        req = Request(self.rid, t, prefill, decode, ptok, otok)
        self.arrivals.append(t)
        self.totals["arrived"] += 1
        pod = self._route(t)
        if pod is None:
            # no pod to take it: the gateway refuses it
            self._shed(t, None, req, SHED_OVERLOADED)
            return
        req.pod = pod
        pod.engine.arrival(req, t)
        if self.concurrency_cap is not None and \
                pod.load() >= self.concurrency_cap:
            self._shed(t, pod, req, SHED_OVERLOADED)
            return
        if self.queue_cap is not None and len(pod.waiting) >= \
                self.queue_cap and len(pod.running) >= self.slots:
            self._shed(t, pod, req, SHED_QUEUE_FULL)
            return
        self.admitted.append(t)
        pod.since_scrape["admitted_rate"] += 1
        self.totals["admitted"] += 1
        pod.waiting.append(req)
        if self.queue_timeout is not None:
            self._push(t + self.queue_timeout, "timeout", req)
        self._dispatch(pod, t)

    def _shed(self, t, pod, req, reason):
        # first: the first of this pod's process, which a counter made
        # by its first increment (TGI's) cannot show
        first = pod is not None and pod.sheds == 0
        if pod is not None:
            pod.sheds += 1
        self.sheds.append((t, reason, first))
        self.totals["shed"] += 1
        self.totals["shed_" + reason] += 1
        if pod is not None:
            pod.engine.reject(req, t, reason)

    def _dispatch(self, pod, t):
        while pod.waiting and len(pod.running) < self.slots and \
                pod.state in ("ready", "draining"):
            req = pod.waiting.popleft()
            req.start = t
            pod.running.append(req)
            self.starts.append((t, req.queue))
            self.busy_steps.append((t, self.running()))
            self.totals["started"] += 1
            pod.engine.start(req, t)
            self._push(t + req.prefill, "first_token", req)
            self._push(t + req.prefill + req.decode, "finish", req)

    def advance(self, until):
        while True:
            t_ev = self.events[0][0] if self.events else math.inf
            t = min(t_ev, self.next_arrival)
            if t > until:
                break
            self._clock_to(t)
            if self.next_arrival <= t_ev:
                # at a rate of 0 the "arrival" is a look a second later
                if not self.look:
                    self._admit(t)
                self.next_arrival = self._draw_arrival(t)
                continue
            _, _, kind, x = heapq.heappop(self.events)
            if kind == "first_token":
                x.first_token = t
                self.firsts.append((t, x.prompt_tokens))
                x.pod.engine.first_token(x, t)
            elif kind == "finish":
                self._finish(x, t)
            elif kind == "timeout":
                pod = x.pod
                if x.start is None and x in pod.waiting:
                    pod.waiting.remove(x)
                    self.admitted_timeout(x, t)
            elif kind == "ready":
                if x.state == "starting":
                    x.state = "ready"
                    x.engine.ready(t)
                    self._dispatch(x, t)
            elif kind == "back":
                self._back(x, t)
        self._clock_to(until)

    def admitted_timeout(self, req, t):
        """A waiting request that gave up: shed, and an abort for the
        engine (vLLM counts it as finished with reason abort)."""
        self.sheds.append((t, SHED_TIMEOUT, False))
        self.totals["shed"] += 1
        self.totals["shed_" + SHED_TIMEOUT] += 1
        req.pod.engine.abort(req, t)
        self._drained(req.pod, t)

    def _finish(self, req, t):
        pod = req.pod
        pod.running.remove(req)
        self.busy_steps.append((t, self.running()))
        req.finish = t
        self.done.append((t, req.busy, req.queue, req.e2e,
                          req.output_tokens, req.decode, req.prompt_tokens))
        pod.since_scrape["completion_rate"] += 1
        self.totals["completed"] += 1
        self.totals["busy_s"] += req.busy
        pod.engine.finish(req, t)
        self._dispatch(pod, t)
        self._drained(pod, t)

    def _drained(self, pod, t):
        if pod.state != "draining" or pod.running or pod.waiting:
            return
        if pod.after_drain == "restart":
            pod.state = "restarting"
            self.unseen.append((t, pod.since_scrape))
            pod.since_scrape = collections.Counter()
            self._push(t + pod.restart_down_s, "back", pod)
        else:
            pod.state = "gone"
            self.pods.remove(pod)

    def _back(self, pod, t):
        """A restarted pod's process is up again: every counter at 0."""
        pod.generation += 1
        pod.sheds = 0
        pod.engine = self.engine_factory(pod)
        pod.state = "ready"
        pod.after_drain = None
        pod.engine.ready(t)
        self._dispatch(pod, t)

    def _clock_to(self, t):
        if t > self.now:
            live = sum(1 for p in self.pods if p.state != "gone")
            self.replica_seconds += live * (t - self.now)
            self.now = t
            self._forget(t)

    def _forget(self, t):
        old = t - HISTORY_S
        for dq in (self.arrivals, self.admitted):
            while dq and dq[0] < old:
                dq.popleft()
        for dq in (self.sheds, self.starts, self.done, self.firsts,
                   self.unseen):
            while dq and dq[0][0] < old:
                dq.popleft()
        while len(self.busy_steps) > 1 and self.busy_steps[1][0] < old:
            self.busy_steps.popleft()

    # ---- control -----------------------------------------------------------
    def set_rate(self, rate):
        """rate: a number (req/s) or a callable of the time."""
        with self.lock:
            self.sync()
            self.rate = rate if callable(rate) else (lambda t, r=rate: r)
            self.next_arrival = self._draw_arrival(self.now)

    def set_limits(self, **kw):
        with self.lock:
            self.sync()
            for k, v in kw.items():
                if k not in ("slots", "queue_cap", "concurrency_cap",
                             "queue_timeout"):
                    raise ValueError("unknown limit %r" % k)
                setattr(self, k, v)
            for p in self.pods:
                self._dispatch(p, self.now)

    def scale(self, n):
        """Make the fleet n pods: new ones after a cold start; on the way
        down, pods still starting go first, then the least busy ready
        ones, which take no new work and go once empty."""
        with self.lock:
            self.sync()
            live = [p for p in self.pods if p.state in ("starting", "ready")]
            if n > len(live):
                for _ in range(n - len(live)):
                    self._add_pod(ready=False)
            elif n < len(live):
                victims = sorted(live, key=lambda p: (
                    p.state != "starting", p.load(), -p.index))
                for p in victims[:len(live) - n]:
                    if p.state == "starting" or p.load() == 0:
                        p.state = "gone"
                        self.pods.remove(p)
                    else:
                        p.state = "draining"
                        p.after_drain = "remove"

    def restart(self, name, down_s=2.0):
        """Restart pod name: drain it, then down_s seconds without its
        process, then back with its counters at 0."""
        with self.lock:
            self.sync()
            pod = self.pod(name)
            pod.state = "draining"
            pod.after_drain = "restart"
            pod.restart_down_s = down_s
            self._drained(pod, self.now)

    def refuse_one(self):
        """Each ready pod refuses one request that did not exist (an
        arrival turned away at once): its refusal counter then exists."""
        with self.lock:
            self.sync()
            for p in self.pods:
                if p.state == "ready":
                    self.rid += 1
                    req = Request(self.rid, self.now, 0, 0, 0, 0)
                    req.pod = p
                    p.engine.arrival(req, self.now)
                    self._shed(self.now, p, req, SHED_OVERLOADED)

    def down(self, name, seconds):
        """Pod name's /metrics fails for seconds (a scrape that fails:
        network, a hung exporter); it keeps serving."""
        with self.lock:
            self.sync()
            self.pod(name).unreachable_until = self.now + seconds

    def pod(self, name):
        for p in self.pods:
            if p.name == name:
                return p
        raise KeyError(name)

    # ---- views -------------------------------------------------------------
    def queue(self):
        return sum(len(p.waiting) for p in self.pods)

    def running(self):
        return sum(len(p.running) for p in self.pods)

    def truth(self, window, w_window=None, end=None):
        """What happened over the last `window` seconds (sim time): rates
        per second, and the busy time (W) and queue wait of the requests
        that completed over the last w_window (default window).  end: the
        window's end as a Unix time (time.time()) instead of now, for a
        window that matches a query's."""
        with self.lock:
            self.sync()
            now = self.now
            if end is not None:
                now = min(now, now - (time.time() - end))
            lo = now - window
            wlo = now - (w_window or window)

            def inside(t, a=lo):
                return a < t <= now

            def rate(dq, key=lambda x: x):
                return sum(1 for x in dq if inside(key(x))) / window
            done = [d for d in self.done if inside(d[0], wlo)]
            starts = [s for s in self.starts if inside(s[0], wlo)]
            tokens_after_first = sum(d[4] - 1 for d in done)
            # the mean of the running requests over the window (the busy
            # slots L): the integral of a step function
            area, level, t_prev = 0.0, 0, lo
            for (ts, n) in self.busy_steps:
                if ts > now:
                    break
                if ts > lo:
                    area += level * (ts - t_prev)
                    t_prev = ts
                level = n
            area += level * (now - t_prev)
            return {
                "now": now,
                "window": window,
                "arrival_rate": rate(self.arrivals),
                "admitted_rate": rate(self.admitted),
                "completion_rate": rate(self.done, lambda d: d[0]),
                "shed_rate": rate(self.sheds, lambda s: s[0]),
                "shed_rate_after_first": sum(
                    1 for x in self.sheds if inside(x[0]) and not x[2]) /
                window,
                "token_rate": sum(d[4] for d in self.done
                                  if inside(d[0])) / window,
                # prompt tokens of the requests finished, and of those
                # whose first token came, in the window (an engine counts
                # them at one or the other)
                "prompt_token_rate": sum(d[6] for d in self.done
                                         if inside(d[0])) / window,
                "first_prompt_token_rate": sum(f[1] for f in self.firsts
                                               if inside(f[0])) / window,
                "busy_mean": (sum(d[1] for d in done) / len(done)
                              if done else None),
                "e2e_mean": (sum(d[3] for d in done) / len(done)
                             if done else None),
                "queue_wait_mean": (sum(d[2] for d in done) / len(done)
                                    if done else None),
                "start_wait_mean": (sum(s[1] for s in starts) / len(starts)
                                    if starts else None),
                "tpot_mean": (sum(d[5] for d in done) / tokens_after_first
                              if tokens_after_first else None),
                # per rate above (admitted_rate, completion_rate): the
                # part counted by restarted pods after their last scrape
                "unseen": {k: sum(c[k] for (ts, c) in self.unseen
                                  if inside(ts)) / window
                           for k in ("admitted_rate", "completion_rate")},
                "completed": len(done),
                "running_mean": area / window,
                "queue": self.queue(),
                "running": self.running(),
                "pods": {p.name: {"state": p.state, "running": len(p.running),
                                  "waiting": len(p.waiting),
                                  "generation": p.generation}
                         for p in self.pods},
                "totals": dict(self.totals),
            }


def cycle_service(busy, prefill_share=0.1, tokens_per_s=50.0,
                  prompt_tokens=(400, 1200)):
    """Service times from a fixed cycle (the mean of any run of whole
    cycles is exactly the cycle's mean): each request's busy time is the
    next value of busy, split into prefill and decode; its output tokens
    follow the decode at tokens_per_s."""
    state = {"i": 0}

    def draw(rng):
        b = busy[state["i"] % len(busy)]
        p = prompt_tokens[state["i"] % len(prompt_tokens)]
        state["i"] += 1
        prefill = b * prefill_share
        decode = b - prefill
        return prefill, decode, p, max(2, int(round(decode * tokens_per_s)))
    return draw


def lognormal_service(mean, sigma, prefill_share=0.1, tokens_per_s=50.0):
    """Service times of mean `mean`, lognormal with shape sigma."""
    mu = math.log(mean) - sigma * sigma / 2

    def draw(rng):
        b = rng.lognormvariate(mu, sigma)
        prefill = b * prefill_share
        decode = b - prefill
        return prefill, decode, int(rng.uniform(200, 1500)), \
            max(2, int(round(decode * tokens_per_s)))
    return draw


class Histogram:
    """A Prometheus histogram's state: cumulative bucket counts, sum,
    count (rendered by render_histogram())."""

    def __init__(self, buckets):
        self.le = sorted(float(b) for b in buckets)
        self.counts = [0] * len(self.le)
        self.sum = 0.0
        self.count = 0

    def observe(self, v, n=1):
        i = bisect.bisect_left(self.le, v)
        if i < len(self.counts):
            self.counts[i] += n
        self.sum += v * n
        self.count += n


def fmt_value(v):
    """A sample value as Prometheus' client libraries print it."""
    if isinstance(v, int):
        return "%d.0" % v if abs(v) < 1e15 else repr(float(v))
    if v != v:
        return "NaN"
    if v in (math.inf, -math.inf):
        return "+Inf" if v > 0 else "-Inf"
    return repr(float(v))


def fmt_le(b):
    """A bucket bound as prometheus_client prints it (floats: 0.1, 1.0)."""
    return repr(float(b))


def labels_text(labels):
    if not labels:
        return ""
    return "{" + ",".join('%s="%s"' % (k, str(v).replace("\\", "\\\\")
                                       .replace('"', '\\"')
                                       .replace("\n", "\\n"))
                          for k, v in labels) + "}"
