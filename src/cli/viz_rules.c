/* viz_rules.c - rule matches as viz highlights (viz_rules.h). */
#include "viz_rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automaton.h"
#include "match.h"
#include "util.h"

/* What the search needs: the automaton, node labels and a matcher. */
typedef struct Search {
    const graft_rule_set *rs;  /* rules searched */
    Automaton *a;       /* their automaton */
    Labels *labels;     /* automaton states of the graph's nodes */
    Matcher *m;         /* confirms a rule at a node */
    uint32_t *count;    /* matches so far, per rule */
    uint32_t *rules;    /* scratch: candidate rules in file order */
    uint64_t max_marks; /* viz-marks: (match, node) pairs allowed in all */
} Search;

/* The matched nodes of the matcher's last match, leaves left out; false
 * (nothing added) when they would take out past the viz-marks bound.
 * They are counted before anything is allocated, so a refused match
 * costs no memory. */
static bool add_highlight(Search *s, uint32_t r, VizMatches *out)
{
    uint32_t npairs;
    const MatchPair *pairs = matcher_pairs(s->m, &npairs);
    size_t n = 0;
    for (uint32_t i = 0; i < npairs; i++)
        n += pairs[i].pat->kind != GRAFT_PAT_ANY && !pairs[i].tail;
    if (n > s->max_marks - out->marks)
        return false;
    uint32_t *ids = xmalloc((n ? n : 1) * sizeof(uint32_t));
    for (uint32_t i = 0, k = 0; i < npairs; i++)
        if (pairs[i].pat->kind != GRAFT_PAT_ANY && !pairs[i].tail)
            ids[k++] = node_id(pairs[i].node);
    StrBuf label = {0};
    strbuf_printf(&label, "%s #%u", s->rs->rules[r].name, ++s->count[r]);
    vec_push(&out->h, ((VizHighlight){ids, n, label.data, NULL}));
    out->marks += n;
    return true;
}

/* The candidate rules at n, confirmed one by one in file order; false as
 * soon as a match does not fit under the viz-marks bound. */
static bool search_node(Search *s, graft_node *n, VizMatches *out)
{
    uint32_t nr;
    const uint32_t *cand = automaton_state_rules(s->a, labels_state(s->labels, n), &nr);
    if (nr) /* cand may be NULL then, which memcpy must not see */
        memcpy(s->rules, cand, nr * sizeof *s->rules);
    sort_u32(s->rules, nr, NULL, NULL); /* file order */
    for (uint32_t k = 0; k < nr; k++)
        if (matcher_try(s->m, s->rules[k], n) == MATCH_OK &&
            !add_highlight(s, s->rules[k], out))
            return false;
    return true;
}

/* Labels every node with the rules' automaton, then confirms the
 * candidate rules at each node in graph order, as graft match does,
 * until the viz-marks bound stops it. */
static bool search_graph(Search *s, const graft_graph *g, VizMatches *out)
{
    uint32_t count = graph_node_count(g);
    graft_node **order = xmalloc((count ? count : 1) * sizeof(graft_node *));
    uint32_t len = graph_topo_order(g, order);
    for (uint32_t i = 0; i < len; i++)
        labels_node(s->labels, order[i]);
    bool ok = true;
    for (uint32_t i = 0; i < len && ok; i++)
        ok = search_node(s, order[i], out);
    free(order);
    return ok;
}

bool viz_find_matches(const graft_rule_set *rs, const graft_graph *g, const graft_limits *limits,
                      VizMatches *out, graft_diag *d)
{
    *out = (VizMatches){0};
    return viz_find_more(rs, g, limits, out, d);
}

bool viz_find_more(const graft_rule_set *rs, const graft_graph *g, const graft_limits *limits,
                   VizMatches *out, graft_diag *d)
{
    limits = limit_or_default(limits);
    if (!out->count)
        out->count = xcalloc(rs->nrules + 1, sizeof(uint32_t));
    Search s = {rs, automaton_new(rs), NULL, NULL, out->count,
                xmalloc((rs->nrules + 1) * sizeof(uint32_t)), limits->viz_marks};
    s.labels = labels_new(s.a, g);
    s.m = matcher_new(s.labels, g);
    matcher_set_max_steps(s.m, limits->match_steps);
    bool ok = search_graph(&s, g, out);
    if (!ok)
        diag_plain_error(d, "the matches of the rules mark more than %llu nodes in the "
                         "drawing; draw fewer rules or a smaller model [--limit viz-marks]",
                         (unsigned long long)limits->viz_marks);
    free(s.rules);
    matcher_free(s.m);
    labels_free(s.labels);
    automaton_free(s.a);
    return ok;
}

void viz_matches_free(VizMatches *vm)
{
    for (size_t i = 0; i < vm->h.len; i++) {
        free((void *)vm->h.items[i].nodes);
        free((void *)vm->h.items[i].label);
    }
    vec_free(&vm->h);
    free(vm->count);
    *vm = (VizMatches){0};
}
