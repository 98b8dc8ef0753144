/*
 * test_csv.c - the bounded line reader and the CSV field writer (csv.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "csv.h"

/* The lines of text, read with a buffer of size bytes: what each read
 * gave, as "OK:line", "LONG", "NUL" or "EOF", joined by '|'. */
static void read_all(const char *text, size_t len, size_t size, char *out,
		     size_t outlen)
{
	FILE *fp = fmemopen((void *)text, len, "r");
	char line[64];
	enum csv_line r;
	size_t o = 0;

	assert_non_null(fp);
	assert_true(size <= sizeof(line));
	out[0] = '\0';
	do {
		r = csv_line(fp, line, size);
		o += (size_t)snprintf(out + o, outlen - o, "%s%s%s", o ? "|" : "",
				      r == CSV_LINE_OK ? "OK:" :
				      r == CSV_LINE_LONG ? "LONG" :
				      r == CSV_LINE_NUL ? "NUL" : "EOF",
				      r == CSV_LINE_OK ? line : "");
	} while (r == CSV_LINE_OK && o < outlen);
	fclose(fp);
}

/* A line fits when its text does, whether it ends in LF or CRLF (the
 * '\r' of CRLF used to count against the size). */
static void test_line_sizes(void **state)
{
	static const struct {
		const char *text;
		size_t len;
		const char *want;
	} cases[] = {
		{ "1234567\n", 8, "OK:1234567|EOF" },
		{ "1234567\r\n", 9, "OK:1234567|EOF" },
		{ "1234567\r", 8, "OK:1234567|EOF" },
		{ "12345678\n", 9, "LONG" },
		{ "1234567\rx\n", 10, "LONG" },
		{ "a,b\r\nc\n", 7, "OK:a,b|OK:c|EOF" },
		{ "a\0b\n", 4, "NUL" },
	};
	char out[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		read_all(cases[i].text, cases[i].len, 8, out, sizeof(out));
		assert_string_equal(out, cases[i].want);
	}
}

static void test_put_field(void **state)
{
	char buf[128] = "";
	FILE *fp = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	assert_non_null(fp);
	csv_put_field(fp, "plain");
	fputc(';', fp);
	csv_put_field(fp, "static:prefill=2,decode=3");
	fputc(';', fp);
	csv_put_field(fp, "say \"hi\"");
	fclose(fp);
	assert_string_equal(buf, "plain;\"static:prefill=2,decode=3\";"
			    "\"say \"\"hi\"\"\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_sizes),
		cmocka_unit_test(test_put_field),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
