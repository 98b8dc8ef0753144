/*
 * httpd.c - see httpd.h.
 *
 * libmicrohttpd runs without a thread of its own: this module's thread
 * drives it with MHD_run_wait(), and every callback (requests, the
 * connections' start and end, pages being read and freed) runs on that
 * thread, so nothing here needs a lock.  After each round the thread
 * closes the connections past their deadline (httpd.h) with shutdown(2):
 * libmicrohttpd then sees the socket end and drops the connection itself,
 * telling us before it closes the descriptor, on this same thread.
 */
#include "httpd.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mono.h"
#include "num.h"

#define HTTPD_WAIT_MS 100          /* longest wait: deadlines and stop */
#define HTTPD_BLOCK 65536          /* bytes of a page handed out at once */

/* A rendered page, shared by the responses that send it. */
struct page {
	char *buf;
	size_t len, size;          /* the page, and its buffer's size */
	int refs;                  /* responses, and 1 while it is current */
};

/* One connection (libmicrohttpd's socket context). */
struct hconn {
	struct hconn *prev, *next;
	struct MHD_Connection *conn;
	int fd;
	double since;              /* start of its wait or of its answer */
	unsigned answered;         /* requests answered on it */
	int serving, closing;
	/* a scrape waiting for the send budget (send_take()) */
	int suspended, resumed, granted;
	double resume_at, retry_s;
};

struct httpd {
	struct MHD_Daemon *d;
	struct stats *st;
	struct fetch *f;
	pthread_t thread;
	atomic_int stop;
	struct hconn *conns;
	struct page *page;         /* the newest, or NULL */
	size_t pages;              /* pages alive */
	double rendered_at, render_s;
	char *spare;               /* a freed page's buffer, for the next */
	size_t spare_size;
	double tokens, tokens_at;  /* bytes of pages that may be sent now
				    * (negative: owed to scrapes waiting) */
	int stopping;
};

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status,
			     const char *ctype, const char *body, size_t len)
{
	struct MHD_Response *r;
	enum MHD_Result rc;

	r = MHD_create_response_from_buffer(len, (void *)body,
					    MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	rc = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return rc;
}

/* ---- pages ---------------------------------------------------------------- */

static void page_unref(struct httpd *h, struct page *p)
{
	if (!p || --p->refs > 0)
		return;
	/* the buffer serves the next rendering (no page's worth of fresh
	 * memory faulted in, nor given back, at each one), unless another
	 * page still needs its own */
	if (!h->spare && h->pages <= HTTPD_PAGES_MAX - 1) {
		h->spare = p->buf;
		h->spare_size = p->size;
	} else {
		free(p->buf);
	}
	free(p);
	h->pages--;
}

/* The response's reader and its end (libmicrohttpd's callbacks): cls is
 * a struct page_ref. */
struct page_ref {
	struct httpd *h;
	struct page *p;
};

static ssize_t page_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct page_ref *r = cls;
	size_t n;

	if (pos >= r->p->len)
		return MHD_CONTENT_READER_END_OF_STREAM;
	n = r->p->len - (size_t)pos;
	if (n > max)
		n = max;
	memcpy(buf, r->p->buf + pos, n);
	return (ssize_t)n;
}

static void page_done(void *cls)
{
	struct page_ref *r = cls;

	page_unref(r->h, r->p);
	free(r);
}

/*
 * The page to send now: the current one while it is younger than its
 * rendering took divided by HTTPD_RENDER_SHARE, or while HTTPD_PAGES_MAX
 * pages are alive; else a new one.  NULL only when there is none and
 * none can be made (out of memory).
 */
static struct page *page_now(struct httpd *h)
{
	struct fetch_stats fs;
	struct page *p;
	double now = mono_now(), t0;
	size_t alive = h->pages - (h->page && h->page->refs == 1);

	if (h->page && (now - h->rendered_at < h->render_s /
			HTTPD_RENDER_SHARE || alive >= HTTPD_PAGES_MAX))
		return h->page;
	p = calloc(1, sizeof(*p));
	if (!p)
		return h->page;
	if (h->f)
		fetch_get_stats(h->f, &fs);
	t0 = mono_now();
	p->buf = h->spare;
	p->size = h->spare_size;
	h->spare = NULL;
	h->spare_size = 0;
	p->len = stats_page(h->st, h->f ? &fs : NULL, now, HTTPD_PAGE_MAX,
			    &p->buf, &p->size);
	if (p->len == (size_t)-1) {
		free(p->buf);
		free(p);
		return h->page;
	}
	h->render_s = mono_now() - t0;
	h->rendered_at = now;
	p->refs = 1;
	h->pages++;
	page_unref(h, h->page);
	h->page = p;
	return p;
}

