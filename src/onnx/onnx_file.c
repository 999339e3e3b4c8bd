/* onnx_file.c - an ONNX model file for a command (onnx_file.h): read in
 * the format its name says (the binary .onnx, note [onnx bytes] in
 * onnx_model.h, or the text syntax, note [onnx text] in onnx_text.h),
 * imported as a graph (note [onnx import] in onnx_graph.h), checked
 * against the rules' ops, and written back (note [onnx export] in
 * onnx_export.c). */
#include "onnx_file.h"

#include <string.h>

#include "input_kind.h"
#include "keymap.h"
#include "onnx_text.h"
#include "onnx_text_where.h"

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

bool onnx_file_binary_output(const char *out)
{
    return out && strcmp(out, "-") != 0 && ends_with(out, ".onnx");
}

/* What the first bytes of a file given as a binary model say it is when
 * it is text: a Relay model, a rule file or ONNX's text syntax; NULL when
 * none of them. */
static const char *text_kind(const Source *src)
{
    size_t n = src->len < 4096 ? src->len : 4096;
    InputKind kind = input_kind_of_text(src->text, n);
    if (kind == INPUT_MODEL)
        return "a Relay model in text form";
    if (kind == INPUT_RULES)
        return "a rule file";
    return onnx_text_looks_like(src->text, n) ? "an ONNX model in text form" : NULL;
}

/* How a binary model is read: checked (note [graph check]), or not (the
 * caller makes the checks itself), or checked and lean (note [lean read]
 * in onnx_lean.h: only to be written back). */
typedef enum { READ_CHECKED, READ_UNCHECKED, READ_LEAN } ReadMode;

static Onnx__ModelProto *read_binary(const char *path, const graft_limits *limits,
                                     ReadMode mode, graft_diag *d)
{
    Source *src = source_read_binary(path, d);
    if (!src)
        return NULL;
    const char *is = text_kind(src);
    bool onnx_text = is && strcmp(is, "an ONNX model in text form") == 0;
    if (is)
        diag_byte_error(d, src->name, 0, "this is %s, not %s", is, onnx_text ?
                        "a binary ONNX model (name it *.onnxtxt)" : "an ONNX model");
    Onnx__ModelProto *model = is                     ? NULL
                              : mode == READ_LEAN    ? onnx_model_read_lean(src, limits, d)
                              : mode == READ_CHECKED ? onnx_model_read_taking(src, limits, d)
                                                     : onnx_model_read_unchecked(src, limits, d);
    source_free(src); /* the model holds the file's bytes now, not a copy */
    return model;
}

static Onnx__ModelProto *read_text(const char *path, const graft_limits *limits,
                                   graft_diag *d)
{
    Source *src = source_read(path, d);
    if (!src)
        return NULL;
    size_t n = src->len < 4096 ? src->len : 4096;
    const char *is = text_kind(src);
    if (!is && onnx_model_looks_like((const uint8_t *)src->text, n))
        is = "a binary ONNX model";
    bool wrong = is && strcmp(is, "an ONNX model in text form") != 0;
    if (wrong)
        diag_file_error(d, src->name, "this is %s, not an ONNX model in text form%s", is,
                        strcmp(is, "a binary ONNX model") == 0 ? " (name it *.onnx)" : "");
    Onnx__ModelProto *model = wrong ? NULL : onnx_text_read(src, limits, d);
    source_free(src);
    return model;
}

Onnx__ModelProto *onnx_file_read(const char *path, const graft_limits *limits, graft_diag *d)
{
    return input_onnx_is_text(path) ? read_text(path, limits, d) :
                                      read_binary(path, limits, READ_CHECKED, d);
}

Onnx__ModelProto *onnx_file_read_lean(const char *path, const graft_limits *limits,
                                      graft_diag *d)
{
    return input_onnx_is_text(path) ? read_text(path, limits, d) :
                                      read_binary(path, limits, READ_LEAN, d);
}

