/* bench_model.c - models of any size made of copies of real blocks.
 *
 * note [bench model]: the generated model is several chains; each chain
 * carries one tensor type from copy to copy (a ResNet-18 basic block keeps
 * (1, 64, 56, 56), an encoder layer (1, 128, 256)), so every copy reads
 * the previous copy's output exactly as in the source model.  Each copy
 * gets fresh parameters ("%b<copy>_<name>") and fresh temps, as a deeper
 * model of the same architecture would.  The output is the tuple of the
 * chains' last values.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "relay.h"

/* The blocks, from tests/corpus (paths relative to it). */
static const BlockSpec corpus_specs[] = {
    {"resnet18.simplified.relay", "%13", 14, 40, 0},           /* basic block, BN decomposed */
    {"resnet18.relay", "%4", 5, 13, 0},                        /* basic block, nn.batch_norm */
    {"../golden/seed_bn_partition/input.relay", "%x", 0, -1, 0}, /* the seed's batch norm */
    {"encoder.simplified.relay", "%input", 0, 83, 1},          /* encoder layer, LN decomposed */
};

/* The same blocks as bundled stand-alone copies (bench/blocks/), written
 * by "graft-bench extract" from the corpus. */
static const BlockSpec bundled_specs[] = {
    {"resnet18_simplified_block.relay", "%input", 0, -1, 0},
    {"resnet18_block.relay", "%input", 0, -1, 0},
    {"seed_bn.relay", "%input", 0, -1, 0},
    {"encoder_simplified_layer.relay", "%input", 0, -1, 1},
};

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    StrBuf sb = {0};
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        strbuf_append(&sb, buf, n);
    fclose(f);
    if (!sb.data)
        strbuf_putc(&sb, '\0');
    return sb.data;
}

static bool load_specs(ModelKit *kit, const char *dir, const BlockSpec *specs, int n)
{
    for (int i = 0; i < n; i++) {
        StrBuf path = {0};
        strbuf_printf(&path, "%s/%s", dir, specs[i].file);
        char *text = read_text(path.data);
        bool ok = text && block_extract(&kit->blocks[i], &specs[i], text, specs[i].file);
        if (!text)
            fprintf(stderr, "bench: cannot read '%s'\n", path.data);
        free(text);
        strbuf_free(&path);
        if (!ok)
            return false;
        kit->chain[i] = specs[i].chain;
        kit->nblocks = i + 1;
        if (specs[i].chain + 1 > kit->nchains)
            kit->nchains = specs[i].chain + 1;
    }
    return true;
}

static bool exists(const char *dir, const char *file)
{
    StrBuf path = {0};
    strbuf_printf(&path, "%s/%s", dir, file);
    FILE *f = fopen(path.data, "rb");
    strbuf_free(&path);
    if (f)
        fclose(f);
    return f != NULL;
}

bool model_kit_load(ModelKit *kit, const char *corpus_dir, const char *blocks_dir)
{
    memset(kit, 0, sizeof *kit);
    if (corpus_dir && exists(corpus_dir, corpus_specs[0].file)) {
        kit->origin = "corpus";
        if (load_specs(kit, corpus_dir, corpus_specs, (int)ARRAY_LEN(corpus_specs)))
            return true;
    } else {
        kit->origin = "bundled";
        if (load_specs(kit, blocks_dir, bundled_specs, (int)ARRAY_LEN(bundled_specs)))
            return true;
    }
    model_kit_free(kit);
    return false;
}

void model_kit_free(ModelKit *kit)
{
    for (int i = 0; i < kit->nblocks; i++)
        block_free(&kit->blocks[i]);
    kit->nblocks = 0;
}

/* The copies a model of nops op nodes needs: whole rounds over the blocks,
 * stopping after the copy that reaches nops. */
static uint64_t count_copies(const ModelKit *kit, uint64_t nops, uint64_t *ops_out)
{
    uint64_t copies = 0, ops = 0;
    while (ops < nops) {
        ops += kit->blocks[copies % (uint64_t)kit->nblocks].nops;
        copies++;
    }
    *ops_out = ops;
    return copies;
}

/* Appends "%N" (or "%bN_" with prefix true): the generator's hot path, so
 * without printf. */
static void put_ref(StrBuf *out, uint64_t v, bool prefix)
{
    char buf[24], *p = buf + sizeof buf;
    if (prefix)
        *--p = '_';
    do
        *--p = (char)('0' + v % 10);
    while (v /= 10);
    if (prefix)
        *--p = 'b';
    *--p = '%';
    strbuf_append(out, p, (size_t)(buf + sizeof buf - p));
}

