/* standalone_main.c - the main of the rewriters the differential tests
 * build (tests/emit/differential.sh, differential_onnx.sh): the generated
 * C without --exe, linked with this, is the rewriter graft compile --exe
 * would make, built once per test instead of once per rule file. */
#include "graft.h"

extern const graft_rule_set graft_rules;

int main(int argc, char **argv)
{
    return graft_standalone_main(&graft_rules, argc, argv);
}
