/* check_graph.c - the graph IR API: builders, users lists under edits,
 * topological order, dead-node removal, functions, types, node size and layout. */
#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dim_symbol.h"
#include "dtype.h"
#include "graph.h"
#include "graph_impl.h"
#include "keymap.h"
#include "relay.h"
#include "util.h"
#include "check_main.h"

/* a chain x -> add(x, 1f) -> relu -> output */
typedef struct Small {
    graft_graph *g;
    graft_node *x, *one, *add, *relu;
} Small;

static Small small_new(void)
{
    Small s;
    s.g = graph_new();
    s.x = graph_add_param(s.g, "x", NULL);
    s.one = graph_add_const(s.g, "1f", 1.0, "float32");
    graft_node *args[2] = {s.x, s.one};
    s.add = graph_add_call(s.g, "add", args, 2, NULL, 0);
    s.relu = graph_add_call(s.g, "nn.relu", &s.add, 1, NULL, 0);
    graph_set_output(s.g, s.relu);
    return s;
}

/* x, then n calls of nn.relu each reading the last; returns the last
 * node (x itself when n is 0). */
static graft_node *relu_chain(graft_graph *g, graft_node *x, int n)
{
    for (int i = 0; i < n; i++)
        x = graph_add_call(g, "nn.relu", &x, 1, NULL, 0);
    return x;
}

/* @main's parameter x and fn (%p) { negative(%p) }, the function named
 * PartitionedFromPattern=pfp when pfp is not NULL; nothing calls it yet. */
typedef struct FnGraph {
    graft_graph *g;
    graft_node *x, *p, *neg, *fn;
} FnGraph;

static FnGraph fn_graph_new(const char *pfp)
{
    FnGraph f;
    f.g = graph_new();
    f.x = graph_add_param(f.g, "x", NULL);
    f.p = graph_add_fn_param(f.g, "p", NULL);
    f.neg = graph_add_call(f.g, "negative", &f.p, 1, NULL, 0);
    graft_attr a = {"PartitionedFromPattern", NULL};
    if (pfp) {
        graft_attr_value *v = graph_new_attr_value(f.g, GRAFT_ATTR_STRING);
        v->s = graph_intern(f.g, pfp);
        a.value = v;
    }
    f.fn = graph_add_func(f.g, &f.p, 1, f.neg, &a, pfp ? 1 : 0);
    return f;
}

/* The users of n as "id:slot" pairs joined by spaces. */
static char *users_of(const graft_node *n)
{
    static char buf[256];
    buf[0] = '\0';
    for (int k = node_user_first(n); k < node_user_end(n); k = node_user_next(n, k)) {
        size_t len = strlen(buf);
        snprintf(buf + len, sizeof buf - len, "%s%u:%d", len ? " " : "",
                 node_id(node_user(n, k)), node_user_operand(n, k));
    }
    return buf;
}

/* g prints as want. */
static void assert_prints(const graft_graph *g, const char *want)
{
    char *text = relay_print_string(g);
    ck_assert_str_eq(text, want);
    free(text);
}

/* graph_reached marks what graph_topo_ids lists, no more (note [reached
 * by a sweep] in src/ir/graph_walk.c). */
static void assert_reached(const graft_graph *g)
{
    uint32_t count = graph_node_count(g);
    uint8_t *reached = calloc(count + 1, 1), *listed = calloc(count + 1, 1);
    uint32_t *ids = malloc((count + 1) * sizeof *ids);
    uint32_t n = graph_topo_ids(g, ids);
    for (uint32_t i = 0; i < n; i++)
        listed[ids[i]] = 1;
    graph_reached(g, reached);
    for (uint32_t id = 0; id < count; id++)
        ck_assert_uint_eq(reached[id], listed[id]);
    memset(reached, 0, count + 1);
    if (graph_reached_by_ids(g, reached)) /* every child below its node */
        for (uint32_t id = 0; id < count; id++)
            ck_assert_uint_eq(reached[id], listed[id]);
    free(ids);
    free(listed);
    free(reached);
}

/* The depth-first post-order of note [node walk] written the plain way,
 * as the reference the graph's walks are checked against: from each of
 * graph_roots in turn, children in graph_child's order up to the first
 * missing one, each node once.  An explicit stack of (node, next child),
 * so that the million-node chain needs no deep recursion.  Returns the
 * count stored in order. */
static uint32_t reference_order(const graft_graph *g, graft_node **order)
{
    uint32_t count = graph_node_count(g), n = 0, depth = 0;
    uint8_t *seen = calloc(count ? count : 1, 1);
    graft_node **stack = malloc((count + 1) * sizeof *stack);
    int *next = malloc((count + 1) * sizeof *next);
    graft_node **roots = graph_roots(g);
    for (graft_node **r = roots; *r; r++) {
        if (seen[node_id(*r)])
            continue;
        seen[node_id(*r)] = 1;
        stack[0] = *r, next[0] = 0, depth = 1;
        while (depth) {
            graft_node *c = graph_child(stack[depth - 1], next[depth - 1]++);
            if (!c)
                order[n++] = stack[--depth];
            else if (!seen[node_id(c)])
                seen[node_id(c)] = 1, stack[depth] = c, next[depth++] = 0;
        }
    }
    free(roots);
    free(next);
    free(stack);
    free(seen);
    return n;
}

/* graph_topo_order and graph_walk_next both give reference_order's
 * nodes in its order; returns the NODE_FUNCs the walk counted. */
static uint32_t assert_walk(const graft_graph *g)
{
    graft_node **want = malloc((graph_node_count(g) + 1) * sizeof *want);
    graft_node **order = malloc((graph_node_count(g) + 1) * sizeof *order);
    uint32_t n = reference_order(g, want), i = 0;
    ck_assert_uint_eq(graph_topo_order(g, order), n);
    ck_assert_int_eq(memcmp(order, want, n * sizeof *order), 0);
    GraphWalk w;
    graph_walk_start(g, &w);
    for (graft_node *x; (x = graph_walk_next(&w)); i++) {
        ck_assert_uint_lt(i, n);
        ck_assert_ptr_eq(x, want[i]);
    }
    ck_assert_uint_eq(i, n);
    uint32_t funcs = w.nfuncs;
    graph_walk_end(&w);
    free(order);
    free(want);
    return funcs;
}

/* g's topological order is want[0..n), as nodes and as ids. */
static void assert_order(const graft_graph *g, graft_node *const *want, uint32_t n)
{
    assert_reached(g);
    assert_walk(g);
    graft_node **order = malloc((graph_node_count(g) + 1) * sizeof *order);
    uint32_t *ids = malloc((graph_node_count(g) + 1) * sizeof *ids);
    ck_assert_uint_eq(graph_topo_order(g, order), n);
    ck_assert_uint_eq(graph_topo_ids(g, ids), n);
    for (uint32_t i = 0; i < n; i++) {
        ck_assert_ptr_eq(order[i], want[i]);
        ck_assert_uint_eq(ids[i], node_id(want[i]));
    }
    free(ids);
    free(order);
}

START_TEST(test_build_and_access)
{
    Small s = small_new();
    ck_assert_int_eq(graph_node_count(s.g), 4);
    ck_assert_int_eq(node_kind(s.add), NODE_CALL);
    ck_assert_str_eq(node_op(s.add), "add");
    ck_assert_ptr_eq(node_op(s.add), graph_intern(s.g, "add"));
    ck_assert_int_eq(node_nargs(s.add), 2);
    ck_assert_ptr_eq(node_arg(s.add, 0), s.x);
    ck_assert_ptr_eq(node_arg(s.add, 1), s.one);
    ck_assert_str_eq(node_name(s.x), "x");
    ck_assert_str_eq(node_const_text(s.one), "1f");
    ck_assert(node_const_is_scalar(s.one));
    ck_assert(node_const_value(s.one) == 1.0);
    ck_assert_str_eq(node_const_dtype(s.one), "float32");
    ck_assert_ptr_null(node_callee(s.add));
    ck_assert_ptr_null(node_scope(s.g, s.add));
    ck_assert_int_eq(graph_nparams(s.g), 1);
    ck_assert_ptr_eq(graph_param(s.g, 0), s.x);
    ck_assert_ptr_eq(graph_node(s.g, 2), s.add);
    ck_assert_ptr_null(graph_node(s.g, 99));
    ck_assert_str_eq(users_of(s.x), "2:0");
    ck_assert_str_eq(users_of(s.add), "3:0");
    ck_assert_int_eq(node_nusers(s.relu), 0);
    graph_free(s.g);
}
END_TEST

START_TEST(test_attrs)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL);
    graft_attr_value *axis = graph_new_attr_value(g, GRAFT_ATTR_INT);
    axis->i = -1;
    graft_attr_value *layout = graph_new_attr_value(g, GRAFT_ATTR_STRING);
    layout->s = graph_intern(g, "NCHW");
    graft_attr attrs[2] = {{"axis", axis}, {"layout", layout}};
    graft_node *n = graph_add_call(g, "nn.softmax", &x, 1, attrs, 2);
    ck_assert_int_eq(node_nattrs(n), 2);
    ck_assert_str_eq(node_attr(n, 1)->name, "layout");
    ck_assert_ptr_eq(node_find_attr(n, "axis"), axis);
    ck_assert_ptr_null(node_find_attr(n, "units"));
    graph_set_output(g, n);
    assert_prints(g, "def @main(%x) {\n"
                     "  nn.softmax(%x, axis=-1, layout=\"NCHW\")\n}\n");
    graph_free(g);
}
END_TEST

static graft_attr_value *num(graft_graph *g, graft_attr_kind kind, double v)
{
    graft_attr_value *a = graph_new_attr_value(g, kind);
    a->f = v;
    a->i = (int64_t)v;
    return a;
}

/* TVM leaves out an attribute equal to its default by StructuralEqual,
 * whose doubles compare with BaseValueEqual (tvm/include/tvm/node/
 * structural_equal.h): equal within an absolute 1e-9.  So the float32
 * epsilon TVM's importers write (9.99999974738e-06) is the default 1e-05,
 * and 1.1e-05 is not; ints and floats compare by value. */
START_TEST(test_attr_equality)
{
    graft_graph *g = graph_new();
    const graft_attr_value *dflt = num(g, GRAFT_ATTR_FLOAT, 1e-05);
    ck_assert(attr_value_equal(num(g, GRAFT_ATTR_FLOAT, (double)1e-05f), dflt));
    ck_assert(attr_value_equal(num(g, GRAFT_ATTR_FLOAT, 1e-05 + 0.9e-9), dflt));
    ck_assert(!attr_value_equal(num(g, GRAFT_ATTR_FLOAT, 1e-05 + 1.1e-9), dflt));
    ck_assert(!attr_value_equal(num(g, GRAFT_ATTR_FLOAT, 1.1e-05), dflt));
    ck_assert(attr_value_equal(num(g, GRAFT_ATTR_INT, 1), num(g, GRAFT_ATTR_FLOAT, 1.0)));
    ck_assert(!attr_value_equal(num(g, GRAFT_ATTR_INT, 0), num(g, GRAFT_ATTR_INT, 1)));
    graft_attr_value *nan1 = num(g, GRAFT_ATTR_FLOAT, 0), *nan2 = num(g, GRAFT_ATTR_FLOAT, 0);
    nan1->f = nan2->f = __builtin_nan("");
    ck_assert(attr_value_equal(nan1, nan2));
    ck_assert(!attr_value_equal(nan1, dflt));
    graft_attr_value *s1 = graph_new_attr_value(g, GRAFT_ATTR_STRING), *s2 = graph_new_attr_value(g, GRAFT_ATTR_STRING);
    s1->s = "NCHW";
    s2->s = "NHWC";
    ck_assert(!attr_value_equal(s1, s2));
    ck_assert(attr_value_equal(s1, s1));
    ck_assert(!attr_value_equal(s1, graph_new_attr_value(g, GRAFT_ATTR_NULL)));
    ck_assert(attr_value_equal(graph_new_attr_value(g, GRAFT_ATTR_NULL),
                               graph_new_attr_value(g, GRAFT_ATTR_NULL)));
    graft_attr_value *l1 = graph_new_attr_value(g, GRAFT_ATTR_LIST), *l2 = graph_new_attr_value(g, GRAFT_ATTR_LIST);
    const graft_attr_value *ones[] = {num(g, GRAFT_ATTR_INT, 1), num(g, GRAFT_ATTR_INT, 1)};
    const graft_attr_value *onetwo[] = {num(g, GRAFT_ATTR_INT, 1), num(g, GRAFT_ATTR_INT, 2)};
    l1->nitems = l2->nitems = 2;
    l1->items = ones;
    l2->items = onetwo;
    ck_assert(attr_value_equal(l1, l1));
    ck_assert(!attr_value_equal(l1, l2));
    l2->nitems = 1;
    ck_assert(!attr_value_equal(l1, l2));
    graph_free(g);
}
END_TEST

/* note [module roots]: another global function's nodes are walked after
 * @main's, kept alive by graph_remove_dead, and printed as "def @f" in
 * TVM's order (by name, temps numbered on); a let, an if and an op value
 * print as TVM prints them. */
START_TEST(test_global_functions)
{
    FnGraph fg = fn_graph_new(NULL);
    graft_graph *g = fg.g;
    graft_node *x = fg.x, *neg = fg.neg, *f = fg.fn;
    ck_assert(graph_add_global(g, "main", NULL));
    ck_assert(graph_add_global(g, "f", f));
    ck_assert(!graph_add_global(g, "f", f));
    graft_node *call = graph_add_fn_call(g, graph_global_ref(g, "f"), &x, 1);
    graft_node *v = graph_add_fn_param(g, "v", NULL);
    graft_node *cond = graph_add_call(g, "less", (graft_node *[]){x, v}, 2, NULL, 0);
    graft_node *ops = graph_add_tuple(g, (graft_node *[]){graph_add_opref(g, "add"), v}, 2);
    graft_node *branch = graph_add_if(g, cond, ops, v);
    graph_set_output(g, graph_add_let(g, v, call, branch));
    ck_assert_int_eq(graph_remove_dead(g), 0);
    graft_node **order = malloc(graph_node_count(g) * sizeof *order);
    uint32_t n = graph_topo_order(g, order);
    ck_assert_ptr_eq(order[n - 1], f); /* after @main's nodes */
    ck_assert_uint_eq(assert_walk(g), 1); /* @f's function, a root */
    ck_assert_int_eq(graph_global_of(g, neg), 1);
    ck_assert_int_eq(graph_global_of(g, cond), 0);
    free(order);
    assert_prints(g, "def @f(%p) {\n"
                     "  negative(%p)\n"
                     "}\n"
                     "\n"
                     "def @main(%x) {\n"
                     "  let %v = @f(%x);\n"
                     "  %0 = less(%x, %v);\n"
                     "  if (%0) {\n"
                     "    (add, %v)\n"
                     "  } else {\n"
                     "    %v\n"
                     "  }\n"
                     "}\n");
    graph_free(g);
}
END_TEST

/* @main's function made by graph_add_main (note [main unscoped]) or by
 * graph_add_func, with a function nested in its body. */
static graft_graph *main_with_nested_fn(bool unscoped)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_fn_param(g, "x", NULL);
    graft_node *p = graph_add_fn_param(g, "p", NULL);
    graft_node *neg = graph_add_call(g, "negative", &p, 1, NULL, 0);
    graft_node *fn = graph_add_func(g, &p, 1, neg, NULL, 0);
    graft_node *call = graph_add_fn_call(g, fn, &x, 1);
    graft_node *out = graph_add_call(g, "nn.relu", &call, 1, NULL, 0);
    graft_node *main = unscoped ? graph_add_main(g, &x, 1, out, NULL, 0)
                                : graph_add_func(g, &x, 1, out, NULL, 0);
    ck_assert(graph_add_global(g, "main", main));
    graph_make_main(g, main);
    return g;
}

/* Once graph_make_main has run, both are the same graph: every node in
 * the same scope (the nested function's body in it, the rest in
 * @main's), the same parameters, the same text. */
/* note [scope table] in graph_node.h: a graph whose nodes are all in
 * @main has no table (putting a node in @main's scope makes none); the
 * first node put in a function makes it, covering every id; a node made
 * after it reads @main's scope until it is put in one, which grows the
 * table over it. */
START_TEST(test_scope_table)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL);
    graft_node *neg = graph_add_call(g, "negative", &x, 1, NULL, 0);
    size_t before = graph_bytes(g);
    graph_set_scope(g, neg, NULL);
    ck_assert_uint_eq(graph_bytes(g), before);
    ck_assert_ptr_null(node_scope(g, neg));
    graft_node *p = graph_add_fn_param(g, "p", NULL);
    graft_node *fn = graph_add_func(g, &p, 1, p, NULL, 0);
    ck_assert_ptr_eq(node_scope(g, p), fn);
    ck_assert_ptr_null(node_scope(g, fn));
    ck_assert_ptr_null(node_scope(g, neg));
    ck_assert_ptr_eq(graph_node(g, node_id(fn)), fn);
    ck_assert_ptr_null(graph_node(g, graph_node_count(g)));
    graft_node *late = x;
    for (int i = 0; i < 100; i++) /* past the node table's capacity */
        late = graph_add_call(g, "nn.relu", &late, 1, NULL, 0);
    ck_assert_ptr_null(node_scope(g, late));
    graph_set_scope(g, late, fn);
    ck_assert_ptr_eq(node_scope(g, late), fn);
    ck_assert_ptr_eq(node_scope(g, p), fn);
    ck_assert_ptr_null(node_scope(g, graph_node(g, node_id(late) - 1)));
    graph_set_scope(g, p, NULL);
    ck_assert_ptr_null(node_scope(g, p));
    graph_free(g);
}
END_TEST

START_TEST(test_main_unscoped)
{
    graft_graph *a = main_with_nested_fn(false), *b = main_with_nested_fn(true);
    ck_assert_uint_eq(graph_node_count(a), 7);
    ck_assert_uint_eq(graph_node_count(b), 7);
    for (uint32_t id = 0; id < 7; id++) {
        const graft_node *sa = node_scope(a, graph_node(a, id));
        const graft_node *sb = node_scope(b, graph_node(b, id));
        ck_assert_int_eq(sa ? (int)node_id(sa) : -1, sb ? (int)node_id(sb) : -1);
    }
    ck_assert_ptr_eq(node_scope(b, graph_node(b, 1)), graph_node(b, 3)); /* %p in fn */
    ck_assert_ptr_eq(node_scope(b, graph_node(b, 2)), graph_node(b, 3)); /* negative in fn */
    ck_assert_ptr_null(node_scope(b, graph_node(b, 0)));                 /* %x */
    ck_assert_ptr_null(node_scope(b, graph_node(b, 4)));                 /* the call */
    ck_assert_ptr_null(node_scope(b, graph_node(b, 5)));                 /* the output */
    ck_assert_int_eq(graph_nparams(b), 1);
    ck_assert_ptr_eq(graph_param(b, 0), graph_node(b, 0));
    ck_assert_ptr_eq(graph_output(b), graph_node(b, 5));
    const char *text = "def @main(%x) {\n"
                       "  %0 = fn (%p) {\n"
                       "    negative(%p)\n"
                       "  };\n"
                       "  %1 = %0(%x);\n"
                       "  nn.relu(%1)\n"
                       "}\n";
    assert_prints(a, text);
    assert_prints(b, text);
    graph_free(a);
    graph_free(b);
}
END_TEST

