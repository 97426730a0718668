// pp_scan on the cuda backend: the choice of path and the launches.
//
// Paths (chosen on the host from n, the element size, the alignment of in
// and out and the algorithm asked for, never from the data):
//  * PP_ALGO_REDUCE_THEN_SCAN: three launches, no block ever waits for
//    another: tile_sums (each block folds its tile to sums[tile]),
//    scan_tile_sums (one block turns sums into exclusive tile prefixes, in
//    chunks), and scan_tiles taking its prefix from sums[blockIdx.x].
//  * at most PP_CLUSTER tiles (256 KB): one launch of one cluster of 8
//    blocks that hand their tiles' aggregates to each other through shared
//    memory (scan_cluster).
//  * PP_ALGO_AUTO, 4-byte elements, at least AHEAD_MIN_TILES tiles, in and
//    out 16-byte aligned: the look-ahead form of the look-back,
//    warp-specialized (scan_ahead).
//  * otherwise (PP_ALGO_AUTO, PP_ALGO_DECOUPLED_LOOKBACK): one launch,
//    grid = tiles, each tile's prefix from the decoupled look-back
//    (scan_tiles).
//
// Files: scan/tile.cuh (the tile's shape, loads, stores and in-tile scan,
// shared by every kernel), scan/tile_kernels.cuh (scan_tiles,
// scan_cluster, tile_sums, scan_tile_sums), scan/ahead.cuh (scan_ahead and
// its ring); this file is the host side.
//
// pp_scan_init (a->init, one element of device memory; NULL for pp_scan)
// is the same launches with init as the carry into tile 0: the look-back's
// tile 0 takes it as its prefix, scan_ahead's running prefix and
// reduce-then-scan's scan of the tile sums start from it, scan_cluster's
// folds of earlier aggregates too; an exclusive out[0] is *init. It is read
// on the device only, so the cost is pp_scan's and nothing waits for the
// host.
#include "cuda_state.cuh"
#include "device/dispatch.cuh"
#include "device/lookback.cuh"
#include "device/util.cuh"
#include "scan/ahead.cuh"
#include "scan/tile.cuh"
#include "scan/tile_kernels.cuh"

namespace {

// Which scan: the default (AUTO: scan_cluster, scan_tiles or scan_ahead by
// size), the decoupled look-back alone (scan_cluster or scan_tiles), or
// reduce-then-scan.
enum scan_mode { SCAN_AUTO, SCAN_LOOKBACK, SCAN_RTS };

// scan_ahead from this many tiles (32 KB each) on: below, one block per SM
// has too few tiles to fill its ring, and scan_tiles' 4 blocks per SM win
// (bench/studies/cuda-scan.md, "cuda scan: a warp-specialized look-ahead scan, the
// default for large 4-byte scans").
constexpr size_t AHEAD_MIN_TILES = 2048;

template <typename T, typename Op>
pp_status ahead_launch(pp_context *ctx, const T *in, T *out, size_t n, size_t tiles, int flags, const T *init,
                       const char *fn)
{
    pp_cuda_state *s = pp_cuda(ctx);
    const size_t smem = ahead_smem_bytes<T>();
    auto *const kernel = scan_ahead<T, Op>;
    PP_CUDA_TRY(ctx, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem), fn);
    const size_t grid = tiles < pp_cuda_resident(s, 1) ? tiles : pp_cuda_resident(s, 1);
    // Every block takes one ticket past the last tile.
    pp_lookback<T> lb;
    unsigned long long tbase = 0;
    const pp_status st_lb = pp_lookback_setup(ctx, tiles + grid, sizeof(T) <= 4, &lb, &tbase, fn);
    if (st_lb != PP_SUCCESS) return st_lb;
    return pp_cuda_launched_tickets(ctx, fn,
                                    pp_cuda_launch(ctx, kernel, (unsigned)grid, AHEAD_THREADS, smem, in, out, n,
                                                   (long long)tiles, flags, lb, s->ticket, tbase, init));
}

