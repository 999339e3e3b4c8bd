/* outfile.h - output files that never harm what they write to.
 *
 * note [atomic output]: graft never leaves a partial output file and never
 * replaces what an output path names with something of another kind.
 * What -o OUT names decides how it is written:
 *
 *   - a regular file, or nothing yet: output goes to a temporary file
 *     beside it, renamed over it only when everything was written and
 *     flushed (an existing file keeps its permissions);
 *   - a symbolic link (or a chain of them, or one that dangles): the same,
 *     for the file at the end of the chain; the links stay links;
 *   - a device, a FIFO or a socket (/dev/null, a pipe made with mkfifo):
 *     opened for writing as it is, never created, renamed or replaced;
 *     the output is spooled to an unlinked temporary file and copied in
 *     only on success, so a failed run writes nothing to it;
 *   - a directory, a read-only file or a place graft may not write: an
 *     error before any work, with nothing touched.
 *
 * "-" (or a NULL path) means standard output, written directly.
 */
#ifndef GRAFT_OUTFILE_H
#define GRAFT_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "diag.h"

typedef struct OutFile OutFile;

/* Opens the temporary (or spool) file; NULL after reporting through d,
 * "cannot write 'PATH': REASON", when PATH cannot be written. */
OutFile *outfile_open(const char *path, graft_diag *d);
/* The same for a program: a file it creates (or replaces) is executable. */
OutFile *outfile_open_exec(const char *path, graft_diag *d);
FILE *outfile_stream(OutFile *of);
/* Flushes, checks for write errors (a full disk), renames into place (or
 * copies into the device or FIFO).  Returns false after reporting; a
 * regular target is then untouched. */
bool outfile_commit(OutFile *of, graft_diag *d);
/* Discards the temporary file; the target is untouched. */
void outfile_abort(OutFile *of);
/* Flushes and checks for write errors without renaming; false after
 * reporting.  Lets a command that writes several files (graft compile
 * -o OUT.c --header OUT.h) check them all before committing any. */
bool outfile_flush(OutFile *of, graft_diag *d);
/* True when path names the same existing file as other (by inode). */
bool outfile_same_file(const char *path, const char *other);

#endif
