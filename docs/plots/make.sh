#!/bin/sh
# docs/plots/make.sh - the plots of docs/math.md.
#
# Every number plotted comes from `build/staffer calc --json` (and, for the
# smoothing plot, from src/smooth.c through docs/plots/smooth_replay.c,
# since calc holds no state).  The script only chooses the inputs: arrival
# rates, backlogs, a ramp, a dip.  Needs gnuplot (gnuplot-nox) and cc.
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
	title "sqrt: ceil((L + 1.5 sqrt(L)) / n)", \
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
	for d in 120 300 600; do
		row="$row $(get "$(calc arrivalRate=0.5 serviceTime=$W \
			queueDepth="$q" drainSeconds=$d staffing=none)" \
			drain_slots)"
	done
	echo "$row" >>"$WORK/drain.dat"
done
seed=$(get "$(calc arrivalRate=0.5 serviceTime=$W queueDepth=100 \
	drainSeconds=300 staffing=none)" drain_slots)
echo "100 $seed" >"$WORK/drain_seed.dat"
gnuplot <<EOF
$TERM_PNG
set output "$PLOTS/drain_vs_backlog.png"
set title "Drain term against backlog (lambda = 0.5 req/s, W = $W s, so L = 5)"
set xlabel "queue depth Q (requests)"
set ylabel "drain slots  max(0, Q - L) W / D"
set key top left
set grid
plot "$WORK/drain.dat" using 1:2 with lines title "D = 120 s", \
     "" using 1:3 with lines title "D = 300 s (default)", \
     "" using 1:4 with lines title "D = 600 s", \
     "$WORK/drain_seed.dat" using 1:2 with points pt 7 ps 1.5 lc rgb "black" \
	title sprintf("Q = 100: %.4f slots", $seed)
EOF

# ---- 3. a forecast on a ramp ----------------------------------------------
# 2 req/s, a ramp to 10 req/s between t = 600 s and 1200 s, then flat, with
# a little deterministic noise.  Each evaluation reads the last 600 s at
# 15 s (41 values, as the server's range query) and looks 180 s ahead.
COLD=180
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
		coldStartSeconds=$COLD)
	j0=$(calc arrivalRateSeries="$series" serviceTime=$W)
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
	" 41 values at 15 s, $COLD s ahead"
set ylabel "req/s"
plot "$WORK/ramp.dat" using 1:2 with points pt 7 ps 0.5 lc rgb "gray30" \
	title "measured lambda (last value of the series)", \
     "" using 1:3 with lines lc rgb "#1f77b4" title "Holt level at t", \
     "" using (\$1 + $COLD):4 with lines lc rgb "#d62728" \
	title "forecast made at t, drawn at t + $COLD s"
set title "Target replicas (W = $W s, sqrt staffing)"
set key bottom right
set xlabel "time (s)"
set ylabel "replicas"
plot "$WORK/ramp.dat" using 1:6 with steps lc rgb "gray30" \
	title "without forecast", \
     "" using 1:5 with steps lc rgb "#d62728" \
	title "with forecast (coldStartSeconds = $COLD)", \
     "" using (\$1 - $COLD):6 with lines dt 2 lc rgb "black" \
	title "needed $COLD s later (what a cold start must anticipate)"
unset multiplot
EOF

# ---- 4. smoothing on a dip -------------------------------------------------
# 4 req/s, a 4-minute dip to 1.5 req/s at t = 600 s, back to 4, then a
# lasting drop to 1 req/s at t = 1500 s.  One evaluation every 15 s.
echo "plots: smoothing on a dip"
cc -std=c11 -Wall -Wextra -Werror -O2 -I"$ROOT/src" \
	-o "$WORK/smooth_replay" "$PLOTS/smooth_replay.c" \
	"$ROOT/src/smooth.c" -lm
: >"$WORK/dip_raw.dat"
for t in $(seq 0 15 2700); do
	lam=$(awk -v t="$t" 'BEGIN {
		x = (t >= 600 && t < 840) ? 1.5 : t >= 1500 ? 1 : 4; print x }')
	echo "$t $(get "$(calc arrivalRate="$lam" serviceTime=$W)" replicas)" \
		>>"$WORK/dip_raw.dat"
done
"$WORK/smooth_replay" 1 60 <"$WORK/dip_raw.dat" >"$WORK/dip_1_60.dat"
"$WORK/smooth_replay" 5 60 <"$WORK/dip_raw.dat" >"$WORK/dip_5_60.dat"
gnuplot <<EOF
$TERM_PNG
set output "$PLOTS/smoothing_dip.png"
set title "Smoothing on a dip" . \
	" (W = $W s, sqrt staffing, one evaluation every 15 s)"
set xlabel "time (s)"
set ylabel "replicas"
set key bottom left
set grid
set yrange [0:*]
set offsets 0, 0, 5, 0
set xrange [0:2700]
plot "$WORK/dip_1_60.dat" using 1:2 with steps lc rgb "gray50" \
	title "raw target", \
     "$WORK/dip_1_60.dat" using 1:3 with steps lw 2 lc rgb "#1f77b4" \
	title "smoothed: scaleDownStep 1 per 60 s (default)", \
     "$WORK/dip_5_60.dat" using 1:3 with steps lc rgb "#d62728" \
	title "smoothed: scaleDownStep 5 per 60 s"
EOF
echo "plots: wrote $(cd "$PLOTS" && ls ./*.png | tr '\n' ' ')"
