/* graph_dot.c - Graphviz output for graphs (graph_dot.h). */
#include "graph_dot.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "node_label.h"
#include "relay.h"
#include "util.h"

/* What the writer needs while it walks the graph. */
typedef struct Viz {
    const graft_graph *g;      /* graph drawn */
    FILE *out;           /* dot text goes here */
    uint32_t *temps;     /* printer's temp numbers, by node id */
    StrBuf *marks;       /* per node id: highlight labels, "\n"-joined */
    const char **colors; /* per node id: fill colour of its first mark */
    const uint8_t *keep; /* per node id: drawn; NULL: every node */
    const char *model;   /* the model file, for positions, or NULL */
    const VizSubgraph *sub; /* the subgraph drawn, or NULL for the graph */
    const NodeLabels *names; /* an ONNX graph's node names, or NULL */
} Viz;

/* n's dot id: "n7", in a subgraph "s2_7", or the outer node's that a
 * subgraph's parameter stands for. */
static void put_id(const Viz *v, const graft_node *n)
{
    uint32_t id = node_id(n);
    if (v->sub && id < v->sub->nouter && v->sub->outer[id])
        fputs(v->sub->outer[id], v->out);
    else
        fprintf(v->out, "%s%u", v->sub ? v->sub->prefix : "n", id);
}

/* Whether n is drawn in another graph (a subgraph's outer value). */
static bool elsewhere(const Viz *v, const graft_node *n)
{
    return v->sub && node_id(n) < v->sub->nouter && v->sub->outer[node_id(n)];
}

static bool kept(const Viz *v, const graft_node *n)
{
    return !v->keep || v->keep[node_id(n)];
}

/* A dot string: quotes and backslashes escaped, newlines as \n. */
static void put_quoted(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        if (*s == '\n')
            fputs("\\n", out);
        else
            fputc(*s, out);
    }
    fputc('"', out);
}

/* The label of n: what it computes, then its type and match labels. */
static void dot_label(const Viz *v, const graft_node *n, StrBuf *sb)
{
    uint32_t id = node_id(n);
    if (v->names && node_kind(n) == NODE_CALL) { /* ONNX: note [node names] */
        node_label(v->names, n, sb);
        strbuf_puts(sb, " = ");
    } else if (v->temps[id] != UINT32_MAX)
        strbuf_printf(sb, "%%%u = ", v->temps[id]);
    switch (node_kind(n)) {
    case NODE_VAR:
        if (v->names) /* ONNX: "%x", in a subgraph "body/%v" */
            node_label(v->names, n, sb);
        else
            strbuf_printf(sb, "%%%s", node_name(n));
        break;
    case NODE_CONST:
        if (v->names)
            node_label(v->names, n, sb);
        else
            strbuf_puts(sb, node_const_text(n));
        break;
    case NODE_CALL:
        if (node_op(n))
            strbuf_puts(sb, node_op(n));
        else if (v->temps[node_id(node_callee(n))] != UINT32_MAX)
            strbuf_printf(sb, "call %%%u", v->temps[node_id(node_callee(n))]);
        else
            strbuf_puts(sb, "call");
        break;
    case NODE_TUPLE: strbuf_puts(sb, "tuple"); break;
    case NODE_GETITEM: strbuf_printf(sb, ".%d", node_index(n)); break;
    case NODE_FUNC: strbuf_puts(sb, "fn"); break;
    case NODE_GLOBAL: strbuf_printf(sb, "@%s", node_name(n)); break;
    case NODE_OPREF: strbuf_puts(sb, node_name(n)); break;
    case NODE_LET: strbuf_puts(sb, "let"); break;
    case NODE_IF: strbuf_puts(sb, "if"); break;
    case NODE_MATCH: strbuf_puts(sb, "match"); break;
    }
    for (int i = 0; i < node_nattrs(n); i++) {
        const graft_attr *a = node_attr(n, i);
        if (a->value->kind == GRAFT_ATTR_STRING && node_kind(n) == NODE_FUNC)
            strbuf_printf(sb, "\n%s=%s", a->name, a->value->s);
    }
    if (v->model && node_line(v->g, n))
        strbuf_printf(sb, "\n%s:%d:%d", v->model, node_line(v->g, n), node_col(v->g, n));
    if (node_type(n) && node_kind(n) != NODE_CONST)
        strbuf_printf(sb, "\n%s", node_type(n)->text);
    if (v->marks[id].len)
        strbuf_printf(sb, "\n[%s]", v->marks[id].data);
}

