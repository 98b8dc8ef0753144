/*
 * httpd.h - staffer's HTTP endpoint for Prometheus: GET /metrics (stats.h
 * in the text format 0.0.4) and GET /healthz ("ok").  Anything else is
 * 404, a method other than GET or HEAD 405.
 *
 * libmicrohttpd (Debian's libmicrohttpd) serves it from a thread of this
 * module's own, run at a lower priority (nice HTTPD_NICE) so that under
 * contention for the CPU KEDA's calls come first, and scrapes never touch
 * the gRPC completion queue or the fetch thread.  Its clients cannot
 * starve it:
 *  - at most HTTPD_CONNECTIONS_MAX connections, HTTPD_PER_IP_MAX of one
 *    address;
 *  - a request must arrive whole within HTTPD_REQUEST_S of the
 *    connection's start (or of the previous answer on it), and its answer
 *    must be sent within HTTPD_RESPONSE_S: a client that trickles its
 *    headers, or reads a page byte by byte, is disconnected (counted in
 *    staffer_http_connections_closed_total);
 *  - an idle connection closes after HTTPD_TIMEOUT_S.
 * A page is at most HTTPD_PAGE_MAX bytes (stats_page() leaves out and
 * counts ScaledObjects beyond it: never a 500).  A page is rendered again
 * only when its last rendering is older than that rendering took, divided
 * by HTTPD_RENDER_SHARE, so scrapers, however many, cost at most that
 * share of a core in rendering; scrapes in between get the last page, and
 * a rendering reuses a freed page's buffer (no page's worth of memory
 * faulted in and given back each time).  At
 * most HTTPD_PAGES_MAX pages exist at once (one being sent to slow
 * readers while a newer one serves the rest).  Pages are sent at most at
 * HTTPD_SEND_RATE bytes a second after a burst of HTTPD_SEND_BURST: a
 * scrape beyond that waits, suspended, until its page's turn when that is
 * at most HTTPD_SEND_WAIT_MAX away, else that long and is then answered
 * 429 with Retry-After (counted in staffer_http_scrapes_limited_total).
 * A Prometheus scraping every 15 s, or two of them, never waits; scrapers
 * in a tight loop can neither keep a core busy copying pages nor asking
 * for them.
 */
#ifndef STAFFER_HTTPD_H
#define STAFFER_HTTPD_H

#include <stddef.h>

#include "fetch.h"
#include "stats.h"

#define HTTPD_ERR_MAX 256
#define HTTPD_PAGE_MAX (32u << 20)  /* bytes of a /metrics page, at most */
#define HTTPD_PAGES_MAX 2
#define HTTPD_RENDER_SHARE 0.02     /* of a core, for rendering pages */
#define HTTPD_SEND_RATE (8.0 * (1 << 20))   /* page bytes a second ... */
#define HTTPD_SEND_BURST (2.0 * HTTPD_PAGE_MAX) /* ... after this burst */
#define HTTPD_SEND_WAIT_MAX 5.0     /* s a scrape may wait for its turn */
#define HTTPD_CONNECTIONS_MAX 64
#define HTTPD_PER_IP_MAX 8
#define HTTPD_REQUEST_S 5.0
#define HTTPD_RESPONSE_S 30.0
#define HTTPD_TIMEOUT_S 10
#define HTTPD_NICE 10

struct httpd;

/* 0 when addr has the form httpd_start() takes, else -1 with err. */
int httpd_check_addr(const char *addr, char err[HTTPD_ERR_MAX]);

/*
 * Listen on addr (":port" for every address, IPv4 and IPv6, or
 * "a.b.c.d:port"; port 1..65535) and serve st and f's counters (f may be
 * NULL), which must outlive the endpoint.  Returns the endpoint, or NULL
 * with a sentence in err (bad address, port in use, out of memory, no
 * thread).
 */
struct httpd *httpd_start(const char *addr, struct stats *st,
			  struct fetch *f, char err[HTTPD_ERR_MAX]);

/* Stop listening, drop the scrapes in progress, join the thread, free.
 * NULL is fine. */
void httpd_stop(struct httpd *h);

#endif
