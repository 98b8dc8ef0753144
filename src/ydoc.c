/*
 * ydoc.c - see ydoc.h.
 */
#include "ydoc.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yaml.h>

#include "arr.h"
#include "ascii.h"
#include "show.h"
#include "slurp.h"

#define YDOC_STR_(x) #x
#define YDOC_STR(x) YDOC_STR_(x)

enum yload { YLOAD_DOC, YLOAD_END, YLOAD_ERROR, YLOAD_NOMEM };

/* A YAML error found by ydoc_load rather than by libyaml. */
struct yerr {
	unsigned long line;    /* 0: libyaml's error, in the parser */
	const char *msg;       /* a constant, or buf */
	char buf[YDOC_MSG_MAX];
};

/* ynode.flags while a document is read: a collection whose end is not
 * read yet (ydoc_add() to ydoc_close()), so that an alias inside it is
 * found in O(1) (ydoc_alias()).  Every node has it clear once read. */
#define YN_READING 0x80u

/*
 * The arena: a document's scalar text, anchor names and kids, copied into
 * blocks of YDOC_BLOCK bytes (a malloc() each cost 16 to 32 bytes more
 * than a short scalar's text).  What is larger than YDOC_BLOCK_OWN gets a
 * block of its own behind the one being filled, so a long scalar wastes
 * no block; a new block wastes at most YDOC_BLOCK_OWN of the last.
 */
#define YDOC_BLOCK (64u << 10)
#define YDOC_BLOCK_OWN (YDOC_BLOCK / 4)

/* ydoc.h's promise, which the peak memory of a lint stands on */
_Static_assert(sizeof(struct ynode) <= 32, "a node is 32 bytes");

struct yblock {
	struct yblock *next;
	size_t used, cap;
	_Alignas(uint32_t) char data[];
};

/* The collections of a document being read (ydoc_load's), and their kids
 * so far: pushed as they come, the innermost collection's last, and copied
 * to the arena, contiguous, when it ends (a growing array per collection
 * cost 80 bytes or more for a map of two pairs).  Freed once the document
 * is read. */
struct yopen {
	uint32_t node, first;  /* first: where its kids start on kids */
};

struct yread {
	struct yopen *open;
	size_t depth, cap_open;
	uint32_t *kids;
	size_t n_kids, cap_kids;
};

static void yread_release(struct yread *r)
{
	free(r->open);
	free(r->kids);
	memset(r, 0, sizeof(*r));
}

static struct yblock *yblock_new(size_t cap)
{
	struct yblock *b;

	if (cap > SIZE_MAX - sizeof(*b))
		return NULL;
	b = malloc(sizeof(*b) + cap);
	if (!b)
		return NULL;
	b->next = NULL;
	b->used = 0;
	b->cap = cap;
	return b;
}

/* size bytes of the arena, aligned for uint32_t when align; NULL: no
 * memory. */
static void *ydoc_alloc(struct ydoc *d, size_t size, int align)
{
	struct yblock *b = d->arena;
	size_t at;

	if (size > YDOC_BLOCK_OWN) {
		b = yblock_new(size);
		if (!b)
			return NULL;
		b->used = size;
		if (d->arena) {
			b->next = d->arena->next;
			d->arena->next = b;
		} else {
			d->arena = b;
		}
		return b->data;
	}
	at = b ? b->used : 0;
	if (align)
		at = (at + sizeof(uint32_t) - 1) & ~(sizeof(uint32_t) - 1);
	if (!b || at > b->cap || size > b->cap - at) {
		b = yblock_new(YDOC_BLOCK);
		if (!b)
			return NULL;
		b->next = d->arena;
		d->arena = b;
		at = 0;
	}
	b->used = at + size;
	return b->data + at;
}

/* n bytes of s as a NUL-terminated string in the arena, then, when more
 * is not NULL, the string more after the NUL. */
static char *ydoc_strdup(struct ydoc *d, const void *s, size_t n,
			 const char *more)
{
	size_t m = more ? strlen(more) + 1 : 0;
	char *t;

	if (n > SIZE_MAX - 1 - m)
		return NULL;
	t = ydoc_alloc(d, n + 1 + m, 0);
	if (!t)
		return NULL;
	memcpy(t, s, n);
	t[n] = '\0';
	if (more)
		memcpy(t + n + 1, more, m);
	return t;
}

static void ydoc_release(struct ydoc *d)
{
	struct yblock *b, *next;

	for (b = d->arena; b; b = next) {
		next = b->next;
		free(b);
	}
	free(d->nodes);
	free(d->anchors);
	free(d->index);
	memset(d, 0, sizeof(*d));
}

int ydoc_word_in(const char *s, const char *const *list)
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

/* go-yaml v2's fixed words (resolve.go's table), NULL-terminated: the
 * texts a plain scalar, or one under a tag resolve() checks, reads as
 * null, bool or float. */
static const char *const ygo_nulls[] = {
	"", "~", "null", "Null", "NULL", NULL };
static const char *const ygo_bools[] = {
	"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
	"true", "True", "TRUE", "false", "False", "FALSE",
	"on", "On", "ON", "off", "Off", "OFF", NULL };
static const char *const ygo_floats[] = {
	".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf",
	"+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", NULL };

/*
 * The type go-yaml v2 (sigs.k8s.io/yaml, kubectl) gives a plain, untagged
 * scalar: its fixed words, then, for text starting with a digit or sign,
 * an int (underscores dropped) or a float.  Timestamps stay strings there.
 */
static enum yn_type yaml11_type(const char *s, size_t len)
{
	enum yn_type t = YT_STR;
	char *plain;
	size_t i, o;

	if (strlen(s) != len)
		return YT_STR;
	if (ydoc_word_in(s, ygo_nulls))
		return YT_NULL;
	if (ydoc_word_in(s, ygo_bools))
		return YT_BOOL;
	if (ydoc_word_in(s, ygo_floats))
		return YT_NUMBER;
	if (!strcmp(s, "<<"))
		return YT_MERGE;
	if (s[0] == '.')
		return yaml11_float(s) ? YT_NUMBER : YT_STR;
	if (!ascii_is_digit((unsigned char)s[0]) && s[0] != '+' && s[0] != '-')
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


/* Go's strconv.ParseInt(s, base, 64), then ParseUint(s, base, 64), as
 * resolve.go tries them on text without its underscores: a sign (not for
 * ParseUint), then for base 0 0x, 0o, 0b or a leading 0 (octal) or
 * decimal digits; at least one digit.  1: an int64, 2: only a uint64, 0:
 * neither (bad digits, or past 2^64 - 1). */
static int ygo_int(const char *s, unsigned base)
{
	uint64_t v = 0, lim;
	unsigned d;
	int neg = 0, sign = 0;

	if (*s == '+' || *s == '-') {
		neg = *s == '-';
		sign = 1;
		s++;
	}
	if (base) {
		/* as given */
	} else if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	} else if (s[0] == '0' && (s[1] == 'o' || s[1] == 'O')) {
		base = 8;
		s += 2;
	} else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
		base = 2;
		s += 2;
	} else if (s[0] == '0' && s[1]) {
		base = 8;
		s++;
	} else {
		base = 10;
	}
	if (!*s)
		return 0;
	for (; *s; s++) {
		if (ascii_is_digit((unsigned char)*s))
			d = (unsigned)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a') + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A') + 10;
		else
			return 0;
		if (d >= base || v > (UINT64_MAX - d) / base)
			return 0;
		v = v * base + d;
	}
	lim = neg ? UINT64_C(1) << 63 : (UINT64_C(1) << 63) - 1;
	if (v <= lim)
		return 1;
	return sign ? 0 : 2;
}

/* Go's strconv.ParseFloat(s, 64) on text yaml11_float() takes: it fails
 * only past the largest double (1e999), which strtod() says the same
 * way. */
static int ygo_float(const char *s)
{
	double v;

	if (!yaml11_float(s))
		return 0;
	errno = 0;
	v = strtod(s, NULL);
	return !(errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL));
}

