// pp_scan on the cuda backend.
//
// Tiles. A block of SCAN_BLOCK threads scans one tile of TILE elements; every
// thread holds SCAN_V 16-byte vectors (128 bytes: 32 items of a 4-byte type,
// 16 of an 8-byte type, 128 of a 1-byte type; a tile is 32 KB). The arrangement is warp-striped:
// warp w owns the WARP_ITEMS consecutive elements from w * WARP_ITEMS, and
// its vector j of lane l holds the E = 16 / sizeof(T) elements from
// (j * 32 + l) * E. Every load and store instruction of a warp therefore
// covers 512 consecutive bytes, and no shared-memory transpose is needed.
// (Only the last, partial tile, or any tile when `in` or `out` is not 16-byte
// aligned, goes through shared memory: coalesced element accesses there,
// 16-byte accesses to shared memory by each thread.)
// In-tile scan: each thread folds each of its vectors; SCAN_V interleaved
// warp scans (one per vector index j, in j-major element order) give each
// vector its prefix within the warp and the warp's total; one warp scans the
// warp totals. The tile then finds its exclusive prefix (see below), and each
// thread rescans its vectors serially from their prefixes and stores them.
// A tile reads all of its input into registers before it writes anything,
// and tiles touch disjoint ranges, so in == out works.
//
// Small n (at most 8 tiles, 256 KB): one launch of one cluster of 8 blocks
// that hand their tiles' aggregates to each other through shared memory
// (scan_cluster).
// Large scans of 4-byte elements under the default (PP_ALGO_AUTO): the
// look-ahead form of the look-back, warp-specialized (scan_ahead, below).
// Otherwise (PP_ALGO_AUTO, PP_ALGO_DECOUPLED_LOOKBACK): one launch, grid =
// tiles. Each block draws a ticket (pp_take_tile): tiles are numbered in the
// order blocks start, so every predecessor of a tile is running or done and
// the look-back cannot wait on a block that never gets an SM. The launch
// takes exactly `tiles` tickets. pp_lookback_prefix publishes the tile's
// aggregate, then walks back over predecessors' words (state and value in
// one 8- or 16-byte word) until it meets an inclusive prefix, and publishes
// the tile's own inclusive prefix. States carry this launch's epoch, so
// stale words of earlier launches read as "not yet", and no memset is
// needed before the launch.
// Tile size and polling were chosen by measurement (H200, 2^28 i32): the
// single-pass scan is limited by how fast the frontier of published prefixes
// moves, not by bandwidth (with the look-back wait removed, the same kernel
// runs at 0.97 of a device copy). 32 KB tiles halve the tiles the frontier
// must cross against 16 KB ones (0.86 -> 0.79 ms), and throttled polling
// (pp_lb_delays) keeps waiting tiles from slowing the cache lines the
// frontier is published on (0.79 -> 0.67 ms), and so does giving each
// tile's state a line of its own (0.66 -> 0.61 ms; lookback.cuh). Wider
// look-back windows (64 to 256 predecessors per round), more resident
// tiles per SM (tiles kept in shared memory), and persistent blocks that
// prefetch their next tile were all measured slower. With a line per tile,
// how the look-back polls (windows of 8 to 32, polling only the nearest
// tile or only unpublished ones), publishing the aggregate before the
// in-warp scans, and L2 prefetches of later tiles all land within 1% or
// lose (bench/RESULTS.md): what is left is the wait itself, and more
// resident tiles to wait in (shape::MIN_BLOCKS: 4 per SM) hide part of it
// (0.61 -> 0.58 ms at 2^28 on an H200). Measured again after that (H100):
// tiles held in shared memory, 5-6 per SM, lost 3-5%; 64 KB tiles gained
// about 1% from 2^28 on and lost below. What removed the wait was a design
// without a frontier: scan_ahead (0.54 ms).
//
// PP_ALGO_REDUCE_THEN_SCAN: three launches, no block ever waits for another:
// tile_sums (each block folds its tile to sums[tile]), scan_tile_sums (one
// block turns sums into exclusive tile prefixes, in chunks), and the same
// tile kernel as above, taking its prefix from sums[blockIdx.x].
#include "cuda_state.cuh"
#include "device/block_scan.cuh"
#include "device/bulk.cuh"
#include "device/cluster.cuh"
#include "device/dispatch.cuh"
#include "device/lookback.cuh"
#include "device/ops.cuh"
#include "device/util.cuh"
#include "device/vec.cuh"
#include "device/warp_scan.cuh"

