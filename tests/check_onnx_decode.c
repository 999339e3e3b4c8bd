/* check_onnx_decode.c - graft's decoder fills protobuf-c's structs as
 * protobuf-c's unpack fills them, bytes fields left in place (note [bytes
 * in place] in onnx_decode.h): on every model of tests/onnx/ and of the
 * fuzz corpus, and on hand-written bytes that no serializer writes
 * (repeated fields packed and not in one message, a field given twice,
 * negative varints of ten bytes, unknown fields of every wire type, a
 * oneof's members one after the other).  Equal means equal packed bytes:
 * protobuf-c's pack writes every value, presence flag and unknown field
 * of a message.  And the import that follows: values of one declared type
 * share it (note [canonical tensor types] in src/ir/graph_type.c).  And the
 * decoder refuses what the wire check refuses, no more and no less (note
 * [checked as decoded] in src/onnx/onnx_decode.h): on every file of
 * tests/onnx/, tests/onnx/bad/ and the fuzz corpus, every prefix of two
 * small models and their every byte changed. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "check_files.h"
#include "diag.h"
#include "onnx.pb-c.h"
#include "onnx_decode.h"
#include "onnx_graph.h"
#include "onnx_model.h"
#include "onnx_text.h"
#include "onnx_wire.h"
#include "check_main.h"

static void assert_same_packed(const ProtobufCMessage *got, const ProtobufCMessage *want)
{
    size_t len = protobuf_c_message_get_packed_size(want);
    ck_assert_uint_eq(protobuf_c_message_get_packed_size(got), len);
    uint8_t *a = malloc(len + 1), *b = malloc(len + 1);
    ck_assert_uint_eq(protobuf_c_message_pack(got, a), len);
    ck_assert_uint_eq(protobuf_c_message_pack(want, b), len);
    ck_assert(memcmp(a, b, len) == 0);
    free(a);
    free(b);
}

/* Asserts that every string of msg (a NodeProto's inputs and outputs
 * among them) is names's copy of it; how many there are. */
static size_t assert_interned(const ProtobufCMessage *msg, const Interner *names)
{
    size_t n = 0;
    const ProtobufCMessageDescriptor *desc = msg->descriptor;
    for (unsigned i = 0; i < desc->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &desc->fields[i];
        const char *at = (const char *)msg + f->offset;
        const uint32_t *which = (const uint32_t *)((const char *)msg + f->quantifier_offset);
        if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) && *which != f->id)
            continue; /* (another member's place) */
        bool many = f->label == PROTOBUF_C_LABEL_REPEATED;
        size_t count = many ? *(const size_t *)((const char *)msg + f->quantifier_offset) : 1;
        const void *const *items = many ? *(const void *const *const *)at
                                        : (const void *const *)at;
        for (size_t k = 0; k < count; k++) {
            if (f->type == PROTOBUF_C_TYPE_MESSAGE && items[k])
                n += assert_interned(items[k], names);
            else if (f->type == PROTOBUF_C_TYPE_STRING && items[k] && ++n)
                ck_assert_ptr_eq(interner_lookup(names, items[k], strlen(items[k])),
                                 items[k]);
        }
    }
    return n;
}

/* bytes decoded as a desc into arena, after asserting that protobuf-c's
 * unpack gives the same message, and so does the decoder interning its
 * strings (note [interned strings] in onnx_decode.h), each interned. */
static ProtobufCMessage *decode_checked(const ProtobufCMessageDescriptor *desc, uint8_t *bytes,
                                        size_t len, Arena *arena)
{
    ProtobufCMessage *got = arena_alloc(arena, desc->sizeof_message);
    ck_assert(onnx_decode(desc, bytes, len, 100, arena, NULL, got));
    ProtobufCMessage *want = protobuf_c_message_unpack(desc, NULL, len, bytes);
    ck_assert_ptr_nonnull(want);
    assert_same_packed(got, want);
    Interner *names = interner_new(arena);
    ProtobufCMessage *named = arena_alloc(arena, desc->sizeof_message);
    ck_assert(onnx_decode_named(desc, bytes, len, 100, arena, NULL, names, named));
    assert_same_packed(named, want);
    assert_interned(named, names);
    interner_free(names);
    protobuf_c_message_free_unpacked(want, NULL);
    return got;
}

static bool inside(const uint8_t *p, const uint8_t *bytes, size_t len)
{
    return p >= bytes && p < bytes + len;
}

/* How many initializers of m hold raw_data, each asserted to point into
 * the file's bytes. */
static int raw_in_place(const Onnx__ModelProto *m, const uint8_t *bytes, size_t len)
{
    int n = 0;
    for (size_t i = 0; m->graph && i < m->graph->n_initializer; i++) {
        const Onnx__TensorProto *t = m->graph->initializer[i];
        if (!t->has_raw_data || t->raw_data.len == 0)
            continue;
        ck_assert(inside(t->raw_data.data, bytes, len));
        n++;
    }
    return n;
}

/* Decodes a model that passes the wire check; whether it did.  *raw
 * counts the initializers' raw_data found in place. */
static bool compare_model(const char *name, uint8_t *bytes, size_t len, void *raw)
{
    (void)name;
    if (!wire_ok(&onnx__model_proto__descriptor, bytes, len))
        return false;
    Arena *arena = arena_new();
    ProtobufCMessage *m = decode_checked(&onnx__model_proto__descriptor, bytes, len, arena);
    *(int *)raw += raw_in_place((Onnx__ModelProto *)m, bytes, len);
    arena_free(arena);
    return true;
}

