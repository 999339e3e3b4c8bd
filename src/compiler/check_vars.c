/* check_vars.c - pattern variables: slots, binding sites, constraints that
 * contradict each other, and which variables every match binds. */
#include "check_impl.h"

#include <stdlib.h>
#include <string.h>

/* Facts about one non-variable node constrained in place ((a+b):const). */
typedef struct LocalFacts {
    const AstNode *node; /* the constrained node */
    Facts facts;         /* what its constraints say */
} LocalFacts;

/* State of one walk over a pattern. */
typedef struct Walk {
    CheckCtx *c;         /* the checker */
    bool ok;             /* no error so far */
    int in_path;         /* > 0 inside a dominator path */
    VEC(LocalFacts) locals; /* facts of non-variable nodes */
} Walk;

static void walk(Walk *w, AstNode *n);

int check_find_var(const CheckCtx *c, const char *name)
{
    for (int i = 0; i < c->nvars; i++)
        if (c->vars[i].name == name)
            return i;
    return -1;
}

static Facts no_facts(void)
{
    return (Facts){.is_const = -1, .is_var = -1, .rank = -1};
}

static int add_var(CheckCtx *c, const char *name, VarKind kind, const AstNode *site)
{
    size_t cap = c->vars_cap;
    c->vars = xgrow_items(c->vars, &c->vars_cap, (size_t)c->nvars + 1, sizeof(AstVarInfo));
    if (c->vars_cap != cap) {
        c->var_facts = xrealloc(c->var_facts, c->vars_cap * sizeof(Facts));
        c->occurrences = xrealloc(c->occurrences, c->vars_cap * sizeof(int));
    }
    int slot = c->nvars++;
    c->vars[slot] = (AstVarInfo){.name = name, .kind = kind, .site = site, .seq_from = -1};
    c->var_facts[slot] = no_facts();
    c->occurrences[slot] = 0;
    return slot;
}

static const char *var_kind_text(VarKind kind)
{
    switch (kind) {
    case VARKIND_NODE: return "a node";
    case VARKIND_ATTR: return "an attribute";
    case VARKIND_CALLEE: return "a callee";
    case VARKIND_INDEX: return "an element index";
    }
    return "?";
}

/* A name in a binding position; returns its slot or -1 after an error. */
static int bind_name(Walk *w, const char *name, VarKind kind, const AstNode *site,
                     SrcRange where)
{
    CheckCtx *c = w->c;
    if (w->in_path) {
        diag_error(c->d, site->src, where, "variable '%s' inside a dominator path; "
                   "a path matches many nodes, so use _ there", name);
        w->ok = false;
        return -1;
    }
    int slot = check_find_var(c, name);
    if (slot < 0)
        slot = add_var(c, name, kind, site);
    else if (c->vars[slot].seq_from >= 0) {
        diag_error(c->d, site->src, where, "'%s' is bound to several fields (%s...); use "
                   "another name here", name, name);
        w->ok = false;
        return -1;
    } else if (c->vars[slot].kind != kind) {
        diag_error(c->d, site->src, where, "'%s' is bound to %s here but to %s elsewhere",
                   name, var_kind_text(kind), var_kind_text(c->vars[slot].kind));
        w->ok = false;
        return -1;
    }
    c->occurrences[slot]++;
    return slot;
}

/* The node a constraint really applies to: below constraints and names. */
static const AstNode *target_of(const AstNode *n)
{
    for (;;) {
        if (n->kind == AST_CONSTRAIN)
            n = n->u.constrain.operand;
        else if (n->kind == AST_BIND)
            n = n->u.bind.operand;
        else
            return n;
    }
}

/* What a node's own kind says, before any constraint. */
Facts check_facts_of_kind(const AstNode *n)
{
    Facts f = no_facts();
    switch (n->kind) {
    case AST_NUMBER:
        f.is_const = 1;
        f.is_var = 0;
        f.rank = 0;
        break;
    case AST_CALL: case AST_CLASS: case AST_FNCALL: case AST_TUPLE: case AST_GETITEM:
    case AST_ANYCALL: case AST_OPVALUE: case AST_FNLIT: case AST_IF: case AST_LETIN:
    case AST_CALLPAT:
        f.is_const = 0;
        f.is_var = 0;
        break;
    default:
        break;
    }
    return f;
}

