/* onnx_check.c - the graph-level checks of an ONNX model (note [graph
 * check] in onnx_check.h). */
#include "onnx_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_model.h"
#include "onnx_text_where.h"
#include "util.h"

/* Who makes a value: a graph input, an initializer (dense or sparse), or
 * the node at that index of the graph's node list. */
enum { MADE_BY_INPUT = -2, MADE_BY_INITIALIZER = -1 };

typedef struct ScopeEntry {
    const char *name;
    int64_t maker;     /* MADE_BY_INPUT, MADE_BY_INITIALIZER or a node index */
    size_t next;       /* the next entry of the same hash, plus one; 0: none */
} ScopeEntry;

/* The values one graph makes, by name (names hashed, entries of one hash
 * chained: note [one hash map]), and the scope around it. */
typedef struct Scope {
    const Onnx__GraphProto *graph;
    const struct Scope *outer;
    int64_t at;     /* the index in outer of the node whose attribute it is */
    KeyMap by_hash; /* hash of a name -> its first entry, plus one */
    VEC(ScopeEntry) entries;
} Scope;

typedef struct Checker {
    const char *file;
    graft_diag *d;
    const Onnx__ModelProto *model;
    bool default_imported; /* the model imports an opset of the default domain */
    bool ok;
    VEC(Scope *) scopes; /* every scope made, freed at the end */
    VEC(Scope *) todo;   /* graphs still to check */
    /* the model's lists, read lean (note [lean read] in onnx_lean.h); or NULL */
    const OnnxLeanGraph *lean;
    OnnxLeanNode current; /* a lean list's node being checked, read again */
    OnnxLeanNode aside;   /* one a message describes */
} Checker;

static const char *str(const char *s)
{
    return s ? s : "";
}

static uint64_t name_key(const char *name)
{
    uint64_t h = hash_bytes(name, strlen(name), 0);
    return h ? h : 1; /* 0 is the empty slot */
}

/* The entry for name, whose name_key is key, in s; NULL: none. */
static const ScopeEntry *scope_find_keyed(const Scope *s, const char *name, uint64_t key)
{
    const int64_t *first = keymap_get(&s->by_hash, key);
    for (size_t i = first ? (size_t)*first : 0; i; i = s->entries.items[i - 1].next)
        if (strcmp(s->entries.items[i - 1].name, name) == 0)
            return &s->entries.items[i - 1];
    return NULL;
}

static const ScopeEntry *scope_find(const Scope *s, const char *name)
{
    return scope_find_keyed(s, name, name_key(name));
}

/* "node 'NAME' (Op)", or "the Op node making 'OUT'" for a node without a
 * name (or "an Op node" with no output either). */
static void describe_node(const Onnx__NodeProto *n, StrBuf *sb)
{
    if (str(n->name)[0])
        strbuf_printf(sb, "node '%s' (%s)", n->name, str(n->op_type));
    else if (n->n_output && str(n->output[0])[0])
        strbuf_printf(sb, "the %s node making '%s'", str(n->op_type), n->output[0]);
    else
        strbuf_printf(sb, "a %s node", str(n->op_type));
}

/* Whether s's graph is the one whose lists c->lean holds. */
static bool lean_scope(const Checker *c, const Scope *s)
{
    return c->lean && s->graph == c->lean->graph;
}

static size_t node_count(const Checker *c, const Scope *s)
{
    return lean_scope(c, s) ? c->lean->lists[ONNX_LEAN_NODE].n : s->graph->n_node;
}

static size_t initializer_count(const Checker *c, const Scope *s)
{
    return lean_scope(c, s) ? c->lean->lists[ONNX_LEAN_INITIALIZER].n : s->graph->n_initializer;
}

/* The name of initializer i of s's graph (a lean list's read from its
 * bytes, interned), or NULL. */
static const char *initializer_name(const Checker *c, const Scope *s, size_t i)
{
    if (!lean_scope(c, s))
        return s->graph->initializer[i]->name;
    return onnx_lean_initializer_name(c->lean, i);
}