START_TEST(test_corpus_models)
{
    /* 16 models in tests/onnx/, 7 of the fuzz corpus's 9 that pass the
     * wire check; more may come, none may go */
    int raw = 0;
    ck_assert_int_ge(each_onnx_file("tests/onnx", compare_model, &raw), 16);
    ck_assert_int_ge(each_onnx_file("fuzz/corpus/onnx", compare_model, &raw), 7);
    ck_assert_int_ge(raw, 1690); /* the corpus CNNs' weights (python3-onnx counts 1690 in
                                  * tests/onnx/), none copied */
}
END_TEST

/* A TensorProto as no serializer writes it. */
static const uint8_t odd_tensor[] = {
    0x08, 0x02, 0x08, 0x03,                   /* dims 2, 3, one key each */
    0x0a, 0x02, 0x04, 0x05,                   /* dims 4, 5, packed */
    0x10, 0x01, 0x10, 0x07,                   /* data_type twice: 7 wins */
    0x1a, 0x04, 0x08, 0x01, 0x10, 0x02,       /* segment {begin 1 end 2} */
    0x25, 0x00, 0x00, 0x80, 0x3f,             /* float_data 1.0, not packed */
    0x22, 0x04, 0x00, 0x00, 0x00, 0x40,       /* float_data 2.0, packed */
    0x28, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, /* int32_data -2 */
    0x3a, 0x0b, 0x05, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, /* 5, -1 */
    0x42, 0x01, 't',                          /* name */
    0x4a, 0x02, 'a', 'b', 0x4a, 0x00,         /* raw_data twice: empty wins */
    0x51, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f,       /* double_data 1.0, not packed */
    0x58, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, /* uint64_data max */
    0xc0, 0x3e, 0x05,                         /* unknown 1000, varint */
    0xcd, 0x3e, 1, 2, 3, 4,                   /* unknown 1001, 32-bit */
    0xd1, 0x3e, 1, 2, 3, 4, 5, 6, 7, 8,       /* unknown 1002, 64-bit */
    0xda, 0x3e, 0x02, 'h', 'i',               /* unknown 1003, length-delimited */
};

START_TEST(test_odd_tensor)
{
    uint8_t bytes[sizeof odd_tensor];
    memcpy(bytes, odd_tensor, sizeof bytes);
    ck_assert(wire_ok(&onnx__tensor_proto__descriptor, bytes, sizeof bytes));
    Arena *arena = arena_new();
    const Onnx__TensorProto *t = (const Onnx__TensorProto *)decode_checked(
        &onnx__tensor_proto__descriptor, bytes, sizeof bytes, arena);
    ck_assert_uint_eq(t->n_dims, 4);
    ck_assert_int_eq(t->dims[3], 5);
    ck_assert_int_eq(t->data_type, 7);
    ck_assert_uint_eq(t->n_float_data, 2);
    ck_assert(t->float_data[0] == 1.0f && t->float_data[1] == 2.0f);
    ck_assert_int_eq(t->int32_data[0], -2);
    ck_assert_uint_eq(t->n_int64_data, 2);
    ck_assert_int_eq(t->int64_data[1], -1);
    ck_assert(t->has_raw_data && t->raw_data.len == 0 && t->raw_data.data == NULL);
    ck_assert_uint_eq(t->uint64_data[0], UINT64_MAX);
    ck_assert_uint_eq(t->base.n_unknown_fields, 4);
    const ProtobufCMessageUnknownField *u = &t->base.unknown_fields[3];
    ck_assert_uint_eq(u->tag, 1003);
    ck_assert_uint_eq(u->len, 3); /* the length prefix and the bytes */
    ck_assert(u->data == bytes + sizeof bytes - 3); /* in place */
    arena_free(arena);
}
END_TEST

/* A oneof's later member replaces the earlier, in either order. */
START_TEST(test_oneof_twice)
{
    uint8_t param_then_value[] = {0x12, 0x01, 'N', 0x08, 0x03};
    uint8_t value_then_param[] = {0x08, 0x03, 0x12, 0x01, 'N'};
    const ProtobufCMessageDescriptor *desc = &onnx__tensor_shape_proto__dimension__descriptor;
    Arena *arena = arena_new();
    const Onnx__TensorShapeProto__Dimension *d = (const void *)decode_checked(
        desc, param_then_value, sizeof param_then_value, arena);
    ck_assert_int_eq(d->value_case, ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE);
    ck_assert_int_eq(d->dim_value, 3);
    d = (const void *)decode_checked(desc, value_then_param, sizeof value_then_param, arena);
    ck_assert_int_eq(d->value_case, ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM);
    ck_assert_str_eq(d->dim_param, "N");
    arena_free(arena);
}
END_TEST

/* note [onnx scalars]: every field reachable from onnx.ModelProto is a
 * message, a string, bytes, or a scalar of a type the decoder knows. */
START_TEST(test_scalar_types_known)
{
    const ProtobufCMessageDescriptor *seen[64] = {&onnx__model_proto__descriptor};
    size_t nseen = 1;
    for (size_t i = 0; i < nseen; i++) {
        for (unsigned f = 0; f < seen[i]->n_fields; f++) {
            const ProtobufCFieldDescriptor *field = &seen[i]->fields[f];
            switch (field->type) {
            case PROTOBUF_C_TYPE_MESSAGE: {
                bool known = false;
                for (size_t j = 0; j < nseen; j++)
                    known |= seen[j] == field->descriptor;
                ck_assert_uint_lt(nseen, 64);
                if (!known)
                    seen[nseen++] = field->descriptor;
                break;
            }
            case PROTOBUF_C_TYPE_STRING:
            case PROTOBUF_C_TYPE_BYTES:
            case PROTOBUF_C_TYPE_INT32:
            case PROTOBUF_C_TYPE_ENUM:
            case PROTOBUF_C_TYPE_INT64:
            case PROTOBUF_C_TYPE_UINT64:
            case PROTOBUF_C_TYPE_FLOAT:
            case PROTOBUF_C_TYPE_DOUBLE:
                break;
            default:
                ck_abort_msg("field '%s' of %s has a type the decoder does not know",
                             field->name, seen[i]->name);
            }
        }
    }
    ck_assert_uint_ge(nseen, 15); /* onnx.proto's messages, nested ones too */
}
END_TEST

