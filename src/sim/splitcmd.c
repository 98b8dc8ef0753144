/*
 * splitcmd.c - `staffer simulate --split`: replay traffic through a
 * disaggregated fleet (split.h) under each policy (splitpol.h) and
 * compare the outcomes.
 *
 * Reads a per-request CSV with token counts, a ServeGen rate file or a
 * synthetic shape, overlays and speeds it up as `staffer simulate` does
 * (simtraffic.h, the same words giving the same requests), picks one warm
 * start for every policy (--initial-replicas: first-minute or P,D), runs
 * split_run once per policy on the same requests and prints a table, or
 * one JSON object per policy with --json; --timeseries writes every
 * policy's samples as CSV.  Usage errors exit 2, runtime failures 1.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "csv.h"
#include "num.h"
#include "opt.h"
#include "perf.h"
#include "sim.h"
#include "split.h"
#include "simtraffic.h"
#include "splitpol.h"
#include "trace.h"

#define SPLITCMD_POLICIES_MAX 128
#define SPLITCMD_ERR_MAX 1024
#define SPLITCMD_PROG "staffer simulate --split"

static const char *const splitcmd_default_policies[] = {
	"staffer", "planner", "llm-d", "keda", "static",
};

struct splitcmd_opts {
	int split;
	struct simtraffic tr;   /* as `staffer simulate` takes them */
	const char *initial;
	long budget, slots, cold_seed;
	struct split_config sc;
	const char *policies[SPLITCMD_POLICIES_MAX];
	size_t npolicies;
	int json;
	const char *ts_file;
	double ts_step;
	long repeat;
};

static void splitcmd_usage(FILE *fp)
{
	fprintf(fp,
"usage: staffer simulate --split TRAFFIC [options] [--policy SPEC]...\n"
"  a disaggregated fleet: a prefill pool and a decode pool, each scaled on\n"
"  its own, serving the requests token by token (docs/pools.md)\n"
"traffic (one of):\n"
"  --trace FILE        CSV arrival_s,input_tokens,output_tokens\n"
"  --rates FILE        ServeGen *_rate_10min.csv: --rate-compress X (10),\n"
"                      --rate-scale K (1), --rate-start S (0),\n"
"                      --rate-span S (0: all), --arrivals auto|poisson|\n"
"                      clients, as `staffer simulate`; tokens lognormal\n"
"                      (CV 1) around --input-mean and --output-mean\n"
"  --shape NAME        poisson|step|surge|diurnal|onoff, with --rate R\n"
"                      (req/s, 10), --duration S (3600), --input-mean T\n"
"                      (1000), --output-mean T (250), --seed N (1)\n"
"  --overlay K (1)     K copies, copy i shifted by i*span/K, wrapped\n"
"  --speedup X (1)     divide every arrival time by X\n"
"  --repeat N (1)      the traffic N times over, each copy a span after the\n"
"                      one before; the results count the last copy only\n"
"                      (requests that arrived in it, replica-hours over\n"
"                      it): the copies before are every policy's history\n"
"engine (the Splitwise profile, perf.h):\n"
"  --perf-model FILE --perf-spec M,HW,TP (built-in llama2-70b,h100-80gb,4)\n"
"  --prefill-budget N (8192)  tokens in one prefill batch\n"
"  --decode-slots N (64)      sequences one decode replica runs\n"
"  --kv-tokens N (400000)     KV-cache tokens of one decode replica\n"
"  --kv-transfer-base S (0.005), --kv-transfer-per-token S (6.5e-6)\n"
"fleet, control and targets:\n"
"  --cold-start S (120)  --cold-start-cv C (0)  each pool's own pods\n"
"  --cold-seed N (1)   the cold starts' draws (--seed draws the traffic)\n"
"  --initial-replicas first-minute|P,D (first-minute)  every policy's\n"
"                      warm start\n"
"  --ttft S (2)  --itl S (0.04)  the targets attainment is counted on\n"
"  --queue-timeout S (60)  --scrape-interval S (15)  --rate-window S (60)\n"
"  --hpa-sync S (15)\n"
"policies (repeat --policy; default: staffer planner llm-d keda static):\n"
"  staffer[:prefill.KEY=V,decode.KEY=V,KEY=V]   metadata per pool; the\n"
"                      simulator answers every query (prefill.slaMissQuery:\n"
"                      the share of first tokens later than --ttft); age=S:\n"
"                      its instant answers but the arrival rate S s old;\n"
"                      prefillZ=read, prefillErlang=whole,\n"
"                      prefillPrior=hold: the prefill pool's rules\n"
"                      against noise and the prior off;\n"
"                      prefillTokenZ=arrivals: its TTFT target on the\n"
"                      arrivals' z alone (docs/pools.md)\n"
"  planner[:interval=S,scale=X] demand / throughput per replica (Dynamo)\n"
"  llm-d[:interval=S,kv=U,queue=N,kvSpare=U,queueSpare=N]  saturation\n"
"  keda[:prefill=queue|running|sum,prefillThreshold=T,\n"
"       decode=running|queue|sum|kv,decodeThreshold=T,\n"
"       behavior=default|staffer]\n"
"  static[:prefill=N,decode=M]\n"
"  common keys: minReplicaCount maxReplicaCount (1, 100; every policy\n"
"  but static) pollingInterval cooldownPeriod\n"
"output:\n"
"  --json              one JSON object per policy per line\n"
"  --timeseries FILE   CSV of every policy over time (--ts-step S, 15)\n");
}

