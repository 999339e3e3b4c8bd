/* relay_print_number.c - TVM's numbering of temps, and the binding lines
 * and scopes it orders.
 *
 * note [temp numbering]: TVM v0.14's printer (relay_text_printer.cc)
 * numbers temps in an order that is not plain post-order, and graft must
 * print byte for byte what TVM prints.  It works in two steps per scope:
 *  1. "leaf visits" in iterative post-order from the scope's result:
 *     a call's callee, then its arguments left to right; tuple fields;
 *     a getitem's tuple.  A function visited this way prints its body
 *     right away, in a new scope, taking temp numbers then.
 *  2. a leaf visit builds the node's text by printing its operands (a
 *     call's arguments, then its callee): variables and constants print
 *     inline; an operand with a temp prints as it; any other operand gets
 *     the next temp number now, and its binding line "%N = TEXT;" goes to
 *     the current scope.
 * The scope's result prints inline as its last line.  So a function used
 * as a callee gets its number after the call's arguments.  Annotation
 * comments print where the node's text first appears.
 */
#include "relay_print_impl.h"

#include <stdlib.h>
#include <string.h>

/* An empty buffer for a scope-holding text: a used text's buffer when
 * there is one (note [pending texts]), so that buffers are allocated as
 * many as texts wait at once, not per function. */
static StrBuf *spare_get(Printer *p)
{
    StrBuf *sb = p->spare.len ? vec_pop(&p->spare) : xcalloc(1, sizeof(StrBuf));
    sb->len = 0;
    return sb;
}

/* "free_var %x: T;" where a free variable is first printed, as TVM's
 * PrintExpr does (into the current scope's lines). */
static void declare_free(Printer *p, const graft_node *v)
{
    p->visited[node_id(v)] = VISIT_USED;
    out_indent(p->lines, p->level);
    out_lit(p->lines, "free_var ");
    printer_put_param(p, p->lines, v);
    out_lit(p->lines, ";\n");
}

/* note [constant texts]: a constant prints the same reference at every
 * use, its value and comment ("1e-05f / * ty=float32 * /"); that text is
 * written once, at its first use, into a buffer of its own, and copied
 * from there.  Its spelling's length is its interned copy's (the graph
 * interns constants' spellings: graph_add_const).  When no node prints
 * a comment (a graph without annotations, types not printed: a
 * partition's or a rewrite's) a constant's reference is its spelling,
 * copied from the node: nothing is kept (each of the 10,000 in issue
 * 34's partition took 73 instructions to keep). */
static void keep_const(Printer *p, const graft_node *m)
{
    const char *value = node_str(m);
    size_t n = interner_length(value);
    Comment c = {0};
    if (has_comment(p, m))
        c = printer_comment(p, m);
    char *at = out_room(&p->consts, n + c.len);
    p->text[node_id(m)].kept.off = kept_u32(p->consts.len);
    p->text[node_id(m)].kept.len = kept_u32(n + c.len);
    p->consts.len = (size_t)(printer_write_comment(write_mem(at, value, n), &c) - p->consts.data);
    p->visited[node_id(m)] = VISIT_USED;
}

/* note [texts written once]: step 2 of note [temp numbering] builds a
 * node's text at its leaf visit, and the text prints later, where it is
 * used: in its binding line or inline.  What building it does besides
 * the text happens at the leaf visit, operand by operand in the text's
 * order: a free variable's declaration, a variable's name (note
 * [variable names]: names are given in printing order), a binding line
 * for an operand without a temp (resolve_operand).  What is left is
 * fixed from then on (temps, names, constants), so a call's, tuple's or
 * getitem's text is written only where it is used (printer_put_text), straight
 * into its line, and its length is bounded at the leaf visit (note [one
 * reservation]); a function's, let's, if's and match's text holds whole
 * scopes, printed at the leaf visit, so it waits in pending (note
 * [pending texts]).  Returns the most bytes operand m's reference
 * takes. */
