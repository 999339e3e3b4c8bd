/* relay_names.c - unique printed variable names, quoted strings. */
#include "relay_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* note [name table]: the printer names every variable of a model (a
 * quarter of its nodes), so a name costs one hash of its bytes, a word
 * at a time, and one probe: the map holds each hash once, with the names
 * of that hash chained in VarNames.names (two names with one hash are
 * told apart by their text). */
static uint64_t name_hash(const char *s, size_t n)
{
    const uint64_t k = 0x9e3779b97f4a7c15ull;
    uint64_t h = n * k;
    for (; n >= 8; s += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * k;
        h ^= h >> 31;
    }
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++)
        w |= (uint64_t)(unsigned char)s[i] << (8 * i);
    h = (h ^ w) * k;
    h ^= h >> 29;
    return h ? h : 1; /* 0 is KeyMap's empty key */
}

/* The entry of name s (n bytes, hash h), or NULL when not handed out;
 * *head is its hash's chain in VarNames.names (1 + the first entry), 0
 * for a new hash. */
static TakenName *find_name(VarNames *vn, uint64_t h, const char *s, size_t n, int64_t **head)
{
    *head = keymap_put(&vn->taken, h, 0);
    for (int64_t i = **head - 1; i >= 0; i = vn->names[i].next) {
        TakenName *t = &vn->names[i];
        if (t->len == n && memcmp(t->text, s, n) == 0)
            return t;
    }
    return NULL;
}

/* Records name s (n bytes, not handed out yet), owned by the arena, at
 * the front of its hash's chain *head. */
static void take_name(VarNames *vn, int64_t *head, const char *s, size_t n)
{
    if (vn->nnames == vn->names_cap)
        vn->names = xgrow_items(vn->names, &vn->names_cap, vn->nnames + 1, sizeof *vn->names);
    vn->names[vn->nnames] = (TakenName){s, (uint32_t)n, (int32_t)(*head - 1), 0};
    *head = (int64_t)++vn->nnames;
}

/* Whether s starts with a letter, as isalpha in the C locale, the one
 * graft runs in (it never calls setlocale), without its table lookup. */
static bool starts_with_letter(const char *s)
{
    return (unsigned)(((unsigned char)s[0] | 0x20) - 'a') < 26;
}

/* TVM's GetUniqueName: prefix itself when free, else prefix + counter
 * (the prefix's counter counts on from the last suffix tried). */
static const char *unique_name(VarNames *vn, const char *prefix, size_t n, size_t *len)
{
    int64_t *head;
    TakenName *t = find_name(vn, name_hash(prefix, n), prefix, n, &head);
    if (!t) {
        take_name(vn, head, prefix, n);
        *len = n;
        return prefix;
    }
    size_t taken = (size_t)(t - vn->names);
    char *name = arena_alloc(vn->arena, n + 21);
    memcpy(name, prefix, n);
    size_t m;
    do {
        m = n + (size_t)snprintf(name + n, 21, "%u", (unsigned)++vn->names[taken].counter);
    } while (find_name(vn, name_hash(name, m), name, m, &head));
    take_name(vn, head, name, m);
    *len = m;
    return name;
}

/* note [variable names]: "%" + name, "v"-prefixed when the name does not
 * start with a letter, then made unique. */
const char *var_names_slow(VarNames *vn, uint32_t id, size_t *len)
{
    if (vn->name[id]) {
        *len = vn->len[id];
        return vn->name[id];
    }
    const char *base = vn->ga->str[id] ? vn->ga->str[id] : "";
    size_t nbase = strlen(base);
    bool v_prefix = !starts_with_letter(base);
    size_t n = 1 + v_prefix + nbase;
    char *prefix = arena_alloc(vn->arena, n + 1);
    prefix[0] = '%';
    prefix[1] = 'v'; /* overwritten by base unless v_prefix */
    memcpy(prefix + 1 + v_prefix, base, nbase + 1);
    const char *name = unique_name(vn, prefix, n, len);
    vn->name[id] = name;
    vn->len[id] = (uint32_t)*len;
    return name;
}

/* note [distinct names]: in most models every variable has a name of its
 * own, and then each prints as itself: GetUniqueName never adds a suffix.
 * var_names_init checks that once for all the graph's variables (a hash
 * of each printed name, a bitmap of the hashes, and a table of the few
 * whose bits collide, to compare their texts); then a name costs nothing
 * when printed.  The graph interns names, so two variables print alike
 * exactly when their names are one pointer, and the hash is of the
 * pointer, not of the text; unless a name takes a "v" ("1" prints as
 * "%v1", as "v1" does), and then each printed text is hashed.  When two
 * variables print alike, every name is made as note [name table] says. */
typedef struct NameHash {
    uint64_t hash; /* of the printed name without "%" */
    uint32_t id;   /* the variable */
} NameHash;

/* Among the m suspects, two variables that print alike: each goes into
 * a table by hash (open addressing; hashes are never 0) and is compared
 * with the variables of the same hash before it. */
