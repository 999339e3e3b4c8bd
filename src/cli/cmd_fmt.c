/* cmd_fmt.c - graft fmt MODEL [-o OUT]: print a model in canonical text. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "diag.h"
#include "cli_load.h"
#include "fmt_onnx.h"
#include "fmt_rules_cli.h"
#include "input_kind.h"
#include "outfile.h"
#include "relay.h"

static const char fmt_help[] =
    "usage: graft fmt MODEL [-o OUT] [--infer-types]\n"
    "       graft fmt RULES.graft [-o OUT]\n"
    "\n"
    "Load a model in Relay text form and print it back as TVM's text printer\n"
    "would: temps renumbered (%0, %1, ...), one binding per line, annotation\n"
    "comments kept.  MODEL '-' reads standard input.  Types missing from the\n"
    "model are inferred from the operands' types (TVM's type relations); a\n"
    "contradiction is an error.  Every op call is checked against the op\n"
    "registry (known op, operand count, attribute names and kinds).\n"
    "\n"
    "A rule file (named *.graft, or starting as one) is printed in one canonical\n"
    "layout instead, its comments kept (graft-rules(5), \"Layout\").\n"
    "\n"
    "An ONNX model is read in either format: binary (MODEL named *.onnx, or\n"
    "starting as one) or ONNX's text syntax, that of onnx.parser and\n"
    "onnx.printer (MODEL named *.onnxtxt, or starting as that syntax).  It is\n"
    "written as -o OUT.onnx in the binary format (byte for byte when its input\n"
    "was canonically encoded), else in the text syntax: graft fmt model.onnx\n"
    "prints it, graft fmt model.onnxtxt -o model.onnx converts it back.\n"
    "\n"
    "options:\n"
    "  --infer-types     print '/* ty=... */' on every node of known type, as\n"
    "                    TVM prints a type-checked module (spans kept)\n"

    "  -o OUT            write to OUT (atomically; '-' is standard output, the\n"
    "                    default)\n";

static void print_help(void)
{
    fputs(fmt_help, stdout);
    fputs(cli_allow_unknown_help, stdout);
    fputs(options_limit_help, stdout);
    fputs("  --help            show this help\n"
          "\n"
          "Exit status: 0 success, 1 bad input (diagnostics printed), 2 bad usage.\n",
          stdout);
}

/* Options of graft fmt; model and out point into argv. */
typedef struct FmtArgs {
    const char *model; /* input path, "-" for stdin */
    const char *out;   /* output path, NULL or "-" for stdout */
    bool types;        /* --infer-types */
    bool allow_unknown_ops; /* --allow-unknown-ops */
    bool onnx;         /* the model is an ONNX model (input_kind.h) */
    bool rules;        /* it is a rule file (fmt_rules_cli.h) */
    graft_limits limits;     /* GRAFT_LIMITS and --limit */
} FmtArgs;

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Returns -1 when the arguments are fine, else the exit status. */
static int parse_args(int argc, char **argv, FmtArgs *a)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int rc = cli_parse_common("fmt", argc, argv, &i, &a->out, &a->limits, print_help);
        if (rc != OPTION_NOT_MINE) {
            if (rc >= 0)
                return rc;
        } else if (strcmp(arg, "--infer-types") == 0) {
            a->types = true;
        } else if (strcmp(arg, "--allow-unknown-ops") == 0) {
            a->allow_unknown_ops = true;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return cli_usage_error("fmt", "unknown option '%s'", arg);
        } else if (a->model) {
            return cli_usage_error("fmt", "more than one MODEL given ('%s')", arg);
        } else {
            a->model = arg;
        }
    }
    if (!a->model)
        return cli_usage_error("fmt", "no MODEL given");
    a->onnx = input_kind_of_file(a->model) == INPUT_ONNX;
    if (a->onnx && a->types)
        return cli_usage_error("fmt", "--infer-types applies to Relay models, not to the ONNX "
                               "model '%s'", a->model);
    if (a->onnx && a->out && ends_with(a->out, ".relay"))
        return cli_usage_error("fmt", "'%s' is an ONNX model, which graft fmt writes as .onnx "
                               "or in ONNX's text syntax, not as Relay; give -o FILE.onnx or "
                               "-o FILE.onnxtxt", a->model);
    if (a->onnx)
        return cli_check_output("fmt", a->out, &a->model, 1);
    a->rules = fmt_rules_cli_wants(a->model);
    if (a->rules)
        return fmt_rules_cli_check(a->model, a->out, a->types);
    int rc = cli_check_kinds("graft fmt MODEL", NULL, 0, a->model);
    return rc >= 0 ? rc : cli_check_output("fmt", a->out, &a->model, 1);
}

/* Loads, prints into the atomic output; true on success. */
static bool run_fmt(const FmtArgs *a, graft_diag *d)
{
    Source *src = source_read(a->model, d);
    graft_graph *g = src ? cli_load_model(src, &a->limits, NULL, a->allow_unknown_ops, d) : NULL;
    bool ok = false;
    if (g) {
        OutFile *of = outfile_open(a->out, d);
        if (of) {
            relay_print_with(g, outfile_stream(of), a->types ? RELAY_PRINT_TYPES : 0);
            ok = outfile_commit(of, d);
        }
    }
    graph_free(g);
    source_free(src);
    return ok;
}

int cmd_fmt(int argc, char **argv, const graft_limits *limits)
{
    FmtArgs a = {.limits = *limits};
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    graft_diag *d = cli_diag_new(&a.limits);
    bool ok = a.onnx    ? fmt_onnx(a.model, a.out, &a.limits, d)
              : a.rules ? fmt_rules_cli(a.model, a.out, &a.limits, d)
                        : run_fmt(&a, d);
    diag_free(d);
    return ok ? EXIT_OK : EXIT_BAD_INPUT;
}
