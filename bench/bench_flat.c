/* bench_flat.c - issue 34's graph as arrays by field, built beside the
 * graph as a loader would build it, and graft's match measured on it
 * against a bare traversal of the same arrays (bench/RESULTS.md, "Session
 * 30: match on the graph as arrays").
 *
 * note [flat graph]: per 4-byte id a kind (1 byte), a labelling class (4
 * bytes: what the labeller would decide, stored by the loader) and the
 * index of the first operand in one array of operand ids (4 bytes; the
 * next id's first ends the list); ids in an order where every operand
 * comes before its user, so one pass in id order is a walk.  The graph as
 * loaded has that order when every operand's id is below its user's
 * (flat_build checks it); else the arrays take graph_topo_ids's order and
 * their ids are positions in it (FlatGraph.ids maps them back).  The
 * graph is not changed: the arrays are a copy that the bench's phases
 * read, and verifying reads the graph's nodes, as today's matcher does.
 */
#include <stdlib.h>
#include <string.h>

#include "bench_flat.h"

/* Whether every live node's operands have ids below its own. */
static bool ids_topological(const graft_graph *g)
{
    uint32_t count = graph_node_count(g);
    for (uint32_t id = 0; id < count; id++) {
        const graft_node *n = graph_node(g, id);
        if (node_is_dead(n))
            continue;
        for (int k = 0; k < node_nargs(n); k++)
            if (node_id(node_arg(n, k)) >= id)
                return false;
    }
    return true;
}

/* The order of the arrays: the ids as loaded (dead ones kept, as dead),
 * or graph_topo_ids's; their count. */
static uint32_t flat_order(FlatGraph *f, const graft_graph *g)
{
    uint32_t count = graph_node_count(g);
    f->ids = xmalloc(((size_t)count + 1) * sizeof *f->ids);
    f->by_id = ids_topological(g);
    if (!f->by_id)
        return graph_topo_ids(g, f->ids);
    for (uint32_t id = 0; id < count; id++)
        f->ids[id] = id;
    return count;
}

/* Fills the operands: node i's are args[first[i], first[i + 1]), each an
 * index into the arrays (pos: graft id -> index). */
static void flat_operands(FlatGraph *f, const graft_graph *g, const uint32_t *pos)
{
    size_t total = 0;
    for (uint32_t i = 0; i < f->n; i++) {
        const graft_node *n = graph_node(g, f->ids[i]);
        total += node_is_dead(n) ? 0 : (size_t)node_nargs(n);
    }
    f->args = xmalloc((total + 1) * sizeof *f->args);
    f->nargs = 0;
    for (uint32_t i = 0; i < f->n; i++) {
        const graft_node *n = graph_node(g, f->ids[i]);
        f->first[i] = f->nargs;
        if (node_is_dead(n))
            continue;
        for (int k = 0; k < node_nargs(n); k++) {
            uint32_t id = node_id(node_arg(n, k));
            f->args[f->nargs++] = pos ? pos[id] : id;
        }
    }
    f->first[f->n] = f->nargs;
}

void flat_build(FlatGraph *f, const graft_graph *g)
{
    memset(f, 0, sizeof *f);
    f->g = g;
    f->n = flat_order(f, g);
    f->kind = xmalloc((size_t)f->n + 1);
    f->cls = xmalloc(((size_t)f->n + 1) * sizeof *f->cls);
    f->first = xmalloc(((size_t)f->n + 1) * sizeof *f->first);
    for (uint32_t i = 0; i < f->n; i++) {
        const graft_node *n = graph_node(g, f->ids[i]);
        f->kind[i] = node_is_dead(n) ? FLAT_DEAD : (uint8_t)node_kind(n);
        f->cls[i] = LABEL_CLASS_NODE;
    }
    uint32_t *pos = NULL;
    if (!f->by_id) {
        pos = xmalloc(((size_t)graph_node_count(g) + 1) * sizeof *pos);
        for (uint32_t i = 0; i < f->n; i++)
            pos[f->ids[i]] = i;
    }
    flat_operands(f, g, pos);
    free(pos);
}

