/* prove_encode.c - a rule's pattern, guard and action as Z3 terms over
 * one element of the result (note [proving a rule] in prove.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prove_impl.h"

ProveTerm prove_fail(Encoder *e, const char *fmt, ...)
{
    if (!e->outside.len) {
        va_list ap;
        va_start(ap, fmt);
        strbuf_vprintf(&e->outside, fmt, ap);
        va_end(ap);
    }
    return (ProveTerm){0};
}

/* ---- which slots are vectors and which scalars ---- */

/* Marks the slots the action uses as attribute values (epsilon=eps):
 * the rewrite only builds when they are scalar constants. */
static void mark_action_scalars(Encoder *e, const graft_expr *x, bool in_attr)
{
    if (!x)
        return;
    if (x->kind == GRAFT_EXPR_SLOT && x->slot >= 0 && in_attr)
        e->scalar[x->slot] = true;
    for (int i = 0; i < x->nkids; i++)
        mark_action_scalars(e, x->kids[i], in_attr);
    for (int i = 0; i < x->nattrs; i++)
        if (x->attrs[i].src == GRAFT_ASRC_EXPR)
            mark_action_scalars(e, x->attrs[i].value, true);
}

/* value(k) in the guard: k is a scalar constant (value(k)[i] reads an
 * element of a tensor one). */
static void mark_guard_scalars(Encoder *e, const graft_expr *x)
{
    if (!x || (x->kind == GRAFT_EXPR_GETITEM && x->kids[0]->kind == GRAFT_EXPR_VALUE))
        return;
    if (x->kind == GRAFT_EXPR_VALUE && x->slot >= 0)
        e->scalar[x->slot] = true;
    for (int i = 0; i < x->nkids; i++)
        mark_guard_scalars(e, x->kids[i]);
}

/* The leaf slots among nn.batch_norm's vector operands (pattern or
 * action): a batch norm types only with vectors there. */
static void mark_pattern_vectors(Encoder *e, const graft_pat *p)
{
    const graft_item *item = &e->rs->items[p->item];
    bool bn = p->kind == GRAFT_PAT_OP && strcmp(item->op, "nn.batch_norm") == 0;
    for (int i = 0; i < p->nkids; i++) {
        if (bn && i > 0 && p->kids[i]->kind == GRAFT_PAT_ANY && p->kids[i]->slot >= 0)
            e->vector[p->kids[i]->slot] = true;
        mark_pattern_vectors(e, p->kids[i]);
    }
}

static void mark_action_vectors(Encoder *e, const graft_expr *x)
{
    if (!x)
        return;
    bool bn = x->kind == GRAFT_EXPR_CALL && strcmp(x->s, "nn.batch_norm") == 0;
    for (int i = 0; i < x->nkids; i++) {
        if (bn && i > 0 && x->kids[i]->kind == GRAFT_EXPR_SLOT && x->kids[i]->slot >= 0)
            e->vector[x->kids[i]->slot] = true;
        mark_action_vectors(e, x->kids[i]);
    }
}

void prove_encoder_init(Encoder *e, Z3_context z, bool ieee, const graft_rule_set *rs,
                        const graft_rule *rule, Chooser *ch)
{
    memset(e, 0, sizeof *e);
    e->z = z;
    e->ieee = ieee;
    e->sort = ieee ? Z3_mk_fpa_sort_32(z) : Z3_mk_real_sort(z);
    e->rm = ieee ? Z3_mk_fpa_rne(z) : NULL;
    e->rs = rs;
    e->rule = rule;
    e->ch = ch;
    e->axis = PROVE_ELEM;
    int nslots = rule->nslots;
    e->slot_term = xcalloc((size_t)nslots + 1, sizeof *e->slot_term);
    e->vector = xcalloc((size_t)nslots + 1, sizeof *e->vector);
    e->scalar = xcalloc((size_t)nslots + 1, sizeof *e->scalar);
    const char *names[] = {"sqrt", "exp", "log", "erf", "tanh"};
    Z3_func_decl *fns[] = {&e->fsqrt, &e->fexp, &e->flog, &e->ferf, &e->ftanh};
    for (int i = 0; i < 5; i++)
        *fns[i] = Z3_mk_func_decl(z, Z3_mk_string_symbol(z, names[i]), 1, &e->sort, e->sort);
    mark_action_scalars(e, rule->action, false);
    mark_guard_scalars(e, rule->guard);
    mark_pattern_vectors(e, rule->pattern);
    mark_action_vectors(e, rule->action);
}

