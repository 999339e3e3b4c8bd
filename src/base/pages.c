/* pages.c - a large buffer's pages made resident in one call.
 *
 * note [buffer populated]: a model file is read into a buffer the
 * allocator maps fresh from the system, and the read then faults each of
 * its pages in, a trap per 4 KB: on this project's 2-core virtual
 * machine, 17-24 ms of system time for mnasnet's 3.9 MB, several times
 * what graft fmt's decoding, checking and writing take together
 * (bench/RESULTS.md, "Session 20: graft fmt's time").  Asking the kernel
 * to populate the pages in one call first (MADV_POPULATE_WRITE, Linux
 * 5.14) brings that read to 6 ms.  Where the kernel or the C library
 * does not have it, nothing is asked and the read faults the pages in as
 * before: the bytes read are the same either way. */
#define _DEFAULT_SOURCE /* madvise, beside the build's _POSIX_C_SOURCE */
#include "util.h"

#include <stdint.h>
#include <sys/mman.h>

void populate_pages(void *data, size_t size)
{
#ifdef MADV_POPULATE_WRITE
    enum { PAGE = 4096, WORTH = 1 << 20 };
    if (size < WORTH)
        return;
    uintptr_t start = ((uintptr_t)data + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
    uintptr_t end = ((uintptr_t)data + size) & ~(uintptr_t)(PAGE - 1);
    (void)madvise((void *)start, end - start, MADV_POPULATE_WRITE); /* (only a hint) */
#else
    (void)data;
    (void)size;
#endif
}
