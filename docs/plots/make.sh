#!/bin/sh
# docs/plots/make.sh - the plots of docs/math.md.
#
# Every number plotted comes from `build/staffer calc --json` (and, for v1's
# step limit in the scale-down plot, from src/smooth.c through
# docs/plots/smooth_replay.c, since calc holds no memory).  The script only
# chooses the inputs: arrival rates, backlogs, a ramp, dips, bursty
# arrivals.  Needs gnuplot (gnuplot-nox), awk and cc.
#
# usage: make && docs/plots/make.sh      (STAFFER=path overrides the binary)
# Writes docs/plots/*.png; the data goes to build/plots/.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${STAFFER:-$ROOT/build/staffer}
PLOTS=$ROOT/docs/plots
WORK=$ROOT/build/plots

if [ ! -x "$BIN" ]; then
	echo "plots: $BIN not found; run make first" >&2
	exit 2
fi
command -v gnuplot >/dev/null || { echo "plots: needs gnuplot" >&2; exit 2; }
mkdir -p "$WORK"
# One snapshot of the binary, so that every plot comes from the same build
# even if make relinks it meanwhile.
cp "$BIN" "$WORK/staffer"
BIN=$WORK/staffer

# calc ARGS...: calc's one-line JSON.  It runs in command substitutions,
# where set -e does not reach, so a failure stops the script by signal.
calc() {
	"$BIN" calc --json "$@" && return 0
	echo "plots: 'staffer calc $*' failed" >&2
	kill -TERM $$
	exit 1
}

# get JSON KEY...: the values of top-level keys, space-separated.
get() {
	j=$1
	shift
	for k in "$@"; do
		printf '%s ' "$(printf '%s\n' "$j" |
			sed -n "s/.*\"$k\":\([^,}]*\).*/\1/p")"
	done
	echo
}

TERM_OPTS='font "sans,11" linewidth 1.5'
TERM_PNG="set terminal pngcairo size 900,540 $TERM_OPTS"

# ---- 1. target replicas against the arrival rate -------------------------
# W = 10 s, 4 slots per replica; the same tau for erlangc and cost.
W=10
N=4
echo "plots: replicas against arrival rate"
: >"$WORK/rate.dat"
for i in $(seq 1 200); do
	lam=$(awk -v i="$i" 'BEGIN { printf "%g", i / 10 }')
	set -- arrivalRate="$lam" serviceTime=$W slotsPerReplica=$N
	none=$(get "$(calc "$@" staffing=none)" replicas busy_slots)
	sq=$(get "$(calc "$@" staffing=sqrt beta=1.5)" replicas headroom_slots)
	ec=$(get "$(calc "$@" staffing=erlangc targetWaitSeconds=2 \
		waitProbability=0.05)" replicas headroom_slots)
	co=$(get "$(calc "$@" staffing=cost targetWaitSeconds=2 \
		costPerReplicaHour=4 slaPenaltyPerHour=500)" replicas \
		headroom_slots)
	# lambda, then replicas and slots: none (L), sqrt, erlangc, cost
	echo "$lam $none $sq $ec $co" >>"$WORK/rate.dat"
done
gnuplot <<EOF
set terminal pngcairo size 900,800 $TERM_OPTS
set output "$PLOTS/replicas_vs_rate.png"
set multiplot layout 2,1
set lmargin 10
set title "Target replicas against arrival rate" . \
	" (W = $W s, $N slots per replica)"
set ylabel "replicas"
set key top left Left reverse
set grid
plot "$WORK/rate.dat" using 1:2 with steps dt 2 lc rgb "gray40" \
	title "none: ceil(L / n)", \
     "" using 1:4 with steps lc rgb "#1f77b4" \
	title "sqrt: ceil((L + 1.5 sqrt(z L)) / n), z = 1", \
     "" using 1:6 with steps lc rgb "#d62728" \
	title "erlangc: P(wait > 2 s) <= 5%", \
     "" using 1:8 with steps lc rgb "#2ca02c" \
	title "cost: 4/h per replica, 500/h penalty, tau 2 s"
set title "Headroom above the busy slots L = lambda W"
set xlabel "arrival rate lambda (req/s)"
set ylabel "headroom (slots)"
plot "$WORK/rate.dat" using 1:5 with lines lc rgb "#1f77b4" \
	title "sqrt: 1.5 sqrt(L)", \
     "" using 1:7 with steps lc rgb "#d62728" \
	title "erlangc: c - L", \
     "" using 1:9 with steps lc rgb "#2ca02c" \
	title "cost: r n - L (whole replicas)"
unset multiplot
EOF

