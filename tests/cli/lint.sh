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
# `!!str 2026` is a string, and the server's checks still run on the
# keys that are strings: every error of the trigger in one run.
has_line "unquoted: the server's checks on the rest" out\
 "$FIX/unquoted.yaml:32: ScaledObject llm/chat trigger 0: metadata\
 'timezone': '2026' does not start with a letter; allowed: an IANA time\
 zone name, 1 to 63 characters of A-Z, a-z, 0-9, '_', '+', '-' and '/',\
 starting with a letter (default UTC)"
lines "unquoted" 5

lint "$FIX/all-errors.yaml"
status "every error of a trigger" 1
lines "every error of a trigger, and no 'missing' for a bad key" 4
has_line "all errors: serviceTime" out "$FIX/all-errors.yaml:28:\
 ScaledObject llm/chat trigger 0: metadata 'serviceTime': '-8' is out of\
 range; allowed: a number greater than 0 and at most 86400 seconds\
 (default: none)"
has_line "all errors: beta" out "$FIX/all-errors.yaml:29: ScaledObject\
 llm/chat trigger 0: metadata 'beta': '1.5x' is not a number; allowed: a\
 number from 0 to 10 (default 1.5)"
has_line "all errors: betta" out "$FIX/all-errors.yaml:30: ScaledObject\
 llm/chat trigger 0: metadata 'betta' is not a known key; did you mean\
 'beta'?"
has_line "all errors: slotsPerReplica" out "$FIX/all-errors.yaml:31:\
 ScaledObject llm/chat trigger 0: metadata 'slotsPerReplica': '0' is out\
 of range; allowed: a whole number from 1 to 100000 (default 1)"

lint "$FIX/metric-name.yaml"
status "duplicate metricName" 1
# the error, and the warning that a cpu trigger shares the object
lines "duplicate metricName" 2
has_line "duplicate metricName" out "$FIX/metric-name.yaml:33: ScaledObject\
 llm/chat trigger 2: metadata 'metricName': 'staffer' is also trigger 0's:\
 staffer reports each trigger's target and signals per ScaledObject and\
 metricName (/metrics, decision logs), so the two triggers would overwrite\
 each other's series; give each trigger its own metricName"
sed 's/serviceTime: "8"$/serviceTime: "8"\n        metricName: route-b/' \
	"$FIX/metric-name.yaml" | awk 'NR < 30 || !/metricName: route-b/ || ++n > 1' \
	>"$TMP/metric-name-ok.yaml"
lint "$TMP/metric-name-ok.yaml"
status "a metricName of its own" 0

# ---- null is absent (the API server prunes it), as for kubectl ------------

sed 's/^  fallback:$/  fallback: ~/; /^    failureThreshold: 3$/d; /^    replicas: 4$/d; /^    behavior: currentReplicasIfHigher$/d' \
	"$FIX/clean.yaml" >"$TMP/null-fallback.yaml"
lint "$TMP/null-fallback.yaml"
status "fallback: ~" 0
contains "fallback: ~" out "null-fallback.yaml:12: warning: ScaledObject llm/chat: no 'fallback'"
sed 's/^    behavior: currentReplicasIfHigher$/    behavior: null/' \
	"$FIX/clean.yaml" >"$TMP/null-fb-behavior.yaml"
lint "$TMP/null-fb-behavior.yaml"
contains "fallback.behavior null" out "spec.fallback has no behavior"
sed 's/^          stabilizationWindowSeconds: 0$/          stabilizationWindowSeconds: null/' \
	"$FIX/clean.yaml" >"$TMP/null-window.yaml"
lint "$TMP/null-window.yaml"
contains "window null" out "no advanced.horizontalPodAutoscalerConfig.behavior.scaleDown.stabilizationWindowSeconds"
sed 's/^  minReplicaCount: 1$/  minReplicaCount: 150/; s/^  maxReplicaCount: 20$/  maxReplicaCount: ~/' \
	"$FIX/clean.yaml" >"$TMP/null-max.yaml"
lint "$TMP/null-max.yaml"
status "maxReplicaCount: ~" 1
contains "maxReplicaCount: ~" out "minReplicaCount must be less than or equal to maxReplicaCount (150 > 100, the default)"

# a key given twice outside the metadata: kubectl's strict decoding
# refuses it, the lax one keeps the last (which lint would not have seen)
awk '{ print } /^    behavior: currentReplicasIfHigher$/ { print "  maxReplicaCount: 50" }' \
	"$FIX/clean.yaml" >"$TMP/dup-field.yaml"
lint "$TMP/dup-field.yaml"
status "a field given twice" 1
has_line "a field given twice" out "$TMP/dup-field.yaml:16: ScaledObject llm/chat:\
 spec.maxReplicaCount: is given twice (first on line 11); give each field once"

# aliases that name one node from many places: linear, not a power (a
# merge of 16 aliases at each of 7 levels took 5.5 s, 30 would take hours)
awk 'function level(d,   s, i) {
	if (d == 0)
		return "&m0 {zz: \"1\"}"
	s = "&m" d " {<<: [" level(d - 1)
	for (i = 1; i < 30; i++)
		s = s ", *m" (d - 1)
	return s "]}"
}
/^        maxReplicas: "20"$/ { print; print "        <<: " level(7); next }
{ print }' "$FIX/clean.yaml" >"$TMP/merge-bomb.yaml"
WHAT="lint merge-bomb.yaml (at most 20 s)"
OUT=$(timeout 20 "$BIN" lint "$TMP/merge-bomb.yaml" 2>"$TMP/err" </dev/null)
RC=$?
ERR=$(cat "$TMP/err")
status "a merge of 30 aliases at 7 levels" 1
contains "a merge of 30 aliases at 7 levels" out "metadata 'zz' is not a known key"

# a List of 100,000 aliases of one object: the CRD is parsed once a run,
# not once an object (35 s before; 0.9 s now, 3.3 s sanitized).  Its
# query comes from the environment, so the pairs of pools (quadratic up to
# 10,000 triggers) do not take the time measured.  go-yaml refuses such a
# List for its aliases (the objects are checked all the same), at the
# values it counts (go-yaml v2.4.0 with the counts printed says 417610 of
# 424416).
{
	printf 'apiVersion: v1\nkind: List\nitems:\n  - &o\n'
	grep -v '^#' "$FIX/clean.yaml" | sed 's/^/    /
		s/arrivalRateQuery: .*/arrivalRateQueryFromEnv: ARRIVAL_QUERY/'
	awk 'BEGIN { for (i = 0; i < 100000; i++) print "  - *o" }'
} >"$TMP/aliases.yaml"
WHAT="lint aliases.yaml (at most 10 s)"
OUT=$(timeout 10 "$BIN" lint "$TMP/aliases.yaml" 2>"$TMP/err" </dev/null)
RC=$?
ERR=$(cat "$TMP/err")
status "a List of 100,000 aliases of one object" 1
lines "a List of 100,000 aliases of one object" 1
has_line "a List of 100,000 aliases of one object" out "$TMP/aliases.yaml:4:\
 List (no name): items[6736]: kubectl refuses the whole document\
 (\"document contains excessive aliasing\"): with this alias (*o, the node\
 on line 4), 417610 of the 424416 values go-yaml has decoded came through\
 aliases, more than the 417609 (98.4%) it allows for that many; write out\
 what the aliases repeat, or split the document"

# 20,000 triggers, aliases of one that merges a list of 10,000 empty
# maps: each lookup through `<<` looks at 1,024 of them at most
# (YDOC_MERGE_SOURCES; 16.8 s before, 1.3 s now); in staffer's metadata
# a longer list is an error.
awk '/^  triggers:$/ { print; printf "    - &m {type: cpu, <<: ["
	for (i = 0; i < 10000; i++) printf "%s{}", i ? ", " : ""
	print "]}"; for (i = 1; i < 20000; i++) print "    - *m"; next }
{ print }' "$FIX/clean.yaml" >"$TMP/merge-wide.yaml"
WHAT="lint merge-wide.yaml (at most 8 s)"
timeout 8 "$BIN" lint "$TMP/merge-wide.yaml" >"$TMP/mw.out" 2>"$TMP/err" \
	</dev/null
RC=$?
OUT=$(head -c 65536 "$TMP/mw.out")
ERR=$(cat "$TMP/err")
status "a <<: list of 10,000 maps in 20,000 triggers" 1
awk '/^        serviceTime: "8"$/ { print; printf "        <<: ["
	for (i = 0; i < 1100; i++) printf "%s{k%d: \"1\"}", i ? ", " : "", i
	print "]"; next }
{ print }' "$FIX/clean.yaml" >"$TMP/merge-wide-md.yaml"
lint "$TMP/merge-wide-md.yaml"
status "metadata merging 1,100 maps" 1
contains "metadata merging 1,100 maps" out "metadata merges ('<<') more than 1024 maps; the rest is not read"

# 2,000 triggers, aliases of one map of 2,000 unknown fields: each is a
# finding, and a finding is a visit, so the object says at most
# CRD_VISITS_MAX of them (4 million before, about 7 s and 830 MB).
awk '/^  triggers:$/ { print; printf "    - &u {"
	for (i = 0; i < 2000; i++) printf "%su%d: 1", i ? ", " : "", i
	print "}"; for (i = 1; i < 2000; i++) print "    - *u"; next }
{ print }' "$FIX/clean.yaml" >"$TMP/unknown-bomb.yaml"
WHAT="lint unknown-bomb.yaml (at most 20 s)"
timeout 20 "$BIN" lint "$TMP/unknown-bomb.yaml" >"$TMP/ub.out" \
	2>"$TMP/err" </dev/null
RC=$?
OUT=$(head -c 65536 "$TMP/ub.out")
ERR=$(cat "$TMP/err")
status "2,000 aliases of 2,000 unknown fields" 1
contains "2,000 aliases of 2,000 unknown fields" out "unknown field: the CRD has no such field here"
n=$(grep -c "unknown field" "$TMP/ub.out")
if [ "$n" -le 100000 ] && grep -q "expands to more than 100000 values" "$TMP/ub.out"; then
	ok
else
	bad "2,000 aliases of 2,000 unknown fields: $n unknown fields said, want at most 100,000 and the cap's line"
fi

