/*
 * test_stats.c - staffer's own metrics: counts by method and code, the
 * histogram's cumulative buckets, the closed label sets, each backend's
 * results, the last answer per ScaledObject with its terms, the build
 * and process families, the size of the largest page, and rendering
 * into a buffer that is too small.  procstat.c's parser too.  The exposition format itself is
 * checked by Prometheus' promtool in tests/integration/test_serve.py.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "check.h"
#include "httpd.h"
#include "procstat.h"
#include "stats.h"
#include "utf8.h"
#include "version.h"

#define BUF 65536

static void has_line(const char *text, const char *line)
{
	const char *p = text;
	size_t n = strlen(line);

	while ((p = strstr(p, line)) != NULL) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return;
		p += n;
	}
	print_error("no line '%s' in:\n%s\n", line, text);
	fail();
}

static void test_counts(void **state)
{
	struct stats *s = stats_new();
	char *buf = malloc(BUF);

	(void)state;
	assert_non_null(s);
	stats_rpc(s, "GetMetrics", 0, 0.002);
	stats_rpc(s, "GetMetrics", 0, 0.3);
	stats_rpc(s, "GetMetrics", 14, 7.0);
	stats_rpc(s, "IsActive", 3, 0.0001);
	stats_rpc(s, "NoSuchMethod\"}\n", 12, 0);  /* a client's name */
	stats_rpc(s, NULL, 99, -1);               /* out of range */
	stats_stream(s, 1);
	stats_stream(s, 1);
	stats_stream(s, -1);
	stats_push(s, 1);
	stats_push(s, 0);
	stats_push(s, 1);
	stats_meta_cache(s, 0);
	stats_meta_cache(s, 1);
	stats_meta_cache(s, 1);
	stats_meta_cache(s, 1);
	assert_true(stats_render(s, NULL, 0, buf, BUF) < BUF);

	has_line(buf, "staffer_rpc_requests_total{method=\"GetMetrics\","
		 "code=\"OK\"} 2");
	has_line(buf, "staffer_rpc_requests_total{method=\"GetMetrics\","
		 "code=\"UNAVAILABLE\"} 1");
	has_line(buf, "staffer_rpc_requests_total{method=\"IsActive\","
		 "code=\"INVALID_ARGUMENT\"} 1");
	/* closed sets: an unknown method is "other", a bad code UNKNOWN */
	has_line(buf, "staffer_rpc_requests_total{method=\"other\","
		 "code=\"UNIMPLEMENTED\"} 1");
	has_line(buf, "staffer_rpc_requests_total{method=\"other\","
		 "code=\"UNKNOWN\"} 1");
	assert_null(strstr(buf, "NoSuchMethod"));
	/* the error series KEDA's methods can get exist at 0 from the
	 * start, so that increase() sees the first error */
	has_line(buf, "staffer_rpc_requests_total{method=\"GetMetricSpec\","
		 "code=\"INVALID_ARGUMENT\"} 0");
	has_line(buf, "staffer_rpc_requests_total{method=\"IsActive\","
		 "code=\"UNAVAILABLE\"} 0");
	has_line(buf, "staffer_rpc_requests_total{method=\"StreamIsActive\","
		 "code=\"PERMISSION_DENIED\"} 0");
	/* ... and not for Check or other */
	assert_null(strstr(buf, "method=\"Check\",code=\"UNAVAILABLE\""));
	assert_string_equal(stats_code_name(14), "UNAVAILABLE");
	assert_string_equal(stats_code_name(17), "UNKNOWN");
	/* cumulative buckets: 0.002 <= 0.0025; 0.3 <= 0.5; 7 <= 10 */
	has_line(buf, "staffer_rpc_duration_seconds_bucket{method="
		 "\"GetMetrics\",le=\"0.001\"} 0");
	has_line(buf, "staffer_rpc_duration_seconds_bucket{method="
		 "\"GetMetrics\",le=\"0.0025\"} 1");
	has_line(buf, "staffer_rpc_duration_seconds_bucket{method="
		 "\"GetMetrics\",le=\"0.5\"} 2");
	has_line(buf, "staffer_rpc_duration_seconds_bucket{method="
		 "\"GetMetrics\",le=\"5\"} 2");
	has_line(buf, "staffer_rpc_duration_seconds_bucket{method="
		 "\"GetMetrics\",le=\"10\"} 3");
	has_line(buf, "staffer_rpc_duration_seconds_bucket{method="
		 "\"GetMetrics\",le=\"+Inf\"} 3");
	has_line(buf, "staffer_rpc_duration_seconds_sum{method="
		 "\"GetMetrics\"} 7.302000");
	has_line(buf, "staffer_rpc_duration_seconds_count{method="
		 "\"GetMetrics\"} 3");
	has_line(buf, "staffer_streams_open 1");
	has_line(buf, "staffer_stream_pushes_total{active=\"true\"} 2");
	has_line(buf, "staffer_stream_pushes_total{active=\"false\"} 1");
	has_line(buf, "staffer_metadata_cache_total{result=\"hit\"} 3");
	has_line(buf, "staffer_metadata_cache_total{result=\"miss\"} 1");
	/* no fetch counters without them; the per-backend families are
	 * always declared (# TYPE), with no series before a request */
	assert_null(strstr(buf, "staffer_backend_requests_total"));
	assert_non_null(strstr(buf, "# TYPE staffer_backend_responses_total "
			       "counter\n"));
	assert_null(strstr(buf, "staffer_backend_responses_total{"));
	free(buf);
	stats_free(s);
	stats_free(NULL);
}

