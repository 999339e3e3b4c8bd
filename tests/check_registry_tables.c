/* check_registry_tables.c - the builtin registry's compiled tables (note
 * [compiled registry] in src/compiler/registry_tables.h) against the
 * registry the parser makes of the same files: every op, operand,
 * attribute, default (down to each literal's range), trait, arity,
 * output count, domain, since and relay clause, so that the tables and
 * the text cannot drift; and a rule file's own declarations beside them. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend.h"
#include "limit.h"
#include "registry_impl.h"
#include "registry_tables.h"
#include "rules_lex.h"
#include "check_main.h"

/* A registry and everything it points into. */
typedef struct Built {
    Arena *arena;
    Interner *names;
    Registry *reg;
    Source *src;
} Built;

static Built built_new(const RegistryTable *table)
{
    Built b = {arena_new(), NULL, NULL, registry_table_source(table)};
    b.names = interner_new(b.arena);
    b.reg = registry_new(b.arena, b.names);
    return b;
}

static void built_free(Built *b)
{
    registry_free(b->reg);
    interner_free(b->names);
    arena_free(b->arena);
    source_free(b->src);
}

/* The table's text parsed and declared, as graft did before the tables. */
static Built parsed(const RegistryTable *table)
{
    Built b = built_new(table);
    graft_diag *d = diag_new(stderr);
    AstBuilder ab = {b.arena, b.names, b.src, false};
    AstFile *file = rules_parse_source(b.src, &ab, (int)limit_defaults.rule_depth, d);
    ck_assert_ptr_nonnull(file);
    for (int i = 0; i < file->nitems; i++)
        if (file->items[i].kind == ITEM_OP)
            ck_assert(registry_declare(b.reg, file->items[i].u.op, d));
    ck_assert_int_eq(diag_errors(d), 0);
    diag_free(d);
    return b;
}

static Built from_table(const RegistryTable *table)
{
    Built b = built_new(table);
    graft_diag *d = diag_new(stderr);
    registry_load_table(b.reg, table, b.src, d);
    ck_assert_int_eq(diag_errors(d), 0);
    diag_free(d);
    return b;
}

static void same_range(SrcRange a, SrcRange b, const char *what)
{
    ck_assert_msg(a.first_line == b.first_line && a.first_column == b.first_column &&
                      a.last_line == b.last_line && a.last_column == b.last_column,
                  "%s: %d:%d-%d:%d against %d:%d-%d:%d", what, a.first_line, a.first_column,
                  a.last_line, a.last_column, b.first_line, b.first_column, b.last_line,
                  b.last_column);
}

/* A name of the table's registry: equal to the parsed one's, and its
 * names' canonical copy (the checker compares such names by pointer). */
static void same_name(const char *t, const char *p, const Built *tb, const char *what)
{
    if (!p) {
        ck_assert_msg(t == NULL, "%s: %s, not NULL", what, t);
        return;
    }
    ck_assert_msg(t && strcmp(t, p) == 0, "%s: \"%s\" against \"%s\"", what, t ? t : "NULL", p);
    ck_assert_ptr_eq(t, interner_lookup(tb->names, t, strlen(t)));
}

static void same_literal(const AstNode *t, const AstNode *p, const Built *tb, const char *what)
{
    ck_assert_msg(t->kind == p->kind, "%s: kind %d against %d", what, t->kind, p->kind);
    same_range(t->range, p->range, what);
    ck_assert_ptr_eq(t->src, tb->src);
    ck_assert_int_eq(t->depth, p->depth);
    switch (p->kind) {
    case AST_NUMBER:
        same_name(t->u.num.text, p->u.num.text, tb, what);
        ck_assert_msg(t->u.num.value == p->u.num.value, "%s: %.17g against %.17g", what,
                      t->u.num.value, p->u.num.value);
        ck_assert_int_eq(t->u.num.is_int, p->u.num.is_int);
        ck_assert(!p->u.num.is_int || t->u.num.ival == p->u.num.ival);
        break;
    case AST_STRING: same_name(t->u.str.text, p->u.str.text, tb, what); break;
    case AST_DTYPE: same_name(t->u.dtype.name, p->u.dtype.name, tb, what); break;
    case AST_BOOL: ck_assert_int_eq(t->u.boolean, p->u.boolean); break;
    case AST_NONE: break;
    case AST_LIST:
        ck_assert_int_eq(t->u.list.items.count, p->u.list.items.count);
        for (int i = 0; i < p->u.list.items.count; i++)
            same_literal(t->u.list.items.items[i], p->u.list.items.items[i], tb, what);
        break;
    default: ck_abort_msg("%s: a default of kind %d", what, p->kind);
    }
}

