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
 *  - parameters are the pattern's leaves in order of first occurrence
 *    (depth first, operands left to right), FunctionVar_<group>_<k>; a
 *    constant matched by x:const or a literal is embedded instead;
 *  - the function body is the region between the root and the
 *    parameters, copied; PartitionedFromPattern lists its nodes in post-
 *    order, each op name followed by '_' (Tuple_, TupleGetItem<i>_);
 *    the rule's attributes follow it.
 * Groups are applied in the order found (outer first): a group's call
 * reads the original nodes, which inner groups then replace.
 */
#include "engine_impl.h"

#include <stdlib.h>
#include <string.h>

#include "type_infer.h"
#include "util.h"

enum { NO_GROUP = UINT32_MAX };

typedef struct Group {
    Node *root;       /* the match's root */
    uint32_t number;  /* the N of FunctionVar_N_k */
    Node **inputs;    /* parameters' arguments, in order */
    uint32_t ninputs; /* entries in inputs */
} Group;

typedef struct Pass {
    Engine *e;          /* the driver */
    uint32_t rule;      /* the partition rule */
    uint32_t *gid;      /* per node id: group index or NO_GROUP */
    uint8_t *pre;       /* per node id: inside a partitioned function */
    uint32_t *inreg;    /* per node id: region stamp */
    uint32_t stamp;     /* current region stamp */
    Node **copy;        /* per node id: its copy in the group's body */
    uint32_t size;      /* entries in the per-node arrays */
    Group *groups;      /* groups kept */
    size_t ngroups, cgroups;
    uint32_t *counter;  /* candidate groups so far, per global function
                           (graph_global_of + 1): TVM partitions one
                           function at a time, numbering from 0 */
    Node **region;      /* scratch: the current region */
    size_t nregion, cregion;
    bool *named;        /* per variable slot of the rule: some non-leaf
                           pattern node binds it (s@exp(x)) */
    const Node *watch;  /* graft explain: the root whose fate to record */
    PartVerdict *verdict; /* where to record it, or NULL */
} Pass;

/* ---- candidates ---- */

static bool is_partitioned_fn(const Node *n)
{
    return node_kind(n) == NODE_FUNC && node_find_attr(n, "PartitionedFromPattern");
}

/* Marks a partitioned function's body: never entered by this pass. */
static void mark_pre(Pass *p, Node *fn)
{
    Node **stack = xmalloc(sizeof *stack);
    size_t cap = 1, depth = 0;
    stack[depth++] = node_body(fn);
    p->pre[node_id(fn)] = 1;
    while (depth) {
        Node *n = stack[--depth];
        if (node_id(n) >= p->size || p->pre[node_id(n)])
            continue;
        p->pre[node_id(n)] = 1;
        int na = node_is_opaque(n) ? 0 : node_nargs(n);
        xgrow((void **)&stack, &cap, depth + (size_t)na + 1, sizeof *stack);
        for (int i = 0; i < na; i++)
            stack[depth++] = node_arg(n, i);
        if (node_callee(n))
            stack[depth++] = node_callee(n);
    }
    free(stack);
}

static void add_input(Group *gr, Node *n)
{
    for (uint32_t i = 0; i < gr->ninputs; i++)
        if (gr->inputs[i] == n)
            return;
    gr->inputs = xrealloc(gr->inputs, (gr->ninputs + 1) * sizeof *gr->inputs);
    gr->inputs[gr->ninputs++] = n;
}

/* A node a dominator pattern walked through: inside the group, never a
 * parameter (TVM's "fuzzy" matches). */
static bool on_dom_path(const MatchPair *pairs, uint32_t npairs, const Node *n)
{
    for (uint32_t i = 0; i < npairs; i++)
        if (pairs[i].pat->kind == PAT_DOM && pairs[i].node == n)
            return true;
    return false;
}

/* A leaf that is an input: not an embedded constant, not on a dominator
 * path, and not the reuse of a named sub-pattern (s in s@exp(x) *
 * sqrt(s) is the exp node, inside the group; what s@p binds as a leaf,
 * as in s@x, is an input through that leaf). */
static bool leaf_is_input(const Pass *p, const MatchPair *pairs, uint32_t npairs,
                          const MatchPair *leaf)
{
    const PatNode *pat = leaf->pat;
    if (pat->embed && node_kind(leaf->node) == NODE_CONST)
        return false;
    if (pat->slot >= 0 && p->named[pat->slot])
        return false;
    return !on_dom_path(pairs, npairs, leaf->node);
}

