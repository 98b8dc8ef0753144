#!/bin/sh
# tests/cli/tune.sh - `staffer tune` through the real binary without a
# metrics backend: usage and its errors (exit 2), --file selection, a
# backend that refuses connections (exit 1, the query named), and --trace
# offline on small rate files and a per-request CSV: an answer, the same
# answer for the same seed, histories too short or too sparse (exit 1).
# Against a real Prometheus holding history: tests/integration/test_tune.py.
#
# usage: tests/cli/tune.sh        (STAFFER=path overrides build/staffer)
# Prints "N passed, N failed"; exits 1 when anything failed.
set -u

NAME=tune.sh
FIX=tests/cli/lint
. "$(dirname "$0")/lib.sh"

DEAD=http://127.0.0.1:1
Q='arrivalRateQuery=sum(rate(x[1m]))'

tune() {
	run tune "$@"
}

# refuse NAME CODE TEXT ARGS...: exit CODE, TEXT on stderr, nothing on
# stdout.
refuse() {
	n=$1
	c=$2
	t=$3
	shift 3
	tune "$@"
	status "$n" "$c"
	contains "$n" err "$t"
	nothing_out "$n"
}

# rates FILE HOURS RATE: a rate file, one window a minute, a day-shaped
# rate around RATE req/s.
rates() {
	awk -v h="$2" -v r="$3" 'BEGIN {
		print "window_start_s,total_rate_rps,active_clients"
		for (t = 0; t < h * 3600; t += 60)
			printf "%d,%.4f,1\n", t, r * (1 - 0.5 * cos(6.2831853 * t / 86400))
	}' >"$1"
}

rates "$TMP/r8h.csv" 8 1
rates "$TMP/r5h.csv" 5 1
rates "$TMP/thin.csv" 8 0.02
M="slotsPerReplica=4 serviceTime=8"

# ---- usage -----------------------------------------------------------------

tune --help
status "help" 0
contains "help" out "--range DURATION"
contains "help" out "--cold-start S"
refuse "no metadata" 2 "no metadata" --prometheus "$DEAD"
refuse "not key=value" 2 "'beta' is not key=value" --prometheus "$DEAD" beta
refuse "unknown option" 2 "unknown option '--nope'" --nope 1 "$Q"
refuse "option without value" 2 "--range needs a value" "$Q" --range
refuse "bad range" 2 "--range '5x': allowed: a duration from 1h to 31d" \
	--prometheus "$DEAD" --range 5x "$Q"
refuse "range too long" 2 "--range '40d'" --prometheus "$DEAD" --range 40d "$Q"
refuse "range too short" 2 "--range '30m'" --prometheus "$DEAD" --range 30m "$Q"
refuse "bad step" 2 "--step '0': allowed: a number from 1 to 3600 seconds" \
	--prometheus "$DEAD" --step 0 "$Q"
refuse "bad target" 2 "--target '0': allowed: a number above 0 up to 1" \
	--prometheus "$DEAD" --target 0 "$Q"
refuse "target over 1" 2 "--target '99'" --prometheus "$DEAD" --target 99 "$Q"
refuse "bad sla" 2 "--sla '-1'" --prometheus "$DEAD" --sla -1 "$Q"
refuse "bad cold start" 2 "--cold-start '4000'" --prometheus "$DEAD" \
	--cold-start 4000 "$Q"
refuse "bad seed" 2 "--seed '1.5'" --prometheus "$DEAD" --seed 1.5 "$Q"
refuse "bad trigger" 2 "--trigger '-1'" --file x.yaml --trigger -1 "$Q"
refuse "bad timeout" 2 "--timeout '0'" --prometheus "$DEAD" --timeout 0 "$Q"
refuse "name without file" 2 "there is no --file" --name a/b "$Q"
refuse "no backend" 2 "no backend: give --config FILE or --prometheus URL" \
	"$Q" serviceTime=1
refuse "trace and backend" 2 "not both" --trace "$TMP/r8h.csv" \
	--prometheus "$DEAD" "$Q"
refuse "end with trace" 2 "--end picks the backend's range" \
	--trace "$TMP/r8h.csv" --end @1 serviceTime=1
refuse "plot and json" 2 "--plot and --json" --prometheus "$DEAD" --json \
	--plot x.png "$Q"
refuse "bad end" 2 "--end 'yesterday'" --prometheus "$DEAD" \
	--end yesterday "$Q" serviceTime=1

# ---- metadata and files: explain's messages -------------------------------

tune --prometheus "$DEAD" "$Q" serviceTime=10 beta=abc
status "bad beta" 2
"$BIN" calc beta=abc 2>"$TMP/calc" >/dev/null
want=$(sed 's/^staffer calc: //' "$TMP/calc")
if [ "$ERR" = "staffer tune: $want" ]; then ok
else bad "bad beta: not calc's message '$want'"; fi
refuse "missing arrivalRateQuery" 2 "metadata 'arrivalRateQuery' is required" \
	--prometheus "$DEAD" serviceTime=10
