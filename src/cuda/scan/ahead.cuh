// The warp-specialized look-ahead scan of cuda_scan.cu (PP_ALGO_AUTO,
// 4-byte elements, large n): scan_ahead, its ring of stages in shared
// memory and the mbarriers that hand the stages between its roles.
// Internal linkage: included by cuda_scan.cu only.
//
// One block per SM, persistent, each with a ring of AHEAD_STAGES tiles in
// shared memory (the same 32 KB tiles, arrangement and in-tile scan as
// scan_tiles), and four roles:
// - the load warp (warp 16; one thread) draws a tile ticket whenever a
//   stage is free and fills the stage with one bulk copy (of a partial last
//   tile, its whole 16-byte units; the readers take the rest from global
//   memory);
// - the reduce squad (warps 8-15) folds each tile as soon as it lands and
//   publishes its aggregate (pp_la_publish). It waits for nothing but the
//   data, so aggregates are out up to a ring of tiles before they are used;
// - the look-ahead warp (warp 17) keeps the block's running prefix: the
//   exclusive prefix of its latest tile plus the aggregates of every tile
//   since (pp_la_advance), starting from the carry into tile 0
//   (scan_carry0: pp_scan_init's init, else the identity). There are no
//   inclusive prefixes, so no frontier
//   to wait for: a tile waits only for the aggregates of tiles whose
//   tickets, and loads, came before its own;
// - the scan squad (warps 0-7, laid out as a scan_tiles block) scans the
//   tile from shared memory, adds the prefix and stores the results from
//   registers, as scan_tiles does.
// Stages are handed on by mbarriers, one set per stage: ticketed (the
// stage's tile is in `tile`), full (its data has landed), prefixed (its
// prefix is in `prefix`) and empty (every thread that reads the stage, its
// tile, its prefix or the reduce squad's `red` is done with this round).
// Every thread arrives for itself, and a thread that writes one of those
// words for the next round first waits for this round's empty, so each
// access is ordered before the next one by a single barrier (as
// compute-sanitizer's racecheck follows them). A round of the ring is one
// phase of each barrier, so a role waits on the parity of its round.
// Tickets: each block draws until one falls past the end, so a launch takes
// exactly tiles + grid of them.
// Needs in and out 16-byte aligned (bulk copies, vector stores). It wins
// over scan_tiles because no tile waits for a frontier of inclusive
// prefixes; it loses below AHEAD_MIN_TILES (cuda_scan.cu: one block per SM
// has too few tiles to fill its ring), and for 8-byte elements at every
// size, which keep scan_tiles (bench/studies/cuda-scan.md, "cuda scan: a
// warp-specialized look-ahead scan, the default for large 4-byte scans").
#ifndef PP_CUDA_SCAN_AHEAD_CUH
#define PP_CUDA_SCAN_AHEAD_CUH

#include "../device/bulk.cuh"
#include "../device/lookback.cuh"
#include "tile.cuh"

