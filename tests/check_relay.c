/* check_relay.c - the Relay text loader and printer: every piece of
 * syntax, the round trip of tests/relay/ and of the model corpus
 * (tests/corpus/), every bad-input diagnostic (tests/relay/bad/NAME.relay
 * and the standard error of NAME.golden), the loader's view of the graph,
 * and size limits. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relay.h"
#include "relay_load_control.h"
#include "relay_names.h"
#include "type_adt.h"
#include "type_infer.h"
#include "util.h"
#include "graph_dot.h"
#include "node_label.h"
#include "check_files.h"
#include "check_main.h"

/* ---- helpers ---- */

static char *test_file(const char *rel, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/relay/%s", srcdir(), rel);
    char *text = read_file(path, len);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    return text;
}

/* Loads text as name, diagnostics to diag_out: the graph or NULL. */
static graft_graph *load_text(const char *name, const char *text, size_t len, FILE *diag_out)
{
    graft_diag *d = diag_new(diag_out);
    Source *src = source_from_string(name, text, len);
    graft_graph *g = relay_load(src, d);
    source_free(src);
    diag_free(d);
    return g;
}

/* Loads text as NAME; returns the printed graph or NULL, and the
 * diagnostics (malloc'd) through diags when not NULL. */
static char *reprint(const char *name, const char *text, size_t len, char **diags)
{
    char *out = NULL;
    size_t outlen = 0;
    FILE *mem = open_memstream(&out, &outlen);
    graft_graph *g = load_text(name, text, len, mem);
    char *printed = g ? relay_print_string(g) : NULL;
    graph_free(g);
    fclose(mem);
    if (diags)
        *diags = out;
    else
        free(out);
    return printed;
}

static graft_graph *load_string(const char *text)
{
    graft_graph *g = load_text("test.relay", text, strlen(text), stderr);
    ck_assert_msg(g != NULL, "did not load:\n%s", text);
    return g;
}

/* ---- syntax: input -> canonical output, one piece at a time ---- */

typedef struct SyntaxCase {
    const char *input;    /* the body of @main(%x, %y) */
    const char *expected; /* its canonical body */
} SyntaxCase;

static const SyntaxCase syntax_cases[] = {
    /* constants keep their spelling, dtype suffixes included */
    {"add(%x, 1f)", NULL},
    {"add(%x, 1e-05f)", NULL},
    {"add(%x, -1)", NULL},
    {"add(%x, 2i64)", NULL},
    {"add(%x, 0.5f64)", NULL},
    {"add(%x, 3u8)", NULL},
    {"add(%x, True)", NULL},
    {"add(%x, 0 /* ty=int32 span=aten::select_0:0:0 */)", NULL},
    /* attributes: every kind */
    {"nn.dense(%x, %y, units=None)", NULL},
    {"nn.bias_add(%x, %y, axis=-1)", NULL},
    {"mean(%x, axis=[-1], keepdims=True, exclude=False)", NULL},
    {"take(%x, %y, axis=1, mode=\"wrap\")", NULL},
    {"f(%x, e=[], n=[[1, 2], [3]], s=\"a\\\"b\")", NULL},
    {"clip(%x, a_min=0f, a_max=6f)", NULL},
    {"zeros(shape=[1, 2], dtype=\"float32\")", NULL},
    /* canonical spacing of lists and arguments */
    {"f(%x,%y,axis=[1,2])", "f(%x, %y, axis=[1, 2])"},
    /* tuples and element access */
    {"(%x, %y)", NULL},
    {"(%x,)", NULL},
    {"()", NULL},
    {"(%x)", "%x"},
    {"%0 = (%x, %y);\n  %0.1", NULL},
    {"%0 = split(%x, indices_or_sections=2);\n  %1 = %0.0;\n  %2 = %0.1;\n"
     "  add(%1, %2)", NULL},
    /* temps are renumbered in TVM's order */
    {"%5 = add(%x, %y);\n  %9 = nn.relu(%5);\n  negative(%9)",
     "%0 = add(%x, %y);\n  %1 = nn.relu(%0);\n  negative(%1)"},
    /* temps beyond the dense range (kept in the hash table) */
    {"%5000000 = add(%x, %y);\n  %4194304 = nn.relu(%5000000);\n"
     "  %3 = fn (%p) {\n    %5000000 = negative(%p);\n    nn.relu(%5000000)\n  };\n"
     "  %3(%4194304)",
     "%1 = add(%x, %y);\n  %2 = nn.relu(%1);\n"
     "  %3 = fn (%p) {\n    %0 = negative(%p);\n    nn.relu(%0)\n  };\n  %3(%2)"},
    /* a shared node is bound once */
    {"%0 = nn.relu(%x);\n  add(%0, %0)", NULL},
    /* the result is a variable */
    {"%x", NULL},
    /* annotations on bindings and on the result */
    {"%0 = nn.relu(%x) /* ty=float32 */;\n  negative(%0) /* ty=float32 */", NULL},
    /* local functions, their calls, scopes */
    {"%0 = fn (%a, %b) {\n    add(%a, %b)\n  };\n  %0(%x, %y)", NULL},
    {"%1 = fn (%p, Composite=\"dnnl.relu\", Primitive=1) {\n    nn.relu(%p)\n  };\n"
     "  %1(%x)",
     "%0 = fn (%p, Composite=\"dnnl.relu\", Primitive=1) {\n    nn.relu(%p)\n  };\n"
     "  %0(%x)"},
    {"%0 = fn (%p: float32) -> float32 {\n    %0 = negative(%p);\n    nn.relu(%0)\n"
     "  };\n  %0(%x)",
     "%1 = fn (%p: float32) -> float32 {\n    %0 = negative(%p);\n    nn.relu(%0)\n"
     "  };\n  %1(%x)"},
    {"%0 = fn () {\n    zeros(shape=[1])\n  };\n  %0()", NULL},
    /* comments: annotations after values, layout elsewhere */
    {"// note\n  %0 = add(%x, %y); /* layout */\n  nn.relu(%0)",
     "%0 = add(%x, %y);\n  nn.relu(%0)"},
    {"f(%x, axis=1 /* dropped */)", "f(%x, axis=1)"},
    /* getitem of a variable, written as TVM writes it */
    {"%x.1", NULL},
    {"%0 = %x.1;\n  add(%0, %0)", NULL},
};

static char *wrap_main(const char *body)
{
    const char *head = "def @main(%x, %y) {\n  ";
    char *text = malloc(strlen(head) + strlen(body) + 4);
    sprintf(text, "%s%s\n}\n", head, body);
    return text;
}

START_TEST(test_syntax)
{
    const SyntaxCase *c = &syntax_cases[_i];
    char *input = wrap_main(c->input);
    char *expected = wrap_main(c->expected ? c->expected : c->input);
    char *diags;
    char *printed = reprint("syntax.relay", input, strlen(input), &diags);
    ck_assert_msg(printed != NULL, "failed to load:\n%s\n%s", input, diags);
    ck_assert_str_eq(printed, expected);
    free(printed);
    free(diags);
    free(input);
    free(expected);
}
END_TEST

/* the "%x.1" case above is only a getitem when %x.1 is not a name */
START_TEST(test_dotted_name)
{
    const char *text = "def @main(%w.1, %x) {\n  add(%w.1, %x)\n}\n";
    char *printed = reprint("t.relay", text, strlen(text), NULL);
    ck_assert_str_eq(printed, text);
    free(printed);
}
END_TEST

START_TEST(test_module_parts)
{
    size_t len;
    char *text = test_file("syntax.relay", &len);
    graft_graph *g = load_string(text);
    ck_assert_str_eq(graph_version(g), "#[version = \"0.0.5\"]");
    ck_assert_int_eq(graph_ntypedefs(g), 2);
    ck_assert(strncmp(graph_typedef(g, 1), "type Option[A] {\n  Some(A),", 26) == 0);
    ck_assert(strncmp(graph_metadata(g), "#[metadata]\n{\n", 14) == 0);
    ck_assert_str_eq(graph_name(g), "main");
    ck_assert_str_eq(graph_ret_type(g)->text,
                     "(Tensor[(1, 8, ?, 222), float32], int64)");
    ck_assert_int_eq(graph_nparams(g), 5);
    const graft_node *data = graph_param(g, 0);
    ck_assert(node_type_declared(data));
    ck_assert_int_eq(node_type(data)->dims[2], DIM_ANY);
    ck_assert_str_eq(node_annotation(g, data),
                     "/* ty=Tensor[(1, 3, ?, 224), float32] span=data:0:0 */");
    ck_assert_str_eq(node_name(graph_param(g, 1)), "aten::conv_0.weight");
    ck_assert_int_eq(node_type(graph_param(g, 3))->kind, TYPE_TUPLE);
    graph_free(g);
    free(text);
}
END_TEST

/* A bare expression is @main without parameters, marked bare (note [bare
 * module] in graph_module.c); @main's attributes are kept in order. */
START_TEST(test_bare_and_main_attrs)
{
    graft_graph *g = load_string("free_var %x: Tensor[(2), float32];\n"
                           "%0 = nn.relu(%x);\n"
                           "add(%0, %x)\n");
    ck_assert(graph_is_bare(g));
    ck_assert_int_eq(graph_nparams(g), 0);
    ck_assert_str_eq(graph_name(g), "main");
    ck_assert_str_eq(node_op(graph_output(g)), "add");
    ck_assert(node_is_free(node_arg(graph_output(g), 1)));
    ck_assert_str_eq(node_type(graph_output(g))->text, "Tensor[(2), float32]");
    ck_assert_int_eq(graph_main_nattrs(g), 0);
    graph_free(g);
    g = load_string("def @main(%x, Primitive=1, Compiler=\"c\") {\n  %x\n}\n");
    ck_assert(!graph_is_bare(g));
    ck_assert_int_eq(graph_nparams(g), 1);
    ck_assert_int_eq(graph_main_nattrs(g), 2);
    ck_assert_str_eq(graph_main_attr(g, 0)->name, "Primitive");
    ck_assert_int_eq(graph_main_attr(g, 0)->value->i, 1);
    ck_assert_str_eq(graph_main_attr(g, 1)->name, "Compiler");
    ck_assert_str_eq(graph_main_attr(g, 1)->value->s, "c");
    graph_free(g);
    /* maps are opaque: kept as spelled, equal by spelling */
    g = load_string("def @main(%x, a={\"k\"=[1, 2], \"j\"={}}, b={\"k\"=[1, 2], \"j\"={}}, "
                    "c={\"k\"=1}) {\n  %x\n}\n");
    const graft_attr_value *a = graph_main_attr(g, 0)->value, *b = graph_main_attr(g, 1)->value;
    ck_assert_int_eq(a->kind, GRAFT_ATTR_OPAQUE);
    ck_assert_str_eq(a->spelling, "{\"k\"=[1, 2], \"j\"={}}");
    ck_assert_int_eq(a->nitems, 4);
    ck_assert(attr_value_equal(a, b));
    ck_assert(!attr_value_equal(a, graph_main_attr(g, 2)->value));
    graph_free(g);
}
END_TEST

/* ---- the loader's graph ---- */

START_TEST(test_loaded_graph)
{
    graft_graph *g = load_string(
        "def @main(%x: Tensor[(1, 8), float32]) {\n"
        "  %0 = nn.conv2d(%x, %x, padding=[1, 1], data_layout=\"NCHW\", "
        "units=None, eps=1e-05f, flag=True) /* ty=Tensor[(1, 8), float32] */;\n"
        "  %1 = (%0, 2i64);\n"
        "  %2 = %1.0;\n"
        "  add(%2, %0)\n"
        "}\n");
    graft_node *out = graph_output(g);
    ck_assert_str_eq(node_op(out), "add");
    graft_node *get = node_arg(out, 0);
    graft_node *conv = node_arg(out, 1);
    ck_assert_int_eq(node_kind(get), NODE_GETITEM);
    ck_assert_int_eq(node_index(get), 0);
    graft_node *tuple = node_arg(get, 0);
    ck_assert_int_eq(node_kind(tuple), NODE_TUPLE);
    ck_assert_ptr_eq(node_arg(tuple, 0), conv);
    ck_assert_int_eq(node_nusers(conv), 2);
    graft_node *c = node_arg(tuple, 1);
    ck_assert_str_eq(node_const_dtype(c), "int64");
    ck_assert(node_const_value(c) == 2.0);
    ck_assert_int_eq(node_nattrs(conv), 5);
    const graft_attr_value *pad = node_find_attr(conv, "padding");
    ck_assert_int_eq(pad->kind, GRAFT_ATTR_LIST);
    ck_assert_int_eq(pad->nitems, 2);
    ck_assert_int_eq(pad->items[1]->i, 1);
    ck_assert_str_eq(node_find_attr(conv, "data_layout")->s, "NCHW");
    ck_assert_str_eq(node_find_attr(conv, "data_layout")->spelling, "\"NCHW\"");
    ck_assert_int_eq(node_find_attr(conv, "units")->kind, GRAFT_ATTR_NULL);
    ck_assert(node_find_attr(conv, "eps")->f == 1e-05);
    ck_assert_int_eq(node_find_attr(conv, "flag")->i, 1);
    ck_assert_str_eq(node_type(conv)->text, "Tensor[(1, 8), float32]");
    ck_assert_str_eq(node_annotation(g, conv), "/* ty=Tensor[(1, 8), float32] */");
    graph_free(g);
}
END_TEST

/* Temps inside a function are its own; %0 may be reused inside. */
START_TEST(test_scopes)
{
    graft_graph *g = load_string(
        "def @main(%x) {\n"
        "  %0 = nn.relu(%x);\n"
        "  %1 = fn (%p) {\n"
        "    %0 = negative(%p);\n"
        "    add(%0, %p)\n"
        "  };\n"
        "  %1(%0)\n"
        "}\n");
    graft_node *call = graph_output(g);
    graft_node *fn = node_callee(call);
    ck_assert_int_eq(node_kind(fn), NODE_FUNC);
    ck_assert_str_eq(node_op(node_arg(call, 0)), "nn.relu");
    graft_node *body = node_body(fn);
    ck_assert_str_eq(node_op(node_arg(body, 0)), "negative");
    ck_assert_ptr_eq(node_scope(g, body), fn);
    ck_assert_ptr_eq(node_scope(g, node_arg(body, 0)), fn);
    ck_assert_ptr_eq(node_scope(g, node_param(fn, 0)), fn);
    ck_assert_ptr_null(node_scope(g, node_arg(call, 0)));
    graph_free(g);
}
END_TEST

/* relay_temp_numbers agrees with the printed text of the golden file. */
START_TEST(test_temp_numbers)
{
    size_t len;
    char *text = test_file("double_bn_partitioned.relay", &len);
    graft_graph *g = load_string(text);
    uint32_t *temps = relay_temp_numbers(g);
    graft_node *out = graph_output(g);
    ck_assert_uint_eq(temps[node_id(out)], UINT32_MAX);
    ck_assert_uint_eq(temps[node_id(node_callee(out))], 12);
    graft_node *inner = node_arg(out, 1);
    ck_assert_uint_eq(temps[node_id(inner)], 11);
    ck_assert_uint_eq(temps[node_id(node_callee(inner))], 10);
    graft_node *body = node_body(node_callee(inner));
    ck_assert_uint_eq(temps[node_id(node_arg(body, 0))], 9);
    ck_assert_uint_eq(temps[node_id(graph_param(g, 0))], UINT32_MAX);
    free(temps);
    graph_free(g);
    free(text);
}
END_TEST

/* note [distinct names]: the check that every variable prints as its own
 * name, in each of its outcomes: distinct by pointer; distinct by text
 * (a name takes a "v"); two alike by text ("_x" and "v_x" both print
 * "%v_x"), and two alike by pointer (a function's "x"), where names are
 * then made as TVM's GetUniqueName makes them. */
