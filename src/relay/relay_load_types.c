/* relay_load_types.c - the type in an annotation made by hand (note
 * [types in annotations]). */
#include "relay_load.h"
#include "relay_load_bytes.h"

#include <stdlib.h>
#include <string.h>

/* note [types in annotations]: graph_annotation_type reads a comment's
 * "ty=" part with the graph's type parser, which makes each field of a
 * tuple type anew: densenet121's 199 distinct types hold 792 tensors in
 * their tuples (a concatenate's operands), some 14,600 instructions a
 * type.  The forms TVM prints, "Tensor[(dims), dtype]", a dtype and a
 * tuple of those, are read here instead, each tensor or dtype found by
 * its text's bytes in ps->types (note [span caches] in
 * relay_load_spans.c, shared with the def's parameters: a text of these
 * forms is one type to both readers) or made with the constructors the
 * graph's parser calls, so the type is the one it makes.  Any other text,
 * or these written otherwise (a ',' without its space, a trailing
 * comma, a nested tuple), is left to the graph's parser. */

enum { MAX_RANK = 32, MAX_DIM_DIGITS = 18 };

/* A dtype at s, [A-Za-z0-9_]+ as the graph's parser reads one: its end,
 * or NULL. */
static const char *word_end(const char *s, const char *end)
{
    const char *p = s;
    while (p < end && is((unsigned char)*p, IDENT))
        p++;
    return p > s ? p : NULL;
}

/* The tensor type whose dims and dtype are [s, close) (after "Tensor[("
 * to the ']'), or NULL when they are not written as TVM prints them. */
static const graft_type *make_tensor(RelayParser *ps, const char *s, const char *close)
{
    int64_t dims[MAX_RANK];
    int rank = 0;
    while (*s != ')') {
        if (rank == MAX_RANK)
            return NULL;
        const char *digits = s;
        while (is((unsigned char)*s, DIGIT))
            s++;
        if (s - digits > MAX_DIM_DIGITS) /* checked first: 19 digits overflow */
            return NULL;
        int64_t d = 0;
        for (const char *p = digits; p < s; p++)
            d = d * 10 + (*p - '0');
        if (s == digits && *s == '?')
            d = DIM_ANY, s++;
        else if (s == digits)
            return NULL;
        dims[rank++] = d;
        if (*s != ')' && (close - s < 2 || memcmp(s, ", ", 2) != 0 || *(s += 2) == ')'))
            return NULL;
    }
    s++;
    if (close - s < 2 || memcmp(s, ", ", 2) != 0 || word_end(s + 2, close) != close)
        return NULL;
    const char *dtype = graph_intern_n(ps->g, s + 2, (size_t)(close - s - 2));
    return graph_type_tensor(ps->g, dtype, dims, rank);
}

/* A tensor type or a dtype at s, found or made into *t: its end, or
 * NULL. */
static const char *field(RelayParser *ps, const char *s, const char *end, const graft_type **t)
{
    bool tensor = end - s > 8 && memcmp(s, "Tensor[(", 8) == 0;
    const char *e = tensor ? memchr(s, ']', (size_t)(end - s)) : word_end(s, end);
    if (!e)
        return NULL;
    if (tensor)
        e++;
    else if (e < end && (*e == '[' || *e == '(' || *e == ' ')) /* "List[...]": not a dtype */
        return NULL;
    uint64_t key;
    const SpanEntry *known = span_cache_get(&ps->types, s, (uint32_t)(e - s), &key);
    if (known) {
        *t = known->type;
        return e;
    }
    *t = tensor ? make_tensor(ps, s + 8, e - 1)
                : graph_type_tensor(ps->g, graph_intern_n(ps->g, s, (size_t)(e - s)), NULL, 0);
    if (!*t)
        return NULL;
    SpanEntry made = {s, (uint32_t)(e - s), *t, NULL};
    span_cache_put(&ps->types, key, &made);
    return e;
}

/* "(field, field, ...)" at s, up to end: the tuple type, or NULL. */
static const graft_type *tuple(RelayParser *ps, const char *s, const char *end)
{
    VEC(const graft_type *) fields = {0};
    s++;
    while (s && s < end && *s != ')') {
        if (fields.len) {
            if (end - s < 2 || memcmp(s, ", ", 2) != 0)
                break;
            s += 2;
        }
        const graft_type *f;
        if ((s = field(ps, s, end, &f)))
            vec_push(&fields, f);
    }
    const graft_type *t = NULL;
    if (s && s + 1 == end && fields.len) /* "()": the graph's parser reads it */
        t = graph_type_tuple(ps->g, fields.items, (int)fields.len);
    vec_free(&fields);
    return t;
}

const graft_type *load_ty_type(RelayParser *ps, const char *s, size_t n)
{
    const char *end = s + n;
    if (n && *s == '(')
        return tuple(ps, s, end);
    const graft_type *t;
    return n && field(ps, s, end, &t) == end ? t : NULL;
}
