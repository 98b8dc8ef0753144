/* req.c - see req.h. */
#include "req.h"

#include <string.h>

#include <grpc/slice.h>

#include "externalscaler.pb-c.h"
#include "health.pb-c.h"

typedef Externalscaler__ScaledObjectRef__ScalerMetadataEntry req_entry;

/* A ScaledObjectRef and the storage of its metadata map. */
struct req_ref_buf {
	Externalscaler__ScaledObjectRef ref;
	req_entry e[4];
	req_entry *es[4];
};

/* req_set_meta()'s pair; key NULL: none. */
static struct {
	char key[REQ_NAME_MAX], value[REQ_NAME_MAX];
	int on;
} extra;

int req_set_meta(const char *kv)
{
	const char *eq = strchr(kv, '=');

	if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof(extra.key) ||
	    strlen(eq + 1) >= sizeof(extra.value))
		return -1;
	memcpy(extra.key, kv, (size_t)(eq - kv));
	extra.key[eq - kv] = '\0';
	memcpy(extra.value, eq + 1, strlen(eq + 1) + 1);
	extra.on = 1;
	return 0;
}

static void req_ref_fill(struct req_ref_buf *b, const char *ns,
			 const char *name, const char *query)
{
	static const req_entry init =
		EXTERNALSCALER__SCALED_OBJECT_REF__SCALER_METADATA_ENTRY__INIT;
	static const Externalscaler__ScaledObjectRef ref_init =
		EXTERNALSCALER__SCALED_OBJECT_REF__INIT;
	int i;

	b->ref = ref_init;
	for (i = 0; i < 4; i++) {
		b->e[i] = init;
		b->es[i] = &b->e[i];
	}
	/* KEDA passes the trigger's metadata verbatim, its own keys too */
	b->e[0].key = "scalerAddress";
	b->e[0].value = "staffer.keda.svc:9090";
	b->e[1].key = "arrivalRateQuery";
	b->e[1].value = (char *)query;
	b->e[2].key = "serviceTime";
	b->e[2].value = "10";
	b->ref.name = (char *)name;
	b->ref.namespace_ = (char *)ns;
	b->e[3].key = extra.key;
	b->e[3].value = extra.value;
	b->ref.n_scalermetadata = extra.on ? 4 : 3;
	b->ref.scalermetadata = b->es;
}

static grpc_slice req_pack(const ProtobufCMessage *m)
{
	size_t len = protobuf_c_message_get_packed_size(m);
	grpc_slice s = grpc_slice_malloc(len);

	protobuf_c_message_pack(m, GRPC_SLICE_START_PTR(s));
	return s;
}

grpc_slice req_ref(const char *ns, const char *name, const char *query)
{
	struct req_ref_buf b;

	req_ref_fill(&b, ns, name, query);
	return req_pack(&b.ref.base);
}

grpc_slice req_metrics(const char *ns, const char *name, const char *query)
{
	Externalscaler__GetMetricsRequest req =
		EXTERNALSCALER__GET_METRICS_REQUEST__INIT;
	struct req_ref_buf b;

	req_ref_fill(&b, ns, name, query);
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
