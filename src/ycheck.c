/*
 * ycheck.c - see ycheck.h.
 */
#include "ycheck.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "gostd.h"
#include "ydoc_int.h"

/* ---- the whole document, as go-yaml decodes it ------------------------- */

/*
 * Two walks of every node where it is written, each once.  Nodes are
 * numbered as they are read (ydoc.c's ydoc_add()), parents before kids,
 * and an alias names a node that ended before it (ydoc_alias()), so in
 * the order of the text a kid is written in place exactly when its
 * number is the next one the walk has not met: one counter tells an
 * alias from a node written there, with no mark per node.  A node of
 * its own made for an alias (YN_ALIAS) takes a number but is not walked
 * into (its kids are the anchored node's).
 *
 * The first walk, in the order of the text, tells the `<<`s go-yaml
 * refuses and counts, bottom up, how many values go-yaml's decoder reads
 * for each node (its unmarshal() calls, what its alias bound counts:
 * yalias_past()), keeping the count of each anchored node and where it
 * is written.  The second, only when there are aliases, follows the
 * decoder's order (a `<<` list's items last first) and counts what it
 * reads without expanding an alias: an alias adds its node's count.
 */

/* How the walk went down into a kid, for its path: a field (the key
 * before it), a list's item, the value of a `<<` (or an item of its
 * list: what a `<<` merges has its map's path, as in crd.c), or a key. */
enum ystep { YSTEP_FIELD, YSTEP_ITEM, YSTEP_MERGE, YSTEP_KEY };

struct yframe {
	uint32_t parent, slot;  /* the kid: nodes[parent].kids[slot] */
	unsigned char step;     /* enum ystep */
};

/* Counts of values decoded saturate here: past it a document is refused
 * anyway (an alias's count this large is more than 99 % of any
 * document's, whose values written in place are under 2^33). */
#define YCOUNT_MAX (UINT64_C(1) << 62)
/* Set on an anchored node's count (struct yanc) when go-yaml's decoder
 * stops within it: a key that is a list or a map, or a tag that does not
 * fit its value, in it or in a node an alias in it names. */
#define YCOUNT_REFUSED (UINT64_C(1) << 63)

/* An anchored node, by its index in d->anchors: the values go-yaml
 * decodes for it, and where it is written (parent UINT32_MAX: not met). */
struct yanc {
	uint64_t count;
	uint32_t parent, slot;
};

struct ywalk {
	const struct ydoc *d;
	const struct ydoc_check_fns *fns;
	uint32_t next;         /* the number of the next node written */
	/* the objects (ydoc_each_scaledobject()'s: the root, or the items
	 * of a List root), their node numbers sorted; NULL: the root */
	uint32_t *objs;
	size_t n_objs;
	const struct ynode *obj;  /* the object the walk is in */
	size_t obj_depth;      /* frames above it: its path starts there */
	int skip;              /* fns->checked() claims obj */
	/* the anchored nodes (NULL: the document has none), the next one
	 * the first walk meets, and the aliases it met */
	struct yanc *anc;
	size_t cursor, aliases;
	/* the keys and tags go-yaml refuses met so far, and the aliases
	 * met to nodes that hold one (YCOUNT_REFUSED) */
	size_t refusals;
	/* pairs ywalk_kept() may still look at (YKEPT_BUDGET) */
	uint64_t kept_budget;
	/* the second walk (decoding: no `<<` told, no object claimed):
	 * values decoded, those through an alias; stop: the decoder stops
	 * here (refused, for this or another reason) */
	uint64_t decoded, aliased;
	int decoding, stop;
	size_t depth;
	struct yframe frame[YDOC_DEPTH];
};

/* Where the walk was before it went into a kid (ywalk_enter()). */
struct ysaved {
	const struct ynode *obj;
	size_t obj_depth;
	int skip;
};

static uint64_t ycount_add(uint64_t a, uint64_t b)
{
	return b >= YCOUNT_MAX - a ? YCOUNT_MAX : a + b;
}

/* The path of where the walk is, from its object, into out: crd.c's
 * form (fields joined by '.', a key cut at YDOC_SHOW_MAX, items as [N],
 * the path cut to YDOC_PATH_MAX), "" at the object itself. */
static void ywalk_path(const struct ywalk *w, char out[YDOC_PATH_MAX])
{
	char tmp[YDOC_PATH_MAX], shown[YDOC_SHOW_BUF];
	const struct yframe *f;
	const struct ynode *p;
	size_t i;

	out[0] = '\0';
	for (i = w->obj_depth; i < w->depth; i++) {
		f = &w->frame[i];
		p = &w->d->nodes[f->parent];
		if (f->step == YSTEP_FIELD)
			snprintf(tmp, sizeof(tmp), "%.180s%s%s", out,
				 *out ? "." : "",
				 ydoc_show(shown, &w->d->nodes[p->kids[f->slot
								       - 1]]));
		else if (f->step == YSTEP_ITEM)
			snprintf(tmp, sizeof(tmp), "%.200s[%lu]", out,
				 (unsigned long)f->slot);
		else
			continue;
		memcpy(out, tmp, sizeof(tmp));
	}
}

