/* relay_print.c - TVM's canonical text for a graph.
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
#include "relay.h"

#include <stdlib.h>
#include <string.h>

#include "relay_names.h"
#include "type_adt.h"
#include "util.h"

enum { NO_TEMP = UINT32_MAX, NO_ROOT = UINT32_MAX };

/* note [fast output]: the printer appends a few bytes at a time, a few
 * dozen times per node; these inline appends keep the common case to a
 * bounds check and a copy.  They leave the text unterminated (what reads
 * a buffer takes its length; relay_print_string ends the module's text
 * with a NUL), and room() keeps a byte spare for that NUL. */
GRAFT_HOT char *room(StrBuf *sb, size_t n)
{
    if (sb->cap - sb->len <= n) /* also when nothing is allocated yet */
        sb->data = xgrow_items(sb->data, &sb->cap, sb->len + n + 1, 1);
    return sb->data + sb->len;
}

/* Copies the n bytes at s to at: names and op names are short, and a
 * short copy is two overlapping moves of 16, 8 or 4 bytes, each within
 * the n bytes, cheaper than a call of memcpy. */
GRAFT_HOT void copy_text(char *at, const char *s, size_t n)
{
    uint64_t a8, b8;
    uint32_t a4, b4;
    char a16[16], b16[16];
    if (n > 32) {
        memcpy(at, s, n);
    } else if (n > 16) {
        memcpy(a16, s, 16);
        memcpy(b16, s + n - 16, 16);
        memcpy(at, a16, 16);
        memcpy(at + n - 16, b16, 16);
    } else if (n >= 8) {
        memcpy(&a8, s, 8);
        memcpy(&b8, s + n - 8, 8);
        memcpy(at, &a8, 8);
        memcpy(at + n - 8, &b8, 8);
    } else if (n >= 4) {
        memcpy(&a4, s, 4);
        memcpy(&b4, s + n - 4, 4);
        memcpy(at, &a4, 4);
        memcpy(at + n - 4, &b4, 4);
    } else if (n) {
        at[0] = s[0];
        at[n / 2] = s[n / 2];
        at[n - 1] = s[n - 1];
    }
}

GRAFT_HOT void put_mem(StrBuf *sb, const char *s, size_t n)
{
    copy_text(room(sb, n), s, n);
    sb->len += n;
}

/* A string literal: its length is known at compile time. */
#define put_lit(sb, lit) put_mem((sb), (lit), sizeof(lit) - 1)

static inline void put_str(StrBuf *sb, const char *s)
{
    put_mem(sb, s, strlen(s));
}

GRAFT_HOT void put_chr(StrBuf *sb, char c)
{
    *room(sb, 1) = c;
    sb->len++;
}

static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324"
                                  "25262728293031323334353637383940414243444546474849"
                                  "50515253545556575859606162636465666768697071727374"
                                  "75767778798081828384858687888990919293949596979899";

static const uint32_t powers_of_ten[] = {0, 10, 100, 1000, 10000, 100000, 1000000,
                                         10000000, 100000000, 1000000000};

/* The digits of n: from its bit length, 1233/4096 approximating
 * log10(2), less one when n is below the power of ten that gives (the
 * first entry is 0: one digit for n below 8). */
GRAFT_HOT size_t count_digits(uint32_t n)
{
#if defined(__GNUC__)
    unsigned bits = 32 - (unsigned)__builtin_clz(n | 1);
#else
    unsigned bits = 1;
    while (bits < 32 && n >> bits)
        bits++;
#endif
    unsigned guess = bits * 1233 >> 12; /* floor(log10(2^bits)) */
    return guess + 1 - (n < powers_of_ten[guess]);
}

/* A decimal number without printf (the printer writes a million): its
 * digits counted first, then written in place from the last, two at a
 * time.  Temp numbers take the 32-bit path, cheaper by half. */
GRAFT_HOT size_t write_u32(char *at, uint32_t n)
{
    size_t ndigits = count_digits(n);
    at += ndigits;
    while (n >= 100) {
        uint32_t rest = n / 100;
        unsigned d = (n - rest * 100) * 2;
        n = rest;
        *--at = digit_pairs[d + 1];
        *--at = digit_pairs[d];
    }
    if (n >= 10) {
        *--at = digit_pairs[n * 2 + 1];
        *--at = digit_pairs[n * 2];
    } else {
        *--at = (char)('0' + n);
    }
    return ndigits;
}

GRAFT_HOT void put_u32(StrBuf *sb, uint32_t n)
{
    sb->len += write_u32(room(sb, 10), n);
}

static void put_u64(StrBuf *sb, uint64_t n)
{
    if (n >= 100000000) { /* the digits below the last eight first */
        put_u64(sb, n / 100000000);
        uint32_t low = (uint32_t)(n % 100000000);
        size_t zeros = 8 - (low < 10 ? 1 : low < 100 ? 2 : low < 1000 ? 3 : low < 10000 ? 4
                          : low < 100000 ? 5 : low < 1000000 ? 6 : low < 10000000 ? 7 : 8);
        memset(room(sb, zeros), '0', zeros);
        sb->len += zeros;
        put_u32(sb, low);
        return;
    }
    put_u32(sb, (uint32_t)n);
}

static void put_i64(StrBuf *sb, int64_t n)
{
    if (n < 0) {
        put_chr(sb, '-');
        put_u64(sb, 0 - (uint64_t)n);
    } else {
        put_u64(sb, (uint64_t)n);
    }
}

/* Two spaces per level, copied from a constant in one fixed-size move
 * for the usual depths. */
static const char spaces[64] = "                                "
                               "                                ";

GRAFT_HOT void indent(StrBuf *sb, int level)
{
    size_t n = 2 * (size_t)(level > 0 ? level : 0);
    if (n <= sizeof spaces) {
        memcpy(room(sb, sizeof spaces), spaces, sizeof spaces);
    } else {
        memset(room(sb, n), ' ', n);
    }
    sb->len += n;
}

/* note [temp texts]: a bound node's temp is kept as its text, "%N" in
 * bytes 0 to 10 and its length in byte 11, so that each use of the temp
 * copies twelve bytes instead of converting a number (the binding line
 * takes the text from note [counted temps]). */
typedef struct TempText {
    char b[12];
} TempText;

