/* registry_gen.c - graft-registry-gen, which make builds before libgraftc
 * and runs on stdpatterns/ops.graft and onnx_ops.graft
 * (note [compiled registry] in registry_tables.h):
 *
 *   graft-registry-gen NAME FILE SYMBOL > OUT.c
 *
 * parses FILE as the Source NAME, declares its ops in a registry as a run
 * would (every error reported, exit 1 and no output), then writes C: the
 * text, and the RegistryTable SYMBOL of its declarations, each entry
 * under a comment naming its line.  Linked from the front end's and the
 * registry's objects only, not from libgraftc, which holds its output. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limit.h"
#include "registry_tables.h"
#include "rules_lex.h"

/* A string as a C literal: quotes, backslashes and bytes outside
 * printable ASCII escaped, a '?' after a '?' too (no trigraphs). */
static void put_string(StrBuf *out, const char *s, size_t n)
{
    strbuf_putc(out, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\' || (c == '?' && i > 0 && s[i - 1] == '?'))
            strbuf_printf(out, "\\%c", c);
        else if (c == '\n')
            strbuf_puts(out, "\\n");
        else if (c < 0x20 || c >= 0x7f)
            strbuf_printf(out, "\\%03o", c);
        else
            strbuf_putc(out, (char)c);
    }
    strbuf_putc(out, '"');
}

static void put_cstr(StrBuf *out, const char *s)
{
    if (s)
        put_string(out, s, strlen(s));
    else
        strbuf_puts(out, "NULL");
}

static void put_range(StrBuf *out, SrcRange r)
{
    strbuf_printf(out, "{%d, %d, %d, %d}", r.first_line, r.first_column, r.last_line,
                  r.last_column);
}

/* The shortest %g spelling of v that reads back as v. */
static void put_double(StrBuf *out, double v)
{
    char buf[40];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    strbuf_puts(out, buf);
    if (!strpbrk(buf, ".eEn"))
        strbuf_puts(out, ".0");
}

static bool put_literal(StrBuf *out, const AstNode *n, int indent);

/* A list's elements, one a line, indent columns in. */
static bool put_items(StrBuf *out, const AstList *items, int indent)
{
    if (items->count == 0) {
        strbuf_puts(out, ".items = NULL, .nitems = 0");
        return true;
    }
    strbuf_puts(out, ".items = (const RegLiteral[]){\n");
    bool ok = true;
    for (int i = 0; i < items->count; i++) {
        strbuf_printf(out, "%*s", indent + 4, "");
        ok &= put_literal(out, items->items[i], indent + 4);
        strbuf_puts(out, ",\n");
    }
    strbuf_printf(out, "%*s}, .nitems = %d", indent, "", items->count);
    return ok;
}

static const char *literal_kind(AstKind kind)
{
    switch (kind) {
    case AST_NUMBER: return "AST_NUMBER";
    case AST_STRING: return "AST_STRING";
    case AST_BOOL: return "AST_BOOL";
    case AST_NONE: return "AST_NONE";
    case AST_DTYPE: return "AST_DTYPE";
    case AST_LIST: return "AST_LIST";
    default: return NULL;
    }
}

/* A default as a RegLiteral initializer; false for a node no literal
 * default makes (registry_value_fits would have refused it). */
static bool put_literal(StrBuf *out, const AstNode *n, int indent)
{
    const char *kind = literal_kind(n->kind);
    if (!kind)
        return false;
    bool ok = true;
    strbuf_printf(out, "{%s, ", kind);
    put_range(out, n->range);
    switch (n->kind) {
    case AST_NUMBER:
        strbuf_puts(out, ", .text = ");
        put_cstr(out, n->u.num.text);
        strbuf_puts(out, ", .value = ");
        put_double(out, n->u.num.value);
        strbuf_printf(out, ", .ival = %" PRId64 ", .is_int = %s", n->u.num.ival,
                      n->u.num.is_int ? "true" : "false");
        break;
    case AST_STRING: strbuf_puts(out, ", .text = "); put_cstr(out, n->u.str.text); break;
    case AST_DTYPE: strbuf_puts(out, ", .text = "); put_cstr(out, n->u.dtype.name); break;
    case AST_BOOL: strbuf_printf(out, ", .boolean = %s", n->u.boolean ? "true" : "false"); break;
    case AST_LIST: strbuf_puts(out, ", "); ok = put_items(out, &n->u.list.items, indent); break;
    default: strbuf_puts(out, ", .text = NULL"); break; /* AST_NONE */
    }
    strbuf_puts(out, "}");
    return ok;
}

