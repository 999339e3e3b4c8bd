/* cmd_limits.c - graft limits [--limit NAME=N]: print the resource limits
 * in force (defaults, then GRAFT_LIMITS, then --limit), their defaults,
 * ranges and what each bounds (limit.h, doc/limits.md). */
#include <stdio.h>

#include "cli.h"

static const char limits_help[] =
    "usage: graft limits [--limit NAME=N[,NAME=N...]]\n"
    "\n"
    "Print graft's resource limits: the value in force (the default, changed\n"
    "by GRAFT_LIMITS in the environment and then by --limit), the default,\n"
    "and what each bounds with its range.  Every graft command, and every\n"
    "rewriter built by 'graft compile --exe', takes the same --limit option\n"
    "and reads the same GRAFT_LIMITS.\n"
    "\n"
    "options:\n";

static void print_help(void)
{
    fputs(limits_help, stdout);
    fputs(options_limit_help, stdout);
    fputs("  --help            show this help\n"
          "\n"
          "Exit status: 0 success, 2 bad usage.\n", stdout);
}

int cmd_limits(int argc, char **argv, const graft_limits *limits)
{
    graft_limits lim = *limits;
    for (int i = 1; i < argc; i++) {
        int rc = cli_parse_common("limits", argc, argv, &i, NULL, &lim, print_help);
        if (rc == OPTION_NOT_MINE)
            return cli_usage_error("limits", "unexpected argument '%s'", argv[i]);
        if (rc >= 0)
            return rc;
    }
    limit_print(&lim, stdout);
    return EXIT_OK; /* a write error: note [standard output errors] in main.c */
}