void prove_encoder_free(Encoder *e)
{
    free(e->slot_term);
    free(e->vector);
    free(e->scalar);
    vec_free(&e->assume);
    vec_free(&e->oblige);
    vec_free(&e->exps);
    strbuf_free(&e->outside);
}

/* ---- leaves ---- */

static const char *leaf_name(const Encoder *e, int id, char *buf, size_t size)
{
    if (id < e->rule->nslots)
        return e->rule->slot_names[id];
    snprintf(buf, size, "_%d", id - e->rule->nslots + 1);
    return buf;
}

/* The current permutation as text, "" when it is the identity (a read at
 * the result's own position). */
static void perm_text(const Encoder *e, char *out)
{
    bool identity = true;
    for (int i = 0; i < e->perm_rank; i++)
        identity = identity && e->perm[i] == i;
    int n = 0;
    out[0] = '\0';
    for (int i = 0; !identity && i < e->perm_rank; i++)
        n += snprintf(out + n, (size_t)(PROVE_PERM_TEXT - n), "%s%d", i ? "," : "(",
                      e->perm[i]);
    if (!identity)
        snprintf(out + n, (size_t)(PROVE_PERM_TEXT - n), ")");
}

/* The shape atom of leaf id read at permutation perm, as a set bit. */
static uint64_t shape_atom(Encoder *e, int id, const char *perm)
{
    for (int i = 0; i < e->natoms; i++)
        if (e->atom_id[i] == id && strcmp(e->atom_perm[i], perm) == 0)
            return (uint64_t)1 << i;
    if (e->natoms == PROVE_MAX_LEAVES)
        return 0;
    e->atom_id[e->natoms] = id;
    snprintf(e->atom_perm[e->natoms], PROVE_PERM_TEXT, "%s", perm);
    return (uint64_t)1 << e->natoms++;
}

/* The variable of leaf id read along axis (PROVE_ELEM: by broadcasting;
 * a vector's broadcasting read is its read along the last axis), at the
 * current permutation.  One key, one element: a leaf read at the same
 * position of the result is the same number, whatever its rank. */
static ProveTerm leaf_var(Encoder *e, int id, int axis, bool is_const)
{
    bool vector = id < e->rule->nslots && e->vector[id];
    bool scalar = id < e->rule->nslots && e->scalar[id];
    char perm[PROVE_PERM_TEXT];
    perm_text(e, perm);
    if (vector && axis == PROVE_ELEM)
        axis = -1;
    if (scalar)
        axis = PROVE_ELEM, perm[0] = '\0';
    if (perm[0] && axis != PROVE_ELEM)
        return prove_fail(e, "a channel vector under a transpose leaves the fragment");
    if (e->natoms == PROVE_MAX_LEAVES || e->nvars == PROVE_MAX_VARS || id >= PROVE_MAX_LEAVES)
        return prove_fail(e, "the rule has too many leaves for the prover");
    uint64_t shape = vector || scalar ? 0 : shape_atom(e, id, perm);
    for (int i = 0; i < e->nvars; i++)
        if (e->vars[i].id == id && e->vars[i].axis == axis && strcmp(e->vars[i].perm, perm) == 0)
            return (ProveTerm){.v = e->vars[i].var, .shape = shape};
    char buf[64], name[128];
    const char *base = leaf_name(e, id, buf, sizeof buf);
    if (axis == PROVE_ELEM || axis == -1)
        snprintf(name, sizeof name, "%s%s%s", base, perm[0] ? "@" : "", perm);
    else
        snprintf(name, sizeof name, "%s@axis%d", base, axis);
    Z3_ast v = Z3_mk_const(e->z, Z3_mk_string_symbol(e->z, name), e->sort);
    ProveVar *pv = &e->vars[e->nvars++];
    *pv = (ProveVar){.id = id, .axis = axis, .var = v, .is_const = is_const};
    snprintf(pv->perm, sizeof pv->perm, "%s", perm);
    return (ProveTerm){.v = v, .shape = shape};
}