/* A node's leaf-visit state (note [temp numbering]): not visited;
 * visited, its text not printed yet (note [texts written once]);
 * printed; printed in its binding line, and only then is its temp set.
 * A variable is VISIT_USED once declared or found not free. */
enum { VISIT_NOT, VISIT_TEXT, VISIT_USED, VISIT_BOUND };

/* One frame of visit_all's walk.  Not a WALK (note [one walk]): a frame
 * keeps where its node's children to visit end, which for functions,
 * lets, ifs and matches is not where the flat array's end, so the
 * printer's hottest loop need not look at the node's kind at each step. */
typedef struct Frame {
    uint32_t id;   /* node whose children are being visited */
    uint32_t next; /* its next child to visit, an index in kids */
    uint32_t end;  /* past its last child to visit */
} Frame;

typedef struct Printer {
    const graft_graph *g;     /* graph being printed */
    GraphArrays ga;     /* its nodes as arrays (note [compact walk]) */
    TempText *temp;     /* per node id: its temp once VISIT_BOUND (note
                           [temp texts]) */
    uint8_t *visited;   /* per node id: VISIT_NOT, VISIT_TEXT or VISIT_USED */
    char next_text[11]; /* its text, "%N" (note [counted temps]) */
    uint8_t next_len;   /* the text's length */
    StrBuf pending;     /* texts of functions, lets, ifs and matches */
    size_t *off;        /* per node id: its text's offset in pending (a
                           constant's: in consts) */
    size_t *len;        /* per node id: its text's length in pending or
                           consts, or for a call, tuple or getitem, the
                           most it takes (note [one reservation]) */
    uint32_t *stack;    /* ids whose texts are in pending, in order */
    size_t nstack;      /* entries in stack */
    StrBuf *lines;      /* binding lines of the current scope */
    int level;          /* nesting of the current scope (@main's body: 1) */
    uint32_t root;      /* the expression being printed inline (a scope's
                           result, a let's value: note [control]), or
                           NO_ROOT */
    int root_level;     /* the level root's text is placed at */
    StrBuf **scratch;   /* nested texts' buffers, reused by depth */
    size_t nscratch;    /* buffers in use */
    size_t ascratch;    /* buffers allocated */
    size_t scratch_cap; /* capacity of scratch */
    Frame *frames;      /* the stack of visit_all's walks */
    size_t nframes, frames_cap;
    VarNames names;     /* printed names of variables */
    StrBuf *top;        /* the module's text (note [streaming]) */
    FILE *sink;         /* where top goes as it fills, or NULL */
    bool discard;       /* drop top as it fills (temp numbers only) */
    bool types;         /* RELAY_PRINT_TYPES: "ty=" from node types */
    const char *op[64]; /* op names printed lately, by address ... */
    uint32_t op_len[64]; /* ... and their lengths */
    AdtTable *adts;     /* the module's constructors, read at the first
                           call without operands */
    StrBuf consts;      /* constants' references (note [constant texts]) */
    const char *quoted_of; /* the string attribute quoted last ... */
    StrBuf quoted;      /* ... and its text (put_quoted) */
} Printer;

/* Variables, constants, globals and op values print inline. */
static bool always_inline(uint8_t kind)
{
    enum { INLINE = 1u << NODE_VAR | 1u << NODE_CONST | 1u << NODE_GLOBAL | 1u << NODE_OPREF };
    return kind < 32 && (INLINE >> kind & 1);
}

static const graft_node *node_of(const Printer *p, uint32_t id)
{
    return p->ga.nodes[id];
}

/* An empty buffer for a nested text (a function's text, a let's lines):
 * texts nest as scopes do, so buffers are kept and reused by depth
 * instead of allocated per function. */
static StrBuf *scratch_get(Printer *p)
{
    if (p->nscratch == p->ascratch) {
        p->scratch = xgrow_items(p->scratch, &p->scratch_cap, p->ascratch + 1, sizeof *p->scratch);
        p->scratch[p->ascratch++] = xcalloc(1, sizeof(StrBuf));
    }
    StrBuf *sb = p->scratch[p->nscratch++];
    sb->len = 0;
    return sb;
}

/* Gives back the buffer scratch_get gave last. */
static void scratch_done(Printer *p)
{
    p->nscratch--;
}

/* note [streaming]: @main's binding lines are final once written, so
 * relay_print writes the module's text out every DRAIN_AT bytes instead
 * of holding a second copy of a large model in memory; its buffer is
 * made large enough for that at the start, so that it rarely grows (a
 * grown buffer is a copy). */
enum { DRAIN_AT = 65536 };

static void drain(Printer *p)
{
    if (p->lines != p->top || p->top->len < DRAIN_AT || (!p->sink && !p->discard))
        return;
    if (p->sink)
        fwrite(p->top->data, 1, p->top->len, p->sink);
    p->top->len = 0;
}

/* note [one reservation]: a text's pieces are written through a plain
 * pointer, write_* returning where the next piece goes, into room made
 * once for the whole text: an upper bound of its length, known from its
 * operands before it is written (a name's length, ten digits for a
 * temp).  So the dozen pieces of a binding line cost a copy each and not
 * a bounds check each; what cannot be bounded cheaply (attributes)
 * appends as before, checked. */
GRAFT_HOT char *write_mem(char *at, const char *s, size_t n)
{
    copy_text(at, s, n);
    return at + n;
}

#define write_lit(at, lit) write_mem((at), (lit), sizeof(lit) - 1)

/* "%N": at most 11 bytes; TEMP_MAX is the room a temp's text takes when
 * copied whole (note [temp texts]). */
enum { TEMP_MAX = 12 };

/* A bound node's temp, from its text (note [temp texts]). */
GRAFT_HOT char *write_temp_text(char *at, const TempText *t)
{
    memcpy(at, t->b, sizeof t->b); /* TEMP_MAX leaves room for all twelve */
    return at + t->b[11];
}

/* An index: at most 20 bytes. */
static char *write_i64(char *at, int64_t n)
{
    uint64_t u = (uint64_t)n;
    if (n < 0) {
        *at++ = '-';
        u = 0 - u;
    }
    if (u >= 100000000) {
        at = write_i64(at, (int64_t)(u / 100000000));
        uint32_t low = (uint32_t)(u % 100000000);
        char digits[10];
        size_t nd = write_u32(digits, low);
        memset(at, '0', 8 - nd);
        memcpy(at + 8 - nd, digits, nd);
        return at + 8;
    }
    return at + write_u32(at, (uint32_t)u);
}

