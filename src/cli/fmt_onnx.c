/* fmt_onnx.c - graft fmt on an ONNX model: read in either format (the
 * binary .onnx, note [onnx bytes] in onnx_model.h, or the text syntax,
 * note [onnx text] in onnx_text.h), written in the format the output's
 * name asks for. */
#include "fmt_onnx.h"

#include <string.h>

#include "diag.h"
#include "input_kind.h"
#include "onnx_model.h"
#include "onnx_text.h"
#include "outfile.h"

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

bool fmt_onnx_binary_output(const char *out)
{
    return out && strcmp(out, "-") != 0 && ends_with(out, ".onnx");
}

/* What the first bytes of a file given as a binary model say it is when
 * it is text: a Relay model, a rule file or ONNX's text syntax; NULL when
 * none of them. */
static const char *text_kind(const Source *src)
{
    size_t n = src->len < 4096 ? src->len : 4096;
    InputKind kind = input_kind_of_text(src->text, n);
    if (kind == INPUT_MODEL)
        return "a Relay model in text form";
    if (kind == INPUT_RULES)
        return "a rule file";
    return onnx_text_looks_like(src->text, n) ? "an ONNX model in text form" : NULL;
}

static Onnx__ModelProto *read_binary(const char *path, const graft_limits *limits,
                                     graft_diag *d)
{
    Source *src = source_read_binary(path, d);
    if (!src)
        return NULL;
    const char *is = text_kind(src);
    bool onnx_text = is && strcmp(is, "an ONNX model in text form") == 0;
    if (is)
        diag_byte_error(d, src->name, 0, "this is %s, not %s", is, onnx_text ?
                        "a binary ONNX model (name it *.onnxtxt)" : "an ONNX model");
    Onnx__ModelProto *model = is ? NULL : onnx_model_read(src, limits, d);
    source_free(src); /* the model holds copies of every byte it keeps */
    return model;
}

static Onnx__ModelProto *read_text(const char *path, const graft_limits *limits,
                                   graft_diag *d)
{
    Source *src = source_read(path, d);
    if (!src)
        return NULL;
    size_t n = src->len < 4096 ? src->len : 4096;
    const char *is = text_kind(src);
    if (!is && onnx_model_looks_like((const uint8_t *)src->text, n))
        is = "a binary ONNX model";
    bool wrong = is && strcmp(is, "an ONNX model in text form") != 0;
    if (wrong)
        diag_file_error(d, src->name, "this is %s, not an ONNX model in text form%s", is,
                        strcmp(is, "a binary ONNX model") == 0 ? " (name it *.onnx)" : "");
    Onnx__ModelProto *model = wrong ? NULL : onnx_text_read(src, limits, d);
    source_free(src);
    return model;
}

Onnx__ModelProto *fmt_onnx_read(const char *path, const graft_limits *limits, graft_diag *d)
{
    return input_onnx_is_text(path) ? read_text(path, limits, d) :
                                      read_binary(path, limits, d);
}

bool fmt_onnx(const char *in, const char *out, const graft_limits *limits, graft_diag *d)
{
    Onnx__ModelProto *model = fmt_onnx_read(in, limits, d);
    bool ok = false;
    if (model) {
        OutFile *of = outfile_open(out, d);
        if (of) {
            /* a failed write: commit reports it */
            if (fmt_onnx_binary_output(out))
                onnx_model_write(model, outfile_stream(of));
            else
                onnx_text_print(model, outfile_stream(of));
            ok = outfile_commit(of, d);
        }
    }
    onnx_model_free(model);
    return ok;
}