GRAFT_HOT size_t resolve_operand(Printer *p, const graft_node *m)
{
    uint32_t id = node_id(m);
    switch (node_kind(m)) {
    case NODE_VAR: /* only a free one has a state: declared or not */
        if (node_is_free(m) && p->visited[id] == VISIT_NOT)
            declare_free(p, m);
        return name_len(p, m);
    case NODE_CONST:
        if (!p->comments) /* its spelling alone (note [constant texts]) */
            return interner_length(node_str(m));
        if (p->visited[id] == VISIT_NOT)
            keep_const(p, m);
        return p->text[id].kept.len;
    case NODE_GLOBAL: return 1 + strlen(node_str(m));
    case NODE_OPREF: return strlen(node_str(m));
    default:
        if (p->visited[id] != VISIT_BOUND)
            printer_bind(p, m);
        return TEMP_MAX;
    }
}

/* A node's reference from its user (step 2 of note [temp numbering]). */
void printer_put_operand(Printer *p, StrBuf *out, const graft_node *m)
{
    size_t most = resolve_operand(p, m);
    out->len = (size_t)(printer_write_ref(p, out_room(out, most), m) - out->data);
}

/* The operands of a call, tuple or getitem (kind), resolved in the
 * order its text prints them: a call's arguments before its callee, so
 * they take temps before a function callee does; then the most bytes its
 * text takes apart from attributes: the references, ", " between them,
 * "(" and ",)", or "." and an index, and an op's name (found here, where
 * the node is read, so that printer_text_max reads the bound alone). */
static void resolve_kids(Printer *p, const graft_node *n, uint8_t kind)
{
    graft_node *const *a = node_slots(n), *const *end = a + node_nargs(n);
    graft_node *const *callee = node_callee_slot(n); /* the slot after the operands */
    size_t most = 3 + 2 * (size_t)(end - a + (callee != NULL)) + 21;
    if (kind == NODE_CALL && !callee)
        most += op_len(node_str(n));
    for (; a < end; a++)
        most += resolve_operand(p, *a);
    if (callee)
        most += resolve_operand(p, *callee);
    p->text[node_id(n)].kept.len = kept_u32(most);
}

/* note [pending texts]: the texts of functions, lets, ifs and matches
 * wait between their leaf visit and their use, each in the buffer it
 * was printed into, where its use copies it from: one copy, where
 * copying it into one buffer of all pending texts made two.  Most are
 * used soon after, so before a new text is kept, used texts on top of
 * the stack give their buffers back; memory then follows the graph's
 * width, not its size.  A text's place (kept.off) is its entry in the
 * stack, which stays while it waits: only entries above it go first. */
static void keep_text(Printer *p, uint32_t id, StrBuf *text)
{
    while (p->pending.len && p->visited[p->pending.items[p->pending.len - 1].id] >= VISIT_USED)
        vec_push(&p->spare, vec_pop(&p->pending).text);
    p->text[id].kept.off = kept_u32(p->pending.len);
    p->text[id].kept.len = kept_u32(text->len);
    vec_push(&p->pending, ((PendingText){id, text}));
    p->visited[id] = VISIT_TEXT;
}

/* Step 2 of note [temp numbering] for node id: its operands resolved
 * (note [texts written once]), or a scope-holding text built in a buffer
 * of its own and kept there (note [pending texts]). */
static void leaf_visit(Printer *p, const graft_node *n)
{
    uint8_t kind = node_kind(n);
    uint32_t id = node_id(n);
    if (kind == NODE_CALL || kind == NODE_TUPLE || kind == NODE_GETITEM) {
        resolve_kids(p, n, kind);
        p->visited[id] = VISIT_TEXT;
        return;
    }
    /* the text's own blocks are placed where the text goes: a binding
     * line at the scope's level, or inline at root_level */
    int level = id == p->root ? p->root_level : p->level;
    StrBuf *out = spare_get(p);
    switch (kind) {
    case NODE_FUNC: printer_put_fn_value(p, out, n, level); break;
    case NODE_LET: printer_put_let(p, out, n, level); break;
    case NODE_IF: printer_put_if(p, out, n, level); break;
    case NODE_MATCH: printer_put_match(p, out, n, level); break;
    default: break; /* always inline: never visited */
    }
    keep_text(p, id, out);
}

static bool needs_visit(const Printer *p, const graft_node *n)
{
    return !always_inline(node_kind(n)) && p->visited[node_id(n)] == VISIT_NOT;
}