/* The annotation's text after its "ty=TYPE" part (what TVM prints after
 * the type: " span=..."), without the comment markers. */
static void annot_rest(const char *annot, const char **rest, size_t *len)
{
    const char *p = annot + 2, *end = annot + strlen(annot) - 2;
    while (p < end && *p == ' ')
        p++;
    if (strncmp(p, "ty=", 3) == 0) {
        const char *span = strstr(p, " span=");
        p = span && span < end ? span + 1 : end;
    }
    while (end > p && end[-1] == ' ')
        end--;
    *rest = p;
    *len = (size_t)(end - p);
}

/* A node's comment as it prints (note [printed types]): its pieces and
 * its length, found once and written by write_comment. */
typedef struct Comment {
    const char *type; /* "ty=" and this type, or NULL */
    size_t type_len;
    const char *rest; /* the loaded annotation, or its rest after "ty=" */
    size_t rest_len;
    size_t len;       /* the comment's length, 0 when it prints nothing */
} Comment;

/* note [printed types]: with RELAY_PRINT_TYPES every typed node prints
 * "/ * ty=TYPE * /", followed inside the comment by the rest of its
 * loaded annotation (its span), as TVM prints a type-checked module;
 * otherwise the annotation prints as it was loaded. */
static Comment comment_of(const Printer *p, uint32_t id)
{
    const graft_node *n = node_of(p, id);
    const char *annot = node_annotation(n);
    NodeKind kind = node_kind(n); /* PrintOptionalInfo skips these three */
    bool typed = kind != NODE_IF && kind != NODE_LET && kind != NODE_MATCH;
    Comment c = {0};
    if (p->types && typed && node_type(n)) {
        c.type = node_type(n)->text;
        c.type_len = strlen(c.type);
        if (annot)
            annot_rest(annot, &c.rest, &c.rest_len);
        c.len = sizeof " /* ty=" - 1 + c.type_len + (c.rest_len ? 1 + c.rest_len : 0) +
                sizeof " */" - 1;
    } else if (annot) {
        c.rest = annot;
        c.rest_len = strlen(annot);
        c.len = 1 + c.rest_len;
    }
    return c;
}

static char *write_comment(char *at, const Comment *c)
{
    if (c->type) {
        at = write_lit(at, " /* ty=");
        at = write_mem(at, c->type, c->type_len);
        if (c->rest_len) {
            *at++ = ' ';
            at = write_mem(at, c->rest, c->rest_len);
        }
        return write_lit(at, " */");
    }
    if (c->len) {
        *at++ = ' ';
        at = write_mem(at, c->rest, c->rest_len);
    }
    return at;
}

static void put_comment(const Printer *p, StrBuf *sb, uint32_t id)
{
    Comment c = comment_of(p, id);
    sb->len = (size_t)(write_comment(room(sb, c.len), &c) - sb->data);
}

/* Whether node id prints a comment where its text first appears. */
GRAFT_HOT bool has_comment(const Printer *p, uint32_t id)
{
    const graft_node *n = node_of(p, id);
    return node_annotation(n) || (p->types && node_type(n));
}

GRAFT_HOT void put_annot(const Printer *p, StrBuf *sb, uint32_t id)
{
    if (has_comment(p, id))
        put_comment(p, sb, id);
}

/* A quoted string attribute made by an edit: partitioning gives every
 * function the same PartitionedFromPattern, so the last one quoted is
 * kept and copied when it comes again (strings are interned: one
 * pointer). */
static void put_quoted(Printer *p, StrBuf *sb, const char *s)
{
    if (s != p->quoted_of) {
        p->quoted.len = 0;
        relay_put_string(&p->quoted, s);
        p->quoted_of = s;
    }
    put_mem(sb, p->quoted.data, p->quoted.len);
}

/* An attribute value: its spelling as loaded, or for one made by an edit
 * the canonical form.  Loaded lists have a spelling, so the recursion
 * only follows lists an edit nested. */
static void put_attr_value(Printer *p, StrBuf *sb, const graft_attr_value *v)
{
    if (v->spelling) {
        put_str(sb, v->spelling);
        return;
    }
    switch (v->kind) {
    case GRAFT_ATTR_INT: put_i64(sb, v->i); break;
    case GRAFT_ATTR_FLOAT: strbuf_printf(sb, "%gf", v->f); break;
    case GRAFT_ATTR_BOOL: put_str(sb, v->i ? "True" : "False"); break;
    case GRAFT_ATTR_NULL: put_lit(sb, "None"); break;
    case GRAFT_ATTR_OPAQUE: break; /* only loaded, always spelled */
    case GRAFT_ATTR_TENSOR:
    case GRAFT_ATTR_GRAPH: break; /* only ONNX models hold these */
    case GRAFT_ATTR_STRING: put_quoted(p, sb, v->s); break;
    case GRAFT_ATTR_LIST:
        put_chr(sb, '[');
        for (int i = 0; i < v->nitems; i++) {
            if (i)
                put_lit(sb, ", ");
            put_attr_value(p, sb, v->items[i]);
        }
        put_chr(sb, ']');
        break;
    }
}

/* "name=value" for each attribute, after ", " unless first (nothing was
 * printed before them). */
static void put_attrs(Printer *p, StrBuf *sb, const graft_node *n, bool first)
{
    for (int i = 0; i < node_nattrs(n); i++) {
        const graft_attr *a = node_attr(n, i);
        if (!first)
            put_lit(sb, ", ");
        first = false;
        put_str(sb, a->name);
        put_chr(sb, '=');
        put_attr_value(p, sb, a->value);
    }
}

/* The length of variable v's printed name with its "%" (given now when
 * names follow the printing order, note [variable names]). */
GRAFT_HOT size_t name_len(Printer *p, uint32_t v)
{
    return var_names_len(&p->names, v);
}

/* A variable's printed name (given at its first printing). */
GRAFT_HOT char *write_name(Printer *p, char *at, uint32_t v)
{
    bool percent;
    size_t len;
    const char *name = var_names_get(&p->names, v, &percent, &len);
    *at = '%';
    copy_text(at + percent, name, len);
    return at + percent + len;
}

