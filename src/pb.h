/*
 * pb.h - protobuf-c messages in and out of gRPC byte buffers.
 */
#ifndef STAFFER_PB_H
#define STAFFER_PB_H

#include <grpc/byte_buffer.h>
#include <protobuf-c/protobuf-c.h>

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

#endif
