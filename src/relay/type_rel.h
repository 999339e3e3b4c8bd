/* type_rel.h - what the type relations of type_rel_*.c share: the call
 * being typed, attribute readers and shape helpers (note [type relations]
 * in type_infer.h).  Private to src/relay/type_*.c. */
#ifndef GRAFT_TYPE_REL_H
#define GRAFT_TYPE_REL_H

#include <stdbool.h>
#include <stdint.h>

#include "graph.h"
#include "util.h"

/* Ranks beyond this are reported, not typed (TVM has no fixed bound;
 * real models stay under 8). */
enum { REL_MAX_RANK = 32 };

/* One call being typed. */
typedef struct RelCtx {
    graft_graph *g;              /* where result types are made */
    const graft_node *call;      /* the op call */
    const char *op;        /* its op name */
    const graft_type *const *in; /* its operands' types, all known */
    int nin;               /* entries in in */
    StrBuf *why;           /* the contradiction, when there is one */
} RelCtx;

/* A relation returns the output type, or NULL: unknown, or (after
 * rel_fail) a contradiction. */
typedef const graft_type *(*TypeRelFn)(RelCtx *c);

typedef struct TypeRel {
    const char *op;  /* op name, as TVM registers it */
    TypeRelFn fn;    /* the relation */
    int outputs;     /* TYPE_OUTPUTS_TENSOR, N for a tuple of N,
                        TYPE_OUTPUTS_VARIES */
    int min_in;      /* operands the relation needs */
    int tuple_in;    /* leading operands that are tuples (concatenate: 1);
                        the others are tensors */
} TypeRel;

/* The tables of each family (type_rel_*.c), ended by an entry with a
 * NULL op. */
extern const TypeRel type_rels_elemwise[];
extern const TypeRel type_rels_nn[];
extern const TypeRel type_rels_nn_misc[];
extern const TypeRel type_rels_transform[];
extern const TypeRel type_rels_index[];
extern const TypeRel type_rels_reduce[];
extern const TypeRel type_rels_misc[];
extern const TypeRel type_rels_einsum[];
extern const TypeRel type_rels_vision[];
extern const TypeRel type_rels_dyn[];

/* A shape under construction. */
typedef struct Shape {
    int rank;                    /* dims used */
    int64_t dims[REL_MAX_RANK];  /* DIM_ANY for "?" */
} Shape;

/* The element count of s (a product that stays DIM_ANY when a dim is);
 * INT64_MAX for a count past int64, which no known smaller count equals
 * (reshape's check of its sizes). */
int64_t rel_shape_size(const Shape *s);
/* The prologue of an op of one tensor and one list attribute: the tensor,
 * with the integers of attribute name in v (at most REL_MAX_RANK) and
 * their count in *n (0 when absent); NULL after a failure. */
const graft_type *rel_data_and_ints(RelCtx *c, const char *name, int64_t *v, int *n);

/* Layouts (type_rel_nn.c): where axis sits in layout, or -1; the spatial
 * letters of nsp dims in the order "DHW" names them; whether layout is
 * plain, of rank nsp + 2, with the letters ab ("NC", "OI") and the spatial
 * ones; the default layout of a pool of nsp dims. */
int rel_layout_pos(const char *layout, char axis);
const char *rel_spatial_letters(int nsp);
bool rel_layout_fits(const char *layout, int nsp, const char *ab);
const char *rel_pool_layout(int nsp);

/* Reports a contradiction "OP: MESSAGE"; returns NULL for the caller. */
const graft_type *rel_fail(RelCtx *c, const char *fmt, ...) GRAFT_PRINTF(2, 3);

/* Operand i as a tensor type; NULL after reporting when it is not. */
const graft_type *rel_tensor(RelCtx *c, int i);
/* A tensor type from a shape. */
const graft_type *rel_make(RelCtx *c, const char *dtype, const Shape *s);
/* TopKRel's result on shape s: values, indices (attribute "dtype") or,
 * for ret_type "both", the tuple of the two. */
const graft_type *rel_topk_result(RelCtx *c, const char *dtype, const Shape *s);
/* A shape from a tensor type; false after reporting a rank too large. */
bool rel_shape(RelCtx *c, const graft_type *t, Shape *s);
/* Appends a dim; false after reporting a rank too large. */
bool shape_push(RelCtx *c, Shape *s, int64_t d);

/* Attributes; absent ones take dflt (the default of TVM's attrs). */
const graft_attr_value *rel_attr(const RelCtx *c, const char *name);
int64_t rel_int(const RelCtx *c, const char *name, int64_t dflt);
double rel_float(const RelCtx *c, const char *name, double dflt);
bool rel_bool(const RelCtx *c, const char *name, bool dflt);
const char *rel_str(const RelCtx *c, const char *name, const char *dflt);
/* A dtype attribute, or dflt when absent or "" (TVM's void dtype). */
const char *rel_dtype(const RelCtx *c, const char *name, const char *dflt);
/* An int list (an int alone counts as a list of one) into out, at most
 * max items: the count, 0 for None or absent, -1 after reporting a
 * value that is not a list of ints (note [int lists] in src/ir/graph_attr.c). */
int rel_ints(RelCtx *c, const char *name, int64_t *out, int max);
/* Whether the attribute is present and not None. */
bool rel_has(const RelCtx *c, const char *name);

/* An axis in [-rank, rank) made non-negative; -1 after reporting. */
int rel_axis(RelCtx *c, int64_t axis, int rank);

/* Relations other families build on (qnn ops are their float ops with
 * scales and zero points added). */
const graft_type *rel_conv2d(RelCtx *c);
const graft_type *rel_dense(RelCtx *c);
const graft_type *rel_broadcast(RelCtx *c);
const graft_type *rel_concatenate(RelCtx *c);

/* Arithmetic on dims that keeps "?" unknown; dim_div's divisor b is a
 * known positive number (a stride, a block size, a known dim). */
int64_t dim_add(int64_t a, int64_t b);
int64_t dim_mul(int64_t a, int64_t b);
int64_t dim_div(int64_t a, int64_t b);

#endif
