/*
 * lint.c - `staffer lint FILE...`: check ScaledObjects before they are
 * applied, with the messages the server would answer.
 *
 * Reads every YAML document of each FILE (`-` is stdin) with libyaml and
 * checks each ScaledObject (apiVersion keda.sh/v1alpha1, also inside a
 * `kind: List`).  Every trigger of type external or external-push is
 * staffer's (with --address TEXT: only those whose scalerAddress contains
 * TEXT).  For each of them:
 *
 *   errors    what the API server refuses: the ScaledObject against KEDA's
 *             CRD schema (crd.h: types, unknown fields, required fields,
 *             minReplicaCount <= maxReplicaCount), and what kubectl never
 *             sends, a merge key (<<) of anything but maps, wherever it
 *             stands in the object; a metadata value that is not a
 *             YAML string (an unquoted number or bool, a null, a list:
 *             metadata is map[string]string), a key given twice, no
 *             scalerAddress; what the server refuses, in its words: every
 *             key's own error (meta_set()), then the first cross-key
 *             error (meta_check()) unless it is about a key already
 *             reported; with --config FILE a `backend` the config does
 *             not declare (the message of scaler_parse()); two staffer
 *             triggers of one object with the same metricName (they would
 *             share the server's state, kept per ScaledObject and metric);
 *             a query that is not PromQL (promql.h's parser, with the
 *             position) or gives a range vector or a string.
 *   warnings  the HPA settings that make staffer's answer land late or
 *             not at all (docs/deploy.md, "ScaledObjects and the HPA"):
 *             metricType not AverageValue, no fallback or one whose
 *             behavior may shrink the fleet, scalingModifiers, another
 *             trigger in the object, no scaleUp tolerance or one above 0
 *             (when maxReplicaCount >= 10), a scale-up stabilization
 *             window, scale-up policies slower than the HPA's default,
 *             selectPolicy Min on scale-up or Disabled on either side, a
 *             scale-down stabilization window, maxReplicas above
 *             maxReplicaCount; and queries that give staffer the wrong
 *             number: several series (promql_one()), a fallback that
 *             reads 0 without data (`or vector(0)`) or an up guard
 *             without == 1, a counter without rate(), increase() or
 *             delta() not divided by its window, a _us/_ms service time
 *             not converted, serviceTime above 600 s.
 *
 *   documents what kubectl's YAML decoder refuses in the whole document
 *             (ydoc_check()): a `<<` of anything but maps outside the
 *             objects checked (a List's own fields, an object of another
 *             kind, a ScaledObject without a staffer trigger), a key
 *             that is a list or a map ("invalid map key") and a tag that
 *             does not fit its value ("cannot decode !!str `x` as a
 *             !!int", "!!binary value contains invalid base64 data")
 *             anywhere, and aliases that expand past go-yaml's
 *             bound ("document contains excessive aliasing"), as
 *             "FILE:LINE: KIND NS/NAME: PATH: MESSAGE".
 *
 *   pairs     after the last file, the triggers of one model's split
 *             fleet as a pair (lintpool.h): its prefill and decode pools
 *             scaling one target (error), a pool without its mate in the
 *             files, a pool sized twice, a unified trigger next to pools,
 *             the pools reading different input-token queries (warnings).
 *
 * Findings go to stdout, one line each, in line order per document (the
 * pairs' last):
 *   FILE:LINE: ScaledObject NS/NAME trigger N: MESSAGE
 *   FILE:LINE: warning: ScaledObject NS/NAME[ trigger N]: MESSAGE
 * N counts from 0, as in the HPA metric name sN-metricName; "NS/" is left
 * out when the object names no namespace.  Invalid YAML is reported the
 * same way (FILE:LINE: invalid YAML: ...).  Usage and I/O errors go to
 * stderr.  Exit status: 2 for bad usage, an unreadable file, invalid YAML
 * or no memory (the documents before a YAML error are still checked);
 * else 1 if there was an error (or, with --strict, a warning); else 0.
 *
 * The YAML is read as kubectl reads it by ydoc.c (typed scalars, merge
 * keys applied in every map, aliases never expanded), which `staffer
 * explain` shares: every key is read with ymap_get_merged() or ypath(),
 * and crd.c checks merged-in fields as written ones.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arr.h"
#include "ascii.h"
#include "cmd.h"
#include "config.h"
#include "crd.h"
#include "lintpool.h"
#include "meta.h"
#include "num.h"
#include "opt.h"
#include "promql.h"
#include "show.h"
#include "ycheck.h"
#include "ydoc.h"

#define LINT_LINE_MAX 1024         /* one finding, without FILE:LINE */
#define HPA_TOLERANCE_REPLICAS 10  /* where the 10 % band eats +-1 steps */
#define KEDA_MAX_REPLICAS 100      /* maxReplicaCount's default */
#define LINT_TRIGGERS_MAX 64       /* triggers compared for metricName */
/* The HPA's default scale-up: 100 % or 4 pods per 15 s, whichever is
 * more; slower policies make staffer's jumps land late. */
#define HPA_UP_PODS 4
#define HPA_UP_PERCENT 100
#define HPA_UP_PERIOD_S 15

/* ---- findings ----------------------------------------------------------- */

struct finding {
	unsigned long line;
	size_t seq;            /* order of report, for a stable sort */
	int warn;
	char *text;
};

struct lint {
	/* options */
	const struct config *cfg;   /* NULL: no backend checks */
	const char *address;        /* NULL: every external trigger */
	int strict;
	/* the file being read (its name as shown: lint_file(); NULL
	 * between files) and the findings of its current document */
	const char *file;
	struct finding *found;
	size_t n_found, cap_found;
	/* every staffer trigger that passed, for the pairs of pools */
	struct lintpool pools;
	/* the CRD schema, parsed at the first object checked against it
	 * (NULL until then) and kept for the run: not once per object */
	struct crd *crd;
	/* totals */
	unsigned long errors, warnings;
	int nomem;
};

/* The object a finding is about: "ScaledObject NS/NAME[ trigger N]". */
struct lint_obj {
	char who[YDOC_WHO_MAX];
	char ns[YDOC_WHO_MAX];      /* metadata.namespace, "" none */
	char target[YDOC_WHO_MAX];  /* scaleTargetRef's KIND/NAME, "" none */
	long max_replicas;          /* spec.maxReplicaCount, or 100 */
	int max_known;              /* 0: not a whole number, unknown */
	/* metricName of each staffer trigger checked so far */
	char metric[LINT_TRIGGERS_MAX][META_NAME_MAX];
	long metric_trigger[LINT_TRIGGERS_MAX];
	size_t n_metric;
};

/* A finding of the current document: text, without FILE:LINE. */
static void lint_add(struct lint *l, unsigned long line, int warn,
		     const char *text)
{
	struct finding *f;

	if (warn)
		l->warnings++;
	else
		l->errors++;
	f = arr_room(l->found, l->n_found, &l->cap_found, sizeof(*f));
	if (!f) {
		l->nomem = 1;
		return;
	}
	l->found = f;
	f = &l->found[l->n_found];
	f->text = strdup(text);
	if (!f->text) {
		l->nomem = 1;
		return;
	}
	f->line = line;
	f->warn = warn;
	f->seq = l->n_found++;
}

#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
static void lint_report(struct lint *l, unsigned long line, int warn,
			const struct lint_obj *o, long trigger,
			const char *fmt, ...)
{
	char text[LINT_LINE_MAX];
	va_list ap;
	int n;

	n = snprintf(text, sizeof(text), "ScaledObject %s", o->who);
	if (trigger >= 0)
		n += snprintf(text + n, sizeof(text) - (size_t)n,
			      " trigger %ld", trigger);
	n += snprintf(text + n, sizeof(text) - (size_t)n, ": ");
	va_start(ap, fmt);
	vsnprintf(text + n, sizeof(text) - (size_t)n, fmt, ap);
	va_end(ap);
	lint_add(l, line, warn, text);
}

