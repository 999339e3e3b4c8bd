/* graph_impl.h - the private layout of graphs and nodes, shared by the
 * graph_*.c files only.  Everyone else goes through graph.h (the node
 * layout itself is in graph_node.h, for the accessors inlined there). */
#ifndef GRAFT_GRAPH_IMPL_H
#define GRAFT_GRAPH_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "arena.h"
#include "graph.h"
#include "keymap.h"
#include "util.h"

/* A function's declared result type and type parameters, which few
 * functions have (a partition's none): made when one is set (note
 * [function records]). */
typedef struct FuncDecl {
    const graft_type *ret;   /* declared result type, or NULL */
    const char *type_params; /* "A, B" of fn [A, B](...), or NULL */
} FuncDecl;

/* note [function records]: what a NODE_FUNC has beyond a plain node is
 * 24 bytes, its parameters right after them in the same allocation
 * (func_info_size), where they were an array of their own.  The arena
 * hands out 16-byte steps, so a partition's function of five parameters
 * takes 64 bytes (24 + 40): the declared result type and type parameters,
 * which no partition's function has, are a record of their own
 * (FuncDecl), and the flag shares nparams's word; in the record they made
 * it 40 bytes and the function 80 (160,000 bytes of the workload's
 * partition's peak, bench/RESULTS.md, session 28). */
typedef struct FuncInfo {
    graft_node *body;      /* the result expression */
    FuncDecl *decl;        /* NULL: neither declared */
    int nattrs;      /* entries in the node's tail's attrs */
    unsigned nparams : 31; /* entries in params (reads as an int) */
    unsigned unscoped : 1; /* graph_add_main's: no node is in its scope */
    graft_node *params[];  /* NODE_VARs, in order */
} FuncInfo;

_Static_assert(sizeof(FuncInfo) == 2 * sizeof(void *) + 2 * sizeof(int),
               "a function's record is as small as note [function records] says");

_Static_assert(offsetof(FuncInfo, params) == sizeof(FuncInfo),
               "a FuncInfo written whole leaves its parameters be");

/* The bytes of a FuncInfo of nparams parameters. */
static inline size_t func_info_size(int nparams)
{
    return sizeof(FuncInfo) + (size_t)nparams * sizeof(graft_node *);
}

/* What a NODE_MATCH has beyond its operands (data, then each clause's
 * result). */
typedef struct MatchInfo {
    const MatchClause *clauses; /* nclauses patterns */
    int nclauses;
} MatchInfo;

/* A tensor constant's elements (graph_add_tensor_const). */
typedef struct ConstData {
    const void *bytes; /* raw data, or NULL when unknown */
    size_t nbytes;     /* bytes at bytes */
} ConstData;

/* A global function ("def @f"), or a name only referenced so far. */
typedef struct GlobalDef {
    const char *name; /* interned, without '@' */
    graft_node *fn;         /* its NODE_FUNC; NULL for @main and for a name
                         not defined (yet) */
    graft_node *ref;        /* the NODE_GLOBAL naming it, or NULL */
    bool defined;     /* a "def" of it was added */
} GlobalDef;

/* A node's position in the model file, 1-based. */
typedef struct SrcPos {
    int32_t line, col;
} SrcPos;

/* A block nodes are cut from (note [node pool] in graph.c). */
typedef struct NodeBlock {
    void *mem;         /* NODE_BLOCK bytes, malloc'd */
    uint32_t first_id; /* its first node's id: its nodes' ids run from it up
                          to the next block's (note [dead blocks] in
                          graph_compact.c) */
    uint32_t dead_upto; /* the ids from first_id below this are known dead
                          (note [blocks freed as a pass goes] there) */
} NodeBlock;

/* The pool user lists and their indexes are cut from (note [user
 * lists] in graph_users.c): pieces of 32 << k bytes, k < USER_CLASSES. */
enum { USER_CLASSES = 27 };
typedef struct UserPool {
    void *free[USER_CLASSES]; /* per class: pieces freed, linked through
                                 their first word */
    unsigned char *next;      /* free bytes of the block cut from, */
    size_t left;              /* how many */
    size_t block;             /* bytes of the next block (0: the first's) */
    VEC(void *) blocks;       /* malloc'd: blocks, and pieces too large for one */
    GraphUserCounts counts;
} UserPool;

enum { CANON_BITS = 5 }; /* graft_graph.canon's 32 slots of two */
enum { NODE_BLOCK = 64 * 1024 }; /* bytes of a block nodes are cut from (note [node pool]
                                    in graph.c) */

