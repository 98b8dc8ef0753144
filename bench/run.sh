#!/bin/sh
# The decision-quality benchmark: `make bench` runs this after building
# build/staffer.  Every trace in bench/traces (and synthetic shapes) at
# cold starts of 120 and 300 s: staffer at its default metadata against
# each baseline at its practitioner setting and swept over its threshold,
# with a shared queue and with least-loaded routing, plus sensitivity
# rows, then the SLO feedback's cases (bench/feedback.py).  Writes
# bench/results/decision-quality.md, feedback.md and PNG plots; raw runs
# go to bench/out/ (not committed).  A few minutes on 2 cores.
#
#   bench/run.sh                 the whole suite
#   bench/run.sh tune            how the defaults were chosen (bench/tune.py)
#   JOBS=4 bench/run.sh          more parallel simulations
#   TRACES=/path bench/run.sh    another traces folder (same layout)
set -eu
cd "$(dirname "$0")/.."
[ -x build/staffer ] || { echo "bench: build/staffer missing; run make" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench: python3 is needed" >&2; exit 1; }
command -v gnuplot >/dev/null || { echo "bench: gnuplot is needed (gnuplot-nox)" >&2; exit 1; }
if [ "${1:-}" = tune ]; then
	shift
	exec python3 bench/tune.py "$@"
fi
python3 bench/suite.py "$@"
# The SLO feedback where the feed-forward model is wrong (a minute).
exec python3 bench/feedback.py
