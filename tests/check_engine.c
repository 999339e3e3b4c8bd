/* check_engine.c - the driver in-process: statistics and refusal reasons,
 * the bound on rewriting, match listing, the dump, the 1,000,000-node
 * chain.  (Rewrites and partitions of every pattern construct are golden
 * cases under tests/golden/, run by tests/golden.sh.) */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "automaton.h"
#include "engine.h"
#include "engine_impl.h"
#include "frontend.h"
#include "keymap.h"
#include "lower.h"
#include "match.h"
#include "partition_impl.h"
#include "pattern.h"
#include "relay.h"
#include "verify_impl.h"
#include "check_main.h"

/* One loaded rule set and model, with diagnostics captured in text. */
typedef struct Run {
    Lowered *rules;  /* lowered rules */
    Source *src;     /* model text */
    graft_graph *g;        /* model */
    graft_engine *e;       /* driver */
    char *diag;      /* diagnostics printed */
    size_t diag_len; /* bytes in diag */
    FILE *diag_out;  /* the stream diag writes to */
    graft_diag *d;         /* diagnostics */
} Run;

static void run_open_with(Run *r, const char *rules, const char *model, EngineOptions opts)
{
    memset(r, 0, sizeof *r);
    r->diag_out = open_memstream(&r->diag, &r->diag_len);
    r->d = diag_new(r->diag_out);
    RuleFile *rf = frontend_load_string("test.graft", rules, NULL, r->d);
    ck_assert_ptr_nonnull(rf);
    r->rules = lower_rules(rf, r->d);
    rulefile_free(rf);
    ck_assert_ptr_nonnull(r->rules);
    r->src = source_from_string("test.relay", model, strlen(model));
    r->g = relay_load(r->src, r->d);
    ck_assert_ptr_nonnull(r->g);
    r->e = engine_new(&r->rules->rs, r->g, &opts);
}

static void run_open(Run *r, const char *rules, const char *model, uint64_t max_rewrites)
{
    run_open_with(r, rules, model, (EngineOptions){.max_rewrites = max_rewrites});
}

static void run_close(Run *r)
{
    engine_free(r->e);
    graph_free(r->g);
    source_free(r->src);
    lower_free(r->rules);
    diag_free(r->d);
    fclose(r->diag_out);
    free(r->diag);
}

static const RuleStats *rule_stats(const Run *r, uint32_t i)
{
    return &engine_stats(r->e)->rules[i];
}

static void assert_output(const Run *r, const char *want)
{
    char *got = relay_print_string(r->g);
    ck_assert_str_eq(got, want);
    free(got);
}

/* Opens r on rules and model without a bound and runs the engine to the
 * end, which must succeed. */
static void run_rewrite(Run *r, const char *rules, const char *model)
{
    run_open(r, rules, model, 0);
    ck_assert(engine_run(r->e, r->d));
}

/* ---- per-rule times ---- */

/* The seconds rule 0 spent on 200 rewrites of a chain of nn.relu, the
 * engine keeping times or not. */
static double rule_seconds(bool untimed)
{
    StrBuf model = {0};
    strbuf_puts(&model, "def @main(%x) {\n  %0 = nn.relu(%x);\n");
    for (int i = 1; i < 200; i++)
        strbuf_printf(&model, "  %%%d = nn.relu(%%%d);\n", i, i - 1);
    strbuf_puts(&model, "  %199\n}\n");
    Run r;
    run_open_with(&r, "r := nn.relu(x) => exp(x)\n", model.data,
                  (EngineOptions){.untimed = untimed});
    ck_assert(engine_run(r.e, r.d));
    ck_assert_uint_eq(rule_stats(&r, 0)->applied, 200);
    double seconds = rule_stats(&r, 0)->seconds;
    run_close(&r);
    strbuf_free(&model);
    return seconds;
}

START_TEST(untimed_reads_no_clock)
{
    /* graft run without --stats=time leaves the times at 0 (no clock read
       per try and per rewrite); with them, 200 rewrites take some time */
    ck_assert(rule_seconds(true) == 0.0);
    ck_assert(rule_seconds(false) > 0.0);
}
END_TEST

/* ---- actions checked for values once per rule ---- */

/* Whether each rule of rules has an action that needs no check for
 * computed values, as the string of '1' and '0' over the rules. */
static void assert_always_computable(const char *rules, const char *want)
{
    Run r;
    run_open(&r, rules, "def @main(%x) {\n  nn.relu(%x)\n}\n", 0);
    char got[16] = {0};
    for (uint32_t i = 0; i < r.rules->rs.nrules && i < sizeof got - 1; i++) {
        const graft_expr *action = r.rules->rs.rules[i].action;
        got[i] = action && rewrite_always_computable(action) ? '1' : '0';
    }
    ck_assert_str_eq(got, want);
    run_close(&r);
}

START_TEST(computable_decided_per_rule)
{
    /* plain operands always have a value; a bound variable given as an
       attribute (it may be bound to a tensor constant, which has none:
       tests/golden/attr_from_const), a computed number, a computed list
       item, a shape and a splice are checked on each match
       (rewrite_computable) */
    assert_always_computable(
        "plain := nn.relu(x) => exp(x)\n"
        "bound := nn.leaky_relu(x, alpha=a) => nn.leaky_relu(exp(x), alpha=a)\n"
        "units := nn.dense(x, w, units=None) => nn.dense(x, w, units=shape(w)[0])\n"
        "axis := e@expand_dims(_:rank(1), axis=a, num_newaxis=1) => squeeze(e, axis=[a])\n"
        "deep := nn.dense(x, w, units=None) => exp(nn.dense(x, w, units=shape(w)[0]))\n"
        "rotate := (x, rest...) => (rest..., x)\n"
        "part := nn.relu(tanh(x)) => partition\n",
        "1000000");
}
END_TEST

/* ---- refusals and their counts ---- */

START_TEST(overlap_is_counted)
{
    /* group 0 (root %2) keeps exp(%a) although %1 uses it: %2
       post-dominates %1.  The candidate at %1 overlaps it: dropped, yet
       it takes group number 1. */
    Run r;
    run_rewrite(&r, "r := add(x, exp(y)) => partition\n",
                "def @main(%a, %b) {\n  %0 = exp(%a);\n  %1 = add(%b, %0);\n  add(%1, %0)\n}\n");
    ck_assert_uint_eq(rule_stats(&r, 0)->matched, 2);
    ck_assert_uint_eq(rule_stats(&r, 0)->applied, 1);
    ck_assert_uint_eq(rule_stats(&r, 0)->overlap, 1);
    ck_assert_uint_eq(rule_stats(&r, 0)->interior, 0);
    assert_output(&r,
        "def @main(%a, %b) {\n"
        "  %1 = exp(%a);\n"
        "  %2 = add(%b, %1);\n"
        "  %3 = fn (%FunctionVar_0_0, %FunctionVar_0_1, PartitionedFromPattern=\"exp_add_\") {\n"
        "    %0 = exp(%FunctionVar_0_1);\n"
        "    add(%FunctionVar_0_0, %0)\n"
        "  };\n"
        "  %3(%2, %a)\n"
        "}\n");
    run_close(&r);
}
END_TEST

/* note [pass scratch]: engine_run frees the passes' order, forwarding
 * map, stamps and marks when they end; a second run on the same engine
 * grows them again and, the graph being a fixpoint now, changes
 * nothing: a rewrite, then a partition (which asks the stamps of the
 * post-dominance walk). */
START_TEST(second_run_regrows_pass_scratch)
{
    Run r;
    run_rewrite(&r, "r := nn.relu(x) => exp(x)\np := add(x, exp(y)) => partition\n",
                "def @main(%a) {\n  %0 = nn.relu(%a);\n  %1 = nn.relu(%0);\n"
                "  add(%1, %0)\n}\n");
    const char *want = "def @main(%a) {\n"
                       "  %1 = exp(%a);\n"
                       "  %2 = exp(%1);\n"
                       "  %3 = fn (%FunctionVar_0_0, %FunctionVar_0_1, "
                       "PartitionedFromPattern=\"exp_add_\") {\n"
                       "    %0 = exp(%FunctionVar_0_1);\n"
                       "    add(%FunctionVar_0_0, %0)\n"
                       "  };\n"
                       "  %3(%2, %a)\n"
                       "}\n";
    assert_output(&r, want);
    ck_assert_uint_eq(rule_stats(&r, 0)->applied, 2);
    ck_assert_uint_eq(rule_stats(&r, 1)->applied, 1);
    ck_assert(engine_run(r.e, r.d));
    assert_output(&r, want);
    ck_assert_uint_eq(rule_stats(&r, 0)->applied, 2);
    ck_assert_uint_eq(rule_stats(&r, 1)->applied, 1);
    run_close(&r);
}
END_TEST

/* note [relabelling through users] in src/runtime/engine_relabel.c: after
 * a pass that rewrote, the next lists relabel what changed through the
 * users lists and walk the graph for an order only when some node still
 * offers a rule.  Each row: the labellings and rounds are those of the
 * walk-based relabelling before it (graft run --stats=counts of main
 * b324518 on the same files), the orders those walked now.  Eight pairs
 * rewritten in one round dirty only the output tuple and leave nothing
 * offering: one order, the first labelling's (before: two).  A chain of
 * nine relus: four rounds rewrite, each change relabelled through the
 * users; the lists of the three after the first need an order, for
 * nodes still offer, and the last finds none (4, before: 5).  An exp at
 * a chain's head: the change reaches the whole chain, relabelled through
 * the users, and nothing offers (1, before: 2).  A second rule whose
 * guard refuses it still offers at the add: the lists need an order
 * again (2, as before). */
static const struct RelabelCase {
    const char *rules, *model, *want;
    uint64_t rewrites, rounds, labelled, orders;
} relabel_cases[] = {
    {"t := nn.relu(nn.relu(x)) => nn.relu(x)\n",
     "def @main(%x) {\n  %0 = nn.relu(%x);\n  %1 = nn.relu(%0);\n  %2 = nn.relu(%x);\n"
     "  %3 = nn.relu(%2);\n  %4 = nn.relu(%x);\n  %5 = nn.relu(%4);\n  %6 = nn.relu(%x);\n"
     "  %7 = nn.relu(%6);\n  %8 = nn.relu(%x);\n  %9 = nn.relu(%8);\n  %10 = nn.relu(%x);\n"
     "  %11 = nn.relu(%10);\n  %12 = nn.relu(%x);\n  %13 = nn.relu(%12);\n"
     "  %14 = nn.relu(%x);\n  %15 = nn.relu(%14);\n"
     "  (%1, %3, %5, %7, %9, %11, %13, %15)\n}\n",
     "def @main(%x) {\n  %0 = nn.relu(%x);\n  %1 = nn.relu(%x);\n  %2 = nn.relu(%x);\n"
     "  %3 = nn.relu(%x);\n  %4 = nn.relu(%x);\n  %5 = nn.relu(%x);\n  %6 = nn.relu(%x);\n"
     "  %7 = nn.relu(%x);\n  (%0, %1, %2, %3, %4, %5, %6, %7)\n}\n",
     8, 2, 27, 1},
    {"t := nn.relu(nn.relu(x)) => nn.relu(x)\n",
     "def @main(%x) {\n  %0 = nn.relu(%x);\n  %1 = nn.relu(%0);\n  %2 = nn.relu(%1);\n"
     "  %3 = nn.relu(%2);\n  %4 = nn.relu(%3);\n  %5 = nn.relu(%4);\n  %6 = nn.relu(%5);\n"
     "  %7 = nn.relu(%6);\n  nn.relu(%7)\n}\n",
     "def @main(%x) {\n  nn.relu(%x)\n}\n", 8, 5, 18, 4},
    {"e := exp(x) => log(x)\n",
     "def @main(%x) {\n  %0 = exp(%x);\n  %1 = nn.relu(%0);\n  %2 = nn.relu(%1);\n"
     "  %3 = nn.relu(%2);\n  %4 = nn.relu(%3);\n  %5 = nn.relu(%4);\n  %6 = nn.relu(%5);\n"
     "  %7 = nn.relu(%6);\n  %8 = nn.relu(%7);\n  nn.relu(%8)\n}\n",
     "def @main(%x) {\n  %0 = log(%x);\n  %1 = nn.relu(%0);\n  %2 = nn.relu(%1);\n"
     "  %3 = nn.relu(%2);\n  %4 = nn.relu(%3);\n  %5 = nn.relu(%4);\n  %6 = nn.relu(%5);\n"
     "  %7 = nn.relu(%6);\n  %8 = nn.relu(%7);\n  nn.relu(%8)\n}\n",
     1, 2, 13, 1},
    {"t := nn.relu(nn.relu(x)) => nn.relu(x)\n"
     "lone := add(x, y) where users(x) == 5 => subtract(x, y)\n",
     "def @main(%x, %y) {\n  %0 = nn.relu(%x);\n  %1 = nn.relu(%0);\n  %2 = exp(%y);\n"
     "  %3 = add(%1, %2);\n  (%3, %2)\n}\n",
     "def @main(%x, %y) {\n  %0 = nn.relu(%x);\n  %1 = exp(%y);\n  %2 = add(%0, %1);\n"
     "  (%2, %1)\n}\n",
     1, 2, 9, 2},
};

