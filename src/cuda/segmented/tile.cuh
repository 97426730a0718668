// The kernels of every "segmented by heads" call (cuda_segmented.cu): the
// segmented reduce and scan over offsets, reduce_by_key, scan_by_key and
// run_length_encode. Three launches, no block ever waits for another, and
// every float result is a function of the input alone (fixed tiles, fixed
// combination order: reproducible, as pp_reduce and the reduce-then-scan
// pp_scan):
//  1. seg_tiles<.., false>: each tile of TILE contiguous elements marks its
//     heads (segmented/heads.cuh), folds its (flag, value) pairs
//     (segmented/pair.cuh) and writes its total pair and head count.
//  2. seg_carries: one block turns the totals into exclusive prefixes over
//     the tiles (the pair before each tile: the fold of the open segment's
//     elements before it; the heads before it).
//  3. seg_tiles<.., true>: each tile again, with its prefix: the in-tile
//     scan restarted at heads, then the mode's writes.
// A single tile skips 1 and 2 (its prefix is the identity).
// Modes (SegParams::mode): SEG_SCAN writes out[i] for i in [min(offsets[0],
// n), min(offsets[nseg], n)); SEG_REDUCE writes out[s] for the segments s
// whose clamped end lies in the tile (b < e: the inclusive scan at e - 1;
// else the identity); KEY_SCAN writes every out[i]; KEY_REDUCE (and RLE,
// with every value 1 and out the counts) writes, at each head, the run's
// first key at keys_out[r] and, at each run's last element, its fold at
// out[r], r the run's number (the heads before it, from the prefix).
#ifndef PP_CUDA_SEGMENTED_TILE_CUH
#define PP_CUDA_SEGMENTED_TILE_CUH

#include "../device/block_scan.cuh"
#include "heads.cuh"
#include "pair.cuh"

constexpr int SEG_BLOCK = 256;
constexpr int SEG_WARPS = SEG_BLOCK / 32;
constexpr int CARRY_BLOCK = 1024;
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
    SegPair<T> *carries; // per tile: totals (pass 1), exclusive prefixes (pass 2); NULL: one tile
    uint64_t *runs;      // per tile: head counts, then heads before it (KEY_REDUCE, RLE; else NULL)
    uint64_t *count;     // KEY_REDUCE, RLE: the number of runs
};

// SEG_REDUCE's writes for tile [b, e_tile): segment s whose end e =
// min(offsets[s + 1], n) lies in (b, e_tile] gets incl[e - 1 - b] (incl:
// the tile's inclusive scan, restarted at heads) or, if empty (e <= its
// start), the identity; tile 0 also writes the segments ending at 0. The
// first such segment by binary search, then BLOCK a round while a round
// still has one ending in the tile: every write is to out[0 .. nseg) and
// every read inside the tile, whatever the offsets.
template <typename T, typename Op>
__device__ __forceinline__ void seg_reduce_writes(const SegParams<T> &p, uint64_t tile, uint64_t b, uint64_t e_tile,
                                                  const T *incl)
{
    __shared__ uint64_t s_first;
    const T id = pp_public_identity<T, Op>();
    if (threadIdx.x == 0) s_first = tile == 0 ? 0 : seg_lower_bound(p.offsets + 1, p.nseg, p.n, b + 1);
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

// Passes 1 (FINISH false) and 3 (FINISH true); tiles by a grid-stride loop.
template <typename T, typename Op, bool FINISH>
__global__ void __launch_bounds__(SEG_BLOCK) seg_tiles(const SegParams<T> p)
{
    typedef SegPair<T> P;
    typedef SegOp<Op> SOp;
    constexpr int ITEMS = seg_items<T>();
    constexpr uint64_t TILE = seg_tile<T>();
    __shared__ T sv[TILE];
    __shared__ uint8_t fl[TILE + 1];
    __shared__ P sp[SEG_WARPS];
    __shared__ uint32_t sc[SEG_WARPS];
    const T id = Op::template identity<T>();
    const T pid = pp_public_identity<T, Op>();

    for (uint64_t tile = blockIdx.x; tile < p.ntiles; tile += gridDim.x) {
        const uint64_t b = tile * TILE;
        const uint64_t valid = p.n - b < TILE ? p.n - b : TILE; // n == 0: one tile, valid 0
        for (uint64_t j = threadIdx.x; j < TILE; j += SEG_BLOCK) {
            sv[j] = j < valid ? (p.in ? p.in[b + j] : (T)1) : id;
            fl[j] = 0;
        }
        if (threadIdx.x == 0) fl[TILE] = 0;
        __syncthreads();
        seg_mark_heads<SEG_BLOCK>(p.heads, p.offsets, p.nseg, p.keys, p.n, b, valid, fl);
        __syncthreads();

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

        if constexpr (!FINISH) {
            if (threadIdx.x == 0) {
                p.carries[tile] = total;
                if (p.runs) p.runs[tile] = htotal;
            }
        } else {
            const P run = p.carries ? SOp::apply(p.carries[tile], excl) : excl;
            const uint64_t runbase = p.runs ? p.runs[tile] : 0;
            if (p.count && threadIdx.x == 0 && tile == p.ntiles - 1) *p.count = runbase + htotal;
            T r = run.v;
            uint64_t rank = runbase + hexcl; // heads up to the current element
            const bool by_key_reduce = p.mode == KEY_REDUCE || p.mode == KEY_RLE;
#pragma unroll
            for (int k = 0; k < ITEMS; k++) {
                const uint64_t j = (uint64_t)j0 + k;
                const T x = sv[j];
                const bool f = fl[j] != 0;
                const T ex = f ? pid : r;
                r = f ? x : Op::apply(r, x);
                if (j < valid && by_key_reduce) {
                    if (f) {
                        rank++;
                        seg_key_copy(p.heads, p.keys, b + j, p.keys_out, rank - 1);
                    }
                    if (fl[j + 1] && rank > 0) p.out[rank - 1] = r; // the run's last element
                }
                sv[j] = p.exclusive ? ex : r;
            }
            __syncthreads();
            if (p.mode == SEG_REDUCE) {
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
        __syncthreads(); // sv and fl are rewritten by the next tile
    }
}

// Pass 2, one block: carries[0 .. ntiles) and runs (if not NULL) to their
// exclusive prefixes over the tiles, in a fixed order.
template <typename T, typename Op>
__global__ void __launch_bounds__(CARRY_BLOCK) seg_carries(SegPair<T> *carries, uint64_t *runs, uint64_t ntiles)
{
    __shared__ SegPair<T> sp[CARRY_BLOCK / 32];
    __shared__ uint64_t sc[CARRY_BLOCK / 32];
    pp_block_exclusive_inplace<SegPair<T>, SegOp<Op>, CARRY_BLOCK, 4>(carries, ntiles, sp);
    if (runs) pp_block_exclusive_inplace<uint64_t, Op_sum, CARRY_BLOCK, 4>(runs, ntiles, sc);
}

#endif
