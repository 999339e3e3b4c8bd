/* cmd_verify.c - graft verify RULES... [--trials N] [--seed N] [-j N] [--strict]:
 * check numerically that each rewrite rule keeps the meaning of what it
 * rewrites (verify.h, note [verifying a rule]); one line per rule, a
 * diagnostic with the counterexample for each refuted one. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_verify_prove.h"
#include "frontend.h"
#include "lower.h"
#include "verify.h"

enum { MAX_JOBS = 64 };

static void print_help(void)
{
    fputs("usage: graft verify [OPTIONS] RULES...\n\n"
          "Check each rewrite rule of RULES numerically: instantiate its pattern with\n"
          "small random tensors that satisfy its constraints and guard, apply the rule,\n"
          "evaluate both graphs with each op rounded to its dtype and compare.  One\n"
          "line per rule: verified, refuted (with a FILE:LINE:COL error and the\n"
          "counterexample on standard error), unchecked (no instance could be built or\n"
          "evaluated; the reason, e.g. an op without evaluator) or skipped (partition\n"
          "rules).  The summary line names each unchecked rule and why.  Exit status:\n"
          "0 no rule refuted (with --strict: and none unchecked), 1 a rule refuted,\n"
          "with --strict a rule unchecked, or bad input, 2 bad usage.\n\n"
          "options:\n"
          "  --trials N         value draws per rule (default 20)\n"
          "  --seed N           seed of the random values (default 1)\n"
          "  -j N               verify N rules at a time, in N processes\n"
          "  --strict           an unchecked rule fails too (exit status 1)\n"
          "  --prove[=ieee]     prove each rule with Z3 first, over the reals (or float32);\n"
          "                     a rule not proved is checked numerically (doc/verify.md)\n",
          stdout);
    fputs(cli_warning_help, stdout);
    fputs(options_limit_help, stdout);
    fputs("  --help             show this help\n", stdout);
}

typedef struct VerifyArgs {
    const char **files;
    int nfiles;
    VerifyOptions opts;
    int jobs;
    bool strict;
    CliWarnings warnings; /* -Werror, -Wno-NAME: the rule files' warnings */
    graft_limits limits;
    const ProveOptions *prove; /* --prove: the prover's options, else NULL */
    ProveOptions prove_opts;
} VerifyArgs;

static int parse_count(const char *opt, int argc, char **argv, int *i, uint64_t max,
                       uint64_t *out)
{
    if (++*i == argc)
        return cli_usage_error("verify", "option '%s' needs a number", opt);
    char *end;
    errno = 0;
    unsigned long long v = strtoull(argv[*i], &end, 10);
    if (errno || *end || end == argv[*i] || argv[*i][0] == '-' || v > max)
        return cli_usage_error("verify", "option '%s' wants a number up to %llu, not '%s'",
                               opt, (unsigned long long)max, argv[*i]);
    *out = v;
    return -1;
}

static int parse_args(int argc, char **argv, VerifyArgs *a)
{
    a->files = xcalloc((size_t)argc + 1, sizeof *a->files);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        uint64_t v;
        int rc = cli_parse_common("verify", argc, argv, &i, NULL, &a->limits, print_help);
        if (rc != OPTION_NOT_MINE) {
            if (rc >= 0)
                return rc;
        } else if (strcmp(arg, "--trials") == 0) {
            if ((rc = parse_count(arg, argc, argv, &i, 100000, &v)) >= 0)
                return rc;
            if (v == 0)
                return cli_usage_error("verify", "option '--trials' wants at least 1");
            a->opts.trials = (int)v;
        } else if (strcmp(arg, "--seed") == 0) {
            if ((rc = parse_count(arg, argc, argv, &i, UINT64_MAX, &v)) >= 0)
                return rc;
            a->opts.seed = v;
        } else if (strcmp(arg, "-j") == 0) {
            if ((rc = parse_count(arg, argc, argv, &i, MAX_JOBS, &v)) >= 0)
                return rc;
            if (v == 0)
                return cli_usage_error("verify", "option '-j' wants at least 1");
            a->jobs = (int)v;
        } else if (strcmp(arg, "--prove") == 0 || strcmp(arg, "--prove=ieee") == 0) {
            a->prove = &a->prove_opts;
            a->prove_opts.ieee = strcmp(arg, "--prove=ieee") == 0;
        } else if (strcmp(arg, "--strict") == 0) {
            a->strict = true;
        } else if ((rc = cli_parse_warning("verify", arg, &a->warnings)) != OPTION_NOT_MINE) {
            if (rc >= 0)
                return rc;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return cli_usage_error("verify", "unknown option '%s'", arg);
        } else
            a->files[a->nfiles++] = arg;
    }
    if (a->nfiles == 0)
        return cli_usage_error("verify", "need RULES...");
    return -1;
}

