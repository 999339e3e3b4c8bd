/* relay_load.h - private interface between the Relay scanner, the parser
 * (grammar/relay_*.{l,y}) and the loader's semantic actions
 * (src/relay/relay_load.c).  Users call relay_load (relay.h). */
#ifndef GRAFT_RELAY_LOAD_H
#define GRAFT_RELAY_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "graph.h"
#include "relay.h"
#include "util.h"

/* A token's bytes in the Source (the loader rejects sources over
 * INT_MAX bytes), which is also its place (note [token offsets]). */
typedef struct RelayText {
    uint32_t off; /* offset of the first byte */
    uint32_t len; /* bytes */
} RelayText;

/* An open bracket, remembered to name it when its closer is missing. */
typedef struct OpenBracket {
    char c;       /* '(', '[' or '{' */
    uint32_t off; /* where it was opened */
} OpenBracket;

struct RelayParser;

/* A parameter of a PARAMS token (note [def parameters] in
 * relay_load_params.c): "%name", its type's text and its annotation
 * (len 0: none). */
typedef struct ParamText {
    RelayText name;
    RelayText type;
    RelayText annot;
} ParamText;

/* The scanner's state (flex "extra"). */
typedef struct RelayLexer {
    VEC(OpenBracket) open; /* brackets not closed yet, innermost last */
    bool at_eof;       /* the end of the input was returned */
    int last;          /* the last token returned (note [annotations]) */
    bool fast;         /* the first attempt's: long tokens too (note
                          [long tokens] in relay_lex.l) */
    bool opened;       /* the last token was a '(' a NAMES may follow */
    int pending;       /* a long token scanned with the BIND before it,
                          returned next (its length: pending_len), or 0 */
    uint32_t pending_len;
    RelayText bind_temp; /* the last BIND's "%N" */
    RelayText bind_op;   /* and its op name */
    uint32_t bind_end;   /* and where it ends (after its '(') */
    uint32_t names_at;   /* where the last NAMES scanned starts */
    VEC(RelayText) items; /* the last NAMES token's items, in order */
    bool def_head;     /* a "def" was returned, its '(' not yet */
    bool def_opened;   /* the last token was that '(' (PARAMS may follow) */
    VEC(ParamText) params; /* the last PARAMS token's parameters */
    RelayText tok;     /* the last match: the parser's lookahead when it
                          reports an error; at the end, a point (len 0) */
    RelayText last_text; /* the last match that is not white space */
    const Source *src; /* text being scanned */
    struct RelayParser *lines; /* the first attempt's loader, which reads
                          binding lines by hand (note [binding lines]) */
    graft_diag *diag;        /* where lexical errors go */
    void *scanner;     /* the flex scanner (yyscan_t) */
    char *copy;        /* the copy of the text it scans, or NULL: it scans
                          the Source in place (note [relay lexer]) */
    size_t offset;     /* byte offset of the next token */
} RelayLexer;

/* fast: the first attempt's scanner, which also makes the long tokens
 * (note [long tokens] in relay_lex.l). */
RelayLexer *relay_lexer_new(const Source *src, graft_diag *d, bool fast);
void relay_lexer_free(RelayLexer *lx);
/* The long tokens scanned by hand (relay_load_scan.c): the length of
 * BIND ("%N = op(", not a keyword, with leading layout) or NAMES (layout,
 * names and numbers separated by commas, the ')') at byte off, or 0.
 * BIND sets lx->bind_temp and bind_op, NAMES lx->items.  After NAMES,
 * relay_scan_semicolon: the length of layout and a ';' at off, or 0. */
uint32_t relay_scan_bind(RelayLexer *lx, uint32_t off);
uint32_t relay_scan_names(RelayLexer *lx, uint32_t off);
uint32_t relay_scan_semicolon(const RelayLexer *lx, uint32_t off);
/* The length of PARAMS (a def's parameters and the ')', note [def
 * parameters]) at byte off, or 0; sets lx->params. */
