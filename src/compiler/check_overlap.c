/* check_overlap.c - rule against rule: shadowing and ambiguous overlap.
 *
 * note [subsumption]: pattern A subsumes pattern B when every node B
 * matches, A matches too.  check_subsumes answers soundly: it says yes
 * only when it can show it (_ and a first-seen variable subsume anything;
 * the same op subsumes when each operand does, in either order for a
 * commutative op; A's constraints and attribute constraints must follow
 * from B's; an alternative in B must be subsumed on both sides, one in A
 * on either side).  A rule marked once never shadows, and one with a guard
 * only when the guard holds wherever the other rule's does (note [guard
 * logic] in check_guard_logic.c: B's guard, read through what A's
 * variables meet in B, implies A's).  A bound attribute of A (groups=g)
 * meets B's attribute of that name: its variable or its literal.
 *
 * A repeated variable of A must meet the same node of B each time: B's
 * same variable (or c of c@... and c), never two copies of one sub-pattern
 * (a macro argument used twice matches two nodes) nor _.
 *
 * note [unification]: check_may_unify says no only when no node can match
 * both patterns.  It unifies them (check_unify.c): each side's variables
 * are its own; a repeated variable must unify with its earlier binding,
 * with an occurs check (x against sigmoid(x) never holds: graphs are
 * acyclic); _ binds nothing; alternatives, op?(p), op*(p) and the two
 * operand orders of a commutative op are tried with backtracking.  Op
 * names, literals, attribute literals and constraints must agree.  Bound
 * attributes meet too (groups=g against groups=1 fixes g), and on a
 * common match the two guards must be able to hold together (note [guard
 * logic]): rules that overlap only where one's guard is false are no
 * overlap.  What the guards say beyond comparisons of one term with a
 * literal is ignored, so it may still say yes for patterns no node
 * matches, which suits a warning.
 *
 * Both searches run on a step budget (a pair of patterns gets at most
 * PAIR_STEPS, the whole comparison STEP_BUDGET); out of steps, subsumption
 * says no and unification yes, so the checker stays fast and only warns
 * less.  check_subsumes recurses over A and B, bounded by their depth
 * (AST_MAX_DEPTH written, CHECK_MAX_EXPANDED_DEPTH after macro expansion).
 *
 * Rules are compared pairwise within buckets keyed by the root op (rules
 * whose root is a variable, an alternative, a class... go in every
 * bucket), with a budget of comparisons so a huge rule file cannot make
 * the checker quadratic without bound.
 */
#include "check_impl.h"

#include <stdlib.h>
#include <string.h>

/* Rule pairs compared at most; steps per pattern pair and in all. */
enum { PAIR_BUDGET = 2000000, PAIR_STEPS = 100000, STEP_BUDGET = 20000000 };

/* Subsumption state: A's variables mapped to the B subtrees they meet. */
typedef struct Sub {
    const AstNode **map; /* by A slot; NULL until first met */
    int nmap;            /* A's variable count */
    long *steps;         /* budget, decremented per comparison */
} Sub;

static bool sub(Sub *s, const AstNode *a, const AstNode *b);

static const AstNode *strip(const AstNode *n)
{
    while (n->kind == AST_BIND || n->kind == AST_CONSTRAIN)
        n = n->kind == AST_BIND ? n->u.bind.operand : n->u.constrain.operand;
    return n;
}

/* What B's own kind and constraints guarantee about the node it matches. */
static Facts facts_of(const AstNode *b)
{
    Facts f = check_facts_of_kind(strip(b));
    char buf[160];
    for (const AstNode *n = b; n->kind == AST_BIND || n->kind == AST_CONSTRAIN;) {
        if (n->kind == AST_CONSTRAIN) {
            check_merge_facts(&f, n, buf, sizeof buf);
            n = n->u.constrain.operand;
        } else {
            n = n->u.bind.operand;
        }
    }
    return f;
}

