#!/bin/sh
# tests/cli/calc.sh - `staffer calc` through the real binary.
#
# The worked examples of docs/math.md, the Erlang C and cost examples of
# docs/math.md, the forecast on a ramp, demand beyond the model's limit,
# and bad input (exit status 2, a message that names the key).  Expected
# values are worked out in docs/math.md and, for Erlang C and cost, by a
# brute-force search over the textbook formula.
#
# usage: tests/cli/calc.sh        (STAFFER=path overrides build/staffer)
# Prints "N passed, N failed"; exits 1 when anything failed.
set -u

NAME=calc.sh
. "$(dirname "$0")/lib.sh"

# calc ARGS...: run `staffer calc ARGS`.
calc() {
	run calc "$@"
}

# jget KEY: a top-level value of calc's one-line, flat JSON (the quote
# before KEY keeps "replicas" from matching "exact_replicas").
jget() {
	printf '%s\n' "$OUT" | sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p"
}

# is NAME KEY VALUE: the JSON value of KEY is exactly VALUE.
is() {
	v=$(jget "$2")
	if [ "$v" = "$3" ]; then ok; else bad "$1: $2 = '$v', want '$3'"; fi
}

# near NAME KEY VALUE TOL: the JSON value of KEY is within TOL of VALUE.
near() {
	v=$(jget "$2")
	if [ -n "$v" ] && awk -v a="$v" -v b="$3" -v t="$4" \
		'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; then
		ok
	else
		bad "$1: $2 = '$v', want $3 +- $4"
	fi
}

# refuse NAME KEY ARGS...: exit 2, and stderr names 'KEY'.
refuse() {
	n=$1
	k=$2
	shift 2
	calc "$@"
	status "$n" 2
	contains "$n" err "'$k'"
	nothing_out "$n"
}

# ---- docs/math.md's worked examples ---------------------------------------

calc arrivalRate=2 serviceTime=10 beta=1.5
status "seed sqrt text" 0
if printf '%s\n' "$OUT" | grep -q '^replicas .* 27$'; then ok
else bad "seed sqrt text: no 'replicas ... 27' line"; fi

calc --json arrivalRate=2 serviceTime=10 beta=1.5
status "seed sqrt" 0
is "seed sqrt" replicas 27
near "seed sqrt" busy_slots 20 1e-9
near "seed sqrt" headroom_slots 6.7082 1e-4
near "seed sqrt" total_slots 26.7082 1e-4
is "seed sqrt" capped false
is "seed sqrt" active true
is "seed sqrt" forecast_used false
near "seed sqrt" arrival_forecast 0 0
near "seed sqrt" arrival_used 2 0

for st in none sqrt; do
	calc --json queueDepth=100 arrivalRate=0.5 serviceTime=10 \
		drainSeconds=300 staffing=$st
	status "seed drain $st" 0
	near "seed drain $st" drain_slots 3.1667 1e-4
	near "seed drain $st" busy_slots 5 1e-9
done
is "seed drain sqrt" replicas 12  # 5 + 1.5 sqrt 5 + 3.1667 = 11.52
calc --json queueDepth=100 arrivalRate=0.5 serviceTime=10 staffing=none
is "seed drain none" replicas 9   # 5 + 3.1667 = 8.17

# ---- Erlang C and cost (docs/math.md) ------------------------------------

calc --json arrivalRate=2 serviceTime=10 staffing=erlangc \
	targetWaitSeconds=2 waitProbability=0.05
status "erlangc" 0
is "erlangc" replicas 26          # P(wait > 2 s) 0.043 at 26, 0.077 at 25
near "erlangc" headroom_slots 6 1e-9

calc --json arrivalRate=2 serviceTime=10 staffing=cost targetWaitSeconds=2 \
	costPerReplicaHour=4 slaPenaltyPerHour=500
status "cost n=1" 0
is "cost n=1" replicas 28
calc --json arrivalRate=2 serviceTime=10 staffing=cost targetWaitSeconds=2 \
	costPerReplicaHour=4 slaPenaltyPerHour=500 slotsPerReplica=4
