/*
 * rpc.c - see rpc.h.
 *
 * Every call is a struct call.  Each outstanding batch has its own tag,
 * embedded in the call, whose step function runs on the completion-queue
 * thread when the batch completes.  Unary calls have one batch in flight
 * at a time (request, then reply).  A StreamIsActive call keeps a
 * RECV_CLOSE_ON_SERVER batch outstanding from the start (to learn at once
 * when KEDA goes away), at most one SEND_MESSAGE batch, an evaluation in
 * its group (the streams of one trigger share its evaluations; see
 * "StreamIsActive" below), and finally a status batch; a reference count
 * under the server's stream mutex frees it when the last of those ends,
 * on whichever thread.
 */
#include "rpc.h"

#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/log.h>
#include <grpc/support/time.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "certs.h"
#include "externalscaler.pb-c.h"
#include "fprint.h"
#include "health.pb-c.h"
#include "kname.h"
#include "log.h"
#include "mcache.h"
#include "meta.h"
#include "mono.h"
#include "pb.h"
#include "sheap.h"
#include "show.h"
#include "stats.h"

#define TICK_S 0.2            /* longest sleep of the loop: signal latency */
#define RPC_GROUP_BUCKETS 4096 /* stream groups' hash table */

struct call;
struct sgroup;

struct tag {
	void (*step)(struct call *c, int ok);
	struct call *c;
};

enum method_id {
	M_IS_ACTIVE,
	M_STREAM_IS_ACTIVE,
	M_GET_METRIC_SPEC,
	M_GET_METRICS,
	M_HEALTH_CHECK,
	M_COUNT,
	M_GENERIC = M_COUNT,  /* anything not registered */
};

struct method {
	const char *path;
	void (*start)(struct call *c);
};

struct rpc_server {
	grpc_server *server;
	grpc_completion_queue *cq;
	/* StreamIsActive calls are bound to their own queue, drained by the
	 * stream thread: gRPC core (as Debian builds it, with assertions)
	 * scans a queue's outstanding tags on every completion, and 5,000
	 * streams' pending batches would be scanned on every unary call. */
	grpc_completion_queue *scq;
	pthread_t sthread;
	int sthread_started;
	struct scaler *sc;
	struct fetch *fetch;
	double grace_s;
	void *handles[M_COUNT];
	atomic_int live;          /* call objects alive, and stream groups'
				   * evaluations in flight */
	int shutting_down;        /* CQ thread only */
	int shutdown_done;
	struct tag t_shutdown;
	pthread_mutex_t smu;      /* stream groups (see "StreamIsActive") */
	struct sgroup *groups[RPC_GROUP_BUCKETS];
	struct sheap due;         /* groups waiting for their next check */
	struct mcache *mc;        /* parsed metadata by map; CQ thread */
	int streams_stopping;     /* smu: no more evaluations (shutdown) */
	struct stats *stats;      /* NULL: not counted */
	int mtls;                 /* callers are known by their certificate */
	struct budget *budget;    /* request bytes in flight; NULL: none */
	volatile sig_atomic_t *reload;
	void (*on_reload)(void *arg);
	void *reload_arg;
};

struct call {
	struct rpc_server *srv;
	enum method_id method;
	grpc_call *call;
	gpr_timespec deadline;
	grpc_metadata_array md;
	grpc_byte_buffer *payload;
	grpc_call_details details;        /* generic calls only */
	struct tag t_main, t_close, t_send, t_status;
	grpc_byte_buffer *reply;          /* the unary reply in flight */
	grpc_byte_buffer *sending;        /* the stream message in flight */
	int cancelled;
	double arrived;                   /* mono_now() when it came */
	char fprint[FPRINT_HEX + 1];      /* the trigger's (fprint.h) */
	char caller[FETCH_CALLER_MAX];    /* who called (call_identify()) */
	const struct config_client *client; /* its `clients` entry, or NULL;
					     * valid in its first step */
	size_t charged;                   /* bytes of the budget it holds */

	/* StreamIsActive only; guarded by srv->smu (see "StreamIsActive"). */
	int refs;
	struct sgroup *group;             /* its trigger's group */
	struct call *gnext, *gprev;       /* group.members */
	grpc_status_code status_code;     /* what status_sent sent */
	unsigned sent_any : 1, last_active : 1, send_inflight : 1,
		 pending_true : 1, want_status : 1, status_sent : 1,
		 closed : 1;
};

static void start_is_active(struct call *c);
static void start_stream_is_active(struct call *c);
static void start_get_metric_spec(struct call *c);
static void start_get_metrics(struct call *c);
static void start_health_check(struct call *c);

static const struct method methods[M_COUNT] = {
	[M_IS_ACTIVE] = { "/externalscaler.ExternalScaler/IsActive",
			  start_is_active },
	[M_STREAM_IS_ACTIVE] = {
		"/externalscaler.ExternalScaler/StreamIsActive",
		start_stream_is_active },
	[M_GET_METRIC_SPEC] = {
		"/externalscaler.ExternalScaler/GetMetricSpec",
		start_get_metric_spec },
	[M_GET_METRICS] = { "/externalscaler.ExternalScaler/GetMetrics",
			    start_get_metrics },
	[M_HEALTH_CHECK] = { "/grpc.health.v1.Health/Check",
			     start_health_check },
};

/* The method's name alone ("GetMetrics"), for log fields. */
static const char *method_name(enum method_id m)
{
	const char *slash = strrchr(methods[m].path, '/');

	return slash ? slash + 1 : methods[m].path;
}

/* ---- call objects ------------------------------------------------------ */

static struct call *call_new(struct rpc_server *srv, enum method_id m)
{
	struct call *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->srv = srv;
	c->method = m;
	grpc_metadata_array_init(&c->md);
	grpc_call_details_init(&c->details);
	c->t_main.c = c->t_close.c = c->t_send.c = c->t_status.c = c;
	atomic_fetch_add(&srv->live, 1);
	return c;
}

static void call_free(struct call *c)
{
	struct rpc_server *srv = c->srv;

	if (c->charged)
		budget_give(srv->budget, c->caller, c->charged);
	if (c->payload)
		grpc_byte_buffer_destroy(c->payload);
	if (c->reply)
		grpc_byte_buffer_destroy(c->reply);
	if (c->sending)
		grpc_byte_buffer_destroy(c->sending);
	grpc_metadata_array_destroy(&c->md);
	grpc_call_details_destroy(&c->details);
	if (c->call)
		grpc_call_unref(c->call);
	free(c);
	atomic_fetch_sub(&srv->live, 1);
}

static void on_requested(struct call *c, int ok);

/* Ask gRPC for the next call of method m. */
static void request_call(struct rpc_server *srv, enum method_id m)
{
	struct call *c = call_new(srv, m);
	grpc_call_error err;

	if (!c) {
		log_error("out of memory: cannot accept more calls");
		return;
	}
	c->t_main.step = on_requested;
	if (m == M_GENERIC)
		err = grpc_server_request_call(srv->server, &c->call,
					       &c->details, &c->md, srv->cq,
					       srv->cq, &c->t_main);
	else
		err = grpc_server_request_registered_call(
			srv->server, srv->handles[m], &c->call, &c->deadline,
			&c->md, &c->payload,
			m == M_STREAM_IS_ACTIVE ? srv->scq : srv->cq, srv->cq,
			&c->t_main);
	if (err != GRPC_CALL_OK) {
		log_error("cannot request calls: %s",
			  grpc_call_error_to_string(err));
		call_free(c);
	}
}

/* ---- unary replies ------------------------------------------------------ */

static void on_unary_done(struct call *c, int ok)
{
	(void)ok;
	call_free(c);
}

/* Count call c as answered with code (stats.h).  A generic call is named
 * by its path's last part, which stats_rpc() only compares. */