# The fields of a map whose schema lists none (the object's metadata)
# are values too, each a visit: 50,000 of them, aliases of one list, are
# 100,000 values with the list's items, past CRD_VISITS_MAX (they were
# not counted, only the items, and the cap was not reached).
{
	sed -n '2,6p' "$FIX/clean.yaml"
	echo '  l: &L [x]'
	awk 'BEGIN { for (i = 0; i < 50000; i++) print "  a" i ": *L" }'
	sed -n '7,$p' "$FIX/clean.yaml"
} >"$TMP/meta-fields.yaml"
WHAT="lint meta-fields.yaml (at most 20 s)"
OUT=$(timeout 20 "$BIN" lint "$TMP/meta-fields.yaml" 2>"$TMP/err" \
	</dev/null)
RC=$?
ERR=$(cat "$TMP/err")
status "50,000 fields of metadata, each a visit" 1
has_line "50,000 fields of metadata, each a visit" out\
 "$TMP/meta-fields.yaml:50003: ScaledObject llm/chat: metadata.a49996: the\
 object expands to more than 100000 values (aliases repeating nodes); the\
 rest is not checked"

# a 16 MiB List of 257,000 triggers whose metadata merges one map (`<<:
# *b`): a merge walk costs the maps it visits, not the document's size
# (each cleared a mark per node of the document: 27.5 s before; 1.6 s
# now, 5.9 s sanitized).  --address looks up each merged scalerAddress
# too (ymap_get_merged(), beside ydoc_md_collect()).  go-yaml refuses
# this List for its aliases, past 2 million values (all checked still).
awk 'BEGIN {
	print "apiVersion: v1\nkind: List\nitems:"
	s = "- {apiVersion: keda.sh/v1alpha1, kind: ScaledObject, metadata:" \
	    " {name: o0, namespace: llm}, spec: {scaleTargetRef: {name: o0}," \
	    " fallback: &f {failureThreshold: 3, replicas: 4, behavior:" \
	    " currentReplicasIfHigher}, advanced: &a" \
	    " {horizontalPodAutoscalerConfig: {behavior: {scaleUp:" \
	    " {tolerance: \"0\"}, scaleDown: {tolerance: \"0\"," \
	    " stabilizationWindowSeconds: 0}}}}, triggers: [{type: external," \
	    " metadata: {<<: &b {scalerAddress: staffer.keda.svc:9090," \
	    " arrivalRateQueryFromEnv: ARRIVAL_QUERY, slotsPerReplica:" \
	    " \"32\", serviceTime: \"8\"}}}]}}"
	size = 32
	for (n = 1; size + length(s) < 16 * 1024 * 1024; n++) {
		print s
		size += length(s) + 1
		s = "- {apiVersion: keda.sh/v1alpha1, kind: ScaledObject," \
		    " metadata: {name: o" n ", namespace: llm}, spec:" \
		    " {scaleTargetRef: {name: o" n "}, fallback: *f, advanced:" \
		    " *a, triggers: ["
		for (t = 0; t < 16; t++)
			s = s (t ? ", " : "") "{type: external, metadata: {<<:" \
			    " *b, metricName: m" t "}}"
		s = s "]}}"
	}
}' >"$TMP/merges.yaml"
WHAT="lint --address staffer.keda merges.yaml (at most 20 s)"
OUT=$(timeout 20 "$BIN" lint --address staffer.keda "$TMP/merges.yaml" \
	2>"$TMP/err" </dev/null)
RC=$?
ERR=$(cat "$TMP/err")
status "a List of 257,000 triggers merging one map" 1
lines "a List of 257,000 triggers merging one map" 1
contains "a List of 257,000 triggers merging one map" out "merges.yaml:7217:\
 ScaledObject llm/o7213: spec.triggers[4].metadata: kubectl refuses the\
 whole document (\"document contains excessive aliasing\"): with this alias\
 (*b, the node on line 4), 1197251 of the 2286389 values"
# The same List with each trigger's type and metadata merged in too
# (`<<: *t`): every key is looked up through the merges, and the CRD
# check walks the pairs merged into each trigger (1.5 s; 0.7 s before,
# when none of these triggers was found to be staffer's).  The object
# added last shows that they are checked.
sed -e 's/{type: external, metadata: {<<: &b {/{<<: \&t {type: external, metadata: \&b {/' \
	-e 's/{type: external, metadata: {<<: \*b,/{<<: *t, metadata: {<<: *b,/g' \
	"$TMP/merges.yaml" >"$TMP/merged-triggers.yaml"
echo '- {apiVersion: keda.sh/v1alpha1, kind: ScaledObject, metadata: {name:'\
' bad, namespace: llm}, spec: {scaleTargetRef: {name: bad}, fallback: *f,'\
' advanced: *a, triggers: [{<<: *t, metadata: {<<: *b, slotsPerReplica:'\
' "3x"}}]}}' >>"$TMP/merged-triggers.yaml"
WHAT="lint --address staffer.keda merged-triggers.yaml (at most 20 s)"
OUT=$(timeout 20 "$BIN" lint --address staffer.keda \
	"$TMP/merged-triggers.yaml" 2>"$TMP/err" </dev/null)
RC=$?
ERR=$(cat "$TMP/err")
status "a List of 257,000 triggers merged in" 1
lines "a List of 257,000 triggers merged in" 2
contains "a List of 257,000 triggers merged in" out "1052532 of the 1432533\
 values go-yaml has decoded came through aliases"
contains "a List of 257,000 triggers merged in" out "ScaledObject llm/bad\
 trigger 0: metadata 'slotsPerReplica': '3x' is not a number"

# A bad `<<` in a map that 300,000 aliases repeat, under an unknown field:
# each is told (a finding a visit), at most CRD_VISITS_MAX values an
# object, and the cap is said.
awk '/^  triggers:$/ { printf "  bogus: [&b {<<: 5}"
	for (i = 0; i < 300000; i++) printf ", *b"
	print "]"; print; next }
{ print }' "$FIX/clean.yaml" >"$TMP/merge-bad-bomb.yaml"
WHAT="lint merge-bad-bomb.yaml (at most 20 s)"
timeout 20 "$BIN" lint "$TMP/merge-bad-bomb.yaml" >"$TMP/mbb.out" \
	2>"$TMP/err" </dev/null
RC=$?
OUT=$(head -c 65536 "$TMP/mbb.out")
ERR=$(cat "$TMP/err")
status "300,000 aliases of a bad merge" 1
contains "300,000 aliases of a bad merge" out "spec.bogus[0].<<: '5' is a\
 number, not a map"
n=$(grep -c "not a map" "$TMP/mbb.out")
if [ "$n" -ge 1000 ] && [ "$n" -le 100000 ] &&
	grep -q "expands to more than 100000 values" "$TMP/mbb.out"; then
	ok
else
	bad "300,000 aliases of a bad merge: $n told, want 1,000 to 100,000 and the cap's line"
fi

# A trigger's metadata of 100,000 keys, then one given again: each key is
# looked up in a hash of those gathered (ydoc_md_find()), not among all
# before it (67 s before, quadratic; 1.1 s now, most of it the "did you
# mean" of each unknown key).
awk '{ print } /^        maxReplicas: "20"$/ {
	for (i = 0; i < 100000; i++) print "        k" i ": \"1\""
	print "        k5: \"2\"" }' "$FIX/clean.yaml" >"$TMP/keys.yaml"
WHAT="lint keys.yaml (at most 20 s)"
timeout 20 "$BIN" lint "$TMP/keys.yaml" >"$TMP/keys.out" 2>"$TMP/err" \
	</dev/null
RC=$?
OUT=$(tail -n 1 "$TMP/keys.out")
ERR=$(cat "$TMP/err")
status "metadata of 100,000 keys" 1
has_line "metadata of 100,000 keys: the one given again" out\
 "$TMP/keys.yaml:100032: ScaledObject llm/chat trigger 0: metadata 'k5' is\
 given twice (first on line 37); give each key once"
n=$(grep -c "is not a known key" "$TMP/keys.out")
if [ "$n" -eq 100000 ]; then
	ok
else
	bad "metadata of 100,000 keys: $n unknown keys told, want 100000"
fi

# Peak memory as a ratio to the input (docs/lint.md, "Limits"): what lint
# holds beyond its run on a small file, at most 7 times a List of
# ScaledObjects of nearly YDOC_FILE_MAX (4.4 times now, 9.1 before) and at
# most 60 times 4 MiB of nothing but one-byte nodes (42 now, 105 before).
# Not for a sanitized binary, whose memory is its own.
# peak_kb FILE: lint's maximum resident set, in KiB, into PEAK.
peak_kb() {
	WHAT="$MEASURE lint $1"
	"$MEASURE" -f %M -o "$TMP/rss" "$BIN" lint "$1" >/dev/null \
		2>"$TMP/err" </dev/null
	RC=$?
	OUT=
	ERR=$(cat "$TMP/err")
	PEAK=$(tail -n 1 "$TMP/rss")
}
# within NAME FILE RATIO: FILE's peak, beyond a small file's, is at most
# RATIO times its size.
within() {
	peak_kb "$2"
	status "$1" 0
	size=$(wc -c <"$2")
	if [ $(((PEAK - BASE) * 1024)) -le $(($3 * size)) ]; then
		ok
	else
		bad "$1: peak $PEAK KiB, $BASE on a small file, for $size bytes"
	fi
}
case $BIN in
*asan*) MEASURE= ;;
*) MEASURE=/usr/bin/time ;;
esac
if [ -n "$MEASURE" ] && [ -x "$MEASURE" ]; then
	peak_kb "$FIX/clean.yaml"
	BASE=$PEAK
	awk 'BEGIN { print "apiVersion: v1\nkind: List\nitems:" }
	/^#/ { next }
	{ body = body (body == "" ? "  - " : "    ") $0 "\n" }
	END {
		for (n = 32; n + length(body) < 16 * 1024 * 1024; n += length(body))
			printf "%s", body
	}' "$FIX/clean.yaml" >"$TMP/big-list.yaml"
	within "a 16 MiB List of ScaledObjects" "$TMP/big-list.yaml" 7
	awk 'BEGIN { printf "- {"; for (i = 0; i < 2 * 1024 * 1024 - 4; i++)
		printf "a,"; print "a}" }' >"$TMP/tiny-nodes.yaml"
	within "4 MiB of one-byte nodes" "$TMP/tiny-nodes.yaml" 60
