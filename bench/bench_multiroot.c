/* bench_multiroot.c - what rules of several roots cost the matcher (make
 * bench-multiroot; results in bench/RESULTS.md, "Rules of several roots").
 *
 * Per node, what graft run's passes do before they rewrite: label the
 * node (one automaton step) and try every rule its state offers (all of
 * them, as the passes of one round do, each its own).  Three rule sets:
 * a base of rewrite files (transformer, simplify, fold_bn, lower_dot),
 * the base with stdpatterns/multiroot.graft (six rules, five of several
 * roots), and the base with bench/rules/multiroot_single.graft (each of
 * those roots as a rule of one root: the k single-root rules a rule of k
 * roots is measured against).  On the generated workload, a chain of
 * dense layers with constant weights, every dense is a candidate of the
 * Q/K/V and K/V merges' first root and none has a sibling, so those rules
 * never match and pay the whole search for their later roots; then on the
 * transformer models of the corpus given as arguments.  CPU time, best of
 * seven runs.  Each rule set is matched by a function of its own
 * (match_base, match_multi, match_single), so that callgrind's inclusive
 * count of each is that set's instructions, free of the machine's noise
 * (bench/multiroot_instructions.sh; -n leaves the generated workload out,
 * to measure one model per process).
 *
 *   bench_multiroot SRCDIR [-n] [MODEL.relay...]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "automaton.h"
#include "frontend.h"
#include "graph.h"
#include "lower.h"
#include "match.h"
#include "relay.h"

enum { BLOCKS = 20000, REPS = 7, NSETS = 3 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One layer: dense by a constant 64x64 weight, relu, a residual add and a
 * scale by a scalar constant. */
static graft_node *layer(graft_graph *g, graft_node *x, int i)
{
    static const int64_t dims[2] = {64, 64};
    char name[48];
    snprintf(name, sizeof name, "meta[relay.Constant][%d]", i);
    graft_node *args[2] = {x, graph_add_tensor_const(g, name, graph_type_tensor(g, "float32",
                                                                                 dims, 2),
                                                     NULL, 0)};
    graft_node *d = graph_add_call(g, "nn.dense", args, 2, NULL, 0);
    graft_node *r = graph_add_call(g, "nn.relu", &d, 1, NULL, 0);
    graft_node *pair[2] = {r, x};
    pair[0] = graph_add_call(g, "add", pair, 2, NULL, 0);
    pair[1] = graph_add_const(g, "0.5f", 0.5, "float32");
    return graph_add_call(g, "multiply", pair, 2, NULL, 0);
}

static graft_graph *generated(void)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "input", NULL);
    for (int i = 0; i < BLOCKS; i++)
        x = layer(g, x, i);
    graph_set_output(g, x);
    return g;
}

static Lowered *rules(const char *srcdir, int set)
{
    static const char *const base[] = {"transformer", "simplify", "fold_bn", "lower_dot"};
    char paths[6][512];
    const char *p[6];
    int n = 0;
    for (; n < 4; n++)
        snprintf(paths[n], sizeof paths[n], "%s/stdpatterns/%s.graft", srcdir, base[n]);
    if (set == 1)
        snprintf(paths[n++], sizeof paths[0], "%s/stdpatterns/multiroot.graft", srcdir);
    if (set == 2)
        snprintf(paths[n++], sizeof paths[0], "%s/bench/rules/multiroot_single.graft", srcdir);
    for (int i = 0; i < n; i++)
        p[i] = paths[i];
    FILE *quiet = fopen("/dev/null", "w"); /* the single-root copies shadow each other */
    graft_diag *d = diag_new(quiet);
    RuleFile *rf = frontend_load(p, n, NULL, d);
    Lowered *lw = rf ? lower_rules(rf, d) : NULL;
    rulefile_free(rf);
    diag_free(d);
    fclose(quiet);
    if (!lw) {
        fprintf(stderr, "bench_multiroot: the rules of set %d did not load\n", set);
        exit(1);
    }
    return lw;
}

