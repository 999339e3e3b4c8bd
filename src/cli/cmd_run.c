/* cmd_run.c - graft run RULES... MODEL [-o OUT] [--stats[=counts]] [--trace]:
 * apply the rules to a model and print the result (runner.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_load.h"
#include "input_kind.h"
#include "onnx_file.h"
#include "runner.h"
#include "runner_verify.h"
#include "util.h"

static const char run_usage[] =
    "usage: graft run RULES... MODEL [-o OUT] [--stats[=counts]] [--trace]\n"
    "                 [--max-rewrites N] [--limit NAME=N] [--verify[=layers]]\n"
    "\n"
    "Apply the rules of RULES (.graft files) to MODEL (a .relay file) and print\n"
    "the result.  An ONNX model (.onnx, or .onnxtxt: ONNX's text syntax) is\n"
    "written to -o FILE.onnx, or else in ONNX's text syntax.\n"
    "Rewrite rules run to a fixpoint first; then each partition rule makes one\n"
    "partition pass, best first.  '-' reads standard input.\n"
    "With --at, --rule or --check-all, explain instead, as graft explain does.\n"
    "\n"
    "options:\n";

static void print_help(void)
{
    fputs(run_usage, stdout);
    fputs(runner_options_help, stdout);
    fputs(runner_explain_help, stdout);
    fputs(cli_allow_unknown_help, stdout);
    fputs(cli_warning_help, stdout);
    fputs(options_limit_help, stdout);
    fputs("  --help            show this help\n"
          "\n"
          "Exit status: 0 success, 1 bad input or no fixpoint, 2 bad usage.\n", stdout);
}

/* Options of graft run; strings point into argv. */
typedef struct RunArgs {
    const char **paths; /* rule files, then the model */
    int npaths;         /* entries in paths */
    RunOptions opts;    /* -o, --stats, --trace, --verify, limits */
    bool allow_unknown_ops; /* --allow-unknown-ops */
    CliWarnings warnings;   /* -Werror, -Wno-NAME */
} RunArgs;

/* Returns -1 when the arguments are fine, else the exit status. */
static int parse_args(int argc, char **argv, RunArgs *a)
{
    a->paths = xcalloc((size_t)argc + 1, sizeof *a->paths);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_help();
            return EXIT_OK;
        }
        if (strcmp(arg, "--allow-unknown-ops") == 0) {
            a->allow_unknown_ops = true;
            continue;
        }
        int rc = strncmp(arg, "-I", 2) == 0 || strncmp(arg, "--diagnostics-format=", 21) == 0
                     ? cli_parse_limit("run", argc, argv, &i, &a->opts.limits)
                     : runner_parse_option("graft run", argc, argv, &i, &a->opts);
        if (rc == OPTION_NOT_MINE)
            rc = cli_parse_warning("run", arg, &a->warnings);
        if (rc == OPTION_NOT_MINE && arg[0] == '-' && arg[1] != '\0')
            return cli_usage_error("run", "unknown option '%s'", arg);
        if (rc == OPTION_NOT_MINE)
            a->paths[a->npaths++] = arg;
        else if (rc >= 0)
            return rc;
    }
    if (a->npaths < 2)
        return cli_usage_error("run", "need RULES... and a MODEL");
    int bad = cli_check_stdin_once("run", a->paths, a->npaths);
    if (bad >= 0)
        return bad;
    bad = runner_check_options("graft run", &a->opts);
    if (bad >= 0)
        return bad;
    bad = cli_check_kinds("graft run RULES... MODEL", a->paths, a->npaths - 1,
                          a->paths[a->npaths - 1]);
    if (bad >= 0)
        return bad;
    return cli_check_output("run", a->opts.out, (const char *const *)a->paths, a->npaths);
}

/* --verify's copies of an ONNX model: read again from its file, checked
 * once already (RunModelLoader in runner.h). */
static graft_graph *load_onnx(void *ctx, void **owner, int *noutputs, graft_diag *d)
{
    const RunArgs *a = ctx;
    OnnxModel *m = onnx_file_load(a->paths[a->npaths - 1], &a->opts.limits, NULL, true, d);
    *owner = m;
    *noutputs = m && m->tupled ? m->noutputs : 0;
    return m ? m->g : NULL;
}

static void unload_onnx(void *owner)
{
    onnx_graph_free(owner);
}

static bool run(const RunArgs *a, graft_diag *d)
{
    Loaded l;
    if (!cli_load(a->paths, a->npaths, &a->opts.limits, a->allow_unknown_ops, &l, d))
        return false;
    RunOptions o = a->opts;
    o.model = l.src->name;
    OnnxOut onnx_out = {l.onnx, !onnx_file_binary_output(o.out)};
    RunModelLoader loader = {load_onnx, unload_onnx, (void *)a};
    if (l.onnx) {
        o.write = onnx_file_write;
        o.write_ctx = &onnx_out;
        o.loader = &loader;
    }
    bool ok = runner_explaining(&o)
                  ? runner_explain(&l.rules->rs, l.g, l.src, &o, d) == EXIT_OK
                  : (!o.verify || runner_verify(&l.rules->rs, l.src, &o, d)) &&
                        runner_run(&l.rules->rs, l.g, &o, d);
    cli_load_free(&l);
    return ok;
}

int cmd_run(int argc, char **argv, const graft_limits *limits)
{
    RunArgs a = {.opts.limits = *limits};
    int rc = parse_args(argc, argv, &a);
    if (rc < 0) {
        graft_diag *d = cli_diag_new(&a.opts.limits);
        cli_warnings_apply(&a.warnings, d);
        rc = run(&a, d) ? EXIT_OK : EXIT_BAD_INPUT;
        diag_free(d);
    }
    free(a.paths);
    return rc;
}
