/* relay_names.h - printed names of variables and quoted strings, as TVM's
 * printer makes them (private to the relay printer). */
#ifndef GRAFT_RELAY_NAMES_H
#define GRAFT_RELAY_NAMES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "arena.h"
#include "graph.h"
#include "util.h"

/* One name handed out (note [name table] in relay_names.c). */
typedef struct TakenName {
    const char *text; /* the printed name, "%x1" */
    uint32_t len;     /* its length */
    int32_t next;     /* the next name with the same hash, or -1 */
    int64_t counter;  /* the last suffix tried with this name as prefix */
} TakenName;

/* note [temp texts]: a bound node's temp is kept as its text, "%N" in
 * bytes 0 to 10 and its length in byte 11, so that each use of the temp
 * copies twelve bytes instead of converting a number (the binding line
 * takes the text from note [counted temps] in relay_print_text.c). */
typedef struct TempText {
    char b[12];
} TempText;

/* A variable's printed name: without its "%" when every name is
 * distinct, with it when given by var_names_slow (NULL until then). */
typedef struct VarName {
    const char *text;
    size_t len;
} VarName;

/* A node's slot in the printer's array per node id (note [printer
 * memory] in relay_print_impl.h). */
typedef union NodeText {
    struct {
        size_t off; /* a kept text's entry in pending (a constant's offset in consts) */
        size_t len; /* its length, or a call's, tuple's or getitem's bound */
    } kept;
    TempText temp; /* once VISIT_BOUND */
    VarName var;   /* a variable's */
} NodeText;

/* (note [variable names] in relay_names.c) TVM prints a variable as "%" + its name, prefixed
 * with "v" when the name does not start with a letter, and made unique
 * per module by appending 1, 2, ... (so a second %x prints as %x1). */
typedef struct VarNames {
    const graft_graph *g; /* the graph whose variables these are */
    bool distinct;      /* note [distinct names] in relay_names.c: every variable of the
                           graph prints as itself */
    bool as_loaded;     /* distinct, and none takes a "v": each prints as
                           its node's interned name (note [names as
                           loaded] in relay_names.c), the slots unused */
    NodeText *slot;     /* the printer's, per node id: a variable's .var */
    Arena *arena;       /* owns the printed names */
    KeyMap taken;       /* hash of a name -> 1 + its chain's first entry */
    VEC(TakenName) names; /* every name handed out */
} VarNames;

/* Names the variables of g into slot, the printer's array of
 * graph_node_count (at least one) slots, zeroed, which holds nothing
 * yet. */
void var_names_init(VarNames *vn, const graft_graph *g, NodeText *slot);
void var_names_free(VarNames *vn);
/* Variable v's printed name, given on the first call (the name's
 * declaration, or a free variable's first use): not distinct, the name
 * returned has its "%" (*percent false). */
const char *var_names_slow(VarNames *vn, const graft_node *v, size_t *len);

/* The *len bytes of variable v's printed name, after a "%" when
 * *percent. */
static inline const char *var_names_get(VarNames *vn, const graft_node *v, bool *percent,
                                        size_t *len)
{
    if (vn->as_loaded) {
        const char *name = v->str; /* interned: graph.h */
        *percent = true;
        *len = interner_length(name);
        return name;
    }
    if (vn->distinct) {
        *percent = true;
        *len = vn->slot[node_id(v)].var.len;
        return vn->slot[node_id(v)].var.text;
    }
    *percent = false;
    return var_names_slow(vn, v, len);
}

/* The length of variable v's printed name with its "%", the name given
 * now when names depend on the printing order (not distinct). */
static inline size_t var_names_len(VarNames *vn, const graft_node *v)
{
    size_t len;
    if (vn->as_loaded)
        return interner_length(v->str) + 1;
    if (vn->distinct)
        return vn->slot[node_id(v)].var.len + 1;
    var_names_slow(vn, v, &len);
    return len;
}

/* Appends s double-quoted with TVM's escapes (\" \\ \n \t). */
void relay_put_string(StrBuf *sb, const char *s);

#endif
