/* check_onnx_decode_fast.c - the decoder's fast paths for a
 * ValueInfoProto of the common shape and a NodeProto of strings (note
 * [common value info], note [common node] in
 * src/onnx/onnx_decode_fast.h): what they accept they store as protobuf-c's
 * unpack does, and those bytes are the ones protobuf-c packs again
 * (canonical); every other form they leave to the general path (NULL), and
 * the decoder with them reads a graph as protobuf-c does, its span noted,
 * up to the depth limit and not past it. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "keymap.h"
#include "onnx.pb-c.h"
#include "onnx_decode.h"
#include "onnx_decode_fast.h"
#include "onnx_span.h"
#include "check_main.h"

/* float[2, 16] x: the seed's graph input (bench/onnx_e2e.sh). */
static const uint8_t seed_x[] = {0x0a, 0x02, 'x', '0', 0x12, 0x0e, 0x0a, 0x0c, 0x08, 0x01,
                                 0x12, 0x08, 0x0a, 0x02, 0x08, 0x02, 0x0a, 0x02, 0x08, 0x10};

/* Asserts that protobuf-c unpacks data as got holds it and packs it back
 * to data: the fast path's struct is the general path's, and canonical. */
static void assert_as_protobuf_c(const ProtobufCMessage *got, const uint8_t *data, size_t len)
{
    ProtobufCMessage *want = protobuf_c_message_unpack(got->descriptor, NULL, len, data);
    ck_assert_ptr_nonnull(want);
    ck_assert_uint_eq(protobuf_c_message_get_packed_size(got), len);
    ck_assert_uint_eq(protobuf_c_message_get_packed_size(want), len);
    uint8_t *a = malloc(len + 1), *b = malloc(len + 1);
    protobuf_c_message_pack(got, a);
    protobuf_c_message_pack(want, b);
    ck_assert(memcmp(a, data, len) == 0);
    ck_assert(memcmp(b, data, len) == 0);
    free(a);
    free(b);
    protobuf_c_message_free_unpacked(want, NULL);
}

START_TEST(test_seed_input)
{
    Arena *arena = arena_new();
    const Onnx__ValueInfoProto *vi = onnx_decode_common_value(seed_x, sizeof seed_x, arena);
    ck_assert_ptr_nonnull(vi);
    ck_assert_str_eq(vi->name, "x0");
    ck_assert_ptr_null(vi->doc_string);
    ck_assert_int_eq(vi->type->value_case, ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE);
    ck_assert_ptr_null(vi->type->denotation);
    const Onnx__TypeProto__Tensor *t = vi->type->tensor_type;
    ck_assert(t->has_elem_type);
    ck_assert_int_eq(t->elem_type, 1);
    ck_assert_uint_eq(t->shape->n_dim, 2);
    for (size_t i = 0; i < 2; i++) {
        const Onnx__TensorShapeProto__Dimension *d = t->shape->dim[i];
        ck_assert_int_eq(d->value_case, ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE);
        ck_assert_ptr_null(d->denotation);
        ck_assert_int_eq(d->dim_value, i == 0 ? 2 : 16);
    }
    assert_as_protobuf_c(&vi->base, seed_x, sizeof seed_x);
    arena_free(arena);
}
END_TEST

/* Other common forms: a parameter dim, a dim of several varint bytes,
 * a scalar (a shape of no dims), no shape, element type 0, empty name. */