/*
 * Take len bytes of the send budget: pages go out at most at
 * HTTPD_SEND_RATE bytes a second after a burst of HTTPD_SEND_BURST (a
 * token bucket), so scrapers in a tight loop cannot keep a core busy
 * copying pages.  Returns 0 when the bytes are taken now; else the
 * seconds until they would be, and *granted: 1 when they are taken now
 * as a debt (a wait of at most HTTPD_SEND_WAIT_MAX: the scrape waits,
 * then gets the page), 0 when not (it waits HTTPD_SEND_WAIT_MAX, then is
 * told to come back).
 */
static double send_take(struct httpd *h, size_t len, int *granted)
{
	double now = mono_now(), wait;

	h->tokens += (now - h->tokens_at) * HTTPD_SEND_RATE;
	h->tokens_at = now;
	if (h->tokens > HTTPD_SEND_BURST)
		h->tokens = HTTPD_SEND_BURST;
	*granted = 1;
	if (h->tokens >= (double)len) {
		h->tokens -= (double)len;
		return 0;
	}
	wait = ((double)len - h->tokens) / HTTPD_SEND_RATE;
	if (wait <= HTTPD_SEND_WAIT_MAX)
		h->tokens -= (double)len;
	else
		*granted = 0;
	return wait;
}

/* 429 with Retry-After: come back in about retry_s seconds. */
static enum MHD_Result send_limited(struct httpd *h,
				    struct MHD_Connection *conn, double retry_s)
{
	static const char text[] = "text/plain; charset=utf-8";
	struct MHD_Response *resp;
	enum MHD_Result rc;
	char msg[128], after[16];
	int n;

	stats_http(h->st, STATS_HTTP_LIMITED);
	if (!(retry_s > 0))
		retry_s = 0;
	n = snprintf(msg, sizeof(msg), "scraped too often: pages are sent at "
		     "most at %u MiB/s; retry in %.0f s\n",
		     (unsigned)(HTTPD_SEND_RATE / (1 << 20)), retry_s + 1);
	snprintf(after, sizeof(after), "%.0f", retry_s + 1);
	resp = MHD_create_response_from_buffer((size_t)n, msg,
					       MHD_RESPMEM_MUST_COPY);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, text);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, after);
	rc = MHD_queue_response(conn, MHD_HTTP_TOO_MANY_REQUESTS, resp);
	MHD_destroy_response(resp);
	return rc;
}

static enum MHD_Result send_page(struct httpd *h, struct MHD_Connection *conn)
{
	static const char text[] = "text/plain; charset=utf-8";
	struct page *p;
	struct page_ref *r;
	struct MHD_Response *resp;
	enum MHD_Result rc;

