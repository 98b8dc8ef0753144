/*
 * prom.c - fuzz targets: Prometheus replies and AWS credential replies
 * (see fuzz.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

#include "awscred.h"
#include "prom.h"

/* ---- Prometheus replies -------------------------------------------------- */

#define VEC(v) "{\"status\":\"success\",\"data\":{\"resultType\":" \
	"\"vector\",\"result\":[{\"metric\":{\"job\":\"api\"}," \
	"\"value\":[1700000000.123," v "]}]}}"
#define MAT(v) "{\"status\":\"success\",\"data\":{\"resultType\":" \
	"\"matrix\",\"result\":[{\"metric\":{\"model\":\"x\"}," \
	"\"values\":[" v "]}]}}"

static const char *const prom_instant_corpus[] = {
	VEC("\"27\""),
	VEC("\"-1.5e3\""),
	VEC("\"0.000001\""),
	"{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\","
	"\"result\":[1700000000.5,\"3.25\"]}}",
	"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\","
	"\"result\":[{\"metric\":{},\"value\":[1,\"1\"]}]},"
	"\"warnings\":[\"w\"],\"infos\":[\"i\"]}\n",
	" {\"data\":{\"result\":[{\"value\":[1.5,\"7\"]}],"
	"\"resultType\":\"vector\"},\"status\":\"success\"} ",
};

static const char *const prom_range_corpus[] = {
	MAT("[1,\"1\"],[2,\"2\"],[3,\"3\"]"),
	MAT("[1700000000,\"0.5\"],[1700000005,\"NaN\"],"
	    "[1700000010,\"1e3\"]"),
	MAT("[1.001,\"-2\"]"),
	MAT("[1700000000.123,\"NaN\"],[1700000015.123,\"1\"],"
	    "[1700000045.123,\"2\"],[1700000060.123,\"+Inf\"]"),
	MAT("[1,\"1\"],[2.5,\"2\"],[2.75,\"3\"]"),
};

static const char *const prom_words[] = {
	"status", "success", "error", "data", "resultType", "vector",
	"scalar", "matrix", "string", "result", "metric", "value", "values",
	"histogram", "histograms", "errorType", "bad_data", "warnings",
	"\"NaN\"", "\"+Inf\"", "\"-Inf\"", "\"1e400\"", "1e400", "null",
	"true", "[1,\"2\"]", "[1,\"2\",3]", "{\"a\":\"b\"}", "[]", "{}",
	"\"status\":\"success\",", "\"status\":\"error\",",
	"\"resultType\":\"matrix\",", "{\"metric\":{},\"value\":[1,\"1\"]},",
	"\"result\":[],", "\\\"", "\\u00e9",
};

