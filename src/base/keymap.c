/* keymap.c - the one hash map (note [one hash map] in keymap.h). */
#include "keymap.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The slot of key, or the empty slot where it would go. */
static KeyMapSlot *keymap_slot(const KeyMap *m, uint64_t key)
{
    size_t mask = m->cap - 1;
    size_t i = (size_t)hash_mix(0, key) & mask;
    while (m->slots[i].key && m->slots[i].key != key)
        i = (i + 1) & mask;
    return &m->slots[i];
}

static void keymap_resize(KeyMap *m, size_t cap)
{
    KeyMapSlot *old = m->slots;
    size_t old_cap = m->cap;
    m->cap = cap;
    m->slots = xcalloc(m->cap, sizeof *m->slots);
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].key)
            *keymap_slot(m, old[i].key) = old[i];
    free(old);
}

int64_t *keymap_put_growing(KeyMap *m, uint64_t key, int64_t dflt)
{
    keymap_resize(m, m->cap ? 2 * m->cap : 64);
    KeyMapSlot *slot = keymap_slot(m, key);
    if (!slot->key) {
        slot->key = key;
        slot->value = dflt;
        m->len++;
    }
    return &slot->value;
}

void keymap_reserve(KeyMap *m, size_t n)
{
    size_t cap = m->cap ? m->cap : 64;
    while ((m->len + n) * 2 > cap)
        cap *= 2;
    if (cap != m->cap)
        keymap_resize(m, cap);
}

void keymap_copy(KeyMap *to, const KeyMap *from)
{
    *to = *from;
    if (!from->cap)
        return;
    to->slots = xmalloc(from->cap * sizeof *from->slots);
    memcpy(to->slots, from->slots, from->cap * sizeof *from->slots);
}

void keymap_free(KeyMap *m)
{
    free(m->slots);
    *m = (KeyMap){0};
}
