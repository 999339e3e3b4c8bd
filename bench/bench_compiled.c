/* bench_compiled.c - measurements of a compiled rule set.
 *
 * bench/run.sh and bench/corpus.sh compile a rule file with `graft
 * compile --name bench_rules` and link this file, the generated C and
 * graft-bench's measuring code into one program:
 *
 *   graft-bench-compiled NOPS N      the rule-count measurement of the
 *                                    generated set of N rules: one
 *                                    "compiled ..." line
 *   graft-bench-compiled corpus RULES MODEL...
 *                                    per model, graft match of the same
 *                                    rules interpreted (RULES, lowered
 *                                    here) and compiled: one "corpus ..."
 *                                    line each (note [corpus ratio])
 *
 * The first is the same measurement as the interpreted rows
 * (bench_rulescale), on the tables and functions graft compile emitted.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_run.h"
#include "engine.h"
#include "frontend.h"
#include "lower.h"
#include "relay.h"

extern const graft_rule_set bench_rules;

/* note [corpus ratio]: the corpus models are small (a few thousand
 * nodes), so a match is tens of microseconds and what a rule set costs
 * per graph (building the automaton, its states and tables) weighs as
 * much as what it costs per node.  Each run is what graft match does for
 * one model once both are loaded: a fresh engine, labelling, verifying,
 * listing.  A sample is BATCH runs in a row, timed together (a single
 * run is too short for the CPU clock of a virtual machine: its fastest
 * single runs were faster than the instructions allow), and the two
 * forms of the same rules take turns sample by sample, so that a change
 * in the machine's load falls on both; each reports its fastest sample
 * divided by BATCH.  Under callgrind (GRAFT_BENCH_ONCE set) each form
 * runs BATCH times inside its own function, form_interpreted or
 * form_compiled, whose inclusive count bench/corpus.sh divides by
 * BATCH. */
enum { BATCH = 10 };

typedef struct Side {
    const graft_rule_set *rs; /* the rules */
    double best;       /* fastest sample, seconds per run */
    uint64_t matches;  /* matches listed by the last run */
} Side;

static void count_match(void *ctx, uint32_t rule, graft_node *root)
{
    (void)rule, (void)root;
    (*(uint64_t *)ctx)++;
}

static void match_runs(Side *s, graft_graph *g)
{
    double t0 = bench_now();
    for (int i = 0; i < BATCH; i++) {
        graft_engine *e = engine_new(s->rs, g, NULL);
        s->matches = 0;
        engine_match_roots(e, count_match, &s->matches);
        engine_free(e);
    }
    double t = (bench_now() - t0) / BATCH;
    if (s->best == 0 || t < s->best)
        s->best = t;
}

/* One function per form, kept out of line so that callgrind counts each
 * on its own (--inclusive=yes) under its own name: GCC would otherwise
 * fold the two identical bodies into one (identical code folding). */
#if defined(__GNUC__) && !defined(__clang__)
#define OWN_FRAME __attribute__((noipa))
#else
#define OWN_FRAME __attribute__((noinline))
#endif

OWN_FRAME static void form_interpreted(Side *s, graft_graph *g)
{
    match_runs(s, g);
}

OWN_FRAME static void form_compiled(Side *s, graft_graph *g)
{
    match_runs(s, g);
}

static Lowered *lower_file(const char *path)
{
    graft_diag *d = diag_new(stderr);
    RuleFile *rf = frontend_load(&path, 1, NULL, d);
    Lowered *lw = rf ? lower_rules(rf, d) : NULL;
    rulefile_free(rf);
    diag_free(d);
    return lw;
}

/* One model: at least 20 samples of each form and 0.5 s in all (under
 * callgrind, one). */
static int corpus_model(const char *path, const graft_rule_set *interp)
{
    graft_graph *g = model_file_load(path);
    if (!g)
        return 1;
    Side in = {.rs = interp}, co = {.rs = &bench_rules};
    bool once = getenv("GRAFT_BENCH_ONCE") != NULL;
    double start = bench_now();
    for (int samples = 1; samples <= 2000; samples++) {
        form_interpreted(&in, g);
        form_compiled(&co, g);
        if (once || (samples >= 20 && bench_now() - start > 0.5))
            break;
    }
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    printf("corpus model=%.*s nodes=%u interp_s=%.9f compiled_s=%.9f matches=%llu"
           " compiled_matches=%llu\n",
           (int)strcspn(name, "."), name, graph_node_count(g), in.best, co.best,
           (unsigned long long)in.matches, (unsigned long long)co.matches);
    graph_free(g);
    return 0;
}

static int corpus(int argc, char **argv)
{
    Lowered *lw = lower_file(argv[2]);
    if (!lw)
        return 1;
    int rc = 0;
    for (int i = 3; i < argc && rc == 0; i++)
        rc = corpus_model(argv[i], &lw->rs);
    lower_free(lw);
    return rc;
}

int main(int argc, char **argv)
{
    ModelKit kit;
    const char *corpus_dir = getenv("GRAFT_BENCH_CORPUS");
    const char *blocks = getenv("GRAFT_BENCH_BLOCKS");
    if (argc >= 4 && strcmp(argv[1], "corpus") == 0)
        return corpus(argc, argv);
    if (argc != 3) {
        fputs("usage: graft-bench-compiled NOPS NRULES\n"
              "       graft-bench-compiled corpus RULES MODEL...\n", stderr);
        return 2;
    }
    if (!model_kit_load(&kit, corpus_dir, blocks ? blocks : "bench/blocks"))
        return 1;
    int rc = bench_compiled(&kit, strtoull(argv[1], NULL, 10), &bench_rules,
                            (uint32_t)strtoul(argv[2], NULL, 10));
    model_kit_free(&kit);
    return rc;
}