START_TEST(relabelled_through_users)
{
    const struct RelabelCase *c = &relabel_cases[_i];
    Run r;
    run_rewrite(&r, c->rules, c->model);
    assert_output(&r, c->want);
    const Stats *s = engine_stats(r.e);
    ck_assert_uint_eq(s->rewrites, c->rewrites);
    ck_assert_uint_eq(s->rounds, c->rounds);
    ck_assert_uint_eq(s->labelled, c->labelled);
    ck_assert_uint_eq(s->orders, c->orders);
    run_close(&r);
}
END_TEST

/* A change that reaches more than REGION_MAX nodes (engine_relabel.c):
 * an exp at the head of a chain of 299 relus.  The region is given up and
 * the sweep walks as before: two orders; 303 labellings, as graft run
 * --stats=counts of main b324518 counts them. */
START_TEST(large_change_walks)
{
    StrBuf model = {0};
    strbuf_puts(&model, "def @main(%x) {\n  %0 = exp(%x);\n");
    for (int i = 1; i < 300; i++)
        strbuf_printf(&model, "  %%%d = nn.relu(%%%d);\n", i, i - 1);
    strbuf_puts(&model, "  %299\n}\n");
    Run r;
    run_rewrite(&r, "e := exp(x) => log(x)\n", model.data);
    const Stats *s = engine_stats(r.e);
    ck_assert_uint_eq(s->rewrites, 1);
    ck_assert_uint_eq(s->rounds, 2);
    ck_assert_uint_eq(s->labelled, 303);
    ck_assert_uint_eq(s->orders, 2);
    char *got = relay_print_string(r.g);
    ck_assert_ptr_nonnull(strstr(got, "  %0 = log(%x);\n  %1 = nn.relu(%0);\n"));
    free(got);
    run_close(&r);
    strbuf_free(&model);
}
END_TEST

/* ---- the sweep as a kill of given nodes (note [kill of given nodes] in
 * src/ir/graph_walk.c) ---- */

typedef struct KillCase {
    const char *rules; /* the rule file */
    const char *model; /* the Relay model */
    const char *want;  /* the model printed after the run */
    uint64_t kills;    /* sweeps that killed given nodes */
    bool functions;    /* the model has some */
} KillCase;

static const KillCase kill_cases[] = {
    /* A shared operand: %0 loses a user and lives. */
    {"f := add(exp(x), y) => multiply(x, y)\n",
     "def @main(%x) {\n  %0 = nn.relu(%x);\n  %1 = exp(%0);\n  %2 = add(%1, %0);\n"
     "  nn.relu(%2)\n}\n",
     "def @main(%x) {\n  %0 = nn.relu(%x);\n  %1 = multiply(%0, %0);\n  nn.relu(%1)\n}\n",
     1, false},
    /* The replacement an old node: the other operand's chain dies down to
       @main's parameter %y, which lives unused. */
    {"a := add(x, y) => x\n",
     "def @main(%x, %y) {\n  %0 = exp(%x);\n  %1 = nn.relu(%y);\n  %2 = sqrt(%1);\n"
     "  %3 = add(%0, %2);\n  negative(%3)\n}\n",
     "def @main(%x, %y) {\n  %0 = exp(%x);\n  negative(%0)\n}\n", 1, false},
    /* A multi-output call: one field dies, the call lives for the other;
       the root is the output tuple's operand. */
    {"a := add(x, y) => y\n",
     "def @main(%x, %z) {\n  %0 = split(%x, indices_or_sections=2);\n  %1 = %0.0;\n"
     "  %2 = add(%1, %z);\n  %3 = %0.1;\n  (%2, %3)\n}\n",
     "def @main(%x, %z) {\n  %0 = split(%x, indices_or_sections=2);\n  %1 = %0.1;\n"
     "  (%z, %1)\n}\n", 1, false},
    /* Both fields read by the root: the call lives through the tuple. */
    {"a := add(x, y) => y\n",
     "def @main(%x, %z) {\n  %0 = split(%x, indices_or_sections=2);\n  %1 = %0.0;\n"
     "  %2 = %0.1;\n  %3 = add(%1, %2);\n  (%3, %z)\n}\n",
     "def @main(%x, %z) {\n  %0 = split(%x, indices_or_sections=2);\n  %1 = %0.1;\n"
     "  (%1, %z)\n}\n", 1, false},
    /* The root lives on under its replacement and still offers rule b:
       its lists are made (note [offering after a region]
       in src/runtime/rewrite.c). */
    {"a [once] := c@exp(_) => negative(c)\nb := exp(x) => log(x)\n",
     "def @main(%x) {\n  exp(%x)\n}\n",
     "def @main(%x) {\n  %0 = log(%x);\n  negative(%0)\n}\n", 2, false},
    /* The output root replaced in rounds: the first sweep a kill; the
       later passes leave candidates in their lists, so their sweeps order
       (note [sweep without order]). */
    {"r := nn.relu(nn.relu(x)) => nn.relu(x)\n",
     "def @main(%x) {\n  %0 = nn.relu(%x);\n  %1 = nn.relu(%0);\n  %2 = nn.relu(%1);\n"
     "  %3 = nn.relu(%2);\n  %4 = nn.relu(%3);\n  nn.relu(%4)\n}\n",
     "def @main(%x) {\n  nn.relu(%x)\n}\n", 1, false},
    /* Functions (a global one, a local one) hold nodes through no use:
       the sweep marks. */
    {"f := add(exp(x), y) => multiply(x, y)\n",
     "def @f(%a) {\n  %0 = exp(%a);\n  %1 = nn.relu(%a);\n  add(%0, %1)\n}\n\n"
     "def @main(%x) {\n  %0 = exp(%x);\n  %1 = add(%0, %x);\n  @f(%1)\n}\n",
     "def @f(%a) {\n  %0 = nn.relu(%a);\n  multiply(%a, %0)\n}\n\n"
     "def @main(%x) {\n  %1 = multiply(%x, %x);\n  @f(%1)\n}\n", 0, true},
    {"f := add(exp(x), y) => multiply(x, y)\n",
     "def @main(%x) {\n  %0 = exp(%x);\n  %1 = add(%0, %x);\n  %2 = fn (%p) {\n"
     "    %3 = exp(%p);\n    add(%3, %p)\n  };\n  %2(%1)\n}\n",
     "def @main(%x) {\n  %0 = multiply(%x, %x);\n  %1 = fn (%p) {\n"
     "    multiply(%p, %p)\n  };\n  %1(%0)\n}\n", 0, true},
    /* Nodes no root reaches as loaded (%0, %1): the first sweep marks, and
       kills them too. */
    {"f := add(exp(x), y) => multiply(x, y)\n",
     "def @main(%x) {\n  %0 = exp(%x);\n  %1 = add(%0, %x);\n  %2 = nn.relu(%x);\n"
     "  %3 = exp(%2);\n  add(%3, %2)\n}\n",
     "def @main(%x) {\n  %0 = nn.relu(%x);\n  multiply(%0, %0)\n}\n", 0, false},
};

/* What lives after the run is exactly what a sweep would leave: the
 * nodes a walk from the roots reaches, and @main's parameters; in a graph
 * without functions graph_clean_reached_count counts the reached. */
static void assert_swept(const Run *r, bool functions)
{
    uint32_t count = graph_node_count(r->g), nreached = 0;
    uint8_t *reached = xcalloc((size_t)count + 1, 1);
    graph_reached(r->g, reached);
    for (uint32_t id = 0; id < count; id++)
        nreached += reached[id];
    for (int i = 0; i < graph_nparams(r->g); i++)
        reached[node_id(graph_param(r->g, i))] |= 2;
    for (uint32_t id = 0; id < count; id++)
        ck_assert_int_eq(node_is_dead(graph_node(r->g, id)), reached[id] == 0);
    if (!functions)
        ck_assert_uint_eq(graph_clean_reached_count(r->g), nreached);
    free(reached);
}

START_TEST(sweep_kills_given_nodes)
{
    const KillCase *c = &kill_cases[_i];
    Run r;
    run_rewrite(&r, c->rules, c->model);
    assert_output(&r, c->want);
    ck_assert_uint_eq(engine_stats(r.e)->kills, c->kills);
    assert_swept(&r, c->functions);
    run_close(&r);
}
END_TEST

/* ---- rewrites: the rules, the model, what it prints, rule 0's counts ---- */

typedef struct RewriteCase {
    const char *rules;   /* the rule file */
    const char *model;   /* the Relay model */
    const char *want;    /* the model printed after the run */
    uint64_t matched;    /* rule 0's counts after the run */
    uint64_t applied;
    uint64_t guard;
    uint64_t interior;
} RewriteCase;

static const RewriteCase rewrite_cases[] = {
    /* A match whose interior node %0 the tuple also uses is refused. */
    {"twice := nn.relu(nn.relu(x)) => nn.relu(x)\n",
     "def @main(%x) {\n  %0 = nn.relu(%x);\n  %1 = nn.relu(%0);\n  (%1, %0)\n}\n",
     "def @main(%x) {\n  %0 = nn.relu(%x);\n  %1 = nn.relu(%0);\n  (%1, %0)\n}\n", 1, 0, 0, 1},
    /* %0 is also used by %1, but every path from %1 leads through the
       root %2: the rewrite goes ahead. */
    {"f := add(nn.relu(x), y) => multiply(x, y)\n",
     "def @main(%x) {\n  %0 = nn.relu(%x);\n  %1 = exp(%0);\n  add(%0, %1)\n}\n",
     "def @main(%x) {\n  %0 = nn.relu(%x);\n  %1 = exp(%0);\n  multiply(%x, %1)\n}\n",
     1, 1, 0, 0},
    /* A guard's refusals are counted: 0.5 is refused both ways round the
       commutative add. */
    {"g := x + e:const where value(e) > 1 => x\n",
     "def @main(%x) {\n  %0 = add(%x, 0.5f);\n  add(%0, 2f)\n}\n",
     "def @main(%x) {\n  add(%x, 0.5f)\n}\n", 1, 1, 2, 0},
    /* A guard that fails for one way of matching is retried the other
       way: a commutative add whose operands both fit. */
    {"g := x + y where value(y) == 3 => x\n", "def @main(%x) {\n  add(3f, 2f)\n}\n",
     "def @main(%x) {\n  2f\n}\n", 1, 1, 0, 0},
    /* An alternative is retried when a later part fails: relu(x) binds x
       to %a, the second x then fails; the other choice binds x to %0. */
    {"f := (nn.relu(x) | x) * x => exp(x)\n",
     "def @main(%a) {\n  %0 = nn.relu(%a);\n  multiply(%0, %0)\n}\n",
     "def @main(%a) {\n  %0 = nn.relu(%a);\n  exp(%0)\n}\n", 1, 1, 0, 0},
    /* Typed constants in an action. */
    {"c := multiply(x, 1.5:float32) => add(x, 2:int64)\n",
     "def @main(%x) {\n  multiply(%x, 1.5f)\n}\n", "def @main(%x) {\n  add(%x, 2i64)\n}\n",
     1, 1, 0, 0},
    /* A named sub-pattern used again inside a partition's group. */
    {"shared := sqrt(s) + s@exp(x) => partition\n",
     "def @main(%x) {\n  %0 = exp(%x);\n  %1 = sqrt(%0);\n  add(%1, %0)\n}\n",
     "def @main(%x) {\n"
     "  %2 = fn (%FunctionVar_0_0, PartitionedFromPattern=\"exp_sqrt_add_\") {\n"
     "    %0 = exp(%FunctionVar_0_0);\n"
     "    %1 = sqrt(%0);\n"
     "    add(%1, %0)\n"
     "  };\n"
     "  %2(%x)\n"
     "}\n",
     1, 1, 0, 0},
};

START_TEST(rewrite_case)
{
    const RewriteCase *c = &rewrite_cases[_i];
    Run r;
    run_rewrite(&r, c->rules, c->model);
    assert_output(&r, c->want);
    ck_assert_uint_eq(rule_stats(&r, 0)->matched, c->matched);
    ck_assert_uint_eq(rule_stats(&r, 0)->applied, c->applied);
    ck_assert_uint_eq(rule_stats(&r, 0)->guard, c->guard);
    ck_assert_uint_eq(rule_stats(&r, 0)->interior, c->interior);
    run_close(&r);
}
END_TEST

/* ---- the bound ---- */

START_TEST(non_termination_is_reported)
{
    Run r;
    run_open(&r, "ok := nn.relu(nn.relu(x)) => nn.relu(x)\nswap := x + y => y + x\n",
             "def @main(%a, %b) {\n  add(%a, %b)\n}\n", 50);
    ck_assert(!engine_rewrite(r.e, r.d));
    fflush(r.diag_out);
    ck_assert_ptr_nonnull(strstr(r.diag, "graft: error: rewriting did not reach a fixpoint "
                                         "within 50 rewrites; rules still firing: swap "
                                         "(test.graft:2, 1 times in the last round)"));
    ck_assert_ptr_null(strstr(r.diag, "ok ("));
    ck_assert_uint_eq(rule_stats(&r, 1)->applied, 51);
    run_close(&r);
}
END_TEST

/* ---- match listing ---- */

static void count_match(void *ctx, uint32_t rule, graft_node *root, const graft_binding *b)
{
    (void)root;
    (void)b;
    ((int *)ctx)[rule]++;
}

