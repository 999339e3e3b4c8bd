/* onnx_types.c - the types of an ONNX graph's calls through ONNX's shape
 * inference (note [onnx inference] in onnx_infer.h): the GraphTypeFn the
 * importer gives its graph (note [IR type relations] in graph.h), so that
 * type inference types what rewrites make too. */
#include "onnx_graph.h"

#include <stdlib.h>
#include <string.h>

#include "onnx_infer.h"
#include "onnx_types_memo.h"

/* What is known of operand a (note [absent operands] in
 * src/runtime/eval_impl.h: an empty tuple is a left-out input). */
static OnnxType operand_type(const graft_node *a)
{
    OnnxType t = {.rank = -1};
    const graft_type *gt = node_type(a);
    if (node_kind(a) == NODE_TUPLE && node_nargs(a) == 0)
        t.absent = true;
    else if (gt && gt->kind == TYPE_TENSOR && gt->rank <= ONNX_MAX_RANK) {
        t.dtype = gt->dtype;
        t.rank = gt->rank;
        memcpy(t.dims, gt->dims, (size_t)gt->rank * sizeof(int64_t));
        t.source = a; /* its values read only if asked (note [values on demand]) */
    }
    return t;
}

/* note [shared types]: an output of an operand's dtype and dims (the
 * element-wise ops, most of a model) takes that operand's type, not a
 * new one of its own (bench/onnx_e2e.sh: a new type's text and copy
 * cost 2,700 instructions per node): graph_type_tensor gives the one
 * type of a dtype and dims (note [canonical tensor types] in
 * src/ir/graph_type.c), which the operand has.  A type is never changed
 * once made, so one type may stand for many values.  (Until session 28
 * the operands' types were compared here first.) */

/* An output of n as a graft type: NULL unless its dtype and rank are
 * known. */
static const graft_type *output_type(graft_graph *g, const OnnxType *t)
{
    if (!t->dtype || t->rank < 0)
        return NULL;
    return graph_type_tensor(g, t->dtype, t->dims, t->rank);
}

/* The results a call has: those the model named, or for a call a rewrite
 * made that is read by element, up to the last element read; *tuple:
 * whether its value is a tuple of them (note [several results]). */
static int result_count(const graft_node *n, bool *tuple)
{
    int count = node_noutputs(n);
    *tuple = count > 1;
    for (int k = node_user_first(n); k < node_user_end(n); k = node_user_next(n, k))
        if (node_kind(node_user(n, k)) == NODE_GETITEM) {
            *tuple = true;
            if (node_index(node_user(n, k)) >= count)
                count = node_index(node_user(n, k)) + 1;
        }
    return count;
}

/* Inference's arrays for a call of up to FEW inputs and outputs live on
 * the stack (a calloc of each per node cost 1,000 instructions); one more
 * than used is zeroed, as an op's inference may look at in[0] or write
 * out[0] of a call with none. */
enum { FEW = 4 };

/* The type of a call from the nout outputs inference found (a tuple of
 * them when tuple). */
static const graft_type *call_type(graft_graph *g, const OnnxType *out, int nout, bool tuple)
{
    const graft_type *few[FEW] = {0};
    const graft_type **fields = nout <= FEW ? few : xcalloc((size_t)nout, sizeof *fields);
    bool known = true;
    for (int i = 0; i < nout; i++)
        known &= (fields[i] = output_type(g, &out[i])) != NULL;
    const graft_type *t = !tuple ? fields[0] : known ? graph_type_tuple(g, fields, nout) : NULL;
    if (fields != few)
        free(fields);
    return t;
}

/* Infers n's type from its operands' (nout results, a tuple when
 * tuple) into *type; false on a contradiction (why says it).
 * *read_values: whether its op read an input's values. */
static bool infer_call(graft_graph *g, const graft_node *n, int nout, bool tuple,
                       const graft_type **type, StrBuf *why, bool *read_values)
{
    int nin = node_nargs(n);
    OnnxType in_few[FEW + 1], out_few[FEW + 1];
    OnnxType *in = nin <= FEW ? in_few : xmalloc(((size_t)nin + 1) * sizeof *in);
    OnnxType *out = nout <= FEW ? out_few : xmalloc(((size_t)nout + 1) * sizeof *out);
    in[nin] = out[nout] = (OnnxType){0};
    for (int i = 0; i < nin; i++)
        in[i] = operand_type(node_arg(n, i));
    bool ok = onnx_infer_reading(n, in, nin, out, nout, why, read_values);
    *type = ok ? call_type(g, out, nout, tuple) : NULL;
    if (in != in_few)
        free(in);
    if (out != out_few)
        free(out);
    return ok;
}

