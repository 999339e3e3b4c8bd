/* limit.h - graft's resource limits, and setting them at run time.
 *
 * note [limits]: every input that could make graft nest, expand or rewrite
 * without end meets a bound, and every bound is a field of Limits.  The
 * command line starts from limit_defaults, applies the environment
 * variable GRAFT_LIMITS and then each --limit option (both "NAME=N,..."),
 * and hands the result down through the options of each layer
 * (relay_load, FrontendOptions, EngineOptions, diag_set_error_limit); a
 * NULL Limits means limit_defaults.  doc/limits.md has the table with the
 * messages; `graft limits` prints the values in force.
 *
 * Each limit also has a ceiling no setting may pass.  The nesting limits
 * bound recursion (walks over rule trees, macro expansion, the printer's
 * nested functions), so their ceilings keep that recursion well inside an
 * 8 MiB stack, under AddressSanitizer too: tests/limits.sh runs input at
 * each ceiling.
 */
#ifndef GRAFT_LIMIT_H
#define GRAFT_LIMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "graft.h"
#include "util.h"

/* X(field, "name", default, least, ceiling, "what it bounds").  A default
 * of 0 means "automatic" for rewrites and "no limit" for errors. */
#define LIMIT_LIST(X)                                                         \
    X(model_depth, "model-depth", 10000, 100, 1000000,                       \
      "parser stack entries for one model, about 5 per nesting level") \
    X(fn_depth, "fn-depth", 256, 1, 1024,                                    \
      "functions nested inside one another in a model")                      \
    X(rule_depth, "rule-depth", 256, 16, 4096,                               \
      "nesting levels of one pattern, guard or action as written")           \
    X(macro_depth, "macro-depth", 1024, 16, 4096,                            \
      "nesting levels of a pattern after macro expansion")                   \
    X(macro_nesting, "macro-nesting", 32, 1, 1024,                           \
      "macros expanded inside one another")                                  \
    X(macro_nodes, "macro-nodes", 200000, 100, 100000000,                    \
      "nodes of one pattern after macro expansion")                          \
    X(onnx_depth, "onnx-depth", 100, 4, 1024,                                \
      "messages (brackets in its text) nested in one another in an ONNX model") \
    X(include_depth, "include-depth", 64, 1, 4096,                           \
      "rule files included inside one another")                              \
    X(errors, "errors", 20, 0, 1000000,                                      \
      "errors reported before giving up (0: no limit)")                      \
    X(match_steps, "match-steps", 4194304, 1000, 1000000000000,              \
      "steps of one match attempt before it is given up")                    \
    X(rewrites, "rewrites", 0, 1, 1000000000000000,                          \
      "rewrites before giving up (auto: 10 per node plus 1000)")             \
    X(round_factor, "round-factor", 16, 1, 1048576,                          \
      "nodes rewriting rounds look at, per (nodes + rewrites)")              \
    X(viz_marks, "viz-marks", 1000000, 0, 1000000000,                        \
      "(match, node) pairs one graft viz drawing highlights")                \
    X(eval_elements, "eval-elements", 16777216, 1, 1000000000000,           \
      "elements of one tensor graft verify and run --verify evaluate") \
    X(fold_elements, "fold-elements", 16777216, 1, 1000000000000,           \
      "elements of one tensor a fold(...) or run --fold-constants makes")

struct graft_limits {
#define LIMIT_FIELD(field, name, dflt, least, ceiling, what) uint64_t field;
    LIMIT_LIST(LIMIT_FIELD)
#undef LIMIT_FIELD
};

extern const graft_limits limit_defaults;

/* Applies SPEC, "NAME=N" items separated by commas, to lim.  On a bad item
 * returns false, leaves lim unchanged and writes why to why (e.g.
 * "unknown limit 'rule-dept'; did you mean 'rule-depth'?"). */
bool limit_parse(graft_limits *lim, const char *spec, StrBuf *why);

/* The table `graft limits` prints: name, value in force, default, range
 * and what it bounds, one limit a line. */
void limit_print(const graft_limits *lim, FILE *out);

/* lim, or limit_defaults when lim is NULL. */
static inline const graft_limits *limit_or_default(const graft_limits *lim)
{
    return lim ? lim : &limit_defaults;
}

#endif