/* "%x: T / * ann * /" for a parameter in a signature. */
GRAFT_HOT void put_param(Printer *p, StrBuf *out, uint32_t v)
{
    out->len = (size_t)(write_name(p, room(out, name_len(p, v)), v) - out->data);
    uint8_t flags = p->ga.flags[v];
    if (flags & NODE_TYPE_WRITTEN) {
        put_lit(out, ": ");
        put_str(out, node_type(node_of(p, v))->text);
    }
    if (flags & (p->types ? NODE_VAR_ANNOT | NODE_VAR_TYPED : NODE_VAR_ANNOT))
        put_comment(p, out, v); /* put_annot without a look at the node */
}

/* The parameters ids[0..n) of a signature, ", " between them: each run
 * of parameters without a type or a comment (all of them, in most
 * modules) written in one reservation, its names given in order. */
static void put_params(Printer *p, StrBuf *out, const uint32_t *ids, size_t n)
{
    uint8_t extra = NODE_TYPE_WRITTEN | NODE_VAR_ANNOT | (p->types ? NODE_VAR_TYPED : 0);
    size_t i = 0;
    while (i < n) {
        if (p->ga.flags[ids[i]] & extra) {
            if (i)
                put_lit(out, ", ");
            put_param(p, out, ids[i++]);
            continue;
        }
        size_t run = i, most = 0;
        for (; run < n && !(p->ga.flags[ids[run]] & extra); run++)
            most += 2 + name_len(p, ids[run]);
        char *at = room(out, most);
        for (; i < run; i++) {
            if (i)
                at = write_lit(at, ", ");
            at = write_name(p, at, ids[i]);
        }
        out->len = (size_t)(at - out->data);
    }
}

/* "free_var %x: T;" where a free variable is first printed, as TVM's
 * PrintExpr does (into the current scope's lines). */
static void declare_free(Printer *p, uint32_t v)
{
    p->visited[v] = VISIT_USED;
    indent(p->lines, p->level);
    put_lit(p->lines, "free_var ");
    put_param(p, p->lines, v);
    put_lit(p->lines, ";\n");
}

static void bind(Printer *p, uint32_t id);

/* note [constant texts]: a constant prints the same reference at every
 * use, its value and comment ("1e-05f / * ty=float32 * /"); that text is
 * written once, at its first use, into a buffer of its own, and copied
 * from there. */
static void keep_const(Printer *p, uint32_t m)
{
    const char *value = p->ga.str[m];
    size_t n = strlen(value);
    Comment c = {0};
    if (has_comment(p, m))
        c = comment_of(p, m);
    char *at = room(&p->consts, n + c.len);
    p->off[m] = p->consts.len;
    p->len[m] = n + c.len;
    p->consts.len = (size_t)(write_comment(write_mem(at, value, n), &c) - p->consts.data);
    p->visited[m] = VISIT_USED;
}

/* note [texts written once]: step 2 of note [temp numbering] builds a
 * node's text at its leaf visit, and the text prints later, where it is
 * used: in its binding line or inline.  What building it does besides
 * the text happens at the leaf visit, operand by operand in the text's
 * order: a free variable's declaration, a variable's name (note
 * [variable names]: names are given in printing order), a binding line
 * for an operand without a temp (resolve_operand).  What is left is
 * fixed from then on (temps, names, constants), so a call's, tuple's or
 * getitem's text is written only where it is used (put_text), straight
 * into its line, and its length is bounded at the leaf visit (note [one
 * reservation]); a function's, let's, if's and match's text holds whole
 * scopes, printed at the leaf visit, so it waits in pending (note
 * [pending texts]).  Returns the most bytes operand m's reference
 * takes. */
GRAFT_HOT size_t resolve_operand(Printer *p, uint32_t m)
{
    switch (p->ga.kind[m]) {
    case NODE_VAR:
        if (p->visited[m] == VISIT_NOT) {
            if (p->ga.flags[m] & NODE_FREE)
                declare_free(p, m);
            else
                p->visited[m] = VISIT_USED;
        }
        return name_len(p, m);
    case NODE_CONST:
        if (p->visited[m] == VISIT_NOT)
            keep_const(p, m);
        return p->len[m];
    case NODE_GLOBAL: return 1 + strlen(p->ga.str[m]);
    case NODE_OPREF: return strlen(p->ga.str[m]);
    default:
        if (p->visited[m] != VISIT_BOUND)
            bind(p, m);
        return TEMP_MAX;
    }
}

/* Operand m as its user's text prints it, once resolved, into room
 * resolve_operand bounded. */
GRAFT_HOT char *write_ref(Printer *p, char *at, uint32_t m)
{
    switch (p->ga.kind[m]) {
    case NODE_VAR: return write_name(p, at, m);
    case NODE_GLOBAL: /* always inline, no comment */
        *at = '@';
        return write_mem(at + 1, p->ga.str[m], strlen(p->ga.str[m]));
    case NODE_OPREF: return write_mem(at, p->ga.str[m], strlen(p->ga.str[m]));
    case NODE_CONST: return write_mem(at, p->consts.data + p->off[m], p->len[m]);
    default: return write_temp_text(at, &p->temp[m]);
    }
}

/* A node's reference from its user (step 2 of note [temp numbering]). */
static void put_operand(Printer *p, StrBuf *out, uint32_t m)
{
    size_t most = resolve_operand(p, m);
    out->len = (size_t)(write_ref(p, room(out, most), m) - out->data);
}

/* The operands of a call, tuple or getitem, resolved in the order its
 * text prints them: a call's arguments before its callee, so they take
 * temps before a function callee does; then the most bytes its text
 * takes apart from an op's name and attributes: the references, ", "
 * between them, "(" and ",)", or "." and an index. */
static void resolve_kids(Printer *p, uint32_t id)
{
    const uint32_t *k = p->ga.kids + p->ga.start[id];
    const uint32_t *end = p->ga.kids + p->ga.start[id + 1];
    bool callee = (p->ga.flags[id] & NODE_HAS_CALLEE) && k < end;
    size_t most = 3 + 2 * (size_t)(end - k) + 21;
    for (const uint32_t *a = k + callee; a < end; a++)
        most += resolve_operand(p, *a);
    if (callee)
        most += resolve_operand(p, *k);
    p->len[id] = most;
}

