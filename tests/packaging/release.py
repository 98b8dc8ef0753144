"""Release checks (tests/packaging/check.py runs them): `make release` into
build/packaging/dist, then what a user gets from it.

  - make release: the files of dist/, named by VERSION, and SHA256SUMS
    (sha256sum -c);
  - the image (staffer-VERSION.oci.tar): an OCI layout whose blobs match
    their digests; one layer whose files are exactly the binary, the shared
    libraries ldd finds for it (and the dynamic loader), CA certificates,
    tzdata's zones and passwd/group/nsswitch.conf, owned by root, no
    set-id bits; the config (user 65532:65532, entrypoint `staffer serve`,
    command, ports, stop signal, OCI labels version/revision/licence) the
    same as the Dockerfile's runtime stage; the root filesystem's size;
  - the image unpacked with umoci and run under chroot as its user:
    `staffer version` says VERSION and the revision label, calc with a time
    zone, lint, and the entrypoint `staffer serve` answers gRPC health
    (staffer health, inside and outside) and /healthz, and exits 0 on
    SIGTERM;
  - the docker-archive: tagged staffer:VERSION, the same config and layer;
  - the chart package: helm's layout (staffer/ prefix, Chart.yaml first,
    the chart's files and nothing else), Chart.yaml with VERSION and the
    Artifact Hub changes of CHANGELOG.md's latest section, index.yaml with
    the package's digest; rendered with its default values, its image is
    the one the release built;
  - the SBOM: SPDX 2.3, exactly the Debian packages that own the image's
    files (found here with dpkg -S, another way than scripts/sbom.py's),
    with their installed versions.
"""

import gzip
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.request

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from freeport import free_port  # noqa: E402  (a port outside the ephemeral range)

ARCH = {"amd64": "amd64", "arm64": "arm64", "armhf": "arm", "i386": "386", "ppc64el": "ppc64le",
        "s390x": "s390x", "riscv64": "riscv64"}
