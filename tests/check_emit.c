/* check_emit.c - the C emitter (emit_c.h) and the helpers generated code
 * calls (graft_rules.h): names, C literals, the text written for guards and
 * actions, and guard values deciding as the interpreter's guard_eval. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_c_impl.h"
#include "graft_rules.h"
#include "ruleset.h"
#include "match.h"
#include "check_main.h"

/* ---- names and literals ---- */

START_TEST(test_valid_name)
{
    ck_assert(emit_c_valid_name("graft_rules"));
    ck_assert(emit_c_valid_name("_x9"));
    ck_assert(!emit_c_valid_name("9x"));
    ck_assert(!emit_c_valid_name("a-b"));
    ck_assert(!emit_c_valid_name(""));
    ck_assert(!emit_c_valid_name("int"));
    ck_assert(!emit_c_valid_name("main"));
    ck_assert(!emit_c_valid_name("rules")); /* the file's own table */
    ck_assert(!emit_c_valid_name("attr_tests"));
}
END_TEST

START_TEST(test_c_string)
{
    StrBuf sb = {0};
    ck_assert_str_eq(emit_str(&sb, "a\"b\\c\n?\?="), "\"a\\\"b\\\\c\\n\\077\\077=\"");
    ck_assert_str_eq(emit_str(&sb, NULL), "NULL");
    ck_assert_str_eq(emit_str(&sb, "\x01\xc3\xa9"), "\"\\001\\303\\251\"");
    strbuf_free(&sb);
}
END_TEST

START_TEST(test_c_double)
{
    StrBuf sb = {0};
    ck_assert_str_eq(emit_dbl(&sb, 1), "1.0");
    ck_assert_str_eq(emit_dbl(&sb, 0.1), "0.10000000000000001");
    ck_assert_str_eq(emit_dbl(&sb, 1e-05), "1.0000000000000001e-05");
    ck_assert_str_eq(emit_dbl(&sb, -2.5), "-2.5");
    ck_assert_str_eq(emit_dbl(&sb, 1.0 / 0.0), "HUGE_VAL");
    strbuf_free(&sb);
}
END_TEST

START_TEST(test_comment_text)
{
    StrBuf sb = {0};
    emit_comment_text(&sb, "a */ b /* c");
    ck_assert_str_eq(sb.data, "a * / b / * c");
    strbuf_free(&sb);
}
END_TEST

/* ---- generated text ---- */

/* The C that graft compile writes for rule text (NULL on errors). */
static char *compile_text(const char *rules, bool lines)
{
    graft_diag *d = diag_new(stderr);
    RuleFile *rf = frontend_load_string("t.graft", rules, NULL, d);
    ck_assert_ptr_nonnull(rf);
    Lowered *lw = lower_rules(rf, d);
    ck_assert_ptr_nonnull(lw);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    EmitOptions eo = {.name = "r", .out_name = "t.c", .line_directives = lines};
    emit_c_source(rf, lw, &eo, out);
    fclose(out);
    lower_free(lw);
    rulefile_free(rf);
    diag_free(d);
    return text;
}

static void assert_has(const char *text, const char *want)
{
    if (!strstr(text, want))
        ck_abort_msg("generated C lacks:\n%s\n---- in:\n%s", want, text);
}

START_TEST(test_guard_text)
{
    char *c = compile_text("one := nn.relu(x) where users(x) == 1 && !(rank(x) < 2) => x\n",
                           false);
    assert_has(c, "static bool one_guard(const graft_graph *g, const graft_binding *b)\n{\n"
                  "    const graft_binding *const v_x = &b[0];\n"
                  "    (void)g;\n"
                  "    return (graft_gv_cmp(GRAFT_CMP_EQ, graft_gv_users(v_x), graft_gv_num(1.0))\n"
                  "            && !graft_gv_cmp(GRAFT_CMP_LT, graft_gv_rank(v_x), "
                  "graft_gv_num(2.0)));\n}\n");
    assert_has(c, ".guard_fn = one_guard,");
    /* the tree stays beside the function, for graft explain's values */
    assert_has(c, "/* where-clause of one, for graft explain */");
    assert_has(c, ".guard = &one_guard_and,");
    /* tree nodes are named by what they stand for (issue 36, item 5): the
     * variable, the op, else the kind; equal names told apart */
    assert_has(c, "static const graft_pat one_pat_x = {.kind = GRAFT_PAT_ANY,");
    assert_has(c, "static const graft_pat *const one_pat_nn_relu_kids[] = {&one_pat_x};");
    assert_has(c, "static const graft_expr one_guard_users_x = {.kind = GRAFT_EXPR_USERS,");
    assert_has(c, "static const graft_expr one_guard_num_2 = {.kind = GRAFT_EXPR_NUM, .f = 2.0,");
    assert_has(c, "const graft_rule_set r = {");
    ck_assert_ptr_null(strstr(c, "#line"));
    free(c);
}
END_TEST

