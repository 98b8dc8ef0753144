/*
 * lc.c - see lc.h.
 *
 * Every call is a struct lc_call; each outstanding batch has its own tag
 * in it, whose step function runs on the polling thread (the pattern of
 * src/rpc.c).  A unary call is one batch of six ops.  A stream has three
 * batches: the request (send and receive initial metadata), RECV_MESSAGE
 * re-armed after each message, and RECV_STATUS_ON_CLIENT; it is freed
 * when the last of them completes.
 */
#include "lc.h"

#include <grpc/grpc_security.h>
#include <grpc/support/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "externalscaler.pb-c.h"
#include "health.pb-c.h"
#include "pb.h"
#include "req.h"

#define LC_DRAIN_S 30.0        /* lc_free(): longest wait for calls */
#define LC_STREAMS_POLL_S 0.005 /* with streams open: longest wait before
				 * their queue is looked at */

struct lc_call;

struct lc_tag {
	void (*step)(struct lc_call *k, int ok);
	struct lc_call *k;
};

struct lc_call {
	struct lc *c;
	enum lc_method m;
	grpc_call *call;
	grpc_byte_buffer *send, *recv;
	grpc_metadata_array md_init, md_trail;
	grpc_status_code status;
	grpc_slice details;
	lc_done_fn *cb;
	void *arg;
	double started;
	struct lc_tag t_main, t_recv, t_status;
	int pending;                  /* streams: batches outstanding */
	struct lc_call *next, *prev;  /* streams: lc.streams */
};

struct lc {
	grpc_completion_queue *cq;
	/* Streams complete on their own non-polling queue: gRPC core as
	 * Debian builds it (with assertions) scans a queue's outstanding
	 * tags on every completion, so K open streams on cq would cost the
	 * client K steps per unary call, and the streams scenario would
	 * measure the client (src/rpc.c does the same on the server). */
	grpc_completion_queue *scq;
	double scq_polled;            /* lc_now() when scq was last looked at */
	grpc_channel *ch[LC_CHANNELS_MAX];
	int n_ch, next_ch;
	size_t inflight;              /* unary calls and live streams */
	size_t unary;                 /* unary calls alone */
	struct lc_call *streams;
};

static const char *const lc_paths[LC_METHODS] = {
	[LC_HEALTH] = "/grpc.health.v1.Health/Check",
	[LC_IS_ACTIVE] = "/externalscaler.ExternalScaler/IsActive",
	[LC_GET_METRIC_SPEC] = "/externalscaler.ExternalScaler/GetMetricSpec",
	[LC_GET_METRICS] = "/externalscaler.ExternalScaler/GetMetrics",
	[LC_STREAM_IS_ACTIVE] =
		"/externalscaler.ExternalScaler/StreamIsActive",
};

double lc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *lc_method_name(enum lc_method m)
{
	const char *p;

	if ((unsigned)m >= LC_METHODS)
		return "unknown";
	p = strrchr(lc_paths[m], '/');
	return p + 1;
}

static gpr_timespec lc_deadline(double s)
{
	if (s > 1e6)
		return gpr_inf_future(GPR_CLOCK_MONOTONIC);
	if (s < 0)
		s = 0;
	return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
			    gpr_time_from_micros((int64_t)(s * 1e6),
						 GPR_TIMESPAN));
}

/* ---- calls --------------------------------------------------------------- */

static struct lc_call *lc_call_new(struct lc *c, enum lc_method m,
				   lc_done_fn *cb, void *arg)
{
	struct lc_call *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->c = c;
	k->m = m;
	k->cb = cb;
	k->arg = arg;
	k->status = GRPC_STATUS_UNKNOWN;
	k->details = grpc_empty_slice();
	k->t_main.k = k->t_recv.k = k->t_status.k = k;
	grpc_metadata_array_init(&k->md_init);
	grpc_metadata_array_init(&k->md_trail);
	return k;
}

