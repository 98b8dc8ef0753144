/* pb.c - see pb.h. */
#include "pb.h"

#include <grpc/byte_buffer_reader.h>
#include <grpc/slice.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PB_DEPTH_MAX 8      /* messages within messages, as ours nest */
/* Elements of repeated fields in one request, all messages together:
 * KEDA's requests carry one metadata map (META_KEYS_MAX entries are
 * refused later with a message of their own); protobuf-c makes each
 * entry a message of some 50 bytes from 2 bytes of wire. */
#define PB_REPEATED_MAX 1024

grpc_byte_buffer *pb_pack(const ProtobufCMessage *msg)
{
	size_t len = protobuf_c_message_get_packed_size(msg);
	grpc_slice slice = grpc_slice_malloc(len);
	grpc_byte_buffer *bb;

	protobuf_c_message_pack(msg, GRPC_SLICE_START_PTR(slice));
	bb = grpc_raw_byte_buffer_create(&slice, 1);
	grpc_slice_unref(slice);
	return bb;
}

/* A varint at p[0..len): its length in bytes (0 when cut or too long)
 * and its value in *v. */
static size_t pb_varint(const uint8_t *p, size_t len, uint64_t *v)
{
	size_t i;

	*v = 0;
	for (i = 0; i < len && i < 10; i++) {
		*v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80))
			return i + 1;
	}
	return 0;
}

/* What one walk of a request's wire bytes (pb_scan()) checks and found. */
struct pb_scan {
	int strings;          /* look for a NUL byte in strings too */
	size_t repeated;      /* repeated elements met so far */
	const char *why;      /* set when refused */
};

/*
 * Walk a message of type d in wire format p[0..len) before protobuf-c
 * unpacks it, refusing (-1, with x->why):
 *  - a message field that is not repeated given more than once: protobuf-c
 *    merges each repeat into the one before, copying its arrays, so 16
 *    KiB of repeats held 68 MB and 64 KiB 1 GB;
 *  - more than PB_REPEATED_MAX repeated elements in all (each a message
 *    of some 50 bytes from 2 bytes of wire);
 *  - with x->strings, a NUL byte in a string field: protobuf-c hands
 *    strings over as C strings, so "1.5\0junk" would read as "1.5".
 * 0 when none; also on anything malformed, which the unpack judges.
 */
static int pb_scan(const ProtobufCMessageDescriptor *d, const uint8_t *p,
		   size_t len, int depth, struct pb_scan *x)
{
	const ProtobufCFieldDescriptor *f;
	unsigned char seen[64] = { 0 };   /* message fields met, by index */
	size_t i = 0, n, fi;
	uint64_t key, v;

	while (i < len) {
		n = pb_varint(p + i, len - i, &key);
		if (!n)
			return 0;
		i += n;
		f = key >> 3 <= UINT32_MAX ?
		    protobuf_c_message_descriptor_get_field(
			    d, (unsigned)(key >> 3)) : NULL;
		if (f && f->label == PROTOBUF_C_LABEL_REPEATED &&
		    ++x->repeated > PB_REPEATED_MAX) {
			x->why = "request message has more than 1024 repeated "
				 "elements (metadata entries); KEDA sends at "
				 "most one map of a few";
			return -1;
		}
		switch (key & 7) {
		case 0:                         /* varint */
			n = pb_varint(p + i, len - i, &v);
			if (!n)
				return 0;
			i += n;
			break;
		case 1:                         /* 64-bit */
			i += 8;
			break;
		case 5:                         /* 32-bit */
			i += 4;
			break;
		case 2:                         /* length-delimited */
			n = pb_varint(p + i, len - i, &v);
			if (!n || v > len - i - n)
				return 0;
			i += n;
			if (x->strings && f &&
			    f->type == PROTOBUF_C_TYPE_STRING &&
			    memchr(p + i, 0, (size_t)v)) {
				x->why = "request message holds a NUL byte in "
					 "a string (a name or a metadata key "
					 "or value); they must be text";
				return -1;
			}
			if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
				fi = (size_t)(f - d->fields);
				if (f->label != PROTOBUF_C_LABEL_REPEATED &&
				    fi < sizeof(seen) && seen[fi]++) {
					x->why = "request message gives a "
						 "message field more than "
						 "once; a protobuf encoder "
						 "writes it once";
					return -1;
				}
				if (depth < PB_DEPTH_MAX &&
				    pb_scan(f->descriptor, p + i, (size_t)v,
					    depth + 1, x))
					return -1;
			}
			i += (size_t)v;
			break;
		default:                        /* groups: not in our protos */
			return 0;
		}
	}
	return 0;
}