/* Graph inputs of one type share it, of another type do not (N and M are
 * two symbols: note [symbolic dims]); a scalar input too gets its own;
 * the texts are the types'.  An initializer and an inferred result of a
 * graph input's dtype and dims take its type: every type the import
 * makes is the graph's one of its dtype and dims. */
START_TEST(test_import_shares_types)
{
    const char *text = "<\n  ir_version: 8,\n  opset_import: [\"\" : 17]\n>\n"
                       "g (float[N, 3] a, float[N, 3] b, float[3] c, float[M, 3] d, float s) "
                       "=> (float[N, 3] y) <float[3] w = {1, 2, 3}> {\n  y = Add (a, b)\n"
                       "  z = Mul (c, w)\n  v = Transpose <perm = [1, 0]> (d)\n"
                       "  u = Transpose <perm = [1, 0]> (v)\n}\n";
    Source *src = source_from_string("t.onnxtxt", text, strlen(text));
    graft_diag *d = diag_new(stderr);
    OnnxModel *m = onnx_import(onnx_text_read(src, NULL, d), "t.onnxtxt", d);
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(graph_nparams(m->g), 5);
    const graft_type *t[5];
    for (int i = 0; i < 5; i++)
        t[i] = node_type(graph_param(m->g, i));
    ck_assert_ptr_eq(t[0], t[1]);
    ck_assert_ptr_ne(t[0], t[3]);
    ck_assert_ptr_ne(t[0], t[2]);
    ck_assert_str_eq(t[0]->text, "Tensor[(N, 3), float32]");
    ck_assert_str_eq(t[3]->text, "Tensor[(M, 3), float32]");
    ck_assert_str_eq(t[2]->text, "Tensor[(3), float32]");
    ck_assert_str_eq(t[4]->text, "float32");
    const graft_node *w = onnx_value_named(&m->values, graph_intern(m->g, "w"));
    const graft_node *z = onnx_value_named(&m->values, graph_intern(m->g, "z"));
    const graft_node *u = onnx_value_named(&m->values, graph_intern(m->g, "u"));
    ck_assert_ptr_eq(node_type(w), t[2]);
    ck_assert_ptr_eq(node_type(z), t[2]);
    ck_assert_ptr_eq(node_type(u), t[3]); /* (made by inference: not an operand's) */
    ck_assert_str_eq(node_type(onnx_value_named(&m->values, graph_intern(m->g, "v")))->text,
                     "Tensor[(3, M), float32]");
    onnx_graph_free(m);
    diag_free(d);
    source_free(src);
}
END_TEST

/* note [names as decoded]: a model's names are one pointer each (a
 * node's output and the next one's input, a NUL cutting a name short),
 * and the graph's own: a parameter's name and a value's are the
 * model's strings, and so is what the graph interns of the same bytes. */
START_TEST(test_names_interned)
{
    static const uint8_t graph[] = {
        0x0a, 0x0c, 0x0a, 0x01, 'x', 0x12, 0x02, 't', '0', 0x22, 0x03, 'N', 'e', 'g',
        0x0a, 0x0d, 0x0a, 0x02, 't', '0', 0x12, 0x01, 'y', 0x22, 0x04, 'R', 'e', 'l', 'u',
        0x12, 0x01, 'z', 0x52, 0x04, 'z', 0x00, 'q', 'q', /* name, doc_string */
        0x5a, 0x03, 0x0a, 0x01, 'x', 0x62, 0x03, 0x0a, 0x01, 'y'}; /* input x, output y */
    uint8_t model[sizeof graph + 8] = {0x08, 0x08, 0x3a, sizeof graph}; /* ir_version 8 */
    memcpy(model + 4, graph, sizeof graph);
    memcpy(model + 4 + sizeof graph, "\x42\x02\x10\x11", 4); /* opset 17 */
    graft_diag *d = diag_new(stderr);
    Onnx__ModelProto *proto = onnx_model_unpack(model, sizeof model, "t.onnx", NULL, d);
    ck_assert_ptr_nonnull(proto);
    const Onnx__GraphProto *gp = proto->graph;
    ck_assert_ptr_eq(gp->node[0]->output[0], gp->node[1]->input[0]);
    ck_assert_ptr_eq(gp->node[0]->input[0], gp->input[0]->name);
    ck_assert_ptr_eq(gp->node[1]->output[0], gp->output[0]->name);
    ck_assert_ptr_eq(gp->doc_string, gp->name); /* "z" both, the NUL's tail dropped */
    Interner *names = onnx_model_names(proto);
    ck_assert_ptr_eq(interner_lookup(names, "t0", 2), gp->node[1]->input[0]);
    OnnxModel *m = onnx_import(proto, "t.onnx", d);
    ck_assert_ptr_nonnull(m);
    ck_assert_ptr_eq(node_name(graph_param(m->g, 0)), gp->input[0]->name);
    ck_assert_ptr_eq(graph_value_name(m->g, graph_param(m->g, 0)), gp->input[0]->name);
    ck_assert_ptr_eq(graph_intern(m->g, "t0"), gp->node[0]->output[0]);
    ck_assert_ptr_eq(node_op(node_arg(graph_output(m->g), 0)), gp->node[0]->op_type);
    ck_assert_str_eq(node_op(graph_output(m->g)), "Relu");
    onnx_graph_free(m);
    diag_free(d);
}
END_TEST

