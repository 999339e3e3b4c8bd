/* engine_explain.c - graft explain: why a rule did or did not fire.
 *
 * Every verdict comes from matcher_try itself, run with a MatchFailure
 * attached (note [explain mode] in match.h), so explain and match are one
 * walk and cannot disagree; explainer_check_all checks that they do not.
 * What the matcher recorded (its deepest failure) is then told in prose:
 * the pattern parts that matched, and a note into the rule file at the
 * part that failed and one into the model at the node that failed it.
 * A match is then put to the rewrite driver's policies (rewrite.c): the
 * interior-use rule and the rules tried before it at the node.
 */
#include "engine_impl.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "node_label.h"
#include "util.h"

/* A rule file read for its lines, by the name the rules give. */
typedef struct RuleSrc {
    const char *file; /* RuleDesc.file */
    Source *src;      /* its text, or NULL when it cannot be read */
} RuleSrc;

struct Explainer {
    Engine *e;            /* the driver, borrowed */
    const Source *model;  /* the model's text, or NULL */
    FILE *out;            /* where explanations go */
    Diag *diag;           /* notes with excerpts, on out */
    NodeLabels names;     /* node names (note [node names]) */
    MatchFailure rec;     /* the matcher's record of the last try */
    RuleSrc *srcs;        /* rule files read so far */
    size_t nsrcs, csrcs;
    StrBuf sb, sb2;       /* scratch */
};

Explainer *explainer_new(Engine *e, const Source *model, FILE *out)
{
    Explainer *x = xcalloc(1, sizeof *x);
    x->e = e;
    x->model = model;
    x->out = out;
    x->diag = diag_new(out);
    node_labels_init(&x->names, e->g, model ? model->name : NULL);
    engine_label_all(e);
    return x;
}

void explainer_free(Explainer *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->nsrcs; i++)
        source_free(x->srcs[i].src);
    free(x->srcs);
    match_failure_free(&x->rec);
    node_labels_free(&x->names);
    diag_free(x->diag);
    strbuf_free(&x->sb);
    strbuf_free(&x->sb2);
    free(x);
}

Node *explainer_find(const Explainer *x, const char *text)
{
    return node_labels_find(&x->names, text);
}

/* ---- notes ---- */

/* The rule file of rule, read once; NULL when it cannot be read (a
 * compiled rewriter far from its rules). */
static const Source *rule_source(Explainer *x, const RuleDesc *rule)
{
    for (size_t i = 0; i < x->nsrcs; i++)
        if (strcmp(x->srcs[i].file, rule->file) == 0)
            return x->srcs[i].src;
    FILE *probe = fopen(rule->file, "rb");
    Source *src = NULL;
    if (probe) {
        fclose(probe);
        src = source_read(rule->file, x->diag);
    }
    xgrow((void **)&x->srcs, &x->csrcs, x->nsrcs + 1, sizeof *x->srcs);
    x->srcs[x->nsrcs++] = (RuleSrc){rule->file, src};
    return src;
}

/* "FILE:LINE:COL: note: MESSAGE" with the line and a caret when src is
 * known, else without them. */
static void note(Explainer *x, const Source *src, const char *file, SrcRange at,
                 const char *msg)
{
    if (src)
        diag_note(x->diag, src, at, "%s", msg);
    else
        fprintf(x->out, "%s:%d:%d: note: %s\n", file, at.first_line, at.first_column, msg);
}

static SrcRange pat_range(const PatNode *p)
{
    return (SrcRange){p->line, p->col, p->last_line ? p->last_line : p->line,
                      p->last_col ? p->last_col : p->col};
}

/* Appends the rule text of part p ("w:var"), shortened to one line. */
static void put_part(Explainer *x, const RuleDesc *rule, const PatNode *p, StrBuf *out)
{
    const Source *src = rule_source(x, rule);
    size_t len;
    const char *line = src && p->line ? source_line(src, p->line, &len) : NULL;
    if (!line || p->col < 1 || (size_t)p->col > len) {
        strbuf_printf(out, "the part at line %d", p->line);
        return;
    }
    size_t from = (size_t)p->col - 1;
    size_t to = p->last_line == p->line && p->last_col >= p->col ? (size_t)p->last_col : len;
    if (to > len)
        to = len;
    bool cut = to - from > 40;
    strbuf_putc(out, '\'');
    for (size_t i = from; i < (cut ? from + 36 : to); i++)
        strbuf_putc(out, line[i]);
    strbuf_puts(out, cut ? " ...'" : "'");
}

