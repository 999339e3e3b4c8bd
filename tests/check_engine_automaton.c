/* check_engine_automaton.c - white-box tests of the automaton and the
 * matcher on rule tables written in C (no front end), as the emitter
 * would write them: states, memoised transitions, commutative operands,
 * repeated variables, repeated ops. */
#include <check.h>
#include <stddef.h>
#include <stdlib.h>

#include "automaton.h"
#include "graph.h"
#include "match.h"

#include "check_rule_tables.h" /* rs */
#include "check_main.h"

/* The rule set rs run over a graph: its automaton, the graph labelled
 * through, and a matcher. */
typedef struct graft_engine {
    graft_graph *g;     /* the graph, owned */
    Automaton *a; /* built from rs */
    Labels *l;    /* every node of g labelled */
    Matcher *m;   /* over l and g */
} graft_engine;

static graft_engine engine_start(graft_graph *g)
{
    graft_engine e = {.g = g, .a = automaton_new(&rs)};
    e.l = labels_new(e.a, g);
    labels_all(e.l);
    e.m = matcher_new(e.l, g);
    return e;
}

static void engine_stop(graft_engine *e)
{
    matcher_free(e->m);
    labels_free(e->l);
    automaton_free(e->a);
    graph_free(e->g);
}

/* The fixture graph: a, b params; 0f; a+0, 0+a, a+a, a+b, relu(relu(a)). */
typedef struct Fix {
    graft_engine e;     /* rs over g */
    graft_node *a, *b, *zero, *a0, *za, *aa, *ab, *r1, *r2;
} Fix;

static graft_node *call2(graft_graph *g, const char *op, graft_node *x, graft_node *y)
{
    graft_node *args[2] = {x, y};
    return graph_add_call(g, op, args, 2, NULL, 0);
}

static Fix fixture(void)
{
    Fix f;
    graft_graph *g = graph_new();
    f.a = graph_add_param(g, "a", NULL);
    f.b = graph_add_param(g, "b", NULL);
    f.zero = graph_add_const(g, "0f", 0, "float32");
    f.a0 = call2(g, "add", f.a, f.zero);
    f.za = call2(g, "add", f.zero, f.a);
    f.aa = call2(g, "add", f.a, f.a);
    f.ab = call2(g, "add", f.a, f.b);
    f.r1 = graph_add_call(g, "nn.relu", &f.a, 1, NULL, 0);
    f.r2 = graph_add_call(g, "nn.relu", &f.r1, 1, NULL, 0);
    graft_node *fields[] = {f.a0, f.za, f.aa, f.ab, f.r2};
    graph_set_output(g, graph_add_tuple(g, fields, 5));
    f.e = engine_start(g);
    return f;
}

static bool accepts(const Automaton *a, uint32_t state, uint32_t rule)
{
    uint32_t n;
    const uint32_t *r = automaton_state_rules(a, state, &n);
    for (uint32_t i = 0; i < n; i++)
        if (r[i] == rule)
            return true;
    return false;
}

/* Rule rule matches at root, binding its variable x (slot 0) to x. */
static void assert_binds(Matcher *m, uint32_t rule, graft_node *root, const graft_node *x)
{
    ck_assert_int_eq(matcher_try(m, rule, root), MATCH_OK);
    ck_assert_ptr_eq(matcher_bindings(m)[0].node, x);
}

START_TEST(states_follow_items)
{
    Fix f = fixture();
    Automaton *a = f.e.a;
    Labels *l = f.e.l;
    ck_assert(accepts(a, labels_state(l, f.a0), 0));
    ck_assert(accepts(a, labels_state(l, f.za), 0)); /* commutative */
    ck_assert(!accepts(a, labels_state(l, f.ab), 0));
    /* a+a and a+b have the same state: repeated variables are checked
       when the rule accepts, not by the automaton */
    ck_assert_uint_eq(labels_state(l, f.aa), labels_state(l, f.ab));
    ck_assert(accepts(a, labels_state(l, f.ab), 1));
    ck_assert(accepts(a, labels_state(l, f.r2), 2));
    ck_assert(accepts(a, labels_state(l, f.a), 2)); /* zero repetitions */
    engine_stop(&f.e);
}
END_TEST

