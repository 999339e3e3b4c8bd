/* einsum.c - reading an einsum equation (einsum.h). */
#include "einsum.h"

#include <string.h>

/* The letter's number in the order letters first occur. */
static int letter_id(char ch, signed char *ids, int *nletters)
{
    int code = ch >= 'a' && ch <= 'z' ? ch - 'a' : 26 + (ch - 'A');
    if (ids[code] < 0)
        ids[code] = (signed char)(*nletters)++;
    return ids[code];
}

static bool is_letter(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* The implicit output: the letters that occur once, alphabetically. */
static void implicit_output(EinsumSpec *s, const int *count, const signed char *ids)
{
    s->out_rank = 0;
    for (int code = 0; code < EINSUM_MAX_LETTERS; code++) {
        /* alphabetical: 'A'..'Z' sort before 'a'..'z' */
        int c = code < 26 ? code + 26 : code - 26;
        if (ids[c] >= 0 && count[ids[c]] == 1)
            s->out[s->out_rank++] = ids[c];
    }
}

bool einsum_parse(const char *eq, EinsumSpec *s, const char **why)
{
    signed char ids[EINSUM_MAX_LETTERS];
    int count[EINSUM_MAX_LETTERS] = {0};
    memset(ids, -1, sizeof ids);
    memset(s, 0, sizeof *s);
    const char *arrow = strstr(eq, "->");
    const char *end = arrow ? arrow : eq + strlen(eq);
    s->noperands = 1;
    for (const char *p = eq; p < end; p++) {
        if (*p == ',') {
            if (++s->noperands > EINSUM_MAX_OPERANDS)
                return *why = "more than 8 operands", false;
            continue;
        }
        if (*p == ' ')
            continue;
        if (*p == '.')
            return *why = "an ellipsis ('...') is not supported", false;
        if (!is_letter(*p))
            return *why = "a subscript must be a letter", false;
        int op = s->noperands - 1;
        if (s->rank[op] == EINSUM_MAX_RANK)
            return *why = "more than 32 subscripts", false;
        int id = letter_id(*p, ids, &s->nletters);
        s->sub[op][s->rank[op]++] = (signed char)id;
        count[id]++;
    }
    if (!arrow) {
        implicit_output(s, count, ids);
        return true;
    }
    for (const char *p = arrow + 2; *p; p++) {
        if (*p == ' ')
            continue;
        if (*p == '.')
            return *why = "an ellipsis ('...') is not supported", false;
        if (!is_letter(*p))
            return *why = "an output subscript must be a letter", false;
        int code = *p >= 'a' && *p <= 'z' ? *p - 'a' : 26 + (*p - 'A');
        if (ids[code] < 0)
            return *why = "an output subscript occurs in no operand", false;
        for (int i = 0; i < s->out_rank; i++)
            if (s->out[i] == ids[code])
                return *why = "an output subscript occurs twice", false;
        if (s->out_rank == EINSUM_MAX_RANK)
            return *why = "more than 32 subscripts", false;
        s->out[s->out_rank++] = ids[code];
    }
    return true;
}
