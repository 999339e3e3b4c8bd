/* check_files.h - the source tree and whole files, for the Check programs
 * that read the repository's models (check_onnx_encode.c,
 * check_onnx_decode.c). */
#ifndef GRAFT_CHECK_FILES_H
#define GRAFT_CHECK_FILES_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* $GRAFT_SRCDIR when make check sets it, else the configured one. */
static inline const char *srcdir(void)
{
    const char *dir = getenv("GRAFT_SRCDIR");
    return dir ? dir : GRAFT_SRCDIR;
}

/* The whole file (malloc'd), or NULL when it cannot be read. */
static inline uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    uint8_t *bytes = malloc(*len + 1);
    ck_assert(fread(bytes, 1, *len, f) == *len);
    fclose(f);
    return bytes;
}

#endif