START_TEST(matches_every_rule_at_every_node)
{
    Run r;
    run_open(&r, "any := nn.relu(x) => partition\nself := nn.relu(nn.relu(x)) => partition\n",
             "def @main(%x) {\n  %0 = nn.relu(%x);\n  %1 = nn.relu(%0);\n  nn.relu(%1)\n}\n", 0);
    int counts[2] = {0, 0};
    engine_matches(r.e, count_match, counts);
    ck_assert_int_eq(counts[0], 3);
    ck_assert_int_eq(counts[1], 2);
    run_close(&r);
}
END_TEST

/* The matches a visitor saw, one line each: rule, root, bindings. */
typedef struct Listed {
    graft_engine *e;          /* for engine_match_bindings */
    const graft_rule_set *rs;  /* the rules, for their names */
    StrBuf text;        /* one line per match */
} Listed;

static void list_match(Listed *l, uint32_t rule, const graft_node *root, const graft_binding *b)
{
    strbuf_printf(&l->text, "%s at %u:", l->rs->rules[rule].name, node_id(root));
    for (int s = 0; s < l->rs->rules[rule].nslots; s++)
        strbuf_printf(&l->text, " %d", b[s].node ? (int)node_id(b[s].node) : b[s].attr ? -2 : -1);
    strbuf_putc(&l->text, '\n');
}

static void list_eager(void *ctx, uint32_t rule, graft_node *root, const graft_binding *b)
{
    list_match(ctx, rule, root, b);
}

static void list_lazy(void *ctx, uint32_t rule, graft_node *root)
{
    Listed *l = ctx;
    list_match(l, rule, root, engine_match_bindings(l->e));
}

/* note [proven rules]: engine_match_roots lists the matches and bindings
 * engine_matches lists, whether a rule's state proves it (proven, alt,
 * attr: accepted without a walk, bindings on request) or not (twice: a
 * variable used twice; guarded: a guard), with the same counts. */
START_TEST(proven_rules_match_as_verified)
{
    static const char rules[] =
        "proven := nn.relu(x + y) => partition\n"
        "twice := x * x => partition\n"
        "guarded := nn.relu(x) where users(x) == 2 => partition\n"
        "alt := exp(x) | sqrt(y) => partition\n"
        "attr := nn.max_pool2d(x, pool_size=p) => partition\n";
    static const char model[] =
        "def @main(%a, %b) {\n  %0 = add(%a, %b);\n  %1 = nn.relu(%0);\n"
        "  %2 = multiply(%1, %1);\n  %3 = multiply(%1, %a);\n  %4 = exp(%2);\n"
        "  %5 = sqrt(%3);\n  %6 = nn.max_pool2d(%4, pool_size=[2, 2]);\n"
        "  %7 = nn.relu(%b);\n  (%5, %6, %7, %0)\n}\n";
    Run eager, lazy;
    run_open(&eager, rules, model, 0);
    run_open(&lazy, rules, model, 0);
    Listed want = {.e = eager.e, .rs = &eager.rules->rs};
    Listed got = {.e = lazy.e, .rs = &lazy.rules->rs};
    engine_matches(eager.e, list_eager, &want);
    engine_match_roots(lazy.e, list_lazy, &got);
    ck_assert_str_eq(got.text.data, want.text.data);
    ck_assert_str_eq(want.text.data, "proven at 3: 0 1\n"
                                     "guarded at 3: 2\n"
                                     "alt at 7: -1 5\n"
                                     "twice at 4: 3\n"
                                     "alt at 6: 4 -1\n"
                                     "attr at 8: 6 -2\n"
                                     "guarded at 9: 1\n");
    for (uint32_t r = 0; r < 5; r++) {
        ck_assert_uint_eq(rule_stats(&lazy, r)->tried, rule_stats(&eager, r)->tried);
        ck_assert_uint_eq(rule_stats(&lazy, r)->matched, rule_stats(&eager, r)->matched);
    }
    strbuf_free(&want.text);
    strbuf_free(&got.text);
    run_close(&eager);
    run_close(&lazy);
}
END_TEST

/* Each (rule, node) the states offer, with what matcher_check tells and
 * what matcher_try returns ("matches/fails/try ok/fail"), one line each. */
static void list_checks(Run *r, uint64_t max_steps, StrBuf *out)
{
    Automaton *a = automaton_new(&r->rules->rs);
    Labels *l = labels_new(a, r->g);
    labels_all(l);
    Matcher *m = matcher_new(l, r->g);
    matcher_set_max_steps(m, max_steps);
    static const char *const told[] = {"matches", "fails", "try"};
    for (uint32_t id = 0; id < graph_node_count(r->g); id++) {
        uint32_t nr;
        const uint32_t *rules = automaton_state_rules(a, labels_state_id(l, id), &nr);
        for (uint32_t k = 0; k < nr; k++) {
            graft_node *n = graph_node(r->g, id);
            MatchCheck c = matcher_check(m, rules[k], n);
            MatchResult t = matcher_try(m, rules[k], n);
            if (c == CHECK_MATCHES)
                ck_assert_int_eq(t, MATCH_OK);
            if (c == CHECK_FAILS)
                ck_assert_int_eq(t, MATCH_FAIL);
            strbuf_printf(out, "%s at %u: %s, %s\n", r->rules->rs.rules[rules[k]].name, id,
                          told[c], t == MATCH_OK ? "ok" : t == MATCH_FAIL ? "fail" : "other");
        }
    }
    matcher_free(m);
    labels_free(l);
    automaton_free(a);
}

/* note [checked rules]: a rule that repeats a variable is told without a
 * try where the states leave no choice: x * exp(x) at a * exp(a) matches,
 * at exp(a) * b (the operands swapped, so x is b and then a) fails; at
 * exp(a) * exp(a) both orders fit, so only a try tells.  A repeated op
 * (relu*) whose chain is forced is checked too; the proven rule always
 * matches.  With the steps limit below the steps a try may take, every
 * one is left to the try: the proven rule's try (3 steps) still
 * matches, the others run out. */
START_TEST(checked_rules_tell_as_tries)
{
    Run r;
    run_open(&r, "gelu := x * exp(x) => partition\n"
                 "chain := nn.relu*(exp(x)) - x => partition\n"
                 "proven := exp(y) => partition\n",
             "def @main(%a, %b) {\n  %0 = exp(%a);\n  %1 = multiply(%a, %0);\n"
             "  %2 = multiply(%0, %b);\n  %3 = multiply(%0, %0);\n  %4 = nn.relu(%0);\n"
             "  %5 = subtract(%4, %a);\n  %6 = subtract(%4, %b);\n  (%1, %2, %3, %5, %6)\n}\n",
             0);
    StrBuf got = {0}, starved = {0};
    list_checks(&r, 1000, &got);
    ck_assert_str_eq(got.data, "proven at 2: matches, ok\n"
                               "gelu at 3: matches, ok\n"
                               "gelu at 4: fails, fail\n"
                               "gelu at 5: try, fail\n"
                               "chain at 7: matches, ok\n"
                               "chain at 8: fails, fail\n");
    list_checks(&r, 3, &starved);
    ck_assert_str_eq(starved.data, "proven at 2: try, ok\n"
                                   "gelu at 3: try, other\n"
                                   "gelu at 4: try, other\n"
                                   "gelu at 5: try, other\n"
                                   "chain at 7: try, other\n"
                                   "chain at 8: try, other\n");
    strbuf_free(&got);
    strbuf_free(&starved);
    run_close(&r);
}
END_TEST

/* note [attribute keys]: values spelled alike share one canonical text,
 * values spelled otherwise get their own, whatever order they come in:
 * groups=1 matches at the first and third conv and at groups=1f (a float
 * whose canonical text is 1 too), not at groups=2 nor at the list [1, 1];
 * padding=[1, 1] at the second and fourth, not at [1, 2]. */
START_TEST(attribute_keys_by_spelling)
{
    Run r;
    run_open(&r, "one := nn.conv2d(x, w, groups=1) => partition\n"
                 "pad := nn.conv2d(x, w, padding=[1, 1]) => partition\n",
             "def @main(%x, %w) {\n"
             "  %0 = nn.conv2d(%x, %w, groups=1);\n"
             "  %1 = nn.conv2d(%0, %w, groups=2, padding=[1, 1]);\n"
             "  %2 = nn.conv2d(%1, %w, groups=1, padding=[1, 2]);\n"
             "  %3 = nn.conv2d(%2, %w, groups=[1, 1], padding=[1, 1]);\n"
             "  nn.conv2d(%3, %w, groups=1f)\n}\n", 0);
    int counts[2] = {0, 0};
    engine_matches(r.e, count_match, counts);
    ck_assert_int_eq(counts[0], 3);
    ck_assert_int_eq(counts[1], 2);
    run_close(&r);
}
END_TEST

/* ---- the dump ---- */

START_TEST(dump_shares_items)
{
    graft_diag *d = diag_new(stderr);
    RuleFile *rf = frontend_load_string(
        "t.graft", "a := nn.relu(x + y) => partition\nb := exp(x + y) => partition\n", NULL, d);
    ck_assert_ptr_nonnull(rf);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    ck_assert(lower_dump_automaton(rf, out, false, d));
    fclose(out);
    /* x + y is one item shared by both rules */
    ck_assert_ptr_nonnull(strstr(text, "  i1 = add(i0, i0) commutative\n"
                                       "  i2 = nn.relu(i1)\n"
                                       "  i3 = exp(i1)\n"));
    ck_assert_ptr_nonnull(strstr(text, "  a (t.graft:1) accepts at i2, priority 0\n"));
    free(text);
    rulefile_free(rf);
    diag_free(d);
}
END_TEST

/* ---- new constants in actions ---- */

/* The text of value:dtype as a new constant, or "error: WHY". */
static char *const_text(double value, const char *dtype)
{
    StrBuf sb = {0};
    const char *why = pattern_const_text(value, dtype, &sb);
    if (why) {
        ck_assert_ptr_null(sb.data);
        strbuf_printf(&sb, "error: %s", why);
    }
    return sb.data;
}

START_TEST(typed_constant_spellings)
{
    static const struct {
        double value;     /* the number written */
        const char *dtype; /* after ':' */
        const char *want; /* the constant's text, or the error */
    } cases[] = {
        {1.5, "float32", "1.5f"},
        {1e-05, "float32", "1e-05f"},
        {-0.0, "float32", "0f"},
        {1.5, "float64", "1.5f64"},
        {1.5, "float16", "1.5f16"},
        {2, "int64", "2i64"},
        {-7, "int32", "-7"},
        {1, "bool", "True"},
        {0, "bool", "False"},
        {1.5, "int32", "error: the value is not a whole number within the dtype's range"},
        {2147483648.0, "int32", "error: the value is not a whole number within the dtype's range"},
        {9223372036854775808.0, "int64",
         "error: the value is not a whole number within the dtype's range"},
        {2, "bool", "error: a bool constant is 0 or 1"},
        {2, "int8",
         "error: a new constant must be float32, float64, float16, int64, int32 or bool"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = const_text(cases[i].value, cases[i].dtype);
        ck_assert_str_eq(got, cases[i].want);
        free(got);
    }
}
END_TEST

/* ---- attributes of built calls ---- */

/* The interned variant (names compared by pointer) orders and filters as
 * the one comparing text: declared order, defaults dropped, a missing
 * attribute without default None, undeclared ones last in written order. */
START_TEST(canonical_by_interned_names)
{
    graft_graph *g = graph_new();
    const graft_attr_value one = {.kind = GRAFT_ATTR_INT, .i = 1}, minus = {.kind = GRAFT_ATTR_INT, .i = -1};
    const graft_attr_value eps = {.kind = GRAFT_ATTR_FLOAT, .f = 1e-5}, three = {.kind = GRAFT_ATTR_INT, .i = 3};
    const graft_attr_decl decls[] = {{graph_intern(g, "axis"), &one},
                                 {graph_intern(g, "epsilon"), &eps},
                                 {graph_intern(g, "layout"), NULL}};
    const graft_attr written[] = {{graph_intern(g, "foo"), &three},
                            {graph_intern(g, "epsilon"), &eps},
                            {graph_intern(g, "axis"), &minus}};
    graft_attr by_text[6], by_pointer[6];
    memcpy(by_text, written, sizeof written);
    memcpy(by_pointer, written, sizeof written);
    int n = pattern_attrs_canonical(by_text, 3, decls, 3);
    ck_assert_int_eq(pattern_attrs_canonical_interned(by_pointer, 3, decls, 3), n);
    ck_assert_int_eq(n, 3);
    ck_assert_str_eq(by_pointer[0].name, "axis");
    ck_assert_int_eq(by_pointer[0].value->i, -1);
    ck_assert_str_eq(by_pointer[1].name, "layout");
    ck_assert_int_eq(by_pointer[1].value->kind, GRAFT_ATTR_NULL);
    ck_assert_str_eq(by_pointer[2].name, "foo");
    for (int i = 0; i < n; i++) {
        ck_assert_ptr_eq(by_pointer[i].name, by_text[i].name);
        ck_assert_ptr_eq(by_pointer[i].value, by_text[i].value);
    }
    graph_free(g);
}
END_TEST

/* ---- rules of several roots ---- */

/* The result of rule 0 of lw tried at root of g, with at most max_steps
 * steps of the goal machine, every node labelled first. */
static MatchResult try_rule(const Lowered *lw, graft_graph *g, graft_node *root,
                            uint64_t max_steps)
{
    Automaton *a = automaton_new(&lw->rs);
    Labels *l = labels_new(a, g);
    graft_node **order = malloc((graph_node_count(g) + 1) * sizeof *order);
    uint32_t n = graph_topo_order(g, order);
    for (uint32_t i = 0; i < n; i++)
        labels_node(l, order[i]);
    Matcher *m = matcher_new(l, g);
    matcher_set_max_steps(m, max_steps);
    MatchResult r = matcher_try(m, 0, root);
    matcher_free(m);
    free(order);
    labels_free(l);
    automaton_free(a);
    return r;
}

/* note [root precheck] (match_roots.c): with no step allowed, a try whose
 * later root has no candidate among x's other users fails before the goal
 * machine runs (MATCH_FAIL), and one where x has a sigmoid user runs it
 * (MATCH_BUDGET, then MATCH_OK with steps). */
START_TEST(root_precheck_before_steps)
{
    graft_diag *d = diag_new(stderr);
    RuleFile *rf = frontend_load_string(
        "t.graft", "two := nn.relu(x) & sigmoid(x) => (tanh(x), tanh(x))\n", NULL, d);
    Lowered *lw = lower_rules(rf, d);
    rulefile_free(rf);
    ck_assert_ptr_nonnull(lw);
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL);
    graft_node *relu = graph_add_call(g, "nn.relu", &x, 1, NULL, 0);
    graft_node *neg = graph_add_call(g, "negative", &x, 1, NULL, 0);
    graft_node *outs[] = {relu, neg};
    graph_set_output(g, graph_add_tuple(g, outs, 2));
    ck_assert_int_eq(try_rule(lw, g, relu, 0), MATCH_FAIL);
    graph_free(g);
    g = graph_new();
    x = graph_add_param(g, "x", NULL);
    relu = graph_add_call(g, "nn.relu", &x, 1, NULL, 0);
    outs[0] = relu;
    outs[1] = graph_add_call(g, "sigmoid", &x, 1, NULL, 0);
    graph_set_output(g, graph_add_tuple(g, outs, 2));
    ck_assert_int_eq(try_rule(lw, g, relu, 0), MATCH_BUDGET);
    ck_assert_int_eq(try_rule(lw, g, relu, 1000), MATCH_OK);
    graph_free(g);
    lower_free(lw);
    diag_free(d);
}
END_TEST

