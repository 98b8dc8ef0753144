/*
 * gostd.h - what Go's standard library makes of a YAML scalar's text on
 * kubectl's way from YAML to JSON (sigs.k8s.io/yaml's YAMLToJSON: go-yaml
 * v2, then encoding/json), for the two tags whose text go-yaml hands to
 * it: `!!timestamp` (time.Parse) and `!!binary` (encoding/base64).  Read
 * by ydoc.c, which types a scalar as kubectl reads it, and ycheck.c,
 * which tells what go-yaml refuses.
 *
 * A valid `!!timestamp` is kept by go-yaml, decoding into interface{}, as
 * the text written (decode.go keeps n.value "for backward
 * compatibility"), so kubectl sends that text; a valid `!!binary` is the
 * decoded bytes, which encoding/json sends as a string with U+FFFD for
 * each byte that is not part of valid UTF-8.
 *
 * Pure: no allocation, no state; thread-safe.
 */
#ifndef STAFFER_GOSTD_H
#define STAFFER_GOSTD_H

#include <stddef.h>

/*
 * Whether go-yaml v2's parseTimestamp() (resolve.go) takes the len bytes
 * of s: text that starts with four digits and '-', which Go's time.Parse
 * takes in one of allowedTimestampFormats ("2006-1-2T15:4:5.999999999Z07:00",
 * the same with a 't', "2006-1-2 15:4:5.999999999", "2006-1-2").  As Go
 * 1.23's time.Parse: a month and a day of one or two digits, the day
 * within its month (February 29 in leap years); an hour, minute and
 * second of one or two digits below 24, 60 and 60; one or more spaces
 * for the space; a fraction of any number of digits after '.' or ','; a
 * zone 'Z' or [+-]HH:MM, HH at most 24 and MM at most 60.  (Go 1.19 took
 * at most 9 digits of fraction, and any zone hour and minute, a sign
 * within them too.)  A NUL in s is a character no format takes.
 */
int gostd_timestamp(const char *s, size_t len);

/*
 * Go's base64.StdEncoding.DecodeString() of the len bytes of s, as
 * go-yaml decodes a `!!binary`: the standard alphabet, '\r' and '\n'
 * skipped anywhere, '=' padding required to a multiple of 4 characters
 * and nothing but newlines after it, bits left over by the last
 * character ignored.  Anything else (a space, a character outside the
 * alphabet, a short last quantum) is refused: go-yaml's "!!binary value
 * contains invalid base64 data".  The bytes go to out (at most len / 4 *
 * 3 of them), their count to *n; out NULL: only checked, n may be NULL.
 * Returns 0, or -1 when Go refuses s (out and *n then unspecified).
 */
int gostd_base64(const char *s, size_t len, unsigned char *out, size_t *n);

/* The n bytes of s as encoding/json writes them in a string: valid UTF-8
 * kept, each other byte U+FFFD (3 bytes), as Go's encoder replaces what
 * utf8.DecodeRuneInString() reads as RuneError of width 1.  Written to
 * out, which holds the length returned (at most 3 * n; out NULL: only
 * counted), not NUL-terminated. */
size_t gostd_json_text(const unsigned char *s, size_t n, char *out);

#endif
