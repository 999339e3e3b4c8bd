/* keymap.h - the one hash map, and the hashes graft's tables use.
 *
 * note [one hash map]: every table keyed by something that fits in 64
 * bits (a number, an interned name, a node) is a KeyMap: the loader's
 * scopes and caches, the printer's names, the checker's lets and rule
 * names, the op registry, the overlap check's rules by root, lowering's
 * shared tests and items (keys interned first), the graph's annotation
 * types, the emitter's objects and texts.  Keys of bytes are interned to
 * a pointer, or hashed with the entries of one hash chained by the
 * caller (relay_names.c, emit_c_out.c).  No table iterates a KeyMap, so
 * output never depends on its order.  Five tables keep their own layout:
 * the interner (its probe inline in arena.h, the rest in arena.c), the
 * map from byte strings to the canonical copies that pointer keys come
 * from; the automaton's memo and item sets (automaton.c), keyed by
 * arrays of ids held in a pool; and the printer's check that every
 * variable's name is its own, a table of ids in memory it borrows
 * (note [distinct names] in relay_names.c); an ONNX model's values
 * by their names' addresses, not mixed first (note [values by address]
 * in src/onnx/onnx_graph.h); and a long user list's index of positions
 * in the list, which a removal updates by backward shift (note [user
 * lists] in src/ir/graph_users.c) (exceptions: 4 files, counted by
 * tests/one_notes.sh, which finds a probe that wraps with a mask; the
 * interner's, a table sized to its count, does not wrap: note [interner
 * load] in arena.c).
 */
#ifndef GRAFT_KEYMAP_H
#define GRAFT_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* a word read from memory as little-endian bytes make it */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HASH_LE64(w) __builtin_bswap64(w)
#else
#define HASH_LE64(w) (w)
#endif

/* note [one string hash]: every hash of bytes is hash_bytes: the
 * interner's (arena.c), the printer's variable names (relay_names.c), the
 * emitter's texts (emit_c_out.c), the ONNX checker's names, the
 * automaton's memo and item sets (arrays of ids, automaton.c), the keys of
 * tensor attributes (pattern.c) and graft verify's seeds (verify.c,
 * prove_replay.c: a new hash draws new values).  Names are short (op
 * names, "x0", dtypes), so it takes eight bytes at a step (a multiply and
 * a shift each), several times fewer instructions than a byte at a time;
 * the words are read little-endian on every machine, so that the seeds
 * and the printed keys are the same everywhere.  Inline: the interner
 * hashes every name the loader reads.  hash_mix folds a word into a hash
 * (keys that are already numbers).  The one other user of the
 * golden-ratio constant is a random generator, not a hash: graft verify's
 * splitmix64 (verify_choose.c; exceptions: 1, counted by
 * tests/one_notes.sh). */
static inline uint64_t hash_word(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

/* The 1 to 7 bytes at p over the low bytes of w (in memory order), the
 * rest of w kept: the tail of a word-at-a-time loop, in fixed-size pieces
 * the compiler inlines (a memcpy of a variable size cost as much as the
 * rest of a short key's hash).  Shared by hash_bytes and the ONNX
 * decoder's NUL test (src/onnx/onnx_decode_fast.c). */
static inline uint64_t bytes_tail(const unsigned char *p, size_t n, uint64_t w)
{
    unsigned char *to = (unsigned char *)&w;
    if (n & 4)
        memcpy(to, p, 4), to += 4, p += 4;
    if (n & 2)
        memcpy(to, p, 2), to += 2, p += 2;
    if (n & 1)
        *to = *p;
    return w;
}

/* Whether n bytes at left and right are equal: eight at a step, inline (the
 * keys are short, and a hash match is nearly always a key match, so the
 * call to memcmp was most of the comparison); the last step, or a key
 * shorter than eight, in two overlapping reads, not a byte at a time
 * (3.7 M instructions of the 11.8 M interning at 10,000 copies of
 * bench/graft-bench sidebyside were the bytes after the last eight).
 * The interner's probe (arena.c) and the ONNX decoder's memos of short
 * byte strings (src/onnx/onnx_decode_fast.c) compare with it; keys of
 * tens of bytes (the ONNX type memo's) stay with memcmp, which compares
 * them in fewer instructions. */
static inline bool bytes_equal(const void *left, const void *right, size_t n)
{
    const unsigned char *a = left, *b = right;
    uint64_t x, y;
    if (n >= 8) {
        for (; n > 8; a += 8, b += 8, n -= 8) {
            memcpy(&x, a, 8);
            memcpy(&y, b, 8);
            if (x != y)
                return false;
        }
        memcpy(&x, a + n - 8, 8); /* the last eight, some compared already */
        memcpy(&y, b + n - 8, 8);
        return x == y;
    }
    if (n >= 4) {
        uint32_t p, q, r, t;
        memcpy(&p, a, 4), memcpy(&q, b, 4);
        memcpy(&r, a + n - 4, 4), memcpy(&t, b + n - 4, 4);
        return p == q && r == t;
    }
    return n == 0 || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]);
}

