/* stats.c - per-rule counters and their table. */
#include "stats.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void stats_init(Stats *s, uint32_t nrules)
{
    memset(s, 0, sizeof *s);
    s->nrules = nrules;
    s->rules = xcalloc(nrules + 1, sizeof *s->rules);
}

void stats_free(Stats *s)
{
    free(s->rules);
    s->rules = NULL;
    strbuf_free(&s->refusals);
}

static void rule_add(RuleStats *to, const RuleStats *from)
{
    to->tried += from->tried;
    to->matched += from->matched;
    to->applied += from->applied;
    to->guard += from->guard;
    to->interior += from->interior;
    to->overlap += from->overlap;
    to->budget += from->budget;
    to->seconds += from->seconds;
}

void stats_add(Stats *to, const Stats *from, bool inside)
{
    for (uint32_t i = 0; i < to->nrules && i < from->nrules; i++)
        rule_add(&to->rules[i], &from->rules[i]);
    to->labelled += from->labelled;
    to->rounds += from->rounds;
    to->rewrites += from->rewrites;
    to->groups += from->groups;
    to->states = to->states > from->states ? to->states : from->states;
    to->transitions = to->transitions > from->transitions ? to->transitions : from->transitions;
    if (from->refusals.len)
        strbuf_puts(&to->refusals, from->refusals.data);
    to->nrefusals += from->nrefusals;
    to->subgraphs += from->subgraphs + inside;
    to->inside += from->inside + (inside ? from->rewrites : 0);
    to->orders += from->orders;
    to->kills += from->kills;
}

/* "interior-use 2, overlap 1" or "-". */
static void reasons(const RuleStats *r, char *buf, size_t size)
{
    static const char *const names[] = {"guard", "interior-use", "overlap", "budget"};
    uint64_t counts[] = {r->guard, r->interior, r->overlap, r->budget};
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ARRAY_LEN(counts) && len < size; i++)
        if (counts[i])
            len += (size_t)snprintf(buf + len, size - len, "%s%s %llu", len ? ", " : "",
                                    names[i], (unsigned long long)counts[i]);
    if (!buf[0])
        snprintf(buf, size, "-");
}

static int name_width(const graft_rule_set *rs)
{
    int w = 4;
    for (uint32_t i = 0; i < rs->nrules; i++)
        if ((int)strlen(rs->rules[i].name) > w)
            w = (int)strlen(rs->rules[i].name);
    return w;
}

void stats_print(const Stats *s, const graft_rule_set *rs, FILE *out, bool times)
{
    int w = name_width(rs);
    fprintf(out, "%-*s %8s %8s %8s %8s  %s%s\n", w, "rule", "tried", "matched", "applied",
            "refused", "why", times ? "  (time)" : "");
    for (uint32_t i = 0; i < s->nrules; i++) {
        const RuleStats *r = &s->rules[i];
        char why[256];
        reasons(r, why, sizeof why);
        uint64_t refused = r->guard + r->interior + r->overlap + r->budget;
        fprintf(out, "%-*s %8llu %8llu %8llu %8llu  %s", w, rs->rules[i].name,
                (unsigned long long)r->tried, (unsigned long long)r->matched,
                (unsigned long long)r->applied, (unsigned long long)refused, why);
        if (times)
            fprintf(out, "  (%.3f ms)", r->seconds * 1e3);
        fputc('\n', out);
    }
    fprintf(out, "total: %llu rewrites in %llu rounds, %llu groups; %llu labellings; "
            "automaton: %u states, %u transitions\n",
            (unsigned long long)s->rewrites, (unsigned long long)s->rounds,
            (unsigned long long)s->groups, (unsigned long long)s->labelled, s->states,
            s->transitions);
    if (s->subgraphs)
        fprintf(out, "inside subgraphs: %llu of the rewrites, in %u subgraph%s\n",
                (unsigned long long)s->inside, s->subgraphs, s->subgraphs == 1 ? "" : "s");
    if (s->refusals.len)
        fputs(s->refusals.data, out);
    if (s->nrefusals * (s->refusals.len != 0) > 0) {
        uint64_t listed = 0;
        for (size_t i = 0; i < s->refusals.len; i++)
            listed += s->refusals.data[i] == '\n';
        if (s->nrefusals > listed)
            fprintf(out, "refused: ... and %llu more\n",
                    (unsigned long long)(s->nrefusals - listed));
    }
}
