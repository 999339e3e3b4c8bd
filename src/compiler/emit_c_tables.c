/* emit_c_tables.c - the graft_rule_set tables (pattern.h, ruleset.h) as static
 * const initialisers, every field that the lowering set. */
#include "emit_c_impl.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* note [enum names]: the generated C names enum constants.  Each name
 * comes from a switch without default, and -Wswitch is an error in this
 * file: a kind added to pattern.h or graph.h later stops the build here
 * until it is named, rather than reading past the end of a table. */
#pragma GCC diagnostic error "-Wswitch"

#define NAME(k) \
    case k:     \
        return #k

static const char *pred_kind_name(graft_pred_kind k)
{
    switch (k) {
        NAME(GRAFT_PRED_IS_CONST);
        NAME(GRAFT_PRED_IS_VAR);
        NAME(GRAFT_PRED_VAR_NAME);
        NAME(GRAFT_PRED_DTYPE);
        NAME(GRAFT_PRED_RANK);
        NAME(GRAFT_PRED_SHAPE);
        NAME(GRAFT_PRED_VALUE);
        NAME(GRAFT_PRED_OP_VALUE);
        NAME(GRAFT_PRED_ATTR);
    }
    return NULL;
}

static const char *item_kind_name(graft_item_kind k)
{
    switch (k) {
        NAME(GRAFT_PITEM_ANY);
        NAME(GRAFT_PITEM_OP);
        NAME(GRAFT_PITEM_FNCALL);
        NAME(GRAFT_PITEM_TUPLE);
        NAME(GRAFT_PITEM_GETITEM);
        NAME(GRAFT_PITEM_ALT);
        NAME(GRAFT_PITEM_STAR);
        NAME(GRAFT_PITEM_DOMPATH);
        NAME(GRAFT_PITEM_DOMREACH);
        NAME(GRAFT_PITEM_DOM);
        NAME(GRAFT_PITEM_CALL);
        NAME(GRAFT_PITEM_FN);
        NAME(GRAFT_PITEM_IF); NAME(GRAFT_PITEM_LET);
    }
    return NULL;
}

static const char *pat_kind_name(graft_pat_kind k)
{
    switch (k) {
        NAME(GRAFT_PAT_ANY);
        NAME(GRAFT_PAT_OP);
        NAME(GRAFT_PAT_FNCALL);
        NAME(GRAFT_PAT_TUPLE);
        NAME(GRAFT_PAT_GETITEM);
        NAME(GRAFT_PAT_ALT);
        NAME(GRAFT_PAT_STAR);
        NAME(GRAFT_PAT_DOM);
        NAME(GRAFT_PAT_CALL);
        NAME(GRAFT_PAT_FN);
        NAME(GRAFT_PAT_IF); NAME(GRAFT_PAT_LET);
        NAME(GRAFT_PAT_FNCALLEE);
    }
    return NULL;
}

static const char *expr_kind_name(graft_expr_kind k)
{
    switch (k) {
        NAME(GRAFT_EXPR_NUM);
        NAME(GRAFT_EXPR_STR);
        NAME(GRAFT_EXPR_BOOL);
        NAME(GRAFT_EXPR_SLOT);
        NAME(GRAFT_EXPR_LIST);
        NAME(GRAFT_EXPR_DTYPE);
        NAME(GRAFT_EXPR_CALL);
        NAME(GRAFT_EXPR_TUPLE);
        NAME(GRAFT_EXPR_GETITEM);
        NAME(GRAFT_EXPR_NOT);
        NAME(GRAFT_EXPR_AND);
        NAME(GRAFT_EXPR_OR);
        NAME(GRAFT_EXPR_CMP);
        NAME(GRAFT_EXPR_ARITH);
        NAME(GRAFT_EXPR_USERS);
        NAME(GRAFT_EXPR_RANK);
        NAME(GRAFT_EXPR_DTYPEOF);
        NAME(GRAFT_EXPR_SHAPE);
        NAME(GRAFT_EXPR_VALUE);
        NAME(GRAFT_EXPR_ATTR);
        NAME(GRAFT_EXPR_OPREF);
        NAME(GRAFT_EXPR_CALLEE);
        NAME(GRAFT_EXPR_SPLICE);
        NAME(GRAFT_EXPR_FOLD);
    }
    return NULL;
}