static const char *const attr_type_enum[] = {
    "ATYPE_INT", "ATYPE_FLOAT", "ATYPE_BOOL", "ATYPE_STR", "ATYPE_DTYPE", "ATYPE_INTS",
    "ATYPE_FLOATS", "ATYPE_INT_OR_NONE", "ATYPE_INTS_OR_NONE", "ATYPE_ANY", "ATYPE_TENSOR",
    "ATYPE_GRAPH", "ATYPE_STRS",
};

static bool put_attrs(StrBuf *out, const OpInfo *op)
{
    const AstOpDecl *decl = op->decl;
    if (decl->nattrs == 0) {
        strbuf_puts(out, "     .attrs = NULL, .nattrs = 0,\n");
        return true;
    }
    bool ok = true;
    strbuf_puts(out, "     .attrs = (const RegAttr[]){\n");
    for (int i = 0; i < decl->nattrs; i++) {
        const AstAttrDecl *a = &decl->attrs[i];
        strbuf_puts(out, "         {");
        put_cstr(out, a->name);
        strbuf_puts(out, ", ");
        put_range(out, a->range);
        strbuf_puts(out, ", ");
        put_cstr(out, a->type);
        strbuf_printf(out, ", %s, %d,\n          ", attr_type_enum[op->attrs[i].type], a->since);
        if (a->dflt) {
            strbuf_puts(out, "&(const RegLiteral)");
            ok &= put_literal(out, a->dflt, 10);
        } else
            strbuf_puts(out, "NULL");
        strbuf_puts(out, ", ");
        put_cstr(out, op->attrs[i].dflt_text);
        strbuf_puts(out, "},\n");
    }
    strbuf_printf(out, "     },\n     .nattrs = %d,\n", decl->nattrs);
    return ok;
}

/* piece after a ", " on the line, or on a line of its own indent columns
 * in when the line would pass 100 columns. */
static void put_wrapped(StrBuf *out, const StrBuf *piece, bool first, int indent)
{
    size_t column = 0;
    while (column < out->len && out->data[out->len - column - 1] != '\n')
        column++;
    if (!first && column + 2 + piece->len + 2 > 100)
        strbuf_printf(out, ",\n%*s", indent, "");
    else if (!first)
        strbuf_puts(out, ", ");
    strbuf_append(out, piece->data, piece->len);
}

static void put_operands_traits(StrBuf *out, const AstOpDecl *decl)
{
    StrBuf piece = {0};
    strbuf_puts(out, "     .operands = ");
    strbuf_puts(out, decl->noperands ? "(const AstOperand[]){" : "NULL");
    for (int i = 0; i < decl->noperands; i++) {
        const AstOperand *o = &decl->operands[i];
        piece.len = 0;
        strbuf_puts(&piece, "{");
        put_cstr(&piece, o->name);
        strbuf_printf(&piece, ", %s, %s}", o->optional ? "true" : "false",
                      o->variadic ? "true" : "false");
        put_wrapped(out, &piece, i == 0, 9);
    }
    strbuf_printf(out, "%s, .noperands = %d,\n", decl->noperands ? "}" : "", decl->noperands);
    strbuf_puts(out, "     .traits = ");
    strbuf_puts(out, decl->ntraits ? "(const RegTrait[]){" : "NULL");
    for (int i = 0; i < decl->ntraits; i++) {
        piece.len = 0;
        strbuf_puts(&piece, "{");
        put_cstr(&piece, decl->traits[i]);
        strbuf_puts(&piece, ", ");
        put_range(&piece, decl->trait_ranges[i]);
        strbuf_puts(&piece, "}");
        put_wrapped(out, &piece, i == 0, 9);
    }
    strbuf_printf(out, "%s, .ntraits = %d,\n", decl->ntraits ? "}" : "", decl->ntraits);
    strbuf_free(&piece);
}

static const struct {
    unsigned bit;
    const char *name;
} trait_enum[] = {
#define OP_TRAIT_ENUM_NAME(trait, word, bit) {bit, #trait},
    OP_TRAIT_LIST(OP_TRAIT_ENUM_NAME)
#undef OP_TRAIT_ENUM_NAME
};

/* OpInfo's fields that the declaration does not spell out. */
static void put_derived(StrBuf *out, const OpInfo *op)
{
    const char *outputs = op->outputs == AST_OUTPUTS_TENSOR   ? "AST_OUTPUTS_TENSOR"
                          : op->outputs == AST_OUTPUTS_VARIES ? "AST_OUTPUTS_VARIES"
                                                              : NULL;
    strbuf_puts(out, "     .outputs = ");
    if (outputs)
        strbuf_puts(out, outputs);
    else
        strbuf_printf(out, "%d", op->outputs);
    strbuf_printf(out, ", .min_args = %d, .max_args = ", op->min_args);
    if (op->max_args == OP_VARIADIC)
        strbuf_puts(out, "OP_VARIADIC");
    else
        strbuf_printf(out, "%d", op->max_args);
    strbuf_puts(out, ", .trait_bits = ");
    int n = 0;
    for (size_t i = 0; i < ARRAY_LEN(trait_enum); i++)
        if (op->traits & trait_enum[i].bit)
            strbuf_printf(out, "%s%s", n++ ? " | " : "", trait_enum[i].name);
    strbuf_puts(out, n ? "" : "0");
}

