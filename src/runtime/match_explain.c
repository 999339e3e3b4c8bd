/* match_explain.c - why a pattern part does not match a node.
 *
 * The matcher (match.c) stops at a goal whose item is not in the node's
 * state.  The state says no, but not why; this walk finds the reason the
 * way the labeller decided it: the node's own tests first (kind, op,
 * operand count, tuple index, constraints), then the first operand whose
 * state lacks the operand's item, where it goes on.  Pattern trees are
 * small, and the walk is a loop.
 */
#include "match.h"

#include <stdlib.h>
#include <string.h>

#include "node_label.h"
#include "util.h"
#include "walk.h"

static bool in_state(const Matcher *m, const graft_node *n, uint32_t item)
{
    return matcher_node_has(m, n, item);
}

static bool why(MatchWhy *w, WhyKind kind, const graft_pat *p, graft_node *n,
                const graft_pred *pred)
{
    w->kind = kind;
    w->pat = p;
    w->node = n;
    w->pred = pred;
    return false;
}

static void passed(MatchWhy *w, const graft_pat *p, graft_node *n)
{
    if (w->depth < MATCH_WHY_PATH)
        w->path[w->depth] = (MatchPair){p, n, false};
    w->depth++;
}

/* The first of the item's tests that n fails, or NULL. */
static const graft_pred *failed_pred(const graft_rule_set *rs, const graft_item *it,
                                     const graft_node *n)
{
    for (int i = 0; i < it->npreds; i++)
        if (!pattern_pred_holds(&rs->preds[it->preds[i]], n))
            return &rs->preds[it->preds[i]];
    return NULL;
}

/* Whether n has the operand count the part wants. */
static bool arity_fits(const graft_item *it, const graft_pat *p, const graft_node *n)
{
    int want = p->nkids - (p->kind == GRAFT_PAT_FNCALLEE); /* less the callee's kid */
    return it->variadic ? pattern_noperands(n) >= want : pattern_noperands(n) == want;
}

/* The node pattern kid k of p stands for at n: operand k, or for a
 * function callee (kids[0]) the callee, then operand k - 1. */
static graft_node *kid_node(const graft_pat *p, graft_node *n, int k)
{
    if (p->kind != GRAFT_PAT_FNCALLEE)
        return pattern_operand(n, k);
    return k == 0 ? node_callee(n) : pattern_operand(n, k - 1);
}

/* The kind and shape tests of p at n alone, before its operands. */
static bool own_tests(const Matcher *m, const graft_pat *p, graft_node *n, MatchWhy *w)
{
    const graft_rule_set *rs = matcher_ruleset(m);
    const graft_item *it = &rs->items[p->item];
    switch (p->kind) {
    case GRAFT_PAT_OP:
        if (node_kind(n) != NODE_CALL || !node_op(n))
            return why(w, WHY_KIND, p, n, NULL);
        if (strcmp(node_op(n), it->op) != 0)
            return why(w, WHY_OP, p, n, NULL);
        if (!arity_fits(it, p, n))
            return why(w, WHY_ARITY, p, n, NULL);
        break;
    case GRAFT_PAT_FNCALL:
        if (node_kind(n) != NODE_CALL || node_op(n))
            return why(w, WHY_KIND, p, n, NULL);
        if (!arity_fits(it, p, n))
            return why(w, WHY_ARITY, p, n, NULL);
        break;
    case GRAFT_PAT_CALL:
    case GRAFT_PAT_FN:
    case GRAFT_PAT_IF:
    case GRAFT_PAT_LET:
        if (node_kind(n) != (p->kind == GRAFT_PAT_CALL ? NODE_CALL
                             : p->kind == GRAFT_PAT_FN ? NODE_FUNC
                             : p->kind == GRAFT_PAT_IF ? NODE_IF
                                                       : NODE_LET))
            return why(w, WHY_KIND, p, n, NULL);
        if (!arity_fits(it, p, n))
            return why(w, WHY_ARITY, p, n, NULL);
        break;
    case GRAFT_PAT_FNCALLEE:
        if (node_kind(n) != NODE_CALL || !node_callee(n) ||
            node_kind(node_callee(n)) != NODE_FUNC)
            return why(w, WHY_KIND, p, n, NULL);
        if (!arity_fits(it, p, n))
            return why(w, WHY_ARITY, p, n, NULL);
        break;
    case GRAFT_PAT_TUPLE:
        if (node_kind(n) != NODE_TUPLE)
            return why(w, WHY_KIND, p, n, NULL);
        if (!arity_fits(it, p, n))
            return why(w, WHY_ARITY, p, n, NULL);
        break;
    case GRAFT_PAT_GETITEM:
        if (node_kind(n) != NODE_GETITEM)
            return why(w, WHY_KIND, p, n, NULL);
        if (it->index >= 0 && node_index(n) != it->index)
            return why(w, WHY_INDEX, p, n, NULL);
        break;
    default:
        break;
    }
    const graft_pred *pred = failed_pred(rs, it, n);
    if (pred)
        return why(w, WHY_PRED, p, n, pred);
    return true;
}