static void rule_note(Explainer *x, const RuleDesc *rule, const PatNode *p, const char *msg)
{
    note(x, rule_source(x, rule), rule->file, pat_range(p), msg);
}

static void model_note(Explainer *x, const Node *n, const char *msg)
{
    int line = node_line(x->e->g, n);
    if (!line) {
        fprintf(x->out, "note: %s\n", msg);
        return;
    }
    int col = node_col(x->e->g, n);
    note(x, x->model, x->names.file ? x->names.file : "<model>",
         (SrcRange){line, col, line, col}, msg);
}

static const char *label(Explainer *x, const Node *n, StrBuf *sb)
{
    sb->len = 0;
    node_label(&x->names, n, sb);
    return sb->data;
}

static const char *label_at(Explainer *x, const Node *n, StrBuf *sb)
{
    sb->len = 0;
    node_label_at(&x->names, n, sb);
    return sb->data;
}

/* ---- the partial match ---- */

static void put_pair(Explainer *x, const RuleDesc *rule, const MatchPair *pair)
{
    x->sb.len = 0;
    put_part(x, rule, pair->pat, &x->sb);
    fprintf(x->out, "    %s (%s:%d:%d) = %s\n", x->sb.data, rule->file, pair->pat->line,
            pair->pat->col, label_at(x, pair->node, &x->sb2));
}

/* The matcher's pairs, then the parts the why-walk passed (w, or NULL). */
static void put_pairs(Explainer *x, const RuleDesc *rule, const MatchPair *pairs, uint32_t n,
                      const MatchWhy *w)
{
    uint32_t more = w ? w->depth : 0, shown = more < MATCH_WHY_PATH ? more : MATCH_WHY_PATH;
    if (n + more == 0) {
        fputs("  no pattern part matched\n", x->out);
        return;
    }
    fprintf(x->out, "  matched %u pattern part%s:\n", n + more, n + more == 1 ? "" : "s");
    for (uint32_t i = 0; i < n; i++)
        put_pair(x, rule, &pairs[i]);
    for (uint32_t i = 0; i < shown; i++)
        put_pair(x, rule, &w->path[i]);
    if (shown < more)
        fprintf(x->out, "    ... and %u more\n", more - shown);
}

/* ---- why a part failed ---- */

static void explain_why(Explainer *x, const RuleDesc *rule, const MatchWhy *w)
{
    const Matcher *m = x->e->m;
    StrBuf msg = {0}, part = {0};
    put_part(x, rule, w->pat, &part);
    strbuf_printf(&msg, "%s wants ", part.data);
    match_why_wanted(m, w, &msg);
    rule_note(x, rule, w->pat, msg.data);
    msg.len = 0;
    strbuf_printf(&msg, "%s ", label(x, w->node, &x->sb));
    match_why_found(m, w, &msg);
    strbuf_puts(&msg, ", not ");
    match_why_wanted(m, w, &msg);
    model_note(x, w->node, msg.data);
    strbuf_free(&msg);
    strbuf_free(&part);
}

/* A part that fails: its reason (w), or each alternative's. */
static void explain_item(Explainer *x, const RuleDesc *rule, MatchWhy w)
{
    if (w.kind != WHY_ALT) {
        explain_why(x, rule, &w);
        return;
    }
    StrBuf msg = {0};
    put_part(x, rule, w.pat, &msg);
    strbuf_printf(&msg, ": every alternative fails at %s", label(x, w.node, &x->sb));
    rule_note(x, rule, w.pat, msg.data);
    strbuf_free(&msg);
    for (int k = 0; k < w.pat->nkids; k++) {
        MatchWhy kw = match_why(x->e->m, w.pat->kids[k], w.node);
        if (kw.kind == WHY_ALT)
            kw.kind = WHY_STATE; /* nested alternatives: one level is told */
        fprintf(x->out, "  alternative %d of %d:\n", k + 1, w.pat->nkids);
        explain_why(x, rule, &kw);
    }
}

