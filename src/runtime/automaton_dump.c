/* automaton_dump.c - the automaton as text or Graphviz
 * (graft check --dump-automaton [--dot]).
 *
 * Shows what the builder made from the rules: the node tests, the items
 * (the merged pattern DAG: sub-patterns shared between rules appear once),
 * the ops and the items each dispatches to, the rules with the item they
 * accept at, and the states built so far (transitions are made lazily,
 * so before any graph was labelled there are none).
 */
#include "automaton.h"

#include <string.h>

#include "util.h"

static void put_pred(FILE *out, const graft_pred *p)
{
    switch (p->kind) {
    case GRAFT_PRED_IS_CONST: fputs("const", out); break;
    case GRAFT_PRED_IS_VAR: fputs("var", out); break;
    case GRAFT_PRED_VAR_NAME: fprintf(out, "var(\"%s\")", p->s); break;
    case GRAFT_PRED_DTYPE: fprintf(out, "dtype %s", p->s); break;
    case GRAFT_PRED_RANK: fprintf(out, "rank %lld", (long long)p->i); break;
    case GRAFT_PRED_SHAPE:
        fputs("shape (", out);
        for (int i = 0; i < p->rank; i++) {
            if (p->dims[i] < 0)
                fprintf(out, "%s_", i ? ", " : "");
            else
                fprintf(out, "%s%lld", i ? ", " : "", (long long)p->dims[i]);
        }
        fprintf(out, ")%s%s", p->s ? " " : "", p->s ? p->s : "");
        break;
    case GRAFT_PRED_VALUE: fprintf(out, "value %.17g", p->f); break;
    case GRAFT_PRED_OP_VALUE: fprintf(out, "op %s", p->s); break;
    case GRAFT_PRED_ATTR:
        fprintf(out, "%s%s%s == %s", p->op ? p->op : "fn", p->op ? "." : "[", p->s, p->key);
        if (!p->op)
            fputc(']', out);
        if (p->dflt)
            fprintf(out, " (default %s)", p->dflt);
        break;
    }
}

static const char *const item_names[] = {"any", "op", "fncall", "tuple", "getitem", "alt",
                                          "star", "dompath", "domreach", "dominates",
                                          "call", "fn", "if", "let"};

/* "i3 = multiply(i0, i2) commutative [t1]" */
static void put_item(FILE *out, const graft_item *it, uint32_t id)
{
    fprintf(out, "i%u = ", id);
    if (it->kind == GRAFT_PITEM_OP)
        fputs(it->op, out);
    else if (it->kind == GRAFT_PITEM_STAR)
        fprintf(out, "%s*", it->op);
    else if (it->kind == GRAFT_PITEM_GETITEM && it->index < 0)
        fputs("getitem._", out);
    else if (it->kind == GRAFT_PITEM_GETITEM)
        fprintf(out, "getitem.%d", it->index);
    else
        fputs(item_names[it->kind], out);
    if (it->kind != GRAFT_PITEM_ANY) {
        fputc('(', out);
        for (int i = 0; i < it->nargs; i++)
            fprintf(out, "%si%u", i ? (it->kind == GRAFT_PITEM_ALT ? " | " : ", ") : "",
                    it->args[i]);
        fprintf(out, "%s)", it->variadic ? ", ..." : "");
    }
    if (it->commutative)
        fputs(" commutative", out);
    if (it->npreds) {
        fputs(" [", out);
        for (int i = 0; i < it->npreds; i++)
            fprintf(out, "%st%u", i ? ", " : "", it->preds[i]);
        fputc(']', out);
    }
}

/* The header, the node tests and the items. */
static void dump_items(const Automaton *a, FILE *out)
{
    const graft_rule_set *rs = automaton_rules(a);
    fprintf(out, "automaton: %u rules, %u items, %u tests, %u states, %u transitions\n",
            rs->nrules, rs->nitems, rs->npreds, automaton_nstates(a), automaton_ntransitions(a));
    fputs("tests:\n", out);
    for (uint32_t i = 0; i < rs->npreds; i++) {
        fprintf(out, "  t%u = ", i);
        put_pred(out, &rs->preds[i]);
        fputc('\n', out);
    }
    fputs("items:\n", out);
    for (uint32_t i = 0; i < rs->nitems; i++) {
        fputs("  ", out);
        put_item(out, &rs->items[i], i);
        fputc('\n', out);
    }
}