/* Bindings are locals named after the rule's variables, clear of the
 * parameters (a variable b), and names made from rules stay distinct: a
 * rule named like a generated object, one whose name starts "rule_" (it
 * once looped forever), the same constant used by two rules. */
START_TEST(test_names)
{
    char *c = compile_text("rule_x := exp(b) where users(b) == 1 => exp(nn.relu(b))\n"
                           "ids_0 := nn.relu(g) where users(g) == 2 => g\n", false);
    assert_has(c, "static bool rule_x_guard(const graft_graph *g, const graft_binding *b)\n{\n"
                  "    const graft_binding *const v_b = &b[0];\n"
                  "    (void)g;\n"
                  "    return graft_gv_cmp(GRAFT_CMP_EQ, graft_gv_users(v_b), "
                  "graft_gv_num(1.0));\n}\n");
    assert_has(c, "    graft_node *n0 = graft_add_call(g, \"nn.relu\", "
                  "(graft_node *const[]){v_b->node}, 1, NULL, 0);\n");
    assert_has(c, "static const uint32_t ids_0[] = {0};\n");
    assert_has(c, "static bool ids_0_guard(const graft_graph *g, const graft_binding *b)\n{\n"
                  "    const graft_binding *const v_g = &b[0];\n");
    /* slot names are named by content */
    assert_has(c, "static const char *const slots_b[] = {\"b\"};\n");
    assert_has(c, "static const char *const slots_g[] = {\"g\"};\n");
    free(c);
}
END_TEST

/* The rule's text as written heads its section, and table entries
 * point back to it; identical constants and attribute tests are written
 * once. */
START_TEST(test_rule_pointers)
{
    char *c = compile_text("a := nn.conv2d(x, w, groups=1)\n"
                           "    => nn.conv2d(x, w, groups=1, channels=1)\n"
                           "b := nn.batch_norm(x, _, _, _, _, axis=1)[0] => x\n", false);
    assert_has(c, "/* ---- rule a (t.graft:1) ----\n\n"
                  "a := nn.conv2d(x, w, groups=1)\n"
                  "    => nn.conv2d(x, w, groups=1, channels=1)\n */\n");
    assert_has(c, "    /* 0: a (t.graft:1) */\n    {.kind = GRAFT_PRED_ATTR, .s = \"groups\"");
    assert_has(c, "    /* 0: a (t.graft:1) and 1 more rule */\n    {.kind = GRAFT_PITEM_ANY},\n");
    assert_has(c, "/* test 1: nn.batch_norm's axis is 1 (default 1), in b (t.graft:3): "
                  "as attr_test0 */\n");
    assert_has(c, "    /* 1: b (t.graft:3) */\n    attr_test0,\n");
    assert_has(c, "static const graft_attr_value int_1 = {.kind = GRAFT_ATTR_INT, .i = 1, "
                  ".f = 1.0};\n");
    ck_assert_ptr_null(strstr(strstr(c, "int_1 = ") + 1, "int_1 = ")); /* once */
    assert_has(c, "    /* b (t.graft:3) */\n    {\n        .name = \"b\",\n");
    free(c);
}
END_TEST

/* A rule text longer than 4000 bytes keeps its first 4000 and "...":
 * here the cut leaves one byte of the second line, which still gets its
 * piece, the "..." and the comma. */
