/* promql.c - see promql.h. */
#include "promql.h"

#include <stddef.h>

/* Bound on the digits of one duration part: more than any real range
 * needs, and keeps the arithmetic exact. */
#define PROMQL_DIGITS_MAX 12

static int promql_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A duration ending at ']' or ':' from p; seconds, or -1 if p is not one. */
static double promql_duration(const char *p)
{
	static const struct {
		const char *unit;
		double seconds;
	} units[] = {
		{ "y", 365 * 86400.0 }, { "w", 7 * 86400.0 }, { "d", 86400.0 },
		{ "h", 3600.0 }, { "ms", 0.001 }, { "m", 60.0 }, { "s", 1.0 },
	};
	size_t i, rank, next = 0, digits;
	double total = 0, v;
	int parts = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	while (promql_digit(*p)) {
		v = 0;
		for (digits = 0; promql_digit(*p); p++) {
			if (++digits > PROMQL_DIGITS_MAX)
				return -1;
			v = v * 10 + (*p - '0');
		}
		/* Units come in the order y w d h m s ms, once each
		 * (rank); the table tries "ms" before "m". */
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (p[0] == units[i].unit[0] &&
			    (!units[i].unit[1] || p[1] == units[i].unit[1]))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -1;
		rank = i < 4 ? i : i == 4 ? 6 : i - 1;
		if (rank < next)
			return -1;
		next = rank + 1;
		total += v * units[i].seconds;
		p += units[i].unit[1] ? 2 : 1;
		parts++;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	if (!parts || (*p != ']' && *p != ':'))
		return -1;
	return total;
}

int promql_range_max(const char *query, double *out)
{
	const char *p = query;
	double best = -1, d;

	if (!p)
		return 0;
	while (*p) {
		char c = *p;

		if (c == '"' || c == '\'' || c == '`') {
			/* skip the string literal, escapes included */
			for (p++; *p && *p != c; p++)
				if (c != '`' && *p == '\\' && p[1])
					p++;
			if (*p)
				p++;
			continue;
		}
		if (c == '#') {
			while (*p && *p != '\n')
				p++;
			continue;
		}
		if (c == '[') {
			d = promql_duration(p + 1);
			if (d > best)
				best = d;
		}
		p++;
	}
	if (!(best > 0))
		return 0;
	*out = best;
	return 1;
}
