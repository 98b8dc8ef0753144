/* promql.c - see promql.h. */
#include "promql.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arr.h"
#include "ascii.h"
#include "near.h"
#include "show.h"

/* Bound on the digits of one duration part: more than any real range
 * needs, and keeps the arithmetic exact. */
#define PROMQL_DIGITS_MAX 12

/* The longest duration Prometheus takes, in seconds: it counts them in
 * int64 nanoseconds (292 years; "duration out of range" beyond). */
#define PROMQL_DURATION_MAX 9223372036.854775807

/* The @ modifier's bound: a Unix time within int64 (seconds; "timestamp
 * out of bounds for @ modifier" beyond, and for Inf and NaN). */
#define PROMQL_AT_MAX 9223372036854775807.0

/* Bytes of a number literal we convert. */
#define PROMQL_NUMBER_MAX 64

/* ---- durations ------------------------------------------------------------ */

/*
 * A Prometheus duration at p (at most n bytes): parts "<digits><unit>",
 * units y w d h m s ms in that order, each at most once.  Returns the
 * bytes it takes and stores the seconds, or 0 when p does not start with
 * one.  What follows is the caller's to judge.
 */
static size_t promql_dur_scan(const char *p, size_t n, double *secs)
{
	static const struct {
		const char *unit;
		double seconds;
		unsigned rank;        /* y w d h m s ms */
	} units[] = {
		{ "y", 365 * 86400.0, 0 }, { "w", 7 * 86400.0, 1 },
		{ "d", 86400.0, 2 }, { "h", 3600.0, 3 }, { "ms", 0.001, 6 },
		{ "m", 60.0, 4 }, { "s", 1.0, 5 },
	};
	size_t i, k = 0, digits, next = 0;
	double total = 0, v;

	while (k < n && ascii_is_digit((unsigned char)p[k])) {
		v = 0;
		for (digits = 0; k < n && ascii_is_digit((unsigned char)p[k]);
		     k++) {
			if (++digits > PROMQL_DIGITS_MAX)
				return 0;
			v = v * 10 + (p[k] - '0');
		}
		/* the table tries "ms" before "m" */
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (k < n && p[k] == units[i].unit[0] &&
			    (!units[i].unit[1] ||
			     (k + 1 < n && p[k + 1] == units[i].unit[1])))
				break;
		if (i == sizeof(units) / sizeof(units[0]) ||
		    units[i].rank < next)
			return 0;
		next = units[i].rank + 1;
		total += v * units[i].seconds;
		k += units[i].unit[1] ? 2 : 1;
	}
	if (k == 0)
		return 0;
	*secs = total;
	return k;
}

/* A duration ending at ']' or ':' from p; seconds, or -1 if p is not one. */
static double promql_duration(const char *p)
{
	double d;
	size_t k;

	while (*p == ' ' || *p == '\t')
		p++;
	k = promql_dur_scan(p, strlen(p), &d);
	if (!k)
		return -1;
	p += k;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != ']' && *p != ':')
		return -1;
	return d;
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

/* ---- the function table --------------------------------------------------- */

/*
 * Prometheus' functions (promql/parser/functions.go), stable and
 * experimental, 2.x and 3.x.  args: one letter an argument, v instant
 * vector, m range vector, s scalar, S string.  variadic as Prometheus':
 * 0 exactly these; n > 0 the last may be left out or given up to n
 * times; -1 the last may be left out or repeated.
 */
struct promql_func {
	const char *name;
	const char *args;
	int variadic;
	enum promql_type ret;
};

static const struct promql_func promql_funcs[] = {
	{ "abs", "v", 0, PROMQL_VECTOR },
	{ "absent", "v", 0, PROMQL_VECTOR },
	{ "absent_over_time", "m", 0, PROMQL_VECTOR },
	{ "acos", "v", 0, PROMQL_VECTOR },
	{ "acosh", "v", 0, PROMQL_VECTOR },
	{ "asin", "v", 0, PROMQL_VECTOR },
	{ "asinh", "v", 0, PROMQL_VECTOR },
	{ "atan", "v", 0, PROMQL_VECTOR },
	{ "atanh", "v", 0, PROMQL_VECTOR },
	{ "avg_over_time", "m", 0, PROMQL_VECTOR },
	{ "ceil", "v", 0, PROMQL_VECTOR },
	{ "changes", "m", 0, PROMQL_VECTOR },
	{ "clamp", "vss", 0, PROMQL_VECTOR },
	{ "clamp_max", "vs", 0, PROMQL_VECTOR },
	{ "clamp_min", "vs", 0, PROMQL_VECTOR },
	{ "cos", "v", 0, PROMQL_VECTOR },
	{ "cosh", "v", 0, PROMQL_VECTOR },
	{ "count_over_time", "m", 0, PROMQL_VECTOR },
	{ "day_of_month", "v", 1, PROMQL_VECTOR },
	{ "day_of_week", "v", 1, PROMQL_VECTOR },
	{ "day_of_year", "v", 1, PROMQL_VECTOR },
	{ "days_in_month", "v", 1, PROMQL_VECTOR },
	{ "deg", "v", 0, PROMQL_VECTOR },
	{ "delta", "m", 0, PROMQL_VECTOR },
	{ "deriv", "m", 0, PROMQL_VECTOR },
	{ "double_exponential_smoothing", "mss", 0, PROMQL_VECTOR },
	{ "exp", "v", 0, PROMQL_VECTOR },
	{ "first_over_time", "m", 0, PROMQL_VECTOR },
	{ "floor", "v", 0, PROMQL_VECTOR },
	{ "histogram_avg", "v", 0, PROMQL_VECTOR },
	{ "histogram_count", "v", 0, PROMQL_VECTOR },
	{ "histogram_fraction", "ssv", 0, PROMQL_VECTOR },
	{ "histogram_quantile", "sv", 0, PROMQL_VECTOR },
	{ "histogram_stddev", "v", 0, PROMQL_VECTOR },
	{ "histogram_stdvar", "v", 0, PROMQL_VECTOR },
	{ "histogram_sum", "v", 0, PROMQL_VECTOR },
	{ "holt_winters", "mss", 0, PROMQL_VECTOR },
	{ "hour", "v", 1, PROMQL_VECTOR },
	{ "idelta", "m", 0, PROMQL_VECTOR },
	{ "increase", "m", 0, PROMQL_VECTOR },
	{ "info", "vv", 1, PROMQL_VECTOR },
	{ "irate", "m", 0, PROMQL_VECTOR },
	{ "label_join", "vSSS", -1, PROMQL_VECTOR },
	{ "label_replace", "vSSSS", 0, PROMQL_VECTOR },
	{ "last_over_time", "m", 0, PROMQL_VECTOR },
	{ "ln", "v", 0, PROMQL_VECTOR },
	{ "log10", "v", 0, PROMQL_VECTOR },
	{ "log2", "v", 0, PROMQL_VECTOR },
	{ "mad_over_time", "m", 0, PROMQL_VECTOR },
	{ "max_over_time", "m", 0, PROMQL_VECTOR },
	{ "min_over_time", "m", 0, PROMQL_VECTOR },
	{ "minute", "v", 1, PROMQL_VECTOR },
	{ "month", "v", 1, PROMQL_VECTOR },
	{ "pi", "", 0, PROMQL_SCALAR },
	{ "predict_linear", "ms", 0, PROMQL_VECTOR },
	{ "present_over_time", "m", 0, PROMQL_VECTOR },
	{ "quantile_over_time", "sm", 0, PROMQL_VECTOR },
	{ "rad", "v", 0, PROMQL_VECTOR },
	{ "rate", "m", 0, PROMQL_VECTOR },
	{ "resets", "m", 0, PROMQL_VECTOR },
	{ "round", "vs", 1, PROMQL_VECTOR },
	{ "scalar", "v", 0, PROMQL_SCALAR },
	{ "sgn", "v", 0, PROMQL_VECTOR },
	{ "sin", "v", 0, PROMQL_VECTOR },
	{ "sinh", "v", 0, PROMQL_VECTOR },
	{ "sort", "v", 0, PROMQL_VECTOR },
	{ "sort_by_label", "vS", -1, PROMQL_VECTOR },
	{ "sort_by_label_desc", "vS", -1, PROMQL_VECTOR },
	{ "sort_desc", "v", 0, PROMQL_VECTOR },
	{ "sqrt", "v", 0, PROMQL_VECTOR },
	{ "stddev_over_time", "m", 0, PROMQL_VECTOR },
	{ "stdvar_over_time", "m", 0, PROMQL_VECTOR },
	{ "sum_over_time", "m", 0, PROMQL_VECTOR },
	{ "tan", "v", 0, PROMQL_VECTOR },
	{ "tanh", "v", 0, PROMQL_VECTOR },
	{ "time", "", 0, PROMQL_SCALAR },
	{ "timestamp", "v", 0, PROMQL_VECTOR },
	{ "ts_of_first_over_time", "m", 0, PROMQL_VECTOR },
	{ "ts_of_last_over_time", "m", 0, PROMQL_VECTOR },
	{ "ts_of_max_over_time", "m", 0, PROMQL_VECTOR },
	{ "ts_of_min_over_time", "m", 0, PROMQL_VECTOR },
	{ "vector", "s", 0, PROMQL_VECTOR },
	{ "year", "v", 1, PROMQL_VECTOR },
};
#define PROMQL_NFUNCS ((int)(sizeof(promql_funcs) / sizeof(promql_funcs[0])))

