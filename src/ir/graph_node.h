/* graph_node.h - the layout of a node and of an operand slot, and the
 * accessors that read them, inline.
 *
 * Only the graph_*.c files write these fields (through graph.h's edits, so
 * users lists stay current); everyone else reads them through the
 * accessors below.  The layout is in a header, not private to graph.c,
 * because the runtime's walks call the accessors hundreds of thousands of
 * times per pass: as out-of-line calls they were about a tenth of the
 * partition's own work (note [inline accessors]).  Included by graph.h
 * only.
 */
#ifndef GRAFT_GRAPH_NODE_H
#define GRAFT_GRAPH_NODE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct FuncInfo;
struct MatchInfo;
struct ConstData;

/* A user's entry in a value's user list (note [users word] in graph_users.c):
 * the user, and which of its operand slots reads the value (USE_CALLEE
 * for its callee's). */
struct UserEntry {
    graft_node *user;  /* NULL: removed (a tombstone of an indexed list) */
    int32_t operand;
};

/* The users of a value that has more than one, or one that note [users
 * word] cannot tag, oldest first; cut from the graph's pool (note [user
 * lists] in graph.c). */
struct UserList {
    uint32_t len;      /* entries used in at, tombstones included */
    uint32_t cap;      /* entries at holds: a power of two less two */
    uint32_t head;     /* no live entry before it (the removed oldest) */
    uint32_t unused;
    uint32_t *index;   /* NULL, or (user, operand) -> its position + 1,
                          open addressing (a list of USER_INDEX_CAP or
                          more, made by its first removal not at head) */
    uint64_t unused2;  /* (the header is two entries) */
    struct UserEntry at[];
};

/* The users word (note [users word] in graph_users.c): a list's address with
 * USERS_LIST_TAG, or a single user's address with its operand index + 1
 * in the bits from USER_OPERAND_SHIFT up. */
enum { USERS_LIST_TAG = 1, USER_OPERAND_SHIFT = 48 };
#define USER_ADDRESS_MASK (((uintptr_t)1 << USER_OPERAND_SHIFT) - 1)

/* note [node size] in graph.c explains the layout. */
struct graft_node {
    uint8_t kind;          /* NodeKind */
    uint8_t dead;          /* set by graph_remove_dead */
    uint8_t type_declared; /* NODE_VAR: type written as "%x: T" */
    uint8_t flag;          /* NODE_CONST: not a meta[...] reference;
                              NODE_VAR: a free_var; NODE_MATCH: complete
                              ("match", not "match?"); NODE_CALL: a call
                              of a function value, whose callee is the
                              slot after the operands */
    uint32_t id;           /* dense index into Graph.nodes */
    int32_t nargs;         /* operand slots (node_slots), callee excluded */
    int32_t nusers;        /* its users (node_user_end's count of entries) */
    uintptr_t users;       /* 0, one user and its operand, or a struct
                              UserList tagged USERS_LIST_TAG (note [users
                              word] in graph.c) */
    const char *str;       /* interned op name, var name or const spelling */
    const graft_type *type;      /* known type, or NULL */
    /* The word below is not allocated for a variable, a global or an
     * operator reference (note [short nodes] in graph.c): last, so that
     * those kinds are the fields above alone. */
    union {
        double value;      /* NODE_CONST, scalar (flag set): its value */
        const struct ConstData *data; /* NODE_CONST, tensor: its elements
                              (graph_add_tensor_const), or NULL */
        struct FuncInfo *fn;    /* NODE_FUNC: params, body, result type */
        struct MatchInfo *match;  /* NODE_MATCH: the clauses' patterns */
        struct {
            int32_t index; /* NODE_GETITEM: field index; NODE_CALL: its
                              results, 0 or 1 for one (node_noutputs) */
            int32_t nattrs; /* NODE_CALL: entries in its tail's attrs */
        } call;
    } u;
};