/* hash_bytes in three steps, for a caller that reads the words itself
 * (the ONNX decoder tests each for a NUL as it hashes it): the hash
 * before the first word, each word folded in by hash_word (the last one's
 * bytes after the end 0), and the hash after the last. */
static inline uint64_t hash_begin(size_t len, uint64_t seed)
{
    return (seed ^ len) * 0x9e3779b97f4a7c15ull;
}
static inline uint64_t hash_end(uint64_t h)
{
    h *= 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 32);
}

static inline uint64_t hash_bytes(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t h = hash_begin(len, seed);
    uint64_t w;
    for (; len >= 8; p += 8, len -= 8) {
        memcpy(&w, p, 8);
        h = hash_word(h, HASH_LE64(w));
    }
    if (len)
        h = hash_word(h, HASH_LE64(bytes_tail(p, len, 0)));
    return hash_end(h);
}
/* Folds v into h, for keys that are already words: a KeyMap's slot, the
 * automaton's step cache.  Inline: the labeller looks up every node. */
static inline uint64_t hash_mix(uint64_t h, uint64_t v)
{
    return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
}

/* note [one cache slot]: a small direct-mapped cache in front of a
 * slower answer (a KeyMap, the automaton's memo, the interner, a
 * conversion) holds one entry per slot, or the last two put there where
 * two keys that the allocator's addresses place in one slot would evict
 * each other on every call, and simply forgets what a colliding key
 * evicts, so a slot needs no probing beyond its entries, only this one
 * slot function: the key (a pointer, a hash of bytes, a value's bits, a packed
 * symbol) times an odd constant, its top bits.  The caches: the labeller's
 * ops, constants and attribute texts (automaton_label_class.c) and its
 * steps of three to six operands (note [wide steps]), the
 * automaton's steps (note [step cache] in automaton.c), the Relay
 * loader's names (note [name cache] in relay_load_expr.c) and its
 * binding lines' ops (note [ops read] in relay_load_line.c), the Relay
 * printer's attribute texts (note [attribute texts] in
 * relay_print_text.c), the builtin registry's names as its table is read
 * (registry_tables.c), the ONNX decoder's op names (note [op name
 * memo] in onnx_decode_fast.h), ONNX inference's
 * ops (note [inference cache] in onnx_infer.c), a model check's ops
 * (note [ops seen] in model_check.c), an ONNX model's ops among the
 * rules' (note [ops checked] in onnx_file.c), type inference's
 * relations (note [relations seen] in type_infer.c), ONNX typing's
 * plain calls (note [plain calls] in onnx_types.c) and the graph's
 * canonical strings (note [canonical pointers] in graph.c); no other
 * slot formula (exceptions: 0, counted by tests/one_notes.sh).  The
 * last three,
 * keyed by addresses, keep two entries a slot through cache_pair_find and
 * cache_pair_put below, the one copy of that slot's rules. */
