/* relay_names.c - unique printed variable names, quoted strings. */
#include "relay_names.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void var_names_init(VarNames *vn, const Graph *g)
{
    memset(vn, 0, sizeof *vn);
    vn->nnodes = graph_node_count(g);
    vn->name = xcalloc(vn->nnodes ? vn->nnodes : 1, sizeof *vn->name);
    vn->len = xmalloc((vn->nnodes ? vn->nnodes : 1) * sizeof *vn->len);
    vn->arena = arena_new();
}

void var_names_free(VarNames *vn)
{
    free(vn->name);
    free(vn->len);
    free(vn->names);
    keymap_free(&vn->taken);
    arena_free(vn->arena);
}

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
    if (vn->nnames == vn->cnames)
        xgrow((void **)&vn->names, &vn->cnames, vn->nnames + 1, sizeof *vn->names);
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
const char *var_names_get(VarNames *vn, const Node *v, size_t *len)
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
