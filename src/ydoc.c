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
#include "gostd.h"
#include "show.h"
#include "slurp.h"
#include "ycheck.h"
#include "ydoc_int.h"

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
 * null, bool or float (the floats also ycheck.c's: ydoc_int.h). */
static const char *const ygo_nulls[] = {
	"", "~", "null", "Null", "NULL", NULL };
static const char *const ygo_bools[] = {
	"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
	"true", "True", "TRUE", "false", "False", "FALSE",
	"on", "On", "ON", "off", "Off", "OFF", NULL };
const char *const ygo_floats[] = {
	".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf",
	"+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", NULL };

int ygo_int(const char *s, unsigned base, uint64_t *value)
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
	if (v > lim && sign)
		return 0;
	if (value)
		*value = neg ? (uint64_t)0 - v : v;
	return v <= lim ? 1 : 2;
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

const char *ytag_std(const char *tag)
{
	static const char prefix[] = "tag:yaml.org,2002:";

	if (!tag || strncmp(tag, prefix, sizeof(prefix) - 1))
		return NULL;
	return tag + sizeof(prefix) - 1;
}

/*
 * What resolve.go's resolve() (v2.4.0) reads text as, untagged or under a
 * tag it checks: "null", "bool", "float" (its fixed words, then for text
 * starting with '.' ParseFloat of the text, each underscore between two
 * digits), "int" (for text starting with a digit or a sign, ParseInt,
 * then ParseUint, of the text without its underscores; then a float,
 * ParseFloat of it where it is go-yaml's float; then "0b" and ParseInt of
 * the rest, base 2, which takes a sign: `0b-101` is -5), else "str"
 * (`1e999`, past a double, and `0x1FFFFFFFFFFFFFFFFF`, past uint64, are
 * strings).  timestamp: under !!timestamp, where text that starts as a
 * date (YYYY-) is a timestamp or, failing time.Parse, "str"; untagged a
 * timestamp is a string.  *in: ygo_int()'s answer for an int (1: an
 * int64).  NULL out of memory.
 */
static const char *yresolve(const char *text, size_t len, int timestamp,
			    int *in)
{
	const char *r = "str";
	char *plain;
	size_t i, o;

	*in = 0;
	/* a NUL in the text: no word, number or date; a string */
	if (strlen(text) != len)
		return "str";
	if (ydoc_word_in(text, ygo_nulls))
		return "null";
	if (ydoc_word_in(text, ygo_bools))
		return "bool";
	if (ydoc_word_in(text, ygo_floats))
		return "float";
	if (text[0] != '.' && !ascii_is_digit((unsigned char)text[0]) &&
	    text[0] != '+' && text[0] != '-')
		return "str";
	/* parseTimestamp(): text that starts YYYY- and that Go's
	 * time.Parse refuses is no int or float either */
	if (timestamp && strspn(text, "0123456789") == 4 && text[4] == '-')
		return gostd_timestamp(text, len) ? "timestamp" : "str";
	/* underscores dropped: all of them for a digit or sign; for a
	 * '.', ParseFloat's, each between two digits */
	plain = malloc(len + 1);
	if (!plain)
		return NULL;
	for (i = o = 0; i < len; i++) {
		if (text[i] != '_')
			plain[o++] = text[i];
		else if (text[0] == '.' &&
			 (!ascii_is_digit((unsigned char)text[i - 1]) ||
			  !ascii_is_digit((unsigned char)text[i + 1])))
			*in = -1;
	}
	plain[o] = '\0';
	if (text[0] != '.')
		*in = ygo_int(plain, 0, NULL);
	/* resolve.go's last try: "0b" then ParseInt(rest, 2), which takes
	 * a sign ("0b-101") */
	if (*in > 0 || (!*in && !ygo_float(plain) &&
			!strncmp(plain, "0b", 2) &&
			(*in = ygo_int(plain + 2, 2, NULL)) > 0))
		r = "int";
	else if (!*in && ygo_float(plain))
		r = "float";
	free(plain);
	return r;
}

/*
 * The type go-yaml v2 (sigs.k8s.io/yaml, kubectl) gives a plain, untagged
 * scalar: yresolve()'s, a `<<` a merge key.  Timestamps stay strings
 * there.
 */
static enum yn_type yaml11_type(const char *s, size_t len)
{
	const char *r;
	int in;

	if (len == 2 && !strcmp(s, "<<"))
		return YT_MERGE;
	r = yresolve(s, len, 0, &in);
	if (!r)
		return YT_STR;   /* out of memory: the message only loses a
				  * detail */
	if (!strcmp(r, "null"))
		return YT_NULL;
	if (!strcmp(r, "bool"))
		return YT_BOOL;
	if (!strcmp(r, "int") || !strcmp(r, "float"))
		return YT_NUMBER;
	return YT_STR;
}

const char *ytag_misfit(const char *tag, const char *text, size_t len)
{
	static const char *const checked[] = {
		"bool", "int", "float", "null", "timestamp", NULL };
	const char *t, *r;
	int in;

	t = ytag_std(tag);
	if (!t || !ydoc_word_in(t, checked))
		return NULL;
	r = yresolve(text, len, !strcmp(t, "timestamp"), &in);
	if (!r)
		return NULL;
	/* an int64 fits !!float (resolve.go's deferred check) */
	if (in == 1 && !strcmp(r, "int") && !strcmp(t, "float"))
		return NULL;
	return strcmp(r, t) ? r : NULL;
}

/* Whether go-yaml v2 reads a scalar under tag (in full, as libyaml and
 * go-yaml's parser give it, %TAG handles applied) as anything but its
 * text: resolve.go's resolvableTag() (!!bool, !!int, !!float, !!null,
 * !!timestamp, and !!str, which ydoc types YT_STR) and the decoder's
 * !!binary (base64, decoded; a valid !!timestamp or !!binary is then a
 * string, ydoc_go_string()).  Under any other tag, a local one (`!foo
 * 5`), `!!set`, `!!merge x` or another prefix's, resolve() hands the
 * text back untouched and the decoder keeps it as a string: kubectl
 * reads `!foo 5` as "5". */
static int ytag_read(const char *tag)
{
	static const char *const read[] = {
		"bool", "int", "float", "null", "timestamp", "binary", NULL };
	const char *t = ytag_std(tag);

	return t && ydoc_word_in(t, read);
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

/*
 * A scalar tagged !!timestamp or !!binary (ev, typed YT_TAGGED) that
 * go-yaml v2 decodes, as the string kubectl sends (gostd.h): a
 * !!timestamp that parseTimestamp() takes is its text (decode.go keeps
 * n.value when decoding into interface{}), a !!binary that is base64 its
 * bytes, as encoding/json writes them (U+FFFD for what is not UTF-8).  n
 * gets that text and YT_STR: lint checks and shows the value sent, a key
 * is compared by it (`!!binary aGk=` and `hi` are one key to go-yaml).
 * One go-yaml refuses stays YT_TAGGED (ycheck.c tells it).  Returns 1
 * when n is set, 0 when ev is not such a scalar, -1 out of memory.
 */
static int ydoc_go_string(struct ydoc *d, struct ynode *n,
			  const yaml_event_t *ev)
{
	const char *t = ytag_std((const char *)ev->data.scalar.tag);
	const char *s = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length, m, k = 0;
	unsigned char *raw = NULL;
	char *text = NULL;
	int r = 0;

	if (t && !strcmp(t, "timestamp")) {
		if (!gostd_timestamp(s, len))
			goto out;
		r = -1;
		text = ydoc_strdup(d, s, len, NULL);
		k = len;
	} else if (t && !strcmp(t, "binary")) {
		r = -1;
		/* at most len / 4 * 3 bytes (gostd.h); + 1: never 0 */
		raw = malloc(len / 4 * 3 + 1);
		if (!raw)
			goto out;
		r = 0;
		if (gostd_base64(s, len, raw, &m))
			goto out;
		r = -1;
		k = gostd_json_text(raw, m, NULL);
		text = ydoc_alloc(d, k + 1, 0);
		if (text) {
			gostd_json_text(raw, m, text);
			text[k] = '\0';
		}
	} else {
		goto out;
	}
	/* k is at most 9/4 of a scalar of a file of YDOC_FILE_MAX bytes */
	if (!text || k >= UINT32_MAX)
		goto out;
	n->text = text;
	n->len = (uint32_t)k;
	n->type = YT_STR;
	r = 1;
out:
	free(raw);
	return r;
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
	int go;

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
		go = n->type == YT_TAGGED ? ydoc_go_string(d, n, ev) : 0;
		if (go < 0)
			return -1;
		if (!go)
			n->text = ydoc_strdup(d, ev->data.scalar.value, n->len,
					      n->type == YT_TAGGED ?
					      (const char *)ev->data.scalar.tag :
					      NULL);
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

const struct ynode *ydoc_list_items(const struct ydoc *d)
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

const struct ynode *ymerge_bad(const struct ydoc *d,
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
	const char *t = ytag_std(tag);

	return t ? t : tag;
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
 * a message on stderr, naming it name (ydoc_file_name()'s).  A FIFO is
 * fine here (`lint <(kubectl ...)`): the user asked for this file and
 * waits for it. */
static int read_all(const char *path, const char *name, const char *prog,
		    char **buf, size_t *len)
{
	enum slurp_err se;
	int fd = STDIN_FILENO;
	char *b;

	if (strcmp(path, "-")) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "%s: %s: cannot open: %s\n", prog,
				name, strerror(errno));
			return -1;
		}
	}
	b = slurp_fd(fd, YDOC_FILE_MAX, len, &se);
	if (!b) {
		if (se == SLURP_ENOMEM)
			fprintf(stderr, "%s: %s: out of memory\n", prog, name);
		else if (se == SLURP_EBIG)
			fprintf(stderr, "%s: %s: larger than %u bytes\n",
				prog, name, YDOC_FILE_MAX);
		else
			fprintf(stderr, "%s: %s: cannot read: %s\n", prog,
				name, strerror(errno));
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

const char *ydoc_file_name(char buf[YDOC_NAME_BUF], const char *path)
{
	if (!strcmp(path, "-"))
		snprintf(buf, YDOC_NAME_BUF, "%s", "<stdin>");
	else
		show_escaped(buf, YDOC_NAME_MAX, path, strlen(path));
	return buf;
}

enum ydoc_err ydoc_read_file(const char *path, const char *prog,
			     FILE *yaml_fp, ydoc_doc_fn *fn, void *arg)
{
	char name[YDOC_NAME_BUF];
	enum ydoc_err rc;
	char *buf = NULL;
	size_t len;

	ydoc_file_name(name, path);
	if (read_all(path, name, prog, &buf, &len))
		return YDOC_EREAD;
	rc = ydoc_read_buffer(buf, len, name, prog, yaml_fp, fn, arg);
	free(buf);
	return rc;
}
