/* subgraph_rules.c - the rules applied inside an ONNX model's subgraphs
 * (note [rules in subgraphs] in subgraph_rules.h).
 *
 * The walk recurses once per level of subgraph nesting, which the wire
 * check bounds (the onnx-depth limit, note [wire check] in
 * src/onnx/onnx_wire.h); the nodes of a level are a loop. */
#include "subgraph_rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_control.h"
#include "onnx_file.h"
#include "onnx_subgraph.h"

typedef struct SubRules {
    const graft_rule_set *rs;
    const EngineOptions *opts;
    graft_diag *d;
    OnnxModel *top;  /* the model: its opset imports; its graph's arena
                        holds the subgraphs written back */
    KeyMap taken;    /* every name of the model's graphs, and each given
                        (interned in top's graph) */
    bool ok;
} SubRules;

static const char *intern(SubRules *sr, const char *name)
{
    return graph_intern(sr->top->g, name);
}

static void take(SubRules *sr, const char *name)
{
    if (name && name[0])
        keymap_put_ptr(&sr->taken, intern(sr, name), (void *)1);
}

/* Every name gp and its subgraphs give a node or a value. */
static void take_graph(SubRules *sr, const Onnx__GraphProto *gp)
{
    for (size_t i = 0; i < gp->n_input; i++)
        take(sr, gp->input[i]->name);
    for (size_t i = 0; i < gp->n_initializer; i++)
        take(sr, gp->initializer[i]->name);
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *np = gp->node[i];
        take(sr, np->name);
        for (size_t k = 0; k < np->n_output; k++)
            take(sr, np->output[k]);
        for (size_t a = 0; a < np->n_attribute; a++)
            if (np->attribute[a]->g)
                take_graph(sr, np->attribute[a]->g);
    }
}

/* "GRAPH/NAME", or with "_2", "_3", ... the first that no graph of the
 * model has; taken from then on. */
static char *fresh(SubRules *sr, const char *graph, const char *name)
{
    StrBuf sb = {0};
    strbuf_printf(&sb, "%s/%s", graph, name);
    size_t stem = sb.len;
    for (unsigned k = 2; keymap_get_ptr(&sr->taken, intern(sr, sb.data)); k++) {
        sb.len = stem;
        strbuf_printf(&sb, "_%u", k);
    }
    const char *given = intern(sr, sb.data);
    strbuf_free(&sb);
    take(sr, given);
    return (char *)given;
}

/* The names graph gp defines at its own level. */
static void defined(SubRules *sr, const Onnx__GraphProto *gp, KeyMap *names)
{
    for (size_t i = 0; i < gp->n_input; i++)
        keymap_put_ptr(names, intern(sr, gp->input[i]->name), (void *)1);
    for (size_t i = 0; i < gp->n_initializer; i++)
        keymap_put_ptr(names, intern(sr, gp->initializer[i]->name), (void *)1);
    for (size_t i = 0; i < gp->n_node; i++) {
        if (gp->node[i]->name)
            keymap_put_ptr(names, intern(sr, gp->node[i]->name), (void *)1);
        for (size_t k = 0; k < gp->node[i]->n_output; k++)
            keymap_put_ptr(names, intern(sr, gp->node[i]->output[k]), (void *)1);
    }
}

/* name through map (name itself when map has none). */
static char *mapped(SubRules *sr, const KeyMap *map, char *name)
{
    const char *to = name && name[0] ? keymap_get_ptr(map, intern(sr, name)) : NULL;
    return to ? (char *)to : name; /* protobuf-c's fields are char *; fresh's names */
}

/* The reads of gp and its subgraphs, its outputs' names and value_info's
 * renamed through map (fresh names: no subgraph defines one). */
static void rename_reads(SubRules *sr, const KeyMap *map, Onnx__GraphProto *gp)
{
    for (size_t i = 0; i < gp->n_node; i++) {
        Onnx__NodeProto *np = gp->node[i];
        for (size_t k = 0; k < np->n_input; k++)
            np->input[k] = mapped(sr, map, np->input[k]);
        for (size_t k = 0; k < np->n_output; k++)
            np->output[k] = mapped(sr, map, np->output[k]);
        for (size_t a = 0; a < np->n_attribute; a++)
            if (np->attribute[a]->g)
                rename_reads(sr, map, np->attribute[a]->g);
    }
    for (size_t i = 0; i < gp->n_initializer; i++)
        gp->initializer[i]->name = mapped(sr, map, gp->initializer[i]->name);
    for (size_t i = 0; i < gp->n_value_info; i++)
        gp->value_info[i]->name = mapped(sr, map, gp->value_info[i]->name);
    for (size_t i = 0; i < gp->n_output; i++)
        gp->output[i]->name = mapped(sr, map, gp->output[i]->name);
}

/* The names gp (orig written back) makes that orig did not, made unique
 * in the model (note [rules in subgraphs]). */
static void rename_new(SubRules *sr, const Onnx__GraphProto *orig, Onnx__GraphProto *gp)
{
    const char *graph = orig->name && orig->name[0] ? orig->name : "subgraph";
    KeyMap had = {0}, map = {0};
    defined(sr, orig, &had);
    for (size_t i = 0; i < gp->n_node; i++) {
        Onnx__NodeProto *np = gp->node[i];
        if (np->name && np->name[0] && !keymap_get_ptr(&had, intern(sr, np->name)))
            np->name = fresh(sr, graph, np->name);
        for (size_t k = 0; k < np->n_output; k++)
            if (np->output[k][0] && !keymap_get_ptr(&had, intern(sr, np->output[k])) &&
                !keymap_get_ptr(&map, intern(sr, np->output[k])))
                keymap_put_ptr(&map, intern(sr, np->output[k]), fresh(sr, graph, np->output[k]));
    }
    for (size_t i = 0; i < gp->n_initializer; i++) {
        const char *name = gp->initializer[i]->name;
        if (!keymap_get_ptr(&had, intern(sr, name)))
            keymap_put_ptr(&map, intern(sr, name), fresh(sr, graph, name));
    }
    rename_reads(sr, &map, gp);
    keymap_free(&had);
    keymap_free(&map);
}

