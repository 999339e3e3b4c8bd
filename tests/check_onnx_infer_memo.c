/* check_onnx_infer_memo.c - the memo of ONNX's inference (note [inference
 * memo] in src/onnx/onnx_types_memo.c): every call of every corpus model
 * (the .onnx files of tests/onnx) typed through the memo gets the type inferred
 * afresh (onnx_type_of_fresh), and the memo is used; calls that differ
 * only in an attribute, an operand's dtype or dims, their result count,
 * or a constant operand's values (note [values on demand]) get their own
 * types, and a call like one typed before (operands of other types of
 * the same dtype and dims too) gets that one's type. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "engine_impl.h"
#include "graph.h"
#include "graph_impl.h"
#include "limit.h"
#include "onnx_file.h"
#include "onnx_graph.h"
#include "onnx_types_memo.h"
#include "check_files.h"
#include "check_main.h"

/* ---- the corpus: with the memo and afresh ---- */

/* What the corpus's models add up to. */
typedef struct MemoCounts {
    size_t calls; /* calls typed both ways */
    size_t kept;  /* keys the memos remembered */
} MemoCounts;

/* Types every call of the model at path both ways and asserts they
 * agree; adds to counts (a MemoCounts) the calls typed and the keys
 * remembered. */
static bool agree_on_model(const char *path, const char *name, void *counts)
{
    (void)name;
    MemoCounts *c = counts;
    graft_diag *d = graft_diag_new(stderr);
    graft_limits *limits = graft_limits_new();
    OnnxModel *m = onnx_file_load(path, limits, NULL, true, d);
    ck_assert_msg(m != NULL, "%s: not loaded", path);
    graft_graph *g = m->g;
    for (uint32_t id = 0; id < graph_node_count(g); id++) {
        graft_node *n = graph_node(g, id);
        if (node_kind(n) != NODE_CALL)
            continue;
        StrBuf memo_why = {0}, fresh_why = {0};
        const graft_type *memo = onnx_type_of(g, n, &memo_why);
        const graft_type *fresh = onnx_type_of_fresh(g, n, &fresh_why);
        ck_assert_msg((memo == NULL) == (fresh == NULL), "%s: node %u: %s, afresh %s", path,
                      id, memo ? memo->text : "none", fresh ? fresh->text : "none");
        if (memo) {
            ck_assert_msg(type_equal(memo, fresh), "%s: node %u: %s, afresh %s", path, id,
                          memo->text, fresh->text);
            ck_assert_str_eq(memo->text, fresh->text);
        }
        ck_assert_str_eq(memo_why.len ? memo_why.data : "", fresh_why.len ? fresh_why.data : "");
        strbuf_free(&memo_why);
        strbuf_free(&fresh_why);
        c->calls++;
    }
    c->kept += type_memo_size(g);
    onnx_graph_free(m);
    graft_limits_free(limits);
    graft_diag_free(d);
    return true;
}

START_TEST(test_memo_agrees_on_corpus)
{
    MemoCounts c = {0, 0};
    int models = each_file("tests/onnx", ".onnx", agree_on_model, &c);
    printf("%d models, %zu calls typed both ways, %zu keys remembered\n", models, c.calls,
           c.kept);
    ck_assert_int_ge(models, 18);
    ck_assert_uint_gt(c.kept, 0);         /* the memo was filled */
    ck_assert_uint_lt(c.kept, c.calls / 2); /* and serves most calls */
}
END_TEST

/* ---- calls made by hand ---- */

static const graft_type *tensor(graft_graph *g, const char *dtype, const int64_t *dims, int rank)
{
    return graph_type_tensor(g, dtype, dims, rank);
}

/* An ints attribute value of n items (a new value each time). */
static const graft_attr_value *ints(graft_graph *g, const int64_t *items, int n)
{
    graft_attr_value *list = graph_new_attr_value(g, GRAFT_ATTR_LIST);
    const graft_attr_value **each = arena_array(graph_arena(g), (size_t)n + 1, sizeof *each);
    for (int i = 0; i < n; i++) {
        graft_attr_value *v = graph_new_attr_value(g, GRAFT_ATTR_INT);
        v->i = items[i];
        each[i] = v;
    }
    list->nitems = n;
    list->items = (const graft_attr_value *const *)each;
    return list;
}

