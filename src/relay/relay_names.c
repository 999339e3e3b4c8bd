/* relay_names.c - unique printed variable names, quoted strings. */
#include "relay_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outbuf.h"

/* note [name table]: the printer names every variable of a model (a
 * quarter of its nodes), so a name costs one hash of its bytes, a word
 * at a time, and one probe: the map holds each hash once, with the names
 * of that hash chained in VarNames.names (two names with one hash are
 * told apart by their text). */

/* The key of the n bytes at s in VarNames.taken (note [one string hash]
 * in keymap.h; 0 is KeyMap's empty key). */
static uint64_t name_hash(const char *s, size_t n)
{
    return hash_bytes(s, n, 0) | 1;
}

/* The entry of name s (n bytes, hash h), or NULL when not handed out;
 * *head is its hash's chain in VarNames.names (1 + the first entry), 0
 * for a new hash. */
static TakenName *find_name(VarNames *vn, uint64_t h, const char *s, size_t n, int64_t **head)
{
    *head = keymap_put(&vn->taken, h, 0);
    for (int64_t i = **head - 1; i >= 0; i = vn->names.items[i].next) {
        TakenName *t = &vn->names.items[i];
        if (t->len == n && memcmp(t->text, s, n) == 0)
            return t;
    }
    return NULL;
}

/* Records name s (n bytes, not handed out yet), owned by the arena, at
 * the front of its hash's chain *head. */
static void take_name(VarNames *vn, int64_t *head, const char *s, size_t n)
{
    vec_push(&vn->names, ((TakenName){s, (uint32_t)n, (int32_t)(*head - 1), 0}));
    *head = (int64_t)vn->names.len;
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
    size_t taken = (size_t)(t - vn->names.items);
    char *name = arena_alloc(vn->arena, n + 21);
    memcpy(name, prefix, n);
    size_t m;
    do {
        m = n + (size_t)snprintf(name + n, 21, "%u", (unsigned)++vn->names.items[taken].counter);
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
 * var_names_init checks that once for all the graph's variables, each
 * put in a KeyMap by its printed name; then a name costs nothing when
 * printed.  The graph interns names, so two variables print alike exactly
 * when their names are one pointer, and the key is the pointer; unless a
 * name takes a "v" ("1" prints as "%v1", as "v1" does), and then the key
 * is a hash of the printed text, and two names of one hash count as alike
 * (the names made as below are right either way).  When two variables
 * print alike, every name is made as note [name table] says. */
static bool all_distinct(const VarNames *vn, bool by_text)
{
    const GraphArrays *ga = vn->ga;
    KeyMap seen = {0};
    keymap_reserve(&seen, ga->nvars);
    bool distinct = true;
    for (uint32_t i = 0; i < ga->nvars && distinct; i++) {
        uint32_t id = ga->vars[i];
        const char *name = vn->name[id];
        uint64_t key = by_text ? name_hash(name, vn->len[id]) : keymap_ptr_key(name);
        int64_t *taken = keymap_put(&seen, key, 0);
        distinct = !*taken;
        *taken = 1;
    }
    keymap_free(&seen);
    return distinct;
}

/* The printed names of the graph's variables in a table of their own,
 * each with its "v" where it takes one. */
static void own_names(VarNames *vn)
{
    const GraphArrays *ga = vn->ga;
    const char **name = xmalloc((vn->nnodes ? vn->nnodes : 1) * sizeof *name);
    for (uint32_t i = 0; i < ga->nvars; i++) {
        uint32_t id = ga->vars[i];
        const char *base = ga->str[id] ? ga->str[id] : "";
        if (!starts_with_letter(base)) {
            size_t len = vn->len[id];
            char *text = arena_alloc(vn->arena, len + 2);
            text[0] = 'v';
            memcpy(text + 1, base, len + 1);
            base = text;
            vn->len[id] = (uint32_t)len + 1;
        }
        name[id] = base;
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
    vn->len = xmalloc(size * sizeof *vn->len);
    bool any_v = false;
    for (uint32_t i = 0; i < ga->nvars; i++) {
        uint32_t id = ga->vars[i];
        const char *base = ga->str[id];
        any_v |= !base || !starts_with_letter(base);
        vn->len[id] = base ? (uint32_t)strlen(base) : 0;
    }
    vn->name = ga->str;
    if (any_v)
        own_names(vn);
    vn->distinct = all_distinct(vn, any_v);
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
    vec_free(&vn->names);
    keymap_free(&vn->taken);
    arena_free(vn->arena);
}

void relay_put_string(StrBuf *sb, const char *s)
{
    size_t n = strcspn(s, "\"\\\n\t");
    if (!s[n]) { /* most strings have no escape: one copy */
        char *at = out_room(sb, n + 2);
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