static void lc_call_free(struct lc_call *k)
{
	if (k->send)
		grpc_byte_buffer_destroy(k->send);
	if (k->recv)
		grpc_byte_buffer_destroy(k->recv);
	grpc_metadata_array_destroy(&k->md_init);
	grpc_metadata_array_destroy(&k->md_trail);
	grpc_slice_unref(k->details);
	if (k->call)
		grpc_call_unref(k->call);
	free(k);
}

/* Create k->call on the next channel with a request buffer from req. */
static int lc_call_start(struct lc_call *k, int ch, grpc_slice req,
			 double timeout_s)
{
	struct lc *c = k->c;
	grpc_slice method = grpc_slice_from_static_string(lc_paths[k->m]);

	if (ch < 0) {
		ch = c->next_ch;
		c->next_ch = (c->next_ch + 1) % c->n_ch;
	}
	k->send = grpc_raw_byte_buffer_create(&req, 1);   /* refs req */
	k->call = grpc_channel_create_call(c->ch[ch], NULL,
					   GRPC_PROPAGATE_DEFAULTS,
					   k->m == LC_STREAM_IS_ACTIVE ?
					   c->scq : c->cq,
					   method, NULL,
					   lc_deadline(timeout_s), NULL);
	return k->send && k->call ? 0 : -1;
}

/* What makes a reply of each method sane (out: IsActive's result,
 * GetMetrics' value). */
static int lc_ok_health(const ProtobufCMessage *m, struct lc_result *out)
{
	const Grpc__Health__V1__HealthCheckResponse *r = (const void *)m;

	(void)out;
	return r->status ==
	       GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING;
}

static int lc_ok_active(const ProtobufCMessage *m, struct lc_result *out)
{
	out->active = ((const Externalscaler__IsActiveResponse *)
		       (const void *)m)->result;
	return 1;
}

static int lc_ok_spec(const ProtobufCMessage *m, struct lc_result *out)
{
	const Externalscaler__GetMetricSpecResponse *r = (const void *)m;

	(void)out;
	return r->n_metricspecs == 1 && r->metricspecs[0]->targetsizefloat > 0;
}

static int lc_ok_metrics(const ProtobufCMessage *m, struct lc_result *out)
{
	const Externalscaler__GetMetricsResponse *r = (const void *)m;

	if (r->n_metricvalues != 1 || !(r->metricvalues[0]->metricvaluefloat >= 0))
		return 0;
	out->value = r->metricvalues[0]->metricvaluefloat;
	return 1;
}

static const struct {
	const ProtobufCMessageDescriptor *d;
	int (*ok)(const ProtobufCMessage *m, struct lc_result *out);
} lc_replies[LC_METHODS] = {
	[LC_HEALTH] = { &grpc__health__v1__health_check_response__descriptor,
			lc_ok_health },
	[LC_IS_ACTIVE] = { &externalscaler__is_active_response__descriptor,
			   lc_ok_active },
	[LC_GET_METRIC_SPEC] = {
		&externalscaler__get_metric_spec_response__descriptor,
		lc_ok_spec },
	[LC_GET_METRICS] = { &externalscaler__get_metrics_response__descriptor,
			     lc_ok_metrics },
	[LC_STREAM_IS_ACTIVE] = {
		&externalscaler__is_active_response__descriptor,
		lc_ok_active },
};

/* Unpack and check a reply of method m; 1 if it makes sense. */
static int lc_check_reply(enum lc_method m, grpc_byte_buffer *bb,
			  struct lc_result *out)
{
	ProtobufCMessage *msg;
	int ok;

	if ((unsigned)m >= LC_METHODS)
		return 0;
	msg = pb_unpack(lc_replies[m].d, bb, LC_REPLY_MAX, NULL);
	if (!msg)
		return 0;
	ok = lc_replies[m].ok(msg, out);
	protobuf_c_message_free_unpacked(msg, NULL);
	return ok;
}

/* The four ops every call starts with (ops zeroed by the caller): the
 * request, its end, and the server's initial metadata. */
static void lc_request_ops(struct lc_call *k, grpc_op ops[4])
{
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[1].op = GRPC_OP_SEND_MESSAGE;
	ops[1].data.send_message.send_message = k->send;
	ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
	ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[3].data.recv_initial_metadata.recv_initial_metadata = &k->md_init;
}

