/* partition.c - grouping matches into functions, as TVM's partition does.
 *
 * note [partition semantics] (TVM v0.14 PatternPartitioner, DESIGN.md):
 *  - one pass per partition rule; nodes are visited in reverse
 *    topological order (outputs first), so a larger match nearer the
 *    output claims its nodes first;
 *  - a node already in a group, or inside a function that carries
 *    PartitionedFromPattern, is never a candidate root; nor is a
 *    variable, constant or function value (a group computes something);
 *  - every match is a candidate group and takes the next group number,
 *    even when it is then dropped: for overlapping a group (constants
 *    aside) or for an interior node with a user outside the group that
 *    the root does not post-dominate;
 *  - candidates, claiming and parameters as in note [groups] (group.h):
 *    the inputs in the order a post-order walk of the match meets them,
 *    operands left to right (note [input order] in group.c), named
 *    FunctionVar_<group>_<k>; a constant matched by x:const or a literal
 *    is embedded instead;
 *  - the function body is the region between the root and the
 *    parameters, copied; PartitionedFromPattern lists its nodes in post-
 *    order, each op name followed by '_' (Tuple_, TupleGetItem<i>_);
 *    the rule's attributes follow it.
 * Groups are applied in the order found (outer first): a group's call
 * reads the original nodes, which inner groups then replace.
 */
#include "group.h"

#include <stdlib.h>
#include <string.h>

#include "type_infer.h"
#include "util.h"
#include "walk.h"

typedef struct Pass {
    Engine *e;          /* the driver */
    uint32_t rule;      /* the partition rule */
    Grouper *gp;        /* candidates and claims */
    uint8_t *pre;       /* per node id: inside a partitioned function */
    Node **copy;        /* per node id: its copy in the group's body */
    uint32_t size;      /* entries in the per-node arrays */
    Group *groups;      /* groups kept */
    size_t ngroups, groups_cap;
    Node **region;      /* scratch: the nodes copied for a group */
    size_t nregion, region_cap;
    struct CopyFrame *stack; /* scratch: copy_region's walk */
    size_t stack_cap;
    Node **args;        /* scratch: a copy's operands */
    size_t args_cap;
    Node **params;      /* scratch: a group's parameters */
    size_t params_cap;
    StrBuf name;        /* scratch: a group's PartitionedFromPattern */
    const char *pfp;    /* "PartitionedFromPattern", interned */
} Pass;

/* One node of copy_region's walk. */
typedef struct CopyFrame {
    Node *n;  /* the node being copied */
    int next; /* its next operand to visit */
} CopyFrame;

/* ---- candidates ---- */

static bool is_partitioned_fn(const Node *n)
{
    return node_kind(n) == NODE_FUNC && node_find_attr(n, "PartitionedFromPattern");
}

/* Marks a partitioned function's body: never entered by this pass. */
static void mark_pre(Pass *p, Node *fn)
{
    WALK(Node *) w = {0};
    walk_push(&w, node_body(fn));
    p->pre[node_id(fn)] = 1;
    while (w.depth) {
        Node *n = walk_pop(&w);
        if (node_id(n) >= p->size || p->pre[node_id(n)])
            continue;
        p->pre[node_id(n)] = 1;
        int na = node_is_opaque(n) ? 0 : node_nargs(n);
        walk_reserve(&w, (size_t)na + 1);
        for (int i = 0; i < na; i++)
            walk_push_reserved(&w, node_arg(n, i));
        if (node_callee(n))
            walk_push_reserved(&w, node_callee(n));
    }
    walk_free(&w);
}

/* A candidate root computes something: a variable, a constant or a
 * function value alone would make an empty function. */
static void try_root(Pass *p, Node *x)
{
    const RuleDesc *rule = &p->e->rs->rules[p->rule];
    NodeKind k = node_kind(x);
    if (k == NODE_VAR || k == NODE_CONST || k == NODE_FUNC)
        return;
    if (!automaton_state_has(p->e->a, labels_state(p->e->labels, x), rule->pattern->item))
        return;
    Group gr;
    if (!grouper_try(p->gp, x, false, &gr))
        return;
    p->groups = xgrow_items(p->groups, &p->groups_cap, p->ngroups + 1, sizeof *p->groups);
    p->groups[p->ngroups++] = gr;
}

