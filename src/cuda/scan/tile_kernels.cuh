// The kernels of cuda_scan.cu that scan one tile per block: scan_tiles
// (the decoupled look-back, or pass 3 of reduce-then-scan), scan_cluster
// (at most PP_CLUSTER tiles, one cluster), and the first two passes of
// reduce-then-scan (tile_sums, scan_tile_sums). Internal linkage: included
// by cuda_scan.cu only.
//
// The look-back (scan_tiles with LOOKBACK): each block draws a ticket
// (pp_take_tile): tiles are numbered in the order blocks start, so every
// predecessor of a tile is running or done and the look-back cannot wait on
// a block that never gets an SM. The launch takes exactly `tiles` tickets.
// pp_lookback_prefix publishes the tile's aggregate, then walks back over
// predecessors' words (state and value in one 8- or 16-byte word) until it
// meets an inclusive prefix, and publishes the tile's own inclusive prefix.
// States carry this launch's epoch, so stale words of earlier launches read
// as "not yet", and no memset is needed before the launch.
// Tile size and polling were chosen by measurement: the single-pass scan is
// limited by how fast the frontier of published prefixes moves, not by
// bandwidth (with the look-back wait removed, the same kernel runs close to
// a device copy). 32 KB tiles halve the tiles the frontier must cross
// against 16 KB ones, throttled polling (pp_lb_delays) keeps waiting tiles
// from slowing the cache lines the frontier is published on, and so does
// giving each tile's state a line of its own (lookback.cuh); more resident
// tiles to wait in (shape::MIN_BLOCKS) hide part of the wait. Wider
// look-back windows, other polling patterns, publishing the aggregate
// before the in-warp scans, L2 prefetches of later tiles, more resident
// tiles held in shared memory, persistent blocks that prefetch their next
// tile and 64 KB tiles were measured and did not pay (bench/studies/cuda-scan.md:
// its "cuda scan" and "cuda look-back" sections). What removed the wait was a
// design without a frontier: scan_ahead (scan/ahead.cuh).
#ifndef PP_CUDA_SCAN_TILE_KERNELS_CUH
#define PP_CUDA_SCAN_TILE_KERNELS_CUH

#include "../device/block_scan.cuh"
#include "../device/cluster.cuh"
#include "../device/lookback.cuh"
#include "tile.cuh"

