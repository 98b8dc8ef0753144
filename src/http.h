/*
 * http.h - the libcurl settings every staffer request shares (backend
 * queries in fetch.c, AWS credential refreshes in awscred.c), so that
 * both get the same limits.  Pure setup; no I/O.
 */
#ifndef STAFFER_HTTP_H
#define STAFFER_HTTP_H

#include <curl/curl.h>
#include <stddef.h>

/*
 * Set on easy: the URL; the body to on_body(data) (a body over max_body
 * bytes is refused as soon as it is announced; on_body must still cap
 * what it keeps); errbuf (CURL_ERROR_SIZE bytes) for curl's detail; a
 * timeout of timeout_s for the whole transfer; http and https only; no
 * signals (threads); user agent "staffer".
 */
void http_easy_setup(CURL *easy, const char *url,
		     curl_write_callback on_body, void *data, char *errbuf,
		     double timeout_s, size_t max_body);

#endif
