/* api_diag.c - diagnostics as structures and strings freed by the library
 * that allocated them (graft_api.h), over diag_capture.c. */
#include "graft_api.h"

#include <stdlib.h>

#include "diag.h"

graft_diag *graft_diag_capture(void)
{
    return diag_new_capture();
}

size_t graft_diag_count(const graft_diag *d)
{
    return diag_capture_count(diag_capture_of(d));
}

const graft_message *graft_diag_message(const graft_diag *d, size_t i)
{
    return diag_capture_get(diag_capture_of(d), i);
}

void graft_diag_clear(graft_diag *d)
{
    diag_reset(d);
}

void graft_string_free(char *s)
{
    free(s);
}
