/* node_label.c - naming model nodes one way (note [node names]). */
#include "node_label.h"

#include <stdlib.h>
#include <string.h>

#include "relay.h"

void node_labels_init(NodeLabels *nl, const graft_graph *g, const char *file)
{
    nl->g = g;
    nl->file = file;
    bool onnx = graph_ir(g) == IR_ONNX; /* ONNX names its nodes itself */
    nl->temps = onnx ? NULL : relay_temp_numbers(g);
    nl->ntemps = onnx ? 0 : graph_node_count(g);
    nl->output = graph_output(g);
    nl->prefix = NULL;
    nl->given = NULL;
    nl->ngiven = 0;
}

void node_labels_scope(NodeLabels *nl, const char *prefix)
{
    free((char *)nl->prefix);
    nl->prefix = xstrdup(prefix);
}

void node_labels_give(NodeLabels *nl, const graft_node *n, const char *label)
{
    uint32_t id = node_id(n);
    if (id >= nl->ngiven) {
        uint32_t count = graph_node_count(nl->g) > id ? graph_node_count(nl->g) : id + 1;
        nl->given = xrealloc(nl->given, count * sizeof *nl->given);
        memset(nl->given + nl->ngiven, 0, (count - nl->ngiven) * sizeof *nl->given);
        nl->ngiven = count;
    }
    free(nl->given[id]);
    nl->given[id] = xstrdup(label);
}

/* The name given to n, or NULL. */
static const char *given(const NodeLabels *nl, const graft_node *n)
{
    return node_id(n) < nl->ngiven ? nl->given[node_id(n)] : NULL;
}

/* An ONNX node's name: the node's own, else the name of the value it
 * makes (of its first element read, for a call of several results). */
static const char *onnx_name(const graft_graph *g, const graft_node *n)
{
    const char *name = graph_node_name(g, n);
    if (name && name[0])
        return name;
    if ((name = graph_value_name(g, n)))
        return name;
    for (int k = node_user_first(n); k < node_user_end(n); k = node_user_next(n, k)) {
        const graft_node *user = node_user(n, k);
        if (node_kind(user) == NODE_GETITEM && (name = graph_value_name(g, user)))
            return name;
    }
    return NULL;
}

void node_labels_free(NodeLabels *nl)
{
    free(nl->temps);
    nl->temps = NULL;
    for (uint32_t i = 0; i < nl->ngiven; i++)
        free(nl->given[i]);
    free(nl->given);
    nl->given = NULL;
    nl->ngiven = 0;
    free((char *)nl->prefix);
    nl->prefix = NULL;
}

/* The global function other than @main whose body holds n, or NULL;
 * its index in *global. */
static const graft_node *other_global(const graft_graph *g, const graft_node *n, int *global)
{
    *global = graph_global_of(g, n);
    return *global >= 0 ? graph_global_fn(g, *global) : NULL;
}

void node_label(const NodeLabels *nl, const graft_node *n, StrBuf *out)
{
    uint32_t id = node_id(n);
    uint32_t t = id < nl->ntemps ? nl->temps[id] : UINT32_MAX;
    const char *onnx = graph_ir(nl->g) == IR_ONNX ? onnx_name(nl->g, n) : NULL;
    int global;
    const graft_node *fn = other_global(nl->g, n, &global);
    if (given(nl, n)) {
        strbuf_puts(out, given(nl, n));
        return;
    }
    if (nl->prefix) /* note [subgraph node names] */
        strbuf_puts(out, nl->prefix);
    if (fn) /* a node of @f, not of @main: @f:%3 */
        strbuf_printf(out, "@%s:", graph_global_name(nl->g, global));
    if (fn && n == node_body(fn))
        strbuf_puts(out, "<output>");
    else if (node_kind(n) == NODE_VAR)
        strbuf_printf(out, "%%%s", node_name(n));
    else if (node_kind(n) == NODE_CONST)
        strbuf_puts(out, node_const_text(n));
    else if (onnx)
        strbuf_puts(out, onnx);
    else if (t != UINT32_MAX)
        strbuf_printf(out, "%%%u", t);
    else if (n == nl->output)
        strbuf_puts(out, "<output>");
    else
        strbuf_printf(out, "#%u", id);
}

