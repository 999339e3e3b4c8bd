/* subgraph_walk.c - every subgraph of an ONNX model, imported with its
 * nodes' names (note [subgraph walk] in subgraph_walk.h).
 *
 * The walk recurses once per level of subgraph nesting, which the wire
 * check bounds (the onnx-depth limit, note [wire check] in
 * src/onnx/onnx_wire.h); the nodes of a level are a loop. */
#include "subgraph_walk.h"

#include <stdlib.h>
#include <string.h>

#include "onnx_control.h"
#include "onnx_file.h"
#include "onnx_model.h"
#include "onnx_subgraph.h"
#include "onnx_text_where.h"

typedef struct Walk {
    OnnxModel *top;        /* the model; its graph interns the names */
    const graft_rule_set *rs;
    graft_diag *d;
    SubgraphVisitor *vis;
    KeyMap graphs;         /* the name of every graph of the model */
    KeyMap named;          /* the subgraph names given so far */
    uint32_t serial;       /* subgraphs entered */
} Walk;

static const char *intern(Walk *w, const char *name)
{
    return graph_intern(w->top->g, name);
}

/* The names of gp's subgraphs, nested ones too, into w->graphs. */
static void take_graph_names(Walk *w, const Onnx__GraphProto *gp)
{
    for (size_t i = 0; i < gp->n_node; i++)
        for (size_t a = 0; a < gp->node[i]->n_attribute; a++) {
            const Onnx__GraphProto *sub = gp->node[i]->attribute[a]->g;
            if (sub && sub->name)
                keymap_put_ptr(&w->graphs, intern(w, sub->name), (void *)1);
            if (sub)
                take_graph_names(w, sub);
        }
}

/* gp's name, or "subgraph"; with "_2", "_3", ... when a subgraph named
 * before it has it (note [subgraph node names] in node_label.h). */
static const char *scope_name(Walk *w, const Onnx__GraphProto *gp)
{
    const char *base = gp->name && gp->name[0] ? gp->name : "subgraph";
    const char *name = intern(w, base);
    StrBuf sb = {0};
    for (unsigned k = 2; keymap_get_ptr(&w->named, name); k++) {
        sb.len = 0;
        strbuf_printf(&sb, "%s_%u", base, k);
        name = intern(w, sb.data);
        if (keymap_get_ptr(&w->graphs, name))
            name = intern(w, base); /* another graph's own name: the next k */
    }
    strbuf_free(&sb);
    keymap_put_ptr(&w->named, name, (void *)1);
    return name;
}

/* The nodes of g that names[0..n-1], the outer values call's subgraph
 * reads, stand for: call's operands after its own inputs are those its
 * subgraphs read (note [outer reads]), in the order onnx_outer_reads
 * finds them over np (call's NodeProto); NULL for one not found. */
static graft_node **outer_nodes(graft_graph *g, const graft_node *call,
                                const Onnx__NodeProto *np, const char *const *names, size_t n)
{
    const char **all;
    size_t nall = onnx_outer_reads(g, np, &all);
    int own = node_nargs(call) - (int)nall;
    graft_node **nodes = xcalloc(n + 1, sizeof *nodes);
    for (size_t k = 0; k < n; k++)
        for (size_t j = 0; j < nall && own >= 0; j++)
            if (strcmp(all[j], names[k]) == 0)
                nodes[k] = node_arg(call, own + (int)j);
    free(all);
    return nodes;
}

/* v's labels: its prefix, and its outer parameters named as outer[k] is
 * in the graph around it. */
static void name_nodes(SubgraphView *v, graft_node *const *outer, size_t nouter)
{
    node_labels_init(&v->labels, v->m->g, NULL);
    StrBuf sb = {0};
    strbuf_printf(&sb, "%s/", v->name);
    node_labels_scope(&v->labels, sb.data);
    for (size_t k = 0; k < nouter; k++) {
        int p = (int)v->ninputs + (int)k;
        if (!outer[k] || p >= graph_nparams(v->m->g))
            continue;
        sb.len = 0;
        node_label(&v->outer->labels, outer[k], &sb);
        node_labels_give(&v->labels, graph_param(v->m->g, p), sb.data);
    }
    strbuf_free(&sb);
}

/* The subgraph gp of node id (np its NodeProto) of outer as a view, or
 * NULL after reporting. */