/* Which items each op dispatches to, and where each rule accepts. */
static void dump_ops_rules(const Automaton *a, FILE *out)
{
    const graft_rule_set *rs = automaton_rules(a);
    fputs("ops:\n", out);
    for (uint32_t o = 0; o < automaton_nops(a); o++) {
        uint32_t n;
        const uint32_t *its = automaton_op_items(a, o, &n);
        fprintf(out, "  %s:", automaton_op_name(a, o));
        for (uint32_t k = 0; k < n; k++)
            fprintf(out, " i%u", its[k]);
        fputc('\n', out);
    }
    fputs("rules:\n", out);
    for (uint32_t r = 0; r < rs->nrules; r++)
        fprintf(out, "  %s (%s:%d) accepts at i%u, priority %d%s\n", rs->rules[r].name,
                rs->rules[r].file, rs->rules[r].line, rs->rules[r].pattern->item,
                rs->rules[r].priority, rs->rules[r].once ? ", once" : "");
}

/* The states built so far, with the rules each accepts. */
static void dump_states(const Automaton *a, FILE *out)
{
    const graft_rule_set *rs = automaton_rules(a);
    fputs("states:\n", out);
    for (uint32_t s = 0; s < automaton_nstates(a); s++) {
        fprintf(out, "  s%u = {", s);
        const char *sep = "";
        for (uint32_t i = 0; i < rs->nitems; i++)
            if (automaton_state_has(a, s, i)) {
                fprintf(out, "%si%u", sep, i);
                sep = ", ";
            }
        fputc('}', out);
        uint32_t n;
        const uint32_t *acc = automaton_state_rules(a, s, &n);
        for (uint32_t k = 0; k < n; k++)
            fprintf(out, "%s%s", k ? ", " : " accepts ", rs->rules[acc[k]].name);
        fputc('\n', out);
    }
}

/* Writes s as a Graphviz string body, escaping quotes and backslashes. */
static void put_escaped(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        fputc(*s, out);
    }
}

static void dump_dot(const Automaton *a, FILE *out)
{
    const graft_rule_set *rs = automaton_rules(a);
    fputs("digraph automaton {\n  rankdir=BT;\n  node [fontname=\"monospace\"];\n", out);
    for (uint32_t i = 0; i < rs->nitems; i++) {
        const graft_item *it = &rs->items[i];
        const char *label = it->kind == GRAFT_PITEM_OP || it->kind == GRAFT_PITEM_STAR
                                ? it->op : item_names[it->kind];
        fprintf(out, "  i%u [shape=%s, label=\"i%u: ", i,
                it->kind == GRAFT_PITEM_ALT ? "diamond" : "ellipse", i);
        put_escaped(out, label);
        fprintf(out, "%s%s\"];\n", it->kind == GRAFT_PITEM_STAR ? "*" : "",
                it->npreds ? " [tests]" : "");
        for (int k = 0; k < it->nargs; k++)
            fprintf(out, "  i%u -> i%u [label=\"%d\"];\n", it->args[k], i, k);
        if (it->kind == GRAFT_PITEM_STAR)
            fprintf(out, "  i%u -> i%u [style=dashed];\n", i, i);
    }
    for (uint32_t r = 0; r < rs->nrules; r++) {
        fprintf(out, "  r%u [shape=box, label=\"", r);
        put_escaped(out, rs->rules[r].name);
        fprintf(out, "\"];\n  i%u -> r%u [style=bold];\n", rs->rules[r].pattern->item, r);
    }
    fputs("}\n", out);
}

void automaton_dump(const Automaton *a, FILE *out, bool dot)
{
    if (dot) {
        dump_dot(a, out);
        return;
    }
    dump_items(a, out);
    dump_ops_rules(a, out);
    dump_states(a, out);
}
