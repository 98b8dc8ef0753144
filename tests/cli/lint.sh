#!/bin/sh
# tests/cli/lint.sh - `staffer lint` through the real binary.
#
# Every example in scaledobjects/ lints clean, with no warning; each
# fixture in tests/cli/lint/ brings one kind of error or warning, and the
# test checks its exact line, its message and the exit status (0 clean or
# warnings only, 1 errors or --strict warnings, 2 usage, unreadable file,
# invalid YAML).
#
# usage: tests/cli/lint.sh        (STAFFER=path overrides build/staffer)
# Prints "N passed, N failed"; exits 1 when anything failed.
set -u

NAME=lint.sh
FIX=tests/cli/lint
. "$(dirname "$0")/lib.sh"

# lint ARGS...: run `staffer lint ARGS`.
lint() {
	run lint "$@"
}

# lint_stdin FILE ARGS...: the same with FILE on standard input.
lint_stdin() {
	f=$1
	shift
	run_stdin "$f" lint "$@"
}

# lines NAME N: stdout has exactly N lines (findings).
lines() {
	n=$(printf '%s' "$OUT" | grep -c '')
	if [ "$n" -eq "$2" ]; then ok; else bad "$1: $n lines, want $2"; fi
}

# quiet NAME: nothing on stdout or stderr.
quiet() {
	if [ -z "$OUT" ] && [ -z "$ERR" ]; then ok; else bad "$1: not quiet"; fi
}

MSG="ScaledObject metadata is map[string]string"

# ---- the examples: clean, and free of warnings ----------------------------