static int ywalk_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The frame of kid i of p (node n), and, n written there (not an
 * alias), the object n is when it is one; 0, or -1 past YDOC_DEPTH
 * frames, as deep as ydoc.c's ydoc_load() lets collections nest, which
 * a walk of nodes written in place never passes.  ywalk_leave() undoes
 * it. */
static int ywalk_enter(struct ywalk *w, const struct ynode *p, size_t i,
		       enum ystep step, const struct ynode *n, int alias,
		       struct ysaved *saved)
{
	struct yframe *f;
	uint32_t c = (uint32_t)(n - w->d->nodes);

	if (w->depth == YDOC_DEPTH)
		return -1;
	saved->obj = w->obj;
	saved->obj_depth = w->obj_depth;
	saved->skip = w->skip;
	f = &w->frame[w->depth++];
	f->parent = (uint32_t)(p - w->d->nodes);
	f->slot = (uint32_t)i;
	f->step = (unsigned char)step;
	if (!alias && n->kind == YN_MAP && w->objs &&
	    bsearch(&c, w->objs, w->n_objs, sizeof(*w->objs),
		    ywalk_u32_cmp)) {
		w->obj = n;
		w->obj_depth = w->depth;
		w->skip = !w->decoding && w->fns->checked &&
			  w->fns->checked(w->fns->arg, w->d, n);
	}
	return 0;
}

static void ywalk_leave(struct ywalk *w, const struct ysaved *saved)
{
	w->obj = saved->obj;
	w->obj_depth = saved->obj_depth;
	w->skip = saved->skip;
	w->depth--;
}

/* The index in d->anchors of node c's anchor, or d->n_anchors when it
 * has none: anchors are made as their nodes are, in order (ydoc.c's
 * ydoc_add()), so the array is sorted by node. */
