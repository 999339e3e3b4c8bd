/* onnx_export_fn.c - partitions written as model-local functions.
 *
 * note [onnx partitions]: a partition (a call of a function graft's
 * partitioner made, note [moved body] in src/runtime/partition_region.c) is
 * written as ONNX writes a composite op: a model-local FunctionProto in a
 * domain of its own, "graft.composite", and one node calling it.  The
 * function is named after the partition's Composite attribute (TVM's name
 * of the back end's pattern, "dnnl.conv2d_relu"), or "partition" for a
 * rule without one, and the calling node carries that name as its
 * op_type.  TVM's PartitionedFromPattern (the match's ops in post-order,
 * "Conv_BatchNormalization_") becomes the function's doc_string, as ONNX
 * functions have no attribute values.  The function's inputs are the
 * partition's parameters named by their position in it, FunctionVar_0,
 * FunctionVar_1, ... (TVM's word; Relay's FunctionVar_i_j also carries
 * the partition's number i, which would make every function's bytes its
 * own), and the calling node passes the outer values.  Its nodes are the
 * body's calls in operand-first order, without the names their nodes had
 * in the model (a function several calls share is no one call's nodes),
 * each constant of the body a Constant node holding its tensor (the
 * initializer's TensorProto itself), its outputs the body's results (the
 * fields of a tuple body).  Partitions whose functions come out the same
 * share one; others of the same name are numbered ("graft.conv_bn_1").
 * The model gains an opset import of graft.composite version 1 and, if it
 * had less, IR version 8, which brought local functions.
 */
#include "onnx_export_fn.h"

#include <stdlib.h>
#include <string.h>

#include "onnx_subgraph.h"

static const char composite_domain[] = "graft.composite";

/* One function being made: the local names of its values. */
typedef struct FnBuild {
    Exporter *ex;
    KeyMap local;       /* node id + 1 -> its value's name in the function */
    uint32_t next;      /* the next local number */
    VEC(Onnx__NodeProto *) nodes;
} FnBuild;

/* "<prefix><k>" interned, written by hand: a function body's every value
 * is named so, and a printf of each was a third of exporting a partition
 * (bench/onnx_e2e.sh, 1,100 instructions a name). */
static const char *make_numbered_name(graft_graph *g, const char *prefix, unsigned k)
{
    char digits[16], name[48];
    size_t n = 0, len = strlen(prefix);
    do
        digits[n++] = (char)('0' + k % 10);
    while ((k /= 10) != 0);
    memcpy(name, prefix, len);
    for (size_t i = 0; i < n; i++)
        name[len + i] = digits[n - 1 - i];
    return graph_intern_n(g, name, len + n);
}

/* "t<k>", interned once an export: every function made names its values
 * from t0 on (interning each again was 120 instructions an op node of
 * issue 28's partitions, bench/onnx_e2e.sh). */
static const char *temp_name(Exporter *ex, unsigned k)
{
    while (ex->temps.len <= k) {
        const char *name = make_numbered_name(ex->g, "t", (unsigned)ex->temps.len);
        vec_push(&ex->temps, name);
    }
    return ex->temps.items[k];
}

/* "FunctionVar_<k>", the function's k-th input (note [onnx partitions]),
 * interned once an export. */
static const char *input_name(Exporter *ex, unsigned k)
{
    while (ex->inputs.len <= k) {
        const char *name = make_numbered_name(ex->g, "FunctionVar_", (unsigned)ex->inputs.len);
        vec_push(&ex->inputs, name);
    }
    return ex->inputs.items[k];
}

/* The function's parameters named by position (input_name). */
static void name_params(FnBuild *fb, const graft_node *fn)
{
    for (int i = 0; i < node_nparams(fn); i++) {
        uint64_t key = (uint64_t)node_id(node_param(fn, i)) + 1;
        *keymap_put(&fb->local, key, 0) = (int64_t)(intptr_t)input_name(fb->ex, (unsigned)i);
    }
}

static const char *local_name(FnBuild *fb, const graft_node *n)
{
    if (node_kind(n) == NODE_TUPLE && node_nargs(n) == 0)
        return ""; /* a left-out input */
    int64_t *slot = keymap_get(&fb->local, (uint64_t)node_id(n) + 1);
    if (slot)
        return (const char *)(intptr_t)*slot;
    if (node_kind(n) == NODE_VAR)
        return node_name(n); /* a variable no parameter (a body reads none) */
    const char *name = temp_name(fb->ex, fb->next++);
    *keymap_put(&fb->local, (uint64_t)node_id(n) + 1, 0) = (int64_t)(intptr_t)name;
    return name;
}

