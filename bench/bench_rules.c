/* bench_rules.c - rule sets of any size, of the shapes real rule libraries
 * have.
 *
 * note [bench rules]: rule i uses template i % NTEMPLATES with variant
 * i / NTEMPLATES, so the set of n rules is a prefix of the set of n + 1
 * and every template appears as soon as n >= NTEMPLATES.  Variants differ
 * in ops, constants and attributes, the way a library has one rule per
 * activation, kernel size or epsilon; variant 0 of most templates matches
 * the generated models (bench_model.c), the others mostly do not, as in a
 * real library where most rules do not apply to a given model.  Every
 * rule is a distinct, valid rule: no two are equal, and rewrites shrink
 * the graph, so rewriting always reaches a fixpoint.
 */
#include <string.h>

#include "bench.h"

static const char *const acts[] = {
    "nn.relu", "sigmoid", "tanh", "exp", "erf", "sqrt", "negative", "abs",
    "nn.leaky_relu", "log", "rsqrt", "fast_tanh",
};
enum { NACTS = (int)ARRAY_LEN(acts) };

/* batch norm as SimplifyInference leaves it, per epsilon */
static void bn_eps(StrBuf *out, uint32_t i, uint32_t v)
{
    strbuf_printf(out, "bn_%u := gamma*(x-mean)/sqrt(var+%g)+beta => partition(Composite=\"bn_%u\")\n",
                  i, 1e-05 * (v + 1), i);
}

/* convolution and activation, per activation, kernel size and groups */
static void conv_act(StrBuf *out, uint32_t i, uint32_t v)
{
    static const int ks[] = {3, 1, 5, 7};
    int k = ks[(v / NACTS) % 4];
    uint32_t g = 1 + v / (NACTS * 4);
    strbuf_printf(out, "conv_act_%u := %s(nn.conv2d(x, w, groups=%u, kernel_size=[%d, %d]))\n"
                       "    => partition(Composite=\"conv_act_%u\")\n",
                  i, acts[v % NACTS], g, k, k, i);
}

/* dense, bias and activation, per activation and width */
static void dense_act(StrBuf *out, uint32_t i, uint32_t v)
{
    strbuf_printf(out, "dense_act_%u := %s(nn.bias_add(nn.dense(x, w, units=", i, acts[v % NACTS]);
    if (v >= NACTS)
        strbuf_printf(out, "%u", 64 * (v / NACTS));
    else
        strbuf_puts(out, "None");
    strbuf_printf(out, "), b)) => partition(Composite=\"dense_act_%u\")\n", i);
}

/* two clips in a row as one (exact when the ranges overlap, as here), per
 * pair of ranges */
static void clip_twice(StrBuf *out, uint32_t i, uint32_t v)
{
    double a = -1 + 0.5 * (v % 8), b = 6 + v / 8, c = a + 0.25, d = b - 0.5;
    strbuf_printf(out, "clip_%u := clip(clip(x, a_min=%g, a_max=%g), a_min=%g, a_max=%g)\n"
                       "    => clip(x, a_min=%g, a_max=%g)\n",
                  i, a, b, c, d, c, d);
}

/* Permutation number k (< n!) of n <= 4 axes, in lexicographic order. */
static void permutation(int n, uint32_t k, int *p)
{
    static const uint32_t fact[] = {1, 1, 2, 6, 24};
    int avail[4] = {0, 1, 2, 3};
    for (int j = 0; j < n; j++) {
        uint32_t f = fact[n - 1 - j];
        int pick = (int)(k / f);
        k %= f;
        p[j] = avail[pick];
        for (int t = pick; t < n - 1 - j; t++)
            avail[t] = avail[t + 1];
    }
}

static void print_axes(StrBuf *out, const int *p, int n)
{
    strbuf_putc(out, '[');
    for (int j = 0; j < n; j++)
        strbuf_printf(out, "%s%d", j ? ", " : "", p[j]);
    strbuf_putc(out, ']');
}

/* two transposes as one, per pair of permutations (3 axes, then 4); the
 * first variant is the encoder's [1, 0, 2] then [0, 2, 1] */
static void transpose_twice(StrBuf *out, uint32_t i, uint32_t v)
{
    int n = v < 36 ? 3 : 4, p[4], q[4], r[4];
    uint32_t m = n == 3 ? 6 : 24, w = v < 36 ? (v + 2 * 6 + 1) % 36 : (v - 36) % (24 * 24);
    permutation(n, w / m, p);
    permutation(n, w % m, q);
    for (int j = 0; j < n; j++)
        r[j] = p[q[j]];
    strbuf_printf(out, "transpose_%u := transpose(transpose(x, axes=", i);
    print_axes(out, p, n);
    strbuf_puts(out, "), axes=");
    print_axes(out, q, n);
    strbuf_puts(out, ") => transpose(x, axes=");
    print_axes(out, r, n);
    strbuf_puts(out, ")\n");
}

/* layer norm, per epsilon and axis */
static void layer_norm(StrBuf *out, uint32_t i, uint32_t v)
{
    strbuf_printf(out, "ln_%u := (x - m@mean(x, axis=[%d])) / sqrt(variance(x, m) + %g) * g + b\n"
                       "    => partition(Composite=\"ln_%u\")\n",
                  i, -1 - (int)(v % 3), 1e-05 * (1 + v / 3), i);
}

/* GELU in erf form, per constant */
static void gelu(StrBuf *out, uint32_t i, uint32_t v)
{
    strbuf_printf(out, "gelu_%u := x * (0.5 + erf(x * %g) * 0.5) => partition(Composite=\"gelu_%u\")\n",
                  i, 0.707107 + 0.001 * v, i);
}

/* two activations in a row with a guard on users, per pair */
static void act_pair(StrBuf *out, uint32_t i, uint32_t v)
{
    const char *a = acts[v % NACTS], *b = acts[(v / NACTS + 1 + v % NACTS) % NACTS];
    strbuf_printf(out, "act_pair_%u := %s(y@%s(x)) where users(y) == %u\n"
                       "    => partition(Composite=\"act_pair_%u\")\n",
                  i, a, b, 1 + v / (NACTS * NACTS), i);
}

typedef void (*Template)(StrBuf *out, uint32_t i, uint32_t v);
static const Template templates[] = {
    bn_eps, conv_act, dense_act, clip_twice, transpose_twice, layer_norm, gelu, act_pair,
};

void rules_generate(uint32_t n, StrBuf *out)
{
    uint32_t nt = (uint32_t)ARRAY_LEN(templates);
    strbuf_printf(out, "# %u generated rules (graft-bench rules %u)\n", n, n);
    for (uint32_t i = 0; i < n; i++)
        templates[i % nt](out, i, i / nt);
}
