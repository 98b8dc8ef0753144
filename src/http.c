/*
 * http.c - see http.h.
 */
#include "http.h"

#include <stdlib.h>
#include <string.h>

#define HTTP_BODY_FIRST 4096       /* bytes of the first allocation */

void http_body_reset(struct http_body *b, size_t max)
{
	b->len = 0;
	b->max = max;
	b->too_big = 0;
	if (b->buf)
		b->buf[0] = '\0';
}

void http_body_release(struct http_body *b)
{
	free(b->buf);
	b->buf = NULL;
	b->len = b->cap = 0;
}

/* CURLOPT_WRITEFUNCTION: append to the http_body in userp. */
static size_t http_body_write(char *data, size_t size, size_t nmemb,
			      void *userp)
{
	struct http_body *b = userp;
	size_t len = size * nmemb;

	if (len > b->max || b->len > b->max - len) {
		b->too_big = 1;
		return 0;
	}
	if (b->len + len + 1 > b->cap) {
		size_t ncap = b->cap ? b->cap : HTTP_BODY_FIRST;
		char *nb;

		while (ncap < b->len + len + 1)
			ncap *= 2;
		nb = realloc(b->buf, ncap);
		if (!nb)
			return 0;
		b->buf = nb;
		b->cap = ncap;
	}
	memcpy(b->buf + b->len, data, len);
	b->len += len;
	b->buf[b->len] = '\0';
	return len;
}

void http_easy_setup(CURL *easy, const char *url, struct http_body *body,
		     char *errbuf, double timeout_s)
{
	curl_easy_setopt(easy, CURLOPT_URL, url);
	curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, http_body_write);
	curl_easy_setopt(easy, CURLOPT_WRITEDATA, body);
	curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, (long)(timeout_s * 1000));
	curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(easy, CURLOPT_USERAGENT, "staffer");
	curl_easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE,
			 (curl_off_t)body->max);
}