static void test_backend_and_small_buffer(void **state)
{
	struct fetch_stats fs = { .requests = 12, .cache_hits = 30,
				  .coalesced = 4, .refreshed = 0, .cred_ok = 2,
				  .cred_failed = 1, .range_full = 5,
				  .range_tail = 6, .range_renewed = 7,
				  .range_derived = 8, .range_derive_off = 9,
				  .instant_from_range = 10 };
	struct stats *s = stats_new();
	char *buf = malloc(BUF), small[100];
	size_t n, m;

	(void)state;
	n = stats_render(s, &fs, 0, buf, BUF);
	assert_true(n > 0 && n < BUF);
	assert_int_equal(strlen(buf), n);
	has_line(buf, "staffer_backend_requests_total 12");
	has_line(buf, "staffer_backend_cache_hits_total 30");
	has_line(buf, "staffer_backend_coalesced_total 4");
	has_line(buf, "staffer_aws_credential_refreshes_total{result=\"ok\"} 2");
	has_line(buf, "staffer_aws_credential_refreshes_total{result=\"error\"} "
		 "1");
	has_line(buf, "staffer_backend_range_answers_total{how=\"whole\"} 5");
	has_line(buf, "staffer_backend_range_answers_total{how=\"tail\"} 6");
	has_line(buf, "staffer_backend_range_answers_total{how=\"renewed\"} "
		 "7");
	has_line(buf, "staffer_backend_range_answers_total{how=\"derived\"} "
		 "8");
	has_line(buf, "staffer_backend_ranges_not_derived_total 9");
	has_line(buf, "staffer_backend_instant_answers_from_range_total 10");
	/* too small: the size needed, as snprintf, and a terminated prefix */
	memset(small, 'x', sizeof(small));
	m = stats_render(s, &fs, 0, small, sizeof(small));
	assert_int_equal(m, n);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_memory_equal(small, buf, sizeof(small) - 1);
	assert_int_equal(stats_render(s, &fs, 0, NULL, 0), n);
	free(buf);
	stats_free(s);
}

static struct stats_terms terms(double lambda, double w, long long raw)
{
	struct stats_terms t;

	memset(&t, 0, sizeof(t));
	t.arrival_rate = lambda;
	t.service_time_s = w;
	t.busy_slots = lambda * w;
	t.raw = raw;
	return t;
}

/* The last target per ScaledObject: updated in place, label values
 * escaped, forgotten when idle, and bounded. */