START_TEST(test_printed_names)
{
    static const struct {
        const char *input, *expected;
    } cases[] = {
        {"def @main(%x, %y) {\n  add(%x, %y)\n}\n",
         "def @main(%x, %y) {\n  add(%x, %y)\n}\n"},
        {"def @main(%_x, %w, %y) {\n  add(%_x, add(%w, %y))\n}\n",
         "def @main(%v_x, %w, %y) {\n  %0 = add(%w, %y);\n  add(%v_x, %0)\n}\n"},
        {"def @main(%_x, %v_x, %y) {\n  add(%_x, add(%v_x, %y))\n}\n",
         "def @main(%v_x, %v_x1, %y) {\n  %0 = add(%v_x1, %y);\n  add(%v_x, %0)\n}\n"},
        {"def @main(%x, %y) {\n  %0 = fn (%x) { %x };\n  %0(%y)\n}\n",
         "def @main(%x, %y) {\n  %0 = fn (%x1) {\n    %x1\n  };\n  %0(%y)\n}\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *printed = reprint("names.relay", cases[i].input, strlen(cases[i].input), NULL);
        ck_assert_msg(printed != NULL, "case %zu did not load", i);
        ck_assert_str_eq(printed, cases[i].expected);
        free(printed);
    }
}
END_TEST

/* note [node names]: every loaded node has the position of its op name,
 * variable, constant, '(' or index; node_labels_find takes a name, a
 * position or @main:NAME, and nothing else. */
START_TEST(test_node_names)
{
    static const char text[] = "def @main(%x, %y) {\n"
                               "  %0 = add(%x, 1f);\n"
                               "  %1 = (%0, %y);\n"
                               "  %2 = %1.1;\n"
                               "  multiply(%2, %0)\n"
                               "}\n";
    graft_graph *g = load_string(text);
    NodeLabels nl;
    node_labels_init(&nl, g, "test.relay");
    graft_node *out = graph_output(g), *add = node_arg(out, 1), *get = node_arg(out, 0);
    graft_node *one = node_arg(add, 1), *y = graph_param(g, 1);
    ck_assert_int_eq(node_line(g, add), 2);
    ck_assert_int_eq(node_col(g, add), 8);
    ck_assert_int_eq(node_col(g, one), 16);
    ck_assert_int_eq(node_line(g, y), 1);
    ck_assert_int_eq(node_col(g, y), 15);
    ck_assert_int_eq(node_col(g, node_arg(get, 0)), 8); /* the tuple's '(' */
    ck_assert_int_eq(node_col(g, get), 11);              /* the index */
    ck_assert_int_eq(node_col(g, out), 3);
    StrBuf sb = {0};
    node_label_at(&nl, add, &sb);
    ck_assert_str_eq(sb.data, "%0 (test.relay:2:8)");
    sb.len = 0;
    node_label_at(&nl, out, &sb);
    ck_assert_str_eq(sb.data, "<output> (test.relay:5:3)");
    strbuf_free(&sb);
    ck_assert_ptr_eq(node_labels_find(&nl, "%0"), add);
    ck_assert_ptr_eq(node_labels_find(&nl, "@main:%0"), add);
    ck_assert_ptr_eq(node_labels_find(&nl, "%y"), y);
    ck_assert_ptr_eq(node_labels_find(&nl, "<output>"), out);
    ck_assert_ptr_eq(node_labels_find(&nl, ":2"), add);
    ck_assert_ptr_eq(node_labels_find(&nl, ":2:9"), one); /* uses make no node */
    ck_assert_ptr_eq(node_labels_find(&nl, "test.relay:2:16"), one);
    ck_assert_ptr_eq(node_labels_find(&nl, "x.relay:4"), get);
    ck_assert_ptr_null(node_labels_find(&nl, "%3"));
    ck_assert_ptr_null(node_labels_find(&nl, ":0"));
    ck_assert_ptr_null(node_labels_find(&nl, ":7"));
    ck_assert_ptr_null(node_labels_find(&nl, ":2:99"));
    ck_assert_ptr_null(node_labels_find(&nl, ":2x"));
    ck_assert_ptr_null(node_labels_find(&nl, ""));
    node_labels_free(&nl);
    graph_free(g);
}
END_TEST

/* viz_write: shapes by kind, temps as graft fmt numbers them, the
 * output doubly bordered, highlights filled and labelled. */
START_TEST(test_viz_write)
{
    graft_graph *g = load_string("def @main(%x, %y: float32) {\n"
                           "  %0 = subtract(%x, %y) /* ty=float32 */;\n"
                           "  %1 = (%0, 1f);\n"
                           "  add(%1.0, %0)\n}\n");
    graft_node *out = graph_output(g);
    graft_node *sub = node_arg(out, 1);
    uint32_t ids[2] = {node_id(sub), node_id(out)};
    VizHighlight h[2] = {{ids, 2, "r #1", NULL}, {ids + 1, 1, "s #1", NULL}};
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    viz_write(g, h, 2, mem);
    fclose(mem);
    const char *want[] = {
        "digraph \"main\" {\n  rankdir=TB;\n",
        "  n0 [shape=ellipse, label=\"%x\"];\n",
        "  n1 [shape=ellipse, label=\"%y\\nfloat32\"];\n",
        "  n2 [shape=box, style=\"filled,bold\", fillcolor=\"#ffd27f\", "
        "label=\"%0 = subtract\\nfloat32\\n[r #1]\"];\n",
        "  n3 [shape=plaintext, label=\"1f\"];\n",
        /* the tuple, its element and the add have inferred types */
        "  n4 [shape=box, fontsize=10, label=\"%1 = tuple\\n(float32, float32)\"];\n",
        "  n5 [shape=box, fontsize=10, label=\"%2 = .0\\nfloat32\"];\n",
        "  n6 [shape=box, peripheries=2, style=\"filled,bold\", fillcolor=\"#ffd27f\", "
        "label=\"add\\nfloat32\\n[r #1, s #1]\"];\n",
        "  n2 -> n4 [label=\"0\"];\n  n3 -> n4 [label=\"1\"];\n  n4 -> n5;\n",
        "  n5 -> n6 [label=\"0\"];\n  n2 -> n6 [label=\"1\"];\n}\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(strstr(text, want[i]) != NULL, "missing %s in\n%s", want[i], text);
    free(text);
    graph_free(g);
}
END_TEST

/* viz_write with highlights naming ids past the graph (a match of
 * another graph, or of nodes since removed): those ids are left out, the
 * rest drawn as without them. */
static char *viz_text(const graft_graph *g, const VizHighlight *h, size_t n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    viz_write(g, h, n, mem);
    fclose(mem);
    return text;
}

START_TEST(test_viz_ids_past_graph)
{
    graft_graph *g = load_string("def @main(%x) {\n  nn.relu(%x)\n}\n");
    uint32_t count = graph_node_count(g);
    uint32_t ids[3] = {node_id(graph_output(g)), count, UINT32_MAX};
    VizHighlight all = {ids, 3, "r #1", NULL}, valid = {ids, 1, "r #1", NULL};
    char *got = viz_text(g, &all, 1), *want = viz_text(g, &valid, 1);
    ck_assert_str_eq(got, want);
    ck_assert_ptr_nonnull(strstr(want, "[r #1]"));
    free(got);
    free(want);
    graph_free(g);
}
END_TEST

/* ---- round trips ---- */

/* Each NAME: tests/relay/NAME.in.relay (or NAME.relay) prints as NAME.relay. */
static const char *const roundtrip_files[][2] = {
    {"bn.relay", "bn.relay"},
    {"bn_partitioned.relay", "bn_partitioned.relay"},
    {"double_bn.relay", "double_bn.relay"},
    {"double_bn_partitioned.relay", "double_bn_partitioned.relay"},
    {"syntax.relay", "syntax.relay"},
    {"syntax.in.relay", "syntax.relay"},
    {"layout.in.relay", "layout.relay"},
};

START_TEST(test_roundtrip)
{
    size_t in_len, want_len;
    char *input = test_file(roundtrip_files[_i][0], &in_len);
    char *want = test_file(roundtrip_files[_i][1], &want_len);
    char *diags;
    char *printed = reprint(roundtrip_files[_i][0], input, in_len, &diags);
    ck_assert_msg(printed != NULL, "%s", diags);
    ck_assert_str_eq(printed, want);
    free(printed);
    free(diags);
    free(input);
    free(want);
}
END_TEST

/* The model at path prints back byte for byte. */
static bool prints_back(const char *path, const char *name, void *ctx)
{
    (void)ctx;
    size_t len;
    char *text = read_file(path, &len);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    char *diags;
    char *printed = reprint(name, text, len, &diags);
    ck_assert_msg(printed != NULL, "%s: %.300s", name, diags);
    ck_assert_msg(strlen(printed) == len && memcmp(printed, text, len) == 0,
                  "%s does not print back byte for byte", name);
    free(printed);
    free(diags);
    free(text);
    return true;
}

/* Every model of tests/corpus/ (10 models, each also simplified) prints
 * back byte for byte. */
START_TEST(test_corpus)
{
    ck_assert_int_eq(each_file("tests/corpus", ".relay", prints_back, NULL), 20);
}
END_TEST

/* ---- bad input ---- */

static const char *const bad_files[] = {
    "alias_binding", "bad_type", "binary_file", "binary_junk", "blank",
    "call_non_function", "duplicate_def", "duplicate_param", "duplicate_temp",
    "empty", "empty_body", "extra_paren", "huge_temp", "if_without_else",
    "let_without_body", "match_var_out_of_scope", "match_without_arrow",
    "meta_out_of_range", "meta_without_section", "missing_semicolon",
    "out_of_scope", "stray_char", "truncated", "two_defs", "unbalanced_list",
    "unbalanced_paren", "unclosed_brace", "unclosed_if", "unknown_global",
    "unknown_name", "unterminated_comment", "unterminated_string",
    "use_before_def",
    "type_broadcast", "type_conv_channels", "type_dense_features",
    "type_getitem_range", "type_reshape_count", "type_tuple_as_tensor",
    "type_multibox_anchors", "type_valid_counts_rank", "type_dyn_reshape_length",
    "type_meshgrid_matrix", "type_dyn_topk_k", "type_dyn_pad_value",
    "bare_unknown_name", "bare_then_def", "adt_tuple_unclosed",
    "main_attr_meta_range", "main_attr_map_unclosed",
    "fn_type_no_arrow", "type_params_trailing_comma",
};

/* The standard error that golden file text expects of "graft fmt NAME.relay"
 * (tests/golden.sh): between the line "# stderr" after the command and the
 * last line, "# exit 1".  Cut in place. */
static const char *golden_stderr(char *golden, const char *rel)
{
    static const char marker[] = "\n# stderr\n", status[] = "# exit 1\n";
    char *err = strstr(golden, marker);
    ck_assert_msg(err != NULL && memchr(golden, '\n', (size_t)(err - golden)) == NULL,
                  "%s: no '# stderr' right after the command", rel);
    err += strlen(marker);
    size_t len = strlen(err);
    ck_assert_msg(len >= strlen(status) && strcmp(err + len - strlen(status), status) == 0,
                  "%s does not end with '%s'", rel, status);
    err[len - strlen(status)] = '\0';
    return err;
}

/* ---- type inference (src/relay/type_rel_*.c) ---- */

/* One op call on typed parameters and the type TVM's relation gives it
 * (the relation each follows is named in its file). */
typedef struct TypeCase {
    const char *params; /* "%x: Tensor[...], ..." */
    const char *body;   /* the expression */
    const char *type;   /* its inferred type */
} TypeCase;

static const TypeCase type_cases[] = {
    /* Conv2DRel: padding as 4 values, strides, depthwise groups */
    {"%x: Tensor[(1, 3, 224, 224), float32], %w: Tensor[(64, 3, 7, 7), float32]",
     "nn.conv2d(%x, %w, strides=[2, 2], padding=[3, 3, 3, 3])",
     "Tensor[(1, 64, 112, 112), float32]"},
    {"%x: Tensor[(1, 32, 112, 112), float32], %w: Tensor[(32, 1, 3, 3), float32]",
     "nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1], groups=32)",
     "Tensor[(1, 32, 56, 56), float32]"},
    {"%x: Tensor[(1, 8, 8, 3), float32], %w: Tensor[(3, 3, 3, 4), float32]",
     "nn.conv2d(%x, %w, padding=[1, 1, 1, 1], data_layout=\"NHWC\", kernel_layout=\"HWIO\")",
     "Tensor[(1, 8, 8, 4), float32]"},
    /* asymmetric: the begins [0, 0], the ends [1, 1]; H and W grow by 1, not 0 or 2 */
    {"%x: Tensor[(1, 1, 5, 5), float32], %w: Tensor[(1, 1, 3, 3), float32]",
     "nn.conv2d(%x, %w, padding=[0, 0, 1, 1])", "Tensor[(1, 1, 4, 4), float32]"},
    {"%x: Tensor[(1, 1, 5, 5), float32], %w: Tensor[(1, 1, 3, 3), float32]",
     "nn.conv2d(%x, %w, padding=[0, 1, 2, 3])", "Tensor[(1, 1, 5, 7), float32]"},
    {"%x: Tensor[(1, 3, 10), float32], %w: Tensor[(6, 3, 3), float32]",
     "nn.conv1d(%x, %w, dilation=[2])", "Tensor[(1, 6, 6), float32]"},
    {"%x: Tensor[(1, 2, 4, 8, 8), float32], %w: Tensor[(4, 2, 3, 3, 3), float32]",
     "nn.conv3d(%x, %w, padding=[1, 1, 1])", "Tensor[(1, 4, 4, 8, 8), float32]"},
    {"%x: Tensor[(1, 8, 7, 7), float32], %w: Tensor[(8, 4, 4, 4), float32]",
     "nn.conv2d_transpose(%x, %w, strides=[2, 2], padding=[1, 1, 1, 1])",
     "Tensor[(1, 4, 14, 14), float32]"},
    {"%x: Tensor[(1, 4, 8, 8), int8], %w: Tensor[(2, 4, 3, 3), int8], %z: int32, %s: float32",
     "qnn.conv2d(%x, %w, %z, %z, %s, %s)", "Tensor[(1, 2, 6, 6), int32]"},
    /* pools */
    {"%x: Tensor[(1, 64, 112, 112), float32]",
     "nn.max_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])",
     "Tensor[(1, 64, 56, 56), float32]"},
    {"%x: Tensor[(1, 96, 109, 109), float32]",
     "nn.max_pool2d(%x, pool_size=[3, 3], strides=[2, 2], ceil_mode=True)",
     "Tensor[(1, 96, 54, 54), float32]"},
    {"%x: Tensor[(1, 8, 9), float32]", "nn.avg_pool1d(%x, pool_size=[3])",
     "Tensor[(1, 8, 7), float32]"},
    {"%x: Tensor[(1, 512, 7, 7), float32]", "nn.adaptive_avg_pool2d(%x, output_size=[1, 1])",
     "Tensor[(1, 512, 1, 1), float32]"},
    {"%x: Tensor[(1, 512, 7, 7), float32]", "nn.global_avg_pool2d(%x)",
     "Tensor[(1, 512, 1, 1), float32]"},
    /* dense, matmuls */
    {"%x: Tensor[(2, 5, 16), float32], %w: Tensor[(4, 16), float32]",
     "nn.dense(%x, %w, units=None)", "Tensor[(2, 5, 4), float32]"},
    {"%x: Tensor[(2, 16), float32], %w: Tensor[(16, 4), float32]",
     "nn.matmul(%x, %w, units=None)", "Tensor[(2, 4), float32]"},
    {"%x: Tensor[(1, 8, 16), float32], %y: Tensor[(4, 8, 16), float32]",
     "nn.batch_matmul(%x, %y, transpose_b=True)", "Tensor[(4, 8, 8), float32]"},
    {"%x: Tensor[(2, 16), int8], %w: Tensor[(4, 16), int8], %z: int32, %s: float32",
     "qnn.dense(%x, %w, %z, %z, %s, %s, units=4)", "Tensor[(2, 4), int32]"},
    /* tuples */
    {"%x: Tensor[(1, 4, 2, 2), float32], %g: Tensor[(4), float32]",
     "nn.batch_norm(%x, %g, %g, %g, %g)",
     "(Tensor[(1, 4, 2, 2), float32], Tensor[(4), float32], Tensor[(4), float32])"},
    {"%x: Tensor[(2, 3), float32]", "nn.dropout(%x)",
     "(Tensor[(2, 3), float32], Tensor[(2, 3), float32])"},
    {"%x: Tensor[(128, 1, 768), float32]", "split(%x, indices_or_sections=[256, 512], axis=-1)",
     "(Tensor[(128, 1, 256), float32], Tensor[(128, 1, 256), float32], "
     "Tensor[(128, 1, 256), float32])"},
    {"%x: Tensor[(6, 4), float32]", "split(%x, indices_or_sections=3)",
     "(Tensor[(2, 4), float32], Tensor[(2, 4), float32], Tensor[(2, 4), float32])"},
    {"%x: Tensor[(3, 10), float32]", "topk(%x, k=2)",
     "(Tensor[(3, 2), float32], Tensor[(3, 2), int32])"},
    {"%a: Tensor[(1, 2, 4), float32], %b: Tensor[(1, 3, 4), float32]",
     "concatenate((%a, %b), axis=1)", "Tensor[(1, 5, 4), float32]"},
    {"%a: Tensor[(2, 4), float32]", "stack((%a, %a, %a), axis=1)", "Tensor[(2, 3, 4), float32]"},
    /* shapes */
    {"%x: Tensor[(1, 512, 7, 7), float32]", "reshape(%x, newshape=[0, -1])",
     "Tensor[(1, 25088), float32]"},
    /* a dim past int64 is unknown: its product is no size */
    {"%x: Tensor[(3037000500, 3037000500), float32]", "reshape(%x, newshape=[-3])",
     "Tensor[(?), float32]"},
    {"%x: Tensor[(2, 3, 4, 5), float32]", "reshape(%x, newshape=[-2])",
     "Tensor[(2, 3, 4, 5), float32]"},
    {"%x: Tensor[(2, 3, 4, 5), float32]", "reshape(%x, newshape=[-3, -2])",
     "Tensor[(6, 4, 5), float32]"},
    {"%x: Tensor[(2, 12), float32]", "reshape(%x, newshape=[0, -4, 3, -1])",
     "Tensor[(2, 3, 4), float32]"},
    {"%x: Tensor[(1, 197, 768), float32]", "transpose(%x, axes=[0, 2, 1])",
     "Tensor[(1, 768, 197), float32]"},
    {"%x: Tensor[(2, 3, 4), float32]", "transpose(%x)", "Tensor[(4, 3, 2), float32]"},
    {"%x: Tensor[(1, 512, 1, 1), float32]", "squeeze(%x)", "Tensor[(512), float32]"},
    {"%x: Tensor[(1, 512, 1, 1), float32]", "squeeze(%x, axis=[-1])",
     "Tensor[(1, 512, 1), float32]"},
    {"%x: Tensor[(64), float32]", "expand_dims(%x, axis=1, num_newaxis=2)",
     "Tensor[(64, 1, 1), float32]"},
    {"%x: Tensor[(1, 197, 768), float32]", "take(%x, 0, axis=1, mode=\"wrap\")",
     "Tensor[(1, 768), float32]"},
    {"%x: Tensor[(10, 4), float32], %i: Tensor[(2, 3), int64]", "take(%x, %i, axis=0)",
     "Tensor[(2, 3, 4), float32]"},
    {"%x: Tensor[(1, 3, 8, 8), float32]",
     "strided_slice(%x, begin=[0, 1], end=[1, 3], strides=[1, 1])",
     "Tensor[(1, 2, 8, 8), float32]"},
    {"%x: Tensor[(10, 10), float32]",
     "strided_slice(%x, begin=[-1], end=[-11], strides=[-2], axes=[1])",
     "Tensor[(10, 5), float32]"},
    {"%x: Tensor[(4, 5), float32]", "strided_slice(%x, begin=[1, 1], end=[2, -1], "
     "slice_mode=\"size\")", "Tensor[(2, 4), float32]"},
    /* size mode from a negative begin: it counts from the end before the
       size is added (TVM's ConvertToVec adds the size to -3, giving -1,
       then CanonicalizeIndex makes both 2 and 4) */
    {"%x: Tensor[(5, 6), float32]", "strided_slice(%x, begin=[-3, 1], end=[2, 2], "
     "slice_mode=\"size\")", "Tensor[(2, 2), float32]"},
    {"%x: Tensor[(1, 3, 8, 8), float32]",
     "nn.pad(%x, 0f, pad_width=[[0, 0], [0, 0], [1, 2], [3, 4]])",
     "Tensor[(1, 3, 11, 15), float32]"},
    {"%x: Tensor[(1, 3, 8, 8), float32]", "image.resize2d(%x, size=[16, 12])",
     "Tensor[(1, 3, 16, 12), float32]"},
    {"%x: Tensor[(1, 3, 8, 8), float32]", "nn.upsampling(%x, scale_h=2f, scale_w=2f)",
     "Tensor[(1, 3, 16, 16), float32]"},
    /* a scale left out is 1, an integer scale counts as its value */
    {"%x: Tensor[(1, 3, 8, 8), float32]", "nn.upsampling(%x, scale_w=2f)",
     "Tensor[(1, 3, 8, 16), float32]"},
    {"%x: Tensor[(1, 3, 8, 8), float32]", "nn.upsampling(%x, scale_h=3, scale_w=1.5f)",
     "Tensor[(1, 3, 24, 12), float32]"},
    {"%x: Tensor[(1, 16, 4, 4), float32]", "nn.depth_to_space(%x, block_size=2)",
     "Tensor[(1, 4, 8, 8), float32]"},
    {"%x: Tensor[(2, 3), float32]", "tile(%x, reps=[2, 1, 2])", "Tensor[(2, 2, 6), float32]"},
    {"%x: Tensor[(2, 3), float32]", "repeat(%x, repeats=3, axis=1)", "Tensor[(2, 9), float32]"},
    {"%x: Tensor[(1, 56, 56, 96), float32]", "broadcast_to(%x, shape=[2, 56, 56, 96])",
     "Tensor[(2, 56, 56, 96), float32]"},
    /* reductions */
    {"%x: Tensor[(1, 56, 56, 96), float32]", "mean(%x, axis=[-1], keepdims=True)",
     "Tensor[(1, 56, 56, 1), float32]"},
    {"%x: Tensor[(2, 3, 4), float32]", "sum(%x, axis=[1], exclude=True)",
     "Tensor[(3), float32]"},
    {"%x: Tensor[(2, 3, 4), float32]", "max(%x)", "float32"},
    {"%x: Tensor[(2, 3), float32]", "argmax(%x, axis=[1])", "Tensor[(2), int32]"},
    /* element-wise */
    {"%x: Tensor[(1, 64, 56, 56), float32], %y: Tensor[(64, 1, 1), float32]",
     "add(%x, %y)", "Tensor[(1, 64, 56, 56), float32]"},
    {"%x: Tensor[(4, 1), float32], %y: Tensor[(3), float32]", "less(%x, %y)",
     "Tensor[(4, 3), bool]"},
    {"%x: Tensor[(2, ?), float32], %y: Tensor[(2, 5), float32]", "multiply(%x, %y)",
     "Tensor[(2, 5), float32]"},
    {"%x: Tensor[(2, 3), float32]", "cast(%x, dtype=\"int64\")", "Tensor[(2, 3), int64]"},
    {"%x: Tensor[(2, 3), float32]", "qnn.quantize(%x, 0.5f, 0)", "Tensor[(2, 3), int8]"},
    {"%x: Tensor[(2, 3), float32]", "shape_of(%x)", "Tensor[(2), int32]"},
    {"", "arange(0f, 10f, 3f, dtype=\"float32\")", "Tensor[(4), float32]"},
    /* literals without a suffix as TVM's parser types them: a '.' or an
       exponent makes a float32, digits alone an int32 */
    {"", "2.5", "float32"},
    {"", "1e3", "float32"},
    {"", "7", "int32"},
    {"%x: Tensor[(2), float32]", "multiply(%x, 2.5)", "Tensor[(2), float32]"},
    /* detection (type_rel_vision.c) */
    {"%x: Tensor[(1, 8, 10, 10), float32]",
     "vision.multibox_prior(%x, sizes=[0.2f, 0.3f], ratios=[1f, 2f, 0.5f])",
     "Tensor[(1, 400, 4), float32]"},
    {"%c: Tensor[(1, 21, 300), float32], %l: Tensor[(1, 1200), float32], "
     "%a: Tensor[(1, 300, 4), float32]", "vision.multibox_transform_loc(%c, %l, %a)",
     "(Tensor[(1, 300, 6), float32], Tensor[(1), int32])"},
    {"%d: Tensor[(2, 300, 6), float32]", "vision.get_valid_counts(%d, 0f, score_threshold=None)",
     "(Tensor[(2), int32], Tensor[(2, 300, 6), float32], Tensor[(2, 300), int32])"},
    {"%d: Tensor[(2, 300, 6), float32], %v: Tensor[(2), int32], %i: Tensor[(2, 300), int32]",
     "vision.non_max_suppression(%d, %v, %i, -1, 0.5f)",
     "(Tensor[(2, 300), int32], Tensor[(2, 1), int32])"},
    {"%d: Tensor[(2, 300, 6), float32], %v: Tensor[(2), int32], %i: Tensor[(2, 300), int32]",
     "vision.non_max_suppression(%d, %v, %i, -1, 0.5f, return_indices=False)",
     "Tensor[(2, 300, 6), float32]"},
    {"%b: Tensor[(1, 50, 4), float32], %s: Tensor[(1, 3, 50), float32]",
     "vision.all_class_non_max_suppression(%b, %s, 10, 0.5f, 0.1f)",
     "(Tensor[(150, 3), int64], Tensor[(1), int64])"},
    {"%b: Tensor[(?, 50, 4), float32], %s: Tensor[(?, 3, 50), float32]",
     "vision.all_class_non_max_suppression(%b, %s, 10, 0.5f, 0.1f, output_format=\"tensorflow\")",
     "(Tensor[(?, 150, 2), int64], Tensor[(?, 150), float32], Tensor[(?), int64])"},
    {"%c: Tensor[(2, 18, 8, 8), float32], %b: Tensor[(2, 36, 8, 8), float32], "
     "%i: Tensor[(2, 3), float32]", "vision.proposal(%c, %b, %i, rpn_post_nms_top_n=100)",
     "Tensor[(200, 5), float32]"},
    {"%x: Tensor[(1, 64, 26, 26), float32]", "vision.yolo_reorg(%x, stride=2)",
     "Tensor[(1, 256, 13, 13), float32]"},
    /* dynamic shapes (type_rel_dyn.c): the rank from a shape operand */
    {"%x: Tensor[(2, 3), float32], %s: Tensor[(3), int64]", "dyn.reshape(%x, %s, newshape=[])",
     "Tensor[(?, ?, ?), float32]"},
    {"%x: Tensor[(3), float32], %s: Tensor[(2), int64]",
     "dyn.broadcast_to(%x, %s, shape=None)", "Tensor[(?, ?), float32]"},
    {"%s: Tensor[(4), int64]", "dyn.zeros(%s, shape=None, dtype=\"float16\")",
     "Tensor[(?, ?, ?, ?), float16]"},
    {"%s: Tensor[(2), int32]", "dyn.full(1i64, %s, shape=None)", "Tensor[(?, ?), int64]"},
    {"%x: Tensor[(2, 3), float32], %r: Tensor[(3), int64]", "dyn.tile(%x, %r, reps=[])",
     "Tensor[(?, ?, ?), float32]"},
    {"%x: Tensor[(1, 3, 8, 8), float32], %b: Tensor[(4), int64]",
     "dyn.strided_slice(%x, %b, %b, %b, begin=None, end=None, strides=None, axes=None)",
     "Tensor[(?, ?, ?, ?), float32]"},
    {"%x: Tensor[(3, 10), float32], %k: int64", "dyn.topk(%x, %k, axis=1)",
     "(Tensor[(3, ?), float32], Tensor[(3, ?), int32])"},
    {"%x: Tensor[(1, 8, 8, 3), float32], %s: Tensor[(2), int64], %r: Tensor[(4), float32]",
     "dyn.image.resize2d(%x, %s, %r, layout=\"NHWC\")",
     "Tensor[(1, ?, ?, 3), float32]"},
    {"%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 2), int64]",
     "dyn.nn.pad(%x, %w, 0f, pad_width=[])", "Tensor[(?, ?, ?, ?), float32]"},
    {"%x: Tensor[(1, 3, 8, 8), float32], %h: float32",
     "dyn.nn.upsampling(%x, %h, %h)", "Tensor[(1, 3, ?, ?), float32]"},
    {"%i: Tensor[(4), int32], %d: int32",
     "dyn.one_hot(%i, 1f, 0f, %d, depth=1, axis=-1, dtype=\"float32\")",
     "Tensor[(4, ?), float32]"},
    {"%x: Tensor[(2, 3), float32], %a: int64", "dyn.expand_dims(%x, %a, num_newaxis=2)",
     "Tensor[(?, ?, ?, ?), float32]"},
    {"%x: Tensor[(1, 3, 1), float32], %a: Tensor[(2), int64]", "dyn.squeeze(%x, %a)",
     "Tensor[(?), float32]"},
    /* grids and indices */
    {"%x: Tensor[(4), float32], %y: Tensor[(3), float32]", "meshgrid((%x, %y, 1f))",
     "(Tensor[(4, 3, 1), float32], Tensor[(4, 3, 1), float32], Tensor[(4, 3, 1), float32])"},
    {"%x: Tensor[(4), float32], %y: Tensor[(3), float32]", "meshgrid((%x, %y), indexing=\"xy\")",
     "(Tensor[(3, 4), float32], Tensor[(3, 4), float32])"},
    {"%x: Tensor[(2, 3, 4), bool]", "argwhere(%x)", "Tensor[(?, 3), int32]"},
    /* unknown: no relation, or an operand of unknown type */
    {"%x: Tensor[(2, 3), float32]", "my.custom_op(%x)", "?"},
    {"%x", "nn.relu(%x)", "?"},
    /* a packed kernel layout (OIHW4o: O is 1 x 4): graft reads none, so the type stays
     * unknown (type_rel_nn.c), though the data's layout is plain, not (1, 1, 6, 6) */
    {"%x: Tensor[(1, 8, 8, 8), float32], %w: Tensor[(1, 8, 3, 3, 4), float32]",
     "nn.conv2d(%x, %w, kernel_layout=\"OIHW4o\")", "?"},
};

static char *output_type(const TypeCase *tc)
{
    char text[1024];
    snprintf(text, sizeof text, "def @main(%s) {\n  %s\n}\n", tc->params, tc->body);
    graft_graph *g = load_string(text);
    const graft_type *t = node_type(graph_output(g));
    char *got = xstrdup(t ? t->text : "?");
    graph_free(g);
    return got;
}

START_TEST(test_type_relations)
{
    const TypeCase *tc = &type_cases[_i];
    char *got = output_type(tc);
    ck_assert_msg(strcmp(got, tc->type) == 0, "%s: got %s, want %s", tc->body, got, tc->type);
    free(got);
}
END_TEST

/* One contradiction per relation of type_rel_vision.c and type_rel_dyn.c
 * that can find one (TVM's ICHECKs there), as the first line of the load
 * error ("test.relay:2:3: error: type error: " then this); the body is the
 * only line of @main, so the column is always 3. */
static const TypeCase type_errors[] = {
    /* an element count past int64 is no count a known one equals (it
     * overflowed, undefined behaviour the sanitizer build stops on) */
    {"%x: Tensor[(2, 3), float32]",
     "reshape(%x, newshape=[100000000, 100001000, 123000000456, 9999999999])",
     "reshape: cannot reshape Tensor[(2, 3), float32] (6 elements) to "
     "Tensor[(100000000, 100001000, 123000000456, 9999999999), float32]"},
    {"%x: Tensor[(8, 10, 10), float32]", "vision.multibox_prior(%x)",
     "vision.multibox_prior: data must be 4-D (got Tensor[(8, 10, 10), float32])"},
    {"%d: Tensor[(2, 300, 6), float32], %v: Tensor[(2, 1), int32], %i: Tensor[(2, 300), int32]",
     "vision.non_max_suppression(%d, %v, %i, -1, 0.5f)",
     "vision.non_max_suppression: the valid count must be 1-D (got Tensor[(2, 1), int32])"},
    {"%b: Tensor[(1, 50, 4), float32], %s: Tensor[(3, 50), float32]",
     "vision.all_class_non_max_suppression(%b, %s, 10, 0.5f, 0.1f)",
     "vision.all_class_non_max_suppression: scores must be 3-D (got Tensor[(3, 50), float32])"},
    {"%c: float32, %b: Tensor[(2, 36, 8, 8), float32], %i: Tensor[(2, 3), float32]",
     "vision.proposal(%c, %b, %i)",
     "vision.proposal: class probabilities must have a batch dim (got float32)"},
    {"%x: Tensor[(1, 64, 26, 26), float32]", "vision.yolo_reorg(%x, stride=0)",
     "vision.yolo_reorg: stride 0 is not positive"},
    {"%x: Tensor[(3), float32], %s: Tensor[(2, 2), int64]", "dyn.broadcast_to(%x, %s, shape=None)",
     "dyn.broadcast_to: shape must be 1-D (got Tensor[(2, 2), int64])"},
    {"%s: int64", "dyn.zeros(%s, shape=None, dtype=\"float32\")",
     "dyn.zeros: shape must be 1-D (got int64)"},
    {"%f: Tensor[(2), float32], %s: Tensor[(2), int64]", "dyn.full(%f, %s, shape=None)",
     "dyn.full: the fill value must be a scalar (got Tensor[(2), float32])"},
    {"%x: Tensor[(2, 3), float32], %r: Tensor[(?), int64]", "dyn.tile(%x, %r, reps=[])",
     "dyn.tile: reps must have a static length of at most 32 (got Tensor[(?), int64])"},
    {"%i: Tensor[(4), int32], %d: int32", "dyn.one_hot(%i, 1f, 0f, %d, axis=2)",
     "dyn.one_hot: axis 2 out of range for rank 2"},
    {"%x: Tensor[(2, 3), float32], %a: Tensor[(1), int64]", "dyn.expand_dims(%x, %a)",
     "dyn.expand_dims: axis must be a scalar (got Tensor[(1), int64])"},
    {"%x: Tensor[(1, 3), float32], %a: Tensor[(3), int64]", "dyn.squeeze(%x, %a)",
     "dyn.squeeze: 3 axes to squeeze from rank 2"},
    {"%x: Tensor[(3, 10), float32], %k: int64", "dyn.topk(%x, %k, ret_type=\"all\")",
     "dyn.topk: unsupported ret_type \"all\""},
    {"%x: Tensor[(1, 3, 8), float32], %s: Tensor[(2), int64], %r: Tensor[(4), float32]",
     "dyn.image.resize2d(%x, %s, %r)",
     "dyn.image.resize2d: layout \"NCHW\" does not fit Tensor[(1, 3, 8), float32]"},
    {"%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(8), int64]", "dyn.nn.pad(%x, %w, 0f, pad_width=[])",
     "dyn.nn.pad: pad width must be 2-D (got Tensor[(8), int64])"},
    {"%x: Tensor[(1, 3, 8, 8), float32], %h: float32",
     "dyn.nn.upsampling(%x, %h, %h, layout=\"NCDHW\")",
     "dyn.nn.upsampling: layout \"NCDHW\" does not fit Tensor[(1, 3, 8, 8), float32]"},
    {"%x: Tensor[(2, 3), float32], %s: Tensor[(2), int64]", "dyn.strided_slice((%x, %x), %s, %s, %s)",
     "dyn.strided_slice: operand 1 must be a tensor (got (Tensor[(2, 3), float32], "
     "Tensor[(2, 3), float32]))"},
    {"%x: Tensor[(2), float32]", "argwhere((%x,))",
     "argwhere: operand 1 must be a tensor (got (Tensor[(2), float32],))"},
};

START_TEST(test_type_contradictions)
{
    const TypeCase *tc = &type_errors[_i];
    char text[1024], want[1024];
    snprintf(text, sizeof text, "def @main(%s) {\n  %s\n}\n", tc->params, tc->body);
    snprintf(want, sizeof want, "test.relay:2:3: error: type error: %s\n", tc->type);
    char *diags;
    char *printed = reprint("test.relay", text, strlen(text), &diags);
    ck_assert_msg(printed == NULL, "%s loaded", tc->body);
    ck_assert_msg(strncmp(diags, want, strlen(want)) == 0, "%s: got %s", tc->body, diags);
    free(diags);
}
END_TEST

/* note [type size]: tuples of tuples doubling at every binding would
 * make type texts of 2^N bytes; past 64 KiB the type stays unknown. */
START_TEST(test_type_size_bound)
{
    StrBuf text = {0};
    strbuf_puts(&text, "def @main(%x: Tensor[(2), float32]) {\n  %0 = nn.relu(%x);\n");
    for (int i = 1; i <= 40; i++)
        strbuf_printf(&text, "  %%%d = (%%%d, %%%d);\n", i, i - 1, i - 1);
    strbuf_puts(&text, "  %40\n}\n");
    graft_graph *g = load_string(text.data);
    ck_assert_ptr_null(node_type(graph_output(g)));
    graft_node *small = graph_output(g);
    while (node_type(small) == NULL)
        small = node_arg(small, 0);
    ck_assert_uint_le(strlen(node_type(small)->text), 65536);
    ck_assert_uint_ge(strlen(node_type(small)->text), 65536 / 2 - 64);
    graph_free(g);
    strbuf_free(&text);
}
END_TEST

START_TEST(test_bad_input)
{
    char name[256], rel[300];
    snprintf(name, sizeof name, "%s.relay", bad_files[_i]);
    snprintf(rel, sizeof rel, "bad/%s", name);
    size_t len, golden_len;
    char *input = test_file(rel, &len);
    snprintf(rel, sizeof rel, "bad/%s.golden", bad_files[_i]);
    char *want = test_file(rel, &golden_len);
    char *diags;
    char *printed = reprint(name, input, len, &diags);
    ck_assert_msg(printed == NULL, "%s loaded", name);
    ck_assert_str_eq(diags, golden_stderr(want, rel));
    free(diags);
    free(input);
    free(want);
}
END_TEST

/* Any control byte at any offset is reported at its own column (the
 * check reads eight bytes at a time, so every alignment is tried). */
START_TEST(test_control_bytes)
{
    static const unsigned char bytes[] = {0x00, 0x01, 0x08, 0x1f, 0x7f};
    const char *model = "def @main(%abcdefghijklmnopqrstuvwxyz) {\n  %abcdefghijklmnopqrstuvwxyz\n}\n";
    for (size_t b = 0; b < sizeof bytes; b++)
        for (size_t at = 0; at < 24; at++) {
            char text[128];
            strcpy(text, model);
            text[at] = (char)bytes[b];
            char *diags;
            char *printed = reprint("c.relay", text, strlen(model), &diags);
            ck_assert(printed == NULL);
            char want[96];
            snprintf(want, sizeof want, "c.relay:1:%zu: error: unexpected byte 0x%02x",
                     at + 1, bytes[b]);
            ck_assert_msg(strncmp(diags, want, strlen(want)) == 0, "%s", diags);
            free(diags);
        }
    /* tab, newline, carriage return and UTF-8 are fine */
    const char *ok = "def @main(%x) {\r\n\t%x /* \xc3\xa9 */\n}\n";
    char *printed = reprint("ok.relay", ok, strlen(ok), NULL);
    ck_assert_str_eq(printed, "def @main(%x) {\n  %x\n}\n");
    free(printed);
}
END_TEST

/* ---- size limits ---- */

/* A chain of a million bindings loads and prints back unchanged. */
/* note [function types remembered]: functions whose body and parameters
 * have the same type pointers get one type, the text func_type_text
 * makes (the general path, type_infer_node, agrees); other types or an
 * order of them get their own; an untyped body leaves a function
 * untyped. */
static graft_node *fn_of(graft_graph *g, const graft_type *a, const graft_type *b, int body)
{
    graft_node *params[2] = {graph_add_fn_param(g, "p", a), graph_add_fn_param(g, "q", b)};
    return graph_add_func(g, params, 2, params[body], NULL, 0);
}

START_TEST(test_function_types_remembered)
{
    graft_graph *g = graph_new();
    const graft_type *a = graph_parse_type(g, "Tensor[(1, 64), float32]", 24, NULL);
    const graft_type *b = graph_parse_type(g, "Tensor[(64), float32]", 21, NULL);
    graft_node *fns[4] = {fn_of(g, a, b, 0), fn_of(g, a, b, 0), fn_of(g, b, a, 1),
                          fn_of(g, NULL, b, 0)};
    type_infer_list(g, fns, 4);
    const char *ab = "fn (Tensor[(1, 64), float32], Tensor[(64), float32]) -> "
                     "Tensor[(1, 64), float32]";
    ck_assert_str_eq(node_type(fns[0])->text, ab);
    ck_assert_ptr_eq(node_type(fns[1]), node_type(fns[0]));
    ck_assert_str_eq(node_type(fns[2])->text, "fn (Tensor[(64), float32], Tensor[(1, 64), "
                                              "float32]) -> Tensor[(1, 64), float32]");
    ck_assert_ptr_null(node_type(fns[3]));
    StrBuf why = {0};
    ck_assert_str_eq(type_infer_node(g, fns[1], &why)->text, ab);
    strbuf_free(&why);
    graph_free(g);
}
END_TEST

START_TEST(test_million_bindings)
{
    /* GRAFT_SLOW_TESTS=0 (valgrind) keeps the shape at 10,000 bindings */
    const char *slow = getenv("GRAFT_SLOW_TESTS");
    const int N = slow && strcmp(slow, "0") == 0 ? 10000 : 1000000;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    fputs("def @main(%x) {\n  %0 = nn.relu(%x);\n", mem);
    for (int i = 1; i < N; i++)
        fprintf(mem, "  %%%d = nn.relu(%%%d);\n", i, i - 1);
    fprintf(mem, "  nn.relu(%%%d)\n}\n", N - 1);
    fclose(mem);
    char *printed = reprint("chain.relay", text, len, NULL);
    ck_assert(printed != NULL);
    ck_assert(strcmp(printed, text) == 0);
    free(printed);
    free(text);
}
END_TEST

/* Nesting past the parser's limit is an error, not a crash. */
static const char *const deep_kinds[][3] = {
    {"  ", "nn.relu(", ")"},  /* nested calls */
    {"  ", "(", ",)"},        /* nested tuples */
    {"  f(%x, a=", "[", "]"}, /* nested attribute lists */
};

START_TEST(test_deep_nesting)
{
    enum { DEPTH = 100000 };
    const char *const *k = deep_kinds[_i];
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    fprintf(mem, "def @main(%%x) {\n%s", k[0]);
    for (int i = 0; i < DEPTH; i++)
        fputs(k[1], mem);
    fputs(_i == 2 ? "1" : "%x", mem);
    for (int i = 0; i < DEPTH; i++)
        fputs(k[2], mem);
    fputs(_i == 2 ? ")\n}\n" : "\n}\n", mem);
    fclose(mem);
    char *diags;
    char *printed = reprint("deep.relay", text, len, &diags);
    ck_assert(printed == NULL);
    const char *want = "error: expression nested too deeply (the limit is "
                       "10000 parser stack entries, about 2000 levels) [--limit model-depth]\n";
    ck_assert_msg(strstr(diags, want) != NULL, "%.200s", diags);
    ck_assert(strncmp(diags, "deep.relay:2:", 13) == 0);
    free(diags);
    free(text);
}
END_TEST

/* The documented limits (note [relay nesting limit]): 3,328 nested calls
 * load and print, 3,329 do not. */
START_TEST(test_nesting_within_limit)
{
    for (int depth = 3328; depth <= 3329; depth++) {
        char *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        fputs("def @main(%x) {\n  ", mem);
        for (int i = 0; i < depth; i++)
            fputs("nn.relu(", mem);
        fputs("%x", mem);
        for (int i = 0; i < depth; i++)
            fputs(")", mem);
        fputs("\n}\n", mem);
        fclose(mem);
        char *printed = reprint("nested.relay", text, len, NULL);
        if (depth == 3328)
            ck_assert(strstr(printed, "  %3326 = nn.relu(%3325);\n  nn.relu(%3326)\n}\n"));
        else
            ck_assert(printed == NULL);
        free(printed);
        free(text);
    }
}
END_TEST

/* "def @main(%x) { fn () { ... %x ... } }" with depth nested fns. */
static char *nested_functions(int depth, size_t *len)
{
    char *text = NULL;
    FILE *mem = open_memstream(&text, len);
    fputs("def @main(%x) {\n  ", mem);
    for (int i = 0; i < depth; i++)
        fputs("fn () {", mem);
    fputs("%x", mem);
    for (int i = 0; i < depth; i++)
        fputs("}", mem);
    fputs("\n}\n", mem);
    fclose(mem);
    return text;
}

/* The deepest fn nesting the fn-depth limit allows by default prints (the
 * printer recurses once per nested fn) and loads back to the same text;
 * one level more is refused at the fn that goes too deep. */
START_TEST(test_deepest_functions)
{
    size_t len;
    char *text = nested_functions(257, &len);
    char *diags;
    ck_assert_ptr_null(reprint("fns.relay", text, len, &diags));
    static const char want[] = "fns.relay:2:1795: error: functions nested deeper than "
                               "256 levels [--limit fn-depth]\n    2 | ...() {fn () {";
    /* then the long line, clipped from 200 bytes before the caret (note
     * [clipped excerpts] in diag.c) */
    ck_assert(strncmp(diags, want, sizeof want - 1) == 0);
    free(diags);
    free(text);
    text = nested_functions(256, &len);
    char *once = reprint("fns.relay", text, len, NULL);
    ck_assert(once != NULL);
    char *twice = reprint("fns.relay", once, strlen(once), NULL);
    ck_assert(twice != NULL);
    ck_assert(strcmp(once, twice) == 0);
    ck_assert(strncmp(once, "def @main(%x) {\n  fn () {\n    fn () {\n", 38) == 0);
    free(once);
    free(twice);
    free(text);
}
END_TEST

/* note [annotation spans]: a loaded comment is a span of the Source,
 * copied into the graph's buffer of spans in the order of the nodes (the
 * Source is freed after loading, so valgrind sees any read of it), but
 * for one that is nothing but its type (note [annotation cache]); it
 * prints back exactly, and its type is the one the graph's parser makes
 * of its "ty=" part, made once per distinct text; a model without
 * comments, or with plain ones only, keeps no spans. */
START_TEST(test_annotation_spans)
{
    const char *text =
        "def @main(%x: Tensor[(1, 8), float32]) {\n"
        "  %0 = nn.relu(%x) /* ty=Tensor[(1, 8), float32] span=aten::relu_0:0:0 */;\n"
        "  %1 = add(%0, %0) /* ty=Tensor[(1, 8), float32] */;\n"
        "  nn.relu(%1) /* ty=(Tensor[(1, 8), float32],) span=out */\n"
        "}\n";
    graft_graph *g = load_string(text);
    size_t len = 0;
    const char *kept = graph_kept_text(g, &len);
    ck_assert_ptr_nonnull(kept);
    const graft_node *out = graph_output(g);
    const graft_node *add = node_arg(out, 0), *relu = node_arg(add, 0);
    const graft_node *nodes[] = {relu, add, out};
    const char *comments[] = {"/* ty=Tensor[(1, 8), float32] span=aten::relu_0:0:0 */",
                              "/* ty=Tensor[(1, 8), float32] */",
                              "/* ty=(Tensor[(1, 8), float32],) span=out */"};
    ck_assert_uint_eq(len, strlen(comments[0]) + strlen(comments[2]) + 2);
    graft_graph *parsed = graph_new();
    for (int i = 0; i < 3; i++) {
        const char *a = node_annotation(g, nodes[i]);
        if (i == 1) /* nothing but its type: interned, shared by its type */
            ck_assert(a < kept || a >= kept + len);
        else
            ck_assert_ptr_eq(a, i ? kept + strlen(comments[0]) + 1 : kept);
        ck_assert_str_eq(a, comments[i]);
        const graft_type *t = graph_annotation_type(parsed, comments[i]);
        ck_assert(type_equal(node_type(nodes[i]), t));
        ck_assert_str_eq(node_type(nodes[i])->text, t->text);
    }
    graph_free(parsed);
    ck_assert_ptr_eq(node_type(relu), node_type(add));
    char *printed = relay_print_string(g);
    ck_assert_str_eq(printed, text);
    free(printed);
    graph_free(g);
    g = load_string("def @main(%x) {\n  nn.relu(%x)\n}\n");
    ck_assert_ptr_null(graph_kept_text(g, NULL));
    graph_free(g);
    g = load_string("def @main(%x) {\n  %0 = nn.relu(%x) /* ty=int8 */;\n"
                    "  nn.relu(%0) /* ty=int8 */\n}\n");
    ck_assert_ptr_null(graph_kept_text(g, NULL));
    out = graph_output(g);
    ck_assert_ptr_eq(node_annotation(g, out), node_annotation(g, node_arg(out, 0)));
    ck_assert_str_eq(node_annotation(g, out), "/* ty=int8 */");
    graph_free(g);
}
END_TEST

/* A span that another comment follows at once ("* //" "*", layout) is
 * kept like any other (note [annotation spans]): the bytes after it are
 * not the graph's concern. */
START_TEST(test_annotation_span_then_comment)
{
    const char *text =
        "def @main(%x: Tensor[(1, 8), float32]) {\n"
        "  %0 = nn.relu(%x) /* ty=Tensor[(1, 8), float32] span=a *//* b */;\n"
        "  nn.relu(%0) /* ty=Tensor[(1, 8), float32] span=c */\n"
        "}\n";
    graft_graph *g = load_string(text);
    size_t len = 0;
    const char *kept = graph_kept_text(g, &len);
    static const char spans[] = "/* ty=Tensor[(1, 8), float32] span=a */\0"
                                "/* ty=Tensor[(1, 8), float32] span=c */";
    ck_assert_uint_eq(len, sizeof spans);
    ck_assert_mem_eq(kept, spans, sizeof spans);
    const graft_node *out = graph_output(g);
    ck_assert_ptr_eq(node_annotation(g, node_arg(out, 0)), kept);
    ck_assert_ptr_eq(node_annotation(g, out), kept + 40);
    char *printed = relay_print_string(g);
    ck_assert_str_eq(printed, "def @main(%x: Tensor[(1, 8), float32]) {\n"
                              "  %0 = nn.relu(%x) /* ty=Tensor[(1, 8), float32] span=a */;\n"
                              "  nn.relu(%0) /* ty=Tensor[(1, 8), float32] span=c */\n"
                              "}\n");
    free(printed);
    graph_free(g);
}
END_TEST

/* note [relay lexer]: a file's Source is scanned in place, and the
 * scanner writes nothing into it: after loading its text is the file's,
 * ended by two NULs, and a syntax error quotes its line whole (a NUL
 * written after the token would cut it at the ';'). */
START_TEST(test_scan_in_place)
{
    static const char model[] = "def @main(%x) {\n  %0 = nn.relu(%x) %x;\n  %0\n}\n";
    char path[] = "/tmp/check_relay_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "wb");
    fputs(model, f);
    fclose(f);
    char *out = NULL;
    size_t outlen = 0;
    FILE *mem = open_memstream(&out, &outlen);
    graft_diag *d = diag_new(mem);
    Source *src = source_read(path, d);
    remove(path);
    ck_assert(src->padded);
    ck_assert_ptr_null(relay_load(src, d));
    ck_assert_mem_eq(src->text, model, sizeof model); /* the NUL after it too */
    ck_assert_int_eq(src->text[src->len + 1], '\0');
    source_free(src);
    diag_free(d);
    fclose(mem);
    char want[512];
    snprintf(want, sizeof want,
             "%s:2:20: error: syntax error, unexpected name (%%x), expecting ';'\n"
             "    2 |   %%0 = nn.relu(%%x) %%x;\n"
             "      |                    ^~\n", path);
    ck_assert_str_eq(out, want);
    free(out);
}
END_TEST

/* note [sized from the text]: the temps' cells are reserved for the
 * last "%N" of the text (here @f's %0: one cell); @main, read first,
 * needs six and grows them, and @f's are made afresh after @main's end. */
START_TEST(test_temps_past_hint)
{
    const char *text = "def @main(%x: float32) -> float32 {\n"
                       "  %0 = add(%x, %x);\n  %1 = add(%0, %0);\n  %2 = add(%1, %1);\n"
                       "  %3 = add(%2, %2);\n  %4 = @f(%3);\n  add(%4, %4)\n}\n\n"
                       "def @f(%y: float32) -> float32 {\n"
                       "  %0 = multiply(%y, %y);\n  negative(%0)\n}\n";
    graft_graph *g = load_string(text);
    char *printed = relay_print_string(g);
    ck_assert_str_eq(printed, "def @f(%y: float32) -> float32 {\n"
                              "  %0 = multiply(%y, %y);\n  negative(%0)\n}\n\n"
                              "def @main(%x: float32) -> float32 {\n"
                              "  %1 = add(%x, %x);\n  %2 = add(%1, %1);\n"
                              "  %3 = add(%2, %2);\n  %4 = add(%3, %3);\n"
                              "  %5 = @f(%4);\n  add(%5, %5)\n}\n");
    free(printed);
    graph_free(g);
}
END_TEST

static const char *const shared_slot_ops[] = {
    "negative", "sqrt",    "rsqrt", "exp",       "log",       "log2",       "log10",
    "tanh",     "sigmoid", "erf",   "abs",       "sign",      "ceil",       "floor",
    "round",    "trunc",   "sin",   "cos",       "tan",       "asin",       "acos",
    "atan",     "sinh",    "cosh",  "asinh",     "acosh",     "atanh",      "copy",
    "isnan",    "isinf",   "isfinite", "sum",    "mean",      "max",        "argmax",
    "nn.relu",  "shape_of", "fast_exp",
};
enum { NSHARED = sizeof shared_slot_ops / sizeof shared_slot_ops[0] };

/* The type of op(%x) alone, its relation asked once (malloc'd). */
static char *one_call_type(const char *op)
{
    char text[128];
    snprintf(text, sizeof text, "def @main(%%x: Tensor[(2, 3), float32]) {\n  %s(%%x)\n}\n", op);
    graft_graph *g = load_string(text);
    ck_assert_ptr_nonnull(node_type(graph_output(g)));
    char *type = xstrdup(node_type(graph_output(g))->text);
    graph_free(g);
    return type;
}

/* note [relations seen] in src/relay/type_infer.c: 38 ops in 16 slots of
 * two, so some share one with two others, whatever the addresses their
 * names get; each call, twice over, still gets its op's type. */
START_TEST(test_relations_sharing_slots)
{
    StrBuf text = {0};
    strbuf_printf(&text, "def @main(%%x: Tensor[(2, 3), float32]) {\n");
    for (int i = 0; i < 2 * NSHARED; i++)
        strbuf_printf(&text, "  %%%d = %s(%%x);\n", i, shared_slot_ops[i % NSHARED]);
    strbuf_printf(&text, "  (%%0");
    for (int i = 1; i < 2 * NSHARED; i++)
        strbuf_printf(&text, ", %%%d", i);
    strbuf_printf(&text, ")\n}\n");
    graft_graph *g = load_string(text.data);
    const graft_node *tuple = graph_output(g);
    ck_assert_int_eq(node_nargs(tuple), 2 * NSHARED);
    for (int i = 0; i < 2 * NSHARED; i++) {
        char *want = one_call_type(shared_slot_ops[i % NSHARED]);
        ck_assert_ptr_nonnull(node_type(node_arg(tuple, i)));
        ck_assert_str_eq(node_type(node_arg(tuple, i))->text, want);
        free(want);
    }
    graph_free(g);
    strbuf_free(&text);
}
END_TEST

/* note [distinct names] reads a variable's name's length from the graph's
 * interned copy: names given through the graph's API, short, long and
 * taking a "v", print whole. */
START_TEST(test_api_names_lengths)
{
    graft_graph *g = graph_new();
    graft_node *a = graph_add_param(g, "a", NULL);
    graft_node *b = graph_add_param(g, "a_name_longer_than_thirty_two_bytes", NULL);
    graft_node *c = graph_add_param(g, "0c", NULL);
    graft_node *ab[] = {a, b};
    graft_node *sum = graph_add_call(g, "add", ab, 2, NULL, 0);
    graft_node *sc[] = {sum, c};
    graph_set_output(g, graph_add_call(g, "multiply", sc, 2, NULL, 0));
    char *text = relay_print_string(g);
    ck_assert_str_eq(text, "def @main(%a, %a_name_longer_than_thirty_two_bytes, %v0c) {\n"
                           "  %0 = add(%a, %a_name_longer_than_thirty_two_bytes);\n"
                           "  multiply(%0, %v0c)\n"
                           "}\n");
    free(text);
    graph_free(g);
}
END_TEST

/* note [pending texts]: functions kept at once, in one another and
 * side by side, each used from its own buffer (a function inside a
 * function, two before their calls, two before a tuple, one used twice). */
START_TEST(test_pending_texts)
{
    static const char input[] = "def @main(%x, %y) {\n"
                                "  %0 = fn (%a) {\n"
                                "    %1 = fn (%b) { add(%b, %a) };\n"
                                "    %2 = fn (%c) { multiply(%c, %c) };\n"
                                "    (%1(%a), %2(%a))\n"
                                "  };\n"
                                "  %3 = fn (%d) { subtract(%d, %d) };\n"
                                "  %4 = (%0, %3);\n"
                                "  %5 = %4.0;\n"
                                "  %6 = %4.1;\n"
                                "  (%5(%x), %6(%y), if (%x) { %3 } else { %0 })\n"
                                "}\n";
    static const char expected[] = "def @main(%x, %y) {\n"
                                   "  %4 = fn (%a) {\n"
                                   "    %0 = fn (%b) {\n"
                                   "      add(%b, %a)\n"
                                   "    };\n"
                                   "    %1 = fn (%c) {\n"
                                   "      multiply(%c, %c)\n"
                                   "    };\n"
                                   "    %2 = %0(%a);\n"
                                   "    %3 = %1(%a);\n"
                                   "    (%2, %3)\n"
                                   "  };\n"
                                   "  %5 = fn (%d) {\n"
                                   "    subtract(%d, %d)\n"
                                   "  };\n"
                                   "  %6 = (%4, %5);\n"
                                   "  %7 = %6.0;\n"
                                   "  %8 = %6.1;\n"
                                   "  %9 = %7(%x);\n"
                                   "  %10 = %8(%y);\n"
                                   "  %11 = if (%x) {\n"
                                   "    %5\n"
                                   "  } else {\n"
                                   "    %4\n"
                                   "  };\n"
                                   "  (%9, %10, %11)\n"
                                   "}\n";
    char *printed = reprint("pending.relay", input, sizeof input - 1, NULL);
    ck_assert_ptr_nonnull(printed);
    ck_assert_str_eq(printed, expected);
    free(printed);
}
END_TEST

/* note [attribute texts]: attribute texts kept by name, each used again
 * only for the same value: spelled values (loaded) by their spelling,
 * made ones by kind and value, a name's text replaced when its value
 * changes and kept again after, a list made by an edit not kept. */
START_TEST(test_attribute_texts)
{
    static const char loaded[] = "def @main(%x) {\n"
                                 "  %0 = nn.softmax(%x, axis=1);\n"
                                 "  %1 = nn.softmax(%0, axis=-1);\n"
                                 "  nn.softmax(%1, axis=1)\n"
                                 "}\n";
    char *printed = reprint("attrs.relay", loaded, sizeof loaded - 1, NULL);
    ck_assert_ptr_nonnull(printed);
    ck_assert_str_eq(printed, loaded);
    free(printed);
    graft_graph *g = graph_new();
    graft_attr_value *one = graph_new_attr_value(g, GRAFT_ATTR_INT);
    graft_attr_value *minus = graph_new_attr_value(g, GRAFT_ATTR_INT);
    graft_attr_value *half = graph_new_attr_value(g, GRAFT_ATTR_FLOAT);
    graft_attr_value *yes = graph_new_attr_value(g, GRAFT_ATTR_BOOL);
    graft_attr_value *none = graph_new_attr_value(g, GRAFT_ATTR_NULL);
    graft_attr_value *nchw = graph_new_attr_value(g, GRAFT_ATTR_STRING);
    graft_attr_value *list = graph_new_attr_value(g, GRAFT_ATTR_LIST);
    one->i = 1;
    minus->i = -1;
    half->f = 0.5;
    yes->i = 1;
    nchw->s = "NCHW";
    const graft_attr_value *items[] = {one, minus};
    list->items = items;
    list->nitems = 2;
    graft_attr first[] = {{"axis", one}, {"eps", half}, {"layout", nchw}, {"keep", yes},
                          {"pad", list}};
    graft_attr second[] = {{"axis", minus}, {"eps", half}, {"layout", nchw}, {"keep", none},
                           {"pad", list}};
    graft_node *x = graph_add_param(g, "x", NULL);
    graft_node *a = graph_add_call(g, "f", &x, 1, first, 5);
    graft_node *b = graph_add_call(g, "f", &a, 1, second, 5);
    graph_set_output(g, graph_add_call(g, "f", &b, 1, first, 5));
    char *text = relay_print_string(g);
    ck_assert_str_eq(text,
                     "def @main(%x) {\n"
                     "  %0 = f(%x, axis=1, eps=0.5f, layout=\"NCHW\", keep=True, pad=[1, -1]);\n"
                     "  %1 = f(%0, axis=-1, eps=0.5f, layout=\"NCHW\", keep=None, pad=[1, -1]);\n"
                     "  f(%1, axis=1, eps=0.5f, layout=\"NCHW\", keep=True, pad=[1, -1])\n"
                     "}\n");
    free(text);
    graph_free(g);
}
END_TEST

/* note [streaming]: @main's parameters drain in runs of at most 1,024,
 * so a line of 5,000 parameters (about 100 KB, past DRAIN_AT) and 6,000
 * binding lines print whole, as relay_print_string prints them. */
START_TEST(test_params_streamed)
{
    enum { NPARAMS = 5000, NCALLS = 6000 };
    graft_graph *g = graph_new();
    StrBuf want = {0};
    strbuf_puts(&want, "def @main(");
    graft_node *params[NPARAMS];
    for (int i = 0; i < NPARAMS; i++) {
        char name[32];
        snprintf(name, sizeof name, "input_number_%d", i);
        params[i] = graph_add_param(g, name, NULL);
        strbuf_printf(&want, "%s%%%s", i ? ", " : "", name);
    }
    strbuf_puts(&want, ") {\n");
    graft_node *last = params[0];
    for (int i = 0; i < NCALLS; i++) {
        graft_node *ab[] = {last, params[i % NPARAMS]};
        last = graph_add_call(g, "add", ab, 2, NULL, 0);
        if (i + 1 < NCALLS)
            strbuf_printf(&want, "  %%%d = add(%s%d, %%input_number_%d);\n", i,
                          i ? "%" : "%input_number_", i ? i - 1 : 0, i % NPARAMS);
    }
    strbuf_printf(&want, "  add(%%%d, %%input_number_%d)\n}\n", NCALLS - 2,
                  (NCALLS - 1) % NPARAMS);
    graph_set_output(g, last);
    char *streamed = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&streamed, &len);
    relay_print(g, mem);
    fclose(mem);
    char *whole = relay_print_string(g);
    ck_assert_str_eq(whole, want.data);
    ck_assert_str_eq(streamed, want.data);
    free(streamed);
    free(whole);
    strbuf_free(&want);
    graph_free(g);
}
END_TEST

/* A getitem's index prints in one digit below 10 (write_index), through
 * write_i64 from 10 on. */
START_TEST(test_getitem_indices)
{
    graft_graph *g = graph_new();
    graft_node *fields[12];
    for (int i = 0; i < 12; i++) {
        char name[8];
        snprintf(name, sizeof name, "f%d", i);
        fields[i] = graph_add_param(g, name, NULL);
    }
    graft_node *t = graph_add_tuple(g, fields, 12);
    graft_node *picked[] = {graph_add_getitem(g, t, 0), graph_add_getitem(g, t, 9),
                            graph_add_getitem(g, t, 10), graph_add_getitem(g, t, 11)};
    graph_set_output(g, graph_add_tuple(g, picked, 4));
    char *text = relay_print_string(g);
    ck_assert_str_eq(text, "def @main(%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8, %f9, %f10, "
                           "%f11) {\n"
                           "  %0 = (%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8, %f9, %f10, "
                           "%f11);\n"
                           "  %1 = %0.0;\n"
                           "  %2 = %0.9;\n"
                           "  %3 = %0.10;\n"
                           "  %4 = %0.11;\n"
                           "  (%1, %2, %3, %4)\n"
                           "}\n");
    free(text);
    graph_free(g);
}
END_TEST

/* note [walks on the nodes] in relay_print_number.c: the printer's walks
 * and its names' check skip dead nodes, which no walk reaches: a graph
 * with nodes an edit left dead prints its live ones only, numbered as
 * before the edit. */
START_TEST(test_dead_nodes_skipped)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL), *y = graph_add_param(g, "y", NULL);
    graft_node *one = graph_add_const(g, "1f", 1.0, "float32");
    graft_node *x1[] = {x, one};
    graft_node *sum = graph_add_call(g, "add", x1, 2, NULL, 0);
    graft_node *sy[] = {sum, y};
    graft_node *product = graph_add_call(g, "multiply", sy, 2, NULL, 0);
    graft_node *py[] = {product, y};
    graph_set_output(g, graph_add_call(g, "subtract", py, 2, NULL, 0));
    graph_replace_all_uses(g, sum, x);
    ck_assert_uint_eq(graph_remove_dead(g), 2); /* the add and its constant */
    char *text = relay_print_string(g);
    ck_assert_str_eq(text, "def @main(%x, %y) {\n"
                           "  %0 = multiply(%x, %y);\n"
                           "  subtract(%0, %y)\n"
                           "}\n");
    free(text);
    graph_free(g);
}
END_TEST