static const graft_attr_value *one_int(graft_graph *g, int64_t i)
{
    graft_attr_value *v = graph_new_attr_value(g, GRAFT_ATTR_INT);
    v->i = i;
    return v;
}

/* A call of op on args with one attribute name=value (none when NULL). */
static graft_node *call(graft_graph *g, const char *op, graft_node *const *args, int nargs,
                        const char *name, const graft_attr_value *value)
{
    graft_attr attr = {name, value};
    return graph_add_call(g, op, args, nargs, &attr, value ? 1 : 0);
}

static const graft_type *type_of(graft_graph *g, const graft_node *n)
{
    StrBuf why = {0};
    const graft_type *t = onnx_type_of(g, n, &why);
    ck_assert_msg(why.len == 0, "%s", why.data);
    strbuf_free(&why);
    ck_assert_ptr_nonnull(t);
    return t;
}

/* Transpose and Concat of one operand, differing in an attribute. */
START_TEST(test_memo_keys_attributes)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", tensor(g, "float32", (int64_t[]){2, 3, 4}, 3));
    graft_node *xx[] = {x, x};
    const graft_type *t1 = type_of(g, call(g, "Transpose", &x, 1, "perm",
                                           ints(g, (int64_t[]){0, 2, 1}, 3)));
    const graft_type *t2 = type_of(g, call(g, "Transpose", &x, 1, "perm",
                                           ints(g, (int64_t[]){2, 1, 0}, 3)));
    const graft_type *t3 = type_of(g, call(g, "Transpose", &x, 1, "perm",
                                           ints(g, (int64_t[]){0, 2, 1}, 3)));
    ck_assert_str_eq(t1->text, "Tensor[(2, 4, 3), float32]");
    ck_assert_str_eq(t2->text, "Tensor[(4, 3, 2), float32]");
    ck_assert_ptr_eq(t3, t1); /* an equal perm, another value: remembered */
    const graft_type *c0 = type_of(g, call(g, "Concat", xx, 2, "axis", one_int(g, 0)));
    const graft_type *c1 = type_of(g, call(g, "Concat", xx, 2, "axis", one_int(g, 1)));
    ck_assert_str_eq(c0->text, "Tensor[(4, 3, 4), float32]");
    ck_assert_str_eq(c1->text, "Tensor[(2, 6, 4), float32]");
    ck_assert_uint_eq(type_memo_size(g), 4);
    graph_free(g);
}
END_TEST

/* Operands of equal dtype and dims make one key (they are one type: note
 * [canonical tensor types] in src/ir/graph_type.c); another dtype or dims
 * another. */
START_TEST(test_memo_keys_shapes)
{
    graft_graph *g = graph_new();
    const graft_type *first = tensor(g, "float32", (int64_t[]){2, 3}, 2);
    graft_node *a = graph_add_param(g, "a", first);
    graft_node *b = graph_add_param(g, "b", tensor(g, "float32", (int64_t[]){2, 3}, 2));
    graft_node *c = graph_add_param(g, "c", tensor(g, "float32", (int64_t[]){3, 2}, 2));
    graft_node *d = graph_add_param(g, "d", tensor(g, "int64", (int64_t[]){2, 3}, 2));
    ck_assert_ptr_eq(node_type(a), node_type(b));
    ck_assert_ptr_eq(type_of(g, call(g, "Relu", &a, 1, NULL, NULL)), first);
    ck_assert_ptr_eq(type_of(g, call(g, "Relu", &b, 1, NULL, NULL)), first);
    ck_assert_uint_eq(type_memo_size(g), 1);
    ck_assert_str_eq(type_of(g, call(g, "Relu", &c, 1, NULL, NULL))->text,
                     "Tensor[(3, 2), float32]");
    ck_assert_str_eq(type_of(g, call(g, "Relu", &d, 1, NULL, NULL))->text,
                     "Tensor[(2, 3), int64]");
    ck_assert_uint_eq(type_memo_size(g), 3);
    graph_free(g);
}
END_TEST

