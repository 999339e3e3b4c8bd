/* fmt_rules_cli.c - graft fmt RULES.graft [-o OUT]: the rule file in its
 * canonical layout (note [rule layout] in src/compiler/fmt_rules_layout.c),
 * comments kept.  The text is formatted in memory before the output is
 * opened, so a syntax error leaves no output file. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "fmt_rules.h"
#include "fmt_rules_cli.h"
#include "input_kind.h"
#include "outfile.h"

bool fmt_rules_cli_wants(const char *path)
{
    size_t len = strlen(path);
    if (len > 6 && strcmp(path + len - 6, ".graft") == 0)
        return true;
    return input_kind_of_file(path) == INPUT_RULES;
}

int fmt_rules_cli_check(const char *in, const char *out, bool infer_types)
{
    if (infer_types)
        return cli_usage_error("fmt", "--infer-types applies to models, not to the rule file "
                               "'%s'", in);
    return cli_check_output("fmt", out, &in, 1);
}

bool fmt_rules_cli(const char *in, const char *out, const graft_limits *limits, graft_diag *d)
{
    Source *src = source_read(in, d);
    StrBuf text = {0};
    bool ok = src && fmt_rules_source(src, (int)limits->rule_depth, &text, d);
    if (ok) {
        OutFile *of = outfile_open(out, d);
        ok = of != NULL;
        if (of) {
            fwrite(text.data ? text.data : "", 1, text.len, outfile_stream(of));
            ok = outfile_commit(of, d);
        }
    }
    strbuf_free(&text);
    source_free(src);
    return ok;
}
