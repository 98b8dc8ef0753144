/*
 * prom.c - Prometheus HTTP API: query URLs and reply parsing (see prom.h).
 *
 * A reply is untrusted input: it comes from whatever answers at the backend
 * URL, which may be a proxy's HTML error page, a truncated transfer or a
 * hostile server.  Every path below ends in one number or in one error
 * with a one-line explanation.  Nothing is read past len, text quoted in
 * an error is cut short and made printable, and the memory cJSON may use is
 * bounded by PROM_VALUES_MAX before it parses anything.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ascii.h"
#include "jsonnul.h"
#include "prom.h"
#include "show.h"

/*
 * At most this many JSON values in one reply.  A cJSON node costs about
 * 100 bytes, so this caps the parse tree near 25 MiB whatever the body cap.
 * One series of PROM_RANGE_MAX points needs about 3 values a point; an
 * instant answer with tens of thousands of series (a query missing sum())
 * is over the limit and gets PROM_ETOOBIG with the same hint.
 */
#define PROM_VALUES_MAX (256 * 1024)

#define PROM_SHOW_MAX 80    /* bytes of reply text quoted in an error */
#define PROM_LABELS_MAX 120 /* bytes of a label set quoted in an error */
#define PROM_TIME_MAX 32    /* a formatted time, with NUL */

const char *prom_strerror(enum prom_err e)
{
	switch (e) {
	case PROM_OK:
		return "success";
	case PROM_EHTTP:
		return "backend unreachable";
	case PROM_ESTATUS:
		return "backend HTTP error status";
	case PROM_EPARSE:
		return "malformed backend reply";
	case PROM_EAPI:
		return "backend query error";
	case PROM_EQUERY:
		return "query rejected by the backend";
	case PROM_EEMPTY:
		return "query returned no series";
	case PROM_EMULTI:
		return "query returned several series";
	case PROM_ENAN:
		return "query returned NaN or infinity";
	case PROM_ETOOBIG:
		return "backend reply too large";
	case PROM_ENOMEM:
		return "out of memory";
	}
	return "unknown error";
}

/* ---- URLs ------------------------------------------------------------ */

/*
 * RFC 3986 unreserved characters go as they are; every other byte,
 * including each byte of a UTF-8 sequence, is percent-encoded.  Encoding
 * more than strictly needed is always safe, and '+' in particular must not
 * go raw: Prometheus decodes the query string as a form, where '+' is a
 * space.
 */
static int prom_unreserved(unsigned char ch)
{
	return ascii_is_alnum(ch) || ch == '-' || ch == '.' || ch == '_' ||
	       ch == '~';
}

/* Write the escaped src at dst, which has room for 3 * strlen(src) bytes.
 * Returns the end of what was written. */
static char *prom_escape(char *dst, const char *src)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *s;

	for (s = (const unsigned char *)src; *s; s++) {
		if (prom_unreserved(*s)) {
			*dst++ = (char)*s;
		} else {
			*dst++ = '%';
			*dst++ = hex[*s >> 4];
			*dst++ = hex[*s & 0x0f];
		}
	}
	return dst;
}

/*
 * Format a time or duration in seconds as the API takes it; Prometheus
 * keeps milliseconds, so "%.3f" loses nothing.  Returns 0, or -1 when t
 * is not finite or too large to be a time (the buffer stays bounded).
 */
static int prom_fmt_time(char buf[PROM_TIME_MAX], double t)
{
	int n;

	if (!isfinite(t) || fabs(t) >= 1e15)
		return -1;
	n = snprintf(buf, PROM_TIME_MAX, "%.3f", t);
	return (n > 0 && n < PROM_TIME_MAX) ? 0 : -1;
}

/*
 * base (less one trailing slash) + path + escaped query + params.  path
 * ends in "query=" and params is "" or starts with '&'.
 *
 * The parameters are in the order SigV4 signs them (sorted by name): AWS
 * recomputes the signature over the sorted query, and libcurl 7.88
 * (bookworm) signs the query as written, so any other order makes Amazon
 * Managed Prometheus answer 403 to a correctly signed request.
 */
