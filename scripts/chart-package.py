#!/usr/bin/python3
"""scripts/chart-package.py DISTDIR - the Helm chart as `helm package`
lays it out, and the index.yaml of a static chart repository
(`make chart-package`, `make release`; no helm binary needed).

    DISTDIR/staffer-VERSION.tgz   staffer/Chart.yaml first, then
                                  values.yaml, values.schema.json,
                                  templates/..., then the chart's other
                                  files (README.md, dashboards/,
                                  examples/), each under staffer/, without
                                  what .helmignore names
    DISTDIR/index.yaml            apiVersion v1, entries.staffer: the
                                  chart's metadata with created, digest
                                  (sha256 of the .tgz) and urls; entries of
                                  other versions already in DISTDIR's
                                  index.yaml are kept (helm repo index
                                  --merge)

VERSION is the repository's VERSION file; scripts/version.sh --check must
pass first (Chart.yaml's version and appVersion and CHANGELOG.md's latest
heading agree with it).  Chart.yaml is written as helm writes it (its keys
in order, comments dropped) with two annotations added for Artifact Hub:
artifacthub.io/changes, one entry per bullet of CHANGELOG.md's latest
section (Added -> added, Changed and Upgrade notes -> changed, Fixed ->
fixed, ...; its first sentence), and artifacthub.io/prerelease, "true"
when VERSION has a pre-release part.  CHART_REPO_URL, when set, makes the
index's urls absolute (the address the repository is served from).

Times (file times, gzip header, created) are SOURCE_DATE_EPOCH, default
the last commit's, so the same sources give the same .tgz.  Needs
python3-yaml (scripts/deps.sh).
"""

import datetime
import fnmatch
import gzip
import hashlib
import io
import os
import re
import subprocess
import sys
import tarfile

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
CHART = os.path.join(ROOT, "charts", "staffer")

KINDS = {"added": "added", "changed": "changed", "upgrade notes": "changed",
         "deprecated": "deprecated", "removed": "removed", "fixed": "fixed",
         "security": "security"}


def die(msg):
    sys.exit("chart-package.py: " + msg)


def epoch():
    e = os.environ.get("SOURCE_DATE_EPOCH")
    if not e:
        r = subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%ct"], capture_output=True, text=True)
        e = r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else None
    return int(e) if e else int(datetime.datetime.now(datetime.timezone.utc).timestamp())


def first_sentence(text):
    """The bullet's first sentence, links as their text, at most 300
    characters."""
    t = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)
    t = " ".join(t.split())
    m = re.search(r"(?<!e\.g)(?<!i\.e)(?<!\bvs)\.(?=\s+[A-Z`(])", t)
    if m:
        t = t[:m.start() + 1]
    if len(t) > 300:
        t = t[:297].rsplit(" ", 1)[0] + "…"
    return t


