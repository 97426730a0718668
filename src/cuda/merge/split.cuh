// The merge path's split (cuda_merge.cu): where a diagonal of the output
// cuts a and b, found by a binary search on the diagonal, in global memory
// for the tiles' bounds (split_kernel) and in shared memory for each
// thread's part of a tile (merge/tile.cuh). Keys compare by the sort's
// radix keys (device/sort_keys.cuh), a's key first among equals, so the
// merge is stable and unique.
#ifndef PP_CUDA_MERGE_SPLIT_CUH
#define PP_CUDA_MERGE_SPLIT_CUH

#include <stdint.h>

#include "../device/sort_keys.cuh"

namespace {

constexpr int kMergeBlock = 256;

// Outputs per thread (odd: fewer bank conflicts through shared memory):
// more where a tile's keys, values and sources still fit the 48 KiB of
// static shared memory, so the per-thread split and the block's barriers
// are paid over more outputs (bench/studies/cuda-search-topk.md, merge).
template <typename U, typename V> __host__ __device__ constexpr int merge_items()
{
    return (int)sizeof(U) + VInfo<V>::bytes <= 4 ? 23 : (int)sizeof(U) + VInfo<V>::bytes <= 8 ? 15 : 7;
}
template <typename U, typename V> __host__ __device__ constexpr int merge_tile()
{
    return kMergeBlock * merge_items<U, V>();
}

// The split of diagonal d <= na + nb: the number i of a's keys among the
// first d outputs, in [max(0, d - nb), min(d, na)], whatever the keys hold.
// Every probe is in bounds: lo <= mid < hi <= min(d, na), so mid < na and
// 0 <= d - 1 - mid < nb. a and b are generic pointers (global or shared).
template <bool FLOAT, typename U, typename I>
__device__ __forceinline__ I merge_split(const U *a, I na, const U *b, I nb, I d, U xm, U nk)
{
    typedef Radix<FLOAT, U> R;
    I lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
    while (lo < hi) {
        const I mid = lo + (hi - lo) / 2;
        if (!(R::map(b[d - 1 - mid], xm, nk) < R::map(a[mid], xm, nk)))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

struct MergeArgs {
    const void *a_keys, *a_vals; // a side of 0 keys may be NULL (never read)
    uint64_t na;
    const void *b_keys, *b_vals;
    uint64_t nb;
    void *keys_out, *vals_out; // vals: NULL for keys alone
    uint64_t *splits;          // tiles + 1 splits, one per tile bound
    uint64_t tiles;            // ceil((na + nb) / tile)
    uint32_t tile;             // outputs per tile: merge_tile<U, V>()
    unsigned long long xmask;
    long long nan_key; // with xmask, the KeyMap of Radix::map
};

// splits[p] = the split of diagonal min(p * tile, na + nb), for every
// tile bound p in [0, tiles], grid-stride.
template <bool FLOAT, typename U> __global__ void __launch_bounds__(kMergeBlock) split_kernel(const MergeArgs p)
{
    const U xm = (U)p.xmask, nk = (U)p.nan_key;
    const uint64_t n = p.na + p.nb;
    const uint64_t stride = (uint64_t)gridDim.x * kMergeBlock;
    for (uint64_t t = (uint64_t)blockIdx.x * kMergeBlock + threadIdx.x; t <= p.tiles; t += stride) {
        const uint64_t d = t < p.tiles ? t * p.tile : n;
        p.splits[t] = merge_split<FLOAT, U, uint64_t>((const U *)p.a_keys, p.na, (const U *)p.b_keys, p.nb, d, xm, nk);
    }
}

} // namespace

#endif