static void lc_unary_done(struct lc_call *k, int ok)
{
	struct lc_result r;

	memset(&r, 0, sizeof(r));
	r.latency_s = lc_now() - k->started;
	r.method = k->m;
	r.started = k->started;
	r.status = ok ? k->status : GRPC_STATUS_UNKNOWN;
	r.reply_ok = r.status == GRPC_STATUS_OK &&
		     lc_check_reply(k->m, k->recv, &r);
	k->c->inflight--;
	k->c->unary--;
	k->cb(k->arg, &r);
	lc_call_free(k);
}

static int lc_unary_on(struct lc *c, int ch, enum lc_method m,
		       grpc_slice req, double timeout_s, lc_done_fn *cb,
		       void *arg)
{
	struct lc_call *k;
	grpc_op ops[6];

	if ((unsigned)m >= LC_STREAM_IS_ACTIVE)
		return -1;
	k = lc_call_new(c, m, cb, arg);
	if (!k)
		return -1;
	if (lc_call_start(k, ch, req, timeout_s))
		goto fail;
	memset(ops, 0, sizeof(ops));
	lc_request_ops(k, ops);
	ops[4].op = GRPC_OP_RECV_MESSAGE;
	ops[4].data.recv_message.recv_message = &k->recv;
	ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	ops[5].data.recv_status_on_client.trailing_metadata = &k->md_trail;
	ops[5].data.recv_status_on_client.status = &k->status;
	ops[5].data.recv_status_on_client.status_details = &k->details;
	k->t_main.step = lc_unary_done;
	k->started = lc_now();
	if (grpc_call_start_batch(k->call, ops, 6, &k->t_main, NULL) !=
	    GRPC_CALL_OK)
		goto fail;
	c->inflight++;
	c->unary++;
	return 0;
fail:
	lc_call_free(k);
	return -1;
}

int lc_unary(struct lc *c, enum lc_method m, grpc_slice req,
	     double timeout_s, lc_done_fn *cb, void *arg)
{
	return lc_unary_on(c, -1, m, req, timeout_s, cb, arg);
}

/* ---- streams ------------------------------------------------------------- */

/* One of the stream's batches is over; the last one ends the stream. */
static void lc_stream_put(struct lc_call *k)
{
	struct lc *c = k->c;
	struct lc_result r;

	if (--k->pending > 0)
		return;
	if (k->prev)
		k->prev->next = k->next;
	else
		c->streams = k->next;
	if (k->next)
		k->next->prev = k->prev;
	memset(&r, 0, sizeof(r));
	r.method = k->m;
	r.status = k->status;
	r.ended = 1;
	r.started = k->started;
	c->inflight--;
	k->cb(k->arg, &r);
	lc_call_free(k);
}

static void lc_stream_sent(struct lc_call *k, int ok)
{
	(void)ok;
	lc_stream_put(k);
}

static int lc_stream_arm_recv(struct lc_call *k)
{
	grpc_op op;

	memset(&op, 0, sizeof(op));
	op.op = GRPC_OP_RECV_MESSAGE;
	op.data.recv_message.recv_message = &k->recv;
	return grpc_call_start_batch(k->call, &op, 1, &k->t_recv, NULL) ==
	       GRPC_CALL_OK ? 0 : -1;
}

static void lc_stream_got(struct lc_call *k, int ok)
{
	struct lc_result r;

	if (!ok || !k->recv) {        /* the stream is over */
		lc_stream_put(k);
		return;
	}
	memset(&r, 0, sizeof(r));
	r.method = k->m;
	r.status = GRPC_STATUS_OK;
	r.started = k->started;
	r.latency_s = lc_now() - k->started;
	r.reply_ok = lc_check_reply(k->m, k->recv, &r);
	grpc_byte_buffer_destroy(k->recv);
	k->recv = NULL;
	k->cb(k->arg, &r);
	if (lc_stream_arm_recv(k))
		lc_stream_put(k);
}

