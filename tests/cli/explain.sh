#!/bin/sh
# tests/cli/explain.sh - `staffer explain` through the real binary, without
# a metrics backend: usage, bad metadata (the server's messages, exit 2),
# a namespace its backend's allowlist leaves out (PERMISSION_DENIED, exit
# 2), --file selection and its errors, and a backend that refuses
# connections (exit 1, the query named).  The numbers against a live Prometheus and a
# live server are in tests/integration/test_explain.py.
#
# usage: tests/cli/explain.sh        (STAFFER=path overrides build/staffer)
# Prints "N passed, N failed"; exits 1 when anything failed.
set -u

NAME=explain.sh
FIX=tests/cli/lint
. "$(dirname "$0")/lib.sh"

# Loopback port 1: nobody listens, connections are refused at once.
DEAD=http://127.0.0.1:1

# explain ARGS...: run `staffer explain ARGS`.
explain() {
	run explain "$@"
}

# refuse NAME TEXT ARGS...: exit 2, TEXT on stderr, nothing on stdout.
refuse() {
	n=$1
	t=$2
	shift 2
	explain "$@"
	status "$n" 2
	contains "$n" err "$t"
	nothing_out "$n"
}

Q='arrivalRateQuery=sum(rate(x[1m]))'

# ---- usage ---------------------------------------------------------------

explain --help
status "help" 0
contains "help" out "--file FILE"
refuse "no arguments" "no metadata" --prometheus "$DEAD"
refuse "not key=value" "'beta' is not key=value" --prometheus "$DEAD" beta
refuse "unknown option" "unknown option '--nope'" --nope 1 "$Q"
refuse "option without value" "--config needs a value" "$Q" --config
refuse "bad timeout" "--timeout '0'" --prometheus "$DEAD" --timeout 0 "$Q"
refuse "bad trigger" "--trigger '-1'" --file x.yaml --trigger -1 "$Q"
refuse "name without file" "there is no --file" --name a/b "$Q"
refuse "no backend" "no backend: give --config FILE or --prometheus URL" \
	"$Q" serviceTime=1
refuse "both backends" "not both" --config "$FIX/config.json" \
	--prometheus "$DEAD" "$Q"
refuse "bad log level" "log level 'loud'" --log-level loud \
	--prometheus "$DEAD" "$Q"

# ---- bad metadata: the server's message, the same as calc's --------------

explain --prometheus "$DEAD" "$Q" serviceTime=10 beta=abc
status "bad beta" 2
"$BIN" calc beta=abc 2>"$TMP/calc" >/dev/null
want=$(sed 's/^staffer calc: //' "$TMP/calc")
if [ "$ERR" = "staffer explain: $want" ]; then ok
else bad "bad beta: not calc's message '$want'"; fi
nothing_out "bad beta"
refuse "unknown key" "metadata 'betta' is not a known key; did you mean\
 'beta'?" --prometheus "$DEAD" "$Q" betta=2
refuse "missing arrivalRateQuery" "metadata 'arrivalRateQuery' is required" \
	--prometheus "$DEAD" serviceTime=10
refuse "undeclared backend" "metadata 'backend': 'nosuch' is not declared\
 in staffer's config; declared: 'prom', 'mimir'" \
	--config "$FIX/config.json" "$Q" serviceTime=1 backend=nosuch

# ---- a namespace its backend is not open to: what serve answers ----------

# The backend's allowlist leaves out clean.yaml's namespace (llm): the
# server's PERMISSION_DENIED message, naming both, before any query.
printf '{"backends":[{"name":"prom","url":"%s","namespaces":["team-*"]}]}\n' \
	"$DEAD" >"$TMP/allow.json"
refuse "namespace denied" "staffer explain: the server answers\
 PERMISSION_DENIED: namespace 'llm' may not use backend 'prom'" \
	--config "$TMP/allow.json" --file "$FIX/clean.yaml"
refuse "namespace denied, --json" "PERMISSION_DENIED: namespace 'llm'" \
	--json --config "$TMP/allow.json" --file "$FIX/clean.yaml"
