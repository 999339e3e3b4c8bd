/* cmd_viz.c - graft viz MODEL [RULES...] [-o OUT.dot|OUT.svg]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diag.h"
#include "cli_load.h"
#include "outfile.h"
#include "relay.h"
#include "util.h"
#include "graph_dot.h"
#include "viz_focus.h"
#include "viz_rules.h"

static const char viz_help[] =
    "usage: graft viz MODEL [RULES...] [-o OUT.dot|OUT.svg]\n"
    "                 [--at NODE [--radius K] [--explain [--rule NAME]]]\n"
    "\n"
    "Draw a model as a Graphviz graph: data flows top to bottom, op calls are\n"
    "labelled boxes (with their %temp and type; with --at, their model file\n"
    "position too), variables ellipses, constants plain text, local functions\n"
    "dashed clusters.  Dot text goes to standard output unless -o names a file;\n"
    "a name ending in .svg is rendered with Graphviz's 'dot' (set GRAFT_DOT to\n"
    "use another binary).\n"
    "RULES (.graft files) highlight the nodes of every match, labelled with\n"
    "the rule's name and the match's number (as 'graft match' lists them).\n"
    "\n"
    "options:\n"
    "  -o OUT            write to OUT (atomically; '-' is standard output)\n"
    "  --at NODE         draw only NODE's neighbourhood (a name as graft fmt\n"
    "                    prints it, or a model position :LINE[:COL])\n"
    "  --radius K        how many edges around NODE (default 2)\n"
    "  --explain         colour what each rule's pattern matched with NODE as\n"
    "                    root (green) and the node where it failed (red), as\n"
    "                    graft explain tells it\n"
    "  --rule NAME       with --explain: only this rule\n";

static void print_help(void)
{
    fputs(viz_help, stdout);
    fputs(options_limit_help, stdout);
    fputs("  --help            show this help\n"
          "\n"
          "Exit status: 0 success, 1 bad input or no Graphviz, 2 bad usage.\n", stdout);
}

/* Options of graft viz; strings point into argv. */
typedef struct VizArgs {
    const char *model;  /* input path, "-" for stdin */
    const char *out;    /* output path, NULL or "-" for stdout */
    const char **paths; /* rule files, then the model (cli_load's order) */
    int nrules;         /* rule files given after MODEL */
    Limits limits;      /* GRAFT_LIMITS and --limit */
    VizFocus focus;     /* --at, --radius, --explain, --rule */
} VizArgs;

/* Returns -1 when the arguments are fine, else the exit status. */
static int parse_args(int argc, char **argv, VizArgs *a)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int rc = cli_parse_common("viz", argc, argv, &i, &a->out, &a->limits, print_help);
        if (rc == OPTION_NOT_MINE)
            rc = viz_focus_option(argc, argv, &i, &a->focus);
        if (rc != OPTION_NOT_MINE) {
            if (rc >= 0)
                return rc;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return cli_usage_error("viz", "unknown option '%s'", arg);
        } else if (a->model) {
            a->paths[a->nrules++] = arg;
        } else {
            a->model = arg;
        }
    }
    if (!a->model)
        return cli_usage_error("viz", "no MODEL given");
    int rc = viz_focus_check(&a->focus, a->nrules);
    if (rc >= 0)
        return rc;
    a->paths[a->nrules] = a->model;
    return cli_check_output("viz", a->out, a->paths, a->nrules + 1);
}

static bool wants_svg(const char *out)
{
    size_t n = out ? strlen(out) : 0;
    return n > 4 && strcmp(out + n - 4, ".svg") == 0;
}

/* Writes the drawing of g to the atomic output; true on success. */
static bool write_drawing(const Graph *g, const VizMatches *vm, const uint8_t *keep,
                          const char *model, const char *out, Diag *d)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        graft_out_of_memory();
    viz_write_some(g, vm->h, vm->n, keep, model, mem);
    fclose(mem);
    OutFile *of = outfile_open(out, d);
    bool ok = of != NULL;
    if (ok && wants_svg(out))
        ok = viz_render_svg(text, len, outfile_stream(of));
    else if (ok)
        fwrite(text, 1, len, outfile_stream(of));
    if (ok)
        ok = outfile_commit(of, d);
    else
        outfile_abort(of);
    free(text);
    return ok;
}

/* The model alone, or with the matches of the rules highlighted. */
static bool run_viz(const VizArgs *a, Diag *d)
{
    VizMatches vm = {NULL, 0, 0, 0};
    if (a->nrules) {
        Loaded l;
        if (!cli_load(a->paths, a->nrules + 1, &a->limits, &l, d))
            return false;
        bool bad;
        uint8_t *keep = viz_focus_keep(&a->focus, l.g, l.src->name, &bad, d);
        bool ok = !bad && (a->focus.explain
                               ? viz_focus_explain(&a->focus, &l.rules->rs, l.g, l.src->name,
                                                   &a->limits, &vm, d)
                               : viz_find_matches(&l.rules->rs, l.g, &a->limits, &vm, d)) &&
                  write_drawing(l.g, &vm, keep, keep ? l.src->name : NULL, a->out, d);
        free(keep);
        viz_matches_free(&vm);
        cli_load_free(&l);
        return ok;
    }
    Source *src = source_read(a->model, d);
    Graph *g = src ? relay_load_limited(src, &a->limits, d) : NULL;
    bool bad = false;
    uint8_t *keep = g ? viz_focus_keep(&a->focus, g, src->name, &bad, d) : NULL;
    bool ok = g && !bad && write_drawing(g, &vm, keep, keep ? src->name : NULL, a->out, d);
    free(keep);
    graph_free(g);
    source_free(src);
    return ok;
}

int cmd_viz(int argc, char **argv, const Limits *limits)
{
    VizArgs a = {NULL, NULL, xcalloc((size_t)argc + 1, sizeof(char *)), 0, *limits,
                 {.radius = 2}};
    int rc = parse_args(argc, argv, &a);
    if (rc < 0) {
        Diag *d = cli_diag_new(&a.limits);
        rc = run_viz(&a, d) ? EXIT_OK : EXIT_BAD_INPUT;
        diag_free(d);
    }
    free(a.paths);
    return rc;
}