else
	echo "# sanitized, or no /usr/bin/time: lint's peak memory not checked" >&2
fi

# a required field merged in at spec level ('<<' applies in every map)
sed 's/^  scaleTargetRef:$/  <<: {scaleTargetRef: {name: chat}}/; /^    name: chat$/d' \
	"$FIX/clean.yaml" >"$TMP/merge-spec.yaml"
lint "$TMP/merge-spec.yaml"
status "scaleTargetRef merged in" 0

# go-yaml's integers: 0o and 0b as well as 0x
sed 's/^  maxReplicaCount: 20$/  maxReplicaCount: 0o24/' "$FIX/clean.yaml" \
	>"$TMP/octal.yaml"
lint "$TMP/octal.yaml"
status "maxReplicaCount: 0o24" 0
sed 's/^  maxReplicaCount: 20$/  maxReplicaCount: 0b10100/' "$FIX/clean.yaml" \
	>"$TMP/binary.yaml"
lint "$TMP/binary.yaml"
status "maxReplicaCount: 0b10100" 0

# ---- errors: KEDA's CRD schema (third_party/keda) ---------------------------

lint "$FIX/crd.yaml"
status "CRD schema" 1
lines "CRD schema" 10
has_line "CRD: required" out "$FIX/crd.yaml:8: ScaledObject llm/chat:\
 spec.scaleTargetRef: required field 'name' is missing"
has_line "CRD: a quoted integer" out "$FIX/crd.yaml:11: ScaledObject\
 llm/chat: spec.maxReplicaCount: '4' is a string; the CRD wants an\
 integer (write it without quotes)"
has_line "CRD: unknown field" out "$FIX/crd.yaml:12: ScaledObject llm/chat:\
 spec.pollingIntervall: unknown field: the CRD has no such field here,\
 and the API server refuses it (kubectl's strict validation); did you\
 mean 'pollingInterval'?"
has_line "CRD: minimum" out "$FIX/crd.yaml:13: ScaledObject llm/chat:\
 spec.cooldownPeriod: -1 is below the minimum 0"
has_line "CRD: required in fallback" out "$FIX/crd.yaml:14: ScaledObject\
 llm/chat: spec.fallback: required field 'replicas' is missing"
has_line "CRD: enum" out "$FIX/crd.yaml:16: ScaledObject llm/chat:\
 spec.fallback.behavior: 'higher' is not allowed; allowed: static,\
 currentReplicas, currentReplicasIfHigher, currentReplicasIfLower,\
 scalingModifiers"
has_line "CRD: quantity" out "$FIX/crd.yaml:21: ScaledObject llm/chat:\
 spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleUp.tolerance:\
 'ten percent' is not a Kubernetes quantity; allowed: a decimal number\
 with an optional suffix, e.g. \"0\", \"0.05\", \"50m\""
has_line "CRD: whole number" out "$FIX/crd.yaml:22: ScaledObject llm/chat:\
 spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleUp.\
stabilizationWindowSeconds: 1.5 is not a whole number; the CRD wants an\
 integer"
has_line "CRD: boolean" out "$FIX/crd.yaml:27: ScaledObject llm/chat:\
 spec.triggers[0].useCachedMetrics: 'yes' is a string; the CRD wants\
 true or false, unquoted"
has_line "CRD: min <= max" out "$FIX/crd.yaml:42: ScaledObject llm/small:\
 spec: minReplicaCount must be less than or equal to maxReplicaCount\
 (5 > 3)"

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
# a namespace of 63 characters, longer than a finding shows, is matched
# whole against the backend's list (it was read back from the shown name)
NS63=ml-$(printf '%060d' 0)
sed "s/^  namespace: llm$/  namespace: $NS63/; s/^        serviceTime: \"8\"$/        serviceTime: \"8\"\n        backend: thanos/" \
	"$FIX/clean.yaml" >"$TMP/long-ns.yaml"
lint --config "$FIX/config-ns.json" "$TMP/long-ns.yaml"
status "a 63-character namespace the backend lists" 0
sed "s/^  name: chat$/  namespace: llm/; 6d; s/^        serviceTime: \"8\"$/        serviceTime: \"8\"\n        backend: thanos/" \
	"$FIX/clean.yaml" >"$TMP/no-name.yaml"
lint --config "$FIX/config-ns.json" "$TMP/no-name.yaml"
status "no name, a namespace the backend does not list" 1
contains "no name, a namespace the backend does not list" out "namespace 'llm' may not use backend 'thanos'"
lint --config "$FIX/config-ns.json" "$FIX/backend.yaml"
status "backend closed to the namespace" 1
has_line "backend closed to the namespace" out "$FIX/backend.yaml:32:\
 ScaledObject llm/chat trigger 0: namespace 'llm' may not use backend\
 'thanos': staffer's config opens it to other namespaces only (the\
 backend's 'namespaces' list; ask the platform team, docs/config.md); the\
 server answers PERMISSION_DENIED"
sed 's/namespace: llm$/namespace: ml-serving/' "$FIX/backend.yaml" >"$TMP/backend-ml.yaml"
lint --config "$FIX/config-ns.json" "$TMP/backend-ml.yaml"
status "backend open to the namespace" 0
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

lint "$FIX/sla-feedback.yaml"
status "SLO feedback without serviceTimeQuery" 0
lines "SLO feedback without serviceTimeQuery" 1
has_line "slaMissQuery without serviceTimeQuery" out "$FIX/sla-feedback.yaml:20:\
 warning: ScaledObject llm/chat trigger 0: metadata 'slaMissQuery' without\
 'serviceTimeQuery': the SLO feedback adds capacity when W is told too low\
 but never removes it when W is too high, so a stale 'serviceTime' above\
 the real W keeps the fleet too big; measure W with serviceTimeQuery"
lint --strict "$FIX/sla-feedback.yaml"
status "SLO feedback without serviceTimeQuery --strict" 1

lint "$FIX/hpa-settings.yaml"
status "HPA settings that fight staffer" 0
lines "HPA settings that fight staffer" 5
has_line "tolerance 0.2" out "$FIX/hpa-settings.yaml:19: warning:\
 ScaledObject llm/chat: scaleUp.tolerance is 0.2: the HPA ignores a\
 scale-up smaller than 20% of the current size (at 10 replicas, up to\
 12), so staffer's steps wait for a bigger one; set tolerance: \"0\""
has_line "scaleUp window" out "$FIX/hpa-settings.yaml:20: warning:\
 ScaledObject llm/chat: scaleUp.stabilizationWindowSeconds is 600: the\
 HPA takes the lowest recommendation of the last 600 s, so every\
 scale-up staffer answers lands that late; set it to 0"
has_line "selectPolicy Min" out "$FIX/hpa-settings.yaml:21: warning:\
 ScaledObject llm/chat: scaleUp.selectPolicy is Min: the most\
 restrictive policy limits every scale-up; leave selectPolicy out (Max)"
has_line "1 pod per 300 s" out "$FIX/hpa-settings.yaml:27: warning:\
 ScaledObject llm/chat: scaleUp policy {type: Pods, value: 1,\
 periodSeconds: 300} lets the HPA add at most 1 pod(s) per 300 s\
 (selectPolicy Min: the slowest policy wins): staffer's jumps (a burst, a\
 shedding boost) land that slowly; allow at least 100% or 4 pods per 15\
 s, the HPA's default"
has_line "scaleDown Disabled" out "$FIX/hpa-settings.yaml:30: warning:\
 ScaledObject llm/chat: scaleDown.selectPolicy is Disabled: the HPA never\
 scales down, so staffer's scale-down steps are ignored and the fleet\
 only grows; leave selectPolicy out (staffer smooths scale-down itself)"
# with the default Max, a slow policy next to a fast one is fine
sed '/selectPolicy: Min/d' "$FIX/hpa-settings.yaml" >"$TMP/max.yaml"
lint "$TMP/max.yaml"
lines "a slow policy beside a fast one, selectPolicy Max" 3

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

# ---- the queries parsed, their units, silent zeros (issue 24) --------------
# One ScaledObject per mistake in signals.yaml: each finding names the key
# and says what to write instead.

S="$FIX/signals.yaml"
lint "$S"
status "signals: syntax errors are errors" 1
lines "signals: one finding per mistake" 14
P="$S:30: ScaledObject llm/unclosed trigger 0: metadata 'arrivalRateQuery'"
contains "unclosed parenthesis" out "$P is not valid PromQL, and the backend\
 refuses it: at character 4, the '(' of 'sum(' here is never closed"
P="$S:62: ScaledObject llm/no-range trigger 0: metadata 'arrivalRateQuery'"
contains "rate() without a range" out "$P is not valid PromQL, and the backend\
 refuses it: at character 10, rate() wants a range vector as argument 1,\
 e.g. rate(x[5m]), got an instant vector: add a range such as [5m]"
P="$S:94: ScaledObject llm/extra-paren trigger 0: metadata 'arrivalRateQuery'"
contains "an extra parenthesis" out "$P is not valid PromQL, and the backend\
 refuses it: at character 44, unexpected ')': it closes no '('"
P="$S:126: ScaledObject llm/offset-call trigger 0: metadata 'arrivalRateQuery'"
contains "offset on a call" out "$P is not valid PromQL, and the backend\
 refuses it: at character 44, 'offset' applies to a selector"
contains "offset on a call: the fix" out "move it into the call, e.g.\
 rate(x[5m] offset 1h)"
P="$S:158: warning: ScaledObject llm/increase trigger 0: metadata"
contains "increase()" out "$P 'arrivalRateQuery' is in requests per 60 s\
 (increase(requests_total{model=\"chat\"}[1m])), and staffer wants requests\
 per second: use rate() instead of increase(), or divide by 60"
P="$S:191: warning: ScaledObject llm/triton-us trigger 0: metadata"
contains "Triton's _us" out "$P 'serviceTimeQuery' is in microseconds\
 ('nv_inference_request_duration_us{model=\"whisper\"}[5m]'), and staffer\
 wants seconds: divide by 1e6"
P="$S:223: warning: ScaledObject llm/ms-time trigger 0: metadata"
contains "serviceTime in ms" out "$P 'serviceTime' is 1500 s (25 min) a\
 request: serviceTime is in seconds; if that is milliseconds, write \"1.5\""
