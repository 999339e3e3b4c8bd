/* check_rules_hostile.c - input meant to break the front end: deep nesting,
 * huge files, binary junk, unterminated strings and comments.  Every case
 * must give clean errors (at most 20) and no crash or leak. */
#include "check_rules.h"

#include "limit.h"
#include "rules_lex.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Text made of prefix, middle repeated n times, suffix (caller frees). */
static char *repeat(const char *prefix, const char *middle, size_t n, const char *suffix)
{
    StrBuf sb = {0};
    strbuf_puts(&sb, prefix);
    for (size_t i = 0; i < n; i++)
        strbuf_puts(&sb, middle);
    strbuf_puts(&sb, suffix);
    return sb.data;
}

/* Loads text; asserts failure with msg among the errors and at most
 * the default error limit (the "too many errors" line aside). */
static void expect_error(const char *text, const char *msg)
{
    char *diag;
    RuleFile *rf = load_text(text, false, &diag);
    ck_assert_ptr_null(rf);
    ck_assert_msg(strstr(diag, msg) != NULL, "no '%s' in:\n%.2000s", msg, diag);
    int errors = 0;
    for (const char *p = diag; (p = strstr(p, ": error: ")); p++)
        errors++;
    ck_assert_int_le(errors, (int)limit_defaults.errors);
    free(diag);
}

START_TEST(test_deep_parentheses)
{
    char *open = repeat("r := ", "(", 100000, "x");
    char *text = repeat(open, ")", 100000, " => x\nok := nn.relu(x) => x\n");
    expect_error(text, "t.graft:1:262: error: nesting deeper than 256 levels [--limit rule-depth]");
    free(open);
    free(text);
}
END_TEST

START_TEST(test_deep_operators)
{
    char *neg = repeat("r := ", "-", 100000, "x => x\n");
    expect_error(neg, "error: nesting deeper than 256 levels [--limit rule-depth]");
    free(neg);
    char *alt = repeat("r := x", " | x", 100000, " => x\n");
    expect_error(alt, "error: expression nested deeper than 256 levels [--limit rule-depth]");
    free(alt);
    char *sum = repeat("r := x", " + 1", 100000, " => x\n");
    expect_error(sum, "error: expression nested deeper than 256 levels [--limit rule-depth]");
    free(sum);
    char *guard = repeat("r := nn.relu(x) where users(x) == 1", " && True", 100000, " => x\n");
    expect_error(guard, "error: expression nested deeper than 256 levels [--limit rule-depth]");
    free(guard);
    char *binds = repeat("r := ", "c@", 100000, "x => x\n");
    expect_error(binds, "error: nesting deeper than 256 levels [--limit rule-depth]");
    free(binds);
}
END_TEST

START_TEST(test_deep_macros)
{
    /* Each macro wraps the previous one: 40 levels of expansion. */
    StrBuf sb = {0};
    strbuf_puts(&sb, "let m0(p) = nn.relu(p)\n");
    for (int i = 1; i < 40; i++)
        strbuf_printf(&sb, "let m%d(p) = m%d(m%d(p))\n", i, i - 1, i - 1);
    strbuf_puts(&sb, "r := m39(x) => partition\n");
    expect_error(sb.data, "error: 'm7' expands into itself (or macros nest deeper than 32) [--limit macro-nesting]");
    strbuf_free(&sb);
    expect_error("let a = b\nlet b = a\nr := a => partition\n",
                 "t.graft:2:9: error: 'a' expands into itself");
    /* Each level calls the one below twice: 2^25 nodes if nothing stopped it. */
    strbuf_puts(&sb, "let d0(p) = nn.relu(p)\n");
    for (int i = 1; i <= 25; i++)
        strbuf_printf(&sb, "let d%d(p) = add(d%d(p), d%d(p))\n", i, i - 1, i - 1);
    strbuf_puts(&sb, "r := d25(x) => partition\n");
    expect_error(sb.data, "t.graft:27:6: error: pattern grows beyond 200000 nodes when its "
                          "macros are expanded");
    strbuf_free(&sb);
    /* Each level doubles the depth: 2^12 levels. */
    strbuf_puts(&sb, "let e0(p) = nn.relu(p)\n");
    for (int i = 1; i <= 12; i++)
        strbuf_printf(&sb, "let e%d(p) = e%d(e%d(p))\n", i, i - 1, i - 1);
    strbuf_puts(&sb, "r := e12(x) => partition\n");
    expect_error(sb.data, "t.graft:14:6: error: pattern nested deeper than 1024 levels after "
                          "macro expansion");
    strbuf_free(&sb);
}
END_TEST