/* Aggregations: param 0 none, 's' a scalar, 'S' a string. */
static const struct {
	const char *name;
	char param;
} promql_aggs[] = {
	{ "sum", 0 }, { "avg", 0 }, { "count", 0 }, { "min", 0 },
	{ "max", 0 }, { "group", 0 }, { "stddev", 0 }, { "stdvar", 0 },
	{ "topk", 's' }, { "bottomk", 's' }, { "quantile", 's' },
	{ "count_values", 'S' }, { "limitk", 's' }, { "limit_ratio", 's' },
};
#define PROMQL_NAGGS ((int)(sizeof(promql_aggs) / sizeof(promql_aggs[0])))

const char *promql_func_name(int fn)
{
	return fn >= 0 && fn < PROMQL_NFUNCS ? promql_funcs[fn].name : "?";
}

const char *promql_agg_name(int fn)
{
	return fn >= 0 && fn < PROMQL_NAGGS ? promql_aggs[fn].name : "?";
}

const char *promql_type_name(enum promql_type t)
{
	switch (t) {
	case PROMQL_SCALAR:
		return "scalar";
	case PROMQL_VECTOR:
		return "instant vector";
	case PROMQL_MATRIX:
		return "range vector";
	case PROMQL_STRING:
		return "string";
	}
	return "nothing";
}

static enum promql_type promql_letter_type(char c)
{
	return c == 'v' ? PROMQL_VECTOR : c == 'm' ? PROMQL_MATRIX :
	       c == 's' ? PROMQL_SCALAR : PROMQL_STRING;
}

/* ---- the lexer ------------------------------------------------------------ */

enum pq_tok {
	T_EOF, T_IDENT, T_NUMBER, T_DURATION, T_STRING,
	T_LPAREN, T_RPAREN, T_LBRACE, T_RBRACE, T_LBRACKET, T_RBRACKET,
	T_COMMA, T_COLON, T_AT, T_ASSIGN, T_NEQ, T_RE, T_NRE,
	T_ADD, T_SUB, T_MUL, T_DIV, T_MOD, T_POW,
	T_EQL, T_GTR, T_LSS, T_GTE, T_LTE,
};

struct pq_token {
	enum pq_tok t;
	unsigned pos, end;
	double num;            /* NUMBER, DURATION */
};

struct pq {
	const char *s;
	size_t len;
	size_t at;             /* the next byte the lexer reads */
	struct pq_token cur;
	unsigned prev_end;     /* the end of the token before cur */
	int brackets;          /* '[' open: ':' is a subquery's colon */
	struct promql_ast *ast;
	struct promql_error *err;
	int failed;            /* an error is recorded: unwind */
	int nomem;
	int depth;
};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int pq_fail(struct pq *p, size_t pos, const char *fmt, ...)
{
	va_list ap;

	if (p->failed)
		return -1;
	p->failed = 1;
	if (p->err) {
		p->err->pos = pos;
		va_start(ap, fmt);
		vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int pq_oom(struct pq *p)
{
	p->nomem = 1;
	return pq_fail(p, p->cur.pos, "out of memory");
}

static int pq_ident_start(int c)
{
	return ascii_is_alpha(c) || c == '_' || c == ':';
}

static int pq_ident_char(int c)
{
	return pq_ident_start(c) || ascii_is_digit(c);
}

/* Is the current token the identifier word? */
static int pq_is(const struct pq *p, const char *word)
{
	size_t n = strlen(word);

	return p->cur.t == T_IDENT && p->cur.end - p->cur.pos == n &&
	       !memcmp(p->s + p->cur.pos, word, n);
}

/* A string literal at p->at (its quote); the token or an error. */
static int pq_lex_string(struct pq *p, struct pq_token *t)
{
	char q = p->s[p->at];
	size_t i = p->at + 1, k, want;
	int c;

	for (;;) {
		if (i >= p->len)
			return pq_fail(p, t->pos, "the string that starts at "
				       "this %c is never closed", q);
		c = (unsigned char)p->s[i];
		if (c == q)
			break;
		if (q != '`' && c == '\n')
			return pq_fail(p, t->pos, "the string that starts at "
				       "this %c is never closed on its line",
				       q);
		if (q != '`' && c == '\\') {
			if (++i >= p->len)
				continue;
			c = (unsigned char)p->s[i];
			want = 0;
			if (strchr("abfnrtv\\", c) || c == q) {
				i++;
				continue;
			}
			if (c >= '0' && c <= '7') {
				for (k = 0; k < 3; k++, i++)
					if (i >= p->len || p->s[i] < '0' ||
					    p->s[i] > '7')
						return pq_fail(p, i, "an octal "
							       "escape takes 3 "
							       "digits 0-7");
				continue;
			}
			want = c == 'x' ? 2 : c == 'u' ? 4 : c == 'U' ? 8 : 0;
			if (!want)
				return pq_fail(p, i - 1, "unknown escape "
					       "sequence '\\%c' in a string; "
					       "write '\\\\' for a backslash",
					       ascii_is_alnum(c) ? c : '?');
			for (i++, k = 0; k < want; k++, i++)
				if (i >= p->len || !(ascii_is_digit(
				    (unsigned char)p->s[i]) ||
				    strchr("abcdefABCDEF", p->s[i])))
					return pq_fail(p, i, "the escape "
						       "'\\%c' takes %zu hex "
						       "digits", c, want);
			continue;
		}
		i++;
	}
	t->t = T_STRING;
	p->at = i + 1;
	return 0;
}

/* A number or a duration at p->at. */
static int pq_lex_number(struct pq *p, struct pq_token *t)
{
	const char *s = p->s + p->at;
	size_t n = p->len - p->at, k = 0, dk;
	char buf[PROMQL_NUMBER_MAX + 1];
	double d;

	dk = promql_dur_scan(s, n, &d);
	if (dk && (dk >= n || s[dk] == ':' ||
		   !pq_ident_char((unsigned char)s[dk])) &&
	    (dk >= n || s[dk] != '.') &&
	    !(dk < n && ascii_is_digit((unsigned char)s[dk]))) {
		/* "5" alone scans as no duration (no unit): only a unit
		 * makes one */
		if (d > PROMQL_DURATION_MAX)
			return pq_fail(p, t->pos, "duration '%.*s' out of "
				       "range: at most 292 years (Prometheus "
				       "counts them in int64 nanoseconds)",
				       (int)(dk < 30 ? dk : 30), s);
		t->t = T_DURATION;
		t->num = d;
		p->at += dk;
		return 0;
	}
	if (n > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		k = 2;
		while (k < n && (ascii_is_digit((unsigned char)s[k]) ||
				 strchr("abcdefABCDEF", s[k])))
			k++;
		if (k == 2)
			return pq_fail(p, t->pos, "'0x' needs hex digits");
	} else {
		while (k < n && ascii_is_digit((unsigned char)s[k]))
			k++;
		if (k < n && s[k] == '.') {
			k++;
			while (k < n && ascii_is_digit((unsigned char)s[k]))
				k++;
		}
		if (k < n && (s[k] == 'e' || s[k] == 'E')) {
			size_t e = k + 1;

			if (e < n && (s[e] == '+' || s[e] == '-'))
				e++;
			if (e < n && ascii_is_digit((unsigned char)s[e])) {
				while (e < n &&
				       ascii_is_digit((unsigned char)s[e]))
					e++;
				k = e;
			}
		}
	}
	if (k < n && s[k] != ':' &&
	    (pq_ident_char((unsigned char)s[k]) || s[k] == '.'))
		return pq_fail(p, t->pos, "bad number or duration '%.*s': a "
			       "number (1, 0.5, 1e-3, 0x1f) or a duration "
			       "(5m, 1h30m) ends before a letter",
			       (int)(k + 1 < 20 ? k + 1 : 20), s);
	if (k > PROMQL_NUMBER_MAX)
		return pq_fail(p, t->pos, "a number of more than %d "
			       "characters", PROMQL_NUMBER_MAX);
	memcpy(buf, s, k);
	buf[k] = '\0';
	if (k > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
		t->num = (double)strtoull(buf, NULL, 16);
	else
		t->num = strtod(buf, NULL);
	t->t = T_NUMBER;
	p->at += k;
	return 0;
}

/* The next token into p->cur. */
static int pq_next(struct pq *p)
{
	struct pq_token t;
	const char *s = p->s;
	size_t n = p->len;
	char c, c2;

	if (p->failed)
		return -1;
	p->prev_end = p->cur.end;
	for (;;) {
		while (p->at < n && ascii_is_space((unsigned char)s[p->at]))
			p->at++;
		if (p->at < n && s[p->at] == '#') {
			while (p->at < n && s[p->at] != '\n')
				p->at++;
			continue;
		}
		break;
	}
	memset(&t, 0, sizeof(t));
	t.pos = (unsigned)p->at;
	if (p->at >= n) {
		t.t = T_EOF;
		t.end = t.pos;
		p->cur = t;
		return 0;
	}
	c = s[p->at];
	c2 = p->at + 1 < n ? s[p->at + 1] : '\0';
	switch (c) {
	case '(': t.t = T_LPAREN; break;
	case ')': t.t = T_RPAREN; break;
	case '{': t.t = T_LBRACE; break;
	case '}': t.t = T_RBRACE; break;
	case '[': t.t = T_LBRACKET; p->brackets++; break;
	case ']': t.t = T_RBRACKET; p->brackets -= p->brackets > 0; break;
	case ',': t.t = T_COMMA; break;
	case ':': t.t = p->brackets ? T_COLON : T_IDENT; break;
	case '@': t.t = T_AT; break;
	case '+': t.t = T_ADD; break;
	case '-': t.t = T_SUB; break;
	case '*': t.t = T_MUL; break;
	case '/': t.t = T_DIV; break;
	case '%': t.t = T_MOD; break;
	case '^': t.t = T_POW; break;
	case '=':
		t.t = c2 == '=' ? T_EQL : c2 == '~' ? T_RE : T_ASSIGN;
		break;
	case '!':
		if (c2 != '=' && c2 != '~')
			return pq_fail(p, t.pos, "unexpected '!': the "
				       "operators are != and !~");
		t.t = c2 == '=' ? T_NEQ : T_NRE;
		break;
	case '<': t.t = c2 == '=' ? T_LTE : T_LSS; break;
	case '>': t.t = c2 == '=' ? T_GTE : T_GTR; break;
	case '"': case '\'': case '`':
		if (pq_lex_string(p, &t))
			return -1;
		t.end = (unsigned)p->at;
		p->cur = t;
		return 0;
	default:
		if (ascii_is_digit((unsigned char)c) ||
		    (c == '.' && ascii_is_digit((unsigned char)c2))) {
			if (pq_lex_number(p, &t))
				return -1;
			t.end = (unsigned)p->at;
			p->cur = t;
			return 0;
		}
		if (!pq_ident_start((unsigned char)c)) {
			if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f)
				return pq_fail(p, t.pos, "unexpected "
					       "character '%c'", c);
			return pq_fail(p, t.pos, "unexpected byte 0x%02x "
				       "(PromQL outside strings is ASCII)",
				       (unsigned char)c);
		}
		t.t = T_IDENT;
		break;
	}
	if (t.t == T_IDENT) {
		while (p->at < n && pq_ident_char((unsigned char)s[p->at]))
			p->at++;
		t.end = (unsigned)p->at;
		if (t.end - t.pos == 3 && (!strncasecmp(s + t.pos, "inf", 3) ||
					   !strncasecmp(s + t.pos, "nan", 3))) {
			t.t = T_NUMBER;
			t.num = ascii_fold((unsigned char)s[t.pos]) == 'i' ?
				INFINITY : NAN;
		}
		p->cur = t;
		return 0;
	}
	p->at += (t.t == T_EQL || t.t == T_RE || t.t == T_NEQ ||
		  t.t == T_NRE || t.t == T_LTE || t.t == T_GTE) ? 2 : 1;
	t.end = (unsigned)p->at;
	p->cur = t;
	return 0;
}

/* What the current token is, for "got ..." */
static const char *pq_tok_text(const struct pq *p, char *buf, size_t size)
{
	size_t n = p->cur.end - p->cur.pos, i;

	if (p->cur.t == T_EOF)
		return "the end of the query";
	if (n > 24)
		n = 24;
	snprintf(buf, size, "'%.*s%s'", (int)n, p->s + p->cur.pos,
		 p->cur.end - p->cur.pos > 24 ? "..." : "");
	for (i = 0; buf[i]; i++)
		if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] >= 0x7f)
			buf[i] = '?';
	return buf;
}

