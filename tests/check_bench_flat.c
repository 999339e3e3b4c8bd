/* check_bench_flat.c - bench/bench_flat.c, the graph as arrays by field
 * (note [flat graph] in bench_flat.c): the arrays as built, their
 * labelling from stored classes against labels_all's states on every
 * node, and what verifying the offered candidates finds. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_flat.h"
#include "engine.h"
#include "frontend.h"
#include "lower.h"
#include "relay.h"
#include "check_main.h"

#define MODELS_GRAFT GRAFT_SRCDIR "/bench/rules/models.graft"

/* Rules and a model, loaded. */
typedef struct Case {
    Lowered *rules;  /* lowered rules */
    Source *src;     /* the model's text */
    graft_graph *g;  /* the model */
    graft_diag *d;   /* diagnostics (the rules' warnings), to /dev/null */
    FILE *sink;      /* where d writes */
} Case;

/* Loads the rules at rules_path and the model text (model_path: a file
 * instead). */
static void case_open(Case *c, const char *rules_path, const char *model, const char *model_path)
{
    memset(c, 0, sizeof *c);
    c->sink = fopen("/dev/null", "w");
    ck_assert_ptr_nonnull(c->sink);
    c->d = diag_new(c->sink);
    RuleFile *rf = frontend_load(&rules_path, 1, NULL, c->d);
    ck_assert_ptr_nonnull(rf);
    c->rules = lower_rules(rf, c->d);
    rulefile_free(rf);
    ck_assert_ptr_nonnull(c->rules);
    c->src = model ? source_from_string("test.relay", model, strlen(model))
                   : source_read(model_path, c->d);
    ck_assert_ptr_nonnull(c->src);
    c->g = relay_load(c->src, c->d);
    ck_assert_ptr_nonnull(c->g);
}

static void case_close(Case *c)
{
    graph_free(c->g);
    source_free(c->src);
    lower_free(c->rules);
    diag_free(c->d);
    fclose(c->sink);
}

/* The arrays of c's model labelled from their stored classes, and the
 * same graph labelled by labels_all, both on one automaton (so their
 * states are comparable number for number). */
typedef struct Labelled {
    FlatGraph f;       /* the arrays, classes stored */
    Automaton *a;      /* the automaton both share */
    Labels *classes;   /* decided the classes */
    Labels *flat;      /* labelled the arrays */
    Labels *walk;      /* labelled the graph (labels_all) */
    uint32_t offering; /* ids flat_label kept as offering a rule */
} Labelled;

static void labelled_open(Labelled *x, Case *c)
{
    flat_build(&x->f, c->g);
    x->a = automaton_new(&c->rules->rs);
    x->classes = labels_new(x->a, c->g);
    x->flat = labels_new(x->a, c->g);
    x->walk = labels_new(x->a, c->g);
    flat_classify(&x->f, x->classes);
    uint32_t nclasses = labels_adopt_classes(x->flat, x->classes);
    labels_all(x->walk);
    uint32_t *offering = xmalloc(((size_t)x->f.n + 1) * sizeof *offering);
    x->offering = flat_label(&x->f, x->flat, nclasses, offering);
    free(offering);
}

static void labelled_close(Labelled *x)
{
    labels_free(x->walk);
    labels_free(x->flat);
    labels_free(x->classes);
    automaton_free(x->a);
    flat_free(&x->f);
}

/* Every live node's state from the arrays is labels_all's: asserted node
 * by node, then flat_states_differ must agree. */
static void assert_states_equal(const Labelled *x, const graft_graph *g)
{
    uint32_t live = 0;
    for (uint32_t id = 0; id < graph_node_count(g); id++) {
        if (node_is_dead(graph_node(g, id)))
            continue;
        live++;
        ck_assert_uint_ne(labels_state_id(x->walk, id), STATE_NONE);
        ck_assert_uint_eq(labels_state_id(x->flat, id), labels_state_id(x->walk, id));
    }
    ck_assert_uint_eq(live, graph_live_count(g));
    ck_assert_uint_eq(flat_states_differ(&x->f, x->flat, x->walk), 0);
}

