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
/* the input of a reduce or scan with op: data_exact for float sum and prod
 * (so that the reference's order gives the bits of any order), else
 * data_uniform; */
void data_for_op(data_rng *r, pp_type t, pp_op op, void *buf, size_t n);
/* uniform, each element repeating its predecessor with probability 1/2; */
void data_runs(data_rng *r, pp_type t, void *buf, size_t n);
/* i mod period (period <= data_small_max(t)); */
void data_cycle(pp_type t, void *buf, size_t n, size_t period);
/* the value at fraction 1/2 of the range, everywhere. */
void data_midpoint(pp_type t, void *buf, size_t n);

/* n flags of 0 or 1, each with probability 1/2. */
void data_flags(data_rng *r, uint8_t *flags, size_t n);

/* Segment (or run) layouts: lengths uniform in [1, 2*len - 1] (average
 * len), all len, or power-law: an octave e in [0, 24) uniformly, then a
 * length uniform in [2^e, 2^(e+1)), so lengths run from 1 to 2^24 - 1 with
 * a density about 1/length. The segments cover [0, n) one after the other,
 * the last one cut at n. */
typedef enum data_layout { LAYOUT_AVG, LAYOUT_FIXED, LAYOUT_POWERLAW } data_layout;
#define LAYOUT_POWERLAW_OCTAVES 24

/* The layout's segments over n (len: the average or fixed length; unused
 * for power-law): writes their nseg + 1 bounds to offsets (offsets[0] = 0,
 * offsets[nseg] = n) where offsets is not NULL, and returns nseg. The same
 * generator state gives the same segments: count with a copy of *r, then
 * fill. */
size_t data_segments(data_rng *r, data_layout kind, size_t len, size_t n, uint64_t *offsets);

/* Keys with nseg runs: keys[offsets[s] .. offsets[s+1]) all hold one
 * value, uniform as data_uniform's, different from the previous run's (bit
 * for bit; no NaN nor -0.0 arises, so different by == as well). */
void data_run_keys(data_rng *r, pp_type t, void *keys, const uint64_t *offsets, size_t nseg);

#endif
