/*
 * test_ydoc.c - ydoc.h's tree as the reader builds it: kids in order and
 * contiguous per collection, aliases sharing nodes (a cycle refused, an
 * alias to a list as a `<<`'s value a node of its own), merge keys tagged
 * as go-yaml takes them, text and tags in the arena (long and short,
 * across blocks), ydoc_read_one()'s ownership, the input bound that
 * keeps a node's numbers within 32 bits, `<<` merges
 * as ymap_get_merged(), ymap_each_merged(), ydoc_md_collect() and the
 * ScaledObject functions follow them, the merges go-yaml refuses
 * (ymap_each_bad_merge()), and ydoc_md_find() over many keys.  What
 * ycheck.c judges in a whole document (ydoc_check()) is test_ycheck.c's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"
#include "ycheck.h"
#include "ydoc.h"

/* The first document of text, which must read. */
static struct ydoc *read_one(const char *text, size_t len)
{
	struct ydoc *d = NULL;

	assert_int_equal(ydoc_read_one(text, len, "t.yaml", "test", stderr,
				       &d), YDOC_OK);
	assert_non_null(d);
	return d;
}

static const struct ynode *kid(const struct ydoc *d, const struct ynode *n,
			       size_t i)
{
	assert_true(i < n->n_kids);
	return &d->nodes[n->kids[i]];
}

/* A collection closed inside another keeps its own kids, and its parent's
 * go on after it: the kids stack is unwound per collection. */
static void test_tree(void **state)
{
	static const char y[] =
		"a: [1, {b: yes, c: ~}, \"2\"]\n"
		"d:\n"
		"  e: [[], {}]\n"
		"f: last\n";
	struct ydoc *d = read_one(y, sizeof(y) - 1);
	const struct ynode *root = &d->nodes[0], *a, *m, *e;

	(void)state;
	assert_int_equal(root->kind, YN_MAP);
	assert_int_equal(root->n_kids, 6);
	assert_string_equal(ytext(kid(d, root, 0)), "a");
	assert_string_equal(ytext(kid(d, root, 2)), "d");
	assert_string_equal(ytext(kid(d, root, 4)), "f");
	assert_string_equal(ytext(kid(d, root, 5)), "last");
	assert_int_equal(kid(d, root, 5)->line, 4);
	a = ymap_get(d, root, "a", NULL);
	assert_int_equal(a->kind, YN_SEQ);
	assert_int_equal(a->n_kids, 3);
	assert_int_equal(kid(d, a, 0)->type, YT_NUMBER);
	m = kid(d, a, 1);
	assert_int_equal(m->kind, YN_MAP);
	assert_int_equal(m->n_kids, 4);
	assert_int_equal(ymap_get(d, m, "b", NULL)->type, YT_BOOL);
	assert_int_equal(ymap_get(d, m, "c", NULL)->type, YT_NULL);
	assert_string_equal(ytext(kid(d, a, 2)), "2");
	assert_int_equal(kid(d, a, 2)->type, YT_STR);
	e = ymap_get(d, ymap_get(d, root, "d", NULL), "e", NULL);
	assert_int_equal(e->n_kids, 2);
	assert_int_equal(kid(d, e, 0)->n_kids, 0);
	assert_null(kid(d, e, 0)->kids);
	assert_int_equal(kid(d, e, 1)->kind, YN_MAP);
	assert_null(ytext(e));
	assert_null(e->text);
	ydoc_free(d);
}

/*
 * A plain scalar's type is resolve.go's (v2.4.0; each checked with
 * sigs.k8s.io/yaml): an int as ParseInt, then ParseUint, read it, a float
 * as ParseFloat, then "0b" and a signed base-2 int; past uint64 in hex
 * or past a double it is a string.
 */
static void test_plain_types(void **state)
{
	static const struct {
		const char *text;
		enum yn_type type;
	} c[] = {
		{ ".1_0", YT_NUMBER }, { "._5", YT_STR }, { ".5e999", YT_STR },
		{ "0x1FFFFFFFFFFFFFFFFF", YT_STR }, { "1e999", YT_STR },
		{ "0b-101", YT_NUMBER }, { "0b+11", YT_NUMBER },
		{ "-0b1", YT_NUMBER }, { "1_000.5", YT_NUMBER },
		{ "99999999999999999999", YT_NUMBER }, { "1__0", YT_NUMBER },
		{ "0b1111111111111111111111111111111111111111111111111111111"
		  "111111111", YT_NUMBER },
		{ "0b+111111111111111111111111111111111111111111111111111111"
		  "1111111111", YT_STR },
		{ "08", YT_NUMBER }, { "0o17", YT_NUMBER }, { "2001-01-01", YT_STR },
		{ "yes", YT_BOOL }, { "~", YT_NULL }, { "-.INF", YT_NUMBER },
		{ "<<", YT_MERGE }, { "1.2.3", YT_STR },
	};
	char y[128];
	struct ydoc *d;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		snprintf(y, sizeof(y), "[%s]\n", c[i].text);
		d = read_one(y, strlen(y));
		if (kid(d, &d->nodes[0], 0)->type != c[i].type)
			fail_msg("%s: type %d, want %d", c[i].text,
				 kid(d, &d->nodes[0], 0)->type, c[i].type);
		ydoc_free(d);
	}
}

/* An alias is the anchored node itself, not a copy. */
static void test_alias(void **state)
{
	static const char y[] = "a: &x {b: 1}\nc: *x\nd: [*x, *x]\n";
	struct ydoc *d = read_one(y, sizeof(y) - 1);
	const struct ynode *root = &d->nodes[0];
	const struct ynode *a = ymap_get(d, root, "a", NULL);
	const struct ynode *dd = ymap_get(d, root, "d", NULL);

	(void)state;
	assert_ptr_equal(ymap_get(d, root, "c", NULL), a);
	assert_ptr_equal(kid(d, dd, 0), a);
	assert_ptr_equal(kid(d, dd, 1), a);
	assert_int_equal(d->n, 8);   /* root, a, {}, b, 1, c, d, [] */
	ydoc_free(d);
}