/* An op's name: a model has few, so their lengths are kept. */
GRAFT_HOT size_t op_len(Printer *p, const char *op)
{
    size_t slot = ((uintptr_t)op >> 4) % ARRAY_LEN(p->op);
    if (p->op[slot] != op) {
        p->op[slot] = op;
        p->op_len[slot] = (uint32_t)strlen(op);
    }
    return p->op_len[slot];
}

/* Whether call id's op is a constructor of no fields: its call prints
 * as its bare name, as TVM prints it. */
static bool nullary_constructor(Printer *p, uint32_t id)
{
    if (!p->adts)
        p->adts = adt_table_new(p->g);
    return adt_constructor_fields(p->adts, p->ga.str[id]) == 0;
}

/* The references of operands k..end separated by ", ". */
GRAFT_HOT char *write_refs(Printer *p, char *at, const uint32_t *k, const uint32_t *end)
{
    for (const uint32_t *a = k; a < end; a++) {
        if (a > k)
            at = write_lit(at, ", ");
        at = write_ref(p, at, *a);
    }
    return at;
}

/* "op(args" or "%5(args" of call id, without its attributes and ")";
 * or "Nil" alone, and *closed, for a constructor of no fields (as TVM
 * prints it). */
GRAFT_HOT char *write_call_open(Printer *p, char *at, uint32_t id, bool *closed)
{
    const uint32_t *k = p->ga.kids + p->ga.start[id];
    const uint32_t *end = p->ga.kids + p->ga.start[id + 1];
    *closed = false;
    if ((p->ga.flags[id] & NODE_HAS_CALLEE) && k < end) {
        at = write_ref(p, at, *k++);
    } else {
        const char *op = p->ga.str[id];
        at = write_mem(at, op, op_len(p, op));
        if (k == end && !(p->ga.flags[id] & NODE_HAS_ATTRS) && nullary_constructor(p, id)) {
            *closed = true;
            return at;
        }
    }
    *at++ = '(';
    return write_refs(p, at, k, end);
}

/* The most bytes node id's text takes (note [one reservation]), a
 * call's attributes apart: a kept text's length, or resolve_kids' bound
 * and a call's op name. */
GRAFT_HOT size_t text_max(Printer *p, uint32_t id)
{
    bool op = p->ga.kind[id] == NODE_CALL &&
              !((p->ga.flags[id] & NODE_HAS_CALLEE) && p->ga.start[id] < p->ga.start[id + 1]);
    return p->len[id] + (op ? op_len(p, p->ga.str[id]) : 0);
}

/* Whether node id's text has a part text_max does not bound. */
GRAFT_HOT bool has_attrs(const Printer *p, uint32_t id)
{
    return p->ga.kind[id] == NODE_CALL && (p->ga.flags[id] & NODE_HAS_ATTRS);
}

/* A visited node's text (note [texts written once]), without
 * attributes, into room for text_max. */
GRAFT_HOT char *write_text(Printer *p, char *at, uint32_t id)
{
    const uint32_t *k = p->ga.kids + p->ga.start[id];
    const uint32_t *end = p->ga.kids + p->ga.start[id + 1];
    bool closed;
    switch (p->ga.kind[id]) {
    case NODE_CALL:
        at = write_call_open(p, at, id, &closed);
        if (!closed)
            *at++ = ')';
        return at;
    case NODE_TUPLE:
        *at++ = '(';
        at = write_refs(p, at, k, end);
        if (end - k == 1)
            return write_lit(at, ",)");
        *at++ = ')';
        return at;
    case NODE_GETITEM:
        at = write_ref(p, at, *k);
        *at++ = '.';
        return write_i64(at, node_index(node_of(p, id)));
    default: return write_mem(at, p->pending.data + p->off[id], p->len[id]);
    }
}

/* A visited node's text at at, in out, where room for text_max was
 * made: a call's attributes append checked between its operands and its
 * ")", and room for more bytes after the text is made then. */
GRAFT_HOT char *write_text_in(Printer *p, StrBuf *out, char *at, uint32_t id, size_t more)
{
    if (!has_attrs(p, id))
        return write_text(p, at, id);
    bool closed;
    uint32_t nkids = p->ga.start[id + 1] - p->ga.start[id];
    bool callee = (p->ga.flags[id] & NODE_HAS_CALLEE) && nkids;
    out->len = (size_t)(write_call_open(p, at, id, &closed) - out->data);
    put_attrs(p, out, node_of(p, id), nkids == callee);
    at = room(out, 1 + more);
    *at++ = ')';
    return at;
}

/* A visited node's text where it is used (note [texts written once]). */
static void put_text(Printer *p, StrBuf *out, uint32_t id)
{
    out->len = (size_t)(write_text_in(p, out, room(out, text_max(p, id)), id, 0) - out->data);
}

/* note [counted temps]: temps are given in increasing order, so the next
 * one's text is kept and counted on in decimal, a digit or so a temp,
 * instead of converting each number. */
static void count_on(Printer *p)
{
    size_t i = p->next_len - 1;
    while (p->next_text[i] == '9')
        p->next_text[i--] = '0';
    if (i == 0) { /* all nines, now zeros: one digit more */
        p->next_text[1] = '1';
        p->next_text[p->next_len++] = '0';
    } else {
        p->next_text[i]++;
    }
}

/* Gives node id the next temp and writes its binding line "%N = TEXT;"
 * into the current scope, in one reservation (note [one reservation])
 * unless a call's attributes come between. */
