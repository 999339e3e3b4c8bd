/* runner.c - graft run's options and steps, shared with compiled
 * rewriters (runner.h). */
#include "runner.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "options.h"
#include "outfile.h"
#include "relay.h"

const char runner_options_help[] =
    "  -o OUT            write to OUT (atomically; '-' is standard output)\n"
    "  --stats           per rule on standard error: how often it was tried at\n"
    "                    a node, matched, applied, refused and why, and time\n"
    "  --stats=counts    the same without times (deterministic output)\n"
    "  --trace           print each rewrite and group to standard error\n"
    "  --max-rewrites N  stop after N rewrites and report the rules still\n"
    "                    firing (default: 10 per node plus 1000); the same as\n"
    "                    --limit rewrites=N\n";

/* --max-rewrites N: a positive decimal count. */
static int parse_max_rewrites(const char *prog, int argc, char **argv, int *i,
                              RunOptions *o)
{
    if (++*i == argc)
        return options_usage_error(prog, "option '--max-rewrites' needs a number");
    const char *s = argv[*i];
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || !*s || *s == '-' || v == 0)
        return options_usage_error(prog, "'--max-rewrites' needs a positive number, not '%s'",
                                   s);
    o->limits.rewrites = v;
    return -1;
}

int runner_parse_option(const char *prog, int argc, char **argv, int *i, RunOptions *o)
{
    const char *arg = argv[*i];
    if (strcmp(arg, "-o") == 0) {
        if (++*i == argc)
            return options_usage_error(prog, "option '-o' needs a file name");
        o->out = argv[*i];
    } else if (strcmp(arg, "--stats") == 0) {
        o->stats = 2;
    } else if (strcmp(arg, "--stats=counts") == 0) {
        o->stats = 1;
    } else if (strcmp(arg, "--trace") == 0) {
        o->trace = true;
    } else if (strcmp(arg, "--max-rewrites") == 0) {
        return parse_max_rewrites(prog, argc, argv, i, o);
    } else
        return options_parse_limit(prog, argc, argv, i, &o->limits);
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

bool runner_run(const RuleSet *rs, Graph *g, const RunOptions *o, Diag *d)
{
    EngineOptions opts = {.trace = o->trace ? stderr : NULL, .limits = &o->limits};
    Engine *e = engine_new(rs, g, &opts);
    bool ok = engine_run(e, d) && write_model(g, o->out, d);
    if (o->stats)
        stats_print(engine_stats(e), rs, stderr, o->stats == 2);
    engine_free(e);
    return ok;
}