/* The tag follows the text's NUL; a NUL inside the text is kept. */
static void test_tag_nul(void **state)
{
	static const char y[] = "a: !!binary bar\nb: \"x\\0y\"\nc: !!int 7\n";
	struct ydoc *d = read_one(y, sizeof(y) - 1);
	const struct ynode *root = &d->nodes[0];
	const struct ynode *a = ymap_get(d, root, "a", NULL);
	const struct ynode *b = ymap_get(d, root, "b", NULL);
	const struct ynode *c = ymap_get(d, root, "c", NULL);

	(void)state;
	assert_int_equal(a->type, YT_TAGGED);
	assert_string_equal(a->text, "bar");
	assert_string_equal(ytag(a), "tag:yaml.org,2002:binary");
	assert_string_equal(ytag(c), "tag:yaml.org,2002:int");
	assert_int_equal(b->len, 3);
	assert_memory_equal(b->text, "x\0y", 4);
	assert_null(ytag(b));
	assert_null(ytag(root));
	assert_null(ytag(NULL));
	ydoc_free(d);
}

/*
 * A tag go-yaml v2 does not read the text under is no tag to it:
 * resolve() hands the text back, a string ("5" for `!foo 5`, "~" for
 * `!foo ~`, "" for a bare `!foo`), so YT_STR with no tag: local tags,
 * verbatim ones, a %TAG handle's, !!set and !!merge over a text other
 * than `<<`, and a `<<` under a local tag (a key "<<", not a merge).
 * The tags it reads stay YT_TAGGED (but a valid !!timestamp or !!binary:
 * test_tag_go_string()).
 */
static void test_tag_unread(void **state)
{
	static const char y[] =
		"%TAG !e! tag:example.com,2000:\n---\n"
		"a: !foo 5\nb: !mytag x\nc: !foo ~\nd: !foo\ne: !<!bar> 7\n"
		"f: !e!int 1\ng: !!set 5\nh: !!merge x\n!foo <<: {i: 1}\n"
		"k: !!null ''\nl: !!float 1\nm: !!bool yes\n";
	static const struct {
		const char *key, *text;
	} strs[] = {
		{ "a", "5" }, { "b", "x" }, { "c", "~" }, { "d", "" },
		{ "e", "7" }, { "f", "1" }, { "g", "5" }, { "h", "x" },
	};
	struct ydoc *d = read_one(y, sizeof(y) - 1);
	const struct ynode *root = &d->nodes[0], *v, *k;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		v = ymap_get(d, root, strs[i].key, NULL);
		assert_non_null(v);
		assert_int_equal(v->type, YT_STR);
		assert_string_equal(v->text, strs[i].text);
		assert_null(ytag(v));
	}
	v = ymap_get(d, root, "<<", &k);
	assert_non_null(v);
	assert_int_equal(k->type, YT_STR);
	assert_null(ymap_get_merged(d, root, "i", NULL));
	for (i = 0; i < 3; i++) {
		v = ymap_get(d, root, (const char *[]){ "k", "l", "m" }[i],
			     NULL);
		assert_int_equal(v->type, YT_TAGGED);
	}
	ydoc_free(d);
}

/*
 * A !!timestamp that go-yaml parses is its text, a !!binary that is
 * base64 its decoded bytes, U+FFFD for each that is not UTF-8 (what
 * sigs.k8s.io/yaml's YAMLToJSON gives; `hi` and `!!binary aGk=` one
 * key); one go-yaml refuses stays tagged, and ydoc_tag_refused() says
 * so.  Also where ydoc.c reads metadata: the string, not a tagged value.
 */
static void test_tag_go_string(void **state)
{
	static const char y[] =
		"a: !!timestamp 2001-12-14t21:59:43.10-05:00\n"
		"b: !!binary aGk=\nc: !!binary |\n  aG\n  k=\n"
		"d: !!binary 7aCA\ne: !!binary AA==\nf: !!binary \"\"\n"
		"g: !!binary aGk\nh: !!timestamp 2001-02-29\n"
		"!!binary aGk=: 1\n";
	static const struct {
		const char *key, *text;
		size_t len;
	} strs[] = {
		{ "a", "2001-12-14t21:59:43.10-05:00", 28 },
		{ "b", "hi", 2 }, { "c", "hi", 2 },
		{ "d", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 9 },
		{ "e", "\0", 1 }, { "f", "", 0 },
	};
	struct ydoc *d = read_one(y, sizeof(y) - 1);
	const struct ynode *root = &d->nodes[0], *v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		v = ymap_get(d, root, strs[i].key, NULL);
		assert_non_null(v);
		assert_int_equal(v->type, YT_STR);
		assert_int_equal(v->len, strs[i].len);
		assert_memory_equal(v->text, strs[i].text, strs[i].len + 1);
		assert_null(ytag(v));
		assert_false(ydoc_tag_refused(v));
	}
	for (i = 0; i < 2; i++) {
		v = ymap_get(d, root, i ? "h" : "g", NULL);
		assert_int_equal(v->type, YT_TAGGED);
		assert_true(ydoc_tag_refused(v));
	}
	assert_string_equal(ytag(ymap_get(d, root, "g", NULL)),
			    "tag:yaml.org,2002:binary");
	/* a !!binary key is its decoded text */
	v = ymap_get(d, root, "hi", NULL);
	assert_non_null(v);
	assert_string_equal(v->text, "1");
	ydoc_free(d);
}

/* Many short scalars (many blocks) between long ones (blocks of their
 * own): every text intact once the document is read. */
