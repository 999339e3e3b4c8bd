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

const char *arena_strndup_counted(Arena *arena, const char *s, size_t n)
{
    if (n > UINT32_MAX)
        out_of_memory();
    char *p = arena_alloc_raw(arena, 4 + n + 1);
    memcpy(p + 4, s, n);
    return counted_string_close(p, n);
}

char *arena_strdup(Arena *arena, const char *s)
{
    return arena_strndup(arena, s, strlen(s));
}

size_t arena_bytes(const Arena *arena)
{
    return arena->reserved;
}

/* note [interner memory]: a graph's interner holds every name of the
 * model, and its table and strings live as long as the graph, through
 * the passes and the printing (at 10,000 copies of bench/graft-bench
 * sidebyside, 100,000 strings: a table of 4 MB and 2.5 MB of strings,
 * a seventh of the process's peak).  So a slot is 8 bytes, the string's
 * hash and a 32-bit reference to it, not 16 with a pointer; and the
 * strings are packed one after another, each its length (4 bytes) and
 * its bytes and NUL, in chunks of the interner's own taken from the
 * arena (1 KB first, doubling to 64 KB: a small interner stays small),
 * not each rounded up to the arena's 16 bytes.  A reference is the
 * chunk's index << 16 + the string's offset in it, past its length (a
 * string longer than a quarter chunk takes a chunk of its own, at offset
 * 4), so never 0, an empty slot's.  A hash match is nearly always a
 * string match, so reading the length from the string costs no more than
 * reading it from the slot.  The lookup is arena.h's (note [interner hit
 * inline]). */
enum { STRING_CHUNK_MAX = 1 << INTERNER_CHUNK_BITS, STRING_CHUNK_MIN = 1024 };

/* note [prefix walk]: the partition asks whether the model spells a name
 * of the prefix its parameters' names take (note [names made new] in
 * src/ir/graph_new_names.c), and a walk of the table read each of its
 * slots, empty or not, and went from each string's reference to its
 * chunk: 2.45 M instructions on bench/workload.sh's ONNX partition (41
 * an op node), 1.19 M on the Relay one.  The strings lie packed in their
 * chunks (note [interner memory]), so the walk reads them there, one
 * after another; a chunk's strings end where the next string would have
 * gone when the interner took its next chunk, which add_chunk keeps
 * (Interner.ends), and the current chunk's at bump.  A clone keeps the
 * ends its source's chunks had when cloned: the strings its source adds
 * later, to a chunk they share, are not the clone's. */

/* Where the strings of chunk c end. */
static const char *chunk_end(const Interner *in, size_t c)
{
    return c + 1 == in->chunks.len && in->bump ? in->bump : in->ends.items[c];
}

bool interner_has_prefix(const Interner *interner, const char *prefix, size_t n)
{
    for (size_t c = 0; c < interner->chunks.len; c++) {
        const char *end = chunk_end(interner, c);
        uint32_t len;
        for (const char *at = interner->chunks.items[c]; at < end; at += 4 + len + 1) {
            len = interner_length(at + 4);
            if (len >= n && bytes_equal(at + 4, prefix, n))
                return true;
        }
    }
    return false;
}

/* note [interner load]: a table holds its strings, at 8 bytes a slot,
 * through the passes and the printing, so it is sized to its count, not
 * to a power of two: a graph's loader reserves its names (note [names
 * reserved by count] in src/relay/relay_load_params.c), 500,010 at
 * 100,000 copies of bench/graft-bench sidebyside, which a power of two
 * held in 1,048,576 slots, 48% full (8 MB, 14 bytes an op node of the
 * partition's peak), and 636,000 hold now.  A string's first slot is its
 * hash scaled to the table's nslots (interner_home, a multiply and a
 * shift, where a mask was an and), and its probe goes up from there with
 * no wrap (an add, where it was an add and an and): past the nslots a
 * tail, which no hash picks first, takes the probes that run off their
 * end, and its last slot stays empty, so that every probe ends.  A
 * string that would fill it grows the table instead (at four fifths
 * full, the run of filled slots from a home slot exceeds k with a
 * chance of about e^(-k/43): a tail of 1,024 is never reached in
 * practice, while a small table's, an eighth of it, now and then is,
 * and growing it early costs little).  The table grows past four fifths
 * full, not three quarters (the partition's interning read 1.0 M
 * instructions more for probes, and saved the table's growth, 3.4 M:
 * bench/RESULTS.md, "Session 26: the dead nodes' blocks and the positions
 * freed before printing"), and grows by doubling; a reservation that
 * grows it adds a sixty-fourth and 64 for the few names interned after
 * it (an op's name, a rule's), and one the table holds already changes
 * nothing (the partition's, for names it may not intern: note [names
 * made new] in src/ir/graph_new_names.c). */

