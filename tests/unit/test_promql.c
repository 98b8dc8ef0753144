/*
 * test_promql.c - the PromQL parser: queries Prometheus accepts parse
 * (with their types), queries it refuses do not (with the position and a
 * sentence that says what to write), and what staffer reads from a tree
 * (one series or several, a fallback that answers without data, the
 * measured part).  The valid and invalid verdicts below were checked
 * against Debian's Prometheus 2.42 (/api/v1/query answers bad_data for
 * the invalid ones); tests/integration/test_promql.py repeats that check
 * on mutated queries against a running Prometheus.
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
#include "promql.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void test_valid(void **state)
{
	static const struct {
		const char *q;
		enum promql_type t;
	} cases[] = {
		{ "sum(rate(x[1m]))", PROMQL_VECTOR },
		{ "sum(rate(x_sum[5m])) / sum(rate(x_count[5m]))",
		  PROMQL_VECTOR },
		{ "histogram_quantile(0.5, sum by (le) (rate(t_bucket[5m])))",
		  PROMQL_VECTOR },
		{ "max_over_time(sum(q)[5m:30s]) and on() up", PROMQL_VECTOR },
		{ "x[5m:]", PROMQL_MATRIX },
		{ "x[5m] offset 1h", PROMQL_MATRIX },
		{ "rate(x[5m] offset 1h @ 1609746000)", PROMQL_VECTOR },
		{ "x @ start()", PROMQL_VECTOR },
		{ "x @ start()[5m]", PROMQL_MATRIX },
		{ "x offset -5m", PROMQL_VECTOR },
		{ "-x^2", PROMQL_VECTOR },
		{ "2 ^ -1", PROMQL_SCALAR },
		{ "1 > bool 2", PROMQL_SCALAR },
		{ "foo{a=\"b\",}", PROMQL_VECTOR },
		{ "{__name__=\"x\"}", PROMQL_VECTOR },
		{ "{a!=\"\"}", PROMQL_VECTOR },
		{ "label_join(x, \"a\", \",\", \"b\", \"c\")", PROMQL_VECTOR },
		{ "round(x)", PROMQL_VECTOR },
		{ "round(x, 1)", PROMQL_VECTOR },
		{ "day_of_week()", PROMQL_VECTOR },
		{ "time()", PROMQL_SCALAR },
		{ "pi() * 2", PROMQL_SCALAR },
		{ "\"text\"", PROMQL_STRING },
		{ "sum(x) without (a, b) unless ignoring(c) y", PROMQL_VECTOR },
		{ "a / on(b, c) group_right(d) b", PROMQL_VECTOR },
		{ "count_values(\"v\", x) > bool 1", PROMQL_VECTOR },
		{ "topk(3, x offset 5m)", PROMQL_VECTOR },
		{ "0x1f + .5 + 1e-3 + Inf - nan", PROMQL_SCALAR },
		{ "x{a=~\"a(b|c)+\", b=~`raw\\.re`}", PROMQL_VECTOR },
		{ "x{a=\"\\u00e9\\x41\\101\\n\"}", PROMQL_VECTOR },
		{ "sum(rate(x[1m]))  # a comment\n + 1", PROMQL_VECTOR },
		/* keywords Prometheus takes as metric names */
		{ "sum offset 5m", PROMQL_VECTOR },
		{ "round(and)", PROMQL_VECTOR },
		{ "by + without", PROMQL_VECTOR },
		{ ":", PROMQL_VECTOR },
		{ "job:requests:rate1m", PROMQL_VECTOR },
		/* 3.x: a quoted metric name */
		{ "{\"my.metric\", a=\"b\"}", PROMQL_VECTOR },
		{ "quantile_over_time(0.9, rate(x[1m])[1h:])", PROMQL_VECTOR },
		/* the bounds Prometheus 2.42 accepts (promtool) */
		{ "rate(x[292y])", PROMQL_VECTOR },
		{ "x @ 9.2e18", PROMQL_VECTOR },
		{ "x @ -1e18", PROMQL_VECTOR },
	};
	struct promql_ast a;
	struct promql_error e;
	size_t i;

	(void)state;
	for (i = 0; i < N_OF(cases); i++) {
		if (promql_parse(&a, cases[i].q, strlen(cases[i].q), &e)) {
			print_error("'%s' refused: %s\n", cases[i].q, e.msg);
			fail();
		}
		if (a.nodes[a.root].type != cases[i].t) {
			print_error("'%s' is a %s\n", cases[i].q,
				    promql_type_name(a.nodes[a.root].type));
			fail();
		}
		promql_release(&a);
	}
}

