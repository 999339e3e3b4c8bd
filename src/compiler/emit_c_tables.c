/* emit_c_tables.c - the RuleSet tables (pattern.h, ruleset.h) as static
 * const initialisers, every field that the lowering set. */
#include "emit_c_impl.h"

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

static const char *pred_kind_name(PredKind k)
{
    switch (k) {
        NAME(PRED_IS_CONST); NAME(PRED_IS_VAR); NAME(PRED_VAR_NAME); NAME(PRED_DTYPE);
        NAME(PRED_RANK); NAME(PRED_SHAPE); NAME(PRED_VALUE); NAME(PRED_ATTR);
    }
    return NULL;
}

static const char *item_kind_name(PatItemKind k)
{
    switch (k) {
        NAME(PITEM_ANY); NAME(PITEM_OP); NAME(PITEM_FNCALL); NAME(PITEM_TUPLE);
        NAME(PITEM_GETITEM); NAME(PITEM_ALT); NAME(PITEM_STAR); NAME(PITEM_DOMPATH);
        NAME(PITEM_DOMREACH); NAME(PITEM_DOM);
    }
    return NULL;
}

static const char *pat_kind_name(PatKind k)
{
    switch (k) {
        NAME(PAT_ANY); NAME(PAT_OP); NAME(PAT_FNCALL); NAME(PAT_TUPLE); NAME(PAT_GETITEM);
        NAME(PAT_ALT); NAME(PAT_STAR); NAME(PAT_DOM);
    }
    return NULL;
}

static const char *expr_kind_name(ExprKind k)
{
    switch (k) {
        NAME(EXPR_NUM); NAME(EXPR_STR); NAME(EXPR_BOOL); NAME(EXPR_SLOT); NAME(EXPR_LIST);
        NAME(EXPR_DTYPE); NAME(EXPR_CALL); NAME(EXPR_TUPLE); NAME(EXPR_GETITEM);
        NAME(EXPR_NOT); NAME(EXPR_AND); NAME(EXPR_OR); NAME(EXPR_CMP); NAME(EXPR_ARITH);
        NAME(EXPR_USERS); NAME(EXPR_RANK); NAME(EXPR_DTYPEOF); NAME(EXPR_SHAPE);
        NAME(EXPR_VALUE); NAME(EXPR_ATTR);
    }
    return NULL;
}

static const char *attr_kind_name(AttrKind k)
{
    switch (k) {
        NAME(ATTR_INT); NAME(ATTR_FLOAT); NAME(ATTR_BOOL); NAME(ATTR_STRING);
        NAME(ATTR_NULL); NAME(ATTR_LIST);
    }
    return NULL;
}

