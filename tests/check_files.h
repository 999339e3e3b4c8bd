/* check_files.h - the source tree and whole files, for the Check programs
 * that read the repository's models (check_onnx_encode.c,
 * check_onnx_decode.c, ...), and whether bytes pass the wire check. */
#ifndef GRAFT_CHECK_FILES_H
#define GRAFT_CHECK_FILES_H

#include <check.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "onnx_wire.h"

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

/* Calls visit on the bytes of every .onnx file of dir (a path in the
 * source tree); how many visits returned true.  The files' order is the
 * directory's, so callers count, never list. */
static inline int each_onnx_file(const char *dir,
                                 bool (*visit)(const char *name, uint8_t *bytes, size_t len,
                                               void *ctx),
                                 void *ctx)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", srcdir(), dir);
    DIR *d = opendir(path);
    ck_assert_ptr_nonnull(d);
    int visited = 0;
    for (struct dirent *ent; (ent = readdir(d));) {
        const char *dot = strrchr(ent->d_name, '.');
        if (!dot || strcmp(dot, ".onnx") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s/%s", srcdir(), dir, ent->d_name);
        size_t len = 0;
        uint8_t *bytes = read_file(path, &len);
        ck_assert_ptr_nonnull(bytes);
        visited += visit(ent->d_name, bytes, len, ctx);
        free(bytes);
    }
    closedir(d);
    return visited;
}

/* Whether bytes[0..len) pass the wire check (note [wire check] in
 * src/onnx/onnx_wire.h) as a message of type desc, nested at most 100
 * deep; what it says of a fault is thrown away. */
static inline bool wire_ok(const ProtobufCMessageDescriptor *desc, const uint8_t *bytes,
                           size_t len)
{
    FILE *quiet = fopen("/dev/null", "w");
    graft_diag *diag = diag_new(quiet);
    bool ok = onnx_wire_check(bytes, len, desc, 100, "t.onnx", diag);
    diag_free(diag);
    fclose(quiet);
    return ok;
}

#endif
