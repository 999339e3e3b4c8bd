/* walk.h - the one explicit-stack walk: depth first, iterative, typed.
 *
 * note [one walk]: graft walks graphs of millions of nodes (a chain of a
 * million operators is a million levels deep) and patterns whose paths
 * are exponentially many, so no walk over a graph recurses, nor any walk
 * of a pattern that a model can make deep.  (Functions over rule trees,
 * whose depth the front end's rule-depth limit bounds (doc/limits.md), may
 * recurse: the checker's, lowering's, the emitter's and explain's tree
 * printers do.)  Each keeps what it still
 * has to look at in a WALK(T): a stack of frames, each a node (any type
 * T: a graft_node *, a graft_pat *, a node id) and a cursor over its children.
 * Two shapes of loop cover every walk:
 *
 * Pre-order, each node looked at as it is popped (its children after it,
 * the last pushed first; the cursor is unused):
 *
 *     WALK(graft_node *) w = {0};
 *     walk_push(&w, root);
 *     while (w.depth) {
 *         graft_node *n = walk_pop(&w);
 *         if (seen(n)) continue;
 *         ...
 *         walk_reserve(&w, nargs);              one check for all children
 *         for (int i = 0; i < nargs; i++)
 *             walk_push_reserved(&w, arg(n, i));
 *     }
 *     walk_free(&w);
 *
 * Post-order, each node after all of its children, left to right (the
 * cursor counts the children looked at):
 *
 *     walk_push(&w, root);
 *     while (w.depth) {
 *         graft_node *n = walk_top(&w);
 *         uint32_t i = walk_next(&w);          the cursor, then one on
 *         if (i < nargs(n)) {
 *             if (!seen(arg(n, i))) walk_push(&w, arg(n, i));
 *             continue;
 *         }
 *         (void)walk_pop(&w);
 *         ... n's children are done ...
 *     }
 *
 * Where every node's children sit in one flat array (a CSR layout),
 * walk_push_from starts the cursor at the node's first, so
 * the cursor is the index of its next child there.  A walk that runs
 * inside another (a printer's function body inside the module) may share
 * its stack: it remembers the depth it started at and stops when the
 * stack is back there.  A WALK kept between walks (a pass's scratch)
 * keeps its frames allocated; walk_clear empties it.  One passed between
 * functions is named once (typedef WALK(OccItem) OccStack).  Pointers
 * into frames hold until the next push. */
#ifndef GRAFT_WALK_H
#define GRAFT_WALK_H

#include <stdint.h>
#include <stdlib.h>

#include "util.h"

#define WALK(T)              \
    struct {                 \
        struct {             \
            T node;          \
            uint32_t next;   \
        } *frames;           \
        size_t depth;        \
        size_t cap;          \
    }

/* Room for n more frames: one capacity check before pushing a node's
 * children with walk_push_reserved.  The capacity is computed apart and
 * assigned, so a WALK's address never leaves the function that walks:
 * the compiler keeps its depth in a register (bench/RESULTS.md, "one
 * walk"). */
#define walk_reserve(w, n)                                                      \
    ((w)->depth + (n) <= (w)->cap                                               \
         ? (void)0                                                              \
         : (void)((w)->cap = grow_capacity((w)->cap, (w)->depth + (n),          \
                                           sizeof *(w)->frames),                \
                  (w)->frames = xrealloc((w)->frames, (w)->cap * sizeof *(w)->frames)))
/* Enters x: a frame on top, its cursor at the first child (0, or where
 * x's children start in a flat array of every node's children). */
#define walk_push_from(w, x, first) \
    ((w)->frames[(w)->depth].next = (first), (void)((w)->frames[(w)->depth++].node = (x)))
#define walk_push_reserved(w, x) walk_push_from((w), (x), 0)
#define walk_push(w, x) (walk_reserve((w), 1), walk_push_reserved((w), (x)))
/* The top frame's node. */
#define walk_top(w) ((w)->frames[(w)->depth - 1].node)
/* The top frame's cursor, then advanced: the index of its next child. */
#define walk_next(w) ((w)->frames[(w)->depth - 1].next++)
/* Leaves the top frame; its node. */
#define walk_pop(w) ((w)->frames[--(w)->depth].node)
#define walk_clear(w) ((void)((w)->depth = 0))
#define walk_free(w) (free((w)->frames), (w)->frames = NULL, (w)->depth = (w)->cap = 0)

#endif
