/* bench_run.c - timing graft's phases on generated models.
 *
 * Every measured phase runs through time_phase: once for large graphs,
 * repeated (each run from scratch: a fresh engine, so a fresh automaton)
 * at least 3 times and until 0.3 s have passed for small ones, and the
 * fastest run is reported (note [bench units]).  The
 * phases that change the graph (rewrite, partition) and the ones that only
 * read it after them (print) run once.  Output is raw key=value numbers;
 * bench/run.sh derives the per-node costs and ratios.
 */
#include <stdlib.h>
#include <string.h>

#include "bench_flat.h"
#include "bench_run.h"
#include "engine.h"
#include "frontend.h"
#include "lower.h"
#include "relay.h"

/* What the phases share. */
typedef struct Bench {
    graft_graph *g;               /* the model */
    const graft_rule_set *rs;      /* the rules */
    uint64_t matches;       /* (rule, node) matches graft listed */
    uint64_t naive_matches; /* the same found by the naive matcher */
    uint64_t checksum;      /* of the bare traversal, printed so it stays */
    FlatGraph flat;         /* the graph as arrays (note [flat graph] in bench_flat.c) */
    Automaton *flat_a;      /* the automaton its classes were decided with */
    Labels *flat_classes;   /* the labeller that decided them */
    uint32_t nclasses;      /* classes it holds */
    FlatVerified verified;  /* what verifying on the arrays found */
} Bench;

typedef void (*PhaseFn)(Bench *b);

/* A phase keeps a frame of its own, so that a profile gives its
 * inclusive cost under its name: GCC would otherwise specialize
 * time_phase for each phase and take the phase in. */
#if defined(__GNUC__) && !defined(__clang__)
#define OWN_FRAME __attribute__((noipa))
#else
#define OWN_FRAME __attribute__((noinline))
#endif

/* Seconds of the fastest run of fn; repeats while runs are short. */
static double time_phase(PhaseFn fn, Bench *b, bool repeat)
{
    double start = bench_now(), best = 0;
    int runs = 0;
    if (getenv("GRAFT_BENCH_ONCE")) /* profiling: every phase once */
        repeat = false;
    do {
        double t0 = bench_now();
        fn(b);
        double t = bench_now() - t0;
        if (runs == 0 || t < best)
            best = t;
        runs++;
    } while (repeat && (runs < 3 || bench_now() - start < 0.3) && runs < 50);
    return best;
}

OWN_FRAME static void phase_traverse(Bench *b)
{
    b->checksum += baseline_traverse(b->g);
}

static void count_match(void *ctx, uint32_t rule, graft_node *root)
{
    (void)rule, (void)root;
    ((Bench *)ctx)->matches++;
}

/* graft match: label every node, verify every rule the automaton offers
 * whose state does not prove it; bindings only on request (note [proven
 * rules] in src/runtime/match.c), as the count needs none. */
OWN_FRAME static void phase_match(Bench *b)
{
    graft_engine *e = engine_new(b->rs, b->g, NULL);
    b->matches = 0;
    engine_match_roots(e, count_match, b);
    engine_free(e);
}

/* The order graft match reports matches in (a depth-first walk from the
 * outputs, graph_topo_ids): the floor under graft's match and the fair
 * naive matcher's alike (note [fair naive] in bench_baseline.c). */
OWN_FRAME static void phase_order(Bench *b)
{
    uint32_t *ids = xmalloc(((size_t)graph_node_count(b->g) + 1) * sizeof *ids);
    b->checksum += graph_topo_ids(b->g, ids);
    free(ids);
}

/* Labelling alone: the automaton's share of phase_match. */
OWN_FRAME static void phase_label(Bench *b)
{
    Automaton *a = automaton_new(b->rs);
    Labels *l = labels_new(a, b->g);
    labels_all(l);
    labels_free(l);
    automaton_free(a);
}