/* Variables named by a pass with names the interner does not hold yet
 * (note [names made new] in graph_new_names.c). */
typedef struct NewNames {
    VEC(uint32_t) ids;    /* the variables, by id */
    const char *prefix;   /* what every name of the batch starts with, */
    size_t prefix_len;    /* its length, */
    size_t min_len, max_len; /* and the shortest and longest name made */
    bool prefix_unused;   /* no string interned before the batch has it */
    char *bump;           /* free bytes for the names' copies, */
    size_t room;          /* how many */
} NewNames;

struct graft_graph {
    struct GraphSide side; /* first: node_annotation and node_scope read
                              it inline (note [annotation table], note
                              [scope table] in graph_node.h) */
    size_t annots_alloc;   /* entries allocated at side.annots.by_id;
                              those past its cap are not yet zeroed */
    Arena *arena;          /* owns nodes, uses, attrs, types, strings */
    unsigned char *node_pool; /* free bytes for nodes, 8-byte aligned
                              (note [node pool] in graph.c) */
    size_t node_pool_left; /* bytes free at node_pool */
    VEC(NodeBlock) node_blocks; /* the blocks nodes are cut from */
    UserPool user_pool;    /* the user lists' memory */
    VEC(graft_node *) cone; /* scratch: graph_kill_cone's stack */
    VEC(uint32_t) orphan_vars; /* variables graph_kill_cone left unused, for
                              the pass's sweep (note [kill as the pass
                              goes] in graph_compact.c) */
    SrcPos *pos;           /* per node id: where the model file wrote it
                              (a side table, note [node size]); entries
                              past pos_cap and {0, 0} mean "built" */
    size_t pos_cap;        /* entries allocated in pos */
    size_t pos_want;       /* entries pos is made with, when first read or
                              set (note [positions on demand] in graph.c) */
    Interner *strings;     /* interned names in arena, or the loader's (graph_new_named) */
    bool strings_borrowed; /* strings the loader's: not freed with the graph */
    const char *canon[1 << CANON_BITS][2]; /* strings the interner returned
                              lately, by address (note [canonical pointers]) */
    graft_node **nodes;          /* all nodes by id (malloc'd table) */
    uint32_t nnodes;       /* ids handed out */
    uint32_t ndead;        /* nodes marked dead among them */
    uint32_t nvars;        /* NODE_VARs among them */
    size_t nodes_cap;      /* capacity of nodes */
    bool swept;            /* no edit since the last dead-node sweep (note
                              [swept graph] in graph_walk.c) */
    bool relinked;         /* an edit has moved a use (graph_set_arg,
                              graph_replace_all_uses): a node's operand may
                              come after it (note [reached by users]) */
    graft_node **params;         /* @main's parameters (malloc'd, or borrowed) */
    bool params_borrowed;  /* params is @main's function's, in the arena
                              (note [main's parameters] in graph.c) */
    int nparams;           /* entries in params */
    size_t params_cap;     /* capacity of params */
    graft_node *output;          /* @main's result */
    bool outputs_fixed;    /* note [fixed outputs] in graph_module.c */
    int output_fields;     /* outputs_fixed: the fields the result keeps,
                              or OUTPUT_ONE_VALUE */
    const char *name;      /* global function name, "main" */
    const graft_type *ret;       /* @main's declared result type, or NULL */
    const char *type_params;     /* @main's type parameters, or NULL */
    const graft_attr *main_attrs; /* @main's attributes (def @main(%x, K=V)) */
    int nmain_attrs;       /* entries in main_attrs */
    bool bare;             /* read from a bare expression, no "def" */
    const char *version;   /* "#[version = ...]" line, or NULL */
    const char **typedefs; /* Prelude type declarations (malloc'd table) */
    int ntypedefs;         /* entries in typedefs */
    size_t typedefs_cap;   /* capacity of typedefs */
    const char *metadata;  /* "#[metadata]..." section, or NULL */
    GlobalDef *globals;    /* global functions, in definition order */
    int nglobals;          /* entries in globals */
    size_t globals_cap;    /* capacity of globals */
    KeyMap annotation_types; /* interned "ty=" text -> its Type (note
                              [annotation types] in graph_type.c) */
    KeyMap scalar_types;   /* interned dtype -> its rank-0 Type (note
                              [scalar types] in graph_type.c) */
    KeyMap tensor_types;   /* a hash of dtype and dims -> the Type (note
                              [canonical tensor types] in graph_type.c) */
    IrKind ir;             /* the IR whose loader made it */
    GraphTypeFn type_fn;   /* its op calls' types (note [IR type relations]) */
    void *type_memo;       /* what type_fn remembers (graph_set_type_memo) */
    void (*free_type_memo)(void *); /* frees it, and tags it as its owner's */
    KeyMap node_names;     /* id + 1 -> the IR's name of the node (note
                              [IR names] in graph.h) */
    VEC(const char *) value_names; /* by id: the IR's name of its value,
                              or NULL (note [value names by id] in
                              graph_names.c) */
    KeyMap domains;        /* id + 1 -> an op call's domain, when not the
                              default one */
    KeyMap dim_symbols;    /* interned dim name -> its number k (note
                              [symbolic dims] in dim_symbol.c) */
    KeyMap fixed_names;    /* a fixed string's address -> its interned
                              copy (note [fixed names] in graph.c) */
    VEC(const char *) dim_names; /* symbol k's name */
    VEC(void *) owned;     /* buffers freed with the graph (graph_own) */
    NewNames new_names;    /* note [names made new] in graph_new_names.c */
    const char *text;      /* the text annotation spans point into, or NULL
                              (note [annotation spans] in graph_text.c) */
    size_t text_len;       /* its bytes, the NUL after them not counted */
    bool text_kept;        /* text is the graph's copy of the spans
                              (graph_text_keep) */
    size_t span_bytes;     /* bytes of the spans set, a NUL after each
                              (graph_set_annotation_span) */
    void *host;            /* what holds the graph (graph_set_host), or NULL */
    graft_node released;   /* a dead node, in the node table for every dead
                              node whose block graph_release_dead freed
                              (note [dead blocks] in graph_compact.c) */
};

