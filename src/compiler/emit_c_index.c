/* emit_c_index.c - the automaton's index as static tables (note [compiled
 * index] in graft_rules.h): what automaton_new builds from the lowered
 * rules before any state, built here once by the runtime's own code and
 * written out, so that a compiled rule set's automaton starts from const
 * data and builds nothing at start-up. */
#include "emit_c_impl.h"

#include <stdlib.h>
#include <string.h>

#include "automaton.h"
#include "match.h"

/* ids as a uint32_t array of its own, "NULL" when there are none; hint
 * names it. */
static const char *id_array(Emitter *E, const char *hint, const uint32_t *ids, uint32_t n)
{
    if (n == 0)
        return "NULL";
    StrBuf sb = {0};
    strbuf_putc(&sb, '{');
    for (uint32_t i = 0; i < n; i++)
        strbuf_printf(&sb, "%s%u", i ? ", " : "", ids[i]);
    strbuf_putc(&sb, '}');
    const char *name = emit_def(E, "uint32_t", true, hint, sb.data);
    strbuf_free(&sb);
    return name;
}

/* An id array of op's, named "ix_", the op as an identifier, then what. */
static char *op_array(Emitter *E, const char *op, const char *what, const uint32_t *ids,
                      uint32_t n)
{
    StrBuf hint = {0};
    strbuf_puts(&hint, "ix_");
    emit_ident(&hint, "op_", op);
    strbuf_puts(&hint, what);
    char *name = xstrdup(id_array(E, hint.data, ids, n));
    strbuf_free(&hint);
    return name;
}

/* The ops, each with the items it heads and its attribute tests, in the
 * automaton's op order (the labeller's op index). */
static const char *emit_index_ops(Emitter *E, const graft_automaton_index *ix)
{
    if (ix->nops == 0)
        return "NULL";
    char **items = xcalloc(ix->nops, sizeof *items), **preds = xcalloc(ix->nops, sizeof *preds);
    emit_line(E, "/* Ops some rule names, by the op index the labeller gives a call: the");
    emit_line(E, " * items each heads (ids into items[]) and its attribute tests (ids into");
    emit_line(E, " * preds[], in test order). */");
    StrBuf s = {0};
    for (uint32_t o = 0; o < ix->nops; o++) {
        const graft_automaton_op *op = &ix->ops[o];
        items[o] = op_array(E, op->name, "_items", op->items, op->nitems);
        preds[o] = op_array(E, op->name, "_tests", op->preds, op->npreds);
    }
    const char *name = emit_unique(E, "ix_ops");
    emit_table_start(E, "graft_automaton_op", name);
    for (uint32_t o = 0; o < ix->nops; o++) {
        const graft_automaton_op *op = &ix->ops[o];
        emit_line(E, "/* %u */ {%s, %u, %s, %u, %s},", o, emit_str(&s, op->name), op->nitems,
                  items[o], op->npreds, preds[o]);
        free(items[o]);
        free(preds[o]);
    }
    emit_table_end(E);
    free(items);
    free(preds);
    strbuf_free(&s);
    return name;
}

/* The rules best first, one a line with the rule it is. */
static const char *emit_rule_order(Emitter *E, const uint32_t *order)
{
    const graft_rule_set *rs = E->rs;
    if (rs->nrules == 0)
        return "NULL";
    const char *name = emit_unique(E, "ix_rule_order");
    emit_line(E, "/* The rules best first (higher priority, then file order): the order in");
    emit_line(E, " * which a state lists the rules it accepts. */");
    emit_table_start(E, "uint32_t", name);
    for (uint32_t k = 0; k < rs->nrules; k++) {
        const graft_rule *r = &rs->rules[order[k]];
        StrBuf sb = {0}, text = {0};
        strbuf_printf(&sb, "%s (%s:%d), priority %d", r->name, r->file, r->line, r->priority);
        emit_comment_text(&text, sb.data);
        emit_line(E, "%u, /* %s */", order[k], text.data);
        strbuf_free(&sb);
        strbuf_free(&text);
    }
    emit_table_end(E);
    return name;
}

