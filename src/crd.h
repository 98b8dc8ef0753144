/*
 * crd.h - a ScaledObject checked against KEDA's CRD schema, as the API
 * server checks it with strict field validation, for `staffer lint`.
 *
 * The schema is the v1alpha1 openAPIV3Schema of KEDA's ScaledObject CRD,
 * third_party/keda/keda.sh_scaledobjects.yaml (source, version and
 * licence in third_party/keda/README.md), embedded in the binary at
 * build time (scripts/embed.sh) and read with ydoc.h.
 *
 * What is checked, field by field: the type (object, array, string,
 * integer with its int32 range, number, boolean, int-or-string), unknown
 * fields (a field the schema does not list, with the nearest listed one
 * as a hint), required fields, enum values, minimum, minLength, minItems,
 * pattern, and the CRD's one validation rule, minReplicaCount <=
 * maxReplicaCount (100 when not given).  The metadata of the triggers
 * lint checks is left out: lint checks it in its own words.  A YAML null
 * is taken as absent, as the API server prunes it.  Merge keys (<<) are
 * applied as kubectl applies them (ydoc.h), and a `<<` whose value is not
 * a map or a list of maps is a finding wherever it stands in the object,
 * in values the schema does not describe too (an unknown field, labels,
 * another trigger's metadata): go-yaml, so kubectl, refuses the document.
 *
 * The schema is parsed, and its patterns compiled, once by crd_load()
 * (about 30 KB of YAML, 0.35 ms), then only read: parsed at each check, it
 * was most of lint's time on a `kind: List` of many objects (a List of
 * 10,000 aliases of one object took 4.2 s, now 0.5 s).  Threads: no
 * globals but the constant text; a loaded schema is never written, so any
 * number of threads may check with one (regexec() is thread-safe), and
 * crd_free() comes after the last check.
 */
#ifndef STAFFER_CRD_H
#define STAFFER_CRD_H

#include <stddef.h>

#include "ydoc.h"

#define CRD_MSG_MAX 512   /* one finding, NUL included */

/* The embedded CRD (generated: build/gen/crd-gen.c). */
extern const char crd_scaledobject[];
extern const size_t crd_scaledobject_len;

/* One finding: the line it is about and a sentence that starts with the
 * field's path, e.g. "spec.maxReplicaCount: '40' is a string; the CRD
 * wants an integer (write it without quotes)". */
typedef void crd_report_fn(void *arg, unsigned long line, const char *msg);

/* The embedded schema, parsed. */
struct crd;

/*
 * Parse the embedded schema.  Returns it (the caller's, for crd_free()),
 * or NULL when it cannot be read (out of memory, or a build with a broken
 * CRD), with a message on stderr.
 */
struct crd *crd_load(void);

/* Free a schema of crd_load(); NULL is fine. */
void crd_free(struct crd *c);

/*
 * Check ScaledObject obj of document d against schema c; each finding
 * goes to report.  The triggers lint checks are those ydoc_is_external()
 * finds with address (NULL: every external one): their metadata is left
 * out.  Returns the number of findings.
 */
int crd_check(const struct crd *c, const struct ydoc *d,
	      const struct ynode *obj, const char *address,
	      crd_report_fn *report, void *arg);

/*
 * The finding crd_check() gives for a `<<` go-yaml refuses (key, bad and
 * item as ymerge_bad_fn has them) in the map at path (crd's form, "" at
 * the top, ydoc_check()'s): "PATH.<<[ITEM]: 'V' is a number, not a map:
 * kubectl refuses the whole document (...)", into msg.  For what lint
 * tells outside the objects it checks, in the same words.
 */
void crd_bad_merge_msg(char msg[CRD_MSG_MAX], const char *path,
		       const struct ynode *key, const struct ynode *bad,
		       long item);

#endif
