/*
 * pp bench: the input of each case, made on the host from a seed that
 * depends on the case only, so that a row's input is the same whatever
 * else is benchmarked.
 */
#ifndef PP_BENCH_DATA_H
#define PP_BENCH_DATA_H

#include "bench_case.h"

int type_is_float(pp_type t);

/* malloc that asks for 1 byte where bytes is 0 (so that NULL means out of
 * memory). */
void *xmalloc(size_t bytes);

/* Makes c's host input (and the histogram bounds and edges, the select
 * value, the flags, the sort values) for the case set in c->v, type, op,
 * n, esz, data; bins is --bins (0: the defaults). Returns NULL, or why the
 * case cannot run (c->skipped set if it does not fit the type). */
const char *case_make_input(bench_case *c, size_t bins);

#endif
