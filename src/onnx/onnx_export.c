/* onnx_export.c - a graph imported from ONNX written back as the model.
 *
 * note [onnx export]: the model written is the ModelProto read, every
 * field of it and of its graph shared (opset imports, metadata, doc
 * strings, functions, training info, sparse initializers, quantization
 * annotations, graph inputs and outputs in their order), with three lists
 * made anew from the graph:
 *   - nodes: the live calls, in the order of the NodeProtos they came
 *     from, each call a rewrite made (or a call whose operands it changed)
 *     placed before its first reader; a call nothing changed is its
 *     NodeProto itself, name, doc string and attributes and all; a call a
 *     rewrite made gets a fresh name, unique in the graph
 *     ("graft_<Op>_<k>"), and its results fresh value names
 *     ("graft_<Op>_<k>_output_<i>"), but a call that makes a graph output
 *     takes that output's name, and a value a rewrite routed to a graph
 *     output that has another name is copied there by an Identity node;
 *   - initializers: those still read, in their order, with their bytes
 *     (raw_data, external-data references, typed fields) as they were;
 *     a scalar constant a rewrite made becomes a fresh one, and so does a
 *     tensor constant it computed (fold(...), --fold-constants), named
 *     "graft_folded_<Op>_<k>", its bytes raw_data;
 *   - value_info: the entries whose values are still made.
 * A model nothing rewrote is so written back byte for byte (note [onnx
 * bytes] in onnx_model.h), through the graph and not as a copy of its
 * input.  The proto structs made here are freed after writing; those
 * shared belong to the model.
 */
#include "onnx_export_impl.h"

#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "onnx_encode.h"
#include "onnx_model.h"
#include "onnx_subgraph.h"
#include "onnx_text.h"

/* note [names in use]: a fresh name differs from every name the model
 * gives a node or a value.  Those are the names import interned as it
 * read them (OnnxModel.values and node_names; a graph output is a value
 * some node, input or initializer makes), so the export asks those maps
 * rather than interning every name of the model again (bench/onnx_e2e.sh:
 * 14,000 names, 550 instructions an op node). */

/* note [export arena]: the NodeProtos, AttributeProtos, TensorProtos,
 * name arrays and opset imports the export makes live until the model is
 * written and all go then, so they come from one arena (note [arenas] in
 * src/base/arena.h), not a malloc and a free each: a partition's function
 * makes a dozen, and their calloc and free were a sixth of exporting it
 * (bench/onnx_e2e.sh). */
void *export_alloc(Exporter *ex, size_t size)
{
    return arena_alloc(ex->arena, size);
}

/* Whether the model names a node or value key (interned).  A name
 * export_fresh_name made is not asked after: its number, after its last
 * '_', is the export's counter, which never repeats, so it makes no name
 * twice and keeps no map of those it made. */
static bool taken(const Exporter *ex, const char *key)
{
    return onnx_value_named(&ex->m->values, key) || keymap_get_ptr(&ex->m->node_names, key);
}

/* Written by hand, as a printf of each fresh name was half of exporting
 * a rewritten batch norm (bench/onnx_e2e.sh, 2,300 instructions a name). */
void export_put_number(StrBuf *sb, uint64_t k)
{
    char digits[20];
    size_t n = sizeof digits;
    do
        digits[--n] = (char)('0' + k % 10);
    while ((k /= 10) != 0);
    strbuf_room(sb, sizeof digits); /* (not strbuf_append's call: a third of the
                                       number's cost) */
    for (; n < sizeof digits; n++)
        sb->data[sb->len++] = digits[n];
    sb->data[sb->len] = '\0';
}

/* note [fresh digits]: the fresh names' counter, which only counts up,
 * is kept as its decimal digits (ex->fresh, "0" at the start), counted
 * up in place (most steps one digit's), and a name copies them: writing
 * the number out anew for each name was a third of making it (120
 * instructions a name, 10,000 names in each ONNX job of
 * bench/workload.sh). */
static void count_fresh(Exporter *ex)
{
    size_t i = ex->fresh_len;
    while (i > 0 && ex->fresh[i - 1] == '9')
        ex->fresh[--i] = '0';
    if (i > 0) {
        ex->fresh[i - 1]++;
        return;
    }
    memmove(ex->fresh + 1, ex->fresh, ex->fresh_len++); /* 99 -> 100 */
    ex->fresh[0] = '1';
}

/* note [fresh names not interned]: a candidate fresh name that the
 * graph's interner (the model's, note [names as decoded] in
 * onnx_import.c) does not hold is no name of the model's, nor of the
 * export's before it (note [names in use]), and is taken as it is, a
 * copy in the export's arena (note [export arena]); one it holds is
 * asked of the model's maps.  Interning each candidate, to tell a new
 * one by the interner's count, was 180 instructions a name (10,000 names
 * in each ONNX job of bench/workload.sh), a lookup and a copy are half
 * that.  Nothing asks a fresh name's address: a map keyed by names
 * (mark_read's initializers, made_names's) interns the names it asks
 * after, or holds the model's, which a fresh name is not. */