static const char *attr_kind_name(graft_attr_kind k)
{
    switch (k) {
        NAME(GRAFT_ATTR_INT);
        NAME(GRAFT_ATTR_FLOAT);
        NAME(GRAFT_ATTR_BOOL);
        NAME(GRAFT_ATTR_STRING);
        NAME(GRAFT_ATTR_NULL);
        NAME(GRAFT_ATTR_LIST);
        NAME(GRAFT_ATTR_OPAQUE);
        NAME(GRAFT_ATTR_TENSOR);
        NAME(GRAFT_ATTR_GRAPH);
    }
    return NULL;
}

static const char *cmp_op_name(graft_cmp_op k)
{
    switch (k) {
        NAME(GRAFT_CMP_EQ);
        NAME(GRAFT_CMP_NE);
        NAME(GRAFT_CMP_LT);
        NAME(GRAFT_CMP_LE);
        NAME(GRAFT_CMP_GT);
        NAME(GRAFT_CMP_GE);
    }
    return NULL;
}

#undef NAME

/* An enum constant's name, or "(TYPE)N" for a value outside the enum (a
 * corrupt table): the C stays right, only less readable. */
static const char *enum_name(const char *name, int v, const char *type, char *buf,
                             size_t size)
{
    if (name)
        return name;
    snprintf(buf, size, "(%s)%d", type, v);
    return buf;
}