/* A free variable is declared at its first use only (its visit state,
 * the one a variable keeps), however often it is used after. */
START_TEST(test_free_declared_once)
{
    static const char text[] = "free_var %x: Tensor[(2), float32];\n"
                               "%0 = nn.relu(%x);\n"
                               "%1 = add(%0, %x);\n"
                               "multiply(%1, %x)\n";
    char *printed = reprint("free.relay", text, sizeof text - 1, NULL);
    ck_assert_ptr_nonnull(printed);
    ck_assert_str_eq(printed, text);
    free(printed);
}
END_TEST

/* graph_annotation_by_id, which the printer asks for every binding line,
 * is node_annotation by the node's id: a loaded comment, NULL for a node
 * without one and for an id past the annotation table. */
START_TEST(test_annotation_by_id)
{
    graft_graph *g = load_string("def @main(%x) {\n"
                                 "  %0 = nn.relu(%x) /* ty=float32 */;\n"
                                 "  add(%0, %x)\n"
                                 "}\n");
    graft_node *out = graph_output(g), *relu = node_arg(out, 0);
    ck_assert_str_eq(graph_annotation_by_id(g, node_id(relu)), "/* ty=float32 */");
    ck_assert_ptr_eq(graph_annotation_by_id(g, node_id(relu)), node_annotation(g, relu));
    ck_assert_ptr_null(graph_annotation_by_id(g, node_id(out)));
    ck_assert_ptr_null(graph_annotation_by_id(g, graph_node_count(g) + 1000));
    graph_free(g);
}
END_TEST