/* The largest count a table of nslots holds, four fifths of it. */
static size_t load_limit(size_t nslots)
{
    return nslots / 5 * 4 + nslots % 5 * 4 / 5;
}

/* The slots past nslots a probe may run into, the last one kept empty. */
static size_t tail_slots(size_t nslots)
{
    return (nslots / 8 < 1024 ? nslots / 8 : 1024) + 1;
}

/* Files the strings of slots (its first n) in the table, all distinct:
 * each goes to the first empty slot from its home; false if one would
 * take the last slot. */
static bool file_all(Interner *in, const InternerSlot *slots, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        InternerSlot old = slots[i];
        if (!old.ref)
            continue;
        size_t at = interner_home(in, old.hash);
        while (in->slots[at].ref)
            at++;
        if (at == in->end)
            return false;
        in->slots[at] = old;
    }
    return true;
}

/* An empty table of nslots slots and its tail. */
static void table_make(Interner *in, size_t nslots)
{
    in->nslots = nslots;
    in->end = nslots + tail_slots(nslots) - 1;
    in->grow_at = load_limit(nslots);
    in->slots = xcalloc(in->end + 1, sizeof(InternerSlot));
}

/* A table of at least nslots slots for the strings of slots (its first
 * n), doubled until every string fits before the last. */
static void table_fill(Interner *in, size_t nslots, const InternerSlot *slots, size_t n)
{
    for (table_make(in, nslots); !file_all(in, slots, n); table_make(in, in->nslots * 2))
        free(in->slots);
}

/* Moves the strings into a table of at least nslots slots. */
static void rehash_to(Interner *in, size_t nslots)
{
    InternerSlot *old = in->slots;
    table_fill(in, nslots, old, in->end + 1);
    free(old);
}

/* The slots for count strings and the slack of note [interner load]. */
static size_t slots_for(size_t count)
{
    count += count / 64 + 64;
    return count / 4 * 5 + count % 4 * 5 / 4 + 1;
}

/* note [interner table dropped]: the interner's table serves interning
 * and lookups, and a graph's printer does neither: it prints interned
 * strings and reads their lengths, which lie with the strings.  So a run
 * that prints Relay frees the table first (graph_drop_name_table, note
 * [scopes dropped before printing] in src/ir/graph_walk.c): 516,664
 * bytes of the workload's partition's peak, 5,086,976 at 100,000 copies.
 * The interner without its table points at no_slots, one empty slot, and
 * holds no string by its count (grow_at 0): an interning probes that
 * slot, finds it empty and calls interner_add, whose table_full sends it
 * to add_slow, which makes the table again from the strings, packed in
 * their chunks (note [prefix walk]), and interns there; a lookup, which
 * misses in that slot, makes the table again the same way (the table is
 * an index of the strings, which the interner keeps whole; a walk of
 * the strings per lookup would make a run of lookups quadratic).  Every
 * answer is the one the table gave. */
static InternerSlot no_slots[1];

static bool table_dropped(const Interner *in)
{
    return in->slots == no_slots;
}

void interner_drop_table(Interner *interner)
{
    if (table_dropped(interner))
        return;
    free(interner->slots);
    interner->slots = no_slots;
    interner->nslots = interner->end = interner->grow_at = 0;
}

