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
}

void var_names_free(VarNames *vn)
{
    free(vn->name);
    keymap_free(&vn->taken);
    interner_free(vn->strings);
    arena_free(vn->arena);
}

/* The key of interned name s in VarNames.taken. */
static uint64_t name_key(const char *s)
{
    return (uint64_t)(uintptr_t)s;
}

static const char *intern_buf(VarNames *vn, const StrBuf *sb)
{
    return interner_intern(vn->strings, sb->data, sb->len);
}

/* TVM's GetUniqueName: prefix itself when free, else prefix + counter. */
static const char *unique_name(VarNames *vn, const char *prefix)
{
    const char *name = prefix;
    int64_t *counter = keymap_get(&vn->taken, name_key(prefix));
    if (counter) {
        StrBuf sb = {0};
        do {
            sb.len = 0;
            strbuf_printf(&sb, "%s%u", prefix, (unsigned)++*counter);
            name = intern_buf(vn, &sb);
        } while (keymap_get(&vn->taken, name_key(name)));
        strbuf_free(&sb);
    }
    keymap_put(&vn->taken, name_key(name), 0);
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