/* note [line cursor] in src/relay/relay_load_expr.c: positions read
 * from the cursor are the line table's, across parameters on two lines,
 * a binding line broken inside (left to the tokens), a comment holding a
 * newline, blank lines and a carriage return before a newline. */
START_TEST(test_positions_on_cursor)
{
    static const char text[] = "def @main(%x,\n"
                               "          %y) {\n"
                               "  %0 = add(%x,\n"
                               "           %y);\n"
                               "  %1 = multiply(%0, %0) /* a\n"
                               "  note */;\n"
                               "  %2 = subtract(%1, 2f);\r\n"
                               "\n"
                               "\n"
                               "  %3 = divide(%2, %x);\n"
                               "  %4 = (%3, %1);\n"
                               "  %4.1\n"
                               "}\n";
    graft_graph *g = load_string(text);
    graft_node *get = graph_output(g), *tuple = node_arg(get, 0);
    graft_node *div = node_arg(tuple, 0), *mul = node_arg(tuple, 1);
    graft_node *sub = node_arg(div, 0), *two = node_arg(sub, 1), *add = node_arg(mul, 0);
    const graft_node *nodes[] = {graph_param(g, 0), graph_param(g, 1), add, mul, sub, two,
                                 div, tuple, get};
    const int where[][2] = {{1, 11}, {2, 11}, {3, 8}, {5, 8}, {7, 8}, {7, 21},
                            {10, 8}, {11, 8}, {12, 6}};
    for (size_t i = 0; i < ARRAY_LEN(nodes); i++) {
        ck_assert_int_eq(node_line(g, nodes[i]), where[i][0]);
        ck_assert_int_eq(node_col(g, nodes[i]), where[i][1]);
    }
    graph_free(g);
}
END_TEST