static bool put_op(StrBuf *out, const OpInfo *op)
{
    const AstOpDecl *decl = op->decl;
    strbuf_printf(out, "    /* %s:%d: op %s */\n    {.name = ", decl->src->name,
                  decl->name_range.first_line, decl->name);
    put_cstr(out, decl->name);
    strbuf_puts(out, ", .name_range = ");
    put_range(out, decl->name_range);
    strbuf_puts(out, ",\n");
    put_operands_traits(out, decl);
    bool ok = put_attrs(out, op);
    if (decl->onnx) {
        strbuf_puts(out, "     .onnx = true, .domain = ");
        put_cstr(out, decl->domain);
        strbuf_printf(out, ", .since = %d, .relay = ", decl->since);
        put_cstr(out, decl->relay);
        strbuf_puts(out, ",\n");
    }
    put_derived(out, op);
    strbuf_puts(out, "},\n");
    return ok;
}

/* The text, a line of the file to a line of C. */
static void put_text(StrBuf *out, const Source *src)
{
    strbuf_puts(out, "static const char text[] =\n");
    for (size_t i = 0; i < src->len;) {
        const char *end = memchr(src->text + i, '\n', src->len - i);
        size_t n = end ? (size_t)(end - (src->text + i)) + 1 : src->len - i;
        strbuf_puts(out, "    ");
        put_string(out, src->text + i, n);
        strbuf_puts(out, "\n");
        i += n;
    }
    strbuf_puts(out, "    \"\";\n\n");
}

static bool put_file(StrBuf *out, const Registry *reg, size_t nstrings, const Source *src,
                     const char *symbol)
{
    strbuf_printf(out, "/* %s compiled into C by graft-registry-gen (%s,\n * %s).  Generated by "
                  "make: do not edit. */\n#include \"registry_tables.h\"\n\n", src->name,
                  "src/compiler/registry_gen.c",
                  "note [compiled registry] in src/compiler/registry_tables.h");
    put_text(out, src);
    strbuf_puts(out, "static const RegOp ops[] = {\n");
    bool ok = true;
    for (int i = 0; i < registry_count(reg); i++)
        ok &= put_op(out, registry_op(reg, i));
    strbuf_printf(out, "};\n\nconst RegistryTable %s = {\n    ", symbol);
    put_cstr(out, src->name);
    strbuf_printf(out, ", text, %zu, ops, %d, %zu,\n};\n", src->len, registry_count(reg),
                  nstrings);
    return ok;
}

/* Parses and declares src's ops into reg; false after reporting. */
static bool declare_file(Registry *reg, Arena *arena, Interner *names, const Source *src,
                         graft_diag *d)
{
    AstBuilder b = {arena, names, src, false};
    AstFile *file = rules_parse_source(src, &b, (int)limit_defaults.rule_depth, d);
    for (int i = 0; file && i < file->nitems; i++)
        if (file->items[i].kind == ITEM_OP)
            registry_declare(reg, file->items[i].u.op, d);
        else if (file->items[i].kind == ITEM_RULE || file->items[i].kind == ITEM_INCLUDE ||
                 file->items[i].kind == ITEM_LET)
            diag_error(d, src, file->items[i].range, "only op declarations are compiled "
                       "into the builtin registry");
    return file && diag_errors(d) == 0;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: graft-registry-gen NAME FILE SYMBOL > OUT.c\n");
        return 2;
    }
    graft_diag *d = diag_new(stderr);
    Source *file = source_read(argv[2], d);
    Source *src = file ? source_from_string(argv[1], file->text, file->len) : NULL;
    Arena *arena = arena_new();
    Interner *names = interner_new(arena);
    Registry *reg = registry_new(arena, names);
    StrBuf out = {0};
    bool ok = src && declare_file(reg, arena, names, src, d);
    if (ok && !put_file(&out, reg, interner_count(names), src, argv[3])) {
        fprintf(stderr, "graft-registry-gen: %s: a default that is not a literal\n", argv[2]);
        ok = false;
    }
    if (ok && (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0)) {
        fprintf(stderr, "graft-registry-gen: cannot write the output\n");
        ok = false;
    }
    strbuf_free(&out);
    registry_free(reg);
    interner_free(names);
    arena_free(arena);
    source_free(src);
    source_free(file);
    diag_free(d);
    return ok ? 0 : 1;
}
