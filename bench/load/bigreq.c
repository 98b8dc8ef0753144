/*
 * bigreq.c - `staffer-load bigreq`: requests near staffer's 1 MiB cap,
 * many at once (issue 23's memory attack): --inflight calls over
 * --channels connections for --seconds, each a GetMetrics of about 1 MiB
 * (a metadata map of 32 values of 32 KiB).  staffer must answer each
 * (INVALID_ARGUMENT: no such keys; RESOURCE_EXHAUSTED: over its request
 * budget) and stay within its memory: the result line has the answers by
 * status and the server's peak resident set (VmHWM) before and after.
 */
#include <stdio.h>
#include <string.h>

#include "externalscaler.pb-c.h"
#include "load.h"

#define BIG_KEYS 32
#define BIG_VALUE (32 * 1024 - 40)

typedef Externalscaler__ScaledObjectRef__ScalerMetadataEntry big_entry;

/* One request of about BIG_KEYS * BIG_VALUE bytes. */
static grpc_slice big_request(const char *ns)
{
	static char value[BIG_VALUE + 1];
	static const big_entry init =
		EXTERNALSCALER__SCALED_OBJECT_REF__SCALER_METADATA_ENTRY__INIT;
	Externalscaler__GetMetricsRequest req =
		EXTERNALSCALER__GET_METRICS_REQUEST__INIT;
	Externalscaler__ScaledObjectRef ref =
		EXTERNALSCALER__SCALED_OBJECT_REF__INIT;
	big_entry e[BIG_KEYS], *es[BIG_KEYS];
	char keys[BIG_KEYS][8];
	grpc_slice s;
	int i;

	memset(value, 'x', BIG_VALUE);
	for (i = 0; i < BIG_KEYS; i++) {
		snprintf(keys[i], sizeof(keys[i]), "pad%02d", i);
		e[i] = init;
		e[i].key = keys[i];
		e[i].value = value;
		es[i] = &e[i];
	}
	ref.name = "big";
	ref.namespace_ = (char *)ns;
	ref.n_scalermetadata = BIG_KEYS;
	ref.scalermetadata = es;
	req.scaledobjectref = &ref;
	req.metricname = "staffer";
	s = grpc_slice_malloc(protobuf_c_message_get_packed_size(&req.base));
	protobuf_c_message_pack(&req.base, GRPC_SLICE_START_PTR(s));
	return s;
}

/* pid's peak resident set (VmHWM), bytes; -1 when unknown. */
static double peak_rss(pid_t pid)
{
	char path[64], line[256];
	double kb = -1;
	FILE *fp;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "VmHWM: %lf kB", &kb) == 1)
			break;
	fclose(fp);
	return kb < 0 ? -1 : kb * 1024;
}

struct big {
	struct lc *c;
	grpc_slice req;
	double timeout_s, until;
	unsigned long codes[17], started, failed_start;
};

static void big_start(struct big *b);

static void big_done(void *arg, const struct lc_result *r)
{
	struct big *b = arg;

	b->codes[(unsigned)r->status < 17 ? r->status : 2]++;
	if (lc_now() < b->until)
		big_start(b);
}

static void big_start(struct big *b)
{
	if (lc_unary(b->c, LC_GET_METRICS, b->req, b->timeout_s, big_done,
		     b))
		b->failed_start++;
	else
		b->started++;
}

int load_bigreq(struct lc *c, const struct load_opts *o)
{
	static const char *const names[17] = {
		"ok", "cancelled", "unknown", "invalid_argument",
		"deadline_exceeded", "not_found", "already_exists",
		"permission_denied", "resource_exhausted",
		"failed_precondition", "aborted", "out_of_range",
		"unimplemented", "internal", "unavailable", "data_loss",
		"unauthenticated",
	};
	struct big b;
	double peak0 = peak_rss(o->pid), t0;
	int i, inflight = o->n_inflights ? o->inflights[0] : 256;

	memset(&b, 0, sizeof(b));
	b.c = c;
	b.req = big_request(o->ns);
	b.timeout_s = o->timeout_s;
	t0 = lc_now();
	b.until = t0 + o->seconds;
	load_progress("bigreq: %d calls of %zu bytes in flight for %.1f s",
		      inflight, GRPC_SLICE_LENGTH(b.req), o->seconds);
	for (i = 0; i < inflight; i++)
		big_start(&b);
	while (lc_unary_inflight(c) > 0)
		lc_poll(c, lc_now() + 1);
	printf("result bigreq bytes=%zu inflight=%d channels=%d seconds=%.3f "
	       "started=%lu failed_start=%lu", GRPC_SLICE_LENGTH(b.req),
	       inflight, o->channels, lc_now() - t0, b.started,
	       b.failed_start);
	for (i = 0; i < 17; i++)
		if (b.codes[i])
			printf(" %s=%lu", names[i], b.codes[i]);
	printf(" server_peak_rss_before=%.0f server_peak_rss=%.0f\n", peak0,
	       peak_rss(o->pid));
	grpc_slice_unref(b.req);
	return 0;
}
