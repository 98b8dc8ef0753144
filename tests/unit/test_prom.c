/*
 * test_prom.c - query URLs and hostile replies for prom.c.
 *
 * Every body is inline.  Built with ASan/UBSan, so "no crash" also means no
 * read past len, no leak and no undefined behaviour.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"
#include "prom.h"

/* A vector answer whose only sample value is the JSON fragment v. */
#define VEC(v) "{\"status\":\"success\",\"data\":{\"resultType\":" \
	"\"vector\",\"result\":[{\"metric\":{\"job\":\"api\"}," \
	"\"value\":[1700000000.123," v "]}]}}"
/* A reply whose data.result is the JSON fragment r, of resultType t. */
#define DATA(t, r) "{\"status\":\"success\",\"data\":{\"resultType\":" \
	"\"" t "\",\"result\":" r "}}"

static enum prom_err instant(const char *body, double *v, char *err)
{
	return prom_parse_instant(body, strlen(body), v, err, PROM_ERR_MAX);
}

/* Growable text for big generated bodies. */
struct text {
	char *s;
	size_t len, cap;
};

static void text_add(struct text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		assert_true(n >= 0);
		if ((size_t)n < t->cap - t->len)
			break;
		t->cap = t->cap * 2 + (size_t)n + 1;
		t->s = realloc(t->s, t->cap);
		assert_non_null(t->s);
	}
	t->len += (size_t)n;
}

static void text_init(struct text *t)
{
	t->cap = 256;
	t->len = 0;
	t->s = malloc(t->cap);
	assert_non_null(t->s);
	t->s[0] = '\0';
}

/* ---- URLs ---------------------------------------------------------- */

static void test_query_url_encoding(void **state)
{
	const char *q = "sum(rate(http_requests_total{job=\"api\", "
			"code=~\"5..\"}[5m])) + 1 & #\xc3\xbc~";
	char *u = prom_query_url("http://prom:9090", q, 0);

	assert_non_null(u);
	assert_string_equal(u, "http://prom:9090/api/v1/query?query="
		"sum%28rate%28http_requests_total%7Bjob%3D%22api%22%2C%20"
		"code%3D~%225..%22%7D%5B5m%5D%29%29%20%2B%201%20%26%20%23"
		"%C3%BC~");
	free(u);
}

static void test_query_url_time(void **state)
{
	char *u = prom_query_url("http://h/prefix/", "up", 1700000000.1234);

	assert_non_null(u);
	assert_string_equal(u, "http://h/prefix/api/v1/query?query=up"
			    "&time=1700000000.123");
	free(u);
	/* Negative or zero time: no time parameter (the server's now). */
	u = prom_query_url("http://h", "up", -5);
	assert_non_null(u);
	assert_string_equal(u, "http://h/api/v1/query?query=up");
	free(u);
	assert_null(prom_query_url("http://h", "up", INFINITY));
	assert_null(prom_query_url("http://h", "up", 1e300));
	assert_null(prom_query_url(NULL, "up", 0));
	assert_null(prom_query_url("http://h", NULL, 0));
	u = prom_query_url("http://h", "", 0);
	assert_non_null(u);
	assert_string_equal(u, "http://h/api/v1/query?query=");
	free(u);
}

static void test_range_url(void **state)
{
	char *u = prom_range_url("https://amp.example/workspaces/ws-1",
				 "rate(x[1m])", 1000.5, 1600, 15);

	assert_non_null(u);
	/* parameters sorted by name: SigV4 signs them so (prom_url) */
	assert_string_equal(u, "https://amp.example/workspaces/ws-1/api/v1/"
			    "query_range?end=1600.000&query=rate%28x%5B1m%5D"
			    "%29&start=1000.500&step=15.000");
	free(u);
	assert_null(prom_range_url("http://h", "up", 0, 10, 0));
	assert_null(prom_range_url("http://h", "up", 0, 10, -1));
	assert_null(prom_range_url("http://h", "up", 0, 10, NAN));
	assert_null(prom_range_url("http://h", "up", NAN, 10, 1));
	assert_null(prom_range_url("http://h", "up", 0, INFINITY, 1));
}

