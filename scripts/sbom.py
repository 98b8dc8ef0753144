#!/usr/bin/python3
"""scripts/sbom.py - the SBOM of staffer's image, as SPDX 2.3 JSON.

    sbom.py --rootfs DIR --version V --revision R --created T \
            --layout OCI_LAYOUT --out FILE

scripts/image.sh runs it on the root filesystem it put in the image.
Every file of that filesystem is traced to what put it there: the Debian
package that installed the same path on this machine (dpkg's file lists,
/var/lib/dpkg/info/*.list, with Debian 12's merged /usr: /lib/x/y is
/usr/lib/x/y), or one of the files made on the way (the staffer binary,
passwd, group, nsswitch.conf, and ca-certificates.crt, which
update-ca-certificates writes from the ca-certificates package).  A file
that neither explains is an error: the SBOM lists everything or nothing.

The document names the image (its manifest digest), staffer itself
(Apache-2.0, its revision), and each Debian package with its version,
architecture, source package and a purl (pkg:deb/debian/NAME@VERSION?
arch=ARCH&distro=debian-N); the image CONTAINS each of them.  The
packages' licences are left as NOASSERTION: Debian states them per file in
/usr/share/doc/*/copyright, which this does not interpret.

Standard library only: it runs where the image is built (python3 of
Debian), with no package from outside.
"""

import argparse
import glob
import json
import os
import subprocess
import sys
import urllib.parse
import uuid

# Debian 12 merged these into /usr; dpkg's lists name either spelling.
MERGED = ("/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/")

# Files of the image that no package file installs, and what they come from
# (None: written by scripts/rootfs.sh itself).
MADE = {
    "/usr/local/bin/staffer": "staffer",
    "/etc/ssl/certs/ca-certificates.crt": "ca-certificates",
    "/etc/passwd": None,
    "/etc/group": None,
    "/etc/nsswitch.conf": None,
}


def canon(path):
    for m in MERGED:
        if path.startswith(m):
            return "/usr" + path
    return path


def dpkg_owners():
    """{canonical path: {package[:arch], ...}} from dpkg's file lists."""
    own = {}
    for lst in glob.glob("/var/lib/dpkg/info/*.list"):
        pkg = os.path.basename(lst)[:-len(".list")]
        with open(lst, errors="surrogateescape") as f:
            for line in f:
                own.setdefault(canon(line.rstrip("\n")), set()).add(pkg)
    return own


def image_files(rootfs):
    """Paths ("/usr/...") of the non-directories under rootfs."""
    out = []
    for d, dirs, files in os.walk(rootfs):
        dirs.sort()
        for f in sorted(files):
            out.append("/" + os.path.relpath(os.path.join(d, f), rootfs))
        for sub in dirs:  # symlinks to directories are files of the layer
            p = os.path.join(d, sub)
            if os.path.islink(p):
                out.append("/" + os.path.relpath(p, rootfs))
    return sorted(out)


def package_info(pkgs):
    fmt = "${binary:Package}\t${Package}\t${Version}\t${Architecture}\t${source:Package}\t${source:Version}\n"
    r = subprocess.run(["dpkg-query", "-W", "-f", fmt] + sorted(pkgs), capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"sbom.py: dpkg-query: {r.stderr.strip()}")
    info = {}
    for line in r.stdout.splitlines():
        key, name, ver, arch, src, srcver = line.split("\t")
        info[key] = {"name": name, "version": ver, "arch": arch, "source": src, "source_version": srcver}
        info.setdefault(name, info[key])
    return info


def distro():
    try:
        with open("/etc/os-release") as f:
            kv = dict(l.rstrip("\n").split("=", 1) for l in f if "=" in l)
        return f"{kv.get('ID', 'debian').strip(chr(34))}-{kv.get('VERSION_ID', '').strip(chr(34))}"
    except OSError:
        return "debian"


def manifest_digest(layout):
    with open(os.path.join(layout, "index.json")) as f:
        return json.load(f)["manifests"][0]["digest"]


def spdx_id(text):
    return "SPDXRef-" + "".join(c if c.isalnum() or c in ".-" else "-" for c in text)


