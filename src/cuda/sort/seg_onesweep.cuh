// The segmented sort's large segments (cuda_segsort.cu): one batched
// Onesweep over all of them, whose tiles never straddle a segment.
//
//   seg_plan_kernel    numbers the tiles: segment i of the large list owns
//                      tiles [tile_start[i], tile_start[i + 1]) and its
//                      look-back portions from portion_start[i];
//   seg_count_kernel   counts every digit position of each tile into its
//                      segment's histograms (cleared by seg_classify_kernel),
//                      and clears the first pass's look-back rows and the
//                      segments' carries;
//   seg_digits_kernel  turns each segment's counts into its exclusive digit
//                      offsets per pass, and marks a pass active where some
//                      segment has more than one digit value there;
//   seg_pass_kernel    one launch per digit position: every tile is a tile of
//                      pp_sort's Onesweep (pass_tile of sort/pass_tile.cuh)
//                      over its segment alone, its look-back and carries
//                      within the segment, its digit offsets the segment's;
//   seg_copy_back_kernel  copies the large segments back from the alternate
//                      buffers after an odd number of active passes.
//
// The passes alternate between the user's arrays and alternate arrays of n
// elements, at the same positions (a segment's keys stay within its range);
// route_passes (sort/count.cuh) places them, from the active flags, as in
// pp_sort. The kernels run over a grid fixed on the host for the worst case
// (every tile of n keys, one partial tile per listed segment) and loop over
// the tiles that exist (the plan's count, read on the device): no host
// synchronization. Internal linkage: included by cuda_segsort.cu only.
#ifndef PP_CUDA_SORT_SEG_ONESWEEP_CUH
#define PP_CUDA_SORT_SEG_ONESWEEP_CUH

#include "../device/block_scan.cuh"
#include "onesweep.cuh"
#include "segmented.cuh"