/* The word after a node's slots, its callee's included, in the nodes
 * made with it (note [tail word] in graph.c): a call's or a function's
 * attributes when it has any, a literal's dtype. */
union NodeTail {
    const graft_attr *attrs; /* NODE_CALL, NODE_FUNC: node_nattrs attributes */
    const char *dtype;       /* NODE_CONST: interned scalar dtype */
};

/* note [annotation table]: a node's annotation comment is not a field
 * of the node but an entry of a table by id that the graph makes when a
 * node first gets one: a graph built by passes or from ONNX (and the
 * side-by-side workload) has none and pays nothing for it, 8 bytes a node
 * less (note [node size] in graph.c); a Relay model annotates nearly
 * every node and pays the 8 bytes in the table instead.  The table is the
 * graph's first member, so this header, which does not see the graph's
 * layout (graph_impl.h), reads it inline as its own struct. */
struct GraphAnnots {
    const char **by_id; /* per node id: its annotation, or NULL */
    size_t cap;         /* entries set in by_id; ids past it have none */
};

/* note [scope table]: the function a node belongs to is not a field of
 * the node either but a table by id of 4-byte function ids (1 + the
 * id, 0 for @main's), made when a node is first put in a function's
 * scope: a graph with no functions but @main (the rewrite's workload,
 * every ONNX model without subgraphs) pays nothing for it, 8 bytes a
 * node less (note [node size] in graph.c); a partition's nodes, nearly
 * all in functions, pay 4 bytes in the table where the node paid 8.
 * node_scope reads the function from its id in the node table, which
 * this header sees as struct GraphNodeView. */
struct GraphScopes {
    uint32_t *fn_id;          /* per node id: 1 + its function's id, or 0 */
    size_t cap;               /* entries zeroed in fn_id; ids past it are
                                 @main's */
    bool dropped;             /* freed by graph_drop_scopes: no scope may
                                 be read or set after (note [scopes after
                                 the drop]) */
};

/* note [scopes after the drop]: graph_drop_scopes frees the scope table
 * of a graph that is then only printed as Relay and freed (note [scopes
 * dropped before printing] in graph_walk.c); without it node_scope would
 * answer @main's for every node, and graph_set_scope would make a table
 * in which only its node is in a function: both silently wrong.  So the
 * drop is recorded (dropped), and
 *   - making the table again aborts (graph_scopes_grow in graph.c, the
 *     only maker, off the hot path), in every build: graph_set_scope of a
 *     function, graph_reserve_scopes, a function's adoption of its body;
 *   - node_scope aborts in a checked build (GRAFT_CHECKED, which
 *     configure --enable-sanitizers defines, the suite's second build in
 *     tests/run_all.sh), so every test run there catches a read after
 *     the drop; in the build that is measured it stays two loads and no
 *     test (it is asked for each group and each rewrite's root).
 * The readers after the drop today (runner.c's release_pass_memory, then
 * engine_free, write_model's relay_print and graph_free) ask no scope:
 * src/relay calls neither node_scope nor graph_global_of. */
#ifdef GRAFT_CHECKED
#define GRAPH_CHECK(what) ((what) ? (void)0 : abort())
#else
#define GRAPH_CHECK(what) ((void)0)
#endif

/* The node table as node_scope and graph_node read it inline: a copy of
 * graft_graph's nodes and nnodes, which nodes_resize and graph_new_node
 * (graph.c), their only writers, keep equal to them.  graph_node was a
 * call of 7 instructions, 640,000 of them on the ONNX workload's
 * partition (bench/RESULTS.md, session 24). */
struct GraphNodeView {
    graft_node *const *by_id;
    uint32_t count;
};

/* The tables by node id that this header reads inline: the graph's first
 * member (struct graft_graph in graph_impl.h). */
struct GraphSide {
    struct GraphAnnots annots;
    struct GraphScopes scopes;
    struct GraphNodeView nodes;
};