/* The bare traversal of the arrays (note [flat graph] in bench_flat.c). */
OWN_FRAME static void phase_flat_traverse(Bench *b)
{
    b->checksum += flat_traverse(&b->flat);
}

/* Deciding every node's class: what the loader would do once and store. */
OWN_FRAME static void phase_flat_class(Bench *b)
{
    Automaton *a = automaton_new(b->rs);
    Labels *l = labels_new(a, b->g);
    flat_classify(&b->flat, l);
    labels_free(l);
    automaton_free(a);
}

/* A labeller for the arrays: a fresh automaton, as graft match has, and
 * the stored classes. */
static Labels *flat_labels(Bench *b, Automaton **a)
{
    *a = automaton_new(b->rs);
    Labels *l = labels_new(*a, b->g);
    labels_adopt_classes(l, b->flat_classes);
    return l;
}

/* Labelling the arrays from their stored classes. */
OWN_FRAME static void phase_flat_label(Bench *b)
{
    Automaton *a;
    Labels *l = flat_labels(b, &a);
    flat_label(&b->flat, l, b->nclasses, NULL);
    labels_free(l);
    automaton_free(a);
}

/* graft match on the arrays: labelling them, then verifying every rule a
 * state offers with today's matcher (phase_match's work, in the arrays'
 * order). */
OWN_FRAME static void phase_flat_match(Bench *b)
{
    Automaton *a;
    Labels *l = flat_labels(b, &a);
    Matcher *m = matcher_new(l, b->g);
    uint32_t *offering = xmalloc(((size_t)b->flat.n + 1) * sizeof *offering);
    uint32_t n = flat_label(&b->flat, l, b->nclasses, offering);
    b->verified = flat_verify(&b->flat, m, a, l, offering, n);
    free(offering);
    matcher_free(m);
    labels_free(l);
    automaton_free(a);
}

/* The arrays, their classes decided, and their labelling checked against
 * labels_all's on every node (the same automaton: the same states);
 * returns the count of nodes whose states differ. */
static uint32_t flat_setup(Bench *b)
{
    flat_build(&b->flat, b->g);
    b->flat_a = automaton_new(b->rs);
    b->flat_classes = labels_new(b->flat_a, b->g);
    flat_classify(&b->flat, b->flat_classes);
    Labels *walk = labels_new(b->flat_a, b->g), *flat = labels_new(b->flat_a, b->g);
    b->nclasses = labels_adopt_classes(flat, b->flat_classes);
    if (!b->flat.by_id) {
        labels_free(walk);
        labels_free(flat);
        return 0;
    }
    labels_all(walk);
    flat_label(&b->flat, flat, b->nclasses, NULL);
    uint32_t differ = flat_states_differ(&b->flat, flat, walk);
    labels_free(walk);
    labels_free(flat);
    return differ;
}

static void flat_teardown(Bench *b)
{
    labels_free(b->flat_classes);
    automaton_free(b->flat_a);
    flat_free(&b->flat);
}

/* The phases on the arrays; their line's part. */
static void flat_phases(Bench *b, bool small)
{
    uint32_t differ = flat_setup(b);
    printf(" flat_bytes=%zu flat_by_id=%d flat_states_differ=%u", flat_bytes(&b->flat),
           b->flat.by_id, differ);
    printf(" flat_traverse_s=%.9f", time_phase(phase_flat_traverse, b, small));
    printf(" flat_class_s=%.9f", time_phase(phase_flat_class, b, small));
    if (b->flat.by_id) {
        printf(" flat_label_s=%.9f", time_phase(phase_flat_label, b, small));
        printf(" flat_match_s=%.9f", time_phase(phase_flat_match, b, small));
        const FlatVerified *v = &b->verified;
        printf(" flat_matches=%llu flat_candidates=%llu flat_proven=%llu flat_checked=%llu"
               " flat_tried=%llu",
               (unsigned long long)v->matches, (unsigned long long)v->candidates,
               (unsigned long long)v->proven, (unsigned long long)v->checked,
               (unsigned long long)v->tried);
    }
    flat_teardown(b);
}