/* How often the decoder's checks and the wire check agreed that bytes are
 * good and bad (note [checked as decoded] in onnx_decode.h). */
typedef struct Verdicts {
    FILE *quiet;
    int good, bad;
} Verdicts;

/* Asserts that the decoder refuses bytes, a ModelProto nested at most
 * depth deep, exactly when the wire check does. */
static void assert_checks_agree(Verdicts *v, uint8_t *bytes, size_t len, uint64_t depth)
{
    graft_diag *diag = diag_new(v->quiet);
    bool wire = onnx_wire_check(bytes, len, &onnx__model_proto__descriptor, depth, "t.onnx",
                                diag);
    diag_free(diag);
    Arena *arena = arena_new();
    Onnx__ModelProto *m = arena_alloc(arena, sizeof *m);
    bool decoded = onnx_decode(&onnx__model_proto__descriptor, bytes, len, depth, arena, NULL,
                               &m->base);
    arena_free(arena);
    ck_assert_int_eq(decoded, wire);
    v->good += wire;
    v->bad += !wire;
}

static bool agree_on_file(const char *name, uint8_t *bytes, size_t len, void *ctx)
{
    (void)name;
    assert_checks_agree(ctx, bytes, len, 64);
    return true;
}

/* The file's every prefix, and its every byte replaced by values that
 * break keys, varints, lengths and wire types, at depth limits 1 to 6. */
static void agree_on_mutants(Verdicts *v, const char *file)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", srcdir(), file);
    size_t len = 0;
    uint8_t *bytes = read_file(path, &len);
    ck_assert_ptr_nonnull(bytes);
    for (size_t n = 0; n <= len; n++)
        assert_checks_agree(v, bytes, n, 64);
    static const uint8_t values[] = {0x00, 0x7f, 0x80, 0xff, 0x08, 0x0a, 0x0b, 0x0d};
    for (size_t i = 0; i < len; i++) {
        uint8_t was = bytes[i];
        for (size_t k = 0; k < sizeof values; k++) {
            bytes[i] = values[k];
            assert_checks_agree(v, bytes, len, 64);
        }
        bytes[i] = (uint8_t)(was ^ 0x07); /* another wire type */
        assert_checks_agree(v, bytes, len, 64);
        bytes[i] = was;
    }
    for (uint64_t depth = 1; depth <= 6; depth++)
        assert_checks_agree(v, bytes, len, depth);
    free(bytes);
}

/* A model whose one initializer holds int64_data (packed) of run's n
 * bytes: whole varints or not. */
static void agree_on_packed(Verdicts *v, const char *run, size_t n)
{
    uint8_t bytes[64] = {0x3a, (uint8_t)(n + 4), 0x2a, (uint8_t)(n + 2), 0x3a, (uint8_t)n};
    memcpy(bytes + 6, run, n);
    assert_checks_agree(v, bytes, n + 6, 64);
}

START_TEST(test_checks_agree)
{
    Verdicts v = {fopen("/dev/null", "w"), 0, 0};
    ck_assert_int_ge(each_onnx_file("tests/onnx", agree_on_file, &v), 13);
    ck_assert_int_ge(each_onnx_file("tests/onnx/bad", agree_on_file, &v), 18);
    ck_assert_int_ge(each_onnx_file("fuzz/corpus/onnx", agree_on_file, &v), 12);
    agree_on_mutants(&v, "tests/onnx/attributes.onnx");
    agree_on_mutants(&v, "tests/onnx/if_subgraph.onnx");
    int bad = v.bad;
    agree_on_packed(&v, "\x01\x02", 2);
    agree_on_packed(&v, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10);
    ck_assert_int_eq(v.bad, bad);
    agree_on_packed(&v, "\x01\x80", 2); /* the last varint runs past the run */
    agree_on_packed(&v, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11);
    ck_assert_int_eq(v.bad, bad + 2);
    fclose(v.quiet);
    ck_assert_int_gt(v.good, 1000); /* both verdicts, many times */
    ck_assert_int_gt(v.bad, 1000);
}
END_TEST

/* A node's op_type goes to its call as the decoder interned it
 * (graph_add_call_interned), for more distinct ops than the graph's table
 * of canonical pointers has slots: each call's op is its NodeProto's
 * pointer and the graph's interned string of those bytes; and each call's
 * origin is its NodeProto (note [origins] in onnx_import.c), for the ids
 * made. */