/* Node i of s's graph; of a lean list, the set strings of its strings
 * (ONNX_LEAN_OUTPUTS, ...) read into into.
 *
 * note [lean strings as needed]: the check reads a lean list's nodes in
 * two passes, define_all for their outputs and check_graph for their
 * inputs and domains, and each interns only those (a message, rare, reads
 * its node whole again).  When both read every string, each was interned
 * twice: onnx_lean_node took 670,360 of graft fmt mnasnet_op17.onnx's
 * 3.52 M instructions; now 275,457, each string interned once (110,598)
 * and the keys walked twice (103,760).  Keeping the first pass's strings
 * for the second would save at most the second walk, about 52,000, for
 * memory a node where graft fmt's peak is held to a bound (note [lean
 * read] in onnx_lean.h; bench/RESULTS.md, "Session 21, tidy"). */
static const Onnx__NodeProto *node_at(const Checker *c, const Scope *s, size_t i,
                                      unsigned strings, OnnxLeanNode *into)
{
    if (!lean_scope(c, s))
        return s->graph->node[i];
    return onnx_lean_node(c->lean, i, strings, into);
}

/* Node i of s's graph, whole, for a message (note [lean strings as needed]). */
static const Onnx__NodeProto *node_described(Checker *c, const Scope *s, size_t i)
{
    return node_at(c, s, i, ONNX_LEAN_STRINGS, &c->aside);
}

static void describe_maker(Checker *c, const Scope *s, int64_t maker, StrBuf *sb)
{
    if (maker == MADE_BY_INPUT)
        strbuf_puts(sb, "a graph input");
    else if (maker == MADE_BY_INITIALIZER)
        strbuf_puts(sb, "an initializer");
    else
        describe_node(node_described(c, s, (size_t)maker), sb);
}

/* Reports msg (and frees it) at where key was written in a text model
 * (note [text positions] in onnx_text_where.h). */
static void report(Checker *c, const void *key, StrBuf *msg)
{
    onnx_error_at(c->d, c->model, c->file, key, "%s", msg->data);
    strbuf_free(msg);
    c->ok = false;
}

static const char *graph_name(const Scope *s)
{
    return str(s->graph->name);
}

/* Records that maker makes name in s; a second maker is an error, except
 * an initializer for a graph input (the input's default value). */
static void define(Checker *c, Scope *s, const char *name, int64_t maker)
{
    if (!name[0])
        return; /* an omitted optional output */
    uint64_t key = name_key(name); /* hashed once, for the lookup and the entry */
    const ScopeEntry *old = scope_find_keyed(s, name, key);
    if (old && old->maker == MADE_BY_INPUT && maker == MADE_BY_INITIALIZER)
        return;
    if (old) {
        StrBuf msg = {0};
        strbuf_printf(&msg, "value '%s' of graph '%s' is made twice: by ", name, graph_name(s));
        describe_maker(c, s, old->maker, &msg);
        strbuf_puts(&msg, " and by ");
        describe_maker(c, s, maker, &msg);
        report(c, NULL, &msg); /* never from text: note [text positions] */
        return;
    }
    int64_t *first = keymap_put(&s->by_hash, key, 0);
    ScopeEntry e = {name, maker, (size_t)*first};
    vec_push(&s->entries, e);
    *first = (int64_t)s->entries.len;
}

