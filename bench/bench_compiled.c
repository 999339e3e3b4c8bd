/* bench_compiled.c - the rule-count measurement for a compiled rule set.
 *
 * bench/run.sh writes a rule set with graft-bench rules N, compiles it
 * with `graft compile --name bench_rules`, and links this file, the
 * generated C and graft-bench's measuring code into one program per N:
 *
 *   graft-bench-compiled NOPS N      prints one "compiled ..." line
 *
 * The same measurement as the interpreted rows (bench_rulescale), on the
 * tables and functions graft compile emitted.
 */
#include <stdlib.h>

#include "bench.h"
#include "bench_run.h"

extern const RuleSet bench_rules;

int main(int argc, char **argv)
{
    ModelKit kit;
    const char *corpus = getenv("GRAFT_BENCH_CORPUS");
    const char *blocks = getenv("GRAFT_BENCH_BLOCKS");
    if (argc != 3) {
        fputs("usage: graft-bench-compiled NOPS NRULES\n", stderr);
        return 2;
    }
    if (!model_kit_load(&kit, corpus, blocks ? blocks : "bench/blocks"))
        return 1;
    int rc = bench_compiled(&kit, strtoull(argv[1], NULL, 10), &bench_rules,
                            (uint32_t)strtoul(argv[2], NULL, 10));
    model_kit_free(&kit);
    return rc;
}
