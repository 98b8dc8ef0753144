/*
 * trace.c - see trace.h.
 */
#include "trace.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients.h"
#include "csv.h"
#include "num.h"
#include "show.h"
#include "simsort.h"

#define TRACE_SHOW_MAX 40   /* characters of a field quoted in an error */

void trace_init(struct trace *t)
{
	memset(t, 0, sizeof(*t));
}

void trace_free(struct trace *t)
{
	free(t->req);
	trace_init(t);
}

/* Room for one more request; -1 at TRACE_REQ_MAX or out of memory. */
static int trace_grow(struct trace *t)
{
	struct trace_req *r;
	size_t cap;

	if (t->n < t->cap)
		return 0;
	if (t->cap >= TRACE_REQ_MAX)
		return -1;
	cap = t->cap ? t->cap * 2 : 4096;
	if (cap > TRACE_REQ_MAX)
		cap = TRACE_REQ_MAX;
	r = realloc(t->req, cap * sizeof(*r));
	if (!r)
		return -1;
	t->req = r;
	t->cap = cap;
	return 0;
}

static int trace_add(struct trace *t, double at, long in, long out,
		     double svc)
{
	struct trace_req *q;

	if (trace_grow(t))
		return -1;
	q = &t->req[t->n];
	q->arrival_s = at;
	q->service_s = svc;
	q->input_tokens = (int32_t)in;
	q->output_tokens = (int32_t)out;
	q->seq = (uint32_t)t->n;
	t->n++;
	return 0;
}

static int trace_cmp(const void *a, const void *b)
{
	const struct trace_req *x = a, *y = b;

	if (x->arrival_s != y->arrival_s)
		return x->arrival_s < y->arrival_s ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sort by arrival (ties in creation order) and renumber. */
/* The radix sort (simsort.h) by arrival: stable, and seq is the index
 * until the first sort, so (arrival, seq) order as trace_cmp's.  -1 when
 * out of memory (t unchanged). */
static int trace_sort_fast(struct trace *t)
{
	double *key = malloc(t->n * sizeof(*key));
	uint32_t *perm = malloc(t->n * sizeof(*perm));
	struct trace_req *req = malloc(t->cap * sizeof(*req));
	size_t i;
	int rc = -1;

	if (!key || !perm || !req)
		goto out;
	for (i = 0; i < t->n; i++)
		key[i] = t->req[i].arrival_s;
	if (simsort_order(key, t->n, perm))
		goto out;
	for (i = 0; i < t->n; i++)
		req[i] = t->req[perm[i]];
	free(t->req);
	t->req = req;
	req = NULL;
	rc = 0;
out:
	free(key);
	free(perm);
	free(req);
	return rc;
}

static void trace_sort(struct trace *t)
{
	size_t i;
	int sorted = 1;

	for (i = 1; i < t->n && sorted; i++)
		if (trace_cmp(&t->req[i - 1], &t->req[i]) > 0)
			sorted = 0;
	if (!sorted && trace_sort_fast(t))
		qsort(t->req, t->n, sizeof(t->req[0]), trace_cmp);
	for (i = 0; i < t->n; i++)
		t->req[i].seq = (uint32_t)i;
}

static void trace_oom(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s: too many requests (at most %u) or out "
		 "of memory", what, TRACE_REQ_MAX);
}

/* ---- CSV ---------------------------------------------------------------- */

#define TRACE_FIELDS_MAX 8

