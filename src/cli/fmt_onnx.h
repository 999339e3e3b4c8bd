/* fmt_onnx.h - graft fmt on an ONNX model. */
#ifndef GRAFT_FMT_ONNX_H
#define GRAFT_FMT_ONNX_H

#include <stdbool.h>

#include "graft.h"

/* Whether out names a .onnx file, which gets the binary format; any other
 * output (standard output among them) gets ONNX's text syntax. */
bool fmt_onnx_binary_output(const char *out);

/* Reads the ONNX model at in and writes it to out, a .onnx file.  False
 * after reporting through d; nothing is written then. */
bool fmt_onnx(const char *in, const char *out, const graft_limits *limits, graft_diag *d);

#endif
