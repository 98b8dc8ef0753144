/*
 * simulate.c - `staffer simulate`: replay traffic through a simulated
 * fleet under each autoscaling policy and compare the outcomes.
 *
 * Reads the traffic (a per-request CSV, a ServeGen rate file or a
 * synthetic shape), gives every request its service time, picks one warm
 * start for all (--initial-replicas: first-minute, auto or N), then runs
 * sim_run once per policy on the same requests and prints a table, or one
 * JSON object per policy with --json.  --timeseries writes every policy's
 * samples as CSV, --plot draws them with gnuplot.  Usage errors exit 2,
 * runtime failures 1.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "csv.h"
#include "demand.h"
#include "meta.h"
#include "num.h"
#include "opt.h"
#include "perf.h"
#include "policy.h"
#include "sim.h"
#include "simplot.h"
#include "simtraffic.h"
#include "trace.h"

#define SIMULATE_POLICIES_MAX 64
#define SIMULATE_META_MAX 64
#define SIMULATE_ERR_MAX 1024
#define SIMULATE_DEFAULT_PATH_MAX 4096

static const char *const simulate_default_policies[] = {
	"staffer", "keda-queue", "keda-running", "keda-combined", "keda-sum",
	"hpa-util", "static", "oracle",
};

struct simulate_opts {
	struct simtraffic tr;   /* --trace, --shape and what --split shares */
	const char *service;
	double service_mean, service_cv;
	double service_drift;   /* x1 at the start to x this at the end */
	double batch;
	struct sim_config sc;
	const char *initial, *routing;
	double hpa_tolerance, downscale_window;
	long max_replicas;
	const char *policies[SIMULATE_POLICIES_MAX];
	size_t npolicies;
	char *mkeys[SIMULATE_META_MAX];
	const char *mvals[SIMULATE_META_MAX];
	size_t nmeta;
	int json;
	const char *ts_file, *plot_file;
	double ts_step;
};

