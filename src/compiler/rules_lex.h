/* rules_lex.h - entry points of the rule-language scanner and parser.
 *
 * The scanner (grammar/rules_lex.l) is reentrant with prefix rules_; the
 * parser (grammar/rules_parse.y) is pure with prefix rules_.  Both share a
 * RulesParseCtx through the scanner's extra data.  No flex header is used:
 * this file declares what the parser needs from the scanner.
 *
 * note [item separation]: a line whose first byte is a letter or '_'
 * begins a new top-level item (rule, op, let, include); any other line
 * continues the previous one.  rules_next_token() inserts a separator
 * token before such a line's first token, which gives the grammar a safe
 * place to recover after a syntax error (one error per broken item, never
 * a cascade).
 */
#ifndef GRAFT_RULES_LEX_H
#define GRAFT_RULES_LEX_H

#include <stdbool.h>

#include "arena.h"
#include "ast.h"
#include "diag.h"

/* An open bracket, remembered to name it when its closer is missing. */
typedef struct OpenBracket {
    char ch;        /* '(', '[' or '{' */
    SrcRange where; /* its position */
} OpenBracket;

union RULES_STYPE; /* the parser's token value (grammar/rules_parse.y):
                      its .name member holds IDENT, DTYPE, STRING
                      (interned) and NUMBER (text) values */

/* State shared by scanner and parser of one file. */
typedef struct RulesParseCtx {
    AstBuilder b;          /* where nodes go */
    graft_diag *diag;            /* where errors go */
    void *scanner;         /* the flex scanner (yyscan_t) */
    char *scan_text;       /* its copy of the text (heap), two NULs after */
    size_t offset;         /* byte offset of the next match */
    size_t match;          /* byte offset of the last match */
    SrcCursor at;          /* the line of the last range computed */
    int ntokens;           /* tokens handed to the parser so far */
    bool lex_error;        /* the scanner just reported an error: the
                              parser's follow-on syntax error is dropped */
    SrcRange comment_open; /* where the open block comment began */
    size_t comment_begin;  /* its byte offset */
    VEC(AstComment) comments; /* the comments scanned so far */
    bool nest_error;       /* nesting-limit error signalled for this item */
    bool item_error;       /* an error was reported for the current item:
                              further ones in it are follow-ons, dropped */
    bool sep_error;        /* that error was at the item's end (a SEP) */
    bool continuation;     /* the previous item ended in an error at its
                              SEP: this item may be its continuation */
    int item_ntokens;      /* tokens of the current item so far */
    int item_first_tok;    /* its first token */
    bool item_looks_ok;    /* it starts like an item: op, let, include,
                              or NAME followed by ':=' or '[' */
    const char *item_name; /* the NAME of "let NAME" / "op NAME" items */
    const char **broken;   /* item_names of items with errors (heap) */
    size_t nbroken;        /* entries used in broken */
    size_t broken_cap;     /* entries allocated in broken */
    const char *last_name; /* value of the last token returned */
    SrcRange last_loc;     /* location of the last token returned */
    SrcRange prev_loc;     /* location of the token before it */
    OpenBracket *opens;    /* brackets open in the current item */
    size_t nopens;         /* entries used in opens */
    size_t opens_cap;      /* entries allocated in opens */
    size_t depth;          /* bracket depth (may exceed nopens after the
                              nesting error) */
    bool have_pending;     /* a token is held back behind a separator */
    int pending_tok;       /* that token */
    const char *pending_name; /* its value */
    SrcRange pending_loc;  /* its location */
    int prefix_run;        /* consecutive prefix-operator tokens ('-', '!',
                              '@'): bounded like brackets */
    int max_depth;         /* the rule-depth limit (note [nesting bound]) */
    int onnx_opset;        /* "opset onnx N" seen: N, and the ops declared
                              after it are ONNX's; else 0 */
    VEC(AstItem) items;    /* parsed items */
    int nranged;           /* leading items whose range is set */
} RulesParseCtx;

/* Parses one source into an AstFile allocated in b->arena, refusing
 * trees deeper than max_depth.  Errors go to d; the file holds every item
 * that parsed (broken items are skipped).  Returns NULL only when d gave
 * up. */
AstFile *rules_parse_source(const Source *src, const AstBuilder *b, int max_depth,
                            graft_diag *d);

/* Scanner interface used by the parser (grammar/rules_lex.l). */
int rules_scan_init(RulesParseCtx *ctx);
void rules_scan_free(RulesParseCtx *ctx);
/* Whether name is an identifier the scanner returns as IDENT: letters,
 * digits and '_', no digit first, not "_", not a reserved word or dtype
 * (graft-rules(5), "Lexical structure"). */
bool rules_is_identifier(const char *name);
/* Records the comment from byte begin to the end of the last match. */
void rules_keep_comment(RulesParseCtx *ctx, size_t begin);
/* Gives the items added since the last call the range of the item
 * production that added them. */
void rules_item_range(RulesParseCtx *ctx, SrcRange range);
/* Records the current item's name as broken when it had an error. */
void rules_note_broken_item(RulesParseCtx *ctx);
/* The next token, with separators inserted (note [item separation]). */
int rules_next_token(union RULES_STYPE *val, SrcRange *loc, RulesParseCtx *ctx);

#endif
