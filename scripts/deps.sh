#!/bin/sh
# Install what staffer needs to build, test and demo, from Debian's archive.
# Idempotent: installs only what is missing; runs apt-get update once, before
# the first install.  Needs root (or sudo) only when something is missing.
set -eu

PKGS="build-essential pkg-config make
libgrpc-dev protobuf-c-compiler libprotobuf-c-dev protobuf-compiler libssl-dev
libcurl4-openssl-dev libcjson-dev libcmocka-dev libyaml-dev libmicrohttpd-dev tzdata
prometheus python3-grpcio python3-protobuf python3-botocore
gnuplot-nox valgrind curl openssl time
ca-certificates python3-yaml umoci skopeo"

missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "deps: installing$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
