/* emit_c_rt.h - what code written by `graft compile` calls (libgraft).
 *
 * Generated C includes this one header.  It brings the rule-set interface
 * (ruleset.h) and the driver (engine.h), and adds the small helpers that
 * compiled guards and actions are made of: guard values that behave as
 * the interpreter's (match_guard.c) value for value, so a compiled guard
 * decides as the interpreted one; and builders for the attributes of new
 * op calls, as rewrite_build.c makes them.
 */
#ifndef GRAFT_EMIT_C_RT_H
#define GRAFT_EMIT_C_RT_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "engine.h"
#include "graph.h"
#include "pattern.h"
#include "ruleset.h"

/* ---- guard values (GuardVal, pattern.h) ---- */

static inline GuardVal gv_unknown(void)
{
    return (GuardVal){.kind = GV_UNKNOWN};
}

static inline GuardVal gv_num(double f)
{
    return (GuardVal){.kind = GV_NUM, .f = f};
}

static inline GuardVal gv_str(const char *s)
{
    return (GuardVal){.kind = GV_STR, .s = s};
}

static inline GuardVal gv_list(const char *text)
{
    return (GuardVal){.kind = GV_LIST, .s = text};
}

static inline bool gv_truth(GuardVal v)
{
    return v.kind == GV_NUM && v.f != 0;
}

/* A bound variable's value: its attribute, or its scalar constant. */
GuardVal gv_slot(const Binding *b);
/* users(x), rank(x), dtype(x), value(x), shape(x) of a bound node. */
GuardVal gv_users(const Binding *b);
GuardVal gv_rank(const Binding *b);
GuardVal gv_dtype(const Binding *b);
GuardVal gv_value(const Binding *b);
GuardVal gv_shape(const Binding *b);
/* attr(x, name), dflt when the node omits it. */
GuardVal gv_attr(const Binding *b, const char *name, const AttrValue *dflt);
/* base[i]: a dim of shape(x), an element of a list attribute. */
GuardVal gv_index(GuardVal base, int64_t i);
/* -x; x op y for op '+', '-', '*', '/' (division by 0 is unknown). */
GuardVal gv_neg(GuardVal x);
GuardVal gv_arith(int op, GuardVal x, GuardVal y);
/* x op y: numbers by value, anything else by canonical text (== and !=
 * only); false when either side is unknown. */
bool gv_cmp(CmpOp op, GuardVal x, GuardVal y);

/* ---- compiled attribute tests (RuleSet.attr_fns) ----
 * Each is true when attribute value v has the canonical text
 * (pattern_attr_key) of a number, a string without quotes, None, a list of
 * numbers, or any text key; without formatting v, except in the last. */

static inline bool rt_attr_is_num(const AttrValue *v, double f)
{
    if (v->kind == ATTR_INT || v->kind == ATTR_BOOL)
        return (double)v->i == f;
    return v->kind == ATTR_FLOAT && v->f == f;
}

static inline bool rt_attr_is_str(const AttrValue *v, const char *s)
{
    return v->kind == ATTR_STRING && strcmp(v->s ? v->s : "", s) == 0;
}

static inline bool rt_attr_is_none(const AttrValue *v)
{
    return v->kind == ATTR_NULL;
}

bool rt_attr_is_nums(const AttrValue *v, const double *items, int n);
bool rt_attr_key_is(const AttrValue *v, const char *key);

/* ---- attributes of a new op call ---- */

/* Attributes being collected; rt_attrs_free releases the array (the
 * values live in the graph). */
typedef struct RtAttrs {
    Attr *attrs;  /* name/value pairs in order */
    int n;        /* used */
    size_t cap;   /* allocated */
} RtAttrs;

/* **c: every attribute of node from (none when from is NULL). */
void rt_attrs_copy(RtAttrs *a, const Node *from);
/* name=value, replacing an earlier value of that name; nothing when value
 * is NULL (an attribute absent without default is left out). */
void rt_attrs_put(RtAttrs *a, const char *name, const AttrValue *value);
/* Orders and filters the collected attributes as TVM prints them
 * (pattern_attrs_canonical). */
void rt_attrs_canonical(RtAttrs *a, const PatAttrDecl *decls, int ndecls);
void rt_attrs_free(RtAttrs *a);
/* Copies of attribute values into g: v itself; a bound variable's value
 * (its attribute, or its scalar constant as int or float); attribute name
 * of a bound node, else dflt.  NULL when there is none. */
const AttrValue *rt_attr_copy(Graph *g, const AttrValue *v);
const AttrValue *rt_attr_slot(Graph *g, const Binding *b);
/* note [attribute operands]: a bound attribute value as an operand of a
 * new op (var + eps with epsilon=eps bound) is a scalar constant of the
 * value, of the dtype of the op's first other operand whose dtype is
 * known (float32 when none is), spelled as TVM prints it ("1e-05f").
 * ops holds the op's nops operands, ops[self] the one being made. */
Node *rt_attr_operand(Graph *g, const AttrValue *v, Node *const *ops, int nops, int self);
const AttrValue *rt_attr_of(Graph *g, const Binding *b, const char *name,
                            const AttrValue *dflt);

/* ---- the standalone rewriter (graft compile --exe) ---- */

/* PROG MODEL [-o OUT] [--stats[=counts]] [--trace] [--max-rewrites N]:
 * what `graft run RULES... MODEL` does, with the compiled rule set rs. */
int graft_standalone_main(const RuleSet *rs, int argc, char **argv);

#endif
