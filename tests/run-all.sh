#!/bin/sh
# Every test: unit (cmocka, build/tests/test_*), the model as a library (tests/example/), calc, the docs' calc examples, lint, explain,
# tune and simulate --split (tests/cli/), packaging (tests/packaging/run.sh), integration (tests/integration/run.sh),
# the load client (tests/bench/test_load.py), valgrind
# (tests/integration/valgrind.sh, one test).  Builds nothing: `make test` builds first and then calls this.
# Prints one combined `N passed, N failed` last; exits non-zero on failure.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

passed=0
failed=0
pid=
tpid=
out=$(mktemp "${TMPDIR:-/tmp}/staffer-all.XXXXXX")
trap 'rm -f "$out"' EXIT
trap 'if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
	if [ -n "$tpid" ]; then kill "$tpid" 2>/dev/null; fi; rm -f "$out"; exit 130' INT TERM

# add_counts: read the last `N passed, N failed` line of $out into the totals.
add_counts() {
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
	if [ -z "$line" ]; then
		echo "# $1: no result line (exit $2)"
		failed=$((failed + 1))
		return
	fi
	p=${line%% passed*}
	f=${line#*passed, }
	f=${f%% failed*}
	if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
}

run() {
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
}

start=$(date +%s)

# ---- unit: every tests/unit/test_*.c must have its binary, plus any other
# build/tests/test_* binary.
set --
for src in tests/unit/test_*.c; do
	[ -e "$src" ] || continue
	b=build/tests/$(basename "$src" .c)
	set -- "$@" "$b"
done
for b in build/tests/test_*; do
	[ -f "$b" ] && [ -x "$b" ] || continue
	case " $* " in *" $b "*) ;; *) set -- "$@" "$b" ;; esac
done
echo "=== unit ($# binaries)"
run tests/run-unit.sh "$@"
add_counts unit "$rc"

# ---- the model as a library: an example that sees only include/
echo "=== library"
run tests/example/run.sh
add_counts library "$rc"

# ---- calc through the real binary (seed examples, bad input)
echo "=== calc"
run tests/cli/calc.sh
add_counts calc "$rc"

# ---- the calc examples of the docs are the binary's output
echo "=== examples"
run /usr/bin/python3 tests/cli/examples.py
add_counts examples "$rc"

# ---- lint through the real binary (examples clean, one fixture per error)
echo "=== lint"
run tests/cli/lint.sh
add_counts lint "$rc"

# ---- explain through the real binary, no backend (usage, bad metadata, --file)
echo "=== explain"
run tests/cli/explain.sh
add_counts explain "$rc"

# ---- tune through the real binary: usage, --trace offline, no backend
echo "=== tune"
run tests/cli/tune.sh
add_counts tune "$rc"

# ---- simulate --split through the real binary: usage, runs, determinism
echo "=== split"
run tests/cli/split.sh
add_counts split "$rc"

# ---- packaging: chart rendering, manifests, ScaledObjects against the CRD
echo "=== packaging"
run tests/packaging/run.sh
add_counts packaging "$rc"

# ---- integration
echo "=== integration"
run tests/integration/run.sh
add_counts integration "$rc"

# ---- the service benchmark's instrument: a smoke run of the load client
# (ASan build) and bench/service.py's report against a real staffer
echo "=== load client"
run /usr/bin/python3 -u tests/bench/test_load.py
add_counts "load client" "$rc"

# ---- valgrind: one test
echo "=== valgrind"
run tests/integration/valgrind.sh
if [ "$rc" -eq 0 ]; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
fi

echo "# total time $(( $(date +%s) - start ))s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