P="$S:254: warning: ScaledObject llm/bare-zero trigger 0: metadata"
contains "or vector(0)" out "$P 'arrivalRateQuery' ends in 'or vector(0)':\
 when the scrape fails or the metric is renamed it reads 0"
contains "or vector(0): the guarded form, from the query's job" out "guard\
 the fallback so that it reads 0 only while the exporter is up: ... or\
 (0 * max(up{job=\"gateway\"} == 1)) (docs/cookbook.md)"
P="$S:286: warning: ScaledObject llm/on-zero trigger 0: metadata"
contains "or on() vector(0)" out "$P 'arrivalRateQuery' ends in 'or on()\
 vector(0)'"
P="$S:318: warning: ScaledObject llm/up-zero trigger 0: metadata"
contains "a guard without == 1" out "$P 'arrivalRateQuery': the fallback\
 '(0 * max(up{job=\"gateway\"}))' reads 0 while the exporter is down too (up\
 is then 0, not absent): keep only the targets that are up, e.g. 0 *\
 max(up{job=\"gateway\"} == 1)"
P="$S:339: warning: ScaledObject llm/modifiers:"
contains "scalingModifiers" out "$P spec.advanced.scalingModifiers: KEDA\
 hands the HPA the formula's result"
contains "scalingModifiers: the fix" out "remove scalingModifiers"
P="$S:389: warning: ScaledObject llm/more-triggers trigger 1:"
contains "a cpu trigger beside staffer" out "$P a trigger of type 'cpu' in\
 staffer's ScaledObject: the HPA scales to the highest of the triggers'\
 answers"
contains "other triggers: the fix" out "give staffer's trigger a\
 ScaledObject of its own, or remove this one"
contains "a prometheus trigger beside staffer" out "$S:393: warning:\
 ScaledObject llm/more-triggers trigger 2: a trigger of type 'prometheus'"
P="$S:410: warning: ScaledObject llm/static-fallback:"
contains "a static fallback" out "$P spec.fallback has no behavior (KEDA's\
 default is static): during a metrics outage KEDA then sets the fleet to\
 fallback.replicas (4 replicas, where maxReplicaCount allows 20)"
contains "a static fallback: the fix" out "set behavior:\
 currentReplicasIfHigher"
# The fixes lint names make each object clean again.
sed -e 's/\[1m\])$/[1m]))/' -e 's/{model="chat"}))$/{model="chat"}[1m]))/' \
	-e 's/\[1m\])))$/[1m]))/' -e 's/\[1m\]) offset 5m)$/[1m] offset 5m))/' \
	-e 's/increase(/rate(/' -e 's/\[5m\])) \/ sum(rate(nv_inference_request_success{model="whisper"}\[5m\]))$/[5m])) \/ sum(rate(nv_inference_request_success{model="whisper"}[5m])) \/ 1e6/' \
	-e 's/"1500"/"1.5"/' \
	-e 's/ or vector(0)$/ or (0 * max(up{job="gateway"} == 1))/' \
	-e 's/ or on() vector(0)$/ or (0 * max(up{job="gateway"} == 1))/' \
	-e 's/(0 \* max(up{job="gateway"}))$/(0 * max(up{job="gateway"} == 1))/' \
	-e '/^    scalingModifiers:/,/target: "1"/d' \
	-e '/- type: cpu/,/threshold: "20"/d' \
	"$S" | awk '/name: static-fallback/ { f = 1 }
		f && /replicas: 4/ { print; print "    behavior: currentReplicasIfHigher"; f = 0; next }
		{ print }' >"$TMP/signals-fixed.yaml"
lint --strict "$TMP/signals-fixed.yaml"
status "signals, fixed as lint says" 0
quiet "signals, fixed as lint says"

# ---- documents and files --------------------------------------------------

lint "$FIX/multi-doc.yaml"
status "multi-doc" 1
# the bad object's error, and that it shares the object with a cpu trigger
lines "multi-doc: only the bad object" 2
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
# the foreign trigger's unknown key, and the arrivalRateQuery it lacks
lines "List: both items, the foreign trigger" 4
contains "List item b" out "ScaledObject llm/b trigger 1: metadata\
 'queueName' is not a known key"
lint --address staffer.keda "$FIX/list-merge.yaml"
status "--address skips another scaler's trigger" 0
lines "--address: only that it shares the object" 2
contains "--address: shares the object" out "ScaledObject llm/a trigger 1: a\
 trigger of type 'external' in staffer's ScaledObject"
# ... but still checks staffer's, whose scalerAddress comes from a merge.
sed 's/slotsPerReplica: "32"/slotsPerReplica: "3x"/' "$FIX/list-merge.yaml" \
	>"$TMP/merge.yaml"
lint_stdin "$TMP/merge.yaml" --address staffer.keda -
status "--address with a merged scalerAddress" 1
lines "--address with a merged scalerAddress" 4
has_line "--address with a merged scalerAddress" out "<stdin>:26: ScaledObject\
 llm/a trigger 0: metadata 'slotsPerReplica': '3x' is not a number;\
 allowed: a whole number from 1 to 100000 (default 1)"

# Merge keys outside trigger metadata: kubectl applies `<<` in every map,
# so a trigger, an object or a spec may come from an anchor, and what it
# merges in is checked as if written there, at the line it is written on
# (these objects were skipped, or their merged fields unseen, before).
lint "$FIX/merge-trigger.yaml"
status "a trigger's type and metadata merged in" 1
has_line "a trigger's type and metadata merged in" out\
 "$FIX/merge-trigger.yaml:33: ScaledObject llm/chat trigger 0: metadata\
 'slotsPerReplica': '3x' is not a number; allowed: a whole number from 1\
 to 100000 (default 1)"
lines "a trigger's type and metadata merged in" 1
lint --address staffer.keda "$FIX/merge-trigger.yaml"
status "a merged trigger with --address" 1
sed 's/slotsPerReplica: "3x"/slotsPerReplica: "32"/' "$FIX/merge-trigger.yaml" \
	>"$TMP/merge-trigger-ok.yaml"
lint --strict "$TMP/merge-trigger-ok.yaml"
status "a trigger merged in, fixed" 0
quiet "a trigger merged in, fixed"

lint "$FIX/merge-object.yaml"
status "an object merged in" 1
lines "an object merged in: both objects" 2
has_line "an object merged in: its own name wins" out\
 "$FIX/merge-object.yaml:22: ScaledObject llm/chat-canary trigger 0:\
 metadata 'serviceTime': '0' is out of range; allowed: a number greater\
 than 0 and at most 86400 seconds (default: none)"

M="$FIX/merge-precedence.yaml"
lint "$M"
status "merge precedence" 1
lines "merge precedence: the winners only" 5
has_line "the trigger's own metadata wins" out "$M:21: ScaledObject\
 llm/own-metadata trigger 0: metadata 'serviceTime': '-8' is out of range;\
 allowed: a number greater than 0 and at most 86400 seconds (default:\
 none)"
has_line "the spec's own maxReplicaCount wins" out "$M:28: ScaledObject\
 llm/own-spec: spec: minReplicaCount must be less than or equal to\
 maxReplicaCount (5 > 3)"
has_line "a trigger: the first merged map wins" out "$M:53: ScaledObject\
 llm/first-trigger trigger 0: metadata 'slotsPerReplica': '0' is out of\
 range; allowed: a whole number from 1 to 100000 (default 1)"
has_line "the spec: the first merged map wins" out "$M:62: ScaledObject\
 llm/first-spec: spec.maxReplicaCount: '4' is a string; the CRD wants an\
 integer (write it without quotes)"
has_line "a merged field unknown to the CRD" out "$M:63: ScaledObject\
 llm/first-spec: spec.pollingIntervall: unknown field: the CRD has no\
 such field here, and the API server refuses it (kubectl's strict\
 validation); did you mean 'pollingInterval'?"
# The winners fixed: the losers, bad as they are, are not what kubectl
# applies, and the merged maxReplicaCount (8) is seen (no tolerance
# warning for the default 100).
sed -e 's/serviceTime: "-8"/serviceTime: "8"/' \
	-e 's/^  maxReplicaCount: 3$/  maxReplicaCount: 8/' \
	-e 's/slotsPerReplica: "0"/slotsPerReplica: "32"/' \
	-e 's/maxReplicaCount: "4"/maxReplicaCount: 8/' -e '/pollingIntervall/d' \
	"$M" >"$TMP/merge-precedence-ok.yaml"
lint --strict "$TMP/merge-precedence-ok.yaml"
status "merge precedence, the winners fixed" 0
quiet "merge precedence, the winners fixed"

# A `<<` of something other than a map or a list of maps: go-yaml v2
# (kubectl's) refuses the whole document, so it is an error wherever it
# stands, told once a `<<` at its line (it was told only in trigger
# metadata, twice for `[.., 1, 2]`; elsewhere it was not followed, and
# not told).
B="$FIX/merge-bad.yaml"
MB="not a map: kubectl refuses the whole document (\"map merge requires\
 map or sequence of maps as the value\"); allowed: a map, or a list of maps"
lint "$B"
status "bad merges" 1
lines "bad merges: one a \`<<\`" 7
has_line "a bad merge in the object" out "$B:7: ScaledObject llm/chat: <<:\
 '5' is a number, $MB"
has_line "a bad merge in labels (no schema)" out "$B:11: ScaledObject\
 llm/chat: metadata.labels.<<[1]: '1' is a number, $MB"
has_line "a bad merge in the spec" out "$B:13: ScaledObject llm/chat:\
 spec.<<[1]: 'x' is a string, $MB"
has_line "a null merge in the fallback" out "$B:18: ScaledObject llm/chat:\
 spec.fallback.<<: is null, $MB"
has_line "a bad merge in a merged map" out "$B:24: ScaledObject llm/chat:\
 spec.advanced.<<[0]: is a list, $MB"
has_line "a bad merge in a trigger" out "$B:34: ScaledObject llm/chat:\
 spec.triggers[0].<<: 'true' is a boolean, $MB"
has_line "a bad merge in staffer's metadata: its own words, once" out\
 "$B:36: ScaledObject llm/chat trigger 0: metadata '<<' must merge a map or\
 a list of maps"
