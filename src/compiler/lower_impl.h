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
    Diag *d;              /* for constructs the runtime cannot run */
    PatPred *preds;       /* distinct tests so far */
    size_t npreds, preds_cap;
    KeyMap pred_ids;      /* interned test key -> id */
    PatItem *items;       /* distinct items so far */
    size_t nitems, items_cap;
    KeyMap item_ids;      /* interned item key -> id */
    StrBuf key;           /* scratch for keys */
    Arena *key_arena;     /* the interned keys, freed after lowering */
    Interner *keys;       /* keys of tests and items */
    int errors;           /* errors reported */
} Lowerer;

const char *lower_name(Lowerer *L, const char *s);
/* Canonical text of a literal, as pattern_attr_key writes attribute
 * values (so a pattern's value and a node's compare as strings). */
void lower_literal_key(const AstNode *lit, StrBuf *out);
/* A literal as an attribute value in the result's arena. */
const AttrValue *lower_literal_attr(Lowerer *L, const AstNode *lit);
/* Guard and action trees (lower_expr.c); NULL after an error. */
const PatExpr *lower_guard(Lowerer *L, const AstNode *g);
const PatExpr *lower_action(Lowerer *L, const AstNode *a);
/* The pattern tree of the current rule (lower_pattern.c). */
const PatNode *lower_pattern(Lowerer *L, const AstNode *p);
/* The distinct items and tests made so far, copied into the arena. */
PatItem *lower_take_items(Lowerer *L, uint32_t *n);
PatPred *lower_take_preds(Lowerer *L, uint32_t *n);

#endif
