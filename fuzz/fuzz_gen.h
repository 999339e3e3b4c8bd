/* fuzz_gen.h - a grammar-aware generator of rule files and models.
 *
 * The whole-pipeline harness (fuzz_pipeline.c) and the differential run
 * (fuzz/differential.sh, through fuzz_gen_main.c) turn fuzzer bytes into
 * a well-formed case: a small model in Relay text (params, op calls with
 * the registry's arities, constants, tuples, element access) and a rule
 * file of a few rules built from the language's constructs (calls, infix
 * ops, alternatives, optional and repeated ops, constraints, guards,
 * flags, rewrite and partition actions).  Well-formed input reaches the
 * engine; byte-level fuzzing of the front ends is fuzz_relay and
 * fuzz_rules' job.  The same bytes always give the same case.
 */
#ifndef GRAFT_FUZZ_GEN_H
#define GRAFT_FUZZ_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* A cursor over the fuzzer's bytes; reads past the end give 0. */
typedef struct FuzzBytes {
    const uint8_t *data; /* the input */
    size_t size;         /* bytes in data */
    size_t pos;          /* next byte to read */
} FuzzBytes;

/* A number in [0, n) taken from the next byte (n <= 256). */
unsigned fuzz_pick(FuzzBytes *in, unsigned n);

/* Appends a model ("def @main(...) { ... }") to out. */
void fuzz_gen_model(FuzzBytes *in, StrBuf *out);
/* Appends a rule file of 1 to 4 rules to out. */
void fuzz_gen_rules(FuzzBytes *in, StrBuf *out);

#endif
