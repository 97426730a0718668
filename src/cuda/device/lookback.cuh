// The decoupled look-back (Merrill and Garland, 2016) used by scan and
// select: per-tile publication of aggregates and inclusive prefixes, the
// warp that looks back over its predecessors, the dynamic tile ticket, and
// the host-side setup of a launch's look-back state.
#ifndef PP_CUDA_DEVICE_LOOKBACK_CUH
#define PP_CUDA_DEVICE_LOOKBACK_CUH

#include "../cuda_state.cuh"
#include "memory_order.cuh"
#include "warp_scan.cuh"

// Each tile publishes its aggregate (state 1), looks back over earlier tiles
// until it meets one that has published its inclusive prefix (state 2),
// combines what it saw, and publishes its own inclusive prefix. A state and
// its value are one word, written and read whole. States carry the
// launch's epoch, so stale words of earlier launches read as "not yet
// published".

enum { PP_LB_NONE = 0, PP_LB_AGGREGATE = 1, PP_LB_PREFIX = 2 };

// The arena holds one word per tile (8 or 16 bytes, below), one 128-byte
// line (PP_CUDA_LB_STRIDE 64-bit words) apart. Tiles waiting in their look-back poll the words of
// the tiles just before them while those tiles publish into them; with
// neighbouring tiles' words in one 32-byte sector, the reads and writes of
// several tiles queue on the same sector. A line per tile keeps them apart,
// which made scan and select_if faster (16 bytes apart already gave most of
// it; bench/studies/cuda-scan.md, "cuda look-back: each tile's state on a 128-byte
// line of its own").
// Two layouts of a tile's word, each written and read whole by one access,
// so a reader that sees a state sees its value: no fences.
// Packed (values that fit in 32 bits: elements of 4 bytes or less, or
// counts below 2^32): 64 bits, (tag | state) << 32 | value.
// Wide (8-byte values): 128 bits, the value in the low 64, tag | state in
// the next 32 (16-byte accesses, .b128); a 12-byte value (the f16 scan's
// prefix, cuda_half_scan.cu) has its last 4 bytes in the top 32. Before it, 8-byte values lived in
// per-tile arrays next to each other, read after an acquire of the flag:
// two dependent reads per poll and shared sectors again, which left the
// 8-byte scans far behind the 4-byte ones (bench/studies/cuda-overall.md, "bench_cub
// over every type and size; 16-byte look-back words for 8-byte values").
template <typename T> struct pp_lookback {
    uint32_t *flags; // the arena: a word per tile, PP_CUDA_LB_STRIDE 64-bit words apart
    uint32_t epoch;
    int packed;      // values fit in 32 bits: packed words (always for T of 4 bytes or less)
    unsigned first_ns; // sleep before the first poll (pp_lb_delays)
    unsigned poll_ns;  // sleep between polls that find a tile unpublished
};

// A value's first 8 bytes as a word, and (values of 12 bytes, wide words
// only) its last 4; and back.
template <typename T> __device__ __forceinline__ unsigned long long pp_lb_bits(T v)
{
    unsigned long long u = 0;
    memcpy(&u, &v, sizeof(T) < 8 ? sizeof(T) : 8);
    return u;
}
template <typename T> __device__ __forceinline__ unsigned long long pp_lb_high(T v)
{
    if constexpr (sizeof(T) == 12) {
        uint32_t h;
        memcpy(&h, (const char *)&v + 8, 4);
        return (unsigned long long)h << 32;
    } else {
        return 0;
    }
}
template <typename T> __device__ __forceinline__ T pp_lb_value(unsigned long long u, unsigned long long hi = 0)
{
    T v;
    memcpy(&v, &u, sizeof(T) < 8 ? sizeof(T) : 8);
    if constexpr (sizeof(T) == 12) {
        const uint32_t h = (uint32_t)(hi >> 32);
        memcpy((char *)&v + 8, &h, 4);
    }
    return v;
}
template <typename T> __device__ __forceinline__ bool pp_lb_packed(const pp_lookback<T> &lb)
{
    if constexpr (sizeof(T) <= 4) return true;
    else return lb.packed;
}

// Tile idx's word in the arena (the first 8 or 16 bytes of its line).
template <typename T>
__device__ __forceinline__ unsigned long long *pp_lb_word(const pp_lookback<T> &lb, unsigned long long idx)
{
    return (unsigned long long *)(lb.flags + 2ull * PP_CUDA_LB_STRIDE * idx);
}

// Reads one word whole, wherever it lies (a line per tile here, packed for
// the look-ahead below): returns its tag | state and leaves its value in v.
template <typename T>
__device__ __forceinline__ uint32_t pp_lb_load(const pp_lookback<T> &lb, const unsigned long long *w, T &v)
{
    uint32_t f;
    if (pp_lb_packed(lb)) {
        const unsigned long long x = pp_load_relaxed64(w);
        f = (uint32_t)(x >> 32);
        v = pp_lb_value<T>((uint32_t)x);
    } else {
        unsigned long long lo, hi;
        pp_load_relaxed128(w, lo, hi);
        f = (uint32_t)hi;
        v = pp_lb_value<T>(lo, hi);
    }
    return f;
}

