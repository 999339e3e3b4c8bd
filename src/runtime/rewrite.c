/* rewrite.c - rewriting to a fixpoint.
 *
 * note [rewrite rounds]: a round visits every live node in topological
 * order (operands first), relabels it from its operands' current states
 * and tries the rewrite rules the state offers, best first; the first
 * that matches (pattern, guard, interior-use rule, [once]) is applied:
 * its action is built and replaces the node.  Nodes after it in the order
 * are its users, relabelled when their turn comes, so a chain of rewrites
 * upwards completes in one round; what a rewrite enables below the node
 * waits for the next round.  Garbage made by a rewrite (the old node and
 * what only it used) lies below the node, already visited, and is swept at
 * the end of the round.  Rounds repeat until one changes nothing, or
 * until the bound on rewrites is reached: then the rules that fired in the
 * last round are reported as the ones that keep firing.
 */
#include "engine_impl.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ---- where [once] rules applied ---- */

static uint64_t pair_key(const Node *n, uint32_t r)
{
    return ((uint64_t)node_id(n) << 32 | r) + 1;
}

static bool once_has(const PairSet *s, uint64_t k)
{
    if (!s->cap)
        return false;
    for (size_t j = hash_mix(7, k) & (s->cap - 1); s->keys[j]; j = (j + 1) & (s->cap - 1))
        if (s->keys[j] == k)
            return true;
    return false;
}

static void once_add(PairSet *s, uint64_t k)
{
    if ((s->count + 1) * 2 > s->cap) {
        PairSet old = *s;
        s->cap = old.cap ? old.cap * 2 : 64;
        s->keys = xcalloc(s->cap, sizeof *s->keys);
        s->count = 0;
        for (size_t i = 0; i < old.cap; i++)
            if (old.keys[i])
                once_add(s, old.keys[i]);
        free(old.keys);
    }
    size_t j = hash_mix(7, k) & (s->cap - 1);
    while (s->keys[j] && s->keys[j] != k)
        j = (j + 1) & (s->cap - 1);
    if (!s->keys[j]) {
        s->keys[j] = k;
        s->count++;
    }
}

/* A [once] rule never applies at a node it built or already rewrote. */
static bool once_refuses(const Engine *e, uint32_t r, const Node *root)
{
    uint32_t id = node_id(root);
    if (id < e->norigin && e->origin[id] == r + 1)
        return true;
    return once_has(&e->once, pair_key(root, r));
}

/* ---- trace ---- */

static void describe(FILE *out, const Node *n)
{
    switch (node_kind(n)) {
    case NODE_CALL:
        fprintf(out, "#%u %s", node_id(n), node_op(n) ? node_op(n) : "call");
        break;
    case NODE_VAR:
        fprintf(out, "%%%s", node_name(n));
        break;
    case NODE_CONST:
        fprintf(out, "%s", node_const_text(n));
        break;
    case NODE_TUPLE:
        fprintf(out, "#%u tuple", node_id(n));
        break;
    case NODE_GETITEM:
        fprintf(out, "#%u .%d", node_id(n), node_index(n));
        break;
    case NODE_FUNC:
        fprintf(out, "#%u fn", node_id(n));
        break;
    case NODE_GLOBAL:
        fprintf(out, "@%s", node_name(n));
        break;
    case NODE_OPREF:
        fprintf(out, "%s", node_name(n));
        break;
    case NODE_LET:
    case NODE_IF:
    case NODE_MATCH:
        fprintf(out, "#%u %s", node_id(n), node_kind(n) == NODE_LET ? "let"
                                           : node_kind(n) == NODE_IF ? "if" : "match");
        break;
    }
}

static void trace(const Engine *e, const RuleDesc *rule, const Node *root, const Node *by)
{
    FILE *out = e->opts.trace;
    fprintf(out, "rewrite %s (%s:%d): ", rule->name, rule->file, rule->line);
    describe(out, root);
    fputs(" => ", out);
    describe(out, by);
    fputc('\n', out);
}

/* ---- one root ---- */

/* Counts a failed verification by its reason. */
static void count_failure(RuleStats *st, MatchResult res)
{
    if (res == MATCH_GUARD)
        st->guard++;
    else if (res == MATCH_BUDGET)
        st->budget++;
}

/* A slot of a node the action made that reads the matched root. */
typedef struct RootUse {
    Node *user; /* a node made by the action */
    int index;  /* its operand slot that reads the root */
} RootUse;

/* Moves the uses of root over to by, except the uses by the nodes the
 * action just made (ids from first_new on): in "y => exp(subtract(y, y))"
 * the new subtract must keep reading the old y, or the rewrite makes a
 * cycle (found by fuzz/fuzz_pipeline; tests/check_hostile.c). */
static void replace_root(Graph *g, Node *root, Node *by, uint32_t first_new)
{
    RootUse *keep = NULL;
    size_t nkeep = 0, cap = 0;
    for (uint32_t id = first_new; id < graph_node_count(g); id++) {
        Node *n = graph_node(g, id);
        for (int i = 0; i < node_nargs(n); i++)
            if (n != by && node_arg(n, i) == root) {
                xgrow((void **)&keep, &cap, nkeep + 1, sizeof(RootUse));
                keep[nkeep++] = (RootUse){n, i};
            }
    }
    graph_replace_all_uses(g, root, by);
    for (size_t k = 0; k < nkeep; k++)
        graph_set_arg(g, keep[k].user, keep[k].index, root);
    free(keep);
}

