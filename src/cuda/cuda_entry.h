/* Every function of the cuda backend that its table (cuda_table.c) names:
 * the context and memory functions (cuda_backend.cu), the defaults (one
 * file per primitive, cuda_<primitive>.cu) and the course-notes algorithms
 * for study (study/<primitive>.cu), one entry per algorithm. C linkage, so
 * that the table is plain C with designated initializers. */
#ifndef PP_CUDA_ENTRY_H
#define PP_CUDA_ENTRY_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* contexts and memory (cuda_backend.cu) */
pp_status pp_cuda_probe(void);
int pp_cuda_auto_choice(int device);
pp_status pp_cuda_enter(pp_context *ctx, const char *fn);
pp_status pp_cuda_create(pp_context *ctx, const pp_options *opt);
void pp_cuda_destroy(pp_context *ctx);
pp_status pp_cuda_set_stream(pp_context *ctx, void *native);
void *pp_cuda_stream(const pp_context *ctx);
// Operators of the user's own (cuda_operator.cu): the slots, and the
// modules' unloading at pp_destroy.
pp_status pp_cuda_operator_build(pp_context *ctx, pp_operator *op, const char *source);
pp_status pp_cuda_reduce_op(pp_context *ctx, const pp_op_reduce_args *a);
pp_status pp_cuda_scan_op(pp_context *ctx, const pp_op_scan_args *a);
pp_status pp_cuda_segmented_reduce_op(pp_context *ctx, const pp_segmented_args *a);
pp_status pp_cuda_segmented_scan_op(pp_context *ctx, const pp_segmented_args *a);
void pp_cuda_operators_free(pp_context *ctx);
pp_status pp_cuda_synchronize(pp_context *ctx);
pp_status pp_cuda_alloc(pp_context *ctx, void **p, size_t bytes);
pp_status pp_cuda_free(pp_context *ctx, void *p);
pp_status pp_cuda_upload(pp_context *ctx, void *dst, const void *src, size_t bytes);
pp_status pp_cuda_download(pp_context *ctx, void *dst, const void *src, size_t bytes);
pp_status pp_cuda_copy(pp_context *ctx, void *dst, const void *src, size_t bytes);
pp_status pp_cuda_memory_info(pp_context *ctx, pp_memory_info *info);