/* Structured replies: the shape right, the content hostile. */
static void prom_gen(struct fz *r, struct fz_buf *b)
{
	static const char *const values[] = {
		"\"NaN\"", "\"+Inf\"", "\"-Inf\"", "\"1e400\"", "\"-1e400\"",
		"\"1e-400\"", "\"0x10\"", "\" 1\"", "\"1 \"", "\"\"",
		"\"infinity\"", "\"nan(1)\"", "1", "null", "[]", "{}",
		"\"1\\u0000\"", "true", "\"\xff\"", "\"5\"",
	};
	static const char *const types[] = {
		"vector", "scalar", "matrix", "string", "Vector", "", "\xc3",
	};
	struct fz_dict d = { prom_words,
			     sizeof(prom_words) / sizeof(prom_words[0]) };
	size_t n, i, depth;
	long long step, t;
	int hostile;
	const char *type = types[fz_below(r, sizeof(types) / sizeof(types[0]))];

	switch (fz_below(r, 6)) {
	case 0: /* any JSON, keys from the API */
		fz_json(r, b, &d, 0);
		break;
	case 1: /* many points, near and past the limits */
		n = fz_one_in(r, 4) ? PROM_RANGE_MAX - 2 + fz_below(r, 4) :
		    fz_one_in(r, 8) ? fz_below(r, 100000) : fz_below(r, 50);
		fz_append(b, "{\"status\":\"success\",\"data\":{\"resultType\""
			  ":\"%s\",\"result\":[{\"values\":[", type);
		for (i = 0; i < n && b->len < FZ_MAX - 64; i++)
			fz_append(b, "%s[%zu,\"%zu\"]", i ? "," : "", i + 1,
				  i);
		fz_puts(b, "]}]}}");
		break;
	case 2: /* many series */
		n = fz_one_in(r, 8) ? fz_below(r, 50000) : fz_below(r, 50);
		fz_append(b, "{\"status\":\"success\",\"data\":{\"resultType\""
			  ":\"%s\",\"result\":[", type);
		for (i = 0; i < n && b->len < FZ_MAX - 64; i++)
			fz_append(b, "%s{\"metric\":{\"i\":\"%zu\"},\"value\":"
				  "[1,\"1\"]}", i ? "," : "", i);
		fz_puts(b, "]}}");
		break;
	case 3: /* deep nesting in the value */
		depth = fz_one_in(r, 2) ? 995 + fz_below(r, 10)
					: fz_below(r, 200000);
		fz_append(b, "{\"status\":\"success\",\"data\":{\"resultType\""
			  ":\"%s\",\"result\":", type);
		for (i = 0; i < depth && b->len < FZ_MAX / 2; i++)
			fz_puts(b, "[");
		n = i;
		for (i = 0; i < n; i++)
			fz_puts(b, "]");
		fz_puts(b, "}}");
		break;
	case 4: /* times on a grid, between milliseconds, far out, late */
		n = fz_one_in(r, 8) ? PROM_RANGE_MAX : fz_below(r, 60);
		step = fz_one_in(r, 2) ? 15000 : 1 + (long long)fz_below(r,
								      60000);
		t = 1700000000123LL;
		hostile = fz_one_in(r, 3);
		fz_append(b, "{\"status\":\"success\",\"data\":{\"resultType\""
			  ":\"matrix\",\"result\":[{\"values\":[");
		for (i = 0; i < n && b->len < FZ_MAX - 96; i++) {
			static const char *const times[] = {
				"1700000000.1235", "1e12", "-1e12", "1e300",
				"0", "1700000000.123", "1.7e9", "-0.001",
				"9007199254740.993", "1700000000.1229999999",
			};
			if (i > 0)      /* the next point, or one after a gap */
				t += step * (fz_one_in(r, 3) ? 1 + (long long)
					     fz_below(r, 40) : 1);
			if (hostile && fz_one_in(r, 12))
				fz_append(b, "%s[%s,%s]", i ? "," : "",
					  times[fz_below(r, 10)],
					  values[fz_below(r, 20)]);
			else
				fz_append(b, "%s[%lld.%03lld,\"%zu\"]",
					  i ? "," : "", t / 1000, t % 1000, i);
		}
		fz_puts(b, "]}]}}");
		break;
	default: /* duplicate keys, wrong types, numbers as strings */
		fz_append(b, "{\"status\":\"%s\",\"status\":\"success\","
			  "\"data\":{\"resultType\":\"%s\",\"resultType\":"
			  "\"%s\",\"result\":[{\"metric\":%s,\"value\":[%s,%s]"
			  ",\"values\":[[1,%s],[%s,%s]]}]}}",
			  fz_one_in(r, 2) ? "error" : "success", type,
			  types[fz_below(r, sizeof(types) / sizeof(types[0]))],
			  fz_one_in(r, 2) ? "{}" : values[fz_below(r, 20)],
			  fz_one_in(r, 2) ? "1" : values[fz_below(r, 20)],
			  values[fz_below(r, 20)], values[fz_below(r, 20)],
			  fz_one_in(r, 2) ? "2" : values[fz_below(r, 20)],
			  values[fz_below(r, 20)]);
		break;
	}
}