/* A node of op in domain and its two name arrays in one block
 * (export_new_node: three blocks were 110 instructions of each
 * partition's call, bench/workload.sh), its names the caller's. */
static Onnx__NodeProto *new_node(Exporter *ex, const char *op, const char *domain, size_t nin,
                                 size_t nout)
{
    Onnx__NodeProto *np = export_new_node(ex, nin, nout);
    np->op_type = (char *)op;
    np->domain = (char *)domain;
    return np;
}

/* The initializer a tensor constant came from (the first of its name),
 * or NULL.  note [initializers by name]: found in a map of the
 * initializers' interned names, made when first asked: a scan of them all
 * for each constant of each function made was quadratic, 43,000
 * instructions a function of 2,000 partitions each reading an initializer
 * of its own (bench/RESULTS.md, session 27). */
static Onnx__TensorProto *initializer(Exporter *ex, const graft_node *c)
{
    if (!ex->initializers_named) {
        const Onnx__GraphProto *gp = ex->m->proto->graph;
        for (size_t i = 0; i < gp->n_initializer; i++) {
            const char *name = graph_intern(ex->g, gp->initializer[i]->name);
            if (!keymap_get_ptr(&ex->initializers, name))
                keymap_put_ptr(&ex->initializers, name, gp->initializer[i]);
        }
        ex->initializers_named = true;
    }
    const char *name = graph_intern(ex->g, node_const_text(c));
    return (Onnx__TensorProto *)keymap_get_ptr(&ex->initializers, name);
}