/* The operand slots, allocated right after the node (graph_new_node):
 * nargs operands, then a call of a function value's callee; each is the
 * node it reads (note [users word] in graph_users.c). */
static inline graft_node **node_slots(const graft_node *n)
{
    return (graft_node **)(void *)(n + 1);
}

/* n's tail word (union NodeTail), after its operands and its callee;
 * only a node made with one has it. */
static inline union NodeTail *node_tail(const graft_node *n)
{
    graft_node **past = node_slots(n) + n->nargs + (n->kind == NODE_CALL && n->flag);
    return (union NodeTail *)(void *)past;
}

/* NODE_CALL of a function value: the slot of its callee, else NULL. */
static inline graft_node **node_callee_slot(const graft_node *n)
{
    return n->kind == NODE_CALL && n->flag ? &node_slots(n)[n->nargs] : NULL;
}

/* note [inline accessors]: callgrind of the partition of 2,000 side-by-side
 * batch norms counted 866,000 calls of node_id, node_kind, node_arg and
 * their neighbours in the partition phase alone, each a call, a load and
 * a return; inline they are one load.  Accessors with more to do than a
 * field read (node_find_attr, node_const_dtype, the function and match
 * accessors) stay out of line in graph.c. */

static inline NodeKind node_kind(const graft_node *n) { return (NodeKind)n->kind; }
static inline uint32_t node_id(const graft_node *n) { return n->id; }
static inline bool node_is_dead(const graft_node *n) { return n->dead; }
static inline int node_nargs(const graft_node *n) { return n->nargs; }
static inline graft_node *node_arg(const graft_node *n, int i)
{
    return node_slots(n)[i];
}
static inline int node_nusers(const graft_node *n) { return n->nusers; }
static inline bool node_users_listed(const graft_node *n)
{
    return n->users & USERS_LIST_TAG;
}
static inline const struct UserList *node_user_list(const graft_node *n)
{
    return (const struct UserList *)(n->users - USERS_LIST_TAG);
}
static inline int node_user_end(const graft_node *n)
{
    return node_users_listed(n) ? (int)node_user_list(n)->len : n->nusers;
}
static inline int node_user_next(const graft_node *n, int k)
{
    k++;
    if (node_users_listed(n)) { /* past the tombstones (note [user lists] in graph_users.c) */
        const struct UserList *l = node_user_list(n);
        while ((uint32_t)k < l->len && !l->at[k].user)
            k++;
    }
    return k;
}
static inline int node_user_first(const graft_node *n)
{
    return node_users_listed(n) ? node_user_next(n, (int)node_user_list(n)->head - 1) : 0;
}
static inline graft_node *node_user(const graft_node *n, int k)
{
    if (node_users_listed(n))
        return node_user_list(n)->at[k].user;
    return (graft_node *)(n->users & USER_ADDRESS_MASK);
}
static inline int node_user_operand(const graft_node *n, int k)
{
    if (node_users_listed(n))
        return node_user_list(n)->at[k].operand;
    return (int)(n->users >> USER_OPERAND_SHIFT) - 1;
}
static inline graft_node *node_sole_user(const graft_node *n)
{
    return n->nusers == 1 ? node_user(n, node_user_first(n)) : NULL;
}
/* A function's attribute count is in its FuncInfo (graph.c). */
int node_func_nattrs(const graft_node *n);
static inline int node_nattrs(const graft_node *n)
{
    if (n->kind == NODE_CALL)
        return n->u.call.nattrs;
    return n->kind == NODE_FUNC ? node_func_nattrs(n) : 0;
}
static inline const graft_attr *node_attr(const graft_node *n, int i)
{
    return &node_tail(n)->attrs[i];
}
static inline const graft_type *node_type(const graft_node *n) { return n->type; }
static inline const char *graph_annotation_by_id(const graft_graph *g, uint32_t id)
{
    const struct GraphAnnots *t = &((const struct GraphSide *)(const void *)g)->annots;
    return id < t->cap ? t->by_id[id] : NULL;
}
static inline bool graph_has_annotations(const graft_graph *g)
{
    return ((const struct GraphSide *)(const void *)g)->annots.cap > 0;
}
static inline bool node_type_declared(const graft_node *n) { return n->type_declared; }
static inline const char *node_annotation(const graft_graph *g, const graft_node *n)
{
    const struct GraphAnnots *t = &((const struct GraphSide *)(const void *)g)->annots;
    return n->id < t->cap ? t->by_id[n->id] : NULL;
}
static inline graft_node *node_scope(const graft_graph *g, const graft_node *n)
{
    const struct GraphSide *side = (const struct GraphSide *)(const void *)g;
    GRAPH_CHECK(!side->scopes.dropped); /* note [scopes after the drop] */
    uint32_t fn = n->id < side->scopes.cap ? side->scopes.fn_id[n->id] : 0;
    return fn ? side->nodes.by_id[fn - 1] : NULL;
}
/* graph_set_scope's growth of the table over every node id, then n put
 * past the old table in fn's scope (graph.c). */