is "cost n=4" replicas 8          # 7: 34.34/h, 8: 32.41/h, 9: 36.02/h
near "cost n=4" total_slots 32 1e-9

# ---- the forecast --------------------------------------------------------

# 1, 1.5, 2, 2.5 at 15 s (600 s / 40), 180 s ahead: 2.5 + 12 * 0.5 = 8.5.
calc --json arrivalRateSeries=1,1.5,2,2.5 serviceTime=10 \
	coldStartSeconds=180
status "ramp" 0
near "ramp" arrival_rate 2.5 0    # the last value
near "ramp" arrival_forecast 8.5 1e-9
near "ramp" arrival_used 8.5 1e-9
is "ramp" forecast_used true
near "ramp" forecast_step_seconds 15 0
near "ramp" forecast_steps 12 0
near "ramp" forecast_level 2.5 1e-9
near "ramp" forecast_trend 0.5 1e-9
is "ramp" forecast_points 4
near "ramp" busy_slots 85 1e-9
is "ramp" replicas 99             # 85 + 1.5 sqrt 85 = 98.83

calc arrivalRateSeries=1,1.5,2,2.5 serviceTime=10 coldStartSeconds=180
contains "ramp text" out "forecast   lambda-hat = 8.5 req/s in 180 s (12 steps"
contains "ramp text" out ", used"
contains "ramp text" out "L = lambda-hat * W"
contains "ramp text" out "(last of series)"

# The step: given, or from forecastWindowSeconds (400 / 40 = 10 s).
calc --json arrivalRateSeries=1,1.5,2,2.5 serviceTime=10 \
	coldStartSeconds=180 stepSeconds=30
near "ramp step 30" arrival_forecast 5.5 1e-9
calc --json arrivalRateSeries=1,1.5,2,2.5 serviceTime=10 \
	coldStartSeconds=180 forecastWindowSeconds=400
near "ramp window 400" forecast_step_seconds 10 0
near "ramp window 400" arrival_forecast 11.5 1e-9

# A measured lambda above the forecast wins.
calc --json arrivalRateSeries=1,1.5,2,2.5 arrivalRate=9 serviceTime=10 \
	coldStartSeconds=180
is "ramp below lambda" forecast_used false
near "ramp below lambda" arrival_used 9 0
near "ramp below lambda" arrival_forecast 8.5 1e-9
calc arrivalRateSeries=1,1.5,2,2.5 arrivalRate=9 serviceTime=10 \
	coldStartSeconds=180
contains "ramp below lambda text" out "not used"

# A 40-point ramp from 1 to 4.9 req/s: exact, 20 steps ahead is 6.9.
series=$(awk 'BEGIN { for (i = 0; i < 40; i++)
	printf "%s%g", (i ? "," : ""), 1 + 0.1 * i }')
calc --json arrivalRateSeries="$series" serviceTime=2 coldStartSeconds=300
near "long ramp" arrival_forecast 6.9 1e-9
is "long ramp" forecast_points 40

# A fall: the forecast is clamped at 0 and not used.
calc --json arrivalRateSeries=10,8,6,4,2 serviceTime=10 coldStartSeconds=180
near "fall" arrival_forecast 0 0
is "fall" forecast_used false
near "fall" arrival_used 2 0

# Activity stays on the measured lambda.
calc --json arrivalRateSeries=0,1,2 arrivalRate=0 serviceTime=10 \
	coldStartSeconds=60
is "forecast only" active false
is "forecast only" forecast_used true
near "forecast only" arrival_forecast 6 1e-9
is "forecast only" replicas 72    # 4 steps of 1: 6 req/s, 60 + 11.62