/* ---- one rule ---- */

static const char *const verdict_names[VERIFY_NVERDICTS] = {"verified", "refuted", "unchecked",
                                                            "skipped"};

/* Verifies rule i of rf (lowered as lw) and writes its line to out and a
 * refutation's diagnostic to err; returns the verdict.  With po, the
 * prover goes first (*proved: it proved the rule). */
static VerifyVerdict verify_one(const RuleFile *rf, const Lowered *lw, int i,
                                const VerifyOptions *o, const ProveOptions *po, FILE *out,
                                FILE *err, bool *proved, StrBuf *why)
{
    const AstRule *r = rf->rules[i];
    VerifyVerdict pv;
    *proved = false;
    if (po && verify_prove_one(rf, lw, i, po, out, err, &pv)) {
        *proved = pv == VERIFY_VERIFIED;
        return pv;
    }
    VerifyOptions ro = *o;
    ro.inexact = r->inexact;
    VerifyReport rep;
    verify_rule(&lw->rs, (uint32_t)i, &ro, &rep);
    fprintf(out, "%s:%d: %s: %s", r->src->name, r->name_range.first_line, r->name,
            verdict_names[rep.verdict]);
    if (rep.verdict == VERIFY_VERIFIED)
        fprintf(out, "%s, %d instance%s, %d trials, max error %.3g <= %.3g [%s%s]\n",
                r->inexact ? " (inexact)" : "", rep.instances, rep.instances == 1 ? "" : "s",
                rep.trials, rep.max_error, rep.tolerance, rep.instances > 1 ? "last: " : "",
                rep.instance.data ? rep.instance.data : "");
    else if (rep.verdict == VERIFY_REFUTED)
        fprintf(out, ", %s\n", rep.why.data);
    else
        fprintf(out, ": %s\n", rep.why.data ? rep.why.data : "");
    if (rep.verdict == VERIFY_REFUTED) {
        graft_diag *d = diag_new(err);
        diag_set_error_limit(d, 0);
        diag_error(d, r->src, r->name_range, "rule '%s' is refuted: %s on [%s]", r->name,
                   rep.why.data, rep.instance.data ? rep.instance.data : "");
        diag_free(d);
        fputs(rep.detail.data ? rep.detail.data : "", err);
    }
    VerifyVerdict v = rep.verdict;
    if (v == VERIFY_UNCHECKED)
        strbuf_puts(why, rep.why.data ? rep.why.data : "");
    verify_report_free(&rep);
    return v;
}

/* ---- the rules of all files, in order, each once ---- */

typedef struct Task {
    const RuleFile *rf;
    const Lowered *lw;
    int rule;
    FILE *out, *err;   /* -j: the child's output, read back in order */
    pid_t pid;
    VerifyVerdict verdict;
    bool proved;       /* --prove proved it */
    StrBuf why;        /* unchecked: the reason, for the summary */
} Task;

static bool seen_rule(Task *tasks, int n, const AstRule *r)
{
    for (int k = 0; k < n; k++) {
        const AstRule *o = tasks[k].rf->rules[tasks[k].rule];
        if (o->name_range.first_line == r->name_range.first_line &&
            strcmp(o->src->name, r->src->name) == 0)
            return true;
    }
    return false;
}

