/* emit_c_states.c - the automaton's states and transitions as static
 * tables (note [compiled states] in graft_rules.h): computed here by the
 * runtime's own closure (automaton_close) and written with comments that
 * say what each state holds and which rules it accepts, and what each row
 * stands for, so that a compiled rule set builds no state at run time. */
#include "emit_c_impl.h"

#include <inttypes.h>
#include <stdlib.h>

#include "automaton.h"

/* The names of SymTag's values, as rows print their kind. */
static const char *const tag_names[] = {
    [SYM_VAR] = "a parameter", [SYM_CONST] = "a constant", [SYM_OP] = "a call of",
    [SYM_FNCALL] = "a call of a function", [SYM_TUPLE] = "a tuple",
    [SYM_GETITEM] = "element", [SYM_FUNC] = "an opaque value", [SYM_FN] = "a function",
    [SYM_IF] = "an if", [SYM_LET] = "a let",
};

/* ids as an array, written once per distinct content (note [one
 * definition] in emit_c_impl.h: equal tables share one name, the first's,
 * so the rows and heads below say what each stands for); "NULL" when n is
 * 0. */
static const char *st_array(Emitter *E, const char *hint, const uint32_t *v, uint32_t n)
{
    if (n == 0)
        return "NULL";
    StrBuf sb = {0};
    for (uint32_t i = 0; i < n; i++)
        strbuf_printf(&sb, "%s%u", i ? ", " : "{", v[i]);
    strbuf_putc(&sb, '}');
    const char *name = emit_def(E, "uint32_t", true, hint, sb.data);
    strbuf_free(&sb);
    return name;
}

/* "st_" then what: the op as an identifier ("st_nn_conv2d"), or the kind. */
static void st_hint(StrBuf *hint, const graft_automaton_row *r, const char *const *ops,
                    uint32_t nops)
{
    static const char *const kinds[] = {
        [SYM_VAR] = "var", [SYM_CONST] = "const", [SYM_OP] = "other_op",
        [SYM_FNCALL] = "fncall", [SYM_TUPLE] = "tuple", [SYM_GETITEM] = "getitem",
        [SYM_FUNC] = "opaque", [SYM_FN] = "fn", [SYM_IF] = "if", [SYM_LET] = "let",
    };
    if (r->tag == SYM_OP && r->a < nops) {
        strbuf_puts(hint, "st_");
        emit_ident(hint, "op_", ops[r->a]);
    } else
        strbuf_printf(hint, "st_%s", r->tag < ARRAY_LEN(kinds) ? kinds[r->tag] : "row");
    if (r->tag == SYM_GETITEM)
        strbuf_printf(hint, "%u", r->a);
}

/* "items 0, 4; accepts bn (bn.graft:1)": what state s holds. */
static void state_comment(Emitter *E, const graft_automaton_states *st, uint32_t s, StrBuf *sb)
{
    const graft_rule_set *rs = E->rs;
    size_t words = automaton_set_words(rs->nitems);
    const uint64_t *set = st->bits + s * words;
    const char *sep = "items ";
    strbuf_printf(sb, "s%u: ", s);
    for (uint32_t i = 0; i < rs->nitems; i++)
        if ((set[i / 64] >> (i % 64)) & 1) {
            strbuf_printf(sb, "%s%u", sep, i);
            sep = ", ";
        }
    if (*sep == 'i')
        strbuf_puts(sb, "no item");
    for (uint32_t k = st->accept_off[s]; k < st->accept_off[s + 1]; k++) {
        const graft_rule *r = &rs->rules[st->accepts[k]];
        strbuf_printf(sb, "%s%s (%s:%d)", k == st->accept_off[s] ? "; accepts " : ", ", r->name,
                      r->file, r->line);
    }
}

