/* check_hostile.c - hostile input through the library: binary and
 * truncated files, huge numbers, 10^6-deep nesting, 1 MB names and
 * strings, a 10^7-node graph (doc/limits.md).  Every case checks the exact
 * diagnostic or the exact result; the form of every diagnostic line is
 * checked by fuzz_check_diagnostics (fuzz/fuzz_common.c), the same check
 * the fuzz harnesses make.  GRAFT_SLOW_TESTS=0 skips the 10^7-node case
 * (valgrind). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "frontend.h"
#include "fuzz.h"
#include "lower.h"
#include "relay.h"
#include "check_main.h"

/* Loads text as "m.relay"; *out gets the diagnostics (malloc'd). */
static graft_graph *load(const char *text, size_t len, char **out)
{
    FuzzDiag fd;
    fuzz_diag_open(&fd);
    Source *src = source_from_string("m.relay", text, len);
    graft_graph *g = relay_load(src, fd.diag);
    fuzz_diag_close(&fd);
    fuzz_check_diagnostics(&fd, "m.relay", g == NULL);
    *out = xstrndup(fd.text ? fd.text : "", fd.len);
    fuzz_diag_free(&fd);
    source_free(src);
    return g;
}

/* The first line of s (malloc'd). */
static char *first_line(const char *s)
{
    const char *nl = strchr(s, '\n');
    return xstrndup(s, nl ? (size_t)(nl - s) : strlen(s));
}

/* Asserts that text fails to load with exactly the diagnostics want. */
static void expect_error(const char *text, size_t len, const char *want)
{
    char *got;
    graft_graph *g = load(text, len, &got);
    ck_assert_ptr_null(g);
    ck_assert_str_eq(got, want);
    free(got);
}

/* Asserts that text fails with a first diagnostic line equal to want. */
static void expect_first_line(const char *text, size_t len, const char *want)
{
    char *got;
    graft_graph *g = load(text, len, &got);
    ck_assert_ptr_null(g);
    char *line = first_line(got);
    ck_assert_str_eq(line, want);
    free(line);
    free(got);
}

/* Asserts that text loads and prints back as want. */
static void expect_prints(const char *text, size_t len, const char *want)
{
    char *diags;
    graft_graph *g = load(text, len, &diags);
    ck_assert_msg(g != NULL, "did not load: %s", diags);
    ck_assert_str_eq(diags, "");
    fuzz_check_users(g);
    char *printed = relay_print_string(g);
    ck_assert_str_eq(printed, want);
    free(printed);
    graph_free(g);
    free(diags);
}

/* ---- a file cut short ---- */

static const char model[] =
    "#[version = \"0.0.5\"]\n"
    "type Option[A] {\n  Some(A),\n  None,\n}\n\n"
    "def @main(%x: Tensor[(1, 4), float32], %w) -> (Tensor[(1, 4), float32], float32) {\n"
    "  %0 = fn (%p, Composite=\"c\") {\n"
    "    nn.relu(%p) /* ty=Tensor[(1, 4), float32] */\n"
    "  };\n"
    "  %1 = %0(%x);\n"
    "  %2 = nn.dense(%1, %w, units=None, axis=[-1, 2]) /* ty=Tensor[(1, 4), float32] */;\n"
    "  %3 = (%2, 1e-05f, meta[relay.Constant][0]);\n"
    "  (%3.0, %3.1)\n"
    "}\n\n#[metadata]\n{\"nodes\": [{\"type_key\": \"relay.Constant\"}]}\n";

/* Every prefix of a model (a file cut short anywhere, mid-token too)
 * loads or fails with a located error; none crashes or leaks. */
START_TEST(every_prefix)
{
    int loaded = 0;
    for (size_t len = 0; len <= sizeof model - 1; len++) {
        char *diags;
        graft_graph *g = load(model, len, &diags);
        loaded += g != NULL;
        graph_free(g);
        free(diags);
    }
    /* the whole file and its prefixes cut after the metadata's
     * "relay.Constant" (meta[relay.Constant][0] needs that entry) */
    ck_assert_int_ge(loaded, 3);
}
END_TEST

