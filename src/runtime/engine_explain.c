/* engine_explain.c - graft explain: why a rule did or did not fire.
 *
 * Every verdict comes from matcher_try itself, run with a MatchFailure
 * attached (note [explain mode] in match.h), so explain and match are one
 * walk and cannot disagree; explainer_check_all (engine_explain_near.c)
 * checks that they do not.  What the matcher recorded (its deepest
 * failure) is then told in prose: the pattern parts that matched, and a
 * note into the rule file at the part that failed and one into the model
 * at the node that failed it.  A match is then put to the driver's
 * policies (rewrite.c, partition.c): the interior-use rule, a rule whose
 * pass runs before its own and applies at the node, a partition pass's
 * overlap.
 */
#include "engine_explain_impl.h"

#include <stdlib.h>
#include <string.h>

#include "node_label.h"
#include "util.h"

Explainer *explainer_new(graft_engine *e, const Source *model, FILE *out)
{
    Explainer *x = xcalloc(1, sizeof *x);
    x->e = e;
    x->model = model;
    x->out = out;
    x->diag = diag_new(out);
    x->names = e->opts.names ? e->opts.names : &x->own;
    if (!e->opts.names)
        node_labels_init(&x->own, e->g, model ? model->name : NULL);
    engine_label_all(e);
    return x;
}

void explainer_free(Explainer *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->srcs.len; i++)
        source_free(x->srcs.items[i].src);
    vec_free(&x->srcs);
    match_failure_free(&x->rec);
    if (x->names == &x->own)
        node_labels_free(&x->own);
    diag_free(x->diag);
    strbuf_free(&x->sb);
    strbuf_free(&x->sb2);
    free(x);
}

void explainer_in_graph(Explainer *x, const char *where, bool quiet)
{
    x->where = where;
    x->quiet = quiet;
}

graft_node *explainer_find(const Explainer *x, const char *text)
{
    return node_labels_find(x->names, text);
}

/* ---- notes ---- */

const Source *explain_rule_source(Explainer *x, const graft_rule *rule)
{
    for (size_t i = 0; i < x->srcs.len; i++)
        if (strcmp(x->srcs.items[i].file, rule->file) == 0)
            return x->srcs.items[i].src;
    FILE *probe = fopen(rule->file, "rb");
    Source *src = NULL;
    if (probe) {
        fclose(probe);
        src = source_read(rule->file, x->diag);
    }
    vec_push(&x->srcs, ((RuleSrc){rule->file, src}));
    return src;
}

void explain_note(Explainer *x, const Source *src, const char *file, SrcRange at,
                  const char *msg)
{
    if (src)
        diag_note(x->diag, src, at, "%s", msg);
    else
        fprintf(x->out, "%s:%d:%d: note: %s\n", file, at.first_line, at.first_column, msg);
}

static SrcRange pat_range(const graft_pat *p)
{
    return (SrcRange){p->line, p->col, p->last_line ? p->last_line : p->line,
                      p->last_col ? p->last_col : p->col};
}

/* note [part texts]: a part longer than 40 characters (or on several
 * lines) shows its start and its end, 'nn.batch_norm(c@nn.conv2d(x, w ...
 * scale=True)[0]': parts that start alike (an element and the call it
 * takes, nn.batch_norm(...)[0] and nn.batch_norm(...)) read apart. */
static void put_tail(const Source *src, int ln, size_t last_col, size_t min_from, StrBuf *out)
{
    size_t len;
    const char *line = source_line(src, ln, &len);
    size_t to = line ? (last_col < len ? last_col : len) : 0, from = to;
    while (from > min_from && to - from < 16 && line[from - 1] != ' ')
        from--;
    strbuf_puts(out, " ... ");
    strbuf_append(out, line ? line + from : "", to - from);
}