namespace {

constexpr int SCAN_BLOCK = 256;      // threads per tile
constexpr int SCAN_V = 8;            // 16-byte vectors per thread
constexpr int SCAN_WARPS = SCAN_BLOCK / 32;
constexpr int SUMS_BLOCK = 1024;     // scan_tile_sums: one block
constexpr int SUMS_ITEMS = 8;        // tile sums per thread per round

template <typename T> struct shape {
    static constexpr int E = pp_vec16<T>::N;             // elements per vector
    static constexpr int ITEMS = SCAN_V * E;              // per thread
    static constexpr int WARP_ITEMS = 32 * ITEMS;         // per warp
    static constexpr int TILE = SCAN_BLOCK * ITEMS;       // per block
    // Resident blocks per SM asked of ptxas (at least): 4 for elements of up
    // to 4 bytes (64 registers), 2 for 8-byte ones. More resident tiles keep
    // more loads in flight while tiles wait in the look-back; measured on an
    // H200 at 2^28 against 2 (3 for 1-byte types): i8 -5%, u16 -18%, i32 and
    // f32 -4%; u64 +4% and f64 -4%, so 8-byte types keep 2 (bench/RESULTS.md).
    static constexpr int MIN_BLOCKS = sizeof(T) <= 4 ? 4 : 2;
};

// Hides the words of x from the optimizer (no instruction is emitted), so
// that element extractions after this point are not merged with those before
// it: between the fold and the rescan only the 16 packed words stay live,
// not every extracted element (which matters for 1- and 2-byte types).
template <typename T> __device__ __forceinline__ void launder(pp_vec16<T> (&x)[SCAN_V])
{
#pragma unroll
    for (int j = 0; j < SCAN_V; j++)
#pragma unroll
        for (int k = 0; k < 4; k++) asm volatile("" : "+r"(x[j].w[k]));
}

// Loads this thread's SCAN_V vectors. `off` is the offset in the tile of the
// thread's vector 0 (vector j is at off + j * 32 * E). vec (whole tile,
// `in` 16-byte aligned): one 16-byte load per vector. Otherwise (the last,
// partial tile, or a misaligned `in`) the block stages the tile through
// shared memory: element loads, coalesced and guarded by n, with the
// identity past the end, then 16-byte reads from `stage`. vec is the same in
// the whole block, so the barriers are reached by all threads.
template <typename T, typename Op>
__device__ __forceinline__ void load_tile(const T *in, size_t tile_base, int off, size_t n, bool vec, T *stage,
                                          pp_vec16<T> (&x)[SCAN_V])
{
    constexpr int E = shape<T>::E, TILE = shape<T>::TILE;
    if (vec) {
#pragma unroll
        for (int j = 0; j < SCAN_V; j++) x[j].load(in + tile_base + off + j * 32 * E);
    } else {
        const size_t len = n - tile_base < (size_t)TILE ? n - tile_base : (size_t)TILE;
        __syncthreads(); // earlier users of stage are done
#pragma unroll 4
        for (int k = threadIdx.x; k < TILE; k += SCAN_BLOCK)
            stage[k] = (size_t)k < len ? in[tile_base + k] : Op::template identity<T>();
        __syncthreads();
#pragma unroll
        for (int j = 0; j < SCAN_V; j++) x[j].load(stage + off + j * 32 * E);
    }
    launder<T>(x);
}

// Stores this thread's vectors, the same way round (staged: only the first
// n - tile_base elements of the tile are written).
template <typename T>
__device__ __forceinline__ void store_tile(T *out, size_t tile_base, int off, size_t n, bool vec, T *stage,
                                           const pp_vec16<T> (&x)[SCAN_V])
{
    constexpr int E = shape<T>::E, TILE = shape<T>::TILE;
    if (vec) {
#pragma unroll
        for (int j = 0; j < SCAN_V; j++) x[j].store(out + tile_base + off + j * 32 * E);
    } else {
        const size_t len = n - tile_base < (size_t)TILE ? n - tile_base : (size_t)TILE;
        __syncthreads(); // every thread has read its vectors from stage
#pragma unroll
        for (int j = 0; j < SCAN_V; j++) x[j].store(stage + off + j * 32 * E);
        __syncthreads();
#pragma unroll 4
        for (int k = threadIdx.x; k < TILE; k += SCAN_BLOCK)
            if ((size_t)k < len) out[tile_base + k] = stage[k];
    }
}

enum { F_EXCL = 1, F_IN16 = 2, F_OUT16 = 4 };

// The in-tile part shared by both algorithms. tile_local: each thread folds
// each of its vectors, SCAN_V interleaved warp scans give pre[j] (everything
// of the warp before vector j of this lane), and lane 0 of each warp leaves
// the warp's total in s_warp[warp]. The caller synchronizes, then
// tile_prefixes (warp 0 only) scans the warp totals and, given the tile's
// exclusive prefix from `get_prefix(tile_agg)`, leaves each warp's exclusive
// prefix in s_warp (lane k reads and then writes only s_warp[k]).
template <typename T, typename Op>
__device__ __forceinline__ void tile_local(const pp_vec16<T> (&x)[SCAN_V], T (&pre)[SCAN_V], T *s_warp)
{
    constexpr int E = shape<T>::E;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const T id = Op::template identity<T>();
    T inc[SCAN_V];
#pragma unroll
    for (int j = 0; j < SCAN_V; j++) {
        T r = x[j].get(0);
#pragma unroll
        for (int e = 1; e < E; e++) r = Op::apply(r, x[j].get(e));
        inc[j] = r;
    }
#pragma unroll
    for (int d = 1; d < 32; d *= 2)
#pragma unroll
        for (int j = 0; j < SCAN_V; j++) {
            T u = pp_shfl_up(inc[j], d);
            if (lane >= d) inc[j] = Op::apply(u, inc[j]);
        }
    T run = id;
#pragma unroll
    for (int j = 0; j < SCAN_V; j++) {
        T ex = pp_shfl_up(inc[j], 1);
        if (lane == 0) ex = id;
        pre[j] = j == 0 ? ex : Op::apply(run, ex);
        run = Op::apply(run, pp_shfl(inc[j], 31));
    }
    if (lane == 0) s_warp[warp] = run;
}

template <typename T, typename Op, typename G>
__device__ __forceinline__ void tile_prefixes(T *s_warp, G get_prefix)
{
    const int lane = threadIdx.x & 31;
    const T id = Op::template identity<T>();
    T wi = pp_warp_inclusive<T, Op>(lane < SCAN_WARPS ? s_warp[lane] : id);
    T tile_agg = pp_shfl(wi, SCAN_WARPS - 1);
    T wex = pp_shfl_up(wi, 1);
    if (lane == 0) wex = id;
    T prefix = get_prefix(tile_agg);
    if (lane < SCAN_WARPS) s_warp[lane] = Op::apply(prefix, wex);
}

// Rescans each vector serially from its prefix wp (the warp's) combined
// with pre[j], in registers; exclusive or inclusive outputs replace x.
template <typename T, typename Op>
__device__ __forceinline__ void tile_rescan(pp_vec16<T> (&x)[SCAN_V], const T (&pre)[SCAN_V], T wp, bool excl)
{
    constexpr int E = shape<T>::E;
#pragma unroll
    for (int j = 0; j < SCAN_V; j++) {
        T c = Op::apply(wp, pre[j]);
        if constexpr (sizeof(T) >= 4) {
#pragma unroll
            for (int e = 0; e < E; e++) {
                T v = x[j].get(e);
                T nc = Op::apply(c, v);
                x[j].set(e, excl ? c : nc);
                c = nc;
            }
        } else {
            // Sub-word types: rebuild each 32-bit word from its outputs.
            constexpr int PER = 4 / (int)sizeof(T);
#pragma unroll
            for (int k = 0; k < 4; k++) {
                uint32_t word = 0;
#pragma unroll
                for (int b = 0; b < PER; b++) {
                    T v = x[j].get(k * PER + b);
                    T nc = Op::apply(c, v);
                    T y = excl ? c : nc;
                    typename pp_traits<T>::bits u;
                    memcpy(&u, &y, sizeof(T));
                    word |= (uint32_t)u << (8 * (int)sizeof(T) * b);
                    c = nc;
                }
                x[j].w[k] = word;
            }
        }
    }
}

// The end of a tile for both kernels, once s_warp holds each warp's
// exclusive prefix (wp, this warp's): rescans the thread's vectors from it
// (the first element of an exclusive scan is the public identity) and
// stores them.
template <typename T, typename Op>
__device__ __forceinline__ void tile_finish(pp_vec16<T> (&x)[SCAN_V], const T (&pre)[SCAN_V], T wp, bool first,
                                            int flags, T *out, size_t tile_base, int off, size_t n, bool whole,
                                            T *stage)
{
    launder<T>(x);
    tile_rescan<T, Op>(x, pre, wp, flags & F_EXCL);
    if ((flags & F_EXCL) && first && threadIdx.x == 0) x[0].set(0, pp_public_identity<T, Op>());
    store_tile<T>(out, tile_base, off, n, whole && (flags & F_OUT16), stage, x);
}

// Scans one tile per block, grid = tiles. LOOKBACK: each block draws its
// tile's ticket when it starts (pp_take_tile), so tiles are numbered in the
// order blocks start and every predecessor of a tile is running or done, and
// the tile's exclusive prefix comes from the decoupled look-back. Otherwise
// (reduce-then-scan, pass 3) tile = blockIdx.x and its exclusive prefix is
// prefixes[tile].
template <typename T, typename Op, bool LOOKBACK>
__global__ void __launch_bounds__(SCAN_BLOCK, shape<T>::MIN_BLOCKS)
    scan_tiles(const T *in, T *out, size_t n, int flags, pp_lookback<T> lb, unsigned long long *ticket,
               unsigned long long ticket_base, const T *prefixes)
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
                // The look-back's butterfly can round differently in each
                // lane (floats); use lane 0's value, the one it published.
                return pp_shfl(pp_lookback_prefix<T, Op>(lb, tile, agg), 0);
            } else {
                return prefixes[tile];
            }
        });
    __syncthreads();
    tile_finish<T, Op>(x, pre, s_warp[warp], tile == 0, flags, out, tile_base, off, n, whole, stage);
}