# The target for the image's root filesystem, and the bound this
# test holds it to (Debian's libcurl, gRPC and their libraries alone are
# about 30 MiB: docs/install.md, "The image").
ROOTFS_TARGET = 25 * 1000 * 1000
ROOTFS_BOUND = 36 * 1000 * 1000


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class Release:
    """What `make release` made, read back; shared by the checks below."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.root = ctx.ROOT
        self.out = ctx.out
        self.dist = os.path.join(ctx.out, "dist")
        self.version = open(os.path.join(self.root, "VERSION")).read().strip()
        self.tag = self.version.replace("+", "_")
        self.binary = os.path.join(self.root, "build", "release", "staffer")
        self.seconds = None

    # ---- make release ---------------------------------------------------
    def make(self):
        if os.geteuid() != 0:
            raise self.ctx.Skip("the image build needs root (files owned by uid 0)")
        env = {k: v for k, v in os.environ.items()
               if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES") and not k.startswith("STAFFER_")}
        log = os.path.join(self.out, "make-release.log")
        t0 = time.monotonic()
        with open(log, "w") as f:
            r = subprocess.run(["make", "--no-print-directory", "release", f"DIST={self.dist}"], cwd=self.root,
                               stdout=f, stderr=subprocess.STDOUT, env=env, timeout=900)
        self.seconds = time.monotonic() - t0
        assert r.returncode == 0, "make release failed:\n" + open(log).read()[-3000:]
        v = self.version
        want = {"SHA256SUMS", "index.yaml", f"staffer-{v}.oci.tar", f"staffer-{v}.docker.tar",
                f"staffer-{v}.tgz", f"staffer-{v}.spdx.json"}
        got = set(os.listdir(self.dist))
        assert got == want, f"dist/ has {sorted(got)}, want {sorted(want)}"
        sums = {}
        for line in open(os.path.join(self.dist, "SHA256SUMS")):
            h, name = line.rstrip("\n").split("  ", 1)
            sums[name] = h
        assert set(sums) == want - {"SHA256SUMS"}, f"SHA256SUMS lists {sorted(sums)}"
        for name, h in sums.items():
            assert sha256_file(os.path.join(self.dist, name)) == h, f"SHA256SUMS: {name} differs"
        r = subprocess.run(["sha256sum", "-c", "--quiet", "SHA256SUMS"], cwd=self.dist, capture_output=True, text=True)
        assert r.returncode == 0, "sha256sum -c: " + r.stdout + r.stderr
        print(f"# make release: {self.seconds:.1f} s")

    # ---- the OCI image ----------------------------------------------------
    def read_image(self):
        lay = os.path.join(self.out, "oci-layout")
        shutil.rmtree(lay, ignore_errors=True)
        with tarfile.open(os.path.join(self.dist, f"staffer-{self.version}.oci.tar")) as t:
            t.extractall(lay)
        self.layout = lay
        assert json.load(open(os.path.join(lay, "oci-layout")))["imageLayoutVersion"] == "1.0.0"

        def blob(desc):
            algo, hexd = desc["digest"].split(":", 1)
            path = os.path.join(lay, "blobs", algo, hexd)
            assert algo == "sha256" and sha256_file(path) == hexd, f"blob {desc['digest']} does not match its digest"
            assert os.path.getsize(path) == desc["size"], f"blob {desc['digest']}: size"
            return path
        idx = json.load(open(os.path.join(lay, "index.json")))
        assert len(idx["manifests"]) == 1, "one image in the layout"
        m = idx["manifests"][0]
        assert m["mediaType"] == "application/vnd.oci.image.manifest.v1+json"
        assert m["annotations"]["org.opencontainers.image.ref.name"] == self.tag, m["annotations"]
        self.manifest_digest = m["digest"]
        man = json.load(open(blob(m)))
        self.config = json.load(open(blob(man["config"])))
        assert man["config"]["mediaType"] == "application/vnd.oci.image.config.v1+json"
        assert len(man["layers"]) == 1, f"{len(man['layers'])} layers, want one"
        layer = man["layers"][0]
        assert layer["mediaType"] == "application/vnd.oci.image.layer.v1.tar+gzip"
        path = blob(layer)
        raw = gzip.open(path).read()
        assert "sha256:" + hashlib.sha256(raw).hexdigest() == self.config["rootfs"]["diff_ids"][0], "diff_id"
        self.layer_sha = self.config["rootfs"]["diff_ids"][0]
        with tarfile.open(fileobj=io.BytesIO(raw)) as t:   # raises on a truncated tar
            self.members = t.getmembers()

    def expected_files(self):
        """The image's non-directory files as this test finds them: ldd's
        libraries of the release binary (and the loader), tzdata's zones
        without right/ and localtime, the CA bundle, passwd/group."""
        r = subprocess.run(["ldd", self.binary], capture_output=True, text=True)
        assert r.returncode == 0 and "not found" not in r.stdout, r.stdout + r.stderr
        libs = set()
        for line in r.stdout.splitlines():
            f = line.split()
            if len(f) >= 3 and f[1] == "=>" and f[2].startswith("/"):
                libs.add(f[2])
            elif f and f[0].startswith("/"):
                libs.add(f[0])
        files = {p.lstrip("/") for p in libs}
        zi = "/usr/share/zoneinfo"
        for d, dirs, names in os.walk(zi):
            rel = os.path.relpath(d, zi)
            if rel == "right" or rel.startswith("right/"):
                continue
            for n in names + [x for x in dirs if os.path.islink(os.path.join(d, x))]:
                p = os.path.normpath(os.path.join("usr/share/zoneinfo", rel, n))
                if p not in ("usr/share/zoneinfo/localtime", "usr/share/zoneinfo/right"):
                    files.add(p)
        files |= {"usr/local/bin/staffer", "etc/ssl/certs/ca-certificates.crt", "etc/passwd", "etc/group",
                  "etc/nsswitch.conf"}
        return libs, files

    def t_image_files(self):
        self.read_image()
        libs, want = self.expected_files()
        names = {}
        for ti in self.members:
            n = os.path.normpath(ti.name.lstrip("/")).lstrip("./") if ti.name not in (".", "./", "/") else "."
            names[n] = ti
        files = {n for n, ti in names.items() if not ti.isdir()}
        dirs = {n for n, ti in names.items() if ti.isdir()} - {"."}
        missing, extra = sorted(want - files), sorted(files - want)
        assert not missing and not extra, f"image files: missing {missing[:8]}, not expected {extra[:8]}"
        parents = {os.path.dirname(f) for f in want}
        parents = {"/".join(p.split("/")[:i]) for p in parents for i in range(1, len(p.split("/")) + 1)} - {""}
        assert dirs == parents | {"tmp"}, f"directories not expected: {sorted(dirs - parents - {'tmp'})[:8]}, " \
                                          f"missing: {sorted((parents | {'tmp'}) - dirs)[:8]}"
        for n, ti in names.items():
            assert ti.uid == 0 and ti.gid == 0, f"{n} belongs to {ti.uid}:{ti.gid}, not root"
            assert not ti.mode & 0o6000, f"{n} is set-id ({oct(ti.mode)})"
            assert ti.isfile() or ti.isdir() or ti.issym(), f"{n}: not a file, directory or symlink"
        assert names["tmp"].mode & 0o7777 == 0o1777, "tmp is not 1777"
        assert names["usr/local/bin/staffer"].mode & 0o777 == 0o755
        # the libraries are the host's files, the binary stripped
        for lib in sorted(libs)[:3]:
            ti = names[lib.lstrip("/")]
            assert ti.isfile() and ti.size == os.path.getsize(os.path.realpath(lib)), f"{lib}: not the host's file"
        assert names["usr/local/bin/staffer"].size < os.path.getsize(self.binary), "the binary is not stripped"
        size = sum(ti.size for ti in self.members if ti.isfile())
        self.rootfs_size = size
        lib_size = sum(names[l.lstrip("/")].size for l in libs)
        print(f"# image root filesystem: {size} bytes ({size / 1e6:.1f} MB; shared libraries "
              f"{lib_size / 1e6:.1f} MB in {len(libs)} files); the issue's target is "
              f"{ROOTFS_TARGET / 1e6:.0f} MB: {'met' if size < ROOTFS_TARGET else 'NOT met'}")
        assert size < ROOTFS_BOUND, f"root filesystem {size} bytes, over the {ROOTFS_BOUND} bytes bound"

    def t_image_config(self):
        c = self.config
        assert c["os"] == "linux"
        deb = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
        assert c["architecture"] == ARCH[deb], f"architecture {c['architecture']} on {deb}"
        cfg = c["config"]
        assert cfg["User"] == "65532:65532", f"User {cfg.get('User')}"
        assert cfg["Entrypoint"] == ["/usr/local/bin/staffer", "serve"], cfg.get("Entrypoint")
        assert cfg["Cmd"] == ["--config", "/etc/staffer/config.json"], cfg.get("Cmd")
        assert set(cfg["ExposedPorts"]) == {"9090/tcp", "9091/tcp"}, cfg.get("ExposedPorts")
        assert cfg["StopSignal"] == "SIGTERM"
        lab = cfg["Labels"]
        head = subprocess.run(["git", "-C", self.root, "rev-parse", "HEAD"], capture_output=True, text=True)
        rev = head.stdout.strip() if head.returncode == 0 else "unknown"
        if head.returncode == 0 and subprocess.run(["git", "-C", self.root, "diff", "--quiet", "HEAD", "--"]).returncode:
            rev += "-dirty"
        want = {"org.opencontainers.image.version": self.version,
                "org.opencontainers.image.revision": rev,
                "org.opencontainers.image.licenses": "Apache-2.0",
                "org.opencontainers.image.title": "staffer"}
        for k, v in want.items():
            assert lab.get(k) == v, f"label {k} = {lab.get(k)!r}, want {v!r}"
        assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", lab["org.opencontainers.image.created"])
        assert c["created"] == lab["org.opencontainers.image.created"]
        # the Dockerfile's runtime stage says the same
        ins = self.ctx.dockerfile_instructions(os.path.join(self.root, "Dockerfile"))
        rt = self.ctx.stages(ins)[1][1]
        one = {k: a for k, a in rt if k in ("USER", "ENTRYPOINT", "CMD", "STOPSIGNAL")}
        assert one["USER"] == cfg["User"], f"Dockerfile USER {one['USER']}, image {cfg['User']}"
        assert json.loads(one["ENTRYPOINT"]) == cfg["Entrypoint"] and json.loads(one["CMD"]) == cfg["Cmd"]
        assert one["STOPSIGNAL"] == cfg["StopSignal"]
        exposed = {p if "/" in p else p + "/tcp" for k, a in rt if k == "EXPOSE" for p in a.split()}
        assert exposed == set(cfg["ExposedPorts"]), f"Dockerfile EXPOSE {exposed}"
        dlabels = set(re.findall(r"(org\.opencontainers\.image\.[\w.]+)=", " ".join(a for k, a in rt if k == "LABEL")))
        assert dlabels == set(k for k in lab if k != "org.opencontainers.image.source"), \
            f"labels: Dockerfile {sorted(dlabels)}, image {sorted(lab)}"
        for k, val in re.findall(r'(org\.opencontainers\.image\.[\w.]+)="([^"$]*)"',
                                 " ".join(a for k, a in rt if k == "LABEL")):
            assert lab[k] == val, f"label {k}: Dockerfile {val!r}, image {lab[k]!r}"

    def t_image_runs(self):
        """umoci unpack, then the image's own user and entrypoint under chroot."""
        if not shutil.which("chroot") or not shutil.which("umoci"):
            raise self.ctx.Skip("chroot or umoci missing")
        bundle = os.path.join(self.out, "image-bundle")
        shutil.rmtree(bundle, ignore_errors=True)
        r = subprocess.run(["umoci", "unpack", "--image", f"{self.layout}:{self.tag}", bundle],
                           capture_output=True, text=True)
        assert r.returncode == 0, "umoci unpack: " + r.stderr
        rfs = os.path.join(bundle, "rootfs")
        cfg = self.config["config"]
        user = cfg["User"]
        ep = cfg["Entrypoint"]
        for bad in ("bin/sh", "bin/bash", "usr/bin/apt-get", "usr/bin/dpkg", "usr/bin/perl"):
            assert not os.path.lexists(os.path.join(rfs, bad)), f"the image has {bad}"
        passwd = open(os.path.join(rfs, "etc", "passwd")).read()
        assert re.search(r"^\w+:x:65532:65532:", passwd, re.M), "passwd has no entry for uid 65532"

        def run(args, **kw):
            return subprocess.run(["chroot", f"--userspec={user}", rfs] + args, capture_output=True, text=True,
                                  timeout=20, **kw)
        r = run([ep[0], "version"])
        lab = cfg["Labels"]
        want = f"staffer {self.version} (revision {lab['org.opencontainers.image.revision'][:12]}"
        assert r.returncode == 0 and r.stdout.startswith(want), f"staffer version: {r.stdout!r}, want {want!r}…"
        r = run([ep[0], "calc", "arrivalRate=2", "serviceTime=10", "beta=1.5", "timezone=Europe/Berlin",
                 "schedule=Mon-Sun 00:00-24:00 beta=3", "--json"])
        assert r.returncode == 0 and json.loads(r.stdout.splitlines()[-1])["replicas"] == 34, \
            "calc with a time zone in the image: " + r.stdout + r.stderr
        so = open(os.path.join(self.root, "scaledobjects", "chat-vllm.yaml")).read()
        r = run([ep[0], "lint", "--strict", "-"], input=so)
        assert r.returncode == 0, "lint in the image: " + r.stdout + r.stderr
        port, mport = free_port(), free_port()
        log = open(os.path.join(self.out, "image-serve.log"), "w")
        p = subprocess.Popen(["chroot", f"--userspec={user}", rfs] + ep +
                             ["--prometheus", "https://127.0.0.1:9", "--listen", f"127.0.0.1:{port}",
                              "--metrics-listen", f"127.0.0.1:{mport}"], stdout=log, stderr=log)
        try:
            ok = False
            for _ in range(100):
                h = run([ep[0], "health", "--timeout", "1", f"127.0.0.1:{port}"])
                if h.returncode == 0 and h.stdout == "SERVING\n":
                    ok = True
                    break
                if p.poll() is not None:
                    break
                time.sleep(0.1)
            assert ok, "staffer serve in the image never answered SERVING: " + \
                open(os.path.join(self.out, "image-serve.log")).read()[-800:]
            h = subprocess.run([self.ctx.STAFFER if os.path.exists(self.ctx.STAFFER) else self.binary,
                                "health", "--timeout", "2", f"127.0.0.1:{port}"], capture_output=True, text=True)
            assert h.stdout == "SERVING\n", "health from outside the image: " + h.stdout + h.stderr
            body = urllib.request.urlopen(f"http://127.0.0.1:{mport}/healthz", timeout=5).read()
            assert body, "/healthz answered nothing"
        finally:
            p.terminate()
            rc = p.wait(20)
        assert rc == 0, f"staffer serve in the image exited {rc} on SIGTERM"

    def t_docker_archive(self):
        path = os.path.join(self.dist, f"staffer-{self.version}.docker.tar")
        with tarfile.open(path) as t:
            man = json.load(t.extractfile("manifest.json"))
            assert len(man) == 1, "one image in the docker-archive"
            tags = man[0]["RepoTags"]
            assert tags in (["staffer:" + self.tag], ["docker.io/library/staffer:" + self.tag]), f"RepoTags {tags}"
            cfg = json.load(t.extractfile(man[0]["Config"]))
            for k in ("User", "Entrypoint", "Cmd", "Labels", "ExposedPorts", "StopSignal"):
                assert cfg["config"].get(k) == self.config["config"].get(k), f"docker-archive config {k} differs"
            assert len(man[0]["Layers"]) == 1
            layer = t.extractfile(man[0]["Layers"][0]).read()
        assert "sha256:" + hashlib.sha256(layer).hexdigest() == self.layer_sha, "the docker-archive's layer differs"
        # what docs/install.md pushes from: skopeo reads both archives
        for ref in (f"oci-archive:{os.path.join(self.dist, f'staffer-{self.version}.oci.tar')}:{self.tag}",
                    f"docker-archive:{path}"):
            r = subprocess.run(["skopeo", "inspect", "--config", ref], capture_output=True, text=True)
            assert r.returncode == 0, f"skopeo inspect --config {ref}: {r.stderr.strip()}"
            got = json.loads(r.stdout)["config"]
            assert got["Labels"] == self.config["config"]["Labels"], f"{ref}: labels differ"

    # ---- the chart package --------------------------------------------------
    def t_chart_package(self):
        v = self.version
        tgz = os.path.join(self.dist, f"staffer-{v}.tgz")
        with open(tgz, "rb") as f:
            assert f.read(2) == b"\x1f\x8b", "not gzip"
        pkg = os.path.join(self.out, "chart-package")
        shutil.rmtree(pkg, ignore_errors=True)
        with tarfile.open(tgz) as t:
            members = t.getmembers()
            assert members[0].name == "staffer/Chart.yaml", f"first member {members[0].name} (helm: Chart.yaml)"
            assert all(m.isfile() and m.name.startswith("staffer/") for m in members), "only files under staffer/"
            t.extractall(pkg)
        got = {m.name[len("staffer/"):] for m in members}
        chart = self.ctx.CHART
        want = set()
        for d, dirs, names in os.walk(chart):
            for n in names:
                rel = os.path.relpath(os.path.join(d, n), chart)
                if rel != ".helmignore" and not n.endswith(("~", ".swp", ".bak", ".tmp", ".orig")):
                    want.add(rel)
        assert got == want, f"package: missing {sorted(want - got)}, not expected {sorted(got - want)}"
        for need in ("values.schema.json", "README.md", "values.yaml", "templates/deployment.yaml"):
            assert need in got, f"the package has no {need}"
        pdir = os.path.join(pkg, "staffer")
        for rel in sorted(got - {"Chart.yaml"}):
            assert open(os.path.join(pdir, rel), "rb").read() == open(os.path.join(chart, rel), "rb").read(), \
                f"{rel} differs from the repository's"
        c = yaml.safe_load(open(os.path.join(pdir, "Chart.yaml")))
        src = yaml.safe_load(open(os.path.join(chart, "Chart.yaml")))
        assert str(c["version"]) == v and str(c["appVersion"]) == v, f"package version {c['version']}/{c['appVersion']}"
        ann = dict(c["annotations"])
        changes = yaml.safe_load(ann.pop("artifacthub.io/changes"))
        assert ann.pop("artifacthub.io/prerelease") == ("true" if "-" in v else "false")
        assert ann == src["annotations"], "the other annotations are the repository's"
        assert {k: x for k, x in c.items() if k != "annotations"} == \
            {k: (str(x) if k in ("version", "appVersion") else x) for k, x in src.items() if k != "annotations"}
        # Artifact Hub's changes: one per bullet of CHANGELOG.md's latest section
        bullets, kinds = self.changelog_bullets()
        assert len(changes) == len(bullets), f"{len(changes)} changes, {len(bullets)} CHANGELOG entries"
        for ch, b, k in zip(changes, bullets, kinds):
            assert set(ch) == {"kind", "description"} and ch["kind"] == k, ch
            head = ch["description"][:40]
            assert head and head in b, f"change {head!r} is not CHANGELOG's {b[:60]!r}"
        # index.yaml for a static chart repository
        idx = yaml.safe_load(open(os.path.join(self.dist, "index.yaml")))
        assert idx["apiVersion"] == "v1" and idx.get("generated"), "index.yaml apiVersion v1, generated"
        ents = idx["entries"]["staffer"]
        assert [e["version"] for e in ents] == [v], f"index.yaml versions {[e['version'] for e in ents]}"
        e = ents[0]
        assert e["digest"] == sha256_file(tgz), "index.yaml digest is not the package's sha256"
        assert e["urls"] == [f"staffer-{v}.tgz"], e["urls"]
        assert e.get("created")
        assert {k: x for k, x in e.items() if k not in ("created", "digest", "urls")} == c, \
            "index.yaml's entry is not the package's Chart.yaml"
        self.package_dir = pdir

    def changelog_bullets(self):
        kinds = {"added": "added", "changed": "changed", "upgrade notes": "changed", "fixed": "fixed",
                 "removed": "removed", "deprecated": "deprecated", "security": "security"}
        text = open(os.path.join(self.root, "CHANGELOG.md"), encoding="utf-8").read()
        sec = re.split(r"(?m)^## ", text)[1]
        out, ks, kind = [], [], None
        for line in sec.splitlines():
            m = re.match(r"^### (.+?)(?: \(.*\))?$", line)
            if m:
                kind = kinds[m.group(1).lower()]
            elif line.startswith("- "):
                out.append(line[2:])
                ks.append(kind)
            elif out and line.startswith(" "):
                out[-1] += " " + line.strip().lstrip("- ")
        flat = [" ".join(re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", b).split()) for b in out]
        return flat, ks

    def t_chart_image(self):
        """The package with its default values deploys the image built."""
        rc, text, err, _ = self.ctx.R.render([], chart=self.package_dir)
        assert rc == 0, "the packaged chart does not render: " + err
        r = self.ctx.Rendered(text, "staffer", "keda")
        self.ctx.check_rendered(r, self.ctx.merged_values())
        dep = r.one("Deployment")
        image = dep["spec"]["template"]["spec"]["containers"][0]["image"]
        assert image == f"staffer:{self.tag}", f"default image {image}, the release built staffer:{self.tag}"
        with tarfile.open(os.path.join(self.dist, f"staffer-{self.version}.docker.tar")) as t:
            tags = json.load(t.extractfile("manifest.json"))[0]["RepoTags"]
        assert re.sub(r"^docker\.io/library/", "", tags[0]) == image, f"docker-archive {tags[0]}, chart {image}"

    # ---- the SBOM ---------------------------------------------------------
    def t_sbom(self):
        doc = json.load(open(os.path.join(self.dist, f"staffer-{self.version}.spdx.json")))
        assert doc["spdxVersion"] == "SPDX-2.3" and doc["dataLicense"] == "CC0-1.0"
        assert doc["SPDXID"] == "SPDXRef-DOCUMENT" and doc["documentNamespace"].startswith("https://")
        pk = {p["SPDXID"]: p for p in doc["packages"]}
        assert len(pk) == len(doc["packages"]), "SPDXIDs are not unique"
        img = pk["SPDXRef-image"]
        assert img["checksums"][0]["checksumValue"] == self.manifest_digest.split(":")[1], "image digest"
        assert pk["SPDXRef-staffer"]["versionInfo"] == self.version
        assert pk["SPDXRef-staffer"]["licenseDeclared"] == "Apache-2.0"
        contains = {x["relatedSpdxElement"] for x in doc["relationships"]
                    if x["spdxElementId"] == "SPDXRef-image" and x["relationshipType"] == "CONTAINS"}
        assert contains == set(pk) - {"SPDXRef-image"}, "the image CONTAINS every other package"
        debs = {p["name"]: p["versionInfo"] for p in doc["packages"] if p.get("supplier") == "Organization: Debian"}
        # who owns the image's files, asked of dpkg -S
        libs, files = self.expected_files()
        paths = sorted(libs | {"/usr/share/zoneinfo/Europe/Berlin"})
        owners = set()
        for p in paths:
            found = None
            for q in (p, os.path.realpath(p), "/usr" + p if not p.startswith("/usr/") else p[4:]):
                r = subprocess.run(["dpkg", "-S", q], capture_output=True, text=True)
                if r.returncode == 0:
                    found = r.stdout.split(":")[0].split(",")[0].strip()
                    break
            assert found, f"dpkg -S finds no package for {p}"
            owners.add(found)
        owners.add("ca-certificates")  # its update-ca-certificates writes the bundle
        assert set(debs) == owners, f"SBOM packages: missing {sorted(owners - set(debs))}, " \
                                    f"not expected {sorted(set(debs) - owners)}"
        for name, ver in debs.items():
            r = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", name], capture_output=True, text=True)
            assert r.stdout.split("\n")[0] == ver, f"SBOM {name} {ver}, installed {r.stdout}"
        for p in doc["packages"]:
            if p["name"] in debs:
                purl = p["externalRefs"][0]["referenceLocator"]
                assert purl.startswith(f"pkg:deb/debian/{p['name']}@"), purl


def register(check, ctx):
    rel = Release(ctx)
    made = []

    def t_make():
        rel.make()
        made.append(True)
    check("release: make release DIST=build/packaging/dist (files named by VERSION, SHA256SUMS)")(t_make)
    if not made:
        return
    read = []

    def t_files():
        rel.t_image_files()
        read.append(True)
    check("image: one layer, exactly the binary, ldd's libraries, CA certificates, tzdata, passwd; root-owned")(
        t_files)
    if read:
        check("image: config (user 65532, entrypoint staffer serve, ports, labels) as the Dockerfile's")(
            rel.t_image_config)
        check("image: unpacked with umoci, under chroot as its user: version, calc, lint, serve + health")(
            rel.t_image_runs)
        check("image: the docker-archive is staffer:VERSION with the same config and layer; skopeo reads both")(
            rel.t_docker_archive)
        check("release: the SBOM lists exactly the Debian packages of the image's files, with versions")(rel.t_sbom)
    pk = []

    def t_pkg():
        rel.t_chart_package()
        pk.append(True)
    check("chart package: helm's layout, VERSION, Artifact Hub changes from CHANGELOG.md, index.yaml")(t_pkg)
    if pk and read:
        check("chart package: renders with its defaults to the image the release built")(rel.t_chart_image)

    def t_time():
        assert rel.seconds < 300, f"make release took {rel.seconds:.0f} s"
    check(f"release: make release took {rel.seconds:.0f} s here (the target: under 300 s from a fresh clone)")(
        t_time)
