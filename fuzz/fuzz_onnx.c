/* fuzz_onnx.c - fuzz harness for the ONNX reader and writer (src/onnx).
 *
 * Any bytes go to onnx_model_unpack as a .onnx file.  Invariants: the
 * reader either returns a model and reports nothing, or reports errors:
 * one line "fuzz.onnx: error: byte N: ..." (N at most the input's size)
 * from the wire check (note [wire check] in onnx_wire.h), or lines
 * "fuzz.onnx: error: ..." from the graph check (note [graph check] in
 * onnx_check.h); no crash, hang or leak.  A model that reads is the one
 * protobuf-c's unpack makes of the same bytes (graft's decoder, note
 * [bytes in place] in onnx_decode.h, against protobuf-c's: their packed
 * bytes equal), it is written, the written bytes read again without a
 * diagnostic, and writing that gives the same bytes (what graft writes is
 * canonical, note [onnx bytes] in onnx_model.h); written with the spans
 * of its canonical messages copied (note [canonical spans] in
 * src/onnx/onnx_span.h) it is the same bytes again.  And the decoder
 * refuses exactly the inputs the wire check refuses (note [checked as
 * decoded] in src/onnx/onnx_decode.h); the same bytes read lean (note
 * [lean read] in src/onnx/onnx_lean.h) give the same messages, and a
 * model that reads is written as the same bytes. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "arena.h"
#include "onnx_decode.h"
#include "onnx_model.h"
#include "onnx_wire.h"

/* The model written into memory (malloc'd, *len bytes), its canonical
 * messages copied from the bytes it was read from when spans. */
static char *write_model_as(const Onnx__ModelProto *m, bool spans, size_t *len)
{
    char *bytes = NULL;
    FILE *mem = open_memstream(&bytes, len);
    if (!mem)
        out_of_memory();
    if (!(spans ? onnx_model_write_from(m, m, mem) : onnx_model_write(m, mem)))
        fuzz_fail("writing a model into memory failed");
    fclose(mem);
    return bytes;
}

static char *write_model(const Onnx__ModelProto *m, size_t *len)
{
    return write_model_as(m, false, len);
}

/* Writing with spans gives bytes, len. */
static void check_spans(const Onnx__ModelProto *m, const char *bytes, size_t len)
{
    size_t spanned_len;
    char *spanned = write_model_as(m, true, &spanned_len);
    if (spanned_len != len || memcmp(bytes, spanned, len) != 0)
        fuzz_fail("written with spans, %zu bytes, not the %zu encoded", spanned_len, len);
    free(spanned);
}

/* One line "fuzz.onnx: error: byte N: MESSAGE", N <= size; or graph
 * check errors, each line "fuzz.onnx: error: ...", the last perhaps the
 * error limit's. */
static void check_error(const FuzzDiag *fd, size_t size)
{
    static const char head[] = "fuzz.onnx: error: ";
    static const char limit[] = "graft: fatal error: too many errors emitted, stopping now\n";
    const char *text = fd->text ? fd->text : "";
    if (fd->len == 0 || text[fd->len - 1] != '\n')
        fuzz_fail("no error reported, or no newline at its end:\n%s", text);
    for (const char *line = text; *line; line = strchr(line, '\n') + 1) {
        if (strncmp(line, limit, sizeof limit - 1) == 0)
            continue;
        if (strncmp(line, head, sizeof head - 1) != 0)
            fuzz_fail("not a 'fuzz.onnx: error: ...' line:\n%s", text);
        const char *rest = line + sizeof head - 1;
        if (strncmp(rest, "byte ", 5) != 0)
            continue;
        char *end;
        unsigned long long offset = strtoull(rest + 5, &end, 10);
        if (end == rest + 5 || strncmp(end, ": ", 2) != 0 || offset > size || line != text)
            fuzz_fail("bad byte offset, or more than one wire error (input of %zu bytes):\n%s",
                      size, text);
    }
}