START_TEST(test_other_common_forms)
{
    static const struct {
        const char *bytes;
        size_t len;
        size_t rank;
    } forms[] = {
        {"\x0a\x01y\x12\x0b\x0a\x09\x08\x07\x12\x05\x0a\x03\x12\x01N", 16, 1},
        {"\x0a\x01y\x12\x0c\x0a\x0a\x08\x01\x12\x06\x0a\x04\x08\xac\x82\x01", 17, 1},
        {"\x0a\x01s\x12\x06\x0a\x04\x08\x01\x12\x00", 11, 0},
        {"\x0a\x01u\x12\x04\x0a\x02\x08\x00", 9, 0},
        {"\x0a\x00\x12\x06\x0a\x04\x08\x0b\x12\x00", 10, 0},
    };
    Arena *arena = arena_new();
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        const uint8_t *data = (const uint8_t *)forms[i].bytes;
        const Onnx__ValueInfoProto *vi = onnx_decode_common_value(data, forms[i].len, arena);
        ck_assert_msg(vi != NULL, "form %zu", i);
        const Onnx__TensorShapeProto *shape = vi->type->tensor_type->shape;
        ck_assert_uint_eq(shape ? shape->n_dim : 0, forms[i].rank);
        assert_as_protobuf_c(&vi->base, data, forms[i].len);
    }
    const Onnx__ValueInfoProto *vi = onnx_decode_common_value(
        (const uint8_t *)forms[0].bytes, forms[0].len, arena);
    ck_assert_str_eq(vi->type->tensor_type->shape->dim[0]->dim_param, "N");
    vi = onnx_decode_common_value((const uint8_t *)forms[1].bytes, forms[1].len, arena);
    ck_assert_int_eq(vi->type->tensor_type->shape->dim[0]->dim_value, 16684);
    ck_assert_ptr_null(onnx_decode_common_value((const uint8_t *)forms[3].bytes, 9, arena)
                           ->type->tensor_type->shape);
    arena_free(arena);
}
END_TEST

/* Forms of another shape, canonical or not, good or not: NULL. */
START_TEST(test_other_shapes_left)
{
    static const struct {
        const char *bytes;
        size_t len;
    } others[] = {
        {"\x0a\x01x\x12\x04\x0a\x02\x08\x01\x1a\x01" "d", 12},   /* a doc_string */
        {"\x12\x04\x0a\x02\x08\x01\x0a\x01x", 9},                 /* type before name */
        {"\x12\x04\x0a\x02\x08\x01", 6},                          /* no name */
        {"\x0a\x01x", 3},                                         /* no type */
        {"\x0a\x02x\x00\x12\x04\x0a\x02\x08\x01", 10},            /* a NUL in the name */
        {"\x0a\x81\x00x\x12\x04\x0a\x02\x08\x01", 10},            /* a longer length */
        {"\x0a\x01x\x12\x06\x0a\x02\x08\x01\x32\x00", 11},        /* a denotation */
        {"\x0a\x01x\x12\x04\x12\x02\x0a\x00", 9},                 /* a sequence type */
        {"\x0a\x01x\x12\x05\x0a\x03\x08\x81\x00", 10},            /* a longer elem_type */
        {"\x0a\x01x\x12\x08\x0a\x06\x08\x01\x12\x02\x0a\x00", 13}, /* an empty dim */
        {"\x0a\x01x\x12\x09\x0a\x07\x08\x01\x12\x03\x0a\x01\x08", 14}, /* a dim cut short */
        {"\x0a\x01x\x12\x0b\x0a\x09\x08\x01\x12\x05\x0a\x03\x08\x82\x00", 16}, /* a longer dim */
        {"\x0a\x01x\x12\x0a\x0a\x08\x08\x01\x12\x04\x0a\x02\x1a\x00", 15}, /* a dim denotation */
        {"\x0a\x01x\x12\x06\x0a\x04\x12\x00\x08\x01", 11},        /* shape before elem_type */
        {"\x0a\x01x\x12\x05\x0a\x02\x08\x01", 9},                 /* a type past the end */
    };
    Arena *arena = arena_new();
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        ck_assert_msg(!onnx_decode_common_value((const uint8_t *)others[i].bytes,
                                                others[i].len, arena), "form %zu", i);
    for (size_t n = 0; n < sizeof seed_x; n++) /* every prefix */
        ck_assert_ptr_null(onnx_decode_common_value(seed_x, n, arena));
    arena_free(arena);
}
END_TEST

/* Sub(x0, mean0) -> t0: the seed's first node. */
static const uint8_t seed_sub[] = {0x0a, 0x02, 'x', '0', 0x0a, 0x05, 'm', 'e', 'a', 'n',
                                   '0', 0x12, 0x02, 't', '0', 0x22, 0x03, 'S', 'u', 'b'};

