/* cmd_compile.c - graft compile RULES... -o OUT.c [--header OUT.h]
 * [--name NAME] [--no-line], and graft compile --exe RULES... -o PROG:
 * emit a rule set as C (emit_c.h), or build a standalone rewriter. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "emit_c.h"
#include "frontend.h"
#include "lower.h"
#include "outfile.h"
#include "util.h"

#ifndef GRAFT_EXE_CFLAGS
#define GRAFT_EXE_CFLAGS ""
#endif

static const char compile_help[] =
    "usage: graft compile RULES... -o OUT.c [--header OUT.h] [--name NAME]\n"
    "                     [--no-line]\n"
    "       graft compile --exe RULES... -o PROG [--name NAME] [--no-line]\n"
    "\n"
    "Compile the rules of RULES (.graft files) to C11 that exports\n"
    "'const graft_rule_set NAME' for libgraft (graft.h: graft_engine_new,\n"
    "then run, match or partition).  Build it with\n"
    "  cc -c OUT.c $(pkg-config --cflags graft)\n"
    "and link with $(pkg-config --libs graft).\n"
    "\n"
    "With --exe, graft also compiles and links the code into PROG, a\n"
    "standalone rewriter: PROG MODEL [-o OUT] [--stats[=counts]] behaves as\n"
    "graft run RULES... MODEL.  The C compiler is $GRAFT_CC, else $CC, else\n"
    "the one graft was built with.  libgraft's headers and library are the\n"
    "build tree's when this graft is the one built there, else those installed\n"
    "with it; $GRAFT_CFLAGS and $GRAFT_LIBS replace them (doc/compile.md).\n"
    "\n"
    "options:\n"
    "  -o FILE        the C file (or with --exe the program) to write\n"
    "  --header FILE  also write a header declaring NAME\n"
    "  --name NAME    C name of the rule set (default: graft_rules)\n"
    "  --no-line      no #line directives pointing into the rule files\n"
    "  --exe          build a standalone rewriter instead of a C file\n";

static void print_help(void)
{
    fputs(compile_help, stdout);
    fputs(options_limit_help, stdout);
    fputs("  --help            show this help\n"
          "\n"
          "Limits bound the rule files while compiling; a rewriter reads its own\n"
          "--limit and GRAFT_LIMITS when it runs.\n"
          "Exit status: 0 success, 1 bad input or a failed C compiler, 2 bad usage.\n",
          stdout);
}

/* Options of graft compile; strings point into argv. */
typedef struct CompileArgs {
    const char **rules;  /* rule files, in order */
    int nrules;          /* entries in rules */
    const char *out;     /* -o */
    const char *header;  /* --header, or NULL */
    const char *name;    /* --name */
    bool no_line;        /* --no-line */
    bool exe;            /* --exe */
    graft_limits limits;       /* GRAFT_LIMITS and --limit */
} CompileArgs;

/* Takes the value of option argv[*i] into *out; -1 or EXIT_USAGE. */
static int take_value(int argc, char **argv, int *i, const char **out)
{
    if (++*i == argc)
        return cli_usage_error("compile", "option '%s' needs a value", argv[*i - 1]);
    *out = argv[*i];
    return -1;
}

/* Checks the combination of options once all were read. */
static int check_args(const CompileArgs *a)
{
    if (a->nrules == 0)
        return cli_usage_error("compile", "need at least one rule file");
    if (!a->out)
        return cli_usage_error("compile", "need '-o %s'", a->exe ? "PROG" : "OUT.c");
    if (a->exe && strcmp(a->out, "-") == 0)
        return cli_usage_error("compile", "'--exe' cannot write a program to standard output");
    if (a->exe && a->header)
        return cli_usage_error("compile", "'--header' does not go with '--exe'");
    if (a->header && strcmp(a->header, "-") == 0 && strcmp(a->out, "-") == 0)
        return cli_usage_error("compile",
                               "the C file and the header cannot both go to standard output");
    if (!emit_c_valid_name(a->name))
        return cli_usage_error("compile", "'%s' is not a C identifier (--name)", a->name);
    int rc = cli_check_kinds(a->exe ? "graft compile --exe RULES... -o PROG"
                                    : "graft compile RULES... -o OUT.c",
                             a->rules, a->nrules, NULL);
    if (rc < 0)
        rc = cli_check_output("compile", a->out, a->rules, a->nrules);
    return rc >= 0 ? rc : cli_check_output("compile", a->header, a->rules, a->nrules);
}