# Each made a map, or a list of maps (an empty one merges nothing): clean.
sed -e '/^<<: 5$/d' -e '/^      <<: true$/d' -e 's/, 1, 2\]/]/' \
	-e 's/, x\]/]/' -e 's/<<: ~/<<: {}/' -e 's/<<: \[\[a\]\]/<<: []/' \
	"$B" >"$TMP/merge-bad-ok.yaml"
lint --strict "$TMP/merge-bad-ok.yaml"
status "bad merges made maps" 0
quiet "bad merges made maps"
# In the metadata of a trigger lint does not check (another scaler's, or
# with --address another address), told by the CRD check, with its path.
sed -e '/^<<: 5$/d' -e '/^      <<: true$/d' -e 's/, 1, 2\]/]/' \
	-e 's/, x\]/]/' -e 's/<<: ~/<<: {}/' -e 's/<<: \[\[a\]\]/<<: []/' "$B"\
	>"$TMP/merge-bad-other.yaml"
echo '    - {type: cpu, metadata: {<<: 3, value: "50"}}
    - {type: external, metadata: {<<: [[]], scalerAddress: "other:9090"}}' \
	>>"$TMP/merge-bad-other.yaml"
lint --address staffer.keda "$TMP/merge-bad-other.yaml"
status "a bad merge in other triggers' metadata" 1
has_line "a bad merge in another scaler's metadata" out\
 "$TMP/merge-bad-other.yaml:39: ScaledObject llm/chat:\
 spec.triggers[1].metadata.<<: '3' is a number, $MB"
has_line "a bad merge in another address's metadata" out\
 "$TMP/merge-bad-other.yaml:40: ScaledObject llm/chat:\
 spec.triggers[2].metadata.<<[0]: is a list, $MB"
lines "a bad merge in other triggers' metadata (and 2 warnings)" 4

# Outside the objects lint checks (a List's own fields, an item of
# another kind, a ScaledObject without a staffer trigger, a document of
# another kind): kubectl refuses the whole document all the same, so it
# is an error there too, with the object and its path, once a `<<` where
# it is written (lint said nothing there).  In the object lint checks it
# is told once, by the CRD check.
{
	printf 'apiVersion: v1\nkind: List\nmetadata: {<<: 5}\nitems:\n'
	printf '  - apiVersion: apps/v1\n    kind: Deployment\n'
	printf '    metadata: {name: web, namespace: llm}\n'
	printf '    spec:\n      template:\n        <<: [{metadata: {}}, x]\n'
	printf '  - apiVersion: keda.sh/v1alpha1\n    kind: ScaledObject\n'
	printf '    metadata: {name: cpu, namespace: llm}\n'
	printf '    spec:\n      scaleTargetRef: {name: web}\n'
	printf '      triggers:\n'
	printf '        - {type: cpu, metadata: {<<: ~, value: "50"}}\n'
	grep -v '^#' "$FIX/clean.yaml" | sed 's/^/    /; 1s/^    /  - /
		s/^        behavior: currentReplicasIfHigher$/&\n        <<: 3/'
	printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n'
	printf 'data: {<<: true}\n'
} >"$TMP/merge-bad-elsewhere.yaml"
E="$TMP/merge-bad-elsewhere.yaml"
lint "$E"
status "bad merges outside the objects checked" 1
lines "bad merges outside the objects checked" 5
has_line "a bad merge in a List's own fields" out "$E:3: List (no name):\
 metadata.<<: '5' is a number, $MB"
has_line "a bad merge in an item of another kind" out "$E:10: Deployment\
 llm/web: spec.template.<<[1]: 'x' is a string, $MB"
has_line "a bad merge in a ScaledObject lint does not check" out "$E:17:\
 ScaledObject llm/cpu: spec.triggers[0].metadata.<<: is null, $MB"
has_line "a bad merge in the object checked, once" out "$E:32:\
 ScaledObject llm/chat: spec.fallback.<<: '3' is a number, $MB"
has_line "a bad merge in a document of another kind" out "$E:53: ConfigMap\
 cm: data.<<: 'true' is a boolean, $MB"

# A list merged through an alias (`<<: *L`): go-yaml's merge() takes a
# list of maps written in place only, so kubectl refuses the document;
# lint merged it, as if written there.
awk '{ print } /^  fallback:$/ { print "    <<: &L [{}]" }
	/^  advanced:$/ { print "    <<: *L" }
	/^        maxReplicas: "20"$/ { print "        <<: *L" }' \
	"$FIX/clean.yaml" >"$TMP/merge-alias-list.yaml"
lint "$TMP/merge-alias-list.yaml"
status "a list merged through an alias" 1
lines "a list merged through an alias" 2
has_line "a list merged through an alias" out\
 "$TMP/merge-alias-list.yaml:18: ScaledObject llm/chat: spec.advanced.<<:\
 is an alias to a list, not a map: kubectl refuses the whole document\
 (\"map merge requires map or sequence of maps as the value\"); allowed: a\
 map, or a list of maps written in place (its items may be aliases to maps)"
has_line "a list merged through an alias, in staffer's metadata" out\
 "$TMP/merge-alias-list.yaml:34: ScaledObject llm/chat trigger 0: metadata\
 '<<' must merge a map or a list of maps written in place, not an alias to\
 a list (kubectl refuses one)"
# Written in place, of aliases to maps: clean.
sed -e 's/<<: &L \[{}\]/<<: [\&M {}]/' -e 's/<<: \*L/<<: [*M]/' \
	"$TMP/merge-alias-list.yaml" >"$TMP/merge-alias-ok.yaml"
lint --strict "$TMP/merge-alias-ok.yaml"
status "a list of aliases to maps, written in place" 0
quiet "a list of aliases to maps, written in place"

# A merge key tagged !!merge, or "!" whatever its quotes, is one for
# go-yaml (its isMerge()); lint read it as a key named '<<'.
sed -e 's/^  minReplicaCount: 1$/  !!merge <<: {minReplicaCount: 1}/' \
	-e 's/^        serviceTime: "8"$/        !!merge <<: {serviceTime: "8"}/' \
	"$FIX/clean.yaml" >"$TMP/merge-tagged.yaml"
lint --strict "$TMP/merge-tagged.yaml"
status "merge keys tagged !!merge" 0
quiet "merge keys tagged !!merge"
sed 's/^  minReplicaCount: 1$/  ! "<<": 5/' "$FIX/clean.yaml" \
	>"$TMP/merge-bang.yaml"
lint "$TMP/merge-bang.yaml"
status "a merge key tagged !" 1
lines "a merge key tagged !" 1
has_line "a merge key tagged !" out "$TMP/merge-bang.yaml:10: ScaledObject\
 llm/chat: spec.<<: '5' is a number, $MB"
# An alias to a merge key, as a key, is no merge key for go-yaml (its
# isMerge() takes a scalar node, not an alias): a field named '<<', which
# the API server refuses.  lint merged it.
awk '{ print } /^  fallback:$/ { print "    &k <<: {}" }
	/^  advanced:$/ { print "    *k : {}" }' "$FIX/clean.yaml" \
	>"$TMP/merge-alias-key.yaml"
lint "$TMP/merge-alias-key.yaml"
status "an alias to a merge key" 1
lines "an alias to a merge key" 1
has_line "an alias to a merge key" out "$TMP/merge-alias-key.yaml:18:\
 ScaledObject llm/chat: spec.advanced.<<: unknown field: the CRD has no\
 such field here, and the API server refuses it (kubectl's strict\
 validation)"

# A `<<` that is not a key is the string "<<" for go-yaml, plain or
# tagged (its isMerge() looks at keys only): the server's checks have it
# in metadata, where lint took it for a value it had reported and said
# nothing, and a string field of the CRD takes it (lint said "a tagged
# value").
awk '/^    name: chat$/ { print "    name: <<"; next } { print }
	/^        serviceTime: "8"$/ { print "        beta: <<"
		print "        pool: ! <<" }' "$FIX/clean.yaml" \
	>"$TMP/merge-value.yaml"
lint "$TMP/merge-value.yaml"
status "a value <<" 1
lines "a value <<" 2
has_line "a value <<: the server's check" out "$TMP/merge-value.yaml:30:\
 ScaledObject llm/chat trigger 0: metadata 'beta': '<<' is not a number;\
 allowed: a number from 0 to 10 (default 1.5)"
has_line "a value ! <<: the server's check" out "$TMP/merge-value.yaml:31:\
 ScaledObject llm/chat trigger 0: metadata 'pool': '<<' is not allowed;\
 allowed: unified, prefill, decode (default unified)"

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
# An alias inside the node it names, a cycle: go-yaml, so kubectl,
# refuses the document ("anchor 'c' value contains itself"); lint read it
# as a node that is its own kid.
awk '{ print } /^  name: chat$/ { print "  labels: &c {app: *c}" }' \
	"$FIX/clean.yaml" >"$TMP/cycle.yaml"
lint "$TMP/cycle.yaml"
status "an alias inside its anchor" 2
has_line "an alias inside its anchor" out "$TMP/cycle.yaml:6: invalid YAML:\
 alias *c is inside the node it names (&c on line 6), a cycle: kubectl\
 refuses the document (\"anchor 'c' value contains itself\"); an alias\
 must name a node that ends before it"
printf 'a: &c\n  - b: [1, *c]\n' >"$TMP/cycle-deep.yaml"
lint "$TMP/cycle-deep.yaml"
status "an alias deep inside its anchor" 2
contains "an alias deep inside its anchor" out "cycle-deep.yaml:2: invalid\
 YAML: alias *c is inside the node it names (&c on line 1)"
# Aliases that expand past go-yaml v2's bound: its decoder refuses the
# document ("document contains excessive aliasing", decode.go) when more
# than 99 % of the values it has read (a share that falls to 10 % from
# 400,000 to 4,000,000 values) came through aliases.  lint counts as it
# does, without expanding an alias, and stops where it does; the numbers
# are go-yaml v2.4.0's own, printed where it refuses.  One value written
# in place more (814 zeros) and the document is taken.
bound() {
	awk -v P="$1" 'BEGIN { printf "p: ["
		for (i = 0; i < P; i++) printf "%s0", i ? ", " : ""
		printf "]\na: &a ["
		for (i = 0; i < 999; i++) printf "%s%d", i ? ", " : "", i
		printf "]\nb: ["
		for (i = 0; i < 200; i++) printf "%s*a", i ? ", " : ""
		print "]" }'
}
bound 813 >"$TMP/aliasing.yaml"
lint "$TMP/aliasing.yaml"
status "excessive aliasing" 1
lines "excessive aliasing" 1
has_line "excessive aliasing" out "$TMP/aliasing.yaml:3: b[199]: kubectl\
 refuses the whole document (\"document contains excessive aliasing\"):\
 with this alias (*a, the node on line 2), 199981 of the 202001 values\
 go-yaml has decoded came through aliases, more than the 199980 (99%) it\
 allows for that many; write out what the aliases repeat, or split the\
 document"