START_TEST(transitions_are_memoised)
{
    Fix f = fixture();
    uint32_t states = automaton_nstates(f.e.a), trans = automaton_ntransitions(f.e.a);
    /* a second copy of a+b costs a lookup, no new transition */
    graft_node *ab2 = call2(f.e.g, "add", f.a, f.b);
    ck_assert_uint_eq(labels_node(f.e.l, ab2), labels_state(f.e.l, f.ab));
    ck_assert_uint_eq(automaton_nstates(f.e.a), states);
    ck_assert_uint_eq(automaton_ntransitions(f.e.a), trans);
    engine_stop(&f.e);
}
END_TEST

/* The matcher on one rule of rs at one node of the fixture: whether it
 * matches and, when it does, that it binds x to a. */
typedef struct MatcherCase {
    uint32_t rule;     /* of rs: 0 add_zero := x + 0, 1 double := x + x */
    size_t root;       /* the node's field in Fix: offsetof(Fix, ...) */
    MatchResult want;  /* MATCH_OK (x bound to a) or MATCH_FAIL */
} MatcherCase;

static const MatcherCase matcher_cases[] = {
    {0, offsetof(Fix, a0), MATCH_OK},   /* a + 0f */
    {0, offsetof(Fix, za), MATCH_OK},   /* 0f + a: either order */
    {0, offsetof(Fix, ab), MATCH_FAIL}, /* a + b */
    {1, offsetof(Fix, aa), MATCH_OK},   /* a + a: the repeated variable */
    {1, offsetof(Fix, ab), MATCH_FAIL}, /* a + b */
};

START_TEST(matcher_case)
{
    const MatcherCase *c = &matcher_cases[_i];
    Fix f = fixture();
    graft_node *root = *(graft_node **)((char *)&f + c->root);
    if (c->want == MATCH_OK)
        assert_binds(f.e.m, c->rule, root, f.a);
    else
        ck_assert_int_eq(matcher_try(f.e.m, c->rule, root), c->want);
    engine_stop(&f.e);
}
END_TEST

START_TEST(matcher_star_is_greedy)
{
    Fix f = fixture();
    Matcher *m = f.e.m;
    assert_binds(m, 2, f.r2, f.a);
    uint32_t n;
    const MatchPair *pairs = matcher_pairs(m, &n);
    ck_assert_uint_eq(n, 3); /* relu, relu, x */
    ck_assert_ptr_eq(pairs[0].node, f.r2);
    ck_assert_ptr_eq(pairs[1].node, f.r1);
    ck_assert_ptr_eq(pairs[2].node, f.a);
    engine_stop(&f.e);
}
END_TEST

/* A chain of a million relus: labelling and the repeated-op match are
 * iterative. */
START_TEST(star_over_long_chain)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL);
    graft_node *n = x;
    for (int i = 0; i < 1000000; i++)
        n = graph_add_call(g, "nn.relu", &n, 1, NULL, 0);
    graph_set_output(g, n);
    graft_engine e = engine_start(g);
    assert_binds(e.m, 2, n, x);
    engine_stop(&e);
}
END_TEST

/* Labels every live node of g one by one in depth-first order, reading
 * each node (labels_node). */
static void label_depth_first(Labels *l, const graft_graph *g)
{
    graft_node **order = malloc((graph_node_count(g) + 1) * sizeof *order);
    uint32_t n = graph_topo_order(g, order);
    for (uint32_t i = 0; i < n; i++)
        labels_node(l, order[i]);
    free(order);
}

/* Every node of g, labelled or not, has the same state in x and y. */
static void assert_same_states(const Labels *x, const Labels *y, const graft_graph *g)
{
    for (uint32_t id = 0; id < graph_node_count(g); id++) {
        ck_assert_uint_eq(labels_state_id(x, id), labels_state_id(y, id));
        ck_assert_uint_eq(labels_state_id(x, id), labels_state(x, graph_node(g, id)));
    }
}

/* note [label order], note [node classes]: labelling in the walk's
 * order from the nodes' classes (labels_all), gives every live node the
 * state that labelling each node in depth-first order gives, on the
 * fixture as built (_i = 0) and once an edit makes a node read a later
 * one (_i = 1: relu(relu(a)) becomes relu(relu(a + 0)) with the new add
 * last); on a shared automaton (so no state but the same) and from a
 * fresh one (so the same number of states); nodes the output does not
 * reach stay unlabelled. */
