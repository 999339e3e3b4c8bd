/* bench_match.c - the automaton's matching cost per node against the
 * number of rules (make bench-automaton; results in doc/automaton.md,
 * "Measurements").  The project's full benchmarks are bench/bench.am.
 *
 * Builds a ResNet-like graph of about 120,000 nodes (conv2d, batch_norm,
 * relu, add, clip, multiply, with weight parameters and scalar
 * constants) and rule sets of 1, 10, 100 and 500 partition rules of the
 * shapes real rule files have (op chains with attribute constraints,
 * constants, alternatives, commutative ops).  For each rule set it times
 * what graft run does per node: label the node (one automaton step) and
 * verify candidate rules best first until one matches.  For comparison it
 * also times the naive design, one automaton per rule, whose cost grows
 * with the number of rules.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "automaton.h"
#include "frontend.h"
#include "graph.h"
#include "lower.h"
#include "match.h"

enum { BLOCKS = 9000 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: less noise on a busy machine */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static graft_attr_value *int_list(graft_graph *g, int a, int b)
{
    graft_attr_value *v = graph_new_attr_value(g, GRAFT_ATTR_LIST);
    graft_attr_value **items = arena_array(graph_arena(g), 2, sizeof *items);
    items[0] = graph_new_attr_value(g, GRAFT_ATTR_INT);
    items[0]->i = a;
    items[1] = graph_new_attr_value(g, GRAFT_ATTR_INT);
    items[1]->i = b;
    v->nitems = 2;
    v->items = (const graft_attr_value *const *)items;
    return v;
}

/* One block: conv2d -> batch_norm[0] -> relu -> (+ residual) -> clip or
 * multiply by a constant. */
static graft_node *block(graft_graph *g, graft_node *x, int i)
{
    char name[32];
    snprintf(name, sizeof name, "w%d", i);
    graft_node *w = graph_add_param(g, name, NULL);
    graft_attr_value *groups = graph_new_attr_value(g, GRAFT_ATTR_INT);
    groups->i = 1 + i % 3;
    graft_attr cattrs[] = {{"strides", int_list(g, 1 + i % 2, 1 + i % 2)},
                     {"padding", int_list(g, i % 4, i % 4)},
                     {"groups", groups}};
    graft_node *args[5] = {x, w};
    graft_node *c = graph_add_call(g, "nn.conv2d", args, 2, cattrs, 3);
    for (int k = 1; k < 5; k++) {
        snprintf(name, sizeof name, "bn%d_%d", i, k);
        args[k] = graph_add_param(g, name, NULL);
    }
    args[0] = c;
    graft_node *bn = graph_add_getitem(g, graph_add_call(g, "nn.batch_norm", args, 5, NULL, 0), 0);
    graft_node *r = graph_add_call(g, "nn.relu", &bn, 1, NULL, 0);
    graft_node *pair[2] = {r, x};
    graft_node *s = graph_add_call(g, "add", pair, 2, NULL, 0);
    pair[0] = s;
    pair[1] = graph_add_const(g, i % 2 ? "2f" : "0.5f", i % 2 ? 2 : 0.5, "float32");
    return graph_add_call(g, i % 5 ? "multiply" : "divide", pair, 2, NULL, 0);
}

static graft_graph *make_graph(void)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "input", NULL);
    for (int i = 0; i < BLOCKS; i++)
        x = block(g, x, i);
    graph_set_output(g, x);
    return g;
}

/* Rule k of a family of realistic shapes; constants vary with k so that
 * rules differ. */
static void rule_text(char *buf, size_t size, int k)
{
    static const char *const ops[] = {"nn.relu", "sigmoid", "tanh", "nn.relu", "exp"};
    int v = k / 8 + 1;
    switch (k % 8) {
    case 0: snprintf(buf, size, "r%d := nn.relu(nn.batch_norm(nn.conv2d(x, w, groups=%d), g, b, m, s)[0]) => partition\n", k, v); break;
    case 1: snprintf(buf, size, "r%d := add(nn.relu(y), x) * %d => partition\n", k, v); break;
    case 2: snprintf(buf, size, "r%d := nn.conv2d(x, w, strides=[%d, %d], padding=[%d, %d]) => partition\n", k, v % 3 + 1, v % 3 + 1, v % 5, v % 5); break;
    case 3: snprintf(buf, size, "r%d := %s(add(x, y)) / %d => partition\n", k, ops[v % 5], v); break;
    case 4: snprintf(buf, size, "r%d := nn.batch_norm(x, g, b, m, s)[0] * %d.5 => partition\n", k, v); break;
    case 5: snprintf(buf, size, "r%d := clip(nn.relu?(x), a_min=0, a_max=%d) => partition\n", k, v); break;
    case 6: snprintf(buf, size, "r%d := multiply(x, c:const) + %d => partition\n", k, v); break;
    default: snprintf(buf, size, "r%d := (nn.conv2d(x, w, groups=%d) | nn.dense(x, w)) + b => partition\n", k, v); break;
    }
}