static int finding_cmp(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Print the document's findings in line order and forget them. */
static void lint_flush(struct lint *l)
{
	size_t i;

	if (l->n_found == 0)
		return;
	qsort(l->found, l->n_found, sizeof(*l->found), finding_cmp);
	for (i = 0; i < l->n_found; i++) {
		printf("%s:%lu: %s%s\n", l->file, l->found[i].line,
		       l->found[i].warn ? "warning: " : "",
		       l->found[i].text);
		free(l->found[i].text);
	}
	l->n_found = 0;
}

/* ---- one trigger -------------------------------------------------------- */

/* The line of the key meta_parse() blamed, else fallback. */
static unsigned long md_line(const struct ydoc_md *md, const char *key,
			     unsigned long fallback)
{
	size_t i = ydoc_md_find(md, key);

	return i < md->n ? md->knodes[i]->line : fallback;
}

/* --config: the backend must be declared, and open to the object's
 * namespace when it names one (scaler_parse()'s messages). */
static void lint_backend(struct lint *l, const struct lint_obj *o, long t,
			 const struct ydoc_md *md, const struct meta *m,
			 unsigned long line)
{
	char msg[LINT_LINE_MAX];
	/* metadata.namespace as written (not o->who, which is cut for
	 * showing); without one only the backend is checked, as the
	 * namespace is kubectl's to choose */
	const char *nsp = o->ns[0] ? o->ns : NULL;

	if (!l->cfg)
		return;
	/* The server's own check and sentence (config.h) */
	switch (config_use(l->cfg, m->backend, nsp, msg, sizeof(msg))) {
	case CONFIG_USE_OK:
		break;
	case CONFIG_USE_UNDECLARED:
		lint_report(l, md_line(md, "backend", line), 0, o, t, "%s",
			    msg);
		break;
	case CONFIG_USE_DENIED:
		lint_report(l, md_line(md, "backend", line), 0, o, t,
			    "%s; the server answers PERMISSION_DENIED", msg);
		break;
	}
}

/* Known keys whose names end in "Query" are PromQL. */
static int lint_is_query_key(const char *key)
{
	size_t i, n = strlen(key);

	if (n < 5 || strcmp(key + n - 5, "Query"))
		return 0;
	for (i = 0; i < meta_key_count(); i++)
		if (!strcmp(meta_key_name(i), key))
			return 1;
	return 0;
}

/* ---- the queries -------------------------------------------------------- */

static int md_reported(const struct ydoc_md *md, size_t i);

/* Longest service time lint takes for seconds without a word: 10 min a
 * request is a batch job, or milliseconds typed as seconds. */
#define LINT_SERVICE_TIME_MAX_S 600

/* A query key whose value is a rate in requests per second. */
static int lint_rate_key(const char *key)
{
	return !strcmp(key, "arrivalRateQuery") || !strcmp(key, "shedRateQuery");
}

/* Does the metric name of selector node i end with one of suffixes? */
static int lint_suffix(const struct promql_ast *a, int i,
		       const char *const *suffixes)
{
	const struct promql_node *n = &a->nodes[i];
	size_t k, len;

	for (k = 0; suffixes[k]; k++) {
		len = strlen(suffixes[k]);
		if (n->name.len > len &&
		    !memcmp(a->text + n->name.pos + n->name.len - len,
			    suffixes[k], len))
			return 1;
	}
	return 0;
}

/* The first instant selector of a counter (_total, _count, _sum,
 * _bucket) under node i that no range function or subquery reads, or
 * -1: its value is a count since the pod started, not a rate. */
static int lint_bare_counter(const struct promql_ast *a, int i)
{
	static const char *const counters[] = {
		"_total", "_count", "_sum", "_bucket", NULL };
	const struct promql_node *n;
	int x, r;

	if (i < 0)
		return -1;
	n = &a->nodes[i];
	switch (n->kind) {
	case PROMQL_SELECTOR:
		return n->range_s == 0 && lint_suffix(a, i, counters) ? i : -1;
	case PROMQL_SUBQUERY:
		return -1;
	case PROMQL_CALL:
	case PROMQL_AGG:
		for (x = n->arg; x >= 0; x = a->nodes[x].next)
			if ((r = lint_bare_counter(a, x)) >= 0)
				return r;
		return -1;
	default:
		if ((r = lint_bare_counter(a, n->lhs)) >= 0)
			return r;
		return lint_bare_counter(a, n->rhs);
	}
}

/*
 * What a rate query's value is per: 1 when known, with *per the seconds
 * (1: per second, as rate() gives; 60: per minute, as increase(x[1m])
 * gives), *from the call that decides it.  0 when it cannot tell.
 */
static int lint_per(const struct promql_ast *a, int i, double *per,
		    int *from)
{
	const struct promql_node *n;
	const char *f;
	double l, r;
	int fl, fr, kl, kr;

	if (i < 0)
		return 0;
	n = &a->nodes[i];
	switch (n->kind) {
	case PROMQL_CALL:
		f = promql_func_name(n->fn);
		if (!strcmp(f, "rate") || !strcmp(f, "irate")) {
			*per = 1;
			*from = i;
			return 1;
		}
		if ((!strcmp(f, "increase") || !strcmp(f, "delta")) &&
		    n->arg >= 0 && a->nodes[n->arg].range_s > 0) {
			*per = a->nodes[n->arg].range_s;
			*from = i;
			return 1;
		}
		if (n->arg >= 0 && a->nodes[n->arg].type == PROMQL_VECTOR)
			return lint_per(a, n->arg, per, from);
		return 0;
	case PROMQL_AGG:
		return lint_per(a, n->arg, per, from);
	case PROMQL_PAREN:
	case PROMQL_UNARY:
		return lint_per(a, n->lhs, per, from);
	case PROMQL_BINARY:
		kl = lint_per(a, n->lhs, &l, &fl);
		kr = lint_per(a, n->rhs, &r, &fr);
		/* increase(x[1m]) / 60 is per second; any other factor
		 * scales the value, not its unit */
		if ((n->op == PROMQL_OP_DIV || n->op == PROMQL_OP_MUL) && kl &&
		    a->nodes[n->rhs].kind == PROMQL_NUMBER) {
			*per = n->op == PROMQL_OP_DIV &&
			       fabs(a->nodes[n->rhs].value - l) <= 1e-9 * l ?
			       1 : l;
			*from = fl;
			return 1;
		}
		if (n->op == PROMQL_OP_DIV || n->op == PROMQL_OP_MUL ||
		    n->op == PROMQL_OP_POW || n->op == PROMQL_OP_ATAN2)
			return 0;
		/* + - or and unless comparisons: the sides', if they agree */
		if (kl && kr && fabs(l - r) > 1e-9 * l)
			return 0;
		if (kl) {
			*per = l;
			*from = fl;
			return 1;
		}
		if (kr) {
			*per = r;
			*from = fr;
		}
		return kr;
	default:
		return 0;
	}
}

/*
 * The unit of a service time query's value: 1 with *scale such that
 * value * scale is in seconds (1e-6 for a _us metric), *from the selector
 * that decides it; 0 when it cannot tell (no time unit in the names).
 */
static int lint_time_unit(const struct promql_ast *a, int i, double *scale,
			  int *from)
{
	static const struct {
		const char *suffix;
		double scale;
	} units[] = {
		{ "_seconds", 1 }, { "_us", 1e-6 }, { "_microseconds", 1e-6 },
		{ "_ms", 1e-3 }, { "_milliseconds", 1e-3 }, { "_ns", 1e-9 },
		{ "_nanoseconds", 1e-9 }, { "_minutes", 60 },
		{ "_hours", 3600 },
	};
	static const char *const parts[] = {
		"_sum", "_bucket", "_total", "" };
	const struct promql_node *n;
	double l, r, c;
	int fl, fr, kl, kr, x;
	size_t k, m, len, plen;

	if (i < 0)
		return 0;
	n = &a->nodes[i];
	switch (n->kind) {
	case PROMQL_SELECTOR:
		for (m = 0; m < sizeof(parts) / sizeof(parts[0]); m++) {
			plen = strlen(parts[m]);
			if (n->name.len <= plen ||
			    memcmp(a->text + n->name.pos + n->name.len - plen,
				   parts[m], plen))
				continue;
			for (k = 0; k < sizeof(units) / sizeof(units[0]); k++) {
				len = strlen(units[k].suffix);
				if (n->name.len > len + plen &&
				    !memcmp(a->text + n->name.pos +
					    n->name.len - plen - len,
					    units[k].suffix, len)) {
					*scale = units[k].scale;
					*from = i;
					return 1;
				}
			}
		}
		return 0;
	case PROMQL_CALL:
		if (!strcmp(promql_func_name(n->fn), "histogram_quantile") &&
		    n->arg >= 0)
			return lint_time_unit(a, a->nodes[n->arg].next, scale,
					      from);
		for (x = n->arg; x >= 0; x = a->nodes[x].next)
			if (a->nodes[x].type == PROMQL_VECTOR ||
			    a->nodes[x].type == PROMQL_MATRIX)
				return lint_time_unit(a, x, scale, from);
		return 0;
	case PROMQL_AGG:
		if (!strcmp(promql_agg_name(n->fn), "count") ||
		    !strcmp(promql_agg_name(n->fn), "count_values"))
			return 0;
		return lint_time_unit(a, n->arg, scale, from);
	case PROMQL_PAREN:
	case PROMQL_UNARY:
	case PROMQL_SUBQUERY:
		return lint_time_unit(a, n->lhs, scale, from);
	case PROMQL_BINARY:
		kl = lint_time_unit(a, n->lhs, &l, &fl);
		kr = lint_time_unit(a, n->rhs, &r, &fr);
		if ((n->op == PROMQL_OP_DIV || n->op == PROMQL_OP_MUL) &&
		    (a->nodes[n->rhs].kind == PROMQL_NUMBER ||
		     a->nodes[n->lhs].kind == PROMQL_NUMBER)) {
			int num_right = a->nodes[n->rhs].kind == PROMQL_NUMBER;

			c = a->nodes[num_right ? n->rhs : n->lhs].value;
			if (!(c > 0) || !isfinite(c) || !(num_right ? kl : kr) ||
			    (n->op == PROMQL_OP_DIV && !num_right))
				return 0;
			*scale = (num_right ? l : r) *
				 (n->op == PROMQL_OP_DIV ? c : 1 / c);
			*from = num_right ? fl : fr;
			return 1;
		}
		if (n->op == PROMQL_OP_DIV)
			/* time over count: time per request; time over time:
			 * a ratio */
			return kl && !kr ? (*scale = l, *from = fl, 1) : 0;
		if (n->op == PROMQL_OP_MUL)
			return kl != kr ? (kl ? (*scale = l, *from = fl, 1) :
					   (*scale = r, *from = fr, 1)) : 0;
		if (n->op == PROMQL_OP_ADD || n->op == PROMQL_OP_SUB ||
		    n->op == PROMQL_OP_OR) {
			if (kl && kr && fabs(l - r) > 1e-9 * fabs(l))
				return 0;
			if (kl)
				return *scale = l, *from = fl, 1;
			if (kr)
				return *scale = r, *from = fr, 1;
		}
		return 0;
	default:
		return 0;
	}
}

/* "x", "x (character 4)": a node's text, cut, for a message. */
static const char *lint_node(const struct promql_ast *a, int i, char *buf,
			     size_t size)
{
	char t[72];

	promql_text(a, i, t, sizeof(t));
	show_text(buf, size > 4 ? size - 4 : 0, t, strlen(t));
	return buf;
}

/* The `up` selector to suggest for a guard: the target labels (job,
 * namespace, service, pod) of the measured part's first selector. */
static void lint_up_guard(const struct promql_ast *a, char *buf,
			  size_t size)
{
	static const char *const target[] = {
		"job", "namespace", "service", NULL };
	const struct promql_node *n;
	size_t i, len = 0, k;
	unsigned m;
	int first = 1;

	len += (size_t)snprintf(buf, size, "up{");
	for (i = 0; i < a->n; i++) {
		n = &a->nodes[i];
		if (n->kind != PROMQL_SELECTOR ||
		    (n->name.len == 2 && !memcmp(a->text + n->name.pos, "up", 2)))
			continue;
		for (k = 0; target[k]; k++)
			for (m = 0; m < n->nm; m++) {
				const struct promql_matcher *x =
					&a->matchers[n->m0 + m];

				if (x->op != PROMQL_EQ ||
				    x->name.len != strlen(target[k]) ||
				    memcmp(a->text + x->name.pos, target[k],
					   x->name.len) || x->value.len > 60 ||
				    len >= size)
					continue;
				len += (size_t)snprintf(buf + len, size - len,
					"%s%s=\"%.*s\"", first ? "" : ",",
					target[k], (int)x->value.len,
					a->text + x->value.pos);
				first = 0;
			}
		break;
	}
	if (first && len < size)
		len += (size_t)snprintf(buf + len, size - len,
					"job=\"<the exporter's job>\"");
	if (len < size)
		snprintf(buf + len, size - len, "}");
}

/* Does an `up` selector under node i sit under a comparison that keeps
 * only targets that are up (== 1, > 0, >= 1)? */
static int lint_up_compared(const struct promql_ast *a, int i, int under)
{
	const struct promql_node *n;
	int x, cmp;

	if (i < 0)
		return 1;
	n = &a->nodes[i];
	if (n->kind == PROMQL_SELECTOR)
		return !(n->name.len == 2 &&
			 !memcmp(a->text + n->name.pos, "up", 2)) || under;
	cmp = n->kind == PROMQL_BINARY && !n->bool_mod &&
	      (n->op == PROMQL_OP_EQL || n->op == PROMQL_OP_GTR ||
	       n->op == PROMQL_OP_GTE);
	if (n->kind == PROMQL_CALL || n->kind == PROMQL_AGG) {
		for (x = n->arg; x >= 0; x = a->nodes[x].next)
			if (!lint_up_compared(a, x, under))
				return 0;
		return 1;
	}
	return lint_up_compared(a, n->lhs, under || cmp) &&
	       lint_up_compared(a, n->rhs, under || cmp);
}

/*
 * One query of a trigger: what the backend would refuse (an error: the
 * syntax, with its position) and what it accepts but is wrong for
 * staffer (warnings: several series, a fallback that turns missing data
 * into 0, units).
 */
static void lint_query(struct lint *l, const struct lint_obj *o, long t,
		       const char *key, const char *q, unsigned long line)
{
	struct promql_ast a;
	struct promql_error e;
	struct promql_fallback fb;
	char where[48], near[96], what[96], guard[200];
	double per, scale;
	int from, r;
	size_t len = strlen(q), lo, hi;

	switch (promql_parse(&a, q, len, &e)) {
	case PROMQL_OK:
		break;
	case PROMQL_ENOMEM:
		l->nomem = 1;
		return;
	default:
		promql_where(q, len, e.pos, where, sizeof(where));
		lo = e.pos > 30 ? e.pos - 30 : 0;
		hi = e.pos + 30 < len ? e.pos + 30 : len;
		show_escaped(near, 70, q + lo, hi - lo);
		lint_report(l, line, 0, o, t, "metadata '%s' is not valid "
			    "PromQL, and the backend refuses it: at %s, %s "
			    "(near %s%s%s)", key, where, e.msg,
			    lo ? "..." : "", near, hi < len ? "..." : "");
		return;
	}
	if (a.nodes[a.root].type != PROMQL_VECTOR &&
	    a.nodes[a.root].type != PROMQL_SCALAR) {
		lint_report(l, line, 0, o, t, "metadata '%s' gives a %s; "
			    "staffer needs one number (an instant vector of "
			    "one series, or a scalar)%s", key,
			    promql_type_name(a.nodes[a.root].type),
			    a.nodes[a.root].type == PROMQL_MATRIX ? ": wrap "
			    "it in a function such as rate() and sum()" : "");
		goto out;
	}
	if (!promql_one(&a, a.root))
		lint_report(l, line, 1, o, t, "metadata '%s' may return "
			    "several series (it is not aggregated to one at "
			    "its top level); it must return exactly one: "
			    "wrap it in sum() (see docs/lint.md)", key);
	if (promql_constant(&a, a.root) && promql_fallback(&a, &fb)) {
		const struct promql_node *f = &a.nodes[fb.node];
		size_t at = a.nodes[f->lhs].end;

		/* the fallback as written: "or on() vector(0)" */
		while (at < f->end && ascii_is_space((unsigned char)q[at]))
			at++;
		show_text(what, sizeof(what) - 4, q + at, f->end - at);
		lint_up_guard(&a, guard, sizeof(guard));
		lint_report(l, line, 1, o, t, "metadata '%s' ends in '%s': "
			    "when the scrape fails or the metric is renamed "
			    "it reads 0, not \"no data\", and staffer acts on "
			    "that 0 (scales the model down) instead of holding "
			    "its last answer; guard the fallback so that it "
			    "reads 0 only while the exporter is up: ... or "
			    "(0 * max(%s == 1)) (docs/cookbook.md)", key, what,
			    guard);
	} else if (promql_constant(&a, a.root)) {
		lint_report(l, line, 1, o, t, "metadata '%s' answers even "
			    "when none of its metrics has a series (a "
			    "constant or an `or vector(0)` inside): a failed "
			    "scrape reads as a number, not as \"no data\"; "
			    "let it return nothing when its metrics are "
			    "missing (docs/cookbook.md)", key);
	} else if (promql_fallback(&a, &fb) && fb.up >= 0 &&
		   !lint_up_compared(&a, a.nodes[fb.node].rhs, 0)) {
		lint_report(l, line, 1, o, t, "metadata '%s': the fallback "
			    "'%s' reads 0 while the exporter is down too (up "
			    "is then 0, not absent): keep only the targets "
			    "that are up, e.g. 0 * max(%s == 1)", key,
			    lint_node(&a, a.nodes[fb.node].rhs, what,
				      sizeof(what)),
			    lint_node(&a, fb.up, guard, sizeof(guard)));
	}
	if (lint_rate_key(key) || !strcmp(key, "serviceTimeQuery")) {
		r = lint_bare_counter(&a, a.root);
		if (r >= 0)
			lint_report(l, line, 1, o, t, "metadata '%s' reads the "
				    "counter '%s' without rate(): a counter "
				    "only grows, so this is a total since the "
				    "pod started, not %s; use sum(rate(%s[1m]))"
				    "%s", key, lint_node(&a, r, what,
							  sizeof(what)),
				    lint_rate_key(key) ? "a rate per second" :
				    "a recent mean", what,
				    lint_rate_key(key) ? "" : " over rate() of "
				    "its _count");
	}
	if (lint_rate_key(key) && lint_per(&a, a.root, &per, &from) &&
	    fabs(per - 1) > 1e-9) {
		int inc = !strcmp(promql_func_name(a.nodes[from].fn),
				  "increase");

		lint_report(l, line, 1, o, t, "metadata '%s' is in requests "
			    "per %g s (%s), and staffer wants requests per "
			    "second: %s %g", key, per,
			    lint_node(&a, from, what, sizeof(what)), inc ?
			    "use rate() instead of increase(), or divide by" :
			    "divide the delta() by its window,", per);
	}
	if (!strcmp(key, "serviceTimeQuery") &&
	    lint_time_unit(&a, a.root, &scale, &from) &&
	    fabs(scale - 1) > 1e-9) {
		double f = scale < 1 ? 1 / scale : scale;
		char fs[32];

		/* 1e6 as a user writes it, not %g's 1e+06 */
		if (f >= 1e4 && fabs(log10(f) - round(log10(f))) < 1e-9)
			snprintf(fs, sizeof(fs), "1e%d", (int)round(log10(f)));
		else
			snprintf(fs, sizeof(fs), "%g", f);
		lint_report(l, line, 1, o, t, "metadata 'serviceTimeQuery' "
			    "is in %s ('%s'), and staffer wants seconds: %s "
			    "%s", scale == 1e-6 ? "microseconds" :
			    scale == 1e-3 ? "milliseconds" :
			    scale == 1e-9 ? "nanoseconds" : "another unit",
			    lint_node(&a, from, what, sizeof(what)),
			    scale < 1 ? "divide by" : "multiply by", fs);
	}
out:
	promql_release(&a);
}

/* Every query of a trigger, and serviceTime's unit. */
static void lint_queries(struct lint *l, const struct lint_obj *o, long t,
			 const struct ydoc_md *md)
{
	double v;
	char *end;
	size_t i;

	for (i = 0; i < md->n; i++) {
		if (md->vnodes[i]->kind != YN_SCALAR || md_reported(md, i))
			continue;
		if (lint_is_query_key(md->keys[i]))
			lint_query(l, o, t, md->keys[i], md->values[i],
				   md->knodes[i]->line);
		if (!strcmp(md->keys[i], "serviceTime")) {
			v = strtod(md->values[i], &end);
			if (end != md->values[i] && !*end &&
			    v > LINT_SERVICE_TIME_MAX_S && v <= 86400)
				lint_report(l, md->knodes[i]->line, 1, o, t,
					    "metadata 'serviceTime' is %g s "
					    "(%.0f min) a request: serviceTime "
					    "is in seconds; if that is "
					    "milliseconds, write \"%g\"", v,
					    v / 60, v / 1000);
		}
	}
}

/* Warnings about one trigger, from its raw metadata and, when it parsed
 * (m != NULL), from the result. */
static void lint_trigger_warnings(struct lint *l, const struct lint_obj *o,
				  long t, const struct ydoc *d,
				  const struct ynode *trig,
				  const struct ydoc_md *md, const struct meta *m)
{
	const struct ynode *k = NULL, *v;
	char val[YDOC_SHOW_BUF];

	v = ymap_get_merged(d, trig, "metricType", &k);
	if (v && (!ytext(v) || strcmp(v->text, "AverageValue")))
		lint_report(l, k->line, 1, o, t, "metricType '%s': staffer "
			    "needs AverageValue; its answer is a replica "
			    "count against a target of 1, and with Value the "
			    "HPA multiplies it by the ready pods; leave "
			    "metricType out", ydoc_show(val, v));
	if (m && m->model.max_replicas > 0 && o->max_known &&
	    m->model.max_replicas > o->max_replicas)
		lint_report(l, md_line(md, "maxReplicas", trig->line), 1, o,
			    t, "metadata 'maxReplicas' is %ld, above "
			    "maxReplicaCount %ld: the HPA caps at %ld anyway; "
			    "set maxReplicas to %ld or lower so that "
			    "staffer's answer stays within it",
			    m->model.max_replicas, o->max_replicas,
			    o->max_replicas, o->max_replicas);
	/* The SLO feedback only ever adds capacity (docs/math.md), so it
	 * mends a W told too low, never one told too high. */
	if (m && m->sla_miss_query && !m->service_time_query &&
	    ydoc_md_find(md, "serviceTimeQueryFromEnv") >= md->n)
		lint_report(l, md_line(md, "slaMissQuery", trig->line), 1, o,
			    t, "metadata 'slaMissQuery' without "
			    "'serviceTimeQuery': the SLO feedback adds "
			    "capacity when W is told too low but never "
			    "removes it when W is too high, so a stale "
			    "'serviceTime' above the real W keeps the fleet "
			    "too big; measure W with serviceTimeQuery");
}

/* Where ydoc_md_collect()'s reports go: trigger t of object o. */
struct lint_where {
	struct lint *l;
	const struct lint_obj *o;
	long t;
};

static void lint_md_report(void *arg, unsigned long line, const char *msg)
{
	const struct lint_where *w = arg;

	lint_report(w->l, line, 0, w->o, w->t, "%s", msg);
}

/* A metadata value lint already reported at the YAML level (not a plain
 * string, or a key given again): the server's checks skip it.  A value
 * `<<` (YT_MERGE: ydoc types the scalar, not its place) is the string
 * "<<" to go-yaml, which takes a merge key only as a key, and ydoc.c
 * reports nothing for it (md_check_value()): the server's checks have
 * it.
 * O(1): it is asked of every key (a scan of the keys before it made a
 * metadata map of 100,000 keys quadratic). */
static int md_reported(const struct ydoc_md *md, size_t i)
{
	const struct ynode *v = md->vnodes[i];

	if (v->kind != YN_SCALAR || (v->type != YT_STR &&
	    v->type != YT_MERGE && !(v->type == YT_TAGGED &&
	      !strcmp(ytag(v), "tag:yaml.org,2002:str"))) ||
	    memchr(v->text, '\0', v->len))
		return 1;
	/* given again: an earlier key has its text */
	return ydoc_md_find(md, md->keys[i]) != i;
}

/* err is about key: its key, or 'key' quoted in its sentence. */
static int lint_names(const struct meta_error *err, const char *key)
{
	char q[META_NAME_MAX + 2];

	if (!strcmp(err->key, key))
		return 1;
	snprintf(q, sizeof(q), "'%s'", key);
	return strstr(err->msg, q) != NULL;
}

/*
 * meta_parse() as the server will see it, but every key's own error is
 * reported, not only the first: fix-and-rerun becomes fix once.  Then the
 * first cross-key error (meta_check() stops there), unless it is about a
 * key already reported (a required key that is there but bad is not also
 * "missing").  "<key>FromEnv" holds a variable that KEDA resolves in the
 * cluster: only its name is checked here (meta_defer()).  Returns the
 * number of errors, or -1 out of memory.
 */
static int lint_meta(struct lint *l, const struct lint_obj *o, long t,
		     struct meta *m, const struct ydoc_md *md,
		     unsigned long line, int yaml_bad)
{
	struct meta_error err;
	enum meta_err rc;
	unsigned char *bad;
	size_t i, j;
	int n = yaml_bad, skip;

	bad = calloc(md->n + 1, 1);
	if (!bad)
		return -1;
	for (i = 0; i < md->n; i++) {
		if (md_reported(md, i)) {
			bad[i] = 1;
			continue;
		}
		rc = meta_from_env_base(md->keys[i])
		     ? meta_defer(m, md->keys[i], md->values[i], &err)
		     : meta_set(m, md->keys[i], md->values[i], &err);
		if (rc == META_ENOMEM) {
			n = -1;
			goto out;
		}
		if (rc != META_OK) {
			bad[i] = 1;
			lint_report(l, md_line(md, err.key, line), 0, o, t, "%s",
				    err.msg);
			n++;
		}
	}
	rc = meta_check(m, 1, &err);
	if (rc == META_ENOMEM) {
		n = -1;
		goto out;
	}
	if (rc != META_OK) {
		/* about a key whose value was refused above (the error's
		 * key, or one its sentence names): said already */
		for (j = 0, skip = 0; j < md->n && !skip; j++) {
			const char *base = meta_from_env_base(md->keys[j]);

			skip = bad[j] && (lint_names(&err, md->keys[j]) ||
					  (base && lint_names(&err, base)));
		}
		if (!skip || n == 0) {
			lint_report(l, md_line(md, err.key, line), 0, o, t,
				    "%s", err.msg);
			n++;
		}
	}
out:
	free(bad);
	return n;
}

/* Two staffer triggers of one object with one metricName: the server
 * keeps their state apart (it is keyed by the whole metadata, scaler.h),
 * but reports targets and signals per (ScaledObject, metricName), so
 * their /metrics series and log lines would be one. */
static void lint_metric_name(struct lint *l, struct lint_obj *o, long t,
			     const struct ydoc_md *md, const struct meta *m,
			     unsigned long line)
{
	size_t i;

	for (i = 0; i < o->n_metric; i++)
		if (!strcmp(o->metric[i], m->metric_name)) {
			lint_report(l, md_line(md, "metricName", line), 0, o,
				    t, "metadata 'metricName': '%s' is also "
				    "trigger %ld's: staffer reports each trigger's "
				    "target and signals per ScaledObject and "
				    "metricName (/metrics, decision logs), so "
				    "the two triggers would overwrite each "
				    "other's series; give each trigger its own "
				    "metricName", m->metric_name,
				    o->metric_trigger[i]);
			return;
		}
	if (o->n_metric < LINT_TRIGGERS_MAX) {
		snprintf(o->metric[o->n_metric], META_NAME_MAX, "%s",
			 m->metric_name);
		o->metric_trigger[o->n_metric++] = t;
	}
}

/* Check trigger number t.  -1: no memory. */
static int lint_trigger(struct lint *l, struct lint_obj *o, long t,
			const struct ydoc *d, const struct ynode *trig)
{
	struct lint_where w = { l, o, t };
	struct ydoc_md md;
	struct meta m;
	unsigned long line;
	int rc = -1, r, errors;

	memset(&md, 0, sizeof(md));
	meta_init(&m);
	r = ydoc_md_collect(d, trig, &md, &line, lint_md_report, &w);
	if (r < 0)
		goto out;
	if (r > 0) {
		rc = 0;
		goto out;
	}
	lint_queries(l, o, t, &md);
	if (ydoc_md_find(&md, "scalerAddress") == md.n)
		lint_report(l, line, 0, o, t, "metadata 'scalerAddress' is "
			    "required by KEDA: the address of staffer's gRPC "
			    "service, e.g. staffer.keda.svc:9090");
	errors = lint_meta(l, o, t, &m, &md, line, md.bad);
	if (errors < 0)
		goto out;
	rc = 0;
	if (errors) {
		lint_trigger_warnings(l, o, t, d, trig, &md, NULL);
		goto out;
	}
	lint_backend(l, o, t, &md, &m, line);
	lint_metric_name(l, o, t, &md, &m, line);
	if (lintpool_add(&l->pools, l->file, line, o->who, o->ns, t, &m,
			 o->target))
		l->nomem = 1;
	lint_trigger_warnings(l, o, t, d, trig, &md, &m);
out:
	meta_release(&m);
	ydoc_md_release(&md);
	return rc;
}

/* ---- one ScaledObject --------------------------------------------------- */

/* A Kubernetes quantity as the HPA reads tolerance: "0", "0.2", "200m".
 * 0, or -1 when it is not one (the CRD check reports that). */
static int lint_quantity(const char *text, double *out)
{
	char *end;
	double v;

	if (!text)
		return -1;
	v = strtod(text, &end);
	if (end == text)
		return -1;
	if (*end == 'm' && !end[1])
		v /= 1000;
	else if (*end)
		return -1;
	*out = v;
	return 0;
}

/* A behavior key's value under spec.advanced...behavior.<side>. */
/* n, or NULL for a null (~, null, empty) value: the API server prunes a
 * null field, so it is absent, as docs/lint.md says. */
static const struct ynode *ynn(const struct ynode *n)
{
	return n && n->kind == YN_SCALAR && n->type == YT_NULL ? NULL : n;
}

static const struct ynode *lint_behavior(const struct ydoc *d,
					 const struct ynode *obj,
					 const char *side, const char *key,
					 unsigned long *line)
{
	const char *const path[] = {
		"spec", "advanced", "horizontalPodAutoscalerConfig",
		"behavior", side, key, NULL };

	return ynn(ypath(d, obj, path, line));
}

/* Scale-up policies slower than the HPA's default (100 % or 4 pods per
 * 15 s): with selectPolicy Max (the default) only when all are, with Min
 * when any is. */
static void lint_up_policies(struct lint *l, const struct lint_obj *o,
			     const struct ydoc *d, const struct ynode *obj,
			     int select_min, unsigned long line)
{
	const struct ynode *pol, *p, *k = NULL;
	const char *type, *vt, *pt;
	char ts[YDOC_SHOW_BUF], vs[YDOC_SHOW_BUF], ps[YDOC_SHOW_BUF];
	unsigned long at = line;
	long value, period;
	size_t i, slow = 0, n = 0;
	/* the first slow policy, and its type's node (the loop's p is any
	 * policy) */
	const struct ynode *first = NULL, *first_type;
	double rate, fast;

	pol = lint_behavior(d, obj, "scaleUp", "policies", &at);
	if (!pol || pol->kind != YN_SEQ)
		return;
	for (i = 0; i < pol->n_kids; i++) {
		p = &d->nodes[pol->kids[i]];
		type = ytext(ymap_get_merged(d, p, "type", NULL));
		vt = ytext(ymap_get_merged(d, p, "value", NULL));
		pt = ytext(ymap_get_merged(d, p, "periodSeconds", NULL));
		if (!type || !vt || !pt || num_parse_long(vt, &value) ||
		    num_parse_long(pt, &period) || period <= 0)
			continue;
		n++;
		rate = (double)value / (double)period;
		fast = !strcmp(type, "Pods") ?
		       (double)HPA_UP_PODS / HPA_UP_PERIOD_S :
		       (double)HPA_UP_PERCENT / HPA_UP_PERIOD_S;
		if (rate < fast) {
			slow++;
			if (!first)
				first = p;
		}
	}
	if (!first || (!select_min && slow < n))
		return;
	/* the policy's own words, shown: type may be any text */
	vt = ydoc_show(vs, ymap_get_merged(d, first, "value", &k));
	pt = ydoc_show(ps, ymap_get_merged(d, first, "periodSeconds", NULL));
	first_type = ymap_get_merged(d, first, "type", NULL);
	type = ydoc_show(ts, first_type);
	lint_report(l, k ? k->line : at, 1, o, -1, "scaleUp policy {type: %s, "
		    "value: %s, periodSeconds: %s} lets the HPA add at most "
		    "%s%s per %s s%s: staffer's jumps (a burst, a shedding "
		    "boost) land that slowly; allow at least %d%% or %d pods "
		    "per %d s, the HPA's default", type, vt, pt, vt,
		    !strcmp(ytext(first_type), "Pods") ? " pod(s)" : "%",
		    pt,
		    select_min ? " (selectPolicy Min: the slowest policy wins)" :
		    "", HPA_UP_PERCENT, HPA_UP_PODS, HPA_UP_PERIOD_S);
}

/* spec.fallback whose behavior may shrink the fleet: KEDA's default,
 * static, sets it to fallback.replicas whatever it runs now. */
static void lint_fallback_behavior(struct lint *l, const struct lint_obj *o,
				   const struct ydoc *d,
				   const struct ynode *obj, unsigned long line)
{
	static const char *const fallback[] = { "spec", "fallback", NULL };
	const struct ynode *fb, *b, *k = NULL, *r;
	unsigned long at = line;
	const char *bt;
	char who[64 + YDOC_SHOW_BUF] = "", rt[YDOC_SHOW_BUF];

	fb = ynn(ypath(d, obj, fallback, &at));
	if (!fb || fb->kind != YN_MAP)
		return;
	b = ynn(ymap_get_merged(d, fb, "behavior", &k));
	bt = ytext(b);
	/* an unknown behavior is the CRD check's to report */
	if (bt && strcmp(bt, "static") && strcmp(bt, "currentReplicasIfLower"))
		return;
	r = ynn(ymap_get_merged(d, fb, "replicas", NULL));
	if (ytext(r) && o->max_known)
		snprintf(who, sizeof(who), " (%s replicas, where "
			 "maxReplicaCount allows %ld)", ydoc_show(rt, r),
			 o->max_replicas);
	lint_report(l, k ? k->line : at, 1, o, -1, "spec.fallback has %s%s: "
		    "during a metrics outage KEDA then sets the fleet to "
		    "fallback.replicas%s whatever it runs now, and a busy "
		    "fleet shrinks in the middle of its peak; set behavior: "
		    "currentReplicasIfHigher, which keeps the fleet as it is "
		    "and never goes below fallback.replicas",
		    bt ? "behavior: " : "no behavior (KEDA's default is "
		    "static)", bt ? bt : "", who);
}

/* Other triggers in staffer's ScaledObject, and scalingModifiers: the
 * HPA then no longer lands on staffer's number. */
static void lint_modifiers(struct lint *l, const struct lint_obj *o,
			   const struct ydoc *d, const struct ynode *obj,
			   unsigned long line)
{
	static const char *const mods[] = {
		"spec", "advanced", "scalingModifiers", NULL };
	static const char *const triggers[] = { "spec", "triggers", NULL };
	const struct ynode *v, *trs, *tr, *k = NULL;
	unsigned long at = line;
	char type[YDOC_SHOW_BUF];
	size_t i;

	v = ypath(d, obj, mods, &at);
	if (v)
		lint_report(l, at, 1, o, -1, "spec.advanced.scalingModifiers: "
			    "KEDA hands the HPA the formula's result against "
			    "its own target instead of staffer's replica count "
			    "against a target of 1, so staffer's answer is "
			    "only an input to the formula (and its fallback "
			    "the formula's); remove scalingModifiers: staffer's "
			    "answer already is the replica count");
	at = line;
	trs = ypath(d, obj, triggers, &at);
	if (!trs || trs->kind != YN_SEQ)
		return;
	for (i = 0; i < trs->n_kids; i++) {
		tr = &d->nodes[trs->kids[i]];
		if (ydoc_is_external(d, tr, l->address))
			continue;
		v = ymap_get_merged(d, tr, "type", &k);
		lint_report(l, k ? k->line : tr->line, 1, o, (long)i,
			    "a trigger of type '%s' in staffer's "
			    "ScaledObject: the HPA scales to the highest of "
			    "the triggers' answers, so staffer's answer only "
			    "counts when it is the highest (its scale-down "
			    "never happens while this one asks for more), and "
			    "while staffer cannot be reached KEDA's errors for "
			    "the object blank this trigger's metric too; give "
			    "staffer's trigger a ScaledObject of its own, or "
			    "remove this one", ydoc_show(type, v));
	}
}

/* The HPA settings of the whole object (docs/deploy.md, "ScaledObjects
 * and the HPA"). */
static void lint_object_warnings(struct lint *l, const struct lint_obj *o,
				 const struct ydoc *d,
				 const struct ynode *obj)
{
	static const char *const spec[] = { "spec", NULL };
	static const char *const fallback[] = { "spec", "fallback", NULL };
	const struct ynode *v;
	unsigned long line = obj->line, at;
	long window;
	double tol;
	int up_min = 0;

	ypath(d, obj, spec, &line);
	at = line;
	if (!ynn(ypath(d, obj, fallback, &at)))
		lint_report(l, at, 1, o, -1, "no 'fallback': through a "
			    "backend outage staffer holds its last answer "
			    "only for staleHoldSeconds (default 300 s), then "
			    "fails, and without fallback the HPA freezes the "
			    "fleet whatever the traffic does; set "
			    "spec.fallback (e.g. failureThreshold: 3, "
			    "behavior: currentReplicasIfHigher)");
	lint_fallback_behavior(l, o, d, obj, line);
	lint_modifiers(l, o, d, obj, line);
	at = line;
	v = lint_behavior(d, obj, "scaleUp", "tolerance", &at);
	if (!v && (!o->max_known || o->max_replicas >= HPA_TOLERANCE_REPLICAS))
		lint_report(l, at, 1, o, -1, "no advanced."
			    "horizontalPodAutoscalerConfig.behavior.scaleUp."
			    "tolerance: the HPA's default 10%% tolerance "
			    "blocks +-1 steps at 10 replicas and more (10 -> "
			    "11 never happens); set tolerance: \"0\" "
			    "(Kubernetes >= 1.35, KEDA >= 2.18)");
	else if (v && !lint_quantity(ytext(v), &tol) && tol > 0)
		lint_report(l, at, 1, o, -1, "scaleUp.tolerance is %s: the HPA "
			    "ignores a scale-up smaller than %g%% of the current "
			    "size (at 10 replicas, up to %.0f), so staffer's "
			    "steps wait for a bigger one; set tolerance: \"0\"",
			    v->text, tol * 100, 10 * (1 + tol));
	at = line;
	v = lint_behavior(d, obj, "scaleUp", "stabilizationWindowSeconds",
			  &at);
	if (v && ytext(v) && !num_parse_long(v->text, &window) && window > 0)
		lint_report(l, at, 1, o, -1, "scaleUp."
			    "stabilizationWindowSeconds is %ld: the HPA takes "
			    "the lowest recommendation of the last %ld s, so "
			    "every scale-up staffer answers lands that late; "
			    "set it to 0", window, window);
	at = line;
	v = lint_behavior(d, obj, "scaleUp", "selectPolicy", &at);
	if (v && ytext(v) && !strcmp(v->text, "Min")) {
		up_min = 1;
		lint_report(l, at, 1, o, -1, "scaleUp.selectPolicy is Min: the "
			    "most restrictive policy limits every scale-up; "
			    "leave selectPolicy out (Max)");
	} else if (v && ytext(v) && !strcmp(v->text, "Disabled")) {
		lint_report(l, at, 1, o, -1, "scaleUp.selectPolicy is Disabled: "
			    "the HPA never scales up, whatever staffer "
			    "answers; leave selectPolicy out");
	}
	lint_up_policies(l, o, d, obj, up_min, line);
	at = line;
	v = lint_behavior(d, obj, "scaleDown", "selectPolicy", &at);
	if (v && ytext(v) && !strcmp(v->text, "Disabled"))
		lint_report(l, at, 1, o, -1, "scaleDown.selectPolicy is "
			    "Disabled: the HPA never scales down, so staffer's "
			    "scale-down steps are ignored and the fleet only "
			    "grows; leave selectPolicy out (staffer smooths "
			    "scale-down itself)");
	at = line;
	v = lint_behavior(d, obj, "scaleDown", "stabilizationWindowSeconds",
			  &at);
	if (!v)
		lint_report(l, at, 1, o, -1, "no advanced."
			    "horizontalPodAutoscalerConfig.behavior."
			    "scaleDown.stabilizationWindowSeconds: the HPA's "
			    "default 300 s window holds scale-down on top "
			    "of staffer's own hold (scaleDownHoldSeconds), "
			    "so capacity goes twice as late; set it to 0");
	else if (ytext(v) && !num_parse_long(v->text, &window) && window > 0)
		lint_report(l, at, 1, o, -1, "scaleDown."
			    "stabilizationWindowSeconds is %ld: the HPA "
			    "smooths scale-down on top of staffer's "
			    "scaleDownStep per scaleDownPeriodSeconds (double "
			    "smoothing); set it to 0", window);
}

/* Where crd_check()'s findings go. */
static void lint_crd_report(void *arg, unsigned long line, const char *msg)
{
	const struct lint_where *w = arg;

	lint_report(w->l, line, 0, w->o, -1, "%s", msg);
}

/* The object's namespace and scaleTargetRef (KIND/NAME, kind Deployment
 * when not given, as KEDA reads it), for the pairs of pools. */
static void lint_target(const struct ydoc *d, const struct ynode *obj,
			const struct ynode *spec, struct lint_obj *o)
{
	const struct ynode *ref = ymap_get_merged(d, spec, "scaleTargetRef",
						  NULL);
	const struct ynode *md = ymap_get_merged(d, obj, "metadata", NULL);
	const char *ns = ytext(ymap_get_merged(d, md, "namespace", NULL));
	const char *kind = ytext(ymap_get_merged(d, ref, "kind", NULL));
	const char *name = ytext(ymap_get_merged(d, ref, "name", NULL));

	snprintf(o->ns, sizeof(o->ns), "%s", ns ? ns : "");
	if (name)
		snprintf(o->target, sizeof(o->target), "%s/%s",
			 kind ? kind : "Deployment", name);
}

/* The triggers staffer answers (ydoc_is_external(), with --address)
 * among triggers, the list of an object's spec (NULL or not a list:
 * none). */
static size_t lint_n_staffer(const struct lint *l, const struct ydoc *d,
			     const struct ynode *triggers)
{
	size_t i, n = 0;

	if (!triggers || triggers->kind != YN_SEQ)
		return 0;
	for (i = 0; i < triggers->n_kids; i++)
		n += ydoc_is_external(d, &d->nodes[triggers->kids[i]],
				      l->address) != 0;
	return n;
}

/* Check ScaledObject obj (ydoc_object_fn).  -1: no memory. */
static int lint_object(void *arg, const struct ydoc *d,
		       const struct ynode *obj)
{
	struct lint *l = arg;
	const struct ynode *spec, *triggers, *v, *k = NULL;
	const char *api = ytext(ymap_get_merged(d, obj, "apiVersion", NULL));
	struct lint_obj o;
	char shown[YDOC_SHOW_BUF];
	size_t i;

	memset(&o, 0, sizeof(o));
	ydoc_who(d, obj, o.who, sizeof(o.who));
	if (!api || strcmp(api, "keda.sh/v1alpha1")) {
		v = ymap_get_merged(d, obj, "apiVersion", &k);
		lint_report(l, k ? k->line : obj->line, 1, &o, -1,
			    "apiVersion '%s' is not keda.sh/v1alpha1; not "
			    "checked", ydoc_show(shown, v));
		return 0;
	}
	spec = ymap_get_merged(d, obj, "spec", NULL);
	lint_target(d, obj, spec, &o);
	o.max_replicas = KEDA_MAX_REPLICAS;
	o.max_known = 1;
	v = ymap_get_merged(d, spec, "maxReplicaCount", NULL);
	if (v)
		o.max_known = ytext(v) &&
			      !num_parse_long(v->text, &o.max_replicas);
	triggers = ymap_get_merged(d, spec, "triggers", NULL);
	if (lint_n_staffer(l, d, triggers) == 0)
		return 0;
	{
		struct lint_where w = { l, &o, -1 };

		if (!l->crd && !(l->crd = crd_load()))
			return -1;
		crd_check(l->crd, d, obj, l->address, lint_crd_report, &w);
	}
	lint_object_warnings(l, &o, d, obj);
	for (i = 0; i < triggers->n_kids; i++) {
		v = &d->nodes[triggers->kids[i]];
		if (ydoc_is_external(d, v, l->address) &&
		    lint_trigger(l, &o, (long)i, d, v))
			return -1;
	}
	return 0;
}

/* ---- what kubectl refuses outside the objects checked ------------------ */

/* Findings of ydoc_check() a document tells at most: each is a `<<`
 * written in the file (aliases repeat none), but 16 MiB of `{<<: 1}` are
 * two million. */
#define LINT_DOC_TOLD_MAX 100000

/* ydoc_check()'s callbacks: the run, the document, what was told. */
struct lint_doc {
	struct lint *l;
	const struct ydoc *d;
	size_t told, refused;  /* `<<`s told; keys and tags told */
};

/* ydoc_checked_fn: lint_object() checks obj, so crd.c and
 * ydoc_md_collect() tell its `<<`s: a ScaledObject of keda.sh/v1alpha1
 * with a trigger staffer answers. */
static int lint_checks(void *arg, const struct ydoc *d,
		       const struct ynode *obj)
{
	const struct lint_doc *c = arg;
	const char *kind = ytext(ymap_get_merged(d, obj, "kind", NULL));
	const char *api = ytext(ymap_get_merged(d, obj, "apiVersion", NULL));
	const struct ynode *spec = ymap_get_merged(d, obj, "spec", NULL);

	return kind && !strcmp(kind, "ScaledObject") && api &&
	       !strcmp(api, "keda.sh/v1alpha1") &&
	       lint_n_staffer(c->l, d, ymap_get_merged(d, spec, "triggers",
						       NULL)) > 0;
}

/* Whether one more finding of ydoc_check() is told at at, *told
 * counting those of its kind (what): past LINT_DOC_TOLD_MAX the document
 * says so once, and no more. */
static int lint_doc_tell(struct lint_doc *c, size_t *told, const char *what,
			 const struct ydoc_at *at)
{
	char text[LINT_LINE_MAX];

	if (++*told <= LINT_DOC_TOLD_MAX)
		return 1;
	if (*told == LINT_DOC_TOLD_MAX + 1) {
		snprintf(text, sizeof(text), "the document has more than %d "
			 "%s kubectl refuses; the rest is not told",
			 LINT_DOC_TOLD_MAX, what);
		lint_add(c->l, at->line, 0, text);
	}
	return 0;
}

/* Into text, the finding msg about object obj: "KIND NS/NAME: MSG", or
 * MSG alone for an object without a kind. */
static void lint_doc_text(const struct lint_doc *c, const struct ynode *obj,
			  const char *msg, char text[LINT_LINE_MAX])
{
	const struct ynode *k = ymap_get_merged(c->d, obj, "kind", NULL);
	char kind[YDOC_SHOW_BUF], who[YDOC_WHO_MAX];

	if (!ytext(k)) {
		snprintf(text, LINT_LINE_MAX, "%s", msg);
		return;
	}
	ydoc_who(c->d, obj, who, sizeof(who));
	snprintf(text, LINT_LINE_MAX, "%s %s: %s", ydoc_show(kind, k), who,
		 msg);
}

/* ydoc_merge_fn: a `<<` kubectl refuses where lint_object() does not
 * look, in crd.c's words. */
static void lint_doc_merge(void *arg, const struct ydoc_at *at,
			   const struct ynode *key, const struct ynode *bad,
			   long item)
{
	struct lint_doc *c = arg;
	char msg[CRD_MSG_MAX], text[LINT_LINE_MAX];

	if (!lint_doc_tell(c, &c->told, "merge keys ('<<')", at))
		return;
	crd_bad_merge_msg(msg, at->path, key, bad, item);
	lint_doc_text(c, at->obj, msg, text);
	lint_add(c->l, at->line, 0, text);
}

/* ydoc_aliasing_fn: go-yaml's decoder, so kubectl, refuses the whole
 * document for what its aliases expand to; told once a document, at the
 * alias where the decoder stops. */
static void lint_doc_aliasing(void *arg, const struct ydoc_at *at,
			      const struct ydoc_aliasing *x)
{
	struct lint_doc *c = arg;
	char msg[LINT_LINE_MAX], text[LINT_LINE_MAX], by[YDOC_SHOW_BUF + 64];
	char name[YDOC_SHOW_BUF];

	if (x->anchor) {
		show_escaped(name, YDOC_SHOW_MAX, x->anchor, strlen(x->anchor));
		snprintf(by, sizeof(by), "with this alias (*%s, the node on "
			 "line %lu)", name, x->line);
	} else {
		snprintf(by, sizeof(by), "with this %s", x->alias ? "alias" :
			 "value");
	}
	/* the share allowed as a count, so that the excess shows where
	 * two percentages would look alike */
	snprintf(msg, sizeof(msg), "%s: kubectl refuses the whole document "
		 "(\"document contains excessive aliasing\"): %s, %llu of the "
		 "%llu values go-yaml has decoded came through aliases, more "
		 "than the %llu (%.3g%%) it allows for that many; write out what "
		 "the aliases repeat, or split the document",
		 *at->path ? at->path : "(top)", by,
		 (unsigned long long)x->aliased,
		 (unsigned long long)x->decoded,
		 (unsigned long long)(x->allowed * (double)x->decoded),
		 100.0 * x->allowed);
	lint_doc_text(c, at->obj, msg, text);
	lint_add(c->l, at->line, 0, text);
}

/* ydoc_refused_fn: go-yaml's decoder, so kubectl, refuses the whole
 * document for a key that is a list or a map, or a tag that does not
 * fit its value (a !!binary that is not base64); told where it is
 * written, in go-yaml's words (the value in them cut as lint shows
 * values; go-yaml writes a key out in Go's syntax, which lint does not,
 * so "{...}"). */
static void lint_doc_refused(void *arg, const struct ydoc_at *at,
			     const struct ydoc_refusal *x)
{
	struct lint_doc *c = arg;
	char msg[LINT_LINE_MAX], text[LINT_LINE_MAX], val[YDOC_SHOW_BUF];
	const char *path = *at->path ? at->path : "(top)";
	int list = x->n->kind == YN_SEQ;

	if (!lint_doc_tell(c, &c->refused, "keys and tags", at))
		return;
	if (x->json && x->key) {
		int null = !strcmp(x->json, "nil");

		ydoc_show(val, x->n);
		snprintf(msg, sizeof(msg), "%s: the key '%s' is %s: kubectl "
			 "refuses the whole document (\"Unsupported map key "
			 "of type: %s, ...\"); allowed: a string key%s", path,
			 val, null ? "null" : "an int past int64",
			 null ? "%!s(<nil>)" : "uint64",
			 null ? ", quoted if it reads as null" : " (quote it)");
	} else if (x->json) {
		ydoc_show(val, x->n);
		snprintf(msg, sizeof(msg), "%s: '%s' is a float JSON cannot "
			 "hold: kubectl refuses the whole document (\"json: "
			 "unsupported value: %s\"); allowed: a finite number, "
			 "or a quoted string", path, val, x->json);
	} else if (x->base64) {
		ydoc_show(val, x->n);
		snprintf(msg, sizeof(msg), "%s: %s'%s' is tagged !!binary but "
			 "is not base64: kubectl refuses the whole document "
			 "(\"!!binary value contains invalid base64 data\"); "
			 "write base64 padded with '=' to a multiple of 4 "
			 "characters (no spaces), or leave the tag out", path,
			 x->key ? "the key " : "", val);
	} else if (!x->resolved) {
		snprintf(msg, sizeof(msg), "%s: a key that is a %s: kubectl "
			 "refuses the whole document (\"invalid map key: "
			 "%s{...}\"); allowed: a string key", path,
			 list ? "list" : "map", list ? "[]interface {}" :
			 "map[interface {}]interface {}");
	} else {
		ydoc_show(val, x->n);
		snprintf(msg, sizeof(msg), "%s: %s'%s' is tagged !!%s but is a "
			 "!!%s: kubectl refuses the whole document "
			 "(\"cannot decode !!%s `%s` as a !!%s\"); write a "
			 "value the tag reads, or leave the tag out", path,
			 x->key ? "the key " : "", val, x->tag, x->resolved,
			 x->resolved, val, x->tag);
	}
	lint_doc_text(c, at->obj, msg, text);
	lint_add(c->l, at->line, 0, text);
}

/* ---- files -------------------------------------------------------------- */

/* One document (ydoc_doc_fn): its ScaledObjects, what kubectl refuses
 * elsewhere in it, then its findings in line order. */
static int lint_doc(void *arg, const struct ydoc *d)
{
	struct lint *l = arg;
	struct lint_doc c = { l, d, 0, 0 };
	const struct ydoc_check_fns fns = { lint_checks, lint_doc_merge,
					    lint_doc_aliasing,
					    lint_doc_refused, &c };
	int r = ydoc_each_scaledobject(d, lint_object, l);

	if (!r && ydoc_check(d, &fns))
		r = -1;
	lint_flush(l);
	return r || l->nomem ? -1 : 0;
}

/* Check one file.  0 when it was read and parsed (whatever was found), 2
 * when it could not be: unreadable, invalid YAML, no memory. */
static int lint_file(struct lint *l, const char *path)
{
	char name[YDOC_NAME_BUF];
	int rc;

	/* shown escaped, as ydoc_read_file() names it: findings stay one
	 * line each, with no terminal escape (lintpool.c keeps a copy) */
	l->file = ydoc_file_name(name, path);
	rc = ydoc_read_file(path, "staffer lint", stdout, lint_doc, l) ? 2 : 0;
	l->file = NULL;
	return rc;
}

/* A finding about a pair of pools (lintpool_report_fn), printed as the
 * others, after the last file. */
static void lint_pool_report(void *arg, const struct lintpool_trigger *t,
			     int warn, const char *msg)
{
	struct lint *l = arg;

	if (warn)
		l->warnings++;
	else
		l->errors++;
	printf("%s:%lu: %sScaledObject %s trigger %ld: %s\n", t->file, t->line,
	       warn ? "warning: " : "", t->who, t->trigger, msg);
}

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: staffer lint [--strict] [--config FILE] [--address TEXT] FILE...\n"
"  Check the ScaledObjects in FILE (- for stdin) before they are applied:\n"
"  errors are what the server (or kubectl) would refuse, warnings are HPA\n"
"  settings that make staffer's answer land late or not at all.\n"
"  --strict          warnings make the exit status 1 too\n"
"  --config FILE     staffer's config: check that each 'backend' exists\n"
"  --address TEXT    only triggers whose scalerAddress contains TEXT\n"
"                    (default: every external and external-push trigger)\n"
"  exit status: 0 clean, 1 errors found, 2 bad usage, an unreadable\n"
"  file or invalid YAML.  See docs/lint.md.\n");
}

