/* check_rule_tables.h - one small rule set written as C tables, as the
 * emitter would write it (no front end): add_zero := x + 0, double :=
 * x + x, relus := nn.relu*(x).  The white-box tests of the automaton
 * (check_engine_automaton.c) and of its compiled states
 * (check_automaton_states.c) run on it. */
#ifndef GRAFT_CHECK_RULE_TABLES_H
#define GRAFT_CHECK_RULE_TABLES_H

#include "graft_rules.h"

/* t0: a scalar constant 0 */
static const graft_pred preds[] = {{.kind = GRAFT_PRED_VALUE, .f = 0}};
static const uint32_t t0[] = {0};
static const uint32_t i0i1[] = {0, 1}, i0i0[] = {0, 0}, i0[] = {0};
/* i0 = any, i1 = any[t0], i2 = add(i0, i1) commutative, i3 = add(i0, i0),
 * i4 = nn.relu*(i0) */
static const graft_item items[] = {
    {.kind = GRAFT_PITEM_ANY},
    {.kind = GRAFT_PITEM_ANY, .npreds = 1, .preds = t0},
    {.kind = GRAFT_PITEM_OP, .op = "add", .commutative = true, .nargs = 2, .args = i0i1},
    {.kind = GRAFT_PITEM_OP, .op = "add", .commutative = true, .nargs = 2, .args = i0i0},
    {.kind = GRAFT_PITEM_STAR, .op = "nn.relu", .nargs = 1, .args = i0},
};
/* add_zero := x + 0 */
static const graft_pat x_leaf = {.kind = GRAFT_PAT_ANY, .item = 0, .slot = 0};
static const graft_pat zero_leaf = {.kind = GRAFT_PAT_ANY, .item = 1, .slot = -1, .embed = true};
static const graft_pat *const add_zero_kids[] = {&x_leaf, &zero_leaf};
static const graft_pat add_zero = {.kind = GRAFT_PAT_OP, .item = 2, .slot = -1, .nkids = 2,
                                 .kids = add_zero_kids};
/* double := x + x */
static const graft_pat *const double_kids[] = {&x_leaf, &x_leaf};
static const graft_pat twice = {.kind = GRAFT_PAT_OP, .item = 3, .slot = -1, .nkids = 2,
                              .kids = double_kids};
/* relus := nn.relu*(x) */
static const graft_pat *const relus_kids[] = {&x_leaf};
static const graft_pat relus = {.kind = GRAFT_PAT_STAR, .item = 4, .slot = -1, .nkids = 1,
                              .kids = relus_kids};
static const char *const x_name[] = {"x"};
static const graft_rule rules[] = {
    {.name = "add_zero", .pattern = &add_zero, .nslots = 1, .slot_names = x_name},
    {.name = "double", .pattern = &twice, .nslots = 1, .slot_names = x_name},
    {.name = "relus", .pattern = &relus, .nslots = 1, .slot_names = x_name},
};
static const graft_rule_set rs = {.name = "test", .nrules = 3, .rules = rules, .nitems = 5,
                           .items = items, .npreds = 1, .preds = preds};

#endif
