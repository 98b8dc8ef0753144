/*
 * test_sheap.c - the stream scheduler's min-heap (sheap.h): order, ties,
 * moves and removal from the middle, checked against a brute-force model.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "sheap.h"

struct item {
	struct sheap_node node;  /* first, so a node is its item */
	int id;
};

/* Every queued node at its recorded index, every parent not after its
 * children. */
static void check_heap(const struct sheap *h)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		assert_int_equal(h->v[i]->idx, i);
		if (i > 0) {
			const struct sheap_node *p = h->v[(i - 1) / 2];

			assert_true(p->due < h->v[i]->due ||
				    (p->due == h->v[i]->due &&
				     p->seq < h->v[i]->seq));
		}
	}
}

static void test_sheap_order(void **state)
{
	struct sheap h;
	struct item it[5];
	static const double due[5] = { 3, 1, 2, 1, 0.5 };
	static const int want[5] = { 4, 1, 3, 2, 0 };
	int i;

	(void)state;
	sheap_init(&h);
	assert_null(sheap_peek(&h));
	assert_null(sheap_pop(&h));
	for (i = 0; i < 5; i++) {
		sheap_node_init(&it[i].node);
		it[i].id = i;
		assert_false(sheap_queued(&it[i].node));
		assert_int_equal(sheap_push(&h, &it[i].node, due[i]), 0);
		assert_true(sheap_queued(&it[i].node));
	}
	check_heap(&h);
	/* ties (1 and 1) come out in push order */
	for (i = 0; i < 5; i++) {
		struct item *x = (struct item *)sheap_pop(&h);

		assert_non_null(x);
		assert_int_equal(x->id, want[i]);
		assert_false(sheap_queued(&x->node));
	}
	assert_null(sheap_pop(&h));
	sheap_free(&h);
}

/* A node pushed again at the same due time goes behind the ties pushed
 * before it (it came out first, as the root stayed where it was). */
static void test_sheap_same_due(void **state)
{
	struct sheap h;
	struct item it[3];
	int i;

	(void)state;
	sheap_init(&h);
	for (i = 0; i < 3; i++) {
		sheap_node_init(&it[i].node);
		it[i].id = i;
		assert_int_equal(sheap_push(&h, &it[i].node, 5), 0);
	}
	assert_int_equal(sheap_push(&h, &it[0].node, 5), 0);
	check_heap(&h);
	for (i = 0; i < 3; i++)
		assert_int_equal(((struct item *)sheap_pop(&h))->id,
				 (i + 1) % 3);
	sheap_free(&h);
}

/* Moves and removals anywhere, against a model: 2000 random operations. */
static void test_sheap_random(void **state)
{
	enum { N = 300 };
	struct sheap h;
	struct item *it = calloc(N, sizeof(*it));
	int i, op;

	(void)state;
	assert_non_null(it);
	sheap_init(&h);
	srand(12);
	for (i = 0; i < N; i++) {
		sheap_node_init(&it[i].node);
		it[i].id = i;
	}
	for (op = 0; op < 2000; op++) {
		struct item *x = &it[rand() % N];
		double best = 1e300;
		int queued = 0;

		if (rand() % 4 == 0)
			sheap_remove(&h, &x->node);
		else
			assert_int_equal(sheap_push(&h, &x->node,
						    (double)(rand() % 1000)),
					 0);
		check_heap(&h);
		for (i = 0; i < N; i++)
			if (sheap_queued(&it[i].node)) {
				queued++;
				if (it[i].node.due < best)
					best = it[i].node.due;
			}
		assert_int_equal((size_t)queued, h.n);
		if (queued)
			assert_true(sheap_peek(&h)->due == best);
	}
	/* drained in order */
	{
		double last = -1;
		struct sheap_node *x;

		while ((x = sheap_pop(&h))) {
			assert_true(x->due >= last);
			last = x->due;
		}
	}
	/* removing what is not queued is a no-op */
	sheap_remove(&h, &it[0].node);
	assert_int_equal(h.n, 0);
	sheap_free(&h);
	free(it);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sheap_order),
		cmocka_unit_test(test_sheap_same_due),
		cmocka_unit_test(test_sheap_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
