/*
 * tests/example/model.c - staffer's decision model embedded in another
 * program, through its public headers only (include/staffer/, built with
 * -Iinclude and linked with build/libstaffer-model.a -lm; see
 * docs/library.md).  `make test` builds and runs it and compares its
 * output with tests/example/model.out, so the boundary stays real: this
 * file must never need src/.
 *
 * A gateway that knows its own arrival rate, service time and queue asks
 * how many replicas to run, with a forecast from its recent rate history
 * and the scale-down smoothing staffer applies.
 */
#include <stdio.h>

#include <staffer/forecast.h>
#include <staffer/model.h>
#include <staffer/smooth.h>

int main(void)
{
	/* one rate a minute, rising: req/s */
	static const double history[] = { 8, 8.5, 9, 9.4, 10, 10.7, 11.2, 12 };
	const size_t n = sizeof(history) / sizeof(history[0]);
	struct model_params p;
	struct model_signals s = { 0 };
	struct model_breakdown b;
	struct forecast f;
	struct smooth sm = SMOOTH_INIT;
	enum model_err e;
	int64_t target;

	model_params_init(&p);
	p.slots_per_replica = 8;

	s.arrival_rate = history[n - 1];
	s.service_time_s = 20;
	s.queue_depth = 5;

	/* where the rate will be when a replica asked for now is ready */
	e = forecast_ahead(history, n, 60, 180, 0.5, 0.3, 0.9, &f);
	if (e != MODEL_OK) {
		fprintf(stderr, "forecast: %s\n", model_strerror(e));
		return 1;
	}
	s.arrival_forecast = f.value;

	e = model_evaluate(&p, &s, &b);
	if (e != MODEL_OK) {
		fprintf(stderr, "model: %s\n", model_strerror(e));
		return 1;
	}
	printf("lambda used %.3f req/s (%s)\n", b.arrival_used,
	       b.forecast_used ? "forecast" : "measured");
	printf("slots: busy %.3f + headroom %.3f + drain %.3f = %.3f\n",
	       b.busy_slots, b.headroom_slots, b.drain_slots, b.total_slots);
	printf("replicas %lld (%s, beta %g)\n", (long long)b.replicas,
	       model_staffing_name(p.staffing), p.beta);

	/* the first answer primes the smoothing; a dip a second later is
	 * held: one step per period at most */
	target = smooth_step(&sm, b.replicas, 0, 1, 60);
	printf("smoothed %lld", (long long)target);
	target = smooth_step(&sm, b.replicas - 3, 1, 1, 60);
	printf(", then %lld for a dip to %lld\n", (long long)target,
	       (long long)(b.replicas - 3));
	return 0;
}
