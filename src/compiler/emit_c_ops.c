/* emit_c_ops.c - what a rule set for ONNX carries of its registry: the
 * ops its rule files declare, by name and domain, which a compiled
 * rewriter checks a model's nodes against as graft run does (note [onnx
 * models checked] in src/onnx/onnx_file.c). */
#include "emit_c_impl.h"

#include <stdlib.h>
#include <string.h>

/* Columns an entry line may fill: EMIT_WIDTH less the indent. */
enum { OPS_WIDTH = EMIT_WIDTH - 4 };

/* The entry of op, {"Conv", NULL}, into sb (emptied first). */
static void op_entry(StrBuf *sb, const graft_op_name *op)
{
    sb->len = 0;
    strbuf_putc(sb, '{');
    emit_c_string(sb, op->name);
    strbuf_puts(sb, ", ");
    emit_c_string(sb, op->domain);
    strbuf_puts(sb, "},");
}

/* One domain's ops, as many a line as fit, after a comment naming it. */
static uint32_t emit_domain(Emitter *E, uint32_t first)
{
    const graft_rule_set *rs = E->rs;
    const char *domain = rs->ops[first].domain;
    emit_line(E, "/* %s */", domain ? domain : "the default domain");
    StrBuf line = {0}, entry = {0};
    uint32_t i = first;
    for (; i < rs->nops; i++) {
        const char *d = rs->ops[i].domain;
        if (d != domain && (!d || !domain || strcmp(d, domain) != 0))
            break;
        op_entry(&entry, &rs->ops[i]);
        if (line.len && line.len + 1 + entry.len > OPS_WIDTH) {
            emit_line(E, "%s", line.data);
            line.len = 0;
        }
        strbuf_printf(&line, "%s%s", line.len ? " " : "", entry.data);
    }
    if (line.len)
        emit_line(E, "%s", line.data);
    strbuf_free(&line);
    strbuf_free(&entry);
    return i;
}

const char *emit_onnx_ops(Emitter *E)
{
    const graft_rule_set *rs = E->rs;
    if (!rs->onnx_opset || !rs->nops)
        return NULL;
    const char *name = emit_unique(E, "onnx_ops");
    emit_line(E, "/* ---- the ops the rule files declare (opset onnx %d) ----", rs->onnx_opset);
    emit_line(E, " * A compiled rewriter refuses a model node of any other op, unless a");
    emit_line(E, " * model-local function defines it or --allow-unknown-ops is given, as");
    emit_line(E, " * graft run does: the one fact of the op registry the runtime reads. */");
    emit_blank(E);
    emit_line(E, "static const graft_op_name %s[] = {", name);
    E->indent++;
    for (uint32_t i = 0; i < rs->nops;)
        i = emit_domain(E, i);
    E->indent--;
    emit_line(E, "};");
    emit_blank(E);
    return name;
}