static void simulate_usage(FILE *fp)
{
	fprintf(fp,
"usage: staffer simulate TRAFFIC [options] [--policy SPEC]... [key=value]...\n"
"traffic (one of):\n"
"  --trace FILE        CSV arrival_s,input_tokens,output_tokens[,service_s]\n"
"  --rates FILE        ServeGen *_rate_10min.csv: --rate-compress X (10),\n"
"                      --rate-scale K (1), --rate-start S (0),\n"
"                      --rate-span S (0: all), --arrivals auto|poisson|\n"
"                      clients (auto: clients when the file has\n"
"                      top_client_share,rate_weighted_cv: each client a\n"
"                      Gamma renewal process with the window's CV, the\n"
"                      largest at its share; else one Poisson process)\n"
"  --shape NAME        poisson|step|surge|diurnal|onoff, with --rate R\n"
"                      (req/s, 10) and --duration S (3600)\n"
"  --overlay K (1)     K copies, copy i shifted by i*span/K, wrapped\n"
"  --speedup X (1)     divide every arrival time by X\n"
"  --seed N (1)        random seed; same seed, same output\n"
"  --input-mean T, --output-mean T  tokens of generated requests\n"
"                      (lognormal, CV 1; 1000 and 250)\n"
"service time:\n"
"  --service auto|column|perf|exp|lognormal (auto: column if present,\n"
"                      else perf); --service-mean S (5), --service-cv C (1)\n"
"  --service-drift X (1)  every service time x1 at the start to x X at\n"
"                      the end, linearly (a W that drifts)\n"
"  --perf-model FILE   Splitwise perf_model.csv (default: built-in\n"
"                      llama2-70b h100-80gb tp4 table from that file)\n"
"  --perf-spec M,HW,TP (llama2-70b,h100-80gb,4)  --batch B (slots, max 64)\n"
"fleet and control:\n"
"  --slots N (16)  --queue-timeout S (60)  --cold-start S (120)\n"
"  --cold-start-cv C (0)  each new replica's cold start lognormal with\n"
"                      median --cold-start and CV C (the same pods for\n"
"                      every policy; coldStartQuery answers the median\n"
"                      of those seen starting)\n"
"  --routing shared|least-loaded|round-robin (shared)  the gateway: one\n"
"                      queue for the fleet, or a queue per replica, each\n"
"                      request sent on arrival to the replica with the\n"
"                      fewest requests running and queued, or in turn\n"
"  --initial-replicas first-minute|auto|N (first-minute)  every policy's\n"
"                      warm start: the first 60 s's peak concurrency in\n"
"                      replicas (measurable before autoscaling), or auto:\n"
"                      enough for the first cold start (peeks ahead)\n"
"  --sla S (2)  --scrape-interval S (15)  --rate-window S (60)\n"
"  --service-window S (300)  W's rate() window, as serviceTimeQuery's\n"
"  --hpa-sync S (15)  --hpa-tolerance X (0.1)  --downscale-window S (300)\n"
"  --max-replicas N (100: each policy's default maxReplicaCount)\n"
"policies (repeat --policy; default: all eight at their defaults):\n"
"  staffer[:METADATA]  keda-queue[:threshold=T]  keda-running[:threshold=T]\n"
"  keda-combined[:queue=T,running=T]  hpa-util[:target=U]  oracle\n"
"  keda-sum[:threshold=T]  running + waiting per replica (T: slots)\n"
"  static[:replicas=N]  a fixed fleet, no HPA or KEDA (N: the warm start)\n"
"  a policy that can never scale up is marked (static) in the table,\n"
"  \"never_scales_up\": true in --json\n"
"  common keys (not static): minReplicaCount maxReplicaCount cooldownPeriod\n"
"  pollingInterval activationThreshold tolerance upTolerance downTolerance\n"
"  upWindow downWindow upSelect downSelect upPolicies downPolicies\n"
"  behavior=none\n"
"  staffer only, for the benchmark: forecast=perfect (the true future\n"
"  rate in place of the forecast: a bound), drain=queue|excess,\n"
"  boost=gross|none (the alternatives the defaults were chosen against),\n"
"  feedback=on (slaMissQuery from the gateway's waits), feedback=bound\n"
"  (maxReplicaCount from the first miss: what no SLO feedback beats),\n"
"  w=given (W from serviceTime only), cold=measured (coldStartQuery\n"
"  answered with the median cold start of the replicas seen starting),\n"
"  age=S (its instant answers but the arrival rate S seconds old, as\n"
"  its server's answer cache serves them: 8.5 on average)\n"
"  key=value arguments are staffer metadata for every staffer policy.\n"
"output:\n"
"  --json              one JSON object per policy per line\n"
"  --timeseries FILE   CSV of every policy over time (--ts-step S, 15)\n"
"  --plot FILE.png     replicas, demand, queue, shed (needs gnuplot)\n"
"a split fleet (prefill and decode pools): staffer simulate --split --help\n"
"example: staffer simulate --trace conv.csv --overlay 8 --cold-start 120 \\\n"
"           --policy staffer --policy keda-queue:threshold=5 beta=2\n");
}

static void simulate_defaults(struct simulate_opts *o)
{
	memset(o, 0, sizeof(*o));
	simtraffic_defaults(&o->tr);
	o->service = "auto";
	o->service_mean = 5;
	o->service_drift = 1;
	o->service_cv = 1;
	sim_config_init(&o->sc);
	o->sc.slots = 16;
	o->initial = "first-minute";
	o->routing = "shared";
	o->hpa_tolerance = 0.1;
	o->downscale_window = 300;
	o->max_replicas = 100;
	o->ts_step = 15;
}

/* --policy NAME[:KEYS], repeatable. */
static int simulate_policy(void *ctx, const char *prog, const char *name,
			   const char *v)
{
	struct simulate_opts *o = ctx;

	if (o->npolicies == SIMULATE_POLICIES_MAX) {
		fprintf(stderr, "%s: at most %d --policy\n", prog,
			SIMULATE_POLICIES_MAX);
		return 2;
	}
	o->policies[o->npolicies++] = v;
	return 0;
}

