/* frontend.c - loading rule files: builtin ops, the files, their includes,
 * then the checker.
 *
 * note [includes]: `include "f.graft"` loads f, in place: f's rules come
 * where the include is.  A relative f is looked for in the directory of
 * the including file (the current directory for standard input and
 * strings), then in each include directory (-I DIR, then GRAFT_PATH's
 * entries), then in the installed standard library (the package data
 * directory) and, for a graft run from its build tree, the source tree's
 * stdpatterns/: the first that exists is loaded, so include
 * "transformer.graft" works from any directory.  A rule file named on
 * the command line that does not exist is looked for the same way
 * (command_line_path: `graft run onnx/library.graft m.onnx`).  A file is
 * loaded once per run however often it is included (diamonds are fine); a
 * file that includes itself, directly or through others, is an include
 * cycle.  Includes nest at most FRONTEND_MAX_INCLUDE_DEPTH deep.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "frontend.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "checker.h"
#include "registry_tables.h"
#include "rules_lex.h"

/* State of one load. */
typedef struct Loader {
    RuleFile *rf;                /* what is being filled */
    graft_diag *d;                     /* where errors go */
    const FrontendOptions *opts; /* options */
    const graft_limits *limits;        /* opts->limits or the defaults */
    char **stack;                /* canonical paths of the files being loaded */
    int depth;                   /* entries in stack */
    VEC(char *) seen;            /* canonical paths loaded so far */
    size_t rules_cap;            /* entries allocated in rf->rules */
    size_t sources_cap;          /* entries allocated in rf->sources */
    size_t files_cap;            /* entries allocated in rf->files */
    Source *builtin_pending;     /* ops.graft's Source while its table is not
                                    yet declared (declare_builtin_ops) */
} Loader;

static void load_source(Loader *ld, Source *src);

static void add_source(Loader *ld, Source *src);

static AstFile *parse(Loader *ld, Source *src)
{
    add_source(ld, src);
    AstBuilder b = {ld->rf->arena, ld->rf->names, src, false};
    return rules_parse_source(src, &b, (int)ld->limits->rule_depth, ld->d);
}

struct FrontendBuiltin {
    Arena *arena;       /* the declarations' AST and OpInfo */
    Interner *names;    /* their names, cloned by each load */
    Registry *registry; /* the ops declared, cloned by each load */
    Source *src;        /* stdpatterns/ops.graft */
};

/* The ops of stdpatterns/ops.graft, read from its compiled table (note
 * [compiled registry] in registry_tables.h).  Never fails: the table was
 * checked when make wrote it. */
FrontendBuiltin *frontend_builtin_new(graft_diag *d)
{
    FrontendBuiltin *b = xcalloc(1, sizeof *b);
    b->arena = arena_new();
    b->names = interner_new(b->arena);
    b->registry = registry_new(b->arena, b->names);
    b->src = registry_table_source(&registry_builtin_table);
    registry_load_table(b->registry, &registry_builtin_table, b->src, d);
    return b;
}

void frontend_builtin_free(FrontendBuiltin *b)
{
    if (!b)
        return;
    source_free(b->src);
    registry_free(b->registry);
    interner_free(b->names);
    arena_free(b->arena);
    free(b);
}

static void add_source(Loader *ld, Source *src)
{
    ld->rf->sources = xgrow_items(ld->rf->sources, &ld->sources_cap, (size_t)ld->rf->nsources + 1,
                                  sizeof(Source *));
    ld->rf->sources[ld->rf->nsources++] = src;
}

/* The builtin registry, stdpatterns/ops.graft compiled in: read from its
 * table here, or shared (opts->builtin). */
static void load_builtin_ops(Loader *ld)
{
    const FrontendBuiltin *b = ld->opts->builtin;
    if (b) { /* declared already: the RuleFile started from its registry */
        add_source(ld, b->src);
        ld->rf->nbuiltin = ld->rf->nsources;
        ld->rf->shared_builtin = true;
        return;
    }
    Source *src = registry_table_source(&registry_builtin_table);
    add_source(ld, src);
    ld->rf->nbuiltin = ld->rf->nsources;
    ld->builtin_pending = src; /* declared when the first file is parsed */
}

/* Declares the builtin registry's ops as they are looked up, placed
 * before the first file's items (first, or NULL when no file was parsed)
 * or, when that file's first item is "opset onnx N", where the first
 * lookup that may need them finds the ops end (note [Relay's table when
 * needed] in registry.c).  Parsed only, or with no file, all now. */
