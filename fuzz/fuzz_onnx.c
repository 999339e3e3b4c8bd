/* fuzz_onnx.c - fuzz harness for the ONNX reader and writer (src/onnx).
 *
 * Any bytes go to onnx_model_unpack as a .onnx file.  Invariants: the
 * reader either returns a model and reports nothing, or reports exactly
 * one line, "fuzz.onnx: error: byte N: ..." with N at most the input's
 * size, and never that protobuf-c refused what the wire check let through
 * (note [wire check] in onnx_wire.h); no crash, hang or leak.  A model
 * that reads is written, the written bytes read again without a
 * diagnostic, and writing that gives the same bytes (what graft writes is
 * canonical, note [onnx bytes] in onnx_model.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "onnx_model.h"

/* The model written into memory (malloc'd, *len bytes). */
static char *write_model(const Onnx__ModelProto *m, size_t *len)
{
    char *bytes = NULL;
    FILE *mem = open_memstream(&bytes, len);
    if (!mem)
        out_of_memory();
    if (!onnx_model_write(m, mem))
        fuzz_fail("writing a model into memory failed");
    fclose(mem);
    return bytes;
}

/* One line, "fuzz.onnx: error: byte N: MESSAGE", N <= size. */
static void check_error(const FuzzDiag *fd, size_t size)
{
    static const char head[] = "fuzz.onnx: error: byte ";
    const char *text = fd->text ? fd->text : "";
    const char *newline = memchr(text, '\n', fd->len);
    if (strncmp(text, head, sizeof head - 1) != 0 || !newline || newline + 1 != text + fd->len)
        fuzz_fail("not one 'fuzz.onnx: error: byte N: ...' line:\n%s", text);
    char *end;
    unsigned long long offset = strtoull(text + sizeof head - 1, &end, 10);
    if (end == text + sizeof head - 1 || strncmp(end, ": ", 2) != 0 || offset > size)
        fuzz_fail("bad byte offset in (input of %zu bytes):\n%s", size, text);
    if (strstr(text, "protobuf-c could not unpack"))
        fuzz_fail("the wire check let through what protobuf-c refused:\n%s", text);
}

/* Written bytes read again, cleanly, and write the same. */
static void check_canonical(const char *bytes, size_t len)
{
    FuzzDiag fd;
    fuzz_diag_open(&fd);
    Onnx__ModelProto *again =
        onnx_model_unpack((const uint8_t *)bytes, len, "written.onnx", NULL, fd.diag);
    fuzz_diag_close(&fd);
    if (!again || fd.len)
        fuzz_fail("written model does not read again:\n%s", fd.text ? fd.text : "");
    size_t len2;
    char *bytes2 = write_model(again, &len2);
    if (len2 != len || memcmp(bytes, bytes2, len) != 0)
        fuzz_fail("writing is not canonical: %zu bytes, then %zu", len, len2);
    free(bytes2);
    onnx_model_free(again);
    fuzz_diag_free(&fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzDiag fd;
    fuzz_diag_open(&fd);
    Onnx__ModelProto *m = onnx_model_unpack(data, size, "fuzz.onnx", NULL, fd.diag);
    fuzz_diag_close(&fd);
    if (!m) {
        check_error(&fd, size);
    } else if (fd.len) {
        fuzz_fail("a model was read, with a diagnostic:\n%s", fd.text);
    } else {
        size_t len;
        char *bytes = write_model(m, &len);
        check_canonical(bytes, len);
        free(bytes);
    }
    onnx_model_free(m);
    fuzz_diag_free(&fd);
    return 0;
}
