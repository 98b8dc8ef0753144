#!/bin/bash
# The staffer demo: a simulated inference gateway, a real Prometheus scraping
# it, build/staffer reading Prometheus, and a KEDA/HPA stand-in driving the
# fleet from staffer's answers.  Run it with `make demo` (which installs what
# is missing and builds first), or directly once build/ is there.
#
# Knobs (environment):
#   DEMO_SECONDS     length of the traffic script          (300)
#   DEMO_SEED        random seed of arrivals and service   (1)
#   DEMO_COLD_START  seconds before a new replica is ready (20)
#   DEMO_POLL        seconds between KEDA/HPA polls        (5)
#   DEMO_PEAK        burst arrival rate, req/s             (8)
#   DEMO_SLA         the wait SLA, seconds                 (2)
#   DEMO_OUT         where demo.csv and demo.png go        (demo/out)
#   DEMO_META        extra trigger metadata, "key=value ..." (e.g. "scaleDownStep=2")
#   DEMO_KEEP=1      keep the temp dir (logs, Prometheus TSDB)
#   DEMO_STAFFER     the staffer binary                    (build/staffer)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
PY=${DEMO_PYTHON:-/usr/bin/python3}
STAFFER=${DEMO_STAFFER:-$root/build/staffer}
SECONDS_=${DEMO_SECONDS:-300}
SEED=${DEMO_SEED:-1}
COLD=${DEMO_COLD_START:-20}
POLL=${DEMO_POLL:-5}
PEAK=${DEMO_PEAK:-8}
SLA=${DEMO_SLA:-2}
OUT=${DEMO_OUT:-$here/out}

die() { echo "demo: $*" >&2; exit 1; }
number() { # NAME VALUE
	case $2 in '' | *[!0-9.]* | *.*.* | .) die "$1=$2: want a number" ;; esac
}
number DEMO_SECONDS "$SECONDS_"
number DEMO_COLD_START "$COLD"
number DEMO_POLL "$POLL"
number DEMO_PEAK "$PEAK"
number DEMO_SLA "$SLA"
for kv in ${DEMO_META:-}; do
	case $kv in ?*=*) ;; *) die "DEMO_META: '$kv' is not key=value" ;; esac
done
case $SEED in '' | *[!0-9]*) die "DEMO_SEED=$SEED: want a whole number" ;; esac
"$PY" -c 'import sys; float(sys.argv[1]) >= 10 or sys.exit(1)' "$SECONDS_" ||
	die "DEMO_SECONDS=$SECONDS_: want at least 10"
"$PY" -c 'import sys; float(sys.argv[1]) > 0 or sys.exit(1)' "$POLL" ||
	die "DEMO_POLL=$POLL: want more than 0"

[ -x "$STAFFER" ] || die "$STAFFER not found: run 'make demo' (or 'make all py')"
[ -f "$root/build/py/externalscaler_pb2.py" ] ||
	die "build/py/externalscaler_pb2.py not found: run 'make py'"
"$PY" -c 'import grpc, google.protobuf' 2>/dev/null ||
	die "$PY lacks grpc/protobuf: apt-get install python3-grpcio python3-protobuf (or scripts/deps.sh)"
command -v prometheus >/dev/null || die "prometheus not found: run scripts/deps.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/staffer-demo.XXXXXX")
gw_pid="" st_pid="" drv_pid=""

