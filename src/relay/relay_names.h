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

/* (note [variable names] in relay_names.c) TVM prints a variable as "%" + its name, prefixed
 * with "v" when the name does not start with a letter, and made unique
 * per module by appending 1, 2, ... (so a second %x prints as %x1). */
typedef struct VarNames {
    const GraphArrays *ga; /* the graph's nodes: kinds and names */
    bool distinct;      /* note [distinct names] in relay_names.c: every variable of the
                           graph prints as itself */
    const char **name;  /* per node id: the printed name without "%"
                           (distinct: the graph's own names, ga->str,
                           unless a name takes a "v"), NULL until given */
    bool own_name;      /* name is this table's own */
    uint32_t *len;      /* per node id: name's length */
    uint32_t nnodes;    /* entries in name and len */
    Arena *arena;       /* owns the printed names */
    KeyMap taken;       /* hash of a name -> 1 + its chain's first entry */
    VEC(TakenName) names; /* every name handed out */
} VarNames;

void var_names_init(VarNames *vn, const GraphArrays *ga);
void var_names_free(VarNames *vn);
/* Variable id's printed name, given on the first call (the name's
 * declaration, or a free variable's first use): not distinct, the name
 * returned has its "%" (*percent false). */
const char *var_names_slow(VarNames *vn, uint32_t id, size_t *len);

/* The *len bytes of variable id's printed name, after a "%" when
 * *percent. */
static inline const char *var_names_get(VarNames *vn, uint32_t id, bool *percent, size_t *len)
{
    if (vn->distinct) {
        *percent = true;
        *len = vn->len[id];
        return vn->name[id];
    }
    *percent = false;
    return var_names_slow(vn, id, len);
}

/* The length of variable id's printed name with its "%", the name given
 * now when names depend on the printing order (not distinct). */
static inline size_t var_names_len(VarNames *vn, uint32_t id)
{
    size_t len;
    if (vn->distinct)
        return (size_t)vn->len[id] + 1;
    var_names_slow(vn, id, &len);
    return len;
}

/* Appends s double-quoted with TVM's escapes (\" \\ \n \t). */
void relay_put_string(StrBuf *sb, const char *s);

#endif
