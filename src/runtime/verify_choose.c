/* verify_choose.c - what the instance search chooses from: the chooser
 * (note [instance search] in verify_impl.h), random values, and candidate
 * attribute values, written as canonical text and parsed into a graph's
 * attribute values. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "verify_impl.h"

/* ---- the chooser ---- */

int chooser_pick(Chooser *c, int count)
{
    if (count <= 1)
        return 0;
    if (c->pos < c->n)
        return c->digit[c->pos++] % count;
    if (c->n == VERIFY_MAX_CHOICES)
        return 0;
    c->digit[c->n] = 0;
    c->radix[c->n++] = count;
    c->pos++;
    return 0;
}

bool chooser_next(Chooser *c)
{
    while (c->n > 0 && c->digit[c->n - 1] + 1 >= c->radix[c->n - 1])
        c->n--;
    if (c->n == 0)
        return false;
    c->digit[c->n - 1]++;
    c->pos = 0;
    return true;
}

/* ---- random values ---- */

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double verify_random(uint64_t *state)
{
    return (double)(splitmix64(state) >> 11) * 0x1p-53;
}

void verify_fill_random(Tensor *t, uint64_t *rng, bool positive)
{
    for (size_t i = 0; i < t->size; i++) {
        double u = verify_random(rng);
        if (strcmp(t->dtype, "bool") == 0)
            t->data[i] = u < 0.5 ? 0 : 1;
        else if (!eval_is_float(t->dtype))
            t->data[i] = floor(u * 9) - 4;
        else if (positive)
            t->data[i] = (4 + floor(u * 29)) / 16;
        else
            t->data[i] = (floor(u * 65) - 32) / 16;
    }
}

void verify_draw(Instance *in, bool all_positive)
{
    for (size_t i = 0; i < in->leaves.len; i++)
        if (!in->leaves.items[i].fixed)
            verify_fill_random(&in->leaves.items[i].value, &in->rng,
                               all_positive || in->leaves.items[i].positive);
}

/* ---- corner values (note [corner values]) ---- */

static void add_corner(Corners *c, double v)
{
    for (int i = 0; i < c->n; i++)
        if (c->v[i] == v && signbit(c->v[i]) == signbit(v))
            return;
    if (c->n < VERIFY_MAX_CORNERS && isfinite(v))
        c->v[c->n++] = v;
}

/* A number the rule mentions, and the values either side of it. */
static void add_mentioned(Corners *c, double v)
{
    add_corner(c, v);
    add_corner(c, v - 0.1);
    add_corner(c, v + 0.1);
}

/* The numbers of canonical attribute text ("[0, 2]", "6", "\"NCHW\""). */
static void text_numbers(Corners *c, const char *text)
{
    for (const char *s = text; s && *s;) {
        if (*s == '"') {
            const char *end = strchr(s + 1, '"');
            s = end ? end + 1 : s + strlen(s);
            continue;
        }
        char *end;
        double v = strtod(s, &end);
        if (end > s && (isdigit((unsigned char)*s) || *s == '-' || *s == '.')) {
            add_mentioned(c, v);
            s = end;
        } else
            s++;
    }
}

static void expr_numbers(Corners *c, const graft_expr *e)
{
    if (!e)
        return;
    if (e->kind == GRAFT_EXPR_NUM)
        add_mentioned(c, e->f);
    for (int i = 0; i < e->nkids; i++)
        expr_numbers(c, e->kids[i]);
    for (int i = 0; i < e->nattrs; i++)
        if (e->attrs[i].src == GRAFT_ASRC_EXPR)
            expr_numbers(c, e->attrs[i].value);
}

static void pattern_numbers(Corners *c, const graft_rule_set *rs, const graft_pat *p)
{
    const graft_item *item = &rs->items[p->item];
    for (int i = 0; i < item->npreds; i++) {
        const graft_pred *pp = &rs->preds[item->preds[i]];
        if (pp->kind == GRAFT_PRED_VALUE)
            add_mentioned(c, pp->f);
        else if (pp->kind == GRAFT_PRED_ATTR)
            text_numbers(c, pp->key);
    }
    for (int i = 0; i < p->nkids; i++)
        pattern_numbers(c, rs, p->kids[i]);
}

void verify_corners(const graft_rule_set *rs, const graft_rule *rule, Corners *out)
{
    static const double generic[] = {0, -0.0, 1, -1, 0.5, -0.5, 1e3, -1e3, 1e-6, -1e-6};
    out->n = 0;
    pattern_numbers(out, rs, rule->pattern);
    expr_numbers(out, rule->guard);
    expr_numbers(out, rule->action);
    for (size_t i = 0; i < ARRAY_LEN(generic); i++)
        add_corner(out, generic[i]);
}

void verify_draw_corners(Instance *in, const Corners *c, int k)
{
    for (size_t j = 0; j < in->leaves.len; j++) {
        VerifyLeaf *l = &in->leaves.items[j];
        if (l->fixed)
            continue;
        for (size_t i = 0; i < l->value.size; i++) {
            double v = c->v[((int)(i % (size_t)c->n) + (int)j + k) % c->n];
            if (strcmp(l->value.dtype, "bool") == 0)
                v = v != 0;
            l->value.data[i] = eval_round(l->positive ? fabs(v) : v, l->value.dtype);
        }
    }
}

/* ---- attribute values from canonical text ---- */