static size_t ywalk_anchor(const struct ydoc *d, uint32_t c)
{
	size_t lo = 0, hi = d->n_anchors, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (d->anchors[mid].node < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->n_anchors && d->anchors[lo].node == c ? lo
							      : d->n_anchors;
}

/* Tell each `<<` of map n, written here, whose value go-yaml refuses
 * (ymerge_bad()), unless the walk's object is checked by the caller. */
static void ywalk_bad_merges(struct ywalk *w, const struct ynode *n)
{
	const struct ydoc *d = w->d;
	const struct ynode *k, *bad;
	char path[YDOC_PATH_MAX];
	struct ydoc_at at;
	size_t i;
	long item;
	int have = 0;

	if (w->skip || !w->fns->merge)
		return;
	for (i = 0; i + 1 < n->n_kids; i += 2) {
		k = &d->nodes[n->kids[i]];
		if (k->kind != YN_SCALAR || k->type != YT_MERGE)
			continue;
		bad = ymerge_bad(d, &d->nodes[n->kids[i + 1]], &item);
		if (!bad)
			continue;
		if (!have) {
			ywalk_path(w, path);
			have = 1;
		}
		at.obj = w->obj;
		at.path = path;
		at.line = k->line;
		w->fns->merge(w->fns->arg, &at, k, bad, item);
	}
}

/* Tell x (fns->refused, set) with the walk's object and path, at line. */
static void ywalk_tell(struct ywalk *w, unsigned long line,
		       const struct ydoc_refusal *x)
{
	char path[YDOC_PATH_MAX];
	struct ydoc_at at;

	ywalk_path(w, path);
	at.obj = w->obj;
	at.path = path;
	at.line = line;
	w->fns->refused(w->fns->arg, &at, x);
}

/* A node go-yaml's decoder refuses, n, where the walk is (its line:
 * line): counted, and told (fns->refused) with the walk's object and
 * path.  key: n is a key; resolved NULL: a key that is a list or a map,
 * or with base64 a !!binary that is not base64, else n's tag does not
 * fit its text, which resolves to that. */
static void ywalk_refused(struct ywalk *w, const struct ynode *n, int key,
			  const char *resolved, int base64,
			  unsigned long line)
{
	struct ydoc_refusal x;

	w->refusals++;
	if (!w->fns->refused)
		return;
	x.n = n;
	x.key = key;
	x.resolved = resolved;
	/* ytag_misfit() answers only for the standard tags */
	x.tag = resolved || base64 ? ytag_std(ytag(n)) : NULL;
	x.json = NULL;
	x.base64 = base64;
	ywalk_tell(w, line, &x);
}

/* A scalar tagged !!binary whose text is not base64 as Go decodes it
 * (decode.go: "!!binary value contains invalid base64 data"); ydoc.c
 * reads a valid one as a string, YT_STR. */
static int ybinary_bad(const struct ynode *n)
{
	const char *t = ytag_std(ytag(n));

	return t && !strcmp(t, "binary") &&
	       gostd_base64(n->text, n->len, NULL, NULL) != 0;
}

/* The tag of scalar n, written where the walk is, as go-yaml's decoder
 * checks it (ytag_misfit(), ybinary_bad()): told when it does not fit.
 * Returns 1 when it does not. */
static int ywalk_scalar(struct ywalk *w, const struct ynode *n, int key)
{
	const char *r;
	int bin;

	if (n->kind != YN_SCALAR || n->type != YT_TAGGED)
		return 0;
	r = ytag_misfit(ytag(n), n->text, n->len);
	bin = !r && ybinary_bad(n);
	if (!r && !bin)
		return 0;
	if (!w->decoding)
		ywalk_refused(w, n, key, r, bin, n->line);
	return 1;
}

int ydoc_tag_refused(const struct ynode *n)
{
	return n && n->kind == YN_SCALAR && n->type == YT_TAGGED &&
	       (ytag_misfit(ytag(n), n->text, n->len) != NULL ||
		ybinary_bad(n));
}

/* n a scalar go-yaml reads as type (YT_NUMBER: "int" or "float"), untagged
 * or under a standard tag that fits. */
static int yjson_is(const struct ynode *n, enum yn_type type,
		    const char *tag)
{
	const char *t;

	if (!n || n->kind != YN_SCALAR)
		return 0;
	if (n->type == type)
		return 1;
	t = ytag_std(ytag(n));
	return n->type == YT_TAGGED && t && !strcmp(t, tag) &&
	       !ytag_misfit(ytag(n), n->text, n->len);
}

const char *ydoc_json_value(const struct ynode *n)
{
	if (!yjson_is(n, YT_NUMBER, "float") ||
	    !ydoc_word_in(n->text, ygo_floats))
		return NULL;
	/* .nan, .NaN, .NAN; [+-].inf, .Inf, .INF */
	if (n->text[1] == 'n' || n->text[1] == 'N')
		return "NaN";
	return n->text[0] == '-' ? "-Inf" : "+Inf";
}

/* Texts up to this long are read without a malloc(): numbers written as
 * keys are short. */
#define YPLAIN_STACK 64

/* n's text without its underscores (resolve.go's strings.Replace()):
 * the text itself when it has none, else a copy in buf when it fits, or
 * in *heap, malloc()ed, which the caller frees (NULL when not used).
 * NULL out of memory. */
static const char *yplain(const struct ynode *n, char buf[YPLAIN_STACK],
			  char **heap)
{
	char *out = buf;
	size_t i, o;

	*heap = NULL;
	if (!memchr(n->text, '_', n->len))
		return n->text;
	if (n->len >= YPLAIN_STACK) {
		out = *heap = malloc((size_t)n->len + 1);
		if (!out)
			return NULL;
	}
	for (i = o = 0; i < n->len; i++)
		if (n->text[i] != '_')
			out[o++] = n->text[i];
	out[o] = '\0';
	return out;
}

const char *ydoc_json_key(const struct ynode *n)
{
	char buf[YPLAIN_STACK], *heap;
	const char *plain;
	int r;

	if (yjson_is(n, YT_NULL, "null"))
		return "nil";
	if (!yjson_is(n, YT_NUMBER, "int") || strlen(n->text) != n->len ||
	    (n->text[0] != '+' && !ascii_is_digit((unsigned char)n->text[0])))
		return NULL;
	/* resolve.go: ParseInt, then ParseUint, of the text without its
	 * underscores (base 0: 0x, 0o, 0b, a leading 0) */
	plain = yplain(n, buf, &heap);
	if (!plain)
		return NULL;
	r = ygo_int(plain, 0, NULL);
	free(heap);
	return r == 2 ? "uint64" : NULL;
}

/*
 * A scalar key as go-yaml v2 decodes it into the interface{} of a
 * map[interface{}]interface{} (resolve.go's resolve(), decode.go's
 * scalar()), which Go's == compares: a string (its bytes), nil, a bool,
 * an int (int64 on 64-bit hosts: int(intv) always fits), a uint64 (an
 * int past int64), a float64.  Keys of two types are two keys (int 1,
 * float64 1 and string "1" are three); go-yaml replaces a pair only for
 * an equal key (int 1 and 0x1, true and yes, two nulls, 1.0 and 1e0;
 * never a NaN, which equals nothing).
 */
enum ygo_type { YGO_UNKNOWN, YGO_STR, YGO_NIL, YGO_BOOL, YGO_INT, YGO_UINT,
		YGO_FLOAT };

struct ygo_key {
	enum ygo_type type;
	const char *text;      /* YGO_STR: len bytes */
	size_t len;
	uint64_t u;            /* YGO_BOOL (0, 1), YGO_INT (two's
				* complement), YGO_UINT */
	double f;              /* YGO_FLOAT */
};

/* The number scalar n (typed YT_NUMBER, or tagged !!int or !!float and
 * fitting) is, as resolve() tries them in order: a fixed word (.inf,
 * .nan), text starting with '.' ParseFloat's, else ParseInt, ParseUint,
 * a float (the regex ydoc.c's yaml11_float() follows, then ParseFloat:
 * strtod(), correctly rounded as Go's is), then "0b" and ParseInt of the
 * rest in base 2.  Under !!float an int is its float64.  0, or -1 when
 * it cannot tell (out of memory, or text ydoc.c took for a number that
 * none of these reads). */
static int ykey_number(const struct ynode *n, int as_float,
		       struct ygo_key *k)
{
	char buf[YPLAIN_STACK], *heap, *end;
	const char *plain;
	int r, rc = -1;

	/* the words start ".", "+." or "-." */
	if ((n->text[0] == '.' || (n->len > 1 && n->text[1] == '.')) &&
	    ydoc_word_in(n->text, ygo_floats)) {
		k->type = YGO_FLOAT;
		k->f = n->text[1] == 'n' || n->text[1] == 'N' ? NAN :
		       n->text[0] == '-' ? -INFINITY : INFINITY;
		return 0;
	}
	plain = yplain(n, buf, &heap);
	if (!plain)
		return -1;
	r = n->text[0] == '.' ? 0 : ygo_int(plain, 0, &k->u);
	if (!r) {
		k->f = strtod(plain, &end);
		if (*plain && !*end) {
			k->type = YGO_FLOAT;
			rc = 0;
			goto out;
		}
		if (strncmp(plain, "0b", 2) != 0)
			goto out;
		r = ygo_int(plain + 2, 2, &k->u);
		if (!r)
			goto out;
	}
	k->type = r == 1 ? YGO_INT : YGO_UINT;
	if (as_float && r == 1) {
		/* resolve.go: an int under !!float is its float64 */
		k->type = YGO_FLOAT;
		k->f = (double)(int64_t)k->u;
	}
	rc = 0;
out:
	free(heap);
	return rc;
}

/* Scalar key n as go-yaml decodes it (ygo_key): untagged, or under a
 * standard tag that fits (a valid !!timestamp or !!binary, and a local
 * tag, are strings already: ydoc.h's YT_STR).  A key go-yaml refuses
 * (a list, a map, a tag that does not fit), a `<<`, or out of memory:
 * YGO_UNKNOWN, which may be any key. */
static void ykey_go(const struct ynode *n, struct ygo_key *k)
{
	k->type = YGO_UNKNOWN;
	if (n->kind != YN_SCALAR)
		return;
	if (n->type == YT_STR) {
		k->type = YGO_STR;
		k->text = n->text;
		k->len = n->len;
	} else if (yjson_is(n, YT_NULL, "null")) {
		k->type = YGO_NIL;
	} else if (yjson_is(n, YT_BOOL, "bool")) {
		/* resolve.go's words: y, yes, true, on (any of their
		 * cases) are true; n, no, false, off false */
		k->type = YGO_BOOL;
		k->u = n->text[0] == 'y' || n->text[0] == 'Y' ||
		       n->text[0] == 't' || n->text[0] == 'T' ||
		       n->text[1] == 'n' || n->text[1] == 'N';
	} else if (yjson_is(n, YT_NUMBER, "int") ||
		   yjson_is(n, YT_NUMBER, "float")) {
		if (ykey_number(n, n->type == YT_TAGGED &&
				!strcmp(ytag_std(ytag(n)), "float"), k))
			k->type = YGO_UNKNOWN;
	}
}

/* Pairs ywalk_kept() looks at in one document, at most: past them what
 * it has not judged is taken as dropped (not told), so a map of 100,000
 * `.inf`s costs a second, not its square.  A key compared by value (a
 * number's text parsed: ykey_number()) counts YKEPT_PARSE pairs, being
 * that much slower than comparing strings. */
#define YKEPT_BUDGET (UINT64_C(1) << 26)
#define YKEPT_PARSE 8

/* Whether key b may be key a (resolved: ykey_go()) to go-yaml: Go's ==
 * on what it decodes them to (ygo_key), the same type and value; an
 * unknown one may be any.  A parse of b takes YKEPT_PARSE - 1 more from
 * *budget (the caller took one), down to 0. */
static int ykey_maybe_same(const struct ynode *b, const struct ygo_key *a,
			   uint64_t *budget)
{
	struct ygo_key k;

	if (a->type == YGO_UNKNOWN || b->kind != YN_SCALAR)
		return 1;
	/* a string is compared as it is, and an untagged scalar of another
	 * type is no string: no parse */
	if (b->type == YT_STR)
		return a->type == YGO_STR && a->len == b->len &&
		       !memcmp(a->text, b->text, a->len);
	if (a->type == YGO_STR && b->type != YT_TAGGED &&
	    b->type != YT_MERGE)
		return 0;
	if (b->type == YT_NUMBER || b->type == YT_TAGGED)
		*budget -= *budget < YKEPT_PARSE - 1 ? *budget
						     : YKEPT_PARSE - 1;
	ykey_go(b, &k);
	if (k.type == YGO_UNKNOWN)
		return 1;
	if (k.type != a->type)
		return 0;
	if (k.type == YGO_FLOAT)
		return k.f == a->f;   /* NaN: never; 0 and -0: one */
	return k.type == YGO_NIL || k.u == a->u;
}

/* Whether map m has a pair whose key may be k, or a `<<` (unless
 * within, it answers yes). */
static int ymap_may_have(const struct ydoc *d, const struct ynode *m,
			 const struct ygo_key *k, uint64_t *budget)
{
	const struct ynode *kj;
	size_t j;

	if (m->kind != YN_MAP)
		return 1;
	for (j = 0; j + 1 < m->n_kids; j += 2) {
		if (!*budget)
			return 1;
		--*budget;
		kj = &d->nodes[m->kids[j]];
		if ((kj->kind == YN_SCALAR && kj->type == YT_MERGE) ||
		    ykey_maybe_same(kj, k, budget))
			return 1;
	}
	return 0;
}

/* Whether a pair of map m after kid index i (a key's; (size_t)-2: all of
 * them) may replace a pair whose key is k: one whose key may be the same,
 * or a `<<` of a map (of a list of maps) that may have it (decode.go's
 * mapping() sets pairs in order, a merge's too, the last winning). */
static int ylater_over(const struct ydoc *d, const struct ynode *m,
		       size_t i, const struct ygo_key *k, uint64_t *budget)
{
	const struct ynode *kj, *v;
	size_t j, u;

	for (j = i + 2; j + 1 < m->n_kids; j += 2) {
		if (!*budget)
			return 1;
		--*budget;
		kj = &d->nodes[m->kids[j]];
		v = &d->nodes[m->kids[j + 1]];
		if (kj->kind != YN_SCALAR || kj->type != YT_MERGE) {
			if (ykey_maybe_same(kj, k, budget))
				return 1;
			continue;
		}
		if (v->kind != YN_SEQ) {
			if (ymap_may_have(d, v, k, budget))
				return 1;
			continue;
		}
		for (u = 0; u < v->n_kids; u++)
			if (ymap_may_have(d, &d->nodes[v->kids[u]], k, budget))
				return 1;
	}
	return 0;
}

/*
 * Whether go-yaml keeps the node the walk is at, as written there, in
 * what it decodes (what sigs.k8s.io/yaml then converts): a pair's value
 * is dropped when a later pair of its map may have its key, or a `<<`
 * follows it (decode.go's mapping() sets pairs in order, a merge's too,
 * the last winning; ylater_over()); a pair `<<` merges, the same in the
 * map it merges into after the `<<`, and when an earlier map of a `<<`
 * list has a `<<` or may have its key (merge() reads the list last item
 * first).  Items, keys and the root are kept.  When unsure it answers
 * dropped: what it tells kubectl refuses.  A node repeated by an alias
 * is not judged there.  Keys are one when go-yaml's Go values are
 * (ykey_maybe_same()); two it keeps apart that sigs.k8s.io/yaml turns
 * into one string (1 and 1.0: "1") are both kept: YAMLToJSON() keeps
 * one at random (Go's map order), refusing the document on some runs.
 */
static int ywalk_kept(struct ywalk *w)
{
	const struct ydoc *d = w->d;
	const struct yframe *f, *g;
	const struct ynode *p, *m;
	struct ygo_key key, *k = &key;
	size_t i, j, u;

	for (i = w->depth; i-- > 0;) {
		f = &w->frame[i];
		if (f->step != YSTEP_FIELD)
			continue;
		p = &d->nodes[f->parent];
		ykey_go(&d->nodes[p->kids[f->slot - 1]], k);
		if (ylater_over(d, p, f->slot - 1, k, &w->kept_budget))
			return 0;
		/* p merged by a `<<` (of a list): up to the map it merges
		 * into, and on while that one is merged */
		for (j = i; j-- > 0 && w->frame[j].step == YSTEP_MERGE;) {
			g = &w->frame[j];
			m = &d->nodes[g->parent];
			if (m->kind == YN_SEQ) {
				for (u = 0; u < g->slot; u++)
					if (ymap_may_have(d, &d->nodes[m->kids[u]],
							  k, &w->kept_budget))
						return 0;
				continue;
			}
			/* the `<<`'s value is kid g->slot of map m */
			if (ylater_over(d, m, g->slot - 1, k, &w->kept_budget))
				return 0;
		}
	}
	return 1;
}

/* What sigs.k8s.io/yaml refuses in n (ydoc_json_key() for a key, else
 * ydoc_json_value()), told where the walk is (line: n's, or for a key
 * that is an alias its value's or its map's) when go-yaml keeps it.  Not
 * counted among the refusals that stop go-yaml's decoder: it has read
 * the document by then. */
static void ywalk_json(struct ywalk *w, const struct ynode *n, int key,
		       unsigned long line)
{
	const char *json = key ? ydoc_json_key(n) : ydoc_json_value(n);
	struct ydoc_refusal x;

	if (!json || w->decoding || !w->fns->refused || !ywalk_kept(w))
		return;
	x.n = n;
	x.key = key;
	x.tag = NULL;
	x.resolved = NULL;
	x.json = json;
	x.base64 = 0;
	ywalk_tell(w, line, &x);
}

static uint64_t ywalk_kid(struct ywalk *w, const struct ynode *p, size_t i,
			  enum ystep step);

/*
 * The kids of node n, written where the walk is (merged: n is the value
 * of a `<<`, whose list's items merge into the map).  Returns the values
 * go-yaml's decoder reads for n (decode.go's unmarshal() calls): 1, and
 * those of its kids, but of a `<<` key (never decoded) and a `<<` list
 * (its items are, not the list).  A document go-yaml refuses for a bad
 * `<<` or a key that is a collection stops its decoder there; the count
 * is then what it would be without the refusal.
 */
static uint64_t ywalk_node(struct ywalk *w, const struct ynode *n,
			   int merged)
{
	const struct ynode *k, *v;
	uint64_t count = 1, kc, vc;
	size_t i;
	int kin, vin;

	if (n->kind == YN_SEQ) {
		for (i = 0; i < n->n_kids; i++)
			count = ycount_add(count, ywalk_kid(w, n, i, merged ?
						     YSTEP_MERGE : YSTEP_ITEM));
		return count;
	}
	if (n->kind != YN_MAP)
		return 1;
	ywalk_bad_merges(w, n);
	for (i = 0; i + 1 < n->n_kids; i += 2) {
		/* a `<<` key is the scalar written there: an alias to one
		 * as a key is a YT_STR copy (ydoc.c's ydoc_alias()) */
		k = &w->d->nodes[n->kids[i]];
		v = &w->d->nodes[n->kids[i + 1]];
		kin = n->kids[i] == w->next;
		kc = ywalk_kid(w, n, i, YSTEP_KEY);
		vin = n->kids[i + 1] == w->next;
		if (k->kind != YN_SCALAR) {
			/* decode.go's mapping(): "invalid map key"; an
			 * alias has no line: its value's, or its map's */
			ywalk_refused(w, k, 1, NULL, 0, kin ? k->line :
				      vin ? v->line : n->line);
		} else if (k->type != YT_MERGE) {
			/* a null key, or one past int64, is kept in the
			 * map wherever the map is */
			ywalk_json(w, k, 1, kin ? k->line :
				   vin ? v->line : n->line);
		}
		if (k->kind == YN_SCALAR && k->type == YT_MERGE) {
			vc = ywalk_kid(w, n, i + 1, YSTEP_MERGE);
			if (v->kind == YN_SEQ && !(v->flags & YN_ALIAS))
				vc--;          /* its items, not the list */
			count = ycount_add(count, vc);
		} else {
			count = ycount_add(count, kc);
			count = ycount_add(count, ywalk_kid(w, n, i + 1,
							    YSTEP_FIELD));
		}
	}
	return count;
}

/* Kid i of p: walked into when it is written there, in the object it is
 * when it is one, and its count kept when it is anchored.  Returns the
 * values go-yaml decodes for it where it stands: an alias is one, and
 * its node's. */
static uint64_t ywalk_kid(struct ywalk *w, const struct ynode *p, size_t i,
			  enum ystep step)
{
	const struct ydoc *d = w->d;
	uint32_t c = p->kids[i];
	const struct ynode *n = &d->nodes[c];
	struct ysaved saved;
	uint64_t count;
	size_t a, refusals;

	if (c != w->next) {
		/* an alias: its node ended before it, and was counted */
		w->aliases++;
		if (!w->anc)
			return 2;
		a = ywalk_anchor(d, c);
		if (a >= d->n_anchors)
			return 2;
		if (w->anc[a].count & YCOUNT_REFUSED)
			w->refusals++;
		return ycount_add(1, w->anc[a].count & ~YCOUNT_REFUSED);
	}
	w->next++;
	if (n->flags & YN_ALIAS) {
		/* a copy for an alias: a key `<<` (the alias and its
		 * scalar), or a list as a `<<`'s value (refused there) */
		w->aliases++;
		return n->kind == YN_SCALAR ? 2 : 1;
	}
	/* its anchor, if any: the walk meets the nodes written in place in
	 * order, as their anchors are (before their kids') */
	a = d->n_anchors;
	if (w->anc) {
		while (w->cursor < d->n_anchors &&
		       d->anchors[w->cursor].node < c)
			w->cursor++;
		if (w->cursor < d->n_anchors &&
		    d->anchors[w->cursor].node == c)
			a = w->cursor;
	}
	if (ywalk_enter(w, p, i, step, n, 0, &saved))
		return 1;
	refusals = w->refusals;
	if (!ywalk_scalar(w, n, step == YSTEP_KEY) && step != YSTEP_KEY)
		ywalk_json(w, n, 0, n->line);
	count = ywalk_node(w, n, step == YSTEP_MERGE);
	ywalk_leave(w, &saved);
	if (a < d->n_anchors) {
		w->anc[a].count = count | (w->refusals != refusals ?
					   YCOUNT_REFUSED : 0);
		w->anc[a].parent = (uint32_t)(p - d->nodes);
		w->anc[a].slot = (uint32_t)i;
	}
	return count;
}

/*
 * go-yaml v2's bound on aliases (decode.go's unmarshal() and
 * allowedAliasRatio(), v2.4.0 as Debian ships it, in kubectl through
 * sigs.k8s.io/yaml): at every value it decodes, with decoded values so
 * far and aliased those decoded inside an alias, the document is refused
 * ("document contains excessive aliasing") when aliased > 100, decoded >
 * 1000 and aliased / decoded is above 0.99 up to 400,000 values, 0.10
 * from 4,000,000, and in between a line from one to the other.
 */
static double yalias_allowed(uint64_t decoded)
{
	if (decoded <= 400000)
		return 0.99;
	if (decoded >= 4000000)
		return 0.10;
	return 0.99 - 0.89 * ((double)(decoded - 400000) / 3600000.0);
}

/* go-yaml's check after each value it decodes: the document is
 * refused. */
static int yalias_past(uint64_t aliased, uint64_t decoded)
{
	return aliased > 100 && decoded > 1000 &&
	       (double)aliased / (double)decoded > yalias_allowed(decoded);
}

/*
 * Count values more decoded, all aliased or none; 1 when the document is
 * refused within them, the counts then go-yaml's where it stops.  Within
 * an alias each value adds one to both counts, so the ratio only grows
 * and the allowed one only shrinks: the bound, checked after each value,
 * is passed within an alias exactly when it is at its end, and first at
 * the value a binary search finds (log2 of the alias's count).
 */
static int ydec_count(struct ywalk *w, uint64_t values, int aliased)
{
	uint64_t lo = 0, hi = values, mid;

	if (!aliased) {
		w->decoded = ycount_add(w->decoded, values);
		return yalias_past(w->aliased, w->decoded);
	}
	if (!yalias_past(ycount_add(w->aliased, values),
			 ycount_add(w->decoded, values))) {
		w->aliased = ycount_add(w->aliased, values);
		w->decoded = ycount_add(w->decoded, values);
		return 0;
	}
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (yalias_past(ycount_add(w->aliased, mid),
				ycount_add(w->decoded, mid)))
			hi = mid;
		else
			lo = mid;
	}
	w->aliased = ycount_add(w->aliased, hi);
	w->decoded = ycount_add(w->decoded, hi);
	return 1;
}