static void bind(Printer *p, uint32_t id)
{
    StrBuf *lines = p->lines;
    memcpy(p->temp[id].b, p->next_text, sizeof p->next_text);
    p->temp[id].b[11] = (char)p->next_len;
    Comment c;
    bool commented = has_comment(p, id);
    if (commented)
        c = comment_of(p, id);
    size_t n = 2 * (size_t)(p->level > 0 ? p->level : 0);
    size_t tail = (commented ? c.len : 0) + 2; /* the comment and ";\n" */
    char *at = room(lines, (n > sizeof spaces ? n : sizeof spaces) + TEMP_MAX + 3 +
                               text_max(p, id) + tail);
    if (n <= 16) /* the usual depths */
        memcpy(at, spaces, 16);
    else if (n <= sizeof spaces)
        memcpy(at, spaces, sizeof spaces);
    else
        memset(at, ' ', n);
    at = write_mem(at + n, p->next_text, p->next_len);
    at = write_text_in(p, lines, write_lit(at, " = "), id, tail);
    if (commented)
        at = write_comment(at, &c);
    lines->len = (size_t)(write_lit(at, ";\n") - lines->data);
    count_on(p);
    p->visited[id] = VISIT_BOUND;
    drain(p);
}

static void put_scope(Printer *p, StrBuf *out, uint32_t root, int level);
static void put_inline(Printer *p, StrBuf *out, uint32_t root, int level, bool result);
static void visit_all(Printer *p, uint32_t root);

/* "{" NEWLINE scope NEWLINE "}" one level in (TVM's PrintBody). */
static void put_block(Printer *p, StrBuf *out, const graft_node *root, int level)
{
    put_lit(out, "{\n");
    put_scope(p, out, node_id(root), level + 1);
    put_chr(out, '\n');
    indent(out, level);
    put_chr(out, '}');
}

/* prefix "(%a, %b, Attr=...) -> T {" body "}" at the current level:
 * "fn " for a function value, "def @f" for a global (TVM's PrintFunc). */
static void put_func(Printer *p, StrBuf *out, const graft_node *n, const char *prefix,
                     int level)
{
    int nparams = node_nparams(n);
    uint32_t id = node_id(n);
    put_str(out, prefix);
    put_chr(out, '(');
    if (p->ga.start[id + 1] - p->ga.start[id] >= (uint32_t)nparams) {
        put_params(p, out, p->ga.kids + p->ga.start[id], (size_t)nparams); /* then the body */
    } else { /* a parameter missing: note [compact walk] lists none after it */
        for (int i = 0; i < nparams; i++) {
            if (i)
                put_lit(out, ", ");
            put_param(p, out, node_id(node_param(n, i)));
        }
    }
    put_attrs(p, out, n, nparams == 0);
    put_lit(out, ") ");
    if (node_ret_type(n))
    {
        put_lit(out, "-> ");
        put_str(out, node_ret_type(n)->text);
        put_chr(out, ' ');
    }
    put_block(p, out, node_body(n), level);
}

/* note [control]: TVM prints a let, an if and a match as one text that
 * holds whole scopes (relay_text_printer.cc, VisitExpr_ of LetNode,
 * IfNode, MatchNode), read there:
 *  - "if (" COND ") {" branch "} else {" branch "}": the condition is an
 *    operand (inline or a temp bound before the if); each branch is a
 *    scope in braces one level in (PrintBody), numbering temps on.
 *  - a chain of lets prints one "let %v = VALUE;" line per let: the
 *    variable is named first (AllocVar), then the value inline (try
 *    inline); the bindings the value needs go before its line, into the
 *    enclosing scope for the first let and after the previous let line
 *    for the others (doc_stack_), then the body's bindings and result at
 *    the same level (PrintScope).  A let that is not a scope's result
 *    prints wrapped: "(" NEWLINE lets NEWLINE ")" two columns in.
 *  - "match (" DATA ") {" then per clause, one level in, PATTERN " => {"
 *    result scope "}," and "}" (PrintScope, Doc::Brace); "match?" when
 *    not complete.  Pattern variables print as declared (AllocVar).
 * None of the three gets a "ty=" comment (PrintOptionalInfo skips them),
 * nor do @f and op values, which are always inline. */
static void put_let(Printer *p, StrBuf *out, const graft_node *n, int at)
{
    bool wrapped = node_id(n) != p->root;
    int level = at + wrapped;
    StrBuf *saved_lines = p->lines;
    int saved_level = p->level;
    StrBuf doc = {0};
    const graft_node *let = n;
    StrBuf line = {0};
    for (; node_kind(let) == NODE_LET; let = node_arg(let, 2)) {
        line.len = 0;
        put_lit(&line, "let ");
        put_param(p, &line, node_id(node_arg(let, 0)));
        put_lit(&line, " = ");
        const graft_node *value = node_arg(let, 1);
        uint32_t vid = node_id(value);
        if (node_nusers(value) > 1 && !always_inline(node_kind(value))) { /* not IsUnique */
            visit_all(p, vid);
            put_operand(p, &line, vid);
        } else {
            put_inline(p, &line, vid, level, false); /* bindings go first */
        }
        put_lit(&line, ";\n");
        if (let != n)
            indent(&doc, level);
        put_mem(&doc, line.data, line.len);
        p->lines = &doc;
        p->level = level;
    }
    strbuf_free(&line);
    put_scope(p, &doc, node_id(let), level);
    p->lines = saved_lines;
    p->level = saved_level;
    if (wrapped) {
        put_lit(out, "(\n");
        indent(out, level);
    }
    put_mem(out, doc.data, doc.len);
    if (wrapped) {
        put_chr(out, '\n');
        indent(out, at);
        put_chr(out, ')');
    }
    strbuf_free(&doc);
}

static void put_if(Printer *p, StrBuf *out, const graft_node *n, int level)
{
    put_lit(out, "if (");
    put_operand(p, out, node_id(node_arg(n, 0)));
    put_lit(out, ") ");
    put_block(p, out, node_arg(n, 1), level);
    put_lit(out, " else ");
    put_block(p, out, node_arg(n, 2), level);
}

static void put_match(Printer *p, StrBuf *out, const graft_node *n, int level)
{
    put_str(out, node_match_complete(n) ? "match (" : "match? (");
    put_operand(p, out, node_id(node_arg(n, 0)));
    put_lit(out, ") {\n");
    for (int i = 0; i < node_nclauses(n); i++) {
        const MatchClause *c = node_clause(n, i);
        indent(out, level + 1);
        for (int k = 0; k < c->npieces; k++) {
            if (c->pieces[k].text)
                put_str(out, c->pieces[k].text);
            else
                put_param(p, out, node_id(c->pieces[k].var));
        }
        put_lit(out, " => {\n");
        put_scope(p, out, node_id(node_arg(n, i + 1)), level + 2);
        put_chr(out, '\n');
        indent(out, level + 1);
        put_lit(out, "},\n");
    }
    indent(out, level);
    put_chr(out, '}');
}