START_TEST(label_order_same_states)
{
    Fix f = fixture();
    graft_graph *g = f.e.g;
    graft_node *stray = call2(g, "add", f.b, f.zero);
    graft_node *late = call2(g, "add", f.a, f.zero);
    if (_i == 1)
        graph_set_arg(g, f.r1, 0, late);
    Labels *dfs = labels_new(f.e.a, g), *ids = labels_new(f.e.a, g);
    label_depth_first(dfs, g);
    uint32_t nstates = automaton_nstates(f.e.a);
    labels_all(ids);
    ck_assert_uint_eq(automaton_nstates(f.e.a), nstates);
    assert_same_states(dfs, ids, g);
    ck_assert_uint_eq(labels_state(ids, stray), STATE_NONE);
    ck_assert_uint_eq(labels_state(ids, late) == STATE_NONE, _i == 0);
    ck_assert(accepts(f.e.a, labels_state(ids, f.r2), 2));
    Automaton *fresh = automaton_new(&rs);
    Labels *first = labels_new(fresh, g), *then = labels_new(fresh, g);
    labels_all(first);
    nstates = automaton_nstates(fresh);
    uint32_t ntrans = automaton_ntransitions(fresh);
    label_depth_first(then, g);
    ck_assert_uint_eq(automaton_nstates(fresh), nstates);
    ck_assert_uint_eq(automaton_ntransitions(fresh), ntrans);
    assert_same_states(first, then, g);
    labels_free(then);
    labels_free(first);
    automaton_free(fresh);
    labels_free(ids);
    labels_free(dfs);
    engine_stop(&f.e);
}
END_TEST

/* note [step cache]: keys that pack into the same words but differ in
 * their counts, or in one operand state, get their own states, whether
 * the memo answers (first round) or the cache (second); and the cache
 * adds no transition. */
START_TEST(step_cache_tells_keys_apart)
{
    Automaton *a = automaton_new(&rs);
    uint32_t zero_test = 0, add = automaton_op_index(a, "add");
    Symbol zero = {.tag = SYM_CONST, .npreds = 1, .preds = &zero_test};
    Symbol other = {.tag = SYM_CONST};
    for (int round = 0; round < 2; round++) {
        uint32_t sz = automaton_step(a, &zero), so = automaton_step(a, &other);
        ck_assert(automaton_state_has(a, sz, 1));
        ck_assert(!automaton_state_has(a, so, 1));
        ck_assert(automaton_state_has(a, so, 0));
        uint32_t with_zero[] = {so, sz}, without[] = {so, so};
        Symbol x0 = {.tag = SYM_OP, .a = add, .nargs = 2, .args = with_zero};
        Symbol xx = {.tag = SYM_OP, .a = add, .nargs = 2, .args = without};
        uint32_t s1 = automaton_step(a, &x0), s2 = automaton_step(a, &xx);
        ck_assert(automaton_state_has(a, s1, 2));
        ck_assert(!automaton_state_has(a, s2, 2));
        ck_assert(automaton_state_has(a, s2, 3));
        ck_assert_uint_eq(automaton_ntransitions(a), 4);
    }
    automaton_free(a);
}
END_TEST

/* first := x.0, for the step cache's heads */
static const graft_item item_items[] = {
    {.kind = GRAFT_PITEM_ANY},
    {.kind = GRAFT_PITEM_GETITEM, .index = 0, .nargs = 1, .args = i0},
};
static const graft_pat *const first_kids[] = {&x_leaf};
static const graft_pat first = {.kind = GRAFT_PAT_GETITEM, .item = 1, .slot = -1, .nkids = 1,
                                .kids = first_kids};
static const graft_rule item_rules[] = {
    {.name = "first", .pattern = &first, .nslots = 1, .slot_names = x_name},
};
static const graft_rule_set item_rs = {.name = "items", .nrules = 1, .rules = item_rules,
                                       .nitems = 2, .items = item_items};

/* note [step cache]: a key whose cache slot holds another key of the same
 * operand words but another head is asked of the memo, not given the
 * other key's state: x.0, then x.1 to x.16383 of the same x (their keys
 * differ from x.0's in the head's getitem index alone, and some 16 of
 * them share its slot of the 1024); none of them is a first. */
START_TEST(step_cache_tells_heads_apart)
{
    Automaton *a = automaton_new(&item_rs);
    Symbol other = {.tag = SYM_CONST};
    uint32_t x = automaton_step(a, &other);
    Symbol item = {.tag = SYM_GETITEM, .a = 0, .nargs = 1, .args = &x};
    ck_assert(automaton_state_has(a, automaton_step(a, &item), 1));
    for (item.a = 1; item.a < 1u << 14; item.a++) {
        uint32_t s = automaton_step(a, &item);
        ck_assert_msg(!automaton_state_has(a, s, 1), "x.%u taken as x.0", item.a);
        ck_assert(automaton_state_has(a, s, 0));
    }
    automaton_free(a);
}
END_TEST

