/* check_match.c - the matcher's direct try (note [direct try] in
 * src/runtime/match_direct.c) against the goal machine: the same result,
 * pairs and bindings at every node the states offer a rule at, and the
 * goal machine's answer where the direct try hands over (a guard refusing
 * where a later way fits, labels no longer current); the grouper's claim
 * stamps (note [claim stamps] in src/runtime/group.h). */
#include <check.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "automaton.h"
#include "automaton_label_impl.h"
#include "engine.h"
#include "frontend.h"
#include "group.h"
#include "lower.h"
#include "match_impl.h"
#include "relay.h"
#include "check_main.h"

/* One loaded rule set and model, labelled, with a matcher. */
typedef struct Fixture {
    char *text;       /* diagnostics written (the shadowed rules' warnings) */
    size_t len;       /* bytes in text */
    FILE *out;        /* the stream they are written to */
    graft_diag *d;    /* diagnostics */
    Lowered *rules;   /* lowered rules */
    Source *src;      /* model text */
    graft_graph *g;   /* model */
    Automaton *a;     /* the rules' automaton */
    Labels *l;        /* every node labelled */
    Matcher *m;       /* the matcher under test */
} Fixture;

static void open_fixture(Fixture *f, const char *rules, const char *model)
{
    f->out = open_memstream(&f->text, &f->len);
    f->d = diag_new(f->out);
    RuleFile *rf = frontend_load_string("test.graft", rules, NULL, f->d);
    ck_assert_ptr_nonnull(rf);
    f->rules = lower_rules(rf, f->d);
    rulefile_free(rf);
    ck_assert_ptr_nonnull(f->rules);
    f->src = source_from_string("test.relay", model, strlen(model));
    f->g = relay_load(f->src, f->d);
    ck_assert_ptr_nonnull(f->g);
    f->a = automaton_new(&f->rules->rs);
    f->l = labels_new(f->a, f->g);
    labels_all(f->l);
    f->m = matcher_new(f->l, f->g);
}

static void close_fixture(Fixture *f)
{
    matcher_free(f->m);
    labels_free(f->l);
    automaton_free(f->a);
    graph_free(f->g);
    source_free(f->src);
    lower_free(f->rules);
    diag_free(f->d);
    fclose(f->out);
    free(f->text);
}

static const char *result_name(MatchResult res)
{
    static const char *const names[] = {"ok", "fail", "guard", "budget"};
    return names[res];
}

/* A try's outcome in text: the result, then after MATCH_OK the pairs'
 * nodes (by id, + for a tail pair) and each slot's node id or attribute
 * integer. */
static void outcome(const Matcher *m, const graft_rule *rule, MatchResult res, StrBuf *out)
{
    strbuf_printf(out, "%s", result_name(res));
    if (res != MATCH_OK)
        return;
    uint32_t n;
    const MatchPair *pairs = matcher_pairs(m, &n);
    strbuf_printf(out, " [");
    for (uint32_t i = 0; i < n; i++)
        strbuf_printf(out, "%s%u%s", i ? " " : "", node_id(pairs[i].node),
                      pairs[i].tail ? "+" : "");
    strbuf_printf(out, "]");
    const graft_binding *b = matcher_bindings(m);
    for (int s = 0; s < rule->nslots; s++) {
        if (b[s].node)
            strbuf_printf(out, " %u", node_id(b[s].node));
        else if (b[s].attr)
            strbuf_printf(out, " =%lld", (long long)b[s].attr->i);
        else
            strbuf_printf(out, " -");
    }
}

/* The pairs of the last try, kept to compare with another's. */
static MatchPair *copy_pairs(const Matcher *m, uint32_t *n)
{
    const MatchPair *pairs = matcher_pairs(m, n);
    MatchPair *copy = malloc((*n + 1) * sizeof *copy);
    if (*n)
        memcpy(copy, pairs, *n * sizeof *copy);
    return copy;
}

/* Tries rule r at n as graft does, then with explain mode attached, which
 * runs the goal machine alone (note [explain mode]): both must find the
 * same, pattern nodes of the pairs included.  Returns the outcome. */
static void try_both(Fixture *f, uint32_t r, graft_node *n, StrBuf *out)
{
    const graft_rule *rule = &f->rules->rs.rules[r];
    StrBuf direct = {0}, machine = {0};
    outcome(f->m, rule, matcher_try(f->m, r, n), &direct);
    uint32_t nd, nm;
    MatchPair *pairs = copy_pairs(f->m, &nd);
    MatchFailure rec = {0};
    matcher_explain(f->m, &rec);
    outcome(f->m, rule, matcher_try(f->m, r, n), &machine);
    matcher_explain(f->m, NULL);
    ck_assert_str_eq(direct.data, machine.data);
    const MatchPair *want = matcher_pairs(f->m, &nm);
    ck_assert_uint_eq(nd, nm);
    for (uint32_t i = 0; i < nd && direct.data[0] == 'o'; i++)
        ck_assert_ptr_eq(pairs[i].pat, want[i].pat);
    strbuf_printf(out, "%s at %u: %s\n", rule->name, node_id(n), direct.data);
    free(pairs);
    match_failure_free(&rec);
    strbuf_free(&direct);
    strbuf_free(&machine);
}

/* Every (rule, node) the states offer, in node order, through try_both. */
static void try_all(Fixture *f, StrBuf *out)
{
    for (uint32_t id = 0; id < graph_node_count(f->g); id++) {
        uint32_t nr;
        const uint32_t *rules = automaton_state_rules(f->a, labels_state_id(f->l, id), &nr);
        for (uint32_t k = 0; k < nr; k++)
            try_both(f, rules[k], graph_node(f->g, id), out);
    }
}

static const char *const rules_text =
    "comm := exp(a) + y => partition\n"
    "alt := nn.relu(x) | sigmoid(z) => partition\n"
    "tail := nn.relu(_(x, ...)) => partition\n"
    "item := nn.relu(split(x, indices_or_sections=3, axis=ax)[i]) => partition\n"
    "pick := exp(a) + y where users(a) == 2 => partition\n"
    "none := sigmoid(a) where users(a) == 3 => partition\n"
    "twice := x * exp(x) => partition\n";