def main():
    ap = argparse.ArgumentParser()
    for a in ("rootfs", "version", "revision", "created", "layout", "out"):
        ap.add_argument("--" + a, required=True)
    opt = ap.parse_args()

    own = dpkg_owners()
    by_pkg, unexplained = {}, []
    for path in image_files(opt.rootfs):
        if path in MADE:
            if MADE[path]:
                by_pkg.setdefault(MADE[path], []).append(path)
            continue
        cands = {canon(path), canon(os.path.realpath(path))}
        pkgs = set().union(*(own.get(c, set()) for c in cands))
        if not pkgs:
            unexplained.append(path)
            continue
        for p in pkgs:
            by_pkg.setdefault(p, []).append(path)
    if unexplained:
        sys.exit("sbom.py: no Debian package installed these files of the image (and rootfs.sh "
                 "does not make them): " + ", ".join(unexplained[:10]))

    debs = sorted(p for p in by_pkg if p != "staffer")
    info = package_info(debs)
    dist = distro()
    digest = manifest_digest(opt.layout)
    image_id = "SPDXRef-image"
    packages = [{
        "SPDXID": image_id,
        "name": "staffer-image",
        "versionInfo": opt.version,
        "downloadLocation": "NOASSERTION",
        "primaryPackagePurpose": "CONTAINER",
        "filesAnalyzed": False,
        "licenseConcluded": "NOASSERTION",
        "licenseDeclared": "NOASSERTION",
        "copyrightText": "NOASSERTION",
        "checksums": [{"algorithm": "SHA256", "checksumValue": digest.split(":", 1)[1]}],
        "externalRefs": [{
            "referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
            "referenceLocator": "pkg:oci/staffer@" + urllib.parse.quote(digest, safe="")
                                + "?tag=" + urllib.parse.quote(opt.version.replace("+", "_"), safe=""),
        }],
        "comment": "the OCI image's manifest digest; one layer, made by scripts/image.sh",
    }, {
        "SPDXID": "SPDXRef-staffer",
        "name": "staffer",
        "versionInfo": opt.version,
        "downloadLocation": "NOASSERTION",
        "primaryPackagePurpose": "APPLICATION",
        "filesAnalyzed": False,
        "licenseConcluded": "Apache-2.0",
        "licenseDeclared": "Apache-2.0",
        "copyrightText": "NOASSERTION",
        "sourceInfo": f"built from revision {opt.revision}",
        "comment": "files in the image: " + ", ".join(by_pkg.get("staffer", [])),
    }]
    for key in debs:
        i = info[key]
        quoted = urllib.parse.quote(i["version"], safe="")
        files = by_pkg[key]
        packages.append({
            "SPDXID": spdx_id(f"deb-{i['name']}-{i['arch']}"),
            "name": i["name"],
            "versionInfo": i["version"],
            "supplier": "Organization: Debian",
            "downloadLocation": "NOASSERTION",
            "primaryPackagePurpose": "LIBRARY" if "/lib" in " ".join(files) else "DATA",
            "filesAnalyzed": False,
            "licenseConcluded": "NOASSERTION",
            "licenseDeclared": "NOASSERTION",
            "copyrightText": "NOASSERTION",
            "sourceInfo": f"Debian source package {i['source']} {i['source_version'] or i['version']}",
            "externalRefs": [{
                "referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                "referenceLocator": f"pkg:deb/debian/{i['name']}@{quoted}?arch={i['arch']}&distro={dist}",
            }],
            "comment": f"{len(files)} file(s) in the image, e.g. {files[0]}",
        })
    rel = [{"spdxElementId": "SPDXRef-DOCUMENT", "relationshipType": "DESCRIBES",
            "relatedSpdxElement": image_id}]
    rel += [{"spdxElementId": image_id, "relationshipType": "CONTAINS",
             "relatedSpdxElement": p["SPDXID"]} for p in packages[1:]]
    doc = {
        "spdxVersion": "SPDX-2.3",
        "dataLicense": "CC0-1.0",
        "SPDXID": "SPDXRef-DOCUMENT",
        "name": f"staffer-image-{opt.version}",
        # unique per image, as SPDX asks, and the same for the same image
        "documentNamespace": "https://spdx.org/spdxdocs/staffer-image-"
                             + str(uuid.uuid5(uuid.NAMESPACE_URL, "staffer-image:" + digest)),
        "creationInfo": {"created": opt.created, "creators": ["Tool: staffer-scripts-sbom.py"]},
        "packages": packages,
        "relationships": rel,
    }
    tmp = opt.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(tmp, opt.out)


if __name__ == "__main__":
    main()
