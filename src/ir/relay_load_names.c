/* relay_load_names.c - the actions of the long tokens (note [long tokens]
 * in grammar/relay_lex.l): a binding's head "%N = op(" and a list of
 * names and numbers "%a, 1f)", each read as the short tokens it
 * contracts would be, with the same actions in the same order. */
#include "relay_load.h"

/* The bytes that end an item (a name or a number) in a NAMES token:
 * layout, ',' and ')'. */
static const bool ends_name[256] = {
    [' '] = true, ['\t'] = true, ['\r'] = true, ['\n'] = true, [','] = true, [')'] = true,
};

/* The next item of a NAMES token from *at (a byte offset, moved past
 * it); false at the closing ')'.  The token's pattern leaves only layout
 * and one comma between items, and items end at layout, ',' or ')'. */
static bool next_name(const char *text, uint32_t *at, RelayText *name)
{
    const unsigned char *s = (const unsigned char *)text;
    uint32_t i = *at;
    while (ends_name[s[i]]) {
        if (s[i] == ')')
            return false;
        i++;
    }
    uint32_t start = i++;
    while (!ends_name[s[i]])
        i++;
    *name = (RelayText){start, i - start};
    *at = i;
    return true;
}

/* An item as an operand: a name's definition (load_use), a number's
 * constant (load_const). */
static Node *operand(RelayParser *ps, RelayText item)
{
    return ps->src->text[item.off] == '%' ? load_use(ps, item) : load_const(ps, item);
}

RelayText load_bind_temp(const RelayParser *ps, RelayText bind)
{
    const char *s = ps->src->text + bind.off;
    uint32_t n = 1;
    while (s[n] >= '0' && s[n] <= '9')
        n++;
    return (RelayText){bind.off, n};
}

/* BIND's op name, between the '=' and its blanks and the '('. */
static RelayText bind_op(const RelayParser *ps, RelayText bind)
{
    const char *s = ps->src->text;
    uint32_t i = bind.off + 1;
    while (s[i] != '=')
        i++;
    i++;
    while (s[i] == ' ' || s[i] == '\t')
        i++;
    return (RelayText){i, bind.off + bind.len - 1 - i};
}

Node *load_bind_call(RelayParser *ps, RelayText bind, size_t mark)
{
    RelayText op = bind_op(ps, bind);
    return load_at(ps, load_call(ps, op, mark), op);
}

Node *load_bind_names(RelayParser *ps, RelayText bind, RelayText names)
{
    return load_call_names(ps, bind_op(ps, bind), names);
}

/* op '(' items ')': each item made an operand in turn (operand), then
 * the call made, as load_call would from the item stack. */
Node *load_call_names(RelayParser *ps, RelayText op, RelayText names)
{
    uint32_t at = names.off;
    RelayText name;
    int nargs = 0;
    while (next_name(ps->src->text, &at, &name)) {
        Node *arg = operand(ps, name);
        if (!arg)
            return NULL;
        if ((size_t)nargs + 1 > ps->scratch_nodes_cap)
            ps->scratch_nodes = xgrow_items(ps->scratch_nodes, &ps->scratch_nodes_cap,
                                            (size_t)nargs + 1, sizeof(Node *));
        ps->scratch_nodes[nargs++] = arg;
    }
    Node *n = graph_add_call(ps->g, load_intern(ps, op), ps->scratch_nodes, nargs, NULL, 0);
    load_note_where(ps, n, op);
    return load_at(ps, n, op);
}

/* Each item made an operand and pushed on the item stack, as args or
 * fields push them; false after an error. */
static bool push_uses(RelayParser *ps, RelayText names)
{
    uint32_t at = names.off;
    RelayText name;
    while (next_name(ps->src->text, &at, &name)) {
        Node *n = operand(ps, name);
        if (!n)
            return false;
        load_push_node(ps, n);
    }
    return true;
}

Node *load_fn_call_names(RelayParser *ps, Node *callee, RelayText names, RelayText paren)
{
    size_t mark = load_mark(ps);
    return push_uses(ps, names) ? load_fn_call(ps, callee, mark, paren) : NULL;
}

Node *load_paren_names(RelayParser *ps, RelayText names)
{
    size_t mark = load_mark(ps);
    return push_uses(ps, names) ? load_paren(ps, mark) : NULL;
}

/* A NAMES token as a function's parameters: each a name (a temp or a
 * number is not one: the second attempt reports it), defined and pushed
 * in turn. */
bool load_param_names(RelayParser *ps, RelayText names)
{
    uint32_t at = names.off;
    RelayText name;
    while (next_name(ps->src->text, &at, &name)) {
        const char *s = load_text(ps, name);
        if (s[0] != '%' || (s[1] >= '0' && s[1] <= '9')) {
            ps->failed = true;
            return false;
        }
        Node *v = load_param(ps, name, NULL, NULL);
        if (!v)
            return false;
        load_push_node(ps, v);
    }
    return true;
}
