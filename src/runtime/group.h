/* group.h - TVM's PatternGrouper, shared by rewriting and partitioning.
 *
 * note [groups]: (TVM v0.14 tvm/src/relay/ir/dataflow_matcher.cc,
 * PatternGrouper::VisitExprs and CreateGroup): one pass of one rule
 * visits candidate roots from the outputs towards the inputs; a match at
 * a root not yet claimed becomes a candidate group and takes the next
 * group number.  Its inputs are the pattern's leaves in order of first
 * occurrence (depth first, operands left to right); its region is what
 * the root reaches without passing an input.  The group is dropped when
 * its region overlaps a group kept earlier in the pass (constants and
 * functions aside, which exist "more globally"), or when an interior node
 * has a user outside the region that the root does not post-dominate;
 * otherwise its region is claimed.  TVM's rewrite and partition both run
 * on these groups, so a larger match nearer the output claims its nodes
 * before a smaller one inside it.
 */
#ifndef GRAFT_GROUP_H
#define GRAFT_GROUP_H

#include "engine_impl.h"
#include "walk.h"

/* A candidate group kept: 40 bytes, its indexes in 4 and the rewrite's
 * bindings not pointed to (rewrite_pass keeps them, one stretch a group,
 * in one array), where 56 were 160,000 bytes of the rewrite's peak on the
 * workload (10,000 groups); the partition keeps its groups so too. */
typedef struct Group {
    graft_node *root;       /* the match's root */
    uint32_t number;  /* candidate number within the pass (FunctionVar_N_k) */
    uint32_t inputs;  /* parameters' arguments, in order: the grouper's
                         inputs from this index of block (group_inputs) */
    uint32_t ninputs; /* how many */
    uint32_t block;   /* the block of the grouper's inputs holding them
                         (note [input blocks] in group.c) */
    uint32_t roots;   /* a rule of several roots: its roots' nodes, the
                         grouper's roots from this index (group_roots;
                         fewer than the nodes, as each is claimed once) */
    int nroots;       /* how many; 0 for a rule of one root */
    bool read_inside; /* every interior node's users are in the region, as the
                         grouper found it (note [interior read inside] in
                         group.c); false: not known */
} Group;

#define INPUT_BLOCK 4096 /* inputs a block holds at least (note [input
                            blocks] in group.c) */

typedef struct Grouper {
    graft_engine *e;        /* the driver */
    uint32_t rule;    /* the rule of the current pass */
    bool *named;      /* per variable slot of the rule: some non-leaf
                         pattern node binds it (s@exp(x)) */
    bool has_dom;     /* the rule's pattern has a dominator pattern */
    KeyMap in_fn;     /* pattern nodes below a function pattern (their
                         matches are no inputs), by address */
    uint32_t *claim;  /* per node id: the claim stamp of the group that
                         claimed it (note [claim stamps]) */
    VEC(graft_node *) owners; /* the roots of the groups kept in this pass,
                         by claim stamp less pass */
    size_t nclaimed;  /* the nodes the groups kept in this pass claimed */
    uint16_t *mark;   /* per node id: istamp for an input of the last
                         candidate, stamp for a node of its region (note
                         [short marks] in group.c) */
    size_t size;      /* entries in claim and mark */
    uint32_t pass;    /* the first claim stamp of this pass */
    uint16_t stamp;   /* current region stamp: istamp + 1 */
    uint16_t istamp;  /* current input stamp */
    uint32_t *counter; /* candidate groups in this pass, per global function
                          (graph_global_of + 1): TVM partitions and rewrites
                          one function at a time, numbering from 0 */
    int ncounters;     /* entries in counter */
    int main_at;       /* the counter of @main's nodes, -1 until known */
    VEC(graft_node *) inputs; /* the inputs of the groups kept in this pass, one
                         group's after another (note [pass buffers]): the
                         last block (note [input blocks] in group.c) */
    VEC(graft_node **) full; /* the pass's blocks before it, full */
    uint32_t freed_blocks; /* full blocks freed from the first, their groups
                         applied (grouper_free_inputs_before) */
    VEC(graft_node *) roots; /* the same for the roots of a rule of several */
    VEC(graft_node *) region; /* the region of the last candidate */
    VEC(uint8_t) roles; /* the last match's pairs' roles (note [pair roles]
                         in group.c) */
    bool roles_lined;   /* roles are the rule's line's, learnt this pass */
    WALK(graft_node *) walk; /* scratch: collect_region's walk */
    const graft_node *watch;    /* graft explain: the root whose fate to record */
    PartVerdict *verdict; /* where to record it, or NULL */
} Grouper;

