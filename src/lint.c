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
 * The YAML is read with libyaml's event API into a small tree (struct
 * ydoc) rather than its document loader, because only the events tell a
 * plain `1.5` from `!!str 1.5`: scalars are typed as kubectl's YAML
 * library (go-yaml v2, YAML 1.1) reads them.  Aliases share nodes and are
 * never expanded, so an alias bomb costs nothing; merge keys (`<<`) are
 * applied in trigger metadata, where kubectl applies them too.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "cmd.h"
#include "config.h"
#include "meta.h"
#include "show.h"

#define LINT_FILE_MAX (16u << 20)  /* bytes in one input file */
#define LINT_SHOW_MAX 60           /* characters of a value in a message */
#define LINT_SHOW_BUF (LINT_SHOW_MAX + 4)  /* show.h: max + 4 */
#define LINT_WHO_MAX 160           /* "NS/NAME", shown */
#define LINT_LINE_MAX 1024         /* one finding, without FILE:LINE */
#define LINT_YAML_DEPTH 256        /* nested collections in a document */
#define LINT_MERGE_DEPTH 8         /* merge keys within merge keys */
#define LINT_PQ_DEPTH 64           /* brackets in a query we follow */
#define HPA_TOLERANCE_REPLICAS 10  /* where the 10 % band eats +-1 steps */
#define KEDA_MAX_REPLICAS 100      /* maxReplicaCount's default */

#define LINT_STR_(x) #x
#define LINT_STR(x) LINT_STR_(x)

/* ---- a YAML document as a tree ------------------------------------------ */

enum yn_kind { YN_SCALAR, YN_SEQ, YN_MAP };

/* What kubectl reads a scalar as: the YAML 1.1 types of go-yaml v2. */
enum yn_type {
	YT_STR,
	YT_NULL,
	YT_BOOL,
	YT_NUMBER,   /* int or float */
	YT_MERGE,    /* a plain `<<` */
	YT_TAGGED,   /* an explicit tag other than !!str */
};

struct ynode {
	enum yn_kind kind;
	enum yn_type type;     /* scalars */
	char *text;            /* scalars: the value, NUL-terminated */
	size_t len;            /* scalars: its bytes (a "\0" makes it more
				* than strlen) */
	char *tag;             /* YT_TAGGED: the tag */
	unsigned long line;    /* where the node starts, from 1 */
	size_t *kids;          /* SEQ: items; MAP: key, value, key, ... */
	size_t n_kids, cap_kids;
};

struct yanchor {
	char *name;
	size_t node;
};

/* One document: nodes[0] is the root when n > 0.  Children are indexes,
 * so the array may move while it grows. */
struct ydoc {
	struct ynode *nodes;
	size_t n, cap;
	struct yanchor *anchors;
	size_t n_anchors, cap_anchors;
	size_t *open;          /* collections being read */
	size_t depth, cap_open;
};

enum yload { YLOAD_DOC, YLOAD_END, YLOAD_ERROR, YLOAD_NOMEM };

/* A YAML error found by ydoc_load rather than by libyaml. */
struct yerr {
	unsigned long line;    /* 0: libyaml's error, in the parser */
	const char *msg;
};

/* arr with room for element n (cap elements of size bytes now): the same
 * or a moved array, or NULL (arr untouched) when memory is short. */
static void *lint_room(void *arr, size_t n, size_t *cap, size_t size)
{
	size_t c;
	void *p;

	if (n < *cap)
		return arr;
	c = *cap ? *cap * 2 : 8;
	if (c > ((size_t)-1) / size)
		return NULL;
	p = realloc(arr, c * size);
	if (p)
		*cap = c;
	return p;
}

static void ydoc_release(struct ydoc *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->nodes[i].text);
		free(d->nodes[i].tag);
		free(d->nodes[i].kids);
	}
	for (i = 0; i < d->n_anchors; i++)
		free(d->anchors[i].name);
	free(d->nodes);
	free(d->anchors);
	free(d->open);
	memset(d, 0, sizeof(*d));
}

