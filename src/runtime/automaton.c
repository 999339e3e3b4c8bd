/* automaton.c - states as item sets, lazily built and memoised transitions.
 *
 * note [item sets]: a state is the set of items a node may match.  For a
 * symbol and operand states, an item is in the new state when
 *   ANY      its tests hold;
 *   OP       the op is the item's, its tests hold, and each argument item
 *            is in the matching operand's state (either order when
 *            commutative; extra operands allowed when variadic);
 *   FNCALL,  the same shape check against a function call, a tuple,
 *   TUPLE,   an element access, any call (CALL), and a function, an if
 *   GETITEM, or a let (FN, IF, LET) over the operands that note
 *   CALL,    [pattern operands] in pattern.h names;
 *   FN, IF, LET
 *   ALT      one of its choices is in the new state;
 *   STAR     its inner item is in the new state, or the node is the op
 *            and the STAR item is in its one operand's state.
 * Children have smaller ids than parents, so one pass in id order decides
 * every item.  Only items that can apply are visited: those headed by the
 * node's op, and the "generic" items not headed by an op.  The result is
 * interned (equal sets share one state id) and memoised under the key
 * (symbol, operand states): a later node with the same key costs one hash
 * lookup, whatever the number of rules.
 */
#include "automaton.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* What the automaton knows about one op named by some rule. */
typedef struct OpEntry {
    const char *name;    /* the op name, owned by the rule set */
    VEC(uint32_t) items; /* OP and STAR items headed by it, ascending */
    VEC(uint32_t) preds; /* its GRAFT_PRED_ATTR tests, grouped by attribute */
} OpEntry;

/* One open-addressing table entry: a key of uint32 words in a pool. */
typedef struct Slot {
    uint64_t hash;   /* full hash; 0 = empty */
    uint32_t off;    /* key offset in the pool */
    uint32_t len;    /* key length in words */
    uint32_t value;  /* state id */
} Slot;

/* One entry of the step cache (note [step cache]); state 0 = empty,
 * otherwise the state id plus one. */
typedef struct StepEntry {
    uint64_t head;   /* tag, operand and test counts, symbol a */
    uint64_t words;  /* the tests, then the operand states, two at most */
    uint32_t state;  /* state id + 1, or 0 when empty */
} StepEntry;

#define STEP_CACHE_BITS 10 /* 1024 entries, 24 KB: within the L1 cache */

typedef struct Table {
    Slot *slots;     /* power-of-two array */
    size_t cap;      /* slots allocated */
    size_t count;    /* slots used */
    VEC(uint32_t) pool; /* keys, back to back */
} Table;

struct Automaton {
    const graft_rule_set *rs;     /* the rules, borrowed */
    OpEntry *ops;          /* ops named by rules, in first-use order */
    uint32_t nops;         /* count of ops */
    uint32_t *item_op;     /* per item: the op index of its head op, or SYM_OTHER_OP */
    VEC(uint32_t) generic; /* items not headed by an op, ascending */
    VEC(uint32_t) node_preds; /* tests evaluated on every node */
    VEC(uint32_t) fn_preds; /* function attribute tests */
    uint32_t *rule_order;  /* rule indices, best first */
    bool scopes;           /* some item is FN, IF or LET */
    size_t words;          /* 64-bit words per state bitset */
    uint64_t *bits;        /* nstates * words */
    size_t bits_cap;       /* words allocated in bits */
    VEC(uint32_t) acc;     /* accepting rules of all states, back to back */
    uint32_t *acc_off;     /* per state: offset into acc */
    uint32_t *acc_len;     /* per state: number of accepting rules */
    size_t acc_off_cap;    /* states allocated in acc_off/acc_len */
    uint32_t nstates;      /* states built */
    Table memo;            /* (symbol, operand states) -> state */
    Table sets;            /* item set -> state, to share equal sets */
    uint64_t *scratch;     /* one bitset being built */
    StepEntry *cache;      /* small memo keys -> state (note [step cache]) */
};

/* ---- hash tables over uint32 keys ---- */

/* A key, a short array of ids, hashed as its bytes (note [one string
 * hash] in keymap.h); nonzero. */
static uint64_t hash_key(const uint32_t *key, size_t len)
{
    return hash_bytes(key, len * sizeof *key, 0) | 1;
}

