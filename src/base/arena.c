/* arena.c - chunked bump allocator and an open-addressing interner. */
#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keymap.h"
#include "util.h"

enum { ARENA_CHUNK = 64 * 1024 };

typedef struct Chunk {
    struct Chunk *next; /* older chunk */
    _Alignas(16) unsigned char data[];
} Chunk;

_Static_assert(ARENA_CHUNK / 4 >= ARENA_BUMP_MAX, "a bump fits in a fresh chunk");

/* Where a new arena's bump points before its first chunk: an allocation
 * of 0 bytes, which fits in no room at all, gets this address, not NULL
 * (memset and memcpy of 0 bytes still want a valid pointer: UBSan
 * stopped fuzz/seeds.sh's fuzz_relay on one). */
static _Alignas(ARENA_ALIGN) unsigned char no_bytes[ARENA_ALIGN];

Arena *arena_new(void)
{
    Arena *arena = xcalloc(1, sizeof(Arena));
    arena->bump = no_bytes;
    return arena;
}

void arena_free(Arena *arena)
{
    if (!arena)
        return;
    Chunk *c = arena->head;
    while (c) {
        Chunk *next = c->next;
        free(c);
        c = next;
    }
    free(arena);
}

void arena_reset(Arena *arena)
{
    Chunk *keep = arena->head;
    /* the current chunk, unless it is a request of its own (then room 0) */
    if (keep && arena->bump + arena->room != keep->data + ARENA_CHUNK)
        keep = NULL;
    for (Chunk *c = arena->head; c;) {
        Chunk *next = c->next;
        if (c != keep)
            free(c);
        c = next;
    }
    arena->head = keep;
    arena->bump = keep ? keep->data : no_bytes;
    arena->room = keep ? ARENA_CHUNK : 0;
    arena->reserved = keep ? sizeof(Chunk) + ARENA_CHUNK : 0;
    if (keep)
        keep->next = NULL;
}

/* A request larger than a quarter chunk gets a chunk of its own, linked
 * behind the current one so the current chunk's free tail is not wasted. */
static void *alloc_big(Arena *arena, size_t size)
{
    Chunk *c = xmalloc(sizeof(Chunk) + size);
    arena->reserved += sizeof(Chunk) + size;
    if (arena->head) {
        c->next = arena->head->next;
        arena->head->next = c;
    } else {
        c->next = NULL;
        arena->head = c;
        arena->room = 0; /* (the next takes a chunk) */
    }
    return c->data; /* (arena_alloc zeroes it; the raw callers write it whole) */
}

void *arena_alloc_slow(Arena *arena, size_t size)
{
    if (size > SIZE_MAX - ARENA_ALIGN)
        out_of_memory();
    size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (size > ARENA_CHUNK / 4)
        return alloc_big(arena, size);
    if (arena->room < size) {
        Chunk *c = xmalloc(sizeof(Chunk) + ARENA_CHUNK);
        c->next = arena->head;
        arena->head = c;
        arena->reserved += sizeof(Chunk) + ARENA_CHUNK;
        arena->bump = c->data;
        arena->room = ARENA_CHUNK;
    }
    void *p = arena->bump;
    arena->bump += size;
    arena->room -= size;
    return p;
}

void *arena_alloc(Arena *arena, size_t size)
{
    return memset(arena_alloc_raw(arena, size), 0, size);
}

void *arena_array(Arena *arena, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        out_of_memory();
    return arena_alloc(arena, count * size);
}

void *arena_dup(Arena *arena, const void *data, size_t size)
{
    void *p = arena_alloc(arena, size);
    if (size)
        memcpy(p, data, size);
    return p;
}