# ---- 2. the drain term against the backlog -------------------------------
echo "plots: drain against backlog"
: >"$WORK/drain.dat"
for q in $(seq 0 10 600); do
	row="$q"
	for d in 15 30 120 300; do
		row="$row $(get "$(calc arrivalRate=0.5 serviceTime=$W \
			queueDepth="$q" drainSeconds=$d staffing=none)" \
			drain_slots)"
	done
	echo "$row" >>"$WORK/drain.dat"
done
gnuplot <<EOF
$TERM_PNG
set output "$PLOTS/drain_vs_backlog.png"
set title "Drain term against backlog (W = $W s)"
set xlabel "queue depth Q (requests)"
set ylabel "drain slots  Q W / D"
set key top left
set grid
plot "$WORK/drain.dat" using 1:2 with lines title "D = 15 s", \
     "" using 1:3 with lines lw 2.5 title "D = 30 s (default)", \
     "" using 1:4 with lines title "D = 120 s", \
     "" using 1:5 with lines title "D = 300 s (v1)"
EOF

# ---- 3. a forecast on a ramp ----------------------------------------------
# 2 req/s, a ramp to 10 req/s between t = 600 s and 1200 s, then flat, with
# a little deterministic noise.  Each evaluation reads the last 600 s at
# 15 s (41 values, as the server's range query) and looks coldStartSeconds
# + 60 s (the lag of a 1-minute rate window) ahead.  Peakedness off, so
# that only the forecast and the hold move the target.
COLD=180
AHEAD=$((COLD + 60))
echo "plots: forecast on a ramp"
awk 'BEGIN {
	for (t = -600; t <= 2400; t += 15) {
		base = t < 600 ? 2 : t < 1200 ? 2 + 8 * (t - 600) / 600 : 10
		noise = 0.04 * sin(t * 0.71) + 0.03 * sin(t * 0.23 + 1)
		printf "%d %.4f\n", t, base * (1 + noise)
	}
}' >"$WORK/ramp_truth.dat"
: >"$WORK/ramp.dat"
for t in $(seq 0 15 2400); do
	series=$(awk -v t="$t" '$1 > t - 600 - 1 && $1 <= t {
		printf "%s%s", (n++ ? "," : ""), $2 }' "$WORK/ramp_truth.dat")
	j=$(calc arrivalRateSeries="$series" serviceTime=$W \
		coldStartSeconds=$COLD peakedness=off forecastMethod=holt)
	j0=$(calc arrivalRateSeries="$series" serviceTime=$W \
		coldStartSeconds=0 peakedness=off)
	echo "$t $(get "$j" arrival_rate forecast_level arrival_forecast \
		replicas) $(get "$j0" replicas)" >>"$WORK/ramp.dat"
done
gnuplot <<EOF
set terminal pngcairo size 900,760 $TERM_OPTS
set output "$PLOTS/forecast_ramp.png"
set multiplot layout 2,1
set lmargin 10
set grid
set xrange [0:2400]
set key top left
set title "Forecast on a ramp: Holt (alpha 0.3, beta 0.15)," . \
	" 41 values at 15 s, $AHEAD s ahead"
set ylabel "req/s"
plot "$WORK/ramp.dat" using 1:2 with points pt 7 ps 0.5 lc rgb "gray30" \
	title "measured lambda (last value of the series)", \
     "" using 1:3 with lines lc rgb "#1f77b4" title "Holt level at t", \
     "" using (\$1 + $AHEAD):4 with lines lc rgb "#d62728" \
	title "forecast made at t, drawn at t + $AHEAD s"
set title "Target replicas (W = $W s, sqrt staffing)"
set key bottom right
set xlabel "time (s)"
set ylabel "replicas"
plot "$WORK/ramp.dat" using 1:6 with steps lc rgb "gray30" \
	title "without forecast (coldStartSeconds 0)", \
     "" using 1:5 with steps lc rgb "#d62728" \
	title "with forecast and hold (coldStartSeconds $COLD)", \
     "" using (\$1 - $AHEAD):6 with lines dt 2 lc rgb "black" \
	title "needed $AHEAD s later (what a cold start must anticipate)"
unset multiplot
EOF

# ---- 4. scale-down: the hold against v1's step ------------------------------
# 4 req/s with a little noise; a 2-minute dip to 1.5 req/s at t = 600 s
# (shorter than the hold), a 6-minute one at t = 1200 s (longer), then a
# lasting fall to 1 req/s at t = 2100 s.  One evaluation every 15 s: the
# hold reads the last 600 s of the series, and the answer goes back in as
# currentReplicas (the margin compares with the answer before); v1's step
# limit (1 replica per 60 s) replays calc's raw answer through smooth.c.
echo "plots: scale-down on dips"
cc -std=c11 -Wall -Wextra -Werror -O2 -I"$ROOT/src" \
	-o "$WORK/smooth_replay" "$PLOTS/smooth_replay.c" \
	"$ROOT/src/smooth.c" -lm
