/* engine_impl.h - the driver's private state, shared by engine.c,
 * rewrite.c, rewrite_build*.c and partition.c. */
#ifndef GRAFT_ENGINE_IMPL_H
#define GRAFT_ENGINE_IMPL_H

#include "engine.h"
#include "node_label.h"
#include "type_infer.h"

/* A fold(...) of the action being built and the constant it made
 * (rewrite_fold.c, note [constant folding] in fold.h). */
typedef struct FoldMade {
    const graft_expr *expr;
    graft_node *value;
} FoldMade;

/* The types of the calls actions made, by op, attributes and operand
 * types (rewrite_types.c, note [action types]). */
typedef struct ActionTypes ActionTypes;
/* Typing the calls actions make in g (of g's IR). */
ActionTypes *action_types_new(const graft_graph *g);
void action_types_free(ActionTypes *at);
/* n's type, as type_infer_cached gives it (the relations cached in at),
 * taken from an earlier call of the same key when there was one. */
const graft_type *action_type(ActionTypes *at, graft_graph *g, const graft_node *n, StrBuf *why);

/* The bytes of a tensor constant the engine keeps to know its number
 * again (note [constant bytes read once] in rewrite_build_attr.c): one
 * element of any dtype. */
enum { CONST_BYTES = 16 };

struct graft_engine {
    const graft_rule_set *rs;     /* the rules, borrowed */
    graft_graph *g;              /* the graph being changed, borrowed */
    EngineOptions opts;    /* as given */
    const graft_limits *limits;  /* opts.limits or the defaults */
    Automaton *a;          /* the rules' automaton */
    Labels *labels;        /* states of g's nodes */
    Matcher *m;            /* verifier */
    Stats stats;           /* counters */
    uint32_t *forward;     /* per node id: 1 + the id of what a rewrite in the
                              current pass replaced it by, or 0 (note
                              [forwarding map] in rewrite.c) */
    size_t forward_cap;    /* entries in forward */
    uint8_t *dirty;        /* per node id: to relabel, an operand was
                              replaced (engine_relabel_changed clears) */
    size_t dirty_cap;      /* entries allocated in dirty */
    uint32_t *mark;        /* per node id: visit stamps for walks */
    size_t mark_cap;       /* entries allocated in mark */
    uint32_t stamp;        /* current stamp */
    graft_node **order;          /* scratch: topological order */
    size_t order_cap;      /* entries allocated in order */
    const NodeLabels *names; /* the model's node names, for the trace and
                              refusals: EngineOptions.names, or own_names;
                              NULL when neither is asked */
    NodeLabels *own_names; /* the names made here, or NULL */
    ActionTypes *types;    /* typing what rewrites make (note [action
                              types] in rewrite_types.c), made with the
                              first */
    KeyMap interned;       /* rule-set name -> its copy in g (note [names
                              interned once] in rewrite_build_attr.c) */
    bool *check_computable; /* per rule: its action may lack a computed
                               value (rewrite_always_computable fails) */
    bool *check_fold_ready; /* per rule: its action folds (rewrite_has_fold),
                               so rewrite_fold_ready asks of its leaves */
    bool *check_share;     /* per rule: its action may make nodes to share
                              (rewrite_may_share) */
    struct ActionCalls *calls; /* per call action node, its op and names
                              and its attributes in canonical order (note
                              [canonical attributes once] in
                              rewrite_build_call.c), made with the first */
    VEC(FoldMade) folds;   /* the folds of the action being built */
    bool fold_failed;      /* one of them has no value: no rewrite */
    struct EvalMeta *meta; /* Relay: the #[metadata] section's values,
                              read with the first fold, or NULL */
    int64_t next_meta;     /* Relay, once meta is read: the next new meta
                              constant's index (note [meta constants] in
                              fold.h), -1 when the section takes none */
    uint32_t visit_rule;   /* engine_match_roots: the match being visited */
    graft_node *visit_root;
    bool visit_bound;      /* its bindings are in the matcher */
    bool clean;            /* every live node but @main's unused parameters
                              is reached, none is a function: a sweep can
                              be graph_kill_given's (note [kill of given
                              nodes] in src/ir/graph_walk.c) */
    VEC(uint32_t) replaced; /* the roots the current pass replaced */
    const graft_node *read_const; /* the constant whose number a group's
                              check read, for its build, or NULL (note
                              [constant read once] in rewrite_build.c) */
    double read_number;    /* that number */
    const graft_attr_value *made_number; /* the last attribute value made
                              of a bound constant's number, shared by the
                              next of the same dtype and number (note
                              [constant read once] in rewrite_build.c) */
    const char *made_dtype; /* its constant's dtype (interned), or NULL */
    const graft_type *bytes_type; /* the last tensor constant whose number
                              was read: its type, or NULL (note [constant
                              bytes read once] in rewrite_build_attr.c) */
    size_t bytes_len;      /* its bytes' count */
    unsigned char bytes[CONST_BYTES]; /* its bytes */
    bool bytes_has_number; /* whether it has a number */
    double bytes_number;   /* that number */
};

