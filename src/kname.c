/*
 * kname.c - see kname.h.
 */
#include "kname.h"

#include <stdio.h>
#include <string.h>

#include "ascii.h"

static const char *const kname_rule[] = {
	[KNAME_LABEL] = "a DNS-1123 label is 1 to 63 of a-z, 0-9 and '-', "
			"starting and ending with a letter or digit",
	[KNAME_SUBDOMAIN] = "a DNS-1123 subdomain is 1 to 253 of a-z, 0-9, "
			    "'-' and '.', each dot-separated part starting and "
			    "ending with a letter or digit",
};

static int kname_fail(enum kname_kind kind, char why[KNAME_WHY_MAX],
		      const char *what, size_t at, unsigned char c)
{
	if (at)
		snprintf(why, KNAME_WHY_MAX, "character %zu %s (byte 0x%02x); "
			 "%s", at, what, c, kname_rule[kind]);
	else
		snprintf(why, KNAME_WHY_MAX, "%s; %s", what, kname_rule[kind]);
	return -1;
}

int kname_check(enum kname_kind kind, const char *s, char why[KNAME_WHY_MAX])
{
	size_t n = strlen(s), max, i;
	int sub = kind == KNAME_SUBDOMAIN;

	max = sub ? KNAME_SUBDOMAIN_MAX : KNAME_LABEL_MAX;
	if (n == 0)
		return kname_fail(kind, why, "is empty", 0, 0);
	if (n > max) {
		char what[48];

		snprintf(what, sizeof(what), "is %zu bytes long", n);
		return kname_fail(kind, why, what, 0, 0);
	}
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		int edge = i == 0 || i == n - 1 ||
			   (sub && (s[i - 1] == '.' || s[i + 1] == '.'));

		if (ascii_is_lower(c) || ascii_is_digit(c))
			continue;
		if (c == '-' && !edge)
			continue;
		if (c == '.' && sub && !edge)
			continue;
		return kname_fail(kind, why, c == '-' || (c == '.' && sub) ?
				  "starts or ends a part with a '-' or '.'" :
				  "is not allowed", i + 1, c);
	}
	return 0;
}