/* Tell the refusal, at the kid the walk is in (an alias: name the anchor
 * a, n its node), and stop. */
static void ydec_refused(struct ywalk *w, const struct ynode *n,
			 size_t a, int alias)
{
	const struct ydoc *d = w->d;
	const struct yframe *f = &w->frame[w->depth - 1];
	const struct ynode *p = &d->nodes[f->parent];
	char path[YDOC_PATH_MAX];
	struct ydoc_aliasing x;
	struct ydoc_at at;

	w->stop = 1;
	ywalk_path(w, path);
	at.obj = w->obj;
	at.path = path;
	/* an alias has no node of its own: the line of its key, or of
	 * its list */
	at.line = !alias ? n->line : p->kind == YN_MAP ?
		  d->nodes[p->kids[f->slot & ~(uint32_t)1]].line : p->line;
	x.aliased = w->aliased;
	x.decoded = w->decoded;
	x.allowed = yalias_allowed(w->decoded);
	x.alias = alias;
	x.anchor = alias && a < d->n_anchors ? d->anchors[a].name : NULL;
	x.line = n->line;
	w->fns->aliasing(w->fns->arg, &at, &x);
}

static void ydec_node(struct ywalk *w, const struct ynode *n);

/* Kid i of p, in the decoder's order: its values counted, an alias's as
 * its node's count (the first walk's), a node written here one by one. */
