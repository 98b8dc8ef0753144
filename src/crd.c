/*
 * crd.c - see crd.h.  The walk follows the OpenAPI v3 keywords the CRD
 * uses (type, properties, additionalProperties, items, required, enum,
 * format int32, minimum, minLength, minItems, pattern,
 * x-kubernetes-int-or-string, x-kubernetes-preserve-unknown-fields,
 * x-kubernetes-validations); anything else in the schema is not checked.
 */
#include "crd.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "show.h"
#include "ycheck.h"

#define CRD_PATH_MAX YDOC_PATH_MAX  /* bytes of a field path in a message */
#define CRD_NAME_DIST 3           /* farthest "did you mean" hint */
#define CRD_KEY_SHOW 60           /* characters of a key in a path */
#define CRD_MINMAX_RULE "minReplicaCount must be less than or equal to " \
	"maxReplicaCount"
#define CRD_MAX_REPLICAS_DEFAULT 100
/* Values one object's check visits at most: aliases let a small file
 * name one node from many places (16 aliases at each of 5 levels are a
 * million values from 2 KB), and each visit is a check; a ScaledObject
 * written out has a few hundred.  A pair `<<` merges in is a visit too,
 * and so is a field found unknown or given twice, and a `<<` go-yaml
 * refuses: every finding of an object is a visit, so an object says at
 * most this many. */
#define CRD_VISITS_MAX 100000

/* The CRD's patterns, compiled once: regcomp() cost more than the rest of
 * an object's check together (the tolerance pattern, at every tolerance
 * of every object).  The CRD has two; CRD_PATTERNS_MAX bounds the work. */
#define CRD_PATTERNS_MAX 16
struct crd_pattern {
	const struct ynode *text;     /* the pattern's scalar in the CRD */
	regex_t re;
	int ok;                       /* compiled; else never checked */
};

struct crd {
	struct ydoc *doc;
	const struct ynode *schema;   /* v1alpha1's openAPIV3Schema, in doc */
	struct crd_pattern pat[CRD_PATTERNS_MAX];
	size_t n_pat;
};

struct crd_walk {
	const struct crd *c;
	const struct ydoc *s;     /* the CRD */
	const struct ydoc *d;     /* the ScaledObject's document */
	const char *address;      /* whose triggers lint checks (crd.h) */
	crd_report_fn *report;
	void *arg;
	int found;                /* findings */
	size_t visits;            /* crd_visit() calls, CRD_VISITS_MAX */
};

/* "PATH: " and the sentence, into msg. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 0)))
#endif
static void crd_vformat(char msg[CRD_MSG_MAX], const char *path,
			const char *fmt, va_list ap)
{
	int n;

	n = snprintf(msg, CRD_MSG_MAX, "%s: ", path);
	if (n < 0 || (size_t)n >= CRD_MSG_MAX)
		n = 0;
	vsnprintf(msg + n, CRD_MSG_MAX - (size_t)n, fmt, ap);
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void crd_say(struct crd_walk *w, unsigned long line, const char *path,
		    const char *fmt, ...)
{
	char msg[CRD_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	crd_vformat(msg, path, fmt, ap);
	va_end(ap);
	w->found++;
	w->report(w->arg, line, msg);
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void crd_format(char msg[CRD_MSG_MAX], const char *path,
		       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	crd_vformat(msg, path, fmt, ap);
	va_end(ap);
}

/* The schema's value for key (NULL if none). */
static const struct ynode *sget(const struct crd_walk *w,
				const struct ynode *sch, const char *key)
{
	return ymap_get(w->s, sch, key, NULL);
}

static int sflag(const struct crd_walk *w, const struct ynode *sch,
		 const char *key)
{
	const char *t = ytext(sget(w, sch, key));

	return t && !strcmp(t, "true");
}

/* path.key, or key at the top, into out (cut to CRD_PATH_MAX); the
 * key is the user's text, escaped as show.h does. */
static void crd_path_key(char out[CRD_PATH_MAX], const char *path,
			 const struct ynode *key)
{
	char shown[CRD_KEY_SHOW + 4];

	show_escaped(shown, CRD_KEY_SHOW, key->text, key->len);
	snprintf(out, CRD_PATH_MAX, "%.180s%s%s", path, *path ? "." : "",
		 shown);
}

