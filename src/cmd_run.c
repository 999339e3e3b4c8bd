/* cmd_run.c - graft run RULES... MODEL [-o OUT] [--stats[=counts]] [--trace]:
 * apply the rules to a model and print the result. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "engine.h"
#include "engine_load.h"
#include "outfile.h"
#include "relay.h"
#include "util.h"

static const char run_help[] =
    "usage: graft run RULES... MODEL [-o OUT] [--stats[=counts]] [--trace]\n"
    "                 [--max-rewrites N]\n"
    "\n"
    "Apply the rules of RULES (.graft files) to MODEL (a .relay file) and print\n"
    "the result.  Rewrite rules run to a fixpoint first; then each partition\n"
    "rule makes one partition pass, best first.  '-' reads standard input.\n"
    "\n"
    "options:\n"
    "  -o OUT            write to OUT (atomically; '-' is standard output)\n"
    "  --stats           per rule on standard error: how often it was tried at\n"
    "                    a node, matched, applied, refused and why, and time\n"
    "  --stats=counts    the same without times (deterministic output)\n"
    "  --trace           print each rewrite and group to standard error\n"
    "  --max-rewrites N  stop after N rewrites and report the rules still\n"
    "                    firing (default: 10 per node plus 1000)\n"
    "  --help            show this help\n"
    "\n"
    "Exit status: 0 success, 1 bad input or no fixpoint, 2 bad usage.\n";

/* Options of graft run; strings point into argv. */
typedef struct RunArgs {
    const char **paths;    /* rule files, then the model */
    int npaths;            /* entries in paths */
    const char *out;       /* output path, NULL or "-" for stdout */
    int stats;             /* 0 none, 1 counts only, 2 counts and times */
    bool trace;            /* --trace */
    uint64_t max_rewrites; /* --max-rewrites, 0 = default */
} RunArgs;

/* --max-rewrites N: a positive decimal count; -1 when fine, else the
 * usage error's exit status. */
static int parse_count(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || !*s || *s == '-' || v == 0)
        return cli_usage_error("run", "'--max-rewrites' needs a positive number, not '%s'", s);
    *out = v;
    return -1;
}

/* Returns -1 when the arguments are fine, else the exit status. */
static int parse_args(int argc, char **argv, RunArgs *a)
{
    a->paths = xcalloc((size_t)argc + 1, sizeof *a->paths);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int rc = -1;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(run_help, stdout);
            return EXIT_OK;
        } else if (strcmp(arg, "-o") == 0) {
            if (++i == argc)
                return cli_usage_error("run", "option '-o' needs a file name");
            a->out = argv[i];
        } else if (strcmp(arg, "--stats") == 0) {
            a->stats = 2;
        } else if (strcmp(arg, "--stats=counts") == 0) {
            a->stats = 1;
        } else if (strcmp(arg, "--trace") == 0) {
            a->trace = true;
        } else if (strcmp(arg, "--max-rewrites") == 0) {
            if (++i == argc)
                return cli_usage_error("run", "option '--max-rewrites' needs a number");
            rc = parse_count(argv[i], &a->max_rewrites);
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return cli_usage_error("run", "unknown option '%s'", arg);
        } else
            a->paths[a->npaths++] = arg;
        if (rc >= 0)
            return rc;
    }
    if (a->npaths < 2)
        return cli_usage_error("run", "need RULES... and a MODEL");
    return cli_check_output("run", a->out, (const char *const *)a->paths, a->npaths);
}

static bool write_model(const Graph *g, const char *out, Diag *d)
{
    OutFile *of = outfile_open(out, d);
    if (!of)
        return false;
    relay_print(g, outfile_stream(of));
    return outfile_commit(of, d);
}

static bool run(const RunArgs *a, Diag *d)
{
    Loaded l;
    if (!engine_load(a->paths, a->npaths, &l, d))
        return false;
    EngineOptions opts = {.max_rewrites = a->max_rewrites, .trace = a->trace ? stderr : NULL};
    Engine *e = engine_new(&l.rules->rs, l.g, &opts);
    bool ok = engine_run(e, d) && write_model(l.g, a->out, d);
    if (a->stats)
        stats_print(engine_stats(e), &l.rules->rs, stderr, a->stats == 2);
    engine_free(e);
    engine_load_free(&l);
    return ok;
}

int cmd_run(int argc, char **argv)
{
    RunArgs a = {0};
    int rc = parse_args(argc, argv, &a);
    if (rc < 0) {
        Diag *d = diag_new(stderr);
        rc = run(&a, d) ? EXIT_OK : EXIT_BAD_INPUT;
        diag_free(d);
    }
    free(a.paths);
    return rc;
}
