/* onnx_subgraph.c - what a node's subgraphs read from outside them, and
 * those reads renamed (note [outer reads] in onnx_subgraph.h).
 *
 * Both walks recurse once per level of subgraph nesting, which the wire
 * check bounds (the onnx-depth limit, note [wire check] in onnx_wire.h,
 * three messages a level: graph, node, attribute); the nodes of a level
 * are a loop. */
#include "onnx_subgraph.h"

#include <stdlib.h>

/* The names one graph defines, inside the scopes around it (up to the
 * node whose subgraphs are walked). */
typedef struct Scope {
    KeyMap names; /* interned name -> itself */
    const struct Scope *outer;
} Scope;

static void define(graft_graph *g, Scope *s, const char *name)
{
    if (name && name[0]) {
        const char *key = graph_intern(g, name);
        keymap_put_ptr(&s->names, key, key);
    }
}

/* Every name graph gp makes: inputs, initializers, node outputs. */
static void define_graph(graft_graph *g, Scope *s, const Onnx__GraphProto *gp)
{
    for (size_t i = 0; i < gp->n_input; i++)
        define(g, s, gp->input[i]->name);
    for (size_t i = 0; i < gp->n_initializer; i++)
        define(g, s, gp->initializer[i]->name);
    for (size_t i = 0; i < gp->n_sparse_initializer; i++)
        if (gp->sparse_initializer[i]->values)
            define(g, s, gp->sparse_initializer[i]->values->name);
    for (size_t i = 0; i < gp->n_node; i++)
        for (size_t k = 0; k < gp->node[i]->n_output; k++)
            define(g, s, gp->node[i]->output[k]);
}

/* Whether name is made inside the subgraphs walked (s or around it). */
static bool inner(graft_graph *g, const Scope *s, const char *name)
{
    const char *key = graph_intern(g, name);
    for (; s; s = s->outer)
        if (keymap_get_ptr(&s->names, key))
            return true;
    return false;
}

/* Subgraph k of attribute a (its GRAPHS, then its GRAPH); NULL past them. */
static const Onnx__GraphProto *subgraph(const Onnx__AttributeProto *a, size_t k)
{
    if (k < a->n_graphs)
        return a->graphs[k];
    return k == a->n_graphs ? a->g : NULL;
}

typedef struct Reads {
    graft_graph *g;
    KeyMap seen; /* interned outer names found */
    VEC(const char *) names;
} Reads;

static void read_name(Reads *r, const Scope *s, const char *name)
{
    if (!name || !name[0] || inner(r->g, s, name))
        return;
    const char *key = graph_intern(r->g, name);
    if (keymap_get_ptr(&r->seen, key))
        return;
    keymap_put_ptr(&r->seen, key, key);
    vec_push(&r->names, key);
}

static void reads_of_node(Reads *r, const Scope *s, const Onnx__NodeProto *np);

static void reads_of_graph(Reads *r, const Scope *outer, const Onnx__GraphProto *gp)
{
    Scope s = {.outer = outer};
    define_graph(r->g, &s, gp);
    for (size_t i = 0; i < gp->n_node; i++) {
        for (size_t k = 0; k < gp->node[i]->n_input; k++)
            read_name(r, &s, gp->node[i]->input[k]);
        reads_of_node(r, &s, gp->node[i]);
    }
    for (size_t i = 0; i < gp->n_output; i++) /* a branch may return an outer value */
        read_name(r, &s, gp->output[i]->name);
    keymap_free(&s.names);
}

/* The outer reads of np's subgraphs, s the scopes np is in. */
static void reads_of_node(Reads *r, const Scope *s, const Onnx__NodeProto *np)
{
    for (size_t a = 0; a < np->n_attribute; a++)
        for (size_t k = 0; subgraph(np->attribute[a], k); k++)
            reads_of_graph(r, s, subgraph(np->attribute[a], k));
}

size_t onnx_outer_reads(graft_graph *g, const Onnx__NodeProto *np, const char ***names)
{
    Reads r = {.g = g};
    reads_of_node(&r, NULL, np);
    keymap_free(&r.seen);
    *names = r.names.items;
    return r.names.len;
}

