/*
 * gostd.c - see gostd.h.
 *
 * Written out rather than taken from a library: Go's time.Parse() has no
 * C counterpart (strptime() takes other fields and widths), and
 * OpenSSL's base64 decoders, already linked, judge otherwise than Go
 * (EVP_DecodeUpdate() skips spaces and tabs, which Go refuses;
 * EVP_DecodeBlock() takes any length and counts padding as bytes).
 */
#include "gostd.h"

#include "ascii.h"
#include "utf8.h"

/* The allowed formats' parts after the date (resolve.go's
 * allowedTimestampFormats, in its order). */
enum gots_form { GOTS_T, GOTS_LOWER_T, GOTS_SPACE, GOTS_DATE };

/* A cursor over the text being parsed. */
struct gots {
	const char *s;
	size_t len, i;
};

/* Go's getnum(value, false): one digit, or two when two follow. */
static int gots_num(struct gots *p, int *v)
{
	if (p->i >= p->len || !ascii_is_digit((unsigned char)p->s[p->i]))
		return 0;
	*v = p->s[p->i++] - '0';
	if (p->i < p->len && ascii_is_digit((unsigned char)p->s[p->i]))
		*v = *v * 10 + (p->s[p->i++] - '0');
	return 1;
}

/* The layout's literal byte c (Go's skip() for a prefix without a
 * space). */
static int gots_lit(struct gots *p, char c)
{
	if (p->i >= p->len || p->s[p->i] != c)
		return 0;
	p->i++;
	return 1;
}

/* Two digits at s (Go's getnum(s, true) on a two-byte slice). */
static int gots_two(const char *s, int *v)
{
	if (!ascii_is_digit((unsigned char)s[0]) ||
	    !ascii_is_digit((unsigned char)s[1]))
		return 0;
	*v = (s[0] - '0') * 10 + (s[1] - '0');
	return 1;
}

static int gots_days(int month, int year)
{
	static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
				      30, 31 };
	int leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);

	return days[month - 1] + (month == 2 && leap);
}

/* The time after the date, from "15:4:5" on: the hour, minute, second,
 * an optional fraction, and for the 'T' forms the zone. */
static int gots_time(struct gots *p, enum gots_form f)
{
	int hour, min, sec, zh, zm;

	if (!gots_num(p, &hour) || hour >= 24 || !gots_lit(p, ':') ||
	    !gots_num(p, &min) || min >= 60 || !gots_lit(p, ':') ||
	    !gots_num(p, &sec) || sec >= 60)
		return 0;
	/* stdFracSecond9: '.' or ',' and a digit, else no fraction; then
	 * every digit (Go 1.23; parseNanoseconds() keeps 9) */
	if (p->len - p->i >= 2 && (p->s[p->i] == '.' || p->s[p->i] == ',') &&
	    ascii_is_digit((unsigned char)p->s[p->i + 1])) {
		p->i++;
		while (p->i < p->len &&
		       ascii_is_digit((unsigned char)p->s[p->i]))
			p->i++;
	}
	if (f == GOTS_SPACE)
		return 1;
	/* stdISO8601ColonTZ: 'Z', or a sign, HH ':' MM, range-tested with
	 * '>' (an offset of 24 hours or 60 minutes is taken) */
	if (gots_lit(p, 'Z'))
		return 1;
	if (p->len - p->i < 6 || p->s[p->i + 3] != ':' ||
	    (p->s[p->i] != '+' && p->s[p->i] != '-') ||
	    !gots_two(p->s + p->i + 1, &zh) ||
	    !gots_two(p->s + p->i + 4, &zm) || zh > 24 || zm > 60)
		return 0;
	p->i += 6;
	return 1;
}

