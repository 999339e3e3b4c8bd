/* emit_c_ops.c - what a rule set for ONNX carries of its registry: the
 * ops its rule files declare, by name and domain, which a compiled
 * rewriter checks a model's nodes against as graft run does (note [onnx
 * models checked] in src/onnx/onnx_file.c). */
#include "emit_c_impl.h"

#include <stdlib.h>
#include <string.h>

/* Columns an entry line may fill: EMIT_WIDTH less the indent. */
enum { OPS_WIDTH = EMIT_WIDTH - 4 };

/* The entry of op, {"Conv", NULL, 11}, into sb (emptied first). */
static void op_entry(StrBuf *sb, const graft_op_name *op)
{
    sb->len = 0;
    strbuf_putc(sb, '{');
    emit_c_string(sb, op->name);
    strbuf_puts(sb, ", ");
    emit_c_string(sb, op->domain);
    strbuf_printf(sb, ", %d},", op->since);
}

static bool same_domain(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Whether an op before rs->ops[i] is of its domain (written with it). */
static bool domain_seen(const graft_rule_set *rs, uint32_t i)
{
    for (uint32_t j = 0; j < i; j++)
        if (same_domain(rs->ops[j].domain, rs->ops[i].domain))
            return true;
    return false;
}

/* The ops of the domain of rs->ops[first], from it on, as many a line as
 * fit, after a comment naming the domain. */
static void emit_domain(Emitter *E, uint32_t first)
{
    const graft_rule_set *rs = E->rs;
    const char *domain = rs->ops[first].domain;
    emit_line(E, "/* %s */", domain ? domain : "the default domain");
    StrBuf line = {0}, entry = {0};
    for (uint32_t i = first; i < rs->nops; i++) {
        if (!same_domain(rs->ops[i].domain, domain))
            continue;
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
    emit_table_start(E, "graft_op_name", name);
    for (uint32_t i = 0; i < rs->nops; i++)
        if (!domain_seen(rs, i))
            emit_domain(E, i);
    emit_table_end(E);
    return name;
}
