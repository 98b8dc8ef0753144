/*
 * show.h - untrusted text made safe to quote in a message.
 *
 * Config files, metadata and backend replies end up in error messages,
 * logs and gRPC status details.  show_text() keeps them one line long and
 * free of terminal escapes.  Pure; thread-safe.
 */
#ifndef STAFFER_SHOW_H
#define STAFFER_SHOW_H

#include <stddef.h>

#include <cjson/cJSON.h>

/*
 * Copy src (srclen bytes; NULs allowed) into dst: at most max bytes, every
 * byte that is not printable ASCII as '?', and a cut marked with "...".
 * dst must hold max + 4 bytes; it is always NUL-terminated.
 */
void show_text(char *dst, size_t max, const char *src, size_t srclen);

/*
 * Like show_text, but keeps the bytes recognisable: \n, \t and \r stay
 * escapes and other bytes outside printable ASCII become \xNN (what a user
 * typed into YAML can then be found again).  Stops at srclen bytes or a
 * NUL; at most max characters before the "...".  dst holds max + 4.
 */
void show_escaped(char *dst, size_t max, const char *src, size_t srclen);

/* What a JSON value is, for "expected X, got Y": "a string", "a number",
 * "an object", "an array", "a boolean", "null"; "missing" for NULL. */
const char *show_json_kind(const cJSON *it);

#endif