refuse "missing file" 2 "$TMP/none.yaml: cannot open" \
	--prometheus "$DEAD" --file "$TMP/none.yaml"
printf 'kind: Deployment\napiVersion: apps/v1\n' >"$TMP/deploy.yaml"
refuse "no ScaledObject" 2 "no ScaledObject (keda.sh/v1alpha1) with a trigger" \
	--prometheus "$DEAD" --file "$TMP/deploy.yaml"
refuse "missing trace" 2 "--trace '$TMP/none.csv': cannot open" \
	--trace "$TMP/none.csv" serviceTime=1
printf 'nonsense\n1,2\n' >"$TMP/bad.csv"
refuse "bad trace" 2 "--trace:" --trace "$TMP/bad.csv" serviceTime=1
refuse "trace without service" 2 "has no service_s column: give serviceTime" \
	--trace "$TMP/r8h.csv" slotsPerReplica=4

# ---- a backend that is not there: exit 1, the query named ----------------

tune --prometheus "$DEAD" "$Q" serviceTime=10 --range 1d --timeout 5
status "backend down" 1
contains "backend down" err "arrivalRateQuery: range"
contains "backend down" err "backend 'default'"
nothing_out "backend down"

# ---- --trace offline ---------------------------------------------------------

# shellcheck disable=SC2086
tune --trace "$TMP/r8h.csv" $M --quiet
status "offline answer" 0
contains "offline answer" out "split      training: the first 6.7 h; held out: the last 1.3 h"
contains "offline answer" out "recommendation"
contains "offline answer" out "current"
A=$OUT
if [ -z "$ERR" ]; then ok; else bad "--quiet: stderr not empty"; fi
# shellcheck disable=SC2086
tune --trace "$TMP/r8h.csv" $M --quiet
if [ "$OUT" = "$A" ]; then ok; else bad "same seed: a different answer"; fi
# shellcheck disable=SC2086
tune --trace "$TMP/r8h.csv" $M
contains "progress" err "training simulation 1 (at most"
contains "progress" err "held-out simulation 1"
# shellcheck disable=SC2086
tune --trace "$TMP/r8h.csv" $M --json --quiet
status "offline json" 0
if printf '%s' "$OUT" | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["recommendation"] in ("change", "keep"), j
assert j["history"]["held_out_seconds"] == 4800, j
assert j["current"]["training"]["sla_attainment"] > 0.5, j
assert set(j["searched"]) == {"beta", "peakednessMax", "scaleDownHoldSeconds"}, j
'; then ok; else bad "offline json: not the expected object"; fi
# with --cold-start and a queue, coldStartSeconds and drainSeconds join
# shellcheck disable=SC2086
tune --trace "$TMP/r8h.csv" $M --json --quiet --cold-start 300 \
	queueDepthQuery=q peakedness=2
if printf '%s' "$OUT" | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["searched"] == ["beta", "peakedness", "drainSeconds",
                         "scaleDownHoldSeconds", "coldStartSeconds"], j
'; then ok; else bad "searched keys: $OUT"; fi
# ... but not with coldStartQuery: the replay measures the cold start
# shellcheck disable=SC2086
tune --trace "$TMP/r8h.csv" $M --json --quiet --cold-start 300 \
	queueDepthQuery=q peakedness=2 coldStartQuery=ksm
if printf '%s' "$OUT" | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["searched"] == ["beta", "peakedness", "drainSeconds",
                         "scaleDownHoldSeconds"], j
'; then ok; else bad "searched keys with coldStartQuery: $OUT"; fi
# shellcheck disable=SC2086
tune --trace "$TMP/r5h.csv" $M
status "too short" 1
contains "too short" err "history too short to recommend anything"
contains "too short" err "tune needs at least 6 h"
nothing_out "too short"
# shellcheck disable=SC2086
tune --trace "$TMP/thin.csv" $M
status "too sparse" 1
contains "too sparse" err "history too sparse to recommend anything"
nothing_out "too sparse"

# a per-request CSV with its own service times
awk 'BEGIN { srand(3); print "arrival_s,input_tokens,output_tokens,service_s"
	for (t = 0; t < 7 * 3600; t += -log(rand()) / 1.5)
		printf "%.3f,100,50,%.3f\n", t, 0.01 - 8 * log(rand()) }' >"$TMP/req.csv"
tune --trace "$TMP/req.csv" slotsPerReplica=4 --quiet
status "per-request CSV" 0
contains "per-request CSV" out "the trace's service_s column"

finish