/* Appends n's name (note [node names]) as the trace and refusals give
 * it: "%5 (model.relay:6:8)"; a node a rewrite built, "#17 nn.relu". */
void engine_node_name(const graft_engine *e, const graft_node *n, StrBuf *out);
/* Keeps a refusal of rule r at root for the statistics when asked
 * (EngineOptions.refusals): "WHY: RULE at ROOT[: A REL B]". */
void engine_refusal(graft_engine *e, uint32_t r, const char *why, const graft_node *root,
                    const graft_node *a, const char *rel, const graft_node *b);

/* The live nodes in topological order (into e->order); returns the count. */
uint32_t engine_order(graft_engine *e);
/* graph_remove_dead, then engine_order, in one walk (note [sweep] in
 * graph_walk.c); returns the count of live nodes in e->order. */
uint32_t engine_remove_dead_order(graft_engine *e);
/* Frees e->order; the engine orders into a new block if asked again
 * (note [order dropped before the last apply] in partition.c). */
void engine_drop_order(graft_engine *e);
/* Makes room in e->dirty for node id. */
void engine_grow_dirty(graft_engine *e, uint32_t id);
/* Marks node id for relabelling by the next engine_relabel_changed
 * (inline: a partition marks every node it moves). */
static inline void engine_mark_dirty(graft_engine *e, uint32_t id)
{
    if (id >= e->dirty_cap)
        engine_grow_dirty(e, id);
    e->dirty[id] = 1;
}
/* Frees the labels' states, the relabelling marks and the walk stamps
 * (note [labels dropped before the last apply] in engine.c). */
void engine_drop_labels(graft_engine *e);
/* A fresh stamp for a walk over e->mark, sized for every node. */
uint32_t engine_new_stamp(graft_engine *e);
/* True when every path from u to the graph's output (or to the result of
 * u's function) passes through root. */
bool engine_postdominates(graft_engine *e, const graft_node *root, const graft_node *u);
/* Labels every node (operands first), as engine_matches does. */
void engine_label_all(graft_engine *e);
double engine_now(void);
/* engine_now, or 0 when the engine keeps no times (EngineOptions.untimed):
 * what the per-rule times are read with. */
static inline double engine_clock(const graft_engine *e)
{
    return e->opts.untimed ? 0.0 : engine_now();
}
/* Relabels the nodes created since *upto and those whose operands' states
 * changed (note [partition relabelling]); e->order holds the n live nodes
 * in topological order.  Sets *upto to the node count. */
void engine_relabel_changed(graft_engine *e, uint32_t n, uint32_t *upto);
/* The same relabelling without an order, through the users lists (note
 * [relabelling through users] in engine_relabel.c).  engine_region, before
 * the sweep, finds the nodes the pass's change can reach (nodes made from
 * upto on included); NULL when rules look inside scopes or the change
 * reaches too much of the graph (then engine_relabel_changed over an
 * order).  engine_region_relabel, after graph_remove_unreached marked
 * reached (or graph_kill_given marked nothing: reached NULL), relabels them,
 * tells whether a live one's state offers a rule now, sets *upto as
 * engine_relabel_changed does and frees r. */
typedef struct EngineRegion EngineRegion;
EngineRegion *engine_region(graft_engine *e, uint32_t upto);
bool engine_region_relabel(graft_engine *e, EngineRegion *r, const uint8_t *reached,
                           uint32_t *upto);
/* Frees a region not relabelled (the dirty marks it was made from stay). */
void engine_region_free(EngineRegion *r);
/* Labels every live node in the walk that orders them (note [first
 * labelling]); returns their count.  When nodes, e->order then holds them
 * in topological order; when offering is not NULL, *offering (to free) holds
 * the *noffering ids among them whose state accepts some rule, in that
 * order.  Sets *upto as engine_relabel_changed does. */