OWN_FRAME static void phase_naive(Bench *b)
{
    b->naive_matches = baseline_match_all(b->rs, b->g);
}

/* Generates and loads a model of nops op nodes; prints its sizes. */
static graft_graph *load_model(const ModelKit *kit, uint64_t nops, uint64_t *ops)
{
    StrBuf text = {0};
    model_generate(kit, nops, &text, ops);
    size_t bytes = text.len;
    Source *src = model_source("bench.relay", &text);
    graft_diag *d = diag_new(stderr);
    bench_reset_peak_rss();
    double t0 = bench_now();
    graft_graph *g = relay_load(src, d);
    double t1 = bench_now();
    diag_free(d);
    source_free(src);
    if (g)
        printf(" ops=%llu nodes=%u text_bytes=%zu load_s=%.6f graph_bytes=%zu",
               (unsigned long long)*ops, graph_node_count(g), bytes, t1 - t0, graph_bytes(g));
    return g;
}

/* Loads and lowers rules (a file, or text when text is not NULL); the
 * warnings of generated rule sets are not shown, errors are. */
static Lowered *load_rules(const char *path, const char *text)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    graft_diag *d = diag_new(mem);
    RuleFile *rf = text ? frontend_load_string(path, text, NULL, d)
                        : frontend_load(&path, 1, NULL, d);
    Lowered *lw = rf ? lower_rules(rf, d) : NULL;
    rulefile_free(rf);
    diag_free(d);
    fclose(mem);
    if (!lw)
        fprintf(stderr, "%sgraft-bench: cannot load rules '%s'\n", buf ? buf : "", path);
    free(buf);
    return lw;
}

/* The phases that change the graph, in graft run's order, then printing. */
static bool run_phases(Bench *b)
{
    graft_diag *d = diag_new(stderr);
    graft_engine *e = engine_new(b->rs, b->g, NULL);
    double t0 = bench_now();
    bool ok = engine_rewrite(e, d);
    double t1 = bench_now();
    engine_partition(e);
    double t2 = bench_now();
    const char *keep = getenv("GRAFT_BENCH_OUTPUT"); /* to compare builds */
    FILE *sink = fopen(keep ? keep : "/dev/null", "w");
    relay_print(b->g, sink ? sink : stdout);
    if (sink)
        fclose(sink);
    double t3 = bench_now();
    const Stats *s = engine_stats(e);
    printf(" rewrite_s=%.6f partition_s=%.6f print_s=%.6f rewrites=%llu groups=%llu"
           " labelled=%llu",
           t1 - t0, t2 - t1, t3 - t2, (unsigned long long)s->rewrites,
           (unsigned long long)s->groups, (unsigned long long)s->labelled);
    engine_free(e);
    diag_free(d);
    return ok;
}

int bench_graph(const ModelKit *kit, uint64_t nops, const char *rules_path)
{
    uint64_t ops;
    Lowered *lw = load_rules(rules_path, NULL);
    if (!lw)
        return 1;
    printf("graph blocks=%s", kit->origin);
    graft_graph *g = load_model(kit, nops, &ops);
    if (!g) {
        lower_free(lw);
        return 1;
    }
    Bench b = {.g = g, .rs = &lw->rs};
    bool small = ops < 2000000;
    printf(" traverse_s=%.9f", time_phase(phase_traverse, &b, small));
    printf(" order_s=%.9f", time_phase(phase_order, &b, small));
    printf(" label_s=%.9f", time_phase(phase_label, &b, small));
    printf(" match_s=%.9f", time_phase(phase_match, &b, small));
    printf(" naive_s=%.9f", time_phase(phase_naive, &b, small));
    printf(" matches=%llu naive_matches=%llu", (unsigned long long)b.matches,
           (unsigned long long)b.naive_matches);
    flat_phases(&b, small);
    bool ok = run_phases(&b);
    printf(" peak_rss=%zu checksum=%llu\n", bench_peak_rss(),
           (unsigned long long)(b.checksum & 0xffff));
    graph_free(g);
    lower_free(lw);
    return ok ? 0 : 1;
}