/* ---- the tree ------------------------------------------------------------- */

static int pq_node(struct pq *p, enum promql_kind k, unsigned pos)
{
	struct promql_ast *a = p->ast;
	struct promql_node *nodes, *nd;

	if (p->failed)
		return -1;
	nodes = arr_room(a->nodes, a->n, &a->cap, sizeof(*nodes));
	if (!nodes)
		return pq_oom(p);
	a->nodes = nodes;
	nd = &nodes[a->n];
	memset(nd, 0, sizeof(*nd));
	nd->kind = k;
	nd->pos = pos;
	nd->end = pos;
	nd->lhs = nd->rhs = nd->arg = nd->next = nd->param = nd->fn = -1;
	return (int)a->n++;
}

#define ND(p, i) (&(p)->ast->nodes[(i)])

static int pq_label(struct pq *p, unsigned pos, unsigned len)
{
	struct promql_ast *a = p->ast;
	struct promql_span *l;

	l = arr_room(a->labels, a->n_labels, &a->cap_labels, sizeof(*l));
	if (!l)
		return pq_oom(p);
	a->labels = l;
	l[a->n_labels].pos = pos;
	l[a->n_labels].len = len;
	a->n_labels++;
	return 0;
}

/* ---- the parser ----------------------------------------------------------- */

static int pq_expr(struct pq *p);
static int pq_binary(struct pq *p, int minprec);

/* Expect token t and take it; else an error saying what came instead. */
static int pq_expect(struct pq *p, enum pq_tok t, const char *what,
		     size_t open_pos, const char *opener)
{
	char got[40];

	if (p->failed)
		return -1;
	if (p->cur.t == t)
		return pq_next(p);
	if (opener && p->cur.t == T_EOF)
		return pq_fail(p, open_pos, "the '%s' here is never closed: "
			       "the query ends before its '%s'", opener, what);
	if (opener)
		return pq_fail(p, p->cur.pos, "expected '%s' to close the '%s' "
			       "at %u, got %s", what, opener,
			       (unsigned)open_pos + 1,
			       pq_tok_text(p, got, sizeof(got)));
	return pq_fail(p, p->cur.pos, "expected %s, got %s", what,
		       pq_tok_text(p, got, sizeof(got)));
}

static int pq_enter(struct pq *p)
{
	if (++p->depth > PROMQL_DEPTH)
		return pq_fail(p, p->cur.pos, "nested more than %d deep",
			       PROMQL_DEPTH);
	return 0;
}

/* A label name (identifier, keywords included, or a quoted 3.x name).
 * Unlike a metric name, an unquoted one has no ':'. */
static int pq_label_name(const struct pq *p)
{
	if (p->cur.t == T_IDENT &&
	    memchr(p->s + p->cur.pos, ':', p->cur.end - p->cur.pos))
		return 0;
	return p->cur.t == T_IDENT || p->cur.t == T_STRING ||
	       (p->cur.t == T_NUMBER &&
		ascii_is_alpha((unsigned char)p->s[p->cur.pos]));
}

/* ( label, ... ) after by, without, on, ignoring, group_x; the labels go
 * to ast->labels from *g0, *ng of them. */
static int pq_labels(struct pq *p, const char *after, unsigned *g0,
		     unsigned *ng)
{
	size_t open;
	char got[40];

	if (p->cur.t != T_LPAREN)
		return pq_fail(p, p->cur.pos, "'%s' wants a list of labels in "
			       "( ), e.g. %s (job), got %s", after, after,
			       pq_tok_text(p, got, sizeof(got)));
	open = p->cur.pos;
	*g0 = (unsigned)p->ast->n_labels;
	*ng = 0;
	if (pq_next(p))
		return -1;
	while (p->cur.t != T_RPAREN) {
		if (p->cur.t == T_EOF)
			return pq_fail(p, open, "the '(' of '%s' here is "
				       "never closed", after);
		if (!pq_label_name(p))
			return pq_fail(p, p->cur.pos, "expected a label name "
				       "in the list of '%s', got %s", after,
				       pq_tok_text(p, got, sizeof(got)));
		if (pq_label(p, p->cur.pos, p->cur.end - p->cur.pos) ||
		    pq_next(p))
			return -1;
		(*ng)++;
		if (p->cur.t == T_COMMA) {
			if (pq_next(p))
				return -1;
		} else if (p->cur.t != T_RPAREN) {
			return pq_fail(p, p->cur.pos, "expected ',' or ')' in "
				       "the list of '%s', got %s", after,
				       pq_tok_text(p, got, sizeof(got)));
		}
	}
	return pq_next(p);
}

/* Does a regular expression obviously match the empty string?  The
 * common forms only: the backend compiles RE2. */
static int pq_re_empty(const char *s, size_t n)
{
	return n == 0 || (n == 2 && !memcmp(s, ".*", 2)) ||
	       (n == 4 && !memcmp(s, "(.*)", 4)) ||
	       (n == 2 && !memcmp(s, ".?", 2));
}

/*
 * The mistakes RE2 refuses that are easy to make: brackets that do not
 * pair, a repetition with nothing before it.  s is the value as written
 * in the query (its string escapes still there).  0, or -1 with the
 * error at the value.
 */