/* note [pending texts]: the texts of functions, lets, ifs and matches
 * wait in one buffer between their leaf visit and their use.  Most are
 * used soon after, so before a new text is added, used texts at the end
 * of the buffer are dropped; memory then follows the graph's width, not
 * its size. */
static void keep_text(Printer *p, uint32_t id, const StrBuf *text)
{
    while (p->nstack && p->visited[p->stack[p->nstack - 1]] >= VISIT_USED)
        p->pending.len = p->off[p->stack[--p->nstack]];
    p->off[id] = p->pending.len;
    p->len[id] = text->len;
    put_mem(&p->pending, text->data ? text->data : "", text->len);
    p->stack[p->nstack++] = id;
    p->visited[id] = VISIT_TEXT;
}

/* Step 2 of note [temp numbering] for node id: its operands resolved
 * (note [texts written once]), or a scope-holding text built in a buffer
 * of its own (its scopes' leaf visits use the scratch) and kept. */
static void leaf_visit(Printer *p, uint32_t id)
{
    uint8_t kind = p->ga.kind[id];
    if (kind == NODE_CALL || kind == NODE_TUPLE || kind == NODE_GETITEM) {
        resolve_kids(p, id);
        p->visited[id] = VISIT_TEXT;
        return;
    }
    /* the text's own blocks are placed where the text goes: a binding
     * line at the scope's level, or inline at root_level */
    int level = id == p->root ? p->root_level : p->level;
    const graft_node *n = node_of(p, id);
    StrBuf *out = scratch_get(p);
    switch (kind) {
    case NODE_FUNC: put_func(p, out, n, "fn ", level); break;
    case NODE_LET: put_let(p, out, n, level); break;
    case NODE_IF: put_if(p, out, n, level); break;
    case NODE_MATCH: put_match(p, out, n, level); break;
    default: break; /* always inline: never visited */
    }
    keep_text(p, id, out);
    scratch_done(p);
}

/* Pushes a frame for node id: its children in leaf-visit order are its
 * callee, then its operands (the graph's own order, note [compact
 * walk]); a function's and a let's are none (their scopes print in their
 * own walks), an if's and a match's the first operand only (the rest are
 * scopes). */
GRAFT_HOT void push_frame(Printer *p, uint32_t id)
{
    uint32_t start = p->ga.start[id], end = p->ga.start[id + 1];
    switch (p->ga.kind[id]) {
    case NODE_FUNC:
    case NODE_LET: end = start; break;
    case NODE_IF:
    case NODE_MATCH: end = end > start ? start + 1 : start; break;
    default: break;
    }
    if (p->nframes == p->frames_cap)
        p->frames = xgrow_items(p->frames, &p->frames_cap, p->nframes + 1, sizeof *p->frames);
    p->frames[p->nframes++] = (Frame){id, start, end};
}

static bool needs_visit(const Printer *p, uint32_t id)
{
    return !always_inline(p->ga.kind[id]) && p->visited[id] == VISIT_NOT;
}

/* note [temp numbering], step 1: iterative post-order from root.  A
 * leaf visit of a function visits its body, so walks nest: each works
 * above the frames of the walks it is inside, in one stack. */
static void visit_all(Printer *p, uint32_t root)
{
    if (!needs_visit(p, root))
        return;
    size_t base = p->nframes;
    push_frame(p, root);
    while (p->nframes > base) {
        Frame *f = &p->frames[p->nframes - 1];
        const uint32_t *kids = p->ga.kids;
        uint32_t next = f->next;
        while (next < f->end && !needs_visit(p, kids[next])) /* no stores: */
            next++;                                         /* all in registers */
        if (next < f->end) {
            f->next = next + 1;
            push_frame(p, kids[next]);
            continue;
        }
        uint32_t id = f->id;
        p->nframes--;
        if (p->visited[id] == VISIT_NOT)
            leaf_visit(p, id);
    }
}

/* An expression printed inline where TVM tries to inline it (a scope's
 * result, a let's value): its text, after the bindings its operands
 * need; a node with a temp already prints as it.  For a scope's result
 * (result: out holds the scope's lines) the indentation goes between
 * those bindings and the text. */
static void put_inline(Printer *p, StrBuf *out, uint32_t root, int level, bool result)
{
    uint32_t saved_root = p->root;
    int saved_level = p->root_level;
    p->root = root;
    p->root_level = level;
    visit_all(p, root);
    bool as_operand = always_inline(p->ga.kind[root]) || p->visited[root] == VISIT_BOUND;
    size_t most = as_operand ? resolve_operand(p, root) : 0;
    if (result)
        indent(out, level);
    if (as_operand) {
        out->len = (size_t)(write_ref(p, room(out, most), root) - out->data);
    } else {
        put_text(p, out, root);
        put_annot(p, out, root);
        p->visited[root] = VISIT_USED;
    }
    p->root = saved_root;
    p->root_level = saved_level;
}

/* A scope: its binding lines, then its result inline (no newline).
 * Nothing else writes to out meanwhile, so the lines go straight there. */
static void put_scope(Printer *p, StrBuf *out, uint32_t root, int level)
{
    StrBuf *saved_lines = p->lines;
    int saved_level = p->level;
    p->lines = out;
    p->level = level;
    put_inline(p, out, root, level, true);
    p->lines = saved_lines;
    p->level = saved_level;
}

static void put_module_head(StrBuf *out, const graft_graph *g)
{
    if (graph_version(g)) {
        put_str(out, graph_version(g));
        put_chr(out, '\n');
    }
    for (int i = 0; i < graph_ntypedefs(g); i++) {
        put_str(out, graph_typedef(g, i));
        put_lit(out, "\n\n");
    }
}