/* A name not in use: "graft_<stem>_<k>" with the first free k.
 * note [fresh prefix]: "graft_<stem>_" is kept from the last call with
 * the same stem (by address: every stem lives as long as the export, a
 * literal, an interned op or constant name, a function's name), as a
 * rewrite names its made nodes of one op one after another (issue 28's
 * 2,000 BatchNormalization nodes: 190 instructions a name, bench/onnx_e2e.sh). */
const char *export_fresh_name(Exporter *ex, const char *stem)
{
    StrBuf *sb = &ex->fresh_prefix;
    if (stem != ex->fresh_stem || !sb->len) {
        sb->len = 0;
        strbuf_append(sb, "graft_", 6);
        strbuf_puts(sb, stem);
        strbuf_putc(sb, '_');
        ex->fresh_stem = stem;
    }
    size_t prefix = sb->len, len;
    strbuf_room(sb, sizeof ex->fresh);
    Interner *names = onnx_model_names(ex->m->proto); /* the graph's */
    const char *name;
    do { /* each candidate looked up once: note [fresh names not interned] */
        memcpy(sb->data + prefix, ex->fresh, sizeof ex->fresh); /* (a copy of fixed size) */
        len = prefix + ex->fresh_len;
        count_fresh(ex);
        name = interner_lookup(names, sb->data, len);
    } while (name && taken(ex, name));
    /* interned, or a copy whose length is kept as an interned string's
     * (note [interned lengths] in onnx_export_pack.c) */
    return name ? name : arena_strndup_counted(ex->arena, sb->data, len);
}

/* The live element reading result i of call n, or NULL. */
graft_node *export_result_of(const Exporter *ex, const graft_node *n, int i)
{
    for (int k = node_user_first(n); k < node_user_end(n); k = node_user_next(n, k)) {
        graft_node *user = node_user(n, k);
        if (node_kind(user) == NODE_GETITEM && node_index(user) == i && ex->live[node_id(user)])
            return user;
    }
    return NULL;
}

/* note [made calls' names]: the fresh names of calls are kept per id,
 * and nearly every call that takes one is one a rewrite or the partition
 * made, whose id is past the model's (norigin): those are kept in an
 * array of the ids past it, those of the model's calls (such as a call
 * of a nameless NodeProto whose element a rewrite made reads) in a map.
 * An array of every id, zeroed, was 8 bytes an id, 15 instructions an op
 * node of the workload's ONNX rewrite (bench/workload.sh).  Nor is the
 * array of the ids past the model's zeroed: a bit of ex->state
 * (EXPORT_CALL_NAMED) says which entries are set, as note [names not
 * zeroed] says of ex->value (the array of the workload's partition's
 * 80,000 new ids zeroed was 0.64 M instructions, and its calls of one
 * result keep no name). */
const char *export_named_call(Exporter *ex, const graft_node *call, const char *stem)
{
    uint32_t id = node_id(call), norigin = ex->m->norigin;
    if (id >= norigin) {
        if (!(ex->state[id] & EXPORT_CALL_NAMED)) {
            ex->made_call[id - norigin] = export_fresh_name(ex, stem);
            ex->state[id] |= EXPORT_CALL_NAMED;
        }
        return ex->made_call[id - norigin];
    }
    int64_t *name = keymap_put(&ex->model_call, (uint64_t)id + 1, 0);
    if (!*name)
        *name = (int64_t)(intptr_t)export_fresh_name(ex, stem);
    return (const char *)(intptr_t)*name;
}

const char *export_call_name(Exporter *ex, const graft_node *call)
{
    return export_named_call(ex, call, node_op(call));
}

/* Whether n is a tensor constant a rewrite or --fold-constants made (note
 * [constant folding] in src/runtime/fold.h): not an initializer the model
 * has, so written as a new one, named afresh. */
static bool made_tensor(const Exporter *ex, const graft_node *n)
{
    return node_kind(n) == NODE_CONST && !node_const_is_scalar(n) &&
           node_id(n) >= ex->m->norigin;
}

/* "<call>_output_<i>", interned. */
static const char *output_name(Exporter *ex, const char *call, unsigned i)
{
    StrBuf *sb = &ex->scratch;
    sb->len = 0;
    strbuf_puts(sb, call);
    strbuf_append(sb, "_output_", 8);
    export_put_number(sb, i);
    return graph_intern_n(ex->g, sb->data, sb->len);
}