int trace_load_csv(struct trace *t, const char *path, char *err,
		   size_t errlen)
{
	static const char *const cols[] = {
		"arrival_s", "input_tokens", "output_tokens", "service_s",
	};
	char line[TRACE_LINE_MAX + 1], shown[TRACE_SHOW_MAX + 4];
	char *f[TRACE_FIELDS_MAX + 1];
	size_t nf, i, lineno = 1, want;
	enum csv_line lr;
	FILE *fp;
	int rc = -1;

	trace_free(t);
	fp = fopen(path, "r");
	if (!fp) {
		snprintf(err, errlen, "trace '%s': %s", path, strerror(errno));
		return -1;
	}
	lr = csv_line(fp, line, sizeof(line));
	if (lr == CSV_LINE_EOF) {
		snprintf(err, errlen, "trace '%s': empty file; expected a "
			 "header arrival_s,input_tokens,output_tokens"
			 "[,service_s]", path);
		goto out;
	}
	if (lr != CSV_LINE_OK)
		goto bad_header;
	nf = csv_split(line, f, TRACE_FIELDS_MAX);
	if (nf < 3 || nf > 4)
		goto bad_header;
	for (i = 0; i < nf; i++)
		if (strcmp(csv_trim(f[i]), cols[i]))
			goto bad_header;
	want = nf;
	t->has_service = nf == 4;
	while ((lr = csv_line(fp, line, sizeof(line))) != CSV_LINE_EOF) {
		double at, svc = -1.0;
		long in, outt;

		lineno++;
		if (lr != CSV_LINE_OK) {
			csv_line_error(err, errlen, "trace", path, lineno,
				       lr, TRACE_LINE_MAX);
			goto out;
		}
		if (!csv_trim(line)[0])
			continue;
		nf = csv_split(line, f, TRACE_FIELDS_MAX);
		if (nf != want) {
			snprintf(err, errlen, "trace '%s' line %zu: %s%zu "
				 "fields, the header has %zu", path, lineno,
				 nf > TRACE_FIELDS_MAX ? "more than " : "",
				 nf > TRACE_FIELDS_MAX ? nf - 1 : nf, want);
			goto out;
		}
		for (i = 0; i < nf; i++)
			f[i] = csv_trim(f[i]);
		if (num_parse_double(f[0], &at) || at < 0 ||
		    at > TRACE_TIME_MAX) {
			show_escaped(shown, TRACE_SHOW_MAX, f[0], strlen(f[0]));
			snprintf(err, errlen, "trace '%s' line %zu: arrival_s "
				 "'%s' is not a number from 0 to %g "
				 "seconds", path, lineno, shown,
				 TRACE_TIME_MAX);
			goto out;
		}
		if (num_parse_long(f[1], &in) || in < 0 ||
		    in > TRACE_TOKENS_MAX) {
			show_escaped(shown, TRACE_SHOW_MAX, f[1], strlen(f[1]));
			snprintf(err, errlen, "trace '%s' line %zu: "
				 "input_tokens '%s' is not a whole number "
				 "from 0 to %ld", path, lineno, shown,
				 TRACE_TOKENS_MAX);
			goto out;
		}
		if (num_parse_long(f[2], &outt) || outt < 0 ||
		    outt > TRACE_TOKENS_MAX) {
			show_escaped(shown, TRACE_SHOW_MAX, f[2], strlen(f[2]));
			snprintf(err, errlen, "trace '%s' line %zu: "
				 "output_tokens '%s' is not a whole number "
				 "from 0 to %ld", path, lineno, shown,
				 TRACE_TOKENS_MAX);
			goto out;
		}
		if (want == 4 && (num_parse_double(f[3], &svc) ||
				  svc <= 0 || svc > TRACE_SERVICE_MAX)) {
			show_escaped(shown, TRACE_SHOW_MAX, f[3], strlen(f[3]));
			snprintf(err, errlen, "trace '%s' line %zu: service_s "
				 "'%s' is not a number above 0 and up to "
				 "%g seconds", path, lineno, shown,
				 TRACE_SERVICE_MAX);
			goto out;
		}
		if (trace_add(t, at, in, outt, svc)) {
			trace_oom(err, errlen, path);
			goto out;
		}
	}
	if (ferror(fp)) {
		snprintf(err, errlen, "trace '%s': read error", path);
		goto out;
	}
	if (t->n == 0) {
		snprintf(err, errlen, "trace '%s': no requests after the "
			 "header", path);
		goto out;
	}
	trace_sort(t);
	t->span_s = t->req[t->n - 1].arrival_s;
	rc = 0;
	goto out;
bad_header:
	snprintf(err, errlen, "trace '%s': header must be "
		 "arrival_s,input_tokens,output_tokens or "
		 "arrival_s,input_tokens,output_tokens,service_s", path);
out:
	fclose(fp);
	if (rc)
		trace_free(t);
	return rc;
}

/* ---- Poisson processes -------------------------------------------------- */

static long trace_tokens(struct simrng *r, double mean)
{
	double x;

	if (!(mean > 0))
		return 0;
	x = floor(simrng_lognormal(r, mean, 1.0) + 0.5);
	if (x < 1)
		x = 1;
	if (x > (double)TRACE_TOKENS_MAX)
		x = (double)TRACE_TOKENS_MAX;
	return (long)x;
}