START_TEST(test_rule_text_cut)
{
    StrBuf rule = {0};
    strbuf_puts(&rule, "cut := nn.relu(x)");
    while (rule.len < 3998)
        strbuf_putc(&rule, ' ');
    strbuf_puts(&rule, "\n => x\n");
    char *c = compile_text(rule.data, false);
    assert_has(c, "   \\n\"\n            \" ...\",\n        .kind = GRAFT_ACTION_REWRITE,");
    free(c);
    strbuf_free(&rule);
}
END_TEST

/* The rule text heading its section: a line of exactly 100 columns stays
 * whole, one of 101 is cut at its last space within them. */
START_TEST(test_rule_comment_width)
{
    StrBuf rule = {0}, want = {0};
    for (int width = 100; width <= 101; width++) {
        rule.len = 0;
        strbuf_puts(&rule, "w := nn.relu(x) where rank(x) == 1 ||");
        while (rule.len < (size_t)width - 12)
            strbuf_putc(&rule, ' ');
        strbuf_puts(&rule, " rank(x) > 1\n    => x\n");
        char *c = compile_text(rule.data, false);
        want.len = 0;
        strbuf_append(&want, rule.data, width == 100 ? 101 : 99);
        if (width == 101)
            strbuf_puts(&want, "\n    1\n");
        assert_has(c, want.data);
        free(c);
    }
    strbuf_free(&rule);
    strbuf_free(&want);
}
END_TEST

/* s repeated n times, appended to sb. */
static void put_times(StrBuf *sb, const char *s, int n)
{
    for (int i = 0; i < n; i++)
        strbuf_puts(sb, s);
}

/* note [flat guards]: operands nesting deeper than 30 levels become
 * temporaries, numbered in evaluation order, each under a #line; the one
 * under && is a bool, evaluated before the return.  A temporary without
 * a comma to break at is broken between tokens at 100 columns. */
START_TEST(test_guard_spill)
{
    StrBuf rule = {0}, want = {0};
    strbuf_puts(&rule, "deep := nn.relu(x) where ");
    put_times(&rule, "-", 34);
    strbuf_puts(&rule, "users(x) == 1 && ");
    put_times(&rule, "!", 31);
    strbuf_puts(&rule, "(rank(x) == 4) => x\n");
    char *c = compile_text(rule.data, true);
    strbuf_puts(&want, "    (void)g;\n    /* operands nested too deep for one expression, "
                       "computed first (graft_gv_ helpers are pure) */\n"
                       "#line 1 \"t.graft\"\n    const graft_guard_val t0 = ");
    put_times(&want, "graft_gv_neg(", 5);
    for (int i = 0; i < 4; i++) {
        strbuf_puts(&want, "\n            ");
        put_times(&want, "graft_gv_neg(", 6);
    }
    strbuf_puts(&want, "\n            graft_gv_neg(graft_gv_users(v_x)");
    put_times(&want, ")", 30);
    strbuf_puts(&want, ";\n#line 1 \"t.graft\"\n    const bool t1 = ");
    put_times(&want, "!", 29);
    strbuf_puts(&want, "graft_gv_cmp(GRAFT_CMP_EQ, graft_gv_rank(v_x),\n"
                       "            graft_gv_num(4.0));\n"
                       "#line 1 \"t.graft\"\n    return (graft_gv_cmp(GRAFT_CMP_EQ, ");
    put_times(&want, "graft_gv_neg(", 4);
    strbuf_puts(&want, "t0)))),\n            graft_gv_num(1.0)) && !!t1);\n#line ");
    assert_has(c, want.data);
    free(c);
    strbuf_free(&rule);
    strbuf_free(&want);
}
END_TEST

/* At the bound (30 levels in an operand) the guard stays one expression,
 * wrapped at 100 columns, and a guard reading no binding says (void)b. */