static void test_targets(void **state)
{
	struct stats *s = stats_new();
	char *buf = malloc(1 << 25), name[32];
	struct stats_terms t = terms(2, 10, 27);
	int i;

	(void)state;
	t.headroom_slots = 6.708;
	t.arrival_forecast = 2.5;
	t.arrival_surge = 3.25;
	t.capped = 1;
	stats_target(s, "llm", "chat", "staffer", 12, &t, 100);
	stats_target(s, "llm", "chat", "staffer", 27, NULL, 110); /* held */
	t = terms(0.5, 4, 3);
	stats_target(s, "llm", "code", "staffer", 2, &t, 200);
	stats_target(s, "a\"b", "c\\d\ne", "m", 1, NULL, 200);
	assert_true(stats_render(s, NULL, 300, buf, 1 << 25) < (1 << 25));
	/* held: the target and the flag move, the terms stay the last
	 * decision's */
	has_line(buf, "staffer_target_replicas{scaledobject_namespace=\"llm\","
		 "scaledobject=\"chat\",metric=\"staffer\"} 27");
	has_line(buf, "staffer_target_held{scaledobject_namespace=\"llm\","
		 "scaledobject=\"chat\",metric=\"staffer\"} 1");
	has_line(buf, "staffer_target_raw_replicas{scaledobject_namespace="
		 "\"llm\",scaledobject=\"chat\",metric=\"staffer\"} 27");
	has_line(buf, "staffer_target_capped{scaledobject_namespace=\"llm\","
		 "scaledobject=\"chat\",metric=\"staffer\"} 1");
	has_line(buf, "staffer_signal_arrival_rate{scaledobject_namespace="
		 "\"llm\",scaledobject=\"chat\",metric=\"staffer\"} 2");
	has_line(buf, "staffer_signal_arrival_forecast{scaledobject_namespace="
		 "\"llm\",scaledobject=\"chat\",metric=\"staffer\"} 2.5");
	has_line(buf, "staffer_signal_arrival_surge{scaledobject_namespace="
		 "\"llm\",scaledobject=\"chat\",metric=\"staffer\"} 3.25");
	has_line(buf, "staffer_signal_service_time_seconds{"
		 "scaledobject_namespace=\"llm\",scaledobject=\"chat\","
		 "metric=\"staffer\"} 10");
	has_line(buf, "staffer_term_slots{scaledobject_namespace=\"llm\","
		 "scaledobject=\"chat\",metric=\"staffer\",term=\"busy\"} 20");
	has_line(buf, "staffer_term_slots{scaledobject_namespace=\"llm\","
		 "scaledobject=\"chat\",metric=\"staffer\",term=\"headroom\"} "
		 "6.708");
	/* not held */
	has_line(buf, "staffer_target_replicas{scaledobject_namespace=\"llm\","
		 "scaledobject=\"code\",metric=\"staffer\"} 2");
	has_line(buf, "staffer_target_raw_replicas{scaledobject_namespace="
		 "\"llm\",scaledobject=\"code\",metric=\"staffer\"} 3");
	has_line(buf, "staffer_target_held{scaledobject_namespace=\"llm\","
		 "scaledobject=\"code\",metric=\"staffer\"} 0");
	has_line(buf, "staffer_target_capped{scaledobject_namespace=\"llm\","
		 "scaledobject=\"code\",metric=\"staffer\"} 0");
	/* escaped; held from the start: no terms to show */
	has_line(buf, "staffer_target_replicas{scaledobject_namespace=\"a\\\"b\","
		 "scaledobject=\"c\\\\d\\ne\",metric=\"m\"} 1");
	assert_null(strstr(buf, "staffer_signal_arrival_rate{"
			    "scaledobject_namespace=\"a"));
	assert_null(strstr(buf, "{namespace="));
	assert_null(strstr(buf, "} 12\n"));
	/* idle past STATS_TARGET_IDLE_S: chat (last at 110) goes, code stays */
	stats_render(s, NULL, 110 + STATS_TARGET_IDLE_S + 1, buf, 1 << 25);
	assert_null(strstr(buf, "scaledobject=\"chat\""));
	assert_non_null(strstr(buf, "scaledobject=\"code\""));
	/* bounded: the 10001st ScaledObject is counted, not shown */
	for (i = 0; i < STATS_TARGETS_MAX + 5; i++) {
		snprintf(name, sizeof(name), "so-%d", i);
		stats_target(s, "bulk", name, "staffer", i, &t, 1000);
	}
	stats_render(s, NULL, 1000, buf, 1 << 25);
	has_line(buf, "staffer_target_series_dropped_total 7");
	free(buf);
	stats_free(s);
}

/* The largest table: STATS_TARGETS_MAX ScaledObjects with Kubernetes'
 * longest names (namespace 63, name 253, metric 63 bytes) and every
 * backend.  stats_render() shows every line of it (STATS_TARGET_LINES
 * each); the /metrics page (stats_page()) keeps within HTTPD_PAGE_MAX,
 * shows as many whole ScaledObjects as fit and counts the others, never
 * failing. */
