/* The plain sequential reference that every backend and algorithm is checked
 * against. It shares no code with the library: each function is the
 * textbook loop over host memory, written from the semantics documented in
 * include/parprim.h. */
#ifndef PP_REFERENCE_H
#define PP_REFERENCE_H

#include "parprim.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out = in[0] op ... op in[n-1], left to right; identity for n == 0. */
void ref_reduce(pp_type type, pp_op op, const void *in, size_t n, void *out);
/* Sequential inclusive or exclusive scan; in == out allowed. */
void ref_scan(pp_type type, pp_op op, pp_scan_kind kind, const void *in, void *out, size_t n);
/* ref_scan starting from init (one element): inclusive out[i] = init op
 * in[0] op ... op in[i], exclusive out[0] = init; in == out allowed
 * (reference_topk.c). */
void ref_scan_init(pp_type type, pp_op op, pp_scan_kind kind, const void *in, void *out, size_t n, const void *init);
/* ref_reduce and ref_scan of in (in_type) converted element by element to
 * out_type (C's conversion), in out_type (reference_reduce_to.c); out
 * must not overlap in for the scan. ref_arg: the position of the first
 * minimum (max: maximum) of in[0 .. n), n >= 1, or of the first NaN. */
void ref_reduce_to(pp_type in_type, pp_type out_type, pp_op op, const void *in, size_t n, void *out);
void ref_scan_to(pp_type in_type, pp_type out_type, pp_op op, pp_scan_kind kind, const void *in, void *out, size_t n);
uint64_t ref_arg(pp_type type, const void *in, size_t n, int max);
/* Per segment s < nseg, [offsets[s], offsets[s+1]) (valid offsets): out[s]
 * = ref_reduce of the segment; and ref_scan of each segment into out (in
 * == out allowed), out outside every segment untouched. */
void ref_segmented_reduce(pp_type type, pp_op op, const void *in, const uint64_t *offsets, size_t nseg, void *out);
void ref_segmented_scan(pp_type type, pp_op op, pp_scan_kind kind, const void *in, void *out,
                        const uint64_t *offsets, size_t nseg);
/* By-key forms: a run is a maximal range of neighbouring keys equal by
 * C's == (each NaN a run of its own, -0.0 == +0.0). reduce_by_key: per run
 * r, keys_out[r] = its first key, values_out[r] = ref_reduce of its
 * values; returns the number of runs. scan_by_key: ref_scan of each run's
 * values into out (values == out allowed). run_length_encode: values_out[r]
 * = the first element of run r, counts_out[r] = its length; returns the
 * number of runs. */
uint64_t ref_reduce_by_key(pp_type key_type, pp_type value_type, pp_op op, const void *keys, const void *values,
                           size_t n, void *keys_out, void *values_out);
void ref_scan_by_key(pp_type key_type, pp_type value_type, pp_op op, pp_scan_kind kind, const void *keys,
                     const void *values, void *out, size_t n);
uint64_t ref_run_length_encode(pp_type type, const void *in, size_t n, void *values_out, uint64_t *counts_out);
/* Histograms with the documented binning rules; counts overwritten. */
void ref_histogram_even(pp_type type, const void *samples, size_t n, const void *lower,
                        const void *upper, size_t nbins, uint64_t *counts);
void ref_histogram_range(pp_type type, const void *samples, size_t n, const void *edges,
                         size_t nbins, uint64_t *counts);
/* Compaction; each returns the selected count. partition writes all n. */
uint64_t ref_select_flagged(pp_type type, const void *in, const uint8_t *flags, size_t n, void *out);
uint64_t ref_select_if(pp_type type, const void *in, size_t n, pp_cmp cmp, const void *value, void *out);
uint64_t ref_unique(pp_type type, const void *in, size_t n, void *out);
uint64_t ref_partition_if(pp_type type, const void *in, size_t n, pp_cmp cmp, const void *value, void *out);
/* The size of an element of type in bytes (0 outside pp_type). */
size_t ref_type_size(pp_type type);
/* The place of key (one element of type) in pp_sort's order: key x is
 * before key y exactly when ref_order_rank(x) < ref_order_rank(y) (every
 * NaN one rank: after +inf ascending, first descending, last in
 * PP_DESCENDING_NAN_LAST). */
uint64_t ref_order_rank(pp_type type, const void *key, pp_order order);
/* Stable sort in the documented order (floats: -0.0 < +0.0, every NaN
 * greater than +inf); values (value_size bytes each) may be NULL. */
void ref_sort_pairs(pp_type type, void *keys, void *values, size_t value_size, size_t n, pp_order order);
/* The first min(k, n) keys of ref_sort_pairs of in (not written) and
 * their input positions (indices_out may be NULL); returns min(k, n)
 * (reference_topk.c). */
size_t ref_top_k(pp_type type, const void *in, size_t n, size_t k, pp_order order, void *keys_out,
                 uint64_t *indices_out);
/* ref_sort_pairs of each segment s < nseg, [offsets[s], offsets[s+1])
 * (valid offsets); keys and values outside every segment untouched. */
void ref_segmented_sort_pairs(pp_type type, void *keys, void *values, size_t value_size, const uint64_t *offsets,
                              size_t nseg, pp_order order);

/* Search and merge (reference_search.c), "before" by ref_order_rank:
 * out[j] = the first i in [0, n] with !(sorted[i] before queries[j])
 * (lower) or with queries[j] before sorted[i] (upper), by a plain binary
 * search over sorted (sorted in order); and the textbook two-finger merge of
 * sorted a and b (a's key first among equals) into keys_out, the values
 * (value_size bytes each; NULL and 0 for keys alone) moving with them. */
void ref_lower_bound(pp_type type, const void *sorted, size_t n, pp_order order, const void *queries, size_t m,
                     uint64_t *out);
void ref_upper_bound(pp_type type, const void *sorted, size_t n, pp_order order, const void *queries, size_t m,
                     uint64_t *out);
void ref_merge_pairs(pp_type type, const void *a_keys, const void *a_values, size_t na, const void *b_keys,
                     const void *b_values, size_t nb, size_t value_size, void *keys_out, void *values_out,
                     pp_order order);
void ref_merge(pp_type type, const void *a, size_t na, const void *b, size_t nb, void *out, pp_order order);

/* Element-wise equality of two arrays of type: bitwise, except that any two
 * NaNs are equal. Returns 1 if equal; else 0 and the first index that
 * differs in *where (if where is not NULL). */
int ref_equal(pp_type type, const void *a, const void *b, size_t n, size_t *where);
/* Formats element i of an array of type into buf (for failure messages). */
const char *ref_format(pp_type type, const void *array, size_t i, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
