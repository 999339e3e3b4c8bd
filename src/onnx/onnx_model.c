/* onnx_model.c - ONNX model files read and written (note [onnx bytes] in
 * onnx_model.h). */
#include "onnx_model.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "keymap.h"
#include "onnx_check.h"
#include "onnx_decode.h"
#include "onnx_encode.h"
#include "onnx_span.h"
#include "onnx_text_where.h"
#include "onnx_wire.h"
#include "util.h"

/* note [model arena]: a model is decoded into one arena (note [arenas] in
 * arena.h), a bump of a pointer per message, string and array where
 * malloc was called for each; nothing is freed message by message, the
 * whole model goes with its arena.  Its bytes fields point into the file's
 * bytes (note [bytes in place] in onnx_decode.h), which the model owns.
 * Both are found from the model through a header placed before the
 * ModelProto, and so are the spans of its canonical messages (note
 * [canonical spans] in onnx_span.h) and the interner of its strings (note
 * [interned strings] in onnx_decode.h). */
typedef struct ModelHeader {
    Arena *arena;
    uint8_t *bytes;   /* the file's, malloc'd */
    KeyMap spans;     /* decoded message -> its OnnxSpan in bytes */
    bool nodes_put;   /* its graph's nodes' spans in spans: note [nodes' spans put late] */
    Interner *names;  /* every string of the model, copies in arena */
    /* a lean read's lists (note [lean read] in onnx_lean.h); graph NULL: none */
    OnnxLeanGraph lean;
    OnnxTextWhere *text_where; /* a text model's places: note [text positions] */
    _Alignas(16) unsigned char model[];
} ModelHeader;

static ModelHeader *model_header(Onnx__ModelProto *model)
{
    return (ModelHeader *)((unsigned char *)model - offsetof(ModelHeader, model));
}

static const ModelHeader *model_header_const(const Onnx__ModelProto *model)
{
    return (const ModelHeader *)((const unsigned char *)model - offsetof(ModelHeader, model));
}

/* bytes decoded into a new arena (lean: note [lean read] in onnx_lean.h), the model
 * owning them; NULL on a fault of note [checked as decoded] (bytes then
 * still the caller's). */
static Onnx__ModelProto *decode_into_arena(uint8_t *bytes, size_t len, uint64_t depth,
                                           bool lean)
{
    Arena *arena = arena_new();
    ModelHeader *h = arena_alloc(arena, sizeof *h + sizeof(Onnx__ModelProto));
    *h = (ModelHeader){.arena = arena, .bytes = bytes, .names = interner_new(arena)};
    Onnx__ModelProto *model = (Onnx__ModelProto *)h->model;
    bool ok = lean ? onnx_decode_lean(bytes, len, depth, arena, &h->spans, h->names, &h->lean,
                                      model)
                   : onnx_decode_named(&onnx__model_proto__descriptor, bytes, len, depth,
                                       arena, &h->spans, h->names, &model->base);
    if (ok)
        return model;
    keymap_free(&h->spans);
    interner_free(h->names);
    arena_free(arena);
    return NULL;
}

/* Reports the fault the decoder found in bytes (note [checked as
 * decoded]): the wire check's message, by byte offset and field. */
static void report_fault(const uint8_t *bytes, size_t len, uint64_t depth, const char *name,
                         graft_diag *d)
{
    if (onnx_wire_check(bytes, len, &onnx__model_proto__descriptor, depth, name, d))
        diag_byte_error(d, name, 0, "internal error: the decoder refused what the wire "
                        "check passes");
}

/* bytes (taken) decoded, a model with a graph; NULL after reporting. */
static Onnx__ModelProto *adopt_unchecked(uint8_t *bytes, size_t len, const char *name,
                                         const graft_limits *limits, bool lean, graft_diag *d)
{
    uint64_t depth = limit_or_default(limits)->onnx_depth;
    Onnx__ModelProto *model = decode_into_arena(bytes, len, depth, lean);
    if (!model) {
        report_fault(bytes, len, depth, name, d);
        free(bytes);
        return NULL;
    }
    if (!model->graph) {
        diag_byte_error(d, name, len, "the model has no graph (field 'graph' (7) of "
                        "onnx.ModelProto)");
        onnx_model_free(model);
        return NULL;
    }
    return model;
}

Onnx__ModelProto *onnx_model_adopt_unchecked(uint8_t *bytes, size_t len, const char *name,
                                             const graft_limits *limits, graft_diag *d)
{
    return adopt_unchecked(bytes, len, name, limits, false, d);
}

/* bytes (taken) decoded and checked; NULL after reporting. */
static Onnx__ModelProto *adopt(uint8_t *bytes, size_t len, const char *name,
                               const graft_limits *limits, bool lean, graft_diag *d)
{
    Onnx__ModelProto *model = adopt_unchecked(bytes, len, name, limits, lean, d);
    if (model && !onnx_model_check(model, name, d)) {
        onnx_model_free(model);
        return NULL;
    }
    return model;
}

Onnx__ModelProto *onnx_model_adopt(uint8_t *bytes, size_t len, const char *name,
                                   const graft_limits *limits, graft_diag *d)
{
    return adopt(bytes, len, name, limits, false, d);
}

