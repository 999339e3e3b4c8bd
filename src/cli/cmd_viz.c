/* cmd_viz.c - graft viz [RULES...] MODEL [-o OUT.dot|OUT.svg|OUT.png|OUT.pdf]
 *             [--at NODE [--radius K] [--explain [--rule NAME]]]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diag.h"
#include "cli_load.h"
#include "graph_dot.h"
#include "input_kind.h"
#include "onnx_file.h"
#include "outfile.h"
#include "relay.h"
#include "util.h"
#include "viz_focus.h"
#include "viz_rules.h"
#include "viz_subgraphs.h"
#include "subgraph_walk.h"

static const char viz_help[] =
    "usage: graft viz [RULES...] MODEL [-o OUT.dot|OUT.svg|OUT.png|OUT.pdf]\n"
    "                 [--at NODE [--radius K] [--explain [--rule NAME]]]\n"
    "\n"
    "Draw a model as a Graphviz graph: data flows top to bottom, op calls are\n"
    "labelled boxes (with their %temp, model file position and type),\n"
    "variables ellipses, constants plain text, local functions\n"
    "dashed clusters.  Dot text goes to standard output unless -o names a\n"
    "file; the file's extension chooses the format:\n"
    ".dot (or none) dot text, .svg, .png or .pdf rendered with Graphviz's\n"
    "'dot' (set GRAFT_DOT to use another binary).\n"
    "RULES (.graft files) highlight the nodes of every match, labelled with\n"
    "the rule's name and the match's number (as 'graft match' lists them).\n"
    "An ONNX model's subgraphs (If's branches, Loop's and Scan's bodies) are\n"
    "dashed clusters, each with a dashed edge to the node that holds it.\n"
    "The old order, MODEL RULES..., still works with a note on stderr.\n"
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

static const char viz_usage[] = "graft viz [RULES...] MODEL";

static void print_help(void)
{
    fputs(viz_help, stdout);
    fputs(cli_allow_unknown_help, stdout);
    fputs(options_limit_help, stdout);
    fputs("  --help            show this help\n"
          "\n"
          "Exit status: 0 success, 1 bad input or no Graphviz, 2 bad usage.\n", stdout);
}

/* Options of graft viz; strings point into argv. */
typedef struct VizArgs {
    const char *out;    /* output path, NULL or "-" for stdout */
    const char *format; /* NULL for dot text, else dot's -T ("svg", ...) */
    const char **paths; /* rule files, then the model (cli_load's order) */
    int npaths;         /* entries in paths */
    graft_limits limits;      /* GRAFT_LIMITS and --limit */
    VizFocus focus;     /* --at, --radius, --explain, --rule */
    bool allow_unknown_ops; /* --allow-unknown-ops */
} VizArgs;

/* What path seems to hold: its first tokens, else its extension. */
static InputKind guess_kind(const char *path)
{
    InputKind kind = input_kind_of_file(path);
    size_t n = strlen(path);
    if (kind == INPUT_UNKNOWN && n > 6 && strcmp(path + n - 6, ".relay") == 0)
        return INPUT_MODEL;
    if (kind == INPUT_UNKNOWN && n > 6 && strcmp(path + n - 6, ".graft") == 0)
        return INPUT_RULES;
    return kind;
}

/* The order before RULES... MODEL was MODEL RULES...: taken when the first
 * path is the model or the last one rules, with a note; the paths are
 * then put in the new order. */
static void accept_old_order(VizArgs *a)
{
    if (a->npaths < 2)
        return;
    InputKind first = guess_kind(a->paths[0]), last = guess_kind(a->paths[a->npaths - 1]);
    if (!(first == INPUT_MODEL && last != INPUT_MODEL) &&
        !(last == INPUT_RULES && first != INPUT_RULES))
        return;
    fprintf(stderr, "graft viz: note: 'graft viz MODEL RULES...' is deprecated; "
                    "use 'graft viz RULES... MODEL'\n");
    const char *model = a->paths[0];
    memmove(a->paths, a->paths + 1, (size_t)(a->npaths - 1) * sizeof *a->paths);
    a->paths[a->npaths - 1] = model;
}

/* The format -o's extension asks for: -1 when it is fine (a->format set),
 * else EXIT_USAGE. */
static int output_format(VizArgs *a)
{
    static const char *const rendered[] = {"svg", "png", "pdf"};
    if (!a->out || strcmp(a->out, "-") == 0)
        return -1;
    const char *base = strrchr(a->out, '/');
    base = base ? base + 1 : a->out;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base || strcmp(dot, ".dot") == 0)
        return -1;
    for (size_t i = 0; i < sizeof rendered / sizeof *rendered; i++)
        if (strcmp(dot + 1, rendered[i]) == 0) {
            a->format = rendered[i];
            return -1;
        }
    return cli_usage_error("viz", "cannot tell the format of '%s' from its extension: "
                           "use .dot, .svg, .png or .pdf", a->out);
}