/* The first operand of n (in pattern order) whose state lacks its part. */
static int failing_kid(const Matcher *m, const graft_pat *p, graft_node *n)
{
    int skip = p->kind == GRAFT_PAT_FNCALLEE;
    for (int k = 0; k < p->nkids && k - skip < pattern_noperands(n); k++)
        if (!in_state(m, kid_node(p, n, k), p->kids[k]->item))
            return k;
    return -1;
}

MatchWhy match_why(const Matcher *m, const graft_pat *p, graft_node *n)
{
    MatchWhy w;
    w.depth = 0;
    for (;;) {
        if (p->kind == GRAFT_PAT_ALT) {
            why(&w, WHY_ALT, p, n, NULL);
            return w;
        }
        if (p->kind == GRAFT_PAT_STAR) {
            const graft_item *it = &matcher_ruleset(m)->items[p->item];
            if (node_kind(n) == NODE_CALL && node_op(n) && strcmp(node_op(n), it->op) == 0 &&
                node_nargs(n) == 1) {
                passed(&w, p, n);
                n = node_arg(n, 0); /* the chain goes on below */
                continue;
            }
            p = p->kids[0];
            continue;
        }
        if (p->kind == GRAFT_PAT_DOM) {
            if (!in_state(m, n, p->kids[2]->item)) {
                p = p->kids[2];
                continue;
            }
            MatchWhy d = match_why_dom(m, p, n);
            d.depth = w.depth;
            memcpy(d.path, w.path, sizeof d.path);
            return d;
        }
        if (!own_tests(m, p, n, &w))
            return w;
        int k = failing_kid(m, p, n);
        if (k < 0) {
            why(&w, WHY_STATE, p, n, NULL);
            return w;
        }
        passed(&w, p, n);
        n = kid_node(p, n, k);
        p = p->kids[k];
    }
}

/* note [dominator walk] in match_ways.c, again, stopping where it fails: a
 * stack of nodes to walk through and a mark per node, no recursion. */
MatchWhy match_why_dom(const Matcher *m, const graft_pat *p, graft_node *n)
{
    MatchWhy w = {.depth = 0};
    uint32_t pi = p->kids[0]->item, qi = p->kids[1]->item;
    const graft_graph *g = matcher_graph(m);
    uint8_t *seen = xcalloc((size_t)graph_node_count(g) + 1, 1);
    WALK(graft_node *) walk = {0};
    graft_node *parent = NULL;
    why(&w, WHY_DOM, p, n, NULL);
    w.dom = 2;
    for (graft_node *x = n; x; x = walk.depth ? walk_pop(&walk) : NULL) {
        int na = node_is_opaque(x) ? 0 : node_nargs(x);
        walk_reserve(&walk, (size_t)na);
        for (int i = 0; i < na; i++) {
            graft_node *o = node_arg(x, i);
            if (seen[node_id(o)])
                continue;
            seen[node_id(o)] = 1;
            if (in_state(m, o, pi)) {
                if (parent && parent != o) {
                    why(&w, WHY_DOM, p, o, NULL);
                    w.dom = 1;
                    goto done;
                }
                parent = o;
            } else if (node_kind(o) == NODE_CONST)
                continue;
            else if (in_state(m, o, qi))
                walk_push_reserved(&walk, o);
            else { /* the caret goes under the path */
                why(&w, WHY_DOM, p->kids[1], o, NULL);
                w.dom = 0;
                goto done;
            }
        }
    }
done:
    walk_free(&walk);
    free(seen);
    return w;
}

static void put_dims(const int64_t *dims, int rank, StrBuf *out)
{
    strbuf_putc(out, '(');
    for (int i = 0; i < rank; i++) {
        if (i)
            strbuf_puts(out, ", ");
        if (dims[i] < 0)
            strbuf_putc(out, '_');
        else
            strbuf_printf(out, "%lld", (long long)dims[i]);
    }
    strbuf_putc(out, ')');
}

static void pred_wanted(const graft_pred *p, StrBuf *out)
{
    switch (p->kind) {
    case GRAFT_PRED_IS_CONST: strbuf_puts(out, "a constant"); break;
    case GRAFT_PRED_IS_VAR: strbuf_puts(out, "a model input (a variable)"); break;
    case GRAFT_PRED_VAR_NAME: strbuf_printf(out, "the variable %%%s", p->s); break;
    case GRAFT_PRED_DTYPE: strbuf_printf(out, "dtype %s", p->s); break;
    case GRAFT_PRED_RANK: strbuf_printf(out, "rank %lld", (long long)p->i); break;
    case GRAFT_PRED_SHAPE:
        strbuf_puts(out, "shape ");
        put_dims(p->dims, p->rank, out);
        if (p->s)
            strbuf_printf(out, " of %s", p->s);
        break;
    case GRAFT_PRED_VALUE: {
        strbuf_puts(out, "the scalar constant ");
        pattern_number_key(p->f, out);
        break;
    }
    case GRAFT_PRED_ATTR: strbuf_printf(out, "%s=%s", p->s, p->key); break;
    case GRAFT_PRED_OP_VALUE: strbuf_printf(out, "the op %s as a value", p->s); break;
    }
}

