/*
 * unary.c - `staffer-load unary`: latency and throughput of unary calls
 * at fixed numbers in flight.
 *
 * For each --inflight level and each repetition, every --methods entry
 * gets one window in turn (health, GetMetrics, health, ...), so slow
 * drift of the machine hits them alike and their ratio is fair.  Every
 * object is asked once (GetMetrics and IsActive) before the first
 * window, so the windows measure answers from the cache when the
 * server's cacheTTLSeconds outlasts the run.
 */
#include <stdio.h>

#include "load.h"
#include "req.h"

int load_unary(struct lc *c, const struct load_opts *o)
{
	grpc_slice *metrics = NULL, *refs = NULL;
	grpc_slice health = req_health();
	struct load_window w;
	char labels[128];
	double ok = 0, errors = 0;
	int i, r, k, rc = -1;

	lat_init(&w.lat);
	metrics = load_pack(o->ns, "obj", o->objects, 1, NULL);
	refs = load_pack(o->ns, "obj", o->objects, 0, NULL);
	if (!metrics || !refs)
		goto out;
	if (o->warm) {
		load_progress("unary: warming %d objects", o->objects);
		load_pass(c, o, LC_GET_METRICS, metrics, (size_t)o->objects, 8,
			  &ok, &errors);
		load_pass(c, o, LC_IS_ACTIVE, refs, (size_t)o->objects, 8,
			  &ok, &errors);
	}
	printf("result warm objects=%d ok=%.0f errors=%.0f\n", o->objects, ok,
	       errors);
	for (i = 0; i < o->n_inflights; i++)
		for (r = 1; r <= o->reps; r++)
			for (k = 0; k < o->n_methods; k++) {
				enum lc_method m = (enum lc_method)o->methods[k];
				const grpc_slice *reqs =
					m == LC_HEALTH ? &health :
					m == LC_GET_METRICS ? metrics : refs;
				size_t n = m == LC_HEALTH ? 1 :
					   (size_t)o->objects;

				if (load_closed(c, o, m, reqs, n,
						o->inflights[i], &w))
					goto out;
				snprintf(labels, sizeof(labels),
					 "method=%s inflight=%d rep=%d",
					 lc_method_name(m), o->inflights[i], r);
				load_print_window("unary", labels, &w);
				load_progress("unary: %s, %d in flight, rep %d: "
					      "%.0f RPC/s", lc_method_name(m),
					      o->inflights[i], r,
					      w.ok / w.seconds);
			}
	rc = 0;
out:
	lat_release(&w.lat);
	load_unpack(metrics, o->objects);
	load_unpack(refs, o->objects);
	grpc_slice_unref(health);
	return rc;
}