template <typename T>
__device__ __forceinline__ void pp_lb_publish(const pp_lookback<T> &lb, unsigned long long tile, uint32_t state, T v)
{
    const uint32_t tag = lb.epoch << 2;
    if (pp_lb_packed(lb))
        pp_store_relaxed64(pp_lb_word(lb, tile), ((unsigned long long)(tag | state) << 32) | (uint32_t)pp_lb_bits(v));
    else
        pp_store_relaxed128(pp_lb_word(lb, tile), pp_lb_bits(v), pp_lb_high(v) | tag | state);
}

// Reads the state and value of tile idx's word; tiles before 0 read as an
// empty inclusive prefix.
template <typename T>
__device__ __forceinline__ uint32_t pp_lb_read(const pp_lookback<T> &lb, long long idx, uint32_t tag, T &v)
{
    if (idx < 0) return PP_LB_PREFIX;
    const uint32_t f = pp_lb_load(lb, pp_lb_word(lb, (unsigned long long)idx), v);
    return (f & ~3u) == tag ? (f & 3u) : PP_LB_NONE;
}

// Called by all 32 lanes of ONE warp of the tile's block. Returns the
// exclusive prefix of tile (the identity for tile 0), the same in every
// lane, and publishes tile's inclusive prefix.
// The warp reads a window of 32 predecessors per round (lane l: tile
// base - l). A round ends when the nearest inclusive prefix in the window
// and every tile after it have published; it combines those and the
// look-back is over, or, where the window has no inclusive prefix and every
// tile in it has published, combines the whole window and moves 32 tiles
// further back.
// Polling. Every waiting tile reads the few cache lines just behind the
// frontier of published prefixes, and so do the tiles publishing there: on
// a full GPU, unthrottled polling slows every access to those lines, and
// the frontier with them. So a tile first sleeps lb.first_ns (about the
// time its predecessors need to publish), then lb.poll_ns between reads
// that find a predecessor not yet published (both 0 for small grids, where
// there is no contention and latency matters).
template <typename T, typename Op>
__device__ T pp_lookback_prefix(const pp_lookback<T> &lb, unsigned long long tile, T tile_agg)
{
    const int lane = threadIdx.x & 31;
    const uint32_t tag = lb.epoch << 2;
    const T id = Op::template identity<T>();
    if (tile == 0) {
        if (lane == 0) pp_lb_publish(lb, 0, PP_LB_PREFIX, tile_agg);
        return id;
    }
    if (lane == 0) pp_lb_publish(lb, tile, PP_LB_AGGREGATE, tile_agg);
    if (lb.first_ns) __nanosleep(lb.first_ns);
    T prefix = id;
    long long base = (long long)tile - 1;
    for (;;) {
        const long long idx = base - lane;
        uint32_t state;
        T v = id;
        for (;;) {
            state = pp_lb_read(lb, idx, tag, v);
            const unsigned with_prefix = __ballot_sync(0xffffffffu, state == PP_LB_PREFIX);
            // Lanes up to and including the nearest prefix must have published.
            const unsigned needed = with_prefix ? (with_prefix & -with_prefix) * 2u - 1u : 0xffffffffu;
            if (!(__ballot_sync(0xffffffffu, state == PP_LB_NONE) & needed)) break;
            if (lb.poll_ns) __nanosleep(lb.poll_ns);
        }
        const unsigned with_prefix = __ballot_sync(0xffffffffu, state == PP_LB_PREFIX);
        const int stop = with_prefix ? __ffs(with_prefix) - 1 : 31;
        if (lane > stop || idx < 0) v = id;
        v = pp_warp_reduce<T, Op>(v);
        prefix = Op::apply(v, prefix);
        if (with_prefix) break;
        base -= 32;
    }
    prefix = pp_shfl(prefix, 0); // one value in every lane (floats may round per lane)
    if (lane == 0) pp_lb_publish(lb, tile, PP_LB_PREFIX, Op::apply(prefix, tile_agg));
    return prefix;
}

// ---- look-ahead: aggregates only, a running prefix per block -----------------------
// The warp-specialized scan (scan/ahead.cuh, scan_ahead) publishes only
// aggregates, in words packed next to each other (8 or 16 bytes per tile,
// the layouts above, state PP_LB_AGGREGATE), and each block keeps the
// exclusive prefix of its latest tile: the prefix of a later tile is that
// plus the aggregates of every tile between. The words are dense because
// the readers read 32 of them per load instruction (a line per tile was
// slower: bench/studies/cuda-scan.md, "cuda scan: a warp-specialized look-ahead scan,
// the default for large 4-byte scans").