/* The command line: flags, then the files in order. */
struct lint_args {
	int strict;
	const char *config_path, *address;
	const char **files;
	int n;
};

static int lint_arg(void *ctx, const char *prog, const char *a)
{
	struct lint_args *la = ctx;

	la->files[la->n++] = a;
	return 0;
}

#define LA(f) offsetof(struct lint_args, f)

static const struct opt lint_opts[] = {
	OPT_F("--strict", LA(strict)),
	OPT_S("--config", LA(config_path), 0),
	OPT_S("--address", LA(address), 0),
	OPT_END,
};

static const struct opt_spec lint_spec = {
	"staffer lint", lint_opts, usage, lint_arg
};

int cmd_lint(int argc, char **argv)
{
	enum opt_rc r;
	struct lint l;
	struct config cfg;
	char cerr[CONFIG_ERR_MAX];
	const char *config_path = NULL;
	struct lint_args la;
	const char **files;
	int i, n = 0, rc = 0;

	memset(&l, 0, sizeof(l));
	lintpool_init(&l.pools);
	memset(&la, 0, sizeof(la));
	config_init(&cfg);
	files = calloc((size_t)argc + 1, sizeof(*files));
	if (!files) {
		fprintf(stderr, "staffer lint: out of memory\n");
		rc = 2;
		goto out;
	}
	la.files = files;
	r = opt_parse(&lint_spec, argc, argv, &la);
	if (r != OPT_OK) {
		rc = opt_status(r);
		goto out;
	}
	l.strict = la.strict;
	l.address = la.address;
	config_path = la.config_path;
	n = la.n;
	if (n == 0) {
		fprintf(stderr, "staffer lint: no file given\n");
		usage(stderr);
		rc = 2;
		goto out;
	}
	if (config_path) {
		if (config_load_file(&cfg, config_path, cerr)) {
			fprintf(stderr, "staffer lint: %s\n", cerr);
			rc = 2;
			goto out;
		}
		l.cfg = &cfg;
	}
	for (i = 0; i < n; i++)
		if (lint_file(&l, files[i]))
			rc = 2;
	lintpool_check(&l.pools, lint_pool_report, &l);
	fflush(stdout);
	if (rc == 0 && (l.errors || (l.strict && l.warnings)))
		rc = 1;
out:
	free(files);
	free(l.found);
	lintpool_release(&l.pools);
	crd_free(l.crd);
	config_release(&cfg);
	return rc;
}