static void table_free(Table *t)
{
    free(t->slots);
    vec_free(&t->pool);
}

/* Finds the slot for key: the one holding it, or the empty one where it
 * would go. */
static Slot *table_find(const Table *t, const uint32_t *key, size_t len, uint64_t h)
{
    size_t mask = t->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        Slot *s = &t->slots[i];
        if (s->hash == 0)
            return s;
        if (s->hash == h && s->len == len &&
            memcmp(t->pool.items + s->off, key, len * sizeof *key) == 0)
            return s;
    }
}

/* Doubles the table and re-inserts every slot (the key pool stays). */
static void table_grow(Table *t)
{
    Slot *old = t->slots;
    size_t old_cap = t->cap;
    t->cap = old_cap ? old_cap * 2 : 256;
    t->slots = xcalloc(t->cap, sizeof *t->slots);
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i].hash == 0)
            continue;
        size_t mask = t->cap - 1, j = old[i].hash & mask;
        while (t->slots[j].hash)
            j = (j + 1) & mask;
        t->slots[j] = old[i];
    }
    free(old);
}

/* The value stored under key, or STATE_NONE. */
static uint32_t table_get(Table *t, const uint32_t *key, size_t len, uint64_t h)
{
    if (t->cap == 0)
        return STATE_NONE;
    Slot *s = table_find(t, key, len, h);
    return s->hash ? s->value : STATE_NONE;
}

static void table_put(Table *t, const uint32_t *key, size_t len, uint64_t h,
                      uint32_t value)
{
    if ((t->count + 1) * 2 > t->cap)
        table_grow(t);
    Slot *s = table_find(t, key, len, h);
    vec_reserve(&t->pool, t->pool.len + len);
    memcpy(t->pool.items + t->pool.len, key, len * sizeof *key);
    s->hash = h;
    s->off = (uint32_t)t->pool.len;
    s->len = (uint32_t)len;
    s->value = value;
    t->pool.len += len;
    t->count++;
}

/* ---- indexes built once from the rule set ---- */

static uint32_t op_find_or_add(Automaton *a, const char *name)
{
    for (uint32_t i = 0; i < a->nops; i++)
        if (strcmp(a->ops[i].name, name) == 0)
            return i;
    a->ops = xrealloc(a->ops, (a->nops + 1) * sizeof *a->ops);
    memset(&a->ops[a->nops], 0, sizeof *a->ops);
    a->ops[a->nops].name = name;
    return a->nops++;
}

/* note [test order]: node tests are sorted by kind and then by the value
 * they look for, attribute tests by attribute name and then by the
 * wanted value's text; so the labeller finds the tests a node passes by
 * binary search, at a cost that grows with the log of their number, not
 * with the number of rules (automaton_label.c). */
int automaton_pred_cmp(const graft_pred *x, const graft_pred *y)
{
    if (x->kind != y->kind)
        return (x->kind > y->kind) - (x->kind < y->kind);
    switch (x->kind) {
    case GRAFT_PRED_VALUE: return (x->f > y->f) - (x->f < y->f);
    case GRAFT_PRED_RANK: return (x->i > y->i) - (x->i < y->i);
    case GRAFT_PRED_VAR_NAME:
    case GRAFT_PRED_OP_VALUE:
    case GRAFT_PRED_DTYPE: return strcmp(x->s, y->s);
    case GRAFT_PRED_ATTR: {
        int c = strcmp(x->s, y->s);
        return c ? c : strcmp(x->key, y->key);
    }
    default: return 0;
    }
}

/* Test ids by automaton_pred_cmp, then id (sort_u32 is stable). */
static bool pred_before(const void *preds, uint32_t x, uint32_t y)
{
    return automaton_pred_cmp((const graft_pred *)preds + x, (const graft_pred *)preds + y) < 0;
}

static void sort_preds(uint32_t *v, uint32_t n, const graft_pred *preds)
{
    sort_u32(v, n, pred_before, preds);
}

static void index_preds(Automaton *a)
{
    const graft_rule_set *rs = a->rs;
    for (uint32_t p = 0; p < rs->npreds; p++) {
        const graft_pred *pr = &rs->preds[p];
        if (pr->kind != GRAFT_PRED_ATTR)
            vec_push(&a->node_preds, p);
        else if (!pr->op)
            vec_push(&a->fn_preds, p);
        else {
            uint32_t o = op_find_or_add(a, pr->op); /* may move a->ops */
            vec_push(&a->ops[o].preds, p);
        }
    }
}