static void call_count(struct call *c, grpc_status_code code)
{
	char name[64] = "";
	const char *path = NULL, *slash;
	size_t n;

	if (!c->srv->stats)
		return;
	if (c->method != M_GENERIC) {
		path = methods[c->method].path;
	} else {
		n = GRPC_SLICE_LENGTH(c->details.method);
		if (n >= sizeof(name))
			n = sizeof(name) - 1;
		memcpy(name, GRPC_SLICE_START_PTR(c->details.method), n);
		name[n] = '\0';
		path = name;
	}
	slash = strrchr(path, '/');
	stats_rpc(c->srv->stats, slash ? slash + 1 : path, (int)code,
		  mono_now() - c->arrived);
}

/*
 * Finish a unary call with a status and, when OK, a reply (ownership of
 * reply moves to the call).  Safe from any thread.
 */
static void call_reply(struct call *c, grpc_status_code code,
		       const char *msg, grpc_byte_buffer *reply)
{
	grpc_op ops[4];
	grpc_op *op = ops;
	grpc_slice details = grpc_slice_from_copied_string(msg ? msg : "");
	grpc_call_error err;

	call_count(c, code);
	memset(ops, 0, sizeof(ops));
	op->op = GRPC_OP_SEND_INITIAL_METADATA;
	op++;
	if (reply && code == GRPC_STATUS_OK) {
		c->reply = reply;
		op->op = GRPC_OP_SEND_MESSAGE;
		op->data.send_message.send_message = reply;
		op++;
	} else if (reply) {
		grpc_byte_buffer_destroy(reply);
	}
	op->op = GRPC_OP_SEND_STATUS_FROM_SERVER;
	op->data.send_status_from_server.status = code;
	op->data.send_status_from_server.status_details = &details;
	op++;
	op->op = GRPC_OP_RECV_CLOSE_ON_SERVER;
	op->data.recv_close_on_server.cancelled = &c->cancelled;
	op++;
	c->t_main.step = on_unary_done;
	err = grpc_call_start_batch(c->call, ops, (size_t)(op - ops),
				    &c->t_main, NULL);
	grpc_slice_unref(details);
	if (err != GRPC_CALL_OK) {
		log_error("%s: cannot reply: %s", methods[c->method].path,
			  grpc_call_error_to_string(err));
		call_free(c);
	}
}

static void reply_msg(struct call *c, const ProtobufCMessage *m)
{
	grpc_byte_buffer *bb = pb_pack(m);

	if (!bb)
		call_reply(c, GRPC_STATUS_INTERNAL, "cannot pack reply", NULL);
	else
		call_reply(c, GRPC_STATUS_OK, NULL, bb);
}

/* ---- requests ----------------------------------------------------------- */

/*
 * A namespace and a name as Kubernetes has them (kname.h): anything else
 * did not come from KEDA, and would forge state keys, queues, log lines
 * and /metrics series.  0; -1 when the call has been answered
 * INVALID_ARGUMENT with the rule broken.
 */
static int check_names(struct call *c, const Externalscaler__ScaledObjectRef *ref)
{
	char why[KNAME_WHY_MAX], shown[64 + 4], msg[SCALER_MSG_MAX];
	const char *field = "namespace", *v = ref->namespace_;

	if (!kname_check(KNAME_LABEL, v, why)) {
		field = "name";
		v = ref->name;
		if (!kname_check(KNAME_SUBDOMAIN, v, why))
			return 0;
	}
	show_escaped(shown, 64, v, strlen(v));
	snprintf(msg, sizeof(msg), "scaledObjectRef.%s '%s' is not a "
		 "Kubernetes %s: %s", field, shown, field, why);
	call_reply(c, GRPC_STATUS_INVALID_ARGUMENT, msg, NULL);
	return -1;
}

static grpc_status_code scaler_status(enum scaler_err e);

#define RPC_PEER_IDS 16   /* SANs of one kind read from a certificate */

/* Printable ASCII of src, a newline-free caller key of kind "kind:" into
 * c->caller (cut to fit). */
static void caller_set(struct call *c, const char *kind, const char *src,
		       size_t len)
{
	size_t n = 0, k = strlen(kind), i;

	if (k > sizeof(c->caller) - 1)
		k = sizeof(c->caller) - 1;
	memcpy(c->caller, kind, k);
	n = k;
	for (i = 0; i < len && n < sizeof(c->caller) - 1; i++) {
		unsigned char ch = (unsigned char)src[i];

		c->caller[n++] = ch > 0x20 && ch < 0x7f ? (char)ch : '?';
	}
	c->caller[n] = '\0';
}

/* The connection's peer address without its port ("ipv4:10.0.0.7",
 * "ipv6:[fd00::7]") as the caller: every connection of one pod is one
 * caller, whatever its source port. */
static void caller_from_peer(struct call *c)
{
	char *peer = grpc_call_get_peer(c->call);
	const char *colon;
	size_t len;

	if (!peer) {
		snprintf(c->caller, sizeof(c->caller), "peer:unknown");
		return;
	}
	colon = strrchr(peer, ':');
	len = colon && colon > peer && strncmp(peer, "unix:", 5) ?
	      (size_t)(colon - peer) : strlen(peer);
	caller_set(c, "", peer, len);
	gpr_free(peer);
}

/* The identities of the call's verified client certificate, from gRPC's
 * auth context: its URI and DNS SANs and its CN, into p (strings owned
 * by ctx). */
static void peer_ids(grpc_auth_context *ctx, struct config_peer *p,
		     const char *uri[RPC_PEER_IDS],
		     const char *dns[RPC_PEER_IDS])
{
	grpc_auth_property_iterator it;
	const grpc_auth_property *prop;

	memset(p, 0, sizeof(*p));
	p->uri = uri;
	p->dns = dns;
	it = grpc_auth_context_find_properties_by_name(
		ctx, GRPC_PEER_URI_PROPERTY_NAME);
	while ((prop = grpc_auth_property_iterator_next(&it)) &&
	       p->n_uri < RPC_PEER_IDS)
		uri[p->n_uri++] = prop->value;
	it = grpc_auth_context_find_properties_by_name(
		ctx, GRPC_PEER_DNS_PROPERTY_NAME);
	while ((prop = grpc_auth_property_iterator_next(&it)) &&
	       p->n_dns < RPC_PEER_IDS)
		dns[p->n_dns++] = prop->value;
	it = grpc_auth_context_find_properties_by_name(
		ctx, GRPC_X509_CN_PROPERTY_NAME);
	if ((prop = grpc_auth_property_iterator_next(&it)))
		p->cn = prop->value;
}

/* An mTLS identity check's PERMISSION_DENIED, logged with its fields:
 * the client as shown (NULL: none) and the namespace claimed (NULL:
 * none). */
static void log_denied(const struct call *c, const char *client,
		       const char *ns, const char *msg)
{
	struct log_field f[4] = {
		LOG_F_STR("method", method_name(c->method)),
		LOG_F_STR("code",
			  stats_code_name(GRPC_STATUS_PERMISSION_DENIED)),
		LOG_F_STR("client", client),
		LOG_F_STR("namespace", ns),
	};

	log_fields_at(LOG_WARN, f, 4, "%s: %s", methods[c->method].path, msg);
}

/*
 * Who is calling, into c->caller (and c->client).  Under mTLS the caller
 * is its certificate: the entry of the config's `clients` it matches
 * ("uri:ID", "dns:ID" or "cn:ID"), and a certificate that matches none is
 * answered PERMISSION_DENIED; without `clients`, its first URI SAN, else
 * DNS SAN, else CN.  Without mTLS it is the connection's address.  0; -1
 * when the call has been answered.
 */
