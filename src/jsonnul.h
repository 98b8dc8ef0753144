/*
 * jsonnul.h - where JSON text holds the escape \u0000.
 *
 * cJSON decodes \u0000 to a NUL byte inside the string it makes, and
 * every reader of that string as a C string stops there: a Prometheus
 * value "1\u0000junk" reads as 1, a config URL or header value is cut
 * short without a word.  staffer's JSON inputs (Prometheus replies, the
 * config file) never need one, so their readers refuse text that holds
 * it, before parsing.
 *
 * Pure: no allocation, no state; thread-safe.
 */
#ifndef STAFFER_JSONNUL_H
#define STAFFER_JSONNUL_H

#include <stddef.h>

/* The offset in text (len bytes, not NUL-terminated, may hold NULs) of
 * the backslash of the first \u0000 escape: a backslash run of odd
 * length before "u0000" (an escaped backslash before "u0000" is text).
 * len when there is none. */
size_t jsonnul_find(const char *text, size_t len);

#endif