/* path[index] into out. */
static void crd_path_index(char out[CRD_PATH_MAX], const char *path,
			   size_t index)
{
	snprintf(out, CRD_PATH_MAX, "%.200s[%zu]", path, index);
}

/* Edit distance of a and b, case folded, stopping past limit. */
static size_t crd_distance(const char *a, const char *b, size_t limit)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev, cur, best;
	size_t row[CRD_PATH_MAX + 1];

	if (la > CRD_PATH_MAX || lb > CRD_PATH_MAX)
		return limit + 1;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		best = row[0];
		for (j = 1; j <= lb; j++) {
			int eq = (a[i - 1] | 0x20) == (b[j - 1] | 0x20);

			cur = row[j];
			row[j] = eq ? prev : 1 + (prev < row[j] ?
				 (prev < row[j - 1] ? prev : row[j - 1]) :
				 (row[j] < row[j - 1] ? row[j] : row[j - 1]));
			prev = cur;
			if (row[j] < best)
				best = row[j];
		}
		if (best > limit)
			return limit + 1;
	}
	return row[lb];
}

/* The property of props nearest to key, or NULL. */
static const char *crd_nearest(const struct crd_walk *w,
			       const struct ynode *props, const char *key)
{
	const char *best = NULL, *name;
	size_t i, d, best_d = CRD_NAME_DIST + 1;

	for (i = 0; props && i + 1 < props->n_kids; i += 2) {
		name = ytext(&w->s->nodes[props->kids[i]]);
		if (!name)
			continue;
		d = crd_distance(key, name, CRD_NAME_DIST);
		if (d < best_d && d <= strlen(key) / 2) {
			best_d = d;
			best = name;
		}
	}
	return best;
}

/* A YAML value as JSON would type it. */
static const char *crd_kind(const struct ynode *v)
{
	if (v->kind == YN_MAP)
		return "a map";
	if (v->kind == YN_SEQ)
		return "a list";
	switch (v->type) {
	case YT_STR:
	case YT_MERGE:         /* a value `<<`: the string "<<" (crd_is()) */
		return "a string";
	case YT_BOOL:
		return "a boolean";
	case YT_NUMBER:
		return "a number";
	case YT_NULL:
		return "null";
	default:
		break;
	}
	return "a tagged value";
}

/* A scalar number's value, and whether it is whole.  0, or -1 when the
 * text is no number (a tag such as !!int on text that is not one). */
static int crd_number(const struct ynode *v, double *out, int *whole)
{
	char buf[64], *end;
	size_t i, n = 0;
	long long ll;

	for (i = 0; v->text[i] && n + 1 < sizeof(buf); i++)
		if (v->text[i] != '_')          /* go-yaml: 1_000 */
			buf[n++] = v->text[i];
	buf[n] = '\0';
	errno = 0;
	ll = strtoll(buf, &end, 0);
	{
		/* go-yaml's base 0 also takes 0o17 and 0b1010, which
		 * strtoll() does not (ydoc.c types them numbers) */
		size_t sg = buf[0] == '+' || buf[0] == '-';
		int base = buf[sg] != '0' ? 0 :
			   buf[sg + 1] == 'o' || buf[sg + 1] == 'O' ? 8 :
			   buf[sg + 1] == 'b' || buf[sg + 1] == 'B' ? 2 : 0;

		if (base && buf[sg + 2] && buf[sg + 2] != '+' &&
		    buf[sg + 2] != '-') {
			errno = 0;
			ll = strtoll(buf + sg + 2, &end, base);
			if (buf[0] == '-')
				ll = -ll;
		}
	}
	if (n && !*end && !errno) {
		*out = (double)ll;
		*whole = 1;
		return 0;
	}
	errno = 0;
	*out = strtod(buf, &end);
	if (!n || *end || errno || !isfinite(*out))
		return -1;
	*whole = *out == floor(*out);
	return 0;
}

/* v is a scalar of type t, or tagged tag.  A value `<<` (YT_MERGE) is
 * a string: go-yaml takes a merge key only as a key, and reads the
 * string "<<" anywhere else (crd_object() leaves out the keys). */
static int crd_is(const struct ynode *v, enum yn_type t, const char *tag)
{
	if (v->kind != YN_SCALAR)
		return 0;
	if (v->type == t || (t == YT_STR && v->type == YT_MERGE))
		return 1;
	return v->type == YT_TAGGED && !strcmp(ytag(v), tag);
}

