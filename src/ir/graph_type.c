/* graph_type.c - types: building, parsing from text, canonical text. */
#include "graph.h"

#include <ctype.h>
#include <string.h>

#include "dim_symbol.h"
#include "graph_impl.h"
#include "util.h"

/* Tuple types nest at most this deep in parsed text (a bound, so the
 * recursive parser below cannot exhaust the stack). */
enum { TYPE_MAX_DEPTH = 64 };

/* Dims are written digit by digit into text measured first: types are
 * made for every annotated node of a model and every call a relation
 * types, and printf, then a StrBuf's appends (1,700 instructions a
 * type on the corpus), were most of their cost.  Dims are never
 * negative except DIM_ANY and symbols (note [symbolic dims]). */
static size_t dim_len(const graft_graph *g, int64_t dim)
{
    if (dim < 0) {
        const char *name = dim < DIM_ANY ? graph_dim_name(g, dim) : NULL;
        return name ? strlen(name) : 1;
    }
    size_t n = 1;
    for (uint64_t v = (uint64_t)dim; v >= 10; v /= 10)
        n++;
    return n;
}

/* Writes dim's dim_len bytes at p; returns their end. */
static char *put_dim(char *p, const graft_graph *g, int64_t dim, size_t len)
{
    if (dim < 0) {
        const char *name = dim < DIM_ANY ? graph_dim_name(g, dim) : NULL;
        memcpy(p, name ? name : "?", len);
        return p + len;
    }
    uint64_t v = (uint64_t)dim;
    for (char *d = p + len; d > p; v /= 10)
        *--d = (char)('0' + v % 10);
    return p + len;
}

/* "Tensor[(d0, d1, ...), dtype]" in g's arena. */
static const char *tensor_text(graft_graph *g, const char *dtype, const int64_t *dims, int rank)
{
    static const char open[] = "Tensor[(", mid[] = "), ";
    size_t dtype_len = strlen(dtype), len = sizeof open - 1 + sizeof mid - 1 + dtype_len + 1;
    for (int i = 0; i < rank; i++)
        len += dim_len(g, dims[i]) + (i ? 2 : 0);
    char *text = arena_alloc_raw(g->arena, len + 1), *p = text;
    memcpy(p, open, sizeof open - 1);
    p += sizeof open - 1;
    for (int i = 0; i < rank; i++) {
        if (i) {
            memcpy(p, ", ", 2);
            p += 2;
        }
        p = put_dim(p, g, dims[i], dim_len(g, dims[i]));
    }
    memcpy(p, mid, sizeof mid - 1);
    p += sizeof mid - 1;
    memcpy(p, dtype, dtype_len);
    p += dtype_len;
    *p++ = ']';
    *p = '\0';
    return text;
}

/* note [scalar types]: every scalar constant's type is its dtype's
 * rank-0 tensor type, so those are made once per dtype and shared (types
 * are immutable). */
static const graft_type *scalar_type(graft_graph *g, const char *dtype)
{
    const graft_type *known = keymap_get_ptr(&g->scalar_types, dtype);
    if (known)
        return known;
    graft_type *t = arena_alloc(g->arena, sizeof(graft_type));
    t->kind = TYPE_TENSOR;
    t->dtype = dtype;
    t->dims = arena_alloc(g->arena, 0);
    t->text = dtype;
    keymap_put_ptr(&g->scalar_types, dtype, t);
    return t;
}

/* note [canonical tensor types]: a tensor type is its dtype and dims,
 * and a model repeats a few shapes over all its nodes: every annotation
 * of one text and every call a relation types (src/relay/type_rel.c's
 * rel_make) made a type and its text again (fold_bn on mobilenet_v2:
 * 188 types of 1,700 instructions each, for a few dozen distinct
 * shapes).  So the graph keeps one type per dtype and dims, found by a
 * hash of the dtype's address and the dims, and hands it out again
 * (types are never changed once made, and nodes share them: graph.h).
 * Equal tensor types are then one pointer, which the memos of ONNX's
 * inference and of the rewrite's action types key by (note [inference
 * memo] in src/onnx/onnx_types_memo.c, note [action types] in
 * src/runtime/rewrite_types.c).  A key another shape holds (two hashes
 * equal, or equal but for the bit the 1 below sets) is followed by the
 * next key of a fixed sequence (next_key) until the shape's own or a
 * free one: so a second shape of a key taken is one type too (before
 * session 28 it was made anew each time, a type per value, which the
 * memos could only miss). */