uint32_t relay_scan_params(RelayLexer *lx, uint32_t off);
/* The lines and columns of a token, as a diagnostic underlines it: a
 * token spanning lines (a comment, the metadata section) by its first
 * byte; len 0 is the point before off. */
SrcRange relay_text_range(const Source *src, RelayText t);
/* Errors at the last match (lx->tok). */
void lex_error(RelayLexer *lx, const char *msg);
void lex_stray(RelayLexer *lx, char c);
void lex_open(RelayLexer *lx, char c);
void lex_close(RelayLexer *lx, char c);

/* What a list item on the parser's item stack holds. */
typedef enum ItemKind {
    ITEM_NODE,  /* an operand, tuple field or function parameter */
    ITEM_ATTR,  /* name=value in a call or function */
    ITEM_VALUE, /* an element of an attribute list */
    ITEM_TYPE,  /* a field of a tuple type */
    ITEM_DIM,   /* a tensor dimension */
    ITEM_LET,   /* let var = value; in a body (load_body wraps them) */
    ITEM_PIECE, /* part of a match clause's pattern */
    ITEM_CLAUSE,/* a whole match clause */
} ItemKind;

/* A match clause being collected: its pattern and result. */
typedef struct ClauseItem {
    MatchClause clause; /* pieces in the graph's arena */
    graft_node *result;       /* the clause's scope's result */
} ClauseItem;

/* A reference kept for checking once the module is read: "@f" (a global
 * defined anywhere in the module) or "meta[KIND][i]" (an entry of the
 * metadata section at the end). */
typedef struct LateRef {
    const char *name;   /* interned: global name, or meta KIND */
    int64_t index;      /* meta index; -1 for a global */
    RelayText where;    /* the reference, for the error */
} LateRef;

typedef struct Item {
    ItemKind kind;           /* which member is set */
    union {
        graft_node *node;          /* ITEM_NODE */
        graft_attr attr;           /* ITEM_ATTR */
        graft_attr_value *value;    /* ITEM_VALUE */
        const graft_type *type;    /* ITEM_TYPE */
        int64_t dim;         /* ITEM_DIM */
        struct {
            graft_node *var;       /* ITEM_LET: the bound variable */
            graft_node *value;     /* and its value */
        } let;
        ClausePiece piece;   /* ITEM_PIECE */
        ClauseItem clause;   /* ITEM_CLAUSE */
    } u;
} Item;

/* A variable (%x), or a temp too large for a cell, in scope (note
 * [relay scopes] in relay_load_scope.c).  32 bytes. */
typedef struct Symbol {
    uint64_t key;      /* temp: 2 * number + 1; name: interned pointer */
    graft_node *node;        /* what it names */
    uint32_t off;      /* its definition's byte offset in the source */
    uint32_t len;      /* and length, for "first defined here" */
    int32_t depth;     /* scope depth it was defined at */
    int32_t shadowed;  /* index of the symbol it hides, or -1 */
} Symbol;

/* What a temp's number names now (note [temps by number]). */
typedef struct TempCell {
    graft_node *node;  /* its innermost definition, or NULL */
    uint32_t off;      /* where that definition's "%N" is */
    int32_t depth;     /* the scope depth it was defined at */
} TempCell;

/* A cell a definition inside a scope hid, put back at the scope's end. */
typedef struct TempHidden {
    uint32_t number;
    TempCell cell;
} TempHidden;

/* Where an open scope's symbols and hidden cells start. */
typedef struct ScopeMark {
    size_t syms;
    size_t temps;
} ScopeMark;

/* An operand of a binding line read by hand (relay_load_line.c): "%3"
 * (number >= 0), "%x" (number -1) or a number literal, and its
 * annotation (len 0: none). */
