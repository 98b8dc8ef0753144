/*
 * pb.h - protobuf-c messages in and out of gRPC byte buffers.
 */
#ifndef STAFFER_PB_H
#define STAFFER_PB_H

#include <grpc/byte_buffer.h>
#include <protobuf-c/protobuf-c.h>
#include <stddef.h>

#define PB_ARENA_INLINE 8192  /* bytes of an arena held inline */

/* Pack msg into a new byte buffer (caller destroys it), or NULL. */
grpc_byte_buffer *pb_pack(const ProtobufCMessage *msg);

/* Unpack bb as a message of type d (caller frees it with
 * protobuf_c_message_free_unpacked), or NULL when bb is NULL, larger than
 * max_len, malformed, or holds a NUL byte in a string (protobuf-c would
 * cut the string there); then *why (if why) is a static sentence.  bb
 * stays owned by the caller. */
ProtobufCMessage *pb_unpack(const ProtobufCMessageDescriptor *d,
			    grpc_byte_buffer *bb, size_t max_len,
			    const char **why);

/*
 * Memory for messages that die together, e.g. a unary request unpacked
 * and dropped in one step function: a bump allocator over the bytes
 * inline (a request with its metadata map is some 20 allocations, which
 * malloc() and protobuf_c_message_free_unpacked() would each walk), and
 * malloc() for what does not fit.  Nothing is freed before
 * pb_arena_release(), which frees everything at once.  Not shared between
 * threads.  Large: meant for the stack.
 */
struct pb_arena {
	ProtobufCAllocator pa;        /* what protobuf-c is given */
	size_t used;                  /* bytes of buf handed out */
	void *big;                    /* malloc()ed blocks, chained */
	_Alignas(max_align_t) unsigned char buf[PB_ARENA_INLINE];
};

/* An empty arena (buf is not touched). */
void pb_arena_init(struct pb_arena *a);
/* Free every message of a; a is then empty again. */
void pb_arena_release(struct pb_arena *a);

/* pb_unpack() with the message in arena a: never give it to
 * protobuf_c_message_free_unpacked(); pb_arena_release(a) frees it. */
ProtobufCMessage *pb_unpack_in(struct pb_arena *a,
			       const ProtobufCMessageDescriptor *d,
			       grpc_byte_buffer *bb, size_t max_len,
			       const char **why);

#endif
