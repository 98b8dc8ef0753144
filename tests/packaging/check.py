#!/usr/bin/python3
"""Packaging checks: Dockerfile, Helm chart, example ScaledObjects, docs.

Run through tests/packaging/run.sh, which installs what is missing.  No
docker, helm or cluster is needed:

Dockerfile
  - hadolint-style rules: a build stage on debian:bookworm-slim, apt
    hygiene (update + install + clean in one RUN, --no-install-recommends,
    -y), pipefail shell, no ADD, no :latest, no "# syntax=" directive (it
    pulls a frontend from a registry);
  - the runtime stage: scratch with scripts/rootfs.sh's filesystem and
    nothing else (no RUN: there is no shell), numeric non-root USER,
    exact ENTRYPOINT, EXPOSE 9090 and 9091, STOPSIGNAL SIGTERM, a
    HEALTHCHECK, the OCI labels from build arguments;
  - scripts/rootfs.sh run here on build/staffer: no shell or package
    manager in it, and the binary starts under chroot in it (version,
    calc with a time zone, lint, and serve answering a health check);
  - .dockerignore lets in what `make` reads and keeps build/ and .git out.
Helm chart (charts/staffer), rendered by render.go (Go text/template)
  - Chart.yaml, the templates present, only the allowed template functions;
  - values.yaml, tests/packaging/values-full.yaml and every
    charts/staffer/examples/*.yaml pass values.schema.json (as helm would);
  - each renders; the output is YAML of the expected kinds, in the release
    namespace; container args, gRPC probes on the port (TCP with TLS),
    security context, service (ClusterIP, grpc, appProtocol grpc), service
    account, PDB, TLS flags and mounts, the config checksum annotation;
    cert-manager Issuers and Certificates (the server's for the Service's
    names into the Secret the pod mounts, KEDA's client certificate with
    clientAuth, a CA of the chart's own unless an issuerRef is given); the
    NetworkPolicy (gRPC port from KEDA's operator only);
  - config.json in the ConfigMap: JSON with known fields and ranges only
    (docs/config.md), every credential a file path that a volume mount
    provides, and accepted by staffer's own loader (linked from
    build/libstaffer.a, when it exists);
  - bad values fail to render with a clear message.
ScaledObjects (scaledobjects/*.yaml)
  - valid against the ScaledObject CRD's openAPIV3Schema from
    third_party/keda/ (unknown fields rejected, as kubectl's strict field
    validation does; the CRD's min <= max rule);
  - the staffer conventions: one external/external-push trigger at
    staffer.keda.svc:9090, AverageValue, fallback, scale-down
    stabilization 0, tolerance "0", the guarded zero
    `or (0 * max(up{...} == 1))` (never a bare `or vector(0)`) / clamp_min /
    sum() in queries, no credentials in metadata, keys documented in
    docs/metadata.md;
  - `build/staffer calc` accepts each trigger's metadata, and the
    `staffer calc ... -> N` lines in the comments give N.

Prints one line per check ("ok", "FAIL" or "skip"), the number skipped, and
last "N passed, N failed".
"""

import argparse
import copy
import fnmatch
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

try:
    import jsonschema
except ImportError:  # run.sh installs it; say so instead of a traceback
    jsonschema = None

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CHART = os.path.join(ROOT, "charts", "staffer")
SO_DIR = os.path.join(ROOT, "scaledobjects")
# KEDA's ScaledObject CRD, kept in the repository (third_party/keda/README.md:
# source, version, licence); the hash catches an update without that note.
CRD = os.path.join(ROOT, "third_party", "keda", "keda.sh_scaledobjects.yaml")
CRD_SHA256 = "207afc4ca44fd9e3f4bbfb1c8fae08f3a365e098a52714fe8eb672bbd239cbcd"
STAFFER = os.path.join(ROOT, "build", "staffer")
LIBSTAFFER = os.path.join(ROOT, "build", "libstaffer.a")

PASSED, FAILED, SKIPPED = [], [], []


class Skip(Exception):
    pass


def check(name):
    """Decorator-free runner: check(name)(fn) runs fn and records it."""
    def run(fn, *args):
        try:
            fn(*args)
        except Skip as e:
            SKIPPED.append(name)
            print(f"skip - {name}: {e}")
        except AssertionError as e:
            FAILED.append(name)
            print(f"FAIL - {name}: {e}")
        except Exception as e:  # a crash in a check is a failure too
            FAILED.append(name)
            print(f"FAIL - {name}: {type(e).__name__}: {e}")
        else:
            PASSED.append(name)
            print(f"ok   - {name}")
    return run


def rel(p):
    return os.path.relpath(p, ROOT)


def load_yaml(path):
    with open(path) as f:
        return yaml.safe_load(f)


# ---------------------------------------------------------------------------
# Dockerfile
# ---------------------------------------------------------------------------

def dockerfile_instructions(path):
    """[(INSTRUCTION, args)] with continuations joined, comments dropped,
    and '# hadolint ignore=' comments kept as ('#IGNORE', rules)."""
    out, cur = [], ""
    with open(path) as f:
        for line in f:
            s = line.rstrip("\n")
            if not cur and s.strip().startswith("#"):
                m = re.match(r"\s*#\s*hadolint ignore=(\S+)", s)
                if m:
                    out.append(("#IGNORE", m.group(1)))
                continue
            if not cur and not s.strip():
                continue
            if s.endswith("\\"):
                cur += s[:-1] + " "
                continue
            cur += s
            parts = cur.strip().split(None, 1)
            out.append((parts[0].upper(), parts[1] if len(parts) > 1 else ""))
            cur = ""
    return out


def stages(ins):
    """Split instructions into stages: [(from_args, [instructions])]."""
    st = []
    for k, a in ins:
        if k == "FROM":
            st.append((a, []))
        elif st:
            st[-1][1].append((k, a))
    return st


def apt_packages(run_args):
    """Packages named by `apt-get install` in one RUN line."""
    pk = []
    for seg in re.split(r"&&|;", run_args):
        seg = seg.strip()
        m = re.search(r"apt-get\s+install\s+(.*)", seg)
        if not m:
            continue
        for tok in m.group(1).split():
            if tok.startswith("-") or "=" in tok and not re.match(r"^[a-z0-9.+-]+=", tok):
                continue
            pk.append(tok.split("=")[0])
    return pk


def t_dockerfile_structure():
    path = os.path.join(ROOT, "Dockerfile")
    assert os.path.exists(path), "Dockerfile is missing"
    text = open(path).read()
    assert not re.search(r"^#\s*syntax\s*=", text, re.M | re.I), \
        "no '# syntax=' directive: it pulls a frontend image (breaks air-gapped builds)"
    ins = dockerfile_instructions(path)
    args = {a.split("=", 1)[0]: a.split("=", 1)[1] for k, a in ins
            if k == "ARG" and "=" in a}
    st = stages(ins)
    assert len(st) == 2, f"expected 2 stages (build, runtime), found {len(st)}"
    names, images = [], []
    for frm, _ in st:
        m = re.match(r"(\S+)(?:\s+AS\s+(\S+))?$", frm, re.I)
        assert m, f"cannot read FROM {frm!r}"
        image = re.sub(r"\$\{?(\w+)\}?", lambda x: args.get(x.group(1), "?"), m.group(1))
        assert not image.endswith(":latest"), "DL3007: no :latest"
        names.append((m.group(2) or "").lower())
        images.append(image)
    assert names == ["build", "runtime"], f"stage names {names}, expected build, runtime"
    assert images[0].startswith("debian:bookworm-slim"), f"build stage FROM {images[0]}"
    assert images[1] == "scratch", f"runtime stage FROM {images[1]}, expected scratch"
    keys = [k for k, _ in ins]
    assert "ADD" not in keys, "DL3020: use COPY, not ADD"
    for k, a in ins:
        if k == "COPY" and "--from=" in a:
            src = re.search(r"--from=(\S+)", a).group(1)
            assert src in names[:1], f"COPY --from={src}: no such earlier stage"
        if k == "WORKDIR":
            assert a.startswith("/"), f"DL3000: WORKDIR {a} is not absolute"
        if k in ("CMD", "ENTRYPOINT"):
            json.loads(a)  # DL3025: JSON form (raises if not)


def t_dockerfile_apt():
    ins = dockerfile_instructions(os.path.join(ROOT, "Dockerfile"))
    seen = 0
    for k, a in ins:
        if k != "RUN" or "apt-get" not in a:
            continue
        seen += 1
        if "install" in a:
            assert "apt-get update" in a, "DL3009/DL3019: apt-get update in the same RUN as install"
            assert "--no-install-recommends" in a, "DL3015: --no-install-recommends"
            assert re.search(r"install\s+(-\S+\s+)*-y|-y\b", a), "DL3014: apt-get install -y"
            assert "rm -rf /var/lib/apt/lists/*" in a, "DL3009: remove /var/lib/apt/lists/*"
            assert a.index("apt-get update") < a.index("apt-get install")
    assert seen >= 1, "expected an apt-get RUN in the build stage"
    # DL4006: pipes need pipefail
    for i, (k, a) in enumerate(ins):
        if k == "RUN" and re.search(r"[^|]\|[^|]", a):
            shells = [x for kk, x in ins[:i] if kk == "SHELL"]
            assert shells and "pipefail" in shells[-1], "DL4006: set SHELL with -o pipefail before a RUN with a pipe"


def t_dockerfile_runtime():
    ins = dockerfile_instructions(os.path.join(ROOT, "Dockerfile"))
    st = stages(ins)
    build = st[0][1]
    runtime = st[1][1]
    bpk = [p for k, a in build if k == "RUN" for p in apt_packages(a)]
    for p in ["build-essential", "pkg-config", "libgrpc-dev", "protobuf-c-compiler",
              "libprotobuf-c-dev", "libcurl4-openssl-dev", "libcjson-dev", "libyaml-dev",
              "libmicrohttpd-dev", "ca-certificates", "tzdata"]:
        assert p in bpk, f"build stage does not install {p}"
    runs = [a for k, a in build if k == "RUN"]
    assert any(re.search(r"\bmake\b", a) for a in runs), "build stage never runs make"
    assert any("STAFFER_VERSION=\"${VERSION}\"" in a for a in runs), "VERSION reaches make"
    assert any("scripts/rootfs.sh build/staffer /rootfs" in a for a in runs), \
        "build stage does not gather the runtime filesystem (scripts/rootfs.sh)"
    kinds = [k for k, _ in runtime]
    assert "RUN" not in kinds and "SHELL" not in kinds, "runtime on scratch has no shell: no RUN"
    copies = [a for k, a in runtime if k == "COPY"]
    assert copies == ["--from=build /rootfs/ /"], f"runtime COPY {copies}: only the rootfs"
    users = [a for k, a in runtime if k == "USER"]
    assert users, "no USER in the runtime stage"
    assert re.match(r"^65532(:65532)?$", users[-1]), f"USER {users[-1]}: expected 65532 (numeric, non-root)"
    ep = [a for k, a in runtime if k == "ENTRYPOINT"]
    assert ep and json.loads(ep[-1]) == ["/usr/local/bin/staffer", "serve"], \
        f"ENTRYPOINT {ep}: expected [\"/usr/local/bin/staffer\",\"serve\"]"
    exposed = {p.split("/")[0] for k, a in runtime if k == "EXPOSE" for p in a.split()}
    assert exposed == {"9090", "9091"}, f"EXPOSE {sorted(exposed)}: 9090 (gRPC) and 9091 (/metrics)"
    assert any(k == "STOPSIGNAL" and a.strip() == "SIGTERM" for k, a in runtime), "STOPSIGNAL SIGTERM"
    hc = [a for k, a in runtime if k == "HEALTHCHECK"]
    assert hc and '"/usr/local/bin/staffer", "health"' in hc[0], f"HEALTHCHECK {hc}"
    labels = " ".join(a for k, a in runtime if k == "LABEL")
    for key, val in (("version", "${VERSION}"), ("revision", "${REVISION}"),
                     ("created", "${CREATED}"),
                     ("licenses", "Apache-2.0"), ("title", "staffer")):
        assert f'org.opencontainers.image.{key}="{val}"' in labels, f"OCI label {key}={val}"