/* key=value: staffer metadata for every staffer policy. */
static int simulate_arg(void *ctx, const char *prog, const char *a)
{
	struct simulate_opts *o = ctx;
	size_t klen = opt_key_value(prog, a, META_NAME_MAX);

	if (!klen)
		return 2;
	if (o->nmeta == SIMULATE_META_MAX) {
		fprintf(stderr, "%s: at most %d key=value arguments\n", prog,
			SIMULATE_META_MAX);
		return 2;
	}
	o->mkeys[o->nmeta] = strndup(a, klen);
	if (!o->mkeys[o->nmeta]) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 2;
	}
	o->mvals[o->nmeta++] = a + klen + 1;
	return 0;
}

#define OO(f) offsetof(struct simulate_opts, f)

static const struct opt simulate_opts_table[] = {
	OPT_CALL("--policy", simulate_policy),
	OPT_S("--trace", OO(tr.trace), OPT_NONEMPTY),
	OPT_S("--rates", OO(tr.rates), OPT_NONEMPTY),
	OPT_S("--shape", OO(tr.shape), OPT_NONEMPTY),
	OPT_D("--rate", OO(tr.rate), 1e-6, 1e6, "req/s", 0),
	OPT_D("--duration", OO(tr.duration), 1, TRACE_TIME_MAX, "seconds",
	      0),
	OPT_L("--overlay", OO(tr.overlay), 1, 1000, "copies"),
	OPT_D("--speedup", OO(tr.speedup), 1e-3, 1e6, "x", 0),
	OPT_L("--seed", OO(tr.seed), 0, 2147483647.0, NULL),
	OPT_D("--rate-compress", OO(tr.rate_compress), 1e-3, 1e6, "x", 0),
	OPT_D("--rate-scale", OO(tr.rate_scale), 1e-9, 1e6, "x", 0),
	OPT_D("--rate-start", OO(tr.rate_start), 0, 1e9, "seconds", 0),
	OPT_D("--rate-span", OO(tr.rate_span), 0, 1e9, "seconds", 0),
	OPT_S("--arrivals", OO(tr.arrivals), OPT_NONEMPTY),
	OPT_D("--input-mean", OO(tr.input_mean), 1, 1e6, "tokens", 0),
	OPT_D("--output-mean", OO(tr.output_mean), 0, 1e6, "tokens", 0),
	OPT_S("--service", OO(service), OPT_NONEMPTY),
	OPT_D("--service-mean", OO(service_mean), 1e-3, 86400, "seconds", 0),
	OPT_D("--service-cv", OO(service_cv), 0, 100, NULL, 0),
	OPT_D("--service-drift", OO(service_drift), 0.1, 10, "x", 0),
	OPT_S("--perf-model", OO(tr.perf_file), OPT_NONEMPTY),
	OPT_S("--perf-spec", OO(tr.perf_spec), OPT_NONEMPTY),
	OPT_D("--batch", OO(batch), 1, 100000, "requests", 0),
	OPT_L("--slots", OO(sc.slots), 1, SIM_SLOTS_MAX, "per replica"),
	OPT_D("--queue-timeout", OO(sc.queue_timeout_s), 0.001,
	      86400, "seconds", 0),
	OPT_D("--cold-start", OO(sc.cold_start_s), 0, 86400, "seconds", 0),
	OPT_D("--cold-start-cv", OO(sc.cold_start_cv), 0, SIM_COLD_CV_MAX,
	      NULL, 0),
	OPT_S("--initial-replicas", OO(initial), OPT_NONEMPTY),
	OPT_S("--routing", OO(routing), OPT_NONEMPTY),
	OPT_D("--sla", OO(sc.sla_s), 0, 86400, "seconds", 0),
	OPT_D("--scrape-interval", OO(sc.scrape_s), 1, 3600, "seconds", 0),
	OPT_D("--service-window", OO(sc.service_window_s), 2,
	      86400, "seconds", 0),
	OPT_D("--rate-window", OO(sc.rate_window_s), 2, 86400, "seconds", 0),
	OPT_D("--hpa-sync", OO(sc.hpa_sync_s), 1, 3600, "seconds", 0),
	OPT_D("--hpa-tolerance", OO(hpa_tolerance), 0, 10, NULL, 0),
	OPT_D("--downscale-window", OO(downscale_window), 0,
	      HPA_WINDOW_MAX, "seconds", 0),
	OPT_L("--max-replicas", OO(max_replicas), 1,
	      HPA_REPLICAS_MAX, "replicas"),
	OPT_F("--json", OO(json)),
	OPT_S("--timeseries", OO(ts_file), OPT_NONEMPTY),
	OPT_D("--ts-step", OO(ts_step), 1, 86400, "seconds", 0),
	OPT_S("--plot", OO(plot_file), OPT_NONEMPTY),
	OPT_END,
};