START_TEST(test_set_arg_keeps_users)
{
    Small s = small_new();
    graft_node *y = graph_add_param(s.g, "y", NULL);
    graph_set_arg(s.g, s.add, 0, y);
    ck_assert_int_eq(node_nusers(s.x), 0);
    ck_assert_str_eq(users_of(y), "2:0");
    graph_set_arg(s.g, s.add, 1, y);
    ck_assert_str_eq(users_of(y), "2:0 2:1");
    ck_assert_int_eq(node_nusers(s.one), 0);
    graph_free(s.g);
}
END_TEST

START_TEST(test_replace_all_uses)
{
    Small s = small_new();
    graft_node *twice = graph_add_call(s.g, "add", (graft_node *[]){s.x, s.x}, 2, NULL, 0);
    graph_replace_all_uses(s.g, s.add, twice);
    ck_assert_ptr_eq(node_arg(s.relu, 0), twice);
    ck_assert_int_eq(node_nusers(s.add), 0);
    ck_assert_str_eq(users_of(twice), "3:0");
    /* wrapping: the new node's own use of the old one stays */
    graft_node *neg = graph_add_call(s.g, "negative", &s.relu, 1, NULL, 0);
    graph_replace_all_uses(s.g, s.relu, neg);
    ck_assert_ptr_eq(graph_output(s.g), neg);
    ck_assert_ptr_eq(node_arg(neg, 0), s.relu);
    graph_free(s.g);
}
END_TEST

START_TEST(test_remove_dead)
{
    Small s = small_new();
    graft_node *twice = graph_add_call(s.g, "add", (graft_node *[]){s.x, s.x}, 2, NULL, 0);
    graph_replace_all_uses(s.g, s.add, twice);
    ck_assert_str_eq(users_of(s.x), "2:0 4:0 4:1");
    ck_assert_uint_eq(graph_remove_dead(s.g), 2); /* add and 1f */
    ck_assert(node_is_dead(s.add));
    ck_assert(node_is_dead(s.one));
    ck_assert(!node_is_dead(s.x));
    ck_assert_str_eq(users_of(s.x), "4:0 4:1");
    ck_assert_uint_eq(graph_remove_dead(s.g), 0);
    graph_free(s.g);
}
END_TEST

START_TEST(test_topo_order)
{
    /* a diamond: t = (relu(x), neg(x)); out = add(t.0, t.1) */
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL);
    graft_node *r = graph_add_call(g, "nn.relu", &x, 1, NULL, 0);
    graft_node *n = graph_add_call(g, "negative", &x, 1, NULL, 0);
    graft_node *t = graph_add_tuple(g, (graft_node *[]){r, n}, 2);
    graft_node *a = graph_add_getitem(g, t, 0);
    graft_node *b = graph_add_getitem(g, t, 1);
    graft_node *out = graph_add_call(g, "add", (graft_node *[]){a, b}, 2, NULL, 0);
    graph_set_output(g, out);
    assert_order(g, (graft_node *[]){x, r, n, t, a, b, out}, 7);
    ck_assert_uint_eq(assert_walk(g), 0);
    ck_assert_int_eq(node_index(b), 1);
    graph_free(g);
}
END_TEST

/* Leaves, handed out by the walk as they are entered (note [node walk]
 * in src/ir/graph_walk.c): the output itself, and a tuple reading one
 * parameter twice and a constant. */
START_TEST(test_walk_leaves)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL);
    graft_node *c = graph_add_const(g, "1f", 1.0, "float32");
    graph_set_output(g, x);
    assert_order(g, (graft_node *[]){x}, 1);
    graft_node *t = graph_add_tuple(g, (graft_node *[]){x, x, c}, 3);
    graph_set_output(g, t);
    assert_order(g, (graft_node *[]){x, c, t}, 3);
    graph_free(g);
}
END_TEST

/* fn (%p) { negative(%p) } called on %x */
START_TEST(test_functions)
{
    FnGraph f = fn_graph_new("negative_");
    graft_graph *g = f.g;
    graft_node *x = f.x, *p = f.p, *neg = f.neg, *fn = f.fn;
    graft_node *call = graph_add_fn_call(g, fn, &x, 1);
    graph_set_output(g, call);
    ck_assert_ptr_eq(node_callee(call), fn);
    ck_assert_ptr_null(node_op(call));
    ck_assert_str_eq(users_of(fn), "4:-1");
    ck_assert_ptr_eq(node_scope(g, neg), fn);
    ck_assert_ptr_eq(node_scope(g, p), fn);
    ck_assert_ptr_null(node_scope(g, x));
    ck_assert_int_eq(node_nparams(fn), 1);
    ck_assert_ptr_eq(node_body(fn), neg);
    assert_order(g, (graft_node *[]){p, neg, fn, x, call}, 5);
    ck_assert_uint_eq(assert_walk(g), 1); /* fn, entered as the callee */
    /* replacing the body result updates the function */
    graft_node *relu = graph_add_call(g, "nn.relu", &p, 1, NULL, 0);
    graph_replace_all_uses(g, neg, relu);
    ck_assert_ptr_eq(node_body(fn), relu);
    ck_assert_uint_eq(graph_remove_dead(g), 1);
    ck_assert(node_is_dead(neg));
    /* the body now has a larger id than its function; dead neg is left out */
    assert_order(g, (graft_node *[]){p, relu, fn, x, call}, 5);
    assert_prints(g, "def @main(%x) {\n"
                     "  %0 = fn (%p, PartitionedFromPattern=\"negative_\") {\n"
                     "    nn.relu(%p)\n"
                     "  };\n"
                     "  %0(%x)\n}\n");
    graph_free(g);
}
END_TEST

/* A function that loses its last call dies with its body and params;
 * a callee can be swapped through slot USE_CALLEE. */
START_TEST(test_dead_function)
{
    FnGraph f = fn_graph_new(NULL);
    graft_graph *g = f.g;
    graft_node *x = f.x, *p = f.p, *body = f.neg, *fn = f.fn;
    graft_node *q = graph_add_fn_param(g, "q", NULL);
    graft_node *fn2 = graph_add_func(g, &q, 1, q, NULL, 0);
    graft_node *call = graph_add_fn_call(g, fn, &x, 1);
    graph_set_output(g, call);
    graph_set_arg(g, call, USE_CALLEE, fn2);
    ck_assert_ptr_eq(node_callee(call), fn2);
    ck_assert_int_eq(node_nusers(fn), 0);
    ck_assert_str_eq(users_of(fn2), "6:-1");
    ck_assert_uint_eq(graph_remove_dead(g), 3); /* p, negative, fn */
    ck_assert(node_is_dead(fn) && node_is_dead(body) && node_is_dead(p));
    assert_order(g, (graft_node *[]){q, fn2, x, call}, 4);
    ck_assert_int_eq(node_nusers(p), 0);
    assert_prints(g, "def @main(%x) {\n  %0 = fn (%q) {\n    %q\n  };\n"
                     "  %0(%x)\n}\n");
    ck_assert_uint_ge(graph_bytes(g), 7 * graph_node_size());
    graph_free(g);
}
END_TEST

START_TEST(test_types)
{
    graft_graph *g = graph_new();
    size_t used;
    const char *text = "Tensor[(1, 3, ?, 224), float32] rest";
    const graft_type *t = graph_parse_type(g, text, strlen(text), &used);
    ck_assert_int_eq(t->kind, TYPE_TENSOR);
    ck_assert_int_eq(t->rank, 4);
    ck_assert_int_eq(t->dims[2], DIM_ANY);
    ck_assert_int_eq(t->dims[3], 224);
    ck_assert_str_eq(t->dtype, "float32");
    ck_assert_str_eq(t->text, "Tensor[(1, 3, ?, 224), float32]");
    ck_assert_uint_eq(used, 31);
    const char *tup = "(Tensor[(64), float32], (int64,))";
    t = graph_parse_type(g, tup, strlen(tup), &used);
    ck_assert_int_eq(t->kind, TYPE_TUPLE);
    ck_assert_int_eq(t->nfields, 2);
    ck_assert_int_eq(t->fields[1]->kind, TYPE_TUPLE);
    ck_assert_int_eq(t->fields[1]->fields[0]->rank, 0);
    ck_assert_str_eq(t->text, tup);
    t = graph_annotation_type(g, "/* ty=float32 span=aten::add_0:0:0 */");
    ck_assert_str_eq(t->dtype, "float32");
    t = graph_annotation_type(g, "/* ty=fn (float32) -> float32 */");
    ck_assert_int_eq(t->kind, TYPE_OTHER);
    ck_assert_str_eq(t->text, "fn (float32) -> float32");
    ck_assert_ptr_null(graph_annotation_type(g, "/* span=x */"));
    const graft_type *a = graph_type_tensor(g, "int8", (int64_t[]){2, 2}, 2);
    const graft_type *b = graph_parse_type(g, "Tensor[(2, 2), int8]", 20, NULL);
    ck_assert(type_equal(a, b));
    ck_assert(!type_equal(a, graph_type_tensor(g, "int8", (int64_t[]){2}, 1)));
    graph_free(g);
}
END_TEST

/* note [canonical pointers] and [scalar types]: an interned string or a
 * copy of it interns to the same pointer, whatever the length (the hash
 * takes eight bytes at a step); scalar types are shared per dtype; the
 * tables graph_reserve sizes still grow past the reservation. */
START_TEST(test_interning_and_reserve)
{
    graft_graph *g = graph_new();
    const char *conv = graph_intern(g, "nn.conv2d");
    char copy[] = "nn.conv2d";
    ck_assert_ptr_eq(graph_intern(g, copy), conv);
    ck_assert_ptr_eq(graph_intern(g, conv), conv);
    ck_assert_ptr_eq(graph_intern_n(g, "nn.conv2d_transpose", 9), conv);
    ck_assert_ptr_ne(graph_intern(g, "nn.conv2d_transpose"), conv);
    ck_assert_ptr_ne(graph_intern(g, "nn.conv2e"), conv);
    const char *empty = graph_intern_n(g, "x", 0);
    ck_assert_str_eq(empty, "");
    ck_assert_ptr_eq(graph_intern(g, ""), empty);
    const graft_type *f32 = graph_type_tensor(g, "float32", NULL, 0);
    char dtype[] = "float32";
    ck_assert_ptr_eq(graph_type_tensor(g, dtype, NULL, 0), f32);
    ck_assert_int_eq(f32->kind, TYPE_TENSOR);
    ck_assert_int_eq(f32->rank, 0);
    ck_assert_str_eq(f32->text, "float32");
    ck_assert_ptr_ne(graph_type_tensor(g, "int64", NULL, 0), f32);
    graph_reserve(g, 100);
    ck_assert_uint_eq(graph_node_count(g), 0);
    graft_node *x = graph_add_param(g, "x", NULL);
    x = relu_chain(g, x, 300);
    graph_set_pos(g, x, 7, 3);
    ck_assert_int_eq(node_line(g, x), 7);
    ck_assert_int_eq(node_col(g, x), 3);
    ck_assert_int_eq(node_line(g, graph_node(g, 150)), 0);
    ck_assert_uint_eq(graph_node_count(g), 301);
    graph_free(g);
}
END_TEST

/* note [node table] in graph.c: graph_fit_nodes sizes the node table to
 * exactly the room asked for (graph_bytes counts it), shrinking a
 * reservation too large, and the table grows past it with every node
 * still found by id; a parameter made from an interned name keeps that
 * pointer and interns nothing (note [parameter names] in
 * src/runtime/partition_name.c). */
START_TEST(test_fit_nodes)
{
    graft_graph *g = graph_new();
    graph_reserve(g, 100);
    graft_node *x = graph_add_param(g, "x", NULL);
    x = relu_chain(g, x, 9);
    size_t reserved = graph_bytes(g);
    graph_fit_nodes(g, 5);
    ck_assert_uint_eq(reserved - graph_bytes(g), (100 - 15) * sizeof(graft_node *));
    const char *name = graph_intern(g, "FunctionVar_0_0");
    size_t interned = graph_interned_count(g);
    graft_node *p = graph_add_fn_param_interned(g, name, NULL);
    ck_assert_ptr_eq(node_name(p), name);
    ck_assert_uint_eq(graph_interned_count(g), interned);
    x = relu_chain(g, x, 20);
    ck_assert_uint_eq(graph_node_count(g), 31);
    ck_assert_ptr_eq(graph_node(g, 10), p);
    ck_assert_ptr_eq(graph_node(g, 30), x);
    ck_assert_ptr_eq(node_arg(graph_node(g, 30), 0), graph_node(g, 29));
    ck_assert_uint_eq(node_id(graph_node(g, 11)), 11);
    graph_free(g);
}
END_TEST

/* note [node size] in graph.c: 48 bytes on LP64, plus 32 per operand,
 * so a unary op fits in 80 bytes. */
START_TEST(test_node_size)
{
    ck_assert_uint_le(graph_node_size(), 96);
    if (sizeof(void *) == 8)
        ck_assert_uint_eq(graph_node_size(), 48);
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL);
    size_t before = graph_bytes(g);
    x = relu_chain(g, x, 10000);
    size_t per_op = (graph_bytes(g) - before) / 10000;
    if (sizeof(void *) == 8)
        ck_assert_uint_le(per_op, 96 + 8 + 8); /* + node table + arena slack */
    graph_free(g);
}
END_TEST

/* note [annotation table] in graph_node.h: a graph none of whose nodes
 * has an annotation has no table (setting none makes none); the first
 * annotation makes it as large as the node table, a later node's grows
 * it, and every other node reads NULL. */
START_TEST(test_annotation_table)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL);
    x = relu_chain(g, x, 99);
    size_t before = graph_bytes(g);
    graph_set_annotation(g, x, NULL);
    ck_assert_uint_eq(graph_bytes(g), before);
    ck_assert_ptr_null(node_annotation(g, x));
    graft_node *first = graph_node(g, 0);
    graph_set_annotation(g, first, "/* a */");
    /* the node table's 121 entries (16, 24, 36, 54, 81, 121: note [node
     * table]); the interned text fits in the arena's block */
    ck_assert_uint_eq(graph_bytes(g) - before, 121 * sizeof(char *));
    ck_assert_str_eq(node_annotation(g, first), "/* a */");
    for (uint32_t id = 1; id < 100; id++)
        ck_assert_ptr_null(node_annotation(g, graph_node(g, id)));
    x = relu_chain(g, x, 200);
    ck_assert_ptr_null(node_annotation(g, x));
    graph_set_annotation(g, x, "/* b */");
    ck_assert_str_eq(node_annotation(g, x), "/* b */");
    ck_assert_str_eq(node_annotation(g, first), "/* a */");
    ck_assert_ptr_null(node_annotation(g, node_arg(x, 0)));
    graph_set_annotation(g, first, NULL);
    ck_assert_ptr_null(node_annotation(g, first));
    graph_free(g);
}
END_TEST

/* note [node size] and [node pool] in graph.c: the slots' place computed
 * (a tuple too wide for a node block gets its own allocation, and the
 * nodes after it come from the blocks again), a call of a function value
 * told by its flag, an element's index, a call's result and attribute
 * counts in one word, a function's attribute count in its record; and
 * the walk's arrays, sized from the graph's counts, hold every child. */
START_TEST(test_node_layout)
{
    graft_graph *g = graph_new();
    graft_node *fields[1000];
    for (int i = 0; i < 1000; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%d", i);
        fields[i] = graph_add_param(g, name, NULL);
    }
    graft_node *wide = graph_add_tuple(g, fields, 1000); /* 8,048 bytes */
    graft_node *last = graph_add_getitem(g, wide, 999);
    ck_assert_int_eq(node_nargs(wide), 1000);
    ck_assert_int_eq(node_index(last), 999);
    for (int i = 0; i < 1000; i++) {
        ck_assert_ptr_eq(node_arg(wide, i), fields[i]);
        ck_assert_int_eq(node_nusers(fields[i]), 1);
        ck_assert_ptr_eq(node_sole_user(fields[i]), wide);
        ck_assert_int_eq(node_user_operand(fields[i], node_user_first(fields[i])), i);
    }
    graft_attr_value *v = graph_new_attr_value(g, GRAFT_ATTR_STRING);
    v->s = graph_intern(g, "bn");
    graft_attr attr = {"Composite", v};
    graft_node *split = graph_add_call(g, "split", &last, 1, &attr, 1);
    graph_set_noutputs(g, split, 3);
    ck_assert_int_eq(node_nattrs(split), 1);
    ck_assert_int_eq(node_noutputs(split), 3);
    ck_assert_int_eq(node_index(split), -1);
    graft_node *q = graph_add_fn_param(g, "q", NULL);
    graft_node *body = graph_add_call(g, "nn.relu", &q, 1, NULL, 0);
    graft_node *fn = graph_add_func(g, &q, 1, body, &attr, 1);
    ck_assert_int_eq(node_nattrs(fn), 1);
    ck_assert_str_eq(node_attr(fn, 0)->name, "Composite");
    graft_node *call = graph_add_fn_call(g, fn, &split, 1);
    ck_assert_ptr_eq(node_callee(call), fn);
    ck_assert_ptr_null(node_op(call));
    ck_assert_int_eq(node_nargs(call), 1);
    ck_assert_int_eq(node_user_operand(fn, node_user_first(fn)), USE_CALLEE);
    ck_assert_int_eq(node_user_operand(split, node_user_first(split)), 0);
    graft_node *out[2] = {last, call};
    graph_set_output(g, graph_add_tuple(g, out, 2));
    ck_assert_uint_eq(graph_var_count(g), 1001);
    ck_assert_ptr_eq(graph_child(call, 0), fn);
    graph_free(g);
}
END_TEST

/* A chain of a million ops: built, ordered, printed, freed, no recursion. */
START_TEST(test_million_chain)
{
    /* GRAFT_SLOW_TESTS=0 (valgrind) keeps the shape at 10,000 nodes */
    const char *slow = getenv("GRAFT_SLOW_TESTS");
    int n_ops = slow && strcmp(slow, "0") == 0 ? 10000 : 1000000;
    graft_graph *g = graph_new();
    graft_node *n = graph_add_param(g, "x", NULL);
    n = relu_chain(g, n, n_ops);
    graph_set_output(g, n);
    graft_node **order = malloc(graph_node_count(g) * sizeof(graft_node *));
    ck_assert_uint_eq(graph_topo_order(g, order), (uint32_t)n_ops + 1);
    ck_assert_ptr_eq(order[n_ops], n);
    free(order);
    ck_assert_uint_eq(assert_walk(g), 0);
    char *text = relay_print_string(g);
    char tail[96];
    snprintf(tail, sizeof tail, "  %%%d = nn.relu(%%%d);\n  nn.relu(%%%d)\n}\n",
             n_ops - 2, n_ops - 3, n_ops - 2);
    ck_assert(strstr(text, tail));
    free(text);
    ck_assert_uint_eq(graph_remove_dead(g), 0);
    graph_free(g);
}
END_TEST

/* ---- random edits keep every users list exact ---- */