/* ---- instant: good answers ----------------------------------------- */

static void test_vector(void **state)
{
	char err[PROM_ERR_MAX];
	double v = -1;

	assert_int_equal(instant(VEC("\"42.5\""), &v, err), PROM_OK);
	assert_true(v == 42.5);
	/* Prometheus' order of fields is not relied upon. */
	assert_int_equal(instant("{\"data\":{\"result\":[{\"value\":[1,\"7\"],"
				 "\"metric\":{}}],\"resultType\":\"vector\"},"
				 "\"status\":\"success\",\"warnings\":[\"x\"]}"
				 " \r\n\t", &v, err), PROM_OK);
	assert_true(v == 7);
	/* A series without labels may leave "metric" out. */
	assert_int_equal(instant(DATA("vector", "[{\"value\":[1,\"3\"]}]"),
				 &v, err), PROM_OK);
	assert_true(v == 3);
}

static void test_scalar(void **state)
{
	char err[PROM_ERR_MAX];
	double v = -1;

	assert_int_equal(instant(DATA("scalar", "[1700000000,\"0.25\"]"), &v,
				 err), PROM_OK);
	assert_true(v == 0.25);
}

static void test_exponent_and_negative(void **state)
{
	char err[PROM_ERR_MAX];
	double v = 0;

	assert_int_equal(instant(VEC("\"1e3\""), &v, err), PROM_OK);
	assert_true(v == 1000);
	assert_int_equal(instant(VEC("\"-2.5e-1\""), &v, err), PROM_OK);
	assert_true(v == -0.25);
	assert_int_equal(instant(VEC("\"-3\""), &v, err), PROM_OK);
	assert_true(v == -3);
	/* Underflow is a tiny number, not an error. */
	assert_int_equal(instant(VEC("\"1e-400\""), &v, err), PROM_OK);
	assert_true(v >= 0 && v < 1e-300);
	/* Go writes large values in full; they still parse. */
	assert_int_equal(instant(VEC("\"1000000000000000000000000000000\""),
				 &v, err), PROM_OK);
	assert_true(v == 1e30);
}

static void test_err_may_be_null(void **state)
{
	double v = 0;

	assert_int_equal(prom_parse_instant("x", 1, &v, NULL, 0),
			 PROM_EPARSE);
	assert_int_equal(prom_parse_instant(VEC("\"1\""), strlen(VEC("\"1\"")),
					    &v, NULL, 0), PROM_OK);
	assert_true(v == 1);
}

/* ---- instant: unknown data ----------------------------------------- */

static void test_empty(void **state)
{
	char err[PROM_ERR_MAX];
	double v = 99;

	assert_int_equal(instant(DATA("vector", "[]"), &v, err), PROM_EEMPTY);
	/* the guarded fallback, never a bare `or vector(0)` */
	check_contains(err, "or (0 * max(up{");
	assert_null(strstr(err, "or vector(0)"));
	assert_true(v == 99);
}

static void test_multi(void **state)
{
	char err[PROM_ERR_MAX];
	double v = 99;

	assert_int_equal(instant(DATA("vector",
		"[{\"metric\":{\"pod\":\"a-1\",\"job\":\"vllm\"},"
		"\"value\":[1,\"1\"]},"
		"{\"metric\":{\"pod\":\"a-2\",\"job\":\"vllm\"},"
		"\"value\":[1,\"2\"]}]"), &v, err), PROM_EMULTI);
	check_contains(err, "2 series");
	check_contains(err, "sum()");
	check_contains(err, "{pod=\"a-1\", job=\"vllm\"}");
	assert_true(v == 99);
}

