/*
 * declog.h - the decision line: every term of one decision, once, for
 * the text log line and the JSON one alike.
 *
 * `staffer serve` logs one line per decision (scaler.c): in text
 * "decision ref=NS/NAME/METRIC lambda=2 forecast=2.4 ... state=memory",
 * in JSON the same message with each term as a number of its own
 * ("lambda":2, "W":10, "raw":27) and the trigger's identity (namespace,
 * scaledObject, trigger, backend).  Both come from one table in
 * declog.c: a new term of the model is one row there.
 *
 * Pure: fills what it is given; thread-safe.
 */
#ifndef STAFFER_DECLOG_H
#define STAFFER_DECLOG_H

#include <stddef.h>

#include "log.h"
#include "scaler.h"

#define DECLOG_TEXT_MAX 1024

struct declog {
	struct log_field f[LOG_FIELDS_MAX];
	size_t n;
	char text[DECLOG_TEXT_MAX];     /* the message of the line */
};

/*
 * The line of decision r (a SCALER_METRICS result whose model ran: r->d
 * and r->obs set) of the trigger ref ("ns/name/metricName") read from
 * backend; observed: the previous answer came from currentReplicasQuery;
 * unknown: the key of an optional signal unknown at this decision, or
 * NULL (with r->floored: the answer was raised to the last one made with
 * every signal known).  Strings in dl borrow r's, ref's, backend's and
 * unknown's.
 */
void declog_build(struct declog *dl, const struct scaler_result *r,
		  const char *ref, const char *backend, int observed,
		  const char *unknown);

/* The identity fields of any line about trigger metric of ScaledObject
 * ns/name (NULLs left out) into f[0..]: namespace, scaledObject,
 * trigger, backend.  Returns how many (at most 4). */
size_t declog_who(struct log_field *f, const char *ns, const char *name,
		  const char *metric, const char *backend);

#endif