void explain_put_part(Explainer *x, const graft_rule *rule, const graft_pat *p, StrBuf *out)
{
    const Source *src = explain_rule_source(x, rule);
    size_t len;
    const char *line = src && p->line ? source_line(src, p->line, &len) : NULL;
    if (!line || p->col < 1 || (size_t)p->col > len) {
        strbuf_printf(out, "the part at line %d", p->line);
        return;
    }
    size_t from = (size_t)p->col - 1;
    bool one_line = !p->last_line || p->last_line == p->line;
    size_t to = one_line && p->last_col >= p->col ? (size_t)p->last_col : len;
    if (to > len)
        to = len;
    bool cut = to - from > 40 || (!one_line && p->last_line > p->line);
    strbuf_putc(out, '\'');
    size_t head = cut && to - from > 28 ? 28 : to - from;
    while (head > 0 && line[from + head - 1] == ' ')
        head--;
    strbuf_append(out, line + from, head);
    if (cut && p->last_col > 0)
        put_tail(src, one_line ? p->line : p->last_line, (size_t)p->last_col,
                 one_line ? from + head : 0, out);
    else if (cut)
        strbuf_puts(out, " ...");
    strbuf_putc(out, '\'');
}

void explain_rule_note(Explainer *x, const graft_rule *rule, const graft_pat *p, const char *msg)
{
    explain_note(x, explain_rule_source(x, rule), rule->file, pat_range(p), msg);
}

void explain_model_note(Explainer *x, const graft_node *n, const char *msg)
{
    int line = node_line(x->e->g, n);
    if (!line) {
        fprintf(x->out, "note: %s\n", msg);
        return;
    }
    int col = node_col(x->e->g, n);
    explain_note(x, x->model, x->names->file ? x->names->file : "<model>",
                 (SrcRange){line, col, line, col}, msg);
}

const char *explain_label(Explainer *x, const graft_node *n, StrBuf *sb)
{
    sb->len = 0;
    node_label(x->names, n, sb);
    return sb->data;
}

const char *explain_label_at(Explainer *x, const graft_node *n, StrBuf *sb)
{
    sb->len = 0;
    node_label_at(x->names, n, sb);
    return sb->data;
}

/* ---- the partial match ---- */

static void put_pair(Explainer *x, const graft_rule *rule, const MatchPair *pair)
{
    x->sb.len = 0;
    explain_put_part(x, rule, pair->pat, &x->sb);
    fprintf(x->out, "    %s (%s:%d:%d) = %s\n", x->sb.data, rule->file, pair->pat->line,
            pair->pat->col, explain_label_at(x, pair->node, &x->sb2));
}