static void ydec_kid(struct ywalk *w, const struct ynode *p, size_t i,
		     enum ystep step)
{
	const struct ydoc *d = w->d;
	uint32_t c = p->kids[i];
	const struct ynode *n = &d->nodes[c];
	size_t a = d->n_anchors;
	struct ysaved saved;
	uint64_t count = 0;
	int alias = 0;

	if (n->flags & YN_ALIAS) {
		alias = 1;             /* a key `<<`: the alias's scalar */
		count = 1;
	} else if ((a = ywalk_anchor(d, c)) < d->n_anchors &&
		   (w->anc[a].parent != (uint32_t)(p - d->nodes) ||
		    w->anc[a].slot != i)) {
		alias = 1;
		count = w->anc[a].count;
	}
	if (ywalk_enter(w, p, i, step, n, alias, &saved)) {
		w->stop = 1;
		return;
	}
	if (alias && (count & YCOUNT_REFUSED)) {
		/* the decoder stops within it, for a key or a tag (told
		 * where written): where, lint does not count */
		if (ydec_count(w, 1, 0))
			ydec_refused(w, n, a, 1);
		w->stop = 1;
	} else if (alias) {
		if (ydec_count(w, 1, 0) || ydec_count(w, count, 1))
			ydec_refused(w, n, a, 1);
	} else if (ydec_count(w, 1, 0)) {
		ydec_refused(w, n, a, 0);
	} else if (ywalk_scalar(w, n, step == YSTEP_KEY)) {
		w->stop = 1;           /* resolve.go fails on its tag */
	} else {
		ydec_node(w, n);
	}
	ywalk_leave(w, &saved);
}