bound 814 >"$TMP/aliasing-ok.yaml"
lint --strict "$TMP/aliasing-ok.yaml"
status "aliasing within the bound" 0
quiet "aliasing within the bound"
# Twelve levels of twelve aliases, 8.9 * 10^12 values: counted bottom up
# in the time of the text, and refused where go-yaml's decoder stops.
awk 'BEGIN { print "l0: &l0 [x, x, x, x, x, x, x, x, x, x, x, x]"
	for (i = 1; i < 12; i++) {
		printf "l%d: &l%d [", i, i
		for (j = 0; j < 12; j++) printf "%s*l%d", j ? ", " : "", i - 1
		print "]"
	} }' >"$TMP/laughs.yaml"
WHAT="lint laughs.yaml (at most 5 s)"
OUT=$(timeout 5 "$BIN" lint "$TMP/laughs.yaml" 2>"$TMP/err" </dev/null)
RC=$?
ERR=$(cat "$TMP/err")
status "twelve levels of twelve aliases" 1
contains "twelve levels of twelve aliases" out "laughs.yaml:4: l3[1]:\
 kubectl refuses the whole document (\"document contains excessive\
 aliasing\"): with this alias (*l2, the node on line 3), 4753 of the 4801\
 values"
: >"$TMP/empty.yaml"
lint "$TMP/empty.yaml"
status "empty file" 0

# A key that is a list or a map, and a tag that does not fit its value:
# go-yaml's decoder refuses the whole document ("invalid map key" in
# decode.go's mapping(); "cannot decode !!str `x` as a !!int" in
# resolve.go's resolve()), wherever they stand, so kubectl does (checked
# with go-yaml v2.4.0 through sigs.k8s.io/yaml's YAMLToJSON); lint said
# nothing.  A scalar key of another type (1, true) is taken: YAMLToJSON
# makes it a string.  Told once where written (an alias as a key is
# written there: its value's line), in the objects lint checks too.
RK="kubectl refuses the whole document"
TAGFIX="write a value the tag reads, or leave the tag out"
{
	printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata:\n'
	printf '  ? [a, b]\n  : x\n  {k: 1}: y\n  1: one\n  true: "yes"\n'
	printf '  n: !!int x\n  !!bool maybe: z\n  f: &f [1]\n  g: *f\n'
	printf '  *f : h\n  l: [!!null 0, !!float 5, !!int 0x1F, !!bool on]\n'
	printf -- '---\n'
	grep -v '^#' "$FIX/clean.yaml" |
		sed 's/^  minReplicaCount: 1$/  minReplicaCount: !!int 1.0/'
} >"$TMP/refused.yaml"
R="$TMP/refused.yaml"
lint "$R"
status "keys and tags go-yaml refuses" 1
lines "keys and tags go-yaml refuses" 7
has_line "a key that is a list" out "$R:5: ConfigMap cm: data: a key that\
 is a list: $RK (\"invalid map key: []interface {}{...}\"); allowed: a\
 string key"
has_line "a key that is a map" out "$R:7: ConfigMap cm: data: a key that\
 is a map: $RK (\"invalid map key: map[interface {}]interface {}{...}\");\
 allowed: a string key"
has_line "a key that is an alias to a list" out "$R:14: ConfigMap cm: data:\
 a key that is a list: $RK (\"invalid map key: []interface {}{...}\");\
 allowed: a string key"
has_line "a tag that does not fit its value" out "$R:10: ConfigMap cm:\
 data.n: 'x' is tagged !!int but is a !!str: $RK (\"cannot decode !!str\
 \`x\` as a !!int\"); $TAGFIX"
has_line "a key's tag that does not fit" out "$R:11: ConfigMap cm: data:\
 the key 'maybe' is tagged !!bool but is a !!str: $RK (\"cannot decode\
 !!str \`maybe\` as a !!bool\"); $TAGFIX"
has_line "!!null over a number" out "$R:15: ConfigMap cm: data.l[0]: '0'\
 is tagged !!null but is a !!int: $RK (\"cannot decode !!int \`0\` as a\
 !!null\"); $TAGFIX"
has_line "a bad tag in the object lint checks" out "$R:25: ScaledObject\
 llm/chat: spec.minReplicaCount: '1.0' is tagged !!int but is a !!float:\
 $RK (\"cannot decode !!float \`1.0\` as a !!int\"); $TAGFIX"
# What go-yaml's resolve() reads: 09 is a float (not octal), an int past
# int64 a uint64 that !!float refuses, 1e999 not a float.
printf 'a: !!int 09\nb: !!float 18446744073709551615\nc: !!float 1e999\n' \
	>"$TMP/tags-go.yaml"
printf 'd: !!float 9223372036854775807\ne: !!int 0b-101\nf: !!float .5_0\n' \
	>>"$TMP/tags-go.yaml"
printf 'g: !!timestamp 2001-12-14\nh: !!null ""\ni: !!int "12"\n' \
	>>"$TMP/tags-go.yaml"
lint "$TMP/tags-go.yaml"
status "tags as go-yaml resolves them" 1
lines "tags as go-yaml resolves them" 3
contains "09 is a float" out "(\"cannot decode !!float \`09\` as a !!int\")"
contains "past int64, !!float refuses" out "(\"cannot decode !!int\
 \`18446744073709551615\` as a !!float\")"
contains "1e999 is no float" out "(\"cannot decode !!str \`1e999\` as a\
 !!float\")"
# A !!timestamp go-yaml parses and a !!binary that is base64 are strings
# to kubectl: the timestamp's text (decode.go keeps it, decoding into
# interface{}), the bytes decoded, U+FFFD for each that is not UTF-8
# (encoding/json); each checked as that string (YAMLToJSON gives
# "2001-12-14", "32", "8x", "\ufffd").  The old lint took them for tagged
# values: "is tagged !!binary, not a string" in metadata, "is a tagged
# value; the CRD wants a string" in spec.
grep -v '^#' "$FIX/clean.yaml" | sed \
	-e 's/slotsPerReplica: "32"/slotsPerReplica: !!binary MzI=/' \
	-e 's/maxReplicas: "20"/maxReplicas: !!binary |\n          Mj\n          A=/' \
	-e 's/behavior: currentReplicasIfHigher/behavior: !!binary Y3VycmVudFJlcGxpY2FzSWZIaWdoZXI=/' \
	-e 's/^    name: chat$/    name: !!timestamp 2001-12-14/' \
	>"$TMP/go-strings.yaml"
lint --strict "$TMP/go-strings.yaml"
status "!!binary and !!timestamp read as strings" 0
quiet "!!binary and !!timestamp read as strings"
grep -v '^#' "$FIX/clean.yaml" | sed \
	-e 's/serviceTime: "8"/serviceTime: !!binary OHg=/' \
	-e 's/slotsPerReplica: "32"/slotsPerReplica: !!binary \/w==/' \
	>"$TMP/go-strings-checked.yaml"
lint "$TMP/go-strings-checked.yaml"
lacks "a decoded !!binary is no tagged value" out "is tagged !!binary"
has_line "a decoded !!binary, checked" out "$TMP/go-strings-checked.yaml:28:\
 ScaledObject llm/chat trigger 0: metadata 'serviceTime': '8x' is not a\
 number; allowed: a number greater than 0 and at most 86400 seconds\
 (default: none)"
# (lint shows bytes past ASCII escaped)
contains "not UTF-8: U+FFFD" out "metadata 'slotsPerReplica':\
 '\\xef\\xbf\\xbd' is not a number"
# What go-yaml refuses under them, in its words: a !!binary that is not
# base64 (no padding, a space; decode.go), a date Go's time.Parse does
# not take (resolve.go's parseTimestamp(): February 29 of 2001, no zone
# after a time, resolve.go's own "-5"), in spec and in metadata.  The
# old lint said nothing of them outside metadata.
B64FIX="write base64 padded with '=' to a multiple of 4 characters (no\
 spaces), or leave the tag out"
{
	printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata:\n'
	printf '  a: !!binary aGk\n  b: !!binary "aG k="\n'
	printf '  c: !!timestamp 2001-02-29\n  d: !!timestamp 2001-12-14T21:59:43\n'
	printf '  e: !!timestamp "2001-12-14 21:59:43.10 -5"\n  !!binary aGk: f\n'
	printf '  g: !!timestamp 2001-12-14 21:59:43.10\n  h: !!binary aGk=\n'
} >"$TMP/go-refused.yaml"
G="$TMP/go-refused.yaml"
lint "$G"
status "!!binary and !!timestamp go-yaml refuses" 1
lines "!!binary and !!timestamp go-yaml refuses" 6
has_line "!!binary without padding" out "$G:5: ConfigMap cm: data.a: 'aGk'\
 is tagged !!binary but is not base64: $RK (\"!!binary value contains\
 invalid base64 data\"); $B64FIX"
has_line "!!binary with a space" out "$G:6: ConfigMap cm: data.b: 'aG k='\
 is tagged !!binary but is not base64: $RK (\"!!binary value contains\
 invalid base64 data\"); $B64FIX"
has_line "!!timestamp: no February 29 in 2001" out "$G:7: ConfigMap cm:\
 data.c: '2001-02-29' is tagged !!timestamp but is a !!str: $RK\
 (\"cannot decode !!str \`2001-02-29\` as a !!timestamp\"); $TAGFIX"
has_line "!!timestamp: a time without a zone" out "$G:8: ConfigMap cm:\
 data.d: '2001-12-14T21:59:43' is tagged !!timestamp but is a !!str: $RK\
 (\"cannot decode !!str \`2001-12-14T21:59:43\` as a !!timestamp\");\
 $TAGFIX"
contains "!!timestamp: resolve.go's -5" out "$G:9: ConfigMap cm: data.e:\
 '2001-12-14 21:59:43.10 -5' is tagged !!timestamp but is a !!str"
