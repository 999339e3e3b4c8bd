/* fold_bytes.c - fold(Concat(...)) of ONNX initializers by their raw bytes
 * (note [byte folds] in fold.h). */
#include "fold.h"

#include <stdlib.h>
#include <string.h>

#include "dtype.h"

/* The little-endian unsigned integer of bytes bytes at p, assembled so
 * that the compiler makes one load of it (eval_le_uint loops). */
static uint64_t le_word(const unsigned char *p, size_t bytes)
{
    uint64_t v = 0;
    for (size_t b = 0; b < bytes; b++)
        v |= (uint64_t)p[b] << (8 * b);
    return v;
}

/* Whether a float of the given exponent and fraction masks is a NaN. */
static bool is_nan_bits(uint64_t w, uint64_t exp_mask, uint64_t frac_mask)
{
    return (w & exp_mask) == exp_mask && (w & frac_mask) != 0;
}

/* Whether none of the n floats of size bytes at p is a NaN.  The
 * exponent lies in the top two bytes of each format, which are read
 * first: the whole element only where the exponent is all ones. */
static bool nan_free(const unsigned char *p, size_t n, size_t size, uint64_t exp_mask,
                     uint64_t frac_mask)
{
    unsigned top_mask = (unsigned)(exp_mask >> (8 * (size - 2)));
    for (size_t i = 0; i < n; i++) {
        const unsigned char *q = p + size * i;
        unsigned top = (unsigned)q[size - 1] << 8 | q[size - 2];
        if ((top & top_mask) == top_mask && is_nan_bits(le_word(q, size), exp_mask, frac_mask))
            return false;
    }
    return true;
}

/* Whether each of the n elements of d at p comes back unchanged from the
 * evaluator's double: not for a NaN (float16's trip makes every NaN
 * 0x7e00, float32's sets the quiet bit), nor for a 64-bit integer past
 * 2^53 (fold_exact_raw_integer), nor for bool, whose trip makes every
 * nonzero byte 1. */
static bool survives_double(DType d, const unsigned char *p, size_t n)
{
    switch (d) {
    case DTYPE_FLOAT64:
        return nan_free(p, n, 8, 0x7ff0000000000000u, 0xfffffffffffffu);
    case DTYPE_FLOAT32:
        return nan_free(p, n, 4, 0x7f800000u, 0x7fffffu);
    case DTYPE_FLOAT16:
        return nan_free(p, n, 2, 0x7c00u, 0x3ffu);
    case DTYPE_BFLOAT16:
        return nan_free(p, n, 2, 0x7f80u, 0x7fu);
    case DTYPE_INT8: case DTYPE_INT16: case DTYPE_INT32:
    case DTYPE_UINT8: case DTYPE_UINT16: case DTYPE_UINT32:
        return true;
    case DTYPE_INT64: case DTYPE_UINT64:
        for (size_t i = 0; i < n; i++)
            if (!fold_exact_raw_integer(le_word(p + 8 * i, 8), d == DTYPE_INT64))
                return false;
        return true;
    default:
        return false;
    }
}

/* Concat's axis as the evaluator reads it (0 when absent), in [0, rank);
 * -1 when it is out of range or not one integer (the evaluator's path
 * then decides, and says why it refuses). */
static int concat_axis(const graft_node *n, int rank)
{
    const graft_attr_value *v = node_find_attr(n, "axis");
    if (v && v->kind != GRAFT_ATTR_NULL && v->kind != GRAFT_ATTR_INT)
        return -1;
    int64_t axis = v && v->kind == GRAFT_ATTR_INT ? v->i : 0;
    if (rank == 0 || axis < -rank || axis >= rank)
        return -1;
    return (int)(axis < 0 ? axis + rank : axis);
}

/* The raw bytes of operand a when it is a tensor constant of dtype d
 * whose elements the evaluator would read (tensor_leaf in fold.c) and
 * get back unchanged; NULL otherwise. */
