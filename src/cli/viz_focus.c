/* viz_focus.c - the neighbourhood of a node, and an explanation in
 * colour, for graft viz (viz_focus.h). */
#include "viz_focus.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "engine.h"
#include "node_label.h"
#include "util.h"

int viz_focus_option(int argc, char **argv, int *i, VizFocus *f)
{
    const char *opt = argv[*i];
    if (strcmp(opt, "--explain") == 0) {
        f->explain = true;
        return -1;
    }
    if (strcmp(opt, "--at") && strcmp(opt, "--radius") && strcmp(opt, "--rule"))
        return OPTION_NOT_MINE;
    if (++*i == argc)
        return cli_usage_error("viz", "option '%s' needs a value", opt);
    const char *v = argv[*i];
    if (strcmp(opt, "--at") == 0)
        f->at = v;
    else if (strcmp(opt, "--rule") == 0)
        f->rule = v;
    else {
        char *end;
        unsigned long k = strtoul(v, &end, 10);
        if (*end || end == v || *v == '-' || k > 1000000)
            return cli_usage_error("viz", "'--radius' needs a count from 0 to 1000000, "
                                   "not '%s'", v);
        f->radius = (uint32_t)k;
    }
    return -1;
}

int viz_focus_check(const VizFocus *f, int nrules)
{
    if ((f->explain || f->rule) && !f->at)
        return cli_usage_error("viz", "--explain and --rule need --at NODE");
    if ((f->explain || f->rule) && nrules == 0)
        return cli_usage_error("viz", "--explain needs RULES");
    if (f->rule && !f->explain)
        return cli_usage_error("viz", "--rule goes with --explain");
    return -1;
}

/* The node f->at names, or NULL after reporting. */
static graft_node *focus_node(const VizFocus *f, const graft_graph *g, const char *model,
                              graft_diag *d)
{
    NodeLabels nl;
    node_labels_init(&nl, g, model);
    graft_node *n = node_labels_find(&nl, f->at);
    node_labels_free(&nl);
    if (!n)
        diag_plain_error(d, "no node '%s' in '%s' (name it as 'graft fmt' prints it, or "
                         "by its position, :LINE[:COL])", f->at, model);
    return n;
}

/* Breadth first from at, through operands and users, radius edges deep:
 * a queue of node ids with their distance, no recursion.  A queue, not a
 * WALK (note [one walk] in walk.h): the radius counts the edges of a
 * shortest path, and only breadth-first order reaches each node by one;
 * depth first would cut a node off at the depth of the first path that
 * happens to reach it. */
uint8_t *viz_focus_keep(const VizFocus *f, const graft_graph *g, const char *model, bool *bad,
                        graft_diag *d)
{
    *bad = false;
    if (!f->at)
        return NULL;
    graft_node *at = focus_node(f, g, model, d);
    if (!at) {
        *bad = true;
        return NULL;
    }
    uint32_t count = graph_node_count(g);
    uint8_t *keep = xcalloc((size_t)count + 1, 1);
    uint32_t *queue = xmalloc(((size_t)count + 1) * sizeof *queue);
    uint32_t *dist = xmalloc(((size_t)count + 1) * sizeof *dist);
    uint32_t head = 0, tail = 0;
    queue[tail++] = node_id(at);
    keep[node_id(at)] = 1;
    dist[node_id(at)] = 0;
    while (head < tail) {
        graft_node *n = graph_node(g, queue[head++]);
        if (dist[node_id(n)] == f->radius)
            continue;
        int na = node_is_opaque(n) ? 0 : node_nargs(n);
        int u = node_user_first(n);
        for (int k = 0; k < na || u < node_user_end(n); k++) {
            graft_node *next = k < na ? node_arg(n, k) : node_user(n, u);
            if (k >= na)
                u = node_user_next(n, u);
            if (keep[node_id(next)])
                continue;
            keep[node_id(next)] = 1;
            dist[node_id(next)] = dist[node_id(n)] + 1;
            queue[tail++] = node_id(next);
        }
    }
    free(queue);
    free(dist);
    return keep;
}

static void add_highlight(VizMatches *vm, uint32_t *ids, uint32_t n, const char *rule,
                          const char *what, const char *color)
{
    StrBuf label = {0};
    strbuf_printf(&label, "%s: %s", rule, what);
    vec_push(&vm->h, ((VizHighlight){ids, n, label.data, color}));
    vm->marks += n;
}

bool viz_focus_explain(const VizFocus *f, const graft_rule_set *rs, graft_graph *g,
                       const char *model, const graft_limits *limits, VizMatches *vm, graft_diag *d)
{
    graft_node *at = focus_node(f, g, model, d);
    if (!at)
        return false;
    bool found = !f->rule;
    EngineOptions opts = {.limits = limits};
    graft_engine *e = engine_new(rs, g, &opts);
    Explainer *x = explainer_new(e, NULL, stdout);
    for (uint32_t r = 0; r < rs->nrules; r++) {
        if (f->rule && strcmp(rs->rules[r].name, f->rule) != 0)
            continue;
        found = true;
        uint32_t *ids, n;
        graft_node *failed;
        bool ok = explainer_parts(x, r, at, &ids, &n, &failed);
        if (failed) { /* first: a node's first highlight gives its colour */
            uint32_t *one = xmalloc(sizeof *one);
            *one = node_id(failed);
            add_highlight(vm, one, 1, rs->rules[r].name, "fails here", "#f4a6a6");
        }
        add_highlight(vm, ids, n, rs->rules[r].name, ok ? "matches" : "matched",
                      ok ? "#8fd18f" : "#cfe8c0");
    }
    explainer_free(x);
    engine_free(e);
    if (!found)
        diag_plain_error(d, "no rule '%s' in the rules", f->rule);
    return found;
}
