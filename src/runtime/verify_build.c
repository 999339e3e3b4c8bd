/* verify_build.c - a rule's pattern as a small graph, node by node: the
 * leaves numbered (which can be the primary one), then each pattern node
 * built as its kind says, operands first (note [verifying a rule] in
 * verify.h, note [instance search] in verify_impl.h).  A leaf's shape and
 * value: verify_build_leaf.c; an op call's operands, attributes and
 * evaluation: verify_build_call.c; the values by node:
 * verify_build_value.c. */
#include <stdio.h>
#include <stdlib.h>

#include "verify_impl.h"

/* ---- leaf numbering ---- */

/* Leaf ids: one per variable, one per _ (recursion is bounded by the
 * rule-depth limit, as every walk of a pattern). */
static bool is_constant_leaf(const Instance *in, const graft_pat *p)
{
    const graft_item *item = &in->rs->items[p->item];
    for (int i = 0; i < item->npreds; i++) {
        graft_pred_kind k = in->rs->preds[item->preds[i]].kind;
        if (k == GRAFT_PRED_IS_CONST || k == GRAFT_PRED_VALUE)
            return true;
    }
    return false;
}

/* Finds the sub-pattern binding each variable that is bound to more than
 * a leaf (the first, in operand order). */
static void find_binders(Instance *in, const graft_pat *p)
{
    if (p->kind != GRAFT_PAT_ANY && p->slot >= 0 && !in->slot_binder[p->slot])
        in->slot_binder[p->slot] = p;
    for (int i = 0; i < p->nkids; i++)
        find_binders(in, p->kids[i]);
}

/* Numbers the leaves that can be the primary one (constants, and uses of
 * variables bound to a sub-pattern, cannot). */
static void number_leaves(Instance *in, const graft_pat *p)
{
    if (p->kind == GRAFT_PAT_ANY) {
        if ((p->slot >= 0 && (in->slot_leaf[p->slot] >= 0 || in->slot_binder[p->slot])) ||
            is_constant_leaf(in, p))
            return;
        int id = in->nleafids++;
        in->anon = xrealloc(in->anon, (size_t)in->nleafids * sizeof *in->anon);
        in->anon[id] = p->slot < 0 ? p : NULL;
        if (p->slot >= 0)
            in->slot_leaf[p->slot] = id;
        return;
    }
    for (int i = 0; i < p->nkids; i++)
        number_leaves(in, p->kids[i]);
}

int verify_leaf_id(const Instance *in, const graft_pat *p)
{
    if (p->slot >= 0)
        return in->slot_leaf[p->slot];
    for (int i = 0; i < in->nleafids; i++)
        if (in->anon[i] == p)
            return i;
    return -1;
}

/* Fields [p->nkids, nfields) of tuple p: those its variable's splices
 * want past the pattern's (note [spliced captures] in verify_choose.c),
 * each shaped as the field before it. */
static void add_captured_fields(Instance *in, const graft_pat *p, graft_node **fields,
                                int nfields)
{
    StrBuf name = {0};
    strbuf_printf(&name, "%s...", in->rule->slot_names[p->slot]);
    const char *capture = graph_intern(in->g, name.data);
    strbuf_free(&name);
    for (int i = p->nkids; i < nfields; i++)
        fields[i] = verify_extra_field(in, i > 0 ? verify_tensor_of(in, fields[i - 1]) : NULL,
                                       capture);
}

/* A tuple; field i a fresh leaf shaped by ctxs[i] when ctxs is given;
 * after the pattern's fields, those its variable's splices want. */
graft_node *verify_build_tuple(Instance *in, const graft_pat *p, const LeafCtx *ctxs)
{
    int nfields = p->nkids + (p->slot >= 0 && in->more_fields ? in->more_fields[p->slot] : 0);
    graft_node **fields = xcalloc((size_t)nfields + 1, sizeof *fields);
    graft_node *n = NULL;
    for (int i = 0; i < p->nkids; i++)
        if (!(fields[i] = ctxs && verify_fresh_leaf(in, p->kids[i])
                              ? verify_build_leaf(in, p->kids[i], &ctxs[i])
                              : verify_build_pat(in, p->kids[i], NULL)))
            goto done;
    if (nfields > p->nkids)
        add_captured_fields(in, p, fields, nfields);
    n = graph_add_tuple(in->g, fields, nfields);
    Value *v = verify_value_of(in, n);
    v->nfields = nfields;
    v->fields = xcalloc((size_t)nfields + 1, sizeof *v->fields);
    for (int i = 0; i < nfields; i++)
        v->fields[i] = value_copy(verify_value_of(in, fields[i]));
    verify_set_type(in, n, v);
done:
    free(fields);
    return n;
}

/* p[i]: the chooser's index among the nfields, each in turn (note [index
 * variables] in src/compiler/check_vars.c); an i bound before keeps its. */
static int choose_index(Instance *in, const graft_pat *p, int nfields)
{
    int slot = p->binds[0].slot;
    if (!in->slot_attr[slot]) {
        char text[24];
        snprintf(text, sizeof text, "%d", chooser_pick(in->ch, nfields > 0 ? nfields : 1));
        in->slot_attr[slot] = verify_attr_from_text(in->g, text);
    }
    return (int)in->slot_attr[slot]->i;
}