/* Whether facts f guarantee constraint k. */
static bool implied(const AstNode *k, const Facts *f)
{
    switch (k->u.constrain.kind) {
    case CONSTRAINT_CONST:
        return f->is_const == 1;
    case CONSTRAINT_VAR:
        return f->is_var == 1 && (!k->u.constrain.name || f->var_name == k->u.constrain.name);
    case CONSTRAINT_DTYPE:
        return f->dtype == k->u.constrain.dtype;
    case CONSTRAINT_RANK:
        return f->rank == k->u.constrain.rank;
    case CONSTRAINT_TENSOR:
        if ((k->u.constrain.dtype && f->dtype != k->u.constrain.dtype) ||
            f->rank != k->u.constrain.rank)
            return false;
        for (int i = 0; i < k->u.constrain.rank; i++)
            if (k->u.constrain.dims[i] >= 0 && (!f->dims || f->dims[i] != k->u.constrain.dims[i]))
                return false;
        return true;
    case CONSTRAINT_TRAIT: /* expanded away with its callee */
        return false;
    }
    return false;
}

/* The B variable that names the node b matches (x, c@..., x:const), or
 * -1 when b names none: then two occurrences may be two nodes. */
static int node_name(const AstNode *b)
{
    while (b->kind == AST_CONSTRAIN)
        b = b->u.constrain.operand;
    if (b->kind == AST_BIND)
        return b->u.bind.slot;
    return b->kind == AST_VAR ? b->u.var.slot : -1;
}

/* A variable of A meets b: free the first time, then b must name the same
 * node as before on every match of B (note [subsumption]). */
static bool sub_var(Sub *s, int slot, const AstNode *b)
{
    if (slot < 0 || slot >= s->nmap)
        return false;
    if (!s->map[slot]) {
        s->map[slot] = b;
        return true;
    }
    int was = node_name(s->map[slot]);
    return was >= 0 && was == node_name(b);
}

/* Tries f with a snapshot of the map, restoring it on failure. */
static bool attempt(Sub *s, const AstNode *a, const AstNode *b)
{
    const AstNode **saved = xmalloc(((size_t)s->nmap + 1) * sizeof(AstNode *));
    memcpy(saved, s->map, (size_t)s->nmap * sizeof(AstNode *));
    bool ok = sub(s, a, b);
    if (!ok)
        memcpy(s->map, saved, (size_t)s->nmap * sizeof(AstNode *));
    free(saved);
    return ok;
}

static bool sub_args(Sub *s, const AstList *a, bool a_more, const AstList *b, bool b_more)
{
    if ((b_more && !a_more) || (a_more ? b->count < a->count : b->count != a->count))
        return false;
    for (int i = 0; i < a->count; i++)
        if (!sub(s, a->items[i], b->items[i]))
            return false;
    return true;
}

/* What a bound attribute of A meets when B leaves the attribute free:
 * any value (a second use of A's variable then proves nothing). */
static const AstNode any_value = {.kind = AST_WILDCARD};

/* A's attribute variable (slot) meets B's value bv of that attribute
 * (NULL: B leaves it free): free the first time, then the same B variable
 * or an equal literal. */
static bool sub_attr_var(Sub *s, int slot, const AstNode *bv)
{
    if (slot < 0 || slot >= s->nmap)
        return false;
    if (!bv || bv->kind == AST_WILDCARD)
        bv = &any_value;
    const AstNode *was = s->map[slot];
    if (!was) {
        s->map[slot] = bv;
        return true;
    }
    if (was->kind == AST_VAR && bv->kind == AST_VAR)
        return was->u.var.slot == bv->u.var.slot;
    return ast_is_literal(was) && ast_is_literal(bv) && ast_literal_equal(was, bv);
}

/* B's value of attribute name, or NULL. */
static const AstNode *attr_value(const AstList *b, const char *name)
{
    for (int j = 0; j < b->count; j++)
        if (b->items[j]->u.attr.name == name)
            return b->items[j]->u.attr.value;
    return NULL;
}

/* A's attribute constraints (literals) must be B's too; A's bound
 * attributes meet B's values. */
static bool sub_attrs(Sub *s, const AstList *a, const AstList *b)
{
    for (int i = 0; i < a->count; i++) {
        const AstNode *av = a->items[i]->u.attr.value;
        if (!av || av->kind == AST_WILDCARD)
            continue;
        const AstNode *bv = attr_value(b, a->items[i]->u.attr.name);
        if (av->kind == AST_VAR) {
            if (!sub_attr_var(s, av->u.var.slot, bv))
                return false;
            continue;
        }
        if (!ast_is_literal(av) || !bv || !ast_is_literal(bv) || !ast_literal_equal(av, bv))
            return false;
    }
    return true;
}