static int prom_err_known(enum prom_err e)
{
	return e >= PROM_OK && e <= PROM_ENOMEM;
}

static void check_prom_instant(struct fz *r, const char *in, size_t len,
			       int valid)
{
	char *body = fz_copy(in, len, 0);
	char err[PROM_ERR_MAX];
	double v = -12345.5, w = -12345.5;
	enum prom_err rc, rc2;

	memset(err, 'x', sizeof(err));
	rc = prom_parse_instant(body, len, &v, err, sizeof(err));
	FZ_CHECK(prom_err_known(rc), "unknown code %d", (int)rc);
	FZ_CHECK(!valid || rc == PROM_OK, "valid reply refused: %s", err);
	if (rc == PROM_OK) {
		fz_accepted++;
		FZ_CHECK(isfinite(v), "value %g is not finite", v);
	} else {
		FZ_CHECK(v == -12345.5, "out set on error %d", (int)rc);
		FZ_CHECK(rc != PROM_EHTTP && rc != PROM_ESTATUS,
			 "transport code %d from a parser", (int)rc);
		fz_check_msg(err, sizeof(err), "prom_parse_instant");
	}
	/* The same answer without an error buffer, and with a small one. */
	rc2 = prom_parse_instant(body, len, &w, NULL, 0);
	FZ_CHECK(rc2 == rc, "code %d without err, %d with", (int)rc2, (int)rc);
	FZ_CHECK(rc != PROM_OK || w == v, "value %g then %g", v, w);
	if (rc != PROM_OK && fz_one_in(r, 4)) {
		char small[8];

		rc2 = prom_parse_instant(body, len, &w, small, sizeof(small));
		FZ_CHECK(rc2 == rc && strnlen(small, sizeof(small)) <
			 sizeof(small), "small err buffer");
	}
	free(body);
}

static void check_prom_range(struct fz *r, const char *in, size_t len,
			     int valid)
{
	char *body = fz_copy(in, len, 0);
	char err[PROM_ERR_MAX];
	struct prom_range g, untouched;
	double *ts = NULL, *vals = NULL;
	size_t i, points = 0;
	enum prom_err rc;

	(void)r;
	memset(err, 'x', sizeof(err));
	memset(&g, 0x5a, sizeof(g));
	untouched = g;
	rc = prom_parse_range(body, len, &g, err, sizeof(err));
	FZ_CHECK(prom_err_known(rc), "unknown code %d", (int)rc);
	FZ_CHECK(!valid || rc == PROM_OK, "valid reply refused: %s", err);
	if (rc == PROM_OK) {
		fz_accepted++;
		FZ_CHECK(g.n >= 1 && g.n <= PROM_RANGE_MAX, "%u slots", g.n);
		FZ_CHECK(g.points >= 1 && g.points <= g.n, "%u points of %u",
			 g.points, g.n);
		FZ_CHECK((g.n == 1) == (g.step_ms == 0) && g.step_ms >= 0,
			 "step %lld ms with %u slots", g.step_ms, g.n);
		for (i = 0; i < g.n; i++) {
			FZ_CHECK(isnan(g.vals[i]) || isfinite(g.vals[i]),
				 "slot %zu: %g", i, g.vals[i]);
			points += !isnan(g.vals[i]);
		}
		FZ_CHECK(points == g.points, "%zu values, %u said", points,
			 g.points);
		ts = malloc(g.points * sizeof(double));
		vals = malloc(g.points * sizeof(double));
		FZ_CHECK(ts && vals, "out of memory");
		prom_range_points(&g, ts, vals);
		for (i = 0; i < g.points; i++) {
			FZ_CHECK(isfinite(ts[i]) && isfinite(vals[i]),
				 "point %zu: %g %g", i, ts[i], vals[i]);
			FZ_CHECK(i == 0 || ts[i] > ts[i - 1],
				 "point %zu not after the one before", i);
			/* a time is whole ms: rebuilt, it is the same */
			FZ_CHECK((double)llround(ts[i] * 1000) / 1000 == ts[i],
				 "point %zu: time %.9f", i, ts[i]);
		}
		free(ts);
		free(vals);
		prom_range_release(&g);
	} else {
		FZ_CHECK(!memcmp(&g, &untouched, sizeof(g)),
			 "outputs set on error");
		fz_check_msg(err, sizeof(err), "prom_parse_range");
	}
	free(body);
}