/* What n has where p tests something. */
static void pred_found(const graft_pred *p, const graft_node *n, StrBuf *out)
{
    const graft_type *t = node_type(n);
    const char *dt = pattern_node_dtype(n);
    switch (p->kind) {
    case GRAFT_PRED_DTYPE:
        strbuf_printf(out, "of dtype %s", dt ? dt : "unknown (no type in the model)");
        return;
    case GRAFT_PRED_RANK:
    case GRAFT_PRED_SHAPE:
        if (t && t->kind == TYPE_TENSOR)
            strbuf_printf(out, "of type %s", t->text);
        else if (pattern_node_rank(n) == 0)
            strbuf_printf(out, "a scalar of dtype %s", dt);
        else
            strbuf_puts(out, "of unknown type (none in the model)");
        return;
    case GRAFT_PRED_VALUE:
        if (node_kind(n) == NODE_CONST && node_const_is_scalar(n)) {
            strbuf_printf(out, "the constant %s", node_const_text(n));
            return;
        }
        if (node_const_number(n, &(double){0})) {
            strbuf_printf(out, "the one-element constant %s", node_const_text(n));
            return;
        }
        break;
    case GRAFT_PRED_VAR_NAME:
        if (node_kind(n) == NODE_VAR) {
            strbuf_printf(out, "the variable %%%s", node_name(n));
            return;
        }
        break;
    case GRAFT_PRED_ATTR: {
        const graft_node *holder = p->op ? n : node_callee(n);
        const graft_attr_value *v = holder ? node_find_attr(holder, p->s) : NULL;
        strbuf_printf(out, "%s=", p->s);
        if (v)
            pattern_attr_key(v, out);
        else
            strbuf_printf(out, "%s (the default)", p->dflt ? p->dflt : "unset");
        return;
    }
    default:
        break;
    }
    node_describe(n, out);
}

static const char *kind_wanted(graft_pat_kind k)
{
    switch (k) {
    case GRAFT_PAT_OP: return "a call of";
    case GRAFT_PAT_FNCALL: return "a call of a function";
    case GRAFT_PAT_FNCALLEE: return "a call of a function literal";
    case GRAFT_PAT_CALL: return "a call";
    case GRAFT_PAT_FN: return "a function";
    case GRAFT_PAT_IF: return "an if";
    case GRAFT_PAT_LET: return "a let";
    case GRAFT_PAT_TUPLE: return "a tuple";
    case GRAFT_PAT_GETITEM: return "an element of a tuple";
    default: return "a node";
    }
}

void match_why_wanted(const Matcher *m, const MatchWhy *w, StrBuf *out)
{
    const graft_item *it = &matcher_ruleset(m)->items[w->pat->item];
    switch (w->kind) {
    case WHY_KIND:
    case WHY_OP:
        if (w->pat->kind == GRAFT_PAT_OP)
            strbuf_printf(out, "a call of %s", it->op);
        else
            strbuf_puts(out, kind_wanted(w->pat->kind));
        break;
    case WHY_ARITY:
        strbuf_printf(out, "%s%d operands", it->variadic ? "at least " : "", w->pat->nkids);
        break;
    case WHY_INDEX: strbuf_printf(out, "element %d", it->index); break;
    case WHY_PRED: pred_wanted(w->pred, out); break;
    case WHY_ALT: strbuf_puts(out, "one of the alternatives"); break;
    case WHY_DOM:
        strbuf_puts(out, w->dom == 0   ? "a node on the path (or the parent, or a constant)"
                         : w->dom == 1 ? "one parent that every path reaches"
                                       : "a path to the parent");
        break;
    case WHY_STATE: strbuf_puts(out, "its operands in either order"); break;
    }
}

void match_why_found(const Matcher *m, const MatchWhy *w, StrBuf *out)
{
    (void)m;
    switch (w->kind) {
    case WHY_ARITY:
        strbuf_printf(out, "has %d operands", node_nargs(w->node));
        break;
    case WHY_INDEX: strbuf_printf(out, "is element %d", node_index(w->node)); break;
    case WHY_PRED:
        strbuf_puts(out, w->pred->kind == GRAFT_PRED_ATTR ? "has " : "is ");
        pred_found(w->pred, w->node, out);
        break;
    case WHY_ALT:
        strbuf_puts(out, "is ");
        node_describe(w->node, out);
        break;
    case WHY_DOM:
        if (w->dom == 1)
            strbuf_puts(out, "is a second node matching the parent");
        else if (w->dom == 2)
            strbuf_puts(out, "has operands whose walk reaches no parent");
        else {
            strbuf_puts(out, "is ");
            node_describe(w->node, out);
        }
        break;
    case WHY_STATE: strbuf_puts(out, "has operands matching in neither order"); break;
    default:
        strbuf_puts(out, "is ");
        node_describe(w->node, out);
        break;
    }
}