namespace {

constexpr int SUMS_BLOCK = 1024;     // scan_tile_sums: one block
constexpr int SUMS_ITEMS = 8;        // tile sums per thread per round

// Scans one tile per block, grid = tiles. LOOKBACK: each block draws its
// tile's ticket when it starts (pp_take_tile), so tiles are numbered in the
// order blocks start and every predecessor of a tile is running or done, and
// the tile's exclusive prefix comes from the decoupled look-back; tile 0's
// is the carry (scan_carry0: pp_scan_init's init, else the identity), and
// it publishes carry op its aggregate as its inclusive prefix. Otherwise
// (reduce-then-scan, pass 3) tile = blockIdx.x and its exclusive prefix is
// prefixes[tile] (scan_tile_sums started them from init).
template <typename T, typename Op, bool LOOKBACK>
__global__ void __launch_bounds__(SCAN_BLOCK, shape<T>::MIN_BLOCKS)
    scan_tiles(const T *in, T *out, size_t n, int flags, pp_lookback<T> lb, unsigned long long *ticket,
               unsigned long long ticket_base, const T *prefixes, const T *init)
{
    typedef shape<T> S;
    __shared__ T s_warp[SCAN_WARPS];
    __shared__ __align__(16) T stage[S::TILE]; // partial or misaligned tiles only
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned long long tile;
    if constexpr (LOOKBACK) tile = pp_take_tile(ticket, ticket_base);
    else tile = blockIdx.x;
    const size_t tile_base = (size_t)tile * S::TILE; // < n
    const bool whole = n - tile_base >= (size_t)S::TILE;
    const int off = warp * S::WARP_ITEMS + lane * S::E;
    pp_vec16<T> x[SCAN_V];
    load_tile<T, Op>(in, tile_base, off, n, whole && (flags & F_IN16), stage, x);
    T pre[SCAN_V];
    tile_local<T, Op>(x, pre, s_warp);
    __syncthreads();
    if (warp == 0)
        tile_prefixes<T, Op>(s_warp, [&](T agg) {
            if constexpr (LOOKBACK) {
                // Tile 0 (no predecessor to look at) with an initial value:
                // publishes init op agg, and init is its prefix.
                if (tile == 0 && init) {
                    const T c = *init;
                    (void)pp_lookback_prefix<T, Op>(lb, 0, Op::apply(c, agg));
                    return c;
                }
                // The look-back's butterfly can round differently in each
                // lane (floats); use lane 0's value, the one it published.
                return pp_shfl(pp_lookback_prefix<T, Op>(lb, tile, agg), 0);
            } else {
                return prefixes[tile];
            }
        });
    __syncthreads();
    tile_finish<T, Op>(x, pre, s_warp[warp], tile == 0, init, flags, out, tile_base, off, n, whole, stage);
}

// Small n (at most PP_CLUSTER tiles): one cluster of PP_CLUSTER blocks,
// block r scans tile r (blocks past the end only take part in the
// barriers). Each block writes its tile's aggregate into the shared memory
// of every later block; after the cluster's barrier, a block folds the
// aggregates before it in tile order, from the carry (scan_carry0): no
// look-back, flags or tickets, and float results are reproducible run to
// run.
template <typename T, typename Op>
__global__ void __cluster_dims__(PP_CLUSTER, 1, 1) __launch_bounds__(SCAN_BLOCK, shape<T>::MIN_BLOCKS)
    scan_cluster(const T *in, T *out, size_t n, int flags, const T *init)
{
    typedef shape<T> S;
    __shared__ T s_warp[SCAN_WARPS];
    __shared__ T s_aggs[PP_CLUSTER]; // s_aggs[t]: the aggregate of tile t < this one
    __shared__ __align__(16) T stage[S::TILE];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const T id = Op::template identity<T>();
    pp_cluster_arrive_relaxed();
    const unsigned tile = blockIdx.x; // the grid is one cluster: the block's rank
    const size_t tile_base = (size_t)tile * S::TILE;
    const bool live = tile_base < n; // the same in the whole block
    const bool whole = live && n - tile_base >= (size_t)S::TILE;
    const int off = warp * S::WARP_ITEMS + lane * S::E;
    pp_vec16<T> x[SCAN_V];
    T pre[SCAN_V];
    if (live) {
        load_tile<T, Op>(in, tile_base, off, n, whole && (flags & F_IN16), stage, x);
        tile_local<T, Op>(x, pre, s_warp);
    }
    __syncthreads();
    pp_cluster_wait(); // every block of the cluster has started: its s_aggs may be written
    if (warp == 0 && live) {
        const T wi = pp_warp_inclusive<T, Op>(lane < SCAN_WARPS ? s_warp[lane] : id);
        const T agg = pp_shfl(wi, SCAN_WARPS - 1);
        if (lane > (int)tile && lane < PP_CLUSTER) *pp_cluster_map(&s_aggs[tile], (unsigned)lane) = agg;
    }
    pp_cluster_sync();
    if (!live) return;
    if (warp == 0)
        tile_prefixes<T, Op>(s_warp, [&](T) {
            T p = scan_carry0<T, Op>(init);
            for (unsigned t = 0; t < tile; t++) p = Op::apply(p, s_aggs[t]);
            return p;
        });
    __syncthreads();
    tile_finish<T, Op>(x, pre, s_warp[warp], tile == 0, init, flags, out, tile_base, off, n, whole, stage);
}

// Reduce-then-scan, pass 1: sums[blockIdx.x] = fold of tile blockIdx.x.
template <typename T, typename Op>
__global__ void __launch_bounds__(SCAN_BLOCK, shape<T>::MIN_BLOCKS) tile_sums(const T *in, size_t n, int flags, T *sums)
{
    typedef shape<T> S;
    constexpr int E = S::E;
    __shared__ T smem[SCAN_WARPS];
    __shared__ __align__(16) T stage[S::TILE];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const size_t tile_base = (size_t)blockIdx.x * S::TILE;
    const bool whole = n - tile_base >= (size_t)S::TILE;
    const int off = warp * S::WARP_ITEMS + lane * E;
    pp_vec16<T> x[SCAN_V];
    load_tile<T, Op>(in, tile_base, off, n, whole && (flags & F_IN16), stage, x);
    T r = Op::template identity<T>();
#pragma unroll
    for (int j = 0; j < SCAN_V; j++)
#pragma unroll
        for (int e = 0; e < E; e++) r = Op::apply(r, x[j].get(e));
    r = pp_block_reduce<T, Op, SCAN_BLOCK>(r, smem);
    if (threadIdx.x == 0) sums[blockIdx.x] = r;
}

// Reduce-then-scan, pass 2 (one block): sums[t] becomes the exclusive prefix
// of tile t, in rounds of SUMS_BLOCK * SUMS_ITEMS sums with a carry between
// rounds that starts from scan_carry0 (init). Each thread reads and writes
// only its own SUMS_ITEMS sums.
template <typename T, typename Op>
__global__ void __launch_bounds__(SUMS_BLOCK) scan_tile_sums(T *sums, size_t tiles, const T *init)
{
    __shared__ T smem[SUMS_BLOCK / 32];
    pp_block_exclusive_inplace<T, Op, SUMS_BLOCK, SUMS_ITEMS>(sums, tiles, smem, scan_carry0<T, Op>(init));
}

} // namespace

#endif
