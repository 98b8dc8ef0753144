#!/bin/sh
# bench/service-profile.sh - where a cached call's instructions go.
#
# Runs `staffer serve` under callgrind (one output file per thread) with
# the fake backend, warms 100 ScaledObjects, zeroes the counters, then
# sends cached GetMetrics for SECONDS at 1 in flight and, in a second
# server, grpc.health Checks the same way; prints instructions per call
# (all threads, and per thread) and each run's top functions, inclusive.
# Deterministic where timing is not: the counts do not depend on the
# machine's load, only on the code.  Needs valgrind (scripts/deps.sh).
#
#   bench/service-profile.sh [SECONDS]     (default 20; a few minutes)
#   KEEP=1 bench/service-profile.sh        keep the callgrind files
#
# Build first: make all build/staffer-load.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-20}
load=build/staffer-load
for b in build/staffer "$load"; do
	[ -x "$b" ] || { echo "service-profile: $b missing; run make all $load" >&2; exit 2; }
done
command -v valgrind >/dev/null || { echo "service-profile: valgrind needed" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/staffer-profile.XXXXXX")
bpid=
spid=
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	[ -n "$bpid" ] && kill "$bpid" 2>/dev/null && wait "$bpid" 2>/dev/null
	if [ -z "${KEEP:-}" ]; then rm -rf "$tmp"; else echo "service-profile: kept $tmp" >&2; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$load" backend --port 0 >"$tmp/backend" 2>&1 &
bpid=$!
i=0
while ! grep -q '^listening' "$tmp/backend" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "service-profile: backend did not start" >&2; exit 1; }
	sleep 0.1
done
bport=$(awk '/^listening/ {print $2}' "$tmp/backend")
printf '{"defaultBackend":"prom","cacheTTLSeconds":300,"backends":[{"name":"prom","url":"http://127.0.0.1:%s","timeoutSeconds":3}]}\n' \
	"$bport" >"$tmp/cfg.json"

# profile METHOD: one server under callgrind, METHOD at 1 in flight
profile() {
	m=$1
	port=$(/usr/bin/python3 scripts/freeport.py)
	addr=127.0.0.1:$port
	valgrind --tool=callgrind --separate-threads=yes \
		--callgrind-out-file="$tmp/cg-$m.%p" \
		build/staffer serve --listen "$addr" --config "$tmp/cfg.json" \
		--log-level warn >"$tmp/serve-$m.log" 2>&1 &
	spid=$!
	# warm every object (cache, state), then count from zero
	"$load" unary --addr "$addr" --methods metrics --inflight 1 --reps 1 \
		--seconds 2 --objects 100 >/dev/null 2>&1
	callgrind_control -z "$spid" >/dev/null
	"$load" unary --addr "$addr" --methods "$m" --inflight 1 --reps 1 \
		--seconds "$secs" --objects 100 --warm 0 >"$tmp/load-$m" 2>/dev/null
	callgrind_control -d "$spid" >/dev/null
	kill "$spid"
	wait "$spid" 2>/dev/null || true
	spid=
	calls=$(sed -n 's/.* rpcs=\([0-9]*\).*/\1/p' "$tmp/load-$m" | tail -n 1)
	# +1: the call in flight when the window closed
	calls=$((calls + 1))
	echo "== $m: $calls calls"
	total=0
	# the dump callgrind_control -d made: NAME.PID.1-THREAD
	for f in "$tmp"/cg-"$m".*.1-*; do
		[ -f "$f" ] || continue
		ir=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$f")
		[ -n "$ir" ] || ir=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$f")
		[ -n "$ir" ] || continue
		total=$((total + ir))
		echo "$f $ir"
	done >"$tmp/threads-$m"
	total=$(awk '{s += $2} END {print s + 0}' "$tmp/threads-$m")
	echo "instructions per call, all threads: $((total / calls))"
	awk -v c="$calls" -v t="$total" '$2 > 0 {
		n = split($1, p, "-"); th = p[n];
		printf "  thread %s: %d per call (%.0f %%)\n", th, $2 / c, 100 * $2 / t }' \
		"$tmp/threads-$m"
	# self cost of every function, summed over the threads, by library
	/usr/bin/python3 - "$calls" $(awk '$2 > 0 {print $1, $2}' "$tmp/threads-$m") <<'PY'
import re, subprocess, sys
calls = int(sys.argv[1])
fn, lib = {}, {}
args = sys.argv[2:]
for path, total in zip(args[0::2], args[1::2]):
    out = subprocess.run(["callgrind_annotate", "--auto=no", "--inclusive=no",
                          "--threshold=100", path], capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        m = re.match(r"^\s*([\d,]+) \([^)]*\)\s+(\S.*?)(?: \[(.*)\])?$", line)
        if not m or "PROGRAM TOTALS" in line:
            continue
        ir = int(m.group(1).replace(",", ""))
        # a dump taken mid-run charges the frames still on the stack
        # (main, the thread's start routine) with the thread's total
        if ir >= 0.98 * int(total):
            continue
        name, obj = m.group(2), (m.group(3) or "?").split("/")[-1]
        obj = re.sub(r"\.so.*", "", obj)
        fn[(name, obj)] = fn.get((name, obj), 0) + ir
        lib[obj] = lib.get(obj, 0) + ir
tot = sum(lib.values()) or 1
print("by library (self, all threads):")
for o, ir in sorted(lib.items(), key=lambda x: -x[1])[:8]:
    print("  %-30s %7d per call  %4.1f %%" % (o, ir / calls, 100.0 * ir / tot))
print("top functions (self, all threads):")
for (n, o), ir in sorted(fn.items(), key=lambda x: -x[1])[:20]:
    print("  %7d per call  %4.1f %%  %s [%s]" % (ir / calls, 100.0 * ir / tot,
                                               n[-70:], o))
PY
}

profile metrics
profile health
