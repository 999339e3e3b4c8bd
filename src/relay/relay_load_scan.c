/* relay_load_scan.c - the long tokens scanned by hand (note [long tokens]
 * in grammar/relay_lex.l): a binding's head "%N = op(" and a list of
 * names and numbers "%a, 1e-05f)", each checked against the patterns the
 * scanner once matched them with and split into its parts on the way, in
 * one pass over the bytes. */
#include "relay_load.h"
#include "relay_load_bytes.h"

#include <string.h>

static void push_item(RelayLexer *lx, uint32_t off, uint32_t len)
{
    vec_push(&lx->items, ((RelayText){off, len}));
}

uint32_t relay_scan_names(RelayLexer *lx, uint32_t off)
{
    Bytes text = (Bytes)lx->src->text, s = text + off;
    lx->items.len = 0;
    lx->names_at = off;
    for (;;) {
        Bytes item = skip(s, LAYOUT);
        s = *item == '%' ? scan_name(item) : scan_literal(item);
        if (!s || !is(*s, ENDS) || !*s)
            return 0;
        push_item(lx, (uint32_t)(item - text), (uint32_t)(s - item));
        s = skip(s, LAYOUT);
        if (*s == ')')
            return (uint32_t)(s + 1 - (text + off));
        if (*s++ != ',')
            return 0;
    }
}

uint32_t relay_scan_semicolon(const RelayLexer *lx, uint32_t off)
{
    Bytes s = (Bytes)lx->src->text + off, end = skip(s, LAYOUT);
    return *end == ';' ? (uint32_t)(end + 1 - s) : 0;
}

uint32_t relay_scan_bind(RelayLexer *lx, uint32_t off)
{
    Bytes text = (Bytes)lx->src->text, s = skip(text + off, LAYOUT);
    if (*s != '%' || !is(s[1], DIGIT))
        return 0;
    Bytes temp = s;
    s = skip(s + 1, DIGIT);
    Bytes temp_end = s;
    s = skip(s, BLANK);
    if (*s++ != '=')
        return 0;
    s = skip(s, BLANK);
    Bytes op = s;
    if (!(s = dotted_name_end(op)) || *s != '(' || is_keyword(op, (size_t)(s - op)))
        return 0;
    lx->bind_temp = (RelayText){(uint32_t)(temp - text), (uint32_t)(temp_end - temp)};
    lx->bind_op = (RelayText){(uint32_t)(op - text), (uint32_t)(s - op)};
    lx->bind_end = (uint32_t)(s + 1 - text);
    return lx->bind_end - off;
}