/* ---- applying groups ---- */

/* A copy of n reading args, with n's attributes, type and annotation;
 * variables and functions are not copied. */
static Node *copy_node(Graph *g, Node *n, Node *const *args)
{
    Node *c;
    switch (node_kind(n)) {
    case NODE_CONST:
        c = graph_add_const(g, node_const_text(n), node_const_value(n), node_const_dtype(n));
        break;
    case NODE_TUPLE:
        c = graph_add_tuple(g, args, node_nargs(n));
        break;
    case NODE_GETITEM:
        c = graph_add_getitem(g, args[0], node_index(n));
        break;
    case NODE_CALL:
        if (!node_op(n)) {
            c = graph_add_fn_call(g, node_callee(n), args, node_nargs(n));
            break;
        }
        Attr *attrs = arena_array(graph_arena(g), (size_t)node_nattrs(n) + 1, sizeof *attrs);
        for (int i = 0; i < node_nattrs(n); i++)
            attrs[i] = *node_attr(n, i);
        c = graph_add_call(g, node_op(n), args, node_nargs(n), attrs, node_nattrs(n));
        break;
    default: /* a variable or function inside the region stays itself */
        return n;
    }
    if (node_type(n))
        graph_set_type(g, c, node_type(n));
    if (node_annotation(n))
        graph_set_annotation(g, c, node_annotation(n));
    return c;
}