static uint64_t tensor_key(const char *dtype, const int64_t *dims, int rank)
{
    /* hash_word's multiply, not hash_mix: dims one apart (4 and 5) went
       to keys one bit apart, which the 1 below made one key */
    uint64_t h = hash_word((uint64_t)(uintptr_t)dtype, (uint64_t)rank);
    for (int i = 0; i < rank; i++)
        h = hash_word(h, (uint64_t)dims[i]);
    return h | 1; /* a KeyMap key is never 0 */
}

/* The key after key in the sequence a shape's types are looked for
 * along, when another shape holds it. */
static uint64_t next_key(uint64_t key)
{
    return hash_word(key, 1) | 1;
}

static bool tensor_is(const graft_type *t, const char *dtype, const int64_t *dims, int rank)
{
    return t->dtype == dtype && t->rank == rank &&
           memcmp(t->dims, dims, (size_t)rank * sizeof *dims) == 0;
}

/* A copy of size bytes at data in g's arena, written once (not zeroed
 * first, as arena_dup's). */
static void *arena_copy(graft_graph *g, const void *data, size_t size)
{
    void *copy = arena_alloc_raw(g->arena, size);
    if (size)
        memcpy(copy, data, size);
    return copy;
}

static graft_type *tensor_made(graft_graph *g, const char *dtype, const int64_t *dims, int rank)
{
    graft_type *t = arena_alloc_raw(g->arena, sizeof(graft_type));
    *t = (graft_type){.kind = TYPE_TENSOR, .rank = rank, .dtype = dtype,
                      .dims = arena_copy(g, dims, (size_t)rank * sizeof(int64_t)),
                      .text = tensor_text(g, dtype, dims, rank)};
    return t;
}

/* Canonical text as TVM prints it: a rank-0 tensor is its dtype. */
const graft_type *graph_type_tensor(graft_graph *g, const char *dtype, const int64_t *dims,
                              int rank)
{
    dtype = graph_intern(g, dtype);
    if (rank == 0)
        return scalar_type(g, dtype);
    for (uint64_t key = tensor_key(dtype, dims, rank);; key = next_key(key)) {
        int64_t *entry = keymap_put(&g->tensor_types, key, 0);
        const graft_type *known = (const graft_type *)(intptr_t)*entry;
        if (!known) {
            graft_type *t = tensor_made(g, dtype, dims, rank);
            *entry = (int64_t)(intptr_t)t;
            return t;
        }
        if (tensor_is(known, dtype, dims, rank))
            return known;
    }
}

/* A tensor type is remade (dims and dtype are all it is); any other is
 * kept as its text, which is how a tensor attribute's type reads. */
const graft_type *graph_type_copy(graft_graph *g, const graft_type *t)
{
    if (t->kind == TYPE_TENSOR)
        return graph_type_tensor(g, t->dtype, t->dims, t->rank);
    return graph_type_other(g, t->text, strlen(t->text));
}

/* Fields whose texts' lengths tuple_text keeps on the stack, measured
 * once; a longer tuple's are measured again as they are copied. */
enum { FEW_FIELDS = 64 };

/* "(T1, T2)", "(T,)" or "()", measured first (a concatenate's
 * operands: densenet121's tuples hold dozens of fields). */
static const char *tuple_text(graft_graph *g, const graft_type *const *fields, int nfields)
{
    size_t lens[FEW_FIELDS], len = nfields == 1 ? 3 : 2;
    for (int i = 0; i < nfields; i++) {
        size_t n = strlen(fields[i]->text);
        if (i < FEW_FIELDS)
            lens[i] = n;
        len += n + (i ? 2 : 0);
    }
    char *text = arena_alloc_raw(g->arena, len + 1), *p = text;
    *p++ = '(';
    for (int i = 0; i < nfields; i++) {
        if (i) {
            memcpy(p, ", ", 2);
            p += 2;
        }
        size_t n = i < FEW_FIELDS ? lens[i] : strlen(fields[i]->text);
        memcpy(p, fields[i]->text, n);
        p += n;
    }
    if (nfields == 1)
        *p++ = ',';
    *p++ = ')';
    *p = '\0';
    return text;
}

