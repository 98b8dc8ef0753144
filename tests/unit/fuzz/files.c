/*
 * files.c - fuzz targets over files: trace CSV, rate files, the state
 * file, lint's YAML (see fuzz.h).
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

#include "cmd.h"
#include "config.h"
#include "log.h"
#include "meta.h"
#include "scaler.h"
#include "sim/simrng.h"
#include "sim/trace.h"

/* ---- files: trace CSV and lint's YAML ------------------------------------ */

char fz_dir[64];

static void fz_dir_init(void)
{
	const char *tmp = getenv("TMPDIR");

	if (fz_dir[0])
		return;
	snprintf(fz_dir, sizeof(fz_dir), "%s/staffer-fuzz.XXXXXX",
		 tmp && *tmp && strlen(tmp) < 30 ? tmp : "/tmp");
	assert_non_null(mkdtemp(fz_dir));
}

/* Write len bytes to dir/name; returns the path (static). */
static const char *fz_write(const char *name, const char *in, size_t len)
{
	static char path[128];
	FILE *f;

	fz_dir_init();
	snprintf(path, sizeof(path), "%s/%s", fz_dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(in, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return path;
}

static const char *const trace_corpus[] = {
	"arrival_s,input_tokens,output_tokens\n0.5,100,200\n0.1,5,6\n",
	"arrival_s,input_tokens,output_tokens,service_s\n"
	"0,1,1,0.25\n1.5,2000,300,12\n\n3,0,0,86400\n",
	" arrival_s , input_tokens,output_tokens\r\n 10 , 1 , 2 \r\n",
};

static const char *const trace_words[] = {
	"arrival_s", "input_tokens", "output_tokens", "service_s", ",", "\n",
	"\r\n", "31622400", "31622401", "10000000", "10000001", "86400",
	"86400.1", "0.001",
};

/* A loaded trace: what trace.h promises, for the CSV (rates 0) and for
 * a rate file's replay (rates 1). */
static void trace_check_result(const struct trace *t, int rates)
{
	size_t i;

	FZ_CHECK(t->n >= 1 && t->n <= TRACE_REQ_MAX, "%zu requests", t->n);
	FZ_CHECK(isfinite(t->span_s) && t->span_s >= 0 &&
		 (!rates || t->span_s > 0), "span %g", t->span_s);
	for (i = 0; i < t->n; i++) {
		const struct trace_req *q = &t->req[i];

		FZ_CHECK(q->arrival_s >= 0 && q->arrival_s <= t->span_s &&
			 (i == 0 || q->arrival_s >= t->req[i - 1].arrival_s),
			 "arrival %g at %zu", q->arrival_s, i);
		FZ_CHECK(q->input_tokens >= 0 && q->output_tokens >= 0 &&
			 q->input_tokens <= TRACE_TOKENS_MAX &&
			 q->output_tokens <= TRACE_TOKENS_MAX,
			 "tokens %d %d", (int)q->input_tokens,
			 (int)q->output_tokens);
		FZ_CHECK(rates || (t->has_service ?
			 q->service_s > 0 && q->service_s <= TRACE_SERVICE_MAX :
			 q->service_s < 0), "service %g", q->service_s);
	}
	FZ_CHECK(rates || t->span_s == t->req[t->n - 1].arrival_s,
		 "span %g", t->span_s);
}

/* Load in (a CSV, or a rate file with rates 1) from a file and check. */
static void check_trace_file(struct fz *r, const char *in, size_t len,
			     int valid, int rates)
{
	static const struct trace_rates o = { 10, 0.01, 0, 3600, 100, 10,
					      TRACE_ARR_AUTO };
	struct trace t;
	struct simrng g;
	char err[TRACE_ERR_MAX];
	const char *path = fz_write(rates ? "rates.csv" : "trace.csv", in,
				    len);
	int rc;

	trace_init(&t);
	simrng_seed(&g, fz_next(r));
	memset(err, 'x', sizeof(err));
	rc = rates ? trace_load_rates(&t, path, &o, &g, err, sizeof(err))
		   : trace_load_csv(&t, path, err, sizeof(err));
	FZ_CHECK(rc == 0 || rc == -1, "code %d", rc);
	FZ_CHECK(!valid || rc == 0, "valid file refused: %s", err);
	if (rc == 0) {
		fz_accepted++;
		trace_check_result(&t, rates);
	} else {
		FZ_CHECK(t.n == 0 && !t.req, "trace not empty after error");
		fz_check_msg(err, sizeof(err), "trace");
	}
	trace_free(&t);
}

static void check_trace(struct fz *r, const char *in, size_t len, int valid)
{
	check_trace_file(r, in, len, valid, 0);
}

FZ_TEST(trace, trace_corpus, trace_words,
	5000, check_trace, NULL, 1)

/*
 * ServeGen rate files for trace_load_rates.  The loader accepts rates up
 * to 1e7 req/s and windows up to 1e9 s, so a file may ask for up to
 * TRACE_REQ_MAX arrivals (640 MB): too much for a unit test.  Inputs with
 * a number of more than 4 digits or with an exponent are skipped, and the
 * scale keeps the rest below ~1e5 arrivals.
 */
static const char *const rates_corpus[] = {
	"window_start_s,total_rate_rps,active_clients\n0,100,5\n600,0,0\n"
	"1200,300,5\n",
	"window_start_s,total_rate_rps,active_clients,x,y\r\n"
	"0, 250 ,1,a,b\r\n600,1000,2,c,d\r\n",
};

static int rates_small(const char *in, size_t len)
{
	size_t i, digits = 0;

	for (i = 0; i < len; i++) {
		if (in[i] >= '0' && in[i] <= '9') {
			if (++digits > 4)
				return 0;
		} else if (in[i] != '.') {
			digits = 0;
		}
		if ((in[i] == 'e' || in[i] == 'E') && i + 1 < len &&
		    strchr("0123456789+-", in[i + 1]) && in[i + 1])
			return 0;
	}
	return 1;
}

static const char *const rates_words[] = {
	"window_start_s", "total_rate_rps", "active_clients", ",", "\n",
	"1e9", "1e7", "10000001", "600", "0,0,0\n",
};

static void check_rates(struct fz *r, const char *in, size_t len, int valid)
{
	if (rates_small(in, len))
		check_trace_file(r, in, len, valid, 1);
}

FZ_TEST(rates, rates_corpus, rates_words,
	3000, check_rates, NULL, 1)

/*
 * The scaler's --state-file: written by staffer itself, but a crash mid-
 * write or a hand edit may leave anything there.  A bad file is logged and
 * means a fresh start; numbers are clamped.  Nothing of it is visible
 * outside the scaler, so the check is: no crash, no sanitizer report, a
 * scaler that works (scaler_parse) and is freed without leaks.
 */
static const char *const state_corpus[] = {
	"{\"version\":2,\"states\":[{\"key\":\"2:ns/so/0123456789abcdef"
	"0123456789abcdef\",\"ns\":\"ns\",\"target\":7,\"lastDown\":"
	"1782907200.5,\"primed\":true,\"haveGood\":true,\"goodTarget\":7,"
	"\"haveActive\":true,\"goodActive\":false,\"activeAt\":1782907100,"
	"\"goodAt\":1782907200,\"goodW\":9.5,\"lastSeen\":1782907200}]}",
	"{\"version\":1,\"states\":[]}",
	"{\"version\":2,\"states\":[{\"key\":\"2:ns/so/0123456789abcdef"
	"0123456789abcdef\",\"ns\":\"ns\",\"target\":7,\"primed\":true,"
	"\"coldSeen\":300,\"hold\":{\"t0\":1782907000,\"width\":22.5,"
	"\"since\":1782907000,\"k\":8,\"max\":[7,-1,9,7,7,7,7,7,8]}}]}",
};

static const char *const state_words[] = {
	"states", "key", "ns", "version", "2", "target", "lastDown", "primed",
	"haveGood",
	"goodTarget", "haveActive", "goodActive", "activeAt", "goodAt",
	"goodW", "lastSeen", "true", "false", "null", "1e400", "-1e400",
	"hold", "t0", "width", "since", "\"k\"", "max", "coldSeen", "[]",
	"-9223372036854775808", "1e18",
	"{\"key\":\"a\"},",
};

static void check_state(struct fz *r, const char *in, size_t len, int valid)
{
	const char *keys[] = { "arrivalRateQuery", "serviceTime" };
	const char *values[] = { "a", "1" };
	const char *path = fz_write("state.json", in, len);
	char msg[SCALER_MSG_MAX];
	struct scaler *sc;
	struct meta m;

	(void)r;
	(void)valid;
	sc = scaler_new(&meta_cfg, NULL, path);
	FZ_CHECK(sc != NULL, "scaler_new failed");
	fz_accepted++;
	meta_init(&m);
	FZ_CHECK(scaler_parse(sc, "fuzz", &m, keys, values, 2, msg) == SCALER_OK,
		 "scaler_parse after loading: %s", msg);
	meta_release(&m);
	scaler_free(sc);
}

FZ_TEST(state, state_corpus, state_words,
	3000, check_state, NULL, 1)

static const char *const lint_corpus[] = {
	"apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata:\n"
	"  name: chat\n  namespace: llm\nspec:\n  scaleTargetRef:\n"
	"    name: chat\n  maxReplicaCount: 40\n  fallback:\n"
	"    failureThreshold: 3\n    replicas: 8\n  advanced:\n"
	"    horizontalPodAutoscalerConfig:\n      behavior:\n"
	"        scaleUp:\n          tolerance: \"0\"\n  triggers:\n"
	"    - type: external\n      metadata:\n"
	"        scalerAddress: staffer.keda.svc:9090\n"
	"        arrivalRateQuery: sum(rate(x[1m])) or vector(0)\n"
	"        serviceTime: \"20\"\n        beta: \"1.5\"\n",
	"---\napiVersion: v1\nkind: List\nitems:\n"
	"- apiVersion: keda.sh/v1alpha1\n  kind: ScaledObject\n"
	"  metadata: {name: a}\n  spec:\n    scaleTargetRef: {name: a}\n"
	"    fallback: {failureThreshold: 3,"
	" replicas: 1}\n    triggers:\n    - type: external-push\n"
	"      metadata: &m\n        scalerAddress: s:1\n"
	"        arrivalRateQuery: rate(x[1m])\n"
	"        serviceTimeQuery: w\n"
	"        schedule: \"Mon-Fri 08:00-19:00 beta=2\"\n"
	"        timezone: Europe/Berlin\n"
	"    - type: external\n      metadata:\n        <<: *m\n"
	"        serviceTime: !!str 3\n        metricName: b\n...\n",
};

static const char *const lint_words[] = {
	"apiVersion", "keda.sh/v1alpha1", "kind", "ScaledObject", "List",
	"items", "metadata", "spec", "triggers", "type", "external",
	"external-push", "scalerAddress", "fallback", "advanced", "- ",
	"\n  ", ": ", "&a ", "*a", "<<: *a\n", "!!str ", "!!int ", "!!binary ",
	"? ", "{", "}", "[", "]", "|\n", ">-\n", "'", "\"", "\\x00",
	"\\uD800", "---\n", "...\n", "%YAML 1.1\n", "%TAG ! tag:x,2000:\n",
	"~", "null", "yes", "0x1F", ".inf", "1_000", "serviceTime",
	"arrivalRateQuery", "backend", "schedule", "timezone", "\xef\xbb\xbf",
	/* what go-yaml decodes under !!timestamp and !!binary (gostd.h) */
	"!!timestamp ", "2001-2-29t1:2:3,5+24:00", "MzI=", "/w==\n", "aG\nk=",
};

/* Run `staffer lint FILE` with stdout and stderr in a file; every line of
 * it must be one finding: about FILE, printable, bounded. */
static void check_lint(struct fz *r, const char *in, size_t len, int valid)
{
	char *argv[2];
	char out_path[128], line[8192];
	const char *path = fz_write("lint.yaml", in, len);
	int saved_out, saved_err, fd, rc;
	size_t plen = strlen(path), n, i;
	unsigned long ln, lines = 1;
	char *end;
	FILE *f;

	(void)r;
	snprintf(out_path, sizeof(out_path), "%s/lint.out", fz_dir);
	argv[0] = (char *)path;
	argv[1] = NULL;
	fflush(stdout);
	fflush(stderr);
	saved_out = dup(1);
	saved_err = dup(2);
	fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved_out >= 0 && saved_err >= 0 && fd >= 0);
	dup2(fd, 1);
	dup2(fd, 2);
	close(fd);
	rc = cmd_lint(1, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	FZ_CHECK(rc == 0 || rc == 1 || rc == 2, "exit status %d", rc);
	FZ_CHECK(!valid || rc == 0, "valid YAML: status %d", rc);
	for (i = 0; i < len; i++)
		lines += in[i] == '\n';
	fz_accepted += rc == 0;
	f = fopen(out_path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		n = strlen(line);
		FZ_CHECK(n > 0 && line[n - 1] == '\n', "a line of %zu bytes "
			 "or more, or without a newline", n);
		line[--n] = '\0';
		FZ_CHECK(!strncmp(line, path, plen) && line[plen] == ':',
			 "line '%s' is not about the file", line);
		ln = strtoul(line + plen + 1, &end, 10);
		FZ_CHECK(end > line + plen + 1 && *end == ':' && ln >= 1 &&
			 ln <= lines, "line '%s': not a line of the %lu",
			 line, lines);
		FZ_CHECK(n - plen < 1024 + 32, "line of %zu bytes", n);
		for (i = 0; i < n; i++)
			FZ_CHECK((unsigned char)line[i] >= 0x20 &&
				 (unsigned char)line[i] < 0x7f,
				 "byte 0x%02x at %zu in '%s'",
				 (unsigned char)line[i], i, line);
	}
	fclose(f);
}

FZ_TEST(lint, lint_corpus, lint_words,
	4000, check_lint, NULL, 1)
