/* graph_text.c - annotation comments kept as spans of the model's text.
 *
 * note [annotation spans]: every binding of a TVM model carries a
 * comment, "/ * ty=T span=S * /", printed back verbatim, and TVM's span=
 * part names the node, so most comments are distinct: interning each
 * one (hash, compare, copy into the arena) cost about 240 instructions
 * a comment.  A loader that scans text gives the graph that text
 * (graph_text_begin), and while it loads, a node's comment is a pointer
 * into it (graph_set_annotation_span): no hash, no copy, and the node's
 * entry of the annotation table (note [annotation table] in
 * graph_node.h) is its one pointer.  The text is never written: it may
 * be the Source itself, which diagnostics read (note [relay lexer] in
 * grammar/relay_lex.l).  When loading is done, graph_text_keep copies
 * the spans, each followed by a NUL, into one buffer of the graph's, in
 * the order of the nodes, and points the table's entries there, so
 * node_annotation is a C string for every reader and the graph keeps
 * only its comments' bytes, not the whole text (about half of a
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

/* n's entry of the annotation table set to text.  The table is
 * allocated when the first annotation is set, and grown, to the node
 * table's capacity exactly (sized to what the loader and the passes
 * make: note [node table] in graph.c); its entries are zeroed only up to
 * the last id annotated (t->cap, what readers see), as ids are
 * annotated: a loader's node table is an estimate well above what it
 * makes, and zeroing all of it cost densenet121's fmt 97,000
 * instructions of memset, 1.3% of its run. */
static inline void put_annotation(graft_graph *g, const graft_node *n, const char *text)
{
    struct GraphAnnots *t = &g->side.annots;
    if (n->id >= t->cap) {
        if (!text)
            return; /* ids past the table have none already */
        if (n->id >= g->annots_alloc) { /* nodes_cap > n->id: n is in the node table */
            t->by_id = xrealloc(t->by_id, g->nodes_cap * sizeof *t->by_id);
            g->annots_alloc = g->nodes_cap;
        }
        if (n->id > t->cap) /* a loader annotates in id order: seldom */
            memset(t->by_id + t->cap, 0, (n->id - t->cap) * sizeof *t->by_id);
        t->cap = (size_t)n->id + 1;
    }
    t->by_id[n->id] = text;
}

void graph_set_annotation_span(graft_graph *g, graft_node *n, const char *text, size_t len)
{
    if (!span_fits(g, text, len)) {
        put_annotation(g, n, graph_intern_n(g, text, len));
        return;
    }
    g->span_bytes += len + 1;
    put_annotation(g, n, text);
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
    const char **annot = g->side.annots.by_id;
    char *to = kept;
    for (size_t id = 0; id < g->side.annots.cap; id++) {
        size_t off;
        if (!annot[id] || !in_text(g, annot[id], &off))
            continue;
        size_t len = comment_len(annot[id], end);
        memcpy(to, annot[id], len);
        to[len] = '\0';
        annot[id] = to;
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
        put_annotation(g, n, text);
    else
        put_annotation(g, n, text ? graph_intern(g, text) : NULL);
}
