/* diag_json.h - diagnostics as one JSON document, for CI systems and code
 * review tools (--diagnostics-format=json|sarif on every command).
 *
 *   DiagLog *log = diag_log_new(DIAG_FORMAT_SARIF);
 *   diag_log_attach(log, d);      every report of d is recorded, not printed
 *   ... the command runs ...
 *   diag_log_write(log, stderr);  once, at the end
 *   diag_log_free(log);
 *
 * json is shaped like GCC's -fdiagnostics-format=json: an array of
 * {kind, message, option, locations: [{caret, finish}], children}, the
 * notes as children of the report they follow.  sarif is a SARIF 2.1.0
 * log: one run, one result per error or warning, its notes as related
 * locations.  Columns: "byte-column" is graft's (bytes, as the text
 * output); "column" and SARIF's columns count Unicode code points.
 */
#ifndef GRAFT_DIAG_JSON_H
#define GRAFT_DIAG_JSON_H

#include <stdbool.h>
#include <stdio.h>

#include "diag.h"

typedef enum DiagFormat { DIAG_FORMAT_TEXT, DIAG_FORMAT_JSON, DIAG_FORMAT_SARIF } DiagFormat;

/* "text", "json" or "sarif"; false for another word. */
bool diag_format_by_name(const char *name, DiagFormat *out);

typedef struct DiagLog DiagLog;

DiagLog *diag_log_new(DiagFormat format);
/* Sends d's reports to log (diag_set_sink); log must outlive d's use. */
void diag_log_attach(DiagLog *log, graft_diag *d);
void diag_log_write(const DiagLog *log, FILE *out);
void diag_log_free(DiagLog *log);

#endif