void grouper_init(Grouper *gp, graft_engine *e);
void grouper_free(Grouper *gp);
/* Starts a pass of rule: nothing claimed, group numbers from 0. */
void grouper_begin(Grouper *gp, uint32_t rule);
/* note [claim stamps]: a group kept in a pass claims its region with the
 * pass's first stamp plus its place among the pass's kept groups, so one
 * word per node id says both whether a group of this pass claimed the
 * node (a stamp from pass on; earlier passes' are below) and which (its
 * root in owners), where a stamp and the root's pointer took three.  A
 * pass's stamps follow the last pass's; they start again from 1, the
 * array cleared, once past half the range: a pass keeps fewer groups
 * than the graph has nodes, which are fewer than 2^31 (each takes at
 * least a short node's bytes: note [short nodes] in src/ir/graph.c). */

/* Whether a group kept in this pass claimed n (inline: a partition pass
 * asks it of every node). */
static inline bool grouper_claimed(const Grouper *gp, const graft_node *n)
{
    uint32_t id = node_id(n);
    return id < gp->size && gp->claim[id] >= gp->pass;
}

/* The root of the group that claimed n in this pass (n claimed). */
static inline graft_node *grouper_owner(const Grouper *gp, const graft_node *n)
{
    return gp->owners.items[gp->claim[node_id(n)] - gp->pass];
}
/* graft explain: records what becomes of root when it is the watched
 * one (gp->watch). */
static inline void grouper_verdict(Grouper *gp, const graft_node *root, PartFate fate,
                                   graft_node *a, graft_node *b)
{
    if (gp->verdict && root == gp->watch)
        *gp->verdict = (PartVerdict){fate, a, b};
}
/* Verifies the pass's rule at root and makes the candidate group; true
 * when it is kept (its region claimed, *out filled).  A pattern that is a
 * bare leaf groups nothing: kept with an empty region when leaf_ok
 * (rewriting), dropped otherwise (a partition computes something).
 *
 * note [rewrite keeps no inputs]: only a partition reads a kept group's
 * inputs (its function's parameters); a rewrite's action reads the
 * bindings.  So with leaf_ok the kept group's stretch of gp->inputs is
 * given back (gr->ninputs still counts them): gp->inputs holds one
 * candidate's, not the pass's, which was half a megabyte of the rewrite's
 * peak on the workload (50,000 pointers in 65,536 slots). */
bool grouper_try(Grouper *gp, graft_node *root, bool leaf_ok, Group *out);
/* Frees the marks once a pass has tried its roots (note [marks freed
 * before the actions] in group.c); the claims stay. */
void grouper_end_tries(Grouper *gp);

/* Frees the claims, marks and kept roots once a partition pass has tried
 * its roots and kept some group (note [claims freed before the groups
 * are applied] in group.c); the groups' inputs and roots stay. */
void grouper_end_claims(Grouper *gp);
/* Frees the pass's full input blocks before block (their groups applied). */
void grouper_free_inputs_before(Grouper *gp, uint32_t block);

/* gr's inputs, gr->ninputs of them (a partition's group: note [rewrite
 * keeps no inputs]); the pointer holds until the next grouper_try. */
static inline graft_node **group_inputs(const Grouper *gp, const Group *gr)
{
    graft_node **block = gr->block < gp->full.len ? gp->full.items[gr->block] : gp->inputs.items;
    return block + gr->inputs;
}

/* gr's root nodes (gr->nroots of a rule of several roots); the pointer
 * holds until the next grouper_try. */
static inline graft_node **group_roots(const Grouper *gp, const Group *gr)
{
    return gp->roots.items + gr->roots;
}

#endif