uint32_t engine_label_order(graft_engine *e, bool nodes, uint32_t **offering, uint32_t *noffering,
                            uint32_t *upto);
/* The rules of one kind, best first: priority, then file order; returns
 * how many were put in order. */
uint32_t engine_rules_best_first(const graft_engine *e, graft_action_kind kind, uint32_t *order);

/* What a partition pass makes of a root (graft explain); group.c records
 * it for the watched root. */
typedef enum PartFate {
    PART_UNTRIED,     /* no candidate: a leaf, or the rule does not match */
    PART_KEPT,        /* a group */
    PART_OVERLAP,     /* dropped: region node a is in the group rooted at b */
    PART_INTERIOR,    /* dropped: interior node a is used by b outside */
    PART_ROOT_READ,   /* dropped from a partition: root a is read by b inside
                         the group, or (b NULL) lies in another function
                         (note [partition roots] in group.c) */
    PART_CLAIMED,     /* inside the group rooted at a already */
    PART_PARTITIONED, /* inside a function partitioned before */
    PART_UNFIT,       /* refused: the call cannot take the roots' place
                         (engine_partition_misfit) */
} PartFate;

typedef struct PartVerdict {
    PartFate fate;
    graft_node *a, *b;      /* as PartFate says */
} PartVerdict;

/* The candidate phase of rule's partition pass over the graph as it is,
 * nothing applied: what becomes of root (partition.c). */
void engine_partition_verdict(graft_engine *e, uint32_t rule, const graft_node *root,
                              PartVerdict *v);
/* The same for a rewrite rule's pass (rewrite.c). */
void engine_rewrite_verdict(graft_engine *e, uint32_t rule, const graft_node *root, PartVerdict *v);
/* Why a partition may not replace the roots of the matcher's match at
 * root (a rule of several roots: matcher_roots) by its call, or elements
 * of it (note [fixed outputs] in src/ir/graph_module.c), or
 * REPLACEMENT_FITS; *nth: the root's number in a rule of several, 0 in a
 * rule of one (group.c). */
ReplacementMisfit engine_partition_misfit(graft_engine *e, const graft_rule *rule,
                                          const graft_node *root, int *nth);

/* rewrite_fold.c: fold(...) in actions (note [constant folding] in
 * fold.h).  Whether every fold of action x has constants for leaves on
 * b. */
bool rewrite_fold_ready(const graft_engine *e, const graft_expr *x, const graft_binding *b);
/* Whether action x has a fold(...) anywhere: an action without one is
 * always ready, and most have none (engine_new asks once per rule). */
bool rewrite_has_fold(const graft_expr *x);
/* Forgets the folds of the previous action. */
void rewrite_fold_begin(graft_engine *e);
/* The constant an equal fold of this action made already, or NULL. */
graft_node *rewrite_fold_find(const graft_engine *e, const graft_expr *x);
/* The value of fold x, whose expression was built as built: a new
 * constant (ONNX), or built itself (Relay, or when it has no value:
 * then e->fold_failed is set). */
graft_node *rewrite_fold(graft_engine *e, const graft_expr *x, graft_node *built);
/* After the rewrites: the new meta constants' values into the Relay
 * module's section (fold_meta_commit); frees what the folds read. */
void rewrite_fold_end(graft_engine *e);

/* ---- rewrite_build*.c: building an action (rewrite_build.c) */

/* Operands an action's node takes without a heap buffer. */
enum { FEW_KIDS = 8 };

/* A call action node's entry: what its calls' build reads of it alone,
 * and its last attributes in canonical order (note [canonical attributes
 * once] in rewrite_build_call.c). */
typedef struct ActionCall {
    const char *op;          /* the op, the graph's copy */
    const char **names;      /* per attribute written, its name's copy
                                (NULL for a copy of a node's) */
    const graft_attr_value **literals; /* per attribute, its literal
                                value's copy, or NULL */
    bool plain;              /* rewrite_plain_kids(x) */
    int nin, nout, cap;      /* cap: room in in */
    graft_attr *in;          /* the nin given */
    const graft_attr *out;   /* the nout in canonical order, in the
                                graph's arena */
    struct LastTyped *last;  /* the last two calls typed, the last
                                first, or NULL (note [types by action
                                node]) */
    bool untyped;            /* its last call listed stayed untyped: its
                                calls are no longer listed */
} ActionCall;

