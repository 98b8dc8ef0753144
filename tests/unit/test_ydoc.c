/*
 * test_ydoc.c - ydoc.h's tree as the reader builds it: kids in order and
 * contiguous per collection, aliases sharing nodes, text and tags in the
 * arena (long and short, across blocks), ydoc_read_one()'s ownership, and
 * the input bound that keeps a node's numbers within 32 bits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

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
	static const char y[] = "a: !foo bar\nb: \"x\\0y\"\nc: !!int 7\n";
	struct ydoc *d = read_one(y, sizeof(y) - 1);
	const struct ynode *root = &d->nodes[0];
	const struct ynode *a = ymap_get(d, root, "a", NULL);
	const struct ynode *b = ymap_get(d, root, "b", NULL);
	const struct ynode *c = ymap_get(d, root, "c", NULL);

	(void)state;
	assert_int_equal(a->type, YT_TAGGED);
	assert_string_equal(a->text, "bar");
	assert_string_equal(ytag(a), "!foo");
	assert_string_equal(ytag(c), "tag:yaml.org,2002:int");
	assert_int_equal(b->len, 3);
	assert_memory_equal(b->text, "x\0y", 4);
	assert_null(ytag(b));
	assert_null(ytag(root));
	assert_null(ytag(NULL));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_alias),
		cmocka_unit_test(test_tag_nul),
		cmocka_unit_test(test_arena),
		cmocka_unit_test(test_read_one),
		cmocka_unit_test(test_too_big),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
