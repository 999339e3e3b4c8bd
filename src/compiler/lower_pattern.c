/* lower_pattern.c - rule patterns to shared items and pattern trees.
 *
 * Every distinct node test and every distinct item gets one id: a key
 * string spells out everything that makes it what it is, and equal keys
 * share an id (hash-consing).  Items are made children first, so child ids
 * are smaller than their parents' (note [item sets] in automaton.c).
 * Pattern trees nest no deeper than AST_MAX_DEPTH, so lowering recurses.
 */
#include "lower_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared ids ---- */

/* The id stored under key in ids, or the fresh id next (then stored).
 * Equal keys intern to one copy, so ids is keyed by its address. */
static uint32_t shared_id(Lowerer *L, KeyMap *ids, const StrBuf *key, uint32_t next,
                          bool *fresh)
{
    const char *copy = interner_intern(L->keys, key->data, key->len);
    int64_t *id = keymap_put(ids, keymap_ptr_key(copy), next);
    *fresh = *id == next;
    return (uint32_t)*id;
}

/* ---- keys ---- */

/* note [binary keys]: a test's or an item's key is its fields written as
 * raw bytes, numbers at a fixed width and strings after their length, so
 * two keys are equal exactly when the fields are.  Keys are only compared
 * (never shown), and formatting them as text with printf cost more than
 * the rest of lowering a small rule file together. */
static void key_bytes(StrBuf *k, const void *bytes, size_t n)
{
    strbuf_room(k, n);
    memcpy(k->data + k->len, bytes, n);
    k->len += n;
    k->data[k->len] = '\0';
}

static void key_int(StrBuf *k, int64_t v)
{
    key_bytes(k, &v, sizeof v);
}

static void key_id(StrBuf *k, uint32_t v)
{
    key_bytes(k, &v, sizeof v);
}

/* A missing string keys as "" (a test or item without one). */
static void key_str(StrBuf *k, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    key_int(k, (int64_t)n);
    key_bytes(k, s ? s : "", n);
}

/* A number by its bits, each NaN as one (a NaN equals no value anyway). */
static void key_double(StrBuf *k, double f)
{
    double canonical = isnan(f) ? copysign(NAN, f) : f;
    key_bytes(k, &canonical, sizeof canonical);
}

/* ---- tests ---- */

static uint32_t add_pred(Lowerer *L, const graft_pred *p)
{
    StrBuf *k = &L->key;
    k->len = 0;
    key_int(k, p->kind);
    key_str(k, p->s);
    key_int(k, p->i);
    key_double(k, p->f);
    key_int(k, p->rank);
    for (int i = 0; i < p->rank; i++)
        key_int(k, p->dims[i]);
    key_str(k, p->op);
    key_str(k, p->key);
    key_int(k, p->dflt != NULL); /* no default differs from an empty one */
    key_str(k, p->dflt);
    bool fresh;
    uint32_t id = shared_id(L, &L->pred_ids, k, (uint32_t)L->preds.len, &fresh);
    if (fresh) {
        vec_push(&L->preds, *p);
    }
    return id;
}

/* ---- items ---- */

static uint32_t add_item(Lowerer *L, const graft_item *it)
{
    StrBuf *k = &L->key;
    k->len = 0;
    key_int(k, it->kind);
    key_str(k, it->op);
    key_int(k, it->commutative);
    key_int(k, it->variadic);
    key_int(k, it->index);
    key_int(k, it->npreds);
    for (int i = 0; i < it->npreds; i++)
        key_id(k, it->preds[i]);
    key_int(k, it->nargs);
    for (int i = 0; i < it->nargs; i++)
        key_id(k, it->args[i]);
    bool fresh;
    uint32_t id = shared_id(L, &L->item_ids, k, (uint32_t)L->items.len, &fresh);
    if (fresh) {
        vec_push(&L->items, *it);
    }
    return id;
}

/* The item it with test p added (tests kept ascending, no repeats). */
static uint32_t item_with_pred(Lowerer *L, uint32_t item, uint32_t p)
{
    graft_item it = L->items.items[item];
    uint32_t *ps = arena_array(L->arena, (size_t)it.npreds + 1, sizeof *ps);
    int n = 0;
    bool placed = false;
    for (int i = 0; i < it.npreds; i++) {
        if (!placed && p <= it.preds[i]) {
            if (p != it.preds[i])
                ps[n++] = p;
            placed = true;
        }
        ps[n++] = it.preds[i];
    }
    if (!placed)
        ps[n++] = p;
    it.preds = ps;
    it.npreds = n;
    return add_item(L, &it);
}