/* Before the n bytes at s are interned or looked up, once a batch of
 * names made new began (note [names made new] in graph_new_names.c;
 * inline, graph_intern's step): the batch's names interned when s could
 * be one of them, and its next names looked up when s is of its prefix. */
static inline void graph_before_interning(graft_graph *g, const char *s, size_t n)
{
    NewNames *nn = &g->new_names;
    if (n < nn->prefix_len || !bytes_equal(s, nn->prefix, nn->prefix_len))
        return;
    nn->prefix_unused = false;
    if (n >= nn->min_len && n <= nn->max_len)
        graph_intern_new_names(g);
}

/* Helpers shared by graph.c and graph_walk.c.  graph_new_node allocates
 * the node with room for nslots operand slots after it; a variable, a
 * global's reference or an operator reference is graph_new_short_node's,
 * without the fields it never has (note [short nodes] in graph.c). */
graft_node *graph_new_node(graft_graph *g, NodeKind kind, int nslots);
graft_node *graph_new_short_node(graft_graph *g, NodeKind kind);
/* graph_new_node's node with its tail word after the slots (note [tail
 * word] in graph.c). */
graft_node *graph_new_tailed_node(graft_graph *g, NodeKind kind, int nslots);
/* The tail word of n, just made by graph_new_tailed_node with nslots
 * slots (no callee's), for its maker to write: node_tail's place without
 * reading the node's kind and counts back. */
static inline union NodeTail *graph_new_tail(graft_node *n, int nslots)
{
    return (union NodeTail *)(void *)(node_slots(n) + nslots);
}
void graph_set_attrs(graft_graph *g, graft_node *n, const graft_attr *attrs, int nattrs);
/* count fresh variables with the next ids into vars, unnamed and untyped
 * (note [variables made together] in graph.c). */
void graph_new_vars(graft_graph *g, uint32_t count, graft_node **vars);
/* Grows the scope table over every node id, the new entries @main's (0)
 * (note [scope table] in graph_node.h). */
void graph_scopes_grow(graft_graph *g);
/* The scope table by id, grown first to cover n's id: for a function's
 * walk of what it adopts (graph_add_func), all made before it. */
static inline uint32_t *graph_scopes_over(graft_graph *g, const graft_node *n)
{
    if (n->id >= g->side.scopes.cap)
        graph_scopes_grow(g);
    return g->side.scopes.fn_id;
}
/* A NODE_FUNC of params with no body, nothing put in its scope yet: the
 * start of graph_add_func, and all of graph_add_main's (note [main
 * unscoped] in graph_module.c) but its body.  In graph_walk.c. */