/* note [value names as imported]: the graph's value names are the
 * import's (set_value in onnx_import_impl.h, the one caller of
 * graph_set_value_name_interned; no code calls graph_set_value_name),
 * and so are its nodes' domains (import_general_node in
 * onnx_import_node.c), so the export asks those maps only where they may
 * hold one:
 *   - a variable's value is written under its own name (node_name): the
 *     import names a graph input's parameter with the input's interned
 *     name and files the same pointer as its value name (import_leaves),
 *     and a variable of a function (a partition's parameter) has none,
 *     so that the map gives a variable its name or nothing; asking it,
 *     then filing the name in ex->value, was 48 instructions a graph
 *     input, 50,000 in each ONNX job of bench/workload.sh;
 *   - a node made after the import (an id past norigin: a rewrite's, a
 *     partition's call) has neither (each map asked for nothing: 21
 *     instructions a made node, twice, and 30 for its domain, 10,000
 *     made nodes in each ONNX job), but for one case: a call of a callee
 *     variable bound to a call of another domain (f(y) in an action,
 *     note [callee variables] in src/runtime/pattern.h) is made in the
 *     bound call's domain (callee_call in rewrite_build.c, the other
 *     caller of graph_set_node_domain).  The export learns it once, by
 *     the count of calls given a domain (Exporter.made_domains), and
 *     then asks every made call.  (Before, such a call was written in
 *     the default domain, which ONNX's checker refuses.) */

/* n's value name in the graph, asked only of a node the import made. */
static const char *imported_value_name(const Exporter *ex, const graft_node *n)
{
    return node_id(n) < ex->m->norigin ? graph_value_name(ex->g, n) : NULL;
}

/* The name of n's value when the graph gives it none (note [onnx
 * export]). */
static const char *unnamed_value_name(Exporter *ex, const graft_node *n)
{
    if (node_kind(n) == NODE_TUPLE && node_nargs(n) == 0)
        return ""; /* a left-out input */
    if (made_tensor(ex, n))
        return export_fresh_name(ex, node_const_text(n)); /* "graft_folded_Mul_4" */
    if (node_kind(n) == NODE_CONST && !node_const_is_scalar(n))
        return node_const_text(n);
    if (node_kind(n) == NODE_CONST)
        return export_fresh_name(ex, "Constant");
    if (node_kind(n) == NODE_CALL && node_op(n))
        return output_name(ex, export_call_name(ex, n), 0); /* (no call of several results) */
    if (node_kind(n) == NODE_GETITEM) {
        const graft_node *call = node_arg(n, 0);
        const char *call_name = graph_node_name(ex->g, call);
        return output_name(ex, call_name ? call_name : export_call_name(ex, call),
                           (unsigned)node_index(n));
    }
    return export_fresh_name(ex, "value");
}

/* The name n's value is written under, found and kept in ex->value, its
 * value name's too (asked of the graph's map for each of a graph input's
 * readers and again by mark_read, it was a twentieth of the export,
 * bench/onnx_e2e.sh).
 * note [names not zeroed]: ex->value is read only where ex->state says
 * the id was named (EXPORT_NAMED), a bit of the byte that also says it
 * was emitted (EXPORT_DONE), so it is not zeroed: zeroing its 8 bytes an
 * id was 16 instructions an op node of the workload's ONNX rewrite
 * (bench/workload.sh), where the heap reused gives calloc no fresh,
 * zeroed pages. */
const char *export_find_value_name(Exporter *ex, const graft_node *n)
{
    const char *name = imported_value_name(ex, n);
    export_name_value(ex, n, name ? name : unnamed_value_name(ex, n));
    return ex->value[node_id(n)];
}

/* The graph's output k, out being graph_output's (asked once a loop):
 * the output itself, or field k of its tuple (note [kept values] in
 * onnx_graph.h). */
static graft_node *graph_output_at(const OnnxModel *m, graft_node *out, int k)
{
    return m->tupled ? node_arg(out, k) : out;
}

/* Whether n is a value a rewrite made, not yet named.  Inline: asked of
 * each graph output (10,000 in each ONNX job of bench/workload.sh). */
static inline bool unnamed(const Exporter *ex, const graft_node *n)
{
    NodeKind kind = node_kind(n);
    return (kind == NODE_CALL || kind == NODE_GETITEM) && !(ex->state[node_id(n)] & EXPORT_NAMED) &&
           !imported_value_name(ex, n) && !(kind == NODE_CALL && node_noutputs(n) > 1);
}

/* The names live nodes make, gathered when an operand first needs them
 * (note [names made lazily]). */
typedef struct MadeNames {
    KeyMap names;
    bool gathered;
} MadeNames;

/* note [names made lazily]: only a value a rewrite made, read by a call
 * of the model, asks which names live nodes make; most calls read none,
 * and a model whose calls all went (issue 28's batch norms, each made
 * one node) asks nothing, so the map is filled when first asked and each
 * input's name interned only for such a value (filling it for every
 * export was 120 instructions an op node, bench/onnx_e2e.sh). */
static KeyMap *made_names_of(Exporter *ex, MadeNames *made)
{
    if (made->gathered)
        return &made->names;
    made->gathered = true;
    keymap_reserve(&made->names, graph_node_count(ex->g));
    for (uint32_t id = 0; id < graph_node_count(ex->g); id++) {
        const char *name = ex->live[id] ? graph_value_name(ex->g, graph_node(ex->g, id)) : NULL;
        if (name)
            keymap_put_ptr(&made->names, name, name);
    }
    return &made->names;
}

/* Operand a read as old by a call of the model takes that name, when a
 * rewrite made it and no live node makes old now. */
