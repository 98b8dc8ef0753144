"""Every chart option documented and rendered (tests/packaging/check.py runs
it).

An option is a leaf of values.yaml: a key whose value is not a map the
schema spells out key by key (so `resources` is one option, `image.tag`
another), plus a key the schema allows there that values.yaml leaves out
(`podDisruptionBudget.maxUnavailable`).  For each option:

  - values.yaml documents it: a comment right above it, or above the run of
    keys it belongs to, or naming it (`# maxUnavailable: 1`);
  - charts/staffer/README.md names it, as `a.b.c` in backticks;
  - it is rendered: the chart is rendered with the option's context (what
    makes it matter, e.g. serviceMonitor.enabled for its interval) and again
    with the option changed; both pass values.schema.json, both render, and
    the manifests differ.  A change is derived (a boolean flipped, an
    enum's other value, a number moved within its range) or taken from
    CHANGE below; an option with neither fails, so a new option needs one.
"""

import copy
import json
import os
import re

import yaml

# The context an option needs to have an effect: the first prefix that
# matches its path.
CONTEXT = [
    ("metrics.serviceMonitor.", {"metrics": {"serviceMonitor": {"enabled": True}}}),
    ("metrics.podMonitor.", {"metrics": {"podMonitor": {"enabled": True}}}),
    ("metrics.prometheusRule.", {"metrics": {"serviceMonitor": {"enabled": True},
                                             "prometheusRule": {"enabled": True}}}),
    ("dashboards.", {"dashboards": {"enabled": True}}),
    ("tls.certManager.", {"tls": {"enabled": True, "clientAuth": True, "certManager": {"enabled": True}}}),
    ("tls.", {"tls": {"enabled": True, "secretName": "grpc-tls"}}),
    ("test.clientSecretName", {"tls": {"enabled": True, "secretName": "grpc-tls", "clientAuth": True}}),
    ("test.ca", {"tls": {"enabled": True, "secretName": "grpc-tls"}}),
    ("networkPolicy.", {"networkPolicy": {"enabled": True}}),
    ("podDisruptionBudget.", {"replicaCount": 2}),
    ("clientIdentities.", {"tls": {"enabled": True, "clientAuth": True,
                                   "certManager": {"enabled": True}}}),
    ("clusterDomain", {"tls": {"enabled": True, "certManager": {"enabled": True}}}),
    ("credentialsMountPath", {"backends": [{"name": "p", "url": "http://p", "auth": {
        "type": "bearer", "tokenSecret": {"name": "s", "key": "token"}}}]}),
    ("defaultBackend", {"defaultBackend": "a", "backends": [{"name": "a", "url": "http://a"},
                                                            {"name": "b", "url": "http://b"}]}),
    ("extraVolumeMounts", {"extraVolumes": [{"name": "extra", "emptyDir": {}}]}),
]

SELECTOR = {"matchLabels": {"kubernetes.io/metadata.name": "ops"}}