static char *prom_url(const char *base, const char *path, const char *query,
		      const char *params)
{
	size_t blen, plen, qlen, xlen;
	char *url = NULL, *p;

	if (!base || !query)
		goto out;
	blen = strlen(base);
	plen = strlen(path);
	qlen = strlen(query);
	xlen = strlen(params);
	if (blen > 0 && base[blen - 1] == '/')
		blen--;
	if (qlen > (SIZE_MAX - blen - plen - xlen - 1) / 3)
		goto out;
	url = malloc(blen + plen + 3 * qlen + xlen + 1);
	if (!url)
		goto out;
	memcpy(url, base, blen);
	p = url + blen;
	memcpy(p, path, plen);
	p = prom_escape(p + plen, query);
	memcpy(p, params, xlen + 1);
out:
	return url;
}

char *prom_query_url(const char *base, const char *query, double time_s)
{
	char t[PROM_TIME_MAX], params[PROM_TIME_MAX + 8] = "";

	if (time_s > 0) {
		if (prom_fmt_time(t, time_s))
			return NULL;
		snprintf(params, sizeof(params), "&time=%s", t);
	}
	return prom_url(base, "/api/v1/query?query=", query, params);
}

char *prom_range_url(const char *base, const char *query, double start_s,
		     double end_s, double step_s)
{
	char s[PROM_TIME_MAX], e[PROM_TIME_MAX], st[PROM_TIME_MAX];
	char path[PROM_TIME_MAX + 40], params[2 * PROM_TIME_MAX + 24];

	/* A step that rounds to 0 ms would ask for unbounded points. */
	if (!(step_s >= 0.001) || prom_fmt_time(s, start_s) ||
	    prom_fmt_time(e, end_s) || prom_fmt_time(st, step_s))
		return NULL;
	/* end, query, start, step: sorted (prom_url) */
	snprintf(path, sizeof(path), "/api/v1/query_range?end=%s&query=", e);
	snprintf(params, sizeof(params), "&start=%s&step=%s", s, st);
	return prom_url(base, path, query, params);
}

/* ---- error text -------------------------------------------------------- */

static void prom_seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* err may be NULL or errlen 0: callers that only want the code. */
static void prom_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Untrusted text (srclen bytes, NULs included), made safe to quote in an
 * error message (see show.h).  dst has PROM_SHOW_MAX + 4 bytes. */
static void prom_show(char dst[PROM_SHOW_MAX + 4], const char *src,
		      size_t srclen)
{
	show_text(dst, PROM_SHOW_MAX, src, srclen);
}

static void prom_show_str(char dst[PROM_SHOW_MAX + 4], const char *s)
{
	prom_show(dst, s, strlen(s));
}

/*
 * A series' label set as {a="x", b="y"}, cut at PROM_LABELS_MAX bytes, to
 * tell users which series their query returned.
 */
static void prom_labels(char dst[PROM_LABELS_MAX + 4], const cJSON *metric)
{
	const cJSON *labels = cJSON_IsObject(metric) ? metric : NULL, *l;
	size_t n = 0;
	char k[PROM_SHOW_MAX + 4], v[PROM_SHOW_MAX + 4];
	int w;

	dst[n++] = '{';
	dst[n] = '\0';
	cJSON_ArrayForEach(l, labels) {
		prom_show_str(k, l->string ? l->string : "");
		prom_show_str(v, cJSON_IsString(l) ? l->valuestring : "?");
		w = snprintf(dst + n, PROM_LABELS_MAX - n, "%s%s=\"%s\"",
			     n > 1 ? ", " : "", k, v);
		if (w < 0 || (size_t)w >= PROM_LABELS_MAX - n) {
			/* Cut: end on "...}" within the buffer's slack. */
			n = strlen(dst);
			memcpy(dst + n, "...", 4);
			n += 3;
			break;
		}
		n += (size_t)w;
	}
	dst[n++] = '}';
	dst[n] = '\0';
}

