/* outbuf.c - decimal numbers for outbuf.h's appends (note [fast output]
 * in outbuf.h). */
#include "outbuf.h"

static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324"
                                  "25262728293031323334353637383940414243444546474849"
                                  "50515253545556575859606162636465666768697071727374"
                                  "75767778798081828384858687888990919293949596979899";

static const uint32_t powers_of_ten[] = {0, 10, 100, 1000, 10000, 100000, 1000000,
                                         10000000, 100000000, 1000000000};

/* The digits of n: from its bit length, 1233/4096 approximating
 * log10(2), less one when n is below the power of ten that gives (the
 * first entry is 0: one digit for n below 8). */
static size_t count_digits(uint32_t n)
{
#if defined(__GNUC__)
    unsigned bits = 32 - (unsigned)__builtin_clz(n | 1);
#else
    unsigned bits = 1;
    while (bits < 32 && n >> bits)
        bits++;
#endif
    unsigned guess = bits * 1233 >> 12; /* floor(log10(2^bits)) */
    return guess + 1 - (n < powers_of_ten[guess]);
}

size_t write_u32(char *at, uint32_t n)
{
    size_t ndigits = count_digits(n);
    at += ndigits;
    while (n >= 100) {
        uint32_t rest = n / 100;
        unsigned d = (n - rest * 100) * 2;
        n = rest;
        *--at = digit_pairs[d + 1];
        *--at = digit_pairs[d];
    }
    if (n >= 10) {
        *--at = digit_pairs[n * 2 + 1];
        *--at = digit_pairs[n * 2];
    } else {
        *--at = (char)('0' + n);
    }
    return ndigits;
}

/* Eight digits at a time from the top, the lower groups zero-padded. */
char *write_i64(char *at, int64_t n)
{
    uint64_t u = (uint64_t)n;
    if (n < 0) {
        *at++ = '-';
        u = 0 - u;
    }
    if (u >= 100000000) {
        at = write_i64(at, (int64_t)(u / 100000000));
        uint32_t low = (uint32_t)(u % 100000000);
        char digits[10];
        size_t nd = write_u32(digits, low);
        memset(at, '0', 8 - nd);
        memcpy(at + 8 - nd, digits, nd);
        return at + 8;
    }
    return at + write_u32(at, (uint32_t)u);
}

void out_i64(StrBuf *sb, int64_t n)
{
    sb->len = (size_t)(write_i64(out_room(sb, 20), n) - sb->data);
}
