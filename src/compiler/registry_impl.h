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
    /* A table not declared yet (note [Relay's table when needed] in
     * registry.c), NULL when none; its Source and where its errors go;
     * deferred_onnx: its ops are ONNX's.  registry_tables.c declares it
     * (graft-registry-gen links registry.c without the tables). */
    const struct RegistryTable *deferred;
    const Source *deferred_src;
    graft_diag *deferred_d;
    bool deferred_onnx;
    bool deferred_placed; /* deferred_at is where its ops go in ops */
    size_t deferred_at;
    int deferred_lookups; /* lookups that read it so far */
    void (*load_deferred)(Registry *reg);
    /* Declares the deferred table's op named name alone, or NULL when
     * the table has none. */
    const OpInfo *(*load_deferred_op)(Registry *reg, const char *name);
};

/* Declares a deferred table of the target IR now, before a walk over the
 * target's ops (note [Relay's table when needed] in registry.c). */
void registry_load_deferred_of_target(const Registry *reg);

/* Places the deferred table's ops at the end of those declared so far
 * (note [Relay's table when needed] in registry.c). */
void registry_place_deferred(Registry *reg);

/* Appends a checked op (its name interned) and indexes it. */
void registry_insert(Registry *reg, OpInfo *op);

#endif