/* The model m read from data is protobuf-c's unpack of data. */
static void check_as_protobuf_c(const uint8_t *data, size_t size, const Onnx__ModelProto *m)
{
    Onnx__ModelProto *want = onnx__model_proto__unpack(NULL, size, data);
    if (!want)
        fuzz_fail("the wire check let through what protobuf-c refuses");
    size_t len = onnx__model_proto__get_packed_size(want);
    if (onnx__model_proto__get_packed_size(m) != len)
        fuzz_fail("graft's decoder and protobuf-c's unpack differ in packed size");
    uint8_t *a = xmalloc(len + 1), *b = xmalloc(len + 1);
    onnx__model_proto__pack(want, a);
    onnx__model_proto__pack(m, b);
    if (memcmp(a, b, len) != 0)
        fuzz_fail("graft's decoder and protobuf-c's unpack differ");
    free(a);
    free(b);
    onnx__model_proto__free_unpacked(want, NULL);
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

/* The decoder's checks and the wire check give data one verdict. */
static void check_decoder_agrees(const uint8_t *data, size_t size)
{
    uint64_t depth = limit_or_default(NULL)->onnx_depth;
    FuzzDiag fd;
    fuzz_diag_open(&fd);
    bool wire = onnx_wire_check(data, size, &onnx__model_proto__descriptor, depth,
                                "fuzz.onnx", fd.diag);
    fuzz_diag_close(&fd);
    fuzz_diag_free(&fd);
    uint8_t *copy = xmalloc(size + 1);
    if (size)
        memcpy(copy, data, size);
    Arena *arena = arena_new();
    Onnx__ModelProto *m = arena_alloc(arena, sizeof *m);
    bool decoded = onnx_decode(&onnx__model_proto__descriptor, copy, size, depth, arena, NULL,
                               &m->base);
    arena_free(arena);
    free(copy);
    if (decoded != wire)
        fuzz_fail("the decoder %s what the wire check %s", decoded ? "reads" : "refuses",
                  wire ? "passes" : "refuses");
}

/* data read lean: refused with the messages whole gave (whole_text), or
 * written as whole_bytes (whole_len; NULL: whole refused). */
static void check_lean(const uint8_t *data, size_t size, const char *whole_text,
                       const char *whole_bytes, size_t whole_len)
{
    FuzzDiag fd;
    fuzz_diag_open(&fd);
    Source src = {.name = "fuzz.onnx", .text = xmalloc(size + 1), .len = size};
    if (size)
        memcpy(src.text, data, size);
    Onnx__ModelProto *m = onnx_model_read_lean(&src, NULL, fd.diag);
    free(src.text); /* NULL: the model took it */
    fuzz_diag_close(&fd);
    if (strcmp(fd.text ? fd.text : "", whole_text ? whole_text : "") != 0)
        fuzz_fail("read lean:\n%s\nread whole:\n%s", fd.text ? fd.text : "",
                  whole_text ? whole_text : "");
    if ((m != NULL) != (whole_bytes != NULL))
        fuzz_fail("read lean, the model %s", m ? "reads" : "does not read");
    if (m) {
        size_t len;
        char *bytes = write_model_as(m, true, &len);
        if (len != whole_len || memcmp(bytes, whole_bytes, len) != 0)
            fuzz_fail("read lean, written as %zu bytes, not the %zu of a whole read", len,
                      whole_len);
        free(bytes);
    }
    onnx_model_free(m);
    fuzz_diag_free(&fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_decoder_agrees(data, size);
    FuzzDiag fd;
    fuzz_diag_open(&fd);
    Onnx__ModelProto *m = onnx_model_unpack(data, size, "fuzz.onnx", NULL, fd.diag);
    fuzz_diag_close(&fd);
    if (!m) {
        check_error(&fd, size);
        check_lean(data, size, fd.text, NULL, 0);
    } else if (fd.len) {
        fuzz_fail("a model was read, with a diagnostic:\n%s", fd.text);
    } else {
        check_as_protobuf_c(data, size, m);
        size_t len;
        char *bytes = write_model(m, &len);
        check_spans(m, bytes, len);
        check_canonical(bytes, len);
        check_lean(data, size, NULL, bytes, len);
        free(bytes);
    }
    onnx_model_free(m);
    fuzz_diag_free(&fd);
    return 0;
}