/* Every string field, an empty input left out in the middle, two outputs. */
static const uint8_t every_string[] = {
    0x0a, 0x00, 0x0a, 0x01, 'a', 0x12, 0x01, 'y', 0x12, 0x01, 'z', 0x1a, 0x01, 'n',
    0x22, 0x05, 'S', 'p', 'l', 'i', 't', 0x32, 0x01, 'd', 0x3a, 0x07, 'a', 'i', '.',
    'o', 'n', 'n', 'x'};

START_TEST(test_common_nodes)
{
    Arena *arena = arena_new();
    const OnnxStrings to = {.arena = arena};
    const Onnx__NodeProto *n = onnx_decode_common_node(seed_sub, sizeof seed_sub, &to);
    ck_assert_ptr_nonnull(n);
    ck_assert_uint_eq(n->n_input, 2);
    ck_assert_str_eq(n->input[0], "x0");
    ck_assert_str_eq(n->input[1], "mean0");
    ck_assert_uint_eq(n->n_output, 1);
    ck_assert_str_eq(n->output[0], "t0");
    ck_assert_str_eq(n->op_type, "Sub");
    ck_assert(!n->name && !n->domain && !n->doc_string && n->n_attribute == 0);
    assert_as_protobuf_c(&n->base, seed_sub, sizeof seed_sub);
    n = onnx_decode_common_node(every_string, sizeof every_string, &to);
    ck_assert_ptr_nonnull(n);
    ck_assert_uint_eq(n->n_input, 2);
    ck_assert_str_eq(n->input[0], "");
    ck_assert_uint_eq(n->n_output, 2);
    ck_assert_str_eq(n->output[1], "z");
    ck_assert_str_eq(n->name, "n");
    ck_assert_str_eq(n->op_type, "Split");
    ck_assert_str_eq(n->doc_string, "d");
    ck_assert_str_eq(n->domain, "ai.onnx");
    assert_as_protobuf_c(&n->base, every_string, sizeof every_string);
    n = onnx_decode_common_node(seed_sub, 0, &to); /* no field at all */
    ck_assert(n && n->n_input == 0 && n->n_output == 0 && !n->op_type && !n->input);
    arena_free(arena);
}
END_TEST

/* Nodes of another form: NULL. */
START_TEST(test_other_nodes_left)
{
    static const struct {
        const char *bytes;
        size_t len;
    } others[] = {
        {"\x22\x01X\x2a\x00", 5},         /* an attribute */
        {"\x1a\x01n\x1a\x01m", 6},        /* a name twice */
        {"\x22\x01X\x1a\x01n", 6},        /* op_type before name */
        {"\x12\x01y\x0a\x01x", 6},        /* an input after an output */
        {"\x22\x02X\x00", 4},             /* a NUL in op_type */
        {"\x22\x81\x00X", 4},             /* a longer length */
        {"\xa2\x06\x00", 3},              /* an unknown field, 100 */
        {"\x42\x00", 2},                  /* a field 8 */
        {"\x08\x01", 2},                  /* a varint */
        {"\x0a\x02x", 3},                 /* an input cut short */
    };
    Arena *arena = arena_new();
    const OnnxStrings to = {.arena = arena};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        ck_assert_msg(!onnx_decode_common_node((const uint8_t *)others[i].bytes,
                                               others[i].len, &to), "form %zu", i);
    arena_free(arena);
}
END_TEST

/* A GraphProto of the seed's first node and its input x, twice. */
static size_t seed_graph(uint8_t *out)
{
    size_t n = 0;
    out[n++] = 0x0a; /* node */
    out[n++] = (uint8_t)sizeof seed_sub;
    memcpy(out + n, seed_sub, sizeof seed_sub);
    n += sizeof seed_sub;
    for (int k = 0; k < 2; k++) {
        out[n++] = 0x5a; /* input */
        out[n++] = (uint8_t)sizeof seed_x;
        memcpy(out + n, seed_x, sizeof seed_x);
        n += sizeof seed_x;
    }
    return n;
}

/* Through onnx_decode: protobuf-c's graph, each node's and input's span
 * its bytes (an input's by index); six messages deep passes a depth limit of 6 (the fast path)
 * and not one of 5 (the general path, which refuses it). */