/* s is one of the words of list (NULL-terminated). */
static int word_in(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return 1;
	return 0;
}

/* [+-]? then 0x.., 0o.., 0b.. or digits: Go's ParseInt with base 0. */
static int yaml11_int(const char *s)
{
	const char *digits = "0123456789";

	if (*s == '+' || *s == '-')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		digits = "0123456789abcdefABCDEF";
		s += 2;
	} else if (s[0] == '0' && (s[1] == 'o' || s[1] == 'O')) {
		digits = "01234567";
		s += 2;
	} else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
		digits = "01";
		s += 2;
	}
	return *s && strspn(s, digits) == strlen(s);
}

/* go-yaml v2's float: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static int yaml11_float(const char *s)
{
	size_t n;

	if (*s == '+' || *s == '-')
		s++;
	if (*s == '.') {
		n = strspn(++s, "0123456789");
		if (!n)
			return 0;
		s += n;
	} else {
		n = strspn(s, "0123456789");
		if (!n)
			return 0;
		s += n;
		if (*s == '.')
			s += 1 + strspn(s + 1, "0123456789");
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		n = strspn(s, "0123456789");
		if (!n)
			return 0;
		s += n;
	}
	return *s == '\0';
}

/*
 * The type go-yaml v2 (sigs.k8s.io/yaml, kubectl) gives a plain, untagged
 * scalar: its fixed words, then, for text starting with a digit or sign,
 * an int (underscores dropped) or a float.  Timestamps stay strings there.
 */
static enum yn_type yaml11_type(const char *s, size_t len)
{
	static const char *const nulls[] = {
		"", "~", "null", "Null", "NULL", NULL };
	static const char *const bools[] = {
		"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
		"true", "True", "TRUE", "false", "False", "FALSE",
		"on", "On", "ON", "off", "Off", "OFF", NULL };
	static const char *const floats[] = {
		".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf",
		"+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", NULL };
	enum yn_type t = YT_STR;
	char *plain;
	size_t i, o;

	if (strlen(s) != len)
		return YT_STR;
	if (word_in(s, nulls))
		return YT_NULL;
	if (word_in(s, bools))
		return YT_BOOL;
	if (word_in(s, floats))
		return YT_NUMBER;
	if (!strcmp(s, "<<"))
		return YT_MERGE;
	if (s[0] == '.')
		return yaml11_float(s) ? YT_NUMBER : YT_STR;
	if (!isdigit((unsigned char)s[0]) && s[0] != '+' && s[0] != '-')
		return YT_STR;
	plain = malloc(len + 1);
	if (!plain)
		return YT_STR;   /* the message only loses a detail */
	for (i = o = 0; i < len; i++)
		if (s[i] != '_')
			plain[o++] = s[i];
	plain[o] = '\0';
	if (yaml11_int(plain) || yaml11_float(plain))
		t = YT_NUMBER;
	free(plain);
	return t;
}

/* The type of a scalar event's value, tags first. */
static enum yn_type ydoc_scalar_type(const yaml_event_t *ev)
{
	const char *tag = (const char *)ev->data.scalar.tag;

	if (tag && (!strcmp(tag, "!") || !strcmp(tag, YAML_STR_TAG)))
		return YT_STR;
	if (tag)
		return YT_TAGGED;
	if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return YT_STR;
	return yaml11_type((const char *)ev->data.scalar.value,
			   ev->data.scalar.length);
}

/* Hang node i under the collection being read (none: i is the root). */
static int ydoc_attach(struct ydoc *d, size_t i)
{
	struct ynode *parent;
	size_t *k;

	if (d->depth == 0)
		return 0;
	parent = &d->nodes[d->open[d->depth - 1]];
	k = lint_room(parent->kids, parent->n_kids, &parent->cap_kids,
		      sizeof(*k));
	if (!k)
		return -1;
	parent->kids = k;
	parent->kids[parent->n_kids++] = i;
	return 0;
}