static void test_invalid(void **state)
{
	static const struct {
		const char *q;
		size_t pos;        /* byte offset */
		const char *says;
	} cases[] = {
		/* the broken queries */
		{ "sum(rate(x[1m])", 3, "the '(' of 'sum(' here is never "
		  "closed" },
		{ "sum(rate(x))", 9, "rate() wants a range vector as argument "
		  "1, e.g. rate(x[5m]), got an instant vector" },
		{ "sum(rate(x[1m])))", 16, "unexpected ')': it closes no '('" },
		{ "sum(rate(x[1m]) offset 5m)", 16, "'offset' applies to a "
		  "selector" },
		/* and the rest of the grammar */
		{ "", 0, "the query is empty" },
		{ "rate(x[5m])[10m]", 11, "a range [..] applies to a "
		  "selector" },
		{ "(x)[5m]", 3, "a range [..] applies to a selector" },
		{ "x[5m][10m:1m]", 5, "a subquery [range:step] runs over an "
		  "instant vector" },
		{ "x[0s]", 2, "a range must be more than 0" },
		{ "x offset 5m [1m]", 12, "the range comes before offset" },
		{ "x offset +5m", 9, "offset takes a duration" },
		{ "rat(x[5m])", 0, "unknown function 'rat'; did you mean "
		  "'rate'?" },
		{ "label_join(x, \"a\")", 0, "label_join() takes at least 3 "
		  "arguments, got 2" },
		{ "round(x, 1, 2)", 0, "round() takes at most 2 arguments" },
		{ "clamp_min(x)", 0, "clamp_min() takes 2 arguments, got 1" },
		{ "sum(x[5m])", 4, "sum() aggregates an instant vector, got a "
		  "range vector" },
		{ "topk(x)", 0, "topk() takes a parameter and a vector" },
		{ "topk(\"a\", x)", 5, "the parameter of topk() is a scalar" },
		{ "1 > 2", 2, "a comparison of two scalars needs bool" },
		{ "x + bool y", 2, "bool applies to comparisons only" },
		{ "x and 1", 2, "'and' joins two instant vectors" },
		{ "x + on(a) 1", 2, "on() and ignoring() with labels match two "
		  "instant vectors" },
		{ "x + group_left y", 4, "group_left comes after on(...)" },
		{ "a + on(a) group_left(a) b", 21, "label 'a' must not be in "
		  "both on() and group_left()" },
		{ "x[5m] + 1", 6, "its left side is a range vector" },
		{ "-x[5m]", 0, "a sign applies to a scalar or an instant "
		  "vector" },
		{ "{a=\"\"}", 0, "a vector selector needs a metric name or at "
		  "least one matcher" },
		{ "x{__name__=\"y\"}", 12, "the metric name is given twice" },
		{ "x{a==\"b\"}", 3, "a label matcher takes '=', not '=='" },
		{ "x{a=b}", 4, "a label matcher's value is a quoted string" },
		{ "x{a=\"b\"", 1, "the '{' here is never closed" },
		{ "x{a:b=\"c\"}", 2, "expected a label matcher" },
		{ "x{a=\"\\q\"}", 5, "unknown escape sequence '\\q'" },
		{ "x{a=\"line", 4, "is never closed" },
		{ "x{a=~\"(a\"}", 6, "has a '(' that is never closed" },
		{ "x{a=~\"*a\"}", 6, "a '*' with nothing to repeat" },
		{ "5m", 0, "unexpected duration '5m'" },
		{ "5x", 0, "bad number or duration '5x'" },
		{ "x y", 2, "unexpected 'y' after a complete expression" },
		{ "sum(x,)", 6, "a ',' at the end of the arguments" },
		{ "()", 1, "empty parentheses" },
		{ "x ! y", 2, "the operators are != and !~" },
		{ "x + on y", 7, "'on' wants a list of labels" },
		{ "sum by x (y)", 7, "'by' wants a list of labels" },
		{ "bool", 0, "unexpected 'bool'" },
		{ "x @ foo", 4, "@ takes a Unix time, start() or end()" },
		/* what Prometheus 2.42's parser refuses too (promtool) */
		{ "x[5m:0s]", 5, "a subquery's step must be more than 0" },
		{ "x @ Inf", 4, "@ 'Inf' is out of bounds" },
		{ "x @ 1e30", 4, "@ '1e30' is out of bounds" },
		{ "rate(x[293y])", 7, "duration '293y' out of range: at most "
		  "292 years" },
		{ "rate(x[106752d])", 7, "out of range" },
	};
	struct promql_ast a;
	struct promql_error e;
	size_t i;

	(void)state;
	for (i = 0; i < N_OF(cases); i++) {
		memset(&e, 0, sizeof(e));
		if (promql_parse(&a, cases[i].q, strlen(cases[i].q), &e) !=
		    PROMQL_ESYNTAX) {
			print_error("'%s' accepted\n", cases[i].q);
			fail();
		}
		assert_int_equal(a.n, 0);
		assert_int_equal(a.root, -1);
		if (e.pos != cases[i].pos || !strstr(e.msg, cases[i].says)) {
			print_error("'%s': at %zu '%s'; want %zu '%s'\n",
				    cases[i].q, e.pos, e.msg, cases[i].pos,
				    cases[i].says);
			fail();
		}
	}
}

