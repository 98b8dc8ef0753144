/*
 * test_ycheck.c - ycheck.h's judgement of a whole document as go-yaml
 * decodes it (ydoc_check()): the `<<`s it refuses, anywhere, told once
 * and not in the objects the caller claims; go-yaml's bound on aliases,
 * counted without expanding them; keys that are lists or maps and tags
 * that do not fit their text; what sigs.k8s.io/yaml's YAMLToJSON refuses
 * once go-yaml has read the document (ydoc_json_key(),
 * ydoc_json_value()), told where go-yaml keeps it, keys compared as its
 * Go values; and where the decoder stops.  Moved from test_ydoc.c, which
 * keeps ydoc.c's reader (and ydoc_tag_refused() with the !!timestamp
 * and !!binary strings it reads).
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

/* Findings, comma-separated, into a buffer (test_ydoc.c's struct told,
 * where n and stop bound ymap_each_merged()'s pairs; unused here). */
struct told {
	char buf[512];
	size_t len;
	int n, stop;
};

/* ydoc_checked_fn: claims the objects of kind B. */
static int claim_b(void *arg, const struct ydoc *d, const struct ynode *obj)
{
	const char *kind = ytext(ymap_get_merged(d, obj, "kind", NULL));

	(void)arg;
	return kind && !strcmp(kind, "B");
}

/* What ydoc_check() tells, and the document it is told of. */
struct check_told {
	struct told t;
	const struct ydoc *d;
};

/* ydoc_merge_fn: "LINE:KIND:PATH:ITEM:VALUE" for each `<<` told (KIND
 * "-" for none, VALUE "?" when not a scalar). */
static void check_tell(void *arg, const struct ydoc_at *at,
		       const struct ynode *key, const struct ynode *bad,
		       long item)
{
	struct check_told *c = arg;
	const char *kind = ytext(ymap_get(c->d, at->obj, "kind", NULL));

	assert_int_equal(at->line, key->line);
	put(c->t.buf, sizeof(c->t.buf), &c->t.len, "%s%lu:%s:%s:%ld:%s",
	    c->t.len ? "," : "", at->line, kind ? kind : "-", at->path, item,
	    ytext(bad) ? ytext(bad) : "?");
}

/* ydoc_check() on text tells want, with claim_b() (claim) or no
 * checked_fn. */
static void check_doc(const char *text, int claim, const char *want)
{
	struct ydoc *d = read_one(text, strlen(text));
	struct check_told c;
	struct ydoc_check_fns fns = { claim ? claim_b : NULL, check_tell,
				      NULL, NULL, &c };

	memset(&c, 0, sizeof(c));
	c.d = d;
	assert_int_equal(ydoc_check(d, &fns), 0);
	assert_string_equal(c.t.buf, want);
	ydoc_free(d);
}

/*
 * ydoc_check(): each `<<` go-yaml refuses, anywhere in the document, is
 * told once, where its map is written (a map that aliases repeat once;
 * an object of a List written outside its items, where it is written),
 * with the object it is in (the root, or an item of a List root; the
 * List itself outside them) and the path from it (what a `<<` merges at
 * its map's path); none in an object the caller claims.  An alias to a
 * list as a `<<`'s value is told (its YN_ALIAS node); the list where it
 * is written is fine.
 */
static void test_check_merges(void **state)
{
	static const char list[] =
		"kind: List\n"
		"metadata: {<<: 5}\n"
		"x: &o {kind: A, spec: {<<: [{}, [1]], s: *o2}}\n"
		"items:\n"
		"  - *o\n"
		"  - &p {kind: B, a: {<<: 1}}\n"         /* line 6 */
		"  - {kind: C, <<: {m: {n: [{<<: ~}]}}}\n"
		"  - *p\n"
		"  - {kind: D, l: &L [{}], z: {<<: *L}}\n"
		"  - [{<<: x}]\n"                        /* line 10 */
		"  - {kind: E, <<: *p}\n";
	char buf[512];

	(void)state;
	snprintf(buf, sizeof(buf), "o2: &o2 {<<: [{}]}\n%s", list);
	/* each line one more: o2's first; B claimed, its `<<: 1` not told
	 * (E merges p in: told where p is written, nowhere else) */
	check_doc(buf, 1, "3:List:metadata:-1:5,"
		  "4:A:spec:1:?,"
		  "8:C:m.n[0]:-1:~,"
		  "10:D:z:-1:?,"
		  "11:List:items[5][0]:-1:x");
	/* unclaimed, B's too */
	check_doc(buf, 0, "3:List:metadata:-1:5,"
		  "4:A:spec:1:?,"
		  "7:B:a:-1:1,"
		  "8:C:m.n[0]:-1:~,"
		  "10:D:z:-1:?,"
		  "11:List:items[5][0]:-1:x");
	/* one level of List: a List in it is one object */
	check_doc("kind: List\nitems: [{kind: List, items: [{<<: 1}]}]\n", 0,
		  "2:List:items[0]:-1:1");
	/* no List: the root is the object, claimed or not */
	check_doc("kind: B\na: {b: [{<<: 2}, 3]}\n", 0, "2:B:a.b[0]:-1:2");
	check_doc("kind: B\na: {b: [{<<: 2}, 3]}\n", 1, "");
	check_doc("- {<<: [{}, 2]}\n- &k \"<<\"\n", 0, "1:-:[0]:1:2");
	/* a key merges nothing as an alias: `*k : 3` is a field */
	check_doc("a: &k <<\nb: {*k : 3}\n", 0, "");
}

