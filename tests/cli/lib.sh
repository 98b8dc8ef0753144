# tests/cli/lib.sh - what the tests/cli/*.sh scripts share; sourced, not run.
#
# Before sourcing, set NAME (the script's name, for messages).  It sets
# ROOT and BIN (STAFFER=path overrides build/staffer; exits 2 if missing),
# cd's to ROOT so that messages read FILE:LINE as a user sees them, makes
# TMP (removed at exit), and keeps the counts.  Each check adds one pass or
# one failure; a failure prints the last command's stdout and stderr.

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${STAFFER:-$ROOT/build/staffer}
if [ ! -x "$BIN" ]; then
	echo "$NAME: $BIN not found; run make first" >&2
	exit 2
fi
cd "$ROOT" || exit 2

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM
pass=0
fail=0
OUT=
ERR=
RC=0
WHAT=

# run SUBCOMMAND ARGS...: run `staffer SUBCOMMAND ARGS` with stdin from
# /dev/null; keep stdout (OUT), stderr (ERR) and the status (RC).
run() {
	WHAT="$*"
	OUT=$("$BIN" "$@" 2>"$TMP/err" </dev/null)
	RC=$?
	ERR=$(cat "$TMP/err")
}

# run_stdin FILE SUBCOMMAND ARGS...: the same with FILE on standard input.
run_stdin() {
	f=$1
	shift
	WHAT="$* < $f"
	OUT=$("$BIN" "$@" <"$f" 2>"$TMP/err")
	RC=$?
	ERR=$(cat "$TMP/err")
}

ok() {
	pass=$((pass + 1))
}

bad() {
	fail=$((fail + 1))
	printf 'FAIL: %s\n  %s\n  stdout: %s\n  stderr: %s\n' "$1" "$WHAT" \
		"$OUT" "$ERR" >&2
}

# status NAME CODE: the command exited with CODE.
status() {
	if [ "$RC" -eq "$2" ]; then ok; else bad "$1: exit $RC, want $2"; fi
}

# contains NAME STREAM TEXT: stdout (out) or stderr (err) contains TEXT.
contains() {
	if [ "$2" = out ]; then s=$OUT; else s=$ERR; fi
	case $s in
	*"$3"*) ok ;;
	*) bad "$1: std$2 lacks '$3'" ;;
	esac
}

# lacks NAME STREAM TEXT: stdout (out) or stderr (err) does not contain
# TEXT.
lacks() {
	if [ "$2" = out ]; then s=$OUT; else s=$ERR; fi
	case $s in
	*"$3"*) bad "$1: std$2 has '$3'" ;;
	*) ok ;;
	esac
}

# has_line NAME STREAM TEXT: stdout or stderr has a line that is exactly
# TEXT.
has_line() {
	if [ "$2" = out ]; then s=$OUT; else s=$ERR; fi
	if printf '%s\n' "$s" | grep -qxF -- "$3"; then
		ok
	else
		bad "$1: no line '$3' on std$2"
	fi
}

# nothing_out NAME: nothing on stdout (errors are not answers).
nothing_out() {
	if [ -z "$OUT" ]; then ok; else bad "$1: output on stdout"; fi
}

# finish: the counts, and the exit status.
finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
