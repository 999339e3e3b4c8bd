/* fuzz_gen.c - the case generator (fuzz_gen.h).
 *
 * Patterns and actions are generated with an explicit depth bound
 * (MAX_DEPTH), so the recursion here is bounded by a constant, not by the
 * input.  Variables: a pattern binds some of x, y, z; the action only
 * uses variables the pattern bound, so most rules check. */
#include "fuzz_gen.h"

#include <stdbool.h>
#include <string.h>

enum { MAX_DEPTH = 3, MAX_NODES = 24, NVARS = 3 };

unsigned fuzz_pick(FuzzBytes *in, unsigned n)
{
    uint8_t b = in->pos < in->size ? in->data[in->pos++] : 0;
    return n ? b % n : 0;
}

/* Ops the generator uses, with their operand counts (registry arities). */
typedef struct GenOp {
    const char *name; /* op name */
    int arity;        /* operands */
} GenOp;

static const GenOp gen_ops[] = {
    {"add", 2},      {"multiply", 2}, {"subtract", 2}, {"divide", 2},
    {"negative", 1}, {"nn.relu", 1},  {"sqrt", 1},     {"exp", 1},
    {"nn.conv2d", 2}, {"maximum", 2},
};

static const char *const gen_consts[] = {"1f", "2f", "1e-05f", "0f"};

/* ---- models ---- */

/* One operand: an earlier temp, a param or a constant.  A tuple temp is
 * read through an element (%t.0): an op given a tuple where it wants a
 * tensor is a type error since graft infers types on load, and the
 * generated models must load. */
static void model_operand(FuzzBytes *in, StrBuf *out, int ntemps, const bool *is_tuple)
{
    unsigned k = fuzz_pick(in, 8);
    if (k < 5 && ntemps > 0) {
        unsigned t = fuzz_pick(in, (unsigned)ntemps);
        if (is_tuple[t])
            strbuf_printf(out, "%%%u.%u", t, fuzz_pick(in, 2));
        else
            strbuf_printf(out, "%%%u", t);
    } else if (k < 7)
        strbuf_printf(out, "%%p%u", fuzz_pick(in, 3));
    else
        strbuf_puts(out, gen_consts[fuzz_pick(in, ARRAY_LEN(gen_consts))]);
}

/* The right-hand side of binding %i: a call, a tuple or an access. */
static void model_value(FuzzBytes *in, StrBuf *out, int i, int *tuple, bool *is_tuple)
{
    unsigned k = fuzz_pick(in, 10);
    if (k == 9 && *tuple >= 0) {
        strbuf_printf(out, "%%%d.%u", *tuple, fuzz_pick(in, 2));
        return;
    }
    if (k == 8) {
        strbuf_puts(out, "(");
        model_operand(in, out, i, is_tuple);
        strbuf_puts(out, ", ");
        model_operand(in, out, i, is_tuple);
        strbuf_puts(out, ")");
        *tuple = i;
        is_tuple[i] = true;
        return;
    }
    const GenOp *op = &gen_ops[fuzz_pick(in, ARRAY_LEN(gen_ops))];
    strbuf_printf(out, "%s(", op->name);
    for (int a = 0; a < op->arity; a++) {
        if (a)
            strbuf_puts(out, ", ");
        model_operand(in, out, i, is_tuple);
    }
    strbuf_puts(out, ")");
}

void fuzz_gen_model(FuzzBytes *in, StrBuf *out)
{
    int n = 1 + (int)fuzz_pick(in, MAX_NODES);
    int tuple = -1;
    bool is_tuple[MAX_NODES + 1] = {false};
    strbuf_puts(out, "def @main(%p0, %p1, %p2) {\n");
    for (int i = 0; i < n; i++) {
        strbuf_printf(out, "  %%%d = ", i);
        model_value(in, out, i, &tuple, is_tuple);
        strbuf_puts(out, ";\n");
    }
    if (fuzz_pick(in, 4) == 0 && n > 1)
        strbuf_printf(out, "  (%%%d, %%%d)\n}\n", n - 1, n - 2);
    else
        strbuf_printf(out, "  %%%d\n}\n", n - 1);
}

/* ---- rules ---- */

static const char *const var_names[NVARS] = {"x", "y", "z"};

static void gen_pattern(FuzzBytes *in, StrBuf *out, int depth, bool *bound);

/* A leaf: a variable (maybe constrained), '_' or a number. */
static void pattern_leaf(FuzzBytes *in, StrBuf *out, bool *bound)
{
    unsigned k = fuzz_pick(in, 10);
    if (k < 7) {
        unsigned v = fuzz_pick(in, NVARS);
        bound[v] = true;
        static const char *const constraints[] = {"", "", "", ":const", ":var",
                                                  ":float32"};
        strbuf_printf(out, "%s%s", var_names[v],
                      constraints[fuzz_pick(in, ARRAY_LEN(constraints))]);
    } else if (k < 9) {
        strbuf_puts(out, "_");
    } else {
        strbuf_puts(out, fuzz_pick(in, 2) ? "1" : "1e-05");
    }
}

