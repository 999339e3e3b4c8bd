/* numtext.h - a double spelled as C's "%g" spells it, without printf.
 *
 * note [six digits]: graft spells a new float constant (an attribute made
 * an operand, a scalar a fold computed) as "%g" does, six significant
 * digits ("1e-05f", "0.001f", "3.14159f"), and goldens and models hold
 * those bytes, so the spelling cannot change.  glibc's printf finds it
 * in multi-precision arithmetic, about 4,700 instructions a constant
 * through strbuf_printf (fold_bn on resnet50 spells 106 of them: 3.6% of
 * the whole run).  numtext_g writes the same bytes from the six digits
 * computed in doubles, which is exact where it is used: |v| scaled by a
 * power of ten that a double holds exactly (10^0 to 10^22) is one
 * correctly rounded product or quotient, within 2^-33 of the true value
 * below 10^6, so rounding it to a whole number goes the true value's way
 * unless its fraction is within that of a half.  Values that are not
 * normal numbers between 10^-16 and 10^21, or that lie that near a tie
 * (1234565, 2.5e-7 and the like), are left to snprintf.
 * tests/check_numtext.c compares both on millions of values.
 */
#ifndef GRAFT_NUMTEXT_H
#define GRAFT_NUMTEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Room for any "%g" text of a double and its NUL. */
#define NUMTEXT_G_MAX 32

/* Writes v as "%g" would (NUL-terminated) to out; returns its length. */
size_t numtext_g(double v, char out[NUMTEXT_G_MAX]);

/* numtext_g without the snprintf fallback: false (out untouched) where
 * note [six digits] leaves v to snprintf. */
bool numtext_g_fast(double v, char out[NUMTEXT_G_MAX], size_t *len);

#endif
