/* verify_choose.c - what the instance search chooses from: the chooser
 * (note [instance search] in verify_impl.h), random values, candidate
 * attribute values, written as canonical text and parsed into a graph's
 * attribute values, and the fields of the tuples an action splices. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
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

/* ---- fields of spliced captures ---- */

/* note [spliced captures]: a variadic tuple pattern bound to a variable,
 * (x, rest...) or t@(...), matches its fields and any more, and an action
 * may splice it into a new call, add(x, rest...), whose operand count then
 * follows the match (note [spliced operand counts] in
 * src/compiler/check_action.c).  Built with the pattern's fields alone,
 * the instance gave add one operand, the rewrite refused the match, and a
 * right rule was left unchecked.  So each such tuple gets as many more
 * fields as make every splice of the action find its fields, every
 * spliced call get a count its op takes and every field the pattern or
 * the action reads (t[2]) be there: the fewest in all, ties going to
 * fewer in the earlier tuple, at most VERIFY_MAX_MORE more in each of the
 * first VERIFY_MAX_CAPTURES tuples.  The counts are the ones the lowering
 * keeps in the call, asked through the rewrite's own questions
 * (rewrite_splice_fields, rewrite_count_taken in rewrite_build_*.c), so
 * verify and run cannot disagree on them.  When no count fits (graft
 * check refuses most such rules) none is added and the rule stays
 * unchecked.  A field added is a parameter shaped as the field before it
 * (verify_extra_field), named "rest..." in the instance's text.  Only the
 * fewest are checked: where more fit too (a splice into a new tuple),
 * a rule wrong only for more fields is not refuted.  The prover leaves
 * every tuple pattern to this check (its fragment has no tuples). */
enum { VERIFY_MAX_CAPTURES = 4, VERIFY_MAX_MORE = 8 };

/* The tuples of an instance: by slot, the fields of the tuple pattern
 * that binds it (-1: none); the variadic ones, in pattern order. */
typedef struct SplicedTuples {
    int *fields;
    int ncaptures;
    int slot[VERIFY_MAX_CAPTURES];  /* each variadic one's variable */
    int alias[VERIFY_MAX_CAPTURES]; /* t of t@(x, rest...), else -1 */
    int least[VERIFY_MAX_CAPTURES]; /* its pattern's fields */
    int reads[VERIFY_MAX_CAPTURES]; /* the fields the pattern reads of it,
                                       t[2] of (t@(...))[0] wanting three */
} SplicedTuples;

/* Records the tuple patterns under p, the first binding each variable as
 * verify_build's binders are (recursion is bounded by the rule-depth
 * limit, as every walk of a pattern). */
static void find_tuples(const graft_rule_set *rs, const graft_pat *p, SplicedTuples *t)
{
    if (p->kind == GRAFT_PAT_TUPLE && p->slot >= 0 && t->fields[p->slot] < 0) {
        t->fields[p->slot] = p->nkids;
        if (rs->items[p->item].variadic && t->ncaptures < VERIFY_MAX_CAPTURES) {
            t->slot[t->ncaptures] = p->slot;
            t->alias[t->ncaptures] = -1;
            t->least[t->ncaptures] = t->reads[t->ncaptures] = p->nkids;
            t->ncaptures++;
        }
    }
    for (int i = 0; i < p->nkids; i++)
        find_tuples(rs, p->kids[i], t);
    /* t@(x, rest...): one alternative, the tuple bound to rest, bound to t */
    for (int j = 0; j < t->ncaptures && p->kind == GRAFT_PAT_ALT && p->nkids == 1; j++)
        if (p->kids[0]->slot == t->slot[j] && p->slot >= 0 && t->alias[j] < 0)
            t->alias[j] = p->slot;
}

/* Whether slot is capture j's variable (or its other name). */
static bool names_capture(const SplicedTuples *t, int j, int slot)
{
    return slot >= 0 && (slot == t->slot[j] || slot == t->alias[j]);
}

/* Raises the fields each capture must have to those the elements of it
 * under p read, after find_tuples. */