static uint32_t rng_next(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

/* Every live node's users list holds exactly the live (user, slot) pairs
 * that read it, each once, and node_user_operand agrees with node_arg. */
static void check_users(const graft_graph *g)
{
    uint32_t count = graph_node_count(g);
    int *expected = calloc(count, sizeof(int));
    for (uint32_t i = 0; i < count; i++) {
        const graft_node *u = graph_node(g, i);
        if (node_is_dead(u))
            continue;
        for (int k = 0; k < node_nargs(u); k++)
            expected[node_id(node_arg(u, k))]++;
        if (node_callee(u))
            expected[node_id(node_callee(u))]++;
    }
    for (uint32_t i = 0; i < count; i++) {
        const graft_node *n = graph_node(g, i);
        if (node_is_dead(n))
            continue;
        int seen = 0;
        for (int u = node_user_first(n); u < node_user_end(n); u = node_user_next(n, u), seen++) {
            const graft_node *user = node_user(n, u);
            ck_assert(!node_is_dead(user));
            int k = node_user_operand(n, u);
            ck_assert_ptr_eq(k == USE_CALLEE ? node_callee(user) : node_arg(user, k), n);
        }
        ck_assert_int_eq(seen, expected[i]);
        ck_assert_int_eq(node_nusers(n), expected[i]);
    }
    free(expected);
}

/* Random set_arg, replace_all_uses and remove_dead on a random DAG
 * (operands always older than their users, so it stays acyclic). */
START_TEST(test_random_edits)
{
    uint32_t seed = 12345u + (uint32_t)_i;
    graft_graph *g = graph_new();
    graft_node *nodes[400];
    int n = 0;
    nodes[n++] = graph_add_param(g, "a", NULL);
    nodes[n++] = graph_add_param(g, "b", NULL);
    while (n < 300) {
        graft_node *args[3];
        int nargs = 1 + (int)(rng_next(&seed) % 3);
        for (int k = 0; k < nargs; k++)
            args[k] = nodes[rng_next(&seed) % (uint32_t)n];
        nodes[n++] = graph_add_call(g, "f", args, nargs, NULL, 0);
    }
    graph_set_output(g, nodes[n - 1]);
    for (int step = 0; step < 3000; step++) {
        graft_node *x = nodes[2 + rng_next(&seed) % (uint32_t)(n - 2)];
        uint32_t pick = rng_next(&seed) % (uint32_t)node_id(x);
        graft_node *older = graph_node(g, pick);
        if (node_is_dead(x) || node_is_dead(older))
            continue;
        if (step % 3 == 0)
            graph_replace_all_uses(g, x, older);
        else
            graph_set_arg(g, x, (int)(rng_next(&seed) % (uint32_t)node_nargs(x)), older);
        if (step % 97 == 0) {
            graph_remove_dead(g);
            check_users(g);
        }
    }
    graph_remove_dead(g);
    check_users(g);
    assert_walk(g);
    graph_free(g);
}
END_TEST

/* Nodes reading nodes made after them (as a rewrite links its new nodes
 * into the model's): graph_reached marks what the walk lists, though the
 * sweep by ids alone cannot.  Each new node reads only nodes below the
 * one it is linked into, so the graph stays acyclic. */
START_TEST(test_reached_newer_operands)
{
    uint32_t seed = 777u + (uint32_t)_i;
    graft_graph *g = graph_new();
    graft_node *nodes[200];
    int n = 0;
    nodes[n++] = graph_add_param(g, "a", NULL);
    nodes[n++] = graph_add_param(g, "b", NULL);
    while (n < 100) {
        graft_node *args[2] = {nodes[rng_next(&seed) % (uint32_t)n],
                               nodes[rng_next(&seed) % (uint32_t)n]};
        nodes[n++] = graph_add_call(g, "f", args, 2, NULL, 0);
    }
    graph_set_output(g, graph_add_tuple(g, nodes + 90, 10));
    for (int step = 0; step < 60; step++) {
        graft_node *x = nodes[2 + rng_next(&seed) % 98];
        graft_node *below = nodes[rng_next(&seed) % (uint32_t)node_id(x)];
        if (node_is_dead(x) || node_is_dead(below))
            continue;
        graft_node *made = graph_add_call(g, "g", &below, 1, NULL, 0);
        graph_set_arg(g, x, (int)(rng_next(&seed) % 2), made);
        if (step % 20 == 0)
            graph_remove_dead(g);
    }
    uint8_t *by_ids = calloc(graph_node_count(g) + 1, 1);
    ck_assert(!graph_reached_by_ids(g, by_ids));
    free(by_ids);
    assert_reached(g);
    graph_remove_dead(g);
    assert_reached(g);
    graph_free(g);
}
END_TEST

/* ---- the core two IRs share: dtypes, tensor constants, several results,
 * names, accessors by id, tensor and graph attributes ---- */

START_TEST(test_dtype_table)
{
    ck_assert_int_eq(dtype_from_name("float32"), DTYPE_FLOAT32);
    ck_assert_int_eq(DTYPE_FLOAT32, 1); /* ONNX's TensorProto.FLOAT */
    ck_assert_int_eq(dtype_from_name("int64"), 7);
    ck_assert_int_eq(dtype_from_name("bfloat16"), 16);
    ck_assert_int_eq(dtype_from_name("float"), DTYPE_UNDEFINED);
    ck_assert_int_eq(dtype_from_name(NULL), DTYPE_UNDEFINED);
    ck_assert_str_eq(dtype_name(DTYPE_FLOAT64), "float64");
    ck_assert_str_eq(dtype_info(DTYPE_FLOAT64)->onnx, "DOUBLE");
    ck_assert_ptr_null(dtype_name(DTYPE_UNDEFINED));
    ck_assert_ptr_null(dtype_info(-1));
    ck_assert_ptr_null(dtype_info(DTYPE_COUNT));
    ck_assert_uint_eq(dtype_size(DTYPE_BOOL), 1);
    ck_assert_uint_eq(dtype_size(DTYPE_FLOAT16), 2);
    ck_assert_uint_eq(dtype_size(DTYPE_COMPLEX128), 16);
    ck_assert_uint_eq(dtype_size(DTYPE_STRING), 0);
    ck_assert(dtype_is_float(DTYPE_BFLOAT16));
    ck_assert(!dtype_is_float(DTYPE_INT8));
    ck_assert(dtype_info(DTYPE_INT8)->is_signed && !dtype_info(DTYPE_UINT8)->is_signed);
    /* every entry names itself back */
    for (int d = 1; d < DTYPE_COUNT; d++)
        ck_assert_int_eq(dtype_from_name(dtype_name((DType)d)), d);
}
END_TEST

START_TEST(test_tensor_constants)
{
    graft_graph *g = graph_new();
    const int64_t dims[] = {2, 3};
    const graft_type *t = graph_type_tensor(g, "float32", dims, 2);
    size_t nbytes = 0;
    ck_assert(graph_tensor_nbytes(t, &nbytes));
    ck_assert_uint_eq(nbytes, 24);
    float *values = malloc(nbytes); /* the graph frees it: graph_own */
    for (int i = 0; i < 6; i++)
        values[i] = (float)i + 0.5f;
    graph_own(g, values);
    graft_node *w = graph_add_tensor_const(g, "conv1.weight", t, values, nbytes);
    ck_assert_int_eq(node_kind(w), NODE_CONST);
    ck_assert(!node_const_is_scalar(w));
    ck_assert_str_eq(node_const_text(w), "conv1.weight");
    ck_assert_str_eq(node_const_dtype(w), "float32");
    ck_assert(node_const_value(w) == 0.0);
    size_t got = 0;
    const float *data = node_const_data(w, &got);
    ck_assert_ptr_eq(data, values);
    ck_assert_uint_eq(got, 24);
    ck_assert(data[5] == 5.5f);
    /* values unknown, and a scalar: no data */
    graft_node *unknown = graph_add_tensor_const(g, "meta[relay.Constant][0]", t, NULL, 24);
    ck_assert_ptr_null(node_const_data(unknown, &got));
    ck_assert_uint_eq(got, 0);
    graft_node *one = graph_add_const(g, "1f", 1.0, "float32");
    ck_assert_ptr_null(node_const_data(one, &got));
    ck_assert(node_const_value(one) == 1.0);
    /* sizes that cannot be known */
    const int64_t any[] = {2, DIM_ANY};
    ck_assert(!graph_tensor_nbytes(graph_type_tensor(g, "float32", any, 2), &nbytes));
    ck_assert(!graph_tensor_nbytes(graph_type_tensor(g, "string", dims, 2), &nbytes));
    const int64_t huge[] = {INT64_C(1) << 40, INT64_C(1) << 40};
    ck_assert(!graph_tensor_nbytes(graph_type_tensor(g, "float64", huge, 2), &nbytes));
    ck_assert(graph_tensor_nbytes(graph_type_tensor(g, "int64", NULL, 0), &nbytes));
    ck_assert_uint_eq(nbytes, 8);
    graph_free(g);
}
END_TEST

/* dtype_read_number: every numeric raw layout, little-endian. */
START_TEST(test_dtype_read_number)
{
    static const struct {
        DType d;
        unsigned char bytes[8];
        double want;
    } cases[] = {
        {DTYPE_FLOAT32, {0x00, 0x00, 0xc0, 0x3f}, 1.5},
        {DTYPE_FLOAT64, {0, 0, 0, 0, 0, 0, 0x04, 0xc0}, -2.5},
        {DTYPE_FLOAT16, {0x00, 0x3c}, 1.0},
        {DTYPE_FLOAT16, {0x01, 0x00}, 5.9604644775390625e-08}, /* least subnormal */
        {DTYPE_FLOAT16, {0x00, 0xc5}, -5.0},
        {DTYPE_BFLOAT16, {0x80, 0x3f}, 1.0},
        {DTYPE_INT8, {0xfe}, -2.0},
        {DTYPE_UINT8, {0xfe}, 254.0},
        {DTYPE_INT16, {0x00, 0x80}, -32768.0},
        {DTYPE_UINT16, {0x00, 0x80}, 32768.0},
        {DTYPE_INT32, {0xff, 0xff, 0xff, 0xff}, -1.0},
        {DTYPE_UINT32, {0xff, 0xff, 0xff, 0xff}, 4294967295.0},
        {DTYPE_INT64, {0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, -3.0},
        {DTYPE_UINT64, {0x05}, 5.0},
        {DTYPE_BOOL, {0x01}, 1.0},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        double v = -99;
        ck_assert_msg(dtype_read_number(cases[i].d, cases[i].bytes, &v), "case %zu", i);
        ck_assert_msg(v == cases[i].want, "case %zu: %.17g", i, v);
    }
    const unsigned char inf16[] = {0x00, 0x7c}, nan16[] = {0x01, 0x7c}, any[16] = {0};
    double v = 0;
    ck_assert(dtype_read_number(DTYPE_FLOAT16, inf16, &v) && isinf(v) && v > 0);
    ck_assert(dtype_read_number(DTYPE_FLOAT16, nan16, &v) && isnan(v));
    ck_assert(!dtype_read_number(DTYPE_STRING, any, &v));
    ck_assert(!dtype_read_number(DTYPE_COMPLEX64, any, &v));
    ck_assert(!dtype_read_number(DTYPE_UNDEFINED, any, &v));
}
END_TEST

/* note [one-element constants]: a tensor constant of one known element
 * is a number, a float32 one as its shortest spelling reads (0.001f is
 * 0.001); two elements, unknown values and other nodes are not. */
START_TEST(test_const_number)
{
    graft_graph *g = graph_new();
    static const float eps = 0.001f, one = 1.0f, pair[2] = {1.0f, 1.0f};
    const graft_type *scalar = graph_type_tensor(g, "float32", NULL, 0);
    const int64_t dims1[] = {1}, dims2[] = {2};
    const graft_type *vec1 = graph_type_tensor(g, "float32", dims1, 1);
    const graft_type *vec2 = graph_type_tensor(g, "float32", dims2, 1);
    double v = -1;
    ck_assert(node_const_number(graph_add_tensor_const(g, "eps", scalar, &eps, 4), &v));
    ck_assert(v == 0.001);
    ck_assert(node_const_number(graph_add_tensor_const(g, "one1", vec1, &one, 4), &v) && v == 1);
    ck_assert(!node_const_number(graph_add_tensor_const(g, "pair", vec2, pair, 8), &v));
    ck_assert(!node_const_number(graph_add_tensor_const(g, "unknown", scalar, NULL, 4), &v));
    ck_assert(!node_const_number(graph_add_tensor_const(g, "short", scalar, &one, 2), &v));
    ck_assert(node_const_number(graph_add_const(g, "2f", 2.0, "float32"), &v) && v == 2.0);
    ck_assert(!node_const_number(graph_add_param(g, "x", NULL), &v));
    graph_free(g);
}
END_TEST

/* A one-element float32 constant's number from its bits. */
static double float_number(graft_graph *g, uint32_t bits)
{
    const graft_type *scalar = graph_type_tensor(g, "float32", NULL, 0);
    const unsigned char le[4] = {bits & 0xff, bits >> 8 & 0xff, bits >> 16 & 0xff, bits >> 24};
    double v = -1;
    ck_assert(node_const_number(graph_add_tensor_const(g, "f", scalar, le, 4), &v));
    return v;
}

/* The shortest spelling's number on edge values (note [float memo] in
 * src/ir/graph_number.c keeps answers by the float's bits): asked twice,
 * in turns with more floats than the memo has slots, each gives the double
 * its shortest spelling reads as, -0 stays -0, and NaN stays NaN. */
START_TEST(test_const_number_spelling)
{
    static const struct {
        uint32_t bits;
        double want;
    } cases[] = {
        {0x3dcccccd, 0.1},           {0x3727c5ac, 1e-5},
        {0x7f7fffff, 3.4028235e+38}, {0x00000001, 1e-45}, /* FLT_MAX, least subnormal */
        {0x007fffff, 1.1754942e-38}, {0x00800000, 1.1754944e-38}, /* subnormal, FLT_MIN */
        {0x3fb504f3, 1.4142135},     {0x3eaaaaab, 0.33333334},
        {0x4b800001, 16777218},      {0x35800000, 9.536743e-07},
        {0x47f1205a, 123456.7},      {0x3e99999a, 0.3},
        {0x7f800000, INFINITY},      {0xff800000, -INFINITY},
        {0x00000000, 0},             {0x3f800000, 1},
        {0x40000000, 2},             {0xbf800000, -1},
    };
    graft_graph *g = graph_new();
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            ck_assert_msg(float_number(g, cases[i].bits) == cases[i].want, "0x%08x",
                          (unsigned)cases[i].bits);
    for (int round = 0; round < 2; round++) {
        double zero = float_number(g, 0x00000000), minus_zero = float_number(g, 0x80000000);
        ck_assert(zero == 0 && !signbit(zero) && minus_zero == 0 && signbit(minus_zero));
        ck_assert(isnan(float_number(g, 0x7fc00000)) && isnan(float_number(g, 0xffc00001)));
    }
    graph_free(g);
}
END_TEST

START_TEST(test_several_results)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "X", NULL);
    graft_node *split = graph_add_call(g, "Split", &x, 1, NULL, 0);
    ck_assert_int_eq(node_noutputs(split), 1); /* every call starts with one */
    graph_set_noutputs(g, split, 3);
    ck_assert_int_eq(node_noutputs(split), 3);
    ck_assert_int_eq(node_index(split), -1); /* still no element access */
    graft_node *second = graph_result(g, split, 1);
    ck_assert_int_eq(node_kind(second), NODE_GETITEM);
    ck_assert_int_eq(node_index(second), 1);
    ck_assert_ptr_eq(node_arg(second, 0), split);
    ck_assert_ptr_eq(graph_result(g, split, 1), second); /* found, not made again */
    graft_node *third = graph_result(g, split, 2);
    ck_assert_ptr_ne(third, second);
    ck_assert_int_eq(node_nusers(split), 2);
    graft_node *pair[2] = {second, third};
    graph_set_output(g, graph_add_tuple(g, pair, 2));
    ck_assert_int_eq(node_noutputs(x), 1);
    graph_free(g);
}
END_TEST

START_TEST(test_ir_names)
{
    graft_graph *g = graph_new();
    ck_assert_int_eq(graph_ir(g), IR_RELAY);
    graph_set_ir(g, IR_ONNX);
    ck_assert_int_eq(graph_ir(g), IR_ONNX);
    graft_node *x = graph_add_param(g, "X", NULL);
    graft_node *relu = graph_add_call(g, "Relu", &x, 1, NULL, 0);
    char name[] = "/relu/Relu";
    graph_set_node_name(g, relu, name);
    graph_set_value_name(g, relu, "/relu/Relu_output_0");
    name[1] = 'X'; /* the graph keeps its own copy */
    ck_assert_str_eq(graph_node_name(g, relu), "/relu/Relu");
    ck_assert_str_eq(graph_value_name(g, relu), "/relu/Relu_output_0");
    ck_assert_ptr_eq(graph_node_name(g, relu), graph_intern(g, "/relu/Relu"));
    ck_assert_ptr_null(graph_node_name(g, x));
    ck_assert_ptr_null(graph_value_name(g, x));
    graph_set_value_name(g, x, "X");
    ck_assert_str_eq(graph_value_name(g, x), "X");
    graph_set_node_name(g, relu, NULL);
    ck_assert_ptr_null(graph_node_name(g, relu));
    graph_free(g);
}
END_TEST

START_TEST(test_accessors_by_id)
{
    Small s = small_new();
    uint32_t add = node_id(s.add);
    ck_assert_int_eq(graph_kind_at(s.g, add), NODE_CALL);
    ck_assert_str_eq(graph_op_at(s.g, add), "add");
    ck_assert_int_eq(graph_nargs_at(s.g, add), 2);
    ck_assert_uint_eq(graph_arg_at(s.g, add, 0), node_id(s.x));
    ck_assert_uint_eq(graph_arg_at(s.g, add, 1), node_id(s.one));
    ck_assert_int_eq(graph_kind_at(s.g, node_id(s.one)), NODE_CONST);
    ck_assert_ptr_null(graph_op_at(s.g, node_id(s.x)));
    ck_assert_ptr_null(graph_type_at(s.g, add));
    ck_assert_int_eq(graph_noutputs_at(s.g, node_id(s.relu)), 1);
    graph_free(s.g);
}
END_TEST

/* Numbers compare as TVM compares attribute values: within 1e-9, so a
 * computed epsilon of 1.0000000000065512e-05 is the default 1e-05 and a
 * new call leaves it out (doc/graft-rules.5, ACTIONS); NaN equals only
 * NaN; an int and a float of one value are equal (mutant c5c41e7c82 of
 * issue 37, exact equality, survived without this test). */
START_TEST(test_numbers_equal_within_1e9)
{
    graft_graph *g = graph_new();
    graft_attr_value *a = graph_new_attr_value(g, GRAFT_ATTR_FLOAT);
    graft_attr_value *b = graph_new_attr_value(g, GRAFT_ATTR_FLOAT);
    graft_attr_value *i = graph_new_attr_value(g, GRAFT_ATTR_INT);
    a->f = 1e-05;
    b->f = (1e-05 + 3) - 3; /* 1.0000000000065512e-05 */
    ck_assert(a->f != b->f);
    ck_assert(attr_value_equal(a, b));
    b->f = 1e-05 + 2e-9;
    ck_assert(!attr_value_equal(a, b));
    b->f = NAN;
    ck_assert(!attr_value_equal(a, b));
    a->f = NAN;
    ck_assert(attr_value_equal(a, b));
    a->f = 3.0;
    i->i = 3;
    ck_assert(attr_value_equal(a, i));
    graph_free(g);
}
END_TEST