static int ydoc_anchor(struct ydoc *d, const yaml_char_t *name, size_t i)
{
	struct yanchor *a;

	if (!name)
		return 0;
	a = lint_room(d->anchors, d->n_anchors, &d->cap_anchors,
		      sizeof(*a));
	if (!a)
		return -1;
	d->anchors = a;
	a[d->n_anchors].name = strdup((const char *)name);
	if (!a[d->n_anchors].name)
		return -1;
	a[d->n_anchors++].node = i;
	return 0;
}

/* A new node from a scalar or collection-start event; -1: no memory. */
static int ydoc_add(struct ydoc *d, const yaml_event_t *ev)
{
	const yaml_char_t *anchor;
	struct ynode *n;
	size_t *o, i = d->n;

	n = lint_room(d->nodes, d->n, &d->cap, sizeof(*n));
	if (!n)
		return -1;
	d->nodes = n;
	n = &d->nodes[d->n++];
	memset(n, 0, sizeof(*n));
	n->line = (unsigned long)ev->start_mark.line + 1;
	if (ev->type == YAML_SCALAR_EVENT) {
		n->kind = YN_SCALAR;
		n->type = ydoc_scalar_type(ev);
		n->len = ev->data.scalar.length;
		n->text = malloc(n->len + 1);
		if (!n->text)
			return -1;
		memcpy(n->text, ev->data.scalar.value, n->len);
		n->text[n->len] = '\0';
		if (n->type == YT_TAGGED) {
			n->tag = strdup((const char *)ev->data.scalar.tag);
			if (!n->tag)
				return -1;
		}
		anchor = ev->data.scalar.anchor;
	} else if (ev->type == YAML_SEQUENCE_START_EVENT) {
		n->kind = YN_SEQ;
		anchor = ev->data.sequence_start.anchor;
	} else {
		n->kind = YN_MAP;
		anchor = ev->data.mapping_start.anchor;
	}
	if (ydoc_attach(d, i) || ydoc_anchor(d, anchor, i))
		return -1;
	if (n->kind == YN_SCALAR)
		return 0;
	o = lint_room(d->open, d->depth, &d->cap_open, sizeof(*o));
	if (!o)
		return -1;
	d->open = o;
	d->open[d->depth++] = i;
	return 0;
}

/* An alias: the anchored node again (the latest anchor of that name). */
static int ydoc_alias(struct ydoc *d, const yaml_event_t *ev)
{
	const char *name = (const char *)ev->data.alias.anchor;
	size_t i;

	for (i = d->n_anchors; i-- > 0;)
		if (!strcmp(d->anchors[i].name, name))
			return ydoc_attach(d, d->anchors[i].node) ? -1 : 1;
	return 0;
}

/*
 * Read the next document of the stream into d (empty, zeroed).  YLOAD_DOC:
 * d holds it; YLOAD_END: no more; YLOAD_ERROR: the parser's problem, or
 * ours in *e (an undefined alias, nesting deeper than LINT_YAML_DEPTH,
 * which also keeps libyaml's scanner from its quadratic time on deep flow
 * collections); YLOAD_NOMEM.  d must be released in every case.
 */
static enum yload ydoc_load(yaml_parser_t *p, struct ydoc *d,
			    struct yerr *e)
{
	yaml_event_t ev;
	enum yload rc;
	int r;