static void find_reads(const graft_rule_set *rs, const graft_pat *p, SplicedTuples *t)
{
    int index = p->kind == GRAFT_PAT_GETITEM ? rs->items[p->item].index : -1;
    for (int j = 0; j < t->ncaptures && index >= 0; j++)
        if (names_capture(t, j, p->kids[0]->slot) && t->reads[j] <= index)
            t->reads[j] = index + 1;
    for (int i = 0; i < p->nkids; i++)
        find_reads(rs, p->kids[i], t);
}

/* Whether t[i] of action x reads a field past those of the tuple bound
 * to t when it has fields[t]. */
static bool reads_past(const graft_expr *x, const int *fields)
{
    if (x->kind != GRAFT_EXPR_GETITEM || x->nkids != 1 || x->kids[0]->kind != GRAFT_EXPR_SLOT)
        return false;
    int n = fields[x->kids[0]->slot];
    return n >= 0 && x->i >= n;
}

/* Whether every splice of action x finds its fields when the tuple bound
 * to each slot has fields[slot], every call with a splice gets an operand
 * count its op takes, and every field read is there. */
static bool action_fits(const graft_expr *x, const int *fields)
{
    if (reads_past(x, fields))
        return false;
    int count = 0;
    bool spliced = false;
    for (int i = 0; i < x->nkids; i++) {
        const graft_expr *k = x->kids[i];
        bool splice = k->kind == GRAFT_EXPR_SPLICE;
        int n = splice ? rewrite_splice_fields(k, fields[k->slot]) : 1;
        if (n < 0 || (!splice && !action_fits(k, fields)))
            return false;
        count += n;
        spliced = spliced || splice;
    }
    return !spliced || x->kind != GRAFT_EXPR_CALL || rewrite_count_taken(x, count);
}

/* The next combination of more[0..n), the last changing fastest; false
 * after the last. */
static bool next_more(int *more, int n)
{
    for (int j = n - 1; j >= 0; j--) {
        if (++more[j] <= VERIFY_MAX_MORE)
            return true;
        more[j] = 0;
    }
    return false;
}

/* The fewest more fields of t's captures that fit rule's action into
 * best; false when none do. */
static bool fewest_fitting(const graft_rule *rule, SplicedTuples *t, int *best)
{
    int more[VERIFY_MAX_CAPTURES] = {0}, fewest = -1;
    do {
        int sum = 0;
        bool read = true; /* every field the pattern reads is there */
        for (int j = 0; j < t->ncaptures; j++) {
            t->fields[t->slot[j]] = t->least[j] + more[j];
            if (t->alias[j] >= 0)
                t->fields[t->alias[j]] = t->fields[t->slot[j]];
            sum += more[j];
            read = read && t->least[j] + more[j] >= t->reads[j];
        }
        if ((fewest < 0 || sum < fewest) && read && action_fits(rule->action, t->fields)) {
            fewest = sum;
            memcpy(best, more, sizeof more);
        }
    } while (fewest != 0 && next_more(more, t->ncaptures));
    return fewest >= 0;
}

int *verify_spliced_fields(const graft_rule_set *rs, const graft_rule *rule)
{
    SplicedTuples t = {.fields = xmalloc(((size_t)rule->nslots + 1) * sizeof *t.fields)};
    for (int s = 0; s < rule->nslots; s++)
        t.fields[s] = -1;
    int nroots = rule->nroots ? rule->nroots : 1;
    for (int j = 0; j < nroots; j++)
        find_tuples(rs, rule->nroots ? rule->roots[j].pattern : rule->pattern, &t);
    for (int j = 0; j < nroots; j++)
        find_reads(rs, rule->nroots ? rule->roots[j].pattern : rule->pattern, &t);
    int best[VERIFY_MAX_CAPTURES] = {0};
    int *more = NULL;
    if (t.ncaptures > 0 && rule->action && fewest_fitting(rule, &t, best)) {
        more = xcalloc((size_t)rule->nslots + 1, sizeof *more);
        for (int j = 0; j < t.ncaptures; j++)
            more[t.slot[j]] = best[j];
    }
    free(t.fields);
    return more;
}
