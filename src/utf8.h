/*
 * utf8.h - UTF-8 as RFC 3629 has it, for text that must stay valid
 * whatever bytes reach it (log.c's escapes, stats.c's label values).
 * Pure; thread-safe.
 */
#ifndef STAFFER_UTF8_H
#define STAFFER_UTF8_H

#include <stddef.h>

/* The length (1 to 4) of the valid UTF-8 sequence at s, which has n >= 1
 * bytes left; 0 when it is not one (a stray continuation byte, an overlong
 * form, a surrogate, beyond U+10FFFF, or cut short by n). */
size_t utf8_len(const unsigned char *s, size_t n);

#endif