static void test_arena(void **state)
{
	enum { KEYS = 20000, LONG = 70000 };
	size_t cap = KEYS * 24 + 3 * (LONG + 16), len = 0, i, n;
	char *y = malloc(cap), want[32];
	const struct ynode *root, *v;
	struct ydoc *d;

	(void)state;
	assert_non_null(y);
	for (i = 0; i < KEYS; i++) {
		len += (size_t)snprintf(y + len, cap - len, "k%zu: v%zu\n", i,
					i);
		if (i % 7000 == 3) {
			n = i % 2 ? LONG : 20000;   /* past the block; within */
			len += (size_t)snprintf(y + len, cap - len, "l%zu: ",
						i);
			memset(y + len, 'a' + (int)(i % 26), n);
			len += n;
			y[len++] = '\n';
		}
	}
	d = read_one(y, len);
	root = &d->nodes[0];
	for (i = 0; i < KEYS; i++) {
		snprintf(want, sizeof(want), "k%zu", i);
		v = ymap_get(d, root, want, NULL);
		assert_non_null(v);
		snprintf(want, sizeof(want), "v%zu", i);
		assert_string_equal(v->text, want);
		if (i % 7000 == 3) {
			snprintf(want, sizeof(want), "l%zu", i);
			v = ymap_get(d, root, want, NULL);
			n = i % 2 ? LONG : 20000;
			assert_int_equal(v->len, n);
			assert_int_equal(strlen(v->text), n);
			assert_int_equal(v->text[0], 'a' + (int)(i % 26));
			assert_int_equal(v->text[n - 1], 'a' + (int)(i % 26));
		}
	}
	ydoc_free(d);
	free(y);
}

/* ydoc_read_one(): the first document only; nothing set on an error. */
static void test_read_one(void **state)
{
	static const char two[] = "---\na: 1\n---\nb: 2\n";
	static const char bad[] = "a: [1\n";
	struct ydoc *d = NULL, *keep = (struct ydoc *)&d;
	FILE *sink = tmpfile();

	(void)state;
	assert_non_null(sink);
	d = read_one(two, sizeof(two) - 1);
	assert_non_null(ymap_get(d, &d->nodes[0], "a", NULL));
	assert_null(ymap_get(d, &d->nodes[0], "b", NULL));
	ydoc_free(d);
	d = read_one("", 0);
	assert_int_equal(d->n, 0);
	ydoc_free(d);
	d = keep;
	assert_int_equal(ydoc_read_one(bad, sizeof(bad) - 1, "t.yaml", "test",
				       sink, &d), YDOC_EYAML);
	assert_ptr_equal(d, keep);
	ydoc_free(NULL);
	fclose(sink);
}

static int count_doc(void *arg, const struct ydoc *d)
{
	(void)d;
	(*(int *)arg)++;
	return 0;
}

/* More than YDOC_FILE_MAX bytes is refused before a byte is read. */
static void test_too_big(void **state)
{
	char *big = malloc((size_t)YDOC_FILE_MAX + 1);
	int n = 0;

	(void)state;
	assert_non_null(big);
	memset(big, '\n', (size_t)YDOC_FILE_MAX + 1);
	assert_int_equal(ydoc_read_buffer(big, (size_t)YDOC_FILE_MAX + 1,
					  "big", "test", stderr, count_doc, &n),
			 YDOC_EREAD);
	assert_int_equal(n, 0);
	free(big);
}

/* What ydoc_read_buffer() prints on its yaml_fp for text: want in it
 * (NULL: nothing), and rc returned; n documents read before. */
static void check_read(const char *text, enum ydoc_err rc, int n,
		       const char *want)
{
	char got[1024];
	FILE *fp = tmpfile();
	size_t len;
	int docs = 0;

	assert_non_null(fp);
	assert_int_equal(ydoc_read_buffer(text, strlen(text), "t.yaml", "test",
					  fp, count_doc, &docs), rc);
	assert_int_equal(docs, n);
	rewind(fp);
	len = fread(got, 1, sizeof(got) - 1, fp);
	got[len] = '\0';
	fclose(fp);
	if (!want)
		assert_int_equal(len, 0);
	else
		check_contains(got, want);
}

/*
 * An alias inside the node it names is a cycle, which go-yaml refuses
 * ("anchor 'c' value contains itself"): invalid YAML at the alias's line,
 * in a map, a list, a key, deeper down, through `<<`; the documents
 * before it are still read.  An anchor named again inside (the latest
 * wins) and an alias to a node that has ended are fine.
 */
static void test_alias_cycle(void **state)
{
	static const char *const cycles[][2] = {
		{ "a: &c {x: *c}\n", "t.yaml:1: invalid YAML: alias *c is "
		  "inside the node it names (&c on line 1), a cycle: kubectl "
		  "refuses the document (\"anchor 'c' value contains "
		  "itself\"); an alias must name a node that ends before "
		  "it\n" },
		{ "a: &c [1, *c]\n", ":1: invalid YAML: alias *c" },
		{ "a: &c {*c : 1}\n", ":1: invalid YAML: alias *c" },
		{ "a: &c\n  b:\n    - [*c]\n", ":3: invalid YAML: alias *c "
		  "is inside the node it names (&c on line 1)" },
		{ "s: &s {<<: *s}\n", ":1: invalid YAML: alias *s" },
		{ "s: &s {<<: [{x: 1}, *s]}\n", ":1: invalid YAML: alias *s" },
	};
	char y[256], want[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cycles) / sizeof(cycles[0]); i++)
		check_read(cycles[i][0], YDOC_EYAML, 0, cycles[i][1]);
	/* a long name is cut where it is shown */
	snprintf(y, sizeof(y), "a: &%080d [*%080d]\n", 7, 7);
	snprintf(want, sizeof(want), "alias *%060d... is inside", 0);
	check_read(y, YDOC_EYAML, 0, want);
	check_read("a: 1\n---\nb: &b [*b]\n", YDOC_EYAML, 1,
		   ":3: invalid YAML: alias *b");
	check_read("a: &c {x: &c 1, y: *c}\nb: &d {}\nc: &e [*d, *d]\n",
		   YDOC_OK, 1, NULL);
}

/* printf() to buf (cap bytes) at *len; it must fit. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void put(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *len, cap - *len, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < cap - *len);
	*len += (size_t)n;
}

/* ymap_get_merged() finds key in root's map name with the text want
 * (NULL: finds nothing). */
static void check_merged(const struct ydoc *d, const char *name,
			 const char *key, const char *want)
{
	const struct ynode *map = ymap_get(d, &d->nodes[0], name, NULL);
	const char *got;

	assert_non_null(map);
	got = ytext(ymap_get_merged(d, map, key, NULL));
	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got, want);
}