/* Enters transpose(kid, axes): the kid's position is the transpose's
 * with its axes permuted, kid[q] with q[axes[i]] = p[i].  axes is the
 * list (n of them), or NULL for None (reversed), which needs a rank from
 * an outer transpose.  Returns false (with the reason) when the rank is
 * unknown or disagrees. */
static bool enter_transpose(Encoder *e, const int *axes, int n)
{
    int rank = n >= 0 ? n : e->perm_rank;
    if (rank == 0 || rank > EVAL_MAX_RANK || (e->perm_rank && e->perm_rank != rank)) {
        prove_fail(e, "transpose of unknown rank leaves the fragment");
        return false;
    }
    int outer[EVAL_MAX_RANK];
    for (int i = 0; i < rank; i++)
        outer[i] = e->perm_rank ? e->perm[i] : i;
    bool seen[EVAL_MAX_RANK] = {false};
    for (int i = 0; i < rank; i++) {
        int a = axes ? axes[i] : rank - 1 - i;
        a = a < 0 ? a + rank : a;
        if (a < 0 || a >= rank || seen[a]) {
            prove_fail(e, "transpose's axes are no permutation");
            return false;
        }
        seen[a] = true;
        e->perm[a] = outer[i];
    }
    e->perm_rank = rank;
    return true;
}

/* The axes of a transpose written as canonical text ("[1, 0]", "None"):
 * their count, -1 for None, -2 when they are not literal. */
static int axes_from_text(const char *text, int *axes)
{
    if (strcmp(text, "None") == 0)
        return -1;
    int n = 0;
    const char *s = text;
    if (*s++ != '[')
        return -2;
    while (*s && *s != ']' && n < EVAL_MAX_RANK) {
        char *end;
        axes[n++] = (int)strtol(s, &end, 10);
        if (end == s)
            return -2;
        s = end;
        while (*s == ',' || *s == ' ')
            s++;
    }
    return *s == ']' ? n : -2;
}

static int anon_id(Encoder *e, const graft_pat *p)
{
    for (int k = 0; k < e->nanon; k++)
        if (e->anon[k] == p)
            return e->rule->nslots + k;
    if (e->nanon == PROVE_MAX_LEAVES)
        return PROVE_MAX_LEAVES;
    e->anon[e->nanon++] = p;
    return e->rule->nslots + e->nanon - 1;
}

static ProveTerm encode_leaf(Encoder *e, const graft_pat *p)
{
    const graft_item *item = &e->rs->items[p->item];
    bool is_const = false;
    for (int i = 0; i < item->npreds; i++) {
        const graft_pred *pp = &e->rs->preds[item->preds[i]];
        if (pp->kind == GRAFT_PRED_VALUE)
            return (ProveTerm){.v = prove_num(e, pp->f), .literal = true, .lit = pp->f};
        if (pp->kind == GRAFT_PRED_OP_VALUE)
            return prove_fail(e, "an op as a value leaves the fragment");
        is_const = is_const || pp->kind == GRAFT_PRED_IS_CONST;
    }
    int id = p->slot >= 0 ? p->slot : anon_id(e, p);
    return leaf_var(e, id, e->axis, is_const);
}

/* ---- what patterns and actions share ---- */

/* Encodes kid i of a pattern node or an action expression (parent), so
 * that the pattern and the action go through one call encoding and one
 * transpose encoding. */
typedef ProveTerm (*EncodeKid)(Encoder *e, const void *parent, int i);

/* Kid 0 of parent read at positions permuted by the n axes (n -1: None,
 * reversed); the permutation in force is restored after. */
static ProveTerm encode_transposed(Encoder *e, const int *axes, int n, EncodeKid kid,
                                   const void *parent)
{
    int saved[EVAL_MAX_RANK], saved_rank = e->perm_rank;
    memcpy(saved, e->perm, sizeof saved);
    ProveTerm t = enter_transpose(e, n >= 0 ? axes : NULL, n) ? kid(e, parent, 0)
                                                             : (ProveTerm){0};
    memcpy(e->perm, saved, sizeof saved);
    e->perm_rank = saved_rank;
    return t;
}

/* op applied to the nkids kids of parent: the operands after the first
 * read along the op's channel axis (a batch norm's vectors), the first
 * along the axis in force. */