static void crd_value(struct crd_walk *w, const struct ynode *sch,
		      const struct ynode *v, unsigned long line,
		      const char *path);
static void crd_loose(struct crd_walk *w, const struct ynode *v,
		      const char *path, int depth);

/* A YAML null: pruned by the API server, as if absent. */
static int crd_null(const struct ynode *v)
{
	return v->kind == YN_SCALAR && v->type == YT_NULL;
}

/* Count a visit to a value of path (whose key is on line): 1 past
 * CRD_VISITS_MAX, said once, and the value is not checked. */
static int crd_visit(struct crd_walk *w, unsigned long line,
		     const char *path)
{
	if (++w->visits <= CRD_VISITS_MAX)
		return 0;
	if (w->visits == CRD_VISITS_MAX + 1)
		crd_say(w, line, *path ? path : "(top)", "the object expands "
			"to more than %d values (aliases repeating nodes); the "
			"rest is not checked", CRD_VISITS_MAX);
	return 1;
}

/* The CRD's validation rules on an object (x-kubernetes-validations).
 * CEL is not evaluated: the one rule the CRD has is written out here,
 * recognised by its message, so a new rule is not silently taken for
 * it. */
static void crd_rules(struct crd_walk *w, const struct ynode *sch,
		      const struct ynode *v, unsigned long line,
		      const char *path)
{
	const struct ynode *rules = sget(w, sch, "x-kubernetes-validations");
	const struct ynode *mn, *mx, *k = NULL;
	double lo, hi = CRD_MAX_REPLICAS_DEFAULT;
	int whole;
	size_t i;

	for (i = 0; rules && rules->kind == YN_SEQ && i < rules->n_kids; i++) {
		const char *msg = ytext(sget(w, &w->s->nodes[rules->kids[i]],
					     "message"));

		if (!msg || strcmp(msg, CRD_MINMAX_RULE))
			continue;
		mn = ymap_get_merged(w->d, v, "minReplicaCount", &k);
		mx = ymap_get_merged(w->d, v, "maxReplicaCount", NULL);
		if (mx && mx->kind == YN_SCALAR && mx->type == YT_NULL)
			mx = NULL;     /* pruned by the API server: absent */
		if (!mn || !crd_is(mn, YT_NUMBER, "tag:yaml.org,2002:int") ||
		    crd_number(mn, &lo, &whole))
			continue;
		if (mx && (!crd_is(mx, YT_NUMBER, "tag:yaml.org,2002:int") ||
			   crd_number(mx, &hi, &whole)))
			continue;
		if (lo > hi)
			crd_say(w, k ? k->line : line, path, "%s (%.0f > %.0f%s)",
				msg, lo, hi, mx ? "" : ", the default");
	}
}

/* The key of map v before its i-th kid with the same text, or NULL.
 * Quadratic in the keys up to CRD_DUP_SCAN of them; a map with more is
 * not an object the CRD describes (those have a few dozen fields). */
#define CRD_DUP_SCAN 256
static const struct ynode *crd_first_key(const struct ydoc *d,
					 const struct ynode *v, size_t i)
{
	const char *key = d->nodes[v->kids[i]].text;
	size_t j;

	if (v->n_kids > 2 * CRD_DUP_SCAN)
		return NULL;
	for (j = 0; j < i; j += 2) {
		const struct ynode *k = &d->nodes[v->kids[j]];

		if (k->kind == YN_SCALAR && k->type != YT_MERGE &&
		    !strcmp(k->text, key))
			return k;
	}
	return NULL;
}

/* What one map's fields are checked against (crd_object(); crd_loose()
 * has no schema). */
struct crd_fields {
	struct crd_walk *w;
	const struct ynode *sch, *props, *more;
	const struct ynode *map;
	const char *path;             /* the map's */
	int depth;                    /* crd_loose()'s */
};

/* Path is a trigger's metadata: spec.triggers[N].metadata. */
static int crd_trigger_md(const char *path)
{
	size_t plen = strlen(path);

	return !strncmp(path, "spec.triggers[", 14) && plen > 10 &&
	       !strcmp(path + plen - 10, "].metadata");
}