void graph_scope_past(graft_graph *g, const graft_node *n, const graft_node *fn);
/* Puts n in fn's scope (graph.h), inline: a partition puts each node it
 * moves into its function's.  The growth is a call of its own, last, so
 * that the common store saves no registers. */
static inline void graph_set_scope(graft_graph *g, const graft_node *n, const graft_node *fn)
{
    struct GraphScopes *t = &((struct GraphSide *)(void *)g)->scopes;
    if (n->id < t->cap)
        t->fn_id[n->id] = fn ? fn->id + 1 : 0;
    else if (fn) /* (ids past the table are @main's already) */
        graph_scope_past(g, n, fn);
}
static inline graft_node *graph_node(const graft_graph *g, uint32_t id)
{
    const struct GraphNodeView *t = &((const struct GraphSide *)(const void *)g)->nodes;
    return id < t->count ? t->by_id[id] : NULL;
}
static inline graft_node *const *graph_node_table(const graft_graph *g)
{
    return ((const struct GraphSide *)(const void *)g)->nodes.by_id;
}
static inline bool node_is_free(const graft_node *n)
{
    return n->kind == NODE_VAR && n->flag;
}

static inline const char *node_op(const graft_node *n)
{
    return n->kind == NODE_CALL && !n->flag ? n->str : NULL;
}

static inline graft_node *node_callee(const graft_node *n)
{
    graft_node *const *callee = node_callee_slot(n);
    return callee ? *callee : NULL;
}

static inline const char *node_name(const graft_node *n)
{
    NodeKind k = (NodeKind)n->kind;
    return k == NODE_VAR || k == NODE_GLOBAL || k == NODE_OPREF ? n->str : NULL;
}

static inline const char *node_const_text(const graft_node *n)
{
    return n->kind == NODE_CONST ? n->str : NULL;
}

static inline bool node_const_is_scalar(const graft_node *n)
{
    return n->kind == NODE_CONST && n->flag;
}

static inline double node_const_value(const graft_node *n)
{
    return n->kind == NODE_CONST && n->flag ? n->u.value : 0.0;
}

static inline int node_noutputs(const graft_node *n)
{
    return n->kind == NODE_CALL && n->u.call.index > 1 ? n->u.call.index : 1;
}

static inline int node_index(const graft_node *n)
{
    return n->kind == NODE_GETITEM ? n->u.call.index : -1;
}

static inline bool node_is_opaque(const graft_node *n)
{
    switch (n->kind) {
    case NODE_FUNC: case NODE_GLOBAL: case NODE_OPREF: case NODE_LET:
    case NODE_IF: case NODE_MATCH:
        return true;
    default:
        return false;
    }
}

#endif