# stop_pid and cleanup run from traps
# shellcheck disable=SC2317
stop_pid() { # pid: TERM, wait up to 3 s, then KILL
	[ -n "$1" ] || return 0
	kill "$1" 2>/dev/null || return 0
	for _ in $(seq 30); do
		kill -0 "$1" 2>/dev/null || { wait "$1" 2>/dev/null || true; return 0; }
		sleep 0.1
	done
	kill -9 "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

# shellcheck disable=SC2317
cleanup() {
	rc=$?
	trap - EXIT INT TERM
	stop_pid "$drv_pid"
	stop_pid "$st_pid"
	"$root/scripts/prometheus.sh" stop "$tmp/prom" >/dev/null 2>&1 || true
	stop_pid "$gw_pid"
	if [ "${DEMO_KEEP:-0}" = 1 ]; then
		echo "demo: kept $tmp (staffer.log, gateway.log, prom/)"
	else
		rm -rf "$tmp"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# Background jobs of a script ignore SIGINT: Ctrl-C stops only the driver
# (which prints its summary), then this script cleans up.

free_port() {
	"$PY" "$root/scripts/freeport.py"
}

# 1. the gateway binds any free port and tells us which
"$PY" "$here/gateway.py" --port 0 --port-file "$tmp/gateway.port" \
	--seconds "$SECONDS_" --seed "$SEED" --cold-start "$COLD" --peak "$PEAK" \
	--wait-sla "$SLA" --hold >"$tmp/gateway.log" 2>&1 &
gw_pid=$!
for _ in $(seq 100); do
	[ -s "$tmp/gateway.port" ] && break
	kill -0 "$gw_pid" 2>/dev/null || { cat "$tmp/gateway.log" >&2; die "gateway failed"; }
	sleep 0.1
done
[ -s "$tmp/gateway.port" ] || die "gateway did not start"
gport=$(cat "$tmp/gateway.port")

# 2. a real Prometheus, scraping the gateway every second
pport=$(free_port)
"$root/scripts/prometheus.sh" start "$tmp/prom" "$pport" "127.0.0.1:$gport" ||
	die "prometheus did not start"

# Prometheus hands new targets to its scrapers only every 5 s, so the first
# samples come some seconds after it is ready.  Hold the traffic script until
# it has two, so that staffer sees the script from its first second.
"$PY" - "http://127.0.0.1:$pport" <<'PY' || echo "demo: no samples in Prometheus yet; starting anyway" >&2
import json, sys, time, urllib.parse, urllib.request
q = urllib.parse.urlencode({"query": "count_over_time(gateway_requests_total[1m])"})
for _ in range(300):
    try:
        with urllib.request.urlopen(sys.argv[1] + "/api/v1/query?" + q, timeout=2) as r:
            res = json.load(r)["data"]["result"]
        if res and float(res[0]["value"][1]) >= 2:
            sys.exit(0)
    except (OSError, ValueError, KeyError, IndexError):
        pass
    time.sleep(0.1)
sys.exit(1)
PY

# 3. staffer, pointed at that Prometheus.  A config file rather than
# --prometheus only to scale the answer cache with the compressed poll:
# the default TTL, 20 s (refreshed ahead at 15 s: one backend query per
# KEDA cycle, docs/config.md "The answer cache"), would hand the demo's
# 5 s polls answers up to four polls old.  A third of the poll, at most
# 5 s, keeps every poll's answer nearly fresh.
ttl=$("$PY" -c 'import sys; print(round(min(5.0, float(sys.argv[1]) / 3), 2))' "$POLL")
cat >"$tmp/staffer.json" <<JSON
{
  "cacheTTLSeconds": $ttl,
  "backends": [{"name": "default", "url": "http://127.0.0.1:$pport"}]
}
JSON
sport=$(free_port)
# debug: the decision line of every call (at info only changes are logged),
# which the driver shows in its table.
"$STAFFER" serve --listen "127.0.0.1:$sport" --config "$tmp/staffer.json" \
	--log-level debug 2>"$tmp/staffer.log" >/dev/null &
st_pid=$!
sleep 0.3
kill -0 "$st_pid" 2>/dev/null || { cat "$tmp/staffer.log" >&2; die "staffer exited at once"; }
"$PY" -c 'import sys, urllib.request; urllib.request.urlopen(urllib.request.Request(sys.argv[1], data=b""), timeout=3)' \
	"http://127.0.0.1:$gport/start" || die "gateway did not start its clock"

echo "demo: gateway http://127.0.0.1:$gport  prometheus http://127.0.0.1:$pport  staffer 127.0.0.1:$sport (log: $tmp/staffer.log)"
echo

# 4. the KEDA/HPA stand-in.  It runs as a job so that TERM is handled at
# once; on INT it finishes its row and prints the summary before we clean up.
set +e
"$PY" "$here/driver.py" --staffer "127.0.0.1:$sport" \
	--gateway "http://127.0.0.1:$gport" --log "$tmp/staffer.log" \
	--staffer-pid "$st_pid" \
	--pydir "$root/build/py" --seconds "$SECONDS_" --poll "$POLL" \
	--seed "$SEED" --cold-start "$COLD" --peak "$PEAK" \
	--cache-ttl "$ttl" --meta "${DEMO_META:-}" --csv "$tmp/demo.csv" --out "$OUT" \
	--staffer-bin "$STAFFER" &
drv_pid=$!
trap 'kill -INT "$drv_pid" 2>/dev/null' INT
while :; do
	wait "$drv_pid"
	rc=$?
	kill -0 "$drv_pid" 2>/dev/null || break
done
drv_pid=""
trap 'exit 130' INT
set -e
if ! kill -0 "$st_pid" 2>/dev/null; then
	echo "demo: staffer exited during the demo; the end of its log:" >&2
	tail -n 20 "$tmp/staffer.log" >&2
	rc=1
elif [ "$rc" -eq 130 ]; then
	exit 130
elif [ "$rc" -ne 0 ]; then
	echo "demo: the end of staffer's log:" >&2
	tail -n 10 "$tmp/staffer.log" >&2
fi
exit "$rc"
