/*
 * num.c - the strict number parser (num.h): a locale-free syntax check,
 * then strtod()/strtol() over exactly the characters it accepted.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "num.h"

/* Worded to follow the quoted value in a message. */
static const char *const num_why_texts[] = {
	[NUM_OK] = "is fine",
	[NUM_EMPTY] = "is empty",
	[NUM_SPACE] = "has spaces around it",
	[NUM_LONG] = "is too long for a number",
	[NUM_HEX] = "is not a decimal number",
	[NUM_NONFINITE] = "is not a finite number",
	[NUM_SYNTAX] = "is not a number",
	[NUM_RANGE] = "is out of range",
	[NUM_FRACTION] = "is not a whole number",
};

/*
 * Length of the decimal number that starts s:
 *   [+-] digits [. digits] [(e|E) [+-] digits]   or   [+-] . digits [...]
 * 0 when s does not start with one.  *integral is set to 1 when the
 * number has neither a '.' nor an exponent.
 */
static size_t num_scan_decimal(const char *s, int *integral)
{
	size_t i = 0, digits = 0, exp_digits = 0, mark;

	*integral = 1;
	if (s[i] == '+' || s[i] == '-')
		i++;
	while (ascii_is_digit((unsigned char)s[i])) {
		i++;
		digits++;
	}
	if (s[i] == '.') {
		*integral = 0;
		i++;
		while (ascii_is_digit((unsigned char)s[i])) {
			i++;
			digits++;
		}
	}
	if (digits == 0)
		return 0;
	if (s[i] != 'e' && s[i] != 'E')
		return i;
	mark = i++;
	if (s[i] == '+' || s[i] == '-')
		i++;
	while (ascii_is_digit((unsigned char)s[i])) {
		i++;
		exp_digits++;
	}
	if (exp_digits == 0)
		return mark; /* "1e": the number ends before the 'e' */
	*integral = 0;
	return i;
}

/* Case-folded: is s exactly one of the words strtod() reads as non-finite
 * (after an optional sign)? */
static int num_is_nonfinite(const char *s)
{
	static const char *const words[] = { "nan", "inf", "infinity" };
	size_t i, j;

	if (*s == '+' || *s == '-')
		s++;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		for (j = 0; words[i][j] && ascii_fold((unsigned char)s[j]) ==
		     words[i][j]; j++)
			;
		if (!words[i][j] && !s[j])
			return 1;
	}
	return 0;
}

/* Check the syntax of s and say what is wrong with it.  want_whole asks
 * for a whole number ("3", not "3.0" or "3e0"). */
static enum num_why num_syntax(const char *s, int want_whole,
				     size_t *plen)
{
	size_t len = strnlen(s, NUM_MAXLEN + 1);
	const char *p = s;
	int integral;

	*plen = len;
	if (len == 0)
		return NUM_EMPTY;
	if (len > NUM_MAXLEN)
		return NUM_LONG;
	if (ascii_is_space((unsigned char)s[0]) ||
	    ascii_is_space((unsigned char)s[len - 1]))
		return NUM_SPACE;
	if (num_scan_decimal(s, &integral) == len)
		return (want_whole && !integral) ? NUM_FRACTION
						 : NUM_OK;
	if (*p == '+' || *p == '-')
		p++;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		return NUM_HEX;
	if (num_is_nonfinite(s))
		return NUM_NONFINITE;
	return NUM_SYNTAX;
}

enum num_why num_read_double(const char *s, double *out)
{
	enum num_why r;
	size_t len;
	char *end;
	double v;

	r = num_syntax(s, 0, &len);
	if (r != NUM_OK)
		goto out;
	errno = 0;
	v = strtod(s, &end);
	if (end != s + len) {
		r = NUM_SYNTAX; /* only under a non-C LC_NUMERIC */
		goto out;
	}
	/* ERANGE with a finite result is underflow: the value is tiny, and
	 * the tiny double strtod() gave is its best reading. */
	if (!isfinite(v)) {
		r = NUM_RANGE;
		goto out;
	}
	*out = v == 0 ? 0.0 : v; /* no "-0" in later messages */
out:
	return r;
}

enum num_why num_read_long(const char *s, long *out)
{
	enum num_why r;
	size_t len;
	char *end;
	long v;

	r = num_syntax(s, 1, &len);
	if (r != NUM_OK)
		goto out;
	errno = 0;
	v = strtol(s, &end, 10);
	if (end != s + len) {
		r = NUM_SYNTAX;
		goto out;
	}
	if (errno == ERANGE) {
		r = NUM_RANGE;
		goto out;
	}
	*out = v;
out:
	return r;
}

int num_parse_double(const char *s, double *out)
{
	if (!s)
		return -1;
	return num_read_double(s, out) == NUM_OK ? 0 : -1;
}

int num_parse_long(const char *s, long *out)
{
	if (!s)
		return -1;
	return num_read_long(s, out) == NUM_OK ? 0 : -1;
}

const char *num_why_text(enum num_why r)
{
	if ((unsigned)r >= sizeof(num_why_texts) / sizeof(num_why_texts[0]))
		return "is not a number";
	return num_why_texts[r];
}
