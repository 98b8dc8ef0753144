/*
 * ydoc_int.h - internal to the YAML modules, ydoc.c and ycheck.c: what
 * ydoc.c, which reads documents and types their scalars, lends
 * ycheck.c, which judges whole documents as go-yaml decodes them (go-yaml
 * v2's scalar resolution, the merge walks' judgement of a `<<`, the
 * objects of a List).  Not for the rest of staffer, whose YAML API is
 * ydoc.h and ycheck.h.
 *
 * Defined in ydoc.c.  No globals but a constant table; no allocation
 * beyond a copy of a scalar's text, freed before returning.
 */
#ifndef STAFFER_YDOC_INT_H
#define STAFFER_YDOC_INT_H

#include <stddef.h>
#include <stdint.h>

#include "ydoc.h"

/* A standard tag's name after its prefix ("int" for tag:yaml.org,2002:int,
 * written !!int), or NULL for any other tag and for NULL. */
const char *ytag_std(const char *tag);

/* go-yaml v2's fixed words that read as a float (resolve.go's table:
 * .nan, .inf and -.inf, and their other cases), NULL-terminated, for
 * ydoc_word_in(). */
extern const char *const ygo_floats[];

/* Go's strconv.ParseInt(s, base, 64), then ParseUint(s, base, 64), as
 * resolve.go tries them on text without its underscores: a sign (not for
 * ParseUint), then for base 0 0x, 0o, 0b or a leading 0 (octal) or
 * decimal digits; at least one digit.  1: an int64, 2: only a uint64, 0:
 * neither (bad digits, or past 2^64 - 1).  value (NULL: not wanted)
 * gets the number on 1 (the int64 as two's complement) and 2. */
int ygo_int(const char *s, unsigned base, uint64_t *value);

/*
 * A tagged scalar go-yaml v2's decoder refuses: resolve() (resolve.go,
 * v2.4.0) reads text under a tag it checks (!!bool, !!int, !!float,
 * !!null, !!timestamp; any other, !!str, !!binary, !!merge and local
 * tags, it takes as it is) as an untagged plain scalar would be read,
 * quoted or not, and fails ("cannot decode !!RESOLVED `TEXT` as a
 * !!TAG") when that is another type, but for an int under !!float (one
 * of int64's; a larger one it refuses).  Under !!timestamp only a
 * timestamp fits (gostd_timestamp()): text that starts as a date (YYYY-)
 * and is not one resolves to a string.  Returns RESOLVED ("str", "int",
 * "float", "bool", "null"), or NULL when the tag fits, or when there is
 * no memory to tell.  !!binary is not judged here (its text is base64:
 * ycheck.c's ybinary_bad()).  tag: a scalar's in full, as ytag() gives it
 * (NULL: none, which fits); text: its len bytes.
 */
const char *ytag_misfit(const char *tag, const char *text, size_t len);

/* The items of d's root when it is a `kind: List` (a list), as kubectl
 * reads one: one level, a List in a List not looked into; else NULL.
 * d->n > 0. */
const struct ynode *ydoc_list_items(const struct ydoc *d);

/* What go-yaml refuses in v, the value of a `<<` (decode.go's merge():
 * "map merge requires map or sequence of maps as the value"): v itself,
 * *item -1, when it is neither a map nor a list written in place (an
 * alias to a list is YN_ALIAS: ydoc.c's ydoc_alias()); else the first
 * item of the list that is not a map, *item its index (an alias to a map
 * is that map, which go-yaml takes).  NULL when v is a map or a list of
 * maps (an empty one too). */
const struct ynode *ymerge_bad(const struct ydoc *d,
			       const struct ynode *v, long *item);

#endif
