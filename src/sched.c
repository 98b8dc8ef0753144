/*
 * sched.c - the `schedule` grammar; see sched.h.
 *
 * Parsing runs in three passes: split the text at ';' into windows (their
 * normalised text goes to sched.text), parse each window with a cursor,
 * then mark every window's minutes in a bitmap of the week to find two
 * windows that share a minute.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ascii.h"
#include "sched.h"
#include "show.h"

#define SCHED_DAY 1440          /* minutes in a day */
#define SCHED_ALL_DAYS 0x7fu
#define SCHED_KEY_MAX 64        /* bytes of a key, with NUL */
#define SCHED_VALUE_MAX 128     /* bytes of a value, with NUL */
#define SCHED_SHOW_MAX 60
#define SCHED_SHOW_BUF (SCHED_SHOW_MAX + 4)
/* A resolver's reason: fits in SCHED_ERR_MAX with the window. */
#define SCHED_WHY_MAX 520

_Static_assert(SCHED_WINDOWS_MAX <= 255, "window indexes fit a byte");

static const char *const sched_days[7] = {
	"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun",
};

static const char sched_days_allowed[] =
	"allowed: Mon, Tue, Wed, Thu, Fri, Sat, Sun (any case), a range "
	"such as Mon-Fri or Fri-Mon, or a list such as Sat,Sun";
static const char sched_time_allowed[] =
	"allowed: HH:MM-HH:MM on a 24-hour clock, e.g. 08:00-19:00, "
	"22:00-07:00 across midnight, 00:00-24:00 for the whole day";
static const char sched_window_allowed[] =
	"a window is [days] HH:MM-HH:MM key=value ..., e.g. "
	"'Mon-Fri 08:00-19:00 beta=2'; windows are separated by ';'";

const char *sched_day_name(int day)
{
	return day >= 0 && day < 7 ? sched_days[day] : "?";
}

/* ---- messages ------------------------------------------------------------ */

/* len bytes of s as shown in a message: escaped as show_escaped() does,
 * cut after SCHED_SHOW_MAX characters with "...". */