START_TEST(test_guard_spill_bound)
{
    StrBuf rule = {0}, want = {0};
    strbuf_puts(&rule, "deep := nn.relu(x) where ");
    put_times(&rule, "-", 29);
    strbuf_puts(&rule, "users(x) == 1 => x\nconst := nn.relu(x) where 1 < 2 => x\n");
    char *c = compile_text(rule.data, false);
    strbuf_puts(&want, "    (void)g;\n    return graft_gv_cmp(GRAFT_CMP_EQ,");
    for (int i = 0; i < 4; i++) {
        strbuf_puts(&want, "\n            ");
        put_times(&want, "graft_gv_neg(", 6);
    }
    strbuf_puts(&want, "\n            ");
    put_times(&want, "graft_gv_neg(", 5);
    strbuf_puts(&want, "graft_gv_users(v_x)");
    put_times(&want, ")", 4);
    strbuf_puts(&want, "\n            ");
    put_times(&want, ")", 25);
    strbuf_puts(&want, ", graft_gv_num(1.0));\n}\n");
    assert_has(c, want.data);
    assert_has(c, "    (void)b;\n    (void)g;\n"
                  "    return graft_gv_cmp(GRAFT_CMP_LT, graft_gv_num(1.0), "
                  "graft_gv_num(2.0));\n}\n");
    ck_assert_ptr_null(strstr(c, " t0 = "));
    free(c);
    strbuf_free(&rule);
    strbuf_free(&want);
}
END_TEST

START_TEST(test_action_text)
{
    char *c = compile_text("two := nn.relu(c@nn.conv2d(x, w)) => "
                           "nn.relu(nn.conv2d(x, w, **c, groups=2))\n", true);
    /* note [line directives]: every statement under its own #line */
    assert_has(c, "    (void)root;\n"
                  "#line 1 \"t.graft\"\n"
                  "    graft_attr_list attrs0 = {0};\n"
                  "#line 1 \"t.graft\"\n"
                  "    graft_attrs_copy(&attrs0, v_c->node);\n");
    assert_has(c, "#line 1 \"t.graft\"\n"
                  "    graft_node *n0 = graft_add_call(g, \"nn.conv2d\", "
                  "(graft_node *const[]){v_x->node, v_w->node}, 2,\n"
                  "            attrs0.attrs, attrs0.n);\n"
                  "#line 1 \"t.graft\"\n"
                  "    graft_attrs_free(&attrs0);\n"
                  "#line 1 \"t.graft\"\n"
                  "    graft_node *n1 = graft_add_call(g, \"nn.relu\", "
                  "(graft_node *const[]){n0}, 1, NULL, 0);\n"
                  "#line ");
    assert_has(c, " \"t.c\"\n    return n1;\n}\n");
    free(c);
}
END_TEST

START_TEST(test_line_back)
{
    char *c = compile_text("one := nn.relu(x) where users(x) == 1 => x\n", true);
    /* "#line N" back names the line after itself. */
    const char *p = strstr(c, "#line ");
    p = strstr(p + 1, "#line ");
    ck_assert_ptr_nonnull(p);
    int line = 1;
    for (const char *q = c; q < p; q++)
        line += *q == '\n';
    char want[64];
    snprintf(want, sizeof want, "#line %d \"t.c\"\n", line + 1);
    ck_assert(strncmp(p, want, strlen(want)) == 0);
    free(c);
}
END_TEST

START_TEST(test_attr_test_text)
{
    /* an "any" attribute takes a nested list, compared by its text */
    char *c = compile_text("op my.conv(data, weight, groups: int = 1, padding: ints = [0, 0], "
                           "data_layout: str = \"NCHW\", kernel: any = None)\n"
                           "k := my.conv(x, w, groups=2, padding=[1, 1], "
                           "data_layout=\"NCHW\", kernel=[[3], 3]) => partition\n", false);
    assert_has(c, "    return v ? graft_attr_is_num(v, 2.0) : false;\n");
    assert_has(c, "    return v ? graft_attr_is_nums(v, (const double[]){1.0, 1.0}, 2) : false;\n");
    assert_has(c, "    return v ? graft_attr_is_str(v, \"NCHW\") : true;\n"); /* the default */
    assert_has(c, "    return v ? graft_attr_key_is(v, \"[[3], 3]\") : false;\n");
    assert_has(c, ".attr_fns = attr_tests,");
    free(c);
}
END_TEST

