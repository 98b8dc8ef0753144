/*
 * pb.c - fuzz targets: KEDA's protobuf requests (see fuzz.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <grpc/byte_buffer.h>
#include <grpc/slice.h>

#include "fuzz.h"

#include "externalscaler.pb-c.h"
#include "meta.h"
#include "pb.h"
#include "scaler.h"

/* ---- KEDA's protobuf messages -------------------------------------------- */

/*
 * The request bytes of IsActive / StreamIsActive / GetMetricSpec
 * (ScaledObjectRef) and GetMetrics (GetMetricsRequest), unpacked by
 * pb_unpack as rpc.c does, then the metadata map handed to scaler_parse
 * as rpc.c's parse_ref() does.
 */
static char *pb_corpus[4];
static size_t pb_corpus_len[4];
static size_t pb_ncorpus;

static void pb_corpus_init(void)
{
	Externalscaler__ScaledObjectRef ref =
		EXTERNALSCALER__SCALED_OBJECT_REF__INIT;
	Externalscaler__GetMetricsRequest req =
		EXTERNALSCALER__GET_METRICS_REQUEST__INIT;
	Externalscaler__ScaledObjectRef__ScalerMetadataEntry e[4] = {
		EXTERNALSCALER__SCALED_OBJECT_REF__SCALER_METADATA_ENTRY__INIT,
		EXTERNALSCALER__SCALED_OBJECT_REF__SCALER_METADATA_ENTRY__INIT,
		EXTERNALSCALER__SCALED_OBJECT_REF__SCALER_METADATA_ENTRY__INIT,
		EXTERNALSCALER__SCALED_OBJECT_REF__SCALER_METADATA_ENTRY__INIT,
	};
	Externalscaler__ScaledObjectRef__ScalerMetadataEntry *ep[4] = {
		&e[0], &e[1], &e[2], &e[3],
	};
	const ProtobufCMessage *msgs[4];
	size_t i;

	if (pb_ncorpus)
		return;
	e[0].key = "arrivalRateQuery";
	e[0].value = "sum(rate(x[1m]))";
	e[1].key = "serviceTime";
	e[1].value = "10";
	e[2].key = "scalerAddress";
	e[2].value = "staffer:9090";
	e[3].key = "schedule";
	e[3].value = "Mon-Fri 08:00-19:00 beta=2";
	ref.name = "llama";
	ref.namespace_ = "inference";
	ref.n_scalermetadata = 4;
	ref.scalermetadata = ep;
	req.scaledobjectref = &ref;
	req.metricname = "s0-staffer";
	msgs[0] = &ref.base;
	msgs[1] = &req.base;
	for (i = 0; i < 2; i++) {
		size_t n = protobuf_c_message_get_packed_size(msgs[i]);

		pb_corpus[pb_ncorpus] = malloc(n ? n : 1);
		assert_non_null(pb_corpus[pb_ncorpus]);
		protobuf_c_message_pack(msgs[i],
					(uint8_t *)pb_corpus[pb_ncorpus]);
		pb_corpus_len[pb_ncorpus++] = n;
	}
}

void pb_corpus_release(void)
{
	while (pb_ncorpus)
		free(pb_corpus[--pb_ncorpus]);
}

static grpc_byte_buffer *pb_buffer(const char *in, size_t len)
{
	grpc_slice s = grpc_slice_from_copied_buffer(in, len);
	grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);

	grpc_slice_unref(s);
	return bb;
}

/* What the server does with a ScaledObjectRef, and what it must not do. */
static void pb_check_ref(const Externalscaler__ScaledObjectRef *ref)
{
	const char *keys[128], *values[128];
	char msg[SCALER_MSG_MAX];
	struct meta m;
	enum scaler_err se;
	size_t i;

	FZ_CHECK(ref->name && ref->namespace_, "NULL name or namespace");
	FZ_CHECK(ref->n_scalermetadata == 0 || ref->scalermetadata,
		 "metadata entries without an array");
	if (ref->n_scalermetadata > 128)
		return;   /* rpc.c answers INVALID_ARGUMENT first */
	for (i = 0; i < ref->n_scalermetadata; i++) {
		FZ_CHECK(ref->scalermetadata[i] &&
			 ref->scalermetadata[i]->key &&
			 ref->scalermetadata[i]->value, "entry %zu", i);
		keys[i] = ref->scalermetadata[i]->key;
		values[i] = ref->scalermetadata[i]->value;
	}
	meta_init(&m);
	se = scaler_parse(meta_scaler, "fuzz", &m, keys, values,
			  ref->n_scalermetadata, msg);
	FZ_CHECK(se == SCALER_OK || se == SCALER_EINVAL, "scaler code %d",
		 (int)se);
	if (se == SCALER_OK)
		meta_check_result(&m);
	else
		fz_check_msg(msg, sizeof(msg), "scaler_parse");
	meta_release(&m);
}

/* Unpack as d; on success, pack and unpack again: the second packing
 * must equal the first (what the server reads is stable). */
/* Whether m or a message inside it kept unknown fields. */
static int pb_unknown(const ProtobufCMessage *m)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	const ProtobufCFieldDescriptor *f;
	const char *base = (const char *)m;
	ProtobufCMessage *const *subs;
	unsigned i;
	size_t j, n;

	if (m->n_unknown_fields)
		return 1;
	for (i = 0; i < d->n_fields; i++) {
		f = &d->fields[i];
		if (f->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			/* a count and an array of pointers */
			n = *(const size_t *)(base + f->quantifier_offset);
			subs = *(ProtobufCMessage *const *const *)
				(base + f->offset);
		} else {
			/* one pointer, NULL when absent */
			subs = (ProtobufCMessage *const *)(base + f->offset);
			n = *subs ? 1 : 0;
		}
		for (j = 0; j < n; j++)
			if (pb_unknown(subs[j]))
				return 1;
	}
	return 0;
}

