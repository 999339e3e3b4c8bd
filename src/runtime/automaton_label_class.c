/* automaton_label_class.c - a node's class and symbol for labelling: the
 * node tests it passes (its own, its op's attributes, a called
 * function's), decided by binary search in the automaton's sorted tests,
 * and the small direct-mapped caches that let most nodes skip the search
 * (note [op slots], note [attribute keys], note [node classes]). */
#include "automaton_label_impl.h"

#include <stdlib.h>
#include <string.h>

static bool has_tests(const Labels *l, graft_pred_kind kind)
{
    return l->lo[kind] < l->hi[kind];
}

/* Which kinds of node a node test can apply to (node_preds below), so
 * that the common node, an op call when no rule tests types or shapes,
 * skips them without a look. */
void labels_kind_tests(Labels *l)
{
    bool any = has_tests(l, GRAFT_PRED_DTYPE) || has_tests(l, GRAFT_PRED_RANK) ||
               has_tests(l, GRAFT_PRED_SHAPE);
    l->type_tests = any;
    for (int k = 0; k <= NODE_MATCH; k++)
        l->kind_tests[k] = any;
    l->kind_tests[NODE_CONST] |=
        has_tests(l, GRAFT_PRED_IS_CONST) || has_tests(l, GRAFT_PRED_VALUE);
    l->kind_tests[NODE_VAR] |= has_tests(l, GRAFT_PRED_IS_VAR) || has_tests(l, GRAFT_PRED_VAR_NAME);
    l->kind_tests[NODE_OPREF] |= has_tests(l, GRAFT_PRED_OP_VALUE);
    /* a constant's tests but its value's (x:const) hold for every one */
    l->leaf_fixed[NODE_CONST] = !any && !has_tests(l, GRAFT_PRED_VALUE);
    l->leaf_fixed[NODE_VAR] = !any && !has_tests(l, GRAFT_PRED_VAR_NAME);
}

/* Adds a class for sym (its preds copied); returns its index. */
static uint32_t class_add(Labels *l, Symbol sym)
{
    if (l->nclasses == l->classes_cap) {
        size_t old = l->classes_cap;
        l->dense = xgrow_items(l->dense, &l->classes_cap, old + 1, sizeof *l->dense);
        l->syms = xrealloc(l->syms, l->classes_cap * sizeof *l->syms);
        memset(l->dense + old, 0, (l->classes_cap - old) * sizeof *l->dense);
    }
    if (sym.npreds) {
        uint32_t *copy = xmalloc(sym.npreds * sizeof *copy);
        memcpy(copy, sym.preds, sym.npreds * sizeof *copy);
        sym.preds = copy;
    } else
        sym.preds = NULL;
    l->syms[l->nclasses] = sym;
    return l->nclasses++;
}

/* The fixed classes: first the dense ones (an op named by a rule, other
 * ops, var, const, tuple: note [dense steps]), then an opaque value and
 * the element accesses (note [node classes]). */
void labels_classes_init(Labels *l)
{
    uint32_t nops = l->nops = automaton_nops(l->a);
    for (uint32_t op = 0; op < nops; op++)
        class_add(l, (Symbol){.tag = SYM_OP, .a = op});
    class_add(l, (Symbol){.tag = SYM_OP, .a = SYM_OTHER_OP});
    class_add(l, (Symbol){.tag = SYM_VAR});
    class_add(l, (Symbol){.tag = SYM_CONST});
    class_add(l, (Symbol){.tag = SYM_TUPLE});
    class_add(l, (Symbol){.tag = SYM_FUNC});
    for (uint32_t k = 0; k < GETITEM_CLASSES; k++)
        class_add(l, (Symbol){.tag = SYM_GETITEM, .a = k});
}

/* Fills slot for op from the map, itself filled once per distinct name. */
void labels_op_slot_fill(Labels *l, OpSlot *slot, const char *op)
{
    uint64_t key = keymap_ptr_key(op);
    int64_t *v = keymap_get(&l->ops, key);
    if (!v)
        v = keymap_put(&l->ops, key, automaton_op_index(l->a, op));
    slot->op = op;
    slot->index = (uint32_t)*v;
    slot->tests = automaton_op_preds(l->a, slot->index, &slot->ntests);
    slot->dense = slot->index == SYM_OTHER_OP ? automaton_nops(l->a) : slot->index;
}

static void add_pred(Labels *l, uint32_t *n, uint32_t p)
{
    l->preds = xgrow_items(l->preds, &l->preds_cap, *n + 1, sizeof *l->preds);
    uint32_t j = (*n)++;
    while (j > 0 && l->preds[j - 1] > p) /* keep ascending */
        l->preds[j] = l->preds[j - 1], j--;
    l->preds[j] = p;
}

/* Adds the tests among ps[0, n) equal to probe by automaton_pred_cmp:
 * binary search for the first, then the run of equals. */
