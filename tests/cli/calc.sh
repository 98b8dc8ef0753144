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

# Drain: every waiting request needs a slot, Q W / D: 100 * 10 / 300.
for st in none sqrt; do
	calc --json queueDepth=100 arrivalRate=0.5 serviceTime=10 \
		drainSeconds=300 staffing=$st
	status "seed drain $st" 0
	near "seed drain $st" drain_slots 3.3333 1e-4
	near "seed drain $st" busy_slots 5 1e-9
done
is "seed drain sqrt" replicas 12  # 5 + 1.5 sqrt 5 + 3.3333 = 11.69
calc --json queueDepth=100 arrivalRate=0.5 serviceTime=10 drainSeconds=300 \
	staffing=none
is "seed drain none" replicas 9   # 5 + 3.3333 = 8.33
# The default D is 15 s: 5 + 66.67 = 71.67.
calc --json queueDepth=100 arrivalRate=0.5 serviceTime=10 staffing=none
near "drain default" drain_slots 66.6667 1e-4
is "drain default" replicas 72

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

# ---- the series: forecast, hold, peakedness -------------------------------

# ramp N FROM STEP: N comma-separated values FROM, FROM + STEP, ...
ramp() {
	awk -v n="$1" -v a="$2" -v d="$3" 'BEGIN { for (i = 0; i < n; i++)
		printf "%s%g", (i ? "," : ""), a + d * i }'
}

# Holt's forecast (forecastMethod holt; the default, auto, is below).
# 21 points (half of the default window's 41) from 1 to 11 at 15 s; the
# horizon is coldStartSeconds + 60 / 2 + 30 = 240 s, 16 steps:
# 11 + 16 * 0.5 = 19.
R21=$(ramp 21 1 0.5)
calc --json forecastMethod=holt arrivalRateSeries="$R21" serviceTime=10 coldStartSeconds=180
status "ramp" 0
near "ramp" arrival_rate 11 0     # the last value
near "ramp" arrival_forecast 19 1e-9
near "ramp" arrival_used 19 1e-9
is "ramp" forecast_used true
near "ramp" forecast_step_seconds 15 0
near "ramp" forecast_steps 16 0
near "ramp" forecast_horizon_seconds 240 0
near "ramp" forecast_level 11 1e-9
near "ramp" forecast_trend 0.5 1e-9
is "ramp" series_points 21
near "ramp" busy_slots 190 1e-9
near "ramp" peakedness 1 0        # a clean ramp has no bursts
is "ramp" replicas 211            # 190 + 1.5 sqrt 190 = 210.68

calc forecastMethod=holt arrivalRateSeries="$R21" serviceTime=10 coldStartSeconds=180
contains "ramp text" out "forecast   lambda-hat = 19 req/s in 240 s"
contains "ramp text" out ", used"
contains "ramp text" out "L = lambda-hat * W"
contains "ramp text" out "(last of series)"

# coldStart= (what coldStartQuery measured) replaces coldStartSeconds:
# 300 + 60 = 360 s ahead, 24 steps: 11 + 12 = 23; the hold 360 s.
calc --json forecastMethod=holt arrivalRateSeries="$R21" serviceTime=10 coldStartSeconds=180 \
	coldStart=300
