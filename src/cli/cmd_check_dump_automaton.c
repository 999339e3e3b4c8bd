/* cmd_check_dump_automaton.c - graft check --dump-automaton [--dot]: the
 * engine's lowering and automaton builder run on the checked rules
 * (lower_dump_automaton does the work; tests call it directly). */
#include "cmd_check_dump.h"

#include "cli.h"
#include "lower.h"

int check_dump_automaton(const RuleFile *rf, const CheckDumpOptions *opts, FILE *out,
                         graft_diag *d)
{
    return lower_dump_automaton(rf, out, opts->dot, d) ? EXIT_OK : EXIT_BAD_INPUT;
}