/* ---- one text, what loading it gives ---- */

/* What a text gives: refused with exactly the diagnostics want, refused
 * with a first diagnostic line equal to want, or loaded and printed as
 * want. */
typedef enum TextResult { REFUSED, REFUSED_FIRST_LINE, PRINTS } TextResult;

typedef struct TextCase {
    const char *text; /* the model, NULs and all */
    size_t len;       /* its bytes */
    TextResult how;
    const char *want; /* the diagnostics, their first line, or the model printed */
} TextCase;

/* A string literal and its length without the final NUL (the texts hold
 * other NULs). */
#define TEXT(literal) literal, sizeof literal - 1

static const TextCase text_cases[] = {
    /* ---- bytes that are not Relay text ---- */
    /* A NUL inside a type declaration used to be kept and cut the text
     * short on printing (found by fuzz_relay). */
    {TEXT("type T {\n  A\0B,\n}\ndef @main(%x) { %x }\n"), REFUSED,
     "m.relay:2:4: error: unexpected byte 0x00 (not a Relay text file?)\n"
     "    2 |   A<00>B,\n"
     "      |    ^~~~\n"},
    {TEXT("def @main(%x) {\n  %x /* ty=\0 */\n}\n"), REFUSED_FIRST_LINE,
     "m.relay:2:12: error: unexpected byte 0x00 (not a Relay text file?)"},
    {TEXT("\x7f" "ELF\x02\x01\x01\x09\x7f\x03"), REFUSED,
     "m.relay:1:1: error: unexpected byte 0x7f (not a Relay text file?)\n"
     "    1 | <7f>ELF<02><01><01>\t<7f><03>\n"
     "      | ^~~~\n"},
    {TEXT("\0\0\0"), REFUSED_FIRST_LINE,
     "m.relay:1:1: error: unexpected byte 0x00 (not a Relay text file?)"},
    /* a file cut short in a call */
    {TEXT("def @main(%x) {\n  %0 = add(%x, 1f);\n  %1 = mul(%0"), REFUSED,
     "m.relay:3:14: error: syntax error, unexpected end of file, expecting ')'\n"
     "    3 |   %1 = mul(%0\n"
     "      |              ^\n"
     "m.relay:3:11: note: to match this '('\n"
     "    3 |   %1 = mul(%0\n"
     "      |           ^\n"},
    /* ---- numbers ---- */
    {TEXT("def @main(%x) {\n  sum(%x, axis=-99999999999999999999)\n}\n"), REFUSED,
     "m.relay:2:16: error: integer out of range for int64\n"
     "    2 |   sum(%x, axis=-99999999999999999999)\n"
     "      |                ^~~~~~~~~~~~~~~~~~~~~\n"},
    {TEXT("def @main(%x) {\n  add(%x, 99999999999999999999i64)\n}\n"), REFUSED_FIRST_LINE,
     "m.relay:2:11: error: number out of range for int64"},
    {TEXT("def @main(%x) {\n  add(%x, 1e999999f)\n}\n"), REFUSED_FIRST_LINE,
     "m.relay:2:11: error: number out of range for float32"},
    /* the extreme integers that fit */
    {TEXT("def @main(%x) {\n  %0 = add(%x, -9223372036854775808i64);\n"
          "  %1 = add(%0, 18446744073709551615u64);\n"
          "  sum(%1, axis=9223372036854775807)\n}\n"),
     PRINTS,
     "def @main(%x) {\n  %0 = add(%x, -9223372036854775808i64);\n"
     "  %1 = add(%0, 18446744073709551615u64);\n"
     "  sum(%1, axis=9223372036854775807)\n}\n"},
    /* An unparsed "ty=" comment spanning two lines: a type error quoting
     * the type printed the line break, cutting the diagnostic in two
     * (found by fuzz_relay).  The text is quoted on one line. */
    {TEXT("def @main(%x: Tensor[(2, 2), float32]) {\n"
          "  %0 = nn.relu(%x) /* ty=foo\nbar */;\n"
          "  concatenate((%0, %x), axis=0)\n}\n"),
     REFUSED,
     "m.relay:4:3: error: type error: concatenate: tuple fields must be tensors "
     "of one rank ((foo bar, Tensor[(2, 2), float32]))\n"
     "    4 |   concatenate((%0, %x), axis=0)\n"
     "      |   ^~~~~~~~~~~\n"},
    /* "555 .51", element 51 of the number 555, printed as the number
     * 555.51, which is another model (found by fuzz_relay, session 6).
     * Element access of a literal constant is refused; of a tuple it
     * still loads. */
    {TEXT("de(55, 555, 555 .51 /* ty=float32 */)\n"), REFUSED,
     "m.relay:1:18: error: element access of a constant, which is not a tuple\n"
     "    1 | de(55, 555, 555 .51 /* ty=float32 */)\n"
     "      |                  ^~\n"},
    {TEXT("de(True .0)\n"), REFUSED_FIRST_LINE,
     "m.relay:1:10: error: element access of a constant, which is not a tuple"},
    {TEXT("de((1, 2).1)\n"), PRINTS, "%0 = (1, 2);\n%1 = %0.1;\nde(%1)\n"},
    /* A dimension beyond int64 in an annotation overflowed a signed
     * multiplication (UBSan, found by fuzz_relay); now the annotation is
     * kept as text. */
    {TEXT("def @main(%x) {\n  add(%x, 1f) /* ty=Tensor[(99999999999999999999), float32] */\n}\n"),
     PRINTS,
     "def @main(%x) {\n  add(%x, 1f) /* ty=Tensor[(99999999999999999999), float32] */\n}\n"},
    /* ... and in a parameter's type it is refused. */
    {TEXT("def @main(%x: Tensor[(99999999999999999999), float32]) {\n  %x\n}\n"),
     REFUSED_FIRST_LINE, "m.relay:1:23: error: invalid dimension"},
};