/* The parameters' arguments: leaves in pattern order, embedded constants,
 * dominator paths and named sub-patterns left out; operands a variadic
 * pattern leaves unmatched follow it. */
static void collect_inputs(const Pass *p, Group *gr)
{
    uint32_t npairs;
    const MatchPair *pairs = matcher_pairs(p->e->m, &npairs);
    for (uint32_t i = 0; i < npairs; i++) {
        const PatNode *pat = pairs[i].pat;
        Node *n = pairs[i].node;
        if (pat->kind == PAT_ANY) {
            if (leaf_is_input(p, pairs, npairs, &pairs[i]))
                add_input(gr, n);
            continue;
        }
        const PatItem *it = &p->e->rs->items[pat->item];
        if (pat->kind != PAT_STAR && pat->kind != PAT_DOM && it->variadic)
            for (int k = pat->nkids; k < node_nargs(n); k++)
                add_input(gr, node_arg(n, k));
    }
}

static bool is_input(const Group *gr, const Node *n)
{
    for (uint32_t i = 0; i < gr->ninputs; i++)
        if (gr->inputs[i] == n)
            return true;
    return false;
}

/* The region: nodes reachable from the root without passing an input. */
static void collect_region(Pass *p, const Group *gr)
{
    p->nregion = 0;
    if (++p->stamp == 0)
        p->stamp = 1;
    Node **stack = xmalloc(sizeof *stack);
    size_t cap = 1, depth = 0;
    stack[depth++] = gr->root;
    while (depth) {
        Node *n = stack[--depth];
        if (is_input(gr, n) || p->inreg[node_id(n)] == p->stamp)
            continue;
        p->inreg[node_id(n)] = p->stamp;
        xgrow((void **)&p->region, &p->cregion, p->nregion + 1, sizeof *p->region);
        p->region[p->nregion++] = n;
        int na = node_is_opaque(n) ? 0 : node_nargs(n);
        xgrow((void **)&stack, &cap, depth + (size_t)na, sizeof *stack);
        for (int i = 0; i < na; i++)
            stack[depth++] = node_arg(n, i);
    }
    free(stack);
}

static bool shared_kind(const Node *n)
{
    return node_kind(n) == NODE_CONST || node_kind(n) == NODE_FUNC;
}

/* The first region node already in a group, or NULL. */
static Node *overlaps(const Pass *p)
{
    for (size_t i = 0; i < p->nregion; i++)
        if (!shared_kind(p->region[i]) && p->gid[node_id(p->region[i])] != NO_GROUP)
            return p->region[i];
    return NULL;
}

/* An interior node used outside the region where the root does not
 * post-dominate the use: returns it, with the user in *outside. */
static Node *interior_escapes(Pass *p, const Group *gr, Node **outside)
{
    for (size_t i = 0; i < p->nregion; i++) {
        Node *x = p->region[i];
        if (x == gr->root || shared_kind(x))
            continue;
        for (const Use *u = node_first_use(x); u; u = use_next(u)) {
            Node *user = use_user(u);
            if (p->inreg[node_id(user)] != p->stamp &&
                !engine_postdominates(p->e, gr->root, user)) {
                *outside = user;
                return x;
            }
        }
    }
    return NULL;
}

/* graft explain: what became of the watched root. */
static void verdict(Pass *p, const Node *root, PartFate fate, Node *a, Node *b)
{
    if (p->verdict && root == p->watch)
        *p->verdict = (PartVerdict){fate, a, b};
}

/* A match at root: a candidate group, kept unless it overlaps or leaks. */
static void candidate(Pass *p, Node *root)
{
    RuleStats *st = &p->e->stats.rules[p->rule];
    Group gr = {.root = root};
    collect_inputs(p, &gr);
    if (is_input(&gr, root)) { /* a bare leaf pattern: nothing to group */
        free(gr.inputs);
        return;
    }
    gr.number = p->counter[graph_global_of(p->e->g, root) + 1]++;
    collect_region(p, &gr);
    Node *x, *user = NULL;
    if ((x = overlaps(p))) {
        st->overlap++;
        verdict(p, root, PART_OVERLAP, x, p->groups[p->gid[node_id(x)]].root);
        engine_refusal(p->e, p->rule, "overlap", root, x, "is in the group of",
                       p->groups[p->gid[node_id(x)]].root);
        free(gr.inputs);
        return;
    }
    if ((x = interior_escapes(p, &gr, &user))) {
        st->interior++;
        verdict(p, root, PART_INTERIOR, x, user);
        engine_refusal(p->e, p->rule, "interior-use", root, x, "is used outside by", user);
        free(gr.inputs);
        return;
    }
    verdict(p, root, PART_KEPT, NULL, NULL);
    for (size_t i = 0; i < p->nregion; i++)
        p->gid[node_id(p->region[i])] = (uint32_t)p->ngroups;
    xgrow((void **)&p->groups, &p->cgroups, p->ngroups + 1, sizeof *p->groups);
    p->groups[p->ngroups++] = gr;
}

