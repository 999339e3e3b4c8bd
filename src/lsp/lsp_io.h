/* lsp_io.h - the Language Server Protocol's framing over a byte stream.
 *
 * A message is a header block ("Content-Length: N", other headers
 * ignored, each line ended by CRLF or LF), an empty line, then N bytes of
 * JSON.  Reading never trusts the header: a block without a length, a
 * length that is not a number, or one over the limit is reported to the
 * caller, which answers with an error and reads on.
 */
#ifndef GRAFT_LSP_IO_H
#define GRAFT_LSP_IO_H

#include <stddef.h>
#include <stdio.h>

/* The largest message body read (64 MiB): a document beyond it is refused
 * with an error response, its bytes skipped. */
enum { LSP_MAX_MESSAGE = 64 << 20 };

/* The output's buffer: a message up to this size leaves in one write. */
enum { LSP_OUT_BUFFER = 64 << 10 };

typedef enum LspRead {
    LSP_READ_OK,        /* *body holds *len bytes and a NUL */
    LSP_READ_EOF,       /* the stream ended (between or inside messages) */
    LSP_READ_NO_LENGTH, /* a header block without a valid Content-Length */
    LSP_READ_TOO_LARGE, /* Content-Length over max; the body was skipped */
} LspRead;

/* Reads one message; the caller frees *body (set only for LSP_READ_OK). */
LspRead lsp_read_message(FILE *in, size_t max, char **body, size_t *len);
/* Writes body (len bytes) as one message and flushes. */
void lsp_write_message(FILE *out, const char *body, size_t len);

#endif
