/* fmt_rules.h - graft fmt of a rule file: one canonical layout.
 *
 * The text of every item is the canonical printer's (note [canonical
 * text] in ast_print.c), laid out over several lines only where it is
 * wider than FMT_RULES_WIDTH (note [rule layout] in fmt_rules_layout.c);
 * the comments are kept (note [comment placement] in fmt_rules.c).  The
 * file is parsed, not checked: a file naming ops graft does not know
 * formats all the same.  Formatting its own output changes nothing.
 */
#ifndef GRAFT_FMT_RULES_H
#define GRAFT_FMT_RULES_H

#include <stdbool.h>

#include "ast.h"
#include "diag.h"
#include "util.h"

/* The width an item's lines keep to where the layout can break them. */
enum { FMT_RULES_WIDTH = 100 };

/* Appends the formatted text of src to out.  On a syntax error (reported
 * to d, the parser's nesting bound max_depth included) returns false and
 * leaves out as it was. */
bool fmt_rules_source(const Source *src, int max_depth, StrBuf *out, graft_diag *d);

/* Appends item in its layout, without a final newline. */
void fmt_rules_item(StrBuf *out, const AstItem *item);

#endif