static int pq_regex(struct pq *p, const struct promql_span *v)
{
	const char *s = p->s + v->pos;
	size_t i, n = v->len, depth = 0;
	int prev_atom = 0;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c == '\\') {
			/* a string escape; "\\\\" is the regex's backslash,
			 * which escapes what follows it */
			if (i + 1 < n && s[i + 1] == '\\') {
				if (i + 2 >= n)
					return pq_fail(p, v->pos + (unsigned)i,
						       "the regular expression "
						       "ends with a backslash");
				i += 2;
			} else {
				i++;
			}
			prev_atom = 1;
			continue;
		}
		if (c == '[') {
			for (i++, i += i < n && s[i] == '^', i += i < n &&
			     s[i] == ']'; i < n && s[i] != ']'; i++)
				if (s[i] == '\\')
					i++;
			if (i >= n)
				return pq_fail(p, v->pos, "the regular "
					       "expression has a '[' that is "
					       "never closed");
			prev_atom = 1;
			continue;
		}
		if (c == '(') {
			depth++;
			prev_atom = 0;
			if (i + 1 < n && s[i + 1] == '?')
				i++;
			continue;
		}
		if (c == ')') {
			if (depth == 0)
				return pq_fail(p, v->pos + (unsigned)i, "the "
					       "regular expression has a ')' "
					       "without its '('");
			depth--;
			prev_atom = 1;
			continue;
		}
		if ((c == '*' || c == '+' || c == '?') && !prev_atom)
			return pq_fail(p, v->pos + (unsigned)i, "the regular "
				       "expression has a '%c' with nothing to "
				       "repeat", c);
		prev_atom = c != '|';
		if (c == '*' || c == '+' || c == '?') {
			prev_atom = 0;
			if (i + 1 < n && (s[i + 1] == '?' || s[i + 1] == '+'))
				i++;
			/* a quantifier may follow only an atom */
		}
	}
	if (depth)
		return pq_fail(p, v->pos, "the regular expression has a '(' "
			       "that is never closed");
	return 0;
}

/* { matchers } at the current '{'; the selector node sel gets them. */
static int pq_matchers(struct pq *p, int sel)
{
	struct promql_ast *a = p->ast;
	struct promql_matcher *m;
	size_t open = p->cur.pos;
	unsigned i, name_pos = 0, name_len = 0;
	int named = ND(p, sel)->name.len > 0, nonempty = named;
	char got[40];

	ND(p, sel)->m0 = (unsigned)a->n_matchers;
	if (pq_next(p))
		return -1;
	while (p->cur.t != T_RBRACE) {
		struct promql_matcher x;

		if (p->cur.t == T_EOF)
			return pq_fail(p, open, "the '{' here is never closed");
		memset(&x, 0, sizeof(x));
		if (!pq_label_name(p))
			return pq_fail(p, p->cur.pos, "expected a label "
				       "matcher such as job=\"api\" inside "
				       "{ }, got %s",
				       pq_tok_text(p, got, sizeof(got)));
		name_pos = p->cur.pos;
		name_len = p->cur.end - p->cur.pos;
		if (p->cur.t == T_STRING) {
			/* quoted: a 3.x metric name alone, or a label */
			if (pq_next(p))
				return -1;
			if (p->cur.t == T_COMMA || p->cur.t == T_RBRACE) {
				x.value.pos = name_pos + 1;
				x.value.len = name_len - 2;
				x.op = PROMQL_EQ;
				goto add;
			}
		} else if (pq_next(p)) {
			return -1;
		}
		x.name.pos = name_pos;
		x.name.len = name_len;
		switch (p->cur.t) {
		case T_ASSIGN: x.op = PROMQL_EQ; break;
		case T_NEQ: x.op = PROMQL_NE; break;
		case T_RE: x.op = PROMQL_RE; break;
		case T_NRE: x.op = PROMQL_NRE; break;
		case T_EQL:
			return pq_fail(p, p->cur.pos, "a label matcher takes "
				       "'=', not '=='");
		default: {
			char nm[44];

			show_text(nm, 40, p->s + name_pos, name_len);
			return pq_fail(p, p->cur.pos, "expected =, !=, =~ or "
				       "!~ after the label name '%s', got %s",
				       nm, pq_tok_text(p, got, sizeof(got)));
		}
		}
		if (pq_next(p))
			return -1;
		if (p->cur.t != T_STRING)
			return pq_fail(p, p->cur.pos, "a label matcher's value "
				       "is a quoted string, e.g. job=\"api\"; "
				       "got %s",
				       pq_tok_text(p, got, sizeof(got)));
		x.value.pos = p->cur.pos + 1;
		x.value.len = p->cur.end - p->cur.pos - 2;
		if ((x.op == PROMQL_RE || x.op == PROMQL_NRE) &&
		    p->s[p->cur.pos] != '`' && pq_regex(p, &x.value))
			return -1;
		if (pq_next(p))
			return -1;
add:
		m = arr_room(a->matchers, a->n_matchers, &a->cap_matchers,
			     sizeof(*m));
		if (!m)
			return pq_oom(p);
		a->matchers = m;
		m[a->n_matchers++] = x;
		ND(p, sel)->nm++;
		if (p->cur.t == T_COMMA) {
			if (pq_next(p))
				return -1;
		} else if (p->cur.t == T_EOF) {
			return pq_fail(p, open, "the '{' here is never closed");
		} else if (p->cur.t != T_RBRACE) {
			return pq_fail(p, p->cur.pos, "expected ',' or '}' "
				       "after a label matcher, got %s",
				       pq_tok_text(p, got, sizeof(got)));
		}
	}
	ND(p, sel)->end = p->cur.end;
	/* the metric name: before the braces, a quoted one, __name__= */
	for (i = 0; i < ND(p, sel)->nm; i++) {
		struct promql_matcher *x = &a->matchers[ND(p, sel)->m0 + i];
		int is_name = x->name.len == 0 ||
			      (x->name.len == 8 &&
			       !memcmp(p->s + x->name.pos, "__name__", 8));

		if (is_name && x->op == PROMQL_EQ) {
			if (named)
				return pq_fail(p, x->value.pos, "the metric "
					       "name is given twice");
			named = 1;
			if (ND(p, sel)->name.len == 0)
				ND(p, sel)->name = x->value;
		}
		if ((x->op == PROMQL_EQ && x->value.len > 0) ||
		    (x->op == PROMQL_NE && x->value.len == 0) ||
		    (x->op == PROMQL_RE &&
		     !pq_re_empty(p->s + x->value.pos, x->value.len)) ||
		    (x->op == PROMQL_NRE &&
		     pq_re_empty(p->s + x->value.pos, x->value.len)))
			nonempty = 1;
	}
	if (!nonempty)
		return pq_fail(p, open, "a vector selector needs a metric name "
			       "or at least one matcher that does not match "
			       "the empty string, e.g. {job=\"api\"}");
	return pq_next(p);
}

/* Arguments of a call or an aggregation, at '(': node i's arg list. */
static int pq_args(struct pq *p, int i, size_t *nargs)
{
	size_t open = p->cur.pos;
	int last = -1, x;
	char got[40];

	*nargs = 0;
	if (p->cur.t != T_LPAREN)
		return pq_fail(p, p->cur.pos, "expected '(' after '%.*s', "
			       "got %s", (int)ND(p, i)->name.len,
			       p->s + ND(p, i)->name.pos,
			       pq_tok_text(p, got, sizeof(got)));
	if (pq_next(p))
		return -1;
	if (p->cur.t == T_RPAREN) {
		ND(p, i)->end = p->cur.end;
		return pq_next(p);
	}
	for (;;) {
		if (p->cur.t == T_RPAREN)
			return pq_fail(p, p->cur.pos, "a ',' at the end of "
				       "the arguments: remove it");
		x = pq_expr(p);
		if (x < 0)
			return -1;
		if (last < 0)
			ND(p, i)->arg = x;
		else
			ND(p, last)->next = x;
		last = x;
		(*nargs)++;
		if (p->cur.t == T_COMMA) {
			if (pq_next(p))
				return -1;
			continue;
		}
		if (p->cur.t == T_RPAREN)
			break;
		if (p->cur.t == T_EOF)
			return pq_fail(p, open, "the '(' of '%.*s(' here is "
				       "never closed: the query ends before "
				       "its ')'", (int)ND(p, i)->name.len,
				       p->s + ND(p, i)->name.pos);
		return pq_fail(p, p->cur.pos, "expected ',' or ')' in the "
			       "arguments of '%.*s(' at %u, got %s",
			       (int)ND(p, i)->name.len,
			       p->s + ND(p, i)->name.pos,
			       (unsigned)open + 1 - ND(p, i)->name.len,
			       pq_tok_text(p, got, sizeof(got)));
	}
	ND(p, i)->end = p->cur.end;
	return pq_next(p);
}

/* The nearest known function to an unknown name, or NULL. */
static const char *pq_nearest_func(const char *s, size_t n)
{
	size_t best = 3, d;
	const char *name = NULL;
	int i;

	for (i = 0; i < PROMQL_NFUNCS; i++) {
		d = near_distance(s, n, promql_funcs[i].name,
				  strlen(promql_funcs[i].name), 1);
		/* a tie goes to the name the typo starts */
		if (d < best || (d == best && name && n > 0 &&
				 !strncmp(promql_funcs[i].name, s, n) &&
				 strncmp(name, s, n))) {
			best = d;
			name = promql_funcs[i].name;
		}
	}
	return name;
}

static int pq_find(const char *s, size_t n, int aggs)
{
	int i, count = aggs ? PROMQL_NAGGS : PROMQL_NFUNCS;

	for (i = 0; i < count; i++) {
		const char *name = aggs ? promql_aggs[i].name :
				   promql_funcs[i].name;

		if (strlen(name) == n && !memcmp(name, s, n))
			return i;
	}
	return -1;
}

