/* check_rules_fmt.c - Check tests of graft fmt on rule files
 * (src/compiler/fmt_rules.h): exact layouts, comments in their places,
 * and over every stdpatterns/ and tests/rules/ file that parses: the
 * same parse, the same comments in the same order, a fixpoint. */
#include "check_rules.h"

#include "check_files.h"
#include "fmt_rules.h"
#include "limit.h"
#include "rules_lex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* graft fmt of text, or NULL on a syntax error (caller frees). */
static char *fmt(const char *text)
{
    Source *src = source_from_string("t.graft", text, strlen(text));
    graft_diag *d = diag_new(NULL);
    StrBuf out = {0};
    bool ok = fmt_rules_source(src, (int)limit_defaults.rule_depth, &out, d);
    diag_free(d);
    source_free(src);
    if (!ok) {
        ck_assert_uint_eq(out.len, 0);
        strbuf_free(&out);
        return NULL;
    }
    return out.data ? out.data : strdup("");
}

static void expect_fmt(const char *text, const char *want)
{
    char *got = fmt(text);
    ck_assert_msg(got != NULL, "does not parse: %s", text);
    ck_assert_str_eq(got, want);
    char *again = fmt(got);
    ck_assert_str_eq(again, want);
    free(again);
    free(got);
}

START_TEST(test_fmt_canonical_tokens)
{
    expect_fmt("r:=add(x,0)=>x\n", "r := add(x, 0) => x\n");
    expect_fmt("r [once,priority=2]:=nn.relu(x)where users(x)==1=>x",
               "r [priority=2, once] := nn.relu(x) where users(x) == 1 => x\n");
    expect_fmt("let  m(p)=p|\n  -p\nop o(a,k:int=1)commutative\ninclude \"a.graft\"\n",
               "let m(p) = p | -p\nop o(a, k: int = 1) commutative\ninclude \"a.graft\"\n");
    expect_fmt("", "");
    expect_fmt("\n\n", "");
}
END_TEST

START_TEST(test_fmt_comments)
{
    /* trailing, between items (blank lines kept as one), inside an item
     * (moved before it), a block comment byte for byte, at the end */
    expect_fmt("# head   \n\n\n\nr := x => x   # why\n"
               "let m = a\n    # inside\n    | b  /* at the end */\n"
               "/* two\n   lines */\n"
               "s := y => y\n\n# tail\n",
               "# head\n\nr := x => x # why\n"
               "# inside\nlet m = a | b /* at the end */\n"
               "/* two\n   lines */\n"
               "s := y => y\n\n# tail\n");
    /* a comment inside an item after an empty line: the empty line stays
     * before the comment, none between it and the item */
    expect_fmt("a := x => x\n\nb := f(x, # one\n       y) => x\n",
               "a := x => x\n\n# one\nb := f(x, y) => x\n");
    /* strings holding comment characters are no comments */
    expect_fmt("r := f(x, s=\"#/*\") => x # c\n", "r := f(x, s=\"#/*\") => x # c\n");
    expect_fmt("# only a comment", "# only a comment\n");
}
END_TEST

START_TEST(test_fmt_wide_items)
{
    /* the guard and the action on lines of their own; the guard's chain
     * broken before an operator, under its first column */
    expect_fmt("long_rule_name := nn.relu(add(first_operand, second_operand)) where "
               "rank(first_operand) == 4 && rank(second_operand) == 4 && "
               "users(first_operand) == 1 => nn.relu(first_operand)\n",
               "long_rule_name := nn.relu(add(first_operand, second_operand))\n"
               "    where rank(first_operand) == 4 && rank(second_operand) == 4"
               " && users(first_operand) == 1\n"
               "    => nn.relu(first_operand)\n");
    /* an op declaration stays on one line, however wide */
    const char *op = "op my.wide_op(data, weight, first_attribute: int = 1, "
                     "second_attribute: ints = [1, 1], third_attribute: str = \"NCHW\")\n";
    expect_fmt(op, op);
}
END_TEST

