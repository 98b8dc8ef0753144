/*
 * ycheck.h - what go-yaml v2 and sigs.k8s.io/yaml, so kubectl, refuse in
 * a whole YAML document read by ydoc.h: a `<<` of anything but maps, a
 * key that is a list or a map, a tag that does not fit its text (a
 * !!binary that is not base64 too), a null key or one past int64, an
 * .inf or .nan value, and aliases past go-yaml's bound (ydoc_check());
 * and the predicates the checks of one object share with it, so that a
 * problem is one finding (ydoc_tag_refused(), ydoc_json_key(),
 * ydoc_json_value()).  For
 * `staffer lint` (lint.c, crd.c) and ydoc.c's trigger metadata.
 *
 * No globals; thread-safe for distinct documents (a document is only
 * read).  Errors: return codes.
 */
#ifndef STAFFER_YCHECK_H
#define STAFFER_YCHECK_H

#include <stdint.h>

#include "ydoc.h"

/*
 * Where ydoc_check() found something: obj, the object it is in (the root,
 * or an item of a `kind: List` root, as ydoc_each_scaledobject() finds
 * them, whatever their kind; the List itself outside its items), and
 * path from obj in crd.c's form ("spec.triggers[0].metadata": fields
 * joined by '.', items as [N], what a `<<` merges at its map's path),
 * "" at obj itself.  Valid during the call only.
 */
struct ydoc_at {
	const struct ynode *obj;
	const char *path;
	unsigned long line;
};

/* Whether the caller checks object obj itself (lint: crd.c and
 * ydoc_md_collect() tell its `<<`s): ydoc_check() tells none in it. */
typedef int ydoc_checked_fn(void *arg, const struct ydoc *d,
			    const struct ynode *obj);

/* A `<<` go-yaml refuses, key, bad and item as ymerge_bad_fn has them,
 * in the map at at->path (at->line: the key's). */
typedef void ydoc_merge_fn(void *arg, const struct ydoc_at *at,
			   const struct ynode *key, const struct ynode *bad,
			   long item);

/* go-yaml's bound on aliases, passed (ydoc_check()): of the values its
 * decoder had read (decoded), aliased came through an alias, more than
 * the share allowed for that many; alias: an alias took it past (else a
 * value written in place), anchor the name of the node it repeats (NULL
 * for an alias to a key `<<`), written on line. */
struct ydoc_aliasing {
	uint64_t aliased, decoded;
	double allowed;
	int alias;
	const char *anchor;
	unsigned long line;
};

/* The document is refused for its aliases, at the alias (or value) at
 * at->path (at->line: the alias's key, or its list, having no line of
 * its own; a value's). */
typedef void ydoc_aliasing_fn(void *arg, const struct ydoc_at *at,
			      const struct ydoc_aliasing *x);

/* A node go-yaml's decoder refuses where it is written (ydoc_check()):
 * n a key that is a list or a map (resolved NULL: "invalid map key"),
 * or a scalar, key (key 1) or not, whose tag does not fit its text
 * (resolve.go: "cannot decode !!RESOLVED `TEXT` as a !!TAG"), tag and
 * resolved the standard tags without their prefix ("int", "str"), or
 * (base64 1, tag "binary", resolved NULL) a !!binary whose text is not
 * base64 (decode.go: "!!binary value contains invalid base64 data"). */
struct ydoc_refusal {
	const struct ynode *n;
	int key;
	const char *tag, *resolved;
	int base64;
	/* or, tag and resolved NULL, what sigs.k8s.io/yaml refuses once
	 * go-yaml has read the document (YAMLToJSON(), kubectl): a key
	 * null ("nil") or an int past int64 ("uint64": "Unsupported map
	 * key of type"), a value JSON cannot hold ("+Inf", "-Inf", "NaN":
	 * "json: unsupported value") */
	const char *json;
};

/* Whether n is a scalar whose tag go-yaml's decoder refuses for its text
 * (ydoc_refusal's resolved, or base64): ydoc_check() tells it wherever
 * it is written, so the checks of one object say nothing more of it (one
 * finding a problem).  Costs a parse of its text. */
int ydoc_tag_refused(const struct ynode *n);

/* What sigs.k8s.io/yaml refuses in scalar n as a key ("nil", "uint64")
 * or a value ("+Inf", "-Inf", "NaN"; ydoc_refusal's json) once go-yaml
 * has read it, or NULL.  ydoc_check() tells it where go-yaml keeps it;
 * the checks of one object say nothing more of it. */
const char *ydoc_json_key(const struct ynode *n);
const char *ydoc_json_value(const struct ynode *n);

/* A refusal x at at->path (at->line: n's, or for a key that is an
 * alias, having no line of its own, its value's or its map's). */
typedef void ydoc_refused_fn(void *arg, const struct ydoc_at *at,
			     const struct ydoc_refusal *x);

struct ydoc_check_fns {
	ydoc_checked_fn *checked;   /* NULL: no object is */
	ydoc_merge_fn *merge;       /* NULL: not told */
	ydoc_aliasing_fn *aliasing; /* NULL: not counted */
	ydoc_refused_fn *refused;   /* NULL: not told */
	void *arg;
};

/*
 * What go-yaml's decoder, so kubectl, refuses anywhere in document d,
 * where ydoc_read_*() reads it:
 * - each `<<` whose value is not a map or a list of maps written in place
 *   (ymerge_bad_fn's), told once, where its map is written (a map that
 *   aliases repeat is walked once), in the objects fns->checked does not
 *   claim;
 * - each key that is a list or a map, and each scalar whose tag does not
 *   fit its text, a !!binary that is not base64 too (ydoc_refusal), told
 *   once, where it is written (a key that is an alias is written as a
 *   key there), in every object (what lint_object() says of them does
 *   not say that kubectl refuses);
 * - each null key or key past int64, and each .inf, -.inf, .nan value
 *   (ydoc_refusal's json: sigs.k8s.io/yaml refuses them once go-yaml
 *   has read the document), told where written when go-yaml keeps the
 *   pair (ywalk_kept(): not when a later key or `<<` may replace it; a
 *   node an alias repeats judged where written only), in every object;
 *   not a stop of the decoder;
 * - aliases that expand past go-yaml v2's bound ("document contains
 *   excessive aliasing": more than 100 values read through aliases,
 *   more than 1,000 read, and a share of them read through aliases
 *   above 99 % up to 400,000 values, 10 % from 4,000,000, a line in
 *   between), told once, where the decoder passes it, in its order;
 *   unless it stops before for another refusal (a bad `<<`, a key that
 *   is a list or a map, a tag that does not fit its value, also within
 *   an alias the decoder meets before the node it names).  The values
 *   are counted as it reads them (every key and value, but `<<` keys
 *   and the lists of a `<<`; an alias is one more), an alias adding the
 *   count of its node, which is counted once, bottom up, where it is
 *   written: never expanded, so a billion values of aliases cost what
 *   the text does.  Counts saturate at 2^62.
 * The walks follow no alias and mark no node: they cost the document's
 * nodes and pairs twice (once without aliases), a parse of each tagged
 * scalar's text (twice with aliases), 3 KB, and with
 * fns->aliasing 16 bytes an anchor and a binary search of the anchors a
 * kid; for a List, 4 bytes an item.  0, or -1 out of memory (nothing or
 * part told).
 */
int ydoc_check(const struct ydoc *d, const struct ydoc_check_fns *fns);

#endif