/* ydoc_aliasing_fn: "LINE:PATH:ALIASED:DECODED:ANCHOR" (ANCHOR "-" for a
 * value written in place, "*" for an alias without a name); told once. */
static void check_aliasing(void *arg, const struct ydoc_at *at,
			   const struct ydoc_aliasing *x)
{
	struct check_told *c = arg;

	assert_int_equal(c->t.len, 0);
	assert_true(x->aliased > x->allowed * (double)x->decoded);
	put(c->t.buf, sizeof(c->t.buf), &c->t.len, "%lu:%s:%llu:%llu:%s",
	    at->line, at->path, (unsigned long long)x->aliased,
	    (unsigned long long)x->decoded, !x->alias ? "-" :
	    x->anchor ? x->anchor : "*");
}

/* ydoc_check() of the len bytes of text tells want about its aliases. */
static void check_alias_doc(const char *text, size_t len, const char *want)
{
	struct ydoc *d = read_one(text, len);
	struct check_told c;
	struct ydoc_check_fns fns = { NULL, NULL, check_aliasing, NULL, &c };

	memset(&c, 0, sizeof(c));
	c.d = d;
	assert_int_equal(ydoc_check(d, &fns), 0);
	assert_string_equal(c.t.buf, want);
	ydoc_free(d);
}

/* pre, then `p:` a list of p zeros, `a:` a list of 999 numbers and `b:`
 * 200 aliases of it, then post, into y (cap bytes); its length. */
static size_t bound_doc(char *y, size_t cap, const char *pre, int p,
			const char *post)
{
	size_t len = 0;
	int i;

	put(y, cap, &len, "%sp: [", pre);
	for (i = 0; i < p; i++)
		put(y, cap, &len, "%s0", i ? ", " : "");
	put(y, cap, &len, "]\na: &a [");
	for (i = 0; i < 999; i++)
		put(y, cap, &len, "%s%d", i ? ", " : "", i);
	put(y, cap, &len, "]\nb: [");
	for (i = 0; i < 200; i++)
		put(y, cap, &len, "%s*a", i ? ", " : "");
	put(y, cap, &len, "]\n%s", post);
	return len;
}

/*
 * go-yaml v2's bound on aliases ("document contains excessive
 * aliasing"), counted as its decoder counts, without expanding an
 * alias.  Each expectation is go-yaml v2.4.0's, through
 * yaml.Unmarshal() with its counts printed where it refuses: the values
 * decoded and those through aliases, at the first value past the bound
 * (inside the alias that passes it).
 */