/* a and b pack to the same bytes; what: the failure's words. */
static void pb_same_packing(const ProtobufCMessage *a,
			    const ProtobufCMessage *b, const char *what)
{
	size_t n1 = protobuf_c_message_get_packed_size(a);
	size_t n2 = protobuf_c_message_get_packed_size(b);
	uint8_t *p1, *p2;

	FZ_CHECK(n1 == n2, "packed sizes %zu and %zu", n1, n2);
	p1 = malloc(n1 + 1);
	p2 = malloc(n2 + 1);
	assert_true(p1 && p2);
	protobuf_c_message_pack(a, p1);
	protobuf_c_message_pack(b, p2);
	FZ_CHECK(!memcmp(p1, p2, n1), "%s", what);
	free(p1);
	free(p2);
}

static ProtobufCMessage *pb_roundtrip(const ProtobufCMessageDescriptor *d,
				      const char *in, size_t len)
{
	grpc_byte_buffer *bb = pb_buffer(in, len), *bb2;
	ProtobufCMessage *msg, *msg2;

	msg = pb_unpack(d, bb, 1u << 20, NULL);
	grpc_byte_buffer_destroy(bb);
	if (!msg)
		return NULL;
	bb2 = pb_pack(msg);
	FZ_CHECK(bb2 != NULL, "pb_pack failed");
	msg2 = pb_unpack(d, bb2, 1u << 20, NULL);
	grpc_byte_buffer_destroy(bb2);
	/* libprotobuf-c keeps an unknown field numbered 0 (when its tag is
	 * written in two bytes), packs it in one byte and then refuses
	 * that: its quirk, and the server never packs what it received. */
	if (!msg2 && pb_unknown(msg))
		return msg;
	FZ_CHECK(msg2 != NULL, "a packed message does not unpack");
	pb_same_packing(msg, msg2, "packing is not stable");
	protobuf_c_message_free_unpacked(msg2, NULL);
	return msg;
}

/* rpc.c unpacks unary requests into a stack arena (pb_unpack_in()): the
 * same verdict as pb_unpack(), and an accepted message packs to the same
 * bytes.  The arena lives on the heap here, with the real inline size,
 * so ASan sees past its end; larger messages take its malloc() path. */
static void pb_check_arena(const ProtobufCMessageDescriptor *d,
			   const char *in, size_t len)
{
	struct pb_arena *a = malloc(sizeof(*a));
	grpc_byte_buffer *bb = pb_buffer(in, len);
	ProtobufCMessage *heap, *ar;
	const char *why_heap = NULL, *why_ar = NULL;

	assert_non_null(a);
	pb_arena_init(a);
	heap = pb_unpack(d, bb, 1u << 20, &why_heap);
	ar = pb_unpack_in(a, d, bb, 1u << 20, &why_ar);
	grpc_byte_buffer_destroy(bb);
	FZ_CHECK(!heap == !ar, "arena and heap unpacking disagree");
	FZ_CHECK((why_heap == NULL) == (why_ar == NULL), "reasons disagree");
	if (heap && ar)
		pb_same_packing(heap, ar, "arena message packs otherwise");
	if (heap)
		protobuf_c_message_free_unpacked(heap, NULL);
	pb_arena_release(a);
	free(a);
}

static void check_pb(struct fz *r, const char *in, size_t len, int valid)
{
	Externalscaler__ScaledObjectRef *ref;
	Externalscaler__GetMetricsRequest *req;
	grpc_byte_buffer *bb;

	ref = (Externalscaler__ScaledObjectRef *)pb_roundtrip(
		&externalscaler__scaled_object_ref__descriptor, in, len);
	req = (Externalscaler__GetMetricsRequest *)pb_roundtrip(
		&externalscaler__get_metrics_request__descriptor, in, len);
	FZ_CHECK(!valid || ref || req, "valid message refused");
	pb_check_arena(&externalscaler__scaled_object_ref__descriptor, in,
		       len);
	pb_check_arena(&externalscaler__get_metrics_request__descriptor, in,
		       len);
	if (ref) {
		fz_accepted++;
		pb_check_ref(ref);
		protobuf_c_message_free_unpacked(&ref->base, NULL);
	}
	if (req) {
		FZ_CHECK(req->metricname, "NULL metricName");
		if (req->scaledobjectref)
			pb_check_ref(req->scaledobjectref);
		protobuf_c_message_free_unpacked(&req->base, NULL);
	}
	/* The size cap: a message one byte over is refused unread. */
	if (len > 0 && fz_one_in(r, 8)) {
		const ProtobufCMessageDescriptor *d =
			&externalscaler__scaled_object_ref__descriptor;

		bb = pb_buffer(in, len);
		FZ_CHECK(!pb_unpack(d, bb, len - 1, NULL), "cap ignored");
		grpc_byte_buffer_destroy(bb);
	}
}

void test_fuzz_pb(void **state)
{
	struct fz_target t = {
		"pb", NULL, 0, { NULL, 0 }, 20000, check_pb, NULL, 1,
		NULL, NULL,
	};

	(void)state;
	pb_corpus_init();
	t.corpus = (const char *const *)pb_corpus;
	t.ncorpus = pb_ncorpus;
	t.corpus_len = pb_corpus_len;
	fz_run(&t);
}
