/* match_direct.c - trying a rule that only its guard can refuse straight
 * down its pattern, before the goal machine (note [direct try]). */
#include "match_impl.h"

/* note [direct try]: the goal machine (note [goal machine] in match.c)
 * takes at every pattern node the first way that fits and pushes a
 * choice point when a later one fits too; a try that meets no failure
 * ends with the first ways' pairs and bindings, its choice points never
 * read, its trail never unwound.  A rule that only its guard can refuse
 * where its state offers it (each variable bound once, no repeated op,
 * dominator or scope: note [proven rules] in match_check.c, the guard
 * aside) meets no failure but the guard's.  So matcher_try first walks
 * such a rule's pattern straight down, in the goals' order (depth first,
 * operands left to right, a variadic pattern's tail pair after its
 * operands), taking the first way that fits, with one stack of pattern
 * nodes: no goal pool, choice points or trail.  Every test the goal
 * machine makes on the way is made too (an operand's item asked by the
 * way above it is not asked again), and anything failing (an item not in
 * a state where the labels are not current, a variable bound twice) hands
 * the try to the goal machine from the start, which finds what it would
 * have found alone; so does a guard refusing where some node had a later
 * way fitting.  A guard refusing where none had is the goal machine's
 * MATCH_GUARD, with nothing to backtrack to.  The steps stay under the
 * limit: the rule's bound (one per pattern part and tail pair, and the
 * last) is at most the limit, or the goal machine tries it.  Each
 * grouper's candidate (group.c) is tried so. */

/* note [direct line]: most rules the direct try takes are ops and leaves
 * (gamma*(x-mean)/sqrt(var+eps:const)+beta, a conv and its bias, an
 * element of a batch norm): a pattern whose every node has one way but
 * a commutative op's two orders, so the goals the try pops come in the
 * pattern's pre-order whatever the graph, and only which operand a step
 * reads depends on the orders its ops took.  Such a rule's line, made
 * once, lists its pattern nodes in that order, each with the step whose
 * node's operand it matches; a try is then one loop down the line, each
 * node found from its parent's as the stack of goals would have handed
 * it out, its pair stored at its step's index.  The tests, bindings and
 * pairs are the stack's, in the same order (the pair of a leaf an op
 * takes at once too: it is the next in pre-order; where an operand's
 * item is asked, note [asks where they fail]); what goes is the
 * goals pushed and popped and each node's kind asked again (matcher_direct
 * 1,424 -> 1,015 instructions a batch norm's try on the workload).
 * Alternatives, tails, tuples and calls of functions keep the stack. */

/* note [asks where they fail]: the goal machine asks an op's operands'
 * items where it chooses the op's operand order; an op of one order has
 * nothing to choose, and a line fails as a whole whichever ask fails
 * first (the goal machine then tries the rule from the start).  So on a
 * line only a commutative op's step asks its operands' items (both
 * orders may be wanted, and which fits decides the swap); an operand of
 * any other op asks its own item at its own step, where its node is
 * found already, without the op's loop over its operands (line_try
 * 873 -> 792 instructions a batch norm's try on the workload). */

/* Whether a pattern node of p's kind may be on a line: a leaf, an
 * element access, an op of a fixed number of operands. */
static bool line_kind(const Matcher *m, const graft_pat *p)
{
    switch (p->kind) {
    case GRAFT_PAT_ANY: return p->nkids == 0;
    case GRAFT_PAT_GETITEM: return p->nkids == 1;
    case GRAFT_PAT_OP: return !m->rs->items[p->item].variadic;
    default: return false;
    }
}

/* Makes rule r's line (note [direct line]), or none when a node of its
 * pattern keeps the stack. */
