/* relay_load_bytes.h - the byte classes and the small scanners the
 * hand-read parts of the loader share: the long tokens
 * (relay_load_scan.c) and the binding lines (relay_load_line.c).  Each
 * scanner checks the pattern grammar/relay_lex.l matches the same text
 * with, so that reading by hand and by flex agree. */
#ifndef GRAFT_RELAY_LOAD_BYTES_H
#define GRAFT_RELAY_LOAD_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* The classes of a byte (as in Lua's lctype.c): LAYOUT [ \t\r\n]; ENDS,
 * what ends an item (layout, ',', ')' and the NUL after the text);
 * DIGIT; IDSTART [A-Za-z_]; IDENT [A-Za-z0-9_]; NAMEC, what a name's
 * parts are made of ([A-Za-z0-9_./-]); BLANK [ \t]; SPACE, layout but a
 * newline [ \t\r].  Bytes from 0x80 are in none. */
enum {
    LAYOUT = 1, ENDS = 2, DIGIT = 4, IDSTART = 8, IDENT = 16, NAMEC = 32, BLANK = 64,
    SPACE = 128
};

static const unsigned char byte_class[256] = {
     2,  0,  0,  0,  0,  0,  0,  0,  0,195,  3,  0,  0,131,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
   195,  0,  0,  0,  0,  0,  0,  0,  0,  2,  0,  0,  2, 32, 32, 32,
    52, 52, 52, 52, 52, 52, 52, 52, 52, 52,  0,  0,  0,  0,  0,  0,
     0, 56, 56, 56, 56, 56, 56, 56, 56, 56, 56, 56, 56, 56, 56, 56,
    56, 56, 56, 56, 56, 56, 56, 56, 56, 56, 56,  0,  0,  0,  0, 56,
     0, 56, 56, 56, 56, 56, 56, 56, 56, 56, 56, 56, 56, 56, 56, 56,
    56, 56, 56, 56, 56, 56, 56, 56, 56, 56, 56,  0,  0,  0,  0,  0,
};

typedef const unsigned char *Bytes;

static inline bool is(unsigned char c, int classes)
{
    return byte_class[c] & classes;
}

static inline Bytes skip(Bytes s, int classes)
{
    while (is(*s, classes))
        s++;
    return s;
}

/* NAME: "%" (DIGITS | [A-Za-z_] (NAMEC | ":"+ NAMEC)*): its end, or NULL. */
static inline Bytes scan_name(Bytes s)
{
    s++;
    if (is(*s, DIGIT))
        return skip(s, DIGIT);
    if (!is(*s, IDSTART))
        return NULL;
    for (;;) {
        s = skip(s + 1, NAMEC);
        if (*s != ':')
            return s;
        while (*s == ':')
            s++;
        if (!is(*s, NAMEC))
            return NULL;
    }
}

/* Whether [s, end) is a float literal's suffix: f, f16, f32 or f64;
 * with ints, also an integer's: i8, i16, i32, i64 and the same with u. */
static inline bool is_suffix(Bytes s, Bytes end, bool ints)
{
    size_t n = (size_t)(end - s);
    bool bits = (n == 2 && s[1] == '8') ||
                (n == 3 && (memcmp(s + 1, "16", 2) == 0 || memcmp(s + 1, "32", 2) == 0 ||
                            memcmp(s + 1, "64", 2) == 0));
    return (s[0] == 'f' && (n == 1 || (bits && n == 3))) ||
           (ints && (s[0] == 'i' || s[0] == 'u') && bits);
}

/* EXP at s ([eE][-+]?DIGITS): its end, or NULL. */
static inline Bytes scan_exponent(Bytes s)
{
    s++;
    if (*s == '-' || *s == '+')
        s++;
    Bytes end = skip(s, DIGIT);
    return end > s ? end : NULL;
}

/* LITERAL: -?DIGITS then ("." [0-9]*)? EXP? and a float suffix (f, f16,
 * f32, f64) or none, or an integer suffix (i8 ... u64) right after the
 * digits: its end, or NULL. */
static inline Bytes scan_literal(Bytes s)
{
    if (*s == '-')
        s++;
    Bytes p = skip(s, DIGIT);
    if (p == s)
        return NULL;
    bool whole = true;
    if (*p == '.') {
        p = skip(p + 1, DIGIT);
        whole = false;
    }
    if (*p == 'e' || *p == 'E') {
        if (!(p = scan_exponent(p)))
            return NULL;
        whole = false;
    }
    Bytes end = skip(p, IDENT);
    return end == p || is_suffix(p, end, whole) ? end : NULL;
}

/* A comment at s, "/ *" to the first "* /": its end, or NULL (none, or
 * not closed). */
static inline Bytes scan_comment(Bytes s)
{
    if (s[0] != '/' || s[1] != '*')
        return NULL;
    const char *close = strstr((const char *)s + 2, "*/");
    return close ? (Bytes)close + 2 : NULL;
}

/* A dotted name at s, IDENT ("." IDENT)*, as an op ("nn.conv2d") or a
 * dtype ("custom.bf16") is spelled: its end, or NULL if s starts no
 * identifier.  A '.' not followed by an identifier ends the name. */
static inline Bytes dotted_name_end(Bytes s)
{
    if (!is(*s, IDSTART))
        return NULL;
    for (;;) {
        s = skip(s + 1, IDENT);
        if (*s != '.' || !is(s[1], IDSTART))
            return s;
        s++;
    }
}

/* "%N = KEYWORD(" is not a call: the short tokens read it. */
static inline bool is_keyword(Bytes s, size_t n)
{
#define IS(word) (memcmp(s, word, n) == 0)
    switch (n) {
    case 2: return IS("fn") || IS("if");
    case 3: return IS("def") || IS("let");
    case 4: return IS("else") || IS("True") || IS("None");
    case 5: return IS("match") || IS("False");
    case 8: return IS("free_var");
    default: return false;
    }
#undef IS
}

#endif
