/* cmd_check.c - graft check RULES...: load and check rule files, print
 * diagnostics, optionally dump what the front end (or the automaton
 * builder) made of them.
 *
 * Adding a dump: one entry in the dumps[] table (flag, what it prints) and
 * a function taking the checked RuleFile; see cmd_check_dump.h. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cmd_check_dump.h"
#include "cli.h"
#include "checker.h"
#include "frontend.h"

/* Options of one run. */
typedef struct CheckArgs {
    const char **files; /* rule files, in order */
    int nfiles;         /* entries in files */
    CliWarnings warnings; /* -Werror, -Wno-NAME */
    bool dot;           /* --dot (with --dump-automaton) */
    int dump;           /* index into dumps[], -1 for none */
    graft_limits limits;      /* GRAFT_LIMITS and --limit */
} CheckArgs;

static const struct {
    const char *flag;  /* as typed */
    int (*run)(const RuleFile *rf, const CheckDumpOptions *opts, FILE *out, graft_diag *d);
    const char *help;  /* one line for --help */
} dumps[] = {
    {"--dump-ast", check_dump_ast,
     "print the rules in canonical form (the AST), one item per line"},
    {"--dump-automaton", check_dump_automaton,
     "print the matcher automaton built from the rules (--dot: as Graphviz)"},
};

static void print_help(void)
{
    fputs("usage: graft check [OPTIONS] RULES...\n\n"
          "Parse and check rule files (graft-rules(5)); print diagnostics as\n"
          "FILE:LINE:COL: error|warning: MESSAGE with the line and a caret.\n"
          "Exit status: 0 no errors, 1 errors (or warnings with -Werror), 2 bad usage.\n\n"
          "options:\n"
          "  -I DIR             look for included rule files in DIR too\n", stdout);
    fputs(cli_warning_help, stdout);
    for (size_t i = 0; i < sizeof dumps / sizeof dumps[0]; i++)
        printf("  %-18s %s\n", dumps[i].flag, dumps[i].help);
    fputs("  --dot              with --dump-automaton: Graphviz output\n", stdout);
    fputs(options_limit_help, stdout);
    fputs("  --help             show this help\n", stdout);
}

static int find_dump(const char *arg)
{
    for (size_t i = 0; i < sizeof dumps / sizeof dumps[0]; i++)
        if (strcmp(arg, dumps[i].flag) == 0)
            return (int)i;
    return -1;
}

/* Returns -1 when the arguments are fine, else the exit status. */
static int parse_args(int argc, char **argv, CheckArgs *a)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int rc = cli_parse_common("check", argc, argv, &i, NULL, &a->limits, print_help);
        if (rc == OPTION_NOT_MINE)
            rc = cli_parse_warning("check", arg, &a->warnings);
        if (rc != OPTION_NOT_MINE) {
            if (rc >= 0)
                return rc;
        } else if (strcmp(arg, "--dot") == 0) {
            a->dot = true;
        } else if (find_dump(arg) >= 0) {
            if (a->dump >= 0)
                return cli_usage_error("check", "only one dump option at a time");
            a->dump = find_dump(arg);
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return cli_usage_error("check", "unknown option '%s'", arg);
        } else {
            a->files[a->nfiles++] = arg;
        }
    }
    if (a->nfiles == 0)
        return cli_usage_error("check", "no rule files given");
    if (a->dot && (a->dump < 0 || dumps[a->dump].run != check_dump_automaton))
        return cli_usage_error("check", "--dot goes with --dump-automaton");
    return cli_check_kinds("graft check RULES...", a->files, a->nfiles, NULL);
}

int cmd_check(int argc, char **argv, const graft_limits *limits)
{
    CheckArgs a = {.files = (const char **)argv + 1, .dump = -1, .limits = *limits};
    int status = parse_args(argc, argv, &a);
    if (status >= 0)
        return status;
    /* Diagnostics reprint whole source lines: buffer them by line rather
     * than writing byte by byte (stderr is unbuffered). */
    setvbuf(stderr, NULL, _IOLBF, BUFSIZ);
    graft_diag *d = cli_diag_new(&a.limits);
    cli_warnings_apply(&a.warnings, d);
    FrontendOptions fo = {.limits = &a.limits};
    cli_frontend_options(&fo);
    RuleFile *rf = frontend_load(a.files, a.nfiles, &fo, d);
    status = rf ? EXIT_OK : EXIT_BAD_INPUT;
    if (rf && a.dump >= 0) {
        CheckDumpOptions opts = {.dot = a.dot};
        status = dumps[a.dump].run(rf, &opts, stdout, d);
    }
    rulefile_free(rf);
    diag_free(d);
    return status;
}