/* Writes the decimal digits of v at at; returns the end. */
static char *put_digits(char *at, uint32_t v)
{
    char buf[10];
    int i = sizeof buf;
    do {
        buf[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    memcpy(at, buf + i, sizeof buf - (size_t)i);
    return at + (sizeof buf - (size_t)i);
}

/* The name part of one region node (TVM's MatchExtractor). */
static void name_part(StrBuf *name, const Node *n)
{
    switch (node_kind(n)) {
    case NODE_CALL:
        strbuf_puts(name, node_op(n) ? node_op(n) : "Call");
        strbuf_putc(name, '_');
        break;
    case NODE_TUPLE:
        strbuf_puts(name, "Tuple_");
        break;
    case NODE_GETITEM:
    {
        char buf[32] = "TupleGetItem", *end = buf + 12;
        int i = node_index(n);
        if (i < 0) /* never negative in a loaded graph */
            *end++ = '-';
        end = put_digits(end, i < 0 ? 0u - (uint32_t)i : (uint32_t)i);
        *end++ = '_';
        strbuf_append(name, buf, (size_t)(end - buf));
        break;
    }
    default:
        break;
    }
}

/* The index in gr's inputs of a, or -1. */
static int input_index(const Group *gr, const Node *a)
{
    for (uint32_t k = 0; k < gr->ninputs; k++)
        if (gr->inputs[k] == a)
            return (int)k;
    return -1;
}

/* Copies the region below root in post-order (operands left to right),
 * inputs replaced by params; returns the body's root. */
static Node *copy_region(Pass *p, const Group *gr, Node *const *params, StrBuf *name)
{
    size_t depth = 0;
    p->stack = xgrow_items(p->stack, &p->stack_cap, 1, sizeof *p->stack);
    p->stack[depth++] = (CopyFrame){gr->root, 0};
    while (depth) {
        CopyFrame *f = &p->stack[depth - 1];
        Node *n = f->n;
        int na = node_is_opaque(n) ? 0 : node_nargs(n);
        if (f->next < na) {
            Node *a = node_arg(n, f->next++);
            if (group_is_input(gr, a) || node_id(a) >= p->size || p->copy[node_id(a)])
                continue;
            p->stack = xgrow_items(p->stack, &p->stack_cap, depth + 1, sizeof *p->stack);
            p->stack[depth++] = (CopyFrame){a, 0};
            continue;
        }
        p->args = xgrow_items(p->args, &p->args_cap, (size_t)na + 1, sizeof *p->args);
        for (int i = 0; i < na; i++) {
            Node *a = node_arg(n, i);
            int k = input_index(gr, a);
            if (k >= 0) /* the last occurrence, as before: inputs are distinct */
                p->args[i] = params[k];
            else
                p->args[i] = node_id(a) < p->size && p->copy[node_id(a)] ? p->copy[node_id(a)] : a;
        }
        p->copy[node_id(n)] = copy_node(p->e->g, n, p->args);
        p->region = xgrow_items(p->region, &p->region_cap, p->nregion + 1, sizeof *p->region);
        p->region[p->nregion++] = n;
        name_part(name, n);
        depth--;
    }
    Node *body = p->copy[node_id(gr->root)];
    for (size_t i = 0; i < p->nregion; i++) /* copies belong to this group */
        p->copy[node_id(p->region[i])] = NULL;
    return body;
}

/* The new function's attributes: PartitionedFromPattern, then the rule's
 * own (Composite=...), copied into the graph. */
static Attr *fn_attrs(Pass *p, const RuleDesc *rule, const char *name, int *n)
{
    Graph *g = p->e->g;
    Attr *attrs = arena_array(graph_arena(g), (size_t)rule->npart_attrs + 2, sizeof *attrs);
    AttrValue *v = graph_new_attr_value(g, ATTR_STRING);
    v->s = graph_intern(g, name);
    if (!p->pfp)
        p->pfp = graph_intern(g, "PartitionedFromPattern");
    attrs[0] = (Attr){p->pfp, v};
    for (int i = 0; i < rule->npart_attrs; i++) {
        AttrValue *c = graph_new_attr_value(g, rule->part_attrs[i].value->kind);
        *c = *rule->part_attrs[i].value;
        c->s = c->s ? graph_intern(g, c->s) : NULL;
        c->spelling = NULL;
        c->items = NULL; /* literal lists as function attributes: not kept */
        c->nitems = 0;
        attrs[1 + i] = (Attr){graph_intern(g, rule->part_attrs[i].name), c};
    }
    *n = 1 + rule->npart_attrs;
    return attrs;
}

/* "FunctionVar_<group>_<k>" into buf, without printf. */
static const char *param_name(char buf[static 40], uint32_t group, uint32_t k)
{
    memcpy(buf, "FunctionVar_", 12);
    char *end = put_digits(buf + 12, group);
    *end++ = '_';
    end = put_digits(end, k);
    *end = '\0';
    return buf;
}

/* Replaces a group by a call of a new function: parameters first (so the
 * graph adopts the copied body into the function), the body, the call.
 * The new nodes are typed after the pass's last group (apply_groups). */
static void apply_group(Pass *p, const Group *gr)
{
    Graph *g = p->e->g;
    const RuleDesc *rule = &p->e->rs->rules[p->rule];
    p->params = xgrow_items(p->params, &p->params_cap, gr->ninputs + 1, sizeof *p->params);
    Node **params = p->params;
    char pname[64];
    for (uint32_t k = 0; k < gr->ninputs; k++) {
        /* TVM's PatternGrouper (src/relay/ir/dataflow_matcher.cc) makes
         * Var("FunctionVar_N_k", NullValue<Type>()): no annotation to
         * print.  The type stays known, undeclared, for later rules. */
        params[k] = graph_add_fn_param(g, param_name(pname, gr->number, k), NULL);
        graph_set_type(g, params[k], node_type(gr->inputs[k]));
    }
    StrBuf *name = &p->name;
    name->len = 0;
    strbuf_append(name, "", 0); /* never NULL below */
    p->nregion = 0;
    Node *body = copy_region(p, gr, params, name);
    int nattrs;
    Attr *attrs = fn_attrs(p, rule, name->data, &nattrs);
    Node *fn = graph_add_func(g, params, (int)gr->ninputs, body, attrs, nattrs);
    Node *call = graph_add_fn_call(g, fn, gr->inputs, (int)gr->ninputs);
    if (node_type(gr->root))
        graph_set_type(g, call, node_type(gr->root));
    graph_replace_all_uses(g, gr->root, call);
    if (p->e->opts.trace)
        fprintf(p->e->opts.trace, "partition %s (%s:%d): group %u at #%u %s, %u params\n",
                rule->name, rule->file, rule->line, gr->number, node_id(gr->root),
                name->data, gr->ninputs);
}

/* Applies the pass's groups in the order found.  The copies keep their
 * originals' types, the calls their roots'; the rest (the functions,
 * copies of untyped nodes) is inferred once for all groups: a group's
 * new nodes read only its own new nodes and nodes of the graph before
 * the pass, whose types applying groups does not change, so typing them
 * group by group or at the end gives the same types, and one relation
 * cache serves the pass. */
static void apply_groups(Pass *p)
{
    uint32_t first = graph_node_count(p->e->g);
    for (size_t i = 0; i < p->ngroups; i++)
        apply_group(p, &p->groups[i]);
    if (p->ngroups)
        type_infer_edit(p->e->g, first);
}

/* ---- one pass ---- */

static void pass_init(Pass *p, Engine *e, Grouper *gp, uint32_t rule)
{
    memset(p, 0, sizeof *p);
    p->e = e;
    p->rule = rule;
    p->gp = gp;
    grouper_begin(gp, rule);
    p->size = graph_node_count(e->g);
    p->pre = xcalloc((size_t)p->size + 1, 1);
    p->copy = xcalloc((size_t)p->size + 1, sizeof *p->copy);
}

static void pass_free(Pass *p)
{
    for (size_t i = 0; i < p->ngroups; i++)
        group_free(&p->groups[i]);
    free(p->groups);
    free(p->pre);
    free(p->copy);
    free(p->region);
    free(p->stack);
    free(p->args);
    free(p->params);
    strbuf_free(&p->name);
}

/* The candidate groups of a pass over the n nodes of e->order, outputs
 * first. */
static void find_groups(Pass *p, uint32_t n)
{
    Grouper *gp = p->gp;
    for (uint32_t i = n; i-- > 0;) {
        Node *x = p->e->order[i];
        if (grouper_claimed(gp, x)) {
            grouper_verdict(gp, x, PART_CLAIMED, grouper_owner(gp, x), NULL);
            continue;
        }
        if (p->pre[node_id(x)]) {
            grouper_verdict(gp, x, PART_PARTITIONED, NULL, NULL);
            continue;
        }
        if (is_partitioned_fn(x)) {
            mark_pre(p, x);
            continue;
        }
        try_root(p, x);
    }
}

void engine_partition_verdict(Engine *e, uint32_t rule, const Node *root, PartVerdict *v)
{
    Grouper gp;
    grouper_init(&gp, e);
    gp.watch = root;
    gp.verdict = v;
    *v = (PartVerdict){PART_UNTRIED, NULL, NULL};
    Pass p;
    pass_init(&p, e, &gp, rule);
    find_groups(&p, engine_order(e));
    pass_free(&p);
    grouper_free(&gp);
}

/* One partition pass of one rule (note [partition semantics]); upto as
 * engine_relabel_changed takes it; *fresh is 1 + the count of live nodes
 * e->order holds in topological order already, or 0 (and so on return:
 * the dead-node sweep after a pass that grouped makes the order). */
static void partition_pass(Engine *e, Grouper *gp, uint32_t rule, uint32_t *upto,
                           uint32_t *fresh, bool last)
{
    Pass p;
    pass_init(&p, e, gp, rule);
    uint32_t n = *fresh ? *fresh - 1 : engine_order(e);
    *fresh = 0;
    engine_relabel_changed(e, n, upto);
    find_groups(&p, n);
    apply_groups(&p);
    e->stats.rules[rule].applied += p.ngroups;
    e->stats.groups += p.ngroups;
    if (p.ngroups && last) /* no next pass to order the nodes for */
        graph_remove_dead(e->g);
    else if (p.ngroups)
        *fresh = engine_remove_dead_order(e) + 1;
    pass_free(&p);
}

void engine_partition(Engine *e)
{
    uint32_t *order = xmalloc((e->rs->nrules + 1) * sizeof *order);
    uint32_t n = engine_rules_best_first(e, ACTION_PARTITION, order);
    uint32_t upto = 0; /* every node is labelled afresh by the first pass */
    uint32_t fresh = 0;
    Grouper gp;
    grouper_init(&gp, e);
    for (uint32_t k = 0; k < n; k++)
        partition_pass(e, &gp, order[k], &upto, &fresh, k + 1 == n);
    grouper_free(&gp);
    free(order);
}
