// The kernel of every "segmented by heads" call (cuda_segmented.cu): the
// segmented reduce and scan over offsets, reduce_by_key, scan_by_key and
// run_length_encode. One pass over tiles of TILE contiguous elements, one
// tile per block, tiles numbered by a ticket in the order blocks start:
// each tile loads its values, marks its heads (segmented/heads.cuh), folds
// its (flag, value) pairs (segmented/pair.cuh) and counts its heads, learns
// the carry of the tiles before it by the look-back of
// segmented/lookback.cuh (reproducible: float results depend on the input
// alone), then scans the tile from that carry, restarting at heads, and
// makes the mode's writes.
// Modes (SegParams::mode): SEG_SCAN writes out[i] for i in [min(offsets[0],
// n), min(offsets[nseg], n)); SEG_REDUCE writes out[s] for the segments s
// whose clamped end lies in the tile (b < e: the inclusive scan at e - 1;
// else the identity); KEY_SCAN writes every out[i]; KEY_REDUCE (and RLE,
// with every value 1 and out the counts) writes, for each run r (its
// number: the heads before it, from the carry), its first key at
// keys_out[r] from the tile where it starts and its fold at out[r] from
// the tile where it ends (seg_key_rows).
#ifndef PP_CUDA_SEGMENTED_TILE_CUH
#define PP_CUDA_SEGMENTED_TILE_CUH

#include "../device/block_scan.cuh"
#include "heads.cuh"
#include "lookback.cuh"
#include "pair.cuh"

constexpr int SEG_BLOCK = 256;
constexpr int SEG_WARPS = SEG_BLOCK / 32;
// Elements per thread: odd, so that a thread's run of elements in shared
// memory (stride ITEMS words) meets no bank conflicts across a warp.
template <typename T> __host__ __device__ constexpr int seg_items() { return sizeof(T) <= 4 ? 31 : 15; }
template <typename T> __host__ __device__ constexpr uint64_t seg_tile() { return (uint64_t)SEG_BLOCK * seg_items<T>(); }

enum seg_mode { SEG_REDUCE, SEG_SCAN, KEY_REDUCE, KEY_SCAN, KEY_RLE };

template <typename T> struct SegParams {
    const T *in;       // values; NULL: every value is 1 (run lengths)
    T *out;            // see the modes
    uint64_t n;
    uint64_t ntiles;   // >= 1
    int mode;
    int heads;         // seg_heads: HEADS_OFFSETS or the keys' class
    int exclusive;
    const uint64_t *offsets;
    uint64_t nseg;
    const void *keys;
    void *keys_out;
    uint64_t *count;   // KEY_REDUCE, RLE: the number of runs
    seg_lb lb;         // the look-back's arena and epoch
    unsigned long long *ticket;
    unsigned long long tbase;
};

// SEG_REDUCE's writes for tile [b, e_tile): segment s whose end e =
// min(offsets[s + 1], n) lies in (b, e_tile] gets incl[e - 1 - b] (incl:
// the tile's inclusive scan, restarted at heads) or, if empty (e <= its
// start), the identity; tile 0 also writes the segments ending at 0. The
// first such segment by seg_warp_lower_bound, then BLOCK a round while a round
// still has one ending in the tile: every write is to out[0 .. nseg) and
// every read inside the tile, whatever the offsets.
template <typename T, typename Op>
__device__ __forceinline__ void seg_reduce_writes(const SegParams<T> &p, uint64_t tile, uint64_t b, uint64_t e_tile,
                                                  const T *incl)
{
    __shared__ uint64_t s_first;
    const T id = pp_public_identity<T, Op>();
    if (threadIdx.x < 32) {
        const uint64_t f = tile == 0 ? 0 : seg_warp_lower_bound(p.offsets + 1, p.nseg, p.n, b + 1);
        if (threadIdx.x == 0) s_first = f;
    }
    __syncthreads();
    for (uint64_t c = s_first; c < p.nseg; c += SEG_BLOCK) {
        const uint64_t s = c + threadIdx.x;
        bool more = false;
        if (s < p.nseg) {
            const uint64_t e = p.offsets[s + 1] < p.n ? p.offsets[s + 1] : p.n;
            if (e <= e_tile) {
                const uint64_t sb = p.offsets[s] < p.n ? p.offsets[s] : p.n;
                more = true;
                if (e > b) p.out[s] = sb < e ? incl[e - 1 - b] : id;
                else if (tile == 0) p.out[s] = id;
            }
        }
        if (!__syncthreads_or(more)) break;
    }
}

// KEY_REDUCE's and RLE's writes for tile [b, b + valid), sv holding the
// tile's inclusive scan (restarted at heads), fl its heads (fl[valid]: the
// element after the tile starts a run, or the input ends), ends[e] the
// position of the tile's e-th run end (an element j < valid with fl[j +
// 1]), runbase the heads before the tile and htotal those in it. Both kinds
// of rows are written coalesced: the value of each run that ends in the
// tile (the continued run first, if the tile does not start with a head)
// at out[runbase - 1 + fl[0] + e]; the first key of each run that starts
// in it at keys_out[runbase + h], found one past the end of the run
// before it. Every thread of the block must call it.
template <typename T>
__device__ __forceinline__ void seg_key_rows(const SegParams<T> &p, uint64_t b, uint64_t valid, uint64_t runbase,
                                             uint32_t htotal, const T *sv, const uint8_t *fl, const uint16_t *ends)
{
    const uint32_t head0 = fl[0];
    const uint32_t nend = htotal - head0 + fl[valid]; // heads in [1, valid]
    const uint64_t obase = runbase - 1 + head0;
    for (uint32_t e = threadIdx.x; e < nend; e += SEG_BLOCK) p.out[obase + e] = sv[ends[e]];
    for (uint32_t h = threadIdx.x; h < htotal; h += SEG_BLOCK) {
        const uint32_t j = h == 0 && head0 ? 0u : ends[h - head0] + 1u;
        seg_key_copy(p.heads, p.keys, b + j, p.keys_out, runbase + h);
    }
}

