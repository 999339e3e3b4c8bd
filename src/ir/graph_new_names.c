/* graph_new_names.c - the partition's parameter names made new: kept
 * beside the interner and interned only when something may ask for one
 * (note [names made new]). */
#include <stdint.h>
#include <string.h>

#include "graph_impl.h"
#include "keymap.h"
#include "outbuf.h"
#include "util.h"

/* note [names made new]: the partition names each group's parameters
 * FunctionVar_<group>_<k>, 50,000 names at 10,000 side-by-side batch
 * norms, which nothing else spells; interning them (hash, probe, copy,
 * and the interner's table grown to hold them: about 220 instructions a
 * name) was the largest part of applying a group.  So a pass names them
 * as new: each is copied beside the interner, laid out as the interner
 * lays out a string (its length in front, which interner_length reads,
 * and a NUL after), and its variable is listed; the name is interned
 * only when something may ask the interner for it.  Equal names stay one
 * pointer (graph.h):
 *   - a batch's names are distinct (graph_begin_new_names' caller's
 *     promise), and none is interned when made: the batch begins with one
 *     walk of the interner's table for a string of its prefix
 *     (interner_has_prefix); when there is one (a model that spells a
 *     FunctionVar_N_k), or one is interned later, each name is looked up
 *     (interner_lookup) and an interned one taken;
 *   - a batch interns the last one's names first;
 *   - graph_intern and graph_intern_n intern the listed names before they
 *     look up a string that could be one of them (of the prefix, and as
 *     long as one), so no string equal to a listed name is ever added
 *     beside it.
 * Interning them points each listed variable at its interned copy: the
 * variable holds the name, nothing else keeps the pointer (the
 * partition's parameters are new nodes).  The ONNX exporter's own
 * look-ups ask for names of another prefix ("graft_"), and its
 * "FunctionVar_<k>" are shorter than any FunctionVar_<group>_<k>: on the
 * workload a partition's names are never interned (bench/RESULTS.md,
 * session 26). */

/* Interns the listed names made new, each variable pointed at its
 * interned copy (a variable renamed since is interned already: its
 * interning changes nothing). */
void graph_intern_new_names(graft_graph *g)
{
    NewNames *nn = &g->new_names;
    for (size_t i = 0; i < nn->ids.len; i++) {
        graft_node *v = g->nodes[nn->ids.items[i]];
        v->str = interner_intern(g->strings, v->str, interner_length(v->str));
    }
    nn->ids.len = 0;
}

void graph_begin_new_names(graft_graph *g, const char *prefix, size_t count)
{
    graph_intern_new_names(g);
    NewNames *nn = &g->new_names;
    nn->prefix = prefix;
    nn->prefix_len = strlen(prefix);
    nn->min_len = SIZE_MAX;
    nn->max_len = 0;
    nn->prefix_unused = !interner_has_prefix(g->strings, prefix, nn->prefix_len);
    vec_reserve(&nn->ids, count);
}

/* Room for a name of at most n bytes made new, laid out as an interned
 * string (note [names made new]): the name's bytes and NUL the caller's
 * to write, its length in front keep_new_name's; from a chunk of the
 * graph's arena. */
static char *new_name_room(graft_graph *g, size_t n)
{
    enum { NEW_NAMES_CHUNK = 4096 };
    NewNames *nn = &g->new_names;
    size_t need = 4 + n + 1;
    if (need > nn->room) {
        size_t size = need > NEW_NAMES_CHUNK ? need : NEW_NAMES_CHUNK;
        nn->bump = arena_alloc_raw(g->arena, size);
        nn->room = size;
    }
    return nn->bump + 4;
}

/* The name of n bytes written at new_name_room's answer kept. */
static const char *keep_new_name(NewNames *nn, size_t n)
{
    const char *s = counted_string_close(nn->bump, n);
    nn->bump += 4 + n + 1;
    nn->room -= 4 + n + 1;
    return s;
}

/* A parameter of graph_add_fn_params_new, its name's n bytes written at
 * s: its interned copy when there may be one, else s, kept and listed. */
static graft_node *param_named_new(graft_graph *g, const char *s, size_t n)
{
    NewNames *nn = &g->new_names;
    const char *interned = nn->prefix_unused ? NULL : interner_lookup(g->strings, s, n);
    if (interned)
        return graph_add_fn_param_interned(g, interned, NULL);
    graft_node *v = graph_add_fn_param_interned(g, keep_new_name(nn, n), NULL);
    vec_push(&nn->ids, v->id);
    return v;
}

void graph_add_fn_params_new(graft_graph *g, const char *stem, size_t stem_len, uint32_t count,
                             graft_node **params)
{
    NewNames *nn = &g->new_names;
    bool of_batch = stem_len >= nn->prefix_len && bytes_equal(stem, nn->prefix, nn->prefix_len);
    size_t shortest = SIZE_MAX, longest = 0;
    for (uint32_t k = 0; k < count; k++) {
        char *s = new_name_room(g, stem_len + 10); /* (a uint32_t's 10 digits) */
        memcpy(s, stem, stem_len);
        size_t n = stem_len + (k < 10 ? (s[stem_len] = (char)('0' + k), 1) /* (most) */
                                      : write_u32(s + stem_len, k));
        if (!of_batch) { /* interned now */
            params[k] = graph_add_fn_param_interned(g, graph_intern_n(g, s, n), NULL);
            continue;
        }
        params[k] = param_named_new(g, s, n);
        shortest = n < shortest ? n : shortest;
        longest = n;
    }
    nn->min_len = shortest < nn->min_len ? shortest : nn->min_len;
    nn->max_len = longest > nn->max_len ? longest : nn->max_len;
}
