#!/bin/sh
# Run a throw-away Prometheus (Debian's package) on loopback for tests and
# the demo.
#
#   scripts/prometheus.sh start DIR PORT TARGET...   scrape TARGETs (host:port)
#                                                   every 1 s (PROM_SCRAPE_INTERVAL=15s:
#                                                   another interval); wait until
#                                                   ready; a TARGET @FILE is a
#                                                   file_sd file (targets with
#                                                   their labels, job included)
#   scripts/prometheus.sh stop DIR                   stop it, keep DIR
#
# DIR holds the config, the TSDB, prometheus.log and prometheus.pid.  Starting
# twice with the same DIR restarts.  Exit status is non-zero if Prometheus
# does not become ready within 30 s (the log is printed).
set -eu

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || {
	echo "usage: $0 start DIR PORT TARGET... | stop DIR" >&2
	exit 2
}

stop() {
	if [ -f "$dir/prometheus.pid" ]; then
		pid=$(cat "$dir/prometheus.pid")
		if kill "$pid" 2>/dev/null; then
			i=0
			while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
				sleep 0.1
				i=$((i + 1))
			done
			kill -9 "$pid" 2>/dev/null || true
		fi
		rm -f "$dir/prometheus.pid"
	fi
}

case "$cmd" in
stop)
	stop
	;;
start)
	port=${3:?port}
	shift 3
	[ $# -gt 0 ] || { echo "$0: at least one scrape target" >&2; exit 2; }
	stop
	mkdir -p "$dir/data"
	targets=""
	files=""
	for t in "$@"; do
		case $t in
		@*) files="$files'${t#@}', " ;;
		*) targets="$targets'$t', " ;;
		esac
	done
	{
		cat <<YML
global:
  scrape_interval: ${PROM_SCRAPE_INTERVAL:-1s}
  evaluation_interval: ${PROM_SCRAPE_INTERVAL:-1s}
scrape_configs:
YML
		[ -z "$targets" ] || cat <<YML
  - job_name: staffer-test
    static_configs:
      - targets: [${targets%, }]
YML
		[ -z "$files" ] || cat <<YML
  - job_name: file-sd
    file_sd_configs:
      - files: [${files%, }]
YML
	} > "$dir/prometheus.yml"
	prometheus --config.file="$dir/prometheus.yml" \
		--storage.tsdb.path="$dir/data" \
		--web.listen-address="127.0.0.1:$port" \
		--log.level=warn >"$dir/prometheus.log" 2>&1 &
	echo $! >"$dir/prometheus.pid"
	i=0
	until curl -sf "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -gt 300 ] || ! kill -0 "$(cat "$dir/prometheus.pid")" 2>/dev/null; then
			echo "$0: prometheus did not become ready on :$port" >&2
			cat "$dir/prometheus.log" >&2
			stop
			exit 1
		fi
		sleep 0.1
	done
	;;
*)
	echo "usage: $0 start DIR PORT TARGET... | stop DIR" >&2
	exit 2
	;;
esac
