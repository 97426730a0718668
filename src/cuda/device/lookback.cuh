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
// combines what it saw, and publishes its own inclusive prefix. Values are
// written before the flag is released; a reader acquires the flag before it
// reads a value. Flags carry the launch's epoch, so stale flags of earlier
// launches read as "not yet published".

enum { PP_LB_NONE = 0, PP_LB_AGGREGATE = 1, PP_LB_PREFIX = 2 };

// The arena holds one 64-bit word per tile, PP_CUDA_LB_STRIDE words (one
// 128-byte line) apart. Tiles waiting in their look-back poll the words of
// the tiles just before them while those tiles publish into them; with
// neighbouring tiles' words in one 32-byte sector, the reads and writes of
// several tiles queue on the same sector. One line per tile, measured on an
// H200 (2^28 elements): scan 0.660 -> 0.607 ms, select_if 0.494 -> 0.459
// (16 bytes apart already gave most of it; bench/RESULTS.md).
// Packed mode (values that fit in 32 bits: elements of 4 bytes or less, or
// counts below 2^32): the word is (tag | state) << 32 | value, written and
// read whole by single 64-bit accesses, so a reader that sees the state
// sees its value: no fences. Else the low half of the word is the flag
// (release store after the value, acquire load before it) and the values
// live in agg / incl.
template <typename T> struct pp_lookback {
    uint32_t *flags; // the arena: a 64-bit word per tile, PP_CUDA_LB_STRIDE words apart
    T *agg;          // per tile (unpacked mode only)
    T *incl;         // per tile (unpacked mode only)
    uint32_t epoch;
    int packed;      // values fit in 32 bits: use packed words
    unsigned first_ns; // sleep before the first poll (pp_lb_delays)
    unsigned poll_ns;  // sleep between polls that find a tile unpublished
};

template <typename T> __device__ __forceinline__ uint32_t pp_lb_bits(T v)
{
    if constexpr (sizeof(T) <= 4) {
        uint32_t u = 0;
        memcpy(&u, &v, sizeof(T));
        return u;
    } else {
        unsigned long long u;
        memcpy(&u, &v, 8);
        return (uint32_t)u; // counts below 2^32 only
    }
}
template <typename T> __device__ __forceinline__ T pp_lb_value(uint32_t u)
{
    T v;
    if constexpr (sizeof(T) <= 4) {
        memcpy(&v, &u, sizeof(T));
    } else {
        unsigned long long w = u;
        memcpy(&v, &w, 8);
    }
    return v;
}

// Tile idx's word in the arena (64 bits; in unpacked mode its low half is
// the flag).
template <typename T> __device__ __forceinline__ uint32_t *pp_lb_word(const pp_lookback<T> &lb, unsigned long long idx)
{
    return lb.flags + 2ull * PP_CUDA_LB_STRIDE * idx;
}

template <typename T>
__device__ __forceinline__ void pp_lb_publish(const pp_lookback<T> &lb, unsigned long long tile, uint32_t state, T v)
{
    const uint32_t tag = lb.epoch << 2;
    if (lb.packed) {
        unsigned long long w = ((unsigned long long)(tag | state) << 32) | pp_lb_bits(v);
        pp_store_relaxed64((unsigned long long *)pp_lb_word(lb, tile), w);
    } else {
        if (state == PP_LB_PREFIX) lb.incl[tile] = v;
        else lb.agg[tile] = v;
        pp_store_release(pp_lb_word(lb, tile), tag | state);
    }
}

// Reads the state and (packed mode) value of tile idx's word; tiles before 0
// read as an empty inclusive prefix.
template <typename T>
__device__ __forceinline__ uint32_t pp_lb_read(const pp_lookback<T> &lb, long long idx, uint32_t tag, T &v)
{
    if (idx < 0) return PP_LB_PREFIX;
    uint32_t f;
    if (lb.packed) {
        unsigned long long w = pp_load_relaxed64((const unsigned long long *)pp_lb_word(lb, (unsigned long long)idx));
        f = (uint32_t)(w >> 32);
        v = pp_lb_value<T>((uint32_t)w);
    } else {
        f = pp_load_acquire(pp_lb_word(lb, (unsigned long long)idx));
    }
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
        if (!lb.packed && idx >= 0) v = state == PP_LB_PREFIX ? lb.incl[idx] : lb.agg[idx];
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
// pp_lookback_prefix): measured on an H200 at 2^28 elements, with tiles'
// words one line apart, a first sleep of 1 us and 0.2 us between polls
// (0.7-1.0 and 0.1-0.2 us all within 1%; 2 and 0.5 us about 1% slower,
// unthrottled polling 3% slower; with words packed 8 to a line,
// unthrottled polling was 25% slower); small launches poll without delay.
template <typename T> inline void pp_lb_delays(pp_lookback<T> &lb, size_t tiles)
{
    const bool busy = tiles >= 512;
    lb.first_ns = busy ? 1000u : 0u;
    lb.poll_ns = busy ? 200u : 0u;
}

// The look-back state of a launch of `tiles` tiles: per-tile aggregates and
// inclusive prefixes in scratch (used in unpacked mode), flags in the
// context's arena, and *ticket_base, the launch's first ticket. Scratch
// first: once pp_cuda_lookback has counted the tickets, the launch must
// happen. PP_ERROR_OUT_OF_MEMORY (message set) on failure.
template <typename T>
pp_status pp_lookback_setup(pp_context *ctx, size_t tiles, bool packed, pp_lookback<T> *lb,
                            unsigned long long *ticket_base, const char *fn)
{
    T *vals = (T *)pp_cuda_scratch(ctx, 2 * tiles * sizeof(T), fn);
    if (!vals) return PP_ERROR_OUT_OF_MEMORY;
    uint32_t epoch = 0;
    uint32_t *flags = pp_cuda_lookback(ctx, tiles, &epoch, ticket_base, fn);
    if (!flags) return PP_ERROR_OUT_OF_MEMORY;
    lb->flags = flags;
    lb->packed = packed;
    lb->agg = vals;
    lb->incl = vals + tiles;
    lb->epoch = epoch;
    pp_lb_delays(*lb, tiles);
    return PP_SUCCESS;
}

#endif