/* Returns -1 when the arguments are fine, else the exit status. */
static int parse_args(int argc, char **argv, VizArgs *a)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int rc = cli_parse_common("viz", argc, argv, &i, &a->out, &a->limits, print_help);
        if (rc == OPTION_NOT_MINE)
            rc = viz_focus_option(argc, argv, &i, &a->focus);
        if (rc == OPTION_NOT_MINE && strcmp(arg, "--allow-unknown-ops") == 0) {
            a->allow_unknown_ops = true;
            continue;
        }
        if (rc != OPTION_NOT_MINE) {
            if (rc >= 0)
                return rc;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return cli_usage_error("viz", "unknown option '%s'", arg);
        } else {
            a->paths[a->npaths++] = arg;
        }
    }
    if (a->npaths == 0)
        return cli_usage_error("viz", "no MODEL given");
    accept_old_order(a);
    int rc = cli_check_stdin_once("viz", a->paths, a->npaths);
    if (rc < 0)
        rc = viz_focus_check(&a->focus, a->npaths - 1);
    if (rc < 0)
        rc = cli_check_kinds(viz_usage, a->paths, a->npaths - 1, a->paths[a->npaths - 1]);
    if (rc < 0)
        rc = cli_check_output("viz", a->out, a->paths, a->npaths);
    return rc >= 0 ? rc : output_format(a);
}

/* Writes the drawing of g (only the nodes keep marks, when not NULL; labels
 * carry positions in model, as every command names nodes: note [node
 * names]) to the atomic output; true on success. */
static bool write_drawing(const graft_graph *g, const VizMatches *vm, const uint8_t *keep,
                          const char *model, const char *clusters, const VizArgs *a,
                          graft_diag *d)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        out_of_memory();
    viz_write_with(g, vm->h.items + vm->main, vm->h.len - vm->main, keep, model, clusters,
                   mem);
    fclose(mem);
    OutFile *of = outfile_open(a->out, d);
    bool ok = of != NULL;
    if (ok && a->format)
        ok = viz_render(text, len, a->format, outfile_stream(of));
    else if (ok)
        fwrite(text, 1, len, outfile_stream(of));
    if (ok)
        ok = outfile_commit(of, d);
    else
        outfile_abort(of);
    free(text);
    return ok;
}

/* The clusters of m's subgraphs, their matches found first into vm, and
 * then the main graph's (rs NULL: none); *ok false after reporting.  No
 * clusters for a model without subgraphs, nor for --at's neighbourhood. */
static char *find_all(const VizArgs *a, OnnxModel *m, const graft_rule_set *rs, VizMatches *vm,
                      bool *ok, graft_diag *d)
{
    char *clusters = NULL;
    *ok = true;
    if (m && !a->focus.at && subgraph_any(m)) {
        clusters = viz_subgraphs(m, rs, &a->limits, vm, d);
        *ok = clusters != NULL;
    }
    vm->main = vm->h.len;
    if (*ok && rs)
        *ok = viz_find_more(rs, m ? m->g : NULL, &a->limits, vm, d);
    return clusters;
}

/* The model with the matches of the rules highlighted. */
static bool run_viz_rules(const VizArgs *a, graft_diag *d)
{
    VizMatches vm = {0};
    Loaded l;
    if (!cli_load(a->paths, a->npaths, &a->limits, a->allow_unknown_ops, &l, d))
        return false;
    bool bad, ok = true;
    uint8_t *keep = viz_focus_keep(&a->focus, l.g, l.src->name, &bad, d);
    char *clusters = NULL;
    if (!bad && a->focus.explain)
        ok = viz_focus_explain(&a->focus, &l.rules->rs, l.g, l.src->name, &a->limits, &vm, d);
    else if (!bad && l.onnx)
        clusters = find_all(a, l.onnx, &l.rules->rs, &vm, &ok, d);
    else if (!bad)
        ok = viz_find_matches(&l.rules->rs, l.g, &a->limits, &vm, d);
    ok = !bad && ok && write_drawing(l.g, &vm, keep, l.src->name, clusters, a, d);
    free(clusters);
    free(keep);
    viz_matches_free(&vm);
    cli_load_free(&l);
    return ok;
}

/* The model alone, or with the matches of the rules highlighted. */
static bool run_viz(const VizArgs *a, graft_diag *d)
{
    if (a->npaths > 1)
        return run_viz_rules(a, d);
    VizMatches vm = {0};
    bool onnx = input_kind_of_file(a->paths[0]) == INPUT_ONNX;
    OnnxModel *m = onnx ? onnx_file_load(a->paths[0], &a->limits, NULL, true, d) : NULL;
    Source *src = onnx ? (m ? source_from_string(a->paths[0], "", 0) : NULL)
                       : source_read(a->paths[0], d);
    graft_graph *g = m ? m->g
                 : src ? cli_load_model(src, &a->limits, NULL, a->allow_unknown_ops, d) : NULL;
    bool bad = false, ok = true;
    uint8_t *keep = g ? viz_focus_keep(&a->focus, g, src->name, &bad, d) : NULL;
    char *clusters = g && !bad ? find_all(a, m, NULL, &vm, &ok, d) : NULL;
    ok = g && !bad && ok && write_drawing(g, &vm, keep, src->name, clusters, a, d);
    free(clusters);
    free(keep);
    viz_matches_free(&vm);
    if (m)
        onnx_graph_free(m);
    else
        graph_free(g);
    source_free(src);
    return ok;
}

int cmd_viz(int argc, char **argv, const graft_limits *limits)
{
    VizArgs a = {.paths = xcalloc((size_t)argc + 1, sizeof(char *)), .limits = *limits,
                 .focus = {.radius = 2}};
    int rc = parse_args(argc, argv, &a);
    if (rc < 0) {
        graft_diag *d = cli_diag_new(&a.limits);
        rc = run_viz(&a, d) ? EXIT_OK : EXIT_BAD_INPUT;
        diag_free(d);
    }
    free(a.paths);
    return rc;
}