/* Per item, the op index of its head op, UINT32_MAX when no op heads it. */
static const char *emit_item_ops(Emitter *E, const uint32_t *item_op)
{
    const graft_rule_set *rs = E->rs;
    if (rs->nitems == 0)
        return "NULL";
    StrBuf sb = {0};
    strbuf_putc(&sb, '{');
    for (uint32_t i = 0; i < rs->nitems; i++) {
        strbuf_puts(&sb, i ? ", " : "");
        if (item_op[i] == SYM_OTHER_OP)
            strbuf_puts(&sb, "UINT32_MAX");
        else
            strbuf_printf(&sb, "%u", item_op[i]);
    }
    strbuf_putc(&sb, '}');
    const char *name = emit_def(E, "uint32_t", true, "ix_item_op", sb.data);
    strbuf_free(&sb);
    return name;
}

/* What the matcher decides per rule before any node (matcher_rule_facts):
 * names[0] the steps' array, names[1] the checked one. */
static void emit_rule_facts(Emitter *E, const char *names[2])
{
    const graft_rule_set *rs = E->rs;
    names[0] = names[1] = "NULL";
    if (rs->nrules == 0)
        return;
    StrBuf steps = {0}, checked = {0};
    for (uint32_t r = 0; r < rs->nrules; r++) {
        uint32_t proof;
        bool check;
        matcher_rule_facts(&rs->rules[r], &proof, &check);
        strbuf_printf(&steps, "%s%u", r ? ", " : "{", proof);
        strbuf_printf(&checked, "%s%s", r ? ", " : "{", check ? "true" : "false");
    }
    strbuf_putc(&steps, '}');
    strbuf_putc(&checked, '}');
    names[0] = emit_def(E, "uint32_t", true, "ix_proof_steps", steps.data);
    names[1] = emit_def(E, "bool", true, "ix_checked", checked.data);
    strbuf_free(&steps);
    strbuf_free(&checked);
}

const char *emit_automaton_index(Emitter *E)
{
    Automaton *a = automaton_new(E->rs);
    const graft_automaton_index *ix = automaton_index_of(a);
    emit_line(E, "/* ---- the automaton's index (note [compiled index] in graft_rules.h) ---- */");
    emit_blank(E);
    const char *ops = emit_index_ops(E, ix);
    const char *item_op = emit_item_ops(E, ix->item_op);
    const char *generic = id_array(E, "ix_generic", ix->generic, ix->ngeneric);
    const char *node_preds = id_array(E, "ix_node_tests", ix->node_preds, ix->nnode_preds);
    const char *fn_preds = id_array(E, "ix_fn_tests", ix->fn_preds, ix->nfn_preds);
    const char *facts[2];
    emit_rule_facts(E, facts);
    emit_blank(E);
    const char *order = emit_rule_order(E, ix->rule_order);
    const char **op_names = xcalloc((size_t)ix->nops + 1, sizeof *op_names);
    for (uint32_t o = 0; o < ix->nops; o++)
        op_names[o] = ix->ops[o].name;
    const char *states = emit_automaton_states(E, op_names);
    free(op_names);
    const char *name = emit_unique(E, "ix");
    emit_line(E, "static const graft_automaton_index %s = {", name);
    E->indent++;
    emit_line(E, "/* the ops above, by the labeller's op index */");
    emit_line(E, ".nops = %u, .ops = %s,", ix->nops, ops);
    emit_line(E, "/* per item of items[]: its head op's index (UINT32_MAX: none) */");
    emit_line(E, ".item_op = %s,", item_op);
    emit_line(E, "/* the items no op heads, decided at every node */");
    emit_line(E, ".ngeneric = %u, .generic = %s,", ix->ngeneric, generic);
    emit_line(E, "/* node tests evaluated on every node, function attribute tests */");
    emit_line(E, ".nnode_preds = %u, .node_preds = %s,", ix->nnode_preds, node_preds);
    emit_line(E, ".nfn_preds = %u, .fn_preds = %s,", ix->nfn_preds, fn_preds);
    emit_line(E, ".rule_order = %s,", order);
    emit_line(E, "/* some pattern is a fn, if or let: their nodes get operand states */");
    emit_line(E, ".scopes = %s,", ix->scopes ? "true" : "false");
    emit_line(E, "/* per rule of rules[]: the most steps its try takes where its state");
    emit_line(E, " * proves it (0: a try verifies it), and whether the states tell it");
    emit_line(E, " * without a try (notes [proven rules], [checked rules]) */");
    emit_line(E, ".proof_steps = %s, .checked = %s,", facts[0], facts[1]);
    emit_line(E, "/* the states and transitions, computed ahead */");
    emit_line(E, ".states = %s%s,", strcmp(states, "NULL") ? "&" : "", states);
    emit_table_end(E);
    automaton_free(a);
    return name;
}
