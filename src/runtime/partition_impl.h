/* partition_impl.h - one partition pass, as the partitioner's files
 * share it (note [partition semantics] in partition.c): the candidates
 * and passes (partition.c), a group applied (partition_apply.c), its
 * region and body (partition_region.c), the names of its function and
 * parameters (partition_name.c). */
#ifndef GRAFT_PARTITION_IMPL_H
#define GRAFT_PARTITION_IMPL_H

#include "group.h"
#include "util.h"
#include "walk.h"

/* What a group's name is made of (note [names once]). */
typedef VEC(uintptr_t) NameKey;

/* walk_region's stack (note [one walk]), kept in the pass between groups. */
typedef WALK(graft_node *) NodeWalk;
typedef VEC(graft_node *) NodeList;

/* note [group blocks]: a pass keeps every group it finds before it
 * applies the first (note [partition semantics] in partition.c), 10,000
 * of 56 bytes on the workload of bench/workload.sh; one array grown by
 * doubling copied them a dozen times, 0.9 M instructions (glibc's copy
 * counts an instruction a byte under callgrind).  So they are kept in
 * blocks of GROUP_BLOCK that never move, each allocated when the last
 * is full. */
enum { GROUP_BLOCK = 1024 };
typedef struct GroupList {
    VEC(Group *) blocks; /* GROUP_BLOCK groups each, the last maybe not full */
    size_t len;          /* groups in all */
} GroupList;

/* The i-th group of l. */
static inline Group *group_at(const GroupList *l, size_t i)
{
    return &l->blocks.items[i / GROUP_BLOCK][i % GROUP_BLOCK];
}

typedef struct Pass {
    graft_engine *e;          /* the driver */
    uint32_t rule;      /* the partition rule */
    Grouper *gp;        /* candidates and claims */
    uint8_t *pre;       /* per node id: inside a partitioned function;
                           NULL until the pass meets one (mark_pre) */
    uintptr_t *stand;   /* per node id: what stands for it in the group
                           being applied, 0 for nothing (note [stand-ins]) */
    uint32_t size;      /* entries in the per-node arrays */
    GroupList groups;   /* groups kept (note [group blocks]) */
    NodeList region;    /* scratch: a group's region in post-order */
    NodeWalk walk;      /* scratch: walk_region's frames */
    graft_node **args;        /* scratch: a copy's operands */
    size_t args_cap;
    VEC(graft_node *) params; /* scratch: a group's parameters */
    VEC(graft_node *) untyped; /* moved nodes without a type, to infer */
    bool copied;        /* a group was copied: its originals are garbage */
    bool last;          /* the run's last pass, which marks no node for
                           relabelling (note [labels dropped before the
                           last apply] in engine.c) */
    bool names_new;     /* the parameters' names made new (note [parameter
                           names] in partition_name.c) */
    VEC(graft_node *) made;   /* functions and calls made, to type */
    StrBuf name;        /* scratch: a group's PartitionedFromPattern */
    NameKey key, last_key; /* what a group's name is made of, and
                           the last name's (note [names once]) */
    KeyMap fn_seen;     /* scratch: the function nodes' parts a group's key
                           holds (note [function names]) */
    const char *pfp;    /* "PartitionedFromPattern", interned */
    const char *last_name;   /* the last group's name, interned */
    const graft_attr *last_attrs;  /* the last group's function attributes */
    VEC(const graft_type *) fn_key; /* the last function typed as made: its
                           body's type, then its parameters' (note
                           [function types as made] in partition_apply.c) */
    const graft_type *fn_type;     /* and its type */
} Pass;

/* note [stand-ins]: a node of the group being applied is either in its
 * region, where its body node (itself when moved, its copy) stands for
 * it, or one of its inputs, where a parameter does, never both (the
 * region's walk stops at the inputs).  So one word per node id says
 * which: a body node's address (8-byte aligned), or 1 + the input's
 * index, shifted, with the low bit set.  Two arrays, a pointer and an
 * index per id, were 12 bytes a node of the graph, live through the
 * partition's peak (0.48 MB more at 120,001 nodes). */