static void test_multi_long_labels(void **state)
{
	struct text t;
	char err[PROM_ERR_MAX];
	double v;
	int i;

	text_init(&t);
	text_add(&t, "{\"status\":\"success\",\"data\":{\"resultType\":"
		 "\"vector\",\"result\":[");
	for (i = 0; i < 3; i++) {
		text_add(&t, "%s{\"metric\":{", i ? "," : "");
		text_add(&t, "\"b\":\"\\u001b[31m\",\"a\":\"%0200d\","
			 "\"c\":\"%080d\"", 0, 0);
		text_add(&t, "},\"value\":[1,\"1\"]}");
	}
	text_add(&t, "]}}");
	assert_int_equal(instant(t.s, &v, err), PROM_EMULTI);
	check_contains(err, "3 series");
	check_contains(err, "{b=\"?[31m\", a=\"000");
	check_contains(err, "...}");
	assert_true(strlen(err) < PROM_ERR_MAX);
	free(t.s);
}

static void test_nan_inf(void **state)
{
	static const char *const bodies[] = {
		VEC("\"NaN\""), VEC("\"+Inf\""), VEC("\"-Inf\""),
		VEC("\"1e999\""), VEC("\"inf\""),
		DATA("scalar", "[1,\"NaN\"]"),
	};
	char err[PROM_ERR_MAX];
	double v = 99;
	size_t i;

	for (i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		assert_int_equal(instant(bodies[i], &v, err), PROM_ENAN);
		check_contains(err, "unknown");
	}
	assert_true(v == 99);
}

static void test_status_error(void **state)
{
	char err[PROM_ERR_MAX];
	double v = 99;
	struct text t;
	int i;

	assert_int_equal(instant("{\"status\":\"error\",\"errorType\":"
		"\"bad_data\",\"error\":\"1:5: parse error: unexpected "
		"\\\"}\\\"\\n\\u0007\"}", &v, err), PROM_EQUERY);
	check_contains(err, "bad_data");
	check_contains(err, "parse error: unexpected \"}\"??");
	assert_int_equal(instant("{\"status\":\"error\"}", &v, err),
			 PROM_EAPI);
	check_contains(err, "no message");
	/* A long message is cut. */
	text_init(&t);
	text_add(&t, "{\"status\":\"error\",\"errorType\":\"execution\","
		 "\"error\":\"");
	for (i = 0; i < 2000; i++)
		text_add(&t, "x");
	text_add(&t, "\"}");
	assert_int_equal(instant(t.s, &v, err), PROM_EAPI);
	check_contains(err, "xxx...");
	assert_true(strlen(err) < 200);
	free(t.s);
	assert_true(v == 99);
}

/* ---- instant: malformed replies ------------------------------------ */

struct bad {
	const char *body;
	enum prom_err rc;
	const char *says;
};

