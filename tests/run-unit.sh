#!/bin/sh
# Run cmocka unit-test binaries and sum their results.
#
#   tests/run-unit.sh build/tests/test_a build/tests/test_b ...
#
# Each binary's output is shown as it is.  Counts come from cmocka's
# "[  PASSED  ] N test(s)." and "[  FAILED  ] N test(s)" lines; a binary that
# exits non-zero without reporting a failure (a crash, a sanitizer report, a
# timeout) counts as one more failed test.  Prints `N passed, N failed` last
# and exits non-zero if anything failed.
set -u
timeout_s=${UNIT_TIMEOUT:-120}
passed=0
failed=0
out=$(mktemp "${TMPDIR:-/tmp}/staffer-unit.XXXXXX")
pid=
trap 'rm -f "$out"' EXIT
trap 'if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; fi; rm -f "$out"; exit 130' INT TERM

[ $# -gt 0 ] || echo "# run-unit: no unit-test binaries given"
for bin in "$@"; do
	echo "# $bin"
	if [ ! -x "$bin" ]; then
		echo "# $bin: not an executable"
		failed=$((failed + 1))
		continue
	fi
	CMOCKA_MESSAGE_OUTPUT=stdout timeout -k 5 "$timeout_s" "$bin" >"$out" 2>&1 &
	pid=$!
	wait "$pid"
	rc=$?
	pid=
	cat "$out"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9][0-9]*\) test(s)\..*/\1/p' "$out" |
		awk '{s += $1} END {print s + 0}')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test(s).*/\1/p' "$out" |
		awk '{s += $1} END {print s + 0}')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
			echo "# $bin: timed out after ${timeout_s}s"
		else
			echo "# $bin: exited with status $rc without a cmocka failure count"
		fi
		f=1
	elif [ "$rc" -eq 0 ] && [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		echo "# $bin: no cmocka summary (no tests run?)"
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