static void inherit(Exporter *ex, MadeNames *made, const graft_node *a, const char *old)
{
    if (!old[0] || !unnamed(ex, a))
        return;
    old = graph_intern(ex->g, old);
    KeyMap *names = made_names_of(ex, made);
    if (!keymap_get_ptr(names, old)) {
        export_name_value(ex, a, old);
        keymap_put_ptr(names, old, old);
    }
}

/* The values call n (of the model, np) reads: its inputs, then those its
 * subgraphs read (note [outer reads] in onnx_subgraph.h), under their old
 * names. */
static void inherit_operands(Exporter *ex, MadeNames *made, const graft_node *n,
                             const Onnx__NodeProto *np)
{
    size_t nin = export_own_inputs(ex, n);
    for (size_t i = 0; i < nin && i < (size_t)node_nargs(n); i++)
        inherit(ex, made, node_arg(n, (int)i), np->input[i]);
    const char **outer;
    size_t nouter = onnx_outer_reads(ex->g, np, &outer);
    for (size_t k = 0; k < nouter && nin + k < (size_t)node_nargs(n); k++)
        inherit(ex, made, node_arg(n, (int)(nin + k)), outer[k]);
    free(outer);
}

typedef VEC(uint32_t) IdList;

/* The ids below which all nodes are @main's parameters: the import makes
 * them first, so that they are ids 0 to graph_nparams - 1 when the last
 * one is graph_nparams - 1 (each one made takes the next id), and
 * list_live_calls passes them by (a parameter is no call and no constant:
 * 8 instructions each, 50,000 in each ONNX job of bench/workload.sh);
 * else 0. */
static uint32_t params_first(const graft_graph *g)
{
    int n = graph_nparams(g);
    return n > 0 && node_id(graph_params(g)[n - 1]) == (uint32_t)n - 1 ? (uint32_t)n : 0;
}

/* note [live calls listed]: the ids of the nodes of the model (its calls,
 * its Constant nodes) still live in @main, in the model's order, found
 * once for inherit_names and emit_nodes: each walked the model's ids
 * (most a graph input, or a call rewritten or moved into a partition's
 * function), 8 instructions an id, 110,000 ids in each ONNX job of
 * bench/workload.sh.  The same walk lists the model's tensor constants
 * live in @main, for mark_read (note [initializers read]). */
static void list_live_calls(const Exporter *ex, IdList *calls, IdList *tensors)
{
    Onnx__NodeProto *const *origin = ex->m->origin; /* (read once, not per id) */
    const uint8_t *live = ex->live;
    for (uint32_t id = params_first(ex->g), norigin = ex->m->norigin; id < norigin; id++) {
        if (!live[id])
            continue;
        const graft_node *n = graph_node(ex->g, id);
        if (node_scope(ex->g, n))
            continue; /* (asked first: a partition's body, most of its ids) */
        if (origin[id])
            vec_push(calls, id);
        if (node_kind(n) == NODE_CONST && !node_const_is_scalar(n))
            vec_push(tensors, id);
    }
}

/* A value a rewrite made in place of one the model named, which no live
 * node makes now, takes that name where a call of the model reads it, so
 * that the readers stay as they were (a rewrite of one node changes one
 * NodeProto; a subgraph's read stays as it was).  calls: list_live_calls's. */
static void inherit_names(Exporter *ex, const IdList *calls)
{
    MadeNames made = {0}; /* the names live nodes make */
    for (size_t i = 0; i < calls->len; i++) {
        uint32_t id = calls->items[i];
        inherit_operands(ex, &made, graph_node(ex->g, id), ex->m->origin[id]);
    }
    keymap_free(&made.names);
}

/* name interned: name itself when the model keys a value by it (a
 * decoded name is the interned one, note [names as decoded] in
 * onnx_import.c; a lookup of the pointer is a third of interning it
 * again, bench/onnx_e2e.sh's 2,000 graph outputs), else interned. */
static const char *interned_name(const Exporter *ex, const char *name)
{
    return onnx_value_named(&ex->m->values, name) ? name : graph_intern(ex->g, name);
}

/* The index of the graph output named name, or -1 (the map made at the
 * first ask: only a call of several results asks, few models have one). */
static int output_index(Exporter *ex, const char *name)
{
    const Onnx__GraphProto *gp = ex->m->proto->graph;
    if (!ex->output_index.len)
        for (size_t k = 0; k < gp->n_output; k++)
            *keymap_put(&ex->output_index,
                        keymap_ptr_key(interned_name(ex, gp->output[k]->name)), 0) =
                (int64_t)k + 1;
    const int64_t *k = keymap_get(&ex->output_index, keymap_ptr_key(interned_name(ex, name)));
    return k ? (int)*k - 1 : -1;
}

bool export_results_moved(Exporter *ex, const graft_node *call, const Onnx__NodeProto *np)
{
    graft_node *out = graph_output(ex->g);
    for (size_t i = 0; i < np->n_output; i++) {
        int k = np->output[i][0] ? output_index(ex, np->output[i]) : -1;
        if (k >= 0 && graph_output_at(ex->m, out, k) != export_result_of(ex, call, (int)i))
            return true;
    }
    return false;
}