/* ---- guard values against the interpreter ---- */

typedef struct GuardFix {
    graft_graph *g;          /* a graph with one conv2d */
    graft_binding b[3];      /* b[0] the conv2d, b[1] its strides, b[2] a constant */
} GuardFix;

static graft_attr_value *int_value(graft_graph *g, int64_t i)
{
    graft_attr_value *v = graph_new_attr_value(g, GRAFT_ATTR_INT);
    v->i = i;
    return v;
}

static GuardFix guard_fixture(void)
{
    GuardFix f = {.g = graph_new()};
    int64_t dims[] = {1, 3, 8, 8};
    graft_node *x = graph_add_param(f.g, "x", graph_type_tensor(f.g, "float32", dims, 4));
    graft_node *w = graph_add_param(f.g, "w", NULL);
    graft_attr_value *strides = graph_new_attr_value(f.g, GRAFT_ATTR_LIST);
    const graft_attr_value **items = arena_array(graph_arena(f.g), 2, sizeof *items);
    items[0] = int_value(f.g, 1);
    items[1] = int_value(f.g, 1);
    strides->nitems = 2;
    strides->items = (const graft_attr_value *const *)items;
    graft_attr attrs[] = {{"strides", strides}, {"groups", int_value(f.g, 2)}};
    graft_node *args[] = {x, w};
    f.b[0].node = graph_add_call(f.g, "nn.conv2d", args, 2, attrs, 2);
    f.b[1].attr = strides;
    f.b[2].node = graph_add_const(f.g, "0.5f", 0.5, "float32");
    return f;
}

START_TEST(test_gv_values)
{
    GuardFix f = guard_fixture();
    ck_assert(graft_gv_cmp(GRAFT_CMP_EQ, graft_gv_slot(&f.b[1]), graft_gv_list("[1, 1]")));
    ck_assert(!graft_gv_cmp(GRAFT_CMP_EQ, graft_gv_slot(&f.b[1]), graft_gv_list("[1, 2]")));
    /* only == and != */
    ck_assert(!graft_gv_cmp(GRAFT_CMP_LT, graft_gv_slot(&f.b[1]), graft_gv_list("[1, 2]")));
    ck_assert(graft_gv_cmp(GRAFT_CMP_EQ, graft_gv_attr(&f.b[0], "groups", NULL), graft_gv_num(2)));
    ck_assert(!graft_gv_cmp(GRAFT_CMP_EQ, graft_gv_attr(&f.b[0], "padding", NULL), graft_gv_unknown()));
    ck_assert(graft_gv_cmp(GRAFT_CMP_NE, graft_gv_index(graft_gv_slot(&f.b[1]), 1), graft_gv_num(2)));
    ck_assert(graft_gv_cmp(GRAFT_CMP_GT, graft_gv_value(&f.b[2]), graft_gv_num(0.25)));
    ck_assert(graft_gv_cmp(GRAFT_CMP_EQ, graft_gv_dtype(&f.b[2]), graft_gv_str("float32")));
    ck_assert(graft_gv_cmp(GRAFT_CMP_EQ, graft_gv_rank(&f.b[2]), graft_gv_num(0)));
    ck_assert_int_eq(graft_gv_arith('/', graft_gv_num(1), graft_gv_num(0)).kind, GRAFT_GV_UNKNOWN);
    ck_assert(graft_gv_cmp(GRAFT_CMP_EQ, graft_gv_neg(graft_gv_num(2)), graft_gv_num(-2)));
    ck_assert(graft_gv_cmp(GRAFT_CMP_EQ, graft_gv_num(-0.0), graft_gv_str("x")) == false);
    ck_assert(!graft_gv_truth(graft_gv_str("x")));
    graph_free(f.g);
}
END_TEST

/* guard_eval and the compiled helpers agree on shape(x)[1] OP 3 and on
 * users(x) OP 0 for every comparison. */