static void index_items(Automaton *a)
{
    a->item_op = xmalloc((a->rs->nitems + 1) * sizeof *a->item_op);
    for (uint32_t i = 0; i < a->rs->nitems; i++) {
        const graft_item *it = &a->rs->items[i];
        a->item_op[i] = SYM_OTHER_OP;
        if (it->kind == GRAFT_PITEM_OP || it->kind == GRAFT_PITEM_STAR) {
            uint32_t o = op_find_or_add(a, it->op); /* may move a->ops */
            vec_push(&a->ops[o].items, i);
            a->item_op[i] = o;
        }
        if (it->kind != GRAFT_PITEM_OP)
            vec_push(&a->generic, i);
        a->scopes |=
            it->kind == GRAFT_PITEM_FN || it->kind == GRAFT_PITEM_IF || it->kind == GRAFT_PITEM_LET;
    }
}

bool automaton_rule_before(const void *rules, uint32_t x, uint32_t y)
{
    return ((const graft_rule *)rules)[x].priority > ((const graft_rule *)rules)[y].priority;
}

/* Orders rule indices best first: higher priority, then earlier in the
 * file (the identity order, sorted stably). */
static void sort_rules(uint32_t *v, uint32_t n, const graft_rule *rules)
{
    for (uint32_t i = 0; i < n; i++)
        v[i] = i;
    sort_u32(v, n, automaton_rule_before, rules);
}

/* Indexes the rule set: items by head op, tests by kind (note [test
 * order]), rules best first.  No state exists until a node is labelled. */
Automaton *automaton_new(const graft_rule_set *rs)
{
    Automaton *a = xcalloc(1, sizeof *a);
    a->rs = rs;
    index_items(a);
    index_preds(a);
    for (uint32_t o = 0; o < a->nops; o++)
        sort_preds(a->ops[o].preds.items, (uint32_t)a->ops[o].preds.len, rs->preds);
    sort_preds(a->node_preds.items, (uint32_t)a->node_preds.len, rs->preds);
    sort_preds(a->fn_preds.items, (uint32_t)a->fn_preds.len, rs->preds);
    a->rule_order = xmalloc((rs->nrules + 1) * sizeof(uint32_t));
    sort_rules(a->rule_order, rs->nrules, rs->rules);
    a->words = (rs->nitems + 63) / 64;
    if (a->words == 0)
        a->words = 1;
    a->scratch = xcalloc(a->words, sizeof(uint64_t));
    a->cache = xcalloc((size_t)1 << STEP_CACHE_BITS, sizeof *a->cache);
    return a;
}

void automaton_free(Automaton *a)
{
    if (!a)
        return;
    for (uint32_t i = 0; i < a->nops; i++) {
        vec_free(&a->ops[i].items);
        vec_free(&a->ops[i].preds);
    }
    free(a->ops);
    free(a->item_op);
    vec_free(&a->generic);
    vec_free(&a->node_preds);
    vec_free(&a->fn_preds);
    free(a->rule_order);
    free(a->bits);
    vec_free(&a->acc);
    free(a->acc_off);
    free(a->acc_len);
    table_free(&a->memo);
    table_free(&a->sets);
    free(a->scratch);
    free(a->cache);
    free(a);
}

const graft_rule_set *automaton_rules(const Automaton *a)
{
    return a->rs;
}

uint32_t automaton_op_index(const Automaton *a, const char *op)
{
    for (uint32_t i = 0; i < a->nops; i++)
        if (strcmp(a->ops[i].name, op) == 0)
            return i;
    return SYM_OTHER_OP;
}

bool automaton_has_scopes(const Automaton *a)
{
    return a->scopes;
}

const uint32_t *automaton_node_preds(const Automaton *a, uint32_t *n)
{
    *n = (uint32_t)a->node_preds.len;
    return a->node_preds.items;
}

const uint32_t *automaton_op_preds(const Automaton *a, uint32_t op, uint32_t *n)
{
    if (op >= a->nops) {
        *n = 0;
        return NULL;
    }
    *n = (uint32_t)a->ops[op].preds.len;
    return a->ops[op].preds.items;
}