static void define_all(Checker *c, Scope *s)
{
    const Onnx__GraphProto *g = s->graph;
    size_t nodes = node_count(c, s), initializers = initializer_count(c, s);
    /* most nodes make one value: one rehash, not one per doubling */
    keymap_reserve(&s->by_hash, g->n_input + initializers + nodes);
    for (size_t i = 0; i < g->n_input; i++)
        define(c, s, str(g->input[i]->name), MADE_BY_INPUT);
    for (size_t i = 0; i < initializers; i++)
        define(c, s, str(initializer_name(c, s, i)), MADE_BY_INITIALIZER);
    for (size_t i = 0; i < g->n_sparse_initializer; i++) {
        const Onnx__TensorProto *values = g->sparse_initializer[i]->values;
        if (values)
            define(c, s, str(values->name), MADE_BY_INITIALIZER);
    }
    for (size_t i = 0; i < nodes; i++) {
        const Onnx__NodeProto *n = node_at(c, s, i, ONNX_LEAN_OUTPUTS, &c->current);
        for (size_t k = 0; k < n->n_output; k++)
            define(c, s, str(n->output[k]), (int64_t)i);
    }
}

/* The entry for name read in s at position *before (a node index; the
 * graph's outputs read after every node) and *where its scope; *before
 * becomes the position in *where it must be made before.  NULL: none. */
static const ScopeEntry *find_before(const Scope *s, const char *name, const Scope **where,
                                     int64_t *before)
{
    const ScopeEntry *e = NULL;
    for (*where = s; *where && !(e = scope_find(*where, name)); *where = (*where)->outer)
        *before = (*where)->at;
    return e;
}

/* The node at index of s reads *slot, one of its inputs: made before it,
 * here or around; around, before the node holding the subgraph that reads
 * it (ONNX Runtime counts such a read among the node's implicit inputs,
 * note [outer reads] in onnx_subgraph.h, and sorts by them). */
static void check_read(Checker *c, const Scope *s, size_t index, char *const *slot)
{
    const char *name = *slot;
    const Scope *where;
    int64_t before = (int64_t)index; /* the reader in where, or the node holding it */
    const ScopeEntry *e = find_before(s, name, &where, &before);
    if (e && e->maker < before)
        return;
    StrBuf msg = {0};
    describe_maker(c, s, (int64_t)index, &msg);
    strbuf_printf(&msg, " of graph '%s' reads '%s'", graph_name(s), name);
    if (!e) {
        strbuf_puts(&msg, ", which no graph input, initializer or node makes");
    } else if (e->maker == before && where == s) {
        strbuf_puts(&msg, ", its own output");
    } else if (e->maker == before) {
        strbuf_printf(&msg, ", an output of the node of graph '%s' whose subgraph it is",
                      graph_name(where));
    } else {
        strbuf_puts(&msg, " before ");
        describe_maker(c, where, e->maker, &msg);
        strbuf_puts(&msg, " makes it; ONNX lists nodes in topological order");
    }
    report(c, slot, &msg);
}

/* Whether the opsets imports name domain ("" and "ai.onnx" are one). */
static bool imports(Onnx__OperatorSetIdProto *const *opsets, size_t n, const char *domain)
{
    bool is_default = !domain[0] || strcmp(domain, "ai.onnx") == 0;
    for (size_t i = 0; i < n; i++) {
        const char *d = str(opsets[i]->domain);
        if (strcmp(d, domain) == 0 || (is_default && (!d[0] || strcmp(d, "ai.onnx") == 0)))
            return true;
    }
    return false;
}

/* Whether the model, or more, imports an opset of domain. */
static bool domain_imported(const Checker *c, const char *domain,
                            Onnx__OperatorSetIdProto *const *more, size_t nmore)
{
    const Onnx__ModelProto *m = c->model;
    if (!domain[0] && c->default_imported) /* most nodes: asked once, not per node */
        return true;
    return imports(m->opset_import, m->n_opset_import, domain) || imports(more, nmore, domain);
}

/* Reports node n of where, in a domain of which no opset is imported. */
static void report_domain(Checker *c, const Onnx__NodeProto *n, const char *where)
{
    StrBuf msg = {0};
    describe_node(n, &msg);
    strbuf_printf(&msg, " of %s is in domain '%s', of which the model imports no opset "
                  "(opset_import)", where, str(n->domain));
    report(c, n, &msg);
}

/* The graph attributes of node n, at index of s, as scopes to check
 * inside s. */
