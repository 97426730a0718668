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
// (count if none): a binary search, so offsets must be non-decreasing for
// a meaningful answer; any offsets give an index in [0, count].
__device__ __forceinline__ uint64_t seg_lower_bound(const uint64_t *off, uint64_t count, uint64_t n, uint64_t key)
{
    uint64_t lo = 0, hi = count;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        const uint64_t o = off[mid] < n ? off[mid] : n;
        if (o < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// 1 if keys[i] differs from keys[i - 1] (i >= 1) in class cls.
__device__ __forceinline__ bool seg_key_differs(int cls, const void *keys, uint64_t i)
{
    switch (cls) {
    case HEADS_B8: return ((const uint8_t *)keys)[i] != ((const uint8_t *)keys)[i - 1];
    case HEADS_B16: return ((const uint16_t *)keys)[i] != ((const uint16_t *)keys)[i - 1];
    case HEADS_B32: return ((const uint32_t *)keys)[i] != ((const uint32_t *)keys)[i - 1];
    case HEADS_B64: return ((const uint64_t *)keys)[i] != ((const uint64_t *)keys)[i - 1];
    case HEADS_F32: return !(((const float *)keys)[i] == ((const float *)keys)[i - 1]);
    default: return !(((const double *)keys)[i] == ((const double *)keys)[i - 1]);
    }
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

// Marks the heads of the tile [b, b + valid) of n elements: fl[j] = 1 where
// element b + j starts a segment or run (fl[0 .. valid] zero on entry).
// Offsets: every offset s in [0, nseg], clamped to n, that falls inside the
// tile (the tile's first one found by binary search, then BLOCK offsets a
// round while a round still has one below the tile's end; any offsets stop
// within nseg + 1 reads and mark only inside the tile). Keys: every
// element; fl[valid] = 1 too if the element after the tile starts a run or
// the tile ends the input (what the reduce by key needs for its last
// element). Every thread of the block must call it.
template <int BLOCK>
__device__ __forceinline__ void seg_mark_heads(int cls, const uint64_t *off, uint64_t nseg, const void *keys,
                                               uint64_t n, uint64_t b, uint64_t valid, uint8_t *fl)
{
    if (cls == HEADS_OFFSETS) {
        __shared__ uint64_t s_first;
        if (threadIdx.x == 0) s_first = seg_lower_bound(off, nseg + 1, n, b);
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
    } else {
        for (uint64_t j = threadIdx.x; j <= valid; j += BLOCK) {
            const uint64_t i = b + j;
            fl[j] = i == 0 || i >= n || seg_key_differs(cls, keys, i);
        }
    }
}

#endif