const uint32_t *automaton_fn_preds(const Automaton *a, uint32_t *n)
{
    *n = (uint32_t)a->fn_preds.len;
    return a->fn_preds.items;
}

/* ---- deciding items ---- */

static bool bit(const uint64_t *set, uint32_t i)
{
    return (set[i / 64] >> (i % 64)) & 1;
}

static const uint64_t *state_bits(const Automaton *a, uint32_t s)
{
    return a->bits + (size_t)s * a->words;
}

bool automaton_state_has(const Automaton *a, uint32_t state, uint32_t item)
{
    return state < a->nstates && bit(state_bits(a, state), item);
}

/* Every test of the item is among the node's passed tests (both sorted). */
static bool preds_hold(const graft_item *it, const Symbol *sym)
{
    uint32_t j = 0;
    for (int i = 0; i < it->npreds; i++) {
        while (j < sym->npreds && sym->preds[j] < it->preds[i])
            j++;
        if (j == sym->npreds || sym->preds[j] != it->preds[i])
            return false;
    }
    return true;
}

static bool arg_has(const Automaton *a, const Symbol *sym, uint32_t k, uint32_t item)
{
    return automaton_state_has(a, sym->args[k], item);
}

/* The operands fit the item's argument items, in order or (commutative,
 * two operands) swapped. */
static bool args_fit(const Automaton *a, const graft_item *it, const Symbol *sym)
{
    uint32_t n = (uint32_t)it->nargs;
    if (it->variadic ? sym->nargs < n : sym->nargs != n)
        return false;
    bool ok = true;
    for (uint32_t k = 0; k < n && ok; k++)
        ok = arg_has(a, sym, k, it->args[k]);
    if (ok || !it->commutative || n != 2)
        return ok;
    return arg_has(a, sym, 0, it->args[1]) && arg_has(a, sym, 1, it->args[0]);
}

/* Whether the node is a call of item i's head op: op indices compare as
 * names do, since the automaton gives each name one index. */
static bool is_op(const Automaton *a, uint32_t i, const Symbol *sym)
{
    return sym->tag == SYM_OP && sym->a != SYM_OTHER_OP && sym->a == a->item_op[i];
}

/* Every operand's state has item (vacuously true without operands). */
static bool all_args_have(const Automaton *a, const Symbol *sym, uint32_t item)
{
    for (uint32_t k = 0; k < sym->nargs; k++)
        if (!arg_has(a, sym, k, item))
            return false;
    return true;
}

static bool some_arg_has(const Automaton *a, const Symbol *sym, uint32_t item)
{
    for (uint32_t k = 0; k < sym->nargs; k++)
        if (arg_has(a, sym, k, item))
            return true;
    return false;
}

/* The three items of dominates(parent, path, child); i is the item's own
 * id, which DOMPATH and DOMREACH look for in the operands' states. */
static bool dom_decide(const Automaton *a, const graft_item *it, uint32_t i, const Symbol *sym,
                       const uint64_t *set)
{
    Symbol leaf;
    if (sym->tag == SYM_FN || sym->tag == SYM_IF || sym->tag == SYM_LET) {
        leaf = *sym; /* the dominator walk passes scopes as leaves (match.c) */
        leaf.nargs = 0;
        sym = &leaf;
    }
    switch (it->kind) {
    case GRAFT_PITEM_DOMPATH:
        return bit(set, it->args[0]) || sym->tag == SYM_CONST ||
               (bit(set, it->args[1]) && all_args_have(a, sym, i));
    case GRAFT_PITEM_DOMREACH:
        return bit(set, it->args[0]) ||
               (bit(set, it->args[1]) && all_args_have(a, sym, it->args[2]) &&
                some_arg_has(a, sym, i));
    default: /* GRAFT_PITEM_DOM */
        return bit(set, it->args[0]) && sym->nargs > 0 &&
               all_args_have(a, sym, it->args[1]) && some_arg_has(a, sym, it->args[2]);
    }
}

