/* bench.h - the benchmark program (graft-bench): generated models and rule
 * sets at scale, the two baselines, and the measurements.
 *
 * note [bench units]: "per node" always means per op-call node of the
 * generated model (the N of "10^6 nodes"); parameters, constants, tuples and
 * element accesses ride along.  Times are the process's CPU time
 * (CLOCK_PROCESS_CPUTIME_ID: the program is single-threaded, and CPU time
 * leaves out the time other processes on a shared machine hold the core);
 * a phase that runs in well under 0.3 s is repeated and the fastest run
 * kept.  Each graph size runs in a fresh process, so the peak resident
 * memory belongs to that size alone.
 *
 * Nothing here is part of libgraft: the benchmark uses only the public
 * headers of the layers it measures.
 */
#ifndef GRAFT_BENCH_H
#define GRAFT_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "graph.h"
#include "ruleset.h"
#include "util.h"

/* ---- measurement (bench_measure.c) ---- */

/* CPU seconds of this process. */
double bench_now(void);
/* Peak resident set of this process so far, in bytes (VmHWM). */
size_t bench_peak_rss(void);
/* Resets the peak to the current resident set (Linux clear_refs); false
 * when the kernel does not allow it. */
bool bench_reset_peak_rss(void);
/* One line naming the machine: CPU model, cores, memory, kernel. */
void bench_machine(StrBuf *out);

/* ---- the end-to-end workload (bench_e2e.c) ---- */

/* Writes the seed's batch norm, k copies side by side (note [side by
 * side]); 0 on success. */
int bench_write_side_by_side(uint64_t k, FILE *out);
/* The same K copies as an ONNX model in ONNX's text syntax (note [side by
 * side, ONNX] in bench_e2e.c). */
int bench_write_side_by_side_onnx(uint64_t k, FILE *out);
/* Runs argv (stdout to /dev/null) and prints its status, CPU time and peak
 * resident set; 0 when it exited 0. */
int bench_spawn(char **argv);
/* Loads the model at path and prints "ops=N nodes=M": its op nodes (note
 * [bench units]) and live nodes; 0 on success. */
int bench_count_ops(const char *path);

/* ---- blocks of real models (bench_block.c) ---- */

/* A piece of a binding's right-hand side: verbatim text or a reference. */
typedef enum PieceKind {
    PIECE_TEXT,  /* text verbatim */
    PIECE_INPUT, /* the block's input (the value flowing along the chain) */
    PIECE_TEMP,  /* an earlier binding of the same block: index */
    PIECE_PARAM, /* a parameter of the block: index into Block.params */
} PieceKind;

typedef struct Piece {
    PieceKind kind;   /* what the piece is */
    size_t off;       /* PIECE_TEXT: offset of the bytes in Block.text */
    size_t len;       /* PIECE_TEXT: their count */
    uint32_t index;   /* PIECE_TEMP, PIECE_PARAM: which */
} Piece;

/* One "%N = RHS;" line of a block, RHS split into pieces. */
typedef struct BlockLine {
    Piece *pieces;     /* the right-hand side */
    uint32_t npieces;  /* entries in pieces */
    bool is_op;        /* RHS is an op call (counts as an op node) */
} BlockLine;

/* A parameter a block reads: name and declaration as in the source. */
typedef struct BlockParam {
    char *name;  /* without '%' */
    char *decl;  /* the rest of the declaration (": Tensor[...] / * ty=... * /"),
                    possibly empty */
} BlockParam;

/* A stretch of a real model whose input and output have the same type, so
 * copies can be chained: each copy reads the previous copy's output. */
typedef struct Block {
    char *name;          /* "resnet18.simplified.relay %13.." */
    char *input_decl;    /* type declaration for a chain input (": Tensor[...]"),
                            possibly empty */
    BlockLine *lines;    /* bindings, in order; the last is the output */
    uint32_t nlines;     /* entries in lines */
    BlockParam *params;  /* parameters, in order of first use */
    uint32_t nparams;    /* entries in params */
    uint32_t nops;       /* op-call lines */
    char *text;          /* the verbatim text of all PIECE_TEXT pieces */
} Block;

/* Where a block comes from: a model file, the value that enters it, and
 * the range of temps %first..%last that form it (last = -1: to the end of
 * the body, whose final expression becomes one more binding). */
typedef struct BlockSpec {
    const char *file;   /* file name, relative to the directory searched */
    const char *input;  /* "%13" or "%x" */
    int first;          /* first temp of the block */
    int last;           /* last temp, or -1 for the rest of the body */
    int chain;          /* which chain of the generated model it joins */
} BlockSpec;

/* Cuts the block spec out of the model text.  On bad text prints
 * "bench: LABEL: reason" and returns false (b then holds nothing). */
bool block_extract(Block *b, const BlockSpec *spec, const char *text, const char *label);
void block_free(Block *b);
/* Writes the block as a stand-alone model (its input a parameter named
 * %input): the bundled copies in bench/blocks/ are made this way. */
void block_write_model(const Block *b, FILE *out);
/* "" before a declaration ": T" (or none), " " before a bare comment. */
const char *block_decl_sep(const char *decl);

/* ---- the generated model (bench_model.c) ---- */

enum { MODEL_MAX_BLOCKS = 8, MODEL_MAX_CHAINS = 4 };

/* The blocks a model is made of and how they chain. */
typedef struct ModelKit {
    Block blocks[MODEL_MAX_BLOCKS]; /* the blocks */
    int chain[MODEL_MAX_BLOCKS];    /* chain of each block */
    int nblocks;                    /* entries used */
    int nchains;                    /* chains (1 + the largest chain) */
    const char *origin;             /* "corpus" or "bundled" */
} ModelKit;

/* Loads the blocks from the model corpus (tests/corpus) when dir holds
 * it, else from the bundled copies under blocks_dir.  False after
 * printing why. */
bool model_kit_load(ModelKit *kit, const char *corpus_dir, const char *blocks_dir);
void model_kit_free(ModelKit *kit);
/* Appends the text of a model with at least nops op nodes: round after
 * round, one copy of each block in turn, each chain's copies in a row;
 * the output is the tuple of the chains' last values.  *ops_out gets the
 * exact op count. */
void model_generate(const ModelKit *kit, uint64_t nops, StrBuf *out, uint64_t *ops_out);
/* A Source over text (taking over its buffer) without a second copy. */
Source *model_source(const char *name, StrBuf *text);
/* A model file loaded, or NULL after its diagnostics on stderr. */
graft_graph *model_file_load(const char *path);
/* g's op nodes (note [bench units]). */
uint32_t model_op_count(const graft_graph *g);

/* ---- generated rule sets (bench_rules.c) ---- */

/* Appends n rules of realistic shape: the standard library's patterns
 * (batch norm folds, conv/dense + bias + activation partitions,
 * algebraic simplifications, layer norm, GELU) with varying ops,
 * constants and attributes.  Rule 0.. are deterministic in n. */
void rules_generate(uint32_t n, StrBuf *out);

/* ---- baselines (bench_baseline.c) ---- */

/* The floor: visits every live node and each of its operands once and
 * returns a checksum so the compiler cannot drop the loop. */
uint64_t baseline_traverse(const graft_graph *g);

/* The straightforward matcher: every rule at every node, recursively, as
 * TVM's DFPatternMatcher and OpenVINO's pattern::Matcher do.  Counts the
 * (rule, node) pairs whose pattern and guard hold. */
uint64_t baseline_match_all(const graft_rule_set *rs, graft_graph *g);

#endif
