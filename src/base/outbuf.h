/* outbuf.h - appending text to a StrBuf fast: the byte tricks of the
 * Relay printer (relay_print*.c), which writes a large model's text, a
 * few dozen pieces per node, and is what graft fmt and graft run spend
 * their time on after loading.
 *
 * note [fast output]: the common append is a bounds check and a copy,
 * inline.  These appends leave the text unterminated (what reads a
 * buffer takes its length; a caller that wants a C string ends it with
 * *out_room(sb, 0) = '\0'), and out_room keeps a byte spare for that NUL.
 * Two ways to write: out_* append to a StrBuf, checking its room each
 * time; write_* write at a plain pointer into room made beforehand and
 * return where the next piece goes, for a caller that bounds a whole
 * text's length first (note [one reservation] in relay_print_impl.h).
 */
#ifndef GRAFT_OUTBUF_H
#define GRAFT_OUTBUF_H

#include <stdint.h>
#include <string.h>

#include "util.h"

/* Room for n more bytes (and a NUL) at the end of sb: where they go. */
GRAFT_HOT char *out_room(StrBuf *sb, size_t n)
{
    if (sb->cap - sb->len <= n) /* also when nothing is allocated yet */
        sb->data = xgrow_items(sb->data, &sb->cap, sb->len + n + 1, 1);
    return sb->data + sb->len;
}

/* Copies the n bytes at s to at: names and op names are short, and a
 * short copy is two overlapping moves of 16, 8 or 4 bytes, each within
 * the n bytes, cheaper than a call of memcpy. */
GRAFT_HOT void copy_bytes(char *at, const char *s, size_t n)
{
    uint64_t a8, b8;
    uint32_t a4, b4;
    char a16[16], b16[16];
    if (n > 32) {
        memcpy(at, s, n);
    } else if (n > 16) {
        memcpy(a16, s, 16);
        memcpy(b16, s + n - 16, 16);
        memcpy(at, a16, 16);
        memcpy(at + n - 16, b16, 16);
    } else if (n >= 8) {
        memcpy(&a8, s, 8);
        memcpy(&b8, s + n - 8, 8);
        memcpy(at, &a8, 8);
        memcpy(at + n - 8, &b8, 8);
    } else if (n >= 4) {
        memcpy(&a4, s, 4);
        memcpy(&b4, s + n - 4, 4);
        memcpy(at, &a4, 4);
        memcpy(at + n - 4, &b4, 4);
    } else if (n) {
        at[0] = s[0];
        at[n / 2] = s[n / 2];
        at[n - 1] = s[n - 1];
    }
}

GRAFT_HOT char *write_mem(char *at, const char *s, size_t n)
{
    copy_bytes(at, s, n);
    return at + n;
}

/* A string literal: its length is known at compile time. */
#define write_lit(at, lit) write_mem((at), (lit), sizeof(lit) - 1)

GRAFT_HOT void out_mem(StrBuf *sb, const char *s, size_t n)
{
    copy_bytes(out_room(sb, n), s, n);
    sb->len += n;
}

#define out_lit(sb, lit) out_mem((sb), (lit), sizeof(lit) - 1)

GRAFT_HOT void out_str(StrBuf *sb, const char *s)
{
    out_mem(sb, s, strlen(s));
}

GRAFT_HOT void out_chr(StrBuf *sb, char c)
{
    *out_room(sb, 1) = c;
    sb->len++;
}

/* The bytes write_indent may store, past the indentation itself for
 * the usual depths (it copies a constant in one fixed-size move). */
enum { OUT_INDENT_ROOM = 64 };

/* Two spaces per level (none below 0), at at, where room for the larger
 * of OUT_INDENT_ROOM and the indentation was made. */
GRAFT_HOT char *write_indent(char *at, int level)
{
    static const char spaces[OUT_INDENT_ROOM] = "                                "
                                                "                                ";
    size_t n = 2 * (size_t)(level > 0 ? level : 0);
    if (n <= 16) /* the usual depths */
        memcpy(at, spaces, 16);
    else if (n <= sizeof spaces)
        memcpy(at, spaces, sizeof spaces);
    else
        memset(at, ' ', n);
    return at + n;
}

GRAFT_HOT void out_indent(StrBuf *sb, int level)
{
    size_t n = 2 * (size_t)(level > 0 ? level : 0);
    char *at = out_room(sb, n > OUT_INDENT_ROOM ? n : OUT_INDENT_ROOM);
    sb->len = (size_t)(write_indent(at, level) - sb->data);
}

/* Decimal numbers without printf (the printer writes a million): the
 * digits counted first, then written in place from the last, two at a
 * time.  write_u32 and write_i64 write at most 10 and 20 bytes. */
size_t write_u32(char *at, uint32_t n);
char *write_i64(char *at, int64_t n);
void out_i64(StrBuf *sb, int64_t n);

#endif
