/* relay_load_spans.c - texts of the model found again by their bytes
 * (note [span caches]). */
#include "relay_load.h"

#include <stdlib.h>
#include <string.h>

/* note [span caches]: a model repeats its type texts ("Tensor[(64),
 * float32]" on every batch norm's four parameters, "ty=Tensor[(1, 197,
 * 768), float32]" in most of vit_b_16's comments), and what the loader
 * makes of one (a type; for a comment that is only its type, the
 * interned comment too) depends on its bytes alone.  So each is found
 * again by a hash of its bytes, a word at a time (note [one string hash]
 * in keymap.h), and one compare, instead of being parsed again or
 * interned to be looked up by pointer.  A cache may forget: a text whose
 * hash another text holds takes the slow way, and is not kept. */

/* The key of the len bytes at s (0 is KeyMap's empty key). */
static uint64_t span_key(const char *s, uint32_t len)
{
    return hash_bytes(s, len, 0) | 1;
}

SpanEntry *span_cache_get(SpanCache *c, const char *s, uint32_t len, uint64_t *key)
{
    *key = span_key(s, len);
    const int64_t *at = keymap_get(&c->index, *key);
    if (!at)
        return NULL;
    SpanEntry *e = &c->entries.items[*at];
    return e->len == len && memcmp(e->text, s, len) == 0 ? e : NULL;
}

void span_cache_put(SpanCache *c, uint64_t key, const SpanEntry *e)
{
    int64_t *at = keymap_put(&c->index, key, -1);
    if (*at >= 0) /* another text of this hash: it keeps the slot */
        return;
    *at = (int64_t)c->entries.len;
    vec_push(&c->entries, *e);
}

void span_cache_free(SpanCache *c)
{
    keymap_free(&c->index);
    vec_free(&c->entries);
}