/* ---- the reply envelope ------------------------------------------------ */

/*
 * An upper bound on the JSON values in body: each value but the first
 * follows '[', '{' or ','.  Bytes inside strings are counted too, which
 * only makes the bound larger.  Stops counting past the limit.
 */
static size_t prom_count_values(const char *body, size_t len)
{
	size_t i, n = 1;

	for (i = 0; i < len && n <= PROM_VALUES_MAX; i++)
		if (body[i] == ',' || body[i] == '[' || body[i] == '{')
			n++;
	return n;
}

/* A parsed reply with "status":"success": the tree and data's fields. */
struct prom_reply {
	cJSON *root;           /* owned; cJSON_Delete() it */
	const char *type;      /* data.resultType */
	const cJSON *result;   /* data.result */
};

/* PROM_EAPI: Prometheus' own explanation, e.g. a PromQL syntax error. */
static enum prom_err prom_api_error(const cJSON *root, char *err,
				    size_t errlen)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(root,
							     "errorType");
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(root, "error");
	char t[PROM_SHOW_MAX + 4] = "unknown", m[PROM_SHOW_MAX + 4];

	if (cJSON_IsString(type))
		prom_show_str(t, type->valuestring);
	if (cJSON_IsString(msg))
		prom_show_str(m, msg->valuestring);
	else
		snprintf(m, sizeof(m), "(no message)");
	prom_seterr(err, errlen, "backend error (%s): %s", t, m);
	/* bad_data is Prometheus' word for a query it cannot parse or run
	 * as given: the user's mistake, not an outage. */
	return strcmp(t, "bad_data") ? PROM_EAPI : PROM_EQUERY;
}

/*
 * Parse body and check the envelope both query kinds share: an object with
 * "status":"success" and a "data" object holding a "resultType" string and
 * a "result".  On PROM_OK r->root owns the tree; on error it is NULL.
 */