FZ_TEST(prom_instant, prom_instant_corpus, prom_words,
	6000, check_prom_instant, prom_gen, 8)

FZ_TEST(prom_range, prom_range_corpus, prom_words,
	5000, check_prom_range, prom_gen, 8)

/* ---- AWS credential replies (STS XML, container JSON) --------------------- */

static const char *const aws_corpus[] = {
	"<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult>"
	"<Credentials><AccessKeyId>ASIAX</AccessKeyId><SecretAccessKey>s/+="
	"</SecretAccessKey><SessionToken>t&amp;t</SessionToken><Expiration>"
	"2027-01-15T08:00:00Z</Expiration></Credentials>"
	"</AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>",
	"<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code>"
	"<Message>Not authorized</Message></Error></ErrorResponse>",
	"{\"AccessKeyId\":\"ASIAP\",\"SecretAccessKey\":\"s\",\"Token\":"
	"\"t\",\"Expiration\":\"2027-01-15T08:00:00.5Z\"}",
	"{\"AccessKeyId\":\"A\",\"SecretAccessKey\":\"s\"}",
};

static const char *const aws_words[] = {
	"<AccessKeyId>", "</AccessKeyId>", "<SecretAccessKey>",
	"</SecretAccessKey>", "<SessionToken>", "</SessionToken>",
	"<Expiration>", "</Expiration>", "<Code>", "</Code>", "<Message>",
	"&amp;", "&lt;", "&#0;", "&", "<", "\"Expiration\"", "\"Token\"",
	"2027-01-15T08:00:00Z", "9999-12-31T23:59:60Z", "+00:00", ".",
	"\x00", "\n", "\x1b[2J", "null", "[]", "{}",
};

/* Both parsers on the same bytes: 0 with every field printable and the
 * expiry a time, or -1 with a message and *out untouched. */
static void check_aws(struct fz *r, const char *in, size_t len, int valid)
{
	char *body = fz_copy(in, len, 0);
	char why[AWSCRED_ERR_MAX];
	struct awscred c, seen;
	int k, rc;
	size_t i;

	(void)r;
	(void)valid;
	for (k = 0; k < 2; k++) {
		memset(&c, 0x5a, sizeof(c));
		seen = c;
		memset(why, 'x', sizeof(why));
		rc = k ? awscred_parse_container(body, len, 1e9, &c, why,
						 sizeof(why))
		       : awscred_parse_sts(body, len, &c, why, sizeof(why));
		if (rc == 0) {
			fz_accepted++;
			FZ_CHECK(c.id[0] && c.secret[0], "empty key");
			for (i = 0; c.token[i]; i++)
				FZ_CHECK(c.token[i] > ' ' && c.token[i] < 0x7f,
					 "token byte 0x%02x",
					 (unsigned char)c.token[i]);
			FZ_CHECK(c.expires >= 0 && c.expires < 3e11,
				 "expiry %g", c.expires);
		} else {
			FZ_CHECK(rc == -1, "code %d", rc);
			FZ_CHECK(!memcmp(&c, &seen, sizeof(c)),
				 "out set on error");
			fz_check_msg(why, sizeof(why), k ?
				     "awscred_parse_container" :
				     "awscred_parse_sts");
		}
	}
	free(body);
}

FZ_TEST(awscred, aws_corpus, aws_words, 4000, check_aws, NULL, 0)