static void copy_stream(FILE *from, FILE *to)
{
    char buf[4096];
    size_t n;
    rewind(from);
    while ((n = fread(buf, 1, sizeof buf, from)) > 0)
        fwrite(buf, 1, n, to);
}

/* A child's exit status: EXIT_VERDICT + its verdict, + EXIT_PROVED when
 * proved.  Above graft's own statuses (out of memory exits with 3, which
 * as a bare verdict read "skipped"), so a child that fails is never taken
 * for a verdict. */
enum { EXIT_VERDICT = 32, EXIT_PROVED = 8 };

/* An unchecked rule's reason, read back from the child's line
 * "FILE:LINE: NAME: unchecked: WHY". */
static void read_why(Task *t)
{
    char line[1024];
    const char *mark = ": unchecked: ";
    rewind(t->out);
    if (fgets(line, sizeof line, t->out) && strstr(line, mark)) {
        const char *why = strstr(line, mark) + strlen(mark);
        strbuf_append(&t->why, why, strcspn(why, "\n"));
    }
    fseek(t->out, 0, SEEK_END);
}

/* A child's verdict is its exit status; a child that died otherwise
 * (a signal, a status no verdict has) leaves its rule unchecked, said so
 * on its output. */
static void finish_child(Task *t, int status)
{
    int code = WIFEXITED(status) ? WEXITSTATUS(status) - EXIT_VERDICT : -1;
    if (code >= 0 && (code & ~EXIT_PROVED) < VERIFY_NVERDICTS) {
        t->verdict = (VerifyVerdict)(code & ~EXIT_PROVED);
        t->proved = code & EXIT_PROVED;
        if (t->verdict == VERIFY_UNCHECKED)
            read_why(t);
        return;
    }
    const AstRule *r = t->rf->rules[t->rule];
    t->verdict = VERIFY_UNCHECKED;
    if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_OUT_OF_MEMORY)
        strbuf_puts(&t->why, "the verifying process ran out of memory");
    else
        strbuf_printf(&t->why, "the verifying process %s %d",
                      WIFSIGNALED(status) ? "died of signal" : "exited with status",
                      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    fprintf(t->out, "%s:%d: %s: unchecked: %s\n", r->src->name, r->name_range.first_line,
            r->name, t->why.data);
}

/* Runs the tasks in up to jobs child processes; each child writes to its
 * task's temporary files and exits with its verdict. */
static void run_parallel(Task *tasks, int n, const VerifyOptions *o, const ProveOptions *po,
                         int jobs)
{
    int running = 0, next = 0;
    fflush(stdout);
    fflush(stderr);
    while (next < n || running > 0) {
        if (next < n && running < jobs) {
            Task *t = &tasks[next++];
            t->out = tmpfile();
            t->err = tmpfile();
            if (!t->out || !t->err)
                out_of_memory();
            t->pid = fork();
            if (t->pid == 0) {
                bool proved;
                VerifyVerdict v = verify_one(t->rf, t->lw, t->rule, o, po, t->out, t->err,
                                             &proved, &t->why);
                fflush(t->out);
                fflush(t->err);
                _exit(EXIT_VERDICT + ((int)v | (proved ? EXIT_PROVED : 0)));
            }
            if (t->pid < 0) { /* no process: do it here */
                t->verdict = verify_one(t->rf, t->lw, t->rule, o, po, t->out, t->err,
                                        &t->proved, &t->why);
                continue;
            }
            running++;
            continue;
        }
        int status;
        pid_t pid = wait(&status);
        if (pid < 0)
            break;
        for (int k = 0; k < n; k++)
            if (tasks[k].pid == pid) {
                finish_child(&tasks[k], status);
                tasks[k].pid = 0;
            }
        running--;
    }
    for (int k = 0; k < n; k++) {
        copy_stream(tasks[k].out, stdout);
        copy_stream(tasks[k].err, stderr);
        fclose(tasks[k].out);
        fclose(tasks[k].err);
    }
}

