/* automaton_close.c - the automaton's states and transitions computed
 * ahead, for graft compile to write (note [compiled states] in
 * graft_rules.h): the labelling's own steps (automaton.c) run over every
 * symbol the rule set tells apart until no new state appears.
 *
 * note [closed symbols]: the symbols enumerated are, per head (each op a
 * rule names, and one for every other symbol):
 *   kinds    an op call (each op rules name, and any other op), a
 *            parameter, a constant, a tuple, an opaque value, an element
 *            access (indices 0-7 and those rules name), a call of a
 *            function, and a function, if or let when some pattern is one;
 *   tests    the sets of the head's tests a node of that kind can pass
 *            together: of each group of tests no node passes two of (one
 *            value, name, dtype, rank, or value of one attribute) none or
 *            one, each shape test or not, a constant's or parameter's kind
 *            test always; at most CLOSE_TEST_SETS sets a row kind;
 *   operands none to two, and the counts items of the kind (or headed by
 *            the op) ask for (one more when variadic), one for an element
 *            access, three for an if or a let; per count every tuple of
 *            the head's operand classes, a row of at most CLOSE_CELLS
 *            cells.
 * A state depends on an operand only through the items its head's items
 * ask of operands, so a state's class (its set cut to those items) stands
 * for it, and a tuple of classes for a tuple of states: the rows are
 * products of classes, not of states.  What the rows leave out (more
 * operands, other element indices, other sets of tests) is stepped at run
 * time (automaton_tables.c). */
#include "automaton_impl.h"

#include <stdlib.h>
#include <string.h>

#define CLOSE_TEST_SETS 64   /* test sets per kind of row */
#define CLOSE_MAX_TESTS 16   /* tests in one row (automaton_tables.c reads 16) */
#define CLOSE_CELLS 1024     /* cells of one row */
#define CLOSE_MAX_STATES 4096 /* beyond, nothing is written: built at run time */
#define CLOSE_GETITEMS 8     /* element indices with a row whatever the rules */

/* One head: what its candidate items (the generic ones and its op's) ask
 * of operands and of the node, and its classes so far. */
typedef struct Head {
    uint64_t *asked;         /* items asked of operands, a bitset */
    VEC(uint32_t) tests;     /* tests its candidates ask, ascending */
    VEC(uint32_t) reps;      /* per class: the first state of it */
    VEC(uint32_t) class_of;  /* per state: its class */
} Head;

/* One row being closed: a symbol without its operand states. */
typedef struct Row {
    uint32_t tag, a, head, nargs, npreds;
    uint32_t preds[CLOSE_MAX_TESTS];
} Row;

typedef struct Closure {
    Automaton *a;
    Head *heads;             /* nops + 1 */
    VEC(Row) rows;
    uint32_t *args;          /* scratch: a row's operand states */
} Closure;

/* ---- heads ---- */

static void ask(Head *h, uint32_t i)
{
    h->asked[i / 64] |= (uint64_t)1 << (i % 64);
}

/* What item i asks of a node's operands (item_decide in automaton.c): an
 * ALT's choices and the first items of STAR and the dominator items are
 * read in the node's own set, not its operands'. */
static void ask_item(Closure *c, Head *h, uint32_t i)
{
    const graft_item *it = &automaton_rules(c->a)->items[i];
    switch (it->kind) {
    case GRAFT_PITEM_ANY: case GRAFT_PITEM_ALT: break;
    case GRAFT_PITEM_STAR: case GRAFT_PITEM_DOMPATH: ask(h, i); break;
    case GRAFT_PITEM_DOMREACH: ask(h, i), ask(h, (uint32_t)it->args[2]); break;
    case GRAFT_PITEM_DOM: ask(h, (uint32_t)it->args[1]), ask(h, (uint32_t)it->args[2]); break;
    default: /* OP, FNCALL, TUPLE, CALL, FN, IF, LET, GETITEM */
        for (int k = 0; k < it->nargs; k++)
            ask(h, (uint32_t)it->args[k]);
    }
    for (int k = 0; k < it->npreds; k++)
        vec_push(&h->tests, it->preds[k]);
}

static bool u32_before(const void *ctx, uint32_t x, uint32_t y)
{
    (void)ctx;
    return x < y;
}