/* The last constant made of a bound attribute value given as an operand
 * (note [attribute operands spelled once] in rewrite_build_operand.c). */
typedef struct OperandConst {
    graft_attr_kind kind;    /* the value's kind, f and i */
    double f;
    int64_t i;
    const char *dtype;       /* the other operands' dtype, or NULL */
    const char *text;        /* the constant's spelling (NULL before the
                                first), dtype and value, as made (the
                                node itself may be released since) */
    const char *made_dtype;
    double value;
} OperandConst;

/* A call the build under way made: its action node's entry, and the
 * bound call whose attributes it has when they are all one's of its op
 * (note [rebuilt calls keep their types] in rewrite_build_types.c), else
 * NULL. */
typedef struct MadeCall {
    const graft_node *made, *from;
    ActionCall *c;
} MadeCall;

/* The engine's entries of call action nodes (graft_engine.calls). */
struct ActionCalls {
    KeyMap by_action;     /* an action node -> its entry in calls, +1 */
    VEC(ActionCall *) calls;
    OperandConst operand; /* note [attribute operands spelled once] */
    VEC(MadeCall) made;   /* the build under way's, in id order */
    bool relay;           /* the graph is Relay's: calls are listed */
    bool untyped_made;    /* a build made a node that stayed untyped:
                             stays_untyped is asked from then on (a typed
                             model's builds never pay for it) */
};

/* The engine's entries of call action nodes, made the first time. */
static inline struct ActionCalls *rewrite_action_calls(graft_engine *e)
{
    if (!e->calls) {
        e->calls = xcalloc(1, sizeof *e->calls);
        e->calls->relay = graph_ir(e->g) == IR_RELAY;
    }
    return e->calls;
}

/* An operand that is a bound attribute value (note [attribute operands]
 * in graft_rules.h). */
static inline bool rewrite_attr_operand(const graft_expr *x)
{
    return x->kind == GRAFT_EXPR_SLOT && x->i == 1;
}

/* Whether every operand of x is one node, built where it stands: no
 * splice, no bound attribute value. */
static inline bool rewrite_plain_kids(const graft_expr *x)
{
    for (int i = 0; i < x->nkids; i++)
        if (x->kids[i]->kind == GRAFT_EXPR_SPLICE || rewrite_attr_operand(x->kids[i]))
            return false;
    return true;
}

/* rewrite_build.c: the node action expression x stands for on b: a
 * bound node, or a new one. */
graft_node *rewrite_build_node(graft_engine *e, const graft_expr *x, const graft_binding *b);
/* rewrite_build_call.c: a new call of call action node x's op on b. */
graft_node *rewrite_build_call(graft_engine *e, const graft_expr *x, const graft_binding *b);

/* rewrite_build_operand.c: x's operands built (into few when they fit),
 * plain ones (rewrite_plain_kids) built, and a splice's range of fields
 * on b. */
graft_node **rewrite_build_kids(graft_engine *e, const graft_expr *x, const graft_binding *b,
                                int *n, graft_node **few);
graft_node **rewrite_build_plain_kids(graft_engine *e, const graft_expr *x,
                                      const graft_binding *b, int *n, graft_node **few);
bool rewrite_splice_range(const graft_expr *x, const graft_binding *b, int *from, int *end);

/* rewrite_build_attr.c: the value of name=EXPR in a new op call, or NULL
 * when the expression has none (an attribute absent without default:
 * then left out). */
const graft_attr_value *rewrite_attr_value(graft_engine *e, const graft_expr *x,
                                           const graft_binding *b);
/* Whether x computes a number on b. */
bool rewrite_number_known(const graft_expr *x, const graft_binding *b);
/* x's type, for shape(x), when it is a tensor type with every dim known. */
const graft_type *rewrite_shape_known(const graft_expr *x, const graft_binding *b);
/* Whether x is a literal item of a list (its value its own). */
bool rewrite_is_literal(const graft_expr *x);
/* Whether constant n has a number, into *v (note [constant read once] in
 * rewrite_build.c). */
bool rewrite_const_number(graft_engine *e, const graft_node *n, double *v);
/* The graph's copies of rule-set name s, literal attribute value v and
 * x's attribute declarations, made once (note [names interned once] in
 * rewrite_build_attr.c). */