template <typename T, typename Op> pp_status scan_launch(pp_context *ctx, const pp_scan_args *a, scan_mode mode)
{
    const bool rts = mode == SCAN_RTS;
    const char *fn = a->fn;
    const size_t n = a->n;
    pp_cuda_state *s = pp_cuda(ctx);
    const T *in = (const T *)a->in;
    T *out = (T *)a->out;
    const T *init = (const T *)a->init;               // NULL for pp_scan
    const size_t tiles = ceil_div(n, shape<T>::TILE); // n >= 1
    if (tiles > 0x7fffffffu)
        return pp_fail(ctx, PP_ERROR_UNSUPPORTED, "%s: n = %zu is too large for one launch", fn, n);
    const int flags = (a->kind == PP_EXCLUSIVE ? F_EXCL : 0) | (((uintptr_t)in & 15u) == 0 ? F_IN16 : 0) |
                      (((uintptr_t)out & 15u) == 0 ? F_OUT16 : 0);
    const unsigned grid = (unsigned)tiles;

    if (rts) {
        T *sums = (T *)pp_cuda_scratch(ctx, tiles * sizeof(T), fn);
        if (!sums) return PP_ERROR_OUT_OF_MEMORY;
        PP_CUDA_CHECK_LAUNCH(ctx, fn, pp_cuda_launch(ctx, tile_sums<T, Op>, grid, SCAN_BLOCK, 0, in, n, flags, sums));
        PP_CUDA_CHECK_LAUNCH(ctx, fn, pp_cuda_launch(ctx, scan_tile_sums<T, Op>, 1, SUMS_BLOCK, 0, sums, tiles, init));
        PP_CUDA_CHECK_LAUNCH(ctx, fn,
                             pp_cuda_launch(ctx, scan_tiles<T, Op, false>, grid, SCAN_BLOCK, 0, in, out, n, flags,
                                            pp_lookback<T>{}, (unsigned long long *)NULL, 0ull, (const T *)sums, init));
        return PP_SUCCESS;
    }

    if (tiles <= PP_CLUSTER) {
        PP_CUDA_CHECK_LAUNCH(
            ctx, fn, pp_cuda_launch(ctx, scan_cluster<T, Op>, PP_CLUSTER, SCAN_BLOCK, 0, in, out, n, flags, init));
        return PP_SUCCESS;
    }

    // 4-byte elements only: 8-byte ones were as fast or slower than
    // scan_tiles, and 1- and 2-byte ones spill under scan_ahead's register
    // budget (96 per thread, 18 warps per SM).
    if constexpr (sizeof(T) == 4)
        if (mode == SCAN_AUTO && tiles >= AHEAD_MIN_TILES && (flags & F_IN16) && (flags & F_OUT16) &&
            s->smem_optin >= ahead_smem_bytes<T>())
            return ahead_launch<T, Op>(ctx, in, out, n, tiles, flags, init, fn);

    // Decoupled look-back: per-tile aggregates and inclusive prefixes in
    // scratch, flags in the look-back arena.
    pp_lookback<T> lb;
    unsigned long long tbase = 0;
    const pp_status st_lb = pp_lookback_setup(ctx, tiles, sizeof(T) <= 4, &lb, &tbase, fn);
    if (st_lb != PP_SUCCESS) return st_lb;
    return pp_cuda_launched_tickets(ctx, fn,
                                    pp_cuda_launch(ctx, scan_tiles<T, Op, true>, grid, SCAN_BLOCK, 0, in, out, n, flags,
                                                   lb, s->ticket, tbase, (const T *)NULL, init));
}

} // namespace

static pp_status scan_dispatch(pp_context *ctx, const pp_scan_args *a, scan_mode mode)
{
    return pp_dispatch_type_op(ctx, a->fn, a->type, a->op,
                               [&](auto t, auto op) { return scan_launch<decltype(t), decltype(op)>(ctx, a, mode); });
}

pp_status pp_cuda_scan(pp_context *ctx, const pp_scan_args *a) { return scan_dispatch(ctx, a, SCAN_AUTO); }

pp_status pp_cuda_scan_lookback(pp_context *ctx, const pp_scan_args *a) { return scan_dispatch(ctx, a, SCAN_LOOKBACK); }

pp_status pp_cuda_scan_reduce_then_scan(pp_context *ctx, const pp_scan_args *a)
{
    return scan_dispatch(ctx, a, SCAN_RTS);
}
