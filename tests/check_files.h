/* check_files.h - the source tree and whole files, for the Check programs
 * that read the repository's models and rule files (check_onnx_encode.c,
 * check_relay.c, check_rules_fmt.c, ...), and whether bytes pass the wire
 * check. */
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

/* The whole file (malloc'd, a NUL after its *len bytes, so that a text
 * reads as a string), or NULL when it cannot be opened. */
static inline void *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *data = NULL;
    size_t cap = 0, n = 0;
    do {
        cap = cap ? 2 * cap : 65536;
        data = realloc(data, cap + 1);
        ck_assert_ptr_nonnull(data);
        n += fread(data + n, 1, cap - n, f);
    } while (n == cap);
    ck_assert(!ferror(f));
    fclose(f);
    data[n] = '\0';
    *len = n;
    return data;
}

/* Calls visit with the path and name of every file of dir (a path in the
 * source tree) whose name ends in suffix; how many visits returned true.
 * The files' order is the directory's, so callers count, never list. */
static inline int each_file(const char *dir, const char *suffix,
                            bool (*visit)(const char *path, const char *name, void *ctx),
                            void *ctx)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", srcdir(), dir);
    DIR *d = opendir(path);
    ck_assert_msg(d != NULL, "cannot open %s", path);
    size_t suffix_len = strlen(suffix);
    int visited = 0;
    for (struct dirent *ent; (ent = readdir(d));) {
        size_t n = strlen(ent->d_name);
        if (n < suffix_len || strcmp(ent->d_name + n - suffix_len, suffix) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s/%s", srcdir(), dir, ent->d_name);
        visited += visit(path, ent->d_name, ctx);
    }
    closedir(d);
    return visited;
}

/* each_onnx_file's visit and its context, for each_file. */
typedef struct OnnxVisit {
    bool (*visit)(const char *name, uint8_t *bytes, size_t len, void *ctx);
    void *ctx;
} OnnxVisit;

static inline bool visit_onnx_bytes(const char *path, const char *name, void *ctx)
{
    const OnnxVisit *v = ctx;
    size_t len = 0;
    uint8_t *bytes = read_file(path, &len);
    ck_assert_ptr_nonnull(bytes);
    bool counted = v->visit(name, bytes, len, v->ctx);
    free(bytes);
    return counted;
}

/* Calls visit on the bytes of every .onnx file of dir (a path in the
 * source tree); how many visits returned true (each_file). */
static inline int each_onnx_file(const char *dir,
                                 bool (*visit)(const char *name, uint8_t *bytes, size_t len,
                                               void *ctx),
                                 void *ctx)
{
    OnnxVisit v = {visit, ctx};
    return each_file(dir, ".onnx", visit_onnx_bytes, &v);
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