/*
 * A tagged scalar go-yaml v2's decoder refuses: resolve() (resolve.go,
 * v2.4.0) reads text under a tag it checks (!!bool, !!int, !!float,
 * !!null, !!timestamp; any other, !!str, !!binary, !!merge and local
 * tags, it takes as it is) as an untagged plain scalar would be read,
 * quoted or not, and fails ("cannot decode !!RESOLVED `TEXT` as a
 * !!TAG") when that is another type, but for an int under !!float (one
 * of int64's; a larger one it refuses).  Returns RESOLVED ("str", "int",
 * "float", "bool", "null"), or NULL when the tag fits, or when lint
 * cannot tell: !!timestamp over text that starts as a date (YYYY-), whose
 * Go time.Parse() formats lint does not redo, or no memory.
 */
static const char *ytag_misfit(const char *tag, const char *text,
			       size_t len)
{
	static const char prefix[] = "tag:yaml.org,2002:";
	static const char *const checked[] = {
		"bool", "int", "float", "null", "timestamp", NULL };
	const char *t, *r = "str";
	char *plain;
	size_t i, o;
	int in;

	if (!tag || strncmp(tag, prefix, sizeof(prefix) - 1))
		return NULL;
	t = tag + sizeof(prefix) - 1;
	if (!ydoc_word_in(t, checked))
		return NULL;
	/* a NUL in the text: no word, number or date; a string */
	if (strlen(text) != len)
		return "str";
	if (ydoc_word_in(text, ygo_nulls))
		r = "null";
	else if (ydoc_word_in(text, ygo_bools))
		r = "bool";
	else if (ydoc_word_in(text, ygo_floats))
		r = "float";
	else if (text[0] == '.' || ascii_is_digit((unsigned char)text[0]) ||
		 text[0] == '+' || text[0] == '-') {
		if (!strcmp(t, "timestamp") &&
		    strspn(text, "0123456789") == 4 && text[4] == '-')
			return NULL;
		/* underscores dropped: all of them for a digit or sign;
		 * for a '.', ParseFloat's, each between two digits */
		plain = malloc(len + 1);
		if (!plain)
			return NULL;
		in = 0;
		for (i = o = 0; i < len; i++) {
			if (text[i] != '_')
				plain[o++] = text[i];
			else if (text[0] == '.' &&
				 (!ascii_is_digit((unsigned char)text[i - 1]) ||
				  !ascii_is_digit((unsigned char)text[i + 1])))
				in = -1;
		}
		plain[o] = '\0';
		if (text[0] != '.')
			in = ygo_int(plain, 0);
		/* resolve.go's last try: "0b" then ParseInt(rest, 2),
		 * which takes a sign ("0b-101") */
		if (in > 0 || (!in && !ygo_float(plain) &&
			       !strncmp(plain, "0b", 2) &&
			       (in = ygo_int(plain + 2, 2)) > 0))
			r = "int";
		else if (!in && ygo_float(plain))
			r = "float";
		free(plain);
		if (in == 1 && !strcmp(t, "float"))
			return NULL;
	}
	return strcmp(r, t) ? r : NULL;
}
/* Whether go-yaml v2 reads a scalar under tag (in full, as libyaml and
 * go-yaml's parser give it, %TAG handles applied) as anything but its
 * text: resolve.go's resolvableTag() (!!bool, !!int, !!float, !!null,
 * !!timestamp, and !!str, which ydoc types YT_STR) and the decoder's
 * !!binary (base64, decoded).  Under any other tag, a local one (`!foo
 * 5`), `!!set`, `!!merge x` or another prefix's, resolve() hands the
 * text back untouched and the decoder keeps it as a string: kubectl
 * reads `!foo 5` as "5". */
static int ytag_read(const char *tag)
{
	static const char prefix[] = "tag:yaml.org,2002:";
	static const char *const read[] = {
		"bool", "int", "float", "null", "timestamp", "binary", NULL };

	return !strncmp(tag, prefix, sizeof(prefix) - 1) &&
	       ydoc_word_in(tag + sizeof(prefix) - 1, read);
}

/* The type of a scalar event's value, tags first.  A `<<` is a merge
 * key, as go-yaml reads it (decode.go's isMerge(): the text `<<`, and its
 * parser's implicit flag or the merge tag), plain and untagged
 * (yaml11_type()), tagged !!merge, or tagged "!" (which sets implicit
 * whatever the quotes, in go-yaml's parser as in libyaml's), not quoted
 * and untagged nor tagged otherwise.  A tag go-yaml does not read the
 * text under (ytag_read()) makes the text a string. */
static enum yn_type ydoc_scalar_type(const yaml_event_t *ev)
{
	static const char merge_tag[] = "tag:yaml.org,2002:merge";
	const char *tag = (const char *)ev->data.scalar.tag;

	if (tag && (!strcmp(tag, "!") || !strcmp(tag, merge_tag)) &&
	    ev->data.scalar.length == 2 &&
	    !memcmp(ev->data.scalar.value, "<<", 2))
		return YT_MERGE;
	if (tag && (!strcmp(tag, "!") || !strcmp(tag, YAML_STR_TAG)))
		return YT_STR;
	if (tag && ytag_read(tag))
		return YT_TAGGED;
	if (tag)
		return YT_STR;
	if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return YT_STR;
	return yaml11_type((const char *)ev->data.scalar.value,
			   ev->data.scalar.length);
}

/* Hang node i under the collection being read (none: i is the root). */
static int ydoc_attach(struct yread *r, size_t i)
{
	uint32_t *k;

	if (r->depth == 0)
		return 0;
	k = arr_room(r->kids, r->n_kids, &r->cap_kids, sizeof(*k));
	if (!k)
		return -1;
	r->kids = k;
	r->kids[r->n_kids++] = (uint32_t)i;
	return 0;
}

/* The end of the innermost collection: its kids to the arena. */
static int ydoc_close(struct ydoc *d, struct yread *r)
{
	const struct yopen *o = &r->open[--r->depth];
	struct ynode *n = &d->nodes[o->node];
	size_t k = r->n_kids - o->first;
	uint32_t *kids;

	n->flags &= (unsigned char)~YN_READING;
	r->n_kids = o->first;
	if (k == 0)
		return 0;
	kids = ydoc_alloc(d, k * sizeof(*kids), 1);
	if (!kids)
		return -1;
	memcpy(kids, r->kids + o->first, k * sizeof(*kids));
	n->kids = kids;
	n->n_kids = (uint32_t)k;
	return 0;
}

/* FNV-1a of an anchor's name. */
static size_t ydoc_name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The slot of name in d->index: its entry, or the empty one it would
 * take.  d->index_cap > 0. */
static size_t ydoc_slot(const struct ydoc *d, const char *name)
{
	size_t m = d->index_cap - 1, s = ydoc_name_hash(name) & m;

	while (d->index[s] && strcmp(d->anchors[d->index[s] - 1].name, name))
		s = (s + 1) & m;
	return s;
}

/* Anchor a (an index into d->anchors) in d->index, growing it; 0 or -1
 * (no memory). */
static int ydoc_index_put(struct ydoc *d, size_t a)
{
	size_t i;

	if (2 * (d->n_anchors + 1) > d->index_cap) {
		size_t cap = d->index_cap ? 2 * d->index_cap : 16;
		size_t *old = d->index, ocap = d->index_cap;

		d->index = calloc(cap, sizeof(*d->index));
		if (!d->index) {
			d->index = old;
			return -1;
		}
		d->index_cap = cap;
		for (i = 0; i < ocap; i++)
			if (old[i])
				d->index[ydoc_slot(d, d->anchors[old[i] - 1]
						   .name)] = old[i];
		free(old);
	}
	d->index[ydoc_slot(d, d->anchors[a].name)] = a + 1;
	return 0;
}

static int ydoc_anchor(struct ydoc *d, const yaml_char_t *name, size_t i)
{
	struct yanchor *a;

	if (!name)
		return 0;
	a = arr_room(d->anchors, d->n_anchors, &d->cap_anchors,
		     sizeof(*a));
	if (!a)
		return -1;
	d->anchors = a;
	a[d->n_anchors].name = ydoc_strdup(d, name, strlen((const char *)name),
					   NULL);
	if (!a[d->n_anchors].name)
		return -1;
	a[d->n_anchors].node = (uint32_t)i;
	if (ydoc_index_put(d, d->n_anchors))
		return -1;
	d->n_anchors++;
	return 0;
}