/* %p has three users, %q two, %r four. */
static const char *const model_text =
    "def @main(%p, %q, %s, %r) {\n"
    "  %0 = exp(%p);\n"
    "  %1 = exp(%q);\n"
    "  %2 = add(%0, %1);\n"
    "  %3 = nn.relu(%q);\n"
    "  %4 = sigmoid(%p);\n"
    "  %5 = add(%p, %r);\n"
    "  %6 = nn.relu(%5);\n"
    "  %7 = split(%s, indices_or_sections=3, axis=1);\n"
    "  %8 = %7.1;\n"
    "  %9 = nn.relu(%8);\n"
    "  %10 = exp(%r);\n"
    "  %11 = multiply(%r, %10);\n"
    "  %12 = sigmoid(%r);\n"
    "  (%2, %3, %4, %6, %9, %11, %12)\n"
    "}\n";

/* note [direct try]: every rule but twice (x bound twice) is tried
 * directly first, and finds what the goal machine finds (nodes by id: %p
 * 0, %q 1, %s 2, %r 3, then the temps from 4 in order, the tuple 17):
 * comm the first operand order of add(exp(p), exp(q)) though the second
 * fits too; alt its first fitting choice; tail the tail pair (+) of
 * add(p, r) after its operand's; item the element access, the split's
 * axis and the index; pick, whose guard refuses a = p (three users), the
 * second order (a = q) through the goal machine; none at sigmoid(r) the
 * guard's refusal with no other way (MATCH_GUARD).  Below the steps a try
 * may take, the goal machine tries comm; with 3 steps it runs out. */
START_TEST(direct_tries_find_the_goal_machines_matches)
{
    Fixture f;
    open_fixture(&f, rules_text, model_text);
    for (uint32_t r = 0; r < f.rules->rs.nrules; r++)
        ck_assert_int_eq(matcher_direct_fits(f.m, r), strcmp(f.rules->rs.rules[r].name, "twice") != 0);
    StrBuf got = {0};
    try_all(&f, &got);
    ck_assert_str_eq(got.data, "comm at 6: ok [6 4 0 5] 0 5\n"
                               "pick at 6: ok [6 5 1 4] 1 4\n"
                               "alt at 7: ok [7 1] 1 -\n"
                               "alt at 8: ok [8 0] - 0\n"
                               "none at 8: ok [8 0] 0\n"
                               "alt at 10: ok [10 9] 9 -\n"
                               "tail at 10: ok [10 9 0 9+] 0\n"
                               "alt at 13: ok [13 12] 12 -\n"
                               "item at 13: ok [13 12 11 2] 2 =1 =1\n"
                               "twice at 15: ok [15 3 14 3] 3\n"
                               "alt at 16: ok [16 3] - 3\n"
                               "none at 16: guard\n");
    matcher_set_max_steps(f.m, 8); /* comm's try may take 9 (2 per part, 1) */
    ck_assert(!matcher_direct_fits(f.m, 0));
    ck_assert_int_eq(matcher_try(f.m, 0, graph_node(f.g, 6)), MATCH_OK);
    matcher_set_max_steps(f.m, 3);
    ck_assert_int_eq(matcher_try(f.m, 0, graph_node(f.g, 6)), MATCH_BUDGET);
    strbuf_free(&got);
    close_fixture(&f);
}
END_TEST

/* Labels no longer current (add's operand replaced after labelling): the
 * stale state of add still offers both, whose operands' states no longer
 * fit; the direct try fails at the operands and hands over, and the goal
 * machine's MATCH_FAIL is the answer, as with explain mode. */
START_TEST(stale_labels_go_to_the_goal_machine)
{
    Fixture f;
    open_fixture(&f, "both := exp(a) + exp(b) => partition\n",
                 "def @main(%p, %q) {\n  %0 = exp(%p);\n  %1 = exp(%q);\n"
                 "  add(%0, %1)\n}\n");
    graft_node *add = graph_node(f.g, 4), *q = graph_node(f.g, 1);
    StrBuf got = {0};
    try_both(&f, 0, add, &got);
    graph_set_arg(f.g, add, 1, q);
    try_both(&f, 0, add, &got);
    ck_assert_str_eq(got.data, "both at 4: ok [4 2 0 3 1] 0 1\n"
                               "both at 4: fail\n");
    strbuf_free(&got);
    close_fixture(&f);
}
END_TEST

/* The grouper of a fresh engine over f's graph, at a pass of rule r. */
static graft_engine *begin_pass(Fixture *f, Grouper *gp, uint32_t r)
{
    graft_engine *e = engine_new(&f->rules->rs, f->g, NULL);
    engine_label_all(e);
    grouper_init(gp, e);
    grouper_begin(gp, r);
    return e;
}

/* Frees what begin_pass made, and f. */
static void end_pass(Fixture *f, Grouper *gp, graft_engine *e)
{
    grouper_free(gp);
    engine_free(e);
    close_fixture(f);
}

/* begin_pass of "e := exp(x)" over an exp of an exp whose inner exp the
 * output reads too, each its own group: *outer the exp of the exp. */
static graft_engine *begin_exp_of_exp(Fixture *f, Grouper *gp, graft_node **outer,
                                      graft_node **inner)
{
    open_fixture(f, "e := exp(x) => partition\n",
                 "def @main(%p) {\n  %0 = exp(%p);\n  %1 = exp(%0);\n  (%1, %0)\n}\n");
    *outer = graph_node(f->g, 2);
    *inner = graph_node(f->g, 1);
    return begin_pass(f, gp, 0);
}

/* note [claim stamps] (group.h): one word per node id tells whether this
 * pass claimed a node and which group: two groups of one pass, each
 * owning its region; the next pass sees neither claimed.  A pass whose
 * stamps would pass half the range starts again from 1 with the claims
 * cleared, so a claim of the pass before (a stamp near the top) does not
 * read as current. */
