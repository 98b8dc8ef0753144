/*
 * test_stats.c - staffer's own metrics: counts by method and code, the
 * histogram's cumulative buckets, the closed label sets, and rendering
 * into a buffer that is too small.  The exposition format itself is
 * checked by Prometheus' promtool in tests/integration/test_serve.py.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stats.h"

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
	/* no backend counters without them */
	assert_null(strstr(buf, "staffer_backend_"));
	free(buf);
	stats_free(s);
	stats_free(NULL);
}

static void test_backend_and_small_buffer(void **state)
{
	struct fetch_stats fs = { 12, 30, 4, 2, 1 };
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

/* The last target per ScaledObject: updated in place, label values
 * escaped, forgotten when idle, and bounded. */
static void test_targets(void **state)
{
	struct stats *s = stats_new();
	char *buf = malloc(1 << 22), name[32];
	int i;

	(void)state;
	stats_target(s, "llm", "chat", "staffer", 12, 0, 100);
	stats_target(s, "llm", "chat", "staffer", 27, 1, 110);   /* update */
	stats_target(s, "llm", "code", "staffer", 3, 0, 200);
	stats_target(s, "a\"b", "c\\d\ne", "m", 1, 0, 200);
	assert_true(stats_render(s, NULL, 300, buf, 1 << 22) < (1 << 22));
	has_line(buf, "staffer_target_replicas{namespace=\"llm\",scaledobject="
		 "\"chat\",metric=\"staffer\"} 27");
	has_line(buf, "staffer_target_held{namespace=\"llm\",scaledobject="
		 "\"chat\",metric=\"staffer\"} 1");
	has_line(buf, "staffer_target_replicas{namespace=\"llm\",scaledobject="
		 "\"code\",metric=\"staffer\"} 3");
	has_line(buf, "staffer_target_replicas{namespace=\"a\\\"b\","
		 "scaledobject=\"c\\\\d\\ne\",metric=\"m\"} 1");
	assert_null(strstr(buf, "} 12\n"));
	/* idle past STATS_TARGET_IDLE_S: chat (last at 110) goes, code stays */
	stats_render(s, NULL, 110 + STATS_TARGET_IDLE_S + 1, buf, 1 << 22);
	assert_null(strstr(buf, "scaledobject=\"chat\""));
	assert_non_null(strstr(buf, "scaledobject=\"code\""));
	/* bounded: the 10001st ScaledObject is counted, not shown */
	for (i = 0; i < STATS_TARGETS_MAX + 5; i++) {
		snprintf(name, sizeof(name), "so-%d", i);
		stats_target(s, "bulk", name, "staffer", i, 0, 1000);
	}
	stats_render(s, NULL, 1000, buf, 1 << 22);
	has_line(buf, "staffer_target_series_dropped_total 7");
	free(buf);
	stats_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_backend_and_small_buffer),
		cmocka_unit_test(test_targets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
