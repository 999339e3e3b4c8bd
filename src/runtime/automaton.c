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
 *
 * This file builds states and steps; the indexes built once from the
 * rule set, and what the labeller and the dumper read of them, are in
 * automaton_index.c; the states and transitions graft compile writes
 * (note [compiled states] in graft_rules.h) are read in automaton_tables.c,
 * and a compiled rule set's steps come from them before any is built here.
 */
#include "automaton_impl.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

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

/* The rule set's index: graft compile's tables when it brings them (note
 * [compiled index] in graft_rules.h), else built from the lowered tables
 * (items by head op, tests by kind, rules best first).  An interpreted
 * rule set has no state until a node is labelled; a compiled one starts
 * with the states it wrote, none reached yet.  The step cache waits for
 * the first step. */
Automaton *automaton_new(const graft_rule_set *rs)
{
    Automaton *a = xcalloc(1, sizeof *a);
    a->rs = rs;
    if (rs->automaton)
        a->ix = *rs->automaton;
    else
        automaton_index(a);
    if (a->ix.states) {
        a->st = a->ix.states;
        a->nwritten = a->nstates = a->st->nstates;
        a->reached = xcalloc((size_t)a->nwritten + 1, 1);
        a->bits = a->st->bits;
        a->acc = a->st->accepts;
        a->acc_off = a->st->accept_off;
    } else {
        a->own_off = xcalloc(1, sizeof *a->own_off); /* state 0's run starts at 0 */
        a->own_off_cap = 1;
        a->acc_off = a->own_off;
    }
    a->words = automaton_set_words(rs->nitems);
    a->scratch = xcalloc(a->words, sizeof(uint64_t));
    return a;
}

void automaton_free(Automaton *a)
{
    if (!a)
        return;
    automaton_index_free(a->built);
    free(a->reached);
    free(a->own_bits);
    vec_free(&a->own_acc);
    free(a->own_off);
    table_free(&a->memo);
    table_free(&a->sets);
    free(a->scratch);
    free(a->cache);
    free(a);
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

const uint64_t *automaton_state_set(const Automaton *a, uint32_t s)
{
    return state_bits(a, s);
}

bool automaton_state_has(const Automaton *a, uint32_t state, uint32_t item)
{
    return state < a->nstates && bit(state_bits(a, state), item);
}

size_t automaton_set_words(uint32_t nitems)
{
    return nitems ? ((size_t)nitems + 63) / 64 : 1;
}

const uint64_t *automaton_state_sets(const Automaton *a, size_t *words)
{
    *words = a->words;
    return a->bits;
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
    return sym->tag == SYM_OP && sym->a != SYM_OTHER_OP && sym->a == a->ix.item_op[i];
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
    const uint32_t *g = a->ix.generic, *o = NULL;
    uint32_t ng = a->ix.ngeneric, no = 0, gi = 0, oi = 0;
    if (sym->tag == SYM_OP && sym->a != SYM_OTHER_OP) {
        o = a->ix.ops[sym->a].items;
        no = a->ix.ops[sym->a].nitems;
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
    for (uint32_t k = 0; k < a->rs->nrules; k++) {
        uint32_t r = a->ix.rule_order[k];
        if (bit(set, a->rs->rules[r].pattern->item))
            vec_push(&a->own_acc, r);
    }
    a->own_off = xgrow_items(a->own_off, &a->own_off_cap, (size_t)s + 2, sizeof *a->own_off);
    a->own_off[s + 1] = (uint32_t)a->own_acc.len;
    a->acc = a->own_acc.items;
    a->acc_off = a->own_off;
}

/* Before the first state is built: the written states' sets and accepted
 * rules copied into the arrays built states append to (note [written
 * until built] in automaton_impl.h). */
static void own_written(Automaton *a)
{
    size_t n = a->nwritten;
    a->own_bits = xmalloc((n * a->words + 1) * sizeof *a->own_bits);
    a->own_bits_cap = n * a->words + 1;
    memcpy(a->own_bits, a->st->bits, n * a->words * sizeof *a->own_bits);
    uint32_t nacc = a->st->accept_off[n];
    vec_reserve(&a->own_acc, nacc + 1);
    if (nacc)
        memcpy(a->own_acc.items, a->st->accepts, nacc * sizeof *a->own_acc.items);
    a->own_acc.len = nacc;
    a->own_off = xmalloc((n + 1) * sizeof *a->own_off);
    a->own_off_cap = n + 1;
    memcpy(a->own_off, a->st->accept_off, (n + 1) * sizeof *a->own_off);
}

/* Puts the written states into the sets, once, before the first set is
 * built at run time: a built set equal to one of them is that state. */
static void seed_sets(Automaton *a)
{
    size_t len = a->words * 2;
    a->sets_seeded = true;
    for (uint32_t s = 0; s < a->nwritten; s++) {
        const uint32_t *key = (const uint32_t *)state_bits(a, s);
        table_put(&a->sets, key, len, hash_key(key, len), s);
    }
}

/* The state holding exactly the scratch set, made if new. */
static uint32_t intern_set(Automaton *a)
{
    size_t len = a->words * 2;
    const uint32_t *key = (const uint32_t *)a->scratch;
    uint64_t h = hash_key(key, len);
    if (!a->sets_seeded)
        seed_sets(a);
    uint32_t s = table_get(&a->sets, key, len, h);
    if (s != STATE_NONE) {
        automaton_reach(a, s);
        return s;
    }
    if (a->nwritten && !a->own_bits)
        own_written(a);
    s = a->nstates++;
    a->nreached++; /* a state built is reached */
    a->own_bits = xgrow_items(a->own_bits, &a->own_bits_cap, (size_t)a->nstates * a->words,
                              sizeof *a->own_bits);
    memcpy(a->own_bits + (size_t)s * a->words, a->scratch, a->words * sizeof *a->own_bits);
    a->bits = a->own_bits;
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
        s = a->st ? automaton_table_step(a, sym) : STATE_NONE;
        if (s != STATE_NONE)
            automaton_reach(a, s);
        else {
            build_set(a, sym);
            s = intern_set(a);
        }
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
    if (!a->cache)
        a->cache = xcalloc((size_t)1 << STEP_CACHE_BITS, sizeof *a->cache);
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
    *n = a->acc_off[state + 1] - a->acc_off[state];
    return *n ? a->acc + a->acc_off[state] : NULL;
}

/* note [states reached]: what --stats calls the automaton's states are
 * those a run's steps reached, and its transitions the distinct steps
 * taken (the memo's keys).  An interpreted rule set builds exactly these,
 * as labelling reaches them; a compiled one holds more (note [compiled
 * states] in graft_rules.h) and counts those it reached, so both forms
 * print the same numbers on the same run. */
uint32_t automaton_nstates(const Automaton *a)
{
    return a->nreached;
}

uint32_t automaton_nbuilt(const Automaton *a)
{
    return a->nstates - a->nwritten;
}

uint32_t automaton_ntransitions(const Automaton *a)
{
    return (uint32_t)a->memo.count;
}
