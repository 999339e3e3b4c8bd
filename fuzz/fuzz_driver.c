/* fuzz_driver.c - main() for a fuzz harness built without libFuzzer.
 *
 * usage: fuzz_NAME FILE|DIR...
 * Runs LLVMFuzzerTestOneInput once on each file (a directory: on each
 * regular file in it, in name order, not descending), so the seed corpora
 * and any crash file libFuzzer saved can be replayed with a plain build,
 * under valgrind too.  Prints "NAME: N inputs" and exits 0; a broken
 * invariant aborts (fuzz_fail). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Reads path whole and runs the harness on it; false if unreadable. */
static bool run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return false;
    }
    StrBuf sb = {0};
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        strbuf_append(&sb, buf, n);
    bool ok = !ferror(f);
    fclose(f);
    if (ok)
        LLVMFuzzerTestOneInput((const uint8_t *)(sb.data ? sb.data : ""), sb.len);
    else
        perror(path);
    strbuf_free(&sb);
    return ok;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Runs every regular file of dir; returns how many ran, -1 on error. */
static long run_dir(const char *dir)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, by_name);
    if (n < 0) {
        perror(dir);
        return -1;
    }
    long ran = 0;
    for (int i = 0; i < n; i++) {
        StrBuf path = {0};
        strbuf_printf(&path, "%s/%s", dir, names[i]->d_name);
        struct stat st;
        if (stat(path.data, &st) == 0 && S_ISREG(st.st_mode))
            ran += run_file(path.data) ? 1 : 0;
        strbuf_free(&path);
        free(names[i]);
    }
    free(names);
    return ran;
}

int main(int argc, char **argv)
{
    long total = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            return 2;
        }
        long ran = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]);
        if (ran < 0 || (!S_ISDIR(st.st_mode) && ran == 0))
            return 2;
        total += ran;
    }
    const char *name = strrchr(argv[0], '/');
    printf("%s: %ld inputs\n", name ? name + 1 : argv[0], total);
    return 0;
}
