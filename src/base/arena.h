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

typedef struct Arena Arena;

Arena *arena_new(void);
void arena_free(Arena *arena);
/* size bytes, zeroed, aligned for any object (16 bytes). */
void *arena_alloc(Arena *arena, size_t size);
/* size bytes, aligned as arena_alloc's, not zeroed: for a caller that
 * writes every byte (a struct it initialises whole), so that they are not
 * written twice. */
void *arena_alloc_raw(Arena *arena, size_t size);
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
