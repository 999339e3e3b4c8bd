/* check_rules_parse.c - the scanner and parser (AST shapes, ranges,
 * precedence), the canonical printer (round trip), and the op registry. */
#include "check_rules.h"

#include <stdlib.h>
#include <string.h>

#include "check_files.h"
#include "registry.h"
#include "type_infer.h"

/* ---- parse: AST shapes ---- */

START_TEST(test_golden_rule_shape)
{
    RuleFile *rf;
    const AstRule *r = parse_rule("bn := gamma*(x-mean)/sqrt(var+eps:const)+beta => partition", &rf);
    ck_assert_str_eq(r->name, "bn");
    ck_assert_int_eq(r->kind, RULE_PARTITION);
    const AstNode *add = r->pattern_src;
    ck_assert_int_eq(add->kind, AST_CALL);
    ck_assert_str_eq(add->u.call.name, "add");
    ck_assert_int_eq(add->u.call.syntax, CALL_INFIX);
    const AstNode *div = add->u.call.args.items[0];
    ck_assert_str_eq(div->u.call.name, "divide");
    const AstNode *rep = div->u.call.args.items[0];
    ck_assert_int_eq(rep->kind, AST_REPEAT); /* resolved by the checker */
    ck_assert_str_eq(rep->u.call.name, "gamma");
    const AstNode *sqrt = div->u.call.args.items[1];
    ck_assert_str_eq(sqrt->u.call.name, "sqrt");
    const AstNode *eps = sqrt->u.call.args.items[0]->u.call.args.items[1];
    ck_assert_int_eq(eps->kind, AST_CONSTRAIN);
    ck_assert_int_eq(eps->u.constrain.kind, CONSTRAINT_CONST);
    ck_assert_str_eq(eps->u.constrain.operand->u.var.name, "eps");
    ck_assert_int_eq(r->action->kind, AST_PARTITION);
    rulefile_free(rf);
}
END_TEST

/* One pattern per construct and the kind of its root. */
static const struct {
    const char *pattern; /* written after "r := " */
    AstKind kind;        /* root kind */
} shapes[] = {
    {"_", AST_WILDCARD},
    {"x", AST_VAR},
    {"-1.5e-3", AST_NUMBER},
    {"nn.conv2d(x, w, groups=1, strides=s)", AST_CALL},
    {"nn.relu?(x)", AST_OPTIONAL},
    {"broadcast_to*(x)", AST_REPEAT},
    {"<elementwise>(x, ...)", AST_CLASS},
    {"fn[Composite=\"a\"](x, y)", AST_FNCALL},
    {"(a, b, ...)", AST_TUPLE},
    {"()", AST_TUPLE},
    {"(a,)", AST_TUPLE},
    {"p[1]", AST_GETITEM},
    {"a | b", AST_ALT},
    {"x:var(\"weight\")", AST_CONSTRAIN},
    {"x:Tensor[(1, _), float32]", AST_CONSTRAIN},
    {"c@nn.conv2d(x, w)", AST_BIND},
    {"dominates(nn.conv2d(x, w), <elementwise>(_), nn.relu(_))", AST_DOMINATES},
    {"concatenate(...)", AST_CALL},
};

START_TEST(test_construct_shapes)
{
    char text[200];
    snprintf(text, sizeof text, "r := %s => partition", shapes[_i].pattern);
    RuleFile *rf;
    const AstRule *r = parse_rule(text, &rf);
    ck_assert_msg(r->pattern_src->kind == shapes[_i].kind, "%s: kind %s",
                  shapes[_i].pattern, ast_kind_name(r->pattern_src->kind));
    rulefile_free(rf);
}
END_TEST

