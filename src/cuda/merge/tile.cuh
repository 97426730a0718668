// One tile of the merge (cuda_merge.cu): merge_tile<U, V>() outputs per block.
// The block loads its piece of a and its piece of b (bounded by the tile's
// splits, merge/split.cuh) into shared memory, coalesced, a's piece first;
// each thread finds its own split of the tile by a binary search in shared
// memory and merges merge_items<U, V>() outputs serially, a's key first among
// equals; the keys, and each output's source in the tile, go back to shared
// memory, and the block writes them out coalesced, the values gathered from
// the tile's values (loaded beside the keys) by source index.
//
// Bounds whatever a and b hold: the tile's share of a is clamped to what
// both inputs have left past the tile's first split (on sorted keys it is
// exactly the next split's), so the pieces lie in a and b and add up to the
// tile's outputs; every index into shared memory is clamped into the tile.
#ifndef PP_CUDA_MERGE_TILE_CUH
#define PP_CUDA_MERGE_TILE_CUH

#include <stdint.h>

#include "split.cuh"

namespace {

template <bool FLOAT, typename U, typename V>
__global__ void __launch_bounds__(kMergeBlock) merge_tile_kernel(const MergeArgs p)
{
    typedef Radix<FLOAT, U> R;
    constexpr bool HAS = VInfo<V>::has;
    constexpr int ITEMS = merge_items<U, V>(), TILE = merge_tile<U, V>();
    __shared__ U keys[TILE];
    __shared__ V vals[HAS ? TILE : 1];
    __shared__ uint16_t src[HAS ? TILE : 1]; // each output's position in the tile (pairs)
    const U xm = (U)p.xmask, nk = (U)p.nan_key;
    const uint64_t na = p.na, nb = p.nb, n = na + nb;
    const U *ak = (const U *)p.a_keys, *bk = (const U *)p.b_keys;
    const V *av = (const V *)p.a_vals, *bv = (const V *)p.b_vals;

    for (uint64_t t = blockIdx.x; t < p.tiles; t += gridDim.x) {
        const uint64_t d0 = t * TILE, d1 = n - d0 < (uint64_t)TILE ? n : d0 + TILE;
        const uint32_t cnt = (uint32_t)(d1 - d0); // 1 .. TILE
        const uint64_t i0 = p.splits[t], j0 = d0 - i0, i1 = p.splits[t + 1];
        // a's share: i1 - i0 clamped into [lo, hi] (see above)
        const uint64_t lo = cnt > nb - j0 ? cnt - (nb - j0) : 0, hi = cnt < na - i0 ? cnt : na - i0;
        uint64_t an64 = i1 > i0 ? i1 - i0 : 0;
        an64 = an64 < lo ? lo : an64 > hi ? hi : an64;
        const uint32_t an = (uint32_t)an64, bn = cnt - an;

        __syncthreads(); // the previous tile's outputs are written
        // tile position k < an reads pa[k], else pb[k] (b's piece shifted
        // down by an: pb[an] is b's first key of the tile)
        const U *pa = ak + i0, *pb = bk + j0 - an;
        for (uint32_t k = threadIdx.x; k < cnt; k += kMergeBlock) {
            keys[k] = k < an ? pa[k] : pb[k];
            if constexpr (HAS) vals[k] = k < an ? av[i0 + k] : bv[j0 + k - an];
        }
        __syncthreads();

        // this thread's outputs [first, first + mine) of the tile: a's
        // piece is keys[0, an), b's keys[an, cnt)
        const uint32_t first = threadIdx.x * ITEMS < cnt ? threadIdx.x * ITEMS : cnt;
        const uint32_t mine = cnt - first < (uint32_t)ITEMS ? cnt - first : (uint32_t)ITEMS;
        const uint32_t s = merge_split<FLOAT, U, uint32_t>(keys, an, keys + an, bn, first, xm, nk);
        uint32_t i = s, j = an + (first - s);
        // The next key of each side stays in registers with its radix key:
        // a step compares two radix keys, then loads and maps the one key
        // that replaces the output (the clamps keep reads in the tile; an
        // index past its side is never taken: i < an and j < cnt while
        // outputs remain, the split leaving exactly cnt - first keys).
        const uint32_t last = cnt - 1;
        U x = keys[i < last ? i : last], y = keys[j < last ? j : last];
        U mx = R::map(x, xm, nk), my = R::map(y, xm, nk);
        U out[ITEMS];
        uint16_t from[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; k++) {
            const bool tb = i >= an || (j < cnt && my < mx);
            out[k] = tb ? y : x;
            from[k] = (uint16_t)(tb ? j : i);
            const uint32_t nx = (tb ? j : i) + 1;
            const U z = keys[nx < last ? nx : last];
            const U mz = R::map(z, xm, nk);
            if (tb) {
                j = nx;
                y = z;
                my = mz;
            } else {
                i = nx;
                x = z;
                mx = mz;
            }
        }
        __syncthreads(); // every thread's merge has read the keys
#pragma unroll
        for (int k = 0; k < ITEMS; k++)
            if ((uint32_t)k < mine) {
                keys[first + k] = out[k];
                if constexpr (HAS) src[first + k] = from[k];
            }
        __syncthreads();
        U *ko = (U *)p.keys_out + d0;
        for (uint32_t k = threadIdx.x; k < cnt; k += kMergeBlock) ko[k] = keys[k];
        if constexpr (HAS) {
            V *vo = (V *)p.vals_out + d0;
            for (uint32_t k = threadIdx.x; k < cnt; k += kMergeBlock) vo[k] = vals[src[k]];
        }
    }
}

} // namespace

#endif
