/* lower_impl.h - state shared by the lowering files (private). */
#ifndef GRAFT_LOWER_IMPL_H
#define GRAFT_LOWER_IMPL_H

#include "lower.h"
#include "registry.h"

typedef struct Lowerer {
    Arena *arena;         /* the result's arena */
    Interner *names;      /* copies of names, in arena */
    const RuleFile *rf;   /* the checked rules */
    const AstRule *rule;  /* the rule being lowered */
    graft_diag *d;              /* for constructs the runtime cannot run */
    VEC(graft_pred) preds; /* distinct tests so far */
    KeyMap pred_ids;      /* interned test key -> id */
    VEC(graft_item) items; /* distinct items so far */
    KeyMap item_ids;      /* interned item key -> id */
    StrBuf key;           /* scratch for keys */
    Arena *key_arena;     /* the interned keys, freed after lowering */
    Interner *keys;       /* keys of tests and items */
    int errors;           /* errors reported */
} Lowerer;

const char *lower_name(Lowerer *L, const char *s);
/* Canonical text of a literal: pattern_attr_key of the value it lowers
 * to (so a pattern's value and a node's compare as strings). */
void lower_literal_key(Lowerer *L, const AstNode *lit, StrBuf *out);
/* A literal as an attribute value in the result's arena. */
const graft_attr_value *lower_literal_attr(Lowerer *L, const AstNode *lit);
/* Guard and action trees (lower_expr.c); NULL after an error. */
const graft_expr *lower_guard(Lowerer *L, const AstNode *g);
const graft_expr *lower_action(Lowerer *L, const AstNode *a);
/* The pattern tree of the current rule (lower_pattern.c). */
const graft_pat *lower_pattern(Lowerer *L, const AstNode *p);
/* Reports that the matcher cannot run what at writes ("WHAT is not
 * supported by the matcher"), counted in L->errors. */
void lower_error(Lowerer *L, const AstNode *at, const char *what);
/* A rule of several roots (lower_roots.c): out's pattern, nroots and
 * roots; false after an error. */
bool lower_roots(Lowerer *L, const AstNode *roots, graft_rule *out);
/* The distinct items and tests made so far, copied into the arena. */
graft_item *lower_take_items(Lowerer *L, uint32_t *n);
graft_pred *lower_take_preds(Lowerer *L, uint32_t *n);

#endif