/* ydoc_report_fn: counts the reports, keeps the last. */
struct reports {
	int n;
	unsigned long line;
	char msg[YDOC_MSG_MAX];
};

static void count_report(void *arg, unsigned long line, const char *msg)
{
	struct reports *r = arg;

	r->n++;
	r->line = line;
	snprintf(r->msg, sizeof(r->msg), "%s", msg);
}

/* ydoc_md_collect() on root's map name, a trigger. */
static void collect(const struct ydoc *d, const char *name,
		    struct ydoc_md *md, struct reports *r)
{
	const struct ynode *trig = ymap_get(d, &d->nodes[0], name, NULL);
	unsigned long line = 0;

	assert_non_null(trig);
	memset(md, 0, sizeof(*md));
	memset(r, 0, sizeof(*r));
	assert_int_equal(ydoc_md_collect(d, trig, md, &line, count_report, r),
			 0);
}

/* ydoc_md_collect() on root's map name, a trigger, gathers keys
 * (NULL-terminated) in order, and tells n problems, the last one's message
 * containing msg (when not NULL) at line. */
static void check_md(const struct ydoc *d, const char *name,
		     const char *const *keys, int n, const char *msg,
		     unsigned long line)
{
	struct ydoc_md md;
	struct reports r;
	size_t i;

	collect(d, name, &md, &r);
	assert_int_equal(r.n, n);
	if (msg) {
		check_contains(r.msg, msg);
		assert_int_equal(r.line, line);
	}
	for (i = 0; keys[i]; i++) {
		assert_true(i < md.n);
		assert_string_equal(md.keys[i], keys[i]);
	}
	assert_int_equal(md.n, i);
	ydoc_md_release(&md);
}

/* key's value in md, which must have it. */
static const char *md_value(const struct ydoc_md *md, const char *key)
{
	size_t i = ydoc_md_find(md, key);

	assert_true(i < md->n);
	return md->values[i];
}

/* Trigger metadata under a tag go-yaml decodes to a string: that string
 * (`!!binary aGk=` "hi", `!!timestamp 2001-12-14` its text), no report;
 * a !!binary that is not base64 is refused, told by ydoc_check(), not
 * here. */
static void test_md_go_string(void **state)
{
	static const char y[] =
		"t: {metadata: {x: !!binary aGk=, y: !!timestamp 2001-12-14, "
		"z: !!binary aGk}}\n";
	struct ydoc *d = read_one(y, sizeof(y) - 1);
	struct ydoc_md md;
	struct reports r;

	(void)state;
	collect(d, "t", &md, &r);
	assert_int_equal(r.n, 0);
	assert_string_equal(md_value(&md, "x"), "hi");
	assert_string_equal(md_value(&md, "y"), "2001-12-14");
	/* z: refused (md.bad), told by ydoc_check() alone (r.n 0) */
	assert_int_equal(md.bad, 1);
	ydoc_md_release(&md);
	ydoc_free(d);
}

/* What ymap_each_merged() tells: "key=value" or "key=value~" (not kept),
 * comma-separated, into a buffer; stop after n pairs (0: never). */
struct told {
	char buf[512];
	size_t len;
	int n, stop;
};

static int tell(void *arg, const struct ynode *key, const struct ynode *value,
		int kept)
{
	struct told *t = arg;

	put(t->buf, sizeof(t->buf), &t->len, "%s%s=%s%s", t->len ? "," : "",
	    ytext(key), ytext(value) ? ytext(value) : "?", kept ? "" : "~");
	return ++t->n == t->stop ? 7 : 0;
}

/* ymap_each_merged() on root's map name tells want, and returns rc. */
static void check_each(const struct ydoc *d, const char *name, int stop,
		       const char *want, int rc)
{
	struct told t;

	memset(&t, 0, sizeof(t));
	t.stop = stop;
	assert_int_equal(ymap_each_merged(d, ymap_get(d, &d->nodes[0], name,
						      NULL), tell, &t), rc);
	assert_string_equal(t.buf, want);
}

/* Merges nested, in lists (the first map wins; the map's own key before
 * any merged), of one map twice in a list, and YDOC_MERGE_DEPTH deep:
 * the value go-yaml reads, and each merged map's pairs once (as
 * ydoc_md_collect() gathers them and ymap_each_merged() tells them). */