static void head_init(Closure *c, uint32_t h)
{
    const graft_automaton_index *ix = automaton_index_of(c->a);
    Head *hd = &c->heads[h];
    hd->asked = xcalloc(c->a->words, sizeof *hd->asked);
    for (uint32_t k = 0; k < ix->ngeneric; k++)
        ask_item(c, hd, ix->generic[k]);
    for (uint32_t k = 0; h < ix->nops && k < ix->ops[h].nitems; k++)
        ask_item(c, hd, ix->ops[h].items[k]);
    sort_u32(hd->tests.items, hd->tests.len, u32_before, NULL);
    size_t n = 0;
    for (size_t k = 0; k < hd->tests.len; k++)
        if (n == 0 || hd->tests.items[n - 1] != hd->tests.items[k])
            hd->tests.items[n++] = hd->tests.items[k];
    hd->tests.len = n;
}

/* Gives every state made since the last call its class in every head. */
static void classify_new(Closure *c)
{
    Automaton *a = c->a;
    for (uint32_t h = 0; h <= automaton_nops(a); h++) {
        Head *hd = &c->heads[h];
        for (uint32_t s = (uint32_t)hd->class_of.len; s < a->nstates; s++) {
            const uint64_t *x = automaton_state_set(a, s);
            uint32_t k = 0;
            for (; k < hd->reps.len; k++) {
                const uint64_t *y = automaton_state_set(a, hd->reps.items[k]);
                size_t w = 0;
                while (w < a->words && ((x[w] ^ y[w]) & hd->asked[w]) == 0)
                    w++;
                if (w == a->words)
                    break;
            }
            if (k == hd->reps.len)
                vec_push(&hd->reps, s);
            vec_push(&hd->class_of, k);
        }
    }
}

/* ---- rows ---- */

/* Whether a node of tag (and op index a) can pass test p (mirrors
 * node_preds and labels_symbol in automaton_label_class.c). */
static bool test_applies(const Closure *c, const graft_pred *p, uint32_t tag, uint32_t a)
{
    const graft_automaton_index *ix = automaton_index_of(c->a);
    switch (p->kind) {
    case GRAFT_PRED_DTYPE: case GRAFT_PRED_RANK: case GRAFT_PRED_SHAPE: return true;
    case GRAFT_PRED_IS_CONST: case GRAFT_PRED_VALUE: return tag == SYM_CONST;
    case GRAFT_PRED_IS_VAR: case GRAFT_PRED_VAR_NAME: return tag == SYM_VAR;
    case GRAFT_PRED_OP_VALUE: return tag == SYM_FUNC;
    case GRAFT_PRED_ATTR:
        if (!p->op)
            return tag == SYM_FNCALL || tag == SYM_FN;
        return tag == SYM_OP && a < ix->nops && strcmp(ix->ops[a].name, p->op) == 0;
    }
    return false;
}

/* Tests p and q exclude each other unless equal: a node has one value,
 * name, dtype, rank, op, and one value per attribute. */
static bool same_group(const graft_pred *p, const graft_pred *q)
{
    if (p->kind != q->kind || p->kind == GRAFT_PRED_SHAPE || p->kind == GRAFT_PRED_IS_CONST ||
        p->kind == GRAFT_PRED_IS_VAR)
        return false;
    return p->kind != GRAFT_PRED_ATTR || strcmp(p->s, q->s) == 0;
}

/* The options of one group: runs of tests equal by automaton_pred_cmp,
 * which a node passes together (labels_symbol's binary search adds the
 * whole run). */
typedef struct Group {
    uint32_t nopts;
    uint32_t start[CLOSE_MAX_TESTS + 1]; /* option k: ids[start[k], start[k + 1]) */
    uint32_t ids[CLOSE_MAX_TESTS];
    bool forced;                         /* always passed: no "none" option */
} Group;

/* Sorts the applicable tests of head hd into groups; false when there are
 * more than a row holds. */
