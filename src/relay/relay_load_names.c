/* relay_load_names.c - the actions of the long tokens (note [long tokens]
 * in grammar/relay_lex.l): a binding's head "%N = op(" and a list of
 * names and numbers "%a, 1f)", each read as the short tokens it
 * contracts would be, with the same actions in the same order. */
#include "relay_load.h"

/* note [names split once]: the scanner split a NAMES token into its
 * items as it checked it (relay_scan_names); they are the token's when
 * the first starts where it does.  The parser reads no token past a
 * NAMES before its action, so they always are; were they another's,
 * the token is split again. */
static const RelayText *names_items(RelayParser *ps, RelayText names, size_t *n)
{
    RelayLexer *lx = ps->lexer;
    if (!lx->items.len || lx->items.items[0].off != names.off)
        relay_scan_names(lx, names.off);
    *n = lx->items.len;
    return lx->items.items;
}

enum { CELL_DIGITS = 6 }; /* a temp of up to six digits is below TEMP_DIRECT */

/* The node of the temp item ("%12") when it is a cell's (note [temps by
 * number] in relay_load_scope.c), read here: a model's result tuple
 * lists thousands of temps, and scope_lookup's call was most of each. */
static graft_node *temp_in_cell(const RelayParser *ps, RelayText item)
{
    const char *s = ps->src->text + item.off + 1;
    if (item.len < 2 || item.len > 1 + CELL_DIGITS)
        return NULL;
    uint64_t number = 0;
    for (uint32_t i = 0; i + 1 < item.len; i++) {
        unsigned digit = (unsigned char)s[i] - '0';
        if (digit > 9)
            return NULL;
        number = number * 10 + digit;
    }
    return scope_temp(ps, number);
}

/* An item as an operand: a name's definition (load_use, found by
 * scope_lookup without its call when it is defined), a number's constant
 * (load_const). */
static graft_node *operand(RelayParser *ps, RelayText item)
{
    if (ps->src->text[item.off] != '%')
        return load_const(ps, item);
    graft_node *n = temp_in_cell(ps, item);
    if (n)
        return n;
    if (!scope_lookup(ps, item, &n)) /* (reported: a temp number too large) */
        return NULL;
    return n ? n : load_use(ps, item);
}

/* BIND's "%N" and op name were found by the scanner (lx->bind_temp
 * and bind_op) when this BIND is the last one it scanned. */
RelayText load_bind_temp(const RelayParser *ps, RelayText bind)
{
    if (ps->lexer->bind_temp.off == bind.off)
        return ps->lexer->bind_temp;
    const char *s = ps->src->text + bind.off;
    uint32_t n = 1;
    while (s[n] >= '0' && s[n] <= '9')
        n++;
    return (RelayText){bind.off, n};
}

/* BIND's op name, between the '=' and its blanks and the '('. */
static RelayText bind_op(const RelayParser *ps, RelayText bind)
{
    if (ps->lexer->bind_temp.off == bind.off)
        return ps->lexer->bind_op;
    const char *s = ps->src->text;
    uint32_t i = bind.off + 1;
    while (s[i] != '=')
        i++;
    i++;
    while (s[i] == ' ' || s[i] == '\t')
        i++;
    return (RelayText){i, bind.off + bind.len - 1 - i};
}

graft_node *load_bind_call(RelayParser *ps, RelayText bind, size_t mark)
{
    RelayText op = bind_op(ps, bind);
    return load_at(ps, load_call(ps, op, mark), op);
}

/* The scanner's parts of a BINDING are still its own when the last BIND
 * and NAMES it scanned are this one's (note [names split once]); else it
 * is scanned again. */
graft_node *load_binding(RelayParser *ps, RelayText binding)
{
    RelayLexer *lx = ps->lexer;
    if (lx->bind_temp.off != binding.off || lx->names_at != lx->bind_end || !lx->items.len)
        relay_scan_names(lx, binding.off + relay_scan_bind(lx, binding.off));
    return load_call_names(ps, lx->bind_op, (RelayText){lx->items.items[0].off, 0});
}