static const char small_model[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(1, 4), float32], %w: Tensor[(4, 4), float32]) {\n"
    "  %0 = nn.dense(%x, %w);\n"
    "  %1 = nn.relu(%0);\n"
    "  (%0, %1)\n"
    "}\n";

/* The arrays of a small model: kinds, operands by first index, bytes. */
START_TEST(arrays_of_small_model)
{
    Case c;
    case_open(&c, MODELS_GRAFT, small_model, NULL);
    FlatGraph f;
    flat_build(&f, c.g);
    ck_assert(f.by_id);
    ck_assert_uint_eq(f.n, 6); /* the loader leaves one id dead, the last */
    static const uint8_t kinds[] = {NODE_VAR, NODE_VAR, NODE_CALL, NODE_CALL, NODE_TUPLE,
                                    FLAT_DEAD};
    static const uint32_t first[] = {0, 0, 0, 2, 3, 5, 5};
    static const uint32_t args[] = {0, 1, 2, 2, 3};
    for (uint32_t i = 0; i < f.n; i++) {
        ck_assert_uint_eq(f.kind[i], kinds[i]);
        ck_assert_uint_eq(f.ids[i], i);
        ck_assert_uint_eq(f.cls[i], LABEL_CLASS_NODE); /* not decided yet */
    }
    for (uint32_t i = 0; i <= f.n; i++)
        ck_assert_uint_eq(f.first[i], first[i]);
    ck_assert_uint_eq(f.nargs, 5);
    for (uint32_t k = 0; k < f.nargs; k++)
        ck_assert_uint_eq(f.args[k], args[k]);
    /* per id a kind, a class and a first operand, one more first, the operands */
    ck_assert_uint_eq(flat_bytes(&f), 6 * 9 + 4 + 5 * 4);
    /* the traversal of the live ids: kinds 0+0+2+2+3, classes 5 *
     * LABEL_CLASS_NODE, operands 0+1+2+2+3 */
    ck_assert_uint_eq(flat_traverse(&f), 7 + 5 * (uint64_t)LABEL_CLASS_NODE + 8);
    flat_free(&f);
    case_close(&c);
}
END_TEST

/* Wide and many operands, an element access, tested constants and
 * attributes, a call of a local function (read as a node), one op's two
 * operand orders whose states differ (layer_norm's x - mean(x)): the
 * arrays' states are labels_all's. */
static const char mixed_model[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(1, 4), float32], %g: Tensor[(4), float32],"
    " %b: Tensor[(4), float32], %m: Tensor[(4), float32], %v: Tensor[(4), float32]) {\n"
    "  %0 = nn.batch_norm(%x, %g, %b, %m, %v);\n"
    "  %1 = %0.0;\n"
    "  %2 = squeeze(%1, axis=[]);\n"
    "  %3 = multiply(%2, 0.5f);\n"
    "  %4 = add(%3, 1e-05f);\n"
    "  %5 = fn (%p: Tensor[(1, 4), float32]) { nn.relu(%p) };\n"
    "  %6 = %5(%4);\n"
    "  %7 = (%3, %3, %3, %3, %3, %3, %3, %6);\n"
    "  %8 = nn.batch_norm(%6, %g, %b, %m, %v);\n"
    "  %9 = mean(%3);\n"
    "  %10 = subtract(%3, %9);\n"
    "  %11 = subtract(%9, %3);\n"
    "  (%7, %8.0, %10, %11)\n"
    "}\n";

START_TEST(states_of_mixed_model)
{
    Case c;
    case_open(&c, MODELS_GRAFT, mixed_model, NULL);
    Labelled x = {0};
    labelled_open(&x, &c);
    ck_assert(x.f.by_id);
    assert_states_equal(&x, c.g);
    uint32_t read = 0;
    for (uint32_t i = 0; i < x.f.n; i++)
        read += x.f.kind[i] != FLAT_DEAD && x.f.cls[i] == LABEL_CLASS_NODE;
    ck_assert_uint_eq(read, 1); /* the call of %5 */
    labelled_close(&x);
    case_close(&c);
}
END_TEST

/* flat_states_differ counts a state changed on one node. */
START_TEST(differ_counts_a_changed_state)
{
    Case c;
    case_open(&c, MODELS_GRAFT, mixed_model, NULL);
    Labelled x = {0};
    labelled_open(&x, &c);
    uint32_t *state = labels_state_array(x.flat);
    state[3] = state[3] == 0 ? 1 : 0;
    ck_assert_uint_eq(flat_states_differ(&x.f, x.flat, x.walk), 1);
    labelled_close(&x);
    case_close(&c);
}
END_TEST

static const char *const corpus[] = {
    "resnet18.relay", "resnet18.simplified.relay", "encoder.relay", "encoder.simplified.relay",
    "mobilenet_v2.relay",
};

/* The bench's rules on the corpus's models: the arrays' states are
 * labels_all's on every node. */
START_TEST(states_of_corpus_models)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/corpus/%s", GRAFT_SRCDIR, corpus[_i]);
    Case c;
    case_open(&c, MODELS_GRAFT, NULL, path);
    Labelled x = {0};
    labelled_open(&x, &c);
    ck_assert(x.f.by_id);
    assert_states_equal(&x, c.g);
    labelled_close(&x);
    case_close(&c);
}
END_TEST

static void count_match(void *ctx, uint32_t rule, graft_node *root)
{
    (void)rule, (void)root;
    ++*(uint64_t *)ctx;
}

/* Verifying on the arrays finds graft match's matches, the candidates
 * split as the states decide them. */