START_TEST(test_ops_as_decoded)
{
    enum { OPS = 80 };
    uint8_t graph[OPS * 16 + 16], model[OPS * 16 + 32];
    size_t n = 0;
    for (int k = 0; k < OPS; k++) { /* yK = OpK(x) */
        char op[8], out[8];
        int oplen = snprintf(op, sizeof op, "Op%d", k), outlen = snprintf(out, sizeof out,
                                                                           "y%d", k);
        graph[n++] = 0x0a; /* node */
        graph[n++] = (uint8_t)(3 + 2 + outlen + 2 + oplen);
        memcpy(graph + n, "\x0a\x01x", 3);
        n += 3;
        graph[n++] = 0x12;
        graph[n++] = (uint8_t)outlen;
        memcpy(graph + n, out, (size_t)outlen);
        n += (size_t)outlen;
        graph[n++] = 0x22;
        graph[n++] = (uint8_t)oplen;
        memcpy(graph + n, op, (size_t)oplen);
        n += (size_t)oplen;
    }
    memcpy(graph + n, "\x5a\x03\x0a\x01x", 5); /* input x, untyped */
    n += 5;
    size_t len = 0;
    memcpy(model, "\x08\x08\x3a", 3); /* ir_version 8, the graph */
    len = 3;
    model[len++] = (uint8_t)(0x80 | (n & 0x7f));
    model[len++] = (uint8_t)(n >> 7);
    memcpy(model + len, graph, n);
    len += n;
    memcpy(model + len, "\x42\x02\x10\x11", 4); /* opset 17 */
    len += 4;
    graft_diag *d = diag_new(stderr);
    Onnx__ModelProto *proto = onnx_model_unpack(model, len, "t.onnx", NULL, d);
    ck_assert_ptr_nonnull(proto);
    OnnxModel *m = onnx_import(proto, "t.onnx", d);
    ck_assert_ptr_nonnull(m);
    for (int k = 0; k < OPS; k++) {
        const Onnx__NodeProto *np = proto->graph->node[k];
        const graft_node *call = graph_node(m->g, (uint32_t)k + 1); /* (after x) */
        ck_assert_int_eq(node_kind(call), NODE_CALL);
        ck_assert_ptr_eq(node_op(call), np->op_type);
        ck_assert_ptr_eq(graph_intern(m->g, np->op_type), np->op_type);
        char op[8];
        snprintf(op, sizeof op, "Op%d", k);
        ck_assert_ptr_eq(graph_intern_n(m->g, op, strlen(op)), node_op(call));
        ck_assert_ptr_eq(m->origin[node_id(call)], np);
    }
    ck_assert_uint_eq(m->norigin, graph_node_count(m->g));
    ck_assert_ptr_null(m->origin[0]); /* x */
    onnx_graph_free(m);
    diag_free(d);
}
END_TEST

/* note [values by address]: each value name of an imported model finds
 * the node made of it (three hundred values, so that some share a slot
 * and are probed past), a name no value has and a NULL name none; the
 * table is at most half full. */
START_TEST(test_values_by_address)
{
    enum { CHAIN = 300 };
    StrBuf text = {0};
    strbuf_printf(&text, "<\n  ir_version: 8,\n  opset_import: [\"\" : 17]\n>\n"
                         "g (float[3] x, float[3] w) => (float[3] y%d) {\n", CHAIN - 1);
    for (int k = 0; k < CHAIN; k++)
        strbuf_printf(&text, k ? "  y%d = Add (y%d, w)\n" : "  y%d = Add (x, w)\n", k, k - 1);
    strbuf_printf(&text, "}\n");
    Source *src = source_from_string("t.onnxtxt", text.data, text.len);
    graft_diag *d = diag_new(stderr);
    OnnxModel *m = onnx_import(onnx_text_read(src, NULL, d), "t.onnxtxt", d);
    ck_assert_ptr_nonnull(m);
    ck_assert_ptr_eq(onnx_value_named(&m->values, graph_intern(m->g, "x")), graph_param(m->g, 0));
    ck_assert_ptr_eq(onnx_value_named(&m->values, graph_intern(m->g, "w")), graph_param(m->g, 1));
    for (int k = 0; k < CHAIN; k++) {
        char name[16];
        snprintf(name, sizeof name, "y%d", k);
        const graft_node *made = onnx_value_named(&m->values, graph_intern(m->g, name));
        ck_assert_ptr_nonnull(made);
        ck_assert_int_eq(node_kind(made), NODE_CALL);
        ck_assert_uint_eq(node_id(made), (uint32_t)k + 2); /* (after x and w) */
        ck_assert_ptr_eq(graph_value_name(m->g, made), graph_intern(m->g, name));
    }
    ck_assert_ptr_null(onnx_value_named(&m->values, graph_intern(m->g, "y300")));
    ck_assert_ptr_null(onnx_value_named(&m->values, NULL));
    ck_assert_uint_eq(m->values.len, CHAIN + 2);
    ck_assert_uint_eq(m->values.room, (size_t)1 << (m->values.bits - 1));
    ck_assert_uint_le(m->values.len, m->values.room);
    onnx_graph_free(m);
    diag_free(d);
    source_free(src);
    strbuf_free(&text);
}
END_TEST

/* note [calls typed as made], note [plain calls]: a call of one
 * result typed as imported gets the type onnx_type_of gives it
 * (float[2, 3] for the Add, float[3, 2] for the Transpose, whose declared
 * type of that text stays its own); made keeps the memo's answer for the
 * Add's key and gives it again, but none for the Transpose (an
 * attribute), nor for the Reshape (its type read its shape's values);
 * the Split of two results, typed through onnx_type_of, is a tuple of
 * its two. */
