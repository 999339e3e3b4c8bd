/* emit_c_refs.c - which rules each shared table entry belongs to.
 *
 * Items and node tests are shared between rules, so the tables do not
 * show whose they are.  Like iburg's "stmt: ASGNI(disp,reg)" on every
 * case, each entry gets a pointer to the first rule using it, at the
 * line of the sub-pattern: "fold_bn (fold_bn.graft:12)".  A rule uses
 * the items of its pattern nodes, their argument items, and their tests.
 */
#include "emit_c_impl.h"

#include <stdlib.h>

#include "walk.h"

/* Marks entry id used by rule r at line; true when new for r. */
static bool mark(int *last, int *first, int *line, int *count, uint32_t id, int r, int at)
{
    if (last[id] == r)
        return false;
    last[id] = r;
    count[id]++;
    if (first[id] < 0) {
        first[id] = r;
        line[id] = at;
    }
    return true;
}

typedef struct RefWalk {
    EmitRefs *refs;
    const graft_rule_set *rs;
    int *item_last;
    int *pred_last;
    WALK(uint32_t) items; /* items marked, their args still to visit */
    int rule;
} RefWalk;

static void mark_item(RefWalk *w, uint32_t item, int at)
{
    EmitRefs *f = w->refs;
    if (item >= w->rs->nitems ||
        !mark(w->item_last, f->item_first, f->item_line, f->item_count, item, w->rule, at))
        return;
    const graft_item *it = &w->rs->items[item];
    for (int i = 0; i < it->npreds; i++)
        if (it->preds[i] < w->rs->npreds)
            mark(w->pred_last, f->pred_first, f->pred_line, f->pred_count, it->preds[i],
                 w->rule, at);
    walk_push(&w->items, item);
}

/* Marks the items of every node of pattern p.  Alternatives share their
 * sub-patterns, so the pattern is a DAG whose paths can be exponentially
 * many: each node is visited once (seen), with an explicit stack. */
static void mark_pattern(RefWalk *w, const graft_pat *p, KeyMap *seen)
{
    WALK(const graft_pat *) walk = {0};
    walk_push(&walk, p);
    while (walk.depth) {
        const graft_pat *node = walk_pop(&walk);
        int64_t *visited = keymap_put(seen, keymap_ptr_key(node), 0);
        if (*visited)
            continue;
        *visited = 1;
        mark_item(w, node->item, node->line);
        walk_reserve(&walk, (size_t)node->nkids);
        for (int i = node->nkids - 1; i >= 0; i--) /* first kid on top */
            walk_push_reserved(&walk, node->kids[i]);
    }
    walk_free(&walk);
}

static int *filled(size_t n, int v)
{
    int *a = xcalloc(n + 1, sizeof *a);
    for (size_t i = 0; i < n; i++)
        a[i] = v;
    return a;
}

void emit_refs_init(EmitRefs *refs, const graft_rule_set *rs)
{
    refs->item_first = filled(rs->nitems, -1);
    refs->item_line = filled(rs->nitems, 0);
    refs->item_count = filled(rs->nitems, 0);
    refs->pred_first = filled(rs->npreds, -1);
    refs->pred_line = filled(rs->npreds, 0);
    refs->pred_count = filled(rs->npreds, 0);
    RefWalk w = {.refs = refs, .rs = rs, .item_last = filled(rs->nitems, -1),
                 .pred_last = filled(rs->npreds, -1)};
    KeyMap seen = {0};
    for (uint32_t r = 0; r < rs->nrules; r++) {
        w.rule = (int)r;
        if (rs->rules[r].pattern)
            mark_pattern(&w, rs->rules[r].pattern, &seen);
        for (int j = 1; j < rs->rules[r].nroots; j++) /* the later roots of several */
            mark_pattern(&w, rs->rules[r].roots[j].pattern, &seen);
        while (w.items.depth) { /* argument items: at the line of their parent */
            uint32_t item = walk_pop(&w.items);
            const graft_item *it = &rs->items[item];
            for (int i = 0; i < it->nargs; i++)
                mark_item(&w, it->args[i], refs->item_line[item]);
        }
    }
    keymap_free(&seen);
    free(w.item_last);
    free(w.pred_last);
    walk_free(&w.items);
}

void emit_refs_free(EmitRefs *refs)
{
    free(refs->item_first);
    free(refs->item_line);
    free(refs->item_count);
    free(refs->pred_first);
    free(refs->pred_line);
    free(refs->pred_count);
}

void emit_ref_text(const graft_rule_set *rs, int rule, int line, int count, StrBuf *sb)
{
    if (rule < 0) {
        strbuf_puts(sb, "no rule");
        return;
    }
    StrBuf text = {0};
    strbuf_printf(&text, "%s (%s:%d)", rs->rules[rule].name, rs->rules[rule].file, line);
    if (count > 1)
        strbuf_printf(&text, " and %d more rule%s", count - 1, count > 2 ? "s" : "");
    emit_comment_text(sb, text.data);
    strbuf_free(&text);
}
