/* relay_load_control.h - finding the first block of Relay text that may
 * hold a control byte (note [control bytes] in relay_load.c), sixteen
 * bytes at a time: with SSE2's byte comparisons where the machine has
 * them (every x86-64), with 64-bit words elsewhere.  A header of the
 * loader's, inline, so that tests/check_relay.c can hold both forms to
 * the same answer on a machine that compiles only one of them into the
 * loader. */
#ifndef GRAFT_RELAY_LOAD_CONTROL_H
#define GRAFT_RELAY_LOAD_CONTROL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* note [control words]: the text is checked eight bytes at a time, each
 * byte's flag exact (no borrow crosses bytes: below, every byte has its
 * high bit set before 0x20 is taken from it), so that the tabs and
 * newlines in nearly every word are told from control bytes without
 * looking at bytes one by one. */
static const uint64_t ONES = 0x0101010101010101ull, HIGHS = 0x8080808080808080ull;

/* The high bit of each byte of w that is zero. */
static inline uint64_t zero_bytes(uint64_t w)
{
    return ~(((w & ~HIGHS) + ~HIGHS) | w | ~HIGHS);
}

/* The high bit of each byte of w that is a control byte: below 0x20
 * (0x20 taken from the byte with its high bit set: no borrow) or 0x7f
 * (1 added to its low seven bits: no carry), high bit clear; then tab,
 * newline and carriage return, found in about one word in five, are
 * let through. */
static inline uint64_t control_bytes(uint64_t w)
{
    uint64_t bad = (~((w | HIGHS) - 0x20 * ONES) | ((w & ~HIGHS) + ONES)) & ~w & HIGHS;
    if (bad)
        bad &= ~(zero_bytes(w ^ ('\t' * ONES)) | zero_bytes(w ^ ('\n' * ONES)) |
                 zero_bytes(w ^ ('\r' * ONES)));
    return bad;
}

/* note [control blocks]: where the machine has SSE2 (every x86-64), the
 * text is checked sixteen bytes at a time with its byte comparisons:
 * about 16 instructions a block where the words of note [control words]
 * take 40 (the check was 110 instructions per op node of the batch-norm
 * workload, bench/RESULTS.md).  The bytes are the same, so is the
 * answer; tests/check_relay.c's test_control_bytes_at_each_place puts a
 * control byte at each place of a block and around it, and
 * test_control_blocks_both_forms holds the two forms to one answer. */

/* Skips the blocks of sixteen bytes without a control byte, as two words
 * (note [control words]): the loader's where there is no SSE2. */
static inline size_t skip_plain_blocks_words(const char *text, size_t len)
{
    size_t i = 0;
    for (; i + 16 <= len; i += 16) {
        uint64_t w[2];
        memcpy(w, text + i, 16);
        if (control_bytes(w[0]) | control_bytes(w[1]))
            break;
    }
    return i;
}

#if defined(__SSE2__)
/* The bytes of the block of sixteen at text that are control bytes, each
 * all ones: the same bytes as note [control words]'s. */
static inline __m128i block_controls_sse2(const char *text)
{
    const __m128i last_control = _mm_set1_epi8(0x1f), del = _mm_set1_epi8(0x7f);
    const __m128i tab = _mm_set1_epi8('\t'), newline = _mm_set1_epi8('\n');
    const __m128i ret = _mm_set1_epi8('\r');
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)text);
    __m128i low = _mm_cmpeq_epi8(_mm_min_epu8(b, last_control), b); /* b <= 0x1f */
    __m128i layout = _mm_or_si128(_mm_cmpeq_epi8(b, tab),
                                  _mm_or_si128(_mm_cmpeq_epi8(b, newline), _mm_cmpeq_epi8(b, ret)));
    return _mm_or_si128(_mm_andnot_si128(layout, low), _mm_cmpeq_epi8(b, del));
}

/* The bytes of the block of sixteen at text that are below 0x20 but
 * newline, or 0x7f and above, each all ones: the control bytes and the
 * tabs, carriage returns and bytes of UTF-8, which Relay text seldom
 * holds, in six instructions where block_controls_sse2 takes sixteen: a
 * byte plus one, wrapping, is below 0x21 as a signed byte when it is
 * below 0x20 or from 0x7f on.  (Newlines, one a line, are in most
 * blocks: told apart by their own comparison.) */
static inline __m128i block_maybe_controls_sse2(const char *text)
{
    const __m128i one = _mm_set1_epi8(1), past = _mm_set1_epi8(0x21);
    const __m128i newline = _mm_set1_epi8('\n');
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)text);
    __m128i odd = _mm_cmplt_epi8(_mm_add_epi8(b, one), past); /* b <= 0x1f or b >= 0x7f */
    return _mm_xor_si128(odd, _mm_cmpeq_epi8(b, newline));
}

/* The same with SSE2's byte comparisons, four blocks a step, found with
 * block_maybe_controls_sse2 and their answers or'ed: one test and one
 * branch for 64 bytes (the step of one block with block_controls_sse2
 * cost 23 instructions, 1.4 a byte, 64 per op node of the batch-norm
 * workload; bench/RESULTS.md "Session 26, round 3").  From a step that
 * may hold a control byte (or holds a tab or UTF-8) on, the blocks are
 * looked at one by one with block_controls_sse2, so the answer is the
 * first block that holds one, as the words' form gives it. */
static inline size_t skip_plain_blocks_sse2(const char *text, size_t len)
{
    size_t i = 0;
    for (; i + 64 <= len; i += 64) {
        __m128i maybe = _mm_or_si128(_mm_or_si128(block_maybe_controls_sse2(text + i),
                                                  block_maybe_controls_sse2(text + i + 16)),
                                     _mm_or_si128(block_maybe_controls_sse2(text + i + 32),
                                                  block_maybe_controls_sse2(text + i + 48)));
        if (_mm_movemask_epi8(maybe))
            break;
    }
    for (; i + 16 <= len; i += 16)
        if (_mm_movemask_epi8(block_controls_sse2(text + i)))
            break;
    return i;
}
#endif

/* The length of the blocks of sixteen bytes from text without a control
 * byte: the first block that has one (or the last part of text, under
 * sixteen bytes) is where the caller looks byte by byte. */
static inline size_t skip_plain_words(const char *text, size_t len)
{
#if defined(__SSE2__)
    return skip_plain_blocks_sse2(text, len);
#else
    return skip_plain_blocks_words(text, len);
#endif
}

#endif