static void explain_rebind(Explainer *x, const RuleDesc *rule, const MatchFailure *f)
{
    StrBuf msg = {0};
    const char *name = rule->slot_names[f->pat->slot];
    strbuf_printf(&msg, "'%s' is used again here, and must be the same node", name);
    rule_note(x, rule, f->pat, msg.data);
    msg.len = 0;
    strbuf_printf(&msg, "%s is not %s, which '%s' matched first", label(x, f->node, &x->sb),
                  label_at(x, f->other, &x->sb2), name);
    model_note(x, f->node, msg.data);
    strbuf_free(&msg);
}

static void explain_attr(Explainer *x, const RuleDesc *rule, const MatchFailure *f)
{
    const PatAttrBind *ab = &f->pat->binds[f->bind];
    StrBuf msg = {0};
    strbuf_printf(&msg, "attribute %s binds '%s' again, to another value", ab->name,
                  rule->slot_names[ab->slot]);
    rule_note(x, rule, f->pat, msg.data);
    msg.len = 0;
    strbuf_printf(&msg, "%s has %s=", label(x, f->node, &x->sb), ab->name);
    if (f->got)
        pattern_attr_key(f->got, &msg);
    else
        strbuf_puts(&msg, "(unset)");
    strbuf_puts(&msg, ", not ");
    if (f->had)
        pattern_attr_key(f->had, &msg);
    else
        strbuf_puts(&msg, "(unset)");
    model_note(x, f->node, msg.data);
    strbuf_free(&msg);
}

/* ---- guards: every sub-expression's value ---- */

static const char *const cmp_text[] = {"==", "!=", "<", "<=", ">", ">="};

static const char *query_name(ExprKind k)
{
    switch (k) {
    case EXPR_USERS: return "users";
    case EXPR_RANK: return "rank";
    case EXPR_DTYPEOF: return "dtype";
    case EXPR_SHAPE: return "shape";
    case EXPR_VALUE: return "value";
    default: return "attr";
    }
}

/* Writes guard expression e: as written (values false), or with every
 * operand of a comparison or arithmetic replaced by its value. */
static void put_expr(Explainer *x, const RuleDesc *rule, const PatExpr *e, const Binding *b,
                     bool values, StrBuf *out)
{
    bool leaf = e->kind != EXPR_AND && e->kind != EXPR_OR && e->kind != EXPR_NOT &&
                e->kind != EXPR_CMP && e->kind != EXPR_ARITH;
    if (values && leaf) {
        GuardVal v = guard_value(e, b);
        guard_value_text(&v, b, out);
        return;
    }
    switch (e->kind) {
    case EXPR_NUM: pattern_number_key(e->f, out); break;
    case EXPR_BOOL: strbuf_puts(out, e->i ? "true" : "false"); break;
    case EXPR_STR: strbuf_printf(out, "\"%s\"", e->s); break;
    case EXPR_DTYPE: strbuf_puts(out, e->s); break;
    case EXPR_SLOT: strbuf_puts(out, rule->slot_names[e->slot]); break;
    case EXPR_LIST:
        strbuf_putc(out, '[');
        for (int i = 0; i < e->nkids; i++) {
            if (i)
                strbuf_puts(out, ", ");
            put_expr(x, rule, e->kids[i], b, values, out);
        }
        strbuf_putc(out, ']');
        break;
    case EXPR_GETITEM:
        put_expr(x, rule, e->kids[0], b, values, out);
        strbuf_printf(out, "[%lld]", (long long)e->i);
        break;
    case EXPR_NOT:
        strbuf_putc(out, '!');
        put_expr(x, rule, e->kids[0], b, values, out);
        break;
    case EXPR_AND:
    case EXPR_OR:
        strbuf_putc(out, '(');
        put_expr(x, rule, e->kids[0], b, values, out);
        strbuf_puts(out, e->kind == EXPR_AND ? " && " : " || ");
        put_expr(x, rule, e->kids[1], b, values, out);
        strbuf_putc(out, ')');
        break;
    case EXPR_CMP:
        put_expr(x, rule, e->kids[0], b, values, out);
        strbuf_printf(out, " %s ", cmp_text[e->cmp]);
        put_expr(x, rule, e->kids[1], b, values, out);
        break;
    case EXPR_ARITH:
        if (e->cmp == 'n') {
            strbuf_putc(out, '-');
            put_expr(x, rule, e->kids[0], b, values, out);
            break;
        }
        strbuf_putc(out, '(');
        put_expr(x, rule, e->kids[0], b, values, out);
        strbuf_printf(out, " %c ", e->cmp);
        put_expr(x, rule, e->kids[1], b, values, out);
        strbuf_putc(out, ')');
        break;
    case EXPR_ATTR:
        strbuf_printf(out, "attr(%s, %s)", rule->slot_names[e->slot], e->s);
        break;
    default:
        strbuf_printf(out, "%s(%s)", query_name(e->kind), rule->slot_names[e->slot]);
        break;
    }
}