static void test_check_aliasing(void **state)
{
	enum { CAP = 64 << 10 };
	char *y = malloc(CAP);
	size_t len;
	int i, j;

	(void)state;
	assert_non_null(y);
	/* one value written in place more keeps it within 99 % */
	len = bound_doc(y, CAP, "", 813, "");
	check_alias_doc(y, len, "3:b[199]:199981:202001:a");
	len = bound_doc(y, CAP, "", 814, "");
	check_alias_doc(y, len, "");
	/* an alias to a `<<` as a key is an alias and its scalar, two
	 * values, one aliased (counted as one value written in place, the
	 * 41 of them moved go-yaml's stop to the next alias, b[197]) */
	{
		char pre[1024];
		size_t n = 0;

		put(pre, sizeof(pre), &n, "z: &k <<\nq: [");
		for (i = 0; i < 41; i++)
			put(pre, sizeof(pre), &n, "%s{*k : %d}", i ? ", " : "",
			    i);
		put(pre, sizeof(pre), &n, "]\n");
		len = bound_doc(y, CAP, pre, 659, "");
		check_alias_doc(y, len, "5:b[196]:197011:199001:a");
		len = bound_doc(y, CAP, pre, 687, "");
		check_alias_doc(y, len, "");
	}
	/* the decoder stops at a `<<` it refuses, or a key that is a
	 * list, before the bound; not after it */
	len = bound_doc(y, CAP, "x: {<<: 1}\n", 813, "");
	check_alias_doc(y, len, "");
	len = bound_doc(y, CAP, "? [1]\n: 2\n", 813, "");
	check_alias_doc(y, len, "");
	len = bound_doc(y, CAP, "", 813, "x: {<<: 1}\n");
	check_alias_doc(y, len, "3:b[199]:199981:202001:a");
	/* a `<<` list's items are decoded last first: its 900 aliases
	 * before the map of 1,500 pairs written first in it, so the
	 * document is refused; the same map last is decoded first */
	for (j = 0; j < 2; j++) {
		len = 0;
		put(y, CAP, &len, "big: &big {");
		for (i = 0; i < 200; i++)
			put(y, CAP, &len, "%sk%d: 0", i ? ", " : "", i);
		put(y, CAP, &len, "}\nm: {<<: [");
		for (i = 0; i < 1500 && j == 0; i++)
			put(y, CAP, &len, "%sp%d: 0", i ? ", " : "{", i);
		put(y, CAP, &len, "%s", j == 0 ? "}, " : "");
		for (i = 0; i < 900; i++)
			put(y, CAP, &len, "%s*big", i ? ", " : "");
		for (i = 0; i < 1500 && j == 1; i++)
			put(y, CAP, &len, "%sp%d: 0", i ? ", " : ", {", i);
		put(y, CAP, &len, "%s]}\n", j == 1 ? "}" : "");
		check_alias_doc(y, len, j == 0 ? "2:m:53461:54001:big" : "");
	}
	/* ten levels of ten aliases: 10^10 values, counted in the time of
	 * the text */
	len = 0;
	put(y, CAP, &len, "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
	for (i = 1; i < 10; i++) {
		put(y, CAP, &len, "l%d: &l%d [", i, i);
		for (j = 0; j < 10; j++)
			put(y, CAP, &len, "%s*l%d", j ? ", " : "", i - 1);
		put(y, CAP, &len, "]\n");
	}
	check_alias_doc(y, len, "4:l3[2]:4258:4301:l2");
	/* no anchor, no alias: nothing to count */
	check_alias_doc("a: [1, 2]\n", 10, "");
	free(y);
}

/* What check_refused_doc() is told: aliases first (check_aliasing()'s
 * arg), refusals. */
struct refused_told {
	struct check_told a, r;
};

/* ydoc_refused_fn: "LINE:PATH:K:TAG:RESOLVED" for each node told (K "k"
 * for a key, else "v"; TAG and RESOLVED "-" and "list" or "map" for a key
 * that is a collection, "-" and JSON for what YAMLToJSON refuses,
 * "binary" and "base64" for a !!binary that is not base64). */
static void check_refused(void *arg, const struct ydoc_at *at,
			  const struct ydoc_refusal *x)
{
	struct check_told *c = &((struct refused_told *)arg)->r;

	put(c->t.buf, sizeof(c->t.buf), &c->t.len, "%s%lu:%s:%s:%s:%s",
	    c->t.len ? "," : "", at->line, at->path, x->key ? "k" : "v",
	    x->tag ? x->tag : "-", x->json ? x->json : x->resolved ?
	    x->resolved : x->base64 ? "base64" :
	    x->n->kind == YN_SEQ ? "list" : "map");
}

/* ydoc_check() of the len bytes of text tells want: its refusals, '|',
 * what it tells of its aliases. */
static void check_refused_doc(const char *text, size_t len,
			      const char *want)
{
	struct ydoc *d = read_one(text, len);
	struct refused_told c;
	struct ydoc_check_fns fns = { NULL, NULL, check_aliasing,
				      check_refused, &c };
	char both[1100];

	memset(&c, 0, sizeof(c));
	c.a.d = c.r.d = d;
	assert_int_equal(ydoc_check(d, &fns), 0);
	snprintf(both, sizeof(both), "%s|%s", c.r.t.buf, c.a.t.buf);
	assert_string_equal(both, want);
	ydoc_free(d);
}

/*
 * ydoc_check(): a key that is a list or a map ("invalid map key"), and a
 * scalar whose tag does not fit its text ("cannot decode !!str `x` as a
 * !!int"), told once where written.  Each case is go-yaml v2.4.0's, as
 * yaml.Unmarshal() and sigs.k8s.io/yaml's YAMLToJSON() take or refuse
 * it (a scalar key of another type is taken: made a string; a null key
 * YAMLToJSON() refuses, "Unsupported map key": test_check_json()).
 */
static void test_check_refused(void **state)
{
	/* text under tag, and what go-yaml's resolve() reads it as where
	 * that does not fit (NULL: taken) */
	static const struct {
		const char *tag, *text, *resolved;
	} tags[] = {
		{ "int", "x", "str" }, { "int", "09", "float" },
		{ "int", "0x1F", NULL }, { "int", "1_000", NULL },
		{ "int", "-0b11", NULL }, { "int", "0b-101", NULL },
		{ "int", "+0x_1F", NULL }, { "int", "5.0", "float" },
		{ "int", "99999999999999999999", "float" },
		{ "int", "\"12\"", NULL }, { "int", "\"\"", "null" },
		{ "float", "abc", "str" }, { "float", "5", NULL },
		{ "float", "9223372036854775807", NULL },
		{ "float", "9223372036854775808", "int" },
		{ "float", "-9223372036854775808", NULL },
		{ "float", "1e999", "str" }, { "float", "1e-999", NULL },
		{ "float", ".5_0", NULL }, { "float", "._5", "str" },
		{ "float", ".5__0", "str" }, { "float", "1_0.5", NULL },
		{ "float", "-.5", NULL }, { "float", "yes", "bool" },
		{ "bool", "maybe", "str" }, { "bool", "on", NULL },
		{ "bool", "~", "null" }, { "null", "5", "int" },
		{ "null", "~", NULL }, { "null", "\"\"", NULL },
		{ "timestamp", "x", "str" }, { "timestamp", "5", "int" },
		{ "timestamp", "2001-12-14", NULL },
		{ "timestamp", "2001-02-29", "str" },
		{ "timestamp", "2001-12-14T21:59:43", "str" },
		{ "timestamp", "\"2001-12-14 21:59:43.10 -5\"", "str" },
		{ "timestamp", "2001-12-14t21:59:43.10-05:00", NULL },
		{ "timestamp", "~", "null" },
		{ "str", "5", NULL }, { "binary", "aGk=", NULL },
		{ "binary", "aGk", "base64" }, { "binary", "\"aG k=\"", "base64" },
		{ "binary", "\"aG\\nk=\"", NULL }, { "binary", "\"\"", NULL },
		{ "merge", "x", NULL }, { "set", "5", NULL },
	};
	char y[128], want[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		snprintf(y, sizeof(y), "a: !!%s %s\n", tags[i].tag,
			 tags[i].text);
		if (tags[i].resolved)
			snprintf(want, sizeof(want), "1:a:v:%s:%s|",
				 tags[i].tag, tags[i].resolved);
		else
			snprintf(want, sizeof(want), "|");
		check_refused_doc(y, strlen(y), want);
	}
	/* keys: collections refused, other scalars taken; a tagged key;
	 * an alias as a key has its value's line, or its map's */
	check_refused_doc("{[1, 2]: x, {a: 1}: y, 1: z, true: w}\n", 38,
			  "1::k:-:list,1::k:-:map|");
	check_refused_doc("? [a]\n: b\n!!int x: 1\n", 21,
			  "1::k:-:list,3::k:int:str|");
	check_refused_doc("a: &s [1]\nb:\n  *s : v\nc: {*s : *s}\n", 35,
			  "3:b:k:-:list,4:c:k:-:list|");
	/* once where written, not at its aliases; the root itself; in a
	 * list, in a `<<`'s map (its map's path) */
	check_refused_doc("a: &t !!int x\nb: [*t, *t]\n", 26, "1:a:v:int:str|");
	check_refused_doc("!!bool x\n", 9, "1::v:bool:str|");
	check_refused_doc("a: [1, !!null 0]\nb: {<<: {c: !!int q}}\n", 39,
			  "1:a[1]:v:null:int,2:b.c:v:int:str|");
}

/*
 * What YAMLToJSON() refuses once go-yaml has read the document (checked
 * with sigs.k8s.io/yaml): .inf, -.inf, .nan values, a null key, a key past
 * int64; told where go-yaml keeps them, not where a later key or `<<`
 * replaces the pair; a quoted ".inf", a key .inf and int64's largest are
 * taken.  Not counted as a stop of the decoder: aliases are still told.
 */
static void test_check_json(void **state)
{
	static const char y[] =
		"a: .inf\nb: [1, -.INF]\nc: !!float .NaN\n~: x\n"
		"18446744073709551615: y\nd: {e: .nan, e: 1}\n"
		"f: {<<: {g: .inf}, g: 2}\nh: \".inf\"\n.inf: z\n"
		"9223372036854775807: w\ni: {<<: [{j: 1}, {j: .nan}]}\n"
		"k: {<<: [{l: .nan}, {j: 1}]}\n!!null '': v\n"
		"m: {<<: {n: .inf}, o: 1}\np: !foo .inf\n";

	(void)state;
	check_refused_doc(y, sizeof(y) - 1,
			  "1:a:v:-:+Inf,2:b[1]:v:-:-Inf,3:c:v:-:NaN,4::k:-:nil,"
			  "5::k:-:uint64,12:k.l:v:-:NaN,13::k:-:nil,"
			  "14:m.n:v:-:+Inf|");
}

/* A key past int64 written with underscores, read without them: shorter
 * than ydoc_json_key()'s buffer, and longer (77 and 73 bytes: a copy
 * malloc()ed); a key so long compared by value.  Checked with
 * sigs.k8s.io/yaml. */
static void test_check_json_long_keys(void **state)
{
	char y[512];
	size_t len = 0;
	const char *k[] = { "18446744073709551615", "9223372036854775807",
			    "18446744073709551615", "9223372036854775808" };
	const char *sep[] = { "_", "___", "___", "___" };
	size_t i, j;

	(void)state;
	for (i = 0; i < 4; i++) {
		for (j = 0; k[i][j]; j++)
			put(y, sizeof(y), &len, "%s%c", j ? sep[i] : "",
			    k[i][j]);
		put(y, sizeof(y), &len, ": %zu\n", i);
	}
	check_refused_doc(y, len, "1::k:-:uint64,3::k:-:uint64,"
			  "4::k:-:uint64|");
	/* a key compared by value: 1 and 1 with 70 underscores are one */
	for (i = 0; i < 2; i++) {
		len = 0;
		put(y, sizeof(y), &len, "%d: .inf\n1", (int)i + 1);
		for (j = 0; j < 70; j++)
			put(y, sizeof(y), &len, "_");
		put(y, sizeof(y), &len, ": a\n");
		check_refused_doc(y, len, i ? "1:2:v:-:+Inf|" : "|");
	}
}

/*
 * Keys compared as go-yaml's Go values (==, in its map[interface{}]
 * interface{}): one type and value is one key, which a later pair
 * replaces; of two types (int 1, float 1.0, string "1") or values (a NaN
 * equals nothing) go-yaml keeps both, and YAMLToJSON() refuses the .inf
 * (on some runs only when both keys come out as one JSON string: it
 * keeps one at random).  Each checked with sigs.k8s.io/yaml.
 */
static void test_check_json_keys(void **state)
{
	static const struct {
		const char *y, *want;
	} c[] = {
		/* one key: replaced */
		{ "0x1: .inf\n1: a\n", "|" },
		{ "+1: .inf\n!!int 01: a\n", "|" },
		{ "true: .inf\nyes: a\n", "|" },
		{ "n: .inf\n!!bool OFF: a\n", "|" },
		{ "0.1: .inf\n1e-1: a\n", "|" },
		{ ".5: .inf\n0.5: a\n", "|" },
		{ "08: .inf\n8.0: a\n", "|" },
		{ "!!float 8: .inf\n08: a\n", "|" },
		{ "-0.0: .inf\n0: a\n", "1:-0.0:v:-:+Inf|" },
		{ "-0.0: .inf\n0.0: a\n", "|" },
		{ "-9223372036854775808: .inf\n-0x8000000000000000: a\n",
		  "|" },
		{ "1_0: .inf\n10: a\n", "|" },
		{ "!!binary MQ==: .inf\n\"1\": a\n", "|" },
		{ "0b-101: .inf\n-5: a\n", "|" },
		{ "x: {<<: [{1: .inf}, {0x1: 2}]}\n", "1:x.1:v:-:+Inf|" },
		{ "x: {<<: [{0x1: 2}, {1: .inf}]}\n", "|" },
		{ "true: .inf\n<<: {on: 1}\n", "|" },
		/* two keys: kept */
		{ "1: .inf\n2: a\n", "1:1:v:-:+Inf|" },
		{ "true: .inf\nfalse: a\n", "1:true:v:-:+Inf|" },
		{ "true: .inf\n<<: {false: 1}\n", "1:true:v:-:+Inf|" },
		{ "08: .inf\n8: a\n", "1:08:v:-:+Inf|" },
		{ "1: .inf\n1.0: a\n", "1:1:v:-:+Inf|" },
		{ "!!int 1: .inf\n!!float 1: a\n", "1:1:v:-:+Inf|" },
		{ "1: .inf\n\"1\": a\n", "1:1:v:-:+Inf|" },
		{ "true: .inf\n\"true\": a\n", "1:true:v:-:+Inf|" },
		{ ".nan: .inf\n.nan: a\n", "1:.nan:v:-:+Inf|" },
		{ "1.0: .inf\n\"1.0\": a\n", "1:1.0:v:-:+Inf|" },
		{ "~: .inf\n'': a\n", "1::k:-:nil,1:~:v:-:+Inf|" },
		/* nulls are one key; each null key is told */
		{ "~: .inf\nnull: a\n", "1::k:-:nil,2::k:-:nil|" },
		/* a null key under a key kept, or replaced */
		{ "1: {~: x}\n\"1\": b\n", "1:1:k:-:nil|" },
		{ "1: {~: x}\n0x1: b\n", "|" },
		/* a key go-yaml refuses may be any */
		{ "1: .inf\n!!int x: a\n", "2::k:int:str|" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		check_refused_doc(c[i].y, strlen(c[i].y), c[i].want);
}

/* The decoder stops at a key or a tag it refuses: aliases past it are
 * not counted, nor within an alias it meets before the node it names
 * (a `<<` list's items are read last first). */
static void test_check_refused_stops(void **state)
{
	enum { CAP = 64 << 10 };
	char *y = malloc(CAP);
	size_t len;
	int i, j;

	(void)state;
	assert_non_null(y);
	/* 811 zeros and the tagged pair: the bound passed (go-yaml says
	 * "excessive aliasing" for t: !!int 1) */
	len = bound_doc(y, CAP, "t: !!int 1\n", 811, "");
	check_alias_doc(y, len, "4:b[199]:199981:202001:a");
	len = bound_doc(y, CAP, "t: !!int x\n", 811, "");
	check_refused_doc(y, len, "1:t:v:int:str|");
	len = bound_doc(y, CAP, "? [1]\n: 1\n", 810, "");
	check_refused_doc(y, len, "1::k:-:list|");
	/* told after the aliases, which go-yaml refuses first */
	len = bound_doc(y, CAP, "", 813, "t: !!int x\n");
	check_alias_doc(y, len, "3:b[199]:199981:202001:a");
	/* `<<: [&m {q: !!int x}, {r: *m, s: [*a x 200]}]`: the second item
	 * first, *m refused; fitting, the aliases are past the bound */
	for (i = 0; i < 2; i++) {
		len = 0;
		put(y, CAP, &len, "a: &a [");
		for (j = 0; j < 999; j++)
			put(y, CAP, &len, "%s%d", j ? ", " : "", j);
		put(y, CAP, &len, "]\nb: {<<: [&m {q: !!int %s}, {r: *m, "
		    "s: [", i ? "1" : "x");
		for (j = 0; j < 200; j++)
			put(y, CAP, &len, "%s*a", j ? ", " : "");
		put(y, CAP, &len, "]}]}\n");
		if (i)
			check_alias_doc(y, len, "2:b.s[110]:110980:112101:a");
		else
			check_refused_doc(y, len, "2:b.q:v:int:str|");
	}
	free(y);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_merges),
		cmocka_unit_test(test_check_aliasing),
		cmocka_unit_test(test_check_refused),
		cmocka_unit_test(test_check_json),
		cmocka_unit_test(test_check_json_keys),
		cmocka_unit_test(test_check_json_long_keys),
		cmocka_unit_test(test_check_refused_stops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