static int call_identify(struct call *c)
{
	const char *uri[RPC_PEER_IDS], *dns[RPC_PEER_IDS];
	const struct config *cfg = scaler_config(c->srv->sc);
	char msg[SCALER_MSG_MAX], shown[SCALER_SHOW_MAX + 4], kind[8];
	grpc_auth_context *ctx;
	struct config_peer p;
	int rc = 0;

	c->client = NULL;
	if (!c->srv->mtls) {
		caller_from_peer(c);
		return 0;
	}
	ctx = grpc_call_auth_context(c->call);
	if (!ctx) {
		caller_from_peer(c);
		return 0;
	}
	peer_ids(ctx, &p, uri, dns);
	if (!cfg->n_clients) {
		if (p.n_uri)
			caller_set(c, "uri:", p.uri[0], strlen(p.uri[0]));
		else if (p.n_dns)
			caller_set(c, "dns:", p.dns[0], strlen(p.dns[0]));
		else if (p.cn)
			caller_set(c, "cn:", p.cn, strlen(p.cn));
		else
			caller_from_peer(c);
		goto out;
	}
	c->client = config_client(cfg, &p);
	if (!c->client) {
		char ids[SCALER_MSG_MAX / 2];
		size_t n = 0, i;

		ids[0] = '\0';
		for (i = 0; i < p.n_uri && n < sizeof(ids) - 8; i++)
			n += (size_t)snprintf(ids + n, sizeof(ids) - n,
					      "%suri:%.100s", n ? ", " : "",
					      p.uri[i]);
		for (i = 0; i < p.n_dns && n < sizeof(ids) - 8; i++)
			n += (size_t)snprintf(ids + n, sizeof(ids) - n,
					      "%sdns:%.100s", n ? ", " : "",
					      p.dns[i]);
		if (p.cn && n < sizeof(ids) - 8)
			snprintf(ids + n, sizeof(ids) - n, "%scn:%.64s",
				 n ? ", " : "", p.cn);
		show_text(shown, SCALER_SHOW_MAX, ids, strlen(ids));
		snprintf(msg, sizeof(msg), "client certificate (%s) is not "
			 "one of the clients in staffer's config; only those "
			 "may call (docs/security.md)", shown[0] ? shown :
			 "no SAN or CN");
		log_denied(c, shown[0] ? shown : NULL, NULL, msg);
		call_reply(c, GRPC_STATUS_PERMISSION_DENIED, msg, NULL);
		rc = -1;
		goto out;
	}
	snprintf(kind, sizeof(kind), "%s:", config_id_kind_name(c->client->kind));
	caller_set(c, kind, c->client->id, strlen(c->client->id));
out:
	grpc_auth_context_release(ctx);
	return rc;
}

/* Whether the caller's `clients` entry lets it claim namespace ns.  0;
 * -1 when the call has been answered PERMISSION_DENIED. */
static int call_claim(struct call *c, const char *ns)
{
	char msg[SCALER_MSG_MAX], shown[SCALER_SHOW_MAX + 4];

	if (!c->client || config_client_ns_ok(c->client, ns))
		return 0;
	show_text(shown, SCALER_SHOW_MAX, c->caller, strlen(c->caller));
	snprintf(msg, sizeof(msg), "client '%s' may not claim namespace '%s': "
		 "its entry in staffer's config 'clients' lists the "
		 "namespaces it may (docs/security.md)", shown, ns);
	log_denied(c, shown, ns, msg);
	call_reply(c, GRPC_STATUS_PERMISSION_DENIED, msg, NULL);
	return -1;
}

/*
 * Take the call's cost from the request budget (budget.h): its request's
 * bytes and what they expand into, until it is answered (a stream: until
 * it ends).  0; -1 when it does not fit: the request is dropped at once
 * and the call answered RESOURCE_EXHAUSTED.
 */
static int call_charge(struct call *c)
{
	struct rpc_server *srv = c->srv;
	size_t len = c->payload ? grpc_byte_buffer_length(c->payload) : 0;
	size_t cost = budget_cost(len);
	struct budget_stats bs;
	char msg[256];

	if (!srv->budget)
		return 0;
	if (!budget_take(srv->budget, c->caller, cost)) {
		c->charged = cost;
		return 0;
	}
	if (c->payload) {
		grpc_byte_buffer_destroy(c->payload);
		c->payload = NULL;
	}
	budget_get_stats(srv->budget, &bs);
	snprintf(msg, sizeof(msg), "staffer's request budget is full: %zu "
		 "of %zu bytes in flight (--request-budget; one caller may "
		 "hold half); this call needs %zu; retry later", bs.used,
		 bs.limit, cost);
	call_reply(c, GRPC_STATUS_RESOURCE_EXHAUSTED, msg, NULL);
	return -1;
}

/*
 * Sort a map's n pairs by key, stably (an insertion sort: n is at most
 * META_KEYS_MAX and usually about ten, and pairs that arrive sorted cost
 * n - 1 comparisons).  KEDA's Go client sends a map in Go's randomised
 * iteration order, a different order on many calls; sorted, the same map
 * is the same parsed-metadata cache entry whatever the order, and parses
 * the same (distinct keys do not depend on their order; a key given twice
 * is refused by the caller).
 */
static void pairs_sort(const char **keys, const char **values, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		const char *k = keys[i], *v = values[i];

		for (j = i; j > 0 && strcmp(keys[j - 1], k) > 0; j--) {
			keys[j] = keys[j - 1];
			values[j] = values[j - 1];
		}
		keys[j] = k;
		values[j] = v;
	}
}

/*
 * A request's parsed metadata: the parsed-metadata cache's copy, borrowed
 * (mcache.h: valid until the next mcache_put(), and nothing on this
 * thread puts one before the call's step function returns; an evaluation
 * that outlives it copies what it keeps, scaler.h), or the call's own when
 * the cache has none to lend.  pm.m is what to use.
 */
struct pmeta {
	const struct meta *m;     /* NULL until parse_ref() */
	struct meta own;          /* when m == &own; released by the caller */
};

static void pmeta_release(struct pmeta *pm)
{
	if (pm->m == &pm->own)
		meta_release(&pm->own);
	pm->m = NULL;
}

/* Parse a ScaledObjectRef's metadata into pm (pm->m NULL on entry) and its
 * fingerprint into c->fprint.  On failure the call has been answered
 * (INVALID_ARGUMENT or PERMISSION_DENIED) and -1 is returned.  Either way
 * the caller releases pm (pmeta_release()). */
static int parse_ref(struct call *c, const Externalscaler__ScaledObjectRef *ref,
		     struct pmeta *pm)
{
	const char *keys[META_KEYS_MAX], *values[META_KEYS_MAX];
	char msg[SCALER_MSG_MAX];
	const struct meta *hit;
	enum scaler_err se;
	size_t i;

	if (!ref) {
		call_reply(c, GRPC_STATUS_INVALID_ARGUMENT,
			   "request has no scaledObjectRef", NULL);
		return -1;
	}
	if (check_names(c, ref) || call_claim(c, ref->namespace_))
		return -1;
	if (ref->n_scalermetadata > META_KEYS_MAX) {
		snprintf(msg, sizeof(msg), "scalerMetadata has %zu keys; "
			 "at most %d are allowed", ref->n_scalermetadata,
			 META_KEYS_MAX);
		call_reply(c, GRPC_STATUS_INVALID_ARGUMENT, msg, NULL);
		return -1;
	}
	for (i = 0; i < ref->n_scalermetadata; i++) {
		keys[i] = ref->scalermetadata[i]->key;
		values[i] = ref->scalermetadata[i]->value;
	}
	pairs_sort(keys, values, ref->n_scalermetadata);
	/* A map holds each key once (KEDA's Go maps cannot do otherwise);
	 * a hand-made request that repeats one is refused rather than read
	 * last-wins, which the fingerprint (sorted by value too) would not
	 * tell apart from the other order. */
	for (i = 1; i < ref->n_scalermetadata; i++)
		if (!strcmp(keys[i], keys[i - 1])) {
			char shown[META_NAME_MAX + 4];

			show_text(shown, META_NAME_MAX, keys[i],
				  strlen(keys[i]));
			snprintf(msg, sizeof(msg), "scalerMetadata has the key "
				 "'%s' more than once; a map has each key "
				 "once", shown);
			call_reply(c, GRPC_STATUS_INVALID_ARGUMENT, msg, NULL);
			return -1;
		}
	/* The same map parses to the same meta and fingerprint every time:
	 * a hit skips both (mcache.h) and lends the cache's copy; the
	 * namespace's right to the backend is checked every time. */
	hit = mcache_get(c->srv->mc, keys, values, ref->n_scalermetadata,
			 c->fprint);
	stats_meta_cache(c->srv->stats, hit != NULL);
	if (hit) {
		pm->m = hit;
		se = scaler_check(c->srv->sc, ref->namespace_, hit, msg);
	} else {
		meta_init(&pm->own);
		pm->m = &pm->own;
		se = scaler_parse(c->srv->sc, ref->namespace_, &pm->own, keys,
				  values, ref->n_scalermetadata, msg);
	}
	if (se != SCALER_OK) {
		struct log_field f[4] = {
			LOG_F_STR("method", method_name(c->method)),
			LOG_F_STR("code",
				  stats_code_name(scaler_status(se))),
			LOG_F_STR("namespace", ref->namespace_),
			LOG_F_STR("scaledObject", ref->name),
		};

		log_fields_at(LOG_WARN, f, 4, "%s %s/%s: %s",
			      methods[c->method].path, ref->namespace_,
			      ref->name, msg);
		call_reply(c, scaler_status(se), msg, NULL);
		return -1;
	}
	if (hit)
		return 0;
	if (fprint_metadata(keys, values, ref->n_scalermetadata, c->fprint)) {
		call_reply(c, GRPC_STATUS_RESOURCE_EXHAUSTED,
			   "out of memory", NULL);
		return -1;
	}
	/* out of memory: not kept, parsed again next time; this call uses
	 * its own either way */
	(void)mcache_put(c->srv->mc, keys, values, ref->n_scalermetadata,
			 &pm->own, c->fprint);
	return 0;
}

