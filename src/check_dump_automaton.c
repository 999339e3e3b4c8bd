/* check_dump_automaton.c - graft check --dump-automaton [--dot]: the
 * engine's lowering and automaton builder run on the checked rules. */
#include "check_dump.h"

#include "automaton.h"
#include "cli.h"
#include "lower.h"

int check_dump_automaton(const RuleFile *rf, const CheckDumpOptions *opts, FILE *out,
                         Diag *d)
{
    Lowered *lw = lower_rules(rf, d);
    if (!lw)
        return EXIT_BAD_INPUT;
    Automaton *a = automaton_new(&lw->rs);
    automaton_dump(a, out, opts->dot);
    automaton_free(a);
    lower_free(lw);
    return EXIT_OK;
}