/* note [control blocks] in src/relay/relay_load_control.h: the bytes below 0x20
 * and those next to the other edges, at each place of a comment over the
 * first blocks of sixteen (each place in a block and two blocks' ends),
 * are reported exactly when they are control bytes, at their column;
 * any other loads. */
START_TEST(test_control_bytes_at_each_place)
{
    char model[128];
    snprintf(model, sizeof model, "/*%.62s*/\ndef @main(%%x) {\n  %%x\n}\n",
             "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz");
    for (unsigned b = 0; b < 256; b = b == 0x20 ? 0x7e : b == 0x80 ? 0xff : b + 1)
        for (size_t at = 2; at < 34; at++) {
            char text[128];
            strcpy(text, model);
            text[at] = (char)b;
            char *diags;
            char *printed = reprint("c.relay", text, strlen(model), &diags);
            if ((b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7f) {
                char want[96];
                snprintf(want, sizeof want, "c.relay:1:%zu: error: unexpected byte 0x%02x",
                         at + 1, b);
                ck_assert_msg(!printed && strncmp(diags, want, strlen(want)) == 0, "%s", diags);
            } else {
                ck_assert_msg(printed && !*diags, "byte 0x%02x at %zu: %s", b, at, diags);
            }
            free(printed);
            free(diags);
        }
}
END_TEST

/* note [ops read] in src/relay/relay_load_line.c: ops that share their
 * first two bytes, one the start of another, shorter and longer than
 * eight bytes, a name followed by a space (read by the tokens) and the
 * text ending in an op's first bytes: each call gets its own op. */
START_TEST(test_ops_seen)
{
    static const char *const ops[] = {"nn.relu", "nn.relu6", "nn.relu", "nn.relu ", "add",
                                      "adv", "add", "nn.relu6", "nn.batch_flatten",
                                      "nn.batch_flattens", "nn.batch_flatten", "nn.relu"};
    char text[1024];
    int len = snprintf(text, sizeof text, "def @main(%%x) {\n  %%0 = nn.relu(%%x);\n");
    for (size_t i = 0; i < ARRAY_LEN(ops); i++)
        len += snprintf(text + len, sizeof text - (size_t)len, "  %%%zu = %s(%%%zu);\n", i + 1,
                        ops[i], i);
    snprintf(text + len, sizeof text - (size_t)len, "  %%%zu\n}\n", ARRAY_LEN(ops));
    graft_graph *g = load_string(text);
    const graft_node *n = graph_output(g);
    for (size_t i = ARRAY_LEN(ops); i-- > 0; n = node_arg(n, 0))
        ck_assert_str_eq(node_op(n), strcmp(ops[i], "nn.relu ") == 0 ? "nn.relu" : ops[i]);
    ck_assert_str_eq(node_op(n), "nn.relu");
    ck_assert_int_eq(node_kind(node_arg(n, 0)), NODE_VAR);
    graph_free(g);
    char *diags;
    ck_assert_ptr_null(reprint("end.relay", "def @main(%x) {\n  %0 = nn.relu(%x);\n  %1 = nn.rel",
                               strlen("def @main(%x) {\n  %0 = nn.relu(%x);\n  %1 = nn.rel"),
                               &diags));
    const char *want = "end.relay:3:14: error: syntax error, unexpected end of file";
    ck_assert_msg(strncmp(diags, want, strlen(want)) == 0, "%s", diags);
    free(diags);
}
END_TEST

/* Literals of a line (note [name cache] in src/relay/relay_load_expr.c)
 * and their types (scalar_const_type in type_infer.c): each keeps its
 * spelling, value and dtype, one type a dtype, whatever came before. */
START_TEST(test_literal_types)
{
    static const char text[] = "def @main(%x) {\n"
                               "  %0 = add(%x, 1f);\n"
                               "  %1 = add(%0, 2i64);\n"
                               "  %2 = add(%1, 1f);\n"
                               "  %3 = where(True, %2, 1e-05f);\n"
                               "  %4 = add(%3, 3u8);\n"
                               "  add(%4, 2i64)\n"
                               "}\n";
    static const struct {
        const char *spelling, *type;
        double value;
    } want[] = {{"2i64", "int64", 2}, {"3u8", "uint8", 3}, {"1e-05f", "float32", 1e-05},
                {"True", "bool", 1}, {"1f", "float32", 1}, {"2i64", "int64", 2},
                {"1f", "float32", 1}};
    graft_graph *g = load_string(text);
    graft_node *out = graph_output(g), *n4 = node_arg(out, 0), *n3 = node_arg(n4, 0);
    graft_node *n2 = node_arg(n3, 1), *n1 = node_arg(n2, 0), *n0 = node_arg(n1, 0);
    const graft_node *consts[] = {node_arg(out, 1), node_arg(n4, 1), node_arg(n3, 2),
                                  node_arg(n3, 0),  node_arg(n2, 1), node_arg(n1, 1),
                                  node_arg(n0, 1)};
    for (size_t i = 0; i < ARRAY_LEN(want); i++) {
        const graft_node *c = consts[i];
        ck_assert_str_eq(node_const_text(c), want[i].spelling);
        ck_assert_str_eq(node_const_dtype(c), want[i].type);
        ck_assert(node_const_value(c) == want[i].value);
        ck_assert_str_eq(node_type(c)->text, want[i].type);
        for (size_t j = 0; j < i; j++)
            ck_assert((node_type(consts[j]) == node_type(c)) ==
                      (strcmp(want[j].type, want[i].type) == 0));
    }
    graph_free(g);
}
END_TEST

/* stays_untyped in src/relay/type_infer.c: a call reading an untyped
 * operand stays untyped, the typed ones around it are typed, and a
 * contradiction after it is still found. */
START_TEST(test_calls_of_untyped_operands)
{
    static const char text[] = "def @main(%x, %y: Tensor[(2), float32]) {\n"
                               "  %0 = add(%x, %y);\n"
                               "  %1 = add(%y, %y);\n"
                               "  %2 = add(%0, %1);\n"
                               "  %3 = nn.relu(%1);\n"
                               "  (%2, %3)\n"
                               "}\n";
    graft_graph *g = load_string(text);
    graft_node *out = graph_output(g), *two = node_arg(out, 0), *three = node_arg(out, 1);
    ck_assert_ptr_null(node_type(two));
    ck_assert_ptr_null(node_type(node_arg(two, 0)));
    ck_assert_str_eq(node_type(node_arg(two, 1))->text, "Tensor[(2), float32]");
    ck_assert_str_eq(node_type(three)->text, "Tensor[(2), float32]");
    ck_assert_ptr_null(node_type(out));
    graph_free(g);
    static const char bad[] = "def @main(%x, %y: Tensor[(2), float32],\n"
                              "          %z: Tensor[(3), float32]) {\n"
                              "  %0 = add(%x, %y);\n"
                              "  %1 = add(%y, %z);\n"
                              "  (%0, %1)\n"
                              "}\n";
    char *diags;
    ck_assert_ptr_null(reprint("bad.relay", bad, strlen(bad), &diags));
    const char *want = "bad.relay:4:8: error: type error: ";
    ck_assert_msg(strncmp(diags, want, strlen(want)) == 0, "%s", diags);
    free(diags);
}
END_TEST

/* A NAMES token's items (relay_load_names.c's operand): a temp and a
 * parameter found, an undefined name and a temp number too large each
 * reported once, at its place. */
START_TEST(test_names_items_found_once)
{
    graft_graph *g = load_string("def @main(%x) {\n  %0 = nn.relu(%x);\n  (%0, %x)\n}\n");
    graft_node *out = graph_output(g);
    ck_assert_str_eq(node_op(node_arg(out, 0)), "nn.relu");
    ck_assert_ptr_eq(node_arg(out, 1), graph_param(g, 0));
    graph_free(g);
    static const char *const bad[][2] = {
        {"def @main(%x) {\n  (%x, %y)\n}\n", "b.relay:2:8: error: '%y' is not defined\n"},
        {"def @main(%x) {\n  (%x, %123456789012345678901)\n}\n",
         "b.relay:2:8: error: temporary number too large\n"},
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        char *diags;
        ck_assert_ptr_null(reprint("b.relay", bad[i][0], strlen(bad[i][0]), &diags));
        ck_assert_msg(strncmp(diags, bad[i][1], strlen(bad[i][1])) == 0, "%s", diags);
        ck_assert_msg(!strstr(diags + 1, "b.relay:"), "%s", diags); /* one diagnostic */
        free(diags);
    }
}
END_TEST

/* note [control blocks] in src/relay/relay_load_control.h: the words'
 * form, the loader's where there is no SSE2, gives the SSE2 form's
 * answer (and the plain one: the first sixteen-byte block holding a
 * byte below 0x20 but tab, newline and carriage return, or 0x7f) for
 * every byte at every place of three blocks and a tail. */
static size_t plain_blocks(const char *text, size_t len)
{
    size_t i = 0;
    for (; i + 16 <= len; i += 16)
        for (size_t k = i; k < i + 16; k++) {
            unsigned char b = (unsigned char)text[k];
            if ((b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7f)
                return i;
        }
    return i;
}

START_TEST(test_control_blocks_both_forms)
{
    char text[56];
    for (unsigned b = 0; b < 256; b++)
        for (size_t at = 0; at < sizeof text; at++) {
            for (size_t k = 0; k < sizeof text; k++)
                text[k] = "ab \tc\nd\re"[k % 9];
            text[at] = (char)b;
            size_t want = plain_blocks(text, sizeof text);
            ck_assert_uint_eq(skip_plain_blocks_words(text, sizeof text), want);
#if defined(__SSE2__)
            ck_assert_uint_eq(skip_plain_blocks_sse2(text, sizeof text), want);
#endif
            ck_assert_uint_eq(skip_plain_words(text, sizeof text), want);
        }
}
END_TEST


/* Temp numbers read a word at a time (note [temp digits] in
 * src/relay/relay_load_line.c): of one to ten digits (eight and more a
 * byte at a time, ten left to the tokens), with leading zeros, and the
 * result's temp within eight bytes of the text's end; each use finds the
 * line it names, and a number spelled twice is one temp. */
START_TEST(test_temp_digits)
{
    static const char *const temps[] = {"0",       "7",        "42",        "0042x",
                                        "999",     "1234",     "98765",     "100000",
                                        "1234567", "12345678", "123456789", "1234567890",
                                        "5"};
    char text[1024];
    int len = snprintf(text, sizeof text, "def @main(%%x) {\n  %%0 = nn.relu(%%x);\n");
    const char *prev = "0";
    size_t lines = 1;
    for (size_t i = 1; i < ARRAY_LEN(temps); i++) {
        if (strcmp(temps[i], "0042x") == 0) { /* a use of %42 spelled %0042 */
            len += snprintf(text + len, sizeof text - (size_t)len, "  %%43 = nn.relu(%%0042);\n");
            prev = "43";
        } else {
            len += snprintf(text + len, sizeof text - (size_t)len, "  %%%s = nn.relu(%%%s);\n",
                            temps[i], prev);
            prev = temps[i];
        }
        lines++;
    }
    snprintf(text + len, sizeof text - (size_t)len, "  %%%s\n}", prev);
    graft_graph *g = load_string(text);
    const graft_node *n = graph_output(g);
    size_t calls = 0;
    for (; node_kind(n) == NODE_CALL; n = node_arg(n, 0))
        calls++;
    ck_assert_int_eq(calls, lines);
    ck_assert_int_eq(node_kind(n), NODE_VAR);
    graph_free(g);
    char *diags;
    static const char twice[] = "def @main(%x) {\n  %7 = nn.relu(%x);\n  %007 = nn.relu(%7);\n"
                                "  %007\n}\n";
    ck_assert_ptr_null(reprint("twice.relay", twice, strlen(twice), &diags));
    const char *want = "twice.relay:3:3: error: duplicate definition of '%007'";
    ck_assert_msg(strncmp(diags, want, strlen(want)) == 0, "%s", diags);
    free(diags);
}
END_TEST


/* Positions stored in the graph's table (note [positions stored] in
 * src/relay/relay_load.h), past the room the text's length reserves
 * too (a node every 16 bytes: here one every 5), where graph_set_pos
 * places the node and the table is taken again: every node at its line
 * and column. */
START_TEST(test_positions_past_reserve)
{
    enum { FIELDS = 300 };
    char text[4096];
    int len = snprintf(text, sizeof text, "def @main(%%x) {\n  (");
    int cols[FIELDS];
    for (int i = 0; i < FIELDS; i++) {
        cols[i] = len - (int)strlen("def @main(%x) {\n") + 1;
        len += snprintf(text + len, sizeof text - (size_t)len, "%s%df", i ? ", " : "", i % 10);
        if (i)
            cols[i] += 2;
    }
    snprintf(text + len, sizeof text - (size_t)len, ")\n}\n");
    ck_assert_int_gt(FIELDS, (int)strlen(text) / 16 + 16); /* past what reserve makes room for */
    graft_graph *g = load_string(text);
    const graft_node *tuple = graph_output(g);
    ck_assert_int_eq(node_nargs(tuple), FIELDS);
    ck_assert_int_eq(node_line(g, tuple), 2);
    ck_assert_int_eq(node_col(g, tuple), 3);
    for (int i = 0; i < FIELDS; i++) {
        ck_assert_int_eq(node_line(g, node_arg(tuple, i)), 2);
        ck_assert_int_eq(node_col(g, node_arg(tuple, i)), cols[i]);
    }
    ck_assert_int_eq(node_line(g, graph_param(g, 0)), 1);
    ck_assert_int_eq(node_col(g, graph_param(g, 0)), 11);
    graph_free(g);
}
END_TEST


/* A result tuple's temps (src/relay/relay_load_names.c's temp_in_cell):
 * of one to six digits, leading zeros too, found in their cells; of
 * seven, and one of a cell not defined, by scope_lookup as before; an
 * undefined one reported once. */
START_TEST(test_names_temps_in_cells)
{
    static const char text[] = "def @main(%x) {\n"
                               "  %3 = nn.relu(%x);\n"
                               "  %123456 = nn.relu(%3);\n"
                               "  %1234567 = nn.relu(%123456);\n"
                               "  (%3, %0003, %123456, %1234567, %x)\n"
                               "}\n";
    graft_graph *g = load_string(text);
    graft_node *out = graph_output(g);
    graft_node *n3 = node_arg(out, 0), *n6 = node_arg(out, 2), *n7 = node_arg(out, 3);
    ck_assert_ptr_eq(node_arg(out, 1), n3);
    ck_assert_ptr_eq(node_arg(n7, 0), n6);
    ck_assert_ptr_eq(node_arg(n6, 0), n3);
    ck_assert_ptr_eq(node_arg(n3, 0), graph_param(g, 0));
    ck_assert_ptr_eq(node_arg(out, 4), graph_param(g, 0));
    graph_free(g);
    static const char bad[] = "def @main(%x) {\n  %3 = nn.relu(%x);\n  (%3, %4)\n}\n";
    const char *want = "b.relay:3:8: error: '%4' is not defined\n";
    char *diags;
    ck_assert_ptr_null(reprint("b.relay", bad, strlen(bad), &diags));
    ck_assert_msg(strncmp(diags, want, strlen(want)) == 0, "%s", diags);
    ck_assert_msg(!strstr(diags + 1, "b.relay:"), "%s", diags);
    free(diags);
}
END_TEST

/* note [walks on the nodes] in relay_print_number.c: a callee comes
 * first among its call's children though its slot is after the
 * operands; a call whose callee is a call of a function value pushes
 * both callees' frames above its own.  TVM's order: the function's body
 * takes %0 at its leaf visit, the calls' operands their temps before
 * the function does. */
START_TEST(test_callee_chain_frames)
{
    static const char text[] = "def @main(%x, %y, %z) {\n"
                               "  %0 = fn (%a) {\n"
                               "    fn (%b) {\n"
                               "      %1 = nn.relu(%b);\n"
                               "      add(%a, %1)\n"
                               "    }\n"
                               "  };\n"
                               "  %2 = nn.relu(%x);\n"
                               "  %3 = %0(%2);\n"
                               "  %4 = %3(%y);\n"
                               "  multiply(%4, %z)\n"
                               "}\n";
    char *printed = reprint("chain.relay", text, sizeof text - 1, NULL);
    ck_assert_str_eq(printed, "def @main(%x, %y, %z) {\n"
                              "  %1 = nn.relu(%x);\n"
                              "  %2 = fn (%a) {\n"
                              "    fn (%b) {\n"
                              "      %0 = nn.relu(%b);\n"
                              "      add(%a, %0)\n"
                              "    }\n"
                              "  };\n"
                              "  %3 = %2(%1);\n"
                              "  %4 = %3(%y);\n"
                              "  multiply(%4, %z)\n"
                              "}\n");
    free(printed);
}
END_TEST

/* A chain of calls each of whose callee is the call before, 10,000
 * deep: push_frame's loop pushes every callee's frame, no recursion. */
START_TEST(test_long_callee_chain)
{
    enum { DEPTH = 10000 };
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL);
    graft_node *a = graph_add_fn_param(g, "a", NULL);
    graft_node *callee = graph_add_func(g, &a, 1, a, NULL, 0);
    for (int i = 0; i < DEPTH; i++)
        callee = graph_add_fn_call(g, callee, &x, 1);
    graph_set_output(g, callee);
    char *text = relay_print_string(g);
    char tail[64];
    snprintf(tail, sizeof tail, "  %%%d = %%%d(%%x);\n  %%%d(%%x)\n}\n", DEPTH - 1, DEPTH - 2,
             DEPTH - 1);
    ck_assert_str_eq(text + strlen(text) - strlen(tail), tail);
    ck_assert(strstr(text, "  %0 = fn (%a) {\n    %a\n  };\n  %1 = %0(%x);\n"));
    free(text);
    graph_free(g);
}
END_TEST

/* The SSE2 form's steps of four blocks (relay_load_control.h): a byte
 * of each kind at each place of three steps, blocks after them and a
 * tail (bytes of UTF-8 among them), in text with newlines only (the
 * steps' test passes it) and with tabs and carriage returns (the steps'
 * test stops), gives the first
 * sixteen-byte block holding a control byte, as the words' form and
 * plain_blocks do. */
START_TEST(test_control_blocks_in_steps)
{
    static const unsigned char bytes[] = {0,   1,   '\t', '\n', '\r', 0x1f,
                                          ' ', 'a', 0x7e, 0x7f, 0x80, 0xff};
    static const char *const fillers[] = {"ab c\nde f", "ab \tc\nd\re"};
    char text[64 * 3 + 16 * 2 + 7];
    for (size_t f = 0; f < ARRAY_LEN(fillers); f++)
        for (size_t j = 0; j < sizeof bytes; j++)
            for (size_t at = 0; at < sizeof text; at++) {
                for (size_t k = 0; k < sizeof text; k++)
                    text[k] = fillers[f][k % 9];
                text[at] = (char)bytes[j];
                size_t want = plain_blocks(text, sizeof text);
                ck_assert_uint_eq(skip_plain_blocks_words(text, sizeof text), want);
                ck_assert_uint_eq(skip_plain_words(text, sizeof text), want);
                ck_assert_uint_eq(skip_plain_words(text + 1, sizeof text - 1),
                                  plain_blocks(text + 1, sizeof text - 1));
            }
}
END_TEST

/* Type declarations read a character at a time (type_adt.c): every
 * whitespace character C's isspace knows separates, names are letters,
 * digits and '_', and a constructor of more fields than parse_args keeps
 * on its stack (FEW_TERMS) keeps them all. */
START_TEST(test_adt_declarations_read)
{
    static const char wide[] = "type\tWide[A]\v{\r\n  Mk_2(A, A, A, A, A, A, A, A, A, A, "
                               "Tensor[(2, 3), float32], (A, int8)),\f  Empty,\n}";
    size_t off = 99;
    ck_assert_ptr_null(adt_decl_error(wide, strlen(wide), &off));
    const char *bad = "type Wide[A] { Mk-2(A) }";
    ck_assert_str_eq(adt_decl_error(bad, strlen(bad), &off),
                     "malformed type declaration: expected ',' or '}' after a constructor");
    ck_assert_uint_eq(off, 17);
    bad = "type 9Wide { Mk }";
    ck_assert_ptr_nonnull(adt_decl_error(bad, strlen(bad), &off));
    ck_assert_uint_eq(off, 5);
    graft_graph *g = graph_new();
    graph_add_typedef(g, wide, strlen(wide));
    AdtTable *t = adt_table_new(g);
    ck_assert_int_eq(adt_constructor_fields(t, "Mk_2"), 12);
    ck_assert_int_eq(adt_constructor_fields(t, "Empty"), 0);
    ck_assert_int_eq(adt_constructor_fields(t, "Cons"), 2); /* the Prelude's */
    ck_assert_int_eq(adt_constructor_fields(t, "Mk"), -1);
    adt_table_free(t);
    graph_free(g);
}
END_TEST

/* note [parameter runs] in relay_print_text.c: plain parameters named
 * as loaded print in runs, which a typed parameter breaks and which a
 * signature of the printer's own names (two functions with a %p) does
 * not use; a function's head with a result type (note [function heads]
 * in relay_print_scope.c). */
START_TEST(test_parameter_runs)
{
    static const char runs[] = "def @main(%a, %b: float32, %c, %d, %e: int32) {\n"
                               "  %0 = fn (%p, %q: float32, %r) -> float32 {\n"
                               "    add(%p, %q)\n"
                               "  };\n"
                               "  %0(%a, %b, %c)\n"
                               "}\n";
    char *printed = reprint("runs.relay", runs, sizeof runs - 1, NULL);
    ck_assert_str_eq(printed, runs);
    free(printed);
    static const char alike[] = "def @main(%a, %b) {\n"
                                "  %0 = fn (%p, %q) {\n"
                                "    add(%p, %q)\n"
                                "  };\n"
                                "  %1 = fn (%p, %q: float32) {\n"
                                "    multiply(%p, %q)\n"
                                "  };\n"
                                "  %2 = %0(%a, %b);\n"
                                "  %1(%2, %b)\n"
                                "}\n";
    printed = reprint("alike.relay", alike, sizeof alike - 1, NULL);
    /* the callee's text is printed first (note [walks on the nodes] in
       relay_print_number.c), and its parameters named first */
    ck_assert_str_eq(printed, "def @main(%a, %b) {\n"
                              "  %0 = fn (%p1, %q1) {\n"
                              "    add(%p1, %q1)\n"
                              "  };\n"
                              "  %1 = %0(%a, %b);\n"
                              "  %2 = fn (%p, %q: float32) {\n"
                              "    multiply(%p, %q)\n"
                              "  };\n"
                              "  %2(%1, %b)\n"
                              "}\n");
    free(printed);
}
END_TEST

/* A graph without annotations prints no comment unless asked for
 * types (has_comment in relay_print_impl.h asks no node then); one
 * annotated node makes graph_has_annotations true, and its comment
 * prints. */
START_TEST(test_comments_when_annotated)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL);
    graft_node *r = graph_add_call(g, "nn.relu", &x, 1, NULL, 0);
    graft_node *ab[] = {r, x};
    graft_node *sum = graph_add_call(g, "add", ab, 2, NULL, 0);
    graph_set_output(g, sum);
    graph_set_type(g, r, graph_type_other(g, "float32", 7));
    ck_assert(!graph_has_annotations(g));
    char *text = relay_print_string(g);
    ck_assert_str_eq(text, "def @main(%x) {\n  %0 = nn.relu(%x);\n  add(%0, %x)\n}\n");
    free(text);
    text = relay_print_string_with(g, RELAY_PRINT_TYPES);
    ck_assert_str_eq(text, "def @main(%x) {\n  %0 = nn.relu(%x) /* ty=float32 */;\n"
                           "  add(%0, %x)\n}\n");
    free(text);
    graph_set_annotation(g, sum, "/* note */");
    ck_assert(graph_has_annotations(g));
    text = relay_print_string(g);
    ck_assert_str_eq(text, "def @main(%x) {\n  %0 = nn.relu(%x);\n  add(%0, %x) /* note */\n}\n");
    free(text);
    graph_free(g);
}
END_TEST