START_TEST(test_gv_matches_interpreter)
{
    GuardFix f = guard_fixture();
    graft_binding b[1] = {{.node = node_arg(f.b[0].node, 0)}};
    static const graft_expr shape = {.kind = GRAFT_EXPR_SHAPE, .slot = 0};
    static const graft_expr *const shape_kids[] = {&shape};
    static const graft_expr dim = {.kind = GRAFT_EXPR_GETITEM, .i = 1, .slot = -1, .nkids = 1,
                                .kids = shape_kids};
    static const graft_expr three = {.kind = GRAFT_EXPR_NUM, .f = 3, .slot = -1};
    static const graft_expr *const kids[] = {&dim, &three};
    for (int op = GRAFT_CMP_EQ; op <= GRAFT_CMP_GE; op++) {
        graft_expr cmp = {.kind = GRAFT_EXPR_CMP, .cmp = op, .slot = -1, .nkids = 2, .kids = kids};
        bool want = guard_eval(&cmp, b);
        graft_guard_val dim = graft_gv_index(graft_gv_shape(&b[0]), 1);
        bool got = graft_gv_cmp((graft_cmp_op)op, dim, graft_gv_num(3));
        ck_assert_int_eq(got, want);
    }
    graph_free(f.g);
}
END_TEST

/* The typed attribute tests agree with comparing canonical texts. */
START_TEST(test_attr_tests_match_text)
{
    GuardFix f = guard_fixture();
    graft_attr_value *fl = graph_new_attr_value(f.g, GRAFT_ATTR_FLOAT);
    fl->f = -0.0;
    graft_attr_value *str = graph_new_attr_value(f.g, GRAFT_ATTR_STRING);
    str->s = "NCHW";
    const graft_attr_value *values[] = {f.b[1].attr, int_value(f.g, 2), fl, str};
    StrBuf key = {0};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        key.len = 0;
        pattern_attr_key(values[i], &key);
        ck_assert_int_eq(graft_attr_is_nums(values[i], (const double[]){1, 1}, 2),
                         strcmp(key.data, "[1, 1]") == 0);
        ck_assert_int_eq(graft_attr_is_num(values[i], 2), strcmp(key.data, "2") == 0);
        ck_assert_int_eq(graft_attr_is_num(values[i], 0), strcmp(key.data, "0") == 0);
        ck_assert_int_eq(graft_attr_is_str(values[i], "NCHW"), strcmp(key.data, "\"NCHW\"") == 0);
        ck_assert(graft_attr_key_is(values[i], key.data));
    }
    strbuf_free(&key);
    graph_free(f.g);
}
END_TEST

START_TEST(test_rt_attrs)
{
    GuardFix f = guard_fixture();
    graft_attr_list a = {0};
    graft_attrs_copy(&a, f.b[0].node);
    graft_attrs_put(&a, "groups", int_value(f.g, 1));
    graft_attrs_put(&a, "padding", NULL); /* no value: left out */
    graft_attrs_put(&a, "alpha", graft_attr_slot(f.g, &f.b[2]));
    ck_assert_int_eq(a.n, 3);
    ck_assert_str_eq(a.attrs[0].name, "strides");
    ck_assert_str_eq(a.attrs[1].name, "groups");
    ck_assert_int_eq(a.attrs[1].value->i, 1);
    ck_assert_str_eq(a.attrs[2].name, "alpha");
    ck_assert_int_eq(a.attrs[2].value->kind, GRAFT_ATTR_FLOAT);
    const graft_attr_value *s = graft_attr_of(f.g, &f.b[0], "strides", NULL);
    ck_assert_int_eq(s->nitems, 2);
    ck_assert_ptr_ne(s, f.b[1].attr); /* a copy */
    ck_assert_ptr_null(graft_attr_of(f.g, &f.b[0], "padding", NULL));
    graft_attrs_free(&a);
    graph_free(f.g);
}
END_TEST

/* A list's first GRAFT_FEW_ATTRS pairs live in the list itself; the
 * next one moves them to an allocation, keeping order and values, and
 * graft_attrs_canonical grows it again for the declarations (under
 * valgrind: nothing leaks, nothing freed twice). */