START_TEST(text_case)
{
    const TextCase *c = &text_cases[_i];
    if (c->how == REFUSED)
        expect_error(c->text, c->len, c->want);
    else if (c->how == REFUSED_FIRST_LINE)
        expect_first_line(c->text, c->len, c->want);
    else
        expect_prints(c->text, c->len, c->want);
}
END_TEST

/* ---- 10^6-deep nesting ---- */

enum { DEEP = 1000000 };

/* head, then open DEEP times, then middle, close DEEP times, then tail. */
static char *nest(const char *head, const char *open, const char *middle,
                  const char *close, const char *tail)
{
    StrBuf sb = {0};
    strbuf_puts(&sb, head);
    for (int i = 0; i < DEEP; i++)
        strbuf_puts(&sb, open);
    strbuf_puts(&sb, middle);
    for (int i = 0; i < DEEP; i++)
        strbuf_puts(&sb, close);
    strbuf_puts(&sb, tail);
    return sb.data;
}

#define TOO_DEEP ": error: expression nested too deeply (the limit is 10000 parser " \
                 "stack entries, about 2000 levels) [--limit model-depth]\n"

/* Head, opener, middle, closer, tail, and the error that stops it. */
static const char *const deep_shapes[][6] = {
    {"def @main(%x) {\n  ", "negative(", "%x", ")", "\n}\n", TOO_DEEP},
    {"def @main(%x) {\n  sum(%x, a=", "[", "1", "]", ")\n}\n", TOO_DEEP},
    {"def @main(%x) {\n  ", "(", "%x", ",)", "\n}\n", TOO_DEEP},
    {"def @main(%x) {\n  ", "fn () {", "%x", "}", "\n}\n",
     ":2:1795: error: functions nested deeper than 256 levels [--limit fn-depth]\n"},
    {"def @main(%x) -> ", "(", "float32", ",)", " {\n  %x\n}\n", TOO_DEEP},
};