const graft_type *graph_type_tuple(graft_graph *g, const graft_type *const *fields, int nfields)
{
    graft_type *t = arena_alloc_raw(g->arena, sizeof(graft_type));
    *t = (graft_type){.kind = TYPE_TUPLE, .nfields = nfields,
                      .fields = arena_copy(g, fields, (size_t)nfields * sizeof(graft_type *)),
                      .text = tuple_text(g, fields, nfields)};
    return t;
}

/* TYPE_OTHER text keeps the model's spelling, but on one line: a type
 * error quotes it, and a line break there cut the diagnostic in two (an
 * unparsed "ty=" comment spanning lines; found by fuzz_relay). */
const graft_type *graph_type_other(graft_graph *g, const char *text, size_t len)
{
    graft_type *t = arena_alloc(g->arena, sizeof(graft_type));
    t->kind = TYPE_OTHER;
    char *one_line = arena_strndup(g->arena, text, len);
    for (char *c = one_line; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    t->text = one_line;
    return t;
}

/* A cursor over type text. */
typedef struct TypeText {
    graft_graph *g;        /* where types are built */
    const char *p;   /* next byte */
    const char *end; /* end of text */
} TypeText;

static bool eat(TypeText *tt, const char *s)
{
    size_t n = strlen(s);
    if ((size_t)(tt->end - tt->p) < n || memcmp(tt->p, s, n) != 0)
        return false;
    tt->p += n;
    return true;
}

static size_t ident_len(const TypeText *tt)
{
    const char *q = tt->p;
    while (q < tt->end && (isalnum((unsigned char)*q) || *q == '_'))
        q++;
    return (size_t)(q - tt->p);
}

/* dims -> '(' [dim {", " dim}] ')' ; dim -> INT | '?' */
static bool parse_dims(TypeText *tt, int64_t **dims, int *rank, size_t *cap)
{
    if (!eat(tt, "("))
        return false;
    while (!eat(tt, ")")) {
        if (*rank && !eat(tt, ", ") && !eat(tt, ","))
            return false;
        int64_t d = DIM_ANY;
        if (!eat(tt, "?")) {
            if (tt->p == tt->end || !isdigit((unsigned char)*tt->p))
                return false;
            d = 0;
            while (tt->p < tt->end && isdigit((unsigned char)*tt->p)) {
                int digit = *tt->p++ - '0';
                if (d > (INT64_MAX - digit) / 10)
                    return false; /* a dimension beyond int64: no type */
                d = d * 10 + digit;
            }
        }
        *dims = xgrow_items(*dims, cap, (size_t)*rank + 1, sizeof(int64_t));
        (*dims)[(*rank)++] = d;
    }
    return true;
}

/* tensor -> "Tensor[" dims ", " DTYPE ']' (after "Tensor[") */
static const graft_type *parse_tensor(TypeText *tt)
{
    int64_t *dims = NULL;
    size_t cap = 0;
    int rank = 0;
    const graft_type *t = NULL;
    if (parse_dims(tt, &dims, &rank, &cap) && eat(tt, ", ")) {
        size_t n = ident_len(tt);
        char *dtype = xstrndup(tt->p, n);
        tt->p += n;
        if (n && eat(tt, "]"))
            t = graph_type_tensor(tt->g, dtype, dims, rank);
        free(dtype);
    }
    free(dims);
    return t;
}

static const graft_type *parse_type(TypeText *tt, int depth);

/* tuple -> '(' [type {", " type}] [','] ')' (after '(') */
static const graft_type *parse_tuple(TypeText *tt, int depth)
{
    VEC(const graft_type *) fields = {0};
    const graft_type *t = NULL;
    for (;;) {
        int n = (int)fields.len;
        if (eat(tt, ")")) {
            t = graph_type_tuple(tt->g, fields.items, n);
            break;
        }
        if (n && !eat(tt, ", ") && !eat(tt, ","))
            break;
        if (n && eat(tt, ")")) {
            t = graph_type_tuple(tt->g, fields.items, n);
            break;
        }
        const graft_type *f = parse_type(tt, depth + 1);
        if (!f)
            break;
        vec_push(&fields, f);
    }
    vec_free(&fields);
    return t;
}

/* type -> tensor | tuple | DTYPE */
static const graft_type *parse_type(TypeText *tt, int depth)
{
    if (depth > TYPE_MAX_DEPTH)
        return NULL;
    if (eat(tt, "Tensor["))
        return parse_tensor(tt);
    if (eat(tt, "("))
        return parse_tuple(tt, depth);
    size_t n = ident_len(tt);
    if (!n || (tt->p + n < tt->end && strchr("[( ", tt->p[n])))
        return NULL;
    char *dtype = xstrndup(tt->p, n);
    tt->p += n;
    const graft_type *t = graph_type_tensor(tt->g, dtype, NULL, 0);
    free(dtype);
    return t;
}

/* The end of balanced text starting at p: stops before an unbalanced
 * closer, or a ',' at depth 0. */
static const char *balanced_end(const char *p, const char *end)
{
    int depth = 0;
    for (; p < end; p++) {
        if (*p == '(' || *p == '[' || *p == '{')
            depth++;
        else if (*p == ')' || *p == ']' || *p == '}') {
            if (depth-- == 0)
                break;
        } else if (*p == ',' && depth == 0)
            break;
    }
    return p;
}

/* A tensor, tuple or dtype; anything else balanced is TYPE_OTHER text. */
const graft_type *graph_parse_type(graft_graph *g, const char *text, size_t len,
                             size_t *consumed)
{
    TypeText tt = {g, text, text + len};
    const graft_type *t = parse_type(&tt, 0);
    if (!t) {
        tt.p = balanced_end(text, text + len);
        if (tt.p > text)
            t = graph_type_other(g, text, (size_t)(tt.p - text));
    }
    if (consumed)
        *consumed = (size_t)(tt.p - text);
    return t;
}

/* note [annotation types]: every binding of a real model carries a "ty="
 * annotation and most types repeat, so they are parsed once per distinct
 * text and shared (node types are never modified in place). */
const graft_type *graph_type_of_text(graft_graph *g, const char *text, size_t len)
{
    const char *key = graph_intern_n(g, text, len);
    const graft_type *known = keymap_get_ptr(&g->annotation_types, key);
    if (known)
        return known;
    size_t used = 0;
    const graft_type *t = graph_parse_type(g, text, len, &used);
    if (!t || used != len)
        t = graph_type_other(g, text, len);
    keymap_put_ptr(&g->annotation_types, key, t);
    return t;
}

/* The "ty=" part of "/ * ty=T span=S * /" runs to " span=" or " * /". */
const graft_type *graph_annotation_type(graft_graph *g, const char *annotation)
{
    const char *ty = annotation ? strstr(annotation, "ty=") : NULL;
    if (!ty)
        return NULL;
    ty += 3;
    const char *end = strstr(ty, " span=");
    const char *close = strstr(ty, " */");
    if (!end || (close && close < end))
        end = close;
    if (!end)
        end = ty + strlen(ty);
    return graph_type_of_text(g, ty, (size_t)(end - ty));
}

/* Structural equality; TYPE_OTHER compares text.  Recursion follows
 * tuple nesting, bounded for parsed types by TYPE_MAX_DEPTH. */
bool type_equal(const graft_type *a, const graft_type *b)
{
    if (a == b)
        return true;
    if (!a || !b || a->kind != b->kind)
        return false;
    if (a->kind == TYPE_OTHER)
        return strcmp(a->text, b->text) == 0;
    if (a->kind == TYPE_TENSOR)
        return a->rank == b->rank && strcmp(a->dtype, b->dtype) == 0 &&
               memcmp(a->dims, b->dims, (size_t)a->rank * sizeof(int64_t)) == 0;
    if (a->nfields != b->nfields)
        return false;
    for (int i = 0; i < a->nfields; i++)
        if (!type_equal(a->fields[i], b->fields[i]))
            return false;
    return true;
}