START_TEST(test_decoded_in_graph)
{
    uint8_t bytes[96];
    size_t len = seed_graph(bytes);
    Arena *arena = arena_new();
    KeyMap spans = {0};
    Onnx__GraphProto *g = arena_alloc(arena, sizeof *g);
    ck_assert(onnx_decode(&onnx__graph_proto__descriptor, bytes, len, 6, arena, &spans,
                          &g->base));
    ck_assert_uint_eq(g->n_node, 1);
    const OnnxSpan *span = onnx_span_of(&spans, &g->node[0]->base);
    ck_assert(span && span->data == bytes + 2 && span->len == sizeof seed_sub);
    assert_as_protobuf_c(&g->node[0]->base, seed_sub, sizeof seed_sub);
    ck_assert_uint_eq(g->n_input, 2);
    const OnnxSpan *inputs = onnx_list_spans_get(&spans, g->input); /* note [spans by index] */
    ck_assert_ptr_nonnull(inputs);
    for (size_t i = 0; i < 2; i++) {
        ck_assert_ptr_null(onnx_span_of(&spans, &g->input[i]->base));
        span = &inputs[i];
        ck_assert(span->data == bytes + 4 + sizeof seed_sub + i * (sizeof seed_x + 2));
        ck_assert_uint_eq(span->len, sizeof seed_x);
        assert_as_protobuf_c(&g->input[i]->base, seed_x, sizeof seed_x);
    }
    ck_assert(!onnx_decode(&onnx__graph_proto__descriptor, bytes, len, 5, arena, NULL,
                           &g->base));
    keymap_free(&spans);
    arena_free(arena);
}
END_TEST

/* float[k] y, a ValueInfoProto of 15 bytes, into out. */
static void rank1_value(uint8_t out[15], uint8_t k)
{
    const uint8_t bytes[15] = {0x0a, 0x01, 'y', 0x12, 0x0a, 0x0a, 0x08, 0x08,
                               0x01, 0x12, 0x04, 0x0a, 0x02, 0x08, k};
    memcpy(out, bytes, sizeof bytes);
}

/* note [shared value types]: a TypeProto of the bytes of one of the last
 * four read is that one's struct; another is read anew, and so is one
 * four others have pushed out; without a memo none is shared; in a graph,
 * its two inputs of one type share it. */
START_TEST(test_shared_types)
{
    Arena *arena = arena_new();
    const OnnxStrings to = {.arena = arena};
    OnnxTypeMemo memo = {0};
    uint8_t copy[sizeof seed_x], others[4][15];
    memcpy(copy, seed_x, sizeof seed_x);
    const Onnx__ValueInfoProto *a = onnx_decode_common_value_memo(seed_x, sizeof seed_x, &to,
                                                                  &memo);
    const Onnx__ValueInfoProto *b = onnx_decode_common_value_memo(copy, sizeof copy, &to, &memo);
    ck_assert(a && b && a != b && a->type == b->type);
    assert_as_protobuf_c(&b->base, seed_x, sizeof seed_x);
    for (uint8_t k = 0; k < 4; k++) {
        rank1_value(others[k], (uint8_t)(k + 1));
        const Onnx__ValueInfoProto *o = onnx_decode_common_value_memo(others[k], 15, &to,
                                                                      &memo);
        ck_assert(o && o->type != a->type);
        ck_assert_int_eq(o->type->tensor_type->shape->dim[0]->dim_value, k + 1);
        assert_as_protobuf_c(&o->base, others[k], 15);
    }
    const Onnx__ValueInfoProto *c = onnx_decode_common_value_memo(seed_x, sizeof seed_x, &to,
                                                                  &memo);
    ck_assert(c && c->type != a->type);
    assert_as_protobuf_c(&c->base, seed_x, sizeof seed_x);
    const Onnx__ValueInfoProto *d = onnx_decode_common_value(seed_x, sizeof seed_x, arena);
    const Onnx__ValueInfoProto *e = onnx_decode_common_value(seed_x, sizeof seed_x, arena);
    ck_assert(d && e && d->type != e->type);
    uint8_t bytes[96];
    size_t len = seed_graph(bytes);
    Onnx__GraphProto *g = arena_alloc(arena, sizeof *g);
    ck_assert(onnx_decode(&onnx__graph_proto__descriptor, bytes, len, 6, arena, NULL,
                          &g->base));
    ck_assert_uint_eq(g->n_input, 2);
    ck_assert_ptr_eq(g->input[0]->type, g->input[1]->type);
    arena_free(arena);
}
END_TEST