/* A new node from a scalar or collection-start event; -1: no memory (or
 * more nodes than 32 bits count, which YDOC_FILE_MAX bytes cannot make). */
static int ydoc_add(struct ydoc *d, struct yread *r, const yaml_event_t *ev)
{
	const yaml_char_t *anchor;
	struct ynode *n;
	struct yopen *o;
	size_t i = d->n, line = ev->start_mark.line + 1;

	if (i >= UINT32_MAX)
		return -1;
	n = arr_room(d->nodes, d->n, &d->cap, sizeof(*n));
	if (!n)
		return -1;
	d->nodes = n;
	n = &d->nodes[d->n++];
	memset(n, 0, sizeof(*n));
	n->line = line < UINT32_MAX ? (uint32_t)line : UINT32_MAX;
	if (ev->type == YAML_SCALAR_EVENT) {
		n->kind = YN_SCALAR;
		n->type = (unsigned char)ydoc_scalar_type(ev);
		if (ev->data.scalar.length >= UINT32_MAX)
			return -1;
		n->len = (uint32_t)ev->data.scalar.length;
		n->text = ydoc_strdup(d, ev->data.scalar.value, n->len,
				      n->type == YT_TAGGED ?
				      (const char *)ev->data.scalar.tag : NULL);
		if (!n->text)
			return -1;
		anchor = ev->data.scalar.anchor;
	} else if (ev->type == YAML_SEQUENCE_START_EVENT) {
		n->kind = YN_SEQ;
		n->flags = YN_READING;
		anchor = ev->data.sequence_start.anchor;
	} else {
		n->kind = YN_MAP;
		n->flags = YN_READING;
		anchor = ev->data.mapping_start.anchor;
	}
	if (ydoc_attach(r, i) || ydoc_anchor(d, anchor, i))
		return -1;
	if (n->kind == YN_SCALAR)
		return 0;
	o = arr_room(r->open, r->depth, &r->cap_open, sizeof(*o));
	if (!o)
		return -1;
	r->open = o;
	r->open[r->depth].node = (uint32_t)i;
	r->open[r->depth].first = (uint32_t)r->n_kids;
	r->depth++;
	return 0;
}

/* Where the node read next goes: a key of the map being read, the value
 * of a `<<` written there, or anywhere else. */
enum ypos { YPOS_OTHER, YPOS_KEY, YPOS_MERGE_VALUE };

static enum ypos ydoc_pos(const struct ydoc *d, const struct yread *r)
{
	const struct yopen *o;
	const struct ynode *k;

	if (r->depth == 0)
		return YPOS_OTHER;
	o = &r->open[r->depth - 1];
	if (d->nodes[o->node].kind != YN_MAP)
		return YPOS_OTHER;
	if ((r->n_kids - o->first) % 2 == 0)
		return YPOS_KEY;
	k = &d->nodes[r->kids[r->n_kids - 1]];
	return k->kind == YN_SCALAR && k->type == YT_MERGE ? YPOS_MERGE_VALUE
							   : YPOS_OTHER;
}

/*
 * An alias: the anchored node (the latest anchor of that name) hung again
 * under the collection being read.  An alias inside that node, whose end
 * is not read yet, is a cycle: go-yaml's decoder refuses it when it meets
 * the alias again while decoding it (decode.go's alias(): "anchor 'c'
 * value contains itself"), and kubectl decodes the whole document, so it
 * is refused here, where it is written.
 *
 * Two aliases are not their anchor's node, since go-yaml reads them
 * otherwise; each gets a node of its own, a copy of its anchor's (kids
 * and text shared) at the alias's line:
 * - an alias to a list as the value of a `<<`: go-yaml's merge() refuses
 *   a merge through an alias to anything but a map, where it takes a
 *   list of maps written in place (whose items may be aliases to maps).
 *   ymerge_bad() tells it by its flag;
 * - an alias to a merge key as a key: decode.go's isMerge() takes only a
 *   scalar node, never an alias node, for a merge key, so the pair is an
 *   ordinary one with the key `<<`, a string.  The copy is YT_STR.
 * Both are flagged YN_ALIAS: the walks of ydoc_check() count an alias as
 * go-yaml's decoder does.
 * Copies are made only there: elsewhere an alias is its node, which the
 * merge walks count on to visit a map once.  One node per such alias,
 * which takes 3 bytes of the file at least (`*a` and a separator), keeps
 * within the per-node bounds of ydoc.h.
 *
 * 0; -1: no memory; 1: a YAML error, told in *e (an undefined anchor, a
 * cycle).
 */
static int ydoc_alias(struct ydoc *d, struct yread *r,
		      const yaml_event_t *ev, struct yerr *e)
{
	const char *name = (const char *)ev->data.alias.anchor;
	size_t line = ev->start_mark.line + 1;
	char shown[YDOC_SHOW_BUF];
	const struct ynode *t;
	struct ynode *n;
	enum ypos pos;
	size_t s, i;

	s = name && d->index_cap ? ydoc_slot(d, name) : 0;
	if (!name || !d->index_cap || !d->index[s]) {
		e->line = (unsigned long)line;
		e->msg = "an alias to an undefined anchor";
		return 1;
	}
	t = &d->nodes[d->anchors[d->index[s] - 1].node];
	if (t->flags & YN_READING) {
		e->line = (unsigned long)line;
		show_escaped(shown, YDOC_SHOW_MAX, name, strlen(name));
		snprintf(e->buf, sizeof(e->buf), "alias *%s is inside the "
			 "node it names (&%s on line %lu), a cycle: kubectl "
			 "refuses the document (\"anchor '%s' value contains "
			 "itself\"); an alias must name a node that ends "
			 "before it", shown, shown, (unsigned long)t->line,
			 shown);
		e->msg = e->buf;
		return 1;
	}
	i = (size_t)(t - d->nodes);
	pos = ydoc_pos(d, r);
	if ((t->kind == YN_SEQ && pos == YPOS_MERGE_VALUE) ||
	    (t->kind == YN_SCALAR && t->type == YT_MERGE && pos == YPOS_KEY)) {
		if (d->n >= UINT32_MAX)
			return -1;
		n = arr_room(d->nodes, d->n, &d->cap, sizeof(*n));
		if (!n)
			return -1;
		d->nodes = n;          /* t may have moved: i, not t */
		n = &d->nodes[d->n];
		*n = d->nodes[i];
		n->flags |= YN_ALIAS;
		if (n->kind == YN_SCALAR)
			n->type = YT_STR;
		n->line = line < UINT32_MAX ? (uint32_t)line : UINT32_MAX;
		i = d->n++;
	}
	return ydoc_attach(r, i) ? -1 : 0;
}

/*
 * Read the next document of the stream into d (empty, zeroed).  YLOAD_DOC:
 * d holds it; YLOAD_END: no more; YLOAD_ERROR: the parser's problem, or
 * ours in *e (an undefined alias, an alias inside the node it names,
 * nesting deeper than YDOC_DEPTH, which also keeps libyaml's scanner from
 * its quadratic time on deep flow collections); YLOAD_NOMEM.  d must be
 * released in every case.
 */
static enum yload ydoc_load(yaml_parser_t *p, struct ydoc *d,
			    struct yerr *e)
{
	struct yread r = { NULL, 0, 0, NULL, 0, 0 };
	yaml_event_t ev;
	enum yload rc;
	int bad;