/* Split of one operand into 2 and 3 results: the result count is keyed. */
START_TEST(test_memo_keys_result_count)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", tensor(g, "float32", (int64_t[]){6}, 1));
    graft_node *two = call(g, "Split", &x, 1, NULL, NULL);
    graft_node *three = call(g, "Split", &x, 1, NULL, NULL);
    graph_set_noutputs(g, two, 2);
    graph_set_noutputs(g, three, 3);
    ck_assert_str_eq(type_of(g, two)->text, "(Tensor[(3), float32], Tensor[(3), float32])");
    ck_assert_str_eq(type_of(g, three)->text,
                     "(Tensor[(2), float32], Tensor[(2), float32], Tensor[(2), float32])");
    ck_assert_uint_eq(type_memo_size(g), 2);
    graph_free(g);
}
END_TEST

/* Reshape by two initializers of one type and different values: a call
 * that read values is not remembered. */
START_TEST(test_memo_skips_constant_values)
{
    graft_graph *g = graph_new();
    graft_node *x = graph_add_param(g, "x", tensor(g, "float32", (int64_t[]){2, 6}, 2));
    const graft_type *shape_type = tensor(g, "int64", (int64_t[]){2}, 1);
    static const int64_t three_four[] = {3, 4}, four_three[] = {4, 3};
    graft_node *s1 = graph_add_tensor_const(g, "s1", shape_type, three_four, sizeof three_four);
    graft_node *s2 = graph_add_tensor_const(g, "s2", shape_type, four_three, sizeof four_three);
    const graft_type *r1 = type_of(g, call(g, "Reshape", (graft_node *[]){x, s1}, 2, NULL, NULL));
    const graft_type *r2 = type_of(g, call(g, "Reshape", (graft_node *[]){x, s2}, 2, NULL, NULL));
    ck_assert_str_eq(r1->text, "Tensor[(3, 4), float32]");
    ck_assert_str_eq(r2->text, "Tensor[(4, 3), float32]");
    ck_assert_uint_eq(type_memo_size(g), 0);
    /* an element-wise call on a constant reads no values: remembered */
    const graft_type *a1 = type_of(g, call(g, "Add", (graft_node *[]){s1, s1}, 2, NULL, NULL));
    const graft_type *a2 = type_of(g, call(g, "Add", (graft_node *[]){s2, s2}, 2, NULL, NULL));
    ck_assert_ptr_eq(a1, shape_type);
    ck_assert_ptr_eq(a2, shape_type);
    ck_assert_uint_eq(type_memo_size(g), 1);
    graph_free(g);
}
END_TEST

/* A contradiction is reported at every call that has it. */
START_TEST(test_memo_skips_contradictions)
{
    graft_graph *g = graph_new();
    graft_node *a = graph_add_param(g, "a", tensor(g, "float32", (int64_t[]){2, 3}, 2));
    graft_node *b = graph_add_param(g, "b", tensor(g, "float32", (int64_t[]){4, 3}, 2));
    for (int i = 0; i < 2; i++) {
        StrBuf why = {0};
        graft_node *add = call(g, "Add", (graft_node *[]){a, b}, 2, NULL, NULL);
        ck_assert_ptr_null(onnx_type_of(g, add, &why));
        ck_assert_str_eq(why.data, "Add: dims 2 and 4 do not broadcast");
        strbuf_free(&why);
    }
    ck_assert_uint_eq(type_memo_size(g), 0);
    graph_free(g);
}
END_TEST

/* note [plain calls]: a call of no attribute on typed tensors is found by
 * its operands' types' addresses; what is not plain (another domain, an
 * operand left out or untyped, another result count) is not taken for
 * one that is, and the cache adds no key to the memo. */
