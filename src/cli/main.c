/* main.c - the graft driver: dispatches to one subcommand. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diag_json.h"
#include "input_kind.h"
#include "outfile.h"

typedef struct Command {
    const char *name;                 /* as typed after "graft" */
    int (*run)(int argc, char **argv, const graft_limits *limits);
    const char *synopsis;             /* one line for graft --help */
} Command;

static const Command commands[] = {
    {"fmt", cmd_fmt, "fmt MODEL|RULES [-o OUT]           print a model or rules canonically"},
    {"viz", cmd_viz, "viz [RULES...] MODEL [-o OUT.dot|.svg|.png|.pdf]  draw a model"},
    {"check", cmd_check, "check RULES...                     diagnostics only"},
    {"run", cmd_run, "run RULES... MODEL [-o OUT] [--stats] [--trace]  apply the rules"},
    {"match", cmd_match, "match RULES... MODEL               list matches"},
    {"explain", cmd_explain,
     "explain RULES... MODEL --at NODE [--rule NAME] | --rule NAME [--near N]  why a rule (did "
     "not) fire"},
    {"compile", cmd_compile,
     "compile RULES... -o OUT.c [--header OUT.h] [--name NAME] | --exe RULES... -o PROG"},
    {"verify", cmd_verify,
     "verify RULES... [--trials N] [--seed N] [-j N]  check rules numerically"},
    {"lsp", cmd_lsp, "lsp                                 serve the Language Server Protocol"},
    {"limits", cmd_limits, "limits [--limit NAME=N]            print the resource limits in force"},
};

static void print_help(FILE *out)
{
    fputs("usage: graft COMMAND [ARGS...]\n\n"
          "graft compiles rule files that rewrite dataflow graphs of ML models.\n\n"
          "commands:\n", out);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  graft %s\n", commands[i].synopsis);
    fputs("\nRule files end in .graft, models in .relay; '-' reads standard input.\n"
          "Every command takes --limit NAME=N[,NAME=N...] to change a resource\n"
          "limit, on top of GRAFT_LIMITS in the environment ('graft limits'),\n"
          "and --diagnostics-format=text|json|sarif (json, sarif: one document on stderr).\n"
          "Exit status: 0 success, 1 bad input, 2 bad usage.\n"
          "'graft COMMAND --help' describes one command.\n", out);
}

/* "graft CMD", the prefix of a subcommand's usage errors. */
static void command_prog(const char *cmd, char prog[64])
{
    snprintf(prog, 64, "graft %s", cmd);
}

const char cli_allow_unknown_help[] =
    "  --allow-unknown-ops  load calls of ops the registry does not know (custom\n"
    "                    ops) unchecked; calls of known ops are still checked\n";

int cli_check_stdin_once(const char *cmd, const char *const *paths, int n)
{
    int stdin_paths = 0;
    for (int i = 0; i < n; i++)
        stdin_paths += strcmp(paths[i], "-") == 0;
    if (stdin_paths < 2)
        return -1;
    return cli_usage_error(cmd, "'-' (standard input) given %d times; standard input can "
                           "be read once", stdin_paths);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char prog[64];
    command_prog(cmd, prog);
    va_list ap;
    va_start(ap, fmt);
    int rc = options_usage_verror(prog, fmt, ap);
    va_end(ap);
    return rc;
}

/* -I DIR options in order, then GRAFT_PATH's entries (note [includes] in
 * src/compiler/frontend.c); the DIRs point into argv, the entries into a
 * copy of GRAFT_PATH. */
enum { MAX_INCLUDE_DIRS = 64, MAX_GRAFT_PATH = 4096 };
static const char *include_dirs[2 * MAX_INCLUDE_DIRS];
static int ninclude_args;

/* -I DIR or -IDIR at argv[*i]. */
static int parse_include(const char *cmd, int argc, char **argv, int *i)
{
    const char *dir = argv[*i] + 2;
    if (!*dir) {
        if (++*i == argc)
            return cli_usage_error(cmd, "option '-I' needs a directory");
        dir = argv[*i];
    }
    if (ninclude_args == MAX_INCLUDE_DIRS)
        return cli_usage_error(cmd, "more than %d -I options", MAX_INCLUDE_DIRS);
    include_dirs[ninclude_args++] = dir;
    return -1;
}

void cli_frontend_options(FrontendOptions *fo)
{
    static char path[MAX_GRAFT_PATH];
    int n = ninclude_args;
    const char *env = getenv("GRAFT_PATH");
    if (env && strlen(env) < sizeof path) {
        strcpy(path, env);
        for (char *dir = strtok(path, ":"); dir && n < 2 * MAX_INCLUDE_DIRS;
             dir = strtok(NULL, ":"))
            include_dirs[n++] = dir;
    }
    fo->include_dirs = include_dirs;
    fo->ninclude_dirs = n;
}

/* --diagnostics-format=json|sarif: every report of the command is
 * recorded and written to stderr as one document when it ends
 * (diag_json.h); text is the default. */
static DiagLog *diag_log;

static int parse_diagnostics_format(const char *cmd, const char *name)
{
    DiagFormat format;
    if (!diag_format_by_name(name, &format))
        return cli_usage_error(cmd, "unknown diagnostics format '%s'; known: text, json, sarif",
                               name);
    diag_log_free(diag_log);
    diag_log = format == DIAG_FORMAT_TEXT ? NULL : diag_log_new(format);
    return -1;
}

