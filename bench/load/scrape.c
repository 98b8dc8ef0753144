/*
 * scrape.c - `staffer-load scrape`: how much scraping /metrics slows
 * GetMetrics (issue 23: never more than 1.5x at the 99th percentile).
 *
 * --objects ScaledObjects with Kubernetes' longest names (a 63-byte
 * namespace, 253-byte names) are asked once, so that staffer shows each
 * on /metrics (a page of some 75 MB in all, which staffer cuts to its
 * page size).  Then, --reps times, two windows of --seconds of GetMetrics
 * at --inflight in flight over those objects (answers from the cache):
 * one without scrapers and one with --scrapers threads fetching
 * --metrics-url in a loop (libcurl, the body counted and dropped), the
 * order alternating from one repetition to the next.  Result lines: one
 * per window ("result scrape mode=off|on rep=R ..." as every window),
 * then "result scrape_ratio p99_ratio=.. p50_ratio=.. pages=.. limited=..
 * failed=.. bytes=.." with the medians of the windows' p99 and p50, with
 * over without, and the scrapes answered 200, 429 (staffer's rate limit)
 * and otherwise.
 *
 * The scrapers run at nice --scraper-nice (default 0): on a machine
 * where they share the cores with staffer (this benchmark's, not a
 * cluster's, where Prometheus runs elsewhere) their own work competes
 * with staffer's; 19 measures staffer's cost alone.
 */
#include <curl/curl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "load.h"
#include "req.h"

#define SCRAPERS_MAX 64

struct scrapers {
	const char *url;
	int nice;
	atomic_int stop;
	atomic_ulong pages, limited, failed;
	atomic_ullong bytes;
};

static size_t drop_body(char *p, size_t size, size_t n, void *arg)
{
	struct scrapers *s = arg;

	(void)p;
	atomic_fetch_add(&s->bytes, (unsigned long long)(size * n));
	return size * n;
}

static void *scraper_main(void *arg)
{
	struct scrapers *s = arg;
	CURL *e = curl_easy_init();
	long code = 0;

	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), s->nice);
	if (!e)
		return NULL;
	curl_easy_setopt(e, CURLOPT_URL, s->url);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, drop_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(e, CURLOPT_TIMEOUT, 30L);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	while (!atomic_load(&s->stop)) {
		code = 0;
		if (curl_easy_perform(e) != CURLE_OK ||
		    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code) !=
		    CURLE_OK)
			code = 0;
		if (code == 200)
			atomic_fetch_add(&s->pages, 1);
		else if (code == 429)        /* told to wait: staffer's limit */
			atomic_fetch_add(&s->limited, 1);
		else
			atomic_fetch_add(&s->failed, 1);
	}
	curl_easy_cleanup(e);
	return NULL;
}

/* n long-named objects of namespace ns (63 bytes), packed. */
static grpc_slice *pack_long(int n, const char *ns)
{
	grpc_slice *reqs = calloc((size_t)(n > 0 ? n : 1), sizeof(*reqs));
	char name[254], query[64];
	int i;

	if (!reqs)
		return NULL;
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	for (i = 0; i < n; i++) {
		char head[16];
		int k = snprintf(head, sizeof(head), "s%07d", i);

		memcpy(name, head, (size_t)k);
		snprintf(query, sizeof(query), "scrape_rate_%d", i);
		reqs[i] = req_metrics(ns, name, query, (unsigned long)i);
	}
	return reqs;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : 0;
}

int load_scrape(struct lc *c, const struct load_opts *o)
{
	char ns[64], labels[96];
	struct scrapers s;
	pthread_t th[SCRAPERS_MAX];
	struct load_window w;
	grpc_slice *reqs;
	double p99[2][100], p50[2][100], ok = 0, errors = 0;
	int inflight = o->n_inflights ? o->inflights[0] : 8;
	int nscr = o->scrapers < SCRAPERS_MAX ? o->scrapers : SCRAPERS_MAX;
	int r, k, i, rc = -1, n[2] = { 0, 0 };

	if (!o->metrics_url) {
		fprintf(stderr, "staffer-load: scrape needs --metrics-url\n");
		return -1;
	}
	memset(ns, 'n', sizeof(ns) - 1);
	ns[sizeof(ns) - 1] = '\0';
	memcpy(ns, "scrape-", 7);
	lat_init(&w.lat);
	reqs = pack_long(o->objects, ns);
	if (!reqs)
		return -1;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	memset(&s, 0, sizeof(s));
	s.url = o->metrics_url;
	s.nice = o->scraper_nice;
	load_progress("scrape: asking %d objects once", o->objects);
	load_pass(c, o, LC_GET_METRICS, reqs, (size_t)o->objects, 16, &ok,
		  &errors);
	printf("result warm objects=%d ok=%.0f errors=%.0f\n", o->objects, ok,
	       errors);
	for (r = 0; r < o->reps && r < 100; r++)
		for (k = 0; k < 2; k++) {
			int on = (k + r) % 2;

			if (on) {
				atomic_store(&s.stop, 0);
				for (i = 0; i < nscr; i++)
					if (pthread_create(&th[i], NULL,
							   scraper_main, &s))
						break;
				nscr = i;
			}
			if (load_closed(c, o, LC_GET_METRICS, reqs,
					(size_t)o->objects, inflight, &w))
				goto out;
			if (on) {
				atomic_store(&s.stop, 1);
				for (i = 0; i < nscr; i++)
					pthread_join(th[i], NULL);
			}
			snprintf(labels, sizeof(labels), "mode=%s rep=%d "
				 "scrapers=%d", on ? "on" : "off", r + 1,
				 on ? nscr : 0);
			p99[on][n[on]] = lat_quantile(&w.lat, 0.99);
			p50[on][n[on]++] = lat_quantile(&w.lat, 0.5);
			load_print_window("scrape", labels, &w);
		}
	printf("result scrape_ratio p99_ratio=%.3f p50_ratio=%.3f "
	       "p99_off_ms=%.3f p99_on_ms=%.3f pages=%lu limited=%lu "
	       "failed=%lu bytes=%llu scrapers=%d scraper_nice=%d\n",
	       median(p99[1], n[1]) / median(p99[0], n[0]),
	       median(p50[1], n[1]) / median(p50[0], n[0]),
	       median(p99[0], n[0]) * 1e3, median(p99[1], n[1]) * 1e3,
	       (unsigned long)atomic_load(&s.pages),
	       (unsigned long)atomic_load(&s.limited),
	       (unsigned long)atomic_load(&s.failed),
	       (unsigned long long)atomic_load(&s.bytes), nscr,
	       o->scraper_nice);
	rc = 0;
out:
	lat_release(&w.lat);
	load_unpack(reqs, o->objects);
	return rc;
}
