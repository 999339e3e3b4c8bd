/* fmt_onnx.h - graft fmt on an ONNX model, binary or text. */
#ifndef GRAFT_FMT_ONNX_H
#define GRAFT_FMT_ONNX_H

#include <stdbool.h>

#include "graft.h"
#include "onnx_model.h"

/* Whether out names a .onnx file, which gets the binary format; any other
 * output (standard output among them) gets ONNX's text syntax. */
bool fmt_onnx_binary_output(const char *out);

/* The ONNX model at path, binary or text as input_onnx_is_text says
 * (input_kind.h), or NULL after reporting through d; a file in the other
 * format, or a Relay model or rule file, is named for what it is.  Free
 * it with onnx_model_free. */
Onnx__ModelProto *fmt_onnx_read(const char *path, const graft_limits *limits, graft_diag *d);

/* Reads the ONNX model at in and writes it to out, binary when out is
 * named *.onnx, else in ONNX's text syntax.  False after reporting
 * through d; nothing is written then. */
bool fmt_onnx(const char *in, const char *out, const graft_limits *limits, graft_diag *d);

#endif