graft_node *graph_new_func(graft_graph *g, graft_node *const *params, int nparams,
                           const graft_attr *attrs, int nattrs);
/* Fills n's first nargs operand slots (allocated by graph_new_node). */
void graph_set_operands(graft_graph *g, graft_node *n, graft_node *const *args, int nargs);
/* The slot operand of user (USE_CALLEE: its callee's). */
static inline graft_node **graph_slot_of(const graft_node *user, int operand)
{
    return operand == USE_CALLEE ? node_callee_slot(user) : &node_slots(user)[operand];
}

/* ---- a value's users (graph_users.c) ---- */

/* The word of a single user at slot operand (note [users word] in
 * graph_users.c). */
static inline uintptr_t user_word(const graft_node *user, int operand)
{
    return (uintptr_t)user | ((uintptr_t)(uint32_t)(operand + 1) << USER_OPERAND_SHIFT);
}
/* Whether the word can hold a single user at slot operand. */
static inline bool word_holds(int operand)
{
    return (uint32_t)(operand + 1) < (1u << (64 - USER_OPERAND_SHIFT));
}
/* graph_users_add past the word: v's second user, the word's one and it
 * made a pair (note [two users] in graph_users.c), or one more on v's list
 * (note [user lists] there). */
void graph_users_add_listed(graft_graph *g, graft_node *v, graft_node *user, int operand);
/* Appends (user, operand) to v's users (creation order): inline, as the
 * builders add each operand's use and nearly every value has one user,
 * its word (note [builders inline] in graph.c). */
static inline void graph_users_add(graft_graph *g, graft_node *v, graft_node *user, int operand)
{
    if (!v->users && word_holds(operand)) {
        v->users = user_word(user, operand);
        v->nusers = 1;
    } else {
        graph_users_add_listed(g, v, user, operand);
    }
}
enum { PAIR_CAP = 2, PAIR_CLASS = 1 }; /* a list of two users: 64 bytes */
_Static_assert(PAIR_CAP == 2 && PAIR_CLASS == 1, "a pair is the pool's class 1");
/* Removes (user, operand) from v's list when it is a pair whose other
 * user the word can hold (note [two users] in graph_users.c): that one
 * put back in the word, the pair's piece given back to the pool
 * (piece_give's, inline); false, nothing done, for any other list.  Inline in the kill
 * of a cone, which gives back a rewrite's pairs. */
static inline bool graph_users_unpair(graft_graph *g, graft_node *v, const graft_node *user,
                                      int operand)
{
    struct UserList *l = (struct UserList *)(v->users - USERS_LIST_TAG);
    int other = l->at[0].user == user && l->at[0].operand == operand;
    if (l->cap != PAIR_CAP || l->len != 2 || !word_holds(l->at[other].operand))
        return false;
    v->users = user_word(l->at[other].user, l->at[other].operand);
    *(void **)l = g->user_pool.free[PAIR_CLASS];
    g->user_pool.free[PAIR_CLASS] = l;
    return true;
}
/* graph_users_remove of a listed value: from a list of two, the other
 * put back in the word (note [two users] in graph_users.c), else from its
 * list (note [user lists] there). */
void graph_users_remove_listed(graft_graph *g, graft_node *v, const graft_node *user,
                               int operand);
/* Removes (user, operand) from v's users: inline, as the sweeps and the
 * kill of a cone remove every dead node's uses, and nearly every value
 * has one user, its word (note [users word] in graph_users.c). */
static inline void graph_users_remove(graft_graph *g, graft_node *v, const graft_node *user,
                                      int operand)
{
    v->nusers--;
    if (node_users_listed(v))
        graph_users_remove_listed(g, v, user, operand);
    else
        v->users = 0; /* (the word's one user was it) */
}
/* Removes the use of slot operand of user (USE_CALLEE: its callee's)
 * from its value's users, and returns the value; the slot keeps it. */
static inline graft_node *graph_unlink_slot(graft_graph *g, graft_node *user, int operand)
{
    graft_node *v = *graph_slot_of(user, operand);
    graph_users_remove(g, v, user, operand);
    return v;
}
/* graph_replace_all_uses of a listed old: each use but to's own moved to
 * to, in order, then old's list refitted to those left. */
void graph_users_move_listed(graft_graph *g, graft_node *old, graft_node *to);
/* Frees the pool's blocks, with the graph. */
void graph_user_pool_free(UserPool *p);

#endif
