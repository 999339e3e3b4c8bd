/* api_match.c - every match of a rule set in a model as structures
 * (graft_api.h): what graft match prints, one graft_match a line, with
 * positions as numbers instead of text; in an ONNX model the matches
 * inside its subgraphs first, named as graft match names them
 * (src/cli/cmd_match.c). */
#include "api_impl.h"

#include <stdlib.h>

#include "arena.h"
#include "graft_api_onnx.h"
#include "node_label.h"
#include "pattern.h"
#include "subgraph_walk.h"

struct graft_matches {
    Arena *arena;       /* the strings and binding arrays */
    graft_match *items; /* the matches, in order */
    size_t n, cap;      /* used and allocated entries of items */
};

/* What the visitor needs. */
typedef struct Collect {
    graft_matches *m;
    const graft_rule_set *rs;
    const graft_limits *lim;  /* for each graph's engine */
    const graft_graph *g;     /* the graph being matched: the main graph
                                 or a subgraph's */
    const NodeLabels *names;  /* its node names, as graft match prints
                                 them (a subgraph's "GRAPH/NAME") */
    const char *subgraph, *holder, *attribute; /* where g is (graft_match's
                                 fields of the same names), copied */
    StrBuf scratch;
} Collect;

/* The arena's copy of the name of n (a callee slot: its op or function). */
static const char *label_copy(Collect *c, const graft_node *n, bool callee)
{
    c->scratch.len = 0;
    if (callee && node_op(n))
        strbuf_puts(&c->scratch, node_op(n));
    else
        node_label(c->names, callee ? node_callee(n) : n, &c->scratch);
    return arena_strdup(c->m->arena, c->scratch.data ? c->scratch.data : "");
}

static void fill_binding(Collect *c, const graft_rule *rule, int s, const graft_binding *b,
                         graft_match_binding *out)
{
    out->var = arena_strdup(c->m->arena, rule->slot_names[s]);
    if (b->node) {
        bool callee = pattern_is_callee_slot(rule->pattern, s);
        out->value = label_copy(c, b->node, callee);
        out->is_node = true;
        out->line = node_line(c->g, b->node);
        out->column = out->line ? node_col(c->g, b->node) : 0;
        return;
    }
    c->scratch.len = 0;
    pattern_attr_key(b->attr, &c->scratch);
    out->value = arena_strdup(c->m->arena, c->scratch.data ? c->scratch.data : "");
}

static void visit(void *ctx, uint32_t r, graft_node *root, const graft_binding *b)
{
    Collect *c = ctx;
    graft_matches *m = c->m;
    const graft_rule *rule = &c->rs->rules[r];
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 16;
        m->items = xrealloc(m->items, m->cap * sizeof *m->items);
    }
    graft_match *out = &m->items[m->n++];
    out->rule = arena_strdup(m->arena, rule->name);
    out->root = label_copy(c, root, false);
    /* copied: a subgraph's graph, which holds its op's name, is freed
     * once the walk leaves it */
    out->kind = arena_strdup(m->arena, node_kind_name(root));
    out->line = node_line(c->g, root);
    out->column = out->line ? node_col(c->g, root) : 0;
    out->subgraph = c->subgraph;
    out->holder = c->holder;
    out->attribute = c->attribute;
    graft_match_binding *bs = arena_array(m->arena, (size_t)rule->nslots + 1, sizeof *bs);
    size_t nb = 0;
    for (int s = 0; s < rule->nslots; s++)
        if (b[s].node || b[s].attr)
            fill_binding(c, rule, s, &b[s], &bs[nb++]);
    out->nbindings = nb;
    out->bindings = bs;
}

/* The matches in g, whose nodes names names, appended. */
static void collect_graph(Collect *c, graft_graph *g, const NodeLabels *names)
{
    EngineOptions o = {.limits = c->lim, .untimed = true};
    graft_engine *e = engine_new(c->rs, g, &o);
    c->g = g;
    c->names = names;
    engine_matches(e, visit, c);
    engine_free(e);
}

/* The subgraph walk's leave: the matches in subgraph v, told where v is
 * (the outer graph's labels name its holder as graft match would). */
static Onnx__GraphProto *collect_view(void *ctx, SubgraphView *v, bool changed)
{
    (void)changed;
    Collect *c = ctx;
    c->subgraph = arena_strdup(c->m->arena, v->name);
    c->names = &v->outer->labels;
    c->holder = label_copy(c, graph_node(v->outer->m->g, v->holder), false);
    c->attribute = arena_strdup(c->m->arena, v->attr);
    collect_graph(c, v->m->g, &v->labels);
    c->subgraph = c->holder = c->attribute = NULL;
    return NULL;
}

graft_matches *graft_rules_match(const graft_rules *r, graft_graph *g,
                                 const graft_limits *lim, graft_diag *d)
{
    if (!api_rules_fit(r, g, d))
        return NULL; /* else matching reports nothing: bounds stop it quietly */
    graft_matches *m = xcalloc(1, sizeof *m);
    m->arena = arena_new();
    Collect c = {.m = m, .rs = &r->lw->rs, .lim = lim};
    /* an ONNX model's subgraphs first, as graft match lists them (note
     * [subgraph walk] in src/runtime/subgraph_walk.h) */
    SubgraphVisitor vis = {.leave = collect_view, .ctx = &c};
    OnnxModel *onnx = api_onnx_is(g) ? api_onnx_model(g) : NULL;
    bool ok = !onnx || !subgraph_any(onnx) || subgraph_walk(onnx, c.rs, NULL, &vis, d);
    NodeLabels names;
    node_labels_init(&names, g, NULL);
    if (ok)
        collect_graph(&c, g, &names);
    node_labels_free(&names);
    strbuf_free(&c.scratch);
    if (!ok) {
        graft_matches_free(m);
        return NULL;
    }
    return m;
}

size_t graft_matches_count(const graft_matches *m)
{
    return m ? m->n : 0;
}

const graft_match *graft_matches_get(const graft_matches *m, size_t i)
{
    return m && i < m->n ? &m->items[i] : NULL;
}

void graft_matches_free(graft_matches *m)
{
    if (!m)
        return;
    arena_free(m->arena);
    free(m->items);
    free(m);
}
