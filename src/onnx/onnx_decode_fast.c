/* onnx_decode_fast.c - a ValueInfoProto of the common shape read
 * straight into protobuf-c's structs (note [common value info] in
 * onnx_decode_fast.h). */
#include "onnx_decode_fast.h"

#include <stdbool.h>
#include <string.h>

#include "keymap.h" /* hash_begin, hash_word, hash_end, bytes_tail, bytes_equal */

/* The bytes left to read of one message: [p, end). */
typedef struct Cursor {
    const uint8_t *p;
    const uint8_t *end;
} Cursor;

/* A varint of at most max bytes in its shortest form (one byte, or a
 * last byte that adds bits), inside c, into *v; false otherwise.  One
 * byte, the length of every name and the most of other values, is taken
 * before the loop (which cost it 15 instructions, bench/onnx_e2e.sh). */
static inline bool take_shortest(Cursor *c, unsigned max, uint64_t *v)
{
    if (c->p < c->end && *c->p < 0x80) {
        *v = *c->p++;
        return true;
    }
    uint64_t x = 0;
    for (unsigned i = 0; i < max && c->p < c->end; i++) {
        uint8_t byte = *c->p++;
        x |= (uint64_t)(byte & 0x7f) << (7 * i);
        if (!(byte & 0x80)) {
            *v = x;
            return i == 0 || byte != 0;
        }
    }
    return false;
}

/* The key byte key next in c, then a shortest length prefix whose bytes
 * lie inside c: *body the cursor over them, c moved past them.  Inline
 * (with take_shortest): every string of a common node is taken here, and
 * the calls cost 120 instructions a node (bench/onnx_e2e.sh). */
static inline bool take_len(Cursor *c, uint8_t key, Cursor *body)
{
    uint64_t len;
    if (c->p == c->end || *c->p != key)
        return false;
    c->p++;
    if (!take_shortest(c, 5, &len) || len > (uint64_t)(c->end - c->p))
        return false;
    *body = (Cursor){c->p, c->p + len};
    c->p += len;
    return true;
}

/* Whether the n bytes at p hold no NUL, and if so their interner_hash
 * (arena.h) in *hash: one walk over their words for both, each word
 * tested for a zero byte ((w - ones) & ~w & highs is not 0 iff a byte of
 * w is 0) as it is hashed, in hash_bytes's steps.  The last 1 to 7 bytes
 * are a word read whole when eight bytes from them lie before limit (the
 * end of the message the string is in), the bytes after them masked: 0
 * for the hash, 0xff for the test; else they are read in fixed-size
 * pieces.  Inline: every string of a common node and value is tested and
 * interned, and hashing it again in the interner cost 40 instructions a
 * string of bench/onnx_e2e.sh's model (names of a few bytes), testing it
 * apart, in a walk of its own, 15, its last bytes in pieces 8 more. */
static inline bool hash_without_nul(const uint8_t *p, size_t n, const uint8_t *limit,
                                    uint32_t *hash)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t h = hash_begin(n, 0), w;
    for (; n >= 8; p += 8, n -= 8) {
        memcpy(&w, p, 8);
        if ((w - ones) & ~w & highs)
            return false;
        h = hash_word(h, HASH_LE64(w));
    }
    if (n) {
        uint64_t kept = ((uint64_t)1 << (8 * n)) - 1; /* its bytes, in the word's order */
        if ((size_t)(limit - p) >= 8)
            memcpy(&w, p, 8), w = HASH_LE64(w) & kept;
        else
            w = HASH_LE64(bytes_tail(p, n, 0));
        uint64_t tested = w | ~kept;
        if ((tested - ones) & ~tested & highs)
            return false;
        h = hash_word(h, w);
    }
    *hash = (uint32_t)hash_end(h);
    return true;
}

/* A string field's bytes, without NUL (the canonical form, note
 * [canonical spans] in onnx_span.h), as onnx_decode_string keeps them;
 * NULL if not. */
static inline char *take_string(Cursor *c, uint8_t key, const OnnxStrings *to)
{
    Cursor s;
    uint32_t hash;
    if (!take_len(c, key, &s) || !hash_without_nul(s.p, (size_t)(s.end - s.p), c->end, &hash))
        return NULL;
    return onnx_decode_string_hashed(to, s.p, (size_t)(s.end - s.p), hash);
}