static const unsigned char *operand_bytes(const graft_node *a, DType d, uint64_t max_elements)
{
    if (node_kind(a) != NODE_CONST || node_const_is_scalar(a))
        return NULL;
    size_t nbytes;
    const unsigned char *bytes = node_const_data(a, &nbytes);
    const graft_type *t = node_type(a);
    if (!bytes || !t || t->kind != TYPE_TENSOR || t->rank > EVAL_MAX_RANK ||
        !eval_dtype(t->dtype) || dtype_from_name(eval_dtype(t->dtype)) != d)
        return NULL;
    uint64_t count = 1;
    for (int i = 0; i < t->rank; i++) {
        if (t->dims[i] < 0)
            return NULL;
        count *= (uint64_t)t->dims[i];
    }
    if (count > max_elements || count * dtype_size(d) != nbytes ||
        !survives_double(d, bytes, count))
        return NULL;
    return bytes;
}

/* The result's dims: the operands' (of one rank, equal but on axis),
 * summed on axis; false when they do not line up. */
static bool concat_dims(const graft_node *root, int axis, int64_t *dims)
{
    const graft_type *first = node_type(node_arg(root, 0));
    memcpy(dims, first->dims, (size_t)first->rank * sizeof *dims);
    dims[axis] = 0;
    for (int i = 0; i < node_nargs(root); i++) {
        const graft_type *t = node_type(node_arg(root, i));
        if (t->rank != first->rank)
            return false;
        for (int k = 0; k < t->rank; k++)
            if (k != axis && t->dims[k] != first->dims[k])
                return false;
        dims[axis] += t->dims[axis];
    }
    return true;
}

/* Each operand's rows of axis, block after block: the outer loop over the
 * dims before axis, an operand's block its rows times the bytes of the
 * dims after. */
static void copy_concat(const graft_node *root, const unsigned char **src, int axis,
                        const int64_t *dims, size_t size, unsigned char *out)
{
    const graft_type *first = node_type(node_arg(root, 0));
    size_t outer = 1, inner = size;
    for (int k = 0; k < axis; k++)
        outer *= (size_t)dims[k];
    for (int k = axis + 1; k < first->rank; k++)
        inner *= (size_t)dims[k];
    for (size_t o = 0; o < outer; o++)
        for (int i = 0; i < node_nargs(root); i++) {
            size_t block = (size_t)node_type(node_arg(root, i))->dims[axis] * inner;
            if (block)
                memcpy(out, src[i] + o * block, block);
            out += block;
        }
}

/* The operands' bytes into src (nargs entries), all of the first's
 * dtype; that dtype (eval_dtype's name), or NULL when one is not to be
 * copied. */
static const char *operands_bytes(const graft_node *root, const FoldEnv *env,
                                  const unsigned char **src)
{
    const graft_type *t = node_type(node_arg(root, 0));
    const char *name = t && t->kind == TYPE_TENSOR ? eval_dtype(t->dtype) : NULL;
    DType d = name ? dtype_from_name(name) : DTYPE_UNDEFINED;
    for (int i = 0; d != DTYPE_UNDEFINED && i < node_nargs(root); i++)
        if (!(src[i] = operand_bytes(node_arg(root, i), d, env->max_elements)))
            return NULL;
    return d != DTYPE_UNDEFINED ? name : NULL;
}

graft_node *fold_bytes_concat(graft_graph *g, const graft_node *root, const FoldEnv *env)
{
    int nargs = node_nargs(root);
    if (graph_ir(g) != IR_ONNX || node_kind(root) != NODE_CALL || !node_op(root) ||
        strcmp(node_op(root), "Concat") != 0 || nargs < 1 || nargs > (1 << 20))
        return NULL;
    const unsigned char **src = xcalloc((size_t)nargs, sizeof *src);
    const char *dtype = operands_bytes(root, env, src);
    const graft_type *first = node_type(node_arg(root, 0));
    int axis = dtype ? concat_axis(root, first->rank) : -1;
    int64_t dims[EVAL_MAX_RANK];
    uint64_t count = 1;
    bool ok = axis >= 0 && concat_dims(root, axis, dims);
    for (int k = 0; ok && k < first->rank; k++)
        count *= (uint64_t)dims[k];
    graft_node *c = NULL;
    if (ok && count <= env->max_elements) {
        size_t size = dtype_size(dtype_from_name(dtype));
        unsigned char *bytes = xmalloc((size_t)count * size + 1);
        copy_concat(root, src, axis, dims, size, bytes);
        c = fold_raw_const(g, "folded_Concat", dtype, first->rank, dims, bytes, count * size);
    }
    free(src);
    return c;
}