def t_version_script(out):
    """scripts/version.sh: STAFFER_VERSION wins, else git, else (a copy
    without .git, as in the image build) the chart's appVersion + -dev."""
    base = open(os.path.join(ROOT, "VERSION")).read().strip()
    copy = os.path.join(out, "version-nogit")
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "scripts"), os.path.join(copy, "scripts"))
    shutil.copy(os.path.join(ROOT, "VERSION"), copy)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STAFFER_", "GIT_"))}
    env["GIT_CEILING_DIRECTORIES"] = os.path.dirname(copy)
    r = subprocess.run([os.path.join(copy, "scripts", "version.sh")], capture_output=True,
                       text=True, env=env)
    assert r.returncode == 0 and r.stdout.split() == [f"{base}-dev", "unknown"], \
        f"without git: {r.stdout!r} {r.stderr!r}"
    r = subprocess.run([os.path.join(copy, "scripts", "version.sh"), "--release"], capture_output=True,
                       text=True, env=env)
    assert r.returncode == 0 and r.stdout.split() == [base, "unknown"], f"--release without git: {r.stdout!r}"
    for bad in ("1.2", "v1.2.3", "1.2.3+build", ""):
        open(os.path.join(copy, "VERSION"), "w").write(bad + "\n")
        r = subprocess.run([os.path.join(copy, "scripts", "version.sh")], capture_output=True, text=True, env=env)
        assert r.returncode == 2 and "VERSION holds" in r.stderr, f"VERSION {bad!r} accepted: {r.stdout!r}"
    open(os.path.join(copy, "VERSION"), "w").write(base + "\n")
    r = subprocess.run([os.path.join(copy, "scripts", "version.sh")], capture_output=True, text=True,
                       env=dict(env, STAFFER_VERSION="9.8.7", STAFFER_REVISION="abc123"))
    assert r.stdout.split() == ["9.8.7", "abc123"], r.stdout
    r = subprocess.run([os.path.join(copy, "scripts", "version.sh")], capture_output=True, text=True,
                       env=dict(env, STAFFER_VERSION='1.0"; rm -rf /'))
    assert r.returncode == 2 and "allowed" in r.stderr, "a version that is not a plain word"
    if shutil.which("git") and os.path.exists(os.path.join(ROOT, ".git")):
        r = subprocess.run([os.path.join(ROOT, "scripts", "version.sh")], capture_output=True,
                           text=True, env={k: v for k, v in os.environ.items()
                                           if not k.startswith("STAFFER_")})
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
        assert r.returncode == 0 and r.stdout.split()[1] == head, (r.stdout, head)
        # no tag vBASE at HEAD (a clone has none): BASE-dev+g<commit>
        tagged = subprocess.run(["git", "-C", ROOT, "tag", "--points-at", "HEAD"], capture_output=True,
                                text=True).stdout.split()
        if f"v{base}" not in tagged:
            assert r.stdout.split()[0].startswith(f"{base}-dev+g"), r.stdout


def dockerignore_included(patterns, path):
    """Docker's rule: the last matching pattern wins; a pattern matching a
    parent directory matches the path."""
    inc = True
    parts = path.split("/")
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    for pat in patterns:
        neg = pat.startswith("!")
        p = pat[1:] if neg else pat
        p = p.strip("/")
        if any(fnmatch.fnmatchcase(x, p) for x in prefixes):
            inc = neg
    return inc


def t_dockerignore():
    path = os.path.join(ROOT, ".dockerignore")
    assert os.path.exists(path), ".dockerignore is missing"
    pats = [l.strip() for l in open(path) if l.strip() and not l.strip().startswith("#")]
    needed = ["Makefile", "scripts/version.sh", "scripts/embed.sh", "scripts/rootfs.sh",
              "third_party/keda/keda.sh_scaledobjects.yaml"]
    for d in ("src", "include", "proto"):
        for f in sorted(os.listdir(os.path.join(ROOT, d))):
            if not f.endswith((".o", ".d")):
                needed.append(f"{d}/{f}")
    for f in needed:
        assert dockerignore_included(pats, f), f"{f} is kept out of the build context but make needs it"
    for f in ["build/staffer", "build/obj/main.o", ".git/HEAD", "charts/staffer/values.yaml",
              "bench/run.sh", "src/main.o", "scripts/deps.sh", "third_party/keda/README.md"]:
        assert not dockerignore_included(pats, f), f"{f} would be sent to the build context"


def t_hadolint():
    if not shutil.which("hadolint"):
        raise Skip("hadolint not installed (not in Debian 12); the rules above stand in for it")
    r = subprocess.run(["hadolint", os.path.join(ROOT, "Dockerfile")], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


# ---------------------------------------------------------------------------
# The chart: structure, values schema, template functions
# ---------------------------------------------------------------------------

ALLOWED_FUNCS = {
    # the chart's library (render.go implements exactly these)
    "include", "toYaml", "toJson", "indent", "nindent", "quote", "default",
    "printf", "trunc", "trimSuffix", "replace", "sha256sum", "required", "fail", "tpl",
    # text/template actions and built-ins
    "float64", "hasKey",
    "define", "template", "block", "if", "else", "end", "range", "with", "break",
    "continue", "eq", "ne", "lt", "le", "gt", "ge", "and", "or", "not", "len",
    "index", "print", "println", "nil", "true", "false",
}

TEMPLATES = ["_helpers.tpl", "deployment.yaml", "service.yaml", "configmap.yaml",
             "certificate.yaml", "networkpolicy.yaml",
             "serviceaccount.yaml", "pdb.yaml", "NOTES.txt", "servicemonitor.yaml",
             "podmonitor.yaml", "prometheusrule.yaml", "dashboard-configmap.yaml",
             "tests/test-health.yaml"]
DASHBOARD = os.path.join(CHART, "dashboards", "staffer.json")


def t_chart_yaml():
    c = load_yaml(os.path.join(CHART, "Chart.yaml"))
    assert c.get("apiVersion") == "v2", "Chart.yaml apiVersion must be v2"
    assert c.get("name") == "staffer", "Chart.yaml name must be staffer"
    assert re.match(r"^\d+\.\d+\.\d+([-+].*)?$", str(c.get("version", ""))), "version is not SemVer"
    assert c.get("appVersion"), "appVersion is missing"
    assert c.get("type", "application") == "application"
    # what Artifact Hub and `helm show chart` show: only real values (no
    # home, sources, icon or maintainers until the project has them)
    for k in ("home", "icon"):
        assert k not in c or re.match(r"^https://", c[k]), f"Chart.yaml {k}: an https URL or nothing"
    assert all(re.match(r"^https://", u) for u in c.get("sources", [])), "sources: https URLs"
    assert all(m.get("name") for m in c.get("maintainers", [])), "maintainers need a name"
    ann = c.get("annotations") or {}
    for k in ("artifacthub.io/license", "artifacthub.io/links", "artifacthub.io/category"):
        assert k in ann, f"Chart.yaml annotation {k}"
    assert ann["artifacthub.io/license"] == "Apache-2.0"
    links = yaml.safe_load(ann["artifacthub.io/links"])
    assert isinstance(links, list) and links and all(re.match(r"^https://", l["url"]) for l in links), links
    # made from CHANGELOG.md by `make chart-package`, not kept by hand
    for k in ("artifacthub.io/changes", "artifacthub.io/prerelease"):
        assert k not in ann, f"{k}: scripts/chart-package.py writes it into the package"
    for t in TEMPLATES:
        assert os.path.exists(os.path.join(CHART, "templates", t)), f"templates/{t} is missing"


def changelog_version():
    """The version of CHANGELOG.md's latest heading: '## [Unreleased] — X'
    while X is prepared, '## [X] — DATE' once released."""
    for line in open(os.path.join(ROOT, "CHANGELOG.md"), encoding="utf-8"):
        if line.startswith("## "):
            m = re.match(r"^## \[Unreleased\] — (\S+)\s*$", line) or re.match(r"^## \[([^\]]+)\]", line)
            assert m and m.group(1) != "Unreleased", f"CHANGELOG.md heading {line.strip()!r}"
            return m.group(1)
    raise AssertionError("CHANGELOG.md has no '## ' heading")


def t_one_version(out):
    """VERSION is the one version: Chart.yaml's version and appVersion,
    the chart's default image tag, CHANGELOG.md's latest heading and
    `staffer version` agree with it, and scripts/version.sh --check fails,
    naming the file, on a copy where one of them differs."""
    v = open(os.path.join(ROOT, "VERSION")).read().strip()
    c = load_yaml(os.path.join(CHART, "Chart.yaml"))
    assert str(c["version"]) == v, f"Chart.yaml version {c['version']} != VERSION {v}"
    assert str(c["appVersion"]) == v, f"Chart.yaml appVersion {c['appVersion']} != VERSION {v}"
    assert changelog_version() == v, f"CHANGELOG.md's latest heading says {changelog_version()}, VERSION {v}"
    vals = load_yaml(os.path.join(CHART, "values.yaml"))
    assert vals["image"]["tag"] == "", "image.tag must stay empty: the default tag is appVersion (VERSION)"
    r = subprocess.run([os.path.join(ROOT, "scripts", "version.sh"), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, "scripts/version.sh --check: " + r.stderr
    if os.path.exists(STAFFER):
        got = subprocess.run([STAFFER, "version"], capture_output=True, text=True).stdout.split()
        assert got[1] == v or got[1].startswith(v + "-dev"), f"staffer version {got}, VERSION {v}"
    # the check can fail: a copy with each file off by one
    for rel_path, old, new, word in (
            ("charts/staffer/Chart.yaml", f"\nversion: {v}\n", "\nversion: 9.9.9\n", "version"),
            ("charts/staffer/Chart.yaml", f'\nappVersion: "{v}"\n', '\nappVersion: "9.9.9"\n', "appVersion"),
            ("CHANGELOG.md", f"## [Unreleased] — {v}\n", "## [Unreleased] — 9.9.9\n", "CHANGELOG.md")):
        cp = os.path.join(out, "version-check")
        shutil.rmtree(cp, ignore_errors=True)
        for f in ("VERSION", "CHANGELOG.md", "scripts/version.sh", "charts/staffer/Chart.yaml"):
            os.makedirs(os.path.dirname(os.path.join(cp, f)), exist_ok=True)
            shutil.copy(os.path.join(ROOT, f), os.path.join(cp, f))
        text = open(os.path.join(cp, rel_path), encoding="utf-8").read()
        assert old in text, f"{rel_path} has no {old.strip()!r}"
        open(os.path.join(cp, rel_path), "w", encoding="utf-8").write(text.replace(old, new, 1))
        r = subprocess.run([os.path.join(cp, "scripts", "version.sh"), "--check"], capture_output=True, text=True)
        assert r.returncode == 1 and word in r.stderr and "9.9.9" in r.stderr, \
            f"version.sh --check passes with {rel_path} saying 9.9.9: {r.stderr!r}"
        # --set makes them one again, at the new version
        r = subprocess.run([os.path.join(cp, "scripts", "version.sh"), "--set", "7.8.9"], capture_output=True,
                           text=True)
        assert r.returncode == 0, f"version.sh --set 7.8.9: {r.stderr}"
        c2 = load_yaml(os.path.join(cp, "charts", "staffer", "Chart.yaml"))
        assert open(os.path.join(cp, "VERSION")).read() == "7.8.9\n" and c2["version"] == "7.8.9" \
            and c2["appVersion"] == "7.8.9", "version.sh --set did not set VERSION and Chart.yaml"
        assert "## [Unreleased] — 7.8.9\n" in open(os.path.join(cp, "CHANGELOG.md"), encoding="utf-8").read()


def t_no_placeholders():
    """No placeholder for the project's own address: Chart.yaml, SECURITY.md
    and CHANGELOG.md have no example.* host at all; the docs none that
    stands for the project (git.example.com, staffer.example.com, an
    e-mail address).  Example values of the user's own (registry.example.com
    for "your registry") are fine in the docs."""
    bad = []
    for f in ("charts/staffer/Chart.yaml", "SECURITY.md", "CHANGELOG.md", "charts/staffer/README.md"):
        for i, line in enumerate(open(os.path.join(ROOT, f), encoding="utf-8"), 1):
            if re.search(r"\bexample\.(com|org|net)\b", line):
                bad.append(f"{f}:{i}: {line.strip()}")
    for f in sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))) + [os.path.join(ROOT, "README.md")]:
        for i, line in enumerate(open(f, encoding="utf-8"), 1):
            if re.search(r"\b(git|staffer)\.example\.com\b|@[\w.]*example\.com", line):
                bad.append(f"{rel(f)}:{i}: {line.strip()}")
    assert not bad, "placeholder addresses:\n    " + "\n    ".join(bad)


def t_template_functions():
    bad = []
    for path in sorted(glob.glob(os.path.join(CHART, "templates", "**", "*"), recursive=True)):
        if os.path.isdir(path):
            continue
        text = open(path).read()
        for action in re.findall(r"\{\{((?:`[^`]*`|.)*?)\}\}", text, re.S):
            a = action.strip().lstrip("-").rstrip("-").strip()
            if a.startswith("/*"):
                continue
            a = re.sub(r'"(\\.|[^"\\])*"', '""', a)
            a = re.sub(r"`[^`]*`", '""', a)
            a = re.sub(r"'(\\.|[^'\\])'", "0", a)
            for m in re.finditer(r"(?<![\w.$])([A-Za-z_]\w*)", a):
                if m.group(1) not in ALLOWED_FUNCS:
                    bad.append(f"{os.path.basename(path)}: {m.group(1)}")
    assert not bad, "template functions outside the allowed set: " + ", ".join(sorted(set(bad)))