/* ---- rate files ---------------------------------------------------------- */

#define TRACE_WINDOWS_MAX 1000000

/* The columns a rate file must start with, and the two more that
 * describe its clients (clients.h). */
#define TRACE_RATES_HEADER "window_start_s,total_rate_rps,active_clients"
#define TRACE_RATES_MIX ",top_client_share,rate_weighted_cv"

/* Poisson arrivals on [x0, x1) whose rate goes linearly from y0 to y1
 * (req/s), by thinning. */
static int trace_ramp(struct trace *t, double x0, double x1, double y0,
		      double y1, double in_mean, double out_mean,
		      struct simrng *r)
{
	double peak = y0 > y1 ? y0 : y1, at = x0;

	if (!(peak > 0) || !(x1 > x0))
		return 0;
	for (;;) {
		at += simrng_exp(r, 1.0 / peak);
		if (at >= x1)
			return 0;
		if (simrng_uniform(r) * peak >
		    y0 + (y1 - y0) * (at - x0) / (x1 - x0))
			continue;
		if (trace_add(t, at, trace_tokens(r, in_mean),
			      trace_tokens(r, out_mean), -1.0))
			return -1;
	}
}

/* A window's clients as the rate file has them (clients.h). */
struct trace_mix {
	double clients, top_share, cv;
};

struct trace_emit {
	struct trace *t;
	const struct trace_rates *o;
	struct simrng *r;
};

static int trace_emit(void *arg, double at)
{
	struct trace_emit *e = arg;

	return trace_add(e->t, at, trace_tokens(e->r, e->o->input_mean),
			 trace_tokens(e->r, e->o->output_mean), -1.0);
}

/* The total rate at x (compressed seconds from the first window used):
 * linear between the window midpoints mid[0..n), flat outside. */
static double trace_rate_at(const double *mid, const double *y, size_t n,
			    double x)
{
	size_t i;

	if (x <= mid[0])
		return y[0];
	for (i = 1; i < n; i++)
		if (x <= mid[i])
			return y[i - 1] + (y[i] - y[i - 1]) *
			       (x - mid[i - 1]) / (mid[i] - mid[i - 1]);
	return y[n - 1];
}

/* Windows [a, b) as clients: two segments a window (start to midpoint,
 * midpoint to end), each window's mix, fresh at every window start. */
static int trace_clients(struct trace *t, const double *ws, const double *wr,
			 const struct trace_mix *mix, size_t nw, size_t a,
			 size_t b, double len, const struct trace_rates *o,
			 struct simrng *r)
{
	struct trace_emit e = { t, o, r };
	struct clients c;
	double *mid = malloc((b - a) * sizeof(*mid));
	double *y = malloc((b - a) * sizeof(*y));
	size_t i;
	int rc = -1;

	clients_init(&c);
	if (!mid || !y)
		goto out;
	for (i = a; i < b; i++) {
		double w = i + 1 < nw ? ws[i + 1] - ws[i] : len;

		mid[i - a] = (ws[i] + w / 2 - ws[a]) / o->compress;
		y[i - a] = wr[i] * o->scale;
	}
	for (i = a; i < b; i++) {
		double w = i + 1 < nw ? ws[i + 1] - ws[i] : len;
		double x0 = (ws[i] - ws[a]) / o->compress;
		double x1 = (ws[i] + w - ws[a]) / o->compress;
		double xm = mid[i - a];
		struct clients_seg s;

		s.clients = mix[i].clients;
		s.top_share = mix[i].top_share;
		s.cv = mix[i].cv;
		s.x0 = x0;
		s.x1 = xm;
		s.y0 = trace_rate_at(mid, y, b - a, x0);
		s.y1 = y[i - a];
		s.fresh = 1;
		if (clients_seg(&c, &s, r, trace_emit, &e))
			goto out;
		s.x0 = xm;
		s.x1 = x1;
		s.y0 = y[i - a];
		s.y1 = trace_rate_at(mid, y, b - a, x1);
		s.fresh = 0;
		if (clients_seg(&c, &s, r, trace_emit, &e))
			goto out;
	}
	rc = 0;
out:
	clients_release(&c);
	free(mid);
	free(y);
	return rc;
}

