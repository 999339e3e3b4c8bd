/* emit_c_fn.c - the frame of a compiled guard or action: the locals of
 * the bindings its body reads, its comment and signature, and one
 * definition per distinct function (note [one definition]).  The bodies
 * are written by emit_c_guard.c and emit_c_action.c between
 * emit_body_begin and emit_fn_finish.
 */
#include "emit_c_impl.h"

#include <stdlib.h>
#include <string.h>

const char *emit_var(Emitter *E, int slot)
{
    E->var_used[slot] = true;
    return E->vars[slot];
}

/* The declarations opening a function: a local per binding its body
 * reads, "const graft_binding *const v_x = &b[1];", or "(void)b;". */
static void fn_locals(const Emitter *E, int nslots, StrBuf *locals)
{
    for (int i = 0; i < nslots; i++)
        if (E->var_used[i])
            strbuf_printf(locals, "const graft_binding *const %s = &b[%d];\n", E->vars[i], i);
    if (!locals->len)
        strbuf_puts(locals, "(void)b;\n");
}

/* Writes function name: comment, signature, locals, the collected body. */
static void write_fn(Emitter *E, const FnHead *h, const char *name, const char *locals)
{
    bool ptr = h->ret[strlen(h->ret) - 1] == '*';
    emit_line(E, "/* %s */", h->comment);
    emit_line(E, "static %s%s%s%s", h->ret, ptr ? "" : " ", name, h->params);
    emit_line(E, "{");
    E->indent = 1;
    for (const char *line = locals, *nl; (nl = strchr(line, '\n')); line = nl + 1)
        emit_line(E, "%.*s", (int)(nl - line), line);
    emit_body_end(E);
    E->indent = 0;
    emit_line(E, "}");
    emit_blank(E);
}

/* Ends a function whose statements emit_body_begin collected (at indent
 * 1) and returns its name (malloc'd).  A function identical to one
 * written before, #line aside, is not written again (note [one
 * definition]): the comment names the one written. */
char *emit_fn_finish(Emitter *E, const FnHead *h)
{
    StrBuf key = {0}, locals = {0};
    E->in_body = false;
    E->indent = 0;
    fn_locals(E, h->nslots, &locals);
    strbuf_printf(&key, "function %s%s\n%s", h->ret, h->params, locals.data);
    for (size_t i = 0; i < E->body.len; i++)
        if (E->body.items[i].text)
            strbuf_printf(&key, "%d %s\n", E->body.items[i].indent, E->body.items[i].text);
    if (E->defs.entries.len != E->defs_before) /* constants went out ahead */
        emit_blank(E);
    const char *have = strtable_get(&E->defs, key.data);
    if (have) {
        for (size_t i = 0; i < E->body.len; i++)
            free(E->body.items[i].text);
        E->body.len = 0;
        emit_line(E, "/* %s: %s, written above */", h->comment, have);
        emit_blank(E);
    } else {
        have = emit_unique(E, h->hint);
        strtable_put(&E->defs, key.data, have);
        write_fn(E, h, have, locals.data);
    }
    char *name = xstrdup(have);
    strbuf_free(&key);
    strbuf_free(&locals);
    return name;
}