/* ---- a million nodes ---- */

/* A rewrite whose replacement is a node that was there before leaves that
 * node's type as it was: only nodes the action made take the root's type
 * when inference gives them none (rewrite_build).  Here my.op2, made by
 * the first rewrite, has no type (an opaque op of an untyped operand's
 * making), and the second rewrite returns it for a typed nn.relu. */
START_TEST(reused_node_keeps_its_type)
{
    Run r;
    run_rewrite(&r,
                "op my.op(x) opaque\nop my.op2(x) opaque\n"
                "a := my.op(x) => my.op2(x)\nr := nn.relu(x) => x\n",
                "#[version = \"0.0.5\"]\n"
                "def @main(%x: Tensor[(2), float32]) {\n"
                "  %0 = my.op(%x);\n"
                "  %1 = nn.relu(%0) /* ty=Tensor[(2), float32] */;\n"
                "  add(%1, %x)\n"
                "}\n");
    assert_output(&r, "#[version = \"0.0.5\"]\n"
                      "def @main(%x: Tensor[(2), float32]) {\n"
                      "  %0 = my.op2(%x);\n"
                      "  add(%0, %x)\n"
                      "}\n");
    int found = 0;
    for (uint32_t id = 0; id < graph_node_count(r.g); id++) {
        const graft_node *n = graph_node(r.g, id);
        if (n && node_op(n) && strcmp(node_op(n), "my.op2") == 0) {
            found++;
            ck_assert_ptr_null(node_type(n));
        }
    }
    ck_assert_int_eq(found, 1);
    run_close(&r);
}
END_TEST

/* Calls an action makes take the type their relation gives, remembered
 * by op, attributes and operand types (note [action types] in
 * src/runtime/rewrite_types.c): %a and %c, of one shape, get one type
 * for their sum; %b, of another, its own; the scalar constants 2f and 3f
 * make two keys of multiply (a relation may read a constant's value). */
START_TEST(action_types_by_key)
{
    Run r;
    run_rewrite(&r,
                "r := nn.relu(x) => sum(expand_dims(x, axis=0), axis=[1])\n"
                "s := sigmoid(x) => multiply(x, 2f)\n"
                "t := tanh(x) => multiply(x, 3f)\n",
                "#[version = \"0.0.5\"]\n"
                "def @main(%a: Tensor[(2, 3), float32], %b: Tensor[(4), float32],\n"
                "          %c: Tensor[(2, 3), float32], %d: Tensor[(5), float32]) {\n"
                "  %0 = nn.relu(%a);\n"
                "  %1 = nn.relu(%b);\n"
                "  %2 = nn.relu(%c);\n"
                "  %3 = sigmoid(%d);\n"
                "  %4 = tanh(%d);\n"
                "  (%0, %1, %2, %3, %4)\n"
                "}\n");
    const graft_type *sum_of[3] = {NULL, NULL, NULL}, *twice = NULL, *thrice = NULL;
    for (uint32_t id = 0; id < graph_node_count(r.g); id++) {
        const graft_node *n = graph_node(r.g, id);
        if (!n || node_is_dead(n) || !node_op(n))
            continue;
        if (strcmp(node_op(n), "sum") == 0)
            for (int i = 0; i < 3; i++)
                if (node_arg(node_arg(n, 0), 0) == graph_param(r.g, i))
                    sum_of[i] = node_type(n);
        if (strcmp(node_op(n), "multiply") == 0)
            *(strcmp(node_const_text(node_arg(n, 1)), "2f") == 0 ? &twice : &thrice) =
                node_type(n);
    }
    ck_assert_ptr_nonnull(sum_of[0]);
    ck_assert_ptr_nonnull(sum_of[1]);
    ck_assert_str_eq(sum_of[0]->text, "Tensor[(1, 3), float32]");
    ck_assert_str_eq(sum_of[1]->text, "Tensor[(1), float32]");
    ck_assert_ptr_eq(sum_of[2], sum_of[0]); /* remembered */
    ck_assert_ptr_nonnull(twice);
    ck_assert_ptr_nonnull(thrice);
    ck_assert_str_eq(twice->text, "Tensor[(5), float32]");
    ck_assert_str_eq(thrice->text, "Tensor[(5), float32]");
    ck_assert_ptr_eq(twice, thrice); /* two keys, one type: note [canonical tensor types] */
    run_close(&r);
}
END_TEST

START_TEST(million_node_chain)
{
    graft_diag *d = diag_new(stderr);
    RuleFile *rf = frontend_load_string("t.graft", "s := nn.relu(x) => sigmoid(x)\n", NULL, d);
    Lowered *lw = lower_rules(rf, d);
    rulefile_free(rf);
    graft_graph *g = graph_new();
    graft_node *n = graph_add_param(g, "x", NULL);
    for (int i = 0; i < 1000000; i++)
        n = graph_add_call(g, "nn.relu", &n, 1, NULL, 0);
    graph_set_output(g, n);
    graft_engine *e = engine_new(&lw->rs, g, NULL);
    ck_assert(engine_run(e, d));
    ck_assert_uint_eq(engine_stats(e)->rewrites, 1000000);
    ck_assert_str_eq(node_op(graph_output(g)), "sigmoid");
    engine_free(e);
    graph_free(g);
    lower_free(lw);
    diag_free(d);
}
END_TEST

/* ---- where an action's values may lack, asked per group ---- */

/* The places of each rule's action (note [places that may lack a value]
 * in src/runtime/rewrite_build_known.c): per rule, its attributes' names and
 * "..." for a splice, in order, rules separated by ';'. */
static void assert_action_places(const char *rules, const char *want)
{
    Run r;
    run_open(&r, rules, "def @main(%x) {\n  nn.relu(%x)\n}\n", 0);
    StrBuf got = {0};
    for (uint32_t i = 0; i < r.rules->rs.nrules; i++) {
        ActionPlaces places = {0};
        rewrite_action_places(r.rules->rs.rules[i].action, &places);
        strbuf_puts(&got, i ? ";" : "");
        for (size_t k = 0; k < places.len; k++) {
            const ActionPlace *p = &places.items[k];
            strbuf_printf(&got, "%s%s", k ? "," : "",
                          p->attr < 0 ? "..." : p->x->attrs[p->attr].name);
        }
        /* as many as rewrite_always_computable needs */
        ck_assert(rewrite_always_computable(r.rules->rs.rules[i].action) == (places.len == 0));
        vec_free(&places);
    }
    ck_assert_str_eq(got.data, want);
    strbuf_free(&got);
    run_close(&r);
}

START_TEST(action_places_in_walk_order)
{
    /* a call's own attributes before its operands', as
       rewrite_first_unknown walks */
    assert_action_places(
        "plain := nn.relu(x) => exp(x)\n"
        "bound := nn.leaky_relu(x, alpha=a) => nn.leaky_relu(exp(x), alpha=a)\n"
        "axis := e@expand_dims(_:rank(1), axis=a, num_newaxis=1) => squeeze(e, axis=[a])\n"
        "deep := nn.dense(x, w, units=None) => exp(nn.dense(x, w, units=shape(w)[0]))\n"
        "two := nn.leaky_relu(nn.dense(x, w, units=None), alpha=a)\n"
        "    => nn.leaky_relu(nn.dense(x, w, units=shape(w)[0]), alpha=a)\n"
        "rotate := (x, rest...) => (rest..., x)\n",
        ";alpha;axis;units;alpha,units;...");
}
END_TEST

START_TEST(constant_read_once_per_group)
{
    /* each group's build takes the number its own check read (note
       [constant read once] in src/runtime/rewrite_build.c), and the
       engine holds none once the build is done */
    Run r;
    run_rewrite(&r, "leaky := x + c:const => nn.leaky_relu(x, alpha=c)\n",
                "#[version = \"0.0.5\"]\n"
                "def @main(%x: Tensor[(2), float32]) {\n"
                "  %0 = add(%x, 0.2f);\n"
                "  add(%0, 0.5f)\n"
                "}\n");
    ck_assert_uint_eq(rule_stats(&r, 0)->applied, 2);
    ck_assert_ptr_null(r.e->read_const);
    assert_output(&r, "#[version = \"0.0.5\"]\n"
                      "def @main(%x: Tensor[(2), float32]) {\n"
                      "  %0 = nn.leaky_relu(%x, alpha=0.2f);\n"
                      "  nn.leaky_relu(%0, alpha=0.5f)\n"
                      "}\n");
    /* the check keeps the constant it read; a variable has no number */
    ActionPlaces places = {0};
    rewrite_action_places(r.rules->rs.rules[0].action, &places);
    graft_node *half = graph_add_const(r.g, "0.5f", 0.5, "float32");
    graft_binding b[2] = {{.node = graph_param(r.g, 0)}, {.node = half}};
    ck_assert(rewrite_places_known(r.e, &places, b));
    ck_assert_ptr_eq(r.e->read_const, half);
    ck_assert(r.e->read_number == 0.5);
    b[1].node = graph_param(r.g, 0);
    ck_assert(!rewrite_places_known(r.e, &places, b));
    ck_assert_ptr_eq(r.e->read_const, half);
    vec_free(&places);
    run_close(&r);
}
END_TEST

START_TEST(literal_values_copied_once)
{
    /* both rewrites' alpha is the one copy of the rule's 0.5 in the
       graph (note [names interned once] in src/runtime/rewrite_build_attr.c) */
    Run r;
    run_rewrite(&r, "r := exp(x) => nn.leaky_relu(x, alpha=0.5)\n",
                "def @main(%a, %b) {\n  %0 = exp(%a);\n  %1 = exp(%b);\n  (%0, %1)\n}\n");
    ck_assert_uint_eq(rule_stats(&r, 0)->applied, 2);
    const graft_attr_value *alpha[2] = {NULL, NULL};
    for (uint32_t id = 0; id < graph_node_count(r.g); id++) {
        const graft_node *n = graph_node(r.g, id);
        if (n && !node_is_dead(n) && node_op(n) && strcmp(node_op(n), "nn.leaky_relu") == 0)
            alpha[node_arg(n, 0) == graph_param(r.g, 1)] = node_find_attr(n, "alpha");
    }
    ck_assert_ptr_nonnull(alpha[0]);
    ck_assert_ptr_eq(alpha[0], alpha[1]);
    assert_output(&r, "def @main(%a, %b) {\n"
                      "  %0 = nn.leaky_relu(%a, alpha=0.5f);\n"
                      "  %1 = nn.leaky_relu(%b, alpha=0.5f);\n"
                      "  (%0, %1)\n"
                      "}\n");
    run_close(&r);
}
END_TEST

/* Three adds of a constant, two of one number, rewritten one by one: the
 * rule and model of the tests of attributes made alike. */
static const char leaky_rule[] = "leaky := x + c:const => nn.leaky_relu(x, alpha=c)\n";
static const char leaky_model[] = "#[version = \"0.0.5\"]\n"
                                  "def @main(%x: Tensor[(2), float32]) {\n"
                                  "  %0 = add(%x, 0.2f);\n"
                                  "  %1 = add(%0, 0.2f);\n"
                                  "  add(%1, 0.5f)\n"
                                  "}\n";