START_TEST(test_calls_typed_as_made)
{
    const char *text = "<\n  ir_version: 8,\n  opset_import: [\"\" : 17]\n>\n"
                       "g (float[2, 3] x, float[3] b) => (float[3, 2] t, float[1, 3] p, "
                       "float[3, 2] r) <int64[2] shape = {3, 2}> {\n"
                       "  s = Add (x, b)\n  t = Transpose <perm = [1, 0]> (s)\n"
                       "  p, q = Split <axis = 0> (s)\n  r = Reshape (s, shape)\n}\n";
    Source *src = source_from_string("t.onnxtxt", text, strlen(text));
    graft_diag *d = diag_new(stderr);
    OnnxModel *m = onnx_import(onnx_text_read(src, NULL, d), "t.onnxtxt", d);
    ck_assert_ptr_nonnull(m);
    const graft_node *add = onnx_value_named(&m->values, graph_intern(m->g, "s"));
    const graft_node *transpose = onnx_value_named(&m->values, graph_intern(m->g, "t"));
    const graft_node *reshape = onnx_value_named(&m->values, graph_intern(m->g, "r"));
    const graft_node *p = onnx_value_named(&m->values, graph_intern(m->g, "p"));
    ck_assert_str_eq(node_type(add)->text, "Tensor[(2, 3), float32]");
    ck_assert_str_eq(node_type(transpose)->text, "Tensor[(3, 2), float32]");
    StrBuf why = {0};
    OnnxPlainTypes *made = calloc(1, sizeof *made);
    ck_assert_ptr_eq(onnx_type_of_plain(m->g, add, made, &why), node_type(add));
    ck_assert_ptr_eq(onnx_type_of(m->g, add, &why), node_type(add));
    const graft_type *inferred = onnx_type_of_plain(m->g, transpose, made, &why);
    ck_assert_str_eq(inferred->text, "Tensor[(3, 2), float32]"); /* (t's declared type stays) */
    ck_assert_ptr_eq(onnx_type_of(m->g, transpose, &why), inferred);
    ck_assert_str_eq(onnx_type_of_plain(m->g, reshape, made, &why)->text,
                     "Tensor[(3, 2), float32]");
    ck_assert_uint_eq(why.len, 0);
    int kept = 0;
    for (int i = 0; i < 1 << ONNX_PLAIN_TYPES_BITS; i++)
        for (int k = 0; k < 2; k++) {
            const OnnxPlainType *e = &made->pair[i][k];
            if (!e->op)
                continue;
            kept++;
            ck_assert_ptr_eq(e->op, node_op(add));
            ck_assert_int_eq(e->nargs, 2);
            ck_assert_ptr_eq(e->operand[0], node_type(node_arg(add, 0)));
            ck_assert_ptr_eq(e->operand[1], node_type(node_arg(add, 1)));
            ck_assert_ptr_eq(e->type, node_type(add));
        }
    ck_assert_int_eq(kept, 1);
    ck_assert_ptr_eq(onnx_type_of_plain(m->g, add, made, &why), node_type(add)); /* (made's) */
    const graft_node *split = node_arg(p, 0);
    ck_assert_int_eq(node_kind(p), NODE_GETITEM);
    ck_assert_int_eq(node_type(split)->kind, TYPE_TUPLE);
    ck_assert_int_eq(node_type(split)->nfields, 2);
    ck_assert_str_eq(node_type(p)->text, "Tensor[(1, 3), float32]");
    free(made);
    strbuf_free(&why);
    onnx_graph_free(m);
    diag_free(d);
    source_free(src);
}
END_TEST

/* note [ops as imported]: the import lists each op the NodeProtos call
 * with the domain it gives the call: Add and Mul of the default domain
 * (listed once each, unless their addresses share a slot), FastGelu of
 * com.microsoft once, nothing else; check_ops reads that list.  With a
 * domain named, the calls are typed through their NodeProtos (note
 * [calls typed as made]). */
START_TEST(test_ops_as_imported)
{
    const char *text = "<\n  ir_version: 8,\n  opset_import: [\"\" : 17, \"com.microsoft\" : 1]\n>\n"
                       "g (float[3] x, float[3] w) => (float[3] y) {\n"
                       "  a = Add (x, w)\n  b = Mul (a, w)\n  c = Add (b, w)\n"
                       "  d = com.microsoft.FastGelu (c, w)\n  y = Mul (d, w)\n}\n";
    Source *src = source_from_string("t.onnxtxt", text, strlen(text));
    graft_diag *d = diag_new(stderr);
    OnnxModel *m = onnx_import(onnx_text_read(src, NULL, d), "t.onnxtxt", d);
    ck_assert_ptr_nonnull(m);
    const char *add = graph_intern(m->g, "Add"), *mul = graph_intern(m->g, "Mul");
    const char *gelu = graph_intern(m->g, "FastGelu");
    int adds = 0, muls = 0, gelus = 0;
    for (size_t i = 0; i < m->ops.len; i++) {
        const OnnxOpCall *call = &m->ops.items[i];
        if (call->op == gelu) {
            ck_assert_str_eq(call->domain, "com.microsoft");
            gelus++;
            continue;
        }
        ck_assert_ptr_null(call->domain);
        ck_assert(call->op == add || call->op == mul);
        adds += call->op == add;
        muls += call->op == mul;
    }
    ck_assert_int_eq(gelus, 1);
    ck_assert_int_ge(adds, 1);
    ck_assert_int_ge(muls, 1);
    ck_assert_uint_le(m->ops.len, 5); /* (one a NodeProto at most) */
    const graft_node *a = onnx_value_named(&m->values, graph_intern(m->g, "a"));
    ck_assert_str_eq(node_type(a)->text, "Tensor[(3), float32]"); /* (typed, a domain named) */
    onnx_graph_free(m);
    diag_free(d);
    source_free(src);
}
END_TEST

/* note [plain nodes]: a plain node (a) is the call of its op on the
 * values it reads, named, typed, its NodeProto its origin; a node with
 * an operand left out in the middle (the Clip's min), and one of two
 * results (the Split), are made by the general path as before: the empty
 * tuple in the gap, an element per result. */