/* ---- pattern nodes ---- */

static void set_range(graft_pat *p, const AstNode *ast)
{
    p->line = ast->range.first_line;
    p->col = ast->range.first_column;
    p->last_line = ast->range.last_line;
    p->last_col = ast->range.last_column;
}

static graft_pat *new_pat(Lowerer *L, graft_pat_kind kind, const AstNode *ast)
{
    graft_pat *p = arena_alloc(L->arena, sizeof *p);
    p->kind = kind;
    p->slot = -1;
    set_range(p, ast);
    return p;
}

static uint32_t *kid_items(Lowerer *L, graft_pat *const *kids, int n)
{
    uint32_t *ids = arena_array(L->arena, (size_t)n + 1, sizeof *ids);
    for (int i = 0; i < n; i++)
        ids[i] = kids[i]->item;
    return ids;
}

static graft_pat *leaf(Lowerer *L, const AstNode *ast, int slot)
{
    graft_pat *p = new_pat(L, GRAFT_PAT_ANY, ast);
    graft_item it = {.kind = GRAFT_PITEM_ANY};
    p->item = add_item(L, &it);
    p->slot = slot;
    return p;
}

static graft_pat *number_leaf(Lowerer *L, const AstNode *ast)
{
    graft_pat *p = leaf(L, ast, -1);
    graft_pred pr = {.kind = GRAFT_PRED_VALUE, .f = ast->u.num.value};
    p->item = item_with_pred(L, p->item, add_pred(L, &pr));
    p->embed = true;
    return p;
}

void lower_error(Lowerer *L, const AstNode *at, const char *what)
{
    diag_error(L->d, at->src, at->range, "%s is not supported by the matcher", what);
    L->errors++;
}

/* Lowers the operands of a call-like node into kids. */
static bool lower_kids(Lowerer *L, const AstList *args, graft_pat *p)
{
    p->nkids = args->count;
    graft_pat **kids = arena_array(L->arena, (size_t)args->count + 1, sizeof *kids);
    for (int i = 0; i < args->count; i++)
        if (!(kids[i] = (graft_pat *)lower_pattern(L, args->items[i])))
            return false;
    p->kids = (const graft_pat *const *)kids;
    return true;
}

/* An attribute test on op (NULL: on a called function): the wanted value's
 * key, and the default's key from the registry. */
static uint32_t attr_pred(Lowerer *L, const OpInfo *op, const char *opname,
                          const AstNode *attr)
{
    graft_pred pr = {.kind = GRAFT_PRED_ATTR, .s = lower_name(L, attr->u.attr.name)};
    pr.op = opname ? lower_name(L, opname) : NULL;
    L->key.len = 0;
    lower_literal_key(L, attr->u.attr.value, &L->key);
    pr.key = lower_name(L, L->key.data);
    const OpAttrInfo *ai = op ? opinfo_find_attr(op, attr->u.attr.name) : NULL;
    if (ai && ai->dflt) {
        L->key.len = 0;
        lower_literal_key(L, ai->dflt, &L->key);
        pr.dflt = lower_name(L, L->key.data);
    }
    return add_pred(L, &pr);
}

/* Attributes of a call pattern: literals become tests on the item,
 * variables attribute bindings on the pattern node, _ nothing. */
static void lower_attrs(Lowerer *L, const OpInfo *op, const char *opname,
                        const AstList *attrs, graft_pat *p, graft_item *it)
{
    uint32_t *ps = arena_array(L->arena, (size_t)attrs->count + 1, sizeof *ps);
    graft_attr_bind *bs = arena_array(L->arena, (size_t)attrs->count + 1, sizeof *bs);
    int np = 0, nb = 0;
    for (int i = 0; i < attrs->count; i++) {
        const AstNode *a = attrs->items[i], *v = a->u.attr.value;
        if (v->kind == AST_VAR) {
            const OpAttrInfo *ai = op ? opinfo_find_attr(op, a->u.attr.name) : NULL;
            bs[nb++] = (graft_attr_bind){lower_name(L, a->u.attr.name), v->u.var.slot,
                ai && ai->dflt ? lower_literal_attr(L, ai->dflt) : NULL};
        } else if (v->kind != AST_WILDCARD)
            ps[np++] = attr_pred(L, op, opname, a);
    }
    /* tests ascending, without repeats */
    sort_u32(ps, (size_t)np, NULL, NULL);
    int w = 0;
    for (int i = 0; i < np; i++)
        if (w == 0 || ps[w - 1] != ps[i])
            ps[w++] = ps[i];
    it->preds = ps;
    it->npreds = w;
    p->binds = bs;
    p->nbinds = nb;
}