START_TEST(constant_numbers_shared)
{
    /* an attribute made of a bound constant's number is shared by the
       next rewrite whose constant has the same dtype and number (note
       [constant read once] in src/runtime/rewrite_build.c), not by one
       of another number */
    Run r;
    run_rewrite(&r, leaky_rule, leaky_model);
    ck_assert_uint_eq(rule_stats(&r, 0)->applied, 3);
    const graft_node *out = graph_output(r.g), *mid = node_arg(out, 0);
    const graft_attr_value *alpha[3] = {node_find_attr(node_arg(mid, 0), "alpha"),
                                        node_find_attr(mid, "alpha"),
                                        node_find_attr(out, "alpha")};
    ck_assert_ptr_nonnull(alpha[0]);
    ck_assert_ptr_eq(alpha[0], alpha[1]);
    ck_assert_ptr_ne(alpha[1], alpha[2]);
    assert_output(&r, "#[version = \"0.0.5\"]\n"
                      "def @main(%x: Tensor[(2), float32]) {\n"
                      "  %0 = nn.leaky_relu(%x, alpha=0.2f);\n"
                      "  %1 = nn.leaky_relu(%0, alpha=0.2f);\n"
                      "  nn.leaky_relu(%1, alpha=0.5f)\n"
                      "}\n");
    run_close(&r);
}
END_TEST

START_TEST(partition_functions_share_attributes)
{
    /* two groups of one name share their function's attribute array
       (graph_add_func_sharing); another rule's function has its own */
    Run r;
    run_rewrite(&r, "p := exp(x) => partition\nq := tanh(x) => partition\n",
                "def @main(%a, %b, %c) {\n"
                "  %0 = exp(%a);\n  %1 = exp(%b);\n  %2 = tanh(%c);\n  (%0, %1, %2)\n}\n");
    ck_assert_uint_eq(rule_stats(&r, 0)->applied, 2);
    ck_assert_uint_eq(rule_stats(&r, 1)->applied, 1);
    const graft_node *fields = graph_output(r.g);
    const graft_node *fn[3];
    for (int i = 0; i < 3; i++)
        fn[i] = node_callee(node_arg(fields, i));
    ck_assert_int_eq(node_nattrs(fn[0]), 1);
    ck_assert_ptr_eq(node_attr(fn[0], 0), node_attr(fn[1], 0));
    ck_assert_ptr_ne(node_attr(fn[1], 0), node_attr(fn[2], 0));
    assert_output(&r, "def @main(%a, %b, %c) {\n"
                      "  %0 = fn (%FunctionVar_1_0, PartitionedFromPattern=\"exp_\") {\n"
                      "    exp(%FunctionVar_1_0)\n"
                      "  };\n"
                      "  %1 = fn (%FunctionVar_0_0, PartitionedFromPattern=\"exp_\") {\n"
                      "    exp(%FunctionVar_0_0)\n"
                      "  };\n"
                      "  %2 = fn (%FunctionVar_0_01, PartitionedFromPattern=\"tanh_\") {\n"
                      "    tanh(%FunctionVar_0_01)\n"
                      "  };\n"
                      "  %3 = %0(%a);\n"
                      "  %4 = %1(%b);\n"
                      "  %5 = %2(%c);\n"
                      "  (%3, %4, %5)\n"
                      "}\n");
    run_close(&r);
}
END_TEST

START_TEST(partition_groups_past_a_block)
{
    /* a pass of more groups than a block holds (note [group blocks] in
       src/runtime/partition_impl.h) applies each, in the order found */
    enum { N = 2 * GROUP_BLOCK + 5 };
    StrBuf model = {0};
    strbuf_puts(&model, "def @main(%x) {\n");
    for (int i = 0; i < N; i++)
        strbuf_printf(&model, "  %%%d = exp(%%x);\n", i);
    strbuf_puts(&model, "  (%0");
    for (int i = 1; i < N; i++)
        strbuf_printf(&model, ", %%%d", i);
    strbuf_puts(&model, ")\n}\n");
    Run r;
    run_rewrite(&r, "p := exp(x) => partition\n", model.data);
    ck_assert_uint_eq(rule_stats(&r, 0)->applied, N);
    const graft_node *fields = graph_output(r.g);
    for (int i = 0; i < N; i++) {
        const graft_node *fn = node_callee(node_arg(fields, i));
        ck_assert_ptr_nonnull(fn);
        /* the last exp is found first: group 0 */
        char want[40];
        snprintf(want, sizeof want, "FunctionVar_%d_0", N - 1 - i);
        ck_assert_str_eq(node_name(node_param(fn, 0)), want);
    }
    run_close(&r);
    strbuf_free(&model);
}
END_TEST

START_TEST(partition_names_interned_when_asked)
{
    /* note [parameter names] in src/runtime/partition_name.c: the pass's
       parameters' names are interned only when one is asked for */
    Run r;
    run_rewrite(&r, "p := exp(x) => partition\n",
                "def @main(%x, %y) {\n  (exp(%x), exp(%y))\n}\n");
    const graft_node *fields = graph_output(r.g);
    const graft_node *first = node_param(node_callee(node_arg(fields, 0)), 0);
    const graft_node *second = node_param(node_callee(node_arg(fields, 1)), 0);
    ck_assert_str_eq(node_name(first), "FunctionVar_1_0");
    ck_assert_str_eq(node_name(second), "FunctionVar_0_0");
    size_t interned = graph_interned_count(r.g);
    const char *asked = graph_intern(r.g, "FunctionVar_0_0");
    ck_assert_uint_eq(graph_interned_count(r.g), interned + 2);
    ck_assert_ptr_eq(asked, node_name(second));
    ck_assert_ptr_eq(graph_intern(r.g, "FunctionVar_1_0"), node_name(first));
    run_close(&r);
}
END_TEST

START_TEST(partition_names_of_two_passes_alike)
{
    /* a second pass's names equal to the first's are one name: the
       printer tells the variables apart (note [distinct names] in
       src/relay/relay_names.c) */
    Run r;
    run_rewrite(&r, "p := exp(x) => partition\nq := nn.relu(x) => partition\n",
                "def @main(%x) {\n  nn.relu(exp(%x))\n}\n");
    assert_output(&r,
        "def @main(%x) {\n"
        "  %0 = fn (%FunctionVar_0_01, PartitionedFromPattern=\"exp_\") {\n"
        "    exp(%FunctionVar_0_01)\n"
        "  };\n"
        "  %1 = %0(%x);\n"
        "  %2 = fn (%FunctionVar_0_0, PartitionedFromPattern=\"nn.relu_\") {\n"
        "    nn.relu(%FunctionVar_0_0)\n"
        "  };\n"
        "  %2(%1)\n"
        "}\n");
    run_close(&r);
}
END_TEST

/* ---- actions whose new nodes are all distinct ---- */

START_TEST(distinct_actions_not_shared)
{
    /* per rule, whether its action may make two nodes to share (note
       [actions of distinct nodes] in src/runtime/rewrite_share.c): a
       second call of one op, a second constant, a fold or a callee's
       call may; a call and its element, or calls of two ops, may not */
    Run r;
    run_open(&r,
             "bn := nn.relu(x) => nn.batch_norm(x, x, x, x, x)[0]\n"
             "two := sigmoid(x) => add(exp(x), exp(x))\n"
             "ops := tanh(x) => add(exp(x), negative(x))\n"
             "nums := exp(x) => add(multiply(x, 2f), 3f)\n"
             "folded := negative(x) => add(x, fold(multiply(2f, 3f)))\n"
             "callee := sqrt((f)(x)) => f(negative(x))\n",
             "def @main(%x) {\n  nn.relu(%x)\n}\n", 0);
    const bool want[] = {false, true, false, true, true, true};
    ck_assert_uint_eq(r.rules->rs.nrules, ARRAY_LEN(want));
    for (uint32_t i = 0; i < r.rules->rs.nrules; i++) {
        ck_assert_int_eq(rewrite_may_share(r.rules->rs.rules[i].action), want[i]);
        ck_assert_int_eq(r.e->check_share[i], want[i]);
    }
    run_close(&r);
    /* the rule of two equal calls still makes one, the other two */
    run_rewrite(&r,
                "two := sigmoid(x) => add(exp(x), exp(x))\n"
                "ops := tanh(x) => add(exp(x), negative(x))\n",
                "def @main(%a, %b) {\n  %0 = sigmoid(%a);\n  %1 = tanh(%b);\n  (%0, %1)\n}\n");
    assert_output(&r, "def @main(%a, %b) {\n"
                      "  %0 = exp(%a);\n"
                      "  %1 = exp(%b);\n"
                      "  %2 = negative(%b);\n"
                      "  %3 = add(%0, %0);\n"
                      "  %4 = add(%1, %2);\n"
                      "  (%3, %4)\n"
                      "}\n");
    run_close(&r);
}
END_TEST

/* ---- a new call's attributes put in order once per value ---- */

START_TEST(canonical_attributes_remembered)
{
    /* the second rewrite takes the first's canonical order (the same
       shared value: note [canonical attributes once] in
       src/runtime/rewrite_build_call.c), axis=-1 the default left out; the
       third's value is another, put in order afresh, and the fourth's
       is the first's value again */
    Run r;
    run_rewrite(&r, "s := x + c:const => nn.softmax(x, axis=c)\n",
                "#[version = \"0.0.5\"]\n"
                "def @main(%x: Tensor[(2, 2), int32]) {\n"
                "  %0 = add(%x, -1);\n"
                "  %1 = add(%0, -1);\n"
                "  %2 = add(%1, 0);\n"
                "  add(%2, -1)\n"
                "}\n");
    ck_assert_uint_eq(rule_stats(&r, 0)->applied, 4);
    assert_output(&r, "#[version = \"0.0.5\"]\n"
                      "def @main(%x: Tensor[(2, 2), int32]) {\n"
                      "  %0 = nn.softmax(%x);\n"
                      "  %1 = nn.softmax(%0);\n"
                      "  %2 = nn.softmax(%1, axis=0);\n"
                      "  nn.softmax(%2)\n"
                      "}\n");
    run_close(&r);
    /* calls made alike share one array of attributes, another value
       has its own */
    run_rewrite(&r, leaky_rule, leaky_model);
    const graft_node *out = graph_output(r.g), *mid = node_arg(out, 0);
    ck_assert_int_eq(node_nattrs(mid), 1);
    ck_assert_ptr_eq(node_attr(mid, 0), node_attr(node_arg(mid, 0), 0));
    ck_assert_ptr_ne(node_attr(mid, 0), node_attr(out, 0));
    run_close(&r);
    /* values copied from the matched node are new pointers each time */
    run_rewrite(&r, "l := exp(nn.leaky_relu(x, alpha=a)) => nn.leaky_relu(x, alpha=a)\n",
                "def @main(%x) {\n"
                "  %0 = nn.leaky_relu(%x, alpha=0.2f);\n"
                "  %1 = exp(%0);\n"
                "  %2 = nn.leaky_relu(%1, alpha=0.01f);\n"
                "  exp(%2)\n"
                "}\n");
    assert_output(&r, "def @main(%x) {\n"
                      "  %0 = nn.leaky_relu(%x, alpha=0.2f);\n"
                      "  nn.leaky_relu(%0, alpha=0.01f)\n"
                      "}\n");
    run_close(&r);
}
END_TEST

/* ---- a tensor constant's number known again by its bytes ---- */

START_TEST(tensor_constant_bytes_read_once)
{
    /* three one-element tensor constants: two of one type and bytes
       give one number, kept from the first (note [constant bytes read
       once] in src/runtime/rewrite_build_attr.c), the third, of other bytes,
       its own; a two-element one has none */
    Run r;
    run_open(&r, "leaky := x + c:const => nn.leaky_relu(x, alpha=c)\n",
             "def @main(%x) {\n  nn.relu(%x)\n}\n", 0);
    static const float half = 0.5f, quarter = 0.25f, pair[2] = {1.0f, 2.0f};
    int64_t two = 2;
    const graft_type *one_t = graph_type_tensor(r.g, "float32", &two, 0);
    const graft_type *pair_t = graph_type_tensor(r.g, "float32", &two, 1);
    graft_node *c[4] = {graph_add_tensor_const(r.g, "a", one_t, &half, sizeof half),
                        graph_add_tensor_const(r.g, "b", one_t, &half, sizeof half),
                        graph_add_tensor_const(r.g, "c", one_t, &quarter, sizeof quarter),
                        graph_add_tensor_const(r.g, "d", pair_t, pair, sizeof pair)};
    ActionPlaces places = {0};
    rewrite_action_places(r.rules->rs.rules[0].action, &places);
    graft_binding b[2] = {{.node = graph_param(r.g, 0)}, {.node = c[0]}};
    const double want[3] = {0.5, 0.5, 0.25};
    for (int i = 0; i < 3; i++) {
        b[1].node = c[i];
        ck_assert(rewrite_places_known(r.e, &places, b));
        ck_assert_ptr_eq(r.e->read_const, c[i]);
        ck_assert(r.e->read_number == want[i]);
        ck_assert_ptr_eq(r.e->bytes_type, one_t);
        r.e->read_const = NULL; /* as rewrite_build leaves it */
    }
    b[1].node = c[3];
    ck_assert(!rewrite_places_known(r.e, &places, b));
    ck_assert_ptr_null(r.e->read_const);
    vec_free(&places);
    run_close(&r);
}
END_TEST