static void lc_stream_status(struct lc_call *k, int ok)
{
	if (!ok)
		k->status = GRPC_STATUS_UNKNOWN;
	lc_stream_put(k);
}

struct lc_call *lc_stream_open(struct lc *c, grpc_slice req, lc_done_fn *cb,
			       void *arg)
{
	struct lc_call *k = lc_call_new(c, LC_STREAM_IS_ACTIVE, cb, arg);
	grpc_op ops[4];

	if (!k)
		return NULL;
	if (lc_call_start(k, -1, req, 1e9))
		goto fail;
	memset(ops, 0, sizeof(ops));
	lc_request_ops(k, ops);
	k->t_main.step = lc_stream_sent;
	k->t_recv.step = lc_stream_got;
	k->t_status.step = lc_stream_status;
	k->started = lc_now();
	if (grpc_call_start_batch(k->call, ops, 4, &k->t_main, NULL) !=
	    GRPC_CALL_OK)
		goto fail;
	k->pending = 1;
	memset(ops, 0, sizeof(ops));
	ops[0].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	ops[0].data.recv_status_on_client.trailing_metadata = &k->md_trail;
	ops[0].data.recv_status_on_client.status = &k->status;
	ops[0].data.recv_status_on_client.status_details = &k->details;
	/* Once the first batch is started the call must run its course:
	 * a failure below cancels it, and the batches in flight end it. */
	if (grpc_call_start_batch(k->call, ops, 1, &k->t_status, NULL) ==
	    GRPC_CALL_OK)
		k->pending++;
	else
		grpc_call_cancel(k->call, NULL);
	if (lc_stream_arm_recv(k) == 0)
		k->pending++;
	else
		grpc_call_cancel(k->call, NULL);
	c->inflight++;
	k->next = c->streams;
	if (c->streams)
		c->streams->prev = k;
	c->streams = k;
	return k;
fail:
	lc_call_free(k);
	return NULL;
}

void lc_stream_cancel(struct lc_call *k)
{
	grpc_call_cancel(k->call, NULL);
}

/* ---- the client ---------------------------------------------------------- */

struct lc *lc_new(const char *addr, int channels, char err[LC_ERR_MAX])
{
	struct lc *c = NULL;
	grpc_channel_credentials *creds = NULL;
	grpc_arg args[2];
	grpc_channel_args ca;
	int i;

	if (channels < 1 || channels > LC_CHANNELS_MAX) {
		snprintf(err, LC_ERR_MAX, "channels: 1 to %d",
			 LC_CHANNELS_MAX);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, LC_ERR_MAX, "out of memory");
		return NULL;
	}
	grpc_init();
	/* Each channel its own connection, as several KEDA operators would
	 * have; and no retry machinery, which buffers every message (KEDA's
	 * external-scaler connection has no retry policy either). */
	args[0].type = GRPC_ARG_INTEGER;
	args[0].key = (char *)GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL;
	args[0].value.integer = 1;
	args[1].type = GRPC_ARG_INTEGER;
	args[1].key = (char *)GRPC_ARG_ENABLE_RETRIES;
	args[1].value.integer = 0;
	ca.num_args = 2;
	ca.args = args;
	creds = grpc_insecure_credentials_create();
	c->cq = grpc_completion_queue_create_for_next(NULL);
	{
		grpc_completion_queue_attributes qa = {
			GRPC_CQ_CURRENT_VERSION, GRPC_CQ_NEXT,
			GRPC_CQ_NON_POLLING, NULL };

		c->scq = grpc_completion_queue_create(
			grpc_completion_queue_factory_lookup(&qa), &qa, NULL);
	}
	for (i = 0; i < channels; i++) {
		c->ch[i] = grpc_channel_create(addr, creds, &ca);
		if (!c->ch[i]) {
			snprintf(err, LC_ERR_MAX, "cannot make a channel to "
				 "'%.100s'", addr);
			break;
		}
		c->n_ch++;
	}
	grpc_channel_credentials_release(creds);
	if (c->n_ch < channels) {
		lc_free(c);
		return NULL;
	}
	return c;
}