/* The replay of nw windows (mix NULL: no clients' columns). */
static int trace_windows(struct trace *t, const double *ws, const double *rate,
			 const struct trace_mix *mix, size_t nw,
			 const struct trace_rates *o, struct simrng *r,
			 const char *what, char *err, size_t errlen)
{
	double *wr = NULL, end_orig, prev = -1, x, y, len;
	struct trace_mix *mm = NULL, pm = { 1, 1, 1 };
	size_t i, a, b;
	int rc = -1, have = 0;

	trace_free(t);
	if (!(o->compress > 0) || !(o->scale > 0) || !(o->start_s >= 0) ||
	    !(o->span_s >= 0)) {
		snprintf(err, errlen, "rate replay: compress and scale must "
			 "be > 0, start and span >= 0");
		return -1;
	}
	if (o->arrivals == TRACE_ARR_CLIENTS && !mix) {
		snprintf(err, errlen, "%s: replaying clients needs the "
			 "columns top_client_share and rate_weighted_cv",
			 what);
		return -1;
	}
	if (nw > TRACE_WINDOWS_MAX) {
		snprintf(err, errlen, "%s: more than %d windows", what,
			 TRACE_WINDOWS_MAX);
		return -1;
	}
	for (i = 0; i < nw; i++)
		if (!isfinite(ws[i]) || (i > 0 && !(ws[i] > ws[i - 1]))) {
			snprintf(err, errlen, "%s: window %zu starts at %g s, "
				 "not after %g s", what, i, ws[i],
				 i > 0 ? ws[i - 1] : -INFINITY);
			return -1;
		}
	end_orig = o->span_s > 0 ? o->start_s + o->span_s : INFINITY;
	wr = nw ? malloc(nw * sizeof(*wr)) : NULL;
	mm = nw && mix ? malloc(nw * sizeof(*mm)) : NULL;
	if (nw && (!wr || (mix && !mm)))
		goto oom;
	/* A gap takes the window before it (its rate, and its clients);
	 * gaps before any data take the first known window. */
	for (i = 0; i < nw; i++) {
		int gap = !(isfinite(rate[i]) && rate[i] >= 0);

		wr[i] = gap ? prev : rate[i];
		prev = wr[i];
		if (mm && !gap && !have) {
			pm = mix[i];    /* the first known window's */
			have = 1;
		}
	}
	for (i = nw; i > 0; i--)
		if (wr[i - 1] < 0)
			wr[i - 1] = i < nw ? wr[i] : 0;
	for (i = 0; mm && i < nw; i++) {
		if (isfinite(rate[i]) && rate[i] >= 0)
			pm = mix[i];
		mm[i] = pm;
	}
	for (a = 0; a < nw && ws[a] < o->start_s; a++)
		;
	for (b = a; b < nw && ws[b] < end_orig; b++)
		;
	if (b - a < 2) {
		snprintf(err, errlen, "%s: fewer than 2 windows "
			 "from %g s (span %g s)", what, o->start_s,
			 o->span_s);
		goto out;
	}
	/* Windows [a, b): window i covers [ws[i], ws[i+1]) (the last one
	 * as long as the one before it), mapped to (ws - ws[a]) /
	 * compress.  The rate is linear between window midpoints and flat
	 * before the first and after the last midpoint. */
	len = ws[b - 1] - ws[b - 2];
	if (mm && o->arrivals != TRACE_ARR_POISSON) {
		if (trace_clients(t, ws, wr, mm, nw, a, b, len, o, r))
			goto oom;
		t->from_clients = 1;
	} else {
		for (i = a; i < b; i++) {
			double w = i + 1 < nw ? ws[i + 1] - ws[i] : len;
			double mid = (ws[i] + w / 2 - ws[a]) / o->compress;

			x = i == a ? 0 : (ws[i - 1] + (ws[i] - ws[i - 1]) /
					  2 - ws[a]) / o->compress;
			y = i == a ? wr[i] : wr[i - 1];
			if (trace_ramp(t, x, mid, y * o->scale,
				       wr[i] * o->scale, o->input_mean,
				       o->output_mean, r))
				goto oom;
			if (i + 1 == b &&
			    trace_ramp(t, mid, (ws[i] + w - ws[a]) /
				       o->compress, wr[i] * o->scale,
				       wr[i] * o->scale, o->input_mean,
				       o->output_mean, r))
				goto oom;
		}
	}
	t->span_s = (ws[b - 1] + (b < nw ? ws[b] - ws[b - 1] : len) - ws[a]) /
		    o->compress;
	if (t->n == 0) {
		snprintf(err, errlen, "%s: no arrivals in the "
			 "windows used", what);
		goto out;
	}
	trace_sort(t);
	rc = 0;
	goto out;
oom:
	trace_oom(err, errlen, what);
out:
	free(wr);
	free(mm);
	if (rc)
		trace_free(t);
	return rc;
}