START_TEST(test_plain_nodes)
{
    const char *text = "<\n  ir_version: 8,\n  opset_import: [\"\" : 17]\n>\n"
                       "g (float[4] x, float[4] w, float lo) => (float[4] z, float[2] p) {\n"
                       "  a = Add (x, w)\n  z = Clip (a, , lo)\n  p, q = Split <num_outputs = 2> (a)\n}\n";
    Source *src = source_from_string("t.onnxtxt", text, strlen(text));
    graft_diag *d = diag_new(stderr);
    OnnxModel *m = onnx_import(onnx_text_read(src, NULL, d), "t.onnxtxt", d);
    ck_assert_ptr_nonnull(m);
    const graft_node *a = onnx_value_named(&m->values, graph_intern(m->g, "a"));
    ck_assert_int_eq(node_kind(a), NODE_CALL);
    ck_assert_str_eq(node_op(a), "Add");
    ck_assert_int_eq(node_nargs(a), 2);
    ck_assert_ptr_eq(node_arg(a, 0), graph_param(m->g, 0));
    ck_assert_ptr_eq(node_arg(a, 1), graph_param(m->g, 1));
    ck_assert_str_eq(graph_value_name(m->g, a), "a");
    ck_assert_str_eq(node_type(a)->text, "Tensor[(4), float32]");
    ck_assert_ptr_eq(m->origin[node_id(a)], m->proto->graph->node[0]);
    const graft_node *z = onnx_value_named(&m->values, graph_intern(m->g, "z"));
    ck_assert_str_eq(node_op(z), "Clip");
    ck_assert_int_eq(node_nargs(z), 3);
    ck_assert_ptr_eq(node_arg(z, 0), a);
    ck_assert_ptr_eq(node_arg(z, 1), m->absent);
    ck_assert_ptr_eq(node_arg(z, 2), graph_param(m->g, 2));
    const graft_node *p = onnx_value_named(&m->values, graph_intern(m->g, "p"));
    ck_assert_int_eq(node_kind(p), NODE_GETITEM);
    ck_assert_str_eq(node_op(node_arg(p, 0)), "Split");
    ck_assert_ptr_eq(node_arg(node_arg(p, 0), 0), a);
    onnx_graph_free(m);
    diag_free(d);
    source_free(src);
}
END_TEST

/* note [tables estimated], note [origins]: NodeProtos of three results
 * each make more ids than the tables were sized for (one value a
 * NodeProto); the origins grow past them: each call's entry is its
 * NodeProto, each element's none, and the Add made last finds its
 * operands and its origin. */
START_TEST(test_origins_grow)
{
    enum { SPLITS = 6 };
    StrBuf text = {0};
    strbuf_printf(&text, "<\n  ir_version: 8,\n  opset_import: [\"\" : 18]\n>\n"
                         "g (float[6] x) => (float[2] y) {\n");
    for (int k = 0; k < SPLITS; k++)
        strbuf_printf(&text, "  a%d, b%d, c%d = Split <num_outputs = 3> (x)\n", k, k, k);
    strbuf_printf(&text, "  y = Add (a%d, b0)\n}\n", SPLITS - 1);
    Source *src = source_from_string("t.onnxtxt", text.data, text.len);
    graft_diag *d = diag_new(stderr);
    OnnxModel *m = onnx_import(onnx_text_read(src, NULL, d), "t.onnxtxt", d);
    ck_assert_ptr_nonnull(m);
    const Onnx__GraphProto *gp = m->proto->graph;
    ck_assert_uint_gt(graph_node_count(m->g), 1 + gp->n_node + 2); /* (past the estimate) */
    const graft_node *y = onnx_value_named(&m->values, graph_intern(m->g, "y"));
    ck_assert_ptr_eq(m->origin[node_id(y)], gp->node[SPLITS]);
    ck_assert_str_eq(graph_value_name(m->g, node_arg(y, 1)), "b0");
    for (int k = 0; k < SPLITS; k++) {
        char name[8];
        snprintf(name, sizeof name, "a%d", k);
        const graft_node *a = onnx_value_named(&m->values, graph_intern(m->g, name));
        ck_assert_int_eq(node_kind(a), NODE_GETITEM);
        ck_assert_ptr_null(m->origin[node_id(a)]);
        ck_assert_ptr_eq(m->origin[node_id(node_arg(a, 0))], gp->node[k]);
    }
    ck_assert_uint_ge(m->norigin, node_id(y) + 1);
    onnx_graph_free(m);
    diag_free(d);
    source_free(src);
    strbuf_free(&text);
}
END_TEST

/* note [kept values], note [leaves skipped]: the output is a tuple of the
 * graph output, then the values nothing reads in id order (the unread
 * initializer, then the unread Neg), found in the walk that infers types:
 * each typed, the graph output listed once. */
START_TEST(test_kept_values)
{
    const char *text = "<\n  ir_version: 8,\n  opset_import: [\"\" : 17]\n>\n"
                       "g (float[2] x) => (float[2] y) <float[2] c = {1, 2}> {\n"
                       "  u = Neg (x)\n  y = Abs (x)\n}\n";
    Source *src = source_from_string("t.onnxtxt", text, strlen(text));
    graft_diag *d = diag_new(stderr);
    OnnxModel *m = onnx_import(onnx_text_read(src, NULL, d), "t.onnxtxt", d);
    ck_assert_ptr_nonnull(m);
    ck_assert(m->tupled);
    ck_assert_int_eq(m->noutputs, 1);
    const graft_node *out = graph_output(m->g);
    ck_assert_int_eq(node_kind(out), NODE_TUPLE);
    ck_assert_int_eq(node_nargs(out), 3);
    const char *names[3] = {"y", "c", "u"};
    for (int k = 0; k < 3; k++) {
        const graft_node *v = onnx_value_named(&m->values, graph_intern(m->g, names[k]));
        ck_assert_ptr_eq(node_arg(out, k), v);
        ck_assert_str_eq(node_type(v)->text, "Tensor[(2), float32]");
    }
    ck_assert_uint_eq(m->norigin, graph_node_count(m->g));
    onnx_graph_free(m);
    diag_free(d);
    source_free(src);
}
END_TEST