/*
 * A `<<` go-yaml refuses, in the map at f->path or in one it merges
 * (ymerge_bad_fn): kubectl then refuses the whole document, so nothing of
 * it reaches the API server.  Told at the `<<`'s line (an item of its
 * list may be an alias, whose node is written elsewhere); a finding, so a
 * visit: a map repeated by aliases tells it at most CRD_VISITS_MAX times.
 * A list of maps is refused only through an alias (YN_ALIAS), so the
 * message then says how to write it.
 */
/* The path of a `<<` (key) of the map at path, with [item] when item >=
 * 0 (ymerge_bad_fn's), into at. */
static void crd_merge_path(char at[CRD_PATH_MAX], const char *path,
			   const struct ynode *key, long item)
{
	char sub[CRD_PATH_MAX];

	crd_path_key(sub, path, key);
	if (item >= 0)
		crd_path_index(at, sub, (size_t)item);
	else
		snprintf(at, CRD_PATH_MAX, "%s", sub);
}

/* The finding for bad, what go-yaml refuses in a `<<` at path at. */
static void crd_merge_say(char msg[CRD_MSG_MAX], const char *at,
			  const struct ynode *bad)
{
	char shown[YDOC_SHOW_BUF];
	int show = bad->kind == YN_SCALAR && !crd_null(bad);
	int alias = (bad->flags & YN_ALIAS) != 0;

	crd_format(msg, at, "%s%s%sis %s, not a map: kubectl refuses the "
		   "whole document (\"map merge requires map or sequence of "
		   "maps as the value\"); allowed: a map, or a list of maps%s",
		   show ? "'" : "", show ? ydoc_show(shown, bad) : "",
		   show ? "' " : "", alias ? "an alias to a list" :
		   crd_kind(bad), alias ? " written in place (its items may "
		   "be aliases to maps)" : "");
}

static int crd_bad_merge(void *arg, const struct ynode *key,
			 const struct ynode *bad, long item)
{
	const struct crd_fields *f = arg;
	char at[CRD_PATH_MAX], msg[CRD_MSG_MAX];

	crd_merge_path(at, f->path, key, item);
	if (crd_visit(f->w, key->line, at))
		return 1;
	crd_merge_say(msg, at, bad);
	f->w->found++;
	f->w->report(f->w->arg, key->line, msg);
	return 0;
}

void crd_bad_merge_msg(char msg[CRD_MSG_MAX], const char *path,
		       const struct ynode *key, const struct ynode *bad,
		       long item)
{
	char at[CRD_PATH_MAX];

	crd_merge_path(at, path, key, item);
	crd_merge_say(msg, at, bad);
}

/* A pair `<<` merges into a map no schema describes (ymap_pair_fn):
 * kept or not, go-yaml reads its value, so it is looked into. */
static int crd_loose_merged(void *arg, const struct ynode *kn,
			    const struct ynode *v, int kept)
{
	const struct crd_fields *f = arg;
	char sub[CRD_PATH_MAX];

	(void)kept;
	crd_path_key(sub, f->path, kn);
	if (crd_visit(f->w, kn->line, sub))
		return 1;
	crd_loose(f->w, v, sub, f->depth + 1);
	return 0;
}

/*
 * Value v of path, which no schema describes here (an unknown field, a
 * value of the wrong type, metadata's labels, the metadata of a trigger
 * lint does not check): only the merge keys in and under it are checked,
 * since go-yaml refuses a bad one wherever it stands.  Each kid is a
 * visit, as under a schema, and depth bounds the recursion (an alias
 * deep in a collection to one as deep nests deeper than the document
 * does) at YDOC_DEPTH, as deep as a document nests.  v itself is its
 * caller's visit.
 */
