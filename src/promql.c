/* promql.c - see promql.h. */
#include "promql.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "ascii.h"

/* Bound on the digits of one duration part: more than any real range
 * needs, and keeps the arithmetic exact. */
#define PROMQL_DIGITS_MAX 12

/* Brackets in a query promql_one_series() follows. */
#define PROMQL_DEPTH 64

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
	while (ascii_is_digit(*p)) {
		v = 0;
		for (digits = 0; ascii_is_digit(*p); p++) {
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

/* ---- does a query return one series? ----------------------------------- */

/* The rules are promql.h's; pq_ functions follow them over the text. */
enum pq { PQ_MANY, PQ_ONE };

struct pq_in {
	const char *p;
	int lost;              /* could not follow the text */
	int depth;
};

static enum pq pq_expr(struct pq_in *in);

/* w is one of list's words (NULL-terminated). */
static int pq_listed(const char *w, const char *const *list)
{
	while (*list && strcmp(w, *list))
		list++;
	return *list != NULL;
}

static enum pq pq_both(enum pq a, enum pq b)
{
	return a == PQ_ONE && b == PQ_ONE ? PQ_ONE : PQ_MANY;
}

/* Skip white space and # comments. */
static void pq_space(struct pq_in *in)
{
	for (;;) {
		while (ascii_is_space((unsigned char)*in->p))
			in->p++;
		if (*in->p != '#')
			return;
		while (*in->p && *in->p != '\n')
			in->p++;
	}
}

static int pq_ident_char(char c, int first)
{
	return ascii_is_alpha((unsigned char)c) || c == '_' || c == ':' ||
	       (!first && ascii_is_digit((unsigned char)c));
}

/* Read an identifier into buf (cut to size); 0 if there is none. */
static size_t pq_ident(struct pq_in *in, char *buf, size_t size)
{
	size_t n = 0;

	if (!pq_ident_char(*in->p, 1))
		return 0;
	while (pq_ident_char(*in->p, 0)) {
		if (n + 1 < size)
			buf[n] = *in->p;
		n++;
		in->p++;
	}
	buf[n < size ? n : size - 1] = '\0';
	return n;
}

/* Consume the identifier word if it comes next. */
static int pq_word(struct pq_in *in, const char *word)
{
	const char *save = in->p;
	char w[32];

	pq_space(in);
	if (pq_ident(in, w, sizeof(w)) && !strcmp(w, word))
		return 1;
	in->p = save;
	return 0;
}

static void pq_string(struct pq_in *in)
{
	char q = *in->p++;

	while (*in->p && *in->p != q) {
		if (q != '`' && *in->p == '\\' && in->p[1])
			in->p++;
		in->p++;
	}
	if (*in->p)
		in->p++;
	else
		in->lost = 1;
}

/* Skip a bracketed group (at its opening bracket), strings included. */
static void pq_skip(struct pq_in *in)
{
	int depth = 0;

	while (*in->p && !in->lost) {
		char c = *in->p;

		if (c == '"' || c == '\'' || c == '`') {
			pq_string(in);
			continue;
		}
		in->p++;
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if ((c == ')' || c == ']' || c == '}') && --depth == 0)
			return;
	}
	in->lost = 1;
}

/* After `by` or `without`: the label list.  One series for `by ()` and
 * `by (le)`. */
static enum pq pq_grouping(struct pq_in *in, int by)
{
	char label[8];
	size_t n = 0, le = 0;

	pq_space(in);
	if (*in->p != '(') {
		in->lost = 1;
		return PQ_ONE;
	}
	in->p++;
	for (;;) {
		pq_space(in);
		if (*in->p == ')') {
			in->p++;
			break;
		}
		if (*in->p == ',') {
			in->p++;
			continue;
		}
		if (!pq_ident(in, label, sizeof(label))) {
			in->lost = 1;
			return PQ_ONE;
		}
		n++;
		le += !strcmp(label, "le");
	}
	return by && n == le && n <= 1 ? PQ_ONE : PQ_MANY;
}

/* At '(': comma-separated expressions up to ')'; one series if all are. */
static enum pq pq_args(struct pq_in *in)
{
	enum pq r = PQ_ONE;

	pq_space(in);
	if (*in->p != '(') {
		in->lost = 1;
		return PQ_ONE;
	}
	in->p++;
	pq_space(in);
	if (*in->p == ')') {
		in->p++;
		return PQ_ONE;
	}
	while (!in->lost) {
		r = pq_both(r, pq_expr(in));
		pq_space(in);
		if (*in->p == ',') {
			in->p++;
			continue;
		}
		if (*in->p == ')')
			in->p++;
		else
			in->lost = 1;
		break;
	}
	return r;
}

/* An aggregation, its grouping before or after the arguments. */
static enum pq pq_aggregation(struct pq_in *in)
{
	enum pq r = PQ_ONE;

	if (pq_word(in, "by"))
		r = pq_grouping(in, 1);
	else if (pq_word(in, "without"))
		r = pq_grouping(in, 0);
	pq_args(in);
	if (pq_word(in, "by"))
		r = pq_grouping(in, 1);
	else if (pq_word(in, "without"))
		r = pq_grouping(in, 0);
	return r;
}

/* A name at the start of an operand: a function, an aggregation, a
 * number word or a metric. */
static enum pq pq_named(struct pq_in *in, const char *w)
{
	static const char *const aggs[] = {
		"sum", "avg", "min", "max", "count", "group", "stddev",
		"stdvar", "quantile", NULL };
	static const char *const single[] = {
		"vector", "scalar", "time", "absent", "absent_over_time",
		NULL };
	const char *after;

	pq_space(in);
	after = in->p;
	if (pq_listed(w, aggs) && (*after == '(' || pq_word(in, "by") ||
				   pq_word(in, "without"))) {
		in->p = after;
		return pq_aggregation(in);
	}
	if (*after == '(') {
		enum pq r = pq_args(in);

		return pq_listed(w, single) ? PQ_ONE : r;
	}
	if (!strcasecmp(w, "inf") || !strcasecmp(w, "nan"))
		return PQ_ONE;
	if (*after == '{')
		pq_skip(in);
	return PQ_MANY;   /* a metric: one series per label set */
}

/* One operand with its range, offset and @ modifiers. */
static enum pq pq_operand(struct pq_in *in)
{
	enum pq r = PQ_ONE;
	char w[64];

	if (++in->depth > PROMQL_DEPTH) {
		in->lost = 1;
		return PQ_ONE;
	}
	pq_space(in);
	while (*in->p == '-' || *in->p == '+') {
		in->p++;
		pq_space(in);
	}
	if (*in->p == '(') {
		r = pq_args(in);
	} else if (ascii_is_digit((unsigned char)*in->p) || (*in->p == '.' &&
		   ascii_is_digit((unsigned char)in->p[1]))) {
		while (ascii_is_alnum((unsigned char)*in->p) || *in->p == '.' ||
		       ((*in->p == '+' || *in->p == '-') &&
			(in->p[-1] == 'e' || in->p[-1] == 'E')))
			in->p++;
	} else if (*in->p == '"' || *in->p == '\'' || *in->p == '`') {
		pq_string(in);
	} else if (*in->p == '{') {
		pq_skip(in);
		r = PQ_MANY;
	} else if (pq_ident(in, w, sizeof(w))) {
		r = pq_named(in, w);
	} else {
		in->lost = 1;
	}
	while (!in->lost) {
		pq_space(in);
		if (*in->p == '[') {
			pq_skip(in);
		} else if (pq_word(in, "offset")) {
			pq_space(in);
			in->p += *in->p == '-';
			while (ascii_is_alnum((unsigned char)*in->p) ||
			       *in->p == '.')
				in->p++;
		} else if (*in->p == '@') {
			in->p++;
			pq_operand(in);
		} else {
			break;
		}
	}
	in->depth--;
	return r;
}

/* A binary operator and its modifiers; 0 if none comes next.  *ignore:
 * the right side does not add series (and, unless). */
static int pq_operator(struct pq_in *in, int *ignore)
{
	static const char *const two[] = { "==", "!=", "<=", ">=", NULL };
	char w[16];
	const char *save;
	size_t i;

	*ignore = 0;
	pq_space(in);
	for (i = 0; two[i]; i++)
		if (!strncmp(in->p, two[i], 2)) {
			in->p += 2;
			goto modifiers;
		}
	if (*in->p && strchr("+-*/%^<>", *in->p)) {
		in->p++;
		goto modifiers;
	}
	save = in->p;
	if (pq_ident(in, w, sizeof(w))) {
		*ignore = !strcmp(w, "and") || !strcmp(w, "unless");
		if (*ignore || !strcmp(w, "or") || !strcmp(w, "atan2"))
			goto modifiers;
	}
	*ignore = 0;
	in->p = save;
	return 0;
modifiers:
	pq_word(in, "bool");
	if (pq_word(in, "on") || pq_word(in, "ignoring")) {
		pq_space(in);
		pq_skip(in);
	}
	if (pq_word(in, "group_left") || pq_word(in, "group_right")) {
		pq_space(in);
		if (*in->p == '(')
			pq_skip(in);
	}
	return 1;
}

static enum pq pq_expr(struct pq_in *in)
{
	enum pq r, right;
	int ignore;

	r = pq_operand(in);
	while (!in->lost && pq_operator(in, &ignore)) {
		right = pq_operand(in);
		if (!ignore)
			r = pq_both(r, right);
	}
	return r;
}

int promql_one_series(const char *query)
{
	struct pq_in in = { query, 0, 0 };
	enum pq r;

	r = pq_expr(&in);
	pq_space(&in);
	if (in.lost || *in.p)
		return 1;
	return r == PQ_ONE;
}
