/* graph_module.c - the module text around @main that the printer keeps:
 * the version line, the Prelude's type declarations, the metadata
 * section, @main's name and result type, and the global functions. */
#include "graph.h"

#include <string.h>

#include "graph_impl.h"
#include "util.h"

const char *graph_version(const graft_graph *g)
{
    return g->version;
}

void graph_set_version(graft_graph *g, const char *text)
{
    g->version = text ? arena_strdup(g->arena, text) : NULL;
}

int graph_ntypedefs(const graft_graph *g)
{
    return g->ntypedefs;
}

const char *graph_typedef(const graft_graph *g, int i)
{
    return g->typedefs[i];
}

void graph_add_typedef(graft_graph *g, const char *text, size_t len)
{
    g->typedefs = xgrow_items(g->typedefs, &g->typedefs_cap, (size_t)g->ntypedefs + 1,
                              sizeof(char *));
    g->typedefs[g->ntypedefs++] = arena_strndup(g->arena, text, len);
}

const char *graph_metadata(const graft_graph *g)
{
    return g->metadata;
}

void graph_set_metadata(graft_graph *g, const char *text, size_t len)
{
    g->metadata = text ? arena_strndup(g->arena, text, len) : NULL;
}

/* note [bare module]: TVM's parser reads a module that is one bare
 * expression (free_var lines, bindings, a result, and no "def") as @main
 * without parameters, and its printer prints such an expression back
 * bare (AsText of an Expr: PrintScope at the top level).  The graph keeps
 * that it was read so, for the printer. */
bool graph_is_bare(const graft_graph *g)
{
    return g->bare;
}

void graph_set_bare(graft_graph *g)
{
    g->bare = true;
}

int graph_main_nattrs(const graft_graph *g)
{
    return g->nmain_attrs;
}

const graft_attr *graph_main_attr(const graft_graph *g, int i)
{
    return &g->main_attrs[i];
}

const char *graph_name(const graft_graph *g)
{
    return g->name;
}

void graph_set_name(graft_graph *g, const char *name)
{
    g->name = graph_intern(g, name);
}

const graft_type *graph_ret_type(const graft_graph *g)
{
    return g->ret;
}

void graph_set_graph_ret_type(graft_graph *g, const graft_type *type)
{
    g->ret = type;
}

const char *graph_type_params(const graft_graph *g)
{
    return g->type_params;
}

/* ---- global functions ---- */

int graph_nglobals(const graft_graph *g)
{
    return g->nglobals;
}

const char *graph_global_name(const graft_graph *g, int i)
{
    return g->globals[i].name;
}

graft_node *graph_global_fn(const graft_graph *g, int i)
{
    return g->globals[i].fn;
}

bool graph_global_defined(const graft_graph *g, int i)
{
    return g->globals[i].defined;
}

int graph_global_of(const graft_graph *g, const graft_node *n)
{
    const graft_node *fn = n->kind == NODE_FUNC ? n : node_scope(g, n);
    while (fn && node_scope(g, fn))
        fn = node_scope(g, fn);
    for (int i = 0; i < g->nglobals; i++)
        if (g->globals[i].defined && g->globals[i].fn == fn)
            return i;
    return -1; /* fn NULL: @main, listed only by a loaded module */
}

int graph_find_global(const graft_graph *g, const char *name)
{
    for (int i = 0; i < g->nglobals; i++)
        if (strcmp(g->globals[i].name, name) == 0)
            return i;
    return -1;
}

bool graph_add_global(graft_graph *g, const char *name, graft_node *fn)
{
    int i = graph_find_global(g, name);
    if (i >= 0 && g->globals[i].defined)
        return false;
    if (i < 0) {
        g->globals = xgrow_items(g->globals, &g->globals_cap, (size_t)g->nglobals + 1,
                                 sizeof *g->globals);
        i = g->nglobals++;
        g->globals[i] = (GlobalDef){.name = graph_intern(g, name)};
    }
    g->globals[i].fn = fn;
    g->globals[i].defined = true;
    g->swept = false; /* a new root (note [swept graph] in graph_walk.c) */
    return true;
}