def values_files():
    files = [os.path.join(CHART, "values.yaml"),
             os.path.join(ROOT, "tests", "packaging", "values-full.yaml")]
    files += sorted(glob.glob(os.path.join(CHART, "examples", "*.yaml")))
    return files


def merged_values(*paths):
    v = load_yaml(os.path.join(CHART, "values.yaml")) or {}

    def merge(d, s):
        for k, x in s.items():
            if x is None:
                d.pop(k, None)
            elif isinstance(x, dict) and isinstance(d.get(k), dict):
                merge(d[k], x)
            else:
                d[k] = x
        return d
    for p in paths:
        if isinstance(p, dict):
            merge(v, copy.deepcopy(p))
        elif not p.endswith("values.yaml") or os.path.dirname(p) != CHART:
            merge(v, load_yaml(p) or {})
    return v


def need_jsonschema():
    if jsonschema is None:
        raise AssertionError("python3-jsonschema is not installed (run tests/packaging/run.sh)")


def t_values_schema(path):
    need_jsonschema()
    schema = json.load(open(os.path.join(CHART, "values.schema.json")))
    jsonschema.Draft7Validator.check_schema(schema)
    errs = sorted(jsonschema.Draft7Validator(schema).iter_errors(merged_values(path)),
                  key=lambda e: list(e.path))
    assert not errs, "; ".join(f"{'.'.join(map(str, e.path)) or '(top)'}: {e.message}" for e in errs[:5])


def t_values_schema_rejects():
    need_jsonschema()
    schema = json.load(open(os.path.join(CHART, "values.schema.json")))
    v = jsonschema.Draft7Validator(schema)
    bad = {
        "unknown top-level key": {"replicas": 2},
        "unknown backend key": {"backends": [{"name": "p", "url": "http://p", "timeout": 2}]},
        "bearer without token": {"backends": [{"name": "p", "url": "http://p", "auth": {"type": "bearer"}}]},
        "sigv4 without region": {"backends": [{"name": "p", "url": "http://p", "auth": {"type": "sigv4"}}]},
        "token in a none auth": {"backends": [{"name": "p", "url": "http://p",
                                               "auth": {"type": "none", "tokenFile": "/t"}}]},
        "secret ref without key": {"backends": [{"name": "p", "url": "http://p",
                                                 "auth": {"type": "bearer", "tokenSecret": {"name": "s"}}}]},
        "bad backend name": {"backends": [{"name": "a/b", "url": "http://p"}]},
        "url with query": {"backends": [{"name": "p", "url": "http://p/?x=1"}]},
        "header with newline": {"backends": [{"name": "p", "url": "http://p",
                                              "headers": {"X-A": "a\r\nX-B: b"}}]},
        "timeout out of range": {"backends": [{"name": "p", "url": "http://p", "timeoutSeconds": 0}]},
        "log level": {"logLevel": "verbose"},
        "log format": {"logFormat": "logfmt"},
        "cache TTL": {"cacheTTLSeconds": 301},
        "tls with http://": {"backends": [{"name": "p", "url": "http://p", "tls": {"caFile": "/ca"}}]},
        "serviceMonitor tlsConfig typo": {"metrics": {"serviceMonitor": {"tlsConfig": {"servername": "s"}}}},
        "serviceMonitor scheme": {"metrics": {"serviceMonitor": {"scheme": "HTTPS"}}},
        "commonLabels on a chart label": {"commonLabels": {"app.kubernetes.io/name": "x"}},
        "an unknown alert": {"metrics": {"prometheusRule": {"alerts": {"StafferGone": {"enabled": False}}}}},
        "runbookBaseURL with an anchor": {"metrics": {"prometheusRule": {"runbookBaseURL": "https://d/t.md#x"}}},
        "extraObjects without a kind": {"extraObjects": [{"apiVersion": "v1", "metadata": {"name": "x"}}]},
        "image.registry with a tag": {"image": {"registry": "ghcr.io/org:1.0"}},
        "test CA Secret not a name": {"test": {"caSecretName": "Corp_CA"}},
        "test CA key with a slash": {"test": {"caKey": "certs/ca.crt"}},
        # the API server refuses these (a review rendered them)
        "readiness terminationGracePeriodSeconds":
            {"readinessProbe": {"terminationGracePeriodSeconds": 5}},
        "liveness successThreshold 2": {"livenessProbe": {"successThreshold": 2}},
        "strategy type": {"strategy": {"type": "BlueGreen"}},
    }
    accepted = [k for k, over in bad.items() if not list(v.iter_errors(merged_values(over)))]
    assert not accepted, "values.schema.json accepts: " + ", ".join(accepted)


def t_values_comments():
    text = open(os.path.join(CHART, "values.yaml")).read()
    m = re.search(r"((?:#.*\n)+)replicaCount:\s*1\s*\n", text)
    assert m, "replicaCount: 1 with a comment above it"
    assert "currentReplicasQuery" in m.group(1), "the replicaCount comment should say why (currentReplicasQuery)"
    v = load_yaml(os.path.join(CHART, "values.yaml"))
    assert v["port"] == 9090 and v["service"]["port"] == 9090
    assert v["terminationGracePeriodSeconds"] > v["graceSeconds"]


# ---------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------

class Renderer:
    def __init__(self, out):
        self.out = out
        self.bin = os.path.join(out, "render")
        self.tmp = tempfile.mkdtemp(prefix="render-", dir=out)
        self.chart_json = os.path.join(self.tmp, "Chart.json")
        self.n = 0

    def build(self):
        if not shutil.which("go"):
            raise AssertionError("go is not installed (run tests/packaging/run.sh)")
        src = os.path.join(ROOT, "tests", "packaging", "render.go")
        r = subprocess.run(["go", "build", "-o", self.bin, src], capture_output=True, text=True,
                           cwd=self.out)
        assert r.returncode == 0, "go build render.go: " + r.stderr
        json.dump(load_yaml(os.path.join(CHART, "Chart.yaml")), open(self.chart_json, "w"))

    def render(self, values, release="staffer", namespace="keda", sets=(), chart=CHART):
        """values: list of YAML paths or dicts, layered on the chart's
        values.yaml; sets: `key=value` strings, as helm --set (int64
        numbers); chart: another chart directory (an unpacked package).
        Returns (rc, manifests text, stderr, notes text)."""
        self.n += 1
        chart_json = self.chart_json
        if chart != CHART:
            chart_json = os.path.join(self.tmp, f"chart{self.n}.json")
            json.dump(load_yaml(os.path.join(chart, "Chart.yaml")), open(chart_json, "w"))
        files = [os.path.join(self.tmp, f"v{self.n}-0.json")]
        json.dump(load_yaml(os.path.join(chart, "values.yaml")), open(files[0], "w"))
        for i, v in enumerate(values, 1):
            f = os.path.join(self.tmp, f"v{self.n}-{i}.json")
            json.dump(v if isinstance(v, dict) else (load_yaml(v) or {}), open(f, "w"))
            files.append(f)
        notes = os.path.join(self.tmp, f"notes{self.n}.txt")
        cmd = [self.bin, "-chart", chart, "-chart-json", chart_json,
               "-release", release, "-namespace", namespace, "-notes", notes]
        for f in files:
            cmd += ["-values", f]
        for kv in sets:
            cmd += ["-set", kv]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        nt = open(notes).read() if os.path.exists(notes) else ""
        return r.returncode, r.stdout, r.stderr, nt


def docs_of(text):
    return [d for d in yaml.safe_load_all(text) if d is not None]


def by_kind(docs):
    out = {}
    for d in docs:
        out.setdefault(d["kind"], []).append(d)
    return out


CONFIG_TOP = {"defaultBackend", "cacheTTLSeconds", "maxBodyBytes", "maxStates",
              "maxStatesPerNamespace", "maxStatesPerCaller", "clients", "backends"}
CONFIG_BACKEND = {"name", "url", "timeoutSeconds", "auth", "headers", "tls", "namespaces",
                  "maxConnections", "maxConnectionsPerNamespace", "maxConnectionsPerCaller",
                  "compression", "rangeSettleSeconds"}
CONFIG_AUTH = {"none": set(), "bearer": {"tokenFile"}, "basic": {"usernameFile", "passwordFile"},
               "sigv4": {"region"}}
CONFIG_TLS = {"caFile", "certFile", "keyFile"}