/* One op call pattern: op(args, attrs).  args, when not NULL, holds the
 * operands already lowered: an op class shares one lowering of its
 * operands among all its ops, so nested classes cost linear, not
 * exponential, time (<elementwise>(<elementwise>(...)) twelve deep ran out
 * of memory; found by tests/hostile.sh). */
static graft_pat *op_call_over(Lowerer *L, const AstNode *ast, const OpInfo *op,
                             const char *name, const graft_pat *args)
{
    graft_pat *p = new_pat(L, GRAFT_PAT_OP, ast);
    if (args) {
        p->nkids = args->nkids;
        p->kids = args->kids;
    } else if (!lower_kids(L, &ast->u.call.args, p)) {
        return NULL;
    }
    graft_item it = {.kind = GRAFT_PITEM_OP, .op = lower_name(L, name)};
    it.commutative = op && opinfo_has_trait(op, TRAIT_COMMUTATIVE) && p->nkids == 2;
    it.variadic = ast->u.call.ellipsis;
    it.nargs = p->nkids;
    it.args = kid_items(L, (graft_pat *const *)p->kids, p->nkids);
    lower_attrs(L, op, name, &ast->u.call.attrs, p, &it);
    p->item = add_item(L, &it);
    return p;
}

static graft_pat *op_call(Lowerer *L, const AstNode *ast, const OpInfo *op, const char *name)
{
    return op_call_over(L, ast, op, name, NULL);
}

static graft_pat *alt_of(Lowerer *L, const AstNode *ast, graft_pat **kids, int n)
{
    graft_pat *p = new_pat(L, GRAFT_PAT_ALT, ast);
    p->nkids = n;
    p->kids = (const graft_pat *const *)kids;
    graft_item it = {.kind = GRAFT_PITEM_ALT, .nargs = n, .args = kid_items(L, kids, n)};
    p->item = add_item(L, &it);
    return p;
}

/* op?(p): the op applied to p, or p itself (tried in that order). */
static graft_pat *optional(Lowerer *L, const AstNode *ast)
{
    graft_pat **kids = arena_array(L->arena, 2, sizeof *kids);
    kids[0] = op_call(L, ast, ast->u.call.op, ast->u.call.name);
    if (!kids[0])
        return NULL;
    kids[1] = (graft_pat *)kids[0]->kids[0];
    return alt_of(L, ast, kids, 2);
}

/* op*(p): p beneath any number of the op. */
static graft_pat *repeat(Lowerer *L, const AstNode *ast)
{
    graft_pat *p = new_pat(L, GRAFT_PAT_STAR, ast);
    if (!lower_kids(L, &ast->u.call.args, p))
        return NULL;
    if (p->nkids != 1 || ast->u.call.attrs.count) {
        lower_error(L, ast, "a repeated op with attributes or several operands");
        return NULL;
    }
    graft_item it = {.kind = GRAFT_PITEM_STAR, .op = lower_name(L, ast->u.call.name), .nargs = 1};
    it.args = kid_items(L, (graft_pat *const *)p->kids, 1);
    p->item = add_item(L, &it);
    return p;
}

/* <trait>(args, attrs): one alternative per registry op with the traits
 * that takes that many operands (or more, with "...") and declares the
 * attributes, in declaration order; the checker made sure there is one. */
static graft_pat *op_class(Lowerer *L, const AstNode *ast)
{
    const Registry *reg = L->rf->registry;
    const OpInfo **ops = xmalloc(((size_t)registry_count(reg) + 1) * sizeof *ops);
    int n = registry_class_ops(reg, ast->u.call.traits, ops), k = 0;
    graft_pat **kids = arena_array(L->arena, (size_t)n + 1, sizeof *kids);
    graft_pat *args = new_pat(L, GRAFT_PAT_OP, ast);
    if (!lower_kids(L, &ast->u.call.args, args)) {
        free(ops);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        if (!opinfo_accepts_pattern(ops[i], ast->u.call.args.count, ast->u.call.ellipsis,
                                    &ast->u.call.attrs))
            continue;
        if (!(kids[k++] = op_call_over(L, ast, ops[i], ops[i]->name, args))) {
            free(ops);
            return NULL;
        }
    }
    free(ops);
    if (k == 0) {
        lower_error(L, ast, "an op class without ops of this arity");
        return NULL;
    }
    return alt_of(L, ast, kids, k);
}