Onnx__ModelProto *onnx_model_unpack(const uint8_t *data, size_t len, const char *name,
                                    const graft_limits *limits, graft_diag *d)
{
    uint8_t *bytes = xmalloc(len ? len : 1);
    if (len)
        memcpy(bytes, data, len);
    return onnx_model_adopt(bytes, len, name, limits, d);
}

Onnx__ModelProto *onnx_model_read(const Source *src, const graft_limits *limits,
                                  graft_diag *d)
{
    return onnx_model_unpack((const uint8_t *)src->text, src->len, src->name, limits, d);
}

Onnx__ModelProto *onnx_model_read_taking(Source *src, const graft_limits *limits,
                                         graft_diag *d)
{
    uint8_t *bytes = (uint8_t *)src->text;
    src->text = NULL; /* the model's now */
    return onnx_model_adopt(bytes, src->len, src->name, limits, d);
}

Onnx__ModelProto *onnx_model_read_unchecked(Source *src, const graft_limits *limits,
                                            graft_diag *d)
{
    uint8_t *bytes = (uint8_t *)src->text;
    src->text = NULL; /* the model's now */
    return adopt_unchecked(bytes, src->len, src->name, limits, false, d);
}

Onnx__ModelProto *onnx_model_read_lean(Source *src, const graft_limits *limits, graft_diag *d)
{
    uint8_t *bytes = (uint8_t *)src->text;
    src->text = NULL; /* the model's now */
    return adopt(bytes, src->len, src->name, limits, true, d);
}

const OnnxLeanGraph *onnx_model_lean(const Onnx__ModelProto *model)
{
    const ModelHeader *h = model_header_const(model);
    return h->lean.graph ? &h->lean : NULL;
}

bool onnx_model_write(const Onnx__ModelProto *model, FILE *out)
{
    return onnx_encode_file(&model->base, NULL, out);
}

bool onnx_model_write_from(const Onnx__ModelProto *model, const Onnx__ModelProto *read,
                           FILE *out)
{
    return onnx_model_write_made(model, read, NULL, out);
}

/* note [nodes' spans put late]: the decoder keeps the model's graph's
 * nodes' spans by index (note [spans by index] in onnx_span.h), where no
 * writing finds them: the export writes a node list of its own, the
 * nodes it made given as their bytes (OnnxMadeBytes), those it kept from
 * the model found by address.  A partition keeps none (issue 34's: its
 * 60,000 nodes in functions and the calls of them), a rewrite most; so
 * the nodes' spans are put by address (a put each, about 40
 * instructions) only by a write that keeps one of the model's nodes, once
 * a model: a write of made nodes alone puts none.  The model's spans map
 * is a cache of the read model's, filled here: a write of a const model
 * may fill it. */

/* Whether the writing of model with made may find one of read's nodes
 * by address: some node of its graph not given as bytes, in a list not
 * read's own. */
static bool keeps_nodes(const Onnx__ModelProto *model, const Onnx__ModelProto *read,
                        const OnnxMadeBytes *made)
{
    const Onnx__GraphProto *graph = model->graph;
    if (!graph || !graph->n_node)
        return false;
    if (read->graph && graph->node == read->graph->node) /* read's own list: by index */
        return false;
    if (!made || !made->nodes || made->graph != &graph->base)
        return true;
    for (size_t k = 0; k < graph->n_node; k++)
        if (!made->nodes[k].data)
            return true;
    return false;
}

/* read's graph's nodes' spans put by address in its spans map, once. */
static void put_node_spans(const Onnx__ModelProto *read)
{
    ModelHeader *h = model_header((Onnx__ModelProto *)read); /* note [nodes' spans put late] */
    const Onnx__GraphProto *graph = read->graph;
    if (h->nodes_put || !graph || !graph->n_node)
        return;
    h->nodes_put = true;
    const OnnxSpan *by_index = onnx_list_spans_get(&h->spans, graph->node);
    if (!by_index) /* (a lean read's, or a text model's) */
        return;
    keymap_reserve(&h->spans, graph->n_node);
    for (size_t k = 0; k < graph->n_node; k++)
        if (by_index[k].data)
            onnx_span_put(&h->spans, graph->node[k], &by_index[k]);
}

bool onnx_model_write_made(const Onnx__ModelProto *model, const Onnx__ModelProto *read,
                           const OnnxMadeBytes *made, FILE *out)
{
    if (keeps_nodes(model, read, made))
        put_node_spans(read);
    const ModelHeader *h = model_header_const(read);
    return onnx_encode_file_lean(&model->base, &h->spans, made, onnx_model_lean(read),
                                 out);
}

void onnx_model_free(Onnx__ModelProto *model)
{
    if (!model)
        return;
    ModelHeader *h = model_header(model);
    uint8_t *bytes = h->bytes;
    keymap_free(&h->spans);
    interner_free(h->names);
    onnx_text_where_free(h->text_where);
    arena_free(h->arena); /* h with it */
    free(bytes);
}

Interner *onnx_model_names(Onnx__ModelProto *model)
{
    return model_header(model)->names;
}

void onnx_model_set_text_where(Onnx__ModelProto *model, OnnxTextWhere *where)
{
    model_header(model)->text_where = where;
}

OnnxTextWhere *onnx_model_text_where(const Onnx__ModelProto *model)
{
    return model_header_const(model)->text_where;
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