/* One line per condition of the guard (the operands of && || and !):
 * "users(c) == 1 is 2 == 1: false".  Guard trees are bounded by the front
 * end's nesting limit, so this may recurse. */
static void put_conditions(Explainer *x, const RuleDesc *rule, const PatExpr *e,
                           const Binding *b)
{
    if (e->kind == EXPR_AND || e->kind == EXPR_OR) {
        put_conditions(x, rule, e->kids[0], b);
        put_conditions(x, rule, e->kids[1], b);
        return;
    }
    if (e->kind == EXPR_NOT) {
        put_conditions(x, rule, e->kids[0], b);
        return;
    }
    StrBuf as = {0}, vs = {0};
    put_expr(x, rule, e, b, false, &as);
    put_expr(x, rule, e, b, true, &vs);
    fprintf(x->out, "    %s is %s: %s\n", as.data, vs.data,
            guard_eval(e, b) ? "true" : "false");
    strbuf_free(&as);
    strbuf_free(&vs);
}

/* The guard's place: "where" on the rule's lines, else the rule's name. */
static SrcRange guard_range(Explainer *x, const RuleDesc *rule)
{
    const Source *src = rule_source(x, rule);
    for (int l = rule->line; src && l < rule->line + 20 && (size_t)l <= src->nlines; l++) {
        size_t len;
        const char *line = source_line(src, l, &len);
        for (size_t i = 0; i + 5 <= len; i++)
            if (memcmp(line + i, "where", 5) == 0 && (i == 0 || line[i - 1] == ' ')) {
                size_t end = len;
                while (end > i && (line[end - 1] == ' ' || line[end - 1] == '\r'))
                    end--;
                const char *arrow = memchr(line + i, '=', len - i);
                if (arrow && arrow + 1 < line + len && arrow[1] == '>')
                    end = (size_t)(arrow - line) - 1;
                return (SrcRange){l, (int)i + 1, l, (int)end};
            }
    }
    return (SrcRange){rule->line, 1, rule->line, 1};
}

static void explain_guard(Explainer *x, const RuleDesc *rule, const MatchFailure *f)
{
    if (!rule->guard) {
        fputs("  the compiled guard refused (no table to show its values)\n", x->out);
        return;
    }
    note(x, rule_source(x, rule), rule->file, guard_range(x, rule),
         "the pattern matches, but the guard is false");
    put_conditions(x, rule, rule->guard, f->b);
}

/* ---- one rule at one node ---- */

static void put_bindings(Explainer *x, const RuleDesc *rule, const Binding *b)
{
    const char *sep = ": ";
    for (int s = 0; s < rule->nslots; s++) {
        if (!b[s].node && !b[s].attr)
            continue;
        fprintf(x->out, "%s%s=", sep, rule->slot_names[s]);
        sep = ", ";
        x->sb.len = 0;
        if (b[s].node)
            node_label(&x->names, b[s].node, &x->sb);
        else
            pattern_attr_key(b[s].attr, &x->sb);
        fputs(x->sb.data, x->out);
    }
}

