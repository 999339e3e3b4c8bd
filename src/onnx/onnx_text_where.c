/* onnx_text_where.c - where a text model's nodes were written, found
 * after it is decoded, and errors at those places (note [text positions]
 * in onnx_text_where.h). */
#include "onnx_text_where.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "onnx_model.h"
#include "onnx_text_build.h"

/* The places are in the order walk() visits the model's nodes and
 * graphs: a node's op, then its inputs; a graph's outputs.  The walk that
 * records them visits the model being built, the one that indexes them by
 * key the model decoded from it, which has the same messages in the same
 * order: reading costs a push per name, with no hash; the index is made
 * when an error asks for a place. */
struct OnnxTextWhere {
    Source *src;            /* a copy of the text, for the excerpts */
    VEC(SrcRange) places;   /* first_line 0: an optional input left out */
    KeyMap index;           /* keymap_ptr_key of a key -> its place: made by the
                               first error (place_of) */
};

void onnx_text_where_free(OnnxTextWhere *where)
{
    if (!where)
        return;
    source_free(where->src);
    vec_free(&where->places);
    keymap_free(&where->index);
    free(where);
}

/* What a walk does at a graph (node NULL) or a node whose first place is
 * at; true stops the walk. */
typedef bool (*Visit)(void *ctx, const Onnx__GraphProto *graph, const Onnx__NodeProto *node,
                      size_t at);

typedef struct Walk {
    Visit visit;
    void *ctx;
    size_t at;                             /* the places before the next */
    VEC(const Onnx__GraphProto *) graphs;  /* still to visit: a stack, not recursion */
} Walk;

/* Visits node, and stacks the graphs of its attributes. */
static bool walk_node(Walk *w, const Onnx__NodeProto *node)
{
    if (w->visit(w->ctx, NULL, node, w->at))
        return true;
    w->at += 1 + node->n_input;
    for (size_t a = 0; a < node->n_attribute; a++) {
        const Onnx__AttributeProto *attr = node->attribute[a];
        if (attr->g)
            vec_push(&w->graphs, attr->g);
        for (size_t k = 0; k < attr->n_graphs; k++)
            vec_push(&w->graphs, attr->graphs[k]);
    }
    return false;
}

/* Visits model's functions' nodes, then its graph's outputs and nodes and
 * every subgraph's; true when visit stopped it. */
static bool walk(const Onnx__ModelProto *model, Visit visit, void *ctx)
{
    Walk w = {visit, ctx, 0, {0}};
    bool stopped = false;
    vec_push(&w.graphs, model->graph);
    for (size_t f = 0; f < model->n_functions && !stopped; f++)
        for (size_t i = 0; i < model->functions[f]->n_node && !stopped; i++)
            stopped = walk_node(&w, model->functions[f]->node[i]);
    while (w.graphs.len && !stopped) {
        const Onnx__GraphProto *g = vec_pop(&w.graphs);
        stopped = visit(ctx, g, NULL, w.at);
        w.at += g->n_output;
        for (size_t i = 0; i < g->n_node && !stopped; i++)
            stopped = walk_node(&w, g->node[i]);
    }
    vec_free(&w.graphs);
    return stopped;
}

/* The places of names (TextName *, NULL: none), or of values (TextValue *). */
static void record_names(OnnxTextWhere *w, const TextList *names, bool values)
{
    for (size_t k = 0; k < names->n; k++) {
        const void *item = names->items[k];
        SrcRange none = {0};
        vec_push(&w->places, !item   ? none
                             : values ? ((const TextValue *)item)->where
                                      : ((const TextName *)item)->where);
    }
}

/* Records the places of a graph or node of the model being built. */
static bool record(void *ctx, const Onnx__GraphProto *graph, const Onnx__NodeProto *node,
                   size_t at)
{
    OnnxTextWhere *w = ctx;
    (void)at; /* w->places.len */
    if (graph) {
        record_names(w, &text_graph_of(graph)->outputs, true);
        return false;
    }
    const TextNode *tn = text_node_of(node);
    vec_push(&w->places, tn->op);
    record_names(w, &tn->inputs, false);
    return false;
}

OnnxTextWhere *text_where_of(const OnnxTextParser *ps, const Onnx__ModelProto *built)
{
    OnnxTextWhere *w = xcalloc(1, sizeof *w);
    w->src = source_from_string(ps->src->name, ps->src->text, ps->src->len);
    vec_reserve(&w->places, ps->places); /* one allocation */
    walk(built, record, w);
    return w;
}

/* Indexes the places of a graph or node of the model decoded: by the
 * key of each (note [text positions] in onnx_text_where.h). */
static bool index_places(void *ctx, const Onnx__GraphProto *graph,
                         const Onnx__NodeProto *node, size_t at)
{
    KeyMap *index = ctx;
    if (graph) {
        for (size_t k = 0; k < graph->n_output; k++)
            *keymap_put(index, keymap_ptr_key(graph->output[k]), 0) = (int64_t)(at + k);
        return false;
    }
    *keymap_put(index, keymap_ptr_key(node), 0) = (int64_t)at++;
    for (size_t k = 0; k < node->n_input; k++)
        *keymap_put(index, keymap_ptr_key(&node->input[k]), 0) = (int64_t)at++;
    return false;
}

/* Where key was written in model's text; NULL: nowhere (a binary model, a
 * key of no place).  The first error indexes the places by key, so that
 * many errors (a capturing diag has no limit) cost one walk. */
static const SrcRange *place_of(const Onnx__ModelProto *model, const void *key)
{
    OnnxTextWhere *w = model && key ? onnx_model_text_where(model) : NULL;
    if (!w)
        return NULL;
    if (!w->index.len)
        walk(model, index_places, &w->index);
    const int64_t *at = keymap_get(&w->index, keymap_ptr_key(key));
    if (!at || (size_t)*at >= w->places.len || !w->places.items[*at].first_line)
        return NULL;
    return &w->places.items[*at];
}

/* The message fmt and ap make, malloc'd. */
static char *format(const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *s = xmalloc(n > 0 ? (size_t)n + 1 : 1);
    vsnprintf(s, n > 0 ? (size_t)n + 1 : 1, fmt, again);
    va_end(again);
    return s;
}

void onnx_error_at(graft_diag *d, const Onnx__ModelProto *model, const char *file,
                   const void *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = format(fmt, ap);
    va_end(ap);
    const SrcRange *at = place_of(model, key);
    if (at)
        diag_error(d, onnx_model_text_where(model)->src, *at, "%s", msg);
    else
        diag_file_error(d, file, "%s", msg);
    free(msg);
}