static void push_subgraphs(Checker *c, const Scope *s, const Onnx__NodeProto *n, size_t index)
{
    for (size_t a = 0; a < n->n_attribute; a++) {
        const Onnx__AttributeProto *attr = n->attribute[a];
        for (size_t k = 0; k <= attr->n_graphs; k++) {
            const Onnx__GraphProto *g = k < attr->n_graphs ? attr->graphs[k] : attr->g;
            if (!g)
                continue;
            Scope *sub = xcalloc(1, sizeof *sub);
            sub->graph = g;
            sub->outer = s;
            sub->at = (int64_t)index;
            vec_push(&c->scopes, sub);
            vec_push(&c->todo, sub);
        }
    }
}

static void check_graph(Checker *c, Scope *s)
{
    define_all(c, s);
    const Onnx__GraphProto *g = s->graph;
    StrBuf where = {0};
    strbuf_printf(&where, "graph '%s'", graph_name(s));
    size_t nodes = node_count(c, s);
    for (size_t i = 0; i < nodes && !diag_gave_up(c->d); i++) {
        unsigned reads = ONNX_LEAN_INPUTS | ONNX_LEAN_DOMAIN;
        const Onnx__NodeProto *n = node_at(c, s, i, reads, &c->current);
        if (!domain_imported(c, str(n->domain), NULL, 0))
            report_domain(c, node_described(c, s, i), where.data);
        for (size_t k = 0; k < n->n_input; k++)
            if (str(n->input[k])[0])
                check_read(c, s, i, &n->input[k]);
        push_subgraphs(c, s, n, i); /* (a lean list keeps a node with a graph) */
    }
    strbuf_free(&where);
    const Scope *found;
    for (size_t i = 0; i < g->n_output; i++) {
        const char *name = str(g->output[i]->name);
        int64_t before = (int64_t)nodes;
        const ScopeEntry *e = find_before(s, name, &found, &before);
        if (e && e->maker < before)
            continue;
        StrBuf msg = {0};
        if (e)
            strbuf_printf(&msg, "output '%s' of graph '%s' is made after the node of graph "
                          "'%s' whose subgraph it is", name, graph_name(s), graph_name(found));
        else
            strbuf_printf(&msg, "output '%s' of graph '%s' is made by no node, graph input or "
                          "initializer", name, graph_name(s));
        report(c, g->output[i], &msg);
    }
}

/* A model-local function's nodes: their domains, against the model's
 * opsets and the function's own. */
static void check_function(Checker *c, const Onnx__FunctionProto *f)
{
    StrBuf where = {0};
    strbuf_printf(&where, "function '%s' (domain '%s')", str(f->name), str(f->domain));
    for (size_t i = 0; i < f->n_node; i++)
        if (!domain_imported(c, str(f->node[i]->domain), f->opset_import, f->n_opset_import))
            report_domain(c, f->node[i], where.data);
    strbuf_free(&where);
}

bool onnx_model_check(const Onnx__ModelProto *model, const char *name, graft_diag *d)
{
    Checker c = {.file = name, .d = d, .model = model, .ok = true,
                 .default_imported = imports(model->opset_import, model->n_opset_import, ""),
                 .lean = onnx_model_lean(model)};
    Scope *root = xcalloc(1, sizeof *root);
    root->graph = model->graph;
    vec_push(&c.scopes, root);
    vec_push(&c.todo, root);
    while (c.todo.len > 0 && !diag_gave_up(d))
        check_graph(&c, vec_pop(&c.todo));
    for (size_t i = 0; i < model->n_functions; i++)
        check_function(&c, model->functions[i]);
    for (size_t i = 0; i < c.scopes.len; i++) {
        keymap_free(&c.scopes.items[i]->by_hash);
        vec_free(&c.scopes.items[i]->entries);
        free(c.scopes.items[i]);
    }
    vec_free(&c.scopes);
    vec_free(&c.todo);
    onnx_lean_node_free(&c.current);
    onnx_lean_node_free(&c.aside);
    return c.ok;
}