// Dynamic shared memory of a launch in mode: the run ends' positions for
// KEY_REDUCE and RLE, none otherwise.
template <typename T> inline size_t seg_dynamic_smem(int mode)
{
    return mode == KEY_REDUCE || mode == KEY_RLE ? seg_tile<T>() * sizeof(uint16_t) : 0;
}

template <typename T, typename Op> __global__ void __launch_bounds__(SEG_BLOCK) seg_tiles(const SegParams<T> p)
{
    typedef SegPair<T> P;
    typedef SegOp<Op> SOp;
    constexpr int ITEMS = seg_items<T>();
    constexpr uint64_t TILE = seg_tile<T>();
    static_assert(TILE <= 65535, "run ends' positions are uint16_t");
    __shared__ T sv[TILE]; // the tile's values, then its results
    extern __shared__ uint16_t ends[]; // KEY_REDUCE, RLE: seg_dynamic_smem
    __shared__ uint8_t fl[TILE + 1];
    __shared__ P sp[SEG_WARPS];
    __shared__ uint32_t sc[SEG_WARPS];
    __shared__ SegCarry<T> s_carry;
    const T id = Op::template identity<T>();
    const T pid = pp_public_identity<T, Op>();

    const uint64_t tile = pp_take_tile(p.ticket, p.tbase);
    const uint64_t b = tile * TILE;
    const uint64_t valid = p.n - b < TILE ? p.n - b : TILE; // n == 0: one tile, valid 0
    if (valid == TILE) {
        T x[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; k++) x[k] = p.in ? p.in[b + threadIdx.x + k * SEG_BLOCK] : (T)1;
#pragma unroll
        for (int k = 0; k < ITEMS; k++) sv[threadIdx.x + k * SEG_BLOCK] = x[k];
    } else {
        for (uint64_t j = threadIdx.x; j < TILE; j += SEG_BLOCK) sv[j] = j < valid ? (p.in ? p.in[b + j] : (T)1) : id;
    }
    seg_mark_heads<SEG_BLOCK, ITEMS>(p.heads, p.offsets, p.nseg, p.keys, p.n, b, valid, fl);

    // The thread's ITEMS elements as one pair, and its head count.
    const int j0 = threadIdx.x * ITEMS;
    P mine = SOp::template identity<P>();
    uint32_t heads = 0;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const T x = sv[j0 + k];
        if (fl[j0 + k]) {
            mine.v = x;
            mine.f = 1;
            heads += (uint64_t)(j0 + k) < valid; // not the end-of-input mark at fl[valid]
        } else {
            mine.v = Op::apply(mine.v, x);
        }
    }
    P total;
    const P excl = pp_block_exclusive<P, SOp, SEG_BLOCK>(mine, &total, sp);
    uint32_t htotal;
    const uint32_t hexcl = pp_block_exclusive<uint32_t, Op_sum, SEG_BLOCK>(heads, &htotal, sc);

    if (threadIdx.x < 32) {
        SegCarry<T> agg;
        agg.c = htotal;
        agg.f = total.f;
        agg.v = total.v;
        const SegCarry<T> c = seg_lookback<T, Op>(p.lb, tile, agg);
        if (threadIdx.x == 0) s_carry = c;
    }
    __syncthreads();
    P carry;
    carry.v = s_carry.v;
    carry.f = s_carry.f;
    const P run = SOp::apply(carry, excl);
    const uint64_t runbase = s_carry.c;
    if (p.count && threadIdx.x == 0 && tile == p.ntiles - 1) *p.count = runbase + htotal;
    T r = run.v;
    const bool by_key_reduce = p.mode == KEY_REDUCE || p.mode == KEY_RLE;
    uint32_t e = hexcl + fl[j0] - fl[0]; // run ends before this thread's elements (KEY_REDUCE, RLE)
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const uint64_t j = (uint64_t)j0 + k;
        const T x = sv[j];
        const bool f = fl[j] != 0;
        const T ex = f ? pid : r;
        r = f ? x : Op::apply(r, x);
        sv[j] = p.exclusive ? ex : r;
        if (by_key_reduce && j < valid && fl[j + 1]) ends[e++] = (uint16_t)j;
    }
    __syncthreads();
    if (by_key_reduce) {
        seg_key_rows<T>(p, b, valid, runbase, htotal, sv, fl, ends);
    } else if (p.mode == SEG_REDUCE) {
        seg_reduce_writes<T, Op>(p, tile, b, b + valid, sv);
    } else if (p.mode == SEG_SCAN || p.mode == KEY_SCAN) {
        uint64_t lo = 0, hi = p.n;
        if (p.mode == SEG_SCAN) {
            lo = p.offsets[0] < p.n ? p.offsets[0] : p.n;
            hi = p.offsets[p.nseg] < p.n ? p.offsets[p.nseg] : p.n;
        }
        for (uint64_t j = threadIdx.x; j < valid; j += SEG_BLOCK)
            if (b + j >= lo && b + j < hi) p.out[b + j] = sv[j];
    }
}

#endif
