/* util.h - allocation with one out-of-memory policy, small helpers.
 *
 * Every allocation in graft goes through these wrappers or through an
 * Arena (arena.h).  On exhaustion graft prints one line and exits with
 * status 3; no caller checks for NULL.  See note [out of memory].
 */
#ifndef GRAFT_UTIL_H
#define GRAFT_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keymap.h" /* the one hash map, for every user of util.h */

#if defined(__GNUC__)
#define GRAFT_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define GRAFT_NORETURN __attribute__((noreturn))
#else
#define GRAFT_PRINTF(fmt, args)
#define GRAFT_NORETURN
#endif

/* A small function every node or operand goes through, or one body a few
 * callers specialise with constant arguments: inlined even where the
 * compiler would call it (GCC, Clang), since the call, or the tests of
 * arguments that are constant at each caller, cost as much as its work. */
#if defined(__GNUC__)
#define GRAFT_HOT static inline __attribute__((always_inline))
#else
#define GRAFT_HOT static inline
#endif

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* out_of_memory's exit status, which no other error of graft's has */
enum { EXIT_OUT_OF_MEMORY = 3 };
GRAFT_NORETURN void out_of_memory(void);

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *ptr, size_t size);
/* Makes the pages of data[0..size) resident at once when it is large,
 * before a read fills it (note [buffer populated] in pages.c). */
void populate_pages(void *data, size_t size);
/* items (an array of *cap elements of elem_size bytes), grown so that it
 * holds at least need elements: the capacity doubles, overflow-checked.
 * Used as p = xgrow_items(p, &cap, need, sizeof *p), or through VEC. */
void *xgrow_items(void *items, size_t *cap, size_t need, size_t elem_size);
/* The capacity that holds need elements of elem_size bytes: cap doubled
 * (from 8) until it does; out of memory on overflow.  xgrow_items' rule,
 * for a caller that keeps its capacity by value (note [one walk]). */
size_t grow_capacity(size_t cap, size_t need, size_t elem_size);

/* note [one growable array]: a typed growable array, VEC(graft_node *) list =
 * {0}; vec_push(&list, n); ... list.items[i] ... vec_free(&list).  Pointers
 * into items hold until the next push.  A walk's stack is a WALK (note
 * [one walk] in walk.h).  Every list that owns its capacity is a VEC but
 * for these calls of xgrow_items (exceptions: 49, counted by
 * tests/one_notes.sh), each with its reason:
 *   - 15 maps by index: grown to cover an id, a state or a depth, filled
 *     where the index lands, no length (graph.c's pos, the Relay loader's
 *     temps and literal_values, the automaton's acc_off and
 *     bits, the labeller's offers, the engine's dirty and mark,
 *     match_roots.c's and match_ways.c's marks, the
 *     verifier's and prover's values by id, runner_verify.c's values,
 *     the ONNX import's origins);
 *   - 14 scratch buffers: a capacity refilled whole for each use, no
 *     length (the loader's scratch nodes and attributes, the automaton's
 *     memo key, the labeller's operands and args, rewrite.c's candidates,
 *     the matcher's bindings, pairs' copy, roots and check slots,
 *     partition_region.c's args; the engine's order is sized exactly,
 *     note [order size] in src/runtime/engine.c, and so are the graph's
 *     node table, note [node table] in src/ir/graph.c, rewrite.c's
 *     forwarding map, note [forwarding map] in src/runtime/rewrite.c,
 *     and the labeller's state, note [state size] in
 *     src/runtime/automaton_label.c);
 *   - 9 arrays of structs that the rest of the tree reads by int count,
 *     or that are public: the graph's params, typedefs and globals, the
 *     rule file's sources, rules and files, and graft_attr_list
 *     (include/graft/graft_rules.h), whose layout is API;
 *   - 6 arrays under one capacity (the grouper's claims, its marks
 *     following by xrealloc, eval_meta.c's kids, keys and lengths, the checker's variables with
 *     their facts and counts, the labeller's classes with their symbols);
 *   - 4 arrays a helper grows for its caller, who holds the pointer and
 *     count (the guard logic's excluded values, a tensor type's dims,
 *     emit_c_tests.c's numbers, the labeller's sorted tests);
 *   - 1 StrBuf whose bytes fread fills in place (diag.c). */
#define VEC(T)         \
    struct {           \
        T *items;      \
        size_t len;    \
        size_t cap;    \
    }
/* the capacity test inline: a push that fits (most) makes no call */
#define vec_reserve(v, need)                                                        \
    ((need) > (v)->cap ? (void)((v)->items = xgrow_items((v)->items, &(v)->cap, (need), \
                                                         sizeof *(v)->items))           \
                       : (void)0)
#define vec_push(v, x) (vec_reserve((v), (v)->len + 1), (v)->items[(v)->len++] = (x))
#define vec_pop(v) ((v)->items[--(v)->len])
#define vec_free(v) (free((v)->items), (v)->items = NULL, (v)->len = (v)->cap = 0)

char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* A growable byte buffer for building text. */
typedef struct StrBuf {
    char *data;   /* NUL-terminated once anything was appended */
    size_t len;   /* bytes used, without the NUL */
    size_t cap;   /* bytes allocated */
} StrBuf;

void strbuf_append(StrBuf *sb, const char *s, size_t n);
/* Room for n more bytes and the NUL, inline: for writers that store bytes
 * themselves where a call per append would cost more than the bytes. */
static inline void strbuf_room(StrBuf *sb, size_t n)
{
    if (sb->cap - sb->len <= n)
        sb->data = xgrow_items(sb->data, &sb->cap, sb->len + n + 1, 1);
}
void strbuf_puts(StrBuf *sb, const char *s);
void strbuf_putc(StrBuf *sb, char c);
void strbuf_printf(StrBuf *sb, const char *fmt, ...) GRAFT_PRINTF(2, 3);
/* The same with ap: a function taking a format appends it whole (no
 * buffer of a fixed size, which cut a long message). */
void strbuf_vprintf(StrBuf *sb, const char *fmt, va_list ap) GRAFT_PRINTF(2, 0);
void strbuf_free(StrBuf *sb);

/* note [one sort]: sorts a[0..n) stably, x before y when before(ctx, x, y)
 * (before NULL: ascending values).  An insertion sort: graft sorts short
 * arrays of ids (the rules at a node, a pattern's tests, rules by
 * priority), where it beats a general sort.  Two sorts of other things
 * call qsort (exceptions: 2, counted by tests/one_notes.sh): the verifier's
 * values for a median (verify_build_leaf.c) and explain's near misses by
 * distance (engine_explain_near.c), arrays of doubles and of records. */
void sort_u32(uint32_t *a, size_t n, bool (*before)(const void *ctx, uint32_t x, uint32_t y),
              const void *ctx);

/* Levenshtein distance between a and b, for "did you mean" hints; gives up
 * (returns limit + 1) once it exceeds limit, and for b over 255 bytes. */
size_t edit_distance(const char *a, const char *b, size_t limit);

#endif