/* Is item i in the set being built (which already decided smaller ids)? */
static bool item_decide(const Automaton *a, uint32_t i, const Symbol *sym,
                        const uint64_t *set)
{
    const graft_item *it = &a->rs->items[i];
    if (!preds_hold(it, sym))
        return false;
    switch (it->kind) {
    case GRAFT_PITEM_ANY:
        return true;
    case GRAFT_PITEM_OP:
        return is_op(a, i, sym) && args_fit(a, it, sym);
    case GRAFT_PITEM_FNCALL:
        return sym->tag == SYM_FNCALL && args_fit(a, it, sym);
    case GRAFT_PITEM_TUPLE:
        return sym->tag == SYM_TUPLE && args_fit(a, it, sym);
    case GRAFT_PITEM_CALL:
        return (sym->tag == SYM_OP || sym->tag == SYM_FNCALL) && args_fit(a, it, sym);
    case GRAFT_PITEM_FN:
        return sym->tag == SYM_FN && args_fit(a, it, sym);
    case GRAFT_PITEM_IF:
        return sym->tag == SYM_IF && args_fit(a, it, sym);
    case GRAFT_PITEM_LET:
        return sym->tag == SYM_LET && args_fit(a, it, sym);
    case GRAFT_PITEM_GETITEM:
        return sym->tag == SYM_GETITEM && (it->index < 0 || sym->a == (uint32_t)it->index) &&
               sym->nargs == 1 && arg_has(a, sym, 0, it->args[0]);
    case GRAFT_PITEM_ALT:
        for (int k = 0; k < it->nargs; k++)
            if (bit(set, it->args[k]))
                return true;
        return false;
    case GRAFT_PITEM_STAR:
        if (bit(set, it->args[0]))
            return true;
        return is_op(a, i, sym) && sym->nargs == 1 && arg_has(a, sym, 0, i);
    case GRAFT_PITEM_DOMPATH:
    case GRAFT_PITEM_DOMREACH:
    case GRAFT_PITEM_DOM:
        return dom_decide(a, it, i, sym, set);
    }
    return false;
}

/* Builds the item set of sym into a->scratch: the generic items and those
 * headed by the node's op, merged in ascending id order. */
static void build_set(Automaton *a, const Symbol *sym)
{
    uint64_t *set = a->scratch;
    memset(set, 0, a->words * sizeof *set);
    const uint32_t *g = a->generic.items, *o = NULL;
    uint32_t ng = (uint32_t)a->generic.len, no = 0, gi = 0, oi = 0;
    if (sym->tag == SYM_OP && sym->a != SYM_OTHER_OP) {
        o = a->ops[sym->a].items.items;
        no = (uint32_t)a->ops[sym->a].items.len;
    }
    while (gi < ng || oi < no) {
        uint32_t i;
        if (oi == no || (gi < ng && g[gi] <= o[oi])) {
            i = g[gi++];
            if (oi < no && o[oi] == i)
                oi++;
        } else
            i = o[oi++];
        if (item_decide(a, i, sym, set))
            set[i / 64] |= (uint64_t)1 << (i % 64);
    }
}

/* ---- states ---- */

/* Appends the rules accepted by the newest state, best first. */
static void add_accepts(Automaton *a, uint32_t s)
{
    const uint64_t *set = state_bits(a, s);
    a->acc_off = xgrow_items(a->acc_off, &a->acc_off_cap, s + 1, sizeof *a->acc_off);
    a->acc_len = xrealloc(a->acc_len, a->acc_off_cap * sizeof *a->acc_len);
    a->acc_off[s] = (uint32_t)a->acc.len;
    a->acc_len[s] = 0;
    for (uint32_t k = 0; k < a->rs->nrules; k++) {
        uint32_t r = a->rule_order[k];
        if (!bit(set, a->rs->rules[r].pattern->item))
            continue;
        vec_push(&a->acc, r);
        a->acc_len[s]++;
    }
}

/* The state holding exactly the scratch set, made if new. */
static uint32_t intern_set(Automaton *a)
{
    size_t len = a->words * 2;
    const uint32_t *key = (const uint32_t *)a->scratch;
    uint64_t h = hash_key(key, len);
    uint32_t s = table_get(&a->sets, key, len, h);
    if (s != STATE_NONE)
        return s;
    s = a->nstates++;
    a->bits = xgrow_items(a->bits, &a->bits_cap, (size_t)a->nstates * a->words, sizeof *a->bits);
    memcpy(a->bits + (size_t)s * a->words, a->scratch, a->words * sizeof *a->bits);
    table_put(&a->sets, key, len, h, s);
    add_accepts(a, s);
    return s;
}