static ProveTerm encode_call(Encoder *e, const char *op, int nkids, EncodeKid kid,
                             const void *parent, const ProveAttrs *attrs)
{
    ProveTerm args[8];
    if (nkids > 8)
        return prove_fail(e, "%s leaves the fragment", op);
    int axis = prove_channel_axis(e, op, attrs), saved = e->axis;
    for (int i = 0; i < nkids; i++) {
        e->axis = i > 0 && axis != PROVE_ELEM ? axis : saved;
        args[i] = kid(e, parent, i);
        e->axis = saved;
        if (!args[i].v)
            return args[i];
    }
    return prove_op(e, op, args, nkids, attrs);
}

/* Element index of the tuple t: only a batch norm's (or dropout's)
 * field 0, the normalized data, is in the fragment. */
static ProveTerm first_field(Encoder *e, ProveTerm t, int64_t index)
{
    if (t.v && (!t.tuple || index != 0))
        return prove_fail(e, "an element access other than a batch norm's [0] "
                             "leaves the fragment");
    t.tuple = false;
    return t;
}

/* t as a whole side of the rule, which must be one tensor. */
static ProveTerm one_tensor(Encoder *e, ProveTerm t)
{
    if (t.v && t.tuple)
        return prove_fail(e, "a tuple result leaves the fragment");
    return t;
}

/* ---- the pattern ---- */

typedef struct PatAttrs {
    const graft_pat *p;
    const char *op;
} PatAttrs;

/* An attribute of a pattern op: a test's value, or a bound variable. */
static bool pattern_attr(Encoder *e, const void *src, const char *name, ProveTerm *out)
{
    const PatAttrs *pa = src;
    const graft_item *item = &e->rs->items[pa->p->item];
    for (int i = 0; i < item->npreds; i++) {
        const graft_pred *pp = &e->rs->preds[item->preds[i]];
        if (pp->kind != GRAFT_PRED_ATTR || !pp->op || strcmp(pp->op, pa->op) != 0 ||
            strcmp(pp->s, name) != 0)
            continue;
        char *end;
        double f = strtod(pp->key, &end);
        if (end == pp->key || *end) {
            *out = prove_fail(e, "%s's %s=%s leaves the fragment", pa->op, name, pp->key);
            return true;
        }
        *out = (ProveTerm){.v = prove_num(e, f), .literal = true, .lit = f};
        return true;
    }
    for (int i = 0; i < pa->p->nbinds; i++)
        if (pa->p->binds[i].name && strcmp(pa->p->binds[i].name, name) == 0) {
            int slot = pa->p->binds[i].slot;
            e->scalar[slot] = true;
            if (!e->slot_term[slot].v)
                e->slot_term[slot] = leaf_var(e, slot, PROVE_ELEM, true);
            *out = e->slot_term[slot];
            return true;
        }
    return false;
}

static ProveTerm encode_pat(Encoder *e, const graft_pat *p);

static ProveTerm pat_kid(Encoder *e, const void *parent, int i)
{
    return encode_pat(e, ((const graft_pat *)parent)->kids[i]);
}

/* transpose(kid, axes=[...]) in a pattern: kid read at permuted positions. */
static ProveTerm encode_pat_transpose(Encoder *e, const graft_pat *p)
{
    const graft_item *item = &e->rs->items[p->item];
    int axes[EVAL_MAX_RANK], n = -2;
    for (int i = 0; i < item->npreds; i++) {
        const graft_pred *pp = &e->rs->preds[item->preds[i]];
        if (pp->kind == GRAFT_PRED_ATTR && pp->op && strcmp(pp->s, "axes") == 0)
            n = axes_from_text(pp->key, axes);
    }
    if (n == -2)
        return prove_fail(e, "transpose without literal axes leaves the fragment");
    return encode_transposed(e, axes, n, pat_kid, p);
}

static ProveTerm encode_pat_op(Encoder *e, const graft_pat *p)
{
    const char *op = e->rs->items[p->item].op;
    if (strcmp(op, "transpose") == 0 && p->nkids == 1)
        return encode_pat_transpose(e, p);
    if (e->rs->items[p->item].variadic)
        return prove_fail(e, "%s(...) leaves the fragment", op);
    PatAttrs pa = {p, op};
    ProveAttrs attrs = {pattern_attr, &pa};
    return encode_call(e, op, p->nkids, pat_kid, p, &attrs);
}