/* note [constant texts] in relay_print_number.c: a constant used twice
 * prints its spelling at each use when no node prints a comment, and
 * its kept text, comment and all, when types are printed. */
START_TEST(test_constants_unkept)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", NULL);
    graft_node *c = graph_add_const(g, "1e-05f", 1e-05, "float32");
    graft_node *xc[] = {x, c};
    graft_node *a = graph_add_call(g, "add", xc, 2, NULL, 0);
    graft_node *ac[] = {a, c};
    graph_set_output(g, graph_add_call(g, "multiply", ac, 2, NULL, 0));
    graph_set_type(g, c, graph_type_other(g, "float32", 7));
    char *text = relay_print_string(g);
    ck_assert_str_eq(text, "def @main(%x) {\n  %0 = add(%x, 1e-05f);\n  multiply(%0, 1e-05f)\n}\n");
    free(text);
    text = relay_print_string_with(g, RELAY_PRINT_TYPES);
    ck_assert_str_eq(text, "def @main(%x) {\n  %0 = add(%x, 1e-05f /* ty=float32 */);\n"
                           "  multiply(%0, 1e-05f /* ty=float32 */)\n}\n");
    free(text);
    graph_free(g);
}
END_TEST

/* note [parameters in order] in src/relay/relay_load_scope.c: a binding
 * line's variable is the parameter after the last one used when it
 * spells it, up to where scan_name would end it; a use out of order, a
 * name that the guessed one (%a) starts ("%a::b", "%ab"), a nested
 * function's parameter of a def parameter's name and a use after that
 * function each find their own definition. */
START_TEST(test_params_in_order)
{
    static const char text[] = "def @main(%a, %ab, %c, %d, %a::b) {\n"
                               "  %0 = add(%a::b, %ab);\n"
                               "  %1 = add(%ab, %a);\n"
                               "  %2 = add(%ab, %c);\n"
                               "  %3 = fn (%d, %e) {\n"
                               "    %4 = add(%e, %e);\n"
                               "    %5 = add(%d, %4);\n"
                               "    %5\n"
                               "  };\n"
                               "  %6 = add(%c, %d);\n"
                               "  %7 = add(%d, %a);\n"
                               "  %8 = %3(%2, %7);\n"
                               "  (%0, %1, %6, %8)\n"
                               "}\n";
    graft_graph *g = load_string(text);
    graft_node *out = graph_output(g), *p[5];
    for (int i = 0; i < 5; i++)
        p[i] = graph_param(g, i);
    graft_node *n8 = node_arg(out, 3), *n2 = node_arg(n8, 0), *n7 = node_arg(n8, 1);
    graft_node *const calls[] = {node_arg(out, 0), node_arg(out, 1), n2, node_arg(out, 2), n7};
    graft_node *const want[][2] = {{p[4], p[1]}, {p[1], p[0]}, {p[1], p[2]}, {p[2], p[3]},
                                   {p[3], p[0]}};
    for (size_t i = 0; i < ARRAY_LEN(calls); i++) {
        ck_assert_ptr_eq(node_arg(calls[i], 0), want[i][0]);
        ck_assert_ptr_eq(node_arg(calls[i], 1), want[i][1]);
    }
    graft_node *fn = node_callee(n8), *n5 = node_body(fn);
    ck_assert_ptr_eq(node_arg(n5, 0), node_param(fn, 0));
    ck_assert_ptr_ne(node_arg(n5, 0), p[3]);
    ck_assert_ptr_eq(node_arg(node_arg(n5, 1), 0), node_param(fn, 1));
    graph_free(g);
}
END_TEST

/* note [parameters keyed late] in src/relay/relay_load_params.c: a def's
 * untyped parameters are keyed at their first lookup by name or the
 * first definition after them: a let of a parameter's name is still a
 * duplicate, a typed list's duplicate is still found (its types may
 * intern names), a def whose names another def used first keys them at
 * once, and names looked up after a nested function and a let find the
 * def's parameters. */
START_TEST(test_params_keyed_late)
{
    static const char *const bad[][2] = {
        {"def @main(%x, %y) {\n  let %x = add(%x, %y);\n  %x\n}\n",
         "b.relay:2:7: error: duplicate definition of '%x'\n"},
        {"def @main(%x: float32, %y, %x) {\n  add(%x, %y)\n}\n",
         "b.relay:1:28: error: duplicate definition of '%x'\n"},
        {"def @f(%x, %y) {\n  add(%x, %y)\n}\ndef @main(%y, %x, %y) {\n  @f(%x, %y)\n}\n",
         "b.relay:4:19: error: duplicate definition of '%y'\n"},
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        char *diags;
        ck_assert_ptr_null(reprint("b.relay", bad[i][0], strlen(bad[i][0]), &diags));
        ck_assert_msg(strncmp(diags, bad[i][1], strlen(bad[i][1])) == 0, "%s", diags);
        free(diags);
    }
    static const char text[] = "def @main(%x, %y) {\n"
                               "  %0 = add(%y, %x);\n"
                               "  %1 = fn (%x) {\n"
                               "    %2 = add(%x, %y);\n"
                               "    %2\n"
                               "  };\n"
                               "  %3 = %1(%0);\n"
                               "  let %z = add(%3, %x);\n"
                               "  %4 = add(%z, %y);\n"
                               "  %4\n"
                               "}\n";
    graft_graph *g = load_string(text);
    graft_node *x = graph_param(g, 0), *y = graph_param(g, 1);
    graft_node *let = graph_output(g); /* operands %z, its value and the body */
    graft_node *value = node_arg(let, 1), *n4 = node_arg(let, 2);
    ck_assert_ptr_eq(node_arg(n4, 0), node_arg(let, 0));
    ck_assert_ptr_eq(node_arg(n4, 1), y);
    ck_assert_ptr_eq(node_arg(value, 1), x);
    graft_node *n3 = node_arg(value, 0), *fn = node_callee(n3), *n0 = node_arg(n3, 0);
    ck_assert_ptr_eq(node_arg(n0, 0), y);
    ck_assert_ptr_eq(node_arg(n0, 1), x);
    graft_node *n2 = node_body(fn);
    ck_assert_ptr_eq(node_arg(n2, 0), node_param(fn, 0));
    ck_assert_ptr_eq(node_arg(n2, 1), y);
    graph_free(g);
}
END_TEST

