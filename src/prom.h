/*
 * prom.h - the Prometheus HTTP API, without the transport.
 *
 * Builds query URLs and turns response bodies into numbers.  The HTTP
 * transfer itself is fetch.c's job (libcurl, non-blocking); keeping the
 * parsing here makes every hostile reply testable without a network.
 * Pure apart from allocation; never logs; thread-safe.
 */
#ifndef STAFFER_PROM_H
#define STAFFER_PROM_H

#include <stddef.h>
#include <stdint.h>

#define PROM_ERR_MAX 256
#define PROM_RANGE_MAX 11000  /* Prometheus' own limit on points per series */

enum prom_err {
	PROM_OK = 0,
	PROM_EHTTP,    /* transport failure: refused, timeout, TLS, DNS */
	PROM_ESTATUS,  /* HTTP status other than 200 */
	PROM_EPARSE,   /* not JSON, or not the shape of a query answer */
	PROM_EAPI,     /* "status":"error" from Prometheus */
	PROM_EQUERY,   /* ... with errorType bad_data: the PromQL is wrong */
	PROM_EEMPTY,   /* no series: the signal is unknown, not zero */
	PROM_EMULTI,   /* several series: wrap the query in sum() */
	PROM_ENAN,     /* NaN or +-Inf sample */
	PROM_ETOOBIG,  /* body over the configured cap, or an answer too
			  large to be one series (points, JSON values) */
	PROM_ENOMEM,
};

const char *prom_strerror(enum prom_err e);

/*
 * The URL of an instant query: base + "/api/v1/query?query=<escaped>".
 * With time_s > 0 "&time=<time_s>" is appended.  One trailing slash of
 * base is ignored.  Returns a malloc()ed string, or NULL on allocation
 * failure or a time that is not finite or absurdly large (>= 1e15 s).
 */
char *prom_query_url(const char *base, const char *query, double time_s);

/* The URL of a range query from start_s to end_s at step_s (>= 1 ms):
 * base + "/api/v1/query_range?end=E&query=<escaped>&start=S&step=ST",
 * parameters sorted by name as SigV4 signs them.  NULL as for
 * prom_query_url, or for a smaller step. */
char *prom_range_url(const char *base, const char *query, double start_s,
		     double end_s, double step_s);

/*
 * Parse an instant-query body (resultType vector or scalar) into one
 * number.  Exactly one sample must be present.  Returns PROM_OK and sets
 * *out, or an error with a one-line explanation in err (which may be NULL).
 * A negative value is returned as it is: clamping is policy, not parsing.
 */
enum prom_err prom_parse_instant(const char *body, size_t len, double *out,
				 char *err, size_t errlen);

/*
 * prom_parse_instant(), also giving the sample's Unix time in *ts (set
 * only on success, with *out): a reply whose time is far from now is old
 * or future data, which the scaler treats as missing (scaler.c).
 */
enum prom_err prom_parse_sample(const char *body, size_t len, double *out,
				double *ts, char *err, size_t errlen);

/*
 * A range answer on its grid.  Prometheus evaluates a range query at
 * start + k * step (integer milliseconds: its timestamps are Unix
 * milliseconds, written as seconds with up to three decimals), so the
 * times of the points need not be stored: point k of the grid is at
 * prom_range_time(r, k) and its value is vals[k], NaN where the series
 * has no point (Prometheus left one out, or sent NaN or +-Inf).  This
 * keeps a cached series in half the memory of explicit timestamps
 * (fetch.c keeps one per range query).
 *
 * The grid runs from the reply's first point to its last (NaN ones
 * included); its step is the largest number of milliseconds that every
 * distance between points is a multiple of: the query's step, or a
 * multiple of it when the gaps happen to allow one; 0 when there is one
 * slot.
 */
struct prom_range {
	long long start_ms;     /* Unix ms of slot 0 */
	long long step_ms;      /* ms between slots; 0 when n == 1 */
	double *vals;           /* n values, NaN in a gap; malloc()ed */
	unsigned n;             /* slots, 1..PROM_RANGE_MAX */
	unsigned points;        /* slots with a value, 1..n (0..n from
				 * prom_parse_range_nan()) */
	uint32_t labels;        /* a hash of the series' label set: two
				 * answers with different ones are two
				 * series (series.h) */
};

/*
 * Parse a range-query body (resultType matrix, exactly one series) into
 * *out.  The points must come in increasing time, each time a whole
 * number of milliseconds (as a double parses it) below 1e12 s; the grid
 * they lie on must fit in PROM_RANGE_MAX slots (points far from any
 * common step cannot be kept this way, and Prometheus never sends them).
 * More than PROM_RANGE_MAX points: PROM_ETOOBIG.  No point with a finite
 * value: PROM_ENAN.  On success out->vals is the caller's to free
 * (prom_range_release()); on error *out is untouched and nothing is
 * allocated.
 */
enum prom_err prom_parse_range(const char *body, size_t len,
			       struct prom_range *out, char *err,
			       size_t errlen);

/*
 * prom_parse_range() for an answer that is kept and extended (series.h),
 * where a point that is NaN must be told from no point: a NaN or +-Inf
 * point's slot holds PROM_NAN_POINT (a NaN too, so isnan() and
 * prom_range_points() skip it as before; prom_is_nan_point() tells it),
 * and a series whose every point is NaN or +-Inf is PROM_OK with
 * out->points 0 rather than PROM_ENAN.  Everything else as
 * prom_parse_range(), no series (PROM_EEMPTY) included.
 */
enum prom_err prom_parse_range_nan(const char *body, size_t len,
				   struct prom_range *out, char *err,
				   size_t errlen);

/* The NaN that marks a NaN or +-Inf point (prom_parse_range_nan()). */
double prom_nan_point(void);

/* Whether v is prom_nan_point()'s NaN, bit for bit. */
int prom_is_nan_point(double v);

/* The error and its text prom_parse_range() gives for a range without a
 * finite point, for callers that build a range answer from kept points:
 * with NaN points (nan_points), PROM_ENAN; without any point (no
 * series), PROM_EEMPTY. */
enum prom_err prom_range_none(int nan_points, char *err, size_t errlen);

/* The Unix time in seconds of slot k: exactly the double that parsing
 * the reply's "S.mmm" gave. */
double prom_range_time(const struct prom_range *r, size_t k);

/*
 * The points with a value, as parallel arrays in time order (r->points
 * of each): the series as the reply listed it, NaN and +-Inf points left
 * out.  ts and vals must hold r->points doubles.
 */
void prom_range_points(const struct prom_range *r, double *ts,
		       double *vals);

/* Free r's values; r is left empty.  NULL or an empty r is fine. */
void prom_range_release(struct prom_range *r);

#endif