START_TEST(claim_stamps_tell_pass_and_owner)
{
    Fixture f;
    open_fixture(&f, "e := exp(x) => partition\n",
                 "def @main(%p, %q) {\n  %0 = exp(%p);\n  %1 = exp(%q);\n  (%0, %1)\n}\n");
    Grouper gp;
    graft_engine *e = begin_pass(&f, &gp, 0);
    graft_node *ep = graph_node(f.g, 2), *eq = graph_node(f.g, 3);
    Group gr;
    ck_assert(grouper_try(&gp, ep, false, &gr) && grouper_try(&gp, eq, false, &gr));
    ck_assert(grouper_claimed(&gp, ep) && grouper_claimed(&gp, eq));
    ck_assert(!grouper_claimed(&gp, graph_node(f.g, 0)));
    ck_assert_ptr_eq(grouper_owner(&gp, ep), ep);
    ck_assert_ptr_eq(grouper_owner(&gp, eq), eq);
    ck_assert_uint_eq(gp.pass, 1);
    grouper_begin(&gp, 0);
    ck_assert_uint_eq(gp.pass, 4); /* after the stamps 1 and 2 of the pass before */
    ck_assert(!grouper_claimed(&gp, ep) && !grouper_claimed(&gp, eq));
    gp.pass = UINT32_MAX / 2 - 1; /* as after many passes */
    ck_assert(grouper_try(&gp, ep, false, &gr));
    ck_assert(grouper_claimed(&gp, ep) && !grouper_claimed(&gp, eq));
    grouper_begin(&gp, 0);
    ck_assert_uint_eq(gp.pass, 1);
    ck_assert(!grouper_claimed(&gp, ep));
    ck_assert(grouper_try(&gp, eq, false, &gr));
    ck_assert(!grouper_claimed(&gp, ep) && grouper_claimed(&gp, eq));
    ck_assert_ptr_eq(grouper_owner(&gp, eq), eq);
    end_pass(&f, &gp, e);
}
END_TEST

/* The steps of rule r's direct line (note [direct line] in
 * src/runtime/match_direct.c), 0 for none. */
static uint32_t line_steps(Fixture *f, uint32_t r)
{
    (void)matcher_direct_fits(f->m, r); /* the line is made with the rule's fact */
    return f->m->lines[r].n;
}

/* note [direct line]: a rule of ops, leaves and element accesses has a
 * line, its pattern's nodes in pre-order (comm 4, item 4: relu, the
 * element, split, x; pick 4, none 2); an alternative, a call of any
 * callee and a rule the direct try does not take (twice) have none.  A
 * try down the line takes add(p, exp(q))'s second operand order as the
 * goal machine does; a pattern of more than LINE_MAX nodes (33 leaves
 * and 32 adds) has no line and is tried down the stack, finding the
 * same. */
START_TEST(direct_lines_find_the_goal_machines_matches)
{
    Fixture f;
    open_fixture(&f, rules_text, model_text);
    static const uint32_t want[] = {4, 0, 0, 4, 4, 2, 0}; /* rules_text's order */
    for (uint32_t r = 0; r < f.rules->rs.nrules; r++)
        ck_assert_uint_eq(line_steps(&f, r), want[r]);
    close_fixture(&f);
    open_fixture(&f, "comm := exp(a) + y => partition\n",
                 "def @main(%p, %q) {\n  %0 = exp(%q);\n  add(%p, %0)\n}\n");
    StrBuf got = {0};
    try_all(&f, &got);
    ck_assert_str_eq(got.data, "comm at 3: ok [3 2 1 0] 1 0\n");
    close_fixture(&f);
    StrBuf rule = {0}, model = {0};
    strbuf_printf(&rule, "long := x0");
    strbuf_printf(&model, "def @main(%%p0");
    for (int k = 1; k <= 32; k++) {
        strbuf_printf(&rule, " + x%d", k);
        strbuf_printf(&model, ", %%p%d", k);
    }
    strbuf_printf(&rule, " => partition\n");
    strbuf_printf(&model, ") {\n  %%0 = add(%%p0, %%p1);\n");
    for (int k = 2; k <= 32; k++)
        strbuf_printf(&model, "  %%%d = add(%%%d, %%p%d);\n", k - 1, k - 2, k);
    strbuf_printf(&model, "  %%31\n}\n");
    open_fixture(&f, rule.data, model.data);
    ck_assert(matcher_direct_fits(f.m, 0));
    ck_assert_uint_eq(line_steps(&f, 0), 0);
    graft_node *top = graph_node(f.g, 64); /* %31: the 33 parameters, then the adds */
    strbuf_free(&got);
    try_both(&f, 0, top, &got);
    ck_assert_int_eq(strncmp(got.data, "long at 64: ok [64 63 62", 24), 0);
    close_fixture(&f);
    strbuf_free(&got);
    strbuf_free(&rule);
    strbuf_free(&model);
}
END_TEST

/* note [region from the pairs] (src/runtime/group.c): add(exp(p), exp(p))
 * matched by exp(a) + exp(b) lists exp once (inputs p); by x + exp(y) exp
 * is an input too, so the walk stops there (region add, inputs exp and p,
 * in the pairs' order).  A refused group reports what the walk finds
 * first: of add(exp(p), sigmoid(p)), whose exp and sigmoid another add
 * reads, the sigmoid (the walk takes the last operand first), not the
 * exp that comes first in the pairs; of a chain of exps, the middle one
 * that the group at the top claimed. */