# Open to it: checked, and only the backend fails (exit 1).
sed 's/"team-\*"/"team-*","l*"/' "$TMP/allow.json" >"$TMP/allow-llm.json"
explain --config "$TMP/allow-llm.json" --file "$FIX/clean.yaml"
status "namespace allowed" 1
contains "namespace allowed" err "staffer explain: arrivalRateQuery: "
# No namespace (key=value only): it cannot be checked, and explain says so.
explain --config "$TMP/allow.json" "$Q" serviceTime=1
status "namespace unknown" 1
contains "namespace unknown" err "backend 'prom' is open to the namespaces\
 of its 'namespaces' list only, and no namespace was given"

# ---- --file --------------------------------------------------------------

refuse "missing file" "$TMP/none.yaml: cannot open" \
	--prometheus "$DEAD" --file "$TMP/none.yaml"
printf 'kind: Deployment\napiVersion: apps/v1\n' >"$TMP/deploy.yaml"
refuse "no ScaledObject" "no ScaledObject (keda.sh/v1alpha1) with a trigger" \
	--prometheus "$DEAD" --file "$TMP/deploy.yaml"
refuse "invalid YAML" "$FIX/invalid.yaml:" \
	--prometheus "$DEAD" --file "$FIX/invalid.yaml"
refuse "unquoted number" "$FIX/unquoted.yaml:" \
	--prometheus "$DEAD" --file "$FIX/unquoted.yaml"
contains "unquoted number" err "map[string]string"
refuse "server's message from a file" "metadata 'betta' is not a known key" \
	--prometheus "$DEAD" --file "$FIX/unknown-key.yaml"
cat "$FIX/clean.yaml" >"$TMP/two.yaml"
printf -- '---\n' >>"$TMP/two.yaml"
sed 's/namespace: llm/namespace: batch/' "$FIX/clean.yaml" >>"$TMP/two.yaml"
refuse "ambiguous" "2 staffer triggers match; pick one with --name" \
	--prometheus "$DEAD" --file "$TMP/two.yaml"
contains "ambiguous" err "  llm/chat trigger 0"
contains "ambiguous" err "  batch/chat trigger 0"
refuse "ambiguous name" "2 staffer triggers match" \
	--prometheus "$DEAD" --file "$TMP/two.yaml" --name chat
refuse "no such name" "no staffer trigger matches --name llm/nope" \
	--prometheus "$DEAD" --file "$TMP/two.yaml" --name llm/nope
# A key=value over the file's: the file's query is fine, beta is not.
refuse "override" "metadata 'beta': 'x' is not a number" \
	--prometheus "$DEAD" --file "$TMP/two.yaml" --name batch/chat beta=x

# `<<` applies in every map, as kubectl reads it: a trigger whose type and
# metadata are merged in is staffer's, and an object merged in is one more.
refuse "a trigger merged in" "metadata 'slotsPerReplica': '3x' is not a\
 number" --prometheus "$DEAD" --file "$FIX/merge-trigger.yaml"
refuse "an object merged in" "2 staffer triggers match" \
	--prometheus "$DEAD" --file "$FIX/merge-object.yaml"
contains "an object merged in" err "  llm/chat-canary trigger 0"

# Metadata of 200,000 keys is gathered in linear time, each key looked up
# in a hash of those before it (ydoc_md_find(); a scan of them took 16 s
# for 100,000 keys, 0.07 s now), and refused for its size.
awk '{ print } /^        maxReplicas: "20"$/ {
	for (i = 0; i < 200000; i++) print "        k" i ": \"1\"" }' \
	"$FIX/clean.yaml" >"$TMP/keys.yaml"
OUT=$(timeout 10 "$BIN" explain --prometheus "$DEAD" --file "$TMP/keys.yaml" \
	2>"$TMP/err" </dev/null)
RC=$?
ERR=$(cat "$TMP/err")
WHAT="explain --file keys.yaml (at most 10 s)"
status "metadata of 200,000 keys" 2
contains "metadata of 200,000 keys" err "scalerMetadata has 200005 keys;\
 at most 128 are allowed"