static void write_params(const ModelKit *kit, uint64_t copies, StrBuf *out)
{
    strbuf_puts(out, "#[version = \"0.0.5\"]\ndef @main(");
    for (int c = 0; c < kit->nchains; c++) {
        const char *decl = "";
        for (int i = 0; i < kit->nblocks; i++)
            if (kit->chain[i] == c && !decl[0])
                decl = kit->blocks[i].input_decl;
        strbuf_printf(out, "%s%%in%d%s%s", c ? ", " : "", c, block_decl_sep(decl), decl);
    }
    for (uint64_t k = 0; k < copies; k++) {
        const Block *b = &kit->blocks[k % (uint64_t)kit->nblocks];
        for (uint32_t i = 0; i < b->nparams; i++) {
            strbuf_puts(out, ", ");
            put_ref(out, k, true);
            strbuf_puts(out, b->params[i].name);
            strbuf_puts(out, block_decl_sep(b->params[i].decl));
            strbuf_puts(out, b->params[i].decl);
        }
    }
    strbuf_puts(out, ") {\n");
}

/* The value a chain carries: an input parameter or a temp. */
typedef struct ChainValue {
    int64_t temp; /* the temp holding it, or -1 for the chain's input */
} ChainValue;

static void write_value(StrBuf *out, int chain, ChainValue v)
{
    if (v.temp < 0)
        strbuf_printf(out, "%%in%d", chain);
    else
        put_ref(out, (uint64_t)v.temp, false);
}

/* Prints copy k of block b as bindings from temp *next on. */
static void write_copy(const Block *b, uint64_t k, int chain, ChainValue *cur,
                       uint64_t *next, StrBuf *out)
{
    uint64_t base = *next;
    for (uint32_t i = 0; i < b->nlines; i++) {
        const BlockLine *l = &b->lines[i];
        strbuf_puts(out, "  ");
        put_ref(out, base + i, false);
        strbuf_puts(out, " = ");
        for (uint32_t j = 0; j < l->npieces; j++) {
            const Piece *p = &l->pieces[j];
            if (p->kind == PIECE_TEXT)
                strbuf_append(out, b->text + p->off, p->len);
            else if (p->kind == PIECE_INPUT)
                write_value(out, chain, *cur);
            else if (p->kind == PIECE_TEMP)
                put_ref(out, base + p->index, false);
            else {
                put_ref(out, k, true);
                strbuf_puts(out, b->params[p->index].name);
            }
        }
        strbuf_puts(out, ";\n");
    }
    *next = base + b->nlines;
    cur->temp = (int64_t)(*next - 1);
}

void model_generate(const ModelKit *kit, uint64_t nops, StrBuf *out, uint64_t *ops_out)
{
    uint64_t copies = count_copies(kit, nops, ops_out), next = 0;
    ChainValue cur[MODEL_MAX_CHAINS];
    for (int c = 0; c < MODEL_MAX_CHAINS; c++)
        cur[c].temp = -1;
    write_params(kit, copies, out);
    for (uint64_t k = 0; k < copies; k++) {
        int i = (int)(k % (uint64_t)kit->nblocks);
        write_copy(&kit->blocks[i], k, kit->chain[i], &cur[kit->chain[i]], &next, out);
    }
    strbuf_puts(out, kit->nchains > 1 ? "  (" : "  ");
    for (int c = 0; c < kit->nchains; c++) {
        if (c)
            strbuf_puts(out, ", ");
        write_value(out, c, cur[c]);
    }
    strbuf_puts(out, kit->nchains > 1 ? ")\n}\n" : "\n}\n");
}

graft_graph *model_file_load(const char *path)
{
    graft_diag *d = diag_new(stderr);
    Source *src = source_read(path, d);
    graft_graph *g = src ? relay_load(src, d) : NULL;
    source_free(src);
    diag_free(d);
    return g;
}

uint32_t model_op_count(const graft_graph *g)
{
    uint32_t ops = 0;
    for (uint32_t id = 0; id < graph_node_count(g); id++) {
        const graft_node *n = graph_node(g, id);
        ops += n && node_kind(n) == NODE_CALL && node_op(n) != NULL;
    }
    return ops;
}

Source *model_source(const char *name, StrBuf *text)
{
    Source *src = xcalloc(1, sizeof *src);
    size_t cap = 0;
    if (!text->data)
        strbuf_putc(text, '\0');
    src->name = xstrdup(name);
    src->text = text->data;
    src->len = text->len;
    src->line_starts = xgrow_items(src->line_starts, &cap, 1, sizeof *src->line_starts);
    src->line_starts[src->nlines++] = 0;
    for (size_t i = 0; i + 1 < src->len; i++) {
        if (src->text[i] != '\n')
            continue;
        src->line_starts = xgrow_items(src->line_starts, &cap, src->nlines + 1,
                                       sizeof *src->line_starts);
        src->line_starts[src->nlines++] = i + 1;
    }
    memset(text, 0, sizeof *text);
    return src;
}