/* A GraphProto's bytes: two inputs x (a run of field 11, note [field
 * runs] in src/onnx/onnx_decode.c), the second's length prefix in two
 * bytes when long_prefix, its length one more than its bytes when
 * past_end; into out, its size. */
static size_t input_run(uint8_t *out, bool long_prefix, bool past_end)
{
    size_t n = 0;
    for (int k = 0; k < 2; k++) {
        out[n++] = 0x5a; /* input */
        out[n++] = (uint8_t)(sizeof seed_x + (k == 1 && past_end));
        if (k == 1 && long_prefix) {
            out[n - 1] |= 0x80;
            out[n++] = 0x00;
        }
        memcpy(out + n, seed_x, sizeof seed_x);
        n += sizeof seed_x;
    }
    return n;
}

/* An If node whose attribute b is the graph in graph[0..len), into out;
 * its size. */
static size_t if_node(uint8_t *out, const uint8_t *graph, size_t len)
{
    size_t n = 0;
    const uint8_t head[] = {0x22, 0x02, 'I', 'f', 0x2a, (uint8_t)(len + 8), 0x0a, 0x01, 'b',
                            0x32, (uint8_t)len};
    memcpy(out, head, sizeof head);
    n += sizeof head;
    memcpy(out + n, graph, len);
    n += len;
    out[n++] = 0xa0; /* type (20): GRAPH */
    out[n++] = 0x01;
    out[n++] = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
    return n;
}

/* note [field runs]: the elements of a run are read as any field is: a
 * run's length prefix not shortest leaves the node that holds its graph
 * without a span (not canonical), shortest with one; one past the end of
 * the graph is a fault; a run broken by another field and taken up again
 * counts each field's elements. */
START_TEST(test_field_runs)
{
    uint8_t graph[64], node[96];
    Arena *arena = arena_new();
    KeyMap spans = {0};
    for (int long_prefix = 0; long_prefix < 2; long_prefix++) {
        size_t len = if_node(node, graph, input_run(graph, long_prefix, false));
        Onnx__NodeProto *n = arena_alloc(arena, sizeof *n);
        ck_assert(onnx_decode(&onnx__node_proto__descriptor, node, len, 10, arena, &spans,
                              &n->base));
        const Onnx__GraphProto *g = n->attribute[0]->g;
        ck_assert_uint_eq(g->n_input, 2);
        ck_assert_str_eq(g->input[1]->name, "x0");
        ck_assert_int_eq(g->input[1]->type->tensor_type->shape->dim[1]->dim_value, 16);
        ck_assert_int_eq(onnx_span_of(&spans, &n->base) != NULL, !long_prefix);
    }
    size_t len = if_node(node, graph, input_run(graph, false, true));
    Onnx__NodeProto *n = arena_alloc(arena, sizeof *n);
    ck_assert(!onnx_decode(&onnx__node_proto__descriptor, node, len, 10, arena, NULL,
                           &n->base));
    uint8_t broken[96]; /* input, node, input */
    size_t at = input_run(broken, false, false) - sizeof seed_x - 2;
    memmove(broken + at + 2 + sizeof seed_sub, broken + at, sizeof seed_x + 2);
    broken[at] = 0x0a;
    broken[at + 1] = (uint8_t)sizeof seed_sub;
    memcpy(broken + at + 2, seed_sub, sizeof seed_sub);
    Onnx__GraphProto *g = arena_alloc(arena, sizeof *g);
    ck_assert(onnx_decode(&onnx__graph_proto__descriptor, broken,
                          at + 4 + sizeof seed_sub + sizeof seed_x, 6, arena, NULL, &g->base));
    ck_assert(g->n_input == 2 && g->n_node == 1);
    ck_assert_str_eq(g->input[1]->name, "x0");
    ck_assert_str_eq(g->node[0]->op_type, "Sub");
    keymap_free(&spans);
    arena_free(arena);
}
END_TEST

