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
 *   errors    a metadata value that is not a YAML string (an unquoted
 *             number or bool, a null, a list: kubectl refuses those, as
 *             metadata is map[string]string), a key given twice, no
 *             scalerAddress, the first error of meta_parse() in the words
 *             of the server, and with --config FILE a `backend` the config
 *             does not declare (the message of scaler_parse()).
 *   warnings  the HPA interplay of design section 3 and protocol notes
 *             section 11: metricType not AverageValue, no fallback, no
 *             scaleUp tolerance (when maxReplicaCount >= 10), a scale-down
 *             stabilization window, a query that may return several
 *             series (lint_one_series()), maxReplicas above
 *             maxReplicaCount.
 *
 * Findings go to stdout, one line each, in line order per document:
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
 * keys in metadata, aliases never expanded), which `staffer explain`
 * shares.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd.h"
#include "config.h"
#include "meta.h"
#include "show.h"
#include "ydoc.h"

#define LINT_LINE_MAX 1024         /* one finding, without FILE:LINE */
#define LINT_PQ_DEPTH 64           /* brackets in a query we follow */
#define HPA_TOLERANCE_REPLICAS 10  /* where the 10 % band eats +-1 steps */
#define KEDA_MAX_REPLICAS 100      /* maxReplicaCount's default */

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
	/* the file being read and the findings of its current document */
	const char *file;
	struct finding *found;
	size_t n_found, cap_found;
	/* totals */
	unsigned long errors, warnings;
	int nomem;
};

/* The object a finding is about: "ScaledObject NS/NAME[ trigger N]". */
struct lint_obj {
	char who[YDOC_WHO_MAX];
	long max_replicas;          /* spec.maxReplicaCount, or 100 */
	int max_known;              /* 0: not a whole number, unknown */
};