START_TEST(test_tensor_and_graph_attrs)
{
    graft_graph *g = graph_new(), *h = graph_new();
    const int64_t dims[] = {2};
    const int32_t ab[] = {1, 2}, ac[] = {1, 3};
    graft_attr_value *a = graph_new_attr_value(g, GRAFT_ATTR_TENSOR);
    a->type = graph_type_tensor(g, "int32", dims, 1);
    a->data = ab;
    a->nbytes = sizeof ab;
    graft_attr_value *b = graph_new_attr_value(g, GRAFT_ATTR_TENSOR);
    b->type = a->type;
    b->data = ac;
    b->nbytes = sizeof ac;
    ck_assert(attr_value_equal(a, a));
    ck_assert(!attr_value_equal(a, b));
    const graft_attr_value *copy = graph_copy_attr_value(h, a); /* into another graph */
    ck_assert(attr_value_equal(a, copy));
    ck_assert_ptr_ne(copy->data, a->data);
    ck_assert_str_eq(copy->type->text, "Tensor[(2), int32]");
    graft_attr_value *other_type = graph_new_attr_value(g, GRAFT_ATTR_TENSOR);
    other_type->type = graph_type_tensor(g, "float32", dims, 1);
    other_type->data = ab;
    other_type->nbytes = sizeof ab;
    ck_assert(!attr_value_equal(a, other_type)); /* same bytes, other dtype */
    graft_attr_value *body = graph_new_attr_value(g, GRAFT_ATTR_GRAPH);
    body->data = "\x0a\x01y";
    body->nbytes = 3;
    graft_attr_value *body2 = graph_new_attr_value(g, GRAFT_ATTR_GRAPH);
    body2->data = "\x0a\x01z";
    body2->nbytes = 3;
    ck_assert(attr_value_equal(body, graph_copy_attr_value(h, body)));
    ck_assert(!attr_value_equal(body, body2));
    ck_assert(!attr_value_equal(body, a));
    graph_free(g);
    graph_free(h);
}
END_TEST

/* note [annotation spans]: a comment given as a span of the text is
 * read there until graph_text_keep copies it, NUL-ended, into the graph's
 * buffer of spans, in the order of the nodes; the text is never written,
 * and a comment that another comment follows at once is a span like any
 * other; one not in the text is a copy; a copy of a node shares its
 * original's span. */
START_TEST(test_annotation_spans)
{
    const char *model = "%0 /* ty=int8 */ /* a *//* b */\n/* end */";
    size_t len = strlen(model);
    graft_graph *g = graph_new();
    graph_text_begin(g, model, len);
    graft_node *n[5];
    for (int i = 0; i < 5; i++)
        n[i] = graph_add_param(g, "x", NULL);
    graph_set_annotation_span(g, n[0], model + 3, 13);  /* "/ * ty=int8 * /" */
    graph_set_annotation_span(g, n[1], model + 17, 7);  /* followed by '/' */
    graph_set_annotation_span(g, n[2], model + 24, 7);  /* "/ * b * /" */
    graph_set_annotation_span(g, n[3], model + 32, 9);  /* at the text's end */
    ck_assert_ptr_eq(node_annotation(g, n[1]), model + 17);
    ck_assert_ptr_null(graph_kept_text(g, NULL));
    ck_assert(graph_text_keep(g));
    size_t kept_len = 0;
    const char *kept = graph_kept_text(g, &kept_len);
    static const char spans[] = "/* ty=int8 */\0/* a */\0/* b */\0/* end */";
    ck_assert_uint_eq(kept_len, sizeof spans);
    ck_assert_mem_eq(kept, spans, sizeof spans);
    ck_assert_str_eq(model, "%0 /* ty=int8 */ /* a *//* b */\n/* end */");
    ck_assert_ptr_eq(node_annotation(g, n[0]), kept);
    ck_assert_ptr_eq(node_annotation(g, n[1]), kept + 14);
    ck_assert_ptr_eq(node_annotation(g, n[2]), kept + 22);
    ck_assert_ptr_eq(node_annotation(g, n[3]), kept + 30);
    ck_assert_str_eq(node_annotation(g, n[3]), "/* end */");
    graph_set_annotation(g, n[4], node_annotation(g, n[2]));
    ck_assert_ptr_eq(node_annotation(g, n[4]), kept + 22);
    graph_set_annotation(g, n[4], "/* b */");
    const char *b = node_annotation(g, n[4]);
    ck_assert(b < kept || b >= kept + kept_len);
    ck_assert_str_eq(node_annotation(g, n[4]), "/* b */");
    graph_free(g); /* frees the spans' buffer */
}
END_TEST

/* A graph given a text but no span forgets it: the text stays the
 * caller's, and a span after graph_text_keep is a copy. */
START_TEST(test_annotation_spans_none)
{
    char text[] = "/* ty=int8 */";
    graft_graph *g = graph_new();
    graph_text_begin(g, text, sizeof text - 1);
    ck_assert(!graph_text_keep(g));
    ck_assert_ptr_null(graph_kept_text(g, NULL));
    graft_node *v = graph_add_param(g, "x", NULL);
    graph_set_annotation_span(g, v, text, sizeof text - 1);
    ck_assert(node_annotation(g, v) != text);
    ck_assert_str_eq(node_annotation(g, v), text);
    graph_free(g);
}
END_TEST

/* note [node table] in graph.c: graph_fit_positions cuts the positions
 * to the nodes made, each keeping its own; a node made after has none
 * until one is set. */
START_TEST(test_fit_positions)
{
    graft_graph *g = graph_new();
    graph_reserve(g, 100);
    graft_node *x = graph_add_param(g, "x", NULL);
    graph_set_pos(g, x, 1, 11);
    for (int i = 0; i < 9; i++) {
        x = graph_add_call(g, "nn.relu", &x, 1, NULL, 0);
        graph_set_pos(g, x, i + 2, 3);
    }
    graph_fit_positions(g);
    ck_assert_int_eq(node_line(g, graph_node(g, 0)), 1);
    ck_assert_int_eq(node_col(g, graph_node(g, 0)), 11);
    ck_assert_int_eq(node_line(g, x), 10);
    ck_assert_int_eq(node_col(g, x), 3);
    graft_node *y = graph_add_call(g, "nn.relu", &x, 1, NULL, 0);
    ck_assert_int_eq(node_line(g, y), 0);
    graph_set_pos(g, y, 12, 5);
    ck_assert_int_eq(node_line(g, y), 12);
    ck_assert_int_eq(node_col(g, y), 5);
    ck_assert_int_eq(node_line(g, x), 10);
    graph_free(g);
}
END_TEST

/* The sweeps read a plain call's operand slots straight and take the
 * other nodes through child() (note [reached plain calls] in
 * src/ir/graph_walk.c): on a graph built children first, with every kind
 * of node, an unused call, a dead one and a nullary op, both mark what
 * the walk lists; a call of a function value whose callee comes after
 * it stops the sweep by ids. */
START_TEST(test_reached_every_kind)
{
    FnGraph f = fn_graph_new(NULL);
    graft_graph *g = f.g;
    graft_node *c = graph_add_const(g, "1f", 1, "float32");
    graft_node *none = graph_add_call(g, "zeros", NULL, 0, NULL, 0);
    graft_node *args[3] = {f.x, c, none};
    graft_node *add = graph_add_call(g, "add3", args, 3, NULL, 0);
    graft_node *dead = graph_add_call(g, "negative", &c, 1, NULL, 0);
    graft_node *call = graph_add_fn_call(g, f.fn, &add, 1);
    graft_node *pair[2] = {call, add};
    graft_node *tuple = graph_add_tuple(g, pair, 2);
    graph_set_output(g, graph_add_getitem(g, tuple, 0));
    graph_remove_dead(g);
    graft_node *unused = graph_add_call(g, "negative", &add, 1, NULL, 0);
    ck_assert(node_is_dead(dead) && !node_is_dead(unused));
    uint32_t count = graph_node_count(g);
    uint8_t *by_ids = calloc(count, 1);
    ck_assert(graph_reached_by_ids(g, by_ids));
    ck_assert(by_ids[node_id(none)] && by_ids[node_id(f.p)] && by_ids[node_id(f.neg)]);
    ck_assert(!by_ids[node_id(unused)] && !by_ids[node_id(dead)]);
    free(by_ids);
    assert_reached(g);
    graft_node *q = graph_add_fn_param(g, "q", NULL);
    graft_node *fn2 = graph_add_func(g, &q, 1, q, NULL, 0);
    graph_set_arg(g, call, USE_CALLEE, fn2); /* the callee after the call */
    by_ids = calloc(graph_node_count(g), 1);
    ck_assert(!graph_reached_by_ids(g, by_ids));
    free(by_ids);
    assert_reached(g);
    graph_free(g);
}
END_TEST

/* Nodes made past the node table's capacity, across the pool's blocks,
 * and one too large for a block (note [new node's fast path] in
 * src/ir/graph.c): each gets the next id, is found by it, and starts
 * zeroed but for its kind and operands. */
START_TEST(test_new_node_paths)
{
    enum { NPARAMS = 5000, WIDE = 600 };
    graft_graph *g = graph_new();
    graft_node **params = malloc(NPARAMS * sizeof *params);
    for (int i = 0; i < NPARAMS; i++) {
        params[i] = graph_add_param(g, "p", NULL);
        ck_assert_uint_eq(node_id(params[i]), (uint32_t)i);
    }
    graft_node *wide = graph_add_call(g, "concat", params, WIDE, NULL, 0);
    graft_node *after = graph_add_call(g, "nn.relu", &wide, 1, NULL, 0);
    graph_set_output(g, after);
    ck_assert_uint_eq(graph_node_count(g), NPARAMS + 2);
    for (int i = 0; i < NPARAMS; i++) {
        ck_assert_ptr_eq(graph_node(g, (uint32_t)i), params[i]);
        ck_assert_int_eq(node_kind(params[i]), NODE_VAR);
        ck_assert_ptr_null(node_type(params[i]));
    }
    ck_assert_uint_eq(node_id(wide), NPARAMS);
    ck_assert_ptr_eq(graph_node(g, NPARAMS + 1), after);
    ck_assert_int_eq(node_nargs(wide), WIDE);
    for (int i = 0; i < WIDE; i++)
        ck_assert_ptr_eq(node_arg(wide, i), params[i]);
    ck_assert_ptr_null(node_callee(wide));
    ck_assert_ptr_null(node_type(wide));
    ck_assert_ptr_eq(node_arg(after, 0), wide);
    assert_reached(g);
    free(params);
    graph_free(g);
}
END_TEST

/* After a dead-node sweep graph_reached reads the live nodes for the
 * reached (note [swept graph] in src/ir/graph_walk.c), but for @main's
 * unused parameters; each edit that could change what is reached ends
 * that: a node made, an operand or every use moved, the output set.
 * assert_reached compares graph_reached's marks with a walk's. */
START_TEST(test_swept_graph)
{
    graft_graph *g = graph_new();
    graft_node *a = graph_add_param(g, "a", NULL);
    graft_node *unused = graph_add_param(g, "u", NULL);
    graft_node *b = graph_add_call(g, "f", &a, 1, NULL, 0);
    graft_node *c = graph_add_call(g, "g", &b, 1, NULL, 0);
    graft_node *garbage = graph_add_call(g, "h", &a, 1, NULL, 0);
    graph_set_output(g, c);
    ck_assert_uint_eq(graph_remove_dead(g), 1);
    ck_assert(node_is_dead(garbage) && !node_is_dead(unused));
    assert_reached(g);
    graph_set_arg(g, c, 0, a); /* b unreached, still live */
    assert_reached(g);
    graph_remove_dead(g);
    graft_node *made = graph_add_call(g, "k", &a, 1, NULL, 0); /* no user */
    assert_reached(g);
    graph_remove_dead(g);
    ck_assert(node_is_dead(b) && node_is_dead(made));
    graft_node *d = graph_add_call(g, "relu", &a, 1, NULL, 0);
    graft_node *e = graph_add_call(g, "relu", &d, 1, NULL, 0);
    graph_set_arg(g, c, 0, e);
    graph_remove_dead(g);
    graph_replace_all_uses(g, e, d); /* e unreached */
    assert_reached(g);
    graph_remove_dead(g);
    graph_set_output(g, unused); /* c and d unreached, u reached */
    assert_reached(g);
    graph_remove_dead(g);
    assert_reached(g);
    graph_set_swept(g); /* as a caller that knows nothing would die */
    assert_reached(g);
    graph_free(g);
}
END_TEST

/* g's nodes marked by graph_reached_by_ids, as '1' and '0' by id, are
 * want, and are graph_reached's (assert_reached). */
static void assert_by_ids(const graft_graph *g, const char *want)
{
    uint32_t count = graph_node_count(g);
    uint8_t *reached = calloc(count + 1, 1);
    ck_assert(graph_reached_by_ids(g, reached));
    char got[64] = "";
    for (uint32_t id = 0; id < count && id < sizeof got - 1; id++)
        got[id] = reached[id] ? '1' : '0';
    ck_assert_str_eq(got, want);
    free(reached);
    assert_reached(g);
}

/* graph_reached_by_ids reads a graph no edit relinked by its users
 * (note [reached by users] in src/ir/graph_walk.c): an unused parameter
 * and one that is the output; an unused binding (garbage) and a moved
 * operand leave it to the sweep, with the same marks. */
START_TEST(test_reached_by_users)
{
    graft_graph *g = graph_new();
    graft_node *a = graph_add_param(g, "a", NULL);
    graph_add_param(g, "u", NULL);
    graft_node *b = graph_add_call(g, "f", &a, 1, NULL, 0);
    graft_node *c = graph_add_call(g, "g", &b, 1, NULL, 0);
    graph_set_output(g, c);
    assert_by_ids(g, "1011");
    graft_node *only_garbage = graph_add_param(g, "v", NULL);
    graph_add_call(g, "h", &only_garbage, 1, NULL, 0);
    assert_by_ids(g, "101100");
    graph_set_arg(g, c, 0, b); /* the same operand: nothing moved */
    assert_by_ids(g, "101100");
    graph_set_arg(g, c, 0, a);
    assert_by_ids(g, "100100");
    graph_free(g);
    g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL);
    graph_add_param(g, "y", NULL);
    graph_set_output(g, x);
    assert_by_ids(g, "10");
    graph_free(g);
}
END_TEST

/* The arrays a reader of every parameter or node takes at once (the
 * printer's): @main's and a function's parameters, the node table by
 * id with the dead among it, the variables made, and a free variable
 * told inline. */
START_TEST(test_tables_at_once)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL), *y = graph_add_param(g, "y", NULL);
    graft_node *q[] = {graph_add_fn_param(g, "q", NULL), graph_add_fn_param(g, "r", NULL)};
    graft_node *fn = graph_add_func(g, q, 2, graph_add_call(g, "add", q, 2, NULL, 0), NULL, 0);
    graft_node *xy[] = {x, y};
    graft_node *call = graph_add_fn_call(g, fn, xy, 2);
    graft_node *z = graph_add_fn_param(g, "z", NULL);
    graph_set_free(g, z);
    graph_set_output(g, call);
    ck_assert_ptr_eq(graph_params(g)[0], x);
    ck_assert_ptr_eq(graph_params(g)[1], y);
    ck_assert_ptr_eq(node_params(fn)[0], q[0]);
    ck_assert_ptr_eq(node_params(fn)[1], q[1]);
    ck_assert_uint_eq(graph_var_count(g), 5);
    ck_assert(node_is_free(z));
    ck_assert(!node_is_free(x));
    ck_assert(!node_is_free(call));
    graft_node *const *table = graph_node_table(g);
    for (uint32_t id = 0; id < graph_node_count(g); id++)
        ck_assert_ptr_eq(table[id], graph_node(g, id));
    graph_free(g);
}
END_TEST

/* note [canonical pointers]: graph_intern's cache keeps the last two
 * canonical strings put in each slot, so that two names the allocator
 * places in one slot do not evict each other.  200 names in 32 slots:
 * every name among the last two interned in its slot is remembered,
 * every older one is not, some slot holds two, and a slot's two stay
 * remembered however they are asked for; graph_intern_n's names are
 * remembered only once graph_intern is asked for them. */
START_TEST(test_canonical_pointers_two_a_slot)
{
    enum { NAMES = 200, SLOTS = 1 << CANON_BITS };
    graft_graph *g = graph_new();
    const char *names[NAMES];
    int last[SLOTS][2] = {{0}}; /* per slot: 1 + the last two names put, newest first */
    size_t slot_of[NAMES];
    for (int i = 0; i < NAMES; i++) {
        char buf[16];
        snprintf(buf, sizeof buf, "name%d", i);
        names[i] = graph_intern(g, buf);
        slot_of[i] = cache_slot((uint64_t)(uintptr_t)names[i], CANON_BITS);
        last[slot_of[i]][1] = last[slot_of[i]][0];
        last[slot_of[i]][0] = i + 1;
    }
    int two = -1; /* a slot that holds two names */
    for (int s = 0; s < SLOTS; s++)
        if (last[s][1])
            two = s;
    ck_assert_int_ge(two, 0);
    for (int i = 0; i < NAMES; i++) {
        const char *const *pair = g->canon[slot_of[i]];
        bool kept = last[slot_of[i]][0] == i + 1 || last[slot_of[i]][1] == i + 1;
        ck_assert_int_eq(pair[0] == names[i] || pair[1] == names[i], kept);
    }
    const char *newer = names[last[two][0] - 1], *older = names[last[two][1] - 1];
    for (int round = 0; round < 4; round++) {
        ck_assert_ptr_eq(graph_intern(g, round % 2 ? newer : older), round % 2 ? newer : older);
        ck_assert_ptr_eq(g->canon[two][0], newer); /* hits move nothing */
        ck_assert_ptr_eq(g->canon[two][1], older);
    }
    char copy[16];
    strcpy(copy, older); /* a copy misses, and finds its canonical there */
    ck_assert_ptr_eq(graph_intern(g, copy), older);
    ck_assert_ptr_eq(g->canon[two][0], newer);
    ck_assert_ptr_eq(g->canon[two][1], older);
    const char *fresh = graph_intern_n(g, "fresh name", 10); /* remembers nothing */
    const char *const *pair = g->canon[cache_slot((uint64_t)(uintptr_t)fresh, CANON_BITS)];
    ck_assert(pair[0] != fresh && pair[1] != fresh);
    ck_assert_ptr_eq(graph_intern(g, "fresh name"), fresh);
    ck_assert_ptr_eq(pair[0], fresh);
    graph_free(g);
}
END_TEST

/* graph_params: @main's parameters in order, as graph_param gives them,
 * a function's parameter not among them. */
START_TEST(test_params_array)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL), *y = graph_add_param(g, "y", NULL);
    graft_node *p = graph_add_fn_param(g, "p", NULL);
    graft_node *fn = graph_add_func(g, &p, 1, p, NULL, 0);
    graft_node *args[] = {graph_add_call(g, "add", (graft_node *[]){x, y}, 2, NULL, 0)};
    graph_set_output(g, graph_add_fn_call(g, fn, args, 1));
    ck_assert_int_eq(graph_nparams(g), 2);
    ck_assert_ptr_eq(graph_params(g)[0], x);
    ck_assert_ptr_eq(graph_params(g)[1], y);
    ck_assert_ptr_eq(graph_params(g)[1], graph_param(g, 1));
    ck_assert_ptr_eq(node_scope(g, p), fn);
    graph_free(g);
}
END_TEST

/* graph_release_dead frees each node block holding only dead nodes (note
 * [dead blocks] in src/ir/graph_compact.c).  A chain of 5,000 relus left
 * dead, 56 bytes each and 1,170 to a 64 KB block, with @f's NODE_GLOBAL
 * (unused, so dead; 40 bytes, note [short nodes] in graph.c) made after
 * its 2,500th: block 0 holds %x (40 bytes) and the first 1,169, block 1
 * the next 1,170 (freed), block 2 the next 161, the NODE_GLOBAL and
 * 1,008 more (kept for the global), block 3 1,170 (freed) and block 4
 * the last 322 and the live chain.  Nothing live moves, the
 * print is the same, a freed node's entry is the one released node (a
 * dead tuple of no operands), walks by id pass over it, and nodes made
 * after are made as before. */