static const struct opt_spec simulate_spec = {
	"staffer simulate", simulate_opts_table, simulate_usage, simulate_arg
};

/* ---- traffic ------------------------------------------------------------- */

static int simulate_perf(const struct simulate_opts *o, struct perf *p,
			 char *err, size_t errlen)
{
	return perf_from_spec(p, o->tr.perf_file, o->tr.perf_spec, err,
			      errlen);
}

static int simulate_traffic(const struct simulate_opts *o, struct trace *t,
			    struct perf *perf, double *batch, char *desc,
			    size_t desclen, char *err, size_t errlen)
{
	struct simrng rng;
	enum trace_service how;

	simrng_seed(&rng, (uint64_t)o->tr.seed);
	if (simtraffic_load(&o->tr, &rng, t, desc, desclen, err, errlen))
		return -1;
	if (trace_service_parse(o->service, &how)) {
		snprintf(err, errlen, "--service '%.40s': allowed auto, "
			 "column, perf, exp, lognormal", o->service);
		return -1;
	}
	*batch = o->batch > 0 ? o->batch : (double)o->sc.slots;
	if (!o->batch && *batch > 64)
		*batch = 64;
	if (simulate_perf(o, perf, err, errlen))
		return -1;
	if (trace_set_service(t, how, perf, *batch, o->service_mean,
			      o->service_cv, &rng, err, errlen))
		return -1;
	return o->service_drift == 1 ? 0 :
	       trace_drift_service(t, o->service_drift, err, errlen);
}

/* ---- output -------------------------------------------------------------- */

struct simulate_ts {
	FILE *csv, *dat;
	size_t index;
	const char *name;
	double demand_max;
};


static void simulate_sample(void *arg, const struct sim_sample *x)
{
	struct simulate_ts *ts = arg;

	if (ts->csv) {
		csv_put_field(ts->csv, ts->name);
		fprintf(ts->csv, ",%.3f,%d,%d,%d,%d,%.4f,%llu,%llu,%llu,%d\n",
			x->t, (int)x->spec, (int)x->ready, (int)x->starting,
			(int)x->draining, x->demand,
			(unsigned long long)x->queue,
			(unsigned long long)x->inflight,
			(unsigned long long)x->shed, (int)x->raw);
	}
	if (x->demand > ts->demand_max)
		ts->demand_max = x->demand;
	if (ts->dat)
		fprintf(ts->dat, "%zu %.3f %d %.4f %llu %llu\n", ts->index,
			x->t, (int)x->spec, x->demand,
			(unsigned long long)x->queue,
			(unsigned long long)x->shed);
}

