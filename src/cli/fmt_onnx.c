/* fmt_onnx.c - graft fmt MODEL.onnx -o OUT.onnx: decode, encode (note
 * [onnx bytes] in onnx_model.h). */
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

/* A text file named *.onnx: named for what it is instead of a wire
 * format error at its first byte. */
static bool is_text(const Source *src, graft_diag *d)
{
    InputKind kind = input_kind_of_text(src->text, src->len < 4096 ? src->len : 4096);
    if (kind == INPUT_MODEL || kind == INPUT_RULES)
        diag_byte_error(d, src->name, 0, "this is %s in text form, not an ONNX model",
                        kind == INPUT_MODEL ? "a Relay model" : "a rule file");
    return kind == INPUT_MODEL || kind == INPUT_RULES;
}

bool fmt_onnx(const char *in, const char *out, const graft_limits *limits, graft_diag *d)
{
    Source *src = source_read_binary(in, d);
    Onnx__ModelProto *model = src && !is_text(src, d) ? onnx_model_read(src, limits, d) : NULL;
    source_free(src); /* the model holds copies of every byte it keeps */
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