/* note [dense steps]: a graph labelled twice over one automaton, the
 * second time answered by the dense tables and the step cache, gets the
 * same states and adds no state or transition. */
START_TEST(dense_steps_repeat_the_memo)
{
    Fix f = fixture();
    graft_node *ab2 = call2(f.e.g, "add", f.b, f.a), *rr = graph_add_call(f.e.g, "nn.relu", &f.r2, 1,
                                                                    NULL, 0);
    uint32_t before[2] = {labels_node(f.e.l, ab2), labels_node(f.e.l, rr)};
    uint32_t states = automaton_nstates(f.e.a), trans = automaton_ntransitions(f.e.a);
    Labels *again = labels_new(f.e.a, f.e.g);
    labels_all(again);
    ck_assert_uint_eq(labels_node(again, ab2), before[0]);
    ck_assert_uint_eq(labels_node(again, rr), before[1]);
    assert_same_states(f.e.l, again, f.e.g);
    ck_assert_uint_eq(automaton_nstates(f.e.a), states);
    ck_assert_uint_eq(automaton_ntransitions(f.e.a), trans);
    ck_assert(accepts(f.e.a, labels_state(again, rr), 2));
    labels_free(again);
    engine_stop(&f.e);
}
END_TEST

/* labels_order keeps the nodes whose state accepts a rule, in the
 * order's order: with add_zero alone, a+0 and 0+a (the tuple's first two
 * fields, so first in the depth-first order); the order as nodes is
 * graph_topo_order's. */
START_TEST(keep_offering_in_order)
{
    Fix f = fixture();
    graft_rule_set one = rs;
    one.nrules = 1;
    Automaton *a = automaton_new(&one);
    Labels *l = labels_new(a, f.e.g);
    GraphOrder o;
    uint32_t count = graph_node_count(f.e.g);
    graft_node **nodes = malloc((count + 1) * sizeof *nodes);
    graft_node **topo = malloc((count + 1) * sizeof *topo);
    labels_graph_order(l, &o, nodes);
    ck_assert_uint_eq(graph_topo_order(f.e.g, topo), o.n);
    for (uint32_t i = 0; i < o.n; i++) {
        ck_assert_ptr_eq(nodes[i], topo[i]);
        ck_assert_uint_eq(node_id(nodes[i]), o.ids[i]);
    }
    uint32_t *ids = malloc((o.n + 1) * sizeof *ids);
    ck_assert_uint_eq(labels_order(l, &o, ids), 2);
    ck_assert_uint_eq(ids[0], node_id(f.a0));
    ck_assert_uint_eq(ids[1], node_id(f.za));
    free(ids);
    free(nodes);
    free(topo);
    graph_order_free(&o);
    labels_free(l);
    automaton_free(a);
    engine_stop(&f.e);
}
END_TEST

/* note [wide steps]: calls of three to seven operands (the cache takes
 * up to WIDE_ARGS, six; seven go to the memo alone), labelled twice
 * through the cache, the second time from it, get the states labelling
 * with a cold cache gives, and add no state or transition; two calls of
 * the same operand states in another order are told apart where the
 * automaton tells them apart. */
static graft_node *wide_call(graft_graph *g, graft_node *const *args, int n)
{
    return graph_add_call(g, "concatenate", args, n, NULL, 0);
}

START_TEST(wide_steps_repeat_the_memo)
{
    Fix f = fixture();
    graft_node *x[] = {f.a, f.zero, f.a0, f.r1, f.r2, f.aa, f.ab};
    graft_node *y[] = {f.zero, f.a, f.a0, f.r1, f.r2, f.aa, f.ab};
    graft_node *calls[10];
    for (int n = 3; n <= 7; n++) {
        calls[n - 3] = wide_call(f.e.g, x, n);
        calls[n + 2] = wide_call(f.e.g, y, n);
    }
    uint32_t first[10];
    for (int i = 0; i < 10; i++)
        first[i] = labels_node(f.e.l, calls[i]);
    uint32_t states = automaton_nstates(f.e.a), trans = automaton_ntransitions(f.e.a);
    Labels *cold = labels_new(f.e.a, f.e.g);
    labels_all(cold);
    for (int i = 0; i < 10; i++) {
        ck_assert_uint_eq(labels_node(f.e.l, calls[i]), first[i]); /* from the cache */
        ck_assert_uint_eq(labels_node(cold, calls[i]), first[i]);
    }
    ck_assert_uint_eq(automaton_nstates(f.e.a), states);
    ck_assert_uint_eq(automaton_ntransitions(f.e.a), trans);
    labels_free(cold);
    engine_stop(&f.e);
}
END_TEST