/* A function call: its arguments against the table. */
static int pq_call(struct pq *p, int i)
{
	const struct promql_func *f;
	size_t nargs, want, k;
	int a;

	ND(p, i)->fn = pq_find(p->s + ND(p, i)->name.pos, ND(p, i)->name.len,
			       0);
	if (ND(p, i)->fn < 0) {
		const char *near = pq_nearest_func(p->s + ND(p, i)->name.pos,
						   ND(p, i)->name.len);

		return pq_fail(p, ND(p, i)->pos, "unknown function '%.*s'%s%s%s",
			       (int)(ND(p, i)->name.len < 40 ?
				     ND(p, i)->name.len : 40),
			       p->s + ND(p, i)->name.pos,
			       near ? "; did you mean '" : "",
			       near ? near : "", near ? "'?" : "");
	}
	f = &promql_funcs[ND(p, i)->fn];
	if (pq_args(p, i, &nargs))
		return -1;
	want = strlen(f->args);
	if (f->variadic == 0 && nargs != want)
		return pq_fail(p, ND(p, i)->pos, "%s() takes %zu argument%s, "
			       "got %zu", f->name, want, want == 1 ? "" : "s",
			       nargs);
	if (f->variadic != 0 && nargs + 1 < want)
		return pq_fail(p, ND(p, i)->pos, "%s() takes at least %zu "
			       "argument%s, got %zu", f->name, want - 1,
			       want == 2 ? "" : "s", nargs);
	if (f->variadic > 0 && nargs > want - 1 + (size_t)f->variadic)
		return pq_fail(p, ND(p, i)->pos, "%s() takes at most %zu "
			       "argument%s, got %zu", f->name,
			       want - 1 + (size_t)f->variadic,
			       want - 1 + (size_t)f->variadic == 1 ? "" : "s",
			       nargs);
	for (a = ND(p, i)->arg, k = 0; a >= 0; a = ND(p, a)->next, k++) {
		enum promql_type t = promql_letter_type(
			f->args[k < want ? k : want - 1]);

		if (ND(p, a)->type == t)
			continue;
		if (t == PROMQL_MATRIX && ND(p, a)->type == PROMQL_VECTOR)
			return pq_fail(p, ND(p, a)->pos, "%s() wants a range "
				       "vector as argument %zu, e.g. "
				       "%s(x[5m]), got an instant vector: add "
				       "a range such as [5m] to the selector",
				       f->name, k + 1, f->name);
		if (t == PROMQL_VECTOR && ND(p, a)->type == PROMQL_MATRIX)
			return pq_fail(p, ND(p, a)->pos, "%s() wants an "
				       "instant vector as argument %zu, got a "
				       "range vector: drop the range, or wrap "
				       "it in a function such as rate()",
				       f->name, k + 1);
		return pq_fail(p, ND(p, a)->pos, "%s() wants %s %s as argument "
			       "%zu, got %s %s", f->name,
			       t == PROMQL_VECTOR ? "an" : "a",
			       promql_type_name(t), k + 1,
			       ND(p, a)->type == PROMQL_VECTOR ? "an" : "a",
			       promql_type_name(ND(p, a)->type));
	}
	ND(p, i)->type = f->ret;
	return 0;
}

/* by (...) or without (...) of an aggregation, if it comes next. */
static int pq_agg_grouping(struct pq *p, int i)
{
	int by = pq_is(p, "by");

	if (!by && !pq_is(p, "without"))
		return 0;
	if (ND(p, i)->grouping)
		return pq_fail(p, p->cur.pos, "'%s' given twice in one "
			       "aggregation", by ? "by" : "without");
	ND(p, i)->grouping = by ? 1 : 2;
	if (pq_next(p))
		return -1;
	return pq_labels(p, by ? "by" : "without", &ND(p, i)->g0,
			 &ND(p, i)->ng);
}

/* An aggregation at its name. */
static int pq_agg(struct pq *p, int fn)
{
	char param = promql_aggs[fn].param;
	size_t nargs;
	int i = pq_node(p, PROMQL_AGG, p->cur.pos), e, par = -1;

	if (i < 0)
		return -1;
	ND(p, i)->fn = fn;
	ND(p, i)->name.pos = p->cur.pos;
	ND(p, i)->name.len = p->cur.end - p->cur.pos;
	if (pq_next(p) || pq_agg_grouping(p, i))
		return -1;
	if (p->cur.t != T_LPAREN)
		return pq_fail(p, p->cur.pos, "the aggregation '%s' wants its "
			       "argument in ( ), e.g. %s(x)",
			       promql_aggs[fn].name, promql_aggs[fn].name);
	if (pq_args(p, i, &nargs) || pq_agg_grouping(p, i))
		return -1;
	if (nargs != (param ? 2u : 1u))
		return pq_fail(p, ND(p, i)->pos, "%s() takes %s, got %zu "
			       "argument%s", promql_aggs[fn].name,
			       param == 's' ? "a parameter and a vector, e.g. "
			       "topk(3, x)" : param == 'S' ? "a label name and "
			       "a vector, e.g. count_values(\"v\", x)" :
			       "one vector", nargs, nargs == 1 ? "" : "s");
	e = ND(p, i)->arg;
	if (param) {
		par = e;
		e = ND(p, e)->next;
		ND(p, i)->param = par;
		ND(p, i)->arg = e;
		ND(p, par)->next = -1;
		if (ND(p, par)->type != (param == 's' ? PROMQL_SCALAR :
					 PROMQL_STRING))
			return pq_fail(p, ND(p, par)->pos, "the parameter of "
				       "%s() is a %s, got %s %s",
				       promql_aggs[fn].name,
				       param == 's' ? "scalar" : "string",
				       ND(p, par)->type == PROMQL_VECTOR ?
				       "an" : "a",
				       promql_type_name(ND(p, par)->type));
	}
	if (ND(p, e)->type != PROMQL_VECTOR)
		return pq_fail(p, ND(p, e)->pos, "%s() aggregates an instant "
			       "vector, got %s %s%s", promql_aggs[fn].name,
			       ND(p, e)->type == PROMQL_SCALAR ? "a" : "a",
			       promql_type_name(ND(p, e)->type),
			       ND(p, e)->type == PROMQL_MATRIX ? ": wrap it in "
			       "a function such as rate() first" : "");
	ND(p, i)->type = PROMQL_VECTOR;
	ND(p, i)->end = p->prev_end;
	return i;
}

/* After an aggregation's name: does '(' or by/without follow?  Else the
 * name is a metric's, as Prometheus reads `sum offset 5m`. */
static int pq_peek_agg(struct pq *p)
{
	struct pq_token save = p->cur;
	size_t at = p->at;
	unsigned prev = p->prev_end;
	int brackets = p->brackets, r;

	if (pq_next(p))
		return 1;   /* the error surfaces again in pq_agg */
	r = p->cur.t == T_LPAREN || pq_is(p, "by") || pq_is(p, "without");
	p->cur = save;
	p->at = at;
	p->prev_end = prev;
	p->brackets = brackets;
	return r;
}

/* What may start an expression but is a keyword. */
static int pq_keyword(const struct pq *p)
{
	/* by, without, and, or, unless, offset, start, end and the
	 * aggregations are metric names where they start an expression
	 * (Prometheus' metric_identifier); these never are */
	static const char *const kw[] = {
		"on", "ignoring", "group_left", "group_right", "bool", "atan2",
		NULL };
	size_t i;

	for (i = 0; kw[i]; i++)
		if (pq_is(p, kw[i]))
			return 1;
	return 0;
}