START_TEST(test_release_dead_blocks)
{
    enum { DEAD = 5000, LIVE = 100, BLOCK1 = 1169, BLOCK2 = BLOCK1 + 1170,
           BLOCK3 = BLOCK2 + 1169, BLOCK4 = BLOCK3 + 1170 }; /* each block's first relu */
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL);
    graft_node **dead = malloc(DEAD * sizeof *dead), *ref = NULL;
    uint32_t *dead_id = malloc(DEAD * sizeof *dead_id); /* (a freed node is not read) */
    graft_node *at = x;
    for (int i = 0; i < DEAD; i++) {
        if (i == DEAD / 2)
            ref = graph_global_ref(g, "f");
        dead[i] = at = graph_add_call(g, "nn.relu", &at, 1, NULL, 0);
        dead_id[i] = node_id(at);
    }
    graft_node *live[LIVE];
    at = x;
    for (int i = 0; i < LIVE; i++)
        live[i] = at = graph_add_call(g, "negative", &at, 1, NULL, 0);
    graft_node *p = graph_add_fn_param(g, "p", NULL);
    graft_node *fn = graph_add_func(g, &p, 1, graph_add_call(g, "exp", &p, 1, NULL, 0),
                                    NULL, 0);
    ck_assert(graph_add_global(g, "main", NULL));
    ck_assert(graph_add_global(g, "f", fn));
    graph_set_output(g, at);
    ck_assert_uint_eq(graph_remove_dead(g), DEAD + 1);
    ck_assert(node_is_dead(ref));
    char *before = relay_print_string(g);
    uint32_t nlive = graph_live_count(g);
    ck_assert_uint_eq(graph_release_dead(g), 2 * (size_t)NODE_BLOCK);
    graft_node *released = graph_node(g, dead_id[BLOCK1]);
    ck_assert(node_is_dead(released));
    ck_assert_int_eq(node_kind(released), NODE_TUPLE);
    ck_assert_int_eq(node_nargs(released), 0);
    ck_assert_int_eq(node_nusers(released), 0);
    for (int i = 0; i < DEAD; i++) {
        bool freed = (i >= BLOCK1 && i < BLOCK2) || (i >= BLOCK3 && i < BLOCK4);
        ck_assert_ptr_eq(graph_node(g, dead_id[i]), freed ? released : dead[i]);
    }
    ck_assert_ptr_eq(graph_node(g, node_id(ref)), ref);
    ck_assert_ptr_eq(graph_node(g, 0), x);
    for (int i = 0; i < LIVE; i++)
        ck_assert_ptr_eq(graph_node(g, node_id(live[i])), live[i]);
    ck_assert_uint_eq(graph_live_count(g), nlive);
    char *after = relay_print_string(g);
    ck_assert_str_eq(after, before);
    assert_reached(g);
    graft_node *more = graph_add_call(g, "nn.relu", &at, 1, NULL, 0);
    ck_assert_uint_eq(node_id(more), graph_node_count(g) - 1);
    graph_set_output(g, more);
    ck_assert_uint_eq(graph_remove_dead(g), 0);
    ck_assert_uint_eq(graph_release_dead(g), 0); /* nothing more all dead */
    assert_reached(g);
    free(before);
    free(after);
    free(dead);
    free(dead_id);
    graph_free(g);
}
END_TEST

/* graph_drop_positions: every node's position reads 0 after, and one set
 * after is kept. */
START_TEST(test_drop_positions)
{
    graft_graph *g = graph_new();
    graph_reserve(g, 4);
    graft_node *x = graph_add_param(g, "x", NULL);
    graft_node *y = graph_add_call(g, "nn.relu", &x, 1, NULL, 0);
    graph_set_pos(g, x, 1, 11);
    graph_set_pos(g, y, 2, 3);
    graph_drop_positions(g);
    ck_assert_int_eq(node_line(g, x), 0);
    ck_assert_int_eq(node_col(g, x), 0);
    ck_assert_int_eq(node_line(g, y), 0);
    ck_assert_int_eq(node_col(g, y), 0);
    graph_set_pos(g, y, 7, 5);
    ck_assert_int_eq(node_line(g, y), 7);
    ck_assert_int_eq(node_col(g, y), 5);
    ck_assert_int_eq(node_line(g, x), 0);
    graph_free(g);
}
END_TEST

/* graph_make_main's graph borrows @main's function's table of parameters
 * (note [main's parameters] in src/ir/graph.c); a parameter added after
 * goes to a table of the graph's own, the others kept in order. */
START_TEST(test_main_parameters_borrowed)
{
    graft_graph *g = graph_new();
    graft_node *p[3] = {graph_add_fn_param(g, "a", NULL), graph_add_fn_param(g, "b", NULL),
                        graph_add_fn_param(g, "c", NULL)};
    graft_node *body = graph_add_tuple(g, p, 3);
    graft_node *main = graph_add_func(g, p, 3, body, NULL, 0);
    ck_assert(graph_add_global(g, "main", main));
    graph_make_main(g, main);
    ck_assert_int_eq(graph_nparams(g), 3);
    for (int i = 0; i < 3; i++)
        ck_assert_ptr_eq(graph_param(g, i), p[i]);
    ck_assert_ptr_eq(graph_output(g), body);
    graft_node *d = graph_add_param(g, "d", NULL);
    ck_assert_int_eq(graph_nparams(g), 4);
    for (int i = 0; i < 3; i++)
        ck_assert_ptr_eq(graph_param(g, i), p[i]);
    ck_assert_ptr_eq(graph_param(g, 3), d);
    ck_assert_ptr_eq(node_param(main, 0), p[0]); /* the function's own table as it was */
    ck_assert_int_eq(node_nparams(main), 3);
    assert_prints(g, "def @main(%a, %b, %c, %d) {\n  (%a, %b, %c)\n}\n");
    graph_free(g);
}
END_TEST

START_TEST(test_names_made_new)
{
    /* note [names made new] in src/ir/graph_new_names.c: a batch's names stay out of
       the interner until a string that could be one is asked for */
    graft_graph *g = graph_new();
    size_t before = graph_interned_count(g);
    graph_begin_new_names(g, "FunctionVar_", 12);
    graft_node *p[12];
    graph_add_fn_params_new(g, "FunctionVar_0_xx", 14, 11, p); /* stem_len bytes only */
    ck_assert_str_eq(node_name(p[0]), "FunctionVar_0_0");
    ck_assert_str_eq(node_name(p[10]), "FunctionVar_0_10");
    ck_assert_uint_eq(interner_length(node_name(p[0])), 15);
    ck_assert_uint_eq(interner_length(node_name(p[10])), 16);
    ck_assert_ptr_null(node_type(p[0]));
    ck_assert_uint_eq(graph_interned_count(g), before);
    ck_assert_ptr_null(interner_lookup(g->strings, "FunctionVar_0_0", 15));
    /* of the prefix but shorter than any (ONNX's FunctionVar_<k>), or of
       another prefix: the batch stays as it is */
    ck_assert_ptr_eq(graph_intern(g, "FunctionVar_0"),
                     interner_lookup(g->strings, "FunctionVar_0", 13));
    ck_assert_ptr_eq(graph_intern_n(g, "x_FunctionVar", 13), graph_intern(g, "x_FunctionVar"));
    ck_assert_uint_eq(graph_interned_count(g), before + 2);
    ck_assert_ptr_null(interner_lookup(g->strings, "FunctionVar_0_0", 15));
    /* one that could be: every name of the batch interned first, and the
       variables pointed at their interned copies */
    const char *old_10 = node_name(p[10]);
    const char *asked = graph_intern(g, "FunctionVar_0_0");
    ck_assert_ptr_eq(asked, node_name(p[0]));
    ck_assert_ptr_ne(node_name(p[10]), old_10);
    ck_assert_ptr_eq(graph_intern_n(g, "FunctionVar_0_10", 16), node_name(p[10]));
    ck_assert_uint_eq(graph_interned_count(g), before + 13);
    /* the prefix now interned: the next names are looked up, an
       interned one taken as it is */
    graph_add_fn_params_new(g, "FunctionVar_0_", 14, 1, p);
    ck_assert_ptr_eq(node_name(p[0]), asked);
    graph_add_fn_params_new(g, "FunctionVar_1_", 14, 1, p);
    ck_assert_str_eq(node_name(p[0]), "FunctionVar_1_0");
    ck_assert_ptr_null(interner_lookup(g->strings, "FunctionVar_1_0", 15));
    /* a stem not of the prefix: interned at once */
    graft_node *other;
    graph_add_fn_params_new(g, "other", 5, 1, &other);
    ck_assert_ptr_eq(node_name(other), interner_lookup(g->strings, "other0", 6));
    /* a new batch interns the last one's names first */
    const char *old_1 = node_name(p[0]);
    graph_begin_new_names(g, "FunctionVar_", 1);
    ck_assert_ptr_ne(node_name(p[0]), old_1);
    ck_assert_ptr_eq(interner_lookup(g->strings, "FunctionVar_1_0", 15), node_name(p[0]));
    graft_node *again;
    graph_add_fn_params_new(g, "FunctionVar_1_", 14, 1, &again);
    ck_assert_ptr_eq(node_name(again), node_name(p[0]));
    graph_free(g);
}
END_TEST

START_TEST(test_names_made_new_spelled_before)
{
    /* a model that spells a name of the prefix: the batch looks each name
       up, and takes the model's where it is one */
    graft_graph *g = graph_new();
    graft_node *model = graph_add_param(g, "FunctionVar_0_1", NULL);
    graph_begin_new_names(g, "FunctionVar_", 2);
    graft_node *p[2];
    graph_add_fn_params_new(g, "FunctionVar_0_", 14, 2, p);
    ck_assert_ptr_eq(node_name(p[1]), node_name(model));
    ck_assert_ptr_null(interner_lookup(g->strings, "FunctionVar_0_0", 15));
    graph_intern_new_names(g);
    ck_assert_ptr_eq(interner_lookup(g->strings, "FunctionVar_0_0", 15), node_name(p[0]));
    graph_free(g);
}
END_TEST

/* note [canonical tensor types]: one type per dtype and dims, whoever
 * asks (a dtype's spelling interned or not), with the text TVM prints;
 * another dtype, rank or dim another type; tuples spelled as before. */
START_TEST(test_canonical_tensor_types)
{
    graft_graph *g = graph_new();
    int64_t dims[] = {1, 32, 112, 112}, other[] = {1, 32, 112, 56};
    char dtype[] = "float32";
    const graft_type *t = graph_type_tensor(g, "float32", dims, 4);
    ck_assert_str_eq(t->text, "Tensor[(1, 32, 112, 112), float32]");
    ck_assert_ptr_eq(graph_type_tensor(g, dtype, dims, 4), t);
    ck_assert_ptr_eq(graph_type_of_text(g, t->text, strlen(t->text)), t);
    ck_assert_ptr_ne(graph_type_tensor(g, "float16", dims, 4), t);
    ck_assert_ptr_ne(graph_type_tensor(g, "float32", dims, 3), t);
    ck_assert_ptr_ne(graph_type_tensor(g, "float32", other, 4), t);
    ck_assert_str_eq(graph_type_tensor(g, "float32", other, 4)->text,
                     "Tensor[(1, 32, 112, 56), float32]");
    int64_t n = graph_dim_symbol(g, "batch", 5);
    int64_t named[] = {n, DIM_ANY, 0, 1234567890123};
    const graft_type *s = graph_type_tensor(g, "int8", named, 4);
    ck_assert_str_eq(s->text, "Tensor[(batch, ?, 0, 1234567890123), int8]");
    ck_assert_ptr_eq(graph_type_tensor(g, "int8", named, 4), s);
    ck_assert_str_eq(graph_type_tensor(g, "bool", NULL, 0)->text, "bool");
    for (int64_t d = 1; d <= 64; d++) /* dims one apart: keys apart (canonical both) */
        ck_assert_ptr_eq(graph_type_tensor(g, "float32", &d, 1),
                         graph_type_tensor(g, "float32", (int64_t[]){d}, 1));
    const graft_type *fields[] = {t, s};
    ck_assert_str_eq(graph_type_tuple(g, fields, 2)->text,
                     "(Tensor[(1, 32, 112, 112), float32], "
                     "Tensor[(batch, ?, 0, 1234567890123), int8])");
    ck_assert_str_eq(graph_type_tuple(g, fields, 1)->text, "(Tensor[(1, 32, 112, 112), float32],)");
    ck_assert_str_eq(graph_type_tuple(g, fields, 0)->text, "()");
    const graft_type *many[70]; /* more than tuple_text measures once */
    for (int i = 0; i < 70; i++)
        many[i] = i % 2 ? s : t;
    const char *text = graph_type_tuple(g, many, 70)->text;
    ck_assert_uint_eq(strlen(text), 35 * strlen(t->text) + 35 * strlen(s->text) + 69 * 2 + 2);
    ck_assert_str_eq(text + strlen(text) - strlen(s->text) - 1 - 2 - strlen(t->text),
                     "Tensor[(1, 32, 112, 112), float32], "
                     "Tensor[(batch, ?, 0, 1234567890123), int8])");
    graph_free(g);
}
END_TEST

START_TEST(test_params_made_like)
{
    /* graph_add_fn_params_like: each parameter typed as its like is, not
       declared; a stem longer than note [stems copied whole]'s copy, and
       names past 9, spelled whole */
    graft_graph *g = graph_new();
    const graft_type *t = graph_type_tensor(g, "float32", NULL, 0);
    graft_node *like[11];
    for (int i = 0; i < 11; i++)
        like[i] = graph_add_param(g, i == 3 ? "untyped" : "typed", i == 3 ? NULL : t);
    graph_begin_new_names(g, "FunctionVar_", 22);
    graft_node *p[11];
    graph_add_fn_params_like(g, "FunctionVar_2_", 14, 11, like, p);
    ck_assert_str_eq(node_name(p[10]), "FunctionVar_2_10");
    ck_assert_ptr_eq(node_type(p[0]), t);
    ck_assert_ptr_null(node_type(p[3]));
    ck_assert_ptr_eq(node_type(p[10]), t);
    ck_assert(!node_type_declared(p[0]));
    ck_assert_int_eq(node_kind(p[0]), NODE_VAR);
    ck_assert_uint_eq(node_id(p[1]), node_id(p[0]) + 1);
    const char *stem = "FunctionVar_a_stem_of_forty_bytes_long_";
    graph_add_fn_params_like(g, stem, strlen(stem), 11, like, p);
    ck_assert_str_eq(node_name(p[0]), "FunctionVar_a_stem_of_forty_bytes_long_0");
    ck_assert_str_eq(node_name(p[10]), "FunctionVar_a_stem_of_forty_bytes_long_10");
    ck_assert_uint_eq(interner_length(node_name(p[10])), strlen(stem) + 2);
    ck_assert_ptr_null(interner_lookup(g->strings, node_name(p[10]), strlen(stem) + 2));
    graph_free(g);
}
END_TEST

START_TEST(test_func_sharing_scopes)
{
    /* graph_add_func_sharing: its parameters in its scope, a body made
       after them adopted (note [function scope] in graph_walk.c), one made
       before left where it was; the attributes and parameters its own */
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL);
    graft_node *old = graph_add_call(g, "negative", &x, 1, NULL, 0);
    graft_node *p[2] = {graph_add_fn_param(g, "p", NULL), graph_add_fn_param(g, "q", NULL)};
    graft_node *add = graph_add_call(g, "add", p, 2, NULL, 0);
    graft_attr_value *v = graph_new_attr_value(g, GRAFT_ATTR_STRING);
    v->s = graph_intern(g, "f");
    const graft_attr attrs[1] = {{graph_intern(g, "Composite"), v}};
    graft_node *fn = graph_add_func_sharing(g, p, 2, add, attrs, 1);
    p[0] = NULL; /* the function keeps its own copy */
    ck_assert_int_eq(node_nparams(fn), 2);
    ck_assert_str_eq(node_name(node_param(fn, 0)), "p");
    ck_assert_ptr_eq(node_body(fn), add);
    ck_assert_ptr_eq(node_attr(fn, 0), &attrs[0]);
    ck_assert_int_eq(node_nattrs(fn), 1);
    ck_assert_ptr_eq(node_scope(g, node_param(fn, 0)), fn);
    ck_assert_ptr_eq(node_scope(g, node_param(fn, 1)), fn);
    ck_assert_ptr_eq(node_scope(g, add), fn);
    ck_assert_ptr_null(node_ret_type(fn));
    graft_node *q = graph_add_fn_param(g, "r", NULL);
    graft_node *moved = graph_add_func_sharing(g, &q, 1, old, NULL, 0);
    ck_assert_ptr_eq(node_scope(g, q), moved);
    ck_assert_ptr_null(node_scope(g, old));
    ck_assert_int_eq(node_nattrs(moved), 0);
    graph_free(g);
}
END_TEST

/* node_func_parts gives in one call what each accessor gives, with or
 * without the optional parts (a result type, type parameters). */
START_TEST(test_func_parts)
{
    graft_graph *g = graph_new();
    graft_node *q[] = {graph_add_fn_param(g, "q", NULL), graph_add_fn_param(g, "r", NULL)};
    graft_node *body = graph_add_call(g, "add", q, 2, NULL, 0);
    graft_attr_value *v = graph_new_attr_value(g, GRAFT_ATTR_STRING);
    v->s = graph_intern(g, "add_");
    graft_attr attrs[1] = {{"PartitionedFromPattern", v}};
    graft_node *fn = graph_add_func(g, q, 2, body, attrs, 1);
    FuncParts f = node_func_parts(fn);
    ck_assert_ptr_eq(f.params, node_params(fn));
    ck_assert_int_eq(f.nparams, 2);
    ck_assert_int_eq(f.nattrs, 1);
    ck_assert_ptr_eq(f.body, body);
    ck_assert_ptr_null(f.ret);
    ck_assert_ptr_null(f.type_params);
    const graft_type *t = graph_type_other(g, "Tensor[(3), float32]", 20);
    graph_set_ret_type(g, fn, t);
    graph_set_type_params(g, fn, "A, B");
    f = node_func_parts(fn);
    ck_assert_ptr_eq(f.ret, t);
    ck_assert_ptr_eq(f.ret, node_ret_type(fn));
    ck_assert_str_eq(f.type_params, "A, B");
    graph_free(g);
}
END_TEST

/* graph_kill_cone (note [kill as the pass goes] in src/ir/graph_compact.c):
 * a root still used kills nothing; once its use moved, it dies with %0
 * (read twice) and %1, and not %x, which negative reads, nor the
 * variables %y and free %z, left unused for the next kill of given
 * nodes: that one kills %z and keeps @main's %y. */
START_TEST(test_kill_cone)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL), *y = graph_add_param(g, "y", NULL);
    graft_node *z = graph_add_fn_param(g, "z", NULL);
    graph_set_free(g, z);
    graft_node *xy[2] = {x, y};
    graft_node *s = graph_add_call(g, "subtract", xy, 2, NULL, 0);
    graft_node *sz[2] = {s, z};
    graft_node *t = graph_add_call(g, "multiply", sz, 2, NULL, 0);
    graft_node *st[2] = {s, t};
    graft_node *root = graph_add_call(g, "add", st, 2, NULL, 0);
    graft_node *keep = graph_add_call(g, "negative", &x, 1, NULL, 0);
    graft_node *fields[2] = {root, keep};
    graph_set_output(g, graph_add_tuple(g, fields, 2));
    ck_assert_uint_eq(graph_kill_cone(g, root), 0);
    ck_assert(!node_is_dead(root));
    graph_replace_all_uses(g, root, keep);
    ck_assert_uint_eq(graph_kill_cone(g, root), 3);
    ck_assert(node_is_dead(root) && node_is_dead(t) && node_is_dead(s));
    ck_assert(!node_is_dead(x) && !node_is_dead(y) && !node_is_dead(z));
    ck_assert_int_eq(node_nusers(x), 1);
    ck_assert_int_eq(node_nusers(y), 0);
    ck_assert_int_eq(node_nusers(z), 0);
    ck_assert_uint_eq(graph_kill_cone(g, root), 0); /* dead already */
    ck_assert_uint_eq(graph_kill_given(g, NULL, 0, graph_node_count(g)), 1);
    ck_assert(node_is_dead(z));
    ck_assert(!node_is_dead(y));
    assert_prints(g, "def @main(%x, %y) {\n  %0 = negative(%x);\n  (%0, %0)\n}\n");
    assert_reached(g);
    graph_free(g);
}
END_TEST