/* Whether the model declares a function of that domain and name (a
 * model-local function: its calls are known ops). */
static bool local_function(const Onnx__ModelProto *proto, const char *domain, const char *op)
{
    for (size_t i = 0; i < proto->n_functions; i++) {
        const Onnx__FunctionProto *f = proto->functions[i];
        if (f->name && strcmp(f->name, op) == 0 &&
            strcmp(f->domain ? f->domain : "", domain ? domain : "") == 0)
            return true;
    }
    return false;
}

/* The entry of rs->ops named op (the graph's interned name), or NULL;
 * found is a cache from name to 1 + the entry's index, 0 for none. */
static const graft_op_name *find_op(const graft_rule_set *rs, const char *op, KeyMap *found)
{
    int64_t *slot = keymap_put(found, keymap_ptr_key(op), -1);
    if (*slot < 0) {
        *slot = 0;
        for (uint32_t i = 0; i < rs->nops && !*slot; i++)
            if (strcmp(rs->ops[i].name, op) == 0)
                *slot = (int64_t)i + 1;
    }
    return *slot ? &rs->ops[*slot - 1] : NULL;
}

/* note [ops checked]: check_ops asks, for each call of a model, which of
 * the rule set's declared ops it names, and a model has a few dozen
 * distinct ops over thousands of calls: find_op's KeyMap put, and the
 * call of strcmp that compared two empty domains, were 60 of check_ops'
 * 100 instructions an op node (bench/onnx_e2e.sh).  The graph interns
 * op names, so the answers are kept by the name's pointer in a small
 * table (note [one cache slot] in keymap.h) in front of find_op's map,
 * and two domains are the same text first when they are one pointer.
 * Its 256 slots keep a few dozen ops apart (with 64, two of the
 * workload's five ops shared one, and a third of the calls missed).
 * Every call of a model just imported is made of a NodeProto of its main
 * graph, of the same op and domain, so the NodeProtos' ops are asked
 * first, as the import listed them (all_ops_declared, note [ops as
 * imported] in onnx_graph.h): when each is a declared op, so is each
 * call's, and the ids of the graph, parameters and elements among them,
 * are walked, each call's domain looked up, only to report what is not
 * (check_ops 54 instructions an op node of the workload, then 27 asking
 * each NodeProto, now none: the import's list costs it 13). */
enum { OPS_CHECKED_BITS = 8 };
typedef struct OpChecked {
    const char *name;         /* an op's interned name, or NULL */
    const graft_op_name *op;  /* find_op's answer */
} OpChecked;

/* find_op's answer for op, through checked. */
static const graft_op_name *op_checked(OpChecked *checked, const graft_rule_set *rs,
                                       const char *op, KeyMap *found)
{
    OpChecked *slot = &checked[cache_slot((uintptr_t)op, OPS_CHECKED_BITS)];
    if (slot->name != op) {
        slot->name = op;
        slot->op = find_op(rs, op, found);
    }
    return slot->op;
}

/* Whether two domains (NULL: the default, "") are the same. */
static bool same_domain_name(const char *a, const char *b)
{
    return a == b || strcmp(a ? a : "", b ? b : "") == 0;
}

/* Whether each op the main graph's NodeProtos call (m->ops, note [ops as
 * imported] in onnx_graph.h) is one the rules declare in its domain:
 * then so does each call, made of one of them (note [ops checked]).  The
 * calls' op names are the NodeProtos' (note [names as decoded] in
 * onnx_import.c). */
static bool all_ops_declared(const OnnxModel *m, const graft_rule_set *rs, OpChecked *checked,
                             KeyMap *found)
{
    for (size_t i = 0; i < m->ops.len; i++) {
        const graft_op_name *op = op_checked(checked, rs, m->ops.items[i].op, found);
        if (!op || !same_domain_name(op->domain, m->ops.items[i].domain))
            return false;
    }
    return true;
}