static enum prom_err prom_open(struct prom_reply *r, const char *body,
			       size_t len, char *err, size_t errlen)
{
	cJSON *root = NULL;
	const cJSON *status, *data, *type = NULL, *result = NULL;
	const char *end = NULL;
	char shown[PROM_SHOW_MAX + 4];
	size_t at;
	enum prom_err rc = PROM_EPARSE;

	if (!body || len == 0) {
		prom_seterr(err, errlen, "empty reply");
		goto out;
	}
	if (prom_count_values(body, len) > PROM_VALUES_MAX) {
		rc = PROM_ETOOBIG;
		prom_seterr(err, errlen,
			    "reply holds more than %d JSON values; one "
			    "series is far smaller (if the query returns many "
			    "series, wrap it in sum())", PROM_VALUES_MAX);
		goto out;
	}
	/* a NUL in a string would end a value or make two label sets
	 * hash alike; Prometheus never sends one */
	if (jsonnul_find(body, len) < len) {
		prom_seterr(err, errlen, "reply holds a NUL character "
			    "(\\u0000) in a string; a Prometheus reply never "
			    "does");
		goto out;
	}
	/*
	 * len is authoritative: the body may hold NULs and need not be
	 * NUL-terminated.  cJSON stops at CJSON_NESTING_LIMIT (1000) levels,
	 * so deep nesting is an error, not a stack overflow.  cJSON also
	 * stores the error position in a global that concurrent parses race
	 * on; nothing reads it (end gives the position), but TSan will say so.
	 */
	root = cJSON_ParseWithLengthOpts(body, len, &end, 0);
	at = (end && end >= body && end <= body + len) ?
		(size_t)(end - body) : len;
	if (!root) {
		/* cJSON puts an early end at the last byte. */
		prom_show(shown, body, len);
		prom_seterr(err, errlen, "reply is not JSON (error at byte "
			    "%zu of %zu): '%s'", at, len, shown);
		goto out;
	}
	for (; at < len; at++) {
		if (!ascii_is_json_space(body[at])) {
			prom_seterr(err, errlen, "reply has data after the "
				    "JSON value, at byte %zu of %zu", at, len);
			goto out;
		}
	}
	if (!cJSON_IsObject(root)) {
		prom_seterr(err, errlen, "reply is %s, expected a JSON "
			    "object", show_json_kind(root));
		goto out;
	}
	status = cJSON_GetObjectItemCaseSensitive(root, "status");
	if (!cJSON_IsString(status)) {
		prom_seterr(err, errlen, "reply 'status' is %s, expected "
			    "a string", show_json_kind(status));
		goto out;
	}
	if (!strcmp(status->valuestring, "error")) {
		rc = prom_api_error(root, err, errlen);
		goto out;
	}
	if (strcmp(status->valuestring, "success")) {
		prom_show_str(shown, status->valuestring);
		prom_seterr(err, errlen, "reply 'status' is '%s', expected "
			    "'success' or 'error'", shown);
		goto out;
	}
	data = cJSON_GetObjectItemCaseSensitive(root, "data");
	if (!cJSON_IsObject(data)) {
		prom_seterr(err, errlen, "reply 'data' is %s, expected an "
			    "object", show_json_kind(data));
		goto out;
	}
	type = cJSON_GetObjectItemCaseSensitive(data, "resultType");
	if (!cJSON_IsString(type)) {
		prom_seterr(err, errlen, "reply 'data.resultType' is %s, "
			    "expected a string", show_json_kind(type));
		goto out;
	}
	result = cJSON_GetObjectItemCaseSensitive(data, "result");
	if (!result) {
		prom_seterr(err, errlen, "reply has no 'data.result'");
		goto out;
	}
	rc = PROM_OK;
out:
	if (rc == PROM_OK) {
		r->root = root;
		r->type = type->valuestring;
		r->result = result;
	} else {
		cJSON_Delete(root);
	}
	return rc;
}

/* ---- samples ----------------------------------------------------------- */

/*
 * A sample [<unix time>, "<value>"] at `where` (e.g. "data.result[0].value";
 * idx >= 0 appends "[idx]").  Sets *ts and *text (which points into pair).
 */
static enum prom_err prom_pair(const cJSON *pair, const char *where, int idx,
			       double *ts, const char **text, char *err,
			       size_t errlen)
{
	const cJSON *t, *v;
	char at[64];
	enum prom_err rc = PROM_EPARSE;

	if (idx >= 0)
		snprintf(at, sizeof(at), "%s[%d]", where, idx);
	else
		snprintf(at, sizeof(at), "%s", where);
	if (!cJSON_IsArray(pair)) {
		prom_seterr(err, errlen, "reply '%s' is %s, expected a "
			    "[time, \"value\"] array", at, show_json_kind(pair));
		goto out;
	}
	t = cJSON_GetArrayItem(pair, 0);
	v = cJSON_GetArrayItem(pair, 1);
	if (!t || !v || cJSON_GetArrayItem(pair, 2)) {
		prom_seterr(err, errlen, "reply '%s' has %d elements, "
			    "expected 2: [time, \"value\"]", at,
			    cJSON_GetArraySize(pair));
		goto out;
	}
	if (!cJSON_IsNumber(t) || !isfinite(t->valuedouble)) {
		prom_seterr(err, errlen, "reply '%s' time is %s, expected "
			    "a finite number", at, show_json_kind(t));
		goto out;
	}
	if (!cJSON_IsString(v)) {
		prom_seterr(err, errlen, "reply '%s' value is %s, expected "
			    "a string holding a number", at, show_json_kind(v));
		goto out;
	}
	rc = PROM_OK;
out:
	if (rc == PROM_OK) {
		*ts = t->valuedouble;
		*text = v->valuestring;
	}
	return rc;
}