static void test_merge_shapes(void **state)
{
	static const char y[] =
		"a: &a {x: ax, w: aw}\n"
		"b: &b {<<: *a, y: by, w: bw}\n"
		"c: {<<: *b, z: cz}\n"
		"l: {<<: [{k: first}, *b, {k: second, v: lv}]}\n"
		"o: {<<: {m: merged}, m: own}\n"
		"s: &s {<<: [&q {p: sp}, *q, {q: sq}], p: sp}\n"
		"n: {<<: [1, [], *a]}\n"
		"d9: &d9 {k9: \"9\"}\n"
		"d8: &d8 {<<: *d9, k8: \"8\"}\n"           /* line 9 */
		"d7: &d7 {<<: *d8, k7: \"7\"}\n"
		"d6: &d6 {<<: *d7}\n"
		"d5: &d5 {<<: *d6}\n"
		"d4: &d4 {<<: *d5}\n"
		"d3: &d3 {<<: *d4}\n"
		"d2: &d2 {<<: *d3}\n"
		"d1: &d1 {<<: *d2}\n"
		"d0: &d0 {<<: *d1, k0: \"0\"}\n"
		"t: {metadata: {<<: [*s, *b, *s], w: own}}\n"
		"u: {metadata: *d0}\n";
	/* map, key, the value found (NULL: none) */
	static const char *const want[][3] = {
		{ "c", "z", "cz" }, { "c", "y", "by" }, { "c", "x", "ax" },
		{ "c", "w", "bw" }, { "c", "nope", NULL },
		{ "l", "k", "first" }, { "l", "w", "bw" }, { "l", "x", "ax" },
		{ "l", "v", "lv" }, { "o", "m", "own" },
		{ "s", "p", "sp" }, { "s", "q", "sq" }, { "s", "nope", NULL },
		{ "n", "x", "ax" }, { "n", "nope", NULL },
		/* from d0, d8 is YDOC_MERGE_DEPTH (8) merges deep: its keys
		 * are found, its own merge is not followed */
		{ "d0", "k0", "0" }, { "d0", "k7", "7" }, { "d0", "k8", "8" },
		{ "d0", "k9", NULL }, { "d1", "k9", "9" },
	};
	struct ydoc *d = read_one(y, sizeof(y) - 1);
	const struct ynode *a = ymap_get(d, &d->nodes[0], "a", NULL);
	size_t i;

	(void)state;
	assert_int_equal(YDOC_MERGE_DEPTH, 8);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		check_merged(d, want[i][0], want[i][1], want[i][2]);
	assert_null(ymap_get_merged(d, NULL, "x", NULL));
	assert_null(ymap_get_merged(d, ymap_get(d, a, "x", NULL), "x", NULL));

	/* ymap_each_merged() tells the merged pairs in the same order, each
	 * kept where ymap_get_merged() finds it (~: not kept) */
	check_each(d, "c", 0, "y=by,w=bw,x=ax,w=aw~", 0);
	check_each(d, "l", 0, "k=first,y=by,w=bw,x=ax,w=aw~,k=second~,v=lv",
		   0);
	check_each(d, "o", 0, "m=merged~", 0);
	check_each(d, "s", 0, "p=sp~,q=sq", 0);
	check_each(d, "n", 0, "x=ax,w=aw", 0);
	check_each(d, "d0", 0, "k7=7,k8=8", 0);
	check_each(d, "a", 0, "", 0);

	/* the map's own pairs first (its w, not b's), then the merged ones
	 * in order, each merged map's once (s is merged twice, q four
	 * times) */
	check_md(d, "t", (const char *const[]){ "w", "p", "q", "y", "x",
						 NULL }, 0, NULL, 0);
	/* d8's merge, one too deep, is told once, at its line */
	check_md(d, "u", (const char *const[]){ "k0", "k7", "k8", NULL }, 1,
		 "nest more than 8 deep", 9);
	ydoc_free(d);
}

/*
 * Many merges: a map merged 30 times at each of 8 levels (30^7 searches,
 * were a map searched each time it is merged), and 240
 * distinct maps in 6 levels, each merging four of the level below, all
 * merged by one map (more than a walk's first marks hold).
 * Every lookup finds its value, and every map is searched once: its pairs
 * gathered once, its key that is not a string told once.
 */
static void test_merge_many(void **state)
{
	enum { FAN = 30, BOMB = 8, LEVELS = 6, WIDE = 40, CAP = 64 << 10 };
	char *y = malloc(CAP), key[32], want[32];
	struct ydoc *d;
	struct ydoc_md md;
	struct reports r;
	size_t len = 0;
	int l, i, j;

	(void)state;
	assert_non_null(y);
	put(y, CAP, &len, "m0: &m0 {zz: \"1\", bad: 1.5}\n");
	for (l = 1; l < BOMB; l++) {
		put(y, CAP, &len, "m%d: &m%d {<<: [*m%d", l, l, l - 1);
		for (j = 1; j < FAN; j++)
			put(y, CAP, &len, ", *m%d", l - 1);
		put(y, CAP, &len, "]%s}\n", l == BOMB - 1 ? ", top: t" : "");
	}
	put(y, CAP, &len, "bomb: {metadata: {<<: *m%d, own: o}}\n", BOMB - 1);
	for (l = 0; l < LEVELS; l++) {
		for (i = 0; i < WIDE; i++) {
			put(y, CAP, &len, "x%d_%d: &x%d_%d {v%d_%d: \"%d.%d\", "
			    "w: \"%d.%d\"", l, i, l, i, l, i, l, i, l, i);
			if (l == 0)   /* told each time its map is searched */
				put(y, CAP, &len, ", \"k\\0\": x");
			else
				put(y, CAP, &len, ", <<: [*x%d_%d, *x%d_%d, "
				    "*x%d_%d, *x%d_%d]", l - 1, i, l - 1,
				    (i + 2) % WIDE, l - 1, (i + 1) % WIDE,
				    l - 1, (i * 7 + 3) % WIDE);
			put(y, CAP, &len, "}\n");
		}
	}
	put(y, CAP, &len, "all: &all {<<: [*x%d_0", LEVELS - 1);
	for (i = 1; i < WIDE; i++)
		put(y, CAP, &len, ", *x%d_%d", LEVELS - 1, i);
	put(y, CAP, &len, "]}\nwide: {metadata: *all}\n");
	d = read_one(y, len);

	check_merged(d, "m7", "top", "t");
	check_merged(d, "m7", "zz", "1");
	check_merged(d, "m7", "nope", NULL);
	/* bad, merged 30^7 times, told once */
	check_md(d, "bomb", (const char *const[]){ "own", "top", "zz", "bad",
						    NULL }, 1,
		 "metadata 'bad': 1.5 must be a quoted string", 1);

	check_merged(d, "all", "w", "5.0");
	check_merged(d, "all", "nope", NULL);
	collect(d, "wide", &md, &r);
	assert_int_equal(r.n, WIDE);
	check_contains(r.msg, "a key that is not a plain string");
	assert_int_equal(md.n, LEVELS * WIDE + 1);
	assert_string_equal(md_value(&md, "w"), "5.0");
	for (l = 0; l < LEVELS; l++) {
		for (i = 0; i < WIDE; i++) {
			snprintf(key, sizeof(key), "v%d_%d", l, i);
			snprintf(want, sizeof(want), "%d.%d", l, i);
			check_merged(d, "all", key, want);
			assert_string_equal(md_value(&md, key), want);
		}
	}
	ydoc_md_release(&md);
	ydoc_free(d);
	free(y);
}

/* ymap_get_merged()'s key node is the merged map's, and a key it does not
 * find leaves *keynode alone. */