typedef struct Renamer {
    graft_graph *g;
    const KeyMap *renames;
    const char *captured[2]; /* the first read whose new name a subgraph
                                makes itself: its old name and the new */
} Renamer;

/* The name to read instead of name in scope s (name itself if none). */
static const char *renamed(Renamer *rn, const Scope *s, const char *name)
{
    if (!name || !name[0] || inner(rn->g, s, name))
        return name;
    const char *to = keymap_get_ptr(rn->renames, graph_intern(rn->g, name));
    if (to && inner(rn->g, s, to) && !rn->captured[0]) {
        rn->captured[0] = name;
        rn->captured[1] = to;
    }
    return to ? to : name;
}

static Onnx__AttributeProto **copy_attrs(Renamer *rn, const Scope *s,
                                         const Onnx__NodeProto *np);

static Onnx__NodeProto *copy_node(Renamer *rn, const Scope *s, const Onnx__NodeProto *np)
{
    Arena *arena = graph_arena(rn->g);
    Onnx__NodeProto *c = arena_dup(arena, np, sizeof *np);
    c->input = arena_array(arena, np->n_input + 1, sizeof *c->input);
    for (size_t k = 0; k < np->n_input; k++)
        c->input[k] = (char *)renamed(rn, s, np->input[k]);
    c->attribute = copy_attrs(rn, s, np);
    return c;
}

/* Graph gp with its outer reads renamed; its outputs too, which may name
 * an outer value (a branch that returns one). */
static Onnx__GraphProto *copy_graph(Renamer *rn, const Scope *outer,
                                    const Onnx__GraphProto *gp)
{
    Arena *arena = graph_arena(rn->g);
    Scope s = {.outer = outer};
    define_graph(rn->g, &s, gp);
    Onnx__GraphProto *c = arena_dup(arena, gp, sizeof *gp);
    c->node = arena_array(arena, gp->n_node + 1, sizeof *c->node);
    for (size_t i = 0; i < gp->n_node; i++)
        c->node[i] = copy_node(rn, &s, gp->node[i]);
    c->output = arena_array(arena, gp->n_output + 1, sizeof *c->output);
    for (size_t i = 0; i < gp->n_output; i++) {
        const char *name = renamed(rn, &s, gp->output[i]->name);
        c->output[i] = gp->output[i];
        if (name != gp->output[i]->name) {
            c->output[i] = arena_dup(arena, gp->output[i], sizeof *gp->output[i]);
            c->output[i]->name = (char *)name;
        }
    }
    keymap_free(&s.names);
    return c;
}

static Onnx__AttributeProto **copy_attrs(Renamer *rn, const Scope *s,
                                         const Onnx__NodeProto *np)
{
    Arena *arena = graph_arena(rn->g);
    Onnx__AttributeProto **attrs = arena_array(arena, np->n_attribute + 1, sizeof *attrs);
    for (size_t i = 0; i < np->n_attribute; i++) {
        const Onnx__AttributeProto *a = np->attribute[i];
        attrs[i] = np->attribute[i];
        if (!subgraph(a, 0))
            continue; /* no subgraph: shared */
        Onnx__AttributeProto *c = attrs[i] = arena_dup(arena, a, sizeof *a);
        c->graphs = arena_array(arena, a->n_graphs + 1, sizeof *c->graphs);
        for (size_t k = 0; k < a->n_graphs; k++)
            c->graphs[k] = copy_graph(rn, s, a->graphs[k]);
        if (a->g)
            c->g = copy_graph(rn, s, a->g);
    }
    return attrs;
}

Onnx__AttributeProto **onnx_rename_outer_reads(graft_graph *g, const Onnx__NodeProto *np,
                                               const KeyMap *renames, const char *captured[2])
{
    Renamer rn = {g, renames, {NULL, NULL}};
    Onnx__AttributeProto **attrs = copy_attrs(&rn, NULL, np);
    captured[0] = rn.captured[0];
    captured[1] = rn.captured[1];
    return rn.captured[0] ? NULL : attrs;
}
