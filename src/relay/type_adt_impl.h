/* type_adt_impl.h - what type_adt.c (the declarations and the parser of
 * type texts) and type_adt_typing.c (constructor calls and match) share:
 * the tables of a module's ADTs and the terms types are parsed into (note
 * [ADT types] in type_adt.h). */
#ifndef GRAFT_TYPE_ADT_IMPL_H
#define GRAFT_TYPE_ADT_IMPL_H

#include "arena.h"
#include "type_adt.h"

/* note [type term depth]: a declaration reaches graft as one token, its
 * nesting unchecked by the grammar; a term nested deeper than this does
 * not parse (its types stay unknown), so that the recursive parser,
 * unifier and printer below run on a bounded stack.  Types longer than
 * TERM_TEXT_MAX stay unknown too (note [type size] in type_infer.c). */
enum { TERM_DEPTH_MAX = 64, TERM_TEXT_MAX = 65536 };

typedef enum TermKind {
    TERM_LEAF,  /* a tensor type or a dtype, compared as text */
    TERM_VAR,   /* a declaration's parameter (Term.var) */
    TERM_HOLE,  /* unknown: the parameters of a constructor value (Nil),
                   a function type (fn (A) -> B: not unified here) */
    TERM_TUPLE, /* (args) */
    TERM_ADT,   /* NAME[args] */
} TermKind;

typedef struct Term {
    TermKind kind;
    const char *text; /* LEAF: the type; ADT: its name; VAR: the parameter */
    size_t len;
    int var;
    int nargs;
    struct Term **args;
} Term;

typedef struct Adt {
    const char *name;
    size_t len;
    int nparams;
    const char **params;
    size_t *plens;
    const char *body; /* after the '{' of its declaration */
    const char *end;
} Adt;

typedef struct Ctor {
    const char *name; /* NUL-terminated */
    const Adt *adt;
    int nfields;
    Term **fields;
} Ctor;

struct AdtTable {
    Arena *arena;
    VEC(Adt) adts;
    VEC(Ctor) ctors;
    KeyMap by_name;  /* a constructor name's key -> its first index
                        (note [constructors by name] in type_adt.c) */
    bool indexed;    /* by_name holds every constructor */
};

typedef struct Scan {
    const char *p, *end;
    Arena *arena;          /* where the terms go */
    const AdtTable *table; /* the type names */
    const Adt *scope;      /* whose parameters are variables, or NULL */
    int depth;
} Scan;

/* The constructor of t called name (len bytes), or NULL. */
const Ctor *adt_find_ctor(const AdtTable *t, const char *name, size_t len);
/* The constructor n calls when n is an untyped call of a constructor of
 * no fields (Nil, None), or a constructor value of no fields; else NULL. */
const Ctor *adt_untyped_nullary(const AdtTable *t, const graft_node *n);
/* A new term in s's arena. */
Term *adt_new_term(Scan *s, TermKind kind, const char *text, size_t len);
/* A whole type text as a term (no variables); NULL when it is not one. */
Term *adt_parse_type(Scan *s, const char *text);

#endif