/* note [outputs' old values renamed]: graph output k is written under
 * the model's name for it, whatever value a rewrite made output k.  The
 * value the model made under that name may still be live: a rewrite that
 * puts an op after an output (Relu(t) in place of t) reads it.  Both
 * written under the name would make the name twice, which ONNX forbids
 * (a graph is in single static assignment form), so the old value takes
 * a fresh name, and the calls that read it are written anew reading that
 * name (untouched in onnx_export_node.c compares their names).  A value
 * a partition moved into a function is written there, under its own
 * name in the function's body, and keeps it.  A constant of the model
 * renamed is written again under the fresh name (emit_renamed_constant),
 * and a call of several results of the model, one of which is named as
 * an output given another value, is written anew, its results named as
 * the export names them (the old one fresh if still read, else "", as an
 * unread result of a call made; export_results_moved).
 * A graph input cannot be renamed (the model's interface names it), so
 * no rewrite gives an output that is an input another value (note
 * [fixed outputs] in src/ir/graph_module.c). */
static void rename_old_output(Exporter *ex, const graft_node *now, uint32_t old_id,
                              const char *name)
{
    if (old_id == UINT32_MAX || !ex->live[old_id] || old_id == node_id(now))
        return; /* (a node the rewrite left dead may be freed: asked by id) */
    const graft_node *old = graph_node(ex->g, old_id);
    if (node_kind(old) != NODE_VAR && !node_scope(ex->g, old)) { /* (a partition's body
                                                                    names its own values) */
        export_name_value(ex, old, export_fresh_name(ex, name));
        ex->state[old_id] |= EXPORT_RENAMED;
    }
}

/* A constant of the model renamed as a graph output's old value: its
 * Constant node or initializer written again under the fresh name, the
 * bytes as they were (an initializer's raw or external data, a Constant's
 * attribute); the model's own, of the output's name, is left out (the
 * initializers kept are those read under their names, keep_initializers). */
static void emit_renamed_constant(Exporter *ex, const graft_node *n)
{
    const char *name = export_value_name(ex, n);
    const Onnx__NodeProto *constant = ex->m->origin[node_id(n)];
    if (constant) {
        Onnx__NodeProto *np = export_alloc(ex, sizeof *np);
        *np = *constant;
        np->output = export_alloc(ex, sizeof *np->output);
        np->output[0] = (char *)name;
        vec_push(&ex->nodes, np);
        return;
    }
    const Onnx__GraphProto *gp = ex->m->proto->graph;
    const char *was = node_const_text(n);
    for (size_t i = 0; i < gp->n_initializer; i++)
        if (strcmp(gp->initializer[i]->name, was) == 0) {
            Onnx__TensorProto *tp = export_alloc(ex, sizeof *tp);
            *tp = *gp->initializer[i];
            tp->name = (char *)name;
            vec_push(&ex->inits, tp);
            return;
        }
}

/* A call a rewrite made that makes graph output k is named after it, and
 * the model's value of that name, still live, renamed (note [outputs' old
 * values renamed]). */
static void name_outputs(Exporter *ex)
{
    const Onnx__GraphProto *gp = ex->m->proto->graph;
    graft_node *out = graph_output(ex->g);
    for (int k = 0; k < ex->m->noutputs; k++) {
        graft_node *o = graph_output_at(ex->m, out, k);
        const char *name = interned_name(ex, gp->output[k]->name);
        rename_old_output(ex, o, ex->m->output_ids[k], name);
        if (unnamed(ex, o))
            export_name_value(ex, o, name);
    }
}

void export_push_made(Exporter *ex, Onnx__NodeProto *np, EncodeInterned interned)
{
    vec_push(&ex->made_interned, interned);
    vec_push(&ex->made, (uint32_t)ex->nodes.len);
    vec_push(&ex->nodes, np);
}

/* Puts call n's NodeProto in the node list: the model's, or one made. */
static void push_node_proto(Exporter *ex, const graft_node *n)
{
    uint32_t id = node_id(n);
    EncodeInterned interned = {0, false, false, false, false};
    Onnx__NodeProto *np = export_node_proto(ex, n, &interned);
    if (id < ex->m->norigin && np == ex->m->origin[id])
        vec_push(&ex->nodes, np);
    else
        export_push_made(ex, np, interned);
}

/* Puts n in the lists once its operands are there.  Inline in emit_from,
 * its two callers (the call was 9 instructions a node emitted,
 * bench/workload.sh). */