static bool any_alike(const VarNames *vn, const NameHash *suspects, size_t m)
{
    int bits = 2;
    while (((size_t)1 << bits) < 2 * m)
        bits++;
    size_t mask = ((size_t)1 << bits) - 1;
    NameHash *table = xcalloc(mask + 1, sizeof *table);
    bool alike = false;
    for (size_t i = 0; i < m && !alike; i++) {
        const NameHash *s = &suspects[i];
        size_t at = (size_t)(s->hash >> (64 - bits));
        for (; table[at].hash; at = (at + 1) & mask)
            if (table[at].hash == s->hash &&
                strcmp(vn->name[table[at].id], vn->name[s->id]) == 0)
                alike = true;
        table[at] = *s;
    }
    free(table);
    return alike;
}

/* Whether the n variables of hs print alike somewhere: those whose bit
 * in a bitmap of their hashes (16 bits per variable) another took are
 * compared by any_alike. */
static bool all_distinct(const VarNames *vn, const NameHash *hs, size_t n)
{
    int shift = 64 - 4;
    for (size_t bits = 16; bits < 16 * n; bits *= 2)
        shift--;
    size_t words = ((size_t)1 << (64 - shift)) / 64 + 1;
    uint64_t *seen = xcalloc(words, sizeof *seen), *twice = xcalloc(words, sizeof *twice);
    size_t ntwice = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t b = hs[i].hash >> shift;
        if (seen[b / 64] >> (b % 64) & 1) {
            twice[b / 64] |= (uint64_t)1 << (b % 64);
            ntwice++;
        }
        seen[b / 64] |= (uint64_t)1 << (b % 64);
    }
    bool distinct = true;
    if (ntwice) {
        NameHash *suspects = xmalloc(2 * ntwice * sizeof *suspects);
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t b = hs[i].hash >> shift;
            if (twice[b / 64] >> (b % 64) & 1)
                suspects[m++] = hs[i];
        }
        distinct = !any_alike(vn, suspects, m);
        free(suspects);
    }
    free(seen);
    free(twice);
    return distinct;
}

/* The printed names of the n variables of hs in a table of their own,
 * each with its "v" where it takes one, and the hashes of their texts. */
static void own_names(VarNames *vn, NameHash *hs, size_t n)
{
    size_t size = vn->nnodes ? vn->nnodes : 1;
    const char **name = xmalloc(size * sizeof *name);
    for (size_t i = 0; i < n; i++) {
        uint32_t id = hs[i].id;
        const char *base = vn->ga->str[id] ? vn->ga->str[id] : "";
        size_t len = strlen(base);
        if (!starts_with_letter(base)) {
            char *text = arena_alloc(vn->arena, len + 2);
            text[0] = 'v';
            memcpy(text + 1, base, len + 1);
            base = text;
            len++;
        }
        name[id] = base;
        vn->len[id] = (uint32_t)len;
        hs[i].hash = name_hash(base, len);
    }
    vn->name = name;
    vn->own_name = true;
}

void var_names_init(VarNames *vn, const GraphArrays *ga)
{
    memset(vn, 0, sizeof *vn);
    vn->ga = ga;
    vn->nnodes = ga->nnodes;
    vn->arena = arena_new();
    size_t size = vn->nnodes ? vn->nnodes : 1;
    NameHash *hs = xmalloc((ga->nvars ? ga->nvars : 1) * sizeof *hs);
    vn->len = xmalloc(size * sizeof *vn->len);
    size_t n = 0;
    bool any_v = false;
    for (uint32_t i = 0; i < ga->nvars; i++) {
        uint32_t id = ga->vars[i];
        const char *base = ga->str[id];
        any_v |= !base || !starts_with_letter(base);
        vn->len[id] = base ? (uint32_t)strlen(base) : 0;
        hs[n++] = (NameHash){(uint64_t)(uintptr_t)base * 0x9e3779b97f4a7c15ull, id};
    }
    vn->name = ga->str;
    if (any_v)
        own_names(vn, hs, n);
    vn->distinct = all_distinct(vn, hs, n);
    free(hs);
    if (!vn->distinct) { /* the slow path fills name and len as it goes */
        if (vn->own_name)
            free(vn->name);
        vn->name = xcalloc(size, sizeof *vn->name);
        vn->own_name = true;
    }
}

void var_names_free(VarNames *vn)
{
    if (vn->own_name)
        free(vn->name);
    free(vn->len);
    free(vn->names);
    keymap_free(&vn->taken);
    arena_free(vn->arena);
}

void relay_put_string(StrBuf *sb, const char *s)
{
    size_t n = strcspn(s, "\"\\\n\t");
    if (!s[n]) { /* most strings have no escape: one copy */
        sb->data = xgrow_items(sb->data, &sb->cap, sb->len + n + 3, 1);
        char *at = sb->data + sb->len;
        at[0] = '"';
        memcpy(at + 1, s, n);
        at[n + 1] = '"';
        at[n + 2] = '\0';
        sb->len += n + 2;
        return;
    }
    strbuf_putc(sb, '"');
    for (;;) {
        size_t plain = strcspn(s, "\"\\\n\t"); /* most strings have no escape */
        strbuf_append(sb, s, plain);
        s += plain;
        if (!*s)
            break;
        switch (*s++) {
        case '"': strbuf_puts(sb, "\\\""); break;
        case '\\': strbuf_puts(sb, "\\\\"); break;
        case '\n': strbuf_puts(sb, "\\n"); break;
        default: strbuf_puts(sb, "\\t"); break;
        }
    }
    strbuf_putc(sb, '"');
}