static int pq_primary(struct pq *p)
{
	char got[40];
	int i, fn;
	size_t open;

	switch (p->cur.t) {
	case T_NUMBER:
		i = pq_node(p, PROMQL_NUMBER, p->cur.pos);
		if (i < 0)
			return -1;
		ND(p, i)->value = p->cur.num;
		ND(p, i)->type = PROMQL_SCALAR;
		ND(p, i)->end = p->cur.end;
		return pq_next(p) ? -1 : i;
	case T_STRING:
		i = pq_node(p, PROMQL_STRING_LIT, p->cur.pos);
		if (i < 0)
			return -1;
		ND(p, i)->type = PROMQL_STRING;
		ND(p, i)->end = p->cur.end;
		return pq_next(p) ? -1 : i;
	case T_LPAREN:
		open = p->cur.pos;
		i = pq_node(p, PROMQL_PAREN, p->cur.pos);
		if (i < 0 || pq_next(p))
			return -1;
		if (p->cur.t == T_RPAREN)
			return pq_fail(p, p->cur.pos, "empty parentheses: an "
				       "expression is missing");
		fn = pq_expr(p);
		if (fn < 0)
			return -1;
		ND(p, i)->lhs = fn;
		ND(p, i)->type = ND(p, fn)->type;
		if (pq_expect(p, T_RPAREN, ")", open, "("))
			return -1;
		ND(p, i)->end = p->prev_end;
		return i;
	case T_LBRACE:
		i = pq_node(p, PROMQL_SELECTOR, p->cur.pos);
		if (i < 0)
			return -1;
		ND(p, i)->type = PROMQL_VECTOR;
		return pq_matchers(p, i) ? -1 : i;
	case T_IDENT:
		fn = pq_find(p->s + p->cur.pos, p->cur.end - p->cur.pos, 1);
		if (fn >= 0 && pq_peek_agg(p))
			return pq_agg(p, fn);
		if (pq_keyword(p))
			return pq_fail(p, p->cur.pos, "unexpected %s: an "
				       "expression is missing before it",
				       pq_tok_text(p, got, sizeof(got)));
		i = pq_node(p, PROMQL_SELECTOR, p->cur.pos);
		if (i < 0)
			return -1;
		ND(p, i)->name.pos = p->cur.pos;
		ND(p, i)->name.len = p->cur.end - p->cur.pos;
		ND(p, i)->end = p->cur.end;
		if (pq_next(p))
			return -1;
		if (p->cur.t == T_LPAREN) {
			ND(p, i)->kind = PROMQL_CALL;
			return pq_call(p, i) ? -1 : i;
		}
		ND(p, i)->type = PROMQL_VECTOR;
		if (p->cur.t == T_LBRACE && pq_matchers(p, i))
			return -1;
		return i;
	case T_DURATION:
		return pq_fail(p, p->cur.pos, "unexpected duration %s: a "
			       "duration goes in brackets (x[5m]) or after "
			       "offset", pq_tok_text(p, got, sizeof(got)));
	case T_RPAREN:
		return pq_fail(p, p->cur.pos, "unexpected ')': an expression "
			       "is missing before it");
	case T_EOF:
		return pq_fail(p, p->cur.pos, "the query ends where an "
			       "expression is missing");
	default:
		return pq_fail(p, p->cur.pos, "unexpected %s where an "
			       "expression should start",
			       pq_tok_text(p, got, sizeof(got)));
	}
}

/* offset and @ apply to selectors and subqueries only. */
static int pq_modifier_target(struct pq *p, int i, const char *what,
			      size_t pos)
{
	enum promql_kind k = ND(p, i)->kind;

	if (k != PROMQL_SELECTOR && k != PROMQL_SUBQUERY)
		return pq_fail(p, pos, "'%s' applies to a selector (x, x[5m]) "
			       "or a subquery, not to %s", what,
			       k == PROMQL_CALL ? "a function call: move it "
			       "into the call, e.g. rate(x[5m] offset 1h)" :
			       "this expression");
	return 0;
}

/* An expression with its [range], [range:step], offset and @. */
static int pq_postfix(struct pq *p)
{
	char got[40];
	size_t open, pos;
	double d;
	int i = pq_primary(p), s, neg;

	while (i >= 0 && !p->failed) {
		if (p->cur.t == T_LBRACKET) {
			open = p->cur.pos;
			if (pq_next(p))
				return -1;
			if (p->cur.t != T_DURATION)
				return pq_fail(p, p->cur.pos, "expected a "
					       "duration such as 5m inside "
					       "[ ], got %s",
					       pq_tok_text(p, got, sizeof(got)));
			d = p->cur.num;
			if (!(d > 0))
				return pq_fail(p, p->cur.pos, "a range must be "
					       "more than 0");
			if (pq_next(p))
				return -1;
			if (p->cur.t == T_COLON) {
				if (ND(p, i)->type != PROMQL_VECTOR)
					return pq_fail(p, open, "a subquery "
						       "[range:step] runs over "
						       "an instant vector, not "
						       "%s %s",
						       ND(p, i)->type ==
						       PROMQL_MATRIX ? "a" : "a",
						       promql_type_name(
							ND(p, i)->type));
				s = pq_node(p, PROMQL_SUBQUERY, ND(p, i)->pos);
				if (s < 0 || pq_next(p))
					return -1;
				ND(p, s)->lhs = i;
				ND(p, s)->range_s = d;
				ND(p, s)->type = PROMQL_MATRIX;
				if (p->cur.t == T_DURATION) {
					if (!(p->cur.num > 0))
						return pq_fail(p, p->cur.pos,
							       "a subquery's "
							       "step must be "
							       "more than 0 "
							       "(or left out "
							       "for the "
							       "default)");
					ND(p, s)->step_s = p->cur.num;
					if (pq_next(p))
						return -1;
				}
				ND(p, s)->end = p->cur.end;
				if (pq_expect(p, T_RBRACKET, "]", open, "["))
					return -1;
				i = s;
				continue;
			}
			if (ND(p, i)->kind != PROMQL_SELECTOR ||
			    ND(p, i)->range_s > 0)
				return pq_fail(p, open, "a range [..] applies to "
					       "a selector such as x{..}[5m]; "
					       "for %s use a subquery "
					       "[5m:1m]", ND(p, i)->kind ==
					       PROMQL_SELECTOR ? "a range "
					       "vector" : "an expression");
			if (ND(p, i)->has_offset || ND(p, i)->has_at == 1)
				return pq_fail(p, open, "the range comes before "
					       "offset and @: x[5m] offset 1h");
			ND(p, i)->range_s = d;
			ND(p, i)->type = PROMQL_MATRIX;
			ND(p, i)->end = p->cur.end;
			if (pq_expect(p, T_RBRACKET, "]", open, "["))
				return -1;
			continue;
		}
		if (pq_is(p, "offset")) {
			pos = p->cur.pos;
			if (pq_modifier_target(p, i, "offset", pos))
				return -1;
			if (ND(p, i)->has_offset)
				return pq_fail(p, pos, "offset given twice");
			if (pq_next(p))
				return -1;
			neg = p->cur.t == T_SUB;
			if (neg && pq_next(p))
				return -1;
			if (p->cur.t != T_DURATION)
				return pq_fail(p, p->cur.pos, "offset takes a "
					       "duration such as 1h, got %s",
					       pq_tok_text(p, got, sizeof(got)));
			ND(p, i)->has_offset = 1;
			ND(p, i)->offset_s = neg ? -p->cur.num : p->cur.num;
			ND(p, i)->end = p->cur.end;
			if (pq_next(p))
				return -1;
			continue;
		}
		if (p->cur.t == T_AT) {
			pos = p->cur.pos;
			if (pq_modifier_target(p, i, "@", pos))
				return -1;
			if (ND(p, i)->has_at)
				return pq_fail(p, pos, "@ given twice");
			if (pq_next(p))
				return -1;
			if (pq_is(p, "start") || pq_is(p, "end")) {
				if (pq_next(p) ||
				    pq_expect(p, T_LPAREN, "'(' after start "
					      "or end", 0, NULL) ||
				    pq_expect(p, T_RPAREN, "')'", 0, NULL))
					return -1;
				ND(p, i)->end = p->prev_end;
				ND(p, i)->has_at = 2;   /* start(), end() */
				continue;
			} else {
				if ((p->cur.t == T_SUB || p->cur.t == T_ADD) &&
				    pq_next(p))
					return -1;
				if (p->cur.t != T_NUMBER)
					return pq_fail(p, p->cur.pos, "@ takes "
						       "a Unix time, start() or "
						       "end(), got %s",
						       pq_tok_text(p, got,
								   sizeof(got)));
				if (!(fabs(p->cur.num) < PROMQL_AT_MAX))
					return pq_fail(p, p->cur.pos, "@ %s is "
						       "out of bounds: a Unix "
						       "time in seconds within "
						       "int64",
						       pq_tok_text(p, got,
								   sizeof(got)));
				ND(p, i)->end = p->cur.end;
				if (pq_next(p))
					return -1;
			}
			ND(p, i)->has_at = 1;
			continue;
		}
		break;
	}
	return p->failed ? -1 : i;
}

static int pq_unary(struct pq *p)
{
	enum promql_op op;
	unsigned pos = p->cur.pos;
	int i, c;

	if (p->cur.t != T_ADD && p->cur.t != T_SUB)
		return pq_postfix(p);
	op = p->cur.t == T_ADD ? PROMQL_OP_ADD : PROMQL_OP_SUB;
	if (pq_enter(p) || pq_next(p))
		return -1;
	/* binds tighter than * and looser than ^: -x^2 is -(x^2) */
	c = pq_binary(p, 6);
	p->depth--;
	if (c < 0)
		return -1;
	if (ND(p, c)->type != PROMQL_SCALAR && ND(p, c)->type != PROMQL_VECTOR)
		return pq_fail(p, pos, "a sign applies to a scalar or an "
			       "instant vector, not to %s %s",
			       ND(p, c)->type == PROMQL_MATRIX ? "a" : "a",
			       promql_type_name(ND(p, c)->type));
	i = pq_node(p, PROMQL_UNARY, pos);
	if (i < 0)
		return -1;
	ND(p, i)->op = op;
	ND(p, i)->lhs = c;
	ND(p, i)->type = ND(p, c)->type;
	ND(p, i)->end = ND(p, c)->end;
	return i;
}

/* The binary operator at the current token and its precedence (0: none).
 * or 1, and unless 2, comparisons 3, + - 4, * / % atan2 5, ^ 6. */