typedef struct LineOperand {
    RelayText text;
    int64_t number;
    RelayText annot;
    graft_node *param;   /* "%x" is the def's parameter guessed as it was
                            read (note [parameters in order]), or NULL */
} LineOperand;

/* The line a node's position is read from without the Source's line
 * table (note [line cursor] in relay_load_expr.c): bytes [start, end)
 * hold no newline, and start is the first byte of line index line. */
typedef struct LineCursor {
    uint32_t line;
    uint32_t start;
    uint32_t end;
} LineCursor;

/* A literal's value and dtype (interned), converted once per spelling
 * (note [literal cache] in relay_load_expr.c). */
typedef struct LiteralValue {
    double value;
    const char *dtype;
} LiteralValue;

/* An interned name, kept by load_intern (note [name cache] in
 * relay_load_expr.c). */
#define NAME_CACHE_BITS 6 /* 64 names (note [name cache] in relay_load_expr.c) */
typedef struct CachedName {
    const char *str; /* interned, or NULL */
    uint64_t head;   /* its first eight bytes (zeros past its end) */
    uint32_t len;    /* its bytes */
} CachedName;

/* An op the binding lines have called, found again by its bytes (note
 * [ops read] in relay_load_line.c). */
#define OPS_SEEN_BITS 6
typedef struct SeenOp {
    const char *name; /* interned, or NULL */
    uint64_t head;    /* its first bytes and '(', up to eight, */
    uint64_t mask;    /* which bytes of a word those are */
    uint32_t len;     /* its bytes */
} SeenOp;

/* The last literal a binding line made whose spelling fits in eight
 * bytes (note [literal seen] in relay_load_line.c). */
typedef struct SeenLiteral {
    uint64_t head;        /* its bytes, */
    uint64_t mask;        /* which bytes of a word those are */
    uint32_t len;         /* its bytes; 0: none yet */
    const char *spelling; /* interned */
    double value;
    const char *dtype;    /* interned */
} SeenLiteral;

/* A text of the model found again by its bytes (note [span caches] in
 * relay_load_spans.c): a parameter's type, or the type in an
 * annotation. */
typedef struct SpanEntry {
    const char *text;       /* its bytes: the source's, or interned */
    uint32_t len;           /* how many */
    const graft_type *type; /* the type it is or names, or NULL */
    const char *comment;    /* a type in an annotation: the interned
                               comment "/ * ty=" text " * /", or NULL */
} SpanEntry;

typedef struct SpanCache {
    KeyMap index;            /* the key of a text's bytes -> its entry */
    VEC(SpanEntry) entries;
} SpanCache;

/* The entry of the len bytes at s, or NULL; *key is what to put a new
 * one under.  Pointers into the cache hold until the next put. */
SpanEntry *span_cache_get(SpanCache *c, const char *s, uint32_t len, uint64_t *key);
/* Keeps a copy of e under key, unless another text holds the key. */
void span_cache_put(SpanCache *c, uint64_t key, const SpanEntry *e);
void span_cache_free(SpanCache *c);

