/* check_unify.c - can two patterns match the same node (note [unification]
 * in check_overlap.c), and the pairwise rule comparison that reports
 * shadowed rules and ambiguous overlaps. */
#include "check_impl.h"

#include <stdlib.h>
#include <string.h>

enum { PAIR_BUDGET = 2000000 };

static const AstNode *strip_bind(const AstNode *n)
{
    while (n->kind == AST_BIND)
        n = n->u.bind.operand;
    return n;
}

/* Merges the constraints on top of n into f; false on a contradiction. */
static bool merge_chain(Facts *f, const AstNode *n)
{
    char buf[160];
    while (n->kind == AST_CONSTRAIN || n->kind == AST_BIND) {
        if (n->kind == AST_BIND) {
            n = n->u.bind.operand;
            continue;
        }
        if (check_merge_facts(f, n, buf, sizeof buf))
            return false;
        n = n->u.constrain.operand;
    }
    return true;
}

/* The constraints of a can hold together with what b says (its kind and
 * its own constraints). */
static bool compatible(const AstNode *a, const AstNode *b)
{
    const AstNode *core = b;
    while (core->kind == AST_CONSTRAIN || core->kind == AST_BIND)
        core = core->kind == AST_BIND ? core->u.bind.operand : core->u.constrain.operand;
    Facts f = check_facts_of_kind(core);
    return merge_chain(&f, b) && merge_chain(&f, a);
}

static bool unify_args(const AstList *a, bool a_more, const AstList *b, bool b_more)
{
    if ((!a_more && b->count > a->count) || (!b_more && a->count > b->count))
        return false;
    int n = a->count < b->count ? a->count : b->count;
    for (int i = 0; i < n; i++)
        if (!check_may_unify(a->items[i], b->items[i]))
            return false;
    return true;
}

/* Attributes both sides constrain to literals must agree. */
static bool unify_attrs(const AstList *a, const AstList *b)
{
    for (int i = 0; i < a->count; i++)
        for (int j = 0; j < b->count; j++) {
            const AstNode *av = a->items[i]->u.attr.value, *bv = b->items[j]->u.attr.value;
            if (a->items[i]->u.attr.name == b->items[j]->u.attr.name && av && bv &&
                ast_is_literal(av) && ast_is_literal(bv) && !ast_literal_equal(av, bv))
                return false;
        }
    return true;
}

static bool unify_calls(const AstNode *a, const AstNode *b)
{
    const AstList *aa = &a->u.call.args, *ba = &b->u.call.args;
    if (a->u.call.op != b->u.call.op || !unify_attrs(&a->u.call.attrs, &b->u.call.attrs))
        return false;
    if (unify_args(aa, a->u.call.ellipsis, ba, b->u.call.ellipsis))
        return true;
    return a->u.call.op && opinfo_has_trait(a->u.call.op, TRAIT_COMMUTATIVE) &&
           aa->count == 2 && ba->count == 2 && check_may_unify(aa->items[0], ba->items[1]) &&
           check_may_unify(aa->items[1], ba->items[0]);
}

/* An op class against a call or class. */
static bool unify_class(const AstNode *cls, const AstNode *b)
{
    if (b->kind != AST_CALL && b->kind != AST_CLASS)
        return false;
    if (b->kind == AST_CALL && (!b->u.call.op ||
                                (b->u.call.op->traits & cls->u.call.traits) != cls->u.call.traits))
        return false;
    return unify_args(&cls->u.call.args, cls->u.call.ellipsis, &b->u.call.args,
                      b->u.call.ellipsis);
}

/* a is one of the "flexible" forms; b anything. */
static bool unify_flexible(const AstNode *a, const AstNode *b, bool *done)
{
    *done = true;
    switch (a->kind) {
    case AST_WILDCARD: case AST_VAR:
        return true;
    case AST_CONSTRAIN:
        return compatible(a, strip_bind(b)) && check_may_unify(a->u.constrain.operand, b);
    case AST_ALT:
        return check_may_unify(a->u.alt.left, b) || check_may_unify(a->u.alt.right, b);
    case AST_DOMINATES:
        return check_may_unify(a->u.dom.child, b);
    case AST_OPTIONAL: case AST_REPEAT: {
        const AstNode *p = a->u.call.args.items[0];
        if (check_may_unify(p, b) || b->kind == AST_OPTIONAL || b->kind == AST_REPEAT)
            return true;
        if (b->kind != AST_CALL || b->u.call.op != a->u.call.op || b->u.call.args.count != 1)
            return false;
        return check_may_unify(a->kind == AST_REPEAT ? a : p, b->u.call.args.items[0]);
    }
    default:
        *done = false;
        return false;
    }
}

bool check_may_unify(const AstNode *a, const AstNode *b)
{
    a = strip_bind(a);
    b = strip_bind(b);
    bool done;
    bool r = unify_flexible(a, b, &done);
    if (done)
        return r;
    r = unify_flexible(b, a, &done);
    if (done)
        return r;
    if (a->kind == AST_CLASS)
        return unify_class(a, b);
    if (b->kind == AST_CLASS)
        return unify_class(b, a);
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case AST_CALL:
        return unify_calls(a, b);
    case AST_TUPLE:
        return unify_args(&a->u.list.items, a->u.list.ellipsis, &b->u.list.items,
                          b->u.list.ellipsis);
    case AST_GETITEM:
        return a->u.item.index == b->u.item.index &&
               check_may_unify(a->u.item.base, b->u.item.base);
    case AST_NUMBER:
        return a->u.num.value == b->u.num.value;
    case AST_FNCALL:
        return unify_attrs(&a->u.call.attrs, &b->u.call.attrs) &&
               unify_args(&a->u.call.args, a->u.call.ellipsis, &b->u.call.args,
                          b->u.call.ellipsis);
    default:
        return false;
    }
}