/* note [literal seen] in src/relay/relay_load_line.c: a binding line's
 * literal spelled as the last one kept is made from it; one it starts
 * ("1f" of "1f32", "1.5f" of "1.5f16", "1" of "1.5"), a longer one (not
 * kept) and a line whose first literal replaces the one kept before its
 * second is made each get their own spelling, dtype and value. */
START_TEST(test_literal_seen)
{
    static const char text[] = "def @main(%x) {\n"
                               "  %0 = add(%x, 1e-05f);\n"
                               "  %1 = add(%0, 1e-05f);\n"
                               "  %2 = add(2f, 1e-05f);\n"
                               "  %3 = add(%1, %2);\n"
                               "  %4 = add(%3, 1f32);\n"
                               "  %5 = add(%4, 1f);\n"
                               "  %6 = add(%5, 1.5f);\n"
                               "  %7 = add(%6, 1.5f);\n"
                               "  %8 = add(%7, 1.5f16);\n"
                               "  %9 = add(%8, 1);\n"
                               "  %10 = add(%9, 1.5);\n"
                               "  %11 = add(%10, 1.000001f);\n"
                               "  add(%11, 1.000001f)\n"
                               "}\n";
    static const struct {
        const char *text, *dtype;
        double value;
    } want[] = {{"1.000001f", "float32", 1.000001}, {"1.000001f", "float32", 1.000001},
                {"1.5", "float32", 1.5},            {"1", "int32", 1},
                {"1.5f16", "float16", 1.5},         {"1.5f", "float32", 1.5},
                {"1.5f", "float32", 1.5},           {"1f", "float32", 1},
                {"1f32", "float32", 1}};
    graft_graph *g = load_string(text);
    graft_node *n = graph_output(g);
    for (size_t i = 0; i < ARRAY_LEN(want); i++, n = node_arg(n, 0)) {
        const graft_node *c = node_arg(n, 1);
        ck_assert_str_eq(node_const_text(c), want[i].text);
        ck_assert_str_eq(node_const_dtype(c), want[i].dtype);
        ck_assert(node_const_value(c) == want[i].value);
    }
    graft_node *n2 = node_arg(n, 1), *n1 = node_arg(n, 0), *n0 = node_arg(n1, 0);
    ck_assert_str_eq(node_const_text(node_arg(n2, 0)), "2f");
    const graft_node *eps[] = {node_arg(n2, 1), node_arg(n1, 1), node_arg(n0, 1)};
    for (size_t i = 0; i < ARRAY_LEN(eps); i++) {
        ck_assert_str_eq(node_const_text(eps[i]), "1e-05f");
        ck_assert_str_eq(node_const_dtype(eps[i]), "float32");
        ck_assert(node_const_value(eps[i]) == 1e-05);
    }
    ck_assert_ptr_eq(node_arg(n0, 0), graph_param(g, 0));
    graph_free(g);
}
END_TEST

/* note [parameter Symbols made late] in src/relay/relay_load_params.c:
 * the def's parameters' Symbols, made from their nodes when first
 * needed, give a duplicate's note the place load_params would have given
 * (a parameter on a later line of the list); a function opened before any
 * lookup by name makes them first, so closing it pops its own only (the
 * let after it still finds %b); a type error's place is its call's. */
START_TEST(test_param_symbols_made_late)
{
    static const char *const bad[][2] = {
        {"def @main(%a,\n    %b,\n    %c) {\n  %0 = add(%a, %b);\n  let %c = %0;\n  %c\n}\n",
         "b.relay:5:7: error: duplicate definition of '%c'\n"
         "    5 |   let %c = %0;\n"
         "      |       ^~\n"
         "b.relay:3:5: note: '%c' was first defined here\n"},
        {"def @main(%a, %b) {\n  %0 = fn (%p) { %p };\n  %1 = add(%a, %b);\n  let %b = %1;\n"
         "  %b\n}\n",
         "b.relay:4:7: error: duplicate definition of '%b'\n"
         "    4 |   let %b = %1;\n"
         "      |       ^~\n"
         "b.relay:1:15: note: '%b' was first defined here\n"},
        {"def @main(%x: Tensor[(2, 3), float32],\n          %y: Tensor[(4, 5), float32]) {\n"
         "  %0 = nn.relu(%x);\n  %1 = (%0, %y);\n  %2 = %1.2;\n  %2\n}\n",
         "b.relay:5:11: error: type error: tuple index 2 out of range (2 fields)\n"},
        {"def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(4, 5), float32]) {\n"
         "  %0 = nn.relu(%x);\n  multiply(%y, add(%0,\n    %y))\n}\n",
         "b.relay:3:16: error: type error: add: shapes"},
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        char *diags;
        ck_assert_ptr_null(reprint("b.relay", bad[i][0], strlen(bad[i][0]), &diags));
        ck_assert_msg(strncmp(diags, bad[i][1], strlen(bad[i][1])) == 0, "%s", diags);
        free(diags);
    }
}
END_TEST

/* note [tuple of names] in src/relay/relay_load_names.c: '(' NAMES
 * makes its fields from the scratch nodes, in order, temps, parameters
 * and numbers alike; one item is that operand, no tuple; an undefined
 * name in it is still reported at its place. */
START_TEST(test_tuple_of_names)
{
    static const char text[] = "def @main(%x, %y) {\n"
                               "  %0 = add(%x, %y);\n"
                               "  %1 = multiply(%0, %y);\n"
                               "  %2 = (%1);\n"
                               "  %3 = add(%2, %x);\n"
                               "  (%3, %x, %0, 2f, %1)\n"
                               "}\n";
    graft_graph *g = load_string(text);
    graft_node *x = graph_param(g, 0), *out = graph_output(g);
    ck_assert_int_eq(node_kind(out), NODE_TUPLE);
    ck_assert_int_eq(node_nargs(out), 5);
    graft_node *n3 = node_arg(out, 0), *n0 = node_arg(out, 2), *n1 = node_arg(out, 4);
    ck_assert_str_eq(node_op(n3), "add");
    ck_assert_ptr_eq(node_arg(n3, 0), n1); /* %2 = (%1) is %1 */
    ck_assert_ptr_eq(node_arg(n3, 1), x);
    ck_assert_ptr_eq(node_arg(out, 1), x);
    ck_assert_ptr_eq(node_arg(n1, 0), n0);
    ck_assert_int_eq(node_kind(node_arg(out, 3)), NODE_CONST);
    graph_free(g);
    static const char bad[] = "def @main(%x) {\n  %0 = negative(%x);\n  (%0, %zz)\n}\n";
    char *diags;
    ck_assert_ptr_null(reprint("b.relay", bad, strlen(bad), &diags));
    static const char want[] = "b.relay:3:8: error: '%zz' is not defined\n";
    ck_assert_msg(strncmp(diags, want, strlen(want)) == 0, "%s", diags);
    free(diags);
}
END_TEST

/* ---- the loader's ways counted (note [loading counted] in src/relay/relay_load.c) ---- */

/* text loaded within limits (NULL: the defaults), its counts in *counts;
 * the graph must load. */
static void load_counts(const char *text, const graft_limits *limits, RelayLoadCounts *counts)
{
    graft_diag *d = diag_new(stderr);
    Source *src = source_from_string("counted.relay", text, strlen(text));
    *counts = (RelayLoadCounts){0};
    graft_graph *g = relay_load_counted(src, limits, counts, d);
    ck_assert_msg(g != NULL, "did not load:\n%s", text);
    graph_free(g);
    source_free(src);
    diag_free(d);
}

static void assert_counts(const RelayLoadCounts *got, const RelayLoadCounts *want,
                          const char *what)
{
    ck_assert_msg(got->lines_by_hand == want->lines_by_hand &&
                      got->lines_by_tokens == want->lines_by_tokens &&
                      got->params_guessed == want->params_guessed &&
                      got->params_by_name == want->params_by_name &&
                      got->tokens_only == want->tokens_only &&
                      got->temps_hinted == want->temps_hinted,
                  "%s: by hand %zu, by tokens %zu, guessed %zu, by name %zu, tokens only %d, "
                  "temps hinted %zu; want %zu, %zu, %zu, %zu, %d, %zu",
                  what, got->lines_by_hand, got->lines_by_tokens, got->params_guessed,
                  got->params_by_name, got->tokens_only, got->temps_hinted,
                  want->lines_by_hand, want->lines_by_tokens, want->params_guessed,
                  want->params_by_name, want->tokens_only, want->temps_hinted);
}

/* copies batch norms side by side, as `graft-bench sidebyside` writes
 * them (the workload's model, bench/workload.sh), malloc'd. */
static char *side_by_side(int copies)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    fputs("def @main(", mem);
    for (int i = 0; i < copies; i++)
        fprintf(mem, "%s%%x%d, %%mean%d, %%var%d, %%gamma%d, %%beta%d", i ? ", " : "", i, i, i,
                i, i);
    fputs(") {\n", mem);
    for (int i = 0, t = 0; i < copies; i++, t += 6) {
        fprintf(mem, "  %%%d = subtract(%%x%d, %%mean%d);\n", t, i, i);
        fprintf(mem, "  %%%d = add(%%var%d, 1e-05f);\n", t + 1, i);
        fprintf(mem, "  %%%d = multiply(%%gamma%d, %%%d);\n", t + 2, i, t);
        fprintf(mem, "  %%%d = sqrt(%%%d);\n", t + 3, t + 1);
        fprintf(mem, "  %%%d = divide(%%%d, %%%d);\n", t + 4, t + 2, t + 3);
        fprintf(mem, "  %%%d = add(%%%d, %%beta%d);\n", t + 5, t + 4, i);
    }
    fputs("  (", mem);
    for (int i = 0; i < copies; i++)
        fprintf(mem, "%s%%%d", i ? ", " : "", 6 * i + 5);
    fputs(")\n}\n", mem);
    fclose(mem);
    return text;
}

/* The workload's model takes the shortcuts everywhere: every binding
 * line but the body's first (after its '{', where the reader is not
 * called) read by hand, every parameter's use guessed; it fails when
 * the reader or the guess gives up anywhere, or is not called. */
START_TEST(test_workload_lines_by_hand)
{
    enum { COPIES = 100 };
    char *text = side_by_side(COPIES);
    RelayLoadCounts counts;
    load_counts(text, NULL, &counts);
    RelayLoadCounts want = {6 * COPIES - 1, 1, 5 * COPIES, 0, false, 6 * COPIES};
    assert_counts(&counts, &want, "side by side");
    free(text);
}
END_TEST

/* Each kind of binding line the reader leaves to the tokens (note
 * [binding lines] in src/relay/relay_load_line.c), between the body's
 * first line (the tokens') and a plain line after it (the reader's
 * again), with the lines each way read.  The first is a plain line; a
 * let is no binding line ("%N = ..."), counted neither way. */
typedef struct LeftLine {
    const char *kind;
    const char *lines; /* after "%0 = add(%x, %y);", before "%9 = nn.relu(%0);" */
    const char *after; /* after the def: the def or metadata a line names */
    size_t by_hand, by_tokens;
} LeftLine;

static const char FN_F[] = "def @f(%p) {\n  negative(%p)\n}\n";
static const char META[] = "#[metadata]\n{\n  \"root\": 1, \n  \"nodes\": [\n    {\n"
                           "      \"type_key\": \"relay.Constant\", \n      \"attrs\": {}\n"
                           "    }\n  ]\n}\n";

static const LeftLine left_lines[] = {
    {"a plain call", "%1 = multiply(%0, 2f);", "", 2, 1},
    {"a tuple", "%1 = (%0, %y);", "", 1, 2},
    {"a function", "%1 = fn (%p) {\n    negative(%p)\n  };", "", 1, 2},
    {"a call of a function value", "%1 = fn (%p) {\n    negative(%p)\n  };\n  %2 = %1(%0);",
     "", 1, 3},
    {"a call of a global", "%1 = @f(%0);", FN_F, 1, 2},
    {"an element of a variable", "%1 = %y.0;", "", 1, 2},
    {"an element of a call", "%1 = split(%0, indices_or_sections=2).0;", "", 1, 2},
    {"a nested call", "%1 = add(%0, negative(%y));", "", 1, 2},
    {"a tuple operand", "%1 = concatenate((%0, %y));", "", 1, 2},
    {"a meta constant", "%1 = add(%0, meta[relay.Constant][0]);", META, 1, 2},
    {"a map attribute", "%1 = f(%0, m={\"a\"=1});", "", 1, 2},
    {"a global attribute", "%1 = f(%0, g=@f);", FN_F, 1, 2},
    {"a list nested nine deep", "%1 = f(%0, a=[[[[[[[[[1]]]]]]]]]);", "", 1, 2},
    {"two comments", "%1 = add(%0, %y) /* ty=float32 */ /* more */;", "", 1, 2},
    {"a comment after an attribute", "%1 = sum(%0, axis=[1] /* axes */);", "", 1, 2},
    {"a comment with a newline", "%1 = add(%0, %y) /* a\n  note */;", "", 1, 2},
    {"a line break", "%1 = add(%0,\n    %y);", "", 1, 2},
    {"a temp of ten digits", "%1234567890 = add(%0, %y);", "", 1, 2},
    {"a blank before the '('", "%1 = add (%0, %y);", "", 1, 2},
    {"a let", "let %v = add(%0, %y);", "", 1, 1},
};

START_TEST(test_lines_left_to_tokens)
{
    const LeftLine *c = &left_lines[_i];
    char text[1024];
    snprintf(text, sizeof text,
             "def @main(%%x, %%y) {\n  %%0 = add(%%x, %%y);\n  %s\n  %%9 = nn.relu(%%0);\n"
             "  (%%0, %%9)\n}\n%s",
             c->lines, c->after);
    RelayLoadCounts counts;
    load_counts(text, NULL, &counts);
    ck_assert_msg(counts.lines_by_hand == c->by_hand && counts.lines_by_tokens == c->by_tokens,
                  "%s: %zu by hand, %zu by tokens; want %zu, %zu", c->kind, counts.lines_by_hand,
                  counts.lines_by_tokens, c->by_hand, c->by_tokens);
    ck_assert(!counts.tokens_only);
}
END_TEST

/* Every model of tests/corpus/ loads with these counts.  The lines the
 * tokens read are each body's first and the tuples ("%5 = (%4, %14)",
 * the inputs of concatenate: densenet121 62, squeezenet1_0 8, vit_b_16
 * 1); every other line is read by hand.  The uses of parameters found
 * by name are those out of the def's order, or again: convnext_tiny's
 * first convolution's weight and its 18 layer scales (listed first, in
 * reverse), encoder's input (its second use, a residual), vit_b_16's
 * first convolution's weight and class token (listed in the other
 * order), and in a simplified model most: its body folds the batch
 * norms' parameters, listed after the convolutions' weights, first.  The
 * temps' hint is each model's lines, by hand and by tokens: TVM numbers
 * its one def's temps from 0, and its result is the last. */
static const struct {
    const char *name;
    RelayLoadCounts want;
} corpus_counts[] = {
    {"convnext_tiny", {584, 1, 164, 19, false, 585}},
    {"convnext_tiny.simplified", {745, 1, 164, 19, false, 746}},
    {"densenet121", {552, 63, 607, 0, false, 615}},
    {"densenet121.simplified", {1641, 63, 63, 544, false, 1704}},
    {"efficientnet_b0", {387, 1, 312, 0, false, 388}},
    {"efficientnet_b0.simplified", {826, 1, 82, 230, false, 827}},
    {"encoder", {302, 1, 49, 1, false, 303}},
    {"encoder.simplified", {334, 1, 49, 1, false, 335}},
    {"mobilenet_v2", {223, 1, 263, 0, false, 224}},
    {"mobilenet_v2.simplified", {689, 1, 19, 244, false, 690}},
    {"resnet18", {89, 1, 103, 0, false, 90}},
    {"resnet18.simplified", {269, 1, 2, 101, false, 270}},
    {"resnet50", {228, 1, 268, 0, false, 229}},
    {"resnet50.simplified", {705, 1, 2, 266, false, 706}},
    {"squeezenet1_0", {92, 9, 53, 0, false, 101}},
    {"squeezenet1_0.simplified", {90, 9, 53, 0, false, 99}},
    {"vgg11", {42, 1, 23, 0, false, 43}},
    {"vgg11.simplified", {38, 1, 23, 0, false, 39}},
    {"vit_b_16", {923, 2, 151, 2, false, 925}},
    {"vit_b_16.simplified", {1024, 2, 151, 2, false, 1026}},
};

START_TEST(test_corpus_lines_counted)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/corpus/%s.relay", srcdir(), corpus_counts[_i].name);
    size_t len;
    char *text = read_file(path, &len);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    RelayLoadCounts counts;
    load_counts(text, NULL, &counts);
    assert_counts(&counts, &corpus_counts[_i].want, corpus_counts[_i].name);
    free(text);
}
END_TEST

/* note [parameters in order] in src/relay/relay_load_scope.c: the uses
 * of a def's parameters found by the guess and by name.  A use out of
 * order is found by name and moves the guess past it; so is a second
 * use, which leaves the guess where it was; a use the guess missed as
 * its line was read, after a use found by name, is guessed as it is
 * made; a nested function's scope, closed, leaves the guess working, a
 * let stops it (its Symbol is above the parameters); a line left to the
 * tokens after its first operand was guessed gives the guess back, and
 * the tokens guess it again. */
static const struct {
    const char *what, *text;
    size_t guessed, by_name;
} guesses[] = {
    {"in order", "def @main(%a, %b, %c) {\n  %0 = add(%a, %b);\n  %1 = add(%0, %c);\n  %1\n}\n",
     3, 0},
    {"out of order",
     "def @main(%a, %b, %c) {\n  %0 = negative(%a);\n  %1 = add(%0, %c);\n"
     "  %2 = add(%1, %b);\n  %2\n}\n",
     1, 2},
    {"used twice", "def @main(%a, %b) {\n  %0 = add(%a, %b);\n  %1 = add(%0, %a);\n  %1\n}\n", 2,
     1},
    {"used twice, then the next",
     "def @main(%a, %b, %c) {\n  %0 = add(%a, %b);\n  %1 = add(%0, %a);\n"
     "  %2 = add(%1, %c);\n  %2\n}\n",
     3, 1},
    {"a miss, then the next on its line",
     "def @main(%a, %b, %c, %d) {\n  %0 = negative(%a);\n  %1 = add(%c, %d);\n"
     "  %2 = add(%1, %b);\n  %2\n}\n",
     2, 2},
    {"after a function",
     "def @main(%a, %b) {\n  %0 = fn (%p) {\n    negative(%p)\n  };\n  %1 = %0(%a);\n"
     "  %2 = add(%1, %b);\n  %2\n}\n",
     2, 0},
    {"after a let",
     "def @main(%a, %b) {\n  %0 = negative(%a);\n  let %v = add(%0, %a);\n"
     "  %1 = add(%v, %b);\n  %1\n}\n",
     1, 2},
    {"a line left to the tokens",
     "def @main(%a, %b, %c) {\n  %0 = negative(%a);\n  %1 = add(%b, negative(%c));\n"
     "  %2 = add(%0, %1);\n  %2\n}\n",
     3, 0},
};