static void splitcmd_defaults(struct splitcmd_opts *o)
{
	memset(o, 0, sizeof(*o));
	simtraffic_defaults(&o->tr);
	o->initial = "first-minute";
	split_config_init(&o->sc);
	o->budget = o->sc.prefill_budget;
	o->slots = o->sc.decode_slots;
	o->cold_seed = (long)o->sc.cold_seed;
	o->ts_step = 15;
	o->repeat = 1;
}

static int splitcmd_policy(void *ctx, const char *prog, const char *name,
			   const char *v)
{
	struct splitcmd_opts *o = ctx;

	(void)name;
	if (o->npolicies == SPLITCMD_POLICIES_MAX) {
		fprintf(stderr, "%s: at most %d --policy\n", prog,
			SPLITCMD_POLICIES_MAX);
		return 2;
	}
	o->policies[o->npolicies++] = v;
	return 0;
}

#define SO(f) offsetof(struct splitcmd_opts, f)

static const struct opt splitcmd_table[] = {
	OPT_F("--split", SO(split)),
	OPT_CALL("--policy", splitcmd_policy),
	OPT_S("--trace", SO(tr.trace), OPT_NONEMPTY),
	OPT_S("--rates", SO(tr.rates), OPT_NONEMPTY),
	OPT_S("--shape", SO(tr.shape), OPT_NONEMPTY),
	OPT_D("--rate-compress", SO(tr.rate_compress), 1e-3, 1e6, "x", 0),
	OPT_D("--rate-scale", SO(tr.rate_scale), 1e-9, 1e6, "x", 0),
	OPT_D("--rate-start", SO(tr.rate_start), 0, 1e9, "seconds", 0),
	OPT_D("--rate-span", SO(tr.rate_span), 0, 1e9, "seconds", 0),
	OPT_S("--arrivals", SO(tr.arrivals), OPT_NONEMPTY),
	OPT_D("--rate", SO(tr.rate), 1e-6, 1e6, "req/s", 0),
	OPT_D("--duration", SO(tr.duration), 1, TRACE_TIME_MAX, "seconds",
	      0),
	OPT_D("--input-mean", SO(tr.input_mean), 1, 1e6, "tokens", 0),
	OPT_D("--output-mean", SO(tr.output_mean), 1, 1e6, "tokens", 0),
	OPT_L("--seed", SO(tr.seed), 0, 2147483647.0, NULL),
	OPT_L("--overlay", SO(tr.overlay), 1, 1000, "copies"),
	OPT_D("--speedup", SO(tr.speedup), 1e-3, 1e6, "x", 0),
	OPT_L("--repeat", SO(repeat), 1, TRACE_REPEAT_MAX, "copies"),
	OPT_S("--perf-model", SO(tr.perf_file), OPT_NONEMPTY),
	OPT_S("--perf-spec", SO(tr.perf_spec), OPT_NONEMPTY),
	OPT_L("--prefill-budget", SO(budget), 1, 10000000, "tokens"),
	OPT_L("--decode-slots", SO(slots), 1, SPLIT_SLOTS_MAX, "sequences"),
	OPT_D("--kv-tokens", SO(sc.kv_tokens), 1, 1e12, "tokens", 0),
	OPT_D("--kv-transfer-base", SO(sc.kv_base_s), 0, 600, "seconds", 0),
	OPT_D("--kv-transfer-per-token", SO(sc.kv_per_token_s), 0, 1,
	      "seconds", 0),
	OPT_D("--cold-start", SO(sc.cold_start_s), 0, 86400, "seconds", 0),
	OPT_D("--cold-start-cv", SO(sc.cold_start_cv), 0, SIM_COLD_CV_MAX,
	      NULL, 0),
	OPT_L("--cold-seed", SO(cold_seed), 0, 2147483647.0, NULL),
	OPT_S("--initial-replicas", SO(initial), OPT_NONEMPTY),
	OPT_D("--ttft", SO(sc.ttft_s), 0, 3600, "seconds", OPT_ABOVE),
	OPT_D("--itl", SO(sc.itl_s), 0, 10, "seconds", OPT_ABOVE),
	OPT_D("--queue-timeout", SO(sc.queue_timeout_s), 0.001, 86400,
	      "seconds", 0),
	OPT_D("--scrape-interval", SO(sc.scrape_s), 1, 3600, "seconds", 0),
	OPT_D("--rate-window", SO(sc.rate_window_s), 2, 86400, "seconds", 0),
	OPT_D("--hpa-sync", SO(sc.hpa_sync_s), 1, 3600, "seconds", 0),
	OPT_F("--json", SO(json)),
	OPT_S("--timeseries", SO(ts_file), OPT_NONEMPTY),
	OPT_D("--ts-step", SO(ts_step), 1, 86400, "seconds", 0),
	OPT_END,
};