/*
 * A sample value as Prometheus writes it: a decimal or exponent number in a
 * string (not hexadecimal), or "NaN", "+Inf", "-Inf".  The whole string must be a number.
 * Anything that reads as non-finite (NaN, Inf, an overflow like "1e999")
 * is PROM_ENAN: the signal is unknown.  strtod() follows the C locale,
 * which the process never changes.
 */
static enum prom_err prom_value(const char *text, double *out, char *err,
				size_t errlen)
{
	char shown[PROM_SHOW_MAX + 4];
	char *end = NULL;
	double v = 0;
	enum prom_err rc = PROM_EPARSE;

	prom_show_str(shown, text);
	if (text[0] == '\0' || ascii_is_json_space(text[0]) ||
	    text[0] == '\v' || text[0] == '\f') {
		prom_seterr(err, errlen, "sample value '%s' is not a number",
			    shown);
		goto out;
	}
	/* strtod() also reads C's hexadecimal floats ("0x10", "0x1p4"),
	 * which Prometheus never writes: a reply holding one is not from a
	 * Prometheus API. */
	v = strpbrk(text, "xX") ? 0 : strtod(text, &end);
	if (end == text || end == NULL || *end != '\0') {
		prom_seterr(err, errlen, "sample value '%s' is not a number",
			    shown);
		goto out;
	}
	if (!isfinite(v)) {
		rc = PROM_ENAN;
		prom_seterr(err, errlen, "sample value is '%s': the signal "
			    "is unknown", shown);
		goto out;
	}
	rc = PROM_OK;
out:
	if (rc == PROM_OK)
		*out = v;
	return rc;
}

/* The text of an empty result. */
static enum prom_err prom_no_series(char *err, size_t errlen)
{
	prom_seterr(err, errlen, "query returned no series: the signal is "
		    "unknown (if no series means zero while the exporter is "
		    "up, append 'or (0 * max(up{job=\"...\"} == 1))': "
		    "docs/cookbook.md)");
	return PROM_EEMPTY;
}

/*
 * The one series of a vector or matrix result.  Empty is PROM_EEMPTY (the
 * signal is unknown, not zero); several is PROM_EMULTI, naming the count
 * and one label set so users can see what to aggregate away.
 */
static enum prom_err prom_series(const cJSON *result, const cJSON **out,
				 char *err, size_t errlen)
{
	const cJSON *s, *metric;
	char labels[PROM_LABELS_MAX + 4];
	int n;
	enum prom_err rc = PROM_EPARSE;

	if (!cJSON_IsArray(result)) {
		prom_seterr(err, errlen, "reply 'data.result' is %s, expected "
			    "an array of series", show_json_kind(result));
		goto out;
	}
	n = cJSON_GetArraySize(result);
	s = result->child;
	if (n == 0) {
		rc = prom_no_series(err, errlen);
		goto out;
	}
	if (!cJSON_IsObject(s)) {
		prom_seterr(err, errlen, "reply 'data.result[0]' is %s, "
			    "expected a series object", show_json_kind(s));
		goto out;
	}
	metric = cJSON_GetObjectItemCaseSensitive(s, "metric");
	if (metric && !cJSON_IsObject(metric)) {
		prom_seterr(err, errlen, "reply 'data.result[0].metric' is "
			    "%s, expected an object of labels",
			    show_json_kind(metric));
		goto out;
	}
	if (n > 1) {
		rc = PROM_EMULTI;
		prom_labels(labels, metric);
		prom_seterr(err, errlen, "query returned %d series, expected "
			    "one: wrap it in sum() or another aggregation; "
			    "one of them is %s", n, labels);
		goto out;
	}
	rc = PROM_OK;
out:
	if (rc == PROM_OK)
		*out = s;
	return rc;
}

