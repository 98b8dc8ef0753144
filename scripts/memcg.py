"""A memory cgroup for one process under test, where one can be made.

Shared by bench/service.py's bigreq scenario and
tests/integration/test_attack.py's memory test: both run staffer inside a
cgroup with a memory limit, under the caller's own (root; cgroup v1 or v2
with the memory controller).  The caller moves its process in (write its
pid to DIR/cgroup.procs) and removes DIR when that process has exited.
"""

import os


def make(tag, limit_bytes):
    """A memory cgroup under this process's own, limited to limit_bytes,
    named staffer-TAG-PID: (dir, version), or None where none can be
    made."""
    try:
        lines = open("/proc/self/cgroup").read().splitlines()
    except OSError:
        return None
    for line in lines:
        _, ctl, path = line.split(":", 2)
        if "memory" in ctl.split(","):
            base, ver, limit = "/sys/fs/cgroup/memory" + path, 1, \
                "memory.limit_in_bytes"
            break
    else:
        v2 = [l for l in lines if l.startswith("0::")]
        base, ver, limit = ("/sys/fs/cgroup" + v2[0][3:] if v2 else None), 2, \
            "memory.max"
    if not base or not os.path.isdir(base):
        return None
    d = os.path.join(base, "staffer-%s-%d" % (tag, os.getpid()))
    try:
        os.mkdir(d)
    except OSError:
        return None
    try:
        with open(os.path.join(d, limit), "w") as fp:
            fp.write(str(limit_bytes))
    except OSError:
        remove((d, ver))
        return None
    return d, ver


def remove(cg):
    """Remove the cgroup (dir, version) once its processes are gone."""
    try:
        os.rmdir(cg[0])
    except OSError:
        pass


def stats(cg):
    """What the memory cgroup (dir, version) saw: its peak usage (bytes),
    how often it hit the limit, and OOM kills in it (None: not told)."""
    d, ver = cg

    def read(name):
        try:
            with open(os.path.join(d, name)) as fp:
                return fp.read()
        except OSError:
            return None

    def field(text, key):
        for line in (text or "").splitlines():
            k, _, v = line.partition(" ")
            if k == key:
                return int(v)
        return None
    if ver == 1:
        peak, fail = read("memory.max_usage_in_bytes"), read("memory.failcnt")
        return {"peak": int(peak) if peak else None,
                "failcnt": int(fail) if fail else None,
                "oom_kill": field(read("memory.oom_control"), "oom_kill")}
    peak, ev = read("memory.peak"), read("memory.events")
    return {"peak": int(peak) if peak else None, "failcnt": field(ev, "max"),
            "oom_kill": field(ev, "oom_kill")}