static void test_merge_keynode(void **state)
{
	static const char y[] =
		"a: &a {x: ax}\n"
		"b: {<<: [{y: by}, *a],\n"
		"    z: bz}\n";
	struct ydoc *d = read_one(y, sizeof(y) - 1);
	const struct ynode *b = ymap_get(d, &d->nodes[0], "b", NULL);
	const struct ynode *k = NULL;

	(void)state;
	assert_string_equal(ytext(ymap_get_merged(d, b, "x", &k)), "ax");
	assert_string_equal(ytext(k), "x");
	assert_int_equal(k->line, 1);
	assert_string_equal(ytext(ymap_get_merged(d, b, "z", &k)), "bz");
	assert_int_equal(k->line, 3);
	assert_null(ymap_get_merged(d, b, "nope", &k));
	assert_string_equal(ytext(k), "z");
	ydoc_free(d);
}

/* ymap_each_merged() beyond test_merge_shapes: a key the map gives itself
 * is not kept, keys that are not scalars are not told, what is not a map
 * merges nothing, and fn's nonzero stops the walk and is returned. */
static void test_merge_each(void **state)
{
	static const char y[] =
		"a: &a {x: ax, w: aw}\n"
		"c: {<<: *a, x: cx}\n"
		"n: {<<: [{[1]: v, ? {m: 1} : v, k: nk}, 2, [j, jv]], <<: 3}\n"
		"e: {}\n"
		"l: {<<: [*a, {k: lk}]}\n";
	struct ydoc *d = read_one(y, sizeof(y) - 1);

	(void)state;
	check_each(d, "c", 0, "x=ax~,w=aw", 0);
	check_each(d, "n", 0, "k=nk", 0);
	check_each(d, "e", 0, "", 0);
	check_each(d, "l", 0, "x=ax,w=aw,k=lk", 0);
	check_each(d, "l", 2, "x=ax,w=aw", 7);
	assert_int_equal(ymap_each_merged(d, NULL, tell, NULL), 0);
	ydoc_free(d);
}

/* ymap_pair_fn: counts the pairs told and those kept. */
struct kept_count {
	int n, kept;
};

static int count_kept(void *arg, const struct ynode *key,
		      const struct ynode *value, int kept)
{
	struct kept_count *c = arg;

	c->n++;
	c->kept += kept;
	return 0;
}

/* More keys than a walk's first marks hold: a merged map of 200 keys, 100
 * of which the map gives itself, and a second merged map repeating all;
 * each told once, kept as ymap_get_merged() finds it. */
static void test_merge_each_many(void **state)
{
	enum { KEYS = 200, CAP = 16 << 10 };
	char *y = malloc(CAP), key[16];
	struct ydoc *d;
	const struct ynode *m, *v;
	struct kept_count c;
	size_t len = 0;
	int i;

	(void)state;
	assert_non_null(y);
	put(y, CAP, &len, "a: &a {");
	for (i = 0; i < KEYS; i++)
		put(y, CAP, &len, "%sk%d: a%d", i ? ", " : "", i, i);
	put(y, CAP, &len, "}\nm: {<<: [*a, {");
	for (i = 0; i < KEYS; i++)
		put(y, CAP, &len, "%sk%d: b%d", i ? ", " : "", i, i);
	put(y, CAP, &len, "}]");
	for (i = 0; i < KEYS; i += 2)
		put(y, CAP, &len, ", k%d: own%d", i, i);
	put(y, CAP, &len, "}\n");
	d = read_one(y, len);
	m = ymap_get(d, &d->nodes[0], "m", NULL);
	memset(&c, 0, sizeof(c));
	assert_int_equal(ymap_each_merged(d, m, count_kept, &c), 0);
	assert_int_equal(c.n, 2 * KEYS);
	assert_int_equal(c.kept, KEYS / 2);
	for (i = 0; i < KEYS; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		v = ymap_get_merged(d, m, key, NULL);
		assert_non_null(v);
		assert_int_equal(v->text[0], i % 2 ? 'a' : 'o');
	}
	ydoc_free(d);
	free(y);
}

/* ymerge_bad_fn: "LINE:ITEM:VALUE" for each `<<` told (VALUE "?" when
 * not a scalar), comma-separated; stop after n (0: never). */
static int tell_bad(void *arg, const struct ynode *key,
		    const struct ynode *bad, long item)
{
	struct told *t = arg;

	put(t->buf, sizeof(t->buf), &t->len, "%s%u:%ld:%s", t->len ? "," : "",
	    key->line, item, ytext(bad) ? ytext(bad) : "?");
	return ++t->n == t->stop ? 7 : 0;
}

/* ymap_each_bad_merge() on root's map name tells want, and returns rc. */
static void check_bad(const struct ydoc *d, const char *name, int stop,
		      const char *want, int rc)
{
	struct told t;

	memset(&t, 0, sizeof(t));
	t.stop = stop;
	assert_int_equal(ymap_each_bad_merge(d, ymap_get(d, &d->nodes[0], name,
							 NULL), tell_bad, &t),
			 rc);
	assert_string_equal(t.buf, want);
}

/*
 * The merges go-yaml v2 refuses ("map merge requires map or sequence of
 * maps as the value"): a value that is not a map or a list (a scalar, a
 * null, an alias to one), a list with an item that is not a map (told
 * once, with its first such item), in the map and in the maps it merges
 * (each once, a map merged twice too); an empty list
 * and maps are fine.  ydoc_md_collect() tells them once a `<<` too.
 * A list is fine written in place, not through an alias (go-yaml's
 * merge()), even an empty one or one that merged where it was written:
 * that alias is a node of its own, flagged YN_ALIAS, at its line, whose
 * maps are still merged; an alias to a list elsewhere is the list.
 */