START_TEST(partition_untyped_bodies_stay_untyped)
{
    /* note [untyped bodies] in src/runtime/partition_apply.c and note
       [left untyped] in src/runtime/partition_region.c: a group over an
       untyped variable keeps its body, function and call untyped (the
       chain's second call marked, not listed); a typed one's are typed */
    Run r;
    run_rewrite(&r, "p := exp(nn.relu(x)) => partition\n",
                "def @main(%x: Tensor[(2), float32], %y) {\n"
                "  (exp(nn.relu(%x)), exp(nn.relu(%y)))\n}\n");
    ck_assert_uint_eq(rule_stats(&r, 0)->applied, 2);
    const graft_node *fields = graph_output(r.g);
    const graft_node *typed = node_arg(fields, 0), *untyped = node_arg(fields, 1);
    const graft_node *typed_fn = node_callee(typed), *untyped_fn = node_callee(untyped);
    ck_assert_str_eq(node_type(typed)->text, "Tensor[(2), float32]");
    ck_assert_str_eq(node_type(node_body(typed_fn))->text, "Tensor[(2), float32]");
    ck_assert_str_eq(node_type(node_arg(node_body(typed_fn), 0))->text,
                     "Tensor[(2), float32]");
    ck_assert_ptr_nonnull(node_type(typed_fn));
    ck_assert_ptr_null(node_type(untyped));
    ck_assert_ptr_null(node_type(untyped_fn));
    ck_assert_ptr_null(node_type(node_body(untyped_fn)));
    ck_assert_ptr_null(node_type(node_arg(node_body(untyped_fn), 0)));
    run_close(&r);
}
END_TEST

START_TEST(partition_function_types_as_made)
{
    /* note [function types as made] in src/runtime/partition_apply.c: a
       function whose body is typed is typed as it is made; the next of
       the same types takes the same type, one of other types its own */
    Run r;
    run_rewrite(&r, "p := exp(nn.relu(x)) => partition\n",
                "def @main(%a: Tensor[(2), float32], %b: Tensor[(2), float32],\n"
                "          %c: Tensor[(3), float32]) {\n"
                "  (exp(nn.relu(%a)), exp(nn.relu(%b)), exp(nn.relu(%c)))\n}\n");
    ck_assert_uint_eq(rule_stats(&r, 0)->applied, 3);
    const graft_node *fields = graph_output(r.g);
    const graft_node *fa = node_callee(node_arg(fields, 0));
    const graft_node *fb = node_callee(node_arg(fields, 1));
    const graft_node *fc = node_callee(node_arg(fields, 2));
    ck_assert_str_eq(node_type(fa)->text, "fn (Tensor[(2), float32]) -> Tensor[(2), float32]");
    ck_assert_ptr_eq(node_type(fb), node_type(fa));
    ck_assert_str_eq(node_type(fc)->text, "fn (Tensor[(3), float32]) -> Tensor[(3), float32]");
    ck_assert_str_eq(node_type(node_arg(fields, 2))->text, "Tensor[(3), float32]");
    run_close(&r);
}
END_TEST

/* ---- replaced copies freed as the pass goes (note [killed as replaced]
 * in src/runtime/rewrite.c) ---- */

enum { COPIES = 2000 };

/* COPIES side by side (exp(nn.relu(%xI)), their tuple the output), or
 * one chain of them from %x0. */
static char *copies_model(bool chain)
{
    StrBuf sb = {0};
    strbuf_puts(&sb, "def @main(");
    for (int i = 0; i < COPIES; i++)
        strbuf_printf(&sb, "%s%%x%d", i ? ", " : "", i);
    strbuf_puts(&sb, ") {\n");
    for (int i = 0; i < COPIES; i++) {
        if (chain)
            strbuf_printf(&sb, "  %%%d = nn.relu(%%%s%d);\n", 2 * i, i ? "" : "x", i ? 2 * i - 1 : 0);
        else
            strbuf_printf(&sb, "  %%%d = nn.relu(%%x%d);\n", 2 * i, i);
        strbuf_printf(&sb, "  %%%d = exp(%%%d);\n", 2 * i + 1, 2 * i);
    }
    if (chain) {
        strbuf_printf(&sb, "  %%%d\n}\n", 2 * COPIES - 1);
        return sb.data;
    }
    strbuf_puts(&sb, "  (");
    for (int i = 0; i < COPIES; i++)
        strbuf_printf(&sb, "%s%%%d", i ? ", " : "", 2 * i + 1);
    strbuf_puts(&sb, ")\n}\n");
    return sb.data;
}

/* The copies rewritten to negative(%xI) (side by side), or the chain to
 * COPIES negatives of %x0. */
static char *copies_rewritten(bool chain)
{
    StrBuf sb = {0};
    strbuf_puts(&sb, "def @main(");
    for (int i = 0; i < COPIES; i++)
        strbuf_printf(&sb, "%s%%x%d", i ? ", " : "", i);
    strbuf_puts(&sb, ") {\n");
    for (int i = 0; i < COPIES - chain; i++)
        strbuf_printf(&sb, "  %%%d = negative(%%%s%d);\n", i, chain && i ? "" : "x",
                      chain ? (i ? i - 1 : 0) : i);
    if (chain) {
        strbuf_printf(&sb, "  negative(%%%d)\n}\n", COPIES - 2);
        return sb.data;
    }
    strbuf_puts(&sb, "  (");
    for (int i = 0; i < COPIES; i++)
        strbuf_printf(&sb, "%s%%%d", i ? ", " : "", i);
    strbuf_puts(&sb, ")\n}\n");
    return sb.data;
}

/* Side by side, each replaced copy dies with its group, and the blocks
 * of 4,000 dead nodes are freed before the pass ends: the middle copy's
 * nn.relu reads as the graph's released node (a dead tuple of no
 * operands, note [dead blocks] in src/ir/graph_compact.c) after
 * engine_run, which frees no block itself.  In the chain each root is
 * read by the next group's nn.relu, claimed: every root is left to the
 * sweep, and no node is freed.  Both
 * print as the rewrite always did, and leave what a sweep leaves. */
START_TEST(replaced_copies_freed_as_the_pass_goes)
{
    for (int chain = 0; chain < 2; chain++) {
        char *model = copies_model(chain), *want = copies_rewritten(chain);
        Run r;
        run_open(&r, "e := exp(nn.relu(x)) => negative(x)\n", model, 0);
        graft_node *x = graph_param(r.g, chain ? 0 : COPIES / 2);
        graft_node *relu = node_sole_user(x);
        uint32_t relu_id = node_id(relu);
        ck_assert(engine_run(r.e, r.d));
        assert_output(&r, want);
        assert_swept(&r, false);
        ck_assert_uint_eq(rule_stats(&r, 0)->applied, COPIES);
        graft_node *now = graph_node(r.g, relu_id);
        ck_assert(node_is_dead(now));
        ck_assert_int_eq(node_kind(now), chain ? NODE_CALL : NODE_TUPLE);
        ck_assert_int_eq(node_nargs(now), chain ? 1 : 0);
        if (chain)
            ck_assert_ptr_eq(now, relu);
        run_close(&r);
        free(model);
        free(want);
    }
}
END_TEST

/* Only an engine that traces or lists refusals names nodes by position
 * (engine_names_positions): graft run drops the positions before the
 * passes of any other (note [memory before the output] in
 * src/runtime/runner.c). */
START_TEST(positions_named_only_by_traces_and_refusals)
{
    static const char model[] = "def @main(%x) {\n  exp(%x)\n}\n";
    FILE *trace = tmpfile();
    EngineOptions opts[3] = {{0}, {.trace = trace}, {.refusals = true}};
    for (int i = 0; i < 3; i++) {
        Run r;
        run_open_with(&r, "e := exp(x) => negative(x)\n", model, opts[i]);
        ck_assert(engine_names_positions(r.e) == (i > 0));
        run_close(&r);
    }
    fclose(trace);
}
END_TEST

/* note [attribute operands spelled once] (src/runtime/rewrite_build_operand.c):
 * a bound attribute value given as an operand takes the last one's
 * spelling when its value and the operands' dtype are the same, and is
 * spelled anew for another value or dtype (0.5f, then 0.5f16). */
START_TEST(attribute_operands_spelled_once)
{
    Run r;
    run_rewrite(&r, "r := nn.leaky_relu(x, alpha=a) => x + a\n",
                "def @main(%x: Tensor[(2), float32], %y: Tensor[(2), float16]) {\n"
                "  %0 = nn.leaky_relu(%x, alpha=0.2f);\n"
                "  %1 = nn.leaky_relu(%0, alpha=0.2f);\n"
                "  %2 = nn.leaky_relu(%1, alpha=0.5f);\n"
                "  %3 = nn.leaky_relu(%y, alpha=0.5f);\n"
                "  %4 = nn.leaky_relu(%y, alpha=0.5f);\n"
                "  (%2, %3, %4)\n"
                "}\n");
    ck_assert_uint_eq(rule_stats(&r, 0)->applied, 5);
    const graft_node *out = graph_output(r.g);
    const graft_node *half32 = node_arg(node_arg(out, 0), 1);
    const graft_node *half16 = node_arg(node_arg(out, 1), 1);
    ck_assert_str_eq(node_const_dtype(half32), "float32");
    ck_assert_str_eq(node_const_dtype(half16), "float16");
    ck_assert_ptr_eq(node_const_text(half16), node_const_text(node_arg(node_arg(out, 2), 1)));
    assert_output(&r, "def @main(%x: Tensor[(2), float32], %y: Tensor[(2), float16]) {\n"
                      "  %0 = add(%x, 0.2f);\n"
                      "  %1 = add(%0, 0.2f);\n"
                      "  %2 = add(%1, 0.5f);\n"
                      "  %3 = add(%y, 0.5f16);\n"
                      "  %4 = add(%y, 0.5f16);\n"
                      "  (%2, %3, %4)\n"
                      "}\n");
    run_close(&r);
}
END_TEST

/* note [rebuilt calls keep their types] (src/runtime/rewrite_build_types.c):
 * a call rebuilt with every attribute of a bound call of its op (**c),
 * on operands of c's operands' types, takes the type the model gave c
 * (here an annotation no relation would make, to tell the two apart);
 * one whose operand's type differs is typed by its relation. */
START_TEST(rebuilt_calls_keep_their_types)
{
    Run r;
    run_rewrite(&r,
                "r := exp(c@nn.leaky_relu(x)) => nn.leaky_relu(negative(x), **c)\n"
                "s := tanh(c@nn.leaky_relu(x)) => nn.leaky_relu(sum(x, axis=[0]), **c)\n",
                "def @main(%x: Tensor[(2, 3), float32]) {\n"
                "  %0 = nn.leaky_relu(%x, alpha=0.1f) /* ty=Tensor[(2, 3), float16] */;\n"
                "  %1 = nn.leaky_relu(%x, alpha=0.1f) /* ty=Tensor[(2, 3), float16] */;\n"
                "  %2 = exp(%0);\n"
                "  %3 = tanh(%1);\n"
                "  (%2, %3)\n"
                "}\n");
    ck_assert_uint_eq(rule_stats(&r, 0)->applied, 1);
    ck_assert_uint_eq(rule_stats(&r, 1)->applied, 1);
    const graft_node *out = graph_output(r.g);
    ck_assert_str_eq(node_op(node_arg(out, 0)), "nn.leaky_relu");
    ck_assert_str_eq(node_type(node_arg(out, 0))->text, "Tensor[(2, 3), float16]");
    ck_assert_str_eq(node_type(node_arg(out, 1))->text, "Tensor[(3), float32]");
    run_close(&r);
}
END_TEST

/* note [types by action node] (src/runtime/rewrite_build_types.c): an action
 * node's calls on operands of the types of one of its last two typed
 * take that one's type; others (three shapes in turn) are typed anew. */
START_TEST(types_by_action_node)
{
    Run r;
    run_rewrite(&r, "r := nn.relu(x) => sum(expand_dims(x, axis=0), axis=[1])\n",
                "def @main(%a: Tensor[(2, 3), float32], %b: Tensor[(4), float32],\n"
                "          %c: Tensor[(5, 6), float32]) {\n"
                "  %0 = nn.relu(%a);\n  %1 = nn.relu(%b);\n  %2 = nn.relu(%a);\n"
                "  %3 = nn.relu(%c);\n  %4 = nn.relu(%b);\n  %5 = nn.relu(%a);\n"
                "  %6 = nn.relu(%c);\n"
                "  (%0, %1, %2, %3, %4, %5, %6)\n"
                "}\n");
    ck_assert_uint_eq(rule_stats(&r, 0)->applied, 7);
    const char *want[] = {"(1, 3)", "(1)", "(1, 3)", "(1, 6)", "(1)", "(1, 3)", "(1, 6)"};
    const graft_node *out = graph_output(r.g);
    for (int i = 0; i < 7; i++) {
        const graft_node *sum = node_arg(out, i);
        char text[64];
        snprintf(text, sizeof text, "Tensor[%s, float32]", want[i]);
        ck_assert_str_eq(node_op(sum), "sum");
        ck_assert_str_eq(node_type(sum)->text, text);
    }
    ck_assert_str_eq(node_type(node_arg(node_arg(out, 3), 0))->text,
                     "Tensor[(1, 5, 6), float32]");
    ck_assert_ptr_eq(node_type(node_arg(out, 5)), node_type(node_arg(out, 0)));
    run_close(&r);
}
END_TEST

/* A rewrite of an untyped model leaves what it makes untyped, told
 * without the memo (stays_untyped in src/runtime/rewrite_build_types.c); the
 * same action on a typed operand types every node it makes. */
