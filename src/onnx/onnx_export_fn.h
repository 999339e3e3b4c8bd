/* onnx_export_fn.h - what the two files of partitions' functions share:
 * onnx_export_fn.c, which makes a function's FunctionProto, and
 * onnx_export_fnkey.c, which finds a function made before by its body's
 * key (note [function keys]). */
#ifndef GRAFT_ONNX_EXPORT_FN_H
#define GRAFT_ONNX_EXPORT_FN_H

#include "onnx_export_impl.h"

/* How many values call n writes (its outputs, up to the last element
 * read), and in *tuple whether they are read by element.  Inline: a
 * function's key asks it of each call of the body (a third of its 20
 * instructions were the call's, bench/workload.sh). */
static inline int export_fn_results(const graft_node *n, bool *tuple)
{
    int count = node_noutputs(n);
    *tuple = count > 1;
    for (int k = node_user_first(n); k < node_user_end(n); k = node_user_next(n, k)) {
        const graft_node *user = node_user(n, k);
        if (node_kind(user) == NODE_GETITEM && !node_is_dead(user)) {
            *tuple = true;
            count = node_index(user) >= count ? node_index(user) + 1 : count;
        }
    }
    return count;
}

/* The function made before for a body whose key equals function fn's, or
 * NULL; then, when fn has a key, the next export_key_function files it. */
Onnx__FunctionProto *export_keyed_function(Exporter *ex, const graft_node *fn);
/* Files the key export_keyed_function last made, if any, under f: the
 * FunctionProto of that body (note [function keys]). */
void export_key_function(Exporter *ex, Onnx__FunctionProto *f);
void export_function_keys_free(Exporter *ex);

/* For tests/check_onnx_fnkey.c, per thread: false makes every function
 * through the general path, for comparing the bytes; the count of calls
 * whose function a key found, and of those whose body fitted the last
 * key's shape (note [body shapes] in onnx_export_fnkey.c). */
extern _Thread_local bool export_function_keys_on;
extern _Thread_local unsigned long export_function_key_hits;
extern _Thread_local unsigned long export_function_shape_hits;

#endif