# A pool: its token queries are run with the others (here they fail).
explain --prometheus "$DEAD" --file "$FIX/pools-decode.yaml"
status "pool decode, no backend" 1
contains "pool decode, no backend" out "query      outputTokenRateQuery: error:"
contains "pool decode, no backend" out "trigger    llm/llama-decode trigger 0"
explain --prometheus "$DEAD" --file "$FIX/pools-prefill.yaml"
contains "pool prefill, no backend" out "query      inputTokenRateQuery: error:"
refuse "pool without its token query" "metadata 'outputTokenRateQuery' is\
 required with pool decode" --prometheus "$DEAD" "$Q" pool=decode \
	slotsPerReplica=8 serviceTime=9

# <key>FromEnv: read from this environment as KEDA reads the container's.
sed 's/"MEAN SERVICE"/MEAN_SERVICE/' "$FIX/from-env.yaml" >"$TMP/env.yaml"
unset MEAN_SERVICE STAFFER_BETA MAX_NUM_SEQS
refuse "FromEnv unset" "metadata 'betaFromEnv' reads environment variable\
 'STAFFER_BETA', which is not set here (KEDA reads it from the scale\
 target's container); set it, or give beta=VALUE" \
	--prometheus "$DEAD" --file "$TMP/env.yaml"
# Set: its value is checked as the key's own (the server's message).
OUT=$(STAFFER_BETA=abc MAX_NUM_SEQS=8 MEAN_SERVICE=4 "$BIN" explain \
	--prometheus "$DEAD" --file "$TMP/env.yaml" 2>"$TMP/err" </dev/null)
RC=$?
ERR=$(cat "$TMP/err")
WHAT="STAFFER_BETA=abc explain --file env.yaml"
status "FromEnv value" 2
contains "FromEnv value" err "staffer explain: metadata 'betaFromEnv': 'abc' is\
 not a number; allowed: a number from 0 to 10 (default 1.5)"
# Good values, or arguments in place of the variables: only the backend
# fails (exit 1).
OUT=$(STAFFER_BETA=2 MAX_NUM_SEQS=8 MEAN_SERVICE=4 "$BIN" explain \
	--prometheus "$DEAD" --file "$TMP/env.yaml" 2>"$TMP/err" </dev/null)
RC=$?
WHAT="explain --file env.yaml with the variables set"
status "FromEnv resolved" 1
ERR=$(cat "$TMP/err")
if grep -q '^staffer explain: arrivalRateQuery: ' "$TMP/err"; then ok
else bad "FromEnv resolved: the backend's error is not the query's"; fi
explain --prometheus "$DEAD" --file "$TMP/env.yaml" beta=2 \
	slotsPerReplica=8 serviceTimeFromEnv=4
status "FromEnv by arguments" 1
case $ERR in
"staffer explain: arrivalRateQuery: "*) ok ;;
*) bad "FromEnv by arguments: the backend's error is not the query's" ;;
esac

# ---- a backend that refuses connections: exit 1, the query named ---------

explain --prometheus "$DEAD" --file "$TMP/two.yaml" --name llm/chat
status "refused" 1
contains "refused" err "staffer explain: arrivalRateQuery: "
contains "refused" err "(backend 'default')"
contains "refused" out "trigger    llm/chat trigger 0"
contains "refused" out "query      arrivalRateQuery: error: "
# From stdin (explain() reads /dev/null: by hand).
OUT=$("$BIN" explain --json --prometheus "$DEAD" --file - --name llm/chat \
	<"$TMP/two.yaml" 2>"$TMP/err")
RC=$?
ERR=$(cat "$TMP/err")
WHAT="explain --json --file - < two.yaml"
status "refused json" 1
contains "refused json" out '"status":"unavailable"'
contains "refused json" out '"scaledobject":"llm/chat trigger 0"'
# Every example parses: each one fails only on the backend (exit 1).
printf '{"backends":[{"name":"prom","url":"%s"},{"name":"amp","url":"%s"},'\
'{"name":"mimir","url":"%s"}],"defaultBackend":"prom"}\n' \
	"$DEAD" "$DEAD" "$DEAD" >"$TMP/dead.json"
for f in scaledobjects/*.yaml; do
	explain --config "$TMP/dead.json" --file "$f"
	status "example $f" 1
	contains "example $f" err "Query: "
done

finish