def changes(changelog):
    """[{kind, description}] of the latest section of CHANGELOG.md."""
    out, kind, bullet = [], None, None
    in_section = False

    def flush():
        if bullet is not None and kind:
            out.append({"kind": kind, "description": first_sentence(" ".join(bullet))})
    for line in open(changelog, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("## "):
            if in_section:
                break
            in_section = True
            continue
        if not in_section:
            continue
        m = re.match(r"^###\s+(.+?)\s*$", line)
        if m:
            flush()
            bullet = None
            title = re.sub(r"\s*\(.*\)$", "", m.group(1)).strip().lower()
            kind = KINDS.get(title)
            if kind is None:
                die(f"CHANGELOG.md: section '### {m.group(1)}': allowed: " +
                    ", ".join(sorted({k.title() for k in KINDS})))
            continue
        if line.startswith("- "):
            flush()
            bullet = [line[2:]]
        elif bullet is not None and line.startswith(" "):
            bullet.append(line.strip().lstrip("- "))
        elif line.strip() == "":
            continue
        else:
            flush()
            bullet = None
    flush()
    if not out:
        die("CHANGELOG.md: the latest section has no '- ' entries under a '### ' heading")
    return out


def ignored(patterns, rel, is_dir):
    """.helmignore's rules for the usual patterns: a glob on the path or
    its base name; a trailing / only for directories."""
    for p in patterns:
        dir_only = p.endswith("/")
        q = p.rstrip("/")
        if dir_only and not is_dir:
            continue
        if fnmatch.fnmatchcase(rel, q) or fnmatch.fnmatchcase(os.path.basename(rel), q):
            return True
    return False


def chart_files():
    pats = []
    hi = os.path.join(CHART, ".helmignore")
    if os.path.exists(hi):
        pats = [l.strip() for l in open(hi) if l.strip() and not l.startswith("#")]
    pats.append(".helmignore")  # helm reads it and never packs it
    files = []
    for d, dirs, names in os.walk(CHART):
        reld = os.path.relpath(d, CHART)
        dirs[:] = sorted(x for x in dirs if not ignored(pats, os.path.normpath(os.path.join(reld, x)), True))
        for n in sorted(names):
            rel = os.path.normpath(os.path.join(reld, n))
            if not ignored(pats, rel, False):
                files.append(rel)

    def order(rel):  # helm's chartutil.Save order
        head = {"Chart.yaml": 0, "values.yaml": 1, "values.schema.json": 2}
        if rel in head:
            return (head[rel], rel)
        return (3 if rel.startswith("templates/") else 4, rel)
    return sorted(files, key=order)


class Dumper(yaml.SafeDumper):
    """Multi-line strings (the annotations that hold YAML) as | blocks."""


Dumper.add_representer(str, lambda d, s: d.represent_scalar(
    "tag:yaml.org,2002:str", s, style="|" if "\n" in s else None))


def dump(data, f=None):
    return yaml.dump(data, f, Dumper=Dumper, sort_keys=True, allow_unicode=True, width=1000)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: scripts/chart-package.py DISTDIR")
    dist = sys.argv[1]
    r = subprocess.run([os.path.join(ROOT, "scripts", "version.sh"), "--check"], capture_output=True, text=True)
    if r.returncode != 0:
        die("the versions disagree:\n" + r.stderr)
    version = open(os.path.join(ROOT, "VERSION")).read().strip()
    when = epoch()
    stamp = datetime.datetime.fromtimestamp(when, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

    meta = yaml.safe_load(open(os.path.join(CHART, "Chart.yaml")))
    meta["version"] = version
    meta["appVersion"] = version
    ann = meta.setdefault("annotations", {})
    ann["artifacthub.io/changes"] = yaml.safe_dump(changes(os.path.join(ROOT, "CHANGELOG.md")),
                                                   sort_keys=False, allow_unicode=True, width=1000)
    ann["artifacthub.io/prerelease"] = "true" if "-" in version else "false"
    # helm marshals Chart.yaml through JSON: keys sorted, comments gone
    chart_yaml = dump(meta).encode()

    name = meta["name"]
    os.makedirs(dist, exist_ok=True)
    tgz = os.path.join(dist, f"{name}-{version}.tgz")
    raw = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=when) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for rel in chart_files():
                data = chart_yaml if rel == "Chart.yaml" else open(os.path.join(CHART, rel), "rb").read()
                ti = tarfile.TarInfo(f"{name}/{rel}")
                ti.size, ti.mode, ti.mtime = len(data), 0o644, when
                ti.uname = ti.gname = ""
                tar.addfile(ti, io.BytesIO(data))
    with open(tgz + ".tmp", "wb") as f:
        f.write(raw.getvalue())
    os.replace(tgz + ".tmp", tgz)
    digest = hashlib.sha256(raw.getvalue()).hexdigest()

    index_path = os.path.join(dist, "index.yaml")
    index = {"apiVersion": "v1", "entries": {}}
    if os.path.exists(index_path):
        old = yaml.safe_load(open(index_path)) or {}
        if old.get("apiVersion") == "v1" and isinstance(old.get("entries"), dict):
            index["entries"] = old["entries"]
    base = os.environ.get("CHART_REPO_URL", "").rstrip("/")
    url = f"{base}/{os.path.basename(tgz)}" if base else os.path.basename(tgz)
    entry = dict(meta, created=stamp, digest=digest, urls=[url])
    kept = [e for e in index["entries"].get(name, []) if e.get("version") != version]
    index["entries"][name] = [entry] + kept
    index["generated"] = stamp
    with open(index_path + ".tmp", "w") as f:
        dump(index, f)
    os.replace(index_path + ".tmp", index_path)
    print(f"chart: {tgz} (sha256 {digest}), {index_path}")


if __name__ == "__main__":
    main()
