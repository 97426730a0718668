/* cpu search and merge: pp_lower_bound, pp_upper_bound, pp_merge and
 * pp_merge_pairs (the kernels per type: cpu_search.inc).
 *   search: the queries cut into one contiguous part per thread, each query
 *     a binary search without data-dependent branches over the sorted keys'
 *     order keys (the sort's radix keys, cpu_rkey.inc, XOR the order's
 *     mask), SEARCH_LANES queries stepping down together so that their
 *     misses overlap.
 *   merge: the merge path. The na + nb outputs are cut into one equal part
 *     per thread; each thread finds where its part starts and ends in a and
 *     b by a binary search along the diagonal of the part's first (last)
 *     output, then merges its part with the two-finger loop run from both
 *     ends at once (a's key first among equals, so the merge is stable and
 *     its result independent of the thread count).
 * PP_ALGO_SEQUENTIAL: the same kernels on one thread. No working memory.
 */
#include "cpu_sort.h"

#include <omp.h>

/* Queries per thread at least, and merge outputs per thread at least. */
#define SEARCH_GRAIN ((size_t)1 << 12)
#define MERGE_GRAIN ((size_t)1 << 15)
/* Queries that step down the sorted keys together (cpu_search.inc). */
#define SEARCH_LANES 16

#define PP_CPU_TEMPLATE "cpu_search.inc"
#include "cpu_each_type.inc"

typedef void (*search_fn)(const void *s, size_t n, const void *q, size_t qb, size_t qe, uint64_t *out, uint64_t mask,
                          uint64_t nanfix, int upper);
typedef void (*merge_fn)(const void *a, const void *av, size_t na, const void *b, const void *bv, size_t nb, void *out,
                         void *vout, size_t vs, uint64_t mask, uint64_t nanfix, size_t d0, size_t d1);
#define SEARCH_ENTRY(E, T, S, K, U, W) [E] = search_##S,
#define MERGE_ENTRY(E, T, S, K, U, W) [E] = merge_part_##S,
static const search_fn search_table[PP_TYPE_COUNT] = {PP_FOR_EACH_TYPE(SEARCH_ENTRY)};
static const merge_fn merge_table[PP_TYPE_COUNT] = {PP_FOR_EACH_TYPE(MERGE_ENTRY)};

/* What makes a NaN's order key all ones (after every key): floats in
 * PP_DESCENDING_NAN_LAST; integers have no NaN (that order is
 * PP_DESCENDING's for them). */
static uint64_t nan_fix(pp_type t, pp_order o)
{
    return o == PP_DESCENDING_NAN_LAST && pp_type_kind(t) == PP_KIND_FLOAT ? ~(uint64_t)0 : 0;
}

static pp_status search_on(pp_context *ctx, const pp_search_args *a, int nt)
{
    (void)ctx;
    if (a->n == 0) {
        memset(a->out, 0, a->m * sizeof(uint64_t));
        return PP_SUCCESS;
    }
    const search_fn f = search_table[a->type];
    const uint64_t mask = pp_cpu_sort_mask(a->order), nanfix = nan_fix(a->type, a->order);
#pragma omp parallel num_threads(nt)
    {
        size_t b, e;
        pp_cpu_part(a->m, (size_t)omp_get_num_threads(), (size_t)omp_get_thread_num(), &b, &e);
        if (b < e) f(a->sorted, a->n, a->queries, b, e, a->out, mask, nanfix, a->upper);
    }
    return PP_SUCCESS;
}

pp_status pp_cpu_search(pp_context *ctx, const pp_search_args *a)
{
    return search_on(ctx, a, pp_cpu_threads_for(ctx, a->m, SEARCH_GRAIN));
}

pp_status pp_cpu_search_sequential(pp_context *ctx, const pp_search_args *a) { return search_on(ctx, a, 1); }

static pp_status merge_on(pp_context *ctx, const pp_merge_args *a, int nt)
{
    (void)ctx;
    const merge_fn f = merge_table[a->type];
    const uint64_t mask = pp_cpu_sort_mask(a->order), nanfix = nan_fix(a->type, a->order);
    const size_t n = a->na + a->nb;
#pragma omp parallel num_threads(nt)
    {
        size_t d0, d1;
        pp_cpu_part(n, (size_t)omp_get_num_threads(), (size_t)omp_get_thread_num(), &d0, &d1);
        if (d0 < d1)
            f(a->a_keys, a->a_values, a->na, a->b_keys, a->b_values, a->nb, a->keys_out, a->values_out, a->value_size,
              mask, nanfix, d0, d1);
    }
    return PP_SUCCESS;
}

pp_status pp_cpu_merge(pp_context *ctx, const pp_merge_args *a)
{
    return merge_on(ctx, a, pp_cpu_threads_for(ctx, a->na + a->nb, MERGE_GRAIN));
}

pp_status pp_cpu_merge_sequential(pp_context *ctx, const pp_merge_args *a) { return merge_on(ctx, a, 1); }