/* graph_release_dead as a pass kills (note [blocks freed as a pass goes]
 * in src/ir/graph_compact.c): 3,583 unused nn.relu(%x), 56 bytes each,
 * %x (40 bytes) and the first 1,169 in block 0, 1,170 to a block after,
 * the last 74 in block 3, killed in id
 * order in three steps: the second block, half dead after the first
 * step, is freed after the second, from where its scan stopped; block 0
 * (%x lives) and the last block (the pool) never are; a freed node's
 * entry is the released node, and the nodes made after are cut as
 * before. */
START_TEST(test_release_dead_as_killed)
{
    enum { RELUS = 3583, BLOCK1 = 1169, BLOCK2 = BLOCK1 + 1170, BLOCK3 = BLOCK2 + 1170 };
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL);
    graph_set_output(g, x);
    uint32_t *ids = malloc(RELUS * sizeof *ids);
    for (int i = 0; i < RELUS; i++)
        ids[i] = node_id(graph_add_call(g, "nn.relu", &x, 1, NULL, 0));
    static const int upto[] = {BLOCK1 + 400, BLOCK2, RELUS};
    static const size_t freed[] = {0, 1, 1};
    for (int step = 0, i = 0; step < 3; step++) {
        for (; i < upto[step]; i++)
            ck_assert_uint_eq(graph_kill_cone(g, graph_node(g, ids[i])), 1);
        ck_assert_uint_eq(graph_release_dead(g), freed[step] * NODE_BLOCK);
    }
    for (int i = 0; i < RELUS; i++) {
        graft_node *n = graph_node(g, ids[i]);
        bool released = i >= BLOCK1 && i < BLOCK3;
        ck_assert(node_is_dead(n));
        ck_assert_int_eq(node_kind(n), released ? NODE_TUPLE : NODE_CALL);
    }
    ck_assert_int_eq(node_nusers(x), 0);
    graft_node *more = graph_add_call(g, "nn.relu", &x, 1, NULL, 0);
    graph_set_output(g, more);
    ck_assert_uint_eq(node_id(more), graph_node_count(g) - 1);
    assert_prints(g, "def @main(%x) {\n  nn.relu(%x)\n}\n");
    free(ids);
    graph_free(g);
}
END_TEST

/* graph_reserve makes no positions' table (note [positions on demand] in
 * src/ir/graph.c): a graph that sets none reads 0 for each node and
 * loading done keeps none; the first asked for or set is made with the
 * reserved room, zeroed. */
START_TEST(test_positions_on_demand)
{
    graft_graph *g = graph_new();
    graph_reserve(g, 100);
    graft_node *x = graph_add_param(g, "x", NULL);
    graft_node *y = graph_add_call(g, "nn.relu", &x, 1, NULL, 0);
    ck_assert_int_eq(node_line(g, y), 0);
    graph_fit_positions(g);
    ck_assert_int_eq(node_col(g, y), 0);
    size_t cap = 1;
    ck_assert_ptr_null(graph_positions(g, &cap)); /* none wanted after loading */
    ck_assert_uint_eq(cap, 0);
    graph_free(g);
    g = graph_new();
    graph_reserve(g, 100);
    x = graph_add_param(g, "x", NULL);
    y = graph_add_call(g, "nn.relu", &x, 1, NULL, 0);
    graph_set_pos(g, y, 2, 7);
    int32_t *pos = graph_positions(g, &cap);
    ck_assert_uint_eq(cap, 100);
    ck_assert_int_eq(pos[2 * node_id(y)], 2);
    ck_assert_int_eq(pos[2 * node_id(y) + 1], 7);
    ck_assert_int_eq(node_line(g, x), 0);
    for (size_t i = 2 * (size_t)node_id(y) + 2; i < 2 * cap; i++)
        ck_assert_int_eq(pos[i], 0);
    graph_free(g);
    g = graph_new();
    graph_reserve(g, 100);
    ck_assert_ptr_nonnull(graph_positions(g, &cap));
    ck_assert_uint_eq(cap, 100);
    graph_free(g);
}
END_TEST

/* note [names reserved by count] in src/relay/relay_load_params.c:
 * graph_reserve_nodes leaves the interner's table as it is, where
 * graph_reserve sizes it for names for half the nodes (500 names and
 * note [interner load]'s slack in arena.c: 714 slots); a Relay def's
 * 300 parameters, whose long names make a text that implies over 1,700
 * nodes, take a table of 462 slots (301 names and the slack, at most 4/5
 * full), not the 1,159 that 850 names would. */
START_TEST(test_names_reserved_by_count)
{
    graft_graph *g = graph_new();
    size_t slots = g->strings->nslots;
    graph_reserve_nodes(g, 1000);
    ck_assert_uint_eq(g->strings->nslots, slots);
    ck_assert_uint_ge(g->nodes_cap, 1000);
    size_t cap;
    ck_assert_ptr_nonnull(graph_positions(g, &cap));
    ck_assert_uint_eq(cap, 1000);
    graph_reserve(g, 1000);
    ck_assert_uint_eq(g->strings->nslots, 714);
    graph_free(g);
    StrBuf text = {0};
    strbuf_puts(&text, "def @main(");
    for (int i = 0; i < 300; i++)
        strbuf_printf(&text, "%s%%a_parameter_with_a_much_longer_name_%d", i ? ", " : "", i);
    strbuf_puts(&text, ") {\n");
    for (int i = 0; i < 300; i++)
        strbuf_printf(&text, "  %%%d = negative(%%a_parameter_with_a_much_longer_name_%d);\n", i, i);
    strbuf_puts(&text, "  (%0, %299)\n}\n");
    ck_assert_uint_gt(text.len, 1700 * 16); /* (850 names: 1,159 slots) */
    Source *src = source_from_string("names.relay", text.data, text.len);
    graft_diag *d = diag_new(stderr);
    g = relay_load(src, d);
    ck_assert_ptr_nonnull(g);
    ck_assert_uint_eq(g->strings->nslots, 462);
    ck_assert_int_eq(graph_nparams(g), 300);
    graph_free(g);
    diag_free(d);
    source_free(src);
    strbuf_free(&text);
}
END_TEST

/* note [value names by id]: names put past the reserved ids, out of
 * order, a node between left unnamed, a name taken back. */
START_TEST(test_value_names_by_id)
{
    graft_graph *g = graph_new();
    graph_reserve_names(g, 8, 2);
    graft_node *p[300];
    for (int k = 0; k < 300; k++)
        p[k] = graph_add_param(g, "p", NULL);
    ck_assert_ptr_null(graph_value_name(g, p[0]));
    graph_set_value_name(g, p[299], "last");
    graph_set_value_name(g, p[1], "one");
    graph_set_value_name_interned(g, p[0], graph_intern(g, "zero"));
    ck_assert_str_eq(graph_value_name(g, p[299]), "last");
    ck_assert_ptr_eq(graph_value_name(g, p[1]), graph_intern(g, "one"));
    ck_assert_str_eq(graph_value_name(g, p[0]), "zero");
    ck_assert_ptr_null(graph_value_name(g, p[2]));
    ck_assert_ptr_null(graph_value_name(g, p[298]));
    graph_set_value_name(g, p[1], NULL);
    ck_assert_ptr_null(graph_value_name(g, p[1]));
    graft_node *later = graph_add_param(g, "q", NULL);
    ck_assert_ptr_null(graph_value_name(g, later));
    graph_free(g);
}
END_TEST

/* Whether this process runs under valgrind's memcheck, which preloads its
 * own library (as check_base.c tells it). */
static bool under_memcheck(void)
{
    const char *preload = getenv("LD_PRELOAD");
    return preload && strstr(preload, "vgpreload_memcheck");
}

/* A node table of more entries than a size_t counts in bytes is out of
 * memory (exit status 3), not a table of the bytes' count wrapped round,
 * too small for what it claims to hold.  In a child of its own, and not
 * under memcheck, as check_base's out_of_memory_exits_3. */
START_TEST(test_node_table_past_size_max)
{
    if (under_memcheck())
        return;
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        int quiet = open("/dev/null", O_WRONLY);
        dup2(quiet, STDERR_FILENO);
        graft_graph *g = graph_new();
        graph_reserve_nodes(g, SIZE_MAX / sizeof(graft_node *) + 1);
        _exit(0); /* not reached */
    }
    int status = 0;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 3);
}
END_TEST

/* A node made when the node table is full (new_node_making_room in
 * src/ir/graph.c) and the pool's block has exactly its bytes left: cut
 * from that block, the last of it, no new block opened. */
START_TEST(test_pool_block_filled_exactly)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL);
    graft_node *y = graph_add_param(g, "y", NULL); /* cut right after x */
    size_t param = (size_t)((const char *)y - (const char *)x); /* (note [short nodes]) */
    size_t left = g->node_pool_left;
    graft_node *two = graph_add_call(g, "add", (graft_node *[]){x, x}, 2, NULL, 0);
    size_t call = left - g->node_pool_left; /* a node and two slots */
    ck_assert_uint_ne(call % param, 0);
    while (g->node_pool_left != param) {
        if ((g->node_pool_left - param) % param == 0)
            graph_add_param(g, "p", NULL);
        else /* the bytes left move off a multiple of param's */
            graph_add_call(g, "add", (graft_node *[]){two, x}, 2, NULL, 0);
    }
    graph_fit_nodes(g, 0); /* the table full */
    size_t blocks = g->node_blocks.len;
    graft_node *last = graph_add_param(g, "last", NULL);
    ck_assert_uint_eq(g->node_blocks.len, blocks);
    ck_assert_uint_eq(g->node_pool_left, 0);
    ck_assert_ptr_eq(graph_node(g, graph_node_count(g) - 1), last);
    graph_free(g);
}
END_TEST

/* note [short nodes] in graph.c: a variable, a global's reference and
 * an operator reference are 40 bytes of the pool, the next node cut
 * right after; filling that node leaves theirs as they were, and their
 * accessors of the other kinds' fields answer as for any plain node. */
static ptrdiff_t bytes_between(const graft_node *a, const graft_node *b)
{
    return (const char *)b - (const char *)a;
}

START_TEST(test_short_nodes)
{
    graft_graph *g = graph_new();
    const graft_type *f32 = graph_type_tensor(g, "float32", NULL, 0);
    graft_node *x = graph_add_param(g, "x", f32);
    graft_node *y = graph_add_param(g, "y", NULL);
    graft_node *made[5];
    graph_add_fn_params_new(g, "FunctionVar_0_", 14, 5, made); /* graph_new_vars */
    graft_node *add = graph_add_opref(g, "add");
    graft_node *ref = graph_global_ref(g, "f");
    graft_node *c = graph_add_const(g, "2.5f", 2.5, "float32");
    graft_node *sum = graph_add_call(g, "add", (graft_node *[]){x, c}, 2, NULL, 0);
    if (sizeof(void *) == 8) {
        ck_assert_int_eq(bytes_between(x, y), 40);
        ck_assert_int_eq(bytes_between(y, made[0]), 40);
        for (int k = 1; k < 5; k++)
            ck_assert_int_eq(bytes_between(made[k - 1], made[k]), 40);
        ck_assert_int_eq(bytes_between(made[4], add), 40);
        ck_assert_int_eq(bytes_between(add, ref), 40);
        ck_assert_int_eq(bytes_between(ref, c), 40);
        ck_assert_int_eq(bytes_between(c, sum), 56);
    }
    ck_assert_str_eq(node_name(x), "x");
    ck_assert_ptr_eq(node_type(x), f32);
    ck_assert(node_type_declared(x));
    ck_assert_ptr_null(node_type(y));
    ck_assert_str_eq(node_name(made[4]), "FunctionVar_0_4");
    ck_assert_str_eq(node_name(add), "add");
    ck_assert_str_eq(node_name(ref), "f");
    ck_assert_int_eq(node_kind(ref), NODE_GLOBAL);
    ck_assert(node_const_value(c) == 2.5);
    ck_assert_str_eq(node_const_dtype(c), "float32");
    ck_assert_ptr_eq(node_arg(sum, 0), x);
    ck_assert_ptr_eq(node_arg(sum, 1), c);
    ck_assert_int_eq(node_nusers(x), 1);
    const graft_node *shorts[] = {x, made[4], add, ref};
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(node_nattrs(shorts[i]), 0);
        ck_assert_int_eq(node_nargs(shorts[i]), 0);
        ck_assert_int_eq(node_index(shorts[i]), -1);
        ck_assert_int_eq(node_noutputs(shorts[i]), 1);
        ck_assert(node_const_value(shorts[i]) == 0.0);
        ck_assert_ptr_null(node_const_dtype(shorts[i]));
        ck_assert_ptr_null(node_find_attr(shorts[i], "axis"));
        ck_assert_ptr_null(node_callee(shorts[i]));
    }
    graph_free(g);
}
END_TEST

/* note [tail word] in graph.c: a call's attributes, a function's and a
 * literal's dtype are a word after the slots (a callee's included) of
 * the nodes made with them: 8 bytes more than a node without, which is
 * 48 and 8 a slot; each builder's node reads its own back, and a
 * module's @main keeps its attributes. */
START_TEST(test_tail_word)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL);
    graft_attr_value *v = graph_new_attr_value(g, GRAFT_ATTR_INT);
    v->i = -1;
    graft_attr axis = {"axis", v};
    graft_node *plain = graph_add_call(g, "nn.relu", &x, 1, NULL, 0);
    graft_node *soft = graph_add_call(g, "nn.softmax", &plain, 1, &axis, 1);
    graft_node *inter = graph_add_call_interned(g, graph_intern(g, "nn.softmax"), &soft, 1,
                                                &axis, 1);
    graft_node *shared = graph_add_call_sharing(g, graph_intern(g, "nn.softmax"), &inter, 1,
                                                node_attr(inter, 0), 1);
    graft_node *lit = graph_add_literal_interned(g, graph_intern(g, "2f"), 2.0,
                                                 graph_intern(g, "float32"));
    graft_node *q = graph_add_fn_param(g, "q", NULL);
    graft_node *fn = graph_add_func(g, &q, 1, graph_add_call(g, "exp", &q, 1, NULL, 0), &axis, 1);
    graft_node *call = graph_add_fn_call(g, fn, &shared, 1);
    graft_node *after = graph_add_call(g, "add", (graft_node *[]){call, lit}, 2, NULL, 0);
    if (sizeof(void *) == 8) {
        ck_assert_int_eq(bytes_between(plain, soft), 56);
        ck_assert_int_eq(bytes_between(soft, inter), 64);
        ck_assert_int_eq(bytes_between(inter, shared), 64);
        ck_assert_int_eq(bytes_between(shared, lit), 64);
        ck_assert_int_eq(bytes_between(lit, q), 56);
    }
    ck_assert_int_eq(node_nattrs(plain), 0);
    ck_assert_ptr_null(node_find_attr(plain, "axis"));
    const graft_node *with[] = {soft, inter, shared, fn};
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(node_nattrs(with[i]), 1);
        ck_assert_str_eq(node_attr(with[i], 0)->name, "axis");
        ck_assert_ptr_eq(node_find_attr(with[i], "axis"), v);
    }
    ck_assert_ptr_eq(node_attr(shared, 0), node_attr(inter, 0)); /* shared, not copied */
    ck_assert_str_eq(node_const_dtype(lit), "float32");
    ck_assert(node_const_value(lit) == 2.0);
    ck_assert_ptr_eq(node_callee(call), fn);
    ck_assert_int_eq(node_nattrs(call), 0);
    ck_assert_ptr_eq(node_arg(after, 0), call);
    ck_assert_ptr_eq(node_arg(after, 1), lit);
    graph_set_output(g, after);
    assert_prints(g, "def @main(%x) {\n"
                     "  %0 = nn.relu(%x);\n"
                     "  %1 = nn.softmax(%0, axis=-1);\n"
                     "  %2 = nn.softmax(%1, axis=-1);\n"
                     "  %3 = nn.softmax(%2, axis=-1);\n"
                     "  %4 = fn (%q, axis=-1) {\n"
                     "    exp(%q)\n"
                     "  };\n"
                     "  %5 = %4(%3);\n"
                     "  add(%5, 2f)\n"
                     "}\n");
    graph_free(g);
    const char *text = "def @main(%x, Primitive=1) {\n  nn.relu(%x)\n}\n";
    Source *src = source_from_string("main.relay", text, strlen(text));
    graft_diag *d = diag_new(stderr);
    g = relay_load(src, d);
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(graph_main_nattrs(g), 1);
    ck_assert_str_eq(graph_main_attr(g, 0)->name, "Primitive");
    graph_free(g);
    diag_free(d);
    source_free(src);
}
END_TEST

/* A function's record holds its parameters (note [function records] in
 * graph_impl.h): five take 64 bytes of the arena, so two functions made
 * one after the other have records 64 bytes apart, each parameter read
 * back in order; neither has declarations. */
START_TEST(test_function_record)
{
    graft_graph *g = graph_new();
    graft_node *fns[2];
    for (int f = 0; f < 2; f++) {
        graft_node *p[5];
        graph_add_fn_params_new(g, f ? "FunctionVar_1_" : "FunctionVar_0_", 14, 5, p);
        graft_node *body = graph_add_call(g, "add", p, 2, NULL, 0);
        fns[f] = graph_add_func_sharing(g, p, 5, body, NULL, 0);
        ck_assert_int_eq(node_nparams(fns[f]), 5);
        for (int i = 0; i < 5; i++) {
            ck_assert_ptr_eq(node_param(fns[f], i), p[i]);
            ck_assert_ptr_eq(node_scope(g, p[i]), fns[f]);
        }
        ck_assert_ptr_eq(node_params(fns[f]), fns[f]->u.fn->params);
        ck_assert_ptr_eq(node_body(fns[f]), body);
        ck_assert_ptr_null(fns[f]->u.fn->decl);
    }
    if (sizeof(void *) == 8) {
        ck_assert_uint_eq(func_info_size(5), 64);
        ck_assert_int_eq((const char *)fns[1]->u.fn - (const char *)fns[0]->u.fn, 64);
    }
    graph_free(g);
}
END_TEST

/* A call of a function value with attributes ("@f(%x, Inline=1)") has
 * its tail word after its callee's slot, made with the node (note [tail
 * word] in src/ir/graph.c): the node made next starts past it and keeps
 * its operands (the attributes were once set after the call was made,
 * over the next node's first word: graft fmt of
 * tests/relay/modules/functions.relay crashed). */