# No series, or no cold start: no forecast, and the text says so.
calc arrivalRate=1 serviceTime=10 coldStartSeconds=180
status "cold start without series" 0
contains "cold start without series" out "forecast   none"
calc arrivalRateSeries=3,2 serviceTime=10
status "series without cold start" 0
contains "series without cold start" out "forecast   off"
calc --json arrivalRateSeries=3,2 serviceTime=10
near "series without cold start" arrival_rate 2 0
near "series without cold start" arrival_forecast 0 0

# ---- demand beyond the model's limit -------------------------------------

calc --json arrivalRate=1e9 serviceTime=10 maxReplicas=100
status "beyond, capped" 0
is "beyond, capped" replicas 100
is "beyond, capped" capped true
is "beyond, capped" total_slots null
calc arrivalRate=1e9 serviceTime=10
status "beyond, no cap" 1
contains "beyond, no cap" err "too large"

# ---- bad input -----------------------------------------------------------

refuse "series: not a number" arrivalRateSeries \
	arrivalRateSeries=1,x,2 serviceTime=1 coldStartSeconds=60
contains "series: not a number" err "value 2 of 3, 'x'"
refuse "series: negative" arrivalRateSeries \
	arrivalRateSeries=1,2,-3 serviceTime=1 coldStartSeconds=60
contains "series: negative" err "value 3 of 3, '-3', is out of range"
refuse "series: nan" arrivalRateSeries \
	arrivalRateSeries=nan serviceTime=1 coldStartSeconds=60
long=0.$(awk 'BEGIN { for (i = 0; i < 70; i++) printf "0" }')1
refuse "series: too long" arrivalRateSeries \
	arrivalRateSeries=1,"$long" serviceTime=1 coldStartSeconds=60
contains "series: too long" err "value 2 of 2"
refuse "series: empty value" arrivalRateSeries \
	arrivalRateSeries=1,,2 serviceTime=1 coldStartSeconds=60
contains "series: empty value" err "value 2 of 3 is empty"
refuse "series: trailing comma" arrivalRateSeries \
	arrivalRateSeries=1,2, serviceTime=1 coldStartSeconds=60
refuse "series: empty" arrivalRateSeries \
	arrivalRateSeries= serviceTime=1 coldStartSeconds=60
many=$(awk 'BEGIN { for (i = 0; i < 1001; i++)
	printf "%s1", (i ? "," : "") }')
refuse "series: 1001 values" arrivalRateSeries \
	arrivalRateSeries="$many" serviceTime=1 coldStartSeconds=60
contains "series: 1001 values" err "more than 1000"
most=$(awk 'BEGIN { for (i = 0; i < 1000; i++)
	printf "%s1", (i ? "," : "") }')
calc --json arrivalRateSeries="$most" serviceTime=1 coldStartSeconds=60
status "series: 1000 values" 0
refuse "step: zero" stepSeconds \
	arrivalRateSeries=1,2 stepSeconds=0 serviceTime=1 coldStartSeconds=60
refuse "step: junk" stepSeconds \
	arrivalRateSeries=1,2 stepSeconds=15s serviceTime=1 coldStartSeconds=60
refuse "step: without series" stepSeconds \
	stepSeconds=15 arrivalRate=1 serviceTime=1 coldStartSeconds=60
refuse "arrivalRate negative" arrivalRate arrivalRate=-1 serviceTime=10
refuse "beta junk" beta arrivalRate=2 serviceTime=10 beta=abc
refuse "unknown key" betta arrivalRate=2 serviceTime=10 betta=2
refuse "erlangc needs tau" targetWaitSeconds \
	arrivalRate=2 serviceTime=10 staffing=erlangc waitProbability=0.05
refuse "alpha without cold start" forecastAlpha \
	arrivalRateSeries=1,2 serviceTime=10 forecastAlpha=0.5
refuse "alpha out of range" forecastAlpha \
	arrivalRateSeries=1,2 serviceTime=10 coldStartSeconds=60 \
	forecastAlpha=0
refuse "cold start negative" coldStartSeconds \
	arrivalRate=1 serviceTime=10 coldStartSeconds=-5

calc --help
status "help" 0
contains "help" out "arrivalRateSeries"

finish