/* The parser's state, passed to every action. */
typedef struct RelayParser {
    const Source *src;   /* text being parsed */
    const char *text_past; /* past the text's NUL: the binding lines' reader
                            reads eight bytes at s where text_past - s >= 8 */
    graft_diag *diag;          /* where errors go */
    graft_graph *g;            /* graph being built */
    RelayLexer *lexer;   /* token source */
    VEC(Item) items;     /* open lists, innermost on top */
    VEC(Symbol) syms;    /* variables in scope, outermost first */
    TempCell *temps;     /* per temp number (note [temps by number]) */
    size_t ntemps;       /* cells in temps */
    VEC(TempHidden) temp_hidden; /* cells hidden by open scopes */
    KeyMap keys;         /* symbol keys -> innermost symbol, or -1 */
    size_t syms_keyed;   /* the syms below this are in keys; the rest are a
                            def's parameters, keyed late (note [parameters
                            keyed late] in relay_load_params.c) */
    VEC(ScopeMark) scopes; /* per open scope: where it starts */
    int depth;           /* open scopes (0: a def's body) */
    VEC(const char *) fn_type_params; /* per open scope (items, by
                            depth): its fn's type parameters ("A, B"), or NULL */
    graft_node **scratch_nodes;     /* operands of the list being reduced */
    size_t scratch_nodes_cap; /* capacity of scratch_nodes */
    graft_attr *scratch_attrs;      /* attributes of the list being reduced */
    size_t scratch_attrs_cap; /* capacity of scratch_attrs */
    long max_depth;      /* parser stack entries allowed (YYMAXDEPTH) */
    uint64_t max_fn_depth; /* functions nested in one another allowed */
    size_t line;         /* index of the line load_at found last */
    LineCursor cursor;   /* the line the reading has got to */
    int32_t *pos;        /* the graph's positions (graph_positions) */
    size_t pos_cap;      /* ids below this placed by a store */
    bool have_def;       /* a "def" was read */
    RelayText first_def; /* where the first "def" names its function */
    SpanCache annot_types; /* annotations' types by their "ty=" part's
                            bytes (note [annotation cache]) */
    SpanCache types;     /* parameters' types and the tensors of annotations'
                            by their text's bytes (note [span caches]) */
    KeyMap literals;     /* interned spelling -> index in literal_values */
    LiteralValue *literal_values; /* literals converted so far */
    size_t nliterals;    /* entries in literal_values */
    size_t literal_values_cap; /* capacity of literal_values */
    graft_node **def_params; /* the def's parameters read from PARAMS (note
                            [def parameters]), or NULL */
    size_t ndef_params;  /* entries in def_params */
    size_t param_next;   /* the one of them a variable use is guessed to
                            name next (note [parameters in order]) */
    size_t param_syms;   /* syms.len once they were defined */
    size_t params_unmade; /* def_params' count while their Symbols are not
                            made (note [parameter Symbols made late] in
                            relay_load_params.c), else 0 */
    VEC(LateRef) late;   /* references checked at the end */
    VEC(LineOperand) operands; /* the operands of a line read by hand */
    VEC(graft_node *) line_args; /* and their nodes, made once it is read */
    CachedName names[1 << NAME_CACHE_BITS]; /* op and attribute names interned lately */
    SeenOp ops_seen[1 << OPS_SEEN_BITS]; /* the binding lines' ops, by their first bytes */
    SeenLiteral literal_seen; /* and their last literal */
    bool failed;         /* an error was reported */
    RelayLoadCounts counts; /* how the lines and parameters were read (note
                            [loading counted] in relay_load.c) */
    struct AdtTable *adts; /* the module's constructors, read at the first
                              name used as a value (type_adt.h) */
} RelayParser;

/* ---- actions (relay_load.c) ---- */

/* Gives n (when not NULL and not yet placed) the position token t starts
 * at, for explanations and diagnostics that name model nodes; returns n. */
graft_node *load_at(RelayParser *ps, graft_node *n, RelayText t);
/* Token t's place, for a diagnostic (relay_text_range). */
SrcRange load_range(const RelayParser *ps, RelayText t);
/* Annotates n, new, with the comment annot (load_annotate's test is not
 * needed). */
void load_annotate_new(RelayParser *ps, graft_node *n, RelayText annot);
/* load_place's node off the cursor's stretch (relay_load_expr.c). */
void load_place_off_cursor(RelayParser *ps, graft_node *n, RelayText t);

/* note [positions stored]: the loader places every node it makes (the
 * workload: 120,000 of them), and graph_set_pos's call was 27
 * instructions of a node's placing.  So the loader stores the line and
 * column in the graph's positions table (graph_positions) itself, for
 * the ids the table has room for (reserve sizes it from the text), and
 * calls graph_set_pos only for an id past it, taking the table again
 * after the call, which may have moved it. */