/* note [op name memo]: each node's op_type is the interned name of its
 * bytes, among more ops than the memo has slots (so some share one), each
 * met twice; without an interner, a copy. */
START_TEST(test_op_names)
{
    enum { OPS = 3 * ONNX_OP_MEMO };
    uint8_t bytes[2 * OPS * 8];
    char want[OPS][8];
    size_t len = 0;
    for (int k = 0; k < 2 * OPS; k++) {
        int op = k % OPS;
        snprintf(want[op], sizeof want[op], "Op%d", op);
        uint8_t n = (uint8_t)strlen(want[op]);
        const uint8_t head[] = {0x0a, (uint8_t)(n + 2), 0x22, n}; /* node: op_type */
        memcpy(bytes + len, head, sizeof head);
        memcpy(bytes + len + sizeof head, want[op], n);
        len += sizeof head + n;
    }
    Arena *arena = arena_new();
    Interner *names = interner_new(arena);
    Onnx__GraphProto *g = arena_alloc(arena, sizeof *g);
    ck_assert(onnx_decode_named(&onnx__graph_proto__descriptor, bytes, len, 6, arena, NULL,
                                names, &g->base));
    ck_assert_uint_eq(g->n_node, 2 * OPS);
    for (size_t k = 0; k < g->n_node; k++)
        ck_assert_ptr_eq(g->node[k]->op_type, interner_cstr(names, want[k % OPS]));
    ck_assert(onnx_decode(&onnx__graph_proto__descriptor, bytes, len, 6, arena, NULL,
                          &g->base));
    ck_assert_str_eq(g->node[OPS + 1]->op_type, "Op1");
    ck_assert_ptr_ne(g->node[OPS + 1]->op_type, g->node[1]->op_type);
    interner_free(names);
    arena_free(arena);
}
END_TEST

/* A string with a NUL at any place of its words or its last bytes is
 * left to the general path; one of any length without, of bytes from 1
 * to 255, is read, and with an interner it is interner_intern's copy
 * (the hash taken as the NUL is looked for is the interner's). */
START_TEST(test_nul_anywhere)
{
    Arena *arena = arena_new();
    Interner *names = interner_new(arena);
    const OnnxStrings copied = {arena, NULL, NULL}, interned = {arena, names, NULL};
    for (size_t len = 1; len <= 20; len++) {
        uint8_t node[24] = {0x0a, (uint8_t)len}; /* an input of len bytes */
        for (size_t k = 0; k < len; k++)
            node[2 + k] = (uint8_t)(k % 2 ? 0x80 + k : 1 + k);
        const Onnx__NodeProto *n = onnx_decode_common_node(node, len + 2, &copied);
        ck_assert_msg(n && strlen(n->input[0]) == len, "len %zu", len);
        n = onnx_decode_common_node(node, len + 2, &interned);
        ck_assert_ptr_eq(n->input[0], interner_intern(names, (const char *)node + 2, len));
        for (size_t at = 0; at < len; at++) {
            uint8_t was = node[2 + at];
            node[2 + at] = 0;
            ck_assert_msg(!onnx_decode_common_node(node, len + 2, &copied), "%zu at %zu", len,
                          at);
            ck_assert(!onnx_decode_common_node(node, len + 2, &interned));
            node[2 + at] = was;
        }
    }
    ck_assert_uint_eq(interner_count(names), 20);
    interner_free(names);
    arena_free(arena);
}
END_TEST

/* A string's last bytes read as a whole word when the message goes on
 * eight bytes after them: what follows, a 0 among it (an empty name's
 * length), counts for neither the NUL test nor the hash. */