	for (;;) {
		if (!yaml_parser_parse(p, &ev)) {
			yread_release(&r);
			return p->error == YAML_MEMORY_ERROR ? YLOAD_NOMEM
							    : YLOAD_ERROR;
		}
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
			if (r.depth >= YDOC_DEPTH) {
				e->line = (unsigned long)
					  ev.start_mark.line + 1;
				e->msg = "collections nested more than "
					 YDOC_STR(YDOC_DEPTH) " deep";
				rc = YLOAD_ERROR;
				goto out;
			}
			/* fall through */
		case YAML_SCALAR_EVENT:
			if (ydoc_add(d, &r, &ev))
				goto out;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (ydoc_close(d, &r))
				goto out;
			break;
		case YAML_ALIAS_EVENT:
			bad = ydoc_alias(d, &r, &ev, e);
			if (bad < 0)
				goto out;
			if (bad) {
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
	yread_release(&r);
	return rc;
}

const struct ynode *ymap_get(const struct ydoc *d, const struct ynode *map,
			     const char *key, const struct ynode **keynode)
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

const char *ytext(const struct ynode *n)
{
	return n && n->kind == YN_SCALAR ? n->text : NULL;
}

const char *ytag(const struct ynode *n)
{
	return n && n->kind == YN_SCALAR && n->type == YT_TAGGED ?
	       n->text + n->len + 1 : NULL;
}

const struct ynode *ypath(const struct ydoc *d, const struct ynode *map,
			  const char *const *keys, unsigned long *line)
{
	const struct ynode *k = NULL;

	for (; map && *keys; keys++) {
		map = ymap_get_merged(d, map, *keys, &k);
		if (map)
			*line = k->line;
	}
	return map;
}

/* The items of d's root when it is a `kind: List` (a list), as kubectl
 * reads one: one level, a List in a List not looked into; else NULL.
 * d->n > 0. */
static const struct ynode *ydoc_list_items(const struct ydoc *d)
{
	const struct ynode *root = &d->nodes[0];
	const char *kind = ytext(ymap_get_merged(d, root, "kind", NULL));
	const struct ynode *items = ymap_get_merged(d, root, "items", NULL);

	return kind && !strcmp(kind, "List") && items &&
	       items->kind == YN_SEQ ? items : NULL;
}

const char *ydoc_show(char buf[YDOC_SHOW_BUF], const struct ynode *n)
{
	if (!n || n->kind != YN_SCALAR)
		snprintf(buf, YDOC_SHOW_BUF, "%s", "?");
	else
		show_escaped(buf, YDOC_SHOW_MAX, n->text, n->len);
	return buf;
}

/* ---- merge walks -------------------------------------------------------- */

/*
 * The maps one merge walk has searched, so that a map merged many times
 * (aliases, at every level) is searched once a walk, and a walk costs
 * what it visits: node indexes + 1 (0: an empty slot) in a set of open
 * addressing, at most half full.  Its first YMARK_SMALL slots are the
 * walker's own, on its stack, so a walk through a few maps (`<<: *base`)
 * allocates nothing; a larger one grows on the heap.  (A mark per node of
 * the document, cleared at every walk, made a lint of a List whose
 * triggers merge quadratic in the file.)  With keys set, the same set
 * holds key scalars, one per text: the keys a map has so far, merges
 * applied (ymap_each_merged()).
 */
#define YMARK_SMALL 16

struct ymark {
	uint32_t *slot;        /* small, or malloc()ed */
	size_t cap, n;         /* cap: a power of 2 */
	const struct ydoc *keys;  /* NULL: nodes; else scalars, by text */
	uint32_t small[YMARK_SMALL];
};

/* keys: NULL for a set of nodes, or the document whose key scalars the
 * set holds, two alike when their text is. */
static void ymark_init(struct ymark *m, const struct ydoc *keys)
{
	memset(m->small, 0, sizeof(m->small));
	m->slot = m->small;
	m->cap = YMARK_SMALL;
	m->n = 0;
	m->keys = keys;
}

static void ymark_release(struct ymark *m)
{
	if (m->slot != m->small)
		free(m->slot);
}

/* The first slot to probe for node i: its bits mixed, so that maps a
 * power of 2 nodes apart (a List's items, alike) start apart; a key's
 * text hashed. */
static size_t ymark_hash(const struct ymark *m, uint32_t i)
{
	uint32_t h = m->keys ? (uint32_t)ydoc_name_hash(m->keys->nodes[i].text)
			     : i * 2654435761u;

	return (h ^ (h >> 16)) & (m->cap - 1);
}

/* Nodes i and j count as one member of m: the same node, or in a set of
 * keys the same text. */
static int ymark_same(const struct ymark *m, uint32_t i, uint32_t j)
{
	return i == j || (m->keys && !strcmp(m->keys->nodes[i].text,
					     m->keys->nodes[j].text));
}

/* The slot that holds node i, or the empty one it would take. */
static size_t ymark_slot(const struct ymark *m, uint32_t i)
{
	size_t s = ymark_hash(m, i);

	while (m->slot[s] && !ymark_same(m, m->slot[s] - 1, i))
		s = (s + 1) & (m->cap - 1);
	return s;
}

/* Twice the slots; 0 or -1 (no memory, m unchanged). */
static int ymark_grow(struct ymark *m)
{
	uint32_t *old = m->slot;
	size_t ocap = m->cap, i;

	if (ocap > SIZE_MAX / 2 / sizeof(*old))
		return -1;
	m->slot = calloc(2 * ocap, sizeof(*old));
	if (!m->slot) {
		m->slot = old;
		return -1;
	}
	m->cap = 2 * ocap;
	for (i = 0; i < ocap; i++)
		if (old[i])
			m->slot[ymark_slot(m, old[i] - 1)] = old[i];
	if (old != m->small)
		free(old);
	return 0;
}

/*
 * Mark map node i searched: 1 when it was not (search it now), 0 when it
 * was.  Node indexes are below UINT32_MAX (ydoc_add), so i + 1 fits.
 * When the set cannot grow, a map it has no room for is answered 1 and
 * not marked: the walk goes on, searching such a map each time it is
 * merged, as if nothing were marked (at most m^YDOC_MERGE_DEPTH searches
 * for a map merged m times at each level, the bound of the depth alone),
 * rather than failing the lookup.  In a set of keys, i is a key scalar:
 * 1 when no key of its text was there (short of memory: maybe one was).
 */
static int ymark_add(struct ymark *m, uint32_t i)
{
	size_t s = ymark_slot(m, i);

	if (m->slot[s])
		return 0;
	if (2 * (m->n + 1) > m->cap) {
		if (ymark_grow(m))
			return 1;
		s = ymark_slot(m, i);
	}
	m->slot[s] = i + 1;
	m->n++;
	return 1;
}

/* Told each map a merge walk meets; nonzero stops the walk. */
typedef int ymerge_fn(void *arg, const struct ynode *src);

/*
 * The maps `<<` merges into map, in the order go-yaml lets them win:
 * depth first, the maps of a `<<` list in order, each map once a walk
 * (seen), merges within merges to YDOC_MERGE_DEPTH (map is at depth).  A
 * merged value that is not a map merges nothing.  fn is told each map
 * before the maps it merges; map's own pairs are not fn's.  A walk looks
 * at YDOC_MERGE_SOURCES `<<` values and list items at most, *left of
 * them still to go: past them it stops, so that a `<<` list of 100,000
 * maps, aliased from many places, costs a bounded walk each.  Returns
 * the first nonzero fn returned, or 0.
 */
static int ymerge_walk(const struct ydoc *d, const struct ynode *map,
		       int depth, struct ymark *seen, size_t *left,
		       ymerge_fn *fn, void *arg)
{
	const struct ynode *k, *v, *src;
	size_t i, j;
	int r;

	if (depth >= YDOC_MERGE_DEPTH)
		return 0;
	for (i = 0; i + 1 < map->n_kids; i += 2) {
		k = &d->nodes[map->kids[i]];
		v = &d->nodes[map->kids[i + 1]];
		if (k->kind != YN_SCALAR || k->type != YT_MERGE)
			continue;
		for (j = 0; j < (v->kind == YN_SEQ ? v->n_kids : 1); j++) {
			if (*left == 0)
				return 0;
			--*left;
			src = v->kind == YN_SEQ ? &d->nodes[v->kids[j]] : v;
			if (src->kind != YN_MAP ||
			    !ymark_add(seen, (uint32_t)(src - d->nodes)))
				continue;
			if ((r = fn(arg, src)) ||
			    (r = ymerge_walk(d, src, depth + 1, seen, left, fn,
					     arg)))
				return r;
		}
	}
	return 0;
}

/* A lookup in the merged maps (ymerge_fn): the first with key wins. */
struct merged_find {
	const struct ydoc *d;
	const char *key;
	const struct ynode **keynode;
	const struct ynode *found;
};

static int merged_find(void *arg, const struct ynode *src)
{
	struct merged_find *f = arg;

	f->found = ymap_get(f->d, src, f->key, f->keynode);
	return f->found != NULL;
}

const struct ynode *ymap_get_merged(const struct ydoc *d,
				    const struct ynode *map, const char *key,
				    const struct ynode **keynode)
{
	struct merged_find f = { d, key, keynode, NULL };
	struct ymark seen;
	size_t left = YDOC_MERGE_SOURCES;

	if ((f.found = ymap_get(d, map, key, keynode)) || !map ||
	    map->kind != YN_MAP)
		return f.found;
	ymark_init(&seen, NULL);
	ymerge_walk(d, map, 0, &seen, &left, merged_find, &f);
	ymark_release(&seen);
	return f.found;
}

/* ymap_each_merged()'s walk: the keys given so far, and whom to tell. */
struct merged_each {
	const struct ydoc *d;
	struct ymark keys;
	ymap_pair_fn *fn;
	void *arg;
};

/* Each pair of merged map src whose key is a scalar (ymerge_fn). */
static int merged_each(void *arg, const struct ynode *src)
{
	struct merged_each *e = arg;
	const struct ynode *k;
	size_t i;
	int r;

	for (i = 0; i + 1 < src->n_kids; i += 2) {
		k = &e->d->nodes[src->kids[i]];
		if (k->kind != YN_SCALAR || k->type == YT_MERGE)
			continue;
		r = e->fn(e->arg, k, &e->d->nodes[src->kids[i + 1]],
			  ymark_add(&e->keys, src->kids[i]));
		if (r)
			return r;
	}
	return 0;
}

/* 1 when map is a map with a `<<` among its keys: the merge walks'
 * shortcut, so that a map without one costs a look at its pairs. */
static int ymap_merges(const struct ydoc *d, const struct ynode *map)
{
	const struct ynode *k;
	size_t i;

	if (!map || map->kind != YN_MAP)
		return 0;
	for (i = 0; i + 1 < map->n_kids; i += 2) {
		k = &d->nodes[map->kids[i]];
		if (k->kind == YN_SCALAR && k->type == YT_MERGE)
			return 1;
	}
	return 0;
}

int ymap_each_merged(const struct ydoc *d, const struct ynode *map,
		     ymap_pair_fn *fn, void *arg)
{
	struct merged_each e;
	struct ymark seen;
	size_t left = YDOC_MERGE_SOURCES;
	const struct ynode *k;
	size_t i;
	int r;

	if (!ymap_merges(d, map))
		return 0;
	e.d = d;
	e.fn = fn;
	e.arg = arg;
	/* the map's own keys first: they win over every merged one */
	ymark_init(&e.keys, d);
	for (i = 0; i + 1 < map->n_kids; i += 2) {
		k = &d->nodes[map->kids[i]];
		if (k->kind == YN_SCALAR && k->type != YT_MERGE)
			ymark_add(&e.keys, map->kids[i]);
	}
	ymark_init(&seen, NULL);
	r = ymerge_walk(d, map, 0, &seen, &left, merged_each, &e);
	ymark_release(&seen);
	ymark_release(&e.keys);
	return r;
}

/* What go-yaml refuses in v, the value of a `<<` (decode.go's merge():
 * "map merge requires map or sequence of maps as the value"): v itself,
 * *item -1, when it is neither a map nor a list written in place (an
 * alias to a list is YN_ALIAS: ydoc_alias()); else the first item of the
 * list that is not a map, *item its index (an alias to a map is that map,
 * which go-yaml takes).  NULL when v is a map or a list of maps (an empty
 * one too). */
static const struct ynode *ymerge_bad(const struct ydoc *d,
				      const struct ynode *v, long *item)
{
	size_t j;

	*item = -1;
	if (v->kind == YN_MAP)
		return NULL;
	if (v->kind != YN_SEQ || (v->flags & YN_ALIAS))
		return v;
	for (j = 0; j < v->n_kids; j++)
		if (d->nodes[v->kids[j]].kind != YN_MAP) {
			*item = (long)j;
			return &d->nodes[v->kids[j]];
		}
	return NULL;
}

/* ymap_each_bad_merge()'s walk: whom to tell. */
struct merged_bad {
	const struct ydoc *d;
	ymerge_bad_fn *fn;
	void *arg;
};

/* Each `<<` of map src whose value go-yaml refuses (ymerge_fn, and for
 * the map the walk starts from). */
static int merged_bad(void *arg, const struct ynode *src)
{
	const struct merged_bad *b = arg;
	const struct ynode *k, *bad;
	size_t i;
	long item;
	int r;

	for (i = 0; i + 1 < src->n_kids; i += 2) {
		k = &b->d->nodes[src->kids[i]];
		if (k->kind != YN_SCALAR || k->type != YT_MERGE)
			continue;
		bad = ymerge_bad(b->d, &b->d->nodes[src->kids[i + 1]], &item);
		if (bad && (r = b->fn(b->arg, k, bad, item)))
			return r;
	}
	return 0;
}

int ymap_each_bad_merge(const struct ydoc *d, const struct ynode *map,
			ymerge_bad_fn *fn, void *arg)
{
	struct merged_bad b = { d, fn, arg };
	struct ymark seen;
	size_t left = YDOC_MERGE_SOURCES;
	int r;

	if (!ymap_merges(d, map))
		return 0;
	if ((r = merged_bad(&b, map)))
		return r;
	/* map marked first, its `<<`s told above: no walk comes back to it
	 * (ydoc_alias() refuses a map that merges itself, `&s {<<: *s}`),
	 * but this walk does not count on that */
	ymark_init(&seen, NULL);
	ymark_add(&seen, (uint32_t)(map - d->nodes));
	r = ymerge_walk(d, map, 0, &seen, &left, merged_bad, &b);
	ymark_release(&seen);
	return r;
}

/* ---- the whole document, as go-yaml decodes it ------------------------- */

/*
 * Two walks of every node where it is written, each once.  Nodes are
 * numbered as they are read (ydoc_add()), parents before kids, and an
 * alias names a node that ended before it (ydoc_alias()), so in the order
 * of the text a kid is written in place exactly when its number is the
 * next one the walk has not met: one counter tells an alias from a node
 * written there, with no mark per node.  A node of its own made for an
 * alias (YN_ALIAS) takes a number but is not walked into (its kids are
 * the anchored node's).
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
 * frames, as deep as ydoc_load() lets collections nest, which a walk of
 * nodes written in place never passes.  ywalk_leave() undoes it. */
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
 * has none: anchors are made as their nodes are, in order (ydoc_add()),
 * so the array is sorted by node. */
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

/* A node go-yaml's decoder refuses, n, where the walk is (its line:
 * line): counted, and told (fns->refused) with the walk's object and
 * path.  key: n is a key; resolved NULL: a key that is a list or a map,
 * else n's tag does not fit its text, which resolves to that. */
static void ywalk_refused(struct ywalk *w, const struct ynode *n, int key,
			  const char *resolved, unsigned long line)
{
	static const char prefix[] = "tag:yaml.org,2002:";
	char path[YDOC_PATH_MAX];
	struct ydoc_refusal x;
	struct ydoc_at at;

	w->refusals++;
	if (!w->fns->refused)
		return;
	ywalk_path(w, path);
	at.obj = w->obj;
	at.path = path;
	at.line = line;
	x.n = n;
	x.key = key;
	x.resolved = resolved;
	/* ytag_misfit() answers only for the standard tags */
	x.tag = resolved ? ytag(n) + sizeof(prefix) - 1 : NULL;
	x.json = NULL;
	w->fns->refused(w->fns->arg, &at, &x);
}

/* The tag of scalar n, written where the walk is, as go-yaml's decoder
 * checks it (ytag_misfit()): told when it does not fit.  Returns 1 when
 * it does not. */
static int ywalk_scalar(struct ywalk *w, const struct ynode *n, int key)
{
	const char *r;

	if (n->kind != YN_SCALAR || n->type != YT_TAGGED)
		return 0;
	r = ytag_misfit(ytag(n), n->text, n->len);
	if (!r)
		return 0;
	if (!w->decoding)
		ywalk_refused(w, n, key, r, n->line);
	return 1;
}

int ydoc_tag_refused(const struct ynode *n)
{
	return n && n->kind == YN_SCALAR && n->type == YT_TAGGED &&
	       ytag_misfit(ytag(n), n->text, n->len) != NULL;
}

/* n a scalar go-yaml reads as type (YT_NUMBER: "int" or "float"), untagged
 * or under a standard tag that fits. */
static int yjson_is(const struct ynode *n, enum yn_type type,
		    const char *tag)
{
	static const char prefix[] = "tag:yaml.org,2002:";

	if (!n || n->kind != YN_SCALAR)
		return 0;
	if (n->type == type)
		return 1;
	return n->type == YT_TAGGED &&
	       !strncmp(ytag(n), prefix, sizeof(prefix) - 1) &&
	       !strcmp(ytag(n) + sizeof(prefix) - 1, tag) &&
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

const char *ydoc_json_key(const struct ynode *n)
{
	char *plain;
	size_t i, o;
	int r;

	if (yjson_is(n, YT_NULL, "null"))
		return "nil";
	if (!yjson_is(n, YT_NUMBER, "int") || strlen(n->text) != n->len ||
	    (n->text[0] != '+' && !ascii_is_digit((unsigned char)n->text[0])))
		return NULL;
	/* resolve.go: ParseInt, then ParseUint, of the text without its
	 * underscores (base 0: 0x, 0o, 0b, a leading 0) */
	plain = malloc(n->len + 1);
	if (!plain)
		return NULL;
	for (i = o = 0; i < n->len; i++)
		if (n->text[i] != '_')
			plain[o++] = n->text[i];
	plain[o] = '\0';
	r = ygo_int(plain, 0);
	free(plain);
	return r == 2 ? "uint64" : NULL;
}

/* The type go-yaml gives scalar key n: a fitting !!null, !!bool, !!int
 * or !!float as untagged; YT_TAGGED for another tag (a !!binary or
 * !!timestamp string, not compared). */
static int ykey_type(const struct ynode *n)
{
	if (n->type != YT_TAGGED)
		return n->type;
	if (yjson_is(n, YT_NULL, "null"))
		return YT_NULL;
	if (yjson_is(n, YT_BOOL, "bool"))
		return YT_BOOL;
	if (yjson_is(n, YT_NUMBER, "int") || yjson_is(n, YT_NUMBER, "float"))
		return YT_NUMBER;
	return YT_TAGGED;
}

/* Whether keys a and b may be one key to go-yaml (decode.go's map, Go's
 * == on what it resolved them to): two strings of one text; two scalars
 * of another same type or a tag go-yaml reads (1 and 0x1, yes and true)
 * are taken to be, never a string and another type. */
static int ykey_maybe_same(const struct ynode *a, const struct ynode *b)
{
	int ta = ykey_type(a), tb = ykey_type(b);

	if (a->kind != YN_SCALAR || b->kind != YN_SCALAR ||
	    ta == YT_TAGGED || tb == YT_TAGGED)
		return 1;
	if (ta != tb)
		return 0;
	return ta != YT_STR ||
	       (a->len == b->len && !memcmp(a->text, b->text, a->len));
}

/* Whether map m has a pair whose key may be k, or a `<<` (unless
 * within, it answers yes). */
static int ymap_may_have(const struct ydoc *d, const struct ynode *m,
			 const struct ynode *k, uint64_t *budget)
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
		    ykey_maybe_same(kj, k))
			return 1;
	}
	return 0;
}