static inline size_t cache_slot(uint64_t key, unsigned bits)
{
    return (size_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

/* A slot of two entries (note [one cache slot]): pair is an array of two
 * entries of any type, the last put first.  cache_pair_find gives the
 * entry of the two that same(entry's address, key) holds equal to key,
 * the first compared first, or NULL; an empty entry must equal no key.
 * cache_pair_put moves the first to the second, forgetting what that
 * held, and puts entry first.  Macros, so that an entry keeps its type
 * and same inlines; pair and key are read twice (pass names, not
 * calls). */
#define cache_pair_find(pair, key, same)                                      \
    (same(&(pair)[0], key) ? &(pair)[0] : same(&(pair)[1], key) ? &(pair)[1] \
                                                                 : NULL)
#define cache_pair_put(pair, entry) ((pair)[1] = (pair)[0], (pair)[0] = (entry))

/* An open-addressing hash map from nonzero 64-bit keys (numbers, or
 * pointers through keymap_ptr_key) to 64-bit values.  A zeroed KeyMap
 * is empty; it allocates on the first keymap_put. */
typedef struct KeyMapSlot {
    uint64_t key;  /* 0 when empty */
    int64_t value; /* the caller's */
} KeyMapSlot;

typedef struct KeyMap {
    KeyMapSlot *slots; /* cap many, a power of two, at most half used */
    size_t len;        /* used slots */
    size_t cap;        /* 0 before the first keymap_put */
} KeyMap;

/* key's value, or NULL when key was never put.  Pointers into the map
 * hold until the next keymap_put.  Inline: the labeller looks up every
 * node's op name here (automaton_label_class.c). */
static inline int64_t *keymap_get(const KeyMap *m, uint64_t key)
{
    if (!m->cap)
        return NULL;
    size_t mask = m->cap - 1;
    size_t i = (size_t)hash_mix(0, key) & mask;
    while (m->slots[i].key && m->slots[i].key != key)
        i = (i + 1) & mask;
    return m->slots[i].key ? &m->slots[i].value : NULL;
}
/* keymap_put when the map must grow first (or allocate its first slots). */
int64_t *keymap_put_growing(KeyMap *m, uint64_t key, int64_t dflt);

/* key's value, added as dflt when key is new.  Inline, as keymap_get:
 * reading an ONNX model puts two keys a value and one a node and a graph
 * input (their spans), and the call was a third of a put (1.0 M of
 * bench/onnx_e2e.sh's rewrite at 2,000 copies). */
static inline int64_t *keymap_put(KeyMap *m, uint64_t key, int64_t dflt)
{
    if ((m->len + 1) * 2 > m->cap)
        return keymap_put_growing(m, key, dflt);
    size_t mask = m->cap - 1;
    size_t i = (size_t)hash_mix(0, key) & mask;
    while (m->slots[i].key && m->slots[i].key != key)
        i = (i + 1) & mask;
    KeyMapSlot *slot = &m->slots[i];
    if (!slot->key) {
        slot->key = key;
        slot->value = dflt;
        m->len++;
    }
    return &slot->value;
}
/* Room for n more keys without growing (one rehash instead of one per
 * doubling, when the caller knows how many are coming). */
void keymap_reserve(KeyMap *m, size_t n);
/* to becomes a copy of from (to's old contents are not freed). */
void keymap_copy(KeyMap *to, const KeyMap *from);
void keymap_free(KeyMap *m);

/* The key of a non-NULL pointer (an interned name, a node): the address
 * through a bijective mix (murmur3's finaliser), so that the slot, taken
 * from the low bits, varies although arena objects sit at aligned
 * addresses close together; nonzero as the pointer is. */
static inline uint64_t keymap_ptr_key(const void *p)
{
    uint64_t k = (uint64_t)(uintptr_t)p;
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

/* The key of a non-NULL address, as keymap_ptr_key's but through one
 * multiply and a rotate: the product's top 24 bits, which the address's
 * bits move most, become the low bits a slot is taken from (the slot
 * spreads as cache_slot's for a map of up to 1 << 24 slots; the rotate by
 * 32 took bits of the middle and probed more: +1.7 M on the workload's
 * ONNX rewrite); bijective (the multiplier is odd), nonzero as the
 * pointer is.  For a map asked about once an entry, where the mix is a
 * fifth of a lookup (note [span keys] in onnx_span.h). */
static inline uint64_t keymap_addr_key(const void *p)
{
    uint64_t k = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
    return k >> 40 | k << 24;
}

/* A map from pointers to pointers: the value stored under key, or NULL;
 * and storing one (replacing any). */
static inline const void *keymap_get_ptr(const KeyMap *m, const void *key)
{
    const int64_t *v = keymap_get(m, keymap_ptr_key(key));
    return v ? (const void *)(intptr_t)*v : NULL;
}
static inline void keymap_put_ptr(KeyMap *m, const void *key, const void *value)
{
    *keymap_put(m, keymap_ptr_key(key), 0) = (int64_t)(intptr_t)value;
}

#endif
