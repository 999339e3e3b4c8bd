/* engine_explain_near.c - the best partial matches of a rule in a model
 * (graft explain --rule NAME), and explain checked against match at every
 * node (--check-all). */
#include "engine_explain_impl.h"

#include <stdlib.h>
#include <string.h>

#include "node_label.h"
#include "util.h"

/* ---- near misses ---- */

typedef struct Near {
    uint32_t score; /* 2 * depth, +1 for a guard refusal */
    uint32_t id;    /* the root's node id */
    uint32_t order; /* its place in topological order */
} Near;

static int near_cmp(const void *a, const void *b)
{
    const Near *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

/* How far the try recorded got: 2 * parts matched (the matcher's and the
 * why-walk's), +1 for a guard refusal. */
static uint32_t near_score(Explainer *x)
{
    const MatchFailure *f = &x->rec;
    uint32_t parts = f->depth;
    if (f->kind == MFAIL_ITEM)
        parts += match_why(x->e->m, f->pat, f->node).depth;
    return 2 * parts + (f->kind == MFAIL_GUARD);
}

/* What the alternatives of w->pat want at w->node: "a call of nn.bias_add
 * or a call of add". */
static void alt_wanted(Explainer *x, const MatchWhy *w, StrBuf *out)
{
    for (int k = 0; k < w->pat->nkids; k++) {
        MatchWhy kw = match_why(x->e->m, w->pat->kids[k], w->node);
        if (k)
            strbuf_puts(out, " or ");
        if (kw.node != w->node)
            strbuf_puts(out, "more below"); /* the branch got further */
        else if (kw.kind == WHY_ALT)
            strbuf_puts(out, "one of the alternatives");
        else
            match_why_wanted(x->e->m, &kw, out);
    }
}

/* One line for the failure recorded at root. */
static void near_line(Explainer *x, const graft_rule *rule, graft_node *root, uint32_t score)
{
    const MatchFailure *f = &x->rec;
    fprintf(x->out, "  %s: %u part%s matched; ", explain_label_at(x, root, &x->sb), score / 2,
            score / 2 == 1 ? "" : "s");
    StrBuf msg = {0};
    switch (f->kind) {
    case MFAIL_ITEM: {
        MatchWhy w = match_why(x->e->m, f->pat, f->node);
        explain_put_part(x, rule, w.pat, &msg);
        strbuf_printf(&msg, " (%s:%d:%d) wants ", rule->file, w.pat->line, w.pat->col);
        if (w.kind == WHY_ALT)
            alt_wanted(x, &w, &msg);
        else
            match_why_wanted(x->e->m, &w, &msg);
        strbuf_printf(&msg, "; %s ", explain_label_at(x, w.node, &x->sb));
        match_why_found(x->e->m, &w, &msg);
        break;
    }
    case MFAIL_REBIND:
        strbuf_printf(&msg, "'%s' (%s:%d:%d) is %s and %s", rule->slot_names[f->pat->slot],
                      rule->file, f->pat->line, f->pat->col, explain_label_at(x, f->other, &x->sb),
                      explain_label_at(x, f->node, &x->sb2));
        break;
    case MFAIL_ATTR:
        strbuf_printf(&msg, "%s %s (%s:%d:%d) differs at %s",
                      f->pat->binds[f->bind].name ? "attribute" : "index",
                      f->pat->binds[f->bind].name ? f->pat->binds[f->bind].name
                                                  : rule->slot_names[f->pat->binds[f->bind].slot],
                      rule->file, f->pat->line, f->pat->col,
                      explain_label_at(x, f->node, &x->sb));
        break;
    case MFAIL_GUARD:
        strbuf_printf(&msg, "the guard (%s:%d) is false", rule->file,
                      explain_guard_range(x, rule).first_line);
        break;
    case MFAIL_WAYS:
        strbuf_printf(&msg, "the dominator walk (%s:%d:%d) fails at %s", rule->file,
                      f->pat->line, f->pat->col, explain_label_at(x, f->node, &x->sb));
        break;
    case MFAIL_ROOT:
        strbuf_printf(&msg, "no user of '%s' fits root (%s:%d:%d)", rule->slot_names[f->bind],
                      rule->file, f->pat->line, f->pat->col);
        break;
    default:
        strbuf_puts(&msg, "gave up [--limit match-steps]");
        break;
    }
    fprintf(x->out, "%s\n", msg.data);
    strbuf_free(&msg);
}

/* No partial match: no node (but the matches) matches the root's own
 * part, so the list would be empty; say which part that is (quoted when
 * the rule's text is at hand: graft lsp's unsaved document is not). */
static void near_none(Explainer *x, const graft_rule *rule, uint32_t matches)
{
    x->sb2.len = 0;
    explain_put_part(x, rule, rule->pattern, &x->sb2);
    bool quoted = x->sb2.data[0] == '\'';
    fprintf(x->out, "%s (%s:%d): %u match%s; no partial match: no %snode matches the "
            "pattern's root %s%s(%s:%d:%d)\n", rule->name, rule->file, rule->line, matches,
            matches == 1 ? "" : "es", matches ? "other " : "", quoted ? x->sb2.data : "",
            quoted ? " " : "", rule->file, rule->pattern->line, rule->pattern->col);
}

/* The line before the list, or the line that there is none; false when
 * a subgraph has nothing to list (explainer_in_graph). */
static bool near_header(Explainer *x, const graft_rule *rule, uint32_t matches, uint32_t nnear,
                        uint32_t want)
{
    const char *where = x->where;
    x->where = NULL;
    if (where && x->quiet && !nnear && !matches)
        return false;
    if (where) /* note [subgraph node names] in node_label.h */
        fprintf(x->out, "in %s: ", where);
    if (nnear)
        fprintf(x->out, "%s (%s:%d): %u match%s; %s %u partial match%s:\n", rule->name,
                rule->file, rule->line, matches, matches == 1 ? "" : "es",
                nnear > want ? "the best" : "all", nnear > want ? want : nnear,
                (nnear > want ? want : nnear) == 1 ? "" : "es");
    else /* what no node has, rather than an empty list */
        near_none(x, rule, matches);
    return true;
}

void explainer_near(Explainer *x, uint32_t r, uint32_t want)
{
    graft_engine *e = x->e;
    const graft_rule *rule = &e->rs->rules[r];
    uint32_t count = graph_node_count(e->g);
    uint32_t *ids = xmalloc(((size_t)count + 1) * sizeof *ids);
    uint32_t n = graph_topo_ids(e->g, ids);
    Near *near = xmalloc(((size_t)n + 1) * sizeof *near);
    uint32_t nnear = 0, matches = 0;
    matcher_explain(e->m, &x->rec);
    for (uint32_t i = 0; i < n; i++) {
        graft_node *root = graph_node(e->g, ids[i]);
        if (matcher_try(e->m, r, root) == MATCH_OK) {
            matches++;
            continue;
        }
        uint32_t score = near_score(x);
        if (score > 0) /* the root itself matched something */
            near[nnear++] = (Near){score, ids[i], i};
    }
    if (near_header(x, rule, matches, nnear, want)) {
        qsort(near, nnear, sizeof *near, near_cmp);
        for (uint32_t i = 0; i < nnear && i < want; i++) {
            graft_node *root = graph_node(e->g, near[i].id);
            matcher_try(e->m, r, root);
            near_line(x, rule, root, near[i].score);
        }
    }
    matcher_explain(e->m, NULL);
    free(near);
    free(ids);
}

/* ---- explain against match ---- */

typedef struct Listed {
    uint8_t *hit;    /* per (node id, rule): engine_matches reported it */
    uint32_t nrules; /* row width */
} Listed;

static void listed_visit(void *ctx, uint32_t rule, graft_node *root, const graft_binding *b)
{
    Listed *l = ctx;
    (void)b;
    l->hit[(size_t)node_id(root) * l->nrules + rule] = 1;
}

uint64_t explainer_check_all(Explainer *x)
{
    CheckAllCount count = {0};
    explainer_check_graph(x, &count);
    explainer_check_summary(x->out, x->e->rs->nrules, &count);
    return count.bad;
}

void explainer_check_summary(FILE *out, uint32_t nrules, const CheckAllCount *c)
{
    fprintf(out, "check-all: %llu nodes x %u rules: %llu matches, %llu disagreements\n",
            (unsigned long long)c->nodes, nrules, (unsigned long long)c->matches,
            (unsigned long long)c->bad);
}

void explainer_check_graph(Explainer *x, CheckAllCount *total)
{
    graft_engine *e = x->e;
    uint32_t count = graph_node_count(e->g), nrules = e->rs->nrules;
    Listed l = {xcalloc((size_t)count * nrules + 1, 1), nrules};
    engine_matches(e, listed_visit, &l);
    uint32_t *ids = xmalloc(((size_t)count + 1) * sizeof *ids);
    uint32_t n = graph_topo_ids(e->g, ids);
    uint64_t matches = 0, bad = 0;
    matcher_explain(e->m, &x->rec);
    for (uint32_t i = 0; i < n; i++) {
        graft_node *root = graph_node(e->g, ids[i]);
        for (uint32_t r = 0; r < nrules; r++) {
            bool ok = matcher_try(e->m, r, root) == MATCH_OK;
            bool listed = l.hit[(size_t)ids[i] * nrules + r];
            matches += ok;
            if (ok != listed) {
                bad++;
                fprintf(x->out, "disagree: %s at %s: explain says %s, match %s\n",
                        e->rs->rules[r].name, explain_label_at(x, root, &x->sb),
                        ok ? "matches" : "no match", listed ? "lists it" : "does not");
            }
        }
    }
    matcher_explain(e->m, NULL);
    total->nodes += n;
    total->matches += matches;
    total->bad += bad;
    free(ids);
    free(l.hit);
}