/* One argument other than --limit: -1 when taken, an exit status, or
 * OPTION_NOT_MINE for a rule file. */
static int parse_option(int argc, char **argv, int *i, CompileArgs *a)
{
    const char *arg = argv[*i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
        print_help();
        return EXIT_OK;
    } else if (strcmp(arg, "-o") == 0) {
        return take_value(argc, argv, i, &a->out);
    } else if (strcmp(arg, "--header") == 0) {
        return take_value(argc, argv, i, &a->header);
    } else if (strcmp(arg, "--name") == 0) {
        return take_value(argc, argv, i, &a->name);
    } else if (strcmp(arg, "--no-line") == 0) {
        a->no_line = true;
    } else if (strcmp(arg, "--exe") == 0) {
        a->exe = true;
    } else if (arg[0] == '-' && arg[1] != '\0') {
        return cli_usage_error("compile", "unknown option '%s'", arg);
    } else
        return OPTION_NOT_MINE;
    return -1;
}

/* Returns -1 when the arguments are fine, else the exit status. */
static int parse_args(int argc, char **argv, CompileArgs *a)
{
    a->rules = xcalloc((size_t)argc + 1, sizeof *a->rules);
    a->name = "graft_rules";
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int rc = cli_parse_limit("compile", argc, argv, &i, &a->limits);
        if (rc == OPTION_NOT_MINE)
            rc = parse_option(argc, argv, &i, a);
        if (rc == OPTION_NOT_MINE)
            a->rules[a->nrules++] = arg;
        else if (rc >= 0)
            return rc;
    }
    return check_args(a);
}

/* Writes the C file and, when asked, the header: both are written and
 * flushed before either is renamed into place, so a full disk leaves
 * neither half updated (note [atomic output]; tests/hostile.sh). */
static bool write_files(const CompileArgs *a, const RuleFile *rf, const Lowered *lw,
                        const EmitOptions *eo, graft_diag *d)
{
    OutFile *h = a->header ? outfile_open(a->header, d) : NULL;
    OutFile *c = !a->header || h ? outfile_open(a->out, d) : NULL;
    bool ok = c && (!a->header || h);
    if (ok && h)
        emit_c_header(eo, outfile_stream(h));
    if (ok)
        emit_c_source(rf, lw, eo, outfile_stream(c));
    ok = ok && (!h || outfile_flush(h, d)) && outfile_flush(c, d);
    if (!ok) {
        outfile_abort(h);
        outfile_abort(c);
        return false;
    }
    bool header_ok = !h || outfile_commit(h, d);
    return outfile_commit(c, d) && header_ok;
}

/* Emits the C file (and header) or, with --exe, the program. */
static bool compile(const CompileArgs *a, const RuleFile *rf, const Lowered *lw, graft_diag *d)
{
    EmitOptions eo = {
        .name = a->name,
        .header = a->header,
        .out_name = a->out,
        .exe_cflags = GRAFT_EXE_CFLAGS,
        .line_directives = !a->no_line,
        .standalone_main = a->exe,
    };
    if (a->exe)
        return emit_c_build_exe(rf, lw, &eo, a->out, d);
    return write_files(a, rf, lw, &eo, d);
}

/* Loads, checks and lowers the rules, then compiles them. */
static bool run(const CompileArgs *a, graft_diag *d)
{
    FrontendOptions fo = {.limits = &a->limits};
    cli_frontend_options(&fo);
    RuleFile *rf = frontend_load(a->rules, a->nrules, &fo, d);
    if (!rf)
        return false;
    Lowered *lw = lower_rules(rf, d);
    bool ok = lw && compile(a, rf, lw, d);
    if (lw)
        lower_free(lw);
    rulefile_free(rf);
    return ok;
}

int cmd_compile(int argc, char **argv, const graft_limits *limits)
{
    CompileArgs a = {.limits = *limits};
    int rc = parse_args(argc, argv, &a);
    if (rc < 0) {
        graft_diag *d = cli_diag_new(&a.limits);
        rc = run(&a, d) ? EXIT_OK : EXIT_BAD_INPUT;
        diag_free(d);
    }
    free(a.rules);
    return rc;
}