/* The parser's stack bound (or for functions the fn-depth limit) stops
 * each shape with a clean error. */
START_TEST(deep_nesting)
{
    const char *const *shape = deep_shapes[_i];
    char *text = nest(shape[0], shape[1], shape[2], shape[3], shape[4]);
    char *diags;
    graft_graph *g = load(text, strlen(text), &diags);
    ck_assert_ptr_null(g);
    ck_assert_msg(strstr(diags, shape[5]), "got: %.200s", diags);
    free(diags);
    free(text);
}
END_TEST

/* A deep tuple type in an annotation is past the type parser's depth
 * bound: kept as text, printed back verbatim. */
START_TEST(deep_annotation)
{
    char *text = nest("def @main(%x) {\n  add(%x, 1f) /* ty=", "(", "float32", ",)", " */\n}\n");
    expect_prints(text, strlen(text), text);
    free(text);
}
END_TEST

/* ---- big names and strings ---- */

enum { MEGABYTE = 1 << 20 };

/* A 1 MB name and a 1 MB string attribute load and print back. */
START_TEST(megabyte_name_and_string)
{
    char *name = xmalloc(MEGABYTE + 1);
    for (int i = 0; i < MEGABYTE; i++)
        name[i] = "abc"[i % 3];
    name[MEGABYTE] = '\0';
    StrBuf sb = {0};
    strbuf_printf(&sb, "def @main(%%%s) {\n  nn.pad(%%%s, pad_mode=\"", name, name);
    for (int i = 0; i < MEGABYTE; i++)
        strbuf_putc(&sb, "xyz"[i % 3]);
    strbuf_puts(&sb, "\")\n}\n");
    expect_prints(sb.data, sb.len, sb.data);
    strbuf_free(&sb);
    free(name);
}
END_TEST

/* ---- the engine on hostile rule sets ---- */

/* Runs rules on model with a rewrite bound; returns the printed result
 * (or NULL) and the diagnostics in *diags. */
static char *run_rules(const char *rules, const char *model, uint64_t bound, char **diags)
{
    FuzzDiag fd;
    fuzz_diag_open(&fd);
    RuleFile *rf = frontend_load_string("r.graft", rules, NULL, fd.diag);
    Lowered *lw = rf ? lower_rules(rf, fd.diag) : NULL;
    rulefile_free(rf);
    char *printed = NULL;
    Source *src = source_from_string("m.relay", model, strlen(model));
    graft_graph *g = lw ? relay_load(src, fd.diag) : NULL;
    if (g) {
        EngineOptions opts = {.max_rewrites = bound, .trace = NULL};
        graft_engine *e = engine_new(&lw->rs, g, &opts);
        bool ok = engine_run(e, fd.diag);
        engine_free(e);
        fuzz_check_users(g);
        printed = ok ? relay_print_string(g) : NULL;
    }
    graph_free(g);
    source_free(src);
    lower_free(lw);
    fuzz_diag_close(&fd);
    fuzz_check_diagnostics(&fd, NULL, printed == NULL);
    *diags = xstrndup(fd.text ? fd.text : "", fd.len);
    fuzz_diag_free(&fd);
    return printed;
}

/* The action's new nodes read the matched root itself: they must keep
 * reading it, not the node that replaces it (that made a cycle, and the
 * printer then ran out of memory; found by fuzz_pipeline). */
START_TEST(action_reads_root)
{
    char *diags;
    char *out = run_rules("r [once] := c@sqrt(_) => exp(subtract(c, c))\n",
                          "def @main(%p) {\n  sqrt(%p)\n}\n", 0, &diags);
    ck_assert_str_eq(diags, "");
    ck_assert_ptr_nonnull(out);
    ck_assert_str_eq(out, "def @main(%p) {\n  %0 = sqrt(%p);\n  %1 = subtract(%0, %0);\n"
                          "  exp(%1)\n}\n");
    free(out);
    free(diags);
}
END_TEST