static void test_merge_bad(void **state)
{
	static const char y[] =
		"s: &s five\n"
		"a: {<<: 5, x: 1}\n"
		"n: {<<: ~}\n"
		"l: {<<: [{x: 1}, *s, 2]}\n"
		"k: {<<: [[], {y: 1}]}\n"
		"e: {<<: [], x: 1}\n"
		"m: &m {<<: {x: 1}}\n"
		"b: &b {<<: *s}\n"                     /* line 8 */
		"c: {<<: [*b, *m, *b], z: {<<: 1}}\n"
		"o: {<<: [*m, 3]}\n"
		"two: {<<: 1, <<: [2]}\n"
		"t: {metadata: {<<: [{k: v}, 1, 2], <<: *s, j: w}}\n"
		"L: &L [{x: 1}, *m]\n"                 /* line 13 */
		"al: {<<: *L}\n"
		"ok: {<<: &K [{x: \"2\"}], v: *L}\n"
		"ak: {<<: *K,\n"
		"     y: 1}\n"
		"in: {<<: [*L]}\n"
		"E: &E []\n"
		"ae: {<<: *E}\n"
		"am: {metadata: {<<: *K, j: w}}\n";
	struct ydoc *d = read_one(y, sizeof(y) - 1);
	const struct ynode *L, *v;
	struct ydoc_md md;
	struct reports r;

	(void)state;
	check_bad(d, "a", 0, "2:-1:5", 0);
	check_bad(d, "n", 0, "3:-1:~", 0);
	check_bad(d, "l", 0, "4:1:five", 0);
	check_bad(d, "k", 0, "5:0:?", 0);
	check_bad(d, "e", 0, "", 0);
	check_bad(d, "m", 0, "", 0);
	check_bad(d, "b", 0, "8:-1:five", 0);
	/* b's, merged twice, told once; z's is not in c's merges */
	check_bad(d, "c", 0, "8:-1:five", 0);
	check_bad(d, "o", 0, "10:1:3", 0);
	check_bad(d, "two", 0, "11:-1:1,11:0:2", 0);
	check_bad(d, "two", 1, "11:-1:1", 7);
	assert_int_equal(ymap_each_bad_merge(d, NULL, tell_bad, NULL), 0);
	assert_int_equal(ymap_each_bad_merge(d, ymap_get(d, &d->nodes[0], "s",
							 NULL), tell_bad, NULL),
			 0);
	/* the metadata's: once a `<<`, its maps merged all the same */
	collect(d, "t", &md, &r);
	assert_int_equal(r.n, 2);
	check_contains(r.msg, "metadata '<<' must merge a map or a list of "
		       "maps");
	assert_int_equal(r.line, 12);
	assert_true(md.bad);
	assert_int_equal(md.n, 2);
	assert_string_equal(md_value(&md, "k"), "v");
	ydoc_md_release(&md);

	check_bad(d, "al", 0, "14:-1:?", 0);
	check_bad(d, "ok", 0, "", 0);
	check_bad(d, "ak", 0, "16:-1:?", 0);
	check_bad(d, "in", 0, "18:0:?", 0);
	check_bad(d, "ae", 0, "20:-1:?", 0);
	L = ymap_get(d, &d->nodes[0], "L", NULL);
	v = ymap_get(d, ymap_get(d, &d->nodes[0], "al", NULL), "<<", NULL);
	assert_int_equal(v->kind, YN_SEQ);
	assert_int_equal(v->flags, YN_ALIAS);
	assert_int_equal(v->line, 14);
	assert_int_equal(v->n_kids, 2);
	assert_ptr_equal(v->kids, L->kids);
	assert_int_equal(L->flags, 0);
	assert_ptr_equal(ymap_get(d, ymap_get(d, &d->nodes[0], "ok", NULL),
				  "v", NULL), L);
	assert_ptr_equal(kid(d, ymap_get(d, ymap_get(d, &d->nodes[0], "in",
						     NULL), "<<", NULL), 0), L);
	check_merged(d, "al", "x", "1");
	check_merged(d, "ak", "x", "2");
	collect(d, "am", &md, &r);
	assert_int_equal(r.n, 1);
	check_contains(r.msg, "metadata '<<' must merge a map or a list of "
		       "maps written in place, not an alias to a list");
	assert_int_equal(r.line, 21);
	assert_int_equal(md.n, 2);
	assert_string_equal(md_value(&md, "x"), "2");
	ydoc_md_release(&md);
	ydoc_free(d);
}

/*
 * The merge keys go-yaml takes (decode.go's isMerge()): `<<` plain, or
 * tagged !!merge (quoted too), or tagged "!" (quoted too); not `<<`
 * quoted and untagged, tagged !!str, another text tagged !!merge, nor an
 * alias to a merge key (a string key of its own, at its line).  A
 * tagged one merges, and is told when its value is not a map, as a plain
 * one; as a value it is the text `<<`, untagged (ytag() NULL).
 */
static void test_merge_tags(void **state)
{
	static const char y[] =
		"a: {!!merge <<: {x: ax}}\n"
		"b: {!!merge \"<<\": {x: bx}}\n"
		"c: {! <<: {x: cx}}\n"
		"d: {! '<<': {x: dx}}\n"
		"e: {!<tag:yaml.org,2002:merge> <<: {x: ex}}\n"
		"q: {\"<<\": {x: qx}}\n"
		"s: {!!str <<: {x: sx}}\n"
		"f: {!!merge foo: {x: fx}}\n"
		"bad: {!!merge <<: 5}\n"                /* line 9 */
		"v: !!merge <<\n"
		"ka: {&k <<: {x: kx}}\n"
		"kb: {*k : {x: kbx}}\n";
	static const char *const merges[] = { "a", "b", "c", "d", "e" };
	static const char *const not_merges[] = { "q", "s", "f", "kb" };
	const struct ynode *root, *v, *k = NULL;
	struct ydoc *d = read_one(y, sizeof(y) - 1);
	char want[8];
	size_t i;

	(void)state;
	root = &d->nodes[0];
	for (i = 0; i < sizeof(merges) / sizeof(merges[0]); i++) {
		snprintf(want, sizeof(want), "%sx", merges[i]);
		check_merged(d, merges[i], "x", want);
		assert_int_equal(kid(d, ymap_get(d, root, merges[i], NULL),
				     0)->type, YT_MERGE);
	}
	for (i = 0; i < sizeof(not_merges) / sizeof(not_merges[0]); i++) {
		check_merged(d, not_merges[i], "x", NULL);
		assert_int_not_equal(kid(d, ymap_get(d, root, not_merges[i],
						     NULL), 0)->type,
				     YT_MERGE);
	}
	/* !!merge over another text: go-yaml's string "foo" */
	assert_int_equal(kid(d, ymap_get(d, root, "f", NULL), 0)->type,
			 YT_STR);
	check_bad(d, "bad", 0, "9:-1:5", 0);
	v = ymap_get(d, root, "v", NULL);
	assert_int_equal(v->type, YT_MERGE);
	assert_string_equal(ytext(v), "<<");
	assert_null(ytag(v));
	check_merged(d, "ka", "x", "kx");
	v = ymap_get(d, ymap_get(d, root, "kb", NULL), "<<", &k);
	assert_non_null(v);
	assert_string_equal(ytext(ymap_get(d, v, "x", NULL)), "kbx");
	assert_int_equal(k->type, YT_STR);
	assert_int_equal(k->line, 12);
	assert_ptr_equal(k->text, kid(d, ymap_get(d, root, "ka", NULL),
				      0)->text);
	assert_int_equal(kid(d, ymap_get(d, root, "ka", NULL), 0)->type,
			 YT_MERGE);
	ydoc_free(d);
}

