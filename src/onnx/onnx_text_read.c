/* onnx_text_read.c - a model in ONNX's text syntax read into a
 * ModelProto (note [onnx text] in onnx_text.h): parsed into an arena,
 * then packed and unpacked (note [text arena] in onnx_text_build.h). */
#include "onnx_text.h"

#include <stdlib.h>

#include "onnx_check.h"
#include "onnx_model.h"
#include "onnx_text_build.h"
#include "onnx_text_parse.h"
#include "onnx_text_where.h"

/* The arena's model as one that onnx_model_free frees: packed by
 * protobuf-c, then unpacked as a .onnx file's bytes are, told where its
 * nodes were written (note [text positions] in onnx_text_where.h) and
 * checked.  Every text bracket nests at most two messages (a graph in a
 * node's attribute: '<' and '{' for three; seq(...): two), so the wire
 * check's depth bound is twice the brackets' and cannot fail. */
static Onnx__ModelProto *repack(const OnnxTextParser *ps, const graft_limits *limits,
                                graft_diag *d)
{
    size_t len = onnx__model_proto__get_packed_size(ps->model);
    uint8_t *bytes = xmalloc(len ? len : 1);
    onnx__model_proto__pack(ps->model, bytes);
    graft_limits repack_limits = *limit_or_default(limits);
    repack_limits.onnx_depth = 2 * repack_limits.onnx_depth + 8;
    const char *name = ps->src->name;
    Onnx__ModelProto *model = onnx_model_adopt_unchecked(bytes, len, name, &repack_limits, d);
    if (!model)
        return NULL; /* (bytes freed) */
    onnx_model_set_text_where(model, text_where_of(ps, ps->model));
    if (!onnx_model_check(model, name, d)) {
        onnx_model_free(model);
        return NULL;
    }
    return model;
}

Onnx__ModelProto *onnx_text_read(const Source *src, const graft_limits *limits,
                                 graft_diag *d)
{
    OnnxTextParser ps = {
        .src = src,
        .d = d,
        .arena = arena_new(),
        .max_depth = (int)limit_or_default(limits)->onnx_depth,
    };
    text_lexer_init(&ps);
    int rc = onnx_text_parse(&ps);
    text_lexer_free(&ps);
    Onnx__ModelProto *model = rc == 0 && ps.model ? repack(&ps, limits, d) : NULL;
    arena_free(ps.arena);
    return model;
}