/* Found by fuzz_rules: a macro that uses itself twice met the nesting
 * bound 2^32 times ("graft check" ran for more than ten minutes), and its
 * body's error was reported at each level. */
START_TEST(test_self_reference_fans_out)
{
    char *diag;
    RuleFile *rf = load_text("let loop = z(loop, loop)\nr := loop => partition\n", false, &diag);
    ck_assert_ptr_null(rf);
    ck_assert_str_eq(diag,
                     "t.graft:1:12: error: unknown op 'z'\n"
                     "    1 | let loop = z(loop, loop)\n"
                     "      |            ^\n"
                     "t.graft:1:14: error: 'loop' expands into itself (or macros nest deeper "
                     "than 32) [--limit macro-nesting]\n"
                     "    1 | let loop = z(loop, loop)\n"
                     "      |              ^~~~\n");
    free(diag);
}
END_TEST

/* A macro body that fails copies nothing, so counting copies did not
 * bound it: each level uses the one below twice, 2^30 visits of the
 * unknown op.  Every visit inside a macro is charged (note [expansion
 * work]); with no limit on errors the size bound ends it. */
START_TEST(test_failing_macros_fan_out)
{
    StrBuf sb = {0};
    strbuf_puts(&sb, "let a0 = q(x, x)\n");
    for (int i = 1; i <= 30; i++)
        strbuf_printf(&sb, "let a%d = q(a%d, a%d)\n", i, i - 1, i - 1);
    strbuf_puts(&sb, "r := a30 => partition\n");
    expect_error(sb.data, "t.graft:31:11: error: unknown op 'q'");
    char *diag;
    ck_assert_ptr_null(load_text_all_errors(sb.data, &diag));
    ck_assert_msg(strstr(diag, "t.graft:32:6: error: pattern grows beyond 200000 nodes when "
                               "its macros are expanded [--limit macro-nodes]"),
                  "%.2000s", diag);
    free(diag);
    strbuf_free(&sb);
}
END_TEST

START_TEST(test_wide_input)
{
    /* Long flat lists are fine: no nesting, no recursion. */
    char *list = repeat("r := reshape(x, newshape=[1", ", 1", 200000, "]) => x\n");
    char *diag;
    RuleFile *rf = load_text(list, false, &diag);
    ck_assert_msg(rf != NULL, "%.500s", diag);
    ck_assert_int_eq(rf->rules[0]->pattern->u.call.attrs.items[0]->u.attr.value->u.list.items.count,
                     200001);
    rulefile_free(rf);
    free(diag);
    free(list);
}
END_TEST

/* 10 MB of rules (1 MB when CK_FORK=no: valgrind runs the suite that way). */
START_TEST(test_large_file)
{
    const char *fork = getenv("CK_FORK");
    size_t target = fork && strcmp(fork, "no") == 0 ? (1u << 20) : (10u << 20);
    StrBuf sb = {0};
    int n = 0;
    while (sb.len < target) {
        strbuf_printf(&sb, "r%d := subtract(x, %d) => multiply(x, %d)\n", n, n, n);
        n++;
    }
    char *diag;
    RuleFile *rf = load_text(sb.data, false, &diag);
    ck_assert_msg(rf != NULL, "%.500s", diag);
    ck_assert_int_eq(rf->nrules, n);
    ck_assert_str_eq(diag, "");
    rulefile_free(rf);
    free(diag);
    /* The same with an error on its last line. */
    strbuf_puts(&sb, "last := frob(x) => x\n");
    expect_error(sb.data, "error: unknown op 'frob'");
    strbuf_free(&sb);
}
END_TEST