/* pb_unpack() and pb_unpack_in(): the message's memory from alloc (NULL:
 * protobuf-c's, malloc()). */
static ProtobufCMessage *unpack(ProtobufCAllocator *alloc,
				const ProtobufCMessageDescriptor *d,
				grpc_byte_buffer *bb, size_t max_len,
				const char **why)
{
	grpc_byte_buffer_reader reader;
	grpc_slice s;
	ProtobufCMessage *msg = NULL;
	const char *w = "malformed request message";

	struct pb_scan x = { 0, 0, NULL };

	if (!bb) {
		w = "request message missing";
		goto out;
	}
	if (grpc_byte_buffer_length(bb) > max_len) {
		w = "request message too large";
		goto out;
	}
	if (!grpc_byte_buffer_reader_init(&reader, bb))
		goto out;
	s = grpc_byte_buffer_reader_readall(&reader);
	/* A message without a zero byte anywhere has none in a string: the
	 * strings are looked at in those with one (an empty string's
	 * length, a zero number, or a NUL). */
	x.strings = memchr(GRPC_SLICE_START_PTR(s), 0,
			   GRPC_SLICE_LENGTH(s)) != NULL;
	if (pb_scan(d, GRPC_SLICE_START_PTR(s), GRPC_SLICE_LENGTH(s), 0, &x))
		w = x.why;
	else
		msg = protobuf_c_message_unpack(d, alloc,
						GRPC_SLICE_LENGTH(s),
						GRPC_SLICE_START_PTR(s));
	grpc_slice_unref(s);
	grpc_byte_buffer_reader_destroy(&reader);
out:
	if (!msg && why)
		*why = w;
	return msg;
}

ProtobufCMessage *pb_unpack(const ProtobufCMessageDescriptor *d,
			    grpc_byte_buffer *bb, size_t max_len,
			    const char **why)
{
	return unpack(NULL, d, bb, max_len, why);
}

/* A block past the inline bytes: its chain link, then the caller's. */
struct pb_big {
	struct pb_big *next;
	max_align_t data[];
};

static void *arena_alloc(void *data, size_t size)
{
	struct pb_arena *a = data;
	const size_t align = _Alignof(max_align_t);
	size_t n = size + (align - 1) - (size + align - 1) % align;
	struct pb_big *b;

	if (n >= size && n <= sizeof(a->buf) - a->used) {
		void *p = a->buf + a->used;

		a->used += n;
		return p;
	}
	if (size > SIZE_MAX - sizeof(*b))
		return NULL;
	b = malloc(sizeof(*b) + size);
	if (!b)
		return NULL;
	b->next = a->big;
	a->big = b;
	return b->data;
}

/* protobuf-c frees what it unpacked (or scratch) one by one: all of it is
 * the arena's, freed at once by pb_arena_release(). */
static void arena_free(void *data, void *p)
{
	(void)data;
	(void)p;
}

void pb_arena_init(struct pb_arena *a)
{
	a->pa.alloc = arena_alloc;
	a->pa.free = arena_free;
	a->pa.allocator_data = a;
	a->used = 0;
	a->big = NULL;
}

void pb_arena_release(struct pb_arena *a)
{
	struct pb_big *b = a->big, *next;

	for (; b; b = next) {
		next = b->next;
		free(b);
	}
	a->big = NULL;
	a->used = 0;
}

ProtobufCMessage *pb_unpack_in(struct pb_arena *a,
			       const ProtobufCMessageDescriptor *d,
			       grpc_byte_buffer *bb, size_t max_len,
			       const char **why)
{
	return unpack(&a->pa, d, bb, max_len, why);
}
