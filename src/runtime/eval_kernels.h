/* eval_kernels.h - the reference evaluator's inner loops for the layers
 * (eval_kernels.c): a 2-d convolution over one image and a matrix
 * product, on plain float64 arrays.
 *
 * note [kernel order]: each output element is a sum of products, and the
 * evaluator's value of it is fixed by the order of the sum: the products
 * in ascending order of the reduction index (for a convolution: input
 * channel, then kernel row, then kernel column, the terms that fall in
 * the padding left out), added one by one into an accumulator that starts
 * at +0.  These kernels keep that order exactly, element by element, and
 * reorder only the loops around it: a convolution adds one weight times a
 * shifted row of the input into a whole row of outputs (several output
 * channels at a time), and a product adds a row of b, scaled, into a row
 * of c, or takes dot products four columns at a time.  The memory is read
 * in order and the compiler can vectorise the inner loops, and the
 * results are the same bit for bit as those of the plain loops written
 * from the ops' definitions (tests/check_eval.c compares them).
 */
#ifndef GRAFT_EVAL_KERNELS_H
#define GRAFT_EVAL_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

/* The shape of a convolution of one group of one image. */
typedef struct KernelConv {
    int64_t cin, h, w;         /* the group's input channels, rows, columns */
    int64_t cout, kh, kw;      /* the group's output channels, kernel size */
    int64_t stride[2], dil[2]; /* rows, columns */
    int64_t pad[2];            /* padding at the top and the left */
    int64_t oh, ow;            /* the output's rows and columns */
} KernelConv;

/* out (cout, oh, ow), zeroed by the caller, += the convolution of x (cin,
 * h, w) with weights w (cout, cin, kh, kw), all contiguous. */
void kernel_conv2d(const double *x, const double *w, double *out, const KernelConv *k);

/* A matrix operand: element (r, c) at data[r * row + c * col]. */
typedef struct KernelMat {
    const double *data;
    int64_t row, col; /* strides */
} KernelMat;

/* out (m, n), contiguous and zeroed by the caller, += a (m, k) times
 * b (k, n). */
void kernel_matmul(KernelMat a, KernelMat b, double *out, int64_t m, int64_t k, int64_t n);

#endif