status "ramp measured" 0
near "ramp measured" forecast_horizon_seconds 360 0
near "ramp measured" arrival_forecast 23 1e-9
near "ramp measured" cold_start_seconds 300 0
is "ramp measured" cold_start_measured true
near "ramp measured" hold_seconds 360 0
calc forecastMethod=holt arrivalRateSeries="$R21" serviceTime=10 coldStart=300
contains "ramp measured text" out "cold start 300 s, measured by coldStartQuery (coldStartSeconds 120 while it has no data)"
contains "ramp measured text" out "forecast   lambda-hat = 23 req/s in 360 s"
# Longer than the series' 600 s: the hold is cut to it, and says so.
calc forecastMethod=holt arrivalRateSeries="$R21" serviceTime=10 coldStart=1000
contains "cold cut text" out "the hold is cut to 600 s, the range of the series"
calc --json forecastMethod=holt arrivalRateSeries="$R21" serviceTime=10 coldStart=1000
near "cold cut" hold_seconds 600 0
near "cold cut" forecast_horizon_seconds 1060 0
# Without coldStart: no cold start line, no cold_start_* keys.
calc forecastMethod=holt arrivalRateSeries="$R21" serviceTime=10
lacks "no coldStart text" out "cold start "
calc --json forecastMethod=holt arrivalRateSeries="$R21" serviceTime=10
lacks "no coldStart json" out "cold_start"
refuse "coldStart 0" coldStart arrivalRate=1 serviceTime=1 coldStart=0
refuse "coldStart big" coldStart arrivalRate=1 serviceTime=1 coldStart=3601
refuse "coldStart text" coldStart arrivalRate=1 serviceTime=1 coldStart=soon
refuse "coldStart no forecast" coldStart arrivalRate=1 serviceTime=1 \
	coldStart=300 coldStartSeconds=0

# 20 points are fewer than half the window: no forecast yet.
calc --json forecastMethod=holt arrivalRateSeries="$(ramp 20 1 0.5)" serviceTime=10
is "short ramp" forecast_used false
calc forecastMethod=holt arrivalRateSeries="$(ramp 20 1 0.5)" serviceTime=10
contains "short ramp text" out "forecast   none yet: 20 of the 21 points it needs (half of forecastWindowSeconds 600 s)"

# The step: given (30 s: 8 steps ahead, 11 + 4 = 15), or from
# forecastWindowSeconds (400 / 40 = 10 s: 24 steps, 11 + 12 = 23).
calc --json forecastMethod=holt arrivalRateSeries="$R21" serviceTime=10 coldStartSeconds=180 \
	stepSeconds=30
near "ramp step 30" arrival_forecast 15 1e-9
calc --json forecastMethod=holt arrivalRateSeries="$R21" serviceTime=10 coldStartSeconds=180 \
	forecastWindowSeconds=400
near "ramp window 400" forecast_step_seconds 10 0
near "ramp window 400" arrival_forecast 23 1e-9

# A measured lambda above the forecast wins.
calc --json forecastMethod=holt arrivalRateSeries="$R21" arrivalRate=30 serviceTime=10 \
	coldStartSeconds=180
is "ramp below lambda" forecast_used false
near "ramp below lambda" arrival_used 30 0
near "ramp below lambda" arrival_forecast 19 1e-9
calc forecastMethod=holt arrivalRateSeries="$R21" arrivalRate=30 serviceTime=10 \
	coldStartSeconds=180
contains "ramp below lambda text" out "not used"

# A 40-point ramp from 1 to 4.9 req/s: exact, 360 s (24 steps) ahead is
# 4.9 + 2.4 = 7.3.
calc --json forecastMethod=holt arrivalRateSeries="$(ramp 40 1 0.1)" serviceTime=2 \
	coldStartSeconds=300
near "long ramp" arrival_forecast 7.3 1e-9
is "long ramp" series_points 40

# forecastMethod auto (the default): Holt's forecast only once its past
# forecasts on the series can be judged (21 points cannot), and only
# while they beat "no change": a 41-point ramp does, a swing does not.
calc --json arrivalRateSeries="$R21" serviceTime=10 coldStartSeconds=180
is "auto short" forecast_used false
is "auto short" forecast_unearned true
calc arrivalRateSeries="$R21" serviceTime=10 coldStartSeconds=180
contains "auto short text" out "forecast   none yet: too few of Holt's past forecasts on the series"
calc --json arrivalRateSeries="$(ramp 41 1 0.25)" serviceTime=10
is "auto ramp" forecast_used true
near "auto ramp" arrival_forecast 14 1e-9  # 11 + 12 steps of 0.25
SW=$(awk 'BEGIN { for (i = 0; i < 41; i++)
	printf "%s%d", (i ? "," : ""), (int(i / 8) % 2 ? 18 : 10) }')
