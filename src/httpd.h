/*
 * httpd.h - staffer's HTTP endpoint for Prometheus: GET /metrics (stats.h
 * in the text format 0.0.4) and GET /healthz ("ok").  Anything else is
 * 404, a method other than GET or HEAD 405.
 *
 * libmicrohttpd (Debian's libmicrohttpd) runs it on its own thread, so a
 * slow scraper never touches the gRPC completion queue or the fetch
 * thread; scrapes are rendered one at a time on that thread, each into a
 * buffer of at most HTTPD_BODY_MAX that the response then owns (the
 * STATS_TARGETS_MAX ScaledObjects of stats.h fit).
 * Connections are limited (HTTPD_CONNECTIONS_MAX) and time out after
 * HTTPD_TIMEOUT_S idle seconds.
 */
#ifndef STAFFER_HTTPD_H
#define STAFFER_HTTPD_H

#include <stddef.h>

#include "fetch.h"
#include "stats.h"

#define HTTPD_ERR_MAX 256
#define HTTPD_BODY_INITIAL (64 * 1024)
#define HTTPD_BODY_MAX (80 * 1024 * 1024)  /* a scrape, at most */
#define HTTPD_CONNECTIONS_MAX 32
#define HTTPD_TIMEOUT_S 10

struct httpd;

/* 0 when addr has the form httpd_start() takes, else -1 with err. */
int httpd_check_addr(const char *addr, char err[HTTPD_ERR_MAX]);

/*
 * Listen on addr (":port" for every address, IPv4 and IPv6, or
 * "a.b.c.d:port"; port 1..65535) and serve st and f's counters (f may be
 * NULL), which must outlive the endpoint.  Returns the endpoint, or NULL
 * with a sentence in err (bad address, port in use, out of memory).
 */
struct httpd *httpd_start(const char *addr, struct stats *st,
			  struct fetch *f, char err[HTTPD_ERR_MAX]);

/* Stop listening, finish or drop the scrapes in progress, free.  NULL is
 * fine. */
void httpd_stop(struct httpd *h);

#endif