static bool sub_call(Sub *s, const AstNode *a, const AstNode *b)
{
    if (b->kind != AST_CALL || b->u.call.op != a->u.call.op || !a->u.call.op ||
        !sub_attrs(s, &a->u.call.attrs, &b->u.call.attrs))
        return false;
    const AstList *aa = &a->u.call.args, *ba = &b->u.call.args;
    const AstNode **saved = xmalloc(((size_t)s->nmap + 1) * sizeof(AstNode *));
    memcpy(saved, s->map, (size_t)s->nmap * sizeof(AstNode *));
    bool ok = sub_args(s, aa, a->u.call.ellipsis, ba, b->u.call.ellipsis);
    if (!ok && opinfo_has_trait(a->u.call.op, TRAIT_COMMUTATIVE) && aa->count == 2 &&
        ba->count == 2 && !a->u.call.ellipsis && !b->u.call.ellipsis) {
        memcpy(s->map, saved, (size_t)s->nmap * sizeof(AstNode *));
        ok = sub(s, aa->items[0], ba->items[1]) && sub(s, aa->items[1], ba->items[0]);
    }
    free(saved);
    return ok;
}

/* A = op?(p) or op*(p): p alone, or op around (for * repeatedly). */
static bool sub_optional(Sub *s, const AstNode *a, const AstNode *b)
{
    const AstNode *p = a->u.call.args.items[0];
    if (attempt(s, p, b))
        return true;
    if (b->kind == AST_REPEAT || b->kind == AST_OPTIONAL) /* op*(q) also matches op(op(q)) */
        return (a->kind == AST_REPEAT || b->kind == AST_OPTIONAL) &&
               b->u.call.op == a->u.call.op && sub(s, p, b->u.call.args.items[0]);
    if (b->kind != AST_CALL || b->u.call.op != a->u.call.op || b->u.call.args.count != 1)
        return false;
    return sub(s, a->kind == AST_REPEAT ? a : p, b->u.call.args.items[0]);
}

static bool sub_class(Sub *s, const AstNode *a, const AstNode *b)
{
    unsigned have = b->kind == AST_CLASS ? b->u.call.traits
                    : b->kind == AST_CALL && b->u.call.op ? b->u.call.op->traits : 0;
    if ((have & a->u.call.traits) != a->u.call.traits || !have)
        return false;
    return sub_args(s, &a->u.call.args, a->u.call.ellipsis, &b->u.call.args, b->u.call.ellipsis);
}

/* B's side: wrappers only narrow B; alternatives must both be covered. */
static bool sub_b(Sub *s, const AstNode *a, const AstNode *b, bool *done)
{
    *done = true;
    switch (b->kind) {
    case AST_BIND:
        return sub(s, a, b->u.bind.operand);
    case AST_CONSTRAIN:
        return sub(s, a, b->u.constrain.operand);
    case AST_ALT:
        return sub(s, a, b->u.alt.left) && sub(s, a, b->u.alt.right);
    case AST_OPTIONAL:
        if (a->kind == AST_OPTIONAL || a->kind == AST_REPEAT)
            break;
        return false; /* A would have to match op(p) and p: rarely provable */
    default:
        break;
    }
    *done = false;
    return false;
}

/* Whether element index a (AST_ANY_INDEX for p[_]) takes every element b does. */
static bool index_takes(int a, int b)
{
    return a == AST_ANY_INDEX || a == b;
}

