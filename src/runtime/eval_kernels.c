/* eval_kernels.c - the layers' inner loops (eval_kernels.h): every sum
 * in the order note [kernel order] fixes, the loops around it arranged
 * so that memory is read in order and several outputs share each load. */
#include "eval_kernels.h"

#include <stdbool.h>

enum { BLOCK = 4 }; /* outputs that share a load: output channels, rows, columns */

/* The outputs [*lo, *hi) of n whose input index out * stride + off lies
 * in [0, size): the rest read the padding, which adds nothing. */
static void inside(int64_t off, int64_t stride, int64_t size, int64_t n, int64_t *lo, int64_t *hi)
{
    int64_t first = off >= 0 ? 0 : (-off + stride - 1) / stride;
    int64_t end = size - 1 - off < 0 ? 0 : (size - 1 - off) / stride + 1;
    *hi = end < n ? end : n;
    *lo = first < *hi ? first : *hi;
}

/* out[b][j] += x[j * stride] * wv[b] for b < nb and j < n. */
static void add_scaled_row(double *const *out, int nb, const double *restrict x, int64_t stride,
                           const double *wv, int64_t n)
{
    if (nb == BLOCK) {
        double *restrict o0 = out[0], *restrict o1 = out[1];
        double *restrict o2 = out[2], *restrict o3 = out[3];
        double w0 = wv[0], w1 = wv[1], w2 = wv[2], w3 = wv[3];
        if (stride == 1)
            for (int64_t j = 0; j < n; j++) {
                double v = x[j];
                o0[j] += v * w0, o1[j] += v * w1, o2[j] += v * w2, o3[j] += v * w3;
            }
        else
            for (int64_t j = 0; j < n; j++) {
                double v = x[j * stride];
                o0[j] += v * w0, o1[j] += v * w1, o2[j] += v * w2, o3[j] += v * w3;
            }
        return;
    }
    for (int b = 0; b < nb; b++) {
        double *restrict o = out[b];
        for (int64_t j = 0; j < n; j++)
            o[j] += x[j * stride] * wv[b];
    }
}

/* Output channels [o0, o0 + nb): for each input channel, kernel row and
 * kernel column in turn, the weight times the input rows it meets. */
static void conv_block(const double *x, const double *w, double *out, const KernelConv *k,
                       int64_t o0, int nb)
{
    int64_t taps = k->cin * k->kh * k->kw, plane = k->oh * k->ow;
    for (int64_t ci = 0; ci < k->cin; ci++)
        for (int64_t ki = 0; ki < k->kh; ki++) {
            int64_t row_off = ki * k->dil[0] - k->pad[0], i0, i1;
            inside(row_off, k->stride[0], k->h, k->oh, &i0, &i1);
            for (int64_t kj = 0; kj < k->kw; kj++) {
                int64_t col_off = kj * k->dil[1] - k->pad[1], j0, j1;
                inside(col_off, k->stride[1], k->w, k->ow, &j0, &j1);
                double wv[BLOCK];
                for (int b = 0; b < nb; b++)
                    wv[b] = w[(o0 + b) * taps + (ci * k->kh + ki) * k->kw + kj];
                /* rows that meet end to end in the input and the output
                 * (a 1 x 1 kernel, a centre column) are one long row */
                bool whole = k->stride[0] == 1 && k->stride[1] == 1 && k->w == k->ow &&
                             j0 == 0 && j1 == k->ow;
                for (int64_t i = i0; i < i1; i += whole ? i1 - i0 : 1) {
                    const double *in = x + (ci * k->h + i * k->stride[0] + row_off) * k->w;
                    double *rows[BLOCK];
                    for (int b = 0; b < nb; b++)
                        rows[b] = out + (o0 + b) * plane + i * k->ow + j0;
                    if (j0 < j1) /* output column j reads in[j * stride + col_off] */
                        add_scaled_row(rows, nb, in + j0 * k->stride[1] + col_off,
                                       k->stride[1], wv, whole ? (i1 - i0) * k->ow : j1 - j0);
                }
            }
        }
}

void kernel_conv2d(const double *x, const double *w, double *out, const KernelConv *k)
{
    for (int64_t o0 = 0; o0 < k->cout; o0 += BLOCK)
        conv_block(x, w, out, k, o0, k->cout - o0 < BLOCK ? (int)(k->cout - o0) : BLOCK);
}

static double at(KernelMat a, int64_t r, int64_t c)
{
    return a.data[r * a.row + c * a.col];
}

/* Rows [i0, i0 + nb) of out: row t of b, scaled by a(i, t), added in
 * for t = 0, 1, ... (b's rows contiguous). */
static void rows_by_axpy(KernelMat a, KernelMat b, double *out, int64_t i0, int nb, int64_t k,
                         int64_t n)
{
    double *rows[BLOCK];
    for (int r = 0; r < nb; r++)
        rows[r] = out + (i0 + r) * n;
    for (int64_t t = 0; t < k; t++) {
        double av[BLOCK];
        for (int r = 0; r < nb; r++)
            av[r] = at(a, i0 + r, t);
        add_scaled_row(rows, nb, b.data + t * b.row, 1, av, n);
    }
}

/* Row i of out by dot products, BLOCK columns at a time. */
static void row_by_dots(KernelMat a, KernelMat b, double *out, int64_t i, int64_t k, int64_t n)
{
    const double *ar = a.data + i * a.row;
    int64_t j = 0;
    for (; j + BLOCK <= n; j += BLOCK) {
        const double *b0 = b.data + j * b.col, *b1 = b0 + b.col, *b2 = b1 + b.col;
        const double *b3 = b2 + b.col;
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (int64_t t = 0; t < k; t++) {
            double v = ar[t * a.col];
            s0 += v * b0[t * b.row], s1 += v * b1[t * b.row];
            s2 += v * b2[t * b.row], s3 += v * b3[t * b.row];
        }
        out[i * n + j] = s0, out[i * n + j + 1] = s1;
        out[i * n + j + 2] = s2, out[i * n + j + 3] = s3;
    }
    for (; j < n; j++) {
        double s = 0;
        for (int64_t t = 0; t < k; t++)
            s += ar[t * a.col] * at(b, t, j);
        out[i * n + j] = s;
    }
}

void kernel_matmul(KernelMat a, KernelMat b, double *out, int64_t m, int64_t k, int64_t n)
{
    if (b.col == 1) {
        for (int64_t i0 = 0; i0 < m; i0 += BLOCK)
            rows_by_axpy(a, b, out, i0, m - i0 < BLOCK ? (int)(m - i0) : BLOCK, k, n);
        return;
    }
    for (int64_t i = 0; i < m; i++)
        row_by_dots(a, b, out, i, k, n);
}
