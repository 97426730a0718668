// pp_lower_bound and pp_upper_bound on the cuda backend: one launch of
// search_kernel (search/bounds.cuh), a thread per query (several queries
// stepping down together), a branch-free binary search over the radix keys
// of `sorted` (device/sort_keys.cuh: pp_sort's order, NaNs where the order
// puts them, -0.0 before +0.0), the first levels of the search from a tree
// of keys each block keeps in shared memory. The grid is at most the
// blocks resident at once (occupancy API): each block loads the tree once,
// then loops over its queries. n == 0: every result is 0 (a memset). No
// working memory, nothing read back; every access in bounds whatever
// `sorted` holds.
#include "cuda_state.cuh"
#include "device/dispatch.cuh"
#include "device/util.cuh"
#include "search/bounds.cuh"

namespace {

template <bool FLOAT, typename U> pp_status search_typed(pp_context *ctx, const pp_search_args *a, const KeyMap &km)
{
    if (a->n == 0) return pp_cuda_zero(ctx, a->out, a->m * sizeof(uint64_t), a->fn);
    SearchArgs p;
    p.sorted = a->sorted;
    p.n = a->n;
    p.queries = a->queries;
    p.m = a->m;
    p.out = a->out;
    p.xmask = km.xmask;
    p.nan_key = km.nan_key;
    const int steps = search_steps(a->n);
    p.levels = steps < kTreeLevels ? steps : kTreeLevels;
    void (*const kernel)(const SearchArgs) = a->upper ? search_kernel<FLOAT, U, true> : search_kernel<FLOAT, U, false>;
    // as many blocks as are resident at once (more would wait for a slot
    // and then run their share of the queries after the others)
    int per_sm = 0;
    PP_CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kSearchBlock, 0), a->fn);
    const size_t per_block = (size_t)kSearchBlock * kQueriesPerThread;
    const unsigned grid =
        grid_for(ceil_div(a->m, per_block), pp_cuda_resident(pp_cuda(ctx), per_sm > 0 ? (size_t)per_sm : 1));
    PP_CUDA_CHECK_LAUNCH(ctx, a->fn, pp_cuda_launch(ctx, kernel, grid, kSearchBlock, 0, p));
    return PP_SUCCESS;
}

} // namespace

pp_status pp_cuda_search(pp_context *ctx, const pp_search_args *a)
{
    return pp_dispatch_sort_key(ctx, a->fn, a->type, a->order, [&](auto k, const KeyMap &km) {
        typedef decltype(k) K;
        return search_typed<K::FLOAT, typename K::U>(ctx, a, km);
    });
}
