/* graft_api_model.c - loading a model of either IR (graft.h, graft_api.h):
 * the first bytes tell Relay text from ONNX text or bytes, and each goes
 * to its loader.  Only Relay's exists yet; an ONNX model gets an error
 * that says so, through the diagnostics like any other. */
#include "graft.h"
#include "graft_api.h"

#include <string.h>

#include "diag.h"
#include "graph.h"
#include "relay.h"

/* Bytes looked at to tell the kinds apart. */
enum { KIND_WINDOW = 4096 };

/* Whether data holds a byte no text has: protobuf's field tags and
 * lengths. */
static bool has_binary(const unsigned char *p, size_t len)
{
    for (size_t i = 0; i < len && i < KIND_WINDOW; i++)
        if (p[i] < 0x20 && !strchr("\t\n\v\f\r", p[i]))
            return true;
    return false;
}

/* Past blanks and comments (// and / * * / of Relay, # lines of ONNX
 * text, not Relay's #[version]). */
static size_t skip_blanks(const char *p, size_t len)
{
    size_t i = 0;
    while (i < len) {
        if (strchr(" \t\n\v\f\r", p[i]))
            i++;
        else if (p[i] == '#' && (i + 1 == len || p[i + 1] != '['))
            while (i < len && p[i] != '\n')
                i++;
        else if (len - i >= 2 && p[i] == '/' && p[i + 1] == '/')
            while (i < len && p[i] != '\n')
                i++;
        else if (len - i >= 2 && p[i] == '/' && p[i + 1] == '*') {
            i += 2;
            while (i + 1 < len && !(p[i] == '*' && p[i + 1] == '/'))
                i++;
            i += 2;
        } else
            break;
    }
    return i < len ? i : len;
}

static bool starts(const char *p, size_t len, const char *word)
{
    size_t n = strlen(word);
    return len >= n && memcmp(p, word, n) == 0;
}

graft_model_kind graft_model_kind_of(const void *data, size_t len)
{
    if (!data || len == 0)
        return GRAFT_MODEL_UNKNOWN;
    if (has_binary(data, len))
        return GRAFT_MODEL_ONNX_BYTES;
    const char *p = data;
    size_t at = skip_blanks(p, len);
    p += at;
    len -= at;
    if (starts(p, len, "#[") || starts(p, len, "def @") || starts(p, len, "fn (") ||
        starts(p, len, "fn(") || starts(p, len, "type "))
        return GRAFT_MODEL_RELAY;
    if (starts(p, len, "<") || starts(p, len, "ir_version"))
        return GRAFT_MODEL_ONNX_TEXT;
    return GRAFT_MODEL_UNKNOWN;
}

/* The graph of src, which it does not keep.  Text of no known kind goes
 * to the Relay loader, whose syntax errors say the most about it. */
static graft_graph *load_source(Source *src, const graft_limits *lim, graft_diag *d)
{
    if (!src)
        return NULL;
    graft_graph *g = NULL;
    switch (graft_model_kind_of(src->text, src->len)) {
    case GRAFT_MODEL_ONNX_BYTES:
        diag_plain_error(d, "'%s' is an ONNX model (protobuf bytes): ONNX models are not "
                         "yet supported; this graft reads Relay text", src->name);
        break;
    case GRAFT_MODEL_ONNX_TEXT:
        diag_error(d, src, source_range(src, skip_blanks(src->text, src->len),
                                        skip_blanks(src->text, src->len) + 1),
                   "an ONNX model in text form: ONNX models are not yet supported; this "
                   "graft reads Relay text");
        break;
    default:
        g = relay_load_limited(src, lim, d);
    }
    source_free(src);
    return g;
}

graft_graph *graft_model_load(const char *path, const graft_limits *lim, graft_diag *d)
{
    return load_source(source_read(path, d), lim, d);
}

graft_graph *graft_model_parse(const char *name, const char *text, size_t len,
                               const graft_limits *lim, graft_diag *d)
{
    return load_source(source_from_string(name, text, len), lim, d);
}

void graft_model_free(graft_graph *g)
{
    graph_free(g);
}

void graft_model_print(const graft_graph *g, FILE *out)
{
    relay_print(g, out);
}

char *graft_model_print_string(const graft_graph *g)
{
    return relay_print_string(g);
}
