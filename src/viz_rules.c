/* viz_rules.c - rule matches as viz highlights (viz_rules.h). */
#include "viz_rules.h"

#include <stdio.h>
#include <stdlib.h>

#include "automaton.h"
#include "match.h"
#include "util.h"

/* What the search needs: the automaton, node labels and a matcher. */
typedef struct Search {
    const RuleSet *rs;  /* rules searched */
    Automaton *a;       /* their automaton */
    Labels *labels;     /* automaton states of the graph's nodes */
    Matcher *m;         /* confirms a rule at a node */
    uint32_t *count;    /* matches so far, per rule */
    uint32_t *rules;    /* scratch: candidate rules in file order */
} Search;

/* The matched nodes of the matcher's last match, leaves left out. */
static void add_highlight(Search *s, uint32_t r, VizMatches *out)
{
    uint32_t npairs;
    const MatchPair *pairs = matcher_pairs(s->m, &npairs);
    uint32_t *ids = xmalloc((npairs + 1) * sizeof(uint32_t));
    size_t n = 0;
    for (uint32_t i = 0; i < npairs; i++)
        if (pairs[i].pat->kind != PAT_ANY)
            ids[n++] = node_id(pairs[i].node);
    StrBuf label = {0};
    strbuf_printf(&label, "%s #%u", s->rs->rules[r].name, ++s->count[r]);
    xgrow((void **)&out->h, &out->cap, out->n + 1, sizeof(VizHighlight));
    out->h[out->n++] = (VizHighlight){ids, n, label.data};
}

/* The candidate rules at n, confirmed one by one in file order. */
static void search_node(Search *s, Node *n, VizMatches *out)
{
    uint32_t nr;
    const uint32_t *cand = automaton_state_rules(s->a, labels_state(s->labels, n), &nr);
    for (uint32_t k = 0; k < nr; k++) { /* insertion sort: few candidates */
        uint32_t j = k;
        for (; j > 0 && s->rules[j - 1] > cand[k]; j--)
            s->rules[j] = s->rules[j - 1];
        s->rules[j] = cand[k];
    }
    for (uint32_t k = 0; k < nr; k++)
        if (matcher_try(s->m, s->rules[k], n) == MATCH_OK)
            add_highlight(s, s->rules[k], out);
}

/* Labels every node with the rules' automaton, then confirms the
 * candidate rules at each node in graph order, as graft match does. */
void viz_find_matches(const RuleSet *rs, const Graph *g, uint64_t max_steps,
                      VizMatches *out)
{
    out->h = NULL;
    out->n = out->cap = 0;
    Search s = {rs, automaton_new(rs), NULL, NULL,
                xcalloc(rs->nrules + 1, sizeof(uint32_t)),
                xmalloc((rs->nrules + 1) * sizeof(uint32_t))};
    s.labels = labels_new(s.a, g);
    s.m = matcher_new(s.labels, g);
    matcher_set_max_steps(s.m, max_steps);
    uint32_t count = graph_node_count(g);
    Node **order = xmalloc((count ? count : 1) * sizeof(Node *));
    uint32_t len = graph_topo_order(g, order);
    for (uint32_t i = 0; i < len; i++)
        labels_node(s.labels, order[i]);
    for (uint32_t i = 0; i < len; i++)
        search_node(&s, order[i], out);
    free(order);
    free(s.count);
    free(s.rules);
    matcher_free(s.m);
    labels_free(s.labels);
    automaton_free(s.a);
}

void viz_matches_free(VizMatches *vm)
{
    for (size_t i = 0; i < vm->n; i++) {
        free((void *)vm->h[i].nodes);
        free((void *)vm->h[i].label);
    }
    free(vm->h);
    vm->h = NULL;
    vm->n = vm->cap = 0;
}