static const struct bad bad_instant[] = {
	{ "", PROM_EPARSE, "empty reply" },
	{ "<html><body>502 Bad Gateway</body></html>", PROM_EPARSE,
	  "not JSON (error at byte 0 of 41): '<html>" },
	{ "{\"status\":\"success\",\"data\":{\"resultType\":\"vec",
	  PROM_EPARSE, "not JSON (error at byte 42 of 45)" },
	{ "{\"status\":\"success\"", PROM_EPARSE,
	  "not JSON (error at byte 18 of 19)" },
	{ VEC("\"1\"") " x", PROM_EPARSE, "data after the JSON value" },
	{ VEC("\"1\"") "{}", PROM_EPARSE, "data after the JSON value" },
	{ "[1,2]", PROM_EPARSE, "is an array, expected a JSON object" },
	{ "\"success\"", PROM_EPARSE, "is a string" },
	{ "{}", PROM_EPARSE, "'status' is missing" },
	{ "{\"status\":1}", PROM_EPARSE, "'status' is a number" },
	{ "{\"status\":\"ok\"}", PROM_EPARSE, "'status' is 'ok'" },
	{ "{\"status\":\"success\"}", PROM_EPARSE, "'data' is missing" },
	{ "{\"status\":\"success\",\"data\":[]}", PROM_EPARSE,
	  "'data' is an array" },
	{ "{\"status\":\"success\",\"data\":{\"result\":[]}}", PROM_EPARSE,
	  "'data.resultType' is missing" },
	{ "{\"status\":\"success\",\"data\":{\"resultType\":null,"
	  "\"result\":[]}}", PROM_EPARSE, "'data.resultType' is null" },
	{ "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\"}}",
	  PROM_EPARSE, "no 'data.result'" },
	{ DATA("vector", "{}"), PROM_EPARSE,
	  "'data.result' is an object, expected an array" },
	{ DATA("vector", "\"1\""), PROM_EPARSE, "'data.result' is a string" },
	{ DATA("vector", "[1]"), PROM_EPARSE,
	  "'data.result[0]' is a number" },
	{ DATA("vector", "[[1,\"1\"]]"), PROM_EPARSE,
	  "'data.result[0]' is an array" },
	{ DATA("vector", "[{\"metric\":[],\"value\":[1,\"1\"]}]"),
	  PROM_EPARSE, "'data.result[0].metric' is an array" },
	{ DATA("vector", "[{\"metric\":\"x\",\"value\":[1,\"1\"]}]"),
	  PROM_EPARSE, "'data.result[0].metric' is a string" },
	{ DATA("vector", "[{\"metric\":{}}]"), PROM_EPARSE,
	  "has no 'value'" },
	{ DATA("vector", "[{\"metric\":{},\"histogram\":[1,{}]}]"),
	  PROM_EPARSE, "native histogram" },
	{ "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\","
	  "\"result\":[{\"metric\":{},\"value\":\"1\"}]}}", PROM_EPARSE,
	  "value' is a string, expected a [time, \"value\"] array" },
	{ "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\","
	  "\"result\":[{\"metric\":{},\"value\":{}}]}}", PROM_EPARSE,
	  "value' is an object" },
	{ "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\","
	  "\"result\":[{\"metric\":{},\"value\":[1]}]}}", PROM_EPARSE,
	  "has 1 elements, expected 2" },
	{ "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\","
	  "\"result\":[{\"metric\":{},\"value\":[]}]}}", PROM_EPARSE,
	  "has 0 elements" },
	{ VEC("\"1\",3"), PROM_EPARSE, "has 3 elements" },
	{ VEC("1"), PROM_EPARSE, "value is a number, expected a string" },
	{ VEC("null"), PROM_EPARSE, "value is null" },
	{ VEC("[\"1\"]"), PROM_EPARSE, "value is an array" },
	{ VEC("\"abc\""), PROM_EPARSE, "'abc' is not a number" },
	{ VEC("\"\""), PROM_EPARSE, "'' is not a number" },
	{ VEC("\" 1\""), PROM_EPARSE, "' 1' is not a number" },
	{ VEC("\"1 \""), PROM_EPARSE, "'1 ' is not a number" },
	{ VEC("\"1x\""), PROM_EPARSE, "'1x' is not a number" },
	/* C hexadecimal floats: strtod() reads them, Prometheus never writes them */
	{ VEC("\"0x10\""), PROM_EPARSE, "'0x10' is not a number" },
	{ VEC("\"0X1p4\""), PROM_EPARSE, "'0X1p4' is not a number" },
	{ VEC("\"1,5\""), PROM_EPARSE, "'1,5' is not a number" },
	{ DATA("vector", "[{\"metric\":{},\"value\":[\"1\",\"1\"]}]"),
	  PROM_EPARSE, "time is a string" },
	{ DATA("vector", "[{\"metric\":{},\"value\":[1e999,\"1\"]}]"),
	  PROM_EPARSE, "expected a finite number" },
	{ DATA("scalar", "\"1\""), PROM_EPARSE,
	  "'data.result' is a string" },
	{ DATA("scalar", "[1]"), PROM_EPARSE, "has 1 elements" },
	{ DATA("matrix", "[{\"metric\":{},\"values\":[[1,\"1\"]]}]"),
	  PROM_EPARSE, "range vector (resultType 'matrix')" },
	{ DATA("string", "[1,\"x\"]"), PROM_EPARSE,
	  "a string (resultType 'string')" },
	{ DATA("streams", "[]"), PROM_EPARSE,
	  "'streams', expected 'vector' or 'scalar'" },
};

static void test_malformed(void **state)
{
	char err[PROM_ERR_MAX];
	double v = 99;
	size_t i;

	for (i = 0; i < sizeof(bad_instant) / sizeof(bad_instant[0]); i++) {
		const struct bad *b = &bad_instant[i];
		enum prom_err rc = instant(b->body, &v, err);

		if (rc != b->rc || !strstr(err, b->says)) {
			print_error("case %zu: %s\n  got %d '%s'\n", i,
				    b->body, rc, err);
			fail();
		}
	}
	assert_true(v == 99);
}

