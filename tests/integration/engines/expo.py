"""The Prometheus text format as the engines' client libraries write it:
families with HELP and TYPE, counters, gauges, histograms and summaries,
each series with its labels.  The engines' modules say which families
exist, with which labels, when a series appears (at start, or at its
first use: the Rust `metrics` crate and prometheus_client's labelled
children only appear once touched) and how a name is spelt (a Python
counter `x` is exposed as `x_total`, a Rust one as `x`).
"""

from fleet import Histogram, fmt_le, fmt_value, labels_text


class Family:
    def __init__(self, name, kind, help_, labelnames=(), buckets=None,
                 exposed=None, quantiles=None):
        self.name = name                  # as registered
        self.kind = kind                  # counter gauge histogram summary
        self.help = help_
        self.labelnames = tuple(labelnames)
        self.buckets = buckets
        self.quantiles = quantiles
        self.exposed = exposed or name    # the sample name of a counter
        self.series = {}                  # label values -> value/Histogram

    def child(self, *values):
        if len(values) != len(self.labelnames):
            raise ValueError("%s: labels %r, got %r" % (
                self.name, self.labelnames, values))
        s = self.series.get(values)
        if s is None:
            s = Histogram(self.buckets) if self.kind == "histogram" else \
                _Summary() if self.kind == "summary" else 0.0
            self.series[values] = s
        return s

    def touch(self, *values):
        """Create the series (at 0) without changing it."""
        self.child(*values)

    def inc(self, *values, by=1.0):
        self.child(*values)
        self.series[values] += by

    def set(self, *values, value):
        self.child(*values)
        self.series[values] = float(value)

    def observe(self, *values, value, n=1):
        self.child(*values).observe(value, n)

    def get(self, *values):
        return self.series.get(values)

    def render(self, out, extra=()):
        """Append this family's lines; extra: labels added to every
        series (the demo's pod label)."""
        if not self.series:
            return
        hname = self.exposed if self.kind == "counter" else self.name
        if self.help is not None:   # the Rust crate: described or not
            out.append("# HELP %s %s" % (hname, self.help))
        out.append("# TYPE %s %s" % (hname, self.kind))
        for values, v in self.series.items():
            lab = list(zip(self.labelnames, values)) + list(extra)
            if self.kind in ("counter", "gauge"):
                out.append("%s%s %s" % (hname, labels_text(lab),
                                        fmt_value(v)))
            elif self.kind == "histogram":
                cum = 0
                for le, c in zip(v.le, v.counts):
                    cum += c
                    out.append("%s_bucket%s %s" % (
                        self.name, labels_text(lab + [("le", fmt_le(le))]),
                        fmt_value(cum)))
                out.append("%s_bucket%s %s" % (
                    self.name, labels_text(lab + [("le", "+Inf")]),
                    fmt_value(v.count)))
                out.append("%s_sum%s %s" % (self.name, labels_text(lab),
                                            fmt_value(v.sum)))
                out.append("%s_count%s %s" % (self.name, labels_text(lab),
                                              fmt_value(v.count)))
            else:
                for q in self.quantiles or ():
                    out.append("%s%s %s" % (
                        self.name, labels_text(lab + [("quantile",
                                                       repr(float(q)))]),
                        fmt_value(v.quantile(q))))
                out.append("%s_sum%s %s" % (self.name, labels_text(lab),
                                            fmt_value(v.sum)))
                out.append("%s_count%s %s" % (self.name, labels_text(lab),
                                              fmt_value(v.count)))


class _Summary:
    """A summary's sum, count and the quantiles of what it saw (kept
    small: the last 1000 observations)."""

    def __init__(self):
        self.sum = 0.0
        self.count = 0
        self.recent = []

    def observe(self, v, n=1):
        self.sum += v * n
        self.count += n
        self.recent.append(v)
        del self.recent[:-1000]

    def quantile(self, q):
        if not self.recent:
            return 0.0
        s = sorted(self.recent)
        return s[min(len(s) - 1, int(q * len(s)))]


class Registry:
    def __init__(self):
        self.families = []

    def add(self, *a, **kw):
        f = Family(*a, **kw)
        self.families.append(f)
        return f

    def render(self, extra=()):
        out = []
        for f in self.families:
            f.render(out, extra)
        return "\n".join(out) + "\n"


def render_merged(parts):
    """Several registries of the same families (one engine a pod) as one
    exposition: each family's HELP and TYPE once, then every part's
    series with the part's extra labels.  parts: [(Registry, extra)]."""
    if not parts:
        return ""
    out = []
    for i, fam in enumerate(parts[0][0].families):
        lines = []
        for reg, extra in parts:
            sub = []
            reg.families[i].render(sub, extra)
            lines.extend(l for l in sub if not l.startswith("# "))
        if not lines:
            continue
        hname = fam.exposed if fam.kind == "counter" else fam.name
        if fam.help is not None:
            out.append("# HELP %s %s" % (hname, fam.help))
        out.append("# TYPE %s %s" % (hname, fam.kind))
        out.extend(lines)
    return "\n".join(out) + "\n"
