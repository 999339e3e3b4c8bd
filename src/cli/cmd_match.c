/* cmd_match.c - graft match RULES... MODEL: list every match.
 *
 * One line per match, nodes in graph order (operands first), rules in
 * file order at each node:
 *
 *   bn at %5 (bn.relay:6:8) add: gamma=%gamma, x=%x, eps=1e-05f, beta=%beta
 *
 * Nodes are named as graft fmt prints the model (note [node names] in
 * node_label.h): %N temps, %name variables, constants by their text,
 * @main's result <output>; another node printed inline (a function's
 * result) shows as #ID; a node inside another global function is prefixed
 * with it: @f:%3, @f:<output>.  The root has its model file position.
 * In an ONNX model the matches inside subgraphs come first, in the order
 * graft run rewrites them (note [subgraph walk] in subgraph_walk.h), their
 * nodes named "GRAPH/NAME" (note [subgraph node names] in node_label.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "engine.h"
#include "cli_load.h"
#include "node_label.h"
#include "subgraph_walk.h"
#include "util.h"

static const char match_help[] =
    "usage: graft match RULES... MODEL\n"
    "\n"
    "List every place a rule of RULES matches in MODEL: the rule, the root\n"
    "node and the bindings, one match per line, in graph order (operands\n"
    "first) and file order of the rules at each node.  Nodes are named as\n"
    "'graft fmt' prints the model; a node printed inline shows as #ID.  The\n"
    "node of a global function other than @main is prefixed with it (@f:%3).\n"
    "The root is followed by its position in MODEL, as graft explain --at takes\n"
    "it.  In an ONNX model, the matches inside subgraphs (If's branches, Loop's\n"
    "and Scan's bodies) come first, nested ones before the graph around them,\n"
    "as graft run rewrites them; their nodes are named GRAPH/NAME\n"
    "(then_branch/a), as graft explain --at takes them.\n"
    "\n"
    "options:\n";

static void print_help(void)
{
    fputs(match_help, stdout);
    fputs(cli_allow_unknown_help, stdout);
    fputs(cli_warning_help, stdout);
    fputs(options_limit_help, stdout);
    fputs("  --help            show this help\n"
          "\n"
          "Exit status: 0 success, 1 bad input, 2 bad usage.\n", stdout);
}

/* What the visitor needs to print one match. */
typedef struct MatchOut {
    const graft_rule_set *rs;  /* for rule and slot names */
    graft_engine *e;    /* the engine, for the roots of a match */
    const NodeLabels *names; /* the names of the graph's nodes */
    const graft_limits *limits; /* for each graph's engine */
    uint64_t count;     /* matches printed */
    StrBuf key;         /* scratch for attribute values and names */
} MatchOut;

static void put_node(MatchOut *o, const graft_node *n, bool at)
{
    o->key.len = 0;
    if (at)
        node_label_at(o->names, n, &o->key);
    else
        node_label(o->names, n, &o->key);
    fputs(o->key.data, stdout);
}

/* A callee variable (note [callee variables] in pattern.h) holds the call
 * it was bound at; it stands for that call's op or function. */
static void put_callee(MatchOut *o, const graft_node *call)
{
    if (node_op(call))
        fputs(node_op(call), stdout);
    else
        put_node(o, node_callee(call), false);
}

/* A rule of several roots: "; roots %3, %0, %1", the node of each. */
static void put_roots(MatchOut *o, const graft_rule *rule)
{
    int n;
    graft_node *const *roots = rule->nroots ? engine_match_root_nodes(o->e, &n) : NULL;
    for (int j = 0; roots && j < n; j++) {
        fputs(j ? ", " : "; roots ", stdout);
        put_node(o, roots[j], false);
    }
}