	p = page_now(h);
	if (!p)
		return reply(conn, MHD_HTTP_SERVICE_UNAVAILABLE, text,
			     "out of memory\n", 14);
	r = malloc(sizeof(*r));
	if (!r)
		return reply(conn, MHD_HTTP_SERVICE_UNAVAILABLE, text,
			     "out of memory\n", 14);
	r->h = h;
	r->p = p;
	p->refs++;
	resp = MHD_create_response_from_callback(p->len, HTTPD_BLOCK,
						 page_read, r, page_done);
	if (!resp) {
		page_done(r);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; version=0.0.4; charset=utf-8");
	rc = MHD_queue_response(conn, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return rc;
}

/* ---- connections ---------------------------------------------------------- */

static struct hconn *conn_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *i =
		MHD_get_connection_info(conn,
					MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return i ? i->socket_context : NULL;
}

static void on_connection(void *cls, struct MHD_Connection *conn,
			  void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct httpd *h = cls;
	struct hconn *c = *socket_context;
	const union MHD_ConnectionInfo *i;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		i = MHD_get_connection_info(conn,
					    MHD_CONNECTION_INFO_CONNECTION_FD);
		c = calloc(1, sizeof(*c));
		if (!c)
			return;      /* untracked: MHD's idle timeout only */
		c->fd = i ? i->connect_fd : -1;
		c->conn = conn;
		c->since = mono_now();
		c->next = h->conns;
		if (h->conns)
			h->conns->prev = c;
		h->conns = c;
		*socket_context = c;
		return;
	}
	if (!c)
		return;
	/* before libmicrohttpd closes the descriptor (the watchdog must
	 * not shut down a reused one) */
	if (c->prev)
		c->prev->next = c->next;
	else
		h->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	free(c);
	*socket_context = NULL;
}

static void on_completed(void *cls, struct MHD_Connection *conn,
			 void **con_cls, enum MHD_RequestTerminationCode toe)
{
	struct hconn *c = conn_of(conn);

	(void)cls;
	(void)con_cls;
	(void)toe;
	if (!c)
		return;
	c->serving = 0;
	c->answered++;
	c->since = mono_now();
}

/* Close the connections past their deadline (httpd.h). */
static void watchdog(struct httpd *h, double now)
{
	struct hconn *c;

	for (c = h->conns; c; c = c->next) {
		double limit = c->serving ? HTTPD_RESPONSE_S : HTTPD_REQUEST_S;

		if (c->suspended && now >= c->resume_at) {
			/* its page's turn, or time to tell it to come back:
			 * libmicrohttpd calls on_request() again */
			c->suspended = 0;
			c->resumed = 1;
			MHD_resume_connection(c->conn);
			continue;
		}
		if (c->suspended || c->closing || c->fd < 0 ||
		    now - c->since <= limit)
			continue;
		c->closing = 1;
		shutdown(c->fd, SHUT_RDWR);
		/* an idle keep-alive connection is no client's fault */
		if (c->serving || !c->answered)
			stats_http(h->st, c->serving ?
				   STATS_HTTP_SLOW_RESPONSE :
				   STATS_HTTP_SLOW_REQUEST);
	}
}

/* ---- requests --------------------------------------------------------------- */

/*
 * GET /metrics on connection conn (c: its state, NULL when untracked):
 * the page when the send budget has it now; else the scrape waits
 * (suspended, without a thread or a poll of its own) until it has, or
 * HTTPD_SEND_WAIT_MAX and then 429: a scraper in a tight loop asks once
 * per wait, not thousands of times.
 */
static enum MHD_Result scrape(struct httpd *h, struct hconn *c,
			      struct MHD_Connection *conn)
{
	double wait;
	int granted;

	if (h->stopping)
		return MHD_NO;
	if (c && c->resumed) {
		c->resumed = 0;
		return c->granted ? send_page(h, conn) :
		       send_limited(h, conn, c->retry_s);
	}
	/* the last page's size stands for the next: a scrape told to wait
	 * costs no rendering */
	wait = send_take(h, h->page ? h->page->len : 0, &granted);
	if (wait <= 0)
		return send_page(h, conn);
	if (!c)
		return granted ? send_page(h, conn) :
		       send_limited(h, conn, wait);
	c->granted = granted;
	c->retry_s = wait - HTTPD_SEND_WAIT_MAX;
	c->resume_at = mono_now() + (granted ? wait : HTTPD_SEND_WAIT_MAX);
	c->suspended = 1;
	MHD_suspend_connection(conn);
	return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_len, void **con_cls)
{
	static const char text[] = "text/plain; charset=utf-8";
	struct httpd *h = cls;
	struct hconn *c = conn_of(conn);

	(void)version;
	(void)upload;
	(void)con_cls;
	if (c && !c->serving) {
		c->serving = 1;
		c->since = mono_now();
	}
	if (*upload_len)             /* no bodies: drop what came */
		*upload_len = 0;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, text,
			     "only GET and HEAD\n", 18);
	if (!strcmp(url, "/healthz"))
		return reply(conn, MHD_HTTP_OK, text, "ok\n", 3);
	if (strcmp(url, "/metrics"))
		return reply(conn, MHD_HTTP_NOT_FOUND, text,
			     "not found; try /metrics\n", 24);
	return scrape(h, c, conn);
}

/* ---- the thread ----------------------------------------------------------- */

static void *httpd_main(void *arg)
{
	struct httpd *h = arg;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	int nice;

	/* This thread only: KEDA's calls come first when the CPU is
	 * short (Linux sets a thread's nice value by its id). */
	nice = getpriority(PRIO_PROCESS, (id_t)tid);
	if (nice < HTTPD_NICE)
		setpriority(PRIO_PROCESS, (id_t)tid, HTTPD_NICE);
	while (!atomic_load(&h->stop)) {
		MHD_run_wait(h->d, HTTPD_WAIT_MS);
		watchdog(h, mono_now());
	}
	return NULL;
}

/* ":port" or "a.b.c.d:port" into *sin (family set) or, for ":port",
 * *any = 1.  0, or -1 with err. */
