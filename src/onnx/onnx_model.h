/* onnx_model.h - reading and writing ONNX model files (.onnx, protobuf).
 *
 * note [onnx bytes]: a model is read by graft's decoder into the
 * onnx.ModelProto structs that protobuf-c generated at build time from
 * Debian's onnx.proto (onnx.pb-c.h in the build tree), all of it in one
 * arena, the file's bytes fields left in place (note [bytes in place] in
 * onnx_decode.h, note [model arena] in onnx_model.c); it checks the wire
 * format as it reads, and on a fault the wire check (note [wire check] in
 * onnx_wire.h) reports it with its byte offset (note [checked as
 * decoded]).  Writing encodes a ModelProto as protobuf-c's pack
 * would, byte for byte, with every length computed once (note [onnx
 * encode] in onnx_encode.h), into the output stream.
 *
 * What comes back byte for byte: protobuf-c's pack writes known fields in field
 * number order, as protobuf's C++ and Python serializers do, and keeps
 * the presence of every optional field (proto2), so a file those
 * serializers wrote (canonically encoded) is written back unchanged.
 * Three things are not canonical and come back canonical instead:
 *   - fields out of field-number order are written in order;
 *   - unknown fields (those a newer onnx.proto has) are kept, with their
 *     bytes, but written after the known fields of their message;
 *   - repeated scalars are written as onnx.proto declares them: packed
 *     where it says [packed = true] (TensorProto's float_data, int32_data,
 *     int64_data, double_data, uint64_data), one key per value elsewhere
 *     (TensorProto's dims, AttributeProto's ints and floats), whichever
 *     way the input had them.
 * tests/check_onnx.c shows each.  Bytes fields (initializers' raw_data)
 * are written as they are, never decoded.
 */
#ifndef GRAFT_ONNX_MODEL_H
#define GRAFT_ONNX_MODEL_H

#include <stdbool.h>
#include <stdio.h>

#include "arena.h"
#include "diag.h"
#include "keymap.h"
#include "limit.h"
#include "onnx_lean.h"
#include "onnx.pb-c.h"

/* The model in src (the bytes of a .onnx file), or NULL after reporting
 * "NAME: error: byte N: ..." through d.  A file with no graph is an
 * error too, and so is a graph that fails the checks of note [graph check]
 * in onnx_check.h ("NAME: error: node 'n' (Op) of graph 'g' ...").  Free
 * the result with onnx_model_free. */
Onnx__ModelProto *onnx_model_read(const Source *src, const graft_limits *limits,
                                  graft_diag *d);

/* The same, taking src's text: the model keeps the file's bytes and
 * points into them (note [bytes in place]) where onnx_model_read copies
 * them; src->text is NULL after it. */
Onnx__ModelProto *onnx_model_read_taking(Source *src, const graft_limits *limits,
                                         graft_diag *d);

/* The same without the graph's checks (note [graph check] in
 * onnx_check.h), for onnx_import_checking, which makes them
 * (note [check in the import] in onnx_import.c). */
Onnx__ModelProto *onnx_model_read_unchecked(Source *src, const graft_limits *limits,
                                            graft_diag *d);

/* The same, the model read lean (note [lean read] in onnx_lean.h): only
 * for writing it back (onnx_model_write_from, with read the model
 * itself); its graph's nodes, initializers and value_info are not in its
 * structs but in onnx_model_lean's lists. */
Onnx__ModelProto *onnx_model_read_lean(Source *src, const graft_limits *limits, graft_diag *d);

/* The lists of a model read lean, or NULL: it was read whole. */
const OnnxLeanGraph *onnx_model_lean(const Onnx__ModelProto *model);

/* The same on bytes, which it copies; name is the file's name for
 * messages. */
Onnx__ModelProto *onnx_model_unpack(const uint8_t *data, size_t len, const char *name,
                                    const graft_limits *limits, graft_diag *d);

/* The same on bytes malloc'd by the caller, which the model (or, when
 * there is none, this call) frees. */
Onnx__ModelProto *onnx_model_adopt(uint8_t *bytes, size_t len, const char *name,
                                   const graft_limits *limits, graft_diag *d);

/* The same without the checks of note [graph check], for the text reader,
 * which makes them once the model knows where its nodes were written
 * (note [text positions] in onnx_text_where.h). */
Onnx__ModelProto *onnx_model_adopt_unchecked(uint8_t *bytes, size_t len, const char *name,
                                             const graft_limits *limits, graft_diag *d);

/* Packs model into out.  False when writing failed (the caller's
 * outfile_commit reports it). */
bool onnx_model_write(const Onnx__ModelProto *model, FILE *out);

/* The same, for a model that shares messages with read, a model this file
 * read (or read itself): those read from canonical bytes are written as
 * their bytes, not encoded again (note [canonical spans] in onnx_span.h);
 * the output is onnx_model_write's, byte for byte. */
bool onnx_model_write_from(const Onnx__ModelProto *model, const Onnx__ModelProto *read,
                           FILE *out);

/* The same, and the messages the export made that made gives written as
 * their bytes (OnnxMadeBytes in onnx_encode.h: note [functions packed
 * once] in onnx_export_fn.c, note [made nodes packed] in onnx_export_pack.c). */
struct OnnxMadeBytes;
bool onnx_model_write_made(const Onnx__ModelProto *model, const Onnx__ModelProto *read,
                           const struct OnnxMadeBytes *made, FILE *out);

void onnx_model_free(Onnx__ModelProto *model);

/* The interner holding every string of model (note [interned strings] in
 * onnx_decode.h): a string of model equal to one it holds is that one.
 * It lives as long as model, and so do the strings interned in it later
 * (its arena is the model's). */
Interner *onnx_model_names(Onnx__ModelProto *model);

/* Where a model read from text was written (note [text positions] in
 * onnx_text_where.h): NULL for a binary model; not const, since it
 * indexes itself when first asked.  Setting it hands where to the model,
 * which frees it. */
struct OnnxTextWhere;
void onnx_model_set_text_where(Onnx__ModelProto *model, struct OnnxTextWhere *where);
struct OnnxTextWhere *onnx_model_text_where(const Onnx__ModelProto *model);

/* Whether the bytes start like an ONNX model: a ModelProto whose first
 * fields have the wire types onnx.proto gives them (for telling an .onnx
 * file from a text file given in its place). */
bool onnx_model_looks_like(const uint8_t *data, size_t len);

#endif