static graft_pat *fn_call(Lowerer *L, const AstNode *ast)
{
    graft_pat *p = new_pat(L, GRAFT_PAT_FNCALL, ast);
    if (!lower_kids(L, &ast->u.call.args, p))
        return NULL;
    graft_item it = {
        .kind = GRAFT_PITEM_FNCALL, .variadic = ast->u.call.ellipsis, .nargs = p->nkids};
    it.args = kid_items(L, (graft_pat *const *)p->kids, p->nkids);
    lower_attrs(L, NULL, NULL, &ast->u.call.attrs, p, &it);
    p->item = add_item(L, &it);
    return p;
}

/* _(args): a call of any callee (TVM's CallPattern with a wildcard op);
 * f(args) binds the callee to f. */
static graft_pat *any_call(Lowerer *L, const AstNode *ast)
{
    graft_pat *p = new_pat(L, GRAFT_PAT_CALL, ast);
    if (strcmp(ast->u.call.name, "_") != 0)
        p->callee = ast->u.call.slot + 1; /* note [callee variables] in pattern.h */
    if (!lower_kids(L, &ast->u.call.args, p))
        return NULL;
    graft_item it = {.kind = GRAFT_PITEM_CALL, .variadic = ast->u.call.ellipsis, .nargs = p->nkids};
    it.args = kid_items(L, (graft_pat *const *)p->kids, p->nkids);
    p->item = add_item(L, &it);
    return p;
}

/* (fn (p, q) { body })(x, w): kids are the function pattern, then the
 * operands; the item is any call of the operands (note [callee patterns]
 * in check_expand.c), the matcher checks the callee. */
static graft_pat *fn_callee(Lowerer *L, const AstNode *ast)
{
    graft_pat *p = new_pat(L, GRAFT_PAT_FNCALLEE, ast);
    const AstList *args = &ast->u.call.args;
    p->nkids = args->count + 1;
    graft_pat **kids = arena_array(L->arena, (size_t)p->nkids + 1, sizeof *kids);
    if (!(kids[0] = (graft_pat *)lower_pattern(L, ast->u.call.body)))
        return NULL;
    for (int i = 0; i < args->count; i++)
        if (!(kids[i + 1] = (graft_pat *)lower_pattern(L, args->items[i])))
            return NULL;
    p->kids = (const graft_pat *const *)kids;
    graft_item it = {.kind = GRAFT_PITEM_CALL, .variadic = ast->u.call.ellipsis,
                     .nargs = args->count};
    it.args = kid_items(L, kids + 1, args->count);
    p->item = add_item(L, &it);
    return p;
}

/* fn (params, attrs) { body } (kids: body first, then the parameters,
 * so that "..." leaves further parameters), if and let (note [pattern
 * operands] in pattern.h). */
static graft_pat *scope(Lowerer *L, const AstNode *ast)
{
    static const graft_pat_kind kinds[] = {GRAFT_PAT_FN, GRAFT_PAT_IF, GRAFT_PAT_LET};
    static const graft_item_kind items[] = {GRAFT_PITEM_FN, GRAFT_PITEM_IF, GRAFT_PITEM_LET};
    int k = ast->kind == AST_FNLIT ? 0 : ast->kind == AST_IF ? 1 : 2;
    graft_pat *p = new_pat(L, kinds[k], ast);
    const AstList *args = &ast->u.call.args;
    bool fn = ast->kind == AST_FNLIT;
    p->nkids = args->count + fn;
    graft_pat **kids = arena_array(L->arena, (size_t)p->nkids + 1, sizeof *kids);
    if (fn && !(kids[0] = (graft_pat *)lower_pattern(L, ast->u.call.body)))
        return NULL;
    for (int i = 0; i < args->count; i++)
        if (!(kids[i + fn] = (graft_pat *)lower_pattern(L, args->items[i])))
            return NULL;
    p->kids = (const graft_pat *const *)kids;
    graft_item it = {.kind = items[k], .variadic = ast->u.call.ellipsis, .nargs = p->nkids};
    it.args = kid_items(L, kids, p->nkids);
    if (fn)
        lower_attrs(L, NULL, NULL, &ast->u.call.attrs, p, &it);
    p->item = add_item(L, &it);
    return p;
}

