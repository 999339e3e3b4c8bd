/* graph_text.c - annotation comments kept as spans of the model's text.
 *
 * note [annotation spans]: every binding of a TVM model carries a
 * comment, "/ * ty=T span=S * /", printed back verbatim, and TVM's span=
 * part names the node, so most comments are distinct: interning each
 * one (hash, compare, copy into the arena) cost about 240 instructions
 * a comment.  A loader that scans text gives the graph that text
 * (graph_text_begin), and while it loads, a node's comment is a pointer
 * into it (graph_set_annotation_span): no hash, no copy, and the node
 * keeps its one pointer (note [node size] in graph.c).  The text is
 * never written: it may be the Source itself, which diagnostics read
 * (note [relay lexer] in grammar/relay_lex.l).  When loading is done,
 * graph_text_keep copies the spans, each followed by a NUL, into one
 * buffer of the graph's, in the order of the nodes, and points the nodes
 * there, so node_annotation is a C string for every reader and the graph
 * keeps only its comments' bytes, not the whole text (about half of a
 * TVM model's).  The end of each comment is found again by its first
 * "* /" (comments do not nest); what follows a comment does not matter,
 * so a comment that another comment follows at once is a span like any
 * other.  A graph whose loader set no span keeps nothing.  Annotations
 * of nodes built by edits are interned (graph_set_annotation); a copy of
 * a node (a partition's body) shares its original's copied span. */
#include "graph.h"

#include <string.h>

#include "graph_impl.h"
#include "util.h"

void graph_text_begin(graft_graph *g, const char *text, size_t len)
{
    g->text = text;
    g->text_len = len;
}

/* Whether s points into g's text (compared as addresses: s may be any
 * string), at *off. */
static bool in_text(const graft_graph *g, const char *s, size_t *off)
{
    uintptr_t at = (uintptr_t)s, start = (uintptr_t)g->text;
    if (!g->text || at < start || at - start >= g->text_len)
        return false;
    *off = at - start;
    return true;
}

/* Whether the n bytes at s are a comment of g's text that may be kept
 * as a span (note [annotation spans]). */
static bool span_fits(const graft_graph *g, const char *s, size_t n)
{
    size_t off;
    if (g->text_kept || !in_text(g, s, &off) || n < 4 || n > g->text_len - off)
        return false;
    return memcmp(s, "/*", 2) == 0 && memcmp(s + n - 2, "*/", 2) == 0;
}

void graph_set_annotation_span(graft_graph *g, graft_node *n, const char *text, size_t len)
{
    if (!span_fits(g, text, len)) {
        n->annot = graph_intern_n(g, text, len);
        return;
    }
    g->span_bytes += len + 1;
    n->annot = text;
}

/* The bytes of the comment at p, in a text that ends at end, up to
 * its first "* /" (a comment's end: they do not nest). */
static size_t comment_len(const char *p, const char *end)
{
    const char *star = p + 2;
    while ((star = memchr(star, '*', (size_t)(end - star))) && star[1] != '/')
        star++;
    return (size_t)(star + 2 - p);
}

/* Copies each node's span, NUL-ended, into kept (span_bytes bytes: a
 * span's comment ends at or before the bytes it was set with). */
static void copy_spans(graft_graph *g, char *kept)
{
    const char *end = g->text + g->text_len;
    char *to = kept;
    for (uint32_t id = 0; id < g->nnodes; id++) {
        graft_node *n = g->nodes[id];
        size_t off;
        if (!n || !n->annot || !in_text(g, n->annot, &off))
            continue;
        size_t len = comment_len(n->annot, end);
        memcpy(to, n->annot, len);
        to[len] = '\0';
        n->annot = to;
        to += len + 1;
    }
}

bool graph_text_keep(graft_graph *g)
{
    if (!g->text || g->text_kept)
        return false;
    if (g->span_bytes == 0) {
        g->text = NULL; /* the loader's: nothing points into it */
        g->text_len = 0;
        return false;
    }
    char *kept = xmalloc(g->span_bytes);
    copy_spans(g, kept);
    graph_own(g, kept);
    g->text = kept;
    g->text_len = g->span_bytes;
    g->text_kept = true;
    return true;
}

const char *graph_kept_text(const graft_graph *g, size_t *len)
{
    if (!g->text_kept)
        return NULL;
    if (len)
        *len = g->text_len;
    return g->text;
}

/* Interned: models repeat annotations, and equal ones share a copy; a
 * span of the kept text (a copy of a loaded node) is shared as it is. */
void graph_set_annotation(graft_graph *g, graft_node *n, const char *text)
{
    size_t off;
    if (text && g->text_kept && in_text(g, text, &off))
        n->annot = text;
    else
        n->annot = text ? graph_intern(g, text) : NULL;
}
