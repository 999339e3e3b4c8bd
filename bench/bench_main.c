/* bench_main.c - graft-bench: the benchmark program behind `make bench`.
 *
 *   graft-bench extract CORPUS OUTDIR     write the bundled blocks
 *   graft-bench gen NOPS                  print a generated model
 *   graft-bench rules NRULES              print a generated rule set
 *   graft-bench graph NOPS RULES          one row of the graph-size table
 *   graft-bench rulescale NOPS N...       rows of the rule-count table
 *   graft-bench machine                   the machine's CPU, cores, memory
 *   graft-bench sidebyside K              print K seed batch norms side by side
 *   graft-bench sidebyside-onnx K         the same as an ONNX model (ONNX text)
 *   graft-bench spawn CMD ARGS...         run CMD; print its CPU time and peak RSS
 *   graft-bench ops MODEL                 count a model's op nodes
 *   graft-bench flat MODEL RULES          match on the graph and on its arrays
 *
 * Blocks come from $GRAFT_BENCH_CORPUS (tests/corpus) when it holds
 * them, else from $GRAFT_BENCH_BLOCKS (bench/blocks).  bench/run.sh drives
 * it; see bench/RESULTS.md for what each column means.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_run.h"

static const char usage[] =
    "usage: graft-bench extract CORPUS OUTDIR\n"
    "       graft-bench gen NOPS\n"
    "       graft-bench rules NRULES\n"
    "       graft-bench graph NOPS RULES\n"
    "       graft-bench rulescale NOPS NRULES...\n"
    "       graft-bench machine\n"
    "       graft-bench sidebyside K\n"
    "       graft-bench sidebyside-onnx K\n"
    "       graft-bench spawn CMD ARGS...\n"
    "       graft-bench ops MODEL\n"
    "       graft-bench flat MODEL RULES\n"
    "environment: GRAFT_BENCH_CORPUS (tests/corpus), GRAFT_BENCH_BLOCKS\n"
    "(bundled blocks dir); the corpus wins when it exists.\n";

static uint64_t parse_count(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || !*s || v == 0) {
        fprintf(stderr, "graft-bench: '%s' is not a positive number\n", s);
        exit(2);
    }
    return v;
}

/* graft-bench extract: cut the blocks out of the corpus and write them as
 * stand-alone models, the copies bundled in bench/blocks/. */
static int cmd_extract(const char *corpus, const char *outdir)
{
    static const char *const names[] = {
        "resnet18_simplified_block.relay", "resnet18_block.relay", "seed_bn.relay",
        "encoder_simplified_layer.relay",
    };
    ModelKit kit;
    if (!model_kit_load(&kit, corpus, "/nonexistent") || strcmp(kit.origin, "corpus") != 0) {
        fprintf(stderr, "graft-bench: no corpus at '%s'\n", corpus);
        return 1;
    }
    int rc = 0;
    for (int i = 0; i < kit.nblocks && i < (int)ARRAY_LEN(names); i++) {
        StrBuf path = {0};
        strbuf_printf(&path, "%s/%s", outdir, names[i]);
        FILE *f = fopen(path.data, "w");
        if (f) {
            fprintf(f, "/* tests/corpus/%s on, copied by 'graft-bench extract': the\n"
                       "   benchmark's block when tests/corpus is missing. */\n",
                    kit.blocks[i].name);
            block_write_model(&kit.blocks[i], f);
        }
        if (!f || fclose(f) != 0) {
            fprintf(stderr, "graft-bench: cannot write '%s'\n", path.data);
            rc = 1;
        }
        strbuf_free(&path);
    }
    model_kit_free(&kit);
    return rc;
}

static bool load_kit(ModelKit *kit)
{
    const char *corpus = getenv("GRAFT_BENCH_CORPUS");
    const char *blocks = getenv("GRAFT_BENCH_BLOCKS");
    return model_kit_load(kit, corpus, blocks ? blocks : "bench/blocks");
}

static int cmd_gen(uint64_t nops)
{
    ModelKit kit;
    if (!load_kit(&kit))
        return 1;
    StrBuf text = {0};
    uint64_t ops;
    model_generate(&kit, nops, &text, &ops);
    fwrite(text.data, 1, text.len, stdout);
    strbuf_free(&text);
    model_kit_free(&kit);
    return 0;
}

static int cmd_rules(uint64_t n)
{
    StrBuf text = {0};
    rules_generate((uint32_t)n, &text);
    fputs(text.data ? text.data : "", stdout);
    strbuf_free(&text);
    return 0;
}

/* graft-bench graph and rulescale: both measure generated models. */
static int cmd_measure(const char *cmd, int argc, char **argv)
{
    ModelKit kit;
    if (!load_kit(&kit))
        return 1;
    int rc = strcmp(cmd, "graph") == 0 ? bench_graph(&kit, parse_count(argv[2]), argv[3])
                                       : bench_rulescale(&kit, parse_count(argv[2]), argv + 3,
                                                         argc - 3);
    model_kit_free(&kit);
    return rc;
}

static int cmd_machine(void)
{
    StrBuf sb = {0};
    bench_machine(&sb);
    puts(sb.data);
    strbuf_free(&sb);
    return 0;
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    if (strcmp(cmd, "extract") == 0 && argc == 4)
        return cmd_extract(argv[2], argv[3]);
    if (strcmp(cmd, "gen") == 0 && argc == 3)
        return cmd_gen(parse_count(argv[2]));
    if (strcmp(cmd, "machine") == 0 && argc == 2)
        return cmd_machine();
    if (strcmp(cmd, "rules") == 0 && argc == 3)
        return cmd_rules(parse_count(argv[2]));
    if (strcmp(cmd, "sidebyside") == 0 && argc == 3)
        return bench_write_side_by_side(parse_count(argv[2]), stdout);
    if (strcmp(cmd, "sidebyside-onnx") == 0 && argc == 3)
        return bench_write_side_by_side_onnx(parse_count(argv[2]), stdout);
    if (strcmp(cmd, "ops") == 0 && argc == 3)
        return bench_count_ops(argv[2]);
    if (strcmp(cmd, "flat") == 0 && argc == 4)
        return bench_model_file(argv[2], argv[3]);
    if (strcmp(cmd, "spawn") == 0 && argc >= 3)
        return bench_spawn(argv + 2);
    if ((strcmp(cmd, "graph") == 0 && argc == 4) || (strcmp(cmd, "rulescale") == 0 && argc >= 4))
        return cmd_measure(cmd, argc, argv);
    fputs(usage, stderr);
    return 2;
}