/* note [walks on the nodes]: the walks read each node's kind and
 * operands from the node itself, its operand slots in place: a frame
 * steps through the slots, so a child costs the load of its slot's
 * value more than an array of children's ids would, and no such array
 * is built (graph_arrays_build's pass over every node and copy of every
 * operand was 186 instructions per op node of the 990 of the printing
 * of issue 34's partition, and 2.3 MB of its peak).  The one child not
 * in slot order is a callee: it comes first (graph_child's order) but
 * sits after the operands, so it gets a frame of its own, pushed above
 * its user's, whose walk then finishes before the user's operands'
 * starts, as if it were the first of them. */

/* Pushes a frame for node n: its children in leaf-visit order are its
 * callee, then its operands; a function's and a let's are none (their
 * scopes print in their own walks), an if's and a match's the first
 * operand only (the rest are scopes).  A callee that needs a visit gets
 * the next frame up (note [walks on the nodes]), and its callee the
 * next, and so on, in a loop. */
GRAFT_HOT void push_frame(Printer *p, const graft_node *n)
{
    for (;;) {
        graft_node *const *start = node_slots(n), *const *end = start + node_nargs(n);
        switch (node_kind(n)) {
        case NODE_FUNC:
        case NODE_LET: end = start; break;
        case NODE_IF:
        case NODE_MATCH: end = end > start ? start + 1 : start; break;
        default: break;
        }
        vec_push(&p->frames, ((Frame){n, start, end}));
        graft_node *const *callee = node_callee_slot(n);
        if (!callee || !needs_visit(p, *callee))
            return;
        n = *callee;
    }
}

/* note [temp numbering], step 1: iterative post-order from root.  A
 * leaf visit of a function visits its body, so walks nest: each works
 * above the frames of the walks it is inside, in one stack. */
void printer_visit_all(Printer *p, const graft_node *root)
{
    if (!needs_visit(p, root))
        return;
    size_t base = p->frames.len;
    push_frame(p, root);
    while (p->frames.len > base) {
        Frame *f = &p->frames.items[p->frames.len - 1];
        graft_node *const *next = f->next;
        while (next < f->end && !needs_visit(p, *next)) /* no stores: */
            next++;                                    /* all in registers */
        if (next < f->end) {
            f->next = next + 1;
            push_frame(p, *next);
            continue;
        }
        const graft_node *n = f->n;
        p->frames.len--;
        if (p->visited[node_id(n)] == VISIT_NOT)
            leaf_visit(p, n);
    }
}

/* An expression printed inline where TVM tries to inline it (a scope's
 * result, a let's value): its text, after the bindings its operands
 * need; a node with a temp already prints as it.  For a scope's result
 * (result: out holds the scope's lines) the indentation goes between
 * those bindings and the text. */
GRAFT_HOT void put_inline(Printer *p, StrBuf *out, const graft_node *root, int level, bool result)
{
    uint32_t saved_root = p->root;
    int saved_level = p->root_level;
    p->root = node_id(root);
    p->root_level = level;
    printer_visit_all(p, root);
    bool as_operand = always_inline(node_kind(root)) || p->visited[node_id(root)] == VISIT_BOUND;
    size_t most = as_operand ? resolve_operand(p, root) : 0;
    if (result)
        out_indent(out, level);
    if (as_operand) {
        out->len = (size_t)(printer_write_ref(p, out_room(out, most), root) - out->data);
    } else {
        printer_put_text(p, out, root);
        if (has_comment(p, root))
            printer_put_annot(p, out, root);
        p->visited[node_id(root)] = VISIT_USED;
    }
    p->root = saved_root;
    p->root_level = saved_level;
}

void printer_put_inline(Printer *p, StrBuf *out, const graft_node *root, int level,
                        bool result)
{
    put_inline(p, out, root, level, result);
}

/* A scope: its binding lines, then its result inline (no newline).
 * Nothing else writes to out meanwhile, so the lines go straight there. */
void printer_put_scope(Printer *p, StrBuf *out, const graft_node *root, int level)
{
    StrBuf *saved_lines = p->lines;
    int saved_level = p->level;
    p->lines = out;
    p->level = level;
    put_inline(p, out, root, level, true); /* inline: a function's body is a scope */
    p->lines = saved_lines;
    p->level = saved_level;
}
