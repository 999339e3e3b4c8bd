/* options.h - command-line pieces shared by the graft program and the
 * rewriters that graft compile --exe builds: exit statuses, usage errors,
 * and the limits set by GRAFT_LIMITS and --limit (note [limits]).
 *
 * A usage error prints "PROG: MESSAGE" and "Try 'PROG --help'." on
 * standard error, PROG being "graft run", "graft fmt", ... or the
 * rewriter's argv[0], and the program exits with EXIT_USAGE.
 */
#ifndef GRAFT_OPTIONS_H
#define GRAFT_OPTIONS_H

#include <stdarg.h>
#include <stdbool.h>

#include "limit.h"
#include "util.h"

enum { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_USAGE = 2 };

/* What an option parser returns for an argument that is not its own;
 * otherwise it returns -1 (taken) or an exit status (stop). */
enum { OPTION_NOT_MINE = -2 };

/* Prints the usage error; returns EXIT_USAGE. */
int options_usage_error(const char *prog, const char *fmt, ...) GRAFT_PRINTF(2, 3);
int options_usage_verror(const char *prog, const char *fmt, va_list ap);

/* The help line of --limit, for every command's --help. */
extern const char options_limit_help[];

/* Applies the environment variable GRAFT_LIMITS, when set, to lim: -1, or
 * the usage error's status ("PROG: GRAFT_LIMITS: unknown limit ..."). */
int options_env_limits(const char *prog, graft_limits *lim);

/* argv[*i] when it is "--limit SPEC" or "--limit=SPEC": applies SPEC to
 * lim (moving *i past it) and returns -1, or the usage error's status;
 * OPTION_NOT_MINE for any other argument. */
int options_parse_limit(const char *prog, int argc, char **argv, int *i, graft_limits *lim);

#endif