static const char *cmp_op_name(CmpOp k)
{
    switch (k) {
        NAME(CMP_EQ); NAME(CMP_NE); NAME(CMP_LT); NAME(CMP_LE); NAME(CMP_GT); NAME(CMP_GE);
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

/* Writes "static const uint32_t NAME[] = {...};" for n ids. */
static void emit_ids(Emitter *E, const char *name, const uint32_t *ids, int n)
{
    StrBuf sb = {0};
    for (int i = 0; i < n; i++)
        strbuf_printf(&sb, "%s%u", i ? ", " : "", ids[i]);
    emit_line(E, "static const uint32_t %s[] = {%s};", name, sb.data);
    strbuf_free(&sb);
}

/* ---- node tests ---- */

static void pred_dims(Emitter *E, uint32_t id, const PatPred *p)
{
    StrBuf sb = {0};
    for (int i = 0; i < p->rank; i++)
        strbuf_printf(&sb, "%s%lld", i ? ", " : "", (long long)p->dims[i]);
    emit_line(E, "static const int64_t pred%u_dims[] = {%s};", id, sb.data);
    strbuf_free(&sb);
}

/* One PatPred initialiser, fields in declaration order. */
static void pred_init(Emitter *E, uint32_t id, const PatPred *p)
{
    StrBuf sb = {0};
    strbuf_printf(&sb, "{.kind = %s", ENUM_NAME(pred_kind_name, p->kind, PredKind));
    put_str(&sb, "s", p->s);
    if (p->i)
        strbuf_printf(&sb, ", .i = %lld", (long long)p->i);
    if (p->f != 0 || p->kind == PRED_VALUE) {
        strbuf_puts(&sb, ", .f = ");
        emit_c_double(&sb, p->f);
    }
    if (p->rank)
        strbuf_printf(&sb, ", .rank = %d", p->rank);
    if (p->dims && p->rank)
        strbuf_printf(&sb, ", .dims = pred%u_dims", id);
    put_str(&sb, "op", p->op);
    put_str(&sb, "key", p->key);
    put_str(&sb, "dflt", p->dflt);
    emit_line(E, "%s}, /* %u */", sb.data, id);
    strbuf_free(&sb);
}

void emit_preds(Emitter *E)
{
    const RuleSet *rs = E->rs;
    if (!rs->npreds)
        return;
    emit_line(E, "/* ---- node tests, one per distinct test (pattern.h) ---- */");
    emit_blank(E);
    for (uint32_t i = 0; i < rs->npreds; i++)
        if (rs->preds[i].dims && rs->preds[i].rank)
            pred_dims(E, i, &rs->preds[i]);
    emit_line(E, "static const PatPred preds[] = {");
    E->indent++;
    for (uint32_t i = 0; i < rs->npreds; i++)
        pred_init(E, i, &rs->preds[i]);
    E->indent--;
    emit_line(E, "};");
    emit_blank(E);
}

/* ---- items ---- */

static void item_init(Emitter *E, uint32_t id, const PatItem *it)
{
    StrBuf sb = {0};
    strbuf_printf(&sb, "{.kind = %s", ENUM_NAME(item_kind_name, it->kind, PatItemKind));
    put_str(&sb, "op", it->op);
    if (it->commutative)
        strbuf_puts(&sb, ", .commutative = true");
    if (it->variadic)
        strbuf_puts(&sb, ", .variadic = true");
    if (it->index)
        strbuf_printf(&sb, ", .index = %d", it->index);
    if (it->npreds)
        strbuf_printf(&sb, ", .npreds = %d, .preds = item%u_preds", it->npreds, id);
    if (it->nargs)
        strbuf_printf(&sb, ", .nargs = %d, .args = item%u_args", it->nargs, id);
    emit_line(E, "%s}, /* %u */", sb.data, id);
    strbuf_free(&sb);
}

void emit_items(Emitter *E)
{
    const RuleSet *rs = E->rs;
    if (!rs->nitems)
        return;
    emit_line(E, "/* ---- shared sub-patterns (items), children before parents ---- */");
    emit_blank(E);
    char name[48];
    for (uint32_t i = 0; i < rs->nitems; i++) {
        const PatItem *it = &rs->items[i];
        snprintf(name, sizeof name, "item%u_preds", i);
        if (it->npreds)
            emit_ids(E, name, it->preds, it->npreds);
        snprintf(name, sizeof name, "item%u_args", i);
        if (it->nargs)
            emit_ids(E, name, it->args, it->nargs);
    }
    emit_line(E, "static const PatItem items[] = {");
    E->indent++;
    for (uint32_t i = 0; i < rs->nitems; i++)
        item_init(E, i, &rs->items[i]);
    E->indent--;
    emit_line(E, "};");
    emit_blank(E);
}

/* ---- attribute values ---- */

/* "&name" of each element, comma separated, into sb. */
static void addr_list(StrBuf *sb, char **names, int n)
{
    for (int i = 0; i < n; i++)
        strbuf_printf(sb, "%s&%s", i ? ", " : "", names[i]);
}

const char *emit_attr_value(Emitter *E, const AttrValue *v)
{
    const char *have = emit_name_get(E, v);
    if (have)
        return have;
    char **items = xcalloc((size_t)v->nitems + 1, sizeof *items);
    for (int i = 0; i < v->nitems; i++)
        items[i] = xstrdup(emit_attr_value(E, v->items[i]));
    const char *name = emit_name_new(E, v, "value");
    StrBuf sb = {0};
    if (v->nitems) {
        addr_list(&sb, items, v->nitems);
        emit_line(E, "static const AttrValue *const %s_items[] = {%s};", name, sb.data);
        sb.len = 0;
    }
    strbuf_printf(&sb, "static const AttrValue %s = {.kind = %s", name,
                  ENUM_NAME(attr_kind_name, v->kind, AttrKind));
    if (v->i)
        strbuf_printf(&sb, ", .i = %lld", (long long)v->i);
    if (v->f != 0 || v->kind == ATTR_FLOAT) {
        strbuf_puts(&sb, ", .f = ");
        emit_c_double(&sb, v->f);
    }
    put_str(&sb, "s", v->s);
    put_str(&sb, "spelling", v->spelling);
    if (v->nitems)
        strbuf_printf(&sb, ", .nitems = %d, .items = %s_items", v->nitems, name);
    emit_line(E, "%s};", sb.data);
    for (int i = 0; i < v->nitems; i++)
        free(items[i]);
    free(items);
    strbuf_free(&sb);
    return name;
}

/* ---- pattern trees ---- */

static void pattern_binds(Emitter *E, const PatNode *p, const char *name)
{
    char **dflts = xcalloc((size_t)p->nbinds + 1, sizeof *dflts);
    for (int i = 0; i < p->nbinds; i++)
        if (p->binds[i].dflt)
            dflts[i] = xstrdup(emit_attr_value(E, p->binds[i].dflt));
    emit_line(E, "static const PatAttrBind %s_binds[] = {", name);
    E->indent++;
    for (int i = 0; i < p->nbinds; i++) {
        StrBuf sb = {0};
        emit_c_string(&sb, p->binds[i].name);
        emit_line(E, "{.name = %s, .slot = %d, .dflt = %s%s},", sb.data, p->binds[i].slot,
                  dflts[i] ? "&" : "", dflts[i] ? dflts[i] : "NULL");
        strbuf_free(&sb);
        free(dflts[i]);
    }
    E->indent--;
    emit_line(E, "};");
    free(dflts);
}

const char *emit_pattern(Emitter *E, const PatNode *p)
{
    const char *have = emit_name_get(E, p);
    if (have)
        return have;
    char **kids = xcalloc((size_t)p->nkids + 1, sizeof *kids);
    for (int i = 0; i < p->nkids; i++)
        kids[i] = xstrdup(emit_pattern(E, p->kids[i]));
    const char *name = emit_name_new(E, p, "pat");
    StrBuf sb = {0};
    if (p->nkids) {
        addr_list(&sb, kids, p->nkids);
        emit_line(E, "static const PatNode *const %s_kids[] = {%s};", name, sb.data);
        sb.len = 0;
    }
    if (p->nbinds)
        pattern_binds(E, p, name);
    strbuf_printf(&sb, "static const PatNode %s = {.kind = %s, .item = %u, .slot = %d",
                  name, ENUM_NAME(pat_kind_name, p->kind, PatKind), p->item, p->slot);
    if (p->embed)
        strbuf_puts(&sb, ", .embed = true");
    if (p->nkids)
        strbuf_printf(&sb, ", .nkids = %d, .kids = %s_kids", p->nkids, name);
    if (p->nbinds)
        strbuf_printf(&sb, ", .nbinds = %d, .binds = %s_binds", p->nbinds, name);
    emit_line(E, "%s, .line = %d};", sb.data, p->line);
    for (int i = 0; i < p->nkids; i++)
        free(kids[i]);
    free(kids);
    strbuf_free(&sb);
    return name;
}

/* ---- expressions ---- */

static void expr_attrs(Emitter *E, const PatExpr *x, const char *name, char **values)
{
    emit_line(E, "static const PatActAttr %s_attrs[] = {", name);
    E->indent++;
    for (int i = 0; i < x->nattrs; i++) {
        const PatActAttr *a = &x->attrs[i];
        StrBuf sb = {0};
        emit_c_string(&sb, a->name);
        emit_line(E, "{.src = %s, .name = %s, .value = %s%s, .slot = %d},",
                  a->src == ASRC_COPY ? "ASRC_COPY" : "ASRC_EXPR", sb.data,
                  values[i] ? "&" : "", values[i] ? values[i] : "NULL", a->slot);
        strbuf_free(&sb);
    }
    E->indent--;
    emit_line(E, "};");
}

/* The declared attributes of a new call (note [created attributes]). */
static void expr_decls(Emitter *E, const PatExpr *x, const char *name)
{
    char **dflts = xcalloc((size_t)x->ndecls + 1, sizeof *dflts);
    for (int i = 0; i < x->ndecls; i++)
        if (x->decls[i].dflt)
            dflts[i] = xstrdup(emit_attr_value(E, x->decls[i].dflt));
    emit_line(E, "static const PatAttrDecl %s_decls[] = {", name);
    E->indent++;
    for (int i = 0; i < x->ndecls; i++) {
        StrBuf sb = {0};
        emit_c_string(&sb, x->decls[i].name);
        emit_line(E, "{.name = %s, .dflt = %s%s},", sb.data, dflts[i] ? "&" : "",
                  dflts[i] ? dflts[i] : "NULL");
        strbuf_free(&sb);
        free(dflts[i]);
    }
    E->indent--;
    emit_line(E, "};");
    free(dflts);
}

/* The fields of an expression after kind, into sb. */
static void expr_fields(StrBuf *sb, const PatExpr *x, const char *name, const char *attr)
{
    if (x->f != 0 || x->kind == EXPR_NUM) {
        strbuf_puts(sb, ", .f = ");
        emit_c_double(sb, x->f);
    }
    if (x->i)
        strbuf_printf(sb, ", .i = %lld", (long long)x->i);
    put_str(sb, "s", x->s);
    put_str(sb, "text", x->text);
    put_str(sb, "dtype", x->dtype);
    strbuf_printf(sb, ", .slot = %d", x->slot);
    if (x->kind == EXPR_CMP)
        strbuf_printf(sb, ", .cmp = %s", ENUM_NAME(cmp_op_name, x->cmp, CmpOp));
    else if (x->kind == EXPR_ARITH)
        strbuf_printf(sb, ", .cmp = '%c'", x->cmp);
    else if (x->cmp)
        strbuf_printf(sb, ", .cmp = %d", x->cmp);
    if (x->nkids)
        strbuf_printf(sb, ", .nkids = %d, .kids = %s_kids", x->nkids, name);
    if (x->nattrs)
        strbuf_printf(sb, ", .nattrs = %d, .attrs = %s_attrs", x->nattrs, name);
    if (x->ndecls)
        strbuf_printf(sb, ", .ndecls = %d, .decls = %s_decls", x->ndecls, name);
    if (attr)
        strbuf_printf(sb, ", .attr = &%s", attr);
}

/* Writes the parts of x (kids, attribute values, its own value) first. */
static char **expr_parts(Emitter *E, const PatExpr *x, const char *kind, char **kids,
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

const char *emit_expr(Emitter *E, const PatExpr *x, const char *kind)
{
    const char *have = emit_name_get(E, x);
    if (have)
        return have;
    char **kids = xcalloc((size_t)x->nkids + 1, sizeof *kids), *attr;
    char **values = expr_parts(E, x, kind, kids, &attr);
    const char *name = emit_name_new(E, x, kind);
    StrBuf sb = {0};
    if (x->nkids) {
        addr_list(&sb, kids, x->nkids);
        emit_line(E, "static const PatExpr *const %s_kids[] = {%s};", name, sb.data);
        sb.len = 0;
    }
    if (x->nattrs)
        expr_attrs(E, x, name, values);
    if (x->ndecls)
        expr_decls(E, x, name);
    strbuf_printf(&sb, "static const PatExpr %s = {.kind = %s", name,
                  ENUM_NAME(expr_kind_name, x->kind, ExprKind));
    expr_fields(&sb, x, name, attr);
    emit_line(E, "%s};", sb.data);
    for (int i = 0; i < x->nkids; i++)
        free(kids[i]);
    for (int i = 0; i < x->nattrs; i++)
        free(values[i]);
    free(kids);
    free(values);
    free(attr);
    strbuf_free(&sb);
    return name;
}
