/* options.c - usage errors and the --limit option (options.h). */
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char options_limit_help[] =
    "  --limit NAME=N[,NAME=N...]\n"
    "                    change resource limits ('graft limits' lists them;\n"
    "                    GRAFT_LIMITS in the environment takes the same text)\n";

int options_usage_verror(const char *prog, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry '%s --help'.\n", prog);
    return EXIT_USAGE;
}

int options_usage_error(const char *prog, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = options_usage_verror(prog, fmt, ap);
    va_end(ap);
    return rc;
}

/* Applies spec to lim; origin names where it came from in the message. */
static int apply(const char *prog, const char *origin, const char *spec, graft_limits *lim)
{
    StrBuf why = {0};
    int rc = -1;
    if (!limit_parse(lim, spec, &why))
        rc = options_usage_error(prog, "%s: %s", origin, why.data);
    strbuf_free(&why);
    return rc;
}

int options_env_limits(const char *prog, graft_limits *lim)
{
    const char *spec = getenv("GRAFT_LIMITS");
    return spec ? apply(prog, "GRAFT_LIMITS", spec, lim) : -1;
}

int options_parse_limit(const char *prog, int argc, char **argv, int *i, graft_limits *lim)
{
    const char *arg = argv[*i];
    if (strncmp(arg, "--limit=", 8) == 0)
        return apply(prog, "--limit", arg + 8, lim);
    if (strcmp(arg, "--limit") != 0)
        return OPTION_NOT_MINE;
    if (++*i == argc)
        return options_usage_error(prog, "option '--limit' needs NAME=N");
    return apply(prog, "--limit", argv[*i], lim);
}