static void test_largest_page(void **state)
{
	struct stats *s = stats_new();
	struct stats_terms t = terms(123.456789, 12.3456789, 2147483647LL);
	char ns[64], name[254], metric[64], be[64], count[96];
	size_t n, m, m2, size, lines = 0;
	char *buf, *p;
	int i;

	(void)state;
	memset(ns, 'n', sizeof(ns) - 1);
	ns[sizeof(ns) - 1] = '\0';
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	memset(metric, 'm', sizeof(metric) - 1);
	metric[sizeof(metric) - 1] = '\0';
	t.headroom_slots = t.drain_slots = t.boost_slots = 1e9 / 7;
	t.feedback = 1;
	t.correction = t.feedback_slots = 1e9 / 7;
	t.have_cold = 1;          /* every optional series: the most lines */
	t.cold_start_s = 1e9 / 7;
	for (i = 0; i < STATS_TARGETS_MAX; i++) {
		snprintf(name, sizeof(name), "%07d", i);
		name[7] = 'x';
		stats_target(s, ns, name, metric, 2147483647LL, &t, 0);
	}
	for (i = 0; i < STATS_BACKENDS_MAX; i++) {
		snprintf(be, sizeof(be), "backend-%d-%040d", i, 0);
		stats_backend(s, be, FETCH_R_OK, 0.01);
		stats_backend(s, be, FETCH_R_TIMEOUT, 2);
	}
	buf = NULL;
	n = 0;
	m = stats_page(s, NULL, 0, HTTPD_PAGE_MAX, &buf, &n);
	assert_true(m != (size_t)-1);
	/* again into the same buffer: the same page but the omitted
	 * counter's digits, and no larger buffer */
	size = n;
	p = buf;
	m2 = stats_page(s, NULL, 0, HTTPD_PAGE_MAX, &buf, &n);
	assert_true(m2 >= m && m2 < m + 8);
	assert_ptr_equal(buf, p);
	assert_int_equal(n, size);
	m = m2;
	print_message("page: %zu bytes (cap %u)\n", m, HTTPD_PAGE_MAX);
	assert_true(m <= HTTPD_PAGE_MAX);
	assert_true(m > HTTPD_PAGE_MAX / 2);      /* used, not wasted */
	assert_int_equal(strlen(buf), m);
	for (p = buf; p < buf + m; p++)
		if (*p == 'x' && !memcmp(p, "xxxxxxxxxx\"", 11)) {
			lines++;
			p += 10;
		}
	/* whole ScaledObjects only, the rest counted */
	assert_int_equal(lines % STATS_TARGET_LINES, 0);
	assert_true(lines > 0 && lines < (size_t)STATS_TARGETS_MAX *
					   STATS_TARGET_LINES);
	/* two pages rendered, each leaving out the same ones */
	snprintf(count, sizeof(count), "staffer_target_series_omitted_total "
		 "%zu", 2 * (STATS_TARGETS_MAX - lines / STATS_TARGET_LINES));
	has_line(buf, count);
	free(buf);
	lines = 0;
	n = stats_render(s, NULL, 0, NULL, 0);
	buf = malloc(n + 1);
	assert_non_null(buf);
	assert_int_equal(stats_render(s, NULL, 0, buf, n + 1), n);
	/* lines naming one of the ScaledObjects (their names end in x...);
	 * a plain scan: ASan's strstr() is quadratic on 60 MB */
	for (p = buf; p < buf + n; p++)
		if (*p == 'x' && !memcmp(p, "xxxxxxxxxx\"", 11)) {
			lines++;
			p += 10;
		}
	assert_int_equal(lines, (size_t)STATS_TARGETS_MAX * STATS_TARGET_LINES);
	free(buf);
	stats_free(s);
}

/* The page is valid UTF-8 whatever bytes reach a label value: invalid
 * sequences (a stray 0xff, a surrogate, an overlong form, a sequence cut
 * at STATS_LABEL_MAX) become U+FFFD, valid ones stay. */