GRAFT_HOT void emit(Exporter *ex, const graft_node *n)
{
    uint32_t id = node_id(n);
    if (ex->state[id] & EXPORT_DONE)
        return;
    ex->state[id] |= EXPORT_DONE;
    if (node_kind(n) == NODE_CALL && node_callee(n))
        export_function_call(ex, n);
    else if (node_kind(n) == NODE_CALL)
        push_node_proto(ex, n);
    else if (node_kind(n) == NODE_CONST && node_const_is_scalar(n))
        export_scalar_initializer(ex, n);
    else if (made_tensor(ex, n)) {
        size_t nbytes;
        const void *bytes = node_const_data(n, &nbytes);
        vec_push(&ex->inits, export_new_tensor(ex, export_value_name(ex, n), node_type(n),
                                               bytes, nbytes));
    }
    else if (node_kind(n) == NODE_CONST && (ex->state[id] & EXPORT_RENAMED))
        emit_renamed_constant(ex, n);
    else if (node_kind(n) == NODE_CONST && id < ex->m->norigin && ex->m->origin[id])
        vec_push(&ex->nodes, ex->m->origin[id]); /* note [constant nodes] in onnx_import.c */
}

/* Whether n reads nothing still to emit: each operand a variable or
 * emitted (or none walked: n opaque). */
static bool operands_emitted(const Exporter *ex, const graft_node *n)
{
    if (node_is_opaque(n))
        return true;
    for (int i = 0; i < node_nargs(n); i++) {
        const graft_node *a = node_arg(n, i);
        if (node_kind(a) != NODE_VAR && !(ex->state[node_id(a)] & EXPORT_DONE))
            return false;
    }
    return true;
}

/* Emits root after what it reads, depth first, iteratively; an operand
 * that reads nothing (a constant), or nothing still to emit (a call of
 * graph inputs: the workload's 10,000 made batch norms and partitions'
 * calls, 50 instructions each, bench/workload.sh), at once, without a
 * frame of its own, which it would leave at once, and a variable (a
 * graph input, which puts nothing in the lists) not at all (issue 28's
 * model: five of six operands, bench/onnx_e2e.sh). */
static void emit_from(Exporter *ex, graft_node *root)
{
    typedef struct Frame {
        graft_node *n;
        int next;
    } Frame;
    VEC(Frame) stack = {0};
    if (!(ex->state[node_id(root)] & EXPORT_DONE))
        vec_push(&stack, ((Frame){root, 0}));
    while (stack.len) {
        Frame *f = &stack.items[stack.len - 1];
        if (f->next < node_nargs(f->n) && !node_is_opaque(f->n)) {
            graft_node *a = node_arg(f->n, f->next++);
            if (node_kind(a) == NODE_VAR || ex->state[node_id(a)] & EXPORT_DONE)
                continue;
            if (node_nargs(a) == 0 || operands_emitted(ex, a))
                emit(ex, a);
            else
                vec_push(&stack, ((Frame){a, 0}));
            continue;
        }
        emit(ex, f->n);
        stack.len--;
    }
    vec_free(&stack);
}

/* An Identity node copying value from to graph output to. */
static void copy_to_output(Exporter *ex, const char *from, const char *to)
{
    Onnx__NodeProto *np = export_alloc(ex, sizeof *np);
    onnx__node_proto__init(np);
    np->n_input = np->n_output = 1;
    np->input = export_name_array(ex, 1);
    np->output = export_name_array(ex, 1);
    np->input[0] = (char *)from;
    np->output[0] = (char *)to;
    np->op_type = "Identity";
    np->name = (char *)export_fresh_name(ex, "Identity");
    export_push_made(ex, np, (EncodeInterned){0, false, true, false, false}); /* (its name fresh) */
}

/* Calls in the model's order (calls: list_live_calls's, which leaves out
 * a partition's nodes, written in its function), each after what it
 * reads; then what the output reads; then the copies to graph outputs
 * named otherwise. */
static void emit_nodes(Exporter *ex, const IdList *calls)
{
    const Onnx__GraphProto *gp = ex->m->proto->graph;
    /* room for a node of each live call and of each graph output, what a
     * rewrite's made nodes mostly make (as the lists grew from nothing, 40
     * instructions a node made, bench/workload.sh; room for every id made
     * since the import was 3 MB more at the partition's peak) */
    size_t room = calls->len + (size_t)ex->m->noutputs;
    vec_reserve(&ex->nodes, room);
    vec_reserve(&ex->made, room);
    vec_reserve(&ex->made_interned, room);
    for (size_t i = 0; i < calls->len && ex->ok; i++)
        emit_from(ex, graph_node(ex->g, calls->items[i]));
    graft_node *out = graph_output(ex->g);
    emit_from(ex, out);
    for (int k = 0; k < ex->m->noutputs && ex->ok; k++) {
        const char *name = export_value_name(ex, graph_output_at(ex->m, out, k));
        if (name != gp->output[k]->name && strcmp(name, gp->output[k]->name) != 0)
            copy_to_output(ex, name, gp->output[k]->name);
    }
}

/* The names of the values the written graph makes or takes. */
static void made_names(Exporter *ex, KeyMap *made)
{
    const Onnx__GraphProto *gp = ex->m->proto->graph;
    for (size_t i = 0; i < gp->n_input; i++)
        keymap_put_ptr(made, graph_intern(ex->g, gp->input[i]->name), gp);
    for (size_t i = 0; i < ex->inits.len; i++)
        keymap_put_ptr(made, graph_intern(ex->g, ex->inits.items[i]->name), gp);
    for (size_t i = 0; i < ex->nodes.len; i++)
        for (size_t k = 0; k < ex->nodes.items[i]->n_output; k++)
            keymap_put_ptr(made, graph_intern(ex->g, ex->nodes.items[i]->output[k]), gp);
}

