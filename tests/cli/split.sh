#!/bin/sh
# tests/cli/split.sh - `staffer simulate --split` through the real binary:
# usage and its errors (exit 2), a small synthetic run (the table and
# --json: every policy on the same requests, counts consistent), the same
# output for the same seed, a trace file with tokens, --timeseries,
# --initial-replicas P,D, and --repeat.
#
# usage: tests/cli/split.sh      (STAFFER=path overrides build/staffer)
# Prints "N passed, N failed"; exits 1 when anything failed.
set -u

NAME=split.sh
. "$(dirname "$0")/lib.sh"

split() {
	run simulate --split "$@"
}

# refuse NAME TEXT ARGS...: exit 2, TEXT on stderr, nothing on stdout.
refuse() {
	n=$1
	t=$2
	shift 2
	split "$@"
	status "$n" 2
	contains "$n" err "$t"
	nothing_out "$n"
}

S="--shape poisson --rate 5 --duration 600 --seed 3"

# ---- usage -----------------------------------------------------------------

split --help
status "help" 0
contains "help" out "--prefill-budget N"
contains "help" out "keda[:prefill=queue|running|sum"
refuse "no traffic" "give exactly one of --trace FILE, --rates FILE, --shape NAME"
refuse "two sources" "give exactly one of" $S --rates "$TMP/none.csv"
printf 'window_start_s,total_rate_rps,active_clients\n0,2,3\n600,4,3\n' \
	>"$TMP/rates.csv"
refuse "bad arrivals" "--arrivals 'bursty': allowed auto, poisson, clients" \
	--rates "$TMP/rates.csv" --arrivals bursty
refuse "missing rates" "rate file" --rates "$TMP/none.csv"
refuse "bad shape" "--shape 'zigzag'" --shape zigzag
refuse "unknown policy" "unknown policy 'stafer'" $S --policy stafer
refuse "bad keda metric" "'prefill': 'bogus' is not allowed" $S \
	--policy keda:prefill=bogus
refuse "bad behavior" "'behavior': 'fast' is not allowed" $S \
	--policy keda:behavior=fast
refuse "staffer metadata" "decode trigger: metadata 'itlTargetSeconds'" $S \
	--policy staffer:decode.itlTargetSeconds=0.001
refuse "min above max" "minReplicaCount is above maxReplicaCount" $S \
	--policy planner:minReplicaCount=3,maxReplicaCount=2
refuse "initial" "--initial-replicas '3'" $S --initial-replicas 3
refuse "decode slots" "--decode-slots" $S --decode-slots 0
refuse "missing trace" "" --trace "$TMP/none.csv"

# ---- a run -------------------------------------------------------------------

# a rate file, as `staffer simulate --rates` reads it: 600 s at 2 req/s and
# 600 s at 4 (about 3,600 requests), the same for every policy; x2 the rate
# about twice the requests
split --rates "$TMP/rates.csv" --rate-compress 1 --json --policy static \
	--policy planner
status "rates" 0
r1=$OUT
split --rates "$TMP/rates.csv" --rate-compress 1 --rate-scale 2 --json \
	--policy static
status "rates x2" 0
printf '%s\n%s\n' "$r1" "$OUT" | /usr/bin/python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin]
assert rows[0]["requests"] == rows[1]["requests"], rows
assert 3300 < rows[0]["requests"] < 3900, rows[0]
assert 1.8 < rows[2]["requests"] / rows[0]["requests"] < 2.2, rows
' && ok || bad "rates: requests $(printf '%s' "$r1" | head -c 200)"

split $S
status "table" 0
contains "table" out "TTFT target 2 s, ITL target 0.04 s"
contains "table: the traffic named" out "poisson 5 req/s for 600 s: "
for p in staffer planner llm-d keda static; do
	if printf '%s\n' "$OUT" | grep -q "^$p  "; then
		ok
	else
		bad "table: no row for $p"
	fi
done

split $S --json --policy staffer --policy static
status "json" 0
j1=$OUT
n=$(printf '%s\n' "$OUT" | wc -l)
if [ "$n" -eq 2 ]; then ok; else bad "json: $n lines, want 2"; fi
# every policy sees the same requests; attainments are shares; the static
# fleet costs its replicas for the whole run (600 s)
printf '%s\n' "$OUT" | /usr/bin/python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin]
assert len({r["requests"] for r in rows}) == 1, rows
for r in rows:
    assert 0 <= r["ttft_attainment"] <= 1 and 0 <= r["itl_attainment"] <= 1
    assert r["requests"] > 2500 and r["metric_errors"] == 0, r
s = rows[1]
want = (s["initial_prefill"] + s["initial_decode"]) * 600 / 3600
assert abs(s["replica_hours"] - want) < 1e-9, (s, want)
' 2>"$TMP/py"
if [ $? -eq 0 ]; then ok; else bad "json: $(cat "$TMP/py")"; fi

