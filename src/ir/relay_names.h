/* relay_names.h - printed names of variables and quoted strings, as TVM's
 * printer makes them (private to the relay printer and viz). */
#ifndef GRAFT_RELAY_NAMES_H
#define GRAFT_RELAY_NAMES_H

#include <stdint.h>

#include "arena.h"
#include "graph.h"
#include "util.h"

/* note [variable names]: TVM prints a variable as "%" + its name, prefixed
 * with "v" when the name does not start with a letter, and made unique
 * per module by appending 1, 2, ... (so a second %x prints as %x1). */
typedef struct VarNames {
    const char **name; /* per node id: printed name, NULL until given */
    uint32_t nnodes;   /* entries in name */
    Arena *arena;      /* owns the interned names */
    Interner *strings; /* interns names */
    KeyMap taken;      /* names handed out (interned pointers) -> the
                          last suffix tried for that prefix, as TVM's
                          GetUniqueName counts */
} VarNames;

void var_names_init(VarNames *vn, const Graph *g);
void var_names_free(VarNames *vn);
/* Gives v its printed name (at its declaration) and returns it. */
const char *var_names_alloc(VarNames *vn, const Node *v);
/* The printed name of v, given now if it has none yet (a free variable). */
const char *var_names_get(VarNames *vn, const Node *v);

/* Appends s double-quoted with TVM's escapes (\" \\ \n \t). */
void relay_put_string(StrBuf *sb, const char *s);

#endif