static int pq_binop(const struct pq *p, enum promql_op *op)
{
	switch (p->cur.t) {
	case T_ADD: *op = PROMQL_OP_ADD; return 4;
	case T_SUB: *op = PROMQL_OP_SUB; return 4;
	case T_MUL: *op = PROMQL_OP_MUL; return 5;
	case T_DIV: *op = PROMQL_OP_DIV; return 5;
	case T_MOD: *op = PROMQL_OP_MOD; return 5;
	case T_POW: *op = PROMQL_OP_POW; return 6;
	case T_EQL: *op = PROMQL_OP_EQL; return 3;
	case T_NEQ: *op = PROMQL_OP_NEQ; return 3;
	case T_GTR: *op = PROMQL_OP_GTR; return 3;
	case T_LSS: *op = PROMQL_OP_LSS; return 3;
	case T_GTE: *op = PROMQL_OP_GTE; return 3;
	case T_LTE: *op = PROMQL_OP_LTE; return 3;
	case T_IDENT:
		if (pq_is(p, "or")) {
			*op = PROMQL_OP_OR;
			return 1;
		}
		if (pq_is(p, "and") || pq_is(p, "unless")) {
			*op = pq_is(p, "and") ? PROMQL_OP_AND :
			      PROMQL_OP_UNLESS;
			return 2;
		}
		if (pq_is(p, "atan2")) {
			*op = PROMQL_OP_ATAN2;
			return 5;
		}
		return 0;
	default:
		return 0;
	}
}

static const char *pq_op_name(enum promql_op op)
{
	static const char *const names[] = {
		"?", "+", "-", "*", "/", "%", "^", "atan2", "==", "!=", ">",
		"<", ">=", "<=", "and", "or", "unless" };

	return (size_t)op < sizeof(names) / sizeof(names[0]) ? names[op] :
	       "?";
}

/* bool, on/ignoring (...), group_left/right [(...)] after an operator. */
static int pq_bin_modifiers(struct pq *p, int b)
{
	unsigned g0, ng;

	if (pq_is(p, "bool")) {
		ND(p, b)->bool_mod = 1;
		if (pq_next(p))
			return -1;
	}
	if (pq_is(p, "on") || pq_is(p, "ignoring")) {
		ND(p, b)->grouping = pq_is(p, "on") ? 1 : 2;
		if (pq_next(p) || pq_labels(p, ND(p, b)->grouping == 1 ?
					    "on" : "ignoring", &ND(p, b)->g0,
					    &ND(p, b)->ng))
			return -1;
	}
	if (pq_is(p, "group_left") || pq_is(p, "group_right")) {
		const char *w = pq_is(p, "group_left") ? "group_left" :
				"group_right";
		unsigned i, j;

		if (!ND(p, b)->grouping)
			return pq_fail(p, p->cur.pos, "%s comes after on(...) "
				       "or ignoring(...): x * on(job) %s y",
				       w, w);

		ND(p, b)->group_side = w[6] == 'l' ? 1 : 2;
		if (pq_next(p))
			return -1;
		if (p->cur.t == T_LPAREN) {
			if (pq_labels(p, w, &g0, &ng))
				return -1;
			/* a label in both lists */
			for (i = 0; i < ng; i++)
				for (j = 0; j < ND(p, b)->ng; j++) {
					const struct promql_span *x =
						&p->ast->labels[g0 + i];
					const struct promql_span *y =
						&p->ast->labels[ND(p, b)->g0 +
								j];

					if (x->len == y->len &&
					    !memcmp(p->s + x->pos,
						    p->s + y->pos, x->len) &&
					    ND(p, b)->grouping == 1) {
						char nm[44];

						show_text(nm, 40, p->s + x->pos,
							  x->len);
						return pq_fail(p, x->pos,
							"label '%s' must not "
							"be in both on() and "
							"%s()", nm, w);
					}
				}
		}
	}
	return 0;
}

/* The checks of Prometheus' checkAST for a binary expression. */
static int pq_bin_check(struct pq *p, int b, unsigned oppos)
{
	struct promql_node *n = ND(p, b);
	enum promql_type lt = ND(p, n->lhs)->type, rt = ND(p, n->rhs)->type;
	int cmp = n->op >= PROMQL_OP_EQL && n->op <= PROMQL_OP_LTE;
	int set = n->op >= PROMQL_OP_AND;
	const char *name = pq_op_name(n->op);

	if ((lt != PROMQL_SCALAR && lt != PROMQL_VECTOR) ||
	    (rt != PROMQL_SCALAR && rt != PROMQL_VECTOR)) {
		enum promql_type bad = lt != PROMQL_SCALAR &&
				       lt != PROMQL_VECTOR ? lt : rt;

		return pq_fail(p, oppos, "'%s' takes scalars and instant "
			       "vectors, but its %s side is a %s%s", name,
			       bad == lt ? "left" : "right",
			       promql_type_name(bad), bad == PROMQL_MATRIX ?
			       ": wrap it in a function such as rate()" : "");
	}
	if (n->bool_mod && !cmp)
		return pq_fail(p, oppos, "bool applies to comparisons only, "
			       "not to '%s'", name);
	if (cmp && lt == PROMQL_SCALAR && rt == PROMQL_SCALAR &&
	    !n->bool_mod)
		return pq_fail(p, oppos, "a comparison of two scalars needs "
			       "bool: %s bool", name);
	if ((lt != PROMQL_VECTOR || rt != PROMQL_VECTOR) && n->ng > 0)
		return pq_fail(p, oppos, "on() and ignoring() with labels "
			       "match two instant vectors; one side of '%s' "
			       "is a scalar", name);
	if (lt == PROMQL_VECTOR && rt == PROMQL_VECTOR && set &&
	    n->group_side)
		return pq_fail(p, oppos, "group_left and group_right do not "
			       "apply to '%s'", name);
	if ((lt == PROMQL_SCALAR || rt == PROMQL_SCALAR) && set)
		return pq_fail(p, oppos, "'%s' joins two instant vectors; "
			       "one side is a scalar%s", name,
			       n->op == PROMQL_OP_OR ? " (vector(0), not 0)" :
			       "");
	n->type = lt == PROMQL_SCALAR && rt == PROMQL_SCALAR ?
		  PROMQL_SCALAR : PROMQL_VECTOR;
	return 0;
}

static int pq_binary(struct pq *p, int minprec)
{
	enum promql_op op = PROMQL_OP_NONE;
	int lhs, rhs, b, prec;
	unsigned oppos;

	if (pq_enter(p))
		return -1;
	lhs = pq_unary(p);
	while (lhs >= 0 && (prec = pq_binop(p, &op)) >= minprec && prec > 0) {
		oppos = p->cur.pos;
		b = pq_node(p, PROMQL_BINARY, ND(p, lhs)->pos);
		if (b < 0 || pq_next(p))
			return -1;
		ND(p, b)->op = op;
		if (pq_bin_modifiers(p, b))
			return -1;
		/* ^ is right-associative: its right side takes ^ again */
		rhs = pq_binary(p, op == PROMQL_OP_POW ? prec : prec + 1);
		if (rhs < 0)
			return -1;
		ND(p, b)->lhs = lhs;
		ND(p, b)->rhs = rhs;
		ND(p, b)->end = ND(p, rhs)->end;
		if (pq_bin_check(p, b, oppos))
			return -1;
		lhs = b;
	}
	p->depth--;
	return p->failed ? -1 : lhs;
}

static int pq_expr(struct pq *p)
{
	return pq_binary(p, 1);
}

enum promql_err promql_parse(struct promql_ast *ast, const char *text,
			     size_t len, struct promql_error *err)
{
	struct pq p;
	char got[40];
	int root;

	memset(ast, 0, sizeof(*ast));
	ast->root = -1;
	memset(&p, 0, sizeof(p));
	p.s = text;
	p.len = len;
	p.ast = ast;
	p.err = err;
	if (err) {
		err->pos = 0;
		err->msg[0] = '\0';
	}
	ast->text = text;
	ast->len = len;
	if (!text || len > PROMQL_LEN_MAX) {
		pq_fail(&p, 0, "a query of more than %d bytes",
			PROMQL_LEN_MAX);
		goto fail;
	}
	if (pq_next(&p))
		goto fail;
	if (p.cur.t == T_EOF) {
		pq_fail(&p, 0, "the query is empty");
		goto fail;
	}
	root = pq_expr(&p);
	if (root < 0)
		goto fail;
	if (p.cur.t == T_RPAREN) {
		pq_fail(&p, p.cur.pos, "unexpected ')': it closes no '('");
		goto fail;
	}
	if (p.cur.t != T_EOF) {
		pq_fail(&p, p.cur.pos, "unexpected %s after a complete "
			"expression (an operator missing?)",
			pq_tok_text(&p, got, sizeof(got)));
		goto fail;
	}
	ast->root = root;
	return PROMQL_OK;
fail:
	promql_release(ast);
	ast->text = text;
	ast->len = len;
	if (err && !err->msg[0])
		snprintf(err->msg, sizeof(err->msg), "not PromQL");
	return p.nomem ? PROMQL_ENOMEM : PROMQL_ESYNTAX;
}

void promql_release(struct promql_ast *ast)
{
	free(ast->nodes);
	free(ast->matchers);
	free(ast->labels);
	memset(ast, 0, sizeof(*ast));
	ast->root = -1;
}

