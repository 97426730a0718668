/* The data sets of the exact sums' tests (test_exact, test_exact_sum, the
 * distributed suite): values of f32 or f64 held as doubles, made to be
 * hard for a sum: cancellation, many values below half an ulp of a large
 * one, exponents over the whole format with subnormals, partial sums that
 * overflow while the total does not, totals that overflow, NaN and
 * infinities, zeros of both signs, ties, subnormals. */
#ifndef PP_EXACT_DATA_H
#define PP_EXACT_DATA_H

#include "test_common.h"

#define EXACT_SETS 11
/* "normal", "uniform", "cancellation", "below-half-ulp", "full-range",
 * "partial-overflow", "total-overflow", "specials", "zeros", "ties",
 * "subnormal": set i is exact_set_names[i]. */
extern const char *const exact_set_names[EXACT_SETS];
enum { EXACT_CANCELLATION = 2, EXACT_FULL_RANGE = 4, EXACT_PARTIAL_OVERFLOW = 5, EXACT_SPECIALS = 7,
       EXACT_ZEROS = 8 };

/* n values of data set `set` (values of the format: f64 where is_f64, else
 * f32, held as doubles). */
void exact_gen(tc_rng *r, int is_f64, int set, size_t n, double *v);
/* The n values as elements of the format into buf. */
void exact_pack(int is_f64, const double *v, size_t n, void *buf);

#endif