/* What rule r's partition pass makes of its match at root. */
static void explain_partition(Explainer *x, uint32_t r, Node *root)
{
    PartVerdict v;
    engine_partition_verdict(x->e, r, root, &v);
    switch (v.fate) {
    case PART_KEPT:
        fputs("  grouped by its partition pass\n", x->out);
        break;
    case PART_OVERLAP:
        fprintf(x->out, "  not grouped: overlap: %s is in the group rooted at %s, found first\n",
                label_at(x, v.a, &x->sb), label_at(x, v.b, &x->sb2));
        break;
    case PART_INTERIOR:
        fprintf(x->out, "  not grouped: interior use: %s is used by %s outside the group,\n"
                "  which the root does not post-dominate\n",
                label_at(x, v.a, &x->sb), label_at(x, v.b, &x->sb2));
        break;
    case PART_CLAIMED:
        fprintf(x->out, "  not grouped: %s is inside the group rooted at %s already\n",
                label(x, root, &x->sb), label_at(x, v.a, &x->sb2));
        break;
    case PART_PARTITIONED:
        fprintf(x->out, "  not grouped: %s is inside a function partitioned before\n",
                label(x, root, &x->sb));
        break;
    case PART_UNTRIED:
        fputs("  not grouped: a pattern of one leaf makes no group\n", x->out);
        break;
    }
}

/* Why rule r's match at root would not be applied by graft run's next
 * round (rewrite rules): [once], the interior-use rule, or a rule tried
 * before it at root that applies; for a partition rule, what its pass
 * makes of it.  The matcher's pairs are r's match on entry. */
static void explain_policy(Explainer *x, uint32_t r, Node *root)
{
    Engine *e = x->e;
    const RuleDesc *rule = &e->rs->rules[r];
    if (rule->kind != ACTION_REWRITE) {
        explain_partition(x, r, root);
        return;
    }
    if (rule->once && engine_once_refuses(e, r, root)) {
        fprintf(x->out, "  not applied: [once]: %s built %s or rewrote it already\n",
                rule->name, label(x, root, &x->sb));
        return;
    }
    uint32_t npairs;
    const MatchPair *pairs = matcher_pairs(e->m, &npairs);
    Node *interior, *user;
    if (engine_interior_escape(e, root, pairs, npairs, &interior, &user)) {
        fprintf(x->out, "  not applied: interior use: %s is used by %s outside the match,\n"
                "  which the root does not post-dominate\n",
                label_at(x, interior, &x->sb), label_at(x, user, &x->sb2));
        StrBuf msg = {0};
        strbuf_printf(&msg, "%s is inside the match", label(x, interior, &x->sb));
        model_note(x, interior, msg.data);
        msg.len = 0;
        strbuf_printf(&msg, "%s uses it from outside", label(x, user, &x->sb));
        model_note(x, user, msg.data);
        strbuf_free(&msg);
        return;
    }
    uint32_t n;
    const uint32_t *cand = automaton_state_rules(e->a, labels_state(e->labels, root), &n);
    for (uint32_t k = 0; k < n && cand[k] != r; k++) {
        const RuleDesc *other = &e->rs->rules[cand[k]];
        if (other->kind != ACTION_REWRITE || (other->once && engine_once_refuses(e, cand[k], root)) ||
            matcher_try(e->m, cand[k], root) != MATCH_OK)
            continue;
        uint32_t np;
        const MatchPair *op = matcher_pairs(e->m, &np);
        if (engine_interior_escape(e, root, op, np, &interior, &user))
            continue;
        fprintf(x->out, "  not applied: %s (%s:%d, priority %d) is tried first at %s and "
                "applies\n", other->name, other->file, other->line, other->priority,
                label(x, root, &x->sb));
        return;
    }
    fputs("  applied by graft run's next round\n", x->out);
}