static bool sub(Sub *s, const AstNode *a, const AstNode *b)
{
    if (--*s->steps < 0)
        return false;
    switch (a->kind) {
    case AST_WILDCARD:
        return true;
    case AST_VAR:
        return sub_var(s, a->u.var.slot, b);
    case AST_BIND:
        return sub_var(s, a->u.bind.slot, b) && sub(s, a->u.bind.operand, b);
    case AST_CONSTRAIN: {
        Facts f = facts_of(b);
        return implied(a, &f) && sub(s, a->u.constrain.operand, b);
    }
    case AST_ALT:
        return attempt(s, a->u.alt.left, b) || sub(s, a->u.alt.right, b);
    default:
        break;
    }
    bool done;
    bool r = sub_b(s, a, b, &done);
    if (done)
        return r;
    switch (a->kind) {
    case AST_CALL:
        return sub_call(s, a, b);
    case AST_OPTIONAL: case AST_REPEAT:
        return sub_optional(s, a, b);
    case AST_CLASS:
        return sub_class(s, a, b);
    case AST_TUPLE:
        return b->kind == AST_TUPLE && sub_args(s, &a->u.list.items, a->u.list.ellipsis,
                                                &b->u.list.items, b->u.list.ellipsis);
    case AST_GETITEM:
        return b->kind == AST_GETITEM && index_takes(a->u.item.index, b->u.item.index) &&
               sub(s, a->u.item.base, b->u.item.base);
    case AST_NUMBER:
        return b->kind == AST_NUMBER && a->u.num.value == b->u.num.value;
    case AST_OPVALUE:
        return b->kind == AST_OPVALUE && a->u.call.name == b->u.call.name;
    case AST_IF: case AST_LETIN:
        return b->kind == a->kind &&
               sub_args(s, &a->u.call.args, false, &b->u.call.args, false);
    case AST_FNLIT:
        return b->kind == AST_FNLIT && sub_attrs(s, &a->u.call.attrs, &b->u.call.attrs) &&
               sub_args(s, &a->u.call.args, a->u.call.ellipsis, &b->u.call.args,
                        b->u.call.ellipsis) &&
               sub(s, a->u.call.body, b->u.call.body);
    case AST_ANYCALL: /* a callee variable (f) ties calls together: not claimed */
        return strcmp(a->u.call.name, "_") == 0 &&
               (b->kind == AST_CALL || b->kind == AST_CLASS || b->kind == AST_FNCALL ||
                b->kind == AST_ANYCALL) &&
               sub_args(s, &a->u.call.args, a->u.call.ellipsis, &b->u.call.args,
                        b->u.call.ellipsis);
    case AST_FNCALL:
        return b->kind == AST_FNCALL && sub_attrs(s, &a->u.call.attrs, &b->u.call.attrs) &&
               sub_args(s, &a->u.call.args, a->u.call.ellipsis, &b->u.call.args,
                        b->u.call.ellipsis);
    default:
        return false;
    }
}

/* GuardEnv.class_of for a subsumption: B's slots are their own classes;
 * A's slot is the class of the B variable it met (note [guard logic]). */
static int sub_class_of(void *arg, int side, int slot, const AstNode **value)
{
    const Sub *s = arg;
    *value = NULL;
    if (side == 1)
        return slot;
    if (slot < 0 || slot >= s->nmap || !s->map[slot] || s->map[slot] == &any_value)
        return -1;
    const AstNode *b = s->map[slot];
    if (ast_is_literal(b)) {
        *value = b;
        return -1;
    }
    if (strip(b)->kind == AST_NUMBER)
        *value = strip(b);
    return node_name(b);
}

/* check_subsumes with a budget; with guards, B's must imply A's on the
 * variables' meeting. */
static bool subsumes_guarded(const AstRule *a, const AstRule *b, long *steps, bool guards)
{
    Sub s = {xcalloc((size_t)a->nvars + 1, sizeof(AstNode *)), a->nvars, steps};
    bool r = sub(&s, a->pattern, b->pattern);
    if (r && guards && a->guard) {
        GuardEnv env = {sub_class_of, &s};
        r = check_guard_implies(b->guard, a->guard, &env);
    }
    free(s.map);
    return r;
}

static bool subsumes(const AstRule *a, const AstRule *b, long *steps)
{
    return subsumes_guarded(a, b, steps, false);
}

bool check_subsumes(const AstRule *a, const AstRule *b)
{
    long steps = PAIR_STEPS;
    return subsumes(a, b, &steps);
}

bool check_subsumes_node(const AstRule *a, const AstNode *b, long *steps)
{
    Sub s = {xcalloc((size_t)a->nvars + 1, sizeof(AstNode *)), a->nvars, steps};
    bool r = sub(&s, a->pattern, b);
    free(s.map);
    return r;
}

/* ---- the pairwise comparison ---- */

/* Per rule: root key (bucket), action text, what was reported. */
typedef struct RuleInfo {
    const void *key;   /* root op / kind marker; NULL = could be any op */
    char *action;      /* canonical action text */
    bool shadowed;     /* -Wshadowed-rule reported */
    bool ambiguous;    /* -Wambiguous-overlap reported */
} RuleInfo;

/* What the comparison may still spend. */
typedef struct Budget {
    long pairs; /* rule pairs */
    long steps; /* pattern comparison steps over all pairs */
} Budget;

