/* What the files of pp_testcommon share beside test_common.h (the tests
 * include test_common.h only):
 *
 *   test_common.c          the run: seed, backends, contexts, configurations
 *   test_common_data.c     random numbers and element helpers
 *   test_common_buffers.c  device buffers with guard bytes
 *   test_common_skips.c    skips, and what a case needs (memory, f64)
 *   test_common_report.c   failures and comparisons
 */
#ifndef PP_TEST_COMMON_INTERNAL_H
#define PP_TEST_COMMON_INTERNAL_H

#include "test_common.h"

/* The program's name, as given to tc_init ("test" before). */
const char *tc_program(void);
/* tc_finish's report: "<program>: skipped N" and each reason with its count. */
void tc_print_skips(void);
/* Forgets which opencl contexts compute in double (their contexts are gone). */
void tc_forget_f64(void);

#endif
