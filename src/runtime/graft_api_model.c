/* graft_api_model.c - loading a model of either IR (graft.h, graft_api.h):
 * the first bytes tell Relay text from ONNX text or bytes, and each goes
 * to its loader; a model is written back in the form it came in (ONNX:
 * graft_api_onnx.c). */
#include "graft.h"
#include "graft_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "graft_api_onnx.h"
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
        g = api_onnx_load(src, false, lim, d);
        break;
    case GRAFT_MODEL_ONNX_TEXT:
        g = api_onnx_load(src, true, lim, d);
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
    return load_source(source_from_string(name, text ? text : "", text ? len : 0), lim, d);
}

void graft_model_free(graft_graph *g)
{
    if (api_onnx_is(g))
        api_onnx_free(g);
    else
        graph_free(g);
}

graft_model_kind graft_model_form(const graft_graph *g)
{
    if (!api_onnx_is(g))
        return GRAFT_MODEL_RELAY;
    return api_onnx_text(g) ? GRAFT_MODEL_ONNX_TEXT : GRAFT_MODEL_ONNX_BYTES;
}

void *graft_model_write(const graft_graph *g, size_t *len, graft_diag *d)
{
    size_t n = 0;
    char *data;
    if (api_onnx_is(g)) {
        data = api_onnx_string(g, api_onnx_text(g), &n, d);
    } else {
        data = relay_print_string(g);
        n = strlen(data);
    }
    if (len)
        *len = n;
    return data;
}

void graft_model_print(const graft_graph *g, FILE *out)
{
    if (!api_onnx_is(g)) {
        relay_print(g, out);
        return;
    }
    graft_diag *d = diag_new(stderr);
    size_t len;
    char *text = api_onnx_string(g, true, &len, d);
    if (text)
        fwrite(text, 1, len, out);
    free(text);
    diag_free(d);
}

char *graft_model_print_string(const graft_graph *g)
{
    if (!api_onnx_is(g))
        return relay_print_string(g);
    graft_diag *d = diag_new(NULL); /* counted, not printed */
    size_t len;
    char *text = api_onnx_string(g, true, &len, d);
    diag_free(d);
    return text;
}