START_TEST(regions_from_the_pairs_are_the_walks)
{
    Fixture f;
    open_fixture(&f, "sh := exp(a) + exp(b) => partition\nii := x + exp(y) => partition\n",
                 "def @main(%p) {\n  %0 = exp(%p);\n  add(%0, %0)\n}\n");
    graft_node *p = graph_node(f.g, 0), *ex = graph_node(f.g, 1), *add = graph_node(f.g, 2);
    Grouper gp;
    graft_engine *e = begin_pass(&f, &gp, 0);
    Group gr;
    ck_assert(grouper_try(&gp, add, false, &gr));
    ck_assert_uint_eq(gp.region.len, 2);
    ck_assert(gp.region.items[0] == add && gp.region.items[1] == ex);
    ck_assert_uint_eq(gr.ninputs, 1);
    ck_assert_ptr_eq(group_inputs(&gp, &gr)[0], p);
    grouper_begin(&gp, 1);
    ck_assert(grouper_try(&gp, add, false, &gr));
    ck_assert_uint_eq(gp.region.len, 1);
    ck_assert_ptr_eq(gp.region.items[0], add);
    ck_assert_uint_eq(gr.ninputs, 2);
    ck_assert(group_inputs(&gp, &gr)[0] == ex && group_inputs(&gp, &gr)[1] == p);
    end_pass(&f, &gp, e);
    open_fixture(&f, "ov := exp(a) + sigmoid(b) => partition\n",
                 "def @main(%p) {\n  %0 = exp(%p);\n  %1 = sigmoid(%p);\n"
                 "  %2 = add(%0, %1);\n  %3 = add(%0, %1);\n  (%2, %3)\n}\n");
    e = begin_pass(&f, &gp, 0);
    PartVerdict v = {PART_UNTRIED, NULL, NULL};
    gp.watch = graph_node(f.g, 4);
    gp.verdict = &v;
    ck_assert(!grouper_try(&gp, graph_node(f.g, 4), false, &gr));
    ck_assert_int_eq(v.fate, PART_INTERIOR);
    ck_assert(v.a == graph_node(f.g, 2) && v.b == graph_node(f.g, 3));
    end_pass(&f, &gp, e);
    open_fixture(&f, "ee := exp(exp(a)) => partition\n",
                 "def @main(%p) {\n  %0 = exp(%p);\n  %1 = exp(%0);\n  exp(%1)\n}\n");
    e = begin_pass(&f, &gp, 0);
    ck_assert(grouper_try(&gp, graph_node(f.g, 3), false, &gr)); /* claims %1 too */
    gp.watch = graph_node(f.g, 2);
    gp.verdict = &v;
    ck_assert(!grouper_try(&gp, graph_node(f.g, 2), false, &gr));
    ck_assert_int_eq(v.fate, PART_OVERLAP);
    ck_assert(v.a == graph_node(f.g, 2) && v.b == graph_node(f.g, 3));
    end_pass(&f, &gp, e);
}
END_TEST

/* note [offers known] (src/runtime/automaton_label.c): a fresh labeller's
 * walk lists the nodes whose state accepts a rule, each once, and no
 * other: the nodes a scan of every labelled node's rules finds (here in
 * the same order, the model's lines being in the walk's).  The states
 * come from dense entries, a tuple of seven (many_step) and the split's
 * tested class; the function @main is labelled by no walk. */
START_TEST(offering_nodes_are_those_whose_state_accepts)
{
    Fixture f;
    open_fixture(&f, rules_text, model_text);
    Labels *l = labels_new(f.a, f.g);
    uint32_t count = graph_node_count(f.g), nlabelled;
    uint32_t *offering = malloc(count * sizeof *offering);
    uint32_t kept = labels_offering(l, offering, &nlabelled);
    ck_assert_uint_eq(nlabelled, count - 1);
    ck_assert_uint_eq(labels_state_id(l, count - 1), STATE_NONE); /* @main, no operand */
    ck_assert_int_eq(node_kind(graph_node(f.g, count - 1)), NODE_FUNC);
    StrBuf walk = {0}, scan = {0};
    for (uint32_t k = 0; k < kept; k++)
        strbuf_printf(&walk, " %u", offering[k]);
    for (uint32_t id = 0; id < count; id++) {
        uint32_t nr;
        automaton_state_rules(f.a, labels_state_id(l, id), &nr);
        if (nr)
            strbuf_printf(&scan, " %u", id);
    }
    ck_assert_str_eq(scan.data, " 6 7 8 10 13 15 16");
    ck_assert_str_eq(walk.data, " 6 7 8 10 13 15 16");
    strbuf_free(&walk);
    strbuf_free(&scan);
    free(offering);
    labels_free(l);
    close_fixture(&f);
}
END_TEST

/* Labels f's graph by the walk and node by node (labels_node, in id
 * order: operands first) with a second labeller of the same automaton:
 * the same state at every node. */
static Labels *walk_against_nodes(Fixture *f)
{
    Labels *walked = labels_new(f->a, f->g), *one = labels_new(f->a, f->g);
    labels_all(walked);
    for (uint32_t id = 0; id + 1 < graph_node_count(f->g); id++) /* @main last */
        ck_assert_uint_eq(labels_node(one, graph_node(f->g, id)), labels_state_id(walked, id));
    labels_free(one);
    return walked;
}

/* note [leaf states] (src/runtime/automaton_label.c): the walk keeps a
 * parameter's and a constant's state when the rules test them by kind
 * alone, and gives every one the state their own step gives; where rules
 * test constants' values (a literal 1f in a pattern), a constant's state
 * is its own (1f and 2f differ) and none is kept; y:const tests the
 * kind, and every constant has the state kept. */
START_TEST(leaf_states_are_their_steps)
{
    Fixture f;
    open_fixture(&f, rules_text, model_text);
    Labels *l = walk_against_nodes(&f);
    ck_assert_uint_eq(l->leaf[NODE_VAR], labels_state_id(l, 0));
    labels_free(l);
    close_fixture(&f);
    open_fixture(&f, "one := x + 1f => partition\n",
                 "def @main(%p, %q) {\n  %0 = add(%p, 1f);\n  %1 = add(%q, 2f);\n"
                 "  %2 = add(%0, 1f);\n  (%1, %2)\n}\n");
    l = walk_against_nodes(&f);
    ck_assert_uint_eq(l->leaf[NODE_CONST], STATE_NONE);
    ck_assert_uint_ne(labels_state_id(l, 2), labels_state_id(l, 4)); /* 1f, 2f */
    ck_assert_uint_eq(labels_state_id(l, 2), labels_state_id(l, 6)); /* 1f twice */
    labels_free(l);
    close_fixture(&f);
    open_fixture(&f, "any := x + y:const => partition\n",
                 "def @main(%p, %q) {\n  %0 = add(%p, 1f);\n  %1 = add(%q, 2f);\n"
                 "  %2 = add(%0, 1f);\n  (%1, %2)\n}\n");
    l = walk_against_nodes(&f);
    ck_assert_uint_eq(l->leaf[NODE_CONST], labels_state_id(l, 2));
    ck_assert_uint_eq(labels_state_id(l, 2), labels_state_id(l, 4)); /* y:const: 1f as 2f */
    labels_free(l);
    close_fixture(&f);
}
END_TEST

/* note [interior read inside] (src/runtime/group.c): a group listed from
 * the pairs whose interior nodes only the region reads is known to move;
 * one whose interior exp a tanh outside reads (the root post-dominates
 * it, so the group is kept) is not, and the partition looks itself. */