/* The states' item sets, one a line under its comment. */
static const char *emit_state_bits(Emitter *E, const graft_automaton_states *st)
{
    size_t words = automaton_set_words(E->rs->nitems);
    const char *name = emit_unique(E, "st_bits");
    emit_line(E, "/* Each state's item set: bit i of word i / 64 is items[i]. */");
    emit_table_start(E, "uint64_t", name);
    for (uint32_t s = 0; s < st->nstates; s++) {
        StrBuf sb = {0}, text = {0};
        state_comment(E, st, s, &sb);
        emit_comment_text(&text, sb.data);
        emit_line(E, "/* %s */", text.data);
        sb.len = 0;
        for (size_t w = 0; w < words; w++)
            strbuf_printf(&sb, "%sUINT64_C(0x%" PRIx64 ")", w ? ", " : "", st->bits[s * words + w]);
        emit_line(E, "%s,", sb.data);
        strbuf_free(&sb);
        strbuf_free(&text);
    }
    emit_table_end(E);
    return name;
}

/* Per head, the classes of the states and the tests its items ask. */
static const char *emit_heads(Emitter *E, const graft_automaton_states *st,
                              const char *const *ops)
{
    uint32_t nops = st->nheads - 1;
    char **cls = xcalloc(st->nheads, sizeof *cls), **tests = xcalloc(st->nheads, sizeof *tests);
    for (uint32_t h = 0; h < st->nheads; h++) {
        const graft_automaton_head *hd = &st->heads[h];
        StrBuf hint = {0};
        strbuf_puts(&hint, "st_");
        if (h < nops)
            emit_ident(&hint, "op_", ops[h]);
        else
            strbuf_puts(&hint, "other");
        size_t len = hint.len;
        strbuf_puts(&hint, "_classes");
        cls[h] = xstrdup(st_array(E, hint.data, hd->class_of, st->nstates));
        hint.len = len;
        strbuf_puts(&hint, "_tests");
        tests[h] = xstrdup(st_array(E, hint.data, hd->tests, hd->ntests));
        strbuf_free(&hint);
    }
    emit_blank(E);
    const char *name = emit_unique(E, "st_heads");
    emit_line(E, "/* Per head (an op rules name, then every other symbol): how many classes of");
    emit_line(E, " * operand states its items tell apart, each state's class, and the tests its");
    emit_line(E, " * items ask (ids into preds[]). */");
    emit_table_start(E, "graft_automaton_head", name);
    for (uint32_t h = 0; h < st->nheads; h++) {
        emit_line(E, "/* %u: %s */", h, h < nops ? ops[h] : "any other symbol");
        emit_line(E, "{%u, %s, %u, %s},", st->heads[h].nclasses, cls[h], st->heads[h].ntests,
                  tests[h]);
        free(cls[h]);
        free(tests[h]);
    }
    emit_table_end(E);
    free(cls);
    free(tests);
    return name;
}

/* "a call of nn.conv2d, 2 operands, passing preds[3]": what row r stands for. */
static void row_comment(const graft_automaton_row *r, const char *const *ops, uint32_t nops,
                        StrBuf *sb)
{
    strbuf_puts(sb, r->tag < ARRAY_LEN(tag_names) ? tag_names[r->tag] : "?");
    if (r->tag == SYM_OP)
        strbuf_printf(sb, " %s", r->a < nops ? ops[r->a] : "an op no rule names");
    if (r->tag == SYM_GETITEM)
        strbuf_printf(sb, " .%u", r->a);
    strbuf_printf(sb, ", %u operand%s", r->nargs, r->nargs == 1 ? "" : "s");
    for (uint32_t k = 0; k < r->npreds; k++)
        strbuf_printf(sb, "%spreds[%u]", k ? ", " : ", passing ", r->preds[k]);
}

/* How many classes of operand states row's head tells apart: its op's
 * head (the last head, "any other symbol", for a row of any other kind). */
static uint32_t row_classes(const graft_automaton_states *st, const graft_automaton_row *row)
{
    uint32_t nops = st->nheads - 1;
    return st->heads[row->tag == SYM_OP && row->a < nops ? row->a : nops].nclasses;
}

/* One row's table of states, named after the row. */
static char *emit_row_table(Emitter *E, const graft_automaton_states *st,
                            const graft_automaton_row *row, const char *const *ops)
{
    uint32_t k = row_classes(st, row), cells = 1;
    for (uint32_t n = 0; n < row->nargs; n++)
        cells *= k;
    StrBuf hint = {0};
    st_hint(&hint, row, ops, st->nheads - 1);
    strbuf_printf(&hint, "_%u", row->nargs);
    char *name = xstrdup(st_array(E, hint.data, row->next, cells));
    strbuf_free(&hint);
    return name;
}

