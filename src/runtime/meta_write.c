/* meta_write.c - folded values into a Relay module's "#[metadata]"
 * section (note [meta constants] in fold.h).
 *
 * The section is TVM's SaveJSON of the printer's meta map (apache/tvm
 * v0.14.0: tvm/src/relay/printer/meta_data.h GetMetaSection,
 * tvm/src/node/serialization.cc JSONGraph and JSONNode::Save), read by
 * eval_meta.c (note [metadata values]).  A new constant k is one more
 * index in the relay.Constant Array's "data", one more relay.Constant
 * node whose attrs (sorted by name, as the AttrMap is a std::map) point
 * "data" at one more "b64ndarrays" entry and leave the object fields null
 * ("0": TVM's parser types the constant again), and that entry: the
 * NDArray as runtime::SaveDLTensor writes it
 * (tvm/include/tvm/runtime/ndarray.h), in base64 with '=' padding
 * (tvm/src/support/base64.h).  The
 * section's own bytes are kept and the new text inserted after the last
 * entry of each list, so every constant it had keeps its index: TVM's
 * printer renumbers meta constants by first use and drops the unused
 * ones, graft does not (an entry nothing reads costs TVM's parser
 * nothing).  A module without a section gets one in the form TVM's
 * printer writes (dmlc's JSONWriter: two-space indents, ", " then a
 * newline between members).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "eval.h"
#include "fold.h"

int64_t fold_meta_base(const graft_graph *g, const EvalMeta *m, const char **why)
{
    EvalMetaLayout at;
    const char *no = graph_metadata(g) ? eval_meta_layout(m, &at) : NULL;
    if (why)
        *why = no;
    return no ? -1 : graph_metadata(g) ? at.nconstants : 0;
}

/* ---- one NDArray ---- */

static void put_le(StrBuf *out, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        strbuf_putc(out, (char)(v >> (8 * i) & 0xff));
}

/* DLPack's type code and bits of a dtype (kDLInt 0, kDLUInt 1, kDLFloat 2,
 * kDLBfloat 4; bool is a 1-bit uint, stored a byte each). */
static void dl_type(const char *dtype, unsigned *code, unsigned *bits)
{
    DType d = dtype_from_name(dtype);
    *bits = (unsigned)dtype_size(d) * 8;
    if (strcmp(dtype, "bool") == 0)
        *code = 1, *bits = 1;
    else if (strcmp(dtype, "bfloat16") == 0)
        *code = 4;
    else
        *code = dtype[0] == 'f' ? 2 : dtype[0] == 'u' ? 1 : 0;
}

/* SaveDLTensor's bytes of constant c: magic, reserved, the CPU device,
 * rank, dtype, dims, byte count, the elements. */
static void ndarray_bytes(const graft_node *c, StrBuf *out)
{
    const graft_type *t = node_type(c);
    size_t nbytes;
    const unsigned char *data = node_const_data(c, &nbytes);
    unsigned code, bits;
    dl_type(t->dtype, &code, &bits);
    put_le(out, 0xDD5E40F096B4A13Full, 8);
    put_le(out, 0, 8);
    put_le(out, 1, 4); /* kDLCPU */
    put_le(out, 0, 4);
    put_le(out, (uint64_t)t->rank, 4);
    put_le(out, code, 1);
    put_le(out, bits, 1);
    put_le(out, 1, 2); /* lanes */
    for (int i = 0; i < t->rank; i++)
        put_le(out, (uint64_t)t->dims[i], 8);
    put_le(out, nbytes, 8);
    strbuf_append(out, (const char *)data, nbytes);
}

static void put_base64(StrBuf *out, const unsigned char *b, size_t n)
{
    static const char digits[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        uint32_t w = (uint32_t)b[i] << 16 | (i + 1 < n ? (uint32_t)b[i + 1] << 8 : 0) |
                     (i + 2 < n ? b[i + 2] : 0);
        strbuf_putc(out, digits[w >> 18]);
        strbuf_putc(out, digits[w >> 12 & 63]);
        strbuf_putc(out, i + 1 < n ? digits[w >> 6 & 63] : '=');
        strbuf_putc(out, i + 2 < n ? digits[w & 63] : '=');
    }
}

/* ---- the section's text ---- */

typedef VEC(graft_node *) NodeList;

/* The pieces for constants made: the Array's indices, the nodes, the
 * arrays, each entry preceded by sep (", " and the list's indent). */
typedef struct Pieces {
    StrBuf list, nodes, arrays;
} Pieces;

static void make_pieces(const NodeList *made, const EvalMetaLayout *at, Pieces *p)
{
    StrBuf bytes = {0};
    for (size_t i = 0; i < made->len; i++) {
        int64_t node = at->nnodes + (int64_t)i, array = at->narrays + (int64_t)i;
        strbuf_printf(&p->list, "%s%lld", at->nconstants + (int64_t)i ? ", " : "",
                      (long long)node);
        strbuf_printf(&p->nodes, "%s\n    {\n      \"type_key\": \"relay.Constant\", \n"
                                 "      \"attrs\": {\n        \"_checked_type_\": \"0\", \n"
                                 "        \"data\": \"%lld\", \n        \"span\": \"0\", \n"
                                 "        \"virtual_device_\": \"0\"\n      }\n    }",
                      node ? ", " : "", (long long)array);
        strbuf_printf(&p->arrays, "%s\n    \"", array ? ", " : "");
        bytes.len = 0;
        ndarray_bytes(made->items[i], &bytes);
        put_base64(&p->arrays, (const unsigned char *)bytes.data, bytes.len);
        strbuf_putc(&p->arrays, '"');
    }
    if (at->narrays == 0)
        strbuf_puts(&p->arrays, "\n  ");
    strbuf_free(&bytes);
}