// ---- the warp-specialized scan (PP_ALGO_AUTO, 4-byte elements, large n) ----------
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
//   since (pp_la_advance). There are no inclusive prefixes, so no frontier
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
// exactly tiles + grid of them. Needs in and out 16-byte aligned (bulk
// copies, vector stores). Measured (bench/RESULTS.md): u32 at 2^28 on an
// H200 0.54 ms, 0.93-0.95 of a device copy, against 0.60 for scan_tiles; on
// an H100 0.99 of a copy, against 0.92. It loses below 2048 tiles (one block per SM has too few tiles to fill its
// ring), and for 8-byte elements at every size (a probe and pp bench),
// which keep scan_tiles.
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
    scan_ahead(const T *in, T *out, size_t n, long long tiles, int flags, pp_lookback<T> lb,
               unsigned long long *ticket, unsigned long long ticket_base)
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
        T acc = id;
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
        if ((flags & F_EXCL) && t == 0 && threadIdx.x == 0) x[0].set(0, pp_public_identity<T, Op>());
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

// Small n (at most PP_CLUSTER tiles): one cluster of PP_CLUSTER blocks,
// block r scans tile r (blocks past the end only take part in the
// barriers). Each block writes its tile's aggregate into the shared memory
// of every later block; after the cluster's barrier, a block folds the
// aggregates before it in tile order: no look-back, flags or tickets, and
// float results are reproducible run to run.
template <typename T, typename Op>
__global__ void __cluster_dims__(PP_CLUSTER, 1, 1) __launch_bounds__(SCAN_BLOCK, shape<T>::MIN_BLOCKS)
    scan_cluster(const T *in, T *out, size_t n, int flags)
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
            T p = id;
            for (unsigned t = 0; t < tile; t++) p = Op::apply(p, s_aggs[t]);
            return p;
        });
    __syncthreads();
    tile_finish<T, Op>(x, pre, s_warp[warp], tile == 0, flags, out, tile_base, off, n, whole, stage);
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
// rounds. Each thread reads and writes only its own SUMS_ITEMS sums.
template <typename T, typename Op> __global__ void __launch_bounds__(SUMS_BLOCK) scan_tile_sums(T *sums, size_t tiles)
{
    __shared__ T smem[SUMS_BLOCK / 32];
    const T id = Op::template identity<T>();
    T carry = id;
    for (size_t base = 0; base < tiles; base += (size_t)SUMS_BLOCK * SUMS_ITEMS) {
        const size_t i0 = base + (size_t)threadIdx.x * SUMS_ITEMS;
        T x[SUMS_ITEMS];
#pragma unroll
        for (int k = 0; k < SUMS_ITEMS; k++) x[k] = i0 + k < tiles ? sums[i0 + k] : id;
        T r = x[0];
#pragma unroll
        for (int k = 1; k < SUMS_ITEMS; k++) r = Op::apply(r, x[k]);
        T total;
        T c = Op::apply(carry, pp_block_exclusive<T, Op, SUMS_BLOCK>(r, &total, smem));
#pragma unroll
        for (int k = 0; k < SUMS_ITEMS; k++) {
            if (i0 + k < tiles) sums[i0 + k] = c;
            c = Op::apply(c, x[k]);
        }
        carry = Op::apply(carry, total);
    }
}

