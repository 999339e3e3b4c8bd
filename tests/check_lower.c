/* check_lower.c - Check tests of lowering rules to the runtime's tables:
 * equal node tests and equal sub-patterns shared, by their keys (note
 * [binary keys] in src/compiler/lower_pattern.c). */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "frontend.h"
#include "lower.h"
#include "check_main.h"

static Lowered *lowered(const char *rules)
{
    graft_diag *d = diag_new(stderr);
    RuleFile *rf = frontend_load_string("t.graft", rules, NULL, d);
    ck_assert_ptr_nonnull(rf);
    Lowered *lw = lower_rules(rf, d);
    rulefile_free(rf);
    diag_free(d);
    ck_assert_ptr_nonnull(lw);
    return lw;
}

static uint32_t count_kind(const graft_rule_set *rs, graft_item_kind kind)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < rs->nitems; i++)
        n += rs->items[i].kind == kind;
    return n;
}

/* Three rules over add(_, 1), add(_, 1) and add(_, 2): two value tests,
 * the leaves x, y and z one item, the two adds of 1 one item. */
START_TEST(equal_patterns_shared)
{
    Lowered *lw = lowered("a := nn.relu(add(x, 1)) => x\n"
                          "b := sigmoid(add(y, 1)) => y\n"
                          "c := tanh(add(z, 2)) => z\n");
    const graft_rule_set *rs = &lw->rs;
    ck_assert_uint_eq(rs->npreds, 2);
    ck_assert_int_eq(rs->preds[0].kind, GRAFT_PRED_VALUE);
    ck_assert(rs->preds[0].f == 1.0 && rs->preds[1].f == 2.0);
    ck_assert_uint_eq(count_kind(rs, GRAFT_PITEM_ANY), 3); /* x; x:1; x:2 */
    ck_assert_uint_eq(count_kind(rs, GRAFT_PITEM_OP), 5);  /* 2 adds, 3 roots */
    ck_assert_uint_eq(rs->nitems, 8);
    lower_free(lw);
}
END_TEST

/* An attribute test is its op, name, value and default: groups=1 twice
 * is one test, groups=2 another, and each conv2d item its own. */
START_TEST(attribute_tests_shared)
{
    Lowered *lw = lowered("a := nn.relu(nn.conv2d(x, _, groups=1)) => x\n"
                          "b := sigmoid(nn.conv2d(x, _, groups=1)) => x\n"
                          "c := tanh(nn.conv2d(x, _, groups=2)) => x\n");
    const graft_rule_set *rs = &lw->rs;
    ck_assert_uint_eq(rs->npreds, 2);
    ck_assert_int_eq(rs->preds[0].kind, GRAFT_PRED_ATTR);
    ck_assert_str_eq(rs->preds[0].s, "groups");
    ck_assert_str_eq(rs->preds[0].key, "1");
    ck_assert_str_eq(rs->preds[1].key, "2");
    ck_assert_str_eq(rs->preds[0].dflt, rs->preds[1].dflt);
    ck_assert_uint_eq(count_kind(rs, GRAFT_PITEM_OP), 5); /* 2 conv2ds, 3 roots */
    lower_free(lw);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lower");
    TCase *tc = tcase_create("keys");
    tcase_add_test(tc, equal_patterns_shared);
    tcase_add_test(tc, attribute_tests_shared);
    suite_add_tcase(s, tc);
    return check_run_suite(s);
}