/* len is authoritative: NULs inside, and no NUL at the end. */
static void test_nul_bytes(void **state)
{
	static const char good[] = VEC("\"5\"");
	char err[PROM_ERR_MAX], *buf;
	double v = 0;
	size_t n = sizeof(good) - 1;

	/* An exact-size heap copy: ASan catches any read past len. */
	buf = malloc(n);
	assert_non_null(buf);
	memcpy(buf, good, n);
	assert_int_equal(prom_parse_instant(buf, n, &v, err, sizeof(err)),
			 PROM_OK);
	assert_true(v == 5);
	/* Cut short: the same bytes minus the last brace. */
	assert_int_equal(prom_parse_instant(buf, n - 1, &v, err,
					    sizeof(err)), PROM_EPARSE);
	free(buf);

	/* A good answer, then a NUL and junk, all within len. */
	buf = malloc(n + 5);
	assert_non_null(buf);
	memcpy(buf, good, n);
	memcpy(buf + n, "\0junk", 5);
	assert_int_equal(prom_parse_instant(buf, n + 5, &v, err,
					    sizeof(err)), PROM_EPARSE);
	check_contains(err, "data after the JSON value");
	/* A NUL in the middle. */
	buf[10] = '\0';
	assert_int_equal(prom_parse_instant(buf, n + 5, &v, err,
					    sizeof(err)), PROM_EPARSE);
	check_contains(err, "not JSON");
	free(buf);

	/* The escape \u0000 in a value ended it ("1" read as 1), and in a
	 * label made two label sets hash alike; an escaped backslash before
	 * "u0000" is text, not the escape */
	v = 0;
	assert_int_equal(prom_parse_instant(VEC("\"1\\u0000junk\""),
					    strlen(VEC("\"1\\u0000junk\"")),
					    &v, err, sizeof(err)), PROM_EPARSE);
	check_contains(err, "NUL character");
	assert_true(v == 0);
	{
		static const char lab[] = "{\"status\":\"success\",\"data\":"
			"{\"resultType\":\"vector\",\"result\":[{\"metric\":"
			"{\"a\":\"x\\\\u0000\"},\"value\":[1,\"3\"]}]}}";

		assert_int_equal(prom_parse_instant(lab, sizeof(lab) - 1, &v,
						    err, sizeof(err)), PROM_OK);
		assert_true(v == 3);
	}
}

static void test_deep_nesting(void **state)
{
	char err[PROM_ERR_MAX], *buf;
	double v;
	size_t n = 200000, i;

	/* Deeper than cJSON's nesting limit: refused, no stack overflow. */
	buf = malloc(n);
	assert_non_null(buf);
	memset(buf, '[', n);
	assert_int_equal(prom_parse_instant(buf, n, &v, err, sizeof(err)),
			 PROM_EPARSE);
	memset(buf, '{', n);
	assert_int_equal(prom_parse_instant(buf, n, &v, err, sizeof(err)),
			 PROM_EPARSE);
	/* Balanced and within the limit: parses, then the shape is wrong. */
	for (i = 0; i < 900; i++) {
		buf[i] = '[';
		buf[1799 - i] = ']';
	}
	assert_int_equal(prom_parse_instant(buf, 1800, &v, err, sizeof(err)),
			 PROM_EPARSE);
	check_contains(err, "is an array, expected a JSON object");
	free(buf);
}

static void test_too_many_values(void **state)
{
	struct text t;
	char err[PROM_ERR_MAX];
	double v;
	int i;

	/* 300k tiny values: would be ~30 MB of cJSON nodes from 600 kB. */
	text_init(&t);
	text_add(&t, "{\"status\":\"success\",\"data\":{\"resultType\":"
		 "\"vector\",\"result\":[0");
	for (i = 0; i < 300000; i++)
		text_add(&t, ",0");
	text_add(&t, "]}}");
	assert_int_equal(instant(t.s, &v, err), PROM_ETOOBIG);
	check_contains(err, "sum()");
	free(t.s);
}