/* The request of c as a message of type d, in arena a (pb.h: freed with
 * it) or, with a NULL, malloc()ed (freed with free_unpacked).  NULL when
 * it does not unpack: the call has been answered. */
static ProtobufCMessage *unpack_or_reply(struct call *c,
					 const ProtobufCMessageDescriptor *d,
					 struct pb_arena *a)
{
	const char *why = NULL;
	ProtobufCMessage *msg = a ?
		pb_unpack_in(a, d, c->payload, RPC_RECV_MAX, &why) :
		pb_unpack(d, c->payload, RPC_RECV_MAX, &why);

	/* Not needed once unpacked: a stream would keep it for its life. */
	grpc_byte_buffer_destroy(c->payload);
	c->payload = NULL;
	if (!msg)
		call_reply(c, GRPC_STATUS_INVALID_ARGUMENT, why, NULL);
	return msg;
}

static grpc_status_code scaler_status(enum scaler_err e)
{
	switch (e) {
	case SCALER_OK:
		return GRPC_STATUS_OK;
	case SCALER_EINVAL:
		return GRPC_STATUS_INVALID_ARGUMENT;
	case SCALER_EDENIED:
		return GRPC_STATUS_PERMISSION_DENIED;
	case SCALER_EUNAVAIL:
		break;
	}
	return GRPC_STATUS_UNAVAILABLE;
}

/* GetMetricSpec: from metadata alone, never from a backend (so KEDA's
 * fallback still works when the backend is down). */
static void start_get_metric_spec(struct call *c)
{
	Externalscaler__ScaledObjectRef *ref;
	Externalscaler__GetMetricSpecResponse resp =
		EXTERNALSCALER__GET_METRIC_SPEC_RESPONSE__INIT;
	Externalscaler__MetricSpec spec = EXTERNALSCALER__METRIC_SPEC__INIT;
	Externalscaler__MetricSpec *specs[1] = { &spec };
	struct pmeta pm;
	struct pb_arena a;        /* the request: freed at once */

	pm.m = NULL;
	pb_arena_init(&a);
	ref = (Externalscaler__ScaledObjectRef *)unpack_or_reply(
		c, &externalscaler__scaled_object_ref__descriptor, &a);
	if (!ref)
		goto out;
	if (parse_ref(c, ref, &pm))
		goto out;
	spec.metricname = (char *)pm.m->metric_name;
	spec.targetsize = 1;
	spec.targetsizefloat = 1.0;
	resp.n_metricspecs = 1;
	resp.metricspecs = specs;
	reply_msg(c, &resp.base);
out:
	pmeta_release(&pm);
	pb_arena_release(&a);
}

static void on_metrics(void *arg, const struct scaler_result *r)
{
	struct call *c = arg;
	Externalscaler__GetMetricsResponse resp =
		EXTERNALSCALER__GET_METRICS_RESPONSE__INIT;
	Externalscaler__MetricValue v = EXTERNALSCALER__METRIC_VALUE__INIT;
	Externalscaler__MetricValue *vals[1] = { &v };

	if (r->err != SCALER_OK) {
		call_reply(c, scaler_status(r->err), r->msg, NULL);
		return;
	}
	if (c->srv->stats) {
		/* held: no decision was made, the last one's terms stay */
		struct stats_terms t = {
			.arrival_rate = r->sig.arrival_rate,
			.arrival_forecast = r->sig.arrival_forecast,
			.arrival_surge = r->sig.arrival_surge,
			.service_time_s = r->sig.service_time_s,
			.queue_depth = r->sig.queue_depth,
			.shed_rate = r->sig.shed_rate,
			.busy_slots = r->b.busy_slots,
			.headroom_slots = r->b.headroom_slots,
			.drain_slots = r->b.drain_slots,
			.boost_slots = r->b.boost_slots,
			.feedback = r->d && r->d->have_feedback,
			.correction = r->b.correction > 0 ? r->b.correction
							   : 1,
			.feedback_slots = r->b.feedback_slots,
			.have_cold = r->obs && r->obs->have_cold,
			.cold_start_s = r->d ? r->d->cold_s : 0,
			.raw = (long long)(r->d ? r->d->raw : r->b.replicas),
			.capped = r->b.capped,
		};

		stats_target(c->srv->stats, r->ns, r->name,
			     r->metric_name, (long long)r->target,
			     r->held ? NULL : &t, mono_now());
	}
	/* KEDA names the value after the metric it asked for anyway. */
	v.metricname = (char *)r->metric_name;
	v.metricvalue = r->target;
	v.metricvaluefloat = (double)r->target;
	resp.n_metricvalues = 1;
	resp.metricvalues = vals;
	reply_msg(c, &resp.base);
}

static void on_is_active(void *arg, const struct scaler_result *r)
{
	struct call *c = arg;
	Externalscaler__IsActiveResponse resp =
		EXTERNALSCALER__IS_ACTIVE_RESPONSE__INIT;

	if (r->err != SCALER_OK) {
		call_reply(c, scaler_status(r->err), r->msg, NULL);
		return;
	}
	resp.result = r->active;
	reply_msg(c, &resp.base);
}

/* Hand a parsed trigger to the scaler; the callback answers the call:
 * here and now when every answer is cached (no hop to the fetch thread,
 * the reply starts on this thread), else later on the fetch thread. */
static void evaluate(struct call *c, const Externalscaler__ScaledObjectRef *ref,
		     const struct meta *m, enum scaler_kind kind,
		     scaler_done_fn *cb)
{
	if (scaler_evaluate_now(c->srv->sc, c->caller, ref->namespace_,
				ref->name,
				c->fprint, m, kind, cb, c))
		call_reply(c, GRPC_STATUS_UNAVAILABLE,
			   "staffer is shutting down or overloaded", NULL);
}

static void start_get_metrics(struct call *c)
{
	Externalscaler__GetMetricsRequest *req;
	struct pmeta pm;
	struct pb_arena a;        /* the request: freed at once */

	pm.m = NULL;
	pb_arena_init(&a);
	req = (Externalscaler__GetMetricsRequest *)unpack_or_reply(
		c, &externalscaler__get_metrics_request__descriptor, &a);
	if (!req)
		goto out;
	if (parse_ref(c, req->scaledobjectref, &pm))
		goto out;
	evaluate(c, req->scaledobjectref, pm.m, SCALER_METRICS, on_metrics);
out:
	pmeta_release(&pm);
	pb_arena_release(&a);
}

static void start_is_active(struct call *c)
{
	Externalscaler__ScaledObjectRef *ref;
	struct pmeta pm;
	struct pb_arena a;        /* the request: freed at once */

	pm.m = NULL;
	pb_arena_init(&a);
	ref = (Externalscaler__ScaledObjectRef *)unpack_or_reply(
		c, &externalscaler__scaled_object_ref__descriptor, &a);
	if (!ref)
		goto out;
	if (parse_ref(c, ref, &pm))
		goto out;
	evaluate(c, ref, pm.m, SCALER_ACTIVE, on_is_active);
out:
	pmeta_release(&pm);
	pb_arena_release(&a);
}