bool explainer_at(Explainer *x, uint32_t r, Node *root)
{
    Engine *e = x->e;
    const RuleDesc *rule = &e->rs->rules[r];
    matcher_explain(e->m, &x->rec);
    MatchResult res = matcher_try(e->m, r, root);
    matcher_explain(e->m, NULL);
    fprintf(x->out, "%s (%s:%d) at %s: ", rule->name, rule->file, rule->line,
            label_at(x, root, &x->sb));
    if (res == MATCH_OK) {
        fputs("matches", x->out);
        put_bindings(x, rule, matcher_bindings(e->m));
        fputc('\n', x->out);
        explain_policy(x, r, root);
        return true;
    }
    fputs("no match\n", x->out);
    const MatchFailure *f = &x->rec;
    MatchWhy w;
    if (f->kind == MFAIL_ITEM)
        w = match_why(e->m, f->pat, f->node);
    put_pairs(x, rule, f->pairs, f->depth, f->kind == MFAIL_ITEM ? &w : NULL);
    switch (f->kind) {
    case MFAIL_ITEM: explain_item(x, rule, w); break;
    case MFAIL_REBIND: explain_rebind(x, rule, f); break;
    case MFAIL_ATTR: explain_attr(x, rule, f); break;
    case MFAIL_GUARD: explain_guard(x, rule, f); break;
    case MFAIL_WAYS:
        w = match_why_dom(e->m, f->pat, f->node);
        explain_why(x, rule, &w);
        break;
    case MFAIL_BUDGET:
        fprintf(x->out, "  gave up after %llu match steps [--limit match-steps]\n",
                (unsigned long long)e->limits->match_steps);
        break;
    case MFAIL_NONE:
        break;
    }
    return false;
}

/* ---- the parts, for pictures ---- */

bool explainer_parts(Explainer *x, uint32_t r, Node *root, uint32_t **ids, uint32_t *n,
                     Node **failed)
{
    Engine *e = x->e;
    matcher_explain(e->m, &x->rec);
    bool ok = matcher_try(e->m, r, root) == MATCH_OK;
    matcher_explain(e->m, NULL);
    uint32_t np;
    const MatchPair *pairs = ok ? matcher_pairs(e->m, &np) : x->rec.pairs;
    MatchWhy w;
    uint32_t more = 0;
    if (!ok)
        np = x->rec.depth;
    *failed = ok ? NULL : x->rec.node;
    if (!ok && x->rec.kind == MFAIL_ITEM) {
        w = match_why(e->m, x->rec.pat, x->rec.node);
        more = w.depth < MATCH_WHY_PATH ? w.depth : MATCH_WHY_PATH;
        *failed = w.node;
    }
    *ids = xmalloc(((size_t)np + more + 1) * sizeof **ids);
    *n = 0;
    for (uint32_t i = 0; i < np; i++)
        (*ids)[(*n)++] = node_id(pairs[i].node);
    for (uint32_t i = 0; i < more; i++)
        (*ids)[(*n)++] = node_id(w.path[i].node);
    return ok;
}

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
static void near_line(Explainer *x, const RuleDesc *rule, Node *root, uint32_t score)
{
    const MatchFailure *f = &x->rec;
    fprintf(x->out, "  %s: %u part%s matched; ", label_at(x, root, &x->sb), score / 2,
            score / 2 == 1 ? "" : "s");
    StrBuf msg = {0};
    switch (f->kind) {
    case MFAIL_ITEM: {
        MatchWhy w = match_why(x->e->m, f->pat, f->node);
        put_part(x, rule, w.pat, &msg);
        strbuf_printf(&msg, " (%s:%d:%d) wants ", rule->file, w.pat->line, w.pat->col);
        if (w.kind == WHY_ALT)
            alt_wanted(x, &w, &msg);
        else
            match_why_wanted(x->e->m, &w, &msg);
        strbuf_printf(&msg, "; %s ", label_at(x, w.node, &x->sb));
        match_why_found(x->e->m, &w, &msg);
        break;
    }
    case MFAIL_REBIND:
        strbuf_printf(&msg, "'%s' (%s:%d:%d) is %s and %s", rule->slot_names[f->pat->slot],
                      rule->file, f->pat->line, f->pat->col, label_at(x, f->other, &x->sb),
                      label_at(x, f->node, &x->sb2));
        break;
    case MFAIL_ATTR:
        strbuf_printf(&msg, "attribute %s (%s:%d:%d) differs at %s",
                      f->pat->binds[f->bind].name, rule->file, f->pat->line, f->pat->col,
                      label_at(x, f->node, &x->sb));
        break;
    case MFAIL_GUARD:
        strbuf_printf(&msg, "the guard (%s:%d) is false", rule->file,
                      guard_range(x, rule).first_line);
        break;
    case MFAIL_WAYS:
        strbuf_printf(&msg, "the dominator walk (%s:%d:%d) fails at %s", rule->file,
                      f->pat->line, f->pat->col, label_at(x, f->node, &x->sb));
        break;
    default:
        strbuf_puts(&msg, "gave up [--limit match-steps]");
        break;
    }
    fprintf(x->out, "%s\n", msg.data);
    strbuf_free(&msg);
}

