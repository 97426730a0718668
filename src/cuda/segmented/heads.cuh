// Where segments and runs start (their heads), for one tile of the
// segmented kernels (segmented/tile.cuh): from offsets (segment s starts at
// min(offsets[s], n)) or from neighbouring keys (a run starts where a key
// differs from the one before it, by C's ==), and the copy of a run's first
// key. Keys come in comparison classes, not types: integers compare by
// their bits (8, 16, 32 or 64), floats by == (NaNs never equal, -0.0 ==
// +0.0), so that the kernels are instantiated per value type and operator
// alone.
#ifndef PP_CUDA_SEGMENTED_HEADS_CUH
#define PP_CUDA_SEGMENTED_HEADS_CUH

#include <stdint.h>

#include "../device/ops.cuh"

enum seg_heads { HEADS_OFFSETS, HEADS_B8, HEADS_B16, HEADS_B32, HEADS_B64, HEADS_F32, HEADS_F64 };

// The comparison class of a key type.
inline int seg_key_class(pp_type t)
{
    if (t == PP_F32) return HEADS_F32;
    if (t == PP_F64) return HEADS_F64;
    switch (pp_type_size(t)) {
    case 1: return HEADS_B8;
    case 2: return HEADS_B16;
    case 4: return HEADS_B32;
    default: return HEADS_B64;
    }
}

// The first index in [0, count) whose offset, clamped to n, is >= key
// (count if none), found by the 32 lanes of one warp: a 32-way search,
// each round reading the last offset of each of 32 chunks of the range and
// keeping the chunk where the answer lies, so that a tile waits on about
// log32(count) dependent reads instead of a binary search's log2(count).
// Offsets must be non-decreasing for a meaningful answer; any offsets give
// an index in [0, count] (the range shrinks every round). Every lane
// returns the same index.
__device__ __forceinline__ uint64_t seg_warp_lower_bound(const uint64_t *off, uint64_t count, uint64_t n,
                                                         uint64_t key)
{
    const unsigned lane = threadIdx.x & 31;
    uint64_t lo = 0, hi = count; // the answer is in [lo, hi]
    while (hi > lo) {
        const uint64_t step = (hi - lo + 31) / 32;
        const uint64_t first = lo + lane * step;
        const bool live = first < hi;
        const uint64_t q = live ? (first + step < hi ? first + step : hi) - 1 : 0;
        bool below = false;
        if (live) below = (off[q] < n ? off[q] : n) < key;
        const unsigned m = __ballot_sync(0xffffffffu, below);
        const unsigned lives = __ballot_sync(0xffffffffu, live);
        const unsigned c = ~m ? __ffs(~m) - 1 : 32; // leading chunks wholly below key
        if (c >= (unsigned)__popc(lives)) {
            lo = hi;
        } else {
            const uint64_t qc = (lo + (c + 1) * step < hi ? lo + (c + 1) * step : hi) - 1;
            lo = lo + c * step;
            hi = qc;
        }
    }
    return lo;
}

// keys_out[r] = keys[i], bit for bit, in class cls.
__device__ __forceinline__ void seg_key_copy(int cls, const void *keys, uint64_t i, void *keys_out, uint64_t r)
{
    switch (cls) {
    case HEADS_B8: ((uint8_t *)keys_out)[r] = ((const uint8_t *)keys)[i]; break;
    case HEADS_B16: ((uint16_t *)keys_out)[r] = ((const uint16_t *)keys)[i]; break;
    case HEADS_B32:
    case HEADS_F32: ((uint32_t *)keys_out)[r] = ((const uint32_t *)keys)[i]; break;
    default: ((uint64_t *)keys_out)[r] = ((const uint64_t *)keys)[i]; break;
    }
}

