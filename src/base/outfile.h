/* outfile.h - atomic output files.
 *
 * note [atomic output]: graft never leaves a partial output file.  Output
 * goes to a temporary file beside the target, which is renamed over the
 * target only when everything was written and flushed.  "-" (or a NULL
 * path) means standard output, written directly.
 */
#ifndef GRAFT_OUTFILE_H
#define GRAFT_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "diag.h"

typedef struct OutFile OutFile;

/* Opens the temporary file; NULL after reporting through d on failure. */
OutFile *outfile_open(const char *path, Diag *d);
FILE *outfile_stream(OutFile *of);
/* Flushes, checks for write errors (a full disk), renames into place.
 * Returns false after reporting; the target is then untouched. */
bool outfile_commit(OutFile *of, Diag *d);
/* Discards the temporary file; the target is untouched. */
void outfile_abort(OutFile *of);
/* Flushes and checks for write errors without renaming; false after
 * reporting.  Lets a command that writes several files (graft compile
 * -o OUT.c --header OUT.h) check them all before committing any. */
bool outfile_flush(OutFile *of, Diag *d);
/* True when path names the same existing file as other (by inode). */
bool outfile_same_file(const char *path, const char *other);

#endif