/* The float samples of a series under key, or why there are none. */
static enum prom_err prom_samples(const cJSON *series, const char *key,
				  const char *hkey, const cJSON **out,
				  char *err, size_t errlen)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(series, key);

	if (!it && cJSON_GetObjectItemCaseSensitive(series, hkey)) {
		prom_seterr(err, errlen, "the series is a native histogram, "
			    "not a number: use histogram_count(), "
			    "histogram_sum() or histogram_quantile()");
		return PROM_EPARSE;
	}
	if (!it) {
		prom_seterr(err, errlen, "reply 'data.result[0]' has no "
			    "'%s'", key);
		return PROM_EPARSE;
	}
	*out = it;
	return PROM_OK;
}

/* ---- instant queries --------------------------------------------------- */

enum prom_err prom_parse_instant(const char *body, size_t len, double *out,
				 char *err, size_t errlen)
{
	double ts;

	return prom_parse_sample(body, len, out, &ts, err, errlen);
}

enum prom_err prom_parse_sample(const char *body, size_t len, double *out,
				double *ts_out, char *err, size_t errlen)
{
	struct prom_reply r = { NULL, NULL, NULL };
	const cJSON *series, *pair = NULL;
	const char *where = "data.result[0].value", *text = NULL;
	double ts, v = 0;
	enum prom_err rc;

	rc = prom_open(&r, body, len, err, errlen);
	if (rc)
		goto out;
	if (!strcmp(r.type, "vector")) {
		rc = prom_series(r.result, &series, err, errlen);
		if (rc)
			goto out;
		rc = prom_samples(series, "value", "histogram", &pair, err,
				  errlen);
		if (rc)
			goto out;
	} else if (!strcmp(r.type, "scalar")) {
		pair = r.result;
		where = "data.result";
	} else if (!strcmp(r.type, "matrix")) {
		rc = PROM_EPARSE;
		prom_seterr(err, errlen, "reply is a range vector "
			    "(resultType 'matrix'), not a number: drop the "
			    "[range] selector or wrap it in a function such "
			    "as rate()");
		goto out;
	} else if (!strcmp(r.type, "string")) {
		rc = PROM_EPARSE;
		prom_seterr(err, errlen, "reply is a string (resultType "
			    "'string'), not a number");
		goto out;
	} else {
		char shown[PROM_SHOW_MAX + 4];

		rc = PROM_EPARSE;
		prom_show_str(shown, r.type);
		prom_seterr(err, errlen, "reply 'data.resultType' is '%s', "
			    "expected 'vector' or 'scalar'", shown);
		goto out;
	}
	rc = prom_pair(pair, where, -1, &ts, &text, err, errlen);
	if (rc)
		goto out;
	rc = prom_value(text, &v, err, errlen);
out:
	if (rc == PROM_OK) {
		*out = v;
		*ts_out = ts;
	}
	cJSON_Delete(r.root);
	return rc;
}

/* ---- range queries ----------------------------------------------------- */

/* Times of range points are kept in whole ms (prom.h); beyond this a
 * double holds no milliseconds any more (2^53 ms is 9e12 s). */
#define PROM_TIME_ABS_MAX 1e12

