/* bench_e2e.c - the end-to-end workload of issue 15: the seed's decomposed
 * batch norm, K copies side by side, run through `graft run` as a process.
 *
 * note [side by side]: each copy has its own five parameters and its own
 * six op nodes, and @main returns the tuple of the K results, the shape of
 * the model TVM was measured on (50,000 copies, 300,000 op nodes).  The
 * text is what TVM's printer writes for such a module: bindings numbered
 * in post-order of the result tuple, so copy i binds %6i..%6i+5.
 */
#define _DEFAULT_SOURCE /* wait4 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "relay.h"

/* The parameters of copy i, in the order the seed names them. */
static const char *const seed_params[] = {"x", "mean", "var", "gamma", "beta"};

static void write_params(uint64_t k, FILE *out)
{
    fputs("def @main(", out);
    for (uint64_t i = 0; i < k; i++)
        for (size_t p = 0; p < ARRAY_LEN(seed_params); p++)
            fprintf(out, "%s%%%s%llu", i || p ? ", " : "", seed_params[p],
                    (unsigned long long)i);
    fputs(") {\n", out);
}

/* Copy i: gamma * (x - mean) / sqrt(var + 1e-05f) + beta, as TVM prints the
 * seed's input (shared/golden/seed_bn_partition/input.relay). */
static void write_copy(uint64_t i, FILE *out)
{
    unsigned long long t = 6 * i, n = i;
    fprintf(out, "  %%%llu = subtract(%%x%llu, %%mean%llu);\n", t, n, n);
    fprintf(out, "  %%%llu = add(%%var%llu, 1e-05f);\n", t + 1, n);
    fprintf(out, "  %%%llu = multiply(%%gamma%llu, %%%llu);\n", t + 2, n, t);
    fprintf(out, "  %%%llu = sqrt(%%%llu);\n", t + 3, t + 1);
    fprintf(out, "  %%%llu = divide(%%%llu, %%%llu);\n", t + 4, t + 2, t + 3);
    fprintf(out, "  %%%llu = add(%%%llu, %%beta%llu);\n", t + 5, t + 4, n);
}

int bench_write_side_by_side(uint64_t k, FILE *out)
{
    write_params(k, out);
    for (uint64_t i = 0; i < k; i++)
        write_copy(i, out);
    fputs("  (", out);
    for (uint64_t i = 0; i < k; i++)
        fprintf(out, "%s%%%llu", i ? ", " : "", 6 * (unsigned long long)i + 5);
    fputs(")\n}\n", out);
    return fflush(out) == 0 && !ferror(out) ? 0 : 1;
}

/* note [side by side, ONNX]: the same workload for ONNX: copy i has
 * inputs x<i> (float[2, 16]) and mean, var, gamma, beta (float[16]) and
 * the six nodes of the seed in the same order, Sub, Add, Mul, Sqrt, Div,
 * Add, with epsilon a rank-0 initializer shared by every copy (as torch
 * stores equal initializers once); the graph's outputs are the K results.
 * Node and value names follow the Relay text's numbering. */
static void write_onnx_signature(uint64_t k, FILE *out)
{
    fputs("<ir_version: 8, opset_import: [\"\" : 17]>\nside_by_side (", out);
    for (uint64_t i = 0; i < k; i++)
        for (size_t p = 0; p < ARRAY_LEN(seed_params); p++)
            fprintf(out, "%sfloat[%s16] %s%llu", i || p ? ", " : "", p == 0 ? "2, " : "",
                    seed_params[p], (unsigned long long)i);
    fputs(") => (", out);
    for (uint64_t i = 0; i < k; i++)
        fprintf(out, "%sfloat[2, 16] y%llu", i ? ", " : "", (unsigned long long)i);
    fputs(") <float eps = {1e-05}> {\n", out);
}

static void write_onnx_copy(uint64_t i, FILE *out)
{
    unsigned long long t = 6 * i, n = i;
    fprintf(out, "  t%llu = Sub (x%llu, mean%llu)\n", t, n, n);
    fprintf(out, "  t%llu = Add (var%llu, eps)\n", t + 1, n);
    fprintf(out, "  t%llu = Mul (gamma%llu, t%llu)\n", t + 2, n, t);
    fprintf(out, "  t%llu = Sqrt (t%llu)\n", t + 3, t + 1);
    fprintf(out, "  t%llu = Div (t%llu, t%llu)\n", t + 4, t + 2, t + 3);
    fprintf(out, "  y%llu = Add (t%llu, beta%llu)\n", n, t + 4, n);
}

int bench_write_side_by_side_onnx(uint64_t k, FILE *out)
{
    write_onnx_signature(k, out);
    for (uint64_t i = 0; i < k; i++)
        write_onnx_copy(i, out);
    fputs("}\n", out);
    return fflush(out) == 0 && !ferror(out) ? 0 : 1;
}

/* Runs argv as a child with standard output sent to /dev/null and prints
 * one line: its exit status, CPU seconds (user + system) and peak resident
 * set, from wait4's rusage, so nothing of this process is counted. */
int bench_spawn(char **argv)
{
    pid_t pid = fork();
    if (pid < 0) {
        perror("graft-bench: fork");
        return 1;
    }
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout))
            _exit(127);
        execvp(argv[0], argv);
        fprintf(stderr, "graft-bench: cannot run '%s': %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) {
        perror("graft-bench: wait4");
        return 1;
    }
    double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                 (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    printf("status=%d cpu_s=%.6f maxrss_kb=%ld\n", code, cpu, ru.ru_maxrss);
    return code == 0 ? 0 : 1;
}

/* graft-bench ops: the op nodes of a model file as "ops" counts them
 * everywhere in the bench (note [bench units]): calls of an op, not of a
 * function value; parameters, constants, tuples and element accesses ride
 * along.  The same count as the generator's (6 per side-by-side copy, one
 * per op-call line of a block), taken from the loaded graph so that a real
 * model's final expression counts too. */
int bench_count_ops(const char *path)
{
    graft_graph *g = model_file_load(path);
    if (!g)
        return 1;
    printf("ops=%u nodes=%u\n", model_op_count(g), graph_live_count(g));
    graph_free(g);
    return 0;
}