/* note [initializers read]: whether an initializer is still read is asked
 * of a map of the initializers' names, marked by the names of the
 * variables and live tensor constants, not of a map of every such value's
 * name: a model has far fewer initializers than inputs and values (issue
 * 28's model, 50,000 inputs and one initializer: filling a map of 50,000
 * names was 270 instructions an op node, bench/onnx_e2e.sh).  The names
 * export_value_name gives those values are interned already (a
 * variable's or constant's own, a value name's), so they are keys as
 * they are, or fresh, and no initializer's (note [fresh names not
 * interned]).  Those values are not found by a walk over every id (12
 * instructions an id, 120,000 in each ONNX job of bench/workload.sh): the
 * variables in no function are @main's parameters (a function's are put
 * in its scope as it is made, graph_add_func), and the tensor constants
 * that may have an initializer's name are the model's, listed by
 * list_live_calls: one a rewrite made (an id past norigin) is named
 * afresh (made_tensor), and a fresh name is no name the model has. */

/* Whether the graph itself reads tensor constant n: the graph's output, or
 * an operand of a live node in no function.  A partition's function holds
 * a Constant of its own for each constant of its body (note [onnx
 * partitions] in onnx_export_fn.c), so an initializer that only bodies
 * read is read no more (tests/onnx/shared_const/run.golden). */
static bool read_by_graph(const Exporter *ex, const graft_node *n)
{
    if (n == graph_output(ex->g))
        return true;
    for (int k = node_user_first(n); k < node_user_end(n); k = node_user_next(n, k)) {
        const graft_node *user = node_user(n, k);
        if (ex->live[node_id(user)] && !node_scope(ex->g, user))
            return true;
    }
    return false;
}

/* note [initializer filter]: the walk asks after the name of every
 * variable (the seed's workload: 50,000 graph inputs, and as many
 * parameters of its partition's functions) whether an initializer has it,
 * and a model has few initializers, or one.  So a word of bits, one set
 * per initializer's name (its bit by cache_slot of the interned address),
 * answers most of them no before the map is asked: 25 instructions fewer
 * a variable (bench/onnx_e2e.sh); a model of many initializers sets most
 * bits and asks the map as before. */
static uint64_t name_bit(const char *name)
{
    return (uint64_t)1 << cache_slot((uint64_t)(uintptr_t)name, 6);
}

/* Marks the initializer named as n's value, if any; bits: the
 * initializers' name_bit's (note [initializer filter]). */
static inline void mark_name(Exporter *ex, KeyMap *read, uint64_t bits, const graft_node *n)
{
    const char *name = export_value_name(ex, n);
    int64_t *mark = bits & name_bit(name) ? keymap_get(read, keymap_ptr_key(name)) : NULL;
    if (mark)
        *mark = 1;
}

/* Marks the initializers the graph reads: those @main's parameters are
 * named as, and those of the model's tensor constants (tensors:
 * list_live_calls's) the graph reads (note [initializers read]).  A
 * variable of a function, a partition's parameter, reads no initializer
 * (the function's inputs are named by position, note [onnx partitions]
 * in onnx_export_fn.c; the value passed to it is the graph's): it is not
 * asked (its name was 46 instructions a parameter, 50,000 on the
 * workload's partition, bench/workload.sh). */
static void mark_read(Exporter *ex, KeyMap *read, uint64_t bits, const IdList *tensors)
{
    graft_node *const *params = graph_params(ex->g);
    for (int i = 0, n = graph_nparams(ex->g); i < n; i++)
        if (node_kind(params[i]) == NODE_VAR && !node_scope(ex->g, params[i]))
            mark_name(ex, read, bits, params[i]);
    for (size_t i = 0; i < tensors->len; i++) {
        const graft_node *c = graph_node(ex->g, tensors->items[i]);
        if (read_by_graph(ex, c))
            mark_name(ex, read, bits, c);
    }
}

/* The initializers still read (note [kept values] keeps those nothing
 * read to begin with), in their order, before the new ones. */
static void keep_initializers(Exporter *ex, const IdList *tensors)
{
    const Onnx__GraphProto *gp = ex->m->proto->graph;
    KeyMap read = {0}; /* an initializer's interned name -> 1 once read */
    const char **names = xcalloc(gp->n_initializer + 1, sizeof *names);
    uint64_t bits = 0;
    for (size_t i = 0; i < gp->n_initializer; i++) {
        names[i] = graph_intern(ex->g, gp->initializer[i]->name);
        keymap_put(&read, keymap_ptr_key(names[i]), 0);
        bits |= name_bit(names[i]);
    }
    if (gp->n_initializer) /* note [initializers read] */
        mark_read(ex, &read, bits, tensors);
    Onnx__TensorProto **made = ex->inits.items; /* the scalars made */
    size_t nmade = ex->inits.len;
    ex->inits.items = NULL;
    ex->inits.len = ex->inits.cap = 0;
    for (size_t i = 0; i < gp->n_initializer; i++)
        if (*keymap_get(&read, keymap_ptr_key(names[i])))
            vec_push(&ex->inits, gp->initializer[i]);
    for (size_t i = 0; i < nmade; i++)
        vec_push(&ex->inits, made[i]);
    free(made);
    free(names);
    keymap_free(&read);
}