for f in scaledobjects/*.yaml; do
	lint --strict "$f"
	status "example $f" 0
	quiet "example $f"
done
lint --strict scaledobjects/*.yaml
status "all examples at once" 0
# The examples name only backends a matching config declares.
lint --config "$FIX/config.json" scaledobjects/chat-vllm.yaml
status "example with --config" 0
lint "$FIX/clean.yaml"
status "clean fixture" 0
quiet "clean fixture"

# ---- errors: the server's messages ----------------------------------------

lint "$FIX/unknown-key.yaml"
status "unknown key" 1
has_line "unknown key" out "$FIX/unknown-key.yaml:30: ScaledObject llm/chat\
 trigger 0: metadata 'betta' is not a known key; did you mean 'beta'?"
lines "unknown key" 1

lint "$FIX/bad-number.yaml"
status "bad number" 1
has_line "bad number" out "$FIX/bad-number.yaml:30: ScaledObject llm/chat\
 trigger 0: metadata 'beta': '1.5x' is not a number; allowed: a number\
 from 0 to 10 (default 1.5)"
lines "bad number" 1

lint "$FIX/missing-arrival.yaml"
status "missing arrivalRateQuery" 1
# The line of the trigger's `metadata:` key.
has_line "missing arrivalRateQuery" out "$FIX/missing-arrival.yaml:26:\
 ScaledObject llm/chat trigger 0: metadata 'arrivalRateQuery' is\
 required: PromQL giving the arrival rate in req/s, e.g.\
 sum(rate(gateway_requests_total[1m]))"

# <key>FromEnv holds a variable's name, resolved by KEDA in the cluster:
# the names are checked, the values are not (they do not exist yet), and
# the key counts as given (serviceTime is required without a query).
lint "$FIX/from-env.yaml"
status "FromEnv names" 1
has_line "FromEnv names" out "$FIX/from-env.yaml:31: ScaledObject llm/chat\
 trigger 0: metadata 'serviceTimeFromEnv': 'MEAN SERVICE' is not an\
 environment variable name; allowed: the name of a variable of the scale\
 target's container (printable, no spaces or '='), e.g. MAX_NUM_SEQS"
lines "FromEnv names" 1
sed 's/"MEAN SERVICE"/MEAN_SERVICE/' "$FIX/from-env.yaml" >"$TMP/env-ok.yaml"
lint "$TMP/env-ok.yaml"
status "FromEnv names, fixed" 0
quiet "FromEnv names, fixed"

# ---- errors: values kubectl refuses ---------------------------------------

lint "$FIX/unquoted.yaml"
status "unquoted" 1
has_line "unquoted number" out "$FIX/unquoted.yaml:29: ScaledObject llm/chat\
 trigger 0: metadata 'beta': 1.5 must be a quoted string (\"1.5\"): $MSG"
has_line "unquoted bool" out "$FIX/unquoted.yaml:26: ScaledObject llm/chat\
 trigger 0: metadata 'enableTLS': true must be a quoted string\
 (\"true\"): $MSG"
has_line "unquoted hex" out "$FIX/unquoted.yaml:30: ScaledObject llm/chat\
 trigger 0: metadata 'slotsPerReplica': 0x20 must be a quoted string\
 (\"0x20\"): $MSG"
has_line "null value" out "$FIX/unquoted.yaml:31: ScaledObject llm/chat\
 trigger 0: metadata 'shedThreshold' has no value (YAML null): $MSG;\
 give a quoted string or leave the key out"
# `!!str 2026` is a string; meta_parse is not run after a type error.
lines "unquoted" 4

lint "$FIX/duplicate.yaml"
status "duplicate key" 1
has_line "duplicate key" out "$FIX/duplicate.yaml:32: ScaledObject llm/chat\
 trigger 0: metadata 'serviceTime' is given twice (first on line 29);\
 give each key once"

# ---- --config: backends ---------------------------------------------------

lint "$FIX/backend.yaml"
status "backend without --config" 0
quiet "backend without --config"
lint --config "$FIX/config.json" "$FIX/backend.yaml"
status "backend with --config" 1
has_line "backend with --config" out "$FIX/backend.yaml:32: ScaledObject\
 llm/chat trigger 0: metadata 'backend': 'thanos' is not declared in\
 staffer's config; declared: 'prom', 'mimir'"
lint --config "$TMP/nonexistent.json" "$FIX/clean.yaml"
status "missing config" 2
contains "missing config" err "cannot open"

# ---- warnings -------------------------------------------------------------

lint "$FIX/metrictype-value.yaml"
status "metricType Value" 0
has_line "metricType Value" out "$FIX/metrictype-value.yaml:26: warning:\
 ScaledObject llm/chat trigger 0: metricType 'Value': staffer needs\
 AverageValue; its answer is a replica count against a target of 1, and\
 with Value the HPA multiplies it by the ready pods; leave metricType out"
lines "metricType Value" 1
lint --strict "$FIX/metrictype-value.yaml"
status "metricType Value --strict" 1

lint "$FIX/hpa-warnings.yaml"
status "hpa warnings" 0
lines "hpa warnings" 4
contains "no fallback" out "$FIX/hpa-warnings.yaml:8: warning:\
 ScaledObject bare: no 'fallback': "
contains "no tolerance" out "$FIX/hpa-warnings.yaml:8: warning:\
 ScaledObject bare: no advanced.horizontalPodAutoscalerConfig.behavior.\
scaleUp.tolerance: the HPA's default 10% tolerance blocks +-1 steps"
contains "no scaleDown window" out "$FIX/hpa-warnings.yaml:8: warning:\
 ScaledObject bare: no advanced.horizontalPodAutoscalerConfig.behavior.\
scaleDown.stabilizationWindowSeconds: the HPA's default 300 s window"
has_line "maxReplicas" out "$FIX/hpa-warnings.yaml:17: warning: ScaledObject\
 bare trigger 0: metadata 'maxReplicas' is 200, above maxReplicaCount\
 100: the HPA caps at 100 anyway; set maxReplicas to 100 or lower so\
 that staffer's answer stays within it"

lint "$FIX/small-fleet.yaml"
status "small fleet" 0
lines "small fleet: no tolerance warning under 10 replicas" 1
contains "small fleet" out "$FIX/small-fleet.yaml:19: warning:\
 ScaledObject llm/small: scaleDown.stabilizationWindowSeconds is 60: "

lint "$FIX/query-shape.yaml"
status "query shape" 0
lines "query shape" 2
has_line "rate() alone" out "$FIX/query-shape.yaml:29: warning: ScaledObject\
 llm/shapes trigger 0: metadata 'shedRateQuery' may return several series\
 (it is not aggregated to one at its top level); it must return exactly\
 one: wrap it in sum() (see docs/lint.md)"
contains "sum by (pod)" out "$FIX/query-shape.yaml:30: warning:\
 ScaledObject llm/shapes trigger 0: metadata 'currentReplicasQuery' may\
 return several series"

# ---- documents and files --------------------------------------------------

lint "$FIX/multi-doc.yaml"
status "multi-doc" 1
lines "multi-doc: only the bad object" 1
has_line "multi-doc" out "$FIX/multi-doc.yaml:67: ScaledObject llm/embed\
 trigger 1: metadata 'serviceTime': '0' is out of range; allowed: a\
 number greater than 0 and at most 86400 seconds (default: none)"

lint "$FIX/invalid.yaml"
status "invalid YAML" 2
has_line "invalid YAML: earlier documents still checked" out\
 "$FIX/invalid.yaml:20: ScaledObject llm/first trigger 0: metadata\
 'slotPerReplica' is not a known key; did you mean 'slotsPerReplica'?"
has_line "invalid YAML" out "$FIX/invalid.yaml:27: invalid YAML: did not find\
 expected ',' or '}' (while parsing a flow mapping from line 26)"

lint "$FIX/list-merge.yaml"
status "List, anchors, merge keys" 1
lines "List: both items, the foreign trigger" 2
contains "List item b" out "ScaledObject llm/b trigger 1: metadata\
 'queueName' is not a known key"
lint --address staffer.keda "$FIX/list-merge.yaml"
status "--address skips another scaler's trigger" 0
quiet "--address"
# ... but still checks staffer's, whose scalerAddress comes from a merge.
sed 's/slotsPerReplica: "32"/slotsPerReplica: "3x"/' "$FIX/list-merge.yaml" \
	>"$TMP/merge.yaml"
lint_stdin "$TMP/merge.yaml" --address staffer.keda -
status "--address with a merged scalerAddress" 1
lines "--address with a merged scalerAddress" 2
has_line "--address with a merged scalerAddress" out "<stdin>:26: ScaledObject\
 llm/a trigger 0: metadata 'slotsPerReplica': '3x' is not a number;\
 allowed: a whole number from 1 to 100000 (default 1)"

lint_stdin "$FIX/unknown-key.yaml" -
status "stdin" 1
has_line "stdin" out "<stdin>:30: ScaledObject llm/chat trigger 0: metadata\
 'betta' is not a known key; did you mean 'beta'?"
lint_stdin "$FIX/clean.yaml" "$FIX/bad-number.yaml" -
status "a file and stdin" 1
lines "a file and stdin" 1

# Options may follow the files; the worst status wins.
lint "$FIX/metrictype-value.yaml" --strict
status "option after the file" 1
lint "$FIX/unknown-key.yaml" "$FIX/invalid.yaml"
status "error and invalid YAML" 2

printf 'a: [' >"$TMP/deep.yaml"
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "["
	for (i = 0; i < 100000; i++) printf "]"; print "]" }' \
	>>"$TMP/deep.yaml"
lint "$TMP/deep.yaml"
status "deep nesting" 2
contains "deep nesting" out "invalid YAML: collections nested more than"

# Found by test_fuzz: at the end of a file without a final newline the
# error named a line past the last one.
printf 'a: b\nkey: [1, 2' >"$TMP/eof.yaml"
lint "$TMP/eof.yaml"
status "error at the end, no final newline" 2
has_line "error at the end, no final newline" out "$TMP/eof.yaml:2: invalid\
 YAML: did not find expected ',' or ']' (while parsing a flow sequence\
 from line 2)"
printf 'a: b\nkey: [1, 2\n' >"$TMP/eof-nl.yaml"
lint "$TMP/eof-nl.yaml"
has_line "error at the end, final newline" out "$TMP/eof-nl.yaml:3: invalid\
 YAML: did not find expected ',' or ']' (while parsing a flow sequence\
 from line 2)"

printf 'a: *nowhere\n' >"$TMP/alias.yaml"
lint "$TMP/alias.yaml"
status "undefined alias" 2
: >"$TMP/empty.yaml"
lint "$TMP/empty.yaml"
status "empty file" 0

# ---- usage ----------------------------------------------------------------

lint
status "no file" 2
contains "no file" err "usage: staffer lint"
lint --frobnicate "$FIX/clean.yaml"
status "unknown option" 2
lint "$TMP/nonexistent.yaml"
status "unreadable file" 2
contains "unreadable file" err "nonexistent.yaml: cannot open"
lint --config
status "option without value" 2
lint --help
status "help" 0
contains "help" out "usage: staffer lint"

finish