START_TEST(groups_tell_interior_read_inside)
{
    Fixture f;
    open_fixture(&f, "sh := exp(a) + exp(b) => partition\n",
                 "def @main(%p) {\n  %0 = exp(%p);\n  add(%0, %0)\n}\n");
    Grouper gp;
    graft_engine *e = begin_pass(&f, &gp, 0);
    Group gr;
    ck_assert(grouper_try(&gp, graph_node(f.g, 2), false, &gr));
    ck_assert(gr.read_inside);
    end_pass(&f, &gp, e);
    open_fixture(&f, "ea := exp(a) + b => partition\n",
                 "def @main(%p) {\n  %0 = exp(%p);\n  %1 = tanh(%0);\n  add(%0, %1)\n}\n");
    e = begin_pass(&f, &gp, 0);
    ck_assert(grouper_try(&gp, graph_node(f.g, 3), false, &gr));
    ck_assert(!gr.read_inside);
    ck_assert_uint_eq(gp.region.len, 2);
    ck_assert_uint_eq(gr.ninputs, 2);
    end_pass(&f, &gp, e);
}
END_TEST

/* note [asks where they fail] (src/runtime/match_direct.c): on a line a
 * commutative op's step asks its operands' items, any other op's
 * operands ask their own (subtract's two exps; add's exp and y do not).
 * Labels no longer current under a subtract, its second operand
 * replaced by a parameter: the direct try fails at that operand's own
 * step and hands over, and the goal machine's MATCH_FAIL is the answer,
 * as with explain mode; the first try's pairs were the line's, the
 * goal machine's are not. */
START_TEST(operands_of_one_order_ask_at_their_steps)
{
    Fixture f;
    open_fixture(&f,
                 "sub := exp(a) - exp(b) => partition\ncomm := exp(a) + y => partition\n"
                 "twice := exp(a) - exp(a) => partition\n",
                 "def @main(%p, %q) {\n  %0 = exp(%p);\n  %1 = exp(%q);\n"
                 "  subtract(%0, %1)\n}\n");
    ck_assert_uint_eq(line_steps(&f, 0), 5);
    const LineStep *sub = f.m->lines[0].steps;
    ck_assert(sub[0].ask && sub[1].ask && sub[3].ask && sub[0].ways == 0);
    ck_assert_uint_eq(line_steps(&f, 1), 4);
    const LineStep *comm = f.m->lines[1].steps;
    ck_assert(comm[0].ask && !comm[1].ask && !comm[3].ask && comm[0].ways == 2);
    graft_node *root = graph_node(f.g, 4), *q = graph_node(f.g, 1);
    ck_assert_int_eq(matcher_try(f.m, 0, root), MATCH_OK);
    ck_assert(matcher_pairs_lined(f.m));
    StrBuf got = {0};
    try_both(&f, 0, root, &got);
    ck_assert(!matcher_pairs_lined(f.m)); /* explain mode's goal machine */
    graph_set_arg(f.g, root, 1, q);
    try_both(&f, 0, root, &got);
    ck_assert_str_eq(got.data, "sub at 4: ok [4 2 0 3 1] 0 1\n"
                               "sub at 4: fail\n");
    strbuf_free(&got);
    close_fixture(&f);
}
END_TEST

/* note [pair roles] (src/runtime/group.c): a pass of a rule with a line
 * learns its pairs' roles at its first group and reads them at the
 * next: both groups embed their constant (c:const is no input) and take
 * their exp's operand as their one input; they are numbered 0 and 1.  A rule without a line (the
 * tail) works its roles out at each match and keeps none. */
START_TEST(line_roles_are_learnt_once_a_pass)
{
    Fixture f;
    open_fixture(&f, "ec := exp(a) + c:const => partition\ntail := nn.relu(_(x, ...)) => partition\n",
                 "def @main(%p, %q) {\n  %0 = exp(%p);\n  %1 = add(%0, 1f);\n"
                 "  %2 = exp(%q);\n  %3 = add(%2, 2f);\n  %4 = nn.relu(%3);\n"
                 "  (%1, %4)\n}\n");
    Grouper gp;
    graft_engine *e = begin_pass(&f, &gp, 0);
    Group gr;
    ck_assert(!gp.roles_lined);
    for (uint32_t k = 0; k < 2; k++) {
        graft_node *add = graph_node(f.g, 4 + 3 * k);
        ck_assert(grouper_try(&gp, add, false, &gr));
        ck_assert(gp.roles_lined);
        ck_assert_uint_eq(gr.number, k); /* @main's counter: no other global */
        ck_assert_uint_eq(gp.region.len, 3); /* add, the constant, exp */
        ck_assert_ptr_eq(gp.region.items[0], add);
        ck_assert_uint_eq(gr.ninputs, 1);
        ck_assert_ptr_eq(group_inputs(&gp, &gr)[0], graph_node(f.g, k));
    }
    grouper_begin(&gp, 1);
    ck_assert(grouper_try(&gp, graph_node(f.g, 8), false, &gr));
    ck_assert(!gp.roles_lined);
    ck_assert_uint_eq(gr.ninputs, 2); /* the add's operands: exp(q) and 2f */
    end_pass(&f, &gp, e);
}
END_TEST

/* labels_graph_nodes: the walk's nodes, graph_topo_order's, each with
 * the state the walk of labels_all gives it. */
START_TEST(nodes_walk_is_the_topo_order)
{
    Fixture f;
    open_fixture(&f, rules_text, model_text);
    Labels *l = labels_new(f.a, f.g);
    uint32_t count = graph_node_count(f.g);
    graft_node **nodes = malloc(count * sizeof *nodes), **topo = malloc(count * sizeof *topo);
    uint32_t n = labels_graph_nodes(l, nodes);
    ck_assert_uint_eq(n, count - 1); /* @main: no walk reaches it */
    ck_assert_uint_eq(graph_topo_order(f.g, topo), n);
    for (uint32_t i = 0; i < n; i++) {
        ck_assert_ptr_eq(nodes[i], topo[i]);
        ck_assert_uint_eq(labels_state(l, nodes[i]), labels_state(f.l, nodes[i]));
    }
    free(nodes);
    free(topo);
    labels_free(l);
    close_fixture(&f);
}
END_TEST

/* note [short marks] and note [listed reader] (src/runtime/group.c):
 * a candidate tried with the marks' last stamps before they wrap is
 * grouped as any other, its exp of one user (the add) listed clean; the
 * next clears the marks and starts again from 1 and 2, and its exp, which
 * the tuple outside reads too, refuses it (its users list is read).
 * The first group is @main's first: its counter found once a pass. */