static inline void load_set_pos(RelayParser *ps, graft_node *n, uint32_t line, uint32_t col)
{
    uint32_t id = node_id(n);
    if (id < ps->pos_cap) {
        ps->pos[2 * (size_t)id] = (int32_t)line;
        ps->pos[2 * (size_t)id + 1] = (int32_t)col;
    } else {
        graph_set_pos(ps->g, n, (int)line, (int)col);
        ps->pos = graph_positions(ps->g, &ps->pos_cap);
    }
}

/* Places n, which has no position yet, at t's line and column.  Inline,
 * the stretch apart: every node made is placed. */
static inline void load_place(RelayParser *ps, graft_node *n, RelayText t)
{
    const LineCursor *c = &ps->cursor;
    if (t.off < c->start || t.off >= c->end)
        load_place_off_cursor(ps, n, t);
    else
        load_set_pos(ps, n, c->line + 1, t.off - c->start + 1);
}

/* The parser's scratch array of attributes, room for n. */
static inline graft_attr *load_scratch_attrs(RelayParser *ps, size_t n)
{
    if (n + 1 > ps->scratch_attrs_cap)
        ps->scratch_attrs = xgrow_items(ps->scratch_attrs, &ps->scratch_attrs_cap, n + 1,
              sizeof(graft_attr));
    return ps->scratch_attrs;
}

/* The attributes listed from mark (popped; nothing else is listed
 * there), in the parser's scratch array. */
static inline graft_attr *load_take_attrs(RelayParser *ps, size_t mark, int *nattrs)
{
    size_t n = ps->items.len - mark;
    graft_attr *attrs = load_scratch_attrs(ps, n);
    for (size_t i = 0; i < n; i++)
        attrs[i] = ps->items.items[mark + i].u.attr;
    *nattrs = (int)n;
    ps->items.len = mark;
    return attrs;
}

/* The token's bytes in the source (inline: every action reads some). */
static inline const char *load_text(const RelayParser *ps, RelayText t)
{
    return ps->src->text + t.off;
}
/* The token's bytes interned in the graph. */
const char *load_intern(RelayParser *ps, RelayText t);
/* A STRING token's contents without quotes and escapes, interned. */
const char *load_unquote(RelayParser *ps, RelayText t);
/* Pushes a list item; load_mark returns where the next list starts. */
static inline size_t load_mark(const RelayParser *ps)
{
    return ps->items.len;
}
void load_push_node(RelayParser *ps, graft_node *n);
void load_push_attr(RelayParser *ps, RelayText name, graft_attr_value *v);
void load_push_value(RelayParser *ps, graft_attr_value *v);
void load_push_type(RelayParser *ps, const graft_type *t);
bool load_push_dim(RelayParser *ps, RelayText t);

void load_note_opener(RelayParser *ps, const char *msg);

/* ---- names in scope (relay_load_scope.c, note [relay scopes]) ---- */

/* The node temp number names now, or NULL.  Inline: the binding lines
 * look up every temp operand here. */
static inline graft_node *scope_temp(const RelayParser *ps, uint64_t number)
{
    return number < ps->ntemps ? ps->temps[number].node : NULL;
}
/* *found: the innermost definition of name ("%3" or "%x"), or NULL;
 * false after reporting a bad temp number. */
bool scope_lookup(RelayParser *ps, RelayText name, graft_node **found);
/* The def's parameters put in ps->keys when load_params left them out
 * (note [parameters keyed late] in relay_load_params.c): false at one
 * named twice.  scope_keys: ps->keys with every Symbol in it, for
 * whatever reads or changes it. */
bool scope_key_params(RelayParser *ps);
/* The Symbols of the def's parameters that load_params left unmade
 * pushed (note [parameter Symbols made late] in relay_load_params.c). */
