/* standalone.c - the main of a standalone rewriter built by
 * `graft compile --exe` (emit_c_rt.h).  It does what graft run does
 * (src/cmd_run.c) with a compiled rule set: the same options, the same
 * output and statistics, the same exit status. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_c_rt.h"
#include "outfile.h"
#include "relay.h"
#include "util.h"

enum { STANDALONE_OK = 0, STANDALONE_BAD_INPUT = 1, STANDALONE_USAGE = 2 };

static const char standalone_help[] =
    "usage: %s MODEL [-o OUT] [--stats[=counts]] [--trace] [--max-rewrites N]\n"
    "\n"
    "Apply the rules compiled into this program to MODEL (a .relay file) and\n"
    "print the result, as graft run does.  '-' reads standard input.\n"
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

/* Options of one run; strings point into argv. */
typedef struct StandaloneArgs {
    const char *prog;      /* argv[0], for messages */
    const char *model;     /* the model file */
    const char *out;       /* output path, NULL or "-" for stdout */
    int stats;             /* 0 none, 1 counts only, 2 counts and times */
    bool trace;            /* --trace */
    uint64_t max_rewrites; /* --max-rewrites, 0 = default */
} StandaloneArgs;

static int usage_error(const StandaloneArgs *a, const char *fmt, ...) GRAFT_PRINTF(2, 3);

static int usage_error(const StandaloneArgs *a, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", a->prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s --help'.\n", a->prog);
    return STANDALONE_USAGE;
}

static int parse_count(const StandaloneArgs *a, const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || !*s || *s == '-' || v == 0)
        return usage_error(a, "'--max-rewrites' needs a positive number, not '%s'", s);
    *out = v;
    return -1;
}

/* One option at argv[*i]; -1 when fine, else the exit status. */
static int parse_option(int argc, char **argv, int *i, StandaloneArgs *a)
{
    const char *arg = argv[*i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
        printf(standalone_help, a->prog);
        return STANDALONE_OK;
    } else if (strcmp(arg, "-o") == 0) {
        if (++*i == argc)
            return usage_error(a, "option '-o' needs a file name");
        a->out = argv[*i];
    } else if (strcmp(arg, "--stats") == 0) {
        a->stats = 2;
    } else if (strcmp(arg, "--stats=counts") == 0) {
        a->stats = 1;
    } else if (strcmp(arg, "--trace") == 0) {
        a->trace = true;
    } else if (strcmp(arg, "--max-rewrites") == 0) {
        if (++*i == argc)
            return usage_error(a, "option '--max-rewrites' needs a number");
        return parse_count(a, argv[*i], &a->max_rewrites);
    } else
        return usage_error(a, "unknown option '%s'", arg);
    return -1;
}

/* Returns -1 when the arguments are fine, else the exit status. */
static int parse_args(int argc, char **argv, StandaloneArgs *a)
{
    a->prog = argc > 0 ? argv[0] : "rewriter";
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] == '-' && arg[1] != '\0') {
            int rc = parse_option(argc, argv, &i, a);
            if (rc >= 0)
                return rc;
        } else if (a->model)
            return usage_error(a, "only one MODEL, not '%s' too", arg);
        else
            a->model = arg;
    }
    if (!a->model)
        return usage_error(a, "need a MODEL");
    if (outfile_same_file(a->out, a->model)) /* note [input never overwritten] */
        return usage_error(a, "output '%s' is the input '%s'; refusing to overwrite it",
                           a->out, a->model);
    return -1;
}

static bool write_model(const Graph *g, const char *out, Diag *d)
{
    OutFile *of = outfile_open(out, d);
    if (!of)
        return false;
    relay_print(g, outfile_stream(of));
    return outfile_commit(of, d);
}

/* Loads the model, runs the rules, writes the result and statistics. */
static bool run(const RuleSet *rs, const StandaloneArgs *a, Diag *d)
{
    Source *src = source_read(a->model, d);
    Graph *g = src ? relay_load(src, d) : NULL;
    if (!g) {
        source_free(src);
        return false;
    }
    EngineOptions opts = {.max_rewrites = a->max_rewrites, .trace = a->trace ? stderr : NULL};
    Engine *e = engine_new(rs, g, &opts);
    bool ok = engine_run(e, d) && write_model(g, a->out, d);
    if (a->stats)
        stats_print(engine_stats(e), rs, stderr, a->stats == 2);
    engine_free(e);
    graph_free(g);
    source_free(src);
    return ok;
}

int graft_standalone_main(const RuleSet *rs, int argc, char **argv)
{
    StandaloneArgs a = {0};
    /* A file size limit must fail the write (reported, temporary file
     * removed), not kill the program midway (note [atomic output]). */
    signal(SIGXFSZ, SIG_IGN);
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    Diag *d = diag_new(stderr);
    rc = run(rs, &a, d) ? STANDALONE_OK : STANDALONE_BAD_INPUT;
    diag_free(d);
    return rc;
}
