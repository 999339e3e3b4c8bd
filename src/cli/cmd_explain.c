/* cmd_explain.c - graft explain RULES... MODEL: why a rule did or did not
 * fire.
 *
 *   --at NODE [--rule NAME]   each rule (or the one named) at NODE: matches
 *                             or not, the deepest partial match, the first
 *                             failed constraint as notes into both files,
 *                             a guard's values, why a match is not applied
 *   --rule NAME [--near N]    the N best partial matches of the rule
 *   --check-all               explain against match over every node and
 *                             rule: one summary line, exit 1 on any
 *                             disagreement
 *
 * The work is the engine's (engine_explain.c), on the same matcher that
 * graft match and graft run use, driven by runner.c, which graft run and
 * compiled rewriters share: they take the same options.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_load.h"
#include "onnx_file.h"
#include "runner.h"
#include "util.h"

static const char explain_help[] =
    "usage: graft explain RULES... MODEL --at NODE [--rule NAME]\n"
    "       graft explain RULES... MODEL --rule NAME [--near N]\n"
    "       graft explain RULES... MODEL --check-all\n"
    "\n"
    "Say why a rule of RULES does or does not match in MODEL.  With --at, for\n"
    "each rule (or the one named) whether it matches with NODE as root and, if\n"
    "not, the pattern parts that matched, the first constraint that failed as a\n"
    "note into the rule file and one into the model, and the value of every\n"
    "condition of a guard; for a match, why graft run would not apply it\n"
    "(interior use, a rule whose pass runs first; for a partition rule, overlap\n"
    "with an earlier group).  NODE is a name as 'graft match' and\n"
    "'graft fmt' print it (%5, %x, <output>; in an ONNX model's subgraph\n"
    "GRAPH/NAME, then_body/a) or a model position (model.relay:42, :42:7).\n"
    "Without --at, the N best partial matches of the rule named by --rule,\n"
    "deepest first (in an ONNX model, those of each subgraph that has one\n"
    "first).\n"
    "\n"
    "The same options work with graft run and with a rewriter built by graft\n"
    "compile --exe.\n"
    "\n"
    "options:\n";

static void print_help(void)
{
    fputs(explain_help, stdout);
    fputs(runner_explain_help, stdout);
    fputs(cli_allow_unknown_help, stdout);
    fputs(cli_warning_help, stdout);
    fputs(options_limit_help, stdout);
    fputs("  --help            show this help\n"
          "\n"
          "Exit status: 0 success (whether or not a rule matches), 1 bad input or\n"
          "a --check-all disagreement, 2 bad usage.\n", stdout);
}

/* Returns -1 when the arguments are fine, else the exit status. */
static int parse_args(int argc, char **argv, const char **paths, int *npaths, RunOptions *o,
                      bool *allow_unknown_ops, CliWarnings *warnings)
{
    int rc = -1;
    for (int i = 1; i < argc && rc < 0; i++) {
        if (strcmp(argv[i], "--allow-unknown-ops") == 0) {
            *allow_unknown_ops = true;
            continue;
        }
        int taken = cli_parse_common("explain", argc, argv, &i, NULL, &o->limits, print_help);
        if (taken == OPTION_NOT_MINE)
            taken = runner_parse_explain_option("graft explain", argc, argv, &i, o);
        if (taken == OPTION_NOT_MINE)
            taken = cli_parse_warning("explain", argv[i], warnings);
        if (taken != OPTION_NOT_MINE)
            rc = taken;
        else if (argv[i][0] == '-' && argv[i][1] != '\0')
            rc = cli_usage_error("explain", "unknown option '%s'", argv[i]);
        else
            paths[(*npaths)++] = argv[i];
    }
    if (rc < 0 && *npaths < 2)
        rc = cli_usage_error("explain", "need RULES... and a MODEL");
    if (rc < 0 && !runner_explaining(o))
        rc = cli_usage_error("explain", "say where: --at NODE, or --rule NAME for the "
                             "near misses, or --check-all");
    if (rc < 0)
        rc = runner_check_options("graft explain", o);
    if (rc < 0)
        rc = cli_check_stdin_once("explain", paths, *npaths);
    return rc;
}

int cmd_explain(int argc, char **argv, const graft_limits *limits)
{
    const char **paths = xcalloc((size_t)argc + 1, sizeof *paths);
    RunOptions o = {.limits = *limits};
    bool allow_unknown_ops = false;
    CliWarnings warnings = {0};
    int npaths = 0,
        rc = parse_args(argc, argv, paths, &npaths, &o, &allow_unknown_ops, &warnings);
    if (rc < 0) {
        graft_diag *d = cli_diag_new(&o.limits);
        cli_warnings_apply(&warnings, d);
        Loaded l;
        rc = EXIT_BAD_INPUT;
        if (cli_load(paths, npaths, &o.limits, allow_unknown_ops, &l, d)) {
            OnnxOut onnx = {l.onnx, true}; /* its subgraphs: runner_onnx_model */
            o.write = l.onnx ? onnx_file_write : NULL;
            o.write_ctx = &onnx;
            rc = runner_explain(&l.rules->rs, l.g, l.src, &o, d);
            cli_load_free(&l);
        }
        diag_free(d);
    }
    free(paths);
    return rc;
}
