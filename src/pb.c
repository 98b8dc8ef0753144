/* pb.c - see pb.h. */
#include "pb.h"

#include <grpc/byte_buffer_reader.h>
#include <grpc/slice.h>

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

ProtobufCMessage *pb_unpack(const ProtobufCMessageDescriptor *d,
			    grpc_byte_buffer *bb, size_t max_len)
{
	grpc_byte_buffer_reader reader;
	grpc_slice s;
	ProtobufCMessage *msg = NULL;

	if (!bb || grpc_byte_buffer_length(bb) > max_len)
		return NULL;
	if (!grpc_byte_buffer_reader_init(&reader, bb))
		return NULL;
	s = grpc_byte_buffer_reader_readall(&reader);
	msg = protobuf_c_message_unpack(d, NULL, GRPC_SLICE_LENGTH(s),
					GRPC_SLICE_START_PTR(s));
	grpc_slice_unref(s);
	grpc_byte_buffer_reader_destroy(&reader);
	return msg;
}