/* Untrusted bytes never reach a message as they are (a regression of
 * the fuzz target: a tab after a backslash, a byte of 0x86 in a quoted
 * label name). */
static void test_messages_printable(void **state)
{
	static const char *const cases[] = {
		"x{a=\"\\\t\"}", "x{\"\x86\"}", "\x01", "x{\"\xff\"==\"a\"}",
	};
	struct promql_ast a;
	struct promql_error e;
	size_t i, k;

	(void)state;
	for (i = 0; i < N_OF(cases); i++) {
		assert_int_equal(promql_parse(&a, cases[i], strlen(cases[i]),
					      &e), PROMQL_ESYNTAX);
		assert_true(e.msg[0]);
		for (k = 0; e.msg[k]; k++)
			assert_true((unsigned char)e.msg[k] >= 0x20 &&
				    (unsigned char)e.msg[k] < 0x7f);
	}
}

static void test_bounds(void **state)
{
	char *q = malloc(PROMQL_LEN_MAX + 2);
	struct promql_ast a;
	struct promql_error e;
	size_t i, n = 0;

	(void)state;
	assert_non_null(q);
	/* nested deeper than PROMQL_DEPTH: refused, no stack exhausted */
	for (i = 0; i < 300; i++)
		q[n++] = '(';
	q[n++] = 'x';
	for (i = 0; i < 300; i++)
		q[n++] = ')';
	assert_int_equal(promql_parse(&a, q, n, &e), PROMQL_ESYNTAX);
	check_contains(e.msg, "nested more than");
	/* as deep as allowed: fine */
	n = 0;
	for (i = 0; i < 30; i++)
		q[n++] = '(';
	q[n++] = 'x';
	for (i = 0; i < 30; i++)
		q[n++] = ')';
	assert_int_equal(promql_parse(&a, q, n, &e), PROMQL_OK);
	promql_release(&a);
	/* signs nest too */
	memset(q, '-', 1000);
	q[1000] = '1';
	assert_int_equal(promql_parse(&a, q, 1001, &e), PROMQL_ESYNTAX);
	check_contains(e.msg, "nested more than");
	/* too long */
	memset(q, ' ', PROMQL_LEN_MAX + 1);
	q[0] = 'x';
	assert_int_equal(promql_parse(&a, q, PROMQL_LEN_MAX + 1, &e),
			 PROMQL_ESYNTAX);
	check_contains(e.msg, "more than");
	/* no NUL needed: the length is what counts */
	assert_int_equal(promql_parse(&a, "x + 1garbage", 5, &e), PROMQL_OK);
	promql_release(&a);
	free(q);
}

static void test_where(void **state)
{
	char buf[48];

	(void)state;
	promql_where("sum(x", 5, 3, buf, sizeof(buf));
	assert_string_equal(buf, "character 4");
	promql_where("sum(\n  rate(x)\n)", 16, 7, buf, sizeof(buf));
	assert_string_equal(buf, "line 2, character 3");
}

/* promql_one: docs/lint.md's table, and the aggregations that keep
 * labels. */
static void test_one_series(void **state)
{
	static const struct {
		const char *q;
		int one;
	} cases[] = {
		{ "sum(rate(requests_total[1m])) or vector(0)", 1 },
		{ "clamp_min(sum(queue_depth), 0) or vector(0)", 1 },
		{ "(sum(rate(a[5m])) - sum(rate(b[5m]))) / sum(rate(c[5m])) "
		  "/ 1e6", 1 },
		{ "histogram_quantile(0.5, sum by (le) (rate(t_bucket[5m])))",
		  1 },
		{ "max_over_time(sum(queue_depth)[5m:30s]) and on() up", 1 },
		{ "rate(requests_total[1m])", 0 },
		{ "sum by (pod) (queue_depth)", 0 },
		{ "queue_depth / sum(x)", 0 },
		{ "sum without (pod) (x)", 0 },
		{ "quantile(0.5, x)", 1 },
		{ "topk(1, x)", 0 },
		{ "topk(1, sum(x))", 1 },
		{ "count_values(\"v\", sum(x))", 0 },
		{ "scalar(x)", 1 },
		{ "vector(1)", 1 },
		{ "absent(x)", 1 },
		{ "x unless sum(y)", 0 },
		{ "sum(x) unless y", 1 },
		{ "not PromQL ((", 1 },   /* lint reports the syntax */
	};
	size_t i;

	(void)state;
	for (i = 0; i < N_OF(cases); i++)
		if (promql_one_series(cases[i].q) != cases[i].one) {
			print_error("'%s': one=%d\n", cases[i].q,
				    !cases[i].one);
			fail();
		}
	assert_int_equal(promql_one_series(NULL), 1);
}