int trace_from_rates(struct trace *t, const double *ws, const double *rate,
		     size_t nw, const struct trace_rates *o,
		     struct simrng *r, const char *what, char *err,
		     size_t errlen)
{
	return trace_windows(t, ws, rate, NULL, nw, o, r, what, err, errlen);
}

int trace_load_rates(struct trace *t, const char *path,
		     const struct trace_rates *o, struct simrng *r,
		     char *err, size_t errlen)
{
	char what[TRACE_ERR_MAX];
	char line[TRACE_LINE_MAX + 1];
	char *f[TRACE_FIELDS_MAX + 1];
	enum csv_line lr;
	double *ws = NULL, *wr = NULL;
	struct trace_mix *mix = NULL;
	size_t nf, lineno = 1, nw = 0, capw = 0;
	int has_mix;
	FILE *fp;
	int rc = -1;

	trace_free(t);
	fp = fopen(path, "r");
	if (!fp) {
		snprintf(err, errlen, "rate file '%s': %s", path,
			 strerror(errno));
		return -1;
	}
	if (csv_line(fp, line, sizeof(line)) != CSV_LINE_OK ||
	    strncmp(line, TRACE_RATES_HEADER, strlen(TRACE_RATES_HEADER))) {
		snprintf(err, errlen, "rate file '%s': header must start "
			 "with " TRACE_RATES_HEADER, path);
		goto out;
	}
	has_mix = !strncmp(csv_trim(line) + strlen(TRACE_RATES_HEADER),
			   TRACE_RATES_MIX, strlen(TRACE_RATES_MIX));
	while ((lr = csv_line(fp, line, sizeof(line))) != CSV_LINE_EOF) {
		double start, rate, clients, top = 0, cv = 0;

		lineno++;
		if (lr != CSV_LINE_OK) {
			csv_line_error(err, errlen, "rate file", path,
				       lineno, lr, TRACE_LINE_MAX);
			goto out;
		}
		if (!csv_trim(line)[0])
			continue;
		nf = csv_split(line, f, TRACE_FIELDS_MAX);
		if (nf < 3 || nf > TRACE_FIELDS_MAX ||
		    num_parse_double(csv_trim(f[0]), &start) ||
		    num_parse_double(csv_trim(f[1]), &rate) ||
		    num_parse_double(csv_trim(f[2]), &clients) ||
		    start < 0 || start > 1e9 || rate < 0 || rate > 1e7 ||
		    clients < 0 || clients > 1e9) {
			snprintf(err, errlen, "rate file '%s' line %zu: "
				 "expected window_start_s from 0 to 1e9, "
				 "total_rate_rps from 0 to 1e7, "
				 "active_clients from 0 to 1e9", path,
				 lineno);
			goto out;
		}
		if (has_mix &&
		    (nf < 5 || num_parse_double(csv_trim(f[3]), &top) ||
		     num_parse_double(csv_trim(f[4]), &cv) || top < 0 ||
		     top > 1 || cv < 0 || cv > 1e6)) {
			snprintf(err, errlen, "rate file '%s' line %zu: "
				 "expected top_client_share from 0 to 1 and "
				 "rate_weighted_cv from 0 to 1e6", path,
				 lineno);
			goto out;
		}
		if (nw > 0 && start <= ws[nw - 1]) {
			snprintf(err, errlen, "rate file '%s' line %zu: "
				 "window_start_s %g is not after %g", path,
				 lineno, start, ws[nw - 1]);
			goto out;
		}
		/* A window where no client reports is a collection gap
		 * (trace_windows fills it). */
		if (rate == 0 && clients == 0)
			rate = -1;
		if (nw == capw) {
			size_t cap = capw ? capw * 2 : 1024;
			double *p1, *p2;
			struct trace_mix *p3;

			if (cap > TRACE_WINDOWS_MAX && capw < TRACE_WINDOWS_MAX)
				cap = TRACE_WINDOWS_MAX;   /* the last step */
			if (cap > TRACE_WINDOWS_MAX) {
				snprintf(err, errlen, "rate file '%s': more "
					 "than %d windows", path,
					 TRACE_WINDOWS_MAX);
				goto out;
			}
			p1 = realloc(ws, cap * sizeof(*ws));
			if (p1)
				ws = p1;
			p2 = realloc(wr, cap * sizeof(*wr));
			if (p2)
				wr = p2;
			p3 = realloc(mix, cap * sizeof(*mix));
			if (p3)
				mix = p3;
			if (!p1 || !p2 || !p3)
				goto oom;
			capw = cap;
		}
		ws[nw] = start;
		wr[nw] = rate;
		mix[nw].clients = clients;
		mix[nw].top_share = top;
		mix[nw].cv = cv;
		nw++;
	}
	if (ferror(fp)) {
		snprintf(err, errlen, "rate file '%s': read error", path);
		goto out;
	}
	snprintf(what, sizeof(what), "rate file '%s'", path);
	rc = trace_windows(t, ws, wr, has_mix ? mix : NULL, nw, o, r, what,
			   err, errlen);
	goto out;
oom:
	trace_oom(err, errlen, path);
out:
	free(ws);
	free(wr);
	free(mix);
	fclose(fp);
	if (rc)
		trace_free(t);
	return rc;
}

