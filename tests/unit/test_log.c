/*
 * test_log.c - log lines in both formats: text as before, JSON one valid
 * object per line whatever the message holds (quotes, control bytes,
 * invalid UTF-8, a message longer than a line), and the format names.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>
#include <cmocka.h>

#include "log.h"

#define T "2026-11-22T07:40:00.123Z"

static void test_text(void **state)
{
	char buf[LOG_LINE_MAX + 128];
	size_t n;

	(void)state;
	n = log_format_line(buf, sizeof(buf), 0, T, LOG_WARN, "held 27");
	assert_string_equal(buf, T " warn  held 27\n");
	assert_int_equal(n, strlen(buf));
}

/* Parse one JSON line; its msg must equal want (NULL: only valid). */
static void json_ok(const char *line, const char *level, const char *want)
{
	cJSON *j;
	size_t n = strlen(line);

	assert_true(n > 0 && line[n - 1] == '\n');
	assert_null(memchr(line, '\n', n - 1));
	j = cJSON_ParseWithLength(line, n - 1);
	assert_non_null(j);
	assert_string_equal(cJSON_GetObjectItem(j, "time")->valuestring, T);
	assert_string_equal(cJSON_GetObjectItem(j, "level")->valuestring, level);
	assert_true(cJSON_IsString(cJSON_GetObjectItem(j, "msg")));
	if (want)
		assert_string_equal(cJSON_GetObjectItem(j, "msg")->valuestring,
				    want);
	cJSON_Delete(j);
}

static void test_json(void **state)
{
	char buf[LOG_LINE_MAX + 128], big[LOG_LINE_MAX];
	size_t n;

	(void)state;
	log_format_line(buf, sizeof(buf), 1, T, LOG_INFO,
			"decision ref=llm/chat/staffer lambda=2");
	assert_string_equal(buf, "{\"time\":\"" T "\",\"level\":\"info\","
			    "\"msg\":\"decision ref=llm/chat/staffer "
			    "lambda=2\"}\n");
	log_format_line(buf, sizeof(buf), 1, T, LOG_ERROR,
			"a \"quote\", a \\, a tab\t, a\nnewline, \x01, "
			"caf\xc3\xa9");
	json_ok(buf, "error", "a \"quote\", a \\, a tab\t, a\nnewline, \x01, "
		"caf\xc3\xa9");
	/* invalid UTF-8 becomes U+FFFD; the line stays valid JSON */
	log_format_line(buf, sizeof(buf), 1, T, LOG_DEBUG,
			"bad \xff\xc3 \xed\xa0\x80 end");
	json_ok(buf, "debug", NULL);
	assert_non_null(strstr(buf, "bad \\ufffd\\ufffd \\ufffd"));
	/* a message of escapes longer than the line: cut, still valid */
	memset(big, '"', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	n = log_format_line(buf, sizeof(buf), 1, T, LOG_WARN, big);
	assert_true(n < sizeof(buf));
	json_ok(buf, "warn", NULL);
	/* a buffer too small for anything is refused */
	assert_int_equal(log_format_line(buf, 3, 1, T, LOG_WARN, "x"), 0);
}

/* Fields: JSON members of their own after msg, escaped, numbers as
 * numbers (not finite: null); the text line shows the message alone. */
static void test_fields(void **state)
{
	char buf[LOG_JSON_MAX + 128], big[LOG_LINE_MAX];
	struct log_field f[] = {
		LOG_F_STR("namespace", "llm"),
		LOG_F_STR("scaledObject", "chat \"x\"\n"),
		LOG_F_NUM("lambda", 2.5),
		LOG_F_INT("raw", 27),
		LOG_F_NUM("z", NAN),
		LOG_F_STR("window", NULL),    /* left out */
	};
	struct log_field many[LOG_FIELDS_MAX + 5];
	cJSON *j;
	size_t i;

	(void)state;
	log_format_fields(buf, sizeof(buf), 0, T, LOG_INFO, "decision x=1", f,
			  6);
	assert_string_equal(buf, T " info  decision x=1\n");
	log_format_fields(buf, sizeof(buf), 1, T, LOG_INFO, "decision x=1", f,
			  6);
	json_ok(buf, "info", "decision x=1");
	j = cJSON_Parse(buf);
	assert_string_equal(cJSON_GetObjectItem(j, "namespace")->valuestring,
			    "llm");
	assert_string_equal(cJSON_GetObjectItem(j,
			    "scaledObject")->valuestring, "chat \"x\"\n");
	assert_true(cJSON_IsNumber(cJSON_GetObjectItem(j, "lambda")));
	assert_true(cJSON_GetObjectItem(j, "lambda")->valuedouble == 2.5);
	assert_true(cJSON_GetObjectItem(j, "raw")->valuedouble == 27);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "z")));
	assert_null(cJSON_GetObjectItem(j, "window"));
	cJSON_Delete(j);
	/* a message as long as a line and many long fields: the line stays
	 * valid JSON, the fields that do not fit are left out */
	memset(big, '"', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	for (i = 0; i < LOG_FIELDS_MAX + 5; i++)
		many[i] = (struct log_field)LOG_F_STR("k", big + 1000);
	assert_true(log_format_fields(buf, sizeof(buf), 1, T, LOG_WARN, big,
				      many, LOG_FIELDS_MAX + 5) < sizeof(buf));
	json_ok(buf, "warn", NULL);
}

/* Fields that fill a JSON line to exactly size - 2 bytes: "}\n" and the
 * NUL need three, and the NUL was written at buf[size] (ASan, on an
 * exact-size buffer; the server's line buffer is on the stack). */
static void test_fields_fill(void **state)
{
	static const char when[] = "2026-01-01T00:00:00.000Z";
	static char msg[2001], q[LOG_LINE_MAX];
	size_t size = LOG_JSON_MAX + 128, base, want, len;
	char *buf = malloc(size), *probe = malloc(size + 256);
	struct log_field f[2] = {
		LOG_F_STR("query", "x"), LOG_F_STR("namespace", msg),
	};

	(void)state;
	assert_non_null(buf);
	assert_non_null(probe);
	memset(msg, 'a', 2000);
	base = log_format_fields(probe, size + 256, 1, when, LOG_INFO, msg,
				 f, 2);
	/* the query one byte longer for every byte the line lacks */
	want = size - base;
	assert_true(want + 2 < sizeof(q));
	memset(q, 'q', want + 1);
	f[0].s = q;
	len = log_format_fields(buf, size, 1, when, LOG_INFO, msg, f, 2);
	assert_true(len < size);
	assert_int_equal(buf[len], '\0');
	assert_int_equal(buf[len - 1], '\n');
	assert_int_equal(buf[len - 2], '}');
	/* the last field, which filled the line to size - 2, is left out */
	assert_non_null(strstr(buf, "\"query\""));
	assert_null(strstr(buf, "\"namespace\""));
	free(probe);
	free(buf);
}

static void test_names(void **state)
{
	(void)state;
	assert_int_equal(log_set_format("json"), 0);
	assert_int_equal(log_set_format("text"), 0);
	assert_int_equal(log_set_format("JSON"), -1);
	assert_int_equal(log_set_format("logfmt"), -1);
	assert_int_equal(log_set_level("warn"), 0);
	assert_int_equal(log__level, LOG_WARN);
	assert_int_equal(log_set_level("verbose"), -1);
	assert_int_equal(log__level, LOG_WARN);
	assert_int_equal(log_set_level("info"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_fields_fill),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