static void line_make(Matcher *m, uint32_t r)
{
    DirectLine *dl = &m->lines[r];
    LineStep *steps = xmalloc(LINE_MAX * sizeof *steps);
    WALK(LineStep) todo = {0};
    walk_push(&todo, ((LineStep){.pat = m->rs->rules[r].pattern, .ask = true}));
    uint32_t n = 0;
    bool fits = true;
    while (todo.depth && fits) {
        LineStep s = walk_pop(&todo);
        const graft_pat *p = s.pat;
        if (!(fits = n < LINE_MAX && line_kind(m, p)))
            break;
        s.binds = p->callee > 0 || p->nbinds > 0 ? LINE_BINDS : p->slot >= 0 ? LINE_SLOT : 0;
        /* an op of one order leaves its operands' asks to their steps
         * (note [asks where they fail]) */
        s.ways = p->kind == GRAFT_PAT_OP && nways(m, p) == 2 ? 2 : 0;
        s.word = p->item / 64;
        s.bit = (uint64_t)1 << (p->item % 64);
        for (int k = 0; s.ways && k < 2; k++) { /* nways: two operands */
            s.kid_word[k] = p->kids[k]->item / 64;
            s.kid_bit[k] = (uint64_t)1 << (p->kids[k]->item % 64);
        }
        steps[n] = s;
        walk_reserve(&todo, (size_t)p->nkids);
        for (int k = p->nkids - 1; k >= 0; k--)
            walk_push_reserved(&todo, ((LineStep){.pat = p->kids[k], .parent = n, .k = (uint8_t)k,
                                                   .ask = !s.ways}));
        n++;
    }
    walk_free(&todo);
    if (!fits) {
        free(steps);
        return;
    }
    dl->steps = steps;
    dl->n = n;
}

void matcher_lines_free(Matcher *m)
{
    for (uint32_t r = 0; m->lines && r < m->rs->nrules; r++)
        free(m->lines[r].steps);
    free(m->lines);
}

void matcher_direct_learn(Matcher *m, uint32_t r)
{
    const graft_rule *rule = &m->rs->rules[r];
    bool guarded = rule->guard || rule->guard_fn;
    m->direct[r] = guarded ? matcher_linear_steps(rule) : m->proof[r];
    if (m->direct[r])
        line_make(m, r);
}

/* has, with the bits read inline from the sets taken as the try began:
 * no state is built during a try, and a stored state is one of them
 * (STATE_NONE aside). */
static inline bool direct_has(const Matcher *m, const graft_node *n, uint32_t item)
{
    uint32_t s = labels_state(m->labels, n);
    return s != STATE_NONE && (m->sets[s * m->set_words + item / 64] >> (item % 64)) & 1;
}

/* pattern_operand, inline for the nodes that are no functions. */
static inline graft_node *operand(const graft_node *n, int i)
{
    return node_kind(n) == NODE_FUNC ? pattern_operand(n, i) : node_arg(n, i);
}

static inline void add_pair(Matcher *m, const graft_pat *p, graft_node *n, bool tail)
{
    vec_push(&m->pairs, ((MatchPair){p, n, tail}));
}

/* Binds p's slots at n as bind_all does; false when one is bound before
 * (the goal machine then decides whether it holds the same). */
GRAFT_HOT bool direct_bind(Matcher *m, const graft_pat *p, graft_node *n)
{
    if (p->callee > 0) {
        if (m->b[p->callee - 1].node)
            return false;
        m->b[p->callee - 1].node = n;
    }
    if (p->slot >= 0) {
        if (m->b[p->slot].node)
            return false;
        m->b[p->slot].node = n;
    }
    for (int i = 0; i < p->nbinds; i++) {
        const graft_attr_bind *ab = &p->binds[i];
        graft_binding *b = &m->b[ab->slot];
        if (b->attr || b->node)
            return false;
        b->attr = ab->name ? node_find_attr(n, ab->name) : matcher_index_value(m, n);
        if (!b->attr)
            b->attr = ab->dflt;
    }
    return true;
}

/* Whether p's operand items are in the states of n's operands, in the
 * order swap says (kids_fit). */
static inline bool operands_fit(const Matcher *m, const graft_pat *p, const graft_node *n,
                                bool swap)
{
    for (int k = 0; k < p->nkids; k++)
        if (!direct_has(m, operand(n, swap ? swapped[k] : k), p->kids[k]->item))
            return false;
    return true;
}

/* An alternative: its first choice whose item n's state holds, its goal
 * pushed; *open set when a later one holds too (open NULL: not asked). */
static bool direct_alt(Matcher *m, const graft_pat *p, graft_node *n, bool *open)
{
    int w = 0;
    while (w < p->nkids && !direct_has(m, n, p->kids[w]->item))
        w++;
    if (w == p->nkids)
        return false;
    for (int later = w + 1; open && !*open && later < p->nkids; later++)
        *open = direct_has(m, n, p->kids[later]->item);
    walk_push(&m->line, ((DirectGoal){p->kids[w], n, true, false}));
    return true;
}