/* op add: the operator as a value. */
static graft_pat *op_value(Lowerer *L, const AstNode *ast)
{
    graft_pat *p = leaf(L, ast, -1);
    graft_pred pr = {.kind = GRAFT_PRED_OP_VALUE, .s = lower_name(L, ast->u.call.name)};
    p->item = item_with_pred(L, p->item, add_pred(L, &pr));
    return p;
}

static graft_pat *tuple(Lowerer *L, const AstNode *ast)
{
    graft_pat *p = new_pat(L, GRAFT_PAT_TUPLE, ast);
    if (!lower_kids(L, &ast->u.list.items, p))
        return NULL;
    if (ast->u.list.rest) /* the sequence variable holds the tuple */
        p->slot = ast->u.list.rest->u.var.slot;
    graft_item it = {
        .kind = GRAFT_PITEM_TUPLE, .variadic = ast->u.list.ellipsis, .nargs = p->nkids};
    it.args = kid_items(L, (graft_pat *const *)p->kids, p->nkids);
    p->item = add_item(L, &it);
    return p;
}

static graft_pat *getitem(Lowerer *L, const AstNode *ast)
{
    graft_pat *p = new_pat(L, GRAFT_PAT_GETITEM, ast);
    graft_pat **kids = arena_array(L->arena, 1, sizeof *kids);
    if (!(kids[0] = (graft_pat *)lower_pattern(L, ast->u.item.base)))
        return NULL;
    p->nkids = 1;
    p->kids = (const graft_pat *const *)kids;
    graft_item it = {.kind = GRAFT_PITEM_GETITEM, .index = ast->u.item.index, .nargs = 1};
    it.args = kid_items(L, kids, 1);
    p->item = add_item(L, &it);
    if (ast->u.item.var) { /* p[i]: the index bound by name NULL (note [index variables]) */
        graft_attr_bind *b = arena_array(L->arena, 1, sizeof *b);
        *b = (graft_attr_bind){NULL, ast->u.item.var->u.var.slot, NULL};
        p->binds = b;
        p->nbinds = 1;
    }
    return p;
}

static graft_pat *alternative(Lowerer *L, const AstNode *ast)
{
    graft_pat **kids = arena_array(L->arena, 2, sizeof *kids);
    if (!(kids[0] = (graft_pat *)lower_pattern(L, ast->u.alt.left)) ||
        !(kids[1] = (graft_pat *)lower_pattern(L, ast->u.alt.right)))
        return NULL;
    return alt_of(L, ast, kids, 2);
}

/* The test a constraint after ':' stands for. */
static graft_pred constraint_pred(Lowerer *L, const AstNode *ast)
{
    graft_pred pr = {0};
    const char *dt = ast->u.constrain.dtype ? lower_name(L, ast->u.constrain.dtype) : NULL;
    switch (ast->u.constrain.kind) {
    case CONSTRAINT_CONST: pr.kind = GRAFT_PRED_IS_CONST; break;
    case CONSTRAINT_VAR:
        pr.kind = ast->u.constrain.name ? GRAFT_PRED_VAR_NAME : GRAFT_PRED_IS_VAR;
        pr.s = ast->u.constrain.name ? lower_name(L, ast->u.constrain.name) : NULL;
        break;
    case CONSTRAINT_DTYPE: pr.kind = GRAFT_PRED_DTYPE; pr.s = dt; break;
    case CONSTRAINT_RANK: pr.kind = GRAFT_PRED_RANK; pr.i = ast->u.constrain.rank; break;
    case CONSTRAINT_TRAIT: break; /* expanded away with its callee */
    case CONSTRAINT_TENSOR:
        pr.kind = GRAFT_PRED_SHAPE;
        pr.s = dt;
        pr.rank = ast->u.constrain.rank;
        pr.dims = arena_dup(L->arena, ast->u.constrain.dims,
                            ((size_t)pr.rank + 1) * sizeof *pr.dims);
        break;
    }
    return pr;
}

static graft_pat *constrain(Lowerer *L, const AstNode *ast)
{
    graft_pat *p = (graft_pat *)lower_pattern(L, ast->u.constrain.operand);
    if (!p)
        return NULL;
    graft_pred pr = constraint_pred(L, ast);
    p->item = item_with_pred(L, p->item, add_pred(L, &pr));
    set_range(p, ast);
    if (pr.kind == GRAFT_PRED_IS_CONST && p->kind == GRAFT_PAT_ANY)
        p->embed = true;
    return p;
}

