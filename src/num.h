/*
 * num.h - the project's strict number parser.
 *
 * A number is the whole string: a finite decimal ("3", "-0.5", "1e3",
 * ".5"), at most NUM_MAXLEN bytes, no spaces around it, no hex, no "nan"
 * or "inf", no trailing junk.  The syntax is checked here, locale-free,
 * before strtod()/strtol() convert; strtod() assumes the C locale's
 * LC_NUMERIC (staffer never calls setlocale()), and under another locale a
 * value fails cleanly instead of being misread, because the whole string
 * must convert.
 *
 * Pure: no allocation, no state; thread-safe.  On error *out is untouched.
 */
#ifndef STAFFER_NUM_H
#define STAFFER_NUM_H

/* Longest number string read.  Far more digits than a double holds; it
 * bounds the work spent on a hostile value. */
#define NUM_MAXLEN 64

/* Why a string is not the number wanted. */
enum num_why {
	NUM_OK = 0,
	NUM_EMPTY,
	NUM_SPACE,
	NUM_LONG,
	NUM_HEX,
	NUM_NONFINITE,
	NUM_SYNTAX,
	NUM_RANGE,      /* overflows the type (or, for callers, their range) */
	NUM_FRACTION,   /* a whole number was wanted: "3.0", "3e0" */
};

/* Read s (not NULL) as a double; "-0" reads as 0. */
enum num_why num_read_double(const char *s, double *out);

/* Read s (not NULL) as a whole number in a long. */
enum num_why num_read_long(const char *s, long *out);

/* What is wrong, worded to follow the quoted value in a message ("is not
 * a number"); static storage. */
const char *num_why_text(enum num_why r);

/* The same as 0 on success, -1 otherwise (s may be NULL: -1). */
int num_parse_double(const char *s, double *out);
int num_parse_long(const char *s, long *out);

#endif
