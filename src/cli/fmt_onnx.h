/* fmt_onnx.h - graft fmt on an ONNX model, binary or text. */
#ifndef GRAFT_FMT_ONNX_H
#define GRAFT_FMT_ONNX_H

#include <stdbool.h>

#include "graft.h"
#include "onnx_model.h"

/* Reads the ONNX model at in and writes it to out, binary when out is
 * named *.onnx, else in ONNX's text syntax.  False after reporting
 * through d; nothing is written then. */
bool fmt_onnx(const char *in, const char *out, const graft_limits *limits, graft_diag *d);

#endif
