#!/bin/sh
# Run `staffer serve` under valgrind (memcheck, --leak-check=full), drive a
# few hundred RPCs of every kind through it (tests/integration/
# valgrind_load.py), SIGTERM it, and fail on any valgrind error or on
# definitely-lost bytes.  Prints one summary line.
#
#   tests/integration/valgrind.sh [BINARY]     default build/staffer
#
# Needs: valgrind, Debian's /usr/bin/python3 with python3-grpcio, prometheus,
# and `make all py`.  Starts its own exporter and Prometheus on free ports and
# stops everything it started, also on failure or interruption.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-${STAFFER_BIN:-$root/build/staffer}}

if ! command -v valgrind >/dev/null 2>&1; then
	echo "valgrind: not installed: FAIL"
	exit 1
fi

pid=
trap 'if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi; exit 130' INT TERM
/usr/bin/python3 "$here/valgrind_load.py" --bin "$bin" &
pid=$!
set +e
wait "$pid"
rc=$?
set -e
pid=
exit $rc