graft_node *load_bind_names(RelayParser *ps, RelayText bind, RelayText names)
{
    return load_call_names(ps, bind_op(ps, bind), names);
}

/* The items made operands in turn (operand), in the parser's scratch
 * nodes; NULL after an error. */
static graft_node **scratch_operands(RelayParser *ps, const RelayText *items, size_t n)
{
    if (n + 1 > ps->scratch_nodes_cap)
        ps->scratch_nodes =
            xgrow_items(ps->scratch_nodes, &ps->scratch_nodes_cap, n + 1, sizeof(graft_node *));
    for (size_t i = 0; i < n; i++)
        if (!(ps->scratch_nodes[i] = operand(ps, items[i])))
            return NULL;
    return ps->scratch_nodes;
}

/* op '(' items ')': each item made an operand in turn (operand), then
 * the call made, as load_call would from the item stack. */
graft_node *load_call_names(RelayParser *ps, RelayText op, RelayText names)
{
    size_t nargs;
    const RelayText *items = names_items(ps, names, &nargs);
    graft_node **args = scratch_operands(ps, items, nargs);
    if (!args)
        return NULL;
    graft_node *n = graph_add_call(ps->g, load_intern(ps, op), args, (int)nargs, NULL, 0);
    return load_at(ps, n, op);
}

/* Each item made an operand and pushed on the item stack, as args or
 * fields push them; false after an error. */
static bool push_uses(RelayParser *ps, RelayText names)
{
    size_t n;
    const RelayText *items = names_items(ps, names, &n);
    for (size_t i = 0; i < n; i++) {
        graft_node *node = operand(ps, items[i]);
        if (!node)
            return false;
        load_push_node(ps, node);
    }
    return true;
}

graft_node *load_fn_call_names(RelayParser *ps, graft_node *callee, RelayText names,
                               RelayText paren)
{
    size_t mark = load_mark(ps);
    return push_uses(ps, names) ? load_fn_call(ps, callee, mark, paren) : NULL;
}

/* note [tuple of names]: a model's result is a tuple of its outputs,
 * the batch-norm workload's of 10,000 temps, a NAMES token.  Pushed on
 * the item stack (32 bytes an item, the stack doubled to 0.52 MB) and
 * taken from it by load_paren (take_args' room for as many attributes,
 * 0.26 MB more), they were 0.78 MB at the loader's peak, which is the
 * body's end.  So '(' NAMES makes its items operands in the scratch
 * nodes, 8 bytes each, and the tuple (or the one field) from them, as
 * load_paren would from the stack. */
graft_node *load_paren_names(RelayParser *ps, RelayText names)
{
    size_t n;
    const RelayText *items = names_items(ps, names, &n);
    graft_node **fields = scratch_operands(ps, items, n);
    if (!fields)
        return NULL;
    return n == 1 ? fields[0] : graph_add_tuple(ps->g, fields, (int)n);
}

/* A NAMES token as a function's parameters: each a name (a temp or a
 * number is not one: the second attempt reports it), defined and pushed
 * in turn. */
bool load_param_names(RelayParser *ps, RelayText names)
{
    size_t n;
    const RelayText *items = names_items(ps, names, &n);
    /* the stack and the names' table take them all at once */
    vec_reserve(&ps->items, ps->items.len + n);
    keymap_reserve(&ps->keys, n);
    for (size_t i = 0; i < n; i++) {
        RelayText name = items[i];
        const char *s = load_text(ps, name);
        if (s[0] != '%' || (s[1] >= '0' && s[1] <= '9')) {
            ps->failed = true;
            return false;
        }
        graft_node *v = load_param(ps, name, NULL, NULL);
        if (!v)
            return false;
        load_push_node(ps, v);
    }
    return true;
}
