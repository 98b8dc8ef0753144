/*
 * ascii.h - character classes and case folding for ASCII text, whatever
 * the locale.
 *
 * Everything staffer reads (metadata, PromQL, JSON, YAML, TZ strings,
 * schedules, flags) is defined over ASCII bytes, so <ctype.h>, whose
 * answers depend on LC_CTYPE, is the wrong tool even though staffer never
 * calls setlocale().  Each helper takes a byte as an int (pass unsigned
 * char values, as <ctype.h> wants) and is false for every byte >= 0x80
 * and for EOF.
 *
 * Pure: no state; thread-safe.
 */
#ifndef STAFFER_ASCII_H
#define STAFFER_ASCII_H

static inline int ascii_is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static inline int ascii_is_lower(int c)
{
	return c >= 'a' && c <= 'z';
}

static inline int ascii_is_upper(int c)
{
	return c >= 'A' && c <= 'Z';
}

static inline int ascii_is_alpha(int c)
{
	return ascii_is_lower(c) || ascii_is_upper(c);
}

static inline int ascii_is_alnum(int c)
{
	return ascii_is_alpha(c) || ascii_is_digit(c);
}

/* isspace() in the C locale: space, \t, \n, \v, \f, \r. */
static inline int ascii_is_space(int c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* JSON's whitespace (RFC 8259): space, \t, \n, \r; not \v or \f. */
static inline int ascii_is_json_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* 'A'-'Z' to 'a'-'z'; every other byte as it is. */
static inline int ascii_fold(int c)
{
	return ascii_is_upper(c) ? c - 'A' + 'a' : c;
}

#endif