/* A pattern's root node, past its binding and constraints. */
static const AstNode *root_node(const AstNode *p)
{
    while (p->kind == AST_BIND || p->kind == AST_CONSTRAIN)
        p = p->kind == AST_BIND ? p->u.bind.operand : p->u.constrain.operand;
    return p;
}

static const void *root_key(const AstNode *p)
{
    static const char keys[AST_KIND_COUNT];
    p = root_node(p);
    switch (p->kind) {
    case AST_CALL:
        return p->u.call.op;
    case AST_TUPLE: case AST_GETITEM: case AST_NUMBER: case AST_FNCALL: case AST_FNLIT:
    case AST_IF: case AST_LETIN: case AST_CALLPAT:
        return &keys[p->kind];
    default:
        return NULL;
    }
}

static void report_shadow(CheckCtx *c, const AstRule *winner, const AstRule *loser)
{
    diag_warning(c->d, loser->src, loser->name_range, "shadowed-rule",
                 "rule '%s' can never fire: rule '%s' matches everything it matches%s and "
                 "wins (%s)", loser->name, winner->name,
                 !winner->guard ? ""
                 : loser->guard ? ", its guard holds wherever this one's does,"
                                : ", its guard holds on all of it,",
                 winner->priority > loser->priority ? "higher priority" : "it comes first");
    diag_note(c->d, winner->src, winner->name_range, "rule '%s' is here", winner->name);
}

/* note [refused by the outputs]: on an ONNX model graft run refuses a
 * rewrite that would change the model's fixed outputs (note [fixed
 * outputs] in src/ir/graph_module.c) as a guard that fails: a rule whose
 * root may be no call (the outputs' tuple, a graph input) or whose
 * action makes a tuple is refused at some matches of some models, and a
 * later rule then applies there (graft explain says so).  In an ONNX
 * rule file such a rule shadows nothing.  A call's root with a call's or
 * a variable's action always fits: an ONNX value is a tensor. */
static bool outputs_may_refuse(const CheckCtx *c, const AstRule *r)
{
    if (!registry_onnx_opset(c->reg))
        return false;
    bool tuple_action = r->kind == RULE_REWRITE && r->action && r->action->kind == AST_TUPLE;
    return root_node(r->pattern)->kind != AST_CALL || tuple_action;
}

/* Runs one pattern comparison on at most PAIR_STEPS of the budget. */
static long pair_steps(const Budget *b)
{
    return b->steps < PAIR_STEPS ? b->steps : PAIR_STEPS;
}

static bool budget_subsumes(Budget *bud, const AstRule *a, const AstRule *b, bool guards)
{
    long steps = pair_steps(bud), start = steps;
    bool r = subsumes_guarded(a, b, &steps, guards);
    bud->steps -= start - (steps > 0 ? steps : 0);
    return r;
}

static bool budget_unify(Budget *bud, const AstRule *a, const AstRule *b)
{
    long steps = pair_steps(bud), start = steps;
    bool r = check_unify_rules(a, b, &steps);
    bud->steps -= start - (steps > 0 ? steps : 0);
    return r;
}

/* Whether a is written as a special case of b, the idiom "exception
 * first": a's pattern is narrower than b's, or the patterns are the same
 * and a's guard implies b's (depthwise where g > 1 before few where g < 4
 * is no special case). */
static bool special_case(Budget *bud, const AstRule *a, const AstRule *b)
{
    if (!budget_subsumes(bud, b, a, false))
        return false;
    return !budget_subsumes(bud, a, b, false) || budget_subsumes(bud, b, a, true);
}

/* Compares rule i (earlier) with rule j (later). */
static void compare(CheckCtx *c, RuleInfo *info, int i, int j, Budget *bud)
{
    const AstRule *a = c->rf->rules[i], *b = c->rf->rules[j];
    if (a->kind != b->kind || info[i].shadowed || info[j].shadowed)
        return;
    bool b_wins = b->priority > a->priority;
    const AstRule *w = b_wins ? b : a, *l = b_wins ? a : b;
    if (!w->once && !outputs_may_refuse(c, w) && budget_subsumes(bud, w, l, true)) {
        report_shadow(c, w, l);
        info[b_wins ? i : j].shadowed = true;
        return;
    }
    if (a->priority != b->priority || info[j].ambiguous ||
        strcmp(info[i].action, info[j].action) == 0 || special_case(bud, a, b) ||
        !budget_unify(bud, a, b))
        return;
    diag_warning(c->d, b->src, b->name_range, "ambiguous-overlap",
                 "rules '%s' and '%s' can match the same node with different actions; "
                 "'%s' wins because it comes first", a->name, b->name, a->name);
    diag_note(c->d, a->src, a->name_range, "rule '%s' is here", a->name);
    info[j].ambiguous = true;
}