# Changes that cannot be derived: the option's new value, or (a dict under
# the key "values") overrides for several keys at once.
CHANGE = {
    "image.registry": "ghcr.io",
    "image.repository": "platform/staffer",
    "image.tag": "9.9.9",
    "image.digest": "sha256:" + "a" * 64,
    "imagePullSecrets": [{"name": "regcred"}],
    "nameOverride": "scaler",
    "fullnameOverride": "scaler",
    "commonLabels": {"team": "platform"},
    "clusterDomain": "corp.internal",
    "port": 9443,
    "metrics.port": 9100,
    "metrics.serviceMonitor.jobLabel": "app.kubernetes.io/name",
    "metrics.serviceMonitor.targetLabels": ["app.kubernetes.io/part-of"],
    "metrics.serviceMonitor.tlsConfig": {"serverName": "staffer.keda.svc"},
    "metrics.prometheusRule.namespace": "monitoring",
    "metrics.prometheusRule.labels": {"release": "kube-prometheus-stack"},
    "metrics.prometheusRule.selector": 'job="scaler",namespace="keda"',
    "metrics.prometheusRule.alertLabels": {"team": "platform"},
    "metrics.prometheusRule.severity.critical": "page",
    "metrics.prometheusRule.severity.warning": "ticket",
    "metrics.prometheusRule.runbookBaseURL": "https://docs.corp.internal/staffer/troubleshooting",
    "dashboards.namespace": "monitoring",
    "dashboards.label": "grafana_dashboard_staffer",
    "dashboards.labelValue": "yes",
    "dashboards.annotations": {"grafana_folder": "KEDA"},
    "test.clientSecretName": "keda-client",
    "test.caSecretName": "corp-ca",
    "test.caKey": "ca.pem",
    "defaultBackend": "b",
    "maxStates": 1000,
    "maxStatesPerNamespace": 100,
    "maxStatesPerCaller": 500,
    "clientIdentities.keda.trustDomain": "corp.example",
    "clientIdentities.keda.serviceAccount": "keda-operator-2",
    "clientIdentities.keda.namespaces": ["ml-*"],
    "clientIdentities.extra": [{"uri": "spiffe://cluster.local/ns/ops/sa/probe",
                                "namespaces": ["ops"]}],
    "requestBudget": "64Mi",
    "credentialsMountPath": "/var/run/creds",
    "backends": [{"name": "thanos", "url": "http://thanos:9090"}],
    "env": [{"name": "AWS_REGION", "value": "eu-west-1"}],
    "extraVolumes": [{"name": "extra", "emptyDir": {}}],
    "extraVolumeMounts": [{"name": "extra", "mountPath": "/extra"}],
    "resources": {"limits": {"memory": "1Gi"}},
    "podSecurityContext": {"fsGroup": 1000},
    "securityContext": {"runAsGroup": 1000},
    "strategy": {"rollingUpdate": {"maxSurge": 2}},
    "priorityClassName": "system-cluster-critical",
    "podAnnotations": {"team": "platform"},
    "podLabels": {"team": "platform"},
    "nodeSelector": {"kubernetes.io/os": "linux"},
    "tolerations": [{"key": "dedicated", "operator": "Exists"}],
    "affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "preference": {"matchExpressions": [
            {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}]}}]}},
    "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                   "whenUnsatisfiable": "ScheduleAnyway"}],
    "serviceAccount.name": "staffer-sa",
    "serviceAccount.annotations": {"eks.amazonaws.com/role-arn": "arn:aws:iam::111122223333:role/x"},
    "service.clusterIP": "None",
    "service.port": 9443,
    "service.annotations": {"team": "platform"},
    "tls.secretName": "other-tls",
    "tls.certManager.enabled": {"values": {"tls": {"certManager": {"enabled": False}, "secretName": "grpc-tls"}}},
    "tls.certManager.issuerRef": {"name": "platform-ca", "kind": "ClusterIssuer", "group": "cert-manager.io"},
    "tls.certManager.duration": "720h",
    "tls.certManager.renewBefore": "240h",
    "tls.certManager.caDuration": "8760h",
    "tls.certManager.clientSecretName": "keda-client",
    "networkPolicy.keda.namespaceSelector": SELECTOR,
    "networkPolicy.keda.podSelector": SELECTOR,
    "networkPolicy.metricsFrom": [{"namespaceSelector": SELECTOR}],
    "readinessProbe.successThreshold": 2,
    "readinessProbe.terminationGracePeriodSeconds": 10,
    "livenessProbe.successThreshold": 1,
    "livenessProbe.terminationGracePeriodSeconds": 10,
    "podDisruptionBudget.minAvailable": "50%",
    "podDisruptionBudget.maxUnavailable": 1,
    "extraObjects": [{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "{{ .Release.Name }}-extra"}}],
}

# The keys the ServiceMonitor and the PodMonitor share.
for _mon in ("serviceMonitor", "podMonitor"):
    CHANGE.update({
        f"metrics.{_mon}.namespace": "monitoring",
        f"metrics.{_mon}.labels": {"release": "kube-prometheus-stack"},
        f"metrics.{_mon}.interval": "15s",
        f"metrics.{_mon}.scrapeTimeout": "5s",
        f"metrics.{_mon}.relabelings": [{"action": "replace", "targetLabel": "cluster", "replacement": "a"}],
        f"metrics.{_mon}.metricRelabelings": [{"action": "drop", "sourceLabels": ["__name__"], "regex": "x"}],
    })

# Schema keys Helm itself owns, not options of this chart.
NOT_OPTIONS = {"global"}


def leaves(val, node, path=()):
    """(path, default, schema node) of every option."""
    props = node.get("properties") if isinstance(node, dict) else None
    if props and node.get("additionalProperties") is False and (isinstance(val, dict) or val is None) \
            and (val or not path):
        val = val or {}
        for k, sub in props.items():
            if not path and k in NOT_OPTIONS:
                continue
            if k in val:
                yield from leaves(val[k], sub, path + (k,))
            else:
                yield path + (k,), None, sub  # in the schema, not in values.yaml
        return
    yield path, val, node


def setpath(d, path, v):
    for k in path[:-1]:
        d = d.setdefault(k, {})
    d[path[-1]] = v


def merge(d, s):
    for k, x in s.items():
        if isinstance(x, dict) and isinstance(d.get(k), dict):
            merge(d[k], x)
        else:
            d[k] = copy.deepcopy(x)
    return d