/* dominates(parent, path, child): three items (pattern.h); the walk
 * between child and parent is checked by the matcher. */
static graft_pat *dominates(Lowerer *L, const AstNode *ast)
{
    graft_pat **kids = arena_array(L->arena, 3, sizeof *kids);
    if (!(kids[0] = (graft_pat *)lower_pattern(L, ast->u.dom.parent)) ||
        !(kids[1] = (graft_pat *)lower_pattern(L, ast->u.dom.path)) ||
        !(kids[2] = (graft_pat *)lower_pattern(L, ast->u.dom.child)))
        return NULL;
    uint32_t *pp = kid_items(L, kids, 2);
    graft_item dp = {.kind = GRAFT_PITEM_DOMPATH, .nargs = 2, .args = pp};
    uint32_t dpi = add_item(L, &dp);
    uint32_t *dra = arena_array(L->arena, 3, sizeof *dra);
    dra[0] = pp[0], dra[1] = pp[1], dra[2] = dpi;
    graft_item dr = {.kind = GRAFT_PITEM_DOMREACH, .nargs = 3, .args = dra};
    uint32_t *da = arena_array(L->arena, 3, sizeof *da);
    da[0] = kids[2]->item, da[1] = dpi, da[2] = add_item(L, &dr);
    graft_item dom = {.kind = GRAFT_PITEM_DOM, .nargs = 3, .args = da};
    graft_pat *p = new_pat(L, GRAFT_PAT_DOM, ast);
    p->nkids = 3;
    p->kids = (const graft_pat *const *)kids;
    p->item = add_item(L, &dom);
    return p;
}

/* c@p binds c to what p matches; when p binds a variable already (c@x),
 * a one-choice alternative carries the second slot. */
static graft_pat *bind_name(Lowerer *L, const AstNode *ast)
{
    graft_pat *p = (graft_pat *)lower_pattern(L, ast->u.bind.operand);
    if (!p)
        return NULL;
    if (p->slot >= 0) {
        graft_pat **kids = arena_array(L->arena, 1, sizeof *kids);
        kids[0] = p;
        p = alt_of(L, ast, kids, 1);
    }
    p->slot = ast->u.bind.slot;
    return p;
}

const graft_pat *lower_pattern(Lowerer *L, const AstNode *p)
{
    switch (p->kind) {
    case AST_WILDCARD: return leaf(L, p, -1);
    case AST_VAR: return leaf(L, p, p->u.var.slot);
    case AST_NUMBER: return number_leaf(L, p);
    case AST_CALL: return op_call(L, p, p->u.call.op, p->u.call.name);
    case AST_OPTIONAL: return optional(L, p);
    case AST_REPEAT: return repeat(L, p);
    case AST_CLASS: return op_class(L, p);
    case AST_FNCALL: return fn_call(L, p);
    case AST_ANYCALL: return any_call(L, p);
    case AST_OPVALUE: return op_value(L, p);
    case AST_FNLIT: case AST_IF: case AST_LETIN: return scope(L, p);
    case AST_CALLPAT: return fn_callee(L, p);
    case AST_TUPLE: return tuple(L, p);
    case AST_GETITEM: return getitem(L, p);
    case AST_ALT: return alternative(L, p);
    case AST_CONSTRAIN: return constrain(L, p);
    case AST_BIND: return bind_name(L, p);
    case AST_DOMINATES: return dominates(L, p);
    default: lower_error(L, p, ast_kind_name(p->kind)); return NULL;
    }
}

/* ---- handing the tables over ---- */

graft_item *lower_take_items(Lowerer *L, uint32_t *n)
{
    *n = (uint32_t)L->items.len;
    graft_item *v = arena_array(L->arena, L->items.len + 1, sizeof *v);
    if (L->items.len)
        memcpy(v, L->items.items, L->items.len * sizeof *v);
    return v;
}

graft_pred *lower_take_preds(Lowerer *L, uint32_t *n)
{
    *n = (uint32_t)L->preds.len;
    graft_pred *v = arena_array(L->arena, L->preds.len + 1, sizeof *v);
    if (L->preds.len)
        memcpy(v, L->preds.items, L->preds.len * sizeof *v);
    return v;
}
