/* cmd_check_dump.c - graft check --dump-ast. */
#include "cmd_check_dump.h"

#include "cli.h"

int check_dump_ast(const RuleFile *rf, const CheckDumpOptions *opts, FILE *out, graft_diag *d)
{
    (void)opts;
    (void)d;
    StrBuf sb = {0};
    strbuf_puts(&sb, "");
    for (int i = 0; i < rf->nfiles; i++) {
        if (rf->nfiles > 1)
            strbuf_printf(&sb, "# file: %s\n", rf->files[i]->src->name);
        ast_print_file(&sb, rf->files[i]);
    }
    fwrite(sb.data, 1, sb.len, out);
    strbuf_free(&sb);
    return EXIT_OK;
}
