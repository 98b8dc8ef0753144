/*
 * promql.c - fuzz target: the PromQL parser lint, explain and tune run on
 * every query of a trigger (see fuzz.h).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "promql.h"

static const char *const promql_corpus[] = {
	"sum(rate(vllm:request_success_total{model_name=\"llama-70b\"}[1m]))",
	"sum(rate(x_sum[5m])) / sum(rate(x_count[5m]))",
	"sum(rate(a_total[1m])) or (0 * max(up{job=\"gateway\"} == 1))",
	"sum(rate(a_total[1m])) or on() vector(0)",
	"histogram_quantile(0.5, sum by (le) (rate(t_bucket[5m])))",
	"max_over_time(sum(q)[5m:30s]) and on() up",
	"(sum(rate(a[5m])) - sum(rate(b[5m]))) / sum(rate(c[5m])) / 1e6",
	"topk(3, x offset 5m)",
	"rate(x[5m] offset -1h @ 1609746000)",
	"x @ start()",
	"-x ^ 2 ^ -1 % 3 atan2 y",
	"a + on(b, c) group_left(d) b",
	"count_values(\"v\", x) > bool 1",
	"label_replace(up, \"a\", \"$1\", \"b\", \"(.*)\")",
	"{__name__=~\"x_.+\", a!~\"b|c\", d!=\"\"}",
	"x{a=~`raw\\.re`, b=\"\\u00e9\\x41\\101\"} # a comment",
	"sum without (a, b) (x) unless ignoring(c) y",
	"0x1f + .5 + 1e-3 + Inf - NaN",
	"sum(rate(x[1m])) by (pod)",
	"quantile_over_time(0.9, rate(x[1m])[1h:])",
};

static const char *const promql_words[] = {
	"(", ")", "[", "]", "{", "}", ",", ":", "@", "#", "\"", "'", "`",
	"\\", "[5m]", "[5m:1m]", "[0s]", " or ", " and ", " unless ",
	" by ", " without ", " on ", " ignoring ", " group_left ",
	" group_right ", " bool ", " offset ", " offset -5m", "start()",
	"end()", "rate(", "sum(", "topk(", "count_values(", "vector(0)",
	"absent(", "time()", "label_join(", "histogram_quantile(", "=~", "!~",
	"!=", "==", ">=", "<=", "^", "%", "+", "-", "*", "/", "atan2", "inf",
	"nan", "0x", "1e", "1e309", "5m", "1h30m", "1y1w1d1h1m1s1ms", "__name__",
	"up", "le", "\n", "\t", "\xff", "\xc3\xa9", "\\u", "\\x", "\\U0001F600",
};

/* Every index of the tree points inside it, every span inside the text,
 * every node has a type. */
static void promql_check_tree(const struct promql_ast *a, size_t len)
{
	size_t i;
	unsigned k;

	FZ_CHECK(a->root >= 0 && (size_t)a->root < a->n, "root %d of %zu",
		 a->root, a->n);
	for (i = 0; i < a->n; i++) {
		const struct promql_node *n = &a->nodes[i];

		FZ_CHECK(n->pos <= n->end && n->end <= len, "node %zu spans "
			 "%u..%u of %zu", i, n->pos, n->end, len);
		FZ_CHECK(n->type >= PROMQL_SCALAR && n->type <= PROMQL_STRING,
			 "node %zu type %d", i, (int)n->type);
		FZ_CHECK(n->lhs < (int)a->n && n->rhs < (int)a->n &&
			 n->arg < (int)a->n && n->next < (int)a->n &&
			 n->param < (int)a->n, "node %zu links", i);
		FZ_CHECK(n->m0 + n->nm <= a->n_matchers, "node %zu matchers",
			 i);
		FZ_CHECK(n->g0 + n->ng <= a->n_labels, "node %zu labels", i);
		FZ_CHECK(n->name.pos + n->name.len <= len, "node %zu name", i);
		if (n->kind == PROMQL_SELECTOR)
			FZ_CHECK(n->range_s >= 0 && isfinite(n->range_s),
				 "range %g", n->range_s);
	}
	for (k = 0; k < a->n_matchers; k++)
		FZ_CHECK(a->matchers[k].value.pos + a->matchers[k].value.len <=
			 len, "matcher %u", k);
}

static void check_promql(struct fz *r, const char *in, size_t len, int valid)
{
	char *s = fz_copy(in, len, 0), *m, *m2;
	struct promql_ast a, b;
	struct promql_error e;
	struct promql_fallback fb;
	enum promql_err rc;
	size_t mlen;

	(void)r;
	memset(&e, 'x', sizeof(e));
	rc = promql_parse(&a, s, len, &e);
	FZ_CHECK(rc == PROMQL_OK || rc == PROMQL_ESYNTAX, "code %d", (int)rc);
	FZ_CHECK(!valid || rc == PROMQL_OK, "valid query refused: %s", e.msg);
	if (rc != PROMQL_OK) {
		FZ_CHECK(a.n == 0 && a.root == -1 && !a.nodes, "tree left");
		FZ_CHECK(e.pos <= len, "error at %zu of %zu", e.pos, len);
		fz_check_msg(e.msg, sizeof(e.msg), "promql");
		free(s);
		return;
	}
	fz_accepted++;
	promql_check_tree(&a, len);
	(void)promql_one(&a, a.root);
	(void)promql_constant(&a, a.root);
	/* the measured part parses, and has no fallback of its own */
	m = malloc(len + 16);
	assert_non_null(m);
	mlen = promql_measured(&a, m, len + 16);
	FZ_CHECK(mlen == 0 || promql_fallback(&a, &fb),
		 "a measured part without a fallback");
	if (mlen) {
		m2 = fz_copy(m, mlen, 0);
		FZ_CHECK(promql_parse(&b, m2, mlen, &e) == PROMQL_OK,
			 "measured part '%s' does not parse: %s", m, e.msg);
		FZ_CHECK(!promql_fallback(&b, &fb), "measured part '%s' still "
			 "has a fallback", m);
		promql_release(&b);
		free(m2);
	}
	free(m);
	promql_release(&a);
	free(s);
}

FZ_TEST(promql, promql_corpus, promql_words, 20000, check_promql, NULL, 0)
