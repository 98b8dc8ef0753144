#!/bin/sh
# Integration tests against the built binaries (builds nothing: run
# `make all py build/staffer-asan` first, or `make integration`).
#
#   tests/integration/run.sh
#
# 1. the whole suites (test_serve.py, then test_time.py: decisions over
#    time, ~75 s, then test_explain.py: `staffer explain` against the
#    server's answers, then test_aws.py: SigV4 and the AWS credential
#    chain against a fake STS, container endpoint and AMP, then
#    test_tune.py: `staffer tune` on three days of history in TSDB
#    blocks, ~35 s, then test_cookbook.py: docs/cookbook.md's queries
#    against the engine emulators of engines/ and a real Prometheus,
#    ~85 s, then test_tenant.py: multi-tenant safety, ~100 s, then
#    test_attack.py: the attacks of hardening round 3, ~90 s) against
#    build/staffer, then test_range.py: range answers kept and extended
#    against full fetches (build/tests/rangecheck and derivecheck,
#    sanitized), ~175 s;
# 2. their smoke subsets against build/staffer-asan (ASan+UBSan), if it
#    exists.
#    LeakSanitizer stays on when it works here (detect_leaks=1); where it
#    cannot run (no ptrace in some containers) it is turned off and leaks are
#    left to valgrind.sh.  Set ASAN_OPTIONS yourself to override.
# Prints every test line, then the combined `N passed, N failed`; exits
# non-zero if anything failed.  Each suite starts its own exporter,
# Prometheus and staffer on free loopback ports and stops them on exit.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
py=/usr/bin/python3
bin=${STAFFER_BIN:-$root/build/staffer}
asan=${STAFFER_ASAN_BIN:-$root/build/staffer-asan}

passed=0
failed=0
pid=
tpid=
out=$(mktemp "${TMPDIR:-/tmp}/staffer-it.XXXXXX")
trap 'rm -f "$out"' EXIT
trap 'if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
	if [ -n "$tpid" ]; then kill "$tpid" 2>/dev/null; fi; rm -f "$out"; exit 130' INT TERM

# run_suite CMD...: stream its output, add its `N passed, N failed` line to
# the totals (a run without that line, or a non-zero exit with no failure
# counted, is one failure).
run_suite() {
	: >"$out"
	"$@" >"$out" 2>&1 &
	pid=$!
	# tail in the background too: a trapped signal interrupts `wait` at once
	tail -n +1 -f --pid="$pid" "$out" 2>/dev/null &
	tpid=$!
	wait "$pid"
	rc=$?
	pid=
	wait "$tpid"
	tpid=
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
	if [ -z "$line" ]; then
		echo "# no result line from: $* (exit $rc)"
		failed=$((failed + 1))
		return
	fi
	p=${line%% passed*}
	f=${line#*passed, }
	f=${f%% failed*}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "# $* exited $rc"
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
}

echo "# integration: $bin"
run_suite "$py" -u "$here/test_serve.py" --bin "$bin"
echo "# integration over time: $bin"
run_suite "$py" -u "$here/test_time.py" --bin "$bin"
echo "# explain against a live server: $bin"
run_suite "$py" -u "$here/test_explain.py" --bin "$bin"
echo "# SigV4 and the AWS credential chain: $bin"
run_suite "$py" -u "$here/test_aws.py" --bin "$bin"
echo "# staffer tune against a Prometheus holding three days of history: $bin"
run_suite "$py" -u "$here/test_tune.py" --bin "$bin"
echo "# docs/cookbook.md's queries against engine-shaped metrics: $bin"
run_suite "$py" -u "$here/test_cookbook.py" --bin "$bin"
echo "# multi-tenant safety: $bin"
run_suite "$py" -u "$here/test_tenant.py" --bin "$bin"
echo "# hardening round 3, an attack each: $bin"
run_suite "$py" -u "$here/test_attack.py" --bin "$bin"
echo "# range answers kept and extended vs full fetches (build/tests/rangecheck)"
run_suite "$py" -u "$here/test_range.py"

if [ -x "$asan" ]; then
	if [ -z "${ASAN_OPTIONS:-}" ]; then
		ASAN_OPTIONS=detect_leaks=1
		if ASAN_OPTIONS=detect_leaks=1 "$asan" version 2>&1 |
			grep -q "LeakSanitizer has encountered a fatal error"; then
			echo "# LeakSanitizer cannot run here: ASAN_OPTIONS=detect_leaks=0 (valgrind.sh checks leaks)"
			ASAN_OPTIONS=detect_leaks=0
		fi
		ASAN_OPTIONS="$ASAN_OPTIONS:abort_on_error=0:print_summary=1"
	fi
	export ASAN_OPTIONS
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
	export UBSAN_OPTIONS
	echo "# integration smoke: $asan (ASAN_OPTIONS=$ASAN_OPTIONS)"
	run_suite "$py" -u "$here/test_serve.py" --bin "$asan" --smoke --label "asan: "
	run_suite "$py" -u "$here/test_time.py" --bin "$asan" --smoke --label "asan: "
	run_suite "$py" -u "$here/test_explain.py" --bin "$asan" --smoke --label "asan: "
	run_suite "$py" -u "$here/test_aws.py" --bin "$asan" --smoke --label "asan: "
	run_suite "$py" -u "$here/test_tenant.py" --bin "$asan" --smoke --label "asan: "
	run_suite "$py" -u "$here/test_attack.py" --bin "$asan" --smoke --label "asan: "
	run_suite "$py" -u "$here/test_tune.py" --bin "$asan" --smoke --label "asan: "
else
	echo "# $asan not built: sanitizer smoke run skipped"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
