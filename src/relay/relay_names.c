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
 * (the prefix's counter counts on from the last suffix tried); a
 * counted string, as prefix is (VarName in relay_names.h). */
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
    char *room = arena_alloc(vn->arena, 4 + n + 21);
    char *name = room + 4;
    memcpy(name, prefix, n);
    size_t m;
    do {
        m = n + (size_t)snprintf(name + n, 21, "%u", (unsigned)++vn->names.items[taken].counter);
    } while (find_name(vn, name_hash(name, m), name, m, &head));
    take_name(vn, head, name, m);
    *len = m;
    return counted_string_close(room, m);
}

/* Variable v's name as the graph holds it, "" for none. */
static const char *base_name(const graft_node *v)
{
    const char *s = v->str;
    return s ? s : "";
}

/* The first live variable's id from id on among the count nodes of
 * the graph's table, or count: the variables are found among the nodes,
 * not kept in a list of their own.  A loop of its own, so that a node
 * of another kind costs a load and a compare, not a turn of the
 * caller's loop. */
static inline uint32_t next_var(graft_node *const *nodes, uint32_t id, uint32_t count)
{
    for (; id < count; id++)
        if (node_kind(nodes[id]) == NODE_VAR && !node_is_dead(nodes[id]))
            break;
    return id;
}

/* The length of base, a variable's name (base_name's): the graph interns
 * its variables' names (graph.h), and an interned string keeps its
 * length in front of it (interner_length in arena.h), so naming every
 * variable of a model costs no strlen each; "" stands for no name. */
static size_t base_len(const char *base)
{
    return *base ? interner_length(base) : 0;
}

/* Whether a variable named base prints with a "v" after its "%". */
static bool takes_v(const char *base)
{
    return !starts_with_letter(base);
}

/* note [variable names]: "%" + name, "v"-prefixed when the name does not
 * start with a letter, then made unique. */
const char *var_names_slow(VarNames *vn, const graft_node *v, size_t *len)
{
    VarName *given = &vn->slot[node_id(v)].var;
    if (*given) {
        *len = interner_length(*given);
        return *given;
    }
    const char *base = base_name(v);
    size_t nbase = base_len(base);
    bool v_prefix = takes_v(base);
    size_t n = 1 + v_prefix + nbase;
    char *room = arena_alloc(vn->arena, 4 + n + 1);
    char *prefix = room + 4;
    prefix[0] = '%';
    prefix[1] = 'v'; /* overwritten by base unless v_prefix */
    memcpy(prefix + 1 + v_prefix, base, nbase + 1);
    counted_string_close(room, n);
    *given = unique_name(vn, prefix, n, len);
    return *given;
}

/* The printed name of a variable named base, from the "v" it starts
 * with when it starts with one: base itself when it takes a "v", base
 * after its "v" when it has one, else NULL (it prints as base). */
static const char *after_v(const char *base)
{
    return takes_v(base) ? base : base[0] == 'v' ? base + 1 : NULL;
}

/* Whether variables named a and b print alike (by_text: some name takes
 * a "v", so "1" prints as "v1" does; else the names are interned, and
 * alike exactly when one pointer). */
static bool print_alike(const char *a, const char *b, bool by_text)
{
    if (!by_text || a == b)
        return a == b;
    const char *ra = after_v(a), *rb = after_v(b);
    if (!ra || !rb)
        return !ra && !rb && strcmp(a, b) == 0;
    return strcmp(ra, rb) == 0;
}

/* The cell of a variable named base in all_distinct's table of 1 << bits
 * cells, where probing starts: by the name's address (as note [one cache
 * slot] in keymap.h takes a slot), or by a hash of its printed text. */
static size_t alike_cell(const char *base, bool by_text, unsigned bits)
{
    if (!by_text)
        return cache_slot((uint64_t)(uintptr_t)base, bits);
    const char *rest = after_v(base);
    rest = rest ? rest : base;
    return cache_slot(name_hash(rest, strlen(rest)), bits);
}

enum { ALIKE, DISTINCT, TAKES_V };

/* Puts every variable in the table of 1 << bits cells; ALIKE at the
 * first that prints as one put before, and, unless by_text, TAKES_V at
 * the first that takes a "v" (then the table is all again, by text).
 * Inline in all_distinct, so that each of its two passes is compiled for
 * its by_text (the pass by address, the usual one, then keeps its state
 * in registers: -0.95 M instructions on the partition of bench/RESULTS.md's
 * "Session 25: Relay printing" section). */