/* note [self-rewrite]: rewriting repeats until nothing changes (note
 * [rewrite rounds] in src/runtime/rewrite.c), so a rule without a guard
 * or [once] whose own pattern matches everything its action builds
 * (add(x, y) => add(y, x)) fires on its result in every round and never
 * reaches a fixpoint.  That is subsumption of the action, read as a
 * pattern, by the rule's pattern. */
static void check_self_rewrite(CheckCtx *c, const AstRule *r, Budget *bud)
{
    const AstNode *act = r->action;
    if (r->kind != RULE_REWRITE || r->guard || r->once || !act || act->kind != AST_CALL)
        return;
    long steps = pair_steps(bud), start = steps;
    Sub s = {xcalloc((size_t)r->nvars + 1, sizeof(AstNode *)), r->nvars, &steps};
    bool loops = sub(&s, r->pattern, act);
    free(s.map);
    bud->steps -= start - (steps > 0 ? steps : 0);
    if (loops)
        diag_warning(c->d, r->src, r->name_range, "self-rewrite",
                     "rule '%s' rewrites forever: its pattern matches everything its action "
                     "builds, so it fires again on its own result; add a guard or [once]",
                     r->name);
}

/* Rule indices, increasing: the earlier rules with one root key, those
 * that could have any root, all of them. */
typedef VEC(int) RuleList;
typedef VEC(RuleList) Buckets;

/* Compares rule j with the earlier rules of its bucket and the general
 * ones (both lists increasing, merged so order stays by index). */
static void compare_bucket(CheckCtx *c, RuleInfo *info, int j, const RuleList *bucket,
                           const RuleList *general, Budget *bud)
{
    size_t a = 0, g = 0, na = bucket->len, ng = general ? general->len : 0;
    while ((a < na || g < ng) && bud->pairs > 0 && bud->steps > 0) {
        int i;
        if (g >= ng || (a < na && bucket->items[a] < general->items[g]))
            i = bucket->items[a++];
        else
            i = general->items[g++];
        bud->pairs--;
        compare(c, info, i, j, bud);
    }
}

/* The bucket of root key key, made empty when new. */
static RuleList *bucket_for(KeyMap *by_key, Buckets *buckets, const void *key)
{
    int64_t *b = keymap_put(by_key, keymap_ptr_key(key), (int64_t)buckets->len);
    if ((size_t)*b == buckets->len)
        vec_push(buckets, (RuleList){0});
    return &buckets->items[*b];
}

void check_overlaps(CheckCtx *c)
{
    int n = c->rf->nrules;
    RuleInfo *info = xcalloc((size_t)n + 1, sizeof(RuleInfo));
    KeyMap by_key = {0};         /* root key -> its index in buckets */
    Buckets buckets = {0};       /* the rules of each root key */
    RuleList general = {0}, all = {0};
    Budget bud = {PAIR_BUDGET, STEP_BUDGET};
    for (int j = 0; j < n; j++) {
        if (check_is_roots(c->rf->rules[j]->pattern))
            continue; /* a group of nodes, no tree another rule's could shadow */
        check_self_rewrite(c, c->rf->rules[j], &bud);
        StrBuf sb = {0};
        ast_print_node(&sb, c->rf->rules[j]->action);
        info[j].action = sb.data;
        info[j].key = root_key(c->rf->rules[j]->pattern);
        if (!info[j].key) {
            compare_bucket(c, info, j, &all, NULL, &bud);
            vec_push(&general, j);
        } else {
            RuleList *bucket = bucket_for(&by_key, &buckets, info[j].key);
            compare_bucket(c, info, j, bucket, &general, &bud);
            vec_push(bucket, j);
        }
        vec_push(&all, j);
    }
    for (size_t i = 0; i < buckets.len; i++)
        vec_free(&buckets.items[i]);
    for (int r = 0; r < n; r++)
        free(info[r].action);
    vec_free(&buckets);
    keymap_free(&by_key);
    vec_free(&general);
    vec_free(&all);
    free(info);
}