	for (;;) {
		if (!yaml_parser_parse(p, &ev))
			return p->error == YAML_MEMORY_ERROR ? YLOAD_NOMEM
							    : YLOAD_ERROR;
		rc = YLOAD_NOMEM;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			rc = YLOAD_END;
			goto out;
		case YAML_DOCUMENT_END_EVENT:
			rc = YLOAD_DOC;
			goto out;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (d->depth >= LINT_YAML_DEPTH) {
				e->line = (unsigned long)
					  ev.start_mark.line + 1;
				e->msg = "collections nested more than "
					 LINT_STR(LINT_YAML_DEPTH) " deep";
				rc = YLOAD_ERROR;
				goto out;
			}
			/* fall through */
		case YAML_SCALAR_EVENT:
			if (ydoc_add(d, &ev))
				goto out;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			d->depth--;
			break;
		case YAML_ALIAS_EVENT:
			r = ydoc_alias(d, &ev);
			if (r < 0)
				goto out;
			if (r == 0) {
				e->line = (unsigned long)
					  ev.start_mark.line + 1;
				e->msg = "an alias to an undefined anchor";
				rc = YLOAD_ERROR;
				goto out;
			}
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
out:
	yaml_event_delete(&ev);
	return rc;
}

/* The value of key in mapping map (NULL if map is not one or lacks the
 * key); *keynode, when given, gets the key's node. */
static const struct ynode *ymap_get(const struct ydoc *d,
				    const struct ynode *map, const char *key,
				    const struct ynode **keynode)
{
	const struct ynode *k;
	size_t i;

	if (!map || map->kind != YN_MAP)
		return NULL;
	for (i = 0; i + 1 < map->n_kids; i += 2) {
		k = &d->nodes[map->kids[i]];
		if (k->kind == YN_SCALAR && !strcmp(k->text, key)) {
			if (keynode)
				*keynode = k;
			return &d->nodes[map->kids[i + 1]];
		}
	}
	return NULL;
}

/* A scalar's text, or NULL for anything else. */
static const char *ytext(const struct ynode *n)
{
	return n && n->kind == YN_SCALAR ? n->text : NULL;
}

/* Follow keys[] (NULL-terminated) down from map.  Returns the last value,
 * or NULL when a key is missing; *line is the line of the deepest key
 * found (unchanged when none is). */
static const struct ynode *ypath(const struct ydoc *d,
				 const struct ynode *map,
				 const char *const *keys, unsigned long *line)
{
	const struct ynode *k = NULL;

	for (; map && *keys; keys++) {
		map = ymap_get(d, map, *keys, &k);
		if (map)
			*line = k->line;
	}
	return map;
}

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
	char who[LINT_WHO_MAX];
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
	f = lint_room(l->found, l->n_found, &l->cap_found, sizeof(*f));
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

/* A user's text for a message: escaped, cut after LINT_SHOW_MAX. */
static const char *lint_show(char buf[LINT_SHOW_BUF], const struct ynode *n)
{
	if (!n || n->kind != YN_SCALAR)
		snprintf(buf, LINT_SHOW_BUF, "%s", "?");
	else
		show_escaped(buf, LINT_SHOW_MAX, n->text, n->len);
	return buf;
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
	if (word_in(w, aggs) && (*after == '(' || pq_word(in, "by") ||
				 pq_word(in, "without"))) {
		in->p = after;
		return pq_aggregation(in);
	}
	if (*after == '(') {
		enum pq r = pq_args(in);

		return word_in(w, single) ? PQ_ONE : r;
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

/* A trigger's metadata as meta_parse() takes it, with the nodes for
 * line numbers. */
struct md {
	const char **keys, **values;
	const struct ynode **knodes, **vnodes;
	size_t n, cap_keys, cap_values, cap_knodes, cap_vnodes;
	int bad;               /* a value kubectl would refuse was reported */
};

static void md_release(struct md *md)
{
	free(md->keys);
	free(md->values);
	free(md->knodes);
	free(md->vnodes);
}

static int md_push(struct md *md, const struct ynode *k,
		   const struct ynode *v)
{
	void *p;

	if (!(p = lint_room(md->keys, md->n, &md->cap_keys,
			    sizeof(*md->keys))))
		return -1;
	md->keys = p;
	if (!(p = lint_room(md->values, md->n, &md->cap_values,
			    sizeof(*md->values))))
		return -1;
	md->values = p;
	if (!(p = lint_room(md->knodes, md->n, &md->cap_knodes,
			    sizeof(*md->knodes))))
		return -1;
	md->knodes = p;
	if (!(p = lint_room(md->vnodes, md->n, &md->cap_vnodes,
			    sizeof(*md->vnodes))))
		return -1;
	md->vnodes = p;
	md->keys[md->n] = k->text;
	md->values[md->n] = v->kind == YN_SCALAR ? v->text : "";
	md->knodes[md->n] = k;
	md->vnodes[md->n] = v;
	md->n++;
	return 0;
}

/* The index of key in md, or md->n. */
static size_t md_find(const struct md *md, const char *key)
{
	size_t i;

	for (i = 0; i < md->n; i++)
		if (!strcmp(md->keys[i], key))
			break;
	return i;
}

/* A standard tag without its prefix ("int" for tag:yaml.org,2002:int, to
 * be shown as !!int); any other tag as it is. */
static const char *ytag_short(const char *tag)
{
	static const char prefix[] = "tag:yaml.org,2002:";

	if (!strncmp(tag, prefix, sizeof(prefix) - 1))
		return tag + sizeof(prefix) - 1;
	return tag;
}

/* "ScaledObject metadata is map[string]string": report a value that is
 * not a YAML string.  Returns 1 if it was reported. */
static int md_check_value(struct lint *l, const struct lint_obj *o,
			  long t, const struct ynode *k,
			  const struct ynode *v)
{
	static const char why[] = "ScaledObject metadata is "
				  "map[string]string";
	char key[LINT_SHOW_BUF], val[LINT_SHOW_BUF];

	lint_show(key, k);
	if (v->kind != YN_SCALAR) {
		lint_report(l, k->line, 0, o, t, "metadata '%s' is a %s, not "
			    "a string: %s", key, v->kind == YN_MAP ? "map" :
			    "list", why);
		return 1;
	}
	lint_show(val, v);
	switch (v->type) {
	case YT_NULL:
		lint_report(l, k->line, 0, o, t, "metadata '%s' has no value "
			    "(YAML null%s%s): %s; give a quoted string or "
			    "leave the key out", key, *val ? " " : "", val,
			    why);
		return 1;
	case YT_BOOL:
	case YT_NUMBER:
		lint_report(l, v->line, 0, o, t, "metadata '%s': %s must be "
			    "a quoted string (\"%s\"): %s", key, val, val,
			    why);
		return 1;
	case YT_TAGGED:
		lint_report(l, v->line, 0, o, t, "metadata '%s': '%s' is "
			    "tagged %s%s, not a string: %s", key, val,
			    ytag_short(v->tag) != v->tag ? "!!" : "",
			    ytag_short(v->tag), why);
		return 1;
	default:
		break;
	}
	if (strlen(v->text) != v->len) {
		lint_report(l, v->line, 0, o, t, "metadata '%s': '%s' "
			    "contains a NUL character", key, val);
		return 1;
	}
	return 0;
}

/*
 * Gather the pairs of metadata mapping map into md.  Explicit keys come
 * first and a repeated one is an error; `<<` merges the pairs of a map (or
 * of a list of maps, the first winning) whose keys are not there yet, as
 * go-yaml does.  -1: no memory.
 */
static int md_collect(struct lint *l, const struct lint_obj *o, long t,
		      const struct ydoc *d, const struct ynode *map,
		      struct md *md, int merged, int depth)
{
	const struct ynode *k, *v, *src;
	size_t i, j, at;
	char key[LINT_SHOW_BUF];

	for (i = 0; i + 1 < map->n_kids; i += 2) {
		k = &d->nodes[map->kids[i]];
		v = &d->nodes[map->kids[i + 1]];
		if (k->kind != YN_SCALAR || strlen(k->text) != k->len) {
			lint_report(l, k->line, 0, o, t, "metadata has a key "
				    "that is not a plain string: %s",
				    "ScaledObject metadata is "
				    "map[string]string");
			md->bad = 1;
			continue;
		}
		if (k->type == YT_MERGE)
			continue;
		at = md_find(md, k->text);
		if (at < md->n && merged)
			continue;
		if (at < md->n) {
			lint_report(l, k->line, 0, o, t, "metadata '%s' is "
				    "given twice (first on line %lu); give "
				    "each key once", lint_show(key, k),
				    md->knodes[at]->line);
			md->bad = 1;
			continue;
		}
		md->bad |= md_check_value(l, o, t, k, v);
		if (md_push(md, k, v))
			return -1;
	}
	for (i = 0; i + 1 < map->n_kids; i += 2) {
		k = &d->nodes[map->kids[i]];
		v = &d->nodes[map->kids[i + 1]];
		if (k->kind != YN_SCALAR || k->type != YT_MERGE)
			continue;
		if (depth >= LINT_MERGE_DEPTH) {
			lint_report(l, k->line, 0, o, t, "metadata merges "
				    "('<<') nest more than %d deep",
				    LINT_MERGE_DEPTH);
			md->bad = 1;
			continue;
		}
		for (j = 0; j < (v->kind == YN_SEQ ? v->n_kids : 1); j++) {
			src = v->kind == YN_SEQ ? &d->nodes[v->kids[j]] : v;
			if (src->kind != YN_MAP) {
				lint_report(l, k->line, 0, o, t, "metadata "
					    "'<<' must merge a map or a list "
					    "of maps");
				md->bad = 1;
				continue;
			}
			if (md_collect(l, o, t, d, src, md, 1, depth + 1))
				return -1;
		}
	}
	return 0;
}

/* The line of the key meta_parse() blamed, else fallback. */
static unsigned long md_line(const struct md *md, const char *key,
			     unsigned long fallback)
{
	size_t i = md_find(md, key);

	return i < md->n ? md->knodes[i]->line : fallback;
}

/* --config: the backend must be declared (scaler_parse()'s message). */
static void lint_backend(struct lint *l, const struct lint_obj *o, long t,
			 const struct md *md, const struct meta *m,
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
				  const struct md *md, const struct meta *m)
{
	const struct ynode *k = NULL, *v;
	char val[LINT_SHOW_BUF];
	size_t i;

	v = ymap_get(d, trig, "metricType", &k);
	if (v && (!ytext(v) || strcmp(v->text, "AverageValue")))
		lint_report(l, k->line, 1, o, t, "metricType '%s': staffer "
			    "needs AverageValue; its answer is a replica "
			    "count against a target of 1, and with Value the "
			    "HPA multiplies it by the ready pods; leave "
			    "metricType out", lint_show(val, v));
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

/* Check trigger number t.  -1: no memory. */
static int lint_trigger(struct lint *l, const struct lint_obj *o, long t,
			const struct ydoc *d, const struct ynode *trig)
{
	const struct ynode *k = NULL, *map;
	struct meta_error err;
	struct md md;
	struct meta m;
	unsigned long line = trig->line;
	int rc = -1;

	memset(&md, 0, sizeof(md));
	meta_init(&m);
	map = ymap_get(d, trig, "metadata", &k);
	if (k)
		line = k->line;
	if (map && map->kind != YN_MAP) {
		lint_report(l, line, 0, o, t, "'metadata' is not a map: "
			    "ScaledObject metadata is map[string]string");
		rc = 0;
		goto out;
	}
	if (map && md_collect(l, o, t, d, map, &md, 0, 0))
		goto out;
	if (md_find(&md, "scalerAddress") == md.n)
		lint_report(l, line, 0, o, t, "metadata 'scalerAddress' is "
			    "required by KEDA: the address of staffer's gRPC "
			    "service, e.g. staffer.keda.svc:9090");
	rc = 0;
	if (md.bad) {
		lint_trigger_warnings(l, o, t, d, trig, &md, NULL);
		goto out;
	}
	if (meta_parse(&m, md.keys, md.values, md.n, &err) != META_OK) {
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
	md_release(&md);
	return rc;
}

/* ---- one ScaledObject --------------------------------------------------- */

/* Like ymap_get, with the pairs that `<<` merges into map (md_collect's
 * rules). */
static const struct ynode *ymap_get_merged(const struct ydoc *d,
					   const struct ynode *map,
					   const char *key, int depth)
{
	const struct ynode *k, *v, *src, *r;
	size_t i, j;

	if ((r = ymap_get(d, map, key, NULL)) || !map ||
	    depth >= LINT_MERGE_DEPTH)
		return r;
	for (i = 0; i + 1 < map->n_kids; i += 2) {
		k = &d->nodes[map->kids[i]];
		v = &d->nodes[map->kids[i + 1]];
		if (k->kind != YN_SCALAR || k->type != YT_MERGE)
			continue;
		for (j = 0; j < (v->kind == YN_SEQ ? v->n_kids : 1); j++) {
			src = v->kind == YN_SEQ ? &d->nodes[v->kids[j]] : v;
			r = ymap_get_merged(d, src, key, depth + 1);
			if (r)
				return r;
		}
	}
	return NULL;
}

/* A trigger staffer answers: external or external-push, and with
 * --address a scalerAddress that contains it. */
static int lint_is_staffer(const struct lint *l, const struct ydoc *d,
			   const struct ynode *trig)
{
	const char *type = ytext(ymap_get(d, trig, "type", NULL));
	const char *addr;

	if (!type || (strcmp(type, "external") &&
		      strcmp(type, "external-push")))
		return 0;
	if (!l->address)
		return 1;
	addr = ytext(ymap_get_merged(d, ymap_get(d, trig, "metadata", NULL),
				     "scalerAddress", 0));
	return addr && strstr(addr, l->address);
}

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

/* "NS/NAME" or "NAME", shown. */
static void lint_who(struct lint_obj *o, const struct ydoc *d,
		     const struct ynode *obj)
{
	const struct ynode *md = ymap_get(d, obj, "metadata", NULL);
	const struct ynode *name = ymap_get(d, md, "name", NULL);
	const struct ynode *ns = ymap_get(d, md, "namespace", NULL);
	char a[LINT_SHOW_BUF], b[LINT_SHOW_BUF];

	if (!ytext(name)) {
		snprintf(o->who, sizeof(o->who), "(no name)");
		return;
	}
	if (ytext(ns))
		snprintf(o->who, sizeof(o->who), "%s/%s", lint_show(a, ns),
			 lint_show(b, name));
	else
		snprintf(o->who, sizeof(o->who), "%s", lint_show(b, name));
}

/* Check obj if it is a ScaledObject (or each item of a List).  -1: no
 * memory. */
static int lint_object(struct lint *l, const struct ydoc *d,
		       const struct ynode *obj, int depth)
{
	const struct ynode *spec, *triggers, *items, *v, *k = NULL;
	const char *kind = ytext(ymap_get(d, obj, "kind", NULL));
	const char *api = ytext(ymap_get(d, obj, "apiVersion", NULL));
	struct lint_obj o;
	char shown[LINT_SHOW_BUF];
	size_t i, n = 0;

	if (!kind)
		return 0;
	items = ymap_get(d, obj, "items", NULL);
	if (!strcmp(kind, "List") && items && items->kind == YN_SEQ &&
	    depth < 1) {
		for (i = 0; i < items->n_kids; i++)
			if (lint_object(l, d, &d->nodes[items->kids[i]],
					depth + 1))
				return -1;
		return 0;
	}
	if (strcmp(kind, "ScaledObject"))
		return 0;
	memset(&o, 0, sizeof(o));
	lint_who(&o, d, obj);
	if (!api || strcmp(api, "keda.sh/v1alpha1")) {
		v = ymap_get(d, obj, "apiVersion", &k);
		lint_report(l, k ? k->line : obj->line, 1, &o, -1,
			    "apiVersion '%s' is not keda.sh/v1alpha1; not "
			    "checked", lint_show(shown, v));
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
		n += lint_is_staffer(l, d, &d->nodes[triggers->kids[i]]);
	if (n == 0)
		return 0;
	lint_object_warnings(l, &o, d, obj);
	for (i = 0; i < triggers->n_kids; i++) {
		v = &d->nodes[triggers->kids[i]];
		if (lint_is_staffer(l, d, v) &&
		    lint_trigger(l, &o, (long)i, d, v))
			return -1;
	}
	return 0;
}

/* ---- files -------------------------------------------------------------- */

/* Read path ("-": stdin) whole into *buf (NUL-terminated).  0, or -1 with
 * a message on stderr. */
static int lint_read(const char *path, char **buf, size_t *len)
{
	FILE *f = stdin;
	size_t n = 0, cap = 0, got;
	char *b = NULL, *p;
	int rc = -1;

	if (strcmp(path, "-")) {
		f = fopen(path, "rb");
		if (!f) {
			fprintf(stderr, "staffer lint: %s: cannot open: %s\n",
				path, strerror(errno));
			return -1;
		}
	}
	for (;;) {
		if (cap - n < 2) {
			cap = cap ? cap * 2 : 65536;
			p = realloc(b, cap);
			if (!p) {
				fprintf(stderr, "staffer lint: %s: out of "
					"memory\n", path);
				goto out;
			}
			b = p;
		}
		got = fread(b + n, 1, cap - n - 1, f);
		n += got;
		if (n > LINT_FILE_MAX) {
			fprintf(stderr, "staffer lint: %s: larger than %u "
				"bytes\n", path, LINT_FILE_MAX);
			goto out;
		}
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "staffer lint: %s: cannot read: %s\n", path,
			strerror(errno));
		goto out;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	b = NULL;
	rc = 0;
out:
	free(b);
	if (f != stdin)
		fclose(f);
	return rc;
}

/* The line of a reader error: the byte offset counted in lines. */
static unsigned long lint_offset_line(const char *buf, size_t len,
				      size_t offset)
{
	unsigned long line = 1;
	size_t i;

	for (i = 0; i < offset && i < len; i++)
		line += buf[i] == '\n';
	return line;
}

/* line, or the file's last line when line is past it. */
static unsigned long lint_clamp_line(const char *buf, size_t len,
				     size_t line)
{
	unsigned long last = lint_offset_line(buf, len, len);

	return line > last ? last : (unsigned long)line;
}

static void lint_yaml_error(struct lint *l, const yaml_parser_t *p,
			    const char *buf, size_t len, const struct yerr *e)
{
	if (e->line) {
		printf("%s:%lu: invalid YAML: %s\n", l->file, e->line,
		       e->msg);
		return;
	}
	if (p->error == YAML_READER_ERROR) {
		printf("%s:%lu: invalid YAML: %s\n", l->file,
		       lint_offset_line(buf, len, p->problem_offset),
		       p->problem ? p->problem : "unreadable text");
		return;
	}
	/* At the end of a file without a final newline libyaml counts one
	 * line more than the file has: name its last line instead. */
	printf("%s:%lu: invalid YAML: %s", l->file,
	       lint_clamp_line(buf, len, p->problem_mark.line + 1),
	       p->problem ? p->problem : "syntax error");
	if (p->context)
		printf(" (%s from line %lu)", p->context,
		       lint_clamp_line(buf, len, p->context_mark.line + 1));
	printf("\n");
}

/* Check one file.  0 when it was read and parsed (whatever was found), 2
 * when it could not be: unreadable, invalid YAML, no memory. */
static int lint_file(struct lint *l, const char *path)
{
	yaml_parser_t parser;
	struct ydoc doc;
	enum yload r;
	struct yerr yerr = { 0, NULL };
	char *buf = NULL;
	size_t len;
	int rc = 2, have_parser = 0;

	l->file = strcmp(path, "-") ? path : "<stdin>";
	if (lint_read(path, &buf, &len))
		goto out;
	if (!yaml_parser_initialize(&parser))
		goto nomem;
	have_parser = 1;
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf,
				     len);
	for (;;) {
		memset(&doc, 0, sizeof(doc));
		r = ydoc_load(&parser, &doc, &yerr);
		if (r == YLOAD_DOC && doc.n > 0 &&
		    lint_object(l, &doc, &doc.nodes[0], 0))
			r = YLOAD_NOMEM;
		ydoc_release(&doc);
		lint_flush(l);
		if (l->nomem || r == YLOAD_NOMEM)
			goto nomem;
		if (r == YLOAD_ERROR) {
			lint_yaml_error(l, &parser, buf, len, &yerr);
			goto out;
		}
		if (r == YLOAD_END)
			break;
	}
	rc = 0;
	goto out;
nomem:
	fprintf(stderr, "staffer lint: %s: out of memory\n", path);
out:
	if (have_parser)
		yaml_parser_delete(&parser);
	free(buf);
	return rc;
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
