/*
 * lintpool.h - `staffer lint` across ScaledObjects: the triggers of one
 * model's disaggregated fleet (pool prefill and pool decode, meta.h)
 * checked as a pair (docs/lint.md, "Pools of one model").
 *
 * lint.c adds every staffer trigger whose metadata passed; after the last
 * file lintpool_check() reports, through the caller's function:
 *   error    a prefill and a decode trigger of one model that scale the
 *            same target (both pools would size one Deployment);
 *   warning  a prefill pool without the model's decode pool in the files
 *            linted, or the reverse; two triggers sizing the same pool
 *            of one model; a unified trigger next to the model's pools
 *            (the model sized as one fleet and as pools); the two pools
 *            reading different input-token queries.
 * One model is one namespace and one arrivalRateQuery text (both pools of
 * a model count the same requests).  A trigger whose arrivalRateQuery
 * comes from the environment (arrivalRateQueryFromEnv) is not grouped.
 *
 * Bounds: LINTPOOL_MAX triggers (later ones are not grouped); strings are
 * copied and owned.  Not thread-safe.
 */
#ifndef STAFFER_LINTPOOL_H
#define STAFFER_LINTPOOL_H

#include <stddef.h>

#include "meta.h"

#define LINTPOOL_MAX 10000

struct lintpool_trigger {
	char *file;              /* as lint shows it */
	unsigned long line;      /* the trigger's metadata: line */
	char *who;               /* "NS/NAME" */
	char *ns;                /* the object's namespace ("" none) */
	long trigger;
	enum pool_kind kind;
	char *arrival;           /* arrivalRateQuery */
	char *input;             /* inputTokenRateQuery, NULL none */
	char *target;            /* "KIND/NAME" of scaleTargetRef */
};

struct lintpool {
	struct lintpool_trigger *t;
	size_t n, cap;
};

void lintpool_init(struct lintpool *lp);
void lintpool_release(struct lintpool *lp);

/*
 * Record a trigger whose metadata m passed meta_check(); target and ns
 * may be NULL (none).  0; -1 out of memory (nothing recorded).  Beyond
 * LINTPOOL_MAX, or without an arrivalRateQuery, nothing is recorded.
 */
int lintpool_add(struct lintpool *lp, const char *file, unsigned long line,
		 const char *who, const char *ns, long trigger,
		 const struct meta *m, const char *target);

/* One finding: about trigger t, warn 1 for a warning, msg one line. */
typedef void lintpool_report_fn(void *arg, const struct lintpool_trigger *t,
				int warn, const char *msg);

/* Check the pairs; each finding once, about the later trigger of a pair,
 * in the order the triggers were added. */
void lintpool_check(const struct lintpool *lp, lintpool_report_fn *fn,
		    void *arg);

#endif