/* A candidate root computes something: a variable, a constant or a
 * function value alone would make an empty function. */
static void try_root(Pass *p, Node *x)
{
    const RuleDesc *rule = &p->e->rs->rules[p->rule];
    RuleStats *st = &p->e->stats.rules[p->rule];
    NodeKind k = node_kind(x);
    if (k == NODE_VAR || k == NODE_CONST || k == NODE_FUNC)
        return;
    if (!automaton_state_has(p->e->a, labels_state(p->e->labels, x), rule->pattern->item))
        return;
    double t0 = engine_now();
    st->tried++;
    MatchResult res = matcher_try(p->e->m, p->rule, x);
    if (res == MATCH_OK) {
        st->matched++;
        candidate(p, x);
    } else if (res == MATCH_GUARD)
        st->guard++;
    else if (res == MATCH_BUDGET)
        st->budget++;
    st->seconds += engine_now() - t0;
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
    graph_set_pos(g, c, node_line(g, n), node_col(g, n));
    return c;
}

/* The name part of one region node (TVM's MatchExtractor). */
static void name_part(StrBuf *name, const Node *n)
{
    switch (node_kind(n)) {
    case NODE_CALL:
        strbuf_printf(name, "%s_", node_op(n) ? node_op(n) : "Call");
        break;
    case NODE_TUPLE:
        strbuf_puts(name, "Tuple_");
        break;
    case NODE_GETITEM:
        strbuf_printf(name, "TupleGetItem%d_", node_index(n));
        break;
    default:
        break;
    }
}

/* Copies the region below root in post-order (operands left to right),
 * inputs replaced by params; returns the body's root. */
static Node *copy_region(Pass *p, const Group *gr, Node *const *params, StrBuf *name)
{
    typedef struct Frame {
        Node *n;  /* the node being copied */
        int next; /* its next operand to visit */
    } Frame;
    Frame *stack = xmalloc(sizeof *stack);
    size_t cap = 1, depth = 0;
    Node **args = NULL;
    size_t acap = 0;
    stack[depth++] = (Frame){gr->root, 0};
    while (depth) {
        Frame *f = &stack[depth - 1];
        Node *n = f->n;
        int na = node_is_opaque(n) ? 0 : node_nargs(n);
        if (f->next < na) {
            Node *a = node_arg(n, f->next++);
            if (is_input(gr, a) || node_id(a) >= p->size || p->copy[node_id(a)])
                continue;
            xgrow((void **)&stack, &cap, depth + 1, sizeof *stack);
            stack[depth++] = (Frame){a, 0};
            continue;
        }
        xgrow((void **)&args, &acap, (size_t)na + 1, sizeof *args);
        for (int i = 0; i < na; i++) {
            Node *a = node_arg(n, i);
            args[i] = node_id(a) < p->size && p->copy[node_id(a)] ? p->copy[node_id(a)] : a;
            for (uint32_t k = 0; k < gr->ninputs; k++)
                if (gr->inputs[k] == a)
                    args[i] = params[k];
        }
        p->copy[node_id(n)] = copy_node(p->e->g, n, args);
        xgrow((void **)&p->region, &p->cregion, p->nregion + 1, sizeof *p->region);
        p->region[p->nregion++] = n;
        name_part(name, n);
        depth--;
    }
    Node *body = p->copy[node_id(gr->root)];
    for (size_t i = 0; i < p->nregion; i++) /* copies belong to this group */
        p->copy[node_id(p->region[i])] = NULL;
    free(stack);
    free(args);
    return body;
}

/* The new function's attributes: PartitionedFromPattern, then the rule's
 * own (Composite=...), copied into the graph. */
