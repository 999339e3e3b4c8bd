/* onnx_model.c - ONNX model files through protobuf-c (note [onnx bytes]
 * in onnx_model.h). */
#include "onnx_model.h"

#include <stddef.h>
#include <stdlib.h>

#include "arena.h"
#include "onnx_check.h"
#include "onnx_encode.h"
#include "onnx_wire.h"
#include "util.h"

/* note [model arena]: protobuf-c unpacks a model into one arena (note
 * [arenas] in arena.h), a bump of a pointer per message, string and array
 * where malloc was called for each; nothing is freed message by message
 * (pb_nofree), the whole model goes with its arena.  The arena is found
 * from the model through a header placed before the ModelProto: the first
 * allocation of protobuf-c's unpack is the message itself (checked on every
 * unpack), so that allocation alone gets the header. */
typedef struct ModelHeader {
    Arena *arena;
    _Alignas(16) unsigned char model[];
} ModelHeader;

typedef struct UnpackArena {
    Arena *arena;
    void *first; /* the first allocation: the ModelProto */
} UnpackArena;

static void *pb_arena_alloc(void *data, size_t size)
{
    UnpackArena *ua = data;
    if (ua->first)
        return arena_alloc(ua->arena, size);
    ModelHeader *h = arena_alloc(ua->arena, sizeof *h + size);
    h->arena = ua->arena;
    return ua->first = h->model;
}

static void pb_nofree(void *data, void *ptr)
{
    (void)data, (void)ptr;
}

static ModelHeader *model_header(Onnx__ModelProto *model)
{
    return (ModelHeader *)((unsigned char *)model - offsetof(ModelHeader, model));
}

/* protobuf-c's unpack of checked bytes into a new arena; NULL (the arena
 * freed) where it fails. */
static Onnx__ModelProto *unpack_into_arena(const uint8_t *data, size_t len)
{
    UnpackArena ua = {arena_new(), NULL};
    ProtobufCAllocator allocator = {pb_arena_alloc, pb_nofree, &ua};
    Onnx__ModelProto *model = onnx__model_proto__unpack(&allocator, len, data);
    if (!model || (void *)model != ua.first) {
        arena_free(ua.arena);
        return NULL;
    }
    return model;
}

Onnx__ModelProto *onnx_model_unpack(const uint8_t *data, size_t len, const char *name,
                                    const graft_limits *limits, graft_diag *d)
{
    uint64_t depth = limit_or_default(limits)->onnx_depth;
    if (!onnx_wire_check(data, len, &onnx__model_proto__descriptor, depth, name, d))
        return NULL;
    Onnx__ModelProto *model = unpack_into_arena(data, len);
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

bool onnx_model_write(const Onnx__ModelProto *model, FILE *out)
{
    return onnx_encode_file(&model->base, out);
}

void onnx_model_free(Onnx__ModelProto *model)
{
    if (model)
        arena_free(model_header(model)->arena);
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
