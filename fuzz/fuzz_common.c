/* fuzz_common.c - the invariants every fuzz harness checks (fuzz.h). */
#include "fuzz.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relay.h"

void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    fputs("fuzz: invariant broken: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

/* Operand slots of n, its callee slot counted. */
static size_t slot_count(const graft_node *n)
{
    return (size_t)node_nargs(n) + 1;
}

/* The node a use's slot reads, seen from the user's side. */
static const graft_node *slot_value(const graft_node *user, int index)
{
    if (index == USE_CALLEE)
        return node_callee(user);
    if (index < 0 || index >= node_nargs(user))
        fuzz_fail("use index %d out of range in node %u", index,
                  (unsigned)node_id(user));
    return node_arg(user, index);
}

/* Marks every use listed by n in seen (slot numbers from base[]), failing
 * on a use that does not read n, a dead user, a slot listed twice, or a
 * count that differs from the list. */
static void mark_uses(const graft_graph *g, const graft_node *n, const size_t *base, bool *seen)
{
    int count = 0;
    for (int k = node_user_first(n); k < node_user_end(n); k = node_user_next(n, k), count++) {
        const graft_node *user = node_user(n, k);
        if (!user || graph_node(g, node_id(user)) != user)
            fuzz_fail("node %u lists a user outside the graph", (unsigned)node_id(n));
        if (node_is_dead(user))
            fuzz_fail("node %u lists dead user %u", (unsigned)node_id(n),
                      (unsigned)node_id(user));
        int index = node_user_operand(n, k);
        if (slot_value(user, index) != n)
            fuzz_fail("node %u lists use %u[%d], which reads another node",
                      (unsigned)node_id(n), (unsigned)node_id(user), index);
        size_t slot = base[node_id(user)] + (size_t)(index + 1);
        if (seen[slot])
            fuzz_fail("use %u[%d] listed twice", (unsigned)node_id(user), index);
        seen[slot] = true;
    }
    if (count != node_nusers(n))
        fuzz_fail("node %u: nusers %d, list holds %d", (unsigned)node_id(n),
                  node_nusers(n), count);
}

/* Every operand slot of a live node must have been listed. */
static void check_all_listed(const graft_graph *g, const size_t *base, const bool *seen)
{
    for (uint32_t id = 0; id < graph_node_count(g); id++) {
        const graft_node *n = graph_node(g, id);
        if (node_is_dead(n))
            continue;
        if (node_callee(n) && !seen[base[id]])
            fuzz_fail("callee of node %u missing from its users list", (unsigned)id);
        for (int i = 0; i < node_nargs(n); i++)
            if (!seen[base[id] + (size_t)i + 1])
                fuzz_fail("operand %d of node %u missing from its users list", i,
                          (unsigned)id);
    }
}

void fuzz_check_users(const graft_graph *g)
{
    uint32_t count = graph_node_count(g);
    size_t *base = xmalloc(((size_t)count + 1) * sizeof(size_t));
    base[0] = 0;
    for (uint32_t id = 0; id < count; id++)
        base[id + 1] = base[id] + slot_count(graph_node(g, id));
    bool *seen = xcalloc(base[count] + 1, sizeof(bool));
    for (uint32_t id = 0; id < count; id++)
        mark_uses(g, graph_node(g, id), base, seen);
    check_all_listed(g, base, seen);
    free(seen);
    free(base);
}

void fuzz_diag_open(FuzzDiag *fd)
{
    memset(fd, 0, sizeof *fd);
    fd->stream = open_memstream(&fd->text, &fd->len);
    if (!fd->stream)
        out_of_memory();
    fd->diag = diag_new(fd->stream);
}

void fuzz_diag_close(FuzzDiag *fd)
{
    if (fd->stream)
        fclose(fd->stream);
    fd->stream = NULL;
}

void fuzz_diag_free(FuzzDiag *fd)
{
    fuzz_diag_close(fd);
    diag_free(fd->diag);
    free(fd->text);
    memset(fd, 0, sizeof *fd);
}

/* "L:C: " with L, C >= 1 at s; returns the bytes it spans, 0 if absent. */
static size_t line_col(const char *s)
{
    const char *p = s;
    for (int part = 0; part < 2; part++) {
        if (*p < '1' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
        if (*p++ != ':')
            return 0;
    }
    return *p == ' ' ? (size_t)(p + 1 - s) : 0;
}

/* Where "L:C: " follows NAME: in line (any name when name is NULL: the
 * first ':' that starts "L:C: "), else NULL. */
static const char *after_name(const char *line, const char *name)
{
    if (name) {
        size_t n = strlen(name);
        if (strncmp(line, name, n) != 0 || line[n] != ':')
            return NULL;
        size_t lc = line_col(line + n + 1);
        return lc ? line + n + 1 + lc : NULL;
    }
    for (const char *p = strchr(line, ':'); p; p = strchr(p + 1, ':')) {
        size_t lc = p > line ? line_col(p + 1) : 0;
        if (lc)
            return p + 1 + lc;
    }
    return NULL;
}

/* Whether line is a located head "NAME:L:C: KIND: msg". */
static bool located_head(const char *line, const char *name)
{
    const char *kind = after_name(line, name);
    if (!kind)
        return false;
    return strncmp(kind, "error: ", 7) == 0 || strncmp(kind, "warning: ", 9) == 0 ||
           strncmp(kind, "note: ", 6) == 0;
}

/* Whether line is an excerpt line: "%5d | text" or "      | ^~~". */
static bool excerpt_line(const char *line, bool caret)
{
    if (caret)
        return strncmp(line, "      | ", 8) == 0 && strchr(line + 8, '^');
    size_t i = 0;
    while (line[i] == ' ')
        i++;
    size_t digits = strspn(line + i, "0123456789");
    return digits > 0 && strncmp(line + i + digits, " | ", 3) == 0;
}

/* Checks the lines of fd->text one by one; see fuzz.h. */
void fuzz_check_diagnostics(const FuzzDiag *fd, const char *name, int must_error)
{
    char *text = xstrndup(fd->text ? fd->text : "", fd->len);
    int expect_excerpt = 0; /* 2: source line next, 1: caret line next */
    bool saw_error = false;
    for (char *line = text, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        if (!nl)
            fuzz_fail("diagnostics do not end in a newline: '%s'", line);
        *nl = '\0';
        if (expect_excerpt) {
            if (!excerpt_line(line, expect_excerpt == 1))
                fuzz_fail("bad excerpt line '%s'", line);
            expect_excerpt--;
        } else if (located_head(line, name)) {
            saw_error |= strstr(line, ": error: ") != NULL;
            expect_excerpt = 2;
        } else if (strncmp(line, "graft: error: ", 14) == 0 ||
                   strncmp(line, "graft: fatal error: ", 20) == 0) {
            saw_error = true;
        } else {
            fuzz_fail("diagnostic line without file:line:col: '%s'", line);
        }
    }
    if (expect_excerpt)
        fuzz_fail("diagnostic without its source line and caret");
    if (must_error && !saw_error)
        fuzz_fail("input rejected without an error message");
    free(text);
}

/* Prints g, loads the text again and checks it prints the same. */
static void check_reload(const graft_graph *g, const char *name)
{
    char *first = relay_print_string(g);
    FuzzDiag fd;
    fuzz_diag_open(&fd);
    Source *src = source_from_string(name, first, strlen(first));
    graft_graph *again = relay_load(src, fd.diag);
    fuzz_diag_close(&fd);
    if (!again)
        fuzz_fail("printed model does not load again:\n%s\n--- because:\n%s",
                  first, fd.text ? fd.text : "");
    fuzz_check_users(again);
    char *second = relay_print_string(again);
    if (strcmp(first, second) != 0)
        fuzz_fail("printing is not stable:\n%s\n--- then:\n%s", first, second);
    free(second);
    graph_free(again);
    source_free(src);
    fuzz_diag_free(&fd);
    free(first);
}

graft_graph *fuzz_load_model(const char *name, const char *text, size_t len)
{
    FuzzDiag fd;
    fuzz_diag_open(&fd);
    Source *src = source_from_string(name, text, len);
    graft_graph *g = relay_load(src, fd.diag);
    fuzz_diag_close(&fd);
    fuzz_check_diagnostics(&fd, name, g == NULL);
    fuzz_diag_free(&fd);
    source_free(src);
    if (g) {
        fuzz_check_users(g);
        check_reload(g, name);
    }
    return g;
}

graft_graph *fuzz_reload_model(const char *name, const char *text, size_t len)
{
    graft_diag *d = diag_new(stderr);
    Source *src = source_from_string(name, text, len);
    graft_graph *g = relay_load(src, d);
    bool clean = diag_errors(d) == 0 && diag_warnings(d) == 0;
    diag_free(d);
    source_free(src);
    if (!g || !clean)
        fuzz_fail("a model that loaded once does not load the same again:\n%s", text);
    return g;
}

const FrontendOptions *fuzz_frontend_options(void)
{
    static FrontendBuiltin *builtin;
    static FrontendOptions opts;
    if (!builtin) {
        graft_diag *d = diag_new(stderr);
        builtin = frontend_builtin_new(d);
        diag_free(d);
        if (!builtin)
            fuzz_fail("the builtin op registry does not parse");
        opts.builtin = builtin;
    }
    return &opts;
}