START_TEST(short_marks_wrap_and_one_reader_lists_clean)
{
    Fixture f;
    open_fixture(&f, "ea := exp(a) + b => partition\n",
                 "def @main(%p, %q) {\n  %0 = exp(%p);\n  %1 = add(%0, %q);\n"
                 "  %2 = exp(%q);\n  %3 = add(%2, %p);\n  (%1, %3, %2)\n}\n");
    Grouper gp;
    graft_engine *e = begin_pass(&f, &gp, 0);
    Group gr;
    gp.stamp = UINT16_MAX - 4;
    ck_assert(grouper_try(&gp, graph_node(f.g, 3), false, &gr));
    ck_assert_uint_eq(gp.istamp, UINT16_MAX - 3);
    ck_assert_uint_eq(gp.stamp, UINT16_MAX - 2);
    ck_assert(gr.read_inside);
    ck_assert_int_eq(gp.main_at, 1); /* @main, the module's global 0 */
    ck_assert_uint_eq(gr.number, 0);
    ck_assert_uint_eq(gp.region.len, 2); /* the add and exp(p) */
    ck_assert_uint_eq(gr.ninputs, 2);
    ck_assert_ptr_eq(group_inputs(&gp, &gr)[0], graph_node(f.g, 0));
    ck_assert_ptr_eq(group_inputs(&gp, &gr)[1], graph_node(f.g, 1));
    ck_assert(!grouper_try(&gp, graph_node(f.g, 5), false, &gr));
    ck_assert_uint_eq(gp.istamp, 1);
    ck_assert_uint_eq(gp.stamp, 2);
    ck_assert_uint_eq(gp.mark[2], 0); /* the first group's exp: cleared */
    ck_assert_uint_eq(gp.mark[4], 2); /* exp(q): the region's */
    ck_assert_uint_eq(gp.mark[0], 1); /* p: an input */
    ck_assert_uint_eq(e->stats.rules[0].interior, 1);
    end_pass(&f, &gp, e);
}
END_TEST

/* note [line asks] (src/runtime/match_direct.c): each step of a line
 * holds its item's word and bit in a state's item set, a commutative
 * op's step its operands' too, and a try reading them finds what the
 * pattern's items say: subtract(exp(p), exp(q)) by exp(a) - exp(b), b
 * bound to q; add(q, exp(p)) by exp(a) + y, its operands swapped.  A
 * rule binding a twice has no line. */
START_TEST(line_steps_hold_their_items_bits)
{
    Fixture f;
    open_fixture(&f,
                 "sub := exp(a) - exp(b) => partition\ncomm := exp(a) + y => partition\n"
                 "twice := exp(a) - exp(a) => partition\n",
                 "def @main(%p, %q) {\n  %0 = exp(%p);\n  %1 = exp(%q);\n"
                 "  %2 = subtract(%0, %1);\n  %3 = add(%q, %0);\n  (%2, %3)\n}\n");
    for (uint32_t r = 0; r < 2; r++) {
        uint32_t n = line_steps(&f, r);
        const LineStep *steps = f.m->lines[r].steps;
        for (uint32_t i = 0; i < n; i++) {
            const graft_pat *p = steps[i].pat;
            ck_assert_uint_eq(steps[i].word, p->item / 64);
            ck_assert_uint_eq(steps[i].bit, (uint64_t)1 << (p->item % 64));
            for (int k = 0; steps[i].ways && k < 2; k++) {
                ck_assert_uint_eq(steps[i].kid_word[k], p->kids[k]->item / 64);
                ck_assert_uint_eq(steps[i].kid_bit[k], (uint64_t)1 << (p->kids[k]->item % 64));
            }
        }
    }
    ck_assert_uint_eq(f.m->lines[1].steps[0].ways, 2);
    uint32_t npairs;
    ck_assert_int_eq(matcher_try(f.m, 0, graph_node(f.g, 4)), MATCH_OK);
    ck_assert(matcher_pairs_lined(f.m));
    const MatchPair *pairs = matcher_pairs(f.m, &npairs);
    ck_assert_uint_eq(npairs, 5);
    ck_assert_ptr_eq(pairs[4].node, graph_node(f.g, 1)); /* b: q */
    ck_assert_ptr_eq(f.m->b[pairs[4].pat->slot].node, graph_node(f.g, 1));
    ck_assert_uint_eq(line_steps(&f, 2), 0); /* a bound twice: no line (note [line binds once]) */
    ck_assert_int_eq(matcher_try(f.m, 1, graph_node(f.g, 5)), MATCH_OK);
    ck_assert(matcher_pairs_lined(f.m));
    pairs = matcher_pairs(f.m, &npairs);
    ck_assert_uint_eq(npairs, 4); /* add, exp, a, y */
    ck_assert_ptr_eq(pairs[1].node, graph_node(f.g, 2)); /* exp(p), the second operand */
    ck_assert_ptr_eq(pairs[3].node, graph_node(f.g, 1)); /* y: q */
    close_fixture(&f);
}
END_TEST

/* note [input blocks] (src/runtime/group.c): a pass of 5,000 groups, one
 * input each (a chain of exps, each its own group whose input is the exp
 * below), fills a first block of INPUT_BLOCK inputs and goes on in a
 * second; every group's input, read after the pass, is the one it took. */
START_TEST(input_blocks_keep_each_groups_inputs)
{
    enum { N = 5000 };
    StrBuf model = {0};
    strbuf_puts(&model, "def @main(%p) {\n  %0 = exp(%p);\n");
    for (int k = 1; k < N - 1; k++)
        strbuf_printf(&model, "  %%%d = exp(%%%d);\n", k, k - 1);
    strbuf_printf(&model, "  exp(%%%d)\n}\n", N - 2);
    Fixture f;
    open_fixture(&f, "e := exp(a) => partition\n", model.data);
    Grouper gp;
    graft_engine *e = begin_pass(&f, &gp, 0);
    Group *groups = malloc(N * sizeof *groups);
    for (uint32_t id = N; id >= 1; id--) /* outputs first, as a pass */
        ck_assert(grouper_try(&gp, graph_node(f.g, id), false, &groups[N - id]));
    ck_assert_uint_eq(gp.full.len, 1);
    /* a candidate asks room for its two pairs and one more */
    ck_assert_uint_eq(groups[INPUT_BLOCK - 3].block, 0);
    ck_assert_uint_eq(groups[INPUT_BLOCK - 2].block, 1);
    ck_assert_uint_eq(groups[INPUT_BLOCK - 2].inputs, 0);
    for (uint32_t k = 0; k < N; k++) {
        ck_assert_uint_eq(groups[k].ninputs, 1);
        ck_assert_ptr_eq(group_inputs(&gp, &groups[k])[0], graph_node(f.g, N - k - 1));
    }
    free(groups);
    end_pass(&f, &gp, e);
    strbuf_free(&model);
}
END_TEST

