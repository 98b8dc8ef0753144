/*
 * smooth_replay.c - replay raw targets through src/smooth.c, for the
 * smoothing plot of docs/math.md.
 *
 *   smooth_replay STEP PERIOD_S < "t raw" lines > "t raw smoothed" lines
 *
 * `staffer calc` holds no state, so it cannot show smoothing over time;
 * this feeds calc's raw answers, one evaluation per line, through the same
 * smooth_step() the server uses.  Built by docs/plots/make.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "smooth.h"

int main(int argc, char **argv)
{
	struct smooth st = SMOOTH_INIT;
	double t, period;
	long long raw, step;
	char *end;

	if (argc != 3) {
		fprintf(stderr, "usage: smooth_replay STEP PERIOD_S\n");
		return 2;
	}
	step = strtoll(argv[1], &end, 10);
	if (*end || step < 1) {
		fprintf(stderr, "smooth_replay: bad STEP '%s'\n", argv[1]);
		return 2;
	}
	period = strtod(argv[2], &end);
	if (*end || !(period >= 0)) {
		fprintf(stderr, "smooth_replay: bad PERIOD_S '%s'\n", argv[2]);
		return 2;
	}
	while (scanf("%lf %lld", &t, &raw) == 2)
		printf("%g %lld %lld\n", t, raw,
		       (long long)smooth_step(&st, (int64_t)raw, t,
					      (int64_t)step, period));
	return ferror(stdin) ? 1 : 0;
}
