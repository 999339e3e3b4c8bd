/* check_overlap.c - rule against rule: shadowing and ambiguous overlap.
 *
 * note [subsumption]: pattern A subsumes pattern B when every node B
 * matches, A matches too.  check_subsumes answers soundly: it says yes
 * only when it can show it (_ and a first-seen variable subsume anything;
 * the same op subsumes when each operand does, in either order for a
 * commutative op; A's constraints and attribute constraints must follow
 * from B's; an alternative in B must be subsumed on both sides, one in A
 * on either side).  A rule with a guard or marked once never shadows.
 *
 * note [unification]: check_may_unify says no only when no node can match
 * both patterns (different ops, different literals, contradictory
 * constraints or attribute values); it ignores repeated variables and
 * guards, so it over-approximates, which suits a warning.
 *
 * Rules are compared pairwise within buckets keyed by the root op (rules
 * whose root is a variable, an alternative, a class... go in every
 * bucket), with a budget of comparisons so a huge rule file cannot make
 * the checker quadratic without bound.
 */
#include "check_impl.h"

#include <stdlib.h>
#include <string.h>

/* Subsumption state: A's variables mapped to the B subtrees they meet. */
typedef struct Sub {
    const AstNode **map; /* by A slot; NULL until first met */
    int nmap;            /* A's variable count */
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
    }
    return false;
}

/* A variable of A meets b: free the first time, then b must be the same
 * B variable as before. */
static bool sub_var(Sub *s, int slot, const AstNode *b)
{
    if (slot < 0 || slot >= s->nmap)
        return false;
    if (!s->map[slot]) {
        s->map[slot] = b;
        return true;
    }
    const AstNode *was = strip(s->map[slot]), *now = strip(b);
    return was == now || (was->kind == AST_VAR && now->kind == AST_VAR &&
                          was->u.var.slot == now->u.var.slot);
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

/* A's attribute constraints (literals) must be B's too. */
static bool sub_attrs(const AstList *a, const AstList *b)
{
    for (int i = 0; i < a->count; i++) {
        const AstNode *av = a->items[i]->u.attr.value;
        if (!av || av->kind == AST_WILDCARD)
            continue;
        if (!ast_is_literal(av))
            return false; /* a binding; repeated ones would need more care */
        bool found = false;
        for (int j = 0; j < b->count && !found; j++) {
            const AstNode *bv = b->items[j]->u.attr.value;
            found = b->items[j]->u.attr.name == a->items[i]->u.attr.name && bv &&
                    ast_is_literal(bv) && ast_literal_equal(av, bv);
        }
        if (!found)
            return false;
    }
    return true;
}

static bool sub_call(Sub *s, const AstNode *a, const AstNode *b)
{
    if (b->kind != AST_CALL || b->u.call.op != a->u.call.op || !a->u.call.op ||
        !sub_attrs(&a->u.call.attrs, &b->u.call.attrs))
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

static bool sub(Sub *s, const AstNode *a, const AstNode *b)
{
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
        return b->kind == AST_GETITEM && a->u.item.index == b->u.item.index &&
               sub(s, a->u.item.base, b->u.item.base);
    case AST_NUMBER:
        return b->kind == AST_NUMBER && a->u.num.value == b->u.num.value;
    case AST_FNCALL:
        return b->kind == AST_FNCALL && sub_attrs(&a->u.call.attrs, &b->u.call.attrs) &&
               sub_args(s, &a->u.call.args, a->u.call.ellipsis, &b->u.call.args,
                        b->u.call.ellipsis);
    default:
        return false;
    }
}

bool check_subsumes(const AstRule *a, const AstRule *b)
{
    Sub s = {xcalloc((size_t)a->nvars + 1, sizeof(AstNode *)), a->nvars};
    bool r = sub(&s, a->pattern, b->pattern);
    free(s.map);
    return r;
}