namespace
{

struct SegLargeArgs {
    void *keys, *vals, *alt_keys,
        *alt_vals;               // vals, alt_vals: NULL without values
    const Seg *list;             // the large list
    unsigned long long cap;      // its room
    unsigned int *tile_start;    // [cap + 1]
    unsigned int *portion_start; // [cap + 1]
    unsigned long long *hist;    // [cap][passes][256] digit counts
    unsigned long long *pbase;   // [cap][passes][256] exclusive digit offsets
    uint32_t *status;            // [2][tile_cap][256] look-back rows
    unsigned long long *carry;   // [passes][portion_cap][256] portion starts + 1
    unsigned int tile_cap, portion_cap;
    unsigned long long xmask;
    long long nan_key;
    SegCtrl *ctrl;
    int pass;
};

constexpr int kSegPlanBlock = 1024;
constexpr int kSegCountBlock = 256;

// The large segment that owns tile t (< ctrl->tiles): the last i with
// tile_start[i] <= t (segments without tiles share their start with the
// next one, so the last is the one with tiles).
__device__ __forceinline__ unsigned seg_of_tile(const unsigned int *tile_start, unsigned nl, unsigned t)
{
    unsigned lo = 0, hi = nl; // tile_start[lo] <= t < tile_start[hi]
    while (hi - lo > 1) {
        const unsigned mid = (lo + hi) / 2;
        if (tile_start[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

// One block: the tile and portion numbering of the listed large segments
// (tiles of TILE keys, portions of tpp tiles), in rounds of the block's
// size. Tiles past tile_cap (only with bad offsets: overlapping segments)
// are dropped, so a segment may keep fewer tiles than its keys need; every
// later kernel works on the tiles kept alone.
template <int TILE> __global__ void __launch_bounds__(kSegPlanBlock)
    seg_plan_kernel(const SegLargeArgs a, unsigned int tpp)
{
    __shared__ uint64_t s_scan[kSegPlanBlock / 32];
    const uint64_t listed = a.ctrl->count[kSegLarge];
    const unsigned nl = (unsigned)(listed < a.cap ? listed : a.cap);
    uint64_t tiles = 0, portions = 0; // before this round
    for (unsigned r = 0; r < nl; r += kSegPlanBlock) {
        const unsigned i = r + threadIdx.x;
        const uint64_t want = i < nl ? (a.list[i].len + TILE - 1) / TILE : 0;
        uint64_t all;
        const uint64_t t0 = tiles + pp_block_exclusive<uint64_t, Op_sum, kSegPlanBlock>(want, &all, s_scan);
        const uint64_t lo = t0 < a.tile_cap ? t0 : a.tile_cap;
        const uint64_t hi = t0 + want < a.tile_cap ? t0 + want : a.tile_cap;
        const uint64_t pw = (hi - lo + tpp - 1) / tpp;
        uint64_t pall;
        const uint64_t p0 = portions + pp_block_exclusive<uint64_t, Op_sum, kSegPlanBlock>(pw, &pall, s_scan);
        if (i < nl) {
            a.tile_start[i] = (unsigned)lo;
            a.portion_start[i] = (unsigned)p0; // below portion_cap: at most one partial portion per segment
        }
        tiles += all;
        portions += pall;
    }
    if (threadIdx.x == 0) {
        const unsigned total = (unsigned)(tiles < a.tile_cap ? tiles : a.tile_cap);
        a.tile_start[nl] = total;
        a.portion_start[nl] = (unsigned)portions;
        a.ctrl->tiles = total;
        a.ctrl->large = nl;
    }
}

// Tile t of the large path: its segment, its index within the segment, its
// first key (relative to the segment) and its key count.
struct SegTile {
    unsigned seg, local;
    unsigned long long begin, first;
    int count;
};
template <int TILE> __device__ __forceinline__ SegTile seg_tile(const SegLargeArgs &a, unsigned t)
{
    SegTile x;
    x.seg = seg_of_tile(a.tile_start, a.ctrl->large, t);
    x.local = t - a.tile_start[x.seg];
    const Seg sg = a.list[x.seg];
    x.begin = sg.begin;
    x.first = (unsigned long long)x.local * TILE;
    const unsigned long long left = sg.len - x.first; // > 0: the plan gives a segment no more tiles than it needs
    x.count = left < (unsigned long long)TILE ? (int)left : TILE;
    return x;
}

// Digit counts of every pass, tile by tile, into the segment's histograms
// (shared-memory counts, then one global atomic per non-zero count). Also
// clears the tile's look-back row of the first pass and, for a segment's
// first tile, the segment's carries of every pass.
template <bool FLOAT, typename U, int TILE> __global__ void __launch_bounds__(kSegCountBlock)
    seg_count_kernel(const SegLargeArgs a)
{
    typedef Radix<FLOAT, U> R;
    constexpr int NP = (int)sizeof(U);
    __shared__ uint32_t sh[NP * kRadix];
    const int tid = threadIdx.x;
    const U xm = (U)a.xmask, nk = (U)a.nan_key;
    const unsigned total = a.ctrl->tiles;
    for (unsigned t = blockIdx.x; t < total; t += gridDim.x) {
        const SegTile x = seg_tile<TILE>(a, t);
        for (int w = tid; w < NP * kRadix; w += kSegCountBlock)
            sh[w] = 0;
        a.status[(size_t)t * kRadix + tid] = 0; // kSegCountBlock == kRadix
        if (x.local == 0) {
            const unsigned p0 = a.portion_start[x.seg], p1 = a.portion_start[x.seg + 1];
            for (int p = 0; p < NP; p++)
                for (unsigned q = p0; q < p1; q++)
                    a.carry[((size_t)p * a.portion_cap + q) * kRadix + tid] = 0;
        }
        __syncthreads();
        const U *keys = (const U *)a.keys + x.begin + x.first;
        for (int j = tid; j < x.count; j += kSegCountBlock) {
            const U r = R::map(keys[j], xm, nk);
#pragma unroll
            for (int p = 0; p < NP; p++)
                atomicAdd(&sh[p * kRadix + (int)R::digit(r, 8 * p)], 1u);
        }
        __syncthreads();
        unsigned long long *h = a.hist + (size_t)x.seg * NP * kRadix;
        for (int w = tid; w < NP * kRadix; w += kSegCountBlock)
            if (sh[w]) atomicAdd(&h[w], (unsigned long long)sh[w]);
        __syncthreads(); // sh free for the next tile
    }
    static_assert(kSegCountBlock == kRadix, "a thread per digit");
}

// Per (segment, pass): the exclusive digit offsets within the segment;
// the pass is active if the segment's keys have more than one digit value.
template <int NP> __global__ void __launch_bounds__(kRadix) seg_digits_kernel(const SegLargeArgs a)
{
    __shared__ uint64_t s_scan[kRadix / 32];
    const unsigned jobs = a.ctrl->large * (unsigned)NP;
    for (unsigned job = blockIdx.x; job < jobs; job += gridDim.x) {
        const size_t row = (size_t)job * kRadix; // [seg][pass] rows are consecutive
        const int p = (int)(job % NP);
        const uint64_t c = a.hist[row + threadIdx.x];
        uint64_t all;
        a.pbase[row + threadIdx.x] = pp_block_exclusive<uint64_t, Op_sum, kRadix>(c, &all, s_scan);
        if (!__syncthreads_or(c == all) && threadIdx.x == 0) atomicOr(&a.ctrl->sort.active[p], 1u);
    }
}

// One pass over digit a.pass of every large segment. Every block first
// clears the next pass's look-back rows of its share of the tiles (rows the
// pass before this one used; as in pass_kernel), then, if the pass is
// active, takes tickets (tile numbers in the order they are taken, so that a
// tile waits only for tiles already taken) until they run out.
template <bool FLOAT, typename U, typename V>
__global__ void __launch_bounds__(PassCfg<FLOAT, U, V>::BLOCK, PassCfg<FLOAT, U, V>::MIN_BLOCKS)
    seg_pass_kernel(const SegLargeArgs a)
{
    typedef PassCfg<FLOAT, U, V> C;
    constexpr int NP = (int)sizeof(U);
    extern __shared__ __align__(16) unsigned char smem[];
    const int tid = threadIdx.x;
    const unsigned total = a.ctrl->tiles;
    uint32_t *const status = a.status + (size_t)(a.pass & 1) * a.tile_cap * kRadix;
    if (a.pass + 1 < NP) {
        uint32_t *const next = a.status + (size_t)((a.pass + 1) & 1) * a.tile_cap * kRadix;
        for (unsigned t = blockIdx.x; t < total; t += gridDim.x)
            if (tid < kRadix) next[(size_t)t * kRadix + tid] = 0;
    }
    if (!a.ctrl->sort.active[a.pass]) return;
    unsigned src_of[kMaxPasses], dst_of[kMaxPasses], back;
    route_passes(a.ctrl->sort.active, NP, 0, src_of, dst_of, &back);
    const U *src = (const U *)(src_of[a.pass] == kBufAlt ? a.alt_keys : a.keys);
    U *dst = (U *)(dst_of[a.pass] == kBufAlt ? a.alt_keys : a.keys);
    const V *srcv = (const V *)(src_of[a.pass] == kBufAlt ? a.alt_vals : a.vals);
    V *dstv = (V *)(dst_of[a.pass] == kBufAlt ? a.alt_vals : a.vals);
    uint32_t *cnt = (uint32_t *)(smem + C::OFF_CNT);
    uint32_t *misc = (uint32_t *)(smem + C::OFF_MISC);
    uint32_t *const zero = C::COUNT_PARTS > 1 ? (uint32_t *)(smem + C::OFF_STAGE) : cnt;
    for (;;) {
        if (tid == 0) misc[8] = atomicAdd(&a.ctrl->sort.ticket[a.pass], 1u);
        for (int i = tid; i < C::WARPS * kRadix * C::COUNT_PARTS; i += C::BLOCK)
            zero[i] = 0;
        __syncthreads();
        const unsigned t = misc[8];
        if (t >= total) return; // the same for every thread
        const SegTile x = seg_tile<C::TILE>(a, t);
        // The segment as pp_sort's pass sees a whole array: its look-back
        // rows, digit offsets, carries and length.
        PassArgs pa;
        pa.n = a.list[x.seg].len;
        pa.status = status + (size_t)a.tile_start[x.seg] * kRadix;
        pa.next_status = NULL;
        pa.pbase = a.pbase + (size_t)x.seg * NP * kRadix;
        pa.carry = a.carry + ((size_t)a.pass * a.portion_cap + a.portion_start[x.seg]) * kRadix;
        pa.ctrl = &a.ctrl->sort;
        pa.xmask = a.xmask;
        pa.pass = a.pass;
        pa.nan_key = (int)a.nan_key;
        pa.tiles_per_portion = kPortionLimit / C::TILE;
        pa.tiles = a.tile_start[x.seg + 1] - a.tile_start[x.seg];
        pa.wide = pa.n > ((size_t)1 << 31);
        const size_t b = x.begin;
        if (x.count == C::TILE)
            pass_tile<FLOAT, true, U, V, true, true>(pa, smem, x.local, x.count, src + b, dst + b, srcv + b, dstv + b);
        else
            pass_tile<FLOAT, true, U, V, false, true>(pa, smem, x.local, x.count, src + b, dst + b, srcv + b, dstv + b);
        __syncthreads(); // the tile's shared memory read before the next one's is
                         // cleared
    }
}

// After an odd number of active passes the large segments are in the
// alternate buffers: each tile's keys (and values) are copied back.
template <typename U, typename V, int TILE> __global__ void __launch_bounds__(256)
    seg_copy_back_kernel(const SegLargeArgs a)
{
    constexpr int NP = (int)sizeof(U);
    unsigned src_of[kMaxPasses], dst_of[kMaxPasses], back;
    route_passes(a.ctrl->sort.active, NP, 0, src_of, dst_of, &back);
    if (back != kBufAlt) return;
    const unsigned total = a.ctrl->tiles;
    for (unsigned t = blockIdx.x; t < total; t += gridDim.x) {
        const SegTile x = seg_tile<TILE>(a, t);
        const size_t at = x.begin + x.first;
        for (int j = threadIdx.x; j < x.count; j += blockDim.x) {
            ((U *)a.keys)[at + j] = ((const U *)a.alt_keys)[at + j];
            if constexpr (VInfo<V>::has) ((V *)a.vals)[at + j] = ((const V *)a.alt_vals)[at + j];
        }
    }
}

} // namespace

#endif
