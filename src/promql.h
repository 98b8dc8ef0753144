/*
 * promql.h - PromQL, read the way Prometheus reads it: a lexer and a
 * recursive-descent parser for the expression language, with its types.
 *
 * `staffer lint` parses every query of a trigger and reports what the
 * backend would refuse (unbalanced brackets, an instant vector where a
 * function wants a range, an unknown function, a wrong argument count, a
 * range on something that is not a selector, ...) with its position;
 * then it reads the tree for what the backend accepts but is wrong for
 * staffer (units, several series, a fallback that turns missing data into
 * 0).  `staffer explain` and `staffer tune` use the fallback helpers to
 * tell a measured 0 from a 0 the query made up.
 *
 * The grammar is Prometheus' (promql/parser, 2.x and 3.x): numbers
 * (decimal, hex, exponent, Inf, NaN), strings ("", '' with Go escapes,
 * `` raw), vector selectors with label matchers (=, !=, =~, !~; a quoted
 * metric name in braces as 3.x allows), range selectors x[5m], subqueries
 * e[5m:1m], offset and @ (a time, start(), end()), function calls
 * checked against the function table (argument count and types: scalar,
 * instant vector, range vector, string), aggregations with by/without
 * before or after their arguments and their parameter, unary and binary
 * operators by Prometheus' precedence (^ right-associative) with bool,
 * on/ignoring and group_left/group_right, parentheses and # comments.
 * Not checked: regular expressions' own syntax (RE2's, not POSIX's), the
 * experimental functions' feature flags, MetricsQL's extensions.
 *
 * Bounds: a query of at most PROMQL_LEN_MAX bytes, nested at most
 * PROMQL_DEPTH deep.  The parser allocates its tree (promql_release()
 * frees it); everything else is pure.  Thread-safe for distinct trees.
 */
#ifndef STAFFER_PROMQL_H
#define STAFFER_PROMQL_H

#include <stddef.h>

#define PROMQL_LEN_MAX 16384   /* bytes of one query parsed */
#define PROMQL_DEPTH 128       /* nested expressions */
#define PROMQL_ERR_MAX 256     /* one error message */

/* ---- the old helpers, on the text ------------------------------------- */

/*
 * The longest range in query, in seconds: "sum(rate(x[1m]))" gives 60,
 * "max_over_time(rate(x[30s])[5m:1m])" 300.  Durations are Prometheus'
 * ("1h30m", "90s", "500ms"; units y w d h m s ms, each at most once, in
 * that order).  Returns 1 and stores the seconds when there is at least one
 * range; 0 when there is none (a recording rule, an instant vector) or a
 * bracket holds something else; *out is then untouched.  A scan of the
 * text, not a parse: the server takes the window from any query.
 */
int promql_range_max(const char *query, double *out);

/*
 * 1 unless query is sure to be able to return several series, for
 * `staffer lint`'s warning on a trigger that must return one number:
 * promql_parse() and promql_one() below.  A query that does not parse
 * passes (lint reports the syntax error instead).
 */
int promql_one_series(const char *query);

/* ---- the tree ------------------------------------------------------------ */

enum promql_type {
	PROMQL_SCALAR = 1,
	PROMQL_VECTOR,          /* instant vector */
	PROMQL_MATRIX,          /* range vector */
	PROMQL_STRING,
};

enum promql_kind {
	PROMQL_NUMBER,          /* value */
	PROMQL_STRING_LIT,
	PROMQL_SELECTOR,        /* name, matchers; range_s > 0: x[5m] */
	PROMQL_CALL,            /* fn; args from arg, chained by next */
	PROMQL_AGG,             /* fn; arg (the vector), param or -1 */
	PROMQL_BINARY,          /* op; lhs, rhs */
	PROMQL_UNARY,           /* op (PROMQL_OP_SUB or _ADD); lhs */
	PROMQL_PAREN,           /* lhs */
	PROMQL_SUBQUERY,        /* lhs; range_s, step_s (0: default) */
};

enum promql_op {
	PROMQL_OP_NONE,
	PROMQL_OP_ADD, PROMQL_OP_SUB, PROMQL_OP_MUL, PROMQL_OP_DIV,
	PROMQL_OP_MOD, PROMQL_OP_POW, PROMQL_OP_ATAN2,
	PROMQL_OP_EQL, PROMQL_OP_NEQ, PROMQL_OP_GTR, PROMQL_OP_LSS,
	PROMQL_OP_GTE, PROMQL_OP_LTE,
	PROMQL_OP_AND, PROMQL_OP_OR, PROMQL_OP_UNLESS,
};

enum promql_match { PROMQL_EQ, PROMQL_NE, PROMQL_RE, PROMQL_NRE };

/* A span of the query text: [pos, pos + len). */
struct promql_span {
	unsigned pos, len;
};