static Facts *facts_for(Walk *w, const AstNode *target)
{
    if (target->kind == AST_VAR && target->u.var.slot >= 0)
        return &w->c->var_facts[target->u.var.slot];
    for (size_t i = 0; i < w->locals.len; i++)
        if (w->locals.items[i].node == target)
            return &w->locals.items[i].facts;
    vec_push(&w->locals, ((LocalFacts){target, check_facts_of_kind(target)}));
    return &w->locals.items[w->locals.len - 1].facts;
}

/* Merges a required value into *have; returns the clash text or NULL. */
static const char *merge_flag(int *have, int want, const char *clash)
{
    if (*have >= 0 && *have != want)
        return clash;
    *have = want;
    return NULL;
}

static const char *merge_shape(Facts *f, const AstNode *k, char *buf, size_t size)
{
    const char *dtype = k->u.constrain.dtype;
    if (dtype && f->dtype && f->dtype != dtype) {
        snprintf(buf, size, "dtype %s contradicts %s", dtype, f->dtype);
        return buf;
    }
    if (dtype)
        f->dtype = dtype;
    if (k->u.constrain.kind == CONSTRAINT_DTYPE)
        return NULL;
    int rank = k->u.constrain.rank;
    if (f->rank >= 0 && f->rank != rank) {
        snprintf(buf, size, "rank %d contradicts rank %d", rank, f->rank);
        return buf;
    }
    f->rank = rank;
    const int64_t *dims = k->u.constrain.dims;
    for (int i = 0; dims && f->dims && i < rank; i++)
        if (dims[i] >= 0 && f->dims[i] >= 0 && dims[i] != f->dims[i]) {
            snprintf(buf, size, "dimension %d is %lld here but %lld before", i,
                     (long long)dims[i], (long long)f->dims[i]);
            return buf;
        }
    if (dims)
        f->dims = dims;
    return NULL;
}

const char *check_merge_facts(Facts *f, const AstNode *k, char *buf, size_t size)
{
    switch (k->u.constrain.kind) {
    case CONSTRAINT_CONST:
        if (f->is_var == 1)
            return "a model input (var) is never a constant";
        return merge_flag(&f->is_const, 1, "an op call, tuple or element is never a constant");
    case CONSTRAINT_VAR:
        if (f->is_const == 1)
            return "a constant is never a model input (var)";
        if (k->u.constrain.name && f->var_name && f->var_name != k->u.constrain.name) {
            snprintf(buf, size, "var(\"%s\") and var(\"%s\") name different inputs",
                     k->u.constrain.name, f->var_name);
            return buf;
        }
        if (k->u.constrain.name)
            f->var_name = k->u.constrain.name;
        return merge_flag(&f->is_var, 1,
                          "an op call, tuple or element is never a model input (var)");
    default:
        return merge_shape(f, k, buf, size);
    }
}

static void apply_constraint(Walk *w, const AstNode *k)
{
    const AstNode *target = target_of(k);
    Facts *f = facts_for(w, target);
    char buf[160];
    const char *clash = check_merge_facts(f, k, buf, sizeof buf);
    if (clash) {
        CheckCtx *c = w->c;
        if (target->kind == AST_VAR)
            diag_error(c->d, k->src, k->u.constrain.where,
                       "contradictory constraints on '%s': %s", target->u.var.name, clash);
        else
            diag_error(c->d, k->src, k->u.constrain.where, "contradictory constraints: %s",
                       clash);
        if (f->first)
            diag_note(c->d, f->first->src, f->first->u.constrain.where,
                      "the other constraint is here");
        w->ok = false;
    } else if (!f->first) {
        f->first = k;
    }
}

/* What two alternatives both say about a variable: a fact on which they
 * differ is unknown. */
