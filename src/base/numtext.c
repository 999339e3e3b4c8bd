/* numtext.c - a double spelled as "%g" (note [six digits] in numtext.h). */
#include "numtext.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The powers of ten a double holds exactly. */
static const double exact_pow10[] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* a * 10^k for k in [-22, 22]: one rounding. */
static double scale10(double a, int k)
{
    return k >= 0 ? a * exact_pow10[k] : a / exact_pow10[-k];
}

/* The six significant digits of a (normal, 10^-16 <= a < 10^21) rounded
 * to nearest, as a number in [100000, 999999], and the decimal exponent
 * of the first; false when the rounding is too near a tie to decide. */
static bool six_digits(double a, uint32_t *digits, int *exp10)
{
    if (!(a >= 1e-16 && a < 1e21))
        return false;
    int bin;
    frexp(a, &bin); /* a in [2^(bin-1), 2^bin) */
    /* floor(log10(a)) is this or one more: log10(2) < 1 */
    int e = (int)floor((bin - 1) * 0.30102999566398120);
    double s = scale10(a, 5 - e);
    if (s >= 1e6)
        s = scale10(a, 5 - ++e);
    if (s < 1e5 || s >= 1e6)
        return false;
    double whole = floor(s), frac = s - whole; /* both exact */
    if (fabs(frac - 0.5) < 1e-6)
        return false;
    uint32_t m = (uint32_t)whole + (frac > 0.5);
    if (m == 1000000) { /* 999999.5 and above round up a decade */
        m = 100000;
        e++;
    }
    *digits = m;
    *exp10 = e;
    return true;
}

/* Drops the trailing '0's of the n digits at d; how many are left. */
static int strip_zeros(const char *d, int n)
{
    while (n > 0 && d[n - 1] == '0')
        n--;
    return n;
}

/* "%g"'s exponent form: d[.ddddd]e+XX, at least two exponent digits. */
static char *put_exponent_form(char *at, const char *d, int exp10)
{
    *at++ = d[0];
    int frac = strip_zeros(d + 1, 5);
    if (frac) {
        *at++ = '.';
        memcpy(at, d + 1, (size_t)frac);
        at += frac;
    }
    *at++ = 'e';
    *at++ = exp10 < 0 ? '-' : '+';
    int x = exp10 < 0 ? -exp10 : exp10;
    if (x >= 100)
        *at++ = (char)('0' + x / 100);
    *at++ = (char)('0' + x / 10 % 10);
    *at++ = (char)('0' + x % 10);
    return at;
}

/* "%g"'s fixed form for -4 <= exp10 < 6, trailing zeros dropped. */
static char *put_fixed_form(char *at, const char *d, int exp10)
{
    if (exp10 < 0) {
        *at++ = '0';
        *at++ = '.';
        for (int i = -1; i > exp10; i--)
            *at++ = '0';
        int n = strip_zeros(d, 6);
        memcpy(at, d, (size_t)n);
        return at + n;
    }
    memcpy(at, d, (size_t)exp10 + 1);
    at += exp10 + 1;
    int frac = strip_zeros(d + exp10 + 1, 5 - exp10);
    if (frac) {
        *at++ = '.';
        memcpy(at, d + exp10 + 1, (size_t)frac);
        at += frac;
    }
    return at;
}

bool numtext_g_fast(double v, char out[NUMTEXT_G_MAX], size_t *len)
{
    char *at = out;
    if (v == 0) { /* "0" and "-0" */
        if (signbit(v))
            *at++ = '-';
        *at++ = '0';
        *at = '\0';
        *len = (size_t)(at - out);
        return true;
    }
    uint32_t m;
    int exp10;
    if (!six_digits(fabs(v), &m, &exp10))
        return false;
    char d[6];
    for (int i = 5; i >= 0; i--, m /= 10)
        d[i] = (char)('0' + m % 10);
    if (v < 0)
        *at++ = '-';
    at = exp10 < -4 || exp10 >= 6 ? put_exponent_form(at, d, exp10)
                                  : put_fixed_form(at, d, exp10);
    *at = '\0';
    *len = (size_t)(at - out);
    return true;
}

size_t numtext_g(double v, char out[NUMTEXT_G_MAX])
{
    size_t len;
    if (numtext_g_fast(v, out, &len))
        return len;
    int n = snprintf(out, NUMTEXT_G_MAX, "%g", v);
    return n > 0 ? (size_t)n : 0;
}