has_line "a !!binary key" out "$G:10: ConfigMap cm: data: the key 'aGk' is\
 tagged !!binary but is not base64: $RK (\"!!binary value contains\
 invalid base64 data\"); $B64FIX"
grep -v '^#' "$FIX/clean.yaml" | sed \
	-e 's/slotsPerReplica: "32"/slotsPerReplica: !!binary MzI/' \
	-e 's/behavior: currentReplicasIfHigher/behavior: !!timestamp 2001-13-01/' \
	>"$TMP/go-refused-so.yaml"
lint "$TMP/go-refused-so.yaml"
lacks "refused once: not also 'not a string'" out "not a string: $MSG"
lacks "refused once: not also 'a tagged value'" out "is a tagged value"
has_line "a !!binary in metadata, refused" out "$TMP/go-refused-so.yaml:29:\
 ScaledObject llm/chat: spec.triggers[0].metadata.slotsPerReplica: 'MzI'\
 is tagged !!binary but is not base64: $RK (\"!!binary value contains\
 invalid base64 data\"); $B64FIX"
has_line "a !!timestamp in spec, refused" out "$TMP/go-refused-so.yaml:14:\
 ScaledObject llm/chat: spec.fallback.behavior: '2001-13-01' is tagged\
 !!timestamp but is a !!str: $RK (\"cannot decode !!str \`2001-13-01\` as\
 a !!timestamp\"); $TAGFIX"
# The decoder stops at the tag: the aliases after it are not counted (the
# old lint said "excessive aliasing", which go-yaml does not reach), also
# when an alias it meets first, in a `<<` list read last item first,
# names the node with the tag.
{ echo 't: !!int x'; bound 811; } >"$TMP/tag-first.yaml"
lint "$TMP/tag-first.yaml"
status "a tag before the aliases" 1
lines "a tag before the aliases" 1
has_line "a tag before the aliases" out "$TMP/tag-first.yaml:1: t: 'x' is\
 tagged !!int but is a !!str: $RK (\"cannot decode !!str \`x\` as a\
 !!int\"); $TAGFIX"
awk 'BEGIN { printf "a: &a ["
	for (i = 0; i < 999; i++) printf "%s%d", i ? ", " : "", i
	printf "]\nb: {<<: [&m {q: !!int x}, {r: *m, s: ["
	for (i = 0; i < 200; i++) printf "%s*a", i ? ", " : ""
	print "]}]}" }' >"$TMP/tag-alias.yaml"
lint "$TMP/tag-alias.yaml"
status "an alias to a tag, met first" 1
lines "an alias to a tag, met first" 1
contains "an alias to a tag, met first" out "tag-alias.yaml:2: b.q: 'x' is\
 tagged !!int"
sed 's/!!int x/!!int 1/' "$TMP/tag-alias.yaml" >"$TMP/tag-alias-ok.yaml"
lint "$TMP/tag-alias-ok.yaml"
status "the same tag fitting" 1
contains "the same tag fitting: the aliases refused" out "b.s[110]: $RK\
 (\"document contains excessive aliasing\")"

# A key or a tag go-yaml refuses inside an object lint checks is one
# finding, the refusal: the old lint also said "metadata has a key that is
# not a plain string", "'x' is tagged !!int, not a string" (trigger
# metadata) and "q is a tagged value; the CRD wants a string" (spec).
grep -v '^#' "$FIX/clean.yaml" | sed \
	-e 's/slotsPerReplica: "32"/slotsPerReplica: !!int x/' \
	-e 's/serviceTime: "8"/serviceTime: "8"\n        ? [a]\n        : b/' \
	-e 's/behavior: currentReplicasIfHigher/behavior: !!int q/' \
	>"$TMP/refused-once.yaml"
lint "$TMP/refused-once.yaml"
status "a refusal in a checked object, once" 1
lines "a refusal in a checked object, once" 3
lacks "no 'not a plain string' next to it" out "not a plain string"
lacks "no 'tagged !!int, not a string' next to it" out "not a string: $MSG"
lacks "no 'a tagged value' next to it" out "is a tagged value"
has_line "a key that is a list in metadata, once" out "$TMP/refused-once.yaml:29:\
 ScaledObject llm/chat: spec.triggers[0].metadata: a key that is a list:\
 $RK (\"invalid map key: []interface {}{...}\"); allowed: a string key"
has_line "a tag in metadata, once" out "$TMP/refused-once.yaml:31:\
 ScaledObject llm/chat: spec.triggers[0].metadata.slotsPerReplica: 'x' is\
 tagged !!int but is a !!str: $RK (\"cannot decode !!str \`x\` as a\
 !!int\"); $TAGFIX"
has_line "a tag where the CRD wants a string, once" out\
 "$TMP/refused-once.yaml:14: ScaledObject llm/chat: spec.fallback.behavior:\
 'q' is tagged !!int but is a !!str: $RK (\"cannot decode !!str \`q\` as a\
 !!int\"); $TAGFIX"

# What sigs.k8s.io/yaml's YAMLToJSON refuses once go-yaml has read the
# document (kubectl: checked with /tmp/gy3chk): a float JSON cannot hold
# ("json: unsupported value: +Inf"), a null key or one past int64
# ("Unsupported map key of type"); the old lint said nothing, or "must be
# a quoted string" / "unknown field".  What go-yaml drops (a key given
# again, a pair a later `<<` replaces) is not refused, nor a quoted
# ".inf", a key `.inf`, or 9223372036854775807.
JF="allowed: a finite number, or a quoted string"
{
	printf 'a: .inf\nb: [1, -.INF]\nc: !!float .NaN\n~: x\n'
	printf '18446744073709551615: y\nd: {e: .nan, e: 1}\n'
	printf 'f: {<<: {g: .inf}, g: 2}\nh: ".inf"\n.inf: z\n'
	printf '9223372036854775807: w\ni: {<<: {j: .inf}}\n'
} >"$TMP/json.yaml"
lint "$TMP/json.yaml"
status "what YAMLToJSON refuses" 1
lines "what YAMLToJSON refuses" 6
has_line "an infinite float" out "$TMP/json.yaml:1: a: '.inf' is a float\
 JSON cannot hold: $RK (\"json: unsupported value: +Inf\"); $JF"
has_line "-.INF in a list" out "$TMP/json.yaml:2: b[1]: '-.INF' is a float\
 JSON cannot hold: $RK (\"json: unsupported value: -Inf\"); $JF"
has_line "!!float .NaN" out "$TMP/json.yaml:3: c: '.NaN' is a float JSON\
 cannot hold: $RK (\"json: unsupported value: NaN\"); $JF"
has_line "a null key" out "$TMP/json.yaml:4: (top): the key '~' is null:\
 $RK (\"Unsupported map key of type: %!s(<nil>), ...\"); allowed: a\
 string key, quoted if it reads as null"
has_line "a key past int64" out "$TMP/json.yaml:5: (top): the key\
 '18446744073709551615' is an int past int64: $RK (\"Unsupported map key\
 of type: uint64, ...\"); allowed: a string key (quote it)"
has_line "a merged .inf kept" out "$TMP/json.yaml:11: i.j: '.inf' is a\
 float JSON cannot hold: $RK (\"json: unsupported value: +Inf\"); $JF"
# in the objects lint checks: that alone, not "must be a quoted string"
grep -v '^#' "$FIX/clean.yaml" | sed \
	-e 's/slotsPerReplica: "32"/slotsPerReplica: .inf/' \
	-e 's/maxReplicas: "20"/maxReplicas: "20"\n        ~: x/' \
	-e 's/^  scaleTargetRef:$/  scaleTargetRef:\n    9223372036854775808: x/' \
	>"$TMP/json-so.yaml"
lint "$TMP/json-so.yaml"
status "what YAMLToJSON refuses, in a ScaledObject" 1
lines "what YAMLToJSON refuses, in a ScaledObject" 3
contains ".inf in metadata" out "json-so.yaml:30: ScaledObject llm/chat:\
 spec.triggers[0].metadata.slotsPerReplica: '.inf' is a float JSON cannot\
 hold"
contains "a null key in metadata" out "json-so.yaml:32: ScaledObject\
 llm/chat: spec.triggers[0].metadata: the key '~' is null"
contains "a key past int64 in spec" out "json-so.yaml:8: ScaledObject\
 llm/chat: spec.scaleTargetRef: the key '9223372036854775808' is an int\
 past int64"
# Keys are one to go-yaml when their Go values are (==): `0x1` and `+1`,
# `yes` and `ON`, `1.0` and `1e0`, `!!float 8` and `08` (a float: no
# octal), -0.0 and 0.0 (checked with /tmp/gy3chk: `{"1":"x"}` and so on).
# Keys of two types or values are two (1 and 2, true and false, 1 and
# 1.0, 08 and 8; a .nan is no other's), so a later one keeps the .inf,
# which the old lint took for replaced; when two come out as one JSON
# string (1 and 1.0: "1") YAMLToJSON keeps one at random, refusing the
# document on some runs, and lint tells it.
{
	printf 'a: {1: .inf, 2: x}\nb: {true: .inf, false: x}\n'
	printf 'c: {1: .inf, 1.0: x}\nd: {08: .inf, 8: x}\n'
	printf 'e: {.nan: .inf, .nan: x}\nf: {true: .inf, <<: {off: x}}\n'
	printf 'g: {0x1: .inf, +1: x}\nh: {yes: .inf, ON: x}\n'
	printf 'i: {1.0: .inf, 1e0: x}\nj: {!!float 8: .inf, 08: x}\n'
	printf 'k: {-0.0: .inf, 0.0: x}\n'
} >"$TMP/json-keys.yaml"
lint "$TMP/json-keys.yaml"
status "keys compared as go-yaml's values" 1
lines "keys compared as go-yaml's values" 6
for k in 1:a.1 2:b.true 3:c.1 4:d.08 5:e..nan 6:f.true; do
	has_line "a key of another value: $k" out "$TMP/json-keys.yaml:${k%%:*}:\
 ${k#*:}: '.inf' is a float JSON cannot hold: $RK (\"json: unsupported\
 value: +Inf\"); $JF"
done