/* A variable bound again reads the same node: a leaf along the axis of
 * the read, a computed value only by broadcasting. */
static ProveTerm bound_again(Encoder *e, int slot)
{
    for (int i = 0; i < e->nvars; i++)
        if (e->vars[i].id == slot)
            return leaf_var(e, slot, e->axis, e->vars[i].is_const);
    if ((e->axis == PROVE_ELEM || e->axis == -1) && e->perm_rank == 0)
        return e->slot_term[slot];
    return prove_fail(e, "a computed value read along a channel or under a transpose "
                         "leaves the fragment");
}

static ProveTerm encode_pat(Encoder *e, const graft_pat *p)
{
    if (p->slot >= 0 && e->slot_term[p->slot].v)
        return bound_again(e, p->slot);
    ProveTerm t;
    switch (p->kind) {
    case GRAFT_PAT_ANY:
        t = encode_leaf(e, p);
        break;
    case GRAFT_PAT_OP:
        t = encode_pat_op(e, p);
        break;
    case GRAFT_PAT_ALT: {
        int k = chooser_pick(e->ch, p->nkids);
        if (e->nalts < VERIFY_MAX_CHOICES) {
            e->alt_pat[e->nalts] = p;
            e->alt_pick[e->nalts++] = k;
        }
        t = encode_pat(e, p->kids[k]);
        break;
    }
    case GRAFT_PAT_GETITEM:
        t = first_field(e, encode_pat(e, p->kids[0]), e->rs->items[p->item].index);
        break;
    case GRAFT_PAT_STAR:
        return prove_fail(e, "a repeated %s*(...) leaves the fragment",
                          e->rs->items[p->item].op);
    default:
        return prove_fail(e, "a pattern with tuples, functions or dominators leaves the "
                             "fragment");
    }
    bool broadcast = (e->axis == PROVE_ELEM || e->axis == -1) && e->perm_rank == 0;
    if (t.v && p->slot >= 0 && (broadcast || p->kind == GRAFT_PAT_ANY))
        e->slot_term[p->slot] = t;
    return t;
}

ProveTerm prove_encode_pattern(Encoder *e)
{
    e->action_side = false;
    return one_tensor(e, encode_pat(e, e->rule->pattern));
}

/* ---- the guard: comparisons of constant values ---- */

static Z3_ast guard_operand(Encoder *e, const graft_expr *x)
{
    if (x->kind == GRAFT_EXPR_NUM)
        return prove_num(e, x->f);
    if (x->kind == GRAFT_EXPR_VALUE && x->slot >= 0 && e->slot_term[x->slot].v &&
        !e->slot_term[x->slot].is_bool)
        return e->slot_term[x->slot].v;
    return NULL;
}

/* The guard as a condition, or NULL when it speaks of what the encoding
 * does not see (shapes, dtypes, users): a conjunction keeps the parts it
 * can say, since a weaker assumption only makes a proof stronger. */
static Z3_ast encode_guard(Encoder *e, const graft_expr *x, bool top)
{
    if (x->kind == GRAFT_EXPR_CMP && x->nkids == 2) {
        Z3_ast a = guard_operand(e, x->kids[0]), b = guard_operand(e, x->kids[1]);
        return a && b ? prove_cmp(e, x->cmp, a, b) : NULL;
    }
    if (x->kind == GRAFT_EXPR_NOT) {
        Z3_ast a = encode_guard(e, x->kids[0], false);
        return a ? Z3_mk_not(e->z, a) : NULL;
    }
    if (x->kind != GRAFT_EXPR_AND && x->kind != GRAFT_EXPR_OR)
        return NULL;
    Z3_ast a = encode_guard(e, x->kids[0], top && x->kind == GRAFT_EXPR_AND);
    Z3_ast b = encode_guard(e, x->kids[1], top && x->kind == GRAFT_EXPR_AND);
    if (a && b)
        return x->kind == GRAFT_EXPR_AND ? Z3_mk_and(e->z, 2, (Z3_ast[]){a, b})
                                         : Z3_mk_or(e->z, 2, (Z3_ast[]){a, b});
    return top && x->kind == GRAFT_EXPR_AND ? (a ? a : b) : NULL;
}