split $S --json --policy staffer --policy static
if [ "$OUT" = "$j1" ]; then ok; else bad "same seed, same output"; fi
split --shape poisson --rate 5 --duration 600 --seed 4 --json \
	--policy staffer --policy static
if [ "$OUT" != "$j1" ]; then ok; else bad "another seed, other output"; fi

# ---- the prefill trigger's slaMissQuery: the TTFT misses --------------------

# A surge at a 0.5-s TTFT target misses first tokens: the SLO feedback
# reads them and the prefill pool grows beyond what it is without it.
# Steady traffic at a 30-s target misses none: the feedback reads 0 and
# changes nothing (the same run, but for the policy's name).
for run in "surge 0.5" "poisson 30"; do
	set -- $run
	split --shape $1 --rate 20 --duration 3600 --seed 3 --ttft $2 \
		--json --policy staffer --policy staffer:prefill.slaMissQuery=x
	status "slaMissQuery, $run" 0
	printf '%s\n' "$OUT" | TTFT=$2 /usr/bin/python3 -c '
import json, os, sys
a, b = [json.loads(l) for l in sys.stdin]
if os.environ["TTFT"] == "30":
    assert a["ttft_attainment"] == 1, a
    b["policy"] = a["policy"]
    assert a == b, (a, b)
else:
    assert a["ttft_attainment"] < 0.95, a
    assert b["prefill_replica_hours"] > 1.2 * a["prefill_replica_hours"], (a, b)
    assert b["ttft_attainment"] > a["ttft_attainment"], (a, b)
    assert b["metric_errors"] == 0, b
' 2>"$TMP/py"
	if [ $? -eq 0 ]; then ok; else bad "slaMissQuery, $run: $(cat "$TMP/py")"; fi
done

# staffer:age=S reads its instant answers but the arrival rate S s old:
# 0 is the default, to the byte; 30 s old, the decisions differ.
split --shape surge --rate 20 --duration 3600 --seed 3 --json \
	--policy staffer --policy staffer:age=0 --policy staffer:age=30
status "age" 0
printf '%s\n' "$OUT" | /usr/bin/python3 -c '
import json, sys
a, z, old = [json.loads(l) for l in sys.stdin]
z["policy"] = a["policy"]
assert a == z, (a, z)
assert old["metric_errors"] == 0, old
assert (old["ttft_attainment"], old["replica_hours"]) != \
    (a["ttft_attainment"], a["replica_hours"]), (a, old)
' 2>"$TMP/py"
if [ $? -eq 0 ]; then ok; else bad "age: $(cat "$TMP/py")"; fi
refuse "bad age" "'age': '-1'" $S --policy staffer:age=-1

# --cold-seed draws the cold starts: 1 is the default to the byte, and
# another draws other cold starts (with --cold-start-cv above 0).
for cs in "" "--cold-seed 1" "--cold-seed 8"; do
	split --shape surge --rate 20 --duration 3600 --seed 3 \
		--cold-start-cv 0.3 --json --policy planner:scale=1.25 $cs
	printf '%s\n' "$OUT" >> "$TMP/cold"
done
/usr/bin/python3 -c '
import json, sys
a, one, eight = [json.loads(l) for l in open(sys.argv[1])]
assert a == one, (a, one)
assert a != eight, a
' "$TMP/cold" 2>"$TMP/py"
if [ $? -eq 0 ]; then ok; else bad "cold seed: $(cat "$TMP/py")"; fi
refuse "bad cold seed" "--cold-seed '-1': allowed: a whole number" $S --cold-seed -1

# The prefill pool's rules against noise and the prior switched off, each
# (the simulator's ablations, never metadata): their own values are the
# default to the byte; on Poisson arrivals each rule off costs prefill
# replica-hours.
split --shape poisson --rate 40 --duration 3600 --seed 3 --input-mean 1000 \
	--output-mean 100 --json --policy staffer \
	--policy staffer:prefillZ=low,prefillErlang=continuous,prefillPrior=forget \
	--policy staffer:prefillZ=read --policy staffer:prefillErlang=whole \
	--policy staffer:prefillPrior=hold
status "noise rules" 0
printf '%s\n' "$OUT" | /usr/bin/python3 -c '
import json, sys
a, same, zread, whole, held = [json.loads(l) for l in sys.stdin]
same["policy"] = a["policy"]
assert a == same, (a, same)
for r in (zread, whole, held):
    assert r["prefill_replica_hours"] > a["prefill_replica_hours"], (a, r)
' 2>"$TMP/py"
if [ $? -eq 0 ]; then ok; else bad "noise rules: $(cat "$TMP/py")"; fi
refuse "bad prefillZ" "'prefillZ': 'x' is not allowed; allowed: low (staffer's rule) or read" \
	$S --policy staffer:prefillZ=x