struct promql_matcher {
	struct promql_span name;   /* empty: a quoted metric name alone */
	enum promql_match op;
	struct promql_span value;  /* between the quotes, escapes as written */
};

struct promql_node {
	enum promql_kind kind;
	enum promql_type type;
	unsigned pos, end;          /* the node's text: [pos, end) */
	int lhs, rhs;               /* children, -1 when none */
	int arg, next;              /* CALL/AGG: first argument; the next */
	int param;                  /* AGG: its parameter, or -1 */
	int fn;                     /* CALL: promql_func_name(fn); AGG:
				     * promql_agg_name(fn) */
	enum promql_op op;
	struct promql_span name;    /* SELECTOR: the metric name (len 0:
				     * none); CALL/AGG: the function */
	unsigned m0, nm;            /* SELECTOR: matchers[m0 .. m0 + nm) */
	unsigned g0, ng;            /* AGG/BINARY: labels[g0 .. g0 + ng) */
	unsigned char grouping;     /* AGG: 1 by, 2 without; BINARY: 1 on,
				     * 2 ignoring */
	unsigned char group_side;   /* BINARY: 1 group_left, 2 group_right */
	unsigned char bool_mod;     /* BINARY: bool */
	unsigned char has_offset, has_at;
	double value;               /* NUMBER */
	double range_s, step_s;     /* SELECTOR (range), SUBQUERY */
	double offset_s;
};

struct promql_ast {
	const char *text;           /* borrowed: the query */
	size_t len;
	struct promql_node *nodes;
	size_t n, cap;
	struct promql_matcher *matchers;
	size_t n_matchers, cap_matchers;
	struct promql_span *labels; /* grouping and on/ignoring labels */
	size_t n_labels, cap_labels;
	int root;
};

enum promql_err {
	PROMQL_OK = 0,
	PROMQL_ESYNTAX,             /* not PromQL: err says where and why */
	PROMQL_ENOMEM,
};

struct promql_error {
	size_t pos;                 /* byte offset of the problem */
	char msg[PROMQL_ERR_MAX];   /* what is wrong and what was expected */
};

/*
 * Parse text (len bytes, no NUL needed) into ast, which borrows text
 * until promql_release().  PROMQL_OK with a tree whose root has a type;
 * else ast is empty and err (when given) says where and why: the first
 * problem found, as Prometheus would refuse the query.
 */
enum promql_err promql_parse(struct promql_ast *ast, const char *text,
			     size_t len, struct promql_error *err);
void promql_release(struct promql_ast *ast);

/* "line 2, character 7" (lines and characters from 1), or "character 7"
 * when the text is one line: where pos is, for a message. */
void promql_where(const char *text, size_t len, size_t pos, char *buf,
		  size_t size);

/* The name of function index fn, or of aggregation fn. */
const char *promql_func_name(int fn);
const char *promql_agg_name(int fn);
/* "scalar", "instant vector", "range vector", "string". */
const char *promql_type_name(enum promql_type t);

/* ---- what staffer reads from a tree --------------------------------------- */

/* 1 when node i is sure to return at most one series (the rules of
 * promql_one_series(), on the tree). */
int promql_one(const struct promql_ast *ast, int i);

/*
 * The fallback of a query: the part that answers when the measured part
 * has no series.  `A or vector(0)`, `A or on() vector(0)`, `A or 0 *
 * vector(1)` answer 0 whatever happened to the scrape: a silent zero.
 * A fallback that needs data of its own, such as `A or (0 * max(up{job=
 * "x"} == 1))`, answers only while the exporter is up: guarded.
 */
struct promql_fallback {
	int node;                   /* the `or` that adds the fallback, or -1 */
	int bare;                   /* the query answers with no data at all */
	int up;                     /* a selector of `up` in the fallback, or
				     * -1 */
};

/* What the query's fallback is.  Returns 1 when it has one (*out set),
 * else 0.  Only fallbacks at the top level count: `or` operands of the
 * root (through parentheses), where they decide the whole answer. */
int promql_fallback(const struct promql_ast *ast, struct promql_fallback *out);

/* 1 when node i can answer without any series (a number, vector(0),
 * absent(x), time(), `A or vector(0)`): the query then never reports
 * "no data". */
int promql_constant(const struct promql_ast *ast, int i);

/*
 * The measured part of the query: the text with every top-level fallback
 * `A or B` replaced by `(A)`, into buf (NUL-terminated).  Returns its
 * length, or 0 when the query has no fallback or buf is too small.
 */
size_t promql_measured(const struct promql_ast *ast, char *buf, size_t size);

/* The text of node i, into buf (cut, NUL-terminated); returns buf. */
const char *promql_text(const struct promql_ast *ast, int i, char *buf,
			size_t size);

#endif