START_TEST(test_fn_call_attrs)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL);
    graft_node *q = graph_add_fn_param(g, "q", NULL);
    graft_node *fn = graph_add_func(g, &q, 1, graph_add_call(g, "exp", &q, 1, NULL, 0), NULL, 0);
    graft_attr_value *v = graph_new_attr_value(g, GRAFT_ATTR_INT);
    v->i = 1;
    graft_attr inline_attr = {"Inline", v};
    graft_node *plain = graph_add_fn_call_attrs(g, fn, &x, 1, NULL, 0);
    graft_node *call = graph_add_fn_call_attrs(g, fn, &plain, 1, &inline_attr, 1);
    graft_node *after = graph_add_call(g, "add", (graft_node *[]){call, x}, 2, NULL, 0);
    if (sizeof(void *) == 8) {
        ck_assert_int_eq(bytes_between(plain, call), 48 + 2 * 8);
        ck_assert_int_eq(bytes_between(call, after), 48 + 2 * 8 + 8);
    }
    ck_assert_int_eq(node_nattrs(plain), 0);
    ck_assert_int_eq(node_nattrs(call), 1);
    ck_assert_str_eq(node_attr(call, 0)->name, "Inline");
    ck_assert_ptr_eq(node_find_attr(call, "Inline"), v);
    ck_assert_ptr_eq(node_callee(call), fn);
    ck_assert_ptr_eq(node_arg(call, 0), plain);
    ck_assert_str_eq(node_op(after), "add");
    ck_assert_ptr_eq(node_arg(after, 0), call);
    ck_assert_ptr_eq(node_arg(after, 1), x);
    ck_assert_int_eq(node_nusers(call), 1);
    graph_free(g);
}
END_TEST

/* note [scopes dropped before printing] in graph_walk.c: a partitioned
 * graph prints the same text without its scope table, which is freed
 * (the graph's bytes 4 fewer an id; no scope read or set after: note
 * [scopes after the drop] in graph_node.h, test_scope_after_drop), and
 * without its interner's table, which the printing does not make again;
 * an interning after makes the interner's again (the same copy). */
START_TEST(test_scopes_dropped_before_printing)
{
    graft_graph *g = main_with_nested_fn(true);
    graft_node *fn = graph_global_fn(g, 0);
    graft_node *relu = graph_output(g);
    graft_node *call = node_arg(relu, 0);
    graft_node *nested = node_callee(call);
    graft_node *neg = nested->u.fn->body;
    ck_assert_ptr_eq(node_scope(g, neg), nested);
    ck_assert_ptr_null(node_scope(g, relu));
    char *before = relay_print_string(g);
    size_t bytes = graph_bytes(g);
    size_t ids = g->side.scopes.cap;
    graph_drop_scopes(g);
    ck_assert_ptr_null(g->side.scopes.fn_id);
    ck_assert_uint_eq(graph_bytes(g), bytes - ids * sizeof(uint32_t));
    const char *negative = graph_intern(g, "negative");
    graph_drop_name_table(g);
    ck_assert_uint_eq(g->strings->nslots, 0);
    char *after = relay_print_string(g);
    ck_assert_str_eq(after, before);
    ck_assert_str_eq(after, "def @main(%x) {\n"
                            "  %0 = fn (%p) {\n"
                            "    negative(%p)\n"
                            "  };\n"
                            "  %1 = %0(%x);\n"
                            "  nn.relu(%1)\n"
                            "}\n");
    ck_assert_uint_eq(g->strings->nslots, 0); /* (the printer interned nothing) */
    ck_assert_ptr_eq(graph_intern(g, "negative"), negative);
    ck_assert_uint_ne(g->strings->nslots, 0);
    ck_assert(g->side.scopes.dropped);
    ck_assert_ptr_eq(fn, graph_global_fn(g, 0));
    free(before);
    free(after);
    graph_free(g);
}
END_TEST

/* g's marks by graph_reached_by_ids_how are graph_reached's
 * (assert_reached), made the way want says. */
static void assert_reached_way(const graft_graph *g, ReachedBy want, const char *what)
{
    uint8_t *reached = calloc(graph_node_count(g) + 1, 1);
    ReachedBy got = graph_reached_by_ids_how(g, reached);
    ck_assert_msg(got == want, "%s: reached by way %d, want %d", what, (int)got, (int)want);
    free(reached);
    if (want != REACHED_NOT)
        assert_reached(g);
}

/* Which way graph_reached_by_ids took (note [reached by users] in
 * src/ir/graph_walk.c): the users' for a graph the builder made in
 * order, with an unused parameter or none, or with the output a
 * parameter; the sweep's once a binding is unused (garbage), an operand
 * moved, a function is live or a global function is a root; neither for
 * a callee made after its call.  The marks are the same both ways, so
 * only the way tells a shortcut given up where it need not be. */
START_TEST(test_reached_by_users_counted)
{
    graft_graph *g = graph_new();
    graft_node *a = graph_add_param(g, "a", NULL);
    graft_node *b = graph_add_call(g, "f", &a, 1, NULL, 0);
    graft_node *c = graph_add_call(g, "g", &b, 1, NULL, 0);
    graph_set_output(g, c);
    assert_reached_way(g, REACHED_BY_USERS, "every node used");
    graph_add_param(g, "u", NULL);
    assert_reached_way(g, REACHED_BY_USERS, "an unused parameter");
    graph_set_arg(g, c, 0, b); /* the same operand: nothing moved */
    assert_reached_way(g, REACHED_BY_USERS, "an operand set to itself");
    graph_add_call(g, "h", &a, 1, NULL, 0);
    assert_reached_way(g, REACHED_BY_SWEEP, "an unused binding");
    graph_free(g);
    g = graph_new();
    a = graph_add_param(g, "a", NULL);
    b = graph_add_call(g, "f", &a, 1, NULL, 0);
    c = graph_add_call(g, "g", &b, 1, NULL, 0);
    graph_set_output(g, c);
    graph_set_arg(g, c, 0, a);
    assert_reached_way(g, REACHED_BY_SWEEP, "an operand moved");
    graph_free(g);
    g = graph_new();
    graph_set_output(g, graph_add_param(g, "x", NULL));
    graph_add_param(g, "y", NULL);
    assert_reached_way(g, REACHED_BY_USERS, "the output a parameter");
    graph_free(g);
    g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL);
    graft_node *p = graph_add_fn_param(g, "p", NULL);
    graft_node *fn = graph_add_func(g, &p, 1, graph_add_call(g, "negative", &p, 1, NULL, 0),
                                    NULL, 0);
    graft_node *call = graph_add_fn_call(g, fn, &x, 1);
    graph_set_output(g, call);
    assert_reached_way(g, REACHED_BY_SWEEP, "a live function");
    graft_node *q = graph_add_fn_param(g, "q", NULL);
    graph_set_arg(g, call, USE_CALLEE, graph_add_func(g, &q, 1, q, NULL, 0));
    assert_reached_way(g, REACHED_NOT, "the callee after the call");
    graph_free(g);
    g = graph_new();
    x = graph_add_param(g, "x", NULL);
    graph_set_output(g, graph_add_call(g, "negative", &x, 1, NULL, 0));
    p = graph_add_fn_param(g, "p", NULL);
    ck_assert(graph_add_global(g, "f", graph_add_func(g, &p, 1, p, NULL, 0)));
    assert_reached_way(g, REACHED_BY_SWEEP, "a global function");
    graph_free(g);
}
END_TEST

/* A function's declared result type and type parameters are a record
 * of their own, made when one is set (note [function records] in
 * graph_impl.h): none set, none made, and clearing one not set makes
 * none; each set reads back, in node_func_parts too, and clearing one
 * leaves the other. */
START_TEST(test_function_declarations)
{
    graft_graph *g = graph_new();
    graft_node *q = graph_add_fn_param(g, "q", NULL);
    graft_node *fn = graph_add_func(g, &q, 1, graph_add_call(g, "exp", &q, 1, NULL, 0), NULL, 0);
    graph_set_ret_type(g, fn, NULL);
    graph_set_type_params(g, fn, NULL);
    ck_assert_ptr_null(fn->u.fn->decl);
    ck_assert_ptr_null(node_ret_type(fn));
    ck_assert_ptr_null(node_type_params(fn));
    ck_assert_ptr_null(node_func_parts(fn).ret);
    const graft_type *t = graph_type_tensor(g, "float32", NULL, 0);
    graph_set_ret_type(g, fn, t);
    ck_assert_ptr_nonnull(fn->u.fn->decl);
    ck_assert_ptr_eq(node_ret_type(fn), t);
    ck_assert_ptr_null(node_type_params(fn));
    graph_set_type_params(g, fn, "A, B");
    ck_assert_str_eq(node_type_params(fn), "A, B");
    FuncParts parts = node_func_parts(fn);
    ck_assert_ptr_eq(parts.ret, t);
    ck_assert_str_eq(parts.type_params, "A, B");
    ck_assert_int_eq(parts.nparams, 1);
    graph_set_ret_type(g, fn, NULL);
    ck_assert_ptr_null(node_ret_type(fn));
    ck_assert_str_eq(node_type_params(fn), "A, B");
    graph_free(g);
}
END_TEST

/* graph_reserve_scopes makes the scope table for every id the node
 * table has room for, before any function is made (note [order dropped
 * before the last apply] in src/runtime/partition.c), zeroed; a function
 * made then finds it big enough, and a second call changes nothing. */
START_TEST(test_scopes_reserved)
{
    graft_graph *g = graph_new();
    graft_node *q = graph_add_fn_param(g, "q", NULL);
    graft_node *body = graph_add_call(g, "exp", &q, 1, NULL, 0);
    graph_fit_nodes(g, 3);
    ck_assert_uint_eq(g->nodes_cap, graph_node_count(g) + 3);
    graph_reserve_scopes(g);
    ck_assert_uint_eq(g->side.scopes.cap, g->nodes_cap);
    const uint32_t *table = g->side.scopes.fn_id;
    for (size_t id = 0; id < g->side.scopes.cap; id++)
        ck_assert_uint_eq(table[id], 0);
    graft_node *fn = graph_add_func(g, &q, 1, body, NULL, 0);
    ck_assert_ptr_eq(g->side.scopes.fn_id, table);
    ck_assert_ptr_eq(node_scope(g, body), fn);
    graph_reserve_scopes(g);
    ck_assert_ptr_eq(g->side.scopes.fn_id, table);
    graph_free(g);
}
END_TEST

/* A batch of names made new lists its variables in a list of its count
 * exactly, not the power of two above it (graph_new_names.c), and a
 * smaller batch after it keeps that list. */
START_TEST(test_new_names_listed_exactly)
{
    graft_graph *g = graph_new();
    graft_node *p[5];
    graph_begin_new_names(g, "FunctionVar_", 5);
    ck_assert_uint_eq(g->new_names.ids.cap, 5);
    graph_add_fn_params_new(g, "FunctionVar_0_", 14, 5, p);
    ck_assert_uint_eq(g->new_names.ids.len, 5);
    ck_assert_uint_eq(g->new_names.ids.cap, 5);
    const uint32_t *ids = g->new_names.ids.items;
    graph_begin_new_names(g, "FunctionVar_", 3);
    ck_assert_ptr_eq(g->new_names.ids.items, ids);
    ck_assert_uint_eq(g->new_names.ids.len, 0);
    ck_assert_str_eq(node_name(p[4]), "FunctionVar_0_4");
    graph_free(g);
}
END_TEST

/* note [fixed outputs] in src/ir/graph_module.c: a graph whose outputs
 * the IR fixes (ONNX's) keeps its result a tuple of at least that many
 * fields, none a tuple, and has no tuple anywhere else; a Relay graph
 * takes any replacement. */
START_TEST(test_fixed_outputs)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL), *y = graph_add_param(g, "y", NULL);
    graft_node *r = graph_add_call(g, "Relu", &x, 1, NULL, 0);
    graft_node *t = graph_add_call(g, "Tanh", &y, 1, NULL, 0);
    graft_node *out = graph_add_tuple(g, (graft_node *[]){r, t}, 2);
    graph_set_output(g, out);
    graft_node *one = graph_add_tuple(g, &x, 1);
    graft_node *three = graph_add_tuple(g, (graft_node *[]){r, t, x}, 3);
    graft_node *nested = graph_add_tuple(g, (graft_node *[]){one, t}, 2);
    ck_assert_int_eq(graph_fixed_output_fields(g), 0);
    ck_assert(graph_replacement_fits(g, out, one)); /* Relay: any shape */
    ck_assert(graph_replacement_fits(g, r, one));
    graph_fix_outputs(g, 2);
    ck_assert_int_eq(graph_fixed_output_fields(g), 2);
    ck_assert(!graph_replacement_fits(g, out, one));
    ck_assert(!graph_replacement_fits(g, out, x));
    ck_assert(!graph_replacement_fits(g, out, nested));
    ck_assert(graph_replacement_fits(g, out, three)); /* a kept value after the outputs */
    ck_assert(graph_replacement_fits(g, r, x));
    ck_assert(!graph_replacement_fits(g, r, one));
    graph_fix_outputs(g, OUTPUT_ONE_VALUE); /* one output, no tuple */
    graph_set_output(g, r);
    ck_assert(graph_replacement_fits(g, r, t));
    ck_assert(!graph_replacement_fits(g, r, one));
    graph_free(g);
}
END_TEST

/* note [int lists] in graph_attr.c: attr_value_ints reads an int as a
 * list of one, a list of at most max whole, and says what is wrong with
 * the rest: no value or None, a list longer than max, a string, an int
 * where max leaves no room, and a list whose item 1 is a float. */
START_TEST(test_attr_value_ints)
{
    static const graft_attr_value none = {.kind = GRAFT_ATTR_NULL};
    static const graft_attr_value two = {.kind = GRAFT_ATTR_INT, .i = 2};
    static const graft_attr_value three = {.kind = GRAFT_ATTR_INT, .i = -3};
    static const graft_attr_value half = {.kind = GRAFT_ATTR_FLOAT, .f = 0.5};
    static const graft_attr_value text = {.kind = GRAFT_ATTR_STRING, .s = "2"};
    static const graft_attr_value *const ints[] = {&two, &three, &two};
    static const graft_attr_value *const mixed[] = {&two, &half};
    const graft_attr_value list = {.kind = GRAFT_ATTR_LIST, .nitems = 3, .items = ints};
    const graft_attr_value odd = {.kind = GRAFT_ATTR_LIST, .nitems = 2, .items = mixed};
    int64_t out[3] = {0, 0, 0};
    int bad = -1;
    ck_assert_int_eq(attr_value_ints(&two, out, 1, &bad), 1);
    ck_assert_int_eq(out[0], 2);
    ck_assert_int_eq(attr_value_ints(&list, out, 3, &bad), 3);
    ck_assert(out[0] == 2 && out[1] == -3 && out[2] == 2);
    ck_assert_int_eq(attr_value_ints(NULL, out, 3, &bad), ATTR_INTS_ABSENT);
    ck_assert_int_eq(attr_value_ints(&none, out, 3, &bad), ATTR_INTS_ABSENT);
    ck_assert_int_eq(attr_value_ints(&list, out, 2, &bad), ATTR_INTS_BAD_LIST);
    ck_assert_int_eq(attr_value_ints(&text, out, 3, &bad), ATTR_INTS_BAD_LIST);
    ck_assert_int_eq(attr_value_ints(&two, out, 0, &bad), ATTR_INTS_BAD_LIST);
    ck_assert_int_eq(bad, -1);
    ck_assert_int_eq(attr_value_ints(&odd, out, 3, &bad), ATTR_INTS_BAD_ITEM);
    ck_assert_int_eq(bad, 1);
}
END_TEST

/* node_given_attr: a call's attribute when given, NULL when absent or
 * None, where node_find_attr gives None as it is. */
START_TEST(test_node_given_attr)
{
    graft_graph *g = graph_new();
    graft_attr_value *none = graph_new_attr_value(g, GRAFT_ATTR_NULL);
    graft_attr_value *two = graph_new_attr_value(g, GRAFT_ATTR_INT);
    two->i = 2;
    const graft_attr attrs[] = {{"axis", two}, {"axes", none}};
    graft_node *x = graph_add_param(g, "x", NULL);
    graft_node *call = graph_add_call(g, "Squeeze", &x, 1, attrs, 2);
    ck_assert_int_eq(node_given_attr(call, "axis")->i, 2);
    ck_assert_ptr_null(node_given_attr(call, "axes"));
    ck_assert_int_eq(node_find_attr(call, "axes")->kind, GRAFT_ATTR_NULL);
    ck_assert_ptr_null(node_given_attr(call, "perm"));
    graph_free(g);
}
END_TEST

/* note [users word] in graph_users.c: a single user is the value's word
 * whatever its slot's index below 65,535, a callee's too, and reads back
 * its user and index; a second user makes a list, which goes back to the
 * word when one is left; a slot past the word's 16 bits makes a list of
 * one.  GraphUserCounts counts each list made. */
START_TEST(test_users_word)
{
    graft_graph *g = graph_new();
    enum { FIELDS = 70000 };
    graft_node **fields = malloc(FIELDS * sizeof *fields);
    graft_node *x = graph_add_param(g, "x", NULL);
    for (int i = 0; i < FIELDS; i++)
        fields[i] = graph_add_call(g, "nn.relu", &x, 1, NULL, 0);
    uint64_t lists = graph_user_counts(g).lists;
    graft_node *wide = graph_add_tuple(g, fields, FIELDS);
    ck_assert_uint_eq(graph_user_counts(g).lists, lists + FIELDS - 65535); /* a list each */
    const int at[] = {0, 5, 6, 7, 65533, 65534, 65535, FIELDS - 1};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        graft_node *f = fields[at[i]];
        ck_assert_int_eq(node_nusers(f), 1);
        ck_assert_ptr_eq(node_sole_user(f), wide);
        ck_assert_int_eq(node_user_operand(f, node_user_first(f)), at[i]);
        ck_assert_int_eq(node_users_listed(f), at[i] >= 65535);
    }
    graft_node *q = graph_add_fn_param(g, "q", NULL);
    graft_node *fn = graph_add_func(g, &q, 1, q, NULL, 0);
    graft_node *call = graph_add_fn_call(g, fn, &x, 1);
    ck_assert(!node_users_listed(fn));
    ck_assert_int_eq(node_user_operand(fn, node_user_first(fn)), USE_CALLEE);
    ck_assert_ptr_eq(node_sole_user(fn), call);
    graft_node *y = graph_add_param(g, "y", NULL);
    graft_node *two = graph_add_call(g, "add", (graft_node *[]){y, y}, 2, NULL, 0);
    ck_assert(node_users_listed(y));
    ck_assert_str_eq(users_of(y), "70006:0 70006:1");
    graph_set_arg(g, two, 0, x);
    ck_assert(!node_users_listed(y));
    ck_assert_str_eq(users_of(y), "70006:1");
    ck_assert_ptr_null(node_sole_user(x)); /* 70,002 users */
    check_users(g);
    free(fields);
    graph_free(g);
}
END_TEST

/* The users of v as ids, in list order, into ids (count of them). */
static void user_ids(const graft_node *v, uint32_t *ids, int count)
{
    int seen = 0;
    for (int k = node_user_first(v); k < node_user_end(v); k = node_user_next(v, k))
        ids[seen++] = node_id(node_user(v, k));
    ck_assert_int_eq(seen, count);
}

/* note [user lists] in graph_users.c: a value read by 100,000 calls, each
 * relinked to another by graph_set_arg in reverse order, then back in a
 * shuffled order, then all moved by graph_replace_all_uses and swept:
 * every list keeps the order its uses were made in, and the probes of its
 * index and the entries moved stay within a few per use (a scan of the
 * list at each removal would be 5 billion). */