refuse "bad prefillErlang" "'prefillErlang': '2' is not allowed; allowed: continuous" \
	$S --policy staffer:prefillErlang=2
refuse "bad prefillPrior" "'prefillPrior': 'x' is not allowed; allowed: forget (staffer's rule) or hold" \
	$S --policy staffer:prefillPrior=x

# The prompt tokens' peakedness on the TTFT's Erlang C: Poisson arrivals
# (4 req/s) whose prompts are 12,000 tokens for 40 s of every 5 minutes
# and 800 otherwise, replayed with history.  tokens is the default to the
# byte; arrivals (the arrivals' z alone) keeps fewer prefill replicas
# and misses more first tokens.
awk 'BEGIN { srand(7); print "arrival_s,input_tokens,output_tokens"; t = 0
	while (t < 1800) { t += -log(1 - rand()) / 4; b = (t % 300) < 40
		printf "%.3f,%d,%d\n", t, b ? 12000 : 800, 100 } }' >"$TMP/burst.csv"
split --trace "$TMP/burst.csv" --repeat 2 --ttft 2 --json --policy staffer \
	--policy staffer:prefillTokenZ=tokens \
	--policy staffer:prefillTokenZ=arrivals
status "token z" 0
printf '%s\n' "$OUT" | /usr/bin/python3 -c '
import json, sys
a, same, arr = [json.loads(l) for l in sys.stdin]
same["policy"] = a["policy"]
assert a == same, (a, same)
assert arr["prefill_replica_hours"] < a["prefill_replica_hours"], (a, arr)
assert arr["ttft_attainment"] < a["ttft_attainment"], (a, arr)
' 2>"$TMP/py"
if [ $? -eq 0 ]; then ok; else bad "token z: $(cat "$TMP/py")"; fi
refuse "bad prefillTokenZ" "'prefillTokenZ': 'x' is not allowed; allowed: tokens (staffer's rule) or arrivals" \
	$S --policy staffer:prefillTokenZ=x

# ---- a trace with tokens, --initial-replicas, --timeseries -----------------

awk 'BEGIN { print "arrival_s,input_tokens,output_tokens"
	for (i = 0; i < 600; i++) printf "%.2f,%d,%d\n", i * 0.5, 1000 + i % 9 * 200, 50 + i % 4 * 50 }' \
	>"$TMP/t.csv"
split --trace "$TMP/t.csv" --initial-replicas 2,3 --policy static \
	--json --timeseries "$TMP/ts.csv" --ts-step 30
status "trace" 0
contains "trace" out '"requests":600'
contains "trace" out '"initial_prefill":2,"initial_decode":3'
contains "trace" out '"prefill_peak":2'
if head -n 1 "$TMP/ts.csv" | grep -q '^policy,t,prefill_spec,prefill_ready,decode_spec'; then
	ok
else
	bad "timeseries header"
fi
n=$(grep -c '^static,' "$TMP/ts.csv")
if [ "$n" -ge 9 ]; then ok; else bad "timeseries: $n rows, want >= 9"; fi

# ---- --repeat: the copies before the last are history -----------------------

# --repeat 1 is the default to the byte.  --repeat 2 replays the 600 s
# twice and counts the second copy: the same requests, the warm fleet's
# replica-hours over 600 s, not 1200; the time series covers both copies;
# and staffer, which reads the first copy's history, decides otherwise.
split $S --json --policy staffer --policy static
j1=$OUT
split $S --json --repeat 1 --policy staffer --policy static
if [ "$OUT" = "$j1" ]; then ok; else bad "repeat 1: not the default"; fi
split $S --json --repeat 2 --policy staffer --policy static \
	--timeseries "$TMP/rep.csv"
status "repeat 2" 0
printf '%s\n%s\n' "$j1" "$OUT" | /usr/bin/python3 -c '
import json, sys
a, s1, b, s2 = [json.loads(l) for l in sys.stdin]
for x, y in ((a, b), (s1, s2)):
    assert x["requests"] == y["requests"], (x, y)
want = (s2["initial_prefill"] + s2["initial_decode"]) * 600 / 3600
assert abs(s2["replica_hours"] - want) < 1e-9, (s2, want)
assert b["ttft_p99"] != a["ttft_p99"], (a, b)
' 2>"$TMP/py"
if [ $? -eq 0 ]; then ok; else bad "repeat 2: $(cat "$TMP/py")"; fi
last=$(tail -n 1 "$TMP/rep.csv" | cut -d, -f2)
if [ "$last" -ge 1185 ] && [ "$last" -le 1500 ]; then ok; else
	bad "repeat 2: the time series ends at $last s, want both copies"; fi
refuse "repeat 0" "--repeat '0': allowed: a whole number from 1 to 100" \
	$S --repeat 0
refuse "repeat 101" "--repeat '101'" $S --repeat 101

finish