static Lowered *make_rules(int n, int only)
{
    size_t cap = (size_t)n * 160 + 1;
    char *text = calloc(cap, 1), line[160];
    for (int k = 0; k < n; k++) {
        if (only >= 0 && k != only)
            continue;
        rule_text(line, sizeof line, k);
        strcat(text, line);
    }
    graft_diag *d = diag_new(stderr);
    RuleFile *rf = frontend_load_string("bench.graft", text, NULL, d);
    Lowered *lw = rf ? lower_rules(rf, d) : NULL;
    rulefile_free(rf);
    diag_free(d);
    free(text);
    if (!lw) {
        fprintf(stderr, "bench: rules did not load\n");
        exit(1);
    }
    return lw;
}

/* Labels every node (timed into *label) and then verifies candidates
 * best first at each node until one matches; returns the matches. */
static uint64_t match_all(const graft_rule_set *rs, graft_graph *g, graft_node **order, uint32_t n,
                          double *label)
{
    double t0 = now();
    Automaton *a = automaton_new(rs);
    Labels *l = labels_new(a, g);
    for (uint32_t i = 0; i < n; i++)
        labels_node(l, order[i]);
    *label = now() - t0;
    Matcher *m = matcher_new(l, g);
    uint64_t found = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t nr;
        const uint32_t *cand = automaton_state_rules(a, labels_state(l, order[i]), &nr);
        for (uint32_t k = 0; k < nr; k++)
            if (matcher_try(m, cand[k], order[i]) == MATCH_OK) {
                found++;
                break;
            }
    }
    matcher_free(m);
    labels_free(l);
    automaton_free(a);
    return found;
}

/* Best of reps runs: total time, and the labelling part of that run. */
static double best_of(int reps, const graft_rule_set *rs, graft_graph *g, graft_node **order, uint32_t n,
                      uint64_t *found, double *label)
{
    double best = 1e30, lab = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        *found = match_all(rs, g, order, n, &lab);
        double t = now() - t0;
        if (t < best) {
            best = t;
            *label = lab;
        }
    }
    return best;
}

/* The naive design: one automaton per rule, each labelling every node
 * (run up to 100 rules; beyond, it is just slow). */
static double naive_time(int nrules, graft_graph *g, graft_node **order, uint32_t n)
{
    if (nrules > 100)
        return 0;
    double total = 0;
    for (int k = 0; k < nrules; k++) {
        Lowered *one = make_rules(nrules, k);
        uint64_t found;
        double label = 0;
        total += best_of(1, &one->rs, g, order, n, &found, &label);
        lower_free(one);
    }
    return total;
}

static uint32_t count_states(const graft_rule_set *rs, graft_graph *g)
{
    Automaton *a = automaton_new(rs);
    Labels *l = labels_new(a, g);
    labels_all(l);
    uint32_t states = automaton_nstates(a);
    labels_free(l);
    automaton_free(a);
    return states;
}

/* bench_match [N]: all sizes, or only N rules (for profiling). */
int main(int argc, char **argv)
{
    graft_graph *g = make_graph();
    graft_node **order = malloc(graph_node_count(g) * sizeof *order);
    uint32_t n = graph_topo_order(g, order);
    int sizes[] = {1, 10, 100, 500};
    size_t nsizes = sizeof sizes / sizeof sizes[0];
    if (argc > 1) {
        sizes[0] = atoi(argv[1]);
        nsizes = 1;
    }
    printf("graph: %u nodes\n\n", n);
    printf("| rules | items | states | labelling ns/node | labelling + verifying ns/node "
           "| matches | one automaton per rule, ns/node |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|\n");
    double base = 0, lbase = 0;
    for (size_t s = 0; s < nsizes; s++) {
        Lowered *lw = make_rules(sizes[s], -1);
        uint64_t found;
        double label = 0;
        double t = best_of(7, &lw->rs, g, order, n, &found, &label);
        double naive = argc > 1 ? 0 : naive_time(sizes[s], g, order, n);
        if (s == 0) {
            base = t;
            lbase = label;
        }
        printf("| %d | %u | %u | %.1f (%.2fx) | %.1f (%.2fx) | %llu | ", sizes[s],
               lw->rs.nitems, count_states(&lw->rs, g), label * 1e9 / n, label / lbase,
               t * 1e9 / n, t / base, (unsigned long long)found);
        if (naive > 0)
            printf("%.1f |\n", naive * 1e9 / n);
        else
            printf("not run |\n");
        lower_free(lw);
    }
    free(order);
    graph_free(g);
    return 0;
}
