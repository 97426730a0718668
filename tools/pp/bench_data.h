/*
 * pp bench: input generators, on the host, from a seeded generator: what a
 * case's arrays and arguments hold (bench_case.c picks them per case and
 * seeds the generator from the case alone, so that a row's input is the
 * same whatever else is benchmarked). A leaf: parprim.h's types and nothing
 * of the cases.
 */
#ifndef PP_BENCH_DATA_H
#define PP_BENCH_DATA_H

#include "parprim.h"

#include <stddef.h>
#include <stdint.h>

int type_is_float(pp_type t);

/* malloc that asks for 1 byte where bytes is 0 (so that NULL means out of
 * memory). */
void *xmalloc(size_t bytes);

/* splitmix64: small, fast, and good enough for benchmark data. */
typedef struct data_rng {
    uint64_t state;
} data_rng;

/* A generator from seed (its first output already drawn). */
data_rng data_seed(uint64_t seed);
uint64_t data_next(data_rng *r);

/* One value of t at dst: the non-negative integer x (below the type's
 * maximum; floats: (double)x); the value at fraction num/den of the type's
 * range (ints: of the offset range [0, 2^bits - 1]; floats: of [-1, 1]). */
void data_put_small(pp_type t, void *dst, uint64_t x);
void data_put_fraction(pp_type t, void *dst, uint64_t num, uint64_t den);
/* The largest B for which 0 .. B are all exact values of t. */
uint64_t data_small_max(pp_type t);

/* n values of t into buf: */
/* uniform bits (ints), uniform in [-1, 1) (floats); */
void data_uniform(data_rng *r, pp_type t, void *buf, size_t n);
/* float input whose op (PP_SUM or PP_PROD) is exact in any order, so that
 * a check can be bit-exact: integers in [-K, K] with n*K <= 2^(mantissa
 * bits) for sum, +-1 for prod; */
void data_exact(data_rng *r, pp_type t, pp_op op, void *buf, size_t n);
/* uniform, each element repeating its predecessor with probability 1/2; */
void data_runs(data_rng *r, pp_type t, void *buf, size_t n);
/* i mod period (period <= data_small_max(t)); */
void data_cycle(pp_type t, void *buf, size_t n, size_t period);
/* the value at fraction 1/2 of the range, everywhere. */
void data_midpoint(pp_type t, void *buf, size_t n);

/* n flags of 0 or 1, each with probability 1/2. */
void data_flags(data_rng *r, uint8_t *flags, size_t n);

#endif