void scope_make_params(RelayParser *ps);
static inline KeyMap *scope_keys(RelayParser *ps)
{
    if (ps->syms_keyed < ps->syms.len || ps->params_unmade)
        scope_key_params(ps); /* (true: load_params checked them) */
    return &ps->keys;
}
/* scope_lookup of a variable ("%x"): the node of its innermost
 * definition, or NULL.  Inline: the binding lines look up each variable
 * operand here (a def's parameters, each used once or so). */
static inline graft_node *scope_var(RelayParser *ps, RelayText name)
{
    const char *s = graph_intern_n(ps->g, load_text(ps, name) + 1, name.len - 1);
    const int64_t *cell = keymap_get(scope_keys(ps), (uint64_t)(uintptr_t)s); /* (its key) */
    return cell && *cell >= 0 ? ps->syms.items[*cell].node : NULL;
}
/* Whether a variable's use is guessed to name the def's parameter
 * ps->def_params[ps->param_next] (note [parameters in order] in
 * relay_load_scope.c). */
static inline bool scope_param_guessed(const RelayParser *ps)
{
    return ps->param_next < ps->ndef_params && ps->syms.len == ps->param_syms;
}
/* scope_var of a variable that was not the def's parameter guessed (note
 * [parameters in order] in relay_load_scope.c), the guess moved past a
 * parameter found so after it. */
void scope_param_found(RelayParser *ps, const graft_node *v);
static inline graft_node *scope_var_guessing(RelayParser *ps, RelayText name)
{
    graft_node *v = scope_var(ps, name);
    if (v)
        scope_param_found(ps, v);
    return v;
}
/* The node a variable's use ("%x") names, or NULL: the def's parameter
 * guessed next when name spells it, else scope_var_guessing's. */
graft_node *scope_use_var(RelayParser *ps, RelayText name);
/* Binds name (a temp or a variable; interned: its spelling without '%')
 * to n in the current scope; false after reporting a duplicate. */
bool scope_define(RelayParser *ps, RelayText name, graft_node *n);
bool scope_define_temp(RelayParser *ps, uint64_t number, RelayText temp, graft_node *n);
/* The temps below this are cells (note [temps by number] in relay_load_scope.c). */
enum { TEMP_DIRECT = 1 << 22 };
/* scope_define_temp, its common case inline (a binding line defines a
 * temp each, and the call was two thirds of the defining): a cell there
 * and empty, in a def's body (depth 0), where a cell hides none. */
static inline bool scope_define_line_temp(RelayParser *ps, uint64_t number, RelayText temp,
                                          graft_node *n)
{
    if (number < ps->ntemps && number < TEMP_DIRECT && ps->depth == 0 &&
        !ps->temps[number].node) {
        ps->temps[number] = (TempCell){n, temp.off, 0};
        return true;
    }
    return scope_define_temp(ps, number, temp, n);
}
bool scope_define_var(RelayParser *ps, RelayText name, const char *interned, graft_node *v);
/* Opens a fn's scope at its "fn" (at), the fn's type parameters
 * type_params (or NULL); false after reporting functions nested deeper
 * than the fn-depth limit. */
bool load_scope_open(RelayParser *ps, RelayText at, const char *type_params);
void load_scope_close(RelayParser *ps);
/* Opens the scope of an if branch or a match clause (bounded by the
 * parser stack, not by fn-depth). */
void load_block_open(RelayParser *ps);
/* Forgets every name (at the end of a "def"). */
void load_scope_reset(RelayParser *ps);
/* Makes room for temps 0 to ntemps - 1 before the first is defined, in
 * one zeroed allocation (note [sized from the text] in relay_load.c). */
void load_scope_reserve(RelayParser *ps, size_t ntemps);

/* Each returns NULL/false after reporting an error (the parser aborts);
 * the error points at the token named (a call's '(' for load_fn_call). */
/* A parameter's node, named name (*interned: its spelling without '%'),
 * placed and annotated, not yet in scope. */