/* One Dimension's fields, all of c: dim_value or dim_param. */
static bool read_dim(Cursor c, const OnnxStrings *to, Onnx__TensorShapeProto__Dimension *d)
{
    uint64_t v;
    onnx__tensor_shape_proto__dimension__init(d);
    if (c.p < c.end && *c.p == 0x08) { /* field 1, varint */
        c.p++;
        if (!take_shortest(&c, 9, &v) || v > INT64_MAX) /* (ten bytes: negative) */
            return false;
        d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        d->dim_value = (int64_t)v;
    } else {
        d->dim_param = take_string(&c, 0x12, to); /* field 2 */
        if (!d->dim_param)
            return false;
        d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
    }
    return c.p == c.end;
}

/* A TensorShapeProto's fields, all of c: its dims, each a field 1; the
 * first pass counts them, so the array is allocated at its size, as the
 * general path allocates it. */
static Onnx__TensorShapeProto *read_shape(Cursor c, const OnnxStrings *to)
{
    Arena *arena = to->arena;
    Onnx__TensorShapeProto *shape = arena_alloc_raw(arena, sizeof *shape); /* (inited whole) */
    onnx__tensor_shape_proto__init(shape);
    Cursor dim;
    for (Cursor count = c; count.p < count.end; shape->n_dim++)
        if (!take_len(&count, 0x0a, &dim))
            return NULL;
    if (shape->n_dim == 0)
        return shape;
    shape->dim = arena_array(arena, shape->n_dim, sizeof *shape->dim);
    for (size_t i = 0; i < shape->n_dim; i++) {
        shape->dim[i] = arena_alloc_raw(arena, sizeof *shape->dim[i]); /* (inited whole) */
        if (!take_len(&c, 0x0a, &dim) || !read_dim(dim, to, shape->dim[i]))
            return NULL; /* (take_len: never, the dims were counted above) */
    }
    return shape;
}

/* A TypeProto.Tensor's fields, all of c: elem_type, then a shape or none. */
static Onnx__TypeProto__Tensor *read_tensor(Cursor c, const OnnxStrings *to)
{
    uint64_t elem;
    if (c.p == c.end || *c.p++ != 0x08 || !take_shortest(&c, 5, &elem) || elem > INT32_MAX)
        return NULL;
    Onnx__TypeProto__Tensor *t = arena_alloc_raw(to->arena, sizeof *t); /* (inited whole) */
    onnx__type_proto__tensor__init(t);
    t->has_elem_type = 1;
    t->elem_type = (int32_t)elem;
    Cursor shape;
    if (c.p == c.end)
        return t;
    if (!take_len(&c, 0x12, &shape) || c.p != c.end || !(t->shape = read_shape(shape, to)))
        return NULL;
    return t;
}

/* A TypeProto's fields, all of c: a tensor_type and nothing else.  Out
 * of line: the memo has most (note [shared value types]), and inline its
 * registers were saved on every value. */
static __attribute__((noinline)) Onnx__TypeProto *read_type(Cursor c, const OnnxStrings *to)
{
    Cursor tensor;
    if (!take_len(&c, 0x0a, &tensor) || c.p != c.end)
        return NULL;
    Onnx__TypeProto *type = arena_alloc_raw(to->arena, sizeof *type); /* (inited whole) */
    onnx__type_proto__init(type);
    type->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    type->tensor_type = read_tensor(tensor, to);
    return type->tensor_type ? type : NULL;
}

/* The TypeProto of the bytes at c: memo's, or read (and kept in memo,
 * when there is one). */
static Onnx__TypeProto *shared_type(Cursor c, const OnnxStrings *to, OnnxTypeMemo *memo)
{
    size_t len = (size_t)(c.end - c.p);
    for (unsigned i = 0; memo && i < ONNX_TYPE_MEMO; i++)
        if (memo->recent[i].type && memo->recent[i].len == len &&
            bytes_equal(memo->recent[i].bytes, c.p, len))
            return memo->recent[i].type;
    Onnx__TypeProto *type = read_type(c, to);
    if (memo && type) {
        memo->recent[memo->next].bytes = c.p;
        memo->recent[memo->next].len = len;
        memo->recent[memo->next].type = type;
        memo->next = (memo->next + 1) % ONNX_TYPE_MEMO;
    }
    return type;
}

Onnx__ValueInfoProto *onnx_decode_common_value_memo(const uint8_t *data, size_t len,
                                                    const OnnxStrings *to, OnnxTypeMemo *memo)
{
    Cursor c = {data, data + len}, type;
    char *name = take_string(&c, 0x0a, to); /* field 1 */
    if (!name || !take_len(&c, 0x12, &type) || c.p != c.end) /* field 2, the last */
        return NULL;
    Onnx__ValueInfoProto *vi = arena_alloc_raw(to->arena, sizeof *vi);
    *vi = (Onnx__ValueInfoProto)ONNX__VALUE_INFO_PROTO__INIT; /* (stores, not a call) */
    vi->name = name;
    vi->type = shared_type(type, to, memo);
    return vi->type ? vi : NULL;
}