static Facts join_facts(const Facts *a, const Facts *b)
{
    Facts f = no_facts();
    if (a->is_const == b->is_const)
        f.is_const = a->is_const;
    if (a->is_var == b->is_var)
        f.is_var = a->is_var;
    if (a->var_name == b->var_name)
        f.var_name = a->var_name;
    if (a->dtype == b->dtype)
        f.dtype = a->dtype;
    if (a->rank == b->rank && (!a->dims || !b->dims ||
                               memcmp(a->dims, b->dims, (size_t)a->rank * sizeof *a->dims) == 0)) {
        f.rank = a->rank;
        f.dims = a->dims && b->dims ? a->dims : NULL;
    }
    f.first = a->first ? a->first : b->first;
    return f;
}

/* memcpy of n entries, where n may be 0 and the arrays not yet made. */
static void copy_n(void *to, const void *from, size_t n, size_t size)
{
    if (n)
        memcpy(to, from, n * size);
}

/* a | b: each side binds its own names, so constraints from one side
 * never contradict the other's ((w:const | w:var)); afterwards a
 * variable has the facts both sides agree on (and a variable only one
 * side binds, that side's). */
static void walk_alt(Walk *w, AstNode *n)
{
    CheckCtx *c = w->c;
    int before = c->nvars;
    Facts *saved = xmalloc(((size_t)before + 1) * sizeof *saved);
    copy_n(saved, c->var_facts, (size_t)before, sizeof *saved);
    walk(w, n->u.alt.left);
    int mid = c->nvars;
    Facts *left = xmalloc(((size_t)mid + 1) * sizeof *left);
    copy_n(left, c->var_facts, (size_t)mid, sizeof *left);
    copy_n(c->var_facts, saved, (size_t)before, sizeof *saved);
    for (int i = before; i < mid; i++)
        c->var_facts[i] = no_facts();
    bool *seen_right = xcalloc((size_t)mid + 1, sizeof *seen_right);
    int *occ = xmalloc(((size_t)mid + 1) * sizeof *occ);
    copy_n(occ, c->occurrences, (size_t)mid, sizeof *occ);
    walk(w, n->u.alt.right);
    for (int i = 0; i < mid; i++)
        seen_right[i] = c->occurrences[i] != occ[i] || i < before;
    for (int i = 0; i < mid; i++)
        c->var_facts[i] = i >= before && !seen_right[i] ? left[i]
                                                        : join_facts(&left[i], &c->var_facts[i]);
    free(occ);
    free(seen_right);
    free(left);
    free(saved);
}

static void walk_child(AstNode *child, void *arg)
{
    walk(arg, child);
}

/* note [sequence variables]: rest... as the last field of a tuple
 * pattern binds the fields from its position on; the variable's slot
 * holds the tuple node and seq_from says where its fields start.  An
 * action splices it (rest..., or rest[lo:hi]... for some of them) among
 * the fields of a new tuple or the operands of a new call, as it does a
 * tuple bound by t@(...) (t..., t[:-1]...).  A sequence variable is bound
 * once and used only so. */
static void bind_sequence(Walk *w, AstNode *tuple)
{
    AstNode *v = tuple->u.list.rest;
    CheckCtx *c = w->c;
    int before = check_find_var(c, v->u.var.name);
    int slot = bind_name(w, v->u.var.name, VARKIND_NODE, tuple, v->range);
    v->u.var.slot = slot;
    if (slot < 0)
        return;
    if (before >= 0) {
        diag_error(c->d, v->src, v->range, "'%s...' binds several fields; its name is "
                   "bound elsewhere too", v->u.var.name);
        w->ok = false;
        return;
    }
    c->vars[slot].seq_from = tuple->u.list.items.count;
}

/* note [index variables]: split(x)[i] matches an element of any index
 * and binds i to that index, a number the guard reads (where i > 0) and
 * the action uses as an element's index (t[i]) or an attribute value
 * (NAME=i).  An index variable is no node: it stands for neither an
 * operand nor a query's node, and a name bound as one kind is not the
 * other elsewhere.  i used twice wants equal indexes.  Lowered, it is an
 * attribute binding of no name on the element's pattern node (graft_attr_
 * bind in graft_rules.h), so the matcher, guards and actions read it as
 * they read strides=s. */
static void bind_index(Walk *w, AstNode *getitem)
{
    AstNode *v = getitem->u.item.var;
    v->u.var.slot = bind_name(w, v->u.var.name, VARKIND_INDEX, getitem, v->range);
}