START_TEST(test_fields)
{
    RuleFile *rf;
    const AstRule *r = parse_rule(
        "r [priority=-2, once] := concatenate((a, b, ...), axis=1)"
        " where users(a) == 1 => nn.conv2d(a, b, **c, groups=2)", &rf);
    ck_assert_int_eq(r->priority, -2);
    ck_assert(r->has_priority && r->once);
    const AstNode *cat = r->pattern_src;
    ck_assert_int_eq(cat->u.call.args.count, 1);
    ck_assert_int_eq(cat->u.call.attrs.count, 1);
    ck_assert(!cat->u.call.ellipsis);
    const AstNode *tup = cat->u.call.args.items[0];
    ck_assert(tup->u.list.ellipsis);
    ck_assert_int_eq(tup->u.list.items.count, 2);
    const AstNode *axis = cat->u.call.attrs.items[0];
    ck_assert_str_eq(axis->u.attr.name, "axis");
    ck_assert_int_eq(axis->u.attr.value->u.num.ival, 1);
    ck_assert(axis->u.attr.value->u.num.is_int);
    ck_assert_int_eq(r->guard->kind, AST_BINARY);
    ck_assert_int_eq(r->guard->u.op.oper, OPER_EQ);
    ck_assert_str_eq(r->guard->u.op.left->u.query.name, "users");
    ck_assert_str_eq(r->action->u.call.copy_from->u.var.name, "c");
    rulefile_free(rf);
}
END_TEST

/* Precedence: the canonical text fully parenthesises nothing it need not,
 * so compare structure through a parenthesised rendering of the tree. */
static void render(StrBuf *sb, const AstNode *n)
{
    if (n->kind == AST_CALL && n->u.call.syntax != CALL_PREFIX) {
        strbuf_printf(sb, "%s(", n->u.call.name);
        for (int i = 0; i < n->u.call.args.count; i++) {
            if (i)
                strbuf_puts(sb, ",");
            render(sb, n->u.call.args.items[i]);
        }
        strbuf_puts(sb, ")");
    } else if (n->kind == AST_ALT) {
        strbuf_puts(sb, "alt(");
        render(sb, n->u.alt.left);
        strbuf_puts(sb, ",");
        render(sb, n->u.alt.right);
        strbuf_puts(sb, ")");
    } else if (n->kind == AST_BIND) {
        strbuf_printf(sb, "bind_%s(", n->u.bind.name);
        render(sb, n->u.bind.operand);
        strbuf_puts(sb, ")");
    } else if (n->kind == AST_CONSTRAIN) {
        strbuf_puts(sb, "is(");
        render(sb, n->u.constrain.operand);
        strbuf_puts(sb, ")");
    } else {
        ast_print_node(sb, n);
    }
}

static const struct {
    const char *pattern; /* as written */
    const char *tree;    /* render() of it */
} precedence[] = {
    {"a + b * c", "add(a,multiply(b,c))"},
    {"a - b - c", "subtract(subtract(a,b),c)"},
    {"a / b / c", "divide(divide(a,b),c)"},
    {"-a * b", "multiply(negative(a),b)"},
    {"a | b + c | d", "alt(alt(a,add(b,c)),d)"},
    {"c@x:const", "bind_c(is(x))"},
    {"c@x + y", "add(bind_c(x),y)"},
    {"(a + b) * c", "multiply(add(a,b),c)"},
    {"- -x", "negative(negative(x))"},
    {"x - -1", "subtract(x,-1)"},
    {"gamma *(x)", "multiply(gamma,x)"},
};

START_TEST(test_precedence)
{
    char text[200];
    snprintf(text, sizeof text, "r := %s => partition", precedence[_i].pattern);
    RuleFile *rf;
    const AstRule *r = parse_rule(text, &rf);
    StrBuf sb = {0};
    render(&sb, r->pattern_src);
    ck_assert_str_eq(sb.data, precedence[_i].tree);
    strbuf_free(&sb);
    rulefile_free(rf);
}
END_TEST

START_TEST(test_ranges_and_text)
{
    RuleFile *rf;
    const AstRule *r = parse_rule("# comment\n\nr := add(x,\n       y) => x  # tail\n", &rf);
    ck_assert_int_eq(r->range.first_line, 3);
    ck_assert_int_eq(r->range.first_column, 1);
    ck_assert_int_eq(r->range.last_line, 4);
    ck_assert_int_eq(r->range.last_column, 14);
    ck_assert_str_eq(r->text, "r := add(x,\n       y) => x");
    const AstNode *add = r->pattern_src;
    ck_assert_int_eq(add->u.call.name_range.first_column, 6);
    ck_assert_int_eq(add->u.call.name_range.last_column, 8);
    const AstNode *y = add->u.call.args.items[1];
    ck_assert_int_eq(y->range.first_line, 4);
    ck_assert_int_eq(y->range.first_column, 8);
    ck_assert_ptr_eq(y->src, r->src);
    rulefile_free(rf);
}
END_TEST

