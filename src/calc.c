/*
 * calc.c - `staffer calc key=value ...`: the model on given numbers.
 *
 * Takes every metadata key (same parser, same messages as the server) and
 * the signals arrivalRate, serviceTime, queueDepth and shedRate, and prints
 * each term of the decision, or one JSON object with --json.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "meta.h"
#include "model.h"

#define SIGNAL_MAX 1e9   /* req/s or requests; far beyond any fleet */

/* The signals calc takes besides metadata (serviceTime is both). */
static const struct {
	const char *key;
	size_t off;
	const char *unit;
} signals[] = {
	{ "arrivalRate", offsetof(struct model_signals, arrival_rate),
	  "req/s" },
	{ "queueDepth", offsetof(struct model_signals, queue_depth),
	  "requests" },
	{ "shedRate", offsetof(struct model_signals, shed_rate), "req/s" },
};

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: staffer calc [--json] key=value ...\n"
"  signals: arrivalRate (req/s), serviceTime (s), queueDepth (requests),\n"
"           shedRate (req/s); missing ones are 0\n"
"  tuning:  any ScaledObject metadata key (docs/metadata.md), e.g.\n"
"           beta=2 slotsPerReplica=32 staffing=erlangc\n"
"example: staffer calc arrivalRate=2 serviceTime=10 beta=1.5   -> 27\n");
}

/* Parse one signal; 1 if key is not a signal, 0 ok, -1 bad value. */
static int set_signal(struct model_signals *s, const char *key,
		      const char *val)
{
	size_t i;
	double v;

	for (i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
		if (strcmp(key, signals[i].key))
			continue;
		if (meta_parse_double(val, &v)) {
			fprintf(stderr, "staffer calc: '%s': '%.60s' is not a "
				"number; allowed: a number from 0 to %g %s\n",
				key, val, SIGNAL_MAX, signals[i].unit);
			return -1;
		}
		if (v < 0 || v > SIGNAL_MAX) {
			fprintf(stderr, "staffer calc: '%s': '%.60s' is out of "
				"range; allowed: a number from 0 to %g %s\n",
				key, val, SIGNAL_MAX, signals[i].unit);
			return -1;
		}
		*(double *)((char *)s + signals[i].off) = v;
		return 0;
	}
	return 1;
}

static void print_text(const struct meta *m, const struct model_signals *s,
		       const struct model_breakdown *b)
{
	const struct model_params *p = &m->model;

	printf("signals    lambda = %g req/s, W = %g s, Q = %g, S = %g req/s\n",
	       s->arrival_rate, s->service_time_s, s->queue_depth,
	       s->shed_rate);
	printf("busy       L = lambda * W                     %10.3f slots\n",
	       b->busy_slots);
	switch (p->staffing) {
	case MODEL_STAFF_SQRT:
		printf("headroom   sqrt: beta * sqrt(L), beta = %-5g %10.3f "
		       "slots\n", p->beta, b->headroom_slots);
		break;
	case MODEL_STAFF_ERLANGC:
		printf("headroom   erlangc: P(wait > %gs) <= %g      %10.3f "
		       "slots\n", p->target_wait_s, p->wait_probability,
		       b->headroom_slots);
		break;
	case MODEL_STAFF_COST:
		printf("headroom   cost: %g/h per replica, %g/h penalty %8.3f "
		       "slots\n", p->cost_per_replica_hour,
		       p->sla_penalty_per_hour, b->headroom_slots);
		break;
	case MODEL_STAFF_NONE:
		printf("headroom   none                               %10.3f "
		       "slots\n", b->headroom_slots);
		break;
	}
	printf("drain      max(0, Q - L) * W / %-6gs         %10.3f slots\n",
	       p->drain_s, b->drain_slots);
	printf("boost      %s %10.3f slots\n",
	       s->shed_rate > p->shed_threshold ?
	       "boostFactor * S * W                " :
	       "off (S <= shedThreshold)           ", b->boost_slots);
	printf("total                                         %10.3f slots\n",
	       b->total_slots);
	printf("replicas   ceil(%.3f / %ld)%s%*s%10lld\n", b->total_slots,
	       p->slots_per_replica, b->capped ? ", capped" : "",
	       b->capped ? 12 : 20, "", (long long)b->replicas);
	printf("active     %s\n", b->active ? "yes" : "no");
}

