#!/usr/bin/env python3
"""A free TCP port on 127.0.0.1 for a server a test or bench starts next.

Why not bind port 0 and hand that number on: the kernel picks it from the
ephemeral range (net.ipv4.ip_local_port_range), the same range every outgoing
connection takes its local port from.  Between closing the probe and the
server's bind, a client elsewhere on the machine (a Prometheus scrape, a load
generator) can take that port, and the server fails with "cannot listen".
That happened in CI.  A port below the ephemeral range is never given to an
outgoing connection, so once the probe bind succeeds only another explicit
bind can race it; ports are drawn at random and never handed out twice by one
process, which makes that unlikely too.

Used as a module (free_port()) by tests/integration/harness.py,
tests/packaging/*.py and bench/service.py, and as a command (prints one
port) by demo/run.sh and bench/service-profile.sh.
"""

import random
import socket

_given = set()
_rng = random.SystemRandom()


def _window():
    """[lo, hi) outside the ephemeral range, at least 4,096 ports wide."""
    lo, hi = 32768, 60999
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            lo, hi = (int(x) for x in f.read().split()[:2])
    except (OSError, ValueError):
        pass
    if lo - 1024 >= 4096:
        return max(1024, lo - 16384), lo
    if 65535 - hi >= 4096:
        return hi + 1, 65536
    return None


def _bindable(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port():
    w = _window()
    if w is not None:
        for _ in range(500):
            port = _rng.randrange(*w)
            if port not in _given and _bindable(port):
                _given.add(port)
                return port
    # no room outside the ephemeral range: the kernel's pick, racy as above
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    _given.add(port)
    return port


if __name__ == "__main__":
    print(free_port())