/* The memo key of a symbol: tag, a, tests, operand states. */
static size_t make_key(const Symbol *sym, uint32_t **buf, size_t *cap)
{
    size_t len = 4 + sym->npreds + sym->nargs;
    *buf = xgrow_items(*buf, cap, len, sizeof **buf);
    uint32_t *k = *buf;
    k[0] = sym->tag;
    k[1] = sym->a;
    k[2] = sym->npreds;
    k[3] = sym->nargs;
    if (sym->npreds) /* memcpy from NULL is undefined even for 0 bytes */
        memcpy(k + 4, sym->preds, sym->npreds * sizeof *k);
    if (sym->nargs)
        memcpy(k + 4 + sym->npreds, sym->args, sym->nargs * sizeof *k);
    return len;
}

/* The memo lookup and, on a miss, building the state. */
static uint32_t step_memo(Automaton *a, const Symbol *sym)
{
    uint32_t small[32], *buf = small;
    size_t cap = 0, len;
    if (4 + sym->npreds + sym->nargs <= 32)
        cap = 32;
    else
        buf = NULL;
    len = make_key(sym, &buf, &cap);
    uint64_t h = hash_key(buf, len);
    uint32_t s = table_get(&a->memo, buf, len, h);
    if (s == STATE_NONE) {
        build_set(a, sym);
        s = intern_set(a);
        table_put(&a->memo, buf, len, h, s);
    }
    if (buf != small)
        free(buf);
    return s;
}

/* note [step cache]: most nodes have no tests and one or two operands
 * (a parameter, a unary or binary op), so their memo key fits in two
 * 64-bit words.  Such keys go first to a direct-mapped cache of the memo
 * (note [one cache slot] in keymap.h): a slot of the two words mixed, one
 * probe, two compares, where the memo hashes the key word by word, probes
 * and compares it with memcmp.  The cache only ever
 * holds answers the memo gave, so the states, their numbering and the
 * memo's size (the transitions --stats prints) stay the same; a key that
 * collides with another is simply asked of the memo again. */
uint32_t automaton_step(Automaton *a, const Symbol *sym)
{
    if (sym->npreds + sym->nargs > 2)
        return step_memo(a, sym);
    uint32_t w[2] = {0, 0}, k = 0;
    for (uint32_t i = 0; i < sym->npreds; i++)
        w[k++] = sym->preds[i];
    for (uint32_t i = 0; i < sym->nargs; i++)
        w[k++] = sym->args[i];
    uint64_t head = (uint64_t)sym->tag | (uint64_t)sym->npreds << 8 |
                    (uint64_t)sym->nargs << 16 | (uint64_t)sym->a << 32;
    uint64_t words = (uint64_t)w[0] | (uint64_t)w[1] << 32;
    StepEntry *e = &a->cache[cache_slot(hash_mix(head, words), STEP_CACHE_BITS)];
    if (e->state && e->head == head && e->words == words)
        return e->state - 1;
    uint32_t s = step_memo(a, sym);
    *e = (StepEntry){head, words, s + 1};
    return s;
}

const uint32_t *automaton_state_rules(const Automaton *a, uint32_t state, uint32_t *n)
{
    if (state >= a->nstates) {
        *n = 0;
        return NULL;
    }
    *n = a->acc_len[state];
    return a->acc.items ? a->acc.items + a->acc_off[state] : NULL; /* no rule accepts yet */
}

uint32_t automaton_nstates(const Automaton *a)
{
    return a->nstates;
}

uint32_t automaton_ntransitions(const Automaton *a)
{
    return (uint32_t)a->memo.count;
}

/* ---- accessors for the dumper (automaton_dump.c) ---- */

uint32_t automaton_nops(const Automaton *a)
{
    return a->nops;
}

const char *automaton_op_name(const Automaton *a, uint32_t op)
{
    return a->ops[op].name;
}

const uint32_t *automaton_op_items(const Automaton *a, uint32_t op, uint32_t *n)
{
    *n = (uint32_t)a->ops[op].items.len;
    return a->ops[op].items.items;
}
