/* model_check.c - a model's op calls against the registry (note [models
 * checked like rules] in model_check.h). */
#include "model_check.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "type_adt.h"

/* One operand or attribute of a call as written: bytes [begin, end) of
 * the source, blanks and comments around it left out. */
typedef struct ArgSpan {
    size_t begin, end;
    size_t name_end; /* an attribute: the end of its name; 0 for an operand */
} ArgSpan;

/* The pieces of one call as written. */
typedef struct CallText {
    size_t name_begin, name_end; /* the op name */
    size_t close;                /* the ')' that ends the call */
    VEC(ArgSpan) args;           /* operands and attributes, in order */
} CallText;

static bool is_name_byte(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.';
}

/* Past blanks and comments from off. */
static size_t skip_layout(const Source *src, size_t off)
{
    const char *t = src->text;
    for (;;) {
        while (off < src->len && isspace((unsigned char)t[off]))
            off++;
        if (off + 1 < src->len && t[off] == '/' && t[off + 1] == '*') {
            const char *end = strstr(t + off + 2, "*/");
            off = end ? (size_t)(end - t) + 2 : src->len;
        } else if (off + 1 < src->len && t[off] == '/' && t[off + 1] == '/') {
            while (off < src->len && t[off] != '\n')
                off++;
        } else {
            return off;
        }
    }
}

/* Past one piece of a list starting at off: up to the ',' or closer at
 * depth 0 (strings and comments skipped); *last: the end of its last
 * byte that is not layout. */
static size_t skip_piece(const Source *src, size_t off, size_t *last)
{
    const char *t = src->text;
    int depth = 0;
    *last = off;
    while (off < src->len) {
        char c = t[off];
        if (depth == 0 && (c == ',' || c == ')' || c == ']' || c == '}'))
            return off;
        size_t next = skip_layout(src, off);
        if (next != off) {
            off = next;
            continue;
        }
        if (c == '"') {
            for (off++; off < src->len && t[off] != '"'; off++)
                if (t[off] == '\\')
                    off++;
        }
        depth += c == '(' || c == '[' || c == '{';
        depth -= c == ')' || c == ']' || c == '}';
        *last = ++off;
    }
    return off;
}

/* "name =" at off (not "=="): the end of the name, else 0. */
static size_t attr_name_end(const Source *src, size_t off)
{
    const char *t = src->text;
    size_t end = off;
    while (end < src->len && is_name_byte(t[end]))
        end++;
    if (end == off || !(isalpha((unsigned char)t[off]) || t[off] == '_'))
        return 0;
    size_t eq = end;
    while (eq < src->len && (t[eq] == ' ' || t[eq] == '\t'))
        eq++;
    return eq < src->len && t[eq] == '=' && t[eq + 1] != '=' ? end : 0;
}

/* Finds the call written at off: its op name, or the '(' of its operands
 * when an op value is called, "(add)(%x, %y)" (the op name is then that
 * '('); false when the text there is not a call. */
static bool scan_call(const Source *src, size_t off, CallText *ct)
{
    const char *t = src->text;
    ct->name_begin = ct->name_end = off;
    if (t[off] == '(') {
        ct->name_end = off + 1;
    } else {
        while (ct->name_end < src->len && is_name_byte(t[ct->name_end]))
            ct->name_end++;
        off = skip_layout(src, ct->name_end);
    }
    if (off >= src->len || t[off] != '(')
        return false;
    off = skip_layout(src, off + 1);
    while (off < src->len && t[off] != ')') {
        ArgSpan a = {off, 0, attr_name_end(src, off)};
        off = skip_piece(src, off, &a.end);
        vec_push(&ct->args, a);
        if (off >= src->len || t[off] != ',')
            break;
        off = skip_layout(src, off + 1);
    }
    ct->close = off;
    return off < src->len && t[off] == ')';
}

/* The byte offset of n's position in src. */
static size_t node_offset(const graft_graph *g, const graft_node *n, const Source *src)
{
    size_t line = (size_t)node_line(g, n);
    if (!line || line > source_line_count(src))
        return SIZE_MAX;
    return source_line_starts(src)[line - 1] + (size_t)node_col(g, n) - 1;
}

/* The span of the k-th operand (attr false) or attribute of ct. */
static const ArgSpan *nth_span(const CallText *ct, int k, bool attr)
{
    for (size_t i = 0; i < ct->args.len; i++)
        if ((ct->args.items[i].name_end != 0) == attr && k-- == 0)
            return &ct->args.items[i];
    return NULL;
}

/* What the checker of one call needs. */
typedef struct CallCheck {
    const graft_graph *g;
    const Source *src;
    graft_diag *d;
    const graft_node *n;
    CallText text;   /* filled by scan_call for a wrong call */
    bool located;    /* text is n's call */
} CallCheck;