/* What row stands for and how its table is read. */
static void row_comment_line(Emitter *E, const graft_automaton_states *st,
                             const graft_automaton_row *row, const char *const *ops)
{
    uint32_t k = row_classes(st, row);
    StrBuf sb = {0};
    row_comment(row, ops, st->nheads - 1, &sb);
    if (row->nargs > 1)
        strbuf_printf(&sb, ": by operand classes, (c0 * %u + c1)%s", k,
                      row->nargs > 2 ? " * ..." : "");
    else if (row->nargs == 1)
        strbuf_puts(&sb, ": by operand class");
    emit_line(E, "/* %s */", sb.data);
    strbuf_free(&sb);
}

/* The rows: per symbol, its states by operand classes. */
static const char *emit_rows(Emitter *E, const graft_automaton_states *st, const char *const *ops)
{
    char **next = xcalloc(st->nrows + 1, sizeof *next), **preds = xcalloc(st->nrows + 1,
                                                                          sizeof *preds);
    for (uint32_t r = 0; r < st->nrows; r++) {
        const graft_automaton_row *row = &st->rows[r];
        next[r] = emit_row_table(E, st, row, ops);
        preds[r] = xstrdup(st_array(E, "st_row_tests", row->preds, row->npreds));
    }
    emit_blank(E);
    const char *name = emit_unique(E, "st_rows");
    emit_line(E, "/* Per symbol: its kind (SymTag), op index or element index, the tests it");
    emit_line(E, " * passes among its head's, its operands, and its state per tuple of its");
    emit_line(E, " * operands' classes (their head's class_of). */");
    emit_table_start(E, "graft_automaton_row", name);
    for (uint32_t r = 0; r < st->nrows; r++) {
        const graft_automaton_row *row = &st->rows[r];
        row_comment_line(E, st, row, ops);
        char a[16];
        if (row->a == UINT32_MAX)
            snprintf(a, sizeof a, "UINT32_MAX");
        else
            snprintf(a, sizeof a, "%u", row->a);
        emit_line(E, "{%u, %s, %u, %s, %u, %s},", row->tag, a, row->npreds, preds[r],
                  row->nargs, next[r]);
        free(next[r]);
        free(preds[r]);
    }
    emit_table_end(E);
    free(next);
    free(preds);
    return name;
}

const char *emit_automaton_states(Emitter *E, const char *const *ops)
{
    graft_automaton_states *st = automaton_close(E->rs);
    if (!st)
        return "NULL";
    emit_line(E, "/* ---- the automaton's states and transitions (note [compiled states] in");
    emit_line(E, " * graft_rules.h): graft compile reached %u states from the rules' symbols",
              st->nstates);
    emit_line(E, " * ---- */");
    emit_blank(E);
    const char *bits = emit_state_bits(E, st);
    StrBuf sb = {0};
    for (uint32_t s = 0; s <= st->nstates; s++)
        strbuf_printf(&sb, "%s%u", s ? ", " : "{", st->accept_off[s]);
    strbuf_putc(&sb, '}');
    const char *off = emit_def(E, "uint32_t", true, "st_accept_off", sb.data);
    const char *acc = st_array(E, "st_accepts", st->accepts, st->accept_off[st->nstates]);
    emit_blank(E);
    const char *heads = emit_heads(E, st, ops);
    const char *rows = emit_rows(E, st, ops);
    const char *name = emit_unique(E, "st");
    emit_line(E, "/* The states (rules state s accepts, best first: accepts[accept_off[s],");
    emit_line(E, " * accept_off[s + 1])), the heads and the rows. */");
    emit_line(E, "static const graft_automaton_states %s = {", name);
    E->indent++;
    emit_line(E, ".nstates = %u, .bits = %s,", st->nstates, bits);
    emit_line(E, ".accept_off = %s, .accepts = %s,", off, acc);
    emit_line(E, ".nheads = %u, .heads = %s,", st->nheads, heads);
    emit_line(E, ".nrows = %u, .rows = %s,", st->nrows, rows);
    emit_table_end(E);
    strbuf_free(&sb);
    automaton_states_free(st);
    return name;
}