static graft_node *build_getitem(Instance *in, const graft_pat *p)
{
    graft_node *t = verify_build_pat(in, p->kids[0], NULL);
    if (!t)
        return NULL;
    int index = in->rs->items[p->item].index;
    const Value *tv = verify_value_of(in, t);
    if (p->nbinds) /* t[i] */
        index = choose_index(in, p, tv->nfields);
    else if (index < 0) /* t[_]: the instance takes the first element */
        index = 0;
    if (tv->nfields <= index)
        return verify_fail(in, "field %d of a value with %d fields", index, tv->nfields);
    graft_node *n = graph_add_getitem(in->g, t, index);
    *verify_value_of(in, n) = value_copy(&tv->fields[index]);
    verify_set_type(in, n, verify_value_of(in, n));
    return n;
}

graft_node *verify_build_pat(Instance *in, const graft_pat *p, const LeafCtx *ctx)
{
    if (p->slot >= 0 && in->slot_node[p->slot]) /* bound again: the same node */
        return in->slot_node[p->slot];
    graft_node *n = NULL;
    switch (p->kind) {
    case GRAFT_PAT_ANY:
        return verify_build_leaf(in, p, ctx);
    case GRAFT_PAT_OP:
        n = verify_build_op(in, p);
        break;
    case GRAFT_PAT_ALT:
        n = verify_build_pat(in, p->kids[chooser_pick(in->ch, p->nkids)], ctx);
        break;
    case GRAFT_PAT_STAR: {
        bool apply = chooser_pick(in->ch, 2) == 1;
        n = verify_build_pat(in, p->kids[0], ctx);
        if (n && apply)
            n = verify_finish_call(in, NULL, in->rs->items[p->item].op, &n, 1, NULL, 0);
        break;
    }
    case GRAFT_PAT_TUPLE:
        n = verify_build_tuple(in, p, NULL);
        break;
    case GRAFT_PAT_GETITEM:
        n = build_getitem(in, p);
        break;
    case GRAFT_PAT_FNCALL:
    case GRAFT_PAT_CALL:
    case GRAFT_PAT_FNCALLEE:
    case GRAFT_PAT_DOM:
        return verify_fail(in, "patterns with %s are not instantiated",
                           p->kind == GRAFT_PAT_DOM ? "dominates()" : "function calls");
    case GRAFT_PAT_FN:
    case GRAFT_PAT_IF:
    case GRAFT_PAT_LET:
        return verify_fail(in, "patterns with fn, if or let are not instantiated");
    }
    if (n && p->slot >= 0 && !in->slot_node[p->slot])
        in->slot_node[p->slot] = n;
    return n;
}

bool verify_build(Instance *in)
{
    int nslots = in->rule->nslots;
    in->slot_leaf = xcalloc((size_t)nslots + 1, sizeof *in->slot_leaf);
    in->slot_node = xcalloc((size_t)nslots + 1, sizeof *in->slot_node);
    in->slot_attr = xcalloc((size_t)nslots + 1, sizeof *in->slot_attr);
    in->slot_binder = xcalloc((size_t)nslots + 1, sizeof *in->slot_binder);
    for (int i = 0; i < nslots; i++)
        in->slot_leaf[i] = -1;
    const graft_rule *r = in->rule;
    int nroots = r->nroots ? r->nroots : 1;
    for (int j = 0; j < nroots; j++)
        find_binders(in, r->nroots ? r->roots[j].pattern : r->pattern);
    for (int j = 0; j < nroots; j++)
        number_leaves(in, r->nroots ? r->roots[j].pattern : r->pattern);
    in->primary = chooser_pick(in->ch, in->nleafids);
    in->mode = chooser_pick(in->ch, 3);
    in->g = graph_new();
    graph_set_name(in->g, "main");
    /* note [root instances]: the roots of a rule of several, built in
     * order with their variables shared, are the fields of the
     * instance's output tuple; the rule matches at the first and each
     * field is compared after the rewrite */
    graft_node **roots = xmalloc((size_t)nroots * sizeof *roots);
    bool ok = true;
    for (int j = 0; j < nroots && ok; j++)
        ok = (roots[j] = verify_build_pat(in, r->nroots ? r->roots[j].pattern : r->pattern,
                                          NULL)) != NULL;
    if (ok)
        graph_set_output(in->g, r->nroots ? graph_add_tuple(in->g, roots, nroots) : roots[0]);
    free(roots);
    return ok;
}

void instance_free(Instance *in)
{
    for (size_t i = 0; i < in->leaves.len; i++)
        tensor_free(&in->leaves.items[i].value);
    for (size_t i = 0; i < in->vals_cap; i++)
        value_free(&in->vals[i]);
    vec_free(&in->leaves);
    free(in->vals);
    free(in->anon);
    free(in->slot_leaf);
    free(in->slot_node);
    free(in->slot_attr);
    free(in->slot_binder);
    strbuf_free(&in->why);
    if (in->g)
        graph_free(in->g);
}
