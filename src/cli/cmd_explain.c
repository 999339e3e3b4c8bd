/* cmd_explain.c - graft explain RULES... MODEL: why a rule did or did not
 * fire.
 *
 *   --at NODE [--rule NAME]   each rule (or the one named) at NODE: matches
 *                             or not, the deepest partial match, the first
 *                             failed constraint as notes into both files,
 *                             a guard's values, why a match is not applied
 *   --rule NAME [--near N]    the N best partial matches of the rule
 *   --check-all               explain against match over every node and
 *                             rule: one summary line, exit 1 on any
 *                             disagreement
 *
 * The work is the engine's (engine_explain.c), on the same matcher that
 * graft match and graft run use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_load.h"
#include "engine.h"
#include "util.h"

static const char explain_help[] =
    "usage: graft explain RULES... MODEL --at NODE [--rule NAME]\n"
    "       graft explain RULES... MODEL --rule NAME [--near N]\n"
    "       graft explain RULES... MODEL --check-all\n"
    "\n"
    "Say why a rule of RULES does or does not match in MODEL.  With --at, for\n"
    "each rule (or the one named) whether it matches with NODE as root and, if\n"
    "not, the pattern parts that matched, the first constraint that failed as a\n"
    "note into the rule file and one into the model, and the value of every\n"
    "condition of a guard; for a match, why graft run would not apply it\n"
    "(interior use, a rule tried first).  NODE is a name as 'graft match' and\n"
    "'graft fmt' print it (%5, %x, <output>) or a model position\n"
    "(model.relay:42, :42:7).  Without --at, the N best partial matches of\n"
    "the rule named by --rule, deepest first.\n"
    "\n"
    "options:\n"
    "  --at NODE         the node to explain at\n"
    "  --rule NAME       only this rule\n"
    "  --near N          how many partial matches to list (default 5)\n"
    "  --check-all       check explain against match at every node\n";

static void print_help(void)
{
    fputs(explain_help, stdout);
    fputs(options_limit_help, stdout);
    fputs("  --help            show this help\n"
          "\n"
          "Exit status: 0 success (whether or not a rule matches), 1 bad input or\n"
          "a --check-all disagreement, 2 bad usage.\n", stdout);
}

typedef struct ExplainArgs {
    const char **paths; /* RULES... MODEL */
    int npaths;
    const char *at;     /* --at, or NULL */
    const char *rule;   /* --rule, or NULL */
    uint32_t near;      /* --near */
    bool check_all;     /* --check-all */
} ExplainArgs;

/* The rule named name, or UINT32_MAX. */
static uint32_t find_rule(const RuleSet *rs, const char *name)
{
    for (uint32_t r = 0; r < rs->nrules; r++)
        if (strcmp(rs->rules[r].name, name) == 0)
            return r;
    return UINT32_MAX;
}

/* "@f:%3": a node inside another function, which models of one function
 * do not have yet. */
static bool names_function(const char *at)
{
    return at[0] == '@';
}

static int run_explain(const ExplainArgs *a, const Limits *limits, Diag *d)
{
    Loaded l;
    if (!cli_load(a->paths, a->npaths, limits, &l, d))
        return EXIT_BAD_INPUT;
    const RuleSet *rs = &l.rules->rs;
    int rc = EXIT_OK;
    uint32_t only = UINT32_MAX;
    if (a->rule && (only = find_rule(rs, a->rule)) == UINT32_MAX) {
        diag_plain_error(d, "no rule '%s' in the rule files", a->rule);
        cli_load_free(&l);
        return EXIT_BAD_INPUT;
    }
    EngineOptions opts = {.limits = limits};
    Engine *e = engine_new(rs, l.g, &opts);
    Explainer *x = explainer_new(e, l.src, stdout);
    if (a->check_all)
        rc = explainer_check_all(x) ? EXIT_BAD_INPUT : EXIT_OK;
    else if (!a->at)
        explainer_near(x, only, a->near);
    else {
        Node *at = names_function(a->at) ? NULL : explainer_find(x, a->at);
        if (!at && names_function(a->at)) {
            size_t len = strcspn(a->at, ":");
            diag_plain_error(d, "no function %.*s in '%s' (a model has one function, @main)",
                             (int)len, a->at, l.src->name);
            rc = EXIT_BAD_INPUT;
        } else if (!at) {
            diag_plain_error(d, "no node '%s' in '%s' (name it as 'graft fmt' prints it, "
                             "or by its position, :LINE[:COL])", a->at, l.src->name);
            rc = EXIT_BAD_INPUT;
        } else
            for (uint32_t r = 0; r < rs->nrules; r++)
                if (only == UINT32_MAX || r == only)
                    explainer_at(x, r, at);
    }
    explainer_free(x);
    engine_free(e);
    cli_load_free(&l);
    if (fflush(stdout) != 0)
        rc = EXIT_BAD_INPUT;
    return rc;
}

/* Parses the options of explain at argv[*i]: -1 taken, an exit status, or
 * OPTION_NOT_MINE. */
static int parse_option(int argc, char **argv, int *i, ExplainArgs *a)
{
    const char *opt = argv[*i];
    if (strcmp(opt, "--check-all") == 0) {
        a->check_all = true;
        return -1;
    }
    if (strcmp(opt, "--at") && strcmp(opt, "--rule") && strcmp(opt, "--near"))
        return OPTION_NOT_MINE;
    if (*i + 1 >= argc)
        return cli_usage_error("explain", "option '%s' needs a value", opt);
    const char *v = argv[++*i];
    if (strcmp(opt, "--at") == 0)
        a->at = v;
    else if (strcmp(opt, "--rule") == 0)
        a->rule = v;
    else {
        char *end;
        unsigned long n = strtoul(v, &end, 10);
        if (*end || end == v || n == 0 || n > 1000000)
            return cli_usage_error("explain", "--near wants a count from 1 to 1000000, "
                                   "not '%s'", v);
        a->near = (uint32_t)n;
    }
    return -1;
}

int cmd_explain(int argc, char **argv, const Limits *limits)
{
    ExplainArgs a = {xcalloc((size_t)argc + 1, sizeof *a.paths), 0, NULL, NULL, 5, false};
    Limits lim = *limits;
    int rc = -1;
    for (int i = 1; i < argc && rc < 0; i++) {
        int taken = cli_parse_common("explain", argc, argv, &i, NULL, &lim, print_help);
        if (taken == OPTION_NOT_MINE && argv[i][0] == '-' && argv[i][1] != '\0')
            taken = parse_option(argc, argv, &i, &a);
        if (taken != OPTION_NOT_MINE)
            rc = taken;
        else if (argv[i][0] == '-' && argv[i][1] != '\0')
            rc = cli_usage_error("explain", "unknown option '%s'", argv[i]);
        else
            a.paths[a.npaths++] = argv[i];
    }
    if (rc < 0 && a.npaths < 2)
        rc = cli_usage_error("explain", "need RULES... and a MODEL");
    if (rc < 0 && !a.at && !a.rule && !a.check_all)
        rc = cli_usage_error("explain", "say where: --at NODE, or --rule NAME for the "
                             "near misses, or --check-all");
    if (rc < 0) {
        Diag *d = cli_diag_new(&lim);
        rc = run_explain(&a, &lim, d);
        diag_free(d);
    }
    free(a.paths);
    return rc;
}
