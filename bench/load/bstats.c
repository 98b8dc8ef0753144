/* bstats.c - see bstats.h. */
#include "bstats.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BSTATS_BODY_MAX 1024
#define BSTATS_URL_MAX 512

struct bstats_buf {
	char text[BSTATS_BODY_MAX];
	size_t len;
};

static size_t bstats_write(char *p, size_t size, size_t n, void *arg)
{
	struct bstats_buf *b = arg;
	size_t len = size * n;

	if (len > sizeof(b->text) - 1 - b->len)
		return 0;             /* more than a stats page: an error */
	memcpy(b->text + b->len, p, len);
	b->len += len;
	b->text[b->len] = '\0';
	return len;
}

/* GET base + path into b.  0 on a 200 answer. */
static int bstats_fetch(const char *base, const char *path,
			struct bstats_buf *b)
{
	char url[BSTATS_URL_MAX];
	CURL *h = curl_easy_init();
	long code = 0;
	int rc = -1;

	b->len = 0;
	b->text[0] = '\0';
	if (!h)
		return -1;
	snprintf(url, sizeof(url), "%s%s", base, path);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, bstats_write);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, b);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 5000L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	if (curl_easy_perform(h) == CURLE_OK &&
	    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK &&
	    code == 200)
		rc = 0;
	curl_easy_cleanup(h);
	return rc;
}

/* The number after "name " in text, or -1. */
static double bstats_field(const char *text, const char *name)
{
	size_t len = strlen(name);
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, name, len) && p[len] == ' ')
			return strtod(p + len + 1, NULL);
	return -1;
}

int bstats_get(const char *base, struct bstats *out)
{
	struct bstats_buf b;

	memset(out, 0, sizeof(*out));
	if (!base || bstats_fetch(base, "/-/stats", &b))
		return -1;
	out->requests = bstats_field(b.text, "requests");
	out->keys = bstats_field(b.text, "keys");
	out->used = bstats_field(b.text, "used");
	out->max = bstats_field(b.text, "max");
	out->slow = bstats_field(b.text, "slow");
	if (out->requests < 0 || out->keys < 0 || out->used < 0 ||
	    out->max < 0 || out->slow < 0) {
		memset(out, 0, sizeof(*out));
		return -1;
	}
	return 0;
}

int bstats_reset(const char *base)
{
	struct bstats_buf b;

	return base ? bstats_fetch(base, "/-/reset", &b) : -1;
}