/* note [main unscoped]: graph_add_func puts a function's body into its
 * scope (note [function scope] in graph_walk.c), a walk of the whole
 * body, and graph_make_main takes every node out of it again, a pass
 * over every node: for "def @main" both together were about 150
 * instructions an op node of loading (bench/RESULTS.md, "Session 21:
 * loading").  graph_add_main makes the function whose body is @main's
 * with its parameters and body in @main's scope (NULL) from the start,
 * as graph_make_main would leave them; the nested functions in it adopt
 * their own bodies when they are made, as before. */
graft_node *graph_add_main(graft_graph *g, graft_node *const *params, int nparams,
                           graft_node *body, const graft_attr *attrs, int nattrs)
{
    graft_node *fn = graph_new_func(g, params, nparams, attrs, nattrs);
    fn->u.fn->body = body;
    fn->u.fn->unscoped = true;
    return fn;
}

/* The loader builds every "def" as a function, then makes the one that is
 * @main the graph's own parameters and output (note [modules] in
 * relay_load.c).  Nodes in fn's scope move to @main's (NULL). */
void graph_make_main(graft_graph *g, graft_node *fn)
{
    FuncInfo *info = fn->u.fn;
    if (!g->nparams && !g->params) { /* (note [main's parameters] in graph.c) */
        g->params = info->params;
        g->params_borrowed = true;
        g->nparams = info->nparams;
    } else {
        g->params = xgrow_items(g->params, &g->params_cap,
                                (size_t)g->nparams + info->nparams + 1,
                                sizeof(graft_node *)); /* all at once, not one a parameter */
        for (int i = 0; i < info->nparams; i++)
            g->params[g->nparams++] = info->params[i];
    }
    uint32_t *fn_id = g->side.scopes.fn_id;
    for (size_t id = 0; id < g->side.scopes.cap && !info->unscoped; id++)
        if (fn_id[id] == fn->id + 1)
            fn_id[id] = 0;
    g->output = info->body;
    g->ret = node_ret_type(fn);
    g->type_params = node_type_params(fn);
    g->nmain_attrs = node_nattrs(fn);
    g->main_attrs = g->nmain_attrs ? node_tail(fn)->attrs : NULL;
    for (int i = 0; i < g->nglobals; i++)
        if (g->globals[i].fn == fn) {
            g->globals[i].fn = NULL;
            g->name = g->globals[i].name;
        }
    fn->dead = 1;
    g->ndead++;
    g->swept = false; /* new roots (note [swept graph] in graph_walk.c) */
}

/* note [fixed outputs]: a Relay @main returns whatever its body is, so a
 * rewrite of the body may give it another shape.  An ONNX graph's outputs
 * are a list fixed by the model, each one tensor, and the import makes
 * the graph's result a tuple of them followed by the values nothing reads
 * (note [kept values] in src/onnx/onnx_graph.h), or the one output
 * itself.  A rewrite that made that tuple shorter, or a tuple where a
 * tensor was, would leave the exporter a model it cannot write (it read
 * past the tuple's fields): such a rewrite is refused where it would
 * apply, as a guard that fails (src/runtime/rewrite.c), and graft explain
 * says why.  A tuple where the model has a tensor, an output among them,
 * is refused too: an ONNX value is a tensor (a field past the outputs, a
 * kept value, names nothing).  So is another value for an output that is
 * a graph input (a variable): the output's name is the input's, which no
 * node may make, so no model keeps the interface and gives it that value
 * (ONNX's checker refuses a name made twice).  A rewrite reaches such an
 * output by replacing the outputs' tuple (a rule of one root, or a root
 * of a rule of several) or the variable itself (a rule whose pattern is
 * a bare variable); a partition replaces calls only, but the outputs'
 * tuple, whose call, of one value, makes no tuple of them, is refused
 * (tests/onnx/input_outputs: each route, and a partition beside such an
 * output).  An output that is a constant is renamed instead (note
 * [outputs' old values renamed] in src/onnx/onnx_export.c).  One test,
 * graph_replacement_misfit, says it all: graft run asks it of the value
 * built, the partition of its call (engine_partition_misfit), graft
 * explain of the action before it is built, both of the rule it explains
 * and of a rule tried before it there, whose refusal leaves the node to
 * the next. */