START_TEST(untyped_operands_stay_untyped)
{
    Run r;
    run_rewrite(&r, "r := nn.relu(x) => (exp(x), add(x, 1f))\n",
                "def @main(%a, %b: Tensor[(2), float32]) {\n"
                "  %0 = nn.relu(%a);\n  %1 = nn.relu(%b);\n  (%0, %1)\n}\n");
    ck_assert_uint_eq(rule_stats(&r, 0)->applied, 2);
    const graft_node *out = graph_output(r.g);
    const graft_node *untyped = node_arg(out, 0), *typed = node_arg(out, 1);
    ck_assert_ptr_null(node_type(untyped));
    ck_assert_ptr_null(node_type(node_arg(untyped, 0)));
    ck_assert_ptr_null(node_type(node_arg(untyped, 1)));
    ck_assert_str_eq(node_type(typed)->text, "(Tensor[(2), float32], Tensor[(2), float32])");
    ck_assert_str_eq(node_type(node_arg(typed, 1))->text, "Tensor[(2), float32]");
    run_close(&r);
}
END_TEST


/* A chain of n calls of op on %x, each reading the last. */
static char *chain_of(const char *op, int n)
{
    StrBuf sb = {0};
    strbuf_puts(&sb, "def @main(%x) {\n");
    strbuf_printf(&sb, "  %%0 = %s(%%x);\n", op);
    for (int i = 1; i < n - 1; i++)
        strbuf_printf(&sb, "  %%%d = %s(%%%d);\n", i, op, i - 1);
    strbuf_printf(&sb, "  %s(%%%d)\n}\n", op, n - 2);
    return sb.data;
}

/* note [forwarding map] (src/runtime/rewrite.c): one pass keeps the
 * 5,000 groups of a chain of nn.relu, and each binds the root of the one
 * before, replaced earlier in the pass: every binding read through the
 * map is its root's negative, and the chain prints as 5,000 negatives. */
START_TEST(forwarding_map_reads_every_replaced_root)
{
    enum { N = 5000 };
    char *model = chain_of("nn.relu", N), *want = chain_of("negative", N);
    Run r;
    run_rewrite(&r, "r := nn.relu(x) => negative(x)\n", model);
    assert_output(&r, want);
    ck_assert_uint_eq(rule_stats(&r, 0)->applied, N);
    ck_assert_uint_eq(engine_stats(r.e)->rewrites, N);
    run_close(&r);
    free(model);
    free(want);
}
END_TEST

/* An attribute computed by a unary minus of a bound constant's value
 * (float_value in src/runtime/rewrite_build_attr.c, an arithmetic of one
 * operand): an integer for an int32 constant, a float for a float32 one. */
START_TEST(negated_value_keeps_its_kind)
{
    static const char rule[] = "neg := x + c:const => nn.leaky_relu(x, alpha=(-value(c)))\n";
    Run r;
    run_rewrite(&r, rule, "def @main(%x) {\n  add(%x, 2)\n}\n");
    assert_output(&r, "def @main(%x) {\n  nn.leaky_relu(%x, alpha=-2)\n}\n");
    run_close(&r);
    run_rewrite(&r, rule, "def @main(%x) {\n  add(%x, 2f)\n}\n");
    assert_output(&r, "def @main(%x) {\n  nn.leaky_relu(%x, alpha=-2f)\n}\n");
    run_close(&r);
}
END_TEST

/* A call action with a spliced operand list makes a call only of a count
 * its op takes (note [spliced operand counts] in
 * src/compiler/check_action.c): add(%a, %b) is made and typed by its
 * count (note [types by action node] in src/runtime/rewrite_build_types.c),
 * (3, 2); the site that would make add(%a) of one operand is refused as
 * a guard refuses, once each of the two rounds, and left as it was. */
START_TEST(spliced_calls_typed_by_their_count)
{
    Run r;
    run_rewrite(&r, "wrap := tanh(concatenate((x, rest...))) => add(x, rest...)\n",
                "#[version = \"0.0.5\"]\n"
                "def @main(%a: Tensor[(1, 2), float32], %b: Tensor[(3, 2), float32]) {\n"
                "  %0 = tanh(concatenate((%a, %b)));\n"
                "  %1 = tanh(concatenate((%a,)));\n"
                "  (%0, %1)\n"
                "}\n");
    const graft_node *out = graph_output(r.g), *two = node_arg(out, 0), *one = node_arg(out, 1);
    ck_assert_str_eq(node_op(two), "add");
    ck_assert_int_eq(node_nargs(two), 2);
    ck_assert_str_eq(node_type(two)->text, "Tensor[(3, 2), float32]");
    ck_assert_str_eq(node_op(one), "tanh");
    assert_output(&r, "#[version = \"0.0.5\"]\n"
                      "def @main(%a: Tensor[(1, 2), float32], %b: Tensor[(3, 2), float32]) {\n"
                      "  %0 = (%a,);\n"
                      "  %1 = concatenate(%0);\n"
                      "  %2 = add(%a, %b);\n"
                      "  %3 = tanh(%1);\n"
                      "  (%2, %3)\n"
                      "}\n");
    ck_assert_uint_eq(rule_stats(&r, 0)->applied, 1);
    ck_assert_uint_eq(rule_stats(&r, 0)->guard, 2);
    run_close(&r);
}
END_TEST

/* note [applied groups freed] in src/runtime/partition_apply.c, note
 * [labels dropped before the last apply] in engine.c: a chain of adds
 * whose groups fill three blocks and whose inputs (two a group) fill two
 * of the grouper's, partitioned by a pass that is not the last, then by
 * the last (an exp of the chain); each call reads the call before and
 * %b, its function adds its two parameters.  The last pass leaves no
 * relabelling mark or label behind it, the order kept; the first's
 * dirty marks served the last one's relabelling. */
START_TEST(partition_tables_freed_before_the_apply)
{
    enum { N = 2 * GROUP_BLOCK + 5 };
    StrBuf model = {0};
    strbuf_puts(&model, "def @main(%a, %b) {\n  %0 = add(%a, %b);\n");
    for (int i = 1; i < N; i++)
        strbuf_printf(&model, "  %%%d = add(%%%d, %%b);\n", i, i - 1);
    strbuf_printf(&model, "  exp(%%%d)\n}\n", N - 1);
    Run r;
    run_open(&r, "p := add(x, y) => partition\ne := exp(x) => partition\n", model.data, 0);
    engine_partition(r.e);
    ck_assert_uint_eq(rule_stats(&r, 0)->applied, N);
    ck_assert_uint_eq(rule_stats(&r, 1)->applied, 1);
    /* the order went before the last apply (note [order dropped before
     * the last apply] in src/runtime/partition.c) */
    ck_assert_ptr_null(r.e->order);
    ck_assert_uint_eq(r.e->order_cap, 0);
    ck_assert_ptr_null(r.e->dirty);
    const graft_node *out = graph_output(r.g);
    ck_assert_str_eq(node_find_attr(node_callee(out), "PartitionedFromPattern")->s, "exp_");
    /* the exp, labelled by both passes, moved into the last function */
    ck_assert_uint_eq(labels_state(r.e->labels, node_body(node_callee(out))), STATE_NONE);
    ck_assert_ptr_null(((const LabelStates *)(const void *)r.e->labels)->state);
    const graft_node *call = node_arg(out, 0), *b = graph_param(r.g, 1);
    for (int i = 0; i < N; i++) {
        const graft_node *fn = node_callee(call);
        ck_assert_int_eq(node_nargs(call), 2);
        ck_assert_ptr_eq(node_arg(call, 1), b);
        ck_assert_ptr_eq(node_arg(node_body(fn), 0), node_param(fn, 0));
        ck_assert_ptr_eq(node_arg(node_body(fn), 1), node_param(fn, 1));
        call = node_arg(call, 0);
    }
    ck_assert_ptr_eq(call, graph_param(r.g, 0));
    run_close(&r);
    strbuf_free(&model);
}
END_TEST

/* note [typing lists] in src/runtime/partition_apply.c: the list of body
 * nodes to type takes no room until its first entry, which reserves the
 * bound, the nodes the groups claimed (40 here, 41 rounded to a power of
 * two); the next entries take that room. */
START_TEST(partition_lists_sized_at_their_first_entry)
{
    Grouper gp = {.nclaimed = 40};
    Pass p = {.gp = &gp};
    graft_node *n = (graft_node *)&gp; /* (never read) */
    ck_assert_uint_eq(p.untyped.cap, 0);
    partition_list_untyped(&p, n);
    ck_assert_uint_eq(p.untyped.cap, 64);
    graft_node **items = p.untyped.items;
    for (int i = 1; i < 41; i++)
        partition_list_untyped(&p, n);
    ck_assert_uint_eq(p.untyped.len, 41);
    ck_assert_ptr_eq(p.untyped.items, items);
    vec_free(&p.untyped);
}
END_TEST

/* note [spliced operand counts] in src/compiler/check_action.c: a
 * spliced call keeps its op's counts, [2, 3) for add, and its place
 * comes after its splice's; a splice in a tuple has no count.  With
 * rest bound to a tuple of fields from 1 on, the call has 1 + (n - 1)
 * operands: a tuple of 2 fits, one of 1 or 3 does not, and
 * rewrite_first_unknown names the call (PLACE_COUNT). */
START_TEST(spliced_call_counts_checked_at_their_place)
{
    Run r;
    run_open(&r, "wrap := tanh(concatenate((x, rest...))) => add(x, rest...)\n"
                 "keep := exp(concatenate((x, rest...))) => concatenate((x, rest...))\n",
             "def @main(%a, %b, %c) {\n  (%a, %b, %c)\n}\n", 0);
    const graft_expr *call = r.rules->rs.rules[0].action;
    ck_assert_int_eq(call->i, 2);
    ck_assert_int_eq(call->cmp, 3);
    ActionPlaces places = {0};
    rewrite_action_places(call, &places);
    ck_assert_uint_eq(places.len, 2);
    ck_assert_ptr_eq(places.items[0].x, call->kids[1]);
    ck_assert_int_eq(places.items[0].attr, PLACE_SPLICE);
    ck_assert_ptr_eq(places.items[1].x, call);
    ck_assert_int_eq(places.items[1].attr, PLACE_COUNT);
    const graft_node *out = graph_output(r.g);
    graft_node *fields[3] = {node_arg(out, 0), node_arg(out, 1), node_arg(out, 2)};
    bool fits[3] = {false, true, false};
    for (int n = 1; n <= 3; n++) {
        graft_binding b[2] = {{.node = fields[0]}, {.node = graph_add_tuple(r.g, fields, n)}};
        int attr = 0;
        ck_assert(rewrite_places_known(r.e, &places, b) == fits[n - 1]);
        ck_assert_int_eq(rewrite_operand_count(call, b), n);
        ck_assert_ptr_eq(rewrite_first_unknown(call, b, &attr), fits[n - 1] ? NULL : call);
        if (!fits[n - 1])
            ck_assert_int_eq(attr, PLACE_COUNT);
    }
    vec_free(&places);
    const graft_expr *tuple = r.rules->rs.rules[1].action->kids[0];
    rewrite_action_places(tuple, &places);
    ck_assert_uint_eq(places.len, 1);
    ck_assert_int_eq(places.items[0].attr, PLACE_SPLICE);
    vec_free(&places);
    run_close(&r);
}
END_TEST

/* note [order dropped before the last apply] in src/runtime/partition.c:
 * a last pass that finds no group keeps the order it walked (the run's
 * end frees it); ordering again fills it, outputs last. */
START_TEST(partition_last_pass_without_groups_keeps_the_order)
{
    Run r;
    run_open(&r, "p := add(x, y) => partition\ne := exp(x) => partition\n",
             "def @main(%a, %b) {\n  %0 = add(%a, %b);\n  nn.relu(%0)\n}\n", 0);
    engine_partition(r.e);
    ck_assert_uint_eq(rule_stats(&r, 0)->applied, 1);
    ck_assert_uint_eq(rule_stats(&r, 1)->applied, 0);
    ck_assert_ptr_nonnull(r.e->order);
    ck_assert_uint_ge(r.e->order_cap, graph_node_count(r.g) + 1);
    const graft_node *out = graph_output(r.g);
    uint32_t live = engine_order(r.e);
    ck_assert_ptr_eq(r.e->order[live - 1], out);
    ck_assert_str_eq(node_op(out), "nn.relu");
    run_close(&r);
}
END_TEST

/* note [spliced captures] in src/runtime/verify_choose.c: the fields
 * graft verify adds to each variadic tuple so that every splice of the
 * action finds its fields, every spliced call gets a count its op takes
 * and every field read (t[2]) is there, the fewest (ties to the earlier
 * tuple); none where nothing fits within the bound, NULL for a rule
 * without such a tuple.  Then a rule that was "matched but did not
 * rewrite" is checked: a right one verified, a wrong one refuted, on an
 * instance naming the field added. */
static int slot_named(const graft_rule *r, const char *name)
{
    for (int s = 0; s < r->nslots; s++)
        if (strcmp(r->slot_names[s], name) == 0)
            return s;
    ck_abort_msg("no variable %s", name);
    return -1;
}

static void assert_more_fields(const Lowered *lw, uint32_t rule, const char *var, int want)
{
    const graft_rule *r = &lw->rs.rules[rule];
    int *more = verify_spliced_fields(&lw->rs, r);
    ck_assert_msg(more != NULL, "rule %s: no fields chosen", r->name);
    ck_assert_int_eq(more[slot_named(r, var)], want);
    free(more);
}

