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

/* The list of the batch's variables sized to its count exactly, not
 * to the power of two above it as a growing array is: the caller knows
 * the count ahead (a partition's parameters, at most), and the list lives
 * to the run's end (50,000 ids on the workload took 262,144 bytes, 62,144
 * of them never written). */
static void ids_reserve_exact(NewNames *nn, size_t count)
{
    if (count <= nn->ids.cap)
        return;
    if (count > SIZE_MAX / sizeof *nn->ids.items)
        out_of_memory();
    nn->ids.items = xrealloc(nn->ids.items, count * sizeof *nn->ids.items);
    nn->ids.cap = count;
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
    ids_reserve_exact(nn, count);
}

/* Room for names made new of at most n bytes in all, each laid out as
 * an interned string (note [names made new]): its length in front, its
 * bytes and a NUL; from a chunk of the graph's arena. */
static char *new_names_room(graft_graph *g, size_t n)
{
    enum { NEW_NAMES_CHUNK = 4096 };
    NewNames *nn = &g->new_names;
    if (n > nn->room) {
        size_t size = n > NEW_NAMES_CHUNK ? n : NEW_NAMES_CHUNK;
        nn->bump = arena_alloc_raw(g->arena, size);
        nn->room = size;
    }
    return nn->bump;
}

/* note [stems copied whole]: a stem of at most STEM_COPY bytes (every
 * partition's: FunctionVar_, a uint32_t's digits and '_' are 23) is
 * copied into each name as STEM_COPY bytes from a padded copy, which the
 * compiler makes two stores, where a copy of the stem's own length is a
 * call of memcpy, 15 instructions a name; the bytes past the stem are
 * written over by the name's digits and NUL, and the next name's length
 * and bytes, or are past the names, in room name_params asks for. */
enum { STEM_COPY = 32 };

/* Names vars[k] stem followed by k in decimal, each laid out as an
 * interned string in the room, not interned, and types it as like[k] is
 * (like NULL: untyped); the longest name's length. */
static size_t name_params(graft_graph *g, const char *stem, size_t stem_len, uint32_t count,
                          graft_node *const *like, graft_node *const *vars)
{
    NewNames *nn = &g->new_names;
    char padded[STEM_COPY] = {0}; /* (note [stems copied whole]) */
    bool short_stem = stem_len <= STEM_COPY;
    if (short_stem)
        memcpy(padded, stem, stem_len);
    /* (a uint32_t's 10 digits, the length in front and the NUL after) */
    char *at = new_names_room(g, (size_t)count * (4 + stem_len + 10 + 1) + STEM_COPY);
    char *start = at;
    size_t n = 0;
    for (uint32_t k = 0; k < count; k++) {
        char *s = at + 4;
        if (short_stem)
            memcpy(s, padded, STEM_COPY);
        else
            memcpy(s, stem, stem_len);
        n = stem_len + (k < 10 ? (s[stem_len] = (char)('0' + k), 1) /* (most) */
                               : write_u32(s + stem_len, k));
        vars[k]->str = counted_string_close(at, n);
        vars[k]->type = like ? like[k]->type : NULL;
        at = s + n + 1;
    }
    nn->bump = at;
    nn->room -= (size_t)(at - start);
    return n;
}

/* Each of the n variables vars made new takes its name's interned copy
 * when there is one (interner_lookup), or is listed (note [names made
 * new]). */
static void take_interned_or_list(graft_graph *g, graft_node *const *vars, uint32_t n)
{
    NewNames *nn = &g->new_names;
    for (uint32_t k = 0; k < n; k++) {
        const char *s = vars[k]->str;
        const char *interned = interner_lookup(g->strings, s, interner_length(s));
        if (interned)
            vars[k]->str = interned;
        else
            vec_push(&nn->ids, vars[k]->id);
    }
}

void graph_add_fn_params_like(graft_graph *g, const char *stem, size_t stem_len, uint32_t count,
                              graft_node *const *like, graft_node **params)
{
    NewNames *nn = &g->new_names;
    graph_new_vars(g, count, params);
    size_t longest = name_params(g, stem, stem_len, count, like, params);
    if (!count)
        return;
    if (stem_len < nn->prefix_len || !bytes_equal(stem, nn->prefix, nn->prefix_len)) {
        for (uint32_t k = 0; k < count; k++) /* not of the batch: interned now */
            params[k]->str = graph_intern_n(g, params[k]->str, interner_length(params[k]->str));
        return;
    }
    if (nn->prefix_unused) { /* (the common case) */
        vec_reserve(&nn->ids, nn->ids.len + count);
        uint32_t *ids = nn->ids.items + nn->ids.len;
        for (uint32_t k = 0; k < count; k++)
            ids[k] = params[k]->id;
        nn->ids.len += count;
    } else {
        take_interned_or_list(g, params, count);
    }
    size_t shortest = stem_len + 1; /* (the name of 0) */
    nn->min_len = shortest < nn->min_len ? shortest : nn->min_len;
    nn->max_len = longest > nn->max_len ? longest : nn->max_len;
}

void graph_add_fn_params_new(graft_graph *g, const char *stem, size_t stem_len, uint32_t count,
                             graft_node **params)
{
    graph_add_fn_params_like(g, stem, stem_len, count, NULL, params);
}