static void walk(Walk *w, AstNode *n)
{
    switch (n->kind) {
    case AST_VAR:
        n->u.var.slot = bind_name(w, n->u.var.name, VARKIND_NODE, n, n->range);
        return;
    case AST_BIND:
        n->u.bind.slot = bind_name(w, n->u.bind.name, VARKIND_NODE, n, n->u.bind.name_range);
        walk(w, n->u.bind.operand);
        return;
    case AST_ATTR:
        if (n->u.attr.value && n->u.attr.value->kind == AST_VAR) {
            AstNode *v = n->u.attr.value;
            v->u.var.slot = bind_name(w, v->u.var.name, VARKIND_ATTR, n, v->range);
        }
        return;
    case AST_ANYCALL:
        if (strcmp(n->u.call.name, "_") != 0)
            n->u.call.slot = bind_name(w, n->u.call.name, VARKIND_CALLEE, n,
                                       n->u.call.name_range);
        ast_visit_children(n, walk_child, w);
        return;
    case AST_GETITEM:
        walk(w, n->u.item.base);
        if (n->u.item.var)
            bind_index(w, n);
        return;
    case AST_CONSTRAIN:
        walk(w, n->u.constrain.operand);
        apply_constraint(w, n);
        return;
    case AST_ALT:
        walk_alt(w, n);
        return;
    case AST_TUPLE:
        for (int i = 0; i < n->u.list.items.count; i++)
            walk(w, n->u.list.items.items[i]);
        if (n->u.list.rest)
            bind_sequence(w, n);
        return;
    case AST_DOMINATES:
        walk(w, n->u.dom.parent);
        w->in_path++;
        walk(w, n->u.dom.path);
        w->in_path--;
        walk(w, n->u.dom.child);
        return;
    default:
        ast_visit_children(n, walk_child, w);
        return;
    }
}

/* Sets bound[slot] for each variable bound on every way n can match. */
static void always_bound(const CheckCtx *c, const AstNode *n, bool *bound);

static void bound_child(AstNode *child, void *arg)
{
    void **pair = arg;
    always_bound(pair[0], child, pair[1]);
}

static void always_bound(const CheckCtx *c, const AstNode *n, bool *bound)
{
    if (n->kind == AST_VAR && n->u.var.slot >= 0) {
        bound[n->u.var.slot] = true;
    } else if (n->kind == AST_BIND && n->u.bind.slot >= 0) {
        bound[n->u.bind.slot] = true;
        always_bound(c, n->u.bind.operand, bound);
    } else if (n->kind == AST_ANYCALL && strcmp(n->u.call.name, "_") != 0) {
        if (n->u.call.slot >= 0)
            bound[n->u.call.slot] = true;
        void *pair[2] = {(void *)c, bound};
        ast_visit_children(n, bound_child, pair);
    } else if (n->kind == AST_ALT) {
        bool *l = xcalloc((size_t)c->nvars + 1, sizeof(bool));
        bool *r = xcalloc((size_t)c->nvars + 1, sizeof(bool));
        always_bound(c, n->u.alt.left, l);
        always_bound(c, n->u.alt.right, r);
        for (int i = 0; i < c->nvars; i++)
            bound[i] |= l[i] && r[i];
        free(l);
        free(r);
    } else if (n->kind == AST_GETITEM && n->u.item.var) {
        if (n->u.item.var->u.var.slot >= 0)
            bound[n->u.item.var->u.var.slot] = true;
        always_bound(c, n->u.item.base, bound);
    } else if (n->kind == AST_DOMINATES) {
        always_bound(c, n->u.dom.parent, bound);
        always_bound(c, n->u.dom.child, bound);
    } else {
        void *pair[2] = {(void *)c, bound};
        ast_visit_children(n, bound_child, pair);
    }
}

bool check_pattern_vars(CheckCtx *c)
{
    Walk w = {.c = c, .ok = true};
    walk(&w, c->rule->pattern);
    vec_free(&w.locals);
    bool *bound = xcalloc((size_t)c->nvars + 1, sizeof(bool));
    always_bound(c, c->rule->pattern, bound);
    for (int i = 0; i < c->nvars; i++)
        c->vars[i].always_bound = bound[i];
    free(bound);
    return w.ok;
}