static const char *node_shape(const graft_node *n)
{
    switch (node_kind(n)) {
    case NODE_VAR: return "shape=ellipse";
    case NODE_CONST: return "shape=plaintext";
    case NODE_CALL: return "shape=box";
    case NODE_TUPLE:
    case NODE_GETITEM: return "shape=box, fontsize=10";
    case NODE_FUNC: return "shape=component";
    case NODE_GLOBAL:
    case NODE_OPREF: return "shape=plaintext";
    case NODE_LET:
    case NODE_IF:
    case NODE_MATCH: return "shape=diamond";
    }
    return "shape=box";
}

/* One node statement; the graph's output is drawn with a double border. */
static void put_node(const Viz *v, const graft_node *n)
{
    StrBuf label = {0};
    dot_label(v, n, &label);
    bool fn_call = node_kind(n) == NODE_CALL && !node_op(n);
    bool marked = v->marks[node_id(n)].len > 0;
    put_id(v, n);
    fprintf(v->out, " [%s", node_shape(n));
    if (n == graph_output(v->g))
        fputs(", peripheries=2", v->out);
    if (fn_call || marked)
        fprintf(v->out, ", style=\"%s%s\"", fn_call ? "rounded" : "",
                marked ? (fn_call ? ",filled,bold" : "filled,bold") : "");
    if (marked)
        fprintf(v->out, ", fillcolor=\"%s\"",
                v->colors[node_id(n)] ? v->colors[node_id(n)] : "#ffd27f");
    fputs(", label=", v->out);
    put_quoted(v->out, label.data);
    fputs("];", v->out);
    strbuf_free(&label);
}

/* Edges into n: operands in order (labelled when there are several), a
 * callee dashed, a function's body result dotted. */
static void put_edges(const Viz *v, const graft_node *n)
{
    if (!kept(v, n))
        return;
    for (int i = 0; i < node_nargs(n); i++) {
        if (!kept(v, node_arg(n, i)))
            continue;
        fputs("  ", v->out);
        put_id(v, node_arg(n, i));
        fputs(" -> ", v->out);
        put_id(v, n);
        if (node_nargs(n) > 1)
            fprintf(v->out, " [label=\"%d\"]", i);
        fputs(";\n", v->out);
    }
    if (node_callee(n) && kept(v, node_callee(n)))
        fprintf(v->out, "  n%u -> n%u [style=dashed];\n",
                node_id(node_callee(n)), node_id(n));
    if (node_kind(n) == NODE_FUNC && node_body(n) && kept(v, node_body(n)))
        fprintf(v->out, "  n%u -> n%u [style=dotted];\n",
                node_id(node_body(n)), node_id(n));
}

/* The function a node is drawn in: its scope, or for a constant (which
 * has none) its first user's. */
static const graft_node *drawn_scope(const graft_graph *g, const graft_node *n)
{
    if (node_kind(n) == NODE_CONST && node_nusers(n))
        return node_scope(g, node_user(n, node_user_first(n)));
    return node_scope(g, n);
}

/* Nodes in topological order, each inside the clusters of the
 * functions around it (dot merges clusters of the same name), so nested
 * functions need no recursion. */
static void put_nodes(const Viz *v, graft_node **order, uint32_t count)
{
    VEC(const graft_node *) chain = {0};
    for (uint32_t i = 0; i < count; i++) {
        if (!kept(v, order[i]) || elsewhere(v, order[i]))
            continue;
        chain.len = 0;
        for (const graft_node *s = drawn_scope(v->g, order[i]); s; s = drawn_scope(v->g, s))
            vec_push(&chain, s);
        size_t depth = chain.len;
        fputs("  ", v->out);
        for (size_t k = depth; k-- > 0;)
            fprintf(v->out, "subgraph cluster_%u { style=dashed; ", node_id(chain.items[k]));
        put_node(v, order[i]);
        for (size_t k = 0; k < depth; k++)
            fputs(" }", v->out);
        fputc('\n', v->out);
    }
    vec_free(&chain);
}

static void collect_marks(Viz *v, const VizHighlight *h, size_t n)
{
    uint32_t count = graph_node_count(v->g);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < h[i].nnodes; j++) {
            uint32_t id = h[i].nodes[j];
            if (id >= count)
                continue;
            if (v->marks[id].len)
                strbuf_puts(&v->marks[id], ", ");
            else
                v->colors[id] = h[i].color;
            strbuf_puts(&v->marks[id], h[i].label ? h[i].label : "match");
        }
}

void viz_write(const graft_graph *g, const VizHighlight *highlights, size_t n, FILE *out)
{
    viz_write_some(g, highlights, n, NULL, NULL, out);
}