/* onnx_type_of of call n of the default domain, with nout results (a
 * tuple when tuple), through the memo: every typing of a call ends in it.
 * *known: whether the type is the memo's answer for n's key. */
static const graft_type *type_of_default(graft_graph *g, const graft_node *n, int nout,
                                         bool tuple, StrBuf *why, bool *known)
{
    bool read_values;
    const graft_type *t;
    TypeKey key;
    bool keyed = type_key_of(g, n, nout, tuple, &key);
    *known = keyed && type_memo_find(&key, &t);
    if (*known)
        return t;
    if (!onnx_has_infer(node_op(n)))
        return NULL; /* unknown to graft: untyped (only ops inferred are remembered) */
    if (infer_call(g, n, nout, tuple, &t, why, &read_values) && keyed && !read_values) {
        type_memo_put(&key, t);
        *known = true;
    }
    return t;
}

const graft_type *onnx_type_of(graft_graph *g, const graft_node *n, StrBuf *why)
{
    if (!node_op(n) || graph_node_domain(g, n))
        return NULL; /* another domain's op: untyped */
    bool tuple, known;
    int nout = result_count(n, &tuple);
    if (nout == 1 && !tuple)
        return onnx_type_of_plain(g, n, onnx_plain_types(g), why); /* note [plain calls] */
    return type_of_default(g, n, nout, tuple, why, &known);
}

/* note [plain calls]: most calls of a model have no attribute, one or
 * two operands of known tensor types and one result (every one of issue
 * 34's workload's 60,000, of six keys), and the memo's full key of such
 * a call (type_key_of's words, their hash and their comparison) cost the
 * workload's import 284 instructions a call.  So a cache in front of the
 * memo keeps its answers for such calls, keyed by the op and the
 * operands' types by address (an address stands for one dtype and dims
 * while the graph lives: types are never changed), a slot of two
 * entries chosen by their hash (note [one cache slot] in keymap.h), and
 * takes one when the memo gave or took the answer for that key
 * (type_of_default's known): never a type inferred each time (a call
 * whose op read an input's values, note [inference memo]) nor a
 * contradiction.  What it holds is what the memo would answer, so the
 * types are the ones it gives; a call of another shape goes to the memo.
 * The cache is the memo's, one a graph (onnx_plain_types): onnx_type_of
 * asks it for a call of one result, and the import holds it (note [made
 * calls' types] in onnx_import_types.c); the lookup is inline
 * (onnx_type_of_plain in onnx_graph.h), the memo behind a call.  Each of
 * the key's words is mixed on its own (hash_word from 0
 * for the op): the op's address xor-ed raw with its first operand's put
 * four of the six keys of bench/onnx_e2e.sh's model in one slot in some
 * heap layouts (its temporary directory's), so that half the calls
 * missed (9.7 M instructions at 10,000 copies; bench/RESULTS.md, session
 * 27, round 2, branch onnx4); and a slot keeps the last two keys put
 * there, as an address-keyed slot depends on where the allocator put
 * the types (with one key a slot, two of the workload's keys met in one
 * slot in some runs and not in others: the same build's ONNX partition
 * read 325.8 M or 331.3 M instructions as the rule file's path was
 * relative or absolute). */

const graft_type *onnx_type_of_plain_missed(graft_graph *g, const graft_node *n,
                                            OnnxPlainType *pair, StrBuf *why)
{
    bool known;
    const graft_type *type = type_of_default(g, n, 1, false, why, &known);
    if (known && pair) {
        const graft_type *t[2];
        int nargs = onnx_plain_key(n, t);
        cache_pair_put(pair, ((OnnxPlainType){node_op(n), nargs, {t[0], t[1]}, type}));
    }
    return type;
}

const graft_type *onnx_type_of_fresh(graft_graph *g, const graft_node *n, StrBuf *why)
{
    if (!node_op(n) || graph_node_domain(g, n) || !onnx_has_infer(node_op(n)))
        return NULL;
    bool tuple, read_values;
    int nout = result_count(n, &tuple);
    const graft_type *t;
    infer_call(g, n, nout, tuple, &t, why, &read_values);
    return t;
}