# A plain scalar is what resolve.go reads it as (checked with
# /tmp/gy3chk): `0b-101` an int (-5), `.1_0` a float (0.1), so not the
# string metadata wants; `1e999` (past a double) and `0x1FFFFFFFFFFFFFFFFF`
# (past uint64) strings, which kubectl sends as they are.  The old lint
# had them the other way round.
for v in 0b-101 .1_0 1e999 0x1FFFFFFFFFFFFFFFFF; do
	grep -v '^#' "$FIX/clean.yaml" |
		sed "s/slotsPerReplica: \"32\"/slotsPerReplica: $v/" \
		>"$TMP/resolve.yaml"
	lint "$TMP/resolve.yaml"
	status "a plain $v" 1
	case $v in
	0b-* | .*) want="$v must be a quoted string (\"$v\"): $MSG" ;;
	1e*) want="'$v' is not a whole number; allowed: a whole number from\
 1 to 100000 (default 1)" ;;
	*) want="'$v' is not a decimal number; allowed: a whole number from\
 1 to 100000 (default 1)" ;;
	esac
	has_line "a plain $v" out "$TMP/resolve.yaml:29: ScaledObject llm/chat\
 trigger 0: metadata 'slotsPerReplica': $want"
done

# A tag go-yaml does not read the text under (a local `!foo`, a %TAG
# handle's, `!!set`, `!!merge` over another text) is no tag to it: the
# text is a string (kubectl reads `!foo 32` as "32"), where the old lint
# called it a tagged value, an error in trigger metadata and where the
# CRD wants a string.  `!foo <<` is the key "<<", not a merge.
grep -v '^#' "$FIX/clean.yaml" | sed \
	-e 's/^  name: chat$/  name: !mytag chat/' \
	-e 's/^    name: chat$/    name: !<!ref> chat/' \
	-e 's/slotsPerReplica: "32"/slotsPerReplica: !foo 32/' \
	-e 's/serviceTime: "8"/serviceTime: !!set 8/' \
	-e 's/maxReplicas: "20"/maxReplicas: !!merge 20/' \
	>"$TMP/local-tags.yaml"
lint --strict "$TMP/local-tags.yaml"
status "local tags are strings" 0
quiet "local tags are strings"
printf 'a: !foo\n!foo <<: {b: 1}\nc: !foo ~\n' >"$TMP/local-tags-doc.yaml"
lint "$TMP/local-tags-doc.yaml"
status "a local tag's empty text, and its '<<'" 0
quiet "a local tag's empty text, and its '<<'"
# the tags go-yaml reads stay what they were: an int in metadata
grep -v '^#' "$FIX/clean.yaml" |
	sed 's/slotsPerReplica: "32"/slotsPerReplica: !!int 32/' \
	>"$TMP/std-tag.yaml"
lint "$TMP/std-tag.yaml"
status "a standard tag in metadata" 1
has_line "a standard tag in metadata" out "$TMP/std-tag.yaml:29:\
 ScaledObject llm/chat trigger 0: metadata 'slotsPerReplica': '32' is\
 tagged !!int, not a string: $MSG"

# ---- pools of one model: a prefill and a decode ScaledObject as a pair -----

# docs/pools.md's split pair, as a user would apply it
awk '/^```yaml$/ { n++; on = (n == 1); next } /^```$/ { on = 0 } on' \
	docs/pools.md >"$TMP/pools-doc.yaml"
lint --strict "$TMP/pools-doc.yaml"
status "docs/pools.md's pair" 0
quiet "docs/pools.md's pair"
grep -q "pool: decode" "$TMP/pools-doc.yaml" && ok || bad "docs/pools.md's pair: no decode pool read"

lint --strict "$FIX/pools-prefill.yaml" "$FIX/pools-decode.yaml"
status "a split pair across two files" 0
quiet "a split pair across two files"
lint "$FIX/pools-prefill.yaml"
status "a prefill pool alone" 0
has_line "a prefill pool alone" out "$FIX/pools-prefill.yaml:26: warning:\
 ScaledObject llm/llama-prefill trigger 0: pool prefill without the\
 model's decode pool in the files linted (no trigger with pool decode, the\
 same namespace and arrivalRateQuery): a split fleet scales both, each on\
 its own trigger"
lines "a prefill pool alone" 1
lint --strict "$FIX/pools-decode.yaml"
status "a decode pool alone, --strict" 1
contains "a decode pool alone" out "pool decode without the model's\
 prefill pool in the files linted"

lint "$FIX/pools.yaml"
status "pools" 1
# a pool key with missing token signals: the server's own error
has_line "pools: missing token query" out "$FIX/pools.yaml:107:\
 ScaledObject llm/llama-all trigger 2: metadata 'inputTokenRateQuery' is\
 required with pool prefill: PromQL giving the input (prompt) tokens\
 arriving per second, e.g. sum(rate(vllm:prompt_tokens_total[1m]))"
has_line "pools: one target for both pools" out "$FIX/pools.yaml:59:\
 ScaledObject llm/llama-decode trigger 0: pool decode scales\
 Deployment/llama-prefill, the target of the model's prefill pool\
 (ScaledObject llm/llama-prefill trigger 0 at $FIX/pools.yaml:27): each\
 pool is its own Deployment; point scaleTargetRef at the decode workers"
has_line "pools: unified next to pools" out "$FIX/pools.yaml:91: warning:\
 ScaledObject llm/llama-all trigger 0: pool unified (the default) for a\
 model whose prefill pool ScaledObject llm/llama-prefill trigger 0 at\
 $FIX/pools.yaml:27 sizes (the same namespace and arrivalRateQuery): the\
 model would be sized as one fleet and as pools; set 'pool' on each\
 trigger of a split fleet"
contains "pools: pool next to unified" out "$FIX/pools.yaml:97: warning:\
 ScaledObject llm/llama-all trigger 1: pool decode for a model that\
 ScaledObject llm/llama-all trigger 0 at $FIX/pools.yaml:91 sizes as one\
 fleet"
contains "pools: a pool twice" out "$FIX/pools.yaml:97: warning:\
 ScaledObject llm/llama-all trigger 1: pool decode of a model whose decode\
 pool ScaledObject llm/llama-decode trigger 0 at $FIX/pools.yaml:59 sizes\
 already"
contains "pools: input tokens differ" out "$FIX/pools.yaml:97: warning:\
 ScaledObject llm/llama-all trigger 1: metadata 'inputTokenRateQuery'\
 differs from the model's prefill pool's"
lines "pools" 6

# ---- the user's bytes in a message: shown, never raw ---------------------

# printable NAME: every line on stdout is printable ASCII.
printable() {
	if printf '%s' "$OUT" | LC_ALL=C grep -q '[^ -~]'; then
		bad "$1: a byte outside printable ASCII"
	else
		ok
	fi
}

# A value the warnings quote (fallback.replicas, a scaleUp policy's type)
# and a target the pool pair's error quotes, with bytes past ASCII.
printf 'apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata:\n  name: chat\n  namespace: llm\nspec:\n  scaleTargetRef:\n    name: chat\n  maxReplicaCount: 40\n  fallback:\n    failureThreshold: 3\n    replicas: 8\357\273\277\n  advanced:\n    horizontalPodAutoscalerConfig:\n      behavior:\n        scaleUp:\n          policies:\n            - type: Pods\302\240\n              value: 1\n              periodSeconds: 60\n  triggers:\n    - type: external\n      metadata:\n        scalerAddress: staffer.keda.svc:9090\n        arrivalRateQuery: sum(rate(x[1m]))\n        serviceTime: "20"\n' >"$TMP/bytes.yaml"
lint "$TMP/bytes.yaml"
status "bytes past ASCII in quoted values" 1
printable "bytes past ASCII in quoted values"
contains "fallback.replicas shown" out "fallback.replicas\
 (8\\xef\\xbb\\xbf replicas, where maxReplicaCount allows 40)"
contains "a policy's type shown" out "scaleUp policy {type: Pods\\xc2\\xa0,\
 value: 1, periodSeconds: 60}"
sed 's/name: llama-prefill$/name: llama-pr\xc3\xa9fill/' "$FIX/pools.yaml" \
	>"$TMP/pools-bytes.yaml"
lint "$TMP/pools-bytes.yaml"
status "a pool pair's target past ASCII" 1
printable "a pool pair's target past ASCII"
contains "a pool pair's target shown" out "pool decode scales\
 Deployment/llama-pr\\xc3\\xa9fill, the target"

# ---- a file's name with control bytes ---------------------------------------

# Shown escaped as values are (show.h's show_escaped()): a newline in it
# made a finding two lines, and an ESC went raw to the terminal.  In a
# finding, a pool's finding (a copy of the name), invalid YAML, and an
# unreadable file's message on stderr.
BADNAME=$(printf 'a\nb\033[31m')
SHOWN="$TMP/a"'\nb\x1b'"[31m"
cp "$FIX/pools-prefill.yaml" "$TMP/$BADNAME.yaml"
grep -v '^#' "$FIX/clean.yaml" |
	sed 's/slotsPerReplica: "32"/slotsPerReplica: 32/' \
	>"$TMP/$BADNAME-2.yaml"
lint "$TMP/$BADNAME.yaml" "$TMP/$BADNAME-2.yaml"
status "a file's name with a newline and an ESC" 1
lines "a file's name with a newline and an ESC" 2
has_line "a pool's finding, its file's name escaped" out "$SHOWN.yaml:26:\
 warning: ScaledObject llm/llama-prefill trigger 0: pool prefill without\
 the model's decode pool in the files linted (no trigger with pool decode,\
 the same namespace and arrivalRateQuery): a split fleet scales both, each\
 on its own trigger"
has_line "a finding, its file's name escaped" out "$SHOWN-2.yaml:29:\
 ScaledObject llm/chat trigger 0: metadata 'slotsPerReplica': 32 must be a\
 quoted string (\"32\"): $MSG"
printf 'a: [\n' >"$TMP/$BADNAME-3.yaml"
lint "$TMP/$BADNAME-3.yaml"
status "invalid YAML, its file's name escaped" 2
has_line "invalid YAML, its file's name escaped" out "$SHOWN-3.yaml:2:\
 invalid YAML: did not find expected node content (while parsing a flow\
 node from line 2)"
lint "$TMP/$BADNAME-4.yaml"
status "an unreadable file, its name escaped" 2
has_line "an unreadable file, its name escaped" err "staffer lint:\
 $SHOWN-4.yaml: cannot open: No such file or directory"

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
