/* bench_measure.c - clocks, resident memory and the machine's name. */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

/* CPU time, not wall time: the benchmark is single-threaded, and on a
 * shared machine the CPU clock does not count the time other processes
 * hold the core (see note [bench units]). */
double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The value of "KEY:   N kB" in /proc/self/status, in bytes; 0 if absent. */
static size_t status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    size_t kb = 0, n = strlen(key);
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 && line[n] == ':')
            kb = (size_t)strtoull(line + n + 1, NULL, 10);
    fclose(f);
    return kb * 1024;
}

size_t bench_peak_rss(void)
{
    return status_kb("VmHWM");
}

bool bench_reset_peak_rss(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f)
        return false;
    bool ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok;
}

/* The "model name" line of /proc/cpuinfo, or "unknown CPU". */
static void cpu_name(StrBuf *out)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || !colon)
            continue;
        colon[strcspn(colon, "\n")] = '\0';
        strbuf_puts(out, colon + 2);
        found = true;
    }
    if (f)
        fclose(f);
    if (!found)
        strbuf_puts(out, "unknown CPU");
}

void bench_machine(StrBuf *out)
{
    struct utsname u;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    cpu_name(out);
    strbuf_printf(out, ", %ld cores, %.1f GiB RAM", cores,
                  (double)pages * (double)page / (1024.0 * 1024.0 * 1024.0));
    if (uname(&u) == 0)
        strbuf_printf(out, ", %s %s %s", u.sysname, u.release, u.machine);
}