/* Whether a pair of map m after kid index i (a key's; (size_t)-2: all of
 * them) may replace a pair whose key is k: one whose key may be the same,
 * or a `<<` of a map (of a list of maps) that may have it (decode.go's
 * mapping() sets pairs in order, a merge's too, the last winning). */
static int ylater_over(const struct ydoc *d, const struct ynode *m,
		       size_t i, const struct ynode *k, uint64_t *budget)
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
			if (ykey_maybe_same(kj, k))
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

/* Pairs ywalk_kept() looks at in one document, at most: past them what
 * it has not judged is taken as dropped (not told), so a map of 100,000
 * `.inf`s costs seconds, not its square. */
#define YKEPT_BUDGET (UINT64_C(1) << 26)

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
 * is not judged there.
 */
static int ywalk_kept(struct ywalk *w)
{
	const struct ydoc *d = w->d;
	const struct yframe *f, *g;
	const struct ynode *p, *k, *m;
	size_t i, j, u;

	for (i = w->depth; i-- > 0;) {
		f = &w->frame[i];
		if (f->step != YSTEP_FIELD)
			continue;
		p = &d->nodes[f->parent];
		k = &d->nodes[p->kids[f->slot - 1]];
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
	char path[YDOC_PATH_MAX];
	struct ydoc_refusal x;
	struct ydoc_at at;

	if (!json || w->decoding || !w->fns->refused || !ywalk_kept(w))
		return;
	ywalk_path(w, path);
	at.obj = w->obj;
	at.path = path;
	at.line = line;
	x.n = n;
	x.key = key;
	x.tag = NULL;
	x.resolved = NULL;
	x.json = json;
	w->fns->refused(w->fns->arg, &at, &x);
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
		 * as a key is a YT_STR copy (ydoc_alias()) */
		k = &w->d->nodes[n->kids[i]];
		v = &w->d->nodes[n->kids[i + 1]];
		kin = n->kids[i] == w->next;
		kc = ywalk_kid(w, n, i, YSTEP_KEY);
		vin = n->kids[i + 1] == w->next;
		if (k->kind != YN_SCALAR) {
			/* decode.go's mapping(): "invalid map key"; an
			 * alias has no line: its value's, or its map's */
			ywalk_refused(w, k, 1, NULL, kin ? k->line :
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

/* ---- trigger metadata --------------------------------------------------- */

void ydoc_md_release(struct ydoc_md *md)
{
	free(md->keys);
	free(md->values);
	free(md->knodes);
	free(md->vnodes);
	free(md->index);
}

/* The slot of md->index that holds key, or the empty one it would take
 * (md->index_cap > 0): its text hashed as anchor names are, the high bits
 * folded into the low ones the mask keeps (as ymark_hash() does). */
static size_t md_slot(const struct ydoc_md *md, const char *key)
{
	size_t m = md->index_cap - 1, s, h = ydoc_name_hash(key);

	s = (h ^ (h >> 16)) & m;
	while (md->index[s] && strcmp(md->keys[md->index[s] - 1], key))
		s = (s + 1) & m;
	return s;
}

/*
 * Key i of md (the last pushed) into md->index, once md->n is past
 * YDOC_MD_SCAN: the index is built then, and rebuilt twice as large when
 * it would be more than half full, so an insert is O(1) amortized.  A key
 * whose text is there already keeps the first's slot (ydoc_md_find()
 * finds the first).  Its size is bounded by the keys: at most 4 slots of
 * 4 bytes a key, beside the 32 bytes a key of md's arrays.  0, or -1 when
 * there is no memory for it (the index is then as it was).
 */
static int md_index_add(struct ydoc_md *md, size_t i)
{
	uint32_t *old = md->index;
	size_t ocap = md->index_cap, cap, j, s;

	if (md->n <= YDOC_MD_SCAN)
		return 0;
	/* node indexes fit 32 bits (ydoc_add), and md holds fewer keys
	 * than the document has nodes, so i + 1 does too */
	if (2 * md->n > ocap) {
		cap = ocap ? 2 * ocap : 4 * YDOC_MD_SCAN;
		while (2 * md->n > cap)
			cap *= 2;
		if (cap > SIZE_MAX / sizeof(*old))
			return -1;
		md->index = calloc(cap, sizeof(*md->index));
		if (!md->index) {
			md->index = old;
			return -1;
		}
		md->index_cap = cap;
		/* all the keys before i, in order, so that the first of a
		 * text takes its slot */
		for (j = 0; j < i; j++) {
			s = md_slot(md, md->keys[j]);
			if (!md->index[s])
				md->index[s] = (uint32_t)j + 1;
		}
		free(old);
	}
	s = md_slot(md, md->keys[i]);
	if (!md->index[s])
		md->index[s] = (uint32_t)i + 1;
	return 0;
}

static int md_push(struct ydoc_md *md, const struct ynode *k,
		   const struct ynode *v)
{
	void *p;

	if (!(p = arr_room(md->keys, md->n, &md->cap_keys,
			   sizeof(*md->keys))))
		return -1;
	md->keys = p;
	if (!(p = arr_room(md->values, md->n, &md->cap_values,
			   sizeof(*md->values))))
		return -1;
	md->values = p;
	if (!(p = arr_room(md->knodes, md->n, &md->cap_knodes,
			   sizeof(*md->knodes))))
		return -1;
	md->knodes = p;
	if (!(p = arr_room(md->vnodes, md->n, &md->cap_vnodes,
			   sizeof(*md->vnodes))))
		return -1;
	md->vnodes = p;
	md->keys[md->n] = k->text;
	md->values[md->n] = v->kind == YN_SCALAR ? v->text : "";
	md->knodes[md->n] = k;
	md->vnodes[md->n] = v;
	md->n++;
	if (md_index_add(md, md->n - 1)) {
		md->n--;       /* as if not pushed: the index holds the rest */
		return -1;
	}
	return 0;
}

size_t ydoc_md_find(const struct ydoc_md *md, const char *key)
{
	size_t i, s;

	if (md->index) {
		s = md_slot(md, key);
		return md->index[s] ? md->index[s] - 1 : md->n;
	}
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

/* Who is told about problems in one trigger's metadata. */
struct md_out {
	ydoc_report_fn *report;
	void *arg;
	struct ymark *seen;    /* the maps merged already */
	size_t *sources;       /* `<<` values and items looked at, as
				* ymerge_walk() counts them */
};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void md_report(const struct md_out *o, unsigned long line,
		      const char *fmt, ...)
{
	char msg[YDOC_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->report(o->arg, line, msg);
}

/* "ScaledObject metadata is map[string]string": report a value that is
 * not a YAML string.  Returns 1 if it was reported. */
static int md_check_value(const struct md_out *o, const struct ynode *k,
			  const struct ynode *v)
{
	static const char why[] = "ScaledObject metadata is "
				  "map[string]string";
	char key[YDOC_SHOW_BUF], val[YDOC_SHOW_BUF];

	ydoc_show(key, k);
	if (v->kind != YN_SCALAR) {
		md_report(o, k->line, "metadata '%s' is a %s, not a string: "
			  "%s", key, v->kind == YN_MAP ? "map" : "list", why);
		return 1;
	}
	/* ydoc_check() tells that kubectl refuses the document */
	if (ydoc_tag_refused(v) || ydoc_json_value(v))
		return 1;
	ydoc_show(val, v);
	switch (v->type) {
	case YT_NULL:
		md_report(o, k->line, "metadata '%s' has no value (YAML "
			  "null%s%s): %s; give a quoted string or leave the "
			  "key out", key, *val ? " " : "", val, why);
		return 1;
	case YT_BOOL:
	case YT_NUMBER:
		md_report(o, v->line, "metadata '%s': %s must be a quoted "
			  "string (\"%s\"): %s", key, val, val, why);
		return 1;
	case YT_TAGGED:
		md_report(o, v->line, "metadata '%s': '%s' is tagged %s%s, "
			  "not a string: %s", key, val,
			  ytag_short(ytag(v)) != ytag(v) ? "!!" : "",
			  ytag_short(ytag(v)), why);
		return 1;
	default:
		break;
	}
	if (strlen(v->text) != v->len) {
		md_report(o, v->line, "metadata '%s': '%s' contains a NUL "
			  "character", key, val);
		return 1;
	}
	return 0;
}

/* Gather the pairs of metadata mapping map into md (ydoc_md_collect's
 * rules); merged: map is merged in by `<<`.  -1: no memory. */
static int md_collect(const struct md_out *o, const struct ydoc *d,
		      const struct ynode *map, struct ydoc_md *md,
		      int merged, int depth)
{
	const struct ynode *k, *v, *src, *bad;
	size_t i, j, at;
	long item;
	char key[YDOC_SHOW_BUF];

	for (i = 0; i + 1 < map->n_kids; i += 2) {
		k = &d->nodes[map->kids[i]];
		v = &d->nodes[map->kids[i + 1]];
		/* a key that is a list or a map, null or past int64:
		 * ydoc_check() tells that kubectl refuses the document */
		if (k->kind != YN_SCALAR || ydoc_json_key(k)) {
			md->bad = 1;
			continue;
		}
		if (strlen(k->text) != k->len) {
			md_report(o, k->line, "metadata has a key that is "
				  "not a plain string: %s", "ScaledObject "
				  "metadata is map[string]string");
			md->bad = 1;
			continue;
		}
		if (k->type == YT_MERGE)
			continue;
		at = ydoc_md_find(md, k->text);
		if (at < md->n && merged)
			continue;
		if (at < md->n) {
			md_report(o, k->line, "metadata '%s' is given twice "
				  "(first on line %lu); give each key once",
				  ydoc_show(key, k),
				  (unsigned long)md->knodes[at]->line);
			md->bad = 1;
			continue;
		}
		md->bad |= md_check_value(o, k, v);
		if (md_push(md, k, v))
			return -1;
	}
	for (i = 0; i + 1 < map->n_kids; i += 2) {
		k = &d->nodes[map->kids[i]];
		v = &d->nodes[map->kids[i + 1]];
		if (k->kind != YN_SCALAR || k->type != YT_MERGE)
			continue;
		if (depth >= YDOC_MERGE_DEPTH) {
			md_report(o, k->line, "metadata merges ('<<') nest "
				  "more than %d deep", YDOC_MERGE_DEPTH);
			md->bad = 1;
			continue;
		}
		/* told once a `<<`, not once an item of its list (the
		 * maps of the list are merged all the same) */
		if ((bad = ymerge_bad(d, v, &item)) != NULL) {
			md_report(o, k->line, "metadata '<<' must merge a map "
				  "or a list of maps%s", bad->flags & YN_ALIAS ?
				  " written in place, not an alias to a list "
				  "(kubectl refuses one)" : "");
			md->bad = 1;
		}
		for (j = 0; j < (v->kind == YN_SEQ ? v->n_kids : 1); j++) {
			if (++*o->sources > YDOC_MERGE_SOURCES) {
				if (*o->sources == YDOC_MERGE_SOURCES + 1) {
					md_report(o, k->line, "metadata merges "
						  "('<<') more than %d maps; "
						  "the rest is not read",
						  YDOC_MERGE_SOURCES);
					md->bad = 1;
				}
				return 0;
			}
			src = v->kind == YN_SEQ ? &d->nodes[v->kids[j]] : v;
			if (src->kind != YN_MAP)
				continue;
			/* a map merged again adds nothing (its keys are
			 * there, and the first wins): skipped, so that
			 * aliases merging one map many times at each level
			 * cost its size, not a power of it */
			if (!ymark_add(o->seen, (uint32_t)(src - d->nodes)))
				continue;
			if (md_collect(o, d, src, md, 1, depth + 1))
				return -1;
		}
	}
	return 0;
}

int ydoc_md_collect(const struct ydoc *d, const struct ynode *trig,
		    struct ydoc_md *md, unsigned long *line,
		    ydoc_report_fn *report, void *arg)
{
	struct ymark seen;
	size_t sources = 0;
	struct md_out o = { report, arg, &seen, &sources };
	const struct ynode *k = NULL, *map;
	int rc;

	*line = trig->line;
	map = ymap_get_merged(d, trig, "metadata", &k);
	if (k)
		*line = k->line;
	if (!map)
		return 0;
	if (map->kind != YN_MAP) {
		md_report(&o, *line, "'metadata' is not a map: ScaledObject "
			  "metadata is map[string]string");
		return 1;
	}
	ymark_init(&seen, NULL);
	rc = md_collect(&o, d, map, md, 0, 0);
	ymark_release(&seen);
	return rc;
}

/* ---- ScaledObjects ------------------------------------------------------ */

int ydoc_is_external(const struct ydoc *d, const struct ynode *trig,
		     const char *address)
{
	const char *type = ytext(ymap_get_merged(d, trig, "type", NULL));
	const struct ynode *md;
	const char *addr;

	if (!type || (strcmp(type, "external") &&
		      strcmp(type, "external-push")))
		return 0;
	if (!address)
		return 1;
	md = ymap_get_merged(d, trig, "metadata", NULL);
	addr = ytext(ymap_get_merged(d, md, "scalerAddress", NULL));
	return addr && strstr(addr, address);
}

void ydoc_who(const struct ydoc *d, const struct ynode *obj, char *buf,
	      size_t size)
{
	const struct ynode *md = ymap_get_merged(d, obj, "metadata", NULL);
	const struct ynode *name = ymap_get_merged(d, md, "name", NULL);
	const struct ynode *ns = ymap_get_merged(d, md, "namespace", NULL);
	char a[YDOC_SHOW_BUF], b[YDOC_SHOW_BUF];

	if (!ytext(name))
		snprintf(buf, size, "(no name)");
	else if (ytext(ns))
		snprintf(buf, size, "%s/%s", ydoc_show(a, ns),
			 ydoc_show(b, name));
	else
		snprintf(buf, size, "%s", ydoc_show(b, name));
}

int ydoc_each_scaledobject(const struct ydoc *d, ydoc_object_fn *fn,
			   void *arg)
{
	const struct ynode *root, *items, *obj;
	const char *kind;
	size_t i, n = 1;
	int r;

	if (d->n == 0)
		return 0;
	root = &d->nodes[0];
	items = ydoc_list_items(d);
	if (items)
		n = items->n_kids;
	for (i = 0; i < n; i++) {
		obj = items ? &d->nodes[items->kids[i]] : root;
		kind = ytext(ymap_get_merged(d, obj, "kind", NULL));
		if (!kind || strcmp(kind, "ScaledObject"))
			continue;
		r = fn(arg, d, obj);
		if (r)
			return r;
	}
	return 0;
}

/* ---- files -------------------------------------------------------------- */

/* Read path ("-": stdin) whole into *buf (NUL-terminated).  0, or -1 with
 * a message on stderr.  A FIFO is fine here (`lint <(kubectl ...)`): the
 * user asked for this file and waits for it. */
static int read_all(const char *path, const char *prog, char **buf,
		    size_t *len)
{
	enum slurp_err se;
	int fd = STDIN_FILENO;
	char *b;

	if (strcmp(path, "-")) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "%s: %s: cannot open: %s\n", prog,
				path, strerror(errno));
			return -1;
		}
	}
	b = slurp_fd(fd, YDOC_FILE_MAX, len, &se);
	if (!b) {
		if (se == SLURP_ENOMEM)
			fprintf(stderr, "%s: %s: out of memory\n", prog, path);
		else if (se == SLURP_EBIG)
			fprintf(stderr, "%s: %s: larger than %u bytes\n",
				prog, path, YDOC_FILE_MAX);
		else
			fprintf(stderr, "%s: %s: cannot read: %s\n", prog,
				path, strerror(errno));
	}
	if (fd != STDIN_FILENO)
		close(fd);
	*buf = b;
	return b ? 0 : -1;
}

/* The line of a reader error: the byte offset counted in lines. */
static unsigned long offset_line(const char *buf, size_t len, size_t offset)
{
	unsigned long line = 1;
	size_t i;

	for (i = 0; i < offset && i < len; i++)
		line += buf[i] == '\n';
	return line;
}

/* line, or the file's last line when line is past it. */
static unsigned long clamp_line(const char *buf, size_t len, size_t line)
{
	unsigned long last = offset_line(buf, len, len);

	return line > last ? last : (unsigned long)line;
}

static void yaml_error(FILE *fp, const char *name, const yaml_parser_t *p,
		       const char *buf, size_t len, const struct yerr *e)
{
	if (e->line) {
		fprintf(fp, "%s:%lu: invalid YAML: %s\n", name, e->line,
			e->msg);
		return;
	}
	if (p->error == YAML_READER_ERROR) {
		fprintf(fp, "%s:%lu: invalid YAML: %s\n", name,
			offset_line(buf, len, p->problem_offset),
			p->problem ? p->problem : "unreadable text");
		return;
	}
	/* At the end of a file without a final newline libyaml counts one
	 * line more than the file has: name its last line instead. */
	fprintf(fp, "%s:%lu: invalid YAML: %s", name,
		clamp_line(buf, len, p->problem_mark.line + 1),
		p->problem ? p->problem : "syntax error");
	if (p->context)
		fprintf(fp, " (%s from line %lu)", p->context,
			clamp_line(buf, len, p->context_mark.line + 1));
	fprintf(fp, "\n");
}

/*
 * Read the documents of buf: each non-empty one goes to fn, or, with keep
 * non-NULL, the first non-empty one is moved into *keep (then owned by the
 * caller) and the rest is not read.  ydoc_read_buffer()'s messages and
 * codes; *keep is set only on YDOC_OK, and stays empty when buf has no
 * document.
 */
static enum ydoc_err ydoc_stream(const char *buf, size_t len, const char *name,
				 const char *prog, FILE *yaml_fp,
				 ydoc_doc_fn *fn, void *arg, struct ydoc *keep)
{
	yaml_parser_t parser;
	struct ydoc doc;
	enum yload r;
	enum ydoc_err rc = YDOC_ENOMEM;
	struct yerr yerr = { 0, NULL, { 0 } };
	int have_parser = 0;

	/* the bound that keeps a node's numbers within 32 bits */
	if (len > YDOC_FILE_MAX) {
		fprintf(stderr, "%s: %s: larger than %u bytes\n", prog, name,
			YDOC_FILE_MAX);
		return YDOC_EREAD;
	}
	if (!yaml_parser_initialize(&parser))
		goto nomem;
	have_parser = 1;
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf,
				     len);
	for (;;) {
		memset(&doc, 0, sizeof(doc));
		r = ydoc_load(&parser, &doc, &yerr);
		if (r == YLOAD_DOC && doc.n > 0 && keep) {
			*keep = doc;
			break;
		}
		if (r == YLOAD_DOC && doc.n > 0 && fn(arg, &doc))
			r = YLOAD_NOMEM;
		ydoc_release(&doc);
		if (r == YLOAD_NOMEM)
			goto nomem;
		if (r == YLOAD_ERROR) {
			yaml_error(yaml_fp, name, &parser, buf, len, &yerr);
			rc = YDOC_EYAML;
			goto out;
		}
		if (r == YLOAD_END)
			break;
	}
	rc = YDOC_OK;
	goto out;
nomem:
	fprintf(stderr, "%s: %s: out of memory\n", prog, name);
out:
	if (have_parser)
		yaml_parser_delete(&parser);
	return rc;
}

enum ydoc_err ydoc_read_buffer(const char *buf, size_t len, const char *name,
			       const char *prog, FILE *yaml_fp,
			       ydoc_doc_fn *fn, void *arg)
{
	return ydoc_stream(buf, len, name, prog, yaml_fp, fn, arg, NULL);
}

enum ydoc_err ydoc_read_one(const char *buf, size_t len, const char *name,
			    const char *prog, FILE *yaml_fp, struct ydoc **out)
{
	struct ydoc *d = calloc(1, sizeof(*d));
	enum ydoc_err rc;

	if (!d) {
		fprintf(stderr, "%s: %s: out of memory\n", prog, name);
		return YDOC_ENOMEM;
	}
	rc = ydoc_stream(buf, len, name, prog, yaml_fp, NULL, NULL, d);
	if (rc != YDOC_OK) {
		free(d);
		return rc;
	}
	*out = d;
	return YDOC_OK;
}

void ydoc_free(struct ydoc *d)
{
	if (!d)
		return;
	ydoc_release(d);
	free(d);
}

enum ydoc_err ydoc_read_file(const char *path, const char *prog,
			     FILE *yaml_fp, ydoc_doc_fn *fn, void *arg)
{
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	enum ydoc_err rc;
	char *buf = NULL;
	size_t len;

	if (read_all(path, prog, &buf, &len))
		return YDOC_EREAD;
	rc = ydoc_read_buffer(buf, len, name, prog, yaml_fp, fn, arg);
	free(buf);
	return rc;
}