/* A rule set that never stops is cut off at the bound and named: at the
 * rewrite bound when the graph keeps its size, at the round bound (note
 * [rewrite work bound]) when it grows a node a round: 39 rounds have
 * looked at 3 + 4 + ... + 41 = 858 nodes, past 16 * (3 + 50). */
START_TEST(never_terminates)
{
    char *diags;
    char *out = run_rules("swap := add(x, y) => add(y, x)\n",
                          "def @main(%p) {\n  add(%p, 1f)\n}\n", 50, &diags);
    ck_assert_ptr_null(out);
    ck_assert_str_eq(diags, "r.graft:1:1: warning: rule 'swap' rewrites forever: its pattern "
                            "matches everything its action builds, so it fires again on its "
                            "own result; add a guard or [once] [-Wself-rewrite]\n"
                            "    1 | swap := add(x, y) => add(y, x)\n"
                            "      | ^~~~\n"
                            "graft: error: rewriting did not reach a fixpoint within 50 "
                            "rewrites; rules still firing: swap (r.graft:1, 1 times in "
                            "the last round) [--limit rewrites]\n");
    free(diags);
    out = run_rules("grow := x:const => negative(x)\n",
                    "def @main(%p) {\n  add(%p, 1f)\n}\n", 50, &diags);
    ck_assert_ptr_null(out);
    ck_assert_str_eq(diags, "graft: error: rewriting did not reach a fixpoint within 39 "
                            "rounds that looked at 858 nodes (16 * (nodes + rewrite bound)); "
                            "rules still firing: grow (r.graft:1, 1 times in the last round) "
                            "[--limit round-factor]\n");
    free(diags);
}
END_TEST

/* Nested stars of one op, op*(op*(op*(x))), over a chain of 300 ops,
 * with a guard no split satisfies: the matcher used to try every way of
 * splitting the chain between the stars, (d + 1)(d + 2) / 2 at depth d,
 * and gave up at the step limit on all but the shortest chains (fuzz
 * input b of fuzz/README.md took minutes that way).  Now the inner star
 * alone walks the chain: each root is refused by its guard, none by the
 * step limit, and nothing is rewritten. */
START_TEST(nested_stars_refused)
{
    enum { CHAIN = 300 };
    StrBuf model = {0};
    strbuf_puts(&model, "def @main(%p) {\n  %0 = nn.relu(%p);\n");
    for (int i = 1; i < CHAIN - 1; i++)
        strbuf_printf(&model, "  %%%d = nn.relu(%%%d);\n", i, i - 1);
    strbuf_printf(&model, "  nn.relu(%%%d)\n}\n", CHAIN - 2);
    FuzzDiag fd;
    fuzz_diag_open(&fd);
    RuleFile *rf = frontend_load_string(
        "r.graft", "r := nn.relu*(nn.relu*(nn.relu*(x))) where users(x) == 2 => negative(x)\n",
        NULL, fd.diag);
    Lowered *lw = rf ? lower_rules(rf, fd.diag) : NULL;
    rulefile_free(rf);
    ck_assert_ptr_nonnull(lw);
    Source *src = source_from_string("m.relay", model.data, model.len);
    graft_graph *g = relay_load(src, fd.diag);
    ck_assert_ptr_nonnull(g);
    graft_limits limits = limit_defaults;
    limits.match_steps = 20000; /* the old search needed millions at the top */
    EngineOptions opts = {.limits = &limits};
    graft_engine *e = engine_new(&lw->rs, g, &opts);
    ck_assert(engine_run(e, fd.diag));
    const RuleStats *st = &engine_stats(e)->rules[0];
    ck_assert_uint_eq(st->tried, CHAIN + 1);
    ck_assert_uint_eq(st->guard, CHAIN + 1);
    ck_assert_uint_eq(st->budget, 0);
    ck_assert_uint_eq(st->applied, 0);
    engine_free(e);
    char *printed = relay_print_string(g);
    ck_assert_str_eq(printed, model.data);
    free(printed);
    graph_free(g);
    source_free(src);
    lower_free(lw);
    fuzz_diag_close(&fd);
    ck_assert_uint_eq(fd.len, 0);
    fuzz_diag_free(&fd);
    strbuf_free(&model);
}
END_TEST