static inline graft_node *load_param_node(RelayParser *ps, RelayText name,
                                          const graft_type *type, const RelayText *annot,
                                          const char **interned)
{
    const char *s = graph_intern_n(ps->g, load_text(ps, name) + 1, name.len - 1);
    /* (s is interned: graph_add_fn_param would look it up again; v is
     * new, so it has no position for load_at to keep) */
    graft_node *v = graph_add_fn_param_interned(ps->g, s, type); /* note [modules] */
    load_place(ps, v, name);
    if (annot)
        load_annotate_new(ps, v, *annot);
    *interned = s;
    return v;
}
/* param -> LOCAL [':' type] [ANNOT]: of a def, a fn, a let, a pattern or
 * a free_var.  (A PARAMS token's are made by load_params, in a loop of
 * its own: note [parameters keyed late] in relay_load_params.c.) */
static inline graft_node *load_param(RelayParser *ps, RelayText name, const graft_type *type,
                                     RelayText *annot)
{
    const char *s;
    graft_node *v = load_param_node(ps, name, type, annot, &s);
    return scope_define_var(ps, name, s, v) ? v : NULL;
}
bool load_define(RelayParser *ps, RelayText temp, graft_node *value);
graft_node *load_use(RelayParser *ps, RelayText name);
graft_node *load_const(RelayParser *ps, RelayText t);
graft_node *load_call(RelayParser *ps, RelayText op, size_t mark);
graft_node *load_fn_call(RelayParser *ps, graft_node *callee, size_t mark, RelayText paren);
graft_node *load_tuple(RelayParser *ps, size_t mark);
/* '(' fields ')': one field is that expression, more are a tuple. */
graft_node *load_paren(RelayParser *ps, size_t mark);
graft_node *load_getitem(RelayParser *ps, graft_node *tuple, RelayText index);
graft_node *load_func(RelayParser *ps, size_t mark, const graft_type *ret, graft_node *body);
void load_annotate(RelayParser *ps, graft_node *n, RelayText annot);

/* ---- the long tokens (relay_load_names.c, note [long tokens]) ---- */

/* BIND's temp ("%N" of "%N = op("). */
RelayText load_bind_temp(const RelayParser *ps, RelayText bind);
/* BIND args ')': the call to BIND's op with the listed arguments. */
graft_node *load_bind_call(RelayParser *ps, RelayText bind, size_t mark);
/* BINDING's call; BIND NAMES, op '(' NAMES, postfix '(' NAMES and
 * '(' NAMES. */
graft_node *load_binding(RelayParser *ps, RelayText binding);
graft_node *load_bind_names(RelayParser *ps, RelayText bind, RelayText names);
graft_node *load_call_names(RelayParser *ps, RelayText op, RelayText names);
graft_node *load_fn_call_names(RelayParser *ps, graft_node *callee, RelayText names,
                               RelayText paren);
graft_node *load_paren_names(RelayParser *ps, RelayText names);
/* NAMES as a def's or fn's parameters, pushed as load_push_node does. */
bool load_param_names(RelayParser *ps, RelayText names);
/* The last PARAMS token's parameters (relay_load_params.c), made and
 * kept in ps->def_params for load_def (nothing pushed). */
bool load_params(RelayParser *ps);

/* The type TVM's text s (n bytes: the "ty=" part of an annotation)
 * names, as graph_annotation_type makes it, when it is of the forms
 * relay_load_types.c reads (note [types in annotations]); else NULL. */
const graft_type *load_ty_type(RelayParser *ps, const char *s, size_t n);

/* ---- binding lines read by hand (relay_load_line.c) ---- */

/* The newline at byte off, met by a reader that has passed every byte
 * from the cursor's end to off (note [line cursor] in relay_load_expr.c). */
static inline void load_newline(RelayParser *ps, uint32_t off)
{
    ps->cursor.line++;
    ps->cursor.start = ps->cursor.end = off + 1;
}
/* The cursor moved to byte off's line, at or after its start. */
void load_cursor_seek(RelayParser *ps, uint32_t off);