static void same_attr(const OpInfo *t, const OpInfo *p, int i, const Built *tb)
{
    const AstAttrDecl *ta = &t->decl->attrs[i], *pa = &p->decl->attrs[i];
    const OpAttrInfo *ti = &t->attrs[i], *pi = &p->attrs[i];
    char what[200];
    snprintf(what, sizeof what, "%s, attribute %s", p->name, pi->name);
    same_name(ta->name, pa->name, tb, what);
    ck_assert_ptr_eq(ti->name, ta->name);
    same_range(ta->range, pa->range, what);
    same_name(ta->type, pa->type, tb, what);
    ck_assert_int_eq(ti->type, pi->type);
    ck_assert_int_eq(ta->since, pa->since);
    ck_assert_int_eq(ti->since, pi->since);
    ck_assert_ptr_eq(ti->dflt, ta->dflt);
    ck_assert_msg((ti->dflt == NULL) == (pi->dflt == NULL), "%s: a default on one side", what);
    if (pi->dflt) {
        same_literal(ti->dflt, pi->dflt, tb, what);
        ck_assert_str_eq(ti->dflt_text, pi->dflt_text);
    } else
        ck_assert_ptr_null(ti->dflt_text);
}

static void same_decl(const AstOpDecl *t, const AstOpDecl *p, const Built *tb)
{
    same_range(t->name_range, p->name_range, p->name);
    ck_assert_ptr_eq(t->src, tb->src);
    ck_assert_int_eq(t->noperands, p->noperands);
    for (int i = 0; i < p->noperands; i++) {
        same_name(t->operands[i].name, p->operands[i].name, tb, p->name);
        ck_assert_int_eq(t->operands[i].optional, p->operands[i].optional);
        ck_assert_int_eq(t->operands[i].variadic, p->operands[i].variadic);
    }
    ck_assert_int_eq(t->ntraits, p->ntraits);
    for (int i = 0; i < p->ntraits; i++) {
        same_name(t->traits[i], p->traits[i], tb, p->name);
        same_range(t->trait_ranges[i], p->trait_ranges[i], p->traits[i]);
    }
    ck_assert_int_eq(t->nattrs, p->nattrs);
    ck_assert_int_eq(t->outputs, p->outputs);
    ck_assert_int_eq(t->onnx, p->onnx);
    same_name(t->domain, p->domain, tb, p->name);
    ck_assert_int_eq(t->since, p->since);
    same_name(t->relay, p->relay, tb, p->name);
}

/* The canonical text of a declaration (ast_print_item), the caller frees. */
static char *printed(const AstOpDecl *decl)
{
    StrBuf sb = {0};
    AstItem item = {.kind = ITEM_OP, .u.op = (AstOpDecl *)decl};
    ast_print_item(&sb, &item);
    return sb.data;
}