/* value_info entries of values still made, in their order. */
static Onnx__ValueInfoProto **kept_value_info(Exporter *ex, size_t *n)
{
    const Onnx__GraphProto *gp = ex->m->proto->graph;
    KeyMap made = {0};
    if (gp->n_value_info) /* (the map is most of the work) */
        made_names(ex, &made);
    Onnx__ValueInfoProto **kept = xcalloc(gp->n_value_info + 1, sizeof *kept);
    *n = 0;
    for (size_t i = 0; i < gp->n_value_info; i++)
        if (keymap_get_ptr(&made, graph_intern(ex->g, gp->value_info[i]->name)))
            kept[(*n)++] = gp->value_info[i];
    keymap_free(&made);
    return kept;
}

/* model, whose graph holds ex's nodes, as bytes: the messages the model
 * read as the bytes read (note [canonical spans] in onnx_span.h), the
 * functions and nodes made here as the bytes packed (note [functions
 * packed once] in onnx_export_fn.c, note [made nodes packed] in
 * onnx_export_pack.c). */
static void write_binary(Exporter *ex, const Onnx__ModelProto *model, FILE *out)
{
    OnnxMadeBytes made = {.functions = &ex->function_spans, .graph = &model->graph->base};
    OnnxSpan *nodes = NULL;
    uint8_t *block = NULL;
    if (ex->made.len && export_pack_fields_known()) {
        nodes = xcalloc(ex->nodes.len, sizeof *nodes);
        block = export_pack_nodes(ex->nodes.items, ex->made.items, ex->made_interned.items,
                                  ex->made.len, nodes);
        made.nodes = nodes;
    }
    onnx_model_write_made(model, ex->m->proto, &made, out);
    free(block);
    free(nodes);
}

static void exporter_free(Exporter *ex)
{
    arena_free(ex->arena);
    vec_free(&ex->nodes);
    vec_free(&ex->made);
    vec_free(&ex->made_interned);
    vec_free(&ex->inits);
    vec_free(&ex->need);
    keymap_free(&ex->scalars);
    keymap_free(&ex->introduced);
    strbuf_free(&ex->scratch);
    strbuf_free(&ex->fresh_prefix);
    export_functions_free(ex);
    free(ex->value);
    free(ex->made_call);
    keymap_free(&ex->model_call);
    keymap_free(&ex->output_index);
    free(ex->live);
    free(ex->state);
}

/* Marks what the output reaches (note [reached by a sweep] in
 * src/ir/graph_walk.c: graph_topo_ids's order, not needed here, cost 90
 * instructions an op node, bench/onnx_e2e.sh). */
static void mark_live(Exporter *ex)
{
    graph_reached(ex->g, ex->live);
}

bool onnx_export(OnnxModel *m, FILE *out, bool text, graft_diag *d)
{
    size_t count = (size_t)graph_node_count(m->g) + 1;
    Exporter ex = {.m = m, .g = m->g, .d = d, .ok = true, .arena = arena_new(),
                   .fresh = "0", .fresh_len = 1,
                   .made_domains = graph_node_domain_count(m->g) > m->import_domains};
    ex.value = xmalloc(count * sizeof *ex.value); /* note [names not zeroed] */
    ex.made_call = xmalloc((count - m->norigin) * sizeof *ex.made_call); /* (the same) */
    ex.live = xcalloc(count, 1);
    ex.state = xcalloc(count, 1);
    mark_live(&ex);
    name_outputs(&ex);
    IdList calls = {0}, tensors = {0};
    list_live_calls(&ex, &calls, &tensors);
    inherit_names(&ex, &calls);
    emit_nodes(&ex, &calls);
    vec_free(&calls);
    bool ok = ex.ok;
    if (ok) {
        keep_initializers(&ex, &tensors);
        Onnx__GraphProto graph = *m->proto->graph;
        graph.n_node = ex.nodes.len;
        graph.node = ex.nodes.items;
        graph.n_initializer = ex.inits.len;
        graph.initializer = ex.inits.items;
        graph.value_info = kept_value_info(&ex, &graph.n_value_info);
        Onnx__ModelProto model = *m->proto;
        model.graph = &graph;
        export_functions_finish(&ex, &model);
        ok = export_opsets_finish(&ex, &model);
        if (ok && text) /* a failed write: the caller's commit reports it */
            onnx_text_print(&model, out);
        else if (ok)
            write_binary(&ex, &model, out);
        free(graph.value_info);
        free(model.functions != m->proto->functions ? model.functions : NULL);
        free(model.opset_import != m->proto->opset_import ? model.opset_import : NULL);
    }
    vec_free(&tensors);
    exporter_free(&ex);
    return ok;
}