void flat_free(FlatGraph *f)
{
    free(f->ids);
    free(f->kind);
    free(f->cls);
    free(f->first);
    free(f->args);
    memset(f, 0, sizeof *f);
}

size_t flat_bytes(const FlatGraph *f)
{
    size_t per_id = sizeof *f->kind + sizeof *f->cls + sizeof *f->first;
    size_t bytes = (size_t)f->n * per_id + sizeof *f->first + (size_t)f->nargs * sizeof *f->args;
    return f->by_id ? bytes : bytes + (size_t)f->n * sizeof *f->ids;
}

void flat_classify(FlatGraph *f, Labels *l)
{
    for (uint32_t i = 0; i < f->n; i++)
        if (f->kind[i] != FLAT_DEAD)
            f->cls[i] = labels_node_class(l, graph_node(f->g, f->ids[i]));
}

uint64_t flat_traverse(const FlatGraph *f)
{
    uint64_t sum = 0;
    const uint8_t *kind = f->kind;
    const uint32_t *cls = f->cls, *first = f->first, *args = f->args;
    for (uint32_t i = 0; i < f->n; i++) {
        if (kind[i] == FLAT_DEAD)
            continue;
        sum += (uint64_t)kind[i] + cls[i];
        for (uint32_t k = first[i]; k < first[i + 1]; k++)
            sum += args[k];
    }
    return sum;
}

/* What the arrays' labelling loop keeps beside the arrays. */
typedef struct FlatLabeller {
    Labels *l;               /* the labeller: classes, tables, automaton */
    const uint32_t **tables; /* per class: its dense table, NULL until made */
    const uint8_t *offers;   /* per state: 2 when it offers a rule (LabelsHead) */
    uint32_t nclasses;       /* classes l holds */
    uint32_t opaque;         /* the opaque class, labelled without operands */
} FlatLabeller;

/* The state of id i where its dense entry does not answer: a dead id's
 * none, a node read as such (LABEL_CLASS_NODE), else the labeller's step
 * for its class, which may make the class's table (the opaque class's is
 * never read inline: its ids' operands are not its) or learn new states'
 * offers (so both are read again). */
static uint32_t flat_slow(const FlatGraph *f, FlatLabeller *fl, uint32_t i)
{
    uint32_t c = f->cls[i], a = f->first[i], s;
    if (f->kind[i] == FLAT_DEAD)
        return STATE_NONE;
    if (c == LABEL_CLASS_NODE) {
        s = labels_node(fl->l, graph_node(f->g, f->ids[i]));
    } else {
        bool opaque = c == fl->opaque;
        s = labels_class_step(fl->l, c, f->args + a, opaque ? 0 : f->first[i + 1] - a);
        if (!opaque)
            fl->tables[c] = labels_class_table(fl->l, c);
    }
    fl->offers = ((const LabelsHead *)(const void *)fl->l)->offers;
    return s;
}

/* The labelling loop: each id's state from its class's dense entry (note
 * [dense steps] in automaton_label_impl.h) read inline, else flat_slow;
 * the ids offering rules kept in offering (when not NULL: inlined into
 * flat_label's two calls with it constant).  Every state the labeller
 * gives was a step's, so its offer is known (note [offers known] in
 * automaton_label.c).  What stays the same is read into locals once:
 * the stores into state could otherwise alias it. */
GRAFT_HOT uint32_t flat_loop(const FlatGraph *f, FlatLabeller *fl, uint32_t *state,
                             uint32_t *offering)
{
    uint32_t kept = 0, n = f->n, nclasses = fl->nclasses;
    const uint32_t *cls = f->cls, *first = f->first, *args = f->args, **tables = fl->tables;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = cls[i], a = first[i], na = first[i + 1] - a, s = STATE_NONE;
        const uint32_t *table;
        if (c < nclasses && na <= 2 && (table = tables[c]) != NULL) {
            uint32_t s0 = na > 0 ? state[args[a]] : 0, s1 = na > 1 ? state[args[a + 1]] : 0;
            if (s0 < LABEL_DENSE && s1 < LABEL_DENSE)
                s = table[na == 0   ? 0
                          : na == 1 ? 1 + s0
                                    : 1 + LABEL_DENSE + s0 * LABEL_DENSE + s1];
        }
        if (s == STATE_NONE && (s = flat_slow(f, fl, i)) == STATE_NONE)
            continue; /* dead */
        state[i] = s;
        if (offering && fl->offers[s] == 2)
            offering[kept++] = i;
    }
    return kept;
}

