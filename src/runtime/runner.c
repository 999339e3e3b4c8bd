/* runner.c - graft run's options and steps, shared with compiled
 * rewriters (runner.h). */
#include "runner.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "fold.h"
#include "onnx_file.h"
#include "options.h"
#include "outfile.h"
#include "relay.h"
#include "subgraph_rules.h"

const char runner_options_help[] =
    "  -o OUT            write to OUT (atomically; '-' is standard output)\n"
    "  --stats           per rule on standard error: how often it was tried at\n"
    "                    a node, matched, applied, refused and why, and time\n"
    "  --stats=counts    the same without times (deterministic output)\n"
    "  --trace           print each rewrite and group to standard error\n"
    "  --max-rewrites N  stop after N rewrites and report the rules still\n"
    "                    firing (default: 10 per node plus 1000); the same as\n"
    "                    --limit rewrites=N\n"
    "  --verify          first evaluate MODEL and its rewritten form on the same\n"
    "                    random inputs (typed parameters) and report on standard\n"
    "                    error the largest difference per output; past float\n"
    "                    tolerance, the first rewrite that made it so, and no\n"
    "                    output\n"
    "  --verify=layers   the same, and each layer's activation RMS\n"
    "  --dim NAME=N      with --verify: graph inputs' dim NAME (ONNX's dim_param)\n"
    "                    is N; a named dim not given is 2, 3, 4, ... in the\n"
    "                    order the inputs name them\n"
    "  --fold-constants  after rewriting, replace every node whose operands are\n"
    "                    all constants by its value (tensors up to --limit\n"
    "                    fold-elements=N elements; in Relay a tensor becomes a\n"
    "                    new meta[relay.Constant] of the #[metadata] section)\n";

const char runner_explain_help[] =
    "  --at NODE         explain each rule (or --rule's) with NODE as root: a\n"
    "                    name as graft fmt prints it (%5, %x, <output>) or a\n"
    "                    model position (model.relay:42, :42:7)\n"
    "  --rule NAME       only this rule; without --at its best partial matches\n"
    "  --near N          how many partial matches to list (default 5)\n"
    "  --check-all       check explain against match at every node\n"
    "  --rewritten       explain the model as the rewrite rules leave it (before\n"
    "                    partitioning; nodes named as graft run would print them)\n";

/* --near N: a count from 1 to a million. */
static int parse_near(const char *prog, const char *s, RunOptions *o)
{
    char *end;
    errno = 0;
    unsigned long n = strtoul(s, &end, 10);
    if (errno || *end || end == s || *s == '-' || n == 0 || n > 1000000)
        return options_usage_error(prog, "'--near' needs a count from 1 to 1000000, not '%s'",
                                   s);
    o->near = (uint32_t)n;
    return -1;
}

int runner_parse_explain_option(const char *prog, int argc, char **argv, int *i,
                                RunOptions *o)
{
    const char *arg = argv[*i];
    if (strcmp(arg, "--check-all") == 0 || strcmp(arg, "--rewritten") == 0) {
        if (arg[2] == 'c')
            o->check_all = true;
        else
            o->rewritten = true;
        return -1;
    }
    if (strcmp(arg, "--at") && strcmp(arg, "--rule") && strcmp(arg, "--near"))
        return OPTION_NOT_MINE;
    if (++*i == argc)
        return options_usage_error(prog, "option '%s' needs a value", arg);
    if (strcmp(arg, "--at") == 0)
        o->at = argv[*i];
    else if (strcmp(arg, "--rule") == 0)
        o->rule = argv[*i];
    else
        return parse_near(prog, argv[*i], o);
    return -1;
}

bool runner_explaining(const RunOptions *o)
{
    return o->at || o->rule || o->check_all;
}

int runner_check_options(const char *prog, const RunOptions *o)
{
    if (o->ndims && !o->verify)
        return options_usage_error(prog, "--dim goes with --verify");
    if (o->rewritten && !runner_explaining(o))
        return options_usage_error(prog, "--rewritten goes with --at NODE or --rule NAME");
    if (o->near && (o->at || !o->rule))
        return options_usage_error(prog, "--near goes with --rule NAME alone (no --at)");
    return -1;
}

/* The positive decimal number s spells, at most max, in *v; false for
 * anything else (a sign, a trailing byte, 0, an overflow). */
static bool positive_number(const char *s, unsigned long long max, unsigned long long *v)
{
    char *end;
    errno = 0;
    *v = strtoull(s, &end, 10);
    return !errno && !*end && *s && *s != '-' && *v != 0 && *v <= max;
}

/* --dim NAME=N: a name and a positive decimal count, kept as given
 * (note [named dims in verify] in runner_verify.c reads it). */
static int parse_dim(const char *prog, int argc, char **argv, int *i, RunOptions *o)
{
    if (++*i == argc)
        return options_usage_error(prog, "option '--dim' needs NAME=N");
    const char *s = argv[*i], *eq = strchr(s, '=');
    unsigned long long v;
    if (!eq || eq == s || !positive_number(eq + 1, INT32_MAX, &v))
        return options_usage_error(prog, "'--dim' needs NAME=N, N a positive number, not '%s'",
                                   s);
    if (o->ndims == RUNNER_MAX_DIMS)
        return options_usage_error(prog, "at most %d '--dim' options", RUNNER_MAX_DIMS);
    o->dims[o->ndims++] = s;
    return -1;
}

