/* api_impl.h - what the graft_api.h handles hold (src/api). */
#ifndef GRAFT_API_IMPL_H
#define GRAFT_API_IMPL_H

#include "graft_api.h"

#include "engine.h"
#include "frontend.h"
#include "lower.h"

/* A rule set loaded at run time: the checked rules, kept for their
 * sources and flags (graft_rules_verify), and their lowered tables. */
struct graft_rules {
    RuleFile *rf;
    Lowered *lw;
};

/* Whether r's rules are for g's IR (ONNX rules start with "opset onnx
 * N"); false after reporting through d. */
bool api_rules_fit(const graft_rules *r, const graft_graph *g, graft_diag *d);

/* EngineOptions from the public run options (NULL: the defaults). */
EngineOptions api_engine_options(const graft_run_options *opts);

#endif