static bool make_groups(const Closure *c, const Head *hd, uint32_t tag, uint32_t a, Group *g,
                        uint32_t *ng)
{
    const graft_pred *all = automaton_rules(c->a)->preds;
    uint32_t used = 0;
    *ng = 0;
    for (size_t k = 0; k < hd->tests.len; k++) {
        uint32_t p = hd->tests.items[k], j = 0;
        if (!test_applies(c, &all[p], tag, a))
            continue;
        if (++used > CLOSE_MAX_TESTS)
            return false;
        while (j < *ng && !same_group(&all[g[j].ids[0]], &all[p]))
            j++;
        if (j == *ng)
            g[(*ng)++] = (Group){.forced = all[p].kind == GRAFT_PRED_IS_CONST ||
                                           all[p].kind == GRAFT_PRED_IS_VAR};
        Group *gr = &g[j];
        uint32_t n = gr->nopts ? gr->start[gr->nopts] : 0, o = 0;
        while (o < gr->nopts && automaton_pred_cmp(&all[gr->ids[gr->start[o]]], &all[p]) != 0)
            o++;
        if (o == gr->nopts) /* a new option */
            gr->start[++gr->nopts] = n;
        /* insert p at the end of option o's run, shifting later runs */
        for (uint32_t m = n; m > gr->start[o + 1]; m--)
            gr->ids[m] = gr->ids[m - 1];
        gr->ids[gr->start[o + 1]] = p;
        for (uint32_t q = o + 1; q <= gr->nopts; q++)
            gr->start[q]++;
    }
    return true;
}

static void add_row(Closure *c, Row r, const uint32_t *preds, uint32_t npreds)
{
    memcpy(r.preds, preds, npreds * sizeof *preds);
    r.npreds = npreds;
    sort_u32(r.preds, npreds, u32_before, NULL);
    vec_push(&c->rows, r);
}

/* Adds one row per set of tests (note [closed symbols]) for tag, a, nargs. */
static void add_rows(Closure *c, uint32_t tag, uint32_t a, uint32_t nargs)
{
    uint32_t head = tag == SYM_OP && a != SYM_OTHER_OP ? a : automaton_nops(c->a), ng, n;
    Group g[CLOSE_MAX_TESTS];
    uint32_t pick[CLOSE_MAX_TESTS] = {0}, preds[CLOSE_MAX_TESTS];
    if (!make_groups(c, &c->heads[head], tag, a, g, &ng))
        ng = 0; /* too many tests: the row without them only */
    for (uint32_t j = 0; j < ng; j++)
        pick[j] = g[j].forced ? 1 : 0; /* option pick - 1, 0 = none */
    for (uint32_t sets = 0; sets < CLOSE_TEST_SETS; sets++) {
        n = 0;
        for (uint32_t j = 0; j < ng; j++)
            for (uint32_t k = pick[j] ? g[j].start[pick[j] - 1] : 0;
                 pick[j] && k < g[j].start[pick[j]]; k++)
                preds[n++] = g[j].ids[k];
        if (n <= CLOSE_MAX_TESTS)
            add_row(c, (Row){.tag = tag, .a = a, .head = head, .nargs = nargs}, preds, n);
        uint32_t j = 0; /* the next set: a counter over the groups' options */
        while (j < ng && ++pick[j] > g[j].nopts) {
            pick[j] = g[j].forced ? 1 : 0;
            j++;
        }
        if (j == ng)
            break;
    }
}

/* Whether item it, of kind kind, asks for n operands (one more too when
 * it is variadic). */
static bool asks_count(const graft_item *it, graft_item_kind kind, uint32_t n)
{
    uint32_t want = (uint32_t)it->nargs;
    return it->kind == kind && (n == want || (it->variadic && n == want + 1));
}

/* Whether rows of n operands are made for tag (and op index a): always
 * up to two; beyond, when an item of that kind (or headed by that op)
 * asks for n. */
static bool wanted_count(const Closure *c, uint32_t tag, uint32_t a, uint32_t n)
{
    const graft_rule_set *rs = automaton_rules(c->a);
    const graft_automaton_index *ix = automaton_index_of(c->a);
    if (n <= 2)
        return true;
    for (uint32_t i = 0; i < rs->nitems; i++) {
        const graft_item *it = &rs->items[i];
        bool call = asks_count(it, GRAFT_PITEM_CALL, n);
        switch (tag) {
        case SYM_OP:
            if (call || (a != SYM_OTHER_OP && asks_count(it, GRAFT_PITEM_OP, n) &&
                         ix->item_op[i] == a))
                return true;
            break;
        case SYM_TUPLE: if (asks_count(it, GRAFT_PITEM_TUPLE, n)) return true; break;
        case SYM_FNCALL: if (call || asks_count(it, GRAFT_PITEM_FNCALL, n)) return true; break;
        case SYM_FN: if (asks_count(it, GRAFT_PITEM_FN, n)) return true; break;
        default: break;
        }
    }
    return false;
}

