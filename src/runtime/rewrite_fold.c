/* rewrite_fold.c - fold(...) in a rewrite's action (note [constant
 * folding] in fold.h): the expression is built, then evaluated into one
 * constant that takes its place; the nodes built for it are left to the
 * next sweep, as nothing reads them.  Equal folds of one action (the
 * scale of a folded batch norm, used by the new weight and the new bias)
 * make one constant, so one initializer (ONNX) or one meta constant
 * (Relay, note [meta constants]). */
#include "engine_impl.h"

#include <string.h>

#include "fold.h"

/* Whether the bound node of a leaf can be one: a constant, or an ONNX
 * optional input left out. */
static bool constant_leaf(const graft_node *n)
{
    return n && (node_kind(n) == NODE_CONST ||
                 (node_kind(n) == NODE_TUPLE && node_nargs(n) == 0));
}

static bool leaves_ready(const graft_expr *x, const graft_binding *b, bool inside)
{
    inside = inside || x->kind == GRAFT_EXPR_FOLD;
    if (inside && x->kind == GRAFT_EXPR_SLOT && x->i != 1 && !constant_leaf(b[x->slot].node))
        return false;
    if (inside && (x->kind == GRAFT_EXPR_SPLICE || x->kind == GRAFT_EXPR_CALLEE))
        return false;
    for (int i = 0; i < x->nkids; i++)
        if (!leaves_ready(x->kids[i], b, inside))
            return false;
    return true;
}

bool rewrite_has_fold(const graft_expr *x)
{
    if (x->kind == GRAFT_EXPR_FOLD)
        return true;
    for (int i = 0; i < x->nkids; i++)
        if (rewrite_has_fold(x->kids[i]))
            return true;
    return false;
}

bool rewrite_fold_ready(const graft_engine *e, const graft_expr *x, const graft_binding *b)
{
    return e->opts.folds_built || leaves_ready(x, b, false);
}

void rewrite_fold_begin(graft_engine *e)
{
    e->folds.len = 0;
    e->fold_failed = false;
}

static bool same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Whether two action expressions are written alike. */
static bool expr_equal(const graft_expr *a, const graft_expr *b)
{
    if (a == b)
        return true;
    if (a->kind != b->kind || a->f != b->f || a->i != b->i || a->slot != b->slot ||
        a->cmp != b->cmp || a->nkids != b->nkids || a->nattrs != b->nattrs ||
        !same_text(a->s, b->s) || !same_text(a->text, b->text) ||
        !same_text(a->dtype, b->dtype) || (a->attr != b->attr &&
                                           (!a->attr || !b->attr ||
                                            !attr_value_equal(a->attr, b->attr))))
        return false;
    for (int i = 0; i < a->nkids; i++)
        if (!expr_equal(a->kids[i], b->kids[i]))
            return false;
    for (int i = 0; i < a->nattrs; i++) {
        const graft_act_attr *x = &a->attrs[i], *y = &b->attrs[i];
        if (x->src != y->src || x->slot != y->slot || !same_text(x->name, y->name) ||
            (x->value != y->value && (!x->value || !y->value || !expr_equal(x->value, y->value))))
            return false;
    }
    return true;
}

graft_node *rewrite_fold_find(const graft_engine *e, const graft_expr *x)
{
    if (e->opts.folds_built)
        return NULL;
    for (size_t i = 0; i < e->folds.len; i++)
        if (expr_equal(e->folds.items[i].expr, x))
            return e->folds.items[i].value;
    return NULL;
}

/* The environment of a fold: on a Relay graph the section's values and
 * the next new constant's index, read with the first fold. */
static FoldEnv fold_env(graft_engine *e)
{
    FoldEnv env = {.max_elements = e->limits->fold_elements};
    if (graph_ir(e->g) != IR_RELAY)
        return env;
    if (!e->meta) {
        e->meta = eval_meta_new(graph_metadata(e->g));
        e->next_meta = fold_meta_base(e->g, e->meta, NULL);
    }
    env.meta = e->meta;
    env.next_meta = e->next_meta >= 0 ? &e->next_meta : NULL;
    return env;
}

graft_node *rewrite_fold(graft_engine *e, const graft_expr *x, graft_node *built)
{
    if (e->opts.folds_built || e->fold_failed)
        return built;
    FoldEnv env = fold_env(e);
    graft_node *c = fold_expr(e->g, built, &env, NULL);
    if (!c) {
        e->fold_failed = true;
        return built;
    }
    vec_push(&e->folds, ((FoldMade){x, c}));
    return c;
}

void rewrite_fold_end(graft_engine *e)
{
    if (e->meta)
        fold_meta_commit(e->g);
}