/* Labels every node and tries every rule offered at it; the tries. */
static uint64_t match_all(const graft_rule_set *rs, graft_graph *g, graft_node **order,
                          uint32_t n, uint64_t *found)
{
    Automaton *a = automaton_new(rs);
    Labels *l = labels_new(a, g);
    for (uint32_t i = 0; i < n; i++)
        labels_node(l, order[i]);
    Matcher *m = matcher_new(l, g);
    uint64_t tries = 0;
    *found = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t nr;
        const uint32_t *cand = automaton_state_rules(a, labels_state(l, order[i]), &nr);
        for (uint32_t k = 0; k < nr; k++, tries++)
            *found += matcher_try(m, cand[k], order[i]) == MATCH_OK;
    }
    matcher_free(m);
    labels_free(l);
    automaton_free(a);
    return tries;
}

/* Each rule set's matching in a function of its own, for callgrind. */
__attribute__((noinline)) static uint64_t match_base(const graft_rule_set *rs, graft_graph *g,
                                                     graft_node **order, uint32_t n,
                                                     uint64_t *found)
{
    return match_all(rs, g, order, n, found);
}

__attribute__((noinline)) static uint64_t match_multi(const graft_rule_set *rs, graft_graph *g,
                                                      graft_node **order, uint32_t n,
                                                      uint64_t *found)
{
    return match_all(rs, g, order, n, found);
}

__attribute__((noinline)) static uint64_t match_single(const graft_rule_set *rs, graft_graph *g,
                                                       graft_node **order, uint32_t n,
                                                       uint64_t *found)
{
    return match_all(rs, g, order, n, found);
}

typedef uint64_t (*MatchSet)(const graft_rule_set *, graft_graph *, graft_node **, uint32_t,
                             uint64_t *);

/* One row: ns per node of each rule set, and the ratios to the base. */
static void measure(const char *what, graft_graph *g, Lowered *const *sets)
{
    graft_node **order = malloc((graph_node_count(g) + 1) * sizeof *order);
    uint32_t n = graph_topo_order(g, order);
    double best[NSETS];
    uint64_t tries[NSETS], found[NSETS];
    for (int s = 0; s < NSETS; s++) {
        best[s] = 1e30;
        for (int r = 0; r < REPS; r++) {
            double t0 = now();
            static const MatchSet match[NSETS] = {match_base, match_multi, match_single};
            tries[s] = match[s](&sets[s]->rs, g, order, n, &found[s]);
            double t = now() - t0;
            best[s] = t < best[s] ? t : best[s];
        }
    }
    printf("| %s | %u | %.1f | %.1f (%.2fx) | %.1f (%.2fx) | %llu / %llu / %llu | "
           "%llu / %llu / %llu |\n", what, n, best[0] * 1e9 / n, best[1] * 1e9 / n,
           best[1] / best[0], best[2] * 1e9 / n, best[2] / best[0],
           (unsigned long long)tries[0], (unsigned long long)tries[1],
           (unsigned long long)tries[2], (unsigned long long)found[0],
           (unsigned long long)found[1], (unsigned long long)found[2]);
    free(order);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_multiroot SRCDIR [-n] [MODEL.relay...]\n");
        return 2;
    }
    Lowered *sets[NSETS];
    for (int s = 0; s < NSETS; s++)
        sets[s] = rules(argv[1], s);
    printf("| graph | nodes | base ns/node | + multiroot.graft | + the roots as single-root "
           "rules | tries (base / multi / single) | matches (base / multi / single) |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|\n");
    bool models_only = argc > 2 && strcmp(argv[2], "-n") == 0;
    if (!models_only) {
        graft_graph *g = generated();
        measure("generated: 20,000 dense layers", g, sets);
        graph_free(g);
    }
    for (int i = 2 + models_only; i < argc; i++) {
        graft_diag *d = diag_new(stderr);
        Source *src = source_read(argv[i], d);
        graft_graph *m = src ? relay_load(src, d) : NULL;
        if (m) {
            const char *slash = strrchr(argv[i], '/');
            measure(slash ? slash + 1 : argv[i], m, sets);
            graph_free(m);
        }
        source_free(src);
        diag_free(d);
    }
    for (int s = 0; s < NSETS; s++)
        lower_free(sets[s]);
    return 0;
}
