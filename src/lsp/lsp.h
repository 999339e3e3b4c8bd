/* lsp.h - graft lsp: a Language Server Protocol server for rule files.
 *
 *   LspOptions o = {.limits = limit_defaults, .debounce = true};
 *   return lsp_serve(stdin, stdout, &o);
 *
 * It speaks JSON-RPC 2.0 framed by Content-Length headers (lsp_io.h) and
 * keeps every open .graft document in memory (full-document sync).  After
 * each change it loads the document with the front end (frontend.h) and
 * publishes the checker's errors, warnings and notes as diagnostics.  Bad
 * input of any kind gets an error response; nothing ends the server but
 * "exit" or the end of its input.
 */
#ifndef GRAFT_LSP_H
#define GRAFT_LSP_H

#include <stdbool.h>
#include <stdio.h>

#include "limit.h"

typedef struct LspOptions {
    graft_limits limits; /* for each load, as graft check has them */
    bool debounce;       /* check only when no further message is waiting
                            on the input (note [debounce]); false: after
                            every change (tests, benchmarks) */
} LspOptions;

/* Serves until "exit" or the end of in.  Returns the exit status: 0 after
 * shutdown then exit, 1 when the input ended or exit came without
 * shutdown (the protocol's rule). */
int lsp_serve(FILE *in, FILE *out, const LspOptions *opts);

#endif
