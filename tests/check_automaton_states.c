/* check_automaton_states.c - the states and transitions graft compile
 * writes (note [compiled states] in graft_rules.h): the closure of a rule
 * set (automaton_close) gives every state labelling reaches, a compiled
 * automaton reading it labels a graph as the interpreted one does and
 * builds no state, steps the rows do not cover are computed at run time
 * and find their state among the written ones or, when the closure did
 * not reach it, build it; and --stats's counts (note [states reached] in
 * automaton.c) are the same in both forms. */
#include <check.h>
#include <stdlib.h>

#include "automaton.h"
#include "graph.h"

#include "check_rule_tables.h" /* rs */
#include "check_main.h"

/* An interpreted automaton of a rule set and a compiled one reading its
 * closure, as graft compile writes it. */
typedef struct Pair {
    Automaton *interp, *comp;
    graft_automaton_states *st;
    graft_automaton_index ix;
    graft_rule_set compiled;
} Pair;

static void pair_start(Pair *p, const graft_rule_set *set)
{
    p->interp = automaton_new(set);
    p->st = automaton_close(set);
    ck_assert_ptr_nonnull(p->st);
    p->ix = *automaton_index_of(p->interp);
    p->ix.states = p->st;
    p->compiled = *set;
    p->compiled.automaton = &p->ix;
    p->comp = automaton_new(&p->compiled);
}

static void pair_stop(Pair *p)
{
    automaton_free(p->comp);
    automaton_free(p->interp);
    automaton_states_free(p->st);
}

/* States x of a and y of b hold the same items and accept the same rules
 * in the same order. */
static void assert_same_state(const Automaton *a, uint32_t x, const Automaton *b, uint32_t y,
                              const graft_rule_set *set)
{
    for (uint32_t i = 0; i < set->nitems; i++)
        ck_assert_int_eq(automaton_state_has(a, x, i), automaton_state_has(b, y, i));
    uint32_t nx, ny;
    const uint32_t *rx = automaton_state_rules(a, x, &nx), *ry = automaton_state_rules(b, y, &ny);
    ck_assert_uint_eq(nx, ny);
    for (uint32_t k = 0; k < nx; k++)
        ck_assert_uint_eq(rx[k], ry[k]);
}

static graft_node *call2(graft_graph *g, const char *op, graft_node *x, graft_node *y)
{
    graft_node *args[2] = {x, y};
    return graph_add_call(g, op, args, 2, NULL, 0);
}

/* a, b; 0f, 1f; a+0, 0+a, a+a, a+b, relu(relu(a)); a tuple of six fields
 * and its element .9 of a ten-field tuple: beyond the rows (tuples of at
 * most two fields, elements .0 to .7), stepped at run time. */
static graft_graph *fixture(void)
{
    graft_graph *g = graph_new();
    graft_node *a = graph_add_param(g, "a", NULL), *b = graph_add_param(g, "b", NULL);
    graft_node *zero = graph_add_const(g, "0f", 0, "float32");
    graft_node *one = graph_add_const(g, "1f", 1, "float32");
    graft_node *r1 = graph_add_call(g, "nn.relu", &a, 1, NULL, 0);
    graft_node *six[] = {call2(g, "add", a, zero), call2(g, "add", zero, a), call2(g, "add", a, a),
                         call2(g, "add", a, b), graph_add_call(g, "nn.relu", &r1, 1, NULL, 0),
                         one};
    graft_node *ten[10];
    for (int k = 0; k < 10; k++)
        ten[k] = six[k % 6];
    graft_node *out[] = {graph_add_tuple(g, six, 6),
                         graph_add_getitem(g, graph_add_tuple(g, ten, 10), 9)};
    graph_set_output(g, graph_add_tuple(g, out, 2));
    return g;
}

/* The closure of rs holds its four states: {i0, i4} (any node; nn.relu*
 * takes no relu too), {i0, i1, i4} (the constant 0), {i0, i3, i4} (a
 * sum) and {i0, i2, i3, i4} (a sum with 0).  Labelled with them, every
 * node of the fixture has the interpreted state's items and rules, the
 * same states and transitions are counted, and none is built. */