namespace {

constexpr int AHEAD_STAGES = 6;
constexpr int AHEAD_THREADS = 2 * SCAN_BLOCK + 64;
constexpr int AHEAD_TILE_BYTES = SCAN_BLOCK * SCAN_V * 16;
constexpr int AHEAD_LOAD_WARP = 2 * SCAN_WARPS, AHEAD_LA_WARP = 2 * SCAN_WARPS + 1;
// Arrivals on empty: every thread of the two squads and of the look-ahead warp.
constexpr unsigned AHEAD_EMPTY_COUNT = 2 * SCAN_BLOCK + 32;

template <typename T> struct ahead_smem {
    uint64_t ticketed[AHEAD_STAGES], full[AHEAD_STAGES], prefixed[AHEAD_STAGES], empty[AHEAD_STAGES];
    long long tile[AHEAD_STAGES];    // the stage's tile, -1 past the last
    T prefix[AHEAD_STAGES];          // its exclusive prefix (look-ahead warp)
    T red[AHEAD_STAGES][SCAN_WARPS]; // reduce squad: warp folds
    T s_warp[SCAN_WARPS];            // scan squad: warp totals, then warp prefixes
};
constexpr size_t AHEAD_SMEM_RING = (size_t)AHEAD_STAGES * AHEAD_TILE_BYTES;
template <typename T> constexpr size_t ahead_smem_bytes() { return AHEAD_SMEM_RING + sizeof(ahead_smem<T>); }
enum { BAR_SCAN = 1, BAR_REDUCE = 2 }; // named barriers of the two squads

// A tile's bytes that its bulk copy moves: the whole 16-byte units.
template <typename T> __device__ __forceinline__ unsigned ahead_bulk_bytes(size_t len)
{
    return (unsigned)(len * sizeof(T)) & ~15u;
}

// A thread's vectors of the stage st (tile base `base`, len elements):
// whole tiles straight from shared memory; the partial last tile element by
// element, from shared memory as far as its bulk copy went, then from
// global memory, then the identity.
template <typename T, typename Op>
__device__ __forceinline__ void ahead_read(const T *st, int off, const T *in, size_t base, size_t len,
                                           pp_vec16<T> (&x)[SCAN_V])
{
    constexpr int E = shape<T>::E;
    if (len == (size_t)shape<T>::TILE) {
#pragma unroll
        for (int j = 0; j < SCAN_V; j++) x[j].load(st + off + j * 32 * E);
        return;
    }
    const size_t in_smem = ahead_bulk_bytes<T>(len) / sizeof(T);
#pragma unroll
    for (int j = 0; j < SCAN_V; j++)
#pragma unroll
        for (int e = 0; e < E; e++) {
            const size_t i = (size_t)(off + j * 32 * E + e);
            x[j].set(e, i < in_smem ? st[i] : i < len ? in[base + i] : Op::template identity<T>());
        }
}

template <typename T, typename Op>
__global__ void __launch_bounds__(AHEAD_THREADS, 1)
    scan_ahead(const T *in, T *out, size_t n, long long tiles, int flags, pp_lookback<T> lb, unsigned long long *ticket,
               unsigned long long ticket_base, const T *init)
{
    typedef shape<T> S;
    extern __shared__ __align__(128) unsigned char ahead_raw[];
    ahead_smem<T> &sm = *reinterpret_cast<ahead_smem<T> *>(ahead_raw + AHEAD_SMEM_RING);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const T id = Op::template identity<T>();
    if (threadIdx.x == 0) {
        for (int k = 0; k < AHEAD_STAGES; k++) {
            pp_mb_init(&sm.ticketed[k], 1);
            pp_mb_init(&sm.full[k], 1);
            pp_mb_init(&sm.prefixed[k], 1);
            pp_mb_init(&sm.empty[k], AHEAD_EMPTY_COUNT);
        }
        pp_mb_init_fence();
    }
    __syncthreads();
    auto stage = [&](int k) { return reinterpret_cast<T *>(ahead_raw + (size_t)k * AHEAD_TILE_BYTES); };
    auto tile_len = [&](long long t) {
        const size_t base = (size_t)t * S::TILE;
        return n - base < (size_t)S::TILE ? n - base : (size_t)S::TILE;
    };
    // Round i of a stage: its parity, and the wait for the previous round's
    // empty before a word of the stage is written again.
    auto parity = [](int i) { return (unsigned)(i / AHEAD_STAGES) & 1u; };
    auto wait_empty = [&](int i) {
        if (i >= AHEAD_STAGES) pp_mb_wait(&sm.empty[i % AHEAD_STAGES], parity(i) ^ 1u);
    };
    // Round i's tile (-1: past the last); wait_tile: and its data.
    auto wait_ticket = [&](int i) {
        pp_mb_wait(&sm.ticketed[i % AHEAD_STAGES], parity(i));
        return sm.tile[i % AHEAD_STAGES];
    };
    auto wait_tile = [&](int i) {
        const long long t = wait_ticket(i);
        if (t >= 0) pp_mb_wait(&sm.full[i % AHEAD_STAGES], parity(i));
        return t;
    };

    if (warp == AHEAD_LOAD_WARP) {
        if (lane != 0) return;
        for (int i = 0;; i++) {
            const int k = i % AHEAD_STAGES;
            wait_empty(i);
            const long long t = (long long)(atomicAdd(ticket, 1ull) - ticket_base);
            sm.tile[k] = t < tiles ? t : -1;
            pp_mb_arrive(&sm.ticketed[k]);
            if (t >= tiles) return;
            const unsigned bulk = ahead_bulk_bytes<T>(tile_len(t));
            if (bulk) {
                pp_mb_arrive_tx(&sm.full[k], bulk);
                pp_bulk_load(stage(k), in + (size_t)t * S::TILE, bulk, &sm.full[k]);
            } else {
                pp_mb_arrive(&sm.full[k]);
            }
        }
    }

    if (warp == AHEAD_LA_WARP) {
        long long cur = 0;
        T acc = scan_carry0<T, Op>(init);
        for (int i = 0;; i++) {
            const int k = i % AHEAD_STAGES;
            const long long t = wait_ticket(i);
            if (t < 0) return;
            pp_la_advance<T, Op>(lb, cur, acc, t);
            if (lane == 0) {
                wait_empty(i);
                sm.prefix[k] = acc;
                pp_mb_arrive(&sm.prefixed[k]);
            }
            pp_mb_arrive(&sm.empty[k]);
        }
    }

    if (warp >= SCAN_WARPS) { // the reduce squad
        const int w = warp - SCAN_WARPS;
        for (int i = 0;; i++) {
            const int k = i % AHEAD_STAGES;
            const long long t = wait_tile(i);
            if (t < 0) return;
            pp_vec16<T> x[SCAN_V];
            ahead_read<T, Op>(stage(k), w * S::WARP_ITEMS + lane * S::E, in, (size_t)t * S::TILE, tile_len(t), x);
            T r = id;
#pragma unroll
            for (int j = 0; j < SCAN_V; j++)
#pragma unroll
                for (int e = 0; e < S::E; e++) r = Op::apply(r, x[j].get(e));
            r = pp_warp_reduce<T, Op>(r);
            if (lane == 0) {
                wait_empty(i);
                sm.red[k][w] = r;
            }
            pp_named_barrier(BAR_REDUCE, SCAN_BLOCK);
            if (w == 0 && lane == 0) {
                T agg = sm.red[k][0];
#pragma unroll
                for (int v = 1; v < SCAN_WARPS; v++) agg = Op::apply(agg, sm.red[k][v]);
                pp_la_publish(lb, (unsigned long long)t, agg);
            }
            pp_mb_arrive(&sm.empty[k]);
        }
    }

    // the scan squad: a scan_tiles block over the stage
    const int off = warp * S::WARP_ITEMS + lane * S::E;
    for (int i = 0;; i++) {
        const int k = i % AHEAD_STAGES;
        const long long t = wait_tile(i);
        if (t < 0) return;
        const size_t base = (size_t)t * S::TILE, len = tile_len(t);
        pp_vec16<T> x[SCAN_V];
        ahead_read<T, Op>(stage(k), off, in, base, len, x);
        launder<T>(x);
        T pre[SCAN_V];
        tile_local<T, Op>(x, pre, sm.s_warp);
        pp_named_barrier(BAR_SCAN, SCAN_BLOCK);
        if (warp == 0)
            tile_prefixes<T, Op>(sm.s_warp, [&](T) {
                pp_mb_wait(&sm.prefixed[k], parity(i));
                return sm.prefix[k];
            });
        pp_named_barrier(BAR_SCAN, SCAN_BLOCK);
        const T wp = sm.s_warp[warp];
        pp_mb_arrive(&sm.empty[k]);
        launder<T>(x);
        tile_rescan<T, Op>(x, pre, wp, flags & F_EXCL);
        if ((flags & F_EXCL) && t == 0 && threadIdx.x == 0) x[0].set(0, scan_first_out<T, Op>(init));
        if (len == (size_t)S::TILE) {
#pragma unroll
            for (int j = 0; j < SCAN_V; j++) x[j].store(out + base + off + j * 32 * S::E);
        } else {
            // In place, the reduce squad reads this tile's tail from global
            // memory: once this round's empty completes, every reduce
            // thread has.
            pp_mb_wait(&sm.empty[k], parity(i));
#pragma unroll
            for (int j = 0; j < SCAN_V; j++)
#pragma unroll
                for (int e = 0; e < S::E; e++) {
                    const size_t idx = (size_t)(off + j * 32 * S::E + e);
                    if (idx < len) out[base + idx] = x[j].get(e);
                }
        }
        pp_named_barrier(BAR_SCAN, SCAN_BLOCK); // every warp has read s_warp
    }
}

} // namespace

#endif