static const char *const trace_arrivals_names[] = {
	"auto", "poisson", "clients",
};

int trace_arrivals_parse(const char *s, enum trace_arrivals *out)
{
	size_t i;

	for (i = 0; i < 3; i++)
		if (!strcmp(s, trace_arrivals_names[i])) {
			*out = (enum trace_arrivals)i;
			return 0;
		}
	return -1;
}

const char *trace_arrivals_name(enum trace_arrivals a)
{
	return (size_t)a < 3 ? trace_arrivals_names[a] : "?";
}

/* ---- synthetic shapes --------------------------------------------------- */

static const char *const trace_shapes[] = {
	"poisson", "step", "surge", "diurnal", "onoff",
};

int trace_shape_parse(const char *s, enum trace_shape *out)
{
	size_t i;

	for (i = 0; i < sizeof(trace_shapes) / sizeof(trace_shapes[0]); i++)
		if (!strcmp(s, trace_shapes[i])) {
			*out = (enum trace_shape)i;
			return 0;
		}
	return -1;
}

const char *trace_shape_name(enum trace_shape s)
{
	if ((size_t)s < sizeof(trace_shapes) / sizeof(trace_shapes[0]))
		return trace_shapes[s];
	return "?";
}

double trace_shape_rate(const struct trace_synth *s, double t)
{
	double d = s->duration_s, l = s->rate, w;

	switch (s->shape) {
	case TRACE_POISSON:
		return l;
	case TRACE_STEP:
		return t >= d / 3 && t < 2 * d / 3 ? 3 * l : l;
	case TRACE_SURGE:
		w = d / 6 < 300 ? d / 6 : 300;
		return t >= 0.4 * d && t < 0.4 * d + w ? 4 * l : l;
	case TRACE_DIURNAL:
		return l * (1 - 0.8 * cos(2 * M_PI * t / d));
	case TRACE_ONOFF:
		return fmod(t, 240.0) < 120.0 ? 1.9 * l : 0.1 * l;
	}
	return l;
}

/* The largest rate the shape reaches (for thinning). */
static double trace_shape_peak(const struct trace_synth *s)
{
	switch (s->shape) {
	case TRACE_POISSON:
		return s->rate;
	case TRACE_STEP:
		return 3 * s->rate;
	case TRACE_SURGE:
		return 4 * s->rate;
	case TRACE_DIURNAL:
		return 1.8 * s->rate;
	case TRACE_ONOFF:
		return 1.9 * s->rate;
	}
	return s->rate;
}

int trace_synth(struct trace *t, const struct trace_synth *s,
		struct simrng *r, char *err, size_t errlen)
{
	double peak, at = 0;

