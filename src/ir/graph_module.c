/* graph_module.c - the module text around @main that the printer keeps:
 * the version line, the Prelude's type declarations, the metadata
 * section, and @main's name and result type. */
#include "graph.h"

#include "graph_impl.h"
#include "util.h"

const char *graph_version(const Graph *g)
{
    return g->version;
}

void graph_set_version(Graph *g, const char *text)
{
    g->version = text ? arena_strdup(g->arena, text) : NULL;
}

int graph_ntypedefs(const Graph *g)
{
    return g->ntypedefs;
}

const char *graph_typedef(const Graph *g, int i)
{
    return g->typedefs[i];
}

void graph_add_typedef(Graph *g, const char *text, size_t len)
{
    xgrow((void **)&g->typedefs, &g->cap_typedefs, (size_t)g->ntypedefs + 1,
          sizeof(char *));
    g->typedefs[g->ntypedefs++] = arena_strndup(g->arena, text, len);
}

const char *graph_metadata(const Graph *g)
{
    return g->metadata;
}

void graph_set_metadata(Graph *g, const char *text, size_t len)
{
    g->metadata = text ? arena_strndup(g->arena, text, len) : NULL;
}

const char *graph_name(const Graph *g)
{
    return g->name;
}

void graph_set_name(Graph *g, const char *name)
{
    g->name = graph_intern(g, name);
}

const Type *graph_ret_type(const Graph *g)
{
    return g->ret;
}

void graph_set_graph_ret_type(Graph *g, const Type *type)
{
    g->ret = type;
}
