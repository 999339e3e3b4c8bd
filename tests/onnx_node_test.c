/* onnx_node_test.c - one node test of ONNX's test data through graft's
 * kernels (onnx_node_test.h): the model's one node becomes a call of a
 * graph whose parameters are the node's inputs, absent optional inputs
 * empty tuples (note [absent operands] in src/runtime/eval_impl.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "dtype.h"
#include "eval.h"
#include "graph.h"
#include "limit.h"
#include "onnx_infer.h"
#include "onnx_model.h"
#include "onnx_node_test.h"
#include "check_files.h"

/* Stores v, esize bytes little-endian, at p. */
static void put_le(uint8_t *p, uint64_t v, size_t esize)
{
    for (size_t i = 0; i < esize; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* The tensor's elements as raw little-endian bytes (malloc'd, *n bytes):
 * raw_data as it is, else the typed field onnx.proto puts them in. */
static uint8_t *tensor_raw(const Onnx__TensorProto *t, size_t esize, size_t count, size_t *n)
{
    uint8_t *raw = xcalloc(count * esize + 1, 1);
    *n = count * esize;
    if (t->has_raw_data) {
        *n = t->raw_data.len;
        raw = xrealloc(raw, *n + 1);
        if (*n) /* an empty tensor's raw_data may be NULL */
            memcpy(raw, t->raw_data.data, *n);
    } else if (count && t->n_float_data == count && esize == 4) {
        memcpy(raw, t->float_data, *n);
    } else if (count && t->n_double_data == count && esize == 8) {
        memcpy(raw, t->double_data, *n);
    } else if (t->n_int64_data == count) {
        for (size_t i = 0; i < count; i++)
            put_le(raw + i * esize, (uint64_t)t->int64_data[i], esize);
    } else if (t->n_uint64_data == count) {
        for (size_t i = 0; i < count; i++)
            put_le(raw + i * esize, t->uint64_data[i], esize);
    } else if (t->n_int32_data == count) {
        for (size_t i = 0; i < count; i++)
            put_le(raw + i * esize, (uint64_t)(int64_t)t->int32_data[i], esize);
    } else if (count) {
        *n = 0; /* no field holds count elements */
    }
    return raw;
}

/* The dtype of t's elements: its data_type, except that ONNX's test data
 * stores bfloat16 values as their uint16 bit patterns (numpy has no
 * bfloat16; onnx/backend/test/case/node/cast.py), which the value's
 * declared type (declared, 0 when none) tells. */
static DType elem_dtype(const Onnx__TensorProto *t, int32_t declared)
{
    if (declared == DTYPE_BFLOAT16 && t->data_type == DTYPE_UINT16)
        return DTYPE_BFLOAT16;
    return (DType)t->data_type;
}

/* The graph type of t and its raw bytes; false for a dtype graft does not
 * evaluate (strings, complex) or a size that does not fit. */
static bool tensor_type_raw(graft_graph *g, const Onnx__TensorProto *t, int32_t declared,
                            const graft_type **type, uint8_t **raw, size_t *nraw)
{
    DType dt = elem_dtype(t, declared);
    const char *dtype = eval_dtype(dtype_name(dt));
    if (!dtype || t->n_dims > EVAL_MAX_RANK)
        return false;
    size_t count = 1;
    for (size_t i = 0; i < t->n_dims; i++) {
        if (t->dims[i] < 0 || t->dims[i] > (1 << 24) || count * (size_t)t->dims[i] > (1u << 26))
            return false; /* no TensorProto of a node test (an optional's, a sequence's) */
        count *= (size_t)t->dims[i];
    }
    size_t esize = dtype_size(dt);
    *raw = tensor_raw(t, esize, count, nraw);
    *type = graph_type_tensor(g, dtype, t->dims, (int)t->n_dims);
    if (*nraw != count * esize) {
        free(*raw);
        return false;
    }
    return true;
}

/* A TensorProto as an evaluator tensor; false as tensor_type_raw. */
static bool tensor_from_proto(graft_graph *g, const Onnx__TensorProto *t, int32_t declared,
                              Tensor *out)
{
    const graft_type *type;
    uint8_t *raw;
    size_t nraw;
    if (!tensor_type_raw(g, t, declared, &type, &raw, &nraw))
        return false;
    *out = tensor_new(eval_dtype(type->dtype), type->rank, type->dims);
    int esize = (int)dtype_size(elem_dtype(t, declared));
    for (size_t i = 0; i < out->size; i++)
        out->data[i] = eval_raw_element(raw + i * (size_t)esize, out->dtype, esize);
    free(raw);
    return true;
}

/* The element type a graph input or output declares, 0 when none. */
static int32_t declared_dtype(const Onnx__ValueInfoProto *v)
{
    const Onnx__TypeProto *t = v->type;
    bool tensor = t && t->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    return tensor && t->tensor_type->has_elem_type ? t->tensor_type->elem_type : 0;
}

/* The tensor in a .pb file; false when it cannot be read or evaluated. */
static bool read_tensor(graft_graph *g, const char *path, int32_t declared, Tensor *out)
{
    size_t len;
    uint8_t *bytes = read_file(path, &len);
    Onnx__TensorProto *t = bytes ? onnx__tensor_proto__unpack(NULL, len, bytes) : NULL;
    bool ok = t && tensor_from_proto(g, t, declared, out);
    if (t)
        onnx__tensor_proto__free_unpacked(t, NULL);
    free(bytes);
    return ok;
}

/* A list attribute of n items, ints or floats. */
static graft_attr_value *list_attr(graft_graph *g, const int64_t *ints, const float *floats,
                                   size_t n)
{
    graft_attr_value *v = graph_new_attr_value(g, GRAFT_ATTR_LIST);
    const graft_attr_value **items = xcalloc(n + 1, sizeof *items);
    graph_own(g, items);
    for (size_t i = 0; i < n; i++) {
        graft_attr_value *item = graph_new_attr_value(g, ints ? GRAFT_ATTR_INT : GRAFT_ATTR_FLOAT);
        if (ints)
            item->i = ints[i];
        else
            item->f = floats[i];
        items[i] = item;
    }
    v->nitems = (int)n;
    v->items = items;
    return v;
}

/* An attribute as graft holds it, or NULL for a kind the kernels never
 * read (sparse tensors, type protos, strings lists); a graph as the
 * import keeps it, its encoding (note [control bodies] in
 * src/onnx/onnx_control.h). */
static const graft_attr_value *attr_from_proto(graft_graph *g, const Onnx__AttributeProto *a)
{
    graft_attr_value *v = NULL;
    switch (a->type) {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
        v = graph_new_attr_value(g, GRAFT_ATTR_FLOAT);
        v->f = a->f;
        return v;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
        v = graph_new_attr_value(g, GRAFT_ATTR_INT);
        v->i = a->i;
        return v;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
        v = graph_new_attr_value(g, GRAFT_ATTR_STRING);
        v->s = graph_intern_n(g, (const char *)a->s.data, a->s.len);
        return v;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
        return list_attr(g, a->ints, NULL, a->n_ints);
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
        return list_attr(g, NULL, a->floats, a->n_floats);
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR: {
        uint8_t *raw;
        size_t nraw;
        const graft_type *type;
        if (!a->t || !tensor_type_raw(g, a->t, 0, &type, &raw, &nraw))
            return NULL;
        graph_own(g, raw);
        v = graph_new_attr_value(g, GRAFT_ATTR_TENSOR);
        v->type = type;
        v->data = raw;
        v->nbytes = nraw;
        return v;
    }
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH: {
        if (!a->g)
            return NULL;
        v = graph_new_attr_value(g, GRAFT_ATTR_GRAPH);
        v->nbytes = onnx__graph_proto__get_packed_size(a->g);
        uint8_t *bytes = xmalloc(v->nbytes + 1);
        graph_own(g, bytes);
        onnx__graph_proto__pack(a->g, bytes);
        v->data = bytes;
        return v;
    }
    default:
        return NULL;
    }
}

/* The call of node's op in g, its operands g's parameters (empty tuples
 * for absent inputs). */
static graft_node *node_call(graft_graph *g, const Onnx__NodeProto *node)
{
    graft_node **args = xcalloc(node->n_input + 1, sizeof *args);
    for (size_t i = 0; i < node->n_input; i++)
        args[i] = node->input[i][0] ? graph_add_param(g, node->input[i], NULL)
                                    : graph_add_tuple(g, NULL, 0);
    graft_attr *attrs = xcalloc(node->n_attribute + 1, sizeof *attrs);
    int nattrs = 0;
    for (size_t i = 0; i < node->n_attribute; i++) {
        const graft_attr_value *v = attr_from_proto(g, node->attribute[i]);
        if (v)
            attrs[nattrs++] = (graft_attr){graph_intern(g, node->attribute[i]->name), v};
    }
    graft_node *call = graph_add_call(g, node->op_type, args, (int)node->n_input, attrs, nattrs);
    graph_set_noutputs(g, call, (int)node->n_output);
    free(args);
    free(attrs);
    return call;
}

/* The value of each of node's inputs (empty tuples for absent ones), read
 * from dir/input_K.pb by the graph input it names; false when one cannot
 * be read. */
static bool read_inputs(graft_graph *g, const Onnx__ModelProto *m, const char *dir,
                        Value *args)
{
    const Onnx__GraphProto *graph = m->graph;
    const Onnx__NodeProto *node = graph->node[0];
    for (size_t i = 0; i < node->n_input; i++) {
        args[i] = (Value){.nfields = 0};
        for (size_t k = 0; node->input[i][0] && k < graph->n_input; k++) {
            if (strcmp(graph->input[k]->name, node->input[i]) != 0)
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%.3900s/test_data_set_0/input_%zu.pb", dir, k);
            args[i].nfields = -1;
            if (!read_tensor(g, path, declared_dtype(graph->input[k]), &args[i].t))
                return false;
        }
        if (node->input[i][0] && args[i].nfields != -1)
            return false; /* an initializer: no node test has one */
    }
    return true;
}

/* Whether got equals want within check_onnx_ops.c's tolerance (rtol 1e-3, atol 1e-7). */
static bool close_enough(double got, double want, bool is_float)
{
    if (isnan(want) || isnan(got))
        return isnan(want) && isnan(got);
    if (!is_float || isinf(want))
        return got == want;
    return fabs(got - want) <= 1e-7 + 1e-3 * fabs(want);
}

/* Compares the kernel's output k (got) with the expected tensor want;
 * false with why filled on a difference. */
static bool compare_output(const Tensor *got, const Tensor *want, int k, StrBuf *why)
{
    bool same_shape = got->rank == want->rank && strcmp(got->dtype, want->dtype) == 0;
    for (int i = 0; same_shape && i < got->rank; i++)
        same_shape = got->dims[i] == want->dims[i];
    if (!same_shape) {
        strbuf_printf(why, "output %d: got %s ", k, got->dtype);
        tensor_shape_text(got, why);
        strbuf_printf(why, ", expected %s ", want->dtype);
        tensor_shape_text(want, why);
        return false;
    }
    for (size_t i = 0; i < got->size; i++)
        if (!close_enough(got->data[i], want->data[i], eval_is_float(want->dtype))) {
            strbuf_printf(why, "output %d: element %zu is %.9g, expected %.9g", k, i,
                          got->data[i], want->data[i]);
            return false;
        }
    return true;
}

/* Compares the inferred type of output k with the expected tensor: its
 * dtype, and every dim known and equal, but for dim 0 when lead_unknown
 * (Loop's: ONNX's LoopInferenceFunction leaves a scan output's count of
 * iterations unknown, which only running the loop tells, and so does
 * graft's, onnx_control_infer.c). */
static bool compare_inferred(const OnnxType *t, const Tensor *want, int k, bool lead_unknown,
                             StrBuf *why)
{
    bool same = t->dtype && strcmp(t->dtype, want->dtype) == 0 && t->rank == want->rank;
    for (int i = 0; same && i < t->rank; i++)
        same = t->dims[i] == want->dims[i] || (i == 0 && lead_unknown && t->dims[i] == DIM_ANY);
    if (same)
        return true;
    strbuf_printf(why, "inference: output %d is %s (", k, t->dtype ? t->dtype : "?");
    for (int i = 0; i < t->rank; i++)
        strbuf_printf(why, t->dims[i] == DIM_ANY ? "%s?" : "%s%lld", i ? ", " : "",
                      (long long)t->dims[i]);
    strbuf_printf(why, "%s, expected %s ", t->rank < 0 ? "rank unknown)" : ")", want->dtype);
    tensor_shape_text(want, why);
    return false;
}

/* The inputs' types, each input a constant (as an initializer is), into
 * types[]; then the node's outputs inferred into out[]. */
static bool infer_outputs(const graft_node *call, const Value *args, int nargs, OnnxType *out,
                          int nout, StrBuf *why)
{
    OnnxType *types = xcalloc((size_t)nargs + 1, sizeof *types);
    for (int i = 0; i < nargs; i++) {
        const Tensor *t = &args[i].t;
        types[i] = (OnnxType){.absent = args[i].nfields == 0, .dtype = t->dtype,
                              .rank = t->rank, .values = t->data, .nvalues = (int64_t)t->size};
        memcpy(types[i].dims, t->dims, sizeof types[i].dims);
    }
    bool ok = onnx_infer(call, types, nargs, out, nout, why);
    free(types);
    return ok;
}

/* Compares the kernel's value with each expected output_K.pb, and the
 * inferred types (inferred[k]) with their types. */
static bool compare_outputs(graft_graph *g, const Onnx__ModelProto *m, const char *dir,
                            const Value *got, const OnnxType *inferred, StrBuf *why)
{
    const Onnx__GraphProto *graph = m->graph;
    int nout = (int)graph->node[0]->n_output;
    if ((nout > 1) != (got->nfields >= 0) || (nout > 1 && got->nfields != nout)) {
        strbuf_printf(why, "%d outputs, the kernel gave %d", nout,
                      got->nfields < 0 ? 1 : got->nfields);
        return false;
    }
    for (size_t k = 0; k < graph->n_output; k++) {
        int field = 0;
        while (field < nout && strcmp(graph->node[0]->output[field], graph->output[k]->name))
            field++;
        const Tensor *t = nout > 1 && field < nout ? &got->fields[field].t : &got->t;
        char path[4096];
        snprintf(path, sizeof path, "%.3900s/test_data_set_0/output_%zu.pb", dir, k);
        Tensor want;
        if (!read_tensor(g, path, declared_dtype(graph->output[k]), &want)) {
            strbuf_printf(why, "%s: cannot read or evaluate its dtype", path);
            return false;
        }
        bool ok = compare_output(t, &want, (int)k, why) &&
                  compare_inferred(&inferred[field < nout ? field : 0], &want, (int)k,
                                   strcmp(graph->node[0]->op_type, "Loop") == 0, why);
        tensor_free(&want);
        if (!ok)
            return false;
    }
    return true;
}

/* Evaluates the model's node and compares; the status. */
static NodeTestStatus run_node(const Onnx__ModelProto *m, const char *dir, StrBuf *why)
{
    const Onnx__NodeProto *node = m->graph->node[0];
    graft_graph *g = graph_new();
    graft_node *call = node_call(g, node);
    Value *args = xcalloc(node->n_input + 1, sizeof *args);
    Value out = {.nfields = -1};
    EvalOptions opts = {.mode = EVAL_DTYPE};
    EvalError err = {0};
    NodeTestStatus status = NODE_TEST_FAILED;
    OnnxType *inferred = xcalloc(node->n_output + 1, sizeof *inferred);
    if (!read_inputs(g, m, dir, args))
        strbuf_puts(why, "an input cannot be read or its dtype is not evaluated");
    else if (!eval_op(call, args, (int)node->n_input, &opts, &out, &err))
        strbuf_puts(why, err.msg.data ? err.msg.data : "the kernel failed");
    else if (!infer_outputs(call, args, (int)node->n_input, inferred, (int)node->n_output, why))
        strbuf_puts(why, " (inference)");
    else if (compare_outputs(g, m, dir, &out, inferred, why))
        status = NODE_TEST_PASSED;
    free(inferred);
    if (out.nfields != -1 || out.t.data)
        value_free(&out);
    for (size_t i = 0; i < node->n_input; i++)
        value_free(&args[i]);
    free(args);
    strbuf_free(&err.msg);
    graph_free(g);
    return status;
}

NodeTestResult onnx_node_test_run(const char *dir, const char *name)
{
    NodeTestResult r = {.status = NODE_TEST_NOT_COVERED};
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/model.onnx", dir, name);
    size_t len;
    uint8_t *bytes = read_file(path, &len);
    graft_diag *d = diag_new(stderr);
    Onnx__ModelProto *m = bytes ? onnx_model_unpack(bytes, len, path, NULL, d) : NULL;
    diag_free(d);
    free(bytes);
    const Onnx__NodeProto *node = m && m->graph->n_node == 1 ? m->graph->node[0] : NULL;
    bool default_domain = node && (!node->domain || !node->domain[0] ||
                                   strcmp(node->domain, "ai.onnx") == 0);
    if (default_domain && (eval_has_op(node->op_type) || onnx_has_infer(node->op_type))) {
        snprintf(path, sizeof path, "%s/%s", dir, name);
        r.op = xstrdup(node->op_type);
        r.status = run_node(m, path, &r.why);
    } else if (!m) {
        r.status = NODE_TEST_FAILED;
        strbuf_puts(&r.why, "model.onnx cannot be read");
    }
    if (m)
        onnx_model_free(m);
    return r;
}

void onnx_node_test_result_free(NodeTestResult *r)
{
    free(r->op);
    strbuf_free(&r->why);
}

int onnx_node_test_cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

SkipList onnx_node_skips_read(const char *srcdir)
{
    SkipList s = {0};
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/onnx/node_skips.txt", srcdir);
    size_t len;
    char *text = read_file(path, &len);
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        next = next ? (*next = '\0', next + 1) : line + strlen(line);
        size_t name_len = strcspn(line, " \t");
        if (line[0] == '#' || name_len == 0)
            continue;
        s.names = xrealloc(s.names, (size_t)(s.n + 1) * sizeof *s.names);
        s.reasons = xrealloc(s.reasons, (size_t)(s.n + 1) * sizeof *s.reasons);
        s.names[s.n] = xstrndup(line, name_len);
        s.reasons[s.n++] = xstrdup(line + name_len + strspn(line + name_len, " \t"));
    }
    free(text);
    s.seen = xcalloc((size_t)s.n + 1, sizeof *s.seen);
    return s;
}

static int skip_index(const SkipList *s, const char *name)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->names[i], name) == 0)
            return i;
    return -1;
}

const char *onnx_node_skips_find(const SkipList *s, const char *name)
{
    int i = skip_index(s, name);
    return i >= 0 ? s->reasons[i] : NULL;
}

void onnx_node_skips_seen(SkipList *s, const char *name)
{
    int i = skip_index(s, name);
    if (i >= 0)
        s->seen[i] = true;
}

int onnx_node_skips_unseen(const SkipList *s)
{
    int count = 0;
    for (int i = 0; i < s->n; i++)
        if (!s->seen[i]) {
            printf("FAIL: %s: in the skip list, but no node test of a covered op\n",
                   s->names[i]);
            count++;
        }
    return count;
}

void onnx_node_skips_free(SkipList *s)
{
    for (int i = 0; i < s->n; i++) {
        free(s->names[i]);
        free(s->reasons[i]);
    }
    free(s->names);
    free(s->reasons);
    free(s->seen);
}