static void crd_loose(struct crd_walk *w, const struct ynode *v,
		      const char *path, int depth)
{
	struct crd_fields f = { w, NULL, NULL, NULL, v, path, depth };
	const struct ynode *k, *kid;
	char sub[CRD_PATH_MAX];
	size_t i;

	if (v->kind == YN_SCALAR || depth >= YDOC_DEPTH)
		return;
	if (v->kind == YN_SEQ) {
		for (i = 0; i < v->n_kids; i++) {
			kid = &w->d->nodes[v->kids[i]];
			crd_path_index(sub, path, i);
			if (crd_visit(w, kid->line, sub))
				return;
			crd_loose(w, kid, sub, depth + 1);
		}
		return;
	}
	if (ymap_each_bad_merge(w->d, v, crd_bad_merge, &f))
		return;
	for (i = 0; i + 1 < v->n_kids; i += 2) {
		k = &w->d->nodes[v->kids[i]];
		if (!ytext(k) || k->type == YT_MERGE)
			continue;
		crd_path_key(sub, path, k);
		if (crd_visit(w, k->line, sub))
			return;
		crd_loose(w, &w->d->nodes[v->kids[i + 1]], sub, depth + 1);
	}
	ymap_each_merged(w->d, v, crd_loose_merged, &f);
}

/* Field kn, whose value is v, of the map at f->path: checked against its
 * property, else against additionalProperties, else it is unknown; what
 * no schema describes is looked into for its merge keys (crd_loose()).
 * v is one visit on every way (crd_value()'s, or this function's). */
static void crd_field(const struct crd_fields *f, const struct ynode *kn,
		      const struct ynode *v)
{
	struct crd_walk *w = f->w;
	const struct ynode *ps;
	const char *near;
	char sub[CRD_PATH_MAX];

	crd_path_key(sub, f->path, kn);
	ps = f->props ? ymap_get(w->s, f->props, kn->text, NULL) : NULL;
	if (ps && crd_trigger_md(sub)) {
		/* lint's own checks say more on the metadata of the
		 * triggers it checks; in another's only `<<` is (a visit
		 * either way, as a value) */
		if (crd_null(v) || crd_visit(w, kn->line, sub))
			return;
		if (!ydoc_is_external(w->d, f->map, w->address))
			crd_loose(w, v, sub, 0);
		return;
	}
	if (ps) {
		crd_value(w, ps, v, kn->line, sub);
		return;
	}
	if (f->more) {
		crd_value(w, f->more, v, kn->line, sub);
		return;
	}
	if (ydoc_json_key(kn)) {
		;	/* null or past int64: ydoc_check() tells kubectl's
			 * refusal of the document */
	} else if (f->props &&
	    !sflag(w, f->sch, "x-kubernetes-preserve-unknown-fields")) {
		/* a finding, so a visit: an object of unknown fields that
		 * aliases repeat would say millions */
		if (crd_visit(w, kn->line, sub))
			return;
		near = crd_nearest(w, f->props, kn->text);
		crd_say(w, kn->line, sub, "unknown field: the CRD has no such "
			"field here, and the API server refuses it (kubectl's "
			"strict validation)%s%s%s",
			near ? "; did you mean '" : "", near ? near : "",
			near ? "'?" : "");
	} else if (crd_visit(w, kn->line, sub)) {
		/* a field of a map whose schema lists none (metadata) or
		 * keeps unknown ones: a value, so a visit, as crd_loose()
		 * wants of its caller (an unknown field's finding was its
		 * visit above) */
		return;
	}
	/* no schema for it: only its merge keys */
	crd_loose(w, v, sub, 0);
}

/*
 * A pair `<<` merges into the map (ymap_pair_fn): checked as a written
 * one when kubectl keeps it (not when the map or an earlier merge gives
 * its key), at the line it is written on.  Each pair met counts as a
 * visit, kept or not, as a value an alias repeats does: a large map
 * merged into many maps costs at most CRD_VISITS_MAX an object.
 */
static int crd_merged(void *arg, const struct ynode *kn,
		      const struct ynode *v, int kept)
{
	const struct crd_fields *f = arg;
	char sub[CRD_PATH_MAX];

	if (crd_visit(f->w, kn->line, f->path))
		return 1;
	if (kept) {
		crd_field(f, kn, v);
		return 0;
	}
	/* given before, so not the object's; go-yaml reads it all the
	 * same, `<<` and all */
	crd_path_key(sub, f->path, kn);
	crd_loose(f->w, v, sub, 0);
	return 0;
}

