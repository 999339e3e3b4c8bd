/* fuzz_onnx_text.c - fuzz harness for ONNX's text syntax (note [onnx
 * text] in src/onnx/onnx_text.h): the scanner, the parser, the builder
 * and the printer.
 *
 * Any bytes up to the first NUL go to onnx_text_read as a file
 * fuzz.onnxtxt.  Invariants: the reader either returns a model and
 * reports nothing, or reports errors, every one located
 * ("fuzz.onnxtxt:L:C: error: ..." with the source line and a caret, and
 * notes so made), those of the graph check too (note [graph check] in
 * onnx_check.h, note [text positions] in onnx_text_where.h), never a wire
 * format error (the model built is packed and unpacked, note [text
 * arena], and what was built always unpacks); no crash, hang or leak.  A
 * model that reads is printed; the text reads again without a
 * diagnostic, into the same model (the same bytes when written as
 * .onnx), and prints the same text (printing is canonical). */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "onnx_model.h"
#include "onnx_text.h"

/* The model written by write (onnx_text_print or onnx_model_write) into
 * memory (malloc'd, *len bytes). */
static char *write_with(bool (*write)(const Onnx__ModelProto *, FILE *),
                        const Onnx__ModelProto *m, size_t *len)
{
    char *bytes = NULL;
    FILE *mem = open_memstream(&bytes, len);
    if (!mem)
        out_of_memory();
    if (!write(m, mem))
        fuzz_fail("writing a model into memory failed");
    fclose(mem);
    return bytes;
}

/* A model's text reads again, cleanly, into the same model, and prints
 * the same text. */
static void check_canonical(const Onnx__ModelProto *m)
{
    size_t text_len, bytes_len;
    char *text = write_with(onnx_text_print, m, &text_len);
    char *bytes = write_with(onnx_model_write, m, &bytes_len);
    Source *src = source_from_string("printed.onnxtxt", text, text_len);
    FuzzDiag fd;
    fuzz_diag_open(&fd);
    Onnx__ModelProto *again = onnx_text_read(src, NULL, fd.diag);
    fuzz_diag_close(&fd);
    if (!again || fd.len)
        fuzz_fail("printed model does not read again:\n%s\n%s", fd.text ? fd.text : "", text);
    size_t text2_len, bytes2_len;
    char *text2 = write_with(onnx_text_print, again, &text2_len);
    char *bytes2 = write_with(onnx_model_write, again, &bytes2_len);
    if (text2_len != text_len || memcmp(text, text2, text_len) != 0)
        fuzz_fail("printing is not canonical:\n%s\nthen\n%s", text, text2);
    if (bytes2_len != bytes_len || memcmp(bytes, bytes2, bytes_len) != 0)
        fuzz_fail("the printed text reads into another model:\n%s", text);
    free(text);
    free(text2);
    free(bytes);
    free(bytes2);
    onnx_model_free(again);
    source_free(src);
    fuzz_diag_free(&fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *end = memchr(data, '\0', size);
    size_t len = end ? (size_t)(end - (const char *)data) : size;
    Source *src = source_from_string("fuzz.onnxtxt", (const char *)data, len);
    FuzzDiag fd;
    fuzz_diag_open(&fd);
    Onnx__ModelProto *m = onnx_text_read(src, NULL, fd.diag);
    fuzz_diag_close(&fd);
    if (!m) /* errors, every one located: the parser's and the graph check's */
        fuzz_check_diagnostics(&fd, "fuzz.onnxtxt", 1);
    else if (fd.len)
        fuzz_fail("a model was read, with a diagnostic:\n%s", fd.text);
    else
        check_canonical(m);
    onnx_model_free(m);
    source_free(src);
    fuzz_diag_free(&fd);
    return 0;
}