calc --json arrivalRateSeries="$SW" serviceTime=10
is "auto swing" forecast_used false
is "auto swing" forecast_unearned true
calc arrivalRateSeries="$SW" serviceTime=10
contains "auto swing text" out "did no better than \"no change\""
calc --json arrivalRateSeries="$SW" serviceTime=10 forecastMethod=none
is "forecast none" forecast_unearned false
near "forecast none" arrival_forecast 0 0

# The surge headroom: 10 req/s with a burst to 15 one point in nine but
# in the last 14 (the hold's 180 s see none); 700 points at 15 s hold the
# 40 lead times of 180 s it needs at 0.95.
SG=$(awk 'BEGIN { for (i = 0; i < 700; i++)
	printf "%s%d", (i ? "," : ""), (i % 9 == 8 && i < 686 ? 15 : 10) }')
calc --json arrivalRateSeries="$SG" serviceTime=2 slotsPerReplica=8
is "surge" surge_used true
near "surge" arrival_surge 14.7267 1e-3
near "surge" surge_ratio 1.4438 1e-3
near "surge" surge_peak 15 0
# ... never above the highest rate it read: with a burst in the last
# points the level is higher and level x ratio 15.05 is capped at 15
SG2=$(awk 'BEGIN { for (i = 0; i < 700; i++)
	printf "%s%d", (i ? "," : ""), (i % 9 == 8 ? 15 : 10) }')
calc --json arrivalRateSeries="$SG2" serviceTime=2 slotsPerReplica=8
near "surge cap" arrival_surge 15 0
near "surge cap" surge_peak 15 0
calc arrivalRateSeries="$SG2" serviceTime=2 slotsPerReplica=8
contains "surge cap text" out "x 1.444 (capped at the highest rate seen)"
calc --json arrivalRateSeries="$SG" serviceTime=2 slotsPerReplica=8 \
	surgeQuantile=0
is "surge off" surge_used false
near "surge off" arrival_surge 0 0
calc arrivalRateSeries="$(ramp 400 10 0)" serviceTime=2
contains "surge short text" out "surge      none yet: 400 points 15 s apart; the 0.95-quantile needs 40 lead times of 180 s of rises"
refuse "surgeQuantile 1" surgeQuantile arrivalRate=1 serviceTime=1 \
	surgeQuantile=1
refuse "surgeWindowSeconds small" surgeWindowSeconds arrivalRate=1 \
	serviceTime=1 surgeWindowSeconds=600
refuse "surge without lead" surgeQuantile arrivalRate=1 serviceTime=1 \
	surgeQuantile=0.9 coldStartSeconds=0
refuse "forecastMethod word" forecastMethod arrivalRate=1 serviceTime=1 \
	forecastMethod=arima
refuse "scaleDownHoldOn word" scaleDownHoldOn arrivalRate=1 \
	serviceTime=1 scaleDownHoldOn=memory

# A fall: the hold keeps the highest lambda of the last 180 s (every
# point of this short series).
calc --json arrivalRateSeries=10,8,6,4,2 serviceTime=10
is "fall" forecast_used false
near "fall" arrival_held 10 0
is "fall" held_used true
near "fall" arrival_used 10 0
near "fall" hold_seconds 180 0

# The hold by hand: 28 points at 20 then 13 at 5 req/s (180 s): the 20s
# have left the default hold, one is still in a 195 s one.
H=$(awk 'BEGIN { for (i = 0; i < 41; i++)
	printf "%s%s", (i ? "," : ""), (i < 28 ? 20 : 5) }')
calc --json arrivalRateSeries="$H" serviceTime=2 staffing=none \
	peakedness=off