def derived(default, node):
    """A valid other value, or None when there is none to derive."""
    if isinstance(node.get("enum"), list):
        others = [e for e in node["enum"] if e != default]
        return others[0] if others else None
    if isinstance(default, bool):
        return not default
    if isinstance(default, (int, float)):
        step = default + 1 if isinstance(default, int) else default * 2 or 1
        hi = node.get("maximum")
        if hi is not None and step > hi:
            step = (default + hi) / 2
        return step
    return None


def key_line(lines, path):
    """The index of path's key line in values.yaml, or -1."""
    idx = -1
    for depth, k in enumerate(path):
        pat = re.compile(r"^" + " " * (2 * depth) + re.escape(k) + r":( |$)")
        for i in range(idx + 1, len(lines)):
            if pat.match(lines[i]):
                idx = i
                break
            s = lines[i]
            if depth and s.strip() and not s.startswith(" " * (2 * depth)) and not s.lstrip().startswith("#"):
                return -1  # left the parent's block
        else:
            return -1
    return idx


def documented_in_values(text, path):
    """The option's key in values.yaml has a comment above it, or above the
    run of sibling keys it is part of, or it opens its parent's block and
    the parent is documented; a key values.yaml leaves out must be named
    in a comment (`# maxUnavailable: 1`)."""
    lines = text.splitlines()
    idx = key_line(lines, path)
    if idx < 0:
        return re.search(r"(?m)^\s*#.*\b" + re.escape(path[-1]) + r":", text) is not None
    indent = 2 * (len(path) - 1)
    i = idx - 1
    while i >= 0:
        s = lines[i]
        if s.startswith(" " * indent + "#"):
            return True
        if re.match(r"^" + " " * indent + r"[A-Za-z]", s) or (s.startswith(" " * (indent + 2)) and s.strip()):
            i -= 1  # a sibling key, or a sibling's nested lines
            continue
        if len(path) > 1 and re.match(r"^" + " " * (indent - 2) + re.escape(path[-2]) + r":", s):
            return documented_in_values(text, path[:-1])
        return False
    return False


def t_options(ctx):
    chart = ctx.CHART
    values_text = open(os.path.join(chart, "values.yaml")).read()
    defaults = yaml.safe_load(values_text)
    schema = json.load(open(os.path.join(chart, "values.schema.json")))
    readme = open(os.path.join(chart, "README.md")).read()
    validator = ctx.jsonschema.Draft7Validator(schema) if ctx.jsonschema else None
    problems, base_cache = [], {}
    opts = list(leaves(defaults, schema))
    assert len(opts) > 100, f"only {len(opts)} options found"
    for path, default, node in opts:
        name = ".".join(path)
        if not documented_in_values(values_text, path):
            problems.append(f"{name}: no comment in values.yaml")
        if f"`{name}`" not in readme:
            problems.append(f"{name}: not in charts/staffer/README.md")
        context = next((c for p, c in CONTEXT if name.startswith(p) or name == p.rstrip(".")), {})
        change = CHANGE.get(name)
        if change is None:  # from the value in force with the context
            cur = ctx.merged_values(context)
            for k in path:
                cur = cur.get(k) if isinstance(cur, dict) else None
            change = derived(cur, node)
        key = json.dumps(context, sort_keys=True)
        if key not in base_cache:
            base_cache[key] = ctx.R.render([context])
        rc0, text0, err0, _ = base_cache[key]
        if rc0 != 0:
            problems.append(f"{name}: the context {context} does not render: {err0.strip()[:200]}")
            continue
        if change is None and len(node.get("enum") or ()) == 1:
            # one allowed value (service.type: ClusterIP): it is rendered as is
            if f": {json.dumps(default)}" not in text0 and f": {default}\n" not in text0:
                problems.append(f"{name}: {default!r} is not in the rendered manifests")
            continue
        if change is None:
            problems.append(f"{name}: no change to render it with (tests/packaging/options.py CHANGE)")
            continue
        over = copy.deepcopy(context)
        if isinstance(change, dict) and set(change) == {"values"}:
            merge(over, change["values"])
        else:
            setpath(over, path, change)
        rc, text, err, _ = ctx.R.render([over])
        if rc != 0:
            problems.append(f"{name}: changed to {change!r} it does not render: {err.strip()[:200]}")
            continue
        if validator:
            for v in (context, over):
                errs = list(validator.iter_errors(ctx.merged_values(v)))
                if errs:
                    problems.append(f"{name}: {v} fails values.schema.json: {errs[0].message}")
        if text == text0:
            problems.append(f"{name}: changing it to {change!r} changes nothing rendered")
    assert not problems, f"{len(problems)} of {len(opts)} options:\n    " + "\n    ".join(problems)
    print(f"# {len(opts)} chart options: each documented and rendered")