static void start_health_check(struct call *c)
{
	Grpc__Health__V1__HealthCheckRequest *req;
	Grpc__Health__V1__HealthCheckResponse resp =
		GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__INIT;

	req = (Grpc__Health__V1__HealthCheckRequest *)unpack_or_reply(
		c, &grpc__health__v1__health_check_request__descriptor, NULL);
	if (!req)
		return;
	if (req->service[0] &&
	    strcmp(req->service, "externalscaler.ExternalScaler")) {
		call_reply(c, GRPC_STATUS_NOT_FOUND, "unknown service", NULL);
	} else {
		resp.status = c->srv->shutting_down ?
			GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__NOT_SERVING :
			GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING;
		reply_msg(c, &resp.base);
	}
	grpc__health__v1__health_check_request__free_unpacked(req, NULL);
}

static void start_generic(struct call *c)
{
	char msg[300];

	snprintf(msg, sizeof(msg), "method '%.*s' is not implemented",
		 (int)(GRPC_SLICE_LENGTH(c->details.method) > 200 ?
		       200 : GRPC_SLICE_LENGTH(c->details.method)),
		 (const char *)GRPC_SLICE_START_PTR(c->details.method));
	call_reply(c, GRPC_STATUS_UNIMPLEMENTED, msg, NULL);
}

static void on_requested(struct call *c, int ok)
{
	struct rpc_server *srv = c->srv;

	if (!ok) {            /* the server is shutting down */
		call_free(c);
		return;
	}
	c->arrived = mono_now();
	if (!srv->shutting_down)
		request_call(srv, c->method);
	if (c->method == M_GENERIC) {
		start_generic(c);
		return;
	}
	/* The health check stays free and open to any verified client: the
	 * kubelet's probes must answer while the budget is full. */
	if (c->method != M_HEALTH_CHECK &&
	    (call_identify(c) || call_charge(c)))
		return;
	methods[c->method].start(c);
}

/* ---- StreamIsActive ------------------------------------------------------ */

/*
 * Streams of one trigger (the same namespace, ScaledObject name and
 * metadata fingerprint, fprint.h: the key of its state in scaler.h) form
 * a group: one evaluation per push interval serves all of them (KEDA's
 * operator replicas and reconnects open several), and one heap node
 * (sheap.h) schedules it, so the loop never walks the streams.  Two
 * ScaledObjects with equal metadata are two groups: each has its own hold
 * and smoothing state, which an evaluation under the other's name would
 * leave stale; their backend queries are still shared by the answer cache
 * (fetch.h).  The group keeps the first stream's request (what it
 * evaluates) and outlives it while other streams remain.  Groups, their
 * heap and every stream's fields below `refs` are guarded by srv->smu,
 * taken on the CQ thread and by the evaluation's callback on the fetch
 * thread.
 */
struct sgroup {
	struct sheap_node node;       /* first: srv->due while not evaluating */
	struct sgroup *hnext;         /* srv->groups chain */
	uint32_t hash;
	char fprint[FPRINT_HEX + 1];
	char caller[FETCH_CALLER_MAX];    /* its first stream's */
	/* What is evaluated: its first stream's namespace, name and
	 * metadata, copied into the group's own allocation (after it), not
	 * the unpacked request: that may carry unknown fields up to the
	 * message limit, which the stream's budget stops counting when that
	 * stream ends while the group lives on. */
	const char *ns, *name;
	const char **keys, **values;
	size_t n_md;
	double push_interval_s;
	struct rpc_server *srv;
	struct call *members;         /* call.gnext / gprev */
	size_t n_members;
	int eval_inflight;
	int have_result, last_active; /* the last answer, for newcomers */
};

static uint32_t group_hash(const char *ns, const char *name, const char *fp)
{
	uint32_t h = 2166136261u;

	for (; *ns; ns++)
		h = (h ^ (unsigned char)*ns) * 16777619u;
	h = (h ^ 0xffu) * 16777619u;      /* no namespace runs into name */
	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	h = (h ^ 0xffu) * 16777619u;      /* nor a name into fp */
	for (; *fp; fp++)
		h = (h ^ (unsigned char)*fp) * 16777619u;
	return h;
}

/* The group of (ns, name, fp), or NULL (srv->smu held). */
static struct sgroup *group_find(struct rpc_server *srv, const char *ns,
				 const char *name, const char *fp, uint32_t h)
{
	struct sgroup *g;

	for (g = srv->groups[h % RPC_GROUP_BUCKETS]; g; g = g->hnext)
		if (g->hash == h && !strcmp(g->fprint, fp) &&
		    !strcmp(g->name, name) && !strcmp(g->ns, ns))
			return g;
	return NULL;
}

/* Unlink and free an empty group without an evaluation (smu held). */
static void group_free(struct sgroup *g)
{
	struct rpc_server *srv = g->srv;
	struct sgroup **pp = &srv->groups[g->hash % RPC_GROUP_BUCKETS];

	while (*pp && *pp != g)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = g->hnext;
	sheap_remove(&srv->due, &g->node);
	free(g);
}

/* Drop one reference; the caller holds srv->smu, which this releases. */
static void stream_unref_unlock(struct call *c)
{
	struct rpc_server *srv = c->srv;
	int last = --c->refs == 0;

	pthread_mutex_unlock(&srv->smu);
	if (last)
		call_free(c);
}

static void on_stream_status(struct call *c, int ok)
{
	(void)ok;
	pthread_mutex_lock(&c->srv->smu);
	stream_unref_unlock(c);
}

/* End the stream with status code and details msg (smu held): OK when
 * the server stops, an error when its first evaluation failed. */
static void stream_end(struct call *c, grpc_status_code code,
		       const char *msg)
{
	grpc_op ops[2];
	grpc_op *op = ops;
	grpc_slice details = grpc_slice_from_copied_string(msg);
	grpc_call_error err;

	memset(ops, 0, sizeof(ops));
	if (!c->sent_any) {
		op->op = GRPC_OP_SEND_INITIAL_METADATA;
		op++;
	}
	op->op = GRPC_OP_SEND_STATUS_FROM_SERVER;
	op->data.send_status_from_server.status = code;
	op->data.send_status_from_server.status_details = &details;
	op++;
	c->t_status.step = on_stream_status;
	c->status_sent = 1;
	c->status_code = code;
	c->sent_any = 1;
	err = grpc_call_start_batch(c->call, ops, (size_t)(op - ops),
				    &c->t_status, NULL);
	grpc_slice_unref(details);
	if (err != GRPC_CALL_OK)
		log_error("StreamIsActive: cannot end stream: %s",
			  grpc_call_error_to_string(err));
	else
		c->refs++;
}

static void on_stream_sent(struct call *c, int ok);

/* Send one IsActiveResponse (smu held); queue it if one is in flight. */
static void stream_send(struct call *c, int active)
{
	Externalscaler__IsActiveResponse resp =
		EXTERNALSCALER__IS_ACTIVE_RESPONSE__INIT;
	grpc_op ops[2];
	grpc_op *op = ops;
	grpc_call_error err;

	if (c->closed || c->status_sent)
		return;
	if (c->send_inflight) {
		c->pending_true |= active;
		return;
	}
	resp.result = active;
	c->sending = pb_pack(&resp.base);
	if (!c->sending)
		return;
	memset(ops, 0, sizeof(ops));
	if (!c->sent_any) {
		op->op = GRPC_OP_SEND_INITIAL_METADATA;
		op++;
	}
	op->op = GRPC_OP_SEND_MESSAGE;
	op->data.send_message.send_message = c->sending;
	op++;
	c->t_send.step = on_stream_sent;
	err = grpc_call_start_batch(c->call, ops, (size_t)(op - ops),
				    &c->t_send, NULL);
	if (err != GRPC_CALL_OK) {
		log_error("StreamIsActive: cannot send: %s",
			  grpc_call_error_to_string(err));
		grpc_byte_buffer_destroy(c->sending);
		c->sending = NULL;
		return;
	}
	c->sent_any = 1;
	c->send_inflight = 1;
	c->refs++;
	stats_push(c->srv->stats, active);
}