near "hold 180" arrival_held 5 0
is "hold 180" replicas 10
calc --json arrivalRateSeries="$H" serviceTime=2 staffing=none \
	peakedness=off scaleDownHoldSeconds=195
near "hold 195" arrival_held 20 0
is "hold 195" replicas 40
is "hold 195" scale_down '"hold"'
calc arrivalRateSeries="$H" serviceTime=2 staffing=none peakedness=off \
	scaleDownHoldSeconds=195
contains "hold text" out "hold       195 s (on the arrival rate until the answers span it): the highest lambda over it is 20 req/s, used"
contains "hold text" out "L = lambda-held * W"

# Activity stays on the measured lambda; sizing counts the forecast.
calc --json forecastMethod=holt arrivalRateSeries="$(ramp 21 0 1)" arrivalRate=0 \
	serviceTime=10 coldStartSeconds=60
is "forecast only" active false
is "forecast only" forecast_used true
near "forecast only" arrival_forecast 28 1e-9   # 20 + 8 steps of 1
is "forecast only" replicas 306   # 280 + 1.5 sqrt 280 = 305.1

# No series: no forecast, no hold, z = 1, and the text says so.
calc arrivalRate=1 serviceTime=10 coldStartSeconds=180
status "cold start without series" 0
contains "cold start without series" out "forecast   none: no series"
contains "cold start without series" out "peakedness z = 1: no series"
calc arrivalRateSeries=3,2 serviceTime=10 coldStartSeconds=0
status "series without cold start" 0
contains "series without cold start" out "forecast   off"
contains "series without cold start" out "hold       off"
calc --json arrivalRateSeries=3,2 serviceTime=10 coldStartSeconds=0
near "series without cold start" arrival_rate 2 0
near "series without cold start" arrival_forecast 0 0

# Peakedness: the hand-worked series of tests/unit/test_peak.c reads
# z = 64, kept to peakednessMax (2 by default): headroom 1.5 sqrt(2 L).
P=$(awk 'BEGIN { for (i = 0; i < 16; i++)
	printf "%s%d", (i ? "," : ""), 10 + (int(i / 4) % 2 ? -2 : 2) }')
calc --json arrivalRateSeries="$P" arrivalRate=10 serviceTime=2 \
	coldStartSeconds=0
near "peakedness" peakedness_raw 64 1e-9
near "peakedness" peakedness 2 0
near "peakedness" headroom_slots 9.4868 1e-4   # 1.5 sqrt 40
calc --json arrivalRateSeries="$P" arrivalRate=10 serviceTime=2 \
	coldStartSeconds=0 peakednessMax=100
near "peakedness max 100" peakedness 64 1e-9
calc --json arrivalRate=10 serviceTime=2 peakedness=4
near "peakedness given" headroom_slots 13.4164 1e-4   # 1.5 sqrt 80
is "peakedness given" peakedness_measured false
calc arrivalRateSeries="$P" arrivalRate=10 serviceTime=2 coldStartSeconds=0
contains "peakedness text" out "peakedness z = 2, measured 64 over 60 s windows, kept to 1..2"

# ---- scale-down against the current replicas ------------------------------

# The margin: exact 8.7 from 10 stays 10; 8.4 goes to 9 (13 points of
# 15 s span the 180 s hold).
calc --json arrivalRate=8.7 arrivalRateSeries="$(ramp 13 8.7 0)" \
	serviceTime=1 staffing=none peakedness=off currentReplicas=10
is "margin kept" replicas 9
is "margin kept" target 10
is "margin kept" scale_down '"margin"'
calc --json arrivalRate=8.4 arrivalRateSeries="$(ramp 13 8.4 0)" \
	serviceTime=1 staffing=none peakedness=off currentReplicas=10
is "margin down" target 9
# A series younger than the hold releases nothing.
calc --json arrivalRate=8.4 arrivalRateSeries="$(ramp 12 8.4 0)" \
	serviceTime=1 staffing=none peakedness=off currentReplicas=10