/* ---- range ---------------------------------------------------------- */

#define MATRIX(vals) DATA("matrix", "[{\"metric\":{\"job\":\"api\"}," \
	"\"values\":[" vals "]}]")

/*
 * prom_parse_range() seen as the points it hands on (prom_range_points():
 * what fetch.h's answers hold), so that the expectations are the
 * reply's own times and values.  On error *ts, *vs and *n are untouched.
 */
static enum prom_err range(const char *body, double **ts, double **vs,
			   size_t *n, char *err)
{
	struct prom_range r;
	enum prom_err rc;

	rc = prom_parse_range(body, strlen(body), &r, err, PROM_ERR_MAX);
	if (rc != PROM_OK)
		return rc;
	*ts = malloc(r.points * sizeof(double));
	*vs = malloc(r.points * sizeof(double));
	assert_non_null(*ts);
	assert_non_null(*vs);
	prom_range_points(&r, *ts, *vs);
	*n = r.points;
	prom_range_release(&r);
	return rc;
}

static void test_range_good(void **state)
{
	char err[PROM_ERR_MAX];
	double *ts = NULL, *vs = NULL;
	size_t n = 0;

	assert_int_equal(range(MATRIX("[100,\"1\"],[115,\"2.5\"],"
				      "[130,\"-1e1\"]"), &ts, &vs, &n, err),
			 PROM_OK);
	assert_int_equal(n, 3);
	assert_true(ts[0] == 100 && ts[1] == 115 && ts[2] == 130);
	assert_true(vs[0] == 1 && vs[1] == 2.5 && vs[2] == -10);
	free(ts);
	free(vs);
}

static void test_range_gaps(void **state)
{
	char err[PROM_ERR_MAX];
	double *ts = NULL, *vs = NULL;
	size_t n = 0;

	assert_int_equal(range(MATRIX("[100,\"NaN\"],[115,\"2\"],"
				      "[130,\"+Inf\"],[145,\"3\"],"
				      "[160,\"-Inf\"]"), &ts, &vs, &n, err),
			 PROM_OK);
	assert_int_equal(n, 2);
	assert_true(ts[0] == 115 && vs[0] == 2);
	assert_true(ts[1] == 145 && vs[1] == 3);
	free(ts);
	free(vs);
}

static const struct bad bad_range[] = {
	{ DATA("matrix", "[]"), PROM_EEMPTY, "no series" },
	{ MATRIX(""), PROM_EEMPTY, "no points" },
	{ MATRIX("[1,\"NaN\"],[2,\"NaN\"]"), PROM_ENAN, "every point" },
	{ DATA("matrix", "[{\"metric\":{\"a\":\"1\"},\"values\":[[1,\"1\"]]},"
		"{\"metric\":{\"a\":\"2\"},\"values\":[[1,\"1\"]]}]"),
	  PROM_EMULTI, "2 series" },
	{ DATA("vector", "[{\"metric\":{},\"value\":[1,\"1\"]}]"),
	  PROM_EPARSE, "expected 'matrix'" },
	{ DATA("matrix", "[{\"metric\":{}}]"), PROM_EPARSE,
	  "has no 'values'" },
	{ DATA("matrix", "[{\"metric\":{},\"histograms\":[]}]"),
	  PROM_EPARSE, "native histogram" },
	{ DATA("matrix", "[{\"metric\":{},\"values\":{}}]"), PROM_EPARSE,
	  "'data.result[0].values' is an object" },
	{ MATRIX("[1,\"1\"],[2,\"x\"]"), PROM_EPARSE, "'x' is not a number" },
	{ MATRIX("[1,\"1\"],[2]"), PROM_EPARSE, "values[1]' has 1 elements" },
	{ MATRIX("[1,\"1\"],\"2\""), PROM_EPARSE, "values[1]' is a string" },
	{ MATRIX("[1,\"1\"],[1,\"1\"]"), PROM_EPARSE,
	  "values[1]' is not later" },
	{ MATRIX("[2,\"1\"],[1,\"1\"]"), PROM_EPARSE, "not later" },
	{ MATRIX("[2,\"NaN\"],[1,\"1\"]"), PROM_EPARSE, "not later" },
	{ MATRIX("[1,\"1\"],[1.0005,\"1\"]"), PROM_EPARSE,
	  "values[1]' time 1.000500 is not a whole millisecond" },
	{ MATRIX("[1e12,\"1\"]"), PROM_EPARSE, "values[0]' time 1e+12 is "
	  "out of range" },
	{ MATRIX("[-1e12,\"1\"]"), PROM_EPARSE, "out of range" },
	{ MATRIX("[0,\"1\"],[20,\"1\"],[20.001,\"1\"]"), PROM_EPARSE,
	  "not evenly spaced: the largest step its 3 points share is 1 ms, "
	  "a grid of 20002 slots" },
	{ "{\"status\":\"error\",\"errorType\":\"timeout\",\"error\":\"query "
	  "timed out\"}", PROM_EAPI, "(timeout): query timed out" },
	{ "nope", PROM_EPARSE, "not JSON" },
};

