/* show.c - see show.h. */
#include "show.h"

#include <string.h>

void show_text(char *dst, size_t max, const char *src, size_t srclen)
{
	size_t i, n = srclen < max ? srclen : max;

	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)src[i];

		dst[i] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
	}
	if (srclen > n) {
		memcpy(dst + n, "...", 3);
		n += 3;
	}
	dst[n] = '\0';
}

void show_escaped(char *dst, size_t max, const char *src, size_t srclen)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0, n;
	char piece[4];

	for (i = 0; src && i < srclen && src[i]; i++) {
		unsigned char c = (unsigned char)src[i];

		n = 2;
		piece[0] = '\\';
		if (c == '\n') {
			piece[1] = 'n';
		} else if (c == '\t') {
			piece[1] = 't';
		} else if (c == '\r') {
			piece[1] = 'r';
		} else if (c < 0x20 || c >= 0x7f) {
			piece[1] = 'x';
			piece[2] = hex[c >> 4];
			piece[3] = hex[c & 0xf];
			n = 4;
		} else {
			piece[0] = (char)c;
			n = 1;
		}
		if (o + n > max) {
			memcpy(dst + o, "...", 3);
			o += 3;
			break;
		}
		memcpy(dst + o, piece, n);
		o += n;
	}
	dst[o] = '\0';
}

const char *show_json_kind(const cJSON *it)
{
	if (!it)
		return "missing";
	if (cJSON_IsString(it))
		return "a string";
	if (cJSON_IsNumber(it))
		return "a number";
	if (cJSON_IsObject(it))
		return "an object";
	if (cJSON_IsArray(it))
		return "an array";
	if (cJSON_IsBool(it))
		return "a boolean";
	if (cJSON_IsNull(it))
		return "null";
	return "not a JSON value";
}