void promql_where(const char *text, size_t len, size_t pos, char *buf,
		  size_t size)
{
	size_t i, line = 1, col = 1;
	int multi = text && memchr(text, '\n', len) != NULL;

	for (i = 0; text && i < pos && i < len; i++) {
		if (text[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	if (multi)
		snprintf(buf, size, "line %zu, character %zu", line, col);
	else
		snprintf(buf, size, "character %zu", col);
}

/* ---- what staffer reads from a tree ---------------------------------------- */

const char *promql_text(const struct promql_ast *ast, int i, char *buf,
			size_t size)
{
	const struct promql_node *n;
	size_t len;

	if (!size)
		return buf;
	buf[0] = '\0';
	if (i < 0 || (size_t)i >= ast->n)
		return buf;
	n = &ast->nodes[i];
	len = n->end - n->pos;
	if (len >= size)
		len = size - 1;
	memcpy(buf, ast->text + n->pos, len);
	buf[len] = '\0';
	return buf;
}

/* Does span s of the text say word? */
static int promql_says(const struct promql_ast *a, struct promql_span s,
		       const char *word)
{
	return s.len == strlen(word) && !memcmp(a->text + s.pos, word, s.len);
}

int promql_one(const struct promql_ast *a, int i)
{
	const struct promql_node *n;
	const char *f;
	unsigned k;
	int x;

	if (i < 0 || (size_t)i >= a->n)
		return 1;
	n = &a->nodes[i];
	switch (n->kind) {
	case PROMQL_NUMBER:
	case PROMQL_STRING_LIT:
		return 1;
	case PROMQL_SELECTOR:
		return 0;
	case PROMQL_PAREN:
	case PROMQL_UNARY:
	case PROMQL_SUBQUERY:
		return promql_one(a, n->lhs);
	case PROMQL_AGG:
		f = promql_agg_name(n->fn);
		/* topk and its kind keep the series they pick */
		if (!strcmp(f, "topk") || !strcmp(f, "bottomk") ||
		    !strcmp(f, "limitk") || !strcmp(f, "limit_ratio"))
			return promql_one(a, n->arg);
		if (!strcmp(f, "count_values") || n->grouping == 2)
			return 0;
		if (n->grouping == 1) {
			for (k = 0; k < n->ng; k++)
				if (!promql_says(a, a->labels[n->g0 + k], "le"))
					return 0;
			return n->ng <= 1;
		}
		return 1;
	case PROMQL_CALL:
		if (n->fn >= 0 && (!strcmp(promql_func_name(n->fn), "vector") ||
				   !strcmp(promql_func_name(n->fn), "scalar") ||
				   !strcmp(promql_func_name(n->fn), "absent") ||
				   !strcmp(promql_func_name(n->fn),
					   "absent_over_time")))
			return 1;
		for (x = n->arg; x >= 0; x = a->nodes[x].next)
			if (!promql_one(a, x))
				return 0;
		return 1;
	case PROMQL_BINARY:
		if (n->op == PROMQL_OP_AND || n->op == PROMQL_OP_UNLESS)
			return promql_one(a, n->lhs);
		return promql_one(a, n->lhs) && promql_one(a, n->rhs);
	}
	return 1;
}

int promql_one_series(const char *query)
{
	struct promql_ast a;
	int one;

	if (!query || promql_parse(&a, query, strlen(query), NULL))
		return 1;
	one = promql_one(&a, a.root);
	promql_release(&a);
	return one;
}

int promql_constant(const struct promql_ast *a, int i)
{
	const struct promql_node *n;
	const char *f;
	int x;

	if (i < 0 || (size_t)i >= a->n)
		return 0;
	n = &a->nodes[i];
	switch (n->kind) {
	case PROMQL_NUMBER:
	case PROMQL_STRING_LIT:
		return 1;
	case PROMQL_SELECTOR:
		return 0;
	case PROMQL_PAREN:
	case PROMQL_UNARY:
	case PROMQL_SUBQUERY:
		return promql_constant(a, n->lhs);
	case PROMQL_AGG:
		return promql_constant(a, n->arg);
	case PROMQL_CALL:
		f = promql_func_name(n->fn);
		/* absent() answers exactly when there is no data */
		if (!strcmp(f, "absent") || !strcmp(f, "absent_over_time"))
			return 1;
		for (x = n->arg; x >= 0; x = a->nodes[x].next)
			if (!promql_constant(a, x))
				return 0;
		return 1;
	case PROMQL_BINARY:
		if (n->op == PROMQL_OP_OR)
			return promql_constant(a, n->lhs) ||
			       promql_constant(a, n->rhs);
		if (n->op == PROMQL_OP_UNLESS)
			return promql_constant(a, n->lhs);
		return promql_constant(a, n->lhs) &&
		       promql_constant(a, n->rhs);
	}
	return 0;
}

/* The first selector under node i (in text order) named `up` when up is
 * set, or not named `up` when it is not; -1 when there is none. */
static int promql_find_sel(const struct promql_ast *a, int i, int up)
{
	const struct promql_node *n;
	int x, r;

	if (i < 0 || (size_t)i >= a->n)
		return -1;
	n = &a->nodes[i];
	if (n->kind == PROMQL_SELECTOR)
		return promql_says(a, n->name, "up") == up ? i : -1;
	if (n->kind == PROMQL_CALL || n->kind == PROMQL_AGG) {
		if ((r = promql_find_sel(a, n->param, up)) >= 0)
			return r;
		for (x = n->arg; x >= 0; x = a->nodes[x].next)
			if ((r = promql_find_sel(a, x, up)) >= 0)
				return r;
		return -1;
	}
	if ((r = promql_find_sel(a, n->lhs, up)) >= 0)
		return r;
	return promql_find_sel(a, n->rhs, up);
}

/* Is `or` node i a fallback: a right side that measures nothing but
 * `up` (or nothing at all) next to a left side that measures? */
static int promql_is_fallback(const struct promql_ast *a, int i)
{
	const struct promql_node *n = &a->nodes[i];

	return n->kind == PROMQL_BINARY && n->op == PROMQL_OP_OR &&
	       promql_find_sel(a, n->lhs, 0) >= 0 &&
	       promql_find_sel(a, n->rhs, 0) < 0;
}

/* The top-level fallback `or` nodes under i: through parentheses and
 * the operands of an `or` that is not a fallback; outermost first into
 * out (up to max).  Returns how many there are. */
static size_t promql_top_ors(const struct promql_ast *a, int i, int *out,
			     size_t max, size_t k)
{
	const struct promql_node *n;

	if (i < 0 || (size_t)i >= a->n)
		return k;
	n = &a->nodes[i];
	if (n->kind == PROMQL_PAREN)
		return promql_top_ors(a, n->lhs, out, max, k);
	if (n->kind != PROMQL_BINARY || n->op != PROMQL_OP_OR)
		return k;
	if (promql_is_fallback(a, i)) {
		if (k < max)
			out[k] = i;
		return promql_top_ors(a, n->lhs, out, max, k + 1);
	}
	k = promql_top_ors(a, n->lhs, out, max, k);
	return promql_top_ors(a, n->rhs, out, max, k);
}

int promql_fallback(const struct promql_ast *a, struct promql_fallback *out)
{
	int ors[1];

	if (a->root < 0 || promql_top_ors(a, a->root, ors, 1, 0) == 0)
		return 0;
	out->node = ors[0];
	out->bare = promql_constant(a, a->root);
	out->up = promql_find_sel(a, a->nodes[ors[0]].rhs, 1);
	return 1;
}

/* Text being built into a bounded buffer; over: it did not fit. */
struct promql_out {
	char *buf;
	size_t size, len;
	int over;
};

static void promql_put(struct promql_out *o, const char *s, size_t n)
{
	if (o->over || o->len + n + 1 > o->size) {
		o->over = 1;
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

/* Node i's text, each top-level fallback `A or B` as its A alone. */
static void promql_emit(const struct promql_ast *a, int i,
			struct promql_out *o)
{
	const struct promql_node *n = &a->nodes[i];

	if (n->kind == PROMQL_PAREN) {
		promql_put(o, a->text + n->pos, a->nodes[n->lhs].pos - n->pos);
		promql_emit(a, n->lhs, o);
		promql_put(o, a->text + a->nodes[n->lhs].end,
			   n->end - a->nodes[n->lhs].end);
		return;
	}
	if (n->kind == PROMQL_BINARY && n->op == PROMQL_OP_OR) {
		if (promql_is_fallback(a, i)) {
			promql_emit(a, n->lhs, o);
			return;
		}
		promql_emit(a, n->lhs, o);
		promql_put(o, a->text + a->nodes[n->lhs].end,
			   a->nodes[n->rhs].pos - a->nodes[n->lhs].end);
		promql_emit(a, n->rhs, o);
		return;
	}
	promql_put(o, a->text + n->pos, n->end - n->pos);
}

size_t promql_measured(const struct promql_ast *a, char *buf, size_t size)
{
	struct promql_out o = { buf, size, 0, 0 };
	int ors[1];

	if (a->root < 0 || !size ||
	    promql_top_ors(a, a->root, ors, 1, 0) == 0)
		return 0;
	promql_put(&o, a->text, a->nodes[a->root].pos);
	promql_emit(a, a->root, &o);
	promql_put(&o, a->text + a->nodes[a->root].end,
		   a->len - a->nodes[a->root].end);
	if (o.over)
		return 0;
	buf[o.len] = '\0';
	return o.len;
}