/* A small deterministic generator, so failures reproduce. */
static uint32_t next_random(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

START_TEST(test_binary_junk)
{
    uint32_t state = (uint32_t)_i * 7919u + 1;
    size_t len = 1u << 16;
    char *junk = malloc(len + 1);
    for (size_t i = 0; i < len; i++)
        junk[i] = (char)(next_random(&state) & 0xff);
    /* Junk read from a file may hold NUL bytes; a C string ends at the
     * first, so replace them to keep the whole buffer in play. */
    for (size_t i = 0; i < len; i++)
        if (junk[i] == '\0')
            junk[i] = '\x01';
    junk[len] = '\0';
    char *diag;
    RuleFile *rf = load_text(junk, false, &diag);
    ck_assert_ptr_null(rf);
    ck_assert_ptr_nonnull(strstr(diag, "t.graft:"));
    rulefile_free(rf);
    free(diag);
    free(junk);
}
END_TEST

START_TEST(test_nul_bytes)
{
    static const char text[] = "r := nn.relu(x)\0 => x\nok := nn.relu(x) => x\n";
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    graft_diag *d = diag_new(out);
    Source *src = source_from_string("nul.graft", text, sizeof text - 1);
    AstBuilder b = {arena_new(), NULL, src, false};
    b.names = interner_new(b.arena);
    ck_assert_ptr_nonnull(rules_parse_source(src, &b, (int)limit_defaults.rule_depth, d));
    diag_free(d);
    fclose(out);
    ck_assert_str_eq(buf, "nul.graft:1:16: error: unexpected byte 0x00\n"
                          "    1 | r := nn.relu(x)<00> => x\n"
                          "      |                ^~~~\n");
    free(buf);
    interner_free(b.names);
    arena_free(b.arena);
    source_free(src);
}
END_TEST

static const struct {
    const char *text; /* broken input */
    const char *msg;  /* the error it must give */
} broken[] = {
    {"r := clip(x, a_min=\"0) => x\n", "t.graft:1:20: error: unterminated string"},
    {"r := clip(x, a_min=\"0\\", "t.graft:1:20: error: unterminated string"},
    {"r := nn.relu(x) => x /* no end\nmore\n", "t.graft:1:22: error: unterminated comment"},
    {"/*", "t.graft:1:1: error: unterminated comment"},
    {"r := (((", "t.graft:1:8: error: unexpected end of file"},
    {"r :=", "t.graft:1:3: error: unexpected end of file"},
    {":= => | ) ]", "t.graft:1:1: error: unexpected ':='"},
    {"r := \"\\q\" => x\n", "t.graft:1:6: error: unknown escape in string"},
    {"r := add(x, 1e) => x\n", "t.graft:1:13: error: malformed number"},
    {"r := 99999999999999999999999(x) => x\n", "t.graft:1:29: error: unexpected '('"},
    {"r := x[99999999999] => x\n", "t.graft:1:8: error: element index must be a non-negative integer"},
    {"\xef\xbb\xbfr := x => x\n", "t.graft:1:1: error: stray bytes outside the ASCII range"},
};

START_TEST(test_broken)
{
    expect_error(broken[_i].text, broken[_i].msg);
}
END_TEST

START_TEST(test_empty_inputs)
{
    static const char *const empty[] = {"", "\n\n", "# only a comment", "/* block */\n"};
    for (size_t i = 0; i < ARRAY_LEN(empty); i++) {
        char *diag;
        RuleFile *rf = load_text(empty[i], false, &diag);
        ck_assert_ptr_nonnull(rf);
        ck_assert_int_eq(rf->nrules, 0);
        ck_assert_str_eq(diag, "");
        rulefile_free(rf);
        free(diag);
    }
}
END_TEST

Suite *suite_rules_hostile(void)
{
    Suite *s = suite_create("rules_hostile");
    TCase *tc = tcase_create("nesting");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_deep_parentheses);
    tcase_add_test(tc, test_deep_operators);
    tcase_add_test(tc, test_deep_macros);
    tcase_add_test(tc, test_self_reference_fans_out);
    tcase_add_test(tc, test_failing_macros_fan_out);
    suite_add_tcase(s, tc);
    tc = tcase_create("size");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_wide_input);
    tcase_add_test(tc, test_large_file);
    suite_add_tcase(s, tc);
    tc = tcase_create("junk");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_binary_junk, 0, 8);
    tcase_add_test(tc, test_nul_bytes);
    tcase_add_loop_test(tc, test_broken, 0, (int)ARRAY_LEN(broken));
    tcase_add_test(tc, test_empty_inputs);
    suite_add_tcase(s, tc);
    return s;
}