START_TEST(test_param_guesses_counted)
{
    RelayLoadCounts counts;
    load_counts(guesses[_i].text, NULL, &counts);
    ck_assert_msg(counts.params_guessed == guesses[_i].guessed &&
                      counts.params_by_name == guesses[_i].by_name,
                  "%s: %zu guessed, %zu by name; want %zu, %zu", guesses[_i].what,
                  counts.params_guessed, counts.params_by_name, guesses[_i].guessed,
                  guesses[_i].by_name);
}
END_TEST

/* The first attempt not made (a model-depth limit below its margin) or
 * given up (a nesting deeper than its half of the limit): the tokens
 * alone read the model, no line by hand, no guess (the tokens' def has
 * no PARAMS to guess from). */
START_TEST(test_tokens_only_counted)
{
    char *text = side_by_side(3);
    graft_limits shallow = limit_defaults;
    shallow.model_depth = 100;
    RelayLoadCounts counts, want = {0, 18, 0, 0, true, 18};
    load_counts(text, &shallow, &counts);
    assert_counts(&counts, &want, "model-depth 100");
    free(text);
    enum { DEPTH = 2500 }; /* past the first attempt's 5,000 entries, within 10,000 */
    StrBuf deep = {0};
    strbuf_puts(&deep, "def @main(%x) {\n  %0 = negative(%x);\n  ");
    for (int i = 0; i < DEPTH; i++)
        strbuf_puts(&deep, "nn.relu(");
    strbuf_puts(&deep, "%0");
    for (int i = 0; i < DEPTH; i++)
        strbuf_putc(&deep, ')');
    strbuf_puts(&deep, "\n}\n");
    want = (RelayLoadCounts){0, 1, 0, 0, true, 1};
    load_counts(deep.data, NULL, &counts);
    assert_counts(&counts, &want, "nested 2,500 deep");
    strbuf_free(&deep);
}
END_TEST

/* tests/relay/binding_lines.relay holds a line of each form the reader
 * takes between lines of forms it leaves: 17 read by hand, and 5 by the
 * tokens (the body's first, the tuple %8, the function %12 and its
 * body's first, the call %13 of that function); its three parameters'
 * uses guessed. */
START_TEST(test_binding_lines_counted)
{
    size_t len;
    char *text = test_file("binding_lines.relay", &len);
    RelayLoadCounts counts, want = {17, 5, 3, 0, false, 1}; /* the last "%N": %0 */
    load_counts(text, NULL, &counts);
    assert_counts(&counts, &want, "binding_lines.relay");
    free(text);
}
END_TEST

/* The first attempt's margin (note [long tokens] in
 * src/relay/relay_load.c): a model-depth limit of 128, twice the 64
 * entries its parser stack starts with, still lets it read the model (the
 * lines by hand, the guesses); 127 leaves the model to the tokens alone. */
START_TEST(test_first_attempt_at_its_margin)
{
    char *text = side_by_side(3);
    graft_limits limits = limit_defaults;
    RelayLoadCounts counts, want = {17, 1, 15, 0, false, 18};
    limits.model_depth = 128;
    load_counts(text, &limits, &counts);
    assert_counts(&counts, &want, "model-depth 128");
    limits.model_depth = 127;
    want = (RelayLoadCounts){0, 18, 0, 0, true, 18};
    load_counts(text, &limits, &counts);
    assert_counts(&counts, &want, "model-depth 127");
    free(text);
}
END_TEST

/* Two nodes of a line made once a node of the next was placed (the 2f
 * there, note [line cursor]): found in the line table, the second, at
 * the line's first byte, on the line the first was found on (line_index
 * in src/relay/relay_load_expr.c), at column 1, not on the next line. */
START_TEST(test_position_at_line_start)
{
    graft_graph *g = load_string("def @main(%x) {\nadd(multiply(%x,\n2f), %x)\n}\n");
    graft_node *add = graph_output(g), *mul = node_arg(add, 0), *two = node_arg(mul, 1);
    const graft_node *nodes[] = {two, mul, add};
    const int where[][2] = {{3, 1}, {2, 5}, {2, 1}};
    for (size_t i = 0; i < ARRAY_LEN(nodes); i++) {
        ck_assert_int_eq(node_line(g, nodes[i]), where[i][0]);
        ck_assert_int_eq(node_col(g, nodes[i]), where[i][1]);
    }
    graph_free(g);
}
END_TEST

/* dim_div in type_rel.c: a known dim divided by a block size, a stride
 * or reshape's other known dim; an unknown one stays unknown. */
static const TypeCase unknown_dim_cases[] = {
    {"%x: Tensor[(1, ?, 4, 4), float32]", "nn.depth_to_space(%x, block_size=2)",
     "Tensor[(1, ?, 8, 8), float32]"},
    {"%x: Tensor[(1, 4, ?, 8), float32]", "nn.space_to_depth(%x, block_size=2)",
     "Tensor[(1, 16, ?, 4), float32]"},
    {"%x: Tensor[(1, 64, ?, 26), float32]", "vision.yolo_reorg(%x, stride=2)",
     "Tensor[(1, 256, ?, 13), float32]"},
    {"%x: Tensor[(2, ?), float32]", "reshape(%x, newshape=[0, -4, 3, -1])",
     "Tensor[(2, 3, ?), float32]"},
    {"%x: Tensor[(2, ?), float32]", "reshape(%x, newshape=[0, -4, -1, 4])",
     "Tensor[(2, ?, 4), float32]"},
};

START_TEST(test_unknown_dims_divided)
{
    const TypeCase *tc = &unknown_dim_cases[_i];
    char *got = output_type(tc);
    ck_assert_msg(strcmp(got, tc->type) == 0, "%s: got %s, want %s", tc->body, got, tc->type);
    free(got);
}
END_TEST

/* note [temp texts] in relay_names.h: counted on from a slot's text, a
 * temp prints as its number, up to seven digits kept as text and longer
 * ones as a number. */
enum { TEMP_ROOM = 16 }; /* a temp's 11 bytes, the slot's 8 past its "%", a NUL */

START_TEST(test_temp_slots)
{
    static const struct {
        const char *from;
        const char *next[3]; /* the texts of the next three temps */
    } runs[] = {
        {"0", {"%1", "%2", "%3"}},
        {"8", {"%9", "%10", "%11"}},
        {"98", {"%99", "%100", "%101"}},
        {"1099", {"%1100", "%1101", "%1102"}},
        {"9999998", {"%9999999", "%10000000", "%10000001"}},
    };
    for (size_t i = 0; i < ARRAY_LEN(runs); i++) {
        TempSlot s = {{0}};
        size_t len = strlen(runs[i].from);
        memcpy(s.b, runs[i].from, len);
        s.b[7] = (char)(len + 1);
        ck_assert_uint_eq(temp_slot_number(&s), strtoul(runs[i].from, NULL, 10));
        for (int k = 0; k < 3; k++) {
            char text[TEMP_ROOM] = {0};
            temp_slot_count_on(&s);
            *write_temp_slot(text, &s) = '\0';
            ck_assert_str_eq(text, runs[i].next[k]);
            ck_assert_uint_eq(temp_slot_number(&s), strtoul(text + 1, NULL, 10));
        }
    }
    TempSlot last = {{0}};
    uint32_t most = UINT32_MAX - 1;
    memcpy(last.b, &most, sizeof most);
    last.b[7] = LONG_TEMP;
    temp_slot_count_on(&last);
    char text[TEMP_ROOM] = {0};
    *write_temp_slot(text, &last) = '\0';
    ck_assert_str_eq(text, "%4294967295");
}
END_TEST

/* note [distinct names] in relay_names.c: with more than half the ids
 * variables', the names' check takes a table of its own; names that
 * take a "v" and names made unique print as before. */
START_TEST(test_names_mostly_variables)
{
    static const char *const cases[][2] = {
        {"def @main(%a, %b, %c, %d, %e) {\n  add(%a, %e)\n}\n",
         "def @main(%a, %b, %c, %d, %e) {\n  add(%a, %e)\n}\n"},
        {"def @main(%_a, %b, %c, %d, %e) {\n  add(%_a, %e)\n}\n",
         "def @main(%v_a, %b, %c, %d, %e) {\n  add(%v_a, %e)\n}\n"},
        {"def @main(%a, %b, %c, %d, %e) {\n  %0 = fn (%a) {\n    %a\n  };\n  %0(%e)\n}\n",
         "def @main(%a, %b, %c, %d, %e) {\n"
         "  %0 = fn (%a1) {\n    %a1\n  };\n  %0(%e)\n}\n"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        char *printed = reprint("m.relay", cases[i][0], strlen(cases[i][0]), NULL);
        ck_assert_ptr_nonnull(printed);
        ck_assert_str_eq(printed, cases[i][1]);
        free(printed);
    }
}
END_TEST

/* The temps' cells the text's last "%N" hints at (note [sized from the
 * text] in src/relay/relay_load.c), counted: its number plus one, found
 * in the text's last 4,096 bytes (TEMPS_TAIL), at most the nodes the
 * text's length estimates; 0 when no "%N" is there.  A short text is read
 * to its first byte; a "%N" starting 4,097 bytes before the end is not
 * read, one at 4,096 is.  The hint only sizes a reserve the cells grow
 * past, so the graph is the same either way: only the count tells. */
START_TEST(test_temps_hint_counted)
{
    RelayLoadCounts counts;
    char *text = side_by_side(3);
    load_counts(text, NULL, &counts);
    ck_assert_uint_eq(counts.temps_hinted, 18); /* %17, last in the tuple */
    free(text);
    text = side_by_side(100);
    load_counts(text, NULL, &counts);
    ck_assert_uint_eq(counts.temps_hinted, 600);
    free(text);
    load_counts("def @main(%x) {\n  negative(%x)\n}\n", NULL, &counts);
    ck_assert_uint_eq(counts.temps_hinted, 0);
    /* 49 bytes: at most 49 / 16 + 16 = 19 cells (TEXT_BYTES_PER_NODE) */
    const char *far = "def @main(%x) {\n  %99999 = negative(%x);\n  %99999\n}\n";
    load_counts(far, NULL, &counts);
    ck_assert_uint_eq(counts.temps_hinted, strlen(far) / 16 + 16);
    enum { TAIL = 4096 };
    const char *head = "def @main(%x) {\n  %7 = negative(%x);\n  ";
    const char *end = "\n}\n";
    for (size_t from_end = TAIL; from_end <= TAIL + 1; from_end++) {
        /* the result's "%7" from_end bytes before the text's end */
        size_t pad = from_end - 2 - strlen(end);
        size_t len = strlen(head) + 2 + pad + strlen(end);
        char *padded = malloc(len + 1);
        snprintf(padded, len + 1, "%s%%7%*s%s", head, (int)pad, "", end);
        ck_assert_uint_eq(strlen(padded), len);
        load_counts(padded, NULL, &counts);
        ck_assert_uint_eq(counts.temps_hinted, from_end == TAIL ? 8 : 0);
        free(padded);
    }
}
END_TEST

/* note [int lists] in src/ir/graph_attr.c, as Relay's relations read it
 * (rel_ints): conv2d's strides on x (1, 3, 8, 8) and w (4, 3, 3, 3) as
 * one int for both dims, a list of two, absent or None (TVM's 1), and
 * the errors of a list of three and of a float item, in rel_ints' words. */
#define CONV_PARAMS "%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]"
static const TypeCase int_list_cases[] = {
    {CONV_PARAMS, "nn.conv2d(%x, %w, strides=2)", "Tensor[(1, 4, 3, 3), float32]"},
    {CONV_PARAMS, "nn.conv2d(%x, %w, strides=[2, 1])", "Tensor[(1, 4, 3, 6), float32]"},
    {CONV_PARAMS, "nn.conv2d(%x, %w)", "Tensor[(1, 4, 6, 6), float32]"},
    {CONV_PARAMS, "nn.conv2d(%x, %w, strides=None)", "Tensor[(1, 4, 6, 6), float32]"},
    {CONV_PARAMS, "nn.conv2d(%x, %w, strides=[1, 1, 1])",
     "error: nn.conv2d: attribute 'strides' must be a list of at most 2 integers"},
    {CONV_PARAMS, "nn.conv2d(%x, %w, strides=[1, 1.5f])",
     "error: nn.conv2d: attribute 'strides' must be a list of integers"},
};
#undef CONV_PARAMS

START_TEST(test_int_list_attributes)
{
    const TypeCase *tc = &int_list_cases[_i];
    if (strncmp(tc->type, "error: ", 7) != 0) {
        char *got = output_type(tc);
        ck_assert_msg(strcmp(got, tc->type) == 0, "%s: got %s", tc->body, got);
        free(got);
        return;
    }
    char text[1024], want[1024];
    snprintf(text, sizeof text, "def @main(%s) {\n  %s\n}\n", tc->params, tc->body);
    snprintf(want, sizeof want, "test.relay:2:3: error: type error: %s\n", tc->type + 7);
    char *diags;
    ck_assert_ptr_null(reprint("test.relay", text, strlen(text), &diags));
    ck_assert_msg(strncmp(diags, want, strlen(want)) == 0, "%s: got %s", tc->body, diags);
    free(diags);
}
END_TEST

static Suite *relay_suite(void)
{
    Suite *s = suite_create("relay");
    TCase *tc = tcase_create("syntax");
    tcase_add_loop_test(tc, test_syntax, 0, (int)(sizeof syntax_cases / sizeof syntax_cases[0]));
    tcase_add_test(tc, test_dotted_name);
    tcase_add_test(tc, test_module_parts);
    tcase_add_test(tc, test_annotation_spans);
    tcase_add_test(tc, test_annotation_span_then_comment);
    tcase_add_test(tc, test_scan_in_place);
    tcase_add_test(tc, test_temps_past_hint);
    tcase_add_test(tc, test_bare_and_main_attrs);
    suite_add_tcase(s, tc);
    tc = tcase_create("graph");
    tcase_add_test(tc, test_loaded_graph);
    tcase_add_test(tc, test_scopes);
    tcase_add_test(tc, test_temp_numbers);
    tcase_add_test(tc, test_node_names);
    tcase_add_test(tc, test_printed_names);
    tcase_add_test(tc, test_viz_write);
    tcase_add_test(tc, test_viz_ids_past_graph);
    suite_add_tcase(s, tc);
    tc = tcase_create("roundtrip");
    tcase_add_loop_test(tc, test_roundtrip, 0,
                        (int)(sizeof roundtrip_files / sizeof roundtrip_files[0]));
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_corpus);
    suite_add_tcase(s, tc);
    tc = tcase_create("types");
    tcase_add_test(tc, test_type_size_bound);
    tcase_add_test(tc, test_relations_sharing_slots);
    tcase_add_test(tc, test_calls_of_untyped_operands);
    tcase_add_loop_test(tc, test_type_relations, 0,
                        (int)(sizeof type_cases / sizeof type_cases[0]));
    tcase_add_loop_test(tc, test_type_contradictions, 0,
                        (int)(sizeof type_errors / sizeof type_errors[0]));
    tcase_add_loop_test(tc, test_unknown_dims_divided, 0,
                        (int)(sizeof unknown_dim_cases / sizeof unknown_dim_cases[0]));
    suite_add_tcase(s, tc);
    tc = tcase_create("errors");
    tcase_add_loop_test(tc, test_bad_input, 0, (int)(sizeof bad_files / sizeof bad_files[0]));
    tcase_add_test(tc, test_control_bytes);
    tcase_add_test(tc, test_control_bytes_at_each_place);
    tcase_add_test(tc, test_control_blocks_both_forms);
    suite_add_tcase(s, tc);
    tc = tcase_create("limits");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_million_bindings);
    tcase_add_test(tc, test_function_types_remembered);
    tcase_add_loop_test(tc, test_deep_nesting, 0, 3);
    tcase_add_test(tc, test_nesting_within_limit);
    tcase_add_test(tc, test_deepest_functions);
    suite_add_tcase(s, tc);
    tc = tcase_create("names");
    tcase_add_test(tc, test_api_names_lengths);
    tcase_add_test(tc, test_pending_texts);
    tcase_add_test(tc, test_attribute_texts);
    tcase_add_test(tc, test_params_streamed);
    tcase_add_test(tc, test_getitem_indices);
    tcase_add_test(tc, test_dead_nodes_skipped);
    tcase_add_test(tc, test_free_declared_once);
    tcase_add_test(tc, test_annotation_by_id);
    tcase_add_test(tc, test_positions_on_cursor);
    tcase_add_test(tc, test_ops_seen);
    tcase_add_test(tc, test_literal_types);
    tcase_add_test(tc, test_names_items_found_once);
    tcase_add_test(tc, test_temp_digits);
    tcase_add_test(tc, test_positions_past_reserve);
    tcase_add_test(tc, test_names_temps_in_cells);
    tcase_add_test(tc, test_callee_chain_frames);
    tcase_add_test(tc, test_parameter_runs);
    tcase_add_test(tc, test_comments_when_annotated);
    tcase_add_test(tc, test_constants_unkept);
    tcase_add_test(tc, test_long_callee_chain);
    tcase_add_test(tc, test_control_blocks_in_steps);
    tcase_add_test(tc, test_params_in_order);
    tcase_add_test(tc, test_params_keyed_late);
    tcase_add_test(tc, test_literal_seen);
    tcase_add_test(tc, test_param_symbols_made_late);
    tcase_add_test(tc, test_tuple_of_names);
    suite_add_tcase(s, tc);
    tc = tcase_create("declarations");
    tcase_add_test(tc, test_adt_declarations_read);
    suite_add_tcase(s, tc);
    tc = tcase_create("counts");
    tcase_add_test(tc, test_workload_lines_by_hand);
    tcase_add_loop_test(tc, test_lines_left_to_tokens, 0, (int)ARRAY_LEN(left_lines));
    tcase_add_loop_test(tc, test_corpus_lines_counted, 0, (int)ARRAY_LEN(corpus_counts));
    tcase_add_loop_test(tc, test_param_guesses_counted, 0, (int)ARRAY_LEN(guesses));
    tcase_add_test(tc, test_tokens_only_counted);
    tcase_add_test(tc, test_binding_lines_counted);
    tcase_add_test(tc, test_first_attempt_at_its_margin);
    tcase_add_test(tc, test_position_at_line_start);
    tcase_add_test(tc, test_temps_hint_counted);
    suite_add_tcase(s, tc);
    tc = tcase_create("printer slots");
    tcase_add_test(tc, test_temp_slots);
    tcase_add_test(tc, test_names_mostly_variables);
    suite_add_tcase(s, tc);
    tc = tcase_create("int lists");
    tcase_add_loop_test(tc, test_int_list_attributes, 0, (int)ARRAY_LEN(int_list_cases));
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(relay_suite());
}