static void crd_object(struct crd_walk *w, const struct ynode *sch,
		       const struct ynode *v, unsigned long line,
		       const char *path)
{
	struct crd_fields f = { w, sch, sget(w, sch, "properties"),
				sget(w, sch, "additionalProperties"), v, path,
				0 };
	const struct ynode *req = sget(w, sch, "required");
	const struct ynode *kn, *first;
	const char *key;
	char sub[CRD_PATH_MAX];
	size_t i;

	if (f.more && f.more->kind != YN_MAP)
		f.more = NULL;                  /* additionalProperties: bool */
	/* a `<<` of anything but maps: the document never reaches the
	 * API server */
	ymap_each_bad_merge(w->d, v, crd_bad_merge, &f);
	for (i = 0; i + 1 < v->n_kids; i += 2) {
		kn = &w->d->nodes[v->kids[i]];
		if (!ytext(kn) || kn->type == YT_MERGE)
			continue;
		if ((first = crd_first_key(w->d, v, i)) != NULL) {
			/* kubectl's strict decoding refuses it, the lax one
			 * keeps the last: either way not what it seems (and
			 * a finding, so a visit) */
			crd_path_key(sub, path, kn);
			if (crd_visit(w, kn->line, sub))
				continue;
			crd_say(w, kn->line, sub, "is given twice (first on "
				"line %lu); give each field once",
				(unsigned long)first->line);
			/* go-yaml reads this one too */
			crd_loose(w, &w->d->nodes[v->kids[i + 1]], sub, 0);
			continue;
		}
		crd_field(&f, kn, &w->d->nodes[v->kids[i + 1]]);
	}
	/* the fields `<<` merges in, which kubectl applies in every map */
	ymap_each_merged(w->d, v, crd_merged, &f);
	for (i = 0; req && req->kind == YN_SEQ && i < req->n_kids; i++) {
		key = ytext(&w->s->nodes[req->kids[i]]);
		if (key && !ymap_get_merged(w->d, v, key, NULL))
			crd_say(w, line, *path ? path : "(top)", "required "
				"field '%s' is missing", key);
	}
	crd_rules(w, sch, v, line, *path ? path : "(top)");
}

/* The compiled pattern of pattern node pn (NULL: none, or it did not
 * compile, and is not checked, as before it was compiled once). */
static const regex_t *crd_regex(const struct crd *c, const struct ynode *pn)
{
	size_t i;

	for (i = 0; pn && i < c->n_pat; i++)
		if (c->pat[i].text == pn)
			return c->pat[i].ok ? &c->pat[i].re : NULL;
	return NULL;
}

static void crd_string(struct crd_walk *w, const struct ynode *sch,
		       const struct ynode *v, unsigned long line,
		       const char *path)
{
	const struct ynode *en = sget(w, sch, "enum"), *min;
	const struct ynode *pn = sget(w, sch, "pattern");
	const regex_t *re = crd_regex(w->c, pn);
	const char *pat = ytext(pn);
	char shown[YDOC_SHOW_BUF], list[CRD_MSG_MAX / 2];
	size_t i, n = 0;
	long ml;

	if (en && en->kind == YN_SEQ) {
		for (i = 0; i < en->n_kids; i++) {
			const char *e = ytext(&w->s->nodes[en->kids[i]]);

			if (e && !strcmp(e, v->text))
				break;
			if (e && n < sizeof(list))
				n += (size_t)snprintf(list + n, sizeof(list) - n,
						      "%s%s", i ? ", " : "", e);
		}
		if (i == en->n_kids)
			crd_say(w, line, path, "'%s' is not allowed; allowed: "
				"%s", ydoc_show(shown, v), list);
	}
	min = sget(w, sch, "minLength");
	if (min && ytext(min) && (ml = strtol(min->text, NULL, 10)) > 0 &&
	    strlen(v->text) < (size_t)ml)
		crd_say(w, line, path, "must not be empty");
	if (re && pat) {
		if (regexec(re, v->text, 0, NULL, 0) &&
		    strstr(pat, "[numkMGTPE]"))
			crd_say(w, line, path, "'%s' is not a Kubernetes "
				"quantity; allowed: a decimal number with an "
				"optional suffix, e.g. \"0\", \"0.05\", \"50m\"",
				ydoc_show(shown, v));
		else if (regexec(re, v->text, 0, NULL, 0))
			crd_say(w, line, path, "'%s' does not match the CRD's "
				"pattern %.120s", ydoc_show(shown, v), pat);
	}
}

