/* onnx_text_where.c - where a text model's nodes were written, found
 * after it is decoded, and errors at those places (note [text positions]
 * in onnx_text_where.h). */
#include "onnx_text_where.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
    bool src_borrowed;      /* src is the whole model's: a subgraph's places
                               (note [subgraph positions]) */
    VEC(SrcRange) places;   /* first_line 0: an optional input left out */
    KeyMap index;           /* keymap_ptr_key of a key -> its place: made by the
                               first error (place_of) */
};

void onnx_text_where_free(OnnxTextWhere *where)
{
    if (!where)
        return;
    if (!where->src_borrowed)
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

/* Visits the graphs stacked in w, their outputs and nodes, and the
 * graphs of those nodes' attributes in turn; true when visit stopped it. */
static bool walk_graphs(Walk *w)
{
    bool stopped = false;
    while (w->graphs.len && !stopped) {
        const Onnx__GraphProto *g = vec_pop(&w->graphs);
        stopped = w->visit(w->ctx, g, NULL, w->at);
        w->at += g->n_output;
        for (size_t i = 0; i < g->n_node && !stopped; i++)
            stopped = walk_node(w, g->node[i]);
    }
    vec_free(&w->graphs);
    return stopped;
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
    if (stopped)
        vec_free(&w.graphs);
    return stopped || walk_graphs(&w);
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

/* note [subgraph positions]: the commands that look inside an ONNX
 * model's subgraphs import each as a model of its own (note [control
 * bodies] in onnx_control.h), packed and decoded again, so its nodes are
 * other messages than the ones the text's places are keyed by.  But the
 * body model is the subgraph's graph with inputs added: its walk (above)
 * visits the same outputs and nodes, in the same order, as the walk of
 * the model it came from visits from that subgraph on.  So its places
 * are a slice of that model's, from where the walk reaches the subgraph,
 * as long as the subgraph's walk; the text is the whole model's,
 * borrowed, since every subgraph model lives inside the command that
 * holds the whole one.  An error found importing the subgraph (a type
 * contradiction in an If's branch) is then placed as one in the main
 * graph is. */

typedef struct FindGraph {
    const Onnx__GraphProto *graph; /* the graph looked for */
    size_t at;                     /* its first place; SIZE_MAX: not found */
} FindGraph;

static bool find_graph(void *ctx, const Onnx__GraphProto *graph, const Onnx__NodeProto *node,
                       size_t at)
{
    FindGraph *f = ctx;
    (void)node;
    if (graph != f->graph)
        return false;
    f->at = at;
    return true;
}

static bool visit_nothing(void *ctx, const Onnx__GraphProto *graph, const Onnx__NodeProto *node,
                          size_t at)
{
    (void)ctx, (void)graph, (void)node, (void)at;
    return false;
}

/* How many places the walk of gp and its subgraphs passes. */
static size_t places_under(const Onnx__GraphProto *gp)
{
    Walk w = {visit_nothing, NULL, 0, {0}};
    vec_push(&w.graphs, gp);
    walk_graphs(&w);
    return w.at;
}

OnnxTextWhere *onnx_text_where_of_subgraph(const Onnx__ModelProto *model,
                                           const Onnx__GraphProto *gp)
{
    const OnnxTextWhere *whole = model ? onnx_model_text_where(model) : NULL;
    if (!whole || !gp)
        return NULL;
    FindGraph f = {gp, SIZE_MAX};
    walk(model, find_graph, &f);
    size_t n = f.at == SIZE_MAX ? 0 : places_under(gp);
    if (!n || n > whole->places.len - f.at)
        return NULL;
    OnnxTextWhere *w = xcalloc(1, sizeof *w);
    w->src = whole->src;
    w->src_borrowed = true;
    vec_reserve(&w->places, n);
    memcpy(w->places.items, whole->places.items + f.at, n * sizeof *w->places.items);
    w->places.len = n;
    return w;
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