static void same_op(const OpInfo *t, const OpInfo *p, const Built *tb)
{
    same_name(t->name, p->name, tb, "op");
    ck_assert_ptr_eq(t->name, t->decl->name);
    ck_assert_int_eq(t->index, p->index);
    ck_assert_int_eq(t->min_args, p->min_args);
    ck_assert_int_eq(t->max_args, p->max_args);
    ck_assert_uint_eq(t->traits, p->traits);
    ck_assert_int_eq(t->outputs, p->outputs);
    ck_assert_int_eq(t->onnx, p->onnx);
    same_name(t->domain, p->domain, tb, p->name);
    ck_assert_ptr_eq(t->domain, t->decl->domain);
    ck_assert_int_eq(t->since, p->since);
    ck_assert_int_eq(t->nattrs, p->nattrs);
    same_decl(t->decl, p->decl, tb);
    for (int i = 0; i < p->nattrs; i++)
        same_attr(t, p, i, tb);
    char *pt = printed(p->decl), *tt = printed(t->decl);
    ck_assert_str_eq(tt, pt);
    free(pt);
    free(tt);
}

/* The line of text that starts with prefix (1 for the first), 0 if none:
 * another branch may add ops above a declaration a test quotes. */
static int line_of(const char *text, const char *prefix)
{
    int line = 1;
    for (const char *p = text; *p; p = strchr(p, '\n') + 1, line++) {
        if (strncmp(p, prefix, strlen(prefix)) == 0)
            return line;
        if (!strchr(p, '\n'))
            break;
    }
    return 0;
}

/* Declarations in text: lines that start with "op ". */
static int declarations(const char *text)
{
    int n = strncmp(text, "op ", 3) == 0;
    for (const char *p = text; (p = strstr(p, "\nop ")); p++)
        n++;
    return n;
}

static void tables_equal_parsed(const RegistryTable *table)
{
    int nops = declarations(table->text);
    ck_assert_int_gt(nops, 100);
    Built p = parsed(table), t = from_table(table);
    ck_assert_int_eq(registry_count(p.reg), nops);
    ck_assert_int_eq(registry_count(t.reg), registry_count(p.reg));
    ck_assert_int_eq(table->nops, nops);
    for (int i = 0; i < registry_count(p.reg); i++)
        same_op(registry_op(t.reg, i), registry_op(p.reg, i), &t);
    /* the room the table asks for holds every string it named */
    ck_assert_uint_le(interner_count(t.names), (size_t)table->nstrings);
    built_free(&p);
    built_free(&t);
}

START_TEST(test_ops_table_equals_parsed)
{
    tables_equal_parsed(&registry_builtin_table);
    ck_assert_str_eq(registry_builtin_table.name, "stdpatterns/ops.graft");
}
END_TEST

START_TEST(test_onnx_table_equals_parsed)
{
    tables_equal_parsed(&registry_onnx_table);
    ck_assert_str_eq(registry_onnx_table.name, "stdpatterns/onnx_ops.graft");
}
END_TEST

/* What a load of text reports (the caller frees), NULL when it loads. */
static char *load_diagnostics(const char *text)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    graft_diag *d = diag_new(f);
    RuleFile *rf = frontend_load_string("t.graft", text, NULL, d);
    diag_free(d);
    fclose(f);
    if (rf) {
        rulefile_free(rf);
        free(out);
        return NULL;
    }
    return out;
}

/* A rule file's own ops beside the table's: a new op, a builtin repeated
 * word for word (accepted), a builtin declared differently (refused, the
 * note quoting ops.graft's line from the table's text). */
START_TEST(test_user_declarations)
{
    ck_assert_ptr_null(load_diagnostics(
        "op add(lhs, rhs) commutative elementwise broadcast\n"
        "op my.op(x, y: int = 3)\n"
        "r := my.op(add(x, x), y=3) => x\n"));
    char *got = load_diagnostics("op add(x)\n");
    int line = line_of(registry_builtin_table.text, "op add(");
    char want[400];
    snprintf(want, sizeof want, "t.graft:1:4: error: op 'add' is already declared differently\n"
             "    1 | op add(x)\n"
             "      |    ^~~\n"
             "stdpatterns/ops.graft:%d:4: note: previous declaration is here\n"
             "%5d | op add(lhs, rhs) commutative elementwise broadcast\n"
             "      |    ^~~\n", line, line);
    ck_assert_str_eq(got, want);
    free(got);
}
END_TEST

