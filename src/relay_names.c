/* relay_names.c - unique printed variable names, quoted strings. */
#include "relay_names.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void var_names_init(VarNames *vn, const Graph *g)
{
    memset(vn, 0, sizeof *vn);
    vn->nnodes = graph_node_count(g);
    vn->name = xcalloc(vn->nnodes ? vn->nnodes : 1, sizeof(char *));
    vn->arena = arena_new();
    vn->strings = interner_new(vn->arena);
    vn->nslots = 64;
    vn->slots = xcalloc(vn->nslots, sizeof(NameSlot));
}

void var_names_free(VarNames *vn)
{
    free(vn->name);
    free(vn->slots);
    interner_free(vn->strings);
    arena_free(vn->arena);
}

/* The slot of interned name s (empty when not handed out). */
static NameSlot *find_slot(const VarNames *vn, const char *s)
{
    size_t mask = vn->nslots - 1;
    size_t i = (size_t)hash_mix(0, (uint64_t)(uintptr_t)s) & mask;
    while (vn->slots[i].name && vn->slots[i].name != s)
        i = (i + 1) & mask;
    return &vn->slots[i];
}

static void grow_slots(VarNames *vn)
{
    NameSlot *old = vn->slots;
    size_t nold = vn->nslots;
    vn->nslots *= 2;
    vn->slots = xcalloc(vn->nslots, sizeof(NameSlot));
    for (size_t i = 0; i < nold; i++)
        if (old[i].name)
            *find_slot(vn, old[i].name) = old[i];
    free(old);
}

static const char *intern_buf(VarNames *vn, const StrBuf *sb)
{
    return interner_intern(vn->strings, sb->data, sb->len);
}

/* TVM's GetUniqueName: prefix itself when free, else prefix + counter. */
static const char *unique_name(VarNames *vn, const char *prefix)
{
    if ((vn->count + 1) * 2 > vn->nslots)
        grow_slots(vn);
    const char *name = prefix;
    NameSlot *slot = find_slot(vn, prefix);
    if (slot->name) {
        StrBuf sb = {0};
        do {
            sb.len = 0;
            strbuf_printf(&sb, "%s%u", prefix, ++slot->counter);
            name = intern_buf(vn, &sb);
        } while (find_slot(vn, name)->name);
        strbuf_free(&sb);
    }
    NameSlot *taken = find_slot(vn, name);
    taken->name = name;
    taken->counter = 0;
    vn->count++;
    return name;
}

/* note [variable names]: "%" + name, "v"-prefixed when the name does not
 * start with a letter, then made unique. */
const char *var_names_alloc(VarNames *vn, const Node *v)
{
    uint32_t id = node_id(v);
    if (id < vn->nnodes && vn->name[id])
        return vn->name[id];
    const char *base = node_name(v) ? node_name(v) : "";
    StrBuf sb = {0};
    strbuf_putc(&sb, '%');
    if (!isalpha((unsigned char)base[0]))
        strbuf_putc(&sb, 'v');
    strbuf_puts(&sb, base);
    const char *name = unique_name(vn, intern_buf(vn, &sb));
    strbuf_free(&sb);
    if (id < vn->nnodes)
        vn->name[id] = name;
    return name;
}

const char *var_names_get(VarNames *vn, const Node *v)
{
    return var_names_alloc(vn, v);
}

void relay_put_string(StrBuf *sb, const char *s)
{
    strbuf_putc(sb, '"');
    for (; *s; s++) {
        switch (*s) {
        case '"': strbuf_puts(sb, "\\\""); break;
        case '\\': strbuf_puts(sb, "\\\\"); break;
        case '\n': strbuf_puts(sb, "\\n"); break;
        case '\t': strbuf_puts(sb, "\\t"); break;
        default: strbuf_putc(sb, *s); break;
        }
    }
    strbuf_putc(sb, '"');
}