/* A moved node's stand-in word with this bit set: the node is its own
 * body node and stays untyped (note [left untyped] in partition_region.c). */
enum { STAYS_UNTYPED = 2 };

/* The body node standing for node id, or NULL. */
static inline graft_node *pass_body(const Pass *p, uint32_t id)
{
    uintptr_t s = p->stand[id];
    return s & 1 ? NULL : (graft_node *)(s & ~(uintptr_t)STAYS_UNTYPED);
}

/* 1 + node id's index in the inputs of the group being applied, or 0. */
static inline uint32_t pass_input(const Pass *p, uint32_t id)
{
    uintptr_t s = p->stand[id];
    return s & 1 ? (uint32_t)(s >> 1) : 0;
}

/* Whether n is a moved node known to stay untyped (note [left untyped]
 * in partition_region.c). */
static inline bool pass_stays_untyped(const Pass *p, const graft_node *n)
{
    uint32_t id = node_id(n);
    return id < p->size && p->stand[id] == ((uintptr_t)n | STAYS_UNTYPED);
}

static inline void pass_set_body(Pass *p, uint32_t id, graft_node *n)
{
    p->stand[id] = (uintptr_t)n;
}

/* Key entries that are no op name (an interned name's address is
 * never this small). */
enum { KEY_CALL = 1, KEY_TUPLE, KEY_GETITEM, KEY_FUNCTION };

/* The name parts of n as key entries (note [names once] in
 * partition_name.c): an op name (interned, so its address says which),
 * or a small kind marker and a tuple index.  Inline: walk_region takes
 * the parts of every region node. */
static inline void partition_key_part(Pass *p, const graft_node *n)
{
    switch (node_kind(n)) {
    case NODE_CALL:
        vec_push(&p->key, node_op(n) ? (uintptr_t)node_op(n) : (uintptr_t)KEY_CALL);
        break;
    case NODE_TUPLE:
        vec_push(&p->key, (uintptr_t)KEY_TUPLE);
        break;
    case NODE_GETITEM:
        vec_push(&p->key, (uintptr_t)KEY_GETITEM);
        vec_push(&p->key, (uintptr_t)(uint32_t)node_index(n));
        break;
    case NODE_FUNC:
        vec_push(&p->key, (uintptr_t)KEY_FUNCTION);
        break;
    default:
        break;
    }
}

/* partition_apply.c: applies the pass's groups in the order found; lists
 * n for the typing after the pass (note [typing lists]). */
void partition_apply_groups(Pass *p);
void partition_list_untyped(Pass *p, graft_node *n);

/* partition_region.c: the group's region into p->region, each root's in
 * the roots' order, its name's key into p->key; whether the region can
 * move (note [moved body]); the region moved, or copied, into the body of
 * a function of params (returns the body's root); the region released,
 * its moved nodes put into fn's scope. */
void partition_region_of(Pass *p, const Group *gr);
bool partition_movable(const Pass *p, const Group *gr);
graft_node *partition_move_region(Pass *p, const Group *gr, graft_node *const *params);
graft_node *partition_copy_region(Pass *p, const Group *gr, graft_node *const *params);
void partition_release_region(Pass *p, graft_node *fn);

/* partition_name.c: the name parts of function fn with its body,
 * appended to p->key (note [names once], note [function names]); the
 * new function's attributes, *n of them; the group's parameters; room
 * for the pass's names (note [parameter names]). */
void partition_key_function(Pass *p, graft_node *fn);
const graft_attr *partition_fn_attrs(Pass *p, const graft_rule *rule, int *n);
graft_node **partition_make_params(Pass *p, const Group *gr, graft_node *const *inputs);
void partition_reserve(Pass *p);

#endif