/* (p OP q) with an infix op. */
static void pattern_infix(FuzzBytes *in, StrBuf *out, int depth, bool *bound)
{
    static const char *const infix[] = {" + ", " * ", " - ", " / "};
    strbuf_puts(out, "(");
    gen_pattern(in, out, depth + 1, bound);
    strbuf_puts(out, infix[fuzz_pick(in, ARRAY_LEN(infix))]);
    gen_pattern(in, out, depth + 1, bound);
    strbuf_puts(out, ")");
}

/* (p | q); a variable counts as bound only when both sides bind it. */
static void pattern_alt(FuzzBytes *in, StrBuf *out, int depth, bool *bound)
{
    bool left[NVARS], right[NVARS];
    memcpy(left, bound, sizeof left);
    memcpy(right, bound, sizeof right);
    strbuf_puts(out, "(");
    gen_pattern(in, out, depth + 1, left);
    strbuf_puts(out, " | ");
    gen_pattern(in, out, depth + 1, right);
    strbuf_puts(out, ")");
    for (int v = 0; v < NVARS; v++)
        bound[v] = left[v] && right[v];
}

/* op(p, ...), an infix form, an alternative, op?(p) or op*(p). */
static void pattern_call(FuzzBytes *in, StrBuf *out, int depth, bool *bound)
{
    unsigned k = fuzz_pick(in, 12);
    if (k < 2) {
        pattern_infix(in, out, depth, bound);
        return;
    }
    if (k == 2) {
        pattern_alt(in, out, depth, bound);
        return;
    }
    const GenOp *op = &gen_ops[fuzz_pick(in, ARRAY_LEN(gen_ops))];
    const char *mark = op->arity == 1 && k >= 10 ? (k == 10 ? "?" : "*") : "";
    strbuf_printf(out, "%s%s(", op->name, mark);
    for (int a = 0; a < op->arity; a++) {
        if (a)
            strbuf_puts(out, ", ");
        gen_pattern(in, out, depth + 1, bound);
    }
    strbuf_puts(out, ")");
}

static void gen_pattern(FuzzBytes *in, StrBuf *out, int depth, bool *bound)
{
    if (depth >= MAX_DEPTH || fuzz_pick(in, 3) == 0)
        pattern_leaf(in, out, bound);
    else
        pattern_call(in, out, depth, bound);
}

/* An action expression over the bound variables. */
static void gen_action(FuzzBytes *in, StrBuf *out, int depth, const bool *bound)
{
    unsigned v = fuzz_pick(in, NVARS);
    while (!bound[v])
        v = (v + 1) % NVARS;
    if (depth >= MAX_DEPTH || fuzz_pick(in, 3) == 0) {
        strbuf_puts(out, var_names[v]);
        return;
    }
    const GenOp *op = &gen_ops[fuzz_pick(in, ARRAY_LEN(gen_ops))];
    strbuf_printf(out, "%s(", op->name);
    for (int a = 0; a < op->arity; a++) {
        if (a)
            strbuf_puts(out, ", ");
        gen_action(in, out, depth + 1, bound);
    }
    strbuf_puts(out, ")");
}

/* where users(x) OP N, on a bound variable. */
static void gen_guard(FuzzBytes *in, StrBuf *out, const bool *bound)
{
    static const char *const cmp[] = {"==", "<=", ">"};
    for (int v = 0; v < NVARS; v++)
        if (bound[v]) {
            /* One pick per statement: the order in which a call's
             * arguments are evaluated is unspecified (gcc and clang
             * differ), and the same bytes must make the same case in
             * every build (fuzz/README.md, slow input b). */
            const char *op = cmp[fuzz_pick(in, ARRAY_LEN(cmp))];
            unsigned count = fuzz_pick(in, 3);
            strbuf_printf(out, " where users(%s) %s %u", var_names[v], op, count);
            return;
        }
}

static void gen_rule(FuzzBytes *in, StrBuf *out, int index)
{
    static const char *const flags[] = {"", "", " [once]", " [priority=2]"};
    bool bound[NVARS] = {false, false, false};
    strbuf_printf(out, "r%d%s := ", index, flags[fuzz_pick(in, ARRAY_LEN(flags))]);
    StrBuf pattern = {0};
    pattern_call(in, &pattern, 0, bound);
    strbuf_puts(out, pattern.data);
    strbuf_free(&pattern);
    if (fuzz_pick(in, 4) == 0)
        gen_guard(in, out, bound);
    bool any = bound[0] || bound[1] || bound[2];
    unsigned k = fuzz_pick(in, 4);
    strbuf_puts(out, " => ");
    if (!any || k == 0)
        strbuf_puts(out, "partition");
    else if (k == 1)
        strbuf_puts(out, "partition(Composite=\"fuzz\")");
    else
        gen_action(in, out, 0, bound);
    strbuf_putc(out, '\n');
}

void fuzz_gen_rules(FuzzBytes *in, StrBuf *out)
{
    int n = 1 + (int)fuzz_pick(in, 4);
    for (int i = 0; i < n; i++)
        gen_rule(in, out, i);
}
