/* declog.c - see declog.h. */
#include "declog.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "decide.h"

/* What one term is read from. */
struct declog_in {
	const struct scaler_result *r;
	int observed;
	const char *unknown;
};

/* How a term reads in the text line (Q: a string in double quotes). */
enum declog_fmt { G4, G3, F3, D, S, Q };

/* One term: key (text and JSON), its text format, how to read it and
 * when it is shown (NULL: always). */
struct declog_term {
	const char *key;
	enum declog_fmt fmt;
	enum log_kind kind;
	double (*num)(const struct declog_in *);
	long long (*whole)(const struct declog_in *);
	const char *(*str)(const struct declog_in *);
	int (*shown)(const struct declog_in *);
};

#define SIG(x) (in->r->sig.x)
#define TERM(x) (in->r->b.x)

static double t_lambda(const struct declog_in *in) { return SIG(arrival_rate); }
static double t_forecast(const struct declog_in *in) { return SIG(arrival_forecast); }
static double t_held(const struct declog_in *in) { return SIG(arrival_held); }
static double t_surge(const struct declog_in *in) { return SIG(arrival_surge); }
static double t_z(const struct declog_in *in)
{
	return SIG(peakedness) > 0 ? SIG(peakedness) : 1;
}
static double t_ztok(const struct declog_in *in)
{
	return in->r->d->pool.ttft_peakedness;
}
static int s_ztok(const struct declog_in *in)
{
	return in->r->d->have_pool && in->r->d->pool.ttft_token_peak;
}
static double t_w(const struct declog_in *in) { return SIG(service_time_s); }
static double t_q(const struct declog_in *in) { return SIG(queue_depth); }
static double t_s(const struct declog_in *in) { return SIG(shed_rate); }
static double t_busy(const struct declog_in *in) { return TERM(busy_slots); }
static double t_head(const struct declog_in *in) { return TERM(headroom_slots); }
static double t_drain(const struct declog_in *in) { return TERM(drain_slots); }
static double t_boost(const struct declog_in *in) { return TERM(boost_slots); }
static double t_total(const struct declog_in *in) { return TERM(total_slots); }
static double t_c(const struct declog_in *in) { return TERM(correction); }
static double t_cold(const struct declog_in *in) { return in->r->d->cold_s; }
static long long t_raw(const struct declog_in *in) { return (long long)in->r->d->raw; }
static long long t_target(const struct declog_in *in) { return (long long)in->r->target; }
static long long t_active(const struct declog_in *in) { return TERM(active); }
static long long t_capped(const struct declog_in *in) { return TERM(capped); }
static const char *t_down(const struct declog_in *in)
{
	return decide_down_name(in->r->d->down);
}
static const char *t_state(const struct declog_in *in)
{
	return in->observed ? "observed" : "memory";
}
static const char *t_window(const struct declog_in *in) { return in->r->window; }
static const char *t_unknown(const struct declog_in *in) { return in->unknown; }
static long long t_floored(const struct declog_in *in) { return in->r->floored; }
static int s_capped(const struct declog_in *in) { return TERM(capped); }
static int s_unknown(const struct declog_in *in) { return in->unknown != NULL; }
static int s_floored(const struct declog_in *in)
{
	return in->unknown && in->r->floored;
}
static int s_c(const struct declog_in *in) { return in->r->d->have_feedback; }
static int s_cold(const struct declog_in *in)
{
	return in->r->obs && in->r->obs->have_cold;
}
static int s_window(const struct declog_in *in) { return in->r->window != NULL; }
static long long t_forgot(const struct declog_in *in) { return in->r->d->hold_forgot; }
static int s_forgot(const struct declog_in *in) { return in->r->d->hold_forgot; }

#undef SIG
#undef TERM

