/* graph_names.c - which IR a graph came from, and the names that IR gives
 * nodes and values, kept beside the nodes (note [IR names] in graph.h). */
#include <stdint.h>
#include <string.h>

#include "graph_impl.h"

/* n's name in names: interned, NULL or not. */
static void interned_put(KeyMap *names, const graft_node *n, const char *interned)
{
    *keymap_put(names, (uint64_t)node_id(n) + 1, 0) = (int64_t)(intptr_t)interned;
}

static void name_put(graft_graph *g, KeyMap *names, const graft_node *n, const char *name)
{
    interned_put(names, n, name ? graph_intern(g, name) : NULL);
}

static const char *name_get(const KeyMap *names, const graft_node *n)
{
    const int64_t *v = keymap_get(names, (uint64_t)node_id(n) + 1);
    return v ? (const char *)(intptr_t)*v : NULL;
}

IrKind graph_ir(const graft_graph *g)
{
    return g->ir;
}

void graph_set_ir(graft_graph *g, IrKind ir)
{
    g->ir = ir;
}

void *graph_host(const graft_graph *g)
{
    return g->host;
}

void graph_set_host(graft_graph *g, void *host)
{
    g->host = host;
}

void graph_set_type_fn(graft_graph *g, GraphTypeFn fn)
{
    g->type_fn = fn;
    graph_set_type_memo(g, NULL, NULL); /* the old fn's memo */
}

GraphTypeFn graph_type_fn(const graft_graph *g)
{
    return g->type_fn;
}

void graph_set_type_memo(graft_graph *g, void *memo, void (*free_memo)(void *))
{
    if (g->type_memo)
        g->free_type_memo(g->type_memo);
    g->type_memo = memo;
    g->free_type_memo = free_memo;
}

void *graph_type_memo(const graft_graph *g, void (*free_memo)(void *))
{
    return g->free_type_memo == free_memo ? g->type_memo : NULL;
}

void graph_set_node_name(graft_graph *g, const graft_node *n, const char *name)
{
    name_put(g, &g->node_names, n, name);
}

void graph_set_node_name_interned(graft_graph *g, const graft_node *n, const char *name)
{
    interned_put(&g->node_names, n, name);
}

const char *graph_node_name(const graft_graph *g, const graft_node *n)
{
    return name_get(&g->node_names, n);
}

/* note [value names by id]: an ONNX model names nearly every value (the
 * import names 110,000 on each ONNX job of bench/workload.sh), and a map
 * from the id to the name, hashed and probed, at most half full of 16-byte
 * slots, was 30 instructions a name put and 4 MB.  So the names are an
 * array by node id, NULL where a value has none: a store a name, 8 bytes
 * a node.  The array is zeroed as it grows, its length its capacity: a
 * name put past the end grows it (doubling), not a memset a name.  A
 * graph of few named values (Relay's) keeps it as long as its last named
 * id. */

/* The value names cover the ids below n, those not named NULL. */
static void value_names_cover(graft_graph *g, size_t n)
{
    size_t had = g->value_names.cap;
    if (n <= had)
        return;
    if (!had) { /* (fresh pages, for a model's count: not zeroed again) */
        g->value_names.items = xcalloc(n, sizeof(const char *));
        g->value_names.len = g->value_names.cap = n;
        return;
    }
    vec_reserve(&g->value_names, n);
    memset(g->value_names.items + had, 0, (g->value_names.cap - had) * sizeof(const char *));
    g->value_names.len = g->value_names.cap;
}

void graph_reserve_names(graft_graph *g, size_t strings, size_t values)
{
    interner_reserve(g->strings, strings);
    if (values) /* (the loader's next values) */
        value_names_cover(g, graph_node_count(g) + values);
}

/* n's value name, interned or NULL. */
static void value_name_put(graft_graph *g, const graft_node *n, const char *interned)
{
    size_t id = node_id(n);
    if (id >= g->value_names.len)
        value_names_cover(g, id + 1);
    g->value_names.items[id] = interned;
}

void graph_set_value_name(graft_graph *g, const graft_node *n, const char *name)
{
    value_name_put(g, n, name ? graph_intern(g, name) : NULL);
}

void graph_set_value_name_interned(graft_graph *g, const graft_node *n, const char *name)
{
    value_name_put(g, n, name);
}

const char *graph_value_name(const graft_graph *g, const graft_node *n)
{
    size_t id = node_id(n);
    return id < g->value_names.len ? g->value_names.items[id] : NULL;
}

void graph_set_node_domain(graft_graph *g, const graft_node *n, const char *domain)
{
    name_put(g, &g->domains, n, domain);
}

const char *graph_node_domain(const graft_graph *g, const graft_node *n)
{
    return name_get(&g->domains, n);
}

size_t graph_node_domain_count(const graft_graph *g)
{
    return g->domains.len;
}
