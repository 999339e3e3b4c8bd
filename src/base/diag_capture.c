/* diag_capture.c - diagnostics as records (graft_message, graft_api.h)
 * for callers of the library, who show them their own way: a notebook, an
 * exception.  A record holds what the printed form shows (diag.c): the
 * place, the message, the quoted line and the notes after it.  A
 * capturing diag sends its reports here through the one structured sink
 * (diag_set_sink), as graft lsp and --diagnostics-format do. */
#include "diag.h"

#include <stdlib.h>
#include <string.h>

struct DiagCapture {
    graft_message *msgs; /* errors and warnings, in order */
    size_t n, cap;       /* used and allocated entries of msgs */
};

DiagCapture *diag_capture_new(void)
{
    return xcalloc(1, sizeof(DiagCapture));
}

/* Frees what m owns (its strings, its notes), not m. */
static void message_free(graft_message *m)
{
    free((char *)m->file);
    free((char *)m->text);
    free((char *)m->flag);
    free((char *)m->source_line);
    for (size_t i = 0; i < m->nnotes; i++)
        message_free((graft_message *)&m->notes[i]);
    free((graft_message *)m->notes);
}

void diag_capture_clear(DiagCapture *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        message_free(&c->msgs[i]);
    c->n = 0;
}

void diag_capture_free(DiagCapture *c)
{
    diag_capture_clear(c);
    if (c)
        free(c->msgs);
    free(c);
}

static graft_severity severity_of(const char *kind)
{
    if (strcmp(kind, "note") == 0)
        return GRAFT_SEVERITY_NOTE;
    return strcmp(kind, "warning") == 0 ? GRAFT_SEVERITY_WARNING : GRAFT_SEVERITY_ERROR;
}

/* The slot for a new record: a note joins the last error or warning. */
static graft_message *new_slot(DiagCapture *c, graft_severity sev)
{
    if (sev == GRAFT_SEVERITY_NOTE && c->n > 0) {
        graft_message *owner = &c->msgs[c->n - 1];
        graft_message *notes = xrealloc((graft_message *)owner->notes,
                                        (owner->nnotes + 1) * sizeof *notes);
        owner->notes = notes;
        return &notes[owner->nnotes++];
    }
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 8;
        c->msgs = xrealloc(c->msgs, c->cap * sizeof *c->msgs);
    }
    return &c->msgs[c->n++];
}

void diag_capture_record(void *capture, const DiagRecord *rec)
{
    DiagCapture *c = capture;
    graft_severity sev = severity_of(rec->kind);
    graft_message *m = new_slot(c, sev);
    memset(m, 0, sizeof *m);
    m->severity = sev;
    m->text = xstrdup(rec->message);
    m->flag = rec->flag ? xstrdup(rec->flag) : NULL;
    m->byte = rec->has_byte ? (int64_t)rec->byte : -1;
    if (!rec->src) {
        m->file = rec->file ? xstrdup(rec->file) : NULL;
        return;
    }
    m->file = xstrdup(rec->src->name);
    m->line = rec->where.first_line;
    m->column = rec->where.first_column;
    m->end_line = rec->where.last_line;
    m->end_column = rec->where.last_column;
    size_t n;
    const char *line = source_line(rec->src, rec->where.first_line, &n);
    m->source_line = line ? xstrndup(line, n) : NULL;
}

size_t diag_capture_count(const DiagCapture *c)
{
    return c ? c->n : 0;
}

const graft_message *diag_capture_get(const DiagCapture *c, size_t i)
{
    return c && i < c->n ? &c->msgs[i] : NULL;
}