Onnx__ValueInfoProto *onnx_decode_common_value(const uint8_t *data, size_t len, Arena *arena)
{
    return onnx_decode_common_value_memo(data, len, &(OnnxStrings){arena, NULL, NULL}, NULL);
}

/* The numbers of a NodeProto's string fields, a bit each: input 1, output
 * 2, name 3, op_type 4, doc_string 6, domain 7 (5: an attribute). */
enum { STRING_FIELDS = 1 << 1 | 1 << 2 | 1 << 3 | 1 << 4 | 1 << 6 | 1 << 7 };

/* Whether key, after a field numbered last, is that of a string field of
 * note [common node]'s form: one byte, length-delimited, in field-number
 * order (input 1 and output 2 repeated). */
static inline bool node_key_fits(uint8_t key, unsigned last)
{
    unsigned number = key >> 3; /* a key of several bytes: above 7 */
    bool string = (STRING_FIELDS >> number) & 1;
    return (key & 7) == 2 && string && number >= last && (number > last || number <= 2);
}

/* The string field whose key is next in c, of note [common node]'s form
 * after a field numbered last: its bytes *s (c moved past them) and their
 * interner_hash; false when not. */
static inline bool take_node_string(Cursor *c, unsigned last, Cursor *s, uint32_t *hash)
{
    uint8_t key = *c->p;
    return node_key_fits(key, last) && take_len(c, key, s) &&
           hash_without_nul(s->p, (size_t)(s->end - s->p), c->end, hash);
}

/* The bytes s, of interner_hash hash, as onnx_decode_string keeps them. */
static char *copy_string(Cursor s, uint32_t hash, const OnnxStrings *to)
{
    return onnx_decode_string_hashed(to, s.p, (size_t)(s.end - s.p), hash);
}

/* The first of the n bytes at s, up to eight, as a little-endian word
 * (0 past them), read whole when eight bytes from s lie before limit. */
static inline uint64_t string_head(const uint8_t *s, size_t n, const uint8_t *limit)
{
    uint64_t w;
    if (n >= 8 || (size_t)(limit - s) >= 8) {
        memcpy(&w, s, 8);
        w = HASH_LE64(w);
        return n >= 8 ? w : w & (((uint64_t)1 << (8 * n)) - 1);
    }
    return n ? HASH_LE64(bytes_tail(s, n, 0)) : 0;
}

/* op_name's miss: the bytes s, not in slot of to->ops, hashed, tested for
 * a NUL and kept there (out of line: a few times a model). */
static __attribute__((noinline)) char *op_name_missed(Cursor s, const uint8_t *limit,
                                                      const OnnxStrings *to, size_t slot,
                                                      uint64_t head)
{
    size_t n = (size_t)(s.end - s.p);
    uint32_t hash;
    if (!hash_without_nul(s.p, n, limit, &hash))
        return NULL;
    OnnxOpMemo *memo = to->ops;
    memo->name[slot] = copy_string(s, hash, to);
    memo->len[slot] = n;
    memo->head[slot] = head;
    return (char *)memo->name[slot];
}

/* An op_type's bytes s, inside a message ending at limit, interned
 * through to->ops (note [op name memo]); NULL when a NUL is among them.
 * The memo's hit is inline in the node's loop (a call's saved registers
 * were a third of it); its miss is op_name_missed. */
GRAFT_HOT char *op_name(Cursor s, const uint8_t *limit, const OnnxStrings *to)
{
    size_t n = (size_t)(s.end - s.p);
    uint64_t head = string_head(s.p, n, limit);
    OnnxOpMemo *memo = to->ops;
    size_t slot = cache_slot(head ^ n, ONNX_OP_MEMO_BITS);
    if (memo->name[slot] && memo->len[slot] == n && memo->head[slot] == head &&
        (n <= 8 || bytes_equal(memo->name[slot] + 8, s.p + 8, n - 8)))
        return (char *)memo->name[slot]; /* (no NUL: the memo's names have none) */
    return op_name_missed(s, limit, to, slot, head);
}

/* The string s of field number, of interner_hash hash, as node stores it
 * (an op_type through to->ops, when there is one). */
static char *node_string(Cursor s, unsigned number, uint32_t hash, const OnnxStrings *to)
{
    bool memo = number == 4 && to->ops && to->names;
    return memo ? op_name(s, s.end, to) : copy_string(s, hash, to);
}