static void crd_integer(struct crd_walk *w, const struct ynode *sch,
			const struct ynode *v, unsigned long line,
			const char *path)
{
	const char *fmt = ytext(sget(w, sch, "format"));
	const char *min = ytext(sget(w, sch, "minimum"));
	char shown[YDOC_SHOW_BUF];
	double x, lo;
	int whole;

	if (crd_number(v, &x, &whole) || !whole) {
		crd_say(w, line, path, "%s is not a whole number; the CRD "
			"wants an integer", ydoc_show(shown, v));
		return;
	}
	if (fmt && !strcmp(fmt, "int32") && (x < INT_MIN || x > INT_MAX))
		crd_say(w, line, path, "%s is out of range for an int32",
			ydoc_show(shown, v));
	else if (min && (lo = strtod(min, NULL), x < lo))
		crd_say(w, line, path, "%s is below the minimum %s",
			ydoc_show(shown, v), min);
}

/* Check value v (the value of path, whose key is on line) against sch;
 * what the schema does not describe further (a value of the wrong type)
 * only for its merge keys (crd_loose()). */
static void crd_value(struct crd_walk *w, const struct ynode *sch,
		      const struct ynode *v, unsigned long line,
		      const char *path)
{
	const char *type = ytext(sget(w, sch, "type"));
	const struct ynode *items, *min;
	char sub[CRD_PATH_MAX], shown[YDOC_SHOW_BUF];
	size_t i;
	long mi;

	if (!v || !sch || crd_null(v))
		return;                 /* null: pruned, as absent */
	if (crd_visit(w, line, path))
		return;
	/* a tag that does not fit: kubectl refuses the whole document,
	 * which ydoc_check() tells (lint), and what the CRD wants is moot */
	if (ydoc_tag_refused(v) || ydoc_json_value(v))
		return;
	if (sflag(w, sch, "x-kubernetes-int-or-string")) {
		if (crd_is(v, YT_STR, "tag:yaml.org,2002:str")) {
			crd_string(w, sch, v, line, path);
		} else if (crd_is(v, YT_NUMBER, "tag:yaml.org,2002:int")) {
			crd_integer(w, sch, v, line, path);
		} else {
			crd_say(w, line, path, "is %s; the CRD wants an integer "
				"or a string", crd_kind(v));
		}
	} else if (!type) {
		;                       /* not described: merge keys only */
	} else if (!strcmp(type, "object")) {
		if (v->kind == YN_MAP) {
			crd_object(w, sch, v, line, path);
			return;
		}
		crd_say(w, line, path, "is %s; the CRD wants a map",
			crd_kind(v));
	} else if (!strcmp(type, "array")) {
		if (v->kind != YN_SEQ) {
			crd_say(w, line, path, "is %s; the CRD wants a list",
				crd_kind(v));
		} else {
			min = sget(w, sch, "minItems");
			if (min && ytext(min) &&
			    (mi = strtol(min->text, NULL, 10)) > 0 &&
			    v->n_kids < (size_t)mi)
				crd_say(w, line, path, "needs at least %ld "
					"item%s", mi, mi == 1 ? "" : "s");
			items = sget(w, sch, "items");
			for (i = 0; items && i < v->n_kids; i++) {
				crd_path_index(sub, path, i);
				crd_value(w, items, &w->d->nodes[v->kids[i]],
					  w->d->nodes[v->kids[i]].line, sub);
			}
			if (items)
				return;
		}
	} else if (!strcmp(type, "string")) {
		if (crd_is(v, YT_STR, "tag:yaml.org,2002:str"))
			crd_string(w, sch, v, line, path);
		else if (v->kind == YN_SCALAR)
			crd_say(w, line, path, "%s is %s; the CRD wants a string "
				"(quote it: \"%s\")", ydoc_show(shown, v),
				crd_kind(v), ydoc_show(shown, v));
		else
			crd_say(w, line, path, "is %s; the CRD wants a string",
				crd_kind(v));
	} else if (!strcmp(type, "integer")) {
		if (crd_is(v, YT_NUMBER, "tag:yaml.org,2002:int"))
			crd_integer(w, sch, v, line, path);
		else if (crd_is(v, YT_STR, "tag:yaml.org,2002:str"))
			crd_say(w, line, path, "'%s' is a string; the CRD wants "
				"an integer (write it without quotes)",
				ydoc_show(shown, v));
		else
			crd_say(w, line, path, "is %s; the CRD wants an integer",
				crd_kind(v));
	} else if (!strcmp(type, "number")) {
		if (!crd_is(v, YT_NUMBER, "tag:yaml.org,2002:float"))
			crd_say(w, line, path, "'%s' is %s; the CRD wants a "
				"number", ydoc_show(shown, v), crd_kind(v));
	} else if (!strcmp(type, "boolean")) {
		if (!crd_is(v, YT_BOOL, "tag:yaml.org,2002:bool"))
			crd_say(w, line, path, "'%s' is %s; the CRD wants true or "
				"false, unquoted", ydoc_show(shown, v),
				crd_kind(v));
	}
	/* a scalar, or a collection the schema goes no further into */
	crd_loose(w, v, path, 0);
}