/*
 * ydoc_md_find() past YDOC_MD_SCAN keys looks in a hash (a scan made a
 * metadata map of 100,000 keys quadratic): every key of a map of many,
 * merged ones too, found at its index; a key not there is md->n; a key
 * given again is told with the line of the first, however late.
 */
static void test_md_many(void **state)
{
	enum { KEYS = 3000, CAP = 128 << 10 };
	char *y = malloc(CAP), key[32];
	struct ydoc *d;
	struct ydoc_md md;
	struct reports r;
	size_t len = 0, i;

	(void)state;
	assert_non_null(y);
	put(y, CAP, &len, "b: &b {m0: x, k7: merged}\nt:\n  metadata:\n");
	for (i = 0; i < KEYS; i++)
		put(y, CAP, &len, "    k%zu: v%zu\n", i, i);
	/* line 4 + KEYS, given again; then the merge (the first wins) */
	put(y, CAP, &len, "    k%d: again\n    <<: *b\n", KEYS - 1);
	d = read_one(y, len);
	collect(d, "t", &md, &r);
	assert_int_equal(r.n, 1);
	check_contains(r.msg, "is given twice (first on line ");
	snprintf(key, sizeof(key), "line %d)", 3 + KEYS);
	check_contains(r.msg, key);
	assert_int_equal(r.line, 4 + KEYS);
	assert_int_equal(md.n, KEYS + 1);
	assert_non_null(md.index);
	for (i = 0; i < KEYS; i++) {
		snprintf(key, sizeof(key), "k%zu", i);
		assert_int_equal(ydoc_md_find(&md, key), i);
	}
	assert_string_equal(md_value(&md, "k7"), "v7");
	assert_string_equal(md_value(&md, "m0"), "x");
	assert_int_equal(ydoc_md_find(&md, "m0"), KEYS);
	assert_int_equal(ydoc_md_find(&md, "nope"), md.n);
	assert_int_equal(ydoc_md_find(&md, ""), md.n);
	ydoc_md_release(&md);

	/* a few keys: scanned, no index */
	collect(d, "b", &md, &r);
	assert_int_equal(md.n, 0);
	ydoc_md_release(&md);
	ydoc_free(d);
	free(y);
}

/* ydoc_object_fn: "WHO:N:EA" for each trigger N of obj, E and A whether
 * it is external, and external with "staffer" in its scalerAddress. */
static int each_who(void *arg, const struct ydoc *d, const struct ynode *obj)
{
	struct told *t = arg;
	char who[YDOC_WHO_MAX];
	const struct ynode *trs, *tr;
	size_t i;

	ydoc_who(d, obj, who, sizeof(who));
	trs = ymap_get_merged(d, ymap_get_merged(d, obj, "spec", NULL),
			      "triggers", NULL);
	for (i = 0; trs && i < trs->n_kids; i++) {
		tr = &d->nodes[trs->kids[i]];
		put(t->buf, sizeof(t->buf), &t->len, "%s%s:%zu:%d%d",
		    t->len ? "," : "", who, i, ydoc_is_external(d, tr, NULL),
		    ydoc_is_external(d, tr, "staffer"));
	}
	return 0;
}

/* The ScaledObject functions read what kubectl reads through `<<`: a List
 * whose kind and items are merged in, an object whose kind, name and
 * namespace are, a trigger whose type and metadata (and scalerAddress)
 * are; the first merged type wins. */
static void test_merge_objects(void **state)
{
	static const char y[] =
		"x: &t {type: external, metadata: {<<: {scalerAddress: "
		"staffer:9090}}}\n"
		"y: &o {<<: {kind: ScaledObject, metadata: {name: a, "
		"namespace: n}}, spec: {triggers: [{<<: *t}, {<<: [{type: "
		"cpu}, *t]}, {type: external, <<: {metadata: {scalerAddress: "
		"other}}}]}}\n"
		"z: &p {<<: *o, metadata: {<<: {name: b}}}\n"
		"<<: {kind: List, items: [*o, *p]}\n";
	struct ydoc *d = read_one(y, sizeof(y) - 1);
	struct told t;

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_int_equal(ydoc_each_scaledobject(d, each_who, &t), 0);
	assert_string_equal(t.buf, "n/a:0:11,n/a:1:00,n/a:2:10,"
			    "b:0:11,b:1:00,b:2:10");
	ydoc_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_plain_types),
		cmocka_unit_test(test_alias),
		cmocka_unit_test(test_alias_cycle),
		cmocka_unit_test(test_tag_nul),
		cmocka_unit_test(test_tag_unread),
		cmocka_unit_test(test_tag_go_string),
		cmocka_unit_test(test_md_go_string),
		cmocka_unit_test(test_arena),
		cmocka_unit_test(test_read_one),
		cmocka_unit_test(test_too_big),
		cmocka_unit_test(test_merge_shapes),
		cmocka_unit_test(test_merge_many),
		cmocka_unit_test(test_merge_keynode),
		cmocka_unit_test(test_merge_each),
		cmocka_unit_test(test_merge_each_many),
		cmocka_unit_test(test_merge_bad),
		cmocka_unit_test(test_merge_tags),
		cmocka_unit_test(test_md_many),
		cmocka_unit_test(test_merge_objects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