/* The range of bytes [begin, end), or of n's op name when the call could
 * not be found in the text. */
static SrcRange span_range(CallCheck *cc, size_t begin, size_t end)
{
    if (!cc->located) {
        size_t off = node_offset(cc->g, cc->n, cc->src);
        if (off == SIZE_MAX)
            return (SrcRange){0, 0, 0, 0};
        return source_range(cc->src, off, off + 1);
    }
    return source_range(cc->src, begin, end > begin ? end : begin + 1);
}

static SrcRange name_range(CallCheck *cc)
{
    return span_range(cc, cc->text.name_begin, cc->text.name_end);
}

/* The value's kind as a phrase, for "takes ints, not a string". */
static const char *value_phrase(const graft_attr_value *v)
{
    switch (v->kind) {
    case GRAFT_ATTR_INT: return "an integer";
    case GRAFT_ATTR_FLOAT: return "a number";
    case GRAFT_ATTR_BOOL: return "a bool";
    case GRAFT_ATTR_STRING: return "a string";
    case GRAFT_ATTR_NULL: return "None";
    case GRAFT_ATTR_LIST: return "a list";
    case GRAFT_ATTR_TENSOR: return "a tensor";
    case GRAFT_ATTR_GRAPH: return "a graph";
    case GRAFT_ATTR_OPAQUE: break;
    }
    return "a map";
}

/* Reports the first operand too many, or the ')' when some are missing. */
static void report_arity(CallCheck *cc, const OpInfo *op)
{
    int got = node_nargs(cc->n);
    const ArgSpan *extra = got > op->max_args && op->max_args != OP_VARIADIC
                               ? nth_span(&cc->text, op->max_args, false)
                               : NULL;
    SrcRange r = extra ? span_range(cc, extra->begin, extra->end)
                       : span_range(cc, cc->text.close, cc->text.close + 1);
    const char *s = op->min_args == 1 ? "" : "s";
    if (op->max_args == OP_VARIADIC)
        diag_error(cc->d, cc->src, r, "op '%s' takes at least %d operand%s, got %d", op->name,
                   op->min_args, s, got);
    else if (op->min_args == op->max_args)
        diag_error(cc->d, cc->src, r, "op '%s' takes %d operand%s, got %d", op->name,
                   op->min_args, s, got);
    else
        diag_error(cc->d, cc->src, r, "op '%s' takes %d to %d operands, got %d", op->name,
                   op->min_args, op->max_args, got);
}

/* Attribute i of the call: unknown, given twice or of the wrong kind is
 * reported; false then. */
static bool check_attr(CallCheck *cc, const OpInfo *op, int i)
{
    const graft_attr *a = node_attr(cc->n, i);
    const ArgSpan *span = nth_span(&cc->text, i, true);
    SrcRange whole = span ? span_range(cc, span->begin, span->end) : name_range(cc);
    const OpAttrInfo *info = opinfo_find_attr(op, a->name);
    if (!info) {
        const char *hint = registry_suggest_attr(op, a->name);
        diag_error(cc->d, cc->src, whole, "op '%s' has no attribute '%s'%s%s%s", op->name,
                   a->name, hint ? "; did you mean '" : "", hint ? hint : "",
                   hint ? "'?" : "");
        return false;
    }
    for (int j = 0; j < i; j++)
        if (strcmp(node_attr(cc->n, j)->name, a->name) == 0) {
            diag_error(cc->d, cc->src, whole, "attribute '%s' given twice", a->name);
            return false;
        }
    if (registry_model_value_fits(info->type, a->value))
        return true;
    size_t value = span ? span->name_end : 0;
    if (span) {
        while (cc->src->text[value] != '=')
            value++;
        value = skip_layout(cc->src, value + 1);
    }
    diag_error(cc->d, cc->src, span ? span_range(cc, value, span->end) : whole,
               "attribute '%s' of '%s' takes %s, not %s", info->name, op->name,
               registry_attr_type_name(info->type), value_phrase(a->value));
    return false;
}

/* Whether each attribute of the call is declared once with a value of
 * its kind (found without the text: the common case costs no scan). */
static bool attrs_fit(const graft_node *n, const OpInfo *op)
{
    for (int i = 0; i < node_nattrs(n); i++) {
        const graft_attr *a = node_attr(n, i);
        const OpAttrInfo *info = opinfo_find_attr(op, a->name);
        if (!info || !registry_model_value_fits(info->type, a->value))
            return false;
        for (int j = 0; j < i; j++)
            if (strcmp(node_attr(n, j)->name, a->name) == 0)
                return false;
    }
    return true;
}