static Attr *fn_attrs(Graph *g, const RuleDesc *rule, const char *name, int *n)
{
    Attr *attrs = arena_array(graph_arena(g), (size_t)rule->npart_attrs + 2, sizeof *attrs);
    AttrValue *v = graph_new_attr_value(g, ATTR_STRING);
    v->s = graph_intern(g, name);
    attrs[0] = (Attr){graph_intern(g, "PartitionedFromPattern"), v};
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

/* Replaces a group by a call of a new function: parameters first (so the
 * graph adopts the copied body into the function), the body, the call. */
static void apply_group(Pass *p, const Group *gr)
{
    Graph *g = p->e->g;
    uint32_t first = graph_node_count(g);
    const RuleDesc *rule = &p->e->rs->rules[p->rule];
    Node **params = xmalloc((gr->ninputs + 1) * sizeof *params);
    char pname[64];
    for (uint32_t k = 0; k < gr->ninputs; k++) {
        snprintf(pname, sizeof pname, "FunctionVar_%u_%u", gr->number, k);
        /* TVM's PatternGrouper (src/relay/ir/dataflow_matcher.cc) makes
         * Var("FunctionVar_N_k", NullValue<Type>()): no annotation to
         * print.  The type stays known, undeclared, for later rules. */
        params[k] = graph_add_fn_param(g, pname, NULL);
        graph_set_type(g, params[k], node_type(gr->inputs[k]));
    }
    StrBuf name = {0};
    p->nregion = 0;
    Node *body = copy_region(p, gr, params, &name);
    int nattrs;
    Attr *attrs = fn_attrs(g, rule, name.data ? name.data : "", &nattrs);
    Node *fn = graph_add_func(g, params, (int)gr->ninputs, body, attrs, nattrs);
    Node *call = graph_add_fn_call(g, fn, gr->inputs, (int)gr->ninputs);
    if (node_type(gr->root))
        graph_set_type(g, call, node_type(gr->root));
    /* the copies keep their originals' types, the call the root's; the
     * rest (the function, copies of untyped nodes) is inferred */
    type_infer_edit(g, first);
    graph_replace_all_uses(g, gr->root, call);
    if (p->e->opts.trace)
        fprintf(p->e->opts.trace, "partition %s (%s:%d): group %u at #%u %s, %u params\n",
                rule->name, rule->file, rule->line, gr->number, node_id(gr->root),
                name.data ? name.data : "", gr->ninputs);
    strbuf_free(&name);
    free(params);
}

/* ---- one pass ---- */

/* Pattern nodes a walk has seen: patterns share sub-trees (an op class
 * repeats its operand under every choice, so twelve nested classes are a
 * DAG of a few hundred nodes but 40^12 paths); a walk visits each once. */
typedef struct PatSet {
    const PatNode **keys; /* open addressing, NULL = empty */
    size_t cap;           /* a power of two */
    size_t count;         /* keys stored */
} PatSet;

static size_t patset_slot(const PatSet *s, const PatNode *p)
{
    size_t mask = s->cap - 1;
    size_t i = (size_t)hash_mix(0, (uint64_t)(uintptr_t)p) & mask;
    while (s->keys[i] && s->keys[i] != p)
        i = (i + 1) & mask;
    return i;
}

/* Adds p; false when it was there already. */
static bool patset_add(PatSet *s, const PatNode *p)
{
    if (2 * (s->count + 1) > s->cap) {
        PatSet big = {xcalloc(s->cap ? 2 * s->cap : 16, sizeof *big.keys),
                      s->cap ? 2 * s->cap : 16, s->count};
        for (size_t i = 0; i < s->cap; i++)
            if (s->keys[i])
                big.keys[patset_slot(&big, s->keys[i])] = s->keys[i];
        free(s->keys);
        *s = big;
    }
    size_t i = patset_slot(s, p);
    if (s->keys[i])
        return false;
    s->keys[i] = p;
    s->count++;
    return true;
}

/* Marks the slots that a non-leaf pattern node binds (s@exp(x), and
 * s@x, which lowering wraps in a one-choice alternative); walks the
 * pattern DAG with a stack, each node once. */
static bool *named_slots(const RuleDesc *rule)
{
    bool *named = xcalloc((size_t)rule->nslots + 1, sizeof *named);
    PatSet seen = {0};
    const PatNode **stack = xmalloc(sizeof *stack);
    size_t cap = 1, depth = 0;
    stack[depth++] = rule->pattern;
    while (depth) {
        const PatNode *n = stack[--depth];
        if (!patset_add(&seen, n))
            continue;
        if (n->slot >= 0 && n->kind != PAT_ANY)
            named[n->slot] = true;
        xgrow((void **)&stack, &cap, depth + (size_t)n->nkids, sizeof *stack);
        for (int i = 0; i < n->nkids; i++)
            stack[depth++] = n->kids[i];
    }
    free(stack);
    free(seen.keys);
    return named;
}

static void pass_init(Pass *p, Engine *e, uint32_t rule)
{
    memset(p, 0, sizeof *p);
    p->e = e;
    p->rule = rule;
    p->size = graph_node_count(e->g);
    p->gid = xmalloc(((size_t)p->size + 1) * sizeof *p->gid);
    memset(p->gid, 0xff, ((size_t)p->size + 1) * sizeof *p->gid);
    p->pre = xcalloc((size_t)p->size + 1, 1);
    p->inreg = xcalloc((size_t)p->size + 1, sizeof *p->inreg);
    p->copy = xcalloc((size_t)p->size + 1, sizeof *p->copy);
    p->named = named_slots(&e->rs->rules[rule]);
    p->counter = xcalloc((size_t)graph_nglobals(e->g) + 1, sizeof *p->counter);
}

static void pass_free(Pass *p)
{
    for (size_t i = 0; i < p->ngroups; i++)
        free(p->groups[i].inputs);
    free(p->groups);
    free(p->gid);
    free(p->pre);
    free(p->inreg);
    free(p->copy);
    free(p->region);
    free(p->named);
    free(p->counter);
}

/* note [partition relabelling]: the first pass labels every node; a
 * later pass relabels only what the passes before it changed: nodes
 * created since (ids from *upto on: copies, parameters, functions and
 * calls) and nodes with an operand whose state changed or that is new (a
 * user of a replaced root now reads the call).  Every other node has the
 * same symbol and operand states as when it was labelled, so the same
 * state; the check rides on the topological sweep.  e->order must hold
 * the n live nodes in topological order. */
static void relabel_changed(Engine *e, uint32_t n, uint32_t *upto)
{
    uint32_t count = graph_node_count(e->g);
    uint8_t *changed = xcalloc((size_t)count + 1, 1);
    for (uint32_t i = 0; i < n; i++) {
        Node *x = e->order[i];
        uint32_t id = node_id(x);
        bool need = id >= *upto;
        int na = node_is_opaque(x) ? 0 : node_nargs(x);
        for (int k = 0; k < na && !need; k++)
            need = changed[node_id(node_arg(x, k))];
        if (!need)
            continue;
        uint32_t old = labels_state(e->labels, x);
        uint32_t now = labels_node(e->labels, x);
        changed[id] = id >= *upto || now != old;
        e->stats.labelled++;
    }
    free(changed);
    *upto = count;
}

/* The candidate groups of a pass over the n nodes of e->order, outputs
 * first. */
static void find_groups(Pass *p, uint32_t n)
{
    Engine *e = p->e;
    for (uint32_t i = n; i-- > 0;) {
        Node *x = e->order[i];
        if (p->gid[node_id(x)] != NO_GROUP) {
            verdict(p, x, PART_CLAIMED, p->groups[p->gid[node_id(x)]].root, NULL);
            continue;
        }
        if (p->pre[node_id(x)]) {
            verdict(p, x, PART_PARTITIONED, NULL, NULL);
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
    Pass p;
    pass_init(&p, e, rule);
    p.watch = root;
    p.verdict = v;
    *v = (PartVerdict){PART_UNTRIED, NULL, NULL};
    find_groups(&p, engine_order(e));
    pass_free(&p);
}

/* One partition pass of one rule (note [partition semantics]); upto as
 * relabel_changed takes it. */
static void partition_pass(Engine *e, uint32_t rule, uint32_t *upto)
{
    Pass p;
    pass_init(&p, e, rule);
    uint32_t n = engine_order(e);
    relabel_changed(e, n, upto);
    find_groups(&p, n);
    for (size_t i = 0; i < p.ngroups; i++)
        apply_group(&p, &p.groups[i]);
    e->stats.rules[rule].applied += p.ngroups;
    e->stats.groups += p.ngroups;
    if (p.ngroups)
        graph_remove_dead(e->g);
    pass_free(&p);
}

void engine_partition(Engine *e)
{
    uint32_t n;
    /* best first: the automaton's order of all rules, via a state-free
       listing: priority, then file order */
    uint32_t *order = xmalloc((e->rs->nrules + 1) * sizeof *order);
    n = 0;
    for (uint32_t r = 0; r < e->rs->nrules; r++) {
        if (e->rs->rules[r].kind != ACTION_PARTITION)
            continue;
        uint32_t j = n++;
        while (j > 0 && e->rs->rules[order[j - 1]].priority < e->rs->rules[r].priority)
            order[j] = order[j - 1], j--;
        order[j] = r;
    }
    uint32_t upto = 0; /* every node is labelled afresh by the first pass */
    for (uint32_t k = 0; k < n; k++)
        partition_pass(e, order[k], &upto);
    free(order);
}