START_TEST(test_items)
{
    char *diag;
    RuleFile *rf = load_text("op my.op(a, b?, c..., k: ints = [1, -2], m: str) commutative\n"
                             "let act(p, q) = nn.relu(p) | q\n"
                             "let one = x\n"
                             "include \"other.graft\"\n", true, &diag);
    ck_assert_str_eq(diag, ""); /* parse only: the include is not followed */
    free(diag);
    const AstFile *f = rf->files[0];
    ck_assert_int_eq(f->nitems, 4);
    ck_assert_int_eq(f->items[3].kind, ITEM_INCLUDE);
    ck_assert_str_eq(f->items[3].u.include->path, "other.graft");
    ck_assert_int_eq(f->items[3].u.include->range.first_column, 9);
    const AstOpDecl *op = f->items[0].u.op;
    ck_assert_str_eq(op->name, "my.op");
    ck_assert_int_eq(op->noperands, 3);
    ck_assert(!op->operands[0].optional && op->operands[1].optional && op->operands[2].variadic);
    ck_assert_int_eq(op->nattrs, 2);
    ck_assert_str_eq(op->attrs[0].type, "ints");
    ck_assert_int_eq(op->attrs[0].dflt->u.list.items.count, 2);
    ck_assert_ptr_null(op->attrs[1].dflt);
    ck_assert_int_eq(op->ntraits, 1);
    const AstLet *let = f->items[1].u.let;
    ck_assert_int_eq(let->nparams, 2);
    ck_assert_str_eq(let->params[1], "q");
    ck_assert(!f->items[2].u.let->has_parens);
    rulefile_free(rf);
}
END_TEST

/* ---- print: canonical text and the round trip ---- */

static const struct {
    const char *in;  /* as written */
    const char *out; /* canonical */
} canon[] = {
    {"bn := gamma*(x-mean)/sqrt(var+eps:const)+beta\n      => nn.batch_norm(x, gamma, beta, mean, var, epsilon=eps)[0]\n",
     "bn := gamma*(x - mean) / sqrt(var + eps:const) + beta => nn.batch_norm(x, gamma, beta, mean, var, epsilon=eps)[0]\n"},
    {"r:=a*(b+c)=>partition", "r := a*(b + c) => partition\n"},
    {"r := a * (b + c) => partition", "r := a * (b + c) => partition\n"},
    {"r := (a | b) + c => partition", "r := (a | b) + c => partition\n"},
    {"r := -(a + b) => partition", "r := -(a + b) => partition\n"},
    {"r := (-1):const => partition", "r := (-1):const => partition\n"},
    {"r := (c@a)[0] => partition", "r := (c@a)[0] => partition\n"},
    {"r := (a + b):const => partition", "r := (a + b):const => partition\n"},
    {"r := f(x, k=1, ...) where !(users(x) == 1) || -rank(x) < 2 => partition",
     "r := f(x, k=1, ...) where !(users(x) == 1) || -rank(x) < 2 => partition\n"},
    {"r := f(x) where (users(x) + 1) * 2 == shape(x)[0] => partition",
     "r := f(x) where (users(x) + 1) * 2 == shape(x)[0] => partition\n"},
    {"r [once,priority=1] := f(x) => g(x, **c, s=\"a\\\"b\\\\\")",
     "r [priority=1, once] := f(x) => g(x, s=\"a\\\"b\\\\\", **c)\n"},
    {"op o(a,b...,k:int=1) commutative", "op o(a, b..., k: int = 1) commutative\n"},
    {"let m(p)=p|-p", "let m(p) = p | -p\n"},
    {"include \"a b.graft\"", "include \"a b.graft\"\n"},
    {"r := (a,) => (a, b)[1]", "r := (a,) => (a, b)[1]\n"},
    /* a dimension of 0 is a (zero-size) dimension */
    {"r := f(x:Tensor[(0,_,3),float32]) => partition",
     "r := f(x:Tensor[(0, _, 3), float32]) => partition\n"},
};

START_TEST(test_canonical)
{
    char *out = canonical(canon[_i].in);
    ck_assert_ptr_nonnull(out);
    ck_assert_str_eq(out, canon[_i].out);
    char *again = canonical(out);
    ck_assert_ptr_nonnull(again);
    ck_assert_str_eq(again, out);
    free(again);
    free(out);
}
END_TEST

/* The rule file at path prints to a fixpoint; false when it does not
 * parse. */