	trace_free(t);
	if (!(s->rate > 0) || !(s->duration_s > 0) ||
	    s->duration_s > TRACE_TIME_MAX ||
	    s->rate * s->duration_s > (double)TRACE_REQ_MAX) {
		snprintf(err, errlen, "synthetic trace: rate (%g) and "
			 "duration (%g) must be > 0 with rate x duration up "
			 "to %u requests", s->rate, s->duration_s,
			 TRACE_REQ_MAX);
		return -1;
	}
	peak = trace_shape_peak(s);
	for (;;) {
		at += simrng_exp(r, 1.0 / peak);
		if (at >= s->duration_s)
			break;
		if (simrng_uniform(r) * peak > trace_shape_rate(s, at))
			continue;
		if (trace_add(t, at, trace_tokens(r, s->input_mean),
			      trace_tokens(r, s->output_mean), -1.0)) {
			trace_oom(err, errlen, "synthetic trace");
			trace_free(t);
			return -1;
		}
	}
	t->span_s = s->duration_s;
	return 0;
}

/* ---- transforms --------------------------------------------------------- */

int trace_transform(struct trace *t, int overlay, double speedup,
		    char *err, size_t errlen)
{
	size_t n0 = t->n, i;
	int k;

	if (overlay < 1 || overlay > 1000 || !(speedup > 0) ||
	    speedup > 1e6) {
		snprintf(err, errlen, "overlay must be 1 to 1000 and speedup "
			 "above 0 and up to 1e6");
		return -1;
	}
	if (overlay > 1 && !(t->span_s > 0)) {
		snprintf(err, errlen, "overlay needs a trace longer than 0 s");
		return -1;
	}
	if ((double)n0 * overlay > (double)TRACE_REQ_MAX) {
		trace_oom(err, errlen, "overlay");
		return -1;
	}
	for (k = 1; k < overlay; k++) {
		double shift = k * t->span_s / overlay;

		for (i = 0; i < n0; i++) {
			struct trace_req q = t->req[i];
			double at = fmod(q.arrival_s + shift, t->span_s);

			if (trace_add(t, at, q.input_tokens, q.output_tokens,
				      q.service_s)) {
				trace_oom(err, errlen, "overlay");
				return -1;
			}
		}
	}
	if (speedup != 1.0) {
		for (i = 0; i < t->n; i++)
			t->req[i].arrival_s /= speedup;
		t->span_s /= speedup;
	}
	trace_sort(t);
	return 0;
}

int trace_repeat(struct trace *t, int times, char *err, size_t errlen)
{
	size_t n0 = t->n, i;
	int k;

	if (times < 1 || times > TRACE_REPEAT_MAX) {
		snprintf(err, errlen, "repeat must be 1 to %d",
			 TRACE_REPEAT_MAX);
		return -1;
	}
	if (times > 1 && !(t->span_s > 0)) {
		snprintf(err, errlen, "repeat needs a trace longer than 0 s");
		return -1;
	}
	if (t->span_s * times > TRACE_TIME_MAX) {
		snprintf(err, errlen, "repeat: %d copies of %.0f s are longer "
			 "than a year", times, t->span_s);
		return -1;
	}
	if ((double)n0 * times > (double)TRACE_REQ_MAX) {
		trace_oom(err, errlen, "repeat");
		return -1;
	}
	for (k = 1; k < times; k++)
		for (i = 0; i < n0; i++) {
			struct trace_req q = t->req[i];

			if (trace_add(t, q.arrival_s + k * t->span_s,
				      q.input_tokens, q.output_tokens,
				      q.service_s)) {
				trace_oom(err, errlen, "repeat");
				return -1;
			}
		}
	t->span_s *= times;
	trace_sort(t);
	return 0;
}

/* ---- service times ------------------------------------------------------ */

static const char *const trace_services[] = {
	"auto", "column", "perf", "exp", "lognormal",
};

int trace_service_parse(const char *s, enum trace_service *out)
{
	size_t i;

	for (i = 0; i < sizeof(trace_services) / sizeof(trace_services[0]);
	     i++)
		if (!strcmp(s, trace_services[i])) {
			*out = (enum trace_service)i;
			return 0;
		}
	return -1;
}

const char *trace_service_name(enum trace_service s)
{
	if ((size_t)s < sizeof(trace_services) / sizeof(trace_services[0]))
		return trace_services[s];
	return "?";
}