START_TEST(test_plain_calls)
{
    graft_graph *g = graph_new();
    const graft_type *first = tensor(g, "float32", (int64_t[]){2, 3}, 2);
    graft_node *a = graph_add_param(g, "a", first);
    graft_node *b = graph_add_param(g, "b", tensor(g, "float32", (int64_t[]){3}, 1));
    graft_node *c = graph_add_param(g, "c", tensor(g, "float32", (int64_t[]){2, 3}, 2));
    graft_node *untyped = graph_add_param(g, "u", NULL);
    graft_node *absent = graph_add_tuple(g, NULL, 0);
    graft_node *ab[] = {a, b};
    ck_assert_ptr_eq(type_of(g, call(g, "Add", ab, 2, NULL, NULL)), first);
    ck_assert_ptr_eq(type_of(g, call(g, "Add", ab, 2, NULL, NULL)), first); /* cached */
    ck_assert_ptr_eq(type_of(g, call(g, "Add", (graft_node *[]){c, b}, 2, NULL, NULL)), first);
    ck_assert_uint_eq(type_memo_size(g), 1); /* the same key: c's type stands for first */
    graft_node *other = call(g, "Add", ab, 2, NULL, NULL);
    graph_set_node_domain(g, other, "com.example");
    StrBuf why = {0};
    ck_assert_ptr_null(onnx_type_of(g, other, &why)); /* another domain's op: untyped */
    ck_assert_ptr_null(onnx_type_of(g, call(g, "Add", (graft_node *[]){a, untyped}, 2, NULL,
                                            NULL), &why));
    ck_assert_uint_eq(why.len, 0);
    /* Clip's min left out, its max given: the operand is absent, not unknown */
    ck_assert_str_eq(type_of(g, call(g, "Clip", (graft_node *[]){a, absent, b}, 3, NULL,
                                     NULL))->text, "Tensor[(2, 3), float32]");
    graft_node *split = call(g, "Split", &a, 1, NULL, NULL);
    graph_set_noutputs(g, split, 2);
    ck_assert_str_eq(type_of(g, call(g, "Split", &a, 1, NULL, NULL))->text,
                     "Tensor[(2, 3), float32]");
    ck_assert_str_eq(type_of(g, split)->text,
                     "(Tensor[(1, 3), float32], Tensor[(1, 3), float32])");
    graph_free(g);
}
END_TEST

/* note [plain calls]: a slot of the plain calls' cache holds the last two
 * keys put there, so two keys that meet in one slot (as the allocator's
 * addresses decide) do not evict each other.  200 keys in 32 slots:
 * every key among the last two put in its slot is found there with the
 * memo's type, every older one is not (and is typed by the memo again,
 * then found), and some slot holds two. */
