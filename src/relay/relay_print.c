/* relay_print.c - TVM's canonical text for a graph: the module (its
 * version line and type definitions, its global functions in TVM's order,
 * @main, its metadata) and the entry points of relay.h.  The numbering
 * of temps, which decides most of the text, is in relay_print_number.c
 * (note [temp numbering]); the files of the printer are listed in
 * relay_print_impl.h. */
#include "relay_print_impl.h"

#include <stdlib.h>
#include <string.h>

static void put_module_head(StrBuf *out, const graft_graph *g)
{
    if (graph_version(g)) {
        out_str(out, graph_version(g));
        out_chr(out, '\n');
    }
    for (int i = 0; i < graph_ntypedefs(g); i++) {
        out_str(out, graph_typedef(g, i));
        out_lit(out, "\n\n");
    }
}

/* "def @main(%x: T, ...) -> T {" body "}", as TVM's PrintFunc. */
static void put_main(Printer *p, StrBuf *out)
{
    const graft_graph *g = p->g;
    if (graph_is_bare(g)) { /* note [bare module] in graph_module.c */
        if (graph_output(g))
            printer_put_scope(p, out, graph_output(g), 0);
        out_chr(out, '\n');
        return;
    }
    out_lit(out, "def @");
    out_str(out, graph_name(g));
    printer_put_type_params(out, graph_type_params(g));
    out_chr(out, '(');
    printer_put_params(p, out, graph_params(g), (size_t)graph_nparams(g));
    for (int i = 0; i < graph_main_nattrs(g); i++) {
        if (i || graph_nparams(g))
            out_lit(out, ", ");
        printer_put_attr(p, out, graph_main_attr(g, i));
    }
    out_lit(out, ") ");
    if (graph_ret_type(g))
    {
        out_lit(out, "-> ");
        out_str(out, graph_ret_type(g)->text);
        out_chr(out, ' ');
    }
    out_lit(out, "{\n");
    if (graph_output(g))
        printer_put_scope(p, out, graph_output(g), 1);
    out_lit(out, "\n}\n");
}

static void printer_init(Printer *p, const graft_graph *g)
{
    memset(p, 0, sizeof *p);
    p->g = g;
    p->root = NO_ROOT;
    p->next.b[0] = '0'; /* "%0" (note [temp texts] in relay_names.h) */
    p->next.b[7] = 2;
    size_t n = graph_node_count(g) ? graph_node_count(g) : 1;
    /* set when a text is kept or bound, a variable's when it is named
     * (note [printer memory] in relay_print_impl.h), so not zeroed: a
     * calloc below glibc's mmap threshold stores every byte */
    p->text = xmalloc(n * sizeof *p->text);
    var_names_init(&p->names, g, p->text);
    p->visited = xcalloc(n, 1);
}

static void printer_free(Printer *p)
{
    for (size_t i = 0; i < sizeof p->attrs / sizeof p->attrs[0]; i++)
        strbuf_free(&p->attrs[i].text);
    strbuf_free(&p->consts);
    vec_free(&p->frames);
    for (size_t i = 0; i < p->pending.len; i++)
        vec_push(&p->spare, p->pending.items[i].text);
    vec_free(&p->pending);
    for (size_t i = 0; i < p->spare.len; i++) {
        strbuf_free(p->spare.items[i]);
        free(p->spare.items[i]);
    }
    vec_free(&p->spare);
    free(p->text);
    free(p->visited);
    var_names_free(&p->names);
    adt_table_free(p->adts);
}

/* "def @f(...) { ... }" for a global function other than @main. */
static void put_def(Printer *p, StrBuf *out, const graft_node *fn, const char *name)
{
    StrBuf prefix = {0};
    strbuf_puts(&prefix, "def @");
    strbuf_puts(&prefix, name);
    printer_put_func(p, out, fn, prefix.data, 0);
    out_chr(out, '\n');
    strbuf_free(&prefix);
}

/* The definitions in TVM's order: sorted by name (TextPrinter::PrintMod
 * in tvm/src/relay/printer/text_printer.cc), one blank line between them;
 * the printer's temp numbers and names run on from one to the next. */
static void put_defs(Printer *p, StrBuf *out)
{
    const graft_graph *g = p->g;
    int n = graph_nglobals(g);
    if (n == 0) {
        put_main(p, out);
        return;
    }
    int *order = xmalloc((size_t)n * sizeof *order);
    for (int i = 0; i < n; i++) { /* insertion sort: modules have few */
        int k = i;
        for (; k > 0 && strcmp(graph_global_name(g, order[k - 1]),
                               graph_global_name(g, i)) > 0; k--)
            order[k] = order[k - 1];
        order[k] = i;
    }
    for (int k = 0; k < n; k++) {
        if (k)
            out_chr(out, '\n');
        graft_node *fn = graph_global_fn(g, order[k]);
        if (fn)
            put_def(p, out, fn, graph_global_name(g, order[k]));
        else
            put_main(p, out);
    }
    free(order);
}

/* Prints the whole module into out; the printer is left for inspection. */
static void print_module(Printer *p, StrBuf *out)
{
    p->top = out;
    put_module_head(out, p->g);
    put_defs(p, out);
    if (graph_metadata(p->g)) {
        out_chr(out, '\n');
        out_str(out, graph_metadata(p->g));
    }
}

static void print_types(Printer *p, unsigned flags)
{
    p->types = (flags & RELAY_PRINT_TYPES) != 0;
    p->comments = p->types || graph_has_annotations(p->g);
}

char *relay_print_string(const graft_graph *g)
{
    return relay_print_string_with(g, 0);
}

char *relay_print_string_with(const graft_graph *g, unsigned flags)
{
    Printer p;
    StrBuf out = {0};
    printer_init(&p, g);
    print_types(&p, flags);
    print_module(&p, &out);
    printer_free(&p);
    *out_room(&out, 0) = '\0';
    return out.data;
}

void relay_print(const graft_graph *g, FILE *out)
{
    relay_print_with(g, out, 0);
}

void relay_print_with(const graft_graph *g, FILE *out, unsigned flags)
{
    Printer p;
    StrBuf text = {0};
    printer_init(&p, g);
    print_types(&p, flags);
    p.sink = out;
    out_room(&text, 2 * DRAIN_AT);
    print_module(&p, &text);
    fwrite(text.data ? text.data : "", 1, text.len, out);
    strbuf_free(&text);
    printer_free(&p);
}

/* Prints without keeping the text, for the temp numbers. */
uint32_t *relay_temp_numbers(const graft_graph *g)
{
    Printer p;
    StrBuf out = {0};
    printer_init(&p, g);
    p.discard = true;
    print_types(&p, 0);
    print_module(&p, &out);
    strbuf_free(&out);
    uint32_t *temps = xmalloc((graph_node_count(g) ? graph_node_count(g) : 1) * sizeof *temps);
    for (uint32_t i = 0; i < graph_node_count(g); i++)
        temps[i] = p.visited[i] == VISIT_BOUND ? temp_slot_number(&p.text[i].temp) : NO_TEMP;
    printer_free(&p);
    return temps;
}
