#!/bin/sh
# scripts/rootfs.sh BINARY DEST - the whole runtime filesystem of the
# image: the binary, exactly the shared libraries it loads (ldd's closure,
# at their paths, and the dynamic loader), CA certificates for https
# backends, the time zone database for schedule windows (`timezone`), and
# passwd/group entries for uid 65532.  No shell, no package manager, no
# other file of the packages the libraries come from.
#
# The Dockerfile's build stage runs it into /rootfs and the runtime stage
# is that directory on `scratch`; tests/packaging runs it into build/ and
# starts the result under chroot, so the image's file list is tested
# without a Docker engine.  Needs ldd (libc-bin), ca-certificates and
# tzdata installed where it runs.  scripts/image.sh makes the OCI image of
# this directory without a container engine; the image build and the
# Dockerfile therefore have the same file list.
set -eu

bin=$1
dest=$2

rm -rf "$dest"
mkdir -p "$dest/usr/local/bin" "$dest/etc/ssl/certs" "$dest/usr/share" \
	"$dest/tmp"
chmod 1777 "$dest/tmp"
cp "$bin" "$dest/usr/local/bin/staffer"

# "libx.so.1 => /lib/.../libx.so.1 (0x...)" and "/lib64/ld-linux... (0x...)"
ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
while read -r lib; do
	mkdir -p "$dest$(dirname "$lib")"
	cp -L "$lib" "$dest$lib"
done
if ldd "$bin" | grep -q "not found"; then
	echo "rootfs.sh: $bin needs a library that is not installed:" >&2
	ldd "$bin" | grep "not found" >&2
	exit 1
fi

cp -L /etc/ssl/certs/ca-certificates.crt "$dest/etc/ssl/certs/"
cp -R /usr/share/zoneinfo "$dest/usr/share/zoneinfo"
# right/ holds the leap-second zones, which staffer refuses (tz.c), and
# localtime points at the build machine's /etc/localtime: neither is used.
rm -rf "$dest/usr/share/zoneinfo/right" "$dest/usr/share/zoneinfo/localtime"

printf 'root:x:0:0:root:/root:/nonexistent\nnonroot:x:65532:65532:nonroot:/nonexistent:/nonexistent\n' \
	>"$dest/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$dest/etc/group"
# glibc resolves names with its built-in files and dns modules
printf 'hosts: files dns\n' >"$dest/etc/nsswitch.conf"