static void simulate_num(cJSON *o, const char *k, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

/* The traffic's per-minute index of dispersion (within 10-minute blocks),
 * printed with every run so that replays can be compared with real
 * arrivals (docs/benchmark.md). */
#define SIMULATE_IOD_BIN_S 60.0
#define SIMULATE_IOD_BLOCK_S 600.0

static int simulate_json(const char *name, const struct sim_result *r,
			 const struct trace *t, double iod)
{
	cJSON *o = cJSON_CreateObject();
	char *text;

	if (!o)
		return -1;
	cJSON_AddStringToObject(o, "policy", name);
	simulate_num(o, "sla_attainment", r->sla_attainment);
	simulate_num(o, "shed_fraction", r->shed_fraction);
	simulate_num(o, "wait_p50", r->wait_p50);
	simulate_num(o, "wait_p95", r->wait_p95);
	simulate_num(o, "wait_p99", r->wait_p99);
	simulate_num(o, "replica_hours", r->replica_hours);
	simulate_num(o, "lower_bound_hours", r->lower_bound_hours);
	cJSON_AddNumberToObject(o, "scale_events", (double)r->scale_events);
	cJSON_AddBoolToObject(o, "never_scales_up", r->never_scales_up);
	simulate_num(o, "span_hours", t->span_s / 3600);
	simulate_num(o, "arrival_dispersion_60s", iod);
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!text)
		return -1;
	printf("%s\n", text);
	free(text);
	fflush(stdout);
	return 0;
}

#define SIMULATE_NAME_W 34
#define SIMULATE_STATIC " (static)"

static void simulate_row(const struct policy *p, const struct sim_result *r)
{
	char label[SIMULATE_NAME_W + 1];
	int w = SIMULATE_NAME_W - (int)strlen(SIMULATE_STATIC);

	/* The mark must survive a long name: cut the name, not the mark.
	 * `static` itself says so already. */
	if (r->never_scales_up && p->kind != POLICY_STATIC)
		snprintf(label, sizeof(label), "%.*s%s", w, p->name,
			 SIMULATE_STATIC);
	else
		snprintf(label, sizeof(label), "%s", p->name);
	printf("%-34.34s %7.2f %6.2f %7.2f %7.2f %7.2f %9.1f %5.2f %6llu\n",
	       label, 100 * r->sla_attainment, 100 * r->shed_fraction,
	       r->wait_p50, r->wait_p95, r->wait_p99, r->replica_hours,
	       r->lower_bound_hours > 0 ?
	       r->replica_hours / r->lower_bound_hours : 0.0,
	       (unsigned long long)r->scale_events);
}

static void simulate_header(const struct simulate_opts *o,
			    const struct trace *t, const struct perf *perf,
			    double batch, const char *desc, const char *warm,
			    double iod)
{
	double work = trace_work_s(t);

	printf("traffic   %s: %zu requests over %.0f s (%.2f req/s), "
	       "per-minute index of dispersion %.3g\n", desc, t->n,
	       t->span_s, t->span_s > 0 ? t->n / t->span_s : 0, iod);
	printf("service   %s", o->service);
	if (!t->has_service || strcmp(o->service, "column"))
		printf(" (perf: %s, batch %g)", perf->desc, batch);
	if (o->service_drift != 1)
		printf(", drifting x1 to x%g", o->service_drift);
	printf(", mean %.2f s; offered load %.1f busy slots\n",
	       t->n ? work / t->n : 0, t->span_s > 0 ? work / t->span_s : 0);
	printf("fleet     %ld slots/replica, %s routing, cold start %g s",
	       o->sc.slots, sim_routing_name(o->sc.routing),
	       o->sc.cold_start_s);
	if (o->sc.cold_start_cv > 0)
		printf(" (median; lognormal CV %g)", o->sc.cold_start_cv);
	printf(", queue timeout %g s, SLA wait %g s, start %d replicas (%s)\n",
	       o->sc.queue_timeout_s, o->sc.sla_s,
	       (int)o->sc.initial_replicas, warm);
	printf("control   scrape %g s, rate window %g s (W over %g s), HPA "
	       "sync %g s\n\n", o->sc.scrape_s, o->sc.rate_window_s,
	       o->sc.service_window_s, o->sc.hpa_sync_s);
	printf("%-34s %7s %6s %7s %7s %7s %9s %5s %6s\n", "policy", "SLA%",
	       "shed%", "p50 s", "p95 s", "p99 s", "rep-h", "/LB", "scale");
}