static int parse_addr(const char *addr, struct sockaddr_in *sin, int *any,
		      char err[HTTPD_ERR_MAX])
{
	const char *colon = addr ? strrchr(addr, ':') : NULL;
	char host[64];
	long port;
	size_t hl;

	memset(sin, 0, sizeof(*sin));
	*any = 0;
	if (!colon || num_parse_long(colon + 1, &port) || port < 1 ||
	    port > 65535)
		goto bad;
	hl = (size_t)(colon - addr);
	if (hl >= sizeof(host))
		goto bad;
	memcpy(host, addr, hl);
	host[hl] = '\0';
	sin->sin_family = AF_INET;
	sin->sin_port = htons((unsigned short)port);
	if (!hl) {
		*any = 1;
		return 0;
	}
	if (inet_pton(AF_INET, host, &sin->sin_addr) == 1)
		return 0;
bad:
	snprintf(err, HTTPD_ERR_MAX, "metrics address '%.64s': allowed: "
		 ":PORT (every address) or IPV4:PORT, port 1 to 65535, e.g. "
		 ":9091", addr ? addr : "");
	return -1;
}

int httpd_check_addr(const char *addr, char err[HTTPD_ERR_MAX])
{
	struct sockaddr_in sin;
	int any;

	return parse_addr(addr, &sin, &any, err);
}

struct httpd *httpd_start(const char *addr, struct stats *st,
			  struct fetch *f, char err[HTTPD_ERR_MAX])
{
	struct sockaddr_in sin;
	struct httpd *h;
	unsigned flags = MHD_USE_AUTO | MHD_ALLOW_SUSPEND_RESUME;
	int any;

	if (parse_addr(addr, &sin, &any, err))
		return NULL;
	h = calloc(1, sizeof(*h));
	if (!h) {
		snprintf(err, HTTPD_ERR_MAX, "out of memory");
		return NULL;
	}
	h->st = st;
	h->f = f;
	h->tokens = HTTPD_SEND_BURST;
	h->tokens_at = mono_now();
	atomic_init(&h->stop, 0);
	{
		struct MHD_OptionItem ops[] = {
			{ MHD_OPTION_CONNECTION_LIMIT, HTTPD_CONNECTIONS_MAX,
			  NULL },
			{ MHD_OPTION_PER_IP_CONNECTION_LIMIT, HTTPD_PER_IP_MAX,
			  NULL },
			{ MHD_OPTION_CONNECTION_TIMEOUT, HTTPD_TIMEOUT_S,
			  NULL },
			{ MHD_OPTION_NOTIFY_CONNECTION,
			  (intptr_t)on_connection, h },
			{ MHD_OPTION_NOTIFY_COMPLETED,
			  (intptr_t)on_completed, h },
			/* the address, when given */
			{ any ? MHD_OPTION_END : MHD_OPTION_SOCK_ADDR, 0,
			  &sin },
			{ MHD_OPTION_END, 0, NULL },
		};

		/* IPV4:PORT binds that address; ":port" IPv6 and IPv4 on one
		 * socket where the host has IPv6, else IPv4 alone */
		if (any)
			h->d = MHD_start_daemon(flags | MHD_USE_DUAL_STACK,
						ntohs(sin.sin_port), NULL, NULL,
						on_request, h, MHD_OPTION_ARRAY,
						ops, MHD_OPTION_END);
		if (!h->d)
			h->d = MHD_start_daemon(flags, ntohs(sin.sin_port),
						NULL, NULL, on_request, h,
						MHD_OPTION_ARRAY, ops,
						MHD_OPTION_END);
	}
	if (!h->d) {
		snprintf(err, HTTPD_ERR_MAX, "metrics address '%.64s': cannot "
			 "listen (in use, or not an address of this host)",
			 addr);
		free(h);
		return NULL;
	}
	if (pthread_create(&h->thread, NULL, httpd_main, h)) {
		snprintf(err, HTTPD_ERR_MAX, "metrics: cannot start a thread");
		MHD_stop_daemon(h->d);
		free(h);
		return NULL;
	}
	return h;
}

void httpd_stop(struct httpd *h)
{
	struct hconn *c;

	if (!h)
		return;
	atomic_store(&h->stop, 1);
	pthread_join(h->thread, NULL);
	/* on this thread now: the connections' callbacks run here.  A
	 * suspended connection must be resumed before the daemon stops
	 * (microhttpd.h); on_request() then answers nothing. */
	h->stopping = 1;
	for (c = h->conns; c; c = c->next)
		if (c->suspended) {
			c->suspended = 0;
			MHD_resume_connection(c->conn);
		}
	MHD_stop_daemon(h->d);
	page_unref(h, h->page);
	free(h->spare);
	free(h);
}