/* The slot of every string, walked from the chunks, count of them. */
static InternerSlot *slots_walked(const Interner *in)
{
    InternerSlot *slots = xmalloc((in->count ? in->count : 1) * sizeof *slots);
    size_t k = 0;
    for (size_t c = 0; c < in->chunks.len; c++) {
        const char *chunk = in->chunks.items[c], *end = chunk_end(in, c);
        uint32_t len;
        for (const char *at = chunk; at < end; at += 4 + len + 1) {
            len = interner_length(at + 4);
            uint32_t ref = (uint32_t)c << INTERNER_CHUNK_BITS | (uint32_t)(at + 4 - chunk);
            slots[k++] = (InternerSlot){interner_hash(at + 4, len), ref};
        }
    }
    return slots;
}

/* The table made again after interner_drop_table. */
static void table_back(Interner *in)
{
    InternerSlot *slots = slots_walked(in);
    table_fill(in, slots_for(in->count), slots, in->count);
    free(slots);
}

/* The empty slot where a string of hash h goes (it is not in the table:
 * the table has just grown), the last one if the probe runs there. */
static size_t empty_slot(const Interner *in, uint32_t h)
{
    size_t i = interner_home(in, h);
    while (in->slots[i].ref)
        i++;
    return i;
}

/* Whether filing one more string in slot needs a larger table. */
static bool table_full(const Interner *in, size_t slot)
{
    return in->count >= in->grow_at || slot == in->end;
}

Interner *interner_new(Arena *arena)
{
    Interner *in = xcalloc(1, sizeof(Interner));
    in->arena = arena;
    table_make(in, 256);
    return in;
}

Interner *interner_clone(const Interner *from, Arena *arena)
{
    Interner *in = xcalloc(1, sizeof(Interner));
    in->arena = arena;
    in->nslots = from->nslots;
    in->end = from->end;
    in->grow_at = from->grow_at;
    in->count = from->count;
    in->slots = no_slots; /* (from's dropped: note [interner table dropped]) */
    if (!table_dropped(from)) {
        in->slots = xmalloc((in->end + 1) * sizeof(InternerSlot));
        memcpy(in->slots, from->slots, (in->end + 1) * sizeof(InternerSlot));
    }
    vec_reserve(&in->chunks, from->chunks.len);
    vec_reserve(&in->ends, from->chunks.len);
    for (size_t i = 0; i < from->chunks.len; i++) {
        vec_push(&in->chunks, from->chunks.items[i]);
        vec_push(&in->ends, (char *)chunk_end(from, i)); /* (from's later strings not its) */
    }
    return in; /* room 0: its own strings go to chunks of its own */
}

void interner_free(Interner *interner)
{
    if (!interner)
        return;
    interner_drop_table(interner);
    vec_free(&interner->chunks);
    vec_free(&interner->ends);
    free(interner);
}

/* A chunk of size bytes from the arena, the interner's next by index
 * and now its current one. */
static void add_chunk(Interner *in, size_t size)
{
    if (in->chunks.len >= ((size_t)1 << (32 - INTERNER_CHUNK_BITS)) - 1)
        out_of_memory(); /* (a reference would not fit in 32 bits) */
    char *chunk = arena_alloc_raw(in->arena, size);
    if (in->bump) /* (the current chunk, its own: note [prefix walk]) */
        in->ends.items[in->chunks.len - 1] = in->bump;
    vec_push(&in->chunks, chunk);
    vec_push(&in->ends, NULL); /* (bump, while the chunk is the current one) */
    in->bump = chunk;
    in->room = size;
    in->bump_ref = (uint32_t)(in->chunks.len - 1) << INTERNER_CHUNK_BITS | 4;
}

/* Whether a string of n bytes goes to a chunk of its own (note
 * [interner memory]). */
static bool long_string(size_t n)
{
    return n > STRING_CHUNK_MAX / 4 - 5; /* (need, n + 5, not overflowing) */
}

/* The n bytes at from copied to to, n at most a quarter chunk, in
 * words: note [interner add]. */
