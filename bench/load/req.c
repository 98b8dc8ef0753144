/* req.c - see req.h. */
#include "req.h"

#include <stdio.h>
#include <string.h>

#include <grpc/slice.h>

#include "externalscaler.pb-c.h"
#include "health.pb-c.h"

typedef Externalscaler__ScaledObjectRef__ScalerMetadataEntry req_entry;

/* The keys every request carries, in this order, unless req_add_meta()
 * replaced or removed them. */
enum { REQ_K_ADDRESS, REQ_K_ARRIVAL, REQ_K_SERVICE, REQ_K_N };

static const char *const req_keys[REQ_K_N] = {
	"scalerAddress", "arrivalRateQuery", "serviceTime",
};

#define REQ_ENTRIES_MAX (REQ_K_N + REQ_META_MAX)

/* A ScaledObjectRef and the storage of its metadata map. */
struct req_ref_buf {
	Externalscaler__ScaledObjectRef ref;
	req_entry e[REQ_ENTRIES_MAX];
	req_entry *es[REQ_ENTRIES_MAX];
	char values[REQ_META_MAX][REQ_VALUE_MAX];  /* extra's, "{i}" replaced */
};

/* req_add_meta()'s pairs, in the order given. */
static struct {
	char key[REQ_NAME_MAX], value[REQ_VALUE_MAX];
	int builtin;                  /* the REQ_K_* it replaces, or -1 */
} extra[REQ_META_MAX];
static size_t n_extra;

int req_subst(char *out, size_t size, const char *fmt, unsigned long i)
{
	char num[REQ_INDEX_DIGITS + 1];
	size_t need = 0, n = 0, w;
	const char *p;
	int k;

	k = snprintf(num, sizeof(num), "%lu", i);
	if (k < 0 || (size_t)k >= sizeof(num))
		return -1;
	w = (size_t)k;
	/* measure first: out is written only when the whole of it fits */
	for (p = fmt; *p; p++) {
		if (!strncmp(p, "{i}", 3)) {
			need += w;
			p += 2;
		} else {
			need++;
		}
	}
	if (need >= size)
		return -1;
	for (p = fmt; *p; p++) {
		if (!strncmp(p, "{i}", 3)) {
			memcpy(out + n, num, w);
			n += w;
			p += 2;
		} else {
			out[n++] = *p;
		}
	}
	out[n] = '\0';
	return 0;
}

int req_add_meta(const char *kv, char *why, size_t len)
{
	const char *eq = strchr(kv, '='), *p;
	size_t klen, vlen, holes = 0, k;
	int builtin = -1;

	if (!eq || eq == kv) {
		snprintf(why, len, "--meta wants KEY=VALUE, not '%.60s'", kv);
		return -1;
	}
	klen = (size_t)(eq - kv);
	if (klen >= sizeof(extra[0].key)) {
		snprintf(why, len, "--meta: the key '%.40s...' is longer than "
			 "%zu bytes", kv, sizeof(extra[0].key) - 1);
		return -1;
	}
	for (k = 0; k < n_extra; k++)
		if (strlen(extra[k].key) == klen &&
		    !strncmp(extra[k].key, kv, klen)) {
			snprintf(why, len, "--meta: the key '%.*s' is given "
				 "twice", (int)klen, kv);
			return -1;
		}
	if (n_extra >= REQ_META_MAX) {
		snprintf(why, len, "--meta: at most %d of them", REQ_META_MAX);
		return -1;
	}
	/* each "{i}" grows by up to REQ_INDEX_DIGITS - 3 bytes when packed */
	for (p = eq + 1; (p = strstr(p, "{i}")); p += 3)
		holes++;
	vlen = strlen(eq + 1);
	if (vlen + holes * (REQ_INDEX_DIGITS - 3) >= REQ_VALUE_MAX) {
		snprintf(why, len, "--meta: the value of '%.*s' could "
			 "outgrow %d bytes (%zu bytes, each of its %zu {i} "
			 "counted as %d)", (int)klen, kv, REQ_VALUE_MAX - 1,
			 vlen, holes, REQ_INDEX_DIGITS);
		return -1;
	}
	for (k = 0; k < REQ_K_N; k++)
		if (strlen(req_keys[k]) == klen &&
		    !strncmp(req_keys[k], kv, klen))
			builtin = (int)k;
	memcpy(extra[n_extra].key, kv, klen);
	extra[n_extra].key[klen] = '\0';
	memcpy(extra[n_extra].value, eq + 1, vlen + 1);
	extra[n_extra].builtin = builtin;
	n_extra++;
	return 0;
}

static void req_entry_add(struct req_ref_buf *b, const char *key,
			  const char *value)
{
	static const req_entry init =
		EXTERNALSCALER__SCALED_OBJECT_REF__SCALER_METADATA_ENTRY__INIT;
	size_t n = b->ref.n_scalermetadata;

	b->e[n] = init;
	b->e[n].key = (char *)key;
	b->e[n].value = (char *)value;
	b->es[n] = &b->e[n];
	b->ref.n_scalermetadata = n + 1;
}

static void req_ref_fill(struct req_ref_buf *b, const char *ns,
			 const char *name, const char *query, unsigned long i)
{
	static const Externalscaler__ScaledObjectRef ref_init =
		EXTERNALSCALER__SCALED_OBJECT_REF__INIT;
	const char *base[REQ_K_N];
	size_t k, x;

	b->ref = ref_init;
	b->ref.name = (char *)name;
	b->ref.namespace_ = (char *)ns;
	b->ref.scalermetadata = b->es;
	/* never fails: req_add_meta() left room for any index */
	for (x = 0; x < n_extra; x++)
		if (req_subst(b->values[x], sizeof(b->values[x]),
			      extra[x].value, i))
			b->values[x][0] = '\0';
	/* KEDA passes the trigger's metadata verbatim, its own keys too */
	base[REQ_K_ADDRESS] = "staffer.keda.svc:9090";
	base[REQ_K_ARRIVAL] = query;
	base[REQ_K_SERVICE] = "10";
	for (k = 0; k < REQ_K_N; k++) {
		const char *v = base[k];

		for (x = 0; x < n_extra; x++)
			if (extra[x].builtin == (int)k)
				v = b->values[x][0] ? b->values[x] : NULL;
		if (v)
			req_entry_add(b, req_keys[k], v);
	}
	for (x = 0; x < n_extra; x++)
		if (extra[x].builtin < 0)
			req_entry_add(b, extra[x].key, b->values[x]);
}

static grpc_slice req_pack(const ProtobufCMessage *m)
{
	size_t len = protobuf_c_message_get_packed_size(m);
	grpc_slice s = grpc_slice_malloc(len);

	protobuf_c_message_pack(m, GRPC_SLICE_START_PTR(s));
	return s;
}

grpc_slice req_ref(const char *ns, const char *name, const char *query,
		   unsigned long i)
{
	struct req_ref_buf b;

	req_ref_fill(&b, ns, name, query, i);
	return req_pack(&b.ref.base);
}

grpc_slice req_metrics(const char *ns, const char *name, const char *query,
		       unsigned long i)
{
	Externalscaler__GetMetricsRequest req =
		EXTERNALSCALER__GET_METRICS_REQUEST__INIT;
	struct req_ref_buf b;

	req_ref_fill(&b, ns, name, query, i);
	req.scaledobjectref = &b.ref;
	req.metricname = "staffer";
	return req_pack(&req.base);
}

grpc_slice req_health(void)
{
	Grpc__Health__V1__HealthCheckRequest req =
		GRPC__HEALTH__V1__HEALTH_CHECK_REQUEST__INIT;

	return req_pack(&req.base);
}
