/* onnx_node_test.h - running one node test of ONNX's test data through
 * graft's evaluator kernels (check_onnx_ops.c), and the skip list. */
#ifndef GRAFT_ONNX_NODE_TEST_H
#define GRAFT_ONNX_NODE_TEST_H

#include "util.h"

typedef enum NodeTestStatus {
    NODE_TEST_NOT_COVERED, /* no single default-domain node, or its op has no kernel */
    NODE_TEST_PASSED,
    NODE_TEST_FAILED,
} NodeTestStatus;

typedef struct NodeTestResult {
    NodeTestStatus status;
    char *op;     /* the node's op_type, or NULL (NOT_COVERED) */
    StrBuf why;   /* FAILED: what differed */
} NodeTestResult;

/* Runs test name under dir: the kernel's outputs against the expected
 * ones, and the op's shape and type inference against their types. */
NodeTestResult onnx_node_test_run(const char *dir, const char *name);
void onnx_node_test_result_free(NodeTestResult *r);
/* strcmp on two char * array items, for qsort. */
int onnx_node_test_cmp_names(const void *a, const void *b);

/* tests/onnx/node_skips.txt: "test_name  reason", one a line; '#'
 * starts a comment line. */
typedef struct SkipList {
    int n;
    char **names;
    char **reasons;
    bool *seen;
} SkipList;

SkipList onnx_node_skips_read(const char *srcdir);
/* The reason test name is listed, or NULL. */
const char *onnx_node_skips_find(const SkipList *s, const char *name);
void onnx_node_skips_seen(SkipList *s, const char *name);
/* Prints each listed name that was not seen; their count. */
int onnx_node_skips_unseen(const SkipList *s);
void onnx_node_skips_free(SkipList *s);

#endif