static void sched_show(char buf[SCHED_SHOW_BUF], const char *s, size_t len)
{
	show_escaped(buf, SCHED_SHOW_MAX, s, len);
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static enum sched_err sched_fail(char *msg, size_t size, enum sched_err code,
				 const char *fmt, ...)
{
	va_list ap;

	if (msg && size) {
		va_start(ap, fmt);
		vsnprintf(msg, size, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* The parse of one window: where it is and where errors go. */
struct sched_ctx {
	struct sched *s;
	unsigned wi;                 /* the window being parsed */
	sched_resolve_fn *resolve;
	void *rctx;
	char *msg;
	size_t size;
};

/* "window 'W': <what>" */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static enum sched_err sched_wfail(struct sched_ctx *c, enum sched_err code,
				  const char *fmt, ...)
{
	char what[SCHED_WHY_MAX], win[SCHED_SHOW_BUF];
	const char *t = sched_window_text(c->s, c->wi);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	sched_show(win, t, strlen(t));
	return sched_fail(c->msg, c->size, code, "window '%s': %s", win,
			  what);
}

/* Where the token at p ends: at a space, except around '-', ',' and '='
 * ("Mon - Fri" is one token). */
static const char *sched_token_end(const char *p)
{
	const char *q = p;

	for (; *q; q++) {
		if (*q != ' ')
			continue;
		if (q[1] == '-' || q[1] == ',' || q[1] == '=')
			continue;
		if (q > p && (q[-1] == '-' || q[-1] == ',' || q[-1] == '='))
			continue;
		break;
	}
	return q;
}

static void sched_show_token(char buf[SCHED_SHOW_BUF], const char *p)
{
	sched_show(buf, p, (size_t)(sched_token_end(p) - p));
}

/* ---- days ---------------------------------------------------------------- */

/* Skip one space, as normalised text has at most one in a row. */
static const char *sched_skip(const char *p)
{
	return *p == ' ' ? p + 1 : p;
}

/* A day name at p: its number 0..6 and the end, or -1 when the word there
 * is not one. */
static int sched_p_day(const char *p, const char **end)
{
	const char *q = p;
	int d, i;

	while (ascii_is_alpha((unsigned char)*q) ||
	       ascii_is_digit((unsigned char)*q))
		q++;
	*end = q;
	if (q - p != 3)
		return -1;
	for (d = 0; d < 7; d++) {
		for (i = 0; i < 3 && ascii_fold((unsigned char)p[i]) ==
		     ascii_fold((unsigned char)sched_days[d][i]); i++)
			;
		if (i == 3)
			return d;
	}
	return -1;
}

static const char *sched_p_days(struct sched_ctx *c, const char *p,
				unsigned *days, enum sched_err *rc)
{
	const char *start = p, *end;
	char shown[SCHED_SHOW_BUF], word[SCHED_SHOW_BUF];
	int d1, d2, d;

	*days = 0;
	for (;;) {
		d1 = sched_p_day(p, &end);
		if (d1 < 0)
			goto bad_day;
		p = sched_skip(end);
		if (*p == '-') {
			p = sched_skip(p + 1);
			d2 = sched_p_day(p, &end);
			if (d2 < 0)
				goto bad_day;
			if (d2 == d1) {
				sched_show(shown, start,
					   (size_t)(end - start));
				*rc = sched_wfail(c, SCHED_ESYNTAX,
						  "'%s' is a range from a day "
						  "to itself; write the day "
						  "alone, or Mon-Sun for the "
						  "whole week", shown);
				return NULL;
			}
			for (d = d1;; d = (d + 1) % 7) {
				*days |= 1u << d;
				if (d == d2)
					break;
			}
			p = sched_skip(end);
		} else {
			*days |= 1u << d1;
		}
		if (*p != ',')
			return p;
		p = sched_skip(p + 1);
	}
bad_day:
	if (end == p)
		end = sched_token_end(p);
	sched_show(word, p, (size_t)(end - p));
	sched_show_token(shown, start);
	*rc = sched_wfail(c, SCHED_ESYNTAX, "'%s' is not a day in '%s'; %s",
			  word, shown, sched_days_allowed);
	return NULL;
}

/* ---- time range ---------------------------------------------------------- */

/* "HH:MM" with HH <= max_h (24:00 only when max_h is 24): minutes of the
 * day, and the end; -1 when malformed. */
static int sched_p_hhmm(const char *p, int max_h, const char **end)
{
	int h, m;

	if (!ascii_is_digit((unsigned char)p[0]) ||
	    !ascii_is_digit((unsigned char)p[1]) || p[2] != ':' ||
	    !ascii_is_digit((unsigned char)p[3]) ||
	    !ascii_is_digit((unsigned char)p[4]) ||
	    ascii_is_digit((unsigned char)p[5]))
		return -1;
	h = (p[0] - '0') * 10 + (p[1] - '0');
	m = (p[3] - '0') * 10 + (p[4] - '0');
	if (h > max_h || m > 59 || (h == 24 && m != 0))
		return -1;
	*end = p + 5;
	return h * 60 + m;
}

static const char *sched_p_time(struct sched_ctx *c, const char *p,
				struct sched_window *w, enum sched_err *rc)
{
	const char *start = p, *q;
	char shown[SCHED_SHOW_BUF];
	int a, b;

	a = sched_p_hhmm(p, 23, &q);
	if (a < 0)
		goto bad;
	q = sched_skip(q);
	if (*q != '-')
		goto bad;
	q = sched_skip(q + 1);
	b = sched_p_hhmm(q, 24, &q);
	if (b < 0 || (*q && *q != ' '))
		goto bad;
	if (a == b) {
		sched_show(shown, start, (size_t)(q - start));
		*rc = sched_wfail(c, SCHED_ESYNTAX, "'%s' starts where it "
				  "ends; for the whole day write 00:00-24:00",
				  shown);
		return NULL;
	}
	w->start = (unsigned)a;
	w->len = (unsigned)(b > a ? b - a : b + SCHED_DAY - a);
	return q;
bad:
	sched_show_token(shown, start);
	*rc = sched_wfail(c, SCHED_ESYNTAX, "'%s' is not a time range; %s",
			  shown, sched_time_allowed);
	return NULL;
}

/* ---- overrides ----------------------------------------------------------- */

static const char *sched_p_override(struct sched_ctx *c, const char *p,
				    enum sched_err *rc)
{
	struct sched *s = c->s;
	struct sched_window *w = &s->w[c->wi];
	struct sched_override o;
	char key[SCHED_KEY_MAX], value[SCHED_VALUE_MAX];
	char shown[SCHED_SHOW_BUF], why[SCHED_WHY_MAX];
	const char *k = p, *v;
	size_t klen, vlen;
	unsigned i;

	while (ascii_is_alpha((unsigned char)*p) ||
	       (p > k && ascii_is_digit((unsigned char)*p)))
		p++;
	klen = (size_t)(p - k);
	p = sched_skip(p);
	if (klen == 0 || klen >= sizeof(key) || *p != '=') {
		sched_show_token(shown, k);
		*rc = sched_wfail(c, SCHED_ESYNTAX, "'%s' is not key=value; "
				  "%s", shown, sched_window_allowed);
		return NULL;
	}
	memcpy(key, k, klen);
	key[klen] = '\0';
	v = p = sched_skip(p + 1);
	while (*p && *p != ' ')
		p++;
	vlen = (size_t)(p - v);
	if (vlen == 0 || vlen >= sizeof(value)) {
		sched_show_token(shown, k);
		*rc = sched_wfail(c, SCHED_ESYNTAX, "'%s' %s; %s", shown,
				  vlen ? "has a value that is too long"
				       : "has no value",
				  sched_window_allowed);
		return NULL;
	}
	memcpy(value, v, vlen);
	value[vlen] = '\0';
	if (w->first + w->n >= SCHED_OVERRIDES_MAX) {
		*rc = sched_fail(c->msg, c->size, SCHED_ELIMIT,
				 "more than %d key=value pairs in all windows",
				 SCHED_OVERRIDES_MAX);
		return NULL;
	}
	why[0] = '\0';
	if (c->resolve(c->rctx, key, value, &o, why, sizeof(why))) {
		*rc = sched_wfail(c, SCHED_EKEY, "%s",
				  why[0] ? why : "a key or value is refused");
		return NULL;
	}
	for (i = 0; i < w->n; i++) {
		if (s->o[w->first + i].key == o.key) {
			sched_show(shown, key, klen);
			*rc = sched_wfail(c, SCHED_ESYNTAX, "'%s' is set "
					  "twice", shown);
			return NULL;
		}
	}
	s->o[w->first + w->n++] = o;
	return p;
}

/* ---- one window ---------------------------------------------------------- */

static enum sched_err sched_p_window(struct sched_ctx *c, unsigned first)
{
	struct sched_window *w = &c->s->w[c->wi];
	const char *p = sched_window_text(c->s, c->wi), *q;
	enum sched_err rc = SCHED_OK;

	w->first = first;
	w->n = 0;
	w->days = SCHED_ALL_DAYS;
	if (ascii_is_alpha((unsigned char)*p)) {
		/* days, unless it is already a key=value */
		for (q = p; ascii_is_alpha((unsigned char)*q) ||
		     ascii_is_digit((unsigned char)*q); q++)
			;
		if (*sched_skip(q) == '=')
			return sched_wfail(c, SCHED_ESYNTAX, "there is no time "
					   "range; %s", sched_window_allowed);
		p = sched_p_days(c, p, &w->days, &rc);
		if (!p)
			return rc;
		p = sched_skip(p);
	}
	if (!ascii_is_digit((unsigned char)*p))
		return sched_wfail(c, SCHED_ESYNTAX, "there is no time range; "
				   "%s", sched_window_allowed);
	p = sched_p_time(c, p, w, &rc);
	if (!p)
		return rc;
	while (*(p = sched_skip(p))) {
		p = sched_p_override(c, p, &rc);
		if (!p)
			return rc;
	}
	if (w->n == 0)
		return sched_wfail(c, SCHED_ESYNTAX, "it sets no key; %s",
				   sched_window_allowed);
	return SCHED_OK;
}

/* ---- overlaps ------------------------------------------------------------ */

static int sched_bit(const unsigned char *map, int mw)
{
	return (map[mw >> 3] >> (mw & 7)) & 1;
}

int sched_covers(const struct sched_window *w, int minute_of_week)
{
	int d, delta;

	for (d = 0; d < 7; d++) {
		if (!(w->days & (1u << d)))
			continue;
		delta = minute_of_week - (d * SCHED_DAY + (int)w->start);
		delta = ((delta % SCHED_WEEK) + SCHED_WEEK) % SCHED_WEEK;
		if (delta < (int)w->len)
			return 1;
	}
	return 0;
}

static enum sched_err sched_overlaps(struct sched *s, char *msg, size_t size)
{
	unsigned char map[(SCHED_WEEK + 7) / 8];
	char a[SCHED_SHOW_BUF], b[SCHED_SHOW_BUF];
	const char *ta, *tb;
	const struct sched_window *w;
	unsigned i, j, k;
	int d, mw, hit;

	memset(map, 0, sizeof(map));
	for (i = 0; i < s->n; i++) {
		w = &s->w[i];
		hit = 0;
		for (d = 0; d < 7 && !hit; d++) {
			if (!(w->days & (1u << d)))
				continue;
			for (k = 0; k < w->len && !hit; k++) {
				mw = (int)((d * SCHED_DAY + w->start + k) %
					   SCHED_WEEK);
				hit = sched_bit(map, mw);
			}
		}
		if (!hit) {
			for (d = 0; d < 7; d++) {
				if (!(w->days & (1u << d)))
					continue;
				for (k = 0; k < w->len; k++) {
					mw = (int)((d * SCHED_DAY + w->start +
						    k) % SCHED_WEEK);
					map[mw >> 3] |=
						(unsigned char)(1u << (mw & 7));
				}
			}
			continue;
		}
		/* The earliest shared minute of the week, and the first
		 * window before this one that has it. */
		for (mw = 0; mw < SCHED_WEEK; mw++)
			if (sched_bit(map, mw) && sched_covers(w, mw))
				break;
		for (j = 0; j < i && !sched_covers(&s->w[j], mw); j++)
			;
		ta = sched_window_text(s, j);
		tb = sched_window_text(s, i);
		sched_show(a, ta, strlen(ta));
		sched_show(b, tb, strlen(tb));
		return sched_fail(msg, size, SCHED_EOVERLAP,
				  "windows '%s' and '%s' overlap on %s "
				  "%02d:%02d; a minute of the week can belong "
				  "to one window only", a, b,
				  sched_days[mw / SCHED_DAY],
				  mw % SCHED_DAY / 60, mw % 60);
	}
	return SCHED_OK;
}

/* ---- the whole schedule -------------------------------------------------- */

/* Copy [p, end) into out trimmed, with runs of white space as one space;
 * returns the length written (no NUL). */
static size_t sched_normalise(const char *p, const char *end, char *out)
{
	size_t o = 0;
	int space = 0;

	for (; p < end; p++) {
		if (ascii_is_space((unsigned char)*p)) {
			space = o > 0;
			continue;
		}
		if (space)
			out[o++] = ' ';
		space = 0;
		out[o++] = *p;
	}
	return o;
}

enum sched_err sched_parse(struct sched *s, const char *text,
			   sched_resolve_fn *resolve, void *ctx,
			   char *msg, size_t size)
{
	struct sched_ctx c;
	char shown[SCHED_SHOW_BUF];
	const char *p, *end;
	enum sched_err rc;
	size_t len, o = 0, n;
	unsigned i, first = 0;

	memset(s, 0, sizeof(*s));
	if (msg && size)
		msg[0] = '\0';
	if (!text)
		text = "";
	len = strnlen(text, SCHED_TEXT_MAX);
	if (len >= SCHED_TEXT_MAX)
		return sched_fail(msg, size, SCHED_ELIMIT, "the schedule is "
				  "longer than %d bytes", SCHED_TEXT_MAX - 1);

	/* Split.  The windows' text with a NUL each is never longer than
	 * the schedule with its ';'s and NUL, so it fits. */
	for (p = text;; p = end + 1) {
		end = strchr(p, ';');
		if (!end)
			end = text + len;
		n = sched_normalise(p, end, s->text + o);
		if (n > 0) {
			if (s->n == SCHED_WINDOWS_MAX)
				return sched_fail(msg, size, SCHED_ELIMIT,
						  "the schedule has more than "
						  "%d windows",
						  SCHED_WINDOWS_MAX);
			s->text[o + n] = '\0';
			s->w[s->n++].text = (unsigned)o;
			o += n + 1;
		}
		if (!*end)
			break;
	}
	if (s->n == 0) {
		sched_show(shown, text, len);
		return sched_fail(msg, size, SCHED_ESYNTAX, "'%s' has no "
				  "window; %s", shown, sched_window_allowed);
	}

	c.s = s;
	c.resolve = resolve;
	c.rctx = ctx;
	c.msg = msg;
	c.size = size;
	for (i = 0; i < s->n; i++) {
		c.wi = i;
		rc = sched_p_window(&c, first);
		if (rc != SCHED_OK)
			return rc;
		first += s->w[i].n;
	}
	return sched_overlaps(s, msg, size);
}

/* ---- evaluation ---------------------------------------------------------- */

int sched_find(const struct sched *s, int minute_of_week)
{
	unsigned i;

	if (minute_of_week < 0 || minute_of_week >= SCHED_WEEK)
		return -1;
	for (i = 0; i < s->n; i++)
		if (sched_covers(&s->w[i], minute_of_week))
			return (int)i;
	return -1;
}

const char *sched_window_text(const struct sched *s, unsigned i)
{
	return i < s->n ? s->text + s->w[i].text : NULL;
}

int sched_minute_of_week(long long local)
{
	long long days = local / 86400, secs;

	if (local % 86400 < 0)
		days--;
	secs = local - days * 86400;
	/* 1970-01-01 was a Thursday: 3 with Monday 0 */
	return (int)(((days + 3) % 7 + 7) % 7) * SCHED_DAY + (int)(secs / 60);
}