static int print_json(const struct meta *m, const struct model_signals *s,
		      const struct model_breakdown *b)
{
	cJSON *o = cJSON_CreateObject();
	char *text;

	if (!o)
		return -1;
	cJSON_AddStringToObject(o, "staffing",
				model_staffing_name(m->model.staffing));
	cJSON_AddNumberToObject(o, "arrival_rate", s->arrival_rate);
	cJSON_AddNumberToObject(o, "service_time", s->service_time_s);
	cJSON_AddNumberToObject(o, "queue_depth", s->queue_depth);
	cJSON_AddNumberToObject(o, "shed_rate", s->shed_rate);
	cJSON_AddNumberToObject(o, "busy_slots", b->busy_slots);
	cJSON_AddNumberToObject(o, "headroom_slots", b->headroom_slots);
	cJSON_AddNumberToObject(o, "drain_slots", b->drain_slots);
	cJSON_AddNumberToObject(o, "boost_slots", b->boost_slots);
	cJSON_AddNumberToObject(o, "total_slots", b->total_slots);
	cJSON_AddNumberToObject(o, "slots_per_replica",
				(double)m->model.slots_per_replica);
	cJSON_AddNumberToObject(o, "exact_replicas", b->exact_replicas);
	cJSON_AddNumberToObject(o, "replicas", (double)b->replicas);
	cJSON_AddBoolToObject(o, "capped", b->capped);
	cJSON_AddBoolToObject(o, "active", b->active);
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!text)
		return -1;
	printf("%s\n", text);
	free(text);
	return 0;
}

int cmd_calc(int argc, char **argv)
{
	struct meta m;
	struct meta_error err;
	struct model_signals s;
	struct model_breakdown b;
	enum model_err merr;
	int i, json = 0, rc = 2;

	meta_init(&m);
	memset(&s, 0, sizeof(s));
	for (i = 0; i < argc; i++) {
		char key[META_NAME_MAX];
		const char *eq = strchr(argv[i], '=');
		size_t klen;
		int r;

		if (!strcmp(argv[i], "--json")) {
			json = 1;
			continue;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			rc = 0;
			goto out;
		}
		klen = eq ? (size_t)(eq - argv[i]) : 0;
		if (!eq || klen == 0 || klen >= sizeof(key)) {
			fprintf(stderr, "staffer calc: '%.60s' is not "
				"key=value\n", argv[i]);
			usage(stderr);
			goto out;
		}
		memcpy(key, argv[i], klen);
		key[klen] = '\0';
		r = set_signal(&s, key, eq + 1);
		if (r < 0)
			goto out;
		if (r == 0)
			continue;
		if (meta_set(&m, key, eq + 1, &err) != META_OK) {
			fprintf(stderr, "staffer calc: %s\n", err.msg);
			goto out;
		}
	}
	if (meta_check(&m, 0, &err) != META_OK) {
		fprintf(stderr, "staffer calc: %s\n", err.msg);
		goto out;
	}
	s.service_time_s = m.service_time_s;
	merr = model_evaluate(&m.model, &s, &b);
	if (merr != MODEL_OK) {
		fprintf(stderr, "staffer calc: cannot staff these signals: "
			"%s%s\n", model_strerror(merr),
			merr == MODEL_EINVAL && s.service_time_s <= 0 ?
			" (give serviceTime > 0 when there is demand)" : "");
		rc = 1;
		goto out;
	}
	if (json ? print_json(&m, &s, &b) : (print_text(&m, &s, &b), 0)) {
		rc = 1;
		goto out;
	}
	rc = 0;
out:
	meta_release(&m);
	return rc;
}
