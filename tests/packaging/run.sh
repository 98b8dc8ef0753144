#!/bin/sh
# tests/packaging/run.sh - check the Dockerfile, the Helm chart and the
# example ScaledObjects without docker, helm or a cluster.
#
#   tests/packaging/run.sh            (from anywhere; exits non-zero on failure)
#
# What it checks is listed at the top of check.py.  It needs Debian's
# golang-go (the chart is rendered by render.go, with Go's text/template,
# Helm's own engine), python3-yaml and python3-jsonschema, and installs
# whichever is missing (apt-get update once, before the first install).
# Nothing is fetched from the Go module proxy: render.go uses only the
# standard library and is built with GO111MODULE=off and GOPROXY=off.
set -eu

cd "$(dirname "$0")/../.."

PKGS="golang-go python3 python3-yaml python3-jsonschema"
missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "packaging: installing$missing"
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO="sudo"
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -q
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -q --no-install-recommends $missing
fi

OUT=build/packaging
mkdir -p "$OUT"

# Go: the standard library only, no modules, no network, caches in build/.
GO111MODULE=off
GOPATH="$PWD/$OUT/gopath"
GOCACHE="$PWD/$OUT/gocache"
GOPROXY=off
GOFLAGS=
GOTOOLCHAIN=local
GOTELEMETRY=off
export GO111MODULE GOPATH GOCACHE GOPROXY GOFLAGS GOTOOLCHAIN GOTELEMETRY

exec /usr/bin/python3 tests/packaging/check.py --out "$OUT" "$@"