static void test_utf8(void **state)
{
	struct stats *s = stats_new();
	struct stats_terms t = terms(1, 1, 1);
	char *buf = malloc(BUF), name[400];
	size_t n, i, k;

	(void)state;
	stats_target(s, "rt\xff\xfe", "caf\xc3\xa9-\xed\xa0\x80-\xc0\xaf",
		     "staffer", 1, &t, 0);
	memset(name, 'a', sizeof(name));
	memcpy(name + STATS_LABEL_MAX - 1, "\xe2\x82\xac", 3); /* cut */
	name[sizeof(name) - 1] = '\0';
	stats_target(s, "ns", name, "staffer", 2, &t, 0);
	n = stats_render(s, NULL, 0, buf, BUF);
	assert_true(n < BUF);
	for (i = 0; i < n; i += k) {
		k = utf8_len((const unsigned char *)buf + i, n - i);
		if (!k) {
			print_error("invalid UTF-8 at byte %zu: %.40s\n", i,
				    buf + i);
			fail();
		}
	}
	check_contains(buf, "scaledobject_namespace=\"rt\xef\xbf\xbd"
		       "\xef\xbf\xbd\"");
	check_contains(buf, "scaledobject=\"caf\xc3\xa9-\xef\xbf\xbd");
	free(buf);
	stats_free(s);
}

/* Each backend's responses by result and their latency; closed sets. */
static void test_backends(void **state)
{
	struct stats *s = stats_new();
	char *buf = malloc(1 << 20), be[32];
	int i;

	(void)state;
	stats_backend(s, "prom", FETCH_R_OK, 0.004);
	stats_backend(s, "prom", FETCH_R_OK, 0.3);
	stats_backend(s, "prom", FETCH_R_TIMEOUT, 2);
	stats_backend(s, "amp", FETCH_R_NOT_SENT, 0);
	stats_backend(s, "amp", FETCH_R_COUNT, 1);        /* not a result */
	stats_backend(s, "a\"b", FETCH_R_HTTP_ERROR, -1);
	for (i = 0; i < STATS_BACKENDS_MAX + 3; i++) {    /* beyond the cap */
		snprintf(be, sizeof(be), "b%d", i);
		stats_backend(s, be, FETCH_R_UNREACHABLE, 0.001);
	}
	assert_true(stats_render(s, NULL, 0, buf, 1 << 20) < (1 << 20));
	has_line(buf, "staffer_backend_responses_total{backend=\"prom\","
		 "result=\"ok\"} 2");
	has_line(buf, "staffer_backend_responses_total{backend=\"prom\","
		 "result=\"timeout\"} 1");
	has_line(buf, "staffer_backend_responses_total{backend=\"amp\","
		 "result=\"not_sent\"} 1");
	has_line(buf, "staffer_backend_responses_total{backend=\"amp\","
		 "result=\"ok\"} 0");
	has_line(buf, "staffer_backend_responses_total{backend=\"a\\\"b\","
		 "result=\"http_error\"} 1");
	has_line(buf, "staffer_backend_responses_total{backend=\"(other)\","
		 "result=\"unreachable\"} 6");
	/* a backend may be named "other": its series is its own */
	assert_null(strstr(buf, "backend=\"other\""));
	has_line(buf, "staffer_backend_request_duration_seconds_bucket{backend="
		 "\"prom\",result=\"ok\",le=\"0.005\"} 1");
	has_line(buf, "staffer_backend_request_duration_seconds_bucket{backend="
		 "\"prom\",result=\"ok\",le=\"0.5\"} 2");
	has_line(buf, "staffer_backend_request_duration_seconds_count{backend="
		 "\"prom\",result=\"timeout\"} 1");
	has_line(buf, "staffer_backend_request_duration_seconds_sum{backend="
		 "\"prom\",result=\"timeout\"} 2.000000");
	/* unsent requests have no latency */
	assert_null(strstr(buf, "duration_seconds_count{backend=\"amp\""));
	assert_null(strstr(buf, "backend=\"b66\""));
	assert_string_equal(fetch_result_name(FETCH_R_NO_DATA), "no_data");
	assert_string_equal(fetch_result_name(FETCH_R_COUNT), "unknown");
	free(buf);
	stats_free(s);
}

/* staffer_build_info, and process_* from /proc. */
static void test_build_and_process(void **state)
{
	struct stats *s = stats_new();
	struct procstat p;
	char *buf = malloc(BUF), line[256];

	(void)state;
	assert_true(stats_render(s, NULL, 0, buf, BUF) < BUF);
	snprintf(line, sizeof(line), "staffer_build_info{version=\"%s\","
		 "revision=\"%s\"} 1", version_string(), version_revision());
	has_line(buf, line);
	assert_true(strlen(version_string()) > 0);
	assert_int_equal(procstat_read(&p), 0);
	assert_true(p.resident_bytes > 0 && p.virtual_bytes >= p.resident_bytes);
	assert_true(p.open_fds >= 3 && p.max_fds >= p.open_fds);
	assert_true(p.start_time > 1.6e9 && p.cpu_seconds >= 0);
	assert_non_null(strstr(buf, "\nprocess_start_time_seconds "));
	assert_non_null(strstr(buf, "\n# TYPE process_cpu_seconds_total counter\n"));
	assert_non_null(strstr(buf, "\nprocess_resident_memory_bytes "));
	assert_non_null(strstr(buf, "\nprocess_open_fds "));
	free(buf);
	stats_free(s);
}