/* The same nested stars where a split does satisfy the guard: the
 * matches are those the full search found (the deepest x first). */
START_TEST(nested_stars_match)
{
    char *diags;
    char *out = run_rules("r [once] := nn.relu*(nn.relu*(nn.relu*(x))) where users(x) == 2"
                          " => negative(x)\n",
                          "def @main(%p) {\n  %0 = nn.relu(%p);\n  %1 = nn.relu(%0);\n"
                          "  %2 = nn.relu(%1);\n  %3 = nn.relu(%2);\n  %4 = nn.relu(%3);\n"
                          "  %5 = nn.relu(%4);\n  (%5, %1)\n}\n",
                          0, &diags);
    ck_assert_str_eq(diags, "");
    ck_assert_ptr_nonnull(out);
    ck_assert_str_eq(out, "def @main(%p) {\n  %0 = nn.relu(%p);\n  %1 = nn.relu(%0);\n"
                          "  %2 = negative(%1);\n  %3 = negative(%2);\n  (%3, %2)\n}\n");
    free(out);
    free(diags);
}
END_TEST

/* ---- a 10^7-node graph ---- */

static bool slow_tests(void)
{
    const char *s = getenv("GRAFT_SLOW_TESTS");
    return !s || strcmp(s, "0") != 0;
}

/* 10^7 nodes built through the API: walking, dead-node removal and
 * printing are iterative and memory stays proportional (under 200 bytes
 * a node). */
START_TEST(ten_million_nodes)
{
    if (!slow_tests())
        return;
    enum { N = 10000000 };
    graft_graph *g = graph_new();
    graft_node *n = graph_add_param(g, "x", NULL);
    for (int i = 1; i < N; i++)
        n = graph_add_call(g, "negative", &n, 1, NULL, 0);
    graph_set_output(g, n);
    ck_assert_uint_eq(graph_node_count(g), N);
    ck_assert_uint_lt(graph_bytes(g) / N, 200);
    graft_node **order = xmalloc((size_t)N * sizeof(graft_node *));
    ck_assert_uint_eq(graph_topo_order(g, order), N);
    ck_assert_ptr_eq(order[N - 1], n);
    free(order);
    fuzz_check_users(g);
    graft_node *zero = graph_node(g, 0);
    graph_set_output(g, graph_node(g, 1));
    ck_assert_uint_eq(graph_remove_dead(g), N - 2);
    ck_assert_int_eq(node_nusers(zero), 1);
    graph_free(g);
}
END_TEST

static Suite *hostile_suite(void)
{
    Suite *s = suite_create("hostile");
    TCase *tc = tcase_create("model_text");
    tcase_add_test(tc, every_prefix);
    tcase_add_loop_test(tc, text_case, 0, (int)ARRAY_LEN(text_cases));
    suite_add_tcase(s, tc);
    tc = tcase_create("model_deep");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, deep_nesting, 0, (int)ARRAY_LEN(deep_shapes));
    tcase_add_test(tc, deep_annotation);
    suite_add_tcase(s, tc);
    tc = tcase_create("engine");
    tcase_add_test(tc, action_reads_root);
    tcase_add_test(tc, never_terminates);
    tcase_add_test(tc, nested_stars_refused);
    tcase_add_test(tc, nested_stars_match);
    suite_add_tcase(s, tc);
    tc = tcase_create("model_big");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, megabyte_name_and_string);
    tcase_add_test(tc, ten_million_nodes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(hostile_suite());
}