int bench_model_file(const char *model_path, const char *rules_path)
{
    Lowered *lw = load_rules(rules_path, NULL);
    graft_graph *g = lw ? model_file_load(model_path) : NULL;
    if (!g) {
        lower_free(lw);
        return 1;
    }
    Bench b = {.g = g, .rs = &lw->rs};
    printf("model ops=%u nodes=%u graph_bytes=%zu", model_op_count(g), graph_live_count(g),
           graph_bytes(g));
    printf(" traverse_s=%.9f", time_phase(phase_traverse, &b, true));
    printf(" order_s=%.9f", time_phase(phase_order, &b, true));
    printf(" label_s=%.9f", time_phase(phase_label, &b, true));
    printf(" match_s=%.9f", time_phase(phase_match, &b, true));
    printf(" matches=%llu", (unsigned long long)b.matches);
    flat_phases(&b, true);
    printf(" checksum=%llu\n", (unsigned long long)(b.checksum & 0xffff));
    graph_free(g);
    lower_free(lw);
    return 0;
}

/* One rule count: compile, then match with graft and the naive matcher. */
static bool rulescale_one(Bench *b, uint32_t n)
{
    StrBuf text = {0};
    rules_generate(n, &text);
    double t0 = bench_now();
    Lowered *lw = load_rules("generated.graft", text.data);
    double t1 = bench_now();
    strbuf_free(&text);
    if (!lw)
        return false;
    b->rs = &lw->rs;
    printf("rules n=%u compile_s=%.6f items=%u preds=%u", n, t1 - t0, lw->rs.nitems,
           lw->rs.npreds);
    printf(" label_s=%.9f", time_phase(phase_label, b, true));
    printf(" match_s=%.9f", time_phase(phase_match, b, true));
    printf(" naive_s=%.9f", time_phase(phase_naive, b, true));
    graft_engine *e = engine_new(b->rs, b->g, NULL);
    b->matches = 0;
    engine_match_roots(e, count_match, b);
    const Stats *s = engine_stats(e);
    printf(" matches=%llu naive_matches=%llu states=%u transitions=%u\n",
           (unsigned long long)b->matches, (unsigned long long)b->naive_matches,
           s->states, s->transitions);
    engine_free(e);
    lower_free(lw);
    return true;
}

int bench_rulescale(const ModelKit *kit, uint64_t nops, char **counts, int ncounts)
{
    uint64_t ops;
    printf("model blocks=%s", kit->origin);
    graft_graph *g = load_model(kit, nops, &ops);
    if (!g)
        return 1;
    Bench b = {.g = g};
    printf(" traverse_s=%.9f", time_phase(phase_traverse, &b, true));
    printf(" order_s=%.9f\n", time_phase(phase_order, &b, true));
    int rc = 0;
    for (int i = 0; i < ncounts && rc == 0; i++) {
        unsigned long n = strtoul(counts[i], NULL, 10);
        if (n == 0 || n > 100000 || !rulescale_one(&b, (uint32_t)n))
            rc = 1;
    }
    graph_free(g);
    return rc;
}

int bench_compiled(const ModelKit *kit, uint64_t nops, const graft_rule_set *rs, uint32_t n)
{
    uint64_t ops;
    printf("compiled n=%u", n);
    graft_graph *g = load_model(kit, nops, &ops);
    if (!g)
        return 1;
    Bench b = {.g = g, .rs = rs};
    printf(" label_s=%.9f", time_phase(phase_label, &b, true));
    printf(" match_s=%.9f", time_phase(phase_match, &b, true));
    printf(" matches=%llu\n", (unsigned long long)b.matches);
    graph_free(g);
    return 0;
}