static void test_range_errors(void **state)
{
	char err[PROM_ERR_MAX];
	double *ts = (double *)&err, *vs = (double *)&err;
	size_t n = 77, i;

	for (i = 0; i < sizeof(bad_range) / sizeof(bad_range[0]); i++) {
		const struct bad *b = &bad_range[i];
		enum prom_err rc = range(b->body, &ts, &vs, &n, err);

		if (rc != b->rc || !strstr(err, b->says)) {
			print_error("case %zu: %s\n  got %d '%s'\n", i,
				    b->body, rc, err);
			fail();
		}
	}
	/* Out-parameters untouched on error. */
	assert_true(ts == (double *)&err && vs == (double *)&err && n == 77);
}

/* The grid itself (prom.h): values only, a gap NaN whether the reply left
 * the point out or sent NaN, and times rebuilt as the very doubles the
 * reply's text parses to. */
static void test_range_grid(void **state)
{
	char err[PROM_ERR_MAX];
	struct prom_range r;
	size_t k;

	assert_int_equal(prom_parse_range(MATRIX("[1700000000.123,\"NaN\"],"
			 "[1700000015.123,\"2\"],[1700000045.123,\"3\"],"
			 "[1700000060.123,\"+Inf\"]"), strlen(MATRIX(
			 "[1700000000.123,\"NaN\"],[1700000015.123,\"2\"],"
			 "[1700000045.123,\"3\"],[1700000060.123,\"+Inf\"]")),
			 &r, err, sizeof(err)), PROM_OK);
	assert_true(r.start_ms == 1700000000123LL && r.step_ms == 15000);
	assert_int_equal(r.n, 5);
	assert_int_equal(r.points, 2);
	assert_true(isnan(r.vals[0]) && r.vals[1] == 2 && isnan(r.vals[2]) &&
		    r.vals[3] == 3 && isnan(r.vals[4]));
	assert_true(prom_range_time(&r, 1) == 1700000015.123 &&
		    prom_range_time(&r, 3) == 1700000045.123);
	prom_range_release(&r);
	assert_null(r.vals);

	/* One point: one slot, no step. */
	assert_int_equal(prom_parse_range(MATRIX("[1.001,\"-2\"]"),
			 strlen(MATRIX("[1.001,\"-2\"]")), &r, err,
			 sizeof(err)), PROM_OK);
	assert_true(r.n == 1 && r.points == 1 && r.step_ms == 0 &&
		    r.vals[0] == -2 && prom_range_time(&r, 0) == 1.001);
	prom_range_release(&r);

	/* Times off the query's step but on a coarser common one (250 ms)
	 * are kept as they came. */
	assert_int_equal(prom_parse_range(MATRIX("[1,\"1\"],[2.5,\"2\"],"
			 "[2.75,\"3\"]"), strlen(MATRIX("[1,\"1\"],"
			 "[2.5,\"2\"],[2.75,\"3\"]")), &r, err,
			 sizeof(err)), PROM_OK);
	assert_true(r.step_ms == 250 && r.n == 8 && r.points == 3);
	assert_true(prom_range_time(&r, 6) == 2.5 &&
		    prom_range_time(&r, 7) == 2.75);
	prom_range_release(&r);

	/* Every millisecond time of a day at a 1 s step, from an odd start,
	 * comes back as the double strtod() makes of its text. */
	for (k = 0; k < 1000; k++) {
		char body[256], t[2][64];
		long long ms = 1732560000000LL + (long long)k * 86399 + 7;

		snprintf(t[0], sizeof(t[0]), "%lld.%03lld", ms / 1000,
			 ms % 1000);
		snprintf(t[1], sizeof(t[1]), "%lld.%03lld", (ms + 41000) / 1000,
			 (ms + 41000) % 1000);
		snprintf(body, sizeof(body), MATRIX("[%s,\"1\"],[%s,\"2\"]"),
			 t[0], t[1]);
		assert_int_equal(prom_parse_range(body, strlen(body), &r, err,
						  sizeof(err)), PROM_OK);
		assert_true(r.n == 2 && r.step_ms == 41000);
		assert_true(prom_range_time(&r, 0) == strtod(t[0], NULL));
		assert_true(prom_range_time(&r, 1) == strtod(t[1], NULL));
		prom_range_release(&r);
	}
	prom_range_release(NULL);
}