void node_label_at(const NodeLabels *nl, const graft_node *n, StrBuf *out)
{
    node_label(nl, n, out);
    int line = node_line(nl->g, n);
    if (line && nl->file)
        strbuf_printf(out, " (%s:%d:%d)", nl->file, line, node_col(nl->g, n));
}

void node_describe(const graft_node *n, StrBuf *out)
{
    switch (node_kind(n)) {
    case NODE_CALL:
        if (node_op(n))
            strbuf_printf(out, "a call of %s", node_op(n));
        else
            strbuf_puts(out, "a call of a function");
        break;
    case NODE_VAR: strbuf_puts(out, "a variable"); break;
    case NODE_CONST: strbuf_puts(out, "a constant"); break;
    case NODE_TUPLE: strbuf_printf(out, "a tuple of %d", node_nargs(n)); break;
    case NODE_GETITEM: strbuf_printf(out, "element %d of a tuple", node_index(n)); break;
    case NODE_FUNC: strbuf_puts(out, "a function"); break;
    case NODE_GLOBAL: strbuf_printf(out, "the global function @%s", node_name(n)); break;
    case NODE_OPREF: strbuf_printf(out, "the operator %s as a value", node_name(n)); break;
    case NODE_LET: strbuf_puts(out, "a let"); break;
    case NODE_IF: strbuf_puts(out, "an if"); break;
    case NODE_MATCH: strbuf_puts(out, "a match"); break;
    }
}

/* LINE[:COL] at s; false when s is not that. */
static bool parse_pos(const char *s, long *line, long *col)
{
    char *end;
    *line = strtol(s, &end, 10);
    *col = 0;
    if (end == s || *line <= 0)
        return false;
    if (*end == ':') {
        const char *c = end + 1;
        *col = strtol(c, &end, 10);
        if (end == c || *col <= 0)
            return false;
    }
    return *end == '\0';
}

static graft_node *find_at(const NodeLabels *nl, long line, long col)
{
    graft_node *best = NULL;
    for (uint32_t id = 0; id < graph_node_count(nl->g); id++) {
        graft_node *n = graph_node(nl->g, id);
        if (node_is_dead(n) || node_line(nl->g, n) != line || node_col(nl->g, n) < col)
            continue;
        if (!best || node_col(nl->g, n) < node_col(nl->g, best))
            best = n;
    }
    return best;
}

graft_node *node_labels_find(const NodeLabels *nl, const char *text)
{
    long line, col;
    if (strncmp(text, "@main:", 6) == 0) /* @f:%3: a node of function @f */
        text += 6;
    if (text[0] != '%') {
        /* FILE:LINE[:COL] or :LINE[:COL]: the file is the model, whatever
         * its spelling; LINE starts after the first colon that leads to a
         * position */
        for (const char *c = strchr(text, ':'); c; c = strchr(c + 1, ':'))
            if (parse_pos(c + 1, &line, &col))
                return find_at(nl, line, col);
    }
    StrBuf sb = {0};
    graft_node *found = NULL;
    for (uint32_t id = 0; id < graph_node_count(nl->g) && !found; id++) {
        graft_node *n = graph_node(nl->g, id);
        if (node_is_dead(n) || given(nl, n))
            continue;
        sb.len = 0;
        node_label(nl, n, &sb);
        if (strcmp(sb.data, text) == 0)
            found = n;
    }
    strbuf_free(&sb);
    return found;
}

const char *node_kind_name(const graft_node *n)
{
    switch (node_kind(n)) {
    case NODE_CALL: return node_op(n) ? node_op(n) : "call";
    case NODE_TUPLE: return "tuple";
    case NODE_GETITEM: return "getitem";
    case NODE_FUNC: return "fn";
    case NODE_VAR: return "var";
    case NODE_CONST: return "const";
    default: return "value";
    }
}