/* /proc/PID/stat lines: a command name with spaces and ')' in it. */
static void test_procstat_parse(void **state)
{
	static const char line[] = "42 (a) b) c) S 1 42 42 0 -1 4194560 100 0 "
		"0 0 250 50 0 0 20 0 3 0 1000 104857600 2560 "
		"18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n";
	struct procstat p;

	(void)state;
	memset(&p, 0, sizeof(p));
	assert_int_equal(procstat_parse(line, sizeof(line) - 1, 100, 4096,
					1.7e9, &p), 0);
	assert_true(p.cpu_seconds == 3.0);              /* (250 + 50) / 100 */
	assert_true(p.start_time == 1.7e9 + 10);        /* 1000 / 100 */
	assert_true(p.virtual_bytes == 104857600.0);
	assert_true(p.resident_bytes == 2560.0 * 4096);
	p.cpu_seconds = -1;
	assert_int_equal(procstat_parse("42 (a) S 1 2", 12, 100, 4096, 0, &p),
			 -1);
	assert_int_equal(procstat_parse("no parenthesis", 14, 100, 4096, 0,
					&p), -1);
	assert_int_equal(procstat_parse(line, sizeof(line) - 1, 0, 4096, 0,
					&p), -1);
	assert_true(p.cpu_seconds == -1);               /* untouched */
}

/* Write text to a new temporary file; its path in path (PATH_MAX). */
static void temp_file(char *path, size_t size, const char *text)
{
	FILE *f;
	int fd;

	snprintf(path, size, "/tmp/staffer-procstat-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* A /proc/stat of a large host: 1024 cpuN lines and an intr line of
 * 20000 numbers put btime about 100 KiB in, far past the 16 KiB the
 * first reader looked at. */
static void test_procstat_boot_time(void **state)
{
	size_t cap = 512u << 10, len = 0;
	char *text = malloc(cap), path[64];
	int i;

	(void)state;
	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len,
				"cpu  1 2 3 4 5 6 7 8 9 10\n");
	for (i = 0; i < 1024; i++)
		len += (size_t)snprintf(text + len, cap - len, "cpu%d 1000 0 "
					"2000 300000 40 0 50 0 0 0\n", i);
	len += (size_t)snprintf(text + len, cap - len, "intr 123456789");
	for (i = 0; i < 20000; i++)
		len += (size_t)snprintf(text + len, cap - len, " %d", i % 97);
	len += (size_t)snprintf(text + len, cap - len, "\nctxt 42\n"
				"btime 1700000123\nprocesses 7\n");
	assert_true(len < cap - 1 && len > 16384 * 4);
	temp_file(path, sizeof(path), text);
	assert_true(procstat_boot_time(path) == 1700000123.0);
	unlink(path);

	/* the last line without a newline; a cut or bad btime is none */
	temp_file(path, sizeof(path), "cpu 1\nbtime 1700000124");
	assert_true(procstat_boot_time(path) == 1700000124.0);
	unlink(path);
	memset(text, '9', 200);
	memcpy(text, "btime ", 6);
	strcpy(text + 200, "\nbtime x\nbtime -5\nbtime 12z\n");
	temp_file(path, sizeof(path), text);
	assert_true(procstat_boot_time(path) == -1);
	unlink(path);
	temp_file(path, sizeof(path), "cpu 1\nctxt 2\n");
	assert_true(procstat_boot_time(path) == -1);
	unlink(path);
	assert_true(procstat_boot_time("/nonexistent/stat") == -1);
	assert_true(procstat_boot_time("/proc/stat") > 1.6e9);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_backend_and_small_buffer),
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_largest_page),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_backends),
		cmocka_unit_test(test_build_and_process),
		cmocka_unit_test(test_procstat_boot_time),
		cmocka_unit_test(test_procstat_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