/* Reports what is wrong with a call that call_fits refused.  The call's
 * text is scanned only here (a scan of each of f(f(f(...))) would take
 * time quadratic in the depth). */
static void report_call(CallCheck *cc, const OpInfo *op, const Registry *reg)
{
    const char *name = node_op(cc->n);
    size_t off = node_offset(cc->g, cc->n, cc->src);
    cc->text.args.len = 0;
    cc->located = off != SIZE_MAX && scan_call(cc->src, off, &cc->text);
    if (!op) {
        diag_error(cc->d, cc->src, name_range(cc), "unknown op '%s'; did you mean '%s'?", name,
                   registry_nearest(reg, name));
        return;
    }
    if (!opinfo_accepts_nargs(op, node_nargs(cc->n)))
        report_arity(cc, op);
    for (int i = 0; i < node_nattrs(cc->n); i++)
        check_attr(cc, op, i);
}

/* note [ops seen]: every op call asks whether its op is a constructor
 * and which registry entry it is, and a model has a few dozen distinct
 * ops over thousands of calls: each answer cost about 270 instructions
 * a call (the name's length, two hashes, two probes).  The graph interns
 * op names, so one name is one pointer while the check runs, and the
 * answers are kept in a small table by that pointer (note [one cache
 * slot] in keymap.h; a pointer that is not interned only misses).  Its
 * 64 slots are more than the distinct ops of any corpus model. */
enum { OPS_SEEN_BITS = 6 };

typedef struct OpSeen {
    const char *name;  /* the op's name as the node holds it, or NULL */
    const OpInfo *op;  /* registry_find's answer */
    bool constructor;  /* an ADT constructor: not the registry's to check */
    int nargs_fit;     /* an operand count op accepts, -1 before one is
                          seen (note [calls that fit]) */
} OpSeen;

static OpSeen *op_seen(OpSeen *seen, const char *name, const AdtTable *adts,
                       const Registry *reg)
{
    OpSeen *slot = &seen[cache_slot((uintptr_t)name, OPS_SEEN_BITS)];
    if (slot->name != name) {
        slot->name = name;
        slot->constructor = adt_is_constructor(adts, name);
        slot->op = slot->constructor ? NULL : registry_find(reg, name);
        slot->nargs_fit = -1;
    }
    return slot;
}

/* note [calls that fit]: a model's calls are nearly all right, and the
 * check of one that is (its op known, its operand count accepted, its
 * attributes declared once each with values of their kinds) was most of
 * the check's cost: 48 instructions a node of the batch-norm workload
 * (bench/RESULTS.md, session 27), of which the loop's own calls
 * (graph_node_count, diag_gave_up) and the operand count's call were
 * half.  So the loop reads the node table once, asks whether the
 * diagnostics gave up only after an error (nothing else reports here),
 * and each op's slot of note [ops seen] keeps the last operand count
 * its op accepted: a call of that count, without attributes, fits by
 * two comparisons (the check 48 -> 22 instructions a node there).  Only
 * a call that does not fit goes to report_call. */
static bool call_fits(OpSeen *seen, const graft_node *n, bool allow_unknown)
{
    if (seen->constructor)
        return true; /* (the loader's) */
    if (!seen->op)
        return allow_unknown;
    int nargs = node_nargs(n);
    if (nargs != seen->nargs_fit) {
        if (!opinfo_accepts_nargs(seen->op, nargs))
            return false;
        seen->nargs_fit = nargs;
    }
    return node_nattrs(n) == 0 || attrs_fit(n, seen->op);
}

int model_check(const graft_graph *g, const Source *src, const Registry *reg,
                bool allow_unknown, graft_diag *d)
{
    CallCheck cc = {.g = g, .src = src, .d = d};
    AdtTable *adts = adt_table_new(g); /* constructor calls are the loader's */
    OpSeen seen[1 << OPS_SEEN_BITS] = {{0}};
    graft_node *const *nodes = graph_node_table(g);
    /* (the check makes no node; diagnostics that gave up already take none) */
    uint32_t count = diag_gave_up(d) ? 0 : graph_node_count(g);
    int errors = 0;
    for (uint32_t id = 0; id < count; id++) {
        const char *name = node_op(nodes[id]); /* (NULL but for an op's call) */
        if (!name)
            continue;
        OpSeen *op = op_seen(seen, name, adts, reg);
        if (call_fits(op, nodes[id], allow_unknown))
            continue;
        cc.n = nodes[id];
        report_call(&cc, op->op, reg);
        errors++;
        if (diag_gave_up(d))
            break;
    }
    adt_table_free(adts);
    vec_free(&cc.text.args);
    return errors;
}