/* ---- the pairwise comparison ---- */

/* Per rule: root key (bucket), action text, what was reported. */
typedef struct RuleInfo {
    const void *key;   /* root op / kind marker; NULL = could be any op */
    char *action;      /* canonical action text */
    bool shadowed;     /* -Wshadowed-rule reported */
    bool ambiguous;    /* -Wambiguous-overlap reported */
} RuleInfo;

static const void *root_key(const AstNode *p)
{
    static const char keys[AST_KIND_COUNT];
    while (p->kind == AST_BIND || p->kind == AST_CONSTRAIN)
        p = p->kind == AST_BIND ? p->u.bind.operand : p->u.constrain.operand;
    switch (p->kind) {
    case AST_CALL:
        return p->u.call.op;
    case AST_TUPLE: case AST_GETITEM: case AST_NUMBER: case AST_FNCALL:
        return &keys[p->kind];
    default:
        return NULL;
    }
}

static void report_shadow(CheckCtx *c, const AstRule *winner, const AstRule *loser)
{
    diag_warning(c->d, loser->src, loser->name_range, "shadowed-rule",
                 "rule '%s' can never fire: rule '%s' matches everything it matches and "
                 "wins (%s)", loser->name, winner->name,
                 winner->priority > loser->priority ? "higher priority" : "it comes first");
    diag_note(c->d, winner->src, winner->name_range, "rule '%s' is here", winner->name);
}

/* Compares rule i (earlier) with rule j (later). */
static void compare(CheckCtx *c, RuleInfo *info, int i, int j)
{
    const AstRule *a = c->rf->rules[i], *b = c->rf->rules[j];
    if (a->kind != b->kind || info[i].shadowed || info[j].shadowed)
        return;
    bool b_wins = b->priority > a->priority;
    const AstRule *w = b_wins ? b : a, *l = b_wins ? a : b;
    if (!w->guard && !w->once && check_subsumes(w, l)) {
        report_shadow(c, w, l);
        info[b_wins ? i : j].shadowed = true;
        return;
    }
    if (a->priority != b->priority || info[j].ambiguous ||
        strcmp(info[i].action, info[j].action) == 0 || check_subsumes(b, a) ||
        !check_may_unify(a->pattern, b->pattern))
        return;
    diag_warning(c->d, b->src, b->name_range, "ambiguous-overlap",
                 "rules '%s' and '%s' can match the same node with different actions; "
                 "'%s' wins because it comes first", a->name, b->name, a->name);
    diag_note(c->d, a->src, a->name_range, "rule '%s' is here", a->name);
    info[j].ambiguous = true;
}

/* Earlier rules with the same root key, by key (open addressing). */
typedef struct Bucket {
    const void *key; /* root key, NULL for a free slot */
    int *rules;      /* rule indices, increasing */
    size_t n;        /* entries used */
    size_t cap;      /* entries allocated */
} Bucket;

static void push_index(int **rules, size_t *n, size_t *cap, int r)
{
    xgrow((void **)rules, cap, *n + 1, sizeof(int));
    (*rules)[(*n)++] = r;
}

static Bucket *bucket_for(Bucket *table, size_t cap, const void *key)
{
    size_t s = (size_t)hash_bytes(&key, sizeof key, 3) & (cap - 1);
    while (table[s].key && table[s].key != key)
        s = (s + 1) & (cap - 1);
    table[s].key = key;
    return &table[s];
}

/* Compares rule j with the earlier rules of its bucket and the general
 * ones (both lists increasing, merged so order stays by index). */
static void compare_bucket(CheckCtx *c, RuleInfo *info, int j, const Bucket *bucket,
                           const int *general, size_t ngeneral, long *budget)
{
    size_t a = 0, g = 0, na = bucket ? bucket->n : 0;
    while ((a < na || g < ngeneral) && *budget > 0) {
        int i;
        if (g >= ngeneral || (a < na && bucket->rules[a] < general[g]))
            i = bucket->rules[a++];
        else
            i = general[g++];
        (*budget)--;
        compare(c, info, i, j);
    }
}

void check_overlaps(CheckCtx *c)
{
    int n = c->rf->nrules;
    RuleInfo *info = xcalloc((size_t)n + 1, sizeof(RuleInfo));
    size_t cap = 16;
    while (cap < 2 * (size_t)n + 2)
        cap *= 2;
    Bucket *table = xcalloc(cap, sizeof(Bucket));
    int *general = NULL, *all = NULL;
    size_t ngeneral = 0, general_cap = 0, nall = 0, all_cap = 0;
    long budget = PAIR_BUDGET;
    for (int j = 0; j < n; j++) {
        StrBuf sb = {0};
        ast_print_node(&sb, c->rf->rules[j]->action);
        info[j].action = sb.data;
        info[j].key = root_key(c->rf->rules[j]->pattern);
        if (!info[j].key) {
            Bucket everything = {NULL, all, nall, all_cap};
            compare_bucket(c, info, j, &everything, NULL, 0, &budget);
            push_index(&general, &ngeneral, &general_cap, j);
        } else {
            Bucket *b = bucket_for(table, cap, info[j].key);
            compare_bucket(c, info, j, b, general, ngeneral, &budget);
            push_index(&b->rules, &b->n, &b->cap, j);
        }
        push_index(&all, &nall, &all_cap, j);
    }
    for (size_t i = 0; i < cap; i++)
        free(table[i].rules);
    for (int r = 0; r < n; r++)
        free(info[r].action);
    free(table);
    free(general);
    free(all);
    free(info);
}