/* The most operands an item asks for (one more when it is variadic). */
static uint32_t max_operands(const graft_rule_set *rs)
{
    uint32_t most = 2;
    for (uint32_t i = 0; i < rs->nitems; i++) {
        uint32_t n = (uint32_t)rs->items[i].nargs + (rs->items[i].variadic ? 1 : 0);
        if (n > most)
            most = n;
    }
    return most;
}

/* Rows of n operands for tag and a, when wanted_count. */
static void add_count_rows(Closure *c, uint32_t tag, uint32_t a, uint32_t n)
{
    if (wanted_count(c, tag, a, n))
        add_rows(c, tag, a, n);
}

static void make_rows(Closure *c)
{
    const graft_rule_set *rs = automaton_rules(c->a);
    uint32_t nops = automaton_nops(c->a), most = max_operands(rs);
    bool scopes = automaton_has_scopes(c->a);
    c->args = xmalloc(((size_t)most + 1) * sizeof *c->args);
    add_rows(c, SYM_VAR, 0, 0);
    add_rows(c, SYM_CONST, 0, 0);
    add_rows(c, SYM_FUNC, 0, 0);
    for (uint32_t n = 0; n <= most; n++) {
        for (uint32_t op = 0; op < nops; op++)
            add_count_rows(c, SYM_OP, op, n);
        add_count_rows(c, SYM_OP, SYM_OTHER_OP, n);
        add_count_rows(c, SYM_TUPLE, 0, n);
        add_count_rows(c, SYM_FNCALL, 0, n);
        if (scopes && n > 0)
            add_count_rows(c, SYM_FN, 0, n);
    }
    if (scopes) {
        add_rows(c, SYM_IF, 0, 3);
        add_rows(c, SYM_LET, 0, 3);
    }
    for (uint32_t k = 0; k < CLOSE_GETITEMS; k++)
        add_rows(c, SYM_GETITEM, k, 1);
    for (uint32_t i = 0; i < rs->nitems; i++)
        if (rs->items[i].kind == GRAFT_PITEM_GETITEM && rs->items[i].index >= CLOSE_GETITEMS)
            add_rows(c, SYM_GETITEM, (uint32_t)rs->items[i].index, 1);
}

/* ---- the fixed point ---- */

/* Cells of row r with k classes: k to the power of its operands, or
 * CLOSE_CELLS + 1 when more. */
static size_t row_cells(const Row *r, size_t k)
{
    size_t cells = 1;
    for (uint32_t n = 0; n < r->nargs && cells <= CLOSE_CELLS; n++)
        cells *= k;
    return cells;
}

/* The state of row r at cell (its operand classes, as the tables index
 * them), k the classes it was counted with. */
static uint32_t row_step(Closure *c, const Row *r, size_t cell, size_t k)
{
    const Head *hd = &c->heads[r->head];
    for (uint32_t n = r->nargs; n-- > 0; cell /= k)
        c->args[n] = hd->reps.items[cell % k];
    Symbol sym = {.tag = (SymTag)r->tag, .a = r->a, .npreds = r->npreds, .preds = r->preds,
                  .nargs = r->nargs, .args = c->args};
    uint32_t s = automaton_step(c->a, &sym);
    classify_new(c);
    return s;
}

/* Steps every cell of every row once; whether a state or class is new. */
static bool close_pass(Closure *c)
{
    uint32_t before = c->a->nstates;
    size_t classes = 0;
    for (uint32_t h = 0; h <= automaton_nops(c->a); h++)
        classes += c->heads[h].reps.len;
    for (size_t r = 0; r < c->rows.len && c->a->nstates <= CLOSE_MAX_STATES; r++) {
        const Row *row = &c->rows.items[r];
        size_t k = c->heads[row->head].reps.len, cells = row_cells(row, k);
        for (size_t cell = 0; cells <= CLOSE_CELLS && cell < cells; cell++)
            row_step(c, row, cell, k);
    }
    for (uint32_t h = 0; h <= automaton_nops(c->a); h++)
        classes -= c->heads[h].reps.len;
    return c->a->nstates != before || classes != 0;
}

/* ---- the tables ---- */

/* Copies n words of v into a new array (NULL for none). */
static uint32_t *copy_ids(const uint32_t *v, size_t n)
{
    if (n == 0)
        return NULL;
    uint32_t *out = xmalloc(n * sizeof *out);
    memcpy(out, v, n * sizeof *out);
    return out;
}