/* A leaf (GRAFT_PAT_ANY) at n, its item known: bound, its pair. */
GRAFT_HOT bool direct_leaf(Matcher *m, const graft_pat *p, graft_node *n)
{
    if ((p->slot >= 0 || p->callee > 0 || p->nbinds > 0) && !direct_bind(m, p, n))
        return false;
    add_pair(m, p, n, false);
    return true;
}

/* A node with operands (GRAFT_PAT_OP, GRAFT_PAT_FNCALL, GRAFT_PAT_TUPLE,
 * GRAFT_PAT_CALL): an op's first operand order that fits (its operands'
 * items then known), its pair, the goals of its operands and the tail's.
 * An op's first operands that are leaves would be the next goals popped,
 * in order: they are taken here instead (gamma*(x-mean)/sqrt(var+eps:const)
 * +beta: five of its six leaves, a push and a pop each spared). */
static bool direct_call(Matcher *m, const graft_pat *p, graft_node *n, bool *open)
{
    bool op = p->kind == GRAFT_PAT_OP, swap = false;
    if (op && !operands_fit(m, p, n, false)) {
        if (nways(m, p) == 1 || !operands_fit(m, p, n, true))
            return false;
        swap = true;
    } else if (op && open && !*open && nways(m, p) == 2)
        *open = operands_fit(m, p, n, true);
    add_pair(m, p, n, false);
    walk_reserve(&m->line, (size_t)p->nkids + 1);
    if (m->rs->items[p->item].variadic && pattern_noperands(n) > p->nkids)
        walk_push_reserved(&m->line, ((DirectGoal){p, n, false, true}));
    int lead = 0;
    for (; op && lead < p->nkids && p->kids[lead]->kind == GRAFT_PAT_ANY; lead++)
        if (!direct_leaf(m, p->kids[lead], operand(n, swap ? swapped[lead] : lead)))
            return false;
    for (int k = p->nkids - 1; k >= lead; k--) {
        graft_node *o = operand(n, swap ? swapped[k] : k);
        walk_push_reserved(&m->line, ((DirectGoal){p->kids[k], o, op, false}));
    }
    return true;
}

/* One pattern node: step's tests, then its first way as try_ways takes
 * it; false when something fails.  *open is set when a later way fits
 * too (open NULL: not asked, the rule has no guard to refuse). */
static bool direct_step(Matcher *m, DirectGoal g, bool *open)
{
    const graft_pat *p = g.pat;
    if (g.tail) {
        add_pair(m, p, g.node, true);
        return true;
    }
    if (!g.known && !direct_has(m, g.node, p->item))
        return false;
    if (p->kind == GRAFT_PAT_ANY)
        return direct_leaf(m, p, g.node);
    if ((p->slot >= 0 || p->callee > 0 || p->nbinds > 0) && !direct_bind(m, p, g.node))
        return false;
    switch (p->kind) {
    case GRAFT_PAT_ALT:
        return direct_alt(m, p, g.node, open);
    case GRAFT_PAT_GETITEM:
        add_pair(m, p, g.node, false);
        walk_push(&m->line, ((DirectGoal){p->kids[0], node_arg(g.node, 0), false, false}));
        return true;
    default: /* the kinds with operands matcher_linear_steps allows */
        return direct_call(m, p, g.node, open);
    }
}

/* The states and their item sets as a try down a line reads them, in
 * locals: the stores of the pairs and bindings would make the compiler
 * read the matcher's and the labels' fields again at every ask. */
typedef struct LineView {
    LabelStates st;       /* the labels' states (automaton.h) */
    const uint64_t *sets; /* the states' item sets, words a set each */
    size_t words;
} LineView;

/* note [line asks]: a step's asks read their items' words and bits from
 * the step, worked out when the line was made (its own item's, and a
 * commutative op's two operands'), where direct_has divides the item
 * read from the pattern node, and a commutative op's order is asked of
 * its two operands without a loop over the pattern's (line_try 746 ->
 * 693 instructions a batch norm's try on the workload). */

/* direct_has, read through the view, of the item whose word and bit in
 * a state's item set are word and bit (note [line asks]). */
