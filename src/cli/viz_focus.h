/* viz_focus.h - graft viz --at NODE [--radius K] [--explain [--rule NAME]]:
 * draw only a node's neighbourhood, and colour what each rule's pattern
 * matched there and the node where it failed (graft explain's analysis). */
#ifndef GRAFT_VIZ_FOCUS_H
#define GRAFT_VIZ_FOCUS_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "graph.h"
#include "limit.h"
#include "ruleset.h"
#include "viz_rules.h"

typedef struct VizFocus {
    const char *at;    /* --at NODE, or NULL: the whole model */
    uint32_t radius;   /* --radius K: edges from NODE (default 2) */
    bool explain;      /* --explain: colour the rules' tries at NODE */
    const char *rule;  /* --rule NAME: only this rule's */
} VizFocus;

/* argv[*i] when it is one of the options above: -1 taken, an exit
 * status, or OPTION_NOT_MINE. */
int viz_focus_option(int argc, char **argv, int *i, VizFocus *f);
/* A usage problem of the options together (--explain without --at), as
 * an exit status, or -1. */
int viz_focus_check(const VizFocus *f, int nrules);

/* The keep mask (per node id) of the nodes within f->radius edges of
 * f->at, operands and users alike; NULL with f->at NULL.  Reports an
 * unknown node through d and returns NULL with *bad set. */
uint8_t *viz_focus_keep(const VizFocus *f, const graft_graph *g, const char *model, bool *bad,
                        graft_diag *d);
/* --explain: adds to vm, per rule (or f->rule), the nodes its try at
 * f->at matched (green, "RULE: matched") and the node it failed at (red,
 * "RULE: fails here").  False after reporting an unknown rule. */
bool viz_focus_explain(const VizFocus *f, const graft_rule_set *rs, graft_graph *g,
                       const char *model, const graft_limits *limits, VizMatches *vm,
                       graft_diag *d);

#endif