static void visit(void *ctx, uint32_t r, graft_node *root, const graft_binding *b)
{
    MatchOut *o = ctx;
    const graft_rule *rule = &o->rs->rules[r];
    printf("%s at ", rule->name);
    put_node(o, root, true);
    printf(" %s", node_kind_name(root));
    const char *sep = ": ";
    for (int s = 0; s < rule->nslots; s++) {
        if (!b[s].node && !b[s].attr)
            continue;
        printf("%s%s=", sep, rule->slot_names[s]);
        sep = ", ";
        if (b[s].node && pattern_is_callee_slot(rule->pattern, s))
            put_callee(o, b[s].node);
        else if (b[s].node)
            put_node(o, b[s].node, false);
        else {
            o->key.len = 0;
            pattern_attr_key(b[s].attr, &o->key);
            fputs(o->key.data, stdout);
        }
    }
    put_roots(o, rule);
    putchar('\n');
    o->count++;
}

/* The matches in g, whose nodes names names. */
static void list_graph(MatchOut *o, graft_graph *g, const NodeLabels *names,
                       const graft_limits *limits)
{
    EngineOptions opts = {.limits = limits};
    o->e = engine_new(o->rs, g, &opts);
    o->names = names;
    engine_matches(o->e, visit, o);
    engine_free(o->e);
}

/* The subgraph walk's leave: the matches in subgraph v. */
static Onnx__GraphProto *list_view(void *ctx, SubgraphView *v, bool changed)
{
    MatchOut *o = ctx;
    (void)changed;
    list_graph(o, v->m->g, &v->labels, o->limits);
    return NULL;
}

static bool list_matches(const char *const *paths, int n, const graft_limits *limits,
                         bool allow_unknown_ops, graft_diag *d)
{
    Loaded l;
    if (!cli_load(paths, n, limits, allow_unknown_ops, &l, d))
        return false;
    MatchOut o = {.rs = &l.rules->rs, .limits = limits};
    SubgraphVisitor vis = {.leave = list_view, .ctx = &o};
    bool ok = !l.onnx || subgraph_walk(l.onnx, o.rs, l.src->name, &vis, d);
    NodeLabels names;
    node_labels_init(&names, l.g, l.src->name);
    if (ok)
        list_graph(&o, l.g, &names, limits);
    node_labels_free(&names);
    strbuf_free(&o.key);
    cli_load_free(&l);
    return ok; /* a write error: note [standard output errors] in main.c */
}

int cmd_match(int argc, char **argv, const graft_limits *limits)
{
    const char **paths = xcalloc((size_t)argc + 1, sizeof *paths);
    graft_limits lim = *limits;
    int n = 0, rc = -1;
    bool allow_unknown_ops = false;
    CliWarnings warnings = {0};
    for (int i = 1; i < argc && rc < 0; i++) {
        if (strcmp(argv[i], "--allow-unknown-ops") == 0) {
            allow_unknown_ops = true;
            continue;
        }
        int taken = cli_parse_common("match", argc, argv, &i, NULL, &lim, print_help);
        if (taken == OPTION_NOT_MINE)
            taken = cli_parse_warning("match", argv[i], &warnings);
        if (taken != OPTION_NOT_MINE)
            rc = taken;
        else if (argv[i][0] == '-' && argv[i][1] != '\0')
            rc = cli_usage_error("match", "unknown option '%s'", argv[i]);
        else
            paths[n++] = argv[i];
    }
    if (rc < 0 && n < 2)
        rc = cli_usage_error("match", "need RULES... and a MODEL");
    if (rc < 0)
        rc = cli_check_stdin_once("match", paths, n);
    if (rc < 0)
        rc = cli_check_kinds("graft match RULES... MODEL", paths, n - 1, paths[n - 1]);
    if (rc < 0) {
        graft_diag *d = cli_diag_new(&lim);
        cli_warnings_apply(&warnings, d);
        rc = list_matches(paths, n, &lim, allow_unknown_ops, d) ? EXIT_OK : EXIT_BAD_INPUT;
        diag_free(d);
    }
    free(paths);
    return rc;
}