// The heads of a tile from keys of type K (an integer type of the key's
// size, or float or double), compared by C's ==: fl[j] = 1 where element
// b + j starts a run, for j in [0, valid], and fl[valid] = 1 too if the
// element after the tile starts a run or the tile ends the input (what the
// reduce by key needs for its last element); fl[j] = 0 for j in (valid,
// TILE]. A whole tile loads all its keys (and their predecessors, mostly
// from L1) before it compares any.
template <typename K, int BLOCK, int ITEMS>
__device__ __forceinline__ void seg_mark_keys(const K *keys, uint64_t n, uint64_t b, uint64_t valid, uint8_t *fl)
{
    constexpr uint64_t TILE = (uint64_t)BLOCK * ITEMS;
    if (valid == TILE) {
        K cur[ITEMS], prev[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; k++) {
            const uint64_t i = b + threadIdx.x + (uint64_t)k * BLOCK;
            cur[k] = keys[i];
            prev[k] = keys[i > 0 ? i - 1 : 0];
        }
#pragma unroll
        for (int k = 0; k < ITEMS; k++) {
            const uint64_t j = threadIdx.x + (uint64_t)k * BLOCK;
            fl[j] = b + j == 0 || !(cur[k] == prev[k]);
        }
        if (threadIdx.x == 0) fl[TILE] = b + TILE >= n || !(keys[b + TILE] == keys[b + TILE - 1]);
    } else {
        for (uint64_t j = threadIdx.x; j <= TILE; j += BLOCK) {
            const uint64_t i = b + j;
            fl[j] = j > valid ? 0 : i == 0 || i >= n || !(keys[i] == keys[i - 1]);
        }
    }
}

// Marks the heads of the tile [b, b + valid) of n elements in fl[0 ..
// TILE] (BLOCK * ITEMS = TILE). Offsets: fl zeroed, then every offset s in
// [0, nseg], clamped to n, that falls inside the tile (the tile's first
// one found by seg_warp_lower_bound, then BLOCK offsets a round while a round
// still has one below the tile's end; any offsets stop within nseg + 1
// reads and mark only inside the tile). Keys: seg_mark_keys in the keys'
// class. Every thread of the block must call it; it ends with a barrier.
template <int BLOCK, int ITEMS>
__device__ __forceinline__ void seg_mark_heads(int cls, const uint64_t *off, uint64_t nseg, const void *keys,
                                               uint64_t n, uint64_t b, uint64_t valid, uint8_t *fl)
{
    switch (cls) {
    case HEADS_OFFSETS: {
        __shared__ uint64_t s_first;
        for (uint64_t j = threadIdx.x; j <= (uint64_t)BLOCK * ITEMS; j += BLOCK) fl[j] = 0;
        if (threadIdx.x < 32) {
            const uint64_t f = seg_warp_lower_bound(off, nseg + 1, n, b);
            if (threadIdx.x == 0) s_first = f;
        }
        __syncthreads();
        for (uint64_t c = s_first; c <= nseg; c += BLOCK) {
            const uint64_t s = c + threadIdx.x;
            bool more = false;
            if (s <= nseg) {
                const uint64_t o = off[s] < n ? off[s] : n;
                if (o < b + valid) {
                    if (o >= b) fl[o - b] = 1;
                    more = true;
                }
            }
            if (!__syncthreads_or(more)) break;
        }
        break;
    }
    case HEADS_B8: seg_mark_keys<uint8_t, BLOCK, ITEMS>((const uint8_t *)keys, n, b, valid, fl); break;
    case HEADS_B16: seg_mark_keys<uint16_t, BLOCK, ITEMS>((const uint16_t *)keys, n, b, valid, fl); break;
    case HEADS_B32: seg_mark_keys<uint32_t, BLOCK, ITEMS>((const uint32_t *)keys, n, b, valid, fl); break;
    case HEADS_B64: seg_mark_keys<uint64_t, BLOCK, ITEMS>((const uint64_t *)keys, n, b, valid, fl); break;
    case HEADS_F32: seg_mark_keys<float, BLOCK, ITEMS>((const float *)keys, n, b, valid, fl); break;
    default: seg_mark_keys<double, BLOCK, ITEMS>((const double *)keys, n, b, valid, fl); break;
    }
    __syncthreads();
}

#endif
