/* cmd_lsp.c - graft lsp: the language server over standard input and
 * output (src/lsp/lsp.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "lsp.h"

static void print_help(void)
{
    fputs("usage: graft lsp [OPTIONS]\n\n"
          "Serve the Language Server Protocol for rule files on standard input and\n"
          "output (an editor starts it): diagnostics as you type, hover and completion\n"
          "of ops and their attributes.  README.md, section Editors, shows the setup.\n"
          "Exit status: 0 after shutdown and exit, 1 when the input ends first.\n\n"
          "options:\n"
          "  --no-debounce      check after every change, even with more waiting\n", stdout);
    fputs(options_limit_help, stdout);
    fputs("  --help             show this help\n", stdout);
}

int cmd_lsp(int argc, char **argv, const graft_limits *limits)
{
    LspOptions opts = {.limits = *limits, .debounce = true};
    for (int i = 1; i < argc; i++) {
        int rc = cli_parse_common("lsp", argc, argv, &i, NULL, &opts.limits, print_help);
        if (rc != OPTION_NOT_MINE) {
            if (rc >= 0)
                return rc;
        } else if (strcmp(argv[i], "--no-debounce") == 0) {
            opts.debounce = false;
        } else {
            return cli_usage_error("lsp", "unknown argument '%s'", argv[i]);
        }
    }
    return lsp_serve(stdin, stdout, &opts);
}