/* Reads the binding lines at byte off that it can (note [binding
 * lines]), making their nodes; the bytes read.  ps->failed after an
 * error in one. */
uint32_t relay_read_lines(RelayParser *ps, uint32_t off);

/* ---- whole modules (relay_load_module.c) ---- */

/* def @NAME[TYPE_PARAMS](...) -> RET { BODY }: type_params "A, B" or NULL. */
bool load_def(RelayParser *ps, RelayText name, const char *type_params, size_t mark,
              const graft_type *ret, graft_node *body);
/* A module that is a bare expression: its body becomes @main. */
void load_bare(RelayParser *ps, graft_node *body);
/* After the last def: globals resolved, meta references checked, @main
 * chosen (note [modules]). */
bool load_module_end(RelayParser *ps);
graft_node *load_body(RelayParser *ps, size_t mark, graft_node *result);
void load_push_let(RelayParser *ps, graft_node *var, graft_node *value);
void load_free_var(RelayParser *ps, graft_node *var);
graft_node *load_opref(RelayParser *ps, RelayText name);
graft_node *load_global(RelayParser *ps, RelayText name);
graft_node *load_if(RelayParser *ps, graft_node *cond, graft_node *then_branch,
                    graft_node *else_branch);
graft_node *load_match(RelayParser *ps, RelayText keyword, graft_node *data, size_t mark);
void load_clause(RelayParser *ps, size_t mark, graft_node *result);
/* Pattern pieces: IDENT followed by suffix ("Cons" "("), text, a var. */
void load_push_piece(RelayParser *ps, RelayText ident, const char *suffix);
void load_push_piece_text(RelayParser *ps, const char *text);
void load_push_piece_var(RelayParser *ps, graft_node *var);
/* Remembers meta[KIND][i] (token t) for load_module_end. */
void load_meta_ref(RelayParser *ps, RelayText t);
/* @f as an attribute value, checked to name a def at load_module_end. */
graft_attr_value *load_global_value(RelayParser *ps, RelayText name);

graft_attr_value *load_value(RelayParser *ps, graft_attr_kind kind, RelayText t);
graft_attr_value *load_list(RelayParser *ps, size_t mark);
/* load_list, spelled spelling (len bytes, the list as printed) when it
 * is not NULL. */
graft_attr_value *load_list_spelled(RelayParser *ps, size_t mark, const char *spelling,
                                    size_t len);
graft_attr_value *load_map(RelayParser *ps, size_t mark);

const graft_type *load_dtype(RelayParser *ps, RelayText t);
const graft_type *load_tensor_type(RelayParser *ps, RelayText tensor, size_t mark,
                             RelayText dtype);
const graft_type *load_tuple_type(RelayParser *ps, size_t mark);
const graft_type *load_paren_type(RelayParser *ps, size_t mark);
/* NAME '[' types ']': a type kept as its text (TYPE_OTHER). */
const graft_type *load_type_call(RelayParser *ps, RelayText name, size_t mark);
/* A type parameter's name (TYPE_OTHER), pushed by the type_params list. */
const graft_type *load_type_name(RelayParser *ps, RelayText t);
/* The names pushed from mark as TVM prints them between brackets
 * ("A, B"), interned. */
const char *load_type_params(RelayParser *ps, size_t mark);
/* "fn" ['[' type_params ']'] '(' types ')' "->" ret: a function type,
 * kept as its text (TYPE_OTHER) as TVM's FuncType prints it. */
const graft_type *load_fn_type(RelayParser *ps, const char *type_params, size_t mark,
                               const graft_type *ret);

void load_version(RelayParser *ps, RelayText t);
void load_typedef(RelayParser *ps, RelayText t);
void load_metadata(RelayParser *ps, RelayText t);

#endif