static inline void copy_short(char *to, const char *from, size_t n)
{
    if (n >= 8) {
        uint64_t w;
        for (size_t i = 0; i + 8 < n; i += 8) {
            memcpy(&w, from + i, 8);
            memcpy(to + i, &w, 8);
        }
        memcpy(&w, from + n - 8, 8); /* the last 8 bytes, overlapping */
        memcpy(to + n - 8, &w, 8);
    } else if (n >= 4) {
        uint32_t w;
        memcpy(&w, from, 4);
        memcpy(to, &w, 4);
        memcpy(&w, from + n - 4, 4);
        memcpy(to + n - 4, &w, 4);
    } else {
        for (size_t i = 0; i < n; i++)
            to[i] = from[i];
    }
}

/* The n bytes at s, of hash h, filed in slot: a copy at bump, its length
 * in front and a NUL after (bump has room for it). */
static inline const char *put(Interner *in, const char *s, size_t n, uint32_t h, size_t slot)
{
    char *at = in->bump;
    if (long_string(n))
        memcpy(at + 4, s, n);
    else
        copy_short(at + 4, s, n);
    const char *copy = counted_string_close(at, n);
    uint32_t ref = in->bump_ref;
    in->bump += n + 5;
    in->room -= n + 5;
    in->bump_ref += (uint32_t)(n + 5);
    in->slots[slot] = (InternerSlot){h, ref};
    in->count++;
    return copy;
}

/* interner_add when the table must grow, the string is long or the
 * current chunk has no room for it. */
static __attribute__((noinline)) const char *add_slow(Interner *in, const char *s, size_t n,
                                                      uint32_t h, size_t slot)
{
    if (n > UINT32_MAX - 8)
        out_of_memory();
    if (table_dropped(in)) { /* (note [interner table dropped]) */
        table_back(in);
        return interner_intern_hashed(in, s, n, h);
    }
    while (table_full(in, slot)) {
        rehash_to(in, in->nslots * 2);
        slot = empty_slot(in, h);
    }
    size_t need = 4 + n + 1;
    if (long_string(n)) {
        add_chunk(in, need); /* filled now: the next string takes a new one */
    } else if (need > in->room) { /* (need may be more than an early chunk) */
        size_t doublings = in->chunks.len < 6 ? in->chunks.len : 6;
        size_t size = (size_t)STRING_CHUNK_MIN << doublings;
        add_chunk(in, size > need ? size : need);
    }
    return put(in, s, n, h, slot);
}

/* note [interner add]: a model's loader adds each of its names once
 * (at 10,000 copies of bench/graft-bench sidebyside, 110,000 in each
 * ONNX job of bench/workload.sh, 50,000 in each Relay job), and the
 * addition was 77 instructions a name, 16 of them saving and restoring
 * the registers that its calls (memcpy, the growth) need, 13 the call of
 * memcpy.  So the usual case, a short name with room for it and a table
 * not full, calls nothing: its bytes are copied in words, and the rest
 * is add_slow's, a call of its own (42 a name now). */
const char *interner_add(Interner *interner, const char *s, size_t n, uint32_t h, size_t slot)
{
    if (long_string(n) || n + 5 > interner->room || table_full(interner, slot))
        return add_slow(interner, s, n, h, slot);
    return put(interner, s, n, h, slot);
}

const char *interner_cstr(Interner *interner, const char *s)
{
    return interner_intern(interner, s, strlen(s));
}

const char *interner_lookup(const Interner *interner, const char *s, size_t n)
{
    if (n > UINT32_MAX)
        return NULL;
    uint32_t h = interner_hash(s, n);
    for (size_t i = interner_home(interner, h); interner->slots[i].ref; i++) {
        const char *t = interner_string(interner, interner->slots[i].ref);
        if (interner->slots[i].hash == h && interner_length(t) == n && bytes_equal(t, s, n))
            return t;
    }
    if (!table_dropped(interner)) /* (a dropped table's one slot is empty) */
        return NULL;
    /* the table is the strings' index, made again from them (note
       [interner table dropped]): a lookup stays a probe, never a walk */
    table_back((Interner *)(uintptr_t)interner);
    return interner_lookup(interner, s, n);
}

size_t interner_count(const Interner *interner)
{
    return interner->count;
}

void interner_reserve(Interner *interner, size_t count)
{
    if (table_dropped(interner))
        table_back(interner);
    if (count > interner->grow_at)
        rehash_to(interner, slots_for(count));
}