static const struct opt_spec splitcmd_spec = {
	SPLITCMD_PROG, splitcmd_table, splitcmd_usage, NULL
};

/* The requests, sorted, with their tokens; desc names them. */
static int splitcmd_traffic(const struct splitcmd_opts *o, struct trace *t,
			    char *desc, size_t desclen, char *err,
			    size_t errlen)
{
	struct simrng rng;
	size_t n;

	simrng_seed(&rng, (uint64_t)o->tr.seed);
	if (simtraffic_load(&o->tr, &rng, t, desc, desclen, err, errlen))
		return -1;
	if (o->repeat == 1)
		return 0;
	if (trace_repeat(t, (int)o->repeat, err, errlen))
		return -1;
	n = strlen(desc);
	if (n < desclen)
		snprintf(desc + n, desclen - n, ", %ld times over, the last "
			 "counted", o->repeat);
	return 0;
}

/* --initial-replicas: first-minute, or "P,D". */
static int splitcmd_initial(const struct splitcmd_opts *o,
			    const struct trace *t, struct split_config *c,
			    char *err, size_t errlen)
{
	const char *comma;
	char num[32];
	long a, b;

	if (!strcmp(o->initial, "first-minute")) {
		split_first_minute(c, t, c->initial);
		return 0;
	}
	comma = strchr(o->initial, ',');
	if (comma && (size_t)(comma - o->initial) < sizeof(num)) {
		memcpy(num, o->initial, (size_t)(comma - o->initial));
		num[comma - o->initial] = '\0';
		if (!num_parse_long(num, &a) && !num_parse_long(comma + 1, &b) &&
		    a >= 0 && b >= 0 && a <= (long)SPLIT_REPLICAS_MAX &&
		    b <= (long)SPLIT_REPLICAS_MAX) {
			c->initial[SPLIT_PREFILL] = (int32_t)a;
			c->initial[SPLIT_DECODE] = (int32_t)b;
			return 0;
		}
	}
	snprintf(err, errlen, "--initial-replicas '%.60s': allowed "
		 "first-minute or P,D (whole numbers from 0 to %u)", o->initial,
		 SPLIT_REPLICAS_MAX);
	return -1;
}

static double splitcmd_mean_input(const struct trace *t)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < t->n; i++)
		sum += t->req[i].input_tokens > 0 ? t->req[i].input_tokens : 0;
	return t->n ? sum / (double)t->n : 0;
}

