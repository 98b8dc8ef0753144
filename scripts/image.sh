#!/bin/sh
# scripts/image.sh BINARY WORKDIR DISTDIR - staffer's container image,
# built without a container engine (`make image`, `make release`).
#
# The root filesystem is scripts/rootfs.sh's, the one the Dockerfile's
# runtime stage copies onto scratch: the binary (stripped, as the
# Dockerfile strips it), exactly the shared libraries it loads, CA
# certificates, the time zone database and passwd/group for uid 65532.
# umoci (Debian's package) makes it one layer of an OCI image and sets the
# image config as the Dockerfile's runtime stage does: user 65532:65532,
# entrypoint `staffer serve`, the same command, ports, stop signal and OCI
# labels (tests/packaging checks that the two agree).  skopeo writes the
# same image as a docker-archive for `docker load`.
#
# The version and revision are the binary's own (`staffer version`), so
# the labels cannot disagree with it.  Files, layer and config carry one
# time, SOURCE_DATE_EPOCH (default: the commit's time), so the same binary
# gives the same image digest.  Writes, for VERSION with "+" as "_" (OCI
# tags allow no "+"), to DISTDIR:
#   staffer-VERSION.oci.tar     the OCI image layout as a tar (oci-archive),
#                               image tag VERSION
#   staffer-VERSION.docker.tar  a docker-archive tagged IMAGE_NAME:VERSION
#                               (IMAGE_NAME default "staffer", the chart's
#                               default image.repository)
#   staffer-VERSION.spdx.json   the SBOM: the Debian packages (and
#                               versions) whose files are in the image
# and keeps WORKDIR/rootfs and WORKDIR/oci (the layout) for inspection.
# IMAGE_SOURCE, when set, becomes the org.opencontainers.image.source label.
# Needs root (the layer records root-owned files), umoci, skopeo, and what
# rootfs.sh needs; scripts/deps.sh installs them.
set -eu

if [ $# -ne 3 ]; then
	echo "usage: scripts/image.sh BINARY WORKDIR DISTDIR" >&2
	exit 2
fi
bin=$1
work=$2
dist=$3
name=${IMAGE_NAME:-staffer}
here=$(cd "$(dirname "$0")" && pwd)

for tool in umoci skopeo strip; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "image.sh: $tool is not installed (scripts/deps.sh installs it)" >&2
		exit 1
	}
done
if [ "$(id -u)" -ne 0 ]; then
	echo "image.sh: needs root, so that the layer's files belong to root (uid 0)" >&2
	exit 1
fi

# "staffer 0.1.0-dev+g001a57e (revision 001a57e5b6ba)"
line=$("$bin" version)
version=$(echo "$line" | awk '$1 == "staffer" { print $2 }')
revision=$(echo "$line" | sed -n 's/.*(revision \([^)]*\)).*/\1/p')
if [ -z "$version" ] || [ -z "$revision" ]; then
	echo "image.sh: cannot read the version from '$bin version': $line" >&2
	exit 1
fi
tag=$(echo "$version" | tr + _)

epoch=${SOURCE_DATE_EPOCH:-}
if [ -z "$epoch" ]; then
	epoch=$(git -C "$here/.." log -1 --format=%ct 2>/dev/null || date +%s)
fi
created=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)

case "$(dpkg --print-architecture)" in
amd64) arch=amd64 variant= ;;
arm64) arch=arm64 variant=v8 ;;
armhf) arch=arm variant=v7 ;;
i386) arch=386 variant= ;;
ppc64el) arch=ppc64le variant= ;;
s390x) arch=s390x variant= ;;
riscv64) arch=riscv64 variant= ;;
*)
	echo "image.sh: no OCI name for Debian architecture $(dpkg --print-architecture)" >&2
	exit 1
	;;
esac

rm -rf "$work"
mkdir -p "$work" "$dist"
cp "$bin" "$work/staffer"
strip --strip-unneeded "$work/staffer"
"$here/rootfs.sh" "$work/staffer" "$work/rootfs"
rm -f "$work/staffer"

# umoci: an empty image, unpacked to a bundle, the rootfs copied in and
# repacked as one layer.  (`umoci insert` of 0.4.7 leaves the layer's tar
# without its end-of-archive blocks; repack closes it.)
layout=$work/oci
umoci init --layout "$layout"
umoci new --image "$layout:$tag"
umoci unpack --image "$layout:$tag" "$work/bundle" >/dev/null
cp -a "$work/rootfs/." "$work/bundle/rootfs/"
find "$work/bundle/rootfs" -exec touch -h -d "@$epoch" {} +
umoci repack --image "$layout:$tag" --history.created "$created" \
	--history.created_by "scripts/rootfs.sh (binary, its shared libraries, CA certificates, tzdata, passwd)" \
	"$work/bundle"
rm -rf "$work/bundle"

set -- \
	--config.label "org.opencontainers.image.title=staffer" \
	--config.label "org.opencontainers.image.description=KEDA external scaler for GPU inference fleets (queueing-theory replica targets)" \
	--config.label "org.opencontainers.image.version=$version" \
	--config.label "org.opencontainers.image.revision=$revision" \
	--config.label "org.opencontainers.image.created=$created" \
	--config.label "org.opencontainers.image.licenses=Apache-2.0"
if [ -n "${IMAGE_SOURCE:-}" ]; then
	set -- "$@" --config.label "org.opencontainers.image.source=$IMAGE_SOURCE"
fi
[ -z "$variant" ] || set -- "$@" --platform.variant "$variant"
umoci config --image "$layout:$tag" --no-history \
	--created "$created" --os linux --architecture "$arch" \
	--config.user 65532:65532 \
	--config.entrypoint /usr/local/bin/staffer --config.entrypoint serve \
	--config.cmd=--config --config.cmd /etc/staffer/config.json \
	--config.exposedports 9090/tcp --config.exposedports 9091/tcp \
	--config.stopsignal SIGTERM \
	"$@"
umoci gc --layout "$layout"

# The layout as an oci-archive (a tar of the layout directory, in name
# order with one owner and time, so it is as reproducible as the layout).
oci_tar=$dist/staffer-$version.oci.tar
docker_tar=$dist/staffer-$version.docker.tar
rm -f "$oci_tar" "$docker_tar"
chmod -R a+rX "$layout"
tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
	-C "$layout" -cf "$oci_tar" .
skopeo --insecure-policy copy --quiet "oci:$layout:$tag" \
	"docker-archive:$docker_tar:$name:$tag"

/usr/bin/python3 "$here/sbom.py" --rootfs "$work/rootfs" --version "$version" \
	--revision "$revision" --created "$created" --layout "$layout" \
	--out "$dist/staffer-$version.spdx.json"

size=$(du -sb "$work/rootfs" | cut -f1)
echo "image: $name:$tag ($arch), root filesystem $size bytes, $(stat -c %s "$oci_tar") bytes as oci-archive"