static void on_stream_sent(struct call *c, int ok)
{
	pthread_mutex_lock(&c->srv->smu);
	c->send_inflight = 0;
	grpc_byte_buffer_destroy(c->sending);
	c->sending = NULL;
	if (!ok)
		c->closed = 1;
	if (c->pending_true && !c->closed) {
		c->pending_true = 0;
		stream_send(c, 1);
	}
	if (c->want_status && !c->send_inflight && !c->status_sent &&
	    !c->closed)
		stream_end(c, GRPC_STATUS_OK, "server stopping");
	stream_unref_unlock(c);
}

/* Tell one stream the group's answer (smu held).  The current value
 * first; then only inactive -> active: KEDA ignores false, and repeated
 * true delays scale-in. */
static void stream_tell(struct call *c, int active)
{
	if (!c->sent_any)
		stream_send(c, active);
	else if (active && !c->last_active)
		stream_send(c, 1);
	c->last_active = active;
}

static void group_schedule(struct sgroup *g, double due)
{
	if (sheap_push(&g->srv->due, &g->node, due))
		log_error("StreamIsActive: out of memory scheduling a stream");
}

/*
 * The group's evaluation failed (smu held).  Streams that have been told
 * nothing yet end with the error: KEDA then sees why at once, as a polled
 * IsActive would, instead of a stream silent until its deadline.  Streams
 * told a value before stay open: a later failure is a stale hold's
 * business (scaler.h), and KEDA's polled IsActive gets the error.
 */
static void group_fail(struct sgroup *g, grpc_status_code code,
		       const char *msg)
{
	struct call *c;

	for (c = g->members; c; c = c->gnext)
		if (!c->sent_any && !c->status_sent && !c->closed &&
		    !c->send_inflight)
			stream_end(c, code, msg);
}

static void on_group_result(void *arg, const struct scaler_result *r)
{
	struct sgroup *g = arg;
	struct rpc_server *srv = g->srv;
	struct call *c;

	pthread_mutex_lock(&srv->smu);
	g->eval_inflight = 0;
	if (r->err != SCALER_OK) {
		struct log_field f[3] = {
			LOG_F_STR("method", "StreamIsActive"),
			LOG_F_STR("namespace", g->ns),
			LOG_F_STR("scaledObject", g->name),
		};

		log_fields_at(LOG_DEBUG, f, 3, "StreamIsActive %s/%s: %s",
			      g->ns, g->name, r->msg);
		group_fail(g, scaler_status(r->err), r->msg);
	} else {
		g->have_result = 1;
		g->last_active = r->active;
		for (c = g->members; c; c = c->gnext)
			stream_tell(c, r->active);
	}
	if (!g->members)
		group_free(g);
	else
		group_schedule(g, mono_now() + g->push_interval_s);
	pthread_mutex_unlock(&srv->smu);
	/* last: the server may be freed once nothing is live */
	atomic_fetch_sub(&srv->live, 1);
}

/* Start one evaluation of a group (smu held; not in the heap). */
static void group_eval(struct sgroup *g)
{
	char msg[SCALER_MSG_MAX];
	enum scaler_err se;
	struct meta m;

	meta_init(&m);
	/* Parsed once successfully when the stream opened; fails now only
	 * when memory runs out or a reloaded config took the backend away
	 * (group_fail(): a stream told nothing yet ends with the error, the
	 * others stay open and KEDA's polled IsActive gets it). */
	se = scaler_parse(g->srv->sc, g->ns, &m, g->keys, g->values, g->n_md,
			  msg);
	if (se != SCALER_OK) {
		struct log_field f[3] = {
			LOG_F_STR("method", "StreamIsActive"),
			LOG_F_STR("namespace", g->ns),
			LOG_F_STR("scaledObject", g->name),
		};

		log_fields_at(LOG_WARN, f, 3, "StreamIsActive %s/%s: %s",
			      g->ns, g->name, msg);
		group_fail(g, scaler_status(se), msg);
		group_schedule(g, mono_now() + g->push_interval_s);
		goto out;
	}
	g->eval_inflight = 1;
	/* An evaluation counts as live, like a call: rpc_server_run() does
	 * not return (and the server is not freed) while one may still call
	 * back.  The callback runs on the fetch thread and waits for smu. */
	atomic_fetch_add(&g->srv->live, 1);
	if (scaler_evaluate(g->srv->sc, g->caller, g->ns, g->name, g->fprint,
			    &m, SCALER_ACTIVE, on_group_result, g)) {
		atomic_fetch_sub(&g->srv->live, 1);
		g->eval_inflight = 0;
		group_fail(g, GRPC_STATUS_UNAVAILABLE,
			   "staffer is shutting down or overloaded");
		group_schedule(g, mono_now() + g->push_interval_s);
	}
out:
	meta_release(&m);
}

/* Take c out of its group (smu held); an empty idle group goes. */
static void group_leave(struct call *c)
{
	struct sgroup *g = c->group;

	if (!g)
		return;
	if (c->gprev)
		c->gprev->gnext = c->gnext;
	else
		g->members = c->gnext;
	if (c->gnext)
		c->gnext->gprev = c->gprev;
	c->gnext = c->gprev = NULL;
	c->group = NULL;
	g->n_members--;
	if (!g->members && !g->eval_inflight)
		group_free(g);
}

/* Copy s to *p and move *p past it; the copy. */
static const char *group_put(char **p, const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = *p;

	memcpy(d, s, n);
	*p += n;
	return d;
}

/* A new group for ref's trigger, its namespace, name and metadata copied
 * after it in one allocation; NULL when out of memory.  The request's
 * sizes are bounded by parse_ref() (META_KEYS_MAX pairs). */
static struct sgroup *group_new(const Externalscaler__ScaledObjectRef *ref)
{
	size_t i, n = ref->n_scalermetadata;
	size_t size = sizeof(struct sgroup) + 2 * n * sizeof(char *) +
		      strlen(ref->namespace_) + strlen(ref->name) + 2;
	struct sgroup *g;
	char *p;

	for (i = 0; i < n; i++)
		size += strlen(ref->scalermetadata[i]->key) +
			strlen(ref->scalermetadata[i]->value) + 2;
	g = calloc(1, size);
	if (!g)
		return NULL;
	g->keys = (const char **)(g + 1);
	g->values = g->keys + n;
	p = (char *)(g->values + n);
	g->ns = group_put(&p, ref->namespace_);
	g->name = group_put(&p, ref->name);
	for (i = 0; i < n; i++) {
		g->keys[i] = group_put(&p, ref->scalermetadata[i]->key);
		g->values[i] = group_put(&p, ref->scalermetadata[i]->value);
	}
	g->n_md = n;
	return g;
}

/*
 * Put stream c into the group of its trigger (ref), creating the group if
 * there is none.  0; -1 when out of memory.  smu held.
 */
static int group_join(struct call *c,
		      const Externalscaler__ScaledObjectRef *ref,
		      double push_interval_s)
{
	struct rpc_server *srv = c->srv;
	uint32_t h = group_hash(ref->namespace_, ref->name, c->fprint);
	struct sgroup *g = group_find(srv, ref->namespace_, ref->name,
				      c->fprint, h);

	if (!g) {
		g = group_new(ref);
		if (!g)
			return -1;
		sheap_node_init(&g->node);
		g->hash = h;
		memcpy(g->fprint, c->fprint, sizeof(g->fprint));
		memcpy(g->caller, c->caller, sizeof(g->caller));
		g->push_interval_s = push_interval_s;
		g->srv = srv;
		g->hnext = srv->groups[h % RPC_GROUP_BUCKETS];
		srv->groups[h % RPC_GROUP_BUCKETS] = g;
	}
	c->group = g;
	c->gnext = g->members;
	c->gprev = NULL;
	if (g->members)
		g->members->gprev = c;
	g->members = c;
	g->n_members++;
	if (g->have_result)          /* its current value, at once */
		stream_tell(c, g->last_active);
	if (!g->eval_inflight && !sheap_queued(&g->node))
		group_eval(g);       /* a new group: the value, at once */
	return 0;
}