/* A fallback: bare (answers with no data at all), guarded (by up), the
 * measured part without it. */
static void test_fallback(void **state)
{
	static const struct {
		const char *q;
		int has, bare, up;
		const char *measured;   /* NULL: none */
	} cases[] = {
		{ "sum(rate(x[1m])) or vector(0)", 1, 1, 0,
		  "sum(rate(x[1m]))" },
		{ "sum(rate(x[1m])) or on() vector(0)", 1, 1, 0,
		  "sum(rate(x[1m]))" },
		{ "sum(rate(x[1m]))\n  or vector(0)\n", 1, 1, 0,
		  "sum(rate(x[1m]))\n" },
		{ "(sum(rate(x[1m])) or vector(0))", 1, 1, 0,
		  "(sum(rate(x[1m])))" },
		{ "sum(rate(x[1m])) or (0 * max(up{job=\"g\"} == 1))", 1, 0,
		  1, "sum(rate(x[1m]))" },
		{ "sum(rate(x[1m])) or vector(0) or vector(1)", 1, 1, 0,
		  "sum(rate(x[1m]))" },
		{ "sum(a) or sum(b) or vector(0)", 1, 1, 0,
		  "sum(a) or sum(b)" },
		{ "sum(x) or sum(y)", 0, 0, 0, NULL },
		{ "sum(x)", 0, 0, 0, NULL },
		{ "vector(0)", 0, 0, 0, NULL },
		/* constant, but no top-level fallback to name */
		{ "(sum(a) or vector(0)) + (sum(b) or vector(0))", 0, 0, 0,
		  NULL },
	};
	struct promql_ast a;
	struct promql_fallback fb;
	char buf[256];
	size_t i, n;
	int has;

	(void)state;
	for (i = 0; i < N_OF(cases); i++) {
		assert_int_equal(promql_parse(&a, cases[i].q,
					      strlen(cases[i].q), NULL),
				 PROMQL_OK);
		has = promql_fallback(&a, &fb);
		n = promql_measured(&a, buf, sizeof(buf));
		if (has != cases[i].has ||
		    (has && (fb.bare != cases[i].bare ||
			     (fb.up >= 0) != cases[i].up)) ||
		    (cases[i].measured ? !n || strcmp(buf, cases[i].measured)
		     : n != 0)) {
			print_error("'%s': has %d bare %d up %d measured "
				    "'%s'\n", cases[i].q, has, has ? fb.bare :
				    -1, has ? fb.up : -1, n ? buf : "-");
			fail();
		}
		promql_release(&a);
	}
	/* too small a buffer: nothing, not a cut query */
	assert_int_equal(promql_parse(&a, "sum(rate(x[1m])) or vector(0)", 29,
				      NULL), PROMQL_OK);
	assert_int_equal(promql_measured(&a, buf, 10), 0);
	promql_release(&a);
}

static void test_constant(void **state)
{
	static const struct {
		const char *q;
		int c;
	} cases[] = {
		{ "vector(0)", 1 }, { "1 + 2", 1 }, { "absent(x)", 1 },
		{ "time()", 1 }, { "sum(x) or vector(0)", 1 },
		{ "clamp_min(vector(0), 0)", 1 }, { "scalar(x)", 0 },
		{ "sum(x)", 0 }, { "sum(x) * 0", 0 },
		{ "sum(x) or (0 * max(up == 1))", 0 },
		{ "vector(0) unless x", 1 }, { "x and vector(1)", 0 },
		{ "(sum(a) or vector(0)) + (sum(b) or vector(0))", 1 },
	};
	struct promql_ast a;
	size_t i;

	(void)state;
	for (i = 0; i < N_OF(cases); i++) {
		assert_int_equal(promql_parse(&a, cases[i].q,
					      strlen(cases[i].q), NULL),
				 PROMQL_OK);
		if (promql_constant(&a, a.root) != cases[i].c) {
			print_error("'%s': constant %d\n", cases[i].q,
				    !cases[i].c);
			fail();
		}
		promql_release(&a);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_messages_printable),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_where),
		cmocka_unit_test(test_one_series),
		cmocka_unit_test(test_fallback),
		cmocka_unit_test(test_constant),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