/* flat_label's work, where the arrays' ids are the graph's.  Kept out of
 * line: inlined behind flat_label's test of that, GCC's loop took 1.8
 * instructions more an op node (855,648 -> 873,570 at 10^4 op nodes). */
__attribute__((noinline)) static uint32_t label_ids(const FlatGraph *f, Labels *l,
                                                   uint32_t nclasses, uint32_t *offering)
{
    FlatLabeller fl = {.l = l, .nclasses = nclasses, .opaque = labels_opaque_class(l)};
    fl.tables = xmalloc(((size_t)nclasses + 1) * sizeof *fl.tables);
    for (uint32_t c = 0; c < nclasses; c++)
        fl.tables[c] = c == fl.opaque ? NULL : labels_class_table(l, c);
    fl.offers = ((const LabelsHead *)(const void *)l)->offers;
    uint32_t *state = labels_state_array(l);
    uint32_t kept = offering ? flat_loop(f, &fl, state, offering) : flat_loop(f, &fl, state, NULL);
    free(fl.tables);
    return kept;
}

uint32_t flat_label(const FlatGraph *f, Labels *l, uint32_t nclasses, uint32_t *offering)
{
    /* the states are stored by graft id, read by the arrays' ids */
    return f->by_id ? label_ids(f, l, nclasses, offering) : 0;
}

/* Per rule: 1 when its state proves it (note [proven rules] in
 * src/runtime/match_check.c), decided once, so that counting the proven
 * candidates adds no call to verifying. */
static uint8_t *proven_rules(Matcher *m, uint32_t nrules)
{
    uint8_t *proves = xmalloc((size_t)nrules + 1);
    for (uint32_t r = 0; r < nrules; r++)
        proves[r] = matcher_state_proves(m, r);
    return proves;
}

FlatVerified flat_verify(const FlatGraph *f, Matcher *m, Automaton *a, const Labels *l,
                         const uint32_t *offering, uint32_t n)
{
    FlatVerified v = {0};
    uint32_t nrules = automaton_rules(a)->nrules;
    uint32_t *rules = xmalloc(((size_t)nrules + 1) * sizeof *rules);
    uint8_t *proves = proven_rules(m, nrules);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t nr, id = f->ids[offering[i]];
        const uint32_t *cand = automaton_state_rules(a, labels_state_id(l, id), &nr);
        if (nr == 0)
            continue;
        memcpy(rules, cand, nr * sizeof *rules);
        sort_u32(rules, nr, NULL, NULL); /* file order, as graft match reports */
        graft_node *root = graph_node(f->g, id);
        for (uint32_t k = 0; k < nr; k++) {
            v.candidates++;
            v.proven += proves[rules[k]];
            MatchCheck check = matcher_check(m, rules[k], root);
            if (check == CHECK_TRY) {
                v.tried++;
                v.matches += matcher_try(m, rules[k], root) == MATCH_OK;
            } else {
                v.checked += !proves[rules[k]];
                v.matches += check == CHECK_MATCHES;
            }
        }
    }
    free(proves);
    free(rules);
    return v;
}

uint32_t flat_states_differ(const FlatGraph *f, const Labels *flat, const Labels *walk)
{
    uint32_t differ = 0;
    for (uint32_t i = 0; i < f->n; i++)
        if (f->kind[i] != FLAT_DEAD)
            differ += labels_state_id(flat, f->ids[i]) != labels_state_id(walk, f->ids[i]);
    return differ;
}
