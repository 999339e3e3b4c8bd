/* graph_text.c - annotation comments kept as spans of the model's text.
 *
 * note [annotation spans]: every binding of a TVM model carries a
 * comment, "/ * ty=T span=S * /", printed back verbatim, and TVM's span=
 * part names the node, so most comments are distinct: interning each
 * one (hash, compare, copy into the arena) cost about 240 instructions
 * a comment and kept a second copy of most of the text.  A loader that
 * scans a copy of the text of its own (Relay's scanner does) gives the
 * graph that copy instead (graph_text_begin), and each node's comment is
 * a pointer into it (graph_set_annotation_span): no hash, no copy, and
 * the node keeps its one pointer (note [node size] in graph.c).  The
 * spans are not NUL-terminated while the scanner still reads the text;
 * when loading is done, graph_text_keep writes a NUL after each span's
 * closing "* /" (the byte that follows a comment is layout, ';', ')' or
 * ',', never read again: the printer reads annotations, the diagnostics
 * the Source) and takes the text, so node_annotation stays a C string
 * for every reader.  A span followed by '/' could be followed by another
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

/* Whether the n bytes at s are a comment of g's text that may be kept
 * as a span (note [annotation spans]). */
static bool span_fits(const graft_graph *g, const char *s, size_t n)
{
    if (!g->text || g->text_kept || s < g->text || n < 4 ||
        n > g->text_len - (size_t)(s - g->text))
        return false;
    if (memcmp(s, "/*", 2) != 0 || memcmp(s + n - 2, "*/", 2) != 0)
        return false;
    return s + n == g->text + g->text_len || s[n] != '/';
}

void graph_set_annotation_span(graft_graph *g, graft_node *n, const char *text, size_t len)
{
    if (!span_fits(g, text, len) || len > UINT32_MAX ||
        (size_t)(text - g->text) > UINT32_MAX - len) {
        n->annot = graph_intern_n(g, text, len);
        return;
    }
    vec_push(&g->span_ends, (uint32_t)(text - g->text + len));
    n->annot = text;
}

bool graph_text_keep(graft_graph *g)
{
    if (!g->text || g->text_kept)
        return false;
    if (g->span_ends.len == 0) {
        g->text = NULL; /* the loader's to free */
        g->text_len = 0;
        return false;
    }
    for (size_t i = 0; i < g->span_ends.len; i++)
        g->text[g->span_ends.items[i]] = '\0';
    vec_free(&g->span_ends);
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
    if (text && g->text_kept && text >= g->text && text < g->text + g->text_len)
        n->annot = text;
    else
        n->annot = text ? graph_intern(g, text) : NULL;
}
