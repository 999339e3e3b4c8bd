/* cli.h - the subcommands of the graft program.
 *
 * Each subcommand lives in its own src/cmd_NAME.c and returns the process
 * exit status (DESIGN.md, "The command line"; options.h): EXIT_OK on
 * success, EXIT_BAD_INPUT when diagnostics were printed, EXIT_USAGE for
 * bad usage.  argv[0] is the subcommand's name; every subcommand accepts
 * --help, and --limit on top of the limits main read from GRAFT_LIMITS.
 */
#ifndef GRAFT_CLI_H
#define GRAFT_CLI_H

#include "checker.h"
#include "diag.h"
#include "frontend.h"
#include "limit.h"
#include "options.h"

int cmd_fmt(int argc, char **argv, const graft_limits *limits);
int cmd_viz(int argc, char **argv, const graft_limits *limits);
int cmd_check(int argc, char **argv, const graft_limits *limits);
int cmd_run(int argc, char **argv, const graft_limits *limits);
int cmd_match(int argc, char **argv, const graft_limits *limits);
int cmd_explain(int argc, char **argv, const graft_limits *limits);
int cmd_compile(int argc, char **argv, const graft_limits *limits);
int cmd_limits(int argc, char **argv, const graft_limits *limits);
int cmd_verify(int argc, char **argv, const graft_limits *limits);
int cmd_lsp(int argc, char **argv, const graft_limits *limits);

/* The help line of --allow-unknown-ops, which every command that loads a
 * model takes (note [models checked like rules] in model_check.h). */
extern const char cli_allow_unknown_help[];

/* Prints "graft NAME: MESSAGE" and a hint to use --help; returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) GRAFT_PRINTF(2, 3);

/* --limit at argv[*i] for subcommand cmd: options_parse_limit with the
 * message prefix "graft CMD"; also -I DIR (an include directory). */
int cli_parse_limit(const char *cmd, int argc, char **argv, int *i, graft_limits *limits);

/* The include directories for loading rules: the -I DIRs seen so far,
 * then GRAFT_PATH's colon-separated entries (note [includes] in
 * src/compiler/frontend.c). */
void cli_frontend_options(FrontendOptions *fo);

/* The options most subcommands share, at argv[*i]: --limit, --help or -h
 * (calls help, EXIT_OK) and, when out is not NULL, -o FILE.  -1 when taken
 * (*i moved past a value), an exit status, or OPTION_NOT_MINE. */
int cli_parse_common(const char *cmd, int argc, char **argv, int *i, const char **out,
                     graft_limits *limits, void (*help)(void));

/* The warning options of graft check, which graft run, match and explain
 * take too: -Werror, and -Wno-NAME for each NAME once. */
typedef struct CliWarnings {
    bool werror;                      /* -Werror */
    const char *off[CHECK_NWARNINGS]; /* -Wno-NAME: the names, each once */
    int noff;                         /* entries in off */
} CliWarnings;

/* A warning option at arg for subcommand cmd: -1 when taken, EXIT_USAGE
 * after printing for an unknown warning, OPTION_NOT_MINE otherwise. */
int cli_parse_warning(const char *cmd, const char *arg, CliWarnings *w);
/* Sets d up as w says. */
void cli_warnings_apply(const CliWarnings *w, graft_diag *d);
/* The help lines of the warning options. */
extern const char cli_warning_help[];

/* A Diag on standard error that gives up after limits->errors errors. */
graft_diag *cli_diag_new(const graft_limits *limits);

/* note [input never overwritten]: an output path that names one of the
 * input files (same file by inode, whatever the spelling) is a usage
 * error, "graft NAME: output 'OUT' is the input 'IN'; refusing to
 * overwrite it", so that a slip of -o can never destroy a model or a rule
 * file.  Returns -1 when out is NULL, "-" or names no input, else
 * EXIT_USAGE after printing. */
int cli_check_output(const char *cmd, const char *out, const char *const *inputs,
                     int ninputs);

/* Standard input can be read once: '-' given for more than one of the n
 * paths is a usage error, "graft CMD: '-' (standard input) given twice",
 * before anything is read.  Returns -1 when it is not, else EXIT_USAGE
 * after printing. */
int cli_check_stdin_once(const char *cmd, const char *const *paths, int n);

/* note [swapped arguments]: every command that takes rules and a model
 * takes them as RULES... MODEL.  Before loading anything, each rule file
 * and the model are recognised from their first tokens (input_kind.h); a
 * Relay model where rules go, or a rule file where the model goes, is a
 * usage error with the command's usage instead of a page of syntax
 * errors:
 *   graft: error: 'm.relay' is a Relay model, not a rule file; usage: graft run RULES... MODEL
 * An ONNX model (named *.onnx, or starting as one) is refused the same
 * way where rules go; where a model goes it is read as ONNX
 * (src/onnx/onnx_file.h).  graft fmt also takes a rule file
 * (fmt_rules_cli.h), recognised before this.
 * Returns -1 when nothing looks misplaced (a file that cannot be read or
 * looks like neither is left to the loader), else EXIT_USAGE after
 * printing.  model may be NULL (check, compile), rules empty (fmt). */
int cli_check_kinds(const char *usage, const char *const *rules, int nrules,
                    const char *model);

#endif