/* protobuf-c's allocations from an arena, freed with it. */
static void *arena_pb_alloc(void *arena, size_t size)
{
    return arena_alloc(arena, size ? size : 1);
}

static void arena_pb_free(void *arena, void *p)
{
    (void)arena;
    (void)p;
}

/* m, the model made of subgraph orig (nouter outer reads after its own
 * inputs), written back and unpacked into the top graph's arena: its
 * graph with those inputs taken off and its new names made unique; NULL
 * after reporting. */
static Onnx__GraphProto *written_back(SubRules *sr, OnnxModel *m, const Onnx__GraphProto *orig,
                                      size_t nouter)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    bool ok = f && onnx_export(m, f, false, sr->d);
    ok = (f && fclose(f) == 0) && ok;
    ProtobufCAllocator a = {arena_pb_alloc, arena_pb_free, graph_arena(sr->top->g)};
    Onnx__ModelProto *mp = ok ? onnx__model_proto__unpack(&a, len, (uint8_t *)buf) : NULL;
    free(buf);
    Onnx__GraphProto *gp = mp ? mp->graph : NULL;
    if (ok && (!gp || gp->n_input != orig->n_input + nouter)) {
        diag_file_error(sr->d, sr->top->name, "subgraph '%s': the rewritten subgraph cannot "
                        "be written back", orig->name ? orig->name : "");
        gp = NULL;
    }
    if (!gp) {
        sr->ok = false;
        return NULL;
    }
    gp->n_input = orig->n_input;
    rename_new(sr, orig, gp);
    return gp;
}

static bool rules_in_model(SubRules *sr, OnnxModel *m);

/* The types of the outer values that names[0..n-1] of call's subgraph
 * read: call's operands after its own inputs are those its subgraphs read
 * (note [outer reads]), in the order onnx_outer_reads finds them over np
 * (call's NodeProto); NULL for one not found. */
static const graft_type **outer_types(graft_graph *g, const graft_node *call,
                                      const Onnx__NodeProto *np, const char *const *names,
                                      size_t n)
{
    const char **all;
    size_t nall = onnx_outer_reads(g, np, &all);
    int own = node_nargs(call) - (int)nall;
    const graft_type **types = xcalloc(n + 1, sizeof *types);
    for (size_t k = 0; k < n; k++)
        for (size_t j = 0; j < nall && own >= 0; j++)
            if (strcmp(all[j], names[k]) == 0)
                types[k] = node_type(node_arg(call, own + (int)j));
    free(all);
    return types;
}

/* gp, a subgraph of call (np its NodeProto) of model outer, with the
 * rules applied inside (its subgraphs first), or NULL when nothing
 * changed in it or after failing (sr->ok false). */
static Onnx__GraphProto *rules_in_graph(SubRules *sr, OnnxModel *outer_m, uint32_t id,
                                        const Onnx__NodeProto *np, const Onnx__GraphProto *gp)
{
    const char **outer;
    size_t nouter = onnx_graph_outer_reads(sr->top->g, gp, &outer);
    const graft_type **types = outer_types(outer_m->g, graph_node(outer_m->g, id), np, outer,
                                           nouter);
    Onnx__ModelProto *proto = onnx_body_model(gp, sr->top->proto, outer, types, nouter, sr->d);
    free(types);
    free(outer);
    StrBuf name = {0}; /* messages name the model's file and the subgraph */
    strbuf_printf(&name, "%s, subgraph '%s'", sr->top->name, gp->name ? gp->name : "");
    OnnxModel *m = proto ? onnx_import(proto, name.data, sr->d) : NULL;
    strbuf_free(&name);
    if (!m) {
        sr->ok = false;
        return NULL;
    }
    onnx_file_keep_decls(m, sr->rs);
    bool changed = rules_in_model(sr, m);
    if (sr->ok) {
        graft_engine *e = engine_new(sr->rs, m->g, sr->opts);
        sr->ok = engine_rewrite(e, sr->d);
        changed |= engine_stats(e)->rewrites > 0;
        engine_free(e);
    }
    Onnx__GraphProto *out = sr->ok && changed ? written_back(sr, m, gp, nouter) : NULL;
    onnx_graph_free(m);
    return out;
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

/* The rules applied in every subgraph of m's nodes; whether one changed. */
static bool rules_in_model(SubRules *sr, OnnxModel *m)
{
    bool changed = false;
    for (uint32_t id = 0; id < m->norigin && sr->ok; id++) {
        Onnx__NodeProto *np = m->origin[id];
        for (size_t i = 0; np && i < np->n_attribute && sr->ok; i++) {
            if (!np->attribute[i]->g)
                continue;
            Onnx__GraphProto *gp = rules_in_graph(sr, m, id, np, np->attribute[i]->g);
            if (gp) {
                np = set_subgraph(m, id, np, i, gp);
                changed = true;
            }
        }
    }
    return changed;
}

bool subgraph_rules_run(const graft_rule_set *rs, OnnxModel *m, const EngineOptions *opts,
                        graft_diag *d)
{
    SubRules sr = {.rs = rs, .opts = opts, .d = d, .top = m, .ok = true};
    take_graph(&sr, m->proto->graph);
    rules_in_model(&sr, m);
    keymap_free(&sr.taken);
    return sr.ok;
}