START_TEST(spliced_captures_get_the_fewest_fields_that_fit)
{
    Run r;
    run_open(&r, "op my.many(a, b, c, d, e, f, g, h, i, j, k)\n"
                 "wrap := tanh(concatenate((x, rest...))) => add(x, rest...)\n"
                 "keep := exp(concatenate((x, rest...))) => concatenate((x, rest...))\n"
                 "slice := tanh(concatenate(t@(...))) => add(t[1:3]...)\n"
                 "both := (t@(...), u@(...)) => add(t..., u...)\n"
                 "plain := exp(x) => x\n"
                 "many := nn.relu(concatenate((x, rest...))) => my.many(x, rest...)\n"
                 "read := multiply((t@(...))[0], t[2]) => multiply(t[2], t[0])\n"
                 "act := tanh(concatenate(t@(...))) => concatenate((t[0], t[1]))\n"
                 "alias := exp((t@(x, rest...))[0]) => add(t...)\n",
             "def @main(%a) {\n  %a\n}\n", 0);
    const Lowered *lw = r.rules;
    assert_more_fields(lw, 0, "rest", 1); /* add takes 2: x and one more */
    assert_more_fields(lw, 1, "rest", 0); /* a new tuple takes any count */
    assert_more_fields(lw, 2, "t", 3);    /* t[1:3] wants three fields */
    assert_more_fields(lw, 3, "t", 0);    /* two in all, the later tuple's */
    assert_more_fields(lw, 3, "u", 2);
    ck_assert_ptr_null(verify_spliced_fields(&lw->rs, &lw->rs.rules[4]));
    /* my.many takes 11: rest would need 10, past VERIFY_MAX_MORE */
    ck_assert_ptr_null(verify_spliced_fields(&lw->rs, &lw->rs.rules[5]));
    assert_more_fields(lw, 6, "t", 3);    /* the pattern reads t[2] */
    assert_more_fields(lw, 7, "t", 2);    /* the action reads t[1] */
    assert_more_fields(lw, 8, "rest", 1); /* t... of t@(x, rest...): two */
    run_close(&r);

    run_open(&r, "right := add((t@(x, rest...))[0], t[1]) => add(x, rest...)\n"
                 "wrong := tanh(concatenate((x, rest...))) => add(x, rest...)\n",
             "def @main(%a) {\n  %a\n}\n", 0);
    VerifyReport rep;
    verify_rule(&r.rules->rs, 0, &(VerifyOptions){.seed = 1, .trials = 20}, &rep);
    ck_assert_int_eq(rep.verdict, VERIFY_VERIFIED);
    ck_assert_int_eq(rep.instances, 5);
    ck_assert_str_eq(rep.instance.data,
                     "x: (2, 3, 2, 2, 3) float32, rest...: (2, 3, 2, 2, 3) float32");
    verify_report_free(&rep);
    verify_rule(&r.rules->rs, 1, &(VerifyOptions){.seed = 1, .trials = 20}, &rep);
    ck_assert_int_eq(rep.verdict, VERIFY_REFUTED);
    ck_assert_str_eq(rep.instance.data, "x: (2) float32, rest...: (2) float32");
    ck_assert_ptr_nonnull(strstr(rep.detail.data, "(the shapes differ)"));
    verify_report_free(&rep);
    run_close(&r);
}
END_TEST

/* ---- the ops that draw a value are never shared ---- */

START_TEST(drawing_calls_not_shared)
{
    /* two calls of RandomNormalLike, and of Multinomial, made by one
       action stay two (note [shared sub-expressions] in
       src/runtime/rewrite_share.c); two of Relu, and of Mul, whose names
       begin with the same letters, are one */
    static const char *const ops[] = {"RandomNormalLike", "Relu", "Multinomial", "Mul"};
    const bool shared[] = {false, true, false, true};
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL);
    uint32_t first = graph_node_count(g);
    graft_node *fields[2 * ARRAY_LEN(ops)];
    for (size_t i = 0; i < ARRAY_LEN(fields); i++)
        fields[i] = graph_add_call(g, ops[i / 2], &x, 1, NULL, 0);
    graft_node *made = graph_add_tuple(g, fields, (int)ARRAY_LEN(fields));
    graft_node *by[] = {made};
    rewrite_share(g, first, by, 1);
    ck_assert_ptr_eq(by[0], made);
    for (size_t i = 0; i < ARRAY_LEN(ops); i++) {
        ck_assert_str_eq(node_op(node_arg(made, 2 * (int)i)), ops[i]);
        ck_assert_int_eq(node_arg(made, 2 * (int)i) == node_arg(made, 2 * (int)i + 1),
                         shared[i]);
    }
    graph_free(g);
}
END_TEST

/* ---- one number made is one node of its kind ---- */

START_TEST(one_number_not_shared)
{
    /* an action that makes one constant (a literal, or a bound attribute
       given as an operand) among nodes of other kinds has nothing to share
       (note [actions of distinct nodes] in src/runtime/rewrite_share.c);
       two constants may be one */
    Run r;
    run_open(&r,
             "literal := exp(x) => multiply(x, 2f)\n"
             "operand := nn.leaky_relu(x, alpha=a) => multiply(x, a)\n"
             "two := sigmoid(x) => add(multiply(x, 2f), 3f)\n",
             "def @main(%x) {\n  exp(%x)\n}\n", 0);
    const bool want[] = {false, false, true};
    ck_assert_uint_eq(r.rules->rs.nrules, ARRAY_LEN(want));
    for (uint32_t i = 0; i < r.rules->rs.nrules; i++)
        ck_assert_int_eq(rewrite_may_share(r.rules->rs.rules[i].action), want[i]);
    run_close(&r);
}
END_TEST

/* ---- two action keys of one hash ---- */

/* The word v for which hash_mix(h, v) is want (hash_mix adds v to a
 * function of h and xors h in: src/base/keymap.h). */
static uint64_t hash_mix_undone(uint64_t h, uint64_t want)
{
    return (want ^ h) - (0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
}

/* Call n's key's hash in src/runtime/rewrite_types.c (call_hash) up to
 * the first item of its one attribute, a list, of tensor operands. */
static uint64_t hash_to_first_item(const graft_node *n)
{
    uint64_t h = hash_mix((uint64_t)(uintptr_t)node_op(n), (uint64_t)node_nargs(n));
    for (int i = 0; i < node_nargs(n); i++)
        h = hash_mix(h, (uint64_t)(uintptr_t)node_type(node_arg(n, i)));
    h = hash_mix(h, (uint64_t)(uintptr_t)node_attr(n, 0)->name);
    return hash_mix(hash_mix(hash_mix(h, GRAFT_ATTR_LIST), 0), 0); /* its kind, i and f */
}

/* A list attribute value of one int, i. */
static graft_attr_value *one_int_list(graft_graph *g, int64_t i)
{
    graft_attr_value *item = graph_new_attr_value(g, GRAFT_ATTR_INT);
    item->i = i;
    graft_attr_value *list = graph_new_attr_value(g, GRAFT_ATTR_LIST);
    const graft_attr_value **items = arena_array(graph_arena(g), 2, sizeof *items);
    items[0] = item;
    list->nitems = 1;
    list->items = (const graft_attr_value *const *)items;
    return list;
}

START_TEST(action_keys_of_one_hash)
{
    /* sum(x, axis=[0]) and sum(x, axis=[1]), the second's item given the
       float bits that make the two keys' hashes one (note [action types]
       in src/runtime/rewrite_types.c: a key whose hash another holds is
       typed each time): each call gets its own type, the first item of
       the lists compared too */
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", graph_type_tensor(g, "float32",
                                                              (int64_t[]){2, 3}, 2));
    graft_attr_value *axis0 = one_int_list(g, 0), *axis1 = one_int_list(g, 1);
    graft_attr first = {"axis", axis0}, second = {"axis", axis1};
    graft_node *sum0 = graph_add_call(g, "sum", &x, 1, &first, 1);
    graft_node *sum1 = graph_add_call(g, "sum", &x, 1, &second, 1);
    uint64_t h = hash_mix(hash_to_first_item(sum0), GRAFT_ATTR_INT);
    ck_assert_uint_eq(hash_to_first_item(sum1), hash_to_first_item(sum0));
    uint64_t want = hash_mix(hash_mix(h, 0), 0); /* item 0 of axis0: i 0, f 0.0 */
    uint64_t bits = hash_mix_undone(hash_mix(h, 1), want);
    graft_attr_value *forged = (graft_attr_value *)axis1->items[0];
    memcpy(&forged->f, &bits, sizeof bits);
    ActionTypes *at = action_types_new(g);
    StrBuf why = {0};
    ck_assert_str_eq(action_type(at, g, sum0, &why)->text, "Tensor[(3), float32]");
    ck_assert_str_eq(action_type(at, g, sum1, &why)->text, "Tensor[(2), float32]");
    ck_assert_str_eq(action_type(at, g, sum0, &why)->text, "Tensor[(3), float32]");
    ck_assert_uint_eq(why.len, 0);
    action_types_free(at);
    strbuf_free(&why);
    graph_free(g);
}
END_TEST

static Suite *engine_suite(void)
{
    Suite *s = suite_create("engine");
    TCase *tc = tcase_create("refusals");
    tcase_add_test(tc, overlap_is_counted);
    tcase_add_test(tc, second_run_regrows_pass_scratch);
    tcase_add_loop_test(tc, rewrite_case, 0, (int)ARRAY_LEN(rewrite_cases));
    tcase_add_loop_test(tc, relabelled_through_users, 0, (int)ARRAY_LEN(relabel_cases));
    tcase_add_test(tc, large_change_walks);
    tcase_add_loop_test(tc, sweep_kills_given_nodes, 0, (int)ARRAY_LEN(kill_cases));
    suite_add_tcase(s, tc);
    tc = tcase_create("times");
    tcase_add_test(tc, untimed_reads_no_clock);
    suite_add_tcase(s, tc);
    tc = tcase_create("computable");
    tcase_add_test(tc, computable_decided_per_rule);
    suite_add_tcase(s, tc);
    tc = tcase_create("bound");
    tcase_add_test(tc, non_termination_is_reported);
    suite_add_tcase(s, tc);
    tc = tcase_create("match");
    tcase_add_test(tc, matches_every_rule_at_every_node);
    tcase_add_test(tc, proven_rules_match_as_verified);
    tcase_add_test(tc, checked_rules_tell_as_tries);
    tcase_add_test(tc, attribute_keys_by_spelling);
    suite_add_tcase(s, tc);
    tc = tcase_create("dump");
    tcase_add_test(tc, dump_shares_items);
    suite_add_tcase(s, tc);
    tc = tcase_create("actions");
    tcase_add_test(tc, canonical_by_interned_names);
    tcase_add_test(tc, typed_constant_spellings);
    suite_add_tcase(s, tc);
    tc = tcase_create("roots");
    tcase_add_test(tc, root_precheck_before_steps);
    suite_add_tcase(s, tc);
    tc = tcase_create("deep");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, reused_node_keeps_its_type);
    tcase_add_test(tc, action_types_by_key);
    tcase_add_test(tc, action_keys_of_one_hash);
    tcase_add_test(tc, million_node_chain);
    suite_add_tcase(s, tc);
    tc = tcase_create("places");
    tcase_add_test(tc, action_places_in_walk_order);
    tcase_add_test(tc, constant_read_once_per_group);
    tcase_add_test(tc, literal_values_copied_once);
    tcase_add_test(tc, constant_numbers_shared);
    tcase_add_test(tc, spliced_call_counts_checked_at_their_place);
    suite_add_tcase(s, tc);
    tc = tcase_create("partition");
    tcase_add_test(tc, partition_functions_share_attributes);
    tcase_add_test(tc, partition_groups_past_a_block);
    tcase_add_test(tc, partition_names_interned_when_asked);
    tcase_add_test(tc, partition_names_of_two_passes_alike);
    tcase_add_test(tc, partition_untyped_bodies_stay_untyped);
    tcase_add_test(tc, partition_function_types_as_made);
    tcase_add_test(tc, partition_tables_freed_before_the_apply);
    tcase_add_test(tc, partition_lists_sized_at_their_first_entry);
    tcase_add_test(tc, partition_last_pass_without_groups_keeps_the_order);
    suite_add_tcase(s, tc);
    tc = tcase_create("share");
    tcase_add_test(tc, distinct_actions_not_shared);
    tcase_add_test(tc, canonical_attributes_remembered);
    tcase_add_test(tc, tensor_constant_bytes_read_once);
    tcase_add_test(tc, drawing_calls_not_shared);
    tcase_add_test(tc, one_number_not_shared);
    suite_add_tcase(s, tc);
    tc = tcase_create("memory");
    tcase_add_test(tc, replaced_copies_freed_as_the_pass_goes);
    tcase_add_test(tc, positions_named_only_by_traces_and_refusals);
    suite_add_tcase(s, tc);
    tc = tcase_create("built once");
    tcase_add_test(tc, attribute_operands_spelled_once);
    tcase_add_test(tc, rebuilt_calls_keep_their_types);
    tcase_add_test(tc, types_by_action_node);
    tcase_add_test(tc, untyped_operands_stay_untyped);
    tcase_add_test(tc, forwarding_map_reads_every_replaced_root);
    tcase_add_test(tc, negated_value_keeps_its_kind);
    tcase_add_test(tc, spliced_calls_typed_by_their_count);
    tcase_add_test(tc, spliced_captures_get_the_fewest_fields_that_fit);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(engine_suite());
}
