/* registry_impl.h - the Registry's private layout, shared by registry.c
 * (lookup, traits) and registry_decl.c (declarations, suggestions). */
#ifndef GRAFT_REGISTRY_IMPL_H
#define GRAFT_REGISTRY_IMPL_H

#include "registry.h"

struct Registry {
    Arena *arena;         /* OpInfo and attribute tables */
    Interner *names;      /* op names are interned: lookups compare pointers */
    VEC(OpInfo *) ops;    /* in declaration order */
    KeyMap by_name;       /* interned name -> its index in ops */
    bool onnx;            /* the rules are for ONNX ("opset onnx N"): only
                             ONNX ops are found (note [target IR] in registry.h) */
    int opset;            /* that N */
};

/* Appends a checked op (its name interned) and indexes it. */
void registry_insert(Registry *reg, OpInfo *op);

#endif
