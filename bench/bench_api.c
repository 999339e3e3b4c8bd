/* bench_api.c - bench_api REPEAT RULES MODEL...: for each model, the least
 * time of REPEAT runs of what `graft run RULES MODEL` does after its
 * process has started and loaded RULES: load the model, rewrite and
 * partition it, write it into memory in its form (text, or ONNX bytes as
 * graft run -o OUT.onnx writes them); through the C API of libgraft.so
 * (graft_api.h).  One line per model: "MODEL SECONDS".  bench/api.py sets
 * the Python package's calls against these (doc/api.md). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "graft_api.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One run on model; false after printing the diagnostics' count. */
static bool run_once(const graft_rules *r, const char *model, graft_diag *d)
{
    graft_graph *g = graft_model_load(model, NULL, d);
    bool ok = g && graft_rules_run(r, g, NULL, d);
    size_t len;
    if (ok)
        graft_string_free(graft_model_write(g, &len, d));
    graft_model_free(g);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_api REPEAT RULES MODEL...\n");
        return 2;
    }
    int repeat = atoi(argv[1]);
    graft_diag *d = graft_diag_new(stderr);
    graft_rules *r = graft_rules_load((const char *const *)&argv[2], 1, NULL, d);
    int status = r ? 0 : 1;
    for (int m = 3; r && m < argc && status == 0; m++) {
        double best = 1e30;
        for (int i = 0; i < repeat && status == 0; i++) {
            double start = now();
            status = run_once(r, argv[m], d) ? 0 : 1;
            double t = now() - start;
            best = t < best ? t : best;
        }
        printf("%s %.9f\n", argv[m], best);
    }
    graft_rules_free(r);
    graft_diag_free(d);
    return status;
}
