/* relay.h - the Relay text format as TVM v0.14 prints it: loading a
 * model into a Graph and printing a Graph back in TVM's canonical form.
 *
 * note [relay nesting limit]: the loader's parser stack holds at most
 * model-depth entries (limit.h, 10,000 by default).  Lists of bindings,
 * arguments and attributes are left-recursive and take constant stack, so
 * only nesting grows it.  Measured at the default: f(f(f(...))) 3,328
 * deep, ((...,),) 4,992, [[[...]]] 4,989, fn () { fn () { ... } } 1,109
 * (the message says "about 2000 levels").  Deeper input gets
 * "expression nested too deeply", not a crash; the graph and the printer
 * never recurse on expression depth (the printer recurses once per nested
 * fn, which the parser bounds).  Chains of bindings (%1 = f(%0);
 * %2 = f(%1); ...) of any length are fine.
 */
#ifndef GRAFT_RELAY_H
#define GRAFT_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "graph.h"
#include "limit.h"

/* Parses a whole model (one "def @NAME(...) { ... }" with optional version
 * line, Prelude type declarations and metadata section).  Reports every
 * problem through d as "file:line:col: error: ..." and returns NULL then;
 * never returns a partial graph. */
graft_graph *relay_load(const Source *src, graft_diag *d);
/* The same within limits (NULL: limit_defaults); only model_depth
 * applies. */
graft_graph *relay_load_limited(const Source *src, const graft_limits *limits, graft_diag *d);
/* The same with a check of the parsed model, run before types are
 * inferred so that a call it refuses is reported as such rather than as
 * the type error it leads to (the command line's registry check, note
 * [models checked like rules] in src/compiler/model_check.h).  fn
 * returns how many errors it reported. */
typedef struct RelayCheck {
    int (*fn)(const graft_graph *g, const Source *src, void *ctx, graft_diag *d);
    void *ctx;
} RelayCheck;
graft_graph *relay_load_checked(const Source *src, const graft_limits *limits,
                                const RelayCheck *check, graft_diag *d);

/* How the loader read a model (note [loading counted] in relay_load.c):
 * its binding lines ("%N = ...;") by hand or by the grammar's tokens,
 * the uses of its defs' parameters found by the guess or by their names,
 * and whether the tokens alone read it. */
typedef struct RelayLoadCounts {
    size_t lines_by_hand;   /* read by relay_read_lines (note [binding lines]) */
    size_t lines_by_tokens; /* left to the grammar */
    size_t params_guessed;  /* uses found by the guess (note [parameters in
                               order] in relay_load_scope.c) */
    size_t params_by_name;  /* found by name: the guess missed them or was
                               not made */
    bool tokens_only;       /* the first attempt was not made or gave up (note
                               [long tokens]): the counts are the second's */
    size_t temps_hinted;    /* the temps' cells reserved from the text's
                               last "%N" (note [sized from the text]); 0
                               when none was there: they grow from empty */
} RelayLoadCounts;
/* relay_load_limited, *counts set when the model loads. */
graft_graph *relay_load_counted(const Source *src, const graft_limits *limits,
                                RelayLoadCounts *counts, graft_diag *d);

/* Writes g in TVM's canonical text form, ending in a newline. */
void relay_print(const graft_graph *g, FILE *out);
/* The same text, malloc'd and NUL-terminated. */
char *relay_print_string(const graft_graph *g);

/* The same with options: RELAY_PRINT_TYPES prints "/ * ty=... * /" on
 * every node of known type (note [printed types] in relay_print_text.c). */
enum { RELAY_PRINT_TYPES = 1u };
void relay_print_with(const graft_graph *g, FILE *out, unsigned flags);
char *relay_print_string_with(const graft_graph *g, unsigned flags);

/* The temp number (%N) the printer gives each node, indexed by node id
 * (malloc'd, graph_node_count entries); UINT32_MAX for nodes printed
 * inline (variables, constants, the body result of a scope) and for nodes
 * not printed.  Variables print as %NAME: see relay_var_name. */
uint32_t *relay_temp_numbers(const graft_graph *g);

#endif