START_TEST(written_states_label_as_built_ones)
{
    Pair p;
    pair_start(&p, &rs);
    ck_assert_uint_eq(p.st->nstates, 4);
    graft_graph *g = fixture();
    Labels *li = labels_new(p.interp, g), *lc = labels_new(p.comp, g);
    labels_all(li);
    labels_all(lc);
    uint32_t labelled = 0;
    for (uint32_t id = 0; id < graph_node_count(g); id++) {
        uint32_t si = labels_state_id(li, id), sc = labels_state_id(lc, id);
        ck_assert_int_eq(si == STATE_NONE, sc == STATE_NONE);
        if (si == STATE_NONE)
            continue;
        assert_same_state(p.interp, si, p.comp, sc, &rs);
        labelled++;
    }
    ck_assert_uint_eq(labelled, graph_node_count(g));
    ck_assert_uint_eq(automaton_nstates(p.interp), 4);
    ck_assert_uint_eq(automaton_nstates(p.comp), 4);
    ck_assert_uint_eq(automaton_ntransitions(p.comp), automaton_ntransitions(p.interp));
    ck_assert_uint_eq(automaton_nbuilt(p.interp), 4);
    ck_assert_uint_eq(automaton_nbuilt(p.comp), 0);
    labels_free(li);
    labels_free(lc);
    graph_free(g);
    pair_stop(&p);
}
END_TEST

/* Seventeen value tests on constants, v0 to v16 (an item any[vk] each):
 * more tests than a row holds (CLOSE_MAX_TESTS in automaton_close.c), so
 * the rows know constants without tests only, whose state holds no
 * item.  The constant 5 passes v5: its step is not in the rows, and its
 * state {i5} is not written: it is built at run time, after the written
 * one, as an interpreted rule set builds it. */
enum { NVALUES = 17 };

START_TEST(uncovered_step_builds_its_state)
{
    graft_pred vp[NVALUES];
    graft_item vi[NVALUES];
    uint32_t ids[NVALUES];
    for (uint32_t k = 0; k < NVALUES; k++) {
        ids[k] = k;
        vp[k] = (graft_pred){.kind = GRAFT_PRED_VALUE, .f = k};
        vi[k] = (graft_item){.kind = GRAFT_PITEM_ANY, .npreds = 1, .preds = &ids[k]};
    }
    graft_rule_set values = {.name = "values", .nitems = NVALUES, .items = vi,
                             .npreds = NVALUES, .preds = vp};
    Pair p;
    pair_start(&p, &values);
    ck_assert_uint_eq(p.st->nstates, 1);
    Symbol plain = {.tag = SYM_CONST}, five = {.tag = SYM_CONST, .npreds = 1, .preds = &ids[5]};
    uint32_t pi = automaton_step(p.interp, &plain), pc = automaton_step(p.comp, &plain);
    ck_assert_uint_eq(automaton_nbuilt(p.comp), 0);
    uint32_t fi = automaton_step(p.interp, &five), fc = automaton_step(p.comp, &five);
    ck_assert_uint_eq(fc, 1); /* after the written state 0 */
    ck_assert(automaton_state_has(p.comp, fc, 5));
    assert_same_state(p.interp, pi, p.comp, pc, &values);
    assert_same_state(p.interp, fi, p.comp, fc, &values);
    ck_assert_uint_eq(automaton_nbuilt(p.comp), 1);
    ck_assert_uint_eq(automaton_nstates(p.comp), 2);
    ck_assert_uint_eq(automaton_nstates(p.interp), 2);
    ck_assert_uint_eq(automaton_ntransitions(p.comp), 2);
    ck_assert_uint_eq(automaton_ntransitions(p.interp), 2);
    /* the same step again is the memo's: nothing more counted */
    ck_assert_uint_eq(automaton_step(p.comp, &five), fc);
    ck_assert_uint_eq(automaton_ntransitions(p.comp), 2);
    pair_stop(&p);
}
END_TEST

static Suite *states_suite(void)
{
    Suite *s = suite_create("automaton_states");
    TCase *tc = tcase_create("states");
    tcase_add_test(tc, written_states_label_as_built_ones);
    tcase_add_test(tc, uncovered_step_builds_its_state);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(states_suite());
}
