/*
 * httpd.c - see httpd.h.
 */
#include "httpd.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mono.h"
#include "num.h"

struct httpd {
	struct MHD_Daemon *d;
	struct stats *st;
	struct fetch *f;
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

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_len, void **con_cls)
{
	static const char text[] = "text/plain; charset=utf-8";
	struct httpd *h = cls;
	struct fetch_stats fs;
	struct MHD_Response *r;
	enum MHD_Result rc;
	char *buf;
	size_t n, size;

	(void)version;
	(void)upload;
	(void)con_cls;
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
	if (h->f)
		fetch_get_stats(h->f, &fs);
	/* Render, and again into a larger buffer if it grew meanwhile. */
	for (size = HTTPD_BODY_INITIAL;; size = n + HTTPD_BODY_INITIAL) {
		if (size > HTTPD_BODY_MAX)
			return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
				     text, "metrics larger than the cap\n", 28);
		buf = malloc(size);
		if (!buf)
			return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
				     text, "out of memory\n", 14);
		n = stats_render(h->st, h->f ? &fs : NULL, mono_now(), buf,
				 size);
		if (n < size)
			break;
		free(buf);
	}
	/* The response takes the buffer: no second copy of a large page. */
	r = MHD_create_response_from_buffer(n, buf, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(buf);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; version=0.0.4; charset=utf-8");
	rc = MHD_queue_response(conn, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return rc;
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
	struct MHD_OptionItem ops[] = {
		{ MHD_OPTION_CONNECTION_LIMIT, HTTPD_CONNECTIONS_MAX, NULL },
		{ MHD_OPTION_CONNECTION_TIMEOUT, HTTPD_TIMEOUT_S, NULL },
		{ MHD_OPTION_END, 0, NULL },     /* the address, when given */
		{ MHD_OPTION_END, 0, NULL },
	};
	struct sockaddr_in sin;
	struct httpd *h;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
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
	/* IPV4:PORT binds that address; ":port" IPv6 and IPv4 on one socket
	 * where the host has IPv6, else IPv4 alone */
	ops[2].value = 0;
	ops[2].ptr_value = &sin;
	ops[2].option = any ? MHD_OPTION_END : MHD_OPTION_SOCK_ADDR;
	if (any)
		h->d = MHD_start_daemon(flags | MHD_USE_DUAL_STACK,
					ntohs(sin.sin_port), NULL, NULL,
					on_request, h, MHD_OPTION_ARRAY, ops,
					MHD_OPTION_END);
	if (!h->d)
		h->d = MHD_start_daemon(flags, ntohs(sin.sin_port), NULL,
					NULL, on_request, h, MHD_OPTION_ARRAY,
					ops, MHD_OPTION_END);
	if (!h->d) {
		snprintf(err, HTTPD_ERR_MAX, "metrics address '%.64s': cannot "
			 "listen (in use, or not an address of this host)",
			 addr);
		free(h);
		return NULL;
	}
	return h;
}

void httpd_stop(struct httpd *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d);
	free(h);
}