static const graft_attr_value *parse_attr(graft_graph *g, const char **s)
{
    while (**s == ' ')
        (*s)++;
    graft_attr_value *v;
    if (**s == '[') {
        const graft_attr_value *items[64];
        int n = 0;
        (*s)++;
        while (**s && **s != ']') {
            const graft_attr_value *item = parse_attr(g, s);
            if (n < 64)
                items[n++] = item;
            while (**s == ' ' || **s == ',')
                (*s)++;
        }
        if (**s == ']')
            (*s)++;
        v = graph_new_attr_value(g, GRAFT_ATTR_LIST);
        const graft_attr_value **copy = arena_array(graph_arena(g), (size_t)n + 1, sizeof *copy);
        memcpy(copy, items, (size_t)n * sizeof *copy);
        v->items = copy;
        v->nitems = n;
        return v;
    }
    if (**s == '"') {
        const char *end = strchr(*s + 1, '"');
        size_t len = end ? (size_t)(end - *s - 1) : strlen(*s + 1);
        v = graph_new_attr_value(g, GRAFT_ATTR_STRING);
        v->s = graph_intern_n(g, *s + 1, len);
        *s += len + (end ? 2 : 1);
        return v;
    }
    if (strncmp(*s, "None", 4) == 0) {
        *s += 4;
        return graph_new_attr_value(g, GRAFT_ATTR_NULL);
    }
    char *end;
    double f = strtod(*s, &end);
    bool is_int = end > *s && !memchr(*s, '.', (size_t)(end - *s)) &&
                  !memchr(*s, 'e', (size_t)(end - *s)) && fabs(f) < 9e15;
    v = graph_new_attr_value(g, is_int ? GRAFT_ATTR_INT : GRAFT_ATTR_FLOAT);
    v->i = (int64_t)f;
    v->f = f;
    *s = end > *s ? end : *s + strlen(*s);
    return v;
}

const graft_attr_value *verify_attr_from_text(graft_graph *g, const char *text)
{
    return parse_attr(g, &text);
}

/* ---- candidate attribute values ---- */

/* Dims as list text, "[2, 3]". */
static void dims_text(const int64_t *dims, int rank, StrBuf *out)
{
    strbuf_putc(out, '[');
    for (int i = 0; i < rank; i++)
        strbuf_printf(out, i ? ", %lld" : "%lld", (long long)dims[i]);
    strbuf_putc(out, ']');
}

/* ONNX's window attributes for s spatial dims (the data's rank - 2):
 * strides and dilations of 1 (or 2), pads of 0 (or 1), the kernel 3 x 3,
 * as verify_onnx.c makes a Conv's weights; false past the last. */
static bool window_candidate(const char *name, int s, int k, int64_t *d)
{
    int64_t v;
    if (strcmp(name, "strides") == 0 || strcmp(name, "dilations") == 0)
        v = k == 0 ? 1 : 2;
    else if (strcmp(name, "pads") == 0)
        v = k == 0 ? 0 : 1;
    else if (strcmp(name, "kernel_shape") == 0 && k == 0)
        v = 3;
    else
        return false;
    if (k > 1 || 2 * s > EVAL_MAX_RANK + 1)
        return false;
    for (int i = 0; i < (strcmp(name, "pads") == 0 ? 2 * s : s); i++)
        d[i] = v;
    return true;
}

/* Candidates by attribute name: dtypes (ONNX's Cast's to by number),
 * axes, the first operand's shape (as is, reversed, with a leading 1) for
 * newshape and shape, permutations of its axes for transpose (and ONNX's
 * Transpose's perm), ONNX's window attributes of a Conv or pool of such
 * data (window_candidate). */
bool verify_attr_candidate(const char *name, const Tensor *t, int k, StrBuf *out)
{
    static const char *const dtypes[] = {"\"float32\"", "\"float16\"", "\"int32\""};
    static const char *const onnx_dtypes[] = {"1", "10", "6"}; /* ONNX's Cast to: the same */
    static const char *const axes[] = {"1", "-1", "0"};
    static const char *const newaxes[] = {"1", "0", "2"};
    int rank = t ? t->rank : 0;
    int64_t d[EVAL_MAX_RANK + 1] = {0};
    if (strcmp(name, "dtype") == 0) {
        if (k >= 3)
            return false;
        strbuf_puts(out, dtypes[k]);
    } else if (strcmp(name, "to") == 0 && k < 3) {
        strbuf_puts(out, onnx_dtypes[k]);
    } else if (strcmp(name, "axis") == 0 && k < 3) {
        strbuf_puts(out, axes[k]);
    } else if (strcmp(name, "num_newaxis") == 0 && k < 3) {
        strbuf_puts(out, newaxes[k]);
    } else if ((strcmp(name, "newshape") == 0 || strcmp(name, "shape") == 0) && t && k < 3) {
        for (int i = 0; i < rank; i++) /* as is, reversed, with a leading 1 */
            d[i + (k == 2)] = k == 1 ? t->dims[rank - 1 - i] : t->dims[i];
        d[0] = k == 2 ? 1 : d[0];
        dims_text(d, rank + (k == 2), out);
    } else if ((strcmp(name, "axes") == 0 || strcmp(name, "perm") == 0) && t && rank > 0 &&
               k < 4) {
        for (int i = 0; i < rank; i++) /* reversed, rotated left, right, identity */
            d[i] = k == 0   ? rank - 1 - i
                   : k == 1 ? (i + 1) % rank
                   : k == 2 ? (i + rank - 1) % rank
                            : i;
        dims_text(d, rank, out);
    } else if (rank >= 3 && window_candidate(name, rank - 2, k, d)) {
        dims_text(d, strcmp(name, "pads") == 0 ? 2 * (rank - 2) : rank - 2, out);
    } else
        return false;
    return true;
}