static bool prints_to_fixpoint(const char *path, const char *name, void *ctx)
{
    (void)name, (void)ctx;
    Source *src = source_read(path, NULL);
    ck_assert_ptr_nonnull(src);
    char *once = canonical(src->text);
    if (once) {
        char *twice = canonical(once);
        ck_assert_msg(twice && strcmp(once, twice) == 0, "%s: not a fixpoint", path);
        free(twice);
    }
    bool parsed = once != NULL;
    free(once);
    source_free(src);
    return parsed;
}

/* Every parsable golden input prints to a fixpoint. */
START_TEST(test_roundtrip_golden_files)
{
    ck_assert_int_ge(each_file("tests/rules", ".graft", prints_to_fixpoint, NULL), 15);
}
END_TEST

/* ---- registry ---- */

static const char *const corpus_ops[] = {
    "multiply", "add", "reshape", "nn.conv2d", "expand_dims", "transpose",
    "broadcast_to", "nn.relu", "divide", "nn.bias_add", "sqrt", "nn.batch_norm",
    "negative", "squeeze", "nn.batch_matmul", "concatenate", "sigmoid", "clip", "erf",
    "variance", "subtract", "mean", "nn.layer_norm", "nn.dropout", "nn.dense",
    "nn.adaptive_avg_pool2d", "split", "nn.softmax", "nn.max_pool2d", "nn.avg_pool2d",
    "take", "repeat", "rsqrt", "tanh", "nn.matmul", "exp", "sum", "power", "cast",
};

static RuleFile *builtin(void)
{
    RuleFile *rf = load_text("", false, NULL);
    ck_assert_ptr_nonnull(rf);
    return rf;
}

START_TEST(test_registry_corpus_ops)
{
    RuleFile *rf = builtin();
    const OpInfo *op = registry_find(rf->registry, corpus_ops[_i]);
    ck_assert_msg(op != NULL, "missing op %s", corpus_ops[_i]);
    ck_assert_str_eq(op->name, corpus_ops[_i]);
    rulefile_free(rf);
}
END_TEST

START_TEST(test_registry_conv2d)
{
    RuleFile *rf = builtin();
    const OpInfo *op = registry_find(rf->registry, "nn.conv2d");
    ck_assert_int_eq(op->min_args, 2);
    ck_assert_int_eq(op->max_args, 2);
    ck_assert(!opinfo_has_trait(op, TRAIT_COMMUTATIVE));
    static const char *const expect[][2] = {
        {"strides", "[1, 1]"}, {"padding", "[0, 0]"}, {"dilation", "[1, 1]"},
        {"groups", "1"}, {"channels", "None"}, {"kernel_size", "None"},
        {"data_layout", "\"NCHW\""}, {"kernel_layout", "\"OIHW\""}, {"out_layout", "\"\""},
        {"out_dtype", "\"\""},
    };
    ck_assert_int_eq(op->nattrs, 10);
    for (size_t i = 0; i < ARRAY_LEN(expect); i++) {
        const OpAttrInfo *a = opinfo_find_attr(op, expect[i][0]);
        ck_assert_msg(a != NULL, "no %s", expect[i][0]);
        ck_assert_str_eq(a->dflt_text, expect[i][1]);
    }
    ck_assert_int_eq(opinfo_find_attr(op, "groups")->type, ATYPE_INT);
    ck_assert_int_eq(opinfo_find_attr(op, "strides")->type, ATYPE_INTS);
    const OpInfo *bn = registry_find(rf->registry, "nn.batch_norm");
    ck_assert_int_eq(bn->min_args, 5);
    ck_assert_double_eq(opinfo_find_attr(bn, "epsilon")->dflt->u.num.value, 1e-05);
    ck_assert_ptr_null(opinfo_find_attr(registry_find(rf->registry, "nn.dense"), "units")->dflt);
    rulefile_free(rf);
}
END_TEST

/* Attribute orders and defaults as TVM's attribute structs declare them
 * (TVM_ATTR_FIELD order, set_default; the check is described at the top
 * of stdpatterns/ops.graft): one row per op whose declaration that check
 * changed, every attribute in order with its default ("-" for none). */
typedef struct AttrOrder {
    const char *op;
    const char *attrs; /* "name=default name=default ..." */
} AttrOrder;