is "young series" target 10
is "young series" scale_down '"hold-no-series"'
calc arrivalRate=8.4 arrivalRateSeries="$(ramp 12 8.4 0)" \
	serviceTime=1 staffing=none peakedness=off currentReplicas=10
contains "young series text" out "hold       180 s (on the arrival rate until the answers span it): the series spans 165 s of it (12 of 13 points)"
# Without the series nothing is released below the current replicas.
calc --json arrivalRate=0.2 serviceTime=10 currentReplicas=12
is "no series" replicas 5
is "no series" target 12
is "no series" scale_down '"hold-no-series"'
# The step limit, when given: one step below the current replicas.
calc --json arrivalRate=0.2 serviceTime=10 currentReplicas=12 \
	scaleDownStep=2
is "step" target 10
is "step" scale_down '"step"'
calc arrivalRate=0.2 serviceTime=10 currentReplicas=12 scaleDownStep=2
contains "step text" out "current    12 replicas (currentReplicasQuery)"

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
	arrivalRateSeries=1,2 serviceTime=10 forecastAlpha=0.5 \
	coldStartSeconds=0
refuse "alpha out of range" forecastAlpha \
	arrivalRateSeries=1,2 serviceTime=10 coldStartSeconds=60 \
	forecastAlpha=0
refuse "cold start negative" coldStartSeconds \
	arrivalRate=1 serviceTime=10 coldStartSeconds=-5

refuse "current replicas junk" currentReplicas \
	arrivalRate=1 serviceTime=10 currentReplicas=-1
refuse "hold junk" scaleDownHoldSeconds \
	arrivalRate=1 serviceTime=10 scaleDownHoldSeconds=5m
refuse "peakedness junk" peakedness \
	arrivalRate=1 serviceTime=10 peakedness=high
refuse "peakednessMax with z given" peakednessMax \
	arrivalRate=1 serviceTime=10 peakedness=3 peakednessMax=4

# calc's own keys in the wrong case are named, not taken for metadata.
refuse "arrivalrate" arrivalRate arrivalrate=2 serviceTime=10
# No signal at all: say what is needed.
calc
status "no arguments" 2
contains "no arguments" err "no signal given"
calc beta=2
status "no signal" 2
calc --json queueDepth=0 serviceTime=1
status "a zero signal" 0
is "a zero signal" replicas 0

# ---- the SLO feedback (slaMissSeries stands for slaMissQuery's range) ----
# 241 points of 0.63 % misses over the 3600 s window: e = 0.26,
# c = exp(0.26) = 1.2969; 26.708 slots x c = 34.64 -> 35.
calc --json arrivalRate=2 serviceTime=10 peakedness=off \
	slaMissSeries="$(ramp 241 0.0063 0)"
is "feedback" replicas 35
near "feedback" correction 1.29693 0.00001
is "feedback" miss_points 241
calc arrivalRate=2 serviceTime=10 peakedness=off \
	slaMissSeries="$(ramp 241 0.0063 0)"
contains "feedback text" out "feedback   SLO correction x 1.297"
contains "feedback text" out "0.63 % of requests missed the SLA"
# slaTarget 0.995 halves the allowance: e = (0.0063 - 0.0025) / 0.0025
# = 1.52, c = exp(1.52) > 2, capped at 2: 53.4 slots.
calc --json arrivalRate=2 serviceTime=10 peakedness=off slaTarget=0.995 \
	slaMissSeries="$(ramp 241 0.0063 0)"
near "feedback 99.5" correction 2 0
is "feedback 99.5" replicas 54
# Under half the allowance: no correction.
calc --json arrivalRate=2 serviceTime=10 peakedness=off \
	slaMissSeries="$(ramp 241 0.004 0)"
near "feedback quiet" correction 1 0
is "feedback quiet" replicas 27
refuse "miss share above 1" slaMissSeries \
	arrivalRate=2 serviceTime=10 slaMissSeries=0.1,1.5