void explainer_near(Explainer *x, uint32_t r, uint32_t want)
{
    Engine *e = x->e;
    const RuleDesc *rule = &e->rs->rules[r];
    uint32_t count = graph_node_count(e->g);
    uint32_t *ids = xmalloc(((size_t)count + 1) * sizeof *ids);
    uint32_t n = graph_topo_ids(e->g, ids);
    Near *near = xmalloc(((size_t)n + 1) * sizeof *near);
    uint32_t nnear = 0, matches = 0;
    matcher_explain(e->m, &x->rec);
    for (uint32_t i = 0; i < n; i++) {
        Node *root = graph_node(e->g, ids[i]);
        if (matcher_try(e->m, r, root) == MATCH_OK) {
            matches++;
            continue;
        }
        uint32_t score = near_score(x);
        if (score > 0) /* the root itself matched something */
            near[nnear++] = (Near){score, ids[i], i};
    }
    qsort(near, nnear, sizeof *near, near_cmp);
    fprintf(x->out, "%s (%s:%d): %u match%s; %s %u partial match%s:\n", rule->name,
            rule->file, rule->line, matches, matches == 1 ? "" : "es",
            nnear > want ? "the best" : "all", nnear > want ? want : nnear,
            (nnear > want ? want : nnear) == 1 ? "" : "es");
    for (uint32_t i = 0; i < nnear && i < want; i++) {
        Node *root = graph_node(e->g, near[i].id);
        matcher_try(e->m, r, root);
        near_line(x, rule, root, near[i].score);
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

static void listed_visit(void *ctx, uint32_t rule, Node *root, const Binding *b)
{
    Listed *l = ctx;
    (void)b;
    l->hit[(size_t)node_id(root) * l->nrules + rule] = 1;
}

uint64_t explainer_check_all(Explainer *x)
{
    Engine *e = x->e;
    uint32_t count = graph_node_count(e->g), nrules = e->rs->nrules;
    Listed l = {xcalloc((size_t)count * nrules + 1, 1), nrules};
    engine_matches(e, listed_visit, &l);
    uint32_t *ids = xmalloc(((size_t)count + 1) * sizeof *ids);
    uint32_t n = graph_topo_ids(e->g, ids);
    uint64_t matches = 0, bad = 0;
    matcher_explain(e->m, &x->rec);
    for (uint32_t i = 0; i < n; i++) {
        Node *root = graph_node(e->g, ids[i]);
        for (uint32_t r = 0; r < nrules; r++) {
            bool ok = matcher_try(e->m, r, root) == MATCH_OK;
            bool listed = l.hit[(size_t)ids[i] * nrules + r];
            matches += ok;
            if (ok != listed) {
                bad++;
                fprintf(x->out, "disagree: %s at %s: explain says %s, match %s\n",
                        e->rs->rules[r].name, label_at(x, root, &x->sb),
                        ok ? "matches" : "no match", listed ? "lists it" : "does not");
            }
        }
    }
    matcher_explain(e->m, NULL);
    fprintf(x->out, "check-all: %u nodes x %u rules: %llu matches, %llu disagreements\n", n,
            nrules, (unsigned long long)matches, (unsigned long long)bad);
    free(ids);
    free(l.hit);
    return bad;
}