static long long prom_gcd(long long a, long long b)
{
	while (b) {
		long long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * The time of point i of a range as whole milliseconds in *ms, or why
 * not: a time with a finer fraction cannot be rebuilt from the grid
 * (prom_range_time()) as the same double.
 */
static enum prom_err prom_range_ms(double when, int i, long long *ms,
				   char *err, size_t errlen)
{
	long long t;

	if (!(fabs(when) < PROM_TIME_ABS_MAX)) {
		prom_seterr(err, errlen, "reply 'data.result[0].values[%d]' "
			    "time %g is out of range", i, when);
		return PROM_EPARSE;
	}
	t = llround(when * 1000.0);
	if ((double)t / 1000.0 != when) {
		prom_seterr(err, errlen, "reply 'data.result[0].values[%d]' "
			    "time %.6f is not a whole millisecond (Prometheus' "
			    "times are)", i, when);
		return PROM_EPARSE;
	}
	*ms = t;
	return PROM_OK;
}

/* Point i of a range reply: its time in whole ms and its value's text. */
static enum prom_err prom_range_point(const cJSON *pair, int i,
				      long long *ms, const char **text,
				      char *err, size_t errlen)
{
	enum prom_err rc;
	double when;

	rc = prom_pair(pair, "data.result[0].values", i, &when, text, err,
		       errlen);
	if (rc == PROM_OK)
		rc = prom_range_ms(when, i, ms, err, errlen);
	return rc;
}

/* The bits of prom_nan_point(): a quiet NaN with a payload of 1. */
#define PROM_NAN_POINT_BITS 0x7ff8000000000001ULL

double prom_nan_point(void)
{
	uint64_t b = PROM_NAN_POINT_BITS;
	double v;

	memcpy(&v, &b, sizeof(v));
	return v;
}

int prom_is_nan_point(double v)
{
	uint64_t b;

	memcpy(&b, &v, sizeof(b));
	return b == PROM_NAN_POINT_BITS;
}

enum prom_err prom_range_none(int nan_points, char *err, size_t errlen)
{
	if (!nan_points)
		return prom_no_series(err, errlen);
	prom_seterr(err, errlen, "every point of the series is NaN or "
		    "infinite: the signal is unknown");
	return PROM_ENAN;
}

/* FNV-1a over a series' label names and values, in the order given
 * (Prometheus sorts them); never 0, which says "no series". */
static uint32_t prom_labels_hash(const cJSON *metric)
{
	const cJSON *labels = cJSON_IsObject(metric) ? metric : NULL, *l;
	const unsigned char *p;
	uint32_t h = 2166136261u;

	cJSON_ArrayForEach(l, labels) {
		for (p = (const unsigned char *)(l->string ? l->string : "");
		     *p; p++)
			h = (h ^ *p) * 16777619u;
		h = (h ^ 0xff) * 16777619u;   /* between name and value */
		p = (const unsigned char *)(cJSON_IsString(l) ?
					    l->valuestring : "");
		for (; *p; p++)
			h = (h ^ *p) * 16777619u;
		h = (h ^ 0xfe) * 16777619u;
	}
	return h ? h : 1;
}

/*
 * Two passes over the points: the first checks every time and finds the
 * grid (its step is the gcd of the distances from the first point), so
 * that the values can go straight into their slots in the second, with
 * no array of times allocated even for a moment.  keep_nan: see
 * prom_parse_range_nan().
 */
static enum prom_err prom_range_parse(const char *body, size_t len,
				      struct prom_range *out, int keep_nan,
				      char *err, size_t errlen)
{
	struct prom_reply r = { NULL, NULL, NULL };
	const cJSON *series = NULL, *values, *pair;
	const char *text;
	double *v = NULL, x;
	long long first = 0, last = 0, step = 0, ms, slots;
	size_t k, points = 0;
	int m, i;
	enum prom_err rc;

	rc = prom_open(&r, body, len, err, errlen);
	if (rc)
		goto out;
	if (strcmp(r.type, "matrix")) {
		char shown[PROM_SHOW_MAX + 4];

		rc = PROM_EPARSE;
		prom_show_str(shown, r.type);
		prom_seterr(err, errlen, "reply 'data.resultType' is '%s', "
			    "expected 'matrix' for a range query", shown);
		goto out;
	}
	rc = prom_series(r.result, &series, err, errlen);
	if (rc)
		goto out;
	rc = prom_samples(series, "values", "histograms", &values, err,
			  errlen);
	if (rc)
		goto out;
	if (!cJSON_IsArray(values)) {
		rc = PROM_EPARSE;
		prom_seterr(err, errlen, "reply 'data.result[0].values' is "
			    "%s, expected an array", show_json_kind(values));
		goto out;
	}
	m = cJSON_GetArraySize(values);
	if (m == 0) {
		rc = PROM_EEMPTY;
		prom_seterr(err, errlen, "the series has no points: the "
			    "signal is unknown");
		goto out;
	}
	if (m > PROM_RANGE_MAX) {
		rc = PROM_ETOOBIG;
		prom_seterr(err, errlen, "the series has %d points, more "
			    "than %d: use a larger step", m, PROM_RANGE_MAX);
		goto out;
	}
	/* Pass 1: the pairs' shape, their order (consumers such as the
	 * forecast rely on it) and the grid of their times. */
	i = 0;
	cJSON_ArrayForEach(pair, values) {
		rc = prom_range_point(pair, i, &ms, &text, err, errlen);
		if (rc)
			goto out;
		if (i > 0 && !(ms > last)) {
			rc = PROM_EPARSE;
			prom_seterr(err, errlen, "reply 'data.result[0]."
				    "values[%d]' is not later than the point "
				    "before it", i);
			goto out;
		}
		if (i == 0)
			first = ms;
		else
			step = prom_gcd(ms - first, step);
		last = ms;
		i++;
	}
	slots = step ? (last - first) / step + 1 : 1;
	if (slots > PROM_RANGE_MAX) {
		rc = PROM_EPARSE;
		prom_seterr(err, errlen, "reply 'data.result[0].values' is "
			    "not evenly spaced: the largest step its %d "
			    "points share is %lld ms, a grid of %lld slots, "
			    "more than %d", m, step, slots, PROM_RANGE_MAX);
		goto out;
	}
	v = malloc((size_t)slots * sizeof(*v));
	if (!v) {
		rc = PROM_ENOMEM;
		prom_seterr(err, errlen, "out of memory");
		goto out;
	}
	for (k = 0; k < (size_t)slots; k++)
		v[k] = NAN;
	/* Pass 2: the values into their slots; NaN and +-Inf leave a gap. */
	i = 0;
	cJSON_ArrayForEach(pair, values) {
		rc = prom_range_point(pair, i, &ms, &text, err, errlen);
		if (rc)
			goto out;
		rc = prom_value(text, &x, err, errlen);
		k = step ? (size_t)((ms - first) / step) : 0;
		if (rc == PROM_OK) {
			v[k] = x;
			points++;
		} else if (rc == PROM_ENAN) {
			if (keep_nan)
				v[k] = prom_nan_point();
		} else {
			goto out;
		}
		i++;
	}
	if (points == 0 && !keep_nan) {
		rc = prom_range_none(1, err, errlen);
		goto out;
	}
	rc = PROM_OK;
out:
	if (rc == PROM_OK) {
		out->start_ms = first;
		out->step_ms = step;
		out->vals = v;
		out->n = (unsigned)slots;
		out->points = (unsigned)points;
		out->labels = prom_labels_hash(cJSON_GetObjectItemCaseSensitive(
			series, "metric"));
	} else {
		free(v);
	}
	cJSON_Delete(r.root);
	return rc;
}

enum prom_err prom_parse_range(const char *body, size_t len,
			       struct prom_range *out, char *err,
			       size_t errlen)
{
	return prom_range_parse(body, len, out, 0, err, errlen);
}

enum prom_err prom_parse_range_nan(const char *body, size_t len,
				   struct prom_range *out, char *err,
				   size_t errlen)
{
	return prom_range_parse(body, len, out, 1, err, errlen);
}

double prom_range_time(const struct prom_range *r, size_t k)
{
	/* ms / 1000 rounded once: the double strtod() gives for "S.mmm" */
	return (double)(r->start_ms + (long long)k * r->step_ms) / 1000.0;
}

void prom_range_points(const struct prom_range *r, double *ts,
		       double *vals)
{
	size_t k, j = 0;

	for (k = 0; k < r->n; k++) {
		if (isnan(r->vals[k]))
			continue;
		ts[j] = prom_range_time(r, k);
		vals[j++] = r->vals[k];
	}
}

void prom_range_release(struct prom_range *r)
{
	if (!r)
		return;
	free(r->vals);
	memset(r, 0, sizeof(*r));
}