START_TEST(test_user_lists_linear)
{
    enum { N = 100000 };
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL), *y = graph_add_param(g, "y", NULL);
    graft_node **calls = malloc(N * sizeof *calls);
    uint32_t *order = malloc(N * sizeof *order), *seen = malloc(N * sizeof *seen);
    for (int i = 0; i < N; i++)
        calls[i] = graph_add_call(g, "nn.relu", &x, 1, NULL, 0);
    GraphUserCounts made = graph_user_counts(g);
    ck_assert_uint_eq(made.lists, 16); /* caps 1, 3, ..., 131,071 */
    ck_assert_uint_le(made.probes, 8 * (uint64_t)N);
    ck_assert_uint_le(made.moves, 2 * (uint64_t)N);
    for (int i = N; i-- > 0;)
        graph_set_arg(g, calls[i], 0, y);
    ck_assert_int_eq(node_nusers(x), 0);
    user_ids(y, seen, N);
    for (int i = 0; i < N; i++)
        ck_assert_uint_eq(seen[i], node_id(calls[N - 1 - i]));
    GraphUserCounts reversed = graph_user_counts(g);
    ck_assert_uint_le(reversed.probes - made.probes, 8 * (uint64_t)N);
    ck_assert_uint_le(reversed.moves - made.moves, 4 * (uint64_t)N);
    for (int i = 0; i < N; i++)
        order[i] = (uint32_t)i;
    uint64_t r = 12345;
    for (int i = N - 1; i > 0; i--) { /* Fisher-Yates, a fixed LCG */
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        int j = (int)((r >> 33) % (uint64_t)(i + 1));
        uint32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < N; i++)
        graph_set_arg(g, calls[order[i]], 0, x);
    ck_assert_int_eq(node_nusers(y), 0);
    user_ids(x, seen, N);
    for (int i = 0; i < N; i++)
        ck_assert_uint_eq(seen[i], node_id(calls[order[i]]));
    GraphUserCounts shuffled = graph_user_counts(g);
    ck_assert_uint_le(shuffled.probes - reversed.probes, 8 * (uint64_t)N);
    ck_assert_uint_le(shuffled.moves - reversed.moves, 4 * (uint64_t)N);
    graph_replace_all_uses(g, x, y);
    user_ids(y, seen, N);
    for (int i = 0; i < N; i++)
        ck_assert_uint_eq(seen[i], node_id(calls[order[i]]));
    graft_node *out = graph_add_call(g, "add", (graft_node *[]){calls[0], y}, 2, NULL, 0);
    graph_set_output(g, out);
    ck_assert_uint_eq(graph_remove_dead(g), N - 1);
    ck_assert_str_eq(users_of(y), "2:0 100002:1"); /* calls[0], out */
    GraphUserCounts swept = graph_user_counts(g);
    ck_assert_uint_le(swept.probes - shuffled.probes, 8 * (uint64_t)N);
    ck_assert_uint_le(swept.moves - shuffled.moves, 4 * (uint64_t)N);
    check_users(g);
    free(calls);
    free(order);
    free(seen);
    graph_free(g);
}
END_TEST

/* note [common orders] in graph_users.c: a value read by 100 calls loses the
 * newest 50 one by one, each a pop (one probe, no move, no list made, no
 * index), and its list keeps the 50 oldest in order; a use made again is
 * appended in place (no list made, no move); the oldest ten then go, two
 * probes each, the rest kept in order. */
START_TEST(test_user_list_common_orders)
{
    enum { N = 100 };
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL);
    graft_node *calls[N];
    uint32_t seen[N];
    for (int i = 0; i < N; i++)
        calls[i] = graph_add_call(g, "nn.relu", &x, 1, NULL, 0);
    GraphUserCounts made = graph_user_counts(g);
    for (int i = N; i-- > N / 2;)
        graph_set_arg(g, calls[i], 0, graph_add_param(g, "y", NULL));
    GraphUserCounts popped = graph_user_counts(g);
    ck_assert_uint_eq(popped.probes - made.probes, N / 2);
    ck_assert_uint_eq(popped.moves, made.moves);
    ck_assert_uint_eq(popped.lists, made.lists);
    ck_assert_uint_eq(popped.pool_bytes, made.pool_bytes);
    ck_assert_int_eq(node_nusers(x), N / 2);
    user_ids(x, seen, N / 2);
    for (int i = 0; i < N / 2; i++)
        ck_assert_uint_eq(seen[i], node_id(calls[i]));
    graph_set_arg(g, calls[N - 1], 0, x);
    GraphUserCounts appended = graph_user_counts(g);
    ck_assert_uint_eq(appended.moves, made.moves);
    ck_assert_uint_eq(appended.lists, made.lists);
    user_ids(x, seen, N / 2 + 1);
    ck_assert_uint_eq(seen[N / 2 - 1], node_id(calls[N / 2 - 1]));
    ck_assert_uint_eq(seen[N / 2], node_id(calls[N - 1]));
    for (int i = 0; i < 10; i++) /* the oldest ten: two probes each */
        graph_set_arg(g, calls[i], 0, graph_add_param(g, "z", NULL));
    GraphUserCounts oldest = graph_user_counts(g);
    ck_assert_uint_eq(oldest.probes - appended.probes, 2 * 10);
    ck_assert_uint_eq(oldest.moves, made.moves);
    ck_assert_uint_eq(oldest.lists, made.lists);
    user_ids(x, seen, N / 2 + 1 - 10);
    for (int i = 10; i < N / 2; i++)
        ck_assert_uint_eq(seen[i - 10], node_id(calls[i]));
    ck_assert_uint_eq(seen[N / 2 - 10], node_id(calls[N - 1]));
    check_users(g);
    graph_free(g);
}
END_TEST

/* graph_set_arg from a value's word to an empty word (a partition's move
 * of a region's input to its parameter): the old value left without a
 * user, the new one's word the use, a callee's too; no list made. */
START_TEST(test_set_arg_words)
{
    graft_graph *g = graph_new();
    graft_node *a = graph_add_param(g, "a", NULL), *b = graph_add_param(g, "b", NULL);
    graft_node *c = graph_add_call(g, "nn.relu", &a, 1, NULL, 0);
    graft_node *q = graph_add_fn_param(g, "q", NULL), *r = graph_add_fn_param(g, "r", NULL);
    graft_node *f = graph_add_func(g, &q, 1, q, NULL, 0);
    graft_node *h = graph_add_func(g, &r, 1, r, NULL, 0);
    graft_node *call = graph_add_fn_call(g, f, &c, 1);
    GraphUserCounts before = graph_user_counts(g);
    graph_set_arg(g, c, 0, b);
    ck_assert_int_eq(node_nusers(a), 0);
    ck_assert_ptr_eq(node_sole_user(b), c);
    ck_assert_int_eq(node_user_operand(b, node_user_first(b)), 0);
    graph_set_arg(g, call, USE_CALLEE, h);
    ck_assert_int_eq(node_nusers(f), 0);
    ck_assert_ptr_eq(node_sole_user(h), call);
    ck_assert_int_eq(node_user_operand(h, node_user_first(h)), USE_CALLEE);
    ck_assert_ptr_eq(node_callee(call), h);
    ck_assert(!node_users_listed(b) && !node_users_listed(h));
    ck_assert_uint_eq(graph_user_counts(g).lists, before.lists);
    check_users(g);
    graph_free(g);
}
END_TEST

/* What scope_step does to g: a node put in a function's scope or in
 * @main's, the table reserved, or a node's scope read. */
typedef enum ScopeStep { SET_IN_FN, SET_IN_MAIN, RESERVE, READ } ScopeStep;

/* Whether step on g aborts, run in a child of its own (stderr quiet): the
 * nested function's body put in it or in @main's, or its scope read. */
static bool scope_step_aborts(graft_graph *g, ScopeStep step)
{
    graft_node *nested = node_callee(node_arg(graph_output(g), 0));
    graft_node *neg = node_body(nested);
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        int quiet = open("/dev/null", O_WRONLY);
        dup2(quiet, STDERR_FILENO);
        if (step == SET_IN_FN)
            graph_set_scope(g, neg, nested);
        else if (step == SET_IN_MAIN)
            graph_set_scope(g, neg, NULL);
        else if (step == RESERVE)
            graph_reserve_scopes(g);
        else
            _exit(node_scope(g, neg) == nested ? 0 : 1);
        _exit(0);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    if (WIFEXITED(status)) {
        ck_assert_int_eq(WEXITSTATUS(status), 0);
        return false;
    }
    ck_assert(WIFSIGNALED(status));
    ck_assert_int_eq(WTERMSIG(status), SIGABRT);
    return true;
}

/* note [scopes after the drop] in graph_node.h: before the drop no step
 * aborts; after it, putting a node in a function's scope aborts, and so
 * does reserving the table, in every build; putting one in @main's
 * changes nothing; reading a scope aborts in a checked build
 * (GRAFT_CHECKED) and reads @main's (NULL) in any other.  Each step in
 * a child of its own, so not under memcheck, which follows the child and
 * counts what Check's suite holds there as leaked (as
 * test_node_table_past_size_max). */
START_TEST(test_scope_after_drop)
{
    if (under_memcheck())
        return;
    graft_graph *g = main_with_nested_fn(true);
    ck_assert(!scope_step_aborts(g, READ));
    ck_assert(!scope_step_aborts(g, SET_IN_FN));
    ck_assert(!scope_step_aborts(g, RESERVE));
    graph_drop_scopes(g);
    ck_assert(scope_step_aborts(g, SET_IN_FN));
    ck_assert(scope_step_aborts(g, RESERVE));
    ck_assert(!scope_step_aborts(g, SET_IN_MAIN));
#ifdef GRAFT_CHECKED
    ck_assert(scope_step_aborts(g, READ));
#else
    ck_assert_ptr_null(node_scope(g, node_body(node_callee(node_arg(graph_output(g), 0)))));
#endif
    graph_free(g);
}
END_TEST

/* A value for graph_replacement_misfit: field k is nodes[k] (NULL: a
 * node the action would make), a tuple where tuples[k]; own, the value
 * when it is no tuple. */
typedef struct TestValue {
    ReplacementValue value;
    graft_node *const *nodes;
    const bool *tuples;
    graft_node *own;
} TestValue;

static const graft_node *test_field(const ReplacementValue *v, int k, bool *tuple)
{
    const TestValue *t = (const TestValue *)v;
    *tuple = k >= 0 && t->tuples[k];
    return k < 0 ? t->own : t->nodes[k];
}

/* note [fixed outputs] in src/ir/graph_module.c: one test says why a
 * replacement does not fit, read from a node built or from an action not
 * yet built (NULL fields); an output that is a graph input keeps its
 * value, whether the outputs' tuple is replaced or the input itself. */
START_TEST(test_replacement_misfit)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL), *y = graph_add_param(g, "y", NULL);
    graft_node *t = graph_add_call(g, "Tanh", &y, 1, NULL, 0);
    graft_node *out = graph_add_tuple(g, (graft_node *[]){x, t}, 2);
    graph_set_output(g, out);
    graph_fix_outputs(g, 2);
    graft_node *swapped = graph_add_tuple(g, (graft_node *[]){t, x}, 2);
    graft_node *kept = graph_add_tuple(g, (graft_node *[]){x, x}, 2);
    ck_assert(!graph_replacement_fits(g, out, swapped)); /* output 0 is input x */
    ck_assert(graph_replacement_fits(g, out, kept));
    ck_assert(!graph_replacement_fits(g, x, t)); /* x, an output, given t */
    ck_assert(graph_replacement_fits(g, y, x));  /* y is no output */
    static const bool no_tuples[] = {false, false}, second[] = {false, true};
    TestValue made = {{2, test_field}, (graft_node *[]){NULL, NULL}, no_tuples, NULL};
    TestValue nested = {{2, test_field}, (graft_node *[]){x, NULL}, second, NULL};
    TestValue fewer = {{1, test_field}, (graft_node *[]){x}, no_tuples, NULL};
    TestValue one = {{-1, test_field}, NULL, NULL, NULL};
    int field;
    ck_assert_int_eq(graph_replacement_misfit(g, out, &made.value, &field), REPLACEMENT_INPUT);
    ck_assert_int_eq(field, 0);
    ck_assert_int_eq(graph_replacement_misfit(g, out, &nested.value, &field),
                     REPLACEMENT_TUPLE_OUTPUT);
    ck_assert_int_eq(field, 1);
    ck_assert_int_eq(graph_replacement_misfit(g, out, &fewer.value, &field),
                     REPLACEMENT_FEWER_FIELDS);
    ck_assert_int_eq(field, -1);
    ck_assert_int_eq(graph_replacement_misfit(g, out, &one.value, &field), REPLACEMENT_NO_TUPLE);
    ck_assert_int_eq(graph_replacement_misfit(g, t, &made.value, &field),
                     REPLACEMENT_TUPLE_FOR_TENSOR);
    ck_assert_int_eq(graph_replacement_misfit(g, x, &one.value, &field), REPLACEMENT_INPUT);
    ck_assert_int_eq(field, -1);
    ck_assert_int_eq(graph_replacement_misfit(g, t, &one.value, &field), REPLACEMENT_FITS);
    graph_fix_outputs(g, OUTPUT_ONE_VALUE); /* the one output a graph input */
    graph_set_output(g, x);
    ck_assert_int_eq(graph_replacement_misfit(g, x, &one.value, &field), REPLACEMENT_INPUT);
    one.own = x;
    ck_assert_int_eq(graph_replacement_misfit(g, x, &one.value, &field), REPLACEMENT_FITS);
    ck_assert(graph_replacement_fits(g, y, t));
    graph_free(g);
}
END_TEST

/* note [fixed outputs] in src/ir/graph_module.c: no output field of the
 * result is a tuple, the last as the first. */
START_TEST(test_fixed_outputs_last_field)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL), *y = graph_add_param(g, "y", NULL);
    graft_node *r = graph_add_call(g, "Relu", &x, 1, NULL, 0);
    graft_node *t = graph_add_call(g, "Tanh", &y, 1, NULL, 0);
    graft_node *out = graph_add_tuple(g, (graft_node *[]){r, t}, 2);
    graph_set_output(g, out);
    graft_node *pair = graph_add_tuple(g, (graft_node *[]){t, t}, 2);
    graph_fix_outputs(g, 2);
    ck_assert(!graph_replacement_fits(g, out, graph_add_tuple(g, (graft_node *[]){r, pair}, 2)));
    ck_assert(!graph_replacement_fits(g, out, graph_add_tuple(g, (graft_node *[]){pair, t}, 2)));
    ck_assert(graph_replacement_fits(g, out, graph_add_tuple(g, (graft_node *[]){t, r}, 2)));
    graph_free(g);
}
END_TEST

static Suite *graph_suite(void)
{
    Suite *s = suite_create("graph");
    TCase *tc = tcase_create("build");
    tcase_add_test(tc, test_build_and_access);
    tcase_add_test(tc, test_attrs);
    tcase_add_test(tc, test_node_size);
    tcase_add_test(tc, test_annotation_table);
    tcase_add_test(tc, test_node_layout);
    tcase_add_test(tc, test_annotation_spans);
    tcase_add_test(tc, test_annotation_spans_none);
    tcase_add_test(tc, test_attr_equality);
    suite_add_tcase(s, tc);
    tc = tcase_create("edits");
    tcase_add_test(tc, test_set_arg_keeps_users);
    tcase_add_test(tc, test_replace_all_uses);
    tcase_add_test(tc, test_remove_dead);
    tcase_add_loop_test(tc, test_random_edits, 0, 8);
    suite_add_tcase(s, tc);
    tc = tcase_create("traversal");
    tcase_add_test(tc, test_topo_order);
    tcase_add_test(tc, test_walk_leaves);
    tcase_add_loop_test(tc, test_reached_newer_operands, 0, 4);
    tcase_add_test(tc, test_functions);
    tcase_add_test(tc, test_dead_function);
    tcase_add_test(tc, test_global_functions);
    tcase_add_test(tc, test_main_unscoped);
    tcase_add_test(tc, test_scope_table);
    tcase_add_test(tc, test_scopes_dropped_before_printing);
    suite_add_tcase(s, tc);
    tc = tcase_create("types");
    tcase_add_test(tc, test_types);
    tcase_add_test(tc, test_interning_and_reserve);
    tcase_add_test(tc, test_fit_nodes);
    tcase_add_test(tc, test_fit_positions);
    tcase_add_test(tc, test_canonical_pointers_two_a_slot);
    tcase_add_test(tc, test_names_made_new);
    tcase_add_test(tc, test_names_made_new_spelled_before);
    tcase_add_test(tc, test_params_made_like);
    tcase_add_test(tc, test_func_sharing_scopes);
    suite_add_tcase(s, tc);
    tc = tcase_create("two IRs");
    tcase_add_test(tc, test_dtype_table);
    tcase_add_test(tc, test_tensor_constants);
    tcase_add_test(tc, test_dtype_read_number);
    tcase_add_test(tc, test_const_number);
    tcase_add_test(tc, test_const_number_spelling);
    tcase_add_test(tc, test_several_results);
    tcase_add_test(tc, test_ir_names);
    tcase_add_test(tc, test_accessors_by_id);
    tcase_add_test(tc, test_tensor_and_graph_attrs);
    tcase_add_test(tc, test_numbers_equal_within_1e9);
    suite_add_tcase(s, tc);
    tc = tcase_create("large");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_million_chain);
    suite_add_tcase(s, tc);
    tc = tcase_create("sweeps");
    tcase_add_test(tc, test_reached_every_kind);
    tcase_add_test(tc, test_new_node_paths);
    tcase_add_test(tc, test_swept_graph);
    tcase_add_test(tc, test_reached_by_users);
    tcase_add_test(tc, test_params_array);
    tcase_add_test(tc, test_tables_at_once);
    tcase_add_test(tc, test_reached_by_users_counted);
    suite_add_tcase(s, tc);
    tc = tcase_create("memory");
    tcase_add_test(tc, test_release_dead_blocks);
    tcase_add_test(tc, test_drop_positions);
    tcase_add_test(tc, test_main_parameters_borrowed);
    tcase_add_test(tc, test_func_parts);
    tcase_add_test(tc, test_kill_cone);
    tcase_add_test(tc, test_release_dead_as_killed);
    tcase_add_test(tc, test_positions_on_demand);
    tcase_add_test(tc, test_names_reserved_by_count);
    tcase_add_test(tc, test_value_names_by_id);
    tcase_add_test(tc, test_node_table_past_size_max);
    tcase_add_test(tc, test_pool_block_filled_exactly);
    tcase_add_test(tc, test_short_nodes);
    tcase_add_test(tc, test_tail_word);
    tcase_add_test(tc, test_function_record);
    tcase_add_test(tc, test_fn_call_attrs);
    tcase_add_test(tc, test_function_declarations);
    tcase_add_test(tc, test_scopes_reserved);
    tcase_add_test(tc, test_new_names_listed_exactly);
    suite_add_tcase(s, tc);
    tc = tcase_create("fixed outputs");
    tcase_add_test(tc, test_fixed_outputs);
    tcase_add_test(tc, test_fixed_outputs_last_field);
    tcase_add_test(tc, test_replacement_misfit);
    suite_add_tcase(s, tc);
    tc = tcase_create("user lists");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_users_word);
    tcase_add_test(tc, test_user_lists_linear);
    tcase_add_test(tc, test_user_list_common_orders);
    tcase_add_test(tc, test_set_arg_words);
    suite_add_tcase(s, tc);
    tc = tcase_create("canonical types");
    tcase_add_test(tc, test_canonical_tensor_types);
    suite_add_tcase(s, tc);
    tc = tcase_create("attributes");
    tcase_add_test(tc, test_attr_value_ints);
    tcase_add_test(tc, test_node_given_attr);
    suite_add_tcase(s, tc);
    tc = tcase_create("scopes after the drop");
    tcase_add_test(tc, test_scope_after_drop);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(graph_suite());
}
