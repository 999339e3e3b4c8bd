/* rewriter_main.c - the main of a standalone rewriter built by
 * `graft compile --exe` (graft.h).  It does what graft run does
 * (src/cli/cmd_run.c) with a compiled rule set, through the same runner.h:
 * the same options, output, statistics and exit status.  A rule set for
 * ONNX reads and writes ONNX models, binary or text, through the reader
 * and writer graft run uses (src/onnx/onnx_file.h). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "graft.h"
#include "input_kind.h"
#include "onnx_file.h"
#include "options.h"
#include "outfile.h"
#include "relay.h"
#include "runner.h"
#include "runner_verify.h"

static void print_help(const char *prog)
{
    printf("usage: %s MODEL [-o OUT] [--stats[=counts]] [--trace] [--max-rewrites N]\n"
           "       [--limit NAME=N] [--verify[=layers]] [--allow-unknown-ops]\n"
           "       %s MODEL --at NODE [--rule NAME] | --rule NAME [--near N] | --check-all\n"
           "\n"
           "Apply the rules compiled into this program to MODEL (a .relay file, or\n"
           "for rules for ONNX an .onnx or .onnxtxt file) and print the result, as\n"
           "graft run does; an ONNX model is written to -o FILE.onnx, or else in\n"
           "ONNX's text syntax.  '-' reads standard input.  With --at, --rule or\n"
           "--check-all, explain instead, as graft explain does.\n"
           "\n"
           "options:\n", prog, prog);
    fputs(runner_options_help, stdout);
    fputs(runner_explain_help, stdout);
    fputs("  --allow-unknown-ops  read an ONNX model's calls of ops the rules do not\n"
          "                    declare unchecked\n", stdout);
    fputs(options_limit_help, stdout);
    fputs("  --help            show this help\n"
          "\n"
          "Exit status: 0 success, 1 bad input or no fixpoint, 2 bad usage.\n", stdout);
}

/* Options of one run; strings point into argv. */
typedef struct StandaloneArgs {
    const char *prog;  /* argv[0], for messages */
    const char *model; /* the model file */
    RunOptions opts;   /* -o, --stats, --trace, limits */
    bool allow_unknown_ops; /* --allow-unknown-ops */
} StandaloneArgs;

/* Returns -1 when the arguments are fine, else the exit status. */
static int parse_args(int argc, char **argv, StandaloneArgs *a)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_help(a->prog);
            return EXIT_OK;
        }
        if (strcmp(arg, "--allow-unknown-ops") == 0) {
            a->allow_unknown_ops = true;
            continue;
        }
        int rc = runner_parse_option(a->prog, argc, argv, &i, &a->opts);
        if (rc == OPTION_NOT_MINE && arg[0] == '-' && arg[1] != '\0')
            return options_usage_error(a->prog, "unknown option '%s'", arg);
        if (rc == OPTION_NOT_MINE && a->model)
            return options_usage_error(a->prog, "only one MODEL, not '%s' too", arg);
        if (rc == OPTION_NOT_MINE)
            a->model = arg;
        else if (rc >= 0)
            return rc;
    }
    if (!a->model)
        return options_usage_error(a->prog, "need a MODEL");
    int bad = runner_check_options(a->prog, &a->opts);
    if (bad >= 0)
        return bad;
    if (a->opts.verify && input_kind_of_file(a->model) == INPUT_ONNX)
        return options_usage_error(a->prog, "'%s' is an ONNX model; --verify reads Relay "
                                   "models only so far", a->model);
    if (outfile_same_file(a->opts.out, a->model)) /* note [input never overwritten] */
        return options_usage_error(a->prog, "output '%s' is the input '%s'; refusing to "
                                   "overwrite it", a->opts.out, a->model);
    return -1;
}

/* The Relay model a->model, or NULL after reporting (rules for ONNX do
 * not run on it, as in graft run); *src gets its text. */
static graft_graph *load_relay(const graft_rule_set *rs, const StandaloneArgs *a, Source **src,
                               graft_diag *d)
{
    *src = source_read(a->model, d);
    if (*src && rs->onnx_opset) {
        diag_plain_error(d, "'%s' is a Relay model, but the rules are for ONNX ('opset onnx "
                         "%d')", a->model, rs->onnx_opset);
        return NULL;
    }
    return *src ? relay_load_limited(*src, &a->opts.limits, d) : NULL;
}

/* Loads the model, runs the rules, writes the result and statistics. */
static bool run(const graft_rule_set *rs, const StandaloneArgs *a, graft_diag *d)
{
    Source *src = NULL;
    OnnxModel *onnx = NULL;
    graft_graph *g;
    if (input_kind_of_file(a->model) == INPUT_ONNX) {
        onnx = onnx_file_load(a->model, &a->opts.limits, rs, a->allow_unknown_ops, d);
        g = onnx ? onnx->g : NULL;
        src = g ? source_from_string(a->model, "", 0) : NULL; /* a name for messages */
    } else
        g = load_relay(rs, a, &src, d);
    RunOptions o = a->opts;
    o.model = src ? src->name : a->model;
    OnnxOut onnx_out = {onnx, !onnx_file_binary_output(o.out)};
    if (onnx) {
        o.write = onnx_file_write;
        o.write_ctx = &onnx_out;
    }
    bool ok = g && (runner_explaining(&o) ? runner_explain(rs, g, src, &o, d) == EXIT_OK
                                          : (!o.verify || runner_verify(rs, src, &o, d)) &&
                                                runner_run(rs, g, &o, d));
    if (onnx)
        onnx_graph_free(onnx); /* its graph too */
    else
        graph_free(g);
    source_free(src);
    return ok;
}

int graft_standalone_main(const graft_rule_set *rs, int argc, char **argv)
{
    StandaloneArgs a = {.prog = argc > 0 ? argv[0] : "rewriter"};
    /* A file size limit must fail the write (reported, temporary file
     * removed), not kill the program midway (note [atomic output]). */
    signal(SIGXFSZ, SIG_IGN);
    a.opts.limits = limit_defaults;
    int rc = options_env_limits(a.prog, &a.opts.limits);
    if (rc < 0)
        rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    graft_diag *d = diag_new(stderr);
    diag_set_error_limit(d, a.opts.limits.errors);
    rc = run(rs, &a, d) ? EXIT_OK : EXIT_BAD_INPUT;
    diag_free(d);
    return rc;
}
