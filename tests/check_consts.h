/* check_consts.h - the tensor constants a Check test's model carries,
 * given to the reference evaluator as its constant callback (the tests
 * that evaluate one-node ONNX models: check_onnx_contrib.c,
 * check_onnx_control.c). */
#ifndef GRAFT_CHECK_CONSTS_H
#define GRAFT_CHECK_CONSTS_H

#include <check.h>

#include "eval.h"

/* The values of the tensor constants the evaluator asks for. */
typedef struct Consts {
    Tensor t[16];
    int n;
} Consts;

static const Tensor *constant(void *ctx, const graft_node *n)
{
    Consts *cs = ctx;
    size_t nbytes;
    const unsigned char *bytes = node_const_data(n, &nbytes);
    const graft_type *type = node_type(n);
    const char *dtype = type ? eval_dtype(type->dtype) : NULL;
    ck_assert_msg(bytes && dtype && cs->n < 16, "constant %s has no value", node_const_text(n));
    Tensor *t = &cs->t[cs->n++];
    *t = tensor_new(dtype, type->rank, type->dims);
    int size = (int)(nbytes / (t->size ? t->size : 1));
    for (size_t i = 0; i < t->size; i++)
        t->data[i] = eval_raw_element(bytes + i * (size_t)size, dtype, size);
    return t;
}

#endif