static void declare_builtin_ops(Loader *ld, const AstFile *first)
{
    Source *src = ld->builtin_pending;
    if (!src)
        return;
    ld->builtin_pending = NULL;
    Registry *reg = ld->rf->registry;
    if (!first || ld->opts->parse_only)
        registry_load_table(reg, &registry_builtin_table, src, ld->d);
    else
        registry_defer_table(reg, &registry_builtin_table, src, ld->d,
                             !(first->nitems > 0 && first->items[0].kind == ITEM_OPSET));
}

/* opset onnx N (note [target IR] in registry.h): the registry finds
 * ONNX's ops from now on, stdpatterns/onnx_ops.graft's table declared
 * here, once per load. */
static void target_onnx(Loader *ld, const AstOpset *o)
{
    Registry *reg = ld->rf->registry;
    int now = registry_onnx_opset(reg);
    if (now) {
        if (now != o->version)
            diag_error(ld->d, o->src, o->range, "'opset onnx %d' here, but an earlier file "
                       "of this load says 'opset onnx %d'", o->version, now);
        return;
    }
    registry_set_onnx(reg, o->version);
    Source *src = registry_table_source(&registry_onnx_table);
    add_source(ld, src);
    registry_load_table(reg, &registry_onnx_table, src, ld->d);
}

/* "dir/of/including.graft" + "x.graft" -> "dir/of/x.graft". */
static char *beside(const Source *from, const char *path)
{
    const char *slash = strrchr(from->name, '/');
    if (path[0] == '/' || !slash || from->name[0] == '<')
        return xstrdup(path);
    StrBuf sb = {0};
    strbuf_append(&sb, from->name, (size_t)(slash - from->name) + 1);
    strbuf_puts(&sb, path);
    return sb.data;
}

static char *in_dir(const char *dir, const char *path)
{
    StrBuf sb = {0};
    strbuf_printf(&sb, "%s/%s", dir, path);
    return sb.data;
}

static bool exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

/* Where include "path" in from is (note [includes]): the first candidate
 * that exists, else the one beside from (whose error names it). */
static char *include_path(const Loader *ld, const Source *from, const char *path)
{
    return frontend_include_path(ld->opts, from, path);
}

char *frontend_include_path(const FrontendOptions *opts, const Source *from, const char *path)
{
    char *first = beside(from, path);
    if (path[0] == '/' || exists(first))
        return first;
    const char *fixed[] = {GRAFT_DATADIR, GRAFT_SRCDIR "/stdpatterns"};
    int n = opts->ninclude_dirs;
    for (int i = 0; i < n + 2; i++) {
        char *p = in_dir(i < n ? opts->include_dirs[i] : fixed[i - n], path);
        if (exists(p)) {
            free(first);
            return p;
        }
        free(p);
    }
    return first;
}

static char *canonical(const char *path)
{
    char buf[PATH_MAX];
    if (strcmp(path, "-") != 0 && realpath(path, buf))
        return xstrdup(buf);
    return xstrdup(path);
}

static bool in_list(char *const *list, size_t n, const char *path)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], path) == 0)
            return true;
    return false;
}

/* include "path" at inc: cycle check, then load once. */
static void load_include(Loader *ld, const AstInclude *inc)
{
    char *path = include_path(ld, inc->src, inc->path);
    char *canon = canonical(path);
    if (in_list(ld->stack, (size_t)ld->depth, canon))
        diag_error(ld->d, inc->src, inc->range, "include cycle: '%s' is already being "
                   "loaded (it includes itself, directly or through other files)", inc->path);
    else if ((uint64_t)ld->depth > ld->limits->include_depth) /* the top file is 1 */
        diag_error(ld->d, inc->src, inc->range,
                   "includes nested deeper than %llu level%s [--limit include-depth]",
                   (unsigned long long)ld->limits->include_depth,
                   ld->limits->include_depth == 1 ? "" : "s");
    else if (!in_list(ld->seen.items, ld->seen.len, canon)) {
        FILE *probe = fopen(path, "rb");
        if (!probe)
            diag_error(ld->d, inc->src, inc->range, "cannot read '%s': %s", path,
                       strerror(errno));
        else {
            fclose(probe);
            Source *src = source_read(path, ld->d);
            if (src)
                load_source(ld, src);
        }
    }
    free(canon);
    free(path);
}

static void add_rule(Loader *ld, AstRule *rule)
{
    RuleFile *rf = ld->rf;
    rf->rules = xgrow_items(rf->rules, &ld->rules_cap, (size_t)rf->nrules + 1, sizeof(AstRule *));
    rule->index = rf->nrules;
    rf->rules[rf->nrules++] = rule;
}