START_TEST(test_plain_calls_two_a_slot)
{
    enum { KEYS = 200, SLOTS = 1 << ONNX_PLAIN_TYPES_BITS };
    graft_graph *g = graph_new();
    OnnxPlainTypes *plain = onnx_plain_types(g);
    graft_node *calls[KEYS];
    size_t slot[KEYS];
    int last[SLOTS][2] = {{0}}; /* per slot: 1 + the last two keys put, newest first */
    for (int i = 0; i < KEYS; i++) {
        graft_node *x = graph_add_param(g, "x", tensor(g, "float32", (int64_t[]){i + 1}, 1));
        calls[i] = call(g, "Relu", &x, 1, NULL, NULL);
        const graft_type *t[2];
        ck_assert_int_eq(onnx_plain_key(calls[i], t), 1);
        slot[i] = onnx_plain_slot(node_op(calls[i]), t);
        ck_assert_ptr_eq(type_of(g, calls[i]), node_type(x));
        last[slot[i]][1] = last[slot[i]][0];
        last[slot[i]][0] = i + 1;
    }
    ck_assert_uint_eq(type_memo_size(g), KEYS);
    int slots_with_two = 0;
    for (int s = 0; s < SLOTS; s++)
        slots_with_two += last[s][1] != 0;
    ck_assert_int_gt(slots_with_two, 0);
    for (int i = 0; i < KEYS; i++) {
        const graft_type *operand = node_type(node_arg(calls[i], 0));
        bool kept = last[slot[i]][0] == i + 1 || last[slot[i]][1] == i + 1, found = false;
        for (int k = 0; k < 2; k++) {
            const OnnxPlainType *e = &plain->pair[slot[i]][k];
            if (e->op == node_op(calls[i]) && e->nargs == 1 && e->operand[0] == operand) {
                ck_assert_ptr_eq(e->type, operand);
                found = true;
            }
        }
        ck_assert_int_eq(found, kept);
    }
    /* an evicted key (which one depends on the addresses) typed again is
       the newest of its slot, and the memo makes no new key for it */
    int old = 0;
    while (last[slot[old]][0] == old + 1 || last[slot[old]][1] == old + 1)
        old++;
    ck_assert_ptr_eq(type_of(g, calls[old]), node_type(node_arg(calls[old], 0)));
    ck_assert_ptr_eq(plain->pair[slot[old]][0].operand[0], node_type(node_arg(calls[old], 0)));
    ck_assert_uint_eq(type_memo_size(g), KEYS);
    graph_free(g);
}
END_TEST

/* Makes the graph's entry of tensor type taken (note [canonical tensor
 * types] in src/ir/graph_type.c) hold holder: taken's hash is then
 * holder's, as when two shapes' hashes collide. */
static void give_hash(graft_graph *g, const graft_type *taken, const graft_type *holder)
{
    KeyMap *types = &g->tensor_types;
    size_t moved = 0;
    for (size_t i = 0; i < types->cap; i++)
        if (types->slots[i].key && types->slots[i].value == (int64_t)(intptr_t)taken) {
            types->slots[i].value = (int64_t)(intptr_t)holder;
            moved++;
        }
    ck_assert_uint_eq(moved, 1);
}

/* Asserts call n's type through the memo is want, and the one inferred
 * afresh is of its dtype and dims. */
static void typed_as(graft_graph *g, const graft_node *n, const graft_type *want)
{
    StrBuf why = {0};
    const graft_type *fresh = onnx_type_of_fresh(g, n, &why);
    ck_assert_uint_eq(why.len, 0);
    strbuf_free(&why);
    ck_assert_ptr_eq(type_of(g, n), want);
    ck_assert(type_equal(fresh, want));
    ck_assert_str_eq(fresh->text, want->text);
}

/* note [canonical tensor types], note [inference memo]: a shape whose
 * key another shape holds in the graph (forced here: b's entry made to
 * hold a) goes to the next key, where it is one type again, right (its
 * dims and text its own), made once; the memo keys calls on it by that
 * type, and each is typed as afresh; a result of its dtype and dims is
 * that type (note [shared types]), even on an operand of b, which the
 * graph no longer finds. */