/* The summary line, each unchecked rule named with its reason; the exit
 * status: a refuted rule fails, with strict an unchecked one too. */
static int summary(const Task *tasks, int n, bool strict, bool prove)
{
    int counts[VERIFY_NVERDICTS] = {0}, proved = 0;
    for (int k = 0; k < n; k++) {
        counts[tasks[k].verdict < VERIFY_NVERDICTS ? tasks[k].verdict : VERIFY_REFUTED]++;
        proved += tasks[k].proved;
    }
    printf("%d rules: ", n);
    if (prove)
        printf("%d proved, ", proved);
    printf("%d verified, %d refuted, %d unchecked, %d skipped", counts[VERIFY_VERIFIED] - proved,
           counts[VERIFY_REFUTED], counts[VERIFY_UNCHECKED], counts[VERIFY_SKIPPED]);
    const char *sep = "; unchecked: ";
    for (int k = 0; k < n; k++)
        if (tasks[k].verdict == VERIFY_UNCHECKED) {
            printf("%s%s (%s)", sep, tasks[k].rf->rules[tasks[k].rule]->name,
                   tasks[k].why.data ? tasks[k].why.data : "?");
            sep = ", ";
        }
    putchar('\n');
    if (counts[VERIFY_REFUTED] || (strict && counts[VERIFY_UNCHECKED]))
        return EXIT_BAD_INPUT;
    return EXIT_OK;
}

static int verify_all(const VerifyArgs *a, graft_diag *d)
{
    RuleFile **rfs = xcalloc((size_t)a->nfiles + 1, sizeof *rfs);
    Lowered **lws = xcalloc((size_t)a->nfiles + 1, sizeof *lws);
    VEC(Task) tasks = {0};
    int rc = EXIT_OK;
    FrontendOptions fo = {.limits = &a->limits};
    for (int f = 0; f < a->nfiles && rc == EXIT_OK; f++) {
        rfs[f] = frontend_load(&a->files[f], 1, &fo, d);
        lws[f] = rfs[f] ? lower_rules(rfs[f], d) : NULL;
        if (!lws[f]) {
            rc = EXIT_BAD_INPUT;
            break;
        }
        for (int i = 0; i < rfs[f]->nrules; i++) {
            if (!seen_rule(tasks.items, (int)tasks.len, rfs[f]->rules[i]))
                vec_push(&tasks, ((Task){.rf = rfs[f], .lw = lws[f], .rule = i}));
        }
    }
    int n = (int)tasks.len;
    if (rc == EXIT_OK) {
        if (a->jobs > 1)
            run_parallel(tasks.items, n, &a->opts, a->prove, a->jobs);
        else
            for (int k = 0; k < n; k++) {
                Task *t = &tasks.items[k];
                t->verdict = verify_one(t->rf, t->lw, t->rule, &a->opts, a->prove, stdout,
                                        stderr, &t->proved, &t->why);
            }
        rc = summary(tasks.items, n, a->strict, a->prove != NULL);
    }
    for (int k = 0; k < n; k++)
        strbuf_free(&tasks.items[k].why);
    for (int f = 0; f < a->nfiles; f++) {
        if (lws[f])
            lower_free(lws[f]);
        if (rfs[f])
            rulefile_free(rfs[f]);
    }
    free(rfs);
    free(lws);
    vec_free(&tasks);
    return rc;
}

int cmd_verify(int argc, char **argv, const graft_limits *limits)
{
    VerifyArgs a = {.opts = {.seed = 1, .trials = 20}, .jobs = 1, .limits = *limits};
    int rc = parse_args(argc, argv, &a);
    if (rc < 0 && a.prove)
        rc = verify_prove_load();
    if (rc < 0) {
        a.opts.max_elements = a.limits.eval_elements;
        graft_diag *d = cli_diag_new(&a.limits);
        cli_warnings_apply(&a.warnings, d);
        rc = verify_all(&a, d);
        diag_free(d);
        if (a.prove)
            prove_shutdown();
    }
    free(a.files);
    return rc;
}