/* labels_next_offering steps through an order to the nodes whose state
 * accepts a rule: with add_zero alone, a+0 and 0+a, then the end. */
START_TEST(next_offering_in_order)
{
    Fix f = fixture();
    graft_rule_set one = rs;
    one.nrules = 1;
    Automaton *a = automaton_new(&one);
    Labels *l = labels_new(a, f.e.g);
    labels_all(l);
    graft_node **order = malloc((graph_node_count(f.e.g) + 1) * sizeof *order);
    uint32_t n = graph_topo_order(f.e.g, order);
    uint32_t i = labels_next_offering(l, order, 0, n);
    ck_assert_ptr_eq(order[i], f.a0);
    i = labels_next_offering(l, order, i + 1, n);
    ck_assert_ptr_eq(order[i], f.za);
    ck_assert_uint_eq(labels_next_offering(l, order, i + 1, n), n);
    ck_assert_uint_eq(labels_next_offering(l, order, n, n), n);
    free(order);
    labels_free(l);
    automaton_free(a);
    engine_stop(&f.e);
}
END_TEST

/* note [proven rules]: x + 0 needs no verifying walk; x + x (a variable
 * used twice) and nn.relu*(x) (a repeated op) do; and none does when the
 * steps limit is below the try's bound. */
START_TEST(state_proves_plain_trees)
{
    Fix f = fixture();
    ck_assert(matcher_state_proves(f.e.m, 0));
    ck_assert(!matcher_state_proves(f.e.m, 1));
    ck_assert(!matcher_state_proves(f.e.m, 2));
    matcher_set_max_steps(f.e.m, 4); /* add_zero: 3 parts, at most 7 steps */
    ck_assert(!matcher_state_proves(f.e.m, 0));
    matcher_set_max_steps(f.e.m, 7);
    ck_assert(matcher_state_proves(f.e.m, 0));
    engine_stop(&f.e);
}
END_TEST

/* pattern_is_callee_slot on a pattern whose 64 levels each read the next
 * level twice (as alternatives and macros share sub-patterns): 2^64 paths
 * over 65 nodes.  It looks at each node once; a walk of every path would
 * not end before the test's timeout. */
START_TEST(callee_slot_walks_shared_parts_once)
{
    enum { LEVELS = 64 };
    graft_pat nodes[LEVELS + 1];
    const graft_pat *kids[LEVELS][2];
    nodes[LEVELS] = (graft_pat){.kind = GRAFT_PAT_ANY, .slot = 2, .callee = 4};
    for (int i = LEVELS - 1; i >= 0; i--) {
        kids[i][0] = kids[i][1] = &nodes[i + 1];
        nodes[i] = (graft_pat){.kind = GRAFT_PAT_OP, .slot = -1, .nkids = 2, .kids = kids[i]};
    }
    ck_assert(pattern_is_callee_slot(&nodes[0], 3));
    ck_assert(!pattern_is_callee_slot(&nodes[0], 2));
    ck_assert(!pattern_is_callee_slot(&nodes[1], 0));
}
END_TEST

/* note [compiled index]: rs's index as graft compile writes it: add heads
 * items 2 and 3, nn.relu item 4; items 0, 1 and 4 (no OP item) generic;
 * the value test on every node; the rules in file order. */
static const uint32_t add_items[] = {2, 3}, relu_items[] = {4}, generic[] = {0, 1, 4};
static const graft_automaton_op index_ops[] = {
    {"add", 2, add_items, 0, NULL},
    {"nn.relu", 1, relu_items, 0, NULL},
};
static const uint32_t item_op[] = {UINT32_MAX, UINT32_MAX, 0, 0, 1};
static const uint32_t file_order[] = {0, 1, 2}, reversed[] = {2, 1, 0};
static const graft_automaton_index rs_index = {
    .nops = 2, .ops = index_ops, .item_op = item_op, .ngeneric = 3, .generic = generic,
    .nnode_preds = 1, .node_preds = t0, .rule_order = file_order};