/* time.Parse(format f, s) succeeds; s starts with 4 digits and '-'. */
static int gots_parse(const char *s, size_t len, enum gots_form f)
{
	struct gots p = { s, len, 5 };
	int year, month, day;

	year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 +
	       (s[3] - '0');
	if (!gots_num(&p, &month) || month < 1 || month > 12 ||
	    !gots_lit(&p, '-') || !gots_num(&p, &day))
		return 0;
	switch (f) {
	case GOTS_T:
		if (!gots_lit(&p, 'T') || !gots_time(&p, f))
			return 0;
		break;
	case GOTS_LOWER_T:
		if (!gots_lit(&p, 't') || !gots_time(&p, f))
			return 0;
		break;
	case GOTS_SPACE:
		/* skip(): a space in the layout takes one or more (none at
		 * the end, where the hour then fails) */
		if (!gots_lit(&p, ' '))
			return 0;
		while (p.i < p.len && p.s[p.i] == ' ')
			p.i++;
		if (!gots_time(&p, f))
			return 0;
		break;
	case GOTS_DATE:
		break;
	}
	/* no extra text; the day validated last, as time.Parse does */
	return p.i == p.len && day >= 1 && day <= gots_days(month, year);
}

int gostd_timestamp(const char *s, size_t len)
{
	static const enum gots_form forms[] = { GOTS_T, GOTS_LOWER_T,
						GOTS_SPACE, GOTS_DATE };
	size_t i;

	/* parseTimestamp()'s quick check: all its formats start YYYY- */
	for (i = 0; i < 4; i++)
		if (i >= len || !ascii_is_digit((unsigned char)s[i]))
			return 0;
	if (len < 5 || s[4] != '-')
		return 0;
	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
		if (gots_parse(s, len, forms[i]))
			return 1;
	return 0;
}

/* A base64 character's 6 bits, or -1. */
static int gob64_value(unsigned char c)
{
	if (ascii_is_upper(c))
		return c - 'A';
	if (ascii_is_lower(c))
		return c - 'a' + 26;
	if (ascii_is_digit(c))
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* i past the newlines at s[i] on. */
static size_t gob64_newlines(const char *s, size_t len, size_t i)
{
	while (i < len && (s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

/* Go's decodeQuantum(), one quantum after another: 4 characters (3
 * bytes), or 2 or 3 then padding, the last. */
int gostd_base64(const char *s, size_t len, unsigned char *out, size_t *n)
{
	unsigned char q[4];
	size_t i = 0, o = 0;
	int j, v;

	for (;;) {
		for (j = 0; j < 4;) {
			if (i == len) {
				if (j)   /* padding is required */
					return -1;
				goto done;
			}
			if (s[i] == '\n' || s[i] == '\r') {
				i++;
				continue;
			}
			v = gob64_value((unsigned char)s[i++]);
			if (v >= 0) {
				q[j++] = (unsigned char)v;
				continue;
			}
			if (s[i - 1] != '=' || j < 2)
				return -1;
			/* "==" after 2 characters, newlines between */
			if (j == 2) {
				i = gob64_newlines(s, len, i);
				if (i == len || s[i] != '=')
					return -1;
				i++;
			}
			if (gob64_newlines(s, len, i) != len)
				return -1;   /* trailing garbage */
			if (out) {
				out[o] = (unsigned char)(q[0] << 2 | q[1] >> 4);
				if (j == 3)
					out[o + 1] = (unsigned char)
						(q[1] << 4 | q[2] >> 2);
			}
			o += (size_t)j - 1;
			goto done;
		}
		if (out) {
			out[o] = (unsigned char)(q[0] << 2 | q[1] >> 4);
			out[o + 1] = (unsigned char)(q[1] << 4 | q[2] >> 2);
			out[o + 2] = (unsigned char)(q[2] << 6 | q[3]);
		}
		o += 3;
	}
done:
	if (n)
		*n = o;
	return 0;
}

size_t gostd_json_text(const unsigned char *s, size_t n, char *out)
{
	static const char fffd[] = "\xef\xbf\xbd";
	size_t i = 0, o = 0, k;

	while (i < n) {
		k = utf8_len(s + i, n - i);
		if (k) {
			if (out)
				while (k--)
					out[o++] = (char)s[i++];
			else
				o += k, i += k;
			continue;
		}
		if (out)
			for (k = 0; k < 3; k++)
				out[o + k] = fffd[k];
		o += 3;
		i++;
	}
	return o;
}
