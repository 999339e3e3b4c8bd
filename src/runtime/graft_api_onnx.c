/* graft_api_onnx.c - ONNX models through the API (graft_api_onnx.h): the
 * model read (note [onnx bytes] in src/onnx/onnx_model.h, note [onnx
 * text] in src/onnx/onnx_text.h) and imported as a graft graph, which
 * the API hands out; the graph's host keeps the model and the form it
 * came in, so that freeing the graph frees the model, and writing it
 * writes the model back (note [onnx export] in src/onnx/onnx_export.c). */
#include "graft_api_onnx.h"

#include <stdlib.h>

#include "onnx_file.h"
#include "onnx_graph.h"
#include "onnx_model.h"
#include "onnx_text.h"
#include "subgraph_rules.h"

/* What the graph's host points to. */
typedef struct ApiOnnx {
    OnnxModel *model; /* the model, which owns the graph */
    bool text;        /* it came in ONNX's text syntax */
} ApiOnnx;

graft_graph *api_onnx_load(const Source *src, bool text, const graft_limits *lim,
                           graft_diag *d)
{
    Onnx__ModelProto *proto = text ? onnx_text_read(src, lim, d) : onnx_model_read(src, lim, d);
    OnnxModel *m = proto ? onnx_import(proto, src->name, d) : NULL;
    if (!m)
        return NULL;
    ApiOnnx *host = xmalloc(sizeof *host);
    *host = (ApiOnnx){m, text};
    graph_set_host(m->g, host);
    return m->g;
}

void api_onnx_keep_decls(graft_graph *g, const graft_rule_set *rs)
{
    const ApiOnnx *host = graph_host(g);
    onnx_file_keep_decls(host->model, rs);
}

bool api_onnx_rewrite_subgraphs(graft_graph *g, const graft_rule_set *rs,
                                const EngineOptions *opts, graft_diag *d)
{
    const ApiOnnx *host = graph_host(g);
    return subgraph_rules_run(rs, host->model, opts, NULL, d);
}

bool api_onnx_is(const graft_graph *g)
{
    return g && graph_ir(g) == IR_ONNX && graph_host(g);
}

OnnxModel *api_onnx_model(const graft_graph *g)
{
    const ApiOnnx *host = graph_host(g);
    return host->model;
}

bool api_onnx_text(const graft_graph *g)
{
    const ApiOnnx *host = graph_host(g);
    return host->text;
}

void api_onnx_free(graft_graph *g)
{
    ApiOnnx *host = graph_host(g);
    onnx_graph_free(host->model); /* g with it */
    free(host);
}

char *api_onnx_string(const graft_graph *g, bool text, size_t *len, graft_diag *d)
{
    const ApiOnnx *host = graph_host(g);
    char *data = NULL;
    FILE *out = open_memstream(&data, len);
    if (!out) {
        diag_plain_error(d, "cannot open a memory stream for the model");
        return NULL;
    }
    bool ok = onnx_export(host->model, out, text, d);
    if (fclose(out) != 0 || !ok) {
        free(data);
        *len = 0;
        return NULL;
    }
    return data;
}
