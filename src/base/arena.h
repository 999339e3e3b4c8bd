/* arena.h - bump allocation by lifetime, and string interning.
 *
 * note [arenas]: graft frees memory by lifetime, not by object: one arena
 * for a rule compilation (tokens, AST, symbols), one for an automaton, one
 * per loaded graph.  Nothing allocated from an arena is freed on its own;
 * arena_free releases all of it at once.
 */
#ifndef GRAFT_ARENA_H
#define GRAFT_ARENA_H

#include <stddef.h>

/* note [arena bump]: a model read from a file is some 100,000 small
 * allocations (its messages, strings, spans: bench/onnx_e2e.sh at 2,000
 * copies), and the calls to the allocator, 30 instructions, were most of
 * each.  So the arena's free bytes are here, and an allocation that fits
 * (a size up to ARENA_BUMP_MAX, room in the current chunk) is a bump of
 * a pointer inline; anything else (a new chunk, a large request) is
 * arena_alloc_slow's, in arena.c (2.5 M instructions fewer on that run,
 * a large request no longer zeroed twice).  Only arena.c and
 * arena_alloc_raw touch the fields. */
enum { ARENA_ALIGN = 16, ARENA_BUMP_MAX = 1024 };
typedef struct Arena {
    unsigned char *bump;  /* the current chunk's bytes not handed out, */
    size_t room;          /* how many */
    struct Chunk *head;   /* the current chunk, then the older ones */
    size_t reserved;      /* total bytes malloc'd for chunks */
} Arena;

/* arena_alloc_raw's slow path: a new chunk, or a request of its own. */
void *arena_alloc_slow(Arena *arena, size_t size);

/* size bytes, aligned as arena_alloc's, not zeroed: for a caller that
 * writes every byte (a struct it initialises whole), so that they are not
 * written twice. */
static inline void *arena_alloc_raw(Arena *arena, size_t size)
{
    size_t rounded = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (size > ARENA_BUMP_MAX || rounded > arena->room)
        return arena_alloc_slow(arena, size);
    void *p = arena->bump;
    arena->bump += rounded;
    arena->room -= rounded;
    return p;
}

Arena *arena_new(void);
void arena_free(Arena *arena);
/* Everything allocated from arena released at once, its current chunk
 * kept for what comes next: a scratch arena used again for each of many
 * short-lived things (note [lean read] in src/onnx/onnx_lean.h). */
void arena_reset(Arena *arena);
/* size bytes, zeroed, aligned for any object (16 bytes). */
void *arena_alloc(Arena *arena, size_t size);
/* count * size bytes, zeroed; overflow-checked. */
void *arena_array(Arena *arena, size_t count, size_t size);
void *arena_dup(Arena *arena, const void *data, size_t size);
/* A NUL-terminated copy of the n bytes at s. */
char *arena_strndup(Arena *arena, const char *s, size_t n);
char *arena_strdup(Arena *arena, const char *s);
/* Bytes reserved from the system so far (for statistics). */
size_t arena_bytes(const Arena *arena);

/* An interner hands out one canonical copy of each distinct byte string,
 * so interned strings compare equal exactly when their pointers do.  The
 * copies live in the arena given at creation; the table itself is freed by
 * interner_free. */
typedef struct Interner Interner;

Interner *interner_new(Arena *arena);
/* A copy of from: the strings from holds keep their canonical copies
 * (from's arena must outlive the copy), new ones go to arena.  Two rule
 * sets that start from one parsed op registry share its names this way. */
Interner *interner_clone(const Interner *from, Arena *arena);
void interner_free(Interner *interner);
const char *interner_intern(Interner *interner, const char *s, size_t n);
const char *interner_cstr(Interner *interner, const char *s);
/* The canonical copy if s was interned before, else NULL; never adds. */
const char *interner_lookup(const Interner *interner, const char *s, size_t n);
size_t interner_count(const Interner *interner);
/* Room for count strings in all, so that adding them rehashes nothing. */
void interner_reserve(Interner *interner, size_t count);

#endif