static SubgraphView *import_view(Walk *w, const SubgraphView *outer, uint32_t id,
                                 const Onnx__NodeProto *np, size_t attr)
{
    const Onnx__GraphProto *gp = np->attribute[attr]->g;
    const char **names;
    size_t nouter = onnx_graph_outer_reads(w->top->g, gp, &names);
    graft_node **nodes = outer_nodes(outer->m->g, graph_node(outer->m->g, id), np, names,
                                     nouter);
    const graft_type **types = xcalloc(nouter + 1, sizeof *types);
    for (size_t k = 0; k < nouter; k++)
        types[k] = nodes[k] ? node_type(nodes[k]) : NULL;
    Onnx__ModelProto *proto = onnx_body_model(gp, w->top->proto, names, types, nouter, w->d);
    free(types);
    free(names);
    if (proto) /* its errors at their place in a text model's text */
        onnx_model_set_text_where(proto, onnx_text_where_of_subgraph(outer->m->proto, gp));
    StrBuf file = {0}; /* messages name the model's file and the subgraph */
    strbuf_printf(&file, "%s, subgraph '%s'", w->top->name, gp->name ? gp->name : "");
    OnnxModel *m = proto ? onnx_import(proto, file.data, w->d) : NULL;
    strbuf_free(&file);
    SubgraphView *v = NULL;
    if (m) {
        if (w->rs)
            onnx_file_keep_decls(m, w->rs);
        v = xcalloc(1, sizeof *v);
        *v = (SubgraphView){.m = m, .name = scope_name(w, gp), .gp = gp, .outer = outer,
                            .holder = id, .attr = np->attribute[attr]->name,
                            .serial = ++w->serial, .ninputs = (uint32_t)gp->n_input,
                            .nouter = (uint32_t)nouter, .outer_nodes = nodes};
        name_nodes(v, nodes, nouter);
    } else
        free(nodes);
    return v;
}

/* Attribute i of np, the NodeProto of call id of m, now holds gp: a copy
 * of np whose attribute i holds it (which the export writes), and gp's
 * encoding in the call's GRAPH attribute (which inference and the
 * evaluator read); the copy.  np itself is left as decoded: the writer
 * copies the bytes a decoded NodeProto came from, found by its address
 * (note [canonical spans] in src/onnx/onnx_span.h). */
static Onnx__NodeProto *set_subgraph(OnnxModel *m, uint32_t id, Onnx__NodeProto *np, size_t i,
                                     Onnx__GraphProto *gp)
{
    Arena *arena = graph_arena(m->g);
    Onnx__NodeProto *copy = arena_dup(arena, np, sizeof *copy);
    copy->attribute = arena_dup(arena, np->attribute, np->n_attribute * sizeof *np->attribute);
    Onnx__AttributeProto *a = arena_dup(arena, np->attribute[i], sizeof *a);
    a->g = gp;
    copy->attribute[i] = a;
    m->origin[id] = copy;
    /* the import made this value for this call alone, so it is changed in
     * place: graph.h gives no way to replace one attribute of a call */
    graft_attr_value *v = (graft_attr_value *)node_find_attr(graph_node(m->g, id), a->name);
    if (!v || v->kind != GRAFT_ATTR_GRAPH)
        return copy;
    v->nbytes = onnx__graph_proto__get_packed_size(gp);
    uint8_t *bytes = arena_alloc(arena, v->nbytes + 1);
    onnx__graph_proto__pack(gp, bytes);
    v->data = bytes;
    return copy;
}

static bool walk_view(Walk *w, SubgraphView *v);

/* Subgraph i of node id of v entered, walked and left; whether leave
 * replaced it (*np then the node's new NodeProto). */
static bool walk_subgraph(Walk *w, SubgraphView *v, uint32_t id, Onnx__NodeProto **np,
                          size_t i)
{
    SubgraphView *sub = import_view(w, v, id, *np, i);
    if (!sub) {
        w->vis->ok = false;
        return false;
    }
    if (w->vis->enter)
        w->vis->enter(w->vis->ctx, sub);
    bool changed = w->vis->ok && walk_view(w, sub);
    Onnx__GraphProto *gp = w->vis->ok ? w->vis->leave(w->vis->ctx, sub, changed) : NULL;
    if (gp)
        *np = set_subgraph(v->m, id, *np, i, gp);
    node_labels_free(&sub->labels);
    free(sub->outer_nodes);
    onnx_graph_free(sub->m);
    free(sub);
    return gp != NULL;
}

/* The subgraphs of v's nodes walked; whether one was replaced. */
static bool walk_view(Walk *w, SubgraphView *v)
{
    bool changed = false;
    for (uint32_t id = 0; id < v->m->norigin && w->vis->ok; id++) {
        Onnx__NodeProto *np = v->m->origin[id];
        for (size_t i = 0; np && i < np->n_attribute && w->vis->ok; i++)
            if (np->attribute[i]->g)
                changed |= walk_subgraph(w, v, id, &np, i);
    }
    return changed;
}

bool subgraph_walk(OnnxModel *top, const graft_rule_set *rs, const char *file,
                   SubgraphVisitor *vis, graft_diag *d)
{
    if (!top->subgraphs) /* (note [subgraphs noted] in src/onnx/onnx_import_node.c) */
        return vis->ok = true;
    Walk w = {.top = top, .rs = rs, .d = d, .vis = vis};
    take_graph_names(&w, top->proto->graph);
    SubgraphView main_view = {.m = top};
    node_labels_init(&main_view.labels, top->g, file);
    vis->ok = true;
    walk_view(&w, &main_view);
    node_labels_free(&main_view.labels);
    keymap_free(&w.graphs);
    keymap_free(&w.named);
    return vis->ok;
}

bool subgraph_any(const OnnxModel *top)
{
    if (!top->subgraphs) /* (note [subgraphs noted] in src/onnx/onnx_import_node.c) */
        return false;
    for (uint32_t id = 0; id < top->norigin; id++) {
        const Onnx__NodeProto *np = top->origin[id];
        for (size_t i = 0; np && i < np->n_attribute; i++)
            if (np->attribute[i]->g)
                return true;
    }
    return false;
}