START_TEST(test_fmt_breaks_calls_and_chains)
{
    const char *text =
        "fold := nn.batch_norm(c@nn.conv2d(x, w, data_layout=\"NCHW\", kernel_layout=\"OIHW\", "
        "out_layout=\"\"), gamma, beta, mean, var, axis=1, epsilon=e, center=True, "
        "scale=True)[0] => nn.bias_add(c, beta - mean * (gamma / sqrt(var + e)))\n"
        "let forms = first_form_of_the_pattern(x) | second_form_of_the_pattern(x) | "
        "third_form_of_the_pattern(x)\n";
    expect_fmt(text,
        "fold := nn.batch_norm(c@nn.conv2d(x, w, data_layout=\"NCHW\", kernel_layout=\"OIHW\", "
        "out_layout=\"\"),\n"
        "                      gamma, beta, mean, var, axis=1, epsilon=e, center=True, scale=True)[0]\n"
        "    => nn.bias_add(c, beta - mean * (gamma / sqrt(var + e)))\n"
        "let forms = first_form_of_the_pattern(x) | second_form_of_the_pattern(x)\n"
        "            | third_form_of_the_pattern(x)\n");
}
END_TEST

START_TEST(test_fmt_syntax_error)
{
    ck_assert_ptr_null(fmt("r := add(x\n"));
    ck_assert_ptr_null(fmt("r := x => x /* open\n"));
}
END_TEST

/* The comments of text, each on a line of its own, line comments without
 * their trailing blanks, and the canonical text of its items. */
static void comments_and_items(const char *text, StrBuf *comments, StrBuf *items)
{
    Arena *arena = arena_new();
    Interner *names = interner_new(arena);
    Source *src = source_from_string("t.graft", text, strlen(text));
    AstBuilder b = {.arena = arena, .names = names, .src = src};
    graft_diag *d = diag_new(NULL);
    AstFile *file = rules_parse_source(src, &b, (int)limit_defaults.rule_depth, d);
    ck_assert(file && diag_errors(d) == 0);
    for (int i = 0; i < file->ncomments; i++) {
        size_t begin = file->comments[i].begin, end = file->comments[i].end;
        while (text[begin] == '#' && end > begin && strchr(" \t\r", text[end - 1]))
            end--;
        strbuf_append(comments, text + begin, end - begin);
        strbuf_putc(comments, '\n');
    }
    ast_print_file(items, file);
    diag_free(d);
    source_free(src);
    interner_free(names);
    arena_free(arena);
}

/* fmt of path's text parses as the text did, keeps every comment in its
 * order and is its own fmt; false when the file does not parse. */
static bool check_file(const char *path, const char *name, void *ctx)
{
    (void)name, (void)ctx;
    Source *src = source_read(path, NULL);
    ck_assert_ptr_nonnull(src);
    char *once = fmt(src->text);
    if (once) {
        StrBuf c0 = {0}, i0 = {0}, c1 = {0}, i1 = {0};
        comments_and_items(src->text, &c0, &i0);
        comments_and_items(once, &c1, &i1);
        ck_assert_msg(strcmp(c0.data ? c0.data : "", c1.data ? c1.data : "") == 0,
                      "%s: the comments differ", path);
        ck_assert_msg(strcmp(i0.data ? i0.data : "", i1.data ? i1.data : "") == 0,
                      "%s: the items differ", path);
        char *twice = fmt(once);
        ck_assert_msg(twice && strcmp(once, twice) == 0, "%s: not a fixpoint", path);
        free(twice);
        strbuf_free(&c0), strbuf_free(&i0), strbuf_free(&c1), strbuf_free(&i1);
    }
    bool parsed = once != NULL;
    free(once);
    source_free(src);
    return parsed;
}

/* Checks every *.graft of the source tree's dir; returns how many parsed. */
static int check_dir(const char *dir)
{
    return each_file(dir, ".graft", check_file, NULL);
}

START_TEST(test_fmt_stdpatterns)
{
    ck_assert_int_eq(check_dir("stdpatterns"), 15);
}
END_TEST

START_TEST(test_fmt_stdpatterns_onnx)
{
    ck_assert_int_eq(check_dir("stdpatterns/onnx"), 10);
}
END_TEST

START_TEST(test_fmt_test_rules)
{
    ck_assert_int_ge(check_dir("tests/rules"), 15);
}
END_TEST

Suite *suite_rules_fmt(void)
{
    Suite *s = suite_create("rules_fmt");
    TCase *tc = tcase_create("fmt");
    tcase_add_test(tc, test_fmt_canonical_tokens);
    tcase_add_test(tc, test_fmt_comments);
    tcase_add_test(tc, test_fmt_wide_items);
    tcase_add_test(tc, test_fmt_breaks_calls_and_chains);
    tcase_add_test(tc, test_fmt_syntax_error);
    tcase_add_test(tc, test_fmt_stdpatterns);
    tcase_add_test(tc, test_fmt_stdpatterns_onnx);
    tcase_add_test(tc, test_fmt_test_rules);
    suite_add_tcase(s, tc);
    return s;
}
