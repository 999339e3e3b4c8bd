/* viz_subgraphs.c - an ONNX model's subgraphs as clusters of its
 * drawing (viz_subgraphs.h).
 *
 * The walk (note [subgraph walk] in src/runtime/subgraph_walk.h) enters
 * a subgraph before its own subgraphs and leaves it after them, so each
 * level has a text that the clusters of its subgraphs are written into
 * as they are left, and a cluster is written when it is left, with them
 * inside; its matches are found then too, so that they are numbered as
 * graft match lists them. */
#include "viz_subgraphs.h"

#include <stdio.h>
#include <stdlib.h>

#include "subgraph_walk.h"
#include "util.h"

/* One level of the walk: the main graph's, or a subgraph's. */
typedef struct Level {
    char prefix[32];   /* its nodes' dot ids: "n", "s2_" */
    char **ids;        /* per node id below nids: the dot id of the outer
                          node a parameter stands for, or NULL */
    uint32_t nids;     /* entries in ids */
    StrBuf inner;      /* the clusters of its subgraphs, written so far */
} Level;

typedef struct VizWalk {
    const graft_rule_set *rs;
    const graft_limits *limits;
    graft_diag *d;
    VizMatches *vm;
    VEC(Level) levels; /* the main graph's, then one per subgraph entered */
    SubgraphVisitor vis;
} VizWalk;

/* The dot id of node n of the graph of level l. */
static char *dot_id(const Level *l, const graft_node *n)
{
    if (node_id(n) < l->nids && l->ids[node_id(n)])
        return xstrdup(l->ids[node_id(n)]);
    StrBuf sb = {0};
    strbuf_printf(&sb, "%s%u", l->prefix, node_id(n));
    return sb.data;
}

/* The walk's enter: v's level, its parameters that stand for outer
 * values given those values' dot ids. */
static void enter(void *ctx, SubgraphView *v)
{
    VizWalk *w = ctx;
    Level l = {.nids = graph_node_count(v->m->g)};
    snprintf(l.prefix, sizeof l.prefix, "s%u_", v->serial);
    l.ids = xcalloc(l.nids + 1, sizeof *l.ids);
    const Level *outer = &w->levels.items[w->levels.len - 1];
    for (uint32_t k = 0; k < v->nouter; k++) {
        int p = (int)(v->ninputs + k);
        if (v->outer_nodes[k] && p < graph_nparams(v->m->g))
            l.ids[node_id(graph_param(v->m->g, p))] = dot_id(outer, v->outer_nodes[k]);
    }
    vec_push(&w->levels, l);
}

static void level_free(Level *l)
{
    for (uint32_t i = 0; i < l->nids; i++)
        free(l->ids[i]);
    free(l->ids);
    strbuf_free(&l->inner);
}

/* The walk's leave: v's cluster, its matches found, into the text of
 * the level around it. */
static Onnx__GraphProto *leave(void *ctx, SubgraphView *v, bool changed)
{
    VizWalk *w = ctx;
    (void)changed;
    size_t first = w->vm->h.len;
    if (w->rs && !viz_find_more(w->rs, v->m->g, w->limits, w->vm, w->d))
        w->vis.ok = false;
    Level *l = &w->levels.items[--w->levels.len], *outer = l - 1;
    char *holder = dot_id(outer, graph_node(v->outer->m->g, v->holder));
    StrBuf label = {0};
    strbuf_printf(&label, "%s (%s of ", v->name, v->attr);
    node_label(&v->outer->labels, graph_node(v->outer->m->g, v->holder), &label);
    strbuf_putc(&label, ')');
    VizSubgraph sub = {l->prefix, label.data, l->ids, l->nids, holder, v->attr, &v->labels};
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        out_of_memory();
    viz_write_subgraph(v->m->g, w->vm->h.items + first, w->vm->h.len - first, &sub,
                       l->inner.len ? l->inner.data : NULL, mem);
    fclose(mem);
    strbuf_puts(&outer->inner, text);
    free(text);
    free(holder);
    strbuf_free(&label);
    level_free(l);
    return NULL;
}

char *viz_subgraphs(OnnxModel *m, const graft_rule_set *rs, const graft_limits *limits,
                    VizMatches *vm, graft_diag *d)
{
    VizWalk w = {.rs = rs, .limits = limits, .d = d, .vm = vm};
    w.vis = (SubgraphVisitor){.enter = enter, .leave = leave, .ctx = &w};
    vec_push(&w.levels, ((Level){.prefix = "n"}));
    bool ok = subgraph_walk(m, rs, NULL, &w.vis, d);
    char *text = ok ? xstrdup(w.levels.items[0].inner.len ? w.levels.items[0].inner.data : "")
                    : NULL;
    for (size_t i = 0; i < w.levels.len; i++)
        level_free(&w.levels.items[i]);
    vec_free(&w.levels);
    return text;
}