static const AttrOrder tvm_orders[] = {
    {"nn.conv2d_transpose", "channels=None kernel_size=None strides=[1, 1] "
     "output_padding=[0, 0] padding=[0, 0] dilation=[1, 1] groups=1 data_layout=\"NCHW\" "
     "kernel_layout=\"IOHW\" out_layout=\"\" out_dtype=\"\""},
    {"nn.conv1d_transpose", "channels=None kernel_size=None strides=[1] output_padding=[0] "
     "padding=[0] dilation=[1] groups=1 data_layout=\"NCW\" kernel_layout=\"IOW\" "
     "out_layout=\"\" out_dtype=\"\""},
    {"argmax", "axis=None keepdims=False select_last_index=False exclude=False"},
    {"qnn.quantize", "out_dtype=- axis=-1"},
    {"qnn.dequantize", "out_dtype=- axis=-1"},
    {"image.resize2d", "size=None roi=None layout=\"NCHW\" method=\"linear\" "
     "coordinate_transformation_mode=\"half_pixel\" rounding_method=\"round\" "
     "cubic_alpha=-0.5 cubic_exclude=0 extrapolation_value=0 out_dtype=\"\""},
    {"nn.adaptive_avg_pool2d", "output_size=[] layout=\"NCHW\" out_layout=\"\""},
    {"nn.upsampling", "scale_h=- scale_w=- layout=\"NCHW\" method=\"nearest_neighbor\" "
     "align_corners=False"},
    {"strided_slice", "begin=- end=- strides=- slice_mode=\"end\" axes=-"},
    {"transpose", "axes=-"},
    {"sort", "axis=-1 is_ascend=True dtype=\"\""},
    {"argsort", "axis=-1 is_ascend=True dtype=\"\""},
    {"topk", "k=- axis=-1 ret_type=\"both\" is_ascend=False dtype=\"\""},
    {"dyn.topk", "k=- axis=-1 ret_type=\"both\" is_ascend=False dtype=\"\""},
    {"one_hot", "depth=1 axis=-1 dtype=\"\""},
    {"gather", "axis=None"},
    {"cumsum", "axis=None dtype=\"\" exclusive=False"},
    {"arange", "start=- stop=- step=- dtype=-"},
    {"vision.non_max_suppression", "force_suppress=False top_k=-1 coord_start=2 "
     "score_index=1 id_index=0 return_indices=True invalid_to_bottom=False"},
};

START_TEST(test_registry_tvm_orders)
{
    RuleFile *rf = builtin();
    const AttrOrder *want = &tvm_orders[_i];
    const OpInfo *op = registry_find(rf->registry, want->op);
    ck_assert_msg(op != NULL, "no op %s", want->op);
    StrBuf got = {0};
    for (int i = 0; i < op->nattrs; i++)
        strbuf_printf(&got, "%s%s=%s", i ? " " : "", op->attrs[i].name,
                      op->attrs[i].dflt_text ? op->attrs[i].dflt_text : "-");
    ck_assert_msg(strcmp(got.data, want->attrs) == 0, "%s: %s", want->op, got.data);
    strbuf_free(&got);
    rulefile_free(rf);
}
END_TEST

/* Every declared op has a type relation (src/relay/type_rel_*.c) giving
 * the declared outputs, and every relation's op is declared, except
 * "where", which the rule language cannot name (a keyword). */
START_TEST(test_registry_relations)
{
    RuleFile *rf = builtin();
    const Registry *reg = rf->registry;
    for (int i = 0; i < registry_count(reg); i++) {
        const OpInfo *op = registry_op(reg, i);
        ck_assert_msg(type_has_relation(op->name), "%s has no type relation", op->name);
        ck_assert_msg(type_relation_outputs(op->name) == op->outputs,
                      "%s: relation gives %d outputs, declared %d", op->name,
                      type_relation_outputs(op->name), op->outputs);
    }
    for (int i = 0; i < type_relation_count(); i++) {
        const char *name = type_relation_op(i);
        ck_assert_msg(registry_find(reg, name) || strcmp(name, "where") == 0,
                      "%s has a relation but no declaration", name);
    }
    ck_assert_int_eq(registry_find(reg, "nn.batch_norm")->outputs, 3);
    ck_assert_int_eq(registry_find(reg, "nn.dropout")->outputs, 2);
    ck_assert_int_eq(registry_find(reg, "split")->outputs, AST_OUTPUTS_VARIES);
    ck_assert_int_eq(registry_find(reg, "nn.conv2d")->outputs, AST_OUTPUTS_TENSOR);
    ck_assert_int_ge(registry_count(reg), 172); /* 172 when this was written */
    rulefile_free(rf);
}
END_TEST

