/* The parts of the distributed suite (test_dist.c: reduce, scan,
 * histograms and main; test_dist_select_sort.c: compaction and sort;
 * test_dist_exact.c: exact float sums; test_dist_extra.c: argsort, top_k,
 * rebalance). */
#ifndef PP_TEST_DIST_H
#define PP_TEST_DIST_H

#include "dist_common.h"

void compaction(dt_env *e);
void sorting(dt_env *e);
/* test_dist_exact.c: exact float sums (PP_ALGO_EXACT) */
void exact_sums(dt_env *e);
/* test_dist_extra.c: argsort, top_k, rebalance */
void extra(dt_env *e);

#endif
