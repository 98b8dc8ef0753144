/*
 * jsonnul.c - where JSON text holds the escape \u0000 (jsonnul.h).
 */
#include "jsonnul.h"

#include <string.h>

size_t jsonnul_find(const char *text, size_t len)
{
	size_t i, k;

	if (!text)
		return len;
	for (i = 1; i + 5 <= len; i++) {
		if (text[i] != 'u' || text[i - 1] != '\\' ||
		    memcmp(text + i + 1, "0000", 4))
			continue;
		for (k = 1; k <= i && text[i - k] == '\\'; k++)
			;
		if ((k - 1) % 2 == 1)
			return i - 1;
	}
	return len;
}