/* An ONNX op a rule file declared before the table loads (a file before
 * the one that says "opset onnx N"): the table's declaration is the one
 * refused, at its line of onnx_ops.graft, as when the text was parsed. */
START_TEST(test_onnx_clash)
{
    Built b = built_new(&registry_onnx_table);
    Source *mine = source_from_string("relu.graft", "op Relu(x) elementwise\n", 23);
    AstBuilder ab = {b.arena, b.names, mine, false};
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    graft_diag *d = diag_new(f);
    AstFile *file = rules_parse_source(mine, &ab, (int)limit_defaults.rule_depth, d);
    ck_assert(registry_declare(b.reg, file->items[0].u.op, d));
    registry_load_table(b.reg, &registry_onnx_table, b.src, d);
    diag_free(d);
    fclose(f);
    int line = line_of(registry_onnx_table.text, "op Relu(");
    char want[400];
    snprintf(want, sizeof want, "stdpatterns/onnx_ops.graft:%d:4: error: op 'Relu' is already "
             "declared differently\n"
             "%5d | op Relu(X) elementwise since 14 relay \"nn.relu\"\n"
             "      |    ^~~~\n"
             "relu.graft:1:4: note: previous declaration is here\n"
             "    1 | op Relu(x) elementwise\n"
             "      |    ^~~~\n", line, line);
    ck_assert_str_eq(out, want);
    /* Relu once, the file's */
    ck_assert_int_eq(registry_count(b.reg), declarations(registry_onnx_table.text));
    ck_assert_ptr_eq(registry_find_any(b.reg, "Relu")->decl->src, mine);
    free(out);
    source_free(mine);
    built_free(&b);
}
END_TEST

/* note [Relay's table when needed]: rules whose first item is "opset
 * onnx N" declare Relay's ops only when a lookup needs them: an ONNX run
 * never, a Relay op named in them alone at once (its error and hint as
 * before), a rule file of Relay's first thing when its ops are walked. */
START_TEST(test_relay_table_when_needed)
{
    int relay = declarations(registry_builtin_table.text);
    int onnx = declarations(registry_onnx_table.text);
    graft_diag *d = diag_new(NULL);
    RuleFile *rf = frontend_load_string("t.graft", "opset onnx 17\n"
                                        "r := Relu(Relu(x)) => Relu(x)\n", NULL, d);
    ck_assert_ptr_nonnull(rf);
    ck_assert_int_eq(registry_count(rf->registry), onnx);
    ck_assert_ptr_null(registry_find(rf->registry, "nn.relu"));
    ck_assert_int_eq(registry_count(rf->registry), onnx);
    const OpInfo *op = registry_find_any(rf->registry, "nn.relu");
    ck_assert_ptr_nonnull(op);
    ck_assert(!op->onnx);
    ck_assert_ptr_eq(op->decl->src, rf->sources[0]);
    ck_assert_int_eq(registry_count(rf->registry), onnx + 1);
    ck_assert_ptr_eq(registry_op(rf->registry, onnx), op);
    rulefile_free(rf);
    rf = frontend_load_string("t.graft", "r := nn.relu(nn.relu(x)) => nn.relu(x)\n", NULL, d);
    ck_assert_ptr_nonnull(rf);
    ck_assert_int_eq(registry_count(rf->registry), relay);
    rulefile_free(rf);
    diag_free(d);
    char *got = load_diagnostics("opset onnx 17\nop nn.relu(x)\n");
    int line = line_of(registry_builtin_table.text, "op nn.relu(");
    char want[400];
    snprintf(want, sizeof want, "t.graft:2:4: error: op 'nn.relu' is already declared "
             "differently\n"
             "    2 | op nn.relu(x)\n"
             "      |    ^~~~~~~\n"
             "stdpatterns/ops.graft:%d:4: note: previous declaration is here\n"
             "%5d | op nn.relu(data) elementwise\n"
             "      |    ^~~~~~~\n", line, line);
    ck_assert_str_eq(got, want);
    free(got);
}
END_TEST

