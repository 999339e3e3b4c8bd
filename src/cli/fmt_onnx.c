/* fmt_onnx.c - graft fmt on an ONNX model: read in either format
 * (onnx_file.h), written in the format the output's name asks for. */
#include "fmt_onnx.h"

#include "diag.h"
#include "onnx_file.h"
#include "onnx_model.h"
#include "onnx_text.h"
#include "outfile.h"

bool fmt_onnx(const char *in, const char *out, const graft_limits *limits, graft_diag *d)
{
    bool binary = onnx_file_binary_output(out);
    /* what is only written back is read lean: note [lean read] in src/onnx/onnx_lean.h */
    Onnx__ModelProto *model = binary ? onnx_file_read_lean(in, limits, d) :
                                       onnx_file_read(in, limits, d);
    bool ok = false;
    if (model) {
        OutFile *of = outfile_open(out, d);
        if (of) {
            /* a failed write: commit reports it */
            if (binary)
                onnx_model_write_from(model, model, outfile_stream(of));
            else
                onnx_text_print(model, outfile_stream(of));
            ok = outfile_commit(of, d);
        }
    }
    onnx_model_free(model);
    return ok;
}