START_TEST(test_nul_test_masked)
{
    Arena *arena = arena_new();
    Interner *names = interner_new(arena);
    const OnnxStrings interned = {arena, names, NULL};
    const uint8_t after[] = {0x1a, 0x00, 0x22, 0x08, 'A', 'b', 'c', 'd', 'e', 'f', 'g', 'h'};
    for (size_t len = 1; len <= 20; len++) {
        uint8_t node[40] = {0x0a, (uint8_t)len}; /* an input, an empty name, an op */
        for (size_t k = 0; k < len; k++)
            node[2 + k] = (uint8_t)('a' + k);
        memcpy(node + 2 + len, after, sizeof after);
        size_t n = 2 + len + sizeof after;
        const Onnx__NodeProto *got = onnx_decode_common_node(node, n, &interned);
        ck_assert_msg(got != NULL, "len %zu", len);
        ck_assert_ptr_eq(got->input[0], interner_intern(names, (const char *)node + 2, len));
        ck_assert_str_eq(got->name, "");
        ck_assert_ptr_eq(got->op_type, interner_cstr(names, "Abcdefgh"));
        node[1 + len] = 0; /* the input's last byte */
        ck_assert_msg(!onnx_decode_common_node(node, n, &interned), "len %zu", len);
    }
    interner_free(names);
    arena_free(arena);
}
END_TEST

/* Nodes of 14 to 20 inputs and outputs, about FEW_LISTED (note [node in
 * one pass]): read in one pass or, past it, in two, as protobuf-c reads
 * them, interned, and a NUL in the last output refused either way. */
START_TEST(test_many_inputs)
{
    Arena *arena = arena_new();
    Interner *names = interner_new(arena);
    const OnnxStrings interned = {arena, names, NULL};
    for (size_t count = 14; count <= 20; count++) {
        uint8_t node[128];
        size_t n = 0;
        for (size_t k = 0; k < count; k++) { /* all inputs but the last two */
            node[n++] = k + 2 < count ? 0x0a : 0x12;
            node[n++] = 2;
            node[n++] = (uint8_t)('a' + k);
            node[n++] = (uint8_t)('0' + count % 10);
        }
        const uint8_t after[] = {0x1a, 0x01, 'n', 0x22, 0x06, 'C', 'o', 'n', 'c', 'a', 't'};
        memcpy(node + n, after, sizeof after);
        n += sizeof after;
        const Onnx__NodeProto *got = onnx_decode_common_node(node, n, &interned);
        ck_assert_msg(got != NULL, "count %zu", count);
        ck_assert_uint_eq(got->n_input, count - 2);
        ck_assert_uint_eq(got->n_output, 2);
        ck_assert_ptr_eq(got->input[0], interner_intern(names, (const char *)node + 2, 2));
        ck_assert_ptr_eq(got->output[1], interner_intern(names, (const char *)node +
                                                                4 * (count - 1) + 2, 2));
        ck_assert_str_eq(got->name, "n");
        ck_assert_ptr_eq(got->op_type, interner_cstr(names, "Concat"));
        assert_as_protobuf_c(&got->base, node, n);
        node[4 * count - 1] = 0; /* the last output's last byte */
        ck_assert_msg(!onnx_decode_common_node(node, n, &interned), "count %zu", count);
    }
    interner_free(names);
    arena_free(arena);
}
END_TEST

/* A node of op_type op (n bytes), then, when doc, a doc_string of eight
 * bytes after it (so that op's first word is read whole), decoded by the
 * fast path through memo. */
static const Onnx__NodeProto *node_of_op(const char *op, size_t n, bool doc,
                                         const OnnxStrings *to)
{
    static uint8_t node[64];
    node[0] = 0x22; /* op_type */
    node[1] = (uint8_t)n;
    memcpy(node + 2, op, n);
    memcpy(node + 2 + n, "\x32\x08" "document", 10); /* doc_string */
    return onnx_decode_common_node(node, 2 + n + (doc ? 10 : 0), to);
}

/* note [op name memo]: an op_type found in the memo by its first eight
 * bytes and its length is the interned name of all its bytes, at the
 * message's end or with bytes after it, of 1 to 20 bytes: two names of
 * one length and first word are two; a name with a NUL anywhere is left
 * to the general path, the same name without one in the memo or not. */