START_TEST(test_registry_traits)
{
    RuleFile *rf = builtin();
    const Registry *reg = rf->registry;
    const char *comm[] = {"add", "multiply", "maximum", "minimum"};
    for (size_t i = 0; i < ARRAY_LEN(comm); i++)
        ck_assert(opinfo_has_trait(registry_find(reg, comm[i]), TRAIT_COMMUTATIVE));
    ck_assert(!opinfo_has_trait(registry_find(reg, "subtract"), TRAIT_COMMUTATIVE));
    ck_assert(opinfo_has_trait(registry_find(reg, "subtract"), TRAIT_BROADCAST));
    ck_assert(opinfo_has_trait(registry_find(reg, "nn.relu"), TRAIT_ELEMENTWISE));
    ck_assert(!opinfo_has_trait(registry_find(reg, "nn.conv2d"), TRAIT_ELEMENTWISE));
    ck_assert(opinfo_has_trait(registry_find(reg, "mean"), TRAIT_REDUCE));
    ck_assert_uint_eq(registry_trait_by_name("elementwise"), TRAIT_ELEMENTWISE);
    ck_assert_uint_eq(registry_trait_by_name("fast"), 0);
    const OpInfo **ops = malloc((size_t)registry_count(reg) * sizeof(OpInfo *));
    int n = registry_class_ops(reg, TRAIT_COMMUTATIVE, ops);
    ck_assert_int_eq(n, 12);
    ck_assert_str_eq(ops[0]->name, "add");
    ck_assert_str_eq(ops[1]->name, "multiply");
    free(ops);
    ck_assert_str_eq(registry_suggest(reg, "addd"), "add");
    ck_assert_str_eq(registry_suggest(reg, "conv2d"), "nn.conv2d");
    ck_assert_str_eq(registry_suggest(reg, "nn.batchnorm"), "nn.batch_norm");
    ck_assert_ptr_null(registry_suggest(reg, "frobnicate"));
    ck_assert(opinfo_accepts_nargs(registry_find(reg, "concatenate"), 1));
    ck_assert(!opinfo_accepts_nargs(registry_find(reg, "concatenate"), 2));
    rulefile_free(rf);
}
END_TEST

START_TEST(test_registry_declared_in_file)
{
    char *diag;
    RuleFile *rf = load_text("op my.op(a, b?, c..., k: int = 3) elementwise\n"
                             "r := my.op(x, _, _, _, k=4) => x\n"
                             "s := my.op(x) => x\n", false, &diag);
    ck_assert_str_eq(diag, "");
    free(diag);
    const OpInfo *op = registry_find(rf->registry, "my.op");
    ck_assert_int_eq(op->min_args, 1);
    ck_assert_int_eq(op->max_args, OP_VARIADIC);
    ck_assert_ptr_eq(rf->rules[0]->pattern->u.call.op, op);
    rulefile_free(rf);
}
END_TEST

Suite *suite_rules_parse(void)
{
    Suite *s = suite_create("rules_parse");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, test_golden_rule_shape);
    tcase_add_loop_test(tc, test_construct_shapes, 0, (int)ARRAY_LEN(shapes));
    tcase_add_test(tc, test_fields);
    tcase_add_loop_test(tc, test_precedence, 0, (int)ARRAY_LEN(precedence));
    tcase_add_test(tc, test_ranges_and_text);
    tcase_add_test(tc, test_items);
    suite_add_tcase(s, tc);
    tc = tcase_create("print");
    tcase_add_loop_test(tc, test_canonical, 0, (int)ARRAY_LEN(canon));
    tcase_add_test(tc, test_roundtrip_golden_files);
    suite_add_tcase(s, tc);
    tc = tcase_create("registry");
    tcase_add_loop_test(tc, test_registry_corpus_ops, 0, (int)ARRAY_LEN(corpus_ops));
    tcase_add_test(tc, test_registry_conv2d);
    tcase_add_loop_test(tc, test_registry_tvm_orders, 0, (int)ARRAY_LEN(tvm_orders));
    tcase_add_test(tc, test_registry_traits);
    tcase_add_test(tc, test_registry_relations);
    tcase_add_test(tc, test_registry_declared_in_file);
    suite_add_tcase(s, tc);
    return s;
}