/* A constant of the body as a Constant node. */
static void constant_node(FnBuild *fb, const graft_node *c)
{
    Exporter *ex = fb->ex;
    Onnx__TensorProto *t = NULL;
    size_t nbytes = 0;
    const void *data = node_const_is_scalar(c) ? NULL : node_const_data(c, &nbytes);
    if (node_const_is_scalar(c))
        t = export_scalar_tensor(ex, c, "");
    else if (!(t = initializer(ex, c)) && data && node_type(c))
        t = export_new_tensor(ex, "", node_type(c), data, nbytes);
    if (!t) {
        diag_file_error(ex->d, ex->m->name, "constant %s of a partition has no values to "
                        "write", node_const_text(c));
        ex->ok = false;
        return;
    }
    Onnx__NodeProto *np = new_node(ex, "Constant", NULL, 0, 1);
    np->output[0] = (char *)local_name(fb, c);
    np->attribute = export_alloc(ex, 2 * sizeof *np->attribute);
    Onnx__AttributeProto *a = np->attribute[np->n_attribute++] = export_alloc(ex, sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = "value";
    a->has_type = true;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
    a->t = t;
    vec_push(&fb->nodes, np);
}

/* old's attributes, their subgraphs reading the body's local names of the
 * values they read, operands nin on of n (note [outer reads] in
 * onnx_subgraph.h). */
static Onnx__AttributeProto **local_subgraphs(FnBuild *fb, const graft_node *n,
                                              const Onnx__NodeProto *old, size_t nin)
{
    graft_graph *g = fb->ex->g;
    KeyMap renames = {0};
    const char **outer;
    size_t nouter = onnx_outer_reads(g, old, &outer);
    for (size_t k = 0; k < nouter && nin + k < (size_t)node_nargs(n); k++) {
        const char *now = graph_intern(g, local_name(fb, node_arg(n, (int)(nin + k))));
        if (now != outer[k])
            keymap_put_ptr(&renames, outer[k], now);
    }
    free(outer);
    Onnx__AttributeProto **attrs = renames.len
                                       ? export_renamed_subgraphs(fb->ex, n, old, &renames)
                                       : old->attribute;
    keymap_free(&renames);
    return attrs;
}

/* A call of the body, its operands named locally. */
static void body_call(FnBuild *fb, const graft_node *n)
{
    Exporter *ex = fb->ex;
    uint32_t id = node_id(n);
    Onnx__NodeProto *old = id < ex->m->norigin ? ex->m->origin[id] : NULL;
    bool tuple;
    int nout = export_fn_results(n, &tuple);
    size_t nin = export_own_inputs(ex, n);
    Onnx__NodeProto *np = new_node(ex, node_op(n), graph_node_domain(ex->g, n), nin,
                                   (size_t)nout);
    for (size_t i = 0; i < nin; i++)
        np->input[i] = (char *)local_name(fb, node_arg(n, (int)i));
    for (int i = 0; i < nout; i++) {
        const graft_node *r = tuple ? export_result_of(ex, n, i) : n;
        np->output[i] = (char *)(r ? local_name(fb, r) : "");
    }
    if (old) { /* not old->name: note [onnx partitions] */
        np->domain = old->domain;
        np->n_attribute = old->n_attribute;
        np->attribute = local_subgraphs(fb, n, old, nin);
    } else
        export_set_attrs(ex, n, np);
    vec_push(&fb->nodes, np);
}

/* The body's calls and constants, operands first, iteratively. */
static void body_nodes(FnBuild *fb, const graft_node *root)
{
    typedef struct Frame {
        const graft_node *n;
        int next;
    } Frame;
    VEC(Frame) stack = {0};
    KeyMap seen = {0};
    vec_push(&stack, ((Frame){root, 0}));
    while (stack.len && fb->ex->ok) {
        Frame *f = &stack.items[stack.len - 1];
        if (f->next < node_nargs(f->n) && node_kind(f->n) != NODE_VAR) {
            const graft_node *a = node_arg(f->n, f->next++);
            if (!keymap_get(&seen, (uint64_t)node_id(a) + 1)) {
                keymap_put(&seen, (uint64_t)node_id(a) + 1, 1);
                vec_push(&stack, ((Frame){a, 0}));
            }
            continue;
        }
        const graft_node *n = f->n;
        stack.len--;
        if (node_kind(n) == NODE_CALL && node_op(n))
            body_call(fb, n);
        else if (node_kind(n) == NODE_CONST)
            constant_node(fb, n);
        else if (node_kind(n) != NODE_VAR && node_kind(n) != NODE_GETITEM &&
                 node_kind(n) != NODE_TUPLE) {
            diag_file_error(fb->ex->d, fb->ex->m->name, "a partition holds a node ONNX "
                            "functions cannot (a call of a function, a nested function)");
            fb->ex->ok = false;
        }
    }
    keymap_free(&seen);
    vec_free(&stack);
}

/* The function's name, doc string, inputs and outputs around its nodes. */
static Onnx__FunctionProto *function_proto(FnBuild *fb, const graft_node *fn)
{
    Exporter *ex = fb->ex;
    Onnx__FunctionProto *f = xmalloc(sizeof *f);
    onnx__function_proto__init(f);
    const graft_attr_value *composite = node_find_attr(fn, "Composite");
    const graft_attr_value *pfp = node_find_attr(fn, "PartitionedFromPattern");
    f->name = (char *)(composite && composite->kind == GRAFT_ATTR_STRING ? composite->s
                                                                         : "partition");
    f->domain = (char *)composite_domain;
    if (pfp && pfp->kind == GRAFT_ATTR_STRING)
        f->doc_string = (char *)graph_intern(ex->g, pfp->s);
    f->n_input = (size_t)node_nparams(fn);
    f->input = export_name_array(ex, f->n_input);
    for (int i = 0; i < node_nparams(fn); i++)
        f->input[i] = (char *)input_name(ex, (unsigned)i);
    const graft_node *body = node_body(fn);
    bool tuple = node_kind(body) == NODE_TUPLE;
    f->n_output = tuple ? (size_t)node_nargs(body) : 1;
    f->output = export_name_array(ex, f->n_output);
    for (size_t i = 0; i < f->n_output; i++)
        f->output[i] = (char *)local_name(fb, tuple ? node_arg(body, (int)i) : body);
    f->n_node = fb->nodes.len;
    f->node = fb->nodes.items; /* freed with f */
    f->n_opset_import = ex->m->proto->n_opset_import;
    f->opset_import = ex->m->proto->opset_import;
    return f;
}

/* note [functions packed once]: a function made is packed as protobuf-c packs it
 * once, its name left out, for the comparison (note [one function per
 * body]); a new one's bytes then get its name field in front and are
 * written as they are (onnx_encode_file_made), not encoded again.  The
 * name is FunctionProto's field 1, the first written, and protobuf-c's
 * pack writes what graft's encoder writes (note [onnx encode] in
 * onnx_encode.h; tests/check_onnx_encode.c compares the two), so the
 * bytes are the ones the encoder would make (tests/onnx_graph.sh reads
 * partitioned models and writes them back byte for byte).
 * The bytes are packed (note [functions packed by hand] in
 * onnx_export_pack.c) with room before them for the name's key and
 * length and the longest name numbered_name can make of the base name. */
enum { NAME_FIELD_ROOM = 32 }; /* the key, a varint length, "_" and the
                                  digits of an int64 */

/* f packed with its name left out, in a block with room for the name. */
static PackedFunction packed(Exporter *ex, Onnx__FunctionProto *f)
{
    PackedFunction p;
    size_t room = sizeof(OnnxSpan) + strlen(f->name) + NAME_FIELD_ROOM;
    char *name = f->name;
    f->name = NULL;
    /* note [functions packed by hand] */
    uint8_t *block = export_pack_function(&ex->import_bytes, f, room, &p.len);
    p.written = (OnnxSpan *)block;
    p.body = block + room;
    f->name = name;
    return p;
}

/* p's bytes as written, with name: field 1's key and length, name, body. */
static void name_packed(PackedFunction *p, const char *name)
{
    size_t n = strlen(name), prefix = 1 + onnx_varint_size(n) + n;
    uint8_t *at = p->body - prefix;
    p->written->data = at;
    p->written->len = prefix + p->len;
    *at++ = 1 << 3 | PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
    memcpy(onnx_varint_write(at, n), name, n);
}

static void function_free(Onnx__FunctionProto *f)
{
    free(f->node);
    free(f);
}

/* note [one function per body]: partitions whose functions pack to the
 * same bytes (name left out) share one FunctionProto; a function of a new
 * body named like an earlier one is numbered, "NAME_1", "NAME_2", ... in
 * the order they are made.  Both are found through hash maps, not by
 * comparing with every function made before: a model of 10^5 partitions
 * takes linear time (bench/onnx_e2e.sh). */

/* The index of a function made before with the same bytes, or -1. */
static long equal_function(const Exporter *ex, const PackedFunction *mine, uint64_t hash)
{
    const int64_t *first = keymap_get(&ex->function_by_bytes, hash);
    if (!first)
        return -1;
    for (size_t i = (size_t)*first - 1; i < ex->packed.len; i++) {
        const PackedFunction *o = &ex->packed.items[i];
        if (o->len == mine->len && memcmp(o->body, mine->body, mine->len) == 0)
            return (long)i;
    }
    return -1;
}

/* f's name: base, or base_K with the first K from 1 that no function made
 * here is named (a composite may itself be called "NAME_1").  The map holds
 * each name in use, with the next K to try for it as a base. */
static char *numbered_name(Exporter *ex, const char *base)
{
    const char *name = graph_intern(ex->g, base);
    int64_t *next = keymap_put(&ex->function_names, keymap_ptr_key(name), 0);
    if (*next == 0) {
        *next = 1;
        return (char *)name;
    }
    StrBuf sb = {0};
    const char *numbered;
    do {
        int64_t k = (*keymap_get(&ex->function_names, keymap_ptr_key(name)))++;
        sb.len = 0; /* written again from the start */
        strbuf_puts(&sb, name);
        strbuf_putc(&sb, '_');
        export_put_number(&sb, (uint64_t)k);
        numbered = graph_intern_n(ex->g, sb.data, sb.len);
    } while (keymap_get(&ex->function_names, keymap_ptr_key(numbered)));
    strbuf_free(&sb);
    keymap_put(&ex->function_names, keymap_ptr_key(numbered), 1);
    return (char *)numbered;
}

/* f, or an equal function made before (f freed). */
static Onnx__FunctionProto *unique_function(Exporter *ex, Onnx__FunctionProto *f)
{
    PackedFunction mine = packed(ex, f);
    uint64_t hash = hash_bytes(mine.body, mine.len, 0) | 1; /* keys are nonzero */
    long same = equal_function(ex, &mine, hash);
    if (same >= 0) {
        free(mine.written);
        function_free(f);
        return ex->functions.items[same];
    }
    keymap_put(&ex->function_by_bytes, hash, (int64_t)ex->functions.len + 1);
    f->name = numbered_name(ex, f->name);
    name_packed(&mine, f->name);
    keymap_put_ptr(&ex->function_spans, f, mine.written);
    vec_push(&ex->functions, f);
    vec_push(&ex->packed, mine);
    return f;
}

/* Whether fn is called by one call only (a partition's function: the
 * workload's 10,000), whose FunctionProto nobody asks again: not filed in
 * ex->function_of (a lookup and an insertion a call, 70 instructions,
 * bench/workload.sh).  A use list that still holds a dead call only
 * files it. */
static bool called_once(const graft_node *fn)
{
    return node_nusers(fn) == 1;
}

/* The FunctionProto of function fn, made once. */
static Onnx__FunctionProto *function_of(Exporter *ex, const graft_node *fn)
{
    bool once = called_once(fn);
    const void *known = once ? NULL : keymap_get_ptr(&ex->function_of, fn);
    if (known)
        return (Onnx__FunctionProto *)known;
    Onnx__FunctionProto *f = export_keyed_function(ex, fn); /* note [function keys] */
    if (!f) {
        FnBuild fb = {.ex = ex};
        name_params(&fb, fn);
        body_nodes(&fb, node_body(fn));
        f = function_proto(&fb, fn);
        keymap_free(&fb.local);
        f = unique_function(ex, f);
        export_key_function(ex, f);
    }
    if (!once)
        keymap_put_ptr(&ex->function_of, fn, f);
    return f;
}

void export_function_call(Exporter *ex, const graft_node *n)
{
    Onnx__FunctionProto *f = node_kind(node_callee(n)) == NODE_FUNC
                                 ? function_of(ex, node_callee(n))
                                 : NULL;
    if (!f || !ex->ok) {
        if (ex->ok)
            diag_file_error(ex->d, ex->m->name, "a call of a function value cannot be "
                            "written to an ONNX model");
        ex->ok = false;
        return;
    }
    bool tuple;
    int nout = export_fn_results(n, &tuple);
    if (!ex->composite)
        ex->composite = graph_intern(ex->g, composite_domain);
    Onnx__NodeProto *np = new_node(ex, f->name, ex->composite, (size_t)node_nargs(n),
                                   (size_t)nout);
    uint64_t variables = export_operand_names(ex, n, (size_t)node_nargs(n), np->input);
    /* the results of a partition of several roots are named after the
     * call, "graft_graft.qkv_0_output_1", so it is named first */
    const char *name = tuple ? export_named_call(ex, n, f->name) : NULL;
    for (int i = 0; i < nout; i++) {
        const graft_node *r = tuple ? export_result_of(ex, n, i) : n;
        np->output[i] = (char *)(r ? export_value_name(ex, r) : "");
    }
    np->name = (char *)(name ? name : export_fresh_name(ex, f->name));
    /* its variables' names, its value's (a call's), its name (fresh), its
     * op (a function's name, numbered_name's) and its domain have their
     * lengths before them */
    export_push_made(ex, np, (EncodeInterned){variables, !tuple, true, true, true});
}

void export_functions_finish(Exporter *ex, Onnx__ModelProto *model)
{
    if (!ex->functions.len)
        return;
    size_t n = model->n_functions;
    Onnx__FunctionProto **fs = xcalloc(n + ex->functions.len + 1, sizeof *fs);
    if (n) /* a model without functions has none to copy (and a NULL array) */
        memcpy(fs, model->functions, n * sizeof *fs);
    memcpy(fs + n, ex->functions.items, ex->functions.len * sizeof *fs);
    model->functions = fs;
    model->n_functions = n + ex->functions.len;
    Onnx__OperatorSetIdProto *import = &ex->composite_import;
    onnx__operator_set_id_proto__init(import);
    import->domain = (char *)composite_domain;
    import->has_version = true;
    import->version = 1;
    Onnx__OperatorSetIdProto **imports = xcalloc(model->n_opset_import + 2, sizeof *imports);
    if (model->n_opset_import)
        memcpy(imports, model->opset_import, model->n_opset_import * sizeof *imports);
    imports[model->n_opset_import++] = import;
    model->opset_import = imports;
    if (!model->has_ir_version || model->ir_version < 8) {
        model->has_ir_version = true;
        model->ir_version = 8;
    }
}

void export_functions_free(Exporter *ex)
{
    for (size_t i = 0; i < ex->functions.len; i++) {
        function_free(ex->functions.items[i]);
        free(ex->packed.items[i].written);
    }
    vec_free(&ex->functions);
    vec_free(&ex->packed);
    keymap_free(&ex->function_of);
    keymap_free(&ex->function_by_bytes);
    keymap_free(&ex->function_spans);
    keymap_free(&ex->function_names);
    keymap_free(&ex->initializers);
    for (size_t i = 0; i < ex->import_bytes.cap; i++)
        if (ex->import_bytes.slots[i].key)
            free((void *)(intptr_t)ex->import_bytes.slots[i].value);
    keymap_free(&ex->import_bytes);
    vec_free(&ex->temps);
    vec_free(&ex->inputs);
    export_function_keys_free(ex);
}
