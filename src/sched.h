/*
 * sched.h - the `schedule` grammar: windows of the week that override
 * tuning keys.
 *
 *   schedule = window *( ";" window )        empty windows are skipped
 *   window   = [days] time 1*override        separated by spaces
 *   days     = item *( "," item )            absent: every day
 *   item     = DAY | DAY "-" DAY             ranges may wrap: Fri-Mon
 *   DAY      = Mon | Tue | ... | Sun         any case
 *   time     = HH:MM "-" HH:MM               24 h; end 24:00 allowed;
 *                                            end <= start crosses midnight
 *   override = key "=" value
 *
 * e.g. "Mon-Fri 08:00-19:00 beta=2.0; 22:00-07:00 beta=1 scaleDownStep=2".
 * Spaces may also stand around ',', '-' and '='.  A window that crosses
 * midnight belongs to the day it starts on: "Fri 22:00-07:00" runs from
 * Friday 22:00 to Saturday 07:00.  No minute of the week may belong to two
 * windows.
 *
 * This module knows nothing of the keys: the caller's resolve function
 * checks each key=value and turns it into a (key id, value) pair, which is
 * all a window stores.  A parsed schedule is a plain value (fixed arrays,
 * no pointers): it may be copied with `=`, needs no release, and finding
 * the window of a minute is a short scan.
 *
 * Pure: no I/O, no logging, no allocation, no globals; thread-safe.
 */
#ifndef STAFFER_SCHED_H
#define STAFFER_SCHED_H

#include <stddef.h>

#define SCHED_WINDOWS_MAX 32    /* windows in one schedule */
#define SCHED_OVERRIDES_MAX 64  /* key=value pairs in all windows */
#define SCHED_TEXT_MAX 1024     /* bytes of schedule text, with NUL */
#define SCHED_ERR_MAX 640       /* bytes of an error message, with NUL */
#define SCHED_WEEK 10080        /* minutes in a week */

enum sched_err {
	SCHED_OK = 0,
	SCHED_ESYNTAX,   /* a malformed window, day, time or override */
	SCHED_EKEY,      /* resolve() refused a key or value */
	SCHED_EOVERLAP,  /* two windows share a minute of the week */
	SCHED_ELIMIT,    /* too long, too many windows or overrides */
};

/* One key=value of a window, as resolve() made it. */
struct sched_override {
	int key;         /* the caller's key id */
	double value;    /* the caller's value */
};

struct sched_window {
	unsigned days;         /* bit 0 Monday ... bit 6 Sunday */
	unsigned start;        /* minute of the day it starts, 0..1439 */
	unsigned len;          /* minutes it lasts, 1..1440 */
	unsigned first, n;     /* its overrides: o[first .. first + n) */
	unsigned text;         /* offset of its text in sched.text */
};

struct sched {
	unsigned n;                                   /* windows; 0: none */
	struct sched_window w[SCHED_WINDOWS_MAX];     /* in schedule order */
	struct sched_override o[SCHED_OVERRIDES_MAX];
	/* Each window's text, trimmed, with runs of white space as one
	 * space, NUL-terminated, at w[i].text. */
	char text[SCHED_TEXT_MAX];
};

/*
 * Check one key=value of a window; key and value are NUL-terminated as
 * written.  On success fill *o and return 0.  Otherwise write what is
 * wrong into why (size bytes), worded to follow "window 'W': ", e.g.
 * "'beta': 'x' is not a number; allowed: ...", and return -1.
 */
typedef int sched_resolve_fn(void *ctx, const char *key, const char *value,
			     struct sched_override *o, char *why,
			     size_t size);

/*
 * Parse text into *s.  Returns SCHED_OK, or an error code with a sentence
 * in msg (SCHED_ERR_MAX bytes are enough) that names the window and says
 * what is allowed, e.g. "window 'Mon-Fri 8:00-19:00 beta=2': '8:00-19:00'
 * is not a time range; allowed: ...".  On error *s is unusable (but needs
 * no release either).  Text and windows are cut at 60 characters in
 * messages; bytes outside printable ASCII appear as \xNN.
 */
enum sched_err sched_parse(struct sched *s, const char *text,
			   sched_resolve_fn *resolve, void *ctx,
			   char *msg, size_t size);

/* The window in force at minute_of_week (0 = Monday 00:00, see
 * sched_minute_of_week), as an index into s->w, or -1 for none. */
int sched_find(const struct sched *s, int minute_of_week);

/* Whether window w covers minute_of_week. */
int sched_covers(const struct sched_window *w, int minute_of_week);

/* The text of window i, or NULL when there is none. */
const char *sched_window_text(const struct sched *s, unsigned i);

/* The minute of the week (0..SCHED_WEEK-1, Monday 00:00 = 0) of local
 * wall-clock seconds (Unix seconds counted as if local were UTC). */
int sched_minute_of_week(long long local);

/* "Mon" ... "Sun" for 0..6, else "?". */
const char *sched_day_name(int day);

#endif