/* Every node of v->g (clustered by function), then every edge. */
static void put_graph(Viz *v, const VizHighlight *highlights, size_t n)
{
    uint32_t count = graph_node_count(v->g);
    v->temps = relay_temp_numbers(v->g);
    v->marks = xcalloc(count ? count : 1, sizeof(StrBuf));
    v->colors = xcalloc(count ? count : 1, sizeof(const char *));
    collect_marks(v, highlights, n);
    graft_node **order = xmalloc((count ? count : 1) * sizeof(graft_node *));
    uint32_t len = graph_topo_order(v->g, order);
    put_nodes(v, order, len);
    for (uint32_t i = 0; i < len; i++)
        put_edges(v, order[i]);
    for (uint32_t i = 0; i < count; i++)
        strbuf_free(&v->marks[i]);
    free(v->marks);
    free(v->colors);
    free(v->temps);
    free(order);
}

void viz_write_some(const graft_graph *g, const VizHighlight *highlights, size_t n,
                    const uint8_t *keep, const char *model, FILE *out)
{
    viz_write_with(g, highlights, n, keep, model, NULL, out);
}

void viz_write_with(const graft_graph *g, const VizHighlight *highlights, size_t n,
                    const uint8_t *keep, const char *model, const char *clusters, FILE *out)
{
    Viz v = {.g = g, .out = out, .keep = keep, .model = model};
    NodeLabels names;
    if (graph_ir(g) == IR_ONNX) {
        node_labels_init(&names, g, NULL);
        v.names = &names;
    }
    fprintf(out, "digraph \"%s\" {\n  rankdir=TB;\n"
                 "  node [fontname=\"Helvetica\", fontsize=11];\n"
                 "  edge [fontname=\"Helvetica\", fontsize=9];\n", graph_name(g));
    put_graph(&v, highlights, n);
    if (clusters)
        fputs(clusters, out);
    fputs("}\n", out);
    if (v.names)
        node_labels_free(&names);
}

void viz_write_subgraph(const graft_graph *g, const VizHighlight *highlights, size_t n,
                        const VizSubgraph *sub, const char *inner, FILE *out)
{
    Viz v = {.g = g, .out = out, .sub = sub, .names = sub->names};
    fprintf(out, "  subgraph cluster_%.*s { style=dashed; label=",
            (int)strcspn(sub->prefix, "_"), sub->prefix);
    put_quoted(out, sub->label);
    fputs(";\n", out);
    put_graph(&v, highlights, n);
    if (inner)
        fputs(inner, out);
    fputs("  ", out);
    put_id(&v, graph_output(g));
    fprintf(out, " -> %s [style=dashed, label=", sub->holder);
    put_quoted(out, sub->attr);
    fputs("];\n  }\n", out);
}

/* Child side of viz_render: dot reads the pipe, writes fd out. */
static void exec_dot(int in, int out, const char *dot, const char *format)
{
    char flag[16];
    snprintf(flag, sizeof flag, "-T%s", format);
    if (dup2(in, 0) < 0 || dup2(out, 1) < 0)
        _exit(126);
    execlp(dot, dot, flag, (char *)NULL);
    _exit(127);
}

/* Writes all of text to fd, ignoring a reader that went away. */
static void write_all(int fd, const char *text, size_t len)
{
    while (len) {
        ssize_t w = write(fd, text, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        text += w;
        len -= (size_t)w;
    }
}

/* Runs "dot -TFORMAT" with text on its input and out as its output;
 * returns its wait status, or -1 when it could not be started. */
static int run_dot(const char *dot, const char *format, const char *text, size_t len,
                   FILE *out)
{
    int fds[2];
    fflush(out);
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[1]);
        exec_dot(fds[0], fileno(out), dot, format);
    }
    close(fds[0]);
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    if (pid > 0)
        write_all(fds[1], text, len);
    close(fds[1]);
    signal(SIGPIPE, old);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return -1;
    return status;
}

/* Runs dot and turns its exit status into one clear message. */
bool viz_render(const char *dot_text, size_t len, const char *format, FILE *out)
{
    const char *dot = getenv("GRAFT_DOT") ? getenv("GRAFT_DOT") : "dot";
    int status = run_dot(dot, format, dot_text, len, out);
    char upper[8] = "";
    for (size_t i = 0; format[i] && i + 1 < sizeof upper; i++)
        upper[i] = (char)toupper((unsigned char)format[i]);
    if (status < 0) {
        fprintf(stderr, "graft viz: cannot run '%s': %s\n", dot, strerror(errno));
        return false;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        fprintf(stderr, "graft viz: Graphviz's '%s' is not installed, so %s "
                        "cannot be made; write dot text instead (-o FILE.dot)\n", dot, upper);
        return false;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "graft viz: '%s -T%s' failed\n", dot, format);
        return false;
    }
    return true;
}