START_TEST(test_memo_keys_colliding_types)
{
    graft_graph *g = graph_new();
    const graft_type *a = tensor(g, "float32", (int64_t[]){2, 3}, 2);
    const graft_type *b = tensor(g, "float32", (int64_t[]){3, 2}, 2);
    give_hash(g, b, a);
    const graft_type *b2 = tensor(g, "float32", (int64_t[]){3, 2}, 2);
    ck_assert_ptr_ne(b2, a);
    ck_assert_ptr_ne(b2, b); /* (b is no longer found: its entry holds a) */
    ck_assert_str_eq(b2->text, "Tensor[(3, 2), float32]");
    ck_assert(type_equal(b2, b));
    ck_assert_ptr_eq(tensor(g, "float32", (int64_t[]){3, 2}, 2), b2); /* made once */
    ck_assert_ptr_eq(tensor(g, "float32", (int64_t[]){2, 3}, 2), a);
    graft_node *pa = graph_add_param(g, "a", a), *pb = graph_add_param(g, "b", b);
    graft_node *pb2 = graph_add_param(g, "b2", b2);
    graft_node *pb3 = graph_add_param(g, "b3", tensor(g, "float32", (int64_t[]){3, 2}, 2));
    typed_as(g, call(g, "Relu", &pa, 1, NULL, NULL), a);
    typed_as(g, call(g, "Relu", &pb, 1, NULL, NULL), b2);
    typed_as(g, call(g, "Relu", &pb2, 1, NULL, NULL), b2);
    typed_as(g, call(g, "Relu", &pb3, 1, NULL, NULL), b2); /* remembered */
    ck_assert_uint_eq(type_memo_size(g), 3);
    const graft_attr_value *swap = ints(g, (int64_t[]){1, 0}, 2);
    typed_as(g, call(g, "Transpose", &pb2, 1, "perm", swap), a);
    typed_as(g, call(g, "Transpose", &pb3, 1, "perm", swap), a);
    typed_as(g, call(g, "Transpose", &pa, 1, "perm", swap), b2);
    ck_assert_uint_eq(type_memo_size(g), 5);
    graph_free(g);
}
END_TEST

/* note [action types by address], note [last address key] in
 * src/runtime/rewrite_types.c: an ONNX call a rewrite makes takes the
 * type of one typed before of its op, attribute values and operand
 * types (the last one's first): Transposes of a and of b in turns, by
 * one perm value and by an equal one, each get the type inference gives
 * afresh, one for each key; a call with another perm gets its own. */
START_TEST(test_action_types_by_address)
{
    graft_graph *g = graph_new();
    graph_set_ir(g, IR_ONNX);
    graph_set_type_fn(g, onnx_type_of);
    const graft_type *a = tensor(g, "float32", (int64_t[]){2, 3, 4}, 3);
    const graft_type *b = tensor(g, "float32", (int64_t[]){4, 3, 2}, 3);
    graft_node *pa = graph_add_param(g, "a", a), *pb = graph_add_param(g, "b", b);
    const graft_attr_value *swap = ints(g, (int64_t[]){2, 1, 0}, 3);
    const graft_attr_value *again = ints(g, (int64_t[]){2, 1, 0}, 3);
    ActionTypes *at = action_types_new(g);
    StrBuf why = {0};
    graft_node *operand[] = {pa, pb, pa, pa, pb, pb, pa};
    for (int i = 0; i < 7; i++) {
        graft_node *t = call(g, "Transpose", &operand[i], 1, "perm", i < 5 ? swap : again);
        const graft_type *want = node_type(operand[i]) == a ? b : a;
        ck_assert_ptr_eq(action_type(at, g, t, &why), want);
        ck_assert_ptr_eq(onnx_type_of_fresh(g, t, &why), want);
        ck_assert_uint_eq(why.len, 0);
    }
    graft_node *other = call(g, "Transpose", &pa, 1, "perm", ints(g, (int64_t[]){0, 2, 1}, 3));
    ck_assert_str_eq(action_type(at, g, other, &why)->text, "Tensor[(2, 4, 3), float32]");
    action_types_free(at);
    strbuf_free(&why);
    graph_free(g);
}
END_TEST

static Suite *onnx_infer_memo_suite(void)
{
    Suite *s = suite_create("onnx_infer_memo");
    TCase *tc = tcase_create("memo");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_memo_agrees_on_corpus);
    tcase_add_test(tc, test_memo_keys_attributes);
    tcase_add_test(tc, test_memo_keys_shapes);
    tcase_add_test(tc, test_memo_keys_result_count);
    tcase_add_test(tc, test_memo_skips_constant_values);
    tcase_add_test(tc, test_memo_skips_contradictions);
    tcase_add_test(tc, test_plain_calls);
    tcase_add_test(tc, test_plain_calls_two_a_slot);
    tcase_add_test(tc, test_memo_keys_colliding_types);
    tcase_add_test(tc, test_action_types_by_address);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(onnx_infer_memo_suite());
}