/* A deferred table's ops looked up alone, in another order than the
 * table's, beside a rule file's op declared between the lookups: a walk
 * over the ops declares the rest and finds the table's ops in its order,
 * each as a whole load makes it (its index too), the file's op after
 * them (note [Relay's table when needed] in registry.c). */
START_TEST(test_ops_declared_alone)
{
    const RegistryTable *table = &registry_builtin_table;
    Built p = parsed(table), t = built_new(table);
    graft_diag *d = diag_new(stderr);
    registry_defer_table(t.reg, table, t.src, d, true);
    const OpInfo *conv = registry_find(t.reg, "nn.conv2d");
    ck_assert_ptr_nonnull(conv);
    ck_assert_int_eq(conv->index, 0);
    Source *mine = source_from_string("my.graft", "op my.op(x)\n", 12);
    AstBuilder ab = {t.arena, t.names, mine, false};
    AstFile *file = rules_parse_source(mine, &ab, (int)limit_defaults.rule_depth, d);
    ck_assert(registry_declare(t.reg, file->items[0].u.op, d));
    ck_assert_ptr_nonnull(registry_find_any(t.reg, "nn.batch_norm"));
    ck_assert_ptr_nonnull(registry_find(t.reg, "add"));
    ck_assert_ptr_null(registry_find_any(t.reg, "no.such_op"));
    ck_assert_int_eq(registry_find(t.reg, "my.op")->index, 1);
    int nops = registry_count(p.reg);
    ck_assert_int_eq(registry_count(t.reg), nops + 1);
    for (int i = 0; i < nops; i++)
        same_op(registry_op(t.reg, i), registry_op(p.reg, i), &t);
    ck_assert_ptr_eq(registry_find(t.reg, "nn.conv2d"), conv);
    const OpInfo *my = registry_find(t.reg, "my.op");
    ck_assert_int_eq(my->index, nops);
    ck_assert_ptr_eq(registry_op(t.reg, nops), my);
    ck_assert_int_eq(diag_errors(d), 0);
    diag_free(d);
    source_free(mine);
    built_free(&p);
    built_free(&t);
}
END_TEST

/* The 32 first lookups that read a deferred table declare their ops
 * alone; the next declares the rest, in the table's order (note [Relay's
 * table when needed] in registry.c). */
START_TEST(test_many_lookups_load_the_table)
{
    const RegistryTable *table = &registry_builtin_table;
    Built t = built_new(table);
    graft_diag *d = diag_new(stderr);
    registry_defer_table(t.reg, table, t.src, d, true);
    for (int i = 0; i < 32; i++)
        ck_assert_ptr_nonnull(registry_find(t.reg, table->ops[63 - i].name));
    ck_assert_uint_eq(t.reg->ops.len, 32);
    ck_assert_str_eq(registry_op(t.reg, 0)->name, table->ops[63].name);
    ck_assert_ptr_nonnull(registry_find(t.reg, table->ops[100].name));
    ck_assert_uint_eq(t.reg->ops.len, (size_t)table->nops);
    for (int i = 0; i < table->nops; i++) {
        ck_assert_str_eq(registry_op(t.reg, i)->name, table->ops[i].name);
        ck_assert_int_eq(registry_op(t.reg, i)->index, i);
    }
    ck_assert_int_eq(diag_errors(d), 0);
    diag_free(d);
    built_free(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("registry_tables");
    TCase *tc = tcase_create("tables");
    tcase_add_test(tc, test_ops_table_equals_parsed);
    tcase_add_test(tc, test_onnx_table_equals_parsed);
    tcase_add_test(tc, test_user_declarations);
    tcase_add_test(tc, test_onnx_clash);
    tcase_add_test(tc, test_relay_table_when_needed);
    tcase_add_test(tc, test_ops_declared_alone);
    tcase_add_test(tc, test_many_lookups_load_the_table);
    suite_add_tcase(s, tc);
    return check_run_suite(s);
}