/* Value i of map p, of a `<<`, as decode.go's merge() takes it: a map
 * (or an alias to one), or a list written in place whose items are, last
 * first; anything else stops the decoder (ydoc_check() tells it). */
static void ydec_merge(struct ywalk *w, const struct ynode *p, size_t i)
{
	const struct ynode *v = &w->d->nodes[p->kids[i]];
	struct ysaved saved;
	size_t j;

	if (v->kind == YN_MAP) {
		ydec_kid(w, p, i, YSTEP_MERGE);
		return;
	}
	if (v->kind != YN_SEQ || (v->flags & YN_ALIAS) ||
	    ywalk_enter(w, p, i, YSTEP_MERGE, v, 0, &saved)) {
		w->stop = 1;
		return;
	}
	for (j = v->n_kids; j-- > 0 && !w->stop;) {
		if (w->d->nodes[v->kids[j]].kind != YN_MAP)
			w->stop = 1;
		else
			ydec_kid(w, v, j, YSTEP_MERGE);
	}
	ywalk_leave(w, &saved);
}

/* The kids of node n, written where the walk is, in the decoder's
 * order (ywalk_node()'s counts, one by one). */
static void ydec_node(struct ywalk *w, const struct ynode *n)
{
	const struct ynode *k;
	size_t i;

	if (n->kind == YN_SEQ) {
		for (i = 0; i < n->n_kids && !w->stop; i++)
			ydec_kid(w, n, i, YSTEP_ITEM);
		return;
	}
	if (n->kind != YN_MAP)
		return;
	for (i = 0; i + 1 < n->n_kids && !w->stop; i += 2) {
		k = &w->d->nodes[n->kids[i]];
		if (k->kind == YN_SCALAR && k->type == YT_MERGE) {
			ydec_merge(w, n, i + 1);
			continue;
		}
		ydec_kid(w, n, i, YSTEP_KEY);
		/* a key that is a list or a map: "invalid map key" */
		if (k->kind != YN_SCALAR)
			w->stop = 1;
		if (!w->stop)
			ydec_kid(w, n, i + 1, YSTEP_FIELD);
	}
}

