/* The cuda backend's table: what it offers, read in one place. Adding an
 * algorithm is one pp_algorithm value (parprim.h), its name (names.c), one
 * row here (its entry declared in cuda_entry.h) and its cell in the matrix
 * of docs/backends.md (the test doc_algorithm_matrix compares them). */
#include "cuda_entry.h"

const pp_backend_ops pp_cuda_ops = {
    .id = PP_BACKEND_CUDA,
    .addressable = 1,
    .probe = pp_cuda_probe,
    .auto_choice = pp_cuda_auto_choice,
    .enter = pp_cuda_enter,
    .create = pp_cuda_create,
    .destroy = pp_cuda_destroy,
    .set_stream = pp_cuda_set_stream,
    .stream = pp_cuda_stream,
    .operator_build = pp_cuda_operator_build,
    .reduce_op = pp_cuda_reduce_op,
    .scan_op = pp_cuda_scan_op,
    .segmented_reduce_op = pp_cuda_segmented_reduce_op,
    .segmented_scan_op = pp_cuda_segmented_scan_op,
    .synchronize = pp_cuda_synchronize,
    .mem_alloc = pp_cuda_alloc,
    .mem_free = pp_cuda_free,
    .upload = pp_cuda_upload,
    .download = pp_cuda_download,
    .copy = pp_cuda_copy,
    .memory_info = pp_cuda_memory_info,
    .reduce =
        {
            [PP_ALGO_AUTO] = pp_cuda_reduce,
            [PP_ALGO_INTERLEAVED_DIVERGENT] = pp_cuda_study_reduce_interleaved_divergent,
            [PP_ALGO_INTERLEAVED_STRIDED] = pp_cuda_study_reduce_interleaved_strided,
            [PP_ALGO_SEQUENTIAL_ADDRESSING] = pp_cuda_study_reduce_sequential_addressing,
            [PP_ALGO_FIRST_ADD] = pp_cuda_study_reduce_first_add,
            [PP_ALGO_CASCADE] = pp_cuda_study_reduce_cascade,
            [PP_ALGO_LAUNCH_PER_STEP] = pp_cuda_study_reduce_launch_per_step,
            [PP_ALGO_WINDOWED] = pp_cuda_study_reduce_windowed,
            [PP_ALGO_WARP_SHUFFLE] = pp_cuda_study_reduce_warp_shuffle,
            [PP_ALGO_EXACT] = pp_cuda_reduce_exact,
        },
    .scan =
        {
            [PP_ALGO_AUTO] = pp_cuda_scan,
            [PP_ALGO_DECOUPLED_LOOKBACK] = pp_cuda_scan_lookback,
            [PP_ALGO_REDUCE_THEN_SCAN] = pp_cuda_scan_reduce_then_scan,
            [PP_ALGO_NAIVE] = pp_cuda_study_scan_naive,
            [PP_ALGO_HILLIS_STEELE] = pp_cuda_study_scan_hillis_steele,
            [PP_ALGO_BLELLOCH] = pp_cuda_study_scan_blelloch,
            [PP_ALGO_BLELLOCH_PADDED] = pp_cuda_study_scan_blelloch_padded,
            [PP_ALGO_WARP_SHUFFLE] = pp_cuda_study_scan_warp_shuffle,
            [PP_ALGO_EXACT] = pp_cuda_scan_exact,
        },
    /* the scans themselves, from a->init (cuda_scan.cu, cuda_exact.cu); the
     * study scans have none: pp_scan_init takes [PP_ALGO_AUTO] for them */
    .scan_init =
        {
            [PP_ALGO_AUTO] = pp_cuda_scan,
            [PP_ALGO_DECOUPLED_LOOKBACK] = pp_cuda_scan_lookback,
            [PP_ALGO_REDUCE_THEN_SCAN] = pp_cuda_scan_reduce_then_scan,
            [PP_ALGO_EXACT] = pp_cuda_scan_exact,
        },
    .histogram =
        {
            [PP_ALGO_AUTO] = pp_cuda_histogram,
            [PP_ALGO_GLOBAL_ATOMIC] = pp_cuda_study_histogram_global_atomic,
            [PP_ALGO_PRIVATE_ATOMIC] = pp_cuda_study_histogram_private_atomic,
            [PP_ALGO_PRIVATE_REDUCE] = pp_cuda_study_histogram_private_reduce,
        },
    .select =
        {
            [PP_ALGO_AUTO] = pp_cuda_select,
            [PP_ALGO_DECOUPLED_LOOKBACK] = pp_cuda_select,
            [PP_ALGO_SCAN_SCATTER] = pp_cuda_study_select_scan_scatter,
            [PP_ALGO_BALLOT] = pp_cuda_study_select_ballot,
        },
    .sort =
        {
            [PP_ALGO_AUTO] = pp_cuda_sort,
            [PP_ALGO_ONESWEEP] = pp_cuda_sort,
            [PP_ALGO_SPLIT_RADIX] = pp_cuda_study_sort_split_radix,
            [PP_ALGO_COUNT_SCAN_SCATTER] = pp_cuda_study_sort_count_scan_scatter,
        },
    .segmented_sort =
        {
            [PP_ALGO_AUTO] = pp_cuda_segmented_sort,
            [PP_ALGO_ONESWEEP] = pp_cuda_segmented_sort,
        },
    /* one kernel family, heads from offsets or keys (cuda_segmented.cu);
     * PP_ALGO_EXACT: the segmented reduce alone (cuda_segmented_exact.cu),
     * the core refuses the other exact float sums */
    .segmented_reduce = {[PP_ALGO_AUTO] = pp_cuda_segmented_reduce, [PP_ALGO_EXACT] = pp_cuda_segmented_reduce_exact},
    .segmented_scan = {[PP_ALGO_AUTO] = pp_cuda_segmented_scan},
    .reduce_by_key = {[PP_ALGO_AUTO] = pp_cuda_reduce_by_key},
    .scan_by_key = {[PP_ALGO_AUTO] = pp_cuda_scan_by_key},
    .run_length_encode = {[PP_ALGO_AUTO] = pp_cuda_run_length_encode},
    .argsort = {[PP_ALGO_AUTO] = pp_cuda_argsort},
    /* a radix select, then the default sort of the k (cuda_topk.cu) */
    .top_k = {[PP_ALGO_AUTO] = pp_cuda_top_k},
    /* every choice for sort runs these (the core falls back to AUTO) */
    .search = {[PP_ALGO_AUTO] = pp_cuda_search},
    .merge = {[PP_ALGO_AUTO] = pp_cuda_merge},
    /* converting reduce and scan, argmin / argmax (cuda_reduce_to.cu); every
     * choice runs them (the core falls back to AUTO) */
    .reduce_to = {[PP_ALGO_AUTO] = pp_cuda_reduce_to},
    .scan_to = {[PP_ALGO_AUTO] = pp_cuda_scan_to},
    .arg = {[PP_ALGO_AUTO] = pp_cuda_argminmax},
    /* Onesweep and its short paths read the inputs themselves (cuda_sort.cu);
     * the study sorts sort in place after the core's copy. */
    .sort_reads_inputs = {[PP_ALGO_AUTO] = 1, [PP_ALGO_ONESWEEP] = 1},
    .exact_sum = pp_cuda_exact_sum,
    .half_reduce = pp_cuda_half_reduce,
    .half_scan = pp_cuda_half_scan,
    .half_scan_init = pp_cuda_half_scan,
    .half_segmented_reduce = pp_cuda_half_segmented_sum,
    .half_segmented_scan = pp_cuda_half_segmented_scan,
    .half_map = pp_cuda_half_map,
};
