/* relay_names.c - unique printed variable names, quoted strings. */
#include "relay_names.h"

#include <ctype.h>
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
static const char *slow_name(VarNames *vn, const Node *v, size_t *len)
{
    uint32_t id = node_id(v);
    if (id < vn->nnodes && vn->name[id]) {
        *len = vn->len[id];
        return vn->name[id];
    }
    const char *base = node_name(v) ? node_name(v) : "";
    size_t nbase = strlen(base);
    bool v_prefix = !isalpha((unsigned char)base[0]);
    size_t n = 1 + v_prefix + nbase;
    char *prefix = arena_alloc(vn->arena, n + 1);
    prefix[0] = '%';
    prefix[1] = 'v'; /* overwritten by base unless v_prefix */
    memcpy(prefix + 1 + v_prefix, base, nbase + 1);
    const char *name = unique_name(vn, prefix, n, len);
    if (id < vn->nnodes) {
        vn->name[id] = name;
        vn->len[id] = (uint32_t)*len;
    }
    return name;
}

/* note [distinct names]: in most models every variable has a name of its
 * own, and then each prints as itself: GetUniqueName never adds a suffix.
 * var_names_init checks that once for all the graph's variables (a hash
 * of each printed name, a bitmap of the hashes, and a sort of the few
 * whose bits collide, to compare their texts); then a name costs nothing
 * when printed.  When two variables print alike, every name is made as
 * note [name table] says. */
typedef struct NameHash {
    uint64_t hash; /* of the printed name without "%" */
    uint32_t id;   /* the variable */
} NameHash;

/* The printed name of variable id without "%" into sb. */
static void printed_text(const VarNames *vn, uint32_t id, StrBuf *sb)
{
    sb->len = 0;
    if (vn->vprefix[id])
        strbuf_putc(sb, 'v');
    strbuf_append(sb, vn->name[id], vn->len[id]);
}

static uint64_t printed_hash(const VarNames *vn, uint32_t id, StrBuf *scratch)
{
    if (!vn->vprefix[id])
        return name_hash(vn->name[id], vn->len[id]);
    printed_text(vn, id, scratch);
    return name_hash(scratch->data, scratch->len);
}

static int by_hash(const void *a, const void *b)
{
    uint64_t x = ((const NameHash *)a)->hash, y = ((const NameHash *)b)->hash;
    return x < y ? -1 : x > y;
}

/* Among hs (sorted by hash), two variables that print alike. */
static bool any_alike(const VarNames *vn, const NameHash *hs, size_t n)
{
    StrBuf a = {0}, b = {0};
    bool alike = false;
    for (size_t i = 0; i < n && !alike; i++)
        for (size_t k = i + 1; k < n && hs[k].hash == hs[i].hash && !alike; k++) {
            printed_text(vn, hs[i].id, &a);
            printed_text(vn, hs[k].id, &b);
            alike = a.len == b.len && memcmp(a.data, b.data, a.len) == 0;
        }
    strbuf_free(&a);
    strbuf_free(&b);
    return alike;
}

/* Whether the n variables of hs print alike somewhere: hashes whose bit
 * in a bitmap (16 bits per variable) is taken are sorted with every
 * variable of the same bit, and compared. */
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
        qsort(suspects, m, sizeof *suspects, by_hash);
        distinct = !any_alike(vn, suspects, m);
        free(suspects);
    }
    free(seen);
    free(twice);
    return distinct;
}

void var_names_init(VarNames *vn, const Graph *g)
{
    memset(vn, 0, sizeof *vn);
    vn->nnodes = graph_node_count(g);
    size_t size = vn->nnodes ? vn->nnodes : 1;
    vn->name = xcalloc(size, sizeof *vn->name);
    vn->len = xmalloc(size * sizeof *vn->len);
    vn->vprefix = xcalloc(size, 1);
    vn->arena = arena_new();
    NameHash *hs = xmalloc(size * sizeof *hs);
    StrBuf scratch = {0};
    size_t n = 0;
    for (uint32_t id = 0; id < vn->nnodes; id++) {
        const Node *v = graph_node(g, id);
        if (node_kind(v) != NODE_VAR)
            continue;
        const char *base = node_name(v) ? node_name(v) : "";
        vn->name[id] = base;
        vn->len[id] = (uint32_t)strlen(base);
        vn->vprefix[id] = !isalpha((unsigned char)base[0]);
        hs[n++] = (NameHash){printed_hash(vn, id, &scratch), id};
    }
    strbuf_free(&scratch);
    vn->distinct = all_distinct(vn, hs, n);
    free(hs);
    if (!vn->distinct) /* the slow path fills name and len as it goes */
        memset(vn->name, 0, size * sizeof *vn->name);
}

void var_names_free(VarNames *vn)
{
    free(vn->name);
    free(vn->len);
    free(vn->vprefix);
    free(vn->names);
    keymap_free(&vn->taken);
    arena_free(vn->arena);
}

const char *var_names_get(VarNames *vn, const Node *v, bool *percent, size_t *len)
{
    uint32_t id = node_id(v);
    if (vn->distinct && id < vn->nnodes && node_kind(v) == NODE_VAR) {
        if (vn->vprefix[id] == 1) { /* "v" + name, made when first printed */
            size_t n = vn->len[id];
            char *text = arena_alloc(vn->arena, n + 2);
            text[0] = 'v';
            memcpy(text + 1, vn->name[id], n + 1);
            vn->name[id] = text;
            vn->len[id] = (uint32_t)n + 1;
            vn->vprefix[id] = 0;
        }
        *percent = true;
        *len = vn->len[id];
        return vn->name[id];
    }
    *percent = false;
    return slow_name(vn, v, len);
}

void relay_put_string(StrBuf *sb, const char *s)
{
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
