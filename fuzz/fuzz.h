/* fuzz.h - what the fuzz harnesses share: the libFuzzer entry point and
 * the invariants every harness checks on every input.
 *
 * Each harness (fuzz_relay.c, fuzz_rules.c, fuzz_pipeline.c) defines
 * LLVMFuzzerTestOneInput.  Built with --enable-fuzzing and clang, libFuzzer
 * supplies main(); otherwise fuzz_driver.c does, feeding the harness every
 * file named on the command line (directories: every file inside, in name
 * order), which is how make check runs the seed corpora.
 *
 * A broken invariant is a bug: fuzz_fail prints what broke and aborts, so
 * libFuzzer saves the input and the file-reading driver fails the test.
 */
#ifndef GRAFT_FUZZ_H
#define GRAFT_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "frontend.h"
#include "graph.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Prints "fuzz: invariant broken: ..." and aborts. */
GRAFT_NORETURN void fuzz_fail(const char *fmt, ...) GRAFT_PRINTF(1, 2);

/* Every live node's users list holds exactly its live readers: each
 * operand (and callee) slot of a live node appears once in the users of
 * the node it reads, and every listed use reads back to that node. */
void fuzz_check_users(const graft_graph *g);

/* Diagnostics captured in memory: a Diag that writes into a buffer, so
 * the harness can check every line's form after the fact. */
typedef struct FuzzDiag {
    graft_diag *diag;   /* pass this to the code under test */
    FILE *stream; /* open_memstream stream behind diag */
    char *text;   /* what was written (after fuzz_diag_close) */
    size_t len;   /* bytes in text */
} FuzzDiag;

void fuzz_diag_open(FuzzDiag *fd);
/* Closes the stream; text and len then hold the output. */
void fuzz_diag_close(FuzzDiag *fd);
void fuzz_diag_free(FuzzDiag *fd);

/* Every line of fd's text is a diagnostic headed "NAME:L:C: KIND: " (any
 * file name when name is NULL: included files) or "graft: error: ", or one
 * of the two excerpt lines that follow a located one; when must_error is
 * set, at least one error was reported. */
void fuzz_check_diagnostics(const FuzzDiag *fd, const char *name, int must_error);

/* Front-end options with the builtin op registry (stdpatterns/ops.graft)
 * parsed once per process and shared read-only by every load
 * (FrontendOptions.builtin): reparsing it was most of an execution. */
const FrontendOptions *fuzz_frontend_options(void);

/* Loads text as a model named name; NULL (and diagnostics checked) when it
 * does not load.  A graph that loads is checked: users consistent, and its
 * printed text loads again and prints the same (printing is canonical). */
graft_graph *fuzz_load_model(const char *name, const char *text, size_t len);

/* Loads text that fuzz_load_model has loaded and checked before, without
 * the checks (a harness that runs one model several times checks its text
 * once); fails when it does not load, or loads with a diagnostic. */
graft_graph *fuzz_reload_model(const char *name, const char *text, size_t len);

#endif