/* Verifies rule r at root and, when every policy allows, rewrites. */
static bool try_rule(Engine *e, uint32_t r, Node *root)
{
    const RuleDesc *rule = &e->rs->rules[r];
    RuleStats *st = &e->stats.rules[r];
    st->tried++;
    MatchResult res = matcher_try(e->m, r, root);
    if (res != MATCH_OK) {
        count_failure(st, res);
        return false;
    }
    st->matched++;
    uint32_t npairs;
    const MatchPair *pairs = matcher_pairs(e->m, &npairs);
    if (rule->once && once_refuses(e, r, root)) {
        st->once++;
        return false;
    }
    if (engine_interior_escapes(e, root, pairs, npairs)) {
        st->interior++;
        return false;
    }
    uint32_t first_new = graph_node_count(e->g);
    Node *by = rewrite_build(e, rule, r, matcher_bindings(e->m), root);
    if (by == root)
        return false;
    replace_root(e->g, root, by, first_new);
    if (rule->once)
        once_add(&e->once, pair_key(root, r));
    if (e->opts.trace)
        trace(e, rule, root, by);
    st->applied++;
    e->stats.rewrites++;
    return true;
}

/* Tries the rewrite rules the root's state offers, best first; returns
 * the rule applied, or UINT32_MAX. */
static uint32_t rewrite_root(Engine *e, Node *root)
{
    uint32_t n;
    const uint32_t *cand = automaton_state_rules(e->a, labels_state(e->labels, root), &n);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t r = cand[k];
        if (e->rs->rules[r].kind != ACTION_REWRITE)
            continue;
        double t0 = engine_now();
        bool done = try_rule(e, r, root);
        e->stats.rules[r].seconds += engine_now() - t0;
        if (done)
            return r;
    }
    return UINT32_MAX;
}

/* ---- rounds ---- */

static bool has_rewrite_rules(const RuleSet *rs)
{
    for (uint32_t i = 0; i < rs->nrules; i++)
        if (rs->rules[i].kind == ACTION_REWRITE)
            return true;
    return false;
}

/* One round (note [rewrite rounds]); fired counts per rule.  Stops early
 * once total rewrites exceed limit. */
static uint64_t rewrite_round(Engine *e, uint64_t *fired, uint64_t limit)
{
    uint32_t n = engine_order(e);
    uint64_t applied = 0;
    for (uint32_t i = 0; i < n && e->stats.rewrites <= limit; i++) {
        Node *x = e->order[i];
        labels_node(e->labels, x);
        e->stats.labelled++;
        uint32_t r = rewrite_root(e, x);
        if (r != UINT32_MAX) {
            fired[r]++;
            applied++;
        }
    }
    graph_remove_dead(e->g);
    e->stats.rounds++;
    return applied;
}

/* bound says what ran out, "1040 rewrites" or "12 rounds (...)", and
 * limit the limit that sets it (limit.h). */
static void report_no_fixpoint(const Engine *e, const uint64_t *fired, const char *bound,
                               const char *limit, Diag *d)
{
    StrBuf sb = {0};
    for (uint32_t r = 0; r < e->rs->nrules; r++)
        if (fired[r])
            strbuf_printf(&sb, "%s%s (%s:%d, %llu times in the last round)",
                          sb.len ? ", " : "", e->rs->rules[r].name, e->rs->rules[r].file,
                          e->rs->rules[r].line, (unsigned long long)fired[r]);
    diag_plain_error(d, "rewriting did not reach a fixpoint within %s; "
                     "rules still firing: %s [--limit %s]", bound,
                     sb.data ? sb.data : "none", limit);
    strbuf_free(&sb);
}

/* a * b, or UINT64_MAX when that overflows. */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static uint64_t default_limit(Engine *e)
{
    return 10 * (uint64_t)engine_order(e) + 1000;
}

/* note [rewrite work bound]: every round labels the whole graph, so a
 * rule set that never stops but fires only a few times a round would take
 * (rewrite bound) rounds of (graph size) labellings each: quadratic in the
 * model (a 100,000-node chain with one ever-growing constant ran for
 * minutes; found by fuzz/fuzz_pipeline).  Rewriting therefore also stops
 * after round-factor * (1 + rewrite bound / nodes) rounds (limit.h, 16
 * by default), which keeps the work near round-factor * (nodes + rewrite
 * bound)
 * labellings, proportional to the input.  On small graphs the rewrite bound
 * is reached first (every round but the last rewrites something); a rule
 * set that terminates needs far fewer rounds (a round rewrites every
 * match). */
bool engine_rewrite(Engine *e, Diag *d)
{
    if (!has_rewrite_rules(e->rs))
        return true;
    uint64_t limit = e->opts.max_rewrites  ? e->opts.max_rewrites
                     : e->limits->rewrites ? e->limits->rewrites
                                           : default_limit(e);
    uint64_t nodes = engine_order(e) ? engine_order(e) : 1;
    uint64_t max_rounds = mul_sat(e->limits->round_factor, 1 + limit / nodes);
    uint64_t *fired = xcalloc(e->rs->nrules + 1, sizeof *fired);
    bool ok = true;
    for (;;) {
        memset(fired, 0, (e->rs->nrules + 1) * sizeof *fired);
        if (rewrite_round(e, fired, limit) == 0)
            break;
        char bound[96];
        const char *which = "rewrites";
        if (e->stats.rewrites > limit)
            snprintf(bound, sizeof bound, "%llu rewrites", (unsigned long long)limit);
        else if (e->stats.rounds >= max_rounds) {
            snprintf(bound, sizeof bound, "%llu rounds (%llu * (1 + rewrite bound / nodes))",
                     (unsigned long long)e->stats.rounds,
                     (unsigned long long)e->limits->round_factor);
            which = "round-factor";
        } else
            continue;
        report_no_fixpoint(e, fired, bound, which, d);
        ok = false;
        break;
    }
    free(fired);
    return ok;
}