/* The matcher's pairs, then the parts the why-walk passed (w, or NULL). */
static void put_pairs(Explainer *x, const graft_rule *rule, const MatchPair *pairs, uint32_t n,
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

/* What attr_range has read of the pattern's text. */
typedef struct AttrScan {
    const char *name; /* the attribute wanted */
    size_t len;       /* its length */
    int depth;        /* brackets open, 1 among the call's own operands */
    bool quoted;      /* inside a string */
    char prev;        /* the last character that is not layout */
    bool found;       /* NAME= seen: r holds its start */
} AttrScan;

/* Reads text[i] of line ln into s; true when the attribute's value ends
 * there (r complete). */
static bool attr_step(AttrScan *s, const char *text, size_t len, size_t i, int ln, SrcRange *r)
{
    char c = text[i];
    if (s->quoted) {
        s->quoted = c != '"' || (i > 0 && text[i - 1] == '\\');
        return false;
    }
    if (s->found && s->depth == 1 && (c == ',' || c == ')'))
        return true;
    s->quoted = c == '"';
    s->depth += (c == '(' || c == '[' || c == '{') - (c == ')' || c == ']' || c == '}');
    if (!s->found && s->depth == 1 && (s->prev == '(' || s->prev == ',') &&
        len - i > s->len && memcmp(text + i, s->name, s->len) == 0) {
        size_t j = i + s->len;
        while (j < len && (text[j] == ' ' || text[j] == '\t'))
            j++;
        if (j < len && text[j] == '=' && (j + 1 == len || text[j + 1] != '=')) {
            s->found = true;
            *r = (SrcRange){ln, (int)i + 1, ln, (int)i + 1};
        }
    }
    if (c != ' ' && c != '\t') {
        s->prev = c;
        if (s->found)
            r->last_line = ln, r->last_column = (int)i + 1;
    }
    return false;
}

/* note [attribute carets]: an attribute of a pattern is no part of its
 * own (a test of the call, without a place), so explain finds NAME=VALUE
 * in the rule's text among the call's own operands (after '(' or ',' at
 * the call's depth, up to the ',' or ')' that ends the value) and points
 * at it, not at the whole call; an attribute the text does not spell
 * there (a macro's argument) leaves the whole call. */
static SrcRange attr_range(Explainer *x, const graft_rule *rule, const graft_pat *p,
                           const char *name)
{
    SrcRange whole = pat_range(p), r = whole;
    const Source *src = explain_rule_source(x, rule);
    AttrScan s = {name, strlen(name), 0, false, 0, false};
    for (int ln = whole.first_line; src && ln <= whole.last_line; ln++) {
        size_t len;
        const char *text = source_line(src, ln, &len);
        size_t i = ln == whole.first_line ? (size_t)whole.first_column - 1 : 0;
        size_t end = ln == whole.last_line ? (size_t)whole.last_column : len;
        for (; text && i < end && i < len; i++)
            if (attr_step(&s, text, len, i, ln, &r))
                return r;
    }
    return whole;
}

static void explain_why(Explainer *x, const graft_rule *rule, const MatchWhy *w)
{
    const Matcher *m = x->e->m;
    StrBuf msg = {0}, part = {0};
    explain_put_part(x, rule, w->pat, &part);
    strbuf_printf(&msg, "%s wants ", part.data);
    match_why_wanted(m, w, &msg);
    if (w->kind == WHY_PRED && w->pred->kind == GRAFT_PRED_ATTR && w->pred->s)
        explain_note(x, explain_rule_source(x, rule), rule->file,
                     attr_range(x, rule, w->pat, w->pred->s), msg.data);
    else
        explain_rule_note(x, rule, w->pat, msg.data);
    msg.len = 0;
    strbuf_printf(&msg, "%s ", explain_label(x, w->node, &x->sb));
    match_why_found(m, w, &msg);
    strbuf_puts(&msg, ", not ");
    match_why_wanted(m, w, &msg);
    explain_model_note(x, w->node, msg.data);
    strbuf_free(&msg);
    strbuf_free(&part);
}

/* A part that fails: its reason (w), or each alternative's. */
static void explain_item(Explainer *x, const graft_rule *rule, MatchWhy w)
{
    if (w.kind != WHY_ALT) {
        explain_why(x, rule, &w);
        return;
    }
    StrBuf msg = {0};
    explain_put_part(x, rule, w.pat, &msg);
    strbuf_printf(&msg, ": every alternative fails at %s", explain_label(x, w.node, &x->sb));
    explain_rule_note(x, rule, w.pat, msg.data);
    strbuf_free(&msg);
    for (int k = 0; k < w.pat->nkids; k++) {
        MatchWhy kw = match_why(x->e->m, w.pat->kids[k], w.node);
        if (kw.kind == WHY_ALT)
            kw.kind = WHY_STATE; /* nested alternatives: one level is told */
        fprintf(x->out, "  alternative %d of %d:\n", k + 1, w.pat->nkids);
        explain_why(x, rule, &kw);
    }
}

static void explain_rebind(Explainer *x, const graft_rule *rule, const MatchFailure *f)
{
    StrBuf msg = {0};
    const char *name = rule->slot_names[f->pat->slot];
    strbuf_printf(&msg, "'%s' is used again here, and must be the same node", name);
    explain_rule_note(x, rule, f->pat, msg.data);
    msg.len = 0;
    strbuf_printf(&msg, "%s is not %s, which '%s' matched first",
                  explain_label(x, f->node, &x->sb), explain_label_at(x, f->other, &x->sb2),
                  name);
    explain_model_note(x, f->node, msg.data);
    strbuf_free(&msg);
}

static void explain_attr(Explainer *x, const graft_rule *rule, const MatchFailure *f)
{
    const graft_attr_bind *ab = &f->pat->binds[f->bind];
    StrBuf msg = {0};
    if (ab->name)
        strbuf_printf(&msg, "attribute %s binds '%s' again, to another value", ab->name,
                      rule->slot_names[ab->slot]);
    else /* p[i] (note [index variables] in src/compiler/check_vars.c) */
        strbuf_printf(&msg, "the index '%s' is used again here, and must be the same index",
                      rule->slot_names[ab->slot]);
    explain_rule_note(x, rule, f->pat, msg.data);
    msg.len = 0;
    strbuf_printf(&msg, "%s has %s", explain_label(x, f->node, &x->sb),
                  ab->name ? ab->name : "index ");
    if (ab->name)
        strbuf_putc(&msg, '=');
    if (f->got)
        pattern_attr_key(f->got, &msg);
    else
        strbuf_puts(&msg, "(unset)");
    strbuf_puts(&msg, ", not ");
    if (f->had)
        pattern_attr_key(f->had, &msg);
    else
        strbuf_puts(&msg, "(unset)");
    explain_model_note(x, f->node, msg.data);
    strbuf_free(&msg);
}

/* ---- one rule at one node ---- */

static void put_bindings(Explainer *x, const graft_rule *rule, const graft_binding *b)
{
    const char *sep = ": ";
    for (int s = 0; s < rule->nslots; s++) {
        if (!b[s].node && !b[s].attr)
            continue;
        fprintf(x->out, "%s%s=", sep, rule->slot_names[s]);
        sep = ", ";
        x->sb.len = 0;
        if (b[s].node)
            node_label(x->names, b[s].node, &x->sb);
        else
            pattern_attr_key(b[s].attr, &x->sb);
        fputs(x->sb.data, x->out);
    }
}

/* What rule r's partition pass makes of its match at root. */
/* Why the pass's grouping drops root (overlap, claimed, partitioned),
 * after what ("not grouped", "not applied"). */
static void explain_dropped(Explainer *x, graft_node *root, const PartVerdict *v, const char *what)
{
    switch (v->fate) {
    case PART_OVERLAP:
        fprintf(x->out, "  %s: overlap: %s is in the group rooted at %s, found first\n", what,
                explain_label_at(x, v->a, &x->sb), explain_label_at(x, v->b, &x->sb2));
        break;
    case PART_CLAIMED:
        fprintf(x->out, "  %s: %s is inside the group rooted at %s already\n", what,
                explain_label(x, root, &x->sb), explain_label_at(x, v->a, &x->sb2));
        break;
    case PART_ROOT_READ:
        if (v->b)
            fprintf(x->out, "  %s: root %s is read by %s inside the group: a partition's "
                    "call cannot\n  read its own result\n", what,
                    explain_label_at(x, v->a, &x->sb), explain_label_at(x, v->b, &x->sb2));
        else
            fprintf(x->out, "  %s: root %s lies in another function than %s: no one call "
                    "serves both\n", what, explain_label_at(x, v->a, &x->sb),
                    explain_label_at(x, root, &x->sb2));
        break;
    case PART_PARTITIONED:
        fprintf(x->out, "  %s: %s is inside a function partitioned before\n", what,
                explain_label(x, root, &x->sb));
        break;
    default:
        fprintf(x->out, "  %s: a pattern of one leaf makes no group\n", what);
        break;
    }
}

/* Says that attribute attr of the action's call op has no value because
 * variable slot holds neither an attribute nor a number. */
static void explain_slot_attr(Explainer *x, const graft_rule *rule, const char *attr,
                              const char *op, int slot)
{
    const graft_node *n = matcher_bindings(x->e->m)[slot].node;
    fprintf(x->out, "  not applied: attribute %s of the action's %s has no value on this "
            "match:\n", attr, op ? op : "call");
    fprintf(x->out, "  '%s' is bound to %s, neither an attribute nor a number (a scalar "
            "or a rank-0 tensor constant)\n",
            rule->slot_names[slot], n ? explain_label(x, n, &x->sb) : "nothing");
}

/* A compiled action (rule->action NULL) refuses a match as its table of
 * attributes given variables says (graft_slot_attr): the first row whose
 * variable has no value, the one its C tests first. */
static const graft_slot_attr *compiled_refusal(const graft_rule *rule, const graft_binding *b)
{
    for (int i = 0; i < rule->nslot_attrs; i++)
        if (!graft_attr_slot_known(&b[rule->slot_attrs[i].slot]))
            return &rule->slot_attrs[i];
    return NULL;
}

/* Says compiled_refusal's row; false when there is none. */
static bool explain_compiled_refusal(Explainer *x, const graft_rule *rule)
{
    const graft_slot_attr *sa = compiled_refusal(rule, matcher_bindings(x->e->m));
    if (sa)
        explain_slot_attr(x, rule, sa->attr, sa->op, sa->slot);
    return sa != NULL;
}

/* A spliced call of the action whose operand count on this match its op
 * does not take (note [spliced operand counts] in
 * src/compiler/check_action.c). */
static void explain_spliced_count(Explainer *x, const graft_expr *call)
{
    int n = rewrite_operand_count(call, matcher_bindings(x->e->m));
    fprintf(x->out, "  not applied: the action's %s would have %d operand%s on this match; ",
            call->s, n, n == 1 ? "" : "s");
    if (call->cmp == 0)
        fprintf(x->out, "%s takes at least %d\n", call->s, (int)call->i);
    else if (call->cmp - 1 == call->i)
        fprintf(x->out, "%s takes %d\n", call->s, (int)call->i);
    else
        fprintf(x->out, "%s takes %d to %d\n", call->s, (int)call->i, call->cmp - 1);
}

/* A root whose value the action would not fit: what graft run asks of
 * the value built (graph_replacement_misfit, note [fixed outputs] in
 * src/ir/graph_module.c), asked before it is built. */
typedef struct Misfit {
    ReplacementMisfit why;
    const graft_node *root;
    int fields; /* the value's: -1 when it is no tuple */
    int field;  /* the output field it is about, or -1 */
    int nth;    /* the root's number in a rule of several roots, 0 in a rule of one */
} Misfit;

/* Whether x, the action for root (the nth), would not fit; m says why. */
static bool misfits(graft_engine *e, const graft_expr *x, const graft_node *root, int nth,
                    Misfit *m)
{
    ActionValue v;
    rewrite_action_value(&v, x, matcher_bindings(e->m));
    *m = (Misfit){.root = root, .fields = v.value.fields, .nth = nth};
    m->why = graph_replacement_misfit(e->g, root, &v.value, &m->field);
    return m->why != REPLACEMENT_FITS;
}

/* The first root of the matcher's match at root whose value does not
 * fit, in *m; false when every one does.  A rule of several roots makes
 * no tuple node of its tuple: each root takes its field, and another
 * action's results are read by element, a tensor each (note [root
 * values] in rewrite_build.c). */
static bool find_misfit(graft_engine *e, const graft_rule *rule, const graft_node *root,
                        Misfit *m)
{
    if (!rule->nroots)
        return misfits(e, rule->action, root, 0, m);
    int n;
    graft_node *const *roots = matcher_roots(e->m, &n);
    const graft_expr *a = rule->action;
    bool fields = a->kind == GRAFT_EXPR_TUPLE && a->nkids == n;
    for (int j = 0; j < n; j++)
        if (misfits(e, fields ? a->kids[j] : a, roots[j], j + 1, m))
            return true;
    return false;
}

/* Says why m's value does not fit: "  what: ...". */
static void put_misfit(Explainer *x, const char *what, const Misfit *m)
{
    int outputs = graph_fixed_output_fields(x->e->g);
    fprintf(x->out, "  %s: ", what);
    if (m->nth)
        fprintf(x->out, "for root %d, ", m->nth);
    switch (m->why) {
    case REPLACEMENT_FEWER_FIELDS:
        fprintf(x->out, "the model has %d outputs; the action's tuple would have %d field%s\n",
                outputs, m->fields, m->fields == 1 ? "" : "s");
        break;
    case REPLACEMENT_NO_TUPLE:
        fprintf(x->out, "the model has %d outputs; the action makes no tuple of them\n",
                outputs);
        break;
    case REPLACEMENT_TUPLE_FOR_TENSOR:
        fputs("the action makes a tuple where the model has a tensor\n", x->out);
        break;
    case REPLACEMENT_TUPLE_OUTPUT:
        fprintf(x->out, "field %d of the action's tuple would be a tuple, where the model "
                "has a tensor\n", m->field);
        break;
    case REPLACEMENT_INPUT:
        if (m->field >= 0)
            fprintf(x->out, "the model's output %d is its input %s; the action's tuple would "
                    "give it another value\n", m->field,
                    explain_label(x, node_arg(m->root, m->field), &x->sb));
        else
            fprintf(x->out, "the model's input %s is also its output; the action would give "
                    "it another value\n", explain_label(x, m->root, &x->sb));
        break;
    case REPLACEMENT_FITS:
        break;
    }
}

/* When the action would give a root a value of a shape the model's
 * result does not take (find_misfit), says so; false when it fits. */
static bool explain_unfitting(Explainer *x, const graft_rule *rule, const graft_node *root)
{
    Misfit m;
    if (!find_misfit(x->e, rule, root, &m))
        return false;
    put_misfit(x, "not applied", &m);
    return true;
}

/* What rule r's partition pass makes of root, the matcher's match at
 * root r's on entry. */
static void explain_partition(Explainer *x, uint32_t r, graft_node *root)
{
    Misfit m = {.root = root, .fields = -1, .field = -1};
    m.why = engine_partition_misfit(x->e, &x->e->rs->rules[r], root, &m.nth); /* (r's match) */
    PartVerdict v;
    engine_partition_verdict(x->e, r, root, &v);
    if (v.fate == PART_UNFIT)
        put_misfit(x, "not grouped", &m);
    else if (v.fate == PART_KEPT)
        fputs("  grouped by its partition pass\n", x->out);
    else if (v.fate == PART_INTERIOR)
        fprintf(x->out, "  not grouped: interior use: %s is used by %s outside the group,\n"
                "  which %s\n",
                explain_label_at(x, v.a, &x->sb), explain_label_at(x, v.b, &x->sb2),
                x->e->rs->rules[r].nroots ? "no root post-dominates"
                                          : "the root does not post-dominate");
    else
        explain_dropped(x, root, &v, "not grouped");
}

/* Whether graft run would refuse rule's action on the matcher's match at
 * root, as a failing guard (explain_uncomputable says why). */
static bool action_refused(graft_engine *e, const graft_rule *rule, const graft_node *root)
{
    const graft_binding *b = matcher_bindings(e->m);
    int attr;
    Misfit m;
    if (!rule->action)
        return compiled_refusal(rule, b) != NULL;
    return rewrite_first_unknown(rule->action, b, &attr) || find_misfit(e, rule, root, &m);
}

/* When the action cannot be made from this match (rewrite_computable
 * false: the rewrite refuses it as a guard would), says which attribute
 * or splice lacks a value; false when the action can be made. */
static bool explain_uncomputable(Explainer *x, const graft_rule *rule, const graft_node *root)
{
    if (!rule->action)
        return explain_compiled_refusal(x, rule);
    int attr;
    const graft_expr *at = rewrite_first_unknown(rule->action, matcher_bindings(x->e->m), &attr);
    if (!at)
        return explain_unfitting(x, rule, root);
    if (attr == PLACE_SPLICE) {
        fputs("  not applied: a splice of the action has no range on this match\n", x->out);
        return true;
    }
    if (attr == PLACE_COUNT) {
        explain_spliced_count(x, at);
        return true;
    }
    const graft_act_attr *a = &at->attrs[attr];
    if (a->value->kind == GRAFT_EXPR_SLOT) {
        explain_slot_attr(x, rule, a->name, at->s, a->value->slot);
        return true;
    }
    fprintf(x->out, "  not applied: attribute %s of the action's %s has no value on this "
            "match:\n", a->name, at->s ? at->s : "call");
    fputs("  it is computed from types or values this match does not give\n", x->out);
    return true;
}

/* Why rule r's match at root would not be applied by graft run's next
 * round (rewrite rules): the interior-use rule, or a rule whose pass runs
 * before r's (best first) and applies at root; a [once] rule is refused
 * at no node, it only sits out the rounds after the first; for a partition rule, what its pass
 * makes of it.  The matcher's pairs are r's match on entry. */
static void explain_policy(Explainer *x, uint32_t r, graft_node *root)
{
    graft_engine *e = x->e;
    const graft_rule *rule = &e->rs->rules[r];
    if (rule->kind != GRAFT_ACTION_REWRITE) {
        explain_partition(x, r, root);
        return;
    }
    if (explain_uncomputable(x, rule, root)) /* on the match's bindings, before the verdict's */
        return;
    PartVerdict v;
    engine_rewrite_verdict(e, r, root, &v); /* the grouping of r's pass */
    if (v.fate == PART_INTERIOR) {
        fprintf(x->out, "  not applied: interior use: %s is used by %s outside the match,\n"
                "  which %s\n",
                explain_label_at(x, v.a, &x->sb), explain_label_at(x, v.b, &x->sb2),
                rule->nroots ? "no root post-dominates" : "the root does not post-dominate");
        StrBuf msg = {0};
        strbuf_printf(&msg, "%s is inside the match", explain_label(x, v.a, &x->sb));
        explain_model_note(x, v.a, msg.data);
        msg.len = 0;
        strbuf_printf(&msg, "%s uses it from outside", explain_label(x, v.b, &x->sb));
        explain_model_note(x, v.b, msg.data);
        strbuf_free(&msg);
        return;
    }
    if (v.fate != PART_KEPT) {
        explain_dropped(x, root, &v, "not applied");
        return;
    }
    uint32_t n;
    const uint32_t *cand = automaton_state_rules(e->a, labels_state(e->labels, root), &n);
    for (uint32_t k = 0; k < n && cand[k] != r; k++) {
        const graft_rule *other = &e->rs->rules[cand[k]];
        PartVerdict ov;
        if (other->kind != GRAFT_ACTION_REWRITE)
            continue;
        engine_rewrite_verdict(e, cand[k], root, &ov);
        if (ov.fate != PART_KEPT ||
            (matcher_try(e->m, cand[k], root) == MATCH_OK && action_refused(e, other, root)))
            continue; /* (the verdict's grouping has left the matcher as it liked) */
        fprintf(x->out, "  not applied: %s (%s:%d, priority %d) is tried first at %s and "
                "applies\n", other->name, other->file, other->line, other->priority,
                explain_label(x, root, &x->sb));
        return;
    }
    if (rule->once) /* [once] leaves the rounds once it rewrote (note [rewrite rounds]) */
        fputs("  applied by graft run's next round ([once]: unless it rewrote already)\n", x->out);
    else
        fputs("  applied by graft run's next round\n", x->out);
}

bool explainer_at(Explainer *x, uint32_t r, graft_node *root)
{
    graft_engine *e = x->e;
    const graft_rule *rule = &e->rs->rules[r];
    matcher_explain(e->m, &x->rec);
    MatchResult res = matcher_try(e->m, r, root);
    matcher_explain(e->m, NULL);
    fprintf(x->out, "%s (%s:%d) at %s: ", rule->name, rule->file, rule->line,
            explain_label_at(x, root, &x->sb));
    if (res == MATCH_OK) {
        fputs("matches", x->out);
        put_bindings(x, rule, matcher_bindings(e->m));
        fputc('\n', x->out);
        explain_roots_matched(x, rule);
        explain_policy(x, r, root);
        return true;
    }
    fputs("no match\n", x->out);
    const MatchFailure *f = &x->rec;
    MatchWhy w;
    if (f->kind == MFAIL_ITEM)
        w = match_why(e->m, f->pat, f->node);
    put_pairs(x, rule, f->pairs, f->depth, f->kind == MFAIL_ITEM ? &w : NULL);
    explain_roots_failed(x, rule, f);
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
    case MFAIL_NONE: case MFAIL_ROOT: /* explain_roots_failed said it */
        break;
    }
    return false;
}

/* ---- the parts, for pictures ---- */

bool explainer_parts(Explainer *x, uint32_t r, graft_node *root, uint32_t **ids, uint32_t *n,
                     graft_node **failed)
{
    graft_engine *e = x->e;
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
