/* walk.c - the growth of a WALK's frames (note [one walk] in walk.h). */
#include "walk.h"

size_t walk_capacity(size_t cap, size_t need, size_t frame_size)
{
    size_t n = cap ? cap : 8;
    while (n < need) {
        if (n > SIZE_MAX / 2)
            out_of_memory();
        n *= 2;
    }
    if (n > SIZE_MAX / frame_size)
        out_of_memory();
    return n;
}