START_TEST(test_rt_attrs_past_few)
{
    GuardFix f = guard_fixture();
    static const char *const names[] = {"a0", "a1", "a2", "a3", "a4", "a5",
                                        "a6", "a7", "a8", "a9"};
    graft_attr_list a = {0};
    for (int i = 0; i < 10; i++) {
        graft_attrs_put(&a, names[i], int_value(f.g, i));
        ck_assert_int_eq(a.attrs == a.few, i < GRAFT_FEW_ATTRS);
    }
    graft_attrs_put(&a, "a3", int_value(f.g, 33)); /* replaces, no growth */
    ck_assert_int_eq(a.n, 10);
    for (int i = 0; i < 10; i++) {
        ck_assert_str_eq(a.attrs[i].name, names[i]);
        ck_assert_int_eq(a.attrs[i].value->i, i == 3 ? 33 : i);
    }
    static const graft_attr_decl decls[] = {{.name = "a9"}, {.name = "b"}};
    graft_attrs_canonical(&a, decls, 2);
    ck_assert_int_eq(a.n, 11); /* a9 first, b absent (no default), a0-a8 */
    ck_assert_str_eq(a.attrs[0].name, "a9");
    ck_assert_str_eq(a.attrs[1].name, "b");
    ck_assert_int_eq(a.attrs[1].value->kind, GRAFT_ATTR_NULL);
    ck_assert_str_eq(a.attrs[10].name, "a8");
    graft_attrs_free(&a);
    ck_assert_int_eq(a.n, 0);
    graph_free(f.g);
}
END_TEST

/* graft_add_call names its op and attributes by the graph's interned
 * copies, whatever literal it was given (note [fixed names] in
 * src/ir/graph.c): two calls from two literals of one text share one
 * name, and the names are those graph_intern gives. */
START_TEST(test_rt_add_call_names_interned)
{
    GuardFix f = guard_fixture();
    char op[] = "nn.relu", attr[] = "alpha"; /* not the graph's copies */
    graft_attr at = {attr, int_value(f.g, 1)};
    graft_node *x = f.b[0].node;
    graft_node *a = graft_add_call(f.g, op, &x, 1, &at, 1);
    graft_node *b = graft_add_call(f.g, "nn.relu", &x, 1, &at, 1);
    ck_assert_ptr_eq(node_op(a), graph_intern(f.g, "nn.relu"));
    ck_assert_ptr_eq(node_op(b), node_op(a));
    ck_assert_ptr_ne(node_op(a), op);
    ck_assert_ptr_eq(node_attr(a, 0)->name, graph_intern(f.g, "alpha"));
    ck_assert_ptr_eq(node_attr(b, 0)->name, node_attr(a, 0)->name);
    ck_assert_int_eq(node_attr(b, 0)->value->i, 1);
    graph_free(f.g);
}
END_TEST

static Suite *emit_suite(void)
{
    Suite *s = suite_create("emit");
    TCase *names = tcase_create("names_and_literals");
    tcase_add_test(names, test_valid_name);
    tcase_add_test(names, test_c_string);
    tcase_add_test(names, test_c_double);
    tcase_add_test(names, test_comment_text);
    suite_add_tcase(s, names);
    TCase *text = tcase_create("generated_text");
    tcase_add_test(text, test_guard_text);
    tcase_add_test(text, test_names);
    tcase_add_test(text, test_rule_pointers);
    tcase_add_test(text, test_rule_text_cut);
    tcase_add_test(text, test_rule_comment_width);
    tcase_add_test(text, test_guard_spill);
    tcase_add_test(text, test_guard_spill_bound);
    tcase_add_test(text, test_action_text);
    tcase_add_test(text, test_line_back);
    tcase_add_test(text, test_attr_test_text);
    suite_add_tcase(s, text);
    TCase *rt = tcase_create("runtime_helpers");
    tcase_add_test(rt, test_gv_values);
    tcase_add_test(rt, test_gv_matches_interpreter);
    tcase_add_test(rt, test_attr_tests_match_text);
    tcase_add_test(rt, test_rt_attrs);
    tcase_add_test(rt, test_rt_attrs_past_few);
    tcase_add_test(rt, test_rt_add_call_names_interned);
    suite_add_tcase(s, rt);
    return s;
}

int main(void)
{
    return check_run_suite(emit_suite());
}
