/* check_dims.c - the one rule of whether two dims may be equal
 * (note [dims may be equal] in src/ir/dim_symbol.h), a row per pair of
 * kinds of dim and per reading of a symbol: a number, "?" (DIM_ANY) and
 * a symbol of a graph (ONNX's dim_param "N"). */
#include <check.h>

#include "dim_symbol.h"
#include "util.h"
#include "check_main.h"

/* Two dims (numbers, DIM_ANY, or the symbols "N" and "M" of one graph:
 * SYM_N and SYM_M, made in the test) and whether they may be equal when
 * a symbol is only itself and when it may be any size. */
enum { SYM_N = -100, SYM_M = -101 };

typedef struct DimsCase {
    int64_t a, b;
    bool named; /* under DIM_SYMBOL_ITSELF */
    bool free;  /* under DIM_SYMBOL_ANY_SIZE */
} DimsCase;

static const DimsCase dims_cases[] = {
    {3, 3, true, true},              /* one number */
    {3, 4, false, false},            /* two numbers: the only pair both refuse */
    {0, 1, false, false},
    {DIM_ANY, 3, true, true},        /* "?" may be anything */
    {3, DIM_ANY, true, true},
    {DIM_ANY, DIM_ANY, true, true},
    {DIM_ANY, SYM_N, true, true},
    {SYM_N, SYM_N, true, true},      /* a symbol is itself */
    {SYM_N, SYM_M, false, true},     /* two names: one size or two */
    {SYM_N, 3, false, true},         /* a name and a number */
    {0, SYM_M, false, true},
};

/* The graph's symbols in place of SYM_N and SYM_M. */
static int64_t dim_of(graft_graph *g, int64_t d)
{
    if (d == SYM_N)
        return graph_dim_symbol(g, "N", 1);
    if (d == SYM_M)
        return graph_dim_symbol(g, "M", 1);
    return d;
}

START_TEST(dims_case)
{
    const DimsCase *c = &dims_cases[_i];
    graft_graph *g = graph_new();
    int64_t a = dim_of(g, c->a), b = dim_of(g, c->b);
    ck_assert(dim_is_symbol(a) == (c->a == SYM_N || c->a == SYM_M));
    ck_assert(dim_is_symbol(b) == (c->b == SYM_N || c->b == SYM_M));
    ck_assert_int_eq(dims_may_be_equal(a, b, DIM_SYMBOL_ITSELF), c->named);
    ck_assert_int_eq(dims_may_be_equal(a, b, DIM_SYMBOL_ANY_SIZE), c->free);
    graph_free(g);
}
END_TEST

static Suite *dims_suite(void)
{
    Suite *s = suite_create("dims");
    TCase *tc = tcase_create("may_be_equal");
    tcase_add_loop_test(tc, dims_case, 0, (int)ARRAY_LEN(dims_cases));
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(dims_suite());
}