START_TEST(test_op_names_by_head)
{
    Arena *arena = arena_new();
    Interner *names = interner_new(arena);
    OnnxOpMemo memo = {0};
    const OnnxStrings to = {arena, names, &memo};
    for (size_t n = 1; n <= 20; n++)
        for (int doc = 0; doc < 2; doc++) {
            char op[24], other[24];
            for (size_t k = 0; k < n; k++)
                op[k] = other[k] = (char)('A' + k);
            other[n - 1] = 'z'; /* (past the first word from 9 bytes on) */
            for (int again = 0; again < 2; again++) {
                const Onnx__NodeProto *a = node_of_op(op, n, doc, &to);
                ck_assert_ptr_eq(a->op_type, interner_intern(names, op, n));
                const Onnx__NodeProto *b = node_of_op(other, n, doc, &to);
                ck_assert_ptr_eq(b->op_type, interner_intern(names, other, n));
                ck_assert_ptr_ne(a->op_type, b->op_type);
            }
            for (size_t at = 0; at < n; at++) {
                char was = op[at];
                op[at] = 0;
                ck_assert_msg(!node_of_op(op, n, doc, &to), "%zu at %zu", n, at);
                op[at] = was;
            }
        }
    interner_free(names);
    arena_free(arena);
}
END_TEST

/* note [node's fields in order]: with the interner and the op memo (the
 * import's decoding), every string in its place is read, each where it
 * goes (the op through the memo), as protobuf-c reads it; a field out of
 * its place, twice where once is allowed, or after the last one, leaves
 * the node to the general path. */
START_TEST(test_fields_in_order)
{
    Arena *arena = arena_new();
    Interner *names = interner_new(arena);
    OnnxOpMemo memo = {0};
    const OnnxStrings to = {arena, names, &memo};
    const Onnx__NodeProto *n = onnx_decode_common_node(every_string, sizeof every_string, &to);
    ck_assert_ptr_nonnull(n);
    ck_assert_uint_eq(n->n_input, 2);
    ck_assert_uint_eq(n->n_output, 2);
    ck_assert_str_eq(n->input[0], "");
    ck_assert_ptr_eq(n->input[1], interner_cstr(names, "a"));
    ck_assert_ptr_eq(n->output[1], interner_cstr(names, "z"));
    ck_assert_ptr_eq(n->name, interner_cstr(names, "n"));
    ck_assert_ptr_eq(n->op_type, interner_cstr(names, "Split"));
    ck_assert_ptr_eq(n->doc_string, interner_cstr(names, "d"));
    ck_assert_ptr_eq(n->domain, interner_cstr(names, "ai.onnx"));
    assert_as_protobuf_c(&n->base, every_string, sizeof every_string);
    static const struct {
        const char *bytes;
        size_t len;
    } others[] = {
        {"\x22\x01X\x22\x01Y", 6},        /* op_type twice */
        {"\x3a\x01" "d\x32\x01s", 6},     /* domain before doc_string */
        {"\x32\x01s\x32\x01t", 6},        /* doc_string twice */
        {"\x22\x01X\x0a\x01x", 6},        /* an input after op_type */
        {"\x22\x01X\x12\x01y", 6},        /* an output after op_type */
        {"\x3a\x01" "d\x0a\x01x", 6},     /* an input after the domain */
        {"\x22\x01X\x3a\x01" "d\x2a\x00", 8}, /* an attribute last */
    };
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        ck_assert_msg(!onnx_decode_common_node((const uint8_t *)others[i].bytes,
                                               others[i].len, &to), "form %zu", i);
    interner_free(names);
    arena_free(arena);
}
END_TEST

static Suite *decode_fast_suite(void)
{
    Suite *s = suite_create("onnx_decode_fast");
    TCase *tc = tcase_create("onnx_decode_fast");
    tcase_add_test(tc, test_seed_input);
    tcase_add_test(tc, test_other_common_forms);
    tcase_add_test(tc, test_other_shapes_left);
    tcase_add_test(tc, test_common_nodes);
    tcase_add_test(tc, test_other_nodes_left);
    tcase_add_test(tc, test_decoded_in_graph);
    tcase_add_test(tc, test_shared_types);
    tcase_add_test(tc, test_field_runs);
    tcase_add_test(tc, test_op_names);
    tcase_add_test(tc, test_nul_anywhere);
    tcase_add_test(tc, test_nul_test_masked);
    tcase_add_test(tc, test_many_inputs);
    tcase_add_test(tc, test_op_names_by_head);
    tcase_add_test(tc, test_fields_in_order);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(decode_fast_suite());
}