const char *rewrite_intern_once(graft_engine *e, const char *s);
const graft_attr_value *rewrite_literal_once(graft_engine *e, const graft_attr_value *v);
const graft_attr_decl *rewrite_interned_decls(graft_engine *e, const graft_expr *x);

/* rewrite_build_types.c: the types of the nodes one action made (ids
 * from first on). */
void rewrite_infer_new(graft_engine *e, uint32_t first);

/* rewrite_build.c: the values of rule r of several roots for bindings b,
 * by[j] replacing roots[j] (note [root values]); false, nothing built,
 * when a compiled action refuses the bindings (graft_attr_slot_known). */
bool rewrite_build_roots(graft_engine *e, const graft_rule *r, const graft_binding *b,
                         graft_node *const *roots, graft_node **by);
/* rewrite_build_call.c: frees the engine's entries of call action nodes
 * (note [canonical attributes once] in rewrite_build_call.c); NULL is
 * none. */
void rewrite_calls_free(struct ActionCalls *ac);
/* rewrite_build.c: builds the action of rule r for bindings b, replacing
 * root; new nodes are labelled. */
graft_node *rewrite_build(graft_engine *e, const graft_rule *r, const graft_binding *b,
                          graft_node *root);
/* rewrite_share.c: the nodes made since first that equal one made
 * before them become that one (note [shared sub-expressions]); by[0 ..
 * nby) then name what they stand for. */
void rewrite_share(graft_graph *g, uint32_t first, graft_node **by, int nby);
/* rewrite_share.c: whether the nodes action makes may hold two that
 * rewrite_share would make one; false when they are all of distinct
 * kinds and ops (note [actions of distinct nodes]). */
bool rewrite_may_share(const graft_expr *action);
/* rewrite_build_known.c: whether every computed attribute of action x
 * has a value for b (note [computed attributes] in rewrite_build.c); b
 * NULL asks rewrite_always_computable's question. */
bool rewrite_computable(const graft_expr *x, const graft_binding *b);
/* What an action's place names besides an attribute (ActionPlace.attr,
 * rewrite_first_unknown's *attr): a splice, or a spliced call's operand
 * count (note [spliced operand counts] in src/compiler/check_action.c). */
enum { PLACE_SPLICE = -1, PLACE_COUNT = -2 };
/* The operands call x has on b, each splice giving its range's fields
 * (none when it has no range). */
int rewrite_operand_count(const graft_expr *x, const graft_binding *b);
/* The value action x would give a root on b, as graph_replacement_misfit
 * reads it (note [fixed outputs] in src/ir/graph_module.c: graft explain
 * asks before a build what the rewrite asks of the node built).  An
 * action of several results (a rule of several roots) gives each a
 * tensor the action makes. */
typedef struct ActionValue {
    ReplacementValue value;
    const graft_expr *x;
    const graft_binding *b;
} ActionValue;
void rewrite_action_value(ActionValue *v, const graft_expr *x, const graft_binding *b);
/* What makes rewrite_computable false: the call of x whose attribute
 * *attr has no value on b, a splice without a range (*attr
 * PLACE_SPLICE), or a spliced call whose operand count its op does not
 * take (*attr PLACE_COUNT); NULL when there is none. */
const graft_expr *rewrite_first_unknown(const graft_expr *x, const graft_binding *b, int *attr);
/* A place of an action where a value may lack (note [places that may
 * lack a value] in rewrite_build_known.c): attribute attr of call x, splice x
 * (attr PLACE_SPLICE), or spliced call x's operand count (PLACE_COUNT). */
typedef struct ActionPlace {
    const graft_expr *x;
    int attr;
} ActionPlace;
typedef VEC(ActionPlace) ActionPlaces;
/* Appends the places of action x, in rewrite_first_unknown's order. */
void rewrite_action_places(const graft_expr *x, ActionPlaces *places);
/* rewrite_computable on b, asking only at the action's places. */
bool rewrite_places_known(graft_engine *e, const ActionPlaces *places, const graft_binding *b);
/* Whether rewrite_computable holds for x on any bindings: no computed
 * attribute, list or shape, and no splice.  Decided once per rule
 * (Engine.check_computable), as most actions have none. */
bool rewrite_always_computable(const graft_expr *x);

#endif