awk 'BEGIN {
	for (t = -600; t <= 3000; t += 15) {
		x = 4
		if ((t >= 600 && t < 720) || (t >= 1200 && t < 1560))
			x = 1.5
		if (t >= 2100)
			x = 1
		printf "%d %.4f\n", t, x * (1 + 0.03 * sin(t * 0.37))
	}
}' >"$WORK/dip_truth.dat"
: >"$WORK/dip_raw.dat"
: >"$WORK/dip_hold.dat"
cur=
for t in $(seq 0 15 3000); do
	series=$(awk -v t="$t" '$1 > t - 600 - 1 && $1 <= t {
		printf "%s%s", (n++ ? "," : ""), $2 }' "$WORK/dip_truth.dat")
	lam=$(awk -v t="$t" '$1 == t { print $2 }' "$WORK/dip_truth.dat")
	raw=$(get "$(calc arrivalRate="$lam" serviceTime=$W \
		coldStartSeconds=0 peakedness=off)" replicas)
	echo "$t $raw" >>"$WORK/dip_raw.dat"
	j=$(calc arrivalRateSeries="$series" serviceTime=$W peakedness=off \
		${cur:+currentReplicas=$cur})
	cur=$(get "$j" target | tr -d ' ')
	echo "$t $cur" >>"$WORK/dip_hold.dat"
done
"$WORK/smooth_replay" 1 60 <"$WORK/dip_raw.dat" >"$WORK/dip_1_60.dat"
gnuplot <<EOF
$TERM_PNG
set output "$PLOTS/scale_down.png"
set title "Scale-down on dips" . \
	" (W = $W s, sqrt staffing, one evaluation every 15 s)"
set xlabel "time (s)"
set ylabel "replicas"
set key bottom left
set grid
set yrange [0:*]
set offsets 0, 0, 5, 0
set xrange [0:3000]
plot "$WORK/dip_raw.dat" using 1:2 with steps lc rgb "gray50" \
	title "the model's answer for lambda now", \
     "$WORK/dip_hold.dat" using 1:2 with steps lw 2.5 lc rgb "#1f77b4" \
	title "staffer: hold 180 s (coldStartSeconds 120), then all at once", \
     "$WORK/dip_1_60.dat" using 1:3 with steps lc rgb "#d62728" \
	title "v1: 1 replica per 60 s"
EOF

# ---- 5. peakedness measured on bursty arrivals -------------------------------
# Arrivals in batches of b requests (b = 1 is Poisson), 20 req/s on
# average: counts per 15 s from awk's generator (fixed seeds), each point
# the rate over the last 60 s, 41 points as the range query.  Batches of b
# have peakedness b.
echo "plots: peakedness"
: >"$WORK/peak.dat"
for b in 1 2 4 8; do
	for k in $(seq 1 12); do
		series=$(awk -v b="$b" -v seed=$((b * 100 + k)) 'BEGIN {
			srand(seed)
			m = 20 * 15 / b
			for (i = 0; i < 44; i++) {
				n = 0; t = -log(1 - rand())
				while (t < m) { n++; t -= log(1 - rand()) }
				c[i] = n * b
			}
			for (i = 3; i < 44; i++)
				printf "%s%g", (i > 3 ? "," : ""),
				    (c[i] + c[i-1] + c[i-2] + c[i-3]) / 60
		}')
		z=$(get "$(calc arrivalRateSeries="$series" serviceTime=$W \
			peakednessMax=100)" peakedness_raw)
		echo "$b $z" >>"$WORK/peak.dat"
	done
done
gnuplot <<EOF
$TERM_PNG
set output "$PLOTS/peakedness.png"
set title "Peakedness measured from one range query" . \
	" (41 points of a 1-minute rate, 20 req/s)"
set xlabel "batch size b of the arrivals (their true peakedness)"
set ylabel "measured z"
set key top left
set grid
set xrange [0:9]
set yrange [0:*]
plot x with lines dt 2 lc rgb "black" title "z = b", \
     "$WORK/peak.dat" using 1:2 with points pt 7 ps 1 lc rgb "#1f77b4" \
	title "measured, 12 series each", \
     2 with lines lc rgb "#d62728" title "peakednessMax (default 2)"
EOF
echo "plots: wrote $(cd "$PLOTS" && ls ./*.png | tr '\n' ' ')"
