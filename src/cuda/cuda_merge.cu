// pp_merge and pp_merge_pairs on the cuda backend: the merge path in two
// launches. split_kernel (merge/split.cuh) finds, for each bound of the
// output's tiles of merge_tile<U, V>() outputs, how many of a's keys come before it
// (a binary search on the diagonal, by the sort's radix keys,
// device/sort_keys.cuh: a's key first among equals, so the merge is
// stable); merge_tile_kernel (merge/tile.cuh) then merges each tile in
// shared memory, a block per tile, the values moving with their keys.
// Working memory: the tiles + 1 splits (8 bytes each) in the context's
// scratch. Nothing read back; every access in bounds whatever a and b hold.
#include "cuda_state.cuh"
#include "device/dispatch.cuh"
#include "device/util.cuh"
#include "merge/tile.cuh"

namespace {

template <bool FLOAT, typename U, typename V>
pp_status merge_typed(pp_context *ctx, const pp_merge_args *a, const KeyMap &km)
{
    const size_t n = a->na + a->nb, tiles = ceil_div(n, (size_t)merge_tile<U, V>());
    MergeArgs p;
    p.a_keys = a->a_keys;
    p.a_vals = VInfo<V>::has ? a->a_values : NULL;
    p.na = a->na;
    p.b_keys = a->b_keys;
    p.b_vals = VInfo<V>::has ? a->b_values : NULL;
    p.nb = a->nb;
    p.keys_out = a->keys_out;
    p.vals_out = VInfo<V>::has ? a->values_out : NULL;
    p.tiles = tiles;
    p.tile = (uint32_t)merge_tile<U, V>();
    p.xmask = km.xmask;
    p.nan_key = km.nan_key;
    p.splits = (uint64_t *)pp_cuda_scratch(ctx, (tiles + 1) * sizeof(uint64_t), a->fn);
    if (!p.splits) return PP_ERROR_OUT_OF_MEMORY;
    pp_cuda_state *s = pp_cuda(ctx);
    const unsigned split_grid = grid_for(ceil_div(tiles + 1, kMergeBlock), pp_cuda_resident(s, 8));
    PP_CUDA_CHECK_LAUNCH(ctx, a->fn, pp_cuda_launch(ctx, split_kernel<FLOAT, U>, split_grid, kMergeBlock, 0, p));
    const unsigned tile_grid = grid_for(tiles, 0x7fffffffu);
    PP_CUDA_CHECK_LAUNCH(ctx, a->fn, pp_cuda_launch(ctx, merge_tile_kernel<FLOAT, U, V>, tile_grid, kMergeBlock, 0, p));
    return PP_SUCCESS;
}

} // namespace

pp_status pp_cuda_merge(pp_context *ctx, const pp_merge_args *a)
{
    // values_out is non-NULL exactly for pp_merge_pairs (the core has
    // checked it), whether or not a side is empty
    return pp_dispatch_sort_key(ctx, a->fn, a->type, a->order, [&](auto k, const KeyMap &km) {
        typedef decltype(k) K;
        return pp_dispatch_values(ctx, a->fn, a->values_out, a->value_size, [&](auto v) {
            return merge_typed<K::FLOAT, typename K::U, decltype(v)>(ctx, a, km);
        });
    });
}
