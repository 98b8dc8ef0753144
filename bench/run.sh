#!/bin/sh
# The decision-quality benchmark: `make bench` runs this after building
# build/staffer.  Every trace in ../shared/traces (and the synthetic
# shapes) at cold starts of 60, 120 and 300 s, every policy, baselines
# swept over their thresholds, staffer at its default and best metadata.
# Writes bench/results/decision-quality.md and PNG plots; raw runs go to
# bench/out/ (not committed).  Takes a few minutes on 2 cores.
#
#   bench/run.sh                 the whole suite
#   JOBS=4 bench/run.sh          more parallel simulations
#   TRACES=/path bench/run.sh    another traces folder (same layout)
set -eu
cd "$(dirname "$0")/.."
[ -x build/staffer ] || { echo "bench: build/staffer missing; run make" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench: python3 is needed" >&2; exit 1; }
command -v gnuplot >/dev/null || { echo "bench: gnuplot is needed (gnuplot-nox)" >&2; exit 1; }
exec python3 bench/suite.py "$@"