template <typename T>
__device__ __forceinline__ unsigned long long *pp_la_word(const pp_lookback<T> &lb, unsigned long long idx)
{
    return (unsigned long long *)(lb.flags + (pp_lb_packed(lb) ? 2ull : 4ull) * idx);
}

// pp_lb_publish's store, at the packed word. (A store helper shared by
// both, taking the word's address, changed the register allocation of the
// cuda_select kernels; this keeps their code as measured.)
template <typename T>
__device__ __forceinline__ void pp_la_publish(const pp_lookback<T> &lb, unsigned long long tile, T v)
{
    const uint32_t tag = (lb.epoch << 2) | PP_LB_AGGREGATE;
    if (pp_lb_packed(lb))
        pp_store_relaxed64(pp_la_word(lb, tile), ((unsigned long long)tag << 32) | (uint32_t)pp_lb_bits(v));
    else
        pp_store_relaxed128(pp_la_word(lb, tile), pp_lb_bits(v), pp_lb_high(v) | tag);
}

// Called by all 32 lanes of one warp: advances (cur, acc), where acc is the
// exclusive prefix of tile cur, to tile `to` >= cur, waiting for the
// aggregates of tiles cur .. to-1. Each round reads up to 32 x LA words
// (all loads issued before any is used) and folds, in tile order, the run
// of published aggregates from cur on. acc is the same in every lane
// (lane 0's fold, broadcast).
template <typename T, typename Op, int LA = 4>
__device__ __forceinline__ void pp_la_advance(const pp_lookback<T> &lb, long long &cur, T &acc, long long to)
{
    const int lane = threadIdx.x & 31;
    const uint32_t tag = (lb.epoch << 2) | PP_LB_AGGREGATE;
    const T id = Op::template identity<T>();
    while (cur < to) {
        T v[LA];
        bool ok[LA];
#pragma unroll
        for (int k = 0; k < LA; k++) {
            const long long idx = cur + k * 32 + lane;
            ok[k] = true;
            v[k] = id;
            if (idx < to) ok[k] = pp_lb_load(lb, pp_la_word(lb, (unsigned long long)idx), v[k]) == tag;
        }
        int adv = 0;
#pragma unroll
        for (int k = 0; k < LA; k++) {
            const unsigned m = __ballot_sync(0xffffffffu, ok[k]);
            const int ready = m == 0xffffffffu ? 32 : __ffs(~m) - 1;
            if (ready == 0) break;
            acc = Op::apply(acc, pp_shfl(pp_warp_reduce<T, Op>(lane < ready ? v[k] : id), 0));
            adv += ready;
            if (ready < 32) break;
        }
        cur = cur + adv < to ? cur + adv : to;
        if (adv == 0) __nanosleep(64);
    }
}

// A dynamic tile index: tiles are numbered in the order blocks start, so a
// tile's predecessors have all started (the look-back's progress argument).
__device__ __forceinline__ unsigned long long pp_take_tile(unsigned long long *ticket, unsigned long long base)
{
    __shared__ unsigned long long t;
    if (threadIdx.x == 0) t = atomicAdd(ticket, 1ull) - base;
    __syncthreads();
    unsigned long long r = t;
    __syncthreads();
    return r;
}

// ---- host side ----------------------------------------------------------------------

// Polling delays for a look-back launch of `tiles` tiles (see
// pp_lookback_prefix): a first sleep of 1 us and 0.2 us between polls,
// chosen by measurement with tiles' words one line apart: somewhat shorter
// delays ran the same, longer ones and unthrottled polling slower (far
// slower with words packed 8 to a line; bench/studies/cuda-scan.md, "cuda look-back:
// each tile's state on a 128-byte line of its own" and "cuda scan: the
// look-back's knobs again"); small launches poll without delay.
template <typename T> inline void pp_lb_delays(pp_lookback<T> &lb, size_t tiles)
{
    const bool busy = tiles >= 512;
    lb.first_ns = busy ? 1000u : 0u;
    lb.poll_ns = busy ? 200u : 0u;
}

// The look-back state of a launch of `tiles` tiles: flags in the context's
// arena, and *ticket_base, the launch's first ticket. packed: every value
// published fits in 32 bits. Once pp_cuda_lookback has counted the tickets,
// the launch must happen. PP_ERROR_OUT_OF_MEMORY (message set) on failure.
template <typename T>
pp_status pp_lookback_setup(pp_context *ctx, size_t tiles, bool packed, pp_lookback<T> *lb,
                            unsigned long long *ticket_base, const char *fn)
{
    static_assert(sizeof(T) <= 8 || sizeof(T) == 12, "look-back values are 8 bytes at most, or 12");
    uint32_t epoch = 0;
    uint32_t *flags = pp_cuda_lookback(ctx, tiles, &epoch, ticket_base, fn);
    if (!flags) return PP_ERROR_OUT_OF_MEMORY;
    lb->flags = flags;
    lb->packed = packed || sizeof(T) <= 4;
    lb->epoch = epoch;
    pp_lb_delays(*lb, tiles);
    return PP_SUCCESS;
}

#endif