/* note [node in one pass]: a node's inputs and outputs, the strings of
 * most nodes, go to arrays allocated at their counts, which are known
 * only at the end of its bytes.  The first form read the node twice, the
 * first pass keeping each string's field number, place and hash for the
 * second.  Now each string is stored as it is read, the inputs and
 * outputs (together at most FEW_LISTED of them) in one array on the
 * stack, in their order, copied at the end to one block of the node's
 * (its outputs after its inputs), the node itself allocated only then:
 * 105 instructions a node fewer on the workload.  A node of more has its
 * strings counted and read again. */
enum { FEW_LISTED = 16 };

/* The inputs and outputs read so far, and the node's other strings. */
typedef struct NodeStrings {
    char *listed[FEW_LISTED]; /* its inputs, then its outputs */
    size_t counts[2];         /* of each */
    char *name, *op_type, *doc_string, *domain;
} NodeStrings;

/* Where in ns a string of field number that is not an input or an output
 * goes. */
static inline char **single_string(NodeStrings *ns, unsigned number)
{
    switch (number) {
    case 3:
        return &ns->name;
    case 4:
        return &ns->op_type;
    case 6:
        return &ns->doc_string;
    default: /* 7, node_key_fits saw to it */
        return &ns->domain;
    }
}

/* note [node's fields in order]: note [common node]'s form is the six
 * string fields in field-number order, inputs and outputs repeated and
 * the others at most once, each key one byte: a sequence, which
 * read_node_once reads as one, a loop for the inputs' key (0x0a), one for
 * the outputs' (0x12), then each other key at most once, the bytes left
 * over not of the form.  (A loop over the fields asking each key where it
 * may stand after the one before, node_key_fits, took 37 instructions a
 * node more of issue 34's workload.)  scan_node and read_node_again, for
 * a node of more than FEW_LISTED strings, still read it by that test. */
enum { KEY_INPUT = 0x0a, KEY_OUTPUT = 0x12, KEY_NAME = 0x1a, KEY_OP_TYPE = 0x22,
       KEY_DOC_STRING = 0x32, KEY_DOMAIN = 0x3a };

/* The strings of key next in c, a run, into ns->listed after those there
 * (listed of them), each counted in *count; 1 when read, 0 when one is
 * not of the form, -1 when there are more than FEW_LISTED in all. */
static inline int read_listed(Cursor *c, uint8_t key, const OnnxStrings *to, NodeStrings *ns,
                              size_t listed, size_t *count)
{
    Cursor s;
    uint32_t hash;
    for (; c->p < c->end && *c->p == key; listed++, (*count)++) {
        if (!take_len(c, key, &s) ||
            !hash_without_nul(s.p, (size_t)(s.end - s.p), c->end, &hash))
            return 0;
        if (listed == FEW_LISTED)
            return -1;
        ns->listed[listed] = copy_string(s, hash, to);
    }
    return 1;
}

/* read_single's string, whose key is next in c (out of line: most nodes
 * have none but their op_type). */
static __attribute__((noinline)) bool read_single_there(Cursor *c, uint8_t key,
                                                        const OnnxStrings *to, char **to_string)
{
    Cursor s;
    uint32_t hash;
    if (!take_len(c, key, &s) || !hash_without_nul(s.p, (size_t)(s.end - s.p), c->end, &hash))
        return false;
    *to_string = copy_string(s, hash, to);
    return true;
}

/* The string of key, when it is next in c, into *to_string; false when
 * it is there and not of the form. */
GRAFT_HOT bool read_single(Cursor *c, uint8_t key, const OnnxStrings *to, char **to_string)
{
    return c->p == c->end || *c->p != key || read_single_there(c, key, to, to_string);
}

/* The op_type, when it is next in c, into ns: through to->ops when there
 * is a memo, not hashed when the memo has it (note [op name memo]);
 * false when it is there and not of the form. */
static inline bool read_op_type(Cursor *c, const OnnxStrings *to, NodeStrings *ns)
{
    Cursor s;
    if (!(to->ops && to->names))
        return read_single(c, KEY_OP_TYPE, to, &ns->op_type);
    if (c->p == c->end || *c->p != KEY_OP_TYPE)
        return true;
    return take_len(c, KEY_OP_TYPE, &s) && (ns->op_type = op_name(s, c->end, to));
}

/* A NodeProto's fields, all of c, of note [common node]'s form, read in
 * one pass into ns (note [node in one pass], note [node's fields in
 * order]); 1 when read, 0 when not of that form, -1 when of more than
 * FEW_LISTED inputs and outputs. */
