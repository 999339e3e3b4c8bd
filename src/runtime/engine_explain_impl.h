/* engine_explain_impl.h - what the parts of graft explain share
 * (engine_explain.c: one rule at one node; engine_explain_guard.c: a
 * guard's values; engine_explain_near.c: near misses and the check
 * against match). */
#ifndef GRAFT_ENGINE_EXPLAIN_IMPL_H
#define GRAFT_ENGINE_EXPLAIN_IMPL_H

#include "engine_impl.h"

/* A rule file read for its lines, by the name the rules give. */
typedef struct RuleSrc {
    const char *file; /* graft_rule.file */
    Source *src;      /* its text, or NULL when it cannot be read */
} RuleSrc;

struct Explainer {
    graft_engine *e;            /* the driver, borrowed */
    const Source *model;  /* the model's text, or NULL */
    FILE *out;            /* where explanations go */
    graft_diag *diag;           /* notes with excerpts, on out */
    const NodeLabels *names; /* node names (note [node names]): the
                             engine's (EngineOptions.names) or own */
    NodeLabels own;       /* the names made here when the engine has none */
    MatchFailure rec;     /* the matcher's record of the last try */
    VEC(RuleSrc) srcs;    /* rule files read so far */
    StrBuf sb, sb2;       /* scratch */
    const char *where;    /* explainer_in_graph's name, or NULL */
    bool quiet;           /* and whether it leaves an empty list out */
};

/* The rule file of rule, read once; NULL when it cannot be read (a
 * compiled rewriter far from its rules). */
const Source *explain_rule_source(Explainer *x, const graft_rule *rule);
/* "FILE:LINE:COL: note: MESSAGE" with the line and a caret when src is
 * known, else without them. */
void explain_note(Explainer *x, const Source *src, const char *file, SrcRange at,
                  const char *msg);
/* Appends the rule text of part p ("'w:var'"), shortened to one line. */
void explain_put_part(Explainer *x, const graft_rule *rule, const graft_pat *p, StrBuf *out);
/* n's name, without and with its position, in sb (returned). */
const char *explain_label(Explainer *x, const graft_node *n, StrBuf *sb);
const char *explain_label_at(Explainer *x, const graft_node *n, StrBuf *sb);

/* A note at pattern part p of rule, at node n of the model. */
void explain_rule_note(Explainer *x, const graft_rule *rule, const graft_pat *p, const char *msg);
void explain_model_note(Explainer *x, const graft_node *n, const char *msg);

/* engine_explain_roots.c: for a rule of several roots, the node each
 * root matched (after a match), and which root or shared binding failed
 * (after a failure; nothing for a rule of one root). */
void explain_roots_matched(Explainer *x, const graft_rule *rule);
void explain_roots_failed(Explainer *x, const graft_rule *rule, const MatchFailure *f);

/* engine_explain_guard.c: the guard's place in the rule file, and the
 * note with every condition's values for a guard that refused. */
SrcRange explain_guard_range(Explainer *x, const graft_rule *rule);
void explain_guard(Explainer *x, const graft_rule *rule, const MatchFailure *f);

#endif