/* A matrix of npoints points; every third one NaN when gaps. */
static char *matrix_of(int npoints, int gaps)
{
	struct text t;
	int i;

	text_init(&t);
	text_add(&t, "{\"status\":\"success\",\"data\":{\"resultType\":"
		 "\"matrix\",\"result\":[{\"metric\":{},\"values\":[");
	for (i = 0; i < npoints; i++)
		text_add(&t, "%s[%d.5,\"%s\"]", i ? "," : "", 1000 + i,
			 gaps && i % 3 == 0 ? "NaN" : "1.5");
	text_add(&t, "]}]}}");
	return t.s;
}

static void test_range_limits(void **state)
{
	char err[PROM_ERR_MAX], *body;
	double *ts = NULL, *vs = NULL;
	size_t n = 0;

	body = matrix_of(PROM_RANGE_MAX, 1);
	assert_int_equal(range(body, &ts, &vs, &n, err), PROM_OK);
	assert_int_equal(n, PROM_RANGE_MAX - (PROM_RANGE_MAX + 2) / 3);
	assert_true(ts[0] == 1001.5 && vs[n - 1] == 1.5);
	free(ts);
	free(vs);
	free(body);

	body = matrix_of(PROM_RANGE_MAX + 1, 0);
	assert_int_equal(range(body, &ts, &vs, &n, err), PROM_ETOOBIG);
	check_contains(err, "11001 points");
	check_contains(err, "larger step");
	free(body);
}

static void test_strerror(void **state)
{
	int e;

	for (e = PROM_OK; e <= PROM_ENOMEM; e++) {
		const char *s = prom_strerror((enum prom_err)e);

		assert_non_null(s);
		assert_true(strlen(s) > 0 && strlen(s) < 48);
		if (e > PROM_OK)
			assert_string_not_equal(s, prom_strerror(
				(enum prom_err)(e - 1)));
	}
	assert_string_equal(prom_strerror((enum prom_err)99),
			    "unknown error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query_url_encoding),
		cmocka_unit_test(test_query_url_time),
		cmocka_unit_test(test_range_url),
		cmocka_unit_test(test_vector),
		cmocka_unit_test(test_scalar),
		cmocka_unit_test(test_exponent_and_negative),
		cmocka_unit_test(test_err_may_be_null),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_multi),
		cmocka_unit_test(test_multi_long_labels),
		cmocka_unit_test(test_nan_inf),
		cmocka_unit_test(test_status_error),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_nul_bytes),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_too_many_values),
		cmocka_unit_test(test_range_good),
		cmocka_unit_test(test_range_gaps),
		cmocka_unit_test(test_range_errors),
		cmocka_unit_test(test_range_limits),
		cmocka_unit_test(test_range_grid),
		cmocka_unit_test(test_strerror),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