int ydoc_check(const struct ydoc *d, const struct ydoc_check_fns *fns)
{
	const struct ynode *items;
	struct ywalk *w;
	size_t i, n;
	int rc = -1;

	if (d->n == 0)
		return 0;
	/* the frames: 3 KB, not on the caller's stack */
	w = calloc(1, sizeof(*w));
	if (!w)
		return -1;
	w->d = d;
	w->fns = fns;
	w->next = 1;
	w->obj = &d->nodes[0];
	items = ydoc_list_items(d);
	if (items) {
		w->objs = malloc((items->n_kids ? items->n_kids : 1) *
				 sizeof(*w->objs));
		if (!w->objs)
			goto out;
		memcpy(w->objs, items->kids, items->n_kids * sizeof(*w->objs));
		qsort(w->objs, items->n_kids, sizeof(*w->objs),
		      ywalk_u32_cmp);
		for (i = n = 0; i < items->n_kids; i++)
			if (n == 0 || w->objs[i] != w->objs[n - 1])
				w->objs[n++] = w->objs[i];
		w->n_objs = n;
	} else {
		w->skip = d->nodes[0].kind == YN_MAP && fns->checked &&
			  fns->checked(fns->arg, d, &d->nodes[0]);
	}
	if (fns->aliasing && d->n_anchors) {
		w->anc = malloc(d->n_anchors * sizeof(*w->anc));
		if (!w->anc)
			goto out;
		for (i = 0; i < d->n_anchors; i++) {
			w->anc[i].count = 1;
			w->anc[i].parent = UINT32_MAX;
			w->anc[i].slot = UINT32_MAX;
		}
	}
	w->kept_budget = YKEPT_BUDGET;
	if (!ywalk_scalar(w, &d->nodes[0], 0))
		ywalk_json(w, &d->nodes[0], 0, d->nodes[0].line);
	ywalk_node(w, &d->nodes[0], 0);
	if (w->anc && w->aliases) {
		/* the second walk, from the root written in place: the
		 * document node and the root are decoded first */
		w->decoding = 1;
		w->depth = 0;
		w->obj = &d->nodes[0];
		w->obj_depth = 0;
		if (!ydec_count(w, 2, 0))
			ydec_node(w, &d->nodes[0]);
	}
	rc = 0;
out:
	free(w->anc);
	free(w->objs);
	free(w);
	return rc;
}