/* The timeseries CSV: one row per policy per sample. */
struct splitcmd_ts {
	FILE *fp;
	const char *policy;
};

static void splitcmd_sample(void *arg, const struct split_sample *s)
{
	struct splitcmd_ts *ts = arg;

	csv_put_field(ts->fp, ts->policy);
	fprintf(ts->fp, ",%.0f,%d,%d,%d,%d,%llu,%llu,%llu,%.0f,%llu,%llu\n",
		s->t, (int)s->spec[SPLIT_PREFILL],
		(int)s->ready[SPLIT_PREFILL], (int)s->spec[SPLIT_DECODE],
		(int)s->ready[SPLIT_DECODE], (unsigned long long)s->pq,
		(unsigned long long)s->dq, (unsigned long long)s->drun, s->kv,
		(unsigned long long)s->ttft_missed,
		(unsigned long long)s->tokens_missed);
}

static int splitcmd_json(const char *name, const struct split_config *c,
			 const struct split_result *r)
{
	cJSON *o = cJSON_CreateObject();
	char *text = NULL;
	int bad = !o;

#define NUM(k, v) do { if (o && !cJSON_AddNumberToObject(o, k, v)) \
			bad = 1; } while (0)
	if (o && !cJSON_AddStringToObject(o, "policy", name))
		bad = 1;
	NUM("requests", (double)r->requests);
	NUM("shed", (double)r->shed);
	NUM("ttft_target", c->ttft_s);
	NUM("ttft_attainment", r->ttft_attainment);
	NUM("ttft_p50", isnan(r->ttft_p50) ? -1 : r->ttft_p50);
	NUM("ttft_p99", isnan(r->ttft_p99) ? -1 : r->ttft_p99);
	NUM("itl_target", c->itl_s);
	NUM("itl_attainment", r->itl_attainment);
	NUM("itl_mean", isnan(r->itl_mean) ? -1 : r->itl_mean);
	NUM("tokens", (double)r->tokens);
	NUM("replica_hours", r->replica_hours);
	NUM("prefill_replica_hours", r->pool[SPLIT_PREFILL].replica_hours);
	NUM("decode_replica_hours", r->pool[SPLIT_DECODE].replica_hours);
	NUM("prefill_peak", (double)r->pool[SPLIT_PREFILL].peak);
	NUM("decode_peak", (double)r->pool[SPLIT_DECODE].peak);
	NUM("prefill_scale_events",
	    (double)r->pool[SPLIT_PREFILL].scale_events);
	NUM("decode_scale_events", (double)r->pool[SPLIT_DECODE].scale_events);
	NUM("initial_prefill", (double)c->initial[SPLIT_PREFILL]);
	NUM("initial_decode", (double)c->initial[SPLIT_DECODE]);
	NUM("metric_errors", (double)r->metric_errors);
#undef NUM
	if (!bad)
		text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!text)
		return -1;
	printf("%s\n", text);
	free(text);
	return 0;
}

static void splitcmd_row(const char *name, const struct split_result *r)
{
	printf("%-44s %7.2f %7.2f %8.1f %8.1f %8.1f %5d %5d %7.2f %6llu\n",
	       name, 100 * r->ttft_attainment, 100 * r->itl_attainment,
	       r->pool[SPLIT_PREFILL].replica_hours,
	       r->pool[SPLIT_DECODE].replica_hours, r->replica_hours,
	       (int)r->pool[SPLIT_PREFILL].peak,
	       (int)r->pool[SPLIT_DECODE].peak,
	       isnan(r->ttft_p99) ? -1 : r->ttft_p99,
	       (unsigned long long)r->shed);
}

