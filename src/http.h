/*
 * http.h - what every staffer HTTP request shares (backend queries in
 * fetch.c, AWS credential refreshes in awscred.c): the libcurl settings,
 * so both get the same limits, and the bounded in-memory response body.
 * Setup and buffers only; no I/O of its own.
 */
#ifndef STAFFER_HTTP_H
#define STAFFER_HTTP_H

#include <curl/curl.h>
#include <stddef.h>

/* A response body in memory: buf[len] is NUL, len <= max.  Grows as it
 * arrives (servers need not announce a length); a body over max stops
 * the transfer and sets too_big. */
struct http_body {
	char *buf;                  /* NULL until the first byte */
	size_t len, cap, max;
	int too_big;
};

/* Empty b for a new transfer of at most max bytes (keeps its buffer). */
void http_body_reset(struct http_body *b, size_t max);

/* Free b's buffer; b is then empty.  Fine on an empty body. */
void http_body_release(struct http_body *b);

/*
 * Set on easy: the URL; the body into *body (a body over body->max is
 * refused as soon as it is announced, or while it arrives); errbuf
 * (CURL_ERROR_SIZE bytes) for curl's detail; a timeout of timeout_s for
 * the whole transfer; http and https only; no signals (threads); user
 * agent "staffer".  body must stay put until the transfer ends.
 */
void http_easy_setup(CURL *easy, const char *url, struct http_body *body,
		     char *errbuf, double timeout_s);

#endif