static int read_node_once(Cursor c, const OnnxStrings *to, NodeStrings *ns)
{
    int read = read_listed(&c, KEY_INPUT, to, ns, 0, &ns->counts[0]);
    if (read > 0)
        read = read_listed(&c, KEY_OUTPUT, to, ns, ns->counts[0], &ns->counts[1]);
    if (read <= 0)
        return read;
    bool fits = read_single(&c, KEY_NAME, to, &ns->name) && read_op_type(&c, to, ns) &&
                read_single(&c, KEY_DOC_STRING, to, &ns->doc_string) &&
                read_single(&c, KEY_DOMAIN, to, &ns->domain);
    return fits && c.p == c.end;
}

/* A NodeProto's fields, all of c, when of note [common node]'s form:
 * counts[0] its inputs, counts[1] its outputs.  False when not. */
static bool scan_node(Cursor c, size_t counts[2])
{
    unsigned last = 0;
    Cursor s;
    uint32_t hash;
    while (c.p < c.end) {
        unsigned number = *c.p >> 3;
        if (!take_node_string(&c, last, &s, &hash))
            return false;
        if (number <= 2)
            counts[number - 1]++;
        last = number;
    }
    return true;
}

/* The inputs and outputs of node, of counts, allocated at their size, in
 * one block (the outputs after the inputs, as the export makes a node). */
static void allocate_lists(Onnx__NodeProto *node, const size_t counts[2], Arena *arena)
{
    size_t listed = counts[0] + counts[1]; /* (below the node's bytes) */
    char **block = listed ? arena_alloc_raw(arena, listed * sizeof *block) : NULL;
    node->input = counts[0] ? block : NULL; /* (each element written after) */
    node->output = counts[1] ? block + counts[0] : NULL;
}

/* A node of more than FEW_LISTED inputs and outputs, its fields c (of
 * note [common node]'s form), read again: its inputs and outputs into
 * node's arrays (allocated at their counts), its other strings into ns. */
static void read_node_again(Cursor c, const OnnxStrings *to, Onnx__NodeProto *node,
                            NodeStrings *ns)
{
    Cursor s = c; /* (take_len sets it) */
    while (c.p < c.end) {
        uint8_t key = *c.p;
        unsigned number = key >> 3;
        take_len(&c, key, &s); /* (whole: scan_node saw it) */
        uint32_t hash = interner_hash((const char *)s.p, (size_t)(s.end - s.p));
        char *string = node_string(s, number, hash, to);
        if (number == 1)
            node->input[node->n_input++] = string;
        else if (number == 2)
            node->output[node->n_output++] = string;
        else
            *single_string(ns, number) = string;
    }
}

/* Copies the inputs and outputs ns read into node's block of them
 * (allocate_lists): most nodes have two to four, copied by a memcpy of
 * their constant size, which the compiler makes a few moves (a call of
 * memcpy was 20 instructions a node of the workload). */
static void copy_lists(Onnx__NodeProto *node, const NodeStrings *ns)
{
    node->n_input = ns->counts[0];
    node->n_output = ns->counts[1];
    char **block = node->input ? node->input : node->output;
    switch (ns->counts[0] + ns->counts[1]) {
    case 0:
        break;
    case 2:
        memcpy(block, ns->listed, 2 * sizeof *block);
        break;
    case 3:
        memcpy(block, ns->listed, 3 * sizeof *block);
        break;
    case 4:
        memcpy(block, ns->listed, 4 * sizeof *block);
        break;
    default:
        memcpy(block, ns->listed, (ns->counts[0] + ns->counts[1]) * sizeof *block);
        break;
    }
}

Onnx__NodeProto *onnx_decode_common_node(const uint8_t *data, size_t len,
                                         const OnnxStrings *to)
{
    Cursor c = {data, data + len};
    NodeStrings ns; /* (listed written before it is read) */
    ns.counts[0] = ns.counts[1] = 0;
    ns.name = ns.op_type = ns.doc_string = ns.domain = NULL;
    int read = read_node_once(c, to, &ns);
    if (read < 0) /* (counted again, and the rest of it checked) */
        ns.counts[0] = ns.counts[1] = 0;
    if (read == 0 || (read < 0 && !scan_node(c, ns.counts)))
        return NULL;
    Onnx__NodeProto *node = arena_alloc_raw(to->arena, sizeof *node);
    *node = (Onnx__NodeProto)ONNX__NODE_PROTO__INIT; /* (stores, not a call) */
    allocate_lists(node, ns.counts, to->arena);
    if (read < 0)
        read_node_again(c, to, node, &ns);
    else
        copy_lists(node, &ns);
    node->name = ns.name;
    node->op_type = ns.op_type;
    node->doc_string = ns.doc_string;
    node->domain = ns.domain;
    return node;
}
