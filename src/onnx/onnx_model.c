/* onnx_model.c - ONNX model files through protobuf-c (note [onnx bytes]
 * in onnx_model.h). */
#include "onnx_model.h"

#include <stdlib.h>

#include "onnx_check.h"
#include "onnx_wire.h"
#include "util.h"

/* protobuf-c allocates through graft's out-of-memory policy (note [out of
 * memory] in util.h): an allocation never returns NULL. */
static void *pb_alloc(void *data, size_t size)
{
    (void)data;
    return xmalloc(size ? size : 1);
}

static void pb_free(void *data, void *ptr)
{
    (void)data;
    free(ptr);
}

static ProtobufCAllocator pb_allocator = {pb_alloc, pb_free, NULL};

Onnx__ModelProto *onnx_model_unpack(const uint8_t *data, size_t len, const char *name,
                                    const graft_limits *limits, graft_diag *d)
{
    uint64_t depth = limit_or_default(limits)->onnx_depth;
    if (!onnx_wire_check(data, len, &onnx__model_proto__descriptor, depth, name, d))
        return NULL;
    Onnx__ModelProto *model = onnx__model_proto__unpack(&pb_allocator, len, data);
    if (!model) {
        /* onnx_wire_check accepts only what protobuf-c unpacks */
        diag_byte_error(d, name, 0, "protobuf-c could not unpack the model");
        return NULL;
    }
    if (!model->graph) {
        diag_byte_error(d, name, len, "the model has no graph (field 'graph' (7) of "
                        "onnx.ModelProto)");
        onnx_model_free(model);
        return NULL;
    }
    if (!onnx_model_check(model, name, d)) {
        onnx_model_free(model);
        return NULL;
    }
    return model;
}

Onnx__ModelProto *onnx_model_read(const Source *src, const graft_limits *limits,
                                  graft_diag *d)
{
    return onnx_model_unpack((const uint8_t *)src->text, src->len, src->name, limits, d);
}

/* A protobuf-c output buffer that appends to a stdio stream. */
typedef struct StreamBuffer {
    ProtobufCBuffer base;
    FILE *out;
    bool ok;
} StreamBuffer;

static void stream_append(ProtobufCBuffer *buffer, size_t len, const uint8_t *data)
{
    StreamBuffer *sb = (StreamBuffer *)buffer;
    if (sb->ok && fwrite(data, 1, len, sb->out) != len)
        sb->ok = false;
}

bool onnx_model_write(const Onnx__ModelProto *model, FILE *out)
{
    StreamBuffer sb = {{stream_append}, out, true};
    onnx__model_proto__pack_to_buffer(model, &sb.base);
    return sb.ok;
}

void onnx_model_free(Onnx__ModelProto *model)
{
    if (model)
        onnx__model_proto__free_unpacked(model, &pb_allocator);
}

/* A varint at *pos before len; false when it does not end there. */
static bool sniff_varint(const uint8_t *data, size_t len, size_t *pos, uint64_t *value)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 10 && *pos < len; i++) {
        uint8_t byte = data[(*pos)++];
        v |= (uint64_t)(byte & 0x7f) << (7 * i);
        if (!(byte & 0x80)) {
            *value = v;
            return true;
        }
    }
    return false;
}

/* One ModelProto field at *pos: a known one, of its wire type (varint or
 * length-delimited, the only two ModelProto uses). */
static bool sniff_field(const uint8_t *data, size_t len, size_t *pos)
{
    uint64_t key, value;
    if (!sniff_varint(data, len, pos, &key) || key >> 3 > 0xffff)
        return false;
    const ProtobufCFieldDescriptor *field =
        protobuf_c_message_descriptor_get_field(&onnx__model_proto__descriptor,
                                                (unsigned)(key >> 3));
    if (!field)
        return false;
    bool len_type = field->type == PROTOBUF_C_TYPE_STRING ||
                    field->type == PROTOBUF_C_TYPE_MESSAGE;
    if ((key & 7) != (len_type ? 2u : 0u) || !sniff_varint(data, len, pos, &value))
        return false;
    if (len_type)
        *pos = value < len - *pos ? *pos + (size_t)value : len;
    return true;
}

bool onnx_model_looks_like(const uint8_t *data, size_t len)
{
    size_t pos = 0;
    unsigned fields = 0;
    while (fields < 3 && pos < len && sniff_field(data, len, &pos))
        fields++;
    return fields > 0 && (fields == 3 || pos == len);
}