GRAFT_HOT int put_all(const graft_graph *g, uint32_t *cell, unsigned bits, bool by_text)
{
    size_t mask = ((size_t)1 << bits) - 1;
    graft_node *const *nodes = graph_node_table(g);
    uint32_t count = graph_node_count(g);
    for (uint32_t id = next_var(nodes, 0, count); id < count; id = next_var(nodes, id + 1, count)) {
        const char *name = base_name(nodes[id]);
        if (!by_text && takes_v(name))
            return TAKES_V;
        size_t at = alike_cell(name, by_text, bits);
        for (; cell[at]; at = (at + 1) & mask)
            if (print_alike(base_name(nodes[cell[at] - 1]), name, by_text))
                return ALIKE;
        cell[at] = id + 1;
    }
    return DISTINCT;
}

/* note [distinct names]: in most models every variable has a name of its
 * own, and then each prints as itself: GetUniqueName never adds a suffix.
 * var_names_init checks that once for all the graph's variables, each put
 * in a table by its printed name (print_alike); then a name costs nothing
 * when printed.  The table is of variable ids, 4 bytes, at most half
 * full, in the printer's per-id slots before they hold anything (note
 * [printer memory] in relay_print_impl.h), zeroed here and no more of
 * them than it takes: fewer than 4 * nvars cells, which fit in the 8
 * bytes per id unless more than half the ids are variables' (then, and
 * as rarely, the table is allocated for the check alone).  So it takes
 * no memory of its own (a KeyMap of every variable was the printing's
 * peak: 4 MB of 48 at 10,000 copies of bench/graft-bench sidebyside),
 * and it is a linear probe of its own (note [one hash map] in keymap.h
 * counts it).  When two variables print alike, every name
 * is made as note [name table] says. */
static int all_distinct(const VarNames *vn)
{
    unsigned bits = 2;
    size_t nvars = graph_var_count(vn->g);
    while (((size_t)1 << bits) < 2 * nvars)
        bits++;
    size_t size = ((size_t)1 << bits) * sizeof(uint32_t);
    size_t slots = (graph_node_count(vn->g) ? graph_node_count(vn->g) : 1) * sizeof *vn->slot;
    bool own = size > slots;
    uint32_t *cell = own ? xmalloc(size) : (uint32_t *)(void *)vn->slot; /* 1 + an id, or 0 */
    memset(cell, 0, size);
    int put = put_all(vn->g, cell, bits, false);
    if (put == TAKES_V) {
        memset(cell, 0, size);
        put = put_all(vn->g, cell, bits, true);
        put = put == DISTINCT ? TAKES_V : ALIKE;
    }
    if (own)
        free(cell);
    return put;
}

/* note [names as loaded]: when every variable prints as itself and none
 * takes a "v" (all_distinct's DISTINCT: the common case), a variable's
 * printed name is its node's name, which the graph interns (graph.h),
 * with its length in front of it (interner_length in arena.h).  So
 * nothing is given ahead: var_names_get reads the name from the node
 * where it is printed, a load more per use, instead of give_names' pass
 * over every variable (-1.67 M instructions, 28 per op node, on the
 * partition of bench/RESULTS.md's "Session 25: Relay printing"
 * section), and the slots keep the table all_distinct left in them,
 * which nothing reads (a slot is written before it is read: note
 * [printer memory] in relay_print_impl.h). */

/* Every variable's printed name into its slot when all are distinct,
 * each with its "v" where it takes one; else none yet (var_names_slow
 * gives each at its first printing). */
static void give_names(VarNames *vn)
{
    graft_node *const *nodes = graph_node_table(vn->g);
    uint32_t count = graph_node_count(vn->g);
    for (uint32_t id = next_var(nodes, 0, count); id < count; id = next_var(nodes, id + 1, count)) {
        VarName *name = &vn->slot[id].var;
        if (!vn->distinct) {
            *name = NULL;
            continue;
        }
        /* interned, so counted, unless it takes a "v" (as "" does) */
        const char *base = base_name(nodes[id]);
        if (takes_v(base)) {
            size_t len = base_len(base);
            char *room = arena_alloc(vn->arena, 4 + len + 2);
            room[4] = 'v';
            memcpy(room + 5, base, len + 1);
            base = counted_string_close(room, len + 1);
        }
        *name = base;
    }
}

void var_names_init(VarNames *vn, const graft_graph *g, NodeText *slot)
{
    memset(vn, 0, sizeof *vn);
    vn->g = g;
    vn->slot = slot;
    vn->arena = arena_new();
    int distinct = all_distinct(vn);
    vn->distinct = distinct != ALIKE;
    vn->as_loaded = distinct == DISTINCT;
    if (!vn->as_loaded)
        give_names(vn);
}

void var_names_free(VarNames *vn)
{
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