void prove_encode_guard(Encoder *e)
{
    Z3_ast g = e->rule->guard ? encode_guard(e, e->rule->guard, true) : NULL;
    if (g)
        vec_push(&e->assume, g);
}

/* ---- the action ---- */

static ProveTerm encode_act(Encoder *e, const graft_expr *x);

static ProveTerm act_kid(Encoder *e, const void *parent, int i)
{
    return encode_act(e, ((const graft_expr *)parent)->kids[i]);
}

/* An attribute of an action call: its expression's value. */
static bool action_attr(Encoder *e, const void *src, const char *name, ProveTerm *out)
{
    const graft_expr *call = src;
    for (int i = 0; i < call->nattrs; i++) {
        const graft_act_attr *a = &call->attrs[i];
        if (a->src == GRAFT_ASRC_COPY) {
            *out = prove_fail(e, "**%s in %s leaves the fragment",
                              e->rule->slot_names[a->slot], call->s);
            return true;
        }
        if (strcmp(a->name, name) != 0)
            continue;
        int saved = e->axis;
        e->axis = PROVE_ELEM;
        *out = encode_act(e, a->value);
        e->axis = saved;
        return true;
    }
    for (int i = 0; i < call->ndecls; i++)
        if (strcmp(call->decls[i].name, name) == 0 && call->decls[i].dflt) {
            const graft_attr_value *d = call->decls[i].dflt;
            double f = d->kind == GRAFT_ATTR_FLOAT ? d->f : (double)d->i;
            if (d->kind != GRAFT_ATTR_FLOAT && d->kind != GRAFT_ATTR_INT &&
                d->kind != GRAFT_ATTR_BOOL)
                return false;
            *out = (ProveTerm){.v = prove_num(e, f), .literal = true, .lit = f};
            return true;
        }
    return false;
}

/* transpose(kid, axes=[...]) in an action (no axes: None, reversed). */
static ProveTerm encode_act_transpose(Encoder *e, const graft_expr *x)
{
    int axes[EVAL_MAX_RANK], n = -1;
    for (int i = 0; i < x->nattrs; i++) {
        const graft_act_attr *a = &x->attrs[i];
        if (a->src != GRAFT_ASRC_EXPR || strcmp(a->name, "axes") != 0)
            continue;
        n = a->value->kind == GRAFT_EXPR_LIST && a->value->nkids <= EVAL_MAX_RANK ? 0 : -2;
        for (int k = 0; n >= 0 && k < a->value->nkids; k++)
            if (a->value->kids[k]->kind == GRAFT_EXPR_NUM)
                axes[n++] = (int)a->value->kids[k]->f;
            else
                n = -2;
    }
    if (n == -2)
        return prove_fail(e, "transpose without literal axes leaves the fragment");
    return encode_transposed(e, axes, n, act_kid, x);
}

static ProveTerm encode_act_call(Encoder *e, const graft_expr *x)
{
    if (strcmp(x->s, "transpose") == 0 && x->nkids == 1)
        return encode_act_transpose(e, x);
    ProveAttrs attrs = {action_attr, x};
    return encode_call(e, x->s, x->nkids, act_kid, x, &attrs);
}

static ProveTerm encode_act(Encoder *e, const graft_expr *x)
{
    switch (x->kind) {
    case GRAFT_EXPR_NUM:
        return (ProveTerm){.v = prove_num(e, x->f), .literal = true, .lit = x->f};
    case GRAFT_EXPR_BOOL:
        return (ProveTerm){.v = prove_num(e, (double)x->i), .literal = true,
                           .lit = (double)x->i};
    case GRAFT_EXPR_SLOT:
        if (x->slot < 0 || !e->slot_term[x->slot].v || x->i == 1)
            return prove_fail(e, "the action's use of a variable leaves the fragment");
        return bound_again(e, x->slot);
    case GRAFT_EXPR_CALL:
        return encode_act_call(e, x);
    case GRAFT_EXPR_FOLD: /* a value computed now means what its expression means */
        return encode_act(e, x->kids[0]);
    case GRAFT_EXPR_GETITEM:
        return first_field(e, encode_act(e, x->kids[0]), x->i);
    default:
        return prove_fail(e, "the action's expression leaves the fragment");
    }
}

ProveTerm prove_encode_action(Encoder *e)
{
    e->action_side = true;
    return one_tensor(e, encode_act(e, e->rule->action));
}