/* note [subgraphs noted]: the import notes a graph attribute of the main
 * graph's NodeProtos, a nested one seen through its If; attributes of
 * other kinds, plain nodes, none. */
static bool imports_subgraphs(const char *text)
{
    Source *src = source_from_string("t.onnxtxt", text, strlen(text));
    graft_diag *d = diag_new(stderr);
    OnnxModel *m = onnx_import(onnx_text_read(src, NULL, d), "t.onnxtxt", d);
    ck_assert_ptr_nonnull(m);
    bool subgraphs = m->subgraphs;
    onnx_graph_free(m);
    diag_free(d);
    source_free(src);
    return subgraphs;
}

START_TEST(test_subgraphs_noted)
{
    const char *head = "<\n  ir_version: 8,\n  opset_import: [\"\" : 17]\n>\n";
    char text[1024];
    snprintf(text, sizeof text, "%s%s", head,
             "g (float[2] x) => (float[2] y) {\n  u = Neg (x)\n  y = Abs (u)\n}\n");
    ck_assert(!imports_subgraphs(text));
    snprintf(text, sizeof text, "%s%s", head,
             "g (float[2] x) => (float[2] y) {\n"
             "  y = Softmax <axis: int = 0> (x)\n}\n");
    ck_assert(!imports_subgraphs(text));
    snprintf(text, sizeof text, "%s%s", head,
             "g (bool c, float[2] x) => (float[2] y) {\n  u = Neg (x)\n"
             "  y = If (c) <then_branch: graph = t () => (float[2] a) {\n    a = Exp (u)\n"
             "  }, else_branch: graph = e () => (float[2] b) {\n    b = Neg (u)\n  }>\n}\n");
    ck_assert(imports_subgraphs(text));
}
END_TEST

/* note [tables estimated]: a NodeProto of 40 results makes more values
 * than the values' table was sized for (one a NodeProto, and at least 32:
 * room for 3 here); the table grows past them, and every value named
 * before and after is found, as the Add made last finds its operands. */
START_TEST(test_values_grow)
{
    enum { RESULTS = 40 };
    StrBuf text = {0};
    strbuf_printf(&text, "<\n  ir_version: 8,\n  opset_import: [\"\" : 18]\n>\n"
                         "g (float[%d] x) => (float[1] y) {\n  ", RESULTS);
    for (int k = 0; k < RESULTS; k++)
        strbuf_printf(&text, "%sv%d", k ? ", " : "", k);
    strbuf_printf(&text, " = Split <num_outputs = %d> (x)\n  y = Add (v0, v%d)\n}\n", RESULTS,
                  RESULTS - 1);
    Source *src = source_from_string("t.onnxtxt", text.data, text.len);
    graft_diag *d = diag_new(stderr);
    OnnxModel *m = onnx_import(onnx_text_read(src, NULL, d), "t.onnxtxt", d);
    ck_assert_ptr_nonnull(m);
    const graft_node *x = onnx_value_named(&m->values, graph_intern(m->g, "x"));
    ck_assert_ptr_eq(x, graph_param(m->g, 0));
    for (int k = 0; k < RESULTS; k++) {
        char name[8];
        snprintf(name, sizeof name, "v%d", k);
        const graft_node *v = onnx_value_named(&m->values, graph_intern(m->g, name));
        ck_assert_msg(v != NULL, "%s not found", name);
        ck_assert_int_eq(node_kind(v), NODE_GETITEM);
        ck_assert_ptr_eq(node_arg(node_arg(v, 0), 0), x);
    }
    const graft_node *y = onnx_value_named(&m->values, graph_intern(m->g, "y"));
    ck_assert_str_eq(node_op(y), "Add");
    ck_assert_str_eq(graph_value_name(m->g, node_arg(y, 0)), "v0");
    ck_assert_str_eq(graph_value_name(m->g, node_arg(y, 1)), "v39");
    onnx_graph_free(m);
    diag_free(d);
    source_free(src);
    strbuf_free(&text);
}
END_TEST

static Suite *decode_suite(void)
{
    Suite *s = suite_create("onnx_decode");
    TCase *tc = tcase_create("onnx_decode");
    tcase_add_test(tc, test_corpus_models);
    tcase_add_test(tc, test_odd_tensor);
    tcase_add_test(tc, test_oneof_twice);
    tcase_add_test(tc, test_scalar_types_known);
    tcase_add_test(tc, test_import_shares_types);
    tcase_add_test(tc, test_names_interned);
    tcase_add_test(tc, test_checks_agree);
    tcase_add_test(tc, test_ops_as_decoded);
    tcase_add_test(tc, test_values_by_address);
    tcase_add_test(tc, test_calls_typed_as_made);
    tcase_add_test(tc, test_ops_as_imported);
    tcase_add_test(tc, test_plain_nodes);
    tcase_add_test(tc, test_origins_grow);
    tcase_add_test(tc, test_kept_values);
    tcase_add_test(tc, test_subgraphs_noted);
    tcase_add_test(tc, test_values_grow);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run_suite(decode_suite());
}