void graph_fix_outputs(graft_graph *g, int fields)
{
    g->outputs_fixed = true;
    g->output_fields = fields;
}

int graph_fixed_output_fields(const graft_graph *g)
{
    return g->outputs_fixed ? g->output_fields : 0;
}

/* Whether root is a graph input that is a graph output: the one output,
 * or a field of the outputs' tuple (its users scanned: a rewrite of root
 * moves them all). */
static bool output_variable(const graft_graph *g, const graft_node *root)
{
    if (node_kind(root) != NODE_VAR)
        return false;
    if (g->output_fields == OUTPUT_ONE_VALUE)
        return root == g->output;
    for (int k = node_user_first(root); k < node_user_end(root); k = node_user_next(root, k))
        if (node_user(root, k) == g->output && node_user_operand(root, k) < g->output_fields)
            return true;
    return false;
}

ReplacementMisfit graph_replacement_misfit(const graft_graph *g, const graft_node *root,
                                           const ReplacementValue *by, int *field)
{
    bool tuple;
    *field = -1;
    if (!g->outputs_fixed)
        return REPLACEMENT_FITS;
    if (root != g->output || g->output_fields == OUTPUT_ONE_VALUE) {
        if (by->fields >= 0)
            return REPLACEMENT_TUPLE_FOR_TENSOR;
        bool moved = by->field(by, -1, &tuple) != root;
        return moved && output_variable(g, root) ? REPLACEMENT_INPUT : REPLACEMENT_FITS;
    }
    if (by->fields < 0)
        return REPLACEMENT_NO_TUPLE;
    if (by->fields < g->output_fields)
        return REPLACEMENT_FEWER_FIELDS;
    for (int k = 0; k < g->output_fields; k++) { /* (a kept value's field names nothing) */
        const graft_node *now = node_arg(root, k), *then = by->field(by, k, &tuple);
        *field = k;
        if (tuple)
            return REPLACEMENT_TUPLE_OUTPUT;
        if (then != now && node_kind(now) == NODE_VAR)
            return REPLACEMENT_INPUT;
    }
    *field = -1;
    return REPLACEMENT_FITS;
}

static const graft_node *made_field(const ReplacementValue *v, int k, bool *tuple)
{
    (void)v, (void)k;
    *tuple = false;
    return NULL;
}

const ReplacementValue GRAPH_MADE_TENSOR = {-1, made_field};

/* A node built, as graph_replacement_misfit reads it. */
typedef struct BuiltValue {
    ReplacementValue value;
    const graft_node *node;
} BuiltValue;

static const graft_node *built_field(const ReplacementValue *v, int k, bool *tuple)
{
    const graft_node *n = ((const BuiltValue *)v)->node;
    const graft_node *f = k < 0 ? n : node_arg(n, k);
    *tuple = node_kind(f) == NODE_TUPLE;
    return f;
}

bool graph_checked_replacement_fits(const graft_graph *g, const graft_node *root,
                                    const graft_node *by)
{
    if (!g->outputs_fixed)
        return true; /* (Relay's tuples and variables) */
    BuiltValue v = {{node_kind(by) == NODE_TUPLE ? node_nargs(by) : -1, built_field}, by};
    int field;
    return graph_replacement_misfit(g, root, &v.value, &field) == REPLACEMENT_FITS;
}