static inline bool view_has(const LineView *v, const graft_node *n, uint32_t word, uint64_t bit)
{
    uint32_t id = node_id(n), st = id < v->st.cap ? v->st.state[id] : STATE_NONE;
    return st != STATE_NONE && (v->sets[st * v->words + word] & bit);
}

/* operands_fit, read through the view, at a commutative op's step s (note
 * [line nodes]): its two operands, swapped or not. */
static inline bool view_fit(const LineView *v, const LineStep *s, const graft_node *n, bool swap)
{
    return view_has(v, node_arg(n, swap), s->kid_word[0], s->kid_bit[0]) &&
           view_has(v, node_arg(n, !swap), s->kid_word[1], s->kid_bit[1]);
}

/* A commutative op's first operand order that fits at n, in *swap, as
 * direct_call takes it; *open set as there. */
static inline bool line_order(const LineView *v, const LineStep *s, const graft_node *n,
                              uint8_t *swap, bool *open)
{
    if (!view_fit(v, s, n, false)) {
        if (!view_fit(v, s, n, true))
            return false;
        *swap = 1;
    } else if (open && !*open)
        *open = view_fit(v, s, n, true);
    return true;
}

/* note [line binds once]: a rule has a line only when its direct try is
 * known (matcher_direct_learn), and matcher_linear_steps, which both of
 * its ways ask, admits no slot bound by two pattern nodes; the bindings
 * are all empty when a try begins (reset in match.c).  So a step binding
 * its slot alone (direct_bind's common case) finds it empty, and stores
 * without asking (line_try 12 instructions less a batch norm's try on
 * the workload, six leaves). */

/* note [line nodes]: a line's parent steps are ops and element
 * accesses, and a step's node is read only after its item was asked
 * (at its own step, or at its commutative parent's).  A node in a
 * state holding an op's or an element access's item was a call of that
 * op or an element access when labelled, stale labels or not, and a
 * node's kind never changes: so no node a line reads operands of is a
 * function, and its operands are its arguments (node_arg, not
 * operand's test of the kind). */

/* The direct try down rule's line (note [direct line]): false when
 * something fails. */
static bool line_try(Matcher *m, const DirectLine *dl, graft_node *root, bool *open)
{
    graft_node *at[LINE_MAX];
    uint8_t swap[LINE_MAX];
    const LineView v = {*(const LabelStates *)(const void *)m->labels, m->sets, m->set_words};
    vec_reserve(&m->pairs, dl->n);
    MatchPair *pairs = m->pairs.items;
    for (uint32_t i = 0; i < dl->n; i++) {
        const LineStep *s = &dl->steps[i];
        const graft_pat *p = s->pat;
        graft_node *n = i ? node_arg(at[s->parent], s->k ^ swap[s->parent]) : root;
        if (s->ask && !view_has(&v, n, s->word, s->bit))
            return false;
        if (s->binds == LINE_SLOT) /* note [line binds once] */
            m->b[p->slot].node = n;
        else if (s->binds && !direct_bind(m, p, n))
            return false;
        at[i] = n;
        swap[i] = 0;
        pairs[i] = (MatchPair){p, n, false};
        if (s->ways && !line_order(&v, s, n, &swap[i], open))
            return false;
    }
    m->pairs.len = dl->n;
    m->lined = true;
    return true;
}

/* The direct try down the stack of goals: false when something fails. */
static bool stack_try(Matcher *m, const graft_rule *rule, graft_node *root, bool *open)
{
    walk_clear(&m->line);
    walk_push(&m->line, ((DirectGoal){rule->pattern, root, false, false}));
    while (m->line.depth)
        if (!direct_step(m, walk_pop(&m->line), open))
            return false;
    return true;
}

bool matcher_direct(Matcher *m, uint32_t r, graft_node *root, MatchResult *res)
{
    const graft_rule *rule = &m->rs->rules[r];
    bool guarded = rule->guard || rule->guard_fn, open = false;
    m->sets = automaton_state_sets(m->a, &m->set_words);
    const DirectLine *dl = &m->lines[r];
    if (!(dl->n ? line_try(m, dl, root, guarded ? &open : NULL)
                : stack_try(m, rule, root, guarded ? &open : NULL)))
        return false;
    if (!guarded || matcher_guard_ok(m, rule)) {
        *res = MATCH_OK;
        return true;
    }
    *res = MATCH_GUARD;
    return !open;
}