/* note [state size] (src/runtime/automaton_label.c): the room a
 * rewrite's first labelling reserves for its edits is a quarter more
 * than the graph's nodes, and the labelling and a new node's label fit
 * in it: the array is not moved, and each state is labels_all's. */
START_TEST(edits_room_is_reserved_before_labelling)
{
    Fixture f;
    open_fixture(&f, "ea := exp(a) + b => partition\n",
                 "def @main(%p, %q) {\n  %0 = exp(%p);\n  %1 = add(%0, %q);\n"
                 "  %2 = exp(%q);\n  add(%2, %p)\n}\n");
    uint32_t count = graph_node_count(f.g);
    Labels *l = labels_new(f.a, f.g);
    labels_reserve_edits(l);
    ck_assert_uint_eq(l->st.cap, count + count / 4);
    const uint32_t *states = l->st.state;
    labels_all(l);
    graft_node *made = graph_add_call(f.g, "exp", (graft_node *[]){graph_node(f.g, 0)}, 1, NULL, 0);
    labels_node(l, made);
    ck_assert_ptr_eq(l->st.state, states);
    ck_assert_uint_eq(l->st.cap, count + count / 4);
    for (uint32_t id = 0; id < count; id++)
        ck_assert_uint_eq(labels_state_id(l, id), labels_state_id(f.l, id));
    ck_assert_uint_eq(labels_state(l, made), labels_state_id(l, 4)); /* exp(q)'s */
    labels_free(l);
    close_fixture(&f);
}
END_TEST

/* note [wide keys] (src/runtime/automaton_label.c): two batch norms of
 * the same five operand states take one wide slot, which holds their
 * class, operand states and state; the second is its hit. */
START_TEST(wide_steps_share_one_slot)
{
    Fixture f;
    open_fixture(&f, "e := exp(a) => partition\n",
                 "def @main(%a, %b, %c) {\n  %0 = nn.batch_norm(%a, %b, %c, %a, %b);\n"
                 "  %1 = nn.batch_norm(%b, %a, %c, %b, %a);\n  (%0, %1)\n}\n");
    Labels *l = labels_new(f.a, f.g);
    labels_all(l);
    uint32_t used = 0, state = labels_state_id(l, 3);
    ck_assert_uint_eq(labels_state_id(l, 4), state);
    for (uint32_t k = 0; k < WIDE_SLOTS; k++) {
        const WideSlot *w = &l->wide[k];
        if (!w->cls)
            continue;
        used++;
        ck_assert_uint_eq(w->nargs, 5);
        ck_assert_uint_eq(w->state, state);
        for (uint32_t a = 0; a < 5; a++)
            ck_assert_uint_eq(w->args[a], labels_state_id(l, 0)); /* every parameter's */
    }
    ck_assert_uint_eq(used, 1);
    labels_free(l);
    close_fixture(&f);
}
END_TEST

/* note [offers inline] (src/runtime/automaton.h): labels_id_offers says
 * whether a node's state accepts a rule, learnt at the first ask of a
 * state and read inline after: the add of exp(a) + b does, the exps and
 * parameters do not, an id never labelled does not. */
START_TEST(offers_are_read_inline_once_learnt)
{
    Fixture f;
    open_fixture(&f, "ea := exp(a) + b => partition\n",
                 "def @main(%p, %q) {\n  %0 = exp(%p);\n  add(%0, %q)\n}\n");
    Labels *l = labels_new(f.a, f.g);
    labels_all(l);
    const LabelsHead *h = (const LabelsHead *)(const void *)l;
    for (int ask = 0; ask < 2; ask++) { /* learnt, then read */
        ck_assert(!labels_id_offers(l, 0));
        ck_assert(!labels_id_offers(l, 2));
        ck_assert(labels_id_offers(l, 3));
        ck_assert(!labels_id_offers(l, 1000));
    }
    ck_assert_uint_eq(h->offers[labels_state_id(l, 3)], 2);
    ck_assert_uint_eq(h->offers[labels_state_id(l, 2)], 1);
    labels_free(l);
    close_fixture(&f);
}
END_TEST

/* note [marks freed before the actions] (src/runtime/group.c):
 * grouper_end_tries frees the marks and keeps the claims; the next try
 * makes them again, zeroed, with the stamps from the start, and groups as
 * before: a group's inputs are its leaves, and a root another group
 * claimed is refused as overlapping. */
START_TEST(marks_freed_between_tries_and_actions)
{
    Fixture f;
    Grouper gp;
    graft_node *outer, *inner;
    graft_engine *e = begin_exp_of_exp(&f, &gp, &outer, &inner);
    ck_assert_int_eq(node_kind(outer), NODE_CALL);
    Group gr;
    ck_assert(grouper_try(&gp, outer, false, &gr));
    ck_assert_uint_eq(gr.ninputs, 1);
    ck_assert_ptr_eq(group_inputs(&gp, &gr)[0], inner);
    grouper_end_tries(&gp);
    ck_assert_ptr_null(gp.mark);
    ck_assert_uint_eq(gp.stamp, 0);
    ck_assert(grouper_claimed(&gp, outer) && !grouper_claimed(&gp, inner));
    grouper_begin(&gp, 0); /* the next pass */
    ck_assert(grouper_try(&gp, inner, false, &gr));
    ck_assert_ptr_nonnull(gp.mark);
    ck_assert_uint_eq(gp.stamp, 2); /* the first candidate's */
    ck_assert_uint_eq(gr.ninputs, 1);
    ck_assert_ptr_eq(group_inputs(&gp, &gr)[0], graph_node(f.g, 0));
    ck_assert(!grouper_try(&gp, inner, false, &gr)); /* claimed: overlaps */
    end_pass(&f, &gp, e);
}
END_TEST