/* "def @main(%x: T, ...) -> T {" body "}", as TVM's PrintFunc. */
static void put_main(Printer *p, StrBuf *out)
{
    const graft_graph *g = p->g;
    if (graph_is_bare(g)) { /* note [bare module] in graph_module.c */
        if (graph_output(g))
            put_scope(p, out, node_id(graph_output(g)), 0);
        put_chr(out, '\n');
        return;
    }
    put_lit(out, "def @");
    put_str(out, graph_name(g));
    put_chr(out, '(');
    int nparams = graph_nparams(g);
    uint32_t *ids = xmalloc((size_t)(nparams ? nparams : 1) * sizeof *ids);
    for (int i = 0; i < nparams; i++)
        ids[i] = node_id(graph_param(g, i));
    put_params(p, out, ids, (size_t)nparams);
    free(ids);
    for (int i = 0; i < graph_main_nattrs(g); i++) {
        const graft_attr *a = graph_main_attr(g, i);
        if (i || graph_nparams(g))
            put_lit(out, ", ");
        put_str(out, a->name);
        put_chr(out, '=');
        put_attr_value(p, out, a->value);
    }
    put_lit(out, ") ");
    if (graph_ret_type(g))
    {
        put_lit(out, "-> ");
        put_str(out, graph_ret_type(g)->text);
        put_chr(out, ' ');
    }
    put_lit(out, "{\n");
    if (graph_output(g))
        put_scope(p, out, node_id(graph_output(g)), 1);
    put_lit(out, "\n}\n");
}

static void printer_init(Printer *p, const graft_graph *g)
{
    memset(p, 0, sizeof *p);
    p->g = g;
    p->root = NO_ROOT;
    memcpy(p->next_text, "%0", 2);
    p->next_len = 2;
    graph_arrays_build(g, &p->ga);
    size_t n = graph_node_count(g) ? graph_node_count(g) : 1;
    p->off = xmalloc(n * sizeof(size_t)); /* set when a text is kept */
    p->len = xmalloc(n * sizeof(size_t));
    p->temp = xmalloc(n * sizeof *p->temp); /* set by bind */
    p->visited = xcalloc(n, 1);
    p->stack = xmalloc(n * sizeof(uint32_t));
    var_names_init(&p->names, &p->ga);
}

static void printer_free(Printer *p)
{
    strbuf_free(&p->pending);
    strbuf_free(&p->quoted);
    strbuf_free(&p->consts);
    free(p->frames);
    for (size_t i = 0; i < p->ascratch; i++) {
        strbuf_free(p->scratch[i]);
        free(p->scratch[i]);
    }
    free(p->scratch);
    free(p->off);
    free(p->len);
    free(p->temp);
    free(p->visited);
    free(p->stack);
    var_names_free(&p->names);
    graph_arrays_free(&p->ga);
    adt_table_free(p->adts);
}

/* "def @f(...) { ... }" for a global function other than @main. */
static void put_def(Printer *p, StrBuf *out, const graft_node *fn, const char *name)
{
    StrBuf prefix = {0};
    strbuf_puts(&prefix, "def @");
    strbuf_puts(&prefix, name);
    put_func(p, out, fn, prefix.data, 0);
    put_chr(out, '\n');
    strbuf_free(&prefix);
}

/* The definitions in TVM's order: sorted by name (TextPrinter::PrintMod
 * in tvm/src/relay/printer/text_printer.cc), one blank line between them;
 * the printer's temp numbers and names run on from one to the next. */
static void put_defs(Printer *p, StrBuf *out)
{
    const graft_graph *g = p->g;
    int n = graph_nglobals(g);
    if (n == 0) {
        put_main(p, out);
        return;
    }
    int *order = xmalloc((size_t)n * sizeof *order);
    for (int i = 0; i < n; i++) { /* insertion sort: modules have few */
        int k = i;
        for (; k > 0 && strcmp(graph_global_name(g, order[k - 1]),
                               graph_global_name(g, i)) > 0; k--)
            order[k] = order[k - 1];
        order[k] = i;
    }
    for (int k = 0; k < n; k++) {
        if (k)
            put_chr(out, '\n');
        graft_node *fn = graph_global_fn(g, order[k]);
        if (fn)
            put_def(p, out, fn, graph_global_name(g, order[k]));
        else
            put_main(p, out);
    }
    free(order);
}

/* Prints the whole module into out; the printer is left for inspection. */
static void print_module(Printer *p, StrBuf *out)
{
    p->top = out;
    put_module_head(out, p->g);
    put_defs(p, out);
    if (graph_metadata(p->g)) {
        put_chr(out, '\n');
        put_str(out, graph_metadata(p->g));
    }
}

static void print_types(Printer *p, unsigned flags)
{
    p->types = (flags & RELAY_PRINT_TYPES) != 0;
}

char *relay_print_string(const graft_graph *g)
{
    return relay_print_string_with(g, 0);
}

char *relay_print_string_with(const graft_graph *g, unsigned flags)
{
    Printer p;
    StrBuf out = {0};
    printer_init(&p, g);
    print_types(&p, flags);
    print_module(&p, &out);
    printer_free(&p);
    *room(&out, 0) = '\0';
    return out.data;
}

void relay_print(const graft_graph *g, FILE *out)
{
    relay_print_with(g, out, 0);
}

void relay_print_with(const graft_graph *g, FILE *out, unsigned flags)
{
    Printer p;
    StrBuf text = {0};
    printer_init(&p, g);
    print_types(&p, flags);
    p.sink = out;
    room(&text, 2 * DRAIN_AT);
    print_module(&p, &text);
    fwrite(text.data ? text.data : "", 1, text.len, out);
    strbuf_free(&text);
    printer_free(&p);
}

/* The number of a temp kept as text (note [temp texts]). */
static uint32_t temp_number(const TempText *t)
{
    uint32_t n = 0;
    for (int i = 1; i < t->b[11]; i++)
        n = n * 10 + (uint32_t)(t->b[i] - '0');
    return n;
}

/* Prints without keeping the text, for the temp numbers. */
uint32_t *relay_temp_numbers(const graft_graph *g)
{
    Printer p;
    StrBuf out = {0};
    printer_init(&p, g);
    p.discard = true;
    print_types(&p, 0);
    print_module(&p, &out);
    strbuf_free(&out);
    uint32_t *temps = xmalloc((graph_node_count(g) ? graph_node_count(g) : 1) * sizeof *temps);
    for (uint32_t i = 0; i < graph_node_count(g); i++)
        temps[i] = p.visited[i] == VISIT_BOUND ? temp_number(&p.temp[i]) : NO_TEMP;
    printer_free(&p);
    return temps;
}