int cli_parse_limit(const char *cmd, int argc, char **argv, int *i, graft_limits *limits)
{
    static const char format_opt[] = "--diagnostics-format=";
    if (strncmp(argv[*i], "-I", 2) == 0)
        return parse_include(cmd, argc, argv, i);
    if (strncmp(argv[*i], format_opt, sizeof format_opt - 1) == 0)
        return parse_diagnostics_format(cmd, argv[*i] + sizeof format_opt - 1);
    char prog[64];
    command_prog(cmd, prog);
    return options_parse_limit(prog, argc, argv, i, limits);
}

int cli_parse_common(const char *cmd, int argc, char **argv, int *i, const char **out,
                     graft_limits *limits, void (*help)(void))
{
    const char *arg = argv[*i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
        help();
        return EXIT_OK;
    }
    if (out && strcmp(arg, "-o") == 0) {
        if (++*i == argc)
            return cli_usage_error(cmd, "option '-o' needs a file name");
        *out = argv[*i];
        return -1;
    }
    return cli_parse_limit(cmd, argc, argv, i, limits);
}

const char cli_warning_help[] =
    "  -Werror            treat warnings as errors\n"
    "  -Wno-NAME          turn warning NAME off (the flag each warning ends in):\n"
    "                     unused-binding, shadowed-rule, ambiguous-overlap,\n"
    "                     self-rewrite, dead-order\n";

int cli_parse_warning(const char *cmd, const char *arg, CliWarnings *w)
{
    if (strcmp(arg, "-Werror") == 0) {
        w->werror = true;
        return -1;
    }
    if (strncmp(arg, "-W", 2) != 0)
        return OPTION_NOT_MINE;
    if (strncmp(arg, "-Wno-", 5) != 0 || !check_warning_known(arg + 5))
        return cli_usage_error(cmd, "unknown warning '%s'; known: unused-binding, "
                               "shadowed-rule, ambiguous-overlap, self-rewrite, dead-order", arg);
    for (int k = 0; k < w->noff; k++)
        if (strcmp(w->off[k], arg + 5) == 0)
            return -1;
    w->off[w->noff++] = arg + 5;
    return -1;
}

void cli_warnings_apply(const CliWarnings *w, graft_diag *d)
{
    diag_set_werror(d, w->werror);
    for (int i = 0; i < w->noff; i++)
        diag_warning_off(d, w->off[i]);
}

graft_diag *cli_diag_new(const graft_limits *limits)
{
    graft_diag *d = diag_new(stderr);
    diag_set_error_limit(d, limits->errors);
    if (diag_log)
        diag_log_attach(diag_log, d);
    return d;
}

int cli_check_output(const char *cmd, const char *out, const char *const *inputs,
                     int ninputs)
{
    for (int i = 0; i < ninputs; i++)
        if (outfile_same_file(out, inputs[i]))
            return cli_usage_error(cmd, "output '%s' is the input '%s'; refusing to "
                                   "overwrite it", out, inputs[i]);
    return -1;
}

static int misplaced(const char *path, const char *is, const char *is_not,
                     const char *usage)
{
    fprintf(stderr, "graft: error: '%s' is %s, not %s; usage: %s\n", path, is, is_not, usage);
    return EXIT_USAGE;
}

int cli_check_kinds(const char *usage, const char *const *rules, int nrules,
                    const char *model)
{
    for (int i = 0; i < nrules; i++) {
        InputKind kind = input_kind_of_file(rules[i]);
        if (kind == INPUT_MODEL || kind == INPUT_ONNX)
            return misplaced(rules[i], kind == INPUT_MODEL ? "a Relay model" : "an ONNX model",
                             "a rule file", usage);
    }
    InputKind kind = model ? input_kind_of_file(model) : INPUT_UNKNOWN;
    if (kind == INPUT_RULES)
        return misplaced(model, "a rule file", "a Relay model", usage);
    return -1;
}

/* note [standard output errors]: a write error on standard output
 * (graft check --dump-ast > /dev/full) is reported once, as
 * "graft: error: cannot write standard output: REASON", with exit status
 * 1, by whatever notices it first: outfile_commit for a command's main
 * output, else this check after the command, which flushes standard
 * output; a command that failed already has said why. */
static int check_stdout(int rc)
{
    if (rc != EXIT_OK)
        return rc;
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    fprintf(stderr, "graft: error: cannot write standard output: %s\n",
            strerror(errno ? errno : EIO));
    return EXIT_BAD_INPUT;
}

static int run_command(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        print_help(stdout);
        return EXIT_OK;
    }
    if (strcmp(name, "--version") == 0) {
        printf("graft %s\n", PACKAGE_VERSION);
        return EXIT_OK;
    }
    graft_limits limits = limit_defaults;
    int rc = options_env_limits("graft", &limits);
    if (rc >= 0)
        return rc;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(name, commands[i].name) == 0) {
            rc = commands[i].run(argc - 1, argv + 1, &limits);
            if (diag_log)
                diag_log_write(diag_log, stderr);
            diag_log_free(diag_log);
            return rc;
        }
    fprintf(stderr, "graft: unknown command '%s'\nTry 'graft --help'.\n", name);
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    /* A file size limit (ulimit -f) must fail the write, which is then
     * reported and the temporary file removed, not kill graft midway and
     * leave the temporary file behind (note [atomic output]). */
    signal(SIGXFSZ, SIG_IGN);
    return check_stdout(run_command(argc, argv));
}
