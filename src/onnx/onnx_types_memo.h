/* onnx_types_memo.h - the types ONNX's inference gave a graph's calls,
 * by everything that inference reads of a call (note [inference memo] in
 * onnx_types_memo.c). */
#ifndef GRAFT_ONNX_TYPES_MEMO_H
#define GRAFT_ONNX_TYPES_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"

/* Words of the longest key: a call of 6 operands and 6 attributes of 10
 * ints each (81) fits; a longer one is inferred each time. */
enum { TYPE_KEY_WORDS = 96 };

/* What inference reads of one call, as words, and the memo of its
 * graph. */
typedef struct TypeKey {
    uint64_t words[TYPE_KEY_WORDS];
    size_t len;
    struct TypeMemo *memo;
} TypeKey;

/* Call n's key (nout results, a tuple of them when tuple) in g's memo
 * (made on first use; freed with g) into *key;
 * false when n has more than a key holds or attributes of a kind it does
 * not (tensors, subgraphs, opaque or nested values: Constant, If, Loop,
 * Scan). */
bool type_key_of(graft_graph *g, const graft_node *n, int nout, bool tuple, TypeKey *key);
/* Whether key's memo holds it; then the type remembered in *type. */
bool type_memo_find(const TypeKey *key, const graft_type **type);
/* Remembers type for key in its memo. */
void type_memo_put(const TypeKey *key, const graft_type *type);
/* The keys g's memo holds (tests). */
size_t type_memo_size(const graft_graph *g);

#endif