int cmd_simulate_split(int argc, char **argv)
{
	struct splitcmd_opts o;
	struct splitcmd_ts ts;
	struct split_result res;
	struct splitpol pol;
	struct trace t;
	struct perf perf;
	char err[SPLITCMD_ERR_MAX], desc[SPLITCMD_ERR_MAX];
	enum opt_rc orc;
	double mean_in;
	size_t i;
	int rc = 2;

	splitcmd_defaults(&o);
	trace_init(&t);
	memset(&ts, 0, sizeof(ts));
	orc = opt_parse(&splitcmd_spec, argc, argv, &o);
	if (orc != OPT_OK) {
		rc = opt_status(orc);
		goto out;
	}
	if (o.npolicies == 0)
		for (i = 0; i < sizeof(splitcmd_default_policies) /
			    sizeof(splitcmd_default_policies[0]); i++)
			o.policies[o.npolicies++] =
				splitcmd_default_policies[i];
	if (perf_from_spec(&perf, o.tr.perf_file, o.tr.perf_spec, err,
			   sizeof(err)) ||
	    splitcmd_traffic(&o, &t, desc, sizeof(desc), err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", SPLITCMD_PROG, err);
		goto out;
	}
	o.sc.perf = &perf;
	o.sc.cold_seed = (uint64_t)o.cold_seed;
	o.sc.prefill_budget = o.budget;
	o.sc.decode_slots = o.slots;
	o.sc.end_s = t.span_s > 0 ? t.span_s : 1;
	/* --repeat: the copies before the last are history, not counted */
	o.sc.count_from_s = t.span_s * (double)(o.repeat - 1) /
			    (double)o.repeat;
	o.sc.ts_step_s = o.ts_file ? o.ts_step : 0;
	if (splitcmd_initial(&o, &t, &o.sc, err, sizeof(err)) ||
	    split_config_check(&o.sc, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", SPLITCMD_PROG, err);
		goto out;
	}
	mean_in = splitcmd_mean_input(&t);
	/* every policy parses before any runs: a typo fails at once */
	for (i = 0; i < o.npolicies; i++) {
		int bad = splitpol_parse(&pol, o.policies[i], &o.sc, mean_in,
					 err, sizeof(err));

		splitpol_release(&pol);
		if (bad) {
			fprintf(stderr, "%s: %s\n", SPLITCMD_PROG, err);
			goto out;
		}
	}
	if (o.ts_file) {
		ts.fp = fopen(o.ts_file, "w");
		if (!ts.fp) {
			fprintf(stderr, "%s: --timeseries '%s': cannot write\n",
				SPLITCMD_PROG, o.ts_file);
			rc = 1;
			goto out;
		}
		fprintf(ts.fp, "policy,t,prefill_spec,prefill_ready,"
			"decode_spec,decode_ready,prefill_queue,decode_queue,"
			"decoding,kv_tokens,ttft_missed,tokens_missed\n");
	}
	if (!o.json)
		printf("%s: %zu requests over %.0f s; TTFT target %g s, ITL "
		       "target %g s; warm start %d prefill + %d decode "
		       "replicas; %s\n"
		       "%-44s %7s %7s %8s %8s %8s %5s %5s %7s %6s\n",
		       desc, t.n, o.sc.end_s, o.sc.ttft_s, o.sc.itl_s,
		       (int)o.sc.initial[SPLIT_PREFILL],
		       (int)o.sc.initial[SPLIT_DECODE], perf.desc, "policy",
		       "TTFT%", "ITL%", "P-hours", "D-hours", "hours",
		       "P-max", "D-max", "TTFTp99", "shed");
	rc = 1;
	for (i = 0; i < o.npolicies; i++) {
		int bad;

		if (splitpol_parse(&pol, o.policies[i], &o.sc, mean_in, err,
				   sizeof(err))) {
			splitpol_release(&pol);
			fprintf(stderr, "%s: %s\n", SPLITCMD_PROG, err);
			goto out;
		}
		ts.policy = o.policies[i];
		bad = split_run(&o.sc, &t, &pol, &res,
				ts.fp ? splitcmd_sample : NULL, &ts, err,
				sizeof(err));
		splitpol_release(&pol);
		if (bad) {
			fprintf(stderr, "%s: %s: %s\n", SPLITCMD_PROG,
				o.policies[i], err);
			goto out;
		}
		if (o.json) {
			if (splitcmd_json(o.policies[i], &o.sc, &res)) {
				fprintf(stderr, "%s: out of memory\n",
					SPLITCMD_PROG);
				goto out;
			}
		} else {
			splitcmd_row(o.policies[i], &res);
		}
		fflush(stdout);
	}
	rc = 0;
out:
	if (ts.fp && fclose(ts.fp) && rc == 0) {
		fprintf(stderr, "%s: --timeseries: write error\n",
			SPLITCMD_PROG);
		rc = 1;
	}
	trace_free(&t);
	return rc;
}