static void lc_ready_cb(void *arg, const struct lc_result *r)
{
	int *state = arg;

	*state = r->reply_ok ? 1 : -1;
}

int lc_wait_ready(struct lc *c, double timeout_s)
{
	grpc_slice s = req_health();
	double end = lc_now() + timeout_s;
	int i, state, rc = -1;

	for (i = 0; i < c->n_ch; i++) {
		for (;;) {
			state = 0;
			if (lc_unary_on(c, i, LC_HEALTH, s, 1.0, lc_ready_cb,
					&state))
				goto out;
			while (!state)
				lc_poll(c, lc_now() + 1.0);
			if (state > 0)
				break;
			if (lc_now() > end)
				goto out;
			lc_poll(c, lc_now() + 0.1);     /* a pause */
		}
	}
	rc = 0;
out:
	grpc_slice_unref(s);
	return rc;
}

/* Run what the streams' queue holds, without waiting; at most every
 * LC_STREAMS_POLL_S, and only with streams open (a look at a queue costs
 * about what a completion does). */
static size_t lc_poll_streams(struct lc *c)
{
	size_t n = 0;
	double now;
	grpc_event ev;

	if (!c->streams)
		return 0;
	now = lc_now();
	if (now - c->scq_polled < LC_STREAMS_POLL_S)
		return 0;
	c->scq_polled = now;
	for (;;) {
		ev = grpc_completion_queue_next(
			c->scq, gpr_inf_past(GPR_CLOCK_MONOTONIC), NULL);
		if (ev.type != GRPC_OP_COMPLETE)
			break;
		{
			struct lc_tag *t = ev.tag;

			t->step(t->k, ev.success);
		}
		n++;
	}
	return n;
}

size_t lc_poll(struct lc *c, double until)
{
	size_t n = 0;
	double now, wait;
	grpc_event ev;

	for (;;) {
		n += lc_poll_streams(c);
		now = lc_now();
		if (n && (now >= until || !c->inflight))
			break;
		/* the streams' queue cannot wake this wait: look at it often
		 * while streams are open */
		wait = until - now;
		if (c->streams && wait > LC_STREAMS_POLL_S)
			wait = LC_STREAMS_POLL_S;
		ev = grpc_completion_queue_next(c->cq, lc_deadline(wait), NULL);
		if (ev.type == GRPC_OP_COMPLETE) {
			struct lc_tag *t = ev.tag;

			t->step(t->k, ev.success);
			n++;
			continue;
		}
		if (ev.type == GRPC_QUEUE_SHUTDOWN || lc_now() >= until) {
			n += lc_poll_streams(c);
			break;             /* time is up (or shutdown) */
		}
	}
	return n;
}

size_t lc_inflight(const struct lc *c)
{
	return c->inflight;
}

size_t lc_unary_inflight(const struct lc *c)
{
	return c->unary;
}

void lc_free(struct lc *c)
{
	struct lc_call *k;
	double end;
	int i;

	if (!c)
		return;
	for (k = c->streams; k; k = k->next)
		grpc_call_cancel(k->call, NULL);
	end = lc_now() + LC_DRAIN_S;
	while (c->inflight && lc_now() < end)
		lc_poll(c, lc_now() + 0.5);
	for (i = 0; i < c->n_ch; i++)
		grpc_channel_destroy(c->ch[i]);
	if (c->cq) {
		grpc_completion_queue_shutdown(c->cq);
		while (grpc_completion_queue_next(
			       c->cq, gpr_inf_future(GPR_CLOCK_REALTIME),
			       NULL).type != GRPC_QUEUE_SHUTDOWN)
			;
		grpc_completion_queue_destroy(c->cq);
	}
	if (c->scq) {
		grpc_completion_queue_shutdown(c->scq);
		while (grpc_completion_queue_next(
			       c->scq, gpr_inf_future(GPR_CLOCK_REALTIME),
			       NULL).type != GRPC_QUEUE_SHUTDOWN)
			;
		grpc_completion_queue_destroy(c->scq);
	}
	free(c);
	grpc_shutdown();
}