// Which scan: the default (AUTO: scan_cluster, scan_tiles or scan_ahead by
// size), the decoupled look-back alone (scan_cluster or scan_tiles), or
// reduce-then-scan.
enum scan_mode { SCAN_AUTO, SCAN_LOOKBACK, SCAN_RTS };

// scan_ahead from this many tiles (32 KB each) on: below, one block per SM
// has too few tiles to fill its ring, and scan_tiles' 4 blocks per SM win
// (u32 on an H200: 1024 tiles 0.032 ms against 0.030, 2048 tiles 0.047
// against 0.050; bench/RESULTS.md).
constexpr size_t AHEAD_MIN_TILES = 2048;

template <typename T, typename Op>
pp_status ahead_launch(pp_context *ctx, const T *in, T *out, size_t n, size_t tiles, int flags, const char *fn)
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
                                                   (long long)tiles, flags, lb, s->ticket, tbase));
}

template <typename T, typename Op> pp_status scan_launch(pp_context *ctx, const pp_scan_args *a, scan_mode mode)
{
    const bool rts = mode == SCAN_RTS;
    const char *fn = a->fn;
    const size_t n = a->n;
    pp_cuda_state *s = pp_cuda(ctx);
    const T *in = (const T *)a->in;
    T *out = (T *)a->out;
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
        PP_CUDA_CHECK_LAUNCH(ctx, fn, pp_cuda_launch(ctx, scan_tile_sums<T, Op>, 1, SUMS_BLOCK, 0, sums, tiles));
        PP_CUDA_CHECK_LAUNCH(ctx, fn,
                             pp_cuda_launch(ctx, scan_tiles<T, Op, false>, grid, SCAN_BLOCK, 0, in, out, n, flags,
                                            pp_lookback<T>{}, (unsigned long long *)NULL, 0ull, (const T *)sums));
        return PP_SUCCESS;
    }

    if (tiles <= PP_CLUSTER) {
        PP_CUDA_CHECK_LAUNCH(ctx, fn, pp_cuda_launch(ctx, scan_cluster<T, Op>, PP_CLUSTER, SCAN_BLOCK, 0, in, out, n, flags));
        return PP_SUCCESS;
    }

    // 4-byte elements only: 8-byte ones were as fast or slower than
    // scan_tiles, and 1- and 2-byte ones spill under scan_ahead's register
    // budget (96 per thread, 18 warps per SM).
    if constexpr (sizeof(T) == 4)
        if (mode == SCAN_AUTO && tiles >= AHEAD_MIN_TILES && (flags & F_IN16) && (flags & F_OUT16) &&
            s->smem_optin >= ahead_smem_bytes<T>())
            return ahead_launch<T, Op>(ctx, in, out, n, tiles, flags, fn);

    // Decoupled look-back: per-tile aggregates and inclusive prefixes in
    // scratch, flags in the look-back arena.
    pp_lookback<T> lb;
    unsigned long long tbase = 0;
    const pp_status st_lb = pp_lookback_setup(ctx, tiles, sizeof(T) <= 4, &lb, &tbase, fn);
    if (st_lb != PP_SUCCESS) return st_lb;
    return pp_cuda_launched_tickets(ctx, fn,
                                    pp_cuda_launch(ctx, scan_tiles<T, Op, true>, grid, SCAN_BLOCK, 0, in, out, n,
                                                   flags, lb, s->ticket, tbase, (const T *)NULL));
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
