/* check_main.h - the end of every Check program's main: runs suite s and
 * exits with whether a test failed (automake's harness reads the status,
 * tests/run_all.sh the "NN%: Checks:" line srunner_run_all prints). */
#ifndef GRAFT_CHECK_MAIN_H
#define GRAFT_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

static inline int check_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