def is_num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def validate_config(cfg):
    """docs/config.md, field by field.  Returns the file paths it names."""
    assert isinstance(cfg, dict), "config.json is not an object"
    assert set(cfg) <= CONFIG_TOP, f"unknown top-level fields {set(cfg) - CONFIG_TOP}"
    b = cfg.get("backends")
    assert isinstance(b, list) and 1 <= len(b) <= 64, "backends: 1 to 64 entries"
    if "cacheTTLSeconds" in cfg:
        assert is_num(cfg["cacheTTLSeconds"]) and 0 <= cfg["cacheTTLSeconds"] <= 300
    if "maxBodyBytes" in cfg:
        m = cfg["maxBodyBytes"]
        assert is_num(m) and m == int(m) and 1024 <= m <= 67108864, f"maxBodyBytes {m}"
    for i, cl in enumerate(cfg.get("clients", [])):
        ids = set(cl) & {"uri", "dns", "cn"}
        assert len(ids) == 1 and set(cl) <= {"uri", "dns", "cn", "namespaces"}, \
            f"clients[{i}]: exactly one of uri, dns, cn (and namespaces): {cl}"
        v = cl[ids.pop()]
        assert isinstance(v, str) and re.match(r"^[!-~]{1,1024}$", v), f"clients[{i}] {v!r}"
    names, files = [], []
    for i, be in enumerate(b):
        where = f"backends[{i}]"
        assert isinstance(be, dict) and set(be) <= CONFIG_BACKEND, f"{where}: unknown fields {set(be) - CONFIG_BACKEND}"
        assert re.match(r"^[A-Za-z0-9_.-]{1,63}$", be.get("name", "")), f"{where}.name {be.get('name')!r}"
        names.append(be["name"])
        url = be.get("url", "")
        assert re.match(r"^https?://[^\s?#]+$", url) and url.isascii(), f"{where}.url {url!r}"
        if "timeoutSeconds" in be:
            assert is_num(be["timeoutSeconds"]) and 0.1 <= be["timeoutSeconds"] <= 60
        if "namespaces" in be:
            ns = be["namespaces"]
            assert isinstance(ns, list) and 1 <= len(ns) <= 256 and all(
                isinstance(n, str) and re.match(r"^[a-z0-9*-]{1,63}$", n) for n in ns), \
                f"{where}.namespaces {ns!r}"
        for k in ("maxConnections", "maxConnectionsPerNamespace", "maxConnectionsPerCaller"):
            if k in be:
                assert is_num(be[k]) and be[k] == int(be[k]) and 1 <= be[k] <= 256, f"{where}.{k}"
        if "maxConnectionsPerNamespace" in be:
            assert be["maxConnectionsPerNamespace"] <= be.get("maxConnections", 16), \
                f"{where}.maxConnectionsPerNamespace > maxConnections"
        if "compression" in be:
            assert be["compression"] in ("auto", "always", "never"), f"{where}.compression"
        if "rangeSettleSeconds" in be:
            assert is_num(be["rangeSettleSeconds"]) and \
                1 <= be["rangeSettleSeconds"] <= 86400, f"{where}.rangeSettleSeconds"
        auth = be.get("auth", {"type": "none"})
        t = auth.get("type")
        assert t in CONFIG_AUTH, f"{where}.auth.type {t!r}"
        assert set(auth) - {"type"} == CONFIG_AUTH[t], f"{where}.auth: {t} takes exactly {CONFIG_AUTH[t]}"
        for k in CONFIG_AUTH[t]:
            if k.endswith("File"):
                assert isinstance(auth[k], str) and auth[k].startswith("/"), f"{where}.auth.{k}"
                files.append((f"{where}.auth.{k}", auth[k]))
        if t == "sigv4":
            assert re.match(r"^[a-z0-9-]{1,32}$", auth["region"]), f"{where}.auth.region"
        h = be.get("headers", {})
        assert isinstance(h, dict) and len(h) <= 16
        for k, v in h.items():
            assert re.match(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$", k), f"{where}.headers name {k!r}"
            assert isinstance(v, str) and 1 <= len(v) <= 4096 and not re.search(r"[\x00-\x08\x0a-\x1f\x7f]", v)
            assert not (k.lower() == "authorization" and t != "none"), f"{where}: Authorization header with auth {t}"
        if "tls" in be:
            tls = be["tls"]
            assert url.startswith("https://"), f"{where}.tls needs an https:// url"
            assert set(tls) <= CONFIG_TLS, f"{where}.tls: unknown fields"
            assert "keyFile" not in tls or "certFile" in tls, f"{where}.tls.keyFile needs certFile"
            for k, p in tls.items():
                assert isinstance(p, str) and p.startswith("/")
                files.append((f"{where}.tls.{k}", p))
    assert len(set(names)) == len(names), "backend names are not unique"
    if "defaultBackend" in cfg:
        assert cfg["defaultBackend"] in names, f"defaultBackend {cfg['defaultBackend']!r} is not a backend"
    else:
        assert len(names) == 1, "defaultBackend is required with several backends"
    # Credentials never inline: no field holds a token or password value.
    flat = json.dumps(cfg)
    for bad in ('"token"', '"password"', '"secret"', '"username"'):
        assert bad not in flat, f"config.json has an inline credential field {bad}"
    return files


def volume_files(vol):
    """(kind, set of item paths or None for 'any file')."""
    if "projected" in vol:
        paths = set()
        for s in vol["projected"].get("sources", []):
            for k in ("secret", "configMap"):
                if k in s:
                    if "items" not in s[k]:
                        return None
                    paths.update(it["path"] for it in s[k]["items"])
            if "serviceAccountToken" in s:
                paths.add(s["serviceAccountToken"]["path"])
        return paths
    for k in ("secret", "configMap"):
        if k in vol:
            if "items" not in vol[k]:
                return None
            return {it["path"] for it in vol[k]["items"]}
    return None


IMAGE_PATHS = ("/etc/ssl/",)  # provided by the image (ca-certificates)


class Rendered:
    def __init__(self, text, release, namespace):
        self.docs = docs_of(text)
        self.kinds = by_kind(self.docs)
        self.release, self.namespace = release, namespace

    def one(self, kind):
        assert len(self.kinds.get(kind, [])) == 1, f"expected one {kind}, got {len(self.kinds.get(kind, []))}"
        return self.kinds[kind][0]


def check_rendered(r, values, configcheck=None):
    """All the structural checks on one render."""
    met = values["metrics"]
    # objects that may live in another namespace (the monitoring stack's)
    elsewhere = {"ServiceMonitor": met["serviceMonitor"]["namespace"],
                 "PodMonitor": met["podMonitor"]["namespace"],
                 "PrometheusRule": met["prometheusRule"]["namespace"]}
    # extraObjects come as given (templated): kind and name, nothing else
    extra = [(o["kind"], o["metadata"]["name"]) for o in values.get("extraObjects") or []]
    got_extra = [d for d in r.docs if (d.get("kind"), d["metadata"]["name"].replace(r.release, "{{ .Release.Name }}"))
                 in extra]
    assert len(got_extra) == len(extra), f"extraObjects: {len(got_extra)} of {len(extra)} rendered"
    assert all("{{" not in json.dumps(d) for d in got_extra), "extraObjects: a template left unrendered"
    common = values.get("commonLabels") or {}
    for d in r.docs:
        assert d.get("apiVersion") and d.get("kind"), "a document without apiVersion/kind"
        if any(d is x for x in got_extra):
            continue
        labels = d["metadata"].get("labels") or {}
        for k, v in common.items():
            assert labels.get(k) == v, f"{d['kind']} {d['metadata']['name']}: commonLabels {k} missing"
        want_ns = elsewhere.get(d["kind"]) or r.namespace
        if d["kind"] == "ConfigMap" and d["metadata"]["name"].endswith("-dashboard"):
            want_ns = values["dashboards"]["namespace"] or r.namespace
        assert d["metadata"].get("namespace") == want_ns, \
            f"{d['kind']} {d['metadata']['name']} in {d['metadata'].get('namespace')}, want {want_ns}"
        assert re.match(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", d["metadata"]["name"]), d["metadata"]["name"]
    expected = {"Deployment", "Service", "ConfigMap"} | {k for k, _ in extra}
    if values["serviceAccount"]["create"]:
        expected.add("ServiceAccount")
    # a PDB only with more than one replica (with one it blocks drains)
    if values["podDisruptionBudget"]["enabled"] and values["replicaCount"] > 1:
        expected.add("PodDisruptionBudget")
    for k, v in (("ServiceMonitor", met["serviceMonitor"]), ("PodMonitor", met["podMonitor"])):
        if v["enabled"]:
            expected.add(k)
    alerts_on = {a for a in ALERTS if met["prometheusRule"]["alerts"][a]["enabled"]}
    if met["prometheusRule"]["enabled"] and alerts_on:
        expected.add("PrometheusRule")
    tls = values["tls"]
    cm = tls["certManager"]
    client_secret = values["test"]["clientSecretName"] or \
        (cm["enabled"] and tls["clientAuth"] and cm["clientSecretName"])
    tls_secret = tls["secretName"] or (cm["enabled"] and f"{r.one('Deployment')['metadata']['name']}-grpc-tls")
    if values["test"]["enabled"] and (not tls["clientAuth"] or client_secret):
        expected.add("Pod")
    if tls["enabled"] and cm["enabled"]:
        expected.add("Certificate")
        if not cm["issuerRef"].get("name"):
            expected.add("Issuer")
    if values["networkPolicy"]["enabled"]:
        expected.add("NetworkPolicy")
    assert set(r.kinds) == expected, f"kinds {sorted(r.kinds)}, expected {sorted(expected)}"
    if "Certificate" in expected:
        check_certificates(r, values, tls_secret)
    if "NetworkPolicy" in expected:
        check_network_policy(r, values)

    dep = r.one("Deployment")
    cms = {c["metadata"]["name"]: c for c in r.kinds["ConfigMap"]}
    cm = cms.pop(dep["metadata"]["name"])
    if values["dashboards"]["enabled"]:
        check_dashboard_cm(cms.pop(dep["metadata"]["name"] + "-dashboard"), values)
    assert not cms, f"unexpected ConfigMaps {sorted(cms)}"
    svc = r.one("Service")
    port = values["port"]
    spec = dep["spec"]
    pod = spec["template"]["spec"]
    assert spec["replicas"] == values["replicaCount"]
    sel = spec["selector"]["matchLabels"]
    labels = spec["template"]["metadata"]["labels"]
    assert all(labels.get(k) == v for k, v in sel.items()), "pod labels do not match the selector"
    want_pod = {**sel, **common, **(values.get("podLabels") or {})}
    assert labels == want_pod, f"pod labels {labels}, want selector + commonLabels + podLabels {want_pod}"
    c = [x for x in pod["containers"] if x["name"] == "staffer"]
    assert len(c) == 1, "no container named staffer"
    c = c[0]

    # args: the image's entrypoint is `staffer serve`
    a = c["args"]
    flags = {a[i]: a[i + 1] for i in range(0, len(a) - 1, 2)}
    assert len(a) % 2 == 0 and all(x.startswith("--") for x in a[::2]), f"args {a}"
    assert flags.get("--config") == "/etc/staffer/config.json", "--config /etc/staffer/config.json"
    assert flags.get("--listen") == f":{port}", f"--listen :{port}"
    assert flags.get("--log-level") == values["logLevel"]
    assert flags.get("--log-format") == values["logFormat"]
    assert float(flags.get("--grace-seconds")) == values["graceSeconds"]
    assert pod["terminationGracePeriodSeconds"] > float(flags["--grace-seconds"]), \
        "terminationGracePeriodSeconds must exceed --grace-seconds"
    assert "command" not in c, "keep the image's ENTRYPOINT (staffer serve)"
    ports = c["ports"]
    mport = (values.get("metrics") or {}).get("port", 0)
    want = [{"name": "grpc", "containerPort": port, "protocol": "TCP"}]
    if mport:
        want.append({"name": "metrics", "containerPort": mport, "protocol": "TCP"})
        assert flags.get("--metrics-listen") == f":{mport}", f"--metrics-listen :{mport}"
        assert mport != port, "metrics.port must differ from port"
        ann = spec["template"]["metadata"].get("annotations") or {}
        user = values.get("podAnnotations") or {}
        if "prometheus.io/scrape" in user:      # the user's wins, alone
            assert ann.get("prometheus.io/scrape") == user["prometheus.io/scrape"], ann
            assert ("prometheus.io/port" in ann) == ("prometheus.io/port" in user), ann
        elif values["metrics"].get("scrapeAnnotations"):
            assert ann.get("prometheus.io/scrape") == "true" and \
                ann.get("prometheus.io/port") == str(mport) and \
                ann.get("prometheus.io/path") == "/metrics", f"scrape annotations {ann}"
        else:
            assert "prometheus.io/scrape" not in ann, ann
    else:
        assert "--metrics-listen" not in flags, "metrics.port 0 must turn /metrics off"
    assert ports == want, f"ports {ports}"

    # probes
    tls = values["tls"]
    for p in ("readinessProbe", "livenessProbe"):
        pr = c[p]
        if tls["enabled"]:
            assert pr.get("tcpSocket", {}).get("port") in ("grpc", port), f"{p}: TCP probe with TLS"
        else:
            assert pr.get("grpc", {}).get("port") == port, f"{p} is not a gRPC probe on {port}"
        assert pr.get("periodSeconds", 10) > 0

    # TLS
    mounts = {m["name"]: m for m in c["volumeMounts"]}
    vols = {v["name"]: v for v in pod["volumes"]}
    for m in mounts:
        assert m in vols, f"volumeMount {m} has no volume"
    if tls["enabled"]:
        tdir = mounts["tls"]["mountPath"]
        assert vols["tls"]["secret"]["secretName"] == tls_secret
        assert flags.get("--tls-cert") == f"{tdir}/tls.crt" and flags.get("--tls-key") == f"{tdir}/tls.key"
        assert ("--tls-client-ca" in flags) == bool(tls["clientAuth"]), "--tls-client-ca iff clientAuth"
        if tls["clientAuth"]:
            assert flags["--tls-client-ca"] == f"{tdir}/ca.crt"
    else:
        assert not any(f.startswith("--tls") for f in flags), "TLS flags without tls.enabled"

    # security context
    psc, sc = pod.get("securityContext", {}), c.get("securityContext", {})
    assert psc.get("runAsNonRoot") is True and sc.get("runAsNonRoot") is True, "runAsNonRoot"
    assert sc.get("readOnlyRootFilesystem") is True, "readOnlyRootFilesystem"
    assert sc.get("allowPrivilegeEscalation") is False, "allowPrivilegeEscalation false"
    assert sc.get("capabilities", {}).get("drop") == ["ALL"], "drop ALL capabilities"
    assert psc.get("seccompProfile", {}).get("type") == "RuntimeDefault", "seccomp RuntimeDefault"
    assert (sc.get("runAsUser") or psc.get("runAsUser")) == 65532
    assert pod.get("automountServiceAccountToken") is False or values["automountServiceAccountToken"]

    # the request budget: from the memory limit (Downward API), or given
    env = {e["name"]: e for e in c.get("env", [])}
    if values["resources"].get("limits", {}).get("memory"):
        ref = env["STAFFER_MEMORY_LIMIT"]["valueFrom"]["resourceFieldRef"]
        assert ref == {"containerName": c["name"], "resource": "limits.memory"}, ref
    if values.get("requestBudget"):
        assert env["STAFFER_REQUEST_BUDGET"]["value"] == values["requestBudget"]

    # config.json
    raw = cm["data"]["config.json"]
    cfg = json.loads(raw)
    files = validate_config(cfg)
    ann = spec["template"]["metadata"]["annotations"]["checksum/config"]
    assert ann == hashlib.sha256(raw.rstrip("\n").encode()).hexdigest(), \
        "checksum/config is not the sha256 of config.json"
    cfg_mount = mounts["config"]
    assert cfg_mount["mountPath"] == "/etc/staffer" and vols["config"]["configMap"]["name"] == cm["metadata"]["name"]
    for where, path in files:
        best = None
        for m in c["volumeMounts"]:
            mp = m["mountPath"].rstrip("/") + "/"
            if path.startswith(mp) and (best is None or len(mp) > len(best[0])):
                best = (mp, m)
        if best is None:
            assert path.startswith(IMAGE_PATHS), f"{where} {path} is not in any mounted volume"
            continue
        rest = path[len(best[0]):]
        items = volume_files(vols[best[1]["name"]])
        assert items is None or rest in items, f"{where} {path}: volume {best[1]['name']} has no file {rest!r}"
    # mounts must not nest inside one another (a read-only ConfigMap volume
    # cannot hold a mount point)
    mps = sorted(m["mountPath"].rstrip("/") for m in c["volumeMounts"])
    for i, x in enumerate(mps):
        for y in mps[i + 1:]:
            assert not y.startswith(x + "/"), f"mount {y} is nested in {x}"

    if configcheck:
        with tempfile.TemporaryDirectory(dir=os.path.dirname(configcheck)) as td:
            f = os.path.join(td, "config.json")
            open(f, "w").write(raw)
            rr = subprocess.run([configcheck, f], capture_output=True, text=True)
        assert rr.returncode == 0, "staffer's config loader refuses config.json: " + rr.stderr.strip()

    # Service
    s = svc["spec"]
    assert s["type"] == "ClusterIP", "service type ClusterIP"
    assert svc["metadata"]["name"] == dep["metadata"]["name"]
    want_ports = [{"name": "grpc", "port": values["service"]["port"], "targetPort": "grpc",
                   "protocol": "TCP", "appProtocol": "grpc"}]
    if mport:
        want_ports.append({"name": "metrics", "port": mport, "targetPort": "metrics",
                           "protocol": "TCP", "appProtocol": "http"})
    assert s["ports"] == want_ports, f"service ports {s['ports']}"
    assert s["selector"] == sel, "service selector differs from the deployment's"
    if values["service"].get("clusterIP"):
        assert s["clusterIP"] == values["service"]["clusterIP"]

    # ServiceAccount
    if values["serviceAccount"]["create"]:
        sa = r.one("ServiceAccount")
        assert pod["serviceAccountName"] == sa["metadata"]["name"]
        assert (sa["metadata"].get("annotations") or {}) == values["serviceAccount"]["annotations"]

    # PDB
    if "PodDisruptionBudget" in expected:
        pdb = r.one("PodDisruptionBudget")
        assert pdb["apiVersion"] == "policy/v1"
        assert pdb["spec"]["selector"]["matchLabels"] == sel
        assert ("maxUnavailable" in pdb["spec"]) != ("minAvailable" in pdb["spec"])

    # ServiceMonitor / PodMonitor: the Service's or the pods' metrics port
    for kind, key, eps in (("ServiceMonitor", "serviceMonitor", "endpoints"),
                           ("PodMonitor", "podMonitor", "podMetricsEndpoints")):
        v = met[key]
        if not v["enabled"]:
            continue
        mon = r.one(kind)
        assert mon["apiVersion"] == "monitoring.coreos.com/v1"
        sp = mon["spec"]
        assert sp["selector"]["matchLabels"] == sel, f"{kind} selector"
        assert sp["namespaceSelector"]["matchNames"] == [r.namespace]
        ep = sp[eps]
        assert len(ep) == 1 and ep[0]["port"] == "metrics" and ep[0]["path"] == "/metrics", ep
        assert ep[0]["interval"] == v["interval"] and ep[0]["scrapeTimeout"] == v["scrapeTimeout"]
        for rk in ("relabelings", "metricRelabelings"):
            assert ep[0].get(rk, []) == v[rk], f"{kind} {rk}"
        for lk, lv in v["labels"].items():
            assert mon["metadata"]["labels"].get(lk) == lv, f"{kind} label {lk}"
        if kind == "ServiceMonitor":
            assert sp.get("jobLabel", "") == v["jobLabel"], f"jobLabel {sp.get('jobLabel')}"
            assert sp.get("targetLabels", []) == v["targetLabels"], f"targetLabels {sp.get('targetLabels')}"
            assert ep[0]["scheme"] == v["scheme"], f"scheme {ep[0].get('scheme')}"
            assert ep[0].get("tlsConfig", {}) == v["tlsConfig"], f"tlsConfig {ep[0].get('tlsConfig')}"
            if v["jobLabel"]:  # the job label is the Service's label of that name
                assert v["jobLabel"] in svc["metadata"]["labels"], f"the Service has no label {v['jobLabel']}"
        assert any(p["name"] == "metrics" for p in c["ports"]), f"{kind}: the pod has no metrics port"
        if kind == "ServiceMonitor":
            assert all(svc["metadata"]["labels"].get(k) == x for k, x in sel.items()), \
                "the ServiceMonitor's selector does not match the Service's labels"
    if "PrometheusRule" in expected:
        pr = r.one("PrometheusRule")
        rules = [x for g in pr["spec"]["groups"] for x in g["rules"]]
        names = {x["alert"] for x in rules}
        assert names == alerts_on, f"alerts {sorted(names)}, enabled {sorted(alerts_on)}"
        base = met["prometheusRule"]["runbookBaseURL"]
        anchors = md_anchors(os.path.join(ROOT, "docs", "troubleshooting.md"))
        for x in rules:
            assert x["alert"].lower() in anchors, \
                f"{x['alert']}: docs/troubleshooting.md has no section #{x['alert'].lower()} for its runbook_url"
            want_rb = f"{base}#{x['alert'].lower()}" if base else None
            assert x["annotations"].get("runbook_url") == want_rb, \
                f"{x['alert']}: runbook_url {x['annotations'].get('runbook_url')}, want {want_rb}"
        for x in rules:
            for lk, lv in met["prometheusRule"]["alertLabels"].items():
                assert x["labels"].get(lk) == lv, f"{x['alert']}: alert label {lk}"
            assert x["labels"]["severity"] in met["prometheusRule"]["severity"].values()
            assert x["annotations"]["summary"] and x["annotations"]["description"]

    # helm test: staffer health against the address KEDA dials
    if "Pod" in expected:
        t = r.one("Pod")
        assert t["metadata"]["annotations"]["helm.sh/hook"] == "test"
        tc = t["spec"]["containers"][0]
        assert tc["image"] == c["image"] and tc["command"] == ["/usr/local/bin/staffer", "health"]
        addr = f"{svc['metadata']['name']}.{r.namespace}.svc:{values['service']['port']}"
        assert tc["args"][-1] == addr, f"helm test asks {tc['args'][-1]}, KEDA dials {addr}"
        assert t["spec"]["restartPolicy"] == "Never"
        # a bare pod: no selector of the release may take it for a replica
        tl = t["metadata"]["labels"]

        def selects(sel):
            return all(tl.get(a) == b for a, b in sel.items())
        sels = [("Deployment", dep["spec"]["selector"]["matchLabels"])] + [
            (k, o["spec"]["selector"]["matchLabels"]) for k in ("PodDisruptionBudget", "PodMonitor")
            if k in expected for o in [r.one(k)]]
        sels.append(("Service", svc["spec"]["selector"]))
        for k, sel in sels:
            assert not selects(sel), \
                f"the helm test pod's labels {tl} match the {k}'s selector {sel}"
        if "NetworkPolicy" in expected:
            peers = [p["podSelector"]["matchLabels"] for i in r.one("NetworkPolicy")["spec"]["ingress"]
                     if any(x["port"] == "grpc" for x in i["ports"]) for p in i["from"]
                     if "namespaceSelector" not in p]
            assert any(selects(sel) for sel in peers), \
                f"the NetworkPolicy does not let the helm test pod ({tl}) reach the gRPC port: {peers}"
        targs = tc["args"]
        assert ("--tls-ca" in targs) == bool(tls["enabled"])
        assert ("--tls-cert" in targs) == bool(tls["enabled"] and tls["clientAuth"])
        tm = {m["name"]: m for m in tc.get("volumeMounts", [])}
        tv = {v["name"]: v for v in t["spec"].get("volumes", [])}
        for i, a in enumerate(targs):
            if a in ("--tls-ca", "--tls-cert", "--tls-key"):
                path = targs[i + 1]
                m = [x for x in tm.values() if path.startswith(x["mountPath"].rstrip("/") + "/")]
                assert m and m[0]["name"] in tv, f"helm test {a} {path} is not mounted"
        if tls["enabled"]:
            # the CA the test verifies the server with: its own Secret
            # and key when given, else the TLS Secret's ca.crt
            tvs = tv["tls"]["secret"]
            want = (values["test"].get("caSecretName") or tls_secret,
                    values["test"].get("caKey") or "ca.crt")
            assert (tvs["secretName"], tvs["items"][0]["key"]) == want, \
                f"helm test reads its CA from {tvs}, want {want}"
            assert tvs["items"][0]["path"] == "ca.crt"

    # pass-through values
    for k in ("nodeSelector", "tolerations", "affinity", "topologySpreadConstraints"):
        if values.get(k):
            assert pod.get(k) == values[k], f"{k} not passed through"
    for k, v in (values.get("podAnnotations") or {}).items():
        assert spec["template"]["metadata"]["annotations"].get(k) == v, f"podAnnotations {k}"
    if values.get("resources"):
        assert c["resources"] == values["resources"]
    img = values["image"]
    repo = (img["registry"].rstrip("/") + "/" if img.get("registry") else "") + img["repository"]
    app = str(load_yaml(os.path.join(CHART, "Chart.yaml"))["appVersion"])
    want = f"{repo}@{img['digest']}" if img.get("digest") else f"{repo}:{img.get('tag') or app}"
    assert c["image"] == want, f"image {c['image']}, want {want}"
    return cfg


ALERTS = ["StafferDown", "StafferErroring", "StafferBadMetadata", "StafferTargetCapped",
          "StafferBackendErrors", "StafferStaleHold", "StafferForecastFarAboveMeasured",
          "StafferSlowAnswers"]


def check_certificates(r, values, tls_secret):
    """cert-manager: the server certificate covers the names KEDA dials and
    lands in the Secret the pod mounts; with clientAuth KEDA's client
    certificate; every issuerRef resolves."""
    cm = values["tls"]["certManager"]
    svc = r.one("Service")["metadata"]["name"]
    ns = r.namespace
    certs = {c["metadata"]["name"]: c["spec"] for c in r.kinds["Certificate"]}
    issuers = {i["metadata"]["name"]: i["spec"] for i in r.kinds.get("Issuer", [])}
    server = [c for c in certs.values() if "server auth" in c.get("usages", [])]
    assert len(server) == 1, f"one server certificate, got {sorted(certs)}"
    server = server[0]
    assert server["secretName"] == tls_secret, (server["secretName"], tls_secret)
    assert f"{svc}.{ns}.svc" in server["dnsNames"], server["dnsNames"]
    assert f"{svc}.{ns}.svc.{values['clusterDomain'].rstrip('.')}" in server["dnsNames"], \
        f"clusterDomain: {server['dnsNames']}"
    client = [c for c in certs.values() if "client auth" in c.get("usages", [])]
    assert len(client) == (1 if values["tls"]["clientAuth"] else 0), "KEDA's client certificate iff clientAuth"
    if client:
        assert client[0]["secretName"] == cm["clientSecretName"]
        # KEDA's identity is its service account's SPIFFE ID, and the
        # config lets only it call (docs/security.md)
        k = values["clientIdentities"]["keda"]
        spiffe = f"spiffe://{k['trustDomain']}/ns/{ns}/sa/{k['serviceAccount']}"
        assert client[0].get("uris") == [spiffe], client[0].get("uris")
        cfg = json.loads([d for d in r.kinds["ConfigMap"]
                          if "config.json" in d.get("data", {})][0]["data"]["config.json"])
        assert cfg.get("clients", [None])[0] == dict(
            {"uri": spiffe}, **({"namespaces": k["namespaces"]} if k["namespaces"] else {})), \
            cfg.get("clients")
    for name, c in certs.items():
        ref = c["issuerRef"]
        if cm["issuerRef"].get("name"):
            assert ref["name"] == cm["issuerRef"]["name"], f"{name}: issuerRef {ref}"
        else:
            assert ref["kind"] == "Issuer" and ref["name"] in issuers, f"{name}: issuerRef {ref} not rendered"
    if not cm["issuerRef"].get("name"):
        ca = [c for c in certs.values() if c.get("isCA")]
        assert len(ca) == 1, "the chart's own CA certificate"
        assert any(i.get("ca", {}).get("secretName") == ca[0]["secretName"] for i in issuers.values()), \
            "a CA Issuer on the CA certificate's Secret"


def check_network_policy(r, values):
    """Only KEDA's operator (and the helm test pod) on the gRPC port."""
    np = r.one("NetworkPolicy")["spec"]
    dep = r.one("Deployment")
    assert np["podSelector"]["matchLabels"] == dep["spec"]["selector"]["matchLabels"]
    assert np["policyTypes"] == ["Ingress"]
    grpc = [i for i in np["ingress"] if any(p["port"] == "grpc" for p in i["ports"])]
    assert len(grpc) == 1, np["ingress"]
    peers = grpc[0]["from"]
    keda = values["networkPolicy"]["keda"]
    assert peers[0] == {"namespaceSelector": keda["namespaceSelector"], "podSelector": keda["podSelector"]}, peers[0]
    assert all(p.get("podSelector") for p in peers), "every peer of the gRPC port is a pod selector"


def check_dashboard_cm(cm, values):
    d = values["dashboards"]
    assert cm["metadata"]["labels"].get(d["label"]) == d["labelValue"], "the sidecar's label"
    for k, v in d["annotations"].items():
        assert cm["metadata"]["annotations"].get(k) == v
    assert json.loads(cm["data"]["staffer.json"]) == json.load(open(DASHBOARD)), \
        "the ConfigMap's dashboard differs from charts/staffer/dashboards/staffer.json"


# ---------------------------------------------------------------------------
# Monitoring: alerts with promtool, dashboard queries against staffer's names
# ---------------------------------------------------------------------------

def exported_names(out):
    """The metric families staffer's /metrics declares (# TYPE lines), from
    a real `staffer serve`, with the _bucket/_sum/_count of histograms."""
    if not os.path.exists(STAFFER):
        raise Skip("build/staffer not built (make)")
    import time
    import urllib.request
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    from freeport import free_port
    ports = [free_port(), free_port()]
    log = open(os.path.join(out, "names-serve.log"), "w")
    p = subprocess.Popen([STAFFER, "serve", "--prometheus", "http://127.0.0.1:9",
                          "--listen", f"127.0.0.1:{ports[0]}",
                          "--metrics-listen", f"127.0.0.1:{ports[1]}"],
                         stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    try:
        body = None
        for _ in range(100):
            try:
                body = urllib.request.urlopen(f"http://127.0.0.1:{ports[1]}/metrics", timeout=2).read()
                break
            except OSError:
                time.sleep(0.05)
        assert body, "staffer serve did not answer /metrics"
    finally:
        p.terminate()
        p.wait(15)
    names = set()
    for line in body.decode().splitlines():
        m = re.match(r"^# TYPE (\S+) (\S+)$", line)
        if m:
            names.add(m.group(1))
            if m.group(2) == "histogram":
                names.update(m.group(1) + x for x in ("_bucket", "_sum", "_count"))
    return names


# Series a dashboard or alert may read that staffer does not export.
FOREIGN = {"up", "kube_horizontalpodautoscaler_status_current_replicas",
           "kube_horizontalpodautoscaler_spec_max_replicas"}
PROMQL_WORDS = {"sum", "max", "min", "avg", "count", "by", "without", "rate", "increase", "or",
                "and", "unless", "vector", "histogram_quantile", "on", "ignoring", "bool",
                "label_values", "le"}


def metric_names(expr):
    """Names in a PromQL text that stand for series (not functions,
    keywords, label names, strings or durations)."""
    e = re.sub(r'"(\\.|[^"\\])*"', '""', expr)
    e = re.sub(r"\{[^{}]*\}", "{}", e)          # label matchers
    e = re.sub(r"\[[^\]]*\]", "[]", e)          # ranges
    e = re.sub(r"\b(by|without|on|ignoring)\s*\([^)]*\)", "", e)  # groupings
    out = set()
    for m in re.finditer(r"(?<![\w$.])([a-zA-Z_:][\w:]*)\s*(\(?)", e):
        if m.group(2) or m.group(1) in PROMQL_WORDS:
            continue
        out.add(m.group(1))
    return out


def dashboard_exprs():
    d = json.load(open(DASHBOARD))
    exprs = []

    def walk(ps):
        for p in ps:
            for t in p.get("targets", []):
                exprs.append((p["title"], t["expr"]))
            walk(p.get("panels", []))
    walk(d["panels"])
    for v in d["templating"]["list"]:
        q = v.get("query")
        if isinstance(q, dict):
            m = re.match(r"^label_values\((.*),\s*\w+\)$", q["query"])
            assert m, f"variable {v['name']}: {q['query']}"
            exprs.append((f"variable {v['name']}", m.group(1)))
    return exprs


def promql_ok(out, exprs, what):
    """promtool check rules on the expressions as recording rules: PromQL
    that Prometheus 2.42 parses."""
    if not shutil.which("promtool"):
        raise AssertionError("promtool missing (Debian's prometheus package; scripts/deps.sh)")
    rules = {"groups": [{"name": what, "rules": [
        {"record": f"check:{i}", "expr": e} for i, (_, e) in enumerate(exprs)]}]}
    f = os.path.join(out, f"{what}.rules.yaml")
    yaml.safe_dump(rules, open(f, "w"), sort_keys=False)
    r = subprocess.run(["promtool", "check", "rules", f], capture_output=True, text=True)
    assert r.returncode == 0, f"promtool check rules: {r.stdout}{r.stderr}"


def t_dashboard(out, names):
    d = json.load(open(DASHBOARD))
    assert d["uid"] and d["title"] and d["panels"], "dashboard: uid, title, panels"
    ids = []

    def walk(ps):
        for p in ps:
            ids.append(p["id"])
            walk(p.get("panels", []))
    walk(d["panels"])
    assert len(ids) == len(set(ids)), "dashboard: panel ids are not unique"
    exprs = dashboard_exprs()
    assert exprs, "dashboard without queries"
    vars_ = {v["name"] for v in d["templating"]["list"]}
    unknown = []
    for title, e in exprs:
        for v in re.findall(r"\$(\w+)", e):
            assert v in vars_ or v.startswith("__"), f"{title}: ${v} is not a dashboard variable"
        for n in metric_names(e):
            if n not in names and n not in FOREIGN:
                unknown.append(f"{title}: {n}")
    assert not unknown, "dashboard queries read metrics staffer does not export: " + "; ".join(unknown)
    # the per-ScaledObject view uses the renamed label, never a bare namespace
    for title, e in exprs:
        if title.startswith("variable "):
            continue
        if "staffer_target" in e or "staffer_signal" in e or "staffer_term" in e:
            assert "scaledobject_namespace" in e, f"{title}: select by scaledobject_namespace"
    concrete = [(t, e.replace("$__rate_interval", "5m").replace("$", "")) for t, e in exprs]
    promql_ok(out, concrete, "dashboard")


def t_rules(R, out, names):
    """The PrometheusRule as rendered: promtool check rules, the metric
    names, and promtool test rules (tests/packaging/rules-test.yaml)."""
    rc, text, err, _ = R.render([{"metrics": {"serviceMonitor": {"enabled": True},
                                              "prometheusRule": {"enabled": True}}}])
    assert rc == 0, err
    pr = by_kind(docs_of(text))["PrometheusRule"][0]
    f = os.path.join(out, "staffer.rules.yaml")
    yaml.safe_dump({"groups": pr["spec"]["groups"]}, open(f, "w"), sort_keys=False)
    r = subprocess.run(["promtool", "check", "rules", f], capture_output=True, text=True)
    assert r.returncode == 0, f"promtool check rules: {r.stdout}{r.stderr}"
    bad = [f"{x['alert']}: {n}" for g in pr["spec"]["groups"] for x in g["rules"]
           for n in metric_names(x["expr"]) if n not in names and n not in FOREIGN]
    assert not bad, "alerts read metrics staffer does not export: " + "; ".join(bad)
    for g in pr["spec"]["groups"]:
        for x in g["rules"]:
            assert 'job="staffer",namespace="keda"' in x["expr"], f"{x['alert']}: selector"
    # promtool compares annotations too: test a copy without them
    bare = copy.deepcopy(pr["spec"]["groups"])
    for g in bare:
        for x in g["rules"]:
            x.pop("annotations", None)
    fb = os.path.join(out, "staffer.rules.bare.yaml")
    yaml.safe_dump({"groups": bare}, open(fb, "w"), sort_keys=False)
    t = os.path.join(out, "rules-test.yaml")
    spec = yaml.safe_load(open(os.path.join(ROOT, "tests", "packaging", "rules-test.yaml")))
    spec["rule_files"] = [fb]
    yaml.safe_dump(spec, open(t, "w"), sort_keys=False)
    r = subprocess.run(["promtool", "test", "rules", t], capture_output=True, text=True)
    assert r.returncode == 0, f"promtool test rules: {r.stdout}{r.stderr}"
    tested = set(re.findall(r"alertname: (\w+)", open(os.path.join(ROOT, "tests", "packaging",
                                                                    "rules-test.yaml")).read()))
    assert tested == set(ALERTS), f"alerts without a promtool test: {set(ALERTS) - tested}"


# ---------------------------------------------------------------------------
# ScaledObjects
# ---------------------------------------------------------------------------

def strict(schema):
    """Reject unknown fields like kubectl's strict field validation: every
    object schema with properties and no additionalProperties gets
    additionalProperties false."""
    s = copy.deepcopy(schema)

    def walk(n):
        if isinstance(n, dict):
            if n.get("type") == "object" and "properties" in n and "additionalProperties" not in n \
                    and not n.get("x-kubernetes-preserve-unknown-fields"):
                n["additionalProperties"] = False
            for v in n.values():
                walk(v)
        elif isinstance(n, list):
            for v in n:
                walk(v)
    walk(s)
    return s


def crd_schema():
    data = open(CRD, "rb").read()
    got = hashlib.sha256(data).hexdigest()
    assert got == CRD_SHA256, (f"{rel(CRD)} changed (sha256 {got}): update "
                               "third_party/keda/README.md and CRD_SHA256 together")
    crd = yaml.safe_load(data)
    for v in crd["spec"]["versions"]:
        if v["name"] == "v1alpha1":
            return strict(v["schema"]["openAPIV3Schema"])
    raise AssertionError("the CRD has no v1alpha1 schema")


def documented_keys():
    p = os.path.join(ROOT, "docs", "metadata.md")
    if not os.path.exists(p):
        return None
    keys = set()
    for line in open(p):
        m = re.match(r"^###\s+(.+?)\s*$", line)
        if m:
            keys.update(k.strip().strip("`") for k in m.group(1).split(","))
    return keys


CREDENTIAL_WORDS = re.compile(r"(token|password|secret|apikey|api_key|bearer|authorization|awsAccessKey|"
                              r"awsSecret|roleArn|serverAddress|url)$", re.I)


def so_docs():
    out = []
    for path in sorted(glob.glob(os.path.join(SO_DIR, "*.yaml"))):
        for i, d in enumerate(docs_of(open(path).read())):
            out.append((path, i, d))
    return out


def t_so_files():
    files = sorted(glob.glob(os.path.join(SO_DIR, "*.yaml")))
    assert files, "no scaledobjects/*.yaml"
    kinds = {}
    for path, i, d in so_docs():
        assert d.get("apiVersion") == "keda.sh/v1alpha1", f"{rel(path)}[{i}]: apiVersion"
        assert d.get("kind") in ("ScaledObject", "TriggerAuthentication", "ClusterTriggerAuthentication"), \
            f"{rel(path)}[{i}]: kind {d.get('kind')}"
        kinds.setdefault(d["kind"], []).append(d)
    sos = kinds.get("ScaledObject", [])
    md = [d["spec"]["triggers"][0]["metadata"] for d in sos]
    types = [d["spec"]["triggers"][0]["type"] for d in sos]
    # the brief's five shapes are all there
    assert any(m.get("slotsPerReplica") == "32" and m.get("staffing", "sqrt") == "sqrt" for m in md), "a sqrt, 32-slot chat example"
    assert any(m.get("workload") == "batch" and "drainSeconds" in m for m in md), "a batch example with drainSeconds"
    assert any(m.get("staffing") == "erlangc" and "targetWaitSeconds" in m and "waitProbability" in m for m in md), "an erlangc example"
    assert any(t == "external-push" and "pushIntervalSeconds" in m for t, m in zip(types, md)), "an external-push example"
    assert any(m.get("backend") == "amp" for m in md), "an AMP (backend: amp) example"


def t_so_schema(path, i, d, schema):
    assert schema is not None, f"{rel(CRD)} could not be read"
    need_jsonschema()
    v = jsonschema.Draft7Validator(schema)
    errs = list(v.iter_errors(d))
    assert not errs, "; ".join(f"{'.'.join(map(str, e.path)) or '(top)'}: {e.message}" for e in errs[:5])
    sp = d["spec"]
    # x-kubernetes-validations: minReplicaCount <= (maxReplicaCount or 100)
    if "minReplicaCount" in sp:
        assert sp["minReplicaCount"] <= sp.get("maxReplicaCount", 100), "minReplicaCount > maxReplicaCount"


def t_so_schema_negative(schema):
    assert schema is not None, f"{rel(CRD)} could not be read"
    need_jsonschema()
    base = next(d for _, _, d in so_docs() if d.get("kind") == "ScaledObject")
    v = jsonschema.Draft7Validator(schema)
    assert not list(v.iter_errors(base))
    muts = {
        "unknown spec field": lambda d: d["spec"].__setitem__("minReplicas", 1),
        "unknown fallback field": lambda d: d["spec"]["fallback"].__setitem__("failureTreshold", 3),
        "fallback behavior": lambda d: d["spec"]["fallback"].__setitem__("behavior", "higher"),
        "number in metadata": lambda d: d["spec"]["triggers"][0]["metadata"].__setitem__("beta", 2),
        "tolerance text": lambda d: d["spec"]["advanced"]["horizontalPodAutoscalerConfig"]["behavior"]
        ["scaleUp"].__setitem__("tolerance", "ten percent"),
        "no triggers": lambda d: d["spec"].__setitem__("triggers", []),
    }
    accepted = []
    for name, mut in muts.items():
        d = copy.deepcopy(base)
        mut(d)
        if not list(v.iter_errors(d)):
            accepted.append(name)
    assert not accepted, "the CRD schema check accepts: " + ", ".join(accepted)


def t_so_conventions(path, i, d, keys):
    sp = d["spec"]
    trig = sp["triggers"]
    assert len(trig) == 1, "one trigger: staffer's number is the whole answer"
    t = trig[0]
    assert t["type"] in ("external", "external-push"), f"trigger type {t['type']}"
    assert t.get("metricType", "AverageValue") == "AverageValue", \
        "metricType must be AverageValue (staffer's target is 1 per replica)"
    m = t["metadata"]
    assert m.get("scalerAddress") == "staffer.keda.svc:9090", f"scalerAddress {m.get('scalerAddress')}"
    assert all(isinstance(v, str) and v != "" for v in m.values()), "every metadata value is a non-empty string"
    cred = [k for k in m if CREDENTIAL_WORDS.search(k) and not k.endswith("Query")]
    assert not cred, f"credential-like keys in metadata: {cred} (credentials live in staffer's config)"
    if keys is not None:
        unknown = [k for k in m if k not in keys]
        assert not unknown, f"keys not in docs/metadata.md: {unknown}"
    assert re.match(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$", m.get("metricName", "staffer")), "metricName"
    # queries: one series each, idle reads as 0, no zero service time
    for k, q in m.items():
        if not k.endswith("Query"):
            continue
        assert re.search(r"\b(sum|max|min|avg|count|quantile)\s*(by\s*\([^)]*\)\s*)?\(", q), f"{k}: aggregate to one series (sum)"
        assert len(q.encode()) <= 4095, f"{k} is longer than 4095 bytes"
    for k in ("arrivalRateQuery", "queueDepthQuery", "shedRateQuery"):
        if k in m:
            q = m[k].strip()
            assert not re.search(r"\bor\s+(on\s*\(\s*\)\s*)?vector\(0\)", q), \
                f"{k}: a bare `or vector(0)` reads 0 when the exporter is gone too; guard it"
            assert re.search(r"\bor\s+\(0\s*\*\s*max\(up\{[^}]*\}\s*==\s*1\)\)\s*$", q), \
                f"{k}: end with `or (0 * max(up{{...}} == 1))` so idle reads as 0 only while the exporter is up"
    if "serviceTimeQuery" in m:
        assert "vector(0)" not in m["serviceTimeQuery"], "serviceTimeQuery: a 0 service time would be wrong; leave NaN to staffer"
        assert "serviceTime" in m, "serviceTime: the W to use while serviceTimeQuery has no data"
    if "queueDepthQuery" in m:
        assert "clamp_min(" in m["queueDepthQuery"], "queueDepthQuery: clamp_min(…, 0) on a gauge"
    if "maxReplicas" in m:
        assert int(m["maxReplicas"]) <= sp.get("maxReplicaCount", 100), "maxReplicas above maxReplicaCount"
    # KEDA and HPA settings the docs explain
    for k in ("minReplicaCount", "maxReplicaCount", "pollingInterval", "cooldownPeriod"):
        assert k in sp, f"spec.{k} (set it explicitly)"
    fb = sp.get("fallback")
    assert fb and fb["failureThreshold"] >= 1 and fb["replicas"] >= 1, "a fallback with replicas"
    assert fb.get("behavior") == "currentReplicasIfHigher", "fallback.behavior currentReplicasIfHigher"
    beh = sp["advanced"]["horizontalPodAutoscalerConfig"]["behavior"]
    assert str(beh["scaleUp"].get("tolerance")) == "0", "behavior.scaleUp.tolerance \"0\""
    assert beh["scaleUp"].get("stabilizationWindowSeconds", 0) == 0
    assert beh["scaleDown"].get("stabilizationWindowSeconds") == 0, \
        "behavior.scaleDown.stabilizationWindowSeconds 0 (staffer smooths; don't double-smooth)"
    assert str(beh["scaleDown"].get("tolerance")) == "0", "behavior.scaleDown.tolerance \"0\" (steps of one)"
    if t["type"] == "external-push":
        assert sp["minReplicaCount"] == 0, "external-push is for fast 0 -> 1"
    if sp["minReplicaCount"] == 0:
        # with no pods, pod-exported metrics vanish: need a W fallback
        assert "serviceTime" in m, "at zero replicas serviceTimeQuery has no data: give serviceTime"


def t_so_calc(path, i, d):
    if not os.path.exists(STAFFER):
        raise Skip("build/staffer not built (make)")
    m = d["spec"]["triggers"][0]["metadata"]
    # calc wants at least one signal (it refuses to make up a zero): no
    # demand, which must give 0 replicas whatever the metadata.
    args = [f"{k}={v}" for k, v in m.items()] + ["arrivalRate=0"]
    r = subprocess.run([STAFFER, "calc", "--json"] + args, capture_output=True, text=True, timeout=20)
    assert r.returncode == 0, f"staffer calc refuses the metadata: {r.stderr.strip()}"
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out.get("replicas") == 0, f"no demand must give 0 replicas, got {out.get('replicas')}"


def t_so_calc_comments(path):
    if not os.path.exists(STAFFER):
        raise Skip("build/staffer not built (make)")
    n = 0
    for line in open(path):
        m = re.match(r"^#\s+staffer calc\s+(.*?)\s+->\s+(\d+)\s*$", line)
        if not m:
            continue
        n += 1
        r = subprocess.run([STAFFER, "calc", "--json"] + m.group(1).split(), capture_output=True,
                           text=True, timeout=20)
        assert r.returncode == 0, f"{line.strip()}: {r.stderr.strip()}"
        got = json.loads(r.stdout.strip().splitlines()[-1])["replicas"]
        assert got == int(m.group(2)), f"{line.strip()}: staffer calc says {got}"
    if n == 0:
        raise Skip("no `staffer calc ... -> N` comment")


# ---------------------------------------------------------------------------
# docs
# ---------------------------------------------------------------------------

# The docs this check holds to "every reference resolves in the
# repository" (the others are listed in CHECKED_DOCS' comment's report).
CHECKED_DOCS = ["README.md", "CHANGELOG.md", "SECURITY.md", "third_party/keda/README.md",
                "docs/deploy.md", "docs/config.md", "docs/observability.md", "docs/lint.md",
                "docs/install.md", "docs/upgrade.md", "docs/troubleshooting.md", "docs/faq.md",
                "docs/cookbook.md", "docs/amp.md", "docs/quickstart.md", "docs/multicluster.md",
                "docs/pools.md"]
# Where users of a clone cannot follow: files outside the repository, the
# design notes and research notes that stay with the project's authors.
FOREIGN_REFS = re.compile(r"\.\./shared|design,? section|protocol[- ]notes|\bdesign\.md\b", re.I)


def md_anchors(path):
    """GitHub's anchors for a Markdown file's headings."""
    out = set()
    in_code = False
    for line in open(path):
        if line.startswith("```"):
            in_code = not in_code
        if in_code:
            continue
        m = re.match(r"^#{1,6}\s+(.*?)\s*$", line)
        if m:
            t = m.group(1).strip().lower()
            t = re.sub(r"[^\w\- ]", "", t)
            out.add(t.replace(" ", "-"))
    return out


def t_docs_refs():
    p = os.path.join(ROOT, "docs", "deploy.md")
    text = open(p).read()
    for word in ("tolerance", "stabilizationWindowSeconds", "fallback", "AverageValue", "TriggerAuthentication",
                 "caCert", "tlsClientCert", "tlsClientKey", "SIGTERM", "currentReplicasQuery",
                 "tests/packaging/run.sh", "helm install"):
        assert word in text, f"docs/deploy.md does not mention {word}"
    bad = []
    for doc in CHECKED_DOCS:
        path = os.path.join(ROOT, doc)
        assert os.path.exists(path), f"{doc} is missing"
        text = open(path).read()
        for m in FOREIGN_REFS.finditer(text):
            bad.append(f"{doc}: '{m.group(0)}' is not in the repository")
        prose = re.sub(r"```.*?```", "", text, flags=re.S)
        # Markdown links to files of the repository, and their anchors
        bad += md_link_problems(doc)
        # paths named in backticks
        for ref in re.findall(r"`((?:docs|charts|scaledobjects|tests|src|scripts|third_party|proto)"
                              r"/[\w./-]+)`", prose):
            if any(c in ref for c in "*<>") or ref.endswith("/"):
                continue
            cands = [ref] + ([ref.split(":")[0]] if ":" in ref else [])
            if not any(os.path.exists(os.path.join(ROOT, c)) or glob.glob(os.path.join(ROOT, c))
                       for c in cands):
                bad.append(f"{doc}: `{ref}` does not exist")
    assert not bad, "unresolvable references:\n    " + "\n    ".join(bad)


def md_link_problems(doc):
    """The Markdown links of doc (a path under ROOT) to the repository's
    files that do not resolve: no such file, or no such heading."""
    path = os.path.join(ROOT, doc)
    prose = re.sub(r"```.*?```", "", open(path).read(), flags=re.S)
    bad = []
    for target in re.findall(r"\]\(([^)\s]+)\)", prose):
        if re.match(r"^[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
        if not os.path.exists(dest):
            bad.append(f"{doc}: link {target}: no file {rel(dest)}")
        elif anchor and dest.endswith(".md") and anchor not in md_anchors(dest):
            bad.append(f"{doc}: link {target}: {rel(dest)} has no heading #{anchor}")
    return bad


def t_docs_links():
    """Every doc, not only CHECKED_DOCS: a link to a file of the
    repository names one that exists, and a heading it has.  An anchor on
    a bold paragraph instead of a heading went unnoticed in math.md."""
    docs = sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")) +
                  glob.glob(os.path.join(ROOT, "bench", "results", "*.md")) +
                  [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "CHANGELOG.md")])
    bad = []
    for d in docs:
        bad += md_link_problems(rel(d))
    assert not bad, "links that do not resolve:\n    " + "\n    ".join(bad)


# ---------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "packaging"))
    opt = ap.parse_args()
    out = os.path.abspath(opt.out)
    os.makedirs(out, exist_ok=True)

    # Dockerfile
    check("dockerfile: stages, FROM debian:bookworm-slim, COPY/WORKDIR/CMD form")(t_dockerfile_structure)
    check("dockerfile: apt-get hygiene and pipefail (DL3009 DL3014 DL3015 DL4006)")(t_dockerfile_apt)
    check("dockerfile: runtime stage (scratch + rootfs, USER 65532, ENTRYPOINT, EXPOSE, labels)")(
        t_dockerfile_runtime)
    check("version: scripts/version.sh from git, from STAFFER_VERSION, and without git")(
        t_version_script, out)
    check("dockerignore: make's inputs in, build/ and .git out")(t_dockerignore)
    check("dockerfile: hadolint")(t_hadolint)

    # chart
    check("chart: Chart.yaml and templates")(t_chart_yaml)
    check("version: VERSION is Chart.yaml's version and appVersion, CHANGELOG's heading, the default tag")(
        t_one_version, out)
    check("docs: no placeholder addresses (Chart.yaml, SECURITY.md, CHANGELOG.md, docs/)")(t_no_placeholders)
    check("chart: templates use only the allowed functions")(t_template_functions)
    check("chart: values.yaml comments and defaults")(t_values_comments)
    for f in values_files():
        check(f"chart: {rel(f)} passes values.schema.json")(t_values_schema, f)
    check("chart: values.schema.json rejects bad values")(t_values_schema_rejects)

    R = Renderer(out)
    built = []
    check("chart: build the renderer (render.go, Go standard library only)")(lambda: built.append(R.build()))

    # the release: make release, then the image, the chart package, the SBOM
    if built:
        import types
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import options
        import release
        ctx = types.SimpleNamespace(
            ROOT=ROOT, CHART=CHART, STAFFER=STAFFER, out=out, Skip=Skip, R=R, Rendered=Rendered,
            check_rendered=check_rendered, merged_values=merged_values, jsonschema=jsonschema,
            dockerfile_instructions=dockerfile_instructions, stages=stages)
        check("chart: every option documented (values.yaml, README.md) and rendered")(options.t_options, ctx)
        release.register(check, ctx)

        def t_recreate():
            # Helm merges the defaults' rollingUpdate into a user's
            # strategy; the API server refuses it with Recreate
            rc, text, err, _ = R.render([{"strategy": {"type": "Recreate"}}])
            assert rc == 0, err
            dep = [d for d in yaml.safe_load_all(text) if d and d.get("kind") == "Deployment"][0]
            assert dep["spec"]["strategy"] == {"type": "Recreate"}, dep["spec"]["strategy"]
            rc, text, err, _ = R.render([])
            dep = [d for d in yaml.safe_load_all(text) if d and d.get("kind") == "Deployment"][0]
            assert dep["spec"]["strategy"]["rollingUpdate"] == {"maxUnavailable": 0, "maxSurge": 1}
        check("chart: strategy Recreate renders without rollingUpdate")(t_recreate)
    gofmt = shutil.which("gofmt")
    if gofmt:
        def t_gofmt():
            r = subprocess.run([gofmt, "-l", os.path.join(ROOT, "tests", "packaging", "render.go")],
                               capture_output=True, text=True)
            assert r.returncode == 0 and not r.stdout.strip(), "gofmt -l: " + (r.stdout + r.stderr).strip()
        check("chart: render.go is gofmt-clean")(t_gofmt)

    configcheck = None

    def t_configcheck():
        nonlocal configcheck
        if not os.path.exists(LIBSTAFFER):
            raise Skip("build/libstaffer.a not built (make); config.json checked in Python only")
        exe = os.path.join(out, "configcheck")
        r = subprocess.run(["cc", "-std=c11", "-O1", "-I", os.path.join(ROOT, "src"), "-o", exe,
                            os.path.join(ROOT, "tests", "packaging", "configcheck.c"), LIBSTAFFER,
                            "-lgrpc", "-lgpr", "-lprotobuf-c", "-lcurl", "-lcjson", "-lpthread", "-lm"],
                           capture_output=True, text=True)
        assert r.returncode == 0, "cannot link configcheck.c with build/libstaffer.a: " + r.stderr[-2000:]
        # not vacuous: the loader must refuse a bad file
        bad = os.path.join(out, "bad-config.json")
        open(bad, "w").write('{"backends":[{"name":"p","url":"http://p","timeout":2}]}')
        rr = subprocess.run([exe, bad], capture_output=True, text=True)
        assert rr.returncode != 0 and "timeout" in rr.stderr, "the loader accepted an unknown field"
        configcheck = exe
    check("chart: staffer's own config loader (configcheck.c + build/libstaffer.a)")(t_configcheck)

    if built:
        scenarios = [("default values", [], "staffer", "keda"),
                     ("values-full.yaml (TLS, mTLS, 5 backends, PDB, ...)",
                      [os.path.join(ROOT, "tests", "packaging", "values-full.yaml")], "staffer", "keda"),
                     ("another release name and namespace", [], "scaler", "autoscaling")]
        for f in sorted(glob.glob(os.path.join(CHART, "examples", "*.yaml"))):
            scenarios.append((rel(f), [f], "staffer", "keda"))
        for name, vals, rls, ns in scenarios:
            def t_render(vals=vals, rls=rls, ns=ns):
                rc, text, err, notes = R.render(vals, rls, ns)
                assert rc == 0, "render failed: " + err.strip()
                r = Rendered(text, rls, ns)
                check_rendered(r, merged_values(*vals), configcheck)
                dep = r.one("Deployment")["metadata"]["name"]
                assert f"{dep}.{ns}.svc:" in notes, "NOTES.txt does not give the scalerAddress"
                if rls == "staffer" and not any("fullnameOverride" in (load_yaml(v) or {}) for v in vals):
                    assert dep == "staffer", "release 'staffer' must give service staffer (staffer.keda.svc)"
                if rls == "scaler":
                    assert dep == "scaler-staffer", f"fullname {dep}"
            check(f"render: {name}")(t_render)

        def t_checksum():
            def ck(over):
                rc, text, err, _ = R.render([over])
                assert rc == 0, err
                d = by_kind(docs_of(text))["Deployment"][0]
                return d["spec"]["template"]["metadata"]["annotations"]["checksum/config"]
            base = ck({})
            assert ck({"cacheTTLSeconds": 7}) != base, "a config change must change checksum/config"
            assert ck({"podAnnotations": {"a": "b"}, "logLevel": "debug"}) == base, \
                "checksum/config must depend on config.json only"
        check("render: checksum/config follows config.json")(t_checksum)

        two = [{"name": "a", "url": "http://a"}, {"name": "b", "url": "http://b"}]
        bad_values = {
            "several backends, no defaultBackend": ({"defaultBackend": None, "backends": two}, "defaultBackend"),
            "defaultBackend names no backend": ({"defaultBackend": "c", "backends": two}, "not the name of a backend"),
            "terminationGracePeriodSeconds <= graceSeconds": ({"graceSeconds": 30, "terminationGracePeriodSeconds": 30},
                                                              "terminationGracePeriodSeconds"),
            "tls.enabled without secretName": ({"tls": {"enabled": True}}, "tls.secretName"),
            "certManager without tls": ({"tls": {"certManager": {"enabled": True}}}, "needs tls.enabled"),
            "clientAuth without tls": ({"tls": {"clientAuth": True}}, "tls.clientAuth"),
            "bearer without a token": ({"defaultBackend": "a", "backends": [{"name": "a", "url": "http://a", "auth": {"type": "bearer"}}]},
                                       "tokenSecret or tokenFile"),
            "tokenSecret without key": ({"defaultBackend": "a", "backends": [{"name": "a", "url": "http://a",
                                                       "auth": {"type": "bearer", "tokenSecret": {"name": "s"}}}]},
                                        "tokenSecret.key"),
            "unknown auth type": ({"defaultBackend": "a", "backends": [{"name": "a", "url": "http://a", "auth": {"type": "oauth"}}]},
                                  "allowed: none, bearer, basic, sigv4"),
            "backend without url": ({"defaultBackend": "a", "backends": [{"name": "a"}]}, "url is required"),
            "client key without certificate": ({"defaultBackend": "a", "backends": [{"name": "a", "url": "https://a",
                                                             "tls": {"keyFile": "/k"}}]}, "client certificate"),
            "no backends": ({"backends": []}, "at least one"),
            "tls on an http:// url": ({"defaultBackend": "a", "backends": [{"name": "a", "url": "http://a",
                                                                            "tls": {"caFile": "/ca"}}]}, "https://"),
        }
        bad_values["prometheusRule without a selector or a monitor"] = (
            {"metrics": {"prometheusRule": {"enabled": True}}}, "metrics.prometheusRule.selector")
        bad_values["serviceMonitor and podMonitor both on"] = (
            {"metrics": {"serviceMonitor": {"enabled": True}, "podMonitor": {"enabled": True}}},
            "metrics.serviceMonitor and metrics.podMonitor are both enabled")
        bad_values["serviceMonitor without the metrics port"] = (
            {"metrics": {"port": 0, "serviceMonitor": {"enabled": True}}}, "needs metrics.port")
        for name, (over, msg) in bad_values.items():
            def t_bad(over=over, msg=msg):
                rc, text, err, _ = R.render([over])
                assert rc != 0, "rendered, but should have failed"
                assert msg in err, f"the error does not say {msg!r}: {err.strip()}"
            check(f"render refuses: {name}")(t_bad)

        # What Helm does and the chart once did differently (issue 13).
        def t_set_grace():
            # --set gives int64, files float64: compared as numbers either way
            rc, _, err, _ = R.render([], sets=["graceSeconds=40"])
            assert rc != 0 and "terminationGracePeriodSeconds (30) must be greater than graceSeconds (40)" \
                in err, f"--set graceSeconds=40 with the default 30 s: {rc} {err.strip()}"
            rc, text, err, _ = R.render([], sets=["graceSeconds=40", "terminationGracePeriodSeconds=50"])
            assert rc == 0, err
            pod = by_kind(docs_of(text))["Deployment"][0]["spec"]["template"]["spec"]
            assert pod["terminationGracePeriodSeconds"] == 50
            rc, _, err, _ = R.render([{"graceSeconds": 40}], sets=["terminationGracePeriodSeconds=40"])
            assert rc != 0 and "must be greater" in err, "file float64 against --set int64"
        check("render: --set graceSeconds=40 is checked against terminationGracePeriodSeconds")(t_set_grace)

        def t_pdb_zero():
            for over, sets, want in (({"podDisruptionBudget": {"enabled": True, "minAvailable": 0}}, (), 0),
                                     ({"podDisruptionBudget": {"enabled": True}},
                                      ["podDisruptionBudget.minAvailable=0"], 0),
                                     ({"podDisruptionBudget": {"enabled": True, "minAvailable": "50%"}}, (), "50%"),
                                     ({"podDisruptionBudget": {"enabled": True, "minAvailable": None}}, (), 1)):
                over = dict(over, replicaCount=2)
                rc, text, err, _ = R.render([over], sets=sets)
                assert rc == 0, err
                spec = by_kind(docs_of(text))["PodDisruptionBudget"][0]["spec"]
                assert spec.get("minAvailable") == want and "maxUnavailable" not in spec, (over, sets, spec)
        check("render: podDisruptionBudget.minAvailable 0 stays 0")(t_pdb_zero)

        def t_pdb_replicas():
            # on by default, and only with more than one replica (--set gives int64)
            for over, sets, want in (({}, (), False), ({"replicaCount": 2}, (), True),
                                     ({}, ["replicaCount=3"], True), ({}, ["replicaCount=1"], False),
                                     ({"replicaCount": 2, "podDisruptionBudget": {"enabled": False}}, (), False)):
                rc, text, err, _ = R.render([over], sets=sets)
                assert rc == 0, err
                assert ("PodDisruptionBudget" in by_kind(docs_of(text))) == want, (over, sets)
        check("render: a PodDisruptionBudget only with replicaCount > 1")(t_pdb_replicas)

        def t_strict():
            # missing keys are errors (helm --strict): a backend with only
            # name and url, an auth with only a type, no metrics sub-keys
            rc, text, err, _ = R.render([{"backends": [{"name": "p", "url": "http://p"}]}])
            assert rc == 0, "a minimal backend must render with missing keys as errors: " + err
            rc, _, err, _ = R.render([{"metrics": {"serviceMonitor": None}}])
            assert rc != 0 and "serviceMonitor" in err, "a missing key must fail, not render empty"
        check("render: missing keys are errors (helm --strict), and the chart never reads one")(t_strict)

        def t_no_test_without_client_cert():
            rc, text, err, _ = R.render([{"tls": {"enabled": True, "secretName": "t", "clientAuth": True}}])
            assert rc == 0, err
            assert "Pod" not in by_kind(docs_of(text)), "mTLS without test.clientSecretName: no test pod"
        check("render: helm test needs a client certificate with tls.clientAuth")(t_no_test_without_client_cert)

        def t_cert_manager():
            # the chart's own CA, mTLS: the test pod uses KEDA's client Secret
            rc, text, err, _ = R.render([{"tls": {"enabled": True, "clientAuth": True,
                                                  "certManager": {"enabled": True}},
                                          "networkPolicy": {"enabled": True}}])
            assert rc == 0, err
            r = Rendered(text, "staffer", "keda")
            check_rendered(r, merged_values({"tls": {"enabled": True, "clientAuth": True,
                                                     "certManager": {"enabled": True}},
                                             "networkPolicy": {"enabled": True}}))
            pod = r.one("Pod")
            vols = {v["name"]: v for v in pod["spec"]["volumes"]}
            assert vols["client"]["secret"]["secretName"] == "keda-staffer-client"
            assert vols["tls"]["secret"]["secretName"] == "staffer-grpc-tls"
        check("render: cert-manager issues the server and KEDA's client certificates")(t_cert_manager)

        names = []
        check("monitoring: the metric names a running staffer exports")(
            lambda: names.append(exported_names(out)))
        if names:
            check("monitoring: PrometheusRule passes promtool check rules and promtool test rules")(
                t_rules, R, out, names[0])
            check("monitoring: dashboard queries parse (promtool) and read only exported metrics")(
                t_dashboard, out, names[0])

    # ScaledObjects
    schema = None
    try:
        schema = crd_schema()
    except Exception as e:
        why = str(e)
        check("scaledobjects: read the CRD")(lambda: (_ for _ in ()).throw(AssertionError(why)))
    keys = documented_keys()
    check("scaledobjects: files, kinds, the five example shapes")(t_so_files)
    check("scaledobjects: the CRD schema check rejects bad ScaledObjects")(t_so_schema_negative, schema)
    for path, i, d in so_docs():
        if d.get("kind") != "ScaledObject":
            continue
        n = f"{rel(path)} ({d['metadata']['name']})"
        check(f"scaledobject: {n}: CRD schema")(t_so_schema, path, i, d, schema)
        check(f"scaledobject: {n}: staffer conventions")(t_so_conventions, path, i, d, keys)
        check(f"scaledobject: {n}: staffer calc accepts the metadata")(t_so_calc, path, i, d)
    for path in sorted(glob.glob(os.path.join(SO_DIR, "*.yaml"))):
        check(f"scaledobjects: {rel(path)}: `staffer calc ... -> N` comments")(t_so_calc_comments, path)

    check("docs: every reference resolves in the repository; deploy.md covers the essentials")(
        t_docs_refs)
    check("docs: every link in docs/, bench/results/, README and CHANGELOG resolves, anchors too")(
        t_docs_links)

    shutil.rmtree(R.tmp, ignore_errors=True)
    print()
    if SKIPPED:
        print(f"# {len(SKIPPED)} skipped (see 'skip -' lines above)")
    # The last line, exactly as tests/run-all.sh reads it.
    print(f"{len(PASSED)} passed, {len(FAILED)} failed")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