#define ENUM_NAME(fn, v, type) \
    enum_name(fn((type)(v)), (int)(v), #type, (char[48]){0}, 48)

/* Appends ", .field = "string"" when s is set. */
static void put_str(StrBuf *sb, const char *field, const char *s)
{
    if (!s)
        return;
    strbuf_printf(sb, ", .%s = ", field);
    emit_c_string(sb, s);
}

/* Defines the n ids as "static const uint32_t ids_1_2[]", named by
 * content and written once per content (note [one definition]), as
 * items share them; returns the name. */
static const char *emit_ids(Emitter *E, const uint32_t *ids, int n)
{
    StrBuf sb = {0}, hint = {0};
    strbuf_putc(&sb, '{');
    strbuf_puts(&hint, "ids");
    for (int i = 0; i < n; i++) {
        strbuf_printf(&sb, "%s%u", i ? ", " : "", ids[i]);
        if (hint.len < 32)
            strbuf_printf(&hint, "_%u", ids[i]);
    }
    strbuf_putc(&sb, '}');
    const char *name = emit_def(E, "uint32_t", true, hint.data, sb.data);
    strbuf_free(&sb);
    strbuf_free(&hint);
    return name;
}

/* The pointer comment of a table entry: "ID: RULE (FILE:LINE)". */
static void emit_ref_comment(Emitter *E, uint32_t id, int rule, int line, int count)
{
    StrBuf sb = {0};
    emit_ref_text(E->rs, rule, line, count, &sb);
    emit_line(E, "/* %u: %s */", id, sb.data);
    strbuf_free(&sb);
}

/* ---- node tests ---- */

static const char *pred_dims(Emitter *E, uint32_t id, const graft_pred *p)
{
    StrBuf sb = {0}, hint = {0};
    strbuf_putc(&sb, '{');
    for (int i = 0; i < p->rank; i++)
        strbuf_printf(&sb, "%s%lld", i ? ", " : "", (long long)p->dims[i]);
    strbuf_putc(&sb, '}');
    strbuf_printf(&hint, "pred%u_dims", id);
    const char *name = emit_def(E, "int64_t", true, hint.data, sb.data);
    strbuf_free(&sb);
    strbuf_free(&hint);
    return name;
}

/* One graft_pred initialiser, fields in declaration order. */
static void pred_init(Emitter *E, const graft_pred *p, const char *dims)
{
    StrBuf sb = {0};
    strbuf_printf(&sb, "{.kind = %s", ENUM_NAME(pred_kind_name, p->kind, graft_pred_kind));
    put_str(&sb, "s", p->s);
    if (p->i)
        strbuf_printf(&sb, ", .i = %lld", (long long)p->i);
    if (p->f != 0 || p->kind == GRAFT_PRED_VALUE) {
        strbuf_puts(&sb, ", .f = ");
        emit_c_double(&sb, p->f);
    }
    if (p->rank)
        strbuf_printf(&sb, ", .rank = %d", p->rank);
    if (dims)
        strbuf_printf(&sb, ", .dims = %s", dims);
    put_str(&sb, "op", p->op);
    put_str(&sb, "key", p->key);
    put_str(&sb, "dflt", p->dflt);
    emit_line(E, "%s},", sb.data);
    strbuf_free(&sb);
}

void emit_preds(Emitter *E, const EmitRefs *refs)
{
    const graft_rule_set *rs = E->rs;
    if (!rs->npreds)
        return;
    emit_line(E, "/* ---- node tests, one per distinct test (graft_rules.h) ---- */");
    emit_blank(E);
    char **dims = xcalloc(rs->npreds, sizeof *dims);
    for (uint32_t i = 0; i < rs->npreds; i++)
        if (rs->preds[i].dims && rs->preds[i].rank)
            dims[i] = xstrdup(pred_dims(E, i, &rs->preds[i]));
    emit_table_start(E, "graft_pred", "preds");
    for (uint32_t i = 0; i < rs->npreds; i++) {
        emit_ref_comment(E, i, refs->pred_first[i], refs->pred_line[i], refs->pred_count[i]);
        pred_init(E, &rs->preds[i], dims[i]);
        free(dims[i]);
    }
    emit_table_end(E);
    free(dims);
}

/* ---- items ---- */

/* The id arrays of one item: names[0] its tests, names[1] its args. */
static void item_arrays(Emitter *E, const graft_item *it, char *names[2])
{
    names[0] = it->npreds ? xstrdup(emit_ids(E, it->preds, it->npreds)) : NULL;
    names[1] = it->nargs ? xstrdup(emit_ids(E, it->args, it->nargs)) : NULL;
}

static void item_init(Emitter *E, const graft_item *it, char *const names[2])
{
    StrBuf sb = {0};
    strbuf_printf(&sb, "{.kind = %s", ENUM_NAME(item_kind_name, it->kind, graft_item_kind));
    put_str(&sb, "op", it->op);
    if (it->commutative)
        strbuf_puts(&sb, ", .commutative = true");
    if (it->variadic)
        strbuf_puts(&sb, ", .variadic = true");
    if (it->index)
        strbuf_printf(&sb, ", .index = %d", it->index);
    if (it->npreds)
        strbuf_printf(&sb, ", .npreds = %d, .preds = %s", it->npreds, names[0]);
    if (it->nargs)
        strbuf_printf(&sb, ", .nargs = %d, .args = %s", it->nargs, names[1]);
    emit_line(E, "%s},", sb.data);
    strbuf_free(&sb);
}

void emit_items(Emitter *E, const EmitRefs *refs)
{
    const graft_rule_set *rs = E->rs;
    if (!rs->nitems)
        return;
    emit_line(E, "/* ---- shared sub-patterns (items), children before parents ---- */");
    emit_blank(E);
    char *(*names)[2] = xcalloc(rs->nitems, sizeof *names);
    for (uint32_t i = 0; i < rs->nitems; i++)
        item_arrays(E, &rs->items[i], names[i]);
    emit_table_start(E, "graft_item", "items");
    for (uint32_t i = 0; i < rs->nitems; i++) {
        emit_ref_comment(E, i, refs->item_first[i], refs->item_line[i], refs->item_count[i]);
        item_init(E, &rs->items[i], names[i]);
        free(names[i][0]);
        free(names[i][1]);
    }
    emit_table_end(E);
    free(names);
}

/* ---- attribute values ---- */

/* "&name" of each element, comma separated, into sb. */
static void addr_list(StrBuf *sb, char **names, int n)
{
    for (int i = 0; i < n; i++)
        strbuf_printf(sb, "%s&%s", i ? ", " : "", names[i]);
}

/* Appends s to sb as identifier characters, at most max of them. */
static void ident_part(StrBuf *sb, const char *s, size_t max)
{
    for (size_t n = 0; *s && n < max; s++, n++)
        strbuf_putc(sb, isalnum((unsigned char)*s) ? *s : '_');
}

/* The name an attribute value is defined under: its content where short
 * ("int_1", "float_1e_05", "str_NCHW"), else its kind. */
static void value_hint(const graft_attr_value *v, StrBuf *sb)
{
    char buf[32];
    switch (v->kind) {
    case GRAFT_ATTR_INT:
        strbuf_printf(sb, "int_%s%lld", v->i < 0 ? "neg" : "", v->i < 0 ? -(long long)v->i
                                                                         : (long long)v->i);
        return;
    case GRAFT_ATTR_BOOL:
        strbuf_puts(sb, v->i ? "bool_true" : "bool_false");
        return;
    case GRAFT_ATTR_FLOAT:
        snprintf(buf, sizeof buf, "%g", v->f);
        strbuf_puts(sb, "float_");
        ident_part(sb, buf[0] == '-' ? buf + 1 : buf, 16);
        if (buf[0] == '-')
            strbuf_puts(sb, "_neg");
        return;
    case GRAFT_ATTR_STRING:
        strbuf_puts(sb, "str_");
        ident_part(sb, v->s ? v->s : "", 24);
        return;
    case GRAFT_ATTR_NULL:
        strbuf_puts(sb, "none");
        return;
    case GRAFT_ATTR_OPAQUE: /* only models hold these, never rules */
        strbuf_puts(sb, "opaque");
        return;
    case GRAFT_ATTR_TENSOR:
        strbuf_puts(sb, "tensor");
        return;
    case GRAFT_ATTR_GRAPH:
        strbuf_puts(sb, "graph");
        return;
    case GRAFT_ATTR_LIST:
        strbuf_puts(sb, "list");
        return;
    }
    strbuf_puts(sb, "value");
}

const char *emit_attr_value(Emitter *E, const graft_attr_value *v)
{
    char **items = xcalloc((size_t)v->nitems + 1, sizeof *items);
    for (int i = 0; i < v->nitems; i++)
        items[i] = xstrdup(emit_attr_value(E, v->items[i]));
    StrBuf sb = {0}, hint = {0};
    value_hint(v, &hint);
    const char *list = NULL;
    if (v->nitems) {
        strbuf_putc(&sb, '{');
        addr_list(&sb, items, v->nitems);
        strbuf_putc(&sb, '}');
        StrBuf list_hint = {0};
        strbuf_printf(&list_hint, "%s_items", hint.data);
        list = emit_def(E, "graft_attr_value *const", true, list_hint.data, sb.data);
        strbuf_free(&list_hint);
        sb.len = 0;
    }
    strbuf_printf(&sb, "{.kind = %s", ENUM_NAME(attr_kind_name, v->kind, graft_attr_kind));
    if (v->i)
        strbuf_printf(&sb, ", .i = %lld", (long long)v->i);
    if (v->f != 0 || v->kind == GRAFT_ATTR_FLOAT) {
        strbuf_puts(&sb, ", .f = ");
        emit_c_double(&sb, v->f);
    }
    put_str(&sb, "s", v->s);
    put_str(&sb, "spelling", v->spelling);
    if (v->nitems)
        strbuf_printf(&sb, ", .nitems = %d, .items = %s", v->nitems, list);
    strbuf_putc(&sb, '}');
    const char *name = emit_def(E, "graft_attr_value", false, hint.data, sb.data);
    for (int i = 0; i < v->nitems; i++)
        free(items[i]);
    free(items);
    strbuf_free(&sb);
    strbuf_free(&hint);
    return name;
}

/* ---- pattern trees ---- */

/* The attribute bindings of p, named by content ("binds_epsilon") as
 * rules share them. */
static const char *pattern_binds(Emitter *E, const graft_pat *p)
{
    StrBuf sb = {0}, hint = {0};
    strbuf_puts(&sb, "{\n");
    for (int i = 0; i < p->nbinds; i++) {
        const graft_attr_value *d = p->binds[i].dflt;
        const char *dflt = d ? emit_attr_value(E, d) : NULL;
        strbuf_puts(&sb, "{.name = ");
        emit_c_string(&sb, p->binds[i].name);
        strbuf_printf(&sb, ", .slot = %d, .dflt = %s%s},\n", p->binds[i].slot,
                      dflt ? "&" : "", dflt ? dflt : "NULL");
    }
    strbuf_putc(&sb, '}');
    strbuf_puts(&hint, "binds");
    for (int i = 0; i < p->nbinds && hint.len < 32; i++) {
        strbuf_putc(&hint, '_');
        ident_part(&hint, p->binds[i].name ? p->binds[i].name : "", 16);
    }
    const char *binds = emit_def(E, "graft_attr_bind", true, hint.data, sb.data);
    strbuf_free(&sb);
    strbuf_free(&hint);
    return binds;
}

/* The array of the addresses of names, "static const TYPE *const". */
static char *addr_array(Emitter *E, const char *type, const char *name, char **names, int n)
{
    StrBuf sb = {0}, hint = {0};
    strbuf_putc(&sb, '{');
    addr_list(&sb, names, n);
    strbuf_putc(&sb, '}');
    strbuf_printf(&hint, "%s_kids", name);
    char *array = xstrdup(emit_def(E, type, true, hint.data, sb.data));
    strbuf_free(&sb);
    strbuf_free(&hint);
    return array;
}

/* A kind's enum name as a word of a name: "GRAFT_PAT_GETITEM" as
 * "getitem", to sb. */
static void kind_word(const char *enum_text, StrBuf *sb)
{
    const char *word = enum_text ? strchr(enum_text + strlen("GRAFT_"), '_') : NULL;
    for (const char *c = word ? word + 1 : "node"; *c; c++)
        strbuf_putc(sb, (char)tolower((unsigned char)*c));
}

/* What pattern node p stands for, for its name (emit_name_new): the
 * variable it binds, else its op, else its kind. */
static void pattern_what(const Emitter *E, const graft_pat *p, StrBuf *sb)
{
    const char *op = p->kind == GRAFT_PAT_OP ? E->rs->items[p->item].op : NULL;
    if (p->slot >= 0 && p->slot < E->nvars)
        strbuf_puts(sb, E->vars[p->slot] + strlen("v_"));
    else if (op)
        strbuf_puts(sb, op);
    else
        kind_word(pat_kind_name(p->kind), sb);
}

const char *emit_pattern(Emitter *E, const graft_pat *p)
{
    const char *have = emit_name_get(E, p);
    if (have)
        return have;
    char **kids = xcalloc((size_t)p->nkids + 1, sizeof *kids);
    for (int i = 0; i < p->nkids; i++)
        kids[i] = xstrdup(emit_pattern(E, p->kids[i]));
    StrBuf what = {0};
    pattern_what(E, p, &what);
    const char *name = emit_name_new(E, p, "pat", what.data);
    strbuf_free(&what);
    char *kid_array = p->nkids ? addr_array(E, "graft_pat *const", name, kids, p->nkids) : NULL;
    char *binds = p->nbinds ? xstrdup(pattern_binds(E, p)) : NULL;
    StrBuf sb = {0};
    strbuf_printf(&sb, "static const graft_pat %s = {.kind = %s, .item = %u, .slot = %d",
                  name, ENUM_NAME(pat_kind_name, p->kind, graft_pat_kind), p->item, p->slot);
    if (p->embed)
        strbuf_puts(&sb, ", .embed = true");
    if (p->callee)
        strbuf_printf(&sb, ", .callee = %d", p->callee);
    if (p->nkids)
        strbuf_printf(&sb, ", .nkids = %d, .kids = %s", p->nkids, kid_array);
    if (p->nbinds)
        strbuf_printf(&sb, ", .nbinds = %d, .binds = %s", p->nbinds, binds);
    emit_line(E, "%s, .line = %d, .col = %d, .last_line = %d, .last_col = %d};", sb.data,
              p->line, p->col, p->last_line, p->last_col);
    for (int i = 0; i < p->nkids; i++)
        free(kids[i]);
    free(kids);
    free(kid_array);
    free(binds);
    strbuf_free(&sb);
    return name;
}

/* How root j of rule is found, for the comment above its entry. */
static void root_how(const graft_rule *rule, int j, StrBuf *sb)
{
    const graft_root *rt = &rule->roots[j];
    strbuf_printf(sb, "root %d: ", j + 1);
    if (rt->via < 0) {
        strbuf_puts(sb, "labelled by the automaton");
        return;
    }
    if (rt->depth == 1)
        strbuf_puts(sb, "a user of the node of ");
    else
        strbuf_printf(sb, "%d operand steps above the node of ", rt->depth);
    emit_comment_text(sb, rule->slot_names[rt->via]);
}

/* note [compiled roots]: a rule of several roots (note [several roots]
 * in check_roots.c) is written as the interpreter lowers it, a graft_root
 * table over each root's pattern tree, so the shared driver (note [root
 * candidates] in match_roots.c) finds, orders and rewrites the later
 * roots as graft run does.  The comment above each entry says how the
 * root is found.  first names the first root's pattern, written already. */
char *emit_roots(Emitter *E, const graft_rule *rule, const char *first)
{
    char **pats = xcalloc((size_t)rule->nroots + 1, sizeof *pats);
    for (int j = 0; j < rule->nroots; j++)
        pats[j] = xstrdup(j ? emit_pattern(E, rule->roots[j].pattern) : first);
    StrBuf hint = {0}, how = {0};
    strbuf_printf(&hint, "%s_roots", E->prefix);
    char *name = xstrdup(emit_unique(E, hint.data));
    emit_line(E, "static const graft_root %s[] = {", name);
    for (int j = 0; j < rule->nroots; j++) {
        how.len = 0;
        root_how(rule, j, &how);
        emit_line(E, "    /* %s */", how.data);
        emit_line(E, "    {.pattern = &%s, .via = %d, .depth = %d},", pats[j],
                  rule->roots[j].via, rule->roots[j].depth);
    }
    emit_line(E, "};");
    for (int j = 0; j < rule->nroots; j++)
        free(pats[j]);
    free(pats);
    strbuf_free(&hint);
    strbuf_free(&how);
    return name;
}

/* ---- expressions (only for guards and actions left to the interpreter) ---- */

static const char *expr_attrs(Emitter *E, const graft_expr *x, const char *name, char **values)
{
    StrBuf sb = {0}, hint = {0};
    strbuf_puts(&sb, "{\n");
    for (int i = 0; i < x->nattrs; i++) {
        const graft_act_attr *a = &x->attrs[i];
        strbuf_printf(&sb, "{.src = %s, .name = ", a->src == GRAFT_ASRC_COPY ? "GRAFT_ASRC_COPY"
                                                                        : "GRAFT_ASRC_EXPR");
        emit_c_string(&sb, a->name);
        strbuf_printf(&sb, ", .value = %s%s, .slot = %d},\n", values[i] ? "&" : "",
                      values[i] ? values[i] : "NULL", a->slot);
    }
    strbuf_putc(&sb, '}');
    strbuf_printf(&hint, "%s_attrs", name);
    const char *attrs = emit_def(E, "graft_act_attr", true, hint.data, sb.data);
    strbuf_free(&sb);
    strbuf_free(&hint);
    return attrs;
}

/* (note [created attributes] in pattern.h) The declared attributes of a new call (the
 * op's, in TVM's order, with their defaults), once per distinct list, for
 * the interpreter's tree and the compiled action alike; returns the name. */
const char *emit_decls(Emitter *E, const graft_expr *x)
{
    StrBuf sb = {0}, hint = {0};
    strbuf_puts(&sb, "{\n");
    for (int i = 0; i < x->ndecls; i++) {
        const graft_attr_value *dv = x->decls[i].dflt;
        char *dflt = dv ? xstrdup(emit_attr_value(E, dv)) : NULL;
        strbuf_puts(&sb, "{.name = ");
        emit_c_string(&sb, x->decls[i].name);
        strbuf_printf(&sb, ", .dflt = %s%s},\n", dflt ? "&" : "", dflt ? dflt : "NULL");
        free(dflt);
    }
    strbuf_putc(&sb, '}');
    strbuf_puts(&hint, "decls_");
    for (const char *c = x->s ? x->s : "call"; *c; c++)
        strbuf_putc(&hint, isalnum((unsigned char)*c) ? *c : '_');
    const char *name = emit_def(E, "graft_attr_decl", true, hint.data, sb.data);
    strbuf_free(&sb);
    strbuf_free(&hint);
    return name;
}

/* The fields of an expression after kind, into sb. */
static void expr_fields(StrBuf *sb, const graft_expr *x, const char *kids, const char *attrs,
                        const char *decls, const char *attr)
{
    if (x->f != 0 || x->kind == GRAFT_EXPR_NUM) {
        strbuf_puts(sb, ", .f = ");
        emit_c_double(sb, x->f);
    }
    if (x->i)
        strbuf_printf(sb, ", .i = %lld", (long long)x->i);
    put_str(sb, "s", x->s);
    put_str(sb, "text", x->text);
    put_str(sb, "dtype", x->dtype);
    strbuf_printf(sb, ", .slot = %d", x->slot);
    if (x->kind == GRAFT_EXPR_CMP)
        strbuf_printf(sb, ", .cmp = %s", ENUM_NAME(cmp_op_name, x->cmp, graft_cmp_op));
    else if (x->kind == GRAFT_EXPR_ARITH)
        strbuf_printf(sb, ", .cmp = '%c'", x->cmp);
    else if (x->cmp)
        strbuf_printf(sb, ", .cmp = %d", x->cmp);
    if (x->nkids)
        strbuf_printf(sb, ", .nkids = %d, .kids = %s", x->nkids, kids);
    if (x->nattrs)
        strbuf_printf(sb, ", .nattrs = %d, .attrs = %s", x->nattrs, attrs);
    if (decls)
        strbuf_printf(sb, ", .ndecls = %d, .decls = %s", x->ndecls, decls);
    if (attr)
        strbuf_printf(sb, ", .attr = &%s", attr);
}

/* Writes the parts of x (kids, attribute values, its own value) first. */
static char **expr_parts(Emitter *E, const graft_expr *x, const char *kind, char **kids,
                         char **attr)
{
    for (int i = 0; i < x->nkids; i++)
        kids[i] = xstrdup(emit_expr(E, x->kids[i], kind));
    char **values = xcalloc((size_t)x->nattrs + 1, sizeof *values);
    for (int i = 0; i < x->nattrs; i++)
        if (x->attrs[i].value)
            values[i] = xstrdup(emit_expr(E, x->attrs[i].value, kind));
    *attr = x->attr ? xstrdup(emit_attr_value(E, x->attr)) : NULL;
    return values;
}

/* What expression node x stands for, for its name: the variable it
 * reads or asks about, a call's op, else its kind ("users_c", "nn_relu",
 * "num"). */
static void expr_what(const Emitter *E, const graft_expr *x, StrBuf *sb)
{
    bool asks = x->kind == GRAFT_EXPR_USERS || x->kind == GRAFT_EXPR_RANK ||
                x->kind == GRAFT_EXPR_DTYPEOF || x->kind == GRAFT_EXPR_SHAPE ||
                x->kind == GRAFT_EXPR_VALUE || x->kind == GRAFT_EXPR_ATTR;
    bool var = (asks || x->kind == GRAFT_EXPR_SLOT) && x->slot >= 0 && x->slot < E->nvars;
    if (x->kind == GRAFT_EXPR_CALL && x->s)
        strbuf_puts(sb, x->s);
    else if (x->kind != GRAFT_EXPR_SLOT || !var)
        kind_word(expr_kind_name(x->kind), sb);
    if (var)
        strbuf_printf(sb, "%s%s", x->kind == GRAFT_EXPR_SLOT ? "" : "_",
                      E->vars[x->slot] + strlen("v_"));
}

const char *emit_expr(Emitter *E, const graft_expr *x, const char *kind)
{
    const char *have = emit_name_get(E, x);
    if (have)
        return have;
    char **kids = xcalloc((size_t)x->nkids + 1, sizeof *kids), *attr;
    char **values = expr_parts(E, x, kind, kids, &attr);
    StrBuf what = {0};
    expr_what(E, x, &what);
    const char *name = emit_name_new(E, x, kind, what.data);
    strbuf_free(&what);
    char *kid_array = x->nkids ? addr_array(E, "graft_expr *const", name, kids, x->nkids) : NULL;
    char *attrs = x->nattrs ? xstrdup(expr_attrs(E, x, name, values)) : NULL;
    char *decls = x->ndecls ? xstrdup(emit_decls(E, x)) : NULL;
    StrBuf sb = {0};
    strbuf_printf(&sb, "static const graft_expr %s = {.kind = %s", name,
                  ENUM_NAME(expr_kind_name, x->kind, graft_expr_kind));
    expr_fields(&sb, x, kid_array, attrs, decls, attr);
    emit_line(E, "%s};", sb.data);
    for (int i = 0; i < x->nkids; i++)
        free(kids[i]);
    for (int i = 0; i < x->nattrs; i++)
        free(values[i]);
    free(kids);
    free(values);
    free(attr);
    free(kid_array);
    free(attrs);
    free(decls);
    strbuf_free(&sb);
    return name;
}