/* The terms, in the order of the text line. */
static const struct declog_term declog_terms[] = {
	{ "lambda", G4, LOG_NUM, t_lambda, NULL, NULL, NULL },
	{ "forecast", G4, LOG_NUM, t_forecast, NULL, NULL, NULL },
	{ "held", G4, LOG_NUM, t_held, NULL, NULL, NULL },
	{ "surge", G4, LOG_NUM, t_surge, NULL, NULL, NULL },
	{ "z", G3, LOG_NUM, t_z, NULL, NULL, NULL },
	{ "W", G4, LOG_NUM, t_w, NULL, NULL, NULL },
	{ "Q", G4, LOG_NUM, t_q, NULL, NULL, NULL },
	{ "S", G4, LOG_NUM, t_s, NULL, NULL, NULL },
	{ "busy", F3, LOG_NUM, t_busy, NULL, NULL, NULL },
	{ "headroom", F3, LOG_NUM, t_head, NULL, NULL, NULL },
	{ "drain", F3, LOG_NUM, t_drain, NULL, NULL, NULL },
	{ "boost", F3, LOG_NUM, t_boost, NULL, NULL, NULL },
	{ "total", F3, LOG_NUM, t_total, NULL, NULL, NULL },
	{ "raw", D, LOG_INT, NULL, t_raw, NULL, NULL },
	{ "target", D, LOG_INT, NULL, t_target, NULL, NULL },
	{ "active", D, LOG_INT, NULL, t_active, NULL, NULL },
	{ "down", S, LOG_STR, NULL, NULL, t_down, NULL },
	{ "state", S, LOG_STR, NULL, NULL, t_state, NULL },
	{ "capped", D, LOG_INT, NULL, t_capped, NULL, s_capped },
	{ "unknown", Q, LOG_STR, NULL, NULL, t_unknown, s_unknown },
	{ "floored", D, LOG_INT, NULL, t_floored, NULL, s_floored },
	{ "c", G4, LOG_NUM, t_c, NULL, NULL, s_c },
	{ "cold", G4, LOG_NUM, t_cold, NULL, NULL, s_cold },
	{ "window", S, LOG_STR, NULL, NULL, t_window, s_window },
	{ "forgot", D, LOG_INT, NULL, t_forgot, NULL, s_forgot },
	{ "zTokens", G3, LOG_NUM, t_ztok, NULL, NULL, s_ztok },
};

size_t declog_who(struct log_field *f, const char *ns, const char *name,
		  const char *metric, const char *backend)
{
	size_t n = 0;

	if (ns)
		f[n++] = (struct log_field)LOG_F_STR("namespace", ns);
	if (name)
		f[n++] = (struct log_field)LOG_F_STR("scaledObject", name);
	if (metric)
		f[n++] = (struct log_field)LOG_F_STR("trigger", metric);
	if (backend)
		f[n++] = (struct log_field)LOG_F_STR("backend", backend);
	return n;
}

/* Append to the text, cut at its end. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void declog_put(char *buf, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len >= DECLOG_TEXT_MAX - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, DECLOG_TEXT_MAX - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t)n < DECLOG_TEXT_MAX - *len ? (size_t)n :
			DECLOG_TEXT_MAX - 1 - *len;
}

void declog_build(struct declog *dl, const struct scaler_result *r,
		  const char *ref, const char *backend, int observed,
		  const char *unknown)
{
	const struct declog_in in = { r, observed, unknown };
	const struct declog_term *t;
	size_t i, len = 0;

	dl->n = declog_who(dl->f, r->ns, r->name, r->metric_name, backend);
	dl->f[dl->n++] = (struct log_field)LOG_F_STR("ref", ref);
	declog_put(dl->text, &len, "decision ref=%s", ref);
	for (i = 0; i < sizeof(declog_terms) / sizeof(declog_terms[0]); i++) {
		struct log_field *f;

		t = &declog_terms[i];
		if ((t->shown && !t->shown(&in)) || dl->n >= LOG_FIELDS_MAX)
			continue;
		f = &dl->f[dl->n++];
		memset(f, 0, sizeof(*f));
		f->key = t->key;
		f->kind = t->kind;
		declog_put(dl->text, &len, " %s=", t->key);
		switch (t->kind) {
		case LOG_NUM:
			f->n = t->num(&in);
			if (t->fmt == F3)
				declog_put(dl->text, &len, "%.3f", f->n);
			else if (t->fmt == G3)
				declog_put(dl->text, &len, "%.3g", f->n);
			else
				declog_put(dl->text, &len, "%.4g", f->n);
			break;
		case LOG_INT:
			f->i = t->whole(&in);
			declog_put(dl->text, &len, "%lld", f->i);
			break;
		case LOG_STR:
			f->s = t->str(&in);
			declog_put(dl->text, &len, t->fmt == Q ? "\"%s\"" : "%s",
				   f->s ? f->s : "");
			break;
		}
	}
	dl->text[len] = '\0';
}
