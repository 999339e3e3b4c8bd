/* relay_names.h - printed names of variables and quoted strings, as TVM's
 * printer makes them (private to the relay printer). */
#ifndef GRAFT_RELAY_NAMES_H
#define GRAFT_RELAY_NAMES_H

#include <stdbool.h>
#include <stdint.h>

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

/* note [variable names]: TVM prints a variable as "%" + its name, prefixed
 * with "v" when the name does not start with a letter, and made unique
 * per module by appending 1, 2, ... (so a second %x prints as %x1). */
typedef struct VarNames {
    bool distinct;      /* note [distinct names]: every variable of the
                           graph prints as itself */
    const char **name;  /* per node id: printed name (distinct: the
                           variable's own name, printed after "%" or
                           "%v"), NULL until given */
    uint32_t *len;      /* per node id: its length */
    uint8_t *vprefix;   /* distinct: per node id, 1 while the name lacks
                           its "v" (note [variable names]) */
    uint32_t nnodes;    /* entries in name, len and vprefix */
    Arena *arena;       /* owns the printed names */
    KeyMap taken;       /* hash of a name -> 1 + its chain's first entry */
    TakenName *names;   /* every name handed out */
    size_t nnames, names_cap;
} VarNames;

void var_names_init(VarNames *vn, const Graph *g);
void var_names_free(VarNames *vn);
/* Gives variable v its printed name (at its declaration, or at its first
 * use for a free variable): the *len bytes returned, after a "%" when
 * *percent. */
const char *var_names_get(VarNames *vn, const Node *v, bool *percent, size_t *len);

/* Appends s double-quoted with TVM's escapes (\" \\ \n \t). */
void relay_put_string(StrBuf *sb, const char *s);

#endif