/* Parses src and takes its items in order; includes recurse (bounded by
 * FRONTEND_MAX_INCLUDE_DEPTH). */
static void load_source(Loader *ld, Source *src)
{
    char *canon = canonical(src->name);
    vec_push(&ld->seen, xstrdup(canon));
    AstFile *file = parse(ld, src);
    if (!file) {
        free(canon);
        return;
    }
    declare_builtin_ops(ld, file);
    RuleFile *rf = ld->rf;
    rf->files = xgrow_items(rf->files, &ld->files_cap, (size_t)rf->nfiles + 1, sizeof(AstFile *));
    rf->files[rf->nfiles++] = file;
    ld->stack[ld->depth++] = canon;
    for (int i = 0; i < file->nitems && !diag_gave_up(ld->d); i++) {
        AstItem *item = &file->items[i];
        if (item->kind == ITEM_RULE)
            add_rule(ld, item->u.rule);
        else if (item->kind == ITEM_OP && !ld->opts->parse_only)
            registry_declare(rf->registry, item->u.op, ld->d);
        else if (item->kind == ITEM_INCLUDE && !ld->opts->parse_only)
            load_include(ld, item->u.include);
        else if (item->kind == ITEM_OPSET && !ld->opts->parse_only)
            target_onnx(ld, item->u.opset);
    }
    ld->depth--;
    free(canon);
}

/* Runs a load over the given sources (NULL entries are read failures). */
static RuleFile *finish(Loader *ld, unsigned errors_before)
{
    declare_builtin_ops(ld, NULL); /* no file was parsed */
    if (!ld->opts->parse_only && !diag_gave_up(ld->d))
        check_rules(ld->rf, ld->limits, ld->d);
    for (size_t i = 0; i < ld->seen.len; i++)
        free(ld->seen.items[i]);
    vec_free(&ld->seen);
    free(ld->stack);
    if (diag_errors(ld->d) != errors_before) {
        rulefile_free(ld->rf);
        return NULL;
    }
    return ld->rf;
}

static void loader_init(Loader *ld, const FrontendOptions *opts, graft_diag *d)
{
    static const FrontendOptions defaults;
    const FrontendBuiltin *b = opts && !opts->no_builtin_ops ? opts->builtin : NULL;
    *ld = (Loader){.rf = b ? rulefile_new_from(b->names, b->registry) : rulefile_new(), .d = d,
                   .opts = opts ? opts : &defaults};
    ld->limits = limit_or_default(ld->opts->limits);
    ld->stack = xcalloc(ld->limits->include_depth + 2, sizeof(char *));
    if (!ld->opts->no_builtin_ops)
        load_builtin_ops(ld);
}

/* A rule file named on the command line: the file itself, or, when no
 * such file exists, where include "path" would find it from the current
 * directory (note [includes]), so that `graft run onnx/library.graft
 * model.onnx` reads the installed library from any directory.  A file
 * found nowhere keeps its name, which the error reports. */
static char *command_line_path(const FrontendOptions *opts, const char *path)
{
    if (strcmp(path, "-") == 0 || exists(path))
        return xstrdup(path);
    Source here = {.name = "<command line>"};
    return frontend_include_path(opts, &here, path);
}

RuleFile *frontend_load(const char *const *paths, int npaths,
                        const FrontendOptions *opts, graft_diag *d)
{
    unsigned before = diag_errors(d);
    Loader ld;
    loader_init(&ld, opts, d);
    for (int i = 0; i < npaths && !diag_gave_up(d); i++) {
        char *path = command_line_path(opts, paths[i]);
        char *canon = canonical(path);
        bool loaded = strcmp(path, "-") != 0 && in_list(ld.seen.items, ld.seen.len, canon);
        free(canon);
        Source *src = loaded ? NULL : source_read(path, d); /* loaded: included already */
        free(path);
        if (src)
            load_source(&ld, src);
    }
    return finish(&ld, before);
}

RuleFile *frontend_load_string(const char *name, const char *text,
                               const FrontendOptions *opts, graft_diag *d)
{
    return frontend_load_text(name, text, strlen(text), opts, d);
}

RuleFile *frontend_load_text(const char *name, const char *text, size_t len,
                             const FrontendOptions *opts, graft_diag *d)
{
    unsigned before = diag_errors(d);
    Loader ld;
    loader_init(&ld, opts, d);
    load_source(&ld, source_from_string(name, text, len));
    return finish(&ld, before);
}

const Registry *frontend_builtin_registry(const FrontendBuiltin *b)
{
    return b->registry;
}