refuse "miss share junk" slaMissSeries \
	arrivalRate=2 serviceTime=10 slaMissSeries=0.1,,0.2
refuse "slaTarget range" slaTarget \
	arrivalRate=2 serviceTime=10 slaTarget=0.3

# ---- a prefill pool's prompt tokens' peakedness (docs/math.md) ----------

# swing N MEAN AMP SCALE: N points of SCALE x (MEAN +- AMP), the sign
# alternating every 4 (test_peak.c's pattern: a reading of 4 AMP^2).
swing() {
	awk -v n="$1" -v m="$2" -v a="$3" -v k="$4" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "%s%g", i ? "," : "", k * (m + (int(i / 4) % 2 ? -a : a))
	}'
}
PREFILL="pool=prefill prefillTokensPerSecond=8000 ttftTargetSeconds=0.35
kvTransferSeconds=0.05"
# smooth arrivals (a reading of 1.21, z 1), and tokens that swing twice
# as far: 4 x 1.96 in mean prompts (7.83 over the mean prompt the tails
# give, 2041.9), 5.41 at the low end, kept to 3; inputTokenRate the last
# point, 2000 x 41.4
calc --json $PREFILL arrivalRateSeries="$(swing 41 40 0.55 1)" \
	inputTokenRateSeries="$(swing 41 40 1.4 2000)"
status "token z" 0
is "token z" peakedness 1
near "token z" token_peakedness_raw 7.829 0.001
near "token z" token_peakedness_low 5.41 0.001
is "token z" ttft_peakedness 3
is "token z" ttft_token_peakedness true
is "token z" ttft_used true
is "token z" input_token_rate 82800
TOKZ=$(jget replicas)
calc $PREFILL arrivalRateSeries="$(swing 41 40 0.55 1)" \
	inputTokenRateSeries="$(swing 41 40 1.4 2000)"
contains "token z text" out "ttft z     3, the prompt tokens' peakedness (above the arrivals' z): the tokens' in mean prompts measured 7.83, 5.41 at the low end of its standard error, kept to 1..3: 3"
# tokens that follow the arrivals: the same reading, z 1 on both
calc --json $PREFILL arrivalRateSeries="$(swing 41 40 0.55 1)" \
	inputTokenRateSeries="$(swing 41 40 0.55 2000)"
is "token z smooth" ttft_peakedness 1
is "token z smooth" ttft_token_peakedness false
v=$(jget replicas)
if [ -n "$v" ] && [ "$v" -lt "$TOKZ" ]; then ok; else
	bad "token z: $v replicas on smooth tokens, not below $TOKZ"; fi
calc $PREFILL arrivalRateSeries="$(swing 41 40 0.55 1)" \
	inputTokenRateSeries="$(swing 41 40 0.55 2000)"
contains "token z smooth text" out "ttft z     1, the arrivals' (the prompt tokens' is not above it): the tokens' in mean prompts measured 1.21"
calc $PREFILL arrivalRateSeries="$(swing 41 40 0.55 1)" inputTokenRate=80000
contains "token z none text" out "ttft z     1, the arrivals': the prompt tokens' peakedness is not measured (no range of inputTokenRateQuery)"
refuse "token series without pool" inputTokenRateSeries \
	arrivalRateSeries=1,2,3 inputTokenRateSeries=1,2,3 serviceTime=1
refuse "token series without ttft" inputTokenRateSeries \
	pool=prefill prefillTokensPerSecond=8000 arrivalRateSeries=1,2,3 \
	inputTokenRateSeries=1,2,3
refuse "token series without arrivals" inputTokenRateSeries \
	$PREFILL arrivalRate=40 inputTokenRateSeries=1,2,3
refuse "token series junk" inputTokenRateSeries \
	$PREFILL arrivalRateSeries=1,2 inputTokenRateSeries=1,x

calc --help
status "help" 0
contains "help" out "arrivalRateSeries"

finish
