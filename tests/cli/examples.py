#!/usr/bin/python3
"""The `staffer calc` examples in the docs are the binary's real output.

    tests/cli/examples.py [build/staffer]

Every indented block in docs/*.md and README.md whose first line is
`$ build/staffer calc ...` (continued with a trailing backslash, after
any earlier `$ NAME=...` lines that the command uses) is run through
bash; each output line shown must appear in the real output, in the same
order.  `...` stands for lines left out.  Prints one `ok`/`FAIL` line per
example and `N passed, N failed` last.
"""

import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def blocks(path):
    """(line number, shell lines, shown output) for every calc example.
    A `$ NAME=...` line holds for the rest of its file, as in a shell
    session."""
    lines = open(path, encoding="utf-8").read().split("\n")
    env = []
    i = 0
    while i < len(lines):
        m = re.match(r"^( +)\$ (.*)$", lines[i])
        if not m:
            i += 1
            continue
        indent, start = m.group(1), i + 1
        shell = []
        while i < len(lines) and lines[i].startswith(indent + "$ "):
            cmd = lines[i][len(indent) + 2:]
            while cmd.endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd[:-1] + " " + lines[i].strip()
            shell.append(cmd)
            i += 1
        shown = []
        while i < len(lines) and lines[i].startswith(indent) and \
                lines[i].strip():
            shown.append(lines[i][len(indent):].rstrip())
            i += 1
        env += [c for c in shell if re.match(r"^[A-Za-z_]\w*=", c)]
        if shell and shell[-1].startswith("build/staffer calc"):
            yield start, env + [c for c in shell if c not in env], shown
    # "build/staffer calc ARGS   # -> N replicas" in a code block
    for n, ln in enumerate(lines, 1):
        m = re.match(r"^(build/staffer calc [^#]*?)\s+# -> (\d+) replicas",
                     ln)
        if m:
            yield n, [m.group(1)], ["replicas   ceil", "=" + m.group(2)]


def check(binary, shell, shown):
    script = "\n".join(shell[:-1] + [binary + shell[-1][len(
        "build/staffer"):]])
    r = subprocess.run(["bash", "-c", script], capture_output=True,
                       text=True, timeout=30, cwd=ROOT)
    if r.returncode != 0:
        return "exit %d: %s" % (r.returncode, r.stderr.strip()[:300])
    got = [ln.rstrip() for ln in r.stdout.split("\n")]
    if shown and shown[-1].startswith("="):
        n = [ln.split()[-1] for ln in got if ln.startswith("answer ")]
        if n != [shown[-1][1:]]:
            return "says %s replicas, the binary %s" % (shown[-1][1:], n)
        return None
    at = 0
    for want in shown:
        if want == "...":
            continue
        try:
            at = got.index(want, at) + 1
        except ValueError:
            return "line not in the output (in this order): %r\n" \
                   "--- the output:\n%s" % (want, r.stdout)
    if not [w for w in shown if w != "..."]:
        return "shows no output"
    return None


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                             os.path.join(ROOT, "build", "staffer"))
    if not os.access(binary, os.X_OK):
        print("# %s not built (make)" % binary)
        print("0 passed, 1 failed")
        return 1
    docs = sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))) + \
        [os.path.join(ROOT, "README.md")]
    passed = failed = 0
    for path in docs:
        for line, shell, shown in blocks(path):
            name = "%s:%d" % (os.path.relpath(path, ROOT), line)
            why = check(binary, shell, shown)
            if why:
                failed += 1
                print("FAIL - %s: %s" % (name, why))
            else:
                passed += 1
                print("ok   - %s" % name)
    if passed + failed == 0:
        print("# no examples found")
        failed = 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