/* RECV_CLOSE_ON_SERVER completed: KEDA went away, or our status went out. */
static void on_stream_closed(struct call *c, int ok)
{
	(void)ok;
	stats_stream(c->srv->stats, -1);
	pthread_mutex_lock(&c->srv->smu);
	group_leave(c);
	/* OK when we ended it (shutdown), else KEDA went away */
	call_count(c, c->status_sent ? c->status_code :
		   GRPC_STATUS_CANCELLED);
	c->closed = 1;
	c->refs--;               /* the group's reference */
	stream_unref_unlock(c);  /* the close batch's reference */
}

static void start_stream_is_active(struct call *c)
{
	struct rpc_server *srv = c->srv;
	Externalscaler__ScaledObjectRef *ref;
	struct pmeta pm;
	grpc_op op;
	grpc_call_error err;
	int joined;

	pm.m = NULL;
	ref = (Externalscaler__ScaledObjectRef *)unpack_or_reply(
		c, &externalscaler__scaled_object_ref__descriptor, NULL);
	if (!ref)
		goto out;
	if (parse_ref(c, ref, &pm))
		goto out;

	memset(&op, 0, sizeof(op));
	op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
	op.data.recv_close_on_server.cancelled = &c->cancelled;
	c->t_close.step = on_stream_closed;
	err = grpc_call_start_batch(c->call, &op, 1, &c->t_close, NULL);
	if (err != GRPC_CALL_OK) {
		log_error("StreamIsActive: %s",
			  grpc_call_error_to_string(err));
		call_free(c);
		goto out;
	}
	{
		struct log_field f[3] = {
			LOG_F_STR("method", "StreamIsActive"),
			LOG_F_STR("namespace", ref->namespace_),
			LOG_F_STR("scaledObject", ref->name),
		};

		log_fields_at(LOG_DEBUG, f, 3, "StreamIsActive %s/%s: open, "
			      "checking every %gs", ref->namespace_,
			      ref->name, pm.m->push_interval_s);
	}
	stats_stream(srv->stats, 1);
	pthread_mutex_lock(&srv->smu);
	c->refs = 2;             /* the close batch and the group */
	joined = !group_join(c, ref, pm.m->push_interval_s);
	if (!joined) {
		/* Silent, like a stream whose evaluation fails; it ends
		 * when KEDA goes away. */
		log_error("StreamIsActive: out of memory for a stream group");
	}
	pthread_mutex_unlock(&srv->smu);
out:
	pmeta_release(&pm);
	if (ref)
		externalscaler__scaled_object_ref__free_unpacked(ref, NULL);
}

/* Evaluate the groups that are due; return the earliest next due time. */
static double streams_tick(struct rpc_server *srv, double now)
{
	double next = now + TICK_S;
	struct sheap_node *x;

	pthread_mutex_lock(&srv->smu);
	while (!srv->streams_stopping && (x = sheap_peek(&srv->due)) &&
	       x->due <= now) {
		sheap_pop(&srv->due);
		group_eval((struct sgroup *)x);
	}
	/* stopping: what is left in the heap waits for its streams to
	 * close, and must not make the stream thread spin */
	x = srv->streams_stopping ? NULL : sheap_peek(&srv->due);
	if (x && x->due < next)
		next = x->due;
	pthread_mutex_unlock(&srv->smu);
	return next;
}

static gpr_timespec deadline_in(double s);

/*
 * The stream thread: runs the step functions of StreamIsActive calls,
 * whose batches complete on srv->scq, and starts the groups' evaluations
 * when due.  Ends when rpc_server_free() shuts the queue down.
 */
static void *stream_main(void *arg)
{
	struct rpc_server *srv = arg;

	for (;;) {
		double now = mono_now(), next = streams_tick(srv, now);
		grpc_event ev;

		ev = grpc_completion_queue_next(
			srv->scq, deadline_in(next > now ? next - now : 0),
			NULL);
		if (ev.type == GRPC_OP_COMPLETE) {
			struct tag *t = ev.tag;

			t->step(t->c, ev.success);
		} else if (ev.type == GRPC_QUEUE_SHUTDOWN) {
			break;
		}
	}
	return NULL;
}

/* SIGTERM: end every open stream with OK so KEDA reconnects at once. */
static void streams_end(struct rpc_server *srv)
{
	struct sgroup *g;
	struct call *c;
	size_t b;

	pthread_mutex_lock(&srv->smu);
	srv->streams_stopping = 1;
	for (b = 0; b < RPC_GROUP_BUCKETS; b++)
		for (g = srv->groups[b]; g; g = g->hnext)
			for (c = g->members; c; c = c->gnext) {
				c->want_status = 1;
				if (!c->send_inflight && !c->status_sent &&
				    !c->closed)
					stream_end(c, GRPC_STATUS_OK,
						   "server stopping");
			}
	pthread_mutex_unlock(&srv->smu);
}

/* ---- server ---------------------------------------------------------------- */

static void on_shutdown(struct call *c, int ok)
{
	(void)c;
	(void)ok;
}

static grpc_server_credentials *make_creds(const struct rpc_options *o,
					   char err[RPC_ERR_MAX]);
static void stream_queue_end(struct rpc_server *srv);

/* gRPC core's own log lines, through log.h (so they take --log-format).
 * While a port is being bound its errors are debug: rpc_server_new()
 * says what went wrong in one sentence of its own. */
static atomic_int rpc_binding;

static void rpc_grpc_log(gpr_log_func_args *a)
{
	if (a->severity == GPR_LOG_SEVERITY_ERROR &&
	    !atomic_load(&rpc_binding))
		log_warn("grpc: %s", a->message);
	else
		log_debug("grpc: %s (%s:%d)", a->message, a->file, a->line);
}

/* Normalise ":9090" to all addresses. */
static void listen_addr(const char *in, char *out, size_t len)
{
	if (in[0] == ':')
		snprintf(out, len, "[::]%s", in);
	else
		snprintf(out, len, "%s", in);
}