static uint32_t lower_bound(const graft_pred *all, const uint32_t *ps, uint32_t n,
                            const graft_pred *probe)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (automaton_pred_cmp(&all[ps[mid]], probe) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void add_equal(Labels *l, uint32_t *np, const uint32_t *ps, uint32_t n,
                      const graft_pred *probe)
{
    const graft_pred *all = automaton_rules(l->a)->preds;
    uint32_t lo = lower_bound(all, ps, n, probe);
    for (; lo < n && automaton_pred_cmp(&all[ps[lo]], probe) == 0; lo++)
        add_pred(l, np, ps[lo]);
}

/* The end of the run of attribute tests on name starting at k. */
static uint32_t name_end(const graft_pred *all, const uint32_t *ps, uint32_t k, uint32_t n,
                         const char *name)
{
    uint32_t lo = k, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (strcmp(all[ps[mid]].s, name) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The canonical text of v (pattern_attr_key), written once per spelling
 * (note [attribute keys]); valid until the next call. */
static const char *attr_key(Labels *l, const graft_attr_value *v)
{
    l->key.len = 0;
    if (!v->spelling) { /* made by an edit */
        pattern_attr_key(v, &l->key);
        return l->key.data;
    }
    uint64_t h = hash_bytes(v->spelling, strlen(v->spelling), 0);
    KeySlot *slot = &l->keys[cache_slot(h, KEY_SLOT_BITS)];
    if (slot->spelling && slot->kind == v->kind && slot->nitems == v->nitems &&
        strcmp(slot->spelling, v->spelling) == 0)
        return slot->key;
    pattern_attr_key(v, &l->key);
    free(slot->key);
    *slot = (KeySlot){v->spelling, v->kind, v->nitems, xstrdup(l->key.data)};
    return slot->key;
}

/* Attribute tests of one op, sorted by name then wanted value (note [test
 * order] in automaton.c): per attribute name, the node's value (or the
 * op's default when the node omits it) is put in canonical form once and
 * looked up by binary search. */
static void attr_preds(Labels *l, const graft_node *holder, const uint32_t *ps,
                       uint32_t np, uint32_t *n)
{
    const graft_pred *all = automaton_rules(l->a)->preds;
    const graft_attr_test_fn *fns = automaton_rules(l->a)->attr_fns;
    for (uint32_t k = 0; k < np;) {
        const graft_pred *first = &all[ps[k]];
        uint32_t end = name_end(all, ps, k, np, first->s);
        const graft_attr_value *v = node_find_attr(holder, first->s);
        if (fns) { /* compiled tests (graft compile): no canonical text */
            for (; k < end; k++)
                if (fns[ps[k]](v))
                    add_pred(l, n, ps[k]);
            continue;
        }
        const char *have = v ? attr_key(l, v) : first->dflt;
        if (have) {
            graft_pred probe = {.kind = GRAFT_PRED_ATTR, .s = first->s, .key = have};
            add_equal(l, n, ps + k, end - k, &probe);
        }
        k = end;
    }
}

/* The tests of kind probe->kind equal to probe, found by binary search in
 * that kind's run. */
static void add_kind(Labels *l, uint32_t *np, const graft_pred *probe)
{
    uint32_t lo = l->lo[probe->kind], hi = l->hi[probe->kind];
    if (lo < hi)
        add_equal(l, np, automaton_node_preds(l->a, &(uint32_t){0}) + lo, hi - lo, probe);
}

/* Tests of the node itself: one binary search per kind of test some rule
 * asks about; shape tests, rare, are evaluated one by one. */
static void node_preds(Labels *l, const graft_node *n, uint32_t *np)
{
    uint32_t cnt;
    const uint32_t *ps = automaton_node_preds(l->a, &cnt);
    const graft_pred *all = automaton_rules(l->a)->preds;
    if (cnt == 0)
        return;
    NodeKind k = node_kind(n);
    if (k == NODE_CONST || k == NODE_VAR)
        add_kind(l, np,
                 &(graft_pred){.kind = k == NODE_CONST ? GRAFT_PRED_IS_CONST : GRAFT_PRED_IS_VAR});
    if (k == NODE_VAR)
        add_kind(l, np, &(graft_pred){.kind = GRAFT_PRED_VAR_NAME, .s = node_name(n)});
    if (k == NODE_OPREF)
        add_kind(l, np, &(graft_pred){.kind = GRAFT_PRED_OP_VALUE, .s = node_name(n)});
    double value;
    if (k == NODE_CONST && node_const_number(n, &value))
        add_kind(l, np, &(graft_pred){.kind = GRAFT_PRED_VALUE, .f = value});
    if (l->lo[GRAFT_PRED_DTYPE] < l->hi[GRAFT_PRED_DTYPE] && pattern_node_dtype(n))
        add_kind(l, np, &(graft_pred){.kind = GRAFT_PRED_DTYPE, .s = pattern_node_dtype(n)});
    if (l->lo[GRAFT_PRED_RANK] < l->hi[GRAFT_PRED_RANK] && pattern_node_rank(n) >= 0)
        add_kind(l, np, &(graft_pred){.kind = GRAFT_PRED_RANK, .i = pattern_node_rank(n)});
    for (uint32_t i = l->lo[GRAFT_PRED_SHAPE]; i < l->hi[GRAFT_PRED_SHAPE]; i++)
        if (pattern_pred_holds(&all[ps[i]], n))
            add_pred(l, np, ps[i]);
}

/* Fills sym with n's symbol (operand states excluded). */
void labels_symbol(Labels *l, const graft_node *n, NodeKind kind, Symbol *sym)
{
    uint32_t np = 0, cnt;
    const uint32_t *ps;
    const char *op;
    if (kind > NODE_MATCH || l->kind_tests[kind]) /* a kind added later: look */
        node_preds(l, n, &np);
    sym->a = 0;
    switch (kind) {
    case NODE_VAR: sym->tag = SYM_VAR; break;
    case NODE_CONST: sym->tag = SYM_CONST; break;
    case NODE_TUPLE: sym->tag = SYM_TUPLE; break;
    case NODE_FUNC:
        sym->tag = l->scopes ? SYM_FN : SYM_FUNC;
        ps = automaton_fn_preds(l->a, &cnt);
        if (l->scopes)
            attr_preds(l, n, ps, cnt, &np);
        break;
    case NODE_IF: sym->tag = l->scopes ? SYM_IF : SYM_FUNC; break;
    case NODE_LET: sym->tag = l->scopes ? SYM_LET : SYM_FUNC; break;
    case NODE_GLOBAL:
    case NODE_OPREF:
    case NODE_MATCH: sym->tag = SYM_FUNC; break; /* opaque values */
    case NODE_GETITEM:
        sym->tag = SYM_GETITEM;
        sym->a = (uint32_t)node_index(n);
        break;
    case NODE_CALL:
        if ((op = node_op(n)) != NULL) {
            const OpSlot *slot = labels_op_slot(l, op);
            sym->tag = SYM_OP;
            sym->a = slot->index;
            if (slot->ntests)
                attr_preds(l, n, slot->tests, slot->ntests, &np);
        } else {
            sym->tag = SYM_FNCALL;
            ps = automaton_fn_preds(l->a, &cnt);
            if (node_callee(n) && node_kind(node_callee(n)) == NODE_FUNC)
                attr_preds(l, node_callee(n), ps, cnt, &np);
        }
        break;
    }
    sym->npreds = np;
    sym->preds = l->preds;
}

/* A scalar constant's class when rules test constants and not types:
 * one per value (note [node classes]), or CLASS_NODE once there are too
 * many classes. */
uint32_t labels_const_class(Labels *l, const graft_node *n)
{
    uint32_t nops = l->nops, np = 0;
    double v;
    if (!node_const_number(n, &v))
        return CLASS_NODE;
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    ConstSlot *slot = &l->consts[cache_slot(bits, CONST_SLOT_BITS)];
    if (slot->cls > nops && slot->bits == bits)
        return slot->cls;
    if (l->nclasses >= MAX_CLASSES)
        return CLASS_NODE;
    node_preds(l, n, &np);
    *slot = (ConstSlot){bits, class_add(l, (Symbol){.tag = SYM_CONST, .npreds = np,
                                                    .preds = l->preds})};
    return slot->cls;
}

/* The class of op call n, whose op has attribute tests: its tests are
 * decided here, as the walk comes to it, and each op with each set of
 * tests passed gets one class (note [node classes]); CLASS_NODE on a clash of
 * hashes or once there are too many classes. */
uint32_t labels_tested_class(Labels *l, const graft_node *n, const OpSlot *slot)
{
    uint32_t np = 0;
    attr_preds(l, n, slot->tests, slot->ntests, &np);
    uint64_t key = hash_bytes(l->preds, np * sizeof *l->preds, slot->index) | 1;
    int64_t *c = keymap_get(&l->tested, key);
    if (c) {
        const Symbol *sym = &l->syms[*c];
        bool same = sym->a == slot->index && sym->npreds == np &&
                    (np == 0 || memcmp(sym->preds, l->preds, np * sizeof *l->preds) == 0);
        return same ? (uint32_t)*c : CLASS_NODE;
    }
    if (l->nclasses >= MAX_CLASSES)
        return CLASS_NODE;
    uint32_t cls = class_add(l, (Symbol){.tag = SYM_OP, .a = slot->index, .npreds = np,
                                          .preds = l->preds});
    keymap_put(&l->tested, key, cls);
    return cls;
}

uint32_t labels_adopt_classes(Labels *l, const Labels *from)
{
    for (uint32_t c = l->nclasses; c < from->nclasses; c++)
        class_add(l, from->syms[c]);
    return l->nclasses;
}