/* Not zeroed first: every byte is written. */
char *arena_strndup(Arena *arena, const char *s, size_t n)
{
    if (n == SIZE_MAX)
        out_of_memory();
    char *p = arena_alloc_raw(arena, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_strdup(Arena *arena, const char *s)
{
    return arena_strndup(arena, s, strlen(s));
}

size_t arena_bytes(const Arena *arena)
{
    return arena->reserved;
}

/* Interned strings carry their length in front so that lookups compare
 * lengths first and strings may hold NUL bytes. */
typedef struct Slot {
    const char *str; /* canonical copy, NULL when empty */
    uint32_t len;    /* 16 bytes a slot: a model's names are most of a
                        table a graph keeps (interner_intern refuses
                        strings of 4 GiB) */
    uint32_t hash;   /* the low half of intern_hash */
} Slot;

struct Interner {
    Arena *arena;  /* owns the string copies */
    Slot *slots;   /* open addressing, power-of-two size */
    size_t nslots;
    size_t count;
};

Interner *interner_new(Arena *arena)
{
    Interner *in = xcalloc(1, sizeof(Interner));
    in->arena = arena;
    in->nslots = 256;
    in->slots = xcalloc(in->nslots, sizeof(Slot));
    return in;
}

Interner *interner_clone(const Interner *from, Arena *arena)
{
    Interner *in = xcalloc(1, sizeof(Interner));
    in->arena = arena;
    in->nslots = from->nslots;
    in->count = from->count;
    in->slots = xcalloc(in->nslots, sizeof(Slot));
    memcpy(in->slots, from->slots, in->nslots * sizeof(Slot));
    return in;
}

void interner_free(Interner *interner)
{
    if (!interner)
        return;
    free(interner->slots);
    free(interner);
}

/* Whether n bytes at a and b are equal: eight at a step, inline (the
 * strings are short, and a hash match is nearly always a string match,
 * so the call to memcmp was most of the comparison). */
static bool same_bytes(const char *a, const char *b, size_t n)
{
    for (; n >= 8; a += 8, b += 8, n -= 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != y)
            return false;
    }
    for (; n; a++, b++, n--)
        if (*a != *b)
            return false;
    return true;
}

/* The slot of s, or the empty one where it goes.  Inline: the ONNX
 * decoder interns every string of a model (note [interned strings] in
 * src/onnx/onnx_decode.h), and the call was a quarter of a probe (0.66 M
 * of bench/onnx_e2e.sh's 8.3 M interning at 2,000 copies). */
static inline size_t probe(const Slot *slots, size_t nslots, const char *s, size_t n,
                    uint32_t h)
{
    size_t mask = nslots - 1;
    size_t i = (size_t)h & mask;
    while (slots[i].str) {
        if (slots[i].hash == h && slots[i].len == n && same_bytes(slots[i].str, s, n))
            return i;
        i = (i + 1) & mask;
    }
    return i;
}

/* Moves the strings into a table of nslots slots. */
static void rehash_to(Interner *in, size_t nslots)
{
    Slot *slots = xcalloc(nslots, sizeof(Slot));
    for (size_t i = 0; i < in->nslots; i++) {
        Slot *old = &in->slots[i];
        if (old->str)
            slots[probe(slots, nslots, old->str, old->len, old->hash)] = *old;
    }
    free(in->slots);
    in->slots = slots;
    in->nslots = nslots;
}

static void rehash(Interner *in)
{
    rehash_to(in, in->nslots * 2);
}

const char *interner_intern(Interner *interner, const char *s, size_t n)
{
    if (n > UINT32_MAX)
        out_of_memory();
    uint32_t h = (uint32_t)hash_bytes(s, n, 0);
    size_t i = probe(interner->slots, interner->nslots, s, n, h);
    if (interner->slots[i].str)
        return interner->slots[i].str;
    if ((interner->count + 1) * 4 > interner->nslots * 3) {
        rehash(interner);
        i = probe(interner->slots, interner->nslots, s, n, h);
    }
    Slot *slot = &interner->slots[i];
    slot->str = arena_strndup(interner->arena, s, n);
    slot->len = (uint32_t)n;
    slot->hash = h;
    interner->count++;
    return slot->str;
}

const char *interner_cstr(Interner *interner, const char *s)
{
    return interner_intern(interner, s, strlen(s));
}

const char *interner_lookup(const Interner *interner, const char *s, size_t n)
{
    if (n > UINT32_MAX)
        return NULL;
    uint32_t h = (uint32_t)hash_bytes(s, n, 0);
    size_t i = probe(interner->slots, interner->nslots, s, n, h);
    return interner->slots[i].str;
}

size_t interner_count(const Interner *interner)
{
    return interner->count;
}

void interner_reserve(Interner *interner, size_t count)
{
    size_t nslots = interner->nslots;
    while (count * 4 > nslots * 3)
        nslots *= 2;
    if (nslots > interner->nslots)
        rehash_to(interner, nslots);
}
