/* subgraph_rules.c - the rules applied inside an ONNX model's subgraphs
 * (note [rules in subgraphs] in subgraph_rules.h), over the walk of
 * subgraph_walk.h, which puts what they become back into their nodes. */
#include "subgraph_rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_file.h"
#include "subgraph_walk.h"

typedef struct SubRules {
    const graft_rule_set *rs;
    const EngineOptions *opts;
    graft_diag *d;
    OnnxModel *top;  /* the model: its opset imports; its graph's arena
                        holds the subgraphs written back */
    KeyMap taken;    /* every name of the model's graphs, and each given
                        (interned in top's graph); gathered when the
                        first is written back (note [names taken lazily]) */
    bool gathered;   /* taken holds the model's names */
    Stats *stats;    /* what the rules did inside, added up, or NULL */
    SubgraphVisitor vis;
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

/* note [names taken lazily]: the names of every graph of the model are
 * gathered when the first subgraph is written back, not before the walk:
 * a model without subgraphs, or whose subgraphs nothing rewrote, needs
 * none, and gathering them was a twentieth of rewriting issue 28's model
 * (bench/onnx_e2e.sh, ~700 instructions an op node).  Nothing is written
 * back before the first, so the names gathered then are the model's as it
 * was read, as when they were gathered first. */
static void gather_taken(SubRules *sr)
{
    if (!sr->gathered)
        take_graph(sr, sr->top->proto->graph);
    sr->gathered = true;
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
    gather_taken(sr);
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
    if (!gp)
        return NULL;
    gp->n_input = orig->n_input;
    rename_new(sr, orig, gp);
    return gp;
}

/* The walk's leave (note [subgraph walk]): the rules applied to v, whose
 * own subgraphs are rewritten (changed: one of them was), and v written
 * back when something changed in it. */
static Onnx__GraphProto *rewrite_view(void *ctx, SubgraphView *v, bool changed)
{
    SubRules *sr = ctx;
    EngineOptions opts = *sr->opts;
    opts.names = &v->labels;
    graft_engine *e = engine_new(sr->rs, v->m->g, &opts);
    bool ok = engine_rewrite(e, sr->d);
    const Stats *s = engine_stats(e);
    changed |= s->rewrites > 0;
    if (sr->stats)
        stats_add(sr->stats, s, true);
    engine_free(e);
    Onnx__GraphProto *out = ok && changed ? written_back(sr, v->m, v->gp, v->nouter) : NULL;
    if (!ok || (changed && !out))
        sr->vis.ok = false;
    return out;
}

bool subgraph_rules_run(const graft_rule_set *rs, OnnxModel *m, const EngineOptions *opts,
                        Stats *stats, graft_diag *d)
{
    SubRules sr = {.rs = rs, .opts = opts, .d = d, .top = m, .stats = stats};
    sr.vis = (SubgraphVisitor){.leave = rewrite_view, .ctx = &sr};
    bool ok = subgraph_walk(m, rs, opts->model, &sr.vis, d);
    keymap_free(&sr.taken);
    return ok;
}