struct rpc_server *rpc_server_new(const struct rpc_options *o,
				  struct scaler *sc, struct fetch *f,
				  char err[RPC_ERR_MAX])
{
	struct rpc_server *srv = NULL;
	grpc_server_credentials *creds = NULL;
	grpc_arg arg[3];
	grpc_resource_quota *quota = NULL;
	grpc_channel_args args;
	char addr[300];
	int i, port;

	srv = calloc(1, sizeof(*srv));
	if (!srv) {
		snprintf(err, RPC_ERR_MAX, "out of memory");
		return NULL;
	}
	srv->sc = sc;
	srv->fetch = f;
	srv->grace_s = o->grace_s;
	srv->stats = o->stats;
	srv->mtls = o->mtls;
	srv->budget = o->budget;
	srv->reload = o->reload;
	srv->on_reload = o->on_reload;
	srv->reload_arg = o->reload_arg;
	srv->t_shutdown.step = on_shutdown;
	atomic_init(&srv->live, 0);
	pthread_mutex_init(&srv->smu, NULL);
	sheap_init(&srv->due);
	srv->mc = mcache_new(MCACHE_DEFAULT_MAX);
	if (!srv->mc) {
		pthread_mutex_destroy(&srv->smu);
		free(srv);
		snprintf(err, RPC_ERR_MAX, "out of memory");
		return NULL;
	}

	arg[0].type = GRPC_ARG_INTEGER;
	arg[0].key = (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
	arg[0].value.integer = (int)RPC_RECV_MAX;
	/* A port already in use must fail start-up, not split KEDA's calls
	 * between two processes (gRPC sets SO_REUSEPORT by default). */
	arg[1].type = GRPC_ARG_INTEGER;
	arg[1].key = (char *)GRPC_ARG_ALLOW_REUSEPORT;
	arg[1].value.integer = 0;
	args.num_args = 2;
	/* gRPC's own buffers (requests read before staffer sees them) under
	 * the same bound as the calls staffer holds (budget.h): over it gRPC
	 * refuses streams ("Buffers full") and slows its readers. */
	if (o->quota_bytes) {
		quota = grpc_resource_quota_create("staffer-requests");
		grpc_resource_quota_resize(quota, o->quota_bytes);
		arg[2].type = GRPC_ARG_POINTER;
		arg[2].key = (char *)GRPC_ARG_RESOURCE_QUOTA;
		arg[2].value.pointer.p = quota;
		arg[2].value.pointer.vtable = grpc_resource_quota_arg_vtable();
		args.num_args = 3;
	}
	args.args = arg;
	srv->cq = grpc_completion_queue_create_for_next(NULL);
	/* Non-polling: the stream thread only takes events off it.  A
	 * polling queue would make that thread a poller too, handling the
	 * connection's I/O and handing the unary calls' completions across
	 * threads. */
	{
		grpc_completion_queue_attributes qa = {
			GRPC_CQ_CURRENT_VERSION, GRPC_CQ_NEXT,
			GRPC_CQ_NON_POLLING, NULL };

		srv->scq = grpc_completion_queue_create(
			grpc_completion_queue_factory_lookup(&qa), &qa, NULL);
	}
	srv->server = grpc_server_create(&args, NULL);
	if (quota)
		grpc_resource_quota_unref(quota);   /* the server holds it */
	grpc_server_register_completion_queue(srv->server, srv->cq, NULL);
	for (i = 0; i < M_COUNT; i++) {
		srv->handles[i] = grpc_server_register_method(
			srv->server, methods[i].path, NULL,
			GRPC_SRM_PAYLOAD_READ_INITIAL_BYTE_BUFFER, 0);
		if (!srv->handles[i]) {
			snprintf(err, RPC_ERR_MAX, "cannot register %s",
				 methods[i].path);
			goto fail;
		}
	}
	creds = make_creds(o, err);
	if (!creds)
		goto fail;
	listen_addr(o->listen, addr, sizeof(addr));
	gpr_set_log_function(rpc_grpc_log);
	atomic_store(&rpc_binding, 1);
	port = grpc_server_add_http2_port(srv->server, addr, creds);
	if (!port && o->listen[0] == ':') {
		snprintf(addr, sizeof(addr), "0.0.0.0%s", o->listen);
		port = grpc_server_add_http2_port(srv->server, addr, creds);
	}
	atomic_store(&rpc_binding, 0);
	grpc_server_credentials_release(creds);
	if (!port) {
		snprintf(err, RPC_ERR_MAX, "cannot listen on '%s' (address "
			 "in use or invalid; use host:port or :port)",
			 o->listen);
		goto fail;
	}
	if (pthread_create(&srv->sthread, NULL, stream_main, srv)) {
		snprintf(err, RPC_ERR_MAX, "cannot start the stream thread");
		goto fail;
	}
	srv->sthread_started = 1;
	grpc_server_start(srv->server);
	for (i = 0; i <= M_GENERIC; i++)
		request_call(srv, (enum method_id)i);
	log_info("listening on %s (%s)", addr,
		 o->certs ? (o->mtls ? "mTLS" : "TLS") : "plaintext");
	return srv;
fail:
	/* Nothing listens yet, so the server may be destroyed unstarted. */
	grpc_server_destroy(srv->server);
	grpc_completion_queue_shutdown(srv->cq);
	while (grpc_completion_queue_next(srv->cq,
					  gpr_inf_future(GPR_CLOCK_REALTIME),
					  NULL).type != GRPC_QUEUE_SHUTDOWN)
		;
	grpc_completion_queue_destroy(srv->cq);
	stream_queue_end(srv);
	pthread_mutex_destroy(&srv->smu);
	sheap_free(&srv->due);
	mcache_free(srv->mc);
	free(srv);
	return NULL;
}

/* Shut the stream queue down and join the thread that drains it (or
 * drain it here when the thread never started). */
static void stream_queue_end(struct rpc_server *srv)
{
	grpc_completion_queue_shutdown(srv->scq);
	if (srv->sthread_started)
		pthread_join(srv->sthread, NULL);
	else
		while (grpc_completion_queue_next(
			       srv->scq, gpr_inf_future(GPR_CLOCK_REALTIME),
			       NULL).type != GRPC_QUEUE_SHUTDOWN)
			;
	srv->sthread_started = 0;
	grpc_completion_queue_destroy(srv->scq);
}

static gpr_timespec deadline_in(double s)
{
	return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
			    gpr_time_from_micros((int64_t)(s * 1e6),
						 GPR_TIMESPAN));
}

int rpc_server_run(struct rpc_server *srv, volatile sig_atomic_t *stop)
{
	double grace_end = 0, now;
	int cancelled = 0;

	for (;;) {
		double next;
		grpc_event ev;

		now = mono_now();
		next = now + TICK_S;  /* signals; streams have their thread */
		ev = grpc_completion_queue_next(
			srv->cq, deadline_in(next > now ? next - now : 0),
			NULL);
		if (ev.type == GRPC_OP_COMPLETE) {
			struct tag *t = ev.tag;

			if (t == &srv->t_shutdown) {
				srv->shutdown_done = 1;
				log_debug("server shutdown complete, %d calls "
					  "open", atomic_load(&srv->live));
			}
			else
				t->step(t->c, ev.success);
		} else if (ev.type == GRPC_QUEUE_SHUTDOWN) {
			break;
		}
		now = mono_now();
		if (srv->reload && *srv->reload && !srv->shutting_down) {
			*srv->reload = 0;
			if (srv->on_reload)
				srv->on_reload(srv->reload_arg);
		}
		if (*stop && !srv->shutting_down) {
			log_info("shutting down: %d calls open, grace %gs",
				 atomic_load(&srv->live), srv->grace_s);
			srv->shutting_down = 1;
			grace_end = now + srv->grace_s;
			grpc_server_shutdown_and_notify(srv->server, srv->cq,
							&srv->t_shutdown);
			streams_end(srv);
		}
		if (srv->shutting_down && !cancelled && now >= grace_end) {
			log_warn("grace period over: cancelling %d calls",
				 atomic_load(&srv->live));
			grpc_server_cancel_all_calls(srv->server);
			fetch_stop(srv->fetch);
			cancelled = 1;
		}
		if (srv->shutting_down && !cancelled && !srv->shutdown_done &&
		    atomic_load(&srv->live) == 0) {
			/* Every call has finished; what holds the shutdown
			 * back now is idle connections (KEDA keeps one open),
			 * which gRPC would otherwise wait on for seconds.
			 * Cancelling drops them and cancels nothing. */
			log_debug("all calls finished; closing idle "
				  "connections");
			grpc_server_cancel_all_calls(srv->server);
			cancelled = 1;
		}
		if (srv->shutdown_done && atomic_load(&srv->live) == 0)
			break;
	}
	log_info("all calls finished");
	return 0;
}

void rpc_server_free(struct rpc_server *srv)
{
	size_t b;

	if (!srv)
		return;
	grpc_server_destroy(srv->server);
	grpc_completion_queue_shutdown(srv->cq);
	while (grpc_completion_queue_next(srv->cq,
					  gpr_inf_future(GPR_CLOCK_REALTIME),
					  NULL).type != GRPC_QUEUE_SHUTDOWN)
		;
	grpc_completion_queue_destroy(srv->cq);
	stream_queue_end(srv);
	/* Every stream has gone and the fetch thread has stopped; a group
	 * left is one whose evaluation was refused at the end. */
	for (b = 0; b < RPC_GROUP_BUCKETS; b++)
		while (srv->groups[b])
			group_free(srv->groups[b]);
	sheap_free(&srv->due);
	pthread_mutex_destroy(&srv->smu);
	mcache_free(srv->mc);
	free(srv);
}

/* ---- TLS ------------------------------------------------------------------- */

static grpc_server_credentials *make_creds(const struct rpc_options *o,
					   char err[RPC_ERR_MAX])
{
	grpc_server_credentials *creds;

	if (!o->certs)
		return grpc_insecure_server_credentials_create();
	creds = certs_credentials(o->certs);
	if (!creds)
		snprintf(err, RPC_ERR_MAX, "gRPC refused the TLS settings");
	return creds;
}