int trace_set_service(struct trace *t, enum trace_service how,
		      const struct perf *p, double batch, double mean,
		      double cv, struct simrng *r, char *err, size_t errlen)
{
	size_t i;

	if (how == TRACE_SVC_AUTO)
		how = t->has_service ? TRACE_SVC_COLUMN : TRACE_SVC_PERF;
	if (how == TRACE_SVC_COLUMN && !t->has_service) {
		snprintf(err, errlen, "service 'column': the trace has no "
			 "service_s column; allowed: perf, exp, lognormal");
		return -1;
	}
	if ((how == TRACE_SVC_EXP || how == TRACE_SVC_LOGNORMAL) &&
	    (!(mean > 0) || mean > TRACE_SERVICE_MAX || !(cv >= 0) ||
	     cv > 100)) {
		snprintf(err, errlen, "service '%s' needs a mean above 0 and "
			 "up to %g s, and a CV from 0 to 100",
			 trace_service_name(how), TRACE_SERVICE_MAX);
		return -1;
	}
	if (how == TRACE_SVC_PERF && (!p || !(batch >= 1))) {
		snprintf(err, errlen, "service 'perf' needs a batch >= 1");
		return -1;
	}
	for (i = 0; i < t->n; i++) {
		struct trace_req *q = &t->req[i];
		double s = q->service_s;

		switch (how) {
		case TRACE_SVC_PERF:
			s = perf_service_s(p, q->input_tokens,
					   q->output_tokens, batch);
			break;
		case TRACE_SVC_EXP:
			s = simrng_exp(r, mean);
			break;
		case TRACE_SVC_LOGNORMAL:
			s = simrng_lognormal(r, mean, cv);
			break;
		default:
			break;
		}
		if (!(s >= TRACE_SERVICE_MIN))
			s = TRACE_SERVICE_MIN;
		if (s > TRACE_SERVICE_MAX)
			s = TRACE_SERVICE_MAX;
		q->service_s = s;
	}
	return 0;
}

double trace_work_s(const struct trace *t)
{
	double w = 0;
	size_t i;

	for (i = 0; i < t->n; i++)
		w += t->req[i].service_s;
	return w;
}

/* The first request arriving at or after x (t sorted). */
static size_t trace_lower(const struct trace *t, double x)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->req[mid].arrival_s < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

double trace_dispersion(const struct trace *t, double bin_s, double block_s)
{
	size_t nb = (size_t)floor(block_s / bin_s + 1e-9), used = 0, i = 0;
	double sum = 0, a;

	if (!(bin_s > 0) || nb < 2 || !(t->span_s > 0))
		return NAN;
	for (a = 0; a + block_s <= t->span_s + 1e-9; a += block_s) {
		double s1 = 0, s2 = 0, mean, var;
		size_t k;

		for (k = 0; k < nb; k++) {
			double lo = a + (double)k * bin_s, c = 0;

			while (i < t->n && t->req[i].arrival_s < lo + bin_s) {
				if (t->req[i].arrival_s >= lo)
					c++;
				i++;
			}
			s1 += c;
			s2 += c * c;
		}
		mean = s1 / (double)nb;
		if (!(mean > 0))
			continue;
		var = (s2 - s1 * mean) / (double)(nb - 1);
		sum += var / mean;
		used++;
	}
	return used ? sum / (double)used : NAN;
}

size_t trace_count(const struct trace *t, double from, double to)
{
	size_t a, b;

	if (!(to > from))
		return 0;
	a = trace_lower(t, from);
	b = trace_lower(t, to);
	return b > a ? b - a : 0;
}

int trace_drift_service(struct trace *t, double factor, char *err,
			size_t errlen)
{
	double x;
	size_t i;

	if (!(factor >= 0.1 && factor <= 10)) {
		snprintf(err, errlen, "the service drift %g is out of range; "
			 "allowed: 0.1 to 10", factor);
		return -1;
	}
	for (i = 0; i < t->n; i++) {
		x = t->req[i].service_s * (1.0 + (factor - 1.0) *
			(t->span_s > 0 ? t->req[i].arrival_s / t->span_s : 0));
		t->req[i].service_s = x < TRACE_SERVICE_MIN ? TRACE_SERVICE_MIN :
				      x > TRACE_SERVICE_MAX ? TRACE_SERVICE_MAX :
				      x;
	}
	return 0;
}
