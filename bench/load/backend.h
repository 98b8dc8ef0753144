/*
 * backend.h - `staffer-load backend`: a fake Prometheus for the service
 * benchmark, fast enough never to be what is measured.
 *
 *   staffer-load backend [--port P] [--slow-ms MS] [--value V]
 *                        [--series N [--origin UNIX_S] [--slot S]
 *                                    [--tokens T]]
 *
 * Answers GET /api/v1/query (one series, value V, default 2) and
 * /api/v1/query_range (a matrix from start to end at step, value V) on
 * 127.0.0.1, one thread per connection (libmicrohttpd), so a slow query
 * holds only its own connection as a slow Prometheus would.  Queries
 * whose text starts with "slow" are answered after MS milliseconds
 * (default 1900).
 *
 * It counts requests per distinct query, (instant or range, query text),
 * for the benchmark's "backend queries per query per cycle":
 *   GET /-/stats  "requests N\nkeys K\nused U\nmax M\nslow S\n" since the
 *                 last reset: requests, distinct queries ever seen, those
 *                 asked since the reset, the most any one was asked, slow
 *                 requests in flight now;
 *   GET /-/reset  zero the counts (keys are kept);
 *   GET /-/healthy "ok".
 * With --series N it is also a scrape target for a real Prometheus:
 *   GET /metrics  N counters bench_requests_total{obj="obj-I"}, I < N,
 *                 each growing at backend_rate(I) a second from 0 at
 *                 --origin (default: when the backend started), so that
 *                 they continue a history written before (bench/
 *                 service.py backfills one); with --slot S each
 *                 sample is stamped with the last multiple of S
 *                 seconds, the grid such a history is written on;
 *                 with --tokens T also N counters
 *                 bench_prompt_tokens_total{obj="obj-I"} growing at T x
 *                 backend_rate(I), a prefill pool's input tokens of
 *                 T a request.
 * Prints "listening PORT" on stdout once it listens (--port 0 picks a
 * free port); runs until SIGINT or SIGTERM.
 */
#ifndef LOAD_BACKEND_H
#define LOAD_BACKEND_H

#define BACKEND_KEYS_MAX (1u << 20)     /* distinct queries counted */
#define BACKEND_POINTS_MAX 11000        /* Prometheus' own cap */
#define BACKEND_SERIES_MAX 100000       /* --series */

/* The rate of counter I of /metrics, per second: 0.5 to 2.25. */
double backend_rate(unsigned i);

int backend_main(int argc, char **argv);

#endif