START_TEST(verify_finds_graft_matches)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/corpus/encoder.relay", GRAFT_SRCDIR);
    Case c;
    case_open(&c, MODELS_GRAFT, NULL, path);
    uint64_t matches = 0;
    graft_engine *e = engine_new(&c.rules->rs, c.g, NULL);
    engine_match_roots(e, count_match, &matches);
    engine_free(e);
    FlatGraph f;
    flat_build(&f, c.g);
    Automaton *a = automaton_new(&c.rules->rs);
    Labels *classes = labels_new(a, c.g), *l = labels_new(a, c.g);
    flat_classify(&f, classes);
    uint32_t nclasses = labels_adopt_classes(l, classes);
    Matcher *m = matcher_new(l, c.g);
    uint32_t *offering = xmalloc(((size_t)f.n + 1) * sizeof *offering);
    uint32_t n = flat_label(&f, l, nclasses, offering);
    FlatVerified v = flat_verify(&f, m, a, l, offering, n);
    ck_assert_uint_eq(v.matches, matches);
    ck_assert_uint_eq(v.candidates, 32);
    ck_assert_uint_eq(v.proven, 24); /* matcher_check says so at once */
    ck_assert_uint_eq(v.checked, 4); /* gelu: its x repeats */
    ck_assert_uint_eq(v.tried, 4);   /* attn_scores: a dominator */
    free(offering);
    matcher_free(m);
    labels_free(l);
    labels_free(classes);
    automaton_free(a);
    flat_free(&f);
    case_close(&c);
}
END_TEST

/* A graph whose ids are not in an order operands first (a use moved to a
 * newer node) takes graph_topo_ids's order, its ids positions in it. */
START_TEST(order_when_ids_are_not_topological)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL);
    graft_node *r = graph_add_call(g, "nn.relu", &x, 1, NULL, 0);
    graft_node *s = graph_add_call(g, "sigmoid", &r, 1, NULL, 0);
    graph_set_output(g, s);
    graft_node *t = graph_add_call(g, "tanh", &x, 1, NULL, 0);
    graph_replace_all_uses(g, r, t); /* s now reads t, made after it */
    FlatGraph f;
    flat_build(&f, g);
    ck_assert(!f.by_id);
    ck_assert_uint_eq(f.n, 3); /* x, t, s: r no longer reached */
    static const uint32_t ids[] = {0, 3, 2};
    for (uint32_t i = 0; i < f.n; i++)
        ck_assert_uint_eq(f.ids[i], ids[i]);
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t k = f.first[i]; k < f.first[i + 1]; k++)
            ck_assert_uint_lt(f.args[k], i);
    ck_assert_uint_eq(flat_bytes(&f), 3 * 9 + 4 + 2 * 4 + 3 * 4); /* the ids too */
    Case c; /* the rules only: the arrays' ids are not the states' */
    case_open(&c, MODELS_GRAFT, small_model, NULL);
    Automaton *a = automaton_new(&c.rules->rs);
    Labels *l = labels_new(a, g);
    uint32_t offering[4];
    ck_assert_uint_eq(flat_label(&f, l, labels_adopt_classes(l, l), offering), 0);
    ck_assert_uint_eq(labels_state_id(l, 3), STATE_NONE);
    labels_free(l);
    automaton_free(a);
    case_close(&c);
    flat_free(&f);
    graph_free(g);
}
END_TEST

/* copies seed batch norms side by side, the workload's model
 * (bench/workload.sh's `graft-bench sidebyside`, bench_e2e.c), malloc'd. */
static char *side_by_side(int copies)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    ck_assert_int_eq(bench_write_side_by_side((uint64_t)copies, mem), 0);
    fclose(mem);
    return text;
}

/* On the workload's shape with its rule (examples/bn.graft) every
 * candidate is proven by its state: verifying walks none, which is why
 * the arrays' match stays within 3x of their traversal there
 * (bench/RESULTS.md, "Session 30: match on the graph as arrays"). */
START_TEST(workload_candidates_all_proven)
{
    char *model = side_by_side(7);
    Case c;
    case_open(&c, GRAFT_SRCDIR "/examples/bn.graft", model, NULL);
    Labelled x = {0};
    labelled_open(&x, &c);
    assert_states_equal(&x, c.g);
    ck_assert_uint_eq(x.offering, 7);
    Matcher *m = matcher_new(x.flat, c.g);
    uint32_t *offering = xmalloc(((size_t)x.f.n + 1) * sizeof *offering);
    uint32_t n = flat_label(&x.f, x.flat, labels_adopt_classes(x.flat, x.classes), offering);
    FlatVerified v = flat_verify(&x.f, m, x.a, x.flat, offering, n);
    ck_assert_uint_eq(v.candidates, 7);
    ck_assert_uint_eq(v.proven, 7);
    ck_assert_uint_eq(v.checked, 0);
    ck_assert_uint_eq(v.tried, 0);
    ck_assert_uint_eq(v.matches, 7);
    free(offering);
    matcher_free(m);
    labelled_close(&x);
    case_close(&c);
    free(model);
}
END_TEST

static Suite *flat_suite(void)
{
    Suite *s = suite_create("bench_flat");
    TCase *tc = tcase_create("flat");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, arrays_of_small_model);
    tcase_add_test(tc, states_of_mixed_model);
    tcase_add_test(tc, differ_counts_a_changed_state);
    tcase_add_loop_test(tc, states_of_corpus_models, 0, (int)ARRAY_LEN(corpus));
    tcase_add_test(tc, verify_finds_graft_matches);
    tcase_add_test(tc, order_when_ids_are_not_topological);
    tcase_add_test(tc, workload_candidates_all_proven);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(flat_suite());
}
