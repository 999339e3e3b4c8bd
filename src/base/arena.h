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
#include <stdint.h>
#include <string.h>

#include "keymap.h" /* hash_bytes, bytes_equal */
#include "util.h"   /* VEC */

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
 * interner_free.
 *
 * note [interner hit inline]: a model's loader interns every name it
 * reads (the ONNX decoder 230,000 at 10,000 copies of bench/graft-bench
 * sidebyside-onnx, the Relay loader 110,000), and most of a name's 130
 * instructions were the call's: saving and restoring the registers the
 * insertion needs, the hash and probe behind a call.  So the lookup is
 * inline, here: the probe from the hash to the string or to an empty
 * slot, and only a string not there yet calls interner_add (arena.c).
 * interner_intern_hashed takes a hash its caller computed as it read the
 * bytes (interner_hash's: the ONNX decoder hashes a name as it looks for
 * a NUL in it).  The fields below are arena.c's but for this lookup. */
typedef struct InternerSlot {
    uint32_t hash; /* the low half of hash_bytes */
    uint32_t ref;  /* where the string is, 0 when empty (note [interner memory]) */
} InternerSlot;

typedef struct Interner {
    Arena *arena;         /* owns the chunks of strings */
    InternerSlot *slots;  /* open addressing, no wrap (note [interner load]) */
    size_t nslots;        /* the slots a hash picks its first from, */
    size_t end;           /* then a tail up to this one, always empty */
    size_t grow_at;       /* the count that makes the table grow */
    size_t count;
    VEC(char *) chunks;   /* the strings' chunks, by index (a clone's
                             first ones are those it was cloned from) */
    VEC(char *) ends;     /* per chunk, the end of its strings, but for
                             the current chunk's: bump (note [prefix walk]) */
    char *bump;           /* the current chunk's bytes not used, */
    size_t room;          /* how many (0: the next string takes a chunk) */
    uint32_t bump_ref;    /* the reference of a string stored at bump */
} Interner;

/* The interned string ref refers to (note [interner memory] in arena.c),
 * and its length, kept in front of it. */
enum { INTERNER_CHUNK_BITS = 16 };
static inline const char *interner_string(const Interner *in, uint32_t ref)
{
    return in->chunks.items[ref >> INTERNER_CHUNK_BITS] +
           (ref & (((uint32_t)1 << INTERNER_CHUNK_BITS) - 1));
}
static inline uint32_t interner_length(const char *s)
{
    uint32_t n;
    memcpy(&n, s - 4, 4);
    return n;
}
/* The counted string whose n bytes are written at at + 4, closed: its
 * length put in front (what interner_length reads) and a NUL after; the
 * string's address.  The one writer of that layout: the interner's
 * copies, arena_strndup_counted's and the partition's names made new
 * (note [names made new] in src/ir/graph_new_names.c). */
static inline const char *counted_string_close(char *at, size_t n)
{
    uint32_t len = (uint32_t)n;
    memcpy(at, &len, 4);
    at[4 + n] = '\0';
    return at + 4;
}

/* A NUL-terminated copy of the n bytes at s in arena, its length kept in
 * front of it as an interned string's (interner_length reads it): a
 * string that is not interned, which a writer asks the length of as it
 * asks an interned one's (note [interned lengths] in
 * src/onnx/onnx_export_pack.c). */
const char *arena_strndup_counted(Arena *arena, const char *s, size_t n);

/* The hash the interner files the n bytes at s under. */
static inline uint32_t interner_hash(const char *s, size_t n)
{
    return (uint32_t)hash_bytes(s, n, 0);
}

/* interner_intern's insertion: s, of hash h, is not interned, and
 * slot is the empty one its probe ended at. */
const char *interner_add(Interner *interner, const char *s, size_t n, uint32_t h, size_t slot);

/* The slot a string of hash h is looked for from: h scaled to the
 * table's first nslots by a multiply and a shift (note [interner load]
 * in arena.c). */
static inline size_t interner_home(const Interner *interner, uint32_t h)
{
    return (size_t)(((uint64_t)h * interner->nslots) >> 32);
}

/* interner_intern of the n bytes at s, whose interner_hash is h: the
 * probe from h to their copy, or to the empty slot where interner_add
 * puts one. */
static inline const char *interner_intern_hashed(Interner *interner, const char *s, size_t n,
                                                 uint32_t h)
{
    for (size_t i = interner_home(interner, h);; i++) {
        InternerSlot slot = interner->slots[i];
        if (!slot.ref)
            return interner_add(interner, s, n, h, i);
        if (slot.hash == h) {
            const char *t = interner_string(interner, slot.ref);
            if (interner_length(t) == n && bytes_equal(t, s, n))
                return t;
        }
    }
}

/* The canonical copy of the n bytes at s. */
static inline const char *interner_intern(Interner *interner, const char *s, size_t n)
{
    return interner_intern_hashed(interner, s, n, interner_hash(s, n));
}

/* Whether some string interned starts with the n bytes at prefix: one
 * walk of the strings, for a caller about to make many names of that
 * prefix that would otherwise look each up (note [names made new] in
 * src/ir/graph_new_names.c; note [prefix walk] in arena.c). */
bool interner_has_prefix(const Interner *interner, const char *prefix, size_t n);

Interner *interner_new(Arena *arena);
/* A copy of from: the strings from holds keep their canonical copies
 * (from's arena must outlive the copy), new ones go to arena.  Two rule
 * sets that start from one parsed op registry share its names this way. */
Interner *interner_clone(const Interner *from, Arena *arena);
void interner_free(Interner *interner);
const char *interner_cstr(Interner *interner, const char *s);
/* The canonical copy if s was interned before, else NULL; never adds. */
const char *interner_lookup(const Interner *interner, const char *s, size_t n);
size_t interner_count(const Interner *interner);
/* Room for count strings in all, so that adding them rehashes nothing. */
void interner_reserve(Interner *interner, size_t count);
/* The table freed, the strings kept: the next interning makes it again
 * (note [interner table dropped] in arena.c). */
void interner_drop_table(Interner *interner);

#endif
