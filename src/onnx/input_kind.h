/* input_kind.h - telling a rule file from a Relay model by its first
 * tokens, and an ONNX model by its first bytes, so that swapped arguments
 * get a hint instead of a page of syntax errors (note [swapped arguments]
 * in cli.h), and graft fmt knows which reader a model needs. */
#ifndef GRAFT_INPUT_KIND_H
#define GRAFT_INPUT_KIND_H

#include <stdbool.h>
#include <stddef.h>

typedef enum InputKind {
    INPUT_UNKNOWN, /* unreadable, "-", empty, or neither kind's start */
    INPUT_RULES,   /* NAME :=, NAME [flags] :=, op NAME(, let NAME, include */
    INPUT_MODEL,   /* #[version, def @, type NAME, fn ( */
    INPUT_ONNX,    /* an ONNX model: a file named *.onnx or *.onnxtxt, or bytes that
                      start as a ModelProto or as ONNX's text syntax */
} InputKind;

/* The kind of text, from its first tokens after blanks and comments
 * (# lines and / * * / in rule files, // and / * * / in Relay). */
InputKind input_kind_of_text(const char *text, size_t len);

/* The kind of the file at path: INPUT_ONNX when it is named *.onnx or
 * *.onnxtxt, else from its first 4 KiB (rule files and Relay first, then
 * ONNX's text syntax, then ONNX's bytes); INPUT_UNKNOWN for "-", FIFOs
 * and devices (they cannot be read twice) and files that cannot be read
 * (the loader reports those). */
InputKind input_kind_of_file(const char *path);

/* Whether the ONNX model at path is in ONNX's text syntax: named
 * *.onnxtxt, or named otherwise but *.onnx and starting as the text
 * syntax does (note [onnx text] in src/onnx/onnx_text.h).  A file named
 * *.onnx is binary whatever it holds (its reader names what it holds). */
bool input_onnx_is_text(const char *path);

#endif