/* The states, their sets and accepted rules. */
static void write_states(const Closure *c, graft_automaton_states *st)
{
    const Automaton *a = c->a;
    uint32_t ns = st->nstates = a->nstates;
    uint64_t *bits = xmalloc(((size_t)ns * a->words + 1) * sizeof *bits);
    uint32_t *off = xmalloc(((size_t)ns + 1) * sizeof *off);
    VEC(uint32_t) acc = {0};
    for (uint32_t s = 0; s < ns; s++) {
        memcpy(bits + (size_t)s * a->words, automaton_state_set(a, s), a->words * sizeof *bits);
        uint32_t n;
        const uint32_t *r = automaton_state_rules(a, s, &n);
        off[s] = (uint32_t)acc.len;
        for (uint32_t k = 0; k < n; k++)
            vec_push(&acc, r[k]);
    }
    off[ns] = (uint32_t)acc.len;
    st->bits = bits;
    st->accept_off = off;
    st->accepts = copy_ids(acc.items, acc.len);
    vec_free(&acc);
}

static void write_heads(const Closure *c, graft_automaton_states *st)
{
    uint32_t nh = automaton_nops(c->a) + 1;
    graft_automaton_head *heads = xcalloc(nh, sizeof *heads);
    for (uint32_t h = 0; h < nh; h++) {
        const Head *hd = &c->heads[h];
        heads[h] = (graft_automaton_head){
            .nclasses = (uint32_t)hd->reps.len,
            .class_of = copy_ids(hd->class_of.items, hd->class_of.len),
            .ntests = (uint32_t)hd->tests.len,
            .tests = copy_ids(hd->tests.items, hd->tests.len),
        };
    }
    st->nheads = nh;
    st->heads = heads;
}

/* The rows whose cells fit, each cell stepped (the memo answers: the
 * last pass made nothing new). */
static void write_rows(Closure *c, graft_automaton_states *st)
{
    graft_automaton_row *rows = xcalloc(c->rows.len + 1, sizeof *rows);
    uint32_t n = 0;
    for (size_t r = 0; r < c->rows.len; r++) {
        const Row *row = &c->rows.items[r];
        size_t k = c->heads[row->head].reps.len, cells = row_cells(row, k);
        if (cells > CLOSE_CELLS || cells == 0)
            continue;
        uint32_t *next = xmalloc(cells * sizeof *next);
        for (size_t cell = 0; cell < cells; cell++)
            next[cell] = row_step(c, row, cell, k);
        rows[n++] = (graft_automaton_row){
            .tag = row->tag, .a = row->a, .npreds = row->npreds,
            .preds = copy_ids(row->preds, row->npreds), .nargs = row->nargs, .next = next,
        };
    }
    st->rows = rows;
    st->nrows = n;
}

static void closure_free(Closure *c)
{
    for (uint32_t h = 0; h <= automaton_nops(c->a); h++) {
        free(c->heads[h].asked);
        vec_free(&c->heads[h].tests);
        vec_free(&c->heads[h].reps);
        vec_free(&c->heads[h].class_of);
    }
    free(c->heads);
    vec_free(&c->rows);
    free(c->args);
    automaton_free(c->a);
}

graft_automaton_states *automaton_close(const graft_rule_set *rs)
{
    Closure c = {.a = automaton_new(rs)};
    c.heads = xcalloc((size_t)automaton_nops(c.a) + 1, sizeof *c.heads);
    for (uint32_t h = 0; h <= automaton_nops(c.a); h++)
        head_init(&c, h);
    make_rows(&c);
    while (close_pass(&c) && c.a->nstates <= CLOSE_MAX_STATES)
        ;
    graft_automaton_states *st = NULL;
    if (c.a->nstates <= CLOSE_MAX_STATES) {
        st = xcalloc(1, sizeof *st);
        write_states(&c, st);
        write_heads(&c, st);
        write_rows(&c, st);
    }
    closure_free(&c);
    return st;
}

void automaton_states_free(graft_automaton_states *st)
{
    if (!st)
        return;
    free((void *)st->bits);
    free((void *)st->accept_off);
    free((void *)st->accepts);
    for (uint32_t h = 0; h < st->nheads; h++) {
        free((void *)st->heads[h].class_of);
        free((void *)st->heads[h].tests);
    }
    free((void *)st->heads);
    for (uint32_t r = 0; r < st->nrows; r++) {
        free((void *)st->rows[r].preds);
        free((void *)st->rows[r].next);
    }
    free((void *)st->rows);
    free(st);
}
