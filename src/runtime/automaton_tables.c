/* automaton_tables.c - the states and transitions graft compile wrote
 * (note [compiled states] in graft_rules.h), read by a compiled rule
 * set's automaton: a step the memo has not seen finds its symbol's row
 * and, from its operands' classes, its state, instead of building the
 * state's item set (automaton.c).  Only memo misses come here, a few
 * dozen a run, so the rows are searched in order. */
#include "automaton_impl.h"

#include <string.h>

void automaton_reach(Automaton *a, uint32_t s)
{
    if (s < a->nwritten && !a->reached[s]) {
        a->reached[s] = 1;
        a->nreached++;
    }
}

/* The head a symbol's row belongs to: its op when a rule names it, else
 * the one for every other symbol (index nops). */
static uint32_t head_of(const Automaton *a, const Symbol *sym)
{
    return sym->tag == SYM_OP && sym->a != SYM_OTHER_OP ? sym->a : a->ix.nops;
}

/* Keeps of sym's tests those the head's items ask (both ascending) in
 * out, which has room for sym->npreds; returns how many. */
static uint32_t head_tests(const graft_automaton_head *h, const Symbol *sym, uint32_t *out)
{
    uint32_t n = 0, j = 0;
    for (uint32_t i = 0; i < sym->npreds; i++) {
        while (j < h->ntests && h->tests[j] < sym->preds[i])
            j++;
        if (j < h->ntests && h->tests[j] == sym->preds[i])
            out[n++] = sym->preds[i];
    }
    return n;
}

static const graft_automaton_row *find_row(const graft_automaton_states *st, const Symbol *sym,
                                           const uint32_t *preds, uint32_t npreds)
{
    for (uint32_t r = 0; r < st->nrows; r++) {
        const graft_automaton_row *row = &st->rows[r];
        if (row->tag == sym->tag && row->a == sym->a && row->nargs == sym->nargs &&
            row->npreds == npreds &&
            (npreds == 0 || memcmp(row->preds, preds, npreds * sizeof *preds) == 0))
            return row;
    }
    return NULL;
}

uint32_t automaton_table_step(const Automaton *a, const Symbol *sym)
{
    const graft_automaton_states *st = a->st;
    const graft_automaton_head *h = &st->heads[head_of(a, sym)];
    uint32_t small[16];
    if (sym->npreds > 16)
        return STATE_NONE; /* more tests than any row holds: built */
    uint32_t npreds = head_tests(h, sym, small);
    const graft_automaton_row *row = find_row(st, sym, small, npreds);
    if (!row)
        return STATE_NONE;
    size_t cell = 0;
    for (uint32_t k = 0; k < sym->nargs; k++) {
        if (sym->args[k] >= a->nwritten)
            return STATE_NONE; /* an operand in a state built at run time */
        cell = cell * h->nclasses + h->class_of[sym->args[k]];
    }
    return row->next[cell];
}
