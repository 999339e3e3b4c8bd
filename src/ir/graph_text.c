/* graph_text.c - annotation comments kept as spans of the model's text.
 *
 * note [annotation spans]: every binding of a TVM model carries a
 * comment, "/ * ty=T span=S * /", printed back verbatim, and TVM's span=
 * part names the node, so most comments are distinct: interning each
 * one (hash, compare, copy into the arena) cost about 240 instructions
 * a comment.  A loader that scans a copy of the text of its own (Relay's
 * scanner does) gives the graph that copy instead (graph_text_begin), and
 * a node's comment is a pointer into it (graph_set_annotation_span): no
 * hash, no copy, and the node keeps its one pointer (note [node size] in
 * graph.c).  The spans are not NUL-terminated while the scanner still
 * reads the text; when loading is done, graph_text_keep writes a NUL
 * after each span's closing "* /" (the byte that follows a comment is
 * layout, ';', ')' or ',', never read again: the printer reads
 * annotations, the diagnostics the Source) and takes the text, so
 * node_annotation stays a C string for every reader.  It finds each end
 * again with a memchr from the node's pointer: a list of where spans
 * end, 4 bytes a comment, grew at the loader's peak (0.67 MB more at
 * 60,000 op nodes).  A span followed by '/' could be followed by another
 * comment that is a span, whose first byte the NUL would take: such a
 * comment is interned as before (Relay's loader reads that byte in the
 * Source, since flex may keep a NUL there while it scans).  A graph
 * whose loader set no span does not keep the text: its loader frees it
 * as it always did.  Annotations of nodes built by edits are interned
 * (graph_set_annotation); a copy of a node (a partition's body) shares
 * its original's span. */
#include "graph.h"

#include <string.h>

#include "graph_impl.h"
#include "util.h"

void graph_text_begin(graft_graph *g, char *text, size_t len)
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
    if (memcmp(s, "/*", 2) != 0 || memcmp(s + n - 2, "*/", 2) != 0)
        return false;
    return off + n == g->text_len || s[n] != '/';
}

void graph_set_annotation_span(graft_graph *g, graft_node *n, const char *text, size_t len)
{
    if (!span_fits(g, text, len)) {
        n->annot = graph_intern_n(g, text, len);
        return;
    }
    g->nspans++;
    n->annot = text;
}

/* Ends the comment at p, in a text that ends at end, with a NUL after
 * its first "* /" (a comment's end: they do not nest). */
static void end_comment(char *p, const char *end)
{
    char *star = p + 2;
    while ((star = memchr(star, '*', (size_t)(end - star))) && star[1] != '/')
        star++;
    if (star)
        star[2] = '\0';
}

bool graph_text_keep(graft_graph *g)
{
    if (!g->text || g->text_kept)
        return false;
    if (g->nspans == 0) {
        g->text = NULL; /* the loader's to free */
        g->text_len = 0;
        return false;
    }
    for (uint32_t id = 0; id < g->nnodes; id++) {
        const graft_node *n = g->nodes[id];
        size_t off;
        if (n && n->annot && in_text(g, n->annot, &off))
            end_comment(g->text + off, g->text + g->text_len);
    }
    g->text_kept = true;
    graph_own(g, g->text);
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