/* v1alpha1's openAPIV3Schema in CRD document s, or NULL. */
static const struct ynode *crd_find_schema(const struct ydoc *s)
{
	static const char *const schema_path[] = {
		"schema", "openAPIV3Schema", NULL };
	const struct ynode *versions, *ver, *sch = NULL;
	unsigned long line = 0;
	size_t i;

	if (s->n == 0)
		return NULL;
	versions = ymap_get(s, ymap_get(s, &s->nodes[0], "spec", NULL),
			    "versions", NULL);
	for (i = 0; versions && versions->kind == YN_SEQ &&
		    i < versions->n_kids && !sch; i++) {
		const char *name;

		ver = &s->nodes[versions->kids[i]];
		name = ytext(ymap_get(s, ver, "name", NULL));
		if (name && !strcmp(name, "v1alpha1"))
			sch = ypath(s, ver, schema_path, &line);
	}
	return sch && sch->kind == YN_MAP ? sch : NULL;
}

/* Compile every `pattern` of the CRD into c->pat.  -1 (with a message)
 * when there are more than CRD_PATTERNS_MAX: a CRD this code does not
 * know. */
static int crd_compile(struct crd *c)
{
	const struct ydoc *s = c->doc;
	const struct ynode *m, *k, *v;
	struct crd_pattern *p;
	size_t i, j;

	for (i = 0; i < s->n; i++) {
		m = &s->nodes[i];
		for (j = 0; m->kind == YN_MAP && j + 1 < m->n_kids; j += 2) {
			k = &s->nodes[m->kids[j]];
			v = &s->nodes[m->kids[j + 1]];
			if (!ytext(k) || strcmp(k->text, "pattern") || !ytext(v))
				continue;
			if (c->n_pat == CRD_PATTERNS_MAX) {
				fprintf(stderr, "staffer: the embedded "
					"ScaledObject CRD has more than %d "
					"patterns\n", CRD_PATTERNS_MAX);
				return -1;
			}
			p = &c->pat[c->n_pat++];
			p->text = v;
			p->ok = !regcomp(&p->re, v->text,
					 REG_EXTENDED | REG_NOSUB);
		}
	}
	return 0;
}

struct crd *crd_load(void)
{
	struct crd *c = calloc(1, sizeof(*c));

	if (!c) {
		fprintf(stderr, "staffer: the embedded ScaledObject CRD: out of "
			"memory\n");
		return NULL;
	}
	if (ydoc_read_one(crd_scaledobject, crd_scaledobject_len,
			  "<the embedded ScaledObject CRD>", "staffer", stderr,
			  &c->doc) != YDOC_OK)
		goto fail;
	c->schema = crd_find_schema(c->doc);
	if (!c->schema) {
		fprintf(stderr, "staffer: the embedded ScaledObject CRD has no "
			"v1alpha1 openAPIV3Schema\n");
		goto fail;
	}
	if (crd_compile(c))
		goto fail;
	return c;
fail:
	crd_free(c);
	return NULL;
}

void crd_free(struct crd *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n_pat; i++)
		if (c->pat[i].ok)
			regfree(&c->pat[i].re);
	ydoc_free(c->doc);
	free(c);
}

int crd_check(const struct crd *c, const struct ydoc *d,
	      const struct ynode *obj, const char *address,
	      crd_report_fn *report, void *arg)
{
	struct crd_walk w;

	memset(&w, 0, sizeof(w));
	w.c = c;
	w.s = c->doc;
	w.d = d;
	w.address = address;
	w.report = report;
	w.arg = arg;
	crd_value(&w, c->schema, obj, obj->line, "");
	return w.found;
}