/* A section of the made constants alone, as TVM's printer writes one. */
static void new_section(const NodeList *made, StrBuf *out)
{
    EvalMetaLayout at = {.nnodes = 3};
    Pieces p = {0};
    make_pieces(made, &at, &p);
    strbuf_puts(out, "#[metadata]\n{\n  \"root\": 1, \n  \"nodes\": [\n    {\n"
                     "      \"type_key\": \"\"\n    }, \n    {\n      \"type_key\": \"Map\", \n"
                     "      \"keys\": [\n        \"relay.Constant\"\n      ], \n"
                     "      \"data\": [2]\n    }, \n    {\n      \"type_key\": \"Array\", \n"
                     "      \"data\": [");
    strbuf_append(out, p.list.data, p.list.len);
    strbuf_puts(out, "]\n    }");
    strbuf_append(out, p.nodes.data, p.nodes.len);
    strbuf_puts(out, "\n  ], \n  \"b64ndarrays\": [");
    strbuf_append(out, p.arrays.data, p.arrays.len);
    strbuf_puts(out, "], \n  \"attrs\": {\"tvm_version\": \"0.14.0\"}\n}\n");
    strbuf_free(&p.list);
    strbuf_free(&p.nodes);
    strbuf_free(&p.arrays);
}

/* The section text with the made constants inserted after its own. */
static void grown_section(const char *text, const NodeList *made, const EvalMetaLayout *at,
                          StrBuf *out)
{
    Pieces p = {0};
    make_pieces(made, at, &p);
    const size_t cuts[] = {at->list_at, at->nodes_at, at->arrays_at, strlen(text)};
    const StrBuf *adds[] = {&p.list, &p.nodes, &p.arrays};
    size_t from = 0;
    for (int i = 0; i < 4; i++) {
        strbuf_append(out, text + from, cuts[i] - from);
        if (i < 3)
            strbuf_append(out, adds[i]->data, adds[i]->len);
        from = cuts[i];
    }
    strbuf_free(&p.list);
    strbuf_free(&p.nodes);
    strbuf_free(&p.arrays);
}

/* ---- committing ---- */

/* The index of a meta constant made by a fold (its bytes are known and
 * it is past the section's entries), else -1. */
static int64_t made_index(const graft_node *n, int64_t base)
{
    size_t nbytes;
    long long index;
    if (node_kind(n) != NODE_CONST || node_const_is_scalar(n) || !node_const_data(n, &nbytes) ||
        sscanf(node_const_text(n), "meta[relay.Constant][%lld]", &index) != 1)
        return -1;
    return index >= base ? index : -1;
}

/* The live constants made, by index (a fold's in the order made). */
static void collect_made(graft_graph *g, int64_t base, NodeList *made)
{
    graft_node **order = xcalloc((size_t)graph_node_count(g) + 1, sizeof *order);
    uint32_t n = graph_topo_order(g, order);
    for (uint32_t k = 0; k < n; k++) {
        if (made_index(order[k], base) < 0)
            continue;
        size_t i = made->len;
        vec_push(made, order[k]);
        for (; i > 0 && made_index(made->items[i - 1], base) > made_index(order[k], base); i--)
            made->items[i] = made->items[i - 1];
        made->items[i] = order[k];
    }
    free(order);
}

/* Constant i of the made ones becomes meta[relay.Constant][base + i]:
 * one whose number a dropped fold left free is made again under it. */
static void renumber(graft_graph *g, NodeList *made, int64_t base)
{
    for (size_t i = 0; i < made->len; i++) {
        graft_node *n = made->items[i];
        if (made_index(n, base) == base + (int64_t)i)
            continue;
        StrBuf name = {0};
        strbuf_printf(&name, "meta[relay.Constant][%lld]", (long long)(base + (int64_t)i));
        size_t nbytes;
        const void *bytes = node_const_data(n, &nbytes);
        graft_node *c = graph_add_tensor_const(g, name.data, node_type(n), bytes, nbytes);
        graph_set_annotation(g, c, node_annotation(g, n));
        graph_replace_all_uses(g, n, c);
        made->items[i] = c;
        strbuf_free(&name);
    }
}

void fold_meta_commit(graft_graph *g)
{
    if (graph_ir(g) != IR_RELAY)
        return;
    const char *text = graph_metadata(g);
    EvalMeta *m = eval_meta_new(text);
    EvalMetaLayout at = {0};
    int64_t base = fold_meta_base(g, m, NULL);
    NodeList made = {0};
    if (base >= 0)
        collect_made(g, base, &made);
    if (made.len) {
        renumber(g, &made, base);
        StrBuf out = {0};
        if (text && !eval_meta_layout(m, &at))
            grown_section(text, &made, &at, &out);
        else
            new_section(&made, &out);
        graph_set_metadata(g, out.data, out.len);
        strbuf_free(&out);
    }
    vec_free(&made);
    eval_meta_free(m);
}