static void assert_ids(const uint32_t *x, uint32_t nx, const uint32_t *y, uint32_t ny)
{
    ck_assert_uint_eq(nx, ny);
    for (uint32_t i = 0; i < nx; i++)
        ck_assert_uint_eq(x[i], y[i]);
}

/* What automaton_new builds from rs's tables is that index, which the
 * emitter writes out (emit_c_index.c). */
START_TEST(built_index_is_the_compiled_one)
{
    Automaton *a = automaton_new(&rs);
    const graft_automaton_index *ix = automaton_index_of(a);
    ck_assert_uint_eq(ix->nops, rs_index.nops);
    for (uint32_t o = 0; o < ix->nops; o++) {
        ck_assert_str_eq(ix->ops[o].name, index_ops[o].name);
        assert_ids(ix->ops[o].items, ix->ops[o].nitems, index_ops[o].items, index_ops[o].nitems);
        ck_assert_uint_eq(ix->ops[o].npreds, 0);
    }
    assert_ids(ix->item_op, rs.nitems, item_op, rs.nitems);
    assert_ids(ix->generic, ix->ngeneric, generic, rs_index.ngeneric);
    assert_ids(ix->node_preds, ix->nnode_preds, t0, 1);
    ck_assert_uint_eq(ix->nfn_preds, 0);
    assert_ids(ix->rule_order, rs.nrules, file_order, rs.nrules);
    ck_assert(!ix->scopes);
    automaton_free(a);
}
END_TEST

/* A rule set that brings an index is read through it, not indexed again:
 * the same arrays, and the rule order it gives (here reversed) is the
 * order in which a state lists its rules: 0 + 0 is add_zero, double and
 * relus (nn.relu* takes no relu too). */
START_TEST(compiled_index_is_read)
{
    graft_automaton_index backwards = rs_index;
    backwards.rule_order = reversed;
    for (int form = 0; form < 2; form++) {
        graft_rule_set compiled = rs;
        compiled.automaton = form ? &backwards : &rs_index;
        Automaton *a = automaton_new(&compiled);
        ck_assert_ptr_eq(automaton_index_of(a)->ops, index_ops);
        ck_assert_uint_eq(automaton_op_index(a, "nn.relu"), 1);
        uint32_t zero_test = 0, n;
        Symbol zero = {.tag = SYM_CONST, .npreds = 1, .preds = &zero_test};
        uint32_t sz = automaton_step(a, &zero), both[] = {sz, sz};
        Symbol sum = {.tag = SYM_OP, .a = 0, .nargs = 2, .args = both};
        const uint32_t *r = automaton_state_rules(a, automaton_step(a, &sum), &n);
        ck_assert_uint_eq(n, 3);
        for (uint32_t k = 0; k < n; k++)
            ck_assert_uint_eq(r[k], form ? 2 - k : k);
        automaton_free(a);
    }
}
END_TEST

static Suite *automaton_suite(void)
{
    Suite *s = suite_create("engine_automaton");
    TCase *tc = tcase_create("states");
    tcase_add_test(tc, states_follow_items);
    tcase_add_test(tc, transitions_are_memoised);
    tcase_add_loop_test(tc, label_order_same_states, 0, 2);
    tcase_add_test(tc, step_cache_tells_keys_apart);
    tcase_add_test(tc, step_cache_tells_heads_apart);
    tcase_add_test(tc, built_index_is_the_compiled_one);
    tcase_add_test(tc, compiled_index_is_read);
    tcase_add_test(tc, dense_steps_repeat_the_memo);
    tcase_add_test(tc, keep_offering_in_order);
    tcase_add_test(tc, wide_steps_repeat_the_memo);
    tcase_add_test(tc, next_offering_in_order);
    tcase_add_test(tc, state_proves_plain_trees);
    tcase_add_test(tc, callee_slot_walks_shared_parts_once);
    suite_add_tcase(s, tc);
    tc = tcase_create("matcher");
    tcase_add_loop_test(tc, matcher_case, 0, (int)ARRAY_LEN(matcher_cases));
    tcase_add_test(tc, matcher_star_is_greedy);
    suite_add_tcase(s, tc);
    tc = tcase_create("deep");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, star_over_long_chain);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(automaton_suite());
}