/* the defaults */
pp_status pp_cuda_reduce(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_cuda_scan(pp_context *ctx, const pp_scan_args *a); /* default: look-back, or look-ahead when large */
pp_status pp_cuda_scan_lookback(pp_context *ctx, const pp_scan_args *a); /* decoupled look-back alone */
pp_status pp_cuda_scan_reduce_then_scan(pp_context *ctx, const pp_scan_args *a);
pp_status pp_cuda_histogram(pp_context *ctx, const pp_histogram_args *a);
pp_status pp_cuda_select(pp_context *ctx, const pp_select_args *a); /* decoupled look-back */
pp_status pp_cuda_sort(pp_context *ctx, const pp_sort_args *a);     /* onesweep */
/* the segmented and by-key calls (cuda_segmented.cu), argsort (cuda_argsort.cu) */
pp_status pp_cuda_segmented_reduce(pp_context *ctx, const pp_segmented_args *a);
pp_status pp_cuda_segmented_scan(pp_context *ctx, const pp_segmented_args *a);
pp_status pp_cuda_reduce_by_key(pp_context *ctx, const pp_bykey_args *a);
pp_status pp_cuda_scan_by_key(pp_context *ctx, const pp_bykey_args *a);
pp_status pp_cuda_run_length_encode(pp_context *ctx, const pp_bykey_args *a);
pp_status pp_cuda_argsort(pp_context *ctx, const pp_argsort_args *a); /* the sort of PP_PRIM_SORT */
pp_status pp_cuda_segmented_sort(pp_context *ctx, const pp_segsort_args *a); /* batched onesweep (cuda_segsort.cu) */
pp_status pp_cuda_top_k(pp_context *ctx, const pp_top_k_args *a); /* radix select, then the sort (cuda_topk.cu) */
/* pp_lower_bound, pp_upper_bound (cuda_search.cu); pp_merge, pp_merge_pairs (cuda_merge.cu) */
pp_status pp_cuda_search(pp_context *ctx, const pp_search_args *a);
pp_status pp_cuda_merge(pp_context *ctx, const pp_merge_args *a);
/* pp_reduce_to, pp_scan_to (converting pairs), pp_argmin, pp_argmax (cuda_reduce_to.cu) */
pp_status pp_cuda_reduce_to(pp_context *ctx, const pp_convert_args *a);
pp_status pp_cuda_scan_to(pp_context *ctx, const pp_convert_args *a);
pp_status pp_cuda_argminmax(pp_context *ctx, const pp_arg_args *a);

/* PP_ALGO_EXACT (cuda_exact.cu): f32 and f64 sums correctly rounded; every
 * other type and operator goes to the default */
pp_status pp_cuda_reduce_exact(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_cuda_scan_exact(pp_context *ctx, const pp_scan_args *a);
/* The half types' slots (cuda_half.cu): PP_SUM reduce and scan exact,
 * PP_MIN / PP_MAX reduce, the sorts' order keys. */
pp_status pp_cuda_half_reduce(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_cuda_half_scan(pp_context *ctx, const pp_scan_args *a);
pp_status pp_cuda_half_segmented_sum(pp_context *ctx, const pp_segmented_args *a);
pp_status pp_cuda_half_segmented_scan(pp_context *ctx, const pp_segmented_args *a);
pp_status pp_cuda_half_map(pp_context *ctx, const char *fn, pp_type type, int map, const void *in, void *out,
                            size_t n);
/* the exact_sum slot: the accumulator of an f32/f64 PP_SUM (n > 0) */
pp_status pp_cuda_exact_sum(pp_context *ctx, const pp_reduce_args *a, int64_t *acc);
/* PP_ALGO_EXACT pp_segmented_reduce of f32 and f64 sums (cuda_segmented_exact.cu) */
pp_status pp_cuda_segmented_reduce_exact(pp_context *ctx, const pp_segmented_args *a);

/* the course notes' algorithms, for study (study/) */
pp_status pp_cuda_study_reduce_interleaved_divergent(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_cuda_study_reduce_interleaved_strided(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_cuda_study_reduce_sequential_addressing(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_cuda_study_reduce_first_add(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_cuda_study_reduce_cascade(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_cuda_study_reduce_launch_per_step(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_cuda_study_reduce_windowed(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_cuda_study_reduce_warp_shuffle(pp_context *ctx, const pp_reduce_args *a);

pp_status pp_cuda_study_scan_naive(pp_context *ctx, const pp_scan_args *a);
pp_status pp_cuda_study_scan_hillis_steele(pp_context *ctx, const pp_scan_args *a);
pp_status pp_cuda_study_scan_blelloch(pp_context *ctx, const pp_scan_args *a);
pp_status pp_cuda_study_scan_blelloch_padded(pp_context *ctx, const pp_scan_args *a);
pp_status pp_cuda_study_scan_warp_shuffle(pp_context *ctx, const pp_scan_args *a);

pp_status pp_cuda_study_histogram_global_atomic(pp_context *ctx, const pp_histogram_args *a);
pp_status pp_cuda_study_histogram_private_atomic(pp_context *ctx, const pp_histogram_args *a);
pp_status pp_cuda_study_histogram_private_reduce(pp_context *ctx, const pp_histogram_args *a);

pp_status pp_cuda_study_select_scan_scatter(pp_context *ctx, const pp_select_args *a);
pp_status pp_cuda_study_select_ballot(pp_context *ctx, const pp_select_args *a);

pp_status pp_cuda_study_sort_split_radix(pp_context *ctx, const pp_sort_args *a);
pp_status pp_cuda_study_sort_count_scan_scatter(pp_context *ctx, const pp_sort_args *a);

#ifdef __cplusplus
}
#endif

#endif