/* --max-rewrites N: a positive decimal count. */
static int parse_max_rewrites(const char *prog, int argc, char **argv, int *i,
                              RunOptions *o)
{
    if (++*i == argc)
        return options_usage_error(prog, "option '--max-rewrites' needs a number");
    const char *s = argv[*i];
    unsigned long long v;
    if (!positive_number(s, ULLONG_MAX, &v))
        return options_usage_error(prog, "'--max-rewrites' needs a positive number, not '%s'",
                                   s);
    o->limits.rewrites = v;
    return -1;
}

int runner_parse_option(const char *prog, int argc, char **argv, int *i, RunOptions *o)
{
    const char *arg = argv[*i];
    if (strcmp(arg, "-o") == 0) {
        if (++*i == argc)
            return options_usage_error(prog, "option '-o' needs a file name");
        o->out = argv[*i];
    } else if (strcmp(arg, "--stats") == 0) {
        o->stats = 2;
    } else if (strcmp(arg, "--stats=counts") == 0) {
        o->stats = 1;
    } else if (strcmp(arg, "--trace") == 0) {
        o->trace = true;
    } else if (strcmp(arg, "--verify") == 0 || strcmp(arg, "--verify=layers") == 0) {
        o->verify = true;
        o->verify_layers = arg[8] == '=';
    } else if (strcmp(arg, "--fold-constants") == 0) {
        o->fold_constants = true;
    } else if (strcmp(arg, "--max-rewrites") == 0) {
        return parse_max_rewrites(prog, argc, argv, i, o);
    } else if (strcmp(arg, "--dim") == 0) {
        return parse_dim(prog, argc, argv, i, o);
    } else {
        int rc = runner_parse_explain_option(prog, argc, argv, i, o);
        return rc != OPTION_NOT_MINE ? rc : options_parse_limit(prog, argc, argv, i, &o->limits);
    }
    return -1;
}

static bool write_model(const graft_graph *g, const RunOptions *o, graft_diag *d)
{
    OutFile *of = outfile_open(o->out, d);
    if (!of)
        return false;
    if (o->write && !o->write(o->write_ctx, g, outfile_stream(of), d)) {
        outfile_abort(of);
        return false;
    }
    if (!o->write)
        relay_print(g, outfile_stream(of));
    return outfile_commit(of, d);
}

OnnxModel *runner_onnx_model(const RunOptions *o)
{
    return o->write == onnx_file_write ? ((const OnnxOut *)o->write_ctx)->model : NULL;
}

/* note [memory before the output]: the peak of a run comes while its
 * output is written, the writer's tables on top of the graph, so what
 * the passes leave that no writer reads goes first: the blocks of dead
 * nodes (note [dead blocks] in graph_compact.c) and the positions, which
 * serve the passes' messages and traces only (neither writer reports a
 * position).  A run whose passes name no node (no --trace, no --stats)
 * drops the positions before them: the workload's rewrite and partition
 * peak in their passes, and the positions were 1.33 MB of both peaks
 * under massif (0.96 MB, and the 0.37 MB cut from them when loading was
 * done, which massif still counts: note [node table] in graph.c).  The
 * engine goes too, its statistics kept first: its automaton, labels and
 * matcher serve the passes only (160,280 bytes of the partition's
 * peak, which comes while its output is printed). */
static void release_pass_memory(graft_graph *g, const RunOptions *o)
{
    graph_release_dead(g);
    graph_drop_positions(g);
    if (!o->write) { /* Relay's printer reads neither (the ONNX writer reads scopes) */
        graph_drop_scopes(g); /* note [scopes dropped before printing] */
        graph_drop_name_table(g);
    }
}

bool runner_run(const graft_rule_set *rs, graft_graph *g, const RunOptions *o, graft_diag *d)
{
    EngineOptions opts = {.trace = o->trace ? stderr : NULL, .limits = &o->limits,
                          .model = o->model, .refusals = o->stats != 0,
                          .untimed = o->stats != 2};
    OnnxModel *onnx = runner_onnx_model(o);
    Stats all; /* the main graph's and its subgraphs' */
    stats_init(&all, rs->nrules);
    bool ok = !onnx || subgraph_rules_run(rs, onnx, &opts, &all, d); /* note [rules in subgraphs] */
    graft_engine *e = ok ? engine_new(rs, g, &opts) : NULL;
    if (e && !engine_names_positions(e)) /* note [memory before the output] */
        graph_drop_positions(g);
    ok = ok && engine_run(e, d);
    uint64_t folded = ok && o->fold_constants ? fold_constants(g, o->limits.fold_elements) : 0;
    if (ok)
        release_pass_memory(g, o);
    bool ran = e != NULL;
    if (e && o->stats)
        stats_add(&all, engine_stats(e), false);
    engine_free(e); /* before the output (note [memory before the output]) */
    ok = ok && write_model(g, o, d);
    if (ran && o->stats)
        stats_print(&all, rs, stderr, o->stats == 2);
    if (ran && o->stats && o->fold_constants)
        fprintf(stderr, "constants folded: %llu nodes\n", (unsigned long long)folded);
    stats_free(&all);
    return ok;
}