#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
static void lint_report(struct lint *l, unsigned long line, int warn,
			const struct lint_obj *o, long trigger,
			const char *fmt, ...)
{
	char text[LINT_LINE_MAX];
	struct finding *f;
	va_list ap;
	int n;

	if (warn)
		l->warnings++;
	else
		l->errors++;
	n = snprintf(text, sizeof(text), "ScaledObject %s", o->who);
	if (trigger >= 0)
		n += snprintf(text + n, sizeof(text) - (size_t)n,
			      " trigger %ld", trigger);
	n += snprintf(text + n, sizeof(text) - (size_t)n, ": ");
	va_start(ap, fmt);
	vsnprintf(text + n, sizeof(text) - (size_t)n, fmt, ap);
	va_end(ap);
	f = ydoc_room(l->found, l->n_found, &l->cap_found, sizeof(*f));
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

/* ---- does a query return one series? ------------------------------------ */

/*
 * A heuristic, not a PromQL parser: a query is taken to return one series
 * when every operand at its top level (between binary operators, outside
 * brackets) is
 *   - a number or a string;
 *   - an aggregation that collapses to one series: sum, avg, min, max,
 *     count, group, stddev, stdvar or quantile, without `by` or `without`
 *     (`by ()` and `by (le)`, histogram_quantile's form, are accepted);
 *   - vector(), scalar(), time(), absent() or absent_over_time();
 *   - a parenthesised expression, or a call of another function, whose
 *     arguments all pass these rules (clamp_min(sum(x), 0) passes,
 *     rate(x[1m]) does not).
 * The right side of `and` and `unless` does not count.  Anything it cannot
 * follow (a syntax error, nesting deeper than LINT_PQ_DEPTH) passes: the
 * backend judges PromQL, lint only warns.
 */
enum pq { PQ_MANY, PQ_ONE };

struct pq_in {
	const char *p;
	int lost;              /* could not follow the text */
	int depth;
};

static enum pq pq_expr(struct pq_in *in);

static enum pq pq_both(enum pq a, enum pq b)
{
	return a == PQ_ONE && b == PQ_ONE ? PQ_ONE : PQ_MANY;
}

/* Skip white space and # comments. */
static void pq_space(struct pq_in *in)
{
	for (;;) {
		while (isspace((unsigned char)*in->p))
			in->p++;
		if (*in->p != '#')
			return;
		while (*in->p && *in->p != '\n')
			in->p++;
	}
}

static int pq_ident_char(char c, int first)
{
	return isalpha((unsigned char)c) || c == '_' || c == ':' ||
	       (!first && isdigit((unsigned char)c));
}

/* Read an identifier into buf (cut to size); 0 if there is none. */
static size_t pq_ident(struct pq_in *in, char *buf, size_t size)
{
	size_t n = 0;

	if (!pq_ident_char(*in->p, 1))
		return 0;
	while (pq_ident_char(*in->p, 0)) {
		if (n + 1 < size)
			buf[n] = *in->p;
		n++;
		in->p++;
	}
	buf[n < size ? n : size - 1] = '\0';
	return n;
}

/* Consume the identifier word if it comes next. */
static int pq_word(struct pq_in *in, const char *word)
{
	const char *save = in->p;
	char w[32];

	pq_space(in);
	if (pq_ident(in, w, sizeof(w)) && !strcmp(w, word))
		return 1;
	in->p = save;
	return 0;
}

static void pq_string(struct pq_in *in)
{
	char q = *in->p++;

	while (*in->p && *in->p != q) {
		if (q != '`' && *in->p == '\\' && in->p[1])
			in->p++;
		in->p++;
	}
	if (*in->p)
		in->p++;
	else
		in->lost = 1;
}

/* Skip a bracketed group (at its opening bracket), strings included. */
static void pq_skip(struct pq_in *in)
{
	int depth = 0;

	while (*in->p && !in->lost) {
		char c = *in->p;

		if (c == '"' || c == '\'' || c == '`') {
			pq_string(in);
			continue;
		}
		in->p++;
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if ((c == ')' || c == ']' || c == '}') && --depth == 0)
			return;
	}
	in->lost = 1;
}

/* After `by` or `without`: the label list.  One series for `by ()` and
 * `by (le)`. */
static enum pq pq_grouping(struct pq_in *in, int by)
{
	char label[8];
	size_t n = 0, le = 0;

	pq_space(in);
	if (*in->p != '(') {
		in->lost = 1;
		return PQ_ONE;
	}
	in->p++;
	for (;;) {
		pq_space(in);
		if (*in->p == ')') {
			in->p++;
			break;
		}
		if (*in->p == ',') {
			in->p++;
			continue;
		}
		if (!pq_ident(in, label, sizeof(label))) {
			in->lost = 1;
			return PQ_ONE;
		}
		n++;
		le += !strcmp(label, "le");
	}
	return by && n == le && n <= 1 ? PQ_ONE : PQ_MANY;
}

/* At '(': comma-separated expressions up to ')'; one series if all are. */
static enum pq pq_args(struct pq_in *in)
{
	enum pq r = PQ_ONE;

	pq_space(in);
	if (*in->p != '(') {
		in->lost = 1;
		return PQ_ONE;
	}
	in->p++;
	pq_space(in);
	if (*in->p == ')') {
		in->p++;
		return PQ_ONE;
	}
	while (!in->lost) {
		r = pq_both(r, pq_expr(in));
		pq_space(in);
		if (*in->p == ',') {
			in->p++;
			continue;
		}
		if (*in->p == ')')
			in->p++;
		else
			in->lost = 1;
		break;
	}
	return r;
}

/* An aggregation, its grouping before or after the arguments. */
static enum pq pq_aggregation(struct pq_in *in)
{
	enum pq r = PQ_ONE;

	if (pq_word(in, "by"))
		r = pq_grouping(in, 1);
	else if (pq_word(in, "without"))
		r = pq_grouping(in, 0);
	pq_args(in);
	if (pq_word(in, "by"))
		r = pq_grouping(in, 1);
	else if (pq_word(in, "without"))
		r = pq_grouping(in, 0);
	return r;
}

/* A name at the start of an operand: a function, an aggregation, a
 * number word or a metric. */
static enum pq pq_named(struct pq_in *in, const char *w)
{
	static const char *const aggs[] = {
		"sum", "avg", "min", "max", "count", "group", "stddev",
		"stdvar", "quantile", NULL };
	static const char *const single[] = {
		"vector", "scalar", "time", "absent", "absent_over_time",
		NULL };
	const char *after;

	pq_space(in);
	after = in->p;
	if (ydoc_word_in(w, aggs) && (*after == '(' || pq_word(in, "by") ||
				 pq_word(in, "without"))) {
		in->p = after;
		return pq_aggregation(in);
	}
	if (*after == '(') {
		enum pq r = pq_args(in);

		return ydoc_word_in(w, single) ? PQ_ONE : r;
	}
	if (!strcasecmp(w, "inf") || !strcasecmp(w, "nan"))
		return PQ_ONE;
	if (*after == '{')
		pq_skip(in);
	return PQ_MANY;   /* a metric: one series per label set */
}

/* One operand with its range, offset and @ modifiers. */
static enum pq pq_operand(struct pq_in *in)
{
	enum pq r = PQ_ONE;
	char w[64];

	if (++in->depth > LINT_PQ_DEPTH) {
		in->lost = 1;
		return PQ_ONE;
	}
	pq_space(in);
	while (*in->p == '-' || *in->p == '+') {
		in->p++;
		pq_space(in);
	}
	if (*in->p == '(') {
		r = pq_args(in);
	} else if (isdigit((unsigned char)*in->p) || (*in->p == '.' &&
		   isdigit((unsigned char)in->p[1]))) {
		while (isalnum((unsigned char)*in->p) || *in->p == '.' ||
		       ((*in->p == '+' || *in->p == '-') &&
			(in->p[-1] == 'e' || in->p[-1] == 'E')))
			in->p++;
	} else if (*in->p == '"' || *in->p == '\'' || *in->p == '`') {
		pq_string(in);
	} else if (*in->p == '{') {
		pq_skip(in);
		r = PQ_MANY;
	} else if (pq_ident(in, w, sizeof(w))) {
		r = pq_named(in, w);
	} else {
		in->lost = 1;
	}
	while (!in->lost) {
		pq_space(in);
		if (*in->p == '[') {
			pq_skip(in);
		} else if (pq_word(in, "offset")) {
			pq_space(in);
			in->p += *in->p == '-';
			while (isalnum((unsigned char)*in->p) || *in->p == '.')
				in->p++;
		} else if (*in->p == '@') {
			in->p++;
			pq_operand(in);
		} else {
			break;
		}
	}
	in->depth--;
	return r;
}

/* A binary operator and its modifiers; 0 if none comes next.  *ignore:
 * the right side does not add series (and, unless). */
static int pq_operator(struct pq_in *in, int *ignore)
{
	static const char *const two[] = { "==", "!=", "<=", ">=", NULL };
	char w[16];
	const char *save;
	size_t i;

	*ignore = 0;
	pq_space(in);
	for (i = 0; two[i]; i++)
		if (!strncmp(in->p, two[i], 2)) {
			in->p += 2;
			goto modifiers;
		}
	if (*in->p && strchr("+-*/%^<>", *in->p)) {
		in->p++;
		goto modifiers;
	}
	save = in->p;
	if (pq_ident(in, w, sizeof(w))) {
		*ignore = !strcmp(w, "and") || !strcmp(w, "unless");
		if (*ignore || !strcmp(w, "or") || !strcmp(w, "atan2"))
			goto modifiers;
	}
	*ignore = 0;
	in->p = save;
	return 0;
modifiers:
	pq_word(in, "bool");
	if (pq_word(in, "on") || pq_word(in, "ignoring")) {
		pq_space(in);
		pq_skip(in);
	}
	if (pq_word(in, "group_left") || pq_word(in, "group_right")) {
		pq_space(in);
		if (*in->p == '(')
			pq_skip(in);
	}
	return 1;
}

static enum pq pq_expr(struct pq_in *in)
{
	enum pq r, right;
	int ignore;

	r = pq_operand(in);
	while (!in->lost && pq_operator(in, &ignore)) {
		right = pq_operand(in);
		if (!ignore)
			r = pq_both(r, right);
	}
	return r;
}

/* 0 when query is sure to be able to return several series (see above). */
static int lint_one_series(const char *query)
{
	struct pq_in in = { query, 0, 0 };
	enum pq r;

	r = pq_expr(&in);
	pq_space(&in);
	if (in.lost || *in.p)
		return 1;
	return r == PQ_ONE;
}

/* ---- one trigger -------------------------------------------------------- */

/* The line of the key meta_parse() blamed, else fallback. */
static unsigned long md_line(const struct ydoc_md *md, const char *key,
			     unsigned long fallback)
{
	size_t i = ydoc_md_find(md, key);

	return i < md->n ? md->knodes[i]->line : fallback;
}

/* --config: the backend must be declared (scaler_parse()'s message). */
static void lint_backend(struct lint *l, const struct lint_obj *o, long t,
			 const struct ydoc_md *md, const struct meta *m,
			 unsigned long line)
{
	char msg[LINT_LINE_MAX];
	size_t i, len;

	if (!l->cfg || config_backend(l->cfg, m->backend))
		return;
	len = (size_t)snprintf(msg, sizeof(msg), "metadata 'backend': "
			       "'%.60s' is not declared in staffer's config; "
			       "declared:", m->backend);
	for (i = 0; i < l->cfg->n_backends && len < sizeof(msg); i++)
		len += (size_t)snprintf(msg + len, sizeof(msg) - len,
					"%s '%s'", i ? "," : "",
					l->cfg->backends[i].name);
	lint_report(l, md_line(md, "backend", line), 0, o, t, "%s", msg);
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

/* Warnings about one trigger, from its raw metadata and, when it parsed
 * (m != NULL), from the result. */
static void lint_trigger_warnings(struct lint *l, const struct lint_obj *o,
				  long t, const struct ydoc *d,
				  const struct ynode *trig,
				  const struct ydoc_md *md, const struct meta *m)
{
	const struct ynode *k = NULL, *v;
	char val[YDOC_SHOW_BUF];
	size_t i;

	v = ymap_get(d, trig, "metricType", &k);
	if (v && (!ytext(v) || strcmp(v->text, "AverageValue")))
		lint_report(l, k->line, 1, o, t, "metricType '%s': staffer "
			    "needs AverageValue; its answer is a replica "
			    "count against a target of 1, and with Value the "
			    "HPA multiplies it by the ready pods; leave "
			    "metricType out", ydoc_show(val, v));
	for (i = 0; i < md->n; i++)
		if (md->vnodes[i]->kind == YN_SCALAR &&
		    lint_is_query_key(md->keys[i]) &&
		    !lint_one_series(md->values[i]))
			lint_report(l, md->knodes[i]->line, 1, o, t,
				    "metadata '%s' may return several "
				    "series (it is not aggregated to one at "
				    "its top level); it must return exactly "
				    "one: wrap it in sum() (see "
				    "docs/lint.md)", md->keys[i]);
	if (m && m->model.max_replicas > 0 && o->max_known &&
	    m->model.max_replicas > o->max_replicas)
		lint_report(l, md_line(md, "maxReplicas", trig->line), 1, o,
			    t, "metadata 'maxReplicas' is %ld, above "
			    "maxReplicaCount %ld: the HPA caps at %ld anyway; "
			    "set maxReplicas to %ld or lower so that "
			    "staffer's answer stays within it",
			    m->model.max_replicas, o->max_replicas,
			    o->max_replicas, o->max_replicas);
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

/* meta_parse() as the server will see it, but "<key>FromEnv" holds a
 * variable that KEDA resolves in the cluster: only its name is checked
 * here (meta_defer()). */
static enum meta_err lint_meta(struct meta *m, const struct ydoc_md *md,
			       struct meta_error *err)
{
	enum meta_err rc = META_OK;
	size_t i;

	for (i = 0; i < md->n && rc == META_OK; i++)
		rc = meta_from_env_base(md->keys[i])
		     ? meta_defer(m, md->keys[i], md->values[i], err)
		     : meta_set(m, md->keys[i], md->values[i], err);
	if (rc == META_OK)
		rc = meta_check(m, 1, err);
	return rc;
}

/* Check trigger number t.  -1: no memory. */
static int lint_trigger(struct lint *l, const struct lint_obj *o, long t,
			const struct ydoc *d, const struct ynode *trig)
{
	struct lint_where w = { l, o, t };
	struct meta_error err;
	struct ydoc_md md;
	struct meta m;
	unsigned long line;
	int rc = -1, r;

	memset(&md, 0, sizeof(md));
	meta_init(&m);
	r = ydoc_md_collect(d, trig, &md, &line, lint_md_report, &w);
	if (r < 0)
		goto out;
	if (r > 0) {
		rc = 0;
		goto out;
	}
	if (ydoc_md_find(&md, "scalerAddress") == md.n)
		lint_report(l, line, 0, o, t, "metadata 'scalerAddress' is "
			    "required by KEDA: the address of staffer's gRPC "
			    "service, e.g. staffer.keda.svc:9090");
	rc = 0;
	if (md.bad) {
		lint_trigger_warnings(l, o, t, d, trig, &md, NULL);
		goto out;
	}
	if (lint_meta(&m, &md, &err) != META_OK) {
		if (err.code == META_ENOMEM) {
			rc = -1;
			goto out;
		}
		lint_report(l, md_line(&md, err.key, line), 0, o, t, "%s",
			    err.msg);
		lint_trigger_warnings(l, o, t, d, trig, &md, NULL);
		goto out;
	}
	lint_backend(l, o, t, &md, &m, line);
	lint_trigger_warnings(l, o, t, d, trig, &md, &m);
out:
	meta_release(&m);
	ydoc_md_release(&md);
	return rc;
}

/* ---- one ScaledObject --------------------------------------------------- */

/* The HPA interplay of the whole object (design section 3). */
static void lint_object_warnings(struct lint *l, const struct lint_obj *o,
				 const struct ydoc *d,
				 const struct ynode *obj)
{
	static const char *const spec[] = { "spec", NULL };
	static const char *const fallback[] = { "spec", "fallback", NULL };
	static const char *const up[] = {
		"spec", "advanced", "horizontalPodAutoscalerConfig",
		"behavior", "scaleUp", "tolerance", NULL };
	static const char *const down[] = {
		"spec", "advanced", "horizontalPodAutoscalerConfig",
		"behavior", "scaleDown", "stabilizationWindowSeconds", NULL };
	const struct ynode *v;
	unsigned long line = obj->line, at;
	long window;

	ypath(d, obj, spec, &line);
	at = line;
	if (!ypath(d, obj, fallback, &at))
		lint_report(l, at, 1, o, -1, "no 'fallback': through a "
			    "backend outage staffer holds its last answer "
			    "only for staleHoldSeconds (default 300 s), then "
			    "fails, and without fallback the HPA freezes the "
			    "fleet whatever the traffic does; set "
			    "spec.fallback (e.g. failureThreshold: 3, "
			    "behavior: currentReplicasIfHigher)");
	at = line;
	if ((!o->max_known || o->max_replicas >= HPA_TOLERANCE_REPLICAS) &&
	    !ypath(d, obj, up, &at))
		lint_report(l, at, 1, o, -1, "no advanced."
			    "horizontalPodAutoscalerConfig.behavior.scaleUp."
			    "tolerance: the HPA's default 10%% tolerance "
			    "blocks +-1 steps at 10 replicas and more (10 -> "
			    "11 never happens); set tolerance: \"0\" "
			    "(Kubernetes >= 1.35, KEDA >= 2.18)");
	at = line;
	v = ypath(d, obj, down, &at);
	if (!v)
		lint_report(l, at, 1, o, -1, "no advanced."
			    "horizontalPodAutoscalerConfig.behavior."
			    "scaleDown.stabilizationWindowSeconds: the HPA's "
			    "default 300 s window smooths scale-down on top "
			    "of staffer's scaleDownStep per "
			    "scaleDownPeriodSeconds (double smoothing); set "
			    "it to 0");
	else if (ytext(v) && !meta_parse_long(v->text, &window) && window > 0)
		lint_report(l, at, 1, o, -1, "scaleDown."
			    "stabilizationWindowSeconds is %ld: the HPA "
			    "smooths scale-down on top of staffer's "
			    "scaleDownStep per scaleDownPeriodSeconds (double "
			    "smoothing); set it to 0", window);
}

/* Check ScaledObject obj (ydoc_object_fn).  -1: no memory. */
static int lint_object(void *arg, const struct ydoc *d,
		       const struct ynode *obj)
{
	struct lint *l = arg;
	const struct ynode *spec, *triggers, *v, *k = NULL;
	const char *api = ytext(ymap_get(d, obj, "apiVersion", NULL));
	struct lint_obj o;
	char shown[YDOC_SHOW_BUF];
	size_t i, n = 0;

	memset(&o, 0, sizeof(o));
	ydoc_who(d, obj, o.who, sizeof(o.who));
	if (!api || strcmp(api, "keda.sh/v1alpha1")) {
		v = ymap_get(d, obj, "apiVersion", &k);
		lint_report(l, k ? k->line : obj->line, 1, &o, -1,
			    "apiVersion '%s' is not keda.sh/v1alpha1; not "
			    "checked", ydoc_show(shown, v));
		return 0;
	}
	spec = ymap_get(d, obj, "spec", NULL);
	o.max_replicas = KEDA_MAX_REPLICAS;
	o.max_known = 1;
	v = ymap_get(d, spec, "maxReplicaCount", NULL);
	if (v)
		o.max_known = ytext(v) &&
			      !meta_parse_long(v->text, &o.max_replicas);
	triggers = ymap_get(d, spec, "triggers", NULL);
	if (!triggers || triggers->kind != YN_SEQ)
		return 0;
	for (i = 0; i < triggers->n_kids; i++)
		n += ydoc_is_external(d, &d->nodes[triggers->kids[i]],
				      l->address);
	if (n == 0)
		return 0;
	lint_object_warnings(l, &o, d, obj);
	for (i = 0; i < triggers->n_kids; i++) {
		v = &d->nodes[triggers->kids[i]];
		if (ydoc_is_external(d, v, l->address) &&
		    lint_trigger(l, &o, (long)i, d, v))
			return -1;
	}
	return 0;
}

/* ---- files -------------------------------------------------------------- */

/* One document (ydoc_doc_fn): its ScaledObjects, then its findings in
 * line order. */
static int lint_doc(void *arg, const struct ydoc *d)
{
	struct lint *l = arg;
	int r = ydoc_each_scaledobject(d, lint_object, l);

	lint_flush(l);
	return r || l->nomem ? -1 : 0;
}

/* Check one file.  0 when it was read and parsed (whatever was found), 2
 * when it could not be: unreadable, invalid YAML, no memory. */
static int lint_file(struct lint *l, const char *path)
{
	l->file = strcmp(path, "-") ? path : "<stdin>";
	return ydoc_read_file(path, "staffer lint", stdout, lint_doc, l) ?
	       2 : 0;
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

int cmd_lint(int argc, char **argv)
{
	struct lint l;
	struct config cfg;
	char cerr[CONFIG_ERR_MAX];
	const char *config_path = NULL;
	const char **files;
	int i, n = 0, rc = 0, opts = 1;

	memset(&l, 0, sizeof(l));
	config_init(&cfg);
	files = calloc((size_t)argc + 1, sizeof(*files));
	if (!files) {
		fprintf(stderr, "staffer lint: out of memory\n");
		rc = 2;
		goto out;
	}
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!opts || a[0] != '-' || !a[1]) {
			files[n++] = a;
		} else if (!strcmp(a, "--")) {
			opts = 0;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			goto out;
		} else if (!strcmp(a, "--strict")) {
			l.strict = 1;
		} else if (!strcmp(a, "--config") ||
			   !strcmp(a, "--address")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "staffer lint: %s needs a "
					"value\n", a);
				rc = 2;
				goto out;
			}
			if (!strcmp(a, "--config"))
				config_path = argv[++i];
			else
				l.address = argv[++i];
		} else {
			fprintf(stderr, "staffer lint: unknown option "
				"'%.60s'\n", a);
			usage(stderr);
			rc = 2;
			goto out;
		}
	}
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
	fflush(stdout);
	if (rc == 0 && (l.errors || (l.strict && l.warnings)))
		rc = 1;
out:
	free(files);
	free(l.found);
	config_release(&cfg);
	return rc;
}