/* note [onnx models checked]: each call of an ONNX model names an op the
 * rules declare (stdpatterns/onnx_ops.graft, and what the rule files
 * declare: another domain's ops among them), in its domain, or a
 * model-local function; else, unless --allow-unknown-ops, an error naming
 * the node (at its op in a text model, note [text positions] in
 * onnx_text_where.h):
 *   model.onnx: error: node 'n1' (Frobnicate): unknown op; ...
 * The rule set carries the declared ops (graft_rule_set.ops), so that a
 * rewriter graft compile --exe built, which has no registry, checks a
 * model as graft run does. */
static int check_ops(const OnnxModel *m, const graft_rule_set *rs, graft_diag *d)
{
    int bad = 0;
    KeyMap found = {0};
    OpChecked checked[1 << OPS_CHECKED_BITS] = {{0}};
    if (all_ops_declared(m, rs, checked, &found)) {
        keymap_free(&found);
        return 0;
    }
    uint32_t count = graph_node_count(m->g);
    /* (past the graph inputs' parameters, the import's first nodes: note
     * [leaves skipped] in onnx_import_types.c) */
    for (uint32_t id = (uint32_t)graph_nparams(m->g); id < count; id++) {
        const graft_node *n = graph_node(m->g, id);
        if (node_kind(n) != NODE_CALL || !node_op(n))
            continue;
        const char *domain = graph_node_domain(m->g, n);
        const graft_op_name *op = op_checked(checked, rs, node_op(n), &found);
        bool same_domain = op && same_domain_name(op->domain, domain);
        if (same_domain || local_function(m->proto, domain, node_op(n)))
            continue;
        const char *label = onnx_node_label(m, n);
        onnx_error_at(d, m->proto, m->name, id < m->norigin ? m->origin[id] : NULL,
                      "node '%s' (%s%s%s): unknown op; the rules' ONNX registry declares no "
                      "such op%s", label ? label : "?", domain ? domain : "", domain ? "." : "",
                      node_op(n), domain ? " in that domain (declare it in a rule file)" : "");
        bad++;
    }
    keymap_free(&found);
    return bad;
}

void onnx_file_keep_decls(OnnxModel *m, const graft_rule_set *rs)
{
    for (uint32_t i = 0; i < rs->nops; i++) {
        OnnxOpDecl *decl = arena_alloc(graph_arena(m->g), sizeof *decl);
        decl->domain = rs->ops[i].domain ? graph_intern(m->g, rs->ops[i].domain) : NULL;
        decl->since = rs->ops[i].since;
        keymap_put_ptr(&m->decls, graph_intern(m->g, rs->ops[i].name), decl);
    }
}

OnnxModel *onnx_file_load(const char *path, const graft_limits *limits,
                          const graft_rule_set *rs, bool allow_unknown_ops, graft_diag *d)
{
    if (rs && !rs->onnx_opset) {
        diag_plain_error(d, "'%s' is an ONNX model, but the rules are for Relay; a rule file "
                         "for ONNX starts with 'opset onnx N'", path);
        return NULL;
    }
    OnnxModel *m;
    if (input_onnx_is_text(path)) {
        Onnx__ModelProto *proto = read_text(path, limits, d);
        m = proto ? onnx_import(proto, path, d) : NULL;
    } else { /* checked as imported: note [check in the import] in onnx_import.c */
        Onnx__ModelProto *proto = read_binary(path, limits, READ_UNCHECKED, d);
        m = proto ? onnx_import_checking(proto, path, d) : NULL;
    }
    if (m && rs && !allow_unknown_ops && check_ops(m, rs, d) > 0) {
        onnx_graph_free(m);
        return NULL;
    }
    if (m && rs)
        onnx_file_keep_decls(m, rs);
    return m;
}

bool onnx_file_write(void *ctx, const graft_graph *g, FILE *out, graft_diag *d)
{
    const OnnxOut *o = ctx;
    (void)g; /* the model's graph */
    return onnx_export(o->model, out, o->text, d);
}