/* ---- the command --------------------------------------------------------- */

int cmd_simulate(int argc, char **argv)
{
	int i_split;
	enum opt_rc orc;
	struct simulate_opts o;
	struct policy *pol = NULL;
	struct trace t;
	struct demand d;
	struct perf perf;
	struct simulate_ts ts;
	char err[SIMULATE_ERR_MAX], desc[512];
	char dat_path[64] = "";
	const char *names[SIMULATE_POLICIES_MAX];
	const char *warm = "given";
	double batch = 1, iod;
	size_t i, npol;
	int32_t min_all = INT32_MAX;
	int rc = 2, fd;

	/* A split fleet is simulated by splitcmd.c. */
	for (i_split = 0; i_split < argc; i_split++)
		if (!strcmp(argv[i_split], "--split"))
			return cmd_simulate_split(argc, argv);
	simulate_defaults(&o);
	trace_init(&t);
	demand_init(&d);
	memset(&ts, 0, sizeof(ts));
	orc = opt_parse(&simulate_spec, argc, argv, &o);
	if (orc != OPT_OK) {
		rc = opt_status(orc);
		goto out;
	}
	if (o.npolicies == 0) {
		for (i = 0; i < sizeof(simulate_default_policies) /
			    sizeof(simulate_default_policies[0]); i++)
			o.policies[o.npolicies++] =
				simulate_default_policies[i];
	}
	if (sim_routing_parse(o.routing, &o.sc.routing)) {
		fprintf(stderr, "staffer simulate: --routing '%.40s': allowed "
			"shared, least-loaded, round-robin\n", o.routing);
		goto out;
	}
	npol = o.npolicies;
	pol = calloc(npol, sizeof(*pol));
	if (!pol) {
		rc = 1;
		goto out;
	}
	for (i = 0; i < npol; i++) {
		if (policy_parse(&pol[i], o.policies[i],
				 (const char *const *)o.mkeys, o.mvals,
				 o.nmeta, o.sc.slots,
				 (int32_t)o.max_replicas, err, sizeof(err))) {
			fprintf(stderr, "staffer simulate: %s\n", err);
			goto out;
		}
		pol[i].hpa.tolerance = o.hpa_tolerance;
		pol[i].hpa.downscale_window_s = (int32_t)o.downscale_window;
		names[i] = pol[i].name;
		if (pol[i].keda.min_replica_count < min_all)
			min_all = pol[i].keda.min_replica_count;
	}
	if (simulate_traffic(&o, &t, &perf, &batch, desc, sizeof(desc), err,
			     sizeof(err))) {
		fprintf(stderr, "staffer simulate: %s\n", err);
		goto out;
	}
	if (demand_build(&d, &t, err, sizeof(err))) {
		fprintf(stderr, "staffer simulate: %s\n", err);
		rc = 1;
		goto out;
	}
	o.sc.end_s = t.span_s > 0 ? t.span_s : 1;
	/* Another stream than the traffic's, from the same seed. */
	o.sc.cold_seed = (uint64_t)o.tr.seed ^ 0x636f6c64u;
	iod = trace_dispersion(&t, SIMULATE_IOD_BIN_S, SIMULATE_IOD_BLOCK_S);
	/* Both warm starts respect the lowest minReplicaCount: an operator
	 * would not have run fewer. */
	if (!strcmp(o.initial, "first-minute")) {
		o.sc.initial_replicas = sim_first_minute_replicas(&o.sc, &d,
				min_all > 1 ? min_all : 1);
		warm = "first-minute";
	} else if (!strcmp(o.initial, "auto")) {
		o.sc.initial_replicas = sim_initial_replicas(&o.sc, &d,
				min_all > 1 ? min_all : 1);
		warm = "auto";
	} else {
		long v;

		if (num_parse_long(o.initial, &v) || v < 0 ||
		    v > HPA_REPLICAS_MAX) {
			fprintf(stderr, "staffer simulate: --initial-replicas "
				"'%.40s': allowed first-minute, auto or a "
				"whole number from 0 to %d\n", o.initial,
				HPA_REPLICAS_MAX);
			goto out;
		}
		o.sc.initial_replicas = (int32_t)v;
		warm = "given";
	}
	o.sc.ts_step_s = (o.ts_file || o.plot_file) ? o.ts_step : 0;
	if (sim_config_check(&o.sc, err, sizeof(err))) {
		fprintf(stderr, "staffer simulate: %s\n", err);
		goto out;
	}
	rc = 1;
	if (o.ts_file) {
		ts.csv = fopen(o.ts_file, "w");
		if (!ts.csv) {
			perror(o.ts_file);
			goto out;
		}
		fprintf(ts.csv, "policy,t,replicas,ready,starting,draining,"
			"demand,queue,inflight,shed,staffer_raw\n");
	}
	if (o.plot_file) {
		const char *dir = getenv("TMPDIR");

		if (!dir || !dir[0] || strlen(dir) > 40)
			dir = "/tmp";
		snprintf(dat_path, sizeof(dat_path), "%s/staffer-plot-XXXXXX",
			 dir);
		fd = mkstemp(dat_path);
		if (fd < 0 || !(ts.dat = fdopen(fd, "w"))) {
			perror("staffer simulate: plot data");
			if (fd >= 0)
				close(fd);
			dat_path[0] = '\0';
			goto out;
		}
	}
	if (!o.json)
		simulate_header(&o, &t, &perf, batch, desc, warm, iod);
	for (i = 0; i < npol; i++) {
		struct sim_result r;

		ts.index = i;
		ts.name = pol[i].name;
		if (sim_run(&o.sc, &t, &d, &pol[i], &r,
			    o.sc.ts_step_s > 0 ? simulate_sample : NULL, &ts,
			    err, sizeof(err))) {
			fprintf(stderr, "staffer simulate: %s: %s\n",
				pol[i].name, err);
			goto out;
		}
		if (o.json) {
			if (simulate_json(pol[i].name, &r, &t, iod))
				goto out;
		} else {
			simulate_row(&pol[i], &r);
		}
	}
	if (!o.json)
		printf("\nSLA%%: requests started within %g s of arrival (shed "
		       "ones count as misses); waits: of started requests,\n"
		       "nearest rank; rep-h: replica-hours over the trace; "
		       "/LB: over busy slot-hours / slots.\n", o.sc.sla_s);
	if (ts.csv && fclose(ts.csv)) {
		ts.csv = NULL;
		perror(o.ts_file);
		goto out;
	}
	ts.csv = NULL;
	if (ts.dat) {
		if (fclose(ts.dat)) {
			ts.dat = NULL;
			perror("staffer simulate: plot data");
			goto out;
		}
		ts.dat = NULL;
		if (simplot_render(dat_path, o.plot_file, desc, names, npol,
				   ceil(2.5 * ts.demand_max + 2), err,
				   sizeof(err))) {
			fprintf(stderr, "staffer simulate: %s\n", err);
			goto out;
		}
	}
	rc = 0;
out:
	if (ts.csv)
		fclose(ts.csv);
	if (ts.dat)
		fclose(ts.dat);
	if (dat_path[0])
		unlink(dat_path);
	if (pol)
		for (i = 0; i < o.npolicies; i++)
			policy_release(&pol[i]);
	free(pol);
	for (i = 0; i < o.nmeta; i++)
		free(o.mkeys[i]);
	demand_free(&d);
	trace_free(&t);
	return rc;
}