/* A kept group is 40 bytes on a 64-bit host (group.h): its root, six
 * 4-byte numbers and indexes, the flag in the last pointer's room; the
 * rewrite's bindings beside it, not pointed to (check_engine's
 * attribute_operands_spelled_once and replaced_copies_freed_as_the_pass_goes
 * read them, a chain of groups each binding the last one's root). */
START_TEST(groups_are_forty_bytes)
{
    ck_assert_uint_eq(offsetof(Group, read_inside), sizeof(graft_node *) + 6 * 4);
    ck_assert_uint_eq(sizeof(Group), offsetof(Group, read_inside) + sizeof(void *));
}
END_TEST

/* note [claims freed before the groups are applied] in group.c: a
 * partition's tries done, the claims, marks and kept roots are freed and
 * the group's inputs stay; the next pass's try makes the claims again,
 * none left from the first (the outer exp, claimed then, is kept again),
 * and its own claim refuses a second try.  Input blocks before a given
 * one are freed once, their slots emptied. */
START_TEST(claims_freed_before_the_groups_are_applied)
{
    Fixture f;
    Grouper gp;
    graft_node *outer, *inner;
    graft_engine *e = begin_exp_of_exp(&f, &gp, &outer, &inner);
    Group gr;
    ck_assert(grouper_try(&gp, outer, false, &gr));
    grouper_end_claims(&gp);
    ck_assert_ptr_null(gp.claim);
    ck_assert_ptr_null(gp.mark);
    ck_assert_ptr_null(gp.owners.items);
    ck_assert_uint_eq(gp.size, 0);
    ck_assert(!grouper_claimed(&gp, outer));
    ck_assert_ptr_eq(group_inputs(&gp, &gr)[0], inner);
    grouper_begin(&gp, 0); /* the next pass */
    ck_assert(grouper_try(&gp, outer, false, &gr));
    ck_assert_ptr_nonnull(gp.claim);
    ck_assert_uint_eq(gp.pass, 1);
    ck_assert(grouper_claimed(&gp, outer) && !grouper_claimed(&gp, inner));
    ck_assert(!grouper_try(&gp, outer, false, &gr)); /* claimed: overlaps */
    graft_node **blocks[3] = {xmalloc(8), xmalloc(8), NULL};
    vec_push(&gp.full, blocks[0]);
    vec_push(&gp.full, blocks[1]);
    grouper_free_inputs_before(&gp, 1);
    ck_assert_ptr_null(gp.full.items[0]);
    ck_assert_ptr_eq(gp.full.items[1], blocks[1]);
    grouper_free_inputs_before(&gp, 1); /* nothing more */
    ck_assert_uint_eq(gp.freed_blocks, 1);
    grouper_free_inputs_before(&gp, 3); /* past the full ones: the last stays */
    ck_assert_ptr_null(gp.full.items[1]);
    ck_assert_uint_eq(gp.freed_blocks, 3);
    end_pass(&f, &gp, e);
}
END_TEST

/* labels_drop_states frees the states and the operands' scratch, which
 * a tuple of 100 fields grew; labelling again grows them back and gives
 * the same states. */
START_TEST(dropped_labels_free_the_operands_scratch)
{
    StrBuf model = {0};
    strbuf_puts(&model, "def @main(%p) {\n  %0 = exp(%p);\n  (%0");
    for (int i = 1; i < 100; i++)
        strbuf_puts(&model, ", %0");
    strbuf_puts(&model, ")\n}\n");
    Fixture f;
    open_fixture(&f, "e := exp(a) => partition\n", model.data);
    Labels *l = labels_new(f.a, f.g);
    labels_all(l);
    ck_assert_uint_ge(l->args_cap, 100);
    labels_drop_states(l);
    ck_assert_ptr_null(l->st.state);
    ck_assert_ptr_null(l->args);
    ck_assert_ptr_null(l->operands);
    ck_assert_uint_eq(l->args_cap + l->operands_cap, 0);
    labels_all(l);
    ck_assert_uint_ge(l->args_cap, 100);
    for (uint32_t id = 0; id < graph_node_count(f.g); id++)
        ck_assert_uint_eq(labels_state_id(l, id), labels_state_id(f.l, id));
    labels_free(l);
    close_fixture(&f);
    strbuf_free(&model);
}
END_TEST

static Suite *match_suite(void)
{
    Suite *s = suite_create("match");
    TCase *tc = tcase_create("direct");
    tcase_add_test(tc, direct_tries_find_the_goal_machines_matches);
    tcase_add_test(tc, stale_labels_go_to_the_goal_machine);
    tcase_add_test(tc, direct_lines_find_the_goal_machines_matches);
    tcase_add_test(tc, offering_nodes_are_those_whose_state_accepts);
    tcase_add_test(tc, leaf_states_are_their_steps);
    tcase_add_test(tc, operands_of_one_order_ask_at_their_steps);
    tcase_add_test(tc, nodes_walk_is_the_topo_order);
    tcase_add_test(tc, line_steps_hold_their_items_bits);
    tcase_add_test(tc, edits_room_is_reserved_before_labelling);
    tcase_add_test(tc, wide_steps_share_one_slot);
    tcase_add_test(tc, offers_are_read_inline_once_learnt);
    tcase_add_test(tc, dropped_labels_free_the_operands_scratch);
    suite_add_tcase(s, tc);
    TCase *groups = tcase_create("groups");
    tcase_add_test(groups, claim_stamps_tell_pass_and_owner);
    tcase_add_test(groups, regions_from_the_pairs_are_the_walks);
    tcase_add_test(groups, groups_tell_interior_read_inside);
    tcase_add_test(groups, line_roles_are_learnt_once_a_pass);
    tcase_add_test(groups, short_marks_wrap_and_one_reader_lists_clean);
    tcase_add_test(groups, input_blocks_keep_each_groups_inputs);
    tcase_add_test(groups, marks_freed_between_tries_and_actions);
    tcase_add_test(groups, groups_are_forty_bytes);
    tcase_add_test(groups, claims_freed_before_the_groups_are_applied);
    suite_add_tcase(s, groups);
    return s;
}

int main(void)
{
    return check_run_suite(match_suite());
}
